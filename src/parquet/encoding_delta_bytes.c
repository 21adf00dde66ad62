/* DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY.
 *
 * Neither needs its lengths up front: the decoders find where the byte data
 * begins by walking the length streams' block headers (no unpacking), then
 * pull lengths a chunk at a time. DELTA_LENGTH_BYTE_ARRAY values are
 * contiguous in the input, so a chunk's data is a single copy. */
#include <inttypes.h>

#include "parquet_encoding.h"

#define BYTES_CHUNK 256

static inline void put_offset(const struct basalt_parquet_binary_out *out, uint64_t i, uint64_t v)
{
    if (out->offsets32)
        out->offsets32[i] = (int32_t)v;
    else
        out->offsets64[i] = (int64_t)v;
}

static void expand_offsets(const struct basalt_parquet_binary_out *out, uint64_t count,
                           const uint8_t *validity, int64_t validity_offset)
{
    if (out->offsets32)
        basalt_parquet_spaced_expand_offsets32(out->offsets32, count, validity, validity_offset);
    else
        basalt_parquet_spaced_expand_offsets64(out->offsets64, count, validity, validity_offset);
}

static basalt_status limit_error(uint64_t cap, struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_LIMIT, "byte-array data would grow past %" PRIu64 " bytes",
                            cap);
}

/* Decodes m lengths, each checked non-negative; returns their sum. */
static basalt_status next_lengths(struct basalt_parquet_delta_decoder *lengths, size_t m,
                                  int32_t *out, uint64_t *sum, const char *what,
                                  struct basalt_error *err)
{
    *sum = 0;
    basalt_status st = basalt_parquet_delta_decode_i32(lengths, m, NULL, 0, out, err);
    if (st != BASALT_OK)
        return st;
    uint64_t total = 0;
    int32_t lo = 0;
    for (size_t i = 0; i < m; i++) {
        lo = out[i] < lo ? out[i] : lo;
        total += (uint64_t)(uint32_t)out[i];
    }
    if (lo < 0)
        return basalt_error_set(err, BASALT_CORRUPT, "negative %s %" PRId32, what, lo);
    *sum = total;
    return BASALT_OK;
}

/* ------------------------------------------------- DELTA_LENGTH_BYTE_ARRAY */

basalt_status basalt_parquet_delta_length_decoder_init(struct basalt_parquet_delta_length_decoder *dec,
                                                       const uint8_t *data, size_t len,
                                                       uint64_t num_values,
                                                       struct basalt_error *err)
{
    data = basalt_parquet_nonnull(data);
    dec->data = dec->end = data;
    basalt_status st =
        basalt_parquet_delta_decoder_init(&dec->lengths, data, len, 32, num_values, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_parquet_delta_decoder walk = dec->lengths;
    size_t lengths_len;
    st = basalt_parquet_delta_decoder_finish(&walk, &lengths_len, err);
    if (st != BASALT_OK)
        return st;
    dec->data = data + lengths_len;
    dec->end = data + len;
    return BASALT_OK;
}

basalt_status basalt_parquet_delta_length_decode(struct basalt_parquet_delta_length_decoder *dec,
                                                 uint64_t count, const uint8_t *validity,
                                                 int64_t validity_offset,
                                                 const struct basalt_parquet_binary_out *out,
                                                 struct basalt_error *err)
{
    uint64_t cap;
    basalt_status st = basalt_parquet_binary_out_limit(out, &cap, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_buffer *data = out->data;
    if (data->size > cap)
        return limit_error(cap, err);
    uint64_t n = basalt_parquet_count_valid(validity, validity_offset, count);
    if (n > basalt_parquet_delta_decoder_total(&dec->lengths) ||
        n > dec->lengths.values_left)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "%" PRIu64 " byte arrays wanted, %" PRIu64 " left", n,
                                dec->lengths.values_left);
    put_offset(out, 0, data->size);
    int32_t lens[BYTES_CHUNK];
    for (uint64_t slot = 0; slot < n;) {
        size_t m = n - slot < BYTES_CHUNK ? (size_t)(n - slot) : BYTES_CHUNK;
        uint64_t total;
        st = next_lengths(&dec->lengths, m, lens, &total, "byte array length", err);
        if (st != BASALT_OK)
            return st;
        if (total > (uint64_t)(dec->end - dec->data))
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "DELTA_LENGTH_BYTE_ARRAY values of %" PRIu64
                                    " bytes run past the %zu bytes left",
                                    total, (size_t)(dec->end - dec->data));
        if (total > cap - data->size)
            return limit_error(cap, err);
        st = basalt_buffer_reserve(data, (size_t)total + 32, err);
        if (st != BASALT_OK)
            return st;
        uint64_t pos = data->size;
        for (size_t i = 0; i < m; i++) {
            pos += (uint32_t)lens[i];
            put_offset(out, slot + i + 1, pos);
        }
        memcpy(data->data + data->size, dec->data, (size_t)total);
        data->size += (size_t)total;
        dec->data += total;
        slot += m;
    }
    if (validity && n != count)
        expand_offsets(out, count, validity, validity_offset);
    return BASALT_OK;
}

