/* The validator against hand-broken arrays: each break with the level that
 * must catch it, the status, and words the message must contain. */
#include "arrow_test_util.h"
#include "test.h"

#define LEVEL_S BASALT_ARROW_VALIDATE_STRUCTURE
#define LEVEL_D BASALT_ARROW_VALIDATE_DEFAULT
#define LEVEL_F BASALT_ARROW_VALIDATE_FULL

static basalt_status build_strings(struct ArrowSchema *s, struct ArrowArray *a, const char *format,
                                   const char *const *values, int n)
{
    struct basalt_arrow_builder *b;
    basalt_status st = basalt_arrow_builder_new(format, "s", ARROW_FLAG_NULLABLE, &b, NULL);
    for (int i = 0; st == BASALT_OK && i < n; i++)
        st = values[i] ? basalt_arrow_builder_append_string(b, values[i], NULL)
                       : basalt_arrow_builder_append_null(b, NULL);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(b, s, a, NULL);
    basalt_arrow_builder_free(b);
    return st;
}

/* Expects validation at `level` to fail with `status` and a message
 * containing `words`, and the level just below (when there is one and
 * `below_ok`) to pass. */
#define EXPECT_BROKEN(s, a, level, status, words, below_ok)                                      \
    do {                                                                                         \
        struct basalt_error e_;                                                                  \
        basalt_error_init(&e_);                                                                  \
        CHECK_STATUS(basalt_arrow_array_validate((s), (a), (level), &e_), (status), &e_);       \
        CHECK_MSG(strstr(e_.message, (words)) != NULL, "message '%s' lacks '%s'", e_.message,  \
                  (words));                                                                      \
        if ((below_ok) && (level) > LEVEL_S)                                                     \
            CHECK_OK(basalt_arrow_array_validate((s), (a), (level) - 1, &e_), &e_);              \
    } while (0)

TEST(arrow_validate_wrong_n_buffers)
{
    struct ArrowSchema s;
    struct ArrowArray a;
    const char *v[] = {"a"};
    CHECK_OK(build_strings(&s, &a, "u", v, 1), NULL);
    a.n_buffers = 2;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "2 buffers, expected 3", false);
    a.n_buffers = 3;
    at_release(&s, &a);
}

