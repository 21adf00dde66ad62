/* Encoders of the Parquet structures: fields in id order, optional ones only
 * where their has_ flag is set. Misuse (a count without a pointer) and
 * allocation failure are sticky in the writer and reported once at the end. */
#include "thrift_internal.h"

#define T(name) BASALT_THRIFT_TYPE_##name

static void misuse(struct basalt_thrift_writer *w, const char *what)
{
    basalt_thrift_writer_misuse(w, what);
}

static void f_i32(struct basalt_thrift_writer *w, int16_t id, int32_t v)
{
    tw_field(w, T(I32), id);
    tw_i32(w, v);
}

static void f_i64(struct basalt_thrift_writer *w, int16_t id, int64_t v)
{
    tw_field(w, T(I64), id);
    tw_i64(w, v);
}

static void f_bool(struct basalt_thrift_writer *w, int16_t id, bool v)
{
    tw_field(w, v ? T(BOOL) : T(BOOL_FALSE), id);
}

static void f_bytes(struct basalt_thrift_writer *w, int16_t id, const void *data, size_t len)
{
    if (len && !data) {
        misuse(w, "binary with a length and no data");
        return;
    }
    tw_field(w, T(BINARY), id);
    tw_binary(w, data, len);
}

static void f_string(struct basalt_thrift_writer *w, int16_t id,
                     const struct basalt_parquet_string *s)
{
    f_bytes(w, id, s->data, s->len);
}

static void f_binary(struct basalt_thrift_writer *w, int16_t id,
                     const struct basalt_parquet_binary *b)
{
    f_bytes(w, id, b->data, b->len);
}

static void f_double(struct basalt_thrift_writer *w, int16_t id, double v)
{
    tw_field(w, T(DOUBLE), id);
    basalt_thrift_write_double(w, v);
}

/* Field header and list header; false (and the writer failed) if the list
 * cannot be written. */
static bool f_list(struct basalt_thrift_writer *w, int16_t id, uint8_t elem_type,
                   const void *items, size_t count)
{
    if (count && !items) {
        misuse(w, "list with a count and no elements");
        return false;
    }
    if (count > INT32_MAX) {
        misuse(w, "list longer than INT32_MAX");
        return false;
    }
    tw_field(w, T(LIST), id);
    tw_list(w, elem_type, (uint32_t)count);
    return w->status == BASALT_OK;
}

static void f_i64_list(struct basalt_thrift_writer *w, int16_t id, const int64_t *v, size_t n)
{
    if (f_list(w, id, T(I64), v, n))
        for (size_t i = 0; i < n; i++)
            tw_i64(w, v[i]);
}

static void f_i32_list(struct basalt_thrift_writer *w, int16_t id, const int32_t *v, size_t n)
{
    if (f_list(w, id, T(I32), v, n))
        for (size_t i = 0; i < n; i++)
            tw_i32(w, v[i]);
}

static void f_string_list(struct basalt_thrift_writer *w, int16_t id,
                          const struct basalt_parquet_string *v, size_t n)
{
    if (!f_list(w, id, T(BINARY), v, n))
        return;
    for (size_t i = 0; i < n; i++) {
        if (v[i].len && !v[i].data) {
            misuse(w, "string with a length and no data");
            return;
        }
        tw_binary(w, v[i].data, v[i].len);
    }
}

/* A union member that is an empty struct, or no member for kind 0. */
static void empty_union(struct basalt_thrift_writer *w, int32_t kind)
{
    tw_struct_begin(w);
    if (kind < 0 || kind > INT16_MAX) {
        misuse(w, "union kind outside 0..32767");
        return;
    }
    if (kind != 0) {
        tw_field(w, T(STRUCT), (int16_t)kind);
        tw_struct_begin(w);
        tw_struct_end(w);
    }
    tw_struct_end(w);
}

static void key_values(struct basalt_thrift_writer *w, int16_t id,
                       const struct basalt_parquet_key_value *kv, size_t n)
{
    if (!f_list(w, id, T(STRUCT), kv, n))
        return;
    for (size_t i = 0; i < n; i++) {
        tw_struct_begin(w);
        f_string(w, 1, &kv[i].key);
        if (kv[i].has_value)
            f_string(w, 2, &kv[i].value);
        tw_struct_end(w);
    }
}

