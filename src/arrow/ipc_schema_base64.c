/* Base64 (RFC 4648, standard alphabet), the text form of the ARROW:schema
 * key-value metadata. */
#include "ipc_schema_internal.h"

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int sextet(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

basalt_status basalt_arrow_base64_decode(const char *text, size_t len, struct basalt_buffer *out,
                                         struct basalt_error *err)
{
    /* Padding: at most two '=' and only at the very end. */
    size_t data_len = len;
    while (data_len > 0 && len - data_len < 2 && text[data_len - 1] == '=')
        data_len--;
    if (len != data_len && len % 4 != 0)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "base64: padded text of %zu characters is not a multiple of 4",
                                len);
    if (data_len % 4 == 1)
        return basalt_error_set(err, BASALT_CORRUPT, "base64: %zu characters cannot end a group",
                                data_len);
    size_t n = data_len / 4 * 3 + (data_len % 4 ? data_len % 4 - 1 : 0);
    if (n == 0)
        return BASALT_OK;
    basalt_status st = basalt_buffer_reserve(out, n, err);
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
                                    "base64: invalid character 0x%02x at offset %zu",
                                    (unsigned char)text[i], i);
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            dst[w++] = (uint8_t)(acc >> bits);
        }
    }
    out->size += w;
    return BASALT_OK;
}

basalt_status basalt_arrow_base64_encode(const uint8_t *data, size_t len,
                                         struct basalt_buffer *out, struct basalt_error *err)
{
    if (len > (SIZE_MAX / 4) * 3 - 3)
        return basalt_error_set(err, BASALT_LIMIT, "base64: input too long");
    size_t n = (len + 2) / 3 * 4;
    if (n == 0)
        return BASALT_OK;
    basalt_status st = basalt_buffer_reserve(out, n, err);
    if (st != BASALT_OK)
        return st;
    char *dst = (char *)out->data + out->size;
    size_t i = 0, w = 0;
    for (; i + 3 <= len; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16 | (uint32_t)data[i + 1] << 8 | data[i + 2];
        dst[w++] = alphabet[v >> 18];
        dst[w++] = alphabet[(v >> 12) & 63];
        dst[w++] = alphabet[(v >> 6) & 63];
        dst[w++] = alphabet[v & 63];
    }
    if (i < len) {
        uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < len ? (uint32_t)data[i + 1] << 8 : 0);
        dst[w++] = alphabet[v >> 18];
        dst[w++] = alphabet[(v >> 12) & 63];
        dst[w++] = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
        dst[w++] = '=';
    }
    out->size += w;
    return BASALT_OK;
}
