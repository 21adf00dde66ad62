/* http:// and https:// objects: unsigned range requests. */
#include <stdio.h>
#include <string.h>

#include "remote/remote.h"
#include "web/web.h"

static basalt_status web_error(const struct basalt_http_response *resp, const char *method,
                               const char *name, struct basalt_error *err)
{
    basalt_status st = resp->status == 404                         ? BASALT_NOT_FOUND
                       : resp->status == 401 || resp->status == 403 ? BASALT_AUTH
                       : resp->status == 412                        ? BASALT_CONFLICT
                                                                    : BASALT_IO;
    return basalt_error_set(err, st, "%s: %s: HTTP %ld", name, method, resp->status);
}

basalt_status basalt_web_open_input(struct basalt_io_store *store, const char *uri, unsigned flags,
                                    struct basalt_input **out, struct basalt_error *err)
{
    struct basalt_http_client *http;
    basalt_status st = basalt_io_store_http(store, uri, &http, err);
    if (st != BASALT_OK)
        return st;
    /* The query may hold a presigned signature: it names nothing in messages. */
    char name[1024];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(uri, "?"), uri);
    struct basalt_remote_object object = {.name = name, .url = uri, .error = web_error};
    object.cache = flags & BASALT_IO_IMMUTABLE ? store->cache : NULL;
    object.sequential = (flags & BASALT_IO_SEQUENTIAL) != 0;
    return basalt_remote_input_open(http, &store->options, &object, out, err);
}

basalt_status basalt_web_stat(struct basalt_io_store *store, const char *uri,
                              struct basalt_io_object_info *out, struct basalt_error *err)
{
    struct basalt_http_client *http;
    basalt_status st = basalt_io_store_http(store, uri, &http, err);
    if (st != BASALT_OK)
        return st;
    /* The query may hold a presigned signature: it names nothing in messages. */
    char name[1024];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(uri, "?"), uri);
    struct basalt_remote_object object = {.name = name, .url = uri, .error = web_error};
    return basalt_remote_stat(http, &object, out, err);
}
