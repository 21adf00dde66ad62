/* The Parquet writer's VARIANT and GEOMETRY/GEOGRAPHY columns: a
 * parquet.variant struct written as an unshredded VARIANT group and read
 * back byte for byte (every value of the shredded_variant corpus), variant
 * bytes checked on write; geoarrow.wkb written as GEOMETRY or GEOGRAPHY with
 * the CRS and edges of its metadata, with GeospatialStatistics computed
 * here by hand from the coordinates; the WKB walk that computes them, on
 * well-formed and malformed input. tests/cli/parquet_geo_duckdb.sh and
 * parquet_variant_duckdb.sh check the files with DuckDB. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/parquet.h"
#include "basalt/parquet_variant.h"
#include "basalt/parquet_writer.h"
#include "parquet_geo.h"
#include "parquet_writer.h"
#include "test.h"
#include "writer_test_util.h"

/* ------------------------------------------------------------ WKB */

struct wkb {
    uint8_t b[512];
    size_t n;
    bool big;
};

static void wkb_u32(struct wkb *w, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        w->b[w->n++] = (uint8_t)(v >> (8 * (w->big ? 3 - i : i)));
}

static void wkb_f64(struct wkb *w, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    for (int i = 0; i < 8; i++)
        w->b[w->n++] = (uint8_t)(u >> (8 * (w->big ? 7 - i : i)));
}

static void wkb_head(struct wkb *w, uint32_t code)
{
    w->b[w->n++] = w->big ? 0 : 1;
    wkb_u32(w, code);
}

/* POINT [Z|M|ZM] of `dims` coordinates. */
static void wkb_point(struct wkb *w, uint32_t code, const double *c, int dims)
{
    wkb_head(w, code);
    for (int k = 0; k < dims; k++)
        wkb_f64(w, c[k]);
}

static void wkb_line(struct wkb *w, uint32_t code, const double *c, uint32_t n, int dims)
{
    wkb_head(w, code);
    wkb_u32(w, n);
    for (uint32_t i = 0; i < n * (uint32_t)dims; i++)
        wkb_f64(w, c[i]);
}

static basalt_status bounds_of(const struct wkb *w, struct basalt_parquet_geo_bounds *b,
                               struct basalt_error *err)
{
    return basalt_parquet_geo_bounds_add(b, w->b, w->n, err);
}

TEST(geo_wkb_bounds)
{
    struct basalt_parquet_geo_bounds b;
    basalt_parquet_geo_bounds_init(&b);
    struct basalt_error err;
    struct wkb w = {.n = 0};
    /* POINT (1 2) little-endian, POINT Z (-3 4 5) big-endian */
    wkb_point(&w, 1, (const double[]){1, 2}, 2);
    CHECK_OK(bounds_of(&w, &b, &err), &err);
    w = (struct wkb){.big = true};
    wkb_point(&w, 1001, (const double[]){-3, 4, 5}, 3);
    CHECK_OK(bounds_of(&w, &b, &err), &err);
    /* LINESTRING M (0 0 7, NaN 9 NaN, 2 NaN -1): NaN skipped per dimension */
    w = (struct wkb){.n = 0};
    wkb_line(&w, 2002, (const double[]){0, 0, 7, NAN, 9, NAN, 2, NAN, -1}, 3, 3);
    CHECK_OK(bounds_of(&w, &b, &err), &err);
    /* POINT EMPTY (NaN NaN): its type counts, nothing else */
    w = (struct wkb){.n = 0};
    wkb_point(&w, 1, (const double[]){NAN, NAN}, 2);
    CHECK_OK(bounds_of(&w, &b, &err), &err);
    /* EWKB: POINT with the Z flag and an SRID */
    w = (struct wkb){.n = 0};
    wkb_head(&w, 0xA0000001u);
    wkb_u32(&w, 4326);
    wkb_f64(&w, 10);
    wkb_f64(&w, -20);
    wkb_f64(&w, 30);
    CHECK_OK(bounds_of(&w, &b, &err), &err);
    /* GEOMETRYCOLLECTION (MULTIPOINT ((100 0)), POLYGON ((0 0, 0 1, 1 0, 0 0))) */
    w = (struct wkb){.n = 0};
    wkb_head(&w, 7);
    wkb_u32(&w, 2);
    wkb_head(&w, 4);
    wkb_u32(&w, 1);
    wkb_point(&w, 1, (const double[]){100, 0}, 2);
    wkb_head(&w, 3);
    wkb_u32(&w, 1);
    wkb_u32(&w, 4);
    for (int i = 0; i < 8; i++)
        wkb_f64(&w, (const double[]){0, 0, 0, 1, 1, 0, 0, 0}[i]);
    CHECK_OK(bounds_of(&w, &b, &err), &err);

    struct basalt_parquet_geospatial_statistics s;
    int32_t types[32];
    CHECK(basalt_parquet_geo_bounds_statistics(&b, &s, types));
    CHECK(s.has_bbox);
    CHECK(s.bbox.xmin == -3 && s.bbox.xmax == 100 && s.bbox.ymin == -20 && s.bbox.ymax == 9);
    CHECK(s.bbox.has_zmin && s.bbox.zmin == 5 && s.bbox.zmax == 30);
    CHECK(s.bbox.has_mmin && s.bbox.mmin == -1 && s.bbox.mmax == 7);
    /* the values' own kinds, sorted: point, collection, point z, linestring m */
    CHECK_EQ(s.num_geospatial_types, 4);
    CHECK_EQ(types[0], 1);
    CHECK_EQ(types[1], 7);
    CHECK_EQ(types[2], 1001);
    CHECK_EQ(types[3], 2002);

    /* Only empty geometries: types, no box. */
    basalt_parquet_geo_bounds_init(&b);
    w = (struct wkb){.n = 0};
    wkb_line(&w, 2, NULL, 0, 2);
    CHECK_OK(bounds_of(&w, &b, &err), &err);
    CHECK(basalt_parquet_geo_bounds_statistics(&b, &s, types));
    CHECK(!s.has_bbox);
    CHECK_EQ(s.num_geospatial_types, 1);
    /* x without y: no box either (Geospatial.md) */
    w = (struct wkb){.n = 0};
    wkb_point(&w, 1, (const double[]){5, NAN}, 2);
    CHECK_OK(bounds_of(&w, &b, &err), &err);
    CHECK(basalt_parquet_geo_bounds_statistics(&b, &s, types));
    CHECK(!s.has_bbox);
}

