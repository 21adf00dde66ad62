/* The IPC reader: message framing, the stream and file formats, the
 * dictionaries, and the ArrowArrayStream over a reader. */
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ipc_internal.h"

static const uint8_t ipc_magic[6] = {'A', 'R', 'R', 'O', 'W', '1'};

struct ipc_block {
    int64_t offset;
    int32_t metadata_length;
    int64_t body_length;
};

struct basalt_ipc_reader {
    struct basalt_input *in;     /* owned through in_owner */
    struct ipc_owner *in_owner;
    const uint8_t *view;         /* the whole input in memory, or NULL */
    uint64_t size;
    struct basalt_ipc_read_options options;
    enum basalt_ipc_format format;
    struct ArrowSchema schema;
    bool big_endian;
    int16_t version;
    struct ipc_dicts dicts;
    struct basalt_ipc_read_stats stats;
    struct basalt_buffer meta;   /* message metadata when there is no view */
    struct basalt_codec *codecs[2]; /* LZ4_FRAME, ZSTD, made on first use */
    /* Sequential reading. */
    uint64_t pos;
    int64_t message_index;
    int64_t batch_index;
    bool done;
    /* File format. */
    struct ipc_block *batches;
    int64_t n_batches;
    /* Fed by basalt_ipc_reader_push_message: buffers left in the pushed
     * bodies are zero-copy. */
    bool pushed;
};

void basalt_ipc_read_options_init(struct basalt_ipc_read_options *options)
{
    memset(options, 0, sizeof *options);
    options->use_mmap = true;
    options->max_metadata_size = 64 << 20;
    options->max_body_size = (int64_t)16 << 30;
    options->max_depth = 64;
}

/* One framed message: its flatbuffer and body. */
struct ipc_message {
    bool eos;
    const uint8_t *meta;
    uint32_t meta_len;
    uint8_t header_type;
    struct basalt_arrow_fb fb;
    struct basalt_arrow_fb_table header;
    int16_t version;
    const uint8_t *body;
    uint64_t body_len;
    struct ipc_owner *body_owner; /* a reference the caller drops */
    /* Arrow 0.17 marked compressed bodies in the message's custom metadata
     * (ARROW:experimental_compression = LZ4 or ZSTD): 0 LZ4_FRAME, 1 ZSTD,
     * -1 none. */
    int experimental_codec;
    uint64_t end;                 /* position after the body */
};

static basalt_status read_bytes(struct basalt_ipc_reader *r, uint64_t pos, uint64_t len,
                                void *dst, struct basalt_error *err)
{
    if (pos > r->size || len > r->size - pos)
        return basalt_error_set(err, BASALT_CORRUPT, "%llu bytes at %llu pass the end (%llu)",
                                (unsigned long long)len, (unsigned long long)pos,
                                (unsigned long long)r->size);
    if (r->view) {
        memcpy(dst, r->view + pos, (size_t)len);
        return BASALT_OK;
    }
    return basalt_input_read_at(r->in, pos, len, dst, err);
}

/* Maps the pages of a body about to be read in one call rather than one
 * fault per page (on a fresh mapping of a cached file, faults cost three
 * times the reading); a hint, for mapped files and memory alike. */
static void populate(const uint8_t *p, size_t len)
{
#if defined(MADV_POPULATE_READ)
    static long page;
    if (!page)
        page = sysconf(_SC_PAGESIZE);
    if (len < (size_t)page * 16)
        return;
    uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(page - 1);
    madvise((void *)lo, (uintptr_t)p + len - lo, MADV_POPULATE_READ);
#else
    (void)p;
    (void)len;
#endif
}

/* Parses the flatbuffer of `m` (m->meta, m->meta_len): version, header,
 * body length, the experimental compression marker. */
