/* Streams: batches out through the C Stream Interface and collected back. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arrow_test_util.h"
#include "test.h"

static basalt_status batch_of(int64_t first, int64_t n, struct ArrowSchema *s, struct ArrowArray *a)
{
    struct basalt_arrow_builder *b;
    basalt_status st = basalt_arrow_builder_new("l", "v", ARROW_FLAG_NULLABLE, &b, NULL);
    for (int64_t i = 0; st == BASALT_OK && i < n; i++)
        st = basalt_arrow_builder_append_int(b, first + i, NULL);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(b, s, a, NULL);
    basalt_arrow_builder_free(b);
    return st;
}

TEST(arrow_stream_round_trip)
{
    struct basalt_arrow_batches in, out;
    basalt_arrow_batches_init(&in);
    for (int i = 0; i < 20; i++) { /* enough to grow the list past its first capacity */
        struct ArrowSchema s;
        struct ArrowArray a;
        CHECK_OK(batch_of(i * 100, i + 1, &s, &a), NULL);
        if (i == 0)
            basalt_arrow_schema_move(&s, &in.schema);
        else
            s.release(&s);
        CHECK_OK(basalt_arrow_batches_append(&in, &a, NULL), NULL);
        CHECK(a.release == NULL);
    }
    CHECK_EQ(in.n, 20);
    struct ArrowArrayStream stream;
    CHECK_OK(basalt_arrow_stream_from_batches(&in, &stream, NULL), NULL);
    CHECK_EQ(in.n, 0);
    CHECK(in.schema.release == NULL);

    /* get_schema may be called more than once. */
    struct ArrowSchema s1;
    CHECK_EQ(stream.get_schema(&stream, &s1), 0);
    CHECK_STR(s1.format, "l");
    s1.release(&s1);
    CHECK(stream.get_last_error(&stream) == NULL);

    basalt_arrow_batches_init(&out);
    CHECK_OK(basalt_arrow_stream_collect(&stream, &out, NULL), NULL);
    CHECK(stream.release == NULL);
    CHECK_EQ(out.n, 20);
    CHECK_STR(out.schema.format, "l");
    CHECK_STR(out.schema.name, "v");
    for (int i = 0; i < 20; i++) {
        const struct ArrowArray *a = &out.arrays[i];
        CHECK_EQ(a->length, i + 1);
        CHECK_OK(basalt_arrow_array_validate(&out.schema, a, BASALT_ARROW_VALIDATE_FULL, NULL),
                 NULL);
        int64_t last;
        memcpy(&last, at_buf(a, 1) + 8 * i, 8);
        CHECK_EQ(last, i * 100 + i);
    }
    basalt_arrow_batches_reset(&out);
    CHECK_EQ(out.n, 0);
}

TEST(arrow_stream_end_and_partial_release)
{
    struct basalt_arrow_batches in;
    basalt_arrow_batches_init(&in);
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(batch_of(0, 3, &in.schema, &a), NULL);
    CHECK_OK(basalt_arrow_batches_append(&in, &a, NULL), NULL);
    CHECK_OK(batch_of(3, 3, &s, &a), NULL);
    s.release(&s);
    CHECK_OK(basalt_arrow_batches_append(&in, &a, NULL), NULL);
    struct ArrowArrayStream stream, moved;
    CHECK_OK(basalt_arrow_stream_from_batches(&in, &stream, NULL), NULL);
    basalt_arrow_stream_move(&stream, &moved);
    CHECK(stream.release == NULL);
    /* Take one batch, then release the stream with one still inside. */
    CHECK_EQ(moved.get_next(&moved, &a), 0);
    CHECK(a.release != NULL);
    CHECK_EQ(a.length, 3);
    moved.release(&moved);
    CHECK(moved.release == NULL);
    /* The batch taken out outlives the stream. */
    int64_t first;
    memcpy(&first, at_buf(&a, 1), 8);
    CHECK_EQ(first, 0);
    a.release(&a);
    basalt_arrow_stream_release(&moved); /* released: no-op */

    /* An empty stream ends at once. */
    basalt_arrow_batches_init(&in);
    CHECK_OK(basalt_arrow_schema_init(&in.schema, "u", NULL, 0, 0, NULL), NULL);
    CHECK_OK(basalt_arrow_stream_from_batches(&in, &stream, NULL), NULL);
    CHECK_EQ(stream.get_next(&stream, &a), 0);
    CHECK(a.release == NULL);
    stream.release(&stream);

    /* No schema: refused. */
    basalt_arrow_batches_init(&in);
    CHECK_STATUS(basalt_arrow_stream_from_batches(&in, &stream, NULL), BASALT_INVALID_ARG, NULL);
    CHECK(stream.release == NULL);
}

/* A foreign producer that fails on its second batch. */
static int failing_calls;
static int failing_get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out)
{
    (void)st;
    return basalt_arrow_schema_init(out, "l", NULL, 0, 0, NULL) == BASALT_OK ? 0 : ENOMEM;
}
static int failing_get_next(struct ArrowArrayStream *st, struct ArrowArray *out)
{
    (void)st;
    if (failing_calls++ == 0) {
        struct ArrowSchema s;
        if (batch_of(0, 2, &s, out) != BASALT_OK)
            return ENOMEM;
        s.release(&s);
        return 0;
    }
    return EIO;
}
static const char *failing_last_error(struct ArrowArrayStream *st)
{
    (void)st;
    return "disk on fire";
}
static int failing_released;
static void failing_release(struct ArrowArrayStream *st)
{
    failing_released++;
    st->release = NULL;
}

