/* HTTP for the remote backends, on libcurl.
 *
 * One client per store: a curl share handle (connections, DNS, TLS
 * sessions), the retry policy and the counters. Requests run in batches on a
 * curl multi handle, at most max_concurrency at a time; each request is
 * retried on its own (backoff with full jitter) and a range read that breaks
 * mid-body resumes from the byte reached. Nothing here knows S3 or Azure:
 * a signer callback adds their authentication before each attempt. */
#ifndef BASALT_IO_HTTP_H
#define BASALT_IO_HTTP_H

#include <stdarg.h>

#include "basalt/io.h"

/* Request headers with their own storage ("Name" and "value" kept apart so
 * signers can canonicalise them). */
#define BASALT_HTTP_MAX_HEADERS 24
struct basalt_http_headers {
    size_t count;
    const char *name[BASALT_HTTP_MAX_HEADERS];
    const char *value[BASALT_HTTP_MAX_HEADERS];
    size_t used;
    char storage[16384]; /* bearer tokens from identity providers run to kilobytes */
};

void basalt_http_headers_init(struct basalt_http_headers *h);
/* Appends a header; LIMIT when the list is full. */
basalt_status basalt_http_headers_add(struct basalt_http_headers *h, const char *name,
                                      struct basalt_error *err, const char *fmt, ...)
    BASALT_PRINTF(4, 5);
/* The value of `name` (case-insensitive), or NULL. */
const char *basalt_http_headers_get(const struct basalt_http_headers *h, const char *name);

/* Adds authentication to one attempt of a request: called with the request's
 * headers already copied into `h` (Range included), it appends its own (date,
 * token, Authorization). `payload_hash` is the hex SHA-256 of the body or
 * "UNSIGNED-PAYLOAD". */
struct basalt_http_signer {
    basalt_status (*sign)(const struct basalt_http_signer *signer, const char *method,
                          const char *url, struct basalt_http_headers *h,
                          const char *payload_hash, uint64_t body_len,
                          struct basalt_error *err);
};

/* How a request may be retried. */
enum basalt_http_retry {
    /* GET, HEAD, PUT of a whole object or part, DELETE: any failure. */
    BASALT_HTTP_RETRY_IDEMPOTENT = 0,
    /* Steps that must not run twice (create a multipart upload, conditional
     * create): only when the server certainly did not act on it, i.e. the
     * connection never opened or the server answered 429/503. */
    BASALT_HTTP_RETRY_UNSAFE,
    /* Only when the server certainly did not act on it, 503 excluded: the
     * connection never opened, or 429 (a REST catalog commit that got 503
     * has an unknown outcome). */
    BASALT_HTTP_RETRY_UNSENT,
};

struct basalt_http_response;

