/* basalt io: where bytes come from and go to.
 *
 * A `struct basalt_input` is a random-access byte source (a local file, a
 * memory buffer, later HTTP and S3 objects); a `struct basalt_output` is an
 * append-only byte sink that commits atomically on close. Readers and writers
 * of every format work over these, never over file descriptors. */
#ifndef BASALT_IO_H
#define BASALT_IO_H

#include "basalt/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One range of a vectored read: read `length` bytes at `offset` into `dst`. */
struct basalt_io_range {
    uint64_t offset;
    uint64_t length;
    void *dst;
};

struct basalt_input;

/* What one input has cost since it was opened: the requests sent for it
 * (its opening included; a retried request counts once, the retries are in
 * the store's counters) and the bytes those requests asked for (for the
 * opening's tail, the bytes it brought). Zero for local files, memory, and
 * objects served from the store's cache. */
struct basalt_input_stats {
    uint64_t requests;
    uint64_t bytes_requested;
};

/* Takes the next `len` bytes of a streamed read (basalt_input_read_stream).
 * `data` is valid during the call only. A non-OK status (with `err` set)
 * stops the read, which returns that status and message. */
typedef basalt_status (*basalt_io_sink_fn)(void *ctx, const void *data, size_t len,
                                           struct basalt_error *err);

/* The operations behind an input. Implementations fill this in; callers use
 * the basalt_input_* functions. read_at must read exactly `length` bytes or
 * fail (IO, or CORRUPT when the range passes the end). */
struct basalt_input_ops {
    basalt_status (*read_at)(struct basalt_input *in, uint64_t offset, uint64_t length,
                             void *dst, struct basalt_error *err);
    /* Optional: reads several ranges, coalescing as the backend sees fit.
     * NULL means one read_at per range. */
    basalt_status (*read_ranges)(struct basalt_input *in, struct basalt_io_range *ranges,
                                 size_t count, struct basalt_error *err);
    /* Optional: a pointer to the whole object in memory (memory inputs, mapped
     * files), so readers can use bytes in place. NULL when not available. */
    const uint8_t *(*view)(struct basalt_input *in);
    void (*close)(struct basalt_input *in);
    /* Optional: a hint that these ranges will be read soon. Remote backends
     * start fetching them in the background so that a later read_ranges of
     * the same ranges finds the bytes in memory. `need` (NULL: no order)
     * says when each range is wanted, as in basalt_input_prefetch_in_order.
     * NULL: no-op. */
    void (*prefetch)(struct basalt_input *in, const struct basalt_io_range *ranges,
                     const uint32_t *need, size_t count);
    /* Optional: hands bytes [offset, offset + length), checked to be inside
     * the object, to `sink` in order as they come, in memory bounded
     * whatever the length (remote objects: one request for the whole
     * range, its body streamed). NULL: read_at in chunks. */
    basalt_status (*read_stream)(struct basalt_input *in, uint64_t offset, uint64_t length,
                                 basalt_io_sink_fn sink, void *ctx, struct basalt_error *err);
    /* Optional: what the input has cost so far (basalt_input_get_stats).
     * NULL: nothing (local files, memory). */
    void (*stats)(struct basalt_input *in, struct basalt_input_stats *out);
    /* Optional: the view's bytes [offset, offset + length) will not be read
     * again soon (basalt_input_release_view). NULL: no-op. */
    void (*release_view)(struct basalt_input *in, uint64_t offset, uint64_t length);
};

/* An open input. `name` names it in error messages (a path or URL). Safe to
 * share between threads for reads when the backend says so (both built-in
 * backends are: pread and memory reads carry no position). */
struct basalt_input {
    const struct basalt_input_ops *ops;
    uint64_t size;
    const char *name;
};

/* Opens a local file for reading. `use_mmap` maps it (and view() then returns
 * the mapping). NOT_FOUND, IO, NOMEM. Close with basalt_input_close. */
BASALT_EXPORT basalt_status basalt_input_open_file(const char *path, bool use_mmap,
                                                   struct basalt_input **out,
                                                   struct basalt_error *err);
/* An input over caller memory, borrowed: it must outlive the input. `name`
 * is copied. NOMEM. */
BASALT_EXPORT basalt_status basalt_input_open_memory(const void *data, size_t size,
                                                     const char *name, struct basalt_input **out,
                                                     struct basalt_error *err);