static void statistics(struct basalt_thrift_writer *w, int16_t id,
                       const struct basalt_parquet_statistics *s)
{
    tw_field(w, T(STRUCT), id);
    tw_struct_begin(w);
    if (s->has_max)
        f_binary(w, 1, &s->max);
    if (s->has_min)
        f_binary(w, 2, &s->min);
    if (s->has_null_count)
        f_i64(w, 3, s->null_count);
    if (s->has_distinct_count)
        f_i64(w, 4, s->distinct_count);
    if (s->has_max_value)
        f_binary(w, 5, &s->max_value);
    if (s->has_min_value)
        f_binary(w, 6, &s->min_value);
    if (s->has_is_max_value_exact)
        f_bool(w, 7, s->is_max_value_exact);
    if (s->has_is_min_value_exact)
        f_bool(w, 8, s->is_min_value_exact);
    if (s->has_nan_count)
        f_i64(w, 9, s->nan_count);
    tw_struct_end(w);
}

static void encryption_algorithm(struct basalt_thrift_writer *w, int16_t id,
                                 const struct basalt_parquet_encryption_algorithm *a)
{
    tw_field(w, T(STRUCT), id);
    if (a->kind != BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_V1 &&
        a->kind != BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1) {
        empty_union(w, a->kind);
        return;
    }
    tw_struct_begin(w);
    tw_field(w, T(STRUCT), (int16_t)a->kind);
    tw_struct_begin(w);
    if (a->has_aad_prefix)
        f_binary(w, 1, &a->aad_prefix);
    if (a->has_aad_file_unique)
        f_binary(w, 2, &a->aad_file_unique);
    if (a->has_supply_aad_prefix)
        f_bool(w, 3, a->supply_aad_prefix);
    tw_struct_end(w);
    tw_struct_end(w);
}

/* ------------------------------------------------------------------ schema */

static void logical_type(struct basalt_thrift_writer *w,
                         const struct basalt_parquet_logical_type *lt)
{
    int32_t kind = lt->kind;
    if (kind < 0 || kind > INT16_MAX) {
        misuse(w, "logical type kind outside 0..32767");
        return;
    }
    tw_field(w, T(STRUCT), 10);
    tw_struct_begin(w);
    if (kind != 0) {
        tw_field(w, T(STRUCT), (int16_t)kind);
        tw_struct_begin(w);
        switch (kind) {
        case BASALT_PARQUET_LOGICAL_TYPE_DECIMAL:
            f_i32(w, 1, lt->decimal.scale);
            f_i32(w, 2, lt->decimal.precision);
            break;
        case BASALT_PARQUET_LOGICAL_TYPE_TIME:
        case BASALT_PARQUET_LOGICAL_TYPE_TIMESTAMP:
            f_bool(w, 1, lt->time.is_adjusted_to_utc);
            tw_field(w, T(STRUCT), 2);
            empty_union(w, lt->time.unit);
            break;
        case BASALT_PARQUET_LOGICAL_TYPE_INTEGER:
            tw_field(w, T(I8), 1);
            tw_byte(w, (uint8_t)lt->integer.bit_width);
            f_bool(w, 2, lt->integer.is_signed);
            break;
        case BASALT_PARQUET_LOGICAL_TYPE_VARIANT:
            if (lt->variant.has_specification_version) {
                tw_field(w, T(I8), 1);
                tw_byte(w, (uint8_t)lt->variant.specification_version);
            }
            break;
        case BASALT_PARQUET_LOGICAL_TYPE_GEOMETRY:
        case BASALT_PARQUET_LOGICAL_TYPE_GEOGRAPHY:
            if (lt->geo.has_crs)
                f_string(w, 1, &lt->geo.crs);
            if (kind == BASALT_PARQUET_LOGICAL_TYPE_GEOGRAPHY && lt->geo.has_algorithm)
                f_i32(w, 2, lt->geo.algorithm);
            break;
        default:
            break;
        }
        tw_struct_end(w);
    }
    tw_struct_end(w);
}

