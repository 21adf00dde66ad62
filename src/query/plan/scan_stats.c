/* The statistics a caller reports after a run: what the scans of a plan
 * kept, read and passed on (taxibench's `files` and `rows_scanned`). */
#include <string.h>

#include "plan/plan_internal.h"

static bool is_scan(const struct basalt_qplan *n)
{
    switch (n->kind) {
    case QPLAN_SCAN_PARQUET:
    case QPLAN_SCAN_CSV:
    case QPLAN_SCAN_JSON:
    case QPLAN_SCAN_IPC:
    case QPLAN_SCAN_ICEBERG:
        return true;
    default:
        return false;
    }
}

static void walk(const struct basalt_qplan *n, const struct basalt_qplan *parent,
                 struct basalt_qplan_scan_stats *out)
{
    if (is_scan(n)) {
        int64_t rows = atomic_load(&n->rows_out);
        out->files += n->files_kept;
        out->files_pruned += n->files_pruned;
        out->plan_ms += n->plan_ms;
        out->rows_read += rows;
        out->rows_scanned += parent != NULL && parent->kind == QPLAN_FILTER
                                 ? atomic_load(&parent->rows_out)
                                 : rows;
    }
    for (int i = 0; i < 2; i++)
        if (n->child[i] != NULL)
            walk(n->child[i], n, out);
    for (int i = 0; i < n->n_children; i++)
        walk(n->children[i], n, out);
}

void basalt_qplan_scan_stats(const struct basalt_qplan *root, struct basalt_qplan_scan_stats *out)
{
    memset(out, 0, sizeof *out);
    if (root != NULL)
        walk(root, NULL, out);
}
