/* Partition tuples of a batch's rows and the partitions they fall in: each
 * spec field's source value is read from the batch row by row, transformed,
 * and the tuple looked up in a hash table of the partitions seen so far
 * (one open file each, as Java's fanout writer keeps). Rows of one
 * partition usually come together, so a row equal to the one before it
 * skips the lookup. */
#include <string.h>

#include "basalt/hash.h"
#include "basalt/iceberg_transform.h"
#include "data_write_internal.h"

/* ------------------------------------------------------------ binding */

/* Finds field `id` reachable from `t` through structs, recording the path
 * of child indices. *nested is set when it exists below a list or map. */
static const struct basalt_iceberg_field *find_source(const struct basalt_iceberg_type *t,
                                                      int32_t id, uint32_t *path,
                                                      uint32_t depth, uint32_t *out_depth,
                                                      bool through_structs, bool *nested)
{
    if (depth >= BASALT_ICEBERG_DW_MAX_PATH)
        return NULL;
    for (uint32_t i = 0; i < t->n_fields; i++) {
        const struct basalt_iceberg_field *f = &t->fields[i];
        path[depth] = i;
        if (f->id == id) {
            if (!through_structs) {
                *nested = true;
                continue;
            }
            *out_depth = depth + 1;
            return f;
        }
        enum basalt_iceberg_type_id k = f->type.id;
        if (k == BASALT_ICEBERG_TYPE_STRUCT || k == BASALT_ICEBERG_TYPE_LIST ||
            k == BASALT_ICEBERG_TYPE_MAP) {
            const struct basalt_iceberg_field *r =
                find_source(&f->type, id, path, depth + 1, out_depth,
                            through_structs && k == BASALT_ICEBERG_TYPE_STRUCT, nested);
            if (r)
                return r;
        }
    }
    return NULL;
}

basalt_status basalt_iceberg_dw_bind_spec(struct basalt_iceberg_data_writer *w,
                                          struct basalt_error *err)
{
    const struct basalt_iceberg_partition_spec *spec = w->spec;
    if (!spec)
        return BASALT_OK;
    w->pfields = basalt_calloc(spec->n_fields, sizeof *w->pfields);
    w->tmp = basalt_calloc(spec->n_fields, sizeof *w->tmp);
    if (!w->pfields || !w->tmp)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    w->n_pfields = spec->n_fields;
    for (uint32_t i = 0; i < spec->n_fields; i++) {
        const struct basalt_iceberg_partition_field *f = &spec->fields[i];
        struct basalt_iceberg_dw_pfield *p = &w->pfields[i];
        const char *name = f->name ? f->name : "?";
        p->field = f;
        if (f->n_source_ids > 1)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "partition field '%s': transforms of several columns are not written",
                                    name);
        bool nested = false;
        p->source = find_source(&w->schema->root, f->source_id, p->path, 0, &p->depth, true,
                                &nested);
        if (!p->source)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "partition field '%s': source column %d %s", name,
                                    (int)f->source_id,
                                    nested ? "is inside a list or map" : "is not in the schema");
        enum basalt_iceberg_type_id k = p->source->type.id;
        if (k == BASALT_ICEBERG_TYPE_STRUCT || k == BASALT_ICEBERG_TYPE_LIST ||
            k == BASALT_ICEBERG_TYPE_MAP || f->transform.kind == BASALT_ICEBERG_TRANSFORM_UNKNOWN ||
            !basalt_iceberg_transform_can_apply(&f->transform, &p->source->type))
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "partition field '%s': transform '%s' cannot apply to column '%s'",
                                    name, f->transform.text ? f->transform.text : "?",
                                    p->source->name ? p->source->name : "?");
        basalt_status st = basalt_iceberg_transform_result_type(&f->transform, &p->source->type,
                                                                &p->result, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, BASALT_INVALID_ARG, "partition field '%s'", name);
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------ reading values */

static bool slot_valid(const struct ArrowArray *a, int64_t i)
{
    return !a->buffers[0] || a->null_count == 0 || basalt_bitmap_get(a->buffers[0], i);
}

