/* GROUPING SETS, ROLLUP, CUBE and GROUPING(): one aggregation for every
 * grouping set, the input read once.
 *
 * The GROUP BY's elements expand into grouping sets (sql_ast.h says how),
 * each a bit mask over the distinct keys. The input rows, projected to the
 * keys and the aggregates' arguments, are crossed with a row per set (its
 * number, whether each key is in it, the value of each GROUPING() call in
 * it), a key not in the set replaced by a NULL of its type, and one
 * aggregation groups them by the keys and the set's number:
 *
 *   SELECT a, b, sum(c), GROUPING(a, b) FROM t GROUP BY ROLLUP (a, b)
 *
 * aggregates
 *
 *   SELECT CASE WHEN in_a THEN a END, CASE WHEN in_b THEN b END, set, g, c
 *   FROM (SELECT a, b, c FROM t) CROSS JOIN (VALUES (0, true, true, 0),
 *        (1, true, false, 1), (2, false, false, 3)) s(set, in_a, in_b, g)
 *
 * grouped by its first four columns. A NULL of the data and a NULL of an
 * absent key stay apart (the set's number is a key), equal sets written
 * twice give their rows twice (as DuckDB), every aggregate works as it does
 * under GROUP BY (DISTINCT, FILTER, median, string_agg...), and the one
 * aggregation spills as any other. When every aggregate rolls up (count,
 * sum, avg, min, max...), the input is first aggregated by all the keys and
 * the groups, not the rows, are crossed with the sets (rolled_up).
 *
 * A set without keys gives its row even on an empty input, as an ungrouped
 * aggregate does: a row of NULLs goes with the input, which every aggregate
 * skips (count(*) counts a column that is 1 in the input's rows instead),
 * and the groups it makes in the sets with keys are dropped afterwards.
 *
 * GROUPING(a, b) (also grouping_id) is a column of the result as an
 * aggregate is: its value in each set is a bit per argument, the first the
 * most significant, 1 when that key is not in the set. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bind/bind_internal.h"

enum {
    MAX_SETS = 4096, /* a CUBE of 12 keys */
    MAX_KEYS = 64,   /* a set is a 64-bit mask */
    MAX_GROUPING_ARGS = 63,
};

/* ------------------------------------------------------------ the sets */

struct masks {
    uint64_t *m;
    int n, cap;
};