static basalt_status parse_message(struct ipc_message *m, int64_t *body_len_out,
                                   struct basalt_error *err)
{
    basalt_status st;
    struct basalt_arrow_fb_table message;
    st = basalt_arrow_fb_init(&m->fb, m->meta, m->meta_len, err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_root(&m->fb, &message, err);
    int64_t body_len = 0;
    bool present = false;
    if (st == BASALT_OK)
        st = basalt_arrow_fb_i16(&message, 0, 0, &m->version, err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_u8(&message, 1, 0, &m->header_type, err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_table_field(&message, 2, &m->header, &present, err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_i64(&message, 3, 0, &body_len, err);
    if (st != BASALT_OK)
        return st;
    if (!present)
        return basalt_error_set(err, BASALT_CORRUPT, "message without a header");
    m->experimental_codec = -1;
    struct basalt_arrow_fb_vector md;
    bool has_md;
    st = basalt_arrow_fb_vector_field(&message, 4, 4, &md, &has_md, err);
    for (uint32_t i = 0; st == BASALT_OK && i < md.count; i++) {
        struct basalt_arrow_fb_table kv;
        const char *key = NULL, *value = NULL;
        uint32_t klen = 0, vlen = 0;
        bool kp = false, vp = false;
        st = basalt_arrow_fb_vector_table(&md, i, &kv, err);
        if (st == BASALT_OK)
            st = basalt_arrow_fb_string(&kv, 0, &key, &klen, &kp, err);
        if (st == BASALT_OK)
            st = basalt_arrow_fb_string(&kv, 1, &value, &vlen, &vp, err);
        if (st == BASALT_OK && kp && vp && klen == 30 &&
            !memcmp(key, "ARROW:experimental_compression", 30)) {
            if (vlen == 3 && !memcmp(value, "LZ4", 3))
                m->experimental_codec = 0;
            else if (vlen == 4 && !memcmp(value, "ZSTD", 4))
                m->experimental_codec = 1;
            else
                st = basalt_error_set(err, BASALT_UNSUPPORTED, "experimental compression '%.*s'",
                                      (int)(vlen > 32 ? 32 : vlen), value);
        }
    }
    if (st != BASALT_OK)
        return st;
    if (m->version < IPC_METADATA_V4 || m->version > IPC_METADATA_V5)
        return basalt_error_set(err, m->version < IPC_METADATA_V4 ? BASALT_UNSUPPORTED
                                                                  : BASALT_CORRUPT,
                                "metadata version V%d", (int)m->version + 1);
    *body_len_out = body_len;
    return BASALT_OK;
}

/* Reads the message at `pos`. End of stream: the 0xFFFFFFFF 0 marker, a
 * legacy 0 length, or (when `end_ok`) the end of the input. */
static basalt_status read_message(struct basalt_ipc_reader *r, uint64_t pos, bool end_ok,
                                  struct ipc_message *m, struct basalt_error *err)
{
    memset(m, 0, sizeof *m);
    if (pos >= r->size || (end_ok && r->size - pos < 4)) {
        if (end_ok) {
            m->eos = true;
            return BASALT_OK;
        }
        return basalt_error_set(err, BASALT_CORRUPT, "no message at %llu",
                                (unsigned long long)pos);
    }
    uint8_t head[8];
    uint64_t avail = r->size - pos;
    basalt_status st = read_bytes(r, pos, avail < 8 ? avail : 8, head, err);
    if (st != BASALT_OK)
        return st;
    uint32_t word = basalt_arrow_fb_u32(head);
    uint64_t prefix = 4;
    int32_t len;
    if (word == 0xFFFFFFFFu) {
        if (avail < 8) {
            if (end_ok) {
                m->eos = true;
                return BASALT_OK;
            }
            return basalt_error_set(err, BASALT_CORRUPT, "continuation marker without a length");
        }
        len = (int32_t)basalt_arrow_fb_u32(head + 4);
        prefix = 8;
    } else {
        len = (int32_t)word; /* before Arrow 0.15: no continuation marker */
    }
    if (len == 0) {
        m->eos = true;
        m->end = pos + prefix;
        return BASALT_OK;
    }
    if (len < 0)
        return basalt_error_set(err, BASALT_CORRUPT, "message length %d", (int)len);
    if (len > r->options.max_metadata_size)
        return basalt_error_set(err, BASALT_LIMIT, "message metadata of %d bytes over the limit",
                                (int)len);
    if ((uint64_t)len > avail - prefix)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "message of %d bytes but %llu bytes remain", (int)len,
                                (unsigned long long)(avail - prefix));
    uint64_t meta_pos = pos + prefix;
    if (r->view) {
        m->meta = r->view + meta_pos;
    } else {
        r->meta.size = 0;
        st = basalt_buffer_resize(&r->meta, (size_t)len, err);
        if (st == BASALT_OK)
            st = basalt_input_read_at(r->in, meta_pos, (uint64_t)len, r->meta.data, err);
        if (st != BASALT_OK)
            return st;
        m->meta = r->meta.data;
    }
    m->meta_len = (uint32_t)len;
    int64_t body_len = 0;
    st = parse_message(m, &body_len, err);
    if (st != BASALT_OK)
        return st;
    uint64_t body_pos = meta_pos + (uint64_t)len;
    if (body_len < 0 || (uint64_t)body_len > r->size - body_pos)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "message body of %lld bytes but %llu bytes remain",
                                (long long)body_len, (unsigned long long)(r->size - body_pos));
    if (body_len > r->options.max_body_size)
        return basalt_error_set(err, BASALT_LIMIT, "message body of %lld bytes over the limit",
                                (long long)body_len);
    m->body_len = (uint64_t)body_len;
    m->end = body_pos + (uint64_t)body_len;
    if (m->header_type == IPC_HEADER_SCHEMA)
        return BASALT_OK;
    if (r->view) {
        m->body = r->view + body_pos;
        populate(m->body, (size_t)body_len);
        m->body_owner = r->in_owner;
        basalt_ipc_owner_ref(r->in_owner);
    } else {
        uint8_t *data;
        m->body_owner = basalt_ipc_blob_new((size_t)body_len, &data);
        if (!m->body_owner)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for a body of %lld bytes",
                                    (long long)body_len);
        st = basalt_input_read_at(r->in, body_pos, (uint64_t)body_len, data, err);
        if (st != BASALT_OK) {
            basalt_ipc_owner_unref(m->body_owner);
            m->body_owner = NULL;
            return st;
        }
        m->body = data;
    }
    return BASALT_OK;
}

static const char *header_name(uint8_t type)
{
    switch (type) {
    case IPC_HEADER_SCHEMA: return "schema";
    case IPC_HEADER_DICTIONARY_BATCH: return "dictionary batch";
    case IPC_HEADER_RECORD_BATCH: return "record batch";
    case IPC_HEADER_TENSOR: return "tensor";
    case IPC_HEADER_SPARSE_TENSOR: return "sparse tensor";
    default: return "unknown header";
    }
}

static basalt_status get_codec(struct basalt_ipc_reader *r, const struct ipc_message *m,
                               const struct basalt_arrow_fb_table *rb, struct basalt_codec **out,
                               struct basalt_error *err)
{
    *out = NULL;
    struct basalt_arrow_fb_table comp;
    bool present;
    basalt_status st = basalt_arrow_fb_table_field(rb, 3, &comp, &present, err);
    if (st != BASALT_OK)
        return st;
    uint8_t codec = 0, method = 0;
    if (!present) {
        if (m->experimental_codec < 0)
            return BASALT_OK;
        codec = (uint8_t)m->experimental_codec;
    } else {
        st = basalt_arrow_fb_u8(&comp, 0, 0, &codec, err);
        if (st == BASALT_OK)
            st = basalt_arrow_fb_u8(&comp, 1, 0, &method, err);
        if (st != BASALT_OK)
            return st;
    }
    if (codec > 1)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "body compression codec %u",
                                (unsigned)codec);
    if (method != 0)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "body compression method %u",
                                (unsigned)method);
    if (!r->codecs[codec]) {
        st = basalt_codec_new(codec == 0 ? BASALT_CODEC_LZ4_FRAME : BASALT_CODEC_ZSTD,
                              BASALT_CODEC_LEVEL_DEFAULT, &r->codecs[codec], err);
        if (st != BASALT_OK)
            return st;
    }
    *out = r->codecs[codec];
    return BASALT_OK;
}

