/* Synthetic Parquet structures: random round trips with every optional field,
 * a wide 1,000-column x 50-row-group footer, required fields, unknown and
 * mistyped fields, unions, limits and allocation failures. */
#include <stdio.h>
#include <time.h>

#include "pf_compare.h"
#include "test.h"
#include "thrift_internal.h"

/* ------------------------------------------------------------------ generator */

struct gen {
    struct bt_rng rng;
    struct basalt_arena *arena;
};

static uint64_t below(struct gen *g, uint64_t n)
{
    return bt_rng_below(&g->rng, n);
}

static bool coin(struct gen *g)
{
    return below(g, 2) != 0;
}

static void *alloc(struct gen *g, size_t n)
{
    void *p = basalt_arena_alloc(g->arena, n ? n : 1, 8);
    if (p)
        memset(p, 0, n ? n : 1);
    return p;
}

static int64_t any_i64(struct gen *g)
{
    switch (below(g, 4)) {
    case 0:
        return (int64_t)below(g, 100);
    case 1:
        return -(int64_t)below(g, 1000);
    case 2:
        return below(g, 2) ? INT64_MAX : INT64_MIN;
    default:
        return (int64_t)bt_rng_next(&g->rng);
    }
}

static int32_t any_i32(struct gen *g)
{
    return (int32_t)any_i64(g);
}

static struct basalt_parquet_binary gen_binary(struct gen *g)
{
    size_t len = below(g, 4) == 0 ? 0 : below(g, 40);
    uint8_t *p = alloc(g, len);
    bt_rng_fill(&g->rng, p, len);
    return (struct basalt_parquet_binary){p, len};
}

static struct basalt_parquet_string gen_string(struct gen *g)
{
    size_t len = below(g, 20);
    char *p = alloc(g, len + 1);
    for (size_t i = 0; i < len; i++)
        p[i] = (char)('a' + below(g, 26));
    return (struct basalt_parquet_string){p, len};
}

static int64_t *gen_i64s(struct gen *g, size_t *n)
{
    *n = below(g, 20);
    int64_t *v = alloc(g, *n * sizeof *v);
    for (size_t i = 0; i < *n; i++)
        v[i] = any_i64(g);
    return v;
}

static void gen_statistics(struct gen *g, struct basalt_parquet_statistics *s)
{
    if ((s->has_max = coin(g)))
        s->max = gen_binary(g);
    if ((s->has_min = coin(g)))
        s->min = gen_binary(g);
    if ((s->has_null_count = coin(g)))
        s->null_count = any_i64(g);
    if ((s->has_distinct_count = coin(g)))
        s->distinct_count = any_i64(g);
    if ((s->has_max_value = coin(g)))
        s->max_value = gen_binary(g);
    if ((s->has_min_value = coin(g)))
        s->min_value = gen_binary(g);
    if ((s->has_is_max_value_exact = coin(g)))
        s->is_max_value_exact = coin(g);
    if ((s->has_is_min_value_exact = coin(g)))
        s->is_min_value_exact = coin(g);
    if ((s->has_nan_count = coin(g)))
        s->nan_count = any_i64(g);
}

static struct basalt_parquet_key_value *gen_kvs(struct gen *g, size_t *n)
{
    *n = below(g, 4);
    struct basalt_parquet_key_value *kv = alloc(g, *n * sizeof *kv);
    for (size_t i = 0; i < *n; i++) {
        kv[i].key = gen_string(g);
        if ((kv[i].has_value = coin(g)))
            kv[i].value = gen_string(g);
    }
    return kv;
}

static void gen_logical_type(struct gen *g, struct basalt_parquet_logical_type *lt)
{
    static const int32_t kinds[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18,
                                    19, 42};
    lt->kind = kinds[below(g, sizeof kinds / sizeof kinds[0])];
    switch (lt->kind) {
    case BASALT_PARQUET_LOGICAL_TYPE_DECIMAL:
        lt->decimal.scale = any_i32(g);
        lt->decimal.precision = any_i32(g);
        break;
    case BASALT_PARQUET_LOGICAL_TYPE_TIME:
    case BASALT_PARQUET_LOGICAL_TYPE_TIMESTAMP:
        lt->time.is_adjusted_to_utc = coin(g);
        lt->time.unit = (int32_t)below(g, 5); /* 0 and 4: no member, unknown member */
        break;
    case BASALT_PARQUET_LOGICAL_TYPE_INTEGER:
        lt->integer.bit_width = (int8_t)(8 << below(g, 4));
        lt->integer.is_signed = coin(g);
        break;
    case BASALT_PARQUET_LOGICAL_TYPE_VARIANT:
        if ((lt->variant.has_specification_version = coin(g)))
            lt->variant.specification_version = (int8_t)below(g, 128);
        break;
    case BASALT_PARQUET_LOGICAL_TYPE_GEOMETRY:
    case BASALT_PARQUET_LOGICAL_TYPE_GEOGRAPHY:
        if ((lt->geo.has_crs = coin(g)))
            lt->geo.crs = gen_string(g);
        if (lt->kind == BASALT_PARQUET_LOGICAL_TYPE_GEOGRAPHY && (lt->geo.has_algorithm = coin(g)))
            lt->geo.algorithm = (int32_t)below(g, 5);
        break;
    default:
        break;
    }
}