static basalt_status push(struct masks *M, uint64_t m, int32_t pos, struct binder *B,
                          struct basalt_error *err)
{
    if (M->n == MAX_SETS)
        return basalt_sql_err(B, BASALT_LIMIT, pos, err, "more than %d grouping sets", MAX_SETS);
    if (M->n == M->cap) {
        int cap = M->cap ? M->cap * 2 : 8;
        uint64_t *p = basalt_realloc(M->m, (size_t)cap * sizeof *p);
        if (p == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        M->m = p;
        M->cap = cap;
    }
    M->m[M->n++] = m;
    return BASALT_OK;
}

/* The keys of a KEY or a LIST as a mask (map: group index -> key bit). */
static uint64_t item_mask(const struct basalt_sql_grouping *g, const int *map)
{
    if (g->kind == BASALT_SQL_GROUPING_KEY)
        return (uint64_t)1 << map[g->key];
    uint64_t m = 0;
    for (int32_t i = 0; i < g->n_items; i++)
        m |= item_mask(&g->items[i], map);
    return m;
}

/* The sets of one element, appended to out. */
static basalt_status expand(struct binder *B, const struct basalt_sql_grouping *g, const int *map,
                            struct masks *out, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    switch (g->kind) {
    case BASALT_SQL_GROUPING_KEY:
    case BASALT_SQL_GROUPING_LIST: return push(out, item_mask(g, map), g->pos, B, err);
    case BASALT_SQL_GROUPING_ROLLUP: {
        /* every prefix of the items, the longest first */
        for (int32_t n = g->n_items; n >= 0 && st == BASALT_OK; n--) {
            uint64_t m = 0;
            for (int32_t i = 0; i < n; i++)
                m |= item_mask(&g->items[i], map);
            st = push(out, m, g->pos, B, err);
        }
        return st;
    }
    case BASALT_SQL_GROUPING_CUBE: {
        if (g->n_items > 12)
            return basalt_sql_err(B, BASALT_LIMIT, g->pos, err,
                                  "CUBE of %d elements: at most 12 (%d grouping sets)",
                                  (int)g->n_items, MAX_SETS);
        uint32_t all = ((uint32_t)1 << g->n_items) - 1;
        /* every subset, the whole first */
        for (uint32_t sub = all + 1; sub-- > 0 && st == BASALT_OK;) {
            uint64_t m = 0;
            for (int32_t i = 0; i < g->n_items; i++)
                if (sub >> (g->n_items - 1 - i) & 1)
                    m |= item_mask(&g->items[i], map);
            st = push(out, m, g->pos, B, err);
        }
        return st;
    }
    case BASALT_SQL_GROUPING_SETS:
        for (int32_t i = 0; i < g->n_items && st == BASALT_OK; i++)
            st = expand(B, &g->items[i], map, out, err);
        return st;
    }
    return st;
}

/* The GROUP BY's sets: the cross product of its elements' sets. */
static basalt_status all_sets(struct binder *B, const struct basalt_sql_select *s, const int *map,
                              struct masks *out, struct basalt_error *err)
{
    basalt_status st = push(out, 0, s->grouping[0].pos, B, err);
    for (int32_t e = 0; e < s->n_grouping && st == BASALT_OK; e++) {
        struct masks mine = {0}, product = {0};
        st = expand(B, &s->grouping[e], map, &mine, err);
        for (int i = 0; i < out->n && st == BASALT_OK; i++)
            for (int k = 0; k < mine.n && st == BASALT_OK; k++)
                st = push(&product, out->m[i] | mine.m[k], s->grouping[e].pos, B, err);
        basalt_free(mine.m);
        basalt_free(out->m);
        *out = product;
    }
    return st;
}

/* ------------------------------------------------------------ keys and calls */

/* Whether two key expressions are the same key: the same text, or names of
 * the same column (`a` and `t.a`). */
static bool same_key(struct binder *B, const struct bscope *scope, const struct basalt_sql_expr *a,
                     const struct basalt_sql_expr *b)
{
    const char *ta = basalt_sql_text(B, a), *tb = basalt_sql_text(B, b);
    if (ta != NULL && tb != NULL && strcmp(ta, tb) == 0)
        return true;
    if (a->kind != BASALT_SQL_EXPR_COLUMN || b->kind != BASALT_SQL_EXPR_COLUMN)
        return false;
    const struct bcol *ca, *cb;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    return basalt_sql_resolve(B, scope, &a->u.column, a->pos, &ca, &ignore) == BASALT_OK &&
           basalt_sql_resolve(B, scope, &b->u.column, b->pos, &cb, &ignore) == BASALT_OK &&
           ca->gid == cb->gid;
}

bool basalt_sql_is_grouping_call(const struct basalt_sql_expr *e)
{
    return e->kind == BASALT_SQL_EXPR_FUNCTION && e->u.call.over == NULL &&
           !e->u.call.name.quoted &&
           (strcmp(e->u.call.name.name, "grouping") == 0 ||
            strcmp(e->u.call.name.name, "grouping_id") == 0);
}

struct collect {
    struct binder *B;
    struct bgrouping *G;
    int cap;
    bool nomem;
};

static enum basalt_sql_replace collect_call(void *ctx, const struct basalt_sql_expr *e,
                                            struct basalt_sql_expr **out)
{
    struct collect *C = ctx;
    struct bgrouping *G = C->G;
    (void)out;
    if (e->kind == BASALT_SQL_EXPR_FUNCTION && e->u.call.over != NULL) {
        /* a window's PARTITION BY and ORDER BY, which the walk skips */
        const struct basalt_sql_window *w = e->u.call.over;
        const struct basalt_sql_expr *same;
        struct basalt_error ignore;
        basalt_error_init(&ignore);
        for (int32_t i = 0; i < w->n_partition; i++)
            if (basalt_sql_ast_replace(C->B, w->partition[i], collect_call, C, &same, &ignore) != BASALT_OK)
                C->nomem = true;
        for (int32_t i = 0; i < w->n_order; i++)
            if (basalt_sql_ast_replace(C->B, w->order[i].expr, collect_call, C, &same, &ignore) != BASALT_OK)
                C->nomem = true;
        return BASALT_SQL_DESCEND;
    }
    if (!basalt_sql_is_grouping_call(e))
        return BASALT_SQL_DESCEND;
    const char *text = basalt_sql_text(C->B, e);
    if (text == NULL) {
        C->nomem = true;
        return BASALT_SQL_KEEP;
    }
    for (int i = 0; i < G->n_calls; i++)
        if (strcmp(G->texts[i], text) == 0)
            return BASALT_SQL_KEEP;
    if (G->n_calls == C->cap) {
        int cap = C->cap ? C->cap * 2 : 4;
        const struct basalt_sql_expr **c = basalt_realloc(G->calls, (size_t)cap * sizeof *c);
        if (c != NULL)
            G->calls = c;
        const char **t = basalt_realloc(G->texts, (size_t)cap * sizeof *t);
        if (t != NULL)
            G->texts = t;
        if (c == NULL || t == NULL) {
            C->nomem = true;
            return BASALT_SQL_KEEP;
        }
        C->cap = cap;
    }
    G->calls[G->n_calls] = e;
    G->texts[G->n_calls++] = text;
    return BASALT_SQL_KEEP;
}

/* The key a GROUPING() argument names: the same expression, the same
 * column, or a select alias of one; -1 when none (an ordinal is none). */
static int key_of(struct binder *B, const struct basalt_sql_select *s, const struct bscope *scope,
                  const struct basalt_sql_expr *const *keys, int nk, const struct basalt_sql_expr *a)
{
    if (a->kind == BASALT_SQL_EXPR_INTEGER)
        return -1;
    for (int k = 0; k < nk; k++)
        if (same_key(B, scope, keys[k], a))
            return k;
    if (a->kind != BASALT_SQL_EXPR_COLUMN || a->u.column.n_parts != 1)
        return -1;
    const struct bcol *c;
    struct basalt_error ignore;
    basalt_error_init(&ignore);
    if (basalt_sql_resolve(B, scope, &a->u.column, a->pos, &c, &ignore) == BASALT_OK)
        return -1;
    for (int i = 0; i < s->n_items; i++)
        if (s->items[i].alias.name != NULL &&
            strcasecmp(s->items[i].alias.name, a->u.column.parts[0].name) == 0)
            for (int k = 0; k < nk; k++)
                if (same_key(B, scope, keys[k], s->items[i].expr))
                    return k;
    return -1;
}

basalt_status basalt_sql_grouping_prepare(struct binder *B, const struct basalt_sql_select *s,
                                          const struct bscope *scope,
                                          const struct basalt_sql_expr **keys, int *nk,
                                          const struct basalt_sql_expr *const *uses, int n_uses,
                                          struct bgrouping *G, struct basalt_error *err)
{
    memset(G, 0, sizeof *G);
    struct collect C = {B, G, 0, false};
    basalt_status st = BASALT_OK;
    for (int i = 0; i < n_uses && st == BASALT_OK && !C.nomem; i++) {
        const struct basalt_sql_expr *same;
        if (uses[i] != NULL)
            st = basalt_sql_ast_replace(B, uses[i], collect_call, &C, &same, err);
    }
    if (st == BASALT_OK && C.nomem)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    G->active = st == BASALT_OK && (s->n_grouping > 0 || G->n_calls > 0);
    if (!G->active)
        return st;
    if (s->n_group == 0 && s->n_grouping == 0)
        return basalt_sql_err(B, BASALT_INVALID_ARG, G->calls[0]->pos, err,
                              "GROUPING statement cannot be used without groups");

