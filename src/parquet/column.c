/* Decoding one column chunk: output allocation from the page walk, levels
 * of each data page (straight into the validity bitmap for flat optional
 * leaves), values through column_values.c, and the finished leaf. */
#include <inttypes.h>

#include "parquet_column.h"

#define DEFAULT_MAX_PAGE_SIZE (INT64_C(1) << 30)

void basalt_parquet_column_options_init(struct basalt_parquet_column_options *options)
{
    memset(options, 0, sizeof *options);
    options->verify_crc = true;
    options->validate_utf8 = true;
    options->max_page_size = DEFAULT_MAX_PAGE_SIZE;
    options->max_values = INT32_MAX;
}

void basalt_parquet_leaf_values_reset(struct basalt_parquet_leaf_values *leaf)
{
    if (!leaf)
        return;
    basalt_free(leaf->def);
    basalt_free(leaf->rep);
    basalt_arrow_array_release(&leaf->values);
    memset(leaf, 0, sizeof *leaf);
}

/* ------------------------------------------------------------------ setup */

static size_t physical_width(const struct basalt_parquet_schema_leaf *leaf)
{
    switch (leaf->physical_type) {
    case BASALT_PARQUET_TYPE_INT32:
    case BASALT_PARQUET_TYPE_FLOAT: return 4;
    case BASALT_PARQUET_TYPE_INT64:
    case BASALT_PARQUET_TYPE_DOUBLE: return 8;
    case BASALT_PARQUET_TYPE_INT96: return 12;
    case BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY:
        return leaf->type_length > 0 ? (size_t)leaf->type_length : 0;
    default: return 0;
    }
}

/* Does `conversion` turn this leaf's physical values into `width`-byte ones? */
static bool conversion_fits(const struct basalt_parquet_column_state *st)
{
    const int32_t p = st->physical;
    const size_t w = st->width;
    switch (st->conversion) {
    case BASALT_PARQUET_CONVERT_NONE:
        return st->phys_width > 0 && st->phys_width == w;
    case BASALT_PARQUET_CONVERT_INT32_TO_INT8: return p == BASALT_PARQUET_TYPE_INT32 && w == 1;
    case BASALT_PARQUET_CONVERT_INT32_TO_INT16: return p == BASALT_PARQUET_TYPE_INT32 && w == 2;
    case BASALT_PARQUET_CONVERT_INT32_TO_DECIMAL: return p == BASALT_PARQUET_TYPE_INT32;
    case BASALT_PARQUET_CONVERT_INT64_TO_DECIMAL: return p == BASALT_PARQUET_TYPE_INT64;
    case BASALT_PARQUET_CONVERT_BYTES_TO_DECIMAL:
        return p == BASALT_PARQUET_TYPE_BYTE_ARRAY ||
               (p == BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY && st->phys_width > 0);
    case BASALT_PARQUET_CONVERT_INT96_TO_TIMESTAMP: return p == BASALT_PARQUET_TYPE_INT96 && w == 8;
    default: return false;
    }
}

