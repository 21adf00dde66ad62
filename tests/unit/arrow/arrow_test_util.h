/* Helpers shared by the arrow tests. */
#ifndef BASALT_ARROW_TEST_UTIL_H
#define BASALT_ARROW_TEST_UTIL_H

#include <stdint.h>

#include "basalt/arrow.h"

/* Buffers of arrays the tests own are writable; the struct says const. */
static inline void *at_mut(const void *p) { return (void *)(uintptr_t)p; }

static inline const uint8_t *at_buf(const struct ArrowArray *a, int i)
{
    return (const uint8_t *)a->buffers[i];
}

/* Finishes `b` into (schema, array) and validates the pair at FULL level. */
static inline basalt_status at_finish_valid(struct basalt_arrow_builder *b,
                                            struct ArrowSchema *schema, struct ArrowArray *array,
                                            struct basalt_error *err)
{
    basalt_status st = basalt_arrow_builder_finish(b, schema, array, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_arrow_array_validate(schema, array, BASALT_ARROW_VALIDATE_FULL, err);
    if (st != BASALT_OK) {
        schema->release(schema);
        array->release(array);
    }
    return st;
}

static inline void at_release(struct ArrowSchema *schema, struct ArrowArray *array)
{
    basalt_arrow_schema_release(schema);
    basalt_arrow_array_release(array);
}

#endif