TEST(arrow_validate_offsets_not_monotonic)
{
    struct ArrowSchema root;
    struct ArrowArray ra;
    const char *v[] = {"abc", "de", "f"};
    /* Nest it in a struct so the path reads 'a.b'. */
    struct basalt_arrow_builder *b, *inner, *leaf;
    CHECK_OK(basalt_arrow_builder_new("+s", NULL, 0, &b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_add_child(b, "+s", "a", 0, &inner, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_add_child(inner, "u", "b", 0, &leaf, NULL), NULL);
    for (int i = 0; i < 3; i++) {
        CHECK_OK(basalt_arrow_builder_append_string(leaf, v[i], NULL), NULL);
        CHECK_OK(basalt_arrow_builder_end_element(inner, NULL), NULL);
        CHECK_OK(basalt_arrow_builder_end_element(b, NULL), NULL);
    }
    CHECK_OK(basalt_arrow_builder_finish(b, &root, &ra, NULL), NULL);
    basalt_arrow_builder_free(b);
    CHECK_OK(basalt_arrow_array_validate(&root, &ra, LEVEL_F, NULL), NULL);
    /* offsets 0 3 5 6 -> 0 3 2 6: element 1 has a negative length */
    int32_t *offsets = at_mut(ra.children[0]->children[0]->buffers[1]);
    offsets[2] = 2;
    EXPECT_BROKEN(&root, &ra, LEVEL_F, BASALT_CORRUPT, "column 'a.b': offsets not monotonic at 1",
                  true);
    at_release(&root, &ra);
}

TEST(arrow_validate_offsets_past_the_data)
{
    /* list<int32> whose last offset passes the child's 3 values */
    struct basalt_arrow_builder *b, *item;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_new("+l", "xs", 0, &b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_add_child(b, "i", "item", 0, &item, NULL), NULL);
    for (int i = 0; i < 3; i++)
        CHECK_OK(basalt_arrow_builder_append_int(item, i, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_end_element(b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_finish(b, &s, &a, NULL), NULL);
    basalt_arrow_builder_free(b);
    int32_t *offsets = at_mut(a.buffers[1]);
    offsets[1] = 4;
    EXPECT_BROKEN(&s, &a, LEVEL_D, BASALT_CORRUPT, "past the child's 3 values", true);
    offsets[0] = -1;
    EXPECT_BROKEN(&s, &a, LEVEL_D, BASALT_CORRUPT, "negative", true);
    offsets[0] = 0;
    offsets[1] = 3;
    CHECK_OK(basalt_arrow_array_validate(&s, &a, LEVEL_F, NULL), NULL);
    at_release(&s, &a);

    /* strings whose offsets reach into a data buffer that is not there */
    struct ArrowArray na;
    CHECK_OK(basalt_arrow_array_init(&na, 3, 0, NULL), NULL);
    void *off;
    CHECK_OK(basalt_arrow_array_allocate_buffer(&na, 1, 8, &off, NULL), NULL);
    ((int32_t *)off)[0] = 0;
    ((int32_t *)off)[1] = 5;
    na.length = 1;
    CHECK_OK(basalt_arrow_schema_init(&s, "u", "t", 0, 0, NULL), NULL);
    EXPECT_BROKEN(&s, &na, LEVEL_D, BASALT_CORRUPT, "data buffer is NULL", true);
    at_release(&s, &na);
}

TEST(arrow_validate_short_children)
{
    struct basalt_arrow_builder *b, *f1, *f2;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_new("+s", "r", 0, &b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_add_child(b, "i", "p", 0, &f1, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_add_child(b, "g", "q", 0, &f2, NULL), NULL);
    for (int i = 0; i < 4; i++) {
        CHECK_OK(basalt_arrow_builder_append_int(f1, i, NULL), NULL);
        CHECK_OK(basalt_arrow_builder_append_double(f2, i, NULL), NULL);
        CHECK_OK(basalt_arrow_builder_end_element(b, NULL), NULL);
    }
    CHECK_OK(basalt_arrow_builder_finish(b, &s, &a, NULL), NULL);
    basalt_arrow_builder_free(b);
    a.children[1]->length = 3;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "struct field 1 has 3 values", false);
    /* A slice may not reach past the children either. */
    a.children[1]->length = 4;
    a.offset = 1;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "struct needs 5", false);
    a.length = 3; /* the valid slice [1, 4) */
    CHECK_OK(basalt_arrow_array_validate(&s, &a, LEVEL_F, NULL), NULL);
    at_release(&s, &a);

    /* fixed-size list +w:3 of 2 lists with only 5 child values */
    struct basalt_arrow_builder *item;
    CHECK_OK(basalt_arrow_builder_new("+w:3", "v", 0, &b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_add_child(b, "f", "item", 0, &item, NULL), NULL);
    for (int i = 0; i < 6; i++) {
        CHECK_OK(basalt_arrow_builder_append_double(item, i, NULL), NULL);
        if (i % 3 == 2)
            CHECK_OK(basalt_arrow_builder_end_element(b, NULL), NULL);
    }
    CHECK_OK(basalt_arrow_builder_finish(b, &s, &a, NULL), NULL);
    basalt_arrow_builder_free(b);
    CHECK_OK(basalt_arrow_array_validate(&s, &a, LEVEL_F, NULL), NULL);
    a.children[0]->length = 5;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "child has 5 values", false);
    at_release(&s, &a);
}

TEST(arrow_validate_dictionary_index_out_of_range)
{
    struct basalt_arrow_builder *b, *dict;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_new("s", "d", ARROW_FLAG_NULLABLE, &b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_add_dictionary(b, "u", &dict, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_string(dict, "x", NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_string(dict, "y", NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_int(b, 1, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_null(b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_int(b, 2, NULL), NULL); /* out of range */
    CHECK_OK(basalt_arrow_builder_finish(b, &s, &a, NULL), NULL);
    basalt_arrow_builder_free(b);
    EXPECT_BROKEN(&s, &a, LEVEL_F, BASALT_CORRUPT, "dictionary index 2 at 2 outside [0, 2)", true);
    int16_t *idx = at_mut(a.buffers[1]);
    idx[2] = -1;
    EXPECT_BROKEN(&s, &a, LEVEL_F, BASALT_CORRUPT, "dictionary index -1", true);
    /* A null slot may hold anything. */
    idx[2] = 0;
    idx[1] = 99;
    CHECK_OK(basalt_arrow_array_validate(&s, &a, LEVEL_F, NULL), NULL);
    /* The dictionary array must be there when the schema has one. */
    struct ArrowArray *saved = a.dictionary;
    a.dictionary = NULL;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "dictionary array missing", false);
    a.dictionary = saved;
    at_release(&s, &a);
}

TEST(arrow_validate_invalid_utf8)
{
    static const struct {
        const char *bytes;
        bool valid;
    } cases[] = {
        {"plain ascii, long enough for the 8-byte path", true},
        {"\xc3\xa9", true},                     /* U+00E9 */
        {"\xe2\x82\xac", true},                 /* U+20AC */
        {"\xf0\x9f\x98\x80", true},             /* U+1F600 */
        {"\xf4\x8f\xbf\xbf", true},             /* U+10FFFF */
        {"\xef\xbb\xbf", true},                 /* U+FEFF */
        {"\xc3\x28", false},                    /* bad continuation */
        {"\xc0\xaf", false},                    /* overlong '/' */
        {"\xe0\x80\xaf", false},                /* overlong */
        {"\xed\xa0\x80", false},                /* surrogate U+D800 */
        {"\xf4\x90\x80\x80", false},            /* above U+10FFFF */
        {"\xf5\x80\x80\x80", false},
        {"\x80", false},                        /* lone continuation */
        {"abcdefgh\xe2\x82", false},            /* truncated after the fast path */
        {"\xff", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ArrowSchema s;
        struct ArrowArray a;
        const char *v[] = {"ok", cases[i].bytes};
        CHECK_OK(build_strings(&s, &a, (i & 1) ? "u" : "U", v, 2), NULL);
        struct basalt_error err;
        basalt_status st = basalt_arrow_array_validate(&s, &a, LEVEL_F, &err);
        CHECK_MSG((st == BASALT_OK) == cases[i].valid, "case %zu: %s", i, err.message);
        if (!cases[i].valid)
            CHECK(strstr(err.message, "invalid UTF-8 in element 1") != NULL);
        CHECK_OK(basalt_arrow_array_validate(&s, &a, LEVEL_D, NULL), NULL);
        at_release(&s, &a);
    }
    /* Binary is not checked; a null string's bytes are not either. */
    struct ArrowSchema s;
    struct ArrowArray a;
    const char *v[] = {"\xff"};
    CHECK_OK(build_strings(&s, &a, "z", v, 1), NULL);
    CHECK_OK(basalt_arrow_array_validate(&s, &a, LEVEL_F, NULL), NULL);
    at_release(&s, &a);
    CHECK_OK(build_strings(&s, &a, "u", v, 1), NULL);
    uint8_t *bits;
    CHECK_OK(basalt_arrow_array_allocate_buffer(&a, 0, 1, (void **)&bits, NULL), NULL);
    bits[0] = 0;
    a.null_count = 1;
    CHECK_OK(basalt_arrow_array_validate(&s, &a, LEVEL_F, NULL), NULL);
    at_release(&s, &a);
}

TEST(arrow_validate_null_count)
{
    struct ArrowSchema s;
    struct ArrowArray a;
    const char *v[] = {"a", NULL, "c", NULL};
    CHECK_OK(build_strings(&s, &a, "u", v, 4), NULL);
    CHECK_EQ(a.null_count, 2);
    a.null_count = 1;
    EXPECT_BROKEN(&s, &a, LEVEL_F, BASALT_CORRUPT, "null_count 1 but the validity bitmap has 2",
                  true);
    a.null_count = -1; /* unknown is allowed */
    CHECK_OK(basalt_arrow_array_validate(&s, &a, LEVEL_F, NULL), NULL);
    a.null_count = 5;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "outside [-1, length 4]", false);
    a.null_count = -2;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "null_count", false);
    /* With an offset the count covers only the slice: [NULL, "c"] has 1. */
    a.offset = 1;
    a.length = 2;
    a.null_count = 1;
    CHECK_OK(basalt_arrow_array_validate(&s, &a, LEVEL_F, NULL), NULL);
    a.offset = 0;
    a.length = 4;
    a.null_count = 2;
    /* nulls claimed without a bitmap */
    const void *bits = a.buffers[0];
    a.buffers[0] = NULL;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "without a validity bitmap", false);
    a.buffers[0] = bits;
    at_release(&s, &a);
}

TEST(arrow_validate_counts_and_pointers)
{
    struct basalt_arrow_builder *b, *item;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_new("+l", "xs", 0, &b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_add_child(b, "i", "item", 0, &item, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_append_int(item, 1, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_end_element(b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_finish(b, &s, &a, NULL), NULL);
    basalt_arrow_builder_free(b);
    CHECK_OK(basalt_arrow_array_validate(&s, &a, LEVEL_F, NULL), NULL);

    a.length = -1;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "negative length", false);
    a.length = 1;
    a.offset = -3;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "offset -3", false);
    a.offset = INT64_MAX;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "overflows", false);
    a.offset = 0;
    a.n_children = 0;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "0 children, schema has 1", false);
    a.n_children = 1;
    const void *offsets = a.buffers[1];
    a.buffers[1] = NULL;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "offsets buffer is NULL", false);
    a.buffers[1] = offsets;
    /* a child the consumer already released */
    struct ArrowArray child;
    basalt_arrow_array_move(a.children[0], &child);
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "child 0 is missing or released", false);
    basalt_arrow_array_move(&child, a.children[0]);
    /* The child's own defects are named by path. */
    a.children[0]->n_buffers = 3;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "column 'xs.item'", false);
    a.children[0]->n_buffers = 2;
    /* values buffer missing in a non-empty fixed-width child */
    const void *vals = a.children[0]->buffers[1];
    a.children[0]->buffers[1] = NULL;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "values buffer is NULL", false);
    a.children[0]->buffers[1] = vals;
    /* an array with a dictionary its schema lacks */
    struct ArrowArray fake = a;
    a.dictionary = &fake;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "does not declare", false);
    a.dictionary = NULL;
    /* released structs given by the caller */
    struct ArrowArray released = {0};
    CHECK_STATUS(basalt_arrow_array_validate(&s, &released, LEVEL_S, NULL), BASALT_INVALID_ARG,
                 NULL);
    CHECK_STATUS(basalt_arrow_array_validate(NULL, &a, LEVEL_S, NULL), BASALT_INVALID_ARG, NULL);
    at_release(&s, &a);
}

