/* BYTE_STREAM_SPLIT: byte k of value i lives at streams[k * N + i].
 *
 * Decoding is a transpose. The 2-, 4- and 8-byte widths interleave 16 values
 * at a time with SSE2 byte/word/dword unpacks (part of the x86-64 baseline,
 * so no dispatch is needed); other widths, and other targets, take the
 * scalar loop, which is also the oracle the fast one is tested against. */
#include <inttypes.h>

#include "parquet_encoding.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#define BSS_HAVE_SSE2 1
#else
#define BSS_HAVE_SSE2 0
#endif

void basalt_parquet_bss_gather_scalar(const uint8_t *streams, uint64_t stride, size_t width,
                                      uint64_t first, size_t count, uint8_t *out)
{
    for (size_t k = 0; k < width; k++) {
        const uint8_t *src = streams + k * stride + first;
        for (size_t i = 0; i < count; i++)
            out[i * width + k] = src[i];
    }
}

#if BSS_HAVE_SSE2
static inline __m128i bss_load(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }
static inline void bss_store(uint8_t *p, __m128i v) { _mm_storeu_si128((__m128i *)(void *)p, v); }

static size_t bss_gather2(const uint8_t *s, uint64_t stride, size_t count, uint8_t *out)
{
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        __m128i a = bss_load(s + i), b = bss_load(s + stride + i);
        bss_store(out + 2 * i, _mm_unpacklo_epi8(a, b));
        bss_store(out + 2 * i + 16, _mm_unpackhi_epi8(a, b));
    }
    return i;
}

static size_t bss_gather4(const uint8_t *s, uint64_t stride, size_t count, uint8_t *out)
{
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        __m128i a = bss_load(s + i), b = bss_load(s + stride + i);
        __m128i c = bss_load(s + 2 * stride + i), d = bss_load(s + 3 * stride + i);
        __m128i ab_lo = _mm_unpacklo_epi8(a, b), ab_hi = _mm_unpackhi_epi8(a, b);
        __m128i cd_lo = _mm_unpacklo_epi8(c, d), cd_hi = _mm_unpackhi_epi8(c, d);
        uint8_t *o = out + 4 * i;
        bss_store(o, _mm_unpacklo_epi16(ab_lo, cd_lo));
        bss_store(o + 16, _mm_unpackhi_epi16(ab_lo, cd_lo));
        bss_store(o + 32, _mm_unpacklo_epi16(ab_hi, cd_hi));
        bss_store(o + 48, _mm_unpackhi_epi16(ab_hi, cd_hi));
    }
    return i;
}

/* Eight values' worth of byte pairs (lo or hi halves of the 16) to output. */
static inline void bss_finish8(__m128i p01, __m128i p23, __m128i p45, __m128i p67, uint8_t *o)
{
    __m128i q0 = _mm_unpacklo_epi16(p01, p23), q1 = _mm_unpackhi_epi16(p01, p23);
    __m128i r0 = _mm_unpacklo_epi16(p45, p67), r1 = _mm_unpackhi_epi16(p45, p67);
    bss_store(o, _mm_unpacklo_epi32(q0, r0));
    bss_store(o + 16, _mm_unpackhi_epi32(q0, r0));
    bss_store(o + 32, _mm_unpacklo_epi32(q1, r1));
    bss_store(o + 48, _mm_unpackhi_epi32(q1, r1));
}

static size_t bss_gather8(const uint8_t *s, uint64_t stride, size_t count, uint8_t *out)
{
    size_t i = 0;
    for (; i + 16 <= count; i += 16) {
        __m128i v[8];
        for (int k = 0; k < 8; k++)
            v[k] = bss_load(s + (size_t)k * stride + i);
        uint8_t *o = out + 8 * i;
        bss_finish8(_mm_unpacklo_epi8(v[0], v[1]), _mm_unpacklo_epi8(v[2], v[3]),
                    _mm_unpacklo_epi8(v[4], v[5]), _mm_unpacklo_epi8(v[6], v[7]), o);
        bss_finish8(_mm_unpackhi_epi8(v[0], v[1]), _mm_unpackhi_epi8(v[2], v[3]),
                    _mm_unpackhi_epi8(v[4], v[5]), _mm_unpackhi_epi8(v[6], v[7]), o + 64);
    }
    return i;
}
#endif

