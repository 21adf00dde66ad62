/* List Blobs (every page, through NextMarker) and deletes (one DELETE per
 * blob, run concurrently: the Blob batch API is multipart MIME, which buys
 * little over parallel requests on warm connections). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "azure/azure.h"
#include "xml/xml.h"

/* One listed entry, kept until its page is sorted. */
struct page_entry {
    char *name;
    uint64_t size;
    int64_t mtime_ms;
    char etag[BASALT_IO_ETAG_MAX];
    bool is_prefix;
};

/* One page's worth of listing state, fed by the XML scanner. A page's blobs
 * and prefixes are each in order, but not merged (azurite puts every prefix
 * first): the page is collected and sorted before it is visited. */
struct listing {
    const struct basalt_azure_target *target;
    basalt_io_visit_fn visit;
    void *ctx;
    struct page_entry cur;
    char name[1024];
    char marker[1024];
    struct page_entry *page;
    size_t count, cap;
};

static basalt_status keep(struct listing *l, bool is_prefix, struct basalt_error *err)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        struct page_entry *grown = basalt_realloc(l->page, cap * sizeof *grown);
        if (!grown)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for a listing");
        l->page = grown;
        l->cap = cap;
    }
    size_t n = strlen(l->name);
    struct page_entry *e = &l->page[l->count];
    *e = l->cur;
    e->is_prefix = is_prefix;
    if (!(e->name = basalt_malloc(n + 1)))
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a listing");
    memcpy(e->name, l->name, n + 1);
    l->count++;
    return BASALT_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct page_entry *)a)->name, ((const struct page_entry *)b)->name);
}

/* Visits the page in key order and empties it. */
static basalt_status flush_page(struct listing *l, basalt_status st, struct basalt_error *err)
{
    if (st == BASALT_OK && l->count > 1)
        qsort(l->page, l->count, sizeof *l->page, by_name);
    for (size_t i = 0; i < l->count; i++) {
        const struct page_entry *p = &l->page[i];
        if (st == BASALT_OK) {
            char uri[1400];
            snprintf(uri, sizeof uri, "%s/%s", l->target->uri_base, p->name);
            struct basalt_io_entry e = {.uri = uri, .size = p->size, .mtime_ms = p->mtime_ms,
                                        .etag = p->etag, .is_prefix = p->is_prefix};
            st = l->visit(l->ctx, &e, err);
        }
        basalt_free(p->name);
    }
    l->count = 0;
    return st;
}

#define BLOBS "EnumerationResults/Blobs/"

static basalt_status on_list(void *ctx, const char *path, const char *text, size_t len,
                             struct basalt_error *err)
{
    struct listing *l = ctx;
#define FIELD(buf) snprintf(buf, sizeof buf, "%.*s", (int)len, text)
    if (!text) {
        if (strcmp(path, BLOBS "Blob") == 0 || strcmp(path, BLOBS "BlobPrefix") == 0) {
            l->name[0] = '\0';
            memset(&l->cur, 0, sizeof l->cur);
        }
        return BASALT_OK;
    }
    if (strcmp(path, BLOBS "Blob/Name") == 0 || strcmp(path, BLOBS "BlobPrefix/Name") == 0)
        FIELD(l->name);
    else if (strcmp(path, BLOBS "Blob/Properties/Content-Length") == 0)
        l->cur.size = strtoull(text, NULL, 10);
    else if (strcmp(path, BLOBS "Blob/Properties/Last-Modified") == 0) {
        time_t when = curl_getdate(text, NULL); /* RFC 1123 */
        l->cur.mtime_ms = when > 0 ? (int64_t)when * 1000 : 0;
    } else if (strcmp(path, BLOBS "Blob/Properties/Etag") == 0) {
        /* Quoted as the ETag header of a HEAD is, so list and stat agree. */
        if (len > 0 && text[0] == '"')
            FIELD(l->cur.etag);
        else
            snprintf(l->cur.etag, sizeof l->cur.etag, "\"%.*s\"", (int)len, text);
    } else if (strcmp(path, BLOBS "Blob") == 0)
        return keep(l, false, err);
    else if (strcmp(path, BLOBS "BlobPrefix") == 0)
        return keep(l, true, err);
    else if (strcmp(path, "EnumerationResults/NextMarker") == 0)
        FIELD(l->marker);
#undef FIELD
    return BASALT_OK;
}

