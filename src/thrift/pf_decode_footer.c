/* FileMetaData and everything under it. */
#include "pf_decode_internal.h"

/* ------------------------------------------------------------------ schema */

static basalt_status time_unit(struct pf_dec *d, int32_t *unit)
{
    return basalt_thrift_pf_empty_union(d, "TimeUnit", unit);
}

static const char *const decimal_fields[] = {"", "scale", "precision"};

static basalt_status decimal_type(struct pf_dec *d, struct basalt_parquet_logical_type *lt)
{
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &lt->decimal.scale, d->err));
        SEEN(1);
        continue;
    case 2:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &lt->decimal.precision, d->err));
        SEEN(2);
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY((seen & 6u) != 6u))
        return basalt_thrift_pf_missing(d, "DecimalType", seen, 6u, decimal_fields);
    return BASALT_OK;
}

static const char *const time_fields[] = {"", "isAdjustedToUTC", "unit"};

/* TimeType and TimestampType have the same fields. */
static basalt_status time_type(struct pf_dec *d, struct basalt_parquet_logical_type *lt,
                               const char *name)
{
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(BOOL);
        lt->time.is_adjusted_to_utc = f.bool_value;
        SEEN(1);
        continue;
    case 2:
        EXPECT(STRUCT);
        TRY(time_unit(d, &lt->time.unit));
        SEEN(2);
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY((seen & 6u) != 6u))
        return basalt_thrift_pf_missing(d, name, seen, 6u, time_fields);
    return BASALT_OK;
}

static const char *const int_fields[] = {"", "bitWidth", "isSigned"};

static basalt_status int_type(struct pf_dec *d, struct basalt_parquet_logical_type *lt)
{
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(I8);
        TRY(tr_i8(&d->r, &lt->integer.bit_width, d->err));
        SEEN(1);
        continue;
    case 2:
        EXPECT(BOOL);
        lt->integer.is_signed = f.bool_value;
        SEEN(2);
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY((seen & 6u) != 6u))
        return basalt_thrift_pf_missing(d, "IntType", seen, 6u, int_fields);
    return BASALT_OK;
}

static basalt_status variant_type(struct pf_dec *d, struct basalt_parquet_logical_type *lt)
{
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(I8);
        TRY(tr_i8(&d->r, &lt->variant.specification_version, d->err));
        lt->variant.has_specification_version = true;
        continue;
    }
    STRUCT_END(d);
    return BASALT_OK;
}

/* GeometryType {1: crs} and GeographyType {1: crs, 2: algorithm}. */
static basalt_status geo_type(struct pf_dec *d, struct basalt_parquet_logical_type *lt,
                              bool geography)
{
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(BINARY);
        TRY(pf_string(d, &lt->geo.crs));
        lt->geo.has_crs = true;
        continue;
    case 2:
        if (!geography)
            break;
        EXPECT(I32);
        TRY(pf_enum(d, &lt->geo.algorithm, "EdgeInterpolationAlgorithm"));
        lt->geo.has_algorithm = true;
        continue;
    }
    STRUCT_END(d);
    return BASALT_OK;
}

static basalt_status logical_type(struct pf_dec *d, struct basalt_parquet_logical_type *lt)
{
    STRUCT_BEGIN(d);
    if (f.type != BASALT_THRIFT_TYPE_STRUCT || f.id <= 0)
        goto skip;
    if (TH_UNLIKELY(lt->kind != 0))
        return basalt_thrift_pf_two_members(d, "LogicalType");
    lt->kind = f.id;
    switch (f.id) {
    case BASALT_PARQUET_LOGICAL_TYPE_DECIMAL:
        TRY(decimal_type(d, lt));
        continue;
    case BASALT_PARQUET_LOGICAL_TYPE_TIME:
        TRY(time_type(d, lt, "TimeType"));
        continue;
    case BASALT_PARQUET_LOGICAL_TYPE_TIMESTAMP:
        TRY(time_type(d, lt, "TimestampType"));
        continue;
    case BASALT_PARQUET_LOGICAL_TYPE_INTEGER:
        TRY(int_type(d, lt));
        continue;
    case BASALT_PARQUET_LOGICAL_TYPE_VARIANT:
        TRY(variant_type(d, lt));
        continue;
    case BASALT_PARQUET_LOGICAL_TYPE_GEOMETRY:
        TRY(geo_type(d, lt, false));
        continue;
    case BASALT_PARQUET_LOGICAL_TYPE_GEOGRAPHY:
        TRY(geo_type(d, lt, true));
        continue;
    }
skip:
    STRUCT_END(d);
    return BASALT_OK;
}

