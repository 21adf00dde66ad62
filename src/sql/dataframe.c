/* DataFrames: each frame is the text of a query over its input's text, so a
 * chain of steps is one SQL query the session binds, optimises and runs as
 * any other (include/basalt/sql.h). Quotes in paths and names are escaped;
 * expressions are the caller's SQL. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bind/bind_internal.h"

struct basalt_df {
    struct basalt_sql_session *s;
    char *sql;
};

static basalt_status make(struct basalt_sql_session *s, struct basalt_buffer *text,
                          struct basalt_df **out, struct basalt_error *err)
{
    *out = NULL;
    char nul = '\0';
    basalt_status st = basalt_buffer_append(text, &nul, 1, err);
    struct basalt_df *df = st == BASALT_OK ? basalt_calloc(1, sizeof *df) : NULL;
    if (st == BASALT_OK && df == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st != BASALT_OK) {
        basalt_buffer_reset(text);
        return st;
    }
    df->s = s;
    df->sql = (char *)basalt_buffer_take(text);
    *out = df;
    return BASALT_OK;
}

static basalt_status put(struct basalt_buffer *b, struct basalt_error *err, const char *fmt, ...)
    BASALT_PRINTF(3, 4);
static basalt_status put(struct basalt_buffer *b, struct basalt_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return basalt_error_set(err, BASALT_INTERNAL, "format");
    basalt_status st = basalt_buffer_reserve(b, (size_t)n + 1, err);
    if (st != BASALT_OK)
        return st;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->size, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->size += (size_t)n;
    return BASALT_OK;
}

/* A SQL string literal of s ('' for each quote). */
static basalt_status put_string(struct basalt_buffer *b, const char *s, struct basalt_error *err)
{
    basalt_status st = put(b, err, "'");
    for (const char *p = s; *p && st == BASALT_OK; p++)
        st = *p == '\'' ? put(b, err, "''") : put(b, err, "%c", *p);
    return st == BASALT_OK ? put(b, err, "'") : st;
}

static basalt_status from_call(struct basalt_sql_session *s, const char *fn, const char *path,
                               struct basalt_df **out, struct basalt_error *err)
{
    if (s == NULL || path == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "dataframe: NULL argument");
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    basalt_status st = put(&b, err, "SELECT * FROM %s(", fn);
    if (st == BASALT_OK)
        st = put_string(&b, path, err);
    if (st == BASALT_OK)
        st = put(&b, err, ")");
    return st == BASALT_OK ? make(s, &b, out, err) : (basalt_buffer_reset(&b), st);
}

basalt_status basalt_df_read_parquet(struct basalt_sql_session *s, const char *path,
                                     struct basalt_df **out, struct basalt_error *err)
{
    return from_call(s, "read_parquet", path, out, err);
}

basalt_status basalt_df_read_csv(struct basalt_sql_session *s, const char *path,
                                 struct basalt_df **out, struct basalt_error *err)
{
    return from_call(s, "read_csv", path, out, err);
}

basalt_status basalt_df_read_iceberg(struct basalt_sql_session *s, const char *path,
                                     struct basalt_df **out, struct basalt_error *err)
{
    return from_call(s, "iceberg_scan", path, out, err);
}

basalt_status basalt_df_sql(struct basalt_sql_session *s, const char *query, struct basalt_df **out,
                            struct basalt_error *err)
{
    if (s == NULL || query == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "dataframe: NULL argument");
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    basalt_status st = put(&b, err, "%s", query);
    return st == BASALT_OK ? make(s, &b, out, err) : (basalt_buffer_reset(&b), st);
}

