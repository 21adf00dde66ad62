/* basalt_arrow_take against an oracle: the rows gathered from a batch must
 * equal, slot by slot, a batch the builders make from the same rows'
 * generated values. Every type the kernel takes appears, nested, with nulls
 * at every level. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "arrow_test_util.h"
#include "test.h"

#define TRY(expr)                                                                                 \
    do {                                                                                          \
        if ((st = (expr)) != BASALT_OK)                                                           \
            goto done;                                                                            \
    } while (0)

enum {
    C_BOOL, C_I8, C_I32, C_I64, C_F32, C_F64, C_DEC, C_DATE, C_TS, C_FSB, C_STR, C_LSTR, C_BIN,
    C_LIST, C_LLIST, C_FLIST, C_STRUCT, C_MAP, C_NULL, C_DEEP, C_COUNT
};

/* The batch of rows rows[0, n): each column's value is a function of the row id. */
static basalt_status build(const int64_t *rows, int64_t n, struct ArrowSchema *s,
                           struct ArrowArray *a)
{
    struct basalt_arrow_builder *root = NULL, *c[C_COUNT], *li, *lli, *fli, *sx, *sy, *mk, *mv,
                                *ds, *dl, *dli;
    basalt_status st;
    const int64_t N = ARROW_FLAG_NULLABLE;
    TRY(basalt_arrow_builder_new("+s", "root", 0, &root, NULL));
    static const char *const formats[C_COUNT] = {
        "b", "c", "i", "l", "f", "g", "d:10,2", "tdD", "tsu:UTC", "w:3", "u", "U", "z",
        "+l", "+L", "+w:2", "+s", "+m", "n", "+l"};
    for (int k = 0; k < C_COUNT; k++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", k);
        TRY(basalt_arrow_builder_add_child(root, formats[k], name, N, &c[k], NULL));
    }
    TRY(basalt_arrow_builder_add_child(c[C_LIST], "i", "item", N, &li, NULL));
    TRY(basalt_arrow_builder_add_child(c[C_LLIST], "u", "item", 0, &lli, NULL));
    TRY(basalt_arrow_builder_add_child(c[C_FLIST], "s", "item", N, &fli, NULL));
    TRY(basalt_arrow_builder_add_child(c[C_STRUCT], "i", "x", N, &sx, NULL));
    TRY(basalt_arrow_builder_add_child(c[C_STRUCT], "u", "y", 0, &sy, NULL));
    TRY(basalt_arrow_builder_add_child(c[C_MAP], "u", "key", 0, &mk, NULL));
    TRY(basalt_arrow_builder_add_child(c[C_MAP], "i", "value", N, &mv, NULL));
    TRY(basalt_arrow_builder_add_child(c[C_DEEP], "+s", "item", N, &ds, NULL));
    TRY(basalt_arrow_builder_add_child(ds, "+l", "l", N, &dl, NULL));
    TRY(basalt_arrow_builder_add_child(dl, "i", "item", 0, &dli, NULL));
    for (int64_t k = 0; k < n; k++) {
        int64_t r = rows[k];
        char text[64];
#define NUL_OR(col, cond, append)                                                                 \
    do {                                                                                          \
        if (cond)                                                                                 \
            TRY(basalt_arrow_builder_append_null(c[col], NULL));                                  \
        else                                                                                      \
            TRY(append);                                                                          \
    } while (0)
        NUL_OR(C_BOOL, r % 7 == 3, basalt_arrow_builder_append_bool(c[C_BOOL], r % 3 == 0, NULL));
        NUL_OR(C_I8, r % 5 == 1, basalt_arrow_builder_append_int(c[C_I8], r % 200 - 100, NULL));
        NUL_OR(C_I32, r % 4 == 2, basalt_arrow_builder_append_int(c[C_I32], r * 1000 - 7, NULL));
        TRY(basalt_arrow_builder_append_int(c[C_I64], r * r * 123456789, NULL));
        NUL_OR(C_F32, r % 6 == 5, basalt_arrow_builder_append_double(c[C_F32], r * 0.5, NULL));
        TRY(basalt_arrow_builder_append_double(c[C_F64], r / 3.0, NULL));
        NUL_OR(C_DEC, r % 9 == 4, basalt_arrow_builder_append_int(c[C_DEC], r * 101 - 50, NULL));
        TRY(basalt_arrow_builder_append_int(c[C_DATE], r - 5, NULL));
        TRY(basalt_arrow_builder_append_int(c[C_TS], r * INT64_C(3600000000), NULL));
        uint8_t fsb[3] = {(uint8_t)r, (uint8_t)(r + 1), (uint8_t)(r + 2)};
        NUL_OR(C_FSB, r % 8 == 7, basalt_arrow_builder_append_bytes(c[C_FSB], fsb, 3, NULL));
        int len = snprintf(text, sizeof text, "s%lld", (long long)r);
        for (int64_t rep = 0; rep < r % 4; rep++)
            len += snprintf(text + len, sizeof text - (size_t)len, "-%lld", (long long)rep);
        NUL_OR(C_STR, r % 5 == 0, basalt_arrow_builder_append_string(c[C_STR], text, NULL));
        snprintf(text, sizeof text, "L%lld", (long long)r);
        TRY(basalt_arrow_builder_append_string(c[C_LSTR], text, NULL));
        uint8_t bin[5] = {0, 1, 2, 3, 4};
        TRY(basalt_arrow_builder_append_bytes(c[C_BIN], bin, r % 5, NULL));
        if (r % 6 == 1) {
            TRY(basalt_arrow_builder_append_null(c[C_LIST], NULL));
        } else {
            for (int64_t j = 0; j < r % 4; j++)
                TRY(j == 2 ? basalt_arrow_builder_append_null(li, NULL)
                           : basalt_arrow_builder_append_int(li, r + j, NULL));
            TRY(basalt_arrow_builder_end_element(c[C_LIST], NULL));
        }
        for (int64_t j = 0; j < r % 3; j++) {
            snprintf(text, sizeof text, "e%lld.%lld", (long long)r, (long long)j);
            TRY(basalt_arrow_builder_append_string(lli, text, NULL));
        }
        TRY(basalt_arrow_builder_end_element(c[C_LLIST], NULL));
        if (r % 7 == 2) {
            TRY(basalt_arrow_builder_append_null(c[C_FLIST], NULL));
        } else {
            TRY(basalt_arrow_builder_append_int(fli, r % 30000, NULL));
            TRY(basalt_arrow_builder_append_int(fli, -(r % 30000), NULL));
            TRY(basalt_arrow_builder_end_element(c[C_FLIST], NULL));
        }
        if (r % 5 == 3) {
            TRY(basalt_arrow_builder_append_null(c[C_STRUCT], NULL));
        } else {
            if (r % 3 == 0)
                TRY(basalt_arrow_builder_append_null(sx, NULL));
            else
                TRY(basalt_arrow_builder_append_int(sx, r, NULL));
            snprintf(text, sizeof text, "y%lld", (long long)r);
            TRY(basalt_arrow_builder_append_string(sy, text, NULL));
            TRY(basalt_arrow_builder_end_element(c[C_STRUCT], NULL));
        }
        for (int64_t j = 0; j < r % 3; j++) {
            snprintf(text, sizeof text, "k%lld", (long long)j);
            TRY(basalt_arrow_builder_append_string(mk, text, NULL));
            if (j == 1)
                TRY(basalt_arrow_builder_append_null(mv, NULL));
            else
                TRY(basalt_arrow_builder_append_int(mv, j * r, NULL));
        }
        TRY(basalt_arrow_builder_end_element(c[C_MAP], NULL));
        TRY(basalt_arrow_builder_append_null(c[C_NULL], NULL));
        for (int64_t j = 0; j < r % 3; j++) {
            if (j == 1 && r % 2) {
                TRY(basalt_arrow_builder_append_null(ds, NULL));
                continue;
            }
            for (int64_t q = 0; q < j + 1; q++)
                TRY(basalt_arrow_builder_append_int(dli, r * 10 + q, NULL));
            TRY(basalt_arrow_builder_end_element(dl, NULL));
            TRY(basalt_arrow_builder_end_element(ds, NULL));
        }
        TRY(basalt_arrow_builder_end_element(c[C_DEEP], NULL));
        TRY(basalt_arrow_builder_end_element(root, NULL));
#undef NUL_OR
    }
    TRY(basalt_arrow_builder_finish(root, s, a, NULL));
done:
    basalt_arrow_builder_free(root);
    return st;
}

