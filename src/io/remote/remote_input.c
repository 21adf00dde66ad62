/* Reading a remote object: the tail kept from the sizing request, ranges
 * coalesced across small gaps and split into concurrent requests, and a
 * prefetch that fetches the next ranges while the caller decodes. */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "remote/remote.h"

/* Bytes fetched ahead of need: one prefetch's coalesced runs. A run is
 * readable once all its requests have landed (pieces_left 0); readers wait
 * for the run they need, not for the whole prefetch. */
struct cached_run {
    uint64_t offset;
    uint64_t length;
    uint8_t *data;
    unsigned generation;
    uint32_t pieces_left; /* requests of this run still in flight */
    bool failed;          /* a request of it failed: read the bytes afresh */
    unsigned order;       /* 1 + the earliest `need` of its ranges; 0: no order */
};

struct remote_input {
    struct basalt_input base;
    struct basalt_http_client *http;
    struct basalt_io_options options;
    struct basalt_remote_object object;
    char etag[BASALT_IO_ETAG_MAX];
    uint8_t *tail;
    uint64_t tail_offset;
    uint64_t tail_len;

    pthread_mutex_t lock;  /* guards the cache and the prefetch state */
    pthread_cond_t landed; /* a prefetched request landed, or the prefetch ended */
    struct cached_run *cache;
    size_t cache_count;
    unsigned generation;
    bool prefetching;      /* a prefetcher thread exists (join it) */
    bool prefetch_done;    /* it will not touch the cache again */
    pthread_t prefetcher;
    size_t prefetch_first; /* the cache entries it fills */
    size_t prefetch_count;

    _Atomic uint64_t fetches, bytes_fetched, from_tail, from_prefetch;
    char *url;
    char name[];
};

static const struct basalt_input_ops remote_ops;

/* A run of the object to fetch into `dst`. */
struct run {
    uint64_t offset;
    uint64_t length;
    uint8_t *dst;
};

/* Fetches runs with one batch of requests, each run split into pieces of at
 * most split_size so a large range comes down over several connections. */
static basalt_status fetch_runs(struct remote_input *r, const struct run *runs, size_t count,
                                struct basalt_error *err)
{
    uint64_t split = r->options.split_size ? r->options.split_size : UINT64_MAX;
    size_t pieces = 0;
    for (size_t i = 0; i < count; i++)
        pieces += (size_t)((runs[i].length + split - 1) / split);
    if (pieces == 0)
        return BASALT_OK;
    struct basalt_http_request *reqs = basalt_calloc(pieces, sizeof *reqs);
    struct basalt_http_response *resps = basalt_calloc(pieces, sizeof *resps);
    if (!reqs || !resps) {
        basalt_free(reqs);
        basalt_free(resps);
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory for %zu requests",
                                r->base.name, pieces);
    }
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        for (uint64_t at = 0; at < runs[i].length; at += split) {
            uint64_t len = runs[i].length - at < split ? runs[i].length - at : split;
            reqs[k++] = (struct basalt_http_request){
                .method = "GET", .url = r->url, .headers = r->object.headers,
                .signer = r->object.signer, .payload_hash = NULL, .range = true,
                .offset = runs[i].offset + at, .length = len, .dst = runs[i].dst + at,
                .if_match = r->etag[0] ? r->etag : NULL};
            atomic_fetch_add(&r->bytes_fetched, len);
        }
    }
    atomic_fetch_add(&r->fetches, pieces);
    basalt_status st = basalt_http_execute_all(r->http, reqs, resps, pieces, err);
    if (st != BASALT_OK)
        basalt_error_context(err, st, "%s", r->base.name);
    for (size_t i = 0; i < pieces && st == BASALT_OK; i++)
        if (resps[i].status < 200 || resps[i].status >= 300)
            st = r->object.error(&resps[i], "GET", r->base.name, err);
    for (size_t i = 0; i < pieces; i++)
        basalt_http_response_free(&resps[i]);
    basalt_free(reqs);
    basalt_free(resps);
    return st;
}

