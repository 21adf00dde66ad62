/* Time columns in units other than microseconds (time32[s], time32[ms],
 * time64[ns], one inside a struct) as the scans lay them out: time64[us]
 * fields and values, NULLs and a sliced batch kept (time_conform.c through
 * struct_flatten.c). */
#include <string.h>

#include "plan/plan_internal.h"
#include "test.h"

#define ROWS 4

static void build(struct ArrowSchema *schema, struct ArrowArray *array)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_arrow_builder *top, *s, *ms, *ns, *st, *inner;
    CHECK_OK(basalt_arrow_builder_new("+s", NULL, 0, &top, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(top, "tts", "s", ARROW_FLAG_NULLABLE, &s, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(top, "ttm", "ms", ARROW_FLAG_NULLABLE, &ms, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(top, "ttn", "ns", ARROW_FLAG_NULLABLE, &ns, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(top, "+s", "st", ARROW_FLAG_NULLABLE, &st, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(st, "ttm", "t", ARROW_FLAG_NULLABLE, &inner, &err), &err);
    static const int64_t sv[ROWS] = {0, 45296, 86400, -1};
    static const int64_t msv[ROWS] = {1, -1, 86399999, 45296789};
    static const int64_t nsv[ROWS] = {999, 45296789123456, -1, 86400000000000};
    for (int r = 0; r < ROWS; r++) {
        CHECK_OK(sv[r] >= 0 ? basalt_arrow_builder_append_int(s, sv[r], &err)
                            : basalt_arrow_builder_append_null(s, &err),
                 &err);
        CHECK_OK(msv[r] >= 0 ? basalt_arrow_builder_append_int(ms, msv[r], &err)
                             : basalt_arrow_builder_append_null(ms, &err),
                 &err);
        CHECK_OK(nsv[r] >= 0 ? basalt_arrow_builder_append_int(ns, nsv[r], &err)
                             : basalt_arrow_builder_append_null(ns, &err),
                 &err);
        CHECK_OK(msv[r] >= 0 ? basalt_arrow_builder_append_int(inner, msv[r], &err)
                             : basalt_arrow_builder_append_null(inner, &err),
                 &err);
        CHECK_OK(basalt_arrow_builder_end_element(st, &err), &err);
        CHECK_OK(basalt_arrow_builder_end_element(top, &err), &err);
    }
    CHECK_OK(basalt_arrow_builder_finish(top, schema, array, &err), &err);
    basalt_arrow_builder_free(top);
}

/* Leaf k's row r in microseconds, or -1 for NULL. */
static int64_t at(const struct ArrowArray *b, int k, int64_t r)
{
    const struct ArrowArray *c = b->children[k];
    int64_t i = c->offset + r;
    if (c->null_count != 0 && c->buffers[0] && !basalt_bitmap_get(c->buffers[0], i))
        return -1;
    return ((const int64_t *)c->buffers[1])[i];
}

TEST(time_columns_become_microseconds_at_the_scan)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct ArrowSchema schema, flat;
    struct ArrowArray batch;
    bool *nested = NULL;
    build(&schema, &batch);
    CHECK(basalt_qflat_has_structs(&schema));
    CHECK_OK(basalt_qflat_schema(&schema, &flat, &nested, &err), &err);
    CHECK(flat.n_children == 4);
    static const char *const names[4] = {"s", "ms", "ns", "st.t"};
    for (int k = 0; k < 4; k++) {
        CHECK_MSG(strcmp(flat.children[k]->format, "ttu") == 0, "leaf %d is %s", k,
                  flat.children[k]->format);
        CHECK(strcmp(flat.children[k]->name, names[k]) == 0);
        CHECK(flat.children[k]->flags & ARROW_FLAG_NULLABLE);
    }
    /* rows 1.. of the batch: the slice's offset reaches the leaves */
    batch.offset = 1;
    batch.length = ROWS - 1;
    CHECK_OK(basalt_qflat_batch(&schema, &batch, 4, &err), &err);
    CHECK(batch.length == ROWS - 1);
    static const int64_t want[4][ROWS - 1] = {
        {45296000000, 86400000000, -1},
        {-1, 86399999000, 45296789000},
        {45296789123, -1, 86400000000},
        {-1, 86399999000, 45296789000}};
    for (int k = 0; k < 4; k++)
        for (int r = 0; r < ROWS - 1; r++)
            CHECK_MSG(at(&batch, k, r) == want[k][r], "leaf %d row %d: %lld", k, r,
                      (long long)at(&batch, k, r));
    basalt_arrow_array_release(&batch);
    basalt_arrow_schema_release(&flat);
    basalt_arrow_schema_release(&schema);
    basalt_free(nested);
}
