/* One record batch body -> arrays, checking every bound on the way.
 *
 * A RecordBatch lists FieldNodes (length, null count) and Buffers (offset,
 * length inside the body) in depth-first order of the fields; each type
 * consumes a fixed number of each (Columnar.rst, "Buffer Layouts"), view
 * types also one entry of variadicBufferCounts. Buffers are used in place
 * when they can be, else copied, decompressed or byte-swapped into memory
 * the array owns. */
#include <stdio.h>
#include <stdlib.h>

#include "ipc_internal.h"

/* Required buffers that are empty in the file (an offsets buffer of a
 * zero-length array) point here. */
static const int64_t ipc_zeros[4];

#define BODY_ALIGN 8

struct loaded {
    const uint8_t *data;
    uint64_t size;
};

static basalt_status corrupt(struct basalt_error *err, const char *fmt, ...) BASALT_PRINTF(2, 3);

static basalt_status corrupt(struct basalt_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    basalt_status st = basalt_error_setv(err, BASALT_CORRUPT, fmt, ap);
    va_end(ap);
    return st;
}

static int64_t load_i64(const uint8_t *p)
{
    return (int64_t)basalt_arrow_fb_u64(p);
}

static uint16_t bswap16(uint16_t v) { return (uint16_t)(v >> 8 | v << 8); }

static void swap_words(uint8_t *p, uint64_t n_bytes, unsigned width)
{
    if (width == 2) {
        for (uint64_t i = 0; i + 2 <= n_bytes; i += 2) {
            uint16_t v;
            memcpy(&v, p + i, 2);
            v = bswap16(v);
            memcpy(p + i, &v, 2);
        }
    } else if (width == 4) {
        for (uint64_t i = 0; i + 4 <= n_bytes; i += 4) {
            uint32_t v;
            memcpy(&v, p + i, 4);
            v = __builtin_bswap32(v);
            memcpy(p + i, &v, 4);
        }
    } else if (width == 8) {
        for (uint64_t i = 0; i + 8 <= n_bytes; i += 8) {
            uint64_t v;
            memcpy(&v, p + i, 8);
            v = __builtin_bswap64(v);
            memcpy(p + i, &v, 8);
        }
    } else if (width > 1) {
        for (uint64_t i = 0; i + width <= n_bytes; i += width)
            for (unsigned a = 0, b = width - 1; a < b; a++, b--) {
                uint8_t t = p[i + a];
                p[i + a] = p[i + b];
                p[i + b] = t;
            }
    }
}

/* How a buffer's values are byte-swapped from big-endian. */
enum swap_kind {
    SWAP_NONE = 0,
    SWAP_2 = 2,
    SWAP_4 = 4,
    SWAP_8 = 8,
    SWAP_16 = 16,
    SWAP_32 = 32,
    SWAP_MONTH_DAY_NANO = 100, /* int32, int32, int64 */
    SWAP_VIEWS = 101           /* 16-byte views */
};

static void swap_buffer(uint8_t *p, uint64_t n, enum swap_kind kind)
{
    switch (kind) {
    case SWAP_NONE: return;
    case SWAP_MONTH_DAY_NANO:
        for (uint64_t i = 0; i + 16 <= n; i += 16) {
            swap_words(p + i, 8, 4);
            swap_words(p + i + 8, 8, 8);
        }
        return;
    case SWAP_VIEWS:
        for (uint64_t i = 0; i + 16 <= n; i += 16) {
            swap_words(p + i, 4, 4);
            uint32_t len;
            memcpy(&len, p + i, 4);
            if (len > 12)
                swap_words(p + i + 8, 8, 4);
        }
        return;
    default: swap_words(p, n, (unsigned)kind); return;
    }
}

/* The next FieldNode. */
static basalt_status next_node(struct ipc_load_ctx *ctx, int64_t *length, int64_t *null_count,
                               struct basalt_error *err)
{
    if (ctx->node_i >= ctx->nodes.count)
        return corrupt(err, "more fields than the %u field nodes of the batch",
                       (unsigned)ctx->nodes.count);
    const uint8_t *p = ctx->nodes.fb->data + ctx->nodes.pos + 16u * ctx->node_i++;
    *length = load_i64(p);
    *null_count = load_i64(p + 8);
    if (*length < 0 || *null_count < 0 || *null_count > *length)
        return corrupt(err, "field node %u: length %lld, null count %lld", ctx->node_i - 1,
                       (long long)*length, (long long)*null_count);
    /* Keeps every size computed from a length (up to 32 bytes a value) in range. */
    if (*length > (INT64_MAX >> 6))
        return basalt_error_set(err, BASALT_LIMIT, "field node %u: length %lld",
                                ctx->node_i - 1, (long long)*length);
    return BASALT_OK;
}

