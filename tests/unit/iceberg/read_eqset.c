/* Equality delete sets (null equals null, as the spec's equality deletes
 * say; a value never equals null) and the row filter that compacts batches. */
#include <string.h>

#include "scan_internal.h"
#include "test.h"

static basalt_status set_id(struct basalt_arrow_builder *b, int32_t id)
{
    char text[16];
    int n = snprintf(text, sizeof text, "%d", (int)id);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st = basalt_arrow_metadata_append(&buf, "PARQUET:field_id", 16, text, (size_t)n, NULL);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_set_metadata(b, (const char *)buf.data, NULL);
    basalt_buffer_reset(&buf);
    return st;
}

/* struct<1 a: int, 2 b: string> from rows; a INT32_MIN / b NULL = null */
static basalt_status batch(const int32_t *a, const char *const *b, int n, struct ArrowSchema *schema,
                           struct ArrowArray *out)
{
    struct basalt_arrow_builder *root, *ca, *cb;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, NULL);
    if (st != BASALT_OK)
        return st;
    st = basalt_arrow_builder_add_child(root, "i", "a", ARROW_FLAG_NULLABLE, &ca, NULL);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(root, "u", "b", ARROW_FLAG_NULLABLE, &cb, NULL);
    if (st == BASALT_OK)
        st = set_id(ca, 1);
    if (st == BASALT_OK)
        st = set_id(cb, 2);
    for (int i = 0; i < n && st == BASALT_OK; i++) {
        st = a[i] == INT32_MIN ? basalt_arrow_builder_append_null(ca, NULL)
                               : basalt_arrow_builder_append_int(ca, a[i], NULL);
        if (st == BASALT_OK)
            st = b[i] == NULL ? basalt_arrow_builder_append_null(cb, NULL)
                              : basalt_arrow_builder_append_string(cb, b[i], NULL);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, NULL);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(root, schema, out, NULL);
    basalt_arrow_builder_free(root);
    return st;
}

TEST(read_eqset_null_semantics)
{
    const int32_t da[] = {1, INT32_MIN, 2, 1};
    const char *const db[] = {NULL, NULL, "x", NULL};
    const int32_t ra[] = {1, 1, INT32_MIN, 2, 2, INT32_MIN, 3};
    const char *const rb[] = {NULL, "", NULL, "x", NULL, "x", "x"};
    struct ArrowSchema ds, rs;
    struct ArrowArray del, rows;
    struct basalt_error err;
    CHECK_OK(batch(da, db, 4, &ds, &del), NULL);
    CHECK_OK(batch(ra, rb, 7, &rs, &rows), NULL);
    int32_t ids[] = {1, 2};
    struct basalt_iceberg_eqset *set;
    CHECK_OK(basalt_iceberg_eqset_new(ids, 2, &set, &err), &err);
    CHECK_OK(basalt_iceberg_eqset_add_batch(set, &ds, &del, &err), &err);
    CHECK_EQ(basalt_iceberg_eqset_size(set), 3); /* (1, null) twice */
    uint8_t sel = 0x7f;
    CHECK_OK(basalt_iceberg_eqset_apply(set, &rs, &rows, &sel, &err), &err);
    /* deleted: (1,null) (null,null) (2,'x'); kept: (1,'') (2,null) (null,'x') (3,'x') */
    CHECK_EQ(sel, 0x02 | 0x10 | 0x20 | 0x40);
    /* only the selected rows are looked at */
    sel = 0x01;
    CHECK_OK(basalt_iceberg_eqset_apply(set, &rs, &rows, &sel, &err), &err);
    CHECK_EQ(sel, 0);

    /* a set on column 1 alone */
    int32_t one[] = {1};
    struct basalt_iceberg_eqset *s1;
    CHECK_OK(basalt_iceberg_eqset_new(one, 1, &s1, &err), &err);
    CHECK_OK(basalt_iceberg_eqset_add_batch(s1, &ds, &del, &err), &err);
    CHECK_EQ(basalt_iceberg_eqset_size(s1), 3);
    sel = 0x7f;
    CHECK_OK(basalt_iceberg_eqset_apply(s1, &rs, &rows, &sel, &err), &err);
    CHECK_EQ(sel, 0x40); /* only a = 3 survives */
    /* a column the batch lacks */
    int32_t nine[] = {9};
    struct basalt_iceberg_eqset *s9;
    CHECK_OK(basalt_iceberg_eqset_new(nine, 1, &s9, &err), &err);
    CHECK_STATUS(basalt_iceberg_eqset_add_batch(s9, &ds, &del, &err), BASALT_NOT_FOUND, &err);
    basalt_iceberg_eqset_free(s9);
    basalt_iceberg_eqset_free(s1);
    basalt_iceberg_eqset_free(set);
    basalt_arrow_array_release(&del);
    basalt_arrow_array_release(&rows);
    basalt_arrow_schema_release(&ds);
    basalt_arrow_schema_release(&rs);
}

