/* The HTTP client: a curl share handle per store and the defaults of a
 * transfer. The request loop is in http_execute.c. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <curl/curl.h>

#include "http/http_internal.h"

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_status = CURLE_FAILED_INIT;

/* curl_global_init is not thread-safe; every client goes through here. */
static void global_init(void) { global_status = curl_global_init(CURL_GLOBAL_DEFAULT); }

static void share_lock(CURL *handle, curl_lock_data data, curl_lock_access access, void *ctx)
{
    (void)handle;
    (void)access;
    struct basalt_http_client *c = ctx;
    pthread_mutex_lock(&c->locks[(int)data % BASALT_HTTP_LOCKS]);
}

static void share_unlock(CURL *handle, curl_lock_data data, void *ctx)
{
    (void)handle;
    struct basalt_http_client *c = ctx;
    pthread_mutex_unlock(&c->locks[(int)data % BASALT_HTTP_LOCKS]);
}

basalt_status basalt_http_client_new(const struct basalt_io_options *options,
                                     struct basalt_http_client **out, struct basalt_error *err)
{
    *out = NULL;
    pthread_once(&global_once, global_init);
    if (global_status != CURLE_OK)
        return basalt_error_set(err, BASALT_IO, "libcurl failed to initialise: %s",
                                curl_easy_strerror(global_status));
    struct basalt_http_client *c = basalt_calloc(1, sizeof *c);
    if (!c)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for an HTTP client");
    for (int i = 0; i < BASALT_HTTP_LOCKS; i++)
        pthread_mutex_init(&c->locks[i], NULL);
    pthread_mutex_init(&c->idle_lock, NULL);
    c->options = *options;
    c->options.ca_file = NULL;
    if (options->ca_file && !(c->ca_file = basalt_strdup(options->ca_file))) {
        basalt_http_client_free(c);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for an HTTP client");
    }
    if (c->options.max_attempts == 0)
        c->options.max_attempts = 1;
    if (c->options.max_concurrency == 0)
        c->options.max_concurrency = 1;
    c->share = curl_share_init();
    if (!c->share) {
        basalt_http_client_free(c);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a curl share handle");
    }
    curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock);
    curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
    curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
    /* DNS answers and TLS sessions outlive a batch of requests: the next
     * batch to the same host skips the lookups and full handshakes. */
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    atomic_init(&c->rng, (uint64_t)(uintptr_t)c ^ 0x9e3779b97f4a7c15ull);
    *out = c;
    return BASALT_OK;
}

void basalt_http_client_free(struct basalt_http_client *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->idle_count; i++)
        curl_multi_cleanup(c->idle[i]);
    if (c->share)
        curl_share_cleanup(c->share);
    pthread_mutex_destroy(&c->idle_lock);
    basalt_free(c->ca_file);
    for (int i = 0; i < BASALT_HTTP_LOCKS; i++)
        pthread_mutex_destroy(&c->locks[i]);
    basalt_free(c);
}

void basalt_http_client_stats(const struct basalt_http_client *c, struct basalt_io_stats *out)
{
    out->requests = atomic_load(&c->requests);
    out->retries = atomic_load(&c->retries);
    out->bytes_received = atomic_load(&c->bytes_received);
    out->bytes_sent = atomic_load(&c->bytes_sent);
    out->failures = atomic_load(&c->failures);
    out->held_back = atomic_load(&c->held_back);
}

CURLM *basalt_http_client_acquire(struct basalt_http_client *c)
{
    CURLM *m = NULL;
    pthread_mutex_lock(&c->idle_lock);
    if (c->idle_count > 0)
        m = c->idle[--c->idle_count];
    pthread_mutex_unlock(&c->idle_lock);
    if (!m && (m = curl_multi_init()) != NULL)
        curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, (long)c->options.max_concurrency);
    return m;
}

void basalt_http_client_release(struct basalt_http_client *c, CURLM *multi)
{
    pthread_mutex_lock(&c->idle_lock);
    if (c->idle_count < BASALT_HTTP_IDLE_MULTIS) {
        c->idle[c->idle_count++] = multi;
        multi = NULL;
    }
    pthread_mutex_unlock(&c->idle_lock);
    if (multi)
        curl_multi_cleanup(multi);
}

uint32_t basalt_http_client_concurrency(const struct basalt_http_client *c)
{
    return c->options.max_concurrency;
}

uint64_t basalt_http_client_random(struct basalt_http_client *c)
{
    /* splitmix64 over an atomic counter: cheap, thread-safe, good enough to
     * spread retries apart (full jitter). */
    uint64_t z = atomic_fetch_add(&c->rng, 0x9e3779b97f4a7c15ull) + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void basalt_http_response_init(struct basalt_http_response *r) { memset(r, 0, sizeof *r); }

void basalt_http_response_free(struct basalt_http_response *r)
{
    basalt_free(r->body);
    r->body = NULL;
    r->body_len = 0;
}

basalt_status basalt_http_execute(struct basalt_http_client *c,
                                  const struct basalt_http_request *req,
                                  struct basalt_http_response *resp, struct basalt_error *err)
{
    return basalt_http_execute_all(c, req, resp, 1, err);
}
