/* The radix sort on normalised keys: most significant byte first, bytes
 * that are equal in every record skipped, ranges of at most 32 records (or
 * whose key bytes are used up) sorted by comparison. Scatters ping-pong
 * between the records and a scratch array. In parallel, the first varying
 * byte is scattered by chunks and its 256 buckets are sorted by the
 * workers. The records' total order (the tag breaks every tie) makes the
 * result independent of how the work is split. */
#include <string.h>

#include "sort/sort_impl.h"

#define SMALL 32
#define CHUNK 65536
#define MAXS (64 + 2)

static inline unsigned byte_at(const uint64_t *r, int i)
{
    return (unsigned)(r[i >> 3] >> (56 - 8 * (i & 7))) & 0xffu;
}

void basalt_qs_ctx_init(struct qs_ctx *c, const struct basalt_qsort *s, const struct qs_layout *lay,
                        const struct ArrowArray *arr)
{
    memset(c, 0, sizeof *c);
    c->s = s;
    c->lay = lay;
    c->arr = arr;
    c->K = lay->K;
    c->S = lay->K + 2;
    /* Without a tail the tag is the last key: radix it too. */
    c->nbytes = lay->tail_from >= 0 ? 8 * c->K : 8 * c->K + 8;
}

static void small_sort(struct qs_ctx *c, uint64_t *a, int64_t n, int from)
{
    int S = c->S;
    uint64_t t[MAXS], piv[MAXS];
    while (n > 16) {
        /* Median of three as the pivot, Hoare partition, loop on the larger side. */
        uint64_t *x = a, *y = a + (size_t)(n / 2) * (size_t)S, *z = a + (size_t)(n - 1) * (size_t)S;
        const uint64_t *m;
        if (basalt_qs_cmp(c, x, y, from) < 0)
            m = basalt_qs_cmp(c, y, z, from) < 0 ? y : (basalt_qs_cmp(c, x, z, from) < 0 ? z : x);
        else
            m = basalt_qs_cmp(c, x, z, from) < 0 ? x : (basalt_qs_cmp(c, y, z, from) < 0 ? z : y);
        basalt_qs_rcopy(piv, m, S);
        int64_t i = -1, j = n;
        for (;;) {
            do
                i++;
            while (basalt_qs_cmp(c, a + (size_t)i * (size_t)S, piv, from) < 0);
            do
                j--;
            while (basalt_qs_cmp(c, a + (size_t)j * (size_t)S, piv, from) > 0);
            if (i >= j)
                break;
            basalt_qs_rcopy(t, a + (size_t)i * (size_t)S, S);
            basalt_qs_rcopy(a + (size_t)i * (size_t)S, a + (size_t)j * (size_t)S, S);
            basalt_qs_rcopy(a + (size_t)j * (size_t)S, t, S);
        }
        int64_t left = j + 1;
        if (left < n - left) {
            small_sort(c, a, left, from);
            a += (size_t)left * (size_t)S;
            n -= left;
        } else {
            small_sort(c, a + (size_t)left * (size_t)S, n - left, from);
            n = left;
        }
    }
    for (int64_t i = 1; i < n; i++) {
        basalt_qs_rcopy(t, a + (size_t)i * (size_t)S, S);
        int64_t j = i;
        while (j > 0 && basalt_qs_cmp(c, a + (size_t)(j - 1) * (size_t)S, t, from) > 0) {
            basalt_qs_rcopy(a + (size_t)j * (size_t)S, a + (size_t)(j - 1) * (size_t)S, S);
            j--;
        }
        basalt_qs_rcopy(a + (size_t)j * (size_t)S, t, S);
    }
}

/* Sorts n records in a from byte `depth` on; the result ends in a when
 * to_a, else in b. */
static void rsort(struct qs_ctx *c, uint64_t *a, uint64_t *b, int64_t n, int depth, bool to_a)
{
    int S = c->S;
    size_t rb = (size_t)S * 8;
    for (;;) {
        while (depth < c->nbytes && c->constant[depth])
            depth++;
        if (n <= SMALL || depth >= c->nbytes) {
            small_sort(c, a, n, depth >= c->nbytes ? c->K : depth >> 3);
            if (!to_a)
                memcpy(b, a, (size_t)n * rb);
            return;
        }
        int64_t cnt[256];
        memset(cnt, 0, sizeof cnt);
        for (int64_t r = 0; r < n; r++)
            cnt[byte_at(a + (size_t)r * (size_t)S, depth)]++;
        if (cnt[byte_at(a, depth)] == n) {
            depth++;
            continue;
        }
        int64_t pos[256], run = 0;
        for (int k = 0; k < 256; k++) {
            pos[k] = run;
            run += cnt[k];
        }
        for (int64_t r = 0; r < n; r++) {
            const uint64_t *src = a + (size_t)r * (size_t)S;
            basalt_qs_rcopy(b + (size_t)(pos[byte_at(src, depth)]++) * (size_t)S, src, S);
        }
        c->passes++;
        run = 0;
        for (int k = 0; k < 256; k++) {
            if (cnt[k])
                rsort(c, b + (size_t)run * (size_t)S, a + (size_t)run * (size_t)S, cnt[k], depth + 1,
                      !to_a);
            run += cnt[k];
        }
        return;
    }
}

struct par {
    struct qs_ctx *c;
    struct qs_ctx *wc; /* per worker */
    uint64_t *rec, *tmp;
    int64_t n, n_chunks;
    uint64_t *or_, *and_; /* [chunk][K + 1] */
    int depth;
    int64_t *hist;        /* [chunk][256] counts, then positions */
    int64_t bstart[257];
};