TEST(geo_wkb_malformed)
{
    struct basalt_parquet_geo_bounds b;
    basalt_parquet_geo_bounds_init(&b);
    struct basalt_error err;
    struct wkb w = {.n = 0};
    wkb_line(&w, 2, (const double[]){1, 2, 3, 4}, 2, 2);
    /* every prefix is CORRUPT and leaves the bounds alone */
    for (size_t k = 0; k < w.n; k++) {
        uint8_t *cut = basalt_malloc(k ? k : 1);
        memcpy(cut, w.b, k);
        basalt_status st = basalt_parquet_geo_bounds_add(&b, cut, k, &err);
        basalt_free(cut);
        CHECK_MSG(st == BASALT_CORRUPT, "prefix %zu: %s", k, basalt_status_name(st));
        CHECK(!b.has[0]);
    }
    /* trailing bytes, a byte order of 2, an unknown type, a count beyond
     * the bytes (no loop over it) */
    w.b[w.n++] = 0;
    CHECK_STATUS(basalt_parquet_geo_bounds_add(&b, w.b, w.n, &err), BASALT_CORRUPT, &err);
    uint8_t order[] = {2, 1, 0, 0, 0};
    CHECK_STATUS(basalt_parquet_geo_bounds_add(&b, order, sizeof order, &err), BASALT_CORRUPT,
                 &err);
    uint8_t kind[] = {1, 8, 0, 0, 0};
    CHECK_STATUS(basalt_parquet_geo_bounds_add(&b, kind, sizeof kind, &err), BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "unknown geometry type 8") != NULL);
    uint8_t huge[] = {1, 6, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
    CHECK_STATUS(basalt_parquet_geo_bounds_add(&b, huge, sizeof huge, &err), BASALT_CORRUPT, &err);
    /* collections nested past the limit */
    size_t depth = BASALT_PARQUET_WKB_MAX_DEPTH + 4;
    uint8_t *deep = basalt_malloc(depth * 9 + 5);
    for (size_t i = 0; i < depth; i++) {
        uint8_t *p = deep + 9 * i;
        p[0] = 1;
        p[1] = 7;
        p[2] = p[3] = p[4] = 0;
        p[5] = 1;
        p[6] = p[7] = p[8] = 0;
    }
    memcpy(deep + depth * 9, (const uint8_t[]){1, 7, 0, 0, 0}, 5);
    basalt_status st = basalt_parquet_geo_bounds_add(&b, deep, depth * 9 + 5, &err);
    basalt_free(deep);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
    CHECK(!b.has[0]);
}

/* ------------------------------------------------------------ geo columns */

