/* Size, time and ETag of a remote object: one HEAD, the same for every
 * backend. */
#include <stdio.h>

#include "remote/remote.h"

basalt_status basalt_remote_stat(struct basalt_http_client *http,
                                 const struct basalt_remote_object *object,
                                 struct basalt_io_object_info *out, struct basalt_error *err)
{
    struct basalt_http_request req = {.method = "HEAD", .url = object->url,
                                      .headers = object->headers, .signer = object->signer};
    struct basalt_http_response resp;
    basalt_status st = basalt_http_execute(http, &req, &resp, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", object->name);
    if (resp.status < 200 || resp.status >= 300) {
        st = object->error(&resp, "HEAD", object->name, err);
    } else {
        out->size = resp.object_size;
        out->mtime_ms = resp.last_modified_ms;
        snprintf(out->etag, sizeof out->etag, "%s", resp.etag);
    }
    basalt_http_response_free(&resp);
    return st;
}
