/* GEOMETRY and GEOGRAPHY: every file of parquet-testing's data/geospatial
 * read as geoarrow.wkb with the CRS its README documents, its values
 * checked against the file's own WKT column (rendered from our WKB by a
 * writer written here, in the form the generator's Shapely writes), and the
 * statistics against the README's claims. tests/cli/parquet_geo_duckdb.sh
 * compares every value and every GeospatialStatistics with DuckDB. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "basalt/parquet.h"
#include "test.h"

static const char *geo_file(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", bt_testdata_path("parquet-testing/data/geospatial"),
             name);
    return path;
}

struct geo_read {
    struct basalt_parquet_reader *r;
    struct basalt_arrow_batches b;
    int geo;   /* child index of the geospatial column */
    int wkt;   /* of the wkt column, or -1 */
};

static basalt_status geo_open(const char *name, struct geo_read *g, struct basalt_error *err)
{
    memset(g, 0, sizeof *g);
    basalt_arrow_batches_init(&g->b);
    g->geo = g->wkt = -1;
    struct basalt_parquet_scan *scan = NULL;
    basalt_status st = basalt_parquet_reader_open_file(geo_file(name), NULL, &g->r, err);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_new(g->r, NULL, &scan, err);
    if (st == BASALT_OK) {
        basalt_parquet_scan_select_all(scan);
        st = basalt_parquet_scan_read_all(scan, &g->b, err);
    }
    basalt_parquet_scan_free(scan);
    for (int64_t c = 0; st == BASALT_OK && c < g->b.schema.n_children; c++) {
        const char *n = g->b.schema.children[c]->name;
        if (strcmp(n, "geometry") == 0 || strcmp(n, "geography") == 0)
            g->geo = (int)c;
        if (strcmp(n, "wkt") == 0)
            g->wkt = (int)c;
    }
    return st;
}

static void geo_close(struct geo_read *g)
{
    basalt_arrow_batches_reset(&g->b);
    basalt_parquet_reader_close(g->r);
}

/* The parsed ARROW:extension:metadata of the geospatial column, after
 * checking it is binary with extension name geoarrow.wkb (NULL if not). */
static json_t *geo_metadata(const struct geo_read *g)
{
    if (g->geo < 0)
        return NULL;
    const struct ArrowSchema *s = g->b.schema.children[g->geo];
    const char *v;
    size_t n;
    if (strcmp(s->format, "z") != 0 ||
        basalt_arrow_metadata_get(s->metadata, "ARROW:extension:name", &v, &n, NULL) != BASALT_OK ||
        n != 12 || memcmp(v, "geoarrow.wkb", 12) != 0 ||
        basalt_arrow_metadata_get(s->metadata, "ARROW:extension:metadata", &v, &n, NULL) !=
            BASALT_OK)
        return NULL;
    return json_loadb(v, n, 0, NULL);
}

static bool json_str_is(json_t *o, const char *key, const char *want)
{
    json_t *v = json_object_get(o, key);
    return want ? json_is_string(v) && strcmp(json_string_value(v), want) == 0 : v == NULL;
}

/* ------------------------------------------------------------------ WKB -> WKT */

struct wkt {
    const uint8_t *p;
    size_t len, at;
    struct basalt_buffer *out;
};

static void put(struct wkt *w, const char *s)
{
    basalt_buffer_append(w->out, s, strlen(s), NULL);
}