static basalt_status geo_table(const char *extension_metadata, const struct wkb *values, int n,
                               int null_at, struct ArrowSchema *s, struct ArrowArray *a,
                               struct basalt_error *err)
{
    struct basalt_arrow_builder *b = NULL, *g = NULL;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &b, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(b, "z", "geom", ARROW_FLAG_NULLABLE, &g, err);
    struct basalt_buffer md;
    basalt_buffer_init(&md);
    if (st == BASALT_OK)
        st = basalt_arrow_metadata_append(&md, "ARROW:extension:name", 20, "geoarrow.wkb", 12, err);
    if (st == BASALT_OK && extension_metadata)
        st = basalt_arrow_metadata_append(&md, "ARROW:extension:metadata", 24, extension_metadata,
                                          strlen(extension_metadata), err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_set_metadata(g, (const char *)md.data, err);
    basalt_buffer_reset(&md);
    for (int i = 0; i < n && st == BASALT_OK; i++) {
        st = i == null_at ? basalt_arrow_builder_append_null(g, err)
                          : basalt_arrow_builder_append_bytes(g, values[i].b, (int64_t)values[i].n, err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(b, err);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(b, s, a, err);
    basalt_arrow_builder_free(b);
    return st;
}

/* The file's GeospatialStatistics and logical type of column 0, row group 0. */
struct geo_back {
    uint8_t *data;
    size_t len;
    struct basalt_parquet_reader *r;
    struct basalt_arrow_batches b;
};

static basalt_status geo_roundtrip(const char *md, const struct wkb *v, int n, int null_at,
                                   struct geo_back *out, struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    basalt_arrow_batches_init(&out->b);
    struct ArrowSchema s;
    struct ArrowArray a;
    basalt_status st = geo_table(md, v, n, null_at, &s, &a, err);
    if (st != BASALT_OK)
        return st;
    st = wtu_write(&s, &a, NULL, 2, &out->data, &out->len, NULL, err);
    basalt_arrow_schema_release(&s);
    basalt_arrow_array_release(&a);
    if (st == BASALT_OK)
        st = wtu_read(out->data, out->len, false, &out->b, &out->r, err);
    return st;
}

static void geo_back_reset(struct geo_back *g)
{
    basalt_arrow_batches_reset(&g->b);
    basalt_parquet_reader_close(g->r);
    basalt_free(g->data);
}

TEST(writer_geometry_statistics)
{
    struct wkb v[5] = {{.n = 0}};
    wkb_point(&v[0], 1, (const double[]){-71.06, 42.36}, 2);
    /* LINESTRING Z (1 2 3, 4 NaN 6) */
    wkb_line(&v[1], 1002, (const double[]){1, 2, 3, 4, NAN, 6}, 2, 3);
    wkb_point(&v[3], 1, (const double[]){NAN, NAN}, 2); /* POINT EMPTY */
    v[4].big = true;
    wkb_point(&v[4], 1, (const double[]){150, -33}, 2);
    struct geo_back g;
    struct basalt_error err;
    CHECK_OK(geo_roundtrip("{\"crs\":\"EPSG:3857\"}", v, 5, 2, &g, &err), &err);
    const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(g.r);
    const struct basalt_parquet_schema_element *e = &md->schema[1];
    CHECK(e->has_logical_type && e->logical_type.kind == BASALT_PARQUET_LOGICAL_TYPE_GEOMETRY);
    CHECK(e->logical_type.geo.has_crs);
    CHECK_STR(e->logical_type.geo.crs.data, "EPSG:3857");
    CHECK_EQ(md->num_row_groups, 1);
    struct basalt_parquet_column_stats cs;
    CHECK_OK(basalt_parquet_reader_column_stats(g.r, 0, 0, &cs, &err), &err);
    /* WKB has no order: no min/max, no ColumnIndex; null count 1 */
    CHECK(!cs.has_min_max);
    CHECK(cs.has_null_count && cs.null_count == 1);
    CHECK(!md->row_groups[0].columns[0].has_column_index_offset);
    const struct basalt_parquet_geospatial_statistics *gs = cs.geospatial;
    CHECK(gs && gs->has_bbox);
    CHECK(gs->bbox.xmin == -71.06 && gs->bbox.xmax == 150);
    CHECK(gs->bbox.ymin == -33 && gs->bbox.ymax == 42.36);
    CHECK(gs->bbox.has_zmin && gs->bbox.zmin == 3 && gs->bbox.zmax == 6);
    CHECK(!gs->bbox.has_mmin);
    CHECK_EQ(gs->num_geospatial_types, 2);
    CHECK(gs->geospatial_types[0] == 1 && gs->geospatial_types[1] == 1002);
    /* read back: the same bytes, geoarrow.wkb with the CRS */
    const struct ArrowSchema *f = g.b.schema.children[0];
    const char *val;
    size_t n;
    CHECK_OK(basalt_arrow_metadata_get(f->metadata, "ARROW:extension:metadata", &val, &n, &err),
             &err);
    CHECK(n == 19 && memcmp(val, "{\"crs\":\"EPSG:3857\"}", 19) == 0);
    const struct ArrowArray *col = g.b.arrays[0].children[0];
    const int32_t *o = col->buffers[1];
    for (int i = 0; i < 5; i++) {
        if (i == 2) {
            CHECK(!basalt_bitmap_get(col->buffers[0], 2));
            continue;
        }
        CHECK_EQ(o[i + 1] - o[i], v[i].n);
        CHECK_MEM((const uint8_t *)col->buffers[2] + o[i], v[i].b, v[i].n);
    }
    geo_back_reset(&g);
}

TEST(writer_geography_and_crs_forms)
{
    struct wkb v[1] = {{.n = 0}};
    wkb_line(&v[0], 2, (const double[]){170, 80, -170, 80}, 2, 2);
    static const struct {
        const char *md;
        int32_t kind;
        const char *crs;  /* NULL: none */
        int algorithm;    /* -1: none */
    } forms[] = {
        {NULL, BASALT_PARQUET_LOGICAL_TYPE_GEOMETRY, NULL, -1},
        {"{}", BASALT_PARQUET_LOGICAL_TYPE_GEOMETRY, NULL, -1},
        {"{\"crs\":\"OGC:CRS84\",\"edges\":\"planar\"}", BASALT_PARQUET_LOGICAL_TYPE_GEOMETRY,
         NULL, -1},
        {"{\"crs\":\"4269\",\"crs_type\":\"srid\"}", BASALT_PARQUET_LOGICAL_TYPE_GEOMETRY,
         "srid:4269", -1},
        {"{\"crs\":{\"type\":\"GeographicCRS\",\"id\":{\"authority\":\"EPSG\",\"code\":4326}},"
         "\"edges\":\"spherical\"}",
         BASALT_PARQUET_LOGICAL_TYPE_GEOGRAPHY, NULL, BASALT_PARQUET_EDGE_INTERPOLATION_ALGORITHM_SPHERICAL},
        {"{\"crs\":{\"name\":\"x\",\"id\":{\"authority\":\"EPSG\",\"code\":5070}},"
         "\"edges\":\"vincenty\"}",
         BASALT_PARQUET_LOGICAL_TYPE_GEOGRAPHY,
         "{\"name\":\"x\",\"id\":{\"authority\":\"EPSG\",\"code\":5070}}",
         BASALT_PARQUET_EDGE_INTERPOLATION_ALGORITHM_VINCENTY},
    };
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        struct geo_back g;
        struct basalt_error err;
        CHECK_OK(geo_roundtrip(forms[i].md, v, 1, -1, &g, &err), &err);
        const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(g.r);
        const struct basalt_parquet_logical_type *lt = &md->schema[1].logical_type;
        CHECK_MSG(lt->kind == forms[i].kind, "form %zu: kind %d", i, (int)lt->kind);
        CHECK_MSG(lt->geo.has_crs == (forms[i].crs != NULL), "form %zu: crs", i);
        if (forms[i].crs)
            CHECK_STR(lt->geo.crs.data, forms[i].crs);
        CHECK(lt->geo.has_algorithm == (forms[i].algorithm >= 0));
        if (forms[i].algorithm >= 0)
            CHECK_EQ(lt->geo.algorithm, forms[i].algorithm);
        struct basalt_parquet_column_stats cs;
        CHECK_OK(basalt_parquet_reader_column_stats(g.r, 0, 0, &cs, &err), &err);
        /* GEOGRAPHY: types only (this line crosses the antimeridian: the box
         * of its vertices would be wrong for spherical edges) */
        CHECK(cs.geospatial && cs.geospatial->num_geospatial_types == 1);
        CHECK(cs.geospatial->has_bbox == (forms[i].kind == BASALT_PARQUET_LOGICAL_TYPE_GEOMETRY));
        geo_back_reset(&g);
    }
    /* Not JSON, unknown edges, a crs of another kind: INVALID_ARG at open. */
    static const char *const bad[] = {"{", "{\"edges\":\"wobbly\"}", "{\"crs\":5}", "[]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct geo_back g;
        struct basalt_error err;
        basalt_status st = geo_roundtrip(bad[i], v, 1, -1, &g, &err);
        geo_back_reset(&g);
        CHECK_MSG(st == BASALT_INVALID_ARG, "%s: %s", bad[i], basalt_status_name(st));
    }
}

TEST(writer_geometry_not_wkb)
{
    /* A value that is not WKB: written, but the chunk has no
     * GeospatialStatistics rather than a box that misses it. */
    struct wkb v[2] = {{.n = 0}};
    wkb_point(&v[0], 1, (const double[]){1, 2}, 2);
    memcpy(v[1].b, "not wkb", 7);
    v[1].n = 7;
    struct geo_back g;
    struct basalt_error err;
    CHECK_OK(geo_roundtrip(NULL, v, 2, -1, &g, &err), &err);
    struct basalt_parquet_column_stats cs;
    CHECK_OK(basalt_parquet_reader_column_stats(g.r, 0, 0, &cs, &err), &err);
    CHECK(cs.geospatial == NULL);
    CHECK_EQ(g.b.arrays[0].length, 2);
    geo_back_reset(&g);
}

/* ------------------------------------------------------------ variant columns */

static const char *shredded(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", bt_testdata_path("parquet-testing/shredded_variant"),
             name);
    return path;
}

static basalt_status read_path(const char *path, struct basalt_arrow_batches *b,
                               struct basalt_error *err)
{
    struct basalt_parquet_reader *r = NULL;
    struct basalt_parquet_scan *scan = NULL;
    basalt_status st = basalt_parquet_reader_open_file(path, NULL, &r, err);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_new(r, NULL, &scan, err);
    if (st == BASALT_OK) {
        basalt_parquet_scan_select_all(scan);
        st = basalt_parquet_scan_read_all(scan, b, err);
    }
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    return st;
}

static bool same_binary(const struct ArrowArray *x, const struct ArrowArray *y, int64_t i)
{
    const int32_t *ox = x->buffers[1], *oy = y->buffers[1];
    int64_t n = ox[x->offset + i + 1] - ox[x->offset + i];
    return n == oy[y->offset + i + 1] - oy[y->offset + i] &&
           memcmp((const uint8_t *)x->buffers[2] + ox[x->offset + i],
                  (const uint8_t *)y->buffers[2] + oy[y->offset + i], (size_t)n) == 0;
}

/* Every readable case of shredded_variant/, read (reassembled), written
 * unshredded, read back: the same metadata and value bytes, nulls where
 * they were; the file's group is VARIANT(1) of required binary metadata and
 * value. */
TEST(writer_variant_roundtrip_corpus)
{
    int files = 0, rows = 0;
    for (int c = 1; c <= 138; c++) {
        char name[64];
        struct basalt_arrow_batches in;
        basalt_arrow_batches_init(&in);
        struct basalt_error err;
        snprintf(name, sizeof name, "case-%03d.parquet", c);
        basalt_status st = read_path(shredded(name), &in, &err);
        if (st == BASALT_NOT_FOUND || st == BASALT_IO) {
            snprintf(name, sizeof name, "case-%03d-INVALID.parquet", c);
            st = read_path(shredded(name), &in, &err);
        }
        if (st != BASALT_OK) { /* absent (case 3) or one that must fail */
            basalt_arrow_batches_reset(&in);
            continue;
        }
        CHECK_EQ(in.n, 1);
        uint8_t *data = NULL;
        size_t len = 0;
        struct basalt_arrow_batches back;
        basalt_arrow_batches_init(&back);
        struct basalt_parquet_reader *r = NULL;
        st = wtu_write(&in.schema, &in.arrays[0], NULL, 1, &data, &len, NULL, &err);
        if (st == BASALT_OK)
            st = wtu_read(data, len, true, &back, &r, &err);
        CHECK_MSG(st == BASALT_OK, "%s: %s", name, err.message);
        const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r);
        CHECK_EQ(md->num_schema, 5);
        const struct basalt_parquet_schema_element *e = md->schema;
        CHECK(e[2].logical_type.kind == BASALT_PARQUET_LOGICAL_TYPE_VARIANT &&
              e[2].logical_type.variant.has_specification_version &&
              e[2].logical_type.variant.specification_version == 1);
        CHECK(strcmp(e[3].name.data, "metadata") == 0 && strcmp(e[4].name.data, "value") == 0);
        CHECK(e[3].repetition_type == BASALT_PARQUET_FIELD_REPETITION_TYPE_REQUIRED &&
              e[4].repetition_type == BASALT_PARQUET_FIELD_REPETITION_TYPE_REQUIRED &&
              e[3].type == BASALT_PARQUET_TYPE_BYTE_ARRAY);
        const struct ArrowArray *a = in.arrays[0].children[1], *b = back.arrays[0].children[1];
        CHECK_EQ(a->length, b->length);
        for (int64_t i = 0; i < a->length; i++, rows++) {
            bool an = a->buffers[0] && !basalt_bitmap_get(a->buffers[0], i);
            bool bn = b->buffers[0] && !basalt_bitmap_get(b->buffers[0], b->offset + i);
            CHECK_MSG(an == bn, "%s row %lld: null %d != %d", name, (long long)i, an, bn);
            if (an)
                continue;
            CHECK_MSG(same_binary(a->children[0], b->children[0], i) &&
                          same_binary(a->children[1], b->children[1], i),
                      "%s row %lld differs", name, (long long)i);
        }
        files++;
        basalt_parquet_reader_close(r);
        basalt_arrow_batches_reset(&back);
        basalt_arrow_batches_reset(&in);
        basalt_free(data);
    }
    CHECK_EQ(files, 131);
    CHECK_EQ(rows, 138);
}

