/* basalt flight shm: Arrow record batches between processes of one machine
 * through shared memory.
 *
 * A consumer connects to a producer's Unix domain socket and asks for a
 * stream by an opaque ticket (for Flight, a split of a scan). The producer
 * resolves the ticket through a caller callback into an ArrowArrayStream,
 * creates an anonymous memory file (memfd_create; it has no name in
 * /dev/shm or anywhere else) and passes it to the consumer over the socket
 * (SCM_RIGHTS). The stream's buffers live in the file (decoded there, or
 * copied in), 64-byte aligned; as each batch is ready the producer writes
 * its Arrow IPC metadata (the dictionaries it needs, then the record batch,
 * each with the offset of its body in the file) and sends a small manifest
 * record over the socket: the offset and length of that metadata. The
 * schema message is at the start of the file; the end of the stream and
 * errors are records too.
 *
 * The consumer maps the file read-only once, over a fixed span of address
 * space (max_segment_size), so the mapping never moves while the file
 * grows, and decodes each published range in place: buffers point into the
 * mapping (zero copy, basalt_ipc_reader_push_message), and the arrays hold
 * a reference on it, so it stays mapped until the stream and every array
 * from it are released, on any thread. When the last array of a range is
 * released, the batch goes back to the producer, which writes later
 * batches (and decodes later row groups) over its memory.
 *
 * Crashes: the memory belongs to the file, and the file to the open
 * descriptors and mappings of the two processes, so it is freed when the
 * last of them goes, however they go: nothing outlives both processes and
 * nothing can be left behind in /dev/shm. A consumer whose producer dies
 * gets IO from get_next ("the producer closed the connection before the end
 * of the stream"); arrays it already has stay valid. A producer whose
 * consumer dies gets IO at its next send (EPIPE or ECONNRESET, never
 * SIGPIPE: sends use MSG_NOSIGNAL), stops reading the source stream, and a
 * server goes on serving other clients.
 *
 * Trust: the consumer checks every record: ranges must lie inside the
 * file's current size and the mapped span, follow each other, and hold
 * well-formed IPC messages (every length and offset inside them checked as
 * for any IPC input); anything else is CORRUPT or LIMIT, never a crash. The
 * producer seals the file against shrinking (F_SEAL_SHRINK, checked by the
 * consumer) so that bytes once published cannot vanish under the mapping
 * (which would fault), and hands the consumer a read-only descriptor where
 * /proc allows it. The producer is trusted not to rewrite bytes it has
 * published.
 *
 * Memory: one split lives in one file; its pages are freed when both sides
 * are done with it. The producer allocates them as the file grows (in
 * grow_step steps, with MADV_POPULATE_WRITE where the kernel has it, else
 * fallocate), so running out of memory is NOMEM, never SIGBUS; the consumer
 * maps each published range with MADV_POPULATE_READ. The producer copies
 * each batch into the file once; with decode_in_place a source stream that
 * allocates through the allocator handed to `open` (an Iceberg or Parquet
 * scan does, for its columns' values, validity and offsets) decodes
 * straight into the file, and those buffers are published where they lie.
 * The consumer copies nothing.
 *
 * Linux only (memfd_create, SOCK_SEQPACKET, SCM_RIGHTS); elsewhere every
 * function returns UNSUPPORTED. */
#ifndef BASALT_FLIGHT_SHM_H
#define BASALT_FLIGHT_SHM_H

#include "basalt/arrow.h"
#include "basalt/ipc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest ticket a request may carry. */
#define BASALT_FLIGHT_SHM_MAX_TICKET 65536

/* ------------------------------------------------------------------ producer */

/* Resolves `ticket` (borrowed for the call) into a stream: fills `out`
 * (caller storage) and returns OK, or returns a status with `err` set
 * (NOT_FOUND for an unknown ticket, say); the status and message are sent
 * to the consumer. With the decode_in_place option `allocator` is not
 * NULL: a stream whose arrays take their buffers from it
 * (basalt_arrow_array_init_with, or a reader's allocator option) has them
 * decoded straight into the shared memory, published where they lie, not
 * copied. The allocator may be used until the last of those arrays is
 * released, on any thread; it falls back to the heap when the file is
 * full. Called on a connection's thread: with
 * basalt_flight_shm_server_start, several calls may run at once. */
typedef basalt_status (*basalt_flight_shm_open_fn)(void *ctx, const void *ticket,
                                                   size_t ticket_len,
                                                   const struct basalt_arrow_allocator *allocator,
                                                   struct ArrowArrayStream *out,
                                                   struct basalt_error *err);

/* Told about every connection that ended in failure (a consumer that went
 * away, a source stream that failed, a malformed request). `message` is
 * valid during the call. Called on the connection's thread. */
typedef void (*basalt_flight_shm_log_fn)(void *ctx, basalt_status status, const char *message);

