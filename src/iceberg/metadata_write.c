/* Table metadata back to JSON, every field included, so that a rewrite of
 * parsed metadata loses nothing this library reads. */
#include <stdlib.h>
#include <string.h>

#include "iceberg_internal.h"

/* Adds key -> value to obj, taking value (NULL means a failed constructor). */
static bool put(json_t *obj, const char *key, json_t *value)
{
    return value && json_object_set_new(obj, key, value) == 0;
}

static bool append(json_t *arr, json_t *value)
{
    return value && json_array_append_new(arr, value) == 0;
}

static json_t *kv_object(const struct basalt_iceberg_kv *kv, uint32_t n)
{
    json_t *o = json_object();
    for (uint32_t i = 0; o && i < n; i++)
        if (!put(o, kv[i].key, json_string(kv[i].value))) {
            json_decref(o);
            return NULL;
        }
    return o;
}

/* "source-id", or "source-ids" when the metadata had that form. */
static bool put_source(json_t *o, int32_t id, const int32_t *ids, uint32_t n)
{
    if (n == 0)
        return put(o, "source-id", json_integer(id));
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < n; i++)
        if (!append(arr, json_integer(ids[i]))) {
            json_decref(arr);
            return false;
        }
    return put(o, "source-ids", arr);
}

json_t *basalt_iceberg_spec_fields_to_json(const struct basalt_iceberg_partition_spec *spec)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < spec->n_fields; i++) {
        const struct basalt_iceberg_partition_field *f = &spec->fields[i];
        json_t *o = json_object();
        if (!append(arr, o) || !put(o, "name", json_string(f->name)) ||
            !put(o, "transform", json_string(f->transform.text)) ||
            !put_source(o, f->source_id, f->source_ids, f->n_source_ids) ||
            !put(o, "field-id", json_integer(f->field_id))) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *specs_json(const struct basalt_iceberg_metadata *m)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < m->n_specs; i++) {
        json_t *o = json_object();
        if (!append(arr, o) || !put(o, "spec-id", json_integer(m->specs[i].spec_id)) ||
            !put(o, "fields", basalt_iceberg_spec_fields_to_json(&m->specs[i]))) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *schemas_json(const struct basalt_iceberg_metadata *m)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < m->n_schemas; i++)
        if (!append(arr, basalt_iceberg_schema_to_json(&m->schemas[i]))) {
            json_decref(arr);
            return NULL;
        }
    return arr;
}

static json_t *sort_orders_json(const struct basalt_iceberg_metadata *m)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < m->n_sort_orders; i++) {
        const struct basalt_iceberg_sort_order *so = &m->sort_orders[i];
        json_t *o = json_object(), *fields = json_array();
        if (!append(arr, o) || !put(o, "order-id", json_integer(so->order_id)) ||
            !put(o, "fields", fields))
            goto fail;
        for (uint32_t j = 0; j < so->n_fields; j++) {
            const struct basalt_iceberg_sort_field *f = &so->fields[j];
            json_t *fo = json_object();
            if (!append(fields, fo) || !put(fo, "transform", json_string(f->transform.text)) ||
                !put_source(fo, f->source_id, f->source_ids, f->n_source_ids) ||
                !put(fo, "direction",
                     json_string(f->direction == BASALT_ICEBERG_SORT_DESC ? "desc" : "asc")) ||
                !put(fo, "null-order", json_string(f->null_order == BASALT_ICEBERG_NULLS_LAST
                                                       ? "nulls-last"
                                                       : "nulls-first")))
                goto fail;
        }
    }
    return arr;
fail:
    json_decref(arr);
    return NULL;
}

static json_t *snapshot_json(const struct basalt_iceberg_snapshot *s)
{
    json_t *o = json_object();
    if (!o || !put(o, "snapshot-id", json_integer(s->snapshot_id)) ||
        !put(o, "sequence-number", json_integer(s->sequence_number)) ||
        !put(o, "timestamp-ms", json_integer(s->timestamp_ms)))
        goto fail;
    if (s->has_parent_snapshot_id && !put(o, "parent-snapshot-id", json_integer(s->parent_snapshot_id)))
        goto fail;
    if (s->manifest_list) {
        if (!put(o, "manifest-list", json_string(s->manifest_list)))
            goto fail;
    } else {
        json_t *arr = json_array();
        if (!put(o, "manifests", arr))
            goto fail;
        for (uint32_t i = 0; i < s->n_manifests; i++)
            if (!append(arr, json_string(s->manifests[i])))
                goto fail;
    }
    json_t *summary = kv_object(s->summary, s->n_summary);
    if (!put(o, "summary", summary) || !put(summary, "operation", json_string(s->operation)))
        goto fail;
    if (s->has_schema_id && !put(o, "schema-id", json_integer(s->schema_id)))
        goto fail;
    if (s->has_first_row_id && !put(o, "first-row-id", json_integer(s->first_row_id)))
        goto fail;
    if (s->has_added_rows && !put(o, "added-rows", json_integer(s->added_rows)))
        goto fail;
    if (s->key_id && !put(o, "key-id", json_string(s->key_id)))
        goto fail;
    return o;
fail:
    json_decref(o);
    return NULL;
}