static basalt_status setup(struct basalt_parquet_column_state *st, struct basalt_error *err)
{
    const struct basalt_parquet_schema_leaf *leaf = st->leaf;
    st->physical = leaf->physical_type;
    st->phys_width = physical_width(leaf);
    st->conversion = leaf->conversion;
    if (st->physical == BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY && st->phys_width == 0)
        return basalt_error_set(err, BASALT_CORRUPT, "FIXED_LEN_BYTE_ARRAY without a length");
    if (st->conversion == BASALT_PARQUET_CONVERT_NULL) {
        st->kind = BASALT_PARQUET_OUT_NULL;
        return BASALT_OK;
    }
    struct basalt_arrow_type t;
    basalt_status s = basalt_arrow_type_parse(leaf->format ? leaf->format : "", &t, err);
    if (s != BASALT_OK)
        return basalt_error_context(err, BASALT_UNSUPPORTED, "leaf format");
    switch (t.id) {
    case BASALT_ARROW_TYPE_BOOL:
        if (st->physical != BASALT_PARQUET_TYPE_BOOLEAN)
            break;
        st->kind = BASALT_PARQUET_OUT_BOOL;
        return BASALT_OK;
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_BINARY:
    case BASALT_ARROW_TYPE_LARGE_STRING:
    case BASALT_ARROW_TYPE_LARGE_BINARY:
        if (st->physical != BASALT_PARQUET_TYPE_BYTE_ARRAY ||
            st->conversion != BASALT_PARQUET_CONVERT_NONE)
            break;
        st->kind = BASALT_PARQUET_OUT_BINARY;
        st->large = st->options->large_offsets || t.id == BASALT_ARROW_TYPE_LARGE_STRING ||
                    t.id == BASALT_ARROW_TYPE_LARGE_BINARY;
        st->utf8 = st->options->validate_utf8 &&
                   (t.id == BASALT_ARROW_TYPE_STRING || t.id == BASALT_ARROW_TYPE_LARGE_STRING);
        st->max_data = st->options->max_binary_bytes > 0
                           ? (uint64_t)st->options->max_binary_bytes
                           : st->large ? (uint64_t)BASALT_PARQUET_MAX_DATA_LARGE
                                       : (uint64_t)INT32_MAX;
        return BASALT_OK;
    default:
        if (t.bit_width <= 0 || t.bit_width % 8 != 0 || st->physical == BASALT_PARQUET_TYPE_BOOLEAN)
            break;
        st->kind = BASALT_PARQUET_OUT_FIXED;
        st->width = (size_t)(t.bit_width / 8);
        if (!conversion_fits(st))
            break;
        return BASALT_OK;
    }
    const char *phys = basalt_thrift_parquet_type_name(st->physical);
    return basalt_error_set(err, BASALT_UNSUPPORTED, "%s values cannot be read as Arrow type '%s'",
                            phys ? phys : "?", leaf->format);
}

static size_t at_least_one(size_t n) { return n ? n : 1; }

/* Output buffers at their final size: n_slots slots (levels). */
static basalt_status allocate(struct basalt_parquet_column_state *st, struct basalt_error *err)
{
    const size_t n = (size_t)st->n_slots;
    int64_t n_buffers = st->kind == BASALT_PARQUET_OUT_NULL     ? 0
                        : st->kind == BASALT_PARQUET_OUT_BINARY ? 3
                                                                : 2;
    basalt_status s =
        basalt_arrow_array_init_with(&st->array, n_buffers, 0, st->options->allocator, err);
    if (s != BASALT_OK)
        return s;
    size_t bytes = 0;
    switch (st->kind) {
    case BASALT_PARQUET_OUT_NULL: break;
    case BASALT_PARQUET_OUT_BOOL: bytes = (n + 7) / 8; break;
    case BASALT_PARQUET_OUT_FIXED:
    case BASALT_PARQUET_OUT_INDICES:
        if (n > SIZE_MAX / 2 / st->width)
            return basalt_error_set(err, BASALT_LIMIT, "%zu values of %zu bytes", n, st->width);
        bytes = n * st->width;
        break;
    case BASALT_PARQUET_OUT_BINARY: bytes = (n + 1) * (st->large ? 8 : 4); break;
    }
    if (n_buffers) {
        void *p;
        s = basalt_arrow_array_allocate_buffer(&st->array, 1, at_least_one(bytes), &p, err);
        if (s != BASALT_OK)
            return s;
        st->values = p;
        if (st->kind == BASALT_PARQUET_OUT_BINARY) {
            if (st->large)
                ((int64_t *)p)[0] = 0;
            else
                ((int32_t *)p)[0] = 0;
        }
    }
    if (st->keep_def) {
        st->def = basalt_aligned_alloc(64, at_least_one(n * sizeof(int16_t)));
        if (!st->def)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for %zu levels", n);
    }
    if (st->leaf->max_rep > 0) {
        st->rep = basalt_aligned_alloc(64, at_least_one(n * sizeof(int16_t)));
        if (!st->rep)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for %zu levels", n);
    }
    return BASALT_OK;
}

/* The validity bitmap of a spaced output, made at the first null: the slots
 * before `slot` were all valid. */