struct basalt_flight_shm_server_options {
    /* The largest file one stream may fill (LIMIT above, sent to the
     * consumer as an error record). Address space only until written.
     * Default 64 GiB. */
    uint64_t max_segment_size;
    /* The file grows by doubling from 1 MiB, then by this much at a time.
     * Default 64 MiB. */
    uint64_t grow_step;
    /* Memory the consumer hands back (its arrays of a batch all released)
     * is written again. When this many bytes of batches are still held by
     * the consumer and none of them is free, the producer waits (up to
     * 100 ms) for some to come back before growing the file; a consumer
     * that keeps everything costs one such wait, then the file just grows.
     * Default 32 MiB; 0: never wait. */
    uint64_t reuse_window;
    /* 8 or 64 (default 64), checked and otherwise unused: every buffer in
     * the file is 64-byte aligned (the memory the source decodes into is
     * cut in multiples of 64). */
    int alignment;
    /* How long a new connection may take to send its request. Default
     * 10 000 ms; 0: forever. */
    uint32_t request_timeout_ms;
    /* How long a connection that has read its streams may wait for the
     * next request (a session between tickets) before it is closed.
     * Default 60 000 ms; 0: forever. */
    uint32_t idle_timeout_ms;
    /* Hand `open` an allocator over the memory file, so that a source
     * that takes it (an Iceberg or Parquet scan) decodes its columns
     * straight into the file, sparing the copy. Default false: the whole
     * decoded row group must then sit in the file until its last batch comes
     * back, fresh pages of a fresh file for every stream, and where first
     * touches of shared memory are dear (this project's virtual machines,
     * docs/PERFORMANCE.md) copying batch by batch into reused pages is
     * faster. */
    bool decode_in_place;
    /* Connections served at once by basalt_flight_shm_server_start (each on
     * its own thread); more wait in the listen backlog. Default 16. */
    unsigned max_connections;
    basalt_flight_shm_log_fn log; /* NULL: failures are only counted */
    void *log_ctx;
};

/* Fills in the defaults. */
BASALT_EXPORT void basalt_flight_shm_server_options_init(
    struct basalt_flight_shm_server_options *options);

/* Counters since the server was made. */
struct basalt_flight_shm_server_stats {
    int64_t connections;    /* accepted */
    int64_t streams_ok;     /* ended with the end record */
    int64_t failures;       /* ended otherwise (each one also logged) */
    int64_t batches;        /* record batches published */
    int64_t bytes;          /* bytes published (buffers and metadata) */
    /* Of the published buffers' bytes: those the source stream decoded
     * into the file through the allocator given to `open`, published where
     * they lay, and those copied in. */
    int64_t decoded_bytes;  /* allocated in files by the source streams */
    int64_t in_place_bytes;
    int64_t copied_bytes;
};

struct basalt_flight_shm_server;

/* Listens on the Unix domain socket `socket_path` (SOCK_SEQPACKET, mode as
 * the umask allows). A stale socket file left by a dead server is replaced;
 * a live one is CONFLICT, and so is a path that exists and is not a socket.
 * `open` and `ctx` (borrowed; ctx must outlive the server) resolve tickets.
 * `options` NULL: the defaults. Nothing is served until _serve_one or
 * _start. Returns OK; INVALID_ARG (NULL arguments, a path longer than 107
 * bytes, bad options); CONFLICT; IO; NOMEM; UNSUPPORTED (not Linux). */
BASALT_EXPORT basalt_status basalt_flight_shm_server_new(
    const char *socket_path, basalt_flight_shm_open_fn open, void *ctx,
    const struct basalt_flight_shm_server_options *options,
    struct basalt_flight_shm_server **out, struct basalt_error *err);

/* Waits for one connection and serves it on the calling thread, to the end
 * of its stream (of its last, for a session). Returns that connection's
 * outcome: OK when the consumer was sent every stream it asked for whole; IO (the consumer went away, a socket or
 * memory-file failure); LIMIT (max_segment_size); the statuses of the open
 * callback and of the source stream; INVALID_ARG after _start. A
 * connection that closes without a request (another server_new probing
 * whether this socket is live) is OK and counted as neither. Whatever it
 * returns, the server can serve the next connection. */
BASALT_EXPORT basalt_status basalt_flight_shm_server_serve_one(
    struct basalt_flight_shm_server *server, struct basalt_error *err);

/* Serves in the background: a thread accepts connections and each is
 * served on a thread of its own, up to max_connections at once. Failures go
 * to the log callback. Returns OK; INVALID_ARG (already started); INTERNAL
 * (no thread could be made). */
BASALT_EXPORT basalt_status basalt_flight_shm_server_start(struct basalt_flight_shm_server *server,
                                                           struct basalt_error *err);

/* Copies the counters. Thread-safe. */
BASALT_EXPORT void basalt_flight_shm_server_stats(const struct basalt_flight_shm_server *server,
                                                  struct basalt_flight_shm_server_stats *out);

/* Stops accepting, ends connections in progress (their consumers see the
 * connection close; a connection blocked inside the source stream's
 * get_next ends after that call returns), waits for every thread, closes
 * and unlinks the socket (if it is still this server's). NULL is a no-op.
 * Not to be called while another thread is inside _serve_one. */
