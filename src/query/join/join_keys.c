/* Join keys read in place: the comparison class of a key column, integer
 * values at any width, hashes and equality with DuckDB's rules for floats
 * (-0.0 = 0.0, NaN = NaN). */
#include <math.h>
#include <string.h>

#include "join/join_impl.h"

basalt_status basalt_qj_keytype(const struct ArrowSchema *s, struct qj_keytype *out,
                                struct basalt_error *err)
{
    struct basalt_query_type t;
    basalt_status st = basalt_query_type_from_format(s->format, &t, err);
    if (st != BASALT_OK)
        return st;
    out->width = 0;
    switch (t.id) {
    case BASALT_QUERY_TYPE_INT8: out->kind = QJK_INT; out->width = 1; break;
    case BASALT_QUERY_TYPE_INT16: out->kind = QJK_INT; out->width = 2; break;
    case BASALT_QUERY_TYPE_INT32:
    case BASALT_QUERY_TYPE_DATE: out->kind = QJK_INT; out->width = 4; break;
    case BASALT_QUERY_TYPE_INT64:
    case BASALT_QUERY_TYPE_TIMESTAMP: case BASALT_QUERY_TYPE_TIME: out->kind = QJK_INT; out->width = 8; break;
    case BASALT_QUERY_TYPE_UINT8: out->kind = QJK_UINT; out->width = 1; break;
    case BASALT_QUERY_TYPE_UINT16: out->kind = QJK_UINT; out->width = 2; break;
    case BASALT_QUERY_TYPE_UINT32: out->kind = QJK_UINT; out->width = 4; break;
    case BASALT_QUERY_TYPE_UINT64: out->kind = QJK_UINT; out->width = 8; break;
    case BASALT_QUERY_TYPE_FLOAT: out->kind = QJK_FLOAT; out->width = 4; break;
    case BASALT_QUERY_TYPE_DOUBLE: out->kind = QJK_DOUBLE; out->width = 8; break;
    case BASALT_QUERY_TYPE_DECIMAL: out->kind = QJK_DEC; out->width = 16; break;
    case BASALT_QUERY_TYPE_BOOL: out->kind = QJK_BOOL; break;
    case BASALT_QUERY_TYPE_STRING:
    case BASALT_QUERY_TYPE_BINARY: out->kind = QJK_BYTES; break;
    default:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "join key '%s' of format '%s'",
                                s->name ? s->name : "", s->format);
    }
    return BASALT_OK;
}

void basalt_qj_col_init(struct qj_col *c, const struct ArrowArray *batch, int col,
                        struct qj_keytype t, const char *format)
{
    const struct ArrowArray *a = batch->children[col];
    c->valid = a->null_count != 0 ? a->buffers[0] : NULL;
    c->data = a->buffers[1];
    c->bytes = t.kind == QJK_BYTES ? a->buffers[2] : NULL;
    c->off = batch->offset + a->offset;
    c->large = format[0] == 'U' || format[0] == 'Z';
    c->t = t;
}

int64_t basalt_qj_int(const struct qj_col *c, int64_t i)
{
    int64_t p = c->off + i;
    if (c->t.kind == QJK_INT) {
        switch (c->t.width) {
        case 1: return ((const int8_t *)c->data)[p];
        case 2: return ((const int16_t *)c->data)[p];
        case 4: return ((const int32_t *)c->data)[p];
        default: return ((const int64_t *)c->data)[p];
        }
    }
    switch (c->t.width) {
    case 1: return ((const uint8_t *)c->data)[p];
    case 2: return ((const uint16_t *)c->data)[p];
    case 4: return ((const uint32_t *)c->data)[p];
    default: return (int64_t)((const uint64_t *)c->data)[p];
    }
}

void basalt_qj_ints(const struct qj_col *c, int64_t lo, int64_t hi, int64_t *out)
{
    int64_t n = hi - lo, p = c->off + lo;
    /* One loop per width so that each compiles to plain loads. */
#define INTS(T)                                                                             \
    do {                                                                                    \
        const T *v = (const T *)c->data + p;                                                \
        for (int64_t i = 0; i < n; i++)                                                     \
            out[i] = (int64_t)v[i];                                                         \
    } while (0)
    if (c->t.kind == QJK_INT) {
        switch (c->t.width) {
        case 1: INTS(int8_t); break;
        case 2: INTS(int16_t); break;
        case 4: INTS(int32_t); break;
        default: INTS(int64_t); break;
        }
    } else {
        switch (c->t.width) {
        case 1: INTS(uint8_t); break;
        case 2: INTS(uint16_t); break;
        case 4: INTS(uint32_t); break;
        default: INTS(uint64_t); break;
        }
    }
#undef INTS
}

static inline void bytes_at(const struct qj_col *c, int64_t i, const uint8_t **p, int64_t *n)
{
    int64_t k = c->off + i, s, e;
    if (c->large) {
        s = ((const int64_t *)c->data)[k];
        e = ((const int64_t *)c->data)[k + 1];
    } else {
        s = ((const int32_t *)c->data)[k];
        e = ((const int32_t *)c->data)[k + 1];
    }
    *p = c->bytes + s;
    *n = e - s;
}

