/* Running a batch of requests on a curl multi handle: concurrency bound,
 * per-request retries with full-jitter backoff, resumed range bodies and the
 * checks that keep a read from mixing bytes of two objects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "basalt/hash.h"
#include "http/http_internal.h"

#define DEFAULT_MAX_BODY ((size_t)64 << 20)

/* One request's state across its attempts. */
struct transfer {
    const struct basalt_http_request *req;
    struct basalt_http_response *resp;
    struct basalt_http_client *client;
    CURL *easy;
    struct curl_slist *slist;
    uint64_t done;        /* range bytes in dst (or sunk), kept across attempts */
    uint64_t done_before; /* `done` when this attempt started */
    unsigned attempt;     /* attempts started */
    unsigned series_start; /* streamed: attempts before the last that made progress */
    int64_t not_before;   /* monotonic ms; when the next attempt may start */
    int64_t first_start;  /* monotonic ms of the first attempt */
    bool active;
    bool finished;
    bool receiving;       /* this attempt's body is arriving */
    bool paused;          /* held back for a body wanted sooner (`order`) */
    bool was_held;        /* counted in held_back once, whatever its pauses */
    /* On HTTP/2, where streams share a connection whose receive windows
     * curl sets large: a paused stream's bytes keep coming into curl's
     * buffers, so holding its body back would not give the link to
     * another; such bodies are never held back. */
    bool multiplexed;
    struct transfer *batch; /* the batch this request is in, to compare orders */
    size_t batch_count;
    /* This attempt's response, from the header callback. */
    long status;
    bool have_range;
    uint64_t range_first, range_last, range_total;
    bool have_length;
    uint64_t content_length;
    char etag[BASALT_IO_ETAG_MAX];
    char first_etag[BASALT_IO_ETAG_MAX]; /* the object's ETag when a body first arrived */
    bool checked;         /* this attempt's body passed its checks */
    struct basalt_buffer body;
    /* A failure the write callback found: ends the request, no retry. */
    basalt_status fatal;
    char fatal_msg[200];
    struct basalt_error sink_err; /* the sink's own error, reported as it is */
    bool sink_failed;
    char errbuf[CURL_ERROR_SIZE];
    char hash[65];        /* payload hash of the body */
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The URL without its query: SAS tokens and presigned signatures live there
 * and must never reach an error message. */
static const char *safe_url(const char *url, char *buf, size_t cap)
{
    size_t n = strcspn(url, "?");
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, url, n);
    buf[n] = '\0';
    return buf;
}

static void set_fatal(struct transfer *t, basalt_status st, const char *fmt, ...)
    BASALT_PRINTF(3, 4);
static void set_fatal(struct transfer *t, basalt_status st, const char *fmt, ...)
{
    if (t->fatal != BASALT_OK)
        return;
    t->fatal = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->fatal_msg, sizeof t->fatal_msg, fmt, ap);
    va_end(ap);
}

static const char *trim(char *s, size_t *len)
{
    while (*len > 0 && (s[*len - 1] == '\r' || s[*len - 1] == '\n' || s[*len - 1] == ' '))
        (*len)--;
    while (*len > 0 && *s == ' ') {
        s++;
        (*len)--;
    }
    s[*len] = '\0';
    return s;
}

static size_t on_header(char *line, size_t size, size_t n, void *ctx)
{
    struct transfer *t = ctx;
    size_t len = size * n;
    if (len >= 5 && memcmp(line, "HTTP/", 5) == 0) {
        /* A new response (after a 100 Continue, say): forget the last one. */
        t->status = 0;
        const char *sp = memchr(line, ' ', len);
        if (sp)
            t->status = strtol(sp + 1, NULL, 10);
        t->have_range = t->have_length = false;
        t->etag[0] = '\0';
        return len;
    }
    const char *colon = memchr(line, ':', len);
    if (!colon)
        return len;
    size_t nlen = (size_t)(colon - line);
    char value[256];
    size_t vlen = len - nlen - 1;
    if (vlen >= sizeof value)
        vlen = sizeof value - 1;
    memcpy(value, colon + 1, vlen);
    const char *v = trim(value, &vlen);
    if (nlen == 13 && strncasecmp(line, "content-range", 13) == 0) {
        unsigned long long a, b, total;
        if (sscanf(v, "bytes %llu-%llu/%llu", &a, &b, &total) == 3 && a <= b) {
            t->have_range = true;
            t->range_first = a;
            t->range_last = b;
            t->range_total = total;
        }
    } else if (nlen == 14 && strncasecmp(line, "content-length", 14) == 0) {
        t->have_length = true;
        t->content_length = strtoull(v, NULL, 10);
    } else if (nlen == 4 && strncasecmp(line, "etag", 4) == 0) {
        snprintf(t->etag, sizeof t->etag, "%.*s", (int)sizeof t->etag - 1, v);
    } else if (nlen == 13 && strncasecmp(line, "last-modified", 13) == 0) {
        time_t when = curl_getdate(v, NULL);
        if (when > 0)
            t->resp->last_modified_ms = (int64_t)when * 1000;
    }
    return len;
}