static void gen_column_metadata(struct gen *g, struct basalt_parquet_column_metadata *m)
{
    m->type = (int32_t)below(g, 8);
    m->num_encodings = below(g, 4);
    int32_t *enc = alloc(g, m->num_encodings * sizeof *enc);
    for (size_t i = 0; i < m->num_encodings; i++)
        enc[i] = (int32_t)below(g, 11);
    m->encodings = enc;
    m->num_path_in_schema = 1 + below(g, 3);
    struct basalt_parquet_string *path = alloc(g, m->num_path_in_schema * sizeof *path);
    for (size_t i = 0; i < m->num_path_in_schema; i++)
        path[i] = gen_string(g);
    m->path_in_schema = path;
    m->codec = (int32_t)below(g, 8);
    m->num_values = any_i64(g);
    m->total_uncompressed_size = any_i64(g);
    m->total_compressed_size = any_i64(g);
    if ((m->has_key_value_metadata = coin(g)))
        m->key_value_metadata = gen_kvs(g, &m->num_key_value_metadata);
    m->data_page_offset = any_i64(g);
    if ((m->has_index_page_offset = coin(g)))
        m->index_page_offset = any_i64(g);
    if ((m->has_dictionary_page_offset = coin(g)))
        m->dictionary_page_offset = any_i64(g);
    if ((m->has_statistics = coin(g)))
        gen_statistics(g, &m->statistics);
    if ((m->has_encoding_stats = coin(g))) {
        m->num_encoding_stats = below(g, 4);
        struct basalt_parquet_page_encoding_stats *es = alloc(g, m->num_encoding_stats * sizeof *es);
        for (size_t i = 0; i < m->num_encoding_stats; i++) {
            es[i].page_type = (int32_t)below(g, 4);
            es[i].encoding = (int32_t)below(g, 11);
            es[i].count = any_i32(g);
        }
        m->encoding_stats = es;
    }
    if ((m->has_bloom_filter_offset = coin(g)))
        m->bloom_filter_offset = any_i64(g);
    if ((m->has_bloom_filter_length = coin(g)))
        m->bloom_filter_length = any_i32(g);
    if ((m->has_size_statistics = coin(g))) {
        struct basalt_parquet_size_statistics *s = &m->size_statistics;
        if ((s->has_unencoded_byte_array_data_bytes = coin(g)))
            s->unencoded_byte_array_data_bytes = any_i64(g);
        if ((s->has_repetition_level_histogram = coin(g)))
            s->repetition_level_histogram = gen_i64s(g, &s->num_repetition_level_histogram);
        if ((s->has_definition_level_histogram = coin(g)))
            s->definition_level_histogram = gen_i64s(g, &s->num_definition_level_histogram);
    }
    if ((m->has_geospatial_statistics = coin(g))) {
        struct basalt_parquet_geospatial_statistics *gs = alloc(g, sizeof *gs);
        if ((gs->has_bbox = coin(g))) {
            struct basalt_parquet_bounding_box *b = &gs->bbox;
            b->xmin = -1.5;
            b->xmax = 2.25;
            b->ymin = (double)any_i32(g);
            b->ymax = 1e300;
            if ((b->has_zmin = coin(g)))
                b->zmin = -0.0;
            if ((b->has_zmax = coin(g)))
                b->zmax = 3.0;
            if ((b->has_mmin = coin(g)))
                b->mmin = 4.5;
            if ((b->has_mmax = coin(g)))
                b->mmax = 5.5;
        }
        if ((gs->has_geospatial_types = coin(g))) {
            gs->num_geospatial_types = below(g, 5);
            int32_t *t = alloc(g, gs->num_geospatial_types * sizeof *t);
            for (size_t i = 0; i < gs->num_geospatial_types; i++)
                t[i] = (int32_t)below(g, 3008);
            gs->geospatial_types = t;
        }
        m->geospatial_statistics = gs;
    }
}

static void gen_column_chunk(struct gen *g, struct basalt_parquet_column_chunk *c, bool *encrypted)
{
    if ((c->has_file_path = coin(g)))
        c->file_path = gen_string(g);
    c->file_offset = any_i64(g);
    if ((c->has_meta_data = below(g, 8) != 0))
        gen_column_metadata(g, &c->meta_data);
    if ((c->has_offset_index_offset = coin(g)))
        c->offset_index_offset = any_i64(g);
    if ((c->has_offset_index_length = coin(g)))
        c->offset_index_length = any_i32(g);
    if ((c->has_column_index_offset = coin(g)))
        c->column_index_offset = any_i64(g);
    if ((c->has_column_index_length = coin(g)))
        c->column_index_length = any_i32(g);
    if ((c->has_crypto_metadata = below(g, 8) == 0)) {
        struct basalt_parquet_column_crypto_metadata *cm = alloc(g, sizeof *cm);
        cm->kind = (int32_t)below(g, 4); /* none, footer key, column key, unknown */
        if (cm->kind == BASALT_PARQUET_COLUMN_CRYPTO_ENCRYPTION_WITH_COLUMN_KEY) {
            cm->num_path_in_schema = 1 + below(g, 2);
            struct basalt_parquet_string *p = alloc(g, cm->num_path_in_schema * sizeof *p);
            for (size_t i = 0; i < cm->num_path_in_schema; i++)
                p[i] = gen_string(g);
            cm->path_in_schema = p;
            if ((cm->has_key_metadata = coin(g)))
                cm->key_metadata = gen_binary(g);
        }
        c->crypto_metadata = cm;
        *encrypted = true;
    }
    if ((c->has_encrypted_column_metadata = below(g, 8) == 0)) {
        c->encrypted_column_metadata = gen_binary(g);
        *encrypted = true;
    }
}

static void gen_encryption(struct gen *g, struct basalt_parquet_encryption_algorithm *a)
{
    a->kind = (int32_t)below(g, 4);
    if (a->kind == 1 || a->kind == 2) {
        if ((a->has_aad_prefix = coin(g)))
            a->aad_prefix = gen_binary(g);
        if ((a->has_aad_file_unique = coin(g)))
            a->aad_file_unique = gen_binary(g);
        if ((a->has_supply_aad_prefix = coin(g)))
            a->supply_aad_prefix = coin(g);
    }
}

static void gen_file_metadata(struct gen *g, struct basalt_parquet_file_metadata *md)
{
    memset(md, 0, sizeof *md);
    md->version = any_i32(g);
    md->num_schema = 1 + below(g, 6);
    struct basalt_parquet_schema_element *se = alloc(g, md->num_schema * sizeof *se);
    for (size_t i = 0; i < md->num_schema; i++) {
        struct basalt_parquet_schema_element *e = &se[i];
        if ((e->has_type = coin(g)))
            e->type = (int32_t)below(g, 8);
        if ((e->has_type_length = coin(g)))
            e->type_length = any_i32(g);
        if ((e->has_repetition_type = coin(g)))
            e->repetition_type = (int32_t)below(g, 3);
        e->name = gen_string(g);
        if ((e->has_num_children = coin(g)))
            e->num_children = any_i32(g);
        if ((e->has_converted_type = coin(g)))
            e->converted_type = (int32_t)below(g, 22);
        if ((e->has_scale = coin(g)))
            e->scale = any_i32(g);
        if ((e->has_precision = coin(g)))
            e->precision = any_i32(g);
        if ((e->has_field_id = coin(g)))
            e->field_id = any_i32(g);
        if ((e->has_logical_type = coin(g)))
            gen_logical_type(g, &e->logical_type);
    }
    md->schema = se;
    md->num_rows = any_i64(g);
    md->num_row_groups = below(g, 4);
    struct basalt_parquet_row_group *rg = alloc(g, md->num_row_groups * sizeof *rg);
    for (size_t i = 0; i < md->num_row_groups; i++) {
        struct basalt_parquet_row_group *r = &rg[i];
        r->num_columns = below(g, 5);
        struct basalt_parquet_column_chunk *cc = alloc(g, r->num_columns * sizeof *cc);
        for (size_t k = 0; k < r->num_columns; k++)
            gen_column_chunk(g, &cc[k], &md->has_encrypted_columns);
        r->columns = cc;
        r->total_byte_size = any_i64(g);
        r->num_rows = any_i64(g);
        if ((r->has_sorting_columns = coin(g))) {
            r->num_sorting_columns = below(g, 3);
            struct basalt_parquet_sorting_column *sc = alloc(g, r->num_sorting_columns * sizeof *sc);
            for (size_t k = 0; k < r->num_sorting_columns; k++) {
                sc[k].column_idx = any_i32(g);
                sc[k].descending = coin(g);
                sc[k].nulls_first = coin(g);
            }
            r->sorting_columns = sc;
        }
        if ((r->has_file_offset = coin(g)))
            r->file_offset = any_i64(g);
        if ((r->has_total_compressed_size = coin(g)))
            r->total_compressed_size = any_i64(g);
        if ((r->has_ordinal = coin(g)))
            r->ordinal = (int16_t)any_i32(g);
    }
    md->row_groups = rg;
    if ((md->has_key_value_metadata = coin(g)))
        md->key_value_metadata = gen_kvs(g, &md->num_key_value_metadata);
    if ((md->has_created_by = coin(g)))
        md->created_by = gen_string(g);
    if ((md->has_column_orders = coin(g))) {
        md->num_column_orders = below(g, 5);
        int32_t *o = alloc(g, md->num_column_orders * sizeof *o);
        for (size_t i = 0; i < md->num_column_orders; i++)
            o[i] = (int32_t)below(g, 5);
        md->column_orders = o;
    }
    if ((md->has_encryption_algorithm = coin(g)))
        gen_encryption(g, &md->encryption_algorithm);
    if ((md->has_footer_signing_key_metadata = coin(g)))
        md->footer_signing_key_metadata = gen_binary(g);
}

