/* Reassembly of shredded VARIANT columns (VariantShredding.md): the arrays
 * the assembler built for a VARIANT group's Parquet children (metadata,
 * value, typed_value and the groups below) become the unshredded binary
 * metadata and value of every row.
 *
 * The schema is bound once per call into a tree of nodes, each a {value,
 * typed_value} pair with the arrays and the encoding of its typed_value (a
 * primitive, an object of named fields, an array of elements). Each row is
 * then built depth first into one growing buffer: an object or array
 * encodes its children first, in place, then slides them right to make room
 * for its header. Objects list their fields sorted by name with the values
 * in that order, and every header uses the smallest sizes that fit: the
 * canonical form, which is also what Iceberg and Spark write. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "variant_internal.h"

enum tkind { T_NONE = 0, T_PRIMITIVE, T_OBJECT, T_ARRAY };

struct vfield;

struct vnode {
    const struct ArrowArray *value; /* binary, or NULL */
    int value_width;                /* its offset width */
    enum tkind kind;
    const struct ArrowArray *typed;
    /* T_PRIMITIVE */
    int vtype;          /* enum basalt_parquet_variant_primitive */
    int width;          /* bytes of an Arrow value (fixed), offset width (binary) */
    int copy;           /* bytes written (decimals: the low bytes of the decimal128) */
    int scale;          /* decimals */
    /* T_OBJECT: fields sorted by name */
    int32_t n_fields;
    struct vfield *fields;
    /* T_ARRAY */
    bool wide;          /* int64 list offsets */
    struct vnode *element;
};

struct vfield {
    const char *name;
    size_t name_len;
    struct vnode node;
    uint64_t generation; /* of the metadata `id` was looked up in */
    int64_t id;
};

/* An entry of an object being built. */
struct entry {
    const uint8_t *name;  /* into the schema or the metadata */
    size_t name_len;
    uint32_t id;
    bool shredded;        /* bytes at buf[base + off], else at src */
    size_t off, len;
    const uint8_t *src;
};

struct uctx {
    const struct basalt_parquet_schema *schema;
    const struct basalt_parquet_leaf_values *leaves;
    bool large_lists;
    struct basalt_arena arena;
    struct basalt_parquet_variant_metadata md;
    uint64_t generation;
    struct basalt_buffer buf;   /* the value being built */
    struct basalt_buffer ents;  /* a stack of struct entry */
    struct basalt_buffer offs;  /* a stack of size_t */
    struct basalt_error *err;
};

/* ------------------------------------------------------------------ arrays */

static bool valid(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
    return !v || a->null_count == 0 || basalt_bitmap_get(v, a->offset + i);
}

static void bytes_at(const struct ArrowArray *a, int width, int64_t i, const uint8_t **p,
                     size_t *n)
{
    int64_t j = a->offset + i, b, e;
    if (width == 8) {
        b = ((const int64_t *)a->buffers[1])[j];
        e = ((const int64_t *)a->buffers[1])[j + 1];
    } else {
        b = ((const int32_t *)a->buffers[1])[j];
        e = ((const int32_t *)a->buffers[1])[j + 1];
    }
    *p = basalt_parquet_nonnull((const uint8_t *)a->buffers[2]) + b;
    *n = (size_t)(e - b);
}

/* ------------------------------------------------------------------ binding */

static basalt_status bind_node(struct uctx *u, int32_t field, const struct ArrowArray *arr,
                               bool top, struct vnode *out);

static basalt_status unsupported(struct uctx *u, const struct basalt_parquet_schema_field *f,
                                 const char *what)
{
    return basalt_error_set(u->err, BASALT_UNSUPPORTED,
                            "'%s': unsupported shredded value type: %s", f->name, what);
}