TEST(arrow_stream_collect_producer_error)
{
    struct ArrowArrayStream stream = {failing_get_schema, failing_get_next, failing_last_error,
                                      failing_release, NULL};
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    struct basalt_error err;
    failing_calls = 0;
    failing_released = 0;
    CHECK_STATUS(basalt_arrow_stream_collect(&stream, &out, &err), BASALT_IO, &err);
    CHECK(strstr(err.message, "disk on fire") != NULL);
    CHECK_EQ(failing_released, 1);
    CHECK_EQ(out.n, 1); /* what was read before the error */
    basalt_arrow_batches_reset(&out);
    CHECK_STATUS(basalt_arrow_stream_collect(&stream, &out, &err), BASALT_INVALID_ARG, &err);
}

static basalt_status stream_attempt(void *ctx)
{
    (void)ctx;
    struct basalt_arrow_batches in, out;
    basalt_arrow_batches_init(&in);
    basalt_arrow_batches_init(&out);
    basalt_status st = BASALT_OK;
    for (int i = 0; i < 10 && st == BASALT_OK; i++) {
        struct ArrowSchema s;
        struct ArrowArray a;
        st = batch_of(i, 5, &s, &a);
        if (st != BASALT_OK)
            break;
        if (i == 0)
            basalt_arrow_schema_move(&s, &in.schema);
        else
            s.release(&s);
        st = basalt_arrow_batches_append(&in, &a, NULL);
    }
    if (st != BASALT_OK) {
        basalt_arrow_batches_reset(&in);
        return st;
    }
    struct ArrowArrayStream stream;
    st = basalt_arrow_stream_from_batches(&in, &stream, NULL);
    if (st != BASALT_OK)
        return st;
    st = basalt_arrow_stream_collect(&stream, &out, NULL);
    basalt_arrow_batches_reset(&out);
    return st;
}

TEST(arrow_stream_alloc_failures) { CHECK_ALLOC_SWEEP(stream_attempt, NULL); }

/* A struct batch of one string column "s" of `n` rows; `bad` makes its last
 * offset run backwards, as a careless foreign producer might. */
static void string_batch(int64_t n, bool bad, struct ArrowSchema *schema, struct ArrowArray *batch)
{
    struct basalt_arrow_builder *b;
    struct ArrowSchema cs;
    struct ArrowArray ca;
    if (basalt_arrow_builder_new("u", "s", ARROW_FLAG_NULLABLE, &b, NULL) != BASALT_OK)
        abort();
    for (int64_t i = 0; i < n; i++)
        if (basalt_arrow_builder_append_string(b, "abc", NULL) != BASALT_OK)
            abort();
    if (basalt_arrow_builder_finish(b, &cs, &ca, NULL) != BASALT_OK)
        abort();
    basalt_arrow_builder_free(b);
    if (bad)
        ((int32_t *)(uintptr_t)ca.buffers[1])[n] = 1; /* below offsets[n - 1] */
    if (basalt_arrow_schema_init(schema, "+s", "", 0, 1, NULL) != BASALT_OK ||
        basalt_arrow_array_init(batch, 1, 1, NULL) != BASALT_OK)
        abort();
    basalt_arrow_schema_move(&cs, schema->children[0]);
    basalt_arrow_array_move(&ca, batch->children[0]);
    batch->length = n;
}

static void two_batch_stream(bool second_bad, struct ArrowArrayStream *out)
{
    struct basalt_arrow_batches in;
    basalt_arrow_batches_init(&in);
    for (int i = 0; i < 2; i++) {
        struct ArrowSchema s;
        struct ArrowArray a;
        string_batch(4, i == 1 && second_bad, &s, &a);
        if (i == 0)
            basalt_arrow_schema_move(&s, &in.schema);
        else
            s.release(&s);
        if (basalt_arrow_batches_append(&in, &a, NULL) != BASALT_OK)
            abort();
    }
    if (basalt_arrow_stream_from_batches(&in, out, NULL) != BASALT_OK)
        abort();
}

TEST(arrow_stream_import_validates_foreign_batches)
{
    struct ArrowArrayStream foreign, checked;
    struct basalt_error err;
    /* A good stream passes through unchanged. */
    two_batch_stream(false, &foreign);
    CHECK_OK(basalt_arrow_stream_import(&foreign, BASALT_ARROW_VALIDATE_FULL, &checked, &err),
             &err);
    CHECK(foreign.release == NULL);
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    CHECK_OK(basalt_arrow_stream_collect(&checked, &out, &err), &err);
    CHECK_EQ(out.n, 2);
    basalt_arrow_batches_reset(&out);
    /* A bad second batch: the first comes through, the second is refused
     * with a message naming it and the column. */
    two_batch_stream(true, &foreign);
    CHECK_OK(basalt_arrow_stream_import(&foreign, BASALT_ARROW_VALIDATE_FULL, &checked, &err),
             &err);
    struct ArrowArray a;
    CHECK_EQ(checked.get_next(&checked, &a), 0);
    CHECK(a.release != NULL);
    a.release(&a);
    CHECK_EQ(checked.get_next(&checked, &a), EINVAL);
    CHECK(a.release == NULL);
    CHECK(strstr(checked.get_last_error(&checked), "batch 1") != NULL);
    CHECK(strstr(checked.get_last_error(&checked), "'s'") != NULL);
    checked.release(&checked);
}