/* The next Buffer: its bytes, decompressed/swapped/copied as needed, and
 * set as buffer `slot` of `arr` (slot < 0: not stored, e.g. a pre-1.0 union
 * bitmap). `need` is the least size the type requires. */
static basalt_status next_buffer(struct ipc_load_ctx *ctx, struct ArrowArray *arr, int64_t slot,
                                 uint64_t need, enum swap_kind swap, struct loaded *out,
                                 struct basalt_error *err)
{
    out->data = NULL;
    out->size = 0;
    if (ctx->buffer_i >= ctx->buffers.count)
        return corrupt(err, "more buffers than the %u of the batch",
                       (unsigned)ctx->buffers.count);
    unsigned index = ctx->buffer_i++;
    const uint8_t *p = ctx->buffers.fb->data + ctx->buffers.pos + 16u * index;
    int64_t off = load_i64(p), len = load_i64(p + 8);
    if (off < 0 || len < 0 || (uint64_t)off > ctx->body_len ||
        (uint64_t)len > ctx->body_len - (uint64_t)off)
        return corrupt(err, "buffer %u at %lld, %lld bytes, outside the body of %llu bytes",
                       index, (long long)off, (long long)len,
                       (unsigned long long)ctx->body_len);
    const uint8_t *src = ctx->body + off;
    uint64_t size = (uint64_t)len;
    uint8_t *owned = NULL;
    if (ctx->codec && len > 0) {
        if (len < 8)
            return corrupt(err, "compressed buffer %u of %lld bytes has no length prefix",
                           index, (long long)len);
        int64_t raw = load_i64(src);
        if (raw == -1) {
            src += 8;
            size -= 8;
        } else {
            if (raw < 0)
                return corrupt(err, "compressed buffer %u: uncompressed length %lld", index,
                               (long long)raw);
            if (raw > ctx->options->max_body_size)
                return basalt_error_set(err, BASALT_LIMIT,
                                        "compressed buffer %u: %lld bytes uncompressed, over the "
                                        "limit of %lld",
                                        index, (long long)raw,
                                        (long long)ctx->options->max_body_size);
            size_t cap = ((size_t)raw + 63) & ~(size_t)63;
            owned = basalt_aligned_alloc(64, cap ? cap : 64);
            if (!owned)
                return basalt_error_set(err, BASALT_NOMEM,
                                        "out of memory for buffer %u (%lld bytes)", index,
                                        (long long)raw);
            memset(owned + raw, 0, (cap ? cap : 64) - (size_t)raw);
            size_t got = 0;
            basalt_status st = raw == 0 ? BASALT_OK
                                        : basalt_codec_decompress(ctx->codec, src + 8,
                                                                  size - 8, owned, (size_t)raw,
                                                                  &got, err);
            if (st == BASALT_OK && got != (size_t)raw)
                st = corrupt(err, "buffer %u decompresses to %zu bytes, not %lld", index, got,
                             (long long)raw);
            if (st != BASALT_OK) {
                basalt_free(owned);
                return basalt_error_context(err, st, "buffer %u", index);
            }
            size = (uint64_t)raw;
            src = owned;
            ctx->stats->buffers_decompressed++;
        }
    }
    if (size < need) {
        basalt_free(owned);
        return corrupt(err, "buffer %u holds %llu bytes, the type needs %llu", index,
                       (unsigned long long)size, (unsigned long long)need);
    }
    bool swapping = ctx->swap && swap != SWAP_NONE && size > 0;
    if (!owned && size > 0 && (swapping || ((uintptr_t)src & (BODY_ALIGN - 1)) != 0)) {
        size_t cap = ((size_t)size + 63) & ~(size_t)63;
        owned = basalt_aligned_alloc(64, cap);
        if (!owned)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory copying buffer %u", index);
        memcpy(owned, src, (size_t)size);
        memset(owned + size, 0, cap - (size_t)size);
        src = owned;
        ctx->stats->buffers_copied++;
    } else if (!owned && size > 0) {
        if (ctx->zero_copy_counts)
            ctx->stats->buffers_zero_copy++;
        else
            ctx->stats->buffers_copied++;
    }
    if (swapping) {
        swap_buffer(owned, size, swap);
        ctx->stats->buffers_swapped++;
    }
    if (slot >= 0)
        basalt_ipc_node_set_buffer(arr, slot, size ? src : NULL, owned != NULL);
    else
        basalt_free(owned);
    out->data = size ? src : NULL;
    out->size = size;
    return BASALT_OK;
}