static bool valid_at(const struct ArrowArray *a, int64_t i)
{
    return !a->buffers || !a->buffers[0] || basalt_bitmap_get(a->buffers[0], a->offset + i);
}

static int64_t off_at(const struct ArrowArray *a, bool large, int64_t i)
{
    if (large)
        return ((const int64_t *)a->buffers[1])[a->offset + i];
    return ((const int32_t *)a->buffers[1])[a->offset + i];
}

/* Slot i of a equals slot j of b (same schema), logically. */
static bool same(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                 const struct ArrowArray *b, int64_t j)
{
    struct basalt_arrow_type t;
    if (basalt_arrow_type_parse(s->format, &t, NULL) != BASALT_OK)
        return false;
    if (t.id == BASALT_ARROW_TYPE_NULL)
        return true;
    bool va = valid_at(a, i), vb = valid_at(b, j);
    if (va != vb)
        return false;
    if (!va)
        return true;
    switch (t.id) {
    case BASALT_ARROW_TYPE_BOOL:
        return basalt_bitmap_get(a->buffers[1], a->offset + i) ==
               basalt_bitmap_get(b->buffers[1], b->offset + j);
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_BINARY:
    case BASALT_ARROW_TYPE_LARGE_STRING:
    case BASALT_ARROW_TYPE_LARGE_BINARY: {
        bool large = t.id == BASALT_ARROW_TYPE_LARGE_STRING || t.id == BASALT_ARROW_TYPE_LARGE_BINARY;
        int64_t a0 = off_at(a, large, i), a1 = off_at(a, large, i + 1);
        int64_t b0 = off_at(b, large, j), b1 = off_at(b, large, j + 1);
        return a1 - a0 == b1 - b0 &&
               memcmp(at_buf(a, 2) + a0, at_buf(b, 2) + b0, (size_t)(a1 - a0)) == 0;
    }
    case BASALT_ARROW_TYPE_LIST:
    case BASALT_ARROW_TYPE_LARGE_LIST:
    case BASALT_ARROW_TYPE_MAP: {
        bool large = t.id == BASALT_ARROW_TYPE_LARGE_LIST;
        int64_t a0 = off_at(a, large, i), a1 = off_at(a, large, i + 1);
        int64_t b0 = off_at(b, large, j), b1 = off_at(b, large, j + 1);
        if (a1 - a0 != b1 - b0)
            return false;
        for (int64_t k = 0; k < a1 - a0; k++)
            if (!same(s->children[0], a->children[0], a0 + k, b->children[0], b0 + k))
                return false;
        return true;
    }
    case BASALT_ARROW_TYPE_FIXED_SIZE_LIST:
        for (int64_t k = 0; k < t.fixed_size; k++)
            if (!same(s->children[0], a->children[0], (a->offset + i) * t.fixed_size + k,
                      b->children[0], (b->offset + j) * t.fixed_size + k))
                return false;
        return true;
    case BASALT_ARROW_TYPE_STRUCT:
        for (int64_t k = 0; k < s->n_children; k++)
            if (!same(s->children[k], a->children[k], a->offset + i, b->children[k], b->offset + j))
                return false;
        return true;
    default: {
        size_t w = (size_t)t.bit_width / 8;
        return memcmp(at_buf(a, 1) + (size_t)(a->offset + i) * w,
                      at_buf(b, 1) + (size_t)(b->offset + j) * w, w) == 0;
    }
    }
}