/* ------------------------------------------------------------------ round trips */

TEST(random_file_metadata_round_trips)
{
    struct basalt_arena gen_arena, arena;
    basalt_arena_init(&gen_arena, 0);
    basalt_arena_init(&arena, 0);
    struct basalt_buffer buf, buf2;
    basalt_buffer_init(&buf);
    basalt_buffer_init(&buf2);
    struct gen g = {.arena = &gen_arena};
    bt_rng_seed(&g.rng, 7);
    bool ok = true;
    char why[512] = "";
    struct basalt_error err;
    basalt_error_init(&err);
    int i;
    for (i = 0; i < 2000 && ok; i++) {
        struct basalt_parquet_file_metadata md, back;
        gen_file_metadata(&g, &md);
        buf.size = buf2.size = 0;
        basalt_status st = basalt_thrift_encode_file_metadata(&md, &buf, &err);
        if (st == BASALT_OK)
            st = basalt_thrift_decode_file_metadata(buf.data, buf.size, &arena, NULL, &back, &err);
        if (st == BASALT_OK)
            st = basalt_thrift_encode_file_metadata(&back, &buf2, &err);
        ok = st == BASALT_OK && pfc_file_metadata(&md, &back, why, sizeof why) &&
             buf.size == buf2.size && memcmp(buf.data, buf2.data, buf.size) == 0;
        if (st != BASALT_OK)
            snprintf(why, sizeof why, "%.500s", err.message);
        basalt_arena_reset(&arena);
        basalt_arena_reset(&gen_arena);
    }
    basalt_buffer_reset(&buf);
    basalt_buffer_reset(&buf2);
    CHECK_MSG(ok, "case %d: %s", i - 1, why);
}

static void gen_page_header(struct gen *g, struct basalt_parquet_page_header *ph)
{
    memset(ph, 0, sizeof *ph);
    ph->type = (int32_t)below(g, 5);
    ph->uncompressed_page_size = any_i32(g);
    ph->compressed_page_size = any_i32(g);
    if ((ph->has_crc = coin(g)))
        ph->crc = any_i32(g);
    if ((ph->has_data_page_header = coin(g))) {
        struct basalt_parquet_data_page_header *h = &ph->data_page_header;
        h->num_values = any_i32(g);
        h->encoding = (int32_t)below(g, 11);
        h->definition_level_encoding = (int32_t)below(g, 11);
        h->repetition_level_encoding = (int32_t)below(g, 11);
        if ((h->has_statistics = coin(g)))
            gen_statistics(g, &h->statistics);
    }
    ph->has_index_page_header = coin(g);
    if ((ph->has_dictionary_page_header = coin(g))) {
        struct basalt_parquet_dictionary_page_header *h = &ph->dictionary_page_header;
        h->num_values = any_i32(g);
        h->encoding = (int32_t)below(g, 11);
        if ((h->has_is_sorted = coin(g)))
            h->is_sorted = coin(g);
    }
    /* The decoder reports the IDL default when the field is absent. */
    ph->data_page_header_v2.is_compressed = true;
    if ((ph->has_data_page_header_v2 = coin(g))) {
        struct basalt_parquet_data_page_header_v2 *h = &ph->data_page_header_v2;
        h->num_values = any_i32(g);
        h->num_nulls = any_i32(g);
        h->num_rows = any_i32(g);
        h->encoding = (int32_t)below(g, 11);
        h->definition_levels_byte_length = any_i32(g);
        h->repetition_levels_byte_length = any_i32(g);
        if ((h->has_is_compressed = coin(g)))
            h->is_compressed = coin(g);
        if ((h->has_statistics = coin(g)))
            gen_statistics(g, &h->statistics);
    }
}

