/* --sort 1: groupby-datagen.R keys the table by id1..id6 (setkeyv), which
 * orders rows by those columns, NAs first, text in byte order. Here a
 * stable counting sort per column, least significant first, over the
 * columns' codes (0 for NA): six passes of O(rows), and a rank table for
 * id1/id2, whose "id%03d" texts leave numeric order from 1000 on. */
#include <stdlib.h>

#include "h2ogen.h"

static int by_text(const void *a, const void *b)
{
    char x[32], y[32];
    int lx = basalt_h2ogen_id(x, *(const int64_t *)a, 3);
    int ly = basalt_h2ogen_id(y, *(const int64_t *)b, 3);
    int c = memcmp(x, y, (size_t)(lx < ly ? lx : ly));
    return c != 0 ? c : lx - ly;
}

basalt_status basalt_h2ogen_groupby_sort(struct basalt_h2ogen_groupby *g,
                                         struct basalt_error *err)
{
    if (g->rows > (int64_t)UINT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "--sort 1 takes at most %lld rows",
                                (long long)UINT32_MAX);
    int64_t n = g->rows, most = g->k > g->groups ? g->k : g->groups;
    uint32_t *perm = basalt_malloc((size_t)n * sizeof *perm);
    uint32_t *tmp = basalt_malloc((size_t)n * sizeof *tmp);
    int64_t *count = basalt_malloc((size_t)(most + 2) * sizeof *count);
    /* rank[v] of the id1/id2 value v (1..K) in text order; 0 is NA. */
    int64_t *order = basalt_malloc((size_t)g->k * sizeof *order);
    int64_t *rank = basalt_malloc((size_t)(g->k + 1) * sizeof *rank);
    if (perm == NULL || tmp == NULL || count == NULL || order == NULL || rank == NULL) {
        basalt_free(perm);
        basalt_free(tmp);
        basalt_free(count);
        basalt_free(order);
        basalt_free(rank);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory sorting %lld rows",
                                (long long)n);
    }
    for (int64_t v = 0; v < g->k; v++)
        order[v] = v + 1;
    qsort(order, (size_t)g->k, sizeof *order, by_text);
    rank[0] = 0;
    for (int64_t i = 0; i < g->k; i++)
        rank[order[i]] = i + 1;
    for (int64_t i = 0; i < n; i++)
        perm[i] = (uint32_t)i;
    for (int c = 5; c >= 0; c--) {
        int64_t d = (c == 2 || c == 5 ? g->groups : g->k) + 1;
        memset(count, 0, (size_t)(d + 1) * sizeof *count);
        for (int64_t i = 0; i < n; i++) {
            int64_t v = basalt_h2ogen_groupby_code(g, c, perm[i]);
            count[(c < 2 ? rank[v] : v) + 1]++;
        }
        for (int64_t v = 1; v <= d; v++)
            count[v] += count[v - 1];
        for (int64_t i = 0; i < n; i++) {
            int64_t v = basalt_h2ogen_groupby_code(g, c, perm[i]);
            tmp[count[c < 2 ? rank[v] : v]++] = perm[i];
        }
        uint32_t *t = perm;
        perm = tmp;
        tmp = t;
    }
    basalt_free(tmp);
    basalt_free(count);
    basalt_free(order);
    basalt_free(rank);
    g->perm = perm;
    return BASALT_OK;
}
