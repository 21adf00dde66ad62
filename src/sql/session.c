/* Sessions: parse, bind, run, statement by statement. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <stdlib.h>

#include "basalt/bench.h"
#include "sql_results.h"
#include "sql_write.h"

void basalt_sql_options_init(struct basalt_sql_options *o)
{
    memset(o, 0, sizeof *o);
}

basalt_status basalt_sql_session_new(const struct basalt_sql_options *o,
                                     struct basalt_sql_session **out, struct basalt_error *err)
{
    *out = NULL;
    struct basalt_sql_session *s = basalt_calloc(1, sizeof *s);
    if (s == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (o != NULL)
        s->o = *o;
    basalt_status st = BASALT_OK;
    if (o != NULL && o->spill_dir != NULL) {
        s->spill_dir = basalt_strdup(o->spill_dir);
        if (s->spill_dir == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    s->o.spill_dir = s->spill_dir;
    if (st == BASALT_OK && o != NULL && o->catalog_uri != NULL) {
        s->catalog_uri = basalt_strdup(o->catalog_uri);
        if (s->catalog_uri == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        s->o.catalog_uri = s->catalog_uri;
        if (st == BASALT_OK)
            st = basalt_catalog_open(o->catalog_uri, NULL, true, &s->catalog, err);
        struct basalt_io_store *store = o->store;
        if (st == BASALT_OK && store == NULL) {
            /* A store the environment cannot make (a malformed AWS config
             * file) only matters to remote tables: the catalog then makes
             * its own for them and reports the problem there. */
            struct basalt_error ignored;
            basalt_error_init(&ignored);
            if (basalt_io_store_new(NULL, &s->own_store, &ignored) != BASALT_OK)
                s->own_store = NULL;
            store = s->own_store;
        }
        if (st == BASALT_OK && store != NULL)
            basalt_catalog_set_store(s->catalog, store);
    }
    if (st != BASALT_OK) {
        basalt_sql_session_free(s);
        return st;
    }
    *out = s;
    return BASALT_OK;
}

void basalt_sql_session_free(struct basalt_sql_session *s)
{
    if (s == NULL)
        return;
    basalt_catalog_close(s->catalog);
    basalt_io_store_free(s->own_store);
    basalt_free(s->catalog_uri);
    basalt_free(s->spill_dir);
    for (int i = 0; i < s->n_tables; i++) {
        basalt_free(s->tables[i].name);
        basalt_arrow_batches_reset(&s->tables[i].batches);
    }
    basalt_free(s->tables);
    basalt_free(s);
}

