/* Page headers, page indexes, bloom filter headers, the crypto prefix of an
 * encrypted footer, and the file trailer. */
#include "pf_decode_internal.h"

/* ------------------------------------------------------------------ page header */

static const char *const data_page_fields[] = {"", "num_values", "encoding",
                                               "definition_level_encoding",
                                               "repetition_level_encoding"};

static basalt_status data_page_header(struct pf_dec *d, struct basalt_parquet_data_page_header *h)
{
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &h->num_values, d->err));
        SEEN(1);
        continue;
    case 2:
        EXPECT(I32);
        TRY(pf_enum(d, &h->encoding, "Encoding"));
        SEEN(2);
        continue;
    case 3:
        EXPECT(I32);
        TRY(pf_enum(d, &h->definition_level_encoding, "Encoding"));
        SEEN(3);
        continue;
    case 4:
        EXPECT(I32);
        TRY(pf_enum(d, &h->repetition_level_encoding, "Encoding"));
        SEEN(4);
        continue;
    case 5:
        EXPECT(STRUCT);
        TRY_IN(d, basalt_thrift_pf_statistics(d, &h->statistics), "statistics");
        h->has_statistics = true;
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY((seen & 0x1eu) != 0x1eu))
        return basalt_thrift_pf_missing(d, "DataPageHeader", seen, 0x1eu, data_page_fields);
    return BASALT_OK;
}

static const char *const dictionary_page_fields[] = {"", "num_values", "encoding"};

static basalt_status dictionary_page_header(struct pf_dec *d,
                                            struct basalt_parquet_dictionary_page_header *h)
{
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &h->num_values, d->err));
        SEEN(1);
        continue;
    case 2:
        EXPECT(I32);
        TRY(pf_enum(d, &h->encoding, "Encoding"));
        SEEN(2);
        continue;
    case 3:
        EXPECT(BOOL);
        h->is_sorted = f.bool_value;
        h->has_is_sorted = true;
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY((seen & 6u) != 6u))
        return basalt_thrift_pf_missing(d, "DictionaryPageHeader", seen, 6u,
                                        dictionary_page_fields);
    return BASALT_OK;
}

static const char *const data_page_v2_fields[] = {"",
                                                  "num_values",
                                                  "num_nulls",
                                                  "num_rows",
                                                  "encoding",
                                                  "definition_levels_byte_length",
                                                  "repetition_levels_byte_length"};

static basalt_status data_page_header_v2(struct pf_dec *d,
                                         struct basalt_parquet_data_page_header_v2 *h)
{
    h->is_compressed = true;
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &h->num_values, d->err));
        SEEN(1);
        continue;
    case 2:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &h->num_nulls, d->err));
        SEEN(2);
        continue;
    case 3:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &h->num_rows, d->err));
        SEEN(3);
        continue;
    case 4:
        EXPECT(I32);
        TRY(pf_enum(d, &h->encoding, "Encoding"));
        SEEN(4);
        continue;
    case 5:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &h->definition_levels_byte_length, d->err));
        SEEN(5);
        continue;
    case 6:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &h->repetition_levels_byte_length, d->err));
        SEEN(6);
        continue;
    case 7:
        EXPECT(BOOL);
        h->is_compressed = f.bool_value;
        h->has_is_compressed = true;
        continue;
    case 8:
        EXPECT(STRUCT);
        TRY_IN(d, basalt_thrift_pf_statistics(d, &h->statistics), "statistics");
        h->has_statistics = true;
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY((seen & 0x7eu) != 0x7eu))
        return basalt_thrift_pf_missing(d, "DataPageHeaderV2", seen, 0x7eu, data_page_v2_fields);
    return BASALT_OK;
}

static const char *const page_header_fields[] = {"", "type", "uncompressed_page_size",
                                                 "compressed_page_size"};

