/* The message encoder and the pushed-message reader (what Arrow Flight
 * frames and unframes): the encoder's messages are byte for byte the
 * writer's stream, its body pieces point into the batch's own buffers
 * (zero copy, proven by address), and a reader fed those messages one at a
 * time gives back batches that re-encode to the same bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc_internal.h"
#include "test.h"

static const char *gold(const char *rel)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/arrow-ipc/integration/%s", BASALT_TEST_DATA_DIR, rel);
    return path;
}

/* The stream the regular writer makes of `batches` (caller frees). */
static uint8_t *writer_bytes(const struct ArrowSchema *schema, struct ArrowArray *batches, int n,
                             const struct basalt_ipc_write_options *o, size_t *len)
{
    struct basalt_error err;
    struct basalt_output *out;
    struct basalt_ipc_writer *w;
    if (basalt_output_open_memory("mem", &out, &err) != BASALT_OK ||
        basalt_ipc_writer_open(out, schema, o, &w, &err) != BASALT_OK)
        abort();
    for (int i = 0; i < n; i++)
        if (basalt_ipc_writer_write(w, &batches[i], &err) != BASALT_OK)
            abort();
    if (basalt_ipc_writer_finish(w, &err) != BASALT_OK || basalt_output_commit(out, &err) != BASALT_OK)
        abort();
    basalt_ipc_writer_free(w);
    uint8_t *bytes = basalt_output_memory_take(out, len);
    basalt_output_close(out);
    return bytes;
}

/* Appends one encoded message as the stream format frames it. */
static void frame(struct basalt_buffer *b, const struct basalt_ipc_message *m, int alignment)
{
    static const uint8_t zeros[64];
    size_t pos = b->size + 8 + m->metadata_len;
    size_t padded = m->metadata_len + (alignment - pos % alignment) % alignment;
    uint8_t head[8] = {0xFF, 0xFF, 0xFF, 0xFF, (uint8_t)padded, (uint8_t)(padded >> 8),
                       (uint8_t)(padded >> 16), (uint8_t)(padded >> 24)};
    basalt_buffer_append(b, head, 8, NULL);
    basalt_buffer_append(b, m->metadata, m->metadata_len, NULL);
    basalt_buffer_append(b, zeros, padded - m->metadata_len, NULL);
    int64_t body = 0;
    for (size_t i = 0; i < m->n_body; i++) {
        basalt_buffer_append(b, m->body[i].data, m->body[i].len, NULL);
        body += (int64_t)m->body[i].len;
    }
    if (body != m->body_len)
        abort();
}

static bool points_into(const void *p, const struct ArrowArray *a)
{
    for (int64_t i = 0; i < a->n_buffers; i++)
        if (a->buffers[i] && p == a->buffers[i])
            return true;
    for (int64_t i = 0; i < a->n_children; i++)
        if (points_into(p, a->children[i]))
            return true;
    return a->dictionary && points_into(p, a->dictionary);
}

