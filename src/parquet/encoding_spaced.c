/* Spaced output: decoders write the non-null values densely at the front of
 * the destination, then these spread them to their slots back to front, in
 * place (a value's dense position is never after its slot). Whole 64-slot
 * windows that are all valid move as one block, all-null ones are one
 * memset, so mostly-valid and mostly-null data cost little more than a copy. */
#include "parquet_encoding.h"

/* Bits [bit, bit + n) of a bitmap, n <= 64, reading only the bytes that hold
 * them. */
static uint64_t window_bits(const uint8_t *bits, int64_t bit, unsigned n)
{
    const uint8_t *p = bits + (bit >> 3);
    unsigned shift = (unsigned)(bit & 7);
    unsigned nbytes = (shift + n + 7) / 8;
    uint64_t lo = 0;
    unsigned take = nbytes < 8 ? nbytes : 8;
    memcpy(&lo, p, take);
    uint64_t v = lo >> shift;
    if (nbytes > 8)
        v |= (uint64_t)p[8] << (64 - shift);
    return n == 64 ? v : v & ((UINT64_C(1) << n) - 1);
}

/* Writes the low n <= 64 bits of v at bit `bit`, leaving the bits around
 * them as they are. */
static void window_store(uint8_t *bits, int64_t bit, unsigned n, uint64_t v)
{
    uint8_t *p = bits + (bit >> 3);
    unsigned shift = (unsigned)(bit & 7);
    unsigned nbytes = (shift + n + 7) / 8;
    uint64_t mask = n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
    v &= mask;
    uint64_t lo = 0;
    unsigned take = nbytes < 8 ? nbytes : 8;
    memcpy(&lo, p, take);
    lo = (lo & ~(mask << shift)) | (v << shift);
    memcpy(p, &lo, take);
    if (nbytes > 8) {
        uint8_t high = (uint8_t)((1u << (shift + n - 64)) - 1);
        p[8] = (uint8_t)((p[8] & ~high) | ((v >> (64 - shift)) & high));
    }
}

/* The low popcount(mask) bits of src placed at the set bits of mask, in
 * order (what BMI2's pdep does), one run of set bits at a time: validity
 * windows are mostly long runs. */
static uint64_t deposit_runs(uint64_t src, uint64_t mask)
{
    uint64_t out = 0;
    unsigned used = 0;
    while (mask) {
        unsigned start = (unsigned)__builtin_ctzll(mask);
        uint64_t rest = mask >> start;
        unsigned len = ~rest == 0 ? 64 - start : (unsigned)__builtin_ctzll(~rest);
        uint64_t run = len == 64 ? ~UINT64_C(0) : (UINT64_C(1) << len) - 1;
        out |= ((src >> used) & run) << start;
        used += len;
        mask &= ~(run << start);
    }
    return out;
}

/* Mixed windows of 4- and 8-byte values: each slot takes the next dense
 * value or zero through a select, not a branch on the validity bit. */
#define SPREAD_WINDOW(name, type)                                                        \
    static uint64_t name(uint8_t *values, uint64_t lo, unsigned n, uint64_t bits,         \
                         uint64_t k)                                                     \
    {                                                                                    \
        for (unsigned b = n; b-- > 0;) {                                                 \
            const uint64_t valid = (bits >> b) & 1, slot = lo + b;                       \
            k -= valid;                                                                  \
            type v;                                                                      \
            memcpy(&v, values + (valid ? k : slot) * sizeof v, sizeof v);                \
            v &= (type)0 - (type)valid;                                                  \
            memcpy(values + slot * sizeof v, &v, sizeof v);                              \
        }                                                                                \
        return k;                                                                        \
    }
SPREAD_WINDOW(spread_window4, uint32_t)
SPREAD_WINDOW(spread_window8, uint64_t)

