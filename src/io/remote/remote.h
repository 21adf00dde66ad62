/* What every remote backend shares: reading an object with range requests
 * (tail at open, coalesced and split ranges, prefetch) and writing one in
 * parts uploaded while the caller writes on. A backend says how to reach an
 * object (URL, signer, extra headers) and how to read its error documents;
 * for writes it supplies the upload steps. */
#ifndef BASALT_IO_REMOTE_H
#define BASALT_IO_REMOTE_H

#include "basalt/io.h"
#include "http/http.h"
#include "remote/object_cache.h"

/* Turns a final non-2xx response into a status and message naming `name`. */
typedef basalt_status (*basalt_remote_error_fn)(const struct basalt_http_response *resp,
                                                const char *method, const char *name,
                                                struct basalt_error *err);

/* How to reach one object. Strings and the signer are borrowed: they must
 * outlive the input or output made from it. */
struct basalt_remote_object {
    const char *name; /* the URI, for messages */
    const char *url;  /* GET/PUT target, encoded */
    const struct basalt_http_signer *signer;
    const struct basalt_http_headers *headers; /* added to every request; may be NULL */
    basalt_remote_error_fn error;
    /* The server cannot be trusted with a suffix range (bytes=-N): Azure
     * documents only bytes=N- and bytes=N-M, and azurite answers a suffix
     * with a wrong Content-Length. The object is then sized by a HEAD and
     * its tail read with a plain range: two requests at open, not one. */
    bool no_suffix_range;
    /* Opened for a front-to-back read (BASALT_IO_SEQUENTIAL): sized with a
     * HEAD, no tail kept (a refused HEAD is asked again as the tail GET,
     * whose error document says why). */
    bool sequential;
    /* The store's cache when the object is immutable (BASALT_IO_IMMUTABLE):
     * its size, tail and ranges are looked for there first and kept there. */
    struct basalt_object_cache *cache;
};

/* Opens a remote object for reading: one tail request sizes it and keeps its
 * last `options->footer_tail` bytes (a HEAD and a range read with
 * no_suffix_range); later reads are pinned to the ETag it returned. The
 * input copies name and url. */
basalt_status basalt_remote_input_open(struct basalt_http_client *http,
                                       const struct basalt_io_options *options,
                                       const struct basalt_remote_object *object,
                                       struct basalt_input **out, struct basalt_error *err);

/* Sets `err` from an <Error><Code/><Message/></Error> document (S3 and Azure
 * alike) as "NAME: METHOD: HTTP 404 Code: message", with the status
 * `status_for` maps the HTTP status and code to; without a document,
 * `not_found` is appended to a NOT_FOUND message (remote_error.c). */
basalt_status basalt_remote_error_document(const struct basalt_http_response *resp,
                                           const char *method, const char *name,
                                           basalt_status (*status_for)(long http,
                                                                       const char *code),
                                           const char *not_found, struct basalt_error *err);

/* One HEAD: the object's size, time and ETag (remote_stat.c). NOT_FOUND,
 * AUTH, IO as `object->error` maps them. */
basalt_status basalt_remote_stat(struct basalt_http_client *http,
                                 const struct basalt_remote_object *object,
                                 struct basalt_io_object_info *out, struct basalt_error *err);

/* Bytes [offset, offset + length) of `object` (`object_size` bytes) in one
 * GET whose body goes to `sink` as it arrives, pinned to `etag` (NULL or
 * "": none); a broken body resumes from the byte reached (remote_stream.c).
 * The sink's failure comes back unchanged; others name the object. */
basalt_status basalt_remote_stream(struct basalt_http_client *http,
                                   const struct basalt_remote_object *object, const char *etag,
                                   uint64_t object_size, uint64_t offset, uint64_t length,
                                   basalt_io_sink_fn sink, void *ctx, struct basalt_error *err);

/* Counters of one remote input, for tests that prove the fast paths. */
struct basalt_remote_input_stats {
    uint64_t fetches;        /* requests sent (retries not counted): sizing, ranges, streams */
    uint64_t bytes_fetched;  /* bytes those requests asked for (the sizing tail: what it brought) */
    uint64_t served_from_tail;
    uint64_t served_from_prefetch;
};
/* NULL stats unless `in` is a remote input. */
bool basalt_remote_input_stats(const struct basalt_input *in, struct basalt_remote_input_stats *out);

/* The steps of a multipart upload, supplied by the backend. Each returns OK
 * or a status naming the object. `upload` is the backend's state. */
struct basalt_remote_upload_ops {
    /* The whole object in one request (small objects). */
    basalt_status (*put_whole)(void *upload, const uint8_t *data, size_t len, bool exclusive,
                               struct basalt_error *err);
    /* Starts an upload (S3 CreateMultipartUpload); may be NULL. */
    basalt_status (*begin)(void *upload, struct basalt_error *err);
    /* Uploads part `number` (1-based) and stores its id (S3 ETag, Azure block
     * id) in `id`. Called from several threads at once. */
    basalt_status (*put_part)(void *upload, uint32_t number, const uint8_t *data, size_t len,
                              char id[BASALT_IO_ETAG_MAX], struct basalt_error *err);
    /* Makes the object visible from its parts' ids, in order. */
    basalt_status (*complete)(void *upload, char (*ids)[BASALT_IO_ETAG_MAX], uint32_t count,
                              bool exclusive, struct basalt_error *err);
    /* Drops a begun upload (best effort; errors are not reported). */
    void (*abort)(void *upload);
    void (*free)(void *upload);
};

/* An output that buffers `part_size` bytes, writes small objects with one
 * put_whole at commit and larger ones in parts, at most parts_in_flight
 * uploading while the caller writes on. Takes `upload` (freed with the
 * output). `name` is copied. */
basalt_status basalt_remote_output_open(const struct basalt_io_options *options,
                                        const char *name, unsigned flags,
                                        const struct basalt_remote_upload_ops *ops, void *upload,
                                        struct basalt_output **out, struct basalt_error *err);

#endif