static basalt_status need_validity(struct basalt_parquet_column_state *st, int64_t slot,
                                   struct basalt_error *err)
{
    if (st->validity)
        return BASALT_OK;
    void *p;
    basalt_status s = basalt_arrow_array_allocate_buffer(
        &st->array, 0, at_least_one((size_t)basalt_bitmap_bytes(st->n_slots)), &p, err);
    if (s != BASALT_OK)
        return s;
    st->validity = p;
    basalt_bitmap_fill(st->validity, 0, slot, true);
    return BASALT_OK;
}

/* ------------------------------------------------------------------ levels */

struct page_levels {
    const uint8_t *data;
    size_t len;
    bool prefixed;       /* v1: a 4-byte length first */
    int32_t encoding;    /* RLE or BIT_PACKED (v1 only) */
};

static basalt_status decode_levels(const struct page_levels *pl, int16_t max_level, uint64_t n,
                                   int16_t *out, size_t *used, struct basalt_error *err)
{
    if (pl->encoding == BASALT_PARQUET_ENCODING_BIT_PACKED)
        return basalt_parquet_levels_decode_bit_packed(pl->data, pl->len, n, max_level, out, used,
                                                       err);
    if (pl->encoding != BASALT_PARQUET_ENCODING_RLE) {
        const char *name = basalt_thrift_parquet_encoding_name(pl->encoding);
        return basalt_error_set(err, BASALT_UNSUPPORTED, "levels encoded as %s",
                                name ? name : "an unknown encoding");
    }
    struct basalt_parquet_rle_decoder dec;
    basalt_status s = basalt_parquet_levels_init(&dec, pl->data, pl->len, max_level, n,
                                                 pl->prefixed, used, err);
    if (s == BASALT_OK)
        s = basalt_parquet_levels_decode(&dec, n, max_level, out, err);
    return s;
}

/* Validity of a spaced page from its int16 definition levels. */
static basalt_status validity_from_levels(struct basalt_parquet_column_state *st,
                                          const int16_t *def, uint64_t n, int64_t slot,
                                          uint64_t *n_present, const uint8_t **validity,
                                          struct basalt_error *err)
{
    const int16_t max_def = st->leaf->max_def;
    uint64_t present = 0;
    for (uint64_t i = 0; i < n; i++)
        present += def[i] == max_def;
    *n_present = present;
    *validity = NULL;
    if (st->kind == BASALT_PARQUET_OUT_NULL)
        return BASALT_OK;
    if (present == n) {
        if (st->validity)
            basalt_bitmap_fill(st->validity, slot, (int64_t)n, true);
        st->scratch->stats.pages_all_valid++;
        return BASALT_OK;
    }
    basalt_status s = need_validity(st, slot, err);
    if (s != BASALT_OK)
        return s;
    uint8_t *bits = st->validity;
    for (uint64_t i = 0; i < n; i++)
        basalt_bitmap_set(bits, slot + (int64_t)i, def[i] == max_def);
    st->null_count += (int64_t)(n - present);
    *validity = bits;
    return BASALT_OK;
}

/* Definition levels of a flat optional leaf (max level 1) straight into the
 * validity bitmap; a page that is one run of present values needs none. */
static basalt_status flat_validity(struct basalt_parquet_column_state *st,
                                   const struct page_levels *pl, uint64_t n, int64_t slot,
                                   size_t *used, uint64_t *n_present, const uint8_t **validity,
                                   struct basalt_error *err)
{
    struct basalt_parquet_rle_decoder dec;
    basalt_status s = basalt_parquet_levels_init(&dec, pl->data, pl->len, 1, n, pl->prefixed,
                                                 used, err);
    if (s != BASALT_OK)
        return s;
    struct basalt_parquet_rle_decoder start = dec;
    struct basalt_parquet_rle_run run;
    s = basalt_parquet_rle_decoder_next(&dec, n, &run, err);
    if (s != BASALT_OK)
        return basalt_error_context(err, s, "definition levels");
    if (run.kind == BASALT_PARQUET_RUN_REPEAT && run.count == n && run.value == 1) {
        *n_present = n;
        *validity = NULL;
        if (st->validity)
            basalt_bitmap_fill(st->validity, slot, (int64_t)n, true);
        st->scratch->stats.pages_all_valid++;
        return BASALT_OK;
    }
    dec = start;
    s = need_validity(st, slot, err);
    if (s != BASALT_OK)
        return s;
    uint64_t nulls = 0;
    s = basalt_parquet_levels_decode_validity(&dec, n, st->validity, slot, &nulls, err);
    if (s != BASALT_OK)
        return basalt_error_context(err, s, "definition levels");
    *n_present = n - nulls;
    *validity = st->validity;
    st->null_count += (int64_t)nulls;
    st->scratch->stats.levels_to_validity++;
    return BASALT_OK;
}

