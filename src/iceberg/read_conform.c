/* Reading a data file's columns into the table schema by field id: renamed,
 * added, dropped and reordered fields, type promotions, constants. */
#include <string.h>

#include "scan_internal.h"

#define MAX_DEPTH 200

/* The value of a missing column: an identity partition value of the task's
 * spec, else the field's initial default, else NULL (null). */
static const struct basalt_iceberg_value *missing_value(const struct basalt_iceberg_read_ctx *ctx,
                                                        const struct basalt_iceberg_field *field)
{
    if (ctx != NULL && ctx->spec != NULL && ctx->file != NULL) {
        for (uint32_t k = 0; k < ctx->spec->n_fields && k < ctx->file->n_partition; k++) {
            const struct basalt_iceberg_partition_field *pf = &ctx->spec->fields[k];
            if (pf->source_id == field->id && pf->transform.kind == BASALT_ICEBERG_TRANSFORM_IDENTITY)
                return &ctx->file->partition[k];
        }
    }
    if (!field->initial_default.is_null)
        return &field->initial_default;
    return NULL;
}

/* A constant for `field` from a value of a possibly older (promoted) type. */
static basalt_status constant_for(const struct basalt_iceberg_field *field,
                                  const struct basalt_iceberg_value *v, int64_t length,
                                  struct ArrowArray *out, struct basalt_error *err)
{
    struct basalt_iceberg_value tmp;
    if (v != NULL && !v->is_null && v->type != field->type.id) {
        tmp = *v;
        tmp.type = field->type.id;
        enum basalt_iceberg_type_id to = field->type.id;
        if (v->type == BASALT_ICEBERG_TYPE_INT && to == BASALT_ICEBERG_TYPE_LONG) {
            tmp.u.i64 = v->u.i32;
        } else if (v->type == BASALT_ICEBERG_TYPE_FLOAT && to == BASALT_ICEBERG_TYPE_DOUBLE) {
            tmp.u.f64 = v->u.f32;
        } else if (v->type == BASALT_ICEBERG_TYPE_DATE &&
                   (to == BASALT_ICEBERG_TYPE_TIMESTAMP || to == BASALT_ICEBERG_TYPE_TIMESTAMPTZ)) {
            tmp.u.i64 = (int64_t)v->u.i32 * 86400000000LL;
        } else if (v->type == BASALT_ICEBERG_TYPE_DATE &&
                   (to == BASALT_ICEBERG_TYPE_TIMESTAMP_NS || to == BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS)) {
            tmp.u.i64 = (int64_t)v->u.i32 * 86400000000000LL;
        } else if ((v->type == BASALT_ICEBERG_TYPE_STRING && to == BASALT_ICEBERG_TYPE_BINARY) ||
                   (v->type == BASALT_ICEBERG_TYPE_BINARY && to == BASALT_ICEBERG_TYPE_STRING) ||
                   (v->type == BASALT_ICEBERG_TYPE_DECIMAL && to == BASALT_ICEBERG_TYPE_DECIMAL) ||
                   (v->type == BASALT_ICEBERG_TYPE_TIMESTAMP && to == BASALT_ICEBERG_TYPE_TIMESTAMPTZ) ||
                   (v->type == BASALT_ICEBERG_TYPE_TIMESTAMPTZ && to == BASALT_ICEBERG_TYPE_TIMESTAMP)) {
            /* same representation */
        } else {
            return basalt_error_set(err, BASALT_UNSUPPORTED, "field %d: a constant of type %d for type %d",
                                    (int)field->id, (int)v->type, (int)to);
        }
        v = &tmp;
    }
    return basalt_iceberg_constant_array(field, v, length, out, err);
}

static basalt_status conform_at(const struct basalt_iceberg_read_ctx *ctx,
                                const struct basalt_iceberg_field *field,
                                const struct ArrowSchema *src_schema, struct ArrowArray *src,
                                int64_t length, struct ArrowArray *out, int depth,
                                struct basalt_error *err);

