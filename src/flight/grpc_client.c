/* The gRPC client transport: one HTTP/2 connection (h2c, prior knowledge)
 * on nghttp2 over a blocking socket, one call at a time. Response messages
 * are reassembled straight into one allocation each (the only copy on this
 * side); request messages are queued and sent as flow control allows. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "grpc_internal.h"

struct rmsg {
    uint8_t *block; /* the allocation; data lies inside it */
    uint8_t *data;
    size_t len;
};

/* A placed message's first bytes are staged until the placement function
 * can say where its payload starts; past this many it is placed at its
 * start. */
#define PLACE_STAGE_MAX 65536

struct grpc_client_call {
    struct grpc_client *client;
    int32_t stream_id;
    /* Request bytes not yet sent (gRPC framed). */
    struct basalt_buffer out;
    size_t out_off;
    bool out_last, deferred;
    /* Response: the message being reassembled, then the queue. */
    uint8_t head[5];
    size_t head_fill;
    uint8_t *cur_block, *cur;
    size_t cur_len, cur_fill;
    grpc_place_fn place;        /* NULL: messages start their allocation */
    struct basalt_buffer stage; /* a placed message's first bytes */
    bool staging;
    struct rmsg *queue;
    size_t q_head, q_n, q_cap;
    bool closed;
    int grpc_status; /* -1 until the trailers (or a Trailers-Only response) */
    char grpc_message[BASALT_ERROR_MESSAGE_MAX];
    int http_status;
    basalt_status failure; /* a local failure (limits, memory) */
    struct basalt_error failure_err;
};

struct grpc_client {
    int fd;
    SSL_CTX *tls_ctx;
    SSL *ssl;          /* NULL: h2c */
    nghttp2_session *session;
    char authority[300];
    char authorization[1024];
    size_t max_message;
    struct grpc_client_call *active;
    bool failed;
    char fail_reason[128];
    uint8_t *rbuf; /* RBUF_SIZE bytes read from the socket at a time */
    unsigned timeout_ms;
};

#define RBUF_SIZE (1 << 18)

static ssize_t send_cb(nghttp2_session *session, const uint8_t *data, size_t length, int flags,
                       void *user_data)
{
    (void)session;
    (void)flags;
    struct grpc_client *c = user_data;
    if (c->ssl) {
        if (SSL_write(c->ssl, data, (int)length) <= 0) {
            c->failed = true;
            snprintf(c->fail_reason, sizeof c->fail_reason, "TLS write failed");
            return NGHTTP2_ERR_CALLBACK_FAILURE;
        }
        return (ssize_t)length;
    }
    size_t done = 0;
    while (done < length) {
        ssize_t w = send(c->fd, data + done, length - done, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            c->failed = true;
            snprintf(c->fail_reason, sizeof c->fail_reason, "send: %s", strerror(errno));
            return NGHTTP2_ERR_CALLBACK_FAILURE;
        }
        done += (size_t)w;
    }
    return (ssize_t)length;
}

static ssize_t req_read_cb(nghttp2_session *session, int32_t stream_id, uint8_t *buf,
                           size_t length, uint32_t *data_flags, nghttp2_data_source *source,
                           void *user_data)
{
    (void)session;
    (void)stream_id;
    (void)user_data;
    struct grpc_client_call *call = source->ptr;
    size_t avail = call->out.size - call->out_off;
    if (avail == 0) {
        if (call->out_last) {
            *data_flags |= NGHTTP2_DATA_FLAG_EOF;
            return 0;
        }
        call->deferred = true;
        return NGHTTP2_ERR_DEFERRED;
    }
    size_t n = avail < length ? avail : length;
    memcpy(buf, call->out.data + call->out_off, n);
    call->out_off += n;
    if (call->out_off == call->out.size) {
        call->out.size = 0;
        call->out_off = 0;
        if (call->out_last)
            *data_flags |= NGHTTP2_DATA_FLAG_EOF;
    }
    return (ssize_t)n;
}