basalt_status basalt_df_from_stream(struct basalt_sql_session *s, struct ArrowArrayStream *stream,
                                    struct basalt_df **out, struct basalt_error *err)
{
    if (s == NULL || stream == NULL || out == NULL) {
        basalt_arrow_stream_release(stream);
        return basalt_error_set(err, BASALT_INVALID_ARG, "dataframe: NULL argument");
    }
    /* A foreign stream: validated as it is read. */
    struct ArrowArrayStream checked;
    struct basalt_arrow_batches batches;
    basalt_arrow_batches_init(&batches);
    basalt_status st = basalt_arrow_stream_import(stream, BASALT_ARROW_VALIDATE_FULL, &checked,
                                                  err);
    if (st == BASALT_OK)
        st = basalt_arrow_stream_collect(&checked, &batches, err);
    char name[48];
    snprintf(name, sizeof name, "__frame_%lld", (long long)s->next_frame++);
    if (st == BASALT_OK)
        st = basalt_sql_session_register(s, name, &batches, err);
    basalt_arrow_batches_reset(&batches);
    if (st != BASALT_OK)
        return st;
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    st = put(&b, err, "SELECT * FROM %s", name);
    return st == BASALT_OK ? make(s, &b, out, err) : (basalt_buffer_reset(&b), st);
}

/* "SELECT <head> FROM (<df>) AS _f <tail>" */
static basalt_status wrap(const struct basalt_df *df, const char *head, const char *tail,
                          struct basalt_df **out, struct basalt_error *err)
{
    if (df == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "dataframe: NULL argument");
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    basalt_status st = put(&b, err, "SELECT %s FROM (%s) AS _f%s%s", head, df->sql,
                           tail[0] ? " " : "", tail);
    return st == BASALT_OK ? make(df->s, &b, out, err) : (basalt_buffer_reset(&b), st);
}

/* exprs joined by ", " into a new buffer's text (NUL-terminated). */
static basalt_status list(const char *const *items, size_t n, struct basalt_buffer *b,
                          struct basalt_error *err)
{
    basalt_buffer_init(b);
    basalt_status st = BASALT_OK;
    for (size_t i = 0; i < n && st == BASALT_OK; i++) {
        if (items[i] == NULL)
            return basalt_error_set(err, BASALT_INVALID_ARG, "dataframe: NULL expression");
        st = put(b, err, "%s%s", i ? ", " : "", items[i]);
    }
    char nul = '\0';
    if (st == BASALT_OK)
        st = basalt_buffer_append(b, &nul, 1, err);
    return st;
}

basalt_status basalt_df_filter(const struct basalt_df *df, const char *predicate,
                               struct basalt_df **out, struct basalt_error *err)
{
    if (predicate == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "dataframe: NULL predicate");
    struct basalt_buffer t;
    basalt_buffer_init(&t);
    basalt_status st = put(&t, err, "WHERE %s", predicate);
    if (st == BASALT_OK)
        st = wrap(df, "*", (const char *)t.data, out, err);
    basalt_buffer_reset(&t);
    return st;
}

basalt_status basalt_df_select(const struct basalt_df *df, const char *const *exprs, size_t n,
                               struct basalt_df **out, struct basalt_error *err)
{
    if (n == 0 || exprs == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "dataframe: select nothing");
    struct basalt_buffer h;
    basalt_status st = list(exprs, n, &h, err);
    if (st == BASALT_OK)
        st = wrap(df, (const char *)h.data, "", out, err);
    basalt_buffer_reset(&h);
    return st;
}

/* Whether the frame has a column `name` (case-insensitive, as SQL names
 * are): DESCRIBE's first column lists them. */
static bool has_column(const struct basalt_arrow_batches *cols, const char *name)
{
    size_t n = strlen(name);
    for (int64_t b = 0; b < cols->n; b++) {
        const struct ArrowArray *a = cols->arrays[b].children[0];
        const char *fmt = cols->schema.children[0]->format;
        for (int64_t r = 0; r < a->length; r++) {
            int64_t k = a->offset + r, lo, hi;
            if (strcmp(fmt, "U") == 0) {
                lo = ((const int64_t *)a->buffers[1])[k];
                hi = ((const int64_t *)a->buffers[1])[k + 1];
            } else {
                lo = ((const int32_t *)a->buffers[1])[k];
                hi = ((const int32_t *)a->buffers[1])[k + 1];
            }
            if ((size_t)(hi - lo) == n && strncasecmp((const char *)a->buffers[2] + lo, name, n) == 0)
                return true;
        }
    }
    return false;
}

