/* ListObjectsV2 (every page, through continuation tokens) and batched
 * DeleteObjects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "s3/s3.h"
#include "xml/xml.h"

/* One page's worth of listing state, fed by the XML scanner. */
struct listing {
    const struct basalt_s3_target *target;
    const char *scheme; /* "s3", "s3a" or "gs" */
    basalt_io_visit_fn visit;
    void *ctx;
    char key[1024];
    uint64_t size;
    int64_t mtime_ms;
    char etag[BASALT_IO_ETAG_MAX];
    char token[1024];
    bool truncated;
};

/* "2024-01-02T03:04:05.000Z" to Unix milliseconds; 0 when it does not parse. */
static int64_t parse_iso8601_ms(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    int ms = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
               &tm.tm_min, &tm.tm_sec) != 6)
        return 0;
    const char *dot = strchr(s, '.');
    if (dot)
        ms = atoi(dot + 1) % 1000;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (int64_t)timegm(&tm) * 1000 + ms;
}

static basalt_status emit(struct listing *l, const char *key, bool is_prefix,
                          struct basalt_error *err)
{
    char uri[1400];
    snprintf(uri, sizeof uri, "%s://%s/%s", l->scheme, l->target->bucket, key);
    struct basalt_io_entry e = {.uri = uri, .size = is_prefix ? 0 : l->size,
                                .mtime_ms = is_prefix ? 0 : l->mtime_ms,
                                .etag = is_prefix ? "" : l->etag, .is_prefix = is_prefix};
    return l->visit(l->ctx, &e, err);
}

static basalt_status on_list(void *ctx, const char *path, const char *text, size_t len,
                             struct basalt_error *err)
{
    struct listing *l = ctx;
#define FIELD(buf) snprintf(buf, sizeof buf, "%.*s", (int)len, text)
    if (!text) {
        if (strcmp(path, "ListBucketResult/Contents") == 0) {
            l->key[0] = l->etag[0] = '\0';
            l->size = 0;
            l->mtime_ms = 0;
        }
        return BASALT_OK;
    }
    if (strcmp(path, "ListBucketResult/Contents/Key") == 0)
        FIELD(l->key);
    else if (strcmp(path, "ListBucketResult/Contents/Size") == 0)
        l->size = strtoull(text, NULL, 10);
    else if (strcmp(path, "ListBucketResult/Contents/LastModified") == 0)
        l->mtime_ms = parse_iso8601_ms(text);
    else if (strcmp(path, "ListBucketResult/Contents/ETag") == 0)
        FIELD(l->etag);
    else if (strcmp(path, "ListBucketResult/Contents") == 0)
        return emit(l, l->key, false, err);
    else if (strcmp(path, "ListBucketResult/CommonPrefixes/Prefix") == 0) {
        char prefix[1024];
        FIELD(prefix);
        return emit(l, prefix, true, err);
    } else if (strcmp(path, "ListBucketResult/NextContinuationToken") == 0)
        FIELD(l->token);
    else if (strcmp(path, "ListBucketResult/IsTruncated") == 0)
        l->truncated = len == 4 && memcmp(text, "true", 4) == 0;
#undef FIELD
    return BASALT_OK;
}

