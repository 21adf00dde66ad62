/* Conversions between a leaf's physical values and its Arrow values:
 * narrowing, decimals (sign extension, big-endian byte arrays) and INT96
 * timestamps. Each is one tight loop over a block of values. */
#include <inttypes.h>

#include "parquet_column.h"

/* Julian day of 1970-01-01. */
#define JULIAN_EPOCH INT64_C(2440588)
#define NANOS_PER_DAY UINT64_C(86400000000000)

/* Writes the little-endian two's complement of v in `width` bytes: the low
 * bytes of v and then sign bytes. */
static inline void put_signed(uint8_t *out, int64_t v, size_t width)
{
    uint64_t u = (uint64_t)v;
    if (width >= 8) {
        memcpy(out, &u, 8);
        memset(out + 8, v < 0 ? 0xff : 0, width - 8);
    } else {
        memcpy(out, &u, width);
    }
}

static void int32_to_decimal(const uint8_t *in, size_t n, uint8_t *out, size_t width)
{
    if (width == 16) {
        for (size_t i = 0; i < n; i++) {
            int32_t v;
            memcpy(&v, in + 4 * i, 4);
            int64_t lo = v;
            int64_t hi = lo >> 63;
            memcpy(out + 16 * i, &lo, 8);
            memcpy(out + 16 * i + 8, &hi, 8);
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        int32_t v;
        memcpy(&v, in + 4 * i, 4);
        put_signed(out + width * i, v, width);
    }
}

static void int64_to_decimal(const uint8_t *in, size_t n, uint8_t *out, size_t width)
{
    if (width == 16) {
        for (size_t i = 0; i < n; i++) {
            int64_t lo;
            memcpy(&lo, in + 8 * i, 8);
            int64_t hi = lo >> 63;
            memcpy(out + 16 * i, &lo, 8);
            memcpy(out + 16 * i + 8, &hi, 8);
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        memcpy(&v, in + 8 * i, 8);
        put_signed(out + width * i, v, width);
    }
}

static void int96_to_nanos(const uint8_t *in, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t nanos;
        int32_t day;
        memcpy(&nanos, in + 12 * i, 8);
        memcpy(&day, in + 12 * i + 8, 4);
        /* Wraps outside int64 nanoseconds (years before 1677 or after 2262),
         * as other readers do; unsigned arithmetic keeps it defined. */
        uint64_t v = (uint64_t)((int64_t)day - JULIAN_EPOCH) * NANOS_PER_DAY + nanos;
        memcpy(out + 8 * i, &v, 8);
    }
}

bool basalt_parquet_convert_be_decimal(const uint8_t *in, size_t len, uint8_t *out, size_t width)
{
    if (len == 0) {
        memset(out, 0, width);
        return true;
    }
    uint8_t sign = (in[0] & 0x80) ? 0xff : 0x00;
    if (len > width) {
        /* The bytes beyond the width must be sign bytes, and the sign must
         * survive: the first kept byte carries the same top bit. */
        size_t extra = len - width;
        for (size_t i = 0; i < extra; i++)
            if (in[i] != sign)
                return false;
        if ((in[extra] & 0x80) != (sign & 0x80))
            return false;
        in += extra;
        len = width;
    }
    for (size_t i = 0; i < len; i++)
        out[i] = in[len - 1 - i];
    if (len < width)
        memset(out + len, sign, width - len);
    return true;
}

static basalt_status decimal_error(size_t i, size_t len, size_t width, struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_CORRUPT,
                            "decimal value %zu of %zu bytes does not fit %zu bytes", i, len,
                            width);
}

static basalt_status flba_to_decimal(const uint8_t *in, size_t in_width, size_t n, uint8_t *out,
                                     size_t width, struct basalt_error *err)
{
    if (in_width == width) {
        /* Same size: a byte reversal, no extension. */
        for (size_t i = 0; i < n; i++) {
            const uint8_t *s = in + in_width * i;
            uint8_t *d = out + width * i;
            for (size_t k = 0; k < width; k++)
                d[k] = s[width - 1 - k];
        }
        return BASALT_OK;
    }
    for (size_t i = 0; i < n; i++)
        if (!basalt_parquet_convert_be_decimal(in + in_width * i, in_width, out + width * i, width))
            return decimal_error(i, in_width, width, err);
    return BASALT_OK;
}

basalt_status basalt_parquet_convert_fixed(enum basalt_parquet_conversion conversion,
                                           const uint8_t *in, size_t in_width, size_t n,
                                           uint8_t *out, size_t out_width,
                                           struct basalt_error *err)
{
    switch (conversion) {
    case BASALT_PARQUET_CONVERT_NONE:
        if (in_width != out_width)
            break;
        if (n)
            memcpy(out, in, n * in_width);
        return BASALT_OK;
    case BASALT_PARQUET_CONVERT_INT32_TO_INT8:
        if (in_width != 4 || out_width != 1)
            break;
        for (size_t i = 0; i < n; i++) {
            int32_t v;
            memcpy(&v, in + 4 * i, 4);
            out[i] = (uint8_t)v;
        }
        return BASALT_OK;
    case BASALT_PARQUET_CONVERT_INT32_TO_INT16:
        if (in_width != 4 || out_width != 2)
            break;
        for (size_t i = 0; i < n; i++) {
            int32_t v;
            memcpy(&v, in + 4 * i, 4);
            uint16_t w = (uint16_t)v;
            memcpy(out + 2 * i, &w, 2);
        }
        return BASALT_OK;
    case BASALT_PARQUET_CONVERT_INT32_TO_DECIMAL:
        if (in_width != 4 || out_width == 0)
            break;
        int32_to_decimal(in, n, out, out_width);
        return BASALT_OK;
    case BASALT_PARQUET_CONVERT_INT64_TO_DECIMAL:
        if (in_width != 8 || out_width == 0)
            break;
        int64_to_decimal(in, n, out, out_width);
        return BASALT_OK;
    case BASALT_PARQUET_CONVERT_BYTES_TO_DECIMAL:
        if (in_width == 0 || out_width == 0)
            break;
        return flba_to_decimal(in, in_width, n, out, out_width, err);
    case BASALT_PARQUET_CONVERT_INT96_TO_TIMESTAMP:
        if (in_width != 12 || out_width != 8)
            break;
        int96_to_nanos(in, n, out);
        return BASALT_OK;
    default:
        break;
    }
    return basalt_error_set(err, BASALT_INVALID_ARG,
                            "no conversion %d from %zu-byte values to %zu-byte values",
                            (int)conversion, in_width, out_width);
}

basalt_status basalt_parquet_convert_binary_decimal(const int32_t *offsets, const uint8_t *data,
                                                    size_t n, uint8_t *out, size_t out_width,
                                                    struct basalt_error *err)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = (size_t)(offsets[i + 1] - offsets[i]);
        if (!basalt_parquet_convert_be_decimal(data + offsets[i], len, out + out_width * i,
                                               out_width))
            return decimal_error(i, len, out_width, err);
    }
    return BASALT_OK;
}
