/* The page index (ColumnIndex + OffsetIndex): reading and checking it, and
 * turning a predicate into the row ranges of the pages that may match. */
#include <string.h>

#include "parquet_reader.h"

/* Bytes [offset, offset + len) of the file: a view, or a buffer in *owned. */
static basalt_status fetch(const struct basalt_parquet_reader *reader, int64_t offset, int32_t len,
                           const char *what, const uint8_t **data, uint8_t **owned,
                           struct basalt_error *err)
{
    *owned = NULL;
    if (offset < 4 || len <= 0 || (uint64_t)offset > reader->data_end ||
        (uint64_t)len > reader->data_end - (uint64_t)offset)
        return basalt_error_set(err, BASALT_CORRUPT, "%s at [%lld, +%d) is outside the data",
                                what, (long long)offset, (int)len);
    if (reader->view) {
        *data = reader->view + offset;
        return BASALT_OK;
    }
    uint8_t *buf = basalt_malloc((size_t)len);
    if (!buf)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for the %s", what);
    basalt_status st = basalt_input_read_at(reader->input, (uint64_t)offset, (uint64_t)len, buf, err);
    if (st != BASALT_OK) {
        basalt_free(buf);
        return st;
    }
    *data = buf;
    *owned = buf;
    return BASALT_OK;
}

/* The same for an index of chunk (row_group, leaf): decrypted (into
 * *owned) when the chunk is encrypted; *data_len is what to decode. */
static basalt_status fetch_index(const struct basalt_parquet_reader *reader, int32_t row_group,
                                 int32_t leaf, int type, int64_t offset, int32_t len,
                                 const char *what, const uint8_t **data, size_t *data_len,
                                 uint8_t **owned, struct basalt_error *err)
{
    basalt_status st = fetch(reader, offset, len, what, data, owned, err);
    if (st != BASALT_OK)
        return st;
    *data_len = (size_t)len;
    if (!basalt_parquet_reader_chunk_cipher(reader, row_group, leaf))
        return BASALT_OK;
    uint8_t *plain = NULL;
    size_t n = 0;
    st = basalt_parquet_reader_decrypt_module(reader, row_group, leaf, type, *data, (size_t)len,
                                              &plain, &n, NULL, err);
    basalt_free(*owned);
    *owned = NULL;
    if (st != BASALT_OK)
        return st;
    *data = plain;
    *data_len = n;
    *owned = plain;
    return BASALT_OK;
}

static basalt_status check_offset_index(const struct basalt_parquet_reader *reader,
                                        int32_t row_group, int32_t leaf,
                                        struct basalt_arena *arena,
                                        struct basalt_parquet_page_index *out,
                                        struct basalt_error *err)
{
    const struct basalt_parquet_offset_index *oi = &out->oi;
    int64_t rows = reader->md.row_groups[row_group].num_rows;
    if (oi->num_page_locations > (size_t)INT32_MAX - 1)
        return basalt_error_set(err, BASALT_LIMIT, "offset index: %zu pages",
                                oi->num_page_locations);
    int32_t n = (int32_t)oi->num_page_locations;
    if (n == 0 && rows > 0)
        return basalt_error_set(err, BASALT_CORRUPT, "offset index: no pages for %lld rows",
                                (long long)rows);
    uint64_t chunk_off = 0, chunk_len = 0;
    basalt_status st =
        basalt_parquet_reader_chunk_range(reader, row_group, leaf, &chunk_off, &chunk_len, err);
    if (st != BASALT_OK)
        return st;
    out->page_first_row = basalt_arena_alloc(arena, sizeof(int64_t) * ((size_t)n + 1), 8);
    out->page_offsets = basalt_arena_alloc(arena, sizeof(int64_t) * ((size_t)n + 1), 8);
    if (!out->page_first_row || !out->page_offsets)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for the page index");
    int64_t prev_end = (int64_t)chunk_off;
    for (int32_t k = 0; k < n; k++) {
        const struct basalt_parquet_page_location *loc = &oi->page_locations[k];
        int64_t first = loc->first_row_index;
        if (k == 0 ? first != 0 : first <= out->page_first_row[k - 1] || first >= rows)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "offset index: page %d starts at row %lld, out of order "
                                    "or out of the row group's %lld rows",
                                    (int)k, (long long)first, (long long)rows);
        if (loc->offset < prev_end || loc->compressed_page_size <= 0 ||
            (uint64_t)loc->offset + (uint64_t)loc->compressed_page_size > chunk_off + chunk_len)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "offset index: page %d at [%lld, +%d) is outside the column "
                                    "chunk [%llu, +%llu) or overlaps the page before",
                                    (int)k, (long long)loc->offset, (int)loc->compressed_page_size,
                                    (unsigned long long)chunk_off, (unsigned long long)chunk_len);
        prev_end = loc->offset + loc->compressed_page_size;
        out->page_first_row[k] = first;
        out->page_offsets[k] = loc->offset;
    }
    out->page_first_row[n] = rows;
    out->page_offsets[n] = (int64_t)(chunk_off + chunk_len);
    out->n_pages = n;
    return BASALT_OK;
}