/* Buffer 0: the validity bitmap, kept only when there are nulls. */
static basalt_status load_validity(struct ipc_load_ctx *ctx, struct ArrowArray *arr,
                                   struct basalt_error *err)
{
    struct loaded b;
    uint64_t need = arr->null_count ? (uint64_t)basalt_bitmap_bytes(arr->length) : 0;
    basalt_status st = next_buffer(ctx, arr, arr->null_count ? 0 : -1, need, SWAP_NONE, &b, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "validity");
    if (arr->null_count && !b.data)
        return corrupt(err, "null count %lld without a validity bitmap",
                       (long long)arr->null_count);
    return BASALT_OK;
}

/* Offsets buffer `slot` of width w for `length` values: at least length + 1
 * entries (none for length 0), starting at 0 or more, never decreasing.
 * *first / *last are the first and last offsets. */
static basalt_status load_offsets(struct ipc_load_ctx *ctx, struct ArrowArray *arr, int slot,
                                  unsigned w, int64_t *first, int64_t *last,
                                  struct basalt_error *err)
{
    int64_t n = arr->length;
    struct loaded b;
    uint64_t need = n ? (uint64_t)(n + 1) * w : 0;
    basalt_status st = next_buffer(ctx, arr, slot, need, w == 4 ? SWAP_4 : SWAP_8, &b, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "offsets");
    *first = *last = 0;
    if (!b.data) {
        basalt_ipc_node_set_buffer(arr, slot, ipc_zeros, false);
        return BASALT_OK;
    }
    int64_t prev = 0;
    for (int64_t i = 0; i <= n; i++) {
        int64_t v = w == 4 ? ((const int32_t *)b.data)[i] : ((const int64_t *)b.data)[i];
        if (i == 0) {
            if (v < 0)
                return corrupt(err, "offsets start at %lld", (long long)v);
            *first = v;
        } else if (v < prev) {
            return corrupt(err, "offsets not monotonic at %lld", (long long)i);
        }
        prev = v;
    }
    *last = prev;
    return BASALT_OK;
}

static basalt_status load_field(struct ipc_load_ctx *ctx, const struct ArrowSchema *schema,
                                struct ArrowArray *out, int depth, struct basalt_error *err);

/* Children of a nested node, each at least `min_length` long. */
static basalt_status load_children(struct ipc_load_ctx *ctx, const struct ArrowSchema *schema,
                                   struct ArrowArray *arr, int64_t min_length, int depth,
                                   struct basalt_error *err)
{
    for (int64_t i = 0; i < schema->n_children; i++) {
        basalt_status st = load_field(ctx, schema->children[i], arr->children[i], depth + 1, err);
        if (st != BASALT_OK)
            return st;
        if (arr->children[i]->length < min_length)
            return corrupt(err, "child '%s' has %lld values, the parent needs %lld",
                           schema->children[i]->name ? schema->children[i]->name : "",
                           (long long)arr->children[i]->length, (long long)min_length);
    }
    return BASALT_OK;
}

static enum swap_kind fixed_swap(const struct basalt_arrow_type *t)
{
    switch (t->id) {
    case BASALT_ARROW_TYPE_FIXED_SIZE_BINARY:
    case BASALT_ARROW_TYPE_INT8:
    case BASALT_ARROW_TYPE_UINT8:
    case BASALT_ARROW_TYPE_BOOL: return SWAP_NONE;
    case BASALT_ARROW_TYPE_INTERVAL_DAY_TIME: return SWAP_4;
    case BASALT_ARROW_TYPE_INTERVAL_MONTH_DAY_NANO: return SWAP_MONTH_DAY_NANO;
    default: return (enum swap_kind)(t->bit_width / 8);
    }
}

/* Attaches the current dictionary of the dictionary-encoded node `schema`
 * and checks every valid index against its length. */
