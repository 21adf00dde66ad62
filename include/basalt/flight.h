/* basalt flight: Iceberg tables served over Arrow Flight, and the client.
 *
 * The server speaks Arrow Flight (format/Flight.proto) over gRPC on HTTP/2
 * (h2c, prior knowledge) on nghttp2, with messages encoded by protobuf-c.
 * It serves the tables of one catalog:
 *
 *   - a PATH descriptor names a table: the namespace levels, then the name
 *     (["taxi", "trips"] is taxi.trips);
 *   - a CMD descriptor is JSON {"table": "ns.t", "columns": ["a", "b"],
 *     "filter": "a > 3 and b = 'x'", "snapshot": 1234}: every key but
 *     "table" optional, the filter in the CLI's filter language (what
 *     `basalt iceberg scan --where` takes);
 *   - GetFlightInfo plans the scan and returns one endpoint per file task
 *     (its ticket names the snapshot, the file and its byte range), so that
 *     several clients fetch a table in parallel; total_records and
 *     total_bytes come from the plan;
 *   - DoGet streams a ticket's batches: the schema is encoded once, record
 *     batch bodies go from the decoder's buffers into the HTTP/2 DATA frames
 *     with writev (no copy), uncompressed unless the server is told to
 *     compress;
 *   - GetSchema, ListFlights (every table, with its schema, no endpoints),
 *     Handshake (bearer token), ListActions and DoAction ("tables": every
 *     table; "plan": a CMD's scan plan as JSON; "shm": the shared-memory
 *     socket when the server has one);
 *   - DoPut appends the batches it receives to the descriptor's table
 *     through the Iceberg write path, in one snapshot committed when the
 *     client ends the stream; its PutResult carries
 *     {"snapshot_id", "rows", "files"}.
 *
 * Errors are gRPC statuses: NOT_FOUND (no such table, snapshot or task),
 * INVALID_ARGUMENT (a malformed descriptor, ticket, filter or batch),
 * UNAUTHENTICATED (missing or wrong token), RESOURCE_EXHAUSTED (a message
 * over the limit), UNIMPLEMENTED (DoExchange, compressed messages),
 * ABORTED (a commit that lost), with the message of the basalt error.
 *
 * Thread safety: the server runs a thread per connection; catalog calls
 * are serialised by the server. A client is used by one thread at a time,
 * one call at a time. */
#ifndef BASALT_FLIGHT_H
#define BASALT_FLIGHT_H

#include "basalt/arrow.h"
#include "basalt/codec.h"
#include "basalt/core.h"
#include "basalt/flight_shm.h"