void basalt_parquet_spaced_expand_fixed(uint8_t *values, size_t width, uint64_t count,
                                        const uint8_t *validity, int64_t offset)
{
    uint64_t k = basalt_parquet_count_valid(validity, offset, count); /* dense values left */
    uint64_t hi = count;
    while (hi > 0 && k < hi) {
        unsigned n = hi >= 64 ? 64 : (unsigned)hi;
        uint64_t lo = hi - n;
        uint64_t bits = window_bits(validity, offset + (int64_t)lo, n);
        uint64_t all = n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
        if (bits == all) {
            k -= n;
            memmove(values + lo * width, values + k * width, (size_t)n * width);
        } else if (bits == 0) {
            memset(values + lo * width, 0, (size_t)n * width);
        } else if (width == 4) {
            k = spread_window4(values, lo, n, bits, k);
        } else if (width == 8) {
            k = spread_window8(values, lo, n, bits, k);
        } else {
            for (unsigned b = n; b-- > 0;) {
                uint8_t *slot = values + (lo + b) * width;
                if ((bits >> b) & 1) {
                    k--;
                    if (k != lo + b)
                        memcpy(slot, values + k * width, width);
                } else {
                    memset(slot, 0, width);
                }
            }
        }
        hi = lo;
    }
    /* Once k == hi every slot below is valid and already in place. */
}

#define SPACED_OFFSETS(name, type)                                                  \
    void name(type *offsets, uint64_t count, const uint8_t *validity, int64_t offset) \
    {                                                                               \
        uint64_t c = basalt_parquet_count_valid(validity, offset, count);           \
        offsets[count] = offsets[c];                                                \
        for (uint64_t j = count; j-- > 0 && c < j + 1;) {                           \
            if (basalt_bitmap_get(validity, offset + (int64_t)j))                   \
                c--;                                                                \
            offsets[j] = offsets[c];                                                \
        }                                                                           \
    }

SPACED_OFFSETS(basalt_parquet_spaced_expand_offsets32, int32_t)
SPACED_OFFSETS(basalt_parquet_spaced_expand_offsets64, int64_t)

void basalt_parquet_spaced_expand_bits(uint8_t *bits, int64_t bits_offset, uint64_t count,
                                       const uint8_t *validity, int64_t offset)
{
    /* A window of up to 64 slots at a time, back to front: its dense bits
     * (read before the window is written; they lie at or below it) are
     * deposited at its valid slots. */
    uint64_t k = basalt_parquet_count_valid(validity, offset, count);
    uint64_t hi = count;
    while (hi > 0 && k < hi) {
        unsigned n = hi >= 64 ? 64 : (unsigned)hi;
        uint64_t lo = hi - n;
        uint64_t mask = validity ? window_bits(validity, offset + (int64_t)lo, n)
                                 : (n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1);
        unsigned c = (unsigned)__builtin_popcountll(mask);
        k -= c;
        uint64_t src = c ? window_bits(bits, bits_offset + (int64_t)k, c) : 0;
        window_store(bits, bits_offset + (int64_t)lo, n, deposit_runs(src, mask));
        hi = lo;
    }
}

basalt_status basalt_parquet_binary_out_limit(const struct basalt_parquet_binary_out *out,
                                              uint64_t *max_data, struct basalt_error *err)
{
    if (!out || !out->data || (!out->offsets32) == (!out->offsets64))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "byte-array output needs a data buffer and exactly one offsets "
                                "array");
    uint64_t cap = out->offsets32 ? (uint64_t)INT32_MAX : (uint64_t)BASALT_PARQUET_MAX_DATA_LARGE;
    if (out->max_data && (out->max_data < cap || !out->offsets32))
        cap = out->max_data;
    if (out->offsets32 && cap > (uint64_t)INT32_MAX)
        cap = INT32_MAX;
    if (out->offsets64 && cap > (uint64_t)INT64_MAX)
        cap = INT64_MAX;
    *max_data = cap;
    return BASALT_OK;
}