static void load_ctx_init(struct basalt_ipc_reader *r, const struct ipc_message *m,
                          struct ipc_load_ctx *ctx)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->options = &r->options;
    ctx->stats = &r->stats;
    ctx->dicts = &r->dicts;
    ctx->body = m->body;
    ctx->body_len = m->body_len;
    ctx->owner = m->body_owner;
    ctx->zero_copy_counts = r->view != NULL || r->pushed;
    ctx->swap = r->big_endian;
    ctx->version = m->version;
}

static basalt_status apply_dictionary(struct basalt_ipc_reader *r, const struct ipc_message *m,
                                      struct basalt_error *err)
{
    int64_t id;
    bool delta, present;
    struct basalt_arrow_fb_table data;
    basalt_status st = basalt_arrow_fb_i64(&m->header, 0, 0, &id, err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_table_field(&m->header, 1, &data, &present, err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_bool(&m->header, 2, false, &delta, err);
    if (st != BASALT_OK)
        return st;
    if (!present)
        return basalt_error_set(err, BASALT_CORRUPT, "dictionary batch without data");
    struct ipc_dict_slot *slot = NULL;
    for (int64_t i = 0; i < r->dicts.n && !slot; i++)
        if (r->dicts.slots[i].id == id)
            slot = &r->dicts.slots[i];
    if (!slot)
        return basalt_error_set(err, BASALT_CORRUPT, "dictionary id %lld is not in the schema",
                                (long long)id);
    struct ipc_load_ctx ctx;
    load_ctx_init(r, m, &ctx);
    st = get_codec(r, m, &data, &ctx.codec, err);
    if (st != BASALT_OK)
        return st;
    const struct ArrowSchema *value_schema = slot->node->dictionary;
    struct ArrowArray arr;
    st = basalt_ipc_load_dictionary(&ctx, &data, value_schema, &arr, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "dictionary id %lld", (long long)id);
    if (delta) {
        if (!slot->current) {
            basalt_arrow_array_release(&arr);
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "dictionary id %lld: delta before any dictionary",
                                    (long long)id);
        }
        struct ArrowArray merged;
        st = basalt_ipc_array_concat(value_schema, basalt_ipc_dict_owner_array(slot->current),
                                     &arr, &merged, err);
        basalt_arrow_array_release(&arr);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "dictionary id %lld", (long long)id);
        basalt_arrow_array_move(&merged, &arr);
        r->stats.dictionary_deltas++;
    }
    struct ipc_owner *owner = basalt_ipc_dict_owner_new(&arr);
    if (!owner)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a dictionary");
    /* Replacement (or delta result) for every field sharing the id. */
    for (int64_t i = 0; i < r->dicts.n; i++) {
        if (r->dicts.slots[i].id != id)
            continue;
        basalt_ipc_owner_unref(r->dicts.slots[i].current);
        basalt_ipc_owner_ref(owner);
        r->dicts.slots[i].current = owner;
    }
    basalt_ipc_owner_unref(owner);
    r->stats.dictionary_batches++;
    return BASALT_OK;
}

