/* Manifest lists: Avro records "manifest_file", read by field id (500-series)
 * with v1 defaults. */
#include <stddef.h>

#include "manifest_internal.h"

enum {
    L_PATH, L_LENGTH, L_SPEC, L_CONTENT, L_SEQ, L_MIN_SEQ, L_SNAP, L_ADDED_F, L_EXIST_F,
    L_DEL_F, L_ADDED_R, L_EXIST_R, L_DEL_R, L_PARTS, L_KEY, L_FIRST_ROW, L_COUNT
};

struct list_row {
    struct basalt_avro_bytes path;
    int64_t length, spec, content, seq, min_seq, snap;
    int64_t added_f, exist_f, del_f, added_r, exist_r, del_r;
    struct basalt_avro_bytes parts, key;
    int64_t first_row;
    uint8_t present[L_COUNT];
};

#define COL(id, slot, member) {{id, 0}, 1, BASALT_AVRO_SLOT_##slot, offsetof(struct list_row, member)}
static const struct basalt_iceberg_mf_col list_cols[L_COUNT] = {
    [L_PATH] = COL(500, BYTES, path),      [L_LENGTH] = COL(501, INT64, length),
    [L_SPEC] = COL(502, INT64, spec),      [L_CONTENT] = COL(517, INT64, content),
    [L_SEQ] = COL(515, INT64, seq),        [L_MIN_SEQ] = COL(516, INT64, min_seq),
    [L_SNAP] = COL(503, INT64, snap),      [L_ADDED_F] = COL(504, INT64, added_f),
    [L_EXIST_F] = COL(505, INT64, exist_f), [L_DEL_F] = COL(506, INT64, del_f),
    [L_ADDED_R] = COL(512, INT64, added_r), [L_EXIST_R] = COL(513, INT64, exist_r),
    [L_DEL_R] = COL(514, INT64, del_r),    [L_PARTS] = COL(507, RAW, parts),
    [L_KEY] = COL(519, BYTES, key),        [L_FIRST_ROW] = COL(520, INT64, first_row),
};
#undef COL

#define CHUNK 32

