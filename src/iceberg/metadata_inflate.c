/* Compressed metadata files (gzip as written by Java's
 * write.metadata.compression-codec, zstd as iceberg-go writes them), told
 * apart by their magic bytes, and whole-file reading. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "basalt/codec.h"
#include "iceberg_internal.h"

basalt_status basalt_iceberg_metadata_inflate(const void *data, size_t len, size_t limit,
                                              char **out, size_t *out_len,
                                              struct basalt_error *err)
{
    const uint8_t *p = data;
    enum basalt_codec_kind kind;
    *out = NULL;
    *out_len = 0;
    if (len >= 2 && p[0] == 0x1f && p[1] == 0x8b)
        kind = BASALT_CODEC_GZIP;
    else if (len >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd)
        kind = BASALT_CODEC_ZSTD;
    else
        return BASALT_OK;
    struct basalt_codec *codec = NULL;
    basalt_status st = basalt_codec_new(kind, BASALT_CODEC_LEVEL_DEFAULT, &codec, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    st = basalt_codec_decompress_grow(codec, data, len, &buf, limit, err);
    basalt_codec_free(codec);
    if (st == BASALT_LIMIT)
        basalt_error_set(err, BASALT_LIMIT, "compressed metadata inflates past %zu bytes", limit);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&buf, "", 1, err);
    if (st != BASALT_OK) {
        basalt_buffer_reset(&buf);
        return st;
    }
    *out_len = buf.size - 1;
    *out = (char *)basalt_buffer_take(&buf);
    return BASALT_OK;
}

basalt_status basalt_iceberg_read_local_file(const char *path, struct basalt_buffer *out,
                                            struct basalt_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return basalt_error_set(err, BASALT_IO, "%s: %s", path, strerror(errno));
    basalt_status st = BASALT_OK;
    for (;;) {
        if ((st = basalt_buffer_reserve(out, 65536, err)) != BASALT_OK)
            break;
        size_t n = fread(out->data + out->size, 1, out->capacity - out->size, f);
        out->size += n;
        if (n == 0) {
            if (ferror(f))
                st = basalt_error_set(err, BASALT_IO, "%s: read failed", path);
            break;
        }
    }
    fclose(f);
    return st;
}

basalt_status basalt_iceberg_metadata_read_file(const char *path,
                                                struct basalt_iceberg_metadata **out,
                                                struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (!path || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "metadata_read_file: NULL argument");
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st = basalt_iceberg_read_local_file(path, &buf, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_metadata_parse(buf.data, buf.size, path, out, err);
    basalt_buffer_reset(&buf);
    return st;
}