TEST(arrow_validate_map_keys_not_null)
{
    struct basalt_arrow_builder *b, *k, *v;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_new("+m", "m", 0, &b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_add_child(b, "i", "key", 0, &k, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_add_child(b, "i", "value", ARROW_FLAG_NULLABLE, &v, NULL), NULL);
    for (int i = 0; i < 3; i++) {
        CHECK_OK(basalt_arrow_builder_append_int(k, i, NULL), NULL);
        CHECK_OK(basalt_arrow_builder_append_int(v, i, NULL), NULL);
    }
    CHECK_OK(basalt_arrow_builder_end_element(b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_finish(b, &s, &a, NULL), NULL);
    basalt_arrow_builder_free(b);
    CHECK_OK(basalt_arrow_array_validate(&s, &a, LEVEL_F, NULL), NULL);
    struct ArrowArray *keys = a.children[0]->children[0];
    uint8_t *bits;
    CHECK_OK(basalt_arrow_array_allocate_buffer(keys, 0, 1, (void **)&bits, NULL), NULL);
    bits[0] = 0x05; /* key 1 null */
    keys->null_count = 1;
    EXPECT_BROKEN(&s, &a, LEVEL_F, BASALT_CORRUPT, "1 map keys are null", true);
    at_release(&s, &a);
}

TEST(arrow_validate_unsupported_types)
{
    static const char *const formats[] = {"vu", "vz", "+vl", "+r"};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        struct ArrowSchema s;
        struct ArrowArray a;
        int64_t children = strcmp(formats[i], "+vl") == 0  ? 1
                           : strcmp(formats[i], "+r") == 0 ? 2
                                                           : 0;
        CHECK_OK(basalt_arrow_schema_init(&s, formats[i], "u", 0, children, NULL), NULL);
        for (int64_t c = 0; c < children; c++)
            CHECK_OK(basalt_arrow_schema_init(s.children[c], "i", "c", 0, 0, NULL), NULL);
        CHECK_OK(basalt_arrow_schema_validate(&s, NULL), NULL);
        CHECK_OK(basalt_arrow_array_init(&a, 0, children, NULL), NULL);
        struct basalt_error err;
        CHECK_STATUS(basalt_arrow_array_validate(&s, &a, LEVEL_S, &err), BASALT_UNSUPPORTED, &err);
        CHECK(strstr(err.message, "not implemented") != NULL);
        at_release(&s, &a);
    }
}

/* A dense union <n, i> (codes 3, 9) of 4 elements, and a sparse one. */
TEST(arrow_validate_unions)
{
    struct basalt_arrow_builder *b, *n, *i;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_new("+ud:3,9", "u", 0, &b, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_add_child(b, "n", "n", ARROW_FLAG_NULLABLE, &n, NULL), NULL);
    CHECK_OK(basalt_arrow_builder_add_child(b, "i", "i", 0, &i, NULL), NULL);
    for (int k = 0; k < 4; k++) {
        if (k == 2) {
            CHECK_OK(basalt_arrow_builder_append_null(b, NULL), NULL);
            continue;
        }
        CHECK_OK(basalt_arrow_builder_append_union(b, 1, NULL), NULL);
        CHECK_OK(basalt_arrow_builder_append_int(i, k, NULL), NULL);
    }
    CHECK_OK(basalt_arrow_builder_finish(b, &s, &a, NULL), NULL);
    basalt_arrow_builder_free(b);
    CHECK_OK(basalt_arrow_array_validate(&s, &a, LEVEL_F, NULL), NULL);
    int8_t *codes = at_mut(a.buffers[0]);
    int32_t *offs = at_mut(a.buffers[1]);
    codes[1] = 4;
    EXPECT_BROKEN(&s, &a, LEVEL_F, BASALT_CORRUPT, "union type id 4 at 1 is not declared", true);
    codes[1] = 9;
    offs[3] = 3;
    EXPECT_BROKEN(&s, &a, LEVEL_F, BASALT_CORRUPT, "union offset 3 at 3 outside child 1's 3 values",
                  true);
    offs[3] = 2;
    a.offset = 1;
    a.length = 3;
    CHECK_OK(basalt_arrow_array_validate(&s, &a, LEVEL_F, NULL), NULL);
    a.null_count = 1;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "unions have no validity", false);
    a.null_count = 0;
    const void *saved = a.buffers[1];
    a.buffers[1] = NULL;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "offsets buffer is NULL", false);
    a.buffers[1] = saved;
    at_release(&s, &a);

    /* sparse: one buffer, every child as long as the union */
    CHECK_OK(basalt_arrow_schema_init(&s, "+us:0,1", "s", 0, 2, NULL), NULL);
    CHECK_OK(basalt_arrow_schema_init(s.children[0], "i", "a", 0, 0, NULL), NULL);
    CHECK_OK(basalt_arrow_schema_init(s.children[1], "i", "b", 0, 0, NULL), NULL);
    CHECK_OK(basalt_arrow_array_init(&a, 1, 2, NULL), NULL);
    int8_t *ids;
    CHECK_OK(basalt_arrow_array_allocate_buffer(&a, 0, 2, (void **)&ids, NULL), NULL);
    ids[0] = 1;
    ids[1] = 0;
    a.length = 2;
    for (int c = 0; c < 2; c++) {
        int32_t *v;
        CHECK_OK(basalt_arrow_array_init(a.children[c], 2, 0, NULL), NULL);
        CHECK_OK(basalt_arrow_array_allocate_buffer(a.children[c], 1, 8, (void **)&v, NULL), NULL);
        v[0] = v[1] = c;
        a.children[c]->length = 2;
    }
    CHECK_OK(basalt_arrow_array_validate(&s, &a, LEVEL_F, NULL), NULL);
    a.children[1]->length = 1;
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "sparse_union field 1 has 1 values", false);
    a.children[1]->length = 2;
    ids[1] = 2;
    EXPECT_BROKEN(&s, &a, LEVEL_F, BASALT_CORRUPT, "union type id 2 at 1 is not declared", true);
    at_release(&s, &a);
}

