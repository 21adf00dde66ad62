/* The values of one data page, by encoding and output layout. Values go
 * straight into the output buffers wherever the physical form is the output
 * form; otherwise they are decoded densely into the scratch, converted into
 * the output and spread over the page's slots. */
#include <inttypes.h>

#include "parquet_column.h"

static bool is_dictionary_encoding(int32_t encoding)
{
    return encoding == BASALT_PARQUET_ENCODING_PLAIN_DICTIONARY ||
           encoding == BASALT_PARQUET_ENCODING_RLE_DICTIONARY;
}

static basalt_status unsupported(const struct basalt_parquet_column_state *st, int32_t encoding,
                                 struct basalt_error *err)
{
    const char *name = basalt_thrift_parquet_encoding_name(encoding);
    const char *type = basalt_thrift_parquet_type_name(st->physical);
    if (name)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "%s values encoded as %s",
                                type ? type : "?", name);
    return basalt_error_set(err, BASALT_UNSUPPORTED, "%s values in unknown encoding %" PRId32,
                            type ? type : "?", encoding);
}

/* The index stream of a dictionary-encoded page. */
static basalt_status indices_init(struct basalt_parquet_rle_decoder *dec, const uint8_t *data,
                                  size_t len, uint64_t n_present, struct basalt_error *err)
{
    return basalt_parquet_dict_indices_init(dec, data, len, n_present, err);
}

static basalt_status no_dictionary(struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_CORRUPT, "dictionary indices without a dictionary");
}

/* ------------------------------------------------------------------ booleans */

static basalt_status bool_values(struct basalt_parquet_column_state *st, int32_t encoding,
                                 const uint8_t *data, size_t len, int64_t slot, uint64_t count,
                                 const uint8_t *validity, uint64_t n_present,
                                 struct basalt_error *err)
{
    uint8_t *bits = st->values;
    basalt_status s;
    if (encoding == BASALT_PARQUET_ENCODING_PLAIN) {
        struct basalt_parquet_plain_decoder dec;
        basalt_parquet_plain_decoder_init(&dec, data, len);
        s = basalt_parquet_plain_decode_bool(&dec, count, validity, slot, bits, slot, err);
    } else if (encoding == BASALT_PARQUET_ENCODING_RLE) {
        /* RLE booleans carry the 4-byte length prefix in v1 and v2 pages. */
        struct basalt_parquet_rle_decoder dec;
        size_t used;
        s = basalt_parquet_rle_decoder_init_prefixed(&dec, data, len, 1, n_present, &used, err);
        if (s == BASALT_OK)
            s = basalt_parquet_rle_decode_bitmap(&dec, n_present, bits, slot, NULL, err);
        if (s == BASALT_OK && validity && n_present != count)
            basalt_parquet_spaced_expand_bits(bits, slot, count, validity, slot);
    } else {
        return unsupported(st, encoding, err);
    }
    if (s == BASALT_OK)
        st->scratch->stats.values_direct++;
    return s;
}

/* ------------------------------------------------------------------ fixed width */

/* An INT32 DELTA_BINARY_PACKED stream that 32-bit decoding refused, read
 * again with 64-bit arithmetic and truncated. Some writers (DuckDB) compute
 * INT32 deltas in 64 bits, so a miniblock may be 33 bits wide; modulo 2^32
 * the values are the same. A stream that is corrupt fails here too. */
