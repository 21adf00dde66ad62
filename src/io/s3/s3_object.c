/* S3 objects: reading, writing (single PUT or multipart upload) and HEAD. */
#include <stdio.h>
#include <string.h>

#include "s3/s3.h"
#include "xml/xml.h"

basalt_status basalt_s3_open_input(struct basalt_io_store *store, const char *uri, unsigned flags,
                                   struct basalt_input **out, struct basalt_error *err)
{
    struct basalt_s3_target t;
    struct basalt_http_client *http;
    basalt_status st = basalt_s3_target_parse(store, uri, &t, err);
    if (st == BASALT_OK)
        st = basalt_io_store_http(store, uri, &http, err);
    if (st != BASALT_OK)
        return st;
    if (!t.key[0])
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: names a bucket, not an object", uri);
    char url[BASALT_S3_URL_MAX];
    if ((st = basalt_s3_url(&t, t.key, NULL, url, sizeof url, err)) != BASALT_OK)
        return st;
    const struct basalt_s3_signer *signer =
        t.gcs ? &store->gcs_signer : &store->s3_signer;
    struct basalt_remote_object object = {.name = uri, .url = url,
                                          .signer = basalt_s3_signer_get(signer),
                                          .error = basalt_s3_error};
    object.cache = flags & BASALT_IO_IMMUTABLE ? store->cache : NULL;
    object.sequential = (flags & BASALT_IO_SEQUENTIAL) != 0;
    return basalt_remote_input_open(http, &store->options, &object, out, err);
}

basalt_status basalt_s3_stat(struct basalt_io_store *store, const char *uri,
                             struct basalt_io_object_info *out, struct basalt_error *err)
{
    struct basalt_s3_target t;
    struct basalt_http_client *http;
    basalt_status st = basalt_s3_target_parse(store, uri, &t, err);
    if (st == BASALT_OK)
        st = basalt_io_store_http(store, uri, &http, err);
    char url[BASALT_S3_URL_MAX];
    if (st == BASALT_OK)
        st = basalt_s3_url(&t, t.key, NULL, url, sizeof url, err);
    if (st != BASALT_OK)
        return st;
    const struct basalt_s3_signer *signer = t.gcs ? &store->gcs_signer : &store->s3_signer;
    struct basalt_remote_object object = {.name = uri, .url = url,
                                          .signer = basalt_s3_signer_get(signer),
                                          .error = basalt_s3_error};
    return basalt_remote_stat(http, &object, out, err);
}

/* ------------------------------------------------------------------ writes */

struct s3_upload {
    struct basalt_http_client *http;
    const struct basalt_http_signer *signer;
    char *name;
    char url[BASALT_S3_URL_MAX];
    char uploads_url[BASALT_S3_URL_MAX + 4096]; /* ListMultipartUploads of this key */
    char *key;
    char upload_id[512]; /* "" until CreateMultipartUpload answered */
};

/* One request whose answer must be 2xx; the body is kept for the caller
 * when `resp` is given. */
