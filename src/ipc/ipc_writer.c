/* The IPC writer: schema, dictionary and record batch messages, the stream
 * end marker, and the file format's magic and footer. Little-endian,
 * metadata version V5, bodies and buffers aligned to 8 or 64 bytes. */
#include <stdio.h>

#include "ipc_internal.h"

static const uint8_t ipc_file_magic[8] = {'A', 'R', 'R', 'O', 'W', '1', 0, 0};

struct wblock {
    int64_t offset;
    int32_t metadata_length;
    int64_t body_length;
};

struct wdict {
    const struct ArrowSchema *node;
    int64_t id;
    bool written;
    int64_t length;            /* entries of the dictionary the reader holds */
    struct basalt_buffer last; /* that dictionary serialized (body, nodes, buffers) */
    struct basalt_buffer next; /* the candidate being compared with it */
};

/* One message body being built. */
struct wbody {
    struct basalt_buffer body;
    struct basalt_buffer nodes;    /* FieldNode structs */
    struct basalt_buffer buffers;  /* Buffer structs */
    struct basalt_buffer variadic; /* int64 counts */
    bool has_views;
    /* Message mode (basalt_ipc_encoder): the body is not copied into `body`
     * but listed as pieces; `length` is its size so far. */
    bool by_ref;
    int64_t length;
    /* Placed mode (basalt_ipc_encoder_batch_placed): the buffers are where
     * the caller's place function put them, [placed_lo, placed_end) of its
     * memory; the Buffer records are rebased to placed_lo. */
    bool placed;
    uint64_t placed_lo, placed_end;
};

/* A piece of a message body in message mode: caller memory (the batch's
 * buffers, static zeros) or a stretch of the encoder's own bytes, named by
 * offset while those bytes may still move. */
struct wpiece {
    const void *data;
    size_t owned_at;
    size_t len;
    bool owned;
};

/* A message encoded in message mode, before its pieces are resolved. */
struct wmessage {
    size_t metadata_at, metadata_len;
    size_t first_piece, n_pieces;
    int64_t body_len;
    uint64_t body_offset; /* placed mode */
};

/* The messages of one encoder call. */
struct wmessages {
    struct basalt_buffer owned;   /* metadata and computed body bytes */
    struct wpiece *pieces;
    size_t n_pieces, cap_pieces;
    struct wmessage *msgs;
    size_t n_msgs, cap_msgs;
    struct basalt_ipc_piece *out_pieces;
    struct basalt_ipc_message *out_msgs;
    size_t cap_out_pieces, cap_out_msgs;
    size_t sealed; /* pieces of finished messages: never extended */
};

struct basalt_ipc_writer {
    struct basalt_output *out;
    struct basalt_ipc_write_options o;
    struct ArrowSchema schema;
    struct basalt_buffer schema_message; /* framed, for the file footer */
    struct basalt_codec *codec;
    struct ipc_dicts ids;
    struct wdict *dicts;
    int64_t n_dicts;
    struct wblock *blocks[2]; /* dictionaries, record batches */
    int64_t n_blocks[2];
    struct wbody wb;
    struct basalt_buffer scratch;
    uint64_t pos;
    bool finished;
    struct wmessages *messages; /* message mode: no output, messages handed out */
    basalt_ipc_place_fn place;  /* placed mode: where each buffer goes */
    void *place_ctx;
};

