/* The join table: every build row with a non-NULL key is an entry, entries
 * are grouped by bucket and, within a bucket, kept in build input order, so
 * a probe lists its matches in build order without sorting. The grouping is
 * a stable two-level counting sort (by the bucket's high bits into
 * partitions, chunk by chunk, then by bucket within each partition), which
 * runs in parallel and gives the same table for any worker count. */
#include <string.h>

#include "join/join_impl.h"

#define CHUNK 65536
#define NONE UINT32_MAX
#define INT_MUL 0x9e3779b97f4a7c15ull

struct bt {
    struct basalt_qjoin *j;
    int64_t n, n_chunks;
    struct qj_col *kc; /* build key columns */
    uint64_t *hv;      /* HASHED: hash per row */
    uint32_t *bucket;  /* per row; NONE: a NULL key */
    uint32_t *tmp;     /* rows in partition order */
    int pshift, n_parts;
    uint32_t *hist;    /* [chunk][partition] counts, then starts */
    uint32_t *pbegin;  /* n_parts + 1 */
    int64_t *cmin, *cmax; /* per chunk (DIRECT candidates) */
    uint8_t *cany;
};

static int ceil_log2(uint64_t x)
{
    int b = 0;
    while (b < 63 && (1ull << b) < x)
        b++;
    return b;
}

static void minmax_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct bt *t = ctx;
    bool uns = t->j->int_unsigned;
    for (int64_t c = begin; c < end; c++) {
        int64_t lo = c * CHUNK, hi = lo + CHUNK < t->n ? lo + CHUNK : t->n;
        int64_t mn = 0, mx = 0;
        bool any = false;
        for (int64_t i = lo; i < hi; i++) {
            if (!basalt_qj_valid(&t->kc[0], i))
                continue;
            int64_t v = basalt_qj_int(&t->kc[0], i);
            if (!any) {
                mn = mx = v;
                any = true;
            } else if (uns) {
                if ((uint64_t)v < (uint64_t)mn) mn = v;
                if ((uint64_t)v > (uint64_t)mx) mx = v;
            } else {
                if (v < mn) mn = v;
                if (v > mx) mx = v;
            }
        }
        t->cmin[c] = mn;
        t->cmax[c] = mx;
        t->cany[c] = any;
    }
}

static void bucket_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct bt *t = ctx;
    struct basalt_qjoin *j = t->j;
    for (int64_t c = begin; c < end; c++) {
        int64_t lo = c * CHUNK, hi = lo + CHUNK < t->n ? lo + CHUNK : t->n;
        if (j->table == BASALT_QJOIN_TABLE_HASHED) {
            uint8_t null[CHUNK];
            memset(null, 0, (size_t)(hi - lo));
            uint64_t *h = t->hv + lo;
            for (int64_t i = lo; i < hi; i++)
                h[i - lo] = 0;
            for (int k = 0; k < j->n_keys; k++)
                basalt_qj_hash_col(&t->kc[k], lo, hi, h, null);
            for (int64_t i = lo; i < hi; i++)
                t->bucket[i] = null[i - lo] ? NONE : (uint32_t)(h[i - lo] >> j->shift);
        } else {
            for (int64_t i = lo; i < hi; i++) {
                if (!basalt_qj_valid(&t->kc[0], i)) {
                    t->bucket[i] = NONE;
                    continue;
                }
                int64_t v = basalt_qj_int(&t->kc[0], i);
                t->bucket[i] = j->table == BASALT_QJOIN_TABLE_DIRECT
                                   ? (uint32_t)((uint64_t)v - (uint64_t)j->dmin)
                                   : (uint32_t)(((uint64_t)v * INT_MUL) >> j->shift);
            }
        }
        uint32_t *hist = t->hist + (size_t)c * (size_t)t->n_parts;
        memset(hist, 0, (size_t)t->n_parts * sizeof *hist);
        for (int64_t i = lo; i < hi; i++)
            if (t->bucket[i] != NONE)
                hist[t->bucket[i] >> t->pshift]++;
    }
}

static void scatter_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct bt *t = ctx;
    for (int64_t c = begin; c < end; c++) {
        int64_t lo = c * CHUNK, hi = lo + CHUNK < t->n ? lo + CHUNK : t->n;
        uint32_t *pos = t->hist + (size_t)c * (size_t)t->n_parts;
        for (int64_t i = lo; i < hi; i++)
            if (t->bucket[i] != NONE)
                t->tmp[pos[t->bucket[i] >> t->pshift]++] = (uint32_t)i;
    }
}