static int by_offset(const void *a, const void *b)
{
    const struct basalt_io_range *x = *(const struct basalt_io_range *const *)a;
    const struct basalt_io_range *y = *(const struct basalt_io_range *const *)b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Copies a range out of memory the input already has; false if it has not.
 * Called with the lock held; waits (releasing it) for a prefetched run that
 * holds the range and is still landing. */
static bool serve_local(struct remote_input *r, const struct basalt_io_range *g)
{
    if (g->offset >= r->tail_offset && g->offset + g->length <= r->tail_offset + r->tail_len) {
        memcpy(g->dst, r->tail + (g->offset - r->tail_offset), (size_t)g->length);
        atomic_fetch_add(&r->from_tail, 1);
        return true;
    }
    if (r->object.cache &&
        basalt_object_cache_read(r->object.cache, r->name, g->offset, g->length, g->dst))
        return true;
    for (;;) {
        bool wait = false;
        for (size_t i = 0; i < r->cache_count; i++) {
            const struct cached_run *c = &r->cache[i];
            if (c->failed || g->offset < c->offset ||
                g->offset + g->length > c->offset + c->length)
                continue;
            if (c->pieces_left > 0) {
                wait = true;
                continue;
            }
            memcpy(g->dst, c->data + (g->offset - c->offset), (size_t)g->length);
            atomic_fetch_add(&r->from_prefetch, 1);
            return true;
        }
        if (!wait || r->prefetch_done)
            return false;
        pthread_cond_wait(&r->landed, &r->lock);
    }
}

/* Waits, with the lock held, until the prefetcher is done with the cache,
 * and reaps its thread. */
static void end_prefetch(struct remote_input *r)
{
    while (r->prefetching && !r->prefetch_done)
        pthread_cond_wait(&r->landed, &r->lock);
    if (r->prefetching) {
        /* It set prefetch_done as its last use of the lock. */
        pthread_join(r->prefetcher, NULL);
        r->prefetching = false;
    }
}

/* Groups ranges (sorted by offset) into runs: neighbours closer than the
 * coalescing gap share one run. Returns the number of runs. */
static size_t coalesce(const struct basalt_io_range *const *sorted, size_t count, uint64_t gap,
                       struct run *runs)
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        const struct basalt_io_range *g = sorted[i];
        uint64_t end = g->offset + g->length;
        if (n > 0 && g->offset <= runs[n - 1].offset + runs[n - 1].length + gap) {
            uint64_t run_end = runs[n - 1].offset + runs[n - 1].length;
            if (end > run_end)
                runs[n - 1].length = end - runs[n - 1].offset;
            runs[n - 1].dst = NULL; /* several ranges: fetched into a scratch buffer */
        } else {
            runs[n++] = (struct run){g->offset, g->length, g->dst};
        }
    }
    return n;
}

static basalt_status remote_read_ranges(struct basalt_input *in, struct basalt_io_range *ranges,
                                        size_t count, struct basalt_error *err)
{
    struct remote_input *r = (struct remote_input *)in;
    const struct basalt_io_range **todo = basalt_malloc(sizeof *todo * (count ? count : 1));
    struct run *runs = basalt_malloc(sizeof *runs * (count ? count : 1));
    if (!todo || !runs) {
        basalt_free(todo);
        basalt_free(runs);
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory for reads", in->name);
    }
    size_t left = 0;
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < count; i++)
        if (ranges[i].length > 0 && !serve_local(r, &ranges[i]))
            todo[left++] = &ranges[i];
    pthread_mutex_unlock(&r->lock);

    basalt_status st = BASALT_OK;
    if (left > 0) {
        qsort(todo, left, sizeof *todo, by_offset);
        size_t n = coalesce(todo, left, r->options.coalesce_gap, runs);
        for (size_t i = 0; i < n && st == BASALT_OK; i++)
            if (!runs[i].dst && !(runs[i].dst = basalt_malloc((size_t)runs[i].length)))
                st = basalt_error_set(err, BASALT_NOMEM, "%s: out of memory for %llu bytes",
                                      in->name, (unsigned long long)runs[i].length);
        if (st == BASALT_OK)
            st = fetch_runs(r, runs, n, err);
        for (size_t i = 0; i < n && st == BASALT_OK && r->object.cache; i++)
            basalt_object_cache_put(r->object.cache, r->name, runs[i].offset, runs[i].length,
                                    runs[i].dst);
        /* Hand the bytes of scratch runs to their ranges, then drop them. */
        size_t j = 0;
        for (size_t i = 0; i < n; i++) {
            bool scratch = true;
            for (; j < left && todo[j]->offset < runs[i].offset + runs[i].length; j++) {
                if (todo[j]->dst == runs[i].dst) {
                    scratch = false;
                    continue;
                }
                if (st == BASALT_OK && runs[i].dst)
                    memcpy(todo[j]->dst, runs[i].dst + (todo[j]->offset - runs[i].offset),
                           (size_t)todo[j]->length);
            }
            if (scratch)
                basalt_free(runs[i].dst);
        }
    }
    basalt_free(todo);
    basalt_free(runs);
    return st;
}