void basalt_ipc_write_options_init(struct basalt_ipc_write_options *o)
{
    memset(o, 0, sizeof *o);
    o->format = BASALT_IPC_FORMAT_STREAM;
    o->compression = BASALT_CODEC_UNCOMPRESSED;
    o->compression_level = BASALT_CODEC_LEVEL_DEFAULT;
    o->alignment = 64;
    o->dictionary_deltas = true;
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static basalt_status out_write(struct basalt_ipc_writer *w, const void *data, size_t len,
                               struct basalt_error *err)
{
    basalt_status st = basalt_output_write(w->out, data, len, err);
    if (st == BASALT_OK)
        w->pos += len;
    return st;
}

static basalt_status out_pad(struct basalt_ipc_writer *w, size_t align, struct basalt_error *err)
{
    static const uint8_t zeros[64];
    size_t pad = (align - (w->pos % align)) % align;
    return pad ? out_write(w, zeros, pad, err) : BASALT_OK;
}

/* ------------------------------------------------------------ bodies */

static const uint8_t zeros64[64];

static size_t body_size(const struct wbody *b)
{
    if (b->placed)
        return (size_t)(b->placed_end - b->placed_lo);
    return b->by_ref ? (size_t)b->length : b->body.size;
}

/* Lists `len` bytes as the next piece of the current message: by reference
 * when `stable` (memory that outlives the encoder call), otherwise copied
 * into the encoder's own bytes (contiguous copies share one piece). */
static basalt_status pieces_add(struct wmessages *m, const void *data, size_t len, bool stable,
                                struct basalt_error *err)
{
    if (len == 0)
        return BASALT_OK;
    struct wpiece *last = m->n_pieces ? &m->pieces[m->n_pieces - 1] : NULL;
    if (!stable || !data) {
        size_t at = m->owned.size;
        basalt_status st = basalt_buffer_reserve(&m->owned, len, err);
        if (st != BASALT_OK)
            return st;
        if (data)
            memcpy(m->owned.data + at, data, len);
        else
            memset(m->owned.data + at, 0, len);
        m->owned.size += len;
        if (last && m->n_pieces > m->sealed && last->owned && last->owned_at + last->len == at) {
            last->len += len;
            return BASALT_OK;
        }
    }
    if (m->n_pieces == m->cap_pieces) {
        size_t cap = m->cap_pieces ? 2 * m->cap_pieces : 64;
        struct wpiece *p = basalt_realloc(m->pieces, cap * sizeof *p);
        if (!p)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for message pieces");
        m->pieces = p;
        m->cap_pieces = cap;
    }
    m->pieces[m->n_pieces++] = (stable && data)
                                   ? (struct wpiece){data, 0, len, false}
                                   : (struct wpiece){NULL, m->owned.size - len, len, true};
    return BASALT_OK;
}

/* Appends to the current body: copied into it, or listed in message mode. */
static basalt_status body_append(struct basalt_ipc_writer *w, const void *data, size_t len,
                                 bool stable, struct basalt_error *err)
{
    struct wbody *b = &w->wb;
    if (!b->by_ref)
        return basalt_buffer_append(&b->body, data, len, err);
    basalt_status st = pieces_add(w->messages, data, len, stable, err);
    if (st == BASALT_OK)
        b->length += (int64_t)len;
    return st;
}

static basalt_status body_pad(struct basalt_ipc_writer *w, size_t align, struct basalt_error *err)
{
    size_t pad = (align - (body_size(&w->wb) % align)) % align;
    return pad ? body_append(w, zeros64, pad, true, err) : BASALT_OK;
}

static basalt_status add_node(struct wbody *b, int64_t length, int64_t null_count,
                              struct basalt_error *err)
{
    uint8_t rec[16];
    put64(rec, (uint64_t)length);
    put64(rec + 8, (uint64_t)null_count);
    return basalt_buffer_append(&b->nodes, rec, 16, err);
}

/* Placed mode: the caller puts the buffer (or finds it already in its
 * memory); the record holds where, rebased when the message is built
 * (rebase_placed). An empty buffer stays at 0. */
static basalt_status add_placed_buffer(struct basalt_ipc_writer *w, const void *data, size_t len,
                                       bool stable, struct basalt_error *err)
{
    struct wbody *b = &w->wb;
    uint64_t at = 0;
    if (len > 0) {
        basalt_status st = w->place(w->place_ctx, data, len, stable, &at, err);
        if (st != BASALT_OK)
            return st;
        if (b->placed_end == 0 || at < b->placed_lo)
            b->placed_lo = at;
        if (at + len > b->placed_end)
            b->placed_end = at + len;
    }
    uint8_t rec[16];
    put64(rec, at);
    put64(rec + 8, (uint64_t)len);
    return basalt_buffer_append(&b->buffers, rec, 16, err);
}

/* Placed mode: makes the Buffer records relative to the lowest placed byte,
 * where the message's body starts. */
static void rebase_placed(struct wbody *b)
{
    for (size_t at = 0; at + 16 <= b->buffers.size; at += 16) {
        uint8_t *rec = b->buffers.data + at;
        uint64_t off = 0, len = 0;
        for (int i = 0; i < 8; i++) {
            off |= (uint64_t)rec[i] << (8 * i);
            len |= (uint64_t)rec[8 + i] << (8 * i);
        }
        put64(rec, len ? off - b->placed_lo : 0);
    }
}

/* One buffer of the body. `stable`: `data` is the batch's memory (it may be
 * referenced in message mode), not a temporary. */
static basalt_status add_buffer_at(struct basalt_ipc_writer *w, const void *data, size_t len,
                                   bool stable, struct basalt_error *err)
{
    struct wbody *b = &w->wb;
    if (b->placed)
        return add_placed_buffer(w, data, len, stable, err);
    size_t start = body_size(b);
    basalt_status st = BASALT_OK;
    if (w->codec && len > 0) {
        size_t bound = basalt_codec_max_compressed_size(w->codec, len);
        if (bound == SIZE_MAX)
            return basalt_error_set(err, BASALT_LIMIT, "buffer of %zu bytes too large to compress",
                                    len);
        st = basalt_buffer_resize(&w->scratch, bound, err);
        size_t clen = 0;
        if (st == BASALT_OK)
            st = basalt_codec_compress(w->codec, data, len, w->scratch.data, bound, &clen, err);
        if (st != BASALT_OK)
            return st;
        uint8_t prefix[8];
        if (clen < len) {
            put64(prefix, (uint64_t)len);
            st = basalt_buffer_append(&b->body, prefix, 8, err);
            if (st == BASALT_OK)
                st = basalt_buffer_append(&b->body, w->scratch.data, clen, err);
        } else {
            /* Stored raw: compression would not shrink it. */
            put64(prefix, UINT64_MAX);
            st = basalt_buffer_append(&b->body, prefix, 8, err);
            if (st == BASALT_OK)
                st = basalt_buffer_append(&b->body, data, len, err);
        }
    } else if (len > 0) {
        st = body_append(w, data, len, stable, err);
    }
    if (st != BASALT_OK)
        return st;
    uint8_t rec[16];
    put64(rec, (uint64_t)start);
    put64(rec + 8, (uint64_t)(body_size(b) - start));
    st = basalt_buffer_append(&b->buffers, rec, 16, err);
    if (st == BASALT_OK)
        st = body_pad(w, (size_t)w->o.alignment, err);
    return st;
}

static basalt_status add_buffer(struct basalt_ipc_writer *w, const void *data, size_t len,
                                struct basalt_error *err)
{
    return add_buffer_at(w, data, len, true, err);
}

/* A buffer computed here (shifted bits, rebased offsets): never referenced. */
static basalt_status add_buffer_copy(struct basalt_ipc_writer *w, const void *data, size_t len,
                                     struct basalt_error *err)
{
    return add_buffer_at(w, data, len, false, err);
}

/* A bitmap slice [start, start + len) of `bits` (physical positions) as a
 * buffer, shifted to bit 0 when it does not start on a byte. */
static basalt_status add_bitmap(struct basalt_ipc_writer *w, const uint8_t *bits, int64_t start,
                                int64_t len, struct basalt_error *err)
{
    size_t bytes = (size_t)basalt_bitmap_bytes(len);
    if (!bits || len == 0)
        return add_buffer(w, NULL, 0, err);
    if (start % 8 == 0)
        return add_buffer(w, bits + start / 8, bytes, err);
    uint8_t *tmp = basalt_calloc(1, bytes);
    if (!tmp)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a bitmap");
    basalt_bitmap_copy(tmp, 0, bits, start, len);
    basalt_status st = add_buffer_copy(w, tmp, bytes, err);
    basalt_free(tmp);
    return st;
}

static int64_t count_nulls(const struct ArrowArray *a, int64_t phys, int64_t len)
{
    const uint8_t *v = a->buffers[0];
    if (!v)
        return 0;
    if (phys == a->offset && len == a->length && a->null_count >= 0)
        return a->null_count;
    return len - basalt_bitmap_count(v, phys, len);
}

/* Validity node and buffer for [start, start + len) of `a`. */
static basalt_status add_validity(struct basalt_ipc_writer *w, const struct ArrowArray *a,
                                  int64_t start, int64_t len, struct basalt_error *err)
{
    int64_t phys = a->offset + start;
    int64_t nulls = a->n_buffers > 0 ? count_nulls(a, phys, len) : 0;
    basalt_status st = add_node(&w->wb, len, nulls, err);
    if (st == BASALT_OK)
        st = add_bitmap(w, nulls ? a->buffers[0] : NULL, phys, len, err);
    return st;
}

static basalt_status write_array(struct basalt_ipc_writer *w, const struct ArrowSchema *s,
                                 const struct ArrowArray *a, int64_t start, int64_t len,
                                 int depth, struct basalt_error *err);

/* Offsets [start, start + len] of width ow, rebased to 0 unless the slice
 * is the whole array; *first / *last are the original first and last. */
static basalt_status add_offsets(struct basalt_ipc_writer *w, const struct ArrowArray *a,
                                 int64_t start, int64_t len, unsigned ow, int64_t *first,
                                 int64_t *last, struct basalt_error *err)
{
    const uint8_t *o = a->buffers[1];
    int64_t phys = a->offset + start;
    if (!o) {
        *first = *last = 0;
        uint8_t zero[8] = {0};
        return add_buffer_copy(w, zero, ow, err);
    }
    *first = ow == 4 ? ((const int32_t *)o)[phys] : ((const int64_t *)o)[phys];
    *last = ow == 4 ? ((const int32_t *)o)[phys + len] : ((const int64_t *)o)[phys + len];
    if (*first < 0 || *last < *first)
        return basalt_error_set(err, BASALT_CORRUPT, "offsets run backwards");
    bool whole = phys == 0 && len == a->length;
    if (whole)
        return add_buffer(w, o, (size_t)(len + 1) * ow, err);
    uint8_t *tmp = basalt_malloc((size_t)(len + 1) * ow);
    if (!tmp)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for offsets");
    for (int64_t i = 0; i <= len; i++) {
        if (ow == 4)
            ((int32_t *)tmp)[i] = ((const int32_t *)o)[phys + i] - (int32_t)*first;
        else
            ((int64_t *)tmp)[i] = ((const int64_t *)o)[phys + i] - *first;
    }
    basalt_status st = add_buffer_copy(w, tmp, (size_t)(len + 1) * ow, err);
    basalt_free(tmp);
    return st;
}

static basalt_status write_children(struct basalt_ipc_writer *w, const struct ArrowSchema *s,
                                    const struct ArrowArray *a, int64_t start, int64_t len,
                                    int depth, struct basalt_error *err)
{
    for (int64_t i = 0; i < s->n_children; i++) {
        basalt_status st = write_array(w, s->children[i], a->children[i], start, len, depth + 1,
                                       err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "field '%s'",
                                        s->children[i]->name ? s->children[i]->name : "");
    }
    return BASALT_OK;
}

static basalt_status write_array(struct basalt_ipc_writer *w, const struct ArrowSchema *s,
                                 const struct ArrowArray *a, int64_t start, int64_t len,
                                 int depth, struct basalt_error *err)
{
    if (depth > 64)
        return basalt_error_set(err, BASALT_LIMIT, "fields nested deeper than 64 levels");
    if (!a || !a->release || a->n_children != s->n_children)
        return basalt_error_set(err, BASALT_INVALID_ARG, "array does not fit its schema");
    if (start < 0 || len < 0 || start + len > a->length)
        return basalt_error_set(err, BASALT_INVALID_ARG, "slice outside the array");
    struct basalt_arrow_type t;
    basalt_status st = basalt_arrow_type_parse(s->format, &t, err);
    if (st != BASALT_OK)
        return st;
    int64_t phys = a->offset + start;
    switch (t.id) {
    case BASALT_ARROW_TYPE_NULL: return add_node(&w->wb, len, len, err);
    case BASALT_ARROW_TYPE_BINARY:
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_LARGE_BINARY:
    case BASALT_ARROW_TYPE_LARGE_STRING: {
        unsigned ow = (t.id == BASALT_ARROW_TYPE_BINARY || t.id == BASALT_ARROW_TYPE_STRING) ? 4 : 8;
        int64_t first, last;
        st = add_validity(w, a, start, len, err);
        if (st == BASALT_OK)
            st = add_offsets(w, a, start, len, ow, &first, &last, err);
        if (st != BASALT_OK)
            return st;
        bool whole = phys == 0 && len == a->length;
        const uint8_t *data = a->buffers[2];
        if (whole)
            return add_buffer(w, data, (size_t)last, err);
        return add_buffer(w, data ? data + first : NULL, (size_t)(last - first), err);
    }
    case BASALT_ARROW_TYPE_BINARY_VIEW:
    case BASALT_ARROW_TYPE_STRING_VIEW: {
        int64_t nvar = a->n_buffers - 3;
        if (nvar < 0)
            return basalt_error_set(err, BASALT_INVALID_ARG, "view array without its sizes");
        const int64_t *sizes = a->buffers[a->n_buffers - 1];
        st = add_validity(w, a, start, len, err);
        if (st == BASALT_OK)
            st = add_buffer(w, a->buffers[1] ? (const uint8_t *)a->buffers[1] + 16 * phys : NULL,
                            (size_t)len * 16, err);
        for (int64_t i = 0; i < nvar && st == BASALT_OK; i++)
            st = add_buffer(w, a->buffers[2 + i], (size_t)sizes[i], err);
        uint8_t cnt[8];
        put64(cnt, (uint64_t)nvar);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&w->wb.variadic, cnt, 8, err);
        w->wb.has_views = true;
        return st;
    }
    case BASALT_ARROW_TYPE_LIST:
    case BASALT_ARROW_TYPE_LARGE_LIST:
    case BASALT_ARROW_TYPE_MAP: {
        unsigned ow = t.id == BASALT_ARROW_TYPE_LARGE_LIST ? 8 : 4;
        int64_t first, last;
        st = add_validity(w, a, start, len, err);
        if (st == BASALT_OK)
            st = add_offsets(w, a, start, len, ow, &first, &last, err);
        if (st != BASALT_OK)
            return st;
        bool whole = phys == 0 && len == a->length;
        const struct ArrowArray *child = a->children[0];
        if (last > child->length)
            return basalt_error_set(err, BASALT_CORRUPT, "list offsets pass the child");
        st = whole ? write_array(w, s->children[0], child, 0, child->length, depth + 1, err)
                   : write_array(w, s->children[0], child, first, last - first, depth + 1, err);
        return st;
    }
    case BASALT_ARROW_TYPE_LIST_VIEW:
    case BASALT_ARROW_TYPE_LARGE_LIST_VIEW: {
        size_t ow = t.id == BASALT_ARROW_TYPE_LIST_VIEW ? 4 : 8;
        st = add_validity(w, a, start, len, err);
        for (int i = 1; i <= 2 && st == BASALT_OK; i++)
            st = add_buffer(w, a->buffers[i] ? (const uint8_t *)a->buffers[i] + ow * (size_t)phys
                                             : NULL,
                            ow * (size_t)len, err);
        if (st == BASALT_OK)
            st = write_array(w, s->children[0], a->children[0], 0, a->children[0]->length,
                             depth + 1, err);
        return st;
    }
    case BASALT_ARROW_TYPE_FIXED_SIZE_LIST:
        st = add_validity(w, a, start, len, err);
        if (st == BASALT_OK)
            st = write_array(w, s->children[0], a->children[0], start * t.fixed_size,
                             len * t.fixed_size, depth + 1, err);
        return st;
    case BASALT_ARROW_TYPE_STRUCT:
        st = add_validity(w, a, start, len, err);
        if (st == BASALT_OK)
            st = write_children(w, s, a, start, len, depth, err);
        return st;
    case BASALT_ARROW_TYPE_SPARSE_UNION:
        st = add_node(&w->wb, len, 0, err);
        if (st == BASALT_OK)
            st = add_buffer(w, (const uint8_t *)a->buffers[0] + phys, (size_t)len, err);
        if (st == BASALT_OK)
            st = write_children(w, s, a, start, len, depth, err);
        return st;
    case BASALT_ARROW_TYPE_DENSE_UNION:
        st = add_node(&w->wb, len, 0, err);
        if (st == BASALT_OK)
            st = add_buffer(w, (const uint8_t *)a->buffers[0] + phys, (size_t)len, err);
        if (st == BASALT_OK)
            st = add_buffer(w, (const uint8_t *)a->buffers[1] + 4 * phys, 4 * (size_t)len, err);
        for (int64_t i = 0; i < s->n_children && st == BASALT_OK; i++)
            st = write_array(w, s->children[i], a->children[i], 0, a->children[i]->length,
                             depth + 1, err);
        return st;
    case BASALT_ARROW_TYPE_RUN_END_ENCODED:
        if (phys != 0 || len != a->length)
            return basalt_error_set(err, BASALT_UNSUPPORTED,
                                    "writing a slice of a run-end encoded array");
        st = add_node(&w->wb, len, 0, err);
        for (int i = 0; i < 2 && st == BASALT_OK; i++)
            st = write_array(w, s->children[i], a->children[i], 0, a->children[i]->length,
                             depth + 1, err);
        return st;
    default: {
        /* bool, fixed width, dictionary indices */
        st = add_validity(w, a, start, len, err);
        if (st != BASALT_OK)
            return st;
        if (t.bit_width == 1)
            return add_bitmap(w, a->buffers[1], phys, len, err);
        size_t bw = (size_t)(t.bit_width / 8);
        return add_buffer(w, a->buffers[1] ? (const uint8_t *)a->buffers[1] + bw * (size_t)phys
                                           : NULL,
                          bw * (size_t)len, err);
    }
    }
}

