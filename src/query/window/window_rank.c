/* The ranking functions over one partition. They ignore the frame, as
 * DuckDB's do; ranks come from the peer groups (rows whose order keys are
 * equal), NTILE from the row's position. */
#include "window/window_impl.h"

void basalt_qw_rank(struct qw_run *r, struct qw_call *k, int64_t s, int64_t e)
{
    const uint8_t *bnd = r->bnd;
    /* In a stretch, the partition's rows and peer groups before the held
     * ones, and its size (known when NTILE, PERCENT_RANK or CUME_DIST is
     * computed in stretches). */
    int64_t before = r->carry ? r->carry->first : 0, dense = r->carry ? r->carry->dense : 0;
    int64_t n = r->carry && r->carry->rows > 0 ? r->carry->rows : e - s;
    int64_t *iv = k->vals;
    double *dv = k->vals;
    switch (k->c->fn) {
    case BASALT_QPLAN_WIN_ROW_NUMBER:
        for (int64_t i = s; i < e; i++)
            iv[i] = before + i - s + 1;
        return;
    case BASALT_QPLAN_WIN_NTILE: {
        /* DuckDB's split: the first n % buckets tiles hold one row more. */
        int64_t buckets = k->c->offset > n ? n : k->c->offset;
        int64_t size = n / buckets, large = n - buckets * size, small_from = large * (size + 1);
        for (int64_t i = s; i < e; i++) {
            int64_t j = before + i - s;
            iv[i] = j < small_from ? 1 + j / (size + 1) : 1 + large + (j - small_from) / size;
        }
        return;
    }
    default:
        break;
    }
    for (int64_t lo = s; lo < e;) {
        int64_t hi = basalt_qw_peer_end(bnd, lo, e);
        dense++;
        for (int64_t i = lo; i < hi; i++) {
            switch (k->c->fn) {
            case BASALT_QPLAN_WIN_RANK: iv[i] = before + lo - s + 1; break;
            case BASALT_QPLAN_WIN_DENSE_RANK: iv[i] = dense; break;
            case BASALT_QPLAN_WIN_PERCENT_RANK:
                dv[i] = n > 1 ? (double)(before + lo - s) / (double)(n - 1) : 0.0;
                break;
            case BASALT_QPLAN_WIN_CUME_DIST: dv[i] = (double)(before + hi - s) / (double)n; break;
            default: break;
            }
        }
        lo = hi;
    }
}
