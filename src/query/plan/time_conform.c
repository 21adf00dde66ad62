/* Time columns of a file in the engine's one TIME form: time32[s], time32[ms]
 * and time64[ns] (Parquet TIME(MILLIS), TIME(NANOS), IPC files) become
 * time64[us] at the scan, as DuckDB reads them into its TIME (nanoseconds
 * truncated). The scans do this in the pass that lays struct columns out as
 * their leaves (struct_flatten.c), so a file with such a column takes that
 * path even without structs. */
#include <string.h>

#include "plan/plan_internal.h"

bool basalt_qtime_needs_conform(const char *format)
{
    return strcmp(format, "tts") == 0 || strcmp(format, "ttm") == 0 || strcmp(format, "ttn") == 0;
}

basalt_status basalt_qtime_conform_schema(const struct ArrowSchema *f, const char *name,
                                          struct ArrowSchema *dst, struct basalt_error *err)
{
    return basalt_arrow_schema_init(dst, "ttu", name, f->flags, 0, err);
}

basalt_status basalt_qtime_conform_array(const char *format, struct ArrowArray *leaf,
                                         struct basalt_error *err)
{
    int64_t n = leaf->length, off = leaf->offset;
    struct ArrowArray out;
    basalt_status st = basalt_arrow_array_init(&out, 2, 0, err);
    void *values = NULL, *bits = NULL;
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(&out, 1, (size_t)(n > 0 ? n : 1) * 8, &values, err);
    const uint8_t *valid = leaf->null_count != 0 && leaf->n_buffers > 0 ? leaf->buffers[0] : NULL;
    if (st == BASALT_OK && valid)
        st = basalt_arrow_array_allocate_buffer(&out, 0, (size_t)basalt_bitmap_bytes(n > 0 ? n : 1),
                                                &bits, err);
    if (st != BASALT_OK) {
        if (out.release)
            basalt_arrow_array_release(&out);
        basalt_arrow_array_release(leaf);
        return st;
    }
    int64_t *o = values;
    if (format[1] == 't' && format[2] == 'n') {
        const int64_t *a = (const int64_t *)leaf->buffers[1] + off;
        for (int64_t i = 0; i < n; i++)
            o[i] = basalt_qfloordiv(a[i], 1000);
    } else {
        const int32_t *a = (const int32_t *)leaf->buffers[1] + off;
        int64_t f = format[2] == 's' ? 1000000 : 1000;
        for (int64_t i = 0; i < n; i++)
            o[i] = (int64_t)a[i] * f;
    }
    int64_t nulls = 0;
    if (valid)
        for (int64_t i = 0; i < n; i++) {
            bool v = basalt_bitmap_get(valid, off + i);
            basalt_bitmap_set(bits, i, v);
            nulls += !v;
        }
    out.length = n;
    out.null_count = nulls;
    basalt_arrow_array_release(leaf);
    basalt_arrow_array_move(&out, leaf);
    return BASALT_OK;
}
