/* The generic encoder: writes any Parquet struct a pf_struct table describes
 * (pf_tables.c), fields in id order, an optional field only where its has_
 * flag is set. Misuse (a count without a pointer) and allocation failure are
 * sticky in the writer; the level where one happens stops there and each
 * level on the way out names its field, so the error says where. */
#include "pf_desc.h"

#define T(name) BASALT_THRIFT_TYPE_##name

/* Pointer members have many declared types; they are read by bytes. */
static inline const uint8_t *get_ptr(const uint8_t *at)
{
    const uint8_t *p;
    memcpy(&p, at, sizeof p);
    return p;
}

static inline size_t get_size(const uint8_t *at)
{
    size_t n;
    memcpy(&n, at, sizeof n);
    return n;
}

__attribute__((cold, noinline)) static void in_field(struct basalt_thrift_writer *w,
                                                     const struct pf_field *fd)
{
    basalt_error_context(w->err, w->status, "%s", fd->name);
}

__attribute__((cold, noinline)) static void in_element(struct basalt_thrift_writer *w,
                                                       const struct pf_field *fd, size_t i)
{
    basalt_error_context(w->err, w->status, "%s[%zu]", fd->name, i);
}

/* The value of a string or binary member (no field header). */
static inline void put_bytes(struct basalt_thrift_writer *w, const uint8_t *at)
{
    const uint8_t *data = get_ptr(at + offsetof(struct basalt_parquet_binary, data));
    size_t len = get_size(at + offsetof(struct basalt_parquet_binary, len));
    if (TH_UNLIKELY(len && !data)) {
        basalt_thrift_writer_misuse(w, "binary with a length and no data");
        return;
    }
    tw_binary(w, data, len);
}

/* A field header and its varint value, in one reservation of room. */
static inline void put_varint_field(struct basalt_thrift_writer *w, uint8_t type, int16_t id,
                                    uint64_t v)
{
    uint8_t *p = tw_room(w, 4 + 10);
    if (TH_LIKELY(p != NULL)) {
        size_t n = tw_put_field(w, p, type, id);
        w->out->size += n + tw_put_varint(p + n, v);
    }
}

/* A string or binary field: header, length and bytes in one reservation. */
static inline void put_bytes_field(struct basalt_thrift_writer *w, int16_t id, const uint8_t *at)
{
    const uint8_t *data = get_ptr(at + offsetof(struct basalt_parquet_binary, data));
    size_t len = get_size(at + offsetof(struct basalt_parquet_binary, len));
    if (TH_UNLIKELY((len && !data) || len > INT32_MAX)) {
        basalt_thrift_writer_misuse(w, len > INT32_MAX ? "binary longer than INT32_MAX"
                                                       : "binary with a length and no data");
        return;
    }
    uint8_t *p = tw_room(w, 4 + 5 + len);
    if (TH_LIKELY(p != NULL)) {
        size_t n = tw_put_field(w, p, BASALT_THRIFT_TYPE_BINARY, id);
        n += tw_put_varint(p + n, len);
        if (len)
            memcpy(p + n, data, len);
        w->out->size += n + len;
    }
}

static void encode_struct(struct basalt_thrift_writer *w, const struct pf_struct *s,
                          const uint8_t *base);

static const uint8_t elem_wire[] = {
    [PF_I32] = T(I32),       [PF_ENUM] = T(I32),      [PF_I64] = T(I64),
    [PF_BOOL] = T(BOOL),     [PF_BYTES] = T(BINARY),  [PF_STRUCT] = T(STRUCT),
};