TEST(read_eqset_grows)
{
    /* many distinct keys: the table grows, every key stays findable */
    enum { N = 5000 };
    static int32_t a[N];
    static const char *b[N];
    for (int i = 0; i < N; i++) {
        a[i] = i * 7;
        b[i] = i % 3 == 0 ? NULL : "k";
    }
    struct ArrowSchema s;
    struct ArrowArray arr;
    struct basalt_error err;
    CHECK_OK(batch(a, b, N, &s, &arr), NULL);
    int32_t ids[] = {2, 1};
    struct basalt_iceberg_eqset *set;
    CHECK_OK(basalt_iceberg_eqset_new(ids, 2, &set, &err), &err);
    CHECK_OK(basalt_iceberg_eqset_add_batch(set, &s, &arr, &err), &err);
    CHECK_EQ(basalt_iceberg_eqset_size(set), N);
    static uint8_t sel[(N + 7) / 8];
    memset(sel, 0xff, sizeof sel);
    CHECK_OK(basalt_iceberg_eqset_apply(set, &s, &arr, sel, &err), &err);
    CHECK_EQ(basalt_bitmap_count(sel, 0, N), 0);
    basalt_iceberg_eqset_free(set);
    basalt_arrow_array_release(&arr);
    basalt_arrow_schema_release(&s);
}

TEST(read_filter_nested)
{
    /* struct<a: int, l: list<string>> rows: (1,[x,y]) (null,null) (3,[]) (4,[z]) */
    struct basalt_error err;
    struct basalt_arrow_builder *root, *ca, *cl, *ce;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "i", "a", ARROW_FLAG_NULLABLE, &ca, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "+l", "l", ARROW_FLAG_NULLABLE, &cl, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(cl, "u", "element", ARROW_FLAG_NULLABLE, &ce, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(ca, 1, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(ce, "x", &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(ce, "y", &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(cl, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(ca, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(cl, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(ca, 3, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(cl, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(ca, 4, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(ce, "z", &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(cl, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    struct ArrowSchema s;
    struct ArrowArray a, out;
    CHECK_OK(basalt_arrow_builder_finish(root, &s, &a, &err), &err);
    basalt_arrow_builder_free(root);

    uint8_t sel = 0x0b; /* rows 0, 1, 3 */
    CHECK_OK(basalt_iceberg_filter_array(&s, &a, &sel, 3, &out, &err), &err);
    CHECK_OK(basalt_arrow_array_validate(&s, &out, BASALT_ARROW_VALIDATE_FULL, &err), &err);
    CHECK_EQ(out.length, 3);
    const struct ArrowArray *oa = out.children[0], *ol = out.children[1];
    CHECK_EQ(((const int32_t *)oa->buffers[1])[0], 1);
    CHECK_EQ(((const int32_t *)oa->buffers[1])[2], 4);
    CHECK_EQ(oa->null_count, 1);
    CHECK_EQ(ol->null_count, 1);
    const int32_t *lo = ol->buffers[1];
    CHECK_EQ(lo[0], 0);
    CHECK_EQ(lo[1], 2);
    CHECK_EQ(lo[2], 2);
    CHECK_EQ(lo[3], 3);
    CHECK_EQ(ol->children[0]->length, 3);
    CHECK_MEM((const char *)ol->children[0]->buffers[2], "xyz", 3);
    basalt_arrow_array_release(&out);

    /* a slice (offset 1) keeps the right rows */
    a.offset = 1;
    a.length = 3;
    sel = 0x06; /* rows 2 and 3 of the original */
    CHECK_OK(basalt_iceberg_filter_array(&s, &a, &sel, 2, &out, &err), &err);
    CHECK_EQ(((const int32_t *)out.children[0]->buffers[1])[0], 3);
    CHECK_EQ(((const int32_t *)out.children[0]->buffers[1])[1], 4);
    CHECK_EQ(out.children[1]->children[0]->length, 1);
    CHECK_OK(basalt_arrow_array_validate(&s, &out, BASALT_ARROW_VALIDATE_FULL, &err), &err);
    basalt_arrow_array_release(&out);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}