static void bits_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct par *p = ctx;
    int S = p->c->S, W = p->c->K + 1;
    for (int64_t ch = begin; ch < end; ch++) {
        int64_t lo = ch * CHUNK, hi = lo + CHUNK < p->n ? lo + CHUNK : p->n;
        uint64_t *o = p->or_ + (size_t)ch * (size_t)W, *a = p->and_ + (size_t)ch * (size_t)W;
        for (int w = 0; w < W; w++) {
            o[w] = 0;
            a[w] = ~0ull;
        }
        for (int64_t r = lo; r < hi; r++) {
            const uint64_t *x = p->rec + (size_t)r * (size_t)S;
            for (int w = 0; w < W; w++) {
                o[w] |= x[w];
                a[w] &= x[w];
            }
        }
    }
}

static void hist_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct par *p = ctx;
    int S = p->c->S;
    for (int64_t ch = begin; ch < end; ch++) {
        int64_t lo = ch * CHUNK, hi = lo + CHUNK < p->n ? lo + CHUNK : p->n;
        int64_t *h = p->hist + (size_t)ch * 256;
        memset(h, 0, 256 * sizeof *h);
        for (int64_t r = lo; r < hi; r++)
            h[byte_at(p->rec + (size_t)r * (size_t)S, p->depth)]++;
    }
}

static void scatter_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct par *p = ctx;
    int S = p->c->S;
    for (int64_t ch = begin; ch < end; ch++) {
        int64_t lo = ch * CHUNK, hi = lo + CHUNK < p->n ? lo + CHUNK : p->n;
        int64_t *pos = p->hist + (size_t)ch * 256;
        for (int64_t r = lo; r < hi; r++) {
            const uint64_t *src = p->rec + (size_t)r * (size_t)S;
            basalt_qs_rcopy(p->tmp + (size_t)(pos[byte_at(src, p->depth)]++) * (size_t)S, src, S);
        }
    }
}

static void bucket_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    struct par *p = ctx;
    struct qs_ctx *c = &p->wc[worker];
    int S = c->S;
    for (int64_t k = begin; k < end; k++) {
        int64_t lo = p->bstart[k], n = p->bstart[k + 1] - lo;
        if (n > 0)
            rsort(c, p->tmp + (size_t)lo * (size_t)S, p->rec + (size_t)lo * (size_t)S, n,
                  p->depth + 1, false);
    }
}

void basalt_qs_sort(struct qs_ctx *c, uint64_t *rec, uint64_t *tmp, int64_t n,
                    struct basalt_pool *pool)
{
    if (n <= 1)
        return;
    struct par p;
    memset(&p, 0, sizeof p);
    p.c = c;
    p.rec = rec;
    p.tmp = tmp;
    p.n = n;
    p.n_chunks = (n + CHUNK - 1) / CHUNK;
    int W = c->K + 1;
    p.or_ = basalt_malloc((size_t)p.n_chunks * (size_t)W * 8);
    p.and_ = basalt_malloc((size_t)p.n_chunks * (size_t)W * 8);
    int workers = basalt_pool_workers(pool);
    p.wc = basalt_malloc((size_t)workers * sizeof *p.wc);
    p.hist = basalt_malloc((size_t)p.n_chunks * 256 * sizeof *p.hist);
    if (!p.or_ || !p.and_ || !p.wc || !p.hist) {
        /* No scratch for the parallel path: sort on this thread. */
        basalt_free(p.or_);
        basalt_free(p.and_);
        basalt_free(p.wc);
        basalt_free(p.hist);
        rsort(c, rec, tmp, n, 0, true);
        return;
    }
    basalt_pool_parallel_for(pool, 0, p.n_chunks, 1, bits_task, &p);
    for (int w = 0; w < W; w++) {
        uint64_t o = 0, a = ~0ull;
        for (int64_t ch = 0; ch < p.n_chunks; ch++) {
            o |= p.or_[(size_t)ch * (size_t)W + (size_t)w];
            a &= p.and_[(size_t)ch * (size_t)W + (size_t)w];
        }
        for (int b = 0; b < 8; b++) {
            int i = 8 * w + b;
            if (i < c->nbytes)
                c->constant[i] = (((o ^ a) >> (56 - 8 * b)) & 0xff) == 0;
        }
    }
    int depth = 0;
    while (depth < c->nbytes && c->constant[depth])
        depth++;
    c->skipped += depth;
    if (workers <= 1 || n < 2 * CHUNK || depth >= c->nbytes) {
        rsort(c, rec, tmp, n, depth, true);
    } else {
        p.depth = depth;
        basalt_pool_parallel_for(pool, 0, p.n_chunks, 1, hist_task, &p);
        int64_t run = 0;
        for (int k = 0; k < 256; k++) {
            p.bstart[k] = run;
            for (int64_t ch = 0; ch < p.n_chunks; ch++) {
                int64_t *h = &p.hist[(size_t)ch * 256 + (size_t)k];
                int64_t cnt = *h;
                *h = run;
                run += cnt;
            }
        }
        p.bstart[256] = run;
        basalt_pool_parallel_for(pool, 0, p.n_chunks, 1, scatter_task, &p);
        c->passes++;
        for (int w = 0; w < workers; w++) {
            p.wc[w] = *c;
            p.wc[w].passes = p.wc[w].skipped = p.wc[w].ties = 0;
        }
        basalt_pool_parallel_for(pool, 0, 256, 1, bucket_task, &p);
        for (int w = 0; w < workers; w++) {
            c->passes += p.wc[w].passes;
            c->ties += p.wc[w].ties;
        }
    }
    basalt_free(p.or_);
    basalt_free(p.and_);
    basalt_free(p.wc);
    basalt_free(p.hist);
}
