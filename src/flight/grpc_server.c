/* The gRPC server transport: HTTP/2 with prior knowledge (h2c) on nghttp2,
 * one thread per connection over a blocking socket.
 *
 * Responses are pulled: when nghttp2 may send DATA on a stream, the read
 * callback asks the call for its next message and nghttp2 is told to send
 * it without copying (NGHTTP2_DATA_FLAG_NO_COPY); the send-data callback then
 * writes the frame header and the message's pieces, which point into the
 * decoded batch, with one writev. Flow control costs O(1) per frame: a
 * cursor into the current message's pieces. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "grpc_internal.h"

#define GRPC_PREFIX "/arrow.flight.protocol.FlightService/"
#define MAX_IOV 64

enum grpc_code basalt_grpc_code_of(basalt_status st)
{
    switch (st) {
    case BASALT_OK: return GRPC_OK;
    case BASALT_INVALID_ARG: return GRPC_INVALID_ARGUMENT;
    case BASALT_NOT_FOUND: return GRPC_NOT_FOUND;
    case BASALT_CONFLICT: return GRPC_ABORTED;
    case BASALT_AUTH: return GRPC_UNAUTHENTICATED;
    case BASALT_LIMIT: return GRPC_RESOURCE_EXHAUSTED;
    case BASALT_UNSUPPORTED: return GRPC_UNIMPLEMENTED;
    case BASALT_CORRUPT: return GRPC_DATA_LOSS;
    case BASALT_IO: return GRPC_UNAVAILABLE;
    case BASALT_UNKNOWN_OUTCOME: return GRPC_UNKNOWN;
    default: return GRPC_INTERNAL;
    }
}

basalt_status basalt_grpc_status_of(enum grpc_code code)
{
    switch (code) {
    case GRPC_OK: return BASALT_OK;
    case GRPC_INVALID_ARGUMENT:
    case GRPC_OUT_OF_RANGE:
    case GRPC_FAILED_PRECONDITION: return BASALT_INVALID_ARG;
    case GRPC_NOT_FOUND: return BASALT_NOT_FOUND;
    case GRPC_ALREADY_EXISTS:
    case GRPC_ABORTED: return BASALT_CONFLICT;
    case GRPC_UNAUTHENTICATED:
    case GRPC_PERMISSION_DENIED: return BASALT_AUTH;
    case GRPC_RESOURCE_EXHAUSTED: return BASALT_LIMIT;
    case GRPC_UNIMPLEMENTED: return BASALT_UNSUPPORTED;
    case GRPC_DATA_LOSS: return BASALT_CORRUPT;
    case GRPC_UNAVAILABLE:
    case GRPC_CANCELLED:
    case GRPC_DEADLINE_EXCEEDED: return BASALT_IO;
    default: return BASALT_INTERNAL;
    }
}

struct conn;

/* One call: an HTTP/2 stream. */
struct gstream {
    struct conn *conn;
    int32_t id;
    char method[64];
    char authorization[1024];
    bool bad_content_type, compressed_requests;
    /* Request messages are reassembled here (a message may span frames). */
    struct basalt_buffer in;
    void *call;
    const struct grpc_call_ops *ops;
    bool begun, finished, responded;
    /* The failure that ends the call (a Trailers-Only response when nothing
     * was sent yet). */
    enum grpc_code code;
    struct basalt_error err;
    /* The message being sent: its 5-byte gRPC prefix, then the pieces. */
    uint8_t prefix[5];
    struct basalt_ipc_piece pieces[MAX_IOV];
    const struct basalt_ipc_piece *msg_pieces;
    size_t n_msg_pieces;
    size_t piece_i, piece_off; /* cursor; piece -1 is the prefix */
    bool in_prefix;
    size_t pending;            /* bytes of the message not yet sent */
    bool done;                 /* the call yielded its last message */
    struct gstream *next_free;
};

struct grpc_server {
    struct grpc_server_config config;
    SSL_CTX *tls;               /* NULL: h2c */
    grpc_begin_fn begin;
    void *service;
    int listen_fd;
    int port;
    pthread_t accept_thread;
    pthread_mutex_t lock;
    struct conn *conns;
    int n_conns;
    atomic_bool stopping;
};

