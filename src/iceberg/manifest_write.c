/* Writing one manifest: entries as Avro records "manifest_entry" in the
 * schema of the format version, the header keys the spec requires, and the
 * summary the manifest list needs (counts, min sequence number, partition
 * field summaries, the length written). Every entry is checked before a
 * byte is written, so a refused call leaves the output empty. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_transform.h"

#include "expr_internal.h"
#include "iceberg_internal.h"
#include "manifest_write_internal.h"

/* The Java writer's DEFAULT_BLOCK_SIZE, which v1 must still write. */
#define V1_BLOCK_SIZE (64 * 1024 * 1024)

static basalt_status nomem(struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

/* Running partition field summary; bounds view the caller's entries. */
struct part_stats {
    bool contains_null, contains_nan, has_bounds;
    struct basalt_iceberg_value lo, hi;
};

struct ctx {
    const struct basalt_iceberg_manifest_write_options *o;
    int32_t version;
    uint32_t n_part;
    const struct basalt_iceberg_partition_field *pf;
    struct basalt_iceberg_type *types;  /* result type of each spec field */
    struct basalt_iceberg_value *tuple; /* the entry being written, normalised */
    struct part_stats *stats;
    int64_t files[3], rows[3]; /* by entry status */
    int64_t min_seq;           /* -1 until an EXISTING entry is seen */
};

/* ------------------------------------------------------------- checks */

static basalt_status result_types(struct ctx *c, const struct basalt_iceberg_schema *schema,
                                  struct basalt_error *err)
{
    for (uint32_t i = 0; i < c->n_part; i++) {
        const struct basalt_iceberg_partition_field *pf = &c->pf[i];
        const char *name = pf->name ? pf->name : "";
        const struct basalt_iceberg_field *src = basalt_iceberg_schema_field(schema, pf->source_id);
        if (!src)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "partition field '%s': source field %d is not in the schema",
                                    name, (int)pf->source_id);
        basalt_status st =
            basalt_iceberg_transform_result_type(&pf->transform, &src->type, &c->types[i], err);
        if (st == BASALT_OK)
            st = basalt_iceberg_mw_check_partition_type(&c->types[i], err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "partition field '%s'", name);
    }
    return BASALT_OK;
}

static const char *value_type_text(enum basalt_iceberg_type_id id, char *buf, size_t cap)
{
    struct basalt_iceberg_type t;
    memset(&t, 0, sizeof t);
    t.id = id;
    basalt_iceberg_type_to_string(&t, buf, cap);
    return buf;
}

/* `v` as a value of the field's result type in *out. Day values are
 * accepted as int too: the spec's result type is int, the reference
 * implementations write dates, and our reader hands back ints. */
static basalt_status normalise(const struct basalt_iceberg_type *t,
                               const struct basalt_iceberg_value *v,
                               struct basalt_iceberg_value *out, struct basalt_error *err)
{
    *out = *v;
    out->type = t->id;
    if (v->is_null)
        return BASALT_OK;
    bool same = v->type == t->id ||
                (t->id == BASALT_ICEBERG_TYPE_DATE && v->type == BASALT_ICEBERG_TYPE_INT);
    if (!same) {
        char want[64], got[64];
        basalt_iceberg_type_to_string(t, want, sizeof want);
        return basalt_error_set(err, BASALT_INVALID_ARG, "a %s value where the spec gives %s",
                                value_type_text(v->type, got, sizeof got), want);
    }
    switch (t->id) {
    case BASALT_ICEBERG_TYPE_DECIMAL:
        if (v->scale != t->scale || basalt_iceberg_dec_digits(v->u.dec) > t->precision)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "decimal of scale %d and %d digits does not fit decimal(%d,%d)",
                                    (int)v->scale, basalt_iceberg_dec_digits(v->u.dec),
                                    (int)t->precision, (int)t->scale);
        break;
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_UUID: {
        size_t want = t->id == BASALT_ICEBERG_TYPE_UUID ? 16 : (size_t)t->length;
        if (v->u.bytes.len != want || !v->u.bytes.data)
            return basalt_error_set(err, BASALT_INVALID_ARG, "%zu bytes where %zu are needed",
                                    v->u.bytes.len, want);
        break;
    }
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_BINARY:
        if (!v->u.bytes.data && v->u.bytes.len)
            return basalt_error_set(err, BASALT_INVALID_ARG, "NULL bytes");
        break;
    default:
        break;
    }
    return BASALT_OK;
}