/* The variant type and Arrow layout of a primitive typed_value. */
static basalt_status bind_primitive(struct uctx *u, const struct basalt_parquet_schema_field *f,
                                    struct vnode *n)
{
    const struct basalt_parquet_schema_leaf *leaf = &u->schema->leaves[f->leaf];
    const struct basalt_parquet_schema_annotation *a = &leaf->annotation;
    int32_t t = leaf->physical_type;
    char what[64];
    n->kind = T_PRIMITIVE;
    n->width = leaf->value_width;
    n->copy = leaf->value_width;
    if (u->leaves[f->leaf].is_dictionary)
        return unsupported(u, f, "dictionary-encoded output");
    if (a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_DECIMAL) {
        if (a->precision > 38)
            return unsupported(u, f, "DECIMAL with more than 38 digits");
        n->scale = a->scale;
        n->width = 16;
        if (t == BASALT_PARQUET_TYPE_INT32) {
            n->vtype = BASALT_PARQUET_VARIANT_DECIMAL4;
            n->copy = 4;
        } else if (t == BASALT_PARQUET_TYPE_INT64) {
            n->vtype = BASALT_PARQUET_VARIANT_DECIMAL8;
            n->copy = 8;
        } else {
            n->vtype = BASALT_PARQUET_VARIANT_DECIMAL16;
            n->copy = 16;
        }
        return BASALT_OK;
    }
    switch (t) {
    case BASALT_PARQUET_TYPE_BOOLEAN:
        if (a->kind != BASALT_PARQUET_SCHEMA_LOGICAL_NONE)
            break;
        n->vtype = BASALT_PARQUET_VARIANT_TRUE;
        return BASALT_OK;
    case BASALT_PARQUET_TYPE_INT32:
        if (a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_NONE ||
            (a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_INTEGER && a->is_signed)) {
            int bits = a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_NONE ? 32 : a->bit_width;
            n->vtype = bits == 8    ? BASALT_PARQUET_VARIANT_INT8
                       : bits == 16 ? BASALT_PARQUET_VARIANT_INT16
                                    : BASALT_PARQUET_VARIANT_INT32;
            return BASALT_OK;
        }
        if (a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_DATE) {
            n->vtype = BASALT_PARQUET_VARIANT_DATE;
            return BASALT_OK;
        }
        break;
    case BASALT_PARQUET_TYPE_INT64:
        if (a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_NONE ||
            (a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_INTEGER && a->is_signed)) {
            n->vtype = BASALT_PARQUET_VARIANT_INT64;
            return BASALT_OK;
        }
        if (a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_TIME &&
            a->unit == BASALT_PARQUET_TIME_UNIT_MICROS) {
            n->vtype = BASALT_PARQUET_VARIANT_TIME_NTZ_MICROS;
            return BASALT_OK;
        }
        if (a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_TIMESTAMP &&
            (a->unit == BASALT_PARQUET_TIME_UNIT_MICROS ||
             a->unit == BASALT_PARQUET_TIME_UNIT_NANOS)) {
            bool nanos = a->unit == BASALT_PARQUET_TIME_UNIT_NANOS;
            n->vtype = a->adjusted_to_utc
                           ? (nanos ? BASALT_PARQUET_VARIANT_TIMESTAMP_NANOS
                                    : BASALT_PARQUET_VARIANT_TIMESTAMP_MICROS)
                           : (nanos ? BASALT_PARQUET_VARIANT_TIMESTAMP_NTZ_NANOS
                                    : BASALT_PARQUET_VARIANT_TIMESTAMP_NTZ_MICROS);
            return BASALT_OK;
        }
        break;
    case BASALT_PARQUET_TYPE_FLOAT:
    case BASALT_PARQUET_TYPE_DOUBLE:
        if (a->kind != BASALT_PARQUET_SCHEMA_LOGICAL_NONE)
            break;
        n->vtype = t == BASALT_PARQUET_TYPE_FLOAT ? BASALT_PARQUET_VARIANT_FLOAT
                                                  : BASALT_PARQUET_VARIANT_DOUBLE;
        return BASALT_OK;
    case BASALT_PARQUET_TYPE_BYTE_ARRAY:
        if (a->kind != BASALT_PARQUET_SCHEMA_LOGICAL_NONE &&
            a->kind != BASALT_PARQUET_SCHEMA_LOGICAL_STRING)
            break;
        n->vtype = a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_STRING ? BASALT_PARQUET_VARIANT_STRING
                                                                   : BASALT_PARQUET_VARIANT_BINARY;
        n->width = u->leaves[f->leaf].width;
        return BASALT_OK;
    case BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY:
        if (a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_UUID && leaf->type_length == 16) {
            n->vtype = BASALT_PARQUET_VARIANT_UUID;
            return BASALT_OK;
        }
        break;
    default:
        break;
    }
    /* Named as parquet-java prints types. */
    static const char *const physical[] = {"boolean", "int32", "int64", "int96",
                                           "float",   "double", "binary", "fixed_len_byte_array"};
    const char *p = t >= 0 && t < 8 ? physical[t] : "unknown";
    if (a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_INTEGER)
        snprintf(what, sizeof what, "INTEGER(%d,%s)", (int)a->bit_width,
                 a->is_signed ? "true" : "false");
    else if (t == BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY)
        snprintf(what, sizeof what, "%s(%d)", p, (int)leaf->type_length);
    else
        snprintf(what, sizeof what, "%s with annotation %d", p, (int)a->kind);
    return unsupported(u, f, what);
}