/* Definition levels of one page: where they go depends on the leaf. */
static basalt_status page_def(struct basalt_parquet_column_state *st, const struct page_levels *pl,
                              uint64_t n, int64_t slot, size_t *used, uint64_t *n_present,
                              const uint8_t **validity, struct basalt_error *err)
{
    const int16_t max_def = st->leaf->max_def;
    *used = 0;
    *validity = NULL;
    *n_present = n;
    if (max_def == 0)
        return BASALT_OK;
    if (!st->keep_def && max_def == 1 && pl->encoding == BASALT_PARQUET_ENCODING_RLE &&
        st->kind != BASALT_PARQUET_OUT_NULL)
        return flat_validity(st, pl, n, slot, used, n_present, validity, err);
    int16_t *def;
    if (st->keep_def) {
        def = st->def + slot;
    } else {
        uint8_t *tmp;
        basalt_status s = basalt_parquet_scratch_reserve(st->scratch, BASALT_PARQUET_SCRATCH_LEVELS,
                                                         at_least_one(n * sizeof(int16_t)), &tmp,
                                                         err);
        if (s != BASALT_OK)
            return s;
        def = (int16_t *)(void *)tmp;
    }
    basalt_status s = decode_levels(pl, max_def, n, def, used, err);
    if (s != BASALT_OK)
        return basalt_error_context(err, s, "definition levels");
    if (st->spaced)
        return validity_from_levels(st, def, n, slot, n_present, validity, err);
    uint64_t present = 0;
    for (uint64_t i = 0; i < n; i++)
        present += def[i] == max_def;
    *n_present = present;
    return BASALT_OK;
}

/* ------------------------------------------------------------------ pages */

static basalt_status data_page(struct basalt_parquet_column_state *st,
                               const struct basalt_parquet_page *page, struct basalt_error *err)
{
    struct basalt_parquet_page_data body;
    basalt_status s = basalt_parquet_page_load(st->src, st->options, st->scratch, page, &body, err);
    if (s != BASALT_OK)
        return s;
    const uint64_t n = (uint64_t)page->num_values;
    const int64_t slot = page->first_level;
    const bool v2 = page->type == BASALT_PARQUET_PAGE_TYPE_DATA_PAGE_V2;
    struct page_levels rep_pl, def_pl;
    const uint8_t *values;
    size_t values_len;
    if (v2) {
        rep_pl = (struct page_levels){body.rep, body.rep_len, false, BASALT_PARQUET_ENCODING_RLE};
        def_pl = (struct page_levels){body.def, body.def_len, false, BASALT_PARQUET_ENCODING_RLE};
        values = body.data;
        values_len = body.len;
    } else {
        rep_pl = (struct page_levels){body.data, body.len, true, page->rep_encoding};
        def_pl.prefixed = true;
        def_pl.encoding = page->def_encoding;
        values = NULL;
        values_len = 0;
    }
    size_t used = 0;
    if (st->leaf->max_rep > 0) {
        s = decode_levels(&rep_pl, st->leaf->max_rep, n, st->rep + slot, &used, err);
        if (s != BASALT_OK)
            return basalt_error_context(err, s, "repetition levels");
    }
    if (!v2) {
        def_pl.data = body.data + used;
        def_pl.len = body.len - used;
    }
    size_t def_used;
    uint64_t n_present;
    const uint8_t *validity;
    s = page_def(st, &def_pl, n, slot, &def_used, &n_present, &validity, err);
    if (s != BASALT_OK)
        return s;
    if (!v2) {
        values = def_pl.data + def_used;
        values_len = def_pl.len - def_used;
    }
    if (st->spaced)
        s = basalt_parquet_column_values(st, page->encoding, values, values_len, slot, n, validity,
                                         n_present, err);
    else
        s = basalt_parquet_column_values(st, page->encoding, values, values_len, st->n_present,
                                         n_present, NULL, n_present, err);
    if (s != BASALT_OK)
        return basalt_error_context(err, s, "values");
    st->n_present += (int64_t)n_present;
    st->scratch->stats.data_pages++;
    return BASALT_OK;
}

