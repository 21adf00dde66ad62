/* Vectorised evaluation of bound expressions over Arrow record batches.
 *
 * Each node yields two bitmaps of 64-bit words over the batch's rows: value
 * (true) and valid (known), value a subset of valid, so AND/OR/NOT are a few
 * word operations in three-valued logic. A predicate loads 64 values of its
 * column at a time into a block of int64 keys (integers, dates, times,
 * timestamps, booleans, and floats mapped onto the total order) or decimals,
 * then compares the block against the literal hoisted out of the loop; byte
 * columns compare element by element. IN over numeric keys first rejects
 * keys outside [smallest, largest] literal, then looks them up in a bitmap
 * when the literals lie within DENSE_SPAN of each other, else in a hash set
 * past SET_HASH_MIN literals, else by binary search; decimal and byte sets
 * use the hash set or binary search. */
#include <stdlib.h>
#include <string.h>

#include "basalt/hash.h"
#include "expr_internal.h"

#define MAX_NESTING 64
#define SET_HASH_MIN 16
#define DENSE_SPAN 65536

enum loader {
    LD_I8, LD_I16, LD_I32, LD_I64, LD_U8, LD_U16, LD_U32, LD_F32, LD_F64, LD_BOOL,
    LD_DEC32, LD_DEC64, LD_DEC128, LD_BIN32, LD_BIN64, LD_FIXED
};

struct bytes {
    const uint8_t *data;
    size_t len;
};

/* A predicate's literals, prepared once per evaluation. */
struct prepared {
    int64_t key;                       /* one numeric literal */
    struct basalt_iceberg_decimal dec; /* one decimal literal */
    struct bytes bytes;                /* one byte literal */
    uint32_t n;                        /* IN: sorted, distinct */
    int64_t *keys;
    struct basalt_iceberg_decimal *decs;
    struct bytes *strs;
    /* IN hash set, when n >= SET_HASH_MIN: open addressing, power-of-two slots */
    uint32_t *slots;                   /* literal index + 1, 0 = empty */
    uint64_t mask;
    int shift;                         /* 64 - log2(slots) */
    /* IN over numeric keys within DENSE_SPAN of each other: one bit per
     * value from the smallest literal, looked up without branches. */
    uint64_t *dense;
    uint64_t dense_span;
};

struct eval {
    const struct ArrowSchema *schema;
    const struct ArrowArray *batch;
    int64_t n;       /* rows */
    size_t nw;       /* words */
    struct basalt_error *err;
};

/* ------------------------------------------------------------------ bits */

/* nbits (1..64) bits of `bm` starting at bit `off`, LSB first. */
static uint64_t load_bits(const uint8_t *bm, int64_t off, int64_t nbits)
{
    const uint8_t *p = bm + (off >> 3);
    int sh = (int)(off & 7);
    int64_t nbytes = (sh + nbits + 7) >> 3;
    uint64_t w = 0;
    for (int64_t k = 0; k < nbytes && k < 8; k++)
        w |= (uint64_t)p[k] << (8 * k);
    w >>= sh;
    if (nbytes > 8)
        w |= (uint64_t)p[8] << (64 - sh);
    return nbits == 64 ? w : w & ((UINT64_C(1) << nbits) - 1);
}

static int64_t block_len(int64_t n, size_t w)
{
    int64_t rest = n - (int64_t)w * 64;
    return rest < 64 ? rest : 64;
}

static uint64_t tail_mask(int64_t m) { return m == 64 ? ~UINT64_C(0) : (UINT64_C(1) << m) - 1; }

/* valid &= the array's validity at physical positions [start, start + n). */
static void and_validity(const struct ArrowArray *a, int64_t start, int64_t n, uint64_t *valid)
{
    if (a->null_count == 0 || a->n_buffers < 1 || !a->buffers[0])
        return;
    const uint8_t *bm = a->buffers[0];
    for (size_t w = 0; (int64_t)w * 64 < n; w++)
        valid[w] &= load_bits(bm, start + (int64_t)w * 64, block_len(n, w));
}

/* ------------------------------------------------------------------ lookup */

static basalt_status field_id_of(const struct ArrowSchema *s, bool *has, int32_t *id,
                                 struct basalt_error *err)
{
    const char *v;
    size_t len;
    *has = false;
    basalt_status st = basalt_arrow_metadata_get(s->metadata, "PARQUET:field_id", &v, &len, err);
    if (st == BASALT_NOT_FOUND)
        return BASALT_OK;
    if (st != BASALT_OK)
        return st;
    int64_t x = 0;
    size_t i = 0;
    bool neg = len > 0 && v[0] == '-';
    if (neg)
        i++;
    if (i == len)
        return basalt_error_set(err, BASALT_CORRUPT, "column '%s': empty PARQUET:field_id",
                                s->name ? s->name : "");
    for (; i < len; i++) {
        if (v[i] < '0' || v[i] > '9' || x > INT32_MAX)
            return basalt_error_set(err, BASALT_CORRUPT, "column '%s': malformed PARQUET:field_id",
                                    s->name ? s->name : "");
        x = x * 10 + (v[i] - '0');
    }
    if (neg)
        x = -x;
    if (x > INT32_MAX || x < INT32_MIN)
        return basalt_error_set(err, BASALT_CORRUPT, "column '%s': PARQUET:field_id out of range",
                                s->name ? s->name : "");
    *has = true;
    *id = (int32_t)x;
    return BASALT_OK;
}

/* The path from the batch to the column with `id`: schemas and arrays per level. */
struct path {
    const struct ArrowSchema *schema[MAX_NESTING + 1];
    const struct ArrowArray *array[MAX_NESTING + 1];
    int depth; /* levels after the root */
};