/* The source value of `p` in row `row` of `batch`. */
static basalt_status source_value(const struct basalt_iceberg_dw_pfield *p,
                                  const struct ArrowArray *batch, int64_t row,
                                  struct basalt_iceberg_value *v, struct basalt_error *err)
{
    const struct basalt_iceberg_type *t = &p->source->type;
    memset(v, 0, sizeof *v);
    v->type = t->id;
    const struct ArrowArray *a = batch;
    int64_t pos = batch->offset + row;
    for (uint32_t d = 0; d < p->depth; d++) {
        if ((uint64_t)p->path[d] >= (uint64_t)a->n_children)
            return basalt_error_set(err, BASALT_INVALID_ARG, "batch lacks the partition source column");
        a = a->children[p->path[d]];
        pos += a->offset;
        if (pos >= a->offset + a->length)
            return basalt_error_set(err, BASALT_INVALID_ARG, "column shorter than the batch");
        if (!slot_valid(a, pos) || t->id == BASALT_ICEBERG_TYPE_UNKNOWN) {
            v->is_null = true;
            return BASALT_OK;
        }
    }
    const uint8_t *values = a->n_buffers > 1 ? a->buffers[1] : NULL;
    if (!values)
        return basalt_error_set(err, BASALT_INVALID_ARG, "partition source column without values");
    switch (t->id) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        v->u.b = basalt_bitmap_get(values, pos);
        break;
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        memcpy(&v->u.i32, values + 4 * pos, 4);
        break;
    case BASALT_ICEBERG_TYPE_LONG:
    case BASALT_ICEBERG_TYPE_TIME:
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
        memcpy(&v->u.i64, values + 8 * pos, 8);
        break;
    case BASALT_ICEBERG_TYPE_FLOAT:
        memcpy(&v->u.f32, values + 4 * pos, 4);
        break;
    case BASALT_ICEBERG_TYPE_DOUBLE:
        memcpy(&v->u.f64, values + 8 * pos, 8);
        break;
    case BASALT_ICEBERG_TYPE_DECIMAL: /* decimal128, little-endian */
        memcpy(&v->u.dec.lo, values + 16 * pos, 8);
        memcpy(&v->u.dec.hi, values + 16 * pos + 8, 8);
        v->scale = t->scale;
        break;
    case BASALT_ICEBERG_TYPE_UUID:
    case BASALT_ICEBERG_TYPE_FIXED: {
        size_t width = t->id == BASALT_ICEBERG_TYPE_UUID ? 16 : (size_t)t->length;
        v->u.bytes.data = values + width * (size_t)pos;
        v->u.bytes.len = width;
        break;
    }
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_BINARY: {
        int32_t b, e, first, last;
        memcpy(&b, values + 4 * pos, 4);
        memcpy(&e, values + 4 * pos + 4, 4);
        /* Offsets were checked at the ends only: keep this one between them. */
        memcpy(&first, values + 4 * a->offset, 4);
        memcpy(&last, values + 4 * (a->offset + a->length), 4);
        if (b < first || e < b || e > last || a->n_buffers < 3 || (!a->buffers[2] && e > b))
            return basalt_error_set(err, BASALT_CORRUPT, "offsets out of order");
        v->u.bytes.data = (const uint8_t *)a->buffers[2] + b;
        v->u.bytes.len = (size_t)(e - b);
        break;
    }
    default:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "partition source of this type");
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------ tuples */

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
    return h;
}

/* Float bits as Java's Float.equals sees them: every NaN alike. */
static uint64_t float_bits(const struct basalt_iceberg_value *v)
{
    if (v->type == BASALT_ICEBERG_TYPE_FLOAT) {
        if (v->u.f32 != v->u.f32)
            return 0x7fc00000u;
        uint32_t b;
        memcpy(&b, &v->u.f32, 4);
        return b;
    }
    if (v->u.f64 != v->u.f64)
        return UINT64_C(0x7ff8000000000000);
    uint64_t b;
    memcpy(&b, &v->u.f64, 8);
    return b;
}

static uint64_t value_hash(const struct basalt_iceberg_value *v)
{
    if (v->is_null)
        return 0x6e756c6cu;
    switch (v->type) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        return v->u.b ? 1 : 2;
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        return (uint64_t)(uint32_t)v->u.i32 * UINT64_C(0xff51afd7ed558ccd);
    case BASALT_ICEBERG_TYPE_FLOAT:
    case BASALT_ICEBERG_TYPE_DOUBLE:
        return float_bits(v) * UINT64_C(0xff51afd7ed558ccd);
    case BASALT_ICEBERG_TYPE_DECIMAL:
        return mix(v->u.dec.lo, (uint64_t)v->u.dec.hi);
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_BINARY:
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_UUID:
        return basalt_hash_xxh64(v->u.bytes.data, v->u.bytes.len, 0);
    default:
        return (uint64_t)v->u.i64 * UINT64_C(0xff51afd7ed558ccd);
    }
}