TEST(random_page_level_round_trips)
{
    struct basalt_arena gen_arena, arena;
    basalt_arena_init(&gen_arena, 0);
    basalt_arena_init(&arena, 0);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct gen g = {.arena = &gen_arena};
    bt_rng_seed(&g.rng, 11);
    char why[512] = "";
    bool ok = true;
    struct basalt_error err;
    basalt_error_init(&err);
    for (int i = 0; i < 2000 && ok; i++) {
        basalt_status st;
        buf.size = 0;
        switch (i % 4) {
        case 0: {
            struct basalt_parquet_page_header a, b;
            gen_page_header(&g, &a);
            size_t used = 0;
            st = basalt_thrift_encode_page_header(&a, &buf, &err);
            /* Trailing bytes (the page body) are not part of the header. */
            if (st == BASALT_OK)
                st = basalt_buffer_append(&buf, "body", 4, &err);
            if (st == BASALT_OK)
                st = basalt_thrift_decode_page_header(buf.data, buf.size, &arena, NULL, &b, &used,
                                                      &err);
            ok = st == BASALT_OK && pfc_page_header(&a, &b, why, sizeof why) &&
                 used == buf.size - 4;
            break;
        }
        case 1: {
            struct basalt_parquet_column_index a = {0}, b;
            size_t n = below(&g, 6);
            bool *np = alloc(&g, n);
            struct basalt_parquet_binary *mins = alloc(&g, n * sizeof *mins);
            struct basalt_parquet_binary *maxs = alloc(&g, n * sizeof *maxs);
            for (size_t k = 0; k < n; k++) {
                np[k] = coin(&g);
                mins[k] = gen_binary(&g);
                maxs[k] = gen_binary(&g);
            }
            a.null_pages = np;
            a.num_null_pages = n;
            a.min_values = mins;
            a.num_min_values = n;
            a.max_values = maxs;
            a.num_max_values = n;
            a.boundary_order = (int32_t)below(&g, 3);
            if ((a.has_null_counts = coin(&g)))
                a.null_counts = gen_i64s(&g, &a.num_null_counts);
            if ((a.has_repetition_level_histograms = coin(&g)))
                a.repetition_level_histograms = gen_i64s(&g, &a.num_repetition_level_histograms);
            if ((a.has_definition_level_histograms = coin(&g)))
                a.definition_level_histograms = gen_i64s(&g, &a.num_definition_level_histograms);
            if ((a.has_nan_counts = coin(&g)))
                a.nan_counts = gen_i64s(&g, &a.num_nan_counts);
            st = basalt_thrift_encode_column_index(&a, &buf, &err);
            if (st == BASALT_OK)
                st = basalt_thrift_decode_column_index(buf.data, buf.size, &arena, NULL, &b, &err);
            ok = st == BASALT_OK && pfc_column_index(&a, &b, why, sizeof why);
            break;
        }
        case 2: {
            struct basalt_parquet_offset_index a = {0}, b;
            a.num_page_locations = below(&g, 20);
            struct basalt_parquet_page_location *pl = alloc(&g, a.num_page_locations * sizeof *pl);
            for (size_t k = 0; k < a.num_page_locations; k++) {
                pl[k].offset = any_i64(&g);
                pl[k].compressed_page_size = any_i32(&g);
                pl[k].first_row_index = any_i64(&g);
            }
            a.page_locations = pl;
            if ((a.has_unencoded_byte_array_data_bytes = coin(&g)))
                a.unencoded_byte_array_data_bytes =
                    gen_i64s(&g, &a.num_unencoded_byte_array_data_bytes);
            st = basalt_thrift_encode_offset_index(&a, &buf, &err);
            if (st == BASALT_OK)
                st = basalt_thrift_decode_offset_index(buf.data, buf.size, &arena, NULL, &b, &err);
            ok = st == BASALT_OK && pfc_offset_index(&a, &b, why, sizeof why);
            break;
        }
        default: {
            struct basalt_parquet_bloom_filter_header a, b;
            a.num_bytes = any_i32(&g);
            a.algorithm = (int32_t)below(&g, 3);
            a.hash = (int32_t)below(&g, 3);
            a.compression = (int32_t)below(&g, 3);
            size_t used = 0;
            st = basalt_thrift_encode_bloom_filter_header(&a, &buf, &err);
            if (st == BASALT_OK)
                st = basalt_thrift_decode_bloom_filter_header(buf.data, buf.size, &arena, NULL, &b,
                                                              &used, &err);
            ok = st == BASALT_OK && pfc_bloom_filter_header(&a, &b, why, sizeof why) &&
                 used == buf.size;
            break;
        }
        }
        if (st != BASALT_OK)
            snprintf(why, sizeof why, "%.500s", err.message);
        if (!ok)
            printf("     case %d\n", i);
        basalt_arena_reset(&arena);
        basalt_arena_reset(&gen_arena);
    }
    basalt_buffer_reset(&buf);
    CHECK_MSG(ok, "%s", why);
}

/* ------------------------------------------------------------------ wide footer */

#define WIDE_COLUMNS 1000
#define WIDE_ROW_GROUPS 50

/* The shape of a wide writer footer: 1,000 leaves, 50 row groups, each
 * chunk with encodings, a path, statistics, page index locations. */
