/* ArrowSchema -> Arrow IPC Schema message (flatbuffers), and its base64. */
#include "arrow_internal.h"
#include "ipc_schema_internal.h"

/* Type union tags of Schema.fbs. */
enum {
    TAG_NULL = 1,
    TAG_INT = 2,
    TAG_FLOATING_POINT = 3,
    TAG_BINARY = 4,
    TAG_UTF8 = 5,
    TAG_BOOL = 6,
    TAG_DECIMAL = 7,
    TAG_DATE = 8,
    TAG_TIME = 9,
    TAG_TIMESTAMP = 10,
    TAG_INTERVAL = 11,
    TAG_LIST = 12,
    TAG_STRUCT = 13,
    TAG_UNION = 14,
    TAG_FIXED_SIZE_BINARY = 15,
    TAG_FIXED_SIZE_LIST = 16,
    TAG_MAP = 17,
    TAG_DURATION = 18,
    TAG_LARGE_BINARY = 19,
    TAG_LARGE_UTF8 = 20,
    TAG_LARGE_LIST = 21,
    TAG_RUN_END_ENCODED = 22,
    TAG_BINARY_VIEW = 23,
    TAG_UTF8_VIEW = 24,
    TAG_LIST_VIEW = 25,
    TAG_LARGE_LIST_VIEW = 26
};

struct encode_ctx {
    struct basalt_arrow_fbb *b;
    int64_t next_dictionary_id;
    struct basalt_error *err;
};

static basalt_arrow_fb_ref empty_table(struct basalt_arrow_fbb *b)
{
    basalt_arrow_fbb_table_start(b);
    return basalt_arrow_fbb_table_end(b);
}

static basalt_arrow_fb_ref int_table(struct basalt_arrow_fbb *b, int32_t bits, bool is_signed)
{
    basalt_arrow_fbb_table_start(b);
    basalt_arrow_fbb_add_i32(b, 0, bits);
    basalt_arrow_fbb_add_u8(b, 1, is_signed ? 1 : 0);
    return basalt_arrow_fbb_table_end(b);
}

static basalt_arrow_fb_ref unit_table(struct basalt_arrow_fbb *b, int16_t unit)
{
    basalt_arrow_fbb_table_start(b);
    basalt_arrow_fbb_add_i16(b, 0, unit);
    return basalt_arrow_fbb_table_end(b);
}