/* Room for the byte-array data up front: PLAIN data is at most the pages'
 * bytes, dictionary-encoded data about a value of average length a level.
 * Bounded, since both come from headers; the buffer grows past it if needed. */
static basalt_status reserve_data(struct basalt_parquet_column_state *st,
                                  const struct basalt_parquet_page_table *table,
                                  struct basalt_error *err)
{
    uint64_t est = (uint64_t)table->data_bytes;
    if (st->has_dict && st->dict_len) {
        uint64_t dict_bytes = (uint64_t)st->dict_offsets[st->dict_len];
        est += (uint64_t)table->n_levels * (dict_bytes / st->dict_len + 1);
    }
    uint64_t bound = (uint64_t)st->src->len * 64 + ((uint64_t)1 << 20);
    if (est > bound)
        est = bound;
    if (est > st->max_data)
        est = st->max_data;
    if (est <= st->data.capacity)
        return BASALT_OK;
    return basalt_buffer_reserve(&st->data, (size_t)est + 32, err);
}

static basalt_status dictionary_array(struct basalt_parquet_column_state *st,
                                      struct basalt_error *err)
{
    struct ArrowArray dict;
    basalt_status s = basalt_arrow_array_init(&dict, 3, 0, err);
    if (s != BASALT_OK)
        return s;
    const uint32_t n = st->has_dict ? st->dict_len : 0;
    const size_t bytes = n ? (size_t)st->dict_offsets[n] : 0;
    void *offsets, *data;
    s = basalt_arrow_array_allocate_buffer(&dict, 1, ((size_t)n + 1) * (st->large ? 8 : 4),
                                           &offsets, err);
    if (s == BASALT_OK)
        s = basalt_arrow_array_allocate_buffer(&dict, 2, at_least_one(bytes), &data, err);
    if (s != BASALT_OK) {
        basalt_arrow_array_release(&dict);
        return s;
    }
    for (uint32_t i = 0; i <= n; i++) {
        int32_t o = n ? st->dict_offsets[i] : 0;
        if (st->large)
            ((int64_t *)offsets)[i] = o;
        else
            ((int32_t *)offsets)[i] = o;
    }
    if (bytes)
        memcpy(data, st->dict_data, bytes);
    dict.length = n;
    dict.null_count = 0;
    return basalt_arrow_array_set_dictionary(&st->array, &dict, err);
}

/* Hands the decoded leaf over to `out`. */
static basalt_status finish(struct basalt_parquet_column_state *st,
                            struct basalt_parquet_leaf_values *out, struct basalt_error *err)
{
    const int64_t n = st->n_slots;
    int64_t n_rows = n;
    if (st->rep) {
        n_rows = 0;
        for (int64_t i = 0; i < n; i++)
            n_rows += st->rep[i] == 0;
    }
    if (!st->src->pages && st->src->num_rows >= 0 && n_rows != st->src->num_rows)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "the chunk holds %" PRId64 " rows, the row group %" PRId64, n_rows,
                                st->src->num_rows);
    basalt_status s;
    if (st->kind == BASALT_PARQUET_OUT_BINARY) {
        if (!st->data.data) {
            s = basalt_buffer_reserve(&st->data, 1, err);
            if (s != BASALT_OK)
                return s;
        }
        s = basalt_arrow_array_set_buffer(&st->array, 2, basalt_buffer_take(&st->data), err);
        if (s != BASALT_OK)
            return s;
    }
    if (st->kind == BASALT_PARQUET_OUT_INDICES) {
        s = dictionary_array(st, err);
        if (s != BASALT_OK)
            return s;
    }
    if (st->spaced) {
        st->array.length = n;
        st->array.null_count = st->kind == BASALT_PARQUET_OUT_NULL ? n : st->null_count;
    } else {
        st->array.length = st->n_present;
        st->array.null_count = st->kind == BASALT_PARQUET_OUT_NULL ? st->n_present : 0;
    }
    out->n_levels = n;
    out->def = st->def;
    out->rep = st->rep;
    out->n_rows = n_rows;
    out->dense = !st->spaced;
    out->is_dictionary = st->kind == BASALT_PARQUET_OUT_INDICES;
    out->kind = (int32_t)st->kind;
    out->width = st->kind == BASALT_PARQUET_OUT_BINARY ? (st->large ? 8 : 4) : (int32_t)st->width;
    basalt_arrow_array_move(&st->array, &out->values);
    st->def = NULL;
    st->rep = NULL;
    return BASALT_OK;
}