static basalt_status search(const struct ArrowSchema *s, const struct ArrowArray *a, int32_t id,
                            struct path *path, int depth, bool *found, struct basalt_error *err)
{
    if (s->n_children != a->n_children || (s->n_children && (!s->children || !a->children)))
        return basalt_error_set(err, BASALT_CORRUPT, "struct '%s': schema has %lld children, array %lld",
                                s->name ? s->name : "", (long long)s->n_children,
                                (long long)a->n_children);
    for (int64_t i = 0; i < s->n_children && !*found; i++) {
        const struct ArrowSchema *cs = s->children[i];
        const struct ArrowArray *ca = a->children[i];
        if (!cs || !ca)
            return basalt_error_set(err, BASALT_CORRUPT, "missing child %lld", (long long)i);
        bool has;
        int32_t fid;
        basalt_status st = field_id_of(cs, &has, &fid, err);
        if (st != BASALT_OK)
            return st;
        path->schema[depth + 1] = cs;
        path->array[depth + 1] = ca;
        if (has && fid == id) {
            path->depth = depth + 1;
            *found = true;
            return BASALT_OK;
        }
        if (cs->format && strcmp(cs->format, "+s") == 0 && !cs->dictionary) {
            if (depth + 1 >= MAX_NESTING)
                return basalt_error_set(err, BASALT_LIMIT, "structs nested deeper than %d",
                                        MAX_NESTING);
            st = search(cs, ca, id, path, depth + 1, found, err);
            if (st != BASALT_OK)
                return st;
        }
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------------ types */

static basalt_status pick_loader(const struct basalt_iceberg_type *type,
                                 const struct basalt_arrow_type *t, enum loader *ld)
{
    enum basalt_arrow_type_id a = t->id;
    switch (type->id) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        if (a == BASALT_ARROW_TYPE_BOOL) { *ld = LD_BOOL; return BASALT_OK; }
        break;
    case BASALT_ICEBERG_TYPE_LONG:
        if (a == BASALT_ARROW_TYPE_INT64) { *ld = LD_I64; return BASALT_OK; }
        if (a == BASALT_ARROW_TYPE_UINT32) { *ld = LD_U32; return BASALT_OK; }
        /* fall through */
    case BASALT_ICEBERG_TYPE_INT:
        switch (a) {
        case BASALT_ARROW_TYPE_INT8: *ld = LD_I8; return BASALT_OK;
        case BASALT_ARROW_TYPE_INT16: *ld = LD_I16; return BASALT_OK;
        case BASALT_ARROW_TYPE_INT32: *ld = LD_I32; return BASALT_OK;
        case BASALT_ARROW_TYPE_UINT8: *ld = LD_U8; return BASALT_OK;
        case BASALT_ARROW_TYPE_UINT16: *ld = LD_U16; return BASALT_OK;
        default: break;
        }
        break;
    case BASALT_ICEBERG_TYPE_DOUBLE:
        if (a == BASALT_ARROW_TYPE_DOUBLE) { *ld = LD_F64; return BASALT_OK; }
        /* fall through */
    case BASALT_ICEBERG_TYPE_FLOAT:
        if (a == BASALT_ARROW_TYPE_FLOAT) { *ld = LD_F32; return BASALT_OK; }
        break;
    case BASALT_ICEBERG_TYPE_DECIMAL:
        if (t->scale != type->scale)
            break;
        if (a == BASALT_ARROW_TYPE_DECIMAL32) { *ld = LD_DEC32; return BASALT_OK; }
        if (a == BASALT_ARROW_TYPE_DECIMAL64) { *ld = LD_DEC64; return BASALT_OK; }
        if (a == BASALT_ARROW_TYPE_DECIMAL128) { *ld = LD_DEC128; return BASALT_OK; }
        break;
    case BASALT_ICEBERG_TYPE_DATE:
        if (a == BASALT_ARROW_TYPE_DATE32) { *ld = LD_I32; return BASALT_OK; }
        break;
    case BASALT_ICEBERG_TYPE_TIME:
        if (a == BASALT_ARROW_TYPE_TIME64 && t->unit == BASALT_ARROW_TIME_UNIT_MICRO) { *ld = LD_I64; return BASALT_OK; }
        break;
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
        if (a == BASALT_ARROW_TYPE_TIMESTAMP && t->unit == BASALT_ARROW_TIME_UNIT_MICRO) { *ld = LD_I64; return BASALT_OK; }
        break;
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
        if (a == BASALT_ARROW_TYPE_TIMESTAMP && t->unit == BASALT_ARROW_TIME_UNIT_NANO) { *ld = LD_I64; return BASALT_OK; }
        break;
    case BASALT_ICEBERG_TYPE_BINARY:
        if (a == BASALT_ARROW_TYPE_BINARY) { *ld = LD_BIN32; return BASALT_OK; }
        if (a == BASALT_ARROW_TYPE_LARGE_BINARY) { *ld = LD_BIN64; return BASALT_OK; }
        /* fall through */
    case BASALT_ICEBERG_TYPE_STRING:
        if (a == BASALT_ARROW_TYPE_STRING) { *ld = LD_BIN32; return BASALT_OK; }
        if (a == BASALT_ARROW_TYPE_LARGE_STRING) { *ld = LD_BIN64; return BASALT_OK; }
        break;
    case BASALT_ICEBERG_TYPE_UUID:
        if (a == BASALT_ARROW_TYPE_FIXED_SIZE_BINARY && t->fixed_size == 16) { *ld = LD_FIXED; return BASALT_OK; }
        break;
    case BASALT_ICEBERG_TYPE_FIXED:
        if (a == BASALT_ARROW_TYPE_FIXED_SIZE_BINARY) { *ld = LD_FIXED; return BASALT_OK; }
        break;
    default:
        break;
    }
    return BASALT_INVALID_ARG;
}

static bool is_dec(enum loader ld) { return ld == LD_DEC32 || ld == LD_DEC64 || ld == LD_DEC128; }
static bool is_bin(enum loader ld) { return ld == LD_BIN32 || ld == LD_BIN64 || ld == LD_FIXED; }

/* Buffers the loader reads at positions [start, start + n). */
static basalt_status check_buffers(const struct ArrowArray *a, enum loader ld, int64_t start,
                                   int64_t n, struct basalt_error *err)
{
    if (n == 0)
        return BASALT_OK;
    int64_t need = (ld == LD_BIN32 || ld == LD_BIN64) ? 3 : 2;
    if (a->n_buffers < need || !a->buffers || !a->buffers[1])
        return basalt_error_set(err, BASALT_CORRUPT, "column array lacks its buffers");
    if ((ld == LD_BIN32 || ld == LD_BIN64) && !a->buffers[2]) {
        int64_t lo, hi;
        if (ld == LD_BIN32) {
            const int32_t *o = a->buffers[1];
            lo = o[start];
            hi = o[start + n];
        } else {
            const int64_t *o = a->buffers[1];
            lo = o[start];
            hi = o[start + n];
        }
        if (lo != hi)
            return basalt_error_set(err, BASALT_CORRUPT, "string column lacks its data buffer");
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------------ loading */

static void load_keys(const struct ArrowArray *a, enum loader ld, int64_t pos, int64_t m,
                      int64_t *out)
{
    const void *v = a->buffers[1];
    switch (ld) {
    case LD_I8: for (int64_t i = 0; i < m; i++) out[i] = ((const int8_t *)v)[pos + i]; break;
    case LD_I16: for (int64_t i = 0; i < m; i++) out[i] = ((const int16_t *)v)[pos + i]; break;
    case LD_I32: for (int64_t i = 0; i < m; i++) out[i] = ((const int32_t *)v)[pos + i]; break;
    case LD_I64: for (int64_t i = 0; i < m; i++) out[i] = ((const int64_t *)v)[pos + i]; break;
    case LD_U8: for (int64_t i = 0; i < m; i++) out[i] = ((const uint8_t *)v)[pos + i]; break;
    case LD_U16: for (int64_t i = 0; i < m; i++) out[i] = ((const uint16_t *)v)[pos + i]; break;
    case LD_U32: for (int64_t i = 0; i < m; i++) out[i] = ((const uint32_t *)v)[pos + i]; break;
    case LD_F32:
        for (int64_t i = 0; i < m; i++)
            out[i] = basalt_iceberg_double_key(((const float *)v)[pos + i]);
        break;
    case LD_F64:
        for (int64_t i = 0; i < m; i++)
            out[i] = basalt_iceberg_double_key(((const double *)v)[pos + i]);
        break;
    case LD_BOOL: {
        uint64_t bits = load_bits(v, pos, m);
        for (int64_t i = 0; i < m; i++)
            out[i] = (int64_t)((bits >> i) & 1);
        break;
    }
    default:
        break;
    }
}

static struct basalt_iceberg_decimal load_dec(const struct ArrowArray *a, enum loader ld, int64_t pos)
{
    const uint8_t *v = a->buffers[1];
    if (ld == LD_DEC32) {
        int32_t x;
        memcpy(&x, v + 4 * pos, 4);
        return basalt_iceberg_dec_from_i64(x);
    }
    if (ld == LD_DEC64) {
        int64_t x;
        memcpy(&x, v + 8 * pos, 8);
        return basalt_iceberg_dec_from_i64(x);
    }
    struct basalt_iceberg_decimal d;
    memcpy(&d.lo, v + 16 * pos, 8); /* little-endian: low word first */
    uint64_t hi;
    memcpy(&hi, v + 16 * pos + 8, 8);
    d.hi = (int64_t)hi;
    return d;
}

static struct bytes load_bytes(const struct ArrowArray *a, enum loader ld, int32_t width, int64_t pos)
{
    struct bytes b;
    const uint8_t *data = a->buffers[ld == LD_FIXED ? 1 : 2];
    if (ld == LD_FIXED) {
        b.data = data + (size_t)width * (size_t)pos;
        b.len = (size_t)width;
    } else if (ld == LD_BIN32) {
        const int32_t *o = a->buffers[1];
        b.data = data ? data + o[pos] : (const uint8_t *)"";
        b.len = (size_t)(o[pos + 1] - o[pos]);
    } else {
        const int64_t *o = a->buffers[1];
        b.data = data ? data + o[pos] : (const uint8_t *)"";
        b.len = (size_t)(o[pos + 1] - o[pos]);
    }
    return b;
}

/* ------------------------------------------------------------------ compare */

static int cmp_bytes(struct bytes a, struct bytes b)
{
    size_t n = a.len < b.len ? a.len : b.len;
    int c = n ? memcmp(a.data, b.data, n) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    return (a.len > b.len) - (a.len < b.len);
}

static uint64_t hash_key(int64_t k) { return (uint64_t)k; }

/* The slot of a hash: the high bits of a multiplicative mix, so keys that
 * differ only in their high bits (timestamps in whole seconds) spread too. */
static uint64_t slot_of(const struct prepared *p, uint64_t h)
{
    return (h * UINT64_C(0x9E3779B97F4A7C15)) >> p->shift;
}

static uint64_t hash_bytes(struct bytes b) { return basalt_hash_xxh64(b.data, b.len, 0); }

static uint64_t hash_dec(struct basalt_iceberg_decimal d)
{
    return hash_key((int64_t)(d.lo ^ ((uint64_t)d.hi * UINT64_C(0xC2B2AE3D27D4EB4F))));
}

static bool in_set(const struct prepared *p, enum loader ld, int64_t key,
                   struct basalt_iceberg_decimal dec, struct bytes b)
{
    bool d = is_dec(ld), s = is_bin(ld);
    if (p->slots) {
        uint64_t h = d ? hash_dec(dec) : s ? hash_bytes(b) : hash_key(key);
        for (uint64_t i = slot_of(p, h);; i = (i + 1) & p->mask) {
            uint32_t slot = p->slots[i];
            if (slot == 0)
                return false;
            uint32_t k = slot - 1;
            if (d ? basalt_iceberg_dec_cmp(p->decs[k], dec) == 0
                  : s ? cmp_bytes(p->strs[k], b) == 0 : p->keys[k] == key)
                return true;
        }
    }
    uint32_t lo = 0, hi = p->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = d ? basalt_iceberg_dec_cmp(p->decs[mid], dec)
                  : s ? cmp_bytes(p->strs[mid], b) : (p->keys[mid] > key) - (p->keys[mid] < key);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

static bool op_holds(enum basalt_iceberg_op op, int c)
{
    switch (op) {
    case BASALT_ICEBERG_OP_LT: return c < 0;
    case BASALT_ICEBERG_OP_LT_EQ: return c <= 0;
    case BASALT_ICEBERG_OP_GT: return c > 0;
    case BASALT_ICEBERG_OP_GT_EQ: return c >= 0;
    case BASALT_ICEBERG_OP_EQ: return c == 0;
    default: return c != 0;
    }
}

/* The comparison of a block of keys against one literal: a branch-free loop
 * per operator. */
static uint64_t cmp_block(const int64_t *k, int64_t m, enum basalt_iceberg_op op, int64_t lit)
{
    uint64_t w = 0;
    switch (op) {
    case BASALT_ICEBERG_OP_LT: for (int64_t i = 0; i < m; i++) w |= (uint64_t)(k[i] < lit) << i; break;
    case BASALT_ICEBERG_OP_LT_EQ: for (int64_t i = 0; i < m; i++) w |= (uint64_t)(k[i] <= lit) << i; break;
    case BASALT_ICEBERG_OP_GT: for (int64_t i = 0; i < m; i++) w |= (uint64_t)(k[i] > lit) << i; break;
    case BASALT_ICEBERG_OP_GT_EQ: for (int64_t i = 0; i < m; i++) w |= (uint64_t)(k[i] >= lit) << i; break;
    case BASALT_ICEBERG_OP_EQ: for (int64_t i = 0; i < m; i++) w |= (uint64_t)(k[i] == lit) << i; break;
    default: for (int64_t i = 0; i < m; i++) w |= (uint64_t)(k[i] != lit) << i; break;
    }
    return w;
}

/* IN over a block of numeric keys: outside [min, max] is a miss; then the
 * hash set, or binary search over the sorted literals. */
static uint64_t in_keys(const struct prepared *p, const int64_t *keys, int64_t m)
{
    uint64_t bits = 0;
    if (p->n == 0)
        return 0;
    int64_t lo_key = p->keys[0], hi_key = p->keys[p->n - 1];
    if (p->dense) {
        for (int64_t i = 0; i < m; i++) {
            uint64_t off = (uint64_t)keys[i] - (uint64_t)lo_key;
            uint64_t in = off < p->dense_span;
            uint64_t word = p->dense[in ? off >> 6 : 0];
            bits |= (in & (word >> (off & 63))) << i;
        }
        return bits;
    }
    for (int64_t i = 0; i < m; i++) {
        int64_t k = keys[i];
        if (k < lo_key || k > hi_key)
            continue;
        bool hit = false;
        if (p->slots) {
            for (uint64_t j = slot_of(p, (uint64_t)k);; j = (j + 1) & p->mask) {
                uint32_t slot = p->slots[j];
                if (slot == 0)
                    break;
                if (p->keys[slot - 1] == k) {
                    hit = true;
                    break;
                }
            }
        } else {
            uint32_t lo = 0, hi = p->n;
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (p->keys[mid] < k)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            hit = lo < p->n && p->keys[lo] == k;
        }
        bits |= (uint64_t)hit << i;
    }
    return bits;
}

static bool starts_with(struct bytes v, struct bytes prefix)
{
    if (v.len < prefix.len)
        return false;
    if (prefix.len <= 8) { /* short prefixes: inline, no library call */
        unsigned diff = 0;
        for (size_t i = 0; i < prefix.len; i++)
            diff |= (unsigned)(v.data[i] ^ prefix.data[i]);
        return diff == 0;
    }
    return memcmp(v.data, prefix.data, prefix.len) == 0;
}

/* NaN compares as IEEE 754 says, not by the key order: no comparison with a
 * NaN holds but `!=` (and NOT IN, negated afterwards, so NaN is in no set).
 * The pruning evaluators rest on this: bounds and all-NaN columns prune `<`,
 * `>` and `=`, which is only sound if NaN rows never satisfy them. */
static uint64_t nan_rule(enum basalt_iceberg_op op, bool set, const int64_t *keys, int64_t m,
                         int64_t literal, uint64_t bits)
{
    uint64_t nan = 0;
    for (int64_t i = 0; i < m; i++)
        nan |= (uint64_t)(keys[i] == INT64_MAX || keys[i] == INT64_MIN) << i;
    bool literal_nan = !set && (literal == INT64_MAX || literal == INT64_MIN);
    if (op == BASALT_ICEBERG_OP_NOT_EQ)
        return literal_nan ? tail_mask(m) : bits | nan;
    return literal_nan ? 0 : bits & ~nan;
}

/* Bits of the predicate over positions [start, start + n) of `a`, ignoring
 * validity (null slots yield arbitrary bits). */
static void predicate_bits(const struct basalt_iceberg_expr *e, const struct prepared *p,
                           const struct ArrowArray *a, enum loader ld, int32_t width,
                           int64_t start, int64_t n, uint64_t *out)
{
    enum basalt_iceberg_op op = e->op;
    bool set = op == BASALT_ICEBERG_OP_IN || op == BASALT_ICEBERG_OP_NOT_IN;
    bool negate = op == BASALT_ICEBERG_OP_NOT_IN || op == BASALT_ICEBERG_OP_NOT_STARTS_WITH ||
                  op == BASALT_ICEBERG_OP_NOT_NAN;
    int64_t keys[64];
    struct bytes none = {NULL, 0};
    struct basalt_iceberg_decimal zero = {0, 0};
    for (size_t w = 0; (int64_t)w * 64 < n; w++) {
        int64_t m = block_len(n, w), pos = start + (int64_t)w * 64;
        uint64_t bits = 0;
        if (op == BASALT_ICEBERG_OP_IS_NAN || op == BASALT_ICEBERG_OP_NOT_NAN) {
            load_keys(a, ld, pos, m, keys);
            /* NaNs map to the two ends of the key order. */
            for (int64_t i = 0; i < m; i++)
                bits |= (uint64_t)(keys[i] == INT64_MAX || keys[i] == INT64_MIN) << i;
        } else if (is_dec(ld)) {
            for (int64_t i = 0; i < m; i++) {
                struct basalt_iceberg_decimal d = load_dec(a, ld, pos + i);
                bool hit = set ? in_set(p, ld, 0, d, none)
                               : op_holds(op, basalt_iceberg_dec_cmp(d, p->dec));
                bits |= (uint64_t)hit << i;
            }
        } else if (is_bin(ld)) {
            if (set) {
                for (int64_t i = 0; i < m; i++)
                    bits |= (uint64_t)in_set(p, ld, 0, zero, load_bytes(a, ld, width, pos + i)) << i;
            } else if (op == BASALT_ICEBERG_OP_STARTS_WITH || op == BASALT_ICEBERG_OP_NOT_STARTS_WITH) {
                for (int64_t i = 0; i < m; i++)
                    bits |= (uint64_t)starts_with(load_bytes(a, ld, width, pos + i), p->bytes) << i;
            } else if (op == BASALT_ICEBERG_OP_EQ || op == BASALT_ICEBERG_OP_NOT_EQ) {
                /* lengths first: most values differ there */
                for (int64_t i = 0; i < m; i++) {
                    struct bytes b = load_bytes(a, ld, width, pos + i);
                    bool eq = b.len == p->bytes.len &&
                              (b.len == 0 || memcmp(b.data, p->bytes.data, b.len) == 0);
                    bits |= (uint64_t)eq << i;
                }
                if (op == BASALT_ICEBERG_OP_NOT_EQ)
                    bits = ~bits & tail_mask(m);
            } else {
                for (int64_t i = 0; i < m; i++)
                    bits |= (uint64_t)op_holds(op, cmp_bytes(load_bytes(a, ld, width, pos + i), p->bytes)) << i;
            }
        } else {
            load_keys(a, ld, pos, m, keys);
            if (set)
                bits = in_keys(p, keys, m);
            else
                bits = cmp_block(keys, m, op, p->key);
            if (ld == LD_F32 || ld == LD_F64)
                bits = nan_rule(op, set, keys, m, p->key, bits);
        }
        out[w] = negate ? ~bits & tail_mask(m) : bits;
    }
}

/* ------------------------------------------------------------------ literals */

static int64_t literal_key(const struct basalt_iceberg_value *v)
{
    switch (v->type) {
    case BASALT_ICEBERG_TYPE_BOOLEAN: return v->u.b;
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE: return v->u.i32;
    case BASALT_ICEBERG_TYPE_FLOAT: return basalt_iceberg_double_key(v->u.f32);
    case BASALT_ICEBERG_TYPE_DOUBLE: return basalt_iceberg_double_key(v->u.f64);
    default: return v->u.i64;
    }
}

static basalt_status literal_check(const struct basalt_iceberg_expr *e,
                                   const struct basalt_iceberg_value *v, struct basalt_error *err)
{
    if (v->is_null || v->type != e->type->id)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "column '%s': literal not of the column's type (is the filter bound?)",
                                e->name ? e->name : "");
    if (v->type == BASALT_ICEBERG_TYPE_DECIMAL && v->scale != e->type->scale)
        return basalt_error_set(err, BASALT_INVALID_ARG, "column '%s': literal of another scale",
                                e->name ? e->name : "");
    return BASALT_OK;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static void prepared_free(struct prepared *p)
{
    basalt_free(p->keys);
    basalt_free(p->decs);
    basalt_free(p->strs);
    basalt_free(p->slots);
    basalt_free(p->dense);
}

static basalt_status prepare(const struct basalt_iceberg_expr *e, enum loader ld,
                             struct prepared *p, struct basalt_error *err)
{
    memset(p, 0, sizeof(*p));
    if ((e->op == BASALT_ICEBERG_OP_IS_NAN || e->op == BASALT_ICEBERG_OP_NOT_NAN) &&
        ld != LD_F32 && ld != LD_F64)
        return basalt_error_set(err, BASALT_INVALID_ARG, "column '%s': IS NAN on a non-float",
                                e->name ? e->name : "");
    if (!basalt_iceberg_op_has_literals(e->op))
        return BASALT_OK;
    if (!e->literals || (e->op != BASALT_ICEBERG_OP_IN && e->op != BASALT_ICEBERG_OP_NOT_IN &&
                         e->n_literals != 1))
        return basalt_error_set(err, BASALT_INVALID_ARG, "column '%s': malformed predicate",
                                e->name ? e->name : "");
    for (uint32_t i = 0; i < e->n_literals; i++) {
        basalt_status st = literal_check(e, &e->literals[i], err);
        if (st != BASALT_OK)
            return st;
    }
    if ((e->op == BASALT_ICEBERG_OP_STARTS_WITH || e->op == BASALT_ICEBERG_OP_NOT_STARTS_WITH) &&
        !is_bin(ld))
        return basalt_error_set(err, BASALT_INVALID_ARG, "column '%s': STARTS WITH on a non-string",
                                e->name ? e->name : "");
    const struct basalt_iceberg_value *v = &e->literals[0];
    if (e->op != BASALT_ICEBERG_OP_IN && e->op != BASALT_ICEBERG_OP_NOT_IN) {
        p->key = literal_key(v);
        p->dec = v->u.dec;
        if (is_bin(ld)) {
            p->bytes.data = v->u.bytes.data;
            p->bytes.len = v->u.bytes.len;
        }
        return BASALT_OK;
    }
    uint32_t n = e->n_literals;
    p->n = n;
    if (n == 0)
        return BASALT_OK;
    if (is_dec(ld)) {
        p->decs = basalt_malloc(sizeof(*p->decs) * n);
        if (!p->decs)
            goto nomem;
        for (uint32_t i = 0; i < n; i++)
            p->decs[i] = e->literals[i].u.dec;
        /* Bound literals are sorted already; sort again for hand-built ones. */
        for (uint32_t i = 1; i < n; i++)
            for (uint32_t j = i; j > 0 && basalt_iceberg_dec_cmp(p->decs[j - 1], p->decs[j]) > 0; j--) {
                struct basalt_iceberg_decimal t = p->decs[j];
                p->decs[j] = p->decs[j - 1];
                p->decs[j - 1] = t;
            }
    } else if (is_bin(ld)) {
        p->strs = basalt_malloc(sizeof(*p->strs) * n);
        if (!p->strs)
            goto nomem;
        for (uint32_t i = 0; i < n; i++) {
            p->strs[i].data = e->literals[i].u.bytes.data;
            p->strs[i].len = e->literals[i].u.bytes.len;
        }
        for (uint32_t i = 1; i < n; i++)
            for (uint32_t j = i; j > 0 && cmp_bytes(p->strs[j - 1], p->strs[j]) > 0; j--) {
                struct bytes t = p->strs[j];
                p->strs[j] = p->strs[j - 1];
                p->strs[j - 1] = t;
            }
    } else {
        p->keys = basalt_malloc(sizeof(*p->keys) * n);
        if (!p->keys)
            goto nomem;
        for (uint32_t i = 0; i < n; i++)
            p->keys[i] = literal_key(&e->literals[i]);
        qsort(p->keys, n, sizeof(*p->keys), cmp_i64);
        /* sorted, so the unsigned difference is exact */
        uint64_t diff = (uint64_t)p->keys[n - 1] - (uint64_t)p->keys[0];
        if (n >= 4 && diff < DENSE_SPAN) {
            uint64_t span = diff + 1;
            p->dense_span = span;
            p->dense = basalt_calloc((span + 63) / 64, sizeof(uint64_t));
            if (!p->dense)
                goto nomem;
            for (uint32_t i = 0; i < n; i++) {
                uint64_t off = (uint64_t)p->keys[i] - (uint64_t)p->keys[0];
                p->dense[off >> 6] |= UINT64_C(1) << (off & 63);
            }
            return BASALT_OK;
        }
    }
    if (n >= SET_HASH_MIN) {
        uint64_t cap = 16;
        while (cap < (uint64_t)n * 2)
            cap *= 2;
        p->slots = basalt_calloc(cap, sizeof(*p->slots));
        if (!p->slots)
            goto nomem;
        p->mask = cap - 1;
        p->shift = 64;
        for (uint64_t c = cap; c > 1; c >>= 1)
            p->shift--;
        for (uint32_t k = 0; k < n; k++) {
            uint64_t h = is_dec(ld)   ? hash_dec(p->decs[k])
                         : is_bin(ld) ? hash_bytes(p->strs[k])
                                      : hash_key(p->keys[k]);
            uint64_t i = slot_of(p, h);
            while (p->slots[i])
                i = (i + 1) & p->mask;
            p->slots[i] = k + 1;
        }
    }
    return BASALT_OK;
nomem:
    prepared_free(p);
    return basalt_error_set(err, BASALT_NOMEM, "out of memory preparing a filter");
}

/* ------------------------------------------------------------------ predicates */

static basalt_status eval_predicate(struct eval *ev, const struct basalt_iceberg_expr *e,
                                    uint64_t *value, uint64_t *valid)
{
    struct basalt_error *err = ev->err;
    if (e->field_id == 0 || !e->type)
        return basalt_error_set(err, BASALT_INVALID_ARG, "column '%s': the filter is not bound",
                                e->name ? e->name : "");
    struct path path;
    path.schema[0] = ev->schema;
    path.array[0] = ev->batch;
    path.depth = 0;
    bool found = false;
    basalt_status st = search(ev->schema, ev->batch, e->field_id, &path, 0, &found, err);
    if (st != BASALT_OK)
        return st;
    if (!found)
        return basalt_error_set(err, BASALT_NOT_FOUND, "column '%s' (field id %d) not in the batch",
                                e->name ? e->name : "", (int)e->field_id);
    int64_t n = ev->n;
    for (size_t w = 0; w < ev->nw; w++)
        valid[w] = tail_mask(block_len(n, w));
    /* Walk down: `logical` is the index, in this level's logical space, of row 0. */
    int64_t logical = 0;
    for (int level = 0; level <= path.depth; level++) {
        const struct ArrowArray *a = path.array[level];
        if (a->length < logical + n || a->offset < 0)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "column '%s': array of %lld rows, %lld needed",
                                    e->name ? e->name : "", (long long)a->length,
                                    (long long)(logical + n));
        and_validity(a, a->offset + logical, n, valid);
        if (level < path.depth)
            logical += a->offset;
    }
    const struct ArrowSchema *ls = path.schema[path.depth];
    const struct ArrowArray *la = path.array[path.depth];
    int64_t start = la->offset + logical;

    if (e->op == BASALT_ICEBERG_OP_IS_NULL || e->op == BASALT_ICEBERG_OP_NOT_NULL) {
        /* A null dictionary value is null too: fall through the dictionary below. */
        if (!ls->dictionary) {
            for (size_t w = 0; w < ev->nw; w++) {
                uint64_t all = tail_mask(block_len(n, w));
                value[w] = e->op == BASALT_ICEBERG_OP_IS_NULL ? ~valid[w] & all : valid[w];
                valid[w] = all;
            }
            return BASALT_OK;
        }
    }

    const struct ArrowSchema *vs = ls->dictionary ? ls->dictionary : ls;
    if (!vs->format)
        return basalt_error_set(err, BASALT_CORRUPT, "column '%s' has no format", e->name ? e->name : "");
    struct basalt_arrow_type vt;
    st = basalt_arrow_type_parse(vs->format, &vt, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st == BASALT_UNSUPPORTED ? BASALT_INVALID_ARG : st,
                                    "column '%s'", e->name ? e->name : "");
    enum loader ld = LD_I64;
    bool needs_values = e->op != BASALT_ICEBERG_OP_IS_NULL && e->op != BASALT_ICEBERG_OP_NOT_NULL;
    if (needs_values && pick_loader(e->type, &vt, &ld) != BASALT_OK)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "column '%s': Arrow type '%s' does not fit the field's type %d",
                                e->name ? e->name : "", vs->format, (int)e->type->id);
    struct prepared prep;
    if (needs_values) {
        st = prepare(e, ld, &prep, err);
        if (st != BASALT_OK)
            return st;
    } else {
        memset(&prep, 0, sizeof(prep));
    }

    if (!ls->dictionary) {
        st = check_buffers(la, ld, start, n, err);
        if (st == BASALT_OK)
            predicate_bits(e, &prep, la, ld, vt.fixed_size, start, n, value);
    } else {
        /* Evaluate over the dictionary, then gather by index. */
        const struct ArrowArray *da = la->dictionary;
        struct basalt_arrow_type it;
        uint64_t *dvalue = NULL, *dvalid = NULL;
        st = basalt_arrow_type_parse(ls->format ? ls->format : "", &it, err);
        if (st == BASALT_OK && (!da || da->length < 0 || da->offset < 0 || it.bit_width == 0 ||
                                it.id > BASALT_ARROW_TYPE_UINT64 || it.id < BASALT_ARROW_TYPE_INT8))
            st = basalt_error_set(err, BASALT_CORRUPT, "column '%s': malformed dictionary",
                                  e->name ? e->name : "");
        int64_t dn = da ? da->length : 0;
        size_t dnw = (size_t)((dn + 63) / 64);
        if (st == BASALT_OK) {
            dvalue = basalt_calloc(dnw ? dnw : 1, sizeof(uint64_t));
            dvalid = basalt_malloc((dnw ? dnw : 1) * sizeof(uint64_t));
            if (!dvalue || !dvalid)
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory evaluating a filter");
        }
        if (st == BASALT_OK && needs_values)
            st = check_buffers(da, ld, da->offset, dn, err);
        if (st == BASALT_OK) {
            for (size_t w = 0; w < dnw; w++)
                dvalid[w] = tail_mask(block_len(dn, w));
            and_validity(da, da->offset, dn, dvalid);
            if (needs_values)
                predicate_bits(e, &prep, da, ld, vt.fixed_size, da->offset, dn, dvalue);
            if (la->n_buffers < 2 || (!la->buffers[1] && n > 0))
                st = basalt_error_set(err, BASALT_CORRUPT, "dictionary column lacks its indices");
        }
        if (st == BASALT_OK) {
            int64_t keys[64];
            enum loader il = it.id == BASALT_ARROW_TYPE_INT8 ? LD_I8
                             : it.id == BASALT_ARROW_TYPE_UINT8 ? LD_U8
                             : it.id == BASALT_ARROW_TYPE_INT16 ? LD_I16
                             : it.id == BASALT_ARROW_TYPE_UINT16 ? LD_U16
                             : it.id == BASALT_ARROW_TYPE_INT32 ? LD_I32
                             : it.id == BASALT_ARROW_TYPE_UINT32 ? LD_U32 : LD_I64;
            for (size_t w = 0; w < ev->nw && st == BASALT_OK; w++) {
                int64_t m = block_len(n, w);
                load_keys(la, il, start + (int64_t)w * 64, m, keys);
                uint64_t bits = 0, known = 0;
                for (int64_t i = 0; i < m; i++) {
                    if (!((valid[w] >> i) & 1))
                        continue;
                    int64_t k = keys[i];
                    if (k < 0 || k >= dn) {
                        st = basalt_error_set(err, BASALT_CORRUPT,
                                              "column '%s': dictionary index %lld out of range",
                                              e->name ? e->name : "", (long long)k);
                        break;
                    }
                    bits |= ((dvalue[k >> 6] >> (k & 63)) & 1) << i;
                    known |= ((dvalid[k >> 6] >> (k & 63)) & 1) << i;
                }
                value[w] = bits;
                valid[w] = known;
            }
            if (st == BASALT_OK && !needs_values) {
                for (size_t w = 0; w < ev->nw; w++) {
                    uint64_t all = tail_mask(block_len(n, w));
                    value[w] = e->op == BASALT_ICEBERG_OP_IS_NULL ? ~valid[w] & all : valid[w];
                    valid[w] = all;
                }
            }
        }
        basalt_free(dvalue);
        basalt_free(dvalid);
    }
    prepared_free(&prep);
    if (st != BASALT_OK)
        return st;
    for (size_t w = 0; w < ev->nw; w++)
        value[w] &= valid[w];
    return BASALT_OK;
}

/* ------------------------------------------------------------------ tree */

static basalt_status eval_node(struct eval *ev, const struct basalt_iceberg_expr *e,
                               uint64_t *value, uint64_t *valid)
{
    if (!e)
        return basalt_error_set(ev->err, BASALT_INVALID_ARG, "malformed expression (NULL node)");
    switch (e->op) {
    case BASALT_ICEBERG_OP_TRUE:
    case BASALT_ICEBERG_OP_FALSE:
        for (size_t w = 0; w < ev->nw; w++) {
            valid[w] = tail_mask(block_len(ev->n, w));
            value[w] = e->op == BASALT_ICEBERG_OP_TRUE ? valid[w] : 0;
        }
        return BASALT_OK;
    case BASALT_ICEBERG_OP_NOT: {
        basalt_status st = eval_node(ev, e->left, value, valid);
        if (st != BASALT_OK)
            return st;
        for (size_t w = 0; w < ev->nw; w++)
            value[w] = valid[w] & ~value[w];
        return BASALT_OK;
    }
    case BASALT_ICEBERG_OP_AND:
    case BASALT_ICEBERG_OP_OR: {
        basalt_status st = eval_node(ev, e->left, value, valid);
        if (st != BASALT_OK)
            return st;
        uint64_t *scratch = basalt_malloc(2 * ev->nw * sizeof(uint64_t) + 8);
        if (!scratch)
            return basalt_error_set(ev->err, BASALT_NOMEM, "out of memory evaluating a filter");
        uint64_t *rv = scratch, *rk = scratch + ev->nw;
        st = eval_node(ev, e->right, rv, rk);
        if (st == BASALT_OK) {
            for (size_t w = 0; w < ev->nw; w++) {
                uint64_t av = value[w], ak = valid[w], bv = rv[w], bk = rk[w];
                if (e->op == BASALT_ICEBERG_OP_AND) {
                    /* known when both are known, or either is known false */
                    value[w] = av & bv;
                    valid[w] = (ak & bk) | (ak & ~av) | (bk & ~bv);
                } else {
                    /* known when both are known, or either is known true */
                    value[w] = av | bv;
                    valid[w] = (ak & bk) | av | bv;
                }
            }
        }
        basalt_free(scratch);
        return st;
    }
    default:
        if ((unsigned)e->op > BASALT_ICEBERG_OP_NOT_IN)
            return basalt_error_set(ev->err, BASALT_INVALID_ARG, "unknown operator %d", (int)e->op);
        return eval_predicate(ev, e, value, valid);
    }
}

basalt_status basalt_iceberg_expr_eval_batch(const struct basalt_iceberg_expr *bound,
                                             const struct ArrowSchema *schema,
                                             const struct ArrowArray *batch, uint8_t *match,
                                             struct basalt_error *err)
{
    if (!bound || !schema || !batch || (!match && batch->length > 0))
        return basalt_error_set(err, BASALT_INVALID_ARG, "eval_batch: NULL argument");
    if (!schema->format || strcmp(schema->format, "+s") != 0 || !schema->release || !batch->release)
        return basalt_error_set(err, BASALT_INVALID_ARG, "eval_batch: not a struct batch");
    if (batch->length < 0 || batch->offset < 0)
        return basalt_error_set(err, BASALT_CORRUPT, "eval_batch: negative length or offset");
    struct eval ev = {schema, batch, batch->length, (size_t)((batch->length + 63) / 64), err};
    if (ev.n == 0)
        return BASALT_OK;
    uint64_t *words = basalt_malloc(2 * ev.nw * sizeof(uint64_t));
    if (!words)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory evaluating a filter");
    basalt_status st = eval_node(&ev, bound, words, words + ev.nw);
    if (st == BASALT_OK) {
        for (int64_t i = 0; i < (ev.n + 7) / 8; i++)
            match[i] = (uint8_t)(words[i / 8] >> (8 * (i % 8)));
        if (ev.n % 8)
            match[(ev.n + 7) / 8 - 1] &= (uint8_t)((1u << (ev.n % 8)) - 1);
    }
    basalt_free(words);
    return st;
}
