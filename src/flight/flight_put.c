/* DoPut: FlightData appended to an Iceberg table. The first message carries
 * the descriptor (the table) and the schema; every record batch is conformed
 * to the table's schema and written by the data writer as it arrives; when
 * the client ends the stream the files are committed as one append. A call
 * that fails or is cancelled deletes the files it wrote. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "flight_internal.h"

struct put_call {
    struct basalt_flight_server *srv;
    struct flight_request req;
    struct basalt_iceberg_table *table;
    struct basalt_ipc_reader *reader;
    struct ArrowSchema in_schema;
    struct basalt_iceberg_data_writer *writer;
    char *data_location;
    char prefix[64];
    int64_t rows;
    bool committed, sent;
    struct basalt_buffer result;
    struct basalt_ipc_piece piece;
};

static void free_unpacked(void *msg)
{
    protobuf_c_message_free_unpacked(msg, NULL);
}

static basalt_status open_writer(struct put_call *c, struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = c->table->metadata;
    const char *path = basalt_iceberg_metadata_property(m, "write.data.path");
    size_t cap = strlen(path ? path : m->location) + 8;
    c->data_location = basalt_malloc(cap);
    if (!c->data_location)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (path)
        snprintf(c->data_location, cap, "%s", path);
    else
        snprintf(c->data_location, cap, "%s/data", m->location);
    char uuid[37];
    basalt_iceberg_uuid4(uuid);
    snprintf(c->prefix, sizeof c->prefix, "00000-flight-%s", uuid);
    struct basalt_iceberg_data_writer_options wo;
    basalt_iceberg_data_writer_options_init(&wo);
    wo.schema = basalt_iceberg_metadata_current_schema(m);
    wo.spec = basalt_iceberg_metadata_spec(m, m->default_spec_id);
    wo.properties = m->properties;
    wo.n_properties = m->n_properties;
    wo.data_location = c->data_location;
    wo.file_prefix = c->prefix;
    wo.io = c->table->io;
    wo.sort_order_id = m->default_sort_order_id;
    return basalt_iceberg_data_writer_new(&wo, &c->writer, err);
}

/* The first message: the table, the schema. */
static basalt_status put_start(struct put_call *c, flight_data_msg *fd, struct basalt_error *err)
{
    basalt_status st = basalt_flight_request_from_descriptor(fd->flight_descriptor, &c->req, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "DoPut");
    pthread_mutex_lock(&c->srv->catalog_lock);
    st = basalt_catalog_load_table(c->srv->catalog, c->req.table, &c->table, err);
    pthread_mutex_unlock(&c->srv->catalog_lock);
    if (st == BASALT_OK)
        st = basalt_ipc_reader_new_messages("DoPut", NULL, &c->reader, err);
    if (st == BASALT_OK)
        st = open_writer(c, err);
    return st;
}

static basalt_status put_message(void *vcall, const uint8_t *data, size_t len,
                                 struct basalt_error *err)
{
    struct put_call *c = vcall;
    flight_data_msg *fd = basalt_flight_wire__flight_data__unpack(NULL, len, data);
    if (!fd)
        return basalt_error_set(err, BASALT_INVALID_ARG, "DoPut: a FlightData does not decode");
    basalt_status st = BASALT_OK;
    if (!c->reader)
        st = put_start(c, fd, err);
    if (st != BASALT_OK) {
        free_unpacked(fd);
        return st;
    }
    /* The reader takes the message: arrays point into its body. */
    struct ArrowArray batch;
    st = basalt_ipc_reader_push_message(c->reader, fd->data_header.data, fd->data_header.len,
                                        fd->data_body.data, fd->data_body.len, free_unpacked, fd,
                                        &batch, err);
    if (st == BASALT_OK && !c->in_schema.release)
        st = basalt_ipc_reader_schema(c->reader, &c->in_schema, err);
    if (st != BASALT_OK || !batch.release)
        return st;
    struct ArrowArray conformed;
    const struct basalt_iceberg_schema *schema =
        basalt_iceberg_metadata_current_schema(c->table->metadata);
    int64_t n = batch.length;
    st = basalt_iceberg_conform_batch(schema, &c->in_schema, &batch, &conformed, err);
    if (st == BASALT_OK) {
        st = basalt_iceberg_data_writer_write(c->writer, &conformed, err);
        conformed.release(&conformed);
        c->rows += n;
    }
    return st;
}

