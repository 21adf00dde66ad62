/* Reader behaviour the gold files do not show: zero-copy proven by the
 * counters, arrays outliving the reader and its mapping, dictionary deltas
 * and replacements in a stream, and error messages that name the input,
 * the message and the field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/arrow_fb.h"
#include "ipc_internal.h"
#include "test.h"

/* For helpers that return values (CHECK returns from void functions only). */
#define MUST(cond)                                                                  \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond);             \
            abort();                                                                \
        }                                                                           \
    } while (0)

static const char *gold(const char *rel)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/arrow-ipc/integration/%s", BASALT_TEST_DATA_DIR, rel);
    return path;
}

TEST(ipc_mapped_reads_are_zero_copy)
{
    for (int mm = 0; mm < 2; mm++) {
        struct basalt_ipc_read_options o;
        basalt_ipc_read_options_init(&o);
        o.use_mmap = mm;
        struct basalt_ipc_reader *r;
        struct basalt_error err;
        CHECK_OK(basalt_ipc_reader_open_file(gold("cpp-21.0.0/generated_primitive.arrow_file"), &o,
                                             &r, &err),
                 &err);
        struct ArrowArray batches[8];
        int n = 0;
        for (;;) {
            CHECK_OK(basalt_ipc_reader_next(r, &batches[n], &err), &err);
            if (!batches[n].release)
                break;
            n++;
        }
        struct basalt_ipc_read_stats st;
        basalt_ipc_reader_stats(r, &st);
        CHECK(n >= 2);
        if (mm) {
            CHECK(st.buffers_zero_copy > 0);
            CHECK_EQ(st.buffers_copied, 0);
        } else {
            CHECK_EQ(st.buffers_zero_copy, 0);
            CHECK(st.buffers_copied > 0);
        }
        /* The arrays keep the mapping (or the bodies) alive. */
        basalt_ipc_reader_close(r);
        int64_t sum = 0;
        for (int i = 0; i < n; i++) {
            const struct ArrowArray *col = batches[i].children[4]; /* int16_nullable */
            for (int64_t k = 0; k < col->length; k++)
                sum += ((const int16_t *)col->buffers[1])[k];
            basalt_arrow_array_release(&batches[i]);
        }
        CHECK(sum != 0 || n > 0);
    }
}

/* ---------------------------------------------------------- dictionary deltas */

static void utf8_array(struct ArrowArray *a, const char *const *values, int n)
{
    CHECK_OK(basalt_arrow_array_init(a, 3, 0, NULL), NULL);
    int32_t *offs;
    char *data;
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += strlen(values[i]);
    CHECK_OK(basalt_arrow_array_allocate_buffer(a, 1, (size_t)(n + 1) * 4, (void **)&offs, NULL),
             NULL);
    CHECK_OK(basalt_arrow_array_allocate_buffer(a, 2, total, (void **)&data, NULL), NULL);
    offs[0] = 0;
    for (int i = 0; i < n; i++) {
        memcpy(data + offs[i], values[i], strlen(values[i]));
        offs[i + 1] = offs[i] + (int32_t)strlen(values[i]);
    }
    a->length = n;
}

/* A batch of one dictionary-encoded column. */
static void dict_batch(struct ArrowArray *batch, const char *const *dict, int nd,
                       const int32_t *idx, int n)
{
    CHECK_OK(basalt_arrow_array_init(batch, 1, 1, NULL), NULL);
    batch->length = n;
    struct ArrowArray *col = batch->children[0];
    CHECK_OK(basalt_arrow_array_init(col, 2, 0, NULL), NULL);
    int32_t *p;
    CHECK_OK(basalt_arrow_array_allocate_buffer(col, 1, (size_t)n * 4, (void **)&p, NULL), NULL);
    memcpy(p, idx, (size_t)n * 4);
    col->length = n;
    struct ArrowArray d;
    utf8_array(&d, dict, nd);
    CHECK_OK(basalt_arrow_array_set_dictionary(col, &d, NULL), NULL);
}

static void dict_schema(struct ArrowSchema *s)
{
    CHECK_OK(basalt_arrow_schema_init(s, "+s", "", 0, 1, NULL), NULL);
    CHECK_OK(basalt_arrow_schema_init(s->children[0], "i", "d", ARROW_FLAG_NULLABLE, 0, NULL),
             NULL);
    struct ArrowSchema v;
    CHECK_OK(basalt_arrow_schema_init(&v, "u", "", ARROW_FLAG_NULLABLE, 0, NULL), NULL);
    CHECK_OK(basalt_arrow_schema_set_dictionary(s->children[0], &v, NULL), NULL);
}