static int64_t *iota(int64_t n, int64_t from)
{
    int64_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    for (int64_t i = 0; i < n; i++)
        v[i] = from + i;
    return v;
}

TEST(arrow_take_every_type_matches_builders)
{
    const int64_t N = 97;
    int64_t *all = iota(N, 0);
    struct ArrowSchema s, es;
    struct ArrowArray a, e, out;
    struct basalt_error err;
    CHECK_OK(build(all, N, &s, &a), NULL);
    CHECK_OK(basalt_arrow_array_validate(&s, &a, BASALT_ARROW_VALIDATE_FULL, &err), &err);
    /* Reversed, repeated and skipping rows. */
    int64_t idx[200];
    int64_t n = 0;
    for (int64_t i = N - 1; i >= 0; i -= 3)
        idx[n++] = i;
    for (int64_t i = 0; i < 40; i++)
        idx[n++] = (i * 17) % N;
    CHECK_OK(basalt_arrow_take(&s, &a, idx, n, &out, &err), &err);
    CHECK_OK(basalt_arrow_array_validate(&s, &out, BASALT_ARROW_VALIDATE_FULL, &err), &err);
    CHECK_OK(build(idx, n, &es, &e), NULL);
    CHECK_EQ(out.length, n);
    for (int64_t k = 0; k < n; k++)
        CHECK_MSG(same(&s, &out, k, &e, k), "row %lld (source row %lld) differs", (long long)k,
                  (long long)idx[k]);
    /* The struct column's nulls were gathered (row 3 is null, row 4 is not). */
    int64_t probe[2] = {3, 4};
    struct ArrowArray two;
    CHECK_OK(basalt_arrow_take(&s, &a, probe, 2, &two, &err), &err);
    CHECK_EQ(two.children[C_STRUCT]->null_count, 1);
    CHECK(!basalt_bitmap_get(two.children[C_STRUCT]->buffers[0], 0));
    /* A column without nulls among the rows gets no bitmap. */
    CHECK(two.children[C_I32]->buffers[0] == NULL);
    CHECK_EQ(two.children[C_NULL]->null_count, 2);
    basalt_arrow_array_release(&two);
    at_release(&es, &e);
    basalt_arrow_array_release(&out);
    at_release(&s, &a);
    free(all);
}

