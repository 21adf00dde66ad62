/* Conditions implied by an OR of conjunctions, added next to it so the join
 * planner can use them (TPC-H Q19: `(p_partkey = l_partkey AND ...) OR
 * (p_partkey = l_partkey AND ...)`):
 *   - a conjunct every branch has is a condition of its own (there, the
 *     join key);
 *   - for each table, when every branch has conjuncts over that table
 *     alone, the OR of those parts filters the table before any join.
 * The OR itself stays: the added conditions only narrow what reaches it. */
#include <string.h>

#include "bind/bind_internal.h"

#define MAX_BRANCHES 32
#define MAX_PARTS 64

/* l op r, or r alone while nothing is accumulated. */
static struct basalt_sql_expr *combine(struct binder *B, enum basalt_sql_binary_op op,
                                       struct basalt_sql_expr *l, struct basalt_sql_expr *r)
{
    return l == NULL ? r : basalt_sql_ast_binary(B, op, l, r);
}

static int flatten(const struct basalt_sql_expr *e, enum basalt_sql_binary_op op,
                   const struct basalt_sql_expr **out, int n, int cap)
{
    if (e->kind == BASALT_SQL_EXPR_BINARY && e->u.binary.op == op) {
        n = flatten(e->u.binary.left, op, out, n, cap);
        return n < 0 ? n : flatten(e->u.binary.right, op, out, n, cap);
    }
    if (n >= cap)
        return -1;
    out[n] = e;
    return n + 1;
}

struct branch {
    const struct basalt_sql_expr *parts[MAX_PARTS];
    const char *texts[MAX_PARTS];
    uint64_t masks[MAX_PARTS];
    int n;
};

/* Adds the conditions one OR implies to F. */
static basalt_status factor(struct binder *B, const struct bscope *scope,
                            const struct basalt_sql_expr *or, int n_rels, struct bfrom *F,
                            struct basalt_error *err)
{
    const struct basalt_sql_expr *tops[MAX_BRANCHES];
    int nb = flatten(or, BASALT_SQL_BINARY_OR, tops, 0, MAX_BRANCHES);
    if (nb < 2)
        return BASALT_OK;
    struct branch *br = basalt_calloc((size_t)nb, sizeof *br);
    if (br == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = BASALT_OK;
    bool usable = true;
    for (int b = 0; b < nb && usable; b++) {
        br[b].n = flatten(tops[b], BASALT_SQL_BINARY_AND, br[b].parts, 0, MAX_PARTS);
        if (br[b].n < 0) {
            usable = false;
            break;
        }
        for (int i = 0; i < br[b].n; i++) {
            br[b].texts[i] = basalt_sql_text(B, br[b].parts[i]);
            br[b].masks[i] = basalt_sql_refs(B, scope, br[b].parts[i]);
            if (br[b].texts[i] == NULL)
                usable = false;
        }
    }
    /* conjuncts every branch has */
    for (int i = 0; usable && i < br[0].n && st == BASALT_OK; i++) {
        bool everywhere = true;
        for (int b = 1; b < nb && everywhere; b++) {
            bool found = false;
            for (int k = 0; k < br[b].n && !found; k++)
                found = strcmp(br[b].texts[k], br[0].texts[i]) == 0;
            everywhere = found;
        }
        if (everywhere)
            st = basalt_sql_conjuncts(F, br[0].parts[i], err);
    }
    /* per table: the OR of each branch's parts over that table alone */
    for (int r = 0; usable && r < n_rels && r < 64 && st == BASALT_OK; r++) {
        uint64_t only = (uint64_t)1 << r;
        struct basalt_sql_expr *any = NULL;
        bool every_branch = true;
        for (int b = 0; b < nb && every_branch; b++) {
            struct basalt_sql_expr *all = NULL;
            for (int i = 0; i < br[b].n; i++)
                if (br[b].masks[i] == only)
                    all = combine(B, BASALT_SQL_BINARY_AND, all, basalt_sql_ast_shared(br[b].parts[i]));
            if (all == NULL)
                every_branch = false;
            else
                any = combine(B, BASALT_SQL_BINARY_OR, any, all);
        }
        if (every_branch && any != NULL)
            st = basalt_sql_conjuncts(F, any, err);
    }
    basalt_free(br);
    return st;
}

basalt_status basalt_sql_factor_ors(struct binder *B, const struct bscope *scope, struct bfrom *F,
                                    struct basalt_error *err)
{
    int n = F->nc; /* the conditions added are not looked at again */
    basalt_status st = BASALT_OK;
    for (int i = 0; i < n && st == BASALT_OK; i++) {
        const struct basalt_sql_expr *c = F->conj[i];
        if (c->kind == BASALT_SQL_EXPR_BINARY && c->u.binary.op == BASALT_SQL_BINARY_OR)
            st = factor(B, scope, c, F->n, F, err);
    }
    return st;
}
