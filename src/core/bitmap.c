/* Bitmap kernels, a 64-bit word at a time with byte-level edges. */
#include <string.h>

#include "basalt/core.h"

static uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v; /* Arrow bitmaps are little-endian; so are our targets */
}

/* Without -mpopcnt, __builtin_popcountll is a libgcc call per word; the
 * whole-word loop is compiled twice and the POPCNT one chosen at run time. */
static int64_t count_words_generic(const uint8_t *p, int64_t words)
{
    int64_t count = 0;
    for (int64_t i = 0; i < words; i++)
        count += __builtin_popcountll(load64(p + 8 * i));
    return count;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("popcnt"))) static int64_t count_words_popcnt(const uint8_t *p,
                                                                    int64_t words)
{
    int64_t count = 0;
    for (int64_t i = 0; i < words; i++)
        count += __builtin_popcountll(load64(p + 8 * i));
    return count;
}
#endif

static int64_t count_words(const uint8_t *p, int64_t words)
{
#if defined(__x86_64__) && defined(__GNUC__)
    /* Every CPU with SSE4.2 has POPCNT. */
    if (basalt_cpu_features()->sse42)
        return count_words_popcnt(p, words);
#endif
    return count_words_generic(p, words);
}

int64_t basalt_bitmap_count(const uint8_t *bits, int64_t offset, int64_t length)
{
    int64_t count = 0;
    /* Leading bits up to a byte boundary. */
    while (length > 0 && (offset & 7)) {
        count += basalt_bitmap_get(bits, offset);
        offset++;
        length--;
    }
    const uint8_t *p = bits + (offset >> 3);
    int64_t words = length >> 6;
    count += count_words(p, words);
    p += 8 * words;
    length -= 64 * words;
    while (length >= 8) {
        count += __builtin_popcount(*p++);
        length -= 8;
    }
    if (length > 0)
        count += __builtin_popcount(*p & ((1u << length) - 1));
    return count;
}

/* Reads 64 bits starting at bit `offset` of `src`, without reading past the
 * byte holding bit offset + 63. */
static uint64_t read_bits64(const uint8_t *src, int64_t offset)
{
    const uint8_t *p = src + (offset >> 3);
    unsigned shift = (unsigned)(offset & 7);
    uint64_t lo = load64(p);
    if (shift == 0)
        return lo;
    return (lo >> shift) | ((uint64_t)p[8] << (64 - shift));
}

void basalt_bitmap_copy(uint8_t *dst, int64_t dst_offset, const uint8_t *src, int64_t src_offset,
                        int64_t length)
{
    if (length <= 0)
        return;
    if ((dst_offset & 7) == 0 && (src_offset & 7) == 0) {
        int64_t whole = length >> 3;
        memcpy(dst + (dst_offset >> 3), src + (src_offset >> 3), (size_t)whole);
        for (int64_t i = whole * 8; i < length; i++)
            basalt_bitmap_set(dst, dst_offset + i, basalt_bitmap_get(src, src_offset + i));
        return;
    }
    /* Head: bitwise until dst is byte aligned. */
    while (length > 0 && (dst_offset & 7)) {
        basalt_bitmap_set(dst, dst_offset++, basalt_bitmap_get(src, src_offset++));
        length--;
    }
    /* Body: 64 destination bits per step from an unaligned source window.
     * read_bits64 reads only bytes that hold bits of the window. */
    uint8_t *d = dst + (dst_offset >> 3);
    while (length >= 64) {
        uint64_t v = read_bits64(src, src_offset);
        memcpy(d, &v, 8);
        d += 8;
        src_offset += 64;
        dst_offset += 64;
        length -= 64;
    }
    while (length > 0) {
        basalt_bitmap_set(dst, dst_offset++, basalt_bitmap_get(src, src_offset++));
        length--;
    }
}

void basalt_bitmap_fill(uint8_t *bits, int64_t offset, int64_t length, bool value)
{
    while (length > 0 && (offset & 7)) {
        basalt_bitmap_set(bits, offset++, value);
        length--;
    }
    int64_t whole = length >> 3;
    if (whole > 0) /* bits may be NULL when nothing is filled */
        memset(bits + (offset >> 3), value ? 0xff : 0, (size_t)whole);
    offset += whole * 8;
    length -= whole * 8;
    while (length > 0) {
        basalt_bitmap_set(bits, offset++, value);
        length--;
    }
}