/* ------------------------------------------------------------ messages */

static void wbody_clear(struct wbody *b)
{
    b->body.size = b->nodes.size = b->buffers.size = b->variadic.size = 0;
    b->has_views = false;
    b->length = 0;
    b->placed = false;
    b->placed_lo = b->placed_end = 0;
}

static void wbody_reset(struct wbody *b)
{
    basalt_buffer_reset(&b->body);
    basalt_buffer_reset(&b->nodes);
    basalt_buffer_reset(&b->buffers);
    basalt_buffer_reset(&b->variadic);
}

/* The RecordBatch table of the body in w->wb. */
static basalt_arrow_fb_ref record_batch_table(struct basalt_ipc_writer *w,
                                              struct basalt_arrow_fbb *b, int64_t length)
{
    struct wbody *wb = &w->wb;
    basalt_arrow_fb_ref nodes =
        basalt_arrow_fbb_bytes_vector(b, wb->nodes.data, 16, wb->nodes.size / 16, 8);
    basalt_arrow_fb_ref buffers =
        basalt_arrow_fbb_bytes_vector(b, wb->buffers.data, 16, wb->buffers.size / 16, 8);
    basalt_arrow_fb_ref variadic = 0, comp = 0;
    if (wb->has_views)
        variadic = basalt_arrow_fbb_bytes_vector(b, wb->variadic.data, 8, wb->variadic.size / 8, 8);
    if (w->codec) {
        basalt_arrow_fbb_table_start(b);
        basalt_arrow_fbb_add_u8(b, 0, w->o.compression == BASALT_CODEC_ZSTD ? 1 : 0);
        basalt_arrow_fbb_add_u8(b, 1, 0);
        comp = basalt_arrow_fbb_table_end(b);
    }
    basalt_arrow_fbb_table_start(b);
    basalt_arrow_fbb_add_i64(b, 0, length);
    basalt_arrow_fbb_add_ref(b, 1, nodes);
    basalt_arrow_fbb_add_ref(b, 2, buffers);
    if (comp)
        basalt_arrow_fbb_add_ref(b, 3, comp);
    if (variadic)
        basalt_arrow_fbb_add_ref(b, 4, variadic);
    return basalt_arrow_fbb_table_end(b);
}