static void call_fail(struct grpc_client_call *call, basalt_status st, const char *msg)
{
    if (call->failure == BASALT_OK) {
        call->failure = st;
        basalt_error_set(&call->failure_err, st, "%s", msg);
    }
}

static bool queue_push(struct grpc_client_call *call, uint8_t *block, uint8_t *data, size_t len)
{
    if (call->q_head + call->q_n == call->q_cap) {
        if (call->q_head > 0) {
            memmove(call->queue, call->queue + call->q_head, call->q_n * sizeof *call->queue);
            call->q_head = 0;
        } else {
            size_t cap = call->q_cap ? 2 * call->q_cap : 8;
            struct rmsg *q = basalt_realloc(call->queue, cap * sizeof *q);
            if (!q)
                return false;
            call->queue = q;
            call->q_cap = cap;
        }
    }
    call->queue[call->q_head + call->q_n++] = (struct rmsg){block, data, len};
    return true;
}

/* Allocates the message being received so that its byte `at` sits 64-byte
 * aligned (Arrow buffers decoded in place stay aligned). */
static bool start_message(struct grpc_client_call *call, size_t at)
{
    size_t pad = (64 - at % 64) % 64;
    size_t size = (pad + call->cur_len + 63) & ~(size_t)63;
    call->cur_block = basalt_aligned_alloc(64, size ? size : 64);
    if (!call->cur_block) {
        call_fail(call, BASALT_NOMEM, "out of memory for a response message");
        return false;
    }
    call->cur = call->cur_block + pad;
    return true;
}

static int on_data_chunk(nghttp2_session *session, uint8_t flags, int32_t stream_id,
                         const uint8_t *data, size_t len, void *user_data)
{
    (void)session;
    (void)flags;
    struct grpc_client *c = user_data;
    struct grpc_client_call *call = c->active;
    if (!call || call->stream_id != stream_id || call->failure != BASALT_OK)
        return 0;
    while (len > 0) {
        if (!call->cur && !call->staging) {
            size_t take = 5 - call->head_fill < len ? 5 - call->head_fill : len;
            memcpy(call->head + call->head_fill, data, take);
            call->head_fill += take;
            data += take;
            len -= take;
            if (call->head_fill < 5)
                return 0;
            if (call->head[0] != 0) {
                call_fail(call, BASALT_UNSUPPORTED, "compressed response messages");
                return 0;
            }
            size_t mlen = (size_t)call->head[1] << 24 | (size_t)call->head[2] << 16 |
                          (size_t)call->head[3] << 8 | call->head[4];
            if (mlen > c->max_message) {
                char m[96];
                snprintf(m, sizeof m, "response message of %zu bytes over the limit of %zu", mlen,
                         c->max_message);
                call_fail(call, BASALT_LIMIT, m);
                return 0;
            }
            call->cur_len = mlen;
            call->cur_fill = 0;
            call->staging = call->place != NULL && mlen > 0;
            call->stage.size = 0;
            if (!call->staging && !start_message(call, 0))
                return 0;
        }
        if (call->staging) {
            /* Stage the first bytes until the placement is known. */
            size_t room = (call->cur_len < PLACE_STAGE_MAX ? call->cur_len : PLACE_STAGE_MAX) -
                          call->stage.size;
            size_t take = room < len ? room : len;
            if (basalt_buffer_append(&call->stage, data, take, NULL) != BASALT_OK) {
                call_fail(call, BASALT_NOMEM, "out of memory for a response message");
                return 0;
            }
            data += take;
            len -= take;
            size_t at = call->place(call->stage.data, call->stage.size, call->cur_len);
            if (at == GRPC_PLACE_MORE) {
                if (call->stage.size < call->cur_len && call->stage.size < PLACE_STAGE_MAX)
                    return 0; /* len is used up */
                at = 0;
            }
            if (!start_message(call, at))
                return 0;
            memcpy(call->cur, call->stage.data, call->stage.size);
            call->cur_fill = call->stage.size;
            call->staging = false;
        }
        size_t take = call->cur_len - call->cur_fill < len ? call->cur_len - call->cur_fill : len;
        memcpy(call->cur + call->cur_fill, data, take);
        call->cur_fill += take;
        data += take;
        len -= take;
        if (call->cur_fill == call->cur_len) {
            if (!queue_push(call, call->cur_block, call->cur, call->cur_len)) {
                basalt_free(call->cur_block);
                call_fail(call, BASALT_NOMEM, "out of memory");
            }
            call->cur_block = NULL;
            call->cur = NULL;
            call->head_fill = 0;
        }
    }
    return 0;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name,
                     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
                     void *user_data)
{
    (void)session;
    (void)flags;
    struct grpc_client *c = user_data;
    struct grpc_client_call *call = c->active;
    if (!call || frame->hd.stream_id != call->stream_id)
        return 0;
    if (namelen == 7 && !memcmp(name, ":status", 7)) {
        call->http_status = atoi((const char *)value);
    } else if (namelen == 11 && !memcmp(name, "grpc-status", 11)) {
        char v[16] = {0};
        memcpy(v, value, valuelen < 15 ? valuelen : 15);
        call->grpc_status = atoi(v);
    } else if (namelen == 12 && !memcmp(name, "grpc-message", 12)) {
        /* Percent-decoded. */
        size_t o = 0;
        for (size_t i = 0; i < valuelen && o + 1 < sizeof call->grpc_message; i++) {
            if (value[i] == '%' && i + 2 < valuelen) {
                char hx[3] = {(char)value[i + 1], (char)value[i + 2], 0};
                call->grpc_message[o++] = (char)strtol(hx, NULL, 16);
                i += 2;
            } else {
                call->grpc_message[o++] = (char)value[i];
            }
        }
        call->grpc_message[o] = 0;
    }
    return 0;
}