static json_t *refs_json(const struct basalt_iceberg_metadata *m)
{
    json_t *o = json_object();
    for (uint32_t i = 0; o && i < m->n_refs; i++) {
        const struct basalt_iceberg_ref *r = &m->refs[i];
        json_t *ro = json_object();
        if (!put(o, r->name, ro) || !put(ro, "snapshot-id", json_integer(r->snapshot_id)) ||
            !put(ro, "type", json_string(r->is_tag ? "tag" : "branch")))
            goto fail;
        if (r->has_min_snapshots_to_keep &&
            !put(ro, "min-snapshots-to-keep", json_integer(r->min_snapshots_to_keep)))
            goto fail;
        if (r->has_max_snapshot_age_ms &&
            !put(ro, "max-snapshot-age-ms", json_integer(r->max_snapshot_age_ms)))
            goto fail;
        if (r->has_max_ref_age_ms && !put(ro, "max-ref-age-ms", json_integer(r->max_ref_age_ms)))
            goto fail;
    }
    return o;
fail:
    json_decref(o);
    return NULL;
}

static json_t *statistics_json(const struct basalt_iceberg_metadata *m)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < m->n_statistics; i++) {
        const struct basalt_iceberg_statistics_file *f = &m->statistics[i];
        json_t *o = json_object(), *blobs = json_array();
        if (!append(arr, o) || !put(o, "blob-metadata", blobs) ||
            !put(o, "snapshot-id", json_integer(f->snapshot_id)) ||
            !put(o, "statistics-path", json_string(f->statistics_path)) ||
            !put(o, "file-size-in-bytes", json_integer(f->file_size_in_bytes)) ||
            !put(o, "file-footer-size-in-bytes", json_integer(f->file_footer_size_in_bytes)))
            goto fail;
        if (f->key_metadata && !put(o, "key-metadata", json_string(f->key_metadata)))
            goto fail;
        for (uint32_t j = 0; j < f->n_blobs; j++) {
            const struct basalt_iceberg_blob_metadata *b = &f->blobs[j];
            json_t *bo = json_object(), *fields = json_array();
            if (!append(blobs, bo) || !put(bo, "fields", fields) ||
                !put(bo, "type", json_string(b->type)) ||
                !put(bo, "snapshot-id", json_integer(b->snapshot_id)) ||
                !put(bo, "sequence-number", json_integer(b->sequence_number)))
                goto fail;
            for (uint32_t k = 0; k < b->n_fields; k++)
                if (!append(fields, json_integer(b->fields[k])))
                    goto fail;
            if (b->n_properties &&
                !put(bo, "properties", kv_object(b->properties, b->n_properties)))
                goto fail;
        }
    }
    return arr;
fail:
    json_decref(arr);
    return NULL;
}

