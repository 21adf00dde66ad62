/* EXPLAIN: the plan as an indented tree, one operator per line; after a run
 * (EXPLAIN ANALYZE) with the rows each produced and the time of the
 * operators that ran to completion. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plan/plan_internal.h"

struct out {
    char *buf;
    size_t cap, len;
};

static void put(struct out *o, const char *fmt, ...) BASALT_PRINTF(2, 3);
static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *dst = o->len < o->cap ? o->buf + o->len : NULL;
    size_t room = o->len < o->cap ? o->cap - o->len : 0;
    int n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

static const char *join_name(enum basalt_qplan_join_type t)
{
    static const char *names[] = {"INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI", "CROSS"};
    return (unsigned)t < 7 ? names[t] : "?";
}

static void columns(struct out *o, const struct ArrowSchema *s)
{
    put(o, " [");
    for (int64_t i = 0; i < s->n_children; i++)
        put(o, "%s%s", i ? ", " : "", s->children[i]->name ? s->children[i]->name : "");
    put(o, "]");
}

static void node_line(struct out *o, const struct basalt_qplan *n)
{
    switch (n->kind) {
    case QPLAN_SCAN_PARQUET:
        put(o, "PARQUET_SCAN %zu file%s", n->scan.n_paths, n->scan.n_paths == 1 ? "" : "s");
        columns(o, &n->schema);
        if (n->scan.n_pushed > 0)
            put(o, " pushed=%d", (int)n->scan.n_pushed);
        break;
    case QPLAN_SCAN_ICEBERG:
        put(o, "ICEBERG_SCAN");
        columns(o, &n->schema);
        if (n->scan.n_pushed > 0)
            put(o, " pushed=%d", (int)n->scan.n_pushed);
        break;
    case QPLAN_SCAN_CSV: put(o, "CSV_SCAN %s", n->scan.path); break;
    case QPLAN_SCAN_JSON: put(o, "JSON_SCAN %s", n->scan.path); break;
    case QPLAN_SCAN_IPC: put(o, "IPC_SCAN %s", n->scan.path); break;
    case QPLAN_VALUES:
        put(o, "VALUES");
        if (n->scan.label != NULL)
            put(o, " (%s)", n->scan.label);
        break;
    case QPLAN_SERIES:
        put(o, "SERIES");
        columns(o, &n->schema);
        break;
    case QPLAN_FILTER: put(o, "FILTER"); break;
    case QPLAN_PROJECT: put(o, "PROJECTION"); columns(o, &n->schema); break;
    case QPLAN_AGGREGATE:
        put(o, "HASH_GROUP_BY keys=%d aggregates=%d", n->n_exprs, n->n_calls);
        break;
    case QPLAN_JOIN:
        put(o, "HASH_JOIN %s keys=%d%s%s", join_name(n->join_type), n->n_join_keys,
            n->build_left ? " build=left" : "", n->residual != NULL ? " residual" : "");
        /* narrowed by the optimiser: the columns it gathers for the pairs */
        if (n->join_keep != NULL)
            columns(o, &n->schema);
        break;
    case QPLAN_SORT:
        if (n->limit >= 0)
            put(o, "TOP_N %lld offset=%lld", (long long)n->limit, (long long)n->offset);
        else
            put(o, "ORDER_BY keys=%d", n->n_sort_keys);
        break;
    case QPLAN_LIMIT:
        put(o, "LIMIT %lld offset=%lld", (long long)n->limit, (long long)n->offset);
        break;
    case QPLAN_UNION_ALL: put(o, "UNION_ALL"); break;
    case QPLAN_UNNEST: put(o, "UNNEST lists=%d", n->n_unnest); break;
    case QPLAN_WINDOW:
        put(o, "WINDOW partitions=%d order=%d functions=%d", n->n_part, n->n_sort_keys,
            n->n_wcalls);
        if (n->has_row_limit)
            put(o, " row_limit=%lld", (long long)n->row_limit);
        put(o, " [");
        for (int i = 0; i < n->n_wcalls; i++)
            put(o, "%s%s", i ? ", " : "", n->wcalls[i].name);
        put(o, "]");
        break;
    }
}

static void walk(struct out *o, const struct basalt_qplan *n, int depth, bool analyze)
{
    put(o, "%*s", depth * 2, "");
    node_line(o, n);
    if (analyze) {
        put(o, " rows=%lld", (long long)atomic_load(&n->rows_out));
        if (atomic_load(&n->morsels_pruned) > 0)
            put(o, " pruned=%lld", (long long)atomic_load(&n->morsels_pruned));
        if (n->files_kept > 0)
            put(o, " files=%lld", (long long)n->files_kept);
        if (atomic_load(&n->morsels_direct) > 0)
            put(o, " direct=%lld", (long long)atomic_load(&n->morsels_direct));
        if (atomic_load(&n->batches_unfiltered) > 0)
            put(o, " unfiltered=%lld", (long long)atomic_load(&n->batches_unfiltered));
        if (n->has_row_limit)
            put(o, " rows_pruned=%lld rows_cut=%lld prunings=%lld pruned_by=%s",
                (long long)n->rows_pruned, (long long)n->rows_cut, (long long)n->prunings,
                n->live_pruning ? "table" : "sort");
        if (n->topk_workers > 0)
            put(o, " topk_workers=%lld", (long long)n->topk_workers);
        if (n->dict_batches > 0)
            put(o, " dictionary_batches=%lld", (long long)n->dict_batches);
        if (n->dict_map_batches > 0)
            put(o, " dictionary_map_batches=%lld", (long long)n->dict_map_batches);
        if (n->spill_runs > 0)
            put(o, " spilled_runs=%lld", (long long)n->spill_runs);
        if (n->spill_merge_passes > 0)
            put(o, " merge_passes=%lld", (long long)n->spill_merge_passes);
        if (n->spill_partitions > 0)
            put(o, " spilled_partitions=%lld", (long long)n->spill_partitions);
        if (n->window_stretches > 0)
            put(o, " stretches=%lld", (long long)n->window_stretches);
        if (n->spill_splits > 0)
            put(o, " spill_splits=%lld", (long long)n->spill_splits);
        if (n->spill_blocks > 0)
            put(o, " spilled_blocks=%lld", (long long)n->spill_blocks);
        if (n->spill_rows > 0)
            put(o, " spilled_rows=%lld spilled_bytes=%lld", (long long)n->spill_rows,
                (long long)n->spill_bytes);
        if (n->ms > 0)
            put(o, " time=%.2fms", n->ms);
    }
    put(o, "\n");
    for (int i = 0; i < 2; i++)
        if (n->child[i] != NULL)
            walk(o, n->child[i], depth + 1, analyze);
    for (int i = 0; i < n->n_children; i++)
        walk(o, n->children[i], depth + 1, analyze);
}

size_t basalt_qplan_explain(const struct basalt_qplan *root, bool analyze, char *buf, size_t cap)
{
    struct out o = {buf, cap, 0};
    if (cap > 0)
        buf[0] = '\0';
    if (root != NULL)
        walk(&o, root, 0, analyze);
    return o.len;
}