static basalt_status delta_i32_wide(struct basalt_parquet_column_state *st, const uint8_t *data,
                                    size_t len, uint64_t count, const uint8_t *validity,
                                    int64_t voff, uint8_t *out, struct basalt_error *err)
{
    uint64_t n = basalt_parquet_count_valid(validity, voff, count);
    if (n > SIZE_MAX / 16)
        return basalt_error_set(err, BASALT_LIMIT, "%" PRIu64 " values", n);
    struct basalt_error retry;
    basalt_error_init(&retry);
    uint8_t *wide;
    basalt_status s = basalt_parquet_scratch_reserve(st->scratch, BASALT_PARQUET_SCRATCH_BYTES,
                                                     (size_t)n * 8 + 64, &wide, &retry);
    struct basalt_parquet_delta_decoder dec;
    if (s == BASALT_OK)
        s = basalt_parquet_delta_decoder_init(&dec, data, len, 64, UINT64_MAX, &retry);
    if (s == BASALT_OK)
        s = basalt_parquet_delta_decode_i64(&dec, n, NULL, 0, (int64_t *)(void *)wide, &retry);
    if (s == BASALT_NOMEM)
        return basalt_error_set(err, s, "%s", retry.message);
    if (s != BASALT_OK)
        return BASALT_CORRUPT; /* the caller reports the 32-bit decoder's message */
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, wide + 8 * i, 8);
        uint32_t w = (uint32_t)v;
        memcpy(out + 4 * i, &w, 4);
    }
    if (validity && n != count)
        basalt_parquet_spaced_expand_fixed(out, 4, count, validity, voff);
    return BASALT_OK;
}

/* Values whose physical form is the output form, straight into `out`. */
static basalt_status fixed_direct(struct basalt_parquet_column_state *st, int32_t encoding,
                                  const uint8_t *data, size_t len, uint64_t count,
                                  const uint8_t *validity, int64_t voff, uint8_t *out,
                                  size_t width, struct basalt_error *err)
{
    switch (encoding) {
    case BASALT_PARQUET_ENCODING_PLAIN: {
        struct basalt_parquet_plain_decoder dec;
        basalt_parquet_plain_decoder_init(&dec, data, len);
        return basalt_parquet_plain_decode_fixed(&dec, width, count, validity, voff, out, err);
    }
    case BASALT_PARQUET_ENCODING_DELTA_BINARY_PACKED: {
        if (st->physical != BASALT_PARQUET_TYPE_INT32 && st->physical != BASALT_PARQUET_TYPE_INT64)
            break;
        struct basalt_parquet_delta_decoder dec;
        bool is32 = st->physical == BASALT_PARQUET_TYPE_INT32;
        basalt_status s =
            basalt_parquet_delta_decoder_init(&dec, data, len, is32 ? 32 : 64, UINT64_MAX, err);
        if (s != BASALT_OK)
            return s;
        if (!is32)
            return basalt_parquet_delta_decode_i64(&dec, count, validity, voff,
                                                   (int64_t *)(void *)out, err);
        struct basalt_error first;
        basalt_error_init(&first);
        s = basalt_parquet_delta_decode_i32(&dec, count, validity, voff, (int32_t *)(void *)out,
                                            &first);
        if (s == BASALT_CORRUPT)
            s = delta_i32_wide(st, data, len, count, validity, voff, out, err);
        if (s == BASALT_CORRUPT || (s != BASALT_OK && s != BASALT_NOMEM))
            return basalt_error_set(err, s, "%s", first.message);
        return s;
    }
    case BASALT_PARQUET_ENCODING_DELTA_BYTE_ARRAY: {
        if (st->physical != BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY)
            break;
        struct basalt_parquet_delta_bytes_decoder dec;
        basalt_status s = basalt_parquet_delta_bytes_decoder_init(&dec, data, len, UINT64_MAX, err);
        if (s == BASALT_OK)
            s = basalt_parquet_delta_bytes_decode_fixed(&dec, width, count, validity, voff, out,
                                                        err);
        basalt_parquet_delta_bytes_decoder_reset(&dec);
        return s;
    }
    case BASALT_PARQUET_ENCODING_BYTE_STREAM_SPLIT: {
        if (st->physical == BASALT_PARQUET_TYPE_BOOLEAN ||
            st->physical == BASALT_PARQUET_TYPE_BYTE_ARRAY ||
            st->physical == BASALT_PARQUET_TYPE_INT96)
            break;
        struct basalt_parquet_bss_decoder dec;
        basalt_status s = basalt_parquet_bss_decoder_init(&dec, data, len, width, err);
        if (s == BASALT_OK)
            s = basalt_parquet_bss_decode(&dec, count, validity, voff, out, err);
        return s;
    }
    default:
        break;
    }
    return unsupported(st, encoding, err);
}