static basalt_status decode_batch(struct basalt_ipc_reader *r, const struct ipc_message *m,
                                  struct ArrowArray *out, struct basalt_error *err)
{
    struct ipc_load_ctx ctx;
    load_ctx_init(r, m, &ctx);
    basalt_status st = get_codec(r, m, &m->header, &ctx.codec, err);
    if (st == BASALT_OK)
        st = basalt_ipc_load_record_batch(&ctx, &m->header, &r->schema, out, err);
    if (st == BASALT_OK)
        r->stats.record_batches++;
    return st;
}

/* The context every error of a message gets: "message 3 (record batch 1)". */
static basalt_status message_context(struct basalt_ipc_reader *r, basalt_status st,
                                     int64_t index, const struct ipc_message *m,
                                     struct basalt_error *err)
{
    if (m && m->header_type)
        return basalt_error_context(err, st, "%s: message %lld (%s)", r->in->name,
                                    (long long)index, header_name(m->header_type));
    return basalt_error_context(err, st, "%s: message %lld", r->in->name, (long long)index);
}

/* Handles one non-schema message; a record batch lands in `out`. */
static basalt_status handle_message(struct basalt_ipc_reader *r, const struct ipc_message *m,
                                    struct ArrowArray *out, bool *got_batch,
                                    struct basalt_error *err)
{
    *got_batch = false;
    r->stats.messages++;
    switch (m->header_type) {
    case IPC_HEADER_DICTIONARY_BATCH: return apply_dictionary(r, m, err);
    case IPC_HEADER_RECORD_BATCH: {
        basalt_status st = decode_batch(r, m, out, err);
        *got_batch = st == BASALT_OK;
        return st;
    }
    case IPC_HEADER_SCHEMA:
        return basalt_error_set(err, BASALT_CORRUPT, "a second schema message");
    case IPC_HEADER_TENSOR:
    case IPC_HEADER_SPARSE_TENSOR:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "%s messages",
                                header_name(m->header_type));
    default:
        return basalt_error_set(err, BASALT_CORRUPT, "message header type %u",
                                (unsigned)m->header_type);
    }
}

/* The reader's schema and dictionary ids from the schema message `m`. */
static basalt_status take_schema(struct basalt_ipc_reader *r, const struct ipc_message *m,
                                 struct basalt_error *err)
{
    struct basalt_arrow_ipc_schema_info info;
    basalt_status st =
        basalt_arrow_ipc_schema_decode_message(m->meta, m->meta_len, &r->schema, &info, err);
    if (st == BASALT_OK) {
        r->big_endian = info.big_endian;
        r->version = info.metadata_version;
        st = basalt_ipc_dicts_from_schema(&m->header, &r->schema, &r->dicts, err);
    }
    return st;
}

static basalt_status read_schema(struct basalt_ipc_reader *r, uint64_t pos,
                                 struct basalt_error *err)
{
    struct ipc_message m;
    basalt_status st = read_message(r, pos, false, &m, err);
    if (st == BASALT_OK && (m.eos || m.header_type != IPC_HEADER_SCHEMA))
        st = basalt_error_set(err, BASALT_CORRUPT, "the first message is %s, not a schema",
                              m.eos ? "the end of the stream" : header_name(m.header_type));
    if (st == BASALT_OK)
        st = take_schema(r, &m, err);
    basalt_ipc_owner_unref(m.body_owner);
    if (st != BASALT_OK)
        return message_context(r, st, 0, &m, err);
    r->pos = m.end;
    r->message_index = 1;
    r->stats.messages++;
    return BASALT_OK;
}