/* A list field, header included. Names its own context. */
static void encode_list(struct basalt_thrift_writer *w, int16_t id, const struct pf_field *fd,
                        const uint8_t *base)
{
    const uint8_t *v = get_ptr(base + fd->off);
    size_t n = get_size(base + fd->count);
    if (TH_UNLIKELY(n && !v)) {
        basalt_thrift_writer_misuse(w, "list with a count and no elements");
        goto failed;
    }
    if (TH_UNLIKELY(n > INT32_MAX)) {
        basalt_thrift_writer_misuse(w, "list longer than INT32_MAX");
        goto failed;
    }
    tw_field(w, T(LIST), id);
    tw_list(w, elem_wire[fd->elem], (uint32_t)n);
    switch (fd->elem) {
    case PF_I32:
    case PF_ENUM:
        for (size_t i = 0; i < n; i++)
            tw_i32(w, ((const int32_t *)(const void *)v)[i]);
        break;
    case PF_I64:
        for (size_t i = 0; i < n; i++)
            tw_i64(w, ((const int64_t *)(const void *)v)[i]);
        break;
    case PF_BOOL:
        for (size_t i = 0; i < n; i++)
            tw_byte(w, ((const bool *)(const void *)v)[i] ? 1 : 2);
        break;
    case PF_BYTES:
        for (size_t i = 0; i < n; i++) {
            put_bytes(w, v + i * sizeof(struct basalt_parquet_binary));
            if (TH_UNLIKELY(w->status != BASALT_OK)) {
                in_element(w, fd, i);
                return;
            }
        }
        break;
    case PF_STRUCT:
        for (size_t i = 0; i < n; i++) {
            encode_struct(w, fd->sub, v + i * fd->sub->size);
            if (TH_UNLIKELY(w->status != BASALT_OK)) {
                in_element(w, fd, i);
                return;
            }
        }
        break;
    default:
        basalt_thrift_writer_misuse(w, "no encoder for these list elements");
        break;
    }
    if (TH_LIKELY(w->status == BASALT_OK))
        return;
failed:
    in_field(w, fd);
}

/* The member named by the kind, as an empty struct when this version knows
 * no fields for it, or no member for kind 0. */
static void encode_union(struct basalt_thrift_writer *w, const struct pf_struct *u,
                         const uint8_t *base)
{
    int32_t kind;
    memcpy(&kind, base + u->kind_off, sizeof kind);
    if (TH_UNLIKELY(kind < 0 || kind > INT16_MAX)) {
        basalt_thrift_writer_misuse(w, "union kind outside 0..32767");
        return;
    }
    tw_struct_begin(w);
    if (kind != 0) {
        tw_field(w, T(STRUCT), (int16_t)kind);
        if (kind < u->nfields && u->fields[kind].kind == PF_STRUCT) {
            encode_struct(w, u->fields[kind].sub, base + u->fields[kind].off);
        } else {
            tw_struct_begin(w);
            tw_struct_end(w);
        }
    }
    tw_struct_end(w);
}

static void encode_struct(struct basalt_thrift_writer *w, const struct pf_struct *s,
                          const uint8_t *base)
{
    if (TH_UNLIKELY(s->flags & PF_S_UNION)) {
        encode_union(w, s, base);
        return;
    }
    tw_struct_begin(w);
    const struct pf_field *fd = s->fields;
    /* A struct without fields has no table (NULL, where no offset may be added). */
    const struct pf_field *const end = fd ? fd + s->nfields : fd;
    for (int16_t id = 0; fd < end; fd++, id++) {
        const uint8_t kind = fd->kind;
        const uint16_t has = fd->has;
        if (kind == PF_NONE || (has != PF_NO_HAS && !*(const bool *)(base + has)))
            continue;
        const uint8_t *at = base + fd->off;
        /* Numbers and bools can only fail for memory, which the writer
         * keeps; the other kinds check where they may fail to name it. */
        switch (kind) {
        case PF_I32:
        case PF_ENUM:
            put_varint_field(w, T(I32), id, tw_zigzag32(*(const int32_t *)(const void *)at));
            continue;
        case PF_I64:
            put_varint_field(w, T(I64), id, tw_zigzag64(*(const int64_t *)(const void *)at));
            continue;
        case PF_BOOL:
            tw_field(w, *(const bool *)at ? T(BOOL) : T(BOOL_FALSE), id);
            continue;
        case PF_I16:
            put_varint_field(w, T(I16), id, tw_zigzag32(*(const int16_t *)(const void *)at));
            continue;
        case PF_I8:
            tw_field(w, T(I8), id);
            tw_byte(w, (uint8_t)*(const int8_t *)(const void *)at);
            continue;
        case PF_DOUBLE:
            tw_field(w, T(DOUBLE), id);
            basalt_thrift_write_double(w, *(const double *)(const void *)at);
            continue;
        case PF_BYTES:
            put_bytes_field(w, id, at);
            break;
        case PF_STRUCT:
            tw_field(w, T(STRUCT), id);
            encode_struct(w, fd->sub, at);
            break;
        case PF_LIST:
            /* Names its own context. */
            encode_list(w, id, fd, base);
            if (TH_UNLIKELY(w->status != BASALT_OK))
                return;
            continue;
        case PF_STRUCT_PTR: {
            const uint8_t *p = get_ptr(at);
            if (TH_UNLIKELY(!p)) {
                basalt_thrift_writer_misuse(w, "has_ flag set and the pointer is NULL");
                break;
            }
            tw_field(w, T(STRUCT), id);
            encode_struct(w, fd->sub, p);
            break;
        }
        default:
            basalt_thrift_writer_misuse(w, "no encoder for this field");
            break;
        }
        if (TH_UNLIKELY(w->status != BASALT_OK)) {
            in_field(w, fd);
            return;
        }
    }
    tw_struct_end(w);
}

