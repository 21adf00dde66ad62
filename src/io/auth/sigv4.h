/* AWS Signature Version 4 (HMAC-SHA256) and 4a (ECDSA P-256) request signing.
 *
 * Pure functions over a description of the request: nothing here does I/O or
 * knows about HTTP libraries, so the S3 client, the Glue/S3 Tables catalogs and
 * the tests all sign the same way. Header signing returns the headers to add
 * (X-Amz-Date, Authorization, ...); presigning returns the query string to send.
 *
 * Secrets (the secret access key, derived keys) never appear in error
 * messages, and scratch copies of derived keys are wiped after use. */
#ifndef BASALT_IO_AUTH_SIGV4_H
#define BASALT_IO_AUTH_SIGV4_H

#include <pthread.h>

#include "basalt/core.h"

/* The literal payload hash for bodies that are not signed (S3 presigned URLs,
 * streaming uploads). */
#define BASALT_SIGV4_UNSIGNED_PAYLOAD "UNSIGNED-PAYLOAD"
/* Hex SHA-256 of the empty string, the payload hash of a request without body. */
#define BASALT_SIGV4_EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

/* Presigned URLs may live at most seven days (S3's limit, also SigV4's). */
#define BASALT_SIGV4_MAX_EXPIRES 604800

/* A header as (name, value); both borrowed, NUL-terminated. */
struct basalt_sigv4_header {
    const char *name;
    const char *value;
};

/* Borrowed strings. session_token NULL or "" means long-term credentials. */
struct basalt_sigv4_credentials {
    const char *access_key_id;
    const char *secret_access_key;
    const char *session_token;
};

/* The request as it will be sent. Every pointer is borrowed for the call. */
struct basalt_sigv4_request {
    const char *method;  /* "GET", "PUT", ... */
    /* "host" or "host:port" as in the Host header; signed as `host`. NULL when
     * `headers` carries Host itself. */
    const char *host;
    /* The path exactly as on the wire (already percent-encoded for S3: build it
     * with basalt_sigv4_uri_encode(key, keep_slash = true)). NULL or "" is "/". */
    const char *path;
    /* The raw query without '?'; NULL or "" for none. Parameters are decoded
     * and re-encoded canonically, so any valid encoding of them signs alike. */
    const char *query;
    /* Headers to sign besides those the signer adds. Names are matched
     * case-insensitively; repeated names are joined in order. */
    const struct basalt_sigv4_header *headers;
    size_t header_count;
    /* Hex SHA-256 of the body, or BASALT_SIGV4_UNSIGNED_PAYLOAD; NULL means a
     * request without body (BASALT_SIGV4_EMPTY_SHA256). */
    const char *payload_hash;
};

enum basalt_sigv4_flag {
    /* Non-S3 services: remove "." and ".." segments and merge runs of '/'
     * (a trailing '/' stays). S3 signs the path as sent. */
    BASALT_SIGV4_NORMALIZE_PATH = 1u << 0,
    /* Non-S3 services: percent-encode the path once more, so its canonical form
     * is the on-the-wire path encoded again. S3 signs the path as sent. */
    BASALT_SIGV4_ENCODE_PATH = 1u << 1,
    /* Add X-Amz-Security-Token after signing instead of signing it (a few
     * services, e.g. IoT, want the token unsigned). */
    BASALT_SIGV4_OMIT_SESSION_TOKEN = 1u << 2,
    /* Header signing: add and sign x-amz-content-sha256 = payload hash (S3
     * requires it). Presigning never adds it. */
    BASALT_SIGV4_ADD_CONTENT_SHA256 = 1u << 3,
};
/* What every service except S3 expects. */
#define BASALT_SIGV4_FLAGS_DEFAULT (BASALT_SIGV4_NORMALIZE_PATH | BASALT_SIGV4_ENCODE_PATH)
/* What S3 expects for header signing. */
#define BASALT_SIGV4_FLAGS_S3 BASALT_SIGV4_ADD_CONTENT_SHA256

struct basalt_sigv4_key_cache;
struct basalt_sigv4a_key;