static basalt_status run(struct s3_upload *u, struct basalt_http_request *req,
                         struct basalt_http_response *keep, struct basalt_error *err)
{
    struct basalt_http_response resp;
    req->signer = u->signer;
    basalt_status st = basalt_http_execute(u->http, req, &resp, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", u->name);
    if (resp.status < 200 || resp.status >= 300)
        st = resp.status == 412 ? basalt_error_set(err, BASALT_CONFLICT,
                                                   "%s: %s: the object already exists", u->name,
                                                   req->method)
                                : basalt_s3_error(&resp, req->method, u->name, err);
    if (st == BASALT_OK && keep)
        *keep = resp;
    else
        basalt_http_response_free(&resp);
    return st;
}

static basalt_status put_whole(void *upload, const uint8_t *data, size_t len, bool exclusive,
                               struct basalt_error *err)
{
    struct s3_upload *u = upload;
    struct basalt_http_headers h;
    basalt_http_headers_init(&h);
    basalt_status st = BASALT_OK;
    if (exclusive)
        st = basalt_http_headers_add(&h, "If-None-Match", err, "*");
    if (st != BASALT_OK)
        return st;
    /* A conditional create is not retried after an ambiguous failure: the
     * retry could see our own first attempt's object and report a
     * conflict that is not one. */
    struct basalt_http_request req = {.method = "PUT", .url = u->url, .headers = &h,
                                      .body = data, .body_len = len,
                                      .retry = exclusive ? BASALT_HTTP_RETRY_UNSAFE
                                                         : BASALT_HTTP_RETRY_IDEMPOTENT};
    return run(u, &req, NULL, err);
}

static basalt_status on_upload_id(void *ctx, const char *path, const char *text, size_t len,
                                  struct basalt_error *err)
{
    (void)err;
    struct s3_upload *u = ctx;
    if (text && strcmp(path, "InitiateMultipartUploadResult/UploadId") == 0)
        snprintf(u->upload_id, sizeof u->upload_id, "%.*s", (int)len, text);
    return BASALT_OK;
}

/* The uploads of exactly this key that a ListMultipartUploads page names. */
struct orphans {
    struct s3_upload *u;
    char key[1024];
    char ids[16][512];
    int count;
};

static basalt_status on_orphan(void *ctx, const char *path, const char *text, size_t len,
                               struct basalt_error *err)
{
    (void)err;
    struct orphans *o = ctx;
    if (!text) {
        if (strcmp(path, "ListMultipartUploadsResult/Upload") == 0)
            o->key[0] = '\0';
        return BASALT_OK;
    }
    if (strcmp(path, "ListMultipartUploadsResult/Upload/Key") == 0)
        snprintf(o->key, sizeof o->key, "%.*s", (int)len, text);
    else if (strcmp(path, "ListMultipartUploadsResult/Upload/UploadId") == 0 &&
             strcmp(o->key, o->u->key) == 0 && o->count < 16)
        snprintf(o->ids[o->count++], sizeof o->ids[0], "%.*s", (int)len, text);
    return BASALT_OK;
}

static void abort_upload(void *upload);

/* CreateMultipartUpload is never retried after an ambiguous failure (a
 * retry would open a second upload), but the first may have opened one
 * whose id never reached us: find this key's open uploads and abort them,
 * so that a failed write leaves none behind. Object names written through
 * basalt are unique (Iceberg's are), so another writer's upload of the same
 * key is not expected. Best effort: the write fails either way. */
static void abort_orphans(struct s3_upload *u)
{
    struct basalt_http_request req = {.method = "GET", .url = u->uploads_url};
    struct basalt_http_response resp;
    if (run(u, &req, &resp, NULL) != BASALT_OK)
        return;
    struct orphans o = {.u = u};
    basalt_xml_scan((const char *)resp.body, resp.body_len, u->name, on_orphan, &o, NULL);
    basalt_http_response_free(&resp);
    for (int i = 0; i < o.count; i++) {
        snprintf(u->upload_id, sizeof u->upload_id, "%s", o.ids[i]);
        abort_upload(u);
    }
    u->upload_id[0] = '\0';
}

static basalt_status begin(void *upload, struct basalt_error *err)
{
    struct s3_upload *u = upload;
    char url[BASALT_S3_URL_MAX + 16];
    snprintf(url, sizeof url, "%s?uploads", u->url);
    struct basalt_http_request req = {.method = "POST", .url = url,
                                      .retry = BASALT_HTTP_RETRY_UNSAFE};
    struct basalt_http_response resp;
    basalt_status st = run(u, &req, &resp, err);
    /* IO is a transport failure (an HTTP error status is answered for
     * sure, and maps to AUTH, NOT_FOUND and the like). */
    if (st == BASALT_IO || st == BASALT_CORRUPT)
        abort_orphans(u);
    if (st != BASALT_OK)
        return st;
    st = basalt_xml_scan((const char *)resp.body, resp.body_len, u->name, on_upload_id, u, err);
    basalt_http_response_free(&resp);
    if (st == BASALT_OK && !u->upload_id[0])
        st = basalt_error_set(err, BASALT_CORRUPT, "%s: CreateMultipartUpload gave no UploadId",
                              u->name);
    if (st != BASALT_OK)
        abort_orphans(u);
    return st;
}

/* The upload id goes into URLs: percent-encode it. */
static basalt_status part_url(struct s3_upload *u, uint32_t number, char *url, size_t cap,
                              struct basalt_error *err)
{
    char id[1536];
    basalt_status st =
        basalt_http_uri_encode(u->upload_id, strlen(u->upload_id), false, id, sizeof id, err);
    if (st != BASALT_OK)
        return st;
    /* Part 0 means the upload itself (complete, abort). */
    int w = number ? snprintf(url, cap, "%s?partNumber=%u&uploadId=%s", u->url, number, id)
                   : snprintf(url, cap, "%s?uploadId=%s", u->url, id);
    if (w < 0 || (size_t)w >= cap)
        return basalt_error_set(err, BASALT_LIMIT, "%s: URL too long", u->name);
    return BASALT_OK;
}

static basalt_status put_part(void *upload, uint32_t number, const uint8_t *data, size_t len,
                              char id[BASALT_IO_ETAG_MAX], struct basalt_error *err)
{
    struct s3_upload *u = upload;
    char url[BASALT_S3_URL_MAX + 2048];
    basalt_status st = part_url(u, number, url, sizeof url, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_http_request req = {.method = "PUT", .url = url, .body = data,
                                      .body_len = len};
    struct basalt_http_response resp;
    st = run(u, &req, &resp, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "part %u", number);
    if (!resp.etag[0])
        st = basalt_error_set(err, BASALT_CORRUPT, "%s: part %u: no ETag in the answer", u->name,
                              number);
    snprintf(id, BASALT_IO_ETAG_MAX, "%s", resp.etag);
    basalt_http_response_free(&resp);
    return st;
}

/* S3 may answer CompleteMultipartUpload 200 with an <Error> document. */
static basalt_status on_complete(void *ctx, const char *path, const char *text, size_t len,
                                 struct basalt_error *err)
{
    (void)len;
    struct s3_upload *u = ctx;
    if (!text && strcmp(path, "Error") == 0)
        return basalt_error_set(err, BASALT_IO, "%s: CompleteMultipartUpload failed", u->name);
    return BASALT_OK;
}

static basalt_status complete(void *upload, char (*ids)[BASALT_IO_ETAG_MAX], uint32_t count,
                              bool exclusive, struct basalt_error *err)
{
    struct s3_upload *u = upload;
    struct basalt_buffer body;
    basalt_buffer_init(&body);
    const char *open = "<CompleteMultipartUpload>";
    basalt_status st = basalt_buffer_append(&body, open, strlen(open), err);
    for (uint32_t i = 0; i < count && st == BASALT_OK; i++) {
        char part[BASALT_IO_ETAG_MAX + 96];
        int w = snprintf(part, sizeof part, "<Part><PartNumber>%u</PartNumber><ETag>", i + 1);
        st = basalt_buffer_append(&body, part, (size_t)w, err);
        if (st == BASALT_OK)
            st = basalt_xml_escape_append(&body, ids[i], err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&body, "</ETag></Part>", 14, err);
    }
    if (st == BASALT_OK)
        st = basalt_buffer_append(&body, "</CompleteMultipartUpload>", 26, err);
    char url[BASALT_S3_URL_MAX + 2048];
    if (st == BASALT_OK)
        st = part_url(u, 0, url, sizeof url, err);
    struct basalt_http_headers h;
    basalt_http_headers_init(&h);
    if (st == BASALT_OK && exclusive)
        st = basalt_http_headers_add(&h, "If-None-Match", err, "*");
    struct basalt_http_response resp;
    if (st == BASALT_OK) {
        /* Completing twice is harmless while the upload exists, so a
         * retry is safe. */
        struct basalt_http_request req = {.method = "POST", .url = url, .headers = &h,
                                          .body = body.data, .body_len = body.size};
        st = run(u, &req, &resp, err);
        if (st == BASALT_OK) {
            st = basalt_xml_scan((const char *)resp.body, resp.body_len, u->name, on_complete, u,
                                 err);
            basalt_http_response_free(&resp);
        }
    }
    basalt_buffer_reset(&body);
    return st;
}

static void abort_upload(void *upload)
{
    struct s3_upload *u = upload;
    if (!u->upload_id[0])
        return;
    char url[BASALT_S3_URL_MAX + 2048];
    if (part_url(u, 0, url, sizeof url, NULL) != BASALT_OK)
        return;
    struct basalt_http_request req = {.method = "DELETE", .url = url};
    run(u, &req, NULL, NULL);
}

static void free_upload(void *upload)
{
    struct s3_upload *u = upload;
    basalt_free(u->name);
    basalt_free(u->key);
    basalt_free(u);
}

static const struct basalt_remote_upload_ops s3_upload_ops = {
    .put_whole = put_whole, .begin = begin, .put_part = put_part, .complete = complete,
    .abort = abort_upload, .free = free_upload};

basalt_status basalt_s3_open_output(struct basalt_io_store *store, const char *uri,
                                    unsigned flags, struct basalt_output **out,
                                    struct basalt_error *err)
{
    struct basalt_s3_target t;
    struct basalt_http_client *http;
    basalt_status st = basalt_s3_target_parse(store, uri, &t, err);
    if (st == BASALT_OK)
        st = basalt_io_store_http(store, uri, &http, err);
    if (st != BASALT_OK)
        return st;
    if (!t.key[0])
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: names a bucket, not an object", uri);
    struct s3_upload *u = basalt_calloc(1, sizeof *u);
    size_t nlen = strlen(uri);
    if (!u || !(u->name = basalt_malloc(nlen + 1))) {
        basalt_free(u);
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory opening", uri);
    }
    memcpy(u->name, uri, nlen + 1);
    u->http = http;
    u->signer = basalt_s3_signer_get(t.gcs ? &store->gcs_signer : &store->s3_signer);
    st = basalt_s3_url(&t, t.key, NULL, u->url, sizeof u->url, err);
    char query[4096];
    size_t klen = strlen(t.key);
    if (st == BASALT_OK && !(u->key = basalt_malloc(klen + 1)))
        st = basalt_error_set(err, BASALT_NOMEM, "%s: out of memory opening", uri);
    if (st == BASALT_OK) {
        memcpy(u->key, t.key, klen + 1);
        memcpy(query, "uploads&prefix=", 15);
        st = basalt_http_uri_encode(t.key, klen, false, query + 15, sizeof query - 15, err);
    }
    if (st == BASALT_OK)
        st = basalt_s3_url(&t, NULL, query, u->uploads_url, sizeof u->uploads_url, err);
    if (st != BASALT_OK) {
        free_upload(u);
        return st;
    }
    return basalt_remote_output_open(&store->options, uri, flags, &s3_upload_ops, u, out, err);
}