static void wide_footer(struct basalt_arena *a, struct basalt_parquet_file_metadata *md)
{
    memset(md, 0, sizeof *md);
    md->version = 2;
    md->num_schema = WIDE_COLUMNS + 1;
    struct basalt_parquet_schema_element *se =
        basalt_arena_alloc(a, md->num_schema * sizeof *se, 8);
    memset(se, 0, md->num_schema * sizeof *se);
    se[0].name = (struct basalt_parquet_string){"duckdb_schema", 13};
    se[0].has_num_children = true;
    se[0].num_children = WIDE_COLUMNS;
    se[0].has_repetition_type = true;
    static const int32_t encs[] = {BASALT_PARQUET_ENCODING_PLAIN,
                                   BASALT_PARQUET_ENCODING_RLE_DICTIONARY,
                                   BASALT_PARQUET_ENCODING_RLE};
    struct basalt_parquet_string *names = basalt_arena_alloc(a, WIDE_COLUMNS * sizeof *names, 8);
    for (int c = 0; c < WIDE_COLUMNS; c++) {
        char *name = basalt_arena_alloc(a, 16, 1);
        int n = snprintf(name, 16, "column_%04d", c);
        names[c] = (struct basalt_parquet_string){name, (size_t)n};
        struct basalt_parquet_schema_element *e = &se[c + 1];
        e->name = names[c];
        e->has_type = e->has_repetition_type = true;
        e->type = c % 2 ? BASALT_PARQUET_TYPE_BYTE_ARRAY : BASALT_PARQUET_TYPE_INT64;
        e->repetition_type = BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL;
        if (c % 2) {
            e->has_converted_type = e->has_logical_type = true;
            e->converted_type = BASALT_PARQUET_CONVERTED_TYPE_UTF8;
            e->logical_type.kind = BASALT_PARQUET_LOGICAL_TYPE_STRING;
        }
    }
    md->schema = se;
    md->num_rows = (int64_t)WIDE_ROW_GROUPS * 122880;
    md->num_row_groups = WIDE_ROW_GROUPS;
    struct basalt_parquet_row_group *rgs = basalt_arena_alloc(a, WIDE_ROW_GROUPS * sizeof *rgs, 8);
    memset(rgs, 0, WIDE_ROW_GROUPS * sizeof *rgs);
    int64_t offset = 4;
    for (int g = 0; g < WIDE_ROW_GROUPS; g++) {
        struct basalt_parquet_row_group *rg = &rgs[g];
        struct basalt_parquet_column_chunk *cols =
            basalt_arena_alloc(a, WIDE_COLUMNS * sizeof *cols, 8);
        memset(cols, 0, WIDE_COLUMNS * sizeof *cols);
        rg->has_file_offset = rg->has_total_compressed_size = rg->has_ordinal = true;
        rg->file_offset = offset;
        for (int c = 0; c < WIDE_COLUMNS; c++) {
            struct basalt_parquet_column_chunk *cc = &cols[c];
            struct basalt_parquet_column_metadata *m = &cc->meta_data;
            cc->file_offset = offset;
            cc->has_meta_data = true;
            m->type = se[c + 1].type;
            m->encodings = encs;
            m->num_encodings = 3;
            m->path_in_schema = &names[c];
            m->num_path_in_schema = 1;
            m->codec = BASALT_PARQUET_COMPRESSION_CODEC_SNAPPY;
            m->num_values = 122880;
            m->total_compressed_size = 40000 + c * 7 + g;
            m->total_uncompressed_size = 2 * m->total_compressed_size;
            m->has_dictionary_page_offset = true;
            m->dictionary_page_offset = offset;
            m->data_page_offset = offset + 5000;
            m->has_statistics = true;
            struct basalt_parquet_statistics *s = &m->statistics;
            s->has_null_count = s->has_min_value = s->has_max_value = true;
            s->null_count = c + g;
            if (c % 2) {
                s->min_value = (struct basalt_parquet_binary){(const uint8_t *)"aardvark", 8};
                s->max_value = (struct basalt_parquet_binary){(const uint8_t *)"zebra crossing", 14};
            } else {
                uint8_t *v = basalt_arena_alloc(a, 16, 8);
                int64_t lo = -(int64_t)c * 1000, hi = (int64_t)g * 1000000;
                memcpy(v, &lo, 8);
                memcpy(v + 8, &hi, 8);
                s->min_value = (struct basalt_parquet_binary){v, 8};
                s->max_value = (struct basalt_parquet_binary){v + 8, 8};
            }
            cc->has_offset_index_offset = cc->has_offset_index_length = true;
            cc->offset_index_offset = 1000000000 + (int64_t)g * 100000 + c * 30;
            cc->offset_index_length = 30;
            cc->has_column_index_offset = cc->has_column_index_length = true;
            cc->column_index_offset = 2000000000 + (int64_t)g * 100000 + c * 40;
            cc->column_index_length = 40;
            offset += m->total_compressed_size;
            rg->total_byte_size += m->total_uncompressed_size;
            rg->total_compressed_size += m->total_compressed_size;
        }
        rg->columns = cols;
        rg->num_columns = WIDE_COLUMNS;
        rg->num_rows = 122880;
        rg->ordinal = (int16_t)g;
    }
    md->row_groups = rgs;
    md->has_created_by = true;
    md->created_by = (struct basalt_parquet_string){"basalt synthetic", 16};
    md->has_column_orders = true;
    int32_t *orders = basalt_arena_alloc(a, WIDE_COLUMNS * sizeof *orders, 8);
    for (int c = 0; c < WIDE_COLUMNS; c++)
        orders[c] = BASALT_PARQUET_COLUMN_ORDER_TYPE_ORDER;
    md->column_orders = orders;
    md->num_column_orders = WIDE_COLUMNS;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

TEST(wide_footer_1000_columns_50_row_groups)
{
    struct basalt_arena build, arena;
    basalt_arena_init(&build, 1 << 20);
    basalt_arena_init(&arena, 1 << 20);
    struct basalt_parquet_file_metadata md, back;
    wide_footer(&build, &md);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    double t0 = now_ms();
    basalt_status st = basalt_thrift_encode_file_metadata(&md, &buf, &err);
    double encode_ms = now_ms() - t0;
    double best = 1e9;
    for (int i = 0; i < 5 && st == BASALT_OK; i++) {
        basalt_arena_reset(&arena);
        t0 = now_ms();
        st = basalt_thrift_decode_file_metadata(buf.data, buf.size, &arena, NULL, &back, &err);
        double ms = now_ms() - t0;
        if (ms < best)
            best = ms;
    }
    char why[512] = "";
    bool same = st == BASALT_OK && pfc_file_metadata(&md, &back, why, sizeof why);
    printf("     footer %zu bytes: encode %.2f ms, decode %.2f ms (best of 5, this build), "
           "arena %zu bytes\n",
           buf.size, encode_ms, best, arena.bytes_used);
    basalt_buffer_reset(&buf);
    basalt_arena_reset(&arena);
    basalt_arena_reset(&build);
    CHECK_OK(st, &err);
    CHECK_MSG(same, "differs at %s", why);
}

/* ------------------------------------------------------------------ hand-written structures */

/* A minimal valid FileMetaData, with hooks to leave fields out or add some. */
struct fm_options {
    bool skip_num_rows;
    bool skip_num_values;
    bool num_rows_as_binary;
    bool created_by_as_i32;
    bool extras;             /* unknown fields of every type, everywhere */
    bool two_logical_members;
    bool negative_codec;
    bool i16_encodings;
    int32_t logical_kind;    /* 0: none */
};

static void unknown_fields(struct basalt_thrift_writer *w, int16_t first_id)
{
    basalt_thrift_write_field_bool(w, first_id, true);
    basalt_thrift_write_field_header(w, BASALT_THRIFT_TYPE_DOUBLE, (int16_t)(first_id + 1));
    basalt_thrift_write_double(w, 3.5);
    basalt_thrift_write_field_header(w, BASALT_THRIFT_TYPE_MAP, (int16_t)(first_id + 2));
    basalt_thrift_write_map_header(w, BASALT_THRIFT_TYPE_BINARY, BASALT_THRIFT_TYPE_LIST, 1);
    basalt_thrift_write_binary(w, "k", 1);
    basalt_thrift_write_list_header(w, BASALT_THRIFT_TYPE_STRUCT, 1);
    basalt_thrift_write_struct_begin(w);
    basalt_thrift_write_field_header(w, BASALT_THRIFT_TYPE_SET, 1);
    basalt_thrift_write_list_header(w, BASALT_THRIFT_TYPE_UUID, 1);
    static const uint8_t uuid[16] = {1};
    basalt_thrift_write_uuid(w, uuid);
    basalt_thrift_write_struct_end(w);
    basalt_thrift_write_field_header(w, BASALT_THRIFT_TYPE_I8, (int16_t)(first_id + 3));
    basalt_thrift_write_i8(w, -1);
}

static basalt_status write_file_metadata(const struct fm_options *o, struct basalt_buffer *out)
{
    struct basalt_thrift_writer w;
    basalt_thrift_writer_init(&w, out, NULL);
    basalt_thrift_write_struct_begin(&w);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I32, 1);
    basalt_thrift_write_i32(&w, 2);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_LIST, 2);
    basalt_thrift_write_list_header(&w, BASALT_THRIFT_TYPE_STRUCT, 2);
    basalt_thrift_write_struct_begin(&w); /* root */
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_BINARY, 4);
    basalt_thrift_write_binary(&w, "schema", 6);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I32, 5);
    basalt_thrift_write_i32(&w, 1);
    if (o->extras)
        unknown_fields(&w, 20);
    basalt_thrift_write_struct_end(&w);
    basalt_thrift_write_struct_begin(&w); /* leaf */
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I32, 1);
    basalt_thrift_write_i32(&w, BASALT_PARQUET_TYPE_INT32);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_BINARY, 4);
    basalt_thrift_write_binary(&w, "x", 1);
    if (o->logical_kind || o->two_logical_members) {
        basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_STRUCT, 10);
        basalt_thrift_write_struct_begin(&w);
        if (o->two_logical_members) {
            basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_STRUCT, 1);
            basalt_thrift_write_struct_begin(&w);
            basalt_thrift_write_struct_end(&w);
        }
        basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_STRUCT,
                                         (int16_t)(o->logical_kind ? o->logical_kind : 6));
        basalt_thrift_write_struct_begin(&w);
        if (o->extras)
            unknown_fields(&w, 5);
        basalt_thrift_write_struct_end(&w);
        basalt_thrift_write_struct_end(&w);
    }
    basalt_thrift_write_struct_end(&w);
    if (!o->skip_num_rows) {
        if (o->num_rows_as_binary) {
            basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_BINARY, 3);
            basalt_thrift_write_binary(&w, "10", 2);
        } else {
            basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I64, 3);
            basalt_thrift_write_i64(&w, 10);
        }
    }
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_LIST, 4);
    basalt_thrift_write_list_header(&w, BASALT_THRIFT_TYPE_STRUCT, 1);
    basalt_thrift_write_struct_begin(&w); /* RowGroup */
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_LIST, 1);
    basalt_thrift_write_list_header(&w, BASALT_THRIFT_TYPE_STRUCT, 1);
    basalt_thrift_write_struct_begin(&w); /* ColumnChunk */
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I64, 2);
    basalt_thrift_write_i64(&w, 4);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_STRUCT, 3);
    basalt_thrift_write_struct_begin(&w); /* ColumnMetaData */
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I32, 1);
    basalt_thrift_write_i32(&w, BASALT_PARQUET_TYPE_INT32);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_LIST, 2);
    basalt_thrift_write_list_header(&w, o->i16_encodings ? BASALT_THRIFT_TYPE_I16
                                                         : BASALT_THRIFT_TYPE_I32, 2);
    basalt_thrift_write_i32(&w, BASALT_PARQUET_ENCODING_PLAIN);
    basalt_thrift_write_i32(&w, BASALT_PARQUET_ENCODING_RLE);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_LIST, 3);
    basalt_thrift_write_list_header(&w, BASALT_THRIFT_TYPE_BINARY, 1);
    basalt_thrift_write_binary(&w, "x", 1);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I32, 4);
    basalt_thrift_write_i32(&w, o->negative_codec ? -3 : BASALT_PARQUET_COMPRESSION_CODEC_ZSTD);
    if (!o->skip_num_values) {
        basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I64, 5);
        basalt_thrift_write_i64(&w, 10);
    }
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I64, 6);
    basalt_thrift_write_i64(&w, 100);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I64, 7);
    basalt_thrift_write_i64(&w, 90);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I64, 9);
    basalt_thrift_write_i64(&w, 4);
    if (o->extras)
        unknown_fields(&w, 100);
    basalt_thrift_write_struct_end(&w); /* ColumnMetaData */
    if (o->extras)
        unknown_fields(&w, 50);
    basalt_thrift_write_struct_end(&w); /* ColumnChunk */
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I64, 2);
    basalt_thrift_write_i64(&w, 100);
    basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I64, 3);
    basalt_thrift_write_i64(&w, 10);
    basalt_thrift_write_struct_end(&w); /* RowGroup */
    if (o->created_by_as_i32) {
        basalt_thrift_write_field_header(&w, BASALT_THRIFT_TYPE_I32, 6);
        basalt_thrift_write_i32(&w, 7);
    }
    if (o->extras)
        unknown_fields(&w, 1000);
    basalt_thrift_write_struct_end(&w);
    return basalt_thrift_writer_finish(&w);
}

