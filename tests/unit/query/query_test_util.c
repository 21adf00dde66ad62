#include <stdio.h>
#include <string.h>

#include "query_test_util.h"

void qt_value(const struct ArrowArray *a, struct basalt_query_type t, int64_t i,
              struct basalt_query_value *v)
{
    memset(v, 0, sizeof *v);
    v->type = t;
    if (t.id == BASALT_QUERY_TYPE_NULL ||
        (a->null_count && a->buffers[0] && !basalt_bitmap_get(a->buffers[0], i + a->offset))) {
        v->is_null = true;
        return;
    }
    const void *d = a->buffers[1];
    i += a->offset;
    switch (t.id) {
    case BASALT_QUERY_TYPE_BOOL: v->v.b = basalt_bitmap_get(d, i); break;
    case BASALT_QUERY_TYPE_INT8: v->v.i = ((const int8_t *)d)[i]; break;
    case BASALT_QUERY_TYPE_INT16: v->v.i = ((const int16_t *)d)[i]; break;
    case BASALT_QUERY_TYPE_INT32: case BASALT_QUERY_TYPE_DATE: v->v.i = ((const int32_t *)d)[i]; break;
    case BASALT_QUERY_TYPE_INT64: case BASALT_QUERY_TYPE_TIMESTAMP: case BASALT_QUERY_TYPE_TIME: v->v.i = ((const int64_t *)d)[i]; break;
    case BASALT_QUERY_TYPE_UINT8: v->v.u = ((const uint8_t *)d)[i]; break;
    case BASALT_QUERY_TYPE_UINT16: v->v.u = ((const uint16_t *)d)[i]; break;
    case BASALT_QUERY_TYPE_UINT32: v->v.u = ((const uint32_t *)d)[i]; break;
    case BASALT_QUERY_TYPE_UINT64: v->v.u = ((const uint64_t *)d)[i]; break;
    case BASALT_QUERY_TYPE_FLOAT: v->v.f = ((const float *)d)[i]; break;
    case BASALT_QUERY_TYPE_DOUBLE: v->v.f = ((const double *)d)[i]; break;
    case BASALT_QUERY_TYPE_DECIMAL: memcpy(&v->v.dec, (const char *)d + 16 * i, 16); break;
    case BASALT_QUERY_TYPE_INTERVAL: memcpy(&v->v.interval, (const char *)d + 16 * i, 16); break;
    case BASALT_QUERY_TYPE_STRING: case BASALT_QUERY_TYPE_BINARY: {
        int64_t s, e;
        if (t.large) {
            s = ((const int64_t *)d)[i];
            e = ((const int64_t *)d)[i + 1];
        } else {
            s = ((const int32_t *)d)[i];
            e = ((const int32_t *)d)[i + 1];
        }
        v->v.str.ptr = (const char *)a->buffers[2] + s;
        v->v.str.len = (size_t)(e - s);
        break;
    }
    default: break;
    }
}

const char *qt_cell(const struct ArrowArray *a, struct basalt_query_type t, int64_t i, char *buf,
                    size_t cap)
{
    struct basalt_query_value v;
    qt_value(a, t, i, &v);
    if (!v.is_null && (t.id == BASALT_QUERY_TYPE_DOUBLE || t.id == BASALT_QUERY_TYPE_FLOAT))
        snprintf(buf, cap, "%.17g", v.v.f);
    else
        basalt_query_value_format(&v, buf, cap);
    return buf;
}
