/* GEOMETRY and GEOGRAPHY (parquet-format Geospatial.md): bounding boxes and
 * geospatial types of WKB values, and the mapping between the logical
 * type's parameters and GeoArrow extension metadata (geo.c). Internal to the
 * parquet module. */
#ifndef BASALT_PARQUET_GEO_H
#define BASALT_PARQUET_GEO_H

#include "basalt/core.h"
#include "basalt/parquet_format.h"

/* Collections nested deeper than this are CORRUPT. */
#define BASALT_PARQUET_WKB_MAX_DEPTH 64

/* The running bounds and types of a set of WKB values. Coordinates that are
 * NaN are skipped per dimension; a dimension without any value has no
 * bounds. Types are ISO WKB codes (1..7, plus 1000 for Z, 2000 for M, 3000
 * for ZM) of the values themselves, not of their parts. */
struct basalt_parquet_geo_bounds {
    double min[4], max[4];   /* x, y, z, m */
    bool has[4];
    uint8_t types[4][8];     /* types[dims][kind]: seen */
    bool invalid;            /* a value was not WKB: no statistics for the set */
};

void basalt_parquet_geo_bounds_init(struct basalt_parquet_geo_bounds *b);

/* Folds one WKB value into `b`: ISO WKB in either byte order (EWKB's Z, M
 * and SRID flags are read too), points, line strings, polygons, the multi
 * kinds and collections. Returns OK or CORRUPT naming what is wrong ("WKB:
 * ring 2 of 1000000 points past the end of 40 bytes"); on CORRUPT `b` is
 * left as it was. */
basalt_status basalt_parquet_geo_bounds_add(struct basalt_parquet_geo_bounds *b, const uint8_t *wkb,
                                            size_t len, struct basalt_error *err);

/* The GeospatialStatistics of `b` into `out` (its types list in `types`,
 * room for 32 entries, sorted). False when `b` is invalid; the bbox is left
 * out when x or y has no value. */
bool basalt_parquet_geo_bounds_statistics(const struct basalt_parquet_geo_bounds *b,
                                          struct basalt_parquet_geospatial_statistics *out,
                                          int32_t types[32]);

/* The Parquet GEOMETRY or GEOGRAPHY logical type of a geoarrow.wkb field
 * whose ARROW:extension:metadata is `json` (`len` bytes; empty or "{}" for
 * none), as Arrow C++ maps it: no "edges" or "planar" is GEOMETRY, another
 * edges value is GEOGRAPHY with that algorithm; a crs of OGC:CRS84 or
 * EPSG:4326 (as a string or a PROJJSON id) is left out, crs_type "srid"
 * gives "srid:<crs>", a PROJJSON object its JSON text, another string
 * itself. The crs string is allocated (basalt_malloc) and returned in
 * *crs_owned for the caller to free (NULL when there is none, also on
 * failure). INVALID_ARG (not a JSON object, an unknown edges value, a crs
 * that is neither a string nor an object); NOMEM. */
basalt_status basalt_parquet_geo_logical_type(const char *json, size_t len,
                                              struct basalt_parquet_logical_type *out,
                                              char **crs_owned, struct basalt_error *err);

#endif
