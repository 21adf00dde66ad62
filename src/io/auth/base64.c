/* Base64, RFC 4648 section 4. */
#include "auth/base64.h"

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

basalt_status basalt_io_base64_encode(const uint8_t *data, size_t len, struct basalt_buffer *out,
                                      struct basalt_error *err)
{
    if (len > SIZE_MAX / 4 * 3 - 3)
        return basalt_error_set(err, BASALT_LIMIT, "base64: input too long");
    if (len == 0)
        return BASALT_OK; /* an empty buffer has no data pointer to offset */
    basalt_status st = basalt_buffer_reserve(out, (len + 2) / 3 * 4, err);
    if (st != BASALT_OK)
        return st;
    char *dst = (char *)out->data + out->size;
    size_t w = 0;
    for (size_t i = 0; i < len; i += 3) {
        size_t left = len - i;
        uint32_t v = (uint32_t)data[i] << 16;
        if (left > 1)
            v |= (uint32_t)data[i + 1] << 8;
        if (left > 2)
            v |= data[i + 2];
        dst[w++] = alphabet[v >> 18];
        dst[w++] = alphabet[(v >> 12) & 63];
        dst[w++] = left > 1 ? alphabet[(v >> 6) & 63] : '=';
        dst[w++] = left > 2 ? alphabet[v & 63] : '=';
    }
    out->size += w;
    return BASALT_OK;
}

static int sextet(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

basalt_status basalt_io_base64_decode(const char *text, size_t len, struct basalt_buffer *out,
                                      struct basalt_error *err)
{
    size_t data_len = len;
    while (data_len > 0 && len - data_len < 2 && text[data_len - 1] == '=')
        data_len--;
    if ((data_len != len && len % 4 != 0) || data_len % 4 == 1)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "base64: %zu characters do not end on a whole group", len);
    if (data_len == 0)
        return BASALT_OK;
    basalt_status st = basalt_buffer_reserve(out, data_len / 4 * 3 + 2, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *dst = out->data + out->size;
    uint32_t acc = 0;
    int bits = 0;
    size_t w = 0;
    for (size_t i = 0; i < data_len; i++) {
        int v = sextet((unsigned char)text[i]);
        if (v < 0)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "base64: invalid character at offset %zu", i);
        acc = (acc << 6 | (uint32_t)v) & 0xffffff;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            dst[w++] = (uint8_t)(acc >> bits);
        }
    }
    out->size += w;
    return BASALT_OK;
}