static basalt_status attach_dictionary(struct ipc_load_ctx *ctx, const struct ArrowSchema *schema,
                                       const struct basalt_arrow_type *index_type,
                                       struct ArrowArray *arr, struct basalt_error *err)
{
    struct ipc_dict_slot *slot = NULL;
    for (int64_t i = 0; i < ctx->dicts->n; i++)
        if (ctx->dicts->slots[i].node == schema)
            slot = &ctx->dicts->slots[i];
    if (!slot)
        return basalt_error_set(err, BASALT_INTERNAL, "dictionary field without an id");
    if (!slot->current)
        return corrupt(err, "dictionary id %lld used before any DictionaryBatch defined it",
                       (long long)slot->id);
    const struct ArrowArray *dict = basalt_ipc_dict_owner_array(slot->current);
    const uint8_t *valid = arr->buffers[0];
    const void *idx = arr->buffers[1];
    for (int64_t i = 0; i < arr->length; i++) {
        if (valid && !basalt_bitmap_get(valid, i))
            continue;
        int64_t v;
        switch (index_type->id) {
        case BASALT_ARROW_TYPE_INT8: v = ((const int8_t *)idx)[i]; break;
        case BASALT_ARROW_TYPE_UINT8: v = ((const uint8_t *)idx)[i]; break;
        case BASALT_ARROW_TYPE_INT16: v = ((const int16_t *)idx)[i]; break;
        case BASALT_ARROW_TYPE_UINT16: v = ((const uint16_t *)idx)[i]; break;
        case BASALT_ARROW_TYPE_INT32: v = ((const int32_t *)idx)[i]; break;
        case BASALT_ARROW_TYPE_UINT32: v = ((const uint32_t *)idx)[i]; break;
        case BASALT_ARROW_TYPE_INT64: v = ((const int64_t *)idx)[i]; break;
        default: {
            uint64_t u = ((const uint64_t *)idx)[i];
            v = u > INT64_MAX ? -1 : (int64_t)u;
        }
        }
        if (v < 0 || v >= dict->length)
            return corrupt(err, "dictionary index %lld at %lld outside the dictionary of %lld "
                                "values (id %lld)",
                           (long long)v, (long long)i, (long long)dict->length,
                           (long long)slot->id);
    }
    basalt_status st = basalt_ipc_node_new_dictionary(arr, err);
    if (st == BASALT_OK)
        st = basalt_ipc_array_share(dict, slot->current, arr->dictionary, err);
    return st;
}

/* Checks the type ids of a union against the declared ones; dense unions
 * also their offsets against the children. */
static basalt_status check_union(const struct basalt_arrow_type *t, struct ArrowArray *arr,
                                 const int32_t *offsets, struct basalt_error *err)
{
    int8_t child_of[128];
    memset(child_of, -1, sizeof child_of);
    const char *p = t->union_type_ids;
    for (int32_t c = 0; c < t->n_union_types; c++) {
        char *end;
        long id = strtol(p, &end, 10);
        p = *end == ',' ? end + 1 : end;
        if (id >= 0 && id < 128)
            child_of[id] = (int8_t)c;
    }
    const int8_t *types = arr->buffers[0];
    for (int64_t i = 0; i < arr->length; i++) {
        int8_t id = types[i];
        if (id < 0 || child_of[id] < 0)
            return corrupt(err, "union type id %d at %lld is not declared", (int)id,
                           (long long)i);
        if (offsets) {
            int32_t o = offsets[i];
            if (o < 0 || o >= arr->children[child_of[id]]->length)
                return corrupt(err, "dense union offset %d at %lld outside child %d of %lld",
                               (int)o, (long long)i, (int)child_of[id],
                               (long long)arr->children[child_of[id]]->length);
        }
    }
    return BASALT_OK;
}

static basalt_status check_run_ends(const struct ArrowArray *run_ends,
                                    const struct basalt_arrow_type *t, int64_t length,
                                    struct basalt_error *err)
{
    if (run_ends->null_count != 0)
        return corrupt(err, "run ends hold nulls");
    int64_t prev = 0;
    for (int64_t i = 0; i < run_ends->length; i++) {
        int64_t v = t->id == BASALT_ARROW_TYPE_INT16   ? ((const int16_t *)run_ends->buffers[1])[i]
                    : t->id == BASALT_ARROW_TYPE_INT32 ? ((const int32_t *)run_ends->buffers[1])[i]
                                                       : ((const int64_t *)run_ends->buffers[1])[i];
        if (v <= prev)
            return corrupt(err, "run ends not strictly increasing at %lld", (long long)i);
        prev = v;
    }
    if (length > 0 && prev < length)
        return corrupt(err, "run ends stop at %lld, the array has %lld values", (long long)prev,
                       (long long)length);
    return BASALT_OK;
}

