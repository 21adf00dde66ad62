/* Normalised sort keys: each key column becomes bytes whose unsigned,
 * most-significant-first order is the column's sort order, and the full
 * comparison used when the bytes of two rows tie (strings longer than
 * their prefix, and every key after the first string key). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "query_internal.h"
#include "sort/sort_impl.h"

#define PREFIX 8

basalt_status basalt_qs_key_init(const struct ArrowSchema *col, struct qs_key *k,
                                 struct basalt_error *err)
{
    struct basalt_query_type t;
    basalt_status st = basalt_query_type_from_format(col->format, &t, err);
    if (st != BASALT_OK)
        return st;
    k->large = t.large;
    switch (t.id) {
    case BASALT_QUERY_TYPE_INT8: k->kind = QSK_INT; k->width = 1; break;
    case BASALT_QUERY_TYPE_INT16: k->kind = QSK_INT; k->width = 2; break;
    case BASALT_QUERY_TYPE_INT32:
    case BASALT_QUERY_TYPE_DATE: k->kind = QSK_INT; k->width = 4; break;
    case BASALT_QUERY_TYPE_INT64:
    case BASALT_QUERY_TYPE_TIMESTAMP: case BASALT_QUERY_TYPE_TIME: k->kind = QSK_INT; k->width = 8; break;
    case BASALT_QUERY_TYPE_UINT8: k->kind = QSK_UINT; k->width = 1; break;
    case BASALT_QUERY_TYPE_UINT16: k->kind = QSK_UINT; k->width = 2; break;
    case BASALT_QUERY_TYPE_UINT32: k->kind = QSK_UINT; k->width = 4; break;
    case BASALT_QUERY_TYPE_UINT64: k->kind = QSK_UINT; k->width = 8; break;
    case BASALT_QUERY_TYPE_FLOAT: k->kind = QSK_FLOAT; k->width = 4; break;
    case BASALT_QUERY_TYPE_DOUBLE: k->kind = QSK_DOUBLE; k->width = 8; break;
    case BASALT_QUERY_TYPE_DECIMAL: k->kind = QSK_DEC; k->width = 16; break;
    case BASALT_QUERY_TYPE_BOOL: k->kind = QSK_BOOL; k->width = 1; break;
    case BASALT_QUERY_TYPE_INTERVAL: k->kind = QSK_INTERVAL; k->width = 16; break;
    case BASALT_QUERY_TYPE_STRING:
    case BASALT_QUERY_TYPE_BINARY: k->kind = QSK_BYTES; k->width = PREFIX; break;
    default:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "sort key '%s' of format '%s'",
                                col->name ? col->name : "", col->format);
    }
    return BASALT_OK;
}

void basalt_qs_layout(const struct qs_key *keys, int n_keys, const bool *nullable,
                      const int *prefix, struct qs_layout *lay)
{
    int pos = 0;
    lay->tail_from = -1;
    for (int k = 0; k < n_keys; k++) {
        if (lay->tail_from >= 0) {
            lay->off[k] = -1;
            lay->null_byte[k] = false;
            lay->width[k] = 0;
            continue;
        }
        bool bytes = keys[k].kind == QSK_BYTES;
        int w = bytes ? (prefix && prefix[k] != 0 ? abs(prefix[k]) : PREFIX) : keys[k].width;
        lay->off[k] = pos;
        lay->null_byte[k] = nullable[k];
        lay->width[k] = w;
        pos += (nullable[k] ? 1 : 0) + w;
        /* A prefix that may cut values does not decide the order: later keys
         * must not either. */
        if (bytes && !(prefix && prefix[k] < 0))
            lay->tail_from = k;
    }
    lay->bytes = pos;
    lay->K = (pos + 7) / 8;
    if (lay->K == 0)
        lay->K = 1;
}