static int on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code,
                           void *user_data)
{
    (void)session;
    struct grpc_client *c = user_data;
    struct grpc_client_call *call = c->active;
    if (call && call->stream_id == stream_id) {
        call->closed = true;
        if (call->grpc_status < 0 && error_code != NGHTTP2_NO_ERROR) {
            char m[64];
            snprintf(m, sizeof m, "stream reset by the server (HTTP/2 error %u)", error_code);
            call_fail(call, BASALT_IO, m);
        } else if (call->cur || call->staging || call->head_fill > 0) {
            call_fail(call, BASALT_CORRUPT, "the response ended inside a message");
        }
    }
    return 0;
}

/* One round: send what may be sent, then read what arrived. */
static basalt_status pump(struct grpc_client *c, struct basalt_error *err)
{
    if (nghttp2_session_send(c->session) != 0 || c->failed)
        return basalt_error_set(err, BASALT_IO, "flight: connection lost (%s)",
                                c->fail_reason[0] ? c->fail_reason : "send");
    ssize_t n;
    if (c->ssl)
        n = SSL_read(c->ssl, c->rbuf, RBUF_SIZE);
    else
        do
            n = recv(c->fd, c->rbuf, RBUF_SIZE, 0);
        while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        c->failed = true;
        return basalt_error_set(err, BASALT_IO, "flight: no answer from the server within %u ms",
                                c->timeout_ms);
    }
    if (n <= 0) {
        c->failed = true;
        return basalt_error_set(err, BASALT_IO, "flight: connection closed by the server%s%s",
                                n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
    }
    ssize_t rv = nghttp2_session_mem_recv(c->session, c->rbuf, (size_t)n);
    if (rv < 0) {
        c->failed = true;
        return basalt_error_set(err, BASALT_IO, "flight: HTTP/2: %s", nghttp2_strerror((int)rv));
    }
    return BASALT_OK;
}