static basalt_status read_blocks(const struct basalt_arrow_fb_table *footer, unsigned id,
                                 struct ipc_block **out, int64_t *n, uint64_t size,
                                 struct basalt_error *err)
{
    struct basalt_arrow_fb_vector v;
    bool present;
    basalt_status st = basalt_arrow_fb_vector_field(footer, id, 24, &v, &present, err);
    if (st != BASALT_OK)
        return st;
    *out = basalt_calloc(v.count ? v.count : 1, sizeof **out);
    if (!*out)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for the footer");
    *n = v.count;
    for (uint32_t i = 0; i < v.count; i++) {
        const uint8_t *p = v.fb->data + v.pos + 24u * i;
        struct ipc_block *b = &(*out)[i];
        b->offset = (int64_t)basalt_arrow_fb_u64(p);
        b->metadata_length = (int32_t)basalt_arrow_fb_u32(p + 8);
        b->body_length = (int64_t)basalt_arrow_fb_u64(p + 16);
        if (b->offset < 8 || (uint64_t)b->offset >= size || b->metadata_length <= 0 ||
            b->body_length < 0)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "footer block %u: offset %lld, metadata %d, body %lld", i,
                                    (long long)b->offset, (int)b->metadata_length,
                                    (long long)b->body_length);
    }
    return BASALT_OK;
}

/* Decodes the footer's Schema table. The schema decoder reads a Message, so
 * the footer's bytes are wrapped in a new flatbuffer whose Message header
 * points at the Schema table inside them: flatbuffer offsets are relative,
 * so the copied bytes stay valid (8-byte aligned). */
