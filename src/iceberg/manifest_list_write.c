/* Writing a manifest list: Avro records "manifest_file" in the schema of the
 * format version, with this snapshot's sequence number given to the
 * manifests it adds and, in v3, first row ids given to data manifests that
 * have none (spec "First Row ID Assignment"). */
#include <stdio.h>
#include <string.h>

#include "basalt/iceberg_expr.h"

#include "manifest_write_internal.h"

struct ctx {
    const struct basalt_iceberg_manifest_list_write_options *o;
    int32_t version;
    int64_t next_row_id;
    struct basalt_buffer bound; /* a bound serialized from its typed value */
};

static basalt_status check_file(const struct ctx *c, const struct basalt_iceberg_manifest_file *m,
                                struct basalt_error *err)
{
    if (!m->manifest_path)
        return basalt_error_set(err, BASALT_INVALID_ARG, "manifest_path is NULL");
    if (m->content != BASALT_ICEBERG_MANIFEST_DATA && m->content != BASALT_ICEBERG_MANIFEST_DELETES)
        return basalt_error_set(err, BASALT_INVALID_ARG, "content %d is not data or deletes",
                                (int)m->content);
    if (c->version == 1 && m->content != BASALT_ICEBERG_MANIFEST_DATA)
        return basalt_error_set(err, BASALT_INVALID_ARG, "format v1 has no delete manifests");
    if (m->n_partitions && !m->partitions)
        return basalt_error_set(err, BASALT_INVALID_ARG, "partitions are NULL");
    if (c->version >= 2) {
        /* Counts are optional in v1 only (-1 writes null there). */
        if (m->added_files_count < 0 || m->existing_files_count < 0 || m->deleted_files_count < 0 ||
            m->added_rows_count < 0 || m->existing_rows_count < 0 || m->deleted_rows_count < 0)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "file and row counts are required from format v2 on");
        if (m->sequence_number < -1 || m->min_sequence_number < -1)
            return basalt_error_set(err, BASALT_INVALID_ARG, "sequence number %lld / %lld",
                                    (long long)m->sequence_number,
                                    (long long)m->min_sequence_number);
    }
    return BASALT_OK;
}

/* The bound as stored, or serialized from its typed value when the caller
 * built the summary with values only. */
