/* The store: options, its lifetime, and the dispatch of each operation to the
 * backend the URI's scheme names. */
#include <string.h>
#include <strings.h>

#include "azure/azure.h"
#include "local/local.h"
#include "s3/s3.h"
#include "store/store.h"
#include "store/store_credentials.h"
#include "web/web.h"

void basalt_io_options_init(struct basalt_io_options *o)
{
    memset(o, 0, sizeof *o);
    o->tls_verify = true;
    o->connect_timeout_ms = 10000;
    o->stall_timeout_ms = 30000;
    o->max_attempts = 6;
    o->retry_base_ms = 100;
    o->retry_max_ms = 5000;
    o->retry_budget_ms = 120000;
    o->max_concurrency = 8;
    o->coalesce_gap = 1u << 20;
    o->split_size = 8u << 20;
    o->footer_tail = 64u << 10;
    o->prefetch = true;
    o->cache_bytes = (uint64_t)256 << 20;
    o->part_size = 8u << 20;
    o->parts_in_flight = 4;
}

basalt_status basalt_io_uri_scheme(const char *uri, enum basalt_io_scheme *scheme,
                                   struct basalt_error *err)
{
    static const struct {
        const char *prefix;
        enum basalt_io_scheme scheme;
    } known[] = {
        {"file://", BASALT_IO_SCHEME_FILE},    {"http://", BASALT_IO_SCHEME_HTTP},
        {"https://", BASALT_IO_SCHEME_HTTP},   {"s3://", BASALT_IO_SCHEME_S3},
        {"s3a://", BASALT_IO_SCHEME_S3},       {"gs://", BASALT_IO_SCHEME_GCS},
        {"az://", BASALT_IO_SCHEME_AZURE},     {"abfs://", BASALT_IO_SCHEME_AZURE},
        {"abfss://", BASALT_IO_SCHEME_AZURE},
    };
    const char *colon = strstr(uri, "://");
    if (!colon || strncmp(uri, "file:", 5) == 0) {
        *scheme = BASALT_IO_SCHEME_FILE;
        return BASALT_OK;
    }
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strncasecmp(uri, known[i].prefix, strlen(known[i].prefix)) == 0) {
            *scheme = known[i].scheme;
            return BASALT_OK;
        }
    return basalt_error_set(err, BASALT_INVALID_ARG, "%.300s: unknown URI scheme '%.*s'", uri,
                            (int)(colon - uri), uri);
}

bool basalt_io_uri_is_remote(const char *uri)
{
    enum basalt_io_scheme s;
    return uri && basalt_io_uri_scheme(uri, &s, NULL) == BASALT_OK && s != BASALT_IO_SCHEME_FILE;
}

basalt_status basalt_io_store_http(struct basalt_io_store *store, const char *uri,
                                   struct basalt_http_client **out, struct basalt_error *err)
{
    if (!store)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "%.300s: a remote URI needs an object store (none was given)",
                                uri);
    basalt_status st = BASALT_OK;
    pthread_mutex_lock(&store->http_lock);
    if (!store->http) {
        struct basalt_http_client *made = NULL;
        st = basalt_http_client_new(&store->options, &made, err);
        store->http = made;
    }
    *out = store->http;
    pthread_mutex_unlock(&store->http_lock);
    return st;
}

