/* Foreign ArrowArrayStreams made safe to consume: the schema is validated
 * once and every batch before it is handed on, so that a query, a writer or
 * a transport reading a stream from another library never follows an
 * offset or a child that is not there. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arrow_internal.h"

struct checked {
    struct ArrowArrayStream inner;
    struct ArrowSchema schema;
    int64_t batch;
    enum basalt_arrow_validate_level level;
    char message[BASALT_ERROR_MESSAGE_MAX + 64];
};

static int fail(struct checked *c, basalt_status st, const char *what, const char *detail)
{
    snprintf(c->message, sizeof c->message, "%s: %s", what, detail);
    return st == BASALT_NOMEM ? ENOMEM : st == BASALT_UNSUPPORTED ? ENOTSUP : EINVAL;
}

static int checked_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct checked *c = s->private_data;
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = basalt_arrow_schema_copy(&c->schema, out, &err);
    return st == BASALT_OK ? 0 : fail(c, st, "schema", err.message);
}

static int checked_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct checked *c = s->private_data;
    out->release = NULL;
    int rc = c->inner.get_next(&c->inner, out);
    if (rc != 0) {
        const char *m = c->inner.get_last_error(&c->inner);
        snprintf(c->message, sizeof c->message, "batch %lld: %s", (long long)c->batch,
                 m ? m : "the producer failed");
        return rc;
    }
    if (!out->release)
        return 0;
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = basalt_arrow_array_validate(&c->schema, out, c->level, &err);
    if (st == BASALT_OK && out->n_children != c->schema.n_children)
        st = basalt_error_set(&err, BASALT_CORRUPT, "%lld columns for %lld fields",
                              (long long)out->n_children, (long long)c->schema.n_children);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(out);
        char what[48];
        snprintf(what, sizeof what, "batch %lld", (long long)c->batch);
        return fail(c, st, what, err.message);
    }
    c->batch++;
    return 0;
}

static const char *checked_error(struct ArrowArrayStream *s)
{
    struct checked *c = s->private_data;
    return c->message[0] ? c->message : NULL;
}

static void checked_release(struct ArrowArrayStream *s)
{
    struct checked *c = s->private_data;
    if (c) {
        basalt_arrow_stream_release(&c->inner);
        basalt_arrow_schema_release(&c->schema);
        basalt_free(c);
    }
    s->release = NULL;
    s->private_data = NULL;
}

basalt_status basalt_arrow_stream_import(struct ArrowArrayStream *foreign,
                                         enum basalt_arrow_validate_level level,
                                         struct ArrowArrayStream *out, struct basalt_error *err)
{
    if (!out || !foreign || !foreign->release) {
        if (out)
            out->release = NULL;
        return basalt_error_set(err, BASALT_INVALID_ARG, "stream import: NULL or released stream");
    }
    out->release = NULL;
    struct checked *c = basalt_calloc(1, sizeof *c);
    if (!c) {
        basalt_arrow_stream_release(foreign);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    c->inner = *foreign;
    foreign->release = NULL;
    c->level = level;
    basalt_status st = BASALT_OK;
    if (c->inner.get_schema(&c->inner, &c->schema) != 0) {
        const char *m = c->inner.get_last_error(&c->inner);
        c->schema.release = NULL;
        st = basalt_error_set(err, BASALT_INVALID_ARG, "stream import: the producer's schema: %s",
                              m ? m : "(no message)");
    } else if (!c->schema.release) {
        st = basalt_error_set(err, BASALT_CORRUPT, "stream import: a released schema");
    } else {
        st = basalt_arrow_schema_validate(&c->schema, err);
        if (st != BASALT_OK)
            st = basalt_error_context(err, st, "stream import: schema");
        else if (strcmp(c->schema.format, "+s") != 0)
            st = basalt_error_set(err, BASALT_INVALID_ARG, "stream import: the schema is '%s', "
                                  "not a struct of columns", c->schema.format);
    }
    if (st != BASALT_OK) {
        if (c->schema.release)
            basalt_arrow_schema_release(&c->schema);
        basalt_arrow_stream_release(&c->inner);
        basalt_free(c);
        return st;
    }
    out->get_schema = checked_schema;
    out->get_next = checked_next;
    out->get_last_error = checked_error;
    out->release = checked_release;
    out->private_data = c;
    return BASALT_OK;
}
