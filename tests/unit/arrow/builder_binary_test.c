/* Builders of variable-length binary and string arrays. */
#include "arrow_test_util.h"
#include "test.h"

TEST(arrow_builder_utf8)
{
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    struct ArrowArray a;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("u", "name", ARROW_FLAG_NULLABLE, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(b, "hello", &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(b, "", &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(b, "w\xc3\xb6rld", &err), &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    CHECK_EQ(a.n_buffers, 3);
    CHECK_EQ(a.length, 4);
    CHECK_EQ(a.null_count, 1);
    static const int32_t offsets[] = {0, 5, 5, 5, 11};
    CHECK_MEM(at_buf(&a, 1), offsets, sizeof offsets);
    CHECK_MEM(at_buf(&a, 2), "hellow\xc3\xb6rld", 11);
    CHECK_EQ(at_buf(&a, 0)[0], 0x0b);
    CHECK_EQ((uintptr_t)a.buffers[2] % 64, 0);
    at_release(&s, &a);

    /* A second batch from the same builder starts from offset 0. */
    CHECK_OK(basalt_arrow_builder_append_string(b, "ab", &err), &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    static const int32_t offsets2[] = {0, 2};
    CHECK_MEM(at_buf(&a, 1), offsets2, sizeof offsets2);
    CHECK(a.buffers[0] == NULL);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

TEST(arrow_builder_large_string_and_binary)
{
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    struct ArrowArray a;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("U", NULL, ARROW_FLAG_NULLABLE, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(b, "abc", &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(b, "de", &err), &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    static const int64_t offsets[] = {0, 0, 3, 5};
    CHECK_MEM(at_buf(&a, 1), offsets, sizeof offsets);
    CHECK_MEM(at_buf(&a, 2), "abcde", 5);
    CHECK_EQ(at_buf(&a, 0)[0], 0x06);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);

    /* Binary takes any bytes, NUL and invalid UTF-8 included. */
    CHECK_OK(basalt_arrow_builder_new("z", NULL, 0, &b, &err), &err);
    static const uint8_t blob[] = {0x00, 0xff, 0xc3, 0x28};
    CHECK_OK(basalt_arrow_builder_append_bytes(b, blob, 4, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_bytes(b, NULL, 0, &err), &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    static const int32_t zoff[] = {0, 4, 4};
    CHECK_MEM(at_buf(&a, 1), zoff, sizeof zoff);
    CHECK_MEM(at_buf(&a, 2), blob, 4);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);

    CHECK_OK(basalt_arrow_builder_new("Z", NULL, 0, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_reserve_bytes(b, 100, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_bytes(b, blob, 2, &err), &err);
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    static const int64_t Zoff[] = {0, 2};
    CHECK_MEM(at_buf(&a, 1), Zoff, sizeof Zoff);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

TEST(arrow_builder_empty_string_array)
{
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_new("u", NULL, 0, &b, NULL), NULL);
    CHECK_OK(at_finish_valid(b, &s, &a, NULL), NULL);
    CHECK_EQ(a.length, 0);
    CHECK(a.buffers[1] != NULL && a.buffers[2] != NULL);
    int32_t first;
    memcpy(&first, at_buf(&a, 1), 4);
    CHECK_EQ(first, 0);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

/* Random strings and nulls against offsets computed here from the lengths. */
TEST(arrow_builder_strings_random)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 42);
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    struct ArrowArray a;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("u", NULL, ARROW_FLAG_NULLABLE, &b, &err), &err);
    enum { N = 3000 };
    static int32_t expect_offsets[N + 1];
    static char expect_data[N * 20];
    static uint8_t expect_valid[N];
    int64_t nulls = 0;
    expect_offsets[0] = 0;
    for (int i = 0; i < N; i++) {
        char tmp[20];
        int len = (int)bt_rng_below(&rng, 20);
        for (int k = 0; k < len; k++)
            tmp[k] = (char)('a' + bt_rng_below(&rng, 26));
        expect_valid[i] = bt_rng_below(&rng, 5) != 0;
        if (expect_valid[i]) {
            CHECK_OK(basalt_arrow_builder_append_bytes(b, tmp, len, &err), &err);
            memcpy(expect_data + expect_offsets[i], tmp, (size_t)len);
            expect_offsets[i + 1] = expect_offsets[i] + len;
        } else {
            CHECK_OK(basalt_arrow_builder_append_null(b, &err), &err);
            expect_offsets[i + 1] = expect_offsets[i];
            nulls++;
        }
    }
    CHECK_OK(at_finish_valid(b, &s, &a, &err), &err);
    CHECK_EQ(a.length, N);
    CHECK_EQ(a.null_count, nulls);
    CHECK_MEM(at_buf(&a, 1), expect_offsets, sizeof expect_offsets);
    CHECK_MEM(at_buf(&a, 2), expect_data, (size_t)expect_offsets[N]);
    for (int i = 0; i < N; i++)
        CHECK_EQ(basalt_bitmap_get(at_buf(&a, 0), i), expect_valid[i]);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}