/* The first bytes of a successful range body: is this the range we asked
 * for, of the object we started reading? */
static bool check_range_response(struct transfer *t)
{
    const struct basalt_http_request *r = t->req;
    if (t->first_etag[0] && t->etag[0] && strcmp(t->first_etag, t->etag) != 0) {
        set_fatal(t, BASALT_CONFLICT, "the object changed while it was read (ETag %s, then %s)",
                  t->first_etag, t->etag);
        return false;
    }
    if (r->suffix) {
        if (t->status == 206 && t->have_range) {
            t->resp->object_size = t->range_total;
            t->resp->have_object_size = true;
        } else if (t->status == 200 && t->have_length) {
            /* The object is shorter than the tail asked for. */
            t->resp->object_size = t->content_length;
            t->resp->have_object_size = true;
        } else {
            set_fatal(t, BASALT_CORRUPT, "a tail read got status %ld without a Content-Range",
                      t->status);
            return false;
        }
        return true;
    }
    uint64_t want_first = r->offset + t->done;
    uint64_t want_last = r->offset + r->length - 1;
    if (t->status == 206) {
        if (!t->have_range || t->range_first != want_first || t->range_last != want_last) {
            set_fatal(t, BASALT_CORRUPT,
                      "asked for bytes %llu-%llu, the server sent %s%llu-%llu",
                      (unsigned long long)want_first, (unsigned long long)want_last,
                      t->have_range ? "" : "no Content-Range, ",
                      (unsigned long long)t->range_first, (unsigned long long)t->range_last);
            return false;
        }
    } else if (!(want_first == 0 && (t->have_length ? t->content_length == r->length
                                                     : r->whole))) {
        /* A 200 is only the range when the range is the whole object. */
        set_fatal(t, BASALT_CORRUPT, "asked for bytes %llu-%llu, the server sent the whole object",
                  (unsigned long long)want_first, (unsigned long long)want_last);
        return false;
    }
    if (t->have_length && t->content_length != want_last - want_first + 1) {
        set_fatal(t, BASALT_CORRUPT, "Content-Length %llu does not match the range of %llu bytes",
                  (unsigned long long)t->content_length,
                  (unsigned long long)(want_last - want_first + 1));
        return false;
    }
    if (!t->first_etag[0])
        snprintf(t->first_etag, sizeof t->first_etag, "%s", t->etag);
    return true;
}

/* Whether a body wanted sooner than t's (a smaller `order`) is arriving. */
static bool held_back(const struct transfer *t)
{
    unsigned order = t->req->order;
    if (order == 0 || t->multiplexed)
        return false;
    for (size_t i = 0; i < t->batch_count; i++) {
        const struct transfer *u = &t->batch[i];
        if (u != t && u->active && u->receiving && u->req->order != 0 && u->req->order < order)
            return true;
    }
    return false;
}

/* Resumes the held-back bodies no longer behind one wanted sooner, in
 * the batch's order: the first resumed is arriving again when the next
 * asks, and holds that one back. */
