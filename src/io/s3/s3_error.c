/* S3 error documents to statuses and messages. */
#include <stdio.h>
#include <string.h>

#include "s3/s3.h"
#include "xml/xml.h"

struct error_doc {
    char code[64];
    char message[160];
};

static basalt_status on_error_field(void *ctx, const char *path, const char *text, size_t len,
                                    struct basalt_error *err)
{
    (void)err;
    struct error_doc *d = ctx;
    if (!text)
        return BASALT_OK;
    if (strcmp(path, "Error/Code") == 0)
        snprintf(d->code, sizeof d->code, "%.*s", (int)len, text);
    else if (strcmp(path, "Error/Message") == 0)
        snprintf(d->message, sizeof d->message, "%.*s", (int)len, text);
    return BASALT_OK;
}

static basalt_status status_for(long http, const char *code)
{
    if (http == 404 || strcmp(code, "NoSuchKey") == 0 || strcmp(code, "NoSuchBucket") == 0)
        return BASALT_NOT_FOUND;
    if (http == 401 || http == 403)
        return BASALT_AUTH;
    if (http == 409 || http == 412)
        return BASALT_CONFLICT;
    return BASALT_IO;
}

basalt_status basalt_s3_error(const struct basalt_http_response *resp, const char *method,
                              const char *name, struct basalt_error *err)
{
    struct error_doc d = {"", ""};
    /* HEAD responses and some proxies have no document; a broken one is
     * not worth a second error. */
    if (resp->body && resp->body_len > 0)
        basalt_xml_scan((const char *)resp->body, resp->body_len, name, on_error_field, &d, NULL);
    basalt_status st = status_for(resp->status, d.code);
    if (d.code[0])
        return basalt_error_set(err, st, "%s: %s: HTTP %ld %s%s%s", name, method, resp->status,
                                d.code, d.message[0] ? ": " : "", d.message);
    return basalt_error_set(err, st, "%s: %s: HTTP %ld%s", name, method, resp->status,
                            st == BASALT_NOT_FOUND ? " (no such object)" : "");
}