basalt_status basalt_azure_list(struct basalt_io_store *store, const char *uri_prefix,
                                bool delimited, basalt_io_visit_fn visit, void *ctx,
                                struct basalt_error *err)
{
    struct basalt_azure_target t;
    basalt_status st = basalt_azure_target_parse(store, uri_prefix, &t, err);
    if (st != BASALT_OK)
        return st;
    struct listing l = {.target = &t, .visit = visit, .ctx = ctx};
    const struct basalt_http_signer *signer = basalt_azure_signer_get(store);
    do {
        char query[4096] = "restype=container&comp=list";
        if (t.blob[0])
            st = basalt_http_query_append(query, sizeof query, "prefix", t.blob, err);
        if (st == BASALT_OK && delimited)
            st = basalt_http_query_append(query, sizeof query, "delimiter", "/", err);
        if (st == BASALT_OK && l.marker[0])
            st = basalt_http_query_append(query, sizeof query, "marker", l.marker, err);
        char url[BASALT_AZURE_URL_MAX + 4096];
        if (st == BASALT_OK)
            st = basalt_azure_url(&t, NULL, query, url, sizeof url, err);
        if (st != BASALT_OK)
            return st;
        struct basalt_http_request req = {.method = "GET", .url = url,
                                          .headers = &store->azure_headers, .signer = signer};
        struct basalt_http_response resp;
        st = basalt_http_execute(store->http, &req, &resp, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "%s", uri_prefix);
        l.marker[0] = '\0';
        if (resp.status < 200 || resp.status >= 300)
            st = basalt_azure_error(&resp, "GET (List Blobs)", uri_prefix, err);
        else
            st = basalt_xml_scan((const char *)resp.body, resp.body_len, uri_prefix, on_list, &l,
                                 err);
        basalt_http_response_free(&resp);
        st = flush_page(&l, st, err);
    } while (st == BASALT_OK && l.marker[0]);
    basalt_free(l.page);
    return st;
}

/* ------------------------------------------------------------------ delete */

/* Requests in flight per batch; bounds the URLs held at once. */
#define DELETE_BATCH 256

static basalt_status delete_batch(struct basalt_io_store *store, const char *const *uris,
                                  size_t count, struct basalt_error *err)
{
    struct basalt_http_request *reqs = basalt_calloc(count, sizeof *reqs);
    struct basalt_http_response *resps = basalt_calloc(count, sizeof *resps);
    char (*urls)[BASALT_AZURE_URL_MAX] = basalt_malloc(sizeof *urls * count);
    basalt_status st = reqs && resps && urls
                           ? BASALT_OK
                           : basalt_error_set(err, BASALT_NOMEM, "out of memory for deletes");
    const struct basalt_http_signer *signer = basalt_azure_signer_get(store);
    for (size_t i = 0; i < count && st == BASALT_OK; i++) {
        struct basalt_azure_target t;
        st = basalt_azure_target_parse(store, uris[i], &t, err);
        if (st == BASALT_OK && !t.blob[0])
            st = basalt_error_set(err, BASALT_INVALID_ARG,
                                  "%.300s: names a container, not a blob", uris[i]);
        if (st == BASALT_OK)
            st = basalt_azure_url(&t, t.blob, NULL, urls[i], sizeof urls[i], err);
        reqs[i] = (struct basalt_http_request){.method = "DELETE", .url = urls[i],
                                               .headers = &store->azure_headers,
                                               .signer = signer};
    }
    if (st == BASALT_OK)
        st = basalt_http_execute_all(store->http, reqs, resps, count, err);
    /* A blob already gone is what the caller wanted. */
    for (size_t i = 0; i < count && st == BASALT_OK; i++)
        if ((resps[i].status < 200 || resps[i].status >= 300) && resps[i].status != 404)
            st = basalt_azure_error(&resps[i], "DELETE", uris[i], err);
    for (size_t i = 0; resps && i < count; i++)
        basalt_http_response_free(&resps[i]);
    basalt_free(reqs);
    basalt_free(resps);
    basalt_free(urls);
    return st;
}

basalt_status basalt_azure_delete(struct basalt_io_store *store, const char *const *uris,
                                  size_t count, struct basalt_error *err)
{
    for (size_t i = 0; i < count; i += DELETE_BATCH) {
        size_t n = count - i < DELETE_BATCH ? count - i : DELETE_BATCH;
        basalt_status st = delete_batch(store, uris + i, n, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}