static basalt_status decode_written(const struct fm_options *o, struct basalt_arena *arena,
                                    struct basalt_parquet_file_metadata *md,
                                    struct basalt_error *err)
{
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st = write_file_metadata(o, &buf);
    if (st == BASALT_OK)
        st = basalt_thrift_decode_file_metadata(buf.data, buf.size, arena, NULL, md, err);
    basalt_buffer_reset(&buf);
    return st;
}

TEST(required_fields_named_with_their_path)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_parquet_file_metadata md;
    struct basalt_error err;
    struct fm_options o = {0};
    basalt_status st = decode_written(&o, &arena, &md, &err);
    basalt_arena_reset(&arena);
    CHECK_OK(st, &err);

    o.skip_num_rows = true;
    st = decode_written(&o, &arena, &md, &err);
    basalt_arena_reset(&arena);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
    CHECK_MSG(strstr(err.message, "FileMetaData: required field 'num_rows' (3) is missing"),
              "%s", err.message);

    o = (struct fm_options){.skip_num_values = true};
    st = decode_written(&o, &arena, &md, &err);
    basalt_arena_reset(&arena);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
    CHECK_MSG(strstr(err.message, "row_groups[0]: columns[0]: meta_data: ColumnMetaData: "
                                  "required field 'num_values' (5) is missing"),
              "%s", err.message);
}

TEST(mistyped_fields_are_skipped)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_parquet_file_metadata md;
    struct basalt_error err;
    /* An optional field of the wrong wire type is dropped... */
    struct fm_options o = {.created_by_as_i32 = true};
    basalt_status st = decode_written(&o, &arena, &md, &err);
    bool has_created_by = md.has_created_by;
    basalt_arena_reset(&arena);
    CHECK_OK(st, &err);
    CHECK(!has_created_by);
    /* ...and a required one then counts as missing. */
    o = (struct fm_options){.num_rows_as_binary = true};
    st = decode_written(&o, &arena, &md, &err);
    basalt_arena_reset(&arena);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "'num_rows'") != NULL);
}

TEST(unknown_fields_are_skipped)
{
    struct basalt_arena a1, a2;
    basalt_arena_init(&a1, 0);
    basalt_arena_init(&a2, 0);
    struct basalt_parquet_file_metadata plain, extra;
    struct basalt_error err;
    struct fm_options o = {.logical_kind = BASALT_PARQUET_LOGICAL_TYPE_DATE};
    basalt_status st1 = decode_written(&o, &a1, &plain, &err);
    o.extras = true;
    basalt_status st2 = decode_written(&o, &a2, &extra, &err);
    char why[512] = "";
    bool same = st1 == BASALT_OK && st2 == BASALT_OK && pfc_file_metadata(&plain, &extra, why,
                                                                          sizeof why);
    int32_t kind = st1 == BASALT_OK ? plain.schema[1].logical_type.kind : -1;
    basalt_arena_reset(&a1);
    basalt_arena_reset(&a2);
    CHECK_OK(st1, &err);
    CHECK_OK(st2, &err);
    CHECK_MSG(same, "differs at %s", why);
    CHECK_EQ(kind, BASALT_PARQUET_LOGICAL_TYPE_DATE);
}