basalt_status basalt_sql_session_register(struct basalt_sql_session *s, const char *name,
                                          struct basalt_arrow_batches *batches,
                                          struct basalt_error *err)
{
    if (s == NULL || name == NULL || batches == NULL || batches->schema.release == NULL ||
        strcmp(batches->schema.format, "+s") != 0) {
        if (batches != NULL)
            basalt_arrow_batches_reset(batches);
        return basalt_error_set(err, BASALT_INVALID_ARG, "register: a name and struct batches");
    }
    for (int i = 0; i < s->n_tables; i++)
        if (strcasecmp(s->tables[i].name, name) == 0) {
            basalt_arrow_batches_reset(&s->tables[i].batches);
            s->tables[i].batches = *batches;
            basalt_arrow_batches_init(batches);
            return BASALT_OK;
        }
    if (s->n_tables == s->cap_tables) {
        int cap = s->cap_tables ? s->cap_tables * 2 : 4;
        struct bmem_table *t = basalt_realloc(s->tables, (size_t)cap * sizeof *t);
        if (t == NULL) {
            basalt_arrow_batches_reset(batches);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        s->tables = t;
        s->cap_tables = cap;
    }
    char *copy = basalt_strdup(name);
    if (copy == NULL) {
        basalt_arrow_batches_reset(batches);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    s->tables[s->n_tables].name = copy;
    s->tables[s->n_tables++].batches = *batches;
    basalt_arrow_batches_init(batches);
    return BASALT_OK;
}

basalt_status basalt_sql_one_row(struct binder *B, struct basalt_qplan **out,
                                 struct basalt_error *err)
{
    struct basalt_arrow_batches one;
    basalt_arrow_batches_init(&one);
    struct ArrowArray row;
    basalt_status st = basalt_arrow_schema_init(&one.schema, "+s", NULL, 0, 0, err);
    if (st == BASALT_OK)
        st = basalt_arrow_array_init(&row, 1, 0, err);
    if (st == BASALT_OK) {
        row.length = 1;
        st = basalt_arrow_batches_append(&one, &row, err);
    }
    if (st == BASALT_OK)
        st = basalt_qplan_values(B->ctx, &one, out, err);
    basalt_arrow_batches_reset(&one);
    return st;
}

bool basalt_sql_parse_timestamp_us(const char *text, int64_t *us)
{
    int y, mo, d, h = 0, mi = 0;
    double sec = 0;
    int n = sscanf(text, "%d-%d-%d%*[ T]%d:%d:%lf", &y, &mo, &d, &h, &mi, &sec);
    if (n != 3 && n < 5)
        return false;
    /* days from civil (proleptic Gregorian) */
    int yy = y - (mo <= 2);
    int era = (yy >= 0 ? yy : yy - 399) / 400;
    int yoe = yy - era * 400;
    int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = (int64_t)era * 146097 + doe - 719468;
    *us = ((days * 86400 + h * 3600 + mi * 60) * 1000000) + (int64_t)(sec * 1e6);
    return true;
}

static void binder_init(struct binder *B, struct basalt_sql_session *s, struct basalt_qctx *ctx,
                        const char *text)
{
    memset(B, 0, sizeof *B);
    B->session = s;
    B->ctx = ctx;
    B->text = text;
    basalt_arena_init(&B->arena, 16384);
}

static void binder_reset(struct binder *B)
{
    for (int i = 0; i < B->n_tables; i++)
        basalt_iceberg_table_free(B->tables[i]);
    basalt_free(B->tables);
    basalt_sql_ctes_reset(B);
    basalt_free(B->repl);
    basalt_free(B->many);
    basalt_free(B->ndv);
    basalt_arena_reset(&B->arena);
}

basalt_status basalt_sql_run_now(struct binder *B, const struct basalt_sql_query *q,
                                 struct basalt_arrow_batches *out, struct basalt_error *err)
{
    struct brel rel;
    const char **names;
    basalt_status st = basalt_sql_bind_query(B, q, &rel, &names, err);
    if (st == BASALT_OK)
        st = basalt_qplan_execute(B->ctx, rel.node, out, err);
    return st;
}

/* SET threads = N caps the workers; SET memory_limit = '2GB';
 * SET temp_directory = '/path' (spill files; '' for the default). */
static basalt_status set_option(struct basalt_sql_session *s, const struct basalt_sql_statement *stmt,
                                struct basalt_error *err)
{
    const char *name = stmt->set_name.name;
    const struct basalt_sql_expr *v = stmt->set_value;
    const char *text = v && (v->kind == BASALT_SQL_EXPR_STRING || v->kind == BASALT_SQL_EXPR_INTEGER)
                           ? v->u.lit.text
                           : NULL;
    if (text != NULL && (strcmp(name, "threads") == 0 || strcmp(name, "worker_threads") == 0)) {
        long n = strtol(text, NULL, 10);
        if (n < 1 || n > 1024)
            return basalt_error_set(err, BASALT_INVALID_ARG, "SET threads takes 1..1024");
        s->o.num_workers = (int)n;
        return BASALT_OK;
    }
    if (text != NULL && strcmp(name, "memory_limit") == 0) {
        char *end;
        double n = strtod(text, &end);
        while (*end == ' ')
            end++;
        double mult = strncasecmp(end, "k", 1) == 0   ? 1024.0
                      : strncasecmp(end, "m", 1) == 0 ? 1024.0 * 1024
                      : strncasecmp(end, "g", 1) == 0 ? 1024.0 * 1024 * 1024
                                                      : 1;
        s->o.memory_limit = (int64_t)(n * mult);
        return BASALT_OK;
    }
    if (text != NULL && strcmp(name, "temp_directory") == 0) {
        char *d = basalt_strdup(text);
        if (d == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        basalt_free(s->spill_dir);
        s->spill_dir = d;
        s->o.spill_dir = d;
        return BASALT_OK;
    }
    return basalt_error_set(err, BASALT_UNSUPPORTED, "SET %s is not supported (at position %d)",
                            name, (int)stmt->pos);
}

static double now_ms(void)
{
    return (double)basalt_bench_now_ns() / 1e6;
}

static void record_stats(struct basalt_sql_session *s, const struct basalt_qplan *root,
                         double bind_ms, double run_ms)
{
    struct basalt_sql_stats *st = &s->last;
    basalt_qplan_scan_stats(root, &st->scans);
    st->bind_ms = bind_ms;
    st->plan_ms = bind_ms + st->scans.plan_ms;
    st->run_ms = run_ms;
}

void basalt_sql_session_last_stats(const struct basalt_sql_session *s, struct basalt_sql_stats *out)
{
    if (s == NULL)
        memset(out, 0, sizeof *out);
    else
        *out = s->last;
}

/* A script's result: the rows of its last statement that gives rows. They
 * are held when small (SHOW TABLES, EXPLAIN, DESCRIBE, the counts of
 * writes, the queries of statements before the last), else the last
 * statement's query gives them through its cursor as they are made, and the
 * result keeps what the cursor reads: the context, the binder (the tables
 * it loaded) and the parsed script. */
struct basalt_sql_result {
    struct basalt_sql_session *s;
    char *text;
    struct basalt_sql_script *script;
    bool has_rows;
    struct basalt_arrow_batches rows; /* held rows, handed out from `next` */
    int64_t next;
    struct basalt_qctx *ctx;          /* a query's: NULL when the rows are held */
    struct binder *B;
    struct sql_rows q;
    struct basalt_qplan *root;
    double bind_ms, run_ms;
    bool ended;
};

/* Frees a binder and the context its plans live in. */
static void query_free(struct binder *B, struct basalt_qctx *ctx)
{
    if (B != NULL) {
        binder_reset(B);
        basalt_free(B);
    }
    basalt_qctx_free(ctx);
}

/* Drops the rows the result has (a later statement's replace them). */
static void result_clear(struct basalt_sql_result *r)
{
    basalt_arrow_batches_reset(&r->rows);
    r->next = 0;
    basalt_qcursor_free(r->q.cursor);
    r->q.cursor = NULL;
    if (r->q.schema.release != NULL)
        basalt_arrow_schema_release(&r->q.schema);
    query_free(r->B, r->ctx);
    r->B = NULL;
    r->ctx = NULL;
    r->root = NULL;
    r->has_rows = false;
    r->ended = false;
}

/* The cursor's schema with the query's names for its columns. */
static basalt_status named_schema(const struct ArrowSchema *schema, const char *const *names,
                                  struct ArrowSchema *out, struct basalt_error *err)
{
    int64_t n = schema->n_children;
    basalt_status st = basalt_arrow_schema_init(out, "+s", NULL, 0, n, err);
    for (int64_t i = 0; i < n && st == BASALT_OK; i++)
        st = basalt_arrow_schema_copy_renamed(schema->children[i],
                                              names[i] ? names[i] : schema->children[i]->name,
                                              out->children[i], err);
    if (st != BASALT_OK && out->release != NULL)
        basalt_arrow_schema_release(out);
    return st;
}

/* Every row of the cursor into out (empty), schema first. */
static basalt_status collect_rows(struct sql_rows *q, struct basalt_arrow_batches *out,
                                  struct basalt_error *err)
{
    basalt_status st = basalt_arrow_schema_copy(&q->schema, &out->schema, err);
    while (st == BASALT_OK) {
        struct ArrowArray b;
        st = basalt_qcursor_next(q->cursor, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        st = basalt_arrow_batches_append(out, &b, err);
    }
    return st;
}

/* Runs one statement into r. The last statement's query (`last`) keeps its
 * cursor in r; other queries' rows are collected. */
static basalt_status run_statement(struct basalt_sql_session *s, const char *text,
                                   const struct basalt_sql_statement *stmt,
                                   struct basalt_sql_result *r, bool last,
                                   struct basalt_error *err)
{
    struct basalt_arrow_batches *out = &r->rows;
    switch (stmt->kind) {
    case BASALT_SQL_STMT_SHOW_TABLES:
        r->has_rows = true;
        return basalt_sql_show_tables(s, out, err);
    case BASALT_SQL_STMT_SET:
        return set_option(s, stmt, err);
    case BASALT_SQL_STMT_CREATE_TABLE:
        return basalt_sql_create_table(s, stmt, err);
    case BASALT_SQL_STMT_DROP_TABLE:
        return basalt_sql_drop_table(s, stmt, err);
    default:
        break;
    }
    /* DESCRIBE t and COPY t TO ...: SELECT * FROM t. */
    struct basalt_sql_expr star;
    struct basalt_sql_select_item item;
    struct basalt_sql_from from;
    struct basalt_sql_query all;
    struct basalt_sql_statement with_query;
    if (stmt->query == NULL && stmt->name.n_parts > 0 &&
        (stmt->kind == BASALT_SQL_STMT_DESCRIBE || stmt->kind == BASALT_SQL_STMT_COPY)) {
        memset(&star, 0, sizeof star);
        star.kind = BASALT_SQL_EXPR_STAR;
        star.pos = stmt->pos;
        star.height = 1;
        memset(&item, 0, sizeof item);
        item.expr = &star;
        memset(&from, 0, sizeof from);
        from.kind = BASALT_SQL_FROM_TABLE;
        from.pos = stmt->pos;
        from.height = 1;
        from.u.table.name = stmt->name;
        memset(&all, 0, sizeof all);
        all.kind = BASALT_SQL_QUERY_SELECT;
        all.pos = stmt->pos;
        all.height = 2;
        all.u.select.n_items = 1;
        all.u.select.items = &item;
        all.u.select.from = &from;
        with_query = *stmt;
        with_query.query = &all;
        stmt = &with_query;
    }
    if (stmt->query == NULL)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "this statement needs a query here (at position %d)",
                                (int)stmt->pos);
    struct basalt_qctx_options qo;
    basalt_qctx_options_init(&qo);
    qo.pool = s->o.pool;
    qo.num_workers = s->o.num_workers;
    qo.memory_limit = s->o.memory_limit;
    qo.spill_dir = s->o.spill_dir;
    qo.store = s->o.store != NULL ? s->o.store : s->own_store; /* NULL: the query makes one */
    struct basalt_qctx *ctx;
    basalt_status st = basalt_qctx_new(&qo, &ctx, err);
    if (st != BASALT_OK)
        return st;
    struct binder *B = basalt_malloc(sizeof *B);
    if (B == NULL) {
        basalt_qctx_free(ctx);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    binder_init(B, s, ctx, text);
    struct brel rel;
    const char **names = NULL;
    double t0 = now_ms();
    st = basalt_sql_bind_query(B, stmt->query, &rel, &names, err);
    double bind_ms = now_ms() - t0;
    char buf[16384];
    struct sql_rows q;
    memset(&q, 0, sizeof q);
    int64_t written = 0;
    if (st == BASALT_OK && stmt->kind == BASALT_SQL_STMT_DESCRIBE) {
        st = named_schema(basalt_qplan_schema(rel.node), names, &q.schema, err);
        if (st == BASALT_OK)
            st = basalt_sql_describe_rows(&q.schema, out, err);
        r->has_rows = st == BASALT_OK;
    } else if (st == BASALT_OK && stmt->kind == BASALT_SQL_STMT_EXPLAIN && !stmt->analyze) {
        st = basalt_qplan_optimize_plan(ctx, rel.node, err);
        basalt_qplan_explain(rel.node, false, buf, sizeof buf);
        if (st == BASALT_OK)
            st = basalt_sql_explain_rows(buf, out, err);
        r->has_rows = st == BASALT_OK;
    } else if (st == BASALT_OK && stmt->kind == BASALT_SQL_STMT_EXPLAIN) {
        /* The rows are made and dropped: only the counters are kept. */
        double t1 = now_ms();
        st = basalt_qplan_open(ctx, rel.node, &q.cursor, err);
        while (st == BASALT_OK) {
            struct ArrowArray b;
            st = basalt_qcursor_next(q.cursor, &b, err);
            if (st != BASALT_OK || b.release == NULL)
                break;
            basalt_arrow_array_release(&b);
        }
        record_stats(s, rel.node, bind_ms, now_ms() - t1);
        basalt_qplan_explain(rel.node, true, buf, sizeof buf);
        if (st == BASALT_OK)
            st = basalt_sql_explain_rows(buf, out, err);
        r->has_rows = st == BASALT_OK;
    } else if (st == BASALT_OK) {
        double t1 = now_ms();
        st = basalt_qplan_open(ctx, rel.node, &q.cursor, err);
        if (st == BASALT_OK)
            st = named_schema(basalt_qcursor_schema(q.cursor), names, &q.schema, err);
        switch (stmt->kind) {
        case BASALT_SQL_STMT_COPY:
            if (st == BASALT_OK)
                st = basalt_sql_copy_to(stmt, &q, &written, err);
            break;
        case BASALT_SQL_STMT_CREATE_TABLE_AS:
            if (st == BASALT_OK)
                st = basalt_sql_create_as(s, stmt, &q, &written, err);
            break;
        case BASALT_SQL_STMT_INSERT:
            if (st == BASALT_OK)
                st = basalt_sql_insert(s, stmt, &q, &written, err);
            break;
        default:
            if (st == BASALT_OK && last) {
                /* The rows go out as the cursor makes them. */
                r->ctx = ctx;
                r->B = B;
                r->q = q;
                r->root = rel.node;
                r->bind_ms = bind_ms;
                r->run_ms = now_ms() - t1;
                r->has_rows = true;
                return BASALT_OK;
            }
            if (st == BASALT_OK)
                st = collect_rows(&q, out, err);
            r->has_rows = st == BASALT_OK;
            break;
        }
        record_stats(s, rel.node, bind_ms, now_ms() - t1);
        bool writes = stmt->kind == BASALT_SQL_STMT_COPY ||
                      stmt->kind == BASALT_SQL_STMT_CREATE_TABLE_AS ||
                      stmt->kind == BASALT_SQL_STMT_INSERT;
        if (st == BASALT_OK && writes) {
            st = basalt_sql_count_rows("Count", written, out, err);
            r->has_rows = st == BASALT_OK;
        }
    }
    basalt_qcursor_free(q.cursor);
    if (q.schema.release != NULL)
        basalt_arrow_schema_release(&q.schema);
    query_free(B, ctx);
    return st;
}

basalt_status basalt_sql_session_open(struct basalt_sql_session *s, const char *text, size_t len,
                                      struct basalt_sql_result **out, struct basalt_error *err)
{
    if (out != NULL)
        *out = NULL;
    if (s == NULL || text == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    struct basalt_sql_result *r = basalt_calloc(1, sizeof *r);
    char *copy = basalt_malloc(len + 1);
    if (r == NULL || copy == NULL) {
        basalt_free(r);
        basalt_free(copy);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    r->s = s;
    r->text = copy;
    basalt_arrow_batches_init(&r->rows);
    basalt_status st = basalt_sql_parse(r->text, len, &r->script, err);
    size_t n = st == BASALT_OK ? basalt_sql_script_count(r->script) : 0;
    struct basalt_sql_result step;
    memset(&step, 0, sizeof step);
    basalt_arrow_batches_init(&step.rows);
    for (size_t i = 0; i < n && st == BASALT_OK; i++) {
        st = run_statement(s, r->text, basalt_sql_script_statement(r->script, i), &step,
                           i + 1 == n, err);
        if (st == BASALT_OK && step.has_rows) {
            /* This statement's rows replace the earlier ones. */
            result_clear(r);
            r->has_rows = true;
            r->rows = step.rows;
            r->ctx = step.ctx;
            r->B = step.B;
            r->q = step.q;
            r->root = step.root;
            r->bind_ms = step.bind_ms;
            r->run_ms = step.run_ms;
            memset(&step, 0, sizeof step);
            basalt_arrow_batches_init(&step.rows);
        }
        result_clear(&step);
    }
    if (st != BASALT_OK) {
        basalt_sql_result_free(r);
        return st;
    }
    *out = r;
    return BASALT_OK;
}

const struct ArrowSchema *basalt_sql_result_schema(const struct basalt_sql_result *r)
{
    if (r == NULL || !r->has_rows)
        return NULL;
    return r->q.cursor != NULL ? &r->q.schema : &r->rows.schema;
}

/* The run's statistics, once: when the rows end or the result goes. */
static void result_end(struct basalt_sql_result *r)
{
    if (r->root != NULL && !r->ended)
        record_stats(r->s, r->root, r->bind_ms, r->run_ms);
    r->ended = true;
}

basalt_status basalt_sql_result_next(struct basalt_sql_result *r, struct ArrowArray *out,
                                     struct basalt_error *err)
{
    if (r == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    out->release = NULL;
    if (r->q.cursor == NULL) {
        while (r->next < r->rows.n && out->release == NULL)
            basalt_arrow_array_move(&r->rows.arrays[r->next++], out);
        return BASALT_OK;
    }
    double t0 = now_ms();
    basalt_status st = basalt_qcursor_next(r->q.cursor, out, err);
    r->run_ms += now_ms() - t0;
    if (st != BASALT_OK || out->release == NULL)
        result_end(r);
    return st;
}

void basalt_sql_result_free(struct basalt_sql_result *r)
{
    if (r == NULL)
        return;
    result_end(r);
    result_clear(r);
    basalt_sql_script_free(r->script);
    basalt_free(r->text);
    basalt_free(r);
}

basalt_status basalt_sql_session_run(struct basalt_sql_session *s, const char *text, size_t len,
                                     struct basalt_arrow_batches *out, struct basalt_error *err)
{
    if (s == NULL || text == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    struct basalt_sql_result *r;
    basalt_status st = basalt_sql_session_open(s, text, len, &r, err);
    if (st != BASALT_OK || basalt_sql_result_schema(r) == NULL) {
        basalt_sql_result_free(r);
        return st;
    }
    struct basalt_arrow_batches rows;
    basalt_arrow_batches_init(&rows);
    st = basalt_arrow_schema_copy(basalt_sql_result_schema(r), &rows.schema, err);
    /* What memory grows by while collecting is, near enough, the rows. */
    int64_t limit = s->o.memory_limit, base = basalt_alloc_bytes();
    while (st == BASALT_OK) {
        struct ArrowArray b;
        st = basalt_sql_result_next(r, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        st = basalt_arrow_batches_append(&rows, &b, err);
        if (st == BASALT_OK && limit > 0 && basalt_alloc_bytes() > limit)
            st = BASALT_LIMIT;
    }
    /* Past the limit because the rows are being held (the operators may
     * notice first): say so, and how not to hold them. */
    int64_t held = basalt_alloc_bytes() - base;
    if (st == BASALT_LIMIT && held > limit / 2)
        st = basalt_error_set(err, BASALT_LIMIT,
                              "the result (%.1f MiB so far) does not fit in the memory limit of "
                              "%.1f MiB while it is collected; write it with COPY (query) TO "
                              "'file', or read it a batch at a time (basalt_sql_session_open)",
                              (double)held / 1048576.0, (double)limit / 1048576.0);
    basalt_sql_result_free(r);
    if (st == BASALT_OK) {
        basalt_arrow_batches_reset(out);
        *out = rows;
    } else {
        basalt_arrow_batches_reset(&rows);
    }
    return st;
}
