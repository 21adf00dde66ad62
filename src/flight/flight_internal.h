/* Internals of the flight module: the server's state, the calls, the
 * requests (descriptors and tickets) and the FlightData framing shared by
 * server and client. Visible to src/flight only. */
#ifndef BASALT_FLIGHT_INTERNAL_H
#define BASALT_FLIGHT_INTERNAL_H

#include <pthread.h>

#include "basalt/catalog.h"
#include "basalt/flight.h"
#include "basalt/flight_shm.h"
#include "basalt/iceberg.h"
#include "basalt/ipc.h"
#include "flight_wire.pb-c.h"
#include "grpc_internal.h"

typedef BasaltFlightWire__FlightData flight_data_msg;
typedef BasaltFlightWire__FlightDescriptor flight_descriptor_msg;

struct flight_cached_scan;

struct basalt_flight_server {
    struct basalt_catalog *catalog;
    pthread_mutex_t catalog_lock;   /* every catalog call, loads and commits */
    struct basalt_flight_server_options o;
    char *token, *location;         /* owned copies */
    struct grpc_server *grpc;
    /* Planned scans shared between calls (flight_scan_cache.c). */
    pthread_mutex_t scans_lock;
    struct flight_cached_scan *scans;
    uint64_t scans_clock;
    struct basalt_flight_shm_server *shm; /* tickets through shared memory */
    char *shm_socket;
};

/* What a descriptor or a ticket asks for. Strings owned (basalt_free). */
struct flight_request {
    char *table;
    char **columns;
    size_t n_columns;
    char *filter;
    bool has_snapshot;
    int64_t snapshot_id;
    /* Tickets only: the task, by its file and byte range. */
    char *file;
    int64_t start, length;
    bool has_task;
};

void basalt_flight_request_reset(struct flight_request *r);
/* From a FlightDescriptor (PATH or CMD JSON). INVALID_ARG, NOMEM. */
basalt_status basalt_flight_request_from_descriptor(const flight_descriptor_msg *d,
                                                    struct flight_request *out,
                                                    struct basalt_error *err);
/* From a ticket (JSON). INVALID_ARG, NOMEM. */
basalt_status basalt_flight_request_from_ticket(const uint8_t *ticket, size_t len,
                                                struct flight_request *out,
                                                struct basalt_error *err);
/* The ticket of task `task` of a request's scan (JSON, basalt_malloc'd). */
basalt_status basalt_flight_ticket_make(const struct flight_request *r, int64_t snapshot_id,
                                        const struct basalt_iceberg_file_task *task, char **out,
                                        size_t *len, struct basalt_error *err);

/* A table loaded and a scan of it, per request. */
struct flight_scan {
    struct basalt_iceberg_table *table;
    struct basalt_iceberg_scan *scan;
    struct basalt_arena arena;      /* the filter */
    int64_t snapshot_id;            /* -1: the table has no snapshot */
};

/* Loads the request's table (under the catalog lock) and starts its scan.
 * NOT_FOUND, INVALID_ARG, the statuses of load and scan_new. */
basalt_status basalt_flight_scan_open(struct basalt_flight_server *srv,
                                      const struct flight_request *r, struct flight_scan *out,
                                      struct basalt_error *err);
void basalt_flight_scan_close(struct flight_scan *s);

/* A planned scan (tasks prepared) of the request, shared with other calls
 * that ask for the same snapshot, columns and filter; release it when done.
 * Statuses of basalt_flight_scan_open and of planning. */
basalt_status basalt_flight_scan_acquire(struct basalt_flight_server *srv,
                                         const struct flight_request *r,
                                         struct flight_cached_scan **out,
                                         struct basalt_error *err);
const struct flight_scan *basalt_flight_cached_scan(const struct flight_cached_scan *e);
void basalt_flight_scan_release(struct basalt_flight_server *srv, struct flight_cached_scan *e);
/* Frees every cached scan (the server is stopping: no call holds one). */
void basalt_flight_scan_cache_clear(struct basalt_flight_server *srv);

/* The IPC-encapsulated schema message (continuation, length, flatbuffer,
 * padding) of the scan's output schema, as FlightInfo.schema and SchemaResult carry it. */
basalt_status basalt_flight_schema_bytes(struct basalt_iceberg_scan *scan,
                                         struct basalt_buffer *out, struct basalt_error *err);
/* Decodes such bytes. CORRUPT, NOMEM. */
basalt_status basalt_flight_schema_parse(const uint8_t *data, size_t len,
                                         struct ArrowSchema *out, struct basalt_error *err);

/* Packs a FlightData of `msg` (an IPC message) without copying its body:
 * the pieces of `out` reference the message's metadata and body pieces and
 * `scratch` (the protobuf tags and lengths). `out` has room for
 * msg->n_body + 8 pieces. */
struct flight_frame {
    uint8_t scratch[64];
    size_t scratch_used;
    struct basalt_ipc_piece *pieces;
    size_t n_pieces, cap_pieces;
    size_t len;
    bool failed;
};
basalt_status basalt_flight_data_pack(const struct basalt_ipc_message *msg,
                                      const flight_descriptor_msg *descriptor,
                                      struct flight_frame *out, struct basalt_error *err);
void basalt_flight_frame_reset(struct flight_frame *f);

/* A received FlightData without a copy of its body (flight_data_view.c):
 * *out (protobuf_c_message_free_unpacked) holds the other fields, *body
 * points into `msg` (or into *out when the message is of an unusual shape).
 * CORRUPT when it does not decode, NOMEM. */
basalt_status basalt_flight_data_view(const uint8_t *msg, size_t len, flight_data_msg **out,
                                      const uint8_t **body, size_t *body_len,
                                      struct basalt_error *err);
/* The grpc_place_fn of FlightData responses: where data_body's bytes start. */
size_t basalt_flight_data_place(const uint8_t *msg, size_t n, size_t len);

/* A ticket's rows (its task, or every task of the table in order) as a
 * stream that holds the shared plan until released, the Parquet values
 * decoded into memory from `allocator` (borrowed; NULL: the heap).
 * Statuses of the ticket's parsing and of basalt_flight_scan_acquire;
 * NOT_FOUND when the task is not in the plan. */
basalt_status basalt_flight_ticket_stream(struct basalt_flight_server *srv, const uint8_t *ticket,
                                          size_t len, const struct basalt_arrow_allocator *allocator,
                                          struct ArrowArrayStream *out, struct basalt_error *err);

/* The calls, one per method. */
basalt_status basalt_flight_get_begin(struct basalt_flight_server *srv, void **call,
                                      const struct grpc_call_ops **ops, struct basalt_error *err);
basalt_status basalt_flight_put_begin(struct basalt_flight_server *srv, void **call,
                                      const struct grpc_call_ops **ops, struct basalt_error *err);

#endif
