/* The structs must match the specification's layout byte for byte, or a
 * foreign producer's struct would be misread. Offsets are those of the
 * specification's member order on a 64-bit (LP64) target. */
#include <stddef.h>

#include "basalt/arrow.h"
#include "test.h"

#if !defined(ARROW_C_DATA_INTERFACE) || !defined(ARROW_C_STREAM_INTERFACE)
#error "the specification's include guards must be defined by basalt/arrow.h"
#endif

TEST(arrow_layout_flags)
{
    CHECK_EQ(ARROW_FLAG_DICTIONARY_ORDERED, 1);
    CHECK_EQ(ARROW_FLAG_NULLABLE, 2);
    CHECK_EQ(ARROW_FLAG_MAP_KEYS_SORTED, 4);
}

TEST(arrow_layout_schema)
{
    CHECK_EQ(sizeof(struct ArrowSchema), 72);
    CHECK_EQ(offsetof(struct ArrowSchema, format), 0);
    CHECK_EQ(offsetof(struct ArrowSchema, name), 8);
    CHECK_EQ(offsetof(struct ArrowSchema, metadata), 16);
    CHECK_EQ(offsetof(struct ArrowSchema, flags), 24);
    CHECK_EQ(offsetof(struct ArrowSchema, n_children), 32);
    CHECK_EQ(offsetof(struct ArrowSchema, children), 40);
    CHECK_EQ(offsetof(struct ArrowSchema, dictionary), 48);
    CHECK_EQ(offsetof(struct ArrowSchema, release), 56);
    CHECK_EQ(offsetof(struct ArrowSchema, private_data), 64);
}

TEST(arrow_layout_array)
{
    CHECK_EQ(sizeof(struct ArrowArray), 80);
    CHECK_EQ(offsetof(struct ArrowArray, length), 0);
    CHECK_EQ(offsetof(struct ArrowArray, null_count), 8);
    CHECK_EQ(offsetof(struct ArrowArray, offset), 16);
    CHECK_EQ(offsetof(struct ArrowArray, n_buffers), 24);
    CHECK_EQ(offsetof(struct ArrowArray, n_children), 32);
    CHECK_EQ(offsetof(struct ArrowArray, buffers), 40);
    CHECK_EQ(offsetof(struct ArrowArray, children), 48);
    CHECK_EQ(offsetof(struct ArrowArray, dictionary), 56);
    CHECK_EQ(offsetof(struct ArrowArray, release), 64);
    CHECK_EQ(offsetof(struct ArrowArray, private_data), 72);
}

TEST(arrow_layout_stream)
{
    CHECK_EQ(sizeof(struct ArrowArrayStream), 40);
    CHECK_EQ(offsetof(struct ArrowArrayStream, get_schema), 0);
    CHECK_EQ(offsetof(struct ArrowArrayStream, get_next), 8);
    CHECK_EQ(offsetof(struct ArrowArrayStream, get_last_error), 16);
    CHECK_EQ(offsetof(struct ArrowArrayStream, release), 24);
    CHECK_EQ(offsetof(struct ArrowArrayStream, private_data), 32);
}