static basalt_status remote_read_at(struct basalt_input *in, uint64_t offset, uint64_t length,
                                    void *dst, struct basalt_error *err)
{
    struct basalt_io_range g = {offset, length, dst};
    return remote_read_ranges(in, &g, 1, err);
}

/* One prefetched request: which cache entry it fills. */
struct piece {
    struct remote_input *r;
    size_t entry;
};

static void piece_landed(void *arg, const struct basalt_http_response *resp)
{
    struct piece *p = arg;
    struct remote_input *r = p->r;
    pthread_mutex_lock(&r->lock);
    struct cached_run *c = &r->cache[p->entry];
    if (resp->status >= 200 && resp->status < 300 && c->pieces_left > 0)
        c->pieces_left--;
    else
        c->failed = true;
    pthread_cond_broadcast(&r->landed);
    pthread_mutex_unlock(&r->lock);
}

/* The prefetcher: every run of its entries in one batch of requests, each
 * landing as soon as it is done. A failure is forgotten: the read that needs
 * those bytes fetches them itself and reports what goes wrong. */
static void *prefetch_main(void *arg)
{
    struct remote_input *r = arg;
    uint64_t split = r->options.split_size ? r->options.split_size : UINT64_MAX;
    size_t pieces = 0;
    for (size_t i = 0; i < r->prefetch_count; i++)
        pieces += r->cache[r->prefetch_first + i].pieces_left;
    struct basalt_http_request *reqs = basalt_calloc(pieces ? pieces : 1, sizeof *reqs);
    struct basalt_http_response *resps = basalt_calloc(pieces ? pieces : 1, sizeof *resps);
    struct piece *refs = basalt_calloc(pieces ? pieces : 1, sizeof *refs);
    bool ok = reqs && resps && refs;
    size_t k = 0;
    for (size_t i = 0; ok && i < r->prefetch_count; i++) {
        size_t e = r->prefetch_first + i;
        /* Entries do not move while a prefetch runs: read them unlocked. */
        const struct cached_run *c = &r->cache[e];
        for (uint64_t at = 0; at < c->length; at += split, k++) {
            uint64_t len = c->length - at < split ? c->length - at : split;
            refs[k] = (struct piece){r, e};
            reqs[k] = (struct basalt_http_request){
                .method = "GET", .url = r->url, .headers = r->object.headers,
                .signer = r->object.signer, .range = true, .offset = c->offset + at,
                .length = len, .dst = c->data + at, .if_match = r->etag[0] ? r->etag : NULL,
                .on_complete = piece_landed, .on_complete_arg = &refs[k], .order = c->order};
            atomic_fetch_add(&r->bytes_fetched, len);
        }
    }
    if (ok) {
        atomic_fetch_add(&r->fetches, pieces);
        basalt_http_execute_all(r->http, reqs, resps, pieces, NULL);
        for (size_t i = 0; i < pieces; i++)
            basalt_http_response_free(&resps[i]);
    }
    basalt_free(reqs);
    basalt_free(resps);
    basalt_free(refs);
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < r->prefetch_count; i++) {
        struct cached_run *c = &r->cache[r->prefetch_first + i];
        if (c->pieces_left > 0)
            c->failed = true;
        else if (!c->failed && r->object.cache)
            basalt_object_cache_put(r->object.cache, r->name, c->offset, c->length, c->data);
    }
    r->prefetch_done = true;
    pthread_cond_broadcast(&r->landed);
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