/* Byte-array values densely into the conversion scratch (offsets and data). */
static basalt_status binary_scratch(struct basalt_parquet_column_state *st, int32_t encoding,
                                    const uint8_t *data, size_t len, uint64_t n,
                                    int32_t **offsets_out, struct basalt_error *err);

static basalt_status fixed_values(struct basalt_parquet_column_state *st, int32_t encoding,
                                  const uint8_t *data, size_t len, int64_t slot, uint64_t count,
                                  const uint8_t *validity, uint64_t n_present,
                                  struct basalt_error *err)
{
    const size_t width = st->width;
    uint8_t *out = st->values + (size_t)slot * width;
    basalt_status s;
    if (is_dictionary_encoding(encoding)) {
        if (!st->has_dict)
            return no_dictionary(err);
        struct basalt_parquet_rle_decoder dec;
        s = indices_init(&dec, data, len, n_present, err);
        if (s == BASALT_OK)
            s = basalt_parquet_dict_gather_fixed(&dec, st->dict_values, st->dict_len, width, count,
                                                 validity, slot, out, err);
        if (s == BASALT_OK)
            st->scratch->stats.dict_gathered++;
        return s;
    }
    if (st->conversion == BASALT_PARQUET_CONVERT_NONE) {
        s = fixed_direct(st, encoding, data, len, count, validity, slot, out, width, err);
        if (s == BASALT_OK)
            st->scratch->stats.values_direct++;
        return s;
    }
    /* Dense physical values into the scratch, converted into the output. */
    if (st->physical == BASALT_PARQUET_TYPE_BYTE_ARRAY) {
        int32_t *offsets = NULL;
        s = binary_scratch(st, encoding, data, len, n_present, &offsets, err);
        if (s == BASALT_OK)
            s = basalt_parquet_convert_binary_decimal(
                offsets,
                basalt_parquet_nonnull(st->scratch->buffers[BASALT_PARQUET_SCRATCH_BYTES].data),
                (size_t)n_present, out, width, err);
    } else {
        if (n_present > SIZE_MAX / st->phys_width)
            return basalt_error_set(err, BASALT_LIMIT, "%" PRIu64 " values", n_present);
        uint8_t *phys;
        s = basalt_parquet_scratch_reserve(st->scratch, BASALT_PARQUET_SCRATCH_VALUES,
                                           (size_t)n_present * st->phys_width + 64, &phys, err);
        if (s == BASALT_OK)
            s = fixed_direct(st, encoding, data, len, n_present, NULL, 0, phys, st->phys_width,
                             err);
        if (s == BASALT_OK)
            s = basalt_parquet_convert_fixed(st->conversion, phys, st->phys_width,
                                             (size_t)n_present, out, width, err);
    }
    if (s != BASALT_OK)
        return s;
    if (validity && n_present != count)
        basalt_parquet_spaced_expand_fixed(out, width, count, validity, slot);
    st->scratch->stats.values_converted++;
    return BASALT_OK;
}

/* ------------------------------------------------------------------ byte arrays */

static basalt_status delta_bytes(struct basalt_parquet_column_state *st, const uint8_t *data,
                                 size_t len, uint64_t count, const uint8_t *validity,
                                 int64_t voff, const struct basalt_parquet_binary_out *bo,
                                 struct basalt_error *err)
{
    struct basalt_parquet_delta_bytes_decoder dec;
    basalt_status s = basalt_parquet_delta_bytes_decoder_init(&dec, data, len, UINT64_MAX, err);
    if (s == BASALT_OK) {
        /* The decoder keeps its previous value in `last`; lend it the
         * scratch's buffer so pages after the first allocate nothing. */
        struct basalt_buffer *keep = &st->scratch->buffers[BASALT_PARQUET_SCRATCH_DELTA_LAST];
        basalt_buffer_reset(&dec.last);
        dec.last = *keep;
        dec.last.size = 0;
        basalt_buffer_init(keep);
        s = basalt_parquet_delta_bytes_decode(&dec, count, validity, voff, bo, err);
        *keep = dec.last;
        basalt_buffer_init(&dec.last);
    }
    basalt_parquet_delta_bytes_decoder_reset(&dec);
    return s;
}