static basalt_status page_header(struct pf_dec *d, struct basalt_parquet_page_header *h)
{
    memset(h, 0, sizeof *h);
    h->data_page_header_v2.is_compressed = true;
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(I32);
        TRY(pf_enum(d, &h->type, "PageType"));
        SEEN(1);
        continue;
    case 2:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &h->uncompressed_page_size, d->err));
        SEEN(2);
        continue;
    case 3:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &h->compressed_page_size, d->err));
        SEEN(3);
        continue;
    case 4:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &h->crc, d->err));
        h->has_crc = true;
        continue;
    case 5:
        EXPECT(STRUCT);
        TRY_IN(d, data_page_header(d, &h->data_page_header), "data_page_header");
        h->has_data_page_header = true;
        continue;
    case 6:
        EXPECT(STRUCT);
        /* IndexPageHeader has no fields; skipping reads whatever a later
         * version puts there. */
        TRY_IN(d, basalt_thrift_read_skip(&d->r, BASALT_THRIFT_TYPE_STRUCT, d->err),
               "index_page_header");
        h->has_index_page_header = true;
        continue;
    case 7:
        EXPECT(STRUCT);
        TRY_IN(d, dictionary_page_header(d, &h->dictionary_page_header),
               "dictionary_page_header");
        h->has_dictionary_page_header = true;
        continue;
    case 8:
        EXPECT(STRUCT);
        TRY_IN(d, data_page_header_v2(d, &h->data_page_header_v2), "data_page_header_v2");
        h->has_data_page_header_v2 = true;
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY((seen & 0xeu) != 0xeu))
        return basalt_thrift_pf_missing(d, "PageHeader", seen, 0xeu, page_header_fields);
    return BASALT_OK;
}

static basalt_status check_args(const void *data, size_t len, struct basalt_arena *arena,
                                const void *out, const char *what, struct basalt_error *err)
{
    if (!arena || !out || (!data && len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: NULL argument", what);
    return BASALT_OK;
}

basalt_status basalt_thrift_decode_page_header(const void *data, size_t len,
                                               struct basalt_arena *arena,
                                               const struct basalt_thrift_limits *limits,
                                               struct basalt_parquet_page_header *out,
                                               size_t *header_len, struct basalt_error *err)
{
    TRY(check_args(data, len, arena, out, "decode_page_header", err));
    struct pf_dec d;
    basalt_thrift_pf_init(&d, data, len, arena, limits, err);
    basalt_status st = page_header(&d, out);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "PageHeader");
    if (header_len)
        *header_len = basalt_thrift_reader_offset(&d.r);
    return BASALT_OK;
}

/* ------------------------------------------------------------------ page index */

static const char *const column_index_fields[] = {"", "null_pages", "min_values", "max_values",
                                                  "boundary_order"};

static basalt_status binary_list(struct pf_dec *d, const struct basalt_parquet_binary **out,
                                 size_t *count)
{
    void *p;
    size_t n;
    TRY(basalt_thrift_pf_list(d, BASALT_THRIFT_TYPE_BINARY, sizeof(struct basalt_parquet_binary),
                              1, &p, &n));
    struct basalt_parquet_binary *v = p;
    for (size_t i = 0; i < n; i++)
        TRY(pf_binary(d, &v[i]));
    *out = v;
    *count = n;
    return BASALT_OK;
}

static basalt_status bool_list(struct pf_dec *d, const bool **out, size_t *count)
{
    void *p;
    size_t n;
    TRY(basalt_thrift_pf_list(d, BASALT_THRIFT_TYPE_BOOL, sizeof(bool), 1, &p, &n));
    bool *v = p;
    for (size_t i = 0; i < n; i++)
        TRY(tr_bool(&d->r, &v[i], d->err));
    *out = v;
    *count = n;
    return BASALT_OK;
}

static basalt_status column_index(struct pf_dec *d, struct basalt_parquet_column_index *ci)
{
    memset(ci, 0, sizeof *ci);
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(LIST);
        TRY_IN(d, bool_list(d, &ci->null_pages, &ci->num_null_pages), "null_pages");
        SEEN(1);
        continue;
    case 2:
        EXPECT(LIST);
        TRY_IN(d, binary_list(d, &ci->min_values, &ci->num_min_values), "min_values");
        SEEN(2);
        continue;
    case 3:
        EXPECT(LIST);
        TRY_IN(d, binary_list(d, &ci->max_values, &ci->num_max_values), "max_values");
        SEEN(3);
        continue;
    case 4:
        EXPECT(I32);
        TRY(pf_enum(d, &ci->boundary_order, "BoundaryOrder"));
        SEEN(4);
        continue;
    case 5:
        EXPECT(LIST);
        TRY_IN(d, basalt_thrift_pf_i64_list(d, &ci->null_counts, &ci->num_null_counts),
               "null_counts");
        ci->has_null_counts = true;
        continue;
    case 6:
        EXPECT(LIST);
        TRY_IN(d,
               basalt_thrift_pf_i64_list(d, &ci->repetition_level_histograms,
                                         &ci->num_repetition_level_histograms),
               "repetition_level_histograms");
        ci->has_repetition_level_histograms = true;
        continue;
    case 7:
        EXPECT(LIST);
        TRY_IN(d,
               basalt_thrift_pf_i64_list(d, &ci->definition_level_histograms,
                                         &ci->num_definition_level_histograms),
               "definition_level_histograms");
        ci->has_definition_level_histograms = true;
        continue;
    case 8:
        EXPECT(LIST);
        TRY_IN(d, basalt_thrift_pf_i64_list(d, &ci->nan_counts, &ci->num_nan_counts),
               "nan_counts");
        ci->has_nan_counts = true;
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY((seen & 0x1eu) != 0x1eu))
        return basalt_thrift_pf_missing(d, "ColumnIndex", seen, 0x1eu, column_index_fields);
    return BASALT_OK;
}

