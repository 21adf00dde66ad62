/* Lookups in parsed table metadata and snapshot selection (time travel). */
#include <string.h>

#include "iceberg_internal.h"

const struct basalt_iceberg_schema *basalt_iceberg_metadata_schema(
    const struct basalt_iceberg_metadata *m, int32_t schema_id)
{
    if (!m)
        return NULL;
    for (uint32_t i = 0; i < m->n_schemas; i++)
        if (m->schemas[i].schema_id == schema_id)
            return &m->schemas[i];
    return NULL;
}

const struct basalt_iceberg_schema *basalt_iceberg_metadata_current_schema(
    const struct basalt_iceberg_metadata *m)
{
    return m ? basalt_iceberg_metadata_schema(m, m->current_schema_id) : NULL;
}

const struct basalt_iceberg_partition_spec *basalt_iceberg_metadata_spec(
    const struct basalt_iceberg_metadata *m, int32_t spec_id)
{
    if (!m)
        return NULL;
    for (uint32_t i = 0; i < m->n_specs; i++)
        if (m->specs[i].spec_id == spec_id)
            return &m->specs[i];
    return NULL;
}

const struct basalt_iceberg_sort_order *basalt_iceberg_metadata_sort_order(
    const struct basalt_iceberg_metadata *m, int32_t order_id)
{
    if (!m)
        return NULL;
    for (uint32_t i = 0; i < m->n_sort_orders; i++)
        if (m->sort_orders[i].order_id == order_id)
            return &m->sort_orders[i];
    return NULL;
}

const struct basalt_iceberg_snapshot *basalt_iceberg_metadata_snapshot(
    const struct basalt_iceberg_metadata *m, int64_t snapshot_id)
{
    if (!m)
        return NULL;
    for (uint32_t i = 0; i < m->n_snapshots; i++)
        if (m->snapshots[i].snapshot_id == snapshot_id)
            return &m->snapshots[i];
    return NULL;
}

const struct basalt_iceberg_snapshot *basalt_iceberg_metadata_current_snapshot(
    const struct basalt_iceberg_metadata *m)
{
    if (!m || !m->has_current_snapshot_id)
        return NULL;
    return basalt_iceberg_metadata_snapshot(m, m->current_snapshot_id);
}

const struct basalt_iceberg_ref *basalt_iceberg_metadata_ref(const struct basalt_iceberg_metadata *m,
                                                             const char *name)
{
    if (!m || !name)
        return NULL;
    for (uint32_t i = 0; i < m->n_refs; i++)
        if (strcmp(m->refs[i].name, name) == 0)
            return &m->refs[i];
    return NULL;
}

basalt_status basalt_iceberg_metadata_snapshot_as_of(const struct basalt_iceberg_metadata *m,
                                                     int64_t timestamp_ms,
                                                     const struct basalt_iceberg_snapshot **out,
                                                     struct basalt_error *err)
{
    if (!m || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "snapshot_as_of: NULL argument");
    *out = NULL;
    if (m->n_snapshot_log > 0) {
        /* The log is in commit order; the last entry at or before T was
         * current at T, even when a rollback made timestamps go back. */
        const struct basalt_iceberg_snapshot_log_entry *hit = NULL;
        for (uint32_t i = 0; i < m->n_snapshot_log; i++)
            if (m->snapshot_log[i].timestamp_ms <= timestamp_ms)
                hit = &m->snapshot_log[i];
        if (!hit)
            return basalt_error_set(err, BASALT_NOT_FOUND,
                                    "no snapshot at or before timestamp %lld",
                                    (long long)timestamp_ms);
        *out = basalt_iceberg_metadata_snapshot(m, hit->snapshot_id);
        if (!*out)
            return basalt_error_set(err, BASALT_NOT_FOUND,
                                    "snapshot %lld, current at timestamp %lld, has expired",
                                    (long long)hit->snapshot_id, (long long)timestamp_ms);
        return BASALT_OK;
    }
    /* No log: the newest snapshot not after T (snapshots are kept in no
     * particular order); on equal timestamps the later one in the list. */
    const struct basalt_iceberg_snapshot *best = NULL;
    for (uint32_t i = 0; i < m->n_snapshots; i++) {
        const struct basalt_iceberg_snapshot *s = &m->snapshots[i];
        if (s->timestamp_ms <= timestamp_ms && (!best || s->timestamp_ms >= best->timestamp_ms))
            best = s;
    }
    if (!best)
        return basalt_error_set(err, BASALT_NOT_FOUND, "no snapshot at or before timestamp %lld",
                                (long long)timestamp_ms);
    *out = best;
    return BASALT_OK;
}

basalt_status basalt_iceberg_metadata_snapshot_by_ref(const struct basalt_iceberg_metadata *m,
                                                      const char *ref,
                                                      const struct basalt_iceberg_snapshot **out,
                                                      struct basalt_error *err)
{
    if (!m || !ref || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "snapshot_by_ref: NULL argument");
    *out = NULL;
    const struct basalt_iceberg_ref *r = basalt_iceberg_metadata_ref(m, ref);
    if (!r)
        return basalt_error_set(err, BASALT_NOT_FOUND, "no branch or tag '%s'", ref);
    *out = basalt_iceberg_metadata_snapshot(m, r->snapshot_id);
    if (!*out)
        return basalt_error_set(err, BASALT_NOT_FOUND, "ref '%s': snapshot %lld does not exist",
                                ref, (long long)r->snapshot_id);
    return BASALT_OK;
}

const struct basalt_iceberg_schema *basalt_iceberg_metadata_snapshot_schema(
    const struct basalt_iceberg_metadata *m, const struct basalt_iceberg_snapshot *snapshot)
{
    if (!m)
        return NULL;
    if (snapshot && snapshot->has_schema_id) {
        const struct basalt_iceberg_schema *s =
            basalt_iceberg_metadata_schema(m, snapshot->schema_id);
        if (s)
            return s;
    }
    return basalt_iceberg_metadata_current_schema(m);
}

const char *basalt_iceberg_metadata_property(const struct basalt_iceberg_metadata *m,
                                             const char *key)
{
    if (!m || !key)
        return NULL;
    /* properties are sorted by key */
    uint32_t lo = 0, hi = m->n_properties;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(m->properties[mid].key, key);
        if (c == 0)
            return m->properties[mid].value;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}