static void resume_held_back(struct transfer *ts, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        struct transfer *t = &ts[i];
        if (t->active && t->paused && !held_back(t)) {
            t->paused = false;
            curl_easy_pause(t->easy, CURLPAUSE_CONT);
        }
    }
}

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
    struct transfer *t = ctx;
    size_t len = size * n;
    const struct basalt_http_request *r = t->req;
    bool ok_status = t->status >= 200 && t->status < 300;
    if (ok_status && !t->receiving && r->order != 0) {
        long version = 0;
        curl_easy_getinfo(t->easy, CURLINFO_HTTP_VERSION, &version);
        t->multiplexed = version >= CURL_HTTP_VERSION_2_0;
    }
    if (ok_status && held_back(t)) {
        /* curl keeps these bytes and hands them over again on resume. */
        if (!t->was_held)
            atomic_fetch_add(&t->client->held_back, 1);
        t->was_held = t->paused = true;
        t->receiving = false;
        return CURL_WRITEFUNC_PAUSE;
    }
    if (ok_status)
        t->receiving = true;
    if (r->range && (r->dst || r->sink) && ok_status && !r->suffix) {
        if (!t->checked) {
            if (!check_range_response(t))
                return 0;
            t->checked = true;
        }
        if (len > r->length - t->done) {
            set_fatal(t, BASALT_CORRUPT, "the server sent more than the %llu bytes asked for",
                      (unsigned long long)r->length);
            return 0;
        }
        if (r->sink) {
            basalt_status st = r->sink(r->sink_arg, (const uint8_t *)data, len, &t->sink_err);
            if (st != BASALT_OK) {
                t->sink_failed = true;
                set_fatal(t, st, "%s", t->sink_err.message);
                return 0;
            }
        } else {
            memcpy(r->dst + t->done, data, len);
        }
        t->done += len;
        atomic_fetch_add(&t->client->bytes_received, len);
        return len;
    }
    if (r->suffix && ok_status && !t->checked) {
        if (!check_range_response(t))
            return 0;
        t->checked = true;
    }
    size_t cap = r->max_body ? r->max_body : DEFAULT_MAX_BODY;
    if (t->body.size + len > cap) {
        set_fatal(t, BASALT_LIMIT, "response body over %zu bytes", cap);
        return 0;
    }
    if (basalt_buffer_append(&t->body, data, len, NULL) != BASALT_OK) {
        set_fatal(t, BASALT_NOMEM, "out of memory for a response body");
        return 0;
    }
    atomic_fetch_add(&t->client->bytes_received, len);
    return len;
}

static basalt_status add_line(struct curl_slist **list, const char *name, const char *value,
                              struct basalt_error *err)
{
    char line[8192];
    int w = value ? snprintf(line, sizeof line, "%s: %s", name, value)
                  : snprintf(line, sizeof line, "%s:", name);
    if (w < 0 || (size_t)w >= sizeof line)
        return basalt_error_set(err, BASALT_LIMIT, "request header %s too long", name);
    struct curl_slist *next = curl_slist_append(*list, line);
    if (!next)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for request headers");
    *list = next;
    return BASALT_OK;
}

/* Headers of one attempt: the request's, the Range still missing, the ETag
 * pin, then the signer's. */
static basalt_status build_headers(struct transfer *t, struct basalt_error *err)
{
    const struct basalt_http_request *r = t->req;
    struct basalt_http_headers h;
    basalt_http_headers_init(&h);
    basalt_status st = BASALT_OK;
    if (r->headers)
        for (size_t i = 0; i < r->headers->count && st == BASALT_OK; i++)
            st = basalt_http_headers_add(&h, r->headers->name[i], err, "%s", r->headers->value[i]);
    if (st == BASALT_OK && r->range && r->suffix)
        st = basalt_http_headers_add(&h, "Range", err, "bytes=-%llu",
                                     (unsigned long long)r->length);
    else if (st == BASALT_OK && r->range && !(r->whole && t->done == 0))
        st = basalt_http_headers_add(&h, "Range", err, "bytes=%llu-%llu",
                                     (unsigned long long)(r->offset + t->done),
                                     (unsigned long long)(r->offset + r->length - 1));
    const char *pin = r->if_match ? r->if_match : (t->first_etag[0] ? t->first_etag : NULL);
    if (st == BASALT_OK && pin)
        st = basalt_http_headers_add(&h, "If-Match", err, "%s", pin);
    if (st == BASALT_OK && r->signer)
        st = r->signer->sign(r->signer, r->method, r->url, &h, r->payload_hash ? r->payload_hash
                                                                             : t->hash,
                             (uint64_t)r->body_len, err);
    for (size_t i = 0; i < h.count && st == BASALT_OK; i++)
        st = add_line(&t->slist, h.name[i], h.value[i], err);
    /* curl adds these on its own; S3 and Azure want neither. */
    if (st == BASALT_OK && !basalt_http_headers_get(&h, "Content-Type"))
        st = add_line(&t->slist, "Content-Type", NULL, err);
    if (st == BASALT_OK)
        st = add_line(&t->slist, "Expect", NULL, err);
    if (st == BASALT_OK && !basalt_http_headers_get(&h, "Accept"))
        st = add_line(&t->slist, "Accept", NULL, err);
    return st;
}