static bool is_nan(const struct basalt_iceberg_value *v)
{
    return (v->type == BASALT_ICEBERG_TYPE_FLOAT && isnan(v->u.f32)) ||
           (v->type == BASALT_ICEBERG_TYPE_DOUBLE && isnan(v->u.f64));
}

/* Java's PartitionSummary: every entry counts, deleted ones too. */
static void update_stats(struct part_stats *s, const struct basalt_iceberg_value *v)
{
    if (v->is_null) {
        s->contains_null = true;
    } else if (is_nan(v)) {
        s->contains_nan = true;
    } else if (!s->has_bounds) {
        s->lo = s->hi = *v;
        s->has_bounds = true;
    } else {
        if (basalt_iceberg_value_compare(v, &s->lo) < 0)
            s->lo = *v;
        if (basalt_iceberg_value_compare(v, &s->hi) > 0)
            s->hi = *v;
    }
}

static basalt_status check_metrics(const struct basalt_iceberg_data_file *df,
                                   struct basalt_error *err)
{
    const void *longs[4] = {df->column_sizes, df->value_counts, df->null_value_counts,
                            df->nan_value_counts};
    const uint32_t nl[4] = {df->n_column_sizes, df->n_value_counts, df->n_null_value_counts,
                            df->n_nan_value_counts};
    for (int m = 0; m < 4; m++)
        if (nl[m] && !longs[m])
            return basalt_error_set(err, BASALT_INVALID_ARG, "a metrics map is NULL");
    const struct basalt_iceberg_metric_bytes *bounds[2] = {df->lower_bounds, df->upper_bounds};
    const uint32_t nb[2] = {df->n_lower_bounds, df->n_upper_bounds};
    for (int m = 0; m < 2; m++) {
        if (nb[m] && !bounds[m])
            return basalt_error_set(err, BASALT_INVALID_ARG, "a bounds map is NULL");
        for (uint32_t k = 0; k < nb[m]; k++)
            if (!bounds[m][k].data && bounds[m][k].len)
                return basalt_error_set(err, BASALT_INVALID_ARG, "the bound of field %d is NULL",
                                        (int)bounds[m][k].field_id);
    }
    if ((df->n_split_offsets && !df->split_offsets) || (df->n_equality_ids && !df->equality_ids))
        return basalt_error_set(err, BASALT_INVALID_ARG, "split_offsets / equality_ids are NULL");
    return BASALT_OK;
}

static basalt_status check_entry(struct ctx *c, const struct basalt_iceberg_manifest_entry *e,
                                 struct basalt_error *err)
{
    const struct basalt_iceberg_data_file *df = &e->data_file;
    if (e->status != BASALT_ICEBERG_ENTRY_EXISTING && e->status != BASALT_ICEBERG_ENTRY_ADDED &&
        e->status != BASALT_ICEBERG_ENTRY_DELETED)
        return basalt_error_set(err, BASALT_INVALID_ARG, "status %d is not an entry status",
                                (int)e->status);
    if (!df->file_path)
        return basalt_error_set(err, BASALT_INVALID_ARG, "file_path is NULL");
    bool data = df->content == BASALT_ICEBERG_CONTENT_DATA;
    if (!data && df->content != BASALT_ICEBERG_CONTENT_POSITION_DELETES &&
        df->content != BASALT_ICEBERG_CONTENT_EQUALITY_DELETES)
        return basalt_error_set(err, BASALT_INVALID_ARG, "content %d is not a file content",
                                (int)df->content);
    if (data != (c->o->content == BASALT_ICEBERG_MANIFEST_DATA))
        return basalt_error_set(err, BASALT_INVALID_ARG, "a %s file in a %s manifest",
                                data ? "data" : "delete", data ? "delete" : "data");
    if (df->file_format < BASALT_ICEBERG_FORMAT_PARQUET ||
        df->file_format > BASALT_ICEBERG_FORMAT_PUFFIN)
        return basalt_error_set(err, BASALT_INVALID_ARG, "file format %d has no name",
                                (int)df->file_format);
    if (df->record_count < 0 || df->file_size_in_bytes < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "negative record_count or file_size_in_bytes");
    if (c->version >= 2 && e->status != BASALT_ICEBERG_ENTRY_ADDED &&
        (e->sequence_number < 0 || e->file_sequence_number < 0))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "%s entries need their sequence numbers (got %lld, %lld)",
                                e->status == BASALT_ICEBERG_ENTRY_EXISTING ? "EXISTING" : "DELETED",
                                (long long)e->sequence_number, (long long)e->file_sequence_number);
    basalt_status st = check_metrics(df, err);
    if (st != BASALT_OK)
        return st;
    if (df->n_partition != c->n_part || (c->n_part && !df->partition))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "the partition tuple has %u values, the spec %u fields",
                                (unsigned)df->n_partition, (unsigned)c->n_part);
    for (uint32_t i = 0; i < c->n_part; i++) {
        st = normalise(&c->types[i], &df->partition[i], &c->tuple[i], err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "partition field '%s'",
                                        c->pf[i].name ? c->pf[i].name : "");
    }
    return BASALT_OK;
}

