/* FlightData framing without copies: the pieces basalt_flight_data_pack
 * lists, concatenated, are a FlightData that protobuf-c decodes back to the
 * message's metadata and body; the body pieces are the encoder's (they
 * point into the batch), never copies. */
#include <stdio.h>
#include <string.h>

#include "flight_internal.h"
#include "test.h"

TEST(flight_data_frames_decode_with_protobuf_c)
{
    struct basalt_error err;
    char path[1024];
    snprintf(path, sizeof path, "%s/arrow-ipc/integration/cpp-21.0.0/generated_primitive.arrow_file",
             BASALT_TEST_DATA_DIR);
    struct basalt_ipc_reader *r;
    CHECK_OK(basalt_ipc_reader_open_file(path, NULL, &r, &err), &err);
    struct ArrowSchema schema;
    CHECK_OK(basalt_ipc_reader_schema(r, &schema, &err), &err);
    struct ArrowArray batch;
    CHECK_OK(basalt_ipc_reader_next(r, &batch, &err), &err);
    CHECK(batch.release != NULL);
    struct basalt_ipc_encoder *e;
    CHECK_OK(basalt_ipc_encoder_new(&schema, NULL, &e, &err), &err);
    const struct basalt_ipc_message *msgs;
    size_t n;
    CHECK_OK(basalt_ipc_encoder_batch(e, &batch, &msgs, &n, &err), &err);
    CHECK_EQ((int64_t)n, 1);
    struct flight_frame f;
    memset(&f, 0, sizeof f);
    CHECK_OK(basalt_flight_data_pack(&msgs[0], NULL, &f, &err), &err);
    /* Every body piece of the message is one of the frame's, by address. */
    size_t shared = 0;
    for (size_t i = 0; i < msgs[0].n_body; i++)
        for (size_t k = 0; k < f.n_pieces; k++)
            if (f.pieces[k].data == msgs[0].body[i].data && msgs[0].body[i].len > 0) {
                shared++;
                break;
            }
    size_t nonempty = 0;
    for (size_t i = 0; i < msgs[0].n_body; i++)
        nonempty += msgs[0].body[i].len > 0;
    CHECK_EQ((int64_t)shared, (int64_t)nonempty);
    struct basalt_buffer wire;
    basalt_buffer_init(&wire);
    for (size_t k = 0; k < f.n_pieces; k++)
        basalt_buffer_append(&wire, f.pieces[k].data, f.pieces[k].len, NULL);
    CHECK_EQ((int64_t)wire.size, (int64_t)f.len);
    flight_data_msg *fd = basalt_flight_wire__flight_data__unpack(NULL, wire.size, wire.data);
    CHECK(fd != NULL);
    CHECK_EQ((int64_t)fd->data_header.len, (int64_t)msgs[0].metadata_len);
    CHECK(memcmp(fd->data_header.data, msgs[0].metadata, msgs[0].metadata_len) == 0);
    CHECK_EQ((int64_t)fd->data_body.len, msgs[0].body_len);
    size_t at = 0;
    for (size_t i = 0; i < msgs[0].n_body; i++) {
        CHECK(memcmp(fd->data_body.data + at, msgs[0].body[i].data, msgs[0].body[i].len) == 0);
        at += msgs[0].body[i].len;
    }
    basalt_flight_wire__flight_data__free_unpacked(fd, NULL);
    basalt_buffer_reset(&wire);
    basalt_flight_frame_reset(&f);
    basalt_ipc_encoder_free(e);
    basalt_arrow_array_release(&batch);
    basalt_arrow_schema_release(&schema);
    basalt_ipc_reader_close(r);
}

/* The wire bytes of a FlightData of the first batch of a corpus file. */
struct framed {
    struct basalt_ipc_reader *r;
    struct ArrowSchema schema;
    struct ArrowArray batch;
    struct basalt_ipc_encoder *e;
    const struct basalt_ipc_message *msgs;
    struct basalt_buffer wire;
};