static int compare_bytes(const void *a, size_t alen, const void *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    return c ? c : (alen > blen) - (alen < blen);
}

static int field_order(const void *x, const void *y)
{
    const struct vfield *a = x, *b = y;
    return compare_bytes(a->name, a->name_len, b->name, b->name_len);
}

static basalt_status bind_typed(struct uctx *u, int32_t field, const struct ArrowArray *arr,
                                struct vnode *n)
{
    const struct basalt_parquet_schema *s = u->schema;
    const struct basalt_parquet_schema_field *f = &s->fields[field];
    n->typed = arr;
    switch (f->kind) {
    case BASALT_PARQUET_FIELD_PRIMITIVE:
        return bind_primitive(u, f, n);
    case BASALT_PARQUET_FIELD_STRUCT: {
        n->kind = T_OBJECT;
        n->n_fields = f->n_children;
        n->fields = basalt_arena_alloc(&u->arena,
                                       (size_t)(f->n_children ? f->n_children : 1) *
                                           sizeof *n->fields,
                                       8);
        if (!n->fields)
            return basalt_error_set(u->err, BASALT_NOMEM, "out of memory");
        memset(n->fields, 0, (size_t)f->n_children * sizeof *n->fields);
        for (int32_t k = 0; k < f->n_children; k++) {
            const struct basalt_parquet_schema_field *c = &s->fields[f->children[k]];
            if (c->kind != BASALT_PARQUET_FIELD_STRUCT)
                return basalt_error_set(u->err, BASALT_CORRUPT,
                                        "shredded field '%s' is not a group of value and "
                                        "typed_value",
                                        c->name);
            struct vfield *vf = &n->fields[k];
            vf->name = c->name;
            vf->name_len = strlen(c->name);
            vf->id = -1;
            basalt_status st = bind_node(u, f->children[k], arr->children[k], false, &vf->node);
            if (st != BASALT_OK)
                return basalt_error_context(u->err, st, "field '%s'", c->name);
        }
        qsort(n->fields, (size_t)n->n_fields, sizeof *n->fields, field_order);
        return BASALT_OK;
    }
    case BASALT_PARQUET_FIELD_LIST:
    case BASALT_PARQUET_FIELD_LARGE_LIST: {
        n->kind = T_ARRAY;
        n->wide = f->kind == BASALT_PARQUET_FIELD_LARGE_LIST || u->large_lists;
        const struct basalt_parquet_schema_field *e = &s->fields[f->children[0]];
        if (e->kind != BASALT_PARQUET_FIELD_STRUCT)
            return basalt_error_set(u->err, BASALT_CORRUPT,
                                    "'%s': a shredded array element is not a group of value and "
                                    "typed_value",
                                    f->name);
        n->element = basalt_arena_alloc(&u->arena, sizeof *n->element, 8);
        if (!n->element)
            return basalt_error_set(u->err, BASALT_NOMEM, "out of memory");
        memset(n->element, 0, sizeof *n->element);
        return bind_node(u, f->children[0], arr->children[0], false, n->element);
    }
    default:
        return unsupported(u, f, "a MAP group");
    }
}

/* A group of value and typed_value (the VARIANT group itself when `top`,
 * which also holds metadata). */