static basalt_status load_views(struct ipc_load_ctx *ctx, struct ArrowArray *out,
                                const struct ArrowSchema *schema, int64_t length,
                                int64_t null_count, int depth, struct basalt_error *err)
{
    (void)schema;
    (void)depth;
    if (ctx->variadic_i >= ctx->variadic.count)
        return corrupt(err, "view type without its variadicBufferCounts entry");
    int64_t nvar = load_i64(ctx->variadic.fb->data + ctx->variadic.pos + 8u * ctx->variadic_i++);
    if (nvar < 0 || nvar > (int64_t)(ctx->buffers.count - ctx->buffer_i))
        return corrupt(err, "%lld variadic buffers, more than the batch lists", (long long)nvar);
    basalt_status st = basalt_ipc_node_init(out, 3 + nvar, 0, ctx->owner, err);
    if (st != BASALT_OK)
        return st;
    out->length = length;
    out->null_count = null_count;
    st = load_validity(ctx, out, err);
    struct loaded views;
    if (st == BASALT_OK)
        st = next_buffer(ctx, out, 1, (uint64_t)length * 16, SWAP_VIEWS, &views, err);
    if (st != BASALT_OK)
        return st;
    if (!views.data)
        basalt_ipc_node_set_buffer(out, 1, ipc_zeros, false);
    size_t cap = ((size_t)nvar * 8 + 63) & ~(size_t)63;
    int64_t *sizes = basalt_aligned_alloc(64, cap ? cap : 64);
    if (!sizes)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for view buffer sizes");
    basalt_ipc_node_set_buffer(out, 2 + nvar, sizes, true);
    for (int64_t i = 0; i < nvar; i++) {
        struct loaded b;
        st = next_buffer(ctx, out, 2 + i, 0, SWAP_NONE, &b, err);
        if (st != BASALT_OK)
            return st;
        if (!b.data)
            basalt_ipc_node_set_buffer(out, 2 + i, ipc_zeros, false);
        sizes[i] = (int64_t)b.size;
    }
    const uint8_t *valid = out->buffers[0];
    for (int64_t i = 0; i < length; i++) {
        if (valid && !basalt_bitmap_get(valid, i))
            continue;
        const uint8_t *v = views.data + 16 * i;
        int32_t len, buf, off;
        memcpy(&len, v, 4);
        if (len < 0)
            return corrupt(err, "view %lld has length %d", (long long)i, (int)len);
        if (len <= 12)
            continue;
        memcpy(&buf, v + 8, 4);
        memcpy(&off, v + 12, 4);
        if (buf < 0 || buf >= nvar)
            return corrupt(err, "view %lld names buffer %d of %lld", (long long)i, (int)buf,
                           (long long)nvar);
        if (off < 0 || (int64_t)off + len > sizes[buf])
            return corrupt(err, "view %lld reaches past its buffer", (long long)i);
    }
    return BASALT_OK;
}