static basalt_status bound_bytes(struct ctx *c, const struct basalt_iceberg_field_summary *s,
                                 bool upper, const uint8_t **data, size_t *len,
                                 struct basalt_error *err)
{
    const struct basalt_iceberg_value *v = upper ? &s->upper_bound : &s->lower_bound;
    *data = upper ? s->upper_bound_bytes : s->lower_bound_bytes;
    *len = upper ? s->upper_bound_len : s->lower_bound_len;
    if (*data || v->is_null || v->type == BASALT_ICEBERG_TYPE_NONE)
        return BASALT_OK;
    size_t n = 0;
    basalt_iceberg_value_to_bytes(v, NULL, 0, &n, NULL); /* sizing: LIMIT with the length */
    basalt_status st = basalt_buffer_resize(&c->bound, n, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_value_to_bytes(v, c->bound.data, n, len, err);
    *data = c->bound.data;
    return st;
}

static basalt_status put_summary(struct ctx *c, const struct basalt_iceberg_field_summary *s,
                                 struct basalt_buffer *b, struct basalt_error *err)
{
    const struct basalt_iceberg_mw_table *t = &basalt_iceberg_mw_summary;
    basalt_status st = BASALT_OK;
    for (uint32_t i = 0; i < t->n && st == BASALT_OK; i++) {
        const struct basalt_iceberg_mw_field *f = &t->fields[i];
        bool w = false;
        switch (f->id) {
        case 509:
            st = basalt_buffer_append(b, s->contains_null ? "\1" : "\0", 1, err);
            break;
        case 518:
            st = basalt_iceberg_mw_begin(b, f, c->version, s->has_contains_nan, &w, err);
            if (st == BASALT_OK && w)
                st = basalt_buffer_append(b, s->contains_nan ? "\1" : "\0", 1, err);
            break;
        default: { /* 510, 511 */
            bool upper = f->id == 511;
            const uint8_t *data = NULL;
            size_t len = 0;
            st = basalt_iceberg_mw_begin(b, f, c->version,
                                         upper ? s->has_upper_bound : s->has_lower_bound, &w, err);
            if (st == BASALT_OK && w)
                st = bound_bytes(c, s, upper, &data, &len, err);
            if (st == BASALT_OK && w)
                st = basalt_iceberg_mw_put_bytes(b, data, len, err);
            break;
        }
        }
    }
    return st;
}

static basalt_status put_summaries(struct ctx *c, const struct basalt_iceberg_manifest_file *m,
                                   struct basalt_buffer *b, struct basalt_error *err)
{
    basalt_status st =
        m->n_partitions ? basalt_iceberg_mw_put_long(b, m->n_partitions, err) : BASALT_OK;
    for (uint32_t i = 0; i < m->n_partitions && st == BASALT_OK; i++) {
        st = put_summary(c, &m->partitions[i], b, err);
        if (st != BASALT_OK)
            st = basalt_error_context(err, st, "partition field summary %u", (unsigned)i);
    }
    return st == BASALT_OK ? basalt_iceberg_mw_put_long(b, 0, err) : st;
}

/* A count: null in v1 when unknown (-1). */
static basalt_status put_count(const struct ctx *c, const struct basalt_iceberg_mw_field *f,
                               int64_t v, struct basalt_buffer *b, struct basalt_error *err)
{
    return basalt_iceberg_mw_put_opt_long(b, f, c->version, v >= 0, v, err);
}

static basalt_status put_file(struct ctx *c, const struct basalt_iceberg_manifest_file *m,
                              struct basalt_buffer *b, struct basalt_error *err)
{
    const struct basalt_iceberg_mw_table *t =
        c->version == 1 ? &basalt_iceberg_mw_list_v1 : &basalt_iceberg_mw_list;
    int64_t seq = c->o->sequence_number;
    basalt_status st = BASALT_OK;
    for (uint32_t i = 0; i < t->n && st == BASALT_OK; i++) {
        const struct basalt_iceberg_mw_field *f = &t->fields[i];
        int32_t v = c->version;
        bool w = false;
        if (basalt_iceberg_mw_presence(f, v) == BASALT_ICEBERG_MW_ABSENT)
            continue;
        switch (f->id) {
        case 500:
            st = basalt_iceberg_mw_begin(b, f, v, true, &w, err);
            if (st == BASALT_OK)
                st =
                    basalt_iceberg_mw_put_bytes(b, m->manifest_path, strlen(m->manifest_path), err);
            break;
        case 501:
            st = basalt_iceberg_mw_put_opt_long(b, f, v, true, m->manifest_length, err);
            break;
        case 502:
            st = basalt_iceberg_mw_put_opt_long(b, f, v, true, m->partition_spec_id, err);
            break;
        case 517:
            st = basalt_iceberg_mw_put_opt_long(b, f, v, true, m->content, err);
            break;
        case 515: /* -1: a manifest this snapshot adds */
            st = basalt_iceberg_mw_put_opt_long(
                b, f, v, true, m->sequence_number == -1 ? seq : m->sequence_number, err);
            break;
        case 516:
            st = basalt_iceberg_mw_put_opt_long(
                b, f, v, true, m->min_sequence_number == -1 ? seq : m->min_sequence_number, err);
            break;
        case 503:
            st = basalt_iceberg_mw_put_opt_long(b, f, v, true, m->added_snapshot_id, err);
            break;
        case 504:
            st = put_count(c, f, m->added_files_count, b, err);
            break;
        case 505:
            st = put_count(c, f, m->existing_files_count, b, err);
            break;
        case 506:
            st = put_count(c, f, m->deleted_files_count, b, err);
            break;
        case 512:
            st = put_count(c, f, m->added_rows_count, b, err);
            break;
        case 513:
            st = put_count(c, f, m->existing_rows_count, b, err);
            break;
        case 514:
            st = put_count(c, f, m->deleted_rows_count, b, err);
            break;
        case 507:
            st = basalt_iceberg_mw_begin(b, f, v, m->partitions != NULL, &w, err);
            if (st == BASALT_OK && w)
                st = put_summaries(c, m, b, err);
            break;
        case 519:
            st = basalt_iceberg_mw_begin(b, f, v, m->key_metadata != NULL, &w, err);
            if (st == BASALT_OK && w)
                st = basalt_iceberg_mw_put_bytes(b, m->key_metadata, m->key_metadata_len, err);
            break;
        case 520: {
            /* Kept when assigned; given to data manifests without one,
             * advancing by the rows that will inherit ids when read (the
             * spec's simple estimate: added plus existing rows); always
             * null for delete manifests. */
            bool data = m->content == BASALT_ICEBERG_MANIFEST_DATA;
            int64_t id = m->first_row_id;
            if (data && !m->has_first_row_id) {
                id = c->next_row_id;
                int64_t rows;
                if (__builtin_add_overflow(m->added_rows_count, m->existing_rows_count, &rows) ||
                    __builtin_add_overflow(c->next_row_id, rows, &c->next_row_id))
                    return basalt_error_set(err, BASALT_LIMIT, "row ids overflow");
            }
            st = basalt_iceberg_mw_put_opt_long(b, f, v, data, id, err);
            break;
        }
        default:
            st = basalt_error_set(err, BASALT_INTERNAL, "manifest_file field %d has no encoder",
                                  (int)f->id);
            break;
        }
    }
    return st;
}

struct header {
    char snapshot[24], parent[24], seq[24], first_row[24], version[4];
    struct basalt_avro_meta_item items[5];
    size_t n;
};

static void meta(struct header *h, const char *key, const char *value)
{
    h->items[h->n].key = key;
    h->items[h->n].value = (const uint8_t *)value;
    h->items[h->n].size = strlen(value);
    h->n++;
}

/* What the Java writer puts in the header, except "parent-snapshot-id":
 * Java writes the text "null" for a snapshot without a parent; the key is
 * left out here, which readers of the key must handle anyway (older
 * writers omit it) and which cannot be mistaken for an id. */
static void build_header(const struct basalt_iceberg_manifest_list_write_options *o,
                         struct header *h)
{
    snprintf(h->snapshot, sizeof h->snapshot, "%lld", (long long)o->snapshot_id);
    meta(h, "snapshot-id", h->snapshot);
    if (o->has_parent_snapshot_id) {
        snprintf(h->parent, sizeof h->parent, "%lld", (long long)o->parent_snapshot_id);
        meta(h, "parent-snapshot-id", h->parent);
    }
    if (o->format_version >= 2) {
        snprintf(h->seq, sizeof h->seq, "%lld", (long long)o->sequence_number);
        meta(h, "sequence-number", h->seq);
    }
    if (o->format_version >= 3) {
        snprintf(h->first_row, sizeof h->first_row, "%lld", (long long)o->first_row_id);
        meta(h, "first-row-id", h->first_row);
    }
    snprintf(h->version, sizeof h->version, "%d", (int)o->format_version);
    meta(h, "format-version", h->version);
}

static basalt_status write_list(struct ctx *c, const struct basalt_iceberg_manifest_file *files,
                                uint32_t n_files, struct basalt_output *out,
                                struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (uint32_t i = 0; i < n_files && st == BASALT_OK; i++)
        if ((st = check_file(c, &files[i], err)) != BASALT_OK)
            return basalt_error_context(err, st, "manifest %u ('%s')", (unsigned)i,
                                        files[i].manifest_path ? files[i].manifest_path
                                                               : "NULL path");
    struct basalt_buffer schema_json;
    basalt_buffer_init(&schema_json);
    struct header h;
    memset(&h, 0, sizeof h);
    build_header(c->o, &h);
    struct basalt_iceberg_mw_file f;
    st = basalt_iceberg_mw_list_schema(c->version, &schema_json, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_mw_file_open(&f, out, &schema_json, h.items, h.n, err);
    basalt_buffer_reset(&schema_json);
    if (st != BASALT_OK)
        return st;
    for (uint32_t i = 0; i < n_files && st == BASALT_OK; i++) {
        st = put_file(c, &files[i], &f.record, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_mw_file_append(&f, err);
        if (st != BASALT_OK)
            st = basalt_error_context(err, st, "manifest %u ('%s')", (unsigned)i,
                                      files[i].manifest_path);
    }
    if (st != BASALT_OK) {
        basalt_iceberg_mw_file_abort(&f);
        return st;
    }
    return basalt_iceberg_mw_file_close(&f, err);
}

basalt_status
basalt_iceberg_manifest_list_write(const struct basalt_iceberg_manifest_list_write_options *options,
                                   const struct basalt_iceberg_manifest_file *files,
                                   uint32_t n_files, struct basalt_output *out,
                                   int64_t *next_row_id, struct basalt_error *err)
{
    if (!options || !out || (n_files && !files))
        return basalt_error_set(err, BASALT_INVALID_ARG, "manifest_list_write: NULL argument");
    if (options->format_version < 1 || options->format_version > BASALT_ICEBERG_MAX_FORMAT_VERSION)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "manifest_list_write: format version %d is not 1, 2 or 3",
                                (int)options->format_version);
    if (options->format_version >= 3 && options->first_row_id < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "manifest_list_write: first_row_id %lld is negative",
                                (long long)options->first_row_id);
    struct ctx c;
    memset(&c, 0, sizeof c);
    c.o = options;
    c.version = options->format_version;
    c.next_row_id = options->first_row_id;
    basalt_buffer_init(&c.bound);
    basalt_status st = write_list(&c, files, n_files, out, err);
    basalt_buffer_reset(&c.bound);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "manifest_list_write %s", out->name ? out->name : "");
    if (next_row_id)
        *next_row_id = c.next_row_id;
    return BASALT_OK;
}