#ifdef __cplusplus
extern "C" {
#endif

struct basalt_catalog;

/* ------------------------------------------------------------------ server */

struct basalt_flight_server_options {
    const char *host;            /* IPv4 address to bind; default "127.0.0.1" */
    int port;                    /* 0: a free port (basalt_flight_server_port) */
    /* When set, every call but Handshake needs "authorization: Bearer
     * <token>"; Handshake returns the token for a payload equal to it. */
    const char *token;
    size_t max_message;          /* largest request message; default 64 MiB */
    uint32_t max_streams;        /* concurrent calls per connection; default 100 */
    int max_connections;         /* default 256 */
    /* Each call decodes on its connection's thread: a client reads in
     * parallel by fetching several endpoints at once, on several
     * connections (Flight's way past one core). */
    int64_t batch_size;          /* rows per batch (default the scan's) */
    /* Body compression of DoGet batches: UNCOMPRESSED (default), LZ4_FRAME
     * or ZSTD. */
    enum basalt_codec_kind compression;
    /* The location put in endpoints ("grpc://host:port"); NULL: none, which
     * means "this server" to Flight clients. */
    const char *location;
    bool verbose;                /* one line per call on stderr */
    /* TLS (ALPN h2, TLS 1.2 and up) with this PEM certificate chain and
     * private key; both NULL: plain HTTP/2 (h2c). */
    const char *tls_cert_file, *tls_key_file;
    /* Also serve tickets through shared memory on this Unix socket
     * (basalt/flight_shm.h): a consumer on the same machine passes a
     * ticket from GetFlightInfo to basalt_flight_shm_open and maps the rows
     * the server decodes. The "shm" action names the socket. NULL: no. */
    const char *shm_socket;
    /* Decode the tables' columns straight into the shared memory
     * (basalt_flight_shm_server_options.decode_in_place). Default false. */
    bool shm_decode_in_place;
};

BASALT_EXPORT void basalt_flight_server_options_init(struct basalt_flight_server_options *o);

struct basalt_flight_server;

/* Starts serving `catalog` (borrowed: it must outlive the server; the
 * server serialises its use). Returns OK; IO (cannot listen); INVALID_ARG;
 * NOMEM. */
BASALT_EXPORT basalt_status basalt_flight_server_start(
    struct basalt_catalog *catalog, const struct basalt_flight_server_options *options,
    struct basalt_flight_server **out, struct basalt_error *err);

/* The port the server listens on. */
BASALT_EXPORT int basalt_flight_server_port(const struct basalt_flight_server *server);

/* The shared-memory socket's counters (zeros without shm_socket). */
BASALT_EXPORT void basalt_flight_server_shm_stats(const struct basalt_flight_server *server,
                                                  struct basalt_flight_shm_server_stats *out);

/* Stops: no new connections, open ones closed, threads joined. NULL: no-op. */
BASALT_EXPORT void basalt_flight_server_stop(struct basalt_flight_server *server);

/* ------------------------------------------------------------------ client */

struct basalt_flight_client;

struct basalt_flight_client_options {
    const char *token;           /* sent as "authorization: Bearer <token>"; NULL: none */
    /* grpc+tls:// only: the PEM CA bundle the server's certificate must
     * chain to (NULL: the system's), its name checked against the host. */
    const char *ca_file;
    size_t max_message;          /* largest response message; default 2 GiB */
    /* The longest wait for the server's next bytes, in ms (IO past it);
     * 0 (default): no limit (a DoGet may wait on a slow scan). */
    unsigned timeout_ms;
};

BASALT_EXPORT void basalt_flight_client_options_init(struct basalt_flight_client_options *o);

/* Connects to "grpc://host:port", "grpc+tcp://host:port", "host:port" (all
 * plain HTTP/2) or "grpc+tls://host:port". `options` may be NULL. IO
 * (connection, TLS handshake or certificate), NOMEM, INVALID_ARG (another
 * scheme, a malformed URI). */
BASALT_EXPORT basalt_status basalt_flight_client_connect(
    const char *uri, const struct basalt_flight_client_options *options,
    struct basalt_flight_client **out, struct basalt_error *err);
/* NULL is a no-op. */
BASALT_EXPORT void basalt_flight_client_close(struct basalt_flight_client *client);

/* A FlightDescriptor: a path, or a command. */
struct basalt_flight_descriptor {
    const char *const *path;
    size_t n_path;
    const char *cmd;             /* used when n_path is 0 */
    size_t cmd_len;
};

struct basalt_flight_endpoint {
    uint8_t *ticket;
    size_t ticket_len;
    char *location;              /* the first location, or NULL */
};

struct basalt_flight_info {
    char **path;                 /* the descriptor */
    size_t n_path;
    char *cmd;
    size_t cmd_len;
    struct ArrowSchema schema;   /* released when the info carried none */
    struct basalt_flight_endpoint *endpoints;
    size_t n_endpoints;
    int64_t total_records;       /* -1: unknown */
    int64_t total_bytes;         /* -1: unknown */
    bool ordered;
};

/* Frees what an info holds (not the struct). */
BASALT_EXPORT void basalt_flight_info_reset(struct basalt_flight_info *info);

/* Every call returns OK, or the status matching the server's gRPC status
 * with its message ("flight: server: table 'x.y' not found (gRPC status
 * 5)"), IO (connection), CORRUPT (a response that does not decode), NOMEM. */

BASALT_EXPORT basalt_status basalt_flight_client_handshake(struct basalt_flight_client *client,
                                                           const char *payload,
                                                           char **response,
                                                           struct basalt_error *err);

BASALT_EXPORT basalt_status basalt_flight_client_get_info(
    struct basalt_flight_client *client, const struct basalt_flight_descriptor *descriptor,
    struct basalt_flight_info *out, struct basalt_error *err);

/* ListFlights: (*out)[0, *n), each to be reset, array freed with basalt_free. */
BASALT_EXPORT basalt_status basalt_flight_client_list(struct basalt_flight_client *client,
                                                      const char *criteria,
                                                      struct basalt_flight_info **out, size_t *n,
                                                      struct basalt_error *err);

BASALT_EXPORT basalt_status basalt_flight_client_get_schema(
    struct basalt_flight_client *client, const struct basalt_flight_descriptor *descriptor,
    struct ArrowSchema *out, struct basalt_error *err);

/* DoGet: `out` (caller storage) streams the ticket's batches as they
 * arrive. The stream uses the client's connection until released (no other
 * call meanwhile). Buffers of the batches point into the received messages
 * (no copy after the socket's: the transport places each message so that
 * its body lands 64-byte aligned, and only the small fields go through
 * protobuf-c; basalt_flight_client_get_stats counts it). get_next errors: EIO (connection, server
 * status), EINVAL (a message that does not decode), ENOMEM. */
BASALT_EXPORT basalt_status basalt_flight_client_do_get(struct basalt_flight_client *client,
                                                        const uint8_t *ticket, size_t ticket_len,
                                                        struct ArrowArrayStream *out,
                                                        struct basalt_error *err);

/* The IPC reading counters of a DoGet stream `s` so far: its batches'
 * buffers used where they were received (buffers_zero_copy) or copied
 * (buffers_copied: misaligned, or compressed). INVALID_ARG when `s` is
 * not a DoGet stream of this client library. */
BASALT_EXPORT basalt_status basalt_flight_client_get_stats(const struct ArrowArrayStream *s,
                                                           struct basalt_ipc_read_stats *out,
                                                           struct basalt_error *err);

/* DoPut: sends `stream` (released in every case) to the descriptor; the
 * server's PutResult app_metadata lands in *result (basalt_malloc'd text,
 * may be NULL). */
BASALT_EXPORT basalt_status basalt_flight_client_do_put(
    struct basalt_flight_client *client, const struct basalt_flight_descriptor *descriptor,
    struct ArrowArrayStream *stream, char **result, struct basalt_error *err);

/* DoAction: the bodies of the results, concatenated with newlines, in
 * *result (basalt_malloc'd). */
BASALT_EXPORT basalt_status basalt_flight_client_do_action(struct basalt_flight_client *client,
                                                           const char *type, const char *body,
                                                           char **result,
                                                           struct basalt_error *err);

/* ListActions: "type: description" lines in *result (basalt_malloc'd). */
BASALT_EXPORT basalt_status basalt_flight_client_list_actions(struct basalt_flight_client *client,
                                                              char **result,
                                                              struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