/* Message mode: notes the message whose flatbuffer is `fb` and whose body
 * is w->wb (its pieces listed since the last message, or its copied bytes). */
static basalt_status record_message(struct basalt_ipc_writer *w, const uint8_t *fb, size_t fb_len,
                                    struct basalt_error *err)
{
    struct wmessages *m = w->messages;
    size_t first = m->n_msgs ? m->msgs[m->n_msgs - 1].first_piece + m->msgs[m->n_msgs - 1].n_pieces
                             : 0;
    basalt_status st = BASALT_OK;
    if (!w->wb.by_ref && !w->wb.placed)
        st = pieces_add(m, w->wb.body.data, w->wb.body.size, false, err);
    size_t metadata_at = m->owned.size;
    if (st == BASALT_OK)
        st = basalt_buffer_append(&m->owned, fb, fb_len, err);
    if (st == BASALT_OK && m->n_msgs == m->cap_msgs) {
        size_t cap = m->cap_msgs ? 2 * m->cap_msgs : 4;
        struct wmessage *msgs = basalt_realloc(m->msgs, cap * sizeof *msgs);
        if (!msgs)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for messages");
        m->msgs = msgs;
        m->cap_msgs = cap;
    }
    if (st != BASALT_OK)
        return st;
    m->msgs[m->n_msgs++] = (struct wmessage){metadata_at, fb_len, first, m->n_pieces - first,
                                             (int64_t)body_size(&w->wb), w->wb.placed_lo};
    m->sealed = m->n_pieces;
    return BASALT_OK;
}

/* Writes a message whose header is built by the caller into `b`, then the
 * body in w->wb; records a footer block in `kind` (0 dictionary, 1 batch). */
