/* Scopes, relations and the binder's small helpers. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bind/bind_internal.h"

basalt_status basalt_sql_err(struct binder *B, basalt_status st, int32_t pos,
                             struct basalt_error *err, const char *fmt, ...)
{
    (void)B;
    char msg[BASALT_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (pos >= 0)
        return basalt_error_set(err, st, "%s (at position %d)", msg, (int)pos);
    return basalt_error_set(err, st, "%s", msg);
}

int32_t basalt_sql_gid(struct binder *B)
{
    return B->next_gid++;
}

basalt_status basalt_sql_scope_add(struct bscope *s, const char *table, const char *name,
                                   int32_t gid, int32_t rel, struct basalt_error *err)
{
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        struct bcol *c = basalt_realloc(s->cols, (size_t)cap * sizeof *c);
        if (c == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        s->cols = c;
        s->cap = cap;
    }
    s->cols[s->n++] = (struct bcol){table, name, gid, rel, false, false};
    return BASALT_OK;
}

void basalt_sql_scope_reset(struct bscope *s)
{
    basalt_free(s->cols);
    memset(s, 0, sizeof *s);
}

/* Identifiers compare as stored: unquoted ones were lower-cased by the
 * parser; column names from files keep their case and match
 * case-insensitively, as DuckDB matches them. */
static bool same_name(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcasecmp(a, b) == 0;
}

/* The column of scope s named `col` (in `table` when not NULL); NULL when
 * none. */
static basalt_status find_column(struct binder *B, const struct bscope *s, const char *table,
                                 const char *col, int32_t pos, const struct bcol **found,
                                 struct basalt_error *err)
{
    *found = NULL;
    for (int i = 0; i < s->n; i++) {
        const struct bcol *c = &s->cols[i];
        if (!same_name(c->name, col) || (table != NULL && !same_name(c->table, table)) ||
            (table == NULL && c->hidden))
            continue;
        if (*found != NULL && (*found)->gid != c->gid)
            return basalt_sql_err(B, BASALT_INVALID_ARG, pos, err,
                                  "column reference \"%s\" is ambiguous", col);
        *found = c;
    }
    return BASALT_OK;
}

/* Parts first..n_parts-1 of `name` joined by dots: a struct's leaf as the
 * scan names it ("s.b.c"). NULL if it does not fit. */
static const char *dotted(const struct basalt_sql_name *name, int first, char *buf, size_t cap)
{
    size_t n = 0;
    for (int i = first; i < name->n_parts; i++) {
        int w = snprintf(buf + n, cap - n, "%s%s", i > first ? "." : "", name->parts[i].name);
        if (w < 0 || (size_t)w >= cap - n)
            return NULL;
        n += (size_t)w;
    }
    return buf;
}

basalt_status basalt_sql_resolve(struct binder *B, const struct bscope *s,
                                 const struct basalt_sql_name *name, int32_t pos,
                                 const struct bcol **out, struct basalt_error *err)
{
    *out = NULL;
    const char *col = name->parts[name->n_parts - 1].name;
    const char *table = name->n_parts >= 2 ? name->parts[name->n_parts - 2].name : NULL;
    const struct bcol *found = NULL;
    basalt_status st = find_column(B, s, table, col, pos, &found, err);
    /* s.a and t.s.a: the leaf "s.a" of a struct column s (struct_flatten.c
     * in the query layer), when no table s has a column a. */
    char buf[512];
    const char *leaf;
    if (st == BASALT_OK && found == NULL && name->n_parts >= 2 &&
        (leaf = dotted(name, 0, buf, sizeof buf)) != NULL)
        st = find_column(B, s, NULL, leaf, pos, &found, err);
    if (st == BASALT_OK && found == NULL && name->n_parts >= 3 &&
        (leaf = dotted(name, 1, buf, sizeof buf)) != NULL)
        st = find_column(B, s, name->parts[0].name, leaf, pos, &found, err);
    if (st != BASALT_OK)
        return st;
    if (found == NULL && s->outer != NULL)
        return basalt_sql_resolve(B, s->outer, name, pos, out, err);
    if (found == NULL) {
        if (table != NULL)
            return basalt_sql_err(B, BASALT_NOT_FOUND, pos, err, "column \"%s.%s\" not found",
                                  table, col);
        return basalt_sql_err(B, BASALT_NOT_FOUND, pos, err, "column \"%s\" not found", col);
    }
    *out = found;
    return BASALT_OK;
}

basalt_status basalt_sql_rel_new(struct binder *B, struct basalt_qplan *node, struct brel *out,
                                 struct basalt_error *err)
{
    const struct ArrowSchema *s = basalt_qplan_schema(node);
    out->node = node;
    out->n = (int)s->n_children;
    out->rows = 1e6;
    out->table_rows = false;
    out->leaf = NULL;
    out->left_on = NULL;
    out->n_left_on = 0;
    out->empty = NULL;
    out->n_empty = 0;
    out->key_gid = 0;
    out->gids = basalt_arena_alloc(&B->arena, sizeof *out->gids * (size_t)(out->n + 1), 8);
    if (out->gids == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int i = 0; i < out->n; i++)
        out->gids[i] = basalt_sql_gid(B);
    return BASALT_OK;
}

const char *basalt_sql_text(struct binder *B, const struct basalt_sql_expr *e)
{
    char small[256];
    size_t n = basalt_sql_expr_format(e, small, sizeof small);
    char *p = basalt_arena_alloc(&B->arena, n + 1, 1);
    if (p == NULL)
        return NULL;
    if (n < sizeof small)
        memcpy(p, small, n + 1);
    else
        basalt_sql_expr_format(e, p, n + 1);
    return p;
}

bool basalt_sql_is_aggregate(const char *name)
{
    static const char *const names[] = {
        "count", "count_star", "sum", "avg", "mean", "min", "max", "any_value", "first",
        "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop", "median",
        "quantile", "quantile_cont", "quantile_disc", "string_agg", "group_concat", "listagg",
        "bool_and", "bool_or", "every", "corr", "covar_pop", "covar_samp", "regr_slope",
        "regr_intercept", "regr_r2", "regr_count", "regr_avgx", "regr_avgy", "regr_sxx",
        "regr_syy", "regr_sxy", "arg_min", "arg_max", "argmin", "argmax", "min_by", "max_by",
        "arg_min_null", "arg_max_null", "last", "count_if", "countif", "product", "bit_and",
        "bit_or", "bit_xor", "mode", "array_agg", "list"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

void basalt_sql_note_ndv(struct binder *B, const struct brel *rel)
{
    for (int i = 0; i < rel->n; i++) {
        int32_t gid = rel->gids[i];
        if (gid >= B->cap_ndv) {
            int32_t cap = B->cap_ndv ? B->cap_ndv : 64;
            while (cap <= gid)
                cap *= 2;
            int64_t *p = basalt_realloc(B->ndv, sizeof *p * (size_t)cap);
            if (p == NULL)
                return; /* the estimate is only a hint */
            for (int32_t k = B->cap_ndv; k < cap; k++)
                p[k] = -1;
            B->ndv = p;
            B->cap_ndv = cap;
        }
        B->ndv[gid] = basalt_qplan_column_ndv(rel->node, i);
    }
}

int64_t basalt_sql_ndv(const struct binder *B, int32_t gid)
{
    return gid >= 0 && gid < B->cap_ndv ? B->ndv[gid] : -1;
}
