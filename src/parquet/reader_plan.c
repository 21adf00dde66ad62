/* Planning one row group of a scan: pruning by statistics, bloom filters and
 * the page index, and the page selection every decoded column then follows. */
#include <string.h>

#include "parquet_column.h"
#include "parquet_reader.h"

static bool stats_exclude(const struct basalt_parquet_scan *scan, int32_t rg,
                          const struct basalt_parquet_predicate *p)
{
    const struct basalt_parquet_reader *r = scan->reader;
    const struct basalt_parquet_column_metadata *m = &r->md.row_groups[rg].columns[p->leaf].meta_data;
    struct basalt_parquet_column_stats cs;
    basalt_parquet_stats_of(r, p->leaf, m, &cs);
    struct basalt_parquet_bounds b;
    memset(&b, 0, sizeof b);
    b.has_min_max = cs.has_min_max;
    b.min = cs.min;
    b.max = cs.max;
    b.min_exact = cs.min_exact;
    b.max_exact = cs.max_exact;
    b.has_null_count = cs.has_null_count;
    b.null_count = cs.null_count;
    b.has_nan_count = cs.has_nan_count;
    b.nan_count = cs.nan_count;
    /* num_values counts the leaf's slots: one a row outside lists and maps,
     * every element (and every null or empty list) inside them, so that
     * null_count == num_values still means no value at all. */
    b.num_values = m->num_values;
    return !basalt_parquet_predicate_may_match(p, &r->schema->leaves[p->leaf], &b);
}

/* The page index of a leaf for this row group, read once. */
struct pi_cache {
    struct basalt_parquet_page_index *pi; /* per leaf */
    uint8_t *state;                       /* 0 unread, 1 offsets only, 2 with column index */
};

static basalt_status get_index(struct basalt_parquet_scan *scan, int32_t rg, int32_t leaf,
                               bool want_ci, struct pi_cache *cache,
                               struct basalt_parquet_page_index **out, struct basalt_error *err)
{
    uint8_t want = want_ci ? 2 : 1;
    if (cache->state[leaf] < want) {
        basalt_status st = basalt_parquet_page_index_read(scan->reader, rg, leaf, want_ci,
                                                          &scan->plan_arena, &cache->pi[leaf], err);
        if (st != BASALT_OK)
            return basalt_parquet_reader_context(scan->reader, rg, leaf, st, err);
        cache->state[leaf] = want;
    }
    *out = &cache->pi[leaf];
    return BASALT_OK;
}

/* Page pruning. *pruned when no page can match; plan->pages set when only
 * some pages are read. */
static basalt_status plan_pages(struct basalt_parquet_scan *scan, int32_t rg,
                                struct basalt_parquet_rg_plan *plan, bool *pruned,
                                struct basalt_error *err)
{
    const struct basalt_parquet_reader *r = scan->reader;
    int32_t n_leaves = r->schema->n_leaves;
    int64_t rows = r->md.row_groups[rg].num_rows;
    struct pi_cache cache;
    cache.pi = basalt_arena_alloc(&scan->plan_arena, sizeof *cache.pi * (size_t)n_leaves, 8);
    cache.state = basalt_arena_alloc(&scan->plan_arena, (size_t)n_leaves, 1);
    if (!cache.pi || !cache.state)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a scan plan");
    memset(cache.state, 0, (size_t)n_leaves);