basalt_status basalt_s3_list(struct basalt_io_store *store, const char *uri_prefix,
                             bool delimited, basalt_io_visit_fn visit, void *ctx,
                             struct basalt_error *err)
{
    struct basalt_s3_target t;
    struct basalt_http_client *http;
    basalt_status st = basalt_s3_target_parse(store, uri_prefix, &t, err);
    if (st == BASALT_OK)
        st = basalt_io_store_http(store, uri_prefix, &http, err);
    if (st != BASALT_OK)
        return st;
    struct listing l = {.target = &t, .visit = visit, .ctx = ctx};
    l.scheme = t.gcs ? "gs" : strncmp(uri_prefix, "s3a:", 4) == 0 ? "s3a" : "s3";
    const struct basalt_http_signer *signer =
        basalt_s3_signer_get(t.gcs ? &store->gcs_signer : &store->s3_signer);
    do {
        char query[4096] = "list-type=2";
        if (t.key[0])
            st = basalt_http_query_append(query, sizeof query, "prefix", t.key, err);
        if (st == BASALT_OK && delimited)
            st = basalt_http_query_append(query, sizeof query, "delimiter", "/", err);
        if (st == BASALT_OK && l.token[0])
            st = basalt_http_query_append(query, sizeof query, "continuation-token", l.token,
                                          err);
        char url[BASALT_S3_URL_MAX + 4096];
        if (st == BASALT_OK)
            st = basalt_s3_url(&t, NULL, query, url, sizeof url, err);
        if (st != BASALT_OK)
            return st;
        struct basalt_http_request req = {.method = "GET", .url = url, .signer = signer};
        struct basalt_http_response resp;
        st = basalt_http_execute(http, &req, &resp, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "%s", uri_prefix);
        l.token[0] = '\0';
        l.truncated = false;
        if (resp.status < 200 || resp.status >= 300)
            st = basalt_s3_error(&resp, "GET (list)", uri_prefix, err);
        else
            st = basalt_xml_scan((const char *)resp.body, resp.body_len, uri_prefix, on_list, &l,
                                 err);
        basalt_http_response_free(&resp);
        if (st == BASALT_OK && l.truncated && !l.token[0])
            st = basalt_error_set(err, BASALT_CORRUPT,
                                  "%s: a truncated listing without a continuation token",
                                  uri_prefix);
    } while (st == BASALT_OK && l.truncated);
    return st;
}

/* ------------------------------------------------------------------ delete */

struct delete_result {
    char key[1024];
    char code[64];
    char message[160];
    bool failed;
};

static basalt_status on_delete(void *ctx, const char *path, const char *text, size_t len,
                               struct basalt_error *err)
{
    (void)err;
    struct delete_result *d = ctx;
    if (!text || d->failed)
        return BASALT_OK;
    if (strcmp(path, "DeleteResult/Error/Key") == 0)
        snprintf(d->key, sizeof d->key, "%.*s", (int)len, text);
    else if (strcmp(path, "DeleteResult/Error/Code") == 0)
        snprintf(d->code, sizeof d->code, "%.*s", (int)len, text);
    else if (strcmp(path, "DeleteResult/Error/Message") == 0)
        snprintf(d->message, sizeof d->message, "%.*s", (int)len, text);
    else if (strcmp(path, "DeleteResult/Error") == 0)
        d->failed = true;
    return BASALT_OK;
}

/* S3 wants Content-MD5 on DeleteObjects. */
static basalt_status content_md5(const uint8_t *data, size_t len, char out[32],
                                 struct basalt_error *err)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (EVP_Digest(data, len, md, &mdlen, EVP_md5(), NULL) != 1)
        return basalt_error_set(err, BASALT_INTERNAL, "MD5 failed");
    EVP_EncodeBlock((unsigned char *)out, md, (int)mdlen);
    return BASALT_OK;
}

/* GCS's XML API has no multi-object delete: one DELETE per object, run
 * concurrently. A missing object is not an error. */
static basalt_status delete_each(struct basalt_io_store *store, const struct basalt_s3_target *t,
                                 struct basalt_http_client *http, const char *const *uris,
                                 size_t count, struct basalt_error *err)
{
    struct basalt_http_request *reqs = basalt_calloc(count, sizeof *reqs);
    struct basalt_http_response *resps = basalt_calloc(count, sizeof *resps);
    char (*urls)[BASALT_S3_URL_MAX] = basalt_malloc(sizeof *urls * count);
    basalt_status st = reqs && resps && urls
                           ? BASALT_OK
                           : basalt_error_set(err, BASALT_NOMEM, "out of memory for deletes");
    const struct basalt_http_signer *signer = basalt_s3_signer_get(&store->gcs_signer);
    for (size_t i = 0; i < count && st == BASALT_OK; i++) {
        struct basalt_s3_target one;
        st = basalt_s3_target_parse(store, uris[i], &one, err);
        if (st == BASALT_OK)
            st = basalt_s3_url(&one, one.key, NULL, urls[i], sizeof urls[i], err);
        reqs[i] = (struct basalt_http_request){.method = "DELETE", .url = urls[i],
                                               .signer = signer};
    }
    (void)t;
    if (st == BASALT_OK)
        st = basalt_http_execute_all(http, reqs, resps, count, err);
    for (size_t i = 0; i < count && st == BASALT_OK; i++)
        if ((resps[i].status < 200 || resps[i].status >= 300) && resps[i].status != 404)
            st = basalt_s3_error(&resps[i], "DELETE", uris[i], err);
    for (size_t i = 0; resps && i < count; i++)
        basalt_http_response_free(&resps[i]);
    basalt_free(reqs);
    basalt_free(resps);
    basalt_free(urls);
    return st;
}

