/* Inputs: the generic entry points and the memory backend. */
#include <string.h>

#include "basalt/io.h"
#include "io_internal.h"

basalt_status basalt_input_read_at(struct basalt_input *in, uint64_t offset, uint64_t length,
                                   void *dst, struct basalt_error *err)
{
    if (offset > in->size || length > in->size - offset)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "%s: range [%llu, +%llu) passes the end of the object (%llu bytes)",
                                in->name, (unsigned long long)offset, (unsigned long long)length,
                                (unsigned long long)in->size);
    if (length == 0)
        return BASALT_OK;
    return in->ops->read_at(in, offset, length, dst, err);
}

basalt_status basalt_input_read_ranges(struct basalt_input *in, struct basalt_io_range *ranges,
                                       size_t count, struct basalt_error *err)
{
    for (size_t i = 0; i < count; i++)
        if (ranges[i].offset > in->size || ranges[i].length > in->size - ranges[i].offset)
            return basalt_input_read_at(in, ranges[i].offset, ranges[i].length, ranges[i].dst,
                                        err);
    if (in->ops->read_ranges)
        return in->ops->read_ranges(in, ranges, count, err);
    for (size_t i = 0; i < count; i++) {
        basalt_status st =
            basalt_input_read_at(in, ranges[i].offset, ranges[i].length, ranges[i].dst, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

/* The fallback of basalt_input_read_stream: pieces of this size, each
 * read while the next is prefetched. */
#define STREAM_PIECE ((uint64_t)4 << 20)

static basalt_status stream_by_pieces(struct basalt_input *in, uint64_t offset, uint64_t length,
                                      basalt_io_sink_fn sink, void *ctx,
                                      struct basalt_error *err)
{
    const uint8_t *view = basalt_input_view(in);
    uint8_t *buf = NULL;
    if (!view && !(buf = basalt_malloc((size_t)(length < STREAM_PIECE ? length : STREAM_PIECE))))
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory for a read", in->name);
    basalt_status st = BASALT_OK;
    const uint64_t end = offset + length;
    for (uint64_t at = offset; st == BASALT_OK && at < end;) {
        uint64_t n = end - at < STREAM_PIECE ? end - at : STREAM_PIECE;
        const uint8_t *piece = view ? view + at : buf;
        if (!view) {
            st = in->ops->read_at(in, at, n, buf, err);
            if (st != BASALT_OK)
                break;
        }
        at += n;
        if (!view && at < end) {
            struct basalt_io_range next = {at, end - at < STREAM_PIECE ? end - at : STREAM_PIECE,
                                           NULL};
            basalt_input_prefetch(in, &next, 1);
        }
        st = sink(ctx, piece, (size_t)n, err);
    }
    basalt_free(buf);
    return st;
}

basalt_status basalt_input_read_stream(struct basalt_input *in, uint64_t offset, uint64_t length,
                                       basalt_io_sink_fn sink, void *ctx,
                                       struct basalt_error *err)
{
    if (offset > in->size || length > in->size - offset)
        return basalt_input_read_at(in, offset, length, NULL, err); /* CORRUPT, worded once */
    if (length == 0)
        return BASALT_OK;
    if (in->ops->read_stream)
        return in->ops->read_stream(in, offset, length, sink, ctx, err);
    return stream_by_pieces(in, offset, length, sink, ctx, err);
}

void basalt_input_prefetch(struct basalt_input *in, const struct basalt_io_range *ranges,
                           size_t count)
{
    basalt_input_prefetch_in_order(in, ranges, NULL, count);
}

void basalt_input_prefetch_in_order(struct basalt_input *in, const struct basalt_io_range *ranges,
                                    const uint32_t *need, size_t count)
{
    if (in->ops->prefetch && count > 0)
        in->ops->prefetch(in, ranges, need, count);
}

void basalt_input_get_stats(struct basalt_input *in, struct basalt_input_stats *out)
{
    *out = (struct basalt_input_stats){0};
    if (in && in->ops->stats)
        in->ops->stats(in, out);
}

const uint8_t *basalt_input_view(struct basalt_input *in)
{
    return in->ops->view ? in->ops->view(in) : NULL;
}

void basalt_input_release_view(struct basalt_input *in, uint64_t offset, uint64_t length)
{
    if (in != NULL && in->ops->release_view != NULL && offset <= in->size &&
        length <= in->size - offset)
        in->ops->release_view(in, offset, length);
}

void basalt_input_close(struct basalt_input *in)
{
    if (in)
        in->ops->close(in);
}

struct memory_input {
    struct basalt_input base;
    const uint8_t *data;
    char name[];
};

static basalt_status memory_read_at(struct basalt_input *in, uint64_t offset, uint64_t length,
                                    void *dst, struct basalt_error *err)
{
    (void)err;
    struct memory_input *m = (struct memory_input *)in;
    memcpy(dst, m->data + offset, (size_t)length);
    return BASALT_OK;
}

static const uint8_t *memory_view(struct basalt_input *in)
{
    return ((struct memory_input *)in)->data;
}

static void memory_close(struct basalt_input *in) { basalt_free(in); }

static const struct basalt_input_ops memory_ops = {
    .read_at = memory_read_at, .read_ranges = NULL, .view = memory_view, .close = memory_close};

basalt_status basalt_input_open_memory(const void *data, size_t size, const char *name,
                                       struct basalt_input **out, struct basalt_error *err)
{
    if (!name)
        name = "<memory>";
    size_t nlen = strlen(name);
    struct memory_input *m = basalt_malloc(sizeof *m + nlen + 1);
    if (!m)
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory opening input", name);
    memcpy(m->name, name, nlen + 1);
    m->base.ops = &memory_ops;
    m->base.size = size;
    m->base.name = m->name;
    m->data = data;
    *out = &m->base;
    return BASALT_OK;
}
