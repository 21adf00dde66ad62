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