static uint8_t *write_one(const struct ArrowSchema *s, struct ArrowArray *batch, size_t *len)
{
    struct basalt_output *out;
    struct basalt_ipc_writer *w;
    MUST(BASALT_OK == basalt_output_open_memory("t", &out, NULL));
    MUST(BASALT_OK == basalt_ipc_writer_open(out, s, NULL, &w, NULL));
    MUST(BASALT_OK == basalt_ipc_writer_write(w, batch, NULL));
    MUST(BASALT_OK == basalt_ipc_writer_finish(w, NULL));
    basalt_ipc_writer_free(w);
    MUST(BASALT_OK == basalt_output_commit(out, NULL));
    uint8_t *bytes = basalt_output_memory_take(out, len);
    basalt_output_close(out);
    basalt_arrow_array_release(batch);
    return bytes;
}

/* Splits a stream into messages: *n entries of (start, size), EOS excluded. */
static int split(const uint8_t *p, size_t len, size_t *start, size_t *size, int cap)
{
    size_t pos = 0;
    int n = 0;
    while (pos + 8 <= len && n < cap) {
        uint32_t ml = basalt_arrow_fb_u32(p + pos + 4);
        if (ml == 0)
            break;
        struct basalt_arrow_fb fb;
        struct basalt_arrow_fb_table msg;
        int64_t body = 0;
        basalt_arrow_fb_init(&fb, p + pos + 8, ml, NULL);
        basalt_arrow_fb_root(&fb, &msg, NULL);
        basalt_arrow_fb_i64(&msg, 3, 0, &body, NULL);
        start[n] = pos;
        size[n] = 8 + ml + (size_t)body;
        pos += size[n++];
    }
    return n;
}

/* Sets DictionaryBatch.isDelta in the dictionary message at p (the writer
 * always writes the field, so there is a byte to flip). */
static void set_delta(uint8_t *p)
{
    uint32_t ml = basalt_arrow_fb_u32(p + 4);
    struct basalt_arrow_fb fb;
    struct basalt_arrow_fb_table msg, dict;
    bool present;
    basalt_arrow_fb_init(&fb, p + 8, ml, NULL);
    basalt_arrow_fb_root(&fb, &msg, NULL);
    basalt_arrow_fb_table_field(&msg, 2, &dict, &present, NULL);
    CHECK(present && dict.vt_size >= 4 + 2 * 3);
    uint16_t off = basalt_arrow_fb_u16(p + 8 + dict.vtable + 4 + 2 * 2);
    CHECK(off != 0);
    p[8 + dict.pos + off] = 1;
}

/* Stream: dictionary [a, b], batch [0, 1]; then the dictionary message of
 * a second stream ([c]) turned into a delta, and a batch [2, 0]. */
static uint8_t *delta_stream(size_t *total, bool delta)
{
    struct ArrowSchema s;
    dict_schema(&s);
    struct ArrowArray b1, b2;
    static const char *const d1[] = {"a", "b"}, *const d2[] = {"c"};
    static const int32_t i1[] = {0, 1}, i2[] = {2, 0};
    dict_batch(&b1, d1, 2, i1, 2);
    dict_batch(&b2, d2, 1, i2, 2);
    size_t l1, l2;
    uint8_t *s1 = write_one(&s, &b1, &l1);
    uint8_t *s2 = write_one(&s, &b2, &l2);
    basalt_arrow_schema_release(&s);
    size_t st1[8], sz1[8], st2[8], sz2[8];
    int n1 = split(s1, l1, st1, sz1, 8), n2 = split(s2, l2, st2, sz2, 8);
    MUST(n1 == 3);
    MUST(n2 == 3);
    uint8_t *out = malloc(l1 + l2);
    size_t pos = 0;
    for (int i = 0; i < 3; i++, pos += sz1[i - 1])
        memcpy(out + pos, s1 + st1[i], sz1[i]);
    memcpy(out + pos, s2 + st2[1], sz2[1]);
    if (delta)
        set_delta(out + pos);
    pos += sz2[1];
    memcpy(out + pos, s2 + st2[2], sz2[2]);
    pos += sz2[2];
    memset(out + pos, 0, 8);
    memset(out + pos, 0xFF, 4);
    pos += 8;
    *total = pos;
    basalt_free(s1);
    basalt_free(s2);
    return out;
}