static void schema_element(struct basalt_thrift_writer *w,
                           const struct basalt_parquet_schema_element *se)
{
    tw_struct_begin(w);
    if (se->has_type)
        f_i32(w, 1, se->type);
    if (se->has_type_length)
        f_i32(w, 2, se->type_length);
    if (se->has_repetition_type)
        f_i32(w, 3, se->repetition_type);
    f_string(w, 4, &se->name);
    if (se->has_num_children)
        f_i32(w, 5, se->num_children);
    if (se->has_converted_type)
        f_i32(w, 6, se->converted_type);
    if (se->has_scale)
        f_i32(w, 7, se->scale);
    if (se->has_precision)
        f_i32(w, 8, se->precision);
    if (se->has_field_id)
        f_i32(w, 9, se->field_id);
    if (se->has_logical_type)
        logical_type(w, &se->logical_type);
    tw_struct_end(w);
}

/* ------------------------------------------------------------------ column chunk */

static void size_statistics(struct basalt_thrift_writer *w,
                            const struct basalt_parquet_size_statistics *s)
{
    tw_field(w, T(STRUCT), 16);
    tw_struct_begin(w);
    if (s->has_unencoded_byte_array_data_bytes)
        f_i64(w, 1, s->unencoded_byte_array_data_bytes);
    if (s->has_repetition_level_histogram)
        f_i64_list(w, 2, s->repetition_level_histogram, s->num_repetition_level_histogram);
    if (s->has_definition_level_histogram)
        f_i64_list(w, 3, s->definition_level_histogram, s->num_definition_level_histogram);
    tw_struct_end(w);
}

static void geospatial_statistics(struct basalt_thrift_writer *w,
                                  const struct basalt_parquet_geospatial_statistics *g)
{
    if (!g) {
        misuse(w, "has_geospatial_statistics without geospatial_statistics");
        return;
    }
    tw_field(w, T(STRUCT), 17);
    tw_struct_begin(w);
    if (g->has_bbox) {
        const struct basalt_parquet_bounding_box *b = &g->bbox;
        tw_field(w, T(STRUCT), 1);
        tw_struct_begin(w);
        f_double(w, 1, b->xmin);
        f_double(w, 2, b->xmax);
        f_double(w, 3, b->ymin);
        f_double(w, 4, b->ymax);
        if (b->has_zmin)
            f_double(w, 5, b->zmin);
        if (b->has_zmax)
            f_double(w, 6, b->zmax);
        if (b->has_mmin)
            f_double(w, 7, b->mmin);
        if (b->has_mmax)
            f_double(w, 8, b->mmax);
        tw_struct_end(w);
    }
    if (g->has_geospatial_types)
        f_i32_list(w, 2, g->geospatial_types, g->num_geospatial_types);
    tw_struct_end(w);
}

static void column_metadata(struct basalt_thrift_writer *w,
                            const struct basalt_parquet_column_metadata *m)
{
    tw_field(w, T(STRUCT), 3);
    tw_struct_begin(w);
    f_i32(w, 1, m->type);
    f_i32_list(w, 2, m->encodings, m->num_encodings);
    f_string_list(w, 3, m->path_in_schema, m->num_path_in_schema);
    f_i32(w, 4, m->codec);
    f_i64(w, 5, m->num_values);
    f_i64(w, 6, m->total_uncompressed_size);
    f_i64(w, 7, m->total_compressed_size);
    if (m->has_key_value_metadata)
        key_values(w, 8, m->key_value_metadata, m->num_key_value_metadata);
    f_i64(w, 9, m->data_page_offset);
    if (m->has_index_page_offset)
        f_i64(w, 10, m->index_page_offset);
    if (m->has_dictionary_page_offset)
        f_i64(w, 11, m->dictionary_page_offset);
    if (m->has_statistics)
        statistics(w, 12, &m->statistics);
    if (m->has_encoding_stats &&
        f_list(w, 13, T(STRUCT), m->encoding_stats, m->num_encoding_stats)) {
        for (size_t i = 0; i < m->num_encoding_stats; i++) {
            const struct basalt_parquet_page_encoding_stats *s = &m->encoding_stats[i];
            tw_struct_begin(w);
            f_i32(w, 1, s->page_type);
            f_i32(w, 2, s->encoding);
            f_i32(w, 3, s->count);
            tw_struct_end(w);
        }
    }
    if (m->has_bloom_filter_offset)
        f_i64(w, 14, m->bloom_filter_offset);
    if (m->has_bloom_filter_length)
        f_i32(w, 15, m->bloom_filter_length);
    if (m->has_size_statistics)
        size_statistics(w, &m->size_statistics);
    if (m->has_geospatial_statistics)
        geospatial_statistics(w, m->geospatial_statistics);
    tw_struct_end(w);
}