basalt_status basalt_parquet_column_decode(const struct basalt_parquet_chunk_source *src,
                                           const struct basalt_parquet_column_options *options,
                                           struct basalt_parquet_scratch *scratch,
                                           struct basalt_parquet_leaf_values *out,
                                           struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "column decode: NULL output");
    memset(out, 0, sizeof *out);
    if (!src || !scratch || !src->meta || !src->leaf || (!src->data && src->len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "column decode: NULL argument");
    struct basalt_parquet_column_options defaults;
    if (!options) {
        basalt_parquet_column_options_init(&defaults);
        options = &defaults;
    }
    if (src->meta->type != src->leaf->physical_type) {
        const char *a = basalt_thrift_parquet_type_name(src->meta->type);
        const char *b = basalt_thrift_parquet_type_name(src->leaf->physical_type);
        return basalt_error_set(err, BASALT_CORRUPT,
                                "the chunk holds %s values, the schema says %s", a ? a : "unknown",
                                b ? b : "unknown");
    }
    struct basalt_parquet_column_state st;
    memset(&st, 0, sizeof st);
    st.src = src;
    st.options = options;
    st.scratch = scratch;
    st.leaf = src->leaf;
    basalt_buffer_init(&st.data);
    basalt_status s = setup(&st, err);
    struct basalt_parquet_page_table table;
    if (s == BASALT_OK)
        s = basalt_parquet_page_scan(src, options, scratch, &table, err);
    if (s != BASALT_OK)
        return s;
    if (st.kind == BASALT_PARQUET_OUT_BINARY && options->keep_dictionary && table.all_dictionary) {
        st.kind = BASALT_PARQUET_OUT_INDICES;
        st.width = sizeof(int32_t);
    }
    st.n_slots = table.n_levels;
    st.spaced = st.leaf->max_rep == 0;
    st.keep_def = st.leaf->max_def > 0 && !(st.spaced && st.leaf->n_path_parts <= 1);
    s = allocate(&st, err);
    if (s == BASALT_OK && st.kind == BASALT_PARQUET_OUT_BINARY)
        s = reserve_data(&st, &table, err);
    for (int32_t i = 0; s == BASALT_OK && i < table.n_pages; i++) {
        const struct basalt_parquet_page *page = &table.pages[i];
        if (page->type == BASALT_PARQUET_PAGE_TYPE_DICTIONARY_PAGE) {
            struct basalt_parquet_page_data body;
            s = basalt_parquet_page_load(src, options, scratch, page, &body, err);
            if (s == BASALT_OK)
                s = basalt_parquet_column_dictionary(&st, page, &body, err);
            if (s == BASALT_OK && st.kind == BASALT_PARQUET_OUT_BINARY)
                s = reserve_data(&st, &table, err);
        } else if (page->selected && page->num_values > 0) {
            s = data_page(&st, page, err);
        }
        if (s != BASALT_OK)
            s = basalt_error_context(err, s, "page %" PRId32, page->ordinal);
    }
    if (s == BASALT_OK)
        s = finish(&st, out, err);
    if (s != BASALT_OK) {
        basalt_arrow_array_release(&st.array);
        basalt_free(st.def);
        basalt_free(st.rep);
        basalt_buffer_reset(&st.data);
        memset(out, 0, sizeof *out);
        return s;
    }
    scratch->stats.chunks++;
    return BASALT_OK;
}