/* TLS with ALPN h2 on the connected socket; the server's certificate is
 * verified against `ca_file` (or the system's CAs) and `host`. */
static basalt_status tls_connect(struct grpc_client *c, const char *host, const char *ca_file,
                                 struct basalt_error *err)
{
    c->tls_ctx = SSL_CTX_new(TLS_client_method());
    if (!c->tls_ctx)
        return basalt_error_set(err, BASALT_NOMEM, "flight: TLS context");
    SSL_CTX_set_min_proto_version(c->tls_ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(c->tls_ctx, SSL_VERIFY_PEER, NULL);
    int ok = ca_file ? SSL_CTX_load_verify_locations(c->tls_ctx, ca_file, NULL)
                     : SSL_CTX_set_default_verify_paths(c->tls_ctx);
    static const unsigned char h2[] = {2, 'h', '2'};
    c->ssl = ok == 1 ? SSL_new(c->tls_ctx) : NULL;
    if (c->ssl) {
        SSL_set_fd(c->ssl, c->fd);
        char sni[256]; /* the macro takes a non-const name */
        snprintf(sni, sizeof sni, "%s", host);
        SSL_set_tlsext_host_name(c->ssl, sni);
        SSL_set1_host(c->ssl, host);
        SSL_set_alpn_protos(c->ssl, h2, sizeof h2);
    }
    if (!c->ssl || SSL_connect(c->ssl) != 1) {
        char msg[256] = "";
        unsigned long e = ERR_get_error();
        if (e)
            ERR_error_string_n(e, msg, sizeof msg);
        long v = c->ssl ? SSL_get_verify_result(c->ssl) : X509_V_OK;
        return basalt_error_set(err, BASALT_IO, "flight: TLS with %s failed: %s%s%s", host,
                                v != X509_V_OK ? X509_verify_cert_error_string(v) : msg,
                                ca_file ? " (CA file " : "", ca_file ? ca_file : "");
    }
    const unsigned char *proto = NULL;
    unsigned int plen = 0;
    SSL_get0_alpn_selected(c->ssl, &proto, &plen);
    if (plen != 2 || memcmp(proto, "h2", 2) != 0)
        return basalt_error_set(err, BASALT_IO, "flight: %s did not agree to HTTP/2 (ALPN)", host);
    return BASALT_OK;
}

static void tls_free(struct grpc_client *c)
{
    if (c->ssl) {
        SSL_shutdown(c->ssl);
        SSL_free(c->ssl);
    }
    SSL_CTX_free(c->tls_ctx);
}

basalt_status basalt_grpc_client_connect(const char *host, int port, bool tls, const char *ca_file,
                                         const char *authorization, size_t max_message,
                                         unsigned timeout_ms, struct grpc_client **out,
                                         struct basalt_error *err)
{
    *out = NULL;
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", port);
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int gai = getaddrinfo(host, portstr, &hints, &res);
    if (gai != 0)
        return basalt_error_set(err, BASALT_IO, "flight: cannot resolve %s: %s", host,
                                gai_strerror(gai));
    int fd = -1;
    int e = 0;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            e = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        return basalt_error_set(err, BASALT_IO, "flight: cannot connect to %s:%d: %s", host, port,
                                strerror(e));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (timeout_ms > 0) {
        struct timeval tv = {(time_t)(timeout_ms / 1000), (suseconds_t)(timeout_ms % 1000) * 1000};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    }
    struct grpc_client *c = basalt_calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    c->fd = fd;
    c->timeout_ms = timeout_ms;
    c->rbuf = basalt_malloc(RBUF_SIZE);
    if (!c->rbuf) {
        close(fd);
        basalt_free(c);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    c->max_message = max_message ? max_message : (size_t)1 << 31;
    if (tls) {
        basalt_status st = tls_connect(c, host, ca_file, err);
        if (st != BASALT_OK) {
            tls_free(c);
            close(fd);
            basalt_free(c->rbuf);
            basalt_free(c);
            return st;
        }
    }
    snprintf(c->authority, sizeof c->authority, "%s:%d", host, port);
    if (authorization)
        snprintf(c->authorization, sizeof c->authorization, "%s", authorization);
    nghttp2_session_callbacks *cbs;
    nghttp2_session_callbacks_new(&cbs);
    nghttp2_session_callbacks_set_send_callback(cbs, send_cb);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, on_data_chunk);
    nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_stream_close);
    int rv = nghttp2_session_client_new(&c->session, cbs, c);
    nghttp2_session_callbacks_del(cbs);
    if (rv != 0) {
        tls_free(c);
        close(fd);
        basalt_free(c->rbuf);
        basalt_free(c);
        return basalt_error_set(err, BASALT_NOMEM, "flight: HTTP/2 session: %s",
                                nghttp2_strerror(rv));
    }
    /* Wide windows: a DoGet streams as fast as the server decodes. */
    nghttp2_settings_entry iv[2] = {{NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1u << 26},
                                    {NGHTTP2_SETTINGS_MAX_FRAME_SIZE, 1u << 20}};
    nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, iv, 2);
    nghttp2_session_set_local_window_size(c->session, NGHTTP2_FLAG_NONE, 0, 1 << 30);
    *out = c;
    return BASALT_OK;
}

