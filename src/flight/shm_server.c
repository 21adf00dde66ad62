/* The shared-memory transport's producer: a Unix socket server that answers
 * each request with a memory file (shm_segment.c) the ticket's stream is
 * decoded or copied into, and publishes each batch as it lands
 * (include/basalt/flight_shm.h, shm_internal.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "shm_internal.h"

void basalt_flight_shm_server_options_init(struct basalt_flight_shm_server_options *o)
{
    memset(o, 0, sizeof *o);
    o->max_segment_size = (uint64_t)64 << 30;
    o->grow_step = (uint64_t)64 << 20;
    o->reuse_window = (uint64_t)32 << 20;
    o->alignment = 64;
    o->request_timeout_ms = 10000;
    o->idle_timeout_ms = 60000;
    o->max_connections = 16;
}

static basalt_status check_options(const struct basalt_flight_shm_server_options *o,
                                   struct basalt_error *err)
{
    if (o->alignment != 8 && o->alignment != 64)
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight shm: alignment %d (8 or 64)",
                                o->alignment);
    if (o->max_segment_size < 4096 || o->max_segment_size > ((uint64_t)1 << 46))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "flight shm: max_segment_size %llu (4 KiB to 64 TiB)",
                                (unsigned long long)o->max_segment_size);
    return BASALT_OK;
}

/* A read-only descriptor of the same file for the consumer, so that its
 * mapping cannot be made writable; the read-write one when /proc is not
 * there (the consumer maps read-only either way). */
static int read_only_fd(int fd)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int ro = open(path, O_RDONLY | O_CLOEXEC);
    return ro >= 0 ? ro : -1;
}

/* The schema message, framed as a stream frames it: continuation marker,
 * metadata length padded to 8, the metadata, zeros. */
static basalt_status put_schema(struct shm_segment *seg, const struct basalt_ipc_message *m,
                                uint64_t *offset, uint64_t *length, struct basalt_error *err)
{
    size_t padded = (m->metadata_len + 7) & ~(size_t)7;
    uint8_t *framed = basalt_calloc(1, 8 + padded);
    if (!framed)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for the schema");
    uint32_t words[2] = {0xFFFFFFFFu, (uint32_t)padded};
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < 4; i++)
            framed[4 * w + i] = (uint8_t)(words[w] >> (8 * i));
    memcpy(framed + 8, m->metadata, m->metadata_len);
    *length = 8 + padded;
    basalt_status st =
        basalt_flight_shm_segment_write_schema(seg, framed, 8 + padded, offset, err);
    basalt_free(framed);
    return st;
}

/* ------------------------------------------------------------ one connection */

struct serve_env {
    basalt_flight_shm_open_fn open;
    void *ctx;
    const struct basalt_flight_shm_server_options *options;
    const int *stopping;                          /* NULL: never */
    struct basalt_flight_shm_server_stats *stats; /* NULL: none */
};

static void count_batch(struct serve_env *env, uint64_t bytes)
{
    if (!env->stats)
        return;
    __atomic_fetch_add(&env->stats->batches, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&env->stats->bytes, (int64_t)bytes, __ATOMIC_RELAXED);
}

static basalt_status status_from_errno(int code)
{
    switch (code) {
    case ENOMEM: return BASALT_NOMEM;
    case EINVAL: return BASALT_CORRUPT;
    case ENOTSUP:
    case ENOSYS: return BASALT_UNSUPPORTED;
    case EOVERFLOW: return BASALT_LIMIT;
    default: return BASALT_IO;
    }
}

static basalt_status stream_failed(struct ArrowArrayStream *s, int code, const char *what,
                                   struct basalt_error *err)
{
    const char *msg = s->get_last_error ? s->get_last_error(s) : NULL;
    return basalt_error_set(err, status_from_errno(code), "source stream: %s: %s", what,
                            msg && *msg ? msg : strerror(code));
}

