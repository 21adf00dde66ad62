/* Sessions: parse, bind, run, statement by statement. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bind/bind_internal.h"

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
    if (o != NULL && o->catalog_uri != NULL) {
        s->catalog_uri = basalt_strdup(o->catalog_uri);
        if (s->catalog_uri == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        s->o.catalog_uri = s->catalog_uri;
        if (st == BASALT_OK)
            st = basalt_catalog_open(o->catalog_uri, NULL, false, &s->catalog, err);
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
    basalt_free(s->catalog_uri);
    basalt_free(s);
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
    basalt_free(B->ctes);
    basalt_free(B->repl);
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

static basalt_status explain_result(const char *text, struct basalt_arrow_batches *out,
                                    struct basalt_error *err)
{
    struct basalt_arrow_builder *root, *col;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_arrow_builder_add_child(root, "u", "explain", 0, &col, err);
    /* One row per line, as DuckDB prints a plan. */
    for (const char *p = text; st == BASALT_OK && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[1024];
        if (n >= sizeof line)
            n = sizeof line - 1;
        memcpy(line, p, n);
        line[n] = '\0';
        st = basalt_arrow_builder_append_string(col, line, err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, err);
        p += nl ? (size_t)(nl - p) + 1 : strlen(p);
    }
    struct ArrowArray a;
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(root, &out->schema, &a, err);
    if (st == BASALT_OK)
        st = basalt_arrow_batches_append(out, &a, err);
    basalt_arrow_builder_free(root);
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

static basalt_status run_statement(struct basalt_sql_session *s, const char *text,
                                   const struct basalt_sql_statement *stmt,
                                   struct basalt_arrow_batches *out, bool *has_rows,
                                   struct basalt_error *err)
{
    *has_rows = false;
    if (stmt->kind != BASALT_SQL_STMT_QUERY && stmt->kind != BASALT_SQL_STMT_EXPLAIN)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "this statement is not supported yet (at position %d)",
                                (int)stmt->pos);
    struct basalt_qctx_options qo;
    basalt_qctx_options_init(&qo);
    qo.pool = s->o.pool;
    qo.num_workers = s->o.num_workers;
    qo.memory_limit = s->o.memory_limit;
    struct basalt_qctx *ctx;
    basalt_status st = basalt_qctx_new(&qo, &ctx, err);
    if (st != BASALT_OK)
        return st;
    struct binder B;
    binder_init(&B, s, ctx, text);
    struct brel rel;
    const char **names = NULL;
    st = basalt_sql_bind_query(&B, stmt->query, &rel, &names, err);
    if (st == BASALT_OK && stmt->kind == BASALT_SQL_STMT_EXPLAIN && !stmt->analyze) {
        char buf[16384];
        st = basalt_qplan_optimize_plan(ctx, rel.node, err);
        basalt_qplan_explain(rel.node, false, buf, sizeof buf);
        if (st == BASALT_OK)
            st = explain_result(buf, out, err);
    } else if (st == BASALT_OK) {
        st = basalt_qplan_execute(ctx, rel.node, out, err);
        if (st == BASALT_OK && stmt->kind == BASALT_SQL_STMT_EXPLAIN) {
            char buf[16384];
            basalt_qplan_explain(rel.node, true, buf, sizeof buf);
            basalt_arrow_batches_reset(out);
            st = explain_result(buf, out, err);
        } else if (st == BASALT_OK) {
            st = name_columns(out, names, err);
        }
    }
    *has_rows = st == BASALT_OK;
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