void basalt_grpc_client_close(struct grpc_client *c)
{
    if (!c)
        return;
    if (c->session) {
        nghttp2_session_terminate_session(c->session, NGHTTP2_NO_ERROR);
        nghttp2_session_send(c->session);
        nghttp2_session_del(c->session);
    }
    tls_free(c);
    close(c->fd);
    basalt_free(c->rbuf);
    basalt_free(c);
}

#define NV(n, v) {(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), NGHTTP2_NV_FLAG_NONE}

basalt_status basalt_grpc_call_start(struct grpc_client *c, const char *method,
                                     struct grpc_client_call **out, struct basalt_error *err)
{
    *out = NULL;
    if (c->active)
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight: a call is already running on "
                                                         "this connection");
    if (c->failed)
        return basalt_error_set(err, BASALT_IO, "flight: the connection was lost");
    struct grpc_client_call *call = basalt_calloc(1, sizeof *call);
    if (!call)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    call->client = c;
    call->grpc_status = -1;
    basalt_buffer_init(&call->out);
    basalt_buffer_init(&call->stage);
    basalt_error_init(&call->failure_err);
    char path[128];
    snprintf(path, sizeof path, "/arrow.flight.protocol.FlightService/%s", method);
    nghttp2_nv nv[8] = {NV(":method", "POST"), NV(":scheme", c->ssl ? "https" : "http"),
                        NV(":path", path),
                        NV(":authority", c->authority), NV("content-type", "application/grpc"),
                        NV("te", "trailers"), NV("user-agent", "basalt-flight")};
    size_t nnv = 7;
    if (c->authorization[0])
        nv[nnv++] = (nghttp2_nv)NV("authorization", c->authorization);
    nghttp2_data_provider prd;
    prd.source.ptr = call;
    prd.read_callback = req_read_cb;
    int32_t id = nghttp2_submit_request(c->session, NULL, nv, nnv, &prd, call);
    if (id < 0) {
        basalt_free(call);
        return basalt_error_set(err, BASALT_IO, "flight: request: %s", nghttp2_strerror(id));
    }
    call->stream_id = id;
    c->active = call;
    *out = call;
    return BASALT_OK;
}

/* Sends what is queued (and the end of the request when out_last). */
static basalt_status flush_request(struct grpc_client_call *call, struct basalt_error *err);