TEST(unions)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_parquet_file_metadata md;
    struct basalt_error err;
    /* A member this version does not know keeps its id. */
    struct fm_options o = {.logical_kind = 42};
    basalt_status st = decode_written(&o, &arena, &md, &err);
    int32_t kind = st == BASALT_OK ? md.schema[1].logical_type.kind : -1;
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_parquet_file_metadata back;
    if (st == BASALT_OK)
        st = basalt_thrift_encode_file_metadata(&md, &buf, &err);
    if (st == BASALT_OK)
        st = basalt_thrift_decode_file_metadata(buf.data, buf.size, &arena, NULL, &back, &err);
    int32_t kind2 = st == BASALT_OK ? back.schema[1].logical_type.kind : -1;
    basalt_buffer_reset(&buf);
    basalt_arena_reset(&arena);
    CHECK_OK(st, &err);
    CHECK_EQ(kind, 42);
    CHECK_EQ(kind2, 42);
    /* Two members: not a union. */
    o = (struct fm_options){.two_logical_members = true};
    st = decode_written(&o, &arena, &md, &err);
    basalt_arena_reset(&arena);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "LogicalType has more than one member") != NULL);
}

TEST(enums_and_integer_lists)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_parquet_file_metadata md;
    struct basalt_error err;
    struct fm_options o = {.negative_codec = true};
    basalt_status st = decode_written(&o, &arena, &md, &err);
    basalt_arena_reset(&arena);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "CompressionCodec -3") != NULL);
    /* An i16 list where the IDL says list<Encoding> (seen in the wild). */
    o = (struct fm_options){.i16_encodings = true};
    st = decode_written(&o, &arena, &md, &err);
    size_t n = st == BASALT_OK ? md.row_groups[0].columns[0].meta_data.num_encodings : 0;
    int32_t e1 = n == 2 ? md.row_groups[0].columns[0].meta_data.encodings[1] : -1;
    basalt_arena_reset(&arena);
    CHECK_OK(st, &err);
    CHECK_EQ(n, 2);
    CHECK_EQ(e1, BASALT_PARQUET_ENCODING_RLE);
}

TEST(decode_limits)
{
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct fm_options o = {.extras = true, .logical_kind = 6};
    CHECK_OK(write_file_metadata(&o, &buf), NULL);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_parquet_file_metadata md;
    struct basalt_error err;
    struct basalt_thrift_limits limits;

    basalt_thrift_limits_init(&limits);
    limits.max_depth = 4;
    basalt_status st = basalt_thrift_decode_file_metadata(buf.data, buf.size, &arena, &limits,
                                                          &md, &err);
    basalt_arena_reset(&arena);
    CHECK_STATUS(st, BASALT_LIMIT, &err);

    basalt_thrift_limits_init(&limits);
    limits.max_memory = 100;
    st = basalt_thrift_decode_file_metadata(buf.data, buf.size, &arena, &limits, &md, &err);
    basalt_arena_reset(&arena);
    CHECK_STATUS(st, BASALT_LIMIT, &err);

    basalt_thrift_limits_init(&limits);
    limits.max_container_size = 1;
    st = basalt_thrift_decode_file_metadata(buf.data, buf.size, &arena, &limits, &md, &err);
    basalt_arena_reset(&arena);
    CHECK_STATUS(st, BASALT_LIMIT, &err);

    basalt_thrift_limits_init(&limits);
    limits.max_binary_size = 3;
    st = basalt_thrift_decode_file_metadata(buf.data, buf.size, &arena, &limits, &md, &err);
    basalt_arena_reset(&arena);
    CHECK_STATUS(st, BASALT_LIMIT, &err);
    basalt_buffer_reset(&buf);

    /* A list of 1,000 row groups in 100 bytes cannot be: each needs at
     * least six. Refused before anything is allocated for it. */
    uint8_t lie[100] = {0x15, 0x04,        /* 1: version 2 */
                        0x39, 0xfc,        /* 4: row_groups, list<struct> long form */
                        0xe8, 0x07};       /*    of 1000 */
    st = basalt_thrift_decode_file_metadata(lie, sizeof lie, &arena, NULL, &md, &err);
    size_t used = arena.bytes_used;
    basalt_arena_reset(&arena);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
    CHECK_MSG(strstr(err.message, "row_groups: list of 1000 elements cannot fit"), "%s",
              err.message);
    CHECK_EQ(used, 0);
}

static basalt_status decode_alltypes(void *ctx)
{
    const uint8_t *file = ctx;
    (void)file;
    char rel[] = "parquet-testing/data/alltypes_tiny_pages.parquet";
    size_t len;
    uint8_t *data = bt_read_file(bt_testdata_path(rel), &len);
    if (!data)
        return BASALT_NOMEM;
    uint32_t footer_len = (uint32_t)data[len - 8] | (uint32_t)data[len - 7] << 8 |
                          (uint32_t)data[len - 6] << 16 | (uint32_t)data[len - 5] << 24;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 256); /* small blocks: many allocations to fail */
    struct basalt_parquet_file_metadata md;
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st = basalt_thrift_decode_file_metadata(data + len - 8 - footer_len, footer_len,
                                                          &arena, NULL, &md, NULL);
    if (st == BASALT_OK)
        st = basalt_thrift_encode_file_metadata(&md, &buf, NULL);
    if (st == BASALT_OK && (buf.size != footer_len ||
                            memcmp(buf.data, data + len - 8 - footer_len, footer_len) != 0))
        st = BASALT_INTERNAL;
    basalt_buffer_reset(&buf);
    basalt_arena_reset(&arena);
    basalt_free(data);
    return st;
}

TEST(decode_and_encode_allocation_failures)
{
    CHECK_ALLOC_SWEEP(decode_alltypes, NULL);
}

/* ------------------------------------------------------------------ pages by hand */