/* The Type union member of `type` (format `format`): its tag and table. */
static basalt_status type_table(struct encode_ctx *ctx, const char *format,
                                const struct basalt_arrow_type *type, int64_t flags,
                                uint8_t *tag, basalt_arrow_fb_ref *ref)
{
    struct basalt_arrow_fbb *b = ctx->b;
    switch (type->id) {
    case BASALT_ARROW_TYPE_NULL: *tag = TAG_NULL; *ref = empty_table(b); break;
    case BASALT_ARROW_TYPE_BOOL: *tag = TAG_BOOL; *ref = empty_table(b); break;
    case BASALT_ARROW_TYPE_INT8: *tag = TAG_INT; *ref = int_table(b, 8, true); break;
    case BASALT_ARROW_TYPE_UINT8: *tag = TAG_INT; *ref = int_table(b, 8, false); break;
    case BASALT_ARROW_TYPE_INT16: *tag = TAG_INT; *ref = int_table(b, 16, true); break;
    case BASALT_ARROW_TYPE_UINT16: *tag = TAG_INT; *ref = int_table(b, 16, false); break;
    case BASALT_ARROW_TYPE_INT32: *tag = TAG_INT; *ref = int_table(b, 32, true); break;
    case BASALT_ARROW_TYPE_UINT32: *tag = TAG_INT; *ref = int_table(b, 32, false); break;
    case BASALT_ARROW_TYPE_INT64: *tag = TAG_INT; *ref = int_table(b, 64, true); break;
    case BASALT_ARROW_TYPE_UINT64: *tag = TAG_INT; *ref = int_table(b, 64, false); break;
    case BASALT_ARROW_TYPE_HALF_FLOAT: *tag = TAG_FLOATING_POINT; *ref = unit_table(b, 0); break;
    case BASALT_ARROW_TYPE_FLOAT: *tag = TAG_FLOATING_POINT; *ref = unit_table(b, 1); break;
    case BASALT_ARROW_TYPE_DOUBLE: *tag = TAG_FLOATING_POINT; *ref = unit_table(b, 2); break;
    case BASALT_ARROW_TYPE_BINARY: *tag = TAG_BINARY; *ref = empty_table(b); break;
    case BASALT_ARROW_TYPE_STRING: *tag = TAG_UTF8; *ref = empty_table(b); break;
    case BASALT_ARROW_TYPE_LARGE_BINARY: *tag = TAG_LARGE_BINARY; *ref = empty_table(b); break;
    case BASALT_ARROW_TYPE_LARGE_STRING: *tag = TAG_LARGE_UTF8; *ref = empty_table(b); break;
    case BASALT_ARROW_TYPE_BINARY_VIEW: *tag = TAG_BINARY_VIEW; *ref = empty_table(b); break;
    case BASALT_ARROW_TYPE_STRING_VIEW: *tag = TAG_UTF8_VIEW; *ref = empty_table(b); break;
    case BASALT_ARROW_TYPE_FIXED_SIZE_BINARY:
        *tag = TAG_FIXED_SIZE_BINARY;
        basalt_arrow_fbb_table_start(b);
        basalt_arrow_fbb_add_i32(b, 0, type->fixed_size);
        *ref = basalt_arrow_fbb_table_end(b);
        break;
    case BASALT_ARROW_TYPE_DECIMAL32:
    case BASALT_ARROW_TYPE_DECIMAL64:
    case BASALT_ARROW_TYPE_DECIMAL128:
    case BASALT_ARROW_TYPE_DECIMAL256:
        *tag = TAG_DECIMAL;
        basalt_arrow_fbb_table_start(b);
        basalt_arrow_fbb_add_i32(b, 0, type->precision);
        basalt_arrow_fbb_add_i32(b, 1, type->scale);
        basalt_arrow_fbb_add_i32(b, 2, (int32_t)type->bit_width);
        *ref = basalt_arrow_fbb_table_end(b);
        break;
    case BASALT_ARROW_TYPE_DATE32: *tag = TAG_DATE; *ref = unit_table(b, 0); break;
    case BASALT_ARROW_TYPE_DATE64: *tag = TAG_DATE; *ref = unit_table(b, 1); break;
    case BASALT_ARROW_TYPE_TIME32:
    case BASALT_ARROW_TYPE_TIME64:
        *tag = TAG_TIME;
        basalt_arrow_fbb_table_start(b);
        basalt_arrow_fbb_add_i16(b, 0, (int16_t)type->unit);
        basalt_arrow_fbb_add_i32(b, 1, type->id == BASALT_ARROW_TYPE_TIME32 ? 32 : 64);
        *ref = basalt_arrow_fbb_table_end(b);
        break;
    case BASALT_ARROW_TYPE_TIMESTAMP: {
        *tag = TAG_TIMESTAMP;
        basalt_arrow_fb_ref tz = 0;
        if (type->timezone)
            tz = basalt_arrow_fbb_string(b, type->timezone, strlen(type->timezone));
        basalt_arrow_fbb_table_start(b);
        basalt_arrow_fbb_add_i16(b, 0, (int16_t)type->unit);
        if (type->timezone)
            basalt_arrow_fbb_add_ref(b, 1, tz);
        *ref = basalt_arrow_fbb_table_end(b);
        break;
    }
    case BASALT_ARROW_TYPE_DURATION:
        *tag = TAG_DURATION;
        *ref = unit_table(b, (int16_t)type->unit);
        break;
    case BASALT_ARROW_TYPE_INTERVAL_MONTHS: *tag = TAG_INTERVAL; *ref = unit_table(b, 0); break;
    case BASALT_ARROW_TYPE_INTERVAL_DAY_TIME: *tag = TAG_INTERVAL; *ref = unit_table(b, 1); break;
    case BASALT_ARROW_TYPE_INTERVAL_MONTH_DAY_NANO:
        *tag = TAG_INTERVAL;
        *ref = unit_table(b, 2);
        break;
    case BASALT_ARROW_TYPE_LIST: *tag = TAG_LIST; *ref = empty_table(b); break;
    case BASALT_ARROW_TYPE_LARGE_LIST: *tag = TAG_LARGE_LIST; *ref = empty_table(b); break;
    case BASALT_ARROW_TYPE_LIST_VIEW: *tag = TAG_LIST_VIEW; *ref = empty_table(b); break;
    case BASALT_ARROW_TYPE_LARGE_LIST_VIEW:
        *tag = TAG_LARGE_LIST_VIEW;
        *ref = empty_table(b);
        break;
    case BASALT_ARROW_TYPE_FIXED_SIZE_LIST:
        *tag = TAG_FIXED_SIZE_LIST;
        basalt_arrow_fbb_table_start(b);
        basalt_arrow_fbb_add_i32(b, 0, type->fixed_size);
        *ref = basalt_arrow_fbb_table_end(b);
        break;
    case BASALT_ARROW_TYPE_STRUCT: *tag = TAG_STRUCT; *ref = empty_table(b); break;
    case BASALT_ARROW_TYPE_MAP:
        *tag = TAG_MAP;
        basalt_arrow_fbb_table_start(b);
        basalt_arrow_fbb_add_u8(b, 0, (flags & ARROW_FLAG_MAP_KEYS_SORTED) ? 1 : 0);
        *ref = basalt_arrow_fbb_table_end(b);
        break;
    case BASALT_ARROW_TYPE_RUN_END_ENCODED:
        *tag = TAG_RUN_END_ENCODED;
        *ref = empty_table(b);
        break;
    case BASALT_ARROW_TYPE_SPARSE_UNION:
    case BASALT_ARROW_TYPE_DENSE_UNION: {
        *tag = TAG_UNION;
        int32_t ids[128];
        int32_t n = 0;
        const char *p = type->union_type_ids;
        /* parse already checked the list: comma-separated numbers in [0, 127]. */
        while (p && *p && n < 128) {
            int32_t v = 0;
            while (*p >= '0' && *p <= '9')
                v = v * 10 + (*p++ - '0');
            ids[n++] = v;
            if (*p == ',')
                p++;
        }
        basalt_arrow_fb_ref vec = basalt_arrow_fbb_i32_vector(b, ids, (size_t)n);
        basalt_arrow_fbb_table_start(b);
        basalt_arrow_fbb_add_i16(b, 0, type->id == BASALT_ARROW_TYPE_SPARSE_UNION ? 0 : 1);
        basalt_arrow_fbb_add_ref(b, 1, vec);
        *ref = basalt_arrow_fbb_table_end(b);
        break;
    }
    default:
        return basalt_error_set(ctx->err, BASALT_UNSUPPORTED, "format '%s' has no IPC type",
                                format);
    }
    return BASALT_OK;
}

