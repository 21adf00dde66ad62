/* Rows spread over partition files: what GROUP BY and the hash join spill
 * with under a memory limit. */
#include <string.h>

#include "spill/spill.h"

basalt_status basalt_qspill_write_partitioned(const struct ArrowSchema *schema,
                                             const struct ArrowArray *src, const uint8_t *part,
                                             int64_t n, const char *dir,
                                             struct basalt_qspill_file **files,
                                             pthread_mutex_t *locks, struct basalt_error *err)
{
    if (n == 0)
        return BASALT_OK;
    int64_t *idx = basalt_malloc((size_t)n * sizeof *idx);
    if (idx == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int64_t start[BASALT_QSPILL_PARTS + 1] = {0}, at[BASALT_QSPILL_PARTS];
    for (int64_t i = 0; i < n; i++)
        start[part[i] + 1]++;
    for (int p = 0; p < BASALT_QSPILL_PARTS; p++) {
        start[p + 1] += start[p];
        at[p] = start[p];
    }
    for (int64_t i = 0; i < n; i++)
        idx[at[part[i]]++] = i;
    struct ArrowArray sorted;
    memset(&sorted, 0, sizeof sorted);
    basalt_status st = basalt_arrow_take(schema, src, idx, n, &sorted, err);
    for (int p = 0; p < BASALT_QSPILL_PARTS && st == BASALT_OK; p++) {
        if (start[p + 1] == start[p])
            continue;
        struct ArrowArray slice = sorted;
        slice.offset = sorted.offset + start[p];
        slice.length = start[p + 1] - start[p];
        if (locks != NULL)
            pthread_mutex_lock(&locks[p]);
        if (files[p] == NULL)
            st = basalt_qspill_file_new(dir, schema, &files[p], err);
        if (st == BASALT_OK)
            st = basalt_qspill_file_write(files[p], &slice, err);
        if (locks != NULL)
            pthread_mutex_unlock(&locks[p]);
    }
    if (sorted.release != NULL)
        basalt_arrow_array_release(&sorted);
    basalt_free(idx);
    return st;
}
