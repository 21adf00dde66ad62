/* A streamed read of a remote object: one GET of a whole range whose body
 * goes to the consumer as it arrives. For copying and printing objects,
 * where many range requests cost a server that reads the object for each
 * (moto does) far more than one long body. */
#include "remote/remote.h"

struct stream_sink {
    basalt_io_sink_fn sink;
    void *ctx;
    bool failed; /* the consumer stopped the read */
};

static basalt_status pass_on(void *arg, const uint8_t *data, size_t len,
                             struct basalt_error *err)
{
    struct stream_sink *s = arg;
    basalt_status st = s->sink(s->ctx, data, len, err);
    s->failed = st != BASALT_OK;
    return st;
}

basalt_status basalt_remote_stream(struct basalt_http_client *http,
                                   const struct basalt_remote_object *object, const char *etag,
                                   uint64_t object_size, uint64_t offset, uint64_t length,
                                   basalt_io_sink_fn sink,
                                   void *ctx, struct basalt_error *err)
{
    struct stream_sink s = {sink, ctx, false};
    /* A range read, checked like any (Content-Range, Content-Length), a
     * resumed body asking for the rest. The whole object goes without a
     * Range on its first try: a plain GET, which servers answer at least as
     * fast (moto slices a copy of the object for a range). */
    struct basalt_http_request req = {
        .method = "GET", .url = object->url, .headers = object->headers,
        .signer = object->signer, .range = true, .offset = offset, .length = length,
        .whole = offset == 0 && length == object_size,
        .sink = pass_on, .sink_arg = &s, .if_match = etag && etag[0] ? etag : NULL};
    struct basalt_http_response resp;
    basalt_status st = basalt_http_execute(http, &req, &resp, err);
    if (st != BASALT_OK) {
        /* The sink's own failure is reported as it is; a request's failure
         * gets the object's name. */
        return s.failed ? st : basalt_error_context(err, st, "%s", object->name);
    }
    if (resp.status < 200 || resp.status >= 300)
        st = object->error(&resp, "GET", object->name, err);
    basalt_http_response_free(&resp);
    return st;
}