/* Reads exactly `length` bytes at `offset`. A range past the end is CORRUPT
 * (the caller derived it from the file's own contents), with the input's name. */
BASALT_EXPORT basalt_status basalt_input_read_at(struct basalt_input *in, uint64_t offset,
                                                 uint64_t length, void *dst,
                                                 struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_input_read_ranges(struct basalt_input *in,
                                                     struct basalt_io_range *ranges, size_t count,
                                                     struct basalt_error *err);
/* Hints that `ranges` (their dst is ignored) will be read soon; remote
 * inputs start fetching them in the background. Never fails: a prefetch
 * that goes wrong is retried by the read that follows. */
BASALT_EXPORT void basalt_input_prefetch(struct basalt_input *in,
                                         const struct basalt_io_range *ranges, size_t count);
/* The same, saying when each range will be read: need[i] is a rank,
 * smaller sooner, equal together (a Parquet scan gives one rank per row
 * group). A remote input still sends every request at once, so their
 * round trips overlap, but holds back the bodies of later ranks while one
 * of an earlier rank arrives: the first row group lands whole and early
 * instead of all of them sharing the link until the last byte. */
BASALT_EXPORT void basalt_input_prefetch_in_order(struct basalt_input *in,
                                                  const struct basalt_io_range *ranges,
                                                  const uint32_t *need, size_t count);
/* Reads bytes [offset, offset + length) front to back and hands them to
 * `sink` in order, each byte once, in pieces of no fixed size, with memory
 * bounded by a few MiB whatever `length` is: for copying or printing a whole
 * object. A remote object comes down in one GET of the whole range whose
 * body is passed on as it arrives (not in many range requests); a body that
 * breaks resumes from the byte reached, pinned to the object's ETag, so a
 * changed object is CONFLICT, never a mix of two. When it fails, the sink
 * may already have taken a prefix of the range. An object opened for this
 * alone is best opened with BASALT_IO_SEQUENTIAL (basalt_io_open_input_flags),
 * so that its open does not fetch the footer tail too. A range past the end is
 * CORRUPT (as basalt_input_read_at); IO, CONFLICT, NOMEM, or the sink's
 * status. */
BASALT_EXPORT basalt_status basalt_input_read_stream(struct basalt_input *in, uint64_t offset,
                                                     uint64_t length, basalt_io_sink_fn sink,
                                                     void *ctx, struct basalt_error *err);
/* Fills `out` with what `in` has cost so far (zeros when its backend does
 * not count). Thread-safe against reads and prefetches of the input. */
BASALT_EXPORT void basalt_input_get_stats(struct basalt_input *in, struct basalt_input_stats *out);
/* The whole object in memory if the backend has it, else NULL. Valid until close. */
BASALT_EXPORT const uint8_t *basalt_input_view(struct basalt_input *in);
/* Says that the view's bytes [offset, offset + length) will not be read again
 * soon: a mapped file gives back the pages wholly inside the range, so that a
 * reader going through a file larger than memory does not hold all of it in
 * its resident set. The view stays valid (a page touched again is read again
 * from the file). A no-op for other inputs and for a range outside the object. */
BASALT_EXPORT void basalt_input_release_view(struct basalt_input *in, uint64_t offset,
                                             uint64_t length);
/* A local copy of `src` (read front to back, basalt_input_read_stream: one
 * GET for a remote object, memory bounded by a few MiB) in an unlinked
 * temporary file in `dir` (NULL: $TMPDIR, else /tmp), mapped: readers that
 * parse their input in place (CSV, JSON lines) then take a view of it and
 * give its pages back as they go (basalt_input_release_view), where a
 * remote object would be read whole into memory. The file is gone once the
 * input is closed, or the process ends. Named as `src`, which stays open
 * (the caller closes it). LIMIT (the directory's file system is full); IO;
 * NOMEM; src's statuses. */
BASALT_EXPORT basalt_status basalt_input_spool(struct basalt_input *src, const char *dir,
                                               struct basalt_input **out,
                                               struct basalt_error *err);
/* Closes and frees. NULL is a no-op. */
BASALT_EXPORT void basalt_input_close(struct basalt_input *in);

struct basalt_output;

struct basalt_output_ops {
    basalt_status (*write)(struct basalt_output *out, const void *data, size_t len,
                           struct basalt_error *err);
    /* Makes everything written visible under the final name, atomically. */
    basalt_status (*commit)(struct basalt_output *out, struct basalt_error *err);
    /* Frees the output; if it was not committed, discards what was written so
     * that nothing is left under the final name. */
    void (*close)(struct basalt_output *out);
};

struct basalt_output {
    const struct basalt_output_ops *ops;
    uint64_t written;
    const char *name;
    bool committed;
};

/* Creates a local file output. Bytes go to a temporary file beside `path`
 * ("<path>.tmp-<pid>-<n>"); basalt_output_commit fsyncs it and renames it over
 * `path`. Closing without a successful commit removes the temporary file, so
 * a failed write never leaves a file that looks valid. A `path` that exists
 * and is not a regular file (/dev/null, /dev/stdout, a FIFO) is written in
 * place instead: renaming over it would replace the device. IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_output_open_file(const char *path, struct basalt_output **out,
                                                    struct basalt_error *err);
/* An output into a growable memory buffer. NOMEM. */
BASALT_EXPORT basalt_status basalt_output_open_memory(const char *name, struct basalt_output **out,
                                                      struct basalt_error *err);
/* After a successful commit of a memory output: returns the bytes (free with
 * basalt_free) and stores their length; the output keeps nothing. NULL if the
 * output is not a committed memory output. */
BASALT_EXPORT uint8_t *basalt_output_memory_take(struct basalt_output *out, size_t *len);

/* Appends bytes. INVALID_ARG after commit; IO; NOMEM. */
BASALT_EXPORT basalt_status basalt_output_write(struct basalt_output *out, const void *data,
                                                size_t len, struct basalt_error *err);
/* Makes the data durable under the output's name. On failure nothing is left
 * under the name. The output must still be closed. */
BASALT_EXPORT basalt_status basalt_output_commit(struct basalt_output *out,
                                                 struct basalt_error *err);
/* Frees the output, discarding what was written unless it was committed.
 * NULL is a no-op. */
BASALT_EXPORT void basalt_output_close(struct basalt_output *out);

/* Test hook (process-wide, thread-safe), the output side of
 * basalt_alloc_fail_after: the n-th basalt_output_write or
 * basalt_output_commit from now (n >= 1), on any backend, and every later
 * one fail with IO, until called again; n = 0 disarms. */
BASALT_EXPORT void basalt_io_fail_writes_after(int64_t n);

/* ------------------------------------------------------------ object stores
 *
 * A `struct basalt_io_store` opens inputs and outputs by URI:
 *   plain paths and file://       local files
 *   http://, https://             read-only objects (range requests)
 *   s3://BUCKET/KEY, s3a://       AWS S3 and S3-compatible servers (SigV4)
 *   gs://BUCKET/KEY               Google Cloud Storage, XML API (HMAC keys
 *                                 through SigV4, or a bearer token)
 *   az://CONTAINER/BLOB, abfs[s]://CONTAINER@ACCOUNT.dfs.core.windows.net/BLOB
 *                                 Azure Blob storage (Shared Key or SAS)
 * The store holds what requests share: resolved credentials, pooled
 * connections, DNS and TLS sessions, and the counters. It is safe to use from
 * several threads at once; each input or output it opens is used by one
 * thread at a time (reads of one input may come from several threads). */

/* Bucket addressing for S3-compatible endpoints. AUTO: virtual-host style on
 * AWS, path style for an IP address or localhost endpoint. */
enum basalt_io_addressing {
    BASALT_IO_ADDRESSING_AUTO = 0,
    BASALT_IO_ADDRESSING_PATH,
    BASALT_IO_ADDRESSING_VIRTUAL,
};

/* What a store is told. Strings are borrowed during basalt_io_store_new only
 * (the store copies them). NULL strings fall back to the standard
 * environment and shared files (see basalt_io_store_new). */
struct basalt_io_options {
    /* S3 and GCS HMAC keys. */
    const char *access_key_id;
    const char *secret_access_key;
    const char *session_token;
    const char *region;   /* default: environment, profile, then us-east-1 */
    const char *endpoint; /* "http://127.0.0.1:9000"; NULL: the provider's own */
    const char *profile;  /* a profile of ~/.aws/credentials and ~/.aws/config */
    enum basalt_io_addressing addressing;
    bool anonymous;          /* send unsigned requests (public buckets) */
    bool ignore_environment; /* use only these options: no variables, no files */
    /* Azure. */
    const char *azure_account;
    const char *azure_key;               /* base64 Shared Key */
    const char *azure_sas_token;         /* "sv=...&sig=..." */
    const char *azure_connection_string; /* overrides the three above */
    const char *azure_endpoint;          /* "http://127.0.0.1:10000/devstoreaccount1" */
    /* GCS OAuth bearer token (else GOOGLE_OAUTH_ACCESS_TOKEN). */
    const char *bearer_token;

    /* HTTP. */
    bool tls_verify;            /* default true: the system CA store */
    /* A PEM file of CA certificates trusted instead of the system store
     * (a private CA, a test server); NULL: the system store. Read when a
     * connection is made, so a missing or unreadable file fails the first
     * request (IO naming it), not basalt_io_store_new. */
    const char *ca_file;
    uint32_t connect_timeout_ms; /* default 10 000 */
    /* A request that moves no byte for this long fails as a timeout (a
     * stalled body is retried like a reset). Default 30 000. */
    uint32_t stall_timeout_ms;
    /* Retries: exponential backoff with full jitter, base * 2^attempt capped
     * at max, at most max_attempts tries and retry_budget_ms in all. */
    uint32_t max_attempts;   /* default 6 */
    uint32_t retry_base_ms;  /* default 100 */
    uint32_t retry_max_ms;   /* default 5 000 */
    uint32_t retry_budget_ms; /* default 120 000 */
    uint32_t max_concurrency; /* requests in flight at once, per operation; default 8 */

    /* Reads. */
    uint64_t coalesce_gap;    /* ranges closer than this share a request; default 1 MiB */
    uint64_t split_size;      /* a longer range splits into concurrent requests; default 8 MiB */
    uint64_t footer_tail;     /* bytes of the tail fetched at open (Parquet footers); default 64 KiB */
    bool prefetch;            /* honour basalt_input_prefetch; default true */
    /* Memory for the bytes of immutable objects (inputs opened with
     * BASALT_IO_IMMUTABLE), kept across inputs: the same object opened
     * again is sized and read without requests. Default 256 MiB; 0: none. */
    uint64_t cache_bytes;

    /* Writes. An object up to one part goes up in a single request; a
     * larger one in parts of this size (S3's minimum is 5 MiB). */
    uint64_t part_size;           /* default 8 MiB */
    uint32_t parts_in_flight;     /* parts uploading at once while the writer goes on; default 4 */
};

/* Fills `options` with the defaults above (every string NULL). */
BASALT_EXPORT void basalt_io_options_init(struct basalt_io_options *options);

/* Counters of a store since it was made: every HTTP request sent (retries
 * included), retries alone, body bytes received and sent, requests that
 * failed after their last attempt. */
struct basalt_io_stats {
    uint64_t requests;
    uint64_t retries;
    uint64_t bytes_received;
    uint64_t bytes_sent;
    uint64_t failures;
    uint64_t cache_hits; /* opens and reads served from the cache (cache_bytes) */
    /* Prefetched bodies held back while one needed sooner was arriving
     * (see the prefetch option). */
    uint64_t held_back;
};

struct basalt_io_store;

/* Makes a store. Credentials not given in `options` come, unless
 * ignore_environment is set, from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN, AWS_REGION / AWS_DEFAULT_REGION, AWS_ENDPOINT_URL_S3 /
 * AWS_ENDPOINT_URL, AWS_PROFILE, AWS_SHARED_CREDENTIALS_FILE,
 * AWS_CONFIG_FILE, ~/.aws/credentials and ~/.aws/config (region,
 * endpoint_url, s3 addressing_style), AZURE_STORAGE_ACCOUNT,
 * AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN,
 * AZURE_STORAGE_CONNECTION_STRING and GOOGLE_OAUTH_ACCESS_TOKEN. `options`
 * NULL means the defaults. Secrets never appear in error messages.
 * INVALID_ARG, CORRUPT (a malformed shared file), NOMEM. */
BASALT_EXPORT basalt_status basalt_io_store_new(const struct basalt_io_options *options,
                                                struct basalt_io_store **out,
                                                struct basalt_error *err);
/* Frees the store; every input and output it opened must be closed first.
 * NULL is a no-op. */
BASALT_EXPORT void basalt_io_store_free(struct basalt_io_store *store);
/* Copies the store's counters into `out`. */
BASALT_EXPORT void basalt_io_store_stats(const struct basalt_io_store *store,
                                         struct basalt_io_stats *out);

/* True when `uri` names a remote object (a scheme other than file://). */
BASALT_EXPORT bool basalt_io_uri_is_remote(const char *uri);

/* Opens `uri` for reading. Remote objects are sized at open by one request
 * that also fetches the last footer_tail bytes. `store` NULL: local paths
 * only (remote URIs are INVALID_ARG). NOT_FOUND, AUTH, IO, INVALID_ARG,
 * NOMEM. The input borrows the store. */
BASALT_EXPORT basalt_status basalt_io_open_input(struct basalt_io_store *store, const char *uri,
                                                 struct basalt_input **out,
                                                 struct basalt_error *err);

/* Flags for basalt_io_open_input_flags. */
enum {
    /* The object never changes under its name (Iceberg data, delete,
     * manifest and metadata files): its size and bytes may be kept in the
     * store's cache (cache_bytes) and served from there later. */
    BASALT_IO_IMMUTABLE = 1u << 0,
    /* The input will be read front to back with basalt_input_read_stream
     * (copying, printing), not decoded from its footer: it is sized with a
     * HEAD instead of a request that also fetches the footer tail, so every
     * byte of the object is fetched once, by the stream. */
    BASALT_IO_SEQUENTIAL = 1u << 1,
};
/* basalt_io_open_input with flags (BASALT_IO_IMMUTABLE, BASALT_IO_SEQUENTIAL). */
BASALT_EXPORT basalt_status basalt_io_open_input_flags(struct basalt_io_store *store,
                                                       const char *uri, unsigned flags,
                                                       struct basalt_input **out,
                                                       struct basalt_error *err);

/* Flags for basalt_io_open_output. */
enum {
    /* Commit fails with CONFLICT when the object exists (S3 If-None-Match: *,
     * Azure If-None-Match: *, local link()). */
    BASALT_IO_CREATE_EXCLUSIVE = 1u << 0,
};

/* Opens `uri` for writing. Nothing is visible under the name until
 * basalt_output_commit succeeds; closing without a commit (or a failed
 * commit) leaves no object and no open multipart upload. (A local name
 * that exists and is not a regular file, such as /dev/null or a FIFO, is
 * written in place, so that the device is not replaced.) Large remote
 * objects are uploaded in parts while the caller keeps writing.
 * INVALID_ARG (http:// is read-only), AUTH, IO, NOMEM. */
BASALT_EXPORT basalt_status basalt_io_open_output(struct basalt_io_store *store, const char *uri,
                                                  unsigned flags, struct basalt_output **out,
                                                  struct basalt_error *err);

/* One object (or, from a delimited listing, one common prefix). */
struct basalt_io_entry {
    const char *uri;  /* the full URI, e.g. "s3://bucket/dir/file" */
    uint64_t size;
    int64_t mtime_ms; /* Unix milliseconds; 0 when unknown */
    const char *etag; /* "" when unknown */
    bool is_prefix;   /* a common prefix ("directory") of a delimited listing */
};

/* Calls `visit` for every object under `uri_prefix` (all pages of the
 * listing, in key order). With `delimited`, objects below the next '/' are
 * folded into one is_prefix entry each. Entries are valid during the call
 * only. A non-OK status from `visit` stops the listing and is returned.
 * NOT_FOUND (no such bucket), AUTH, IO, NOMEM. */
typedef basalt_status (*basalt_io_visit_fn)(void *ctx, const struct basalt_io_entry *entry,
                                            struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_io_list(struct basalt_io_store *store, const char *uri_prefix,
                                           bool delimited, basalt_io_visit_fn visit, void *ctx,
                                           struct basalt_error *err);

/* Size, time and ETag of one object. */
#define BASALT_IO_ETAG_MAX 128
struct basalt_io_object_info {
    uint64_t size;
    int64_t mtime_ms; /* Unix milliseconds; 0 when unknown */
    char etag[BASALT_IO_ETAG_MAX]; /* as the server quotes it; "" when unknown */
};
/* NOT_FOUND, AUTH, IO. */
BASALT_EXPORT basalt_status basalt_io_stat(struct basalt_io_store *store, const char *uri,
                                           struct basalt_io_object_info *out,
                                           struct basalt_error *err);

/* Creates the missing parent directories of the local path `path` (mkdir
 * -p of its directory part). IO naming the directory, LIMIT. */
BASALT_EXPORT basalt_status basalt_io_make_parent_dirs(const char *path, struct basalt_error *err);

/* Deletes objects, batched (S3 DeleteObjects takes 1000 keys a request). A
 * missing object is not an error. The first failure is reported with its
 * URI. AUTH, IO. */
BASALT_EXPORT basalt_status basalt_io_delete(struct basalt_io_store *store,
                                             const char *const *uris, size_t count,
                                             struct basalt_error *err);

/* A presigned URL for `method` ("GET" or "PUT") on an s3:// or gs:// object,
 * valid for `expires_s` seconds (1 to 604800), written to `url` (NUL
 * terminated). UNSUPPORTED for other schemes, LIMIT when `cap` is too small. */
BASALT_EXPORT basalt_status basalt_io_presign(struct basalt_io_store *store, const char *uri,
                                              const char *method, uint32_t expires_s, char *url,
                                              size_t cap, struct basalt_error *err);

/* ------------------------------------------------------------ HTTP requests
 *
 * One HTTP request through a store's client (the one its http(s), S3, GCS
 * and Azure objects use), so that the store's TLS settings, timeouts,
 * retries with jittered backoff, pooled connections and counters apply.
 * For protocols above io that speak HTTP themselves (the REST catalog, the
 * AWS Glue and S3 Tables catalogs). Nothing is signed unless aws_service is
 * set; otherwise the caller sends its own Authorization header. */

/* When a request may be sent again. */
enum basalt_io_http_retry {
    /* After any transport failure or a retryable status (408, 429, 500,
     * 502, 503, 504): for requests that may run twice (GET, HEAD, token
     * requests). */
    BASALT_IO_HTTP_RETRY_ANY = 0,
    /* Only when the server certainly did not act on it: the connection
     * never opened, or it answered 429. Every other outcome, 5xx included,
     * is the caller's to judge (a commit that got 503 may have happened). */
    BASALT_IO_HTTP_RETRY_UNSENT,
};

struct basalt_io_http_header {
    const char *name;
    const char *value;
};

/* A request; everything borrowed for the duration of the call. Without a
 * Content-Type header none is sent; without an Accept header none either. */
struct basalt_io_http_request {
    const char *method; /* "GET", "HEAD", "POST", "PUT", "DELETE" */
    const char *url;    /* http:// or https://, already percent-encoded */
    const struct basalt_io_http_header *headers;
    size_t n_headers;   /* at most 16 */
    const void *body;   /* NULL when body_len is 0 */
    size_t body_len;
    enum basalt_io_http_retry retry;
    size_t max_body;    /* the largest response body kept; 0: 64 MiB */
    /* Set: every attempt is signed with AWS Signature Version 4 for this
     * service ("glue", "s3tables"), with the store's AWS credentials (those
     * its s3:// objects use: options, environment, shared files), the body's
     * SHA-256 and a fresh X-Amz-Date; the request's headers are signed too.
     * A store without AWS credentials sends the request unsigned. NULL:
     * nothing is signed. */
    const char *aws_service;
    /* The region signed for; NULL: the store's (basalt_io_store_aws_region). */
    const char *aws_region;
};

/* A response. `body` is basalt_malloc'd and NUL-terminated (an empty body
 * is ""), owned by the response until basalt_io_http_response_reset. */
struct basalt_io_http_response {
    long status;      /* the final status after retries */
    uint8_t *body;
    size_t body_len;
    unsigned attempts; /* requests sent, retries included */
};

/* Sends `req` and waits for its final response. Any HTTP status is OK (the
 * caller reads resp->status); IO when no response came after the last
 * attempt (connection refused, reset, timed out; the message names the
 * method and the URL without its query), LIMIT (a body over max_body, too
 * many or too long headers), INVALID_ARG (no store, a URL that is not
 * http(s)), NOMEM. *resp is initialised here; reset it even on failure.
 * Safe to call from several threads on one store. */
BASALT_EXPORT basalt_status basalt_io_http_request(struct basalt_io_store *store,
                                                   const struct basalt_io_http_request *req,
                                                   struct basalt_io_http_response *resp,
                                                   struct basalt_error *err);
/* Frees the body; the response is empty again. */
BASALT_EXPORT void basalt_io_http_response_reset(struct basalt_io_http_response *resp);

/* The AWS region the store resolved (options, AWS_REGION,
 * AWS_DEFAULT_REGION, the profile's region), or "us-east-1" when none
 * names one. Valid while the store lives. */
BASALT_EXPORT const char *basalt_io_store_aws_region(const struct basalt_io_store *store);

#ifdef __cplusplus
}
#endif

#endif