struct conn {
    struct grpc_server *server;
    int fd;
    SSL *ssl;                   /* TLS session, or NULL */
    nghttp2_session *session;
    pthread_t thread;
    bool failed;
    struct conn *next;
    atomic_bool finished;
};

/* ------------------------------------------------------------ socket i/o */

/* Writes every byte of iov[0, n): through TLS (one record per piece, the
 * library encrypting from the piece itself) or with writev. */
static bool write_all_iov(struct conn *c, struct iovec *iov, int n)
{
    if (c->ssl) {
        /* Small pieces (frame headers, protobuf tags) share a record. */
        uint8_t small[16384];
        size_t used = 0;
        for (int i = 0; i < n; i++) {
            size_t len = iov[i].iov_len;
            if (len <= 4096 && used + len <= sizeof small) {
                memcpy(small + used, iov[i].iov_base, len);
                used += len;
                continue;
            }
            if (used > 0 && SSL_write(c->ssl, small, (int)used) <= 0)
                return false;
            used = 0;
            if (len > 4096 && SSL_write(c->ssl, iov[i].iov_base, (int)len) <= 0)
                return false;
            if (len <= 4096) {
                memcpy(small, iov[i].iov_base, len);
                used = len;
            }
        }
        return used == 0 || SSL_write(c->ssl, small, (int)used) > 0;
    }
    int fd = c->fd;
    while (n > 0) {
        ssize_t w = writev(fd, iov, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        while (n > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (uint8_t *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    return true;
}

static ssize_t send_cb(nghttp2_session *session, const uint8_t *data, size_t length, int flags,
                       void *user_data)
{
    (void)session;
    (void)flags;
    struct conn *c = user_data;
    struct iovec iov = {(void *)(uintptr_t)data, length};
    if (!write_all_iov(c, &iov, 1)) {
        c->failed = true;
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    }
    return (ssize_t)length;
}

/* ------------------------------------------------------------ responses */

static void fail_call(struct gstream *s, enum grpc_code code, const struct basalt_error *err)
{
    if (s->code != GRPC_OK)
        return;
    s->code = code;
    if (err)
        s->err = *err;
}

/* grpc-message is percent-encoded (PROTOCOL-HTTP2.md). */
static void percent_encode(const char *in, char *out, size_t cap)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p && o + 4 < cap; p++) {
        if (*p >= 0x20 && *p <= 0x7E && *p != '%') {
            out[o++] = (char)*p;
        } else {
            out[o++] = '%';
            out[o++] = hex[*p >> 4];
            out[o++] = hex[*p & 15];
        }
    }
    out[o] = 0;
}

#define NV(n, v) {(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), NGHTTP2_NV_FLAG_NONE}

static int submit_trailers(struct gstream *s)
{
    char code[16], msg[3 * BASALT_ERROR_MESSAGE_MAX + 1];
    snprintf(code, sizeof code, "%d", (int)s->code);
    percent_encode(s->code == GRPC_OK ? "" : s->err.message, msg, sizeof msg);
    nghttp2_nv nv[2] = {NV("grpc-status", code), NV("grpc-message", msg)};
    return nghttp2_submit_trailer(s->conn->session, s->id, nv, s->code == GRPC_OK ? 1 : 2);
}

/* A response that is only trailers: the call failed before any message. */
static void respond_error(struct gstream *s)
{
    if (s->responded)
        return;
    s->responded = true;
    char code[16], msg[3 * BASALT_ERROR_MESSAGE_MAX + 1];
    snprintf(code, sizeof code, "%d", (int)s->code);
    percent_encode(s->err.message, msg, sizeof msg);
    nghttp2_nv nv[4] = {NV(":status", "200"), NV("content-type", "application/grpc"),
                        NV("grpc-status", code), NV("grpc-message", msg)};
    nghttp2_submit_response(s->conn->session, s->id, nv, 4, NULL);
    if (s->conn->server->config.verbose)
        fprintf(stderr, "flight: %s -> %d %s\n", s->method, (int)s->code, s->err.message);
}

static void log_call(const struct gstream *s)
{
    if (s->conn->server->config.verbose)
        fprintf(stderr, "flight: %s -> %d%s%s\n", s->method, (int)s->code,
                s->code ? " " : "", s->code ? s->err.message : "");
}

/* Asks the call for its next message and sets the cursor on it. */
static void pull_message(struct gstream *s)
{
    struct grpc_message_out out = {0};
    bool done = false;
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = s->ops->next(s->call, &out, &done, &err);
    if (st != BASALT_OK) {
        fail_call(s, basalt_grpc_code_of(st), &err);
        s->done = true;
        return;
    }
    if (done) {
        s->done = true;
        return;
    }
    s->prefix[0] = 0;
    s->prefix[1] = (uint8_t)(out.len >> 24);
    s->prefix[2] = (uint8_t)(out.len >> 16);
    s->prefix[3] = (uint8_t)(out.len >> 8);
    s->prefix[4] = (uint8_t)out.len;
    s->msg_pieces = out.pieces;
    s->n_msg_pieces = out.n_pieces;
    s->piece_i = 0;
    s->piece_off = 0;
    s->in_prefix = true;
    s->pending = 5 + out.len;
}

static ssize_t read_cb(nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t length,
                       uint32_t *data_flags, nghttp2_data_source *source, void *user_data)
{
    (void)session;
    (void)stream_id;
    (void)buf;
    (void)user_data;
    struct gstream *s = source->ptr;
    if (s->pending == 0 && !s->done)
        pull_message(s);
    if (s->pending == 0) {
        *data_flags |= NGHTTP2_DATA_FLAG_EOF | NGHTTP2_DATA_FLAG_NO_END_STREAM;
        log_call(s);
        if (submit_trailers(s) != 0)
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
        return 0;
    }
    *data_flags |= NGHTTP2_DATA_FLAG_NO_COPY;
    return (ssize_t)(length < s->pending ? length : s->pending);
}

/* DATA frames as large as the peer takes (its SETTINGS_MAX_FRAME_SIZE, 1 MiB
 * from basalt's client) and flow control allows: each frame is one writev,
 * so nghttp2's default of 16 KiB cost a system call per 16 KiB sent. */
static ssize_t read_length_cb(nghttp2_session *session, uint8_t frame_type, int32_t stream_id,
                              int32_t session_window, int32_t stream_window,
                              uint32_t max_frame, void *user_data)
{
    (void)session;
    (void)frame_type;
    (void)stream_id;
    (void)user_data;
    int64_t n = max_frame;
    if (session_window < n)
        n = session_window;
    if (stream_window < n)
        n = stream_window;
    return (ssize_t)(n > 0 ? n : 1);
}

/* Writes the DATA frame: its header, then `length` bytes from the cursor. */
static int send_data_cb(nghttp2_session *session, nghttp2_frame *frame, const uint8_t *framehd,
                        size_t length, nghttp2_data_source *source, void *user_data)
{
    (void)session;
    struct conn *c = user_data;
    struct gstream *s = source->ptr;
    struct iovec iov[MAX_IOV + 3];
    int n = 0;
    iov[n++] = (struct iovec){(void *)(uintptr_t)framehd, 9};
    /* Padding (never asked for here): the pad length byte, data, zeros. */
    size_t padlen = frame->data.padlen;
    static const uint8_t zeros[256];
    uint8_t padbyte = (uint8_t)(padlen > 0 ? padlen - 1 : 0);
    if (padlen > 0)
        iov[n++] = (struct iovec){&padbyte, 1};
    size_t left = length;
    while (left > 0) {
        if (n >= MAX_IOV + 1) {
            if (!write_all_iov(c, iov, n))
                goto failed;
            n = 0;
        }
        if (s->in_prefix) {
            size_t take = 5 - s->piece_off < left ? 5 - s->piece_off : left;
            iov[n++] = (struct iovec){s->prefix + s->piece_off, take};
            s->piece_off += take;
            left -= take;
            if (s->piece_off == 5) {
                s->in_prefix = false;
                s->piece_off = 0;
            }
            continue;
        }
        const struct basalt_ipc_piece *p = &s->msg_pieces[s->piece_i];
        size_t avail = p->len - s->piece_off;
        size_t take = avail < left ? avail : left;
        if (take > 0)
            iov[n++] = (struct iovec){(uint8_t *)(uintptr_t)p->data + s->piece_off, take};
        s->piece_off += take;
        left -= take;
        if (s->piece_off == p->len) {
            s->piece_i++;
            s->piece_off = 0;
        }
    }
    if (padlen > 1)
        iov[n++] = (struct iovec){(void *)(uintptr_t)zeros, padlen - 1};
    if (!write_all_iov(c, iov, n))
        goto failed;
    s->pending -= length;
    return 0;
failed:
    c->failed = true;
    return NGHTTP2_ERR_CALLBACK_FAILURE;
}

/* The client half-closed: finish the call and start the response. */
static void start_response(struct gstream *s)
{
    if (s->responded)
        return;
    if (s->code == GRPC_OK && s->begun && !s->finished) {
        s->finished = true;
        basalt_status st = s->ops->finish(s->call, &s->err);
        if (st != BASALT_OK)
            fail_call(s, basalt_grpc_code_of(st), NULL);
    }
    if (s->code != GRPC_OK) {
        respond_error(s);
        return;
    }
    s->responded = true;
    nghttp2_nv nv[2] = {NV(":status", "200"), NV("content-type", "application/grpc")};
    nghttp2_data_provider prd;
    prd.source.ptr = s;
    prd.read_callback = read_cb;
    nghttp2_submit_response(s->conn->session, s->id, nv, 2, &prd);
}

/* ------------------------------------------------------------ requests */

static int on_begin_headers(nghttp2_session *session, const nghttp2_frame *frame,
                            void *user_data)
{
    struct conn *c = user_data;
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    struct gstream *s = basalt_calloc(1, sizeof *s);
    if (!s)
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    s->conn = c;
    s->id = frame->hd.stream_id;
    basalt_error_init(&s->err);
    basalt_buffer_init(&s->in);
    nghttp2_session_set_stream_user_data(session, s->id, s);
    return 0;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name,
                     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
                     void *user_data)
{
    (void)flags;
    (void)user_data;
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    struct gstream *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (!s)
        return 0;
    if (namelen == 5 && !memcmp(name, ":path", 5)) {
        size_t pl = sizeof GRPC_PREFIX - 1;
        if (valuelen > pl && valuelen - pl < sizeof s->method && !memcmp(value, GRPC_PREFIX, pl)) {
            memcpy(s->method, value + pl, valuelen - pl);
            s->method[valuelen - pl] = 0;
        } else {
            snprintf(s->method, sizeof s->method, "?");
        }
    } else if (namelen == 13 && !memcmp(name, "authorization", 13)) {
        size_t n = valuelen < sizeof s->authorization - 1 ? valuelen : sizeof s->authorization - 1;
        memcpy(s->authorization, value, n);
        s->authorization[n] = 0;
    } else if (namelen == 12 && !memcmp(name, "content-type", 12)) {
        s->bad_content_type = !(valuelen >= 16 && !memcmp(value, "application/grpc", 16));
    }
    return 0;
}

/* The request headers are in: start the call. */
static void begin_call(struct gstream *s)
{
    struct grpc_server *srv = s->conn->server;
    if (s->bad_content_type) {
        struct basalt_error e;
        basalt_error_set(&e, BASALT_INVALID_ARG, "content-type is not application/grpc");
        fail_call(s, GRPC_INVALID_ARGUMENT, &e);
        return;
    }
    if (s->method[0] == 0 || s->method[0] == '?') {
        struct basalt_error e;
        basalt_error_set(&e, BASALT_NOT_FOUND, "not a Flight service method");
        fail_call(s, GRPC_UNIMPLEMENTED, &e);
        return;
    }
    basalt_status st = srv->begin(srv->service, s->method, s->authorization, &s->call, &s->ops,
                                  &s->err);
    if (st == BASALT_NOT_FOUND)
        fail_call(s, GRPC_UNIMPLEMENTED, NULL);
    else if (st != BASALT_OK)
        fail_call(s, basalt_grpc_code_of(st), NULL);
    else
        s->begun = true;
}

/* Splits the reassembled request bytes into gRPC messages. */
static void take_messages(struct gstream *s)
{
    size_t at = 0;
    while (s->code == GRPC_OK && s->in.size - at >= 5) {
        const uint8_t *p = s->in.data + at;
        uint32_t len = (uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 8 | p[4];
        if (p[0] != 0) {
            struct basalt_error e;
            basalt_error_set(&e, BASALT_UNSUPPORTED, "compressed request messages");
            fail_call(s, GRPC_UNIMPLEMENTED, &e);
            break;
        }
        if (len > s->conn->server->config.max_message) {
            struct basalt_error e;
            basalt_error_set(&e, BASALT_LIMIT, "request message of %u bytes over the limit of %zu",
                             len, s->conn->server->config.max_message);
            fail_call(s, GRPC_RESOURCE_EXHAUSTED, &e);
            break;
        }
        if (s->in.size - at - 5 < len)
            break;
        struct basalt_error e;
        basalt_error_init(&e);
        basalt_status st = s->ops->message(s->call, p + 5, len, &e);
        if (st != BASALT_OK)
            fail_call(s, basalt_grpc_code_of(st), &e);
        at += 5 + len;
    }
    if (at > 0) {
        memmove(s->in.data, s->in.data + at, s->in.size - at);
        s->in.size -= at;
    }
}

static int on_data_chunk(nghttp2_session *session, uint8_t flags, int32_t stream_id,
                         const uint8_t *data, size_t len, void *user_data)
{
    (void)flags;
    (void)user_data;
    struct gstream *s = nghttp2_session_get_stream_user_data(session, stream_id);
    if (!s || !s->begun || s->code != GRPC_OK)
        return 0;
    /* take_messages consumes every whole message at once, so what waits
     * here is one partial message, whose length it has checked: more is a
     * bug, refused rather than buffered. */
    if (s->in.size > s->conn->server->config.max_message + 5) {
        struct basalt_error e;
        basalt_error_set(&e, BASALT_LIMIT, "request over the message limit");
        fail_call(s, GRPC_RESOURCE_EXHAUSTED, &e);
        return 0;
    }
    struct basalt_error e;
    if (basalt_buffer_append(&s->in, data, len, &e) != BASALT_OK) {
        fail_call(s, GRPC_RESOURCE_EXHAUSTED, &e);
        return 0;
    }
    take_messages(s);
    return 0;
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame, void *user_data)
{
    (void)user_data;
    struct gstream *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (!s)
        return 0;
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST)
        begin_call(s);
    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
        if (s->code == GRPC_OK && s->in.size > 0) {
            struct basalt_error e;
            basalt_error_set(&e, BASALT_CORRUPT, "request ends inside a message");
            fail_call(s, GRPC_INTERNAL, &e);
        }
        start_response(s);
    } else if (s->code != GRPC_OK && !s->responded) {
        /* Fail early (the client may still be sending: what it sends is
         * dropped). No RST_STREAM: it could overtake the trailers. */
        respond_error(s);
    }
    return 0;
}

static int on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code,
                           void *user_data)
{
    (void)error_code;
    (void)user_data;
    struct gstream *s = nghttp2_session_get_stream_user_data(session, stream_id);
    if (!s)
        return 0;
    nghttp2_session_set_stream_user_data(session, stream_id, NULL);
    if (s->ops && s->call)
        s->ops->free(s->call);
    basalt_buffer_reset(&s->in);
    basalt_free(s);
    return 0;
}