    struct basalt_parquet_ranges want, m, tmp;
    basalt_parquet_ranges_init(&want);
    basalt_parquet_ranges_init(&m);
    basalt_parquet_ranges_init(&tmp);
    basalt_status st = basalt_parquet_ranges_add(&want, 0, rows, err);
    bool used = false;
    for (int32_t i = 0; i < scan->n_preds && st == BASALT_OK && want.n > 0; i++) {
        const struct basalt_parquet_predicate *p = &scan->preds[i];
        /* Rows of a repeated leaf are not one value each, and a writer may
         * let a row's values run on into the next page: the page index is
         * used for leaves outside lists and maps only. */
        if (r->schema->leaves[p->leaf].max_rep > 0)
            continue;
        struct basalt_parquet_page_index *pi = NULL;
        st = get_index(scan, rg, p->leaf, true, &cache, &pi, err);
        if (st != BASALT_OK || !pi->has_offset_index || !pi->has_column_index)
            continue;
        used = true;
        m.n = 0;
        st = basalt_parquet_page_index_match(r, pi, p, &m, err);
        if (st == BASALT_OK)
            st = basalt_parquet_ranges_intersect(&want, &m, &tmp, err);
        if (st == BASALT_OK) {
            struct basalt_parquet_ranges swap = want;
            want = tmp;
            tmp = swap;
        }
    }
    if (st != BASALT_OK || !used)
        goto done;
    if (want.n == 0) {
        *pruned = true;
        goto done;
    }
    if (want.n == 1 && want.r[0] == 0 && want.r[1] == rows)
        goto done;
    /* Every decoded column reads the pages overlapping the wanted rows and
     * is cut down to them after decoding. */
    for (int32_t i = 0; i < scan->n_decode && st == BASALT_OK; i++) {
        struct basalt_parquet_page_index *pi = NULL;
        st = get_index(scan, rg, scan->decode_leaves[i], false, &cache, &pi, err);
        if (st == BASALT_OK && !pi->has_offset_index)
            goto done; /* a column without an offset index reads everything */
    }
    if (st != BASALT_OK)
        goto done;
    plan->pages = basalt_arena_alloc(&scan->plan_arena, sizeof *plan->pages * (size_t)n_leaves, 8);
    int64_t *keep = basalt_arena_alloc(&scan->plan_arena, sizeof(int64_t) * 2 * (size_t)want.n, 8);
    if (!plan->pages || !keep) {
        plan->pages = NULL;
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory for a page selection");
        goto done;
    }
    memcpy(keep, want.r, sizeof(int64_t) * 2 * (size_t)want.n);
    memset(plan->pages, 0, sizeof *plan->pages * (size_t)n_leaves);
    for (int32_t i = 0; i < scan->n_decode; i++) {
        int32_t leaf = scan->decode_leaves[i];
        const struct basalt_parquet_page_index *pi = &cache.pi[leaf];
        uint8_t *sel = basalt_arena_alloc(&scan->plan_arena, (size_t)pi->n_pages + 1, 1);
        if (!sel) {
            plan->pages = NULL;
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory for a page selection");
            goto done;
        }
        for (int32_t k = 0; k < pi->n_pages; k++) {
            sel[k] = basalt_parquet_ranges_overlap(&want, pi->page_first_row[k],
                                                   pi->page_first_row[k + 1]);
            scan->stats.pages_skipped += !sel[k];
        }
        scan->stats.pages_total += pi->n_pages;
        plan->pages[leaf].n_pages = pi->n_pages;
        plan->pages[leaf].selected = sel;
        plan->pages[leaf].page_offsets = pi->page_offsets;
        plan->pages[leaf].first_row_index = pi->page_first_row;
    }
    plan->want = keep;
    plan->n_want = want.n;
    plan->rows = basalt_parquet_ranges_rows(&want);
done:
    basalt_parquet_ranges_reset(&want);
    basalt_parquet_ranges_reset(&m);
    basalt_parquet_ranges_reset(&tmp);
    return st;
}

basalt_status basalt_parquet_scan_plan(struct basalt_parquet_scan *scan, int32_t rg,
                                       struct basalt_parquet_rg_plan *plan, bool *skip,
                                       struct basalt_error *err)
{
    const struct basalt_parquet_reader *r = scan->reader;
    memset(plan, 0, sizeof *plan);
    plan->row_group = rg;
    plan->rows = r->md.row_groups[rg].num_rows;
    *skip = false;
    if (plan->rows == 0) {
        *skip = true;
        return BASALT_OK;
    }
    basalt_status st;
    /* Encrypted or external predicate columns: their metadata is not here. */
    for (int32_t i = 0; i < scan->n_preds; i++) {
        const struct basalt_parquet_column_metadata *m = NULL;
        st = basalt_parquet_reader_chunk_meta(r, rg, scan->preds[i].leaf, &m, err);
        if (st != BASALT_OK)
            return basalt_parquet_reader_context(r, rg, scan->preds[i].leaf, st, err);
    }
    if (scan->options.use_statistics) {
        for (int32_t i = 0; i < scan->n_preds; i++) {
            if (stats_exclude(scan, rg, &scan->preds[i])) {
                scan->stats.row_groups_pruned_stats++;
                *skip = true;
                return BASALT_OK;
            }
        }
    }
    if (scan->options.use_bloom_filters) {
        for (int32_t i = 0; i < scan->n_preds; i++) {
            bool absent = false;
            st = basalt_parquet_bloom_excludes(r, rg, &scan->preds[i], &absent, err);
            if (st != BASALT_OK)
                return basalt_parquet_reader_context(r, rg, scan->preds[i].leaf, st, err);
            if (absent) {
                scan->stats.row_groups_pruned_bloom++;
                *skip = true;
                return BASALT_OK;
            }
        }
    }
    if (scan->options.use_page_index && scan->n_preds > 0) {
        bool pruned = false;
        st = plan_pages(scan, rg, plan, &pruned, err);
        if (st != BASALT_OK)
            return st;
        if (pruned) {
            scan->stats.row_groups_pruned_pages++;
            *skip = true;
        }
    }
    return BASALT_OK;
}