static basalt_status send_record(int sock, uint16_t type, uint64_t offset, uint64_t length,
                                 int fd, struct basalt_error *err)
{
    struct shm_record r;
    memset(&r, 0, sizeof r);
    r.type = type;
    r.offset = offset;
    r.length = length;
    uint8_t buf[SHM_RECORD_MAX];
    size_t n = basalt_flight_shm_record_encode(&r, buf);
    return basalt_flight_shm_send(sock, buf, n, fd, err);
}

/* Tells the consumer why its stream ends; best effort (it may be gone). */
static void send_error(int sock, basalt_status status, const char *message)
{
    struct shm_record r;
    memset(&r, 0, sizeof r);
    r.type = SHM_RECORD_ERROR;
    r.status = (uint32_t)status;
    size_t len = strlen(message);
    r.text_len = (uint32_t)(len > SHM_TEXT_MAX ? SHM_TEXT_MAX : len);
    memcpy(r.text, message, r.text_len);
    uint8_t buf[SHM_RECORD_MAX];
    size_t n = basalt_flight_shm_record_encode(&r, buf);
    basalt_flight_shm_send(sock, buf, n, -1, NULL);
}

/* The next request on the connection: the first within request_timeout_ms,
 * later ones (a session's next ticket) within idle_timeout_ms, the RELEASE
 * packets that come before them applied to `seg`. *ticket_len is SIZE_MAX
 * when the consumer closed its end instead, or a session stayed idle. */
static basalt_status read_request(struct serve_env *env, int sock, struct shm_segment *seg,
                                  bool first, uint8_t *buf, size_t cap, size_t *ticket_len,
                                  bool *session, struct basalt_error *err)
{
    for (;;) {
        /* A session idle past its timeout ends as if the consumer had
         * closed: not a failure. */
        if (!first && env->options->idle_timeout_ms > 0) {
            struct pollfd p = {.fd = sock, .events = POLLIN};
            int rc;
            do
                rc = poll(&p, 1, (int)env->options->idle_timeout_ms);
            while (rc < 0 && errno == EINTR);
            if (rc == 0) {
                *ticket_len = SIZE_MAX;
                return BASALT_OK;
            }
        }
        size_t n;
        basalt_status st = basalt_flight_shm_recv(
            sock, buf, cap, &n, NULL, first ? env->options->request_timeout_ms : 0, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, first ? "request" : "waiting for a request");
        if (n == 0) {
            *ticket_len = SIZE_MAX; /* closed: the end of a session, or a probe (listen_at) */
            return BASALT_OK;
        }
        if (seg && n == SHM_RELEASE_SIZE && memcmp(buf, SHM_RELEASE_MAGIC, 8) == 0) {
            basalt_flight_shm_segment_release_packet(seg, buf);
            continue;
        }
        *session = n >= SHM_REQUEST_HEAD && memcmp(buf, SHM_SESSION_REQUEST_MAGIC, 8) == 0;
        if (n < SHM_REQUEST_HEAD ||
            (!*session && memcmp(buf, SHM_REQUEST_MAGIC, 8) != 0))
            return basalt_error_set(err, BASALT_CORRUPT, "request: not a flight shm request");
        uint32_t len = (uint32_t)buf[8] | (uint32_t)buf[9] << 8 | (uint32_t)buf[10] << 16 |
                       (uint32_t)buf[11] << 24;
        if (len != n - SHM_REQUEST_HEAD)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "request: ticket of %u bytes in a request of %zu",
                                    (unsigned)len, n);
        *ticket_len = len;
        return BASALT_OK;
    }
}

/* Writes the stream into `seg` and publishes it on `sock`: each batch's
 * buffers stay where the source decoded them when that was the segment's
 * allocator, and are copied in otherwise. The stream and segment are the
 * caller's to release. */