/* ------------------------------------------------------------ connections */

/* The TLS handshake of a connection; false when it fails (the client went
 * away or spoke plain HTTP/2 to a TLS port). */
static bool tls_accept(struct conn *c)
{
    c->ssl = SSL_new(c->server->tls);
    if (!c->ssl || SSL_set_fd(c->ssl, c->fd) != 1 || SSL_accept(c->ssl) != 1) {
        if (c->server->config.verbose)
            fprintf(stderr, "flight: TLS handshake failed\n");
        ERR_clear_error();
        return false;
    }
    return true;
}

static void *conn_main(void *arg)
{
    struct conn *c = arg;
    struct grpc_server *srv = c->server;
    if (srv->tls && !tls_accept(c)) {
        SSL_free(c->ssl);
        c->ssl = NULL;
        shutdown(c->fd, SHUT_RDWR);
        atomic_store(&c->finished, true);
        return NULL;
    }
    nghttp2_session_callbacks *cbs;
    nghttp2_session_callbacks_new(&cbs);
    nghttp2_session_callbacks_set_send_callback(cbs, send_cb);
    nghttp2_session_callbacks_set_send_data_callback(cbs, send_data_cb);
    nghttp2_session_callbacks_set_data_source_read_length_callback(cbs, read_length_cb);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cbs, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, on_frame_recv);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_stream_close);
    int rv = nghttp2_session_server_new(&c->session, cbs, c);
    nghttp2_session_callbacks_del(cbs);
    if (rv == 0) {
        nghttp2_settings_entry iv[2] = {
            {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, srv->config.max_streams},
            {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1u << 24},
        };
        nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, iv, 2);
        /* Requests (DoPut) may stream large bodies: a wide connection window. */
        nghttp2_session_set_local_window_size(c->session, NGHTTP2_FLAG_NONE, 0, 1 << 30);
    }
    uint8_t *buf = basalt_malloc(1 << 16);
    while (rv == 0 && buf && !atomic_load(&srv->stopping)) {
        if (nghttp2_session_send(c->session) != 0 || c->failed)
            break;
        if (!nghttp2_session_want_read(c->session) && !nghttp2_session_want_write(c->session))
            break;
        ssize_t n = c->ssl ? SSL_read(c->ssl, buf, 1 << 16) : recv(c->fd, buf, 1 << 16, 0);
        if (n < 0 && errno == EINTR && !c->ssl)
            continue;
        if (n <= 0)
            break;
        if (nghttp2_session_mem_recv(c->session, buf, (size_t)n) < 0)
            break;
    }
    basalt_free(buf);
    if (c->session)
        nghttp2_session_del(c->session); /* closes the streams: their calls are freed */
    c->session = NULL;
    if (c->ssl) {
        SSL_shutdown(c->ssl);
        SSL_free(c->ssl);
        c->ssl = NULL;
    }
    shutdown(c->fd, SHUT_RDWR);
    atomic_store(&c->finished, true);
    return NULL;
}