static const char *const schema_fields[] = {"",          "type",          "type_length",
                                            "repetition_type", "name", "num_children",
                                            "converted_type", "scale", "precision",
                                            "field_id", "logicalType"};

static basalt_status schema_element(struct pf_dec *d, struct basalt_parquet_schema_element *se)
{
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(I32);
        TRY(pf_enum(d, &se->type, "Type"));
        se->has_type = true;
        continue;
    case 2:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &se->type_length, d->err));
        se->has_type_length = true;
        continue;
    case 3:
        EXPECT(I32);
        TRY(pf_enum(d, &se->repetition_type, "FieldRepetitionType"));
        se->has_repetition_type = true;
        continue;
    case 4:
        EXPECT(BINARY);
        TRY(pf_string(d, &se->name));
        SEEN(4);
        continue;
    case 5:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &se->num_children, d->err));
        se->has_num_children = true;
        continue;
    case 6:
        EXPECT(I32);
        TRY(pf_enum(d, &se->converted_type, "ConvertedType"));
        se->has_converted_type = true;
        continue;
    case 7:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &se->scale, d->err));
        se->has_scale = true;
        continue;
    case 8:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &se->precision, d->err));
        se->has_precision = true;
        continue;
    case 9:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &se->field_id, d->err));
        se->has_field_id = true;
        continue;
    case 10:
        EXPECT(STRUCT);
        memset(&se->logical_type, 0, sizeof se->logical_type);
        TRY_IN(d, logical_type(d, &se->logical_type), "logicalType");
        se->has_logical_type = true;
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY(!(seen & (1u << 4))))
        return basalt_thrift_pf_missing(d, "SchemaElement", seen, 1u << 4, schema_fields);
    return BASALT_OK;
}

/* ------------------------------------------------------------------ column metadata */

static basalt_status size_statistics(struct pf_dec *d, struct basalt_parquet_size_statistics *s)
{
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &s->unencoded_byte_array_data_bytes, d->err));
        s->has_unencoded_byte_array_data_bytes = true;
        continue;
    case 2:
        EXPECT(LIST);
        TRY_IN(d,
               basalt_thrift_pf_i64_list(d, &s->repetition_level_histogram,
                                         &s->num_repetition_level_histogram),
               "repetition_level_histogram");
        s->has_repetition_level_histogram = true;
        continue;
    case 3:
        EXPECT(LIST);
        TRY_IN(d,
               basalt_thrift_pf_i64_list(d, &s->definition_level_histogram,
                                         &s->num_definition_level_histogram),
               "definition_level_histogram");
        s->has_definition_level_histogram = true;
        continue;
    }
    STRUCT_END(d);
    return BASALT_OK;
}

static const char *const bbox_fields[] = {"", "xmin", "xmax", "ymin", "ymax"};

static basalt_status bounding_box(struct pf_dec *d, struct basalt_parquet_bounding_box *b)
{
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(DOUBLE);
        TRY(tr_double(&d->r, &b->xmin, d->err));
        SEEN(1);
        continue;
    case 2:
        EXPECT(DOUBLE);
        TRY(tr_double(&d->r, &b->xmax, d->err));
        SEEN(2);
        continue;
    case 3:
        EXPECT(DOUBLE);
        TRY(tr_double(&d->r, &b->ymin, d->err));
        SEEN(3);
        continue;
    case 4:
        EXPECT(DOUBLE);
        TRY(tr_double(&d->r, &b->ymax, d->err));
        SEEN(4);
        continue;
    case 5:
        EXPECT(DOUBLE);
        TRY(tr_double(&d->r, &b->zmin, d->err));
        b->has_zmin = true;
        continue;
    case 6:
        EXPECT(DOUBLE);
        TRY(tr_double(&d->r, &b->zmax, d->err));
        b->has_zmax = true;
        continue;
    case 7:
        EXPECT(DOUBLE);
        TRY(tr_double(&d->r, &b->mmin, d->err));
        b->has_mmin = true;
        continue;
    case 8:
        EXPECT(DOUBLE);
        TRY(tr_double(&d->r, &b->mmax, d->err));
        b->has_mmax = true;
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY((seen & 0x1eu) != 0x1eu))
        return basalt_thrift_pf_missing(d, "BoundingBox", seen, 0x1eu, bbox_fields);
    return BASALT_OK;
}