static basalt_status binary_any(struct basalt_parquet_column_state *st, int32_t encoding,
                                const uint8_t *data, size_t len, uint64_t count,
                                const uint8_t *validity, int64_t voff,
                                const struct basalt_parquet_binary_out *bo,
                                struct basalt_error *err)
{
    switch (encoding) {
    case BASALT_PARQUET_ENCODING_PLAIN: {
        struct basalt_parquet_plain_decoder dec;
        basalt_parquet_plain_decoder_init(&dec, data, len);
        return basalt_parquet_plain_decode_binary(&dec, count, validity, voff, bo, err);
    }
    case BASALT_PARQUET_ENCODING_DELTA_LENGTH_BYTE_ARRAY: {
        struct basalt_parquet_delta_length_decoder dec;
        basalt_status s =
            basalt_parquet_delta_length_decoder_init(&dec, data, len, UINT64_MAX, err);
        if (s == BASALT_OK)
            s = basalt_parquet_delta_length_decode(&dec, count, validity, voff, bo, err);
        return s;
    }
    case BASALT_PARQUET_ENCODING_DELTA_BYTE_ARRAY:
        return delta_bytes(st, data, len, count, validity, voff, bo, err);
    default:
        return unsupported(st, encoding, err);
    }
}

static basalt_status binary_scratch(struct basalt_parquet_column_state *st, int32_t encoding,
                                    const uint8_t *data, size_t len, uint64_t n,
                                    int32_t **offsets_out, struct basalt_error *err)
{
    if (n >= SIZE_MAX / sizeof(int32_t))
        return basalt_error_set(err, BASALT_LIMIT, "%" PRIu64 " values", n);
    uint8_t *offsets, *bytes;
    basalt_status s = basalt_parquet_scratch_reserve(st->scratch, BASALT_PARQUET_SCRATCH_OFFSETS,
                                                     ((size_t)n + 1) * sizeof(int32_t), &offsets,
                                                     err);
    if (s == BASALT_OK)
        s = basalt_parquet_scratch_reserve(st->scratch, BASALT_PARQUET_SCRATCH_BYTES, len + 64,
                                           &bytes, err);
    if (s != BASALT_OK)
        return s;
    struct basalt_parquet_binary_out bo = {
        .offsets32 = (int32_t *)(void *)offsets,
        .data = &st->scratch->buffers[BASALT_PARQUET_SCRATCH_BYTES],
        .max_data = INT32_MAX,
    };
    s = binary_any(st, encoding, data, len, n, NULL, 0, &bo, err);
    *offsets_out = bo.offsets32;
    return s;
}

static basalt_status binary_values(struct basalt_parquet_column_state *st, int32_t encoding,
                                   const uint8_t *data, size_t len, int64_t slot, uint64_t count,
                                   const uint8_t *validity, uint64_t n_present,
                                   struct basalt_error *err)
{
    struct basalt_parquet_binary_out bo = {
        .offsets32 = st->large ? NULL : (int32_t *)(void *)st->values + slot,
        .offsets64 = st->large ? (int64_t *)(void *)st->values + slot : NULL,
        .data = &st->data,
        .max_data = st->max_data,
    };
    basalt_status s;
    if (is_dictionary_encoding(encoding)) {
        if (!st->has_dict)
            return no_dictionary(err);
        struct basalt_parquet_rle_decoder dec;
        struct basalt_parquet_dict_binary dict = {
            .offsets = st->dict_offsets,
            .data = basalt_parquet_nonnull(st->dict_data),
            .count = st->dict_len,
        };
        s = indices_init(&dec, data, len, n_present, err);
        if (s == BASALT_OK)
            s = basalt_parquet_dict_gather_binary(&dec, &dict, count, validity, slot, &bo, err);
        if (s == BASALT_OK)
            st->scratch->stats.dict_gathered++;
        return s;
    }
    s = binary_any(st, encoding, data, len, count, validity, slot, &bo, err);
    if (s == BASALT_OK && st->utf8)
        s = basalt_parquet_check_utf8(st->data.data, st->values, st->large, (uint64_t)slot, count,
                                      err);
    if (s == BASALT_OK)
        st->scratch->stats.values_direct++;
    return s;
}