/* ALPN: gRPC over TLS is h2. */
static int select_h2(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                     const unsigned char *in, unsigned int inlen, void *arg)
{
    (void)ssl;
    (void)arg;
    static const unsigned char h2[] = {2, 'h', '2'};
    unsigned char *sel;
    if (SSL_select_next_proto(&sel, outlen, h2, sizeof h2, in, inlen) != OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    *out = sel;
    return SSL_TLSEXT_ERR_OK;
}

static basalt_status tls_context(struct grpc_server *srv, struct basalt_error *err)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx)
        return basalt_error_set(err, BASALT_NOMEM, "flight server: TLS context");
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_alpn_select_cb(ctx, select_h2, NULL);
    if (SSL_CTX_use_certificate_chain_file(ctx, srv->config.tls_cert) != 1 ||
        SSL_CTX_use_PrivateKey_file(ctx, srv->config.tls_key, SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(ctx) != 1) {
        char msg[256];
        ERR_error_string_n(ERR_get_error(), msg, sizeof msg);
        SSL_CTX_free(ctx);
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight server: TLS certificate %s or "
                                "key %s: %s", srv->config.tls_cert, srv->config.tls_key, msg);
    }
    srv->tls = ctx;
    return BASALT_OK;
}

/* Joins connections that ended (all of them when `all`). */
static void reap(struct grpc_server *srv, bool all)
{
    pthread_mutex_lock(&srv->lock);
    struct conn **pp = &srv->conns;
    while (*pp) {
        struct conn *c = *pp;
        if (all)
            shutdown(c->fd, SHUT_RDWR);
        if (all || atomic_load(&c->finished)) {
            *pp = c->next;
            pthread_mutex_unlock(&srv->lock);
            pthread_join(c->thread, NULL);
            close(c->fd);
            basalt_free(c);
            pthread_mutex_lock(&srv->lock);
            srv->n_conns--;
            continue;
        }
        pp = &c->next;
    }
    pthread_mutex_unlock(&srv->lock);
}