static basalt_status emit_message(struct basalt_ipc_writer *w, struct basalt_arrow_fbb *b,
                                  uint8_t header_type, basalt_arrow_fb_ref header, int kind,
                                  struct basalt_error *err)
{
    basalt_arrow_fbb_table_start(b);
    basalt_arrow_fbb_add_i16(b, 0, IPC_METADATA_V5);
    basalt_arrow_fbb_add_u8(b, 1, header_type);
    basalt_arrow_fbb_add_ref(b, 2, header);
    basalt_arrow_fbb_add_i64(b, 3, (int64_t)body_size(&w->wb));
    basalt_arrow_fb_ref msg = basalt_arrow_fbb_table_end(b);
    const uint8_t *fb;
    size_t fb_len;
    basalt_status st = basalt_arrow_fbb_finish(b, msg, &fb, &fb_len, err);
    if (st != BASALT_OK)
        return st;
    if (w->messages)
        return record_message(w, fb, fb_len, err);
    size_t align = (size_t)w->o.alignment;
    int64_t offset = (int64_t)w->pos;
    size_t padded = fb_len + (align - ((w->pos + 8 + fb_len) % align)) % align;
    uint8_t head[8];
    put64(head, 0xFFFFFFFFu | (uint64_t)padded << 32);
    static const uint8_t zeros[64];
    st = out_write(w, head, 8, err);
    if (st == BASALT_OK)
        st = out_write(w, fb, fb_len, err);
    if (st == BASALT_OK && padded > fb_len)
        st = out_write(w, zeros, padded - fb_len, err);
    if (st == BASALT_OK && w->wb.body.size)
        st = out_write(w, w->wb.body.data, w->wb.body.size, err);
    if (st != BASALT_OK || w->o.format != BASALT_IPC_FORMAT_FILE)
        return st;
    struct wblock *blocks =
        basalt_realloc(w->blocks[kind], (size_t)(w->n_blocks[kind] + 1) * sizeof *blocks);
    if (!blocks)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for footer blocks");
    w->blocks[kind] = blocks;
    blocks[w->n_blocks[kind]++] = (struct wblock){offset, (int32_t)(8 + padded),
                                                  (int64_t)w->wb.body.size};
    return BASALT_OK;
}

static struct wdict *find_wdict(struct basalt_ipc_writer *w, const struct ArrowSchema *node)
{
    for (int64_t i = 0; i < w->n_dicts; i++)
        if (w->dicts[i].node == node)
            return &w->dicts[i];
    return NULL;
}

static basalt_status write_dictionaries(struct basalt_ipc_writer *w, const struct ArrowSchema *s,
                                        const struct ArrowArray *a, int depth,
                                        struct basalt_error *err);

/* Serializes entries [start, start + len) of the dictionary of `a` into w->wb
 * (copied, compressed when the writer compresses) and, with `key`, its body,
 * nodes and buffers lists into `key` too: equal keys, equal entries. */