/* Deletes up to 1000 keys of one bucket in one request. */
static basalt_status delete_batch(struct basalt_io_store *store, const char *const *uris,
                                  size_t count, struct basalt_error *err)
{
    struct basalt_s3_target t, other;
    struct basalt_http_client *http;
    basalt_status st = basalt_s3_target_parse(store, uris[0], &t, err);
    if (st == BASALT_OK)
        st = basalt_io_store_http(store, uris[0], &http, err);
    if (st != BASALT_OK)
        return st;
    if (t.gcs)
        return delete_each(store, &t, http, uris, count, err);
    struct basalt_buffer body;
    basalt_buffer_init(&body);
    const char *head = "<Delete><Quiet>true</Quiet>";
    st = basalt_buffer_append(&body, head, strlen(head), err);
    for (size_t i = 0; i < count && st == BASALT_OK; i++) {
        st = basalt_s3_target_parse(store, uris[i], &other, err);
        if (st == BASALT_OK && strcmp(other.bucket, t.bucket) != 0)
            st = basalt_error_set(err, BASALT_INTERNAL, "delete batch spans buckets");
        if (st == BASALT_OK)
            st = basalt_buffer_append(&body, "<Object><Key>", 13, err);
        if (st == BASALT_OK)
            st = basalt_xml_escape_append(&body, other.key, err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&body, "</Key></Object>", 15, err);
    }
    if (st == BASALT_OK)
        st = basalt_buffer_append(&body, "</Delete>", 9, err);
    char md5[32];
    struct basalt_http_headers h;
    basalt_http_headers_init(&h);
    if (st == BASALT_OK)
        st = content_md5(body.data, body.size, md5, err);
    if (st == BASALT_OK)
        st = basalt_http_headers_add(&h, "Content-MD5", err, "%s", md5);
    char url[BASALT_S3_URL_MAX];
    if (st == BASALT_OK)
        st = basalt_s3_url(&t, NULL, "delete", url, sizeof url, err);
    struct basalt_http_response resp;
    if (st == BASALT_OK) {
        struct basalt_http_request req = {
            .method = "POST", .url = url, .headers = &h, .body = body.data,
            .body_len = body.size,
            .signer = basalt_s3_signer_get(t.gcs ? &store->gcs_signer : &store->s3_signer)};
        st = basalt_http_execute(http, &req, &resp, err);
        if (st != BASALT_OK) {
            basalt_error_context(err, st, "%s", uris[0]);
        } else {
            struct delete_result d;
            memset(&d, 0, sizeof d);
            if (resp.status < 200 || resp.status >= 300)
                st = basalt_s3_error(&resp, "POST (delete)", uris[0], err);
            else
                st = basalt_xml_scan((const char *)resp.body, resp.body_len, uris[0], on_delete,
                                     &d, err);
            if (st == BASALT_OK && d.failed)
                st = basalt_error_set(err, strcmp(d.code, "AccessDenied") == 0 ? BASALT_AUTH
                                                                              : BASALT_IO,
                                      "s3://%s/%s: delete: %s: %s", t.bucket, d.key, d.code,
                                      d.message);
            basalt_http_response_free(&resp);
        }
    }
    basalt_buffer_reset(&body);
    return st;
}

basalt_status basalt_s3_delete(struct basalt_io_store *store, const char *const *uris,
                               size_t count, struct basalt_error *err)
{
    /* Runs of the same bucket, 1000 keys at most per request. */
    size_t i = 0;
    while (i < count) {
        struct basalt_s3_target a, b;
        basalt_status st = basalt_s3_target_parse(store, uris[i], &a, err);
        if (st != BASALT_OK)
            return st;
        size_t j = i + 1;
        while (j < count && j - i < 1000 &&
               basalt_s3_target_parse(store, uris[j], &b, NULL) == BASALT_OK &&
               strcmp(a.bucket, b.bucket) == 0 && a.gcs == b.gcs)
            j++;
        st = delete_batch(store, uris + i, j - i, err);
        if (st != BASALT_OK)
            return st;
        i = j;
    }
    return BASALT_OK;
}