static basalt_status start_attempt(struct transfer *t, CURLM *multi, struct basalt_error *err)
{
    struct basalt_http_client *c = t->client;
    const struct basalt_http_request *r = t->req;
    curl_slist_free_all(t->slist);
    t->slist = NULL;
    t->status = 0;
    t->have_range = t->have_length = false;
    t->etag[0] = '\0';
    t->checked = false;
    t->receiving = t->paused = false;
    t->done_before = t->done;
    basalt_buffer_reset(&t->body);
    basalt_status st = build_headers(t, err);
    if (st != BASALT_OK)
        return st;
    if (!t->easy) {
        t->easy = curl_easy_init();
        if (!t->easy)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for a curl handle");
    } else {
        curl_easy_reset(t->easy);
    }
    CURL *e = t->easy;
    curl_easy_setopt(e, CURLOPT_URL, r->url);
    curl_easy_setopt(e, CURLOPT_SHARE, c->share);
    curl_easy_setopt(e, CURLOPT_PRIVATE, t);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->slist);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, t);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, c->options.tls_verify ? 1L : 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, c->options.tls_verify ? 2L : 0L);
    if (c->ca_file) {
        /* Instead of the system store, not beside it: a CA directory left
         * in place would still vouch for certificates the file does not. */
        curl_easy_setopt(e, CURLOPT_CAINFO, c->ca_file);
        curl_easy_setopt(e, CURLOPT_CAPATH, NULL);
    }
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)c->options.connect_timeout_ms);
    /* A stall: less than one byte a second for the stall timeout. */
    long stall_s = (long)((c->options.stall_timeout_ms + 999) / 1000);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, stall_s > 0 ? stall_s : 1L);
    if (strcmp(r->method, "HEAD") == 0) {
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    } else if (strcmp(r->method, "GET") != 0) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r->method);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body_len ? r->body : "");
        atomic_fetch_add(&c->bytes_sent, r->body_len);
    }
    t->errbuf[0] = '\0';
    t->attempt++;
    atomic_fetch_add(&c->requests, 1);
    if (curl_multi_add_handle(multi, e) != CURLM_OK)
        return basalt_error_set(err, BASALT_IO, "curl refused a transfer");
    t->active = true;
    return BASALT_OK;
}

/* Backoff before attempt `attempt` (1-based retries): full jitter over
 * base * 2^(attempt - 1), capped. */
static int64_t backoff_ms(struct transfer *t)
{
    const struct basalt_io_options *o = &t->client->options;
    uint64_t ceiling = o->retry_base_ms;
    for (unsigned i = t->series_start + 1; i < t->attempt && ceiling < o->retry_max_ms; i++)
        ceiling *= 2;
    if (ceiling > o->retry_max_ms)
        ceiling = o->retry_max_ms;
    return ceiling ? (int64_t)(basalt_http_client_random(t->client) % (ceiling + 1)) : 0;
}

static bool may_retry(struct transfer *t, int64_t now, int64_t delay)
{
    const struct basalt_io_options *o = &t->client->options;
    return t->attempt - t->series_start < o->max_attempts &&
           now + delay - t->first_start <= (int64_t)o->retry_budget_ms;
}

/* S3 says "try again" with a 400 for an idle upload (RequestTimeout). */
static bool body_says_retry(const struct transfer *t)
{
    if (t->status != 400 || !t->body.data)
        return false;
    const char *b = (const char *)t->body.data;
    size_t n = t->body.size;
    const char *needle = "<Code>RequestTimeout</Code>";
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(b + i, needle, k) == 0)
            return true;
    return false;
}

/* The server's certificate was not accepted, or the CA file could not be
 * used: trying again gets the same answer, so the request fails at once. */
static bool tls_refused(CURLcode code)
{
    return code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE ||
           code == CURLE_SSL_CERTPROBLEM || code == CURLE_SSL_ISSUER_ERROR ||
           code == CURLE_SSL_PINNEDPUBKEYNOTMATCH;
}

/* Finishes an attempt: done, retried later, or failed. Returns non-OK only
 * for a failure that ends the whole batch. */
