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
    uint64_t c = basalt_parquet_count_valid(validity, offset, count);
    for (uint64_t j = count; j-- > 0 && c < j + 1;) {
        bool v = false;
        if (basalt_bitmap_get(validity, offset + (int64_t)j)) {
            c--;
            v = basalt_bitmap_get(bits, bits_offset + (int64_t)c);
        }
        basalt_bitmap_set(bits, bits_offset + (int64_t)j, v);
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