static basalt_status load_field_body(struct ipc_load_ctx *ctx, const struct ArrowSchema *schema,
                                     struct ArrowArray *out, int depth, struct basalt_error *err)
{
    struct basalt_arrow_type t;
    basalt_status st = basalt_arrow_type_parse(schema->format, &t, err);
    if (st != BASALT_OK)
        return st;
    int64_t length = 0, null_count = 0;
    st = next_node(ctx, &length, &null_count, err);
    if (st != BASALT_OK)
        return st;
    int64_t n_buffers = 0, n_children = schema->n_children;
    bool v4_union_bitmap = ctx->version < IPC_METADATA_V5;
    switch (t.id) {
    case BASALT_ARROW_TYPE_NULL:
        st = basalt_ipc_node_init(out, 0, 0, ctx->owner, err);
        if (st == BASALT_OK) {
            out->length = length;
            out->null_count = length;
        }
        return st;
    case BASALT_ARROW_TYPE_BINARY_VIEW:
    case BASALT_ARROW_TYPE_STRING_VIEW:
        return load_views(ctx, out, schema, length, null_count, depth, err);
    case BASALT_ARROW_TYPE_BINARY:
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_LARGE_BINARY:
    case BASALT_ARROW_TYPE_LARGE_STRING:
    case BASALT_ARROW_TYPE_LIST_VIEW:
    case BASALT_ARROW_TYPE_LARGE_LIST_VIEW: n_buffers = 3; break;
    case BASALT_ARROW_TYPE_LIST:
    case BASALT_ARROW_TYPE_LARGE_LIST:
    case BASALT_ARROW_TYPE_MAP: n_buffers = 2; break;
    case BASALT_ARROW_TYPE_FIXED_SIZE_LIST:
    case BASALT_ARROW_TYPE_STRUCT: n_buffers = 1; break;
    case BASALT_ARROW_TYPE_SPARSE_UNION: n_buffers = 1; break;
    case BASALT_ARROW_TYPE_DENSE_UNION: n_buffers = 2; break;
    case BASALT_ARROW_TYPE_RUN_END_ENCODED: n_buffers = 0; break;
    default: n_buffers = 2; break; /* bool and fixed width */
    }
    st = basalt_ipc_node_init(out, n_buffers, n_children, ctx->owner, err);
    if (st != BASALT_OK)
        return st;
    out->length = length;
    out->null_count = null_count;
    switch (t.id) {
    case BASALT_ARROW_TYPE_BINARY:
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_LARGE_BINARY:
    case BASALT_ARROW_TYPE_LARGE_STRING: {
        unsigned w = (t.id == BASALT_ARROW_TYPE_BINARY || t.id == BASALT_ARROW_TYPE_STRING) ? 4 : 8;
        int64_t first, last;
        struct loaded data;
        st = load_validity(ctx, out, err);
        if (st == BASALT_OK)
            st = load_offsets(ctx, out, 1, w, &first, &last, err);
        if (st == BASALT_OK)
            st = next_buffer(ctx, out, 2, (uint64_t)last, SWAP_NONE, &data, err);
        if (st != BASALT_OK)
            return st;
        if (!data.data)
            basalt_ipc_node_set_buffer(out, 2, ipc_zeros, false);
        return BASALT_OK;
    }
    case BASALT_ARROW_TYPE_LIST:
    case BASALT_ARROW_TYPE_LARGE_LIST:
    case BASALT_ARROW_TYPE_MAP: {
        unsigned w = t.id == BASALT_ARROW_TYPE_LARGE_LIST ? 8 : 4;
        int64_t first, last;
        st = load_validity(ctx, out, err);
        if (st == BASALT_OK)
            st = load_offsets(ctx, out, 1, w, &first, &last, err);
        if (st == BASALT_OK)
            st = load_children(ctx, schema, out, last, depth, err);
        if (st == BASALT_OK && t.id == BASALT_ARROW_TYPE_MAP &&
            out->children[0]->n_children == 2 && out->children[0]->children[0]->null_count)
            st = corrupt(err, "map keys hold nulls");
        return st;
    }
    case BASALT_ARROW_TYPE_LIST_VIEW:
    case BASALT_ARROW_TYPE_LARGE_LIST_VIEW: {
        unsigned w = t.id == BASALT_ARROW_TYPE_LIST_VIEW ? 4 : 8;
        struct loaded offs, sizes;
        st = load_validity(ctx, out, err);
        if (st == BASALT_OK)
            st = next_buffer(ctx, out, 1, (uint64_t)length * w, w == 4 ? SWAP_4 : SWAP_8, &offs,
                             err);
        if (st == BASALT_OK)
            st = next_buffer(ctx, out, 2, (uint64_t)length * w, w == 4 ? SWAP_4 : SWAP_8, &sizes,
                             err);
        if (st == BASALT_OK)
            st = load_children(ctx, schema, out, 0, depth, err);
        if (st != BASALT_OK)
            return st;
        if (!offs.data)
            basalt_ipc_node_set_buffer(out, 1, ipc_zeros, false);
        if (!sizes.data)
            basalt_ipc_node_set_buffer(out, 2, ipc_zeros, false);
        const uint8_t *valid = out->buffers[0];
        int64_t child_len = out->children[0]->length;
        for (int64_t i = 0; i < length; i++) {
            if (valid && !basalt_bitmap_get(valid, i))
                continue;
            int64_t o = w == 4 ? ((const int32_t *)offs.data)[i] : ((const int64_t *)offs.data)[i];
            int64_t s =
                w == 4 ? ((const int32_t *)sizes.data)[i] : ((const int64_t *)sizes.data)[i];
            if (o < 0 || s < 0 || o > child_len || s > child_len - o)
                return corrupt(err, "list view %lld: offset %lld size %lld outside the child of "
                                    "%lld",
                               (long long)i, (long long)o, (long long)s, (long long)child_len);
        }
        return BASALT_OK;
    }
    case BASALT_ARROW_TYPE_FIXED_SIZE_LIST: {
        st = load_validity(ctx, out, err);
        if (st == BASALT_OK) {
            if (t.fixed_size > 0 && length > INT64_MAX / t.fixed_size)
                return corrupt(err, "fixed-size list of %lld x %d values", (long long)length,
                               (int)t.fixed_size);
            st = load_children(ctx, schema, out, length * t.fixed_size, depth, err);
        }
        return st;
    }
    case BASALT_ARROW_TYPE_STRUCT:
        st = load_validity(ctx, out, err);
        if (st == BASALT_OK)
            st = load_children(ctx, schema, out, length, depth, err);
        return st;
    case BASALT_ARROW_TYPE_SPARSE_UNION:
    case BASALT_ARROW_TYPE_DENSE_UNION: {
        bool dense = t.id == BASALT_ARROW_TYPE_DENSE_UNION;
        struct loaded types, offs = {0};
        out->null_count = 0;
        if (v4_union_bitmap) {
            /* Before 1.0 a union had a validity bitmap of its own; the C
             * interface has no place for it. */
            if (null_count)
                return basalt_error_set(err, BASALT_UNSUPPORTED,
                                        "pre-1.0 union with %lld top-level nulls",
                                        (long long)null_count);
            st = next_buffer(ctx, out, -1, 0, SWAP_NONE, &types, err);
            if (st != BASALT_OK)
                return st;
        } else if (null_count) {
            return corrupt(err, "union with a null count of %lld", (long long)null_count);
        }
        st = next_buffer(ctx, out, 0, (uint64_t)length, SWAP_NONE, &types, err);
        if (st == BASALT_OK && dense)
            st = next_buffer(ctx, out, 1, (uint64_t)length * 4, SWAP_4, &offs, err);
        if (st == BASALT_OK)
            st = load_children(ctx, schema, out, dense ? 0 : length, depth, err);
        if (st != BASALT_OK)
            return st;
        if (!types.data)
            basalt_ipc_node_set_buffer(out, 0, ipc_zeros, false);
        if (dense && !offs.data)
            basalt_ipc_node_set_buffer(out, 1, ipc_zeros, false);
        return check_union(&t, out, dense ? (const int32_t *)offs.data : NULL, err);
    }
    case BASALT_ARROW_TYPE_RUN_END_ENCODED: {
        if (null_count)
            return corrupt(err, "run-end encoded array with a null count of %lld",
                           (long long)null_count);
        st = load_children(ctx, schema, out, 0, depth, err);
        if (st != BASALT_OK)
            return st;
        struct basalt_arrow_type rt;
        st = basalt_arrow_type_parse(schema->children[0]->format, &rt, err);
        if (st != BASALT_OK)
            return st;
        if (rt.id != BASALT_ARROW_TYPE_INT16 && rt.id != BASALT_ARROW_TYPE_INT32 &&
            rt.id != BASALT_ARROW_TYPE_INT64)
            return corrupt(err, "run ends of type %s", basalt_arrow_type_name(rt.id));
        if (out->children[1]->length < out->children[0]->length)
            return corrupt(err, "fewer values than run ends");
        return check_run_ends(out->children[0], &rt, length, err);
    }
    default: {
        /* bool and fixed width */
        struct loaded data;
        uint64_t need = t.bit_width == 1 ? (uint64_t)basalt_bitmap_bytes(length)
                                         : (uint64_t)length * (uint64_t)(t.bit_width / 8);
        if (t.bit_width > 8 && (uint64_t)length > UINT64_MAX / 64)
            return corrupt(err, "length %lld", (long long)length);
        st = load_validity(ctx, out, err);
        if (st == BASALT_OK)
            st = next_buffer(ctx, out, 1, need, fixed_swap(&t), &data, err);
        if (st != BASALT_OK)
            return st;
        if (!data.data)
            basalt_ipc_node_set_buffer(out, 1, ipc_zeros, false);
        if (schema->dictionary)
            return attach_dictionary(ctx, schema, &t, out, err);
        return BASALT_OK;
    }
    }
}

