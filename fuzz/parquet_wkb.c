/* Seeds (fuzz/corpus/parquet_wkb/): WKB values of apache/parquet-testing's
 * data/geospatial/geospatial.parquet (Apache-2.0). */
/* Fuzz target for the writer's WKB walk (the GeospatialStatistics of
 * GEOMETRY columns): any input gives OK or CORRUPT, leaves the bounds as
 * they were when it is CORRUPT, and never puts NaN in a box. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/parquet/parquet_geo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct basalt_parquet_geo_bounds b, before;
    basalt_parquet_geo_bounds_init(&b);
    /* POINT (0 0) first, so there is something to keep */
    static const uint8_t origin[21] = {1, 1, 0, 0, 0};
    if (basalt_parquet_geo_bounds_add(&b, origin, sizeof origin, NULL) != BASALT_OK)
        abort();
    before = b;
    basalt_status st = basalt_parquet_geo_bounds_add(&b, data, size, NULL);
    if (st != BASALT_OK && st != BASALT_CORRUPT)
        abort();
    if (st == BASALT_CORRUPT && memcmp(&b, &before, sizeof b) != 0)
        abort();
    struct basalt_parquet_geospatial_statistics s;
    int32_t types[32];
    if (!basalt_parquet_geo_bounds_statistics(&b, &s, types) || !s.has_bbox)
        abort();
    if (isnan(s.bbox.xmin) || isnan(s.bbox.xmax) || isnan(s.bbox.ymin) || isnan(s.bbox.ymax) ||
        s.bbox.xmin > s.bbox.xmax || s.bbox.ymin > s.bbox.ymax || s.num_geospatial_types > 28)
        abort();
    return 0;
}
