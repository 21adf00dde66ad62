/* A result's rows as an ArrowArrayStream (sql.h, basalt_sql_result_stream):
 * each get_next pulls one batch from the result, so a consumer of the C
 * Data Interface reads a query as it runs. */
#include <errno.h>
#include <string.h>

#include "basalt/sql.h"

struct result_stream {
    struct basalt_sql_result *r;
    struct basalt_error err;
};

static int errno_of(basalt_status st)
{
    switch (st) {
    case BASALT_OK:
        return 0;
    case BASALT_NOMEM:
        return ENOMEM;
    case BASALT_IO:
        return EIO;
    case BASALT_NOT_FOUND:
        return ENOENT;
    case BASALT_UNSUPPORTED:
        return ENOTSUP;
    default:
        return EINVAL;
    }
}

static int get_schema(struct ArrowArrayStream *stream, struct ArrowSchema *out)
{
    struct result_stream *p = stream->private_data;
    basalt_status st =
        basalt_arrow_schema_copy(basalt_sql_result_schema(p->r), out, &p->err);
    return errno_of(st);
}

static int get_next(struct ArrowArrayStream *stream, struct ArrowArray *out)
{
    struct result_stream *p = stream->private_data;
    return errno_of(basalt_sql_result_next(p->r, out, &p->err));
}

static const char *get_last_error(struct ArrowArrayStream *stream)
{
    struct result_stream *p = stream->private_data;
    return p->err.message[0] ? p->err.message : NULL;
}

static void release(struct ArrowArrayStream *stream)
{
    struct result_stream *p = stream->private_data;
    basalt_sql_result_free(p->r);
    basalt_free(p);
    stream->release = NULL;
    stream->private_data = NULL;
}

basalt_status basalt_sql_result_stream(struct basalt_sql_result *r, struct ArrowArrayStream *out,
                                       struct basalt_error *err)
{
    if (out != NULL)
        out->release = NULL;
    if (r == NULL || out == NULL || basalt_sql_result_schema(r) == NULL) {
        basalt_sql_result_free(r);
        return basalt_error_set(err, BASALT_INVALID_ARG, "result_stream: no rows to stream");
    }
    struct result_stream *p = basalt_calloc(1, sizeof *p);
    if (p == NULL) {
        basalt_sql_result_free(r);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    p->r = r;
    basalt_error_init(&p->err);
    out->get_schema = get_schema;
    out->get_next = get_next;
    out->get_last_error = get_last_error;
    out->release = release;
    out->private_data = p;
    return BASALT_OK;
}