static bool u32(struct wkt *w, bool le, uint32_t *v)
{
    if (w->len - w->at < 4)
        return false;
    const uint8_t *q = w->p + w->at;
    *v = le ? (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24
            : (uint32_t)q[3] | (uint32_t)q[2] << 8 | (uint32_t)q[1] << 16 | (uint32_t)q[0] << 24;
    w->at += 4;
    return true;
}

/* Python's repr of a float, as Shapely writes coordinates. */
static void coordinate(struct wkt *w, double d)
{
    char buf[40];
    if (isnan(d)) {
        put(w, "nan");
        return;
    }
    int p = 1;
    for (; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    int exp = atoi(strchr(buf, 'e') + 1);
    if (exp >= -4 && exp < 16) {
        snprintf(buf, sizeof buf, "%.*f", p - 1 - exp > 0 ? p - 1 - exp : 0, d);
        if (strchr(buf, '.')) {
            size_t n = strlen(buf);
            while (buf[n - 1] == '0')
                buf[--n] = '\0';
            if (buf[n - 1] == '.')
                buf[n - 1] = '\0';
        }
    }
    put(w, buf);
}

static bool point(struct wkt *w, bool le, int dims)
{
    if (w->len - w->at < (size_t)dims * 8)
        return false;
    for (int k = 0; k < dims; k++) {
        uint64_t u = 0;
        for (int i = 0; i < 8; i++)
            u |= (uint64_t)w->p[w->at + (size_t)(le ? i : 7 - i)] << (8 * i);
        double d;
        memcpy(&d, &u, 8);
        if (k)
            put(w, " ");
        coordinate(w, d);
        w->at += 8;
    }
    return true;
}

static bool points(struct wkt *w, bool le, int dims)
{
    uint32_t n;
    if (!u32(w, le, &n))
        return false;
    if (n == 0) {
        put(w, "EMPTY");
        return true;
    }
    put(w, "(");
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            put(w, ", ");
        if (!point(w, le, dims))
            return false;
    }
    put(w, ")");
    return true;
}

static bool geometry(struct wkt *w, bool tagged, int depth)
{
    static const char *const names[] = {"",           "POINT",           "LINESTRING",
                                        "POLYGON",    "MULTIPOINT",      "MULTILINESTRING",
                                        "MULTIPOLYGON", "GEOMETRYCOLLECTION"};
    static const char *const dim_names[] = {"", " Z", " M", " ZM"};
    if (depth > 8 || w->at >= w->len)
        return false;
    bool le = w->p[w->at++] == 1;
    uint32_t code;
    if (!u32(w, le, &code) || code % 1000 < 1 || code % 1000 > 7 || code / 1000 > 3)
        return false;
    int kind = (int)(code % 1000), dim = (int)(code / 1000);
    int dims = 2 + (dim == 1 || dim == 3) + (dim >= 2);
    if (tagged) {
        put(w, names[kind]);
        put(w, dim_names[dim]);
        put(w, " ");
    }
    if (kind == 1) {
        /* POINT EMPTY is a point of NaN coordinates. */
        bool empty = true;
        for (int k = 0; k < dims && w->len - w->at >= (size_t)dims * 8; k++) {
            double d;
            uint64_t u = 0;
            for (int i = 0; i < 8; i++)
                u |= (uint64_t)w->p[w->at + (size_t)(8 * k) + (size_t)(le ? i : 7 - i)] << (8 * i);
            memcpy(&d, &u, 8);
            empty &= isnan(d) != 0;
        }
        if (empty && tagged) {
            w->at += (size_t)dims * 8;
            put(w, "EMPTY");
            return true;
        }
        put(w, "(");
        bool ok = point(w, le, dims);
        put(w, ")");
        return ok;
    }
    if (kind == 2)
        return points(w, le, dims);
    uint32_t n;
    if (!u32(w, le, &n))
        return false;
    if (n == 0) {
        put(w, "EMPTY");
        return true;
    }
    put(w, "(");
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            put(w, ", ");
        bool ok = kind == 3 ? points(w, le, dims) : geometry(w, kind == 7, depth + 1);
        if (!ok)
            return false;
    }
    put(w, ")");
    return true;
}

