/* Running a compiled plan over encoded records: a switch over a flat op
 * array, varints read inline, strings handed out as views. */
#include "avro_plan.h"

struct col_rt {
    uint8_t *v;
    size_t stride;
    uint8_t *pr;
    size_t pstride;
};

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Unsigned varint at p: the position after it, or NULL when it is truncated
 * or longer than 10 bytes. Positions are passed by value so that the decode
 * loop keeps its position in a register. */
static inline const uint8_t *rd_varint(const uint8_t *p, const uint8_t *end, uint64_t *out)
{
    if (LIKELY(end - p >= 10)) {
        uint64_t b = p[0];
        if (LIKELY(b < 0x80)) {
            *out = b;
            return p + 1;
        }
        uint64_t v = b & 0x7f;
        for (unsigned i = 1; i < 10; i++) {
            b = p[i];
            v |= (b & 0x7f) << (7 * i);
            if (b < 0x80) {
                *out = v;
                return p + i + 1;
            }
        }
        return NULL;
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < 10 && p + i < end; i++) {
        uint64_t b = p[i];
        v |= (b & 0x7f) << (7 * i);
        if (b < 0x80) {
            *out = v;
            return p + i + 1;
        }
    }
    return NULL;
}

static inline const uint8_t *skip_varint(const uint8_t *p, const uint8_t *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* Eight bytes at once: the first without its high bit ends the varint. */
    if (LIKELY(end - p >= 8)) {
        uint64_t x;
        memcpy(&x, p, 8);
        uint64_t stops = ~x & 0x8080808080808080ull;
        if (LIKELY(stops != 0))
            return p + __builtin_ctzll(stops) / 8 + 1;
    }
#endif
    size_t n = (size_t)(end - p) < 10 ? (size_t)(end - p) : 10;
    for (size_t i = 0; i < n; i++)
        if (p[i] < 0x80)
            return p + i + 1;
    return NULL;
}

static inline int64_t unzig(uint64_t u) { return (int64_t)(u >> 1) ^ -(int64_t)(u & 1); }

static basalt_status fail(struct basalt_error *err, int64_t row, const uint8_t *p,
                          const uint8_t *start, const char *what)
{
    return basalt_error_set(err, BASALT_CORRUPT, "record %lld: truncated or malformed %s at byte %zu",
                            (long long)row, what, (size_t)(p - start));
}

/* Slot addresses are computed from the row, so nothing is advanced per row. */
#define SLOT(col) (cols[col].v + (size_t)row * cols[col].stride)
#define PRESENT(col) (cols[col].pr[(size_t)row * cols[col].pstride])
#define STORE(col, type, value)                                                     \
    do {                                                                            \
        type store_v_ = (value);                                                    \
        memcpy(SLOT(col), &store_v_, sizeof store_v_);                              \
        PRESENT(col) = 1;                                                           \
    } while (0)