/* An ADDED entry's data sequence number written as given. */
static bool kept_sequence_number(const struct ctx *c, const struct basalt_iceberg_manifest_entry *e)
{
    return c->o->keep_added_sequence_numbers && c->version >= 2 && e->sequence_number >= 0;
}

/* Counts, min sequence number and partition summaries, from checked entries. */
static basalt_status tally(struct ctx *c, const struct basalt_iceberg_manifest_entry *e,
                           struct basalt_error *err)
{
    int s = (int)e->status;
    c->files[s]++;
    if (__builtin_add_overflow(c->rows[s], e->data_file.record_count, &c->rows[s]))
        return basalt_error_set(err, BASALT_LIMIT, "row counts overflow");
    /* The spec's minimum over live files with a known sequence number: ADDED
     * entries inherit theirs, DELETED ones are not live. */
    bool known = e->status == BASALT_ICEBERG_ENTRY_EXISTING ||
                 (e->status == BASALT_ICEBERG_ENTRY_ADDED && kept_sequence_number(c, e));
    if (known && (c->min_seq < 0 || e->sequence_number < c->min_seq))
        c->min_seq = e->sequence_number;
    for (uint32_t i = 0; i < c->n_part; i++)
        update_stats(&c->stats[i], &c->tuple[i]);
    return BASALT_OK;
}

/* ------------------------------------------------------------ encoding */

static basalt_status put_raw(struct basalt_buffer *b, const void *p, size_t n,
                             struct basalt_error *err)
{
    return basalt_buffer_append(b, p, n, err);
}

static basalt_status put_partition_value(struct basalt_buffer *b,
                                         const struct basalt_iceberg_type *t,
                                         const struct basalt_iceberg_value *v,
                                         struct basalt_error *err)
{
    uint8_t tmp[16];
    switch (t->id) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        tmp[0] = v->u.b ? 1 : 0;
        return put_raw(b, tmp, 1, err);
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        return basalt_iceberg_mw_put_long(b, v->u.i32, err);
    case BASALT_ICEBERG_TYPE_FLOAT: {
        uint32_t bits;
        memcpy(&bits, &v->u.f32, 4);
        for (int k = 0; k < 4; k++)
            tmp[k] = (uint8_t)(bits >> (8 * k));
        return put_raw(b, tmp, 4, err);
    }
    case BASALT_ICEBERG_TYPE_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &v->u.f64, 8);
        for (int k = 0; k < 8; k++)
            tmp[k] = (uint8_t)(bits >> (8 * k));
        return put_raw(b, tmp, 8, err);
    }
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_BINARY:
        return basalt_iceberg_mw_put_bytes(b, v->u.bytes.data, v->u.bytes.len, err);
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_UUID:
        return put_raw(b, v->u.bytes.data, v->u.bytes.len, err);
    case BASALT_ICEBERG_TYPE_DECIMAL: {
        /* Big-endian two's complement, sign-extended to the fixed's size. */
        int32_t size = basalt_iceberg_mw_decimal_bytes(t->precision);
        for (int k = 0; k < 8; k++) {
            tmp[k] = (uint8_t)((uint64_t)v->u.dec.hi >> (56 - 8 * k));
            tmp[8 + k] = (uint8_t)(v->u.dec.lo >> (56 - 8 * k));
        }
        return put_raw(b, tmp + 16 - size, (size_t)size, err);
    }
    default: /* the long-based types */
        return basalt_iceberg_mw_put_long(b, v->u.i64, err);
    }
}