/* Every row: our WKB written as WKT equals the file's wkt column. */
static int check_values(const struct geo_read *g, int64_t *rows)
{
    int bad = 0;
    *rows = 0;
    for (int64_t k = 0; k < g->b.n; k++) {
        const struct ArrowArray *geo = g->b.arrays[k].children[g->geo];
        const struct ArrowArray *txt = g->b.arrays[k].children[g->wkt];
        for (int64_t i = 0; i < geo->length; i++, (*rows)++) {
            bool gnull = geo->buffers[0] && !basalt_bitmap_get(geo->buffers[0], geo->offset + i);
            bool tnull = txt->buffers[0] && !basalt_bitmap_get(txt->buffers[0], txt->offset + i);
            if (gnull || tnull) {
                bad += gnull != tnull;
                continue;
            }
            const int32_t *go = geo->buffers[1], *to = txt->buffers[1];
            struct basalt_buffer out;
            basalt_buffer_init(&out);
            struct wkt w = {(const uint8_t *)geo->buffers[2] + go[geo->offset + i],
                            (size_t)(go[geo->offset + i + 1] - go[geo->offset + i]), 0, &out};
            bool ok = geometry(&w, true, 0) && w.at == w.len;
            const char *want = (const char *)txt->buffers[2] + to[txt->offset + i];
            size_t want_len = (size_t)(to[txt->offset + i + 1] - to[txt->offset + i]);
            if (!ok || out.size != want_len || memcmp(out.data, want, want_len) != 0) {
                if (bad < 3)
                    fprintf(stderr, "  row %lld: %.*s\n     want %.*s\n", (long long)*rows,
                            (int)out.size, (const char *)out.data, (int)want_len, want);
                bad++;
            }
            basalt_buffer_reset(&out);
        }
    }
    return bad;
}

/* The README's CRS and edges for each file, the values against the wkt
 * column where the file has one. */
static void check_file(const char *name, const char *crs_text, const char *crs_type,
                       const char *edges, int64_t want_rows)
{
    struct geo_read g;
    struct basalt_error err;
    basalt_status st = geo_open(name, &g, &err);
    if (st != BASALT_OK) {
        bt_fail(__FILE__, __LINE__, "%s: %s", name, err.message);
        geo_close(&g);
        return;
    }
    json_t *md = geo_metadata(&g);
    if (!md) {
        bt_fail(__FILE__, __LINE__, "%s: not a geoarrow.wkb binary column", name);
    } else {
        json_t *crs = json_object_get(md, "crs");
        bool crs_ok;
        if (crs_text && crs_text[0] == '{') {
            /* PROJJSON: EPSG:5070, NAD83 / Conus Albers (the README). */
            json_t *id = json_object_get(crs, "id");
            crs_ok = json_is_object(crs) && json_str_is(crs, "name", "NAD83 / Conus Albers") &&
                     json_str_is(id, "authority", "EPSG") &&
                     json_integer_value(json_object_get(id, "code")) == 5070;
        } else {
            crs_ok = json_is_string(crs) && strcmp(json_string_value(crs), crs_text) == 0;
        }
        if (!crs_ok || !json_str_is(md, "crs_type", crs_type) || !json_str_is(md, "edges", edges)) {
            char *text = json_dumps(md, JSON_COMPACT);
            bt_fail(__FILE__, __LINE__, "%s: GeoArrow metadata %s", name, text ? text : "?");
            free(text);
        }
        json_decref(md);
    }
    int64_t rows = 0;
    for (int64_t k = 0; k < g.b.n; k++)
        rows += g.b.arrays[k].length;
    if (rows != want_rows)
        bt_fail(__FILE__, __LINE__, "%s: %lld rows, %lld expected", name, (long long)rows,
                (long long)want_rows);
    if (g.wkt >= 0 && g.geo >= 0) {
        int64_t n;
        int bad = check_values(&g, &n);
        if (bad)
            bt_fail(__FILE__, __LINE__, "%s: %d of %lld values differ from the wkt column", name,
                    bad, (long long)n);
    }
    geo_close(&g);
}

TEST(geo_crs_default)
{
    /* "crs omitted. This should be interpreted as OGC:CRS84" */
    check_file("crs-default.parquet", "OGC:CRS84", "authority_code", NULL, 1);
}

TEST(geo_crs_geography)
{
    check_file("crs-geography.parquet", "OGC:CRS84", "authority_code", "spherical", 1);
}