static void dict_value(const struct ArrowArray *col, int64_t i, char *buf)
{
    int32_t k = ((const int32_t *)col->buffers[1])[i];
    const struct ArrowArray *d = col->dictionary;
    const int32_t *o = d->buffers[1];
    snprintf(buf, 8, "%.*s", o[k + 1] - o[k], (const char *)d->buffers[2] + o[k]);
}

TEST(ipc_dictionary_delta_extends_the_dictionary)
{
    size_t len;
    uint8_t *bytes = delta_stream(&len, true);
    struct basalt_ipc_reader *r;
    struct basalt_error err;
    CHECK_OK(basalt_ipc_reader_open_memory(bytes, len, "delta", NULL, &r, &err), &err);
    struct ArrowArray b;
    char v[8];
    CHECK_OK(basalt_ipc_reader_next(r, &b, &err), &err);
    CHECK_EQ(b.children[0]->dictionary->length, 2);
    dict_value(b.children[0], 1, v);
    CHECK_STR(v, "b");
    basalt_arrow_array_release(&b);
    CHECK_OK(basalt_ipc_reader_next(r, &b, &err), &err);
    CHECK(b.release != NULL);
    if (b.release) {
        CHECK_EQ(b.children[0]->dictionary->length, 3);
        dict_value(b.children[0], 0, v);
        CHECK_STR(v, "c");
        dict_value(b.children[0], 1, v);
        CHECK_STR(v, "a");
        basalt_arrow_array_release(&b);
    }
    struct basalt_ipc_read_stats st;
    basalt_ipc_reader_stats(r, &st);
    CHECK_EQ(st.dictionary_deltas, 1);
    basalt_ipc_reader_close(r);
    free(bytes);
}

TEST(ipc_dictionary_replacement_and_bad_index)
{
    /* The same messages without the delta flag: the second dictionary
     * replaces the first, and index 2 is outside it. */
    size_t len;
    uint8_t *bytes = delta_stream(&len, false);
    struct basalt_ipc_reader *r;
    struct basalt_error err;
    CHECK_OK(basalt_ipc_reader_open_memory(bytes, len, "replace.arrows", NULL, &r, &err), &err);
    struct ArrowArray b;
    CHECK_OK(basalt_ipc_reader_next(r, &b, &err), &err);
    basalt_arrow_array_release(&b);
    CHECK_STATUS(basalt_ipc_reader_next(r, &b, &err), BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "replace.arrows: message 4 (record batch 1): field 'd': "
                              "dictionary index 2") != NULL);
    basalt_ipc_reader_close(r);
    free(bytes);
}

TEST(ipc_truncated_and_lying_inputs_fail_cleanly)
{
    size_t len;
    uint8_t *bytes = bt_read_file(gold("cpp-21.0.0/generated_nested.stream"), &len);
    CHECK(bytes != NULL);
    /* Every prefix: an error or fewer batches, never a crash. */
    for (size_t cut = 0; cut < len; cut += (cut < 600 ? 1 : 61)) {
        struct basalt_ipc_reader *r;
        if (basalt_ipc_reader_open_memory(bytes, cut, "cut", NULL, &r, NULL) != BASALT_OK)
            continue;
        for (;;) {
            struct ArrowArray b;
            basalt_status st = basalt_ipc_reader_next(r, &b, NULL);
            CHECK(st == BASALT_OK || st == BASALT_CORRUPT);
            if (st != BASALT_OK || !b.release)
                break;
            basalt_arrow_array_release(&b);
        }
        basalt_ipc_reader_close(r);
    }
    /* Each byte flipped: the same. */
    for (size_t i = 0; i < len; i += 3) {
        uint8_t saved = bytes[i];
        bytes[i] ^= 0x5A;
        struct basalt_ipc_reader *r;
        if (basalt_ipc_reader_open_memory(bytes, len, "flip", NULL, &r, NULL) == BASALT_OK) {
            for (int k = 0; k < 100; k++) {
                struct ArrowArray b;
                basalt_status st = basalt_ipc_reader_next(r, &b, NULL);
                CHECK(st == BASALT_OK || st == BASALT_CORRUPT || st == BASALT_LIMIT ||
                      st == BASALT_UNSUPPORTED);
                if (st != BASALT_OK || !b.release)
                    break;
                basalt_arrow_array_release(&b);
            }
            basalt_ipc_reader_close(r);
        }
        bytes[i] = saved;
    }
    basalt_free(bytes);
}