static void partition_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct bt *t = ctx;
    struct basalt_qjoin *j = t->j;
    for (int64_t p = begin; p < end; p++) {
        uint64_t blo = (uint64_t)p << t->pshift, bhi = (uint64_t)(p + 1) << t->pshift;
        if (bhi > j->n_buckets)
            bhi = j->n_buckets;
        if (blo >= bhi)
            continue;
        uint32_t rb = t->pbegin[p], re = t->pbegin[p + 1];
        uint32_t *offs = j->offs;
        for (uint64_t b = blo; b < bhi; b++)
            offs[b] = 0;
        for (uint32_t k = rb; k < re; k++)
            offs[t->bucket[t->tmp[k]]]++;
        uint32_t run = rb;
        for (uint64_t b = blo; b < bhi; b++) {
            uint32_t c = offs[b];
            offs[b] = run;
            run += c;
        }
        for (uint32_t k = rb; k < re; k++) {
            uint32_t g = t->tmp[k];
            j->erow[offs[t->bucket[g]]++] = g;
        }
        /* offs[b] now ends bucket b: shift back to starts. */
        for (uint64_t b = bhi - 1; b > blo; b--)
            offs[b] = offs[b - 1];
        offs[blo] = rb;
        if (j->table == BASALT_QJOIN_TABLE_HASHED) {
            for (uint32_t e = rb; e < re; e++)
                j->ekey[e] = t->hv[j->erow[e]];
        } else if (j->table == BASALT_QJOIN_TABLE_INTEGER) {
            for (uint32_t e = rb; e < re; e++)
                j->ekey[e] = (uint64_t)basalt_qj_int(&t->kc[0], j->erow[e]);
        }
    }
}