static basalt_status nomem(struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

static int32_t count32(const struct list_row *r, int k, const int64_t *v)
{
    if (!r->present[k])
        return -1;
    return *v < INT32_MIN || *v > INT32_MAX ? -1 : (int32_t)*v;
}

/* The field summaries: array<record{509 contains_null, 518 contains_nan,
 * 510 lower_bound, 511 upper_bound}>. */
static basalt_status read_summaries(const struct basalt_avro_node *node,
                                    const struct basalt_avro_bytes *raw,
                                    struct basalt_arena *arena, struct basalt_arena *scratch,
                                    struct basalt_iceberg_manifest_file *mf,
                                    struct basalt_error *err)
{
    struct basalt_avro_limits lim;
    basalt_iceberg_mf_limits(&lim);
    struct basalt_avro_value v;
    basalt_status st = basalt_avro_value_decode(node, raw->data, raw->size, &lim, scratch, &v, NULL,
                                                err);
    if (st != BASALT_OK)
        return st;
    const struct basalt_avro_value *a = basalt_iceberg_mf_unwrap(&v);
    if (!a)
        return BASALT_OK;
    if (a->node->type != BASALT_AVRO_ARRAY)
        return basalt_error_set(err, BASALT_CORRUPT, "partitions: not an array");
    const struct basalt_avro_node *rec = basalt_iceberg_mf_record(a->node->items);
    if (!rec)
        return basalt_error_set(err, BASALT_CORRUPT, "partitions: items are not records");
    int32_t i_null = basalt_iceberg_mf_find_id(rec, 509), i_nan = basalt_iceberg_mf_find_id(rec, 518),
            i_lo = basalt_iceberg_mf_find_id(rec, 510), i_hi = basalt_iceberg_mf_find_id(rec, 511);
    if (a->count > UINT32_MAX / 2)
        return basalt_error_set(err, BASALT_LIMIT, "partitions: too many fields");
    mf->partitions = basalt_arena_alloc(arena, sizeof *mf->partitions * (a->count ? a->count : 1), 8);
    if (!mf->partitions)
        return nomem(err);
    mf->n_partitions = (uint32_t)a->count;
    for (size_t i = 0; i < a->count; i++) {
        struct basalt_iceberg_field_summary *s = &mf->partitions[i];
        memset(s, 0, sizeof *s);
        s->lower_bound.type = s->upper_bound.type = BASALT_ICEBERG_TYPE_NONE;
        s->lower_bound.is_null = s->upper_bound.is_null = true;
        const struct basalt_avro_value *item = basalt_iceberg_mf_unwrap(&a->items[i]);
        if (!item || item->node->type != BASALT_AVRO_RECORD)
            return basalt_error_set(err, BASALT_CORRUPT, "partitions[%zu]: null", i);
        const struct basalt_avro_value *x;
        if (i_null >= 0 && (x = basalt_iceberg_mf_unwrap(&item->items[i_null])) &&
            x->node->type == BASALT_AVRO_BOOLEAN)
            s->contains_null = x->boolean;
        if (i_nan >= 0 && (x = basalt_iceberg_mf_unwrap(&item->items[i_nan])) &&
            x->node->type == BASALT_AVRO_BOOLEAN) {
            s->has_contains_nan = true;
            s->contains_nan = x->boolean;
        }
        for (int b = 0; b < 2; b++) {
            int32_t idx = b ? i_hi : i_lo;
            if (idx < 0 || !(x = basalt_iceberg_mf_unwrap(&item->items[idx])))
                continue;
            if (x->node->type != BASALT_AVRO_BYTES && x->node->type != BASALT_AVRO_FIXED)
                return basalt_error_set(err, BASALT_CORRUPT, "partitions[%zu]: bound is not bytes",
                                        i);
            uint8_t *copy = basalt_iceberg_mf_copy(arena, x->bytes.data, x->bytes.size);
            if (!copy)
                return nomem(err);
            if (b) {
                s->has_upper_bound = true;
                s->upper_bound_bytes = copy;
                s->upper_bound_len = x->bytes.size;
            } else {
                s->has_lower_bound = true;
                s->lower_bound_bytes = copy;
                s->lower_bound_len = x->bytes.size;
            }
        }
    }
    return BASALT_OK;
}

static basalt_status convert_row(const struct basalt_iceberg_mf_file *f, const struct list_row *r,
                                 int32_t version, struct basalt_arena *arena,
                                 struct basalt_arena *scratch,
                                 struct basalt_iceberg_manifest_file *mf, struct basalt_error *err)
{
    memset(mf, 0, sizeof *mf);
    if (!r->present[L_PATH])
        return basalt_error_set(err, BASALT_CORRUPT, "manifest_path (field 500) is missing");
    if (!(mf->manifest_path = (const char *)basalt_iceberg_mf_copy(arena, r->path.data, r->path.size)))
        return nomem(err);
    if (!r->present[L_LENGTH])
        return basalt_error_set(err, BASALT_CORRUPT, "manifest_length (field 501) is missing");
    mf->manifest_length = r->length;
    if (r->spec < INT32_MIN || r->spec > INT32_MAX)
        return basalt_error_set(err, BASALT_CORRUPT, "partition_spec_id out of range");
    mf->partition_spec_id = (int32_t)r->spec;
    if (r->present[L_CONTENT]) {
        if (r->content != 0 && r->content != 1)
            return basalt_error_set(err, BASALT_CORRUPT, "content %lld is not 0 or 1",
                                    (long long)r->content);
        mf->content = (enum basalt_iceberg_manifest_content)r->content;
    }
    if (version >= 2) {
        mf->sequence_number = r->seq;
        mf->min_sequence_number = r->present[L_MIN_SEQ] ? r->min_seq : r->seq;
    }
    mf->added_snapshot_id = r->snap;
    mf->added_files_count = count32(r, L_ADDED_F, &r->added_f);
    mf->existing_files_count = count32(r, L_EXIST_F, &r->exist_f);
    mf->deleted_files_count = count32(r, L_DEL_F, &r->del_f);
    mf->added_rows_count = r->present[L_ADDED_R] ? r->added_r : -1;
    mf->existing_rows_count = r->present[L_EXIST_R] ? r->exist_r : -1;
    mf->deleted_rows_count = r->present[L_DEL_R] ? r->del_r : -1;
    if (r->present[L_KEY]) {
        if (!(mf->key_metadata = basalt_iceberg_mf_copy(arena, r->key.data, r->key.size)))
            return nomem(err);
        mf->key_metadata_len = r->key.size;
    }
    if (r->present[L_FIRST_ROW]) {
        mf->has_first_row_id = true;
        mf->first_row_id = r->first_row;
    }
    if (r->present[L_PARTS]) {
        basalt_status st = read_summaries(basalt_iceberg_mf_col_node(f, L_PARTS), &r->parts, arena,
                                          scratch, mf, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static basalt_status parse(const void *data, size_t len, int32_t format_version,
                           struct basalt_iceberg_manifest_list *list, struct basalt_error *err)
{
    struct basalt_iceberg_mf_file f;
    basalt_status st = basalt_iceberg_mf_file_open(data, len, NULL, list_cols, L_COUNT, &f, err);
    if (st != BASALT_OK)
        return st;
    int64_t v = 0;
    int32_t version = format_version;
    if (version < 1 || version > BASALT_ICEBERG_MAX_FORMAT_VERSION)
        version = basalt_iceberg_mf_meta_i64(&f, "format-version", &v) && v >= 1 &&
                          v <= BASALT_ICEBERG_MAX_FORMAT_VERSION
                      ? (int32_t)v
                      : 1;
    list->format_version = version;
    list->has_snapshot_id = basalt_iceberg_mf_meta_snapshot_id(&f, "snapshot-id", &list->snapshot_id);
    list->has_parent_snapshot_id =
        basalt_iceberg_mf_meta_snapshot_id(&f, "parent-snapshot-id", &list->parent_snapshot_id);
    struct basalt_arena *arena = &list->priv->arena;
    struct basalt_arena scratch;
    basalt_arena_init(&scratch, 4096);
    struct list_row rows[CHUNK];
    memset(rows, 0, sizeof rows);
    uint32_t cap = 0;
    for (;;) {
        int64_t n = 0;
        st = basalt_iceberg_mf_file_read(&f, list_cols, rows, sizeof rows[0],
                                         offsetof(struct list_row, present), CHUNK, &n, err);
        if (st != BASALT_OK || n == 0)
            break;
        if (list->n_files + (uint64_t)n > UINT32_MAX / sizeof *list->files) {
            st = basalt_error_set(err, BASALT_LIMIT, "too many manifests");
            break;
        }
        if (list->n_files + (uint32_t)n > cap) {
            uint32_t ncap = cap ? cap * 2 : 16;
            while (ncap < list->n_files + (uint32_t)n)
                ncap *= 2;
            struct basalt_iceberg_manifest_file *nf = basalt_realloc(list->files, sizeof *nf * ncap);
            if (!nf) {
                st = nomem(err);
                break;
            }
            list->files = nf;
            cap = ncap;
        }
        for (int64_t i = 0; i < n && st == BASALT_OK; i++) {
            st = convert_row(&f, &rows[i], version, arena, &scratch, &list->files[list->n_files], err);
            if (st != BASALT_OK)
                st = basalt_error_context(err, st, "manifest %u", list->n_files);
            else
                list->n_files++;
            basalt_arena_reset(&scratch);
        }
        if (st != BASALT_OK)
            break;
    }
    basalt_arena_reset(&scratch);
    basalt_iceberg_mf_file_close(&f);
    return st;
}

basalt_status basalt_iceberg_manifest_list_parse(const void *data, size_t len, const char *name,
                                                 int32_t format_version,
                                                 struct basalt_iceberg_manifest_list **out,
                                                 struct basalt_error *err)
{
    *out = NULL;
    struct basalt_iceberg_manifest_list *list = basalt_calloc(1, sizeof *list);
    if (!list)
        return nomem(err);
    list->priv = basalt_calloc(1, sizeof *list->priv);
    if (!list->priv) {
        basalt_free(list);
        return nomem(err);
    }
    basalt_arena_init(&list->priv->arena, 16384);
    basalt_status st = parse(data, len, format_version, list, err);
    if (st != BASALT_OK) {
        basalt_iceberg_manifest_list_free(list);
        return name ? basalt_error_context(err, st, "%s", name) : st;
    }
    *out = list;
    return BASALT_OK;
}

void basalt_iceberg_manifest_list_free(struct basalt_iceberg_manifest_list *list)
{
    if (!list)
        return;
    if (list->priv) {
        basalt_arena_reset(&list->priv->arena);
        basalt_free(list->priv);
    }
    basalt_free(list->files);
    basalt_free(list);
}

basalt_status basalt_iceberg_manifest_list_decode_bounds(
    struct basalt_iceberg_manifest_list *list, const struct basalt_iceberg_partition_spec *specs,
    uint32_t n_specs, const struct basalt_iceberg_schema *schema, struct basalt_error *err)
{
    for (uint32_t i = 0; i < list->n_files; i++) {
        struct basalt_iceberg_manifest_file *mf = &list->files[i];
        const struct basalt_iceberg_partition_spec *spec = NULL;
        for (uint32_t s = 0; s < n_specs; s++)
            if (specs[s].spec_id == mf->partition_spec_id)
                spec = &specs[s];
        if (!spec)
            continue;
        for (uint32_t p = 0; p < mf->n_partitions && p < spec->n_fields; p++) {
            struct basalt_iceberg_type t;
            basalt_iceberg_mf_spec_types(&(struct basalt_iceberg_partition_spec){
                                             .spec_id = spec->spec_id,
                                             .fields = &spec->fields[p],
                                             .n_fields = 1},
                                         schema, &t);
            struct basalt_iceberg_field_summary *s = &mf->partitions[p];
            for (int b = 0; b < 2; b++) {
                bool has = b ? s->has_upper_bound : s->has_lower_bound;
                struct basalt_iceberg_value *val = b ? &s->upper_bound : &s->lower_bound;
                if (!has || t.id == BASALT_ICEBERG_TYPE_NONE)
                    continue;
                basalt_status st = basalt_iceberg_mf_bound_decode(
                    &t, b ? s->upper_bound_bytes : s->lower_bound_bytes,
                    b ? s->upper_bound_len : s->lower_bound_len, val, err);
                if (st != BASALT_OK)
                    return basalt_error_context(err, st, "%s: partition field %u %s bound",
                                                mf->manifest_path, p, b ? "upper" : "lower");
            }
        }
    }
    return BASALT_OK;
}