static basalt_status produce(struct serve_env *env, int sock, struct ArrowArrayStream *stream,
                             struct shm_segment *seg, bool first, bool *consumer_gone,
                             struct basalt_error *err)
{
    struct ArrowSchema schema;
    schema.release = NULL;
    int rc = stream->get_schema(stream, &schema);
    if (rc != 0)
        return stream_failed(stream, rc, "get_schema", err);
    struct basalt_ipc_write_options wo;
    basalt_ipc_write_options_init(&wo);
    wo.alignment = env->options->alignment;
    struct basalt_ipc_encoder *enc = NULL;
    basalt_status st = basalt_ipc_encoder_new(&schema, &wo, &enc, err);
    basalt_arrow_schema_release(&schema);
    uint64_t schema_at = 0, schema_len = 0;
    if (st == BASALT_OK) {
        struct basalt_ipc_message sm;
        basalt_ipc_encoder_schema(enc, &sm);
        st = put_schema(seg, &sm, &schema_at, &schema_len, err);
    }
    /* The file goes with the connection's first stream; later ones (a
     * session) are in the same file. */
    if (st == BASALT_OK && first) {
        int fd = basalt_flight_shm_segment_fd(seg);
        int ro = read_only_fd(fd);
        st = send_record(sock, SHM_RECORD_SEGMENT, schema_at, schema_len, ro >= 0 ? ro : fd, err);
        if (ro >= 0)
            close(ro);
        *consumer_gone = st != BASALT_OK;
    } else if (st == BASALT_OK) {
        st = send_record(sock, SHM_RECORD_SEGMENT, schema_at, schema_len, -1, err);
        *consumer_gone = st != BASALT_OK;
    }
    int64_t batches = 0;
    while (st == BASALT_OK) {
        if (env->stopping && __atomic_load_n(env->stopping, __ATOMIC_RELAXED)) {
            st = basalt_error_set(err, BASALT_IO, "the server is stopping");
            break;
        }
        struct ArrowArray batch;
        batch.release = NULL;
        rc = stream->get_next(stream, &batch);
        if (rc != 0) {
            st = stream_failed(stream, rc, "get_next", err);
            break;
        }
        if (!batch.release) {
            st = send_record(sock, SHM_RECORD_END, basalt_flight_shm_segment_end(seg),
                             (uint64_t)batches, -1, err);
            *consumer_gone = st != BASALT_OK;
            break;
        }
        st = basalt_flight_shm_segment_take_releases(seg, err);
        if (st != BASALT_OK) {
            basalt_arrow_array_release(&batch);
            *consumer_gone = st == BASALT_IO;
            break;
        }
        struct shm_published pub;
        st = basalt_flight_shm_segment_publish(seg, enc, &batch, &pub, err);
        basalt_arrow_array_release(&batch);
        if (st != BASALT_OK) {
            st = basalt_error_context(err, st, "batch %lld", (long long)batches);
            break;
        }
        st = send_record(sock, SHM_RECORD_PLACED, pub.offset, pub.length, -1, err);
        *consumer_gone = st != BASALT_OK;
        if (st == BASALT_OK) {
            batches++;
            count_batch(env, pub.bytes);
        }
    }
    basalt_ipc_encoder_free(enc);
    return st;
}

/* After the last record of a connection (an END or an error record):
 * waits (at most a second) for the consumer to close its end, reading what
 * it still sends (releases). Closing a Unix socket with unread packets in
 * its queue makes the peer's next recv fail with ECONNRESET before it reads
 * the packets queued for it, that last record among them. (Between a
 * session's streams the producer waits for the next request, which reads
 * them as well.) */
static void linger_for_close(int sock)
{
    shutdown(sock, SHUT_WR);
    for (int waited = 0; waited < 1000;) {
        struct pollfd p = {.fd = sock, .events = POLLIN};
        int rc = poll(&p, 1, 50);
        if (rc < 0 && errno != EINTR)
            return;
        if (rc <= 0) {
            waited += 50;
            continue;
        }
        uint8_t pkt[SHM_RELEASE_SIZE + 1];
        ssize_t n = recv(sock, pkt, sizeof pkt, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK))
            return; /* closed (or broken): nothing left to lose */
    }
}

