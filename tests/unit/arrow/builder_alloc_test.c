/* Fault injection over every builder path: each attempt either finishes or
 * fails with NOMEM having freed everything. */
#include "arrow_test_util.h"
#include "test.h"

#define TRY(expr)                                                                                 \
    do {                                                                                          \
        if ((st = (expr)) != BASALT_OK)                                                           \
            goto done;                                                                            \
    } while (0)

/* struct<i: int32, s: utf8, b: bool, l: list<large_utf8>, f: +w:2<f64>,
 *        m: map<utf8, int16>, d: dictionary<int8, utf8>, t: tsu:UTC, n: null,
 *        dec: d:10,2, fsb: w:4> */
static basalt_status builder_attempt(void *ctx)
{
    (void)ctx;
    struct basalt_arrow_builder *root = NULL, *fi, *fs, *fb, *fl, *fli, *ff, *ffi, *fm, *fmk, *fmv,
                                *fd, *fdd, *ft, *fn, *fdec, *fw;
    struct ArrowSchema s = {0};
    struct ArrowArray a = {0};
    basalt_status st;
    TRY(basalt_arrow_builder_new("+s", "root", 0, &root, NULL));
    TRY(basalt_arrow_builder_add_child(root, "i", "i", ARROW_FLAG_NULLABLE, &fi, NULL));
    TRY(basalt_arrow_builder_add_child(root, "u", "s", ARROW_FLAG_NULLABLE, &fs, NULL));
    TRY(basalt_arrow_builder_add_child(root, "b", "b", 0, &fb, NULL));
    TRY(basalt_arrow_builder_add_child(root, "+l", "l", ARROW_FLAG_NULLABLE, &fl, NULL));
    TRY(basalt_arrow_builder_add_child(fl, "U", "item", 0, &fli, NULL));
    TRY(basalt_arrow_builder_add_child(root, "+w:2", "f", ARROW_FLAG_NULLABLE, &ff, NULL));
    TRY(basalt_arrow_builder_add_child(ff, "g", "item", 0, &ffi, NULL));
    TRY(basalt_arrow_builder_add_child(root, "+m", "m", ARROW_FLAG_NULLABLE, &fm, NULL));
    TRY(basalt_arrow_builder_add_child(fm, "u", "key", 0, &fmk, NULL));
    TRY(basalt_arrow_builder_add_child(fm, "s", "value", ARROW_FLAG_NULLABLE, &fmv, NULL));
    TRY(basalt_arrow_builder_add_child(root, "c", "d", ARROW_FLAG_NULLABLE, &fd, NULL));
    TRY(basalt_arrow_builder_add_dictionary(fd, "u", &fdd, NULL));
    TRY(basalt_arrow_builder_add_child(root, "tsu:UTC", "t", 0, &ft, NULL));
    TRY(basalt_arrow_builder_add_child(root, "n", "n", ARROW_FLAG_NULLABLE, &fn, NULL));
    TRY(basalt_arrow_builder_add_child(root, "d:10,2", "dec", 0, &fdec, NULL));
    TRY(basalt_arrow_builder_add_child(root, "w:4", "fsb", ARROW_FLAG_NULLABLE, &fw, NULL));
    TRY(basalt_arrow_builder_set_metadata(fi, "\1\0\0\0\1\0\0\0k\1\0\0\0v", NULL));
    TRY(basalt_arrow_builder_append_string(fdd, "a", NULL));
    TRY(basalt_arrow_builder_append_string(fdd, "b", NULL));
    for (int row = 0; row < 70; row++) {
        if (row % 7 == 3) {
            TRY(basalt_arrow_builder_append_null(root, NULL));
            continue;
        }
        if (row % 5 == 0)
            TRY(basalt_arrow_builder_append_null(fi, NULL));
        else
            TRY(basalt_arrow_builder_append_int(fi, row, NULL));
        if (row % 4 == 0)
            TRY(basalt_arrow_builder_append_null(fs, NULL));
        else
            TRY(basalt_arrow_builder_append_string(fs, "some text", NULL));
        TRY(basalt_arrow_builder_append_bool(fb, row & 1, NULL));
        for (int k = 0; k < row % 3; k++)
            TRY(basalt_arrow_builder_append_string(fli, "x", NULL));
        TRY(basalt_arrow_builder_end_element(fl, NULL));
        TRY(basalt_arrow_builder_append_double(ffi, row, NULL));
        TRY(basalt_arrow_builder_append_double(ffi, -row, NULL));
        TRY(basalt_arrow_builder_end_element(ff, NULL));
        TRY(basalt_arrow_builder_append_string(fmk, "k", NULL));
        TRY(basalt_arrow_builder_append_int(fmv, row, NULL));
        TRY(basalt_arrow_builder_end_element(fm, NULL));
        TRY(basalt_arrow_builder_append_int(fd, row & 1, NULL));
        TRY(basalt_arrow_builder_append_int(ft, row * 1000, NULL));
        TRY(basalt_arrow_builder_append_null(fn, NULL));
        TRY(basalt_arrow_builder_append_int(fdec, row, NULL));
        TRY(basalt_arrow_builder_append_bytes(fw, "abcd", 4, NULL));
        TRY(basalt_arrow_builder_end_element(root, NULL));
    }
    int32_t bulk[40] = {0};
    TRY(basalt_arrow_builder_reserve(fi, 40, NULL));
    TRY(basalt_arrow_builder_append_values(fi, bulk, 40, NULL, 0, NULL));
    TRY(basalt_arrow_builder_append_nulls(fi, 3, NULL));
    TRY(basalt_arrow_builder_reserve_bytes(fs, 100, NULL));
    /* i is now ahead of the struct: finishing must refuse, cleanly. */
    if (basalt_arrow_builder_finish(root, &s, &a, NULL) != BASALT_INVALID_ARG) {
        st = BASALT_INTERNAL;
        goto done;
    }
    basalt_arrow_builder_free(root);
    root = NULL;

    /* A consistent tree this time, finished twice. */
    TRY(basalt_arrow_builder_new("+s", "root", 0, &root, NULL));
    TRY(basalt_arrow_builder_add_child(root, "+m", "m", ARROW_FLAG_NULLABLE, &fm, NULL));
    TRY(basalt_arrow_builder_add_child(fm, "u", "key", 0, &fmk, NULL));
    TRY(basalt_arrow_builder_add_child(fm, "+l", "value", ARROW_FLAG_NULLABLE, &fmv, NULL));
    TRY(basalt_arrow_builder_add_child(fmv, "i", "item", 0, &fli, NULL));
    TRY(basalt_arrow_builder_add_child(root, "+w:3", "f", ARROW_FLAG_NULLABLE, &ff, NULL));
    TRY(basalt_arrow_builder_add_child(ff, "+s", "item", 0, &ffi, NULL));
    TRY(basalt_arrow_builder_add_child(ffi, "b", "flag", ARROW_FLAG_NULLABLE, &fb, NULL));
    TRY(basalt_arrow_builder_add_child(ffi, "z", "raw", 0, &fs, NULL));
    for (int batch = 0; batch < 2; batch++) {
        for (int row = 0; row < 50; row++) {
            if (row % 6 == 1) {
                TRY(basalt_arrow_builder_append_nulls(root, 2, NULL));
                continue;
            }
            for (int k = 0; k < row % 3; k++) {
                TRY(basalt_arrow_builder_append_string(fmk, "key", NULL));
                TRY(basalt_arrow_builder_append_int(fli, k, NULL));
                TRY(basalt_arrow_builder_end_element(fmv, NULL));
            }
            TRY(basalt_arrow_builder_end_element(fm, NULL));
            if (row % 4 == 2) {
                TRY(basalt_arrow_builder_append_null(ff, NULL));
            } else {
                for (int k = 0; k < 3; k++) {
                    TRY(basalt_arrow_builder_append_bool(fb, k == 1, NULL));
                    TRY(basalt_arrow_builder_append_bytes(fs, "xy", 2, NULL));
                    TRY(basalt_arrow_builder_end_element(ffi, NULL));
                }
                TRY(basalt_arrow_builder_end_element(ff, NULL));
            }
            TRY(basalt_arrow_builder_end_element(root, NULL));
        }
        TRY(basalt_arrow_builder_finish(root, &s, &a, NULL));
        st = basalt_arrow_array_validate(&s, &a, BASALT_ARROW_VALIDATE_FULL, NULL);
        at_release(&s, &a);
        if (st != BASALT_OK) {
            st = BASALT_INTERNAL;
            goto done;
        }
    }
done:
    basalt_arrow_builder_free(root);
    return st;
}