static basalt_status run(const struct basalt_avro_plan *plan, const uint8_t *data, size_t len,
                         int64_t count, struct col_rt *cols, uint32_t max_depth, size_t *consumed,
                         struct basalt_error *err)
{
    const struct avro_op *ops = plan->ops;
    const uint8_t *p = data, *q, *end = data + len;
    const char *what = "";
    uint64_t u;
    int64_t row;
    for (row = 0; row < count; row++) {
        const struct avro_op *op = ops;
        for (;;) {
            switch (op->code) {
            case AVRO_OP_END:
                goto next_row;
            case AVRO_OP_JUMP:
                op = ops + op->arg;
                continue;
            case AVRO_OP_UNION:
                if (UNLIKELY(!(q = rd_varint(p, end, &u)))) {
                    what = "union branch";
                    goto truncated;
                }
                p = q;
                if (UNLIKELY(u >= (uint64_t)op->arg * 2 || (u & 1))) {
                    return basalt_error_set(err, BASALT_CORRUPT,
                                            "record %lld: union branch %lld out of range (%u "
                                            "branches) at byte %zu",
                                            (long long)row, (long long)unzig(u), op->arg,
                                            (size_t)(p - data));
                }
                op = ops + op[1 + (u >> 1)].arg;
                continue;
            case AVRO_OP_ERROR:
                return basalt_error_set(err, BASALT_CORRUPT, "record %lld: %s", (long long)row,
                                        (const char *)op->imm.p);
            case AVRO_OP_SKIP_VARINT:
                if (UNLIKELY(!(q = skip_varint(p, end)))) {
                    what = "varint";
                    goto truncated;
                }
                p = q;
                op++;
                continue;
            case AVRO_OP_SKIP_N:
                if (UNLIKELY((size_t)(end - p) < op->arg)) {
                    what = "value";
                    goto truncated;
                }
                p += op->arg;
                op++;
                continue;
            case AVRO_OP_SKIP_BYTES: {
                if (UNLIKELY(!(q = rd_varint(p, end, &u)))) {
                    what = "length";
                    goto truncated;
                }
                p = q;
                int64_t n = unzig(u);
                if (UNLIKELY(n < 0 || (uint64_t)n > (uint64_t)(end - p))) {
                    what = "string or bytes";
                    goto truncated;
                }
                p += n;
                op++;
                continue;
            }
            case AVRO_OP_SKIP_NODE: {
                q = p;
                basalt_status st = basalt_avro_skip(op->imm.p, &q, end, max_depth, err);
                if (st != BASALT_OK)
                    return basalt_error_context(err, st, "record %lld", (long long)row);
                p = q;
                op++;
                continue;
            }
            case AVRO_OP_BOOL:
                if (UNLIKELY(p >= end)) {
                    what = "boolean";
                    goto truncated;
                }
                STORE(op->col, uint8_t, *p == 1);
                p++;
                op++;
                continue;
            case AVRO_OP_INT_I32:
            case AVRO_OP_INT_I64:
            case AVRO_OP_INT_F32:
            case AVRO_OP_INT_F64:
            case AVRO_OP_INT_F32D: {
                if (UNLIKELY(!(q = rd_varint(p, end, &u)))) {
                    what = "int";
                    goto truncated;
                }
                p = q;
                int64_t v = unzig(u);
                if (UNLIKELY(v < INT32_MIN || v > INT32_MAX)) {
                    what = "int (out of 32-bit range)";
                    goto truncated;
                }
                switch (op->code) {
                case AVRO_OP_INT_I32: STORE(op->col, int32_t, (int32_t)v); break;
                case AVRO_OP_INT_I64: STORE(op->col, int64_t, v); break;
                case AVRO_OP_INT_F32: STORE(op->col, float, (float)v); break;
                case AVRO_OP_INT_F64: STORE(op->col, double, (double)v); break;
                default: STORE(op->col, double, (double)(float)v); break;
                }
                op++;
                continue;
            }
            case AVRO_OP_LONG_I64:
                if (UNLIKELY(!(q = rd_varint(p, end, &u)))) {
                    what = "long";
                    goto truncated;
                }
                p = q;
                STORE(op->col, int64_t, unzig(u));
                op++;
                continue;
            case AVRO_OP_LONG_F32:
            case AVRO_OP_LONG_F64:
            case AVRO_OP_LONG_F32D: {
                if (UNLIKELY(!(q = rd_varint(p, end, &u)))) {
                    what = "long";
                    goto truncated;
                }
                p = q;
                int64_t v = unzig(u);
                if (op->code == AVRO_OP_LONG_F32)
                    STORE(op->col, float, (float)v);
                else if (op->code == AVRO_OP_LONG_F64)
                    STORE(op->col, double, (double)v);
                else
                    STORE(op->col, double, (double)(float)v);
                op++;
                continue;
            }
            case AVRO_OP_FLOAT_F32:
            case AVRO_OP_FLOAT_F64:
                if (UNLIKELY(end - p < 4)) {
                    what = "float";
                    goto truncated;
                }
                if (op->code == AVRO_OP_FLOAT_F32)
                    STORE(op->col, float, avro_load_float(p));
                else
                    STORE(op->col, double, (double)avro_load_float(p));
                p += 4;
                op++;
                continue;
            case AVRO_OP_DOUBLE_F64:
                if (UNLIKELY(end - p < 8)) {
                    what = "double";
                    goto truncated;
                }
                STORE(op->col, double, avro_load_double(p));
                p += 8;
                op++;
                continue;
            case AVRO_OP_BYTES: {
                if (UNLIKELY(!(q = rd_varint(p, end, &u)))) {
                    what = "length";
                    goto truncated;
                }
                p = q;
                int64_t n = unzig(u);
                if (UNLIKELY(n < 0 || (uint64_t)n > (uint64_t)(end - p))) {
                    what = "string or bytes";
                    goto truncated;
                }
                struct basalt_avro_bytes b = {p, (size_t)n};
                STORE(op->col, struct basalt_avro_bytes, b);
                p += n;
                op++;
                continue;
            }
            case AVRO_OP_FIXED: {
                if (UNLIKELY((size_t)(end - p) < op->arg)) {
                    what = "fixed";
                    goto truncated;
                }
                struct basalt_avro_bytes b = {p, op->arg};
                STORE(op->col, struct basalt_avro_bytes, b);
                p += op->arg;
                op++;
                continue;
            }
            case AVRO_OP_ENUM_I32:
            case AVRO_OP_ENUM_I64: {
                if (UNLIKELY(!(q = rd_varint(p, end, &u)))) {
                    what = "enum index";
                    goto truncated;
                }
                p = q;
                int64_t v = unzig(u);
                if (UNLIKELY(v < 0 || v >= (int64_t)op->arg))
                    return basalt_error_set(err, BASALT_CORRUPT,
                                            "record %lld: enum index %lld out of range (%u "
                                            "symbols) at byte %zu",
                                            (long long)row, (long long)v, op->arg,
                                            (size_t)(p - data));
                if (op->imm.p) {
                    v = ((const int32_t *)op->imm.p)[v];
                    if (UNLIKELY(v < 0))
                        return basalt_error_set(err, BASALT_CORRUPT,
                                                "record %lld: enum symbol not in the reader's "
                                                "enum, which has no default",
                                                (long long)row);
                }
                if (op->code == AVRO_OP_ENUM_I32)
                    STORE(op->col, int32_t, (int32_t)v);
                else
                    STORE(op->col, int64_t, v);
                op++;
                continue;
            }
            case AVRO_OP_RAW: {
                q = p;
                basalt_status st = basalt_avro_skip(op->imm.p, &q, end, max_depth, err);
                if (st != BASALT_OK)
                    return basalt_error_context(err, st, "record %lld", (long long)row);
                struct basalt_avro_bytes b = {p, (size_t)(q - p)};
                p = q;
                STORE(op->col, struct basalt_avro_bytes, b);
                op++;
                continue;
            }
            case AVRO_OP_OPT_LONG_I64: {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                /* Optional longs are null about as often as not, so a branch
                 * on the union index mispredicts half the time: the varint
                 * after the index is decoded either way (eight bytes at once)
                 * and kept or dropped with a mask. */
                if (LIKELY(end - p >= 9)) {
                    uint8_t b = p[0];
                    uint64_t x;
                    memcpy(&x, p + 1, 8);
                    uint64_t stops = ~x & 0x8080808080808080ull;
                    if (LIKELY((b == 0 || b == 2) && stops != 0)) {
                        uint64_t keep = (uint64_t)((b >> 1) == op->arg) - 1; /* 0 for null */
                        x &= (stops ^ (stops - 1)) & 0x7f7f7f7f7f7f7f7full;
                        x = ((x & 0x7f007f007f007f00ull) >> 1) | (x & 0x007f007f007f007full);
                        x = ((x & 0x3fff00003fff0000ull) >> 2) | (x & 0x00003fff00003fffull);
                        x = ((x & 0x0fffffff00000000ull) >> 4) | (x & 0x000000000fffffffull);
                        int64_t v = unzig(x) & (int64_t)keep;
                        memcpy(SLOT(op->col), &v, 8);
                        PRESENT(op->col) = (uint8_t)(keep & 1);
                        p += 1 + (((size_t)__builtin_ctzll(stops) / 8 + 1) & keep);
                        op++;
                        continue;
                    }
                }
#endif
                if (UNLIKELY(p >= end)) {
                    what = "union branch";
                    goto truncated;
                }
                /* Branch indexes 0 and 1 zig-zag to the bytes 0 and 2. */
                uint8_t b = *p++;
                if (UNLIKELY(b != 0 && b != 2)) {
                    p--;
                    what = "union branch (out of range)";
                    goto truncated;
                }
                if ((b >> 1) == op->arg) {
                    int64_t zero = 0;
                    memcpy(SLOT(op->col), &zero, 8);
                    PRESENT(op->col) = 0;
                } else {
                    if (UNLIKELY(!(q = rd_varint(p, end, &u)))) {
                        what = "long";
                        goto truncated;
                    }
                    p = q;
                    STORE(op->col, int64_t, unzig(u));
                }
                op++;
                continue;
            }
            case AVRO_OP_SKIP_OPT_VARINT: {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                /* As AVRO_OP_OPT_LONG_I64: no branch on whether it is null. */
                if (LIKELY(end - p >= 9)) {
                    uint8_t b = p[0];
                    uint64_t x;
                    memcpy(&x, p + 1, 8);
                    uint64_t stops = ~x & 0x8080808080808080ull;
                    if (LIKELY((b == 0 || b == 2) && stops != 0)) {
                        uint64_t keep = (uint64_t)((b >> 1) == op->arg) - 1; /* 0 for null */
                        p += 1 + (((size_t)__builtin_ctzll(stops) / 8 + 1) & keep);
                        op++;
                        continue;
                    }
                }
#endif
                if (UNLIKELY(!(q = rd_varint(p, end, &u)))) {
                    what = "union branch";
                    goto truncated;
                }
                p = q;
                if (UNLIKELY(u >= 4 || (u & 1))) {
                    return basalt_error_set(err, BASALT_CORRUPT,
                                            "record %lld: union branch %lld out of range (2 "
                                            "branches) at byte %zu",
                                            (long long)row, (long long)unzig(u),
                                            (size_t)(p - data));
                }
                if ((u >> 1) != op->arg) {
                    if (UNLIKELY(!(q = skip_varint(p, end)))) {
                        what = "varint";
                        goto truncated;
                    }
                    p = q;
                }
                op++;
                continue;
            }
            case AVRO_OP_ABSENT:
                memset(SLOT(op->col), 0, plan->cols[op->col].size);
                PRESENT(op->col) = 0;
                op++;
                continue;
            case AVRO_OP_CONST: {
                const struct avro_plan_col *pc = &plan->cols[op->col];
                uint8_t *slot = SLOT(op->col);
                if (pc->type == BASALT_AVRO_SLOT_BYTES || pc->type == BASALT_AVRO_SLOT_RAW)
                    memcpy(slot, op->imm.p, sizeof(struct basalt_avro_bytes));
                else if (pc->type == BASALT_AVRO_SLOT_BOOL)
                    *slot = (uint8_t)op->imm.i;
                else if (pc->type == BASALT_AVRO_SLOT_INT32) {
                    int32_t v = (int32_t)op->imm.i;
                    memcpy(slot, &v, 4);
                } else if (pc->type == BASALT_AVRO_SLOT_FLOAT)
                    memcpy(slot, &op->imm.f, 4);
                else
                    memcpy(slot, &op->imm, 8);
                PRESENT(op->col) = 1;
                op++;
                continue;
            }
            default:
                return basalt_error_set(err, BASALT_INTERNAL, "bad op %d", op->code);
            }
        }
    next_row:;
    }
    if (consumed)
        *consumed = (size_t)(p - data);
    return BASALT_OK;
truncated:
    return fail(err, row, p, data, what);
}