/* A table of one parquet.variant column `v` from (metadata, value) pairs
 * (value NULL: a null value in a present variant; both NULL: a null variant). */
static basalt_status variant_table(const uint8_t *const *md, const size_t *mn,
                                   const uint8_t *const *val, const size_t *vn, int n,
                                   const char *third, struct ArrowSchema *s, struct ArrowArray *a,
                                   struct basalt_error *err)
{
    struct basalt_arrow_builder *b = NULL, *v = NULL, *m = NULL, *x = NULL, *t = NULL;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &b, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(b, "+s", "v", ARROW_FLAG_NULLABLE, &v, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(v, "z", "metadata", 0, &m, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(v, "z", "value", ARROW_FLAG_NULLABLE, &x, err);
    if (st == BASALT_OK && third)
        st = basalt_arrow_builder_add_child(v, "i", third, ARROW_FLAG_NULLABLE, &t, err);
    struct basalt_buffer meta;
    basalt_buffer_init(&meta);
    if (st == BASALT_OK)
        st = basalt_arrow_metadata_append(&meta, "ARROW:extension:name", 20, "parquet.variant", 15,
                                          err);
    if (st == BASALT_OK)
        st = basalt_arrow_metadata_append(&meta, "ARROW:extension:metadata", 24, "", 0, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_set_metadata(v, (const char *)meta.data, err);
    basalt_buffer_reset(&meta);
    for (int i = 0; i < n && st == BASALT_OK; i++) {
        if (!md[i] && !val[i]) {
            st = basalt_arrow_builder_append_null(v, err);
        } else {
            st = basalt_arrow_builder_append_bytes(m, md[i], (int64_t)mn[i], err);
            if (st == BASALT_OK)
                st = val[i] ? basalt_arrow_builder_append_bytes(x, val[i], (int64_t)vn[i], err)
                            : basalt_arrow_builder_append_null(x, err);
            if (st == BASALT_OK && t)
                st = basalt_arrow_builder_append_int(t, 1, err);
            if (st == BASALT_OK)
                st = basalt_arrow_builder_end_element(v, err);
        }
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(b, err);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(b, s, a, err);
    basalt_arrow_builder_free(b);
    return st;
}

static basalt_status variant_write(const uint8_t *const *md, const size_t *mn,
                                   const uint8_t *const *val, const size_t *vn, int n,
                                   const char *third, struct basalt_error *err)
{
    struct ArrowSchema s;
    struct ArrowArray a;
    basalt_status st = variant_table(md, mn, val, vn, n, third, &s, &a, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *data = NULL;
    size_t len;
    st = wtu_write(&s, &a, NULL, 1, &data, &len, NULL, err);
    basalt_free(data);
    basalt_arrow_schema_release(&s);
    basalt_arrow_array_release(&a);
    return st;
}

TEST(writer_variant_checks_its_input)
{
    static const uint8_t md[] = {0x01, 0x00, 0x00}, one[] = {0x0c, 0x01}; /* int8 1 */
    static const uint8_t bad_value[] = {0x0c};            /* int8 without its byte */
    static const uint8_t bad_md[] = {0x02, 0x00, 0x00};   /* version 2 */
    static const uint8_t obj[] = {0x02, 0x01, 0x00, 0x00, 0x02, 0x0c, 0x01}; /* id 0: no name */
    const uint8_t *mds[3] = {md, md, NULL};
    size_t mns[3] = {3, 3, 0};
    const uint8_t *vals[3] = {one, one, NULL};
    size_t vns[3] = {2, 2, 0};
    struct basalt_error err;
    CHECK_OK(variant_write(mds, mns, vals, vns, 3, NULL, &err), &err);
    vals[1] = bad_value;
    vns[1] = 1;
    CHECK_STATUS(variant_write(mds, mns, vals, vns, 3, NULL, &err), BASALT_INVALID_ARG, &err);
    CHECK(strstr(err.message, "column 'v': row 1: variant value") != NULL);
    vals[1] = obj;
    vns[1] = sizeof obj;
    CHECK_STATUS(variant_write(mds, mns, vals, vns, 3, NULL, &err), BASALT_INVALID_ARG, &err);
    CHECK(strstr(err.message, "field id 0 outside the dictionary") != NULL);
    vals[1] = one;
    vns[1] = 2;
    mds[0] = bad_md;
    CHECK_STATUS(variant_write(mds, mns, vals, vns, 3, NULL, &err), BASALT_INVALID_ARG, &err);
    CHECK(strstr(err.message, "row 0: variant metadata: version 2") != NULL);
    /* a null value in a present variant: the column is required */
    mds[0] = md;
    vals[0] = NULL;
    CHECK_STATUS(variant_write(mds, mns, vals, vns, 3, NULL, &err), BASALT_INVALID_ARG, &err);
    CHECK(strstr(err.message, "non-nullable") != NULL);
    /* shredded input is not written; other fields are not a variant */
    vals[0] = one;
    CHECK_STATUS(variant_write(mds, mns, vals, vns, 3, "typed_value", &err), BASALT_UNSUPPORTED,
                 &err);
    CHECK_STATUS(variant_write(mds, mns, vals, vns, 3, "extra", &err), BASALT_INVALID_ARG, &err);
}

/* ------------------------------------------------------------ allocation failures */

TEST(writer_newtypes_allocation_failures)
{
    static const uint8_t md[] = {0x11, 0x01, 0x00, 0x01, 'a'};
    static const uint8_t obj[] = {0x02, 0x01, 0x00, 0x00, 0x02, 0x0c, 0x01}; /* {"a": 1} */
    const uint8_t *mds[3] = {md, NULL, md}, *vals[3] = {obj, NULL, obj};
    size_t mns[3] = {5, 0, 5}, vns[3] = {7, 0, 7};
    struct wtu_sweep k;
    struct basalt_error err;
    basalt_parquet_writer_options_init(&k.o);
    CHECK_OK(variant_table(mds, mns, vals, vns, 3, NULL, &k.s, &k.a, &err), &err);
    CHECK_ALLOC_SWEEP(wtu_sweep_write, &k);
    basalt_arrow_schema_release(&k.s);
    basalt_arrow_array_release(&k.a);
    struct wkb v[3] = {{.n = 0}};
    wkb_point(&v[0], 1, (const double[]){1, 2}, 2);
    wkb_line(&v[2], 3002, (const double[]){1, 2, 3, 4, 5, 6, 7, 8}, 2, 4);
    CHECK_OK(geo_table("{\"crs\":\"4269\",\"crs_type\":\"srid\",\"edges\":\"karney\"}", v, 3, 1,
                       &k.s, &k.a, &err),
             &err);
    CHECK_ALLOC_SWEEP(wtu_sweep_write, &k);
    basalt_arrow_schema_release(&k.s);
    basalt_arrow_array_release(&k.a);
}

/* Variants below a struct and in a list: written as VARIANT groups there
 * (the list's element group annotated), read back as parquet.variant with
 * the same bytes and nulls. */
TEST(writer_variant_nested)
{
    static const uint8_t md[] = {0x11, 0x01, 0x00, 0x01, 'a'};
    static const uint8_t obj[] = {0x02, 0x01, 0x00, 0x00, 0x02, 0x0c, 0x07}; /* {"a": 7} */
    static const uint8_t str[] = {0x0d, 'h', 'i', '!'};                       /* "hi!" */
    struct basalt_buffer meta;
    basalt_buffer_init(&meta);
    struct basalt_error err;
    CHECK_OK(basalt_arrow_metadata_append(&meta, "ARROW:extension:name", 20, "parquet.variant", 15,
                                          &err),
             &err);
    struct basalt_arrow_builder *b = NULL, *s = NULL, *sv = NULL, *l = NULL, *lv = NULL;
    struct basalt_arrow_builder *m[2] = {NULL, NULL}, *v[2] = {NULL, NULL};
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &b, &err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(b, "+s", "s", ARROW_FLAG_NULLABLE, &s, &err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(s, "+s", "v", ARROW_FLAG_NULLABLE, &sv, &err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(b, "+l", "l", ARROW_FLAG_NULLABLE, &l, &err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(l, "+s", "item", ARROW_FLAG_NULLABLE, &lv, &err);
    struct basalt_arrow_builder *vs[2] = {sv, lv};
    for (int k = 0; k < 2 && st == BASALT_OK; k++) {
        st = basalt_arrow_builder_set_metadata(vs[k], (const char *)meta.data, &err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_add_child(vs[k], "z", "metadata", 0, &m[k], &err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_add_child(vs[k], "z", "value", ARROW_FLAG_NULLABLE, &v[k], &err);
    }
    basalt_buffer_reset(&meta);
    CHECK_OK(st, &err);
    /* row 0: s.v {"a":7}, l [ "hi!", null, {"a":7} ]; row 1: s.v null, l null;
     * row 2: s null, l [] */
    for (int row = 0; row < 3 && st == BASALT_OK; row++) {
        if (row == 0) {
            st = basalt_arrow_builder_append_bytes(m[0], md, 5, &err);
            if (st == BASALT_OK)
                st = basalt_arrow_builder_append_bytes(v[0], obj, 7, &err);
            if (st == BASALT_OK)
                st = basalt_arrow_builder_end_element(sv, &err);
            if (st == BASALT_OK)
                st = basalt_arrow_builder_end_element(s, &err);
            const uint8_t *vals[3] = {str, NULL, obj};
            size_t lens[3] = {4, 0, 7};
            for (int e = 0; e < 3 && st == BASALT_OK; e++) {
                if (!vals[e]) {
                    st = basalt_arrow_builder_append_null(lv, &err);
                    continue;
                }
                st = basalt_arrow_builder_append_bytes(m[1], md, 5, &err);
                if (st == BASALT_OK)
                    st = basalt_arrow_builder_append_bytes(v[1], vals[e], (int64_t)lens[e], &err);
                if (st == BASALT_OK)
                    st = basalt_arrow_builder_end_element(lv, &err);
            }
            if (st == BASALT_OK)
                st = basalt_arrow_builder_end_element(l, &err);
        } else if (row == 1) {
            st = basalt_arrow_builder_append_null(sv, &err);
            if (st == BASALT_OK)
                st = basalt_arrow_builder_end_element(s, &err);
            if (st == BASALT_OK)
                st = basalt_arrow_builder_append_null(l, &err);
        } else {
            st = basalt_arrow_builder_append_null(s, &err);
            if (st == BASALT_OK)
                st = basalt_arrow_builder_end_element(l, &err);
        }
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(b, &err);
    }
    struct ArrowSchema schema;
    struct ArrowArray array;
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(b, &schema, &array, &err);
    basalt_arrow_builder_free(b);
    CHECK_OK(st, &err);
    uint8_t *data = NULL;
    size_t len = 0;
    st = wtu_write(&schema, &array, NULL, 2, &data, &len, NULL, &err);
    basalt_arrow_schema_release(&schema);
    basalt_arrow_array_release(&array);
    CHECK_OK(st, &err);
    struct basalt_arrow_batches back;
    basalt_arrow_batches_init(&back);
    struct basalt_parquet_reader *r = NULL;
    st = wtu_read(data, len, true, &back, &r, &err);
    basalt_free(data);
    CHECK_OK(st, &err);
    const struct basalt_parquet_file_metadata *fmd = basalt_parquet_reader_metadata(r);
    int variants = 0;
    for (size_t i = 0; i < fmd->num_schema; i++)
        variants += fmd->schema[i].logical_type.kind == BASALT_PARQUET_LOGICAL_TYPE_VARIANT;
    basalt_parquet_reader_close(r);
    /* the JSON of every row, through the CLI's rendering's library half */
    struct basalt_buffer text;
    basalt_buffer_init(&text);
    for (int64_t k = 0; k < back.n; k++) {
        const struct ArrowArray *sa = back.arrays[k].children[0], *la = back.arrays[k].children[1];
        const struct ArrowArray *svar = sa->children[0], *item = la->children[0];
        for (int64_t i = 0; i < back.arrays[k].length; i++) {
            const struct ArrowArray *one[8];
            int64_t at[8];
            int n = 0;
            if (basalt_bitmap_get(sa->buffers[0] ? sa->buffers[0] : (const uint8_t *)"\xff", sa->offset + i)) {
                one[n] = svar;
                at[n++] = svar->offset + sa->offset + i;
            }
            const int32_t *lo = la->buffers[1];
            if (!la->buffers[0] || basalt_bitmap_get(la->buffers[0], la->offset + i))
                for (int32_t e = lo[la->offset + i]; e < lo[la->offset + i + 1] && n < 8; e++) {
                    one[n] = item;
                    at[n++] = item->offset + e;
                }
            for (int q = 0; q < n; q++) {
                const struct ArrowArray *x = one[q];
                if (x->buffers[0] && !basalt_bitmap_get(x->buffers[0], at[q])) {
                    basalt_buffer_append(&text, "null ", 5, NULL);
                    continue;
                }
                const struct ArrowArray *mm = x->children[0], *vv = x->children[1];
                const int32_t *mo = mm->buffers[1], *vo = vv->buffers[1];
                int64_t p = at[q];
                st = basalt_parquet_variant_to_json(
                    (const uint8_t *)mm->buffers[2] + mo[mm->offset + p],
                    (size_t)(mo[mm->offset + p + 1] - mo[mm->offset + p]),
                    (const uint8_t *)vv->buffers[2] + vo[vv->offset + p],
                    (size_t)(vo[vv->offset + p + 1] - vo[vv->offset + p]), &text, &err);
                basalt_buffer_append(&text, " ", 1, NULL);
            }
            basalt_buffer_append(&text, "/", 1, NULL);
        }
    }
    basalt_buffer_append(&text, "", 1, NULL);
    char got[256];
    snprintf(got, sizeof got, "%s", (const char *)text.data);
    basalt_buffer_reset(&text);
    const char *s_format = back.schema.children[0]->children[0]->metadata;
    const char *ext;
    size_t ext_len = 0;
    basalt_status has = basalt_arrow_metadata_get(s_format, "ARROW:extension:name", &ext, &ext_len,
                                                  NULL);
    basalt_arrow_batches_reset(&back);
    CHECK_OK(st, &err);
    CHECK_EQ(variants, 2);
    CHECK(has == BASALT_OK && ext_len == 15);
    CHECK_STR(got, "{\"a\":7} \"hi!\" null {\"a\":7} /null //");
}