basalt_status basalt_thrift_decode_column_index(const void *data, size_t len,
                                                struct basalt_arena *arena,
                                                const struct basalt_thrift_limits *limits,
                                                struct basalt_parquet_column_index *out,
                                                struct basalt_error *err)
{
    TRY(check_args(data, len, arena, out, "decode_column_index", err));
    struct pf_dec d;
    basalt_thrift_pf_init(&d, data, len, arena, limits, err);
    basalt_status st = column_index(&d, out);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "ColumnIndex");
    return BASALT_OK;
}

static const char *const page_location_fields[] = {"", "offset", "compressed_page_size",
                                                   "first_row_index"};

static basalt_status page_location(struct pf_dec *d, struct basalt_parquet_page_location *pl)
{
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &pl->offset, d->err));
        SEEN(1);
        continue;
    case 2:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &pl->compressed_page_size, d->err));
        SEEN(2);
        continue;
    case 3:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &pl->first_row_index, d->err));
        SEEN(3);
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY((seen & 0xeu) != 0xeu))
        return basalt_thrift_pf_missing(d, "PageLocation", seen, 0xeu, page_location_fields);
    return BASALT_OK;
}

static const char *const offset_index_fields[] = {"", "page_locations"};

static basalt_status offset_index(struct pf_dec *d, struct basalt_parquet_offset_index *oi)
{
    memset(oi, 0, sizeof *oi);
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1: {
        EXPECT(LIST);
        void *p;
        size_t n;
        /* Three required fields: at least 7 bytes. */
        TRY_IN(d,
               basalt_thrift_pf_list(d, BASALT_THRIFT_TYPE_STRUCT,
                                     sizeof(struct basalt_parquet_page_location), 7, &p, &n),
               "page_locations");
        struct basalt_parquet_page_location *v = p;
        for (size_t i = 0; i < n; i++)
            TRY_IN(d, page_location(d, &v[i]), "page_locations[%zu]", i);
        oi->page_locations = v;
        oi->num_page_locations = n;
        SEEN(1);
        continue;
    }
    case 2:
        EXPECT(LIST);
        TRY_IN(d,
               basalt_thrift_pf_i64_list(d, &oi->unencoded_byte_array_data_bytes,
                                         &oi->num_unencoded_byte_array_data_bytes),
               "unencoded_byte_array_data_bytes");
        oi->has_unencoded_byte_array_data_bytes = true;
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY(!(seen & 2u)))
        return basalt_thrift_pf_missing(d, "OffsetIndex", seen, 2u, offset_index_fields);
    return BASALT_OK;
}