static inline uint64_t view_offset(const struct basalt_parquet_binary_view *v, uint64_t i)
{
    return v->offsets32 ? (uint64_t)(int64_t)v->offsets32[i] : (uint64_t)v->offsets64[i];
}

/* Lengths of the non-null values, as int32 (LIMIT past INT32_MAX). */
static basalt_status collect_lengths(const struct basalt_parquet_binary_view *values,
                                     const void *fixed, size_t width, uint64_t count,
                                     const uint8_t *validity, int64_t validity_offset,
                                     int32_t **lengths, uint64_t *n_out,
                                     struct basalt_error *err)
{
    *lengths = NULL;
    if (values && (!values->offsets32) == (!values->offsets64))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "byte-array input needs exactly one offsets array");
    /* A page of nulls only has no value bytes at all (fixed may be NULL). */
    if (!values && (width == 0 || width > INT32_MAX || (!fixed && count > 0)))
        return basalt_error_set(err, BASALT_INVALID_ARG, "fixed-width input needs a width");
    uint64_t n = basalt_parquet_count_valid(validity, validity_offset, count);
    if (n > SIZE_MAX / sizeof(int32_t))
        return basalt_error_set(err, BASALT_LIMIT, "%" PRIu64 " values are too many", n);
    int32_t *lens = basalt_malloc(n ? (size_t)n * sizeof *lens : 1);
    if (!lens)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for %" PRIu64 " lengths", n);
    uint64_t k = 0;
    for (uint64_t i = 0; i < count; i++) {
        if (validity && !basalt_bitmap_get(validity, validity_offset + (int64_t)i))
            continue;
        uint64_t len = values ? view_offset(values, i + 1) - view_offset(values, i) : width;
        if (len > INT32_MAX) {
            basalt_free(lens);
            return basalt_error_set(err, BASALT_LIMIT,
                                    "byte array of %" PRIu64 " bytes is too long to encode", len);
        }
        lens[k++] = (int32_t)len;
    }
    *lengths = lens;
    *n_out = n;
    return BASALT_OK;
}

static const uint8_t *value_at(const struct basalt_parquet_binary_view *values, const void *fixed,
                               size_t width, uint64_t i)
{
    const uint8_t *base = values ? values->data : fixed;
    if (!base) /* only empty values may come without bytes */
        return basalt_parquet_nonnull(NULL);
    return base + (values ? view_offset(values, i) : width * i);
}

basalt_status basalt_parquet_delta_length_encode(const struct basalt_parquet_binary_view *values,
                                                 uint64_t count, const uint8_t *validity,
                                                 int64_t validity_offset,
                                                 struct basalt_buffer *out,
                                                 struct basalt_error *err)
{
    int32_t *lens;
    uint64_t n;
    basalt_status st = collect_lengths(values, NULL, 0, count, validity, validity_offset, &lens,
                                       &n, err);
    if (st != BASALT_OK)
        return st;
    size_t start = out->size;
    st = basalt_parquet_delta_encode_i32(lens, n, NULL, 0, out, err);
    for (uint64_t i = 0, k = 0; st == BASALT_OK && i < count; i++) {
        if (validity && !basalt_bitmap_get(validity, validity_offset + (int64_t)i))
            continue;
        st = basalt_buffer_append(out, value_at(values, NULL, 0, i), (size_t)lens[k++], err);
    }
    basalt_free(lens);
    if (st != BASALT_OK)
        out->size = start;
    return st;
}

/* -------------------------------------------------------- DELTA_BYTE_ARRAY */

basalt_status basalt_parquet_delta_bytes_decoder_init(struct basalt_parquet_delta_bytes_decoder *dec,
                                                      const uint8_t *data, size_t len,
                                                      uint64_t num_values,
                                                      struct basalt_error *err)
{
    basalt_buffer_init(&dec->last);
    memset(&dec->suffixes, 0, sizeof dec->suffixes);
    data = basalt_parquet_nonnull(data);
    basalt_status st =
        basalt_parquet_delta_decoder_init(&dec->prefixes, data, len, 32, num_values, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "DELTA_BYTE_ARRAY prefix lengths");
    struct basalt_parquet_delta_decoder walk = dec->prefixes;
    size_t prefixes_len;
    st = basalt_parquet_delta_decoder_finish(&walk, &prefixes_len, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "DELTA_BYTE_ARRAY prefix lengths");
    st = basalt_parquet_delta_length_decoder_init(&dec->suffixes, data + prefixes_len,
                                                  len - prefixes_len,
                                                  basalt_parquet_delta_decoder_total(&dec->prefixes),
                                                  err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "DELTA_BYTE_ARRAY suffixes");
    return BASALT_OK;
}