static basalt_status serialize_dictionary(struct basalt_ipc_writer *w, const struct ArrowSchema *s,
                                          const struct ArrowArray *a, int64_t start, int64_t len,
                                          int depth, struct basalt_buffer *key,
                                          struct basalt_error *err)
{
    wbody_clear(&w->wb);
    basalt_status st = write_array(w, s->dictionary, a->dictionary, start, len, depth + 1, err);
    if (st != BASALT_OK || !key)
        return st;
    key->size = 0;
    st = basalt_buffer_append(key, w->wb.body.data, w->wb.body.size, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(key, w->wb.nodes.data, w->wb.nodes.size, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(key, w->wb.buffers.data, w->wb.buffers.size, err);
    return st;
}

static bool same_bytes(const struct basalt_buffer *x, const struct basalt_buffer *y)
{
    return x->size == y->size && (x->size == 0 || memcmp(x->data, y->data, x->size) == 0);
}

/* Writes the DictionaryBatch of the body in w->wb: `delta` entries extend
 * the reader's dictionary, otherwise they replace it. */
static basalt_status emit_dictionary(struct basalt_ipc_writer *w, const struct wdict *d,
                                     int64_t length, bool delta, struct basalt_error *err)
{
    if (w->place) {
        /* Serialized (and compared) as copied bytes: placed whole, so the
         * records, relative to the body's start, hold as they are. */
        uint64_t at = 0;
        if (w->wb.body.size) {
            basalt_status st =
                w->place(w->place_ctx, w->wb.body.data, w->wb.body.size, false, &at, err);
            if (st != BASALT_OK)
                return st;
        }
        w->wb.placed = true;
        w->wb.placed_lo = at;
        w->wb.placed_end = at + w->wb.body.size;
    }
    struct basalt_arrow_fbb b;
    basalt_arrow_fbb_init(&b);
    basalt_arrow_fb_ref rb = record_batch_table(w, &b, length);
    basalt_arrow_fbb_table_start(&b);
    basalt_arrow_fbb_add_i64(&b, 0, d->id);
    basalt_arrow_fbb_add_ref(&b, 1, rb);
    basalt_arrow_fbb_add_u8(&b, 2, delta ? 1 : 0);
    basalt_arrow_fb_ref db = basalt_arrow_fbb_table_end(&b);
    basalt_status st = emit_message(w, &b, IPC_HEADER_DICTIONARY_BATCH, db, 0, err);
    basalt_arrow_fbb_reset(&b);
    return st;
}

/* Whether dictionaries of `values` go out as deltas: the flat types whose
 * deltas readers concatenate (ours: fixed width, bool, null, binary and
 * string), not nested, view or dictionary-encoded ones. */
static bool delta_type(const struct ArrowSchema *values)
{
    struct basalt_arrow_type t;
    if (values->dictionary || values->n_children > 0 ||
        basalt_arrow_type_parse(values->format, &t, NULL) != BASALT_OK)
        return false;
    switch (t.id) {
    case BASALT_ARROW_TYPE_NULL:
    case BASALT_ARROW_TYPE_BINARY:
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_LARGE_BINARY:
    case BASALT_ARROW_TYPE_LARGE_STRING: return true;
    case BASALT_ARROW_TYPE_BINARY_VIEW:
    case BASALT_ARROW_TYPE_STRING_VIEW: return false;
    default: return t.bit_width > 0;
    }
}

/* Sends the dictionary of `a` when the reader does not hold it already: as
 * a delta when it only appends entries to the one last sent (with
 * dictionary_deltas, for the types delta_type takes), else whole (a replacement after the first, which the
 * file format does not allow). */
static basalt_status write_dictionary(struct basalt_ipc_writer *w, const struct ArrowSchema *s,
                                      const struct ArrowArray *a, int depth,
                                      struct basalt_error *err)
{
    if (!a->dictionary || !a->dictionary->release)
        return basalt_error_set(err, BASALT_INVALID_ARG, "dictionary-encoded array without "
                                                         "its dictionary");
    /* Dictionaries inside the dictionary go first. */
    basalt_status st = write_dictionaries(w, s->dictionary, a->dictionary, depth + 1, err);
    if (st != BASALT_OK)
        return st;
    struct wdict *d = find_wdict(w, s);
    if (!d)
        return basalt_error_set(err, BASALT_INTERNAL, "dictionary field without an id");
    int64_t n = a->dictionary->length;
    st = serialize_dictionary(w, s, a, 0, n, depth, &d->next, err);
    if (st != BASALT_OK)
        return st;
    if (d->written && same_bytes(&d->next, &d->last))
        return BASALT_OK; /* unchanged: nothing to send */
    bool delta = false, whole_in_body = true; /* w->wb holds the serialization above */
    if (d->written && w->o.dictionary_deltas && n > d->length && delta_type(s->dictionary)) {
        /* d->last is the held dictionary serialized whole; the new one's
         * first d->length entries serialized alike compare with it. */
        struct basalt_buffer prefix = {0};
        st = serialize_dictionary(w, s, a, 0, d->length, depth, &prefix, err);
        delta = st == BASALT_OK && same_bytes(&prefix, &d->last);
        whole_in_body = false;
        basalt_buffer_reset(&prefix);
        if (st != BASALT_OK)
            return st;
    }
    if (d->written && !delta && w->o.format == BASALT_IPC_FORMAT_FILE)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "dictionary id %lld changes between batches other than by "
                                "appending entries: the file format allows no replacement",
                                (long long)d->id);
    if (!whole_in_body || delta)
        st = serialize_dictionary(w, s, a, delta ? d->length : 0, delta ? n - d->length : n,
                                  depth, NULL, err);
    if (st == BASALT_OK)
        st = emit_dictionary(w, d, delta ? n - d->length : n, delta, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_buffer held = d->last;
    d->last = d->next;
    d->next = held;
    d->length = n;
    d->written = true;
    return BASALT_OK;
}

static basalt_status write_dictionaries(struct basalt_ipc_writer *w, const struct ArrowSchema *s,
                                        const struct ArrowArray *a, int depth,
                                        struct basalt_error *err)
{
    if (depth > 64)
        return basalt_error_set(err, BASALT_LIMIT, "fields nested deeper than 64 levels");
    if (a->n_children != s->n_children)
        return basalt_error_set(err, BASALT_INVALID_ARG, "array does not fit its schema");
    for (int64_t i = 0; i < s->n_children; i++) {
        basalt_status st = write_dictionaries(w, s->children[i], a->children[i], depth + 1, err);
        if (st != BASALT_OK)
            return st;
    }
    if (s->dictionary)
        return write_dictionary(w, s, a, depth, err);
    return BASALT_OK;
}

/* ------------------------------------------------------------ API */

/* A writer to `out`, or with `out` NULL an encoder (message mode). */
static basalt_status writer_open(struct basalt_output *out, const struct ArrowSchema *schema,
                                 const struct basalt_ipc_write_options *options,
                                 struct basalt_ipc_writer **writer, struct basalt_error *err)
{
    if (writer)
        *writer = NULL;
    if (!schema || !schema->release || !writer)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc writer: NULL or released argument");
    struct basalt_ipc_write_options o;
    if (options)
        o = *options;
    else
        basalt_ipc_write_options_init(&o);
    if (o.alignment != 8 && o.alignment != 64)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc writer: alignment %d (8 or 64)",
                                o.alignment);
    if (o.compression != BASALT_CODEC_UNCOMPRESSED && o.compression != BASALT_CODEC_LZ4_FRAME &&
        o.compression != BASALT_CODEC_ZSTD)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "ipc writer: body compression %s (LZ4_FRAME or ZSTD)",
                                basalt_codec_name(o.compression));
    struct basalt_ipc_writer *w = basalt_calloc(1, sizeof *w);
    if (!w)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for an IPC writer");
    w->out = out;
    w->o = o;
    basalt_status st = BASALT_OK;
    if (!out) {
        w->messages = basalt_calloc(1, sizeof *w->messages);
        if (!w->messages) {
            basalt_free(w);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for an IPC encoder");
        }
    }
    st = basalt_arrow_schema_copy(schema, &w->schema, err);
    if (st == BASALT_OK && o.compression != BASALT_CODEC_UNCOMPRESSED)
        st = basalt_codec_new(o.compression, o.compression_level, &w->codec, err);
    if (st == BASALT_OK)
        st = basalt_arrow_ipc_schema_encode(&w->schema, &w->schema_message, err);
    /* The ids the encoder gave the dictionaries, read back from its message. */
    struct basalt_arrow_fb fb;
    struct basalt_arrow_fb_table msg, header;
    bool present;
    if (st == BASALT_OK)
        st = basalt_arrow_fb_init(&fb, w->schema_message.data + 8, w->schema_message.size - 8,
                                  err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_root(&fb, &msg, err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_table_field(&msg, 2, &header, &present, err);
    if (st == BASALT_OK)
        st = basalt_ipc_dicts_from_schema(&header, &w->schema, &w->ids, err);
    if (st == BASALT_OK && w->ids.n) {
        w->dicts = basalt_calloc((size_t)w->ids.n, sizeof *w->dicts);
        if (!w->dicts)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory for dictionaries");
        for (int64_t i = 0; st == BASALT_OK && i < w->ids.n; i++) {
            w->dicts[i].node = w->ids.slots[i].node;
            w->dicts[i].id = w->ids.slots[i].id;
        }
        if (w->dicts)
            w->n_dicts = w->ids.n;
    }
    if (st == BASALT_OK && out && o.format == BASALT_IPC_FORMAT_FILE)
        st = out_write(w, ipc_file_magic, 8, err);
    if (st == BASALT_OK && out)
        st = out_write(w, w->schema_message.data, w->schema_message.size, err);
    if (st != BASALT_OK) {
        basalt_ipc_writer_free(w);
        return st;
    }
    *writer = w;
    return BASALT_OK;
}

basalt_status basalt_ipc_writer_open(struct basalt_output *out, const struct ArrowSchema *schema,
                                     const struct basalt_ipc_write_options *options,
                                     struct basalt_ipc_writer **writer, struct basalt_error *err)
{
    if (!out) {
        if (writer)
            *writer = NULL;
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc writer: NULL output");
    }
    return writer_open(out, schema, options, writer, err);
}

basalt_status basalt_ipc_writer_write(struct basalt_ipc_writer *w, const struct ArrowArray *batch,
                                      struct basalt_error *err)
{
    if (!w || !batch || !batch->release || w->finished)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc writer: released batch or "
                                                         "finished writer");
    if (batch->n_children != w->schema.n_children)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "ipc writer: batch of %lld columns for %lld fields",
                                (long long)batch->n_children, (long long)w->schema.n_children);
    basalt_status st = write_dictionaries(w, &w->schema, batch, 0, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "ipc writer");
    wbody_clear(&w->wb);
    /* Message mode references the batch's buffers, unless they get compressed. */
    w->wb.by_ref = w->messages && !w->codec;
    w->wb.placed = w->place != NULL;
    for (int64_t i = 0; i < w->schema.n_children && st == BASALT_OK; i++) {
        const struct ArrowArray *c = batch->children[i];
        if (c->length < batch->offset + batch->length)
            st = basalt_error_set(err, BASALT_INVALID_ARG, "column %lld shorter than the batch",
                                  (long long)i);
        else
            st = write_array(w, w->schema.children[i], c, batch->offset, batch->length, 1, err);
        if (st != BASALT_OK)
            st = basalt_error_context(err, st, "field '%s'",
                                      w->schema.children[i]->name ? w->schema.children[i]->name
                                                                  : "");
    }
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "ipc writer");
    if (w->wb.placed)
        rebase_placed(&w->wb);
    struct basalt_arrow_fbb b;
    basalt_arrow_fbb_init(&b);
    basalt_arrow_fb_ref rb = record_batch_table(w, &b, batch->length);
    st = emit_message(w, &b, IPC_HEADER_RECORD_BATCH, rb, 1, err);
    basalt_arrow_fbb_reset(&b);
    w->wb.by_ref = false;
    w->wb.placed = false;
    return st;
}