static basalt_status put_partition(struct ctx *c, struct basalt_buffer *b, struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (uint32_t i = 0; i < c->n_part && st == BASALT_OK; i++) {
        st = basalt_iceberg_mw_put_long(b, c->tuple[i].is_null ? 0 : 1, err);
        if (st == BASALT_OK && !c->tuple[i].is_null)
            st = put_partition_value(b, &c->types[i], &c->tuple[i], err);
    }
    return st;
}

/* A map<int, long> or map<int, binary> as Iceberg writes maps with int
 * keys: an array of key/value records, one block. */
static basalt_status put_map(struct basalt_buffer *b, const struct basalt_iceberg_metric_long *l,
                             const struct basalt_iceberg_metric_bytes *y, uint32_t n,
                             struct basalt_error *err)
{
    basalt_status st = basalt_iceberg_mw_put_long(b, n, err);
    for (uint32_t k = 0; k < n && st == BASALT_OK; k++) {
        st = basalt_iceberg_mw_put_long(b, l ? l[k].field_id : y[k].field_id, err);
        if (st == BASALT_OK)
            st = l ? basalt_iceberg_mw_put_long(b, l[k].value, err)
                   : basalt_iceberg_mw_put_bytes(b, y[k].data, y[k].len, err);
    }
    return st == BASALT_OK ? basalt_iceberg_mw_put_long(b, 0, err) : st;
}

static basalt_status put_list(struct basalt_buffer *b, const int64_t *l, const int32_t *i32,
                              uint32_t n, struct basalt_error *err)
{
    basalt_status st = basalt_iceberg_mw_put_long(b, n, err);
    for (uint32_t k = 0; k < n && st == BASALT_OK; k++)
        st = basalt_iceberg_mw_put_long(b, l ? l[k] : i32[k], err);
    return st == BASALT_OK ? basalt_iceberg_mw_put_long(b, 0, err) : st;
}

static const char *format_name(enum basalt_iceberg_file_format f)
{
    switch (f) {
    case BASALT_ICEBERG_FORMAT_AVRO:
        return "AVRO";
    case BASALT_ICEBERG_FORMAT_ORC:
        return "ORC";
    case BASALT_ICEBERG_FORMAT_PUFFIN:
        return "PUFFIN";
    default:
        return "PARQUET";
    }
}