struct basalt_sigv4_params {
    /* SigV4: the region ("us-east-1"). SigV4a: the region set ("us-east-1",
     * "us-*", "*"), sent as X-Amz-Region-Set. */
    const char *region;
    const char *service;     /* "s3", "glue", ... */
    int64_t time;            /* signing time, seconds since 1970-01-01 UTC */
    struct basalt_sigv4_credentials credentials;
    unsigned flags;          /* enum basalt_sigv4_flag, or-ed */
    int64_t expires;         /* presigning only: 1..BASALT_SIGV4_MAX_EXPIRES seconds */
    /* Optional (SigV4 only): reuse derived signing keys across calls. */
    struct basalt_sigv4_key_cache *cache;
    /* Non-NULL: sign with SigV4a using this key (derived from the same
     * credentials with basalt_sigv4a_key_derive). Borrowed. */
    const struct basalt_sigv4a_key *v4a_key;
};

/* Room for the hex of a DER ECDSA P-256 signature (at most 72 bytes). */
#define BASALT_SIGV4_SIGNATURE_MAX 160
/* X-Amz-Date, X-Amz-Region-Set, X-Amz-Security-Token, x-amz-content-sha256,
 * Authorization. */
#define BASALT_SIGV4_ADDED_MAX 5

/* What signing produces. Caller storage: zero it or pass it straight to a sign
 * call (which initialises it), and release it with basalt_sigv4_result_reset. */
struct basalt_sigv4_result {
    char *canonical_request;  /* owned */
    char *string_to_sign;     /* owned */
    char signature[BASALT_SIGV4_SIGNATURE_MAX]; /* lower-case hex */
    char amz_date[17];        /* "YYYYMMDDTHHMMSSZ" */
    /* Header signing: the headers to add to the request, in this order:
     * X-Amz-Date, X-Amz-Region-Set (4a), X-Amz-Security-Token (with a token),
     * x-amz-content-sha256 (when asked), Authorization. Values are owned by the
     * result. Empty after presigning. */
    struct basalt_sigv4_header headers[BASALT_SIGV4_ADDED_MAX];
    size_t header_count;
    char *authorization;      /* header signing: the Authorization value; owned */
    /* Presigning: the whole query string to send (the request's parameters,
     * the X-Amz-* ones and X-Amz-Signature), without '?'; owned. */
    char *query;
    char *owned_[3];          /* private: header values to free */
};

/* Signs `req` for the Authorization header. On success `out` holds the
 * canonical request, string to sign, signature and the headers to add (Host
 * is not among them: the request carries it already). Returns INVALID_ARG
 * (missing or malformed inputs, a header the signer adds itself), NOMEM,
 * LIMIT, INTERNAL (libcrypto failed a SigV4a signature). On failure `out` is
 * left empty. Thread-safe (the cache, if any, locks itself). */
basalt_status basalt_sigv4_sign_headers(const struct basalt_sigv4_request *req,
                                        const struct basalt_sigv4_params *params,
                                        struct basalt_sigv4_result *out,
                                        struct basalt_error *err);

/* Presigns `req` (a URL valid `params->expires` seconds). The signed headers
 * are `host` and the request's headers. On success out->query is the query
 * string to send. Statuses as basalt_sigv4_sign_headers, and INVALID_ARG when
 * the query already holds an X-Amz-* parameter the signer adds. */
basalt_status basalt_sigv4_presign(const struct basalt_sigv4_request *req,
                                   const struct basalt_sigv4_params *params,
                                   struct basalt_sigv4_result *out, struct basalt_error *err);

/* Frees what `out` owns and empties it. Safe on an empty or zeroed result. */
void basalt_sigv4_result_reset(struct basalt_sigv4_result *out);

/* ----------------------------------------------------------- building blocks */

/* Appends `s[0..len)` percent-encoded to `out`: every byte except A-Z a-z 0-9
 * - . _ ~ becomes %XX (upper-case hex), and '/' too unless keep_slash. This is
 * how S3 object keys go into paths (keep_slash = true) and how query names and
 * values are encoded. Returns NOMEM or LIMIT. */
basalt_status basalt_sigv4_uri_encode(struct basalt_buffer *out, const char *s, size_t len,
                                      bool keep_slash, struct basalt_error *err);

/* Formats `time` (seconds since the epoch, UTC) as "YYYYMMDDTHHMMSSZ" into
 * `out` (17 bytes). Returns INVALID_ARG for times before year 1 or after 9999. */
basalt_status basalt_sigv4_format_time(int64_t time, char out[17], struct basalt_error *err);

