/* What a Flight call asks for: descriptors (PATH or CMD JSON) and tickets
 * parsed into requests, the scans they open, and the schema bytes. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "flight_internal.h"

static char *dup_n(const char *s, size_t n)
{
    char *d = basalt_malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

void basalt_flight_request_reset(struct flight_request *r)
{
    basalt_free(r->table);
    for (size_t i = 0; i < r->n_columns; i++)
        basalt_free(r->columns[i]);
    basalt_free(r->columns);
    basalt_free(r->filter);
    basalt_free(r->file);
    memset(r, 0, sizeof *r);
}

/* {"table", "columns", "filter", "snapshot"} and, in tickets, {"file",
 * "start", "length"}. */
static basalt_status request_from_json(const char *what, const uint8_t *text, size_t len,
                                       struct flight_request *r, struct basalt_error *err)
{
    json_error_t je;
    json_t *root = json_loadb((const char *)text, len, 0, &je);
    if (!root || !json_is_object(root)) {
        json_decref(root);
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s is not a JSON object%s%s", what,
                                root ? "" : ": ", root ? "" : je.text);
    }
    basalt_status st = BASALT_OK;
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        if (st != BASALT_OK)
            break;
        if (!strcmp(key, "table") && json_is_string(v)) {
            r->table = dup_n(json_string_value(v), json_string_length(v));
        } else if (!strcmp(key, "filter") && (json_is_string(v) || json_is_null(v))) {
            if (json_is_string(v))
                r->filter = dup_n(json_string_value(v), json_string_length(v));
        } else if (!strcmp(key, "file") && json_is_string(v)) {
            r->file = dup_n(json_string_value(v), json_string_length(v));
            r->has_task = true;
        } else if (!strcmp(key, "snapshot") && json_is_integer(v)) {
            r->has_snapshot = true;
            r->snapshot_id = (int64_t)json_integer_value(v);
        } else if (!strcmp(key, "snapshot") && json_is_null(v)) {
            /* the current snapshot */
        } else if (!strcmp(key, "start") && json_is_integer(v)) {
            r->start = (int64_t)json_integer_value(v);
        } else if (!strcmp(key, "length") && json_is_integer(v)) {
            r->length = (int64_t)json_integer_value(v);
        } else if (!strcmp(key, "columns") && json_is_array(v)) {
            size_t n = json_array_size(v);
            r->columns = basalt_calloc(n ? n : 1, sizeof *r->columns);
            if (!r->columns) {
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
                break;
            }
            for (size_t i = 0; i < n && st == BASALT_OK; i++) {
                json_t *c = json_array_get(v, i);
                if (!json_is_string(c))
                    st = basalt_error_set(err, BASALT_INVALID_ARG, "%s: columns[%zu] is not a "
                                          "string", what, i);
                else if (!(r->columns[r->n_columns++] =
                               dup_n(json_string_value(c), json_string_length(c))))
                    st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
            }
        } else {
            st = basalt_error_set(err, BASALT_INVALID_ARG, "%s: unknown key or wrong type: '%.60s' "
                                  "(table, columns, filter, snapshot)", what, key);
        }
    }
    json_decref(root);
    if (st == BASALT_OK && !r->table)
        st = basalt_error_set(err, BASALT_INVALID_ARG, "%s names no table", what);
    if (st != BASALT_OK)
        basalt_flight_request_reset(r);
    return st;
}

basalt_status basalt_flight_request_from_descriptor(const flight_descriptor_msg *d,
                                                    struct flight_request *out,
                                                    struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    if (!d)
        return basalt_error_set(err, BASALT_INVALID_ARG, "no flight descriptor");
    if (d->type == BASALT_FLIGHT_WIRE__FLIGHT_DESCRIPTOR__DESCRIPTOR_TYPE__CMD)
        return request_from_json("the CMD descriptor", d->cmd.data, d->cmd.len, out, err);
    if (d->type != BASALT_FLIGHT_WIRE__FLIGHT_DESCRIPTOR__DESCRIPTOR_TYPE__PATH)
        return basalt_error_set(err, BASALT_INVALID_ARG, "descriptor type %d (PATH or CMD)",
                                (int)d->type);
    if (d->n_path < 2)
        return basalt_error_set(err, BASALT_INVALID_ARG, "a PATH descriptor names the namespace "
                                "levels then the table: %zu parts", d->n_path);
    size_t len = 0;
    for (size_t i = 0; i < d->n_path; i++) {
        if (!d->path[i][0] || strchr(d->path[i], '.'))
            return basalt_error_set(err, BASALT_INVALID_ARG, "path part %zu is empty or holds a "
                                    "dot", i);
        len += strlen(d->path[i]) + 1;
    }
    out->table = basalt_malloc(len);
    if (!out->table)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    out->table[0] = 0;
    for (size_t i = 0; i < d->n_path; i++) {
        if (i)
            strcat(out->table, ".");
        strcat(out->table, d->path[i]);
    }
    return BASALT_OK;
}