basalt_status basalt_io_store_new(const struct basalt_io_options *options,
                                  struct basalt_io_store **out, struct basalt_error *err)
{
    *out = NULL;
    struct basalt_io_options defaults;
    if (!options) {
        basalt_io_options_init(&defaults);
        options = &defaults;
    }
    struct basalt_io_store *s = basalt_calloc(1, sizeof *s);
    if (!s)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for an object store");
    pthread_mutex_init(&s->http_lock, NULL);
    basalt_status st = basalt_io_store_resolve_credentials(s, options, err);
    if (st == BASALT_OK) {
        s->options = *options;
        /* The strings were copied into the configs; keep no borrowed one. */
        s->options.access_key_id = s->options.secret_access_key = s->options.session_token =
            NULL;
        s->options.region = s->options.endpoint = s->options.profile = NULL;
        s->options.azure_account = s->options.azure_key = s->options.azure_sas_token = NULL;
        s->options.azure_connection_string = s->options.azure_endpoint = NULL;
        s->options.bearer_token = NULL;
        s->options.ca_file = NULL;
        if (options->ca_file && !(s->options.ca_file = s->ca_file = basalt_strdup(options->ca_file)))
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory for an object store");
    }
    if (st == BASALT_OK)
        st = basalt_azure_headers_init(&s->azure_headers, err);
    if (st != BASALT_OK) {
        basalt_io_store_free(s);
        return st;
    }
    /* Out of memory here only costs the cache. */
    if (options->cache_bytes > 0)
        s->cache = basalt_object_cache_new(options->cache_bytes);
    basalt_s3_signer_init(&s->s3_signer, &s->s3, NULL);
    basalt_s3_signer_init(&s->gcs_signer, &s->gcs, s->gcs_bearer);
    basalt_azure_signer_init(&s->azure_signer, &s->azure);
    *out = s;
    return BASALT_OK;
}

void basalt_io_store_free(struct basalt_io_store *store)
{
    if (!store)
        return;
    basalt_http_client_free(store->http);
    basalt_object_cache_free(store->cache);
    basalt_s3_signer_reset(&store->s3_signer);
    basalt_s3_signer_reset(&store->gcs_signer);
    basalt_io_store_forget_credentials(store);
    basalt_free(store->ca_file);
    pthread_mutex_destroy(&store->http_lock);
    basalt_free(store);
}

void basalt_io_store_stats(const struct basalt_io_store *store, struct basalt_io_stats *out)
{
    memset(out, 0, sizeof *out);
    struct basalt_http_client *http = store ? store->http : NULL;
    if (http)
        basalt_http_client_stats(http, out);
    out->cache_hits = store ? basalt_object_cache_hits(store->cache) : 0;
}

basalt_status basalt_io_open_input(struct basalt_io_store *store, const char *uri,
                                   struct basalt_input **out, struct basalt_error *err)
{
    return basalt_io_open_input_flags(store, uri, 0, out, err);
}

basalt_status basalt_io_open_input_flags(struct basalt_io_store *store, const char *uri,
                                         unsigned flags, struct basalt_input **out,
                                         struct basalt_error *err)
{
    enum basalt_io_scheme scheme;
    *out = NULL;
    basalt_status st = basalt_io_uri_scheme(uri, &scheme, err);
    if (st != BASALT_OK)
        return st;
    switch (scheme) {
    case BASALT_IO_SCHEME_FILE: return basalt_local_open_input(uri, out, err);
    case BASALT_IO_SCHEME_HTTP: return basalt_web_open_input(store, uri, flags, out, err);
    case BASALT_IO_SCHEME_S3:
    case BASALT_IO_SCHEME_GCS: return basalt_s3_open_input(store, uri, flags, out, err);
    case BASALT_IO_SCHEME_AZURE: return basalt_azure_open_input(store, uri, flags, out, err);
    }
    return basalt_error_set(err, BASALT_INTERNAL, "%.300s: unhandled scheme", uri);
}

basalt_status basalt_io_open_output(struct basalt_io_store *store, const char *uri,
                                    unsigned flags, struct basalt_output **out,
                                    struct basalt_error *err)
{
    enum basalt_io_scheme scheme;
    *out = NULL;
    basalt_status st = basalt_io_uri_scheme(uri, &scheme, err);
    if (st != BASALT_OK)
        return st;
    switch (scheme) {
    case BASALT_IO_SCHEME_FILE: return basalt_local_open_output(uri, flags, out, err);
    case BASALT_IO_SCHEME_HTTP:
        return basalt_error_set(err, BASALT_INVALID_ARG, "%.300s: http(s) objects are read-only",
                                uri);
    case BASALT_IO_SCHEME_S3:
    case BASALT_IO_SCHEME_GCS: return basalt_s3_open_output(store, uri, flags, out, err);
    case BASALT_IO_SCHEME_AZURE: return basalt_azure_open_output(store, uri, flags, out, err);
    }
    return basalt_error_set(err, BASALT_INTERNAL, "%.300s: unhandled scheme", uri);
}