/* The SigV4 signing key HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region),
 * service), "aws4_request") for `date` "YYYYMMDD". Returns INVALID_ARG, NOMEM. */
basalt_status basalt_sigv4_signing_key(const char *secret_access_key, const char *date,
                                       const char *region, const char *service,
                                       uint8_t key[32], struct basalt_error *err);

/* ---------------------------------------------------------- signing-key cache */

/* A few derived signing keys, keyed by (access key id, secret, date, region,
 * service), so a client signing thousands of requests does not redo the four
 * HMACs each time. Least recently used entries are replaced; a new day is a
 * new key. Shareable: any number of threads may sign through one cache (a
 * mutex guards the entries; keys are copied out under it). The entries hold
 * the secret and derived keys in memory until evicted or reset, which wipes
 * them. Caller storage: basalt_sigv4_key_cache_init before use,
 * basalt_sigv4_key_cache_reset after. */
#define BASALT_SIGV4_KEY_CACHE_SLOTS 4
#define BASALT_SIGV4_KEY_CACHE_FIELD 128

struct basalt_sigv4_key_cache_slot {
    bool used;
    uint64_t last_use;
    char access_key_id[BASALT_SIGV4_KEY_CACHE_FIELD];
    char secret[BASALT_SIGV4_KEY_CACHE_FIELD];
    char date[9];
    char region[64];
    char service[64];
    uint8_t key[32];
};

struct basalt_sigv4_key_cache {
    pthread_mutex_t lock;
    uint64_t clock;
    uint64_t hits;    /* lookups answered from the cache (for tests and stats) */
    uint64_t misses;  /* lookups that derived a key */
    struct basalt_sigv4_key_cache_slot slots[BASALT_SIGV4_KEY_CACHE_SLOTS];
};

void basalt_sigv4_key_cache_init(struct basalt_sigv4_key_cache *cache);
/* Wipes the entries and releases the mutex; init again to reuse. */
void basalt_sigv4_key_cache_reset(struct basalt_sigv4_key_cache *cache);
/* The signing key for these inputs, from the cache or derived (and stored).
 * Values too long for an entry are derived without caching. Statuses as
 * basalt_sigv4_signing_key. */
basalt_status basalt_sigv4_key_cache_get(struct basalt_sigv4_key_cache *cache,
                                         const char *access_key_id,
                                         const char *secret_access_key, const char *date,
                                         const char *region, const char *service,
                                         uint8_t key[32], struct basalt_error *err);

/* ------------------------------------------------------------------ SigV4a */

/* The ECDSA P-256 key SigV4a derives from an access key id and secret (NIST
 * SP 800-108 counter-mode KDF over HMAC-SHA256, as AWS specifies). Deriving is
 * costly (an HMAC per attempt and a scalar multiplication): derive once per
 * credentials and share the key. Immutable after derivation, so shareable
 * between threads. */

/* Derives the key. `out` receives an owned key (basalt_sigv4a_key_free).
 * Returns INVALID_ARG (empty inputs), NOMEM, INTERNAL (libcrypto failed). */
basalt_status basalt_sigv4a_key_derive(const char *access_key_id, const char *secret_access_key,
                                       struct basalt_sigv4a_key **out, struct basalt_error *err);
/* Wipes and frees; NULL is a no-op. */
void basalt_sigv4a_key_free(struct basalt_sigv4a_key *key);
/* The public point, big-endian affine coordinates. */
void basalt_sigv4a_key_public(const struct basalt_sigv4a_key *key, uint8_t x[32], uint8_t y[32]);
/* Signs SHA-256(message) with ECDSA and writes the DER signature as lower-case
 * hex into `hex` (BASALT_SIGV4_SIGNATURE_MAX bytes). Signatures are randomised.
 * Returns NOMEM, INTERNAL. */
basalt_status basalt_sigv4a_sign(const struct basalt_sigv4a_key *key, const void *message,
                                 size_t len, char *hex, struct basalt_error *err);
/* Checks a hex DER signature of SHA-256(message) against the public point
 * (x, y). Returns OK when it verifies, AUTH when it does not, CORRUPT for a
 * malformed signature or point, NOMEM. */
basalt_status basalt_sigv4a_verify(const uint8_t x[32], const uint8_t y[32], const void *message,
                                   size_t len, const char *hex_signature,
                                   struct basalt_error *err);

#endif