static bool value_equal(const struct basalt_iceberg_value *a, const struct basalt_iceberg_value *b)
{
    if (a->is_null || b->is_null)
        return a->is_null == b->is_null;
    switch (a->type) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        return a->u.b == b->u.b;
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        return a->u.i32 == b->u.i32;
    case BASALT_ICEBERG_TYPE_FLOAT:
    case BASALT_ICEBERG_TYPE_DOUBLE:
        return float_bits(a) == float_bits(b);
    case BASALT_ICEBERG_TYPE_DECIMAL:
        return a->u.dec.lo == b->u.dec.lo && a->u.dec.hi == b->u.dec.hi;
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_BINARY:
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_UUID:
        return a->u.bytes.len == b->u.bytes.len &&
               (a->u.bytes.len == 0 || memcmp(a->u.bytes.data, b->u.bytes.data, a->u.bytes.len) == 0);
    default:
        return a->u.i64 == b->u.i64;
    }
}

static bool tuple_equal(const struct basalt_iceberg_value *a, const struct basalt_iceberg_value *b,
                        uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!value_equal(&a[i], &b[i]))
            return false;
    return true;
}

/* ------------------------------------------------------------ the table */

static basalt_status add_part(struct basalt_iceberg_data_writer *w,
                              struct basalt_iceberg_dw_partition *p, struct basalt_error *err)
{
    if (w->n_parts == w->cap_parts) {
        uint32_t cap = w->cap_parts ? w->cap_parts * 2 : 8;
        struct basalt_iceberg_dw_partition **parts = basalt_realloc(w->parts, cap * sizeof *parts);
        if (!parts)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        w->parts = parts;
        w->cap_parts = cap;
    }
    /* the table stays at most half full */
    if ((uint64_t)(w->n_parts + 1) * 2 > w->n_slots) {
        uint32_t n = w->n_slots ? w->n_slots * 2 : 16;
        uint32_t *slots = basalt_calloc(n, sizeof *slots);
        if (!slots)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (uint32_t i = 0; i < w->n_parts; i++) {
            uint32_t s = (uint32_t)w->parts[i]->hash & (n - 1);
            while (slots[s])
                s = (s + 1) & (n - 1);
            slots[s] = i + 1;
        }
        basalt_free(w->slots);
        w->slots = slots;
        w->n_slots = n;
    }
    uint32_t s = (uint32_t)p->hash & (w->n_slots - 1);
    while (w->slots[s])
        s = (s + 1) & (w->n_slots - 1);
    w->slots[s] = w->n_parts + 1;
    w->parts[w->n_parts++] = p;
    return BASALT_OK;
}

/* A new partition of tuple w->tmp: the tuple copied into the arena, its path. */
static basalt_status new_part(struct basalt_iceberg_data_writer *w, uint64_t hash,
                              uint32_t *index, struct basalt_error *err)
{
    uint32_t n = w->n_pfields;
    struct basalt_iceberg_dw_partition *p = basalt_calloc(1, sizeof *p);
    if (!p)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    p->hash = hash;
    p->batch = UINT64_MAX;
    p->tuple = basalt_arena_alloc(&w->arena, (n ? n : 1) * sizeof *p->tuple, 8);
    basalt_status st = p->tuple ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t i = 0; st == BASALT_OK && i < n; i++) {
        p->tuple[i] = w->tmp[i];
        enum basalt_iceberg_type_id k = p->tuple[i].type;
        if (!p->tuple[i].is_null &&
            (k == BASALT_ICEBERG_TYPE_STRING || k == BASALT_ICEBERG_TYPE_BINARY ||
             k == BASALT_ICEBERG_TYPE_FIXED || k == BASALT_ICEBERG_TYPE_UUID)) {
            size_t len = p->tuple[i].u.bytes.len;
            uint8_t *copy = basalt_arena_alloc(&w->arena, len ? len : 1, 1);
            if (!copy) {
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
                break;
            }
            if (len)
                memcpy(copy, p->tuple[i].u.bytes.data, len);
            p->tuple[i].u.bytes.data = copy;
        }
    }
    struct basalt_buffer path;
    basalt_buffer_init(&path);
    if (st == BASALT_OK && w->spec)
        st = basalt_iceberg_dw_partition_path(w->spec, w->pfields, p->tuple, &path, err);
    if (st == BASALT_OK) {
        p->path = basalt_arena_strndup(&w->arena, path.size ? (const char *)path.data : "",
                                       path.size);
        if (!p->path)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    basalt_buffer_reset(&path);
    if (st == BASALT_OK) {
        *index = w->n_parts;
        st = add_part(w, p, err);
    }
    if (st != BASALT_OK)
        basalt_free(p);
    return st;
}