static basalt_status geospatial_statistics(struct pf_dec *d,
                                           const struct basalt_parquet_geospatial_statistics **out)
{
    void *p;
    TRY(pf_alloc(d, sizeof(struct basalt_parquet_geospatial_statistics), 8, &p));
    struct basalt_parquet_geospatial_statistics *g = p;
    memset(g, 0, sizeof *g);
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(STRUCT);
        TRY_IN(d, bounding_box(d, &g->bbox), "bbox");
        g->has_bbox = true;
        continue;
    case 2:
        EXPECT(LIST);
        TRY_IN(d, basalt_thrift_pf_i32_list(d, &g->geospatial_types, &g->num_geospatial_types),
               "geospatial_types");
        g->has_geospatial_types = true;
        continue;
    }
    STRUCT_END(d);
    *out = g;
    return BASALT_OK;
}

static const char *const encoding_stats_fields[] = {"", "page_type", "encoding", "count"};

static basalt_status page_encoding_stats(struct pf_dec *d,
                                         struct basalt_parquet_page_encoding_stats *s)
{
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(I32);
        TRY(pf_enum(d, &s->page_type, "PageType"));
        SEEN(1);
        continue;
    case 2:
        EXPECT(I32);
        TRY(pf_enum(d, &s->encoding, "Encoding"));
        SEEN(2);
        continue;
    case 3:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &s->count, d->err));
        SEEN(3);
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY((seen & 0xeu) != 0xeu))
        return basalt_thrift_pf_missing(d, "PageEncodingStats", seen, 0xeu, encoding_stats_fields);
    return BASALT_OK;
}

static basalt_status encoding_stats_list(struct pf_dec *d, struct basalt_parquet_column_metadata *m)
{
    void *p;
    size_t n;
    /* Three required fields: three headers, three values, a stop. */
    TRY(basalt_thrift_pf_list(d, BASALT_THRIFT_TYPE_STRUCT,
                              sizeof(struct basalt_parquet_page_encoding_stats), 7, &p, &n));
    struct basalt_parquet_page_encoding_stats *v = p;
    for (size_t i = 0; i < n; i++)
        TRY_IN(d, page_encoding_stats(d, &v[i]), "[%zu]", i);
    m->encoding_stats = v;
    m->num_encoding_stats = n;
    return BASALT_OK;
}

static const char *const column_metadata_fields[] = {
    "",
    "type",
    "encodings",
    "path_in_schema",
    "codec",
    "num_values",
    "total_uncompressed_size",
    "total_compressed_size",
    "key_value_metadata",
    "data_page_offset"};

#define COLUMN_METADATA_REQUIRED 0x2feu /* 1..7 and 9 */

