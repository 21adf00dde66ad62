/* Builders of nested arrays: lists, fixed-size lists, structs, maps and
 * dictionaries, with nulls at every level. */
#include "arrow_test_util.h"
#include "test.h"

TEST(arrow_builder_list_int32)
{
    struct basalt_arrow_builder *b, *item;
    struct ArrowSchema s;
    struct ArrowArray a;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("+l", "xs", ARROW_FLAG_NULLABLE, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "i", "item", ARROW_FLAG_NULLABLE, &item, &err),
             &err);
    CHECK(basalt_arrow_builder_child(b, 0) == item);
    CHECK(basalt_arrow_builder_child(b, 1) == NULL);
    /* [[1, 2], null, [], [3]] */
    CHECK_OK(basalt_arrow_builder_append_int(item, 1, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(item, 2, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(item, 3, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    CHECK_STATUS(basalt_arrow_builder_add_child(b, "i", "again", 0, &item, &err),
                 BASALT_INVALID_ARG, &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    CHECK_STR(s.format, "+l");
    CHECK_EQ(s.n_children, 1);
    CHECK_STR(s.children[0]->format, "i");
    CHECK_STR(s.children[0]->name, "item");
    CHECK_EQ(a.n_buffers, 2);
    CHECK_EQ(a.n_children, 1);
    CHECK_EQ(a.length, 4);
    CHECK_EQ(a.null_count, 1);
    static const int32_t offsets[] = {0, 2, 2, 2, 3};
    CHECK_MEM(at_buf(&a, 1), offsets, sizeof offsets);
    CHECK_EQ(at_buf(&a, 0)[0], 0x0d);
    static const int32_t values[] = {1, 2, 3};
    CHECK_EQ(a.children[0]->length, 3);
    CHECK_MEM(at_buf(a.children[0], 1), values, sizeof values);
    CHECK(a.children[0]->buffers[0] == NULL);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

TEST(arrow_builder_large_list_of_strings)
{
    struct basalt_arrow_builder *b, *item;
    struct ArrowSchema s;
    struct ArrowArray a;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("+L", "tags", 0, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "u", "item", 0, &item, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(item, "a", &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(item, "b", &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(item, "cd", &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    static const int64_t offsets[] = {0, 1, 3};
    CHECK_MEM(at_buf(&a, 1), offsets, sizeof offsets);
    static const int32_t child_offsets[] = {0, 1, 2, 4};
    CHECK_MEM(at_buf(a.children[0], 1), child_offsets, sizeof child_offsets);
    CHECK_MEM(at_buf(a.children[0], 2), "abcd", 4);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

TEST(arrow_builder_fixed_size_list)
{
    struct basalt_arrow_builder *b, *item;
    struct ArrowSchema s;
    struct ArrowArray a;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("+w:2", "pt", ARROW_FLAG_NULLABLE, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "s", "item", ARROW_FLAG_NULLABLE, &item, &err),
             &err);
    /* [[1, 2], null, [5, 6]] */
    CHECK_OK(basalt_arrow_builder_append_int(item, 1, &err), &err);
    CHECK_STATUS(basalt_arrow_builder_end_element(b, &err), BASALT_INVALID_ARG, &err);
    CHECK_OK(basalt_arrow_builder_append_int(item, 2, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(item, 5, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(item, 6, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    CHECK_STR(s.format, "+w:2");
    CHECK_EQ(a.n_buffers, 1);
    CHECK_EQ(a.length, 3);
    CHECK_EQ(at_buf(&a, 0)[0], 0x05);
    const struct ArrowArray *c = a.children[0];
    CHECK_EQ(c->length, 6);
    CHECK_EQ(c->null_count, 2); /* the null list's slots are nulls in a nullable child */
    static const int16_t values[] = {1, 2, 0, 0, 5, 6};
    CHECK_MEM(at_buf(c, 1), values, sizeof values);
    CHECK_EQ(at_buf(c, 0)[0], 0x33);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

/* Nulls of a zero-size list: nothing to write in the child, whose buffers
 * do not exist yet (nothing may touch them, not even a zero-length fill). */
TEST(arrow_builder_fixed_size_list_of_zero)
{
    struct basalt_arrow_builder *b, *item;
    struct ArrowSchema s;
    struct ArrowArray a;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("+w:0", "z", ARROW_FLAG_NULLABLE, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "i", "item", ARROW_FLAG_NULLABLE, &item, &err),
             &err);
    /* [null, [], null] */
    CHECK_OK(basalt_arrow_builder_append_null(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(b, &err), &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    CHECK_STR(s.format, "+w:0");
    CHECK_EQ(a.length, 3);
    CHECK_EQ(a.null_count, 2);
    CHECK_EQ(at_buf(&a, 0)[0] & 0x07, 0x02);
    CHECK_EQ(a.children[0]->length, 0);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

TEST(arrow_builder_struct)
{
    struct basalt_arrow_builder *b, *fa, *fb;
    struct ArrowSchema s;
    struct ArrowArray a;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("+s", "row", ARROW_FLAG_NULLABLE, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "i", "a", ARROW_FLAG_NULLABLE, &fa, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "u", "b", 0, &fb, &err), &err);
    /* {1, "x"}, null, {3, "zz"} */
    CHECK_OK(basalt_arrow_builder_append_int(fa, 1, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(fb, "x", &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(fa, 3, &err), &err);
    CHECK_STATUS(basalt_arrow_builder_end_element(b, &err), BASALT_INVALID_ARG, &err);
    CHECK_OK(basalt_arrow_builder_append_string(fb, "zz", &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    CHECK_STR(s.format, "+s");
    CHECK_EQ(s.n_children, 2);
    CHECK_STR(s.children[0]->name, "a");
    CHECK_EQ(s.children[0]->flags, ARROW_FLAG_NULLABLE);
    CHECK_STR(s.children[1]->name, "b");
    CHECK_EQ(s.children[1]->flags, 0);
    CHECK_EQ(a.n_buffers, 1);
    CHECK_EQ(a.length, 3);
    CHECK_EQ(a.null_count, 1);
    CHECK_EQ(at_buf(&a, 0)[0], 0x05);
    const struct ArrowArray *ca = a.children[0], *cb = a.children[1];
    static const int32_t avals[] = {1, 0, 3};
    CHECK_MEM(at_buf(ca, 1), avals, sizeof avals);
    CHECK_EQ(ca->null_count, 1);
    CHECK_EQ(at_buf(ca, 0)[0], 0x05);
    /* The non-nullable string child got an empty string, not a null. */
    static const int32_t boffsets[] = {0, 1, 1, 3};
    CHECK_MEM(at_buf(cb, 1), boffsets, sizeof boffsets);
    CHECK_EQ(cb->null_count, 0);
    CHECK(cb->buffers[0] == NULL);
    at_release(&s, &a);

    /* A struct whose children got out of step refuses to finish. */
    CHECK_OK(basalt_arrow_builder_append_int(fa, 9, &err), &err);
    CHECK_STATUS(basalt_arrow_builder_finish(b, &s, &a, &err), BASALT_INVALID_ARG, &err);
    CHECK(s.release == NULL && a.release == NULL);
    CHECK_STATUS(basalt_arrow_builder_finish(fa, &s, &a, &err), BASALT_INVALID_ARG, &err);
    basalt_arrow_builder_free(fa); /* a child: no-op, the parent owns it */
    basalt_arrow_builder_free(b);
}

TEST(arrow_builder_map)
{
    struct basalt_arrow_builder *b, *key, *value;
    struct ArrowSchema s;
    struct ArrowArray a;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("+m", "attrs", ARROW_FLAG_NULLABLE, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "u", "key", ARROW_FLAG_NULLABLE, &key, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "l", "value", ARROW_FLAG_NULLABLE, &value, &err),
             &err);
    struct basalt_arrow_builder *extra;
    CHECK_STATUS(basalt_arrow_builder_add_child(b, "l", "x", 0, &extra, &err), BASALT_INVALID_ARG,
                 &err);
    /* [{"a": 1, "b": null}, null, {}, {"c": 3}] */
    CHECK_OK(basalt_arrow_builder_append_string(key, "a", &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(value, 1, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(key, "b", &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(value, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(key, "c", &err), &err);
    CHECK_STATUS(basalt_arrow_builder_end_element(b, &err), BASALT_INVALID_ARG, &err);
    CHECK_OK(basalt_arrow_builder_append_int(value, 3, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    CHECK_STR(s.format, "+m");
    const struct ArrowSchema *entries = s.children[0];
    CHECK_STR(entries->format, "+s");
    CHECK_STR(entries->name, "entries");
    CHECK_EQ(entries->flags, 0);
    CHECK_STR(entries->children[0]->name, "key");
    CHECK_EQ(entries->children[0]->flags, 0); /* keys are never nullable */
    CHECK_EQ(entries->children[1]->flags, ARROW_FLAG_NULLABLE);
    CHECK_EQ(a.length, 4);
    CHECK_EQ(a.null_count, 1);
    static const int32_t offsets[] = {0, 2, 2, 2, 3};
    CHECK_MEM(at_buf(&a, 1), offsets, sizeof offsets);
    CHECK_EQ(at_buf(&a, 0)[0], 0x0d);
    const struct ArrowArray *e = a.children[0];
    CHECK_EQ(e->length, 3);
    CHECK_EQ(e->null_count, 0);
    CHECK_MEM(at_buf(e->children[0], 2), "abc", 3);
    static const int64_t values[] = {1, 0, 3};
    CHECK_MEM(at_buf(e->children[1], 1), values, sizeof values);
    CHECK_EQ(at_buf(e->children[1], 0)[0], 0x05);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

TEST(arrow_builder_dictionary)
{
    struct basalt_arrow_builder *b, *dict;
    struct ArrowSchema s;
    struct ArrowArray a;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("c", "color", ARROW_FLAG_NULLABLE, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_dictionary(b, "u", &dict, &err), &err);
    CHECK(basalt_arrow_builder_dictionary(b) == dict);
    CHECK_STATUS(basalt_arrow_builder_add_dictionary(b, "u", &dict, &err), BASALT_INVALID_ARG,
                 &err);
    dict = basalt_arrow_builder_dictionary(b);
    CHECK_OK(basalt_arrow_builder_append_string(dict, "red", &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(dict, "green", &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(b, 0, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(b, 1, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(b, 1, &err), &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    CHECK_STR(s.format, "c");
    CHECK(s.dictionary != NULL);
    CHECK_STR(s.dictionary->format, "u");
    CHECK_EQ(a.length, 4);
    CHECK_EQ(a.null_count, 1);
    static const uint8_t indices[] = {0, 1, 0, 1};
    CHECK_MEM(at_buf(&a, 1), indices, sizeof indices);
    CHECK_EQ(at_buf(&a, 0)[0], 0x0b);
    CHECK(a.dictionary != NULL);
    CHECK_EQ(a.dictionary->length, 2);
    static const int32_t doff[] = {0, 3, 8};
    CHECK_MEM(at_buf(a.dictionary, 1), doff, sizeof doff);
    CHECK_MEM(at_buf(a.dictionary, 2), "redgreen", 8);
    at_release(&s, &a);

    struct basalt_arrow_builder *f;
    CHECK_OK(basalt_arrow_builder_new("g", NULL, 0, &f, &err), &err);
    CHECK_STATUS(basalt_arrow_builder_add_dictionary(f, "u", &dict, &err), BASALT_INVALID_ARG,
                 &err);
    basalt_arrow_builder_free(f);
    basalt_arrow_builder_free(b);
}

/* list<struct<x: int32, tags: list<utf8>>>, nulls at each level. */
TEST(arrow_builder_deep_nesting)
{
    struct basalt_arrow_builder *b, *st, *x, *tags, *tag;
    struct ArrowSchema s;
    struct ArrowArray a;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("+l", "rows", ARROW_FLAG_NULLABLE, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "+s", "item", ARROW_FLAG_NULLABLE, &st, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(st, "i", "x", 0, &x, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(st, "+l", "tags", ARROW_FLAG_NULLABLE, &tags, &err),
             &err);
    CHECK_OK(basalt_arrow_builder_add_child(tags, "u", "item", 0, &tag, &err), &err);
    /* [[{x: 1, tags: ["p", "q"]}, null], null, [{x: 2, tags: null}]] */
    CHECK_OK(basalt_arrow_builder_append_int(x, 1, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(tag, "p", &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(tag, "q", &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(tags, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(st, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(st, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(x, 2, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(tags, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(st, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    static const int32_t outer[] = {0, 2, 2, 3};
    CHECK_MEM(at_buf(&a, 1), outer, sizeof outer);
    const struct ArrowArray *sa = a.children[0];
    CHECK_EQ(sa->length, 3);
    CHECK_EQ(at_buf(sa, 0)[0], 0x05);
    static const int32_t xs[] = {1, 0, 2}; /* x is not nullable: zero under the null struct */
    CHECK_MEM(at_buf(sa->children[0], 1), xs, sizeof xs);
    CHECK(sa->children[0]->buffers[0] == NULL);
    const struct ArrowArray *ta = sa->children[1];
    static const int32_t toff[] = {0, 2, 2, 2};
    CHECK_MEM(at_buf(ta, 1), toff, sizeof toff);
    CHECK_EQ(ta->null_count, 2);
    CHECK_EQ(at_buf(ta, 0)[0], 0x01);
    CHECK_MEM(at_buf(ta->children[0], 2), "pq", 2);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

/* A dense union of null, int32 and string with codes 0, 5, 7; nulls go to
 * the null child, also as fillers of a null parent struct. */
TEST(arrow_builder_dense_union)
{
    struct basalt_arrow_builder *st, *u, *n, *i, *s;
    struct ArrowSchema sc;
    struct ArrowArray a;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &st, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(st, "+ud:0,5,7", "u", ARROW_FLAG_NULLABLE, &u, &err),
             &err);
    CHECK_OK(basalt_arrow_builder_add_child(u, "n", "null", ARROW_FLAG_NULLABLE, &n, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(u, "i", "int", 0, &i, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(u, "u", "string", 0, &s, &err), &err);
    CHECK_STATUS(basalt_arrow_builder_add_child(u, "i", "more", 0, &i, &err), BASALT_INVALID_ARG,
                 &err);
    i = basalt_arrow_builder_child(u, 1);
    /* rows: 3, "ab", null, (struct null), 4, "c" */
    CHECK_OK(basalt_arrow_builder_append_union(u, 1, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(i, 3, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(st, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_union(u, 2, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(s, "ab", &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(st, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(u, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(st, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(st, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_union(u, 1, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(i, 4, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(st, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_union(u, 2, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(s, "c", &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(st, &err), &err);
    CHECK_STATUS(basalt_arrow_builder_append_union(u, 3, &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_arrow_builder_append_union(i, 0, &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_arrow_builder_append_int(u, 1, &err), BASALT_INVALID_ARG, &err);
    CHECK_EQ(basalt_arrow_builder_null_count(u), 0);
    CHECK_OK(at_finish_valid(st, &sc, &a, &err), &err);
    const struct ArrowArray *ua = a.children[0];
    CHECK_STR(sc.children[0]->format, "+ud:0,5,7");
    CHECK_EQ(ua->n_buffers, 2);
    CHECK_EQ(ua->length, 6);
    CHECK_EQ(ua->null_count, 0);
    static const int8_t codes[] = {5, 7, 0, 0, 5, 7};
    static const int32_t offsets[] = {0, 0, 0, 1, 1, 1};
    CHECK_MEM(at_buf(ua, 0), codes, sizeof codes);
    CHECK_MEM(at_buf(ua, 1), offsets, sizeof offsets);
    CHECK_EQ(ua->children[0]->length, 2);
    CHECK_EQ(ua->children[1]->length, 2);
    CHECK_EQ(ua->children[2]->length, 2);
    static const int32_t ints[] = {3, 4};
    CHECK_MEM(at_buf(ua->children[1], 1), ints, sizeof ints);
    at_release(&sc, &a);
    /* the next batch starts empty; a started element must get its value */
    CHECK_OK(basalt_arrow_builder_append_union(u, 1, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(st, &err), &err);
    CHECK_STATUS(basalt_arrow_builder_finish(st, &sc, &a, &err), BASALT_INVALID_ARG, &err);
    basalt_arrow_builder_free(st);

    /* without a null child, a null is a null of the first child */
    CHECK_OK(basalt_arrow_builder_new("+ud:1,2", "u", 0, &u, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(u, "l", "long", 0, &i, &err), &err);
    CHECK_STATUS(basalt_arrow_builder_finish(u, &sc, &a, &err), BASALT_INVALID_ARG, &err);
    CHECK_OK(basalt_arrow_builder_add_child(u, "b", "boolean", 0, &s, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_nulls(u, 2, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_union(u, 1, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_bool(s, true, &err), &err);
    CHECK_OK(at_finish_valid(u, &sc, &a, &err), &err);
    static const int8_t codes2[] = {1, 1, 2};
    CHECK_MEM(at_buf(&a, 0), codes2, sizeof codes2);
    CHECK_EQ(a.children[0]->length, 2);
    CHECK_EQ(a.children[0]->null_count, 2);
    at_release(&sc, &a);
    basalt_arrow_builder_free(u);

    CHECK_STATUS(basalt_arrow_builder_new("+us:0", NULL, 0, &u, &err), BASALT_UNSUPPORTED, &err);
}
