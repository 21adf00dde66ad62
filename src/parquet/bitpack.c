/* Bit unpacking and packing, LSB first.
 *
 * The batch kernels unpack 32 values of one width from exactly 4*width bytes.
 * One function per width is generated from a single always-inline body whose
 * width is a compile-time constant, so every shift and mask folds and the
 * loop unrolls into straight-line loads, shifts and masks. A value is read
 * from the 32-bit words that hold it, never beyond, so a kernel needs no
 * slack after its input. */
#include "parquet_encoding.h"

#define BP_ALWAYS_INLINE static inline __attribute__((always_inline))

BP_ALWAYS_INLINE void unpack32_u32_body(const uint8_t *in, uint32_t *out, const unsigned w)
{
    if (w == 0) {
        memset(out, 0, 32 * sizeof *out);
        return;
    }
    if (w == 32) {
        memcpy(out, in, 32 * sizeof *out);
        return;
    }
    const uint32_t mask = (UINT32_C(1) << (w & 31)) - 1;
#pragma GCC unroll 32
    for (unsigned i = 0; i < 32; i++) {
        const unsigned bit = i * w, word = bit >> 5, shift = bit & 31;
        uint32_t v;
        if (shift + w <= 32)
            v = basalt_parquet_load32(in + 4 * word) >> shift;
        else /* spans two words, both inside the 4*w bytes */
            v = (uint32_t)(basalt_parquet_load64(in + 4 * word) >> shift);
        out[i] = v & mask;
    }
}

BP_ALWAYS_INLINE void unpack32_u64_body(const uint8_t *in, uint64_t *out, const unsigned w)
{
    if (w == 0) {
        memset(out, 0, 32 * sizeof *out);
        return;
    }
    if (w == 64) {
        memcpy(out, in, 32 * sizeof *out);
        return;
    }
    const uint64_t mask = (UINT64_C(1) << (w & 63)) - 1;
#pragma GCC unroll 32
    for (unsigned i = 0; i < 32; i++) {
        const unsigned bit = i * w, word = bit >> 5, shift = bit & 31;
        uint64_t v;
        if (shift + w <= 32)
            v = basalt_parquet_load32(in + 4 * word) >> shift;
        else if (shift + w <= 64)
            v = basalt_parquet_load64(in + 4 * word) >> shift;
        else /* three words; shift > 0 here since w < 64 */
            v = (basalt_parquet_load64(in + 4 * word) >> shift) |
                ((uint64_t)basalt_parquet_load32(in + 4 * word + 8) << ((64 - shift) & 63));
        out[i] = v & mask;
    }
}

/* Eight values from exactly w bytes: the stream's groups of 8, so a literal
 * run's last groups need no batch of 32. Byte loads of constant size, never
 * past the value's last byte. */
BP_ALWAYS_INLINE void unpack8_u32_body(const uint8_t *in, uint32_t *out, const unsigned w)
{
    if (w == 0) {
        memset(out, 0, 8 * sizeof *out);
        return;
    }
    const uint64_t mask = (UINT64_C(1) << w) - 1;
#pragma GCC unroll 8
    for (unsigned i = 0; i < 8; i++) {
        const unsigned bit = i * w, byte = bit >> 3, shift = bit & 7;
        const unsigned nbytes = (shift + w + 7) / 8; /* at most 5 */
        uint64_t v = 0;
        memcpy(&v, in + byte, nbytes);
        out[i] = (uint32_t)((v >> shift) & mask);
    }
}

#define BP_U32(w)                                                                   \
    static void unpack32_u32_##w(const uint8_t *in, uint32_t *out)                  \
    {                                                                               \
        unpack32_u32_body(in, out, w);                                              \
    }
#define BP_U8(w)                                                                    \
    static void unpack8_u32_##w(const uint8_t *in, uint32_t *out)                   \
    {                                                                               \
        unpack8_u32_body(in, out, w);                                               \
    }
#define BP_U64(w)                                                                   \
    static void unpack32_u64_##w(const uint8_t *in, uint64_t *out)                  \
    {                                                                               \
        unpack32_u64_body(in, out, w);                                              \
    }

#define BP_EACH_0_32(X)                                                             \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14)  \
    X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27)    \
    X(28) X(29) X(30) X(31) X(32)
#define BP_EACH_33_64(X)                                                            \
    X(33) X(34) X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) X(44) X(45)    \
    X(46) X(47) X(48) X(49) X(50) X(51) X(52) X(53) X(54) X(55) X(56) X(57) X(58)    \
    X(59) X(60) X(61) X(62) X(63) X(64)

BP_EACH_0_32(BP_U32)
BP_EACH_0_32(BP_U8)
BP_EACH_0_32(BP_U64)
BP_EACH_33_64(BP_U64)

#define BP_U32_ENTRY(w) unpack32_u32_##w,
#define BP_U8_ENTRY(w) unpack8_u32_##w,
#define BP_U64_ENTRY(w) unpack32_u64_##w,

static const struct basalt_parquet_bitpack_kernels bitpack_scalar = {
    .name = "scalar",
    .unpack32_u32 = {BP_EACH_0_32(BP_U32_ENTRY)},
    .unpack8_u32 = {BP_EACH_0_32(BP_U8_ENTRY)},
    .unpack32_u64 = {BP_EACH_0_32(BP_U64_ENTRY) BP_EACH_33_64(BP_U64_ENTRY)},
};

const struct basalt_parquet_bitpack_kernels *basalt_parquet_bitpack_scalar(void)
{
    return &bitpack_scalar;
}