static basalt_status column_metadata(struct pf_dec *d, struct basalt_parquet_column_metadata *m)
{
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(I32);
        TRY(pf_enum(d, &m->type, "Type"));
        SEEN(1);
        continue;
    case 2:
        EXPECT(LIST);
        TRY_IN(d, basalt_thrift_pf_enum_list(d, "Encoding", &m->encodings, &m->num_encodings),
               "encodings");
        SEEN(2);
        continue;
    case 3:
        EXPECT(LIST);
        TRY_IN(d, basalt_thrift_pf_string_list(d, &m->path_in_schema, &m->num_path_in_schema),
               "path_in_schema");
        SEEN(3);
        continue;
    case 4:
        EXPECT(I32);
        TRY(pf_enum(d, &m->codec, "CompressionCodec"));
        SEEN(4);
        continue;
    case 5:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &m->num_values, d->err));
        SEEN(5);
        continue;
    case 6:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &m->total_uncompressed_size, d->err));
        SEEN(6);
        continue;
    case 7:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &m->total_compressed_size, d->err));
        SEEN(7);
        continue;
    case 8:
        EXPECT(LIST);
        TRY_IN(d,
               basalt_thrift_pf_key_values(d, &m->key_value_metadata, &m->num_key_value_metadata),
               "key_value_metadata");
        m->has_key_value_metadata = true;
        continue;
    case 9:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &m->data_page_offset, d->err));
        SEEN(9);
        continue;
    case 10:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &m->index_page_offset, d->err));
        m->has_index_page_offset = true;
        continue;
    case 11:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &m->dictionary_page_offset, d->err));
        m->has_dictionary_page_offset = true;
        continue;
    case 12:
        EXPECT(STRUCT);
        TRY_IN(d, basalt_thrift_pf_statistics(d, &m->statistics), "statistics");
        m->has_statistics = true;
        continue;
    case 13:
        EXPECT(LIST);
        TRY_IN(d, encoding_stats_list(d, m), "encoding_stats");
        m->has_encoding_stats = true;
        continue;
    case 14:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &m->bloom_filter_offset, d->err));
        m->has_bloom_filter_offset = true;
        continue;
    case 15:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &m->bloom_filter_length, d->err));
        m->has_bloom_filter_length = true;
        continue;
    case 16:
        EXPECT(STRUCT);
        TRY_IN(d, size_statistics(d, &m->size_statistics), "size_statistics");
        m->has_size_statistics = true;
        continue;
    case 17:
        EXPECT(STRUCT);
        TRY_IN(d, geospatial_statistics(d, &m->geospatial_statistics), "geospatial_statistics");
        m->has_geospatial_statistics = true;
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY((seen & COLUMN_METADATA_REQUIRED) != COLUMN_METADATA_REQUIRED))
        return basalt_thrift_pf_missing(d, "ColumnMetaData", seen, COLUMN_METADATA_REQUIRED,
                                        column_metadata_fields);
    return BASALT_OK;
}

/* ------------------------------------------------------------------ column chunk */

static const char *const column_key_fields[] = {"", "path_in_schema"};

static basalt_status column_key(struct pf_dec *d, struct basalt_parquet_column_crypto_metadata *c)
{
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(LIST);
        TRY_IN(d, basalt_thrift_pf_string_list(d, &c->path_in_schema, &c->num_path_in_schema),
               "path_in_schema");
        SEEN(1);
        continue;
    case 2:
        EXPECT(BINARY);
        TRY(pf_binary(d, &c->key_metadata));
        c->has_key_metadata = true;
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY(!(seen & 2u)))
        return basalt_thrift_pf_missing(d, "EncryptionWithColumnKey", seen, 2u,
                                        column_key_fields);
    return BASALT_OK;
}

static basalt_status column_crypto(struct pf_dec *d,
                                   const struct basalt_parquet_column_crypto_metadata **out)
{
    void *p;
    TRY(pf_alloc(d, sizeof(struct basalt_parquet_column_crypto_metadata), 8, &p));
    struct basalt_parquet_column_crypto_metadata *c = p;
    memset(c, 0, sizeof *c);
    STRUCT_BEGIN(d);
    if (f.type == BASALT_THRIFT_TYPE_STRUCT && f.id > 0) {
        if (TH_UNLIKELY(c->kind != 0))
            return basalt_thrift_pf_two_members(d, "ColumnCryptoMetaData");
        c->kind = f.id;
        if (f.id == BASALT_PARQUET_COLUMN_CRYPTO_ENCRYPTION_WITH_COLUMN_KEY) {
            TRY(column_key(d, c));
            continue;
        }
    }
    STRUCT_END(d);
    *out = c;
    return BASALT_OK;
}

static const char *const column_chunk_fields[] = {"", "file_path", "file_offset"};