basalt_status basalt_qj_build_table(struct basalt_qjoin *j, struct basalt_pool *pool,
                                    struct basalt_error *err)
{
    int64_t n = j->n_build;
    if (j->type == BASALT_QJOIN_RIGHT || j->type == BASALT_QJOIN_FULL ||
        j->type == BASALT_QJOIN_RIGHT_SEMI || j->type == BASALT_QJOIN_RIGHT_ANTI) {
        j->matched = basalt_calloc((size_t)(n ? n : 1), sizeof *j->matched);
        if (!j->matched)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    if (j->n_keys == 0) {
        j->table = BASALT_QJOIN_TABLE_NONE;
        return BASALT_OK;
    }
    struct bt t;
    memset(&t, 0, sizeof t);
    t.j = j;
    t.n = n;
    t.n_chunks = (n + CHUNK - 1) / CHUNK;
    basalt_status st = BASALT_OK;
    t.kc = basalt_calloc((size_t)j->n_keys, sizeof *t.kc);
    if (!t.kc)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (n > 0)
        for (int k = 0; k < j->n_keys; k++)
            basalt_qj_col_init(&t.kc[k], &j->build, j->build_keys[k], j->kt[k],
                               j->build_schema.children[j->build_keys[k]]->format);
    bool integer = j->n_keys == 1 && (j->kt[0].kind == QJK_INT || j->kt[0].kind == QJK_UINT);
    j->int_width = j->kt[0].width;
    j->int_unsigned = j->kt[0].kind == QJK_UINT;
    j->table = integer ? BASALT_QJOIN_TABLE_INTEGER : BASALT_QJOIN_TABLE_HASHED;
    if (n == 0) {
        j->n_buckets = 1;
        j->shift = 63;
        j->offs = basalt_calloc(2, sizeof *j->offs);
        basalt_free(t.kc);
        return j->offs ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    t.cmin = basalt_malloc((size_t)t.n_chunks * sizeof *t.cmin);
    t.cmax = basalt_malloc((size_t)t.n_chunks * sizeof *t.cmax);
    t.cany = basalt_malloc((size_t)t.n_chunks);
    if (!t.cmin || !t.cmax || !t.cany) {
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        goto done;
    }
    if (integer) {
        basalt_pool_parallel_for(pool, 0, t.n_chunks, 1, minmax_task, &t);
        int64_t mn = 0, mx = 0;
        bool any = false;
        for (int64_t c = 0; c < t.n_chunks; c++) {
            if (!t.cany[c])
                continue;
            if (!any) {
                mn = t.cmin[c];
                mx = t.cmax[c];
                any = true;
            } else if (j->int_unsigned) {
                if ((uint64_t)t.cmin[c] < (uint64_t)mn) mn = t.cmin[c];
                if ((uint64_t)t.cmax[c] > (uint64_t)mx) mx = t.cmax[c];
            } else {
                if (t.cmin[c] < mn) mn = t.cmin[c];
                if (t.cmax[c] > mx) mx = t.cmax[c];
            }
        }
        uint64_t range = (uint64_t)mx - (uint64_t)mn; /* exact in two's complement */
        uint64_t cap = (uint64_t)(2 * n > 4096 ? 2 * n : 4096);
        if (any && range < cap && range < (1ull << 31)) {
            j->table = BASALT_QJOIN_TABLE_DIRECT;
            j->dmin = mn;
            j->n_buckets = range + 1;
        }
    }
    if (j->table != BASALT_QJOIN_TABLE_DIRECT) {
        int bits = ceil_log2((uint64_t)n) + 1;
        if (bits < 1)
            bits = 1;
        if (bits > 31)
            bits = 31;
        j->n_buckets = 1ull << bits;
        j->shift = 64 - bits;
    }
    int nbits = ceil_log2(j->n_buckets);
    t.pshift = nbits > 8 ? nbits - 8 : 0;
    t.n_parts = (int)(((j->n_buckets - 1) >> t.pshift) + 1);
    t.bucket = basalt_malloc((size_t)n * sizeof *t.bucket);
    t.tmp = basalt_malloc((size_t)n * sizeof *t.tmp);
    t.hist = basalt_malloc((size_t)t.n_chunks * (size_t)t.n_parts * sizeof *t.hist);
    t.pbegin = basalt_malloc((size_t)(t.n_parts + 1) * sizeof *t.pbegin);
    j->offs = basalt_malloc((size_t)(j->n_buckets + 1) * sizeof *j->offs);
    j->erow = basalt_malloc((size_t)n * sizeof *j->erow);
    if (j->table == BASALT_QJOIN_TABLE_HASHED)
        t.hv = basalt_malloc((size_t)n * sizeof *t.hv);
    if (j->table != BASALT_QJOIN_TABLE_DIRECT)
        j->ekey = basalt_malloc((size_t)n * sizeof *j->ekey);
    if (!t.bucket || !t.tmp || !t.hist || !t.pbegin || !j->offs || !j->erow ||
        (j->table == BASALT_QJOIN_TABLE_HASHED && !t.hv) ||
        (j->table != BASALT_QJOIN_TABLE_DIRECT && !j->ekey)) {
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        goto done;
    }
    basalt_pool_parallel_for(pool, 0, t.n_chunks, 1, bucket_task, &t);
    uint32_t run = 0;
    for (int p = 0; p < t.n_parts; p++) {
        t.pbegin[p] = run;
        for (int64_t c = 0; c < t.n_chunks; c++) {
            uint32_t *h = &t.hist[(size_t)c * (size_t)t.n_parts + (size_t)p];
            uint32_t k = *h;
            *h = run;
            run += k;
        }
    }
    t.pbegin[t.n_parts] = run;
    basalt_pool_parallel_for(pool, 0, t.n_chunks, 1, scatter_task, &t);
    basalt_pool_parallel_for(pool, 0, t.n_parts, 1, partition_task, &t);
    j->offs[j->n_buckets] = run;
    if (j->table == BASALT_QJOIN_TABLE_DIRECT) {
        bool unique = true;
        for (uint64_t b = 0; b < j->n_buckets && unique; b++)
            unique = j->offs[b + 1] - j->offs[b] <= 1;
        if (unique) {
            j->drow = basalt_malloc((size_t)j->n_buckets * sizeof *j->drow);
            if (!j->drow) {
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
                goto done;
            }
            for (uint64_t b = 0; b < j->n_buckets; b++)
                j->drow[b] = j->offs[b + 1] > j->offs[b] ? j->erow[j->offs[b]] : NONE;
        }
    }
done:
    basalt_free(t.kc);
    basalt_free(t.hv);
    basalt_free(t.bucket);
    basalt_free(t.tmp);
    basalt_free(t.hist);
    basalt_free(t.pbegin);
    basalt_free(t.cmin);
    basalt_free(t.cmax);
    basalt_free(t.cany);
    return st;
}