static basalt_status bind_node(struct uctx *u, int32_t field, const struct ArrowArray *arr,
                               bool top, struct vnode *out)
{
    const struct basalt_parquet_schema *s = u->schema;
    const struct basalt_parquet_schema_field *f = &s->fields[field];
    if (arr->n_children != f->n_children)
        return basalt_error_set(u->err, BASALT_INTERNAL, "'%s': %" PRId64 " arrays for %d fields",
                                f->name, arr->n_children, (int)f->n_children);
    for (int32_t k = 0; k < f->n_children; k++) {
        const struct basalt_parquet_schema_field *c = &s->fields[f->children[k]];
        if (strcmp(c->name, "value") == 0) {
            if (c->kind != BASALT_PARQUET_FIELD_PRIMITIVE ||
                s->leaves[c->leaf].physical_type != BASALT_PARQUET_TYPE_BYTE_ARRAY)
                return basalt_error_set(u->err, BASALT_CORRUPT,
                                        "'%s': 'value' is not a binary column", f->name);
            out->value = arr->children[k];
            out->value_width = u->leaves[c->leaf].width;
        } else if (strcmp(c->name, "typed_value") == 0) {
            basalt_status st = bind_typed(u, f->children[k], arr->children[k], out);
            if (st != BASALT_OK)
                return st;
        } else if (top && strcmp(c->name, "metadata") == 0) {
            if (c->kind != BASALT_PARQUET_FIELD_PRIMITIVE ||
                s->leaves[c->leaf].physical_type != BASALT_PARQUET_TYPE_BYTE_ARRAY)
                return basalt_error_set(u->err, BASALT_CORRUPT,
                                        "'%s': 'metadata' is not a binary column", f->name);
        }
    }
    if (!out->value && !out->typed && !top)
        return basalt_error_set(u->err, BASALT_CORRUPT, "'%s' has neither value nor typed_value",
                                f->name);
    return BASALT_OK;
}

/* ------------------------------------------------------------------ encoding */

static int size_bytes(uint64_t max)
{
    return max <= 0xff ? 1 : max <= 0xffff ? 2 : max <= 0xffffff ? 3 : 4;
}

static void store_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static basalt_status put(struct uctx *u, const void *p, size_t n)
{
    return basalt_buffer_append(&u->buf, p, n, u->err);
}

static basalt_status put_primitive(struct uctx *u, const struct vnode *n, int64_t i)
{
    const struct ArrowArray *a = n->typed;
    int64_t j = a->offset + i;
    uint8_t head[24];
    if (n->vtype == BASALT_PARQUET_VARIANT_TRUE) {
        bool b = basalt_bitmap_get(a->buffers[1], j);
        head[0] = (uint8_t)((b ? BASALT_PARQUET_VARIANT_TRUE : BASALT_PARQUET_VARIANT_FALSE) << 2);
        return put(u, head, 1);
    }
    if (n->vtype == BASALT_PARQUET_VARIANT_STRING || n->vtype == BASALT_PARQUET_VARIANT_BINARY) {
        const uint8_t *p;
        size_t len;
        bytes_at(a, n->width, i, &p, &len);
        if (len > UINT32_MAX)
            return basalt_error_set(u->err, BASALT_LIMIT, "a string over 4 GiB");
        size_t h = 0;
        if (n->vtype == BASALT_PARQUET_VARIANT_STRING && len < 64) {
            head[h++] = (uint8_t)(len << 2 | BASALT_PARQUET_VARIANT_BASIC_SHORT_STRING);
        } else {
            head[h++] = (uint8_t)(n->vtype << 2);
            store_le(head + h, len, 4);
            h += 4;
        }
        basalt_status st = put(u, head, h);
        return st == BASALT_OK ? put(u, p, len) : st;
    }
    const uint8_t *v = (const uint8_t *)a->buffers[1] + (size_t)j * (size_t)n->width;
    size_t h = 0;
    head[h++] = (uint8_t)(n->vtype << 2);
    if (n->vtype >= BASALT_PARQUET_VARIANT_DECIMAL4 && n->vtype <= BASALT_PARQUET_VARIANT_DECIMAL16)
        head[h++] = (uint8_t)n->scale;
    memcpy(head + h, v, (size_t)n->copy);
    return put(u, head, h + (size_t)n->copy);
}

/* Makes room for a `h`-byte header before the `body` bytes at buf[start],
 * and returns where the header goes. */
static basalt_status slide(struct uctx *u, size_t start, size_t h, uint8_t **header)
{
    size_t body = u->buf.size - start;
    basalt_status st = basalt_buffer_resize(&u->buf, u->buf.size + h, u->err);
    if (st != BASALT_OK)
        return st;
    memmove(u->buf.data + start + h, u->buf.data + start, body);
    *header = u->buf.data + start;
    return BASALT_OK;
}