static basalt_status column_chunk(struct pf_dec *d, struct basalt_parquet_column_chunk *c)
{
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(BINARY);
        TRY(pf_string(d, &c->file_path));
        c->has_file_path = true;
        continue;
    case 2:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &c->file_offset, d->err));
        SEEN(2);
        continue;
    case 3:
        EXPECT(STRUCT);
        TRY_IN(d, column_metadata(d, &c->meta_data), "meta_data");
        c->has_meta_data = true;
        continue;
    case 4:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &c->offset_index_offset, d->err));
        c->has_offset_index_offset = true;
        continue;
    case 5:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &c->offset_index_length, d->err));
        c->has_offset_index_length = true;
        continue;
    case 6:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &c->column_index_offset, d->err));
        c->has_column_index_offset = true;
        continue;
    case 7:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &c->column_index_length, d->err));
        c->has_column_index_length = true;
        continue;
    case 8:
        EXPECT(STRUCT);
        TRY_IN(d, column_crypto(d, &c->crypto_metadata), "crypto_metadata");
        c->has_crypto_metadata = true;
        continue;
    case 9:
        EXPECT(BINARY);
        TRY(pf_binary(d, &c->encrypted_column_metadata));
        c->has_encrypted_column_metadata = true;
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY(!(seen & 4u)))
        return basalt_thrift_pf_missing(d, "ColumnChunk", seen, 4u, column_chunk_fields);
    return BASALT_OK;
}

/* ------------------------------------------------------------------ row group */

static const char *const sorting_column_fields[] = {"", "column_idx", "descending",
                                                    "nulls_first"};

static basalt_status sorting_column(struct pf_dec *d, struct basalt_parquet_sorting_column *s)
{
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &s->column_idx, d->err));
        SEEN(1);
        continue;
    case 2:
        EXPECT(BOOL);
        s->descending = f.bool_value;
        SEEN(2);
        continue;
    case 3:
        EXPECT(BOOL);
        s->nulls_first = f.bool_value;
        SEEN(3);
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY((seen & 0xeu) != 0xeu))
        return basalt_thrift_pf_missing(d, "SortingColumn", seen, 0xeu, sorting_column_fields);
    return BASALT_OK;
}

static const char *const row_group_fields[] = {"", "columns", "total_byte_size", "num_rows"};

static basalt_status row_group(struct pf_dec *d, struct basalt_parquet_row_group *g,
                               bool *encrypted)
{
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1: {
        EXPECT(LIST);
        void *p;
        size_t n;
        /* file_offset is required: header, value, stop. */
        TRY_IN(d,
               basalt_thrift_pf_list(d, BASALT_THRIFT_TYPE_STRUCT,
                                     sizeof(struct basalt_parquet_column_chunk), 3, &p, &n),
               "columns");
        struct basalt_parquet_column_chunk *cols = p;
        for (size_t i = 0; i < n; i++) {
            TRY_IN(d, column_chunk(d, &cols[i]), "columns[%zu]", i);
            if (cols[i].has_crypto_metadata || cols[i].has_encrypted_column_metadata)
                *encrypted = true;
        }
        g->columns = cols;
        g->num_columns = n;
        SEEN(1);
        continue;
    }
    case 2:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &g->total_byte_size, d->err));
        SEEN(2);
        continue;
    case 3:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &g->num_rows, d->err));
        SEEN(3);
        continue;
    case 4: {
        EXPECT(LIST);
        void *p;
        size_t n;
        TRY_IN(d,
               basalt_thrift_pf_list(d, BASALT_THRIFT_TYPE_STRUCT,
                                     sizeof(struct basalt_parquet_sorting_column), 5, &p, &n),
               "sorting_columns");
        struct basalt_parquet_sorting_column *sc = p;
        for (size_t i = 0; i < n; i++)
            TRY_IN(d, sorting_column(d, &sc[i]), "sorting_columns[%zu]", i);
        g->sorting_columns = sc;
        g->num_sorting_columns = n;
        g->has_sorting_columns = true;
        continue;
    }
    case 5:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &g->file_offset, d->err));
        g->has_file_offset = true;
        continue;
    case 6:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &g->total_compressed_size, d->err));
        g->has_total_compressed_size = true;
        continue;
    case 7:
        EXPECT(I16);
        TRY(tr_i16(&d->r, &g->ordinal, d->err));
        g->has_ordinal = true;
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY((seen & 0xeu) != 0xeu))
        return basalt_thrift_pf_missing(d, "RowGroup", seen, 0xeu, row_group_fields);
    return BASALT_OK;
}

/* ------------------------------------------------------------------ file */

static const char *const file_metadata_fields[] = {"", "version", "schema", "num_rows",
                                                   "row_groups"};