/* The KeyValue vector of encoded metadata; *ref 0 when there is none. */
static basalt_status metadata_vector(struct encode_ctx *ctx, const char *metadata,
                                     basalt_arrow_fb_ref *ref)
{
    *ref = 0;
    struct basalt_arrow_metadata_reader reader;
    basalt_status st = basalt_arrow_metadata_reader_init(&reader, metadata, ctx->err);
    if (st != BASALT_OK || reader.remaining == 0)
        return st;
    size_t n = (size_t)reader.remaining;
    basalt_arrow_fb_ref *pairs = basalt_malloc(n * sizeof *pairs);
    if (!pairs)
        return basalt_error_set(ctx->err, BASALT_NOMEM, "out of memory for metadata");
    struct basalt_arrow_metadata_item item;
    for (size_t i = 0; basalt_arrow_metadata_reader_next(&reader, &item); i++) {
        basalt_arrow_fb_ref key = basalt_arrow_fbb_string(ctx->b, item.key, item.key_len);
        basalt_arrow_fb_ref value = basalt_arrow_fbb_string(ctx->b, item.value, item.value_len);
        basalt_arrow_fbb_table_start(ctx->b);
        basalt_arrow_fbb_add_ref(ctx->b, 0, key);
        basalt_arrow_fbb_add_ref(ctx->b, 1, value);
        pairs[i] = basalt_arrow_fbb_table_end(ctx->b);
    }
    *ref = basalt_arrow_fbb_ref_vector(ctx->b, pairs, n);
    basalt_free(pairs);
    return BASALT_OK;
}