static inline uint64_t float_bits(double d, bool single)
{
    /* -0.0 is 0.0, every NaN one NaN above +inf; then the sign-magnitude
     * flip that makes the bits order like the numbers. */
    if (single) {
        float f = (float)d;
        uint32_t u;
        if (f == 0)
            f = 0.0f;
        memcpy(&u, &f, 4);
        if (isnan(f))
            u = 0x7fc00000u;
        u = (u >> 31) ? ~u : (u | 0x80000000u);
        return u;
    }
    uint64_t u;
    if (d == 0)
        d = 0.0;
    memcpy(&u, &d, 8);
    if (isnan(d))
        u = 0x7ff8000000000000ull;
    return (u >> 63) ? ~u : (u | 0x8000000000000000ull);
}

uint64_t basalt_qs_float_image(double d, bool single) { return float_bits(d, single); }

static inline void put_be(uint8_t *p, uint64_t v, int w, uint8_t flip)
{
    for (int i = 0; i < w; i++)
        p[i] = (uint8_t)(v >> (8 * (w - 1 - i))) ^ flip;
}

static inline void bytes_at(const struct ArrowArray *c, bool large, int64_t i, const uint8_t **p,
                            int64_t *n)
{
    int64_t s, e;
    if (large) {
        s = ((const int64_t *)c->buffers[1])[i];
        e = ((const int64_t *)c->buffers[1])[i + 1];
    } else {
        s = ((const int32_t *)c->buffers[1])[i];
        e = ((const int32_t *)c->buffers[1])[i + 1];
    }
    *p = (const uint8_t *)c->buffers[2] + s;
    *n = e - s;
}

static inline int64_t int_at(const struct ArrowArray *c, const struct qs_key *k, int64_t i)
{
    const void *d = c->buffers[1];
    if (k->kind == QSK_INT) {
        switch (k->width) {
        case 1: return ((const int8_t *)d)[i];
        case 2: return ((const int16_t *)d)[i];
        case 4: return ((const int32_t *)d)[i];
        default: return ((const int64_t *)d)[i];
        }
    }
    switch (k->width) {
    case 1: return ((const uint8_t *)d)[i];
    case 2: return ((const uint16_t *)d)[i];
    case 4: return ((const uint32_t *)d)[i];
    default: return (int64_t)((const uint64_t *)d)[i];
    }
}

/* Interval i of c, normalised: its order is that of (months, days, nanos). */
static inline struct qinterval interval_at(const struct ArrowArray *c, int64_t i)
{
    struct qinterval iv;
    memcpy(&iv, (const uint8_t *)c->buffers[1] + 16 * i, 16);
    basalt_qinterval_normalize(&iv);
    return iv;
}