TEST(arrow_take_from_a_slice)
{
    const int64_t N = 60;
    int64_t *all = iota(N, 0);
    struct ArrowSchema s, es;
    struct ArrowArray a, e, out;
    struct basalt_error err;
    CHECK_OK(build(all, N, &s, &a), NULL);
    /* The root struct viewed from row 11: its offset applies to every column. */
    struct ArrowArray view = a;
    view.offset = 11;
    view.length = N - 11;
    int64_t idx[] = {0, 5, 5, 48, 1, 30};
    CHECK_OK(basalt_arrow_take(&s, &view, idx, 6, &out, &err), &err);
    int64_t rows[6];
    for (int k = 0; k < 6; k++)
        rows[k] = idx[k] + 11;
    CHECK_OK(build(rows, 6, &es, &e), NULL);
    for (int64_t k = 0; k < 6; k++)
        CHECK_MSG(same(&s, &out, k, &e, k), "row %lld differs", (long long)k);
    basalt_arrow_array_release(&out);
    /* Out of range, relative to the slice. */
    int64_t bad = N - 11;
    CHECK_STATUS(basalt_arrow_take(&s, &view, &bad, 1, &out, &err), BASALT_INVALID_ARG, &err);
    CHECK(out.release == NULL);
    bad = -1;
    CHECK_STATUS(basalt_arrow_take(&s, &view, &bad, 1, &out, &err), BASALT_INVALID_ARG, &err);
    /* No rows. */
    CHECK_OK(basalt_arrow_take(&s, &a, NULL, 0, &out, &err), &err);
    CHECK_EQ(out.length, 0);
    CHECK_OK(basalt_arrow_array_validate(&s, &out, BASALT_ARROW_VALIDATE_FULL, &err), &err);
    basalt_arrow_array_release(&out);
    at_release(&es, &e);
    at_release(&s, &a);
    free(all);
}