TEST(arrow_builder_alloc_failures) { CHECK_ALLOC_SWEEP(builder_attempt, NULL); }

/* Without fault injection the same attempt must simply succeed. */
TEST(arrow_builder_alloc_attempt_plain) { CHECK_OK(builder_attempt(NULL), NULL); }

/* A finish that fails for lack of memory leaves the builder's data in place:
 * retried, it produces exactly what an undisturbed finish would. */
TEST(arrow_builder_finish_retry_keeps_data)
{
    for (int64_t n = 1;; n++) {
        struct basalt_arrow_builder *b, *flag, *name, *xs, *item;
        struct ArrowSchema s;
        struct ArrowArray a;
        CHECK_OK(basalt_arrow_builder_new("+s", NULL, 0, &b, NULL), NULL);
        CHECK_OK(basalt_arrow_builder_add_child(b, "b", "flag", 0, &flag, NULL), NULL);
        CHECK_OK(basalt_arrow_builder_add_child(b, "u", "name", ARROW_FLAG_NULLABLE, &name, NULL),
                 NULL);
        CHECK_OK(basalt_arrow_builder_add_child(b, "+l", "xs", 0, &xs, NULL), NULL);
        CHECK_OK(basalt_arrow_builder_add_child(xs, "i", "item", 0, &item, NULL), NULL);
        /* An empty finish first, failing as often as the sweep says. */
        basalt_alloc_fail_after(n);
        basalt_status st = basalt_arrow_builder_finish(b, &s, &a, NULL);
        basalt_alloc_fail_after(0);
        CHECK(st == BASALT_OK || st == BASALT_NOMEM);
        if (st == BASALT_OK)
            at_release(&s, &a);
        CHECK(s.release == NULL && a.release == NULL);
        /* Two rows: {false, "ab", [1]}, {true, null, []} */
        CHECK_OK(basalt_arrow_builder_append_bool(flag, false, NULL), NULL);
        CHECK_OK(basalt_arrow_builder_append_string(name, "ab", NULL), NULL);
        CHECK_OK(basalt_arrow_builder_append_int(item, 1, NULL), NULL);
        CHECK_OK(basalt_arrow_builder_end_element(xs, NULL), NULL);
        CHECK_OK(basalt_arrow_builder_end_element(b, NULL), NULL);
        CHECK_OK(basalt_arrow_builder_append_bool(flag, true, NULL), NULL);
        CHECK_OK(basalt_arrow_builder_append_null(name, NULL), NULL);
        CHECK_OK(basalt_arrow_builder_end_element(xs, NULL), NULL);
        CHECK_OK(basalt_arrow_builder_end_element(b, NULL), NULL);
        basalt_alloc_fail_after(n);
        basalt_status st2 = basalt_arrow_builder_finish(b, &s, &a, NULL);
        basalt_alloc_fail_after(0);
        CHECK(st2 == BASALT_OK || st2 == BASALT_NOMEM);
        if (st2 == BASALT_NOMEM) {
            CHECK(s.release == NULL && a.release == NULL);
            CHECK_EQ(basalt_arrow_builder_length(b), 2);
            CHECK_OK(basalt_arrow_builder_finish(b, &s, &a, NULL), NULL);
        }
        CHECK_OK(basalt_arrow_array_validate(&s, &a, BASALT_ARROW_VALIDATE_FULL, NULL), NULL);
        CHECK_EQ(a.length, 2);
        CHECK_EQ(at_buf(a.children[0], 1)[0], 0x02); /* padding bits zero too */
        static const int32_t name_offsets[] = {0, 2, 2};
        CHECK_MEM(at_buf(a.children[1], 1), name_offsets, sizeof name_offsets);
        CHECK_EQ(at_buf(a.children[1], 0)[0], 0x01);
        static const int32_t xs_offsets[] = {0, 1, 1};
        CHECK_MEM(at_buf(a.children[2], 1), xs_offsets, sizeof xs_offsets);
        at_release(&s, &a);
        basalt_arrow_builder_free(b);
        if (st == BASALT_OK && st2 == BASALT_OK)
            break;
    }
}