    /* An integer key is an ordinal of the select list (a plain GROUP BY
     * takes other integers as constants). */
    for (int32_t i = 0; i < s->n_group && s->n_grouping > 0; i++) {
        const struct basalt_sql_expr *g = s->group[i];
        if (g->kind == BASALT_SQL_EXPR_INTEGER &&
            (!g->u.lit.fits || g->u.lit.i64 < 1 || g->u.lit.i64 > s->n_items))
            return basalt_sql_err(B, BASALT_INVALID_ARG, g->pos, err,
                                  "GROUP BY term out of range: %s (1 to %d)", g->u.lit.text,
                                  (int)s->n_items);
    }

    /* The distinct keys (grouping sets name a key in several places). */
    int n = *nk;
    int *map = basalt_calloc((size_t)n + 1, sizeof *map);
    if (map == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (s->n_grouping > 0) {
        int distinct = 0;
        for (int i = 0; i < n; i++) {
            int k = 0;
            while (k < distinct && !same_key(B, scope, keys[k], keys[i]))
                k++;
            if (k == distinct)
                keys[distinct++] = keys[i];
            map[i] = k;
        }
        n = *nk = distinct;
    }
    if (n > MAX_KEYS)
        st = basalt_sql_err(B, BASALT_LIMIT, keys[MAX_KEYS]->pos, err,
                            "more than %d keys with grouping sets or GROUPING()", MAX_KEYS);
    struct masks M = {0};
    if (st == BASALT_OK && s->n_grouping > 0)
        st = all_sets(B, s, map, &M, err);
    else if (st == BASALT_OK)
        st = push(&M, n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1, 0, B, err);
    basalt_free(map);
    G->sets = M.m;
    G->n_sets = M.n;

    /* Each call's value in each set. */
    if (st == BASALT_OK && G->n_calls > 0 &&
        (G->values = basalt_calloc((size_t)G->n_sets * (size_t)G->n_calls, sizeof *G->values)) ==
            NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int c = 0; c < G->n_calls && st == BASALT_OK; c++) {
        const struct basalt_sql_call *call = &G->calls[c]->u.call;
        if (call->n_args == 0 || call->n_args > MAX_GROUPING_ARGS || call->star ||
            call->distinct || call->filter != NULL || call->n_order > 0) {
            st = basalt_sql_err(B, BASALT_INVALID_ARG, G->calls[c]->pos, err,
                                "GROUPING takes 1 to %d grouping columns", MAX_GROUPING_ARGS);
            break;
        }
        for (int32_t a = 0; a < call->n_args && st == BASALT_OK; a++) {
            int k = key_of(B, s, scope, keys, n, call->args[a]);
            if (k < 0) {
                const char *text = basalt_sql_text(B, call->args[a]);
                st = basalt_sql_err(B, BASALT_INVALID_ARG, call->args[a]->pos, err,
                                    "GROUPING child \"%s\" must be a grouping column",
                                    text ? text : "?");
                break;
            }
            for (int set = 0; set < G->n_sets; set++) {
                int64_t *v = &G->values[(size_t)set * (size_t)G->n_calls + (size_t)c];
                *v = (int64_t)(((uint64_t)*v << 1) | (~G->sets[set] >> k & 1));
            }
        }
    }
    return st;
}

void basalt_sql_grouping_reset(struct bgrouping *G)
{
    basalt_free(G->sets);
    basalt_free(G->calls);
    basalt_free(G->texts);
    basalt_free(G->values);
    memset(G, 0, sizeof *G);
}

/* ------------------------------------------------------------ the plan */

static const char *numbered(struct binder *B, const char *prefix, int k)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%s%d", prefix, k);
    return basalt_arena_strndup(&B->arena, buf, strlen(buf));
}

/* Columns [from, from + n) of b's node into exprs. */
static basalt_status columns(struct basalt_qexpr_builder *b, int from, int n,
                             struct basalt_qexpr **exprs, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (int i = 0; i < n && st == BASALT_OK; i++)
        st = basalt_qexpr_column(b, from + i, &exprs[i], err);
    return st;
}

/* The row of one set: its number, whether each key is in it, its
 * GROUPING() values and whether it has no keys. */
static basalt_status set_row(struct binder *B, const struct bgrouping *G, int set, int nk,
                             struct basalt_qplan **out, struct basalt_error *err)
{
    struct basalt_qplan *one;
    struct basalt_qexpr_builder *b = NULL;
    basalt_status st = basalt_sql_one_row(B, &one, err);
    if (st == BASALT_OK)
        st = basalt_qplan_builder(B->ctx, one, &b, err);
    int n = 1 + nk + G->n_calls + 1;
    struct basalt_qexpr **exprs = basalt_calloc((size_t)n, sizeof *exprs);
    const char **names = basalt_calloc((size_t)n, sizeof *names);
    if (st == BASALT_OK && (exprs == NULL || names == NULL))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int k = 0;
    if (st == BASALT_OK)
        st = basalt_qexpr_int(b, BASALT_QUERY_TYPE_INT32, set, &exprs[k++], err);
    for (int i = 0; i < nk && st == BASALT_OK; i++)
        st = basalt_qexpr_bool(b, G->sets[set] >> i & 1, &exprs[k++], err);
    for (int c = 0; c < G->n_calls && st == BASALT_OK; c++)
        st = basalt_qexpr_int(b, BASALT_QUERY_TYPE_INT64,
                              G->values[(size_t)set * (size_t)G->n_calls + (size_t)c], &exprs[k++],
                              err);
    if (st == BASALT_OK)
        st = basalt_qexpr_bool(b, G->sets[set] == 0, &exprs[k++], err);
    for (int i = 0; i < n && st == BASALT_OK; i++)
        if ((names[i] = numbered(B, "__set", i)) == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = basalt_qplan_project(B->ctx, one, exprs, names, n, out, err);
    basalt_free(exprs);
    basalt_free(names);
    return st;
}

/* Every set's row, as one relation (the build side of the cross join). */
static basalt_status set_rows(struct binder *B, const struct bgrouping *G, int nk,
                              struct basalt_qplan **out, struct basalt_error *err)
{
    struct basalt_qplan **rows = basalt_calloc((size_t)G->n_sets, sizeof *rows);
    if (rows == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = BASALT_OK;
    for (int s = 0; s < G->n_sets && st == BASALT_OK; s++)
        st = set_row(B, G, s, nk, &rows[s], err);
    if (st == BASALT_OK)
        st = basalt_qplan_union_all(B->ctx, rows, G->n_sets, out, err);
    basalt_free(rows);
    return st;
}

/* `in` and a row of NULLs of its column types. */
static basalt_status with_null_row(struct binder *B, struct basalt_qplan *in,
                                   struct basalt_qplan **out, struct basalt_error *err)
{
    const struct ArrowSchema *schema = basalt_qplan_schema(in);
    int n = (int)schema->n_children;
    struct basalt_qplan *one, *kids[2] = {in, NULL};
    struct basalt_qexpr_builder *b = NULL;
    struct basalt_qexpr **exprs = basalt_calloc((size_t)n + 1, sizeof *exprs);
    const char **names = basalt_calloc((size_t)n + 1, sizeof *names);
    basalt_status st = exprs && names ? BASALT_OK
                                      : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = basalt_sql_one_row(B, &one, err);
    if (st == BASALT_OK)
        st = basalt_qplan_builder(B->ctx, one, &b, err);
    for (int i = 0; i < n && st == BASALT_OK; i++) {
        struct basalt_query_type t;
        names[i] = schema->children[i]->name;
        st = basalt_query_type_from_format(schema->children[i]->format, &t, err);
        if (st == BASALT_OK)
            st = basalt_qexpr_null(b, t, &exprs[i], err);
    }
    if (st == BASALT_OK)
        st = basalt_qplan_project(B->ctx, one, exprs, names, n, &kids[1], err);
    if (st == BASALT_OK)
        st = basalt_qplan_union_all(B->ctx, kids, 2, out, err);
    basalt_free(exprs);
    basalt_free(names);
    return st;
}

/* The keys present in one set, the aggregation's output with the
 * GROUPING() values after the aggregates. */
static basalt_status one_set(struct binder *B, const struct bgrouping *G, struct basalt_qplan *in,
                             struct basalt_qexpr *const *keys, const char *const *knames, int nk,
                             const struct basalt_qplan_agg_call *calls, int nc,
                             struct basalt_qplan **out, struct basalt_error *err)
{
    struct basalt_qplan *agg = NULL;
    basalt_status st = basalt_qplan_aggregate(B->ctx, in, keys, knames, nk, calls, nc, &agg, err);
    if (st != BASALT_OK || G->n_calls == 0) {
        *out = agg;
        return st;
    }
    int n = nk + nc + G->n_calls;
    struct basalt_qexpr_builder *b;
    struct basalt_qexpr **exprs = basalt_calloc((size_t)n, sizeof *exprs);
    const char **names = basalt_calloc((size_t)n, sizeof *names);
    st = basalt_qplan_builder(B->ctx, agg, &b, err);
    if (st == BASALT_OK && (exprs == NULL || names == NULL))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = columns(b, 0, nk + nc, exprs, err);
    for (int i = 0; i < nk + nc && st == BASALT_OK; i++)
        names[i] = basalt_qplan_schema(agg)->children[i]->name;
    for (int c = 0; c < G->n_calls && st == BASALT_OK; c++) {
        names[nk + nc + c] = G->texts[c];
        st = basalt_qexpr_int(b, BASALT_QUERY_TYPE_INT64, G->values[c], &exprs[nk + nc + c], err);
    }
    if (st == BASALT_OK)
        st = basalt_qplan_project(B->ctx, agg, exprs, names, n, out, err);
    basalt_free(exprs);
    basalt_free(names);
    return st;
}

/* Every set's aggregation in one, over the input crossed with the sets. */
static basalt_status crossed(struct binder *B, const struct bgrouping *G, struct basalt_qplan *in,
                             struct basalt_qexpr *const *keys, const char *const *knames, int nk,
                             const struct basalt_qplan_agg_call *calls, int nc,
                             struct basalt_qplan **out, struct basalt_error *err)
{
    int m = G->n_calls;
    /* A set without keys gives its row on an empty input too: a row of
     * NULLs goes with the input, which the aggregates skip (count(*)
     * counts the input's 1s instead); the groups it makes in the sets with
     * keys are dropped after the aggregation. The UNION is below the join,
     * where its inputs stream into the aggregation one after the other. */
    int ne = 0;
    for (int s = 0; s < G->n_sets; s++)
        ne |= G->sets[s] == 0;