static basalt_status construct(struct uctx *u, const struct vnode *n, int64_t i, int depth,
                               bool *missing);

static basalt_status make_array(struct uctx *u, const struct vnode *n, int64_t i, int depth)
{
    const struct ArrowArray *a = n->typed;
    int64_t j = a->offset + i, b, e;
    if (n->wide) {
        b = ((const int64_t *)a->buffers[1])[j];
        e = ((const int64_t *)a->buffers[1])[j + 1];
    } else {
        b = ((const int32_t *)a->buffers[1])[j];
        e = ((const int32_t *)a->buffers[1])[j + 1];
    }
    size_t start = u->buf.size;
    size_t base = u->offs.size / sizeof(size_t);
    basalt_status st = BASALT_OK;
    for (int64_t k = b; k < e && st == BASALT_OK; k++) {
        size_t at = u->buf.size - start;
        st = basalt_buffer_append(&u->offs, &at, sizeof at, u->err);
        bool missing = false;
        if (st == BASALT_OK)
            st = construct(u, n->element, k, depth + 1, &missing);
        if (st == BASALT_OK && missing) {
            /* Elements cannot be missing; one written so reads as Variant
             * null, as Iceberg reads it. */
            uint8_t null_value = 0;
            st = put(u, &null_value, 1);
        } else if (st != BASALT_OK) {
            st = basalt_error_context(u->err, st, "array element %" PRId64, k - b);
        }
    }
    if (st != BASALT_OK)
        return st;
    uint64_t count = (uint64_t)(e - b);
    size_t body = u->buf.size - start;
    if (body > UINT32_MAX || count > UINT32_MAX)
        return basalt_error_set(u->err, BASALT_LIMIT, "an array over 4 GiB");
    int osz = size_bytes(body);
    bool large = count > 0xff;
    size_t h = 1 + (large ? 4 : 1) + (size_t)(count + 1) * (size_t)osz;
    uint8_t *p;
    st = slide(u, start, h, &p);
    if (st != BASALT_OK)
        return st;
    const size_t *offs = (const size_t *)(void *)u->offs.data + base;
    *p++ = (uint8_t)(((large ? 4 : 0) | (osz - 1)) << 2 | BASALT_PARQUET_VARIANT_BASIC_ARRAY);
    store_le(p, count, large ? 4 : 1);
    p += large ? 4 : 1;
    for (uint64_t k = 0; k < count; k++, p += osz)
        store_le(p, offs[k], osz);
    store_le(p, body, osz);
    u->offs.size = base * sizeof(size_t);
    return BASALT_OK;
}

static int entry_order(const void *x, const void *y)
{
    const struct entry *a = x, *b = y;
    return compare_bytes(a->name, a->name_len, b->name, b->name_len);
}