static basalt_status encode_field(struct encode_ctx *ctx, const struct ArrowSchema *field,
                                  basalt_arrow_fb_ref *out);

/* The Field vector of `schema`'s children; *ref is always set. */
static basalt_status children_vector(struct encode_ctx *ctx, const struct ArrowSchema *schema,
                                     basalt_arrow_fb_ref *ref)
{
    size_t n = (size_t)schema->n_children;
    basalt_arrow_fb_ref *refs = NULL;
    if (n) {
        refs = basalt_malloc(n * sizeof *refs);
        if (!refs)
            return basalt_error_set(ctx->err, BASALT_NOMEM, "out of memory for fields");
    }
    basalt_status st = BASALT_OK;
    for (size_t i = 0; i < n && st == BASALT_OK; i++)
        st = encode_field(ctx, schema->children[i], &refs[i]);
    if (st == BASALT_OK)
        *ref = basalt_arrow_fbb_ref_vector(ctx->b, refs, n);
    basalt_free(refs);
    return st;
}

static basalt_status encode_field(struct encode_ctx *ctx, const struct ArrowSchema *field,
                                  basalt_arrow_fb_ref *out)
{
    struct basalt_arrow_fbb *b = ctx->b;
    /* A dictionary-encoded field carries the value type and its children;
     * the index type goes in DictionaryEncoding. */
    const struct ArrowSchema *values = field->dictionary ? field->dictionary : field;
    struct basalt_arrow_type type;
    basalt_status st = basalt_arrow_type_parse(values->format, &type, ctx->err);
    if (st != BASALT_OK)
        return st;
    basalt_arrow_fb_ref children, metadata, type_ref, dictionary = 0;
    uint8_t tag;
    st = children_vector(ctx, values, &children);
    if (st == BASALT_OK)
        st = metadata_vector(ctx, field->metadata, &metadata);
    if (st == BASALT_OK)
        st = type_table(ctx, values->format, &type, values->flags, &tag, &type_ref);
    if (st != BASALT_OK)
        return st;
    if (field->dictionary) {
        struct basalt_arrow_type index;
        st = basalt_arrow_type_parse(field->format, &index, ctx->err);
        if (st != BASALT_OK)
            return st;
        bool is_signed = index.id == BASALT_ARROW_TYPE_INT8 || index.id == BASALT_ARROW_TYPE_INT16 ||
                         index.id == BASALT_ARROW_TYPE_INT32 || index.id == BASALT_ARROW_TYPE_INT64;
        basalt_arrow_fb_ref index_ref = int_table(b, (int32_t)index.bit_width, is_signed);
        basalt_arrow_fbb_table_start(b);
        basalt_arrow_fbb_add_i64(b, 0, ctx->next_dictionary_id++);
        basalt_arrow_fbb_add_ref(b, 1, index_ref);
        basalt_arrow_fbb_add_u8(b, 2, (field->flags & ARROW_FLAG_DICTIONARY_ORDERED) ? 1 : 0);
        dictionary = basalt_arrow_fbb_table_end(b);
    }
    const char *name = field->name ? field->name : "";
    basalt_arrow_fb_ref name_ref = basalt_arrow_fbb_string(b, name, strlen(name));
    basalt_arrow_fbb_table_start(b);
    basalt_arrow_fbb_add_ref(b, 0, name_ref);
    basalt_arrow_fbb_add_u8(b, 1, (field->flags & ARROW_FLAG_NULLABLE) ? 1 : 0);
    basalt_arrow_fbb_add_u8(b, 2, tag);
    basalt_arrow_fbb_add_ref(b, 3, type_ref);
    if (dictionary)
        basalt_arrow_fbb_add_ref(b, 4, dictionary);
    basalt_arrow_fbb_add_ref(b, 5, children);
    if (metadata)
        basalt_arrow_fbb_add_ref(b, 6, metadata);
    *out = basalt_arrow_fbb_table_end(b);
    return BASALT_OK;
}

