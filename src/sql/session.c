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

/* Names the result's columns as the query did. */
static basalt_status name_columns(struct basalt_arrow_batches *out, const char *const *names,
                            struct basalt_error *err)
{
    struct ArrowSchema renamed;
    int n = (int)out->schema.n_children;
    basalt_status st = basalt_arrow_schema_init(&renamed, "+s", NULL, 0, n, err);
    for (int i = 0; i < n && st == BASALT_OK; i++)
        st = basalt_arrow_schema_copy_renamed(out->schema.children[i],
                                              names[i] ? names[i] : out->schema.children[i]->name,
                                              renamed.children[i], err);
    if (st == BASALT_OK) {
        basalt_arrow_schema_release(&out->schema);
        basalt_arrow_schema_move(&renamed, &out->schema);
    }
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

static basalt_status run_statement(struct basalt_sql_session *s, const char *text,
                                   const struct basalt_sql_statement *stmt,
                                   struct basalt_arrow_batches *out, bool *has_rows,
                                   struct basalt_error *err)
{
    *has_rows = false;
    switch (stmt->kind) {
    case BASALT_SQL_STMT_SHOW_TABLES:
        *has_rows = true;
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
    struct basalt_qctx *ctx;
    basalt_status st = basalt_qctx_new(&qo, &ctx, err);
    if (st != BASALT_OK)
        return st;
    struct binder B;
    binder_init(&B, s, ctx, text);
    struct brel rel;
    const char **names = NULL;
    double t0 = now_ms();
    st = basalt_sql_bind_query(&B, stmt->query, &rel, &names, err);
    double bind_ms = now_ms() - t0;
    char buf[16384];
    struct basalt_arrow_batches rows;
    basalt_arrow_batches_init(&rows);
    int64_t written = 0;
    if (st == BASALT_OK && stmt->kind == BASALT_SQL_STMT_DESCRIBE) {
        struct ArrowSchema named;
        st = basalt_arrow_schema_copy(basalt_qplan_schema(rel.node), &named, err);
        for (int64_t i = 0; st == BASALT_OK && i < named.n_children; i++) {
            struct ArrowSchema c;
            st = basalt_arrow_schema_copy_renamed(named.children[i], names[i], &c, err);
            if (st == BASALT_OK) {
                basalt_arrow_schema_release(named.children[i]);
                basalt_arrow_schema_move(&c, named.children[i]);
            }
        }
        if (st == BASALT_OK)
            st = basalt_sql_describe_rows(&named, out, err);
        basalt_arrow_schema_release(&named);
        *has_rows = st == BASALT_OK;
    } else if (st == BASALT_OK && stmt->kind == BASALT_SQL_STMT_EXPLAIN && !stmt->analyze) {
        st = basalt_qplan_optimize_plan(ctx, rel.node, err);
        basalt_qplan_explain(rel.node, false, buf, sizeof buf);
        if (st == BASALT_OK)
            st = basalt_sql_explain_rows(buf, out, err);
        *has_rows = st == BASALT_OK;
    } else if (st == BASALT_OK) {
        double t1 = now_ms();
        st = basalt_qplan_execute(ctx, rel.node, &rows, err);
        record_stats(s, rel.node, bind_ms, now_ms() - t1);
        if (st == BASALT_OK)
            st = name_columns(&rows, names, err);
        switch (stmt->kind) {
        case BASALT_SQL_STMT_EXPLAIN:
            basalt_qplan_explain(rel.node, true, buf, sizeof buf);
            if (st == BASALT_OK)
                st = basalt_sql_explain_rows(buf, out, err);
            break;
        case BASALT_SQL_STMT_COPY:
            if (st == BASALT_OK)
                st = basalt_sql_copy_to(stmt, &rows, &written, err);
            if (st == BASALT_OK)
                st = basalt_sql_count_rows("Count", written, out, err);
            break;
        case BASALT_SQL_STMT_CREATE_TABLE_AS:
            if (st == BASALT_OK)
                st = basalt_sql_create_as(s, stmt, &rows, &written, err);
            if (st == BASALT_OK)
                st = basalt_sql_count_rows("Count", written, out, err);
            break;
        case BASALT_SQL_STMT_INSERT:
            if (st == BASALT_OK)
                st = basalt_sql_insert(s, stmt, &rows, &written, err);
            if (st == BASALT_OK)
                st = basalt_sql_count_rows("Count", written, out, err);
            break;
        default:
            if (st == BASALT_OK) {
                *out = rows;
                basalt_arrow_batches_init(&rows);
            }
            break;
        }
        *has_rows = st == BASALT_OK;
    }
    basalt_arrow_batches_reset(&rows);
    binder_reset(&B);
    basalt_qctx_free(ctx);
    return st;
}

basalt_status basalt_sql_session_run(struct basalt_sql_session *s, const char *text, size_t len,
                                     struct basalt_arrow_batches *out, struct basalt_error *err)
{
    if (s == NULL || text == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    struct basalt_sql_script *script;
    basalt_status st = basalt_sql_parse(text, len, &script, err);
    if (st != BASALT_OK)
        return st;
    for (size_t i = 0; i < basalt_sql_script_count(script) && st == BASALT_OK; i++) {
        struct basalt_arrow_batches rows;
        basalt_arrow_batches_init(&rows);
        bool has_rows;
        st = run_statement(s, text, basalt_sql_script_statement(script, i), &rows, &has_rows, err);
        if (st == BASALT_OK && has_rows) {
            basalt_arrow_batches_reset(out);
            *out = rows;
        } else {
            basalt_arrow_batches_reset(&rows);
        }
    }
    basalt_sql_script_free(script);
    return st;
}