const struct basalt_parquet_bitpack_kernels *basalt_parquet_bitpack_best(void)
{
    return &bitpack_scalar;
}

void basalt_parquet_unpack_ref(const uint8_t *in, uint64_t first, size_t count, unsigned width,
                               uint64_t *out)
{
    const uint64_t mask = width >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << width) - 1;
    for (size_t i = 0; i < count; i++) {
        uint64_t bit = (first + i) * width;
        const uint8_t *p = in + (bit >> 3);
        unsigned shift = (unsigned)(bit & 7);
        uint64_t v = 0;
        for (unsigned got = 0; got < width; got += 8 - shift, shift = 0)
            v |= (uint64_t)(*p++ >> shift) << got;
        out[i] = v & mask;
    }
}

/* Values before the first multiple of 8 start inside a byte; the reference
 * unpacker takes them so the batch kernels always start on a byte. */
static size_t unpack_head(const uint8_t *in, uint64_t *first, size_t count, unsigned width,
                          uint64_t *out)
{
    size_t head = (size_t)((8 - (*first & 7)) & 7);
    if (head > count)
        head = count;
    if (head) {
        basalt_parquet_unpack_ref(in, *first, head, width, out);
        *first += head;
    }
    return head;
}

void basalt_parquet_unpack_u32(const struct basalt_parquet_bitpack_kernels *k, const uint8_t *in,
                               size_t in_len, uint64_t first, size_t count, unsigned width,
                               uint32_t *out)
{
    if (width == 0) {
        memset(out, 0, count * sizeof *out);
        return;
    }
    if (!k)
        k = basalt_parquet_bitpack_best();
    if (first & 7) {
        uint64_t head[8];
        size_t n = unpack_head(in, &first, count, width, head);
        for (size_t i = 0; i < n; i++)
            out[i] = (uint32_t)head[i];
        out += n;
        count -= n;
    }
    size_t pos = (size_t)(first >> 3) * width;
    basalt_parquet_unpack32_u32_fn fn = k->unpack32_u32[width];
    while (count >= 32) {
        fn(in + pos, out);
        pos += 4 * width;
        out += 32;
        count -= 32;
    }
    basalt_parquet_unpack8_u32_fn fn8 = k->unpack8_u32[width];
    while (count >= 8) {
        fn8(in + pos, out);
        pos += width;
        out += 8;
        count -= 8;
    }
    if (count) {
        uint32_t tmp[8];
        size_t avail = in_len - pos;
        if (avail >= width) {
            fn8(in + pos, tmp);
        } else { /* a final group whose padding bytes are missing */
            uint8_t pad[32] = {0};
            memcpy(pad, in + pos, avail);
            fn8(pad, tmp);
        }
        memcpy(out, tmp, count * sizeof *out);
    }
}

void basalt_parquet_unpack_u64(const struct basalt_parquet_bitpack_kernels *k, const uint8_t *in,
                               size_t in_len, uint64_t first, size_t count, unsigned width,
                               uint64_t *out)
{
    if (width == 0) {
        memset(out, 0, count * sizeof *out);
        return;
    }
    if (!k)
        k = basalt_parquet_bitpack_best();
    if (first & 7) {
        size_t n = unpack_head(in, &first, count, width, out);
        out += n;
        count -= n;
    }
    size_t pos = (size_t)(first >> 3) * width;
    basalt_parquet_unpack32_u64_fn fn = k->unpack32_u64[width];
    while (count >= 32) {
        fn(in + pos, out);
        pos += 4 * width;
        out += 32;
        count -= 32;
    }
    if (count) {
        uint64_t tmp[32];
        size_t avail = in_len - pos;
        if (avail >= 4 * width) {
            fn(in + pos, tmp);
        } else {
            uint8_t pad[256] = {0};
            memcpy(pad, in + pos, avail);
            fn(pad, tmp);
        }
        memcpy(out, tmp, count * sizeof *out);
    }
}

/* Packing: an accumulator of pending bits, flushed a byte at a time. The
 * encoders are not the hot path; this favours obviousness. */
void basalt_parquet_pack_u64(const uint64_t *in, size_t count, unsigned width, uint8_t *out)
{
    if (width == 0)
        return;
    const uint64_t mask = width >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << width) - 1;
    uint64_t acc = 0;   /* pending bits, fewer than 8 between values */
    unsigned nbits = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t v = in[i] & mask;
        unsigned left = width;
        while (left) {
            unsigned take = 8 - nbits < left ? 8 - nbits : left;
            acc |= (v & ((UINT64_C(1) << take) - 1)) << nbits;
            v = take == 64 ? 0 : v >> take;
            nbits += take;
            left -= take;
            if (nbits == 8) {
                *out++ = (uint8_t)acc;
                acc = 0;
                nbits = 0;
            }
        }
    }
    if (nbits)
        *out = (uint8_t)acc;
}

void basalt_parquet_pack_u32(const uint32_t *in, size_t count, unsigned width, uint8_t *out)
{
    if (width == 0)
        return;
    const uint64_t mask = width >= 32 ? UINT64_C(0xffffffff) : (UINT64_C(1) << width) - 1;
    uint64_t acc = 0;
    unsigned nbits = 0;
    for (size_t i = 0; i < count; i++) {
        acc |= (in[i] & mask) << nbits;
        nbits += width;
        while (nbits >= 8) {
            *out++ = (uint8_t)acc;
            acc >>= 8;
            nbits -= 8;
        }
    }
    if (nbits)
        *out = (uint8_t)acc;
}