static basalt_status footer_schema(struct basalt_ipc_reader *r,
                                   const struct basalt_arrow_fb_table *footer,
                                   struct basalt_error *err)
{
    int16_t version;
    struct basalt_arrow_fb_table schema;
    bool present;
    basalt_status st = basalt_arrow_fb_i16(footer, 0, 0, &version, err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_table_field(footer, 1, &schema, &present, err);
    if (st != BASALT_OK)
        return st;
    if (!present)
        return basalt_error_set(err, BASALT_CORRUPT, "footer without a schema");
    /* Writers before Arrow 0.15 left the footer's version unset (V1); each
     * message carries its own, which is what the body decoding uses. */
    if (version < IPC_METADATA_V4)
        version = IPC_METADATA_V4;
    if (version > IPC_METADATA_V5)
        return basalt_error_set(err, BASALT_CORRUPT, "footer metadata version V%d",
                                (int)version + 1);
    struct basalt_arrow_fbb b;
    basalt_arrow_fbb_init(&b);
    basalt_arrow_fb_ref blob =
        basalt_arrow_fbb_bytes_vector(&b, footer->fb->data, 1, footer->fb->len, 8);
    basalt_arrow_fbb_table_start(&b);
    basalt_arrow_fbb_add_i16(&b, 0, version);
    basalt_arrow_fbb_add_u8(&b, 1, IPC_HEADER_SCHEMA);
    basalt_arrow_fbb_add_ref(&b, 2, blob - 4 - schema.pos);
    basalt_arrow_fb_ref msg = basalt_arrow_fbb_table_end(&b);
    const uint8_t *data;
    size_t len;
    st = basalt_arrow_fbb_finish(&b, msg, &data, &len, err);
    struct basalt_arrow_ipc_schema_info info;
    if (st == BASALT_OK)
        st = basalt_arrow_ipc_schema_decode_message(data, len, &r->schema, &info, err);
    basalt_arrow_fbb_reset(&b);
    if (st != BASALT_OK)
        return st;
    r->big_endian = info.big_endian;
    r->version = version;
    r->message_index = 1;
    return basalt_ipc_dicts_from_schema(&schema, &r->schema, &r->dicts, err);
}

static basalt_status open_file_format(struct basalt_ipc_reader *r, struct basalt_error *err)
{
    if (r->size < 8 + 10 + 8)
        return basalt_error_set(err, BASALT_CORRUPT, "%s: %llu bytes is too short for an IPC file",
                                r->in->name, (unsigned long long)r->size);
    uint8_t tail[10];
    basalt_status st = read_bytes(r, r->size - 10, 10, tail, err);
    if (st != BASALT_OK)
        return st;
    if (memcmp(tail + 4, ipc_magic, 6) != 0)
        return basalt_error_set(err, BASALT_CORRUPT, "%s: no ARROW1 magic at the end",
                                r->in->name);
    int32_t flen = (int32_t)basalt_arrow_fb_u32(tail);
    if (flen <= 0 || (uint64_t)flen > r->size - 10 - 8)
        return basalt_error_set(err, BASALT_CORRUPT, "%s: footer length %d", r->in->name,
                                (int)flen);
    if (flen > r->options.max_metadata_size)
        return basalt_error_set(err, BASALT_LIMIT, "%s: footer of %d bytes over the limit",
                                r->in->name, (int)flen);
    struct basalt_buffer fbuf;
    basalt_buffer_init(&fbuf);
    st = basalt_buffer_resize(&fbuf, (size_t)flen, err);
    if (st == BASALT_OK)
        st = read_bytes(r, r->size - 10 - (uint64_t)flen, (uint64_t)flen, fbuf.data, err);
    struct basalt_arrow_fb fb;
    struct basalt_arrow_fb_table footer;
    if (st == BASALT_OK)
        st = basalt_arrow_fb_init(&fb, fbuf.data, fbuf.size, err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_root(&fb, &footer, err);
    struct ipc_block *dicts = NULL;
    int64_t n_dicts = 0;
    if (st == BASALT_OK)
        st = read_blocks(&footer, 2, &dicts, &n_dicts, r->size, err);
    if (st == BASALT_OK)
        st = read_blocks(&footer, 3, &r->batches, &r->n_batches, r->size, err);
    /* The schema is the footer's (some writers put no schema message in the
     * file's stream part). */
    if (st == BASALT_OK)
        st = footer_schema(r, &footer, err);
    basalt_buffer_reset(&fbuf);
    if (st != BASALT_OK) {
        basalt_free(dicts);
        return basalt_error_context(err, st, "%s: footer", r->in->name);
    }
    for (int64_t i = 0; i < n_dicts && st == BASALT_OK; i++) {
        struct ipc_message m;
        st = read_message(r, (uint64_t)dicts[i].offset, false, &m, err);
        if (st == BASALT_OK && (m.eos || m.header_type != IPC_HEADER_DICTIONARY_BATCH))
            st = basalt_error_set(err, BASALT_CORRUPT, "footer dictionary block is %s",
                                  m.eos ? "an end-of-stream marker" : header_name(m.header_type));
        if (st == BASALT_OK) {
            r->stats.messages++;
            st = apply_dictionary(r, &m, err);
        }
        basalt_ipc_owner_unref(m.body_owner);
        if (st != BASALT_OK)
            st = basalt_error_context(err, st, "%s: dictionary block %lld", r->in->name,
                                      (long long)i);
    }
    basalt_free(dicts);
    return st;
}

/* A reader over `in` (taken in every case) before any message is read. */
static basalt_status reader_new(struct basalt_input *in,
                                const struct basalt_ipc_read_options *options,
                                struct basalt_ipc_reader **out, struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (!in || !out) {
        basalt_input_close(in);
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc reader: NULL argument");
    }
    struct basalt_ipc_reader *r = basalt_calloc(1, sizeof *r);
    if (!r) {
        basalt_input_close(in);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for an IPC reader");
    }
    r->in_owner = basalt_ipc_input_owner_new(in);
    if (!r->in_owner) {
        basalt_free(r);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for an IPC reader");
    }
    r->in = in;
    r->view = basalt_input_view(in);
    r->size = in->size;
    r->schema.release = NULL;
    basalt_buffer_init(&r->meta);
    if (options)
        r->options = *options;
    else
        basalt_ipc_read_options_init(&r->options);
    if (r->options.max_depth <= 0 || r->options.max_depth > 64)
        r->options.max_depth = 64;
    *out = r;
    return BASALT_OK;
}

basalt_status basalt_ipc_reader_open(struct basalt_input *in,
                                     const struct basalt_ipc_read_options *options,
                                     struct basalt_ipc_reader **out, struct basalt_error *err)
{
    struct basalt_ipc_reader *r;
    basalt_status st = reader_new(in, options, out, err);
    if (st != BASALT_OK)
        return st;
    r = *out;
    *out = NULL;
    uint8_t head[6] = {0};
    if (r->size >= 6)
        st = read_bytes(r, 0, 6, head, err);
    if (st == BASALT_OK) {
        if (r->size >= 6 && memcmp(head, ipc_magic, 6) == 0) {
            r->format = BASALT_IPC_FORMAT_FILE;
            st = open_file_format(r, err);
        } else {
            r->format = BASALT_IPC_FORMAT_STREAM;
            st = read_schema(r, 0, err);
        }
    }
    if (st != BASALT_OK) {
        basalt_ipc_reader_close(r);
        return st;
    }
    *out = r;
    return BASALT_OK;
}

basalt_status basalt_ipc_reader_open_file(const char *path,
                                          const struct basalt_ipc_read_options *options,
                                          struct basalt_ipc_reader **out,
                                          struct basalt_error *err)
{
    if (out)
        *out = NULL;
    struct basalt_ipc_read_options defaults;
    if (!options) {
        basalt_ipc_read_options_init(&defaults);
        options = &defaults;
    }
    struct basalt_input *in;
    basalt_status st = basalt_input_open_file(path, options->use_mmap, &in, err);
    if (st != BASALT_OK)
        return st;
    return basalt_ipc_reader_open(in, options, out, err);
}

basalt_status basalt_ipc_reader_open_memory(const void *data, size_t len, const char *name,
                                            const struct basalt_ipc_read_options *options,
                                            struct basalt_ipc_reader **out,
                                            struct basalt_error *err)
{
    if (out)
        *out = NULL;
    static const uint8_t empty[1];
    struct basalt_input *in;
    basalt_status st =
        basalt_input_open_memory(data ? data : empty, data ? len : 0, name ? name : "memory",
                                 &in, err);
    if (st != BASALT_OK)
        return st;
    return basalt_ipc_reader_open(in, options, out, err);
}

void basalt_ipc_reader_close(struct basalt_ipc_reader *r)
{
    if (!r)
        return;
    basalt_arrow_schema_release(&r->schema);
    basalt_ipc_dicts_reset(&r->dicts);
    basalt_buffer_reset(&r->meta);
    basalt_codec_free(r->codecs[0]);
    basalt_codec_free(r->codecs[1]);
    basalt_free(r->batches);
    basalt_ipc_owner_unref(r->in_owner);
    basalt_free(r);
}

enum basalt_ipc_format basalt_ipc_reader_format(const struct basalt_ipc_reader *r)
{
    return r->format;
}

bool basalt_ipc_reader_big_endian(const struct basalt_ipc_reader *r)
{
    return r->big_endian;
}

basalt_status basalt_ipc_reader_schema(const struct basalt_ipc_reader *r, struct ArrowSchema *out,
                                       struct basalt_error *err)
{
    return basalt_arrow_schema_copy(&r->schema, out, err);
}

int64_t basalt_ipc_reader_num_batches(const struct basalt_ipc_reader *r)
{
    return r->format == BASALT_IPC_FORMAT_FILE ? r->n_batches : -1;
}

void basalt_ipc_reader_stats(const struct basalt_ipc_reader *r,
                             struct basalt_ipc_read_stats *stats)
{
    *stats = r->stats;
}

basalt_status basalt_ipc_reader_read_batch(struct basalt_ipc_reader *r, int64_t i,
                                           struct ArrowArray *out, struct basalt_error *err)
{
    out->release = NULL;
    if (r->format != BASALT_IPC_FORMAT_FILE || i < 0 || i >= r->n_batches)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: no record batch %lld",
                                r->in->name, (long long)i);
    struct ipc_message m;
    basalt_status st = read_message(r, (uint64_t)r->batches[i].offset, false, &m, err);
    if (st == BASALT_OK && (m.eos || m.header_type != IPC_HEADER_RECORD_BATCH))
        st = basalt_error_set(err, BASALT_CORRUPT, "footer record batch block is %s",
                              m.eos ? "an end-of-stream marker" : header_name(m.header_type));
    if (st == BASALT_OK) {
        r->stats.messages++;
        st = decode_batch(r, &m, out, err);
    }
    basalt_ipc_owner_unref(m.body_owner);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s: record batch %lld", r->in->name,
                                    (long long)i);
    return BASALT_OK;
}