static basalt_status check_column_index(const struct basalt_parquet_page_index *pi,
                                        struct basalt_error *err)
{
    const struct basalt_parquet_column_index *ci = &pi->ci;
    size_t n = (size_t)pi->n_pages;
    if (ci->num_null_pages != n || ci->num_min_values != n || ci->num_max_values != n ||
        (ci->has_null_counts && ci->num_null_counts != n) ||
        (ci->has_nan_counts && ci->num_nan_counts != n))
        return basalt_error_set(err, BASALT_CORRUPT,
                                "column index: lists of %zu/%zu/%zu entries for %zu pages",
                                ci->num_null_pages, ci->num_min_values, ci->num_max_values, n);
    return BASALT_OK;
}

basalt_status basalt_parquet_page_index_read(const struct basalt_parquet_reader *reader,
                                             int32_t row_group, int32_t leaf,
                                             bool want_column_index, struct basalt_arena *arena,
                                             struct basalt_parquet_page_index *out,
                                             struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    const struct basalt_parquet_column_metadata *meta = NULL;
    basalt_status st = basalt_parquet_reader_chunk_meta(reader, row_group, leaf, &meta, err);
    if (st != BASALT_OK)
        return st;
    const struct basalt_parquet_column_chunk *cc = &reader->md.row_groups[row_group].columns[leaf];
    if (!cc->has_offset_index_offset || !cc->has_offset_index_length)
        return BASALT_OK;
    struct basalt_thrift_limits limits;
    basalt_thrift_limits_init(&limits);
    limits.max_memory = reader->options.max_metadata_memory;
    const uint8_t *data = NULL;
    uint8_t *owned = NULL;
    size_t data_len = 0;
    st = fetch_index(reader, row_group, leaf, BASALT_PARQUET_MODULE_OFFSET_INDEX,
                     cc->offset_index_offset, cc->offset_index_length, "offset index", &data,
                     &data_len, &owned, err);
    if (st == BASALT_OK)
        st = basalt_thrift_decode_offset_index(data, data_len, arena, &limits, &out->oi, err);
    basalt_free(owned);
    if (st == BASALT_OK)
        st = check_offset_index(reader, row_group, leaf, arena, out, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "page index");
    out->has_offset_index = true;
    if (!want_column_index || !cc->has_column_index_offset || !cc->has_column_index_length)
        return BASALT_OK;
    st = fetch_index(reader, row_group, leaf, BASALT_PARQUET_MODULE_COLUMN_INDEX,
                     cc->column_index_offset, cc->column_index_length, "column index", &data,
                     &data_len, &owned, err);
    if (st == BASALT_OK)
        st = basalt_thrift_decode_column_index(data, data_len, arena, &limits, &out->ci, err);
    basalt_free(owned);
    if (st == BASALT_OK)
        st = check_column_index(out, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "page index");
    out->has_column_index = true;
    return BASALT_OK;
}

basalt_status basalt_parquet_page_index_match(const struct basalt_parquet_reader *reader,
                                              const struct basalt_parquet_page_index *pi,
                                              const struct basalt_parquet_predicate *p,
                                              struct basalt_parquet_ranges *out,
                                              struct basalt_error *err)
{
    const struct basalt_parquet_schema_leaf *leaf = &reader->schema->leaves[p->leaf];
    bool usable = pi->has_column_index && basalt_parquet_page_bounds_usable(reader, p->leaf);
    const struct basalt_parquet_column_index *ci = &pi->ci;
    for (int32_t k = 0; k < pi->n_pages; k++) {
        int64_t begin = pi->page_first_row[k], end = pi->page_first_row[k + 1];
        bool keep = true;
        if (pi->has_column_index) {
            struct basalt_parquet_bounds b;
            memset(&b, 0, sizeof b);
            /* A negative null count means the writer gathered no statistics
             * for the page (parquet-mr then also marks it a null page). A
             * required column has no null pages whatever the index says. */
            bool unknown = ci->has_null_counts && ci->null_counts[k] < 0;
            bool counted = ci->has_null_counts && ci->null_counts[k] >= 0;
            b.all_null = ci->null_pages[k] && !unknown && leaf->max_def > 0 &&
                         (!counted || ci->null_counts[k] >= end - begin);
            b.has_min_max = usable && !ci->null_pages[k] && !unknown;
            b.min = ci->min_values[k];
            b.max = ci->max_values[k];
            /* Column index bounds of byte arrays are often truncated. */
            b.min_exact = b.max_exact = basalt_parquet_leaf_value_class(leaf) !=
                                        BASALT_PARQUET_CLASS_BYTES;
            b.has_null_count = ci->has_null_counts && ci->null_counts[k] >= 0;
            b.null_count = b.has_null_count ? ci->null_counts[k] : 0;
            b.has_nan_count = ci->has_nan_counts && ci->nan_counts[k] >= 0;
            b.nan_count = b.has_nan_count ? ci->nan_counts[k] : 0;
            /* Predicate columns are not repeated: one value per row. */
            b.num_values = end - begin;
            keep = basalt_parquet_predicate_may_match(p, leaf, &b);
        }
        if (keep) {
            basalt_status st = basalt_parquet_ranges_add(out, begin, end, err);
            if (st != BASALT_OK)
                return st;
        }
    }
    return BASALT_OK;
}