static basalt_status put_data_file_field(struct ctx *c, const struct basalt_iceberg_mw_field *f,
                                         const struct basalt_iceberg_data_file *df,
                                         struct basalt_buffer *b, struct basalt_error *err)
{
    int32_t v = c->version;
    bool data = df->content == BASALT_ICEBERG_CONTENT_DATA, w = false;
    basalt_status st;
    switch (f->id) {
    case 134:
        return basalt_iceberg_mw_put_opt_long(b, f, v, true, df->content, err);
    case 100:
        st = basalt_iceberg_mw_begin(b, f, v, true, &w, err);
        return st == BASALT_OK
                   ? basalt_iceberg_mw_put_bytes(b, df->file_path, strlen(df->file_path), err)
                   : st;
    case 101: {
        const char *name = format_name(df->file_format);
        st = basalt_iceberg_mw_begin(b, f, v, true, &w, err);
        return st == BASALT_OK ? basalt_iceberg_mw_put_bytes(b, name, strlen(name), err) : st;
    }
    case 102:
        st = basalt_iceberg_mw_begin(b, f, v, true, &w, err);
        return st == BASALT_OK ? put_partition(c, b, err) : st;
    case 103:
        return basalt_iceberg_mw_put_opt_long(b, f, v, true, df->record_count, err);
    case 104:
        return basalt_iceberg_mw_put_opt_long(b, f, v, true, df->file_size_in_bytes, err);
    case 105:
        return basalt_iceberg_mw_put_opt_long(b, f, v, true, V1_BLOCK_SIZE, err);
    case 108:
    case 109:
    case 110:
    case 137: {
        const struct basalt_iceberg_metric_long *m = f->id == 108   ? df->column_sizes
                                                     : f->id == 109 ? df->value_counts
                                                     : f->id == 110 ? df->null_value_counts
                                                                    : df->nan_value_counts;
        uint32_t n = f->id == 108   ? df->n_column_sizes
                     : f->id == 109 ? df->n_value_counts
                     : f->id == 110 ? df->n_null_value_counts
                                    : df->n_nan_value_counts;
        st = basalt_iceberg_mw_begin(b, f, v, n > 0, &w, err);
        return st == BASALT_OK && w ? put_map(b, m, NULL, n, err) : st;
    }
    case 125:
    case 128: {
        const struct basalt_iceberg_metric_bytes *m =
            f->id == 125 ? df->lower_bounds : df->upper_bounds;
        uint32_t n = f->id == 125 ? df->n_lower_bounds : df->n_upper_bounds;
        st = basalt_iceberg_mw_begin(b, f, v, n > 0, &w, err);
        return st == BASALT_OK && w ? put_map(b, NULL, m, n, err) : st;
    }
    case 131:
        st = basalt_iceberg_mw_begin(b, f, v, df->key_metadata != NULL, &w, err);
        return st == BASALT_OK && w
                   ? basalt_iceberg_mw_put_bytes(b, df->key_metadata, df->key_metadata_len, err)
                   : st;
    case 132:
        st = basalt_iceberg_mw_begin(b, f, v, df->n_split_offsets > 0, &w, err);
        return st == BASALT_OK && w ? put_list(b, df->split_offsets, NULL, df->n_split_offsets, err)
                                    : st;
    case 135:
        st = basalt_iceberg_mw_begin(b, f, v, df->n_equality_ids > 0, &w, err);
        return st == BASALT_OK && w ? put_list(b, NULL, df->equality_ids, df->n_equality_ids, err)
                                    : st;
    case 140:
        return basalt_iceberg_mw_put_opt_long(b, f, v, df->has_sort_order_id, df->sort_order_id,
                                              err);
    case 142:
        /* Null for ADDED files without one (inherited when read) and always
         * for delete files, whose first_row_id the spec keeps null. */
        return basalt_iceberg_mw_put_opt_long(b, f, v, data && df->has_first_row_id,
                                              df->first_row_id, err);
    case 143:
        st = basalt_iceberg_mw_begin(b, f, v, df->referenced_data_file != NULL, &w, err);
        return st == BASALT_OK && w
                   ? basalt_iceberg_mw_put_bytes(b, df->referenced_data_file,
                                                 strlen(df->referenced_data_file), err)
                   : st;
    case 144:
        return basalt_iceberg_mw_put_opt_long(b, f, v, df->has_content_offset, df->content_offset,
                                              err);
    case 145:
        return basalt_iceberg_mw_put_opt_long(b, f, v, df->has_content_offset,
                                              df->content_size_in_bytes, err);
    default:
        return basalt_error_set(err, BASALT_INTERNAL, "data_file field %d has no encoder",
                                (int)f->id);
    }
}