static void add_stats(struct serve_env *env, const struct shm_segment_stats *before,
                      const struct shm_segment_stats *after)
{
    if (!env->stats)
        return;
    __atomic_fetch_add(&env->stats->decoded_bytes,
                       (int64_t)(after->decoded_bytes - before->decoded_bytes), __ATOMIC_RELAXED);
    __atomic_fetch_add(&env->stats->in_place_bytes,
                       (int64_t)(after->in_place_bytes - before->in_place_bytes),
                       __ATOMIC_RELAXED);
    __atomic_fetch_add(&env->stats->copied_bytes,
                       (int64_t)(after->copied_bytes - before->copied_bytes), __ATOMIC_RELAXED);
}

/* Serves one stream of the connection into `seg`. *gone: the consumer is
 * to be sent no error record (it went away, or was sent one here). */
static basalt_status serve_ticket(struct serve_env *env, int sock, struct shm_segment *seg,
                                  bool first, const uint8_t *ticket, size_t ticket_len,
                                  bool *gone, struct basalt_error *err)
{
    struct ArrowArrayStream stream;
    memset(&stream, 0, sizeof stream);
    basalt_status st = env->open(
        env->ctx, ticket, ticket_len,
        env->options->decode_in_place ? basalt_flight_shm_segment_allocator(seg) : NULL, &stream,
        err);
    if (st == BASALT_OK && !stream.release)
        st = basalt_error_set(err, BASALT_INTERNAL, "the open callback gave a released stream");
    if (st != BASALT_OK) {
        basalt_arrow_stream_release(&stream);
        /* The consumer gets the callback's message as it is; the log says
         * where it came from. */
        send_error(sock, st, err->message);
        *gone = true;
        return basalt_error_context(err, st, "ticket");
    }
    struct shm_segment_stats before, after;
    basalt_flight_shm_segment_stats(seg, &before);
    st = produce(env, sock, &stream, seg, first, gone, err);
    basalt_arrow_stream_release(&stream);
    basalt_flight_shm_segment_stats(seg, &after);
    add_stats(env, &before, &after);
    if (st == BASALT_OK && env->stats)
        __atomic_fetch_add(&env->stats->streams_ok, 1, __ATOMIC_RELAXED);
    return st;
}

/* Serves one connection: a stream per request, in one memory file, until
 * the consumer closes its end (a session may ask for many tickets in turn).
 * A failed stream ends the connection, its error sent to the consumer.
 * *served is false when it closed without a request. */
static basalt_status serve_socket(struct serve_env *env, int sock, bool *served,
                                  struct basalt_error *err)
{
    *served = false;
    size_t cap = SHM_REQUEST_HEAD + BASALT_FLIGHT_SHM_MAX_TICKET;
    uint8_t *req = basalt_malloc(cap);
    if (!req)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a request");
    struct shm_segment *seg = NULL;
    basalt_status st = BASALT_OK;
    bool gone = false;
    for (bool first = true;; first = false) {
        if (env->stopping && __atomic_load_n(env->stopping, __ATOMIC_RELAXED))
            break;
        size_t ticket_len = 0;
        bool session = false;
        st = read_request(env, sock, seg, first, req, cap, &ticket_len, &session, err);
        if (st != BASALT_OK) {
            if (st == BASALT_CORRUPT)
                send_error(sock, st, err->message);
            break;
        }
        if (ticket_len == SIZE_MAX)
            break; /* the consumer closed its end */
        *served = true;
        /* The segment comes first: the source may decode into it. */
        if (!seg)
            st = basalt_flight_shm_segment_new(env->options, sock, &seg, err);
        if (st == BASALT_OK)
            st = serve_ticket(env, sock, seg, first, req + SHM_REQUEST_HEAD, ticket_len, &gone,
                              err);
        if (st != BASALT_OK) {
            if (!gone)
                send_error(sock, st, err->message);
            linger_for_close(sock);
            break;
        }
        /* A consumer's last stream: the connection ends with it. */
        if (!session) {
            linger_for_close(sock);
            break;
        }
    }
    basalt_free(req);
    basalt_flight_shm_segment_close(seg);
    return st;
}