TEST(geo_crs_projjson)
{
    /* crs projjson:projjson_epsg_5070, the PROJJSON in the file metadata */
    check_file("crs-projjson.parquet", "{", "projjson", NULL, 1);
}

TEST(geo_crs_srid)
{
    check_file("crs-srid.parquet", "5070", "srid", NULL, 1);
}

TEST(geo_crs_arbitrary_value)
{
    /* The crs parameter holds the PROJJSON itself: passed on as JSON. */
    check_file("crs-arbitrary-value.parquet", "{", NULL, NULL, 1);
}

TEST(geo_geospatial)
{
    /* geospatial.yaml: 31 groups, 196 geometries. */
    check_file("geospatial.parquet", "OGC:CRS84", "authority_code", NULL, 196);
}

TEST(geo_geospatial_with_nan)
{
    check_file("geospatial-with-nan.parquet", "OGC:CRS84", "authority_code", NULL, 3);
    /* "implementations should not generate statistics that contain NaN":
     * the writer did not, and the two valid geometries fit in the box. */
    struct basalt_parquet_reader *r;
    struct basalt_error err;
    CHECK_OK(basalt_parquet_reader_open_file(geo_file("geospatial-with-nan.parquet"), NULL, &r,
                                             &err),
             &err);
    int32_t col;
    CHECK_OK(basalt_parquet_reader_find_column(r, "geometry", &col, &err), &err);
    struct basalt_parquet_column_stats cs;
    CHECK_OK(basalt_parquet_reader_column_stats(r, 0, col, &cs, &err), &err);
    const struct basalt_parquet_geospatial_statistics *gs = cs.geospatial;
    bool ok = gs && gs->has_bbox && !isnan(gs->bbox.xmin) && !isnan(gs->bbox.xmax) &&
              !isnan(gs->bbox.ymin) && !isnan(gs->bbox.ymax) && gs->bbox.xmin <= 10 &&
              gs->bbox.xmax >= 130 && gs->bbox.ymin <= 20 && gs->bbox.ymax >= 140;
    basalt_parquet_reader_close(r);
    CHECK(ok);
}

/* The geography files: ids, row groups of 10 rows, at least one row group
 * whose box wraps around the antimeridian (xmin > xmax). */
static void check_geography(const char *name, int64_t rows)
{
    check_file(name, "OGC:CRS84", "authority_code", "spherical", rows);
    struct basalt_parquet_reader *r;
    struct basalt_error err;
    CHECK_OK(basalt_parquet_reader_open_file(geo_file(name), NULL, &r, &err), &err);
    int32_t col;
    CHECK_OK(basalt_parquet_reader_find_column(r, "geometry", &col, &err), &err);
    int wraps = 0, boxes = 0;
    int32_t groups = basalt_parquet_reader_num_row_groups(r);
    for (int32_t g = 0; g < groups; g++) {
        struct basalt_parquet_column_stats cs;
        if (basalt_parquet_reader_column_stats(r, g, col, &cs, &err) != BASALT_OK ||
            !cs.geospatial || !cs.geospatial->has_bbox)
            continue;
        const struct basalt_parquet_bounding_box *b = &cs.geospatial->bbox;
        boxes++;
        wraps += b->xmin > b->xmax;
        /* "X and Y values are restricted to [-180, 180] and [-90, 90]" */
        CHECK(fabs(b->xmin) <= 180 && fabs(b->xmax) <= 180 && b->ymin >= -90 && b->ymax <= 90);
    }
    basalt_parquet_reader_close(r);
    CHECK_EQ(groups, (rows + 9) / 10);
    CHECK_EQ(boxes, groups);
    CHECK(wraps >= 1);
}