static basalt_status finish_attempt(struct transfer *t, CURLcode code, struct basalt_error *err)
{
    struct basalt_http_client *c = t->client;
    const struct basalt_http_request *r = t->req;
    char ubuf[512];
    int64_t now = now_ms();
    t->active = false;
    t->receiving = t->paused = false;
    if (t->sink_failed) {
        /* The consumer's failure (a full disk, a closed pipe), not the
         * request's: its message goes up unchanged. */
        if (err)
            *err = t->sink_err;
        return t->sink_err.status != BASALT_OK ? t->sink_err.status : t->fatal;
    }
    if (t->fatal != BASALT_OK) {
        atomic_fetch_add(&c->failures, 1);
        return basalt_error_set(err, t->fatal, "%s %s: %s", r->method,
                                safe_url(r->url, ubuf, sizeof ubuf), t->fatal_msg);
    }
    bool retry = false;
    bool unsent_only = r->retry == BASALT_HTTP_RETRY_UNSENT;
    bool unsafe = r->retry == BASALT_HTTP_RETRY_UNSAFE || unsent_only;
    if (code != CURLE_OK) {
        bool never_sent = code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST;
        retry = (!unsafe || never_sent) && !tls_refused(code);
    } else if (basalt_http_status_is_retryable(t->status) || body_says_retry(t)) {
        retry = !unsafe || t->status == 429 || (t->status == 503 && !unsent_only);
    } else if (t->status >= 200 && t->status < 300 && r->range && (r->dst || r->sink) &&
               !r->suffix && t->done != r->length) {
        /* A body that ended early without a transport error (closed
         * connection, no Content-Length): resume it. */
        code = CURLE_PARTIAL_FILE;
        retry = true;
    }
    if (retry && r->sink && t->done > t->done_before) {
        /* The body moved on: a new series of tries, with its own limits,
         * starts from the byte reached. */
        t->series_start = t->attempt - 1;
        t->first_start = now;
    }
    if (retry) {
        int64_t delay = backoff_ms(t);
        if (may_retry(t, now, delay)) {
            atomic_fetch_add(&c->retries, 1);
            t->not_before = now + delay;
            return BASALT_OK;
        }
    }
    if (code != CURLE_OK && tls_refused(code)) {
        atomic_fetch_add(&c->failures, 1);
        return basalt_error_set(err, BASALT_IO, "%s %s: TLS: %s (%s)", r->method,
                                safe_url(r->url, ubuf, sizeof ubuf), curl_easy_strerror(code),
                                t->errbuf[0] ? t->errbuf : "no detail");
    }
    if (code != CURLE_OK) {
        atomic_fetch_add(&c->failures, 1);
        return basalt_error_set(err, BASALT_IO, "%s %s: %s after %u attempt%s (%s)", r->method,
                                safe_url(r->url, ubuf, sizeof ubuf), curl_easy_strerror(code),
                                t->attempt, t->attempt == 1 ? "" : "s",
                                t->errbuf[0] ? t->errbuf : "no detail");
    }
    if (t->status == 412 && (r->if_match || t->first_etag[0]) && strcmp(r->method, "GET") == 0) {
        atomic_fetch_add(&c->failures, 1);
        return basalt_error_set(err, BASALT_CONFLICT, "%s %s: the object changed while it was read",
                                r->method, safe_url(r->url, ubuf, sizeof ubuf));
    }
    struct basalt_http_response *resp = t->resp;
    resp->status = t->status;
    resp->attempts = t->attempt;
    resp->received = t->done;
    snprintf(resp->etag, sizeof resp->etag, "%s", t->etag[0] ? t->etag : t->first_etag);
    if (!resp->have_object_size && t->status == 200 && t->have_length) {
        resp->object_size = t->content_length;
        resp->have_object_size = true;
    } else if (!resp->have_object_size && t->have_range) {
        resp->object_size = t->range_total;
        resp->have_object_size = true;
    }
    if (basalt_buffer_append(&t->body, "", 1, NULL) != BASALT_OK)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a response body");
    resp->body_len = t->body.size - 1;
    resp->body = basalt_buffer_take(&t->body);
    t->finished = true;
    if (r->on_complete)
        r->on_complete(r->on_complete_arg, resp);
    return BASALT_OK;
}