basalt_status basalt_flight_shm_serve_fd(int fd, basalt_flight_shm_open_fn open, void *ctx,
                                         const struct basalt_flight_shm_server_options *options,
                                         struct basalt_error *err)
{
    struct basalt_error local;
    basalt_error_init(&local);
    if (fd < 0 || !open)
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight shm: bad arguments");
    struct basalt_flight_shm_server_options defaults;
    if (!options) {
        basalt_flight_shm_server_options_init(&defaults);
        options = &defaults;
    }
    basalt_status st = check_options(options, err);
    if (st != BASALT_OK)
        return st;
    struct serve_env env = {open, ctx, options, NULL, NULL};
    bool served;
    st = serve_socket(&env, fd, &served, &local);
    if (st != BASALT_OK)
        basalt_error_set(err, st, "%s", local.message);
    return st;
}

/* ------------------------------------------------------------ the server */

struct shm_conn {
    struct basalt_flight_shm_server *server;
    int fd;
    int64_t id;
    pthread_t thread;
    bool done;
    struct shm_conn *next;
};

struct basalt_flight_shm_server {
    char *path;
    dev_t dev;
    ino_t ino;
    bool bound; /* the socket file at `path` is ours */
    int listen_fd;
    int wake[2];
    basalt_flight_shm_open_fn open;
    void *ctx;
    struct basalt_flight_shm_server_options o;
    struct basalt_flight_shm_server_stats stats; /* atomics */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool started;
    int stopping; /* atomic */
    pthread_t accept_thread;
    struct shm_conn *conns;
    unsigned live;
};

static basalt_status listen_at(struct basalt_flight_shm_server *s, struct basalt_error *err)
{
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    size_t len = strlen(s->path);
    if (len == 0 || len >= sizeof addr.sun_path)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "flight shm: socket path of %zu bytes (1 to %zu)", len,
                                sizeof addr.sun_path - 1);
    memcpy(addr.sun_path, s->path, len);
    struct stat sb;
    if (lstat(s->path, &sb) == 0) {
        if (!S_ISSOCK(sb.st_mode))
            return basalt_error_set(err, BASALT_CONFLICT, "%s exists and is not a socket",
                                    s->path);
        /* A socket file: live if something answers, stale (its server
         * died) if the connection is refused. */
        int probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (probe < 0)
            return basalt_error_set(err, BASALT_IO, "socket: %s", strerror(errno));
        int rc = connect(probe, (struct sockaddr *)&addr, sizeof addr);
        int e = errno;
        close(probe);
        if (rc == 0)
            return basalt_error_set(err, BASALT_CONFLICT, "%s: a server is listening there",
                                    s->path);
        if (e != ECONNREFUSED && e != EPROTOTYPE)
            return basalt_error_set(err, BASALT_IO, "%s: %s", s->path, strerror(e));
        if (e == EPROTOTYPE)
            return basalt_error_set(err, BASALT_CONFLICT,
                                    "%s: another kind of socket listens there", s->path);
        unlink(s->path);
    }
    s->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (s->listen_fd < 0)
        return basalt_error_set(err, BASALT_IO, "socket: %s", strerror(errno));
    if (bind(s->listen_fd, (struct sockaddr *)&addr, sizeof addr) != 0)
        return basalt_error_set(err, errno == EADDRINUSE ? BASALT_CONFLICT : BASALT_IO, "%s: %s",
                                s->path, strerror(errno));
    if (lstat(s->path, &sb) == 0) {
        s->dev = sb.st_dev;
        s->ino = sb.st_ino;
        s->bound = true;
    }
    if (listen(s->listen_fd, 64) != 0)
        return basalt_error_set(err, BASALT_IO, "%s: listen: %s", s->path, strerror(errno));
    return BASALT_OK;
}