static basalt_status write_footer(struct basalt_ipc_writer *w, struct basalt_error *err)
{
    struct basalt_arrow_fbb b;
    basalt_arrow_fbb_init(&b);
    /* The footer's Schema table is the one inside the schema message,
     * copied whole: flatbuffer offsets are relative, so the bytes stay
     * valid wherever they sit (8-byte aligned). */
    const uint8_t *msg = w->schema_message.data + 8;
    size_t msg_len = w->schema_message.size - 8;
    struct basalt_arrow_fb fb;
    struct basalt_arrow_fb_table root, schema;
    bool present;
    basalt_status st = basalt_arrow_fb_init(&fb, msg, msg_len, err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_root(&fb, &root, err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_table_field(&root, 2, &schema, &present, err);
    if (st != BASALT_OK)
        return st;
    basalt_arrow_fb_ref blob = basalt_arrow_fbb_bytes_vector(&b, msg, 1, msg_len, 8);
    /* blob is the ref of the count; the bytes start 4 later. */
    basalt_arrow_fb_ref schema_ref = blob - 4 - schema.pos;
    basalt_arrow_fb_ref vecs[2];
    for (int k = 0; k < 2; k++) {
        uint8_t *raw = basalt_calloc((size_t)(w->n_blocks[k] ? w->n_blocks[k] : 1), 24);
        if (!raw) {
            basalt_arrow_fbb_reset(&b);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for the footer");
        }
        for (int64_t i = 0; i < w->n_blocks[k]; i++) {
            put64(raw + 24 * i, (uint64_t)w->blocks[k][i].offset);
            uint8_t *p = raw + 24 * i + 8;
            uint32_t ml = (uint32_t)w->blocks[k][i].metadata_length;
            p[0] = (uint8_t)ml;
            p[1] = (uint8_t)(ml >> 8);
            p[2] = (uint8_t)(ml >> 16);
            p[3] = (uint8_t)(ml >> 24);
            put64(raw + 24 * i + 16, (uint64_t)w->blocks[k][i].body_length);
        }
        vecs[k] = basalt_arrow_fbb_bytes_vector(&b, raw, 24, (size_t)w->n_blocks[k], 8);
        basalt_free(raw);
    }
    basalt_arrow_fbb_table_start(&b);
    basalt_arrow_fbb_add_i16(&b, 0, IPC_METADATA_V5);
    basalt_arrow_fbb_add_ref(&b, 1, schema_ref);
    basalt_arrow_fbb_add_ref(&b, 2, vecs[0]);
    basalt_arrow_fbb_add_ref(&b, 3, vecs[1]);
    basalt_arrow_fb_ref footer = basalt_arrow_fbb_table_end(&b);
    const uint8_t *data;
    size_t len;
    st = basalt_arrow_fbb_finish(&b, footer, &data, &len, err);
    if (st == BASALT_OK)
        st = out_write(w, data, len, err);
    uint8_t tail[10];
    tail[0] = (uint8_t)len;
    tail[1] = (uint8_t)(len >> 8);
    tail[2] = (uint8_t)(len >> 16);
    tail[3] = (uint8_t)(len >> 24);
    memcpy(tail + 4, ipc_file_magic, 6);
    if (st == BASALT_OK)
        st = out_write(w, tail, 10, err);
    basalt_arrow_fbb_reset(&b);
    return st;
}

basalt_status basalt_ipc_writer_finish(struct basalt_ipc_writer *w, struct basalt_error *err)
{
    if (!w || w->finished)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc writer: already finished");
    w->finished = true;
    static const uint8_t eos[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
    basalt_status st = out_write(w, eos, 8, err);
    if (st == BASALT_OK && w->o.format == BASALT_IPC_FORMAT_FILE) {
        st = out_pad(w, 8, err);
        if (st == BASALT_OK)
            st = write_footer(w, err);
    }
    return st;
}

void basalt_ipc_writer_free(struct basalt_ipc_writer *w)
{
    if (!w)
        return;
    basalt_arrow_schema_release(&w->schema);
    basalt_buffer_reset(&w->schema_message);
    basalt_codec_free(w->codec);
    /* The slots point into w->schema and hold no dictionaries. */
    basalt_free(w->ids.slots);
    for (int64_t i = 0; i < w->n_dicts; i++) {
        basalt_buffer_reset(&w->dicts[i].last);
        basalt_buffer_reset(&w->dicts[i].next);
    }
    basalt_free(w->dicts);
    basalt_free(w->blocks[0]);
    basalt_free(w->blocks[1]);
    wbody_reset(&w->wb);
    basalt_buffer_reset(&w->scratch);
    if (w->messages) {
        struct wmessages *m = w->messages;
        basalt_buffer_reset(&m->owned);
        basalt_free(m->pieces);
        basalt_free(m->msgs);
        basalt_free(m->out_pieces);
        basalt_free(m->out_msgs);
        basalt_free(m);
    }
    basalt_free(w);
}

basalt_status basalt_ipc_write_stream(struct ArrowArrayStream *stream, struct basalt_output *out,
                                      const struct basalt_ipc_write_options *options,
                                      struct basalt_error *err)
{
    if (!stream || !stream->release)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc write: released stream");
    struct ArrowSchema schema;
    schema.release = NULL;
    struct basalt_ipc_writer *w = NULL;
    basalt_status st = BASALT_OK;
    if (stream->get_schema(stream, &schema) != 0)
        st = basalt_error_set(err, BASALT_IO, "ipc write: stream schema: %s",
                              stream->get_last_error(stream) ? stream->get_last_error(stream)
                                                             : "(no message)");
    if (st == BASALT_OK)
        st = basalt_ipc_writer_open(out, &schema, options, &w, err);
    while (st == BASALT_OK) {
        struct ArrowArray batch;
        batch.release = NULL;
        if (stream->get_next(stream, &batch) != 0) {
            const char *m = stream->get_last_error(stream);
            st = basalt_error_set(err, BASALT_IO, "ipc write: stream: %s", m ? m : "(no message)");
            break;
        }
        if (!batch.release)
            break;
        st = basalt_ipc_writer_write(w, &batch, err);
        basalt_arrow_array_release(&batch);
    }
    if (st == BASALT_OK)
        st = basalt_ipc_writer_finish(w, err);
    basalt_ipc_writer_free(w);
    basalt_arrow_schema_release(&schema);
    basalt_arrow_stream_release(stream);
    return st;
}

/* ------------------------------------------------------------ encoder
 *
 * The encoder is a writer without an output: each batch's messages are
 * listed (wmessages) instead of written, and its buffers are referenced
 * rather than copied, so that a transport can send them straight from the
 * batch's memory. */

struct basalt_ipc_encoder {
    struct basalt_ipc_writer *w;
};

basalt_status basalt_ipc_encoder_new(const struct ArrowSchema *schema,
                                     const struct basalt_ipc_write_options *options,
                                     struct basalt_ipc_encoder **out, struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc encoder: NULL out");
    if (options && options->format != BASALT_IPC_FORMAT_STREAM)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc encoder: messages are the stream format");
    struct basalt_ipc_encoder *e = basalt_calloc(1, sizeof *e);
    if (!e)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for an IPC encoder");
    basalt_status st = writer_open(NULL, schema, options, &e->w, err);
    if (st != BASALT_OK) {
        basalt_free(e);
        return st;
    }
    *out = e;
    return BASALT_OK;
}

void basalt_ipc_encoder_free(struct basalt_ipc_encoder *e)
{
    if (!e)
        return;
    basalt_ipc_writer_free(e->w);
    basalt_free(e);
}

void basalt_ipc_encoder_schema(const struct basalt_ipc_encoder *e, struct basalt_ipc_message *out)
{
    /* schema_message is framed: continuation, length, flatbuffer (padded). */
    const struct basalt_buffer *sm = &e->w->schema_message;
    *out = (struct basalt_ipc_message){sm->data + 8, sm->size - 8, NULL, 0, 0, 0};
}

/* Turns the recorded messages into the public views, now that the owned
 * bytes no longer move. */
static basalt_status resolve_messages(struct wmessages *m, struct basalt_error *err)
{
    if (m->n_pieces > m->cap_out_pieces) {
        struct basalt_ipc_piece *p = basalt_realloc(m->out_pieces, m->n_pieces * sizeof *p);
        if (!p)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for message pieces");
        m->out_pieces = p;
        m->cap_out_pieces = m->n_pieces;
    }
    if (m->n_msgs > m->cap_out_msgs) {
        struct basalt_ipc_message *p = basalt_realloc(m->out_msgs, m->n_msgs * sizeof *p);
        if (!p)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for messages");
        m->out_msgs = p;
        m->cap_out_msgs = m->n_msgs;
    }
    for (size_t i = 0; i < m->n_pieces; i++) {
        const struct wpiece *p = &m->pieces[i];
        m->out_pieces[i] = (struct basalt_ipc_piece){p->owned ? m->owned.data + p->owned_at : p->data,
                                                     p->len};
    }
    for (size_t i = 0; i < m->n_msgs; i++) {
        const struct wmessage *g = &m->msgs[i];
        m->out_msgs[i] = (struct basalt_ipc_message){m->owned.data + g->metadata_at, g->metadata_len,
                                                     m->out_pieces + g->first_piece, g->n_pieces,
                                                     g->body_len, g->body_offset};
    }
    return BASALT_OK;
}

basalt_status basalt_ipc_encoder_batch_placed(struct basalt_ipc_encoder *e,
                                              const struct ArrowArray *batch,
                                              basalt_ipc_place_fn place, void *ctx,
                                              const struct basalt_ipc_message **msgs, size_t *n,
                                              struct basalt_error *err)
{
    if (msgs)
        *msgs = NULL;
    if (n)
        *n = 0;
    if (!e || !place)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc encoder: NULL argument");
    if (e->w->codec)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "ipc encoder: placed buffers cannot be compressed");
    e->w->place = place;
    e->w->place_ctx = ctx;
    basalt_status st = basalt_ipc_encoder_batch(e, batch, msgs, n, err);
    e->w->place = NULL;
    e->w->place_ctx = NULL;
    return st;
}

basalt_status basalt_ipc_encoder_batch(struct basalt_ipc_encoder *e, const struct ArrowArray *batch,
                                       const struct basalt_ipc_message **msgs, size_t *n,
                                       struct basalt_error *err)
{
    if (msgs)
        *msgs = NULL;
    if (n)
        *n = 0;
    if (!e || !msgs || !n)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc encoder: NULL argument");
    struct wmessages *m = e->w->messages;
    m->owned.size = 0;
    m->n_pieces = m->n_msgs = m->sealed = 0;
    basalt_status st = basalt_ipc_writer_write(e->w, batch, err);
    if (st == BASALT_OK)
        st = resolve_messages(m, err);
    if (st != BASALT_OK)
        return st;
    *msgs = m->out_msgs;
    *n = m->n_msgs;
    return BASALT_OK;
}
