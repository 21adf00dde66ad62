/* Arrays owning their buffers: construction, child-by-child release, move. */
#include "basalt/arrow.h"
#include "test.h"

/* int32 array [1, null, 3] built by hand, as a reader filling its own buffers. */
static basalt_status make_int32(struct ArrowArray *a)
{
    basalt_status st = basalt_arrow_array_init(a, 2, 0, NULL);
    if (st != BASALT_OK)
        return st;
    void *bits, *values;
    if ((st = basalt_arrow_array_allocate_buffer(a, 0, 1, &bits, NULL)) != BASALT_OK ||
        (st = basalt_arrow_array_allocate_buffer(a, 1, 12, &values, NULL)) != BASALT_OK) {
        a->release(a);
        return st;
    }
    ((uint8_t *)bits)[0] = 0x05;
    int32_t v[3] = {1, 0, 3};
    memcpy(values, v, sizeof v);
    a->length = 3;
    a->null_count = 1;
    return BASALT_OK;
}

TEST(arrow_array_owned_buffers)
{
    struct ArrowArray a;
    CHECK_OK(make_int32(&a), NULL);
    CHECK_EQ(a.n_buffers, 2);
    CHECK_EQ(a.n_children, 0);
    CHECK(a.children == NULL && a.dictionary == NULL);
    CHECK_EQ((uintptr_t)a.buffers[0] % 64, 0);
    CHECK_EQ((uintptr_t)a.buffers[1] % 64, 0);
    /* The padding up to 64 bytes is zeroed. */
    const uint8_t *values = a.buffers[1];
    for (int i = 12; i < 64; i++)
        CHECK_EQ(values[i], 0);
    struct ArrowSchema s;
    CHECK_OK(basalt_arrow_schema_init(&s, "i", "x", ARROW_FLAG_NULLABLE, 0, NULL), NULL);
    struct basalt_error err;
    CHECK_OK(basalt_arrow_array_validate(&s, &a, BASALT_ARROW_VALIDATE_FULL, &err), &err);
    s.release(&s);
    a.release(&a);
    CHECK(a.release == NULL);
}

TEST(arrow_array_set_buffer_replaces_and_checks)
{
    struct ArrowArray a;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_array_init(&a, 2, 0, NULL), NULL);
    void *one = basalt_aligned_alloc(64, 64), *two = basalt_malloc(8);
    CHECK_OK(basalt_arrow_array_set_buffer(&a, 1, one, NULL), NULL);
    CHECK(a.buffers[1] == one);
    CHECK_OK(basalt_arrow_array_set_buffer(&a, 1, two, NULL), NULL); /* frees `one` */
    CHECK(a.buffers[1] == two);
    void *three = basalt_malloc(8);
    CHECK_STATUS(basalt_arrow_array_set_buffer(&a, 2, three, &err), BASALT_INVALID_ARG, &err);
    void *out;
    CHECK_STATUS(basalt_arrow_array_allocate_buffer(&a, -1, 8, &out, &err), BASALT_INVALID_ARG,
                 &err);
    CHECK(out == NULL);
    a.release(&a);
    struct ArrowArray foreign = {0};
    void *four = basalt_malloc(8);
    CHECK_STATUS(basalt_arrow_array_set_buffer(&foreign, 0, four, &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_arrow_array_init(&a, -1, 0, &err), BASALT_INVALID_ARG, &err);
    CHECK(a.release == NULL);
}

TEST(arrow_array_child_moved_out_released_independently)
{
    struct ArrowArray parent, moved;
    CHECK_OK(basalt_arrow_array_init(&parent, 1, 2, NULL), NULL);
    CHECK_OK(make_int32(parent.children[0]), NULL);
    CHECK_OK(make_int32(parent.children[1]), NULL);
    parent.length = 3;
    basalt_arrow_array_move(parent.children[1], &moved);
    CHECK(parent.children[1]->release == NULL);
    CHECK(moved.release != NULL);
    /* Parent first; the moved child's buffers must still be readable. */
    parent.release(&parent);
    CHECK(parent.release == NULL);
    int32_t third;
    memcpy(&third, (const char *)moved.buffers[1] + 8, 4);
    CHECK_EQ(third, 3);
    moved.release(&moved);
    CHECK(moved.release == NULL);
}

TEST(arrow_array_child_released_first)
{
    struct ArrowArray parent;
    CHECK_OK(basalt_arrow_array_init(&parent, 1, 1, NULL), NULL);
    CHECK_OK(make_int32(parent.children[0]), NULL);
    parent.children[0]->release(parent.children[0]);
    parent.release(&parent); /* no double free: ASan would say */
}