basalt_status basalt_flight_shm_server_new(const char *socket_path, basalt_flight_shm_open_fn open,
                                           void *ctx,
                                           const struct basalt_flight_shm_server_options *options,
                                           struct basalt_flight_shm_server **out,
                                           struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (!socket_path || !open || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight shm server: NULL argument");
    struct basalt_flight_shm_server *s = basalt_calloc(1, sizeof *s);
    if (!s)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a server");
    s->listen_fd = -1;
    s->wake[0] = s->wake[1] = -1;
    s->open = open;
    s->ctx = ctx;
    if (options)
        s->o = *options;
    else
        basalt_flight_shm_server_options_init(&s->o);
    if (s->o.max_connections == 0)
        s->o.max_connections = 16;
    basalt_status st = check_options(&s->o, err);
    if (st == BASALT_OK && !(s->path = basalt_strdup(socket_path)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory for a server");
    if (st != BASALT_OK) {
        basalt_free(s);
        return st;
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    st = listen_at(s, err);
    if (st == BASALT_OK && pipe2(s->wake, O_CLOEXEC) != 0)
        st = basalt_error_set(err, BASALT_IO, "pipe: %s", strerror(errno));
    if (st != BASALT_OK) {
        basalt_flight_shm_server_free(s);
        return st;
    }
    *out = s;
    return BASALT_OK;
}

static void log_failure(struct basalt_flight_shm_server *s, int64_t id, basalt_status st,
                        const char *message)
{
    __atomic_fetch_add(&s->stats.failures, 1, __ATOMIC_RELAXED);
    if (!s->o.log)
        return;
    char line[BASALT_ERROR_MESSAGE_MAX + 64];
    snprintf(line, sizeof line, "%s: connection %lld: %s", s->path, (long long)id, message);
    s->o.log(s->o.log_ctx, st, line);
}

static basalt_status serve_conn(struct basalt_flight_shm_server *s, int fd, int64_t id,
                                struct basalt_error *err)
{
    struct serve_env env = {s->open, s->ctx, &s->o, &s->stopping, &s->stats};
    struct basalt_error local;
    basalt_error_init(&local);
    bool served;
    basalt_status st = serve_socket(&env, fd, &served, &local);
    if (st != BASALT_OK) {
        log_failure(s, id, st, local.message);
        basalt_error_set(err, st, "%s", local.message);
    }
    return st;
}

basalt_status basalt_flight_shm_server_serve_one(struct basalt_flight_shm_server *s,
                                                 struct basalt_error *err)
{
    if (!s || s->started)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "flight shm server: serve_one on a started server");
    int fd;
    do
        fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    while (fd < 0 && (errno == EINTR || errno == ECONNABORTED));
    if (fd < 0)
        return basalt_error_set(err, BASALT_IO, "%s: accept: %s", s->path, strerror(errno));
    int64_t id = __atomic_add_fetch(&s->stats.connections, 1, __ATOMIC_RELAXED);
    basalt_status st = serve_conn(s, fd, id, err);
    close(fd);
    return st;
}

static void *conn_main(void *arg)
{
    struct shm_conn *c = arg;
    struct basalt_flight_shm_server *s = c->server;
    serve_conn(s, c->fd, c->id, NULL);
    /* The descriptor stays open until the connection is reaped, so that
     * _free never shuts down a number the process has reused. */
    shutdown(c->fd, SHUT_RDWR);
    pthread_mutex_lock(&s->mu);
    c->done = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Joins and frees finished connections; with `all`, every connection.
 * Called with s->mu held (released while joining). */
static void reap(struct basalt_flight_shm_server *s, bool all)
{
    for (;;) {
        struct shm_conn **pp = &s->conns, *c = NULL;
        for (; *pp; pp = &(*pp)->next)
            if ((*pp)->done || all) {
                c = *pp;
                *pp = c->next;
                break;
            }
        if (!c)
            return;
        pthread_mutex_unlock(&s->mu);
        pthread_join(c->thread, NULL);
        close(c->fd);
        basalt_free(c);
        pthread_mutex_lock(&s->mu);
        s->live--;
    }
}

static void *accept_main(void *arg)
{
    struct basalt_flight_shm_server *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        reap(s, false);
        while (!__atomic_load_n(&s->stopping, __ATOMIC_RELAXED) &&
               s->live >= s->o.max_connections) {
            pthread_cond_wait(&s->cv, &s->mu);
            reap(s, false);
        }
        bool stop = __atomic_load_n(&s->stopping, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&s->mu);
        if (stop)
            return NULL;
        struct pollfd p[2] = {{.fd = s->listen_fd, .events = POLLIN},
                              {.fd = s->wake[0], .events = POLLIN}};
        /* Wakes now and then to reap finished connections. */
        int rc = poll(p, 2, 1000);
        if (rc < 0 && errno != EINTR) {
            log_failure(s, 0, BASALT_IO, strerror(errno));
            return NULL;
        }
        if (rc <= 0)
            continue;
        if (p[1].revents)
            return NULL;
        int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOMEM || errno == ENOBUFS) {
                log_failure(s, 0, BASALT_IO, strerror(errno));
                poll(NULL, 0, 100); /* let connections finish before trying again */
            }
            continue;
        }
        struct shm_conn *c = basalt_calloc(1, sizeof *c);
        if (!c) {
            close(fd);
            log_failure(s, 0, BASALT_NOMEM, "out of memory for a connection");
            continue;
        }
        c->server = s;
        c->fd = fd;
        c->id = __atomic_add_fetch(&s->stats.connections, 1, __ATOMIC_RELAXED);
        pthread_mutex_lock(&s->mu);
        if (pthread_create(&c->thread, NULL, conn_main, c) != 0) {
            pthread_mutex_unlock(&s->mu);
            close(fd);
            basalt_free(c);
            log_failure(s, 0, BASALT_INTERNAL, "no thread for a connection");
            continue;
        }
        c->next = s->conns;
        s->conns = c;
        s->live++;
        pthread_mutex_unlock(&s->mu);
    }
}

basalt_status basalt_flight_shm_server_start(struct basalt_flight_shm_server *s,
                                             struct basalt_error *err)
{
    if (!s || s->started)
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight shm server: already started");
    if (pthread_create(&s->accept_thread, NULL, accept_main, s) != 0)
        return basalt_error_set(err, BASALT_INTERNAL, "flight shm server: no thread");
    s->started = true;
    return BASALT_OK;
}

void basalt_flight_shm_server_stats(const struct basalt_flight_shm_server *s,
                                    struct basalt_flight_shm_server_stats *out)
{
    out->connections = __atomic_load_n(&s->stats.connections, __ATOMIC_RELAXED);
    out->streams_ok = __atomic_load_n(&s->stats.streams_ok, __ATOMIC_RELAXED);
    out->failures = __atomic_load_n(&s->stats.failures, __ATOMIC_RELAXED);
    out->batches = __atomic_load_n(&s->stats.batches, __ATOMIC_RELAXED);
    out->bytes = __atomic_load_n(&s->stats.bytes, __ATOMIC_RELAXED);
    out->decoded_bytes = __atomic_load_n(&s->stats.decoded_bytes, __ATOMIC_RELAXED);
    out->in_place_bytes = __atomic_load_n(&s->stats.in_place_bytes, __ATOMIC_RELAXED);
    out->copied_bytes = __atomic_load_n(&s->stats.copied_bytes, __ATOMIC_RELAXED);
}

void basalt_flight_shm_server_free(struct basalt_flight_shm_server *s)
{
    if (!s)
        return;
    if (s->started) {
        pthread_mutex_lock(&s->mu);
        __atomic_store_n(&s->stopping, 1, __ATOMIC_RELAXED);
        for (struct shm_conn *c = s->conns; c; c = c->next)
            shutdown(c->fd, SHUT_RDWR);
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        ssize_t n;
        do
            n = write(s->wake[1], "x", 1);
        while (n < 0 && errno == EINTR);
        pthread_join(s->accept_thread, NULL);
        pthread_mutex_lock(&s->mu);
        reap(s, true);
        pthread_mutex_unlock(&s->mu);
    }
    if (s->listen_fd >= 0)
        close(s->listen_fd);
    /* Unlinks the socket file only if it is still the one bound here. */
    struct stat sb;
    if (s->bound && lstat(s->path, &sb) == 0 && sb.st_dev == s->dev &&
        sb.st_ino == s->ino)
        unlink(s->path);
    if (s->wake[0] >= 0)
        close(s->wake[0]);
    if (s->wake[1] >= 0)
        close(s->wake[1]);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    basalt_free(s->path);
    basalt_free(s);
}