basalt_status basalt_iceberg_dw_unpartitioned(struct basalt_iceberg_data_writer *w,
                                              struct basalt_iceberg_dw_partition **out,
                                              struct basalt_error *err)
{
    if (w->n_parts == 0) {
        uint32_t index;
        basalt_status st = new_part(w, 0, &index, err);
        if (st != BASALT_OK)
            return st;
    }
    *out = w->parts[0];
    return BASALT_OK;
}

static basalt_status find_part(struct basalt_iceberg_data_writer *w, uint32_t *index,
                               struct basalt_error *err)
{
    uint64_t h = 0;
    for (uint32_t i = 0; i < w->n_pfields; i++)
        h = mix(h, value_hash(&w->tmp[i]));
    for (uint32_t s = (uint32_t)h & (w->n_slots - 1); w->n_slots && w->slots[s];
         s = (s + 1) & (w->n_slots - 1)) {
        const struct basalt_iceberg_dw_partition *p = w->parts[w->slots[s] - 1];
        if (p->hash == h && tuple_equal(p->tuple, w->tmp, w->n_pfields)) {
            *index = w->slots[s] - 1;
            return BASALT_OK;
        }
    }
    return new_part(w, h, index, err);
}

static basalt_status ensure_scratch(struct basalt_iceberg_data_writer *w, int64_t n,
                                    struct basalt_error *err)
{
    if (n <= w->scratch_rows)
        return BASALT_OK;
    basalt_free(w->row_part);
    basalt_free(w->row_index);
    w->row_index = NULL;
    w->scratch_rows = 0;
    w->row_part = basalt_malloc((size_t)n * sizeof *w->row_part);
    w->row_index = w->row_part ? basalt_malloc((size_t)n * sizeof *w->row_index) : NULL;
    if (!w->row_index)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    w->scratch_rows = n;
    return BASALT_OK;
}

static basalt_status touch(struct basalt_iceberg_data_writer *w, uint32_t index,
                           struct basalt_error *err)
{
    struct basalt_iceberg_dw_partition *p = w->parts[index];
    if (p->batch == w->batch_seq)
        return BASALT_OK;
    if (w->n_touched == w->cap_touched) {
        uint32_t cap = w->cap_touched ? w->cap_touched * 2 : 8;
        uint32_t *t = basalt_realloc(w->touched, cap * sizeof *t);
        if (!t)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        w->touched = t;
        w->cap_touched = cap;
    }
    w->touched[w->n_touched++] = index;
    p->batch = w->batch_seq;
    p->count = 0;
    return BASALT_OK;
}

basalt_status basalt_iceberg_dw_route(struct basalt_iceberg_data_writer *w,
                                      const struct ArrowArray *batch, struct basalt_error *err)
{
    int64_t n = batch->length;
    basalt_status st = ensure_scratch(w, n, err);
    if (st != BASALT_OK)
        return st;
    w->batch_seq++;
    w->n_touched = 0;
    uint32_t prev = UINT32_MAX;
    for (int64_t row = 0; row < n; row++) {
        for (uint32_t i = 0; i < w->n_pfields; i++) {
            const struct basalt_iceberg_dw_pfield *p = &w->pfields[i];
            struct basalt_iceberg_value v;
            st = source_value(p, batch, row, &v, err);
            if (st == BASALT_OK)
                st = basalt_iceberg_transform_apply(&p->field->transform, &p->source->type, &v,
                                                    &w->tmp[i], err);
            if (st != BASALT_OK)
                return basalt_error_context(err, st, "row %lld: partition field '%s'",
                                            (long long)row, p->field->name ? p->field->name : "?");
        }
        uint32_t index = prev;
        if (prev == UINT32_MAX || !tuple_equal(w->parts[prev]->tuple, w->tmp, w->n_pfields)) {
            st = find_part(w, &index, err);
            if (st == BASALT_OK)
                st = touch(w, index, err);
            if (st != BASALT_OK)
                return st;
        }
        w->row_part[row] = index;
        w->parts[index]->count++;
        prev = index;
    }
    /* each touched partition's rows, in order, as a run of row_index */
    int64_t first = 0;
    for (uint32_t t = 0; t < w->n_touched; t++) {
        struct basalt_iceberg_dw_partition *p = w->parts[w->touched[t]];
        p->first = first;
        first += p->count;
        p->count = 0;
    }
    for (int64_t row = 0; row < n; row++) {
        struct basalt_iceberg_dw_partition *p = w->parts[w->row_part[row]];
        w->row_index[p->first + p->count++] = row;
    }
    return BASALT_OK;
}