TEST(arrow_array_dictionary_ownership)
{
    struct ArrowArray idx, dict, moved;
    CHECK_OK(make_int32(&idx), NULL);
    CHECK_OK(make_int32(&dict), NULL);
    CHECK_OK(basalt_arrow_array_set_dictionary(&idx, &dict, NULL), NULL);
    CHECK(dict.release == NULL);
    CHECK(idx.dictionary != NULL && idx.dictionary->length == 3);
    /* The dictionary, too, may be moved out and outlive its parent. */
    basalt_arrow_array_move(idx.dictionary, &moved);
    idx.release(&idx);
    CHECK_EQ(moved.length, 3);
    moved.release(&moved);
}

TEST(arrow_array_move_whole)
{
    struct ArrowArray a, b;
    CHECK_OK(make_int32(&a), NULL);
    const void *values = a.buffers[1];
    basalt_arrow_array_move(&a, &b);
    CHECK(a.release == NULL);
    CHECK(b.buffers[1] == values);
    basalt_arrow_array_release(&a);
    basalt_arrow_array_release(&b);
    CHECK(b.release == NULL);
    basalt_arrow_array_release(NULL);
}

TEST(arrow_shared_views_keep_the_data_alive)
{
    int64_t live_before = basalt_alloc_live();
    struct ArrowArray parent, dict;
    CHECK_OK(basalt_arrow_array_init(&parent, 1, 2, NULL), NULL);
    CHECK_OK(make_int32(parent.children[0]), NULL);
    CHECK_OK(make_int32(parent.children[1]), NULL);
    CHECK_OK(make_int32(&dict), NULL);
    CHECK_OK(basalt_arrow_array_set_dictionary(parent.children[1], &dict, NULL), NULL);
    parent.length = 3;
    const void *values = parent.children[1]->buffers[1];
    struct basalt_arrow_shared *s;
    CHECK_OK(basalt_arrow_shared_new(&parent, &s, NULL), NULL);
    CHECK(parent.release == NULL); /* moved in */
    struct ArrowArray v1, v2, moved;
    CHECK_OK(basalt_arrow_shared_view(s, &v1, NULL), NULL);
    CHECK_OK(basalt_arrow_shared_view(s, &v2, NULL), NULL);
    CHECK(v1.children[1]->buffers[1] == values && v2.children[1]->buffers[1] == values);
    CHECK(v1.children[1]->dictionary != NULL && v1.children[1]->dictionary->length == 3);
    /* The holder goes first, then a view with a child moved out of it: the
     * child still reads the data (ASan says if it does not). */
    basalt_arrow_shared_release(s);
    basalt_arrow_array_move(v1.children[1], &moved);
    v1.release(&v1);
    v2.release(&v2);
    int32_t third;
    memcpy(&third, (const char *)moved.buffers[1] + 8, 4);
    CHECK_EQ(third, 3);
    memcpy(&third, (const char *)moved.dictionary->buffers[1] + 8, 4);
    CHECK_EQ(third, 3);
    CHECK(basalt_alloc_live() > live_before);
    /* The last struct of the last view frees everything. */
    moved.release(&moved);
    CHECK_EQ(basalt_alloc_live(), live_before);
    CHECK_STATUS(basalt_arrow_shared_new(&parent, &s, NULL), BASALT_INVALID_ARG, NULL);
}

static basalt_status shared_attempt(void *ctx)
{
    (void)ctx;
    struct ArrowArray parent, v;
    basalt_status st = basalt_arrow_array_init(&parent, 1, 1, NULL);
    if (st != BASALT_OK)
        return st;
    if ((st = make_int32(parent.children[0])) != BASALT_OK) {
        parent.release(&parent);
        return st;
    }
    struct basalt_arrow_shared *s;
    if ((st = basalt_arrow_shared_new(&parent, &s, NULL)) != BASALT_OK)
        return st;
    st = basalt_arrow_shared_view(s, &v, NULL);
    basalt_arrow_shared_release(s);
    if (st == BASALT_OK)
        v.release(&v);
    return st;
}

TEST(arrow_shared_alloc_failures) { CHECK_ALLOC_SWEEP(shared_attempt, NULL); }

static basalt_status array_attempt(void *ctx)
{
    (void)ctx;
    struct ArrowArray parent, dict;
    basalt_status st = basalt_arrow_array_init(&parent, 2, 1, NULL);
    if (st != BASALT_OK)
        return st;
    if ((st = make_int32(parent.children[0])) != BASALT_OK ||
        (st = make_int32(&dict)) != BASALT_OK ||
        (st = basalt_arrow_array_set_dictionary(&parent, &dict, NULL)) != BASALT_OK) {
        parent.release(&parent);
        return st;
    }
    parent.release(&parent);
    return BASALT_OK;
}

TEST(arrow_array_alloc_failures) { CHECK_ALLOC_SWEEP(array_attempt, NULL); }
