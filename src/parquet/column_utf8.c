/* UTF-8 of string leaves. A page's new string bytes are first checked as a
 * whole for being ASCII (eight bytes at a time); only pages that are not go
 * value by value, so a character cannot straddle two values unnoticed. */
#include <inttypes.h>

#include "parquet_column.h"

static bool all_ascii(const uint8_t *s, size_t n)
{
    uint64_t acc = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        acc |= w;
    }
    for (; i < n; i++)
        acc |= s[i];
    return (acc & UINT64_C(0x8080808080808080)) == 0;
}

/* RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF. */
static bool valid_utf8(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t more;
        uint8_t min = 0x80, max = 0xbf; /* the second byte's range */
        if (c >= 0xc2 && c <= 0xdf) {
            more = 1;
        } else if (c >= 0xe0 && c <= 0xef) {
            more = 2;
            min = c == 0xe0 ? 0xa0 : 0x80;
            max = c == 0xed ? 0x9f : 0xbf;
        } else if (c >= 0xf0 && c <= 0xf4) {
            more = 3;
            min = c == 0xf0 ? 0x90 : 0x80;
            max = c == 0xf4 ? 0x8f : 0xbf;
        } else {
            return false;
        }
        if (n - i <= more || s[i + 1] < min || s[i + 1] > max)
            return false;
        for (size_t k = 2; k <= more; k++)
            if ((s[i + k] & 0xc0) != 0x80)
                return false;
        i += more + 1;
    }
    return true;
}

static inline uint64_t offset_at(const void *offsets, bool wide, uint64_t i)
{
    return wide ? (uint64_t)((const int64_t *)offsets)[i] : (uint64_t)((const int32_t *)offsets)[i];
}

basalt_status basalt_parquet_check_utf8(const uint8_t *data, const void *offsets, bool wide,
                                        uint64_t first, uint64_t count, struct basalt_error *err)
{
    if (count == 0)
        return BASALT_OK;
    data = basalt_parquet_nonnull(data);
    uint64_t begin = offset_at(offsets, wide, first), end = offset_at(offsets, wide, first + count);
    if (all_ascii(data + begin, (size_t)(end - begin)))
        return BASALT_OK;
    for (uint64_t i = first; i < first + count; i++) {
        uint64_t a = offset_at(offsets, wide, i), b = offset_at(offsets, wide, i + 1);
        if (!valid_utf8(data + a, (size_t)(b - a)))
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "string %" PRIu64 " is not valid UTF-8", i - first);
    }
    return BASALT_OK;
}