/* Builds the Message flatbuffer of `schema` in `b`. */
static basalt_status build_message(const struct ArrowSchema *schema, struct basalt_arrow_fbb *b,
                                   const uint8_t **data, size_t *len, struct basalt_error *err)
{
    if (!schema || !schema->release)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc_schema_encode: no schema");
    basalt_status st = basalt_arrow_schema_validate(schema, err);
    if (st != BASALT_OK)
        return st;
    if (strcmp(schema->format, "+s") != 0 || schema->dictionary)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "ipc_schema_encode: schema format '%s' is not a struct",
                                schema->format);
    struct encode_ctx ctx = {.b = b, .err = err};
    basalt_arrow_fb_ref fields, metadata;
    st = children_vector(&ctx, schema, &fields);
    if (st == BASALT_OK)
        st = metadata_vector(&ctx, schema->metadata, &metadata);
    if (st != BASALT_OK)
        return st;
    basalt_arrow_fbb_table_start(b);
    basalt_arrow_fbb_add_i16(b, 0, 0); /* Little */
    basalt_arrow_fbb_add_ref(b, 1, fields);
    if (metadata)
        basalt_arrow_fbb_add_ref(b, 2, metadata);
    basalt_arrow_fb_ref header = basalt_arrow_fbb_table_end(b);
    basalt_arrow_fbb_table_start(b);
    basalt_arrow_fbb_add_i16(b, 0, 4); /* V5 */
    basalt_arrow_fbb_add_u8(b, 1, 1);  /* Schema */
    basalt_arrow_fbb_add_ref(b, 2, header);
    basalt_arrow_fbb_add_i64(b, 3, 0);
    basalt_arrow_fb_ref message = basalt_arrow_fbb_table_end(b);
    return basalt_arrow_fbb_finish(b, message, data, len, err);
}

/* Appends the framed message to `out`. */
static basalt_status frame(const uint8_t *fb, size_t fb_len, struct basalt_buffer *out,
                           struct basalt_error *err)
{
    size_t padded = (fb_len + 7) & ~(size_t)7;
    if (padded > INT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "schema message over 2 GiB");
    basalt_status st = basalt_buffer_reserve(out, 8 + padded, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *p = out->data + out->size;
    uint32_t words[2] = {0xFFFFFFFFu, (uint32_t)padded};
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < 4; i++)
            p[4 * w + i] = (uint8_t)(words[w] >> (8 * i));
    memcpy(p + 8, fb, fb_len);
    memset(p + 8 + fb_len, 0, padded - fb_len);
    out->size += 8 + padded;
    return BASALT_OK;
}

basalt_status basalt_arrow_ipc_schema_encode(const struct ArrowSchema *schema,
                                             struct basalt_buffer *out, struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc_schema_encode: NULL out");
    struct basalt_arrow_fbb b;
    basalt_arrow_fbb_init(&b);
    const uint8_t *fb = NULL;
    size_t fb_len = 0;
    basalt_status st = build_message(schema, &b, &fb, &fb_len, err);
    if (st == BASALT_OK)
        st = frame(fb, fb_len, out, err);
    basalt_arrow_fbb_reset(&b);
    return st;
}

basalt_status basalt_arrow_ipc_schema_encode_base64(const struct ArrowSchema *schema,
                                                    struct basalt_buffer *out,
                                                    struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "ipc_schema_encode: NULL out");
    struct basalt_buffer bytes;
    basalt_buffer_init(&bytes);
    basalt_status st = basalt_arrow_ipc_schema_encode(schema, &bytes, err);
    if (st == BASALT_OK)
        st = basalt_arrow_base64_encode(bytes.data, bytes.size, out, err);
    basalt_buffer_reset(&bytes);
    return st;
}
