/* GROUP BY string columns read as dictionary indices: the aggregation groups
 * a dictionary array's rows by their indices (agg/agg_dict.c), so when its
 * keys come straight from a Parquet scan, through filters at most, the scan
 * is asked to keep those columns' dictionaries (basalt_parquet_scan_keep_
 * dictionary) and the plan's schemas on the way up say so: a filter then
 * takes their int32 indices (the dictionary copied) instead of their
 * strings. Only when nothing on the way reads them: no filter predicate and
 * no argument or computed key of the aggregation (an expression over a
 * dictionary array would need its values). */
#include <string.h>

#include "plan/run_internal.h"

/* The most key columns the aggregation reads as dictionaries (its
 * QAGG_STR_KEYS_MAX). */
#define DICT_KEYS_MAX 8
/* Filters between the aggregation and its scan that are looked through. */
#define DICT_FILTERS_MAX 8

/* Child c of `parent` made a dictionary array's type: int32 indices over the
 * values it had. */
static basalt_status dictionary_child(struct ArrowSchema *parent, int c, struct basalt_error *err)
{
    struct ArrowSchema *ch = parent->children[c];
    if (ch->dictionary != NULL)
        return BASALT_OK;
    struct ArrowSchema values, idx;
    basalt_status st = basalt_arrow_schema_copy(ch, &values, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_arrow_schema_init(&idx, "i", ch->name, ch->flags, 0, err);
    if (st != BASALT_OK) {
        basalt_arrow_schema_release(&values);
        return st;
    }
    st = basalt_arrow_schema_set_dictionary(&idx, &values, err); /* takes values */
    if (st != BASALT_OK) {
        basalt_arrow_schema_release(&idx);
        return st;
    }
    basalt_arrow_schema_release(ch);
    basalt_arrow_schema_move(&idx, ch);
    return BASALT_OK;
}

basalt_status basalt_qrun_dictionary_keys(struct basalt_qctx *ctx, struct basalt_qplan *node,
                                          const int *col, int n_inputs,
                                          struct basalt_qexpr *const *computed, int n_computed,
                                          struct basalt_error *err)
{
    int nk = node->n_exprs;
    if (nk == 0 || nk > DICT_KEYS_MAX)
        return BASALT_OK;
    struct basalt_qplan *in = node->child[0];
    int n_in = (int)in->schema.n_children;
    bool *read = basalt_calloc((size_t)n_in + 1, sizeof *read);
    if (read == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int j = nk; j < n_inputs; j++)
        if (col[j] >= 0)
            read[col[j]] = true;
    for (int j = 0; j < n_computed; j++)
        basalt_qexpr_columns(computed[j], read);
    int at[DICT_KEYS_MAX]; /* the key columns at the level walked to */
    bool ok = true;
    for (int i = 0; i < nk && ok; i++) {
        struct basalt_query_type t = basalt_qexpr_type(node->exprs[i]);
        ok = col[i] >= 0 && !read[col[i]] &&
             (t.id == BASALT_QUERY_TYPE_STRING || t.id == BASALT_QUERY_TYPE_BINARY);
        at[i] = col[i];
    }
    basalt_free(read);
    /* Down through the filters, each key column mapped to the filter's
     * input, which its predicate must not read. */
    struct basalt_qplan *filters[DICT_FILTERS_MAX];
    int n_filters = 0;
    while (ok && in->kind == QPLAN_FILTER && n_filters < DICT_FILTERS_MAX) {
        int n_below = (int)in->child[0]->schema.n_children;
        bool *used = basalt_calloc((size_t)n_below + 1, sizeof *used);
        if (used == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        basalt_qexpr_columns(in->pred, used);
        for (int i = 0; i < nk && ok; i++) {
            at[i] = in->filter_keep != NULL ? in->filter_keep[at[i]] : at[i];
            ok = !used[at[i]];
        }
        basalt_free(used);
        filters[n_filters++] = in;
        in = in->child[0];
    }
    if (!ok || in->kind != QPLAN_SCAN_PARQUET)
        return BASALT_OK;
    /* the reader keeps dictionaries of top-level byte-array columns only */
    for (int i = 0; i < nk; i++) {
        int full = in->scan.keep != NULL ? in->scan.keep[at[i]] : at[i];
        if (in->scan.nested != NULL && in->scan.nested[full])
            return BASALT_OK;
        const char *f = in->schema.children[at[i]]->format;
        if (in->schema.children[at[i]]->dictionary != NULL || strchr("uUzZ", f[0]) == NULL ||
            f[1] != '\0')
            return BASALT_OK;
    }
    size_t n_out = (size_t)in->schema.n_children;
    bool *dict = basalt_arena_alloc(&ctx->arena, n_out + 1, 1);
    if (dict == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memset(dict, 0, n_out + 1);
    basalt_status st = BASALT_OK;
    for (int i = 0; i < nk && st == BASALT_OK; i++) {
        dict[at[i]] = true;
        st = dictionary_child(&in->schema, at[i], err);
    }
    /* The filters' outputs, from the bottom up: column c of a filter is
     * column filter_keep[c] of its input (every column when NULL). */
    for (int f = n_filters - 1; f >= 0 && st == BASALT_OK; f--) {
        struct basalt_qplan *fl = filters[f];
        const struct ArrowSchema *below = &fl->child[0]->schema;
        for (int c = 0; c < (int)fl->schema.n_children && st == BASALT_OK; c++) {
            int src = fl->filter_keep != NULL ? fl->filter_keep[c] : c;
            if (below->children[src]->dictionary != NULL)
                st = dictionary_child(&fl->schema, c, err);
        }
    }
    if (st == BASALT_OK)
        in->scan.dictionary = dict;
    return st;
}