static basalt_status prepare(struct transfer *t, struct basalt_error *err)
{
    const struct basalt_http_request *r = t->req;
    if (r->signer && !r->payload_hash) {
        uint8_t digest[32];
        if (basalt_hash_sha256(r->body_len ? r->body : "", r->body_len, digest) != BASALT_OK)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory hashing a request body");
        basalt_hash_hex(digest, 32, t->hash);
    }
    if (r->range && !r->suffix && r->length == 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "an empty range read");
    if (r->range && !r->suffix && !r->dst && !r->sink)
        return basalt_error_set(err, BASALT_INVALID_ARG, "a range read without a destination");
    if (r->sink && (r->dst || !r->range || r->suffix))
        return basalt_error_set(err, BASALT_INVALID_ARG, "a streamed read is a plain range read");
    if (r->whole && (!r->range || r->suffix || r->offset != 0))
        return basalt_error_set(err, BASALT_INVALID_ARG, "a whole-object read starts at 0");
    return BASALT_OK;
}

basalt_status basalt_http_execute_all(struct basalt_http_client *c,
                                      const struct basalt_http_request *reqs,
                                      struct basalt_http_response *resps, size_t count,
                                      struct basalt_error *err)
{
    if (count == 0)
        return BASALT_OK;
    struct transfer *ts = basalt_calloc(count, sizeof *ts);
    CURLM *multi = basalt_http_client_acquire(c);
    basalt_status st = BASALT_OK;
    if (!ts || !multi) {
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory for %zu requests", count);
        goto done;
    }
    int64_t start = now_ms();
    for (size_t i = 0; i < count && st == BASALT_OK; i++) {
        basalt_http_response_init(&resps[i]);
        ts[i] = (struct transfer){.req = &reqs[i], .resp = &resps[i], .client = c,
                                  .first_start = start, .batch = ts, .batch_count = count};
        basalt_buffer_init(&ts[i].body);
        st = prepare(&ts[i], err);
    }
    size_t unfinished = count, active = 0, next = 0;
    while (st == BASALT_OK && unfinished > 0) {
        int64_t now = now_ms();
        int64_t wake = now + 1000;
        /* Start what may start: new requests in order, retries when due. */
        for (size_t k = 0; k < count && active < c->options.max_concurrency && st == BASALT_OK;
             k++) {
            size_t i = (next + k) % count;
            struct transfer *t = &ts[i];
            if (t->finished || t->active)
                continue;
            if (t->not_before > now) {
                if (t->not_before < wake)
                    wake = t->not_before;
                continue;
            }
            st = start_attempt(t, multi, err);
            active++;
        }
        if (st != BASALT_OK)
            break;
        int running = 0;
        curl_multi_perform(multi, &running);
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(multi, &left)) != NULL) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            struct transfer *t = NULL;
            curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&t);
            CURLcode code = msg->data.result;
            curl_multi_remove_handle(multi, msg->easy_handle);
            active--;
            basalt_status fs = finish_attempt(t, code, err);
            if (fs != BASALT_OK && st == BASALT_OK)
                st = fs;
            if (t->finished)
                unfinished--;
            else if (!t->active && t->not_before < wake)
                wake = t->not_before; /* a retry scheduled just now: wake for it */
        }
        if (st != BASALT_OK || unfinished == 0)
            break;
        resume_held_back(ts, count);
        now = now_ms();
        /* A slot came free while a request waits to start: go round at
         * once. (Polling here would wait for the other transfers' next
         * bytes, and with none active, sleep until `wake`.) */
        bool startable = false;
        for (size_t i = 0; i < count && active < c->options.max_concurrency && !startable; i++)
            startable = !ts[i].finished && !ts[i].active && ts[i].not_before <= now;
        if (startable)
            continue;
        int timeout = wake > now ? (int)(wake - now) : 0;
        if (timeout > 1000)
            timeout = 1000;
        if (active > 0)
            curl_multi_poll(multi, NULL, 0, timeout, NULL);
        else if (timeout > 0) {
            struct timespec ts_sleep = {timeout / 1000, (long)(timeout % 1000) * 1000000L};
            nanosleep(&ts_sleep, NULL);
        }
    }
done:
    if (ts) {
        for (size_t i = 0; i < count; i++) {
            if (ts[i].easy) {
                if (ts[i].active)
                    curl_multi_remove_handle(multi, ts[i].easy);
                curl_easy_cleanup(ts[i].easy);
            }
            curl_slist_free_all(ts[i].slist);
            basalt_buffer_reset(&ts[i].body);
            if (st != BASALT_OK)
                basalt_http_response_free(&resps[i]);
        }
        basalt_free(ts);
    }
    if (multi)
        basalt_http_client_release(c, multi);
    return st;
}