void basalt_parquet_delta_bytes_decoder_reset(struct basalt_parquet_delta_bytes_decoder *dec)
{
    basalt_buffer_reset(&dec->last);
}

/* The next m (prefix, suffix) length pairs; checks suffix bytes are there. */
static basalt_status next_pairs(struct basalt_parquet_delta_bytes_decoder *dec, size_t m,
                                int32_t *prefix, int32_t *suffix, struct basalt_error *err)
{
    uint64_t psum, ssum;
    basalt_status st = next_lengths(&dec->prefixes, m, prefix, &psum, "prefix length", err);
    if (st == BASALT_OK)
        st = next_lengths(&dec->suffixes.lengths, m, suffix, &ssum, "suffix length", err);
    if (st != BASALT_OK)
        return st;
    if (ssum > (uint64_t)(dec->suffixes.end - dec->suffixes.data))
        return basalt_error_set(err, BASALT_CORRUPT,
                                "DELTA_BYTE_ARRAY suffixes of %" PRIu64
                                " bytes run past the %zu bytes left",
                                ssum, (size_t)(dec->suffixes.end - dec->suffixes.data));
    return BASALT_OK;
}

static basalt_status prefix_error(int32_t prefix, uint64_t prev_len, struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_CORRUPT,
                            "DELTA_BYTE_ARRAY prefix of %" PRId32
                            " bytes is longer than the previous value (%" PRIu64 " bytes)",
                            prefix, prev_len);
}

static basalt_status bytes_want(const struct basalt_parquet_delta_bytes_decoder *dec, uint64_t n,
                                struct basalt_error *err)
{
    if (n > dec->prefixes.values_left)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "%" PRIu64 " byte arrays wanted, %" PRIu64 " left", n,
                                dec->prefixes.values_left);
    return BASALT_OK;
}