TEST(geo_geography_points)
{
    check_geography("geography-points.parquet", 500);
    /* "contain both the North and South Poles (POINT (0 90) and POINT (0 -90))" */
    struct geo_read g;
    struct basalt_error err;
    CHECK_OK(geo_open("geography-points.parquet", &g, &err), &err);
    int poles = 0;
    for (int64_t k = 0; k < g.b.n; k++) {
        const struct ArrowArray *a = g.b.arrays[k].children[g.geo];
        const int32_t *o = a->buffers[1];
        for (int64_t i = 0; i < a->length; i++) {
            const uint8_t *p = (const uint8_t *)a->buffers[2] + o[a->offset + i];
            double x, y;
            if (o[a->offset + i + 1] - o[a->offset + i] != 21 || p[0] != 1)
                continue;
            memcpy(&x, p + 5, 8);
            memcpy(&y, p + 13, 8);
            poles += x == 0 && fabs(y) == 90;
        }
    }
    geo_close(&g);
    CHECK_EQ(poles, 2);
}

TEST(geo_geography_lines)
{
    /* lines between consecutive points of the 500 */
    check_geography("geography-lines.parquet", 499);
}

TEST(geo_geography_polygons)
{
    check_geography("geography-polygons.parquet", 500);
}

/* geospatial.yaml's groups, by row group: the types in each and a box only
 * where some coordinate is not NaN (the empty and null groups have none). */
TEST(geo_geospatial_statistics)
{
    struct basalt_parquet_reader *r;
    struct basalt_error err;
    CHECK_OK(basalt_parquet_reader_open_file(geo_file("geospatial.parquet"), NULL, &r, &err), &err);
    int32_t col;
    CHECK_OK(basalt_parquet_reader_find_column(r, "geometry", &col, &err), &err);
    CHECK_EQ(basalt_parquet_reader_num_row_groups(r), 31);
    struct basalt_parquet_column_stats cs;
    /* all: 28 geometries of every kind and dimension, x and y 10..40, z
     * (x + y) 30..80, m (z * y) 200..1600 */
    CHECK_OK(basalt_parquet_reader_column_stats(r, 0, col, &cs, &err), &err);
    CHECK(cs.geospatial && cs.geospatial->has_bbox);
    const struct basalt_parquet_bounding_box *b = &cs.geospatial->bbox;
    CHECK(b->xmin == 10 && b->xmax == 40 && b->ymin == 10 && b->ymax == 40);
    CHECK(b->has_zmin && b->zmin == 30 && b->zmax == 80);
    CHECK(b->has_mmin && b->mmin == 200 && b->mmax == 1600);
    CHECK_EQ(cs.geospatial->num_geospatial_types, 28);
    /* empty-geometries: the 28 kinds, no box */
    CHECK_OK(basalt_parquet_reader_column_stats(r, 1, col, &cs, &err), &err);
    CHECK(cs.geospatial && !cs.geospatial->has_bbox);
    CHECK_EQ(cs.geospatial->num_geospatial_types, 28);
    /* null-geometries: nothing */
    CHECK_OK(basalt_parquet_reader_column_stats(r, 2, col, &cs, &err), &err);
    CHECK(cs.geospatial && !cs.geospatial->has_bbox);
    CHECK_EQ(cs.geospatial->num_geospatial_types, 0);
    /* point: POINT (30 10), POINT (40 20), null, POINT EMPTY */
    CHECK_OK(basalt_parquet_reader_column_stats(r, 3, col, &cs, &err), &err);
    CHECK(cs.geospatial && cs.geospatial->has_bbox);
    b = &cs.geospatial->bbox;
    CHECK(b->xmin == 30 && b->xmax == 40 && b->ymin == 10 && b->ymax == 20 && !b->has_zmin &&
          !b->has_mmin);
    CHECK_EQ(cs.geospatial->num_geospatial_types, 1);
    CHECK_EQ(cs.geospatial->geospatial_types[0], 1);
    /* geometrycollection-zm, the last group: type 3007 */
    CHECK_OK(basalt_parquet_reader_column_stats(r, 30, col, &cs, &err), &err);
    CHECK(cs.geospatial && cs.geospatial->num_geospatial_types == 1);
    CHECK_EQ(cs.geospatial->geospatial_types[0], 3007);
    /* min/max of WKB are never trusted */
    CHECK(!cs.has_min_max);
    basalt_parquet_reader_close(r);
}