static basalt_status copy_bitmap(const struct ArrowArray *src, struct ArrowArray *out,
                                 struct basalt_error *err)
{
    out->null_count = 0;
    if (src->n_buffers == 0 || src->buffers[0] == NULL || src->null_count == 0)
        return BASALT_OK;
    uint8_t *v;
    basalt_status st = basalt_arrow_array_allocate_buffer(out, 0, (size_t)((src->length + 7) / 8), (void **)&v, err);
    if (st != BASALT_OK)
        return st;
    basalt_bitmap_copy(v, 0, src->buffers[0], src->offset, src->length);
    out->null_count = src->null_count < 0 ? src->length - basalt_bitmap_count(v, 0, src->length)
                                          : src->null_count;
    return BASALT_OK;
}

/* Child j of a struct, moved out with the struct's offset folded in. */
static void take_child(struct ArrowArray *parent, int64_t j, struct ArrowArray *child)
{
    basalt_arrow_array_move(parent->children[j], child);
    child->offset += parent->offset;
    child->length = parent->length;
}

static int64_t find_child(const struct ArrowSchema *s, int32_t id)
{
    for (int64_t j = 0; j < s->n_children; j++) {
        int32_t cid;
        if (basalt_iceberg_scan_arrow_field_id(s->children[j], &cid) && cid == id)
            return j;
    }
    return -1;
}

static basalt_status conform_struct(const struct basalt_iceberg_read_ctx *ctx,
                                    const struct basalt_iceberg_field *field,
                                    const struct ArrowSchema *src_schema, struct ArrowArray *src,
                                    struct ArrowArray *out, int depth, struct basalt_error *err)
{
    const struct basalt_iceberg_type *t = &field->type;
    basalt_status st = basalt_arrow_array_init(out, 1, t->n_fields, err);
    if (st == BASALT_OK)
        st = copy_bitmap(src, out, err);
    for (uint32_t i = 0; i < t->n_fields && st == BASALT_OK; i++) {
        int64_t j = find_child(src_schema, t->fields[i].id);
        if (j < 0) {
            st = conform_at(ctx, &t->fields[i], NULL, NULL, src->length, out->children[i], depth + 1, err);
            continue;
        }
        struct ArrowArray child;
        take_child(src, j, &child);
        st = conform_at(ctx, &t->fields[i], src_schema->children[j], &child, src->length,
                        out->children[i], depth + 1, err);
    }
    if (st == BASALT_OK)
        out->length = src->length;
    else
        basalt_arrow_array_release(out);
    return st;
}

