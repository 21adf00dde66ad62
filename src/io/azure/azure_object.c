/* Azure blobs: reading, HEAD, and writing as one Put Blob or as blocks
 * committed by Put Block List. */
#include <stdio.h>
#include <string.h>

#include <openssl/rand.h>

#include "auth/base64.h"
#include "azure/azure.h"
#include "xml/xml.h"

static basalt_status blob_url(struct basalt_io_store *store, const char *uri,
                              struct basalt_azure_target *t, char *url, size_t cap,
                              struct basalt_error *err)
{
    basalt_status st = basalt_azure_target_parse(store, uri, t, err);
    if (st != BASALT_OK)
        return st;
    if (!t->blob[0])
        return basalt_error_set(err, BASALT_INVALID_ARG, "%.300s: names a container, not a blob",
                                uri);
    return basalt_azure_url(t, t->blob, NULL, url, cap, err);
}

basalt_status basalt_azure_open_input(struct basalt_io_store *store, const char *uri, unsigned flags,
                                      struct basalt_input **out, struct basalt_error *err)
{
    struct basalt_azure_target t;
    char url[BASALT_AZURE_URL_MAX];
    basalt_status st = blob_url(store, uri, &t, url, sizeof url, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_remote_object object = {.name = uri, .url = url,
                                          .signer = basalt_azure_signer_get(store),
                                          .headers = &store->azure_headers,
                                          .error = basalt_azure_error,
                                          .no_suffix_range = true};
    object.cache = flags & BASALT_IO_IMMUTABLE ? store->cache : NULL;
    object.sequential = (flags & BASALT_IO_SEQUENTIAL) != 0;
    return basalt_remote_input_open(store->http, &store->options, &object, out, err);
}

basalt_status basalt_azure_stat(struct basalt_io_store *store, const char *uri,
                                struct basalt_io_object_info *out, struct basalt_error *err)
{
    struct basalt_azure_target t;
    char url[BASALT_AZURE_URL_MAX];
    basalt_status st = blob_url(store, uri, &t, url, sizeof url, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_remote_object object = {.name = uri, .url = url,
                                          .signer = basalt_azure_signer_get(store),
                                          .headers = &store->azure_headers,
                                          .error = basalt_azure_error};
    return basalt_remote_stat(store->http, &object, out, err);
}

/* ------------------------------------------------------------------ writes */

struct azure_upload {
    struct basalt_io_store *store;
    char *name;
    struct basalt_azure_target target;
    /* Block ids name this upload: two writers of one blob name commit only
     * their own blocks. */
    char nonce[17];
};

/* One request whose answer must be 2xx. */
static basalt_status run(struct azure_upload *u, struct basalt_http_request *req,
                         const char *what, struct basalt_error *err)
{
    struct basalt_http_response resp;
    req->signer = basalt_azure_signer_get(u->store);
    basalt_status st = basalt_http_execute(u->store->http, req, &resp, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", u->name);
    if (resp.status < 200 || resp.status >= 300)
        st = basalt_azure_error(&resp, what, u->name, err);
    basalt_http_response_free(&resp);
    return st;
}

static basalt_status headers(struct basalt_http_headers *h, bool exclusive,
                             struct basalt_error *err)
{
    basalt_status st = basalt_azure_headers_init(h, err);
    /* Nothing may exist under the name: Azure answers 409 BlobAlreadyExists. */
    if (st == BASALT_OK && exclusive)
        st = basalt_http_headers_add(h, "If-None-Match", err, "*");
    return st;
}

static basalt_status put_whole(void *upload, const uint8_t *data, size_t len, bool exclusive,
                               struct basalt_error *err)
{
    struct azure_upload *u = upload;
    struct basalt_http_headers h;
    char url[BASALT_AZURE_URL_MAX];
    basalt_status st = headers(&h, exclusive, err);
    if (st == BASALT_OK)
        st = basalt_http_headers_add(&h, "x-ms-blob-type", err, "BlockBlob");
    if (st == BASALT_OK)
        st = basalt_azure_url(&u->target, u->target.blob, NULL, url, sizeof url, err);
    if (st != BASALT_OK)
        return st;
    /* A conditional create is not retried after an ambiguous failure: the
     * retry could meet our own first attempt's blob and report a conflict
     * that is not one. */
    struct basalt_http_request req = {.method = "PUT", .url = url, .headers = &h, .body = data,
                                      .body_len = len,
                                      .retry = exclusive ? BASALT_HTTP_RETRY_UNSAFE
                                                         : BASALT_HTTP_RETRY_IDEMPOTENT};
    return run(u, &req, "PUT (Put Blob)", err);
}

/* The base64 block id of part `number`. Every id of a blob must have the same
 * length, so the text is fixed width: nonce, '-', six digits (parts stop at
 * 10000). */
static basalt_status block_id(const struct azure_upload *u, uint32_t number,
                              char out[BASALT_IO_ETAG_MAX], struct basalt_error *err)
{
    char raw[32];
    int w = snprintf(raw, sizeof raw, "%s-%06u", u->nonce, number);
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    basalt_status st = basalt_io_base64_encode((const uint8_t *)raw, (size_t)w, &b, err);
    if (st == BASALT_OK && b.size >= BASALT_IO_ETAG_MAX)
        st = basalt_error_set(err, BASALT_INTERNAL, "block id too long");
    if (st == BASALT_OK) {
        memcpy(out, b.data, b.size);
        out[b.size] = '\0';
    }
    basalt_buffer_reset(&b);
    return st;
}

static basalt_status put_part(void *upload, uint32_t number, const uint8_t *data, size_t len,
                              char id[BASALT_IO_ETAG_MAX], struct basalt_error *err)
{
    struct azure_upload *u = upload;
    char enc[3 * BASALT_IO_ETAG_MAX], query[3 * BASALT_IO_ETAG_MAX + 32];
    char url[BASALT_AZURE_URL_MAX + sizeof query];
    struct basalt_http_headers h;
    basalt_status st = block_id(u, number, id, err);
    if (st == BASALT_OK) /* '+', '/' and '=' of base64 are not plain in a query */
        st = basalt_http_uri_encode(id, strlen(id), false, enc, sizeof enc, err);
    if (st == BASALT_OK) {
        snprintf(query, sizeof query, "comp=block&blockid=%s", enc);
        st = basalt_azure_url(&u->target, u->target.blob, query, url, sizeof url, err);
    }
    if (st == BASALT_OK)
        st = basalt_azure_headers_init(&h, err);
    if (st != BASALT_OK)
        return st;
    /* Putting a block again under the same id replaces it: retries are safe. */
    struct basalt_http_request req = {.method = "PUT", .url = url, .headers = &h, .body = data,
                                      .body_len = len};
    st = run(u, &req, "PUT (Put Block)", err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "block %u", number);
    return BASALT_OK;
}

static basalt_status complete(void *upload, char (*ids)[BASALT_IO_ETAG_MAX], uint32_t count,
                              bool exclusive, struct basalt_error *err)
{
    struct azure_upload *u = upload;
    struct basalt_buffer body;
    basalt_buffer_init(&body);
    const char *open = "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>";
    basalt_status st = basalt_buffer_append(&body, open, strlen(open), err);
    for (uint32_t i = 0; i < count && st == BASALT_OK; i++) {
        st = basalt_buffer_append(&body, "<Latest>", 8, err);
        if (st == BASALT_OK)
            st = basalt_xml_escape_append(&body, ids[i], err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&body, "</Latest>", 9, err);
    }
    if (st == BASALT_OK)
        st = basalt_buffer_append(&body, "</BlockList>", 12, err);
    struct basalt_http_headers h;
    char url[BASALT_AZURE_URL_MAX];
    if (st == BASALT_OK)
        st = headers(&h, exclusive, err);
    if (st == BASALT_OK)
        st = basalt_azure_url(&u->target, u->target.blob, "comp=blocklist", url, sizeof url, err);
    if (st == BASALT_OK) {
        /* Committing the same list twice is harmless, unless the commit is
         * conditional on the blob not existing: then only a retry the server
         * certainly did not act on. */
        struct basalt_http_request req = {.method = "PUT", .url = url, .headers = &h,
                                          .body = body.data, .body_len = body.size,
                                          .retry = exclusive ? BASALT_HTTP_RETRY_UNSAFE
                                                             : BASALT_HTTP_RETRY_IDEMPOTENT};
        st = run(u, &req, "PUT (Put Block List)", err);
    }
    basalt_buffer_reset(&body);
    return st;
}

/* Azure has no call to drop uncommitted blocks: they are never visible and
 * the service discards them a week after their last Put Block (or when the
 * blob is next committed). Nothing to do. */
static void abort_upload(void *upload) { (void)upload; }

static void free_upload(void *upload)
{
    struct azure_upload *u = upload;
    basalt_free(u->name);
    basalt_free(u);
}

static const struct basalt_remote_upload_ops azure_upload_ops = {
    .put_whole = put_whole, .begin = NULL, .put_part = put_part, .complete = complete,
    .abort = abort_upload, .free = free_upload};

basalt_status basalt_azure_open_output(struct basalt_io_store *store, const char *uri,
                                       unsigned flags, struct basalt_output **out,
                                       struct basalt_error *err)
{
    struct azure_upload *u = basalt_calloc(1, sizeof *u);
    size_t nlen = strlen(uri);
    if (!u || !(u->name = basalt_malloc(nlen + 1))) {
        basalt_free(u);
        return basalt_error_set(err, BASALT_NOMEM, "%.300s: out of memory opening", uri);
    }
    memcpy(u->name, uri, nlen + 1);
    u->store = store;
    /* The target points into the URI: parse the upload's own copy. */
    basalt_status st = basalt_azure_target_parse(store, u->name, &u->target, err);
    if (st == BASALT_OK && !u->target.blob[0])
        st = basalt_error_set(err, BASALT_INVALID_ARG, "%.300s: names a container, not a blob",
                              uri);
    unsigned char r[8];
    if (st == BASALT_OK && RAND_bytes(r, sizeof r) != 1)
        st = basalt_error_set(err, BASALT_INTERNAL, "%.300s: no random bytes for block ids", uri);
    if (st != BASALT_OK) {
        free_upload(u);
        return st;
    }
    for (size_t i = 0; i < sizeof r; i++)
        snprintf(u->nonce + 2 * i, 3, "%02x", r[i]);
    return basalt_remote_output_open(&store->options, uri, flags, &azure_upload_ops, u, out, err);
}
