/* The public decoders of basalt/parquet_format.h: each is its struct's table
 * read by the generic decoder. Also the file trailer. */
#include "pf_decode_internal.h"
#include "pf_desc.h"

/* Decodes `s` from the start of [data, data + len) into `out`; stores the
 * bytes it took in `*used` when asked. `what` names the function in
 * argument errors. */
static basalt_status decode(const struct pf_struct *s, const char *what, const void *data,
                            size_t len, struct basalt_arena *arena,
                            const struct basalt_thrift_limits *limits, void *out, size_t *used,
                            struct basalt_error *err)
{
    if (!arena || !out || (!data && len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: NULL argument", what);
    struct pf_dec d;
    basalt_thrift_pf_init(&d, data, len, arena, limits, err);
    memset(out, 0, s->size);
    basalt_status st = basalt_thrift_pf_decode(&d, s, out);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", s->name);
    if (used)
        *used = basalt_thrift_reader_offset(&d.r);
    return BASALT_OK;
}

basalt_status basalt_thrift_decode_file_metadata(const void *data, size_t len,
                                                 struct basalt_arena *arena,
                                                 const struct basalt_thrift_limits *limits,
                                                 struct basalt_parquet_file_metadata *out,
                                                 struct basalt_error *err)
{
    return decode(&basalt_thrift_pf_file_metadata, "decode_file_metadata", data, len, arena,
                  limits, out, NULL, err);
}

basalt_status basalt_thrift_decode_page_header(const void *data, size_t len,
                                               struct basalt_arena *arena,
                                               const struct basalt_thrift_limits *limits,
                                               struct basalt_parquet_page_header *out,
                                               size_t *header_len, struct basalt_error *err)
{
    return decode(&basalt_thrift_pf_page_header, "decode_page_header", data, len, arena, limits,
                  out, header_len, err);
}

basalt_status basalt_thrift_decode_column_index(const void *data, size_t len,
                                                struct basalt_arena *arena,
                                                const struct basalt_thrift_limits *limits,
                                                struct basalt_parquet_column_index *out,
                                                struct basalt_error *err)
{
    return decode(&basalt_thrift_pf_column_index, "decode_column_index", data, len, arena, limits,
                  out, NULL, err);
}

basalt_status basalt_thrift_decode_offset_index(const void *data, size_t len,
                                                struct basalt_arena *arena,
                                                const struct basalt_thrift_limits *limits,
                                                struct basalt_parquet_offset_index *out,
                                                struct basalt_error *err)
{
    return decode(&basalt_thrift_pf_offset_index, "decode_offset_index", data, len, arena, limits,
                  out, NULL, err);
}

basalt_status basalt_thrift_decode_bloom_filter_header(
    const void *data, size_t len, struct basalt_arena *arena,
    const struct basalt_thrift_limits *limits, struct basalt_parquet_bloom_filter_header *out,
    size_t *header_len, struct basalt_error *err)
{
    return decode(&basalt_thrift_pf_bloom_filter_header, "decode_bloom_filter_header", data, len,
                  arena, limits, out, header_len, err);
}

basalt_status basalt_thrift_decode_file_crypto_metadata(
    const void *data, size_t len, struct basalt_arena *arena,
    const struct basalt_thrift_limits *limits, struct basalt_parquet_file_crypto_metadata *out,
    size_t *consumed, struct basalt_error *err)
{
    return decode(&basalt_thrift_pf_file_crypto_metadata, "decode_file_crypto_metadata", data,
                  len, arena, limits, out, consumed, err);
}

/* ------------------------------------------------------------------ trailer */

basalt_status basalt_thrift_decode_trailer(const uint8_t tail[8], uint64_t file_size,
                                           uint32_t *footer_len, struct basalt_error *err)
{
    if (!tail || !footer_len)
        return basalt_error_set(err, BASALT_INVALID_ARG, "decode_trailer: NULL argument");
    /* "PAR1" + footer + length + "PAR1" is the smallest file. */
    if (file_size < 12)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "file of %llu bytes is too small to be Parquet",
                                (unsigned long long)file_size);
    uint32_t len = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 |
                   (uint32_t)tail[3] << 24;
    bool encrypted = memcmp(tail + 4, "PARE", 4) == 0;
    if (!encrypted && memcmp(tail + 4, "PAR1", 4) != 0)
        return basalt_error_set(err, BASALT_CORRUPT, "file does not end with the PAR1 magic");
    if ((uint64_t)len > file_size - 12)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "footer length %u exceeds the %llu bytes the file can hold", len,
                                (unsigned long long)(file_size - 12));
    *footer_len = len;
    if (encrypted)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "encrypted footer (PARE): Parquet modular encryption is not "
                                "supported");
    return BASALT_OK;
}