static void drop_generations_before(struct remote_input *r, unsigned keep_from)
{
    size_t w = 0;
    for (size_t i = 0; i < r->cache_count; i++) {
        if (r->cache[i].generation >= keep_from && !r->cache[i].failed)
            r->cache[w++] = r->cache[i];
        else
            basalt_free(r->cache[i].data);
    }
    r->cache_count = w;
}

static void remote_prefetch(struct basalt_input *in, const struct basalt_io_range *ranges,
                            const uint32_t *need, size_t count)
{
    struct remote_input *r = (struct remote_input *)in;
    if (!r->options.prefetch || count == 0)
        return;
    pthread_mutex_lock(&r->lock);
    end_prefetch(r);
    /* Keep what the last prefetch brought (it may not be read yet), drop
     * anything older. */
    r->generation++;
    drop_generations_before(r, r->generation - 1);
    const struct basalt_io_range **sorted = basalt_malloc(sizeof *sorted * count);
    struct run *runs = basalt_malloc(sizeof *runs * count);
    struct cached_run *grown =
        basalt_realloc(r->cache, sizeof *r->cache * (r->cache_count + count));
    if (grown)
        r->cache = grown;
    size_t left = 0;
    for (size_t i = 0; sorted && i < count; i++) {
        struct basalt_io_range probe = ranges[i];
        bool have = (probe.offset >= r->tail_offset &&
                     probe.offset + probe.length <= r->tail_offset + r->tail_len) ||
                    (r->object.cache && probe.length > 0 &&
                     basalt_object_cache_has(r->object.cache, r->name, probe.offset,
                                             probe.length));
        if (!have && probe.length > 0 && probe.offset + probe.length <= in->size)
            sorted[left++] = &ranges[i];
    }
    size_t n = (sorted && runs && grown && left) ? (qsort(sorted, left, sizeof *sorted, by_offset),
                                                  coalesce(sorted, left,
                                                           r->options.coalesce_gap, runs))
                                                : 0;
    uint64_t split = r->options.split_size ? r->options.split_size : UINT64_MAX;
    r->prefetch_first = r->cache_count;
    for (size_t i = 0; i < n; i++) {
        uint8_t *data = basalt_malloc((size_t)runs[i].length);
        if (!data)
            break;
        r->cache[r->cache_count++] = (struct cached_run){
            runs[i].offset, runs[i].length, data, r->generation,
            (uint32_t)((runs[i].length + split - 1) / split), false, need ? UINT_MAX : 0};
    }
    /* A run's body is wanted as early as the first of its ranges; the
     * requests deliver in that order (basalt_http_request.order). */
    size_t k = 0;
    for (size_t j = 0; need && j < left && r->cache_count > r->prefetch_first; j++) {
        while (r->prefetch_first + k + 1 < r->cache_count &&
               sorted[j]->offset >= r->cache[r->prefetch_first + k].offset +
                                        r->cache[r->prefetch_first + k].length)
            k++;
        uint32_t rank = need[sorted[j] - ranges];
        unsigned place = rank < UINT_MAX - 1 ? rank + 1 : UINT_MAX - 1;
        struct cached_run *c = &r->cache[r->prefetch_first + k];
        if (place < c->order)
            c->order = place;
    }
    r->prefetch_count = r->cache_count - r->prefetch_first;
    r->prefetch_done = false;
    if (r->prefetch_count > 0 && pthread_create(&r->prefetcher, NULL, prefetch_main, r) == 0) {
        r->prefetching = true;
    } else {
        for (size_t i = 0; i < r->prefetch_count; i++)
            r->cache[r->prefetch_first + i].failed = true;
        r->prefetch_done = true;
    }
    pthread_mutex_unlock(&r->lock);
    basalt_free(sorted);
    basalt_free(runs);
}

/* A streamed read: what lies before the kept tail in one streamed GET,
 * the rest from the tail. */