basalt_status basalt_grpc_call_send(struct grpc_client_call *call,
                                    const struct basalt_ipc_piece *pieces, size_t n_pieces,
                                    bool last, struct basalt_error *err)
{
    size_t len = 0;
    for (size_t i = 0; i < n_pieces; i++)
        len += pieces[i].len;
    uint8_t prefix[5] = {0, (uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8),
                         (uint8_t)len};
    basalt_status st = basalt_buffer_append(&call->out, prefix, 5, err);
    for (size_t i = 0; st == BASALT_OK && i < n_pieces; i++)
        st = basalt_buffer_append(&call->out, pieces[i].data, pieces[i].len, err);
    if (st != BASALT_OK)
        return st;
    call->out_last = last;
    return flush_request(call, err);
}

basalt_status basalt_grpc_call_close_send(struct grpc_client_call *call, struct basalt_error *err)
{
    call->out_last = true;
    return flush_request(call, err);
}

static basalt_status flush_request(struct grpc_client_call *call, struct basalt_error *err)
{
    struct grpc_client *c = call->client;
    basalt_status st;
    if (call->deferred) {
        call->deferred = false;
        nghttp2_session_resume_data(c->session, call->stream_id);
    }
    /* Send it now; wait for window updates while it does not fit. */
    while (call->out.size > call->out_off && !call->closed) {
        if (nghttp2_session_send(c->session) != 0 || c->failed)
            return basalt_error_set(err, BASALT_IO, "flight: connection lost");
        if (call->out.size > call->out_off && !call->closed) {
            st = pump(c, err);
            if (st != BASALT_OK)
                return st;
        }
    }
    if (nghttp2_session_send(c->session) != 0 || c->failed)
        return basalt_error_set(err, BASALT_IO, "flight: connection lost");
    return BASALT_OK;
}

void basalt_grpc_call_set_placement(struct grpc_client_call *call, grpc_place_fn place)
{
    call->place = place;
}

basalt_status basalt_grpc_call_next_placed(struct grpc_client_call *call, uint8_t **block,
                                           uint8_t **data, size_t *len, struct basalt_error *err)
{
    *block = NULL;
    *data = NULL;
    *len = 0;
    for (;;) {
        if (call->failure != BASALT_OK) {
            if (err)
                *err = call->failure_err;
            return call->failure;
        }
        if (call->q_n > 0) {
            *block = call->queue[call->q_head].block;
            *data = call->queue[call->q_head].data;
            *len = call->queue[call->q_head].len;
            call->q_head++;
            call->q_n--;
            return BASALT_OK;
        }
        if (call->closed) {
            if (call->grpc_status < 0)
                return basalt_error_set(err, BASALT_IO, "flight: the call ended without a "
                                                        "status (HTTP %d)", call->http_status);
            if (call->grpc_status != GRPC_OK)
                return basalt_error_set(err, basalt_grpc_status_of(call->grpc_status),
                                        "flight: server: %s (gRPC status %d)",
                                        call->grpc_message, call->grpc_status);
            return BASALT_OK;
        }
        basalt_status st = pump(call->client, err);
        if (st != BASALT_OK)
            return st;
    }
}

basalt_status basalt_grpc_call_next(struct grpc_client_call *call, uint8_t **data, size_t *len,
                                    struct basalt_error *err)
{
    uint8_t *block;
    return basalt_grpc_call_next_placed(call, &block, data, len, err);
}

void basalt_grpc_call_free(struct grpc_client_call *call)
{
    if (!call)
        return;
    struct grpc_client *c = call->client;
    if (!call->closed && !c->failed) {
        nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, call->stream_id,
                                  NGHTTP2_CANCEL);
        nghttp2_session_send(c->session);
    }
    nghttp2_session_set_stream_user_data(c->session, call->stream_id, NULL);
    for (size_t i = 0; i < call->q_n; i++)
        basalt_free(call->queue[call->q_head + i].block);
    basalt_free(call->queue);
    basalt_free(call->cur_block);
    basalt_buffer_reset(&call->stage);
    basalt_buffer_reset(&call->out);
    c->active = NULL;
    basalt_free(call);
}
