/* ArrowArrayStream over a list of batches, and collecting any stream. */
#include <errno.h>
#include <string.h>

#include "arrow_internal.h"

void basalt_arrow_batches_init(struct basalt_arrow_batches *batches)
{
    memset(batches, 0, sizeof *batches);
}

void basalt_arrow_batches_reset(struct basalt_arrow_batches *batches)
{
    basalt_arrow_schema_release(&batches->schema);
    for (int64_t i = 0; i < batches->n; i++)
        basalt_arrow_array_release(&batches->arrays[i]);
    basalt_free(batches->arrays);
    basalt_arrow_batches_init(batches);
}

basalt_status basalt_arrow_batches_append(struct basalt_arrow_batches *batches,
                                          struct ArrowArray *array, struct basalt_error *err)
{
    if (!array || !array->release)
        return basalt_error_set(err, BASALT_INVALID_ARG, "batches_append: array released");
    if (batches->n == batches->capacity) {
        int64_t cap = batches->capacity ? batches->capacity * 2 : 8;
        struct ArrowArray *arrays =
            basalt_realloc(batches->arrays, (size_t)cap * sizeof *arrays);
        if (!arrays) {
            basalt_arrow_array_release(array);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for %lld batches",
                                    (long long)cap);
        }
        batches->arrays = arrays;
        batches->capacity = cap;
    }
    basalt_arrow_array_move(array, &batches->arrays[batches->n++]);
    return BASALT_OK;
}

/* ------------------------------------------------------------ producer */

struct stream_private {
    struct basalt_arrow_batches batches;
    int64_t next;
    struct basalt_error error;
};

static int stream_get_schema(struct ArrowArrayStream *stream, struct ArrowSchema *out)
{
    struct stream_private *p = stream->private_data;
    basalt_status st = basalt_arrow_schema_copy(&p->batches.schema, out, &p->error);
    if (st != BASALT_OK)
        return st == BASALT_NOMEM ? ENOMEM : EINVAL;
    return 0;
}

static int stream_get_next(struct ArrowArrayStream *stream, struct ArrowArray *out)
{
    struct stream_private *p = stream->private_data;
    if (p->next < p->batches.n)
        basalt_arrow_array_move(&p->batches.arrays[p->next++], out);
    else
        out->release = NULL;
    return 0;
}

static const char *stream_get_last_error(struct ArrowArrayStream *stream)
{
    struct stream_private *p = stream->private_data;
    return p->error.message[0] ? p->error.message : NULL;
}

static void stream_release(struct ArrowArrayStream *stream)
{
    struct stream_private *p = stream->private_data;
    basalt_arrow_batches_reset(&p->batches); /* batches already handed out are released */
    basalt_free(p);
    stream->release = NULL;
    stream->private_data = NULL;
}

basalt_status basalt_arrow_stream_from_batches(struct basalt_arrow_batches *batches,
                                               struct ArrowArrayStream *stream,
                                               struct basalt_error *err)
{
    if (!batches || !stream)
        return basalt_error_set(err, BASALT_INVALID_ARG, "stream_from_batches: NULL argument");
    stream->release = NULL;
    if (!batches->schema.release) {
        basalt_arrow_batches_reset(batches);
        return basalt_error_set(err, BASALT_INVALID_ARG, "stream_from_batches: no schema");
    }
    struct stream_private *p = basalt_malloc(sizeof *p);
    if (!p) {
        basalt_arrow_batches_reset(batches);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a stream");
    }
    p->batches = *batches;
    p->next = 0;
    basalt_error_init(&p->error);
    basalt_arrow_batches_init(batches);
    stream->get_schema = stream_get_schema;
    stream->get_next = stream_get_next;
    stream->get_last_error = stream_get_last_error;
    stream->release = stream_release;
    stream->private_data = p;
    return BASALT_OK;
}

/* ------------------------------------------------------------ consumer */

void basalt_arrow_stream_move(struct ArrowArrayStream *src, struct ArrowArrayStream *dst)
{
    memcpy(dst, src, sizeof *dst);
    src->release = NULL;
}

void basalt_arrow_stream_release(struct ArrowArrayStream *stream)
{
    if (stream && stream->release)
        stream->release(stream);
}

static basalt_status producer_error(struct ArrowArrayStream *stream, int code, const char *what,
                                    struct basalt_error *err)
{
    basalt_status st;
    switch (code) {
    case ENOMEM: st = BASALT_NOMEM; break;
    case EINVAL: st = BASALT_INVALID_ARG; break;
    case ENOSYS:
    case ENOTSUP: st = BASALT_UNSUPPORTED; break;
    default: st = BASALT_IO; break;
    }
    const char *message = stream->get_last_error ? stream->get_last_error(stream) : NULL;
    return basalt_error_set(err, st, "stream %s failed (errno %d): %s", what, code,
                            message ? message : "no message");
}

static basalt_status collect(struct ArrowArrayStream *stream, struct basalt_arrow_batches *batches,
                             struct basalt_error *err)
{
    int code = stream->get_schema(stream, &batches->schema);
    if (code != 0) {
        batches->schema.release = NULL;
        return producer_error(stream, code, "get_schema", err);
    }
    if (!batches->schema.release)
        return basalt_error_set(err, BASALT_CORRUPT, "stream get_schema gave a released schema");
    for (;;) {
        struct ArrowArray array;
        array.release = NULL;
        code = stream->get_next(stream, &array);
        if (code != 0)
            return producer_error(stream, code, "get_next", err);
        if (!array.release)
            return BASALT_OK;
        basalt_status st = basalt_arrow_batches_append(batches, &array, err);
        if (st != BASALT_OK)
            return st;
    }
}

basalt_status basalt_arrow_stream_collect(struct ArrowArrayStream *stream,
                                          struct basalt_arrow_batches *batches,
                                          struct basalt_error *err)
{
    if (!stream || !batches)
        return basalt_error_set(err, BASALT_INVALID_ARG, "stream_collect: NULL argument");
    if (!stream->release)
        return basalt_error_set(err, BASALT_INVALID_ARG, "stream_collect: stream released");
    if (batches->n != 0 || batches->schema.release) {
        basalt_arrow_stream_release(stream);
        return basalt_error_set(err, BASALT_INVALID_ARG, "stream_collect: batches not empty");
    }
    basalt_status st = collect(stream, batches, err);
    basalt_arrow_stream_release(stream);
    return st;
}