    /* P: the keys, the aggregates' arguments and 1 (what count(*) counts). */
    int na = 0;
    for (int c = 0; c < nc; c++)
        na += (calls[c].arg != NULL) + (calls[c].arg2 != NULL);
    int np = nk + na + 1, nv = 1 + nk + m + 1;
    int cap = np + nv + nk + m + nc + 4;
    struct basalt_qexpr **exprs = basalt_calloc((size_t)cap, sizeof *exprs);
    const char **names = basalt_calloc((size_t)cap, sizeof *names);
    struct basalt_qplan_agg_call *acalls = basalt_calloc((size_t)nc + 1, sizeof *acalls);
    struct basalt_qexpr_builder *b = NULL;
    basalt_status st = exprs && names && acalls
                           ? BASALT_OK
                           : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = basalt_qplan_builder(B->ctx, in, &b, err);
    int k = 0;
    for (int i = 0; i < nk && st == BASALT_OK; i++, k++) {
        exprs[k] = keys[i];
        names[k] = knames[i];
    }
    for (int c = 0; c < nc && st == BASALT_OK; c++) {
        struct basalt_qexpr *args[2] = {calls[c].arg, calls[c].arg2};
        for (int j = 0; j < 2; j++)
            if (args[j] != NULL) {
                exprs[k] = args[j];
                names[k] = numbered(B, "__arg", k);
                k++;
            }
    }
    if (st == BASALT_OK) {
        names[k] = "__row";
        st = basalt_qexpr_int(b, BASALT_QUERY_TYPE_INT32, 1, &exprs[k++], err);
    }
    for (int i = 0; i < np && st == BASALT_OK; i++)
        if (names[i] == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_qplan *p = NULL, *sets = NULL, *joined = NULL, *x = NULL, *agg = NULL;
    if (st == BASALT_OK)
        st = basalt_qplan_project(B->ctx, in, exprs, names, np, &p, err);
    if (st == BASALT_OK && ne)
        st = with_null_row(B, p, &p, err);
    if (st == BASALT_OK)
        st = set_rows(B, G, nk, &sets, err);
    if (st == BASALT_OK)
        st = basalt_qplan_join(B->ctx, BASALT_QPLAN_JOIN_CROSS, p, sets, NULL, NULL, 0, NULL,
                               &joined, err);

    /* X: the keys (NULL where the set has not got them), the set's number,
     * GROUPING() values and whether it has no keys, the arguments and 1. */
    if (st == BASALT_OK)
        st = basalt_qplan_builder(B->ctx, joined, &b, err);
    k = 0;
    for (int i = 0; i < nk && st == BASALT_OK; i++, k++) {
        struct basalt_qexpr *in_set, *key;
        st = basalt_qexpr_column(b, np + 1 + i, &in_set, err);
        if (st == BASALT_OK)
            st = basalt_qexpr_column(b, i, &key, err);
        if (st == BASALT_OK)
            st = basalt_qexpr_case(b, &in_set, &key, 1, NULL, &exprs[k], err);
        names[k] = knames[i];
    }
    if (st == BASALT_OK) {
        names[k] = "__set";
        st = basalt_qexpr_column(b, np, &exprs[k++], err);
    }
    for (int c = 0; c < m && st == BASALT_OK; c++, k++) {
        names[k] = G->texts[c];
        st = basalt_qexpr_column(b, np + 1 + nk + c, &exprs[k], err);
    }
    if (st == BASALT_OK && ne) {
        names[k] = "__empty";
        st = basalt_qexpr_column(b, np + nv - 1, &exprs[k++], err);
    }
    for (int i = nk; i < np && st == BASALT_OK; i++, k++) {
        names[k] = basalt_qplan_schema(p)->children[i]->name;
        st = basalt_qexpr_column(b, i, &exprs[k], err);
    }
    int nx = k, ng = nk + 1 + m + ne; /* the aggregation's keys */
    if (st == BASALT_OK)
        st = basalt_qplan_project(B->ctx, joined, exprs, names, nx, &x, err);

    /* The aggregation, by the keys, the set and what depends on it. */
    if (st == BASALT_OK)
        st = basalt_qplan_builder(B->ctx, x, &b, err);
    if (st == BASALT_OK)
        st = columns(b, 0, ng, exprs, err);
    for (int i = 0; i < ng && st == BASALT_OK; i++)
        names[i] = basalt_qplan_schema(x)->children[i]->name;
    k = ng; /* the first argument's column */
    for (int c = 0; c < nc && st == BASALT_OK; c++) {
        acalls[c] = calls[c];
        if (calls[c].arg != NULL)
            st = basalt_qexpr_column(b, k++, &acalls[c].arg, err);
        if (st == BASALT_OK && calls[c].arg2 != NULL)
            st = basalt_qexpr_column(b, k++, &acalls[c].arg2, err);
        if (st == BASALT_OK && calls[c].kind == BASALT_QPLAN_COUNT_STAR && ne) {
            acalls[c].kind = BASALT_QPLAN_COUNT; /* the row of NULLs is no row */
            st = basalt_qexpr_column(b, nx - 1, &acalls[c].arg, err);
        }
    }
    if (st == BASALT_OK && ne) { /* the input's rows in the group */
        memset(&acalls[nc], 0, sizeof acalls[nc]);
        acalls[nc].kind = BASALT_QPLAN_COUNT;
        acalls[nc].name = "__rows";
        st = basalt_qexpr_column(b, nx - 1, &acalls[nc].arg, err);
    }
    if (st == BASALT_OK)
        st = basalt_qplan_aggregate(B->ctx, x, exprs, names, ng, acalls, nc + ne, &agg, err);

    /* Only the rows of sets without keys when the input is empty. */
    if (st == BASALT_OK && ne) {
        struct basalt_qexpr *rows = NULL, *zero = NULL, *cond[2], *keep;
        st = basalt_qplan_builder(B->ctx, agg, &b, err);
        if (st == BASALT_OK)
            st = basalt_qexpr_column(b, ng + nc, &rows, err);
        if (st == BASALT_OK)
            st = basalt_qexpr_int(b, BASALT_QUERY_TYPE_INT64, 0, &zero, err);
        struct basalt_qexpr *gt[2] = {rows, zero};
        if (st == BASALT_OK)
            st = basalt_qexpr_call(b, ">", gt, 2, &cond[0], err);
        if (st == BASALT_OK)
            st = basalt_qexpr_column(b, ng - 1, &cond[1], err);
        if (st == BASALT_OK)
            st = basalt_qexpr_or(b, cond, 2, &keep, err);
        struct basalt_qplan *kept = NULL;
        if (st == BASALT_OK)
            st = basalt_qplan_filter(B->ctx, agg, keep, &kept, err);
        agg = kept;
    }

    /* The keys, the aggregates, the GROUPING() values. */
    if (st == BASALT_OK)
        st = basalt_qplan_builder(B->ctx, agg, &b, err);
    if (st == BASALT_OK)
        st = columns(b, 0, nk, exprs, err);
    if (st == BASALT_OK)
        st = columns(b, ng, nc, exprs + nk, err);
    if (st == BASALT_OK)
        st = columns(b, nk + 1, m, exprs + nk + nc, err);
    for (int i = 0; i < nk && st == BASALT_OK; i++)
        names[i] = knames[i];
    for (int c = 0; c < nc && st == BASALT_OK; c++)
        names[nk + c] = calls[c].name;
    for (int c = 0; c < m && st == BASALT_OK; c++)
        names[nk + nc + c] = G->texts[c];
    if (st == BASALT_OK)
        st = basalt_qplan_project(B->ctx, agg, exprs, names, nk + nc + m, out, err);
    basalt_free(exprs);
    basalt_free(names);
    basalt_free(acalls);
    return st;
}

/* ------------------------------------------------------------ rolled up */

static bool numeric(struct basalt_query_type t)
{
    return t.id >= BASALT_QUERY_TYPE_INT8 && t.id <= BASALT_QUERY_TYPE_DECIMAL;
}

/* How many partial aggregates a call rolls up from (avg: a sum and a
 * count); 0 when it does not (DISTINCT, median, string_agg...). */
static int parts_of(const struct basalt_qplan_agg_call *c)
{
    if (c->distinct)
        return 0;
    switch (c->kind) {
    case BASALT_QPLAN_COUNT_STAR:
    case BASALT_QPLAN_COUNT:
    case BASALT_QPLAN_MIN:
    case BASALT_QPLAN_MAX:
    case BASALT_QPLAN_ANY_VALUE:
    case BASALT_QPLAN_BOOL_AND:
    case BASALT_QPLAN_BOOL_OR: return 1;
    case BASALT_QPLAN_SUM: return numeric(basalt_qexpr_type(c->arg)) ? 1 : 0;
    case BASALT_QPLAN_AVG: return numeric(basalt_qexpr_type(c->arg)) ? 2 : 0;
    default: return 0;
    }
}

/* The aggregate that combines partial results of `kind`. */
static enum basalt_qplan_agg combining(enum basalt_qplan_agg kind)
{
    switch (kind) {
    case BASALT_QPLAN_COUNT_STAR:
    case BASALT_QPLAN_COUNT:
    case BASALT_QPLAN_AVG: return BASALT_QPLAN_SUM;
    default: return kind;
    }
}

/* When every aggregate rolls up, the input is aggregated once by all the
 * keys, as a plain GROUP BY would, and the sets are aggregated from those
 * groups, far fewer rows than the input: count and sum are sums of the
 * partial counts and sums, min, max, any_value (the smallest), bool_and and
 * bool_or the same of theirs, avg the partial sums' sum over their counts'. */
static basalt_status rolled_up(struct binder *B, const struct bgrouping *G,
                               struct basalt_qplan *in, struct basalt_qexpr *const *keys,
                               const char *const *knames, int nk,
                               const struct basalt_qplan_agg_call *calls, int nc, int n_parts,
                               struct basalt_qplan **out, struct basalt_error *err)
{
    int m = G->n_calls;
    struct basalt_qplan_agg_call *parts = basalt_calloc((size_t)n_parts + 1, sizeof *parts);
    struct basalt_qexpr **exprs = basalt_calloc((size_t)(nk + n_parts + nc + m) + 1, sizeof *exprs);
    const char **names = basalt_calloc((size_t)(nk + n_parts + nc + m) + 1, sizeof *names);
    basalt_status st = parts && exprs && names
                           ? BASALT_OK
                           : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    /* the partial aggregates by all the keys */
    int k = 0;
    for (int c = 0; c < nc && st == BASALT_OK; c++) {
        parts[k] = calls[c];
        if (calls[c].kind == BASALT_QPLAN_AVG) {
            parts[k].kind = BASALT_QPLAN_SUM;
            parts[k + 1] = calls[c];
            parts[k + 1].kind = BASALT_QPLAN_COUNT;
            /* the argument is one node, read by both */
        }
        for (int j = 0; j < parts_of(&calls[c]); j++, k++)
            if ((parts[k].name = numbered(B, "__part", k)) == NULL)
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    struct basalt_qplan *partial = NULL, *sets = NULL;
    if (st == BASALT_OK)
        st = basalt_qplan_aggregate(B->ctx, in, keys, knames, nk, parts, n_parts, &partial, err);
    /* the sets over the partial groups */
    struct basalt_qexpr_builder *b = NULL;
    if (st == BASALT_OK)
        st = basalt_qplan_builder(B->ctx, partial, &b, err);
    if (st == BASALT_OK)
        st = columns(b, 0, nk, exprs, err);
    for (int p = 0; p < n_parts && st == BASALT_OK; p++) {
        enum basalt_qplan_agg kind = parts[p].kind;
        memset(&parts[p], 0, sizeof parts[p]);
        parts[p].kind = combining(kind);
        parts[p].name = basalt_qplan_schema(partial)->children[nk + p]->name;
        st = basalt_qexpr_column(b, nk + p, &parts[p].arg, err);
    }
    if (st == BASALT_OK)
        st = crossed(B, G, partial, exprs, knames, nk, parts, n_parts, &sets, err);

    /* the calls from their combined parts, in the partial results' types */
    if (st == BASALT_OK)
        st = basalt_qplan_builder(B->ctx, sets, &b, err);
    if (st == BASALT_OK)
        st = columns(b, 0, nk, exprs, err);
    k = nk;
    for (int c = 0; c < nc && st == BASALT_OK; c++) {
        struct basalt_qexpr *x = NULL, *y = NULL;
        struct basalt_query_type want;
        st = basalt_query_type_from_format(basalt_qplan_schema(partial)->children[k]->format,
                                           &want, err);
        if (st == BASALT_OK)
            st = basalt_qexpr_column(b, k, &x, err);
        if (st == BASALT_OK && calls[c].kind == BASALT_QPLAN_AVG) {
            struct basalt_query_type dbl = basalt_query_type_make(BASALT_QUERY_TYPE_DOUBLE);
            struct basalt_qexpr *ratio[2];
            st = basalt_qexpr_column(b, k + 1, &y, err);
            if (st == BASALT_OK)
                st = basalt_qexpr_cast(b, x, dbl, false, &ratio[0], err);
            if (st == BASALT_OK)
                st = basalt_qexpr_cast(b, y, dbl, false, &ratio[1], err);
            if (st == BASALT_OK)
                st = basalt_qexpr_call(b, "/", ratio, 2, &x, err);
            want = dbl;
        } else if (st == BASALT_OK && (calls[c].kind == BASALT_QPLAN_COUNT ||
                                       calls[c].kind == BASALT_QPLAN_COUNT_STAR)) {
            struct basalt_qexpr *either[2] = {x, NULL}; /* a set's row of an empty input: 0 */
            st = basalt_qexpr_int(b, BASALT_QUERY_TYPE_INT64, 0, &either[1], err);
            if (st == BASALT_OK)
                st = basalt_qexpr_coalesce(b, either, 2, &x, err);
        }
        if (st == BASALT_OK && !basalt_query_type_equal(basalt_qexpr_type(x), want))
            st = basalt_qexpr_cast(b, x, want, false, &x, err);
        exprs[nk + c] = x;
        names[nk + c] = calls[c].name;
        k += parts_of(&calls[c]);
    }
    for (int i = 0; i < nk && st == BASALT_OK; i++)
        names[i] = knames[i];
    for (int c = 0; c < m && st == BASALT_OK; c++) {
        names[nk + nc + c] = G->texts[c];
        st = basalt_qexpr_column(b, nk + n_parts + c, &exprs[nk + nc + c], err);
    }
    if (st == BASALT_OK)
        st = basalt_qplan_project(B->ctx, sets, exprs, names, nk + nc + m, out, err);
    basalt_free(parts);
    basalt_free(exprs);
    basalt_free(names);
    return st;
}

basalt_status basalt_sql_grouping_aggregate(struct binder *B, const struct bgrouping *G,
                                            struct basalt_qplan *in,
                                            struct basalt_qexpr *const *keys,
                                            const char *const *knames, int nk,
                                            const struct basalt_qplan_agg_call *calls, int nc,
                                            struct basalt_qplan **out, struct basalt_error *err)
{
    if (G->n_sets == 1)
        return one_set(B, G, in, keys, knames, nk, calls, nc, out, err);
    int n_parts = 0;
    bool rolls_up = true;
    for (int c = 0; c < nc; c++) {
        int p = parts_of(&calls[c]);
        rolls_up &= p > 0;
        n_parts += p;
    }
    if (rolls_up)
        return rolled_up(B, G, in, keys, knames, nk, calls, nc, n_parts, out, err);
    return crossed(B, G, in, keys, knames, nk, calls, nc, out, err);
}