static void roundtrip(const char *file, enum basalt_codec_kind codec, bool expect_refs)
{
    struct basalt_error err;
    struct basalt_ipc_reader *r;
    CHECK_OK(basalt_ipc_reader_open_file(gold(file), NULL, &r, &err), &err);
    struct ArrowSchema schema;
    CHECK_OK(basalt_ipc_reader_schema(r, &schema, &err), &err);
    struct ArrowArray batches[16];
    int n = 0;
    for (; n < 16; n++) {
        CHECK_OK(basalt_ipc_reader_next(r, &batches[n], &err), &err);
        if (!batches[n].release)
            break;
    }
    basalt_ipc_reader_close(r);
    struct basalt_ipc_write_options o;
    basalt_ipc_write_options_init(&o);
    o.compression = codec;
    size_t want_len;
    uint8_t *want = writer_bytes(&schema, batches, n, &o, &want_len);

    /* Encoded and framed: the writer's bytes exactly. */
    struct basalt_ipc_encoder *e;
    CHECK_OK(basalt_ipc_encoder_new(&schema, &o, &e, &err), &err);
    struct basalt_buffer got;
    basalt_buffer_init(&got);
    struct basalt_ipc_message sm;
    basalt_ipc_encoder_schema(e, &sm);
    frame(&got, &sm, 8); /* as the writer frames its schema: padded to 8 */
    struct basalt_ipc_reader *pr;
    CHECK_OK(basalt_ipc_reader_new_messages("pushed", NULL, &pr, &err), &err);
    struct ArrowArray none;
    CHECK_OK(basalt_ipc_reader_push_message(pr, sm.metadata, sm.metadata_len, NULL, 0, NULL, NULL,
                                            &none, &err),
             &err);
    CHECK(none.release == NULL);
    struct ArrowArray back[16];
    int n_back = 0, refs = 0;
    for (int i = 0; i < n; i++) {
        const struct basalt_ipc_message *msgs;
        size_t nm;
        CHECK_OK(basalt_ipc_encoder_batch(e, &batches[i], &msgs, &nm, &err), &err);
        CHECK(nm >= 1);
        for (size_t k = 0; k < nm; k++) {
            frame(&got, &msgs[k], 64);
            for (size_t p = 0; p < msgs[k].n_body; p++)
                refs += points_into(msgs[k].body[p].data, &batches[i]);
            /* The pushed reader takes a copy of the body here (the pieces
             * are views valid until the next encoder call). */
            uint8_t *body = basalt_aligned_alloc(64, (size_t)msgs[k].body_len + 64);
            size_t at = 0;
            for (size_t p = 0; p < msgs[k].n_body; p++) {
                memcpy(body + at, msgs[k].body[p].data, msgs[k].body[p].len);
                at += msgs[k].body[p].len;
            }
            struct ArrowArray out;
            CHECK_OK(basalt_ipc_reader_push_message(pr, msgs[k].metadata, msgs[k].metadata_len,
                                                    body, at, basalt_free, body, &out, &err),
                     &err);
            if (out.release)
                basalt_arrow_array_move(&out, &back[n_back++]);
        }
    }
    static const uint8_t eos[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
    basalt_buffer_append(&got, eos, 8, NULL);
    CHECK_EQ((int64_t)got.size, (int64_t)want_len);
    CHECK(memcmp(got.data, want, want_len) == 0);
    if (expect_refs)
        CHECK_MSG(refs > 0, "%s: no body piece points into the batch", file);
    else
        CHECK_EQ(refs, 0);

    /* The pushed reader's batches, written again: the same stream. */
    CHECK_EQ(n_back, n);
    struct basalt_ipc_read_stats stats;
    basalt_ipc_reader_stats(pr, &stats);
    CHECK_EQ(stats.record_batches, n);
    if (codec == BASALT_CODEC_UNCOMPRESSED)
        CHECK(stats.buffers_zero_copy > 0 && stats.buffers_copied == 0);
    basalt_ipc_reader_close(pr);
    size_t again_len;
    uint8_t *again = writer_bytes(&schema, back, n_back, &o, &again_len);
    CHECK_EQ((int64_t)again_len, (int64_t)want_len);
    CHECK(memcmp(again, want, want_len) == 0);
    basalt_free(again);
    for (int i = 0; i < n_back; i++)
        basalt_arrow_array_release(&back[i]);
    basalt_buffer_reset(&got);
    basalt_free(want);
    basalt_ipc_encoder_free(e);
    for (int i = 0; i < n; i++)
        basalt_arrow_array_release(&batches[i]);
    basalt_arrow_schema_release(&schema);
}

TEST(ipc_encoder_messages_are_the_writers_stream_without_copies)
{
    roundtrip("cpp-21.0.0/generated_primitive.arrow_file", BASALT_CODEC_UNCOMPRESSED, true);
    roundtrip("cpp-21.0.0/generated_nested.arrow_file", BASALT_CODEC_UNCOMPRESSED, true);
    roundtrip("cpp-21.0.0/generated_dictionary.arrow_file", BASALT_CODEC_UNCOMPRESSED, true);
    roundtrip("cpp-21.0.0/generated_datetime.arrow_file", BASALT_CODEC_UNCOMPRESSED, true);
    /* Compressed bodies are computed: nothing points into the batch. */
    roundtrip("cpp-21.0.0/generated_primitive.arrow_file", BASALT_CODEC_ZSTD, false);
}

TEST(ipc_pushed_messages_fail_cleanly)
{
    struct basalt_error err;
    struct basalt_ipc_reader *r;
    CHECK_OK(basalt_ipc_reader_new_messages("flight", NULL, &r, &err), &err);
    static const uint8_t junk[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    struct ArrowArray out;
    /* The body is taken on failure too: free_body runs. */
    uint8_t *body = basalt_malloc(16);
    CHECK_STATUS(basalt_ipc_reader_push_message(r, junk, sizeof junk, body, 16, basalt_free, body,
                                                &out, &err),
                 BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "flight: message 0") != NULL);
    CHECK(out.release == NULL);
    basalt_ipc_reader_close(r);
}