static basalt_status conform_list(const struct basalt_iceberg_read_ctx *ctx,
                                  const struct basalt_iceberg_field *field,
                                  const struct ArrowSchema *src_schema, struct ArrowArray *src,
                                  struct ArrowArray *out, int depth, struct basalt_error *err)
{
    bool is_map = field->type.id == BASALT_ICEBERG_TYPE_MAP;
    /* a map written as a list of key-value records (Iceberg's Avro form of
     * maps whose keys are not strings) has a map's layout */
    bool pairs = is_map && strcmp(src_schema->format, "+l") == 0 && src_schema->n_children == 1 &&
                 strcmp(src_schema->children[0]->format, "+s") == 0 &&
                 src_schema->children[0]->n_children == 2;
    const char *want = is_map && !pairs ? "+m" : "+l";
    if (strcmp(src_schema->format, want) != 0 || src_schema->n_children != 1)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "field %d: a '%s' column cannot be read as '%s'",
                                (int)field->id, src_schema->format, want);
    basalt_status st = basalt_arrow_array_init(out, 2, 1, err);
    if (st == BASALT_OK)
        st = copy_bitmap(src, out, err);
    int32_t *offs = NULL;
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)(src->length + 1) * 4, (void **)&offs, err);
    if (st == BASALT_OK)
        memcpy(offs, (const int32_t *)src->buffers[1] + src->offset, (size_t)(src->length + 1) * 4);
    if (st == BASALT_OK) {
        struct ArrowArray child;
        basalt_arrow_array_move(src->children[0], &child);
        const struct ArrowSchema *cs = src_schema->children[0];
        if (!is_map) {
            st = conform_at(ctx, &field->type.fields[0], cs, &child, child.length,
                            out->children[0], depth + 1, err);
        } else {
            struct ArrowArray *entries = out->children[0];
            st = basalt_arrow_array_init(entries, 1, 2, err);
            for (int k = 0; k < 2 && st == BASALT_OK; k++) {
                const struct basalt_iceberg_field *kf = &field->type.fields[k];
                int64_t j = find_child(cs, kf->id);
                if (j < 0 && cs->n_children == 2)
                    j = k; /* maps written without ids on key and value */
                if (j < 0) {
                    st = conform_at(ctx, kf, NULL, NULL, child.length, entries->children[k], depth + 1, err);
                } else {
                    struct ArrowArray kv;
                    take_child(&child, j, &kv);
                    st = conform_at(ctx, kf, cs->children[j], &kv, child.length, entries->children[k],
                                    depth + 1, err);
                }
            }
            if (st == BASALT_OK)
                entries->length = child.length;
            basalt_arrow_array_release(&child);
        }
    }
    if (st == BASALT_OK)
        out->length = src->length;
    else
        basalt_arrow_array_release(out);
    return st;
}

static basalt_status conform_at(const struct basalt_iceberg_read_ctx *ctx,
                                const struct basalt_iceberg_field *field,
                                const struct ArrowSchema *src_schema, struct ArrowArray *src,
                                int64_t length, struct ArrowArray *out, int depth,
                                struct basalt_error *err)
{
    if (depth > MAX_DEPTH) {
        basalt_arrow_array_release(src);
        return basalt_error_set(err, BASALT_LIMIT, "nesting over %d levels", MAX_DEPTH);
    }
    if (src == NULL)
        return constant_for(field, missing_value(ctx, field), length, out, err);
    if (src_schema->dictionary != NULL) {
        basalt_arrow_array_release(src);
        return basalt_error_set(err, BASALT_UNSUPPORTED, "field %d: dictionary-encoded column", (int)field->id);
    }
    basalt_status st;
    switch (field->type.id) {
    case BASALT_ICEBERG_TYPE_STRUCT:
        if (strcmp(src_schema->format, "+s") != 0) {
            st = basalt_error_set(err, BASALT_UNSUPPORTED, "field %d: a '%s' column cannot be read as a struct",
                                  (int)field->id, src_schema->format);
            break;
        }
        st = conform_struct(ctx, field, src_schema, src, out, depth, err);
        break;
    case BASALT_ICEBERG_TYPE_LIST:
    case BASALT_ICEBERG_TYPE_MAP:
        st = conform_list(ctx, field, src_schema, src, out, depth, err);
        break;
    default:
        if (src_schema->format[0] == '+') {
            st = basalt_error_set(err, BASALT_UNSUPPORTED, "field %d: a '%s' column cannot be read as a primitive",
                                  (int)field->id, src_schema->format);
            break;
        }
        st = basalt_iceberg_cast(src_schema->format, src, &field->type, out, err);
        if (st != BASALT_OK)
            st = basalt_error_context(err, st, "field %d '%s'", (int)field->id, field->name ? field->name : "");
        return st; /* cast consumed src */
    }
    basalt_arrow_array_release(src);
    return st;
}

basalt_status basalt_iceberg_conform(const struct basalt_iceberg_read_ctx *ctx,
                                     const struct basalt_iceberg_field *field,
                                     const struct ArrowSchema *src_schema, struct ArrowArray *src,
                                     int64_t length, struct ArrowArray *out,
                                     struct basalt_error *err)
{
    return conform_at(ctx, field, src_schema, src, length, out, 0, err);
}
