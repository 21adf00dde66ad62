/* The store's insides, shared by the backends. */
#ifndef BASALT_IO_STORE_H
#define BASALT_IO_STORE_H

#include <pthread.h>

#include "basalt/io.h"
#include "auth/sigv4.h"
#include "http/http.h"
#include "remote/object_cache.h"

enum basalt_io_scheme {
    BASALT_IO_SCHEME_FILE,
    BASALT_IO_SCHEME_HTTP,
    BASALT_IO_SCHEME_S3,
    BASALT_IO_SCHEME_GCS,
    BASALT_IO_SCHEME_AZURE,
};

/* Credentials and endpoints, resolved once when the store is made. */
struct basalt_io_s3_config {
    char *access_key_id;
    char *secret_access_key;
    char *session_token;
    char *region;
    char *endpoint; /* NULL: the provider's */
    enum basalt_io_addressing addressing;
    bool anonymous;
};

/* A SAS token, when there is one, is used instead of the key: it is the
 * narrower credential, and whoever configured it meant it to be used. */
struct basalt_io_azure_config {
    char *account;
    char *key; /* base64 */
    char *sas_token;
    char *endpoint; /* "http://127.0.0.1:10000/devstoreaccount1"; NULL: the account's */
    bool anonymous;
};

/* Shared Key for the configured account: x-ms-date and Authorization on each
 * attempt (a resumed read's Range changes what is signed). */
struct basalt_azure_signer {
    struct basalt_http_signer base;
    const struct basalt_io_azure_config *config;
};

/* SigV4 with a provider's keys (service "s3"), or a GCS bearer token. */
struct basalt_s3_signer {
    struct basalt_http_signer base;
    const struct basalt_io_s3_config *config;
    const char *bearer;
    struct basalt_sigv4_key_cache key_cache; /* derived keys, shared by all requests */
    struct basalt_sigv4_key_cache *cache;    /* &key_cache: signing goes through a const signer */
};

struct basalt_io_store {
    struct basalt_io_options options; /* numbers; strings cleared */
    /* Made on the first remote operation (libcurl and TLS set-up cost a few
     * milliseconds a process that only reads local files should not pay). */
    pthread_mutex_t http_lock;
    struct basalt_http_client *_Atomic http;
    struct basalt_io_s3_config s3;
    struct basalt_io_s3_config gcs; /* HMAC keys; region "auto" */
    char *gcs_bearer;
    struct basalt_s3_signer s3_signer;
    struct basalt_s3_signer gcs_signer;
    struct basalt_io_azure_config azure;
    struct basalt_azure_signer azure_signer;
    struct basalt_http_headers azure_headers; /* x-ms-version: on every Azure request */
    struct basalt_object_cache *cache;        /* options.cache_bytes; NULL: none */
    char *ca_file; /* options.ca_file, copied; options.ca_file points here */
};

/* The scheme of `uri`; INVALID_ARG for one basalt does not know. */
basalt_status basalt_io_uri_scheme(const char *uri, enum basalt_io_scheme *scheme,
                                   struct basalt_error *err);
/* The HTTP client, or INVALID_ARG naming `uri` when the store has none. */
basalt_status basalt_io_store_http(struct basalt_io_store *store, const char *uri,
                                   struct basalt_http_client **out, struct basalt_error *err);

#endif
