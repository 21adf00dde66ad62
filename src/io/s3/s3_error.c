/* S3 error documents to statuses and messages. */
#include <string.h>

#include "s3/s3.h"

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
    return basalt_remote_error_document(resp, method, name, status_for, " (no such object)", err);
}
