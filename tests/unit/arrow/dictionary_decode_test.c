/* basalt_arrow_dictionary_decode: each slot becomes the entry its index
 * names (an offset array, null indices, a dictionary with nulls of its own),
 * and an index outside the dictionary is CORRUPT, naming the slot. */
#include <string.h>

#include "basalt/arrow.h"
#include "test.h"

static void release_array_nothing(struct ArrowArray *a)
{
    a->release = NULL;
}

static void release_schema_nothing(struct ArrowSchema *s)
{
    s->release = NULL;
}

/* int8 indices {9, 2, 0, -, 1, 2} at offset 1 over {"x", NULL, "zz"}. */
struct fixture {
    struct ArrowSchema field, values;
    struct ArrowArray column, dict;
    const void *column_buffers[2], *dict_buffers[3];
    int8_t indices[6];
    uint8_t index_valid[1], dict_valid[1];
    int32_t offsets[4];
};

static void fixture_make(struct fixture *f, int8_t bad_index)
{
    memset(f, 0, sizeof *f);
    const int8_t idx[6] = {9, 2, 0, 0, 1, 2};
    memcpy(f->indices, idx, sizeof idx);
    f->indices[5] = bad_index;
    f->index_valid[0] = 0x37; /* slot 3 (physical) null: 0b110111 */
    f->dict_valid[0] = 0x05;  /* entry 1 null */
    const int32_t off[4] = {0, 1, 1, 3};
    memcpy(f->offsets, off, sizeof off);
    f->values = (struct ArrowSchema){.format = "u", .name = "", .release = release_schema_nothing};
    f->field = (struct ArrowSchema){.format = "c", .name = "d", .dictionary = &f->values,
                                    .flags = ARROW_FLAG_NULLABLE,
                                    .release = release_schema_nothing};
    f->dict_buffers[0] = f->dict_valid;
    f->dict_buffers[1] = f->offsets;
    f->dict_buffers[2] = "xzz";
    f->dict = (struct ArrowArray){.length = 3, .null_count = 1, .n_buffers = 3,
                                  .buffers = f->dict_buffers, .release = release_array_nothing};
    f->column_buffers[0] = f->index_valid;
    f->column_buffers[1] = f->indices;
    f->column = (struct ArrowArray){.length = 5, .offset = 1, .null_count = 1, .n_buffers = 2,
                                    .buffers = f->column_buffers, .dictionary = &f->dict,
                                    .release = release_array_nothing};
}

TEST(dictionary_decode_gathers_each_slots_entry)
{
    struct fixture f;
    fixture_make(&f, 2);
    struct ArrowArray out;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_dictionary_decode(&f.field, &f.column, &out, &err), &err);
    /* Slots: idx 2 "zz", idx 0 "x", null index, idx 1 (a null entry), idx 2 "zz". */
    CHECK_EQ(out.length, 5);
    CHECK_EQ(out.null_count, 2);
    const uint8_t *valid = out.buffers[0];
    const int32_t *o = out.buffers[1];
    const char *data = out.buffers[2];
    const char *want[5] = {"zz", "x", NULL, NULL, "zz"};
    for (int i = 0; i < 5; i++) {
        bool is_valid = basalt_bitmap_get(valid, out.offset + i);
        CHECK_MSG(is_valid == (want[i] != NULL), "slot %d validity %d", i, (int)is_valid);
        if (want[i]) {
            int len = o[out.offset + i + 1] - o[out.offset + i];
            CHECK_MSG(len == (int)strlen(want[i]) &&
                          memcmp(data + o[out.offset + i], want[i], (size_t)len) == 0,
                      "slot %d: '%.*s', want '%s'", i, len, data + o[out.offset + i], want[i]);
        }
    }
    basalt_arrow_array_release(&out);
}

TEST(dictionary_decode_refuses_an_index_outside_the_dictionary)
{
    struct fixture f;
    fixture_make(&f, 3);
    struct ArrowArray out;
    struct basalt_error err;
    CHECK_STATUS(basalt_arrow_dictionary_decode(&f.field, &f.column, &out, &err), BASALT_CORRUPT,
                 &err);
    CHECK(strstr(err.message, "index 3 at slot 4 outside the dictionary's 3 entries") != NULL);
    CHECK(out.release == NULL);
    /* A plain (not dictionary-encoded) array is refused too. */
    f.field.dictionary = NULL;
    CHECK_STATUS(basalt_arrow_dictionary_decode(&f.field, &f.column, &out, &err),
                 BASALT_INVALID_ARG, &err);
}