basalt_status basalt_avro_plan_decode(const struct basalt_avro_plan *plan, const uint8_t *data,
                                      size_t len, int64_t count,
                                      const struct basalt_avro_dest *dests,
                                      const struct basalt_avro_limits *limits, size_t *consumed,
                                      struct basalt_error *err)
{
    static const uint8_t empty[1];
    if (!plan || (!data && len) || count < 0 || (!dests && plan->col_count))
        return basalt_error_set(err, BASALT_INVALID_ARG, "plan_decode: bad argument");
    if (!data)
        data = empty;
    struct avro_limits lim;
    basalt_avro_limits_resolve(limits, &lim);
    struct col_rt stack_cols[32];
    struct col_rt *cols = stack_cols;
    if (plan->col_count > 32) {
        cols = basalt_malloc(sizeof *cols * plan->col_count);
        if (!cols)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory decoding");
    }
    uint8_t sink[32];
    for (size_t k = 0; k < plan->col_count; k++) {
        const struct basalt_avro_dest *d = &dests[k];
        size_t size = plan->cols[k].size;
        if (!d->values) {
            if (cols != stack_cols)
                basalt_free(cols);
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "plan_decode: column '%s' has no destination",
                                    plan->cols[k].path);
        }
        cols[k].v = d->values;
        cols[k].stride = d->stride ? d->stride : size;
        cols[k].pr = d->present ? d->present : sink;
        cols[k].pstride = d->present ? (d->present_stride ? d->present_stride : 1) : 0;
    }
    basalt_status st = run(plan, data, len, count, cols, lim.max_depth, consumed, err);
    if (cols != stack_cols)
        basalt_free(cols);
    return st;
}