basalt_status basalt_parquet_delta_bytes_decode(struct basalt_parquet_delta_bytes_decoder *dec,
                                                uint64_t count, const uint8_t *validity,
                                                int64_t validity_offset,
                                                const struct basalt_parquet_binary_out *out,
                                                struct basalt_error *err)
{
    uint64_t cap;
    basalt_status st = basalt_parquet_binary_out_limit(out, &cap, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_buffer *data = out->data;
    if (data->size > cap)
        return limit_error(cap, err);
    uint64_t n = basalt_parquet_count_valid(validity, validity_offset, count);
    st = bytes_want(dec, n, err);
    if (st != BASALT_OK)
        return st;
    put_offset(out, 0, data->size);
    /* The previous value: in dec->last for the call's first, then in data. */
    bool prev_in_last = true;
    uint64_t prev_off = 0, prev_len = dec->last.size;
    int32_t prefix[BYTES_CHUNK], suffix[BYTES_CHUNK];
    for (uint64_t slot = 0; slot < n;) {
        size_t m = n - slot < BYTES_CHUNK ? (size_t)(n - slot) : BYTES_CHUNK;
        st = next_pairs(dec, m, prefix, suffix, err);
        if (st != BASALT_OK)
            return st;
        /* Check every prefix and size the chunk before writing anything. */
        uint64_t total = 0, plen = prev_len;
        for (size_t i = 0; i < m; i++) {
            if ((uint64_t)prefix[i] > plen)
                return prefix_error(prefix[i], plen, err);
            plen = (uint64_t)prefix[i] + (uint64_t)suffix[i];
            total += plen;
            if (total > cap - data->size)
                return limit_error(cap, err);
        }
        st = basalt_buffer_reserve(data, (size_t)total + 32, err);
        if (st != BASALT_OK)
            return st;
        uint8_t *base = data->data;
        uint64_t pos = data->size;
        for (size_t i = 0; i < m; i++) {
            size_t p = (size_t)prefix[i], s = (size_t)suffix[i];
            if (p)
                memcpy(base + pos, prev_in_last ? dec->last.data : base + prev_off, p);
            if (s)
                memcpy(base + pos + p, dec->suffixes.data, s);
            dec->suffixes.data += s;
            prev_in_last = false;
            prev_off = pos;
            prev_len = p + s;
            pos += p + s;
            put_offset(out, slot + i + 1, pos);
        }
        data->size = (size_t)pos;
        slot += m;
    }
    if (n) {
        st = basalt_buffer_resize(&dec->last, 0, err);
        if (st == BASALT_OK && prev_len)
            st = basalt_buffer_append(&dec->last, data->data + prev_off, (size_t)prev_len, err);
        if (st != BASALT_OK)
            return st;
    }
    if (validity && n != count)
        expand_offsets(out, count, validity, validity_offset);
    return BASALT_OK;
}

basalt_status basalt_parquet_delta_bytes_decode_fixed(struct basalt_parquet_delta_bytes_decoder *dec,
                                                      size_t width, uint64_t count,
                                                      const uint8_t *validity,
                                                      int64_t validity_offset, void *out,
                                                      struct basalt_error *err)
{
    if (width == 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "fixed width 0");
    uint64_t n = basalt_parquet_count_valid(validity, validity_offset, count);
    basalt_status st = bytes_want(dec, n, err);
    if (st != BASALT_OK)
        return st;
    if (n && dec->last.capacity < width) {
        /* Reserved up front so the copy of the last value cannot fail. */
        st = basalt_buffer_reserve(&dec->last, width, err);
        if (st != BASALT_OK)
            return st;
    }
    uint8_t *o = out;
    const uint8_t *prev = dec->last.data;
    uint64_t prev_len = dec->last.size;
    int32_t prefix[BYTES_CHUNK], suffix[BYTES_CHUNK];
    for (uint64_t slot = 0; slot < n;) {
        size_t m = n - slot < BYTES_CHUNK ? (size_t)(n - slot) : BYTES_CHUNK;
        st = next_pairs(dec, m, prefix, suffix, err);
        if (st != BASALT_OK)
            return st;
        for (size_t i = 0; i < m; i++) {
            size_t p = (size_t)prefix[i], s = (size_t)suffix[i];
            if (p > prev_len)
                return prefix_error(prefix[i], prev_len, err);
            if (p + s != width)
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "DELTA_BYTE_ARRAY value of %zu bytes in a column of "
                                        "width %zu",
                                        p + s, width);
            uint8_t *dst = o + (slot + i) * width;
            if (p)
                memcpy(dst, prev, p);
            memcpy(dst + p, dec->suffixes.data, s);
            dec->suffixes.data += s;
            prev = dst;
            prev_len = width;
        }
        slot += m;
    }
    if (n) {
        memcpy(dec->last.data, o + (n - 1) * width, width);
        dec->last.size = width;
    }
    if (validity && n != count)
        basalt_parquet_spaced_expand_fixed(out, width, count, validity, validity_offset);
    return BASALT_OK;
}

basalt_status basalt_parquet_delta_bytes_encode(const struct basalt_parquet_binary_view *values,
                                                const void *fixed, size_t width, uint64_t count,
                                                const uint8_t *validity, int64_t validity_offset,
                                                struct basalt_buffer *out,
                                                struct basalt_error *err)
{
    int32_t *lens;
    uint64_t n;
    basalt_status st = collect_lengths(values, fixed, width, count, validity, validity_offset,
                                       &lens, &n, err);
    if (st != BASALT_OK)
        return st;
    int32_t *prefix = basalt_malloc(n ? (size_t)n * sizeof *prefix : 1);
    if (!prefix) {
        basalt_free(lens);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for %" PRIu64 " prefixes", n);
    }
    /* Shared prefix with the previous non-null value; lens becomes the
     * suffix length. */
    const uint8_t *prev = NULL;
    size_t prev_len = 0;
    for (uint64_t i = 0, k = 0; i < count; i++) {
        if (validity && !basalt_bitmap_get(validity, validity_offset + (int64_t)i))
            continue;
        const uint8_t *v = value_at(values, fixed, width, i);
        size_t len = (size_t)lens[k], p = 0, lim = len < prev_len ? len : prev_len;
        while (p < lim && v[p] == prev[p])
            p++;
        prefix[k] = (int32_t)p;
        lens[k] = (int32_t)(len - p);
        prev = v;
        prev_len = len;
        k++;
    }
    size_t start = out->size;
    st = basalt_parquet_delta_encode_i32(prefix, n, NULL, 0, out, err);
    if (st == BASALT_OK)
        st = basalt_parquet_delta_encode_i32(lens, n, NULL, 0, out, err);
    for (uint64_t i = 0, k = 0; st == BASALT_OK && i < count; i++) {
        if (validity && !basalt_bitmap_get(validity, validity_offset + (int64_t)i))
            continue;
        const uint8_t *v = value_at(values, fixed, width, i);
        st = basalt_buffer_append(out, v + prefix[k], (size_t)lens[k], err);
        k++;
    }
    basalt_free(prefix);
    basalt_free(lens);
    if (st != BASALT_OK)
        out->size = start;
    return st;
}
