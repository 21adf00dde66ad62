/* The error documents of S3 and Azure share one shape,
 * <Error><Code>..</Code><Message>..</Message></Error>: read it once here;
 * each backend maps the code to a status. */
#include <stdio.h>
#include <string.h>

#include "remote/remote.h"
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
    if (strcmp(path, "Error/Code") == 0) {
        snprintf(d->code, sizeof d->code, "%.*s", (int)len, text);
    } else if (strcmp(path, "Error/Message") == 0) {
        /* Azure appends "\nRequestId:...\nTime:..." lines. */
        size_t first = strcspn(text, "\r\n");
        snprintf(d->message, sizeof d->message, "%.*s", (int)(first < len ? first : len), text);
    }
    return BASALT_OK;
}

basalt_status basalt_remote_error_document(const struct basalt_http_response *resp,
                                           const char *method, const char *name,
                                           basalt_status (*status_for)(long http,
                                                                       const char *code),
                                           const char *not_found, struct basalt_error *err)
{
    struct error_doc d = {"", ""};
    /* HEAD answers and some proxies carry no document; a broken one is not
     * worth a second error. */
    if (resp->body && resp->body_len > 0)
        basalt_xml_scan((const char *)resp->body, resp->body_len, name, on_error_field, &d, NULL);
    basalt_status st = status_for(resp->status, d.code);
    if (d.code[0])
        return basalt_error_set(err, st, "%s: %s: HTTP %ld %s%s%s", name, method, resp->status,
                                d.code, d.message[0] ? ": " : "", d.message);
    return basalt_error_set(err, st, "%s: %s: HTTP %ld%s", name, method, resp->status,
                            st == BASALT_NOT_FOUND ? not_found : "");
}