size_t basalt_parquet_bss_gather(const uint8_t *streams, uint64_t stride, size_t width,
                                 uint64_t first, size_t count, uint8_t *out)
{
    size_t done = 0;
    if (count == 0)
        return 0;
#if BSS_HAVE_SSE2
    const uint8_t *s = streams + first;
    if (width == 2)
        done = bss_gather2(s, stride, count, out);
    else if (width == 4)
        done = bss_gather4(s, stride, count, out);
    else if (width == 8)
        done = bss_gather8(s, stride, count, out);
#endif
    if (done < count)
        basalt_parquet_bss_gather_scalar(streams, stride, width, first + done, count - done,
                                         out + done * width);
    return done;
}

basalt_status basalt_parquet_bss_decoder_init(struct basalt_parquet_bss_decoder *dec,
                                              const uint8_t *data, size_t len, size_t width,
                                              struct basalt_error *err)
{
    memset(dec, 0, sizeof *dec);
    if (width == 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "BYTE_STREAM_SPLIT width 0");
    if (len % width != 0)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "BYTE_STREAM_SPLIT data of %zu bytes is not a multiple of the "
                                "%zu-byte width",
                                len, width);
    dec->data = basalt_parquet_nonnull(data);
    dec->width = width;
    dec->stride = len / width;
    return BASALT_OK;
}

basalt_status basalt_parquet_bss_decode(struct basalt_parquet_bss_decoder *dec, uint64_t count,
                                        const uint8_t *validity, int64_t validity_offset,
                                        void *out, struct basalt_error *err)
{
    uint64_t n = basalt_parquet_count_valid(validity, validity_offset, count);
    if (n > dec->stride - dec->pos)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "BYTE_STREAM_SPLIT data holds %" PRIu64 " more values, %" PRIu64
                                " wanted",
                                dec->stride - dec->pos, n);
    basalt_parquet_bss_gather(dec->data, dec->stride, dec->width, dec->pos, (size_t)n, out);
    dec->pos += n;
    if (validity && n != count)
        basalt_parquet_spaced_expand_fixed(out, dec->width, count, validity, validity_offset);
    return BASALT_OK;
}

basalt_status basalt_parquet_bss_encode(const void *values, size_t width, uint64_t count,
                                        const uint8_t *validity, int64_t validity_offset,
                                        struct basalt_buffer *out, struct basalt_error *err)
{
    if (width == 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "BYTE_STREAM_SPLIT width 0");
    uint64_t n = basalt_parquet_count_valid(validity, validity_offset, count);
    if (n > (SIZE_MAX - 64) / width)
        return basalt_error_set(err, BASALT_LIMIT, "%" PRIu64 " values are too many", n);
    if (n == 0)
        return BASALT_OK;
    basalt_status st = basalt_buffer_reserve(out, (size_t)n * width, err);
    if (st != BASALT_OK)
        return st;
    const uint8_t *v = values;
    uint8_t *dst = out->data + out->size;
    if (!validity || n == count) {
        for (size_t k = 0; k < width; k++) {
            uint8_t *stream = dst + k * n;
            for (uint64_t i = 0; i < n; i++)
                stream[i] = v[i * width + k];
        }
    } else {
        uint64_t j = 0;
        for (uint64_t i = 0; i < count; i++) {
            if (!basalt_bitmap_get(validity, validity_offset + (int64_t)i))
                continue;
            for (size_t k = 0; k < width; k++)
                dst[k * n + j] = v[i * width + k];
            j++;
        }
    }
    out->size += (size_t)n * width;
    return BASALT_OK;
}