BASALT_EXPORT void basalt_flight_shm_server_free(struct basalt_flight_shm_server *server);

/* Serves one already-connected socket (`fd`, borrowed, left open) on the
 * calling thread with `open`/`ctx` and `options` (NULL: defaults), as
 * _serve_one does after accepting: for callers with their own listener, and
 * for a Flight action that hands a connection over. Statuses of _serve_one. */
BASALT_EXPORT basalt_status basalt_flight_shm_serve_fd(
    int fd, basalt_flight_shm_open_fn open, void *ctx,
    const struct basalt_flight_shm_server_options *options, struct basalt_error *err);

/* ------------------------------------------------------------------ consumer */

struct basalt_flight_shm_client_options {
    /* Address space mapped for the file; a record past it is LIMIT.
     * Default 64 GiB (nothing is committed by mapping). */
    uint64_t max_segment_size;
    /* The most manifest records one stream may send (LIMIT above).
     * Default 16 777 216. */
    int64_t max_records;
    /* How long to wait for the next record; IO after it. Default 0:
     * forever (a dead producer is seen at once; this bounds a live one that
     * stalls). */
    uint32_t timeout_ms;
    /* Limits of the IPC decoding (max_depth, max_metadata_size,
     * max_body_size); use_mmap is ignored. */
    struct basalt_ipc_read_options ipc;
};

/* Fills in the defaults. */
BASALT_EXPORT void basalt_flight_shm_client_options_init(
    struct basalt_flight_shm_client_options *options);

/* Connects to the producer at `socket_path`, asks for `ticket` (borrowed,
 * at most BASALT_FLIGHT_SHM_MAX_TICKET bytes, may be empty) and waits for
 * the producer's answer: on OK `out` (caller storage) is a stream whose
 * schema is known; on failure `out` is released. The stream is used by one
 * thread at a time; its arrays are independent of it and may be released
 * on any thread, in any order, before or after the stream. get_next's
 * errors are EIO (the producer died or failed with IO, a timeout), EINVAL
 * (CORRUPT records or messages), ENOMEM, ENOTSUP, and EOVERFLOW (LIMIT),
 * with the message in get_last_error; an error is final.
 * Returns OK; INVALID_ARG (NULL arguments, an overlong path or ticket);
 * NOT_FOUND (no socket at the path); IO (connection refused or lost);
 * CORRUPT (a malformed answer, a file that is not sealed against
 * shrinking); LIMIT; NOMEM; UNSUPPORTED (not Linux); any status the
 * producer's open callback returned, with its message. */
BASALT_EXPORT basalt_status basalt_flight_shm_open(
    const char *socket_path, const void *ticket, size_t ticket_len,
    const struct basalt_flight_shm_client_options *options, struct ArrowArrayStream *out,
    struct basalt_error *err);

/* A session: streams read one after another over one connection and one
 * memory file, so that the producer writes each over memory the last one
 * handed back and the consumer reads it through pages it has mapped
 * already (a fresh file and mapping per stream costs a page fault per
 * page on both sides). What a consumer reading many endpoints of a scan
 * uses. _open checks its arguments and connects with the first _get
 * (statuses of basalt_flight_shm_open's argument checks, NOMEM). */
struct basalt_flight_shm_session;
BASALT_EXPORT basalt_status basalt_flight_shm_session_open(
    const char *socket_path, const struct basalt_flight_shm_client_options *options,
    struct basalt_flight_shm_session **out, struct basalt_error *err);
/* Asks for `ticket` as basalt_flight_shm_open does; `out` is a stream like
 * the one it gives. One stream at a time: INVALID_ARG while the last is
 * still open (read it to its end and release it; releasing it before its
 * end drops the connection, and the next _get connects again). When the
 * producer closed an idle connection, _get connects again by itself. */
BASALT_EXPORT basalt_status basalt_flight_shm_session_get(struct basalt_flight_shm_session *session,
                                                          const void *ticket, size_t ticket_len,
                                                          struct ArrowArrayStream *out,
                                                          struct basalt_error *err);
/* Ends the session (its stream, if one is open, stays valid until
 * released). NULL is a no-op. */
BASALT_EXPORT void basalt_flight_shm_session_close(struct basalt_flight_shm_session *session);

/* What a consumer stream has seen, for tests and benchmarks. */
struct basalt_flight_shm_stream_info {
    const void *mapping;     /* the start of the read-only mapping */
    uint64_t mapped_size;    /* its span (max_segment_size) */
    uint64_t published;      /* the end of the last published range */
    int64_t records;         /* manifest records received */
    int64_t batches;         /* record batches handed out */
    bool ended;              /* the end record arrived */
    basalt_status status;    /* OK, or the final error of get_next */
    struct basalt_ipc_read_stats ipc; /* buffers_zero_copy proves zero copy */
};

/* Fills `out` from a stream made by basalt_flight_shm_open. INVALID_ARG for
 * any other (or a released) stream. */
BASALT_EXPORT basalt_status basalt_flight_shm_stream_info(
    const struct ArrowArrayStream *stream, struct basalt_flight_shm_stream_info *out,
    struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