basalt_status basalt_flight_request_from_ticket(const uint8_t *ticket, size_t len,
                                                struct flight_request *out,
                                                struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    basalt_status st = request_from_json("the ticket", ticket, len, out, err);
    if (st == BASALT_OK && out->has_task && (out->start < 0 || out->length < 0)) {
        basalt_flight_request_reset(out);
        st = basalt_error_set(err, BASALT_INVALID_ARG, "the ticket's byte range is negative");
    }
    return st;
}

basalt_status basalt_flight_ticket_make(const struct flight_request *r, int64_t snapshot_id,
                                        const struct basalt_iceberg_file_task *task, char **out,
                                        size_t *len, struct basalt_error *err)
{
    json_t *o = json_object();
    json_t *cols = r->n_columns ? json_array() : NULL;
    for (size_t i = 0; cols && i < r->n_columns; i++)
        json_array_append_new(cols, json_string(r->columns[i]));
    if (o) {
        json_object_set_new(o, "table", json_string(r->table));
        if (snapshot_id >= 0 || snapshot_id < -1)
            json_object_set_new(o, "snapshot", json_integer(snapshot_id));
        if (cols)
            json_object_set_new(o, "columns", cols);
        if (r->filter)
            json_object_set_new(o, "filter", json_string(r->filter));
        if (task) {
            json_object_set_new(o, "file", json_string(task->file->file_path));
            json_object_set_new(o, "start", json_integer(task->start));
            json_object_set_new(o, "length", json_integer(task->length));
        }
    }
    char *text = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(o);
    if (!text)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a ticket");
    *len = strlen(text);
    *out = dup_n(text, *len);
    free(text);
    return *out ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

basalt_status basalt_flight_scan_open(struct basalt_flight_server *srv,
                                      const struct flight_request *r, struct flight_scan *out,
                                      struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    basalt_arena_init(&out->arena, 0);
    out->snapshot_id = -1;
    pthread_mutex_lock(&srv->catalog_lock);
    basalt_status st = basalt_catalog_load_table(srv->catalog, r->table, &out->table, err);
    pthread_mutex_unlock(&srv->catalog_lock);
    struct basalt_iceberg_scan_options so;
    basalt_iceberg_scan_options_init(&so);
    if (srv->o.batch_size > 0)
        so.batch_size = srv->o.batch_size;
    so.columns = (const char *const *)r->columns;
    so.n_columns = r->n_columns;
    if (r->has_snapshot) {
        so.has_snapshot_id = true;
        so.snapshot_id = r->snapshot_id;
    }
    struct basalt_iceberg_expr *filter = NULL;
    if (st == BASALT_OK && r->filter) {
        st = basalt_iceberg_expr_parse(r->filter, &out->arena, &filter, err);
        if (st != BASALT_OK)
            st = BASALT_INVALID_ARG; /* the message names the filter */
        so.filter = filter;
    }
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_new(out->table, &so, &out->scan, err);
    if (st == BASALT_OK) {
        const struct basalt_iceberg_snapshot *snap =
            r->has_snapshot ? basalt_iceberg_metadata_snapshot(out->table->metadata, r->snapshot_id)
                            : basalt_iceberg_metadata_current_snapshot(out->table->metadata);
        out->snapshot_id = snap ? snap->snapshot_id : -1;
    }
    if (st != BASALT_OK) {
        basalt_flight_scan_close(out);
        return basalt_error_context(err, st, "table '%s'", r->table);
    }
    return BASALT_OK;
}

void basalt_flight_scan_close(struct flight_scan *s)
{
    basalt_iceberg_scan_free(s->scan);
    basalt_iceberg_table_free(s->table);
    basalt_arena_reset(&s->arena);
    s->scan = NULL;
    s->table = NULL;
}

basalt_status basalt_flight_schema_bytes(struct basalt_iceberg_scan *scan,
                                         struct basalt_buffer *out, struct basalt_error *err)
{
    struct ArrowSchema schema = {0};
    struct basalt_ipc_encoder *e = NULL;
    basalt_status st = basalt_iceberg_scan_schema(scan, &schema, err);
    if (st == BASALT_OK)
        st = basalt_ipc_encoder_new(&schema, NULL, &e, err);
    if (schema.release)
        schema.release(&schema);
    if (st != BASALT_OK)
        return st;
    struct basalt_ipc_message m;
    basalt_ipc_encoder_schema(e, &m);
    size_t padded = (m.metadata_len + 7) & ~(size_t)7;
    uint8_t head[8] = {0xFF, 0xFF, 0xFF, 0xFF, (uint8_t)padded, (uint8_t)(padded >> 8),
                       (uint8_t)(padded >> 16), (uint8_t)(padded >> 24)};
    static const uint8_t zeros[8];
    out->size = 0;
    st = basalt_buffer_append(out, head, 8, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(out, m.metadata, m.metadata_len, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(out, zeros, padded - m.metadata_len, err);
    basalt_ipc_encoder_free(e);
    return st;
}

basalt_status basalt_flight_schema_parse(const uint8_t *data, size_t len, struct ArrowSchema *out,
                                         struct basalt_error *err)
{
    struct basalt_ipc_reader *r = NULL;
    basalt_status st = basalt_ipc_reader_new_messages("flight schema", NULL, &r, err);
    size_t skip = 0;
    /* The continuation marker is optional (pre-0.15 framing). */
    if (len >= 8 && data[0] == 0xFF && data[1] == 0xFF && data[2] == 0xFF && data[3] == 0xFF)
        skip = 8;
    else if (len >= 4)
        skip = 4;
    else if (st == BASALT_OK)
        st = basalt_error_set(err, BASALT_CORRUPT, "flight: schema of %zu bytes", len);
    struct ArrowArray none;
    if (st == BASALT_OK)
        st = basalt_ipc_reader_push_message(r, data + skip, len - skip, NULL, 0, NULL, NULL, &none,
                                            err);
    if (st == BASALT_OK)
        st = basalt_ipc_reader_schema(r, out, err);
    basalt_ipc_reader_close(r);
    return st;
}

/* ------------------------------------------------------------ FlightData */

/* protobuf-c hands every byte it packs to a ProtobufCBuffer: the tags and
 * lengths from its scratch (copied here), the bytes fields by their own
 * pointers (referenced). The body is given as a stand-in pointer that is
 * replaced by the message's pieces: the only bytes protobuf-c never reads. */
static const uint8_t body_stand_in[1];

struct collector {
    ProtobufCBuffer base;
    struct flight_frame *f;
    const struct basalt_ipc_message *msg;
};

static bool frame_push(struct flight_frame *f, const void *data, size_t len)
{
    if (f->n_pieces == f->cap_pieces) {
        size_t cap = f->cap_pieces ? 2 * f->cap_pieces : 32;
        struct basalt_ipc_piece *p = basalt_realloc(f->pieces, cap * sizeof *p);
        if (!p)
            return false;
        f->pieces = p;
        f->cap_pieces = cap;
    }
    f->pieces[f->n_pieces++] = (struct basalt_ipc_piece){data, len};
    return true;
}

static void collect(ProtobufCBuffer *buffer, size_t len, const uint8_t *data)
{
    struct collector *c = (struct collector *)buffer;
    struct flight_frame *f = c->f;
    if (f->failed || len == 0)
        return;
    if (data == body_stand_in) {
        for (size_t i = 0; i < c->msg->n_body && !f->failed; i++)
            f->failed = !frame_push(f, c->msg->body[i].data, c->msg->body[i].len);
    } else if (data == c->msg->metadata) {
        f->failed = !frame_push(f, data, len);
    } else if (f->scratch_used + len <= sizeof f->scratch) {
        uint8_t *at = f->scratch + f->scratch_used;
        memcpy(at, data, len);
        f->scratch_used += len;
        f->failed = !frame_push(f, at, len);
    } else {
        f->failed = true; /* a descriptor too large for the scratch: not sent here */
    }
    f->len += len;
}

basalt_status basalt_flight_data_pack(const struct basalt_ipc_message *msg,
                                      const flight_descriptor_msg *descriptor,
                                      struct flight_frame *out, struct basalt_error *err)
{
    out->scratch_used = 0;
    out->n_pieces = 0;
    out->len = 0;
    out->failed = false;
    if (descriptor)
        return basalt_error_set(err, BASALT_INTERNAL, "flight: descriptors are not framed here");
    flight_data_msg fd = BASALT_FLIGHT_WIRE__FLIGHT_DATA__INIT;
    fd.data_header.data = (uint8_t *)(uintptr_t)msg->metadata;
    fd.data_header.len = msg->metadata_len;
    if (msg->body_len > 0) {
        fd.data_body.data = (uint8_t *)(uintptr_t)body_stand_in;
        fd.data_body.len = (size_t)msg->body_len;
    }
    struct collector c = {{collect}, out, msg};
    protobuf_c_message_pack_to_buffer(&fd.base, &c.base);
    if (out->failed)
        return basalt_error_set(err, BASALT_NOMEM, "flight: out of memory framing a message");
    return BASALT_OK;
}

void basalt_flight_frame_reset(struct flight_frame *f)
{
    basalt_free(f->pieces);
    memset(f, 0, sizeof *f);
}
