/* Struct columns flattened to their leaves (src/query/plan/struct_flatten.c)
 * on batches built here, where a child holds a value under a NULL struct:
 * Arrow allows it (the Parquet reader nulls such children itself, so the
 * SQL differential, tests/sql/nested_differential.mjs, cannot show that the
 * struct's NULLs reach its leaves). */
#include <string.h>

#include "plan/plan_internal.h"
#include "test.h"

#define ROWS 5

/* id INT64, s STRUCT(a INT64, b STRUCT(c VARCHAR)) over ROWS rows:
 *   row  s     a     b     c
 *   0    ok    1     ok    "x"
 *   1    NULL  2     ok    "y"    (a, b, c hold values under the NULL s)
 *   2    ok    NULL  NULL  "z"    (c holds a value under the NULL b)
 *   3    ok    4     ok    NULL
 *   4    ok    5     ok    "w" */
static void set_nulls(struct ArrowArray *x, const bool *ok)
{
    struct basalt_error err;
    basalt_error_init(&err);
    void *bits;
    CHECK_OK(basalt_arrow_array_allocate_buffer(x, 0, 1, &bits, &err), &err);
    x->null_count = 0;
    for (int r = 0; r < ROWS; r++) {
        basalt_bitmap_set(bits, r, ok[r]);
        x->null_count += !ok[r];
    }
}

static void build(struct ArrowSchema *schema, struct ArrowArray *array)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_arrow_builder *top, *id, *s, *a, *b, *c;
    CHECK_OK(basalt_arrow_builder_new("+s", NULL, 0, &top, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(top, "l", "id", 0, &id, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(top, "+s", "s", ARROW_FLAG_NULLABLE, &s, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(s, "l", "a", ARROW_FLAG_NULLABLE, &a, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(s, "+s", "b", ARROW_FLAG_NULLABLE, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "u", "c", ARROW_FLAG_NULLABLE, &c, &err), &err);
    const char *cs[ROWS] = {"x", "y", "z", NULL, "w"};
    const bool s_ok[ROWS] = {true, false, true, true, true}, a_ok[ROWS] = {true, true, false, true, true},
               b_ok[ROWS] = {true, true, false, true, true};
    for (int r = 0; r < ROWS; r++) {
        CHECK_OK(basalt_arrow_builder_append_int(id, r, &err), &err);
        CHECK_OK(a_ok[r] ? basalt_arrow_builder_append_int(a, r + 1, &err)
                         : basalt_arrow_builder_append_null(a, &err),
                 &err);
        CHECK_OK(cs[r] ? basalt_arrow_builder_append_string(c, cs[r], &err)
                       : basalt_arrow_builder_append_null(c, &err),
                 &err);
        CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
        CHECK_OK(basalt_arrow_builder_end_element(s, &err), &err);
        CHECK_OK(basalt_arrow_builder_end_element(top, &err), &err);
    }
    CHECK_OK(basalt_arrow_builder_finish(top, schema, array, &err), &err);
    basalt_arrow_builder_free(top);
    /* The structs' NULLs set by hand: a builder's NULL struct nulls its
     * children too. */
    struct ArrowArray *sa = array->children[1], *ba = sa->children[1];
    set_nulls(sa, s_ok);
    set_nulls(ba, b_ok);
}

static bool valid(const struct ArrowArray *x, int64_t i)
{
    const uint8_t *v = x->buffers[0];
    return x->null_count == 0 || v == NULL || basalt_bitmap_get(v, x->offset + i);
}

TEST(struct_leaves_are_null_under_a_null_struct)
{
    struct basalt_error err;
    basalt_error_init(&err);
    struct ArrowSchema schema, flat;
    struct ArrowArray batch;
    build(&schema, &batch);
    bool *nested;
    CHECK_OK(basalt_qflat_schema(&schema, &flat, &nested, &err), &err);
    CHECK(flat.n_children == 3);
    CHECK(strcmp(flat.children[0]->name, "id") == 0 && !nested[0]);
    CHECK(strcmp(flat.children[1]->name, "s.a") == 0 && nested[1]);
    CHECK(strcmp(flat.children[2]->name, "s.b.c") == 0 && nested[2]);
    CHECK((flat.children[2]->flags & ARROW_FLAG_NULLABLE) != 0);
    /* Rows 1..4 only: the batch's offset reaches the leaves too. */
    batch.offset = 1;
    batch.length = ROWS - 1;
    CHECK_OK(basalt_qflat_batch(&schema, &batch, 3, &err), &err);
    CHECK(batch.n_children == 3 && batch.length == ROWS - 1);
    const struct ArrowArray *ids = batch.children[0], *a = batch.children[1], *c = batch.children[2];
    const bool a_want[] = {false, false, true, true}, c_want[] = {false, false, false, true};
    const int64_t a_values[] = {0, 0, 4, 5};
    for (int i = 0; i < ROWS - 1; i++) {
        CHECK(((const int64_t *)ids->buffers[1])[ids->offset + i] == i + 1);
        CHECK_MSG(valid(a, i) == a_want[i], "s.a row %d", i + 1);
        CHECK_MSG(valid(c, i) == c_want[i], "s.b.c row %d", i + 1);
        if (a_want[i])
            CHECK(((const int64_t *)a->buffers[1])[a->offset + i] == a_values[i]);
    }
    const int32_t *co = c->buffers[1];
    CHECK(memcmp((const char *)c->buffers[2] + co[c->offset + 3], "w", 1) == 0);
    CHECK(a->null_count == 2 && c->null_count == 3);
    basalt_arrow_array_release(&batch);
    basalt_arrow_schema_release(&schema);
    basalt_arrow_schema_release(&flat);
    basalt_free(nested);
}