static void column_crypto(struct basalt_thrift_writer *w,
                          const struct basalt_parquet_column_crypto_metadata *c)
{
    if (!c) {
        misuse(w, "has_crypto_metadata without crypto_metadata");
        return;
    }
    tw_field(w, T(STRUCT), 8);
    if (c->kind != BASALT_PARQUET_COLUMN_CRYPTO_ENCRYPTION_WITH_COLUMN_KEY) {
        empty_union(w, c->kind);
        return;
    }
    tw_struct_begin(w);
    tw_field(w, T(STRUCT), (int16_t)c->kind);
    tw_struct_begin(w);
    f_string_list(w, 1, c->path_in_schema, c->num_path_in_schema);
    if (c->has_key_metadata)
        f_binary(w, 2, &c->key_metadata);
    tw_struct_end(w);
    tw_struct_end(w);
}

static void column_chunk(struct basalt_thrift_writer *w,
                         const struct basalt_parquet_column_chunk *c)
{
    tw_struct_begin(w);
    if (c->has_file_path)
        f_string(w, 1, &c->file_path);
    f_i64(w, 2, c->file_offset);
    if (c->has_meta_data)
        column_metadata(w, &c->meta_data);
    if (c->has_offset_index_offset)
        f_i64(w, 4, c->offset_index_offset);
    if (c->has_offset_index_length)
        f_i32(w, 5, c->offset_index_length);
    if (c->has_column_index_offset)
        f_i64(w, 6, c->column_index_offset);
    if (c->has_column_index_length)
        f_i32(w, 7, c->column_index_length);
    if (c->has_crypto_metadata)
        column_crypto(w, c->crypto_metadata);
    if (c->has_encrypted_column_metadata)
        f_binary(w, 9, &c->encrypted_column_metadata);
    tw_struct_end(w);
}

static void row_group(struct basalt_thrift_writer *w, const struct basalt_parquet_row_group *g)
{
    tw_struct_begin(w);
    if (f_list(w, 1, T(STRUCT), g->columns, g->num_columns))
        for (size_t i = 0; i < g->num_columns && w->status == BASALT_OK; i++)
            column_chunk(w, &g->columns[i]);
    f_i64(w, 2, g->total_byte_size);
    f_i64(w, 3, g->num_rows);
    if (g->has_sorting_columns &&
        f_list(w, 4, T(STRUCT), g->sorting_columns, g->num_sorting_columns)) {
        for (size_t i = 0; i < g->num_sorting_columns; i++) {
            const struct basalt_parquet_sorting_column *s = &g->sorting_columns[i];
            tw_struct_begin(w);
            f_i32(w, 1, s->column_idx);
            f_bool(w, 2, s->descending);
            f_bool(w, 3, s->nulls_first);
            tw_struct_end(w);
        }
    }
    if (g->has_file_offset)
        f_i64(w, 5, g->file_offset);
    if (g->has_total_compressed_size)
        f_i64(w, 6, g->total_compressed_size);
    if (g->has_ordinal) {
        tw_field(w, T(I16), 7);
        tw_i32(w, g->ordinal);
    }
    tw_struct_end(w);
}

/* ------------------------------------------------------------------ entry points */

static basalt_status finish(struct basalt_thrift_writer *w, const char *what)
{
    basalt_status st = basalt_thrift_writer_finish(w);
    if (st != BASALT_OK)
        return basalt_error_context(w->err, st, "encoding %s", what);
    return BASALT_OK;
}

static basalt_status start(struct basalt_thrift_writer *w, const void *in,
                           struct basalt_buffer *out, const char *what, struct basalt_error *err)
{
    if (!in || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "encoding %s: NULL argument", what);
    basalt_thrift_writer_init(w, out, err);
    return BASALT_OK;
}