basalt_status basalt_ipc_reader_next(struct basalt_ipc_reader *r, struct ArrowArray *out,
                                     struct basalt_error *err)
{
    out->release = NULL;
    if (r->format == BASALT_IPC_FORMAT_FILE) {
        if (r->batch_index >= r->n_batches)
            return BASALT_OK;
        return basalt_ipc_reader_read_batch(r, r->batch_index++, out, err);
    }
    while (!r->done) {
        struct ipc_message m;
        int64_t index = r->message_index;
        basalt_status st = read_message(r, r->pos, true, &m, err);
        if (st != BASALT_OK) {
            r->done = true;
            return message_context(r, st, index, NULL, err);
        }
        if (m.eos) {
            r->done = true;
            return BASALT_OK;
        }
        r->pos = m.end;
        r->message_index++;
        bool got = false;
        st = handle_message(r, &m, out, &got, err);
        basalt_ipc_owner_unref(m.body_owner);
        if (st != BASALT_OK) {
            r->done = true;
            if (m.header_type == IPC_HEADER_RECORD_BATCH)
                return basalt_error_context(err, st, "%s: message %lld (record batch %lld)",
                                            r->in->name, (long long)index,
                                            (long long)r->batch_index);
            return message_context(r, st, index, &m, err);
        }
        if (got) {
            r->batch_index++;
            return BASALT_OK;
        }
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------ stream */

struct ipc_stream_private {
    struct basalt_ipc_reader *reader;
    struct basalt_error err;
};

static int status_errno(basalt_status st)
{
    switch (st) {
    case BASALT_NOMEM: return ENOMEM;
    case BASALT_IO: return EIO;
    case BASALT_UNSUPPORTED: return ENOTSUP;
    default: return EINVAL;
    }
}

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct ipc_stream_private *p = s->private_data;
    basalt_status st = basalt_ipc_reader_schema(p->reader, out, &p->err);
    return st == BASALT_OK ? 0 : status_errno(st);
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    struct ipc_stream_private *p = s->private_data;
    basalt_status st = basalt_ipc_reader_next(p->reader, out, &p->err);
    return st == BASALT_OK ? 0 : status_errno(st);
}

static const char *stream_last_error(struct ArrowArrayStream *s)
{
    struct ipc_stream_private *p = s->private_data;
    return p->err.message;
}

static void stream_release(struct ArrowArrayStream *s)
{
    struct ipc_stream_private *p = s->private_data;
    basalt_ipc_reader_close(p->reader);
    basalt_free(p);
    s->release = NULL;
}

basalt_status basalt_ipc_reader_to_stream(struct basalt_ipc_reader *reader,
                                          struct ArrowArrayStream *out, struct basalt_error *err)
{
    out->release = NULL;
    struct ipc_stream_private *p = basalt_calloc(1, sizeof *p);
    if (!p) {
        basalt_ipc_reader_close(reader);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a stream");
    }
    p->reader = reader;
    basalt_error_init(&p->err);
    out->get_schema = stream_get_schema;
    out->get_next = stream_get_next;
    out->get_last_error = stream_last_error;
    out->release = stream_release;
    out->private_data = p;
    return BASALT_OK;
}

/* ------------------------------------------------------------ messages pushed
 *
 * A reader fed one message at a time by a transport that has already split
 * the stream (Arrow Flight): no input of its own. */

struct external_owner {
    struct ipc_owner base;
    void (*free_body)(void *ctx);
    void *ctx;
};

static void external_destroy(struct ipc_owner *owner)
{
    struct external_owner *e = (struct external_owner *)owner;
    if (e->free_body)
        e->free_body(e->ctx);
    basalt_free(e);
}

basalt_status basalt_ipc_reader_new_messages(const char *name,
                                             const struct basalt_ipc_read_options *options,
                                             struct basalt_ipc_reader **out,
                                             struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc reader: NULL out");
    *out = NULL;
    static const uint8_t empty[1];
    struct basalt_input *in;
    basalt_status st = basalt_input_open_memory(empty, 0, name ? name : "messages", &in, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_ipc_reader *r = basalt_calloc(1, sizeof *r);
    struct ipc_owner *owner = r ? basalt_ipc_input_owner_new(in) : NULL;
    if (!owner) {
        basalt_free(r);
        basalt_input_close(in);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for an IPC reader");
    }
    r->in = in;
    r->in_owner = owner;
    if (options)
        r->options = *options;
    else
        basalt_ipc_read_options_init(&r->options);
    r->format = BASALT_IPC_FORMAT_STREAM;
    r->pushed = true;
    *out = r;
    return BASALT_OK;
}

basalt_status basalt_ipc_reader_push_message(struct basalt_ipc_reader *r, const uint8_t *metadata,
                                             size_t metadata_len, const void *body,
                                             size_t body_len, void (*free_body)(void *ctx),
                                             void *ctx, struct ArrowArray *out,
                                             struct basalt_error *err)
{
    struct external_owner *owner = NULL;
    if (out)
        out->release = NULL;
    basalt_status st = BASALT_OK;
    if (!r || !out || (!metadata && metadata_len))
        st = basalt_error_set(err, BASALT_INVALID_ARG, "ipc reader: NULL argument");
    else if (metadata_len > (size_t)r->options.max_metadata_size)
        st = basalt_error_set(err, BASALT_LIMIT, "message metadata of %zu bytes over the limit",
                              metadata_len);
    else if (body_len > (uint64_t)r->options.max_body_size)
        st = basalt_error_set(err, BASALT_LIMIT, "message body of %zu bytes over the limit",
                              body_len);
    else if (!(owner = basalt_malloc(sizeof *owner)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st != BASALT_OK) {
        if (free_body)
            free_body(ctx);
        return st;
    }
    *owner = (struct external_owner){{1, external_destroy}, free_body, ctx};
    struct ipc_message m;
    memset(&m, 0, sizeof m);
    m.meta = metadata;
    m.meta_len = (uint32_t)metadata_len;
    int64_t declared = 0;
    int64_t index = r->message_index;
    st = parse_message(&m, &declared, err);
    /* The body a message declares must be what came with it; a transport
     * may pad the body it carries, never shorten it. */
    if (st == BASALT_OK && (declared < 0 || (uint64_t)declared > body_len))
        st = basalt_error_set(err, BASALT_CORRUPT, "message body of %lld bytes declared, %zu sent",
                              (long long)declared, body_len);
    if (st == BASALT_OK) {
        m.body = body;
        m.body_len = (uint64_t)declared;
        m.body_owner = &owner->base;
        r->message_index++;
        if (m.header_type == IPC_HEADER_SCHEMA) {
            if (r->schema.release)
                st = basalt_error_set(err, BASALT_CORRUPT, "a second schema message");
            else
                st = take_schema(r, &m, err);
            r->stats.messages++;
        } else if (!r->schema.release) {
            st = basalt_error_set(err, BASALT_CORRUPT, "the first message is %s, not a schema",
                                  header_name(m.header_type));
        } else {
            bool got;
            st = handle_message(r, &m, out, &got, err);
        }
    }
    basalt_ipc_owner_unref(&owner->base);
    if (st != BASALT_OK)
        return message_context(r, st, index, m.header_type ? &m : NULL, err);
    return BASALT_OK;
}