static basalt_status remote_read_stream(struct basalt_input *in, uint64_t offset, uint64_t length,
                                        basalt_io_sink_fn sink, void *ctx,
                                        struct basalt_error *err)
{
    struct remote_input *r = (struct remote_input *)in;
    uint64_t end = offset + length;
    bool tail_to_end = r->tail_len > 0 && r->tail_offset + r->tail_len == in->size;
    uint64_t remote_end = tail_to_end && r->tail_offset < end ? r->tail_offset : end;
    if (remote_end < offset)
        remote_end = offset;
    basalt_status st = BASALT_OK;
    if (remote_end > offset) {
        atomic_fetch_add(&r->fetches, 1);
        atomic_fetch_add(&r->bytes_fetched, remote_end - offset);
        st = basalt_remote_stream(r->http, &r->object, r->etag, in->size, offset,
                                  remote_end - offset, sink, ctx, err);
    }
    if (st == BASALT_OK && end > remote_end) {
        uint64_t from = remote_end - r->tail_offset;
        atomic_fetch_add(&r->from_tail, 1);
        st = sink(ctx, r->tail + from, (size_t)(end - remote_end), err);
    }
    return st;
}

static void remote_close(struct basalt_input *in)
{
    struct remote_input *r = (struct remote_input *)in;
    pthread_mutex_lock(&r->lock);
    end_prefetch(r);
    drop_generations_before(r, UINT32_MAX);
    pthread_mutex_unlock(&r->lock);
    pthread_cond_destroy(&r->landed);
    pthread_mutex_destroy(&r->lock);
    basalt_free(r->cache);
    basalt_free(r->tail);
    basalt_free(r->url);
    basalt_free(r);
}

static void remote_stats(struct basalt_input *in, struct basalt_input_stats *out)
{
    struct remote_input *r = (struct remote_input *)in;
    out->requests = atomic_load(&r->fetches);
    out->bytes_requested = atomic_load(&r->bytes_fetched);
}

static const struct basalt_input_ops remote_ops = {.read_at = remote_read_at,
                                                   .read_ranges = remote_read_ranges,
                                                   .view = NULL,
                                                   .close = remote_close,
                                                   .prefetch = remote_prefetch,
                                                   .read_stream = remote_read_stream,
                                                   .stats = remote_stats};

bool basalt_remote_input_stats(const struct basalt_input *in, struct basalt_remote_input_stats *out)
{
    if (!in || in->ops != &remote_ops)
        return false;
    const struct remote_input *r = (const struct remote_input *)in;
    out->fetches = atomic_load(&r->fetches);
    out->bytes_fetched = atomic_load(&r->bytes_fetched);
    out->served_from_tail = atomic_load(&r->from_tail);
    out->served_from_prefetch = atomic_load(&r->from_prefetch);
    return true;
}

/* The tail after a HEAD sized the object (no_suffix_range): a plain range
 * read of the last footer_tail bytes, pinned to the HEAD's ETag. */
static basalt_status read_tail(struct remote_input *r, struct basalt_error *err)
{
    uint64_t want = r->options.footer_tail < r->base.size ? r->options.footer_tail : r->base.size;
    if (want == 0)
        return BASALT_OK;
    uint8_t *tail = basalt_malloc((size_t)want);
    if (!tail)
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory for the tail",
                                r->base.name);
    struct run run = {r->base.size - want, want, tail};
    basalt_status st = fetch_runs(r, &run, 1, err);
    if (st != BASALT_OK) {
        basalt_free(tail);
        return st;
    }
    r->tail = tail;
    r->tail_offset = run.offset;
    r->tail_len = want;
    return BASALT_OK;
}

/* One request of the sizing, counted as the input's. */
static basalt_status sizing_request(struct remote_input *r, const struct basalt_http_request *req,
                                    struct basalt_http_response *resp, struct basalt_error *err)
{
    atomic_fetch_add(&r->fetches, 1);
    basalt_status st = basalt_http_execute(r->http, req, resp, err);
    if (st == BASALT_OK && req->suffix && resp->status >= 200 && resp->status < 300)
        atomic_fetch_add(&r->bytes_fetched, resp->body_len); /* the tail, maybe all of it */
    return st;
}

/* The sizing request: the object's tail with its total size, or a HEAD when
 * no tail is wanted, the object is empty (a suffix range of an empty object
 * is unsatisfiable) or the server has no suffix ranges. */