basalt_status basalt_thrift_encode_file_metadata(const struct basalt_parquet_file_metadata *md,
                                                 struct basalt_buffer *out,
                                                 struct basalt_error *err)
{
    struct basalt_thrift_writer w;
    basalt_status st = start(&w, md, out, "FileMetaData", err);
    if (st != BASALT_OK)
        return st;
    tw_struct_begin(&w);
    f_i32(&w, 1, md->version);
    if (f_list(&w, 2, T(STRUCT), md->schema, md->num_schema))
        for (size_t i = 0; i < md->num_schema; i++)
            schema_element(&w, &md->schema[i]);
    f_i64(&w, 3, md->num_rows);
    if (f_list(&w, 4, T(STRUCT), md->row_groups, md->num_row_groups))
        for (size_t i = 0; i < md->num_row_groups && w.status == BASALT_OK; i++)
            row_group(&w, &md->row_groups[i]);
    if (md->has_key_value_metadata)
        key_values(&w, 5, md->key_value_metadata, md->num_key_value_metadata);
    if (md->has_created_by)
        f_string(&w, 6, &md->created_by);
    if (md->has_column_orders &&
        f_list(&w, 7, T(STRUCT), md->column_orders, md->num_column_orders))
        for (size_t i = 0; i < md->num_column_orders; i++)
            empty_union(&w, md->column_orders[i]);
    if (md->has_encryption_algorithm)
        encryption_algorithm(&w, 8, &md->encryption_algorithm);
    if (md->has_footer_signing_key_metadata)
        f_binary(&w, 9, &md->footer_signing_key_metadata);
    tw_struct_end(&w);
    return finish(&w, "FileMetaData");
}

basalt_status basalt_thrift_encode_page_header(const struct basalt_parquet_page_header *ph,
                                               struct basalt_buffer *out,
                                               struct basalt_error *err)
{
    struct basalt_thrift_writer w;
    basalt_status st = start(&w, ph, out, "PageHeader", err);
    if (st != BASALT_OK)
        return st;
    tw_struct_begin(&w);
    f_i32(&w, 1, ph->type);
    f_i32(&w, 2, ph->uncompressed_page_size);
    f_i32(&w, 3, ph->compressed_page_size);
    if (ph->has_crc)
        f_i32(&w, 4, ph->crc);
    if (ph->has_data_page_header) {
        const struct basalt_parquet_data_page_header *h = &ph->data_page_header;
        tw_field(&w, T(STRUCT), 5);
        tw_struct_begin(&w);
        f_i32(&w, 1, h->num_values);
        f_i32(&w, 2, h->encoding);
        f_i32(&w, 3, h->definition_level_encoding);
        f_i32(&w, 4, h->repetition_level_encoding);
        if (h->has_statistics)
            statistics(&w, 5, &h->statistics);
        tw_struct_end(&w);
    }
    if (ph->has_index_page_header) {
        tw_field(&w, T(STRUCT), 6);
        tw_struct_begin(&w);
        tw_struct_end(&w);
    }
    if (ph->has_dictionary_page_header) {
        const struct basalt_parquet_dictionary_page_header *h = &ph->dictionary_page_header;
        tw_field(&w, T(STRUCT), 7);
        tw_struct_begin(&w);
        f_i32(&w, 1, h->num_values);
        f_i32(&w, 2, h->encoding);
        if (h->has_is_sorted)
            f_bool(&w, 3, h->is_sorted);
        tw_struct_end(&w);
    }
    if (ph->has_data_page_header_v2) {
        const struct basalt_parquet_data_page_header_v2 *h = &ph->data_page_header_v2;
        tw_field(&w, T(STRUCT), 8);
        tw_struct_begin(&w);
        f_i32(&w, 1, h->num_values);
        f_i32(&w, 2, h->num_nulls);
        f_i32(&w, 3, h->num_rows);
        f_i32(&w, 4, h->encoding);
        f_i32(&w, 5, h->definition_levels_byte_length);
        f_i32(&w, 6, h->repetition_levels_byte_length);
        if (h->has_is_compressed)
            f_bool(&w, 7, h->is_compressed);
        if (h->has_statistics)
            statistics(&w, 8, &h->statistics);
        tw_struct_end(&w);
    }
    tw_struct_end(&w);
    return finish(&w, "PageHeader");
}