static void frame_first_batch(struct framed *fr)
{
    struct basalt_error err;
    char path[1024];
    snprintf(path, sizeof path, "%s/arrow-ipc/integration/cpp-21.0.0/generated_primitive.arrow_file",
             BASALT_TEST_DATA_DIR);
    CHECK_OK(basalt_ipc_reader_open_file(path, NULL, &fr->r, &err), &err);
    CHECK_OK(basalt_ipc_reader_schema(fr->r, &fr->schema, &err), &err);
    CHECK_OK(basalt_ipc_reader_next(fr->r, &fr->batch, &err), &err);
    CHECK_OK(basalt_ipc_encoder_new(&fr->schema, NULL, &fr->e, &err), &err);
    size_t n;
    CHECK_OK(basalt_ipc_encoder_batch(fr->e, &fr->batch, &fr->msgs, &n, &err), &err);
    struct flight_frame f;
    memset(&f, 0, sizeof f);
    CHECK_OK(basalt_flight_data_pack(&fr->msgs[0], NULL, &f, &err), &err);
    basalt_buffer_init(&fr->wire);
    for (size_t k = 0; k < f.n_pieces; k++)
        basalt_buffer_append(&fr->wire, f.pieces[k].data, f.pieces[k].len, NULL);
    basalt_flight_frame_reset(&f);
}

static void framed_free(struct framed *fr)
{
    basalt_buffer_reset(&fr->wire);
    basalt_ipc_encoder_free(fr->e);
    basalt_arrow_array_release(&fr->batch);
    basalt_arrow_schema_release(&fr->schema);
    basalt_ipc_reader_close(fr->r);
}

static bool body_matches(const struct basalt_ipc_message *m, const uint8_t *body, size_t len)
{
    if ((int64_t)len != m->body_len)
        return false;
    size_t at = 0;
    for (size_t i = 0; i < m->n_body; i++) {
        if (memcmp(body + at, m->body[i].data, m->body[i].len) != 0)
            return false;
        at += m->body[i].len;
    }
    return true;
}

static void free_nothing(void *ctx)
{
    (void)ctx;
}

/* Received with the body placed where basalt_flight_data_place says, a
 * FlightData's body is used where it lies: the view points into the
 * message and the IPC reader takes every buffer without a copy. */
TEST(flight_data_view_reads_the_body_in_place)
{
    struct framed fr;
    frame_first_batch(&fr);
    const uint8_t *w = fr.wire.data;
    size_t len = fr.wire.size;
    /* The placement needs the bytes up to the body's length, no more. */
    size_t start = basalt_flight_data_place(w, len, len);
    CHECK(start != GRPC_PLACE_MORE && start > fr.msgs[0].metadata_len);
    CHECK_EQ((int64_t)basalt_flight_data_place(w, start - 1, len), (int64_t)GRPC_PLACE_MORE);
    CHECK_EQ((int64_t)basalt_flight_data_place(w, start, len), (int64_t)start);
    CHECK_EQ((int64_t)basalt_flight_data_place(w, 0, len), (int64_t)GRPC_PLACE_MORE);

    /* The message as the transport places it: its body 64-byte aligned. */
    uint8_t *block = basalt_aligned_alloc(64, len + 128);
    uint8_t *msg = block + (64 - start % 64) % 64;
    memcpy(msg, w, len);
    CHECK((uintptr_t)(msg + start) % 64 == 0);
    struct basalt_error err;
    flight_data_msg *fd;
    const uint8_t *body;
    size_t body_len;
    CHECK_OK(basalt_flight_data_view(msg, len, &fd, &body, &body_len, &err), &err);
    CHECK(body == msg + start);
    CHECK(body_matches(&fr.msgs[0], body, body_len));
    CHECK_EQ((int64_t)fd->data_header.len, (int64_t)fr.msgs[0].metadata_len);
    CHECK_EQ((int64_t)fd->data_body.len, 0); /* protobuf-c never saw the body */

    struct basalt_ipc_reader *pr;
    CHECK_OK(basalt_ipc_reader_new_messages("test", NULL, &pr, &err), &err);
    struct basalt_ipc_message schema_msg;
    basalt_ipc_encoder_schema(fr.e, &schema_msg);
    struct ArrowArray out;
    CHECK_OK(basalt_ipc_reader_push_message(pr, schema_msg.metadata,
                                            schema_msg.metadata_len, NULL, 0, free_nothing,
                                            NULL, &out, &err),
             &err);
    CHECK_OK(basalt_ipc_reader_push_message(pr, fd->data_header.data, fd->data_header.len, body,
                                            body_len, free_nothing, NULL, &out, &err),
             &err);
    CHECK(out.release != NULL);
    CHECK_EQ(out.length, fr.batch.length);
    struct basalt_ipc_read_stats stats;
    basalt_ipc_reader_stats(pr, &stats);
    CHECK(stats.buffers_zero_copy > 0);
    CHECK_EQ(stats.buffers_copied, 0);
    basalt_arrow_array_release(&out);
    basalt_ipc_reader_close(pr);
    protobuf_c_message_free_unpacked(&fd->base, NULL);
    basalt_free(block);
    framed_free(&fr);
}