/* Whether the object node shreds a field of this name (fields are sorted). */
static bool is_shredded(const struct vnode *n, const uint8_t *name, size_t len)
{
    int32_t lo = 0, hi = n->n_fields;
    while (lo < hi) {
        int32_t mid = lo + (hi - lo) / 2;
        int c = compare_bytes(n->fields[mid].name, n->fields[mid].name_len, name, len);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

static basalt_status push_entry(struct uctx *u, const struct entry *e)
{
    return basalt_buffer_append(&u->ents, e, sizeof *e, u->err);
}

static basalt_status make_object(struct uctx *u, const struct vnode *n, int64_t i, int depth,
                                 const uint8_t *rest, size_t rest_len)
{
    size_t start = u->buf.size;
    size_t base = u->ents.size / sizeof(struct entry);
    basalt_status st = BASALT_OK;
    /* The shredded fields, encoded in name order. */
    for (int32_t k = 0; k < n->n_fields && st == BASALT_OK; k++) {
        struct vfield *f = &n->fields[k];
        size_t mark = u->buf.size;
        bool missing = false;
        st = construct(u, &f->node, i, depth + 1, &missing);
        if (st != BASALT_OK) {
            char shown[40];
            snprintf(shown, sizeof shown, "%.*s", (int)(f->name_len < 39 ? f->name_len : 39),
                     f->name);
            return basalt_error_context(u->err, st, "field '%s'", shown);
        }
        if (missing)
            continue;
        if (f->generation != u->generation) {
            f->id = basalt_parquet_variant_metadata_find(&u->md, f->name, f->name_len);
            f->generation = u->generation;
        }
        if (f->id < 0)
            return basalt_error_set(u->err, BASALT_CORRUPT,
                                    "shredded field '%s' is not in the metadata dictionary",
                                    f->name);
        struct entry e = {(const uint8_t *)f->name, f->name_len, (uint32_t)f->id, true,
                          mark - start, u->buf.size - mark, NULL};
        st = push_entry(u, &e);
    }
    size_t shredded = u->ents.size / sizeof(struct entry) - base;
    /* The fields of a partially shredded object's value, but for those the
     * schema shreds, present or missing there (the shredded columns win, as
     * the specification asks of readers that accept such files). */
    if (st == BASALT_OK && rest) {
        int h = rest[0] >> 2;
        int osz = (h & 3) + 1, isz = ((h >> 2) & 3) + 1;
        bool large = (h >> 4) & 1;
        uint64_t count = basalt_parquet_variant_le(rest + 1, large ? 4 : 1);
        const uint8_t *ids = rest + 1 + (large ? 4 : 1);
        const uint8_t *offs = ids + count * (uint64_t)isz;
        const uint8_t *fields = offs + (count + 1) * (uint64_t)osz;
        size_t fields_len = rest_len - (size_t)(fields - rest);
        for (uint64_t k = 0; k < count && st == BASALT_OK; k++) {
            uint32_t id = (uint32_t)basalt_parquet_variant_le(ids + k * (uint64_t)isz, isz);
            uint64_t o = basalt_parquet_variant_le(offs + k * (uint64_t)osz, osz);
            const uint8_t *name;
            size_t name_len, size;
            basalt_parquet_variant_metadata_name(&u->md, id, &name, &name_len);
            /* validated with the whole value: cannot fail */
            st = basalt_parquet_variant_validate(&u->md, fields + o, fields_len - (size_t)o,
                                                 &size, u->err);
            if (st == BASALT_OK && !is_shredded(n, name, name_len)) {
                struct entry e = {name, name_len, id, false, 0, size, fields + o};
                st = push_entry(u, &e);
            }
        }
    }
    if (st != BASALT_OK)
        return st;
    struct entry *es = (struct entry *)(void *)u->ents.data + base;
    size_t count = u->ents.size / sizeof(struct entry) - base;
    if (count > shredded)
        qsort(es, count, sizeof *es, entry_order);
    /* Values in name order after the shredded ones, then the header. */
    size_t body = 0;
    uint32_t max_id = 0;
    for (size_t k = 0; k < count; k++) {
        body += es[k].len;
        if (es[k].id > max_id)
            max_id = es[k].id;
    }
    size_t mid = u->buf.size;
    if (count > shredded) {
        st = basalt_buffer_resize(&u->buf, mid + body, u->err);
        if (st != BASALT_OK)
            return st;
        es = (struct entry *)(void *)u->ents.data + base;
        size_t at = mid;
        for (size_t k = 0; k < count; k++) {
            const uint8_t *src = es[k].shredded ? u->buf.data + start + es[k].off : es[k].src;
            memcpy(u->buf.data + at, src, es[k].len);
            es[k].off = at - mid;
            at += es[k].len;
        }
        memmove(u->buf.data + start, u->buf.data + mid, body);
        u->buf.size = start + body;
    }
    if (body > UINT32_MAX || count > UINT32_MAX)
        return basalt_error_set(u->err, BASALT_LIMIT, "an object over 4 GiB");
    int osz = size_bytes(body), isz = size_bytes(max_id);
    bool large = count > 0xff;
    size_t h = 1 + (large ? 4 : 1) + count * (size_t)isz + (count + 1) * (size_t)osz;
    uint8_t *p;
    st = slide(u, start, h, &p);
    if (st != BASALT_OK)
        return st;
    es = (struct entry *)(void *)u->ents.data + base;
    *p++ = (uint8_t)(((large ? 16 : 0) | (isz - 1) << 2 | (osz - 1)) << 2 |
                     BASALT_PARQUET_VARIANT_BASIC_OBJECT);
    store_le(p, count, large ? 4 : 1);
    p += large ? 4 : 1;
    for (size_t k = 0; k < count; k++, p += isz)
        store_le(p, es[k].id, isz);
    for (size_t k = 0; k < count; k++, p += osz)
        store_le(p, es[k].off, osz);
    store_le(p, body, osz);
    u->ents.size = base * sizeof(struct entry);
    return BASALT_OK;
}

static basalt_status construct(struct uctx *u, const struct vnode *n, int64_t i, int depth,
                               bool *missing)
{
    if (depth >= BASALT_PARQUET_VARIANT_MAX_DEPTH)
        return basalt_error_set(u->err, BASALT_LIMIT, "nested deeper than %d levels",
                                BASALT_PARQUET_VARIANT_MAX_DEPTH);
    bool has_typed = n->typed && valid(n->typed, i);
    const uint8_t *v = NULL;
    size_t vlen = 0, size;
    if (n->value && valid(n->value, i)) {
        bytes_at(n->value, n->value_width, i, &v, &vlen);
        basalt_status st = basalt_parquet_variant_validate(&u->md, v, vlen, &size, u->err);
        if (st != BASALT_OK)
            return st;
        vlen = size;
    }
    *missing = false;
    if (has_typed) {
        if (n->kind == T_OBJECT) {
            if (v && (v[0] & 3) != BASALT_PARQUET_VARIANT_BASIC_OBJECT)
                return basalt_error_set(u->err, BASALT_CORRUPT,
                                        "invalid variant, non-object value with shredded fields");
            return make_object(u, n, i, depth, v, vlen);
        }
        if (v)
            return basalt_error_set(u->err, BASALT_CORRUPT,
                                    "invalid variant, conflicting value and typed_value");
        return n->kind == T_ARRAY ? make_array(u, n, i, depth) : put_primitive(u, n, i);
    }
    if (v)
        return put(u, v, vlen);
    *missing = true;
    return BASALT_OK;
}

/* ------------------------------------------------------------------ output */

static basalt_status append_offset(struct basalt_buffer *b, bool large, size_t at,
                                   struct basalt_error *err)
{
    if (large) {
        int64_t o = (int64_t)at;
        return basalt_buffer_append(b, &o, 8, err);
    }
    if (at > INT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT,
                                "variant values over 2 GiB in one batch need 64-bit offsets");
    int32_t o = (int32_t)at;
    return basalt_buffer_append(b, &o, 4, err);
}

static basalt_status binary_array(struct basalt_buffer *offsets, struct basalt_buffer *data,
                                  int64_t length, struct ArrowArray *out,
                                  struct basalt_error *err)
{
    basalt_status st = basalt_arrow_array_init(out, 3, 0, err);
    if (st != BASALT_OK)
        return st;
    out->length = length;
    if (data->size == 0)
        st = basalt_buffer_reserve(data, 1, err);
    if (st == BASALT_OK)
        st = basalt_arrow_array_set_buffer(out, 1, basalt_buffer_take(offsets), err);
    if (st == BASALT_OK)
        st = basalt_arrow_array_set_buffer(out, 2, basalt_buffer_take(data), err);
    return st;
}

basalt_status basalt_parquet_variant_unshred(const struct basalt_parquet_schema *schema,
                                             int32_t field,
                                             const struct basalt_parquet_leaf_values *leaves,
                                             bool large_lists, bool large,
                                             struct ArrowArray *internal, struct ArrowArray *out,
                                             struct basalt_error *err)
{
    const struct basalt_parquet_schema_field *f = &schema->fields[field];
    struct uctx u;
    memset(&u, 0, sizeof u);
    u.schema = schema;
    u.leaves = leaves;
    u.large_lists = large_lists;
    u.err = err;
    basalt_arena_init(&u.arena, 4096);
    basalt_buffer_init(&u.buf);
    basalt_buffer_init(&u.ents);
    basalt_buffer_init(&u.offs);
    struct basalt_buffer moffs, mdata, voffs, vdata;
    basalt_buffer_init(&moffs);
    basalt_buffer_init(&mdata);
    basalt_buffer_init(&voffs);
    basalt_buffer_init(&vdata);
    memset(out, 0, sizeof *out);
    struct vnode top;
    memset(&top, 0, sizeof top);
    const struct ArrowArray *meta = NULL;
    int meta_width = 4;
    basalt_status st = bind_node(&u, field, internal, true, &top);
    for (int32_t k = 0; k < f->n_children && st == BASALT_OK; k++) {
        const struct basalt_parquet_schema_field *c = &schema->fields[f->children[k]];
        if (strcmp(c->name, "metadata") == 0) {
            meta = internal->children[k];
            meta_width = leaves[c->leaf].width;
        }
    }
    if (st == BASALT_OK && !meta)
        st = basalt_error_set(err, BASALT_CORRUPT, "a VARIANT group without 'metadata'");
    int64_t n = internal->length;
    if (st == BASALT_OK)
        st = append_offset(&moffs, large, 0, err);
    if (st == BASALT_OK)
        st = append_offset(&voffs, large, 0, err);
    const uint8_t *last_md = NULL;
    size_t last_md_len = 0;
    for (int64_t i = 0; i < n && st == BASALT_OK; i++) {
        if (valid(internal, i)) {
            if (!valid(meta, i)) {
                st = basalt_error_set(err, BASALT_CORRUPT, "row %" PRId64 ": null metadata", i);
                break;
            }
            const uint8_t *m;
            size_t mlen;
            bytes_at(meta, meta_width, i, &m, &mlen);
            if (!last_md || mlen != last_md_len || memcmp(m, last_md, mlen) != 0) {
                size_t used;
                st = basalt_parquet_variant_metadata_parse(m, mlen, &u.md, &used, err);
                if (st == BASALT_OK && used != mlen)
                    st = basalt_error_set(err, BASALT_CORRUPT,
                                          "variant metadata: %zu bytes after its end",
                                          mlen - used);
                if (st != BASALT_OK) {
                    st = basalt_error_context(err, st, "row %" PRId64, i);
                    break;
                }
                last_md = m;
                last_md_len = mlen;
                u.generation++;
            }
            st = basalt_buffer_append(&mdata, m, mlen, err);
            u.buf.size = 0;
            bool missing = false;
            if (st == BASALT_OK)
                st = construct(&u, &top, i, 0, &missing);
            if (st == BASALT_OK && missing) {
                uint8_t null_value = 0; /* a missing top-level value is Variant null */
                st = put(&u, &null_value, 1);
            }
            if (st == BASALT_OK)
                st = basalt_buffer_append(&vdata, u.buf.data, u.buf.size, err);
            if (st != BASALT_OK) {
                st = basalt_error_context(err, st, "row %" PRId64, i);
                break;
            }
        }
        st = append_offset(&moffs, large, mdata.size, err);
        if (st == BASALT_OK)
            st = append_offset(&voffs, large, vdata.size, err);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_array_init(out, 1, 2, err);
    if (st == BASALT_OK) {
        out->length = n;
        out->null_count = internal->null_count;
        if (internal->null_count != 0 && internal->buffers[0]) {
            size_t bytes = (size_t)basalt_bitmap_bytes(n) + 1;
            uint8_t *bits = basalt_aligned_alloc(64, bytes);
            if (!bits)
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory for a validity bitmap");
            else {
                memset(bits, 0, bytes);
                for (int64_t i = 0; i < n; i++)
                    if (valid(internal, i))
                        basalt_bitmap_set(bits, i, true);
                st = basalt_arrow_array_set_buffer(out, 0, bits, err);
            }
        }
    }
    if (st == BASALT_OK)
        st = binary_array(&moffs, &mdata, n, out->children[0], err);
    if (st == BASALT_OK)
        st = binary_array(&voffs, &vdata, n, out->children[1], err);
    if (st != BASALT_OK && out->release) {
        basalt_arrow_array_release(out);
        memset(out, 0, sizeof *out);
    }
    basalt_arrow_array_release(internal);
    basalt_buffer_reset(&moffs);
    basalt_buffer_reset(&mdata);
    basalt_buffer_reset(&voffs);
    basalt_buffer_reset(&vdata);
    basalt_buffer_reset(&u.buf);
    basalt_buffer_reset(&u.ents);
    basalt_buffer_reset(&u.offs);
    basalt_arena_reset(&u.arena);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "variant '%s'", f->name);
    return BASALT_OK;
}