static void encode_key(const struct qs_key *k, int off, bool null_byte, int width,
                       const struct ArrowArray *a, int64_t first, int64_t n, uint8_t *img,
                       int stride_bytes)
{
    const struct ArrowArray *c = a->children[k->column];
    int64_t base = a->offset + c->offset + first;
    const uint8_t *valid = c->null_count != 0 ? c->buffers[0] : NULL;
    uint8_t flip = k->desc ? 0xff : 0;
    int voff = off + (null_byte ? 1 : 0);
    for (int64_t r = 0; r < n; r++) {
        uint8_t *p = img + (size_t)r * (size_t)stride_bytes;
        int64_t i = base + r;
        bool ok = !valid || basalt_bitmap_get(valid, i);
        if (null_byte)
            p[off] = ok ? (k->nulls_first ? 1 : 0) : (k->nulls_first ? 0 : 1);
        if (!ok)
            continue; /* value bytes stay zero: NULLs tie with each other */
        switch (k->kind) {
        case QSK_INT: {
            uint64_t v = (uint64_t)int_at(c, k, i) ^ (1ull << (8 * k->width - 1));
            put_be(p + voff, v, k->width, flip);
            break;
        }
        case QSK_UINT: put_be(p + voff, (uint64_t)int_at(c, k, i), k->width, flip); break;
        case QSK_FLOAT:
            put_be(p + voff, float_bits(((const float *)c->buffers[1])[i], true), 4, flip);
            break;
        case QSK_DOUBLE:
            put_be(p + voff, float_bits(((const double *)c->buffers[1])[i], false), 8, flip);
            break;
        case QSK_DEC: {
            uint64_t w[2];
            memcpy(w, (const uint8_t *)c->buffers[1] + 16 * i, 16);
            put_be(p + voff, w[1] ^ 0x8000000000000000ull, 8, flip);
            put_be(p + voff + 8, w[0], 8, flip);
            break;
        }
        case QSK_BOOL: p[voff] = (uint8_t)(basalt_bitmap_get(c->buffers[1], i) ^ flip); break;
        case QSK_INTERVAL: {
            struct qinterval iv = interval_at(c, i);
            put_be(p + voff, (uint32_t)iv.months ^ 0x80000000u, 4, flip);
            put_be(p + voff + 4, (uint32_t)iv.days ^ 0x80000000u, 4, flip);
            put_be(p + voff + 8, (uint64_t)iv.nanos ^ 0x8000000000000000ull, 8, flip);
            break;
        }
        default: {
            const uint8_t *s;
            int64_t len;
            bytes_at(c, k->large, i, &s, &len);
            int m = len < width ? (int)len : width;
            for (int b = 0; b < m; b++)
                p[voff + b] = s[b] ^ flip;
            for (int b = m; b < width; b++)
                p[voff + b] = flip;
            break;
        }
        }
    }
}