static void *accept_main(void *arg)
{
    struct grpc_server *srv = arg;
    while (!atomic_load(&srv->stopping)) {
        struct pollfd pfd = {srv->listen_fd, POLLIN, 0};
        int pr = poll(&pfd, 1, 200);
        reap(srv, false);
        if (pr <= 0)
            continue;
        int fd = accept(srv->listen_fd, NULL, NULL);
        if (fd < 0)
            continue;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pthread_mutex_lock(&srv->lock);
        bool full = srv->n_conns >= srv->config.max_connections;
        pthread_mutex_unlock(&srv->lock);
        struct conn *c = full ? NULL : basalt_calloc(1, sizeof *c);
        if (!c) {
            close(fd);
            continue;
        }
        c->server = srv;
        c->fd = fd;
        atomic_init(&c->finished, false);
        if (pthread_create(&c->thread, NULL, conn_main, c) != 0) {
            close(fd);
            basalt_free(c);
            continue;
        }
        pthread_mutex_lock(&srv->lock);
        c->next = srv->conns;
        srv->conns = c;
        srv->n_conns++;
        pthread_mutex_unlock(&srv->lock);
    }
    return NULL;
}

basalt_status basalt_grpc_server_start(const struct grpc_server_config *config,
                                       grpc_begin_fn begin, void *service,
                                       struct grpc_server **out, struct basalt_error *err)
{
    *out = NULL;
    struct grpc_server *srv = basalt_calloc(1, sizeof *srv);
    if (!srv)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    srv->config = *config;
    if (!srv->config.host)
        srv->config.host = "127.0.0.1";
    if (srv->config.max_message == 0)
        srv->config.max_message = 64u << 20;
    if (srv->config.max_streams == 0)
        srv->config.max_streams = 100;
    if (srv->config.max_connections <= 0)
        srv->config.max_connections = 256;
    srv->begin = begin;
    srv->service = service;
    if (srv->config.tls_cert || srv->config.tls_key) {
        basalt_status st = srv->config.tls_cert && srv->config.tls_key
                               ? tls_context(srv, err)
                               : basalt_error_set(err, BASALT_INVALID_ARG, "flight server: TLS "
                                                  "needs both a certificate and a key");
        if (st != BASALT_OK) {
            basalt_free(srv);
            return st;
        }
    }
    pthread_mutex_init(&srv->lock, NULL);
    atomic_init(&srv->stopping, false);
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)config->port);
    if (inet_pton(AF_INET, srv->config.host, &addr.sin_addr) != 1) {
        SSL_CTX_free(srv->tls);
        basalt_free(srv);
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight server: host '%s' is not an IPv4 "
                                "address", srv->config.host);
    }
    srv->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(srv->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    socklen_t alen = sizeof addr;
    if (srv->listen_fd < 0 || bind(srv->listen_fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        listen(srv->listen_fd, 64) != 0 ||
        getsockname(srv->listen_fd, (struct sockaddr *)&addr, &alen) != 0) {
        int e = errno;
        if (srv->listen_fd >= 0)
            close(srv->listen_fd);
        SSL_CTX_free(srv->tls);
        basalt_free(srv);
        return basalt_error_set(err, BASALT_IO, "flight server: cannot listen on %s:%d: %s",
                                config->host ? config->host : "127.0.0.1", config->port,
                                strerror(e));
    }
    srv->port = ntohs(addr.sin_port);
    if (pthread_create(&srv->accept_thread, NULL, accept_main, srv) != 0) {
        close(srv->listen_fd);
        SSL_CTX_free(srv->tls);
        basalt_free(srv);
        return basalt_error_set(err, BASALT_IO, "flight server: cannot start a thread");
    }
    *out = srv;
    return BASALT_OK;
}

int basalt_grpc_server_port(const struct grpc_server *srv)
{
    return srv->port;
}

void basalt_grpc_server_stop(struct grpc_server *srv)
{
    if (!srv)
        return;
    atomic_store(&srv->stopping, true);
    pthread_join(srv->accept_thread, NULL);
    close(srv->listen_fd);
    reap(srv, true);
    pthread_mutex_destroy(&srv->lock);
    SSL_CTX_free(srv->tls);
    basalt_free(srv);
}
