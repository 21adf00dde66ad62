/* The dictionary page: decoded once per chunk into the scratch, in the form
 * the data pages gather from. Fixed-width dictionaries are converted to the
 * output type here (int8, decimal, timestamp...), so dictionary-encoded pages
 * of converted leaves gather finished values with no per-page conversion. */
#include <inttypes.h>

#include "parquet_column.h"

static basalt_status too_many(uint32_t n, size_t len, size_t per_value, struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_CORRUPT,
                            "dictionary of %" PRIu32 " entries cannot fit in %zu bytes "
                            "(at least %zu bytes an entry)",
                            n, len, per_value);
}

/* Byte arrays into the dictionary offsets and data scratch. */
static basalt_status dict_binary(struct basalt_parquet_column_state *st, uint32_t n,
                                 const uint8_t *data, size_t len, int offsets_buf, int data_buf,
                                 int32_t **offsets_out, struct basalt_error *err)
{
    if (n > len / 4)
        return too_many(n, len, 4, err);
    uint8_t *offsets;
    basalt_status s = basalt_parquet_scratch_reserve(st->scratch, offsets_buf,
                                                     ((size_t)n + 1) * sizeof(int32_t), &offsets,
                                                     err);
    uint8_t *bytes;
    if (s == BASALT_OK)
        /* The values are at most the page's bytes: no growth while decoding. */
        s = basalt_parquet_scratch_reserve(st->scratch, data_buf, len + 64, &bytes, err);
    if (s != BASALT_OK)
        return s;
    struct basalt_parquet_binary_out bo = {
        .offsets32 = (int32_t *)(void *)offsets,
        .data = &st->scratch->buffers[data_buf],
        .max_data = INT32_MAX,
    };
    struct basalt_parquet_plain_decoder dec;
    basalt_parquet_plain_decoder_init(&dec, data, len);
    s = basalt_parquet_plain_decode_binary(&dec, n, NULL, 0, &bo, err);
    if (s != BASALT_OK)
        return s;
    *offsets_out = bo.offsets32;
    return BASALT_OK;
}

basalt_status basalt_parquet_column_dictionary(struct basalt_parquet_column_state *st,
                                               const struct basalt_parquet_page *page,
                                               const struct basalt_parquet_page_data *body,
                                               struct basalt_error *err)
{
    if (page->encoding != BASALT_PARQUET_ENCODING_PLAIN &&
        page->encoding != BASALT_PARQUET_ENCODING_PLAIN_DICTIONARY) {
        const char *name = basalt_thrift_parquet_encoding_name(page->encoding);
        return basalt_error_set(err, BASALT_UNSUPPORTED, "dictionary page encoded as %s",
                                name ? name : "an unknown encoding");
    }
    uint32_t n = (uint32_t)page->num_values;
    const uint8_t *data = body->data;
    size_t len = body->len;
    st->has_dict = true;
    st->dict_len = n;
    switch (st->kind) {
    case BASALT_PARQUET_OUT_NULL:
        return BASALT_OK;
    case BASALT_PARQUET_OUT_BOOL:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "dictionary-encoded BOOLEAN values");
    case BASALT_PARQUET_OUT_BINARY:
    case BASALT_PARQUET_OUT_INDICES: {
        int32_t *offsets = NULL;
        basalt_status s = dict_binary(st, n, data, len, BASALT_PARQUET_SCRATCH_DICT_OFFSETS,
                                      BASALT_PARQUET_SCRATCH_DICT, &offsets, err);
        if (s != BASALT_OK)
            return s;
        st->dict_offsets = offsets;
        st->dict_data = st->scratch->buffers[BASALT_PARQUET_SCRATCH_DICT].data;
        /* Checked once here, gathered values need no check. */
        if (st->utf8) {
            s = basalt_parquet_check_utf8(st->dict_data, offsets, false, 0, n, err);
            if (s != BASALT_OK)
                return basalt_error_context(err, s, "dictionary");
        }
        return BASALT_OK;
    }
    case BASALT_PARQUET_OUT_FIXED:
        break;
    }
    uint8_t *dict;
    basalt_status s;
    if (st->physical == BASALT_PARQUET_TYPE_BYTE_ARRAY) {
        /* Big-endian decimals in byte arrays: decode, then convert. */
        int32_t *offsets = NULL;
        s = dict_binary(st, n, data, len, BASALT_PARQUET_SCRATCH_OFFSETS,
                        BASALT_PARQUET_SCRATCH_BYTES, &offsets, err);
        if (s == BASALT_OK)
            s = basalt_parquet_scratch_reserve(st->scratch, BASALT_PARQUET_SCRATCH_DICT,
                                               (size_t)n * st->width, &dict, err);
        if (s == BASALT_OK)
            s = basalt_parquet_convert_binary_decimal(
                offsets, basalt_parquet_nonnull(st->scratch->buffers[BASALT_PARQUET_SCRATCH_BYTES].data),
                n, dict, st->width, err);
        if (s != BASALT_OK)
            return s;
        st->dict_values = dict;
        return BASALT_OK;
    }
    if (n > len / st->phys_width)
        return too_many(n, len, st->phys_width, err);
    s = basalt_parquet_scratch_reserve(st->scratch, BASALT_PARQUET_SCRATCH_DICT,
                                       (size_t)n * st->width, &dict, err);
    if (s == BASALT_OK)
        s = basalt_parquet_convert_fixed(st->conversion, data, st->phys_width, n, dict, st->width,
                                         err);
    if (s != BASALT_OK)
        return s;
    st->dict_values = dict;
    return BASALT_OK;
}
