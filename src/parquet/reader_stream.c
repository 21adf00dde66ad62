/* A scan as an ArrowArrayStream (the C stream interface), for consumers
 * that speak only that. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "parquet_reader.h"

struct stream_private {
    struct basalt_parquet_scan *scan;
    char last_error[BASALT_ERROR_MESSAGE_MAX + 32];
};

static int to_errno(basalt_status st)
{
    switch (st) {
    case BASALT_OK: return 0;
    case BASALT_NOMEM: return ENOMEM;
    case BASALT_INVALID_ARG: return EINVAL;
    case BASALT_UNSUPPORTED: return ENOSYS;
    case BASALT_LIMIT: return ERANGE;
    default: return EIO;
    }
}

static int record(struct stream_private *p, basalt_status st, const struct basalt_error *err)
{
    if (st != BASALT_OK)
        snprintf(p->last_error, sizeof p->last_error, "%s: %s", basalt_status_name(st),
                 err->message);
    return to_errno(st);
}

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct stream_private *p = s->private_data;
    struct basalt_error err;
    basalt_error_init(&err);
    return record(p, basalt_parquet_scan_schema(p->scan, out, &err), &err);
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct stream_private *p = s->private_data;
    struct basalt_error err;
    basalt_error_init(&err);
    return record(p, basalt_parquet_scan_next(p->scan, out, &err), &err);
}

static const char *stream_get_last_error(struct ArrowArrayStream *s)
{
    struct stream_private *p = s->private_data;
    return p->last_error[0] ? p->last_error : NULL;
}

static void stream_release(struct ArrowArrayStream *s)
{
    struct stream_private *p = s->private_data;
    basalt_parquet_scan_free(p->scan);
    basalt_free(p);
    s->release = NULL;
    s->private_data = NULL;
}

basalt_status basalt_parquet_scan_stream(struct basalt_parquet_scan *scan,
                                         struct ArrowArrayStream *stream, struct basalt_error *err)
{
    if (!stream) {
        basalt_parquet_scan_free(scan);
        return basalt_error_set(err, BASALT_INVALID_ARG, "scan_stream: NULL stream");
    }
    stream->release = NULL;
    if (!scan)
        return basalt_error_set(err, BASALT_INVALID_ARG, "scan_stream: NULL scan");
    struct stream_private *p = basalt_calloc(1, sizeof *p);
    if (!p) {
        basalt_parquet_scan_free(scan);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a stream");
    }
    p->scan = scan;
    stream->get_schema = stream_get_schema;
    stream->get_next = stream_get_next;
    stream->get_last_error = stream_get_last_error;
    stream->release = stream_release;
    stream->private_data = p;
    return BASALT_OK;
}