static void encode_rows(const struct basalt_qsort *s, const struct qs_layout *lay,
                        const struct ArrowArray *a, int64_t first, int64_t n, uint64_t tag_hi,
                        uint64_t ref, uint64_t *rec)
{
    int K = lay->K, S = K + 2;
    for (int64_t r = 0; r < n; r++)
        memset(rec + (size_t)r * (size_t)S, 0, (size_t)K * 8);
    for (int k = 0; k < s->n_keys; k++)
        if (lay->off[k] >= 0)
            encode_key(&s->keys[k], lay->off[k], lay->null_byte[k], lay->width[k], a, first, n,
                       (uint8_t *)rec, S * 8);
    for (int64_t r = 0; r < n; r++) {
        uint64_t *w = rec + (size_t)r * (size_t)S;
        for (int i = 0; i < K; i++) {
            /* The image is big-endian bytes: as a native word its order is numeric. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            w[i] = __builtin_bswap64(w[i]);
#endif
        }
        w[K] = (tag_hi << 32) | (uint64_t)(first + r);
        w[K + 1] = ref;
    }
}

void basalt_qs_encode(const struct basalt_qsort *s, const struct qs_layout *lay,
                      const struct ArrowArray *a, uint64_t tag_hi, uint64_t ref, uint64_t *rec)
{
    /* In slices that stay in cache between the passes. */
    for (int64_t lo = 0; lo < a->length; lo += 1024) {
        int64_t n = a->length - lo < 1024 ? a->length - lo : 1024;
        encode_rows(s, lay, a, lo, n, tag_hi, ref, rec + (size_t)lo * (size_t)(lay->K + 2));
    }
}

void basalt_qs_encode_row(const struct basalt_qsort *s, const struct qs_layout *lay,
                          const struct ArrowArray *a, int64_t row, uint64_t tag_hi, uint64_t ref,
                          uint64_t *rec)
{
    encode_rows(s, lay, a, row, 1, tag_hi, ref, rec);
}

void basalt_qs_bytes_stats(const struct ArrowArray *arr, int64_t n, int col, bool large,
                           int64_t *max_len, bool *has_zero)
{
    int64_t mx = 0;
    bool zero = false;
    for (int64_t b = 0; b < n; b++) {
        const struct ArrowArray *c = arr[b].children[col];
        int64_t p = arr[b].offset + c->offset, len = arr[b].length;
        if (len == 0)
            continue;
        int64_t s0, e0;
        if (large) {
            const int64_t *o = c->buffers[1];
            for (int64_t i = 0; i < len; i++)
                if (o[p + i + 1] - o[p + i] > mx)
                    mx = o[p + i + 1] - o[p + i];
            s0 = o[p];
            e0 = o[p + len];
        } else {
            const int32_t *o = c->buffers[1];
            for (int64_t i = 0; i < len; i++)
                if ((int64_t)o[p + i + 1] - o[p + i] > mx)
                    mx = (int64_t)o[p + i + 1] - o[p + i];
            s0 = o[p];
            e0 = o[p + len];
        }
        /* Bytes of NULL slots count too: harmless, they only make the check stricter. */
        if (!zero && e0 > s0)
            zero = memchr((const uint8_t *)c->buffers[2] + s0, 0, (size_t)(e0 - s0)) != NULL;
    }
    *max_len = mx;
    *has_zero = zero;
}

bool basalt_qs_key0_image(const struct basalt_qsort *s, const struct ArrowArray *a, int64_t row,
                          uint64_t *out)
{
    const struct qs_key *k = &s->keys[0];
    const struct ArrowArray *c = a->children[k->column];
    int64_t i = a->offset + c->offset + row;
    if (c->null_count != 0 && c->buffers[0] && !basalt_bitmap_get(c->buffers[0], i))
        return false;
    switch (k->kind) {
    case QSK_INT: *out = (uint64_t)int_at(c, k, i) ^ 0x8000000000000000ull; return true;
    case QSK_UINT: *out = (uint64_t)int_at(c, k, i); return true;
    case QSK_FLOAT: *out = float_bits(((const float *)c->buffers[1])[i], true); return true;
    case QSK_DOUBLE: *out = float_bits(((const double *)c->buffers[1])[i], false); return true;
    default: return false;
    }
}

int64_t basalt_qs_prefilter(const struct basalt_qsort *s, const struct ArrowArray *a, uint64_t thr,
                            int64_t *sel)
{
    const struct qs_key *k = &s->keys[0];
    const struct ArrowArray *c = a->children[k->column];
    int64_t base = a->offset + c->offset, n = a->length, kept = 0;
    const uint8_t *valid = c->null_count != 0 ? c->buffers[0] : NULL;
    /* DESC: complement images and threshold, so one comparison serves both. */
    uint64_t flip = k->desc ? ~0ull : 0;
    thr ^= flip;
    /* Branch-free selection: every row's index is written, the count moves
     * only for rows on the threshold's side (or equal). */
#define PREFILTER(T, IMG)                                                                   \
    do {                                                                                    \
        const T *v = (const T *)c->buffers[1] + base;                                       \
        int64_t r = 0;                                                                      \
        /* Blocks of 16 with no row on the threshold's side are skipped by a                \
         * reduction the compiler vectorises; the rare others are selected. */              \
        for (; r + 16 <= n; r += 16) {                                                      \
            unsigned any = 0;                                                               \
            for (int q = 0; q < 16; q++) {                                                  \
                uint64_t x = IMGQ(IMG, r + q) ^ flip;                                       \
                any |= x <= thr;                                                            \
            }                                                                               \
            if (!any)                                                                       \
                continue;                                                                   \
            for (int q = 0; q < 16; q++) {                                                  \
                uint64_t x = IMGQ(IMG, r + q) ^ flip;                                       \
                sel[kept] = r + q;                                                          \
                kept += x <= thr;                                                           \
            }                                                                               \
        }                                                                                   \
        for (; r < n; r++) {                                                                \
            uint64_t x = IMGQ(IMG, r) ^ flip;                                               \
            sel[kept] = r;                                                                  \
            kept += x <= thr;                                                               \
        }                                                                                   \
    } while (0)
#define IMGQ(IMG, I) IMG(I)
#define SIGNED(I) ((uint64_t)(int64_t)v[I] ^ 0x8000000000000000ull)
#define UNSIGNED(I) ((uint64_t)v[I])
#define FLT(I) float_bits(v[I], true)
#define DBL(I) float_bits(v[I], false)
    switch (k->kind) {
    case QSK_INT:
        switch (k->width) {
        case 1: PREFILTER(int8_t, SIGNED); break;
        case 2: PREFILTER(int16_t, SIGNED); break;
        case 4: PREFILTER(int32_t, SIGNED); break;
        default: PREFILTER(int64_t, SIGNED); break;
        }
        break;
    case QSK_UINT:
        switch (k->width) {
        case 1: PREFILTER(uint8_t, UNSIGNED); break;
        case 2: PREFILTER(uint16_t, UNSIGNED); break;
        case 4: PREFILTER(uint32_t, UNSIGNED); break;
        default: PREFILTER(uint64_t, UNSIGNED); break;
        }
        break;
    case QSK_FLOAT: PREFILTER(float, FLT); break;
    case QSK_DOUBLE: PREFILTER(double, DBL); break;
    default: return -1;
    }
#undef PREFILTER
#undef IMGQ
#undef SIGNED
#undef UNSIGNED
#undef FLT
#undef DBL
    if (!valid)
        return kept;
    /* NULL slots hold any value: decide them by their placement instead
     * (NULLs come before every value or after). Last, NULLs only leave the
     * selection, which is compacted forwards; first, they only join it, and
     * it is merged from its end so that no index is overwritten before it is
     * read. */
    if (!k->nulls_first) {
        int64_t m = 0, j = 0;
        for (int64_t r = 0; r < n; r++) {
            bool in = j < kept && sel[j] == r;
            j += in;
            if (in && basalt_bitmap_get(valid, base + r))
                sel[m++] = r;
        }
        return m;
    }
    int64_t total = kept, j = 0;
    for (int64_t r = 0; r < n; r++) {
        bool in = j < kept && sel[j] == r;
        j += in;
        total += !in && !basalt_bitmap_get(valid, base + r);
    }
    int64_t w = total;
    j = kept;
    for (int64_t r = n - 1; r >= 0; r--) {
        bool in = j > 0 && sel[j - 1] == r;
        j -= in;
        if (in || !basalt_bitmap_get(valid, base + r))
            sel[--w] = r;
    }
    return total;
}

static int cmp_values(const struct qs_key *k, const struct ArrowArray *ca, int64_t i,
                      const struct ArrowArray *cb, int64_t j)
{
    switch (k->kind) {
    case QSK_INT: {
        int64_t x = int_at(ca, k, i), y = int_at(cb, k, j);
        return x < y ? -1 : x > y;
    }
    case QSK_UINT: {
        uint64_t x = (uint64_t)int_at(ca, k, i), y = (uint64_t)int_at(cb, k, j);
        return x < y ? -1 : x > y;
    }
    case QSK_FLOAT:
    case QSK_DOUBLE: {
        bool single = k->kind == QSK_FLOAT;
        double x = single ? ((const float *)ca->buffers[1])[i] : ((const double *)ca->buffers[1])[i];
        double y = single ? ((const float *)cb->buffers[1])[j] : ((const double *)cb->buffers[1])[j];
        uint64_t u = float_bits(x, single), v = float_bits(y, single);
        return u < v ? -1 : u > v;
    }
    case QSK_DEC: {
        int64_t xh, yh;
        uint64_t xl, yl;
        memcpy(&xl, (const uint8_t *)ca->buffers[1] + 16 * i, 8);
        memcpy(&xh, (const uint8_t *)ca->buffers[1] + 16 * i + 8, 8);
        memcpy(&yl, (const uint8_t *)cb->buffers[1] + 16 * j, 8);
        memcpy(&yh, (const uint8_t *)cb->buffers[1] + 16 * j + 8, 8);
        if (xh != yh)
            return xh < yh ? -1 : 1;
        return xl < yl ? -1 : xl > yl;
    }
    case QSK_BOOL: {
        int x = basalt_bitmap_get(ca->buffers[1], i), y = basalt_bitmap_get(cb->buffers[1], j);
        return x - y;
    }
    case QSK_INTERVAL: {
        struct qinterval x = interval_at(ca, i), y = interval_at(cb, j);
        return basalt_qinterval_cmp_fields(&x, &y);
    }
    default: {
        const uint8_t *x, *y;
        int64_t nx, ny;
        bytes_at(ca, k->large, i, &x, &nx);
        bytes_at(cb, k->large, j, &y, &ny);
        int64_t m = nx < ny ? nx : ny;
        int c = m ? memcmp(x, y, (size_t)m) : 0;
        if (c)
            return c < 0 ? -1 : 1;
        return nx < ny ? -1 : nx > ny;
    }
    }
}

int basalt_qs_tie(struct qs_ctx *c, const uint64_t *a, const uint64_t *b)
{
    c->ties++;
    const struct ArrowArray *ba = &c->arr[a[c->K + 1]], *bb = &c->arr[b[c->K + 1]];
    int64_t ra = (int64_t)(a[c->K] & 0xffffffffu), rb = (int64_t)(b[c->K] & 0xffffffffu);
    for (int k = c->lay->tail_from; k < c->s->n_keys; k++) {
        const struct qs_key *key = &c->s->keys[k];
        const struct ArrowArray *ca = ba->children[key->column], *cb = bb->children[key->column];
        int64_t i = ba->offset + ca->offset + ra, j = bb->offset + cb->offset + rb;
        bool va = ca->null_count == 0 || !ca->buffers[0] || basalt_bitmap_get(ca->buffers[0], i);
        bool vb = cb->null_count == 0 || !cb->buffers[0] || basalt_bitmap_get(cb->buffers[0], j);
        int r;
        if (!va || !vb) {
            if (va == vb)
                continue;
            r = !va ? (key->nulls_first ? -1 : 1) : (key->nulls_first ? 1 : -1);
            return r;
        }
        r = cmp_values(key, ca, i, cb, j);
        if (r)
            return key->desc ? -r : r;
    }
    return 0;
}

int basalt_qs_row_cmp(const struct basalt_qsort *s, const struct ArrowArray *ba, int64_t ra,
                      const struct ArrowArray *bb, int64_t rb)
{
    for (int k = 0; k < s->n_keys; k++) {
        const struct qs_key *key = &s->keys[k];
        const struct ArrowArray *ca = ba->children[key->column], *cb = bb->children[key->column];
        int64_t i = ba->offset + ca->offset + ra, j = bb->offset + cb->offset + rb;
        bool va = ca->null_count == 0 || !ca->buffers[0] || basalt_bitmap_get(ca->buffers[0], i);
        bool vb = cb->null_count == 0 || !cb->buffers[0] || basalt_bitmap_get(cb->buffers[0], j);
        if (!va || !vb) {
            if (va == vb)
                continue;
            return !va ? (key->nulls_first ? -1 : 1) : (key->nulls_first ? 1 : -1);
        }
        int r = cmp_values(key, ca, i, cb, j);
        if (r)
            return key->desc ? -r : r;
    }
    return 0;
}

bool basalt_qs_batch_threshold(const struct basalt_qsort *s, const struct ArrowArray *a, int64_t k,
                               uint64_t *scratch, uint64_t *thr)
{
    const struct qs_key *key = &s->keys[0];
    const struct ArrowArray *c = a->children[key->column];
    if (c->null_count != 0 || k < 1 || k > a->length)
        return false;
    for (int64_t r = 0; r < a->length; r++)
        if (!basalt_qs_key0_image(s, a, r, &scratch[r]))
            return false;
    uint64_t flip = key->desc ? ~0ull : 0;
    for (int64_t r = 0; r < a->length; r++)
        scratch[r] ^= flip;
    *thr = basalt_qselect_u64(scratch, a->length, k - 1) ^ flip;
    return true;
}