basalt_status basalt_thrift_encode_column_index(const struct basalt_parquet_column_index *ci,
                                                struct basalt_buffer *out,
                                                struct basalt_error *err)
{
    struct basalt_thrift_writer w;
    basalt_status st = start(&w, ci, out, "ColumnIndex", err);
    if (st != BASALT_OK)
        return st;
    tw_struct_begin(&w);
    if (f_list(&w, 1, T(BOOL), ci->null_pages, ci->num_null_pages))
        for (size_t i = 0; i < ci->num_null_pages; i++)
            tw_byte(&w, ci->null_pages[i] ? 1 : 2);
    if (f_list(&w, 2, T(BINARY), ci->min_values, ci->num_min_values))
        for (size_t i = 0; i < ci->num_min_values; i++)
            basalt_thrift_write_binary(&w, ci->min_values[i].data, ci->min_values[i].len);
    if (f_list(&w, 3, T(BINARY), ci->max_values, ci->num_max_values))
        for (size_t i = 0; i < ci->num_max_values; i++)
            basalt_thrift_write_binary(&w, ci->max_values[i].data, ci->max_values[i].len);
    f_i32(&w, 4, ci->boundary_order);
    if (ci->has_null_counts)
        f_i64_list(&w, 5, ci->null_counts, ci->num_null_counts);
    if (ci->has_repetition_level_histograms)
        f_i64_list(&w, 6, ci->repetition_level_histograms, ci->num_repetition_level_histograms);
    if (ci->has_definition_level_histograms)
        f_i64_list(&w, 7, ci->definition_level_histograms, ci->num_definition_level_histograms);
    if (ci->has_nan_counts)
        f_i64_list(&w, 8, ci->nan_counts, ci->num_nan_counts);
    tw_struct_end(&w);
    return finish(&w, "ColumnIndex");
}

basalt_status basalt_thrift_encode_offset_index(const struct basalt_parquet_offset_index *oi,
                                                struct basalt_buffer *out,
                                                struct basalt_error *err)
{
    struct basalt_thrift_writer w;
    basalt_status st = start(&w, oi, out, "OffsetIndex", err);
    if (st != BASALT_OK)
        return st;
    tw_struct_begin(&w);
    if (f_list(&w, 1, T(STRUCT), oi->page_locations, oi->num_page_locations)) {
        for (size_t i = 0; i < oi->num_page_locations; i++) {
            const struct basalt_parquet_page_location *pl = &oi->page_locations[i];
            tw_struct_begin(&w);
            f_i64(&w, 1, pl->offset);
            f_i32(&w, 2, pl->compressed_page_size);
            f_i64(&w, 3, pl->first_row_index);
            tw_struct_end(&w);
        }
    }
    if (oi->has_unencoded_byte_array_data_bytes)
        f_i64_list(&w, 2, oi->unencoded_byte_array_data_bytes,
                   oi->num_unencoded_byte_array_data_bytes);
    tw_struct_end(&w);
    return finish(&w, "OffsetIndex");
}

basalt_status basalt_thrift_encode_bloom_filter_header(
    const struct basalt_parquet_bloom_filter_header *bf, struct basalt_buffer *out,
    struct basalt_error *err)
{
    struct basalt_thrift_writer w;
    basalt_status st = start(&w, bf, out, "BloomFilterHeader", err);
    if (st != BASALT_OK)
        return st;
    tw_struct_begin(&w);
    f_i32(&w, 1, bf->num_bytes);
    tw_field(&w, T(STRUCT), 2);
    empty_union(&w, bf->algorithm);
    tw_field(&w, T(STRUCT), 3);
    empty_union(&w, bf->hash);
    tw_field(&w, T(STRUCT), 4);
    empty_union(&w, bf->compression);
    tw_struct_end(&w);
    return finish(&w, "BloomFilterHeader");
}

/* ColumnMetaData as a structure of its own, for
 * basalt_thrift_encode_column_metadata (pf_encode_crypto.c): the ColumnChunk
 * encoder's bytes without the one-byte field header (id 3 after id 0) that
 * opens them. */
void basalt_thrift_pf_encode_column_metadata(struct basalt_thrift_writer *w,
                                             const struct basalt_parquet_column_metadata *m)
{
    size_t at = w->out->size;
    int16_t last = w->last_id[w->depth];
    w->last_id[w->depth] = 0;
    column_metadata(w, m);
    w->last_id[w->depth] = last;
    if (w->status == BASALT_OK && w->out->size > at) {
        memmove(w->out->data + at, w->out->data + at + 1, w->out->size - at - 1);
        w->out->size--;
    }
}