static json_t *partition_statistics_json(const struct basalt_iceberg_metadata *m)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < m->n_partition_statistics; i++) {
        const struct basalt_iceberg_partition_statistics_file *f = &m->partition_statistics[i];
        json_t *o = json_object();
        if (!append(arr, o) || !put(o, "snapshot-id", json_integer(f->snapshot_id)) ||
            !put(o, "statistics-path", json_string(f->statistics_path)) ||
            !put(o, "file-size-in-bytes", json_integer(f->file_size_in_bytes))) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *logs_json(const struct basalt_iceberg_metadata *m, bool snapshot_log)
{
    json_t *arr = json_array();
    uint32_t n = snapshot_log ? m->n_snapshot_log : m->n_metadata_log;
    for (uint32_t i = 0; arr && i < n; i++) {
        json_t *o = json_object();
        bool ok = append(arr, o);
        if (ok && snapshot_log)
            ok = put(o, "timestamp-ms", json_integer(m->snapshot_log[i].timestamp_ms)) &&
                 put(o, "snapshot-id", json_integer(m->snapshot_log[i].snapshot_id));
        else if (ok)
            ok = put(o, "timestamp-ms", json_integer(m->metadata_log[i].timestamp_ms)) &&
                 put(o, "metadata-file", json_string(m->metadata_log[i].metadata_file));
        if (!ok) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *encryption_keys_json(const struct basalt_iceberg_metadata *m)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < m->n_encryption_keys; i++) {
        const struct basalt_iceberg_encryption_key *k = &m->encryption_keys[i];
        json_t *o = json_object();
        if (!append(arr, o) || !put(o, "key-id", json_string(k->key_id)) ||
            !put(o, "encrypted-key-metadata", json_string(k->encrypted_key_metadata)) ||
            (k->encrypted_by_id && !put(o, "encrypted-by-id", json_string(k->encrypted_by_id))) ||
            (k->n_properties && !put(o, "properties", kv_object(k->properties, k->n_properties)))) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

json_t *basalt_iceberg_metadata_json(const struct basalt_iceberg_metadata *m)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    bool ok = put(o, "format-version", json_integer(m->format_version)) &&
              (!m->table_uuid || put(o, "table-uuid", json_string(m->table_uuid))) &&
              put(o, "location", json_string(m->location)) &&
              put(o, "last-sequence-number", json_integer(m->last_sequence_number)) &&
              put(o, "last-updated-ms", json_integer(m->last_updated_ms)) &&
              put(o, "last-column-id", json_integer(m->last_column_id)) &&
              put(o, "schemas", schemas_json(m)) &&
              put(o, "current-schema-id", json_integer(m->current_schema_id)) &&
              put(o, "partition-specs", specs_json(m)) &&
              put(o, "default-spec-id", json_integer(m->default_spec_id)) &&
              put(o, "last-partition-id", json_integer(m->last_partition_id)) &&
              put(o, "sort-orders", sort_orders_json(m)) &&
              put(o, "default-sort-order-id", json_integer(m->default_sort_order_id)) &&
              put(o, "properties", kv_object(m->properties, m->n_properties)) &&
              put(o, "current-snapshot-id",
                  json_integer(m->has_current_snapshot_id ? m->current_snapshot_id : -1)) &&
              put(o, "snapshot-log", logs_json(m, true)) &&
              put(o, "metadata-log", logs_json(m, false)) &&
              put(o, "refs", refs_json(m)) &&
              put(o, "statistics", statistics_json(m)) &&
              put(o, "partition-statistics", partition_statistics_json(m)) &&
              (!m->has_next_row_id || put(o, "next-row-id", json_integer(m->next_row_id))) &&
              (!m->n_encryption_keys || put(o, "encryption-keys", encryption_keys_json(m)));
    json_t *snaps = ok ? json_array() : NULL;
    ok = ok && put(o, "snapshots", snaps);
    for (uint32_t i = 0; ok && i < m->n_snapshots; i++)
        ok = append(snaps, snapshot_json(&m->snapshots[i]));
    if (ok && m->format_version == 1) {
        /* v1 readers that predate the lists look for the singular forms. */
        const struct basalt_iceberg_schema *cur = basalt_iceberg_metadata_current_schema(m);
        const struct basalt_iceberg_partition_spec *spec =
            basalt_iceberg_metadata_spec(m, m->default_spec_id);
        ok = (!cur || put(o, "schema", basalt_iceberg_schema_to_json(cur))) &&
             (!spec || put(o, "partition-spec", basalt_iceberg_spec_fields_to_json(spec)));
    }
    if (ok && m->unknown_keys_json) {
        json_t *unknown = json_loads(m->unknown_keys_json, 0, NULL);
        ok = unknown && json_object_update_missing(o, unknown) == 0;
        json_decref(unknown);
    }
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

basalt_status basalt_iceberg_metadata_to_json(const struct basalt_iceberg_metadata *metadata,
                                              char **out, size_t *len, struct basalt_error *err)
{
    if (!metadata || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "metadata_to_json: NULL argument");
    *out = NULL;
    json_t *root = basalt_iceberg_metadata_json(metadata);
    if (!root)
        return basalt_error_set(err, BASALT_NOMEM, "metadata_to_json: out of memory");
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(root);
    if (!text)
        return basalt_error_set(err, BASALT_NOMEM, "metadata_to_json: out of memory");
    size_t n = strlen(text);
    char *copy = basalt_malloc(n + 1);
    if (!copy) {
        free(text);
        return basalt_error_set(err, BASALT_NOMEM, "metadata_to_json: out of memory");
    }
    memcpy(copy, text, n + 1);
    free(text);
    *out = copy;
    if (len)
        *len = n;
    return BASALT_OK;
}