struct basalt_http_request {
    const char *method; /* "GET", "HEAD", "PUT", "POST", "DELETE" */
    const char *url;    /* encoded */
    const struct basalt_http_headers *headers; /* NULL: none */
    const struct basalt_http_signer *signer;   /* NULL: unsigned */
    const void *body;
    size_t body_len;
    const char *payload_hash; /* NULL: computed from the body when signed */
    enum basalt_http_retry retry;
    /* A range read: bytes [offset, offset + length), checked against the
     * response's Content-Range, written straight into `dst`. With `suffix`,
     * the last `length` bytes instead (offset is ignored; the response's
     * total size lands in object_size and the bytes in body). */
    bool range;
    bool suffix;
    uint64_t offset;
    uint64_t length;
    uint8_t *dst;
    /* A streamed range read: the bytes go to `sink`, in order, as they
     * arrive, instead of into `dst` (which stays NULL), so an object of any
     * size moves through bounded memory. A body that breaks resumes from
     * the byte reached and every byte reaches the sink once. The retry
     * limits (max_attempts, retry_budget_ms) count the attempts in a row
     * that brought no new byte: a long body may break many times as long
     * as each try moves it on. A non-OK status from the sink ends the
     * request with that status and the sink's message. Called on the
     * thread running the batch; `len` is at most a few tens of KiB. */
    basalt_status (*sink)(void *arg, const uint8_t *data, size_t len, struct basalt_error *err);
    void *sink_arg;
    /* With offset 0: `length` is the whole object, so the first attempt
     * sends no Range (a plain GET, answered 200; its Content-Length, when
     * given, must be `length`). Resumed attempts ask for the rest. */
    bool whole;
    /* The ETag the object must still have (If-Match); NULL: any. */
    const char *if_match;
    /* Largest body kept in `body` (error documents, XML); default 64 MiB. */
    size_t max_body;
    /* Called, on the thread running the batch, as soon as this request has
     * its final response (before the rest of the batch is done), so a
     * consumer can use its bytes early. NULL: none. */
    void (*on_complete)(void *arg, const struct basalt_http_response *resp);
    void *on_complete_arg;
    /* The order in which the batch's bodies are wanted: while a body of a
     * smaller nonzero `order` is arriving, a larger one is held back (its
     * transfer paused after the response began), so the connections do
     * not share the link evenly and the bytes needed first land first,
     * while every request is still sent at once and their round trips
     * overlap. 0: not ordered, never held back. */
    unsigned order;
};

struct basalt_http_response {
    long status;        /* final HTTP status; 0 when no response came */
    uint8_t *body;      /* owned; NUL-terminated; NULL when written to dst */
    size_t body_len;
    uint64_t received;  /* bytes written into dst */
    uint64_t object_size; /* total from Content-Range, or Content-Length of a 200 */
    bool have_object_size;
    char etag[BASALT_IO_ETAG_MAX];
    int64_t last_modified_ms;
    unsigned attempts;
};

void basalt_http_response_init(struct basalt_http_response *r);
void basalt_http_response_free(struct basalt_http_response *r);

struct basalt_http_client;

basalt_status basalt_http_client_new(const struct basalt_io_options *options,
                                     struct basalt_http_client **out, struct basalt_error *err);
void basalt_http_client_free(struct basalt_http_client *c);
void basalt_http_client_stats(const struct basalt_http_client *c, struct basalt_io_stats *out);
uint32_t basalt_http_client_concurrency(const struct basalt_http_client *c);

/* Runs `count` requests, at most max_concurrency at a time, each retried on
 * its own. Returns OK when every request got a final response (whatever its
 * status: the caller reads resps[i].status); IO with the URL when a request
 * failed at the transport level after its last attempt (timeouts, resets),
 * CORRUPT when a response contradicts its request (Content-Range, length),
 * CONFLICT when the object changed under a read (412 on If-Match or another
 * ETag). `resps` are initialised here and freed by the caller. */
basalt_status basalt_http_execute_all(struct basalt_http_client *c,
                                      const struct basalt_http_request *reqs,
                                      struct basalt_http_response *resps, size_t count,
                                      struct basalt_error *err);
basalt_status basalt_http_execute(struct basalt_http_client *c,
                                  const struct basalt_http_request *req,
                                  struct basalt_http_response *resp, struct basalt_error *err);

/* A status worth another try: 408, 429, 500, 502, 503, 504. */
bool basalt_http_status_is_retryable(long status);

/* Percent-encodes `in` (RFC 3986 unreserved characters kept, and '/' when
 * `keep_slash`) into `out`. LIMIT when it does not fit. */
basalt_status basalt_http_uri_encode(const char *in, size_t len, bool keep_slash, char *out,
                                     size_t cap, struct basalt_error *err);

/* Appends "&NAME=VALUE" to the NUL-terminated query in `query`, VALUE
 * percent-encoded. LIMIT when it does not fit in `cap`. */
basalt_status basalt_http_query_append(char *query, size_t cap, const char *name,
                                       const char *value, struct basalt_error *err);

#endif