/* Equal doubles hash alike: -0.0 folds to 0.0 and every NaN to one NaN. */
static inline uint64_t double_bits(double d)
{
    if (d == 0)
        return 0;
    if (isnan(d))
        return 0x7ff8000000000000ull;
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static uint64_t hash_bytes(const uint8_t *p, int64_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ basalt_qj_mix(w)) * 0xff51afd7ed558ccdull;
        p += 8;
        n -= 8;
    }
    if (n > 0) {
        uint64_t w = 0;
        memcpy(&w, p, (size_t)n);
        h = (h ^ basalt_qj_mix(w ^ ((uint64_t)n << 59))) * 0xff51afd7ed558ccdull;
    }
    return h;
}

void basalt_qj_hash_col(const struct qj_col *c, int64_t begin, int64_t end, uint64_t *h,
                        uint8_t *null)
{
    for (int64_t i = begin; i < end; i++) {
        int64_t k = i - begin;
        if (!basalt_qj_valid(c, i)) {
            null[k] = 1;
            continue;
        }
        uint64_t v;
        int64_t p = c->off + i;
        switch (c->t.kind) {
        case QJK_INT:
        case QJK_UINT: v = (uint64_t)basalt_qj_int(c, i); break;
        case QJK_FLOAT: v = double_bits((double)((const float *)c->data)[p]); break;
        case QJK_DOUBLE: v = double_bits(((const double *)c->data)[p]); break;
        case QJK_DEC: {
            uint64_t w[2];
            memcpy(w, c->data + 16 * p, 16);
            v = w[0] ^ basalt_qj_mix(w[1] + 0x51ed27ull);
            break;
        }
        case QJK_BOOL: v = (c->data[p >> 3] >> (p & 7)) & 1; break;
        default: {
            const uint8_t *s;
            int64_t n;
            bytes_at(c, i, &s, &n);
            v = hash_bytes(s, n);
            break;
        }
        }
        h[k] = basalt_qj_mix(h[k] ^ v) + 0x2545f4914f6cdd1dull;
    }
}

bool basalt_qj_equal(const struct qj_col *a, int64_t i, const struct qj_col *b, int64_t g)
{
    int64_t p = a->off + i, q = b->off + g;
    switch (a->t.kind) {
    case QJK_INT:
    case QJK_UINT: return basalt_qj_int(a, i) == basalt_qj_int(b, g);
    case QJK_FLOAT: {
        float x = ((const float *)a->data)[p], y = ((const float *)b->data)[q];
        return x == y || (isnan(x) && isnan(y));
    }
    case QJK_DOUBLE: {
        double x = ((const double *)a->data)[p], y = ((const double *)b->data)[q];
        return x == y || (isnan(x) && isnan(y));
    }
    case QJK_DEC: return memcmp(a->data + 16 * p, b->data + 16 * q, 16) == 0;
    case QJK_BOOL:
        return ((a->data[p >> 3] >> (p & 7)) & 1) == ((b->data[q >> 3] >> (q & 7)) & 1);
    default: {
        const uint8_t *x, *y;
        int64_t nx, ny;
        bytes_at(a, i, &x, &nx);
        bytes_at(b, g, &y, &ny);
        return nx == ny && (nx == 0 || memcmp(x, y, (size_t)nx) == 0);
    }
    }
}

basalt_status basalt_qjoin_partition(const struct ArrowSchema *schema,
                                     const struct ArrowArray *batch, const int *keys, int n_keys,
                                     int bits, uint8_t *part, struct basalt_error *err)
{
    enum { CHUNK = 2048 };
    uint64_t h[CHUNK];
    uint8_t null[CHUNK];
    struct qj_keytype t[64];
    if (n_keys < 1 || n_keys > 64)
        return basalt_error_set(err, BASALT_INVALID_ARG, "join: 1 to 64 keys to partition by");
    if (bits < 0 || bits > 58)
        return basalt_error_set(err, BASALT_INVALID_ARG, "join: partition past the hash's bits");
    for (int k = 0; k < n_keys; k++) {
        basalt_status st = basalt_qj_keytype(schema->children[keys[k]], &t[k], err);
        if (st != BASALT_OK)
            return st;
    }
    for (int64_t b = 0; b < batch->length; b += CHUNK) {
        int64_t e = batch->length - b < CHUNK ? batch->length - b : CHUNK;
        for (int64_t i = 0; i < e; i++) {
            h[i] = 0x9e3779b97f4a7c15ull;
            null[i] = 0;
        }
        for (int k = 0; k < n_keys; k++) {
            struct qj_col c;
            basalt_qj_col_init(&c, batch, keys[k], t[k], schema->children[keys[k]]->format);
            basalt_qj_hash_col(&c, b, b + e, h, null);
        }
        for (int64_t i = 0; i < e; i++)
            part[b + i] = null[i] ? 0 : (uint8_t)((basalt_qj_mix(h[i]) << bits) >> 58);
    }
    return BASALT_OK;
}