static void noop_release(struct ArrowArray *a) { a->release = NULL; }
static void noop_schema_release(struct ArrowSchema *s) { s->release = NULL; }

TEST(arrow_validate_cyclic_array_limit)
{
    /* A foreign producer's list whose child is itself. */
    struct ArrowSchema s = {.format = "+l", .n_children = 1, .release = noop_schema_release};
    struct ArrowSchema *sc[] = {&s};
    s.children = sc;
    static int32_t offsets[2] = {0, 0};
    const void *buffers[2] = {NULL, offsets};
    struct ArrowArray a = {.length = 1, .n_buffers = 2, .n_children = 1, .buffers = buffers,
                           .release = noop_release};
    struct ArrowArray *ac[] = {&a};
    a.children = ac;
    struct basalt_error err;
    CHECK_STATUS(basalt_arrow_array_validate(&s, &a, LEVEL_F, &err), BASALT_LIMIT, &err);
}

/* A foreign array in static storage validates like ours: the validator
 * reads only what the specification defines. */
TEST(arrow_validate_foreign_arrays)
{
    static const uint8_t validity[] = {0x05};
    static const int64_t values[] = {7, 0, 9};
    const void *buffers[2] = {validity, values};
    struct ArrowSchema s = {.format = "L", .name = "n", .release = noop_schema_release};
    struct ArrowArray a = {.length = 3, .null_count = 1, .n_buffers = 2, .buffers = buffers,
                           .release = noop_release};
    CHECK_OK(basalt_arrow_array_validate(&s, &a, LEVEL_F, NULL), NULL);
    a.null_count = 0;
    EXPECT_BROKEN(&s, &a, LEVEL_F, BASALT_CORRUPT, "column 'n': null_count 0", true);
    /* a format that does not parse */
    s.format = "d:99,1";
    EXPECT_BROKEN(&s, &a, LEVEL_S, BASALT_CORRUPT, "column 'n': format 'd:99,1'", false);
}