/* ------------------------------------------------------------------ indices */

static basalt_status index_values(struct basalt_parquet_column_state *st, int32_t encoding,
                                  const uint8_t *data, size_t len, int64_t slot, uint64_t count,
                                  const uint8_t *validity, uint64_t n_present,
                                  struct basalt_error *err)
{
    if (!is_dictionary_encoding(encoding))
        return basalt_error_set(err, BASALT_INTERNAL, "dictionary output from a plain page");
    if (!st->has_dict)
        return no_dictionary(err);
    struct basalt_parquet_rle_decoder dec;
    basalt_status s = indices_init(&dec, data, len, n_present, err);
    if (s == BASALT_OK)
        s = basalt_parquet_dict_decode_indices(&dec, st->dict_len, count, validity, slot,
                                               (int32_t *)(void *)st->values + slot, err);
    if (s == BASALT_OK)
        st->scratch->stats.dict_indices++;
    return s;
}

/* Slots of a page without values (all null): no values section is read,
 * since writers differ in what they put there. */
static basalt_status empty_slots(struct basalt_parquet_column_state *st, int64_t slot,
                                 uint64_t count)
{
    switch (st->kind) {
    case BASALT_PARQUET_OUT_NULL:
        break;
    case BASALT_PARQUET_OUT_BOOL:
        basalt_bitmap_fill(st->values, slot, (int64_t)count, false);
        break;
    case BASALT_PARQUET_OUT_FIXED:
    case BASALT_PARQUET_OUT_INDICES:
        memset(st->values + (size_t)slot * st->width, 0, (size_t)count * st->width);
        break;
    case BASALT_PARQUET_OUT_BINARY:
        if (st->large) {
            int64_t *o = (int64_t *)(void *)st->values + slot;
            for (uint64_t i = 0; i <= count; i++)
                o[i] = (int64_t)st->data.size;
        } else {
            int32_t *o = (int32_t *)(void *)st->values + slot;
            for (uint64_t i = 0; i <= count; i++)
                o[i] = (int32_t)st->data.size;
        }
        break;
    }
    return BASALT_OK;
}

basalt_status basalt_parquet_column_values(struct basalt_parquet_column_state *st,
                                           int32_t encoding, const uint8_t *data, size_t len,
                                           int64_t slot, uint64_t count, const uint8_t *validity,
                                           uint64_t n_present, struct basalt_error *err)
{
    if (count == 0)
        return BASALT_OK;
    if (n_present == 0)
        return empty_slots(st, slot, count);
    switch (st->kind) {
    case BASALT_PARQUET_OUT_NULL:
        return BASALT_OK;
    case BASALT_PARQUET_OUT_BOOL:
        return bool_values(st, encoding, data, len, slot, count, validity, n_present, err);
    case BASALT_PARQUET_OUT_FIXED:
        return fixed_values(st, encoding, data, len, slot, count, validity, n_present, err);
    case BASALT_PARQUET_OUT_BINARY:
        return binary_values(st, encoding, data, len, slot, count, validity, n_present, err);
    case BASALT_PARQUET_OUT_INDICES:
        return index_values(st, encoding, data, len, slot, count, validity, n_present, err);
    }
    return basalt_error_set(err, BASALT_INTERNAL, "unknown output kind");
}