void basalt_thrift_pf_encode(struct basalt_thrift_writer *w, const struct pf_struct *s,
                             const void *obj)
{
    encode_struct(w, s, obj);
}

/* ------------------------------------------------------------------ entry points */

static basalt_status encode(const struct pf_struct *s, const void *in, struct basalt_buffer *out,
                            struct basalt_error *err)
{
    if (!in || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "encoding %s: NULL argument", s->name);
    struct basalt_thrift_writer w;
    basalt_thrift_writer_init(&w, out, err);
    encode_struct(&w, s, in);
    basalt_status st = basalt_thrift_writer_finish(&w);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "encoding %s", s->name);
    return BASALT_OK;
}

basalt_status basalt_thrift_encode_file_metadata(const struct basalt_parquet_file_metadata *md,
                                                 struct basalt_buffer *out,
                                                 struct basalt_error *err)
{
    return encode(&basalt_thrift_pf_file_metadata, md, out, err);
}

basalt_status basalt_thrift_encode_page_header(const struct basalt_parquet_page_header *ph,
                                               struct basalt_buffer *out,
                                               struct basalt_error *err)
{
    return encode(&basalt_thrift_pf_page_header, ph, out, err);
}

basalt_status basalt_thrift_encode_column_index(const struct basalt_parquet_column_index *ci,
                                                struct basalt_buffer *out,
                                                struct basalt_error *err)
{
    return encode(&basalt_thrift_pf_column_index, ci, out, err);
}

basalt_status basalt_thrift_encode_offset_index(const struct basalt_parquet_offset_index *oi,
                                                struct basalt_buffer *out,
                                                struct basalt_error *err)
{
    return encode(&basalt_thrift_pf_offset_index, oi, out, err);
}

basalt_status basalt_thrift_encode_bloom_filter_header(
    const struct basalt_parquet_bloom_filter_header *bf, struct basalt_buffer *out,
    struct basalt_error *err)
{
    return encode(&basalt_thrift_pf_bloom_filter_header, bf, out, err);
}

/* Parquet modular encryption: a ColumnMetaData serialized by itself
 * (encrypted into a column chunk's encrypted_column_metadata) and the
 * FileCryptoMetaData that precedes an encrypted footer. */
basalt_status basalt_thrift_encode_column_metadata(const struct basalt_parquet_column_metadata *m,
                                                   struct basalt_buffer *out,
                                                   struct basalt_error *err)
{
    return encode(&basalt_thrift_pf_column_metadata, m, out, err);
}

basalt_status basalt_thrift_encode_file_crypto_metadata(
    const struct basalt_parquet_file_crypto_metadata *m, struct basalt_buffer *out,
    struct basalt_error *err)
{
    if (m && m->encryption_algorithm.kind != BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_V1 &&
        m->encryption_algorithm.kind != BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "encoding FileCryptoMetaData: unknown algorithm %d",
                                (int)m->encryption_algorithm.kind);
    return encode(&basalt_thrift_pf_file_crypto_metadata, m, out, err);
}