static basalt_status put_entry(struct ctx *c, const struct basalt_iceberg_manifest_entry *e,
                               struct basalt_buffer *b, struct basalt_error *err)
{
    bool added = e->status == BASALT_ICEBERG_ENTRY_ADDED;
    basalt_status st = BASALT_OK;
    const struct basalt_iceberg_mw_table *t = &basalt_iceberg_mw_entry;
    for (uint32_t i = 0; i < t->n && st == BASALT_OK; i++) {
        const struct basalt_iceberg_mw_field *f = &t->fields[i];
        if (basalt_iceberg_mw_presence(f, c->version) == BASALT_ICEBERG_MW_ABSENT)
            continue;
        switch (f->id) {
        case 0:
            st = basalt_iceberg_mw_put_opt_long(b, f, c->version, true, e->status, err);
            break;
        case 1: /* the snapshot adding the file is the one writing the manifest */
            st = basalt_iceberg_mw_put_opt_long(b, f, c->version, true,
                                                added ? c->o->snapshot_id : e->snapshot_id, err);
            break;
        case 3:
            st = basalt_iceberg_mw_put_opt_long(b, f, c->version,
                                                !added || kept_sequence_number(c, e),
                                                e->sequence_number, err);
            break;
        case 4:
            st = basalt_iceberg_mw_put_opt_long(b, f, c->version, !added, e->file_sequence_number,
                                                err);
            break;
        default: { /* 2: data_file */
            const struct basalt_iceberg_mw_table *d = &basalt_iceberg_mw_data_file;
            for (uint32_t k = 0; k < d->n && st == BASALT_OK; k++)
                if (basalt_iceberg_mw_presence(&d->fields[k], c->version) !=
                    BASALT_ICEBERG_MW_ABSENT)
                    st = put_data_file_field(c, &d->fields[k], &e->data_file, b, err);
            break;
        }
        }
    }
    return st;
}

/* -------------------------------------------------------------- header */

/* Compact JSON text of `j` (taken) into `out`. */
static basalt_status json_text(json_t *j, struct basalt_buffer *out, struct basalt_error *err)
{
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!text)
        return nomem(err);
    basalt_status st = basalt_buffer_append(out, text, strlen(text), err);
    free(text);
    return st;
}

struct header {
    struct basalt_buffer schema, spec;
    char schema_id[16], spec_id[16], version[4];
    struct basalt_avro_meta_item items[6];
    size_t n;
};

static void meta(struct header *h, const char *key, const void *value, size_t size)
{
    h->items[h->n].key = key;
    h->items[h->n].value = value;
    h->items[h->n].size = size;
    h->n++;
}