static basalt_status size_object(struct remote_input *r, struct basalt_error *err)
{
    struct basalt_http_request req = {.method = "GET", .url = r->url,
                                      .headers = r->object.headers, .signer = r->object.signer,
                                      .range = true, .suffix = true,
                                      .length = r->options.footer_tail};
    const struct basalt_http_request tail_req = req;
    /* A sequential read fetches every byte with its stream: a tail now
     * would be a second read of those bytes. */
    if (r->options.footer_tail == 0 || r->object.no_suffix_range || r->object.sequential)
        req = (struct basalt_http_request){.method = "HEAD", .url = r->url,
                                           .headers = r->object.headers,
                                           .signer = r->object.signer};
    struct basalt_http_response resp;
    basalt_status st = sizing_request(r, &req, &resp, err);
    if (st == BASALT_OK && resp.status == 416 && req.suffix) {
        basalt_http_response_free(&resp);
        req = (struct basalt_http_request){.method = "HEAD", .url = r->url,
                                           .headers = r->object.headers,
                                           .signer = r->object.signer};
        st = sizing_request(r, &req, &resp, err);
    } else if (st == BASALT_OK && resp.status >= 400 && !req.suffix && r->object.sequential &&
               r->options.footer_tail > 0 && !r->object.no_suffix_range) {
        /* A refused HEAD has no body, so no error code (SignatureDoesNotMatch,
         * AccessDenied...): the GET that was skipped says why. */
        basalt_http_response_free(&resp);
        req = tail_req;
        st = sizing_request(r, &req, &resp, err);
    }
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", r->base.name);
    if (resp.status < 200 || resp.status >= 300) {
        st = r->object.error(&resp, req.method, r->base.name, err);
        basalt_http_response_free(&resp);
        return st;
    }
    if (!resp.have_object_size) {
        basalt_http_response_free(&resp);
        return basalt_error_set(err, BASALT_IO, "%s: the server did not say the object's size",
                                r->base.name);
    }
    r->base.size = resp.object_size;
    snprintf(r->etag, sizeof r->etag, "%s", resp.etag);
    if (req.suffix) {
        if (resp.body_len > r->base.size || resp.body_len > req.length) {
            basalt_http_response_free(&resp);
            return basalt_error_set(err, BASALT_CORRUPT, "%s: the tail read returned %zu bytes",
                                    r->base.name, resp.body_len);
        }
        r->tail_len = resp.body_len;
        r->tail_offset = r->base.size - r->tail_len;
        r->tail = resp.body; /* taken */
        resp.body = NULL;
    }
    basalt_http_response_free(&resp);
    if (!req.suffix && r->object.no_suffix_range && !r->object.sequential)
        return read_tail(r, err);
    return BASALT_OK;
}

basalt_status basalt_remote_input_open(struct basalt_http_client *http,
                                       const struct basalt_io_options *options,
                                       const struct basalt_remote_object *object,
                                       struct basalt_input **out, struct basalt_error *err)
{
    *out = NULL;
    size_t nlen = strlen(object->name);
    struct remote_input *r = basalt_calloc(1, sizeof *r + nlen + 1);
    size_t ulen = strlen(object->url);
    char *url = basalt_malloc(ulen + 1);
    if (!r || !url) {
        basalt_free(r);
        basalt_free(url);
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory opening", object->name);
    }
    memcpy(r->name, object->name, nlen + 1);
    memcpy(url, object->url, ulen + 1);
    r->url = url;
    r->base.ops = &remote_ops;
    r->base.name = r->name;
    r->http = http;
    r->options = *options;
    r->object = *object;
    r->object.name = r->name;
    r->object.url = r->url;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->landed, NULL);
    r->prefetch_done = true;
    basalt_status st = BASALT_OK;
    uint64_t size = 0;
    if (r->object.cache && basalt_object_cache_find_object(r->object.cache, r->name, &size,
                                                           r->etag, &r->tail, &r->tail_offset,
                                                           &r->tail_len)) {
        r->base.size = size;
    } else {
        st = size_object(r, err);
        if (st == BASALT_OK && r->object.cache)
            basalt_object_cache_put_object(r->object.cache, r->name, r->base.size, r->etag,
                                           r->tail, r->tail_offset, r->tail_len);
    }
    if (st != BASALT_OK) {
        remote_close(&r->base);
        return st;
    }
    *out = &r->base;
    return BASALT_OK;
}