TEST(page_header_known_bytes)
{
    /* DATA_PAGE_V2: type 3, sizes 100 and 80, crc -1, v2 header with
     * is_compressed absent (the IDL default is true). */
    static const uint8_t bytes[] = {
        0x15, 0x06,       /* 1: type = 3 */
        0x15, 0xc8, 0x01, /* 2: uncompressed_page_size = 100 */
        0x15, 0xa0, 0x01, /* 3: compressed_page_size = 80 */
        0x15, 0x01,       /* 4: crc = -1 */
        0x4c,             /* 8: data_page_header_v2 (delta 4) */
        0x15, 0x14,       /*   num_values 10 */
        0x15, 0x04,       /*   num_nulls 2 */
        0x15, 0x10,       /*   num_rows 8 */
        0x15, 0x00,       /*   encoding PLAIN */
        0x15, 0x06,       /*   definition_levels_byte_length 3 */
        0x15, 0x00,       /*   repetition_levels_byte_length 0 */
        0x00,             /* end v2 */
        0x00,             /* end */
        0xde, 0xad,       /* the page body */
    };
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_parquet_page_header ph;
    size_t used = 0;
    struct basalt_error err;
    basalt_status st = basalt_thrift_decode_page_header(bytes, sizeof bytes, &arena, NULL, &ph,
                                                        &used, &err);
    basalt_arena_reset(&arena);
    CHECK_OK(st, &err);
    CHECK_EQ(used, sizeof bytes - 2);
    CHECK_EQ(ph.type, BASALT_PARQUET_PAGE_TYPE_DATA_PAGE_V2);
    CHECK_EQ(ph.uncompressed_page_size, 100);
    CHECK_EQ(ph.compressed_page_size, 80);
    CHECK(ph.has_crc);
    CHECK_EQ(ph.crc, -1);
    CHECK(ph.has_data_page_header_v2 && !ph.has_data_page_header);
    CHECK_EQ(ph.data_page_header_v2.num_values, 10);
    CHECK_EQ(ph.data_page_header_v2.num_nulls, 2);
    CHECK_EQ(ph.data_page_header_v2.num_rows, 8);
    CHECK_EQ(ph.data_page_header_v2.definition_levels_byte_length, 3);
    CHECK(!ph.data_page_header_v2.has_is_compressed);
    CHECK(ph.data_page_header_v2.is_compressed);
    /* Re-encoding gives the same bytes. */
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    CHECK_OK(basalt_thrift_encode_page_header(&ph, &buf, &err), &err);
    CHECK_EQ(buf.size, sizeof bytes - 2);
    CHECK_MEM(buf.data, bytes, buf.size);
    basalt_buffer_reset(&buf);
    /* Every prefix of the header is CORRUPT. */
    for (size_t n = 0; n < sizeof bytes - 2; n++) {
        st = basalt_thrift_decode_page_header(bytes, n, &arena, NULL, &ph, &used, NULL);
        basalt_arena_reset(&arena);
        CHECK_MSG(st == BASALT_CORRUPT, "prefix %zu gave %s", n, basalt_status_name(st));
    }
}

TEST(trailer)
{
    struct basalt_error err;
    uint32_t len = 0;
    static const uint8_t par1[8] = {0x10, 0x00, 0x00, 0x00, 'P', 'A', 'R', '1'};
    static const uint8_t pare[8] = {0x10, 0x00, 0x00, 0x00, 'P', 'A', 'R', 'E'};
    static const uint8_t junk[8] = {0x10, 0x00, 0x00, 0x00, 'P', 'A', 'R', '2'};
    static const uint8_t huge[8] = {0xff, 0xff, 0xff, 0x7f, 'P', 'A', 'R', '1'};
    CHECK_OK(basalt_thrift_decode_trailer(par1, 100, &len, &err), &err);
    CHECK_EQ(len, 16);
    len = 0;
    CHECK_STATUS(basalt_thrift_decode_trailer(pare, 100, &len, &err), BASALT_UNSUPPORTED, &err);
    CHECK_EQ(len, 16);
    CHECK_STATUS(basalt_thrift_decode_trailer(junk, 100, &len, &err), BASALT_CORRUPT, &err);
    CHECK_STATUS(basalt_thrift_decode_trailer(huge, 100, &len, &err), BASALT_CORRUPT, &err);
    CHECK_STATUS(basalt_thrift_decode_trailer(par1, 27, &len, &err), BASALT_CORRUPT, &err);
    CHECK_OK(basalt_thrift_decode_trailer(par1, 28, &len, &err), &err);
    CHECK_STATUS(basalt_thrift_decode_trailer(par1, 11, &len, &err), BASALT_CORRUPT, &err);
}

TEST(encoder_misuse)
{
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    struct basalt_parquet_file_metadata md = {0};
    md.num_schema = 3; /* and no schema */
    CHECK_STATUS(basalt_thrift_encode_file_metadata(&md, &buf, &err), BASALT_INVALID_ARG, &err);
    buf.size = 0;
    struct basalt_parquet_schema_element se = {.name = {"x", 1}, .has_logical_type = true};
    se.logical_type.kind = 40000;
    md.schema = &se;
    md.num_schema = 1;
    CHECK_STATUS(basalt_thrift_encode_file_metadata(&md, &buf, &err), BASALT_INVALID_ARG, &err);
    buf.size = 0;
    se.logical_type.kind = BASALT_PARQUET_LOGICAL_TYPE_STRING;
    se.name.data = NULL; /* a length without data */
    CHECK_STATUS(basalt_thrift_encode_file_metadata(&md, &buf, &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_thrift_encode_file_metadata(NULL, &buf, &err), BASALT_INVALID_ARG, &err);
    basalt_buffer_reset(&buf);
}

TEST(names)
{
    CHECK_STR(basalt_thrift_parquet_type_name(BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY),
              "FIXED_LEN_BYTE_ARRAY");
    CHECK_STR(basalt_thrift_parquet_encoding_name(BASALT_PARQUET_ENCODING_RLE_DICTIONARY),
              "RLE_DICTIONARY");
    CHECK(basalt_thrift_parquet_encoding_name(1) == NULL);
    CHECK(basalt_thrift_parquet_encoding_name(-1) == NULL);
    CHECK_STR(basalt_thrift_parquet_codec_name(BASALT_PARQUET_COMPRESSION_CODEC_LZ4_RAW),
              "LZ4_RAW");
    CHECK(basalt_thrift_parquet_codec_name(8) == NULL);
    CHECK_STR(basalt_thrift_parquet_converted_type_name(BASALT_PARQUET_CONVERTED_TYPE_INTERVAL),
              "INTERVAL");
    CHECK_STR(basalt_thrift_parquet_repetition_name(2), "REPEATED");
    CHECK_STR(basalt_thrift_parquet_page_type_name(3), "DATA_PAGE_V2");
    CHECK_STR(basalt_thrift_parquet_boundary_order_name(2), "DESCENDING");
    CHECK_STR(basalt_thrift_parquet_logical_type_name(BASALT_PARQUET_LOGICAL_TYPE_FLOAT16),
              "FLOAT16");
    CHECK(basalt_thrift_parquet_logical_type_name(9) == NULL);
}