/* Messages of other shapes read as protobuf-c reads them: fields after the
 * body (the body still in place), a body given twice (the last wins, as in
 * protobuf), no body, and bytes that do not decode. */
TEST(flight_data_view_other_shapes)
{
    struct framed fr;
    frame_first_batch(&fr);
    struct basalt_error err;
    flight_data_msg *fd;
    const uint8_t *body;
    size_t body_len;

    /* The body, then app_metadata: a merge of two messages. */
    flight_data_msg extra = BASALT_FLIGHT_WIRE__FLIGHT_DATA__INIT;
    extra.app_metadata.data = (uint8_t *)"after";
    extra.app_metadata.len = 5;
    struct basalt_buffer m;
    basalt_buffer_init(&m);
    basalt_buffer_append(&m, fr.wire.data, fr.wire.size, NULL);
    size_t extra_len = protobuf_c_message_get_packed_size(&extra.base);
    basalt_buffer_resize(&m, fr.wire.size + extra_len, NULL);
    protobuf_c_message_pack(&extra.base, m.data + fr.wire.size);
    CHECK_OK(basalt_flight_data_view(m.data, m.size, &fd, &body, &body_len, &err), &err);
    CHECK(body > m.data && body < m.data + m.size);
    CHECK(body_matches(&fr.msgs[0], body, body_len));
    CHECK_EQ((int64_t)fd->app_metadata.len, 5);
    CHECK(memcmp(fd->app_metadata.data, "after", 5) == 0);
    CHECK_EQ((int64_t)fd->data_header.len, (int64_t)fr.msgs[0].metadata_len);
    protobuf_c_message_free_unpacked(&fd->base, NULL);

    /* Twice the body: the second one counts. */
    flight_data_msg second = BASALT_FLIGHT_WIRE__FLIGHT_DATA__INIT;
    second.data_body.data = (uint8_t *)"xyz";
    second.data_body.len = 3;
    size_t second_len = protobuf_c_message_get_packed_size(&second.base);
    basalt_buffer_resize(&m, fr.wire.size + second_len, NULL);
    protobuf_c_message_pack(&second.base, m.data + fr.wire.size);
    CHECK_OK(basalt_flight_data_view(m.data, m.size, &fd, &body, &body_len, &err), &err);
    CHECK_EQ((int64_t)body_len, 3);
    CHECK(memcmp(body, "xyz", 3) == 0);
    protobuf_c_message_free_unpacked(&fd->base, NULL);

    /* No body at all (a schema message). */
    flight_data_msg header_only = BASALT_FLIGHT_WIRE__FLIGHT_DATA__INIT;
    header_only.data_header.data = (uint8_t *)"hdr";
    header_only.data_header.len = 3;
    basalt_buffer_resize(&m, protobuf_c_message_get_packed_size(&header_only.base), NULL);
    protobuf_c_message_pack(&header_only.base, m.data);
    CHECK_EQ((int64_t)basalt_flight_data_place(m.data, m.size, m.size), 0);
    CHECK_OK(basalt_flight_data_view(m.data, m.size, &fd, &body, &body_len, &err), &err);
    CHECK_EQ((int64_t)body_len, 0);
    CHECK_EQ((int64_t)fd->data_header.len, 3);
    protobuf_c_message_free_unpacked(&fd->base, NULL);

    /* Cut short inside the body, and a length past the end. */
    CHECK_STATUS(basalt_flight_data_view(fr.wire.data, fr.wire.size - 1, &fd, &body, &body_len,
                                         &err),
                 BASALT_CORRUPT, &err);
    uint8_t bad[] = {0x12, 0x7f, 0x01};
    CHECK_STATUS(basalt_flight_data_view(bad, sizeof bad, &fd, &body, &body_len, &err),
                 BASALT_CORRUPT, &err);
    CHECK_EQ((int64_t)basalt_flight_data_place(bad, sizeof bad, sizeof bad), 0);
    basalt_buffer_reset(&m);
    framed_free(&fr);
}
