/* GEOMETRY and GEOGRAPHY: WKB bounds for the writer's GeospatialStatistics,
 * and GeoArrow extension metadata <-> the logical type's crs and edges. */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parquet_geo.h"
#include "parquet_schema.h"
#include "variant_internal.h"

/* ------------------------------------------------------------------ WKB */

void basalt_parquet_geo_bounds_init(struct basalt_parquet_geo_bounds *b)
{
    memset(b, 0, sizeof *b);
}

struct wkb {
    const uint8_t *p;
    size_t len, at;
    struct basalt_parquet_geo_bounds *b;
    struct basalt_error *err;
};

static bool read_u32(struct wkb *w, bool le, uint32_t *v)
{
    if (w->len - w->at < 4)
        return false;
    const uint8_t *q = w->p + w->at;
    *v = le ? (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24
            : (uint32_t)q[3] | (uint32_t)q[2] << 8 | (uint32_t)q[1] << 16 | (uint32_t)q[0] << 24;
    w->at += 4;
    return true;
}

static double read_f64(const uint8_t *q, bool le)
{
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u |= (uint64_t)q[le ? i : 7 - i] << (8 * i);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* `n` points of `dims` coordinates (z at 2 when has_z, m after it). */
static basalt_status points(struct wkb *w, bool le, uint32_t n, bool has_z, bool has_m,
                            const char *what)
{
    size_t dims = 2 + has_z + has_m;
    if ((uint64_t)n * dims * 8 > w->len - w->at)
        return basalt_error_set(w->err, BASALT_CORRUPT,
                                "WKB: %s of %" PRIu32 " points past the end of %zu bytes", what, n,
                                w->len);
    int slot[4] = {0, 1, has_z ? 2 : 3, 3};
    for (uint32_t i = 0; i < n; i++) {
        for (size_t k = 0; k < dims; k++) {
            double v = read_f64(w->p + w->at + 8 * k, le);
            if (isnan(v))
                continue;
            int s = slot[k];
            struct basalt_parquet_geo_bounds *b = w->b;
            if (!b->has[s]) {
                b->has[s] = true;
                b->min[s] = b->max[s] = v;
            } else {
                if (v < b->min[s])
                    b->min[s] = v;
                if (v > b->max[s])
                    b->max[s] = v;
            }
        }
        w->at += dims * 8;
    }
    return BASALT_OK;
}

static basalt_status geometry(struct wkb *w, int depth, bool top)
{
    if (depth > BASALT_PARQUET_WKB_MAX_DEPTH)
        return basalt_error_set(w->err, BASALT_CORRUPT,
                                "WKB: collections nested deeper than %d levels",
                                BASALT_PARQUET_WKB_MAX_DEPTH);
    if (w->at >= w->len)
        return basalt_error_set(w->err, BASALT_CORRUPT, "WKB: a geometry past the end of %zu bytes",
                                w->len);
    uint8_t order = w->p[w->at++];
    if (order > 1)
        return basalt_error_set(w->err, BASALT_CORRUPT, "WKB: byte order %u (0 or 1)", order);
    bool le = order == 1;
    uint32_t code;
    if (!read_u32(w, le, &code))
        return basalt_error_set(w->err, BASALT_CORRUPT, "WKB: type past the end of %zu bytes",
                                w->len);
    /* ISO codes (1000s for Z, 2000s for M) and EWKB's flag bits. */
    bool has_z = (code & 0x80000000u) != 0, has_m = (code & 0x40000000u) != 0;
    bool srid = (code & 0x20000000u) != 0;
    uint32_t iso = code & 0x0fffffffu;
    uint32_t kind = iso % 1000, dim = iso / 1000;
    if (dim > 3 || kind < 1 || kind > 7 || ((has_z || has_m) && dim != 0))
        return basalt_error_set(w->err, BASALT_CORRUPT, "WKB: unknown geometry type %" PRIu32,
                                code);
    has_z = has_z || dim == 1 || dim == 3;
    has_m = has_m || dim == 2 || dim == 3;
    uint32_t ignored;
    if (srid && !read_u32(w, le, &ignored))
        return basalt_error_set(w->err, BASALT_CORRUPT, "WKB: SRID past the end of %zu bytes",
                                w->len);
    if (top)
        w->b->types[(has_z ? 1 : 0) + (has_m ? 2 : 0)][kind] = 1;
    if (kind == 1)
        return points(w, le, 1, has_z, has_m, "point");
    uint32_t n;
    if (!read_u32(w, le, &n))
        return basalt_error_set(w->err, BASALT_CORRUPT, "WKB: count past the end of %zu bytes",
                                w->len);
    if (kind == 2)
        return points(w, le, n, has_z, has_m, "line string");
    if (kind == 3) {
        for (uint32_t r = 0; r < n; r++) {
            uint32_t k;
            if (!read_u32(w, le, &k))
                return basalt_error_set(w->err, BASALT_CORRUPT,
                                        "WKB: ring %" PRIu32 " past the end of %zu bytes", r,
                                        w->len);
            basalt_status st = points(w, le, k, has_z, has_m, "ring");
            if (st != BASALT_OK)
                return st;
        }
        return BASALT_OK;
    }
    /* Multi kinds and collections: each part a whole WKB geometry, at
     * least 5 bytes, which bounds the count before the loop. */
    if ((uint64_t)n * 5 > w->len - w->at)
        return basalt_error_set(w->err, BASALT_CORRUPT,
                                "WKB: %" PRIu32 " parts past the end of %zu bytes", n, w->len);
    for (uint32_t i = 0; i < n; i++) {
        basalt_status st = geometry(w, depth + 1, false);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

basalt_status basalt_parquet_geo_bounds_add(struct basalt_parquet_geo_bounds *b, const uint8_t *wkb,
                                            size_t len, struct basalt_error *err)
{
    struct basalt_parquet_geo_bounds tmp = *b;
    struct wkb w = {wkb, len, 0, &tmp, err};
    basalt_status st = geometry(&w, 0, true);
    if (st == BASALT_OK && w.at != len)
        st = basalt_error_set(err, BASALT_CORRUPT, "WKB: %zu bytes after the geometry",
                              len - w.at);
    if (st == BASALT_OK)
        *b = tmp;
    return st;
}

bool basalt_parquet_geo_bounds_statistics(const struct basalt_parquet_geo_bounds *b,
                                          struct basalt_parquet_geospatial_statistics *out,
                                          int32_t types[32])
{
    memset(out, 0, sizeof *out);
    if (b->invalid)
        return false;
    size_t n = 0;
    for (int dims = 0; dims < 4; dims++)
        for (int kind = 1; kind <= 7; kind++)
            if (b->types[dims][kind])
                types[n++] = dims * 1000 + kind;
    out->has_geospatial_types = true;
    out->geospatial_types = types;
    out->num_geospatial_types = n;
    if (b->has[0] && b->has[1]) {
        struct basalt_parquet_bounding_box *x = &out->bbox;
        out->has_bbox = true;
        x->xmin = b->min[0];
        x->xmax = b->max[0];
        x->ymin = b->min[1];
        x->ymax = b->max[1];
        x->has_zmin = x->has_zmax = b->has[2];
        x->zmin = b->min[2];
        x->zmax = b->max[2];
        x->has_mmin = x->has_mmax = b->has[3];
        x->mmin = b->min[3];
        x->mmax = b->max[3];
    }
    return true;
}

/* ------------------------------------------------------------------ GeoArrow -> logical type */

static const char *const algorithm_names[] = {"spherical", "vincenty", "thomas", "andoyer",
                                              "karney"};

/* A PROJJSON object whose id says longitude/latitude on WGS84. */
static bool projjson_is_lonlat(json_t *crs)
{
    json_t *id = json_object_get(crs, "id");
    json_t *auth = id ? json_object_get(id, "authority") : NULL;
    json_t *code = id ? json_object_get(id, "code") : NULL;
    if (!json_is_string(auth) || !code)
        return false;
    const char *a = json_string_value(auth);
    if (json_is_string(code)) {
        const char *c = json_string_value(code);
        return (strcmp(a, "OGC") == 0 && strcmp(c, "CRS84") == 0) ||
               (strcmp(a, "EPSG") == 0 && strcmp(c, "4326") == 0);
    }
    return strcmp(a, "EPSG") == 0 && json_is_integer(code) && json_integer_value(code) == 4326;
}

basalt_status basalt_parquet_geo_logical_type(const char *json, size_t len,
                                              struct basalt_parquet_logical_type *out,
                                              char **crs_owned, struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    *crs_owned = NULL;
    out->kind = BASALT_PARQUET_LOGICAL_TYPE_GEOMETRY;
    if (!json || len == 0)
        return BASALT_OK;
    json_error_t jerr;
    json_t *root = json_loadb(json, len, 0, &jerr);
    if (!root || !json_is_object(root)) {
        json_decref(root);
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "geoarrow.wkb metadata is not a JSON object");
    }
    basalt_status st = BASALT_OK;
    json_t *edges = json_object_get(root, "edges");
    if (edges && !json_is_null(edges)) {
        const char *e = json_is_string(edges) ? json_string_value(edges) : "";
        if (strcmp(e, "planar") != 0) {
            int found = -1;
            for (int i = 0; i < 5; i++)
                if (strcmp(e, algorithm_names[i]) == 0)
                    found = i;
            if (found < 0)
                st = basalt_error_set(err, BASALT_INVALID_ARG,
                                      "geoarrow.wkb metadata: unknown edges '%s'", e);
            out->kind = BASALT_PARQUET_LOGICAL_TYPE_GEOGRAPHY;
            out->geo.has_algorithm = true;
            out->geo.algorithm = found;
        }
    }
    json_t *crs = json_object_get(root, "crs");
    json_t *crs_type = json_object_get(root, "crs_type");
    char *text = NULL;
    const char *value = NULL;
    char *owned = NULL;
    if (st == BASALT_OK && crs && !json_is_null(crs)) {
        if (json_is_string(crs)) {
            const char *s = json_string_value(crs);
            bool srid = json_is_string(crs_type) && strcmp(json_string_value(crs_type), "srid") == 0;
            if (srid) {
                size_t n = strlen(s);
                owned = basalt_malloc(n + 6);
                if (!owned)
                    st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
                else {
                    memcpy(owned, "srid:", 5);
                    memcpy(owned + 5, s, n + 1);
                    value = owned;
                }
            } else if (strcmp(s, "OGC:CRS84") != 0 && strcmp(s, "EPSG:4326") != 0) {
                value = s;
            }
        } else if (json_is_object(crs)) {
            if (!projjson_is_lonlat(crs)) {
                text = json_dumps(crs, JSON_COMPACT | JSON_PRESERVE_ORDER);
                if (!text)
                    st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
                value = text;
            }
        } else {
            st = basalt_error_set(err, BASALT_INVALID_ARG,
                                  "geoarrow.wkb metadata: crs is neither a string nor an object");
        }
    }
    if (st == BASALT_OK && value) {
        size_t n = strlen(value);
        char *copy = owned;
        if (!copy && (copy = basalt_malloc(n + 1)) != NULL)
            memcpy(copy, value, n + 1);
        if (!copy) {
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        } else {
            out->geo.has_crs = true;
            out->geo.crs.data = copy;
            out->geo.crs.len = n;
            *crs_owned = copy;
            owned = NULL;
        }
    }
    basalt_free(owned);
    free(text); /* jansson's allocation */
    json_decref(root);
    return st;
}

/* ------------------------------------------------------------------ logical type -> GeoArrow */

static basalt_status add(struct basalt_buffer *b, const char *s, struct basalt_error *err)
{
    return basalt_buffer_append(b, s, strlen(s), err);
}

/* `s` as JSON when it is a JSON object, else as a JSON string. */
static basalt_status json_or_string(struct basalt_buffer *b, const char *s, size_t n,
                                    struct basalt_error *err)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r'))
        i++;
    if (i < n && s[i] == '{') {
        json_error_t jerr;
        json_t *j = json_loadb(s, n, 0, &jerr);
        bool object = j && json_is_object(j);
        json_decref(j);
        if (object)
            return basalt_buffer_append(b, s, n, err);
    }
    return basalt_parquet_variant_json_string(b, (const uint8_t *)s, n, err);
}

basalt_status basalt_parquet_geoarrow_metadata(const struct basalt_parquet_schema_annotation *a,
                                               const struct basalt_parquet_key_value *kv,
                                               size_t n_kv, struct basalt_buffer *md,
                                               struct basalt_error *err)
{
    bool geography = a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_GEOGRAPHY;
    if (geography && (a->algorithm < 0 || a->algorithm > 4))
        return BASALT_OK;
    struct basalt_buffer j;
    basalt_buffer_init(&j);
    basalt_status st = add(&j, "{\"crs\":", err);
    const char *crs = a->crs;
    if (st != BASALT_OK) {
    } else if (!crs || !crs[0]) {
        st = add(&j, "\"OGC:CRS84\",\"crs_type\":\"authority_code\"", err);
    } else if (strncmp(crs, "srid:", 5) == 0) {
        st = basalt_parquet_variant_json_string(&j, (const uint8_t *)crs + 5, strlen(crs + 5),
                                                err);
        if (st == BASALT_OK)
            st = add(&j, ",\"crs_type\":\"srid\"", err);
    } else {
        const struct basalt_parquet_key_value *found = NULL;
        if (strncmp(crs, "projjson:", 9) == 0)
            for (size_t i = 0; i < n_kv && !found; i++)
                if (kv[i].key.data && kv[i].has_value && kv[i].value.data &&
                    strcmp(kv[i].key.data, crs + 9) == 0)
                    found = &kv[i];
        if (found) {
            st = json_or_string(&j, found->value.data, found->value.len, err);
            if (st == BASALT_OK)
                st = add(&j, ",\"crs_type\":\"projjson\"", err);
        } else {
            st = json_or_string(&j, crs, strlen(crs), err);
        }
    }
    if (st == BASALT_OK && geography) {
        st = add(&j, ",\"edges\":\"", err);
        if (st == BASALT_OK)
            st = add(&j, algorithm_names[a->algorithm], err);
        if (st == BASALT_OK)
            st = add(&j, "\"", err);
    }
    if (st == BASALT_OK)
        st = add(&j, "}", err);
    if (st == BASALT_OK)
        st = basalt_arrow_metadata_append(md, "ARROW:extension:name", 20, "geoarrow.wkb", 12, err);
    if (st == BASALT_OK)
        st = basalt_arrow_metadata_append(md, "ARROW:extension:metadata", 24, (const char *)j.data,
                                          j.size, err);
    basalt_buffer_reset(&j);
    return st;
}