/* Columns the frame has are replaced where they stand (* REPLACE); new
 * ones come after the others, in the order given. */
basalt_status basalt_df_with_columns(const struct basalt_df *df, const char *const *exprs,
                                     const char *const *names, size_t n, struct basalt_df **out,
                                     struct basalt_error *err)
{
    if (n == 0 || exprs == NULL || names == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "dataframe: no columns");
    struct basalt_buffer d, h;
    struct basalt_arrow_batches cols;
    basalt_buffer_init(&d);
    basalt_buffer_init(&h);
    basalt_arrow_batches_init(&cols);
    basalt_status st = put(&d, err, "DESCRIBE %s", df->sql);
    if (st == BASALT_OK)
        st = basalt_sql_session_run(df->s, (const char *)d.data, d.size, &cols, err);
    bool *old = st == BASALT_OK ? basalt_calloc(n, sizeof *old) : NULL;
    if (st == BASALT_OK && old == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    size_t n_old = 0;
    for (size_t i = 0; i < n && st == BASALT_OK; i++)
        n_old += old[i] = has_column(&cols, names[i]);
    if (st == BASALT_OK)
        st = put(&h, err, n_old ? "* REPLACE (" : "*");
    for (size_t i = 0, k = 0; i < n && st == BASALT_OK; i++) {
        if (!old[i])
            continue;
        k++;
        st = put(&h, err, "%s%s AS \"%s\"%s", k > 1 ? ", " : "", exprs[i], names[i],
                 k == n_old ? ")" : "");
    }
    for (size_t i = 0; i < n && st == BASALT_OK; i++)
        if (!old[i])
            st = put(&h, err, ", %s AS \"%s\"", exprs[i], names[i]);
    if (st == BASALT_OK)
        st = wrap(df, (const char *)h.data, "", out, err);
    basalt_free(old);
    basalt_arrow_batches_reset(&cols);
    basalt_buffer_reset(&d);
    basalt_buffer_reset(&h);
    return st;
}

basalt_status basalt_df_group_by(const struct basalt_df *df, const char *const *keys,
                                 size_t n_keys, const char *const *aggs, size_t n_aggs,
                                 struct basalt_df **out, struct basalt_error *err)
{
    if (n_keys + n_aggs == 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "dataframe: group by nothing");
    struct basalt_buffer k, a, h, t;
    basalt_status st = list(keys, n_keys, &k, err);
    if (st == BASALT_OK)
        st = list(aggs, n_aggs, &a, err);
    basalt_buffer_init(&h);
    basalt_buffer_init(&t);
    if (st == BASALT_OK)
        st = put(&h, err, "%s%s%s", n_keys ? (const char *)k.data : "",
                 n_keys && n_aggs ? ", " : "", n_aggs ? (const char *)a.data : "");
    if (st == BASALT_OK && n_keys > 0)
        st = put(&t, err, "GROUP BY %s", (const char *)k.data);
    if (st == BASALT_OK)
        st = wrap(df, (const char *)h.data, t.data ? (const char *)t.data : "", out, err);
    basalt_buffer_reset(&k);
    basalt_buffer_reset(&a);
    basalt_buffer_reset(&h);
    basalt_buffer_reset(&t);
    return st;
}

basalt_status basalt_df_join(const struct basalt_df *left, const struct basalt_df *right,
                             const char *on, enum basalt_df_join_type how, struct basalt_df **out,
                             struct basalt_error *err)
{
    static const char *const kinds[] = {"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN",
                                        "SEMI JOIN", "ANTI JOIN"};
    if (left == NULL || right == NULL || on == NULL || out == NULL || (unsigned)how > 5)
        return basalt_error_set(err, BASALT_INVALID_ARG, "dataframe: bad join arguments");
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    basalt_status st = put(&b, err, "SELECT * FROM (%s) AS _l %s (%s) AS _r USING (%s)", left->sql,
                           kinds[how], right->sql, on);
    return st == BASALT_OK ? make(left->s, &b, out, err) : (basalt_buffer_reset(&b), st);
}

basalt_status basalt_df_sort(const struct basalt_df *df, const char *order_by,
                             struct basalt_df **out, struct basalt_error *err)
{
    if (order_by == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "dataframe: NULL order");
    struct basalt_buffer t;
    basalt_buffer_init(&t);
    basalt_status st = put(&t, err, "ORDER BY %s", order_by);
    if (st == BASALT_OK)
        st = wrap(df, "*", (const char *)t.data, out, err);
    basalt_buffer_reset(&t);
    return st;
}

basalt_status basalt_df_unique(const struct basalt_df *df, struct basalt_df **out,
                               struct basalt_error *err)
{
    return wrap(df, "DISTINCT *", "", out, err);
}

basalt_status basalt_df_head(const struct basalt_df *df, int64_t n, struct basalt_df **out,
                             struct basalt_error *err)
{
    if (n < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "dataframe: head of %lld rows", (long long)n);
    char tail[48];
    snprintf(tail, sizeof tail, "LIMIT %lld", (long long)n);
    return wrap(df, "*", tail, out, err);
}

basalt_status basalt_df_concat(const struct basalt_df *const *dfs, size_t n, struct basalt_df **out,
                               struct basalt_error *err)
{
    if (dfs == NULL || n == 0 || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "dataframe: concat of nothing");
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    basalt_status st = BASALT_OK;
    for (size_t i = 0; i < n && st == BASALT_OK; i++)
        st = dfs[i] == NULL ? basalt_error_set(err, BASALT_INVALID_ARG, "dataframe: NULL frame")
                            : put(&b, err, "%s(SELECT * FROM (%s) AS _f)", i ? " UNION ALL " : "",
                                  dfs[i]->sql);
    return st == BASALT_OK ? make(dfs[0]->s, &b, out, err) : (basalt_buffer_reset(&b), st);
}

basalt_status basalt_df_collect(const struct basalt_df *df, struct ArrowArrayStream *out,
                                struct basalt_error *err)
{
    if (df == NULL || out == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "dataframe: NULL argument");
    out->release = NULL;
    struct basalt_sql_result *r;
    basalt_status st = basalt_sql_session_open(df->s, df->sql, strlen(df->sql), &r, err);
    if (st == BASALT_OK)
        st = basalt_sql_result_stream(r, out, err);
    return st;
}

basalt_status basalt_df_write(const struct basalt_df *df, const char *path,
                              struct basalt_error *err)
{
    if (df == NULL || path == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "dataframe: NULL argument");
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    basalt_status st = put(&b, err, "COPY (%s) TO ", df->sql);
    if (st == BASALT_OK)
        st = put_string(&b, path, err);
    char nul = '\0';
    if (st == BASALT_OK)
        st = basalt_buffer_append(&b, &nul, 1, err);
    struct basalt_arrow_batches rows;
    basalt_arrow_batches_init(&rows);
    if (st == BASALT_OK)
        st = basalt_sql_session_run(df->s, (const char *)b.data, b.size - 1, &rows, err);
    basalt_arrow_batches_reset(&rows);
    basalt_buffer_reset(&b);
    return st;
}

const char *basalt_df_sql_text(const struct basalt_df *df)
{
    return df ? df->sql : NULL;
}

void basalt_df_free(struct basalt_df *df)
{
    if (df == NULL)
        return;
    basalt_free(df->sql);
    basalt_free(df);
}