/* The keys of the spec's table, in the order the Java writer adds them. */
static basalt_status build_header(const struct basalt_iceberg_manifest_write_options *o,
                                  struct header *h, struct basalt_error *err)
{
    json_t *spec = o->spec ? basalt_iceberg_spec_fields_to_json(o->spec) : json_array();
    basalt_status st = json_text(basalt_iceberg_schema_to_json(o->schema), &h->schema, err);
    if (st == BASALT_OK)
        st = json_text(spec, &h->spec, err);
    else
        json_decref(spec);
    if (st != BASALT_OK)
        return st;
    snprintf(h->schema_id, sizeof h->schema_id, "%d", (int)o->schema->schema_id);
    snprintf(h->spec_id, sizeof h->spec_id, "%d", o->spec ? (int)o->spec->spec_id : 0);
    snprintf(h->version, sizeof h->version, "%d", (int)o->format_version);
    meta(h, "schema", h->schema.data, h->schema.size);
    meta(h, "schema-id", h->schema_id, strlen(h->schema_id));
    meta(h, "partition-spec", h->spec.data, h->spec.size);
    meta(h, "partition-spec-id", h->spec_id, strlen(h->spec_id));
    meta(h, "format-version", h->version, strlen(h->version));
    if (o->format_version >= 2) {
        const char *content = o->content == BASALT_ICEBERG_MANIFEST_DELETES ? "deletes" : "data";
        meta(h, "content", content, strlen(content));
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------- summary */

/* The serialized bound in the arena; byte-typed values then view it. */
static basalt_status bound(struct basalt_arena *arena, const struct basalt_iceberg_value *v,
                           struct basalt_iceberg_value *out, const uint8_t **bytes, size_t *len,
                           struct basalt_error *err)
{
    size_t n = 0;
    basalt_iceberg_value_to_bytes(v, NULL, 0, &n, NULL); /* sizing: LIMIT with the length */
    uint8_t *buf = basalt_arena_alloc(arena, n ? n : 1, 8);
    if (!buf)
        return nomem(err);
    basalt_status st = basalt_iceberg_value_to_bytes(v, buf, n, &n, err);
    if (st != BASALT_OK)
        return st;
    *out = *v;
    switch (v->type) {
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_BINARY:
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_UUID:
        out->u.bytes.data = buf;
        break;
    default:
        break;
    }
    *bytes = buf;
    *len = n;
    return BASALT_OK;
}

static basalt_status fill_summary(struct ctx *c, uint64_t length, struct basalt_arena *arena,
                                  struct basalt_iceberg_manifest_file *m, struct basalt_error *err)
{
    for (int s = 0; s < 3; s++)
        if (c->files[s] > INT32_MAX)
            return basalt_error_set(err, BASALT_LIMIT, "more than %d entries of one status",
                                    INT32_MAX);
    memset(m, 0, sizeof *m);
    m->manifest_length = (int64_t)length;
    m->partition_spec_id = c->o->spec ? c->o->spec->spec_id : 0;
    m->content = c->o->content;
    m->sequence_number = -1; /* assigned when the manifest list is written */
    m->min_sequence_number = c->min_seq;
    m->added_snapshot_id = c->o->snapshot_id;
    m->added_files_count = (int32_t)c->files[BASALT_ICEBERG_ENTRY_ADDED];
    m->existing_files_count = (int32_t)c->files[BASALT_ICEBERG_ENTRY_EXISTING];
    m->deleted_files_count = (int32_t)c->files[BASALT_ICEBERG_ENTRY_DELETED];
    m->added_rows_count = c->rows[BASALT_ICEBERG_ENTRY_ADDED];
    m->existing_rows_count = c->rows[BASALT_ICEBERG_ENTRY_EXISTING];
    m->deleted_rows_count = c->rows[BASALT_ICEBERG_ENTRY_DELETED];
    /* Non-NULL even without fields: an unpartitioned manifest has an empty
     * list of summaries, as the Java writer records it, not a missing one. */
    m->partitions =
        basalt_arena_alloc(arena, sizeof *m->partitions * (c->n_part ? c->n_part : 1), 8);
    if (!m->partitions)
        return nomem(err);
    m->n_partitions = c->n_part;
    for (uint32_t i = 0; i < c->n_part; i++) {
        const struct part_stats *s = &c->stats[i];
        struct basalt_iceberg_field_summary *fs = &m->partitions[i];
        memset(fs, 0, sizeof *fs);
        fs->contains_null = s->contains_null;
        fs->has_contains_nan = true; /* Java writes it for every type */
        fs->contains_nan = s->contains_nan;
        fs->lower_bound.type = fs->upper_bound.type = c->types[i].id;
        fs->lower_bound.is_null = fs->upper_bound.is_null = true;
        if (!s->has_bounds)
            continue;
        basalt_status st = bound(arena, &s->lo, &fs->lower_bound, &fs->lower_bound_bytes,
                                 &fs->lower_bound_len, err);
        if (st == BASALT_OK)
            st = bound(arena, &s->hi, &fs->upper_bound, &fs->upper_bound_bytes,
                       &fs->upper_bound_len, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "partition field '%s' bounds",
                                        c->pf[i].name ? c->pf[i].name : "");
        fs->has_lower_bound = fs->has_upper_bound = true;
    }
    return BASALT_OK;
}

/* ---------------------------------------------------------------- main */

static basalt_status check_options(const struct basalt_iceberg_manifest_write_options *o,
                                   const struct basalt_iceberg_manifest_entry *entries,
                                   uint32_t n_entries, struct basalt_output *out,
                                   struct basalt_arena *arena,
                                   struct basalt_iceberg_manifest_file *summary,
                                   struct basalt_error *err)
{
    if (!o || !o->schema || !out || !arena || !summary || (n_entries && !entries))
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    if (o->format_version < 1 || o->format_version > BASALT_ICEBERG_MAX_FORMAT_VERSION)
        return basalt_error_set(err, BASALT_INVALID_ARG, "format version %d is not 1, 2 or 3",
                                (int)o->format_version);
    if (o->content != BASALT_ICEBERG_MANIFEST_DATA && o->content != BASALT_ICEBERG_MANIFEST_DELETES)
        return basalt_error_set(err, BASALT_INVALID_ARG, "content %d is not data or deletes",
                                (int)o->content);
    if (o->format_version == 1 && o->content != BASALT_ICEBERG_MANIFEST_DATA)
        return basalt_error_set(err, BASALT_INVALID_ARG, "format v1 has no delete manifests");
    if (o->spec && o->spec->n_fields && !o->spec->fields)
        return basalt_error_set(err, BASALT_INVALID_ARG, "the spec's fields are NULL");
    return BASALT_OK;
}

static basalt_status
write_manifest(struct ctx *c, const struct basalt_iceberg_manifest_entry *entries,
               uint32_t n_entries, struct basalt_output *out, struct basalt_arena *arena,
               struct basalt_iceberg_manifest_file *summary, struct basalt_error *err)
{
    basalt_status st = result_types(c, c->o->schema, err);
    for (uint32_t i = 0; i < n_entries && st == BASALT_OK; i++) {
        st = check_entry(c, &entries[i], err);
        if (st == BASALT_OK)
            st = tally(c, &entries[i], err);
        if (st != BASALT_OK)
            st = basalt_error_context(
                err, st, "entry %u ('%s')", (unsigned)i,
                entries[i].data_file.file_path ? entries[i].data_file.file_path : "NULL path");
    }
    if (st != BASALT_OK)
        return st;

    struct basalt_buffer schema_json;
    basalt_buffer_init(&schema_json);
    struct header h;
    memset(&h, 0, sizeof h);
    basalt_buffer_init(&h.schema);
    basalt_buffer_init(&h.spec);
    struct basalt_iceberg_mw_file f;
    memset(&f, 0, sizeof f);
    st = basalt_iceberg_mw_manifest_schema(c->version, c->o->spec, c->types, &schema_json, err);
    if (st == BASALT_OK)
        st = build_header(c->o, &h, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_mw_file_open(&f, out, &schema_json, h.items, h.n, err);
    basalt_buffer_reset(&schema_json);
    basalt_buffer_reset(&h.schema);
    basalt_buffer_reset(&h.spec);
    if (st != BASALT_OK)
        return st;
    for (uint32_t i = 0; i < n_entries && st == BASALT_OK; i++) {
        const struct basalt_iceberg_manifest_entry *e = &entries[i];
        for (uint32_t k = 0; k < c->n_part; k++) /* checked above; normalises again */
            normalise(&c->types[k], &e->data_file.partition[k], &c->tuple[k], NULL);
        st = put_entry(c, e, &f.record, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_mw_file_append(&f, err);
        if (st != BASALT_OK)
            st = basalt_error_context(err, st, "entry %u ('%s')", (unsigned)i,
                                      e->data_file.file_path);
    }
    if (st != BASALT_OK) {
        basalt_iceberg_mw_file_abort(&f);
        return st;
    }
    st = basalt_iceberg_mw_file_close(&f, err);
    return st == BASALT_OK ? fill_summary(c, f.bytes, arena, summary, err) : st;
}

basalt_status basalt_iceberg_manifest_write(
    const struct basalt_iceberg_manifest_write_options *options,
    const struct basalt_iceberg_manifest_entry *entries, uint32_t n_entries,
    struct basalt_output *out, struct basalt_arena *arena,
    struct basalt_iceberg_manifest_file *summary, struct basalt_error *err)
{
    basalt_status st = check_options(options, entries, n_entries, out, arena, summary, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "manifest_write");
    struct ctx c;
    memset(&c, 0, sizeof c);
    c.o = options;
    c.version = options->format_version;
    c.n_part = options->spec ? options->spec->n_fields : 0;
    c.pf = options->spec ? options->spec->fields : NULL;
    c.min_seq = -1;
    struct basalt_arena scratch;
    basalt_arena_init(&scratch, 1024);
    size_t n = c.n_part ? c.n_part : 1;
    c.types = basalt_arena_alloc(&scratch, sizeof *c.types * n, 8);
    c.tuple = basalt_arena_alloc(&scratch, sizeof *c.tuple * n, 8);
    c.stats = basalt_arena_alloc(&scratch, sizeof *c.stats * n, 8);
    if (!c.types || !c.tuple || !c.stats) {
        st = nomem(err);
    } else {
        memset(c.stats, 0, sizeof *c.stats * n);
        st = write_manifest(&c, entries, n_entries, out, arena, summary, err);
    }
    basalt_arena_reset(&scratch);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "manifest_write %s", out->name ? out->name : "");
    return BASALT_OK;
}