/* Dictionary arrays: the indices gathered (NULLs kept), the dictionary
 * copied whole, so the result decodes to the chosen rows' values and owns
 * nothing of the source; sources with two dictionaries are refused. */
TEST(arrow_take_dictionaries_and_bad_offsets)
{
    struct basalt_arrow_builder *b, *d;
    struct ArrowSchema s;
    struct ArrowArray a, out;
    struct basalt_error err;
    static const char *words[] = {"x", "a longer dictionary value", ""};
    CHECK_OK(basalt_arrow_builder_new("i", "d", ARROW_FLAG_NULLABLE, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_dictionary(b, "u", &d, &err), &err);
    for (int i = 0; i < 3; i++)
        CHECK_OK(basalt_arrow_builder_append_string(d, words[i], &err), &err);
    static const int rows[] = {2, 0, -1, 1, 1, 0};
    for (int i = 0; i < 6; i++)
        CHECK_OK(rows[i] < 0 ? basalt_arrow_builder_append_null(b, &err)
                             : basalt_arrow_builder_append_int(b, rows[i], &err),
                 &err);
    CHECK_OK(basalt_arrow_builder_finish(b, &s, &a, &err), &err);
    int64_t pick[] = {3, 2, 0, 0, 5};
    CHECK_OK(basalt_arrow_take(&s, &a, pick, 5, &out, &err), &err);
    CHECK(out.dictionary != NULL && out.dictionary != a.dictionary);
    CHECK_OK(basalt_arrow_array_validate(&s, &out, BASALT_ARROW_VALIDATE_FULL, &err), &err);
    struct ArrowArray plain;
    CHECK_OK(basalt_arrow_dictionary_decode(&s, &out, &plain, &err), &err);
    CHECK_EQ(plain.length, 5);
    const int32_t *off = plain.buffers[1];
    const char *data = plain.buffers[2];
    for (int k = 0; k < 5; k++) {
        int r = rows[pick[k]];
        bool valid = !plain.buffers[0] || basalt_bitmap_get(plain.buffers[0], k);
        CHECK_EQ(valid, r >= 0);
        if (r >= 0)
            CHECK_MSG((size_t)(off[k + 1] - off[k]) == strlen(words[r]) &&
                          memcmp(data + off[k], words[r], strlen(words[r])) == 0,
                      "row %d: not '%s'", k, words[r]);
    }
    basalt_arrow_array_release(&plain);
    basalt_arrow_array_release(&out);
    /* two arrays, two dictionaries */
    struct ArrowArray two[2] = {a, a}, other;
    CHECK_OK(basalt_arrow_array_view(&a, &other, &err), &err);
    two[1] = other;
    int32_t src[] = {0, 1};
    int64_t idx[] = {0, 1};
    CHECK_STATUS(basalt_arrow_take_many(&s, two, 2, src, idx, 2, &out, &err), BASALT_UNSUPPORTED,
                 &err);
    CHECK(out.release == NULL);
    basalt_arrow_array_release(&other);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);

    /* A list whose offsets run backwards. */
    CHECK_OK(basalt_arrow_builder_new("+l", "l", 0, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "i", "item", 0, &d, &err), &err);
    for (int r = 0; r < 3; r++) {
        CHECK_OK(basalt_arrow_builder_append_int(d, r, &err), &err);
        CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    }
    CHECK_OK(basalt_arrow_builder_finish(b, &s, &a, &err), &err);
    int32_t *offsets = at_mut(a.buffers[1]);
    offsets[1] = 3;
    int64_t one = 1;
    CHECK_STATUS(basalt_arrow_take(&s, &a, &one, 1, &out, &err), BASALT_CORRUPT, &err);
    CHECK(out.release == NULL);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

static const struct ArrowSchema *g_schema;
static const struct ArrowArray *g_array;

static basalt_status take_only_attempt(void *ctx)
{
    (void)ctx;
    int64_t idx[] = {39, 0, 7, 7, 12, 25, 3};
    struct ArrowArray out;
    basalt_status st = basalt_arrow_take(g_schema, g_array, idx, 7, &out, NULL);
    if (st == BASALT_OK) {
        if (out.length != 7)
            st = BASALT_INTERNAL;
        basalt_arrow_array_release(&out);
    } else if (out.release != NULL) {
        st = BASALT_INTERNAL;
    }
    return st;
}

TEST(arrow_take_alloc_failures)
{
    int64_t rows[40];
    for (int i = 0; i < 40; i++)
        rows[i] = i;
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(build(rows, 40, &s, &a), NULL);
    g_schema = &s;
    g_array = &a;
    CHECK_ALLOC_SWEEP(take_only_attempt, NULL);
    at_release(&s, &a);
}

TEST(arrow_take_nan_bits_and_floats_copied_exactly)
{
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    struct ArrowArray a, out;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("g", "x", ARROW_FLAG_NULLABLE, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_double(b, NAN, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_double(b, -0.0, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_finish(b, &s, &a, &err), &err);
    int64_t idx[] = {2, 1, 0};
    CHECK_OK(basalt_arrow_take(&s, &a, idx, 3, &out, &err), &err);
    const double *v = out.buffers[1];
    CHECK(isnan(v[2]));
    CHECK(v[1] == 0.0 && signbit(v[1]));
    CHECK_EQ(out.null_count, 1);
    CHECK(!basalt_bitmap_get(out.buffers[0], 0));
    basalt_arrow_array_release(&out);
    at_release(&s, &a);
    basalt_arrow_builder_free(b);
}

TEST(arrow_take_many_gathers_across_batches)
{
    /* Three batches of rows 0..39, 40..69 (viewed from its row 5) and
     * 70..99; a permutation across them must equal a batch built from the
     * same source rows. */
    struct ArrowSchema s[3], es;
    struct ArrowArray a[3], e, out;
    struct basalt_error err;
    int64_t *r0 = iota(40, 0), *r1 = iota(30, 40), *r2 = iota(30, 70);
    CHECK_OK(build(r0, 40, &s[0], &a[0]), NULL);
    CHECK_OK(build(r1, 30, &s[1], &a[1]), NULL);
    CHECK_OK(build(r2, 30, &s[2], &a[2]), NULL);
    struct ArrowArray batches[3] = {a[0], a[1], a[2]};
    batches[1].offset = 5;
    batches[1].length = 25;
    int32_t src[120];
    int64_t idx[120], rows[120];
    int64_t n = 0;
    for (int64_t k = 0; k < 120; k++) {
        int32_t b = (int32_t)((k * 7) % 3);
        int64_t len = batches[b].length;
        int64_t i = (k * 13) % len;
        src[n] = b;
        idx[n] = i;
        rows[n++] = b == 0 ? i : b == 1 ? 45 + i : 70 + i;
    }
    CHECK_OK(basalt_arrow_take_many(&s[0], batches, 3, src, idx, n, &out, &err), &err);
    CHECK_OK(basalt_arrow_array_validate(&s[0], &out, BASALT_ARROW_VALIDATE_FULL, &err), &err);
    CHECK_OK(build(rows, n, &es, &e), NULL);
    CHECK_EQ(out.length, n);
    for (int64_t k = 0; k < n; k++)
        CHECK_MSG(same(&s[0], &out, k, &e, k), "row %lld (batch %d row %lld) differs",
                  (long long)k, (int)src[k], (long long)idx[k]);
    basalt_arrow_array_release(&out);
    /* A source out of range and a row past its batch. */
    int32_t bad_src = 3;
    int64_t zero = 0, past = 25;
    CHECK_STATUS(basalt_arrow_take_many(&s[0], batches, 3, &bad_src, &zero, 1, &out, &err),
                 BASALT_INVALID_ARG, &err);
    int32_t one = 1;
    CHECK_STATUS(basalt_arrow_take_many(&s[0], batches, 3, &one, &past, 1, &out, &err),
                 BASALT_INVALID_ARG, &err);
    CHECK(out.release == NULL);
    at_release(&es, &e);
    for (int i = 0; i < 3; i++)
        at_release(&s[i], &a[i]);
    free(r0);
    free(r1);
    free(r2);
}