static basalt_status load_field(struct ipc_load_ctx *ctx, const struct ArrowSchema *schema,
                                struct ArrowArray *out, int depth, struct basalt_error *err)
{
    out->release = NULL;
    if (depth > ctx->options->max_depth)
        return basalt_error_set(err, BASALT_LIMIT, "fields nested deeper than %d levels",
                                ctx->options->max_depth);
    basalt_status st = load_field_body(ctx, schema, out, depth, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(out);
        return basalt_error_context(err, st, "field '%s'", schema->name ? schema->name : "");
    }
    return BASALT_OK;
}

static basalt_status batch_vectors(struct ipc_load_ctx *ctx, const struct basalt_arrow_fb_table *rb,
                                   int64_t *length, struct basalt_error *err)
{
    bool present;
    basalt_status st = basalt_arrow_fb_i64(rb, 0, 0, length, err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_vector_field(rb, 1, 16, &ctx->nodes, &present, err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_vector_field(rb, 2, 16, &ctx->buffers, &present, err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_vector_field(rb, 4, 8, &ctx->variadic, &present, err);
    if (st != BASALT_OK)
        return st;
    if (*length < 0)
        return corrupt(err, "record batch length %lld", (long long)*length);
    ctx->node_i = ctx->buffer_i = ctx->variadic_i = 0;
    return BASALT_OK;
}

basalt_status basalt_ipc_load_record_batch(struct ipc_load_ctx *ctx,
                                           const struct basalt_arrow_fb_table *rb,
                                           const struct ArrowSchema *schema,
                                           struct ArrowArray *out, struct basalt_error *err)
{
    out->release = NULL;
    int64_t length = 0;
    basalt_status st = batch_vectors(ctx, rb, &length, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_ipc_node_init(out, 1, schema->n_children, ctx->owner, err);
    if (st != BASALT_OK)
        return st;
    out->length = length;
    out->null_count = 0;
    st = load_children(ctx, schema, out, length, 0, err);
    if (st != BASALT_OK)
        basalt_arrow_array_release(out);
    return st;
}

basalt_status basalt_ipc_load_dictionary(struct ipc_load_ctx *ctx,
                                         const struct basalt_arrow_fb_table *rb,
                                         const struct ArrowSchema *value_schema,
                                         struct ArrowArray *out, struct basalt_error *err)
{
    out->release = NULL;
    int64_t length = 0;
    basalt_status st = batch_vectors(ctx, rb, &length, err);
    if (st == BASALT_OK)
        st = load_field(ctx, value_schema, out, 1, err);
    if (st == BASALT_OK && out->length < length) {
        basalt_arrow_array_release(out);
        st = corrupt(err, "dictionary of %lld values in a batch of %lld", (long long)out->length,
                     (long long)length);
    }
    return st;
}

/* ------------------------------------------------------------ dictionary ids */

static basalt_status dict_walk(const struct basalt_arrow_fb_table *field,
                               const struct ArrowSchema *node, struct ipc_dicts *dicts,
                               int depth, struct basalt_error *err)
{
    if (depth > 64)
        return basalt_error_set(err, BASALT_LIMIT, "fields nested deeper than 64 levels");
    struct basalt_arrow_fb_table enc;
    bool present;
    basalt_status st = basalt_arrow_fb_table_field(field, 4, &enc, &present, err);
    if (st != BASALT_OK)
        return st;
    const struct ArrowSchema *values = node;
    if (present) {
        int64_t id;
        st = basalt_arrow_fb_i64(&enc, 0, 0, &id, err);
        if (st != BASALT_OK)
            return st;
        if (!node->dictionary)
            return basalt_error_set(err, BASALT_INTERNAL, "schema and fields disagree");
        for (int64_t i = 0; i < dicts->n; i++)
            if (dicts->slots[i].id == id) {
                /* One dictionary shared by several fields must have one type. */
                const struct ArrowSchema *other = dicts->slots[i].node->dictionary;
                if (strcmp(other->format, node->dictionary->format) != 0)
                    return corrupt(err, "dictionary id %lld used with types %s and %s",
                                   (long long)id, other->format, node->dictionary->format);
            }
        struct ipc_dict_slot *slots =
            basalt_realloc(dicts->slots, (size_t)(dicts->n + 1) * sizeof *slots);
        if (!slots)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for dictionary ids");
        dicts->slots = slots;
        slots[dicts->n++] = (struct ipc_dict_slot){.node = node, .id = id, .current = NULL};
        values = node->dictionary;
    }
    struct basalt_arrow_fb_vector children;
    st = basalt_arrow_fb_vector_field(field, 5, 4, &children, &present, err);
    if (st != BASALT_OK)
        return st;
    if ((int64_t)children.count != values->n_children)
        return basalt_error_set(err, BASALT_INTERNAL, "schema and fields disagree");
    for (uint32_t i = 0; i < children.count; i++) {
        struct basalt_arrow_fb_table child;
        st = basalt_arrow_fb_vector_table(&children, i, &child, err);
        if (st == BASALT_OK)
            st = dict_walk(&child, values->children[i], dicts, depth + 1, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

basalt_status basalt_ipc_dicts_from_schema(const struct basalt_arrow_fb_table *schema_table,
                                           const struct ArrowSchema *schema,
                                           struct ipc_dicts *dicts, struct basalt_error *err)
{
    struct basalt_arrow_fb_vector fields;
    bool present;
    basalt_status st = basalt_arrow_fb_vector_field(schema_table, 1, 4, &fields, &present, err);
    if (st != BASALT_OK)
        return st;
    if ((int64_t)fields.count != schema->n_children)
        return basalt_error_set(err, BASALT_INTERNAL, "schema and fields disagree");
    for (uint32_t i = 0; i < fields.count; i++) {
        struct basalt_arrow_fb_table f;
        st = basalt_arrow_fb_vector_table(&fields, i, &f, err);
        if (st == BASALT_OK)
            st = dict_walk(&f, schema->children[i], dicts, 1, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

void basalt_ipc_dicts_reset(struct ipc_dicts *dicts)
{
    for (int64_t i = 0; i < dicts->n; i++)
        basalt_ipc_owner_unref(dicts->slots[i].current);
    basalt_free(dicts->slots);
    dicts->slots = NULL;
    dicts->n = 0;
}