static basalt_status put_finish(void *vcall, struct basalt_error *err)
{
    struct put_call *c = vcall;
    if (!c->writer)
        return basalt_error_set(err, BASALT_INVALID_ARG, "DoPut without a descriptor and schema");
    const struct basalt_iceberg_data_file *files = NULL;
    uint32_t n_files = 0;
    int64_t snapshot_id = 0;
    basalt_status st = basalt_iceberg_data_writer_finish(c->writer, &files, &n_files, err);
    if (st == BASALT_OK && n_files > 0) {
        struct basalt_iceberg_committer committer;
        struct basalt_iceberg_append_options ao;
        basalt_iceberg_append_options_init(&ao);
        pthread_mutex_lock(&c->srv->catalog_lock);
        basalt_catalog_committer(c->srv->catalog, &committer);
        st = basalt_iceberg_append(&committer, c->req.table, files, n_files, &ao, NULL,
                                   &snapshot_id, err);
        pthread_mutex_unlock(&c->srv->catalog_lock);
    }
    if (st != BASALT_OK) {
        /* Unless the outcome is unknown, the files written are nobody's. */
        if (st != BASALT_UNKNOWN_OUTCOME)
            basalt_iceberg_data_writer_abort(c->writer, NULL);
        c->committed = true; /* nothing left to abort at free */
        return st;
    }
    c->committed = true;
    char text[160];
    int len = snprintf(text, sizeof text, "{\"snapshot_id\":%lld,\"rows\":%lld,\"files\":%u}",
                       (long long)(n_files ? snapshot_id : -1), (long long)c->rows, n_files);
    BasaltFlightWire__PutResult pr = BASALT_FLIGHT_WIRE__PUT_RESULT__INIT;
    pr.app_metadata.data = (uint8_t *)(uintptr_t)text;
    pr.app_metadata.len = (size_t)len;
    size_t size = basalt_flight_wire__put_result__get_packed_size(&pr);
    st = basalt_buffer_resize(&c->result, size, err);
    if (st == BASALT_OK)
        basalt_flight_wire__put_result__pack(&pr, c->result.data);
    return st;
}

static basalt_status put_next(void *vcall, struct grpc_message_out *out, bool *done,
                              struct basalt_error *err)
{
    (void)err;
    struct put_call *c = vcall;
    if (c->sent) {
        *done = true;
        return BASALT_OK;
    }
    c->sent = true;
    c->piece = (struct basalt_ipc_piece){c->result.data, c->result.size};
    out->pieces = &c->piece;
    out->n_pieces = 1;
    out->len = c->result.size;
    return BASALT_OK;
}

static void put_free(void *vcall)
{
    struct put_call *c = vcall;
    if (c->writer && !c->committed)
        basalt_iceberg_data_writer_abort(c->writer, NULL); /* cancelled or failed mid-way */
    basalt_iceberg_data_writer_free(c->writer);
    if (c->in_schema.release)
        c->in_schema.release(&c->in_schema);
    basalt_ipc_reader_close(c->reader);
    basalt_iceberg_table_free(c->table);
    basalt_flight_request_reset(&c->req);
    basalt_buffer_reset(&c->result);
    basalt_free(c->data_location);
    basalt_free(c);
}

static const struct grpc_call_ops put_ops = {put_message, put_finish, put_next, put_free};

basalt_status basalt_flight_put_begin(struct basalt_flight_server *srv, void **call,
                                      const struct grpc_call_ops **ops, struct basalt_error *err)
{
    struct put_call *c = basalt_calloc(1, sizeof *c);
    if (!c)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    c->srv = srv;
    basalt_buffer_init(&c->result);
    *call = c;
    *ops = &put_ops;
    return BASALT_OK;
}