basalt_status basalt_io_list(struct basalt_io_store *store, const char *uri_prefix,
                             bool delimited, basalt_io_visit_fn visit, void *ctx,
                             struct basalt_error *err)
{
    enum basalt_io_scheme scheme;
    basalt_status st = basalt_io_uri_scheme(uri_prefix, &scheme, err);
    if (st != BASALT_OK)
        return st;
    switch (scheme) {
    case BASALT_IO_SCHEME_FILE: return basalt_local_list(uri_prefix, delimited, visit, ctx, err);
    case BASALT_IO_SCHEME_S3:
    case BASALT_IO_SCHEME_GCS:
        return basalt_s3_list(store, uri_prefix, delimited, visit, ctx, err);
    case BASALT_IO_SCHEME_AZURE:
        return basalt_azure_list(store, uri_prefix, delimited, visit, ctx, err);
    case BASALT_IO_SCHEME_HTTP: break;
    }
    return basalt_error_set(err, BASALT_UNSUPPORTED, "%.300s: listing is not supported here",
                            uri_prefix);
}

basalt_status basalt_io_stat(struct basalt_io_store *store, const char *uri,
                             struct basalt_io_object_info *out, struct basalt_error *err)
{
    enum basalt_io_scheme scheme;
    memset(out, 0, sizeof *out);
    basalt_status st = basalt_io_uri_scheme(uri, &scheme, err);
    if (st != BASALT_OK)
        return st;
    switch (scheme) {
    case BASALT_IO_SCHEME_FILE: return basalt_local_stat(uri, out, err);
    case BASALT_IO_SCHEME_HTTP: return basalt_web_stat(store, uri, out, err);
    case BASALT_IO_SCHEME_S3:
    case BASALT_IO_SCHEME_GCS: return basalt_s3_stat(store, uri, out, err);
    case BASALT_IO_SCHEME_AZURE: return basalt_azure_stat(store, uri, out, err);
    }
    return basalt_error_set(err, BASALT_INTERNAL, "%.300s: unhandled scheme", uri);
}

basalt_status basalt_io_delete(struct basalt_io_store *store, const char *const *uris,
                               size_t count, struct basalt_error *err)
{
    /* Consecutive URIs of one scheme go to their backend together. */
    size_t i = 0;
    while (i < count) {
        enum basalt_io_scheme a, b;
        basalt_status st = basalt_io_uri_scheme(uris[i], &a, err);
        if (st != BASALT_OK)
            return st;
        size_t j = i + 1;
        while (j < count && basalt_io_uri_scheme(uris[j], &b, NULL) == BASALT_OK && b == a)
            j++;
        switch (a) {
        case BASALT_IO_SCHEME_FILE: st = basalt_local_delete(uris + i, j - i, err); break;
        case BASALT_IO_SCHEME_S3:
        case BASALT_IO_SCHEME_GCS: st = basalt_s3_delete(store, uris + i, j - i, err); break;
        case BASALT_IO_SCHEME_HTTP:
            st = basalt_error_set(err, BASALT_INVALID_ARG, "%.300s: http(s) objects are read-only",
                                  uris[i]);
            break;
        case BASALT_IO_SCHEME_AZURE: st = basalt_azure_delete(store, uris + i, j - i, err); break;
        }
        if (st != BASALT_OK)
            return st;
        i = j;
    }
    return BASALT_OK;
}

basalt_status basalt_io_presign(struct basalt_io_store *store, const char *uri,
                                const char *method, uint32_t expires_s, char *url, size_t cap,
                                struct basalt_error *err)
{
    enum basalt_io_scheme scheme;
    basalt_status st = basalt_io_uri_scheme(uri, &scheme, err);
    if (st != BASALT_OK)
        return st;
    if (scheme != BASALT_IO_SCHEME_S3 && scheme != BASALT_IO_SCHEME_GCS)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "%.300s: presigned URLs exist for s3:// and gs:// only", uri);
    if (!store)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%.300s: presigning needs a store", uri);
    if (expires_s == 0 || expires_s > 604800)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "%.300s: expiry %u s is outside 1 to 604800", uri, expires_s);
    return basalt_s3_presign(store, uri, method, expires_s, url, cap, err);
}