static basalt_status file_metadata(struct pf_dec *d, struct basalt_parquet_file_metadata *md)
{
    memset(md, 0, sizeof *md);
    uint32_t seen = 0;
    STRUCT_BEGIN(d);
    switch (f.id) {
    case 1:
        EXPECT(I32);
        TRY(tr_i32(&d->r, &md->version, d->err));
        SEEN(1);
        continue;
    case 2: {
        EXPECT(LIST);
        void *p;
        size_t n;
        /* name is required: header, length, stop. */
        TRY_IN(d,
               basalt_thrift_pf_list(d, BASALT_THRIFT_TYPE_STRUCT,
                                     sizeof(struct basalt_parquet_schema_element), 3, &p, &n),
               "schema");
        struct basalt_parquet_schema_element *se = p;
        for (size_t i = 0; i < n; i++)
            TRY_IN(d, schema_element(d, &se[i]), "schema[%zu]", i);
        md->schema = se;
        md->num_schema = n;
        SEEN(2);
        continue;
    }
    case 3:
        EXPECT(I64);
        TRY(tr_i64(&d->r, &md->num_rows, d->err));
        SEEN(3);
        continue;
    case 4: {
        EXPECT(LIST);
        void *p;
        size_t n;
        /* columns, total_byte_size, num_rows: at least 6 bytes. */
        TRY_IN(d,
               basalt_thrift_pf_list(d, BASALT_THRIFT_TYPE_STRUCT,
                                     sizeof(struct basalt_parquet_row_group), 6, &p, &n),
               "row_groups");
        struct basalt_parquet_row_group *rg = p;
        for (size_t i = 0; i < n; i++)
            TRY_IN(d, row_group(d, &rg[i], &md->has_encrypted_columns), "row_groups[%zu]", i);
        md->row_groups = rg;
        md->num_row_groups = n;
        SEEN(4);
        continue;
    }
    case 5:
        EXPECT(LIST);
        TRY_IN(d,
               basalt_thrift_pf_key_values(d, &md->key_value_metadata,
                                           &md->num_key_value_metadata),
               "key_value_metadata");
        md->has_key_value_metadata = true;
        continue;
    case 6:
        EXPECT(BINARY);
        TRY(pf_string(d, &md->created_by));
        md->has_created_by = true;
        continue;
    case 7: {
        EXPECT(LIST);
        void *p;
        size_t n;
        TRY_IN(d,
               basalt_thrift_pf_list(d, BASALT_THRIFT_TYPE_STRUCT, sizeof(int32_t), 1, &p, &n),
               "column_orders");
        int32_t *orders = p;
        for (size_t i = 0; i < n; i++)
            TRY_IN(d, basalt_thrift_pf_empty_union(d, "ColumnOrder", &orders[i]),
                   "column_orders[%zu]", i);
        md->column_orders = orders;
        md->num_column_orders = n;
        md->has_column_orders = true;
        continue;
    }
    case 8:
        EXPECT(STRUCT);
        TRY_IN(d, basalt_thrift_pf_encryption_algorithm(d, &md->encryption_algorithm),
               "encryption_algorithm");
        md->has_encryption_algorithm = true;
        continue;
    case 9:
        EXPECT(BINARY);
        TRY(pf_binary(d, &md->footer_signing_key_metadata));
        md->has_footer_signing_key_metadata = true;
        continue;
    }
    STRUCT_END(d);
    if (TH_UNLIKELY((seen & 0x1eu) != 0x1eu))
        return basalt_thrift_pf_missing(d, "FileMetaData", seen, 0x1eu, file_metadata_fields);
    return BASALT_OK;
}

basalt_status basalt_thrift_decode_file_metadata(const void *data, size_t len,
                                                 struct basalt_arena *arena,
                                                 const struct basalt_thrift_limits *limits,
                                                 struct basalt_parquet_file_metadata *out,
                                                 struct basalt_error *err)
{
    if (!arena || !out || (!data && len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "decode_file_metadata: NULL argument");
    struct pf_dec d;
    basalt_thrift_pf_init(&d, data, len, arena, limits, err);
    basalt_status st = file_metadata(&d, out);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "FileMetaData");
    return BASALT_OK;
}

/* ColumnMetaData on its own, for basalt_thrift_decode_column_metadata
 * (pf_decode_crypto.c: the encrypted_column_metadata of encrypted columns). */
basalt_status basalt_thrift_pf_column_metadata(struct pf_dec *d,
                                               struct basalt_parquet_column_metadata *m)
{
    return column_metadata(d, m);
}