basalt_status basalt_thrift_decode_offset_index(const void *data, size_t len,
                                                struct basalt_arena *arena,
                                                const struct basalt_thrift_limits *limits,
                                                struct basalt_parquet_offset_index *out,
                                                struct basalt_error *err)
{
    TRY(check_args(data, len, arena, out, "decode_offset_index", err));
    struct pf_dec d;
    basalt_thrift_pf_init(&d, data, len, arena, limits, err);
    basalt_status st = offset_index(&d, out);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "OffsetIndex");
    return BASALT_OK;
}

/* ------------------------------------------------------------------ bloom filter */

static const char *const bloom_fields[] = {"", "numBytes", "algorithm", "hash", "compression"};

static basalt_status bloom_filter_header(struct pf_dec *d,
                                         struct basalt_parquet_bloom_filter_header *h)
{
    memset(h, 0, sizeof *h);
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &h->num_bytes, d->err));
        SEEN(1);
        continue;
    case 2:
        EXPECT(STRUCT);
        TRY_IN(d, basalt_thrift_pf_empty_union(d, "BloomFilterAlgorithm", &h->algorithm),
               "algorithm");
        SEEN(2);
        continue;
    case 3:
        EXPECT(STRUCT);
        TRY_IN(d, basalt_thrift_pf_empty_union(d, "BloomFilterHash", &h->hash), "hash");
        SEEN(3);
        continue;
    case 4:
        EXPECT(STRUCT);
        TRY_IN(d, basalt_thrift_pf_empty_union(d, "BloomFilterCompression", &h->compression),
               "compression");
        SEEN(4);
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY((seen & 0x1eu) != 0x1eu))
        return basalt_thrift_pf_missing(d, "BloomFilterHeader", seen, 0x1eu, bloom_fields);
    return BASALT_OK;
}

basalt_status basalt_thrift_decode_bloom_filter_header(
    const void *data, size_t len, struct basalt_arena *arena,
    const struct basalt_thrift_limits *limits, struct basalt_parquet_bloom_filter_header *out,
    size_t *header_len, struct basalt_error *err)
{
    TRY(check_args(data, len, arena, out, "decode_bloom_filter_header", err));
    struct pf_dec d;
    basalt_thrift_pf_init(&d, data, len, arena, limits, err);
    basalt_status st = bloom_filter_header(&d, out);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "BloomFilterHeader");
    if (header_len)
        *header_len = basalt_thrift_reader_offset(&d.r);
    return BASALT_OK;
}

/* ------------------------------------------------------------------ encryption */

static const char *const file_crypto_fields[] = {"", "encryption_algorithm"};

static basalt_status file_crypto_metadata(struct pf_dec *d,
                                          struct basalt_parquet_file_crypto_metadata *m)
{
    memset(m, 0, sizeof *m);
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(STRUCT);
        TRY_IN(d, basalt_thrift_pf_encryption_algorithm(d, &m->encryption_algorithm),
               "encryption_algorithm");
        SEEN(1);
        continue;
    case 2:
        EXPECT(BINARY);
        TRY(pf_binary(d, &m->key_metadata));
        m->has_key_metadata = true;
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY(!(seen & 2u)))
        return basalt_thrift_pf_missing(d, "FileCryptoMetaData", seen, 2u, file_crypto_fields);
    return BASALT_OK;
}

basalt_status basalt_thrift_decode_file_crypto_metadata(
    const void *data, size_t len, struct basalt_arena *arena,
    const struct basalt_thrift_limits *limits, struct basalt_parquet_file_crypto_metadata *out,
    size_t *consumed, struct basalt_error *err)
{
    TRY(check_args(data, len, arena, out, "decode_file_crypto_metadata", err));
    struct pf_dec d;
    basalt_thrift_pf_init(&d, data, len, arena, limits, err);
    basalt_status st = file_crypto_metadata(&d, out);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "FileCryptoMetaData");
    if (consumed)
        *consumed = basalt_thrift_reader_offset(&d.r);
    return BASALT_OK;
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
