/* Updates that add and remove snapshots and move refs. */
#include <string.h>

#include "commit_internal.h"

basalt_status basalt_iceberg_update_add_snapshot(struct basalt_iceberg_update_state *s,
                                                 const json_t *u, struct basalt_error *err)
{
    const json_t *snap = json_object_get(u, "snapshot");
    int64_t id = 0, seq = 0, version = 0, last_seq = 0, parent = -1;
    if (!json_is_object(snap))
        return basalt_error_set(err, BASALT_CORRUPT, "add-snapshot: 'snapshot' is not an object");
    basalt_status st = basalt_iceberg_jint(snap, "snapshot-id", true, 0, &id, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_jint(snap, "sequence-number", false, 0, &seq, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_jint(snap, "parent-snapshot-id", false, -1, &parent, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_jint(s->m, "format-version", true, 0, &version, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_jint(s->m, "last-sequence-number", false, 0, &last_seq, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "add-snapshot");
    json_t *snaps = basalt_iceberg_jarray(s->m, "snapshots");
    if (!snaps)
        return basalt_error_set(err, BASALT_NOMEM, "add-snapshot: out of memory");
    if (basalt_iceberg_jfind(snaps, "snapshot-id", id))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "add-snapshot: snapshot %lld already exists", (long long)id);
    /* As the Java builder: a snapshot with a parent must move the sequence
     * number forward, or two snapshots would claim the same changes. */
    if (version >= 2 && seq <= last_seq && parent != -1)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "add-snapshot: sequence number %lld is not after the table's "
                                "last sequence number %lld",
                                (long long)seq, (long long)last_seq);
    json_t *copy = json_deep_copy(snap);
    if (!copy)
        return basalt_error_set(err, BASALT_NOMEM, "add-snapshot: out of memory");
    if (version >= 3) {
        /* Row lineage: the snapshot's rows get ids from next-row-id on. */
        int64_t next_row = 0, first_row = 0, added = 0;
        st = basalt_iceberg_jint(s->m, "next-row-id", false, 0, &next_row, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_jint(snap, "added-rows", true, 0, &added, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_jint(snap, "first-row-id", false, next_row, &first_row, err);
        if (st == BASALT_OK && first_row < next_row)
            st = basalt_error_set(err, BASALT_INVALID_ARG,
                                  "first-row-id %lld is behind the table's next-row-id %lld",
                                  (long long)first_row, (long long)next_row);
        if (st != BASALT_OK) {
            json_decref(copy);
            return basalt_error_context(err, st, "add-snapshot");
        }
        if (json_object_set_new(copy, "first-row-id", json_integer(first_row)) != 0 ||
            json_object_set_new(s->m, "next-row-id", json_integer(first_row + added)) != 0) {
            json_decref(copy);
            return basalt_error_set(err, BASALT_NOMEM, "add-snapshot: out of memory");
        }
    }
    if (json_array_append_new(snaps, copy) != 0 ||
        (seq > last_seq &&
         json_object_set_new(s->m, "last-sequence-number", json_integer(seq)) != 0))
        return basalt_error_set(err, BASALT_NOMEM, "add-snapshot: out of memory");
    return BASALT_OK;
}

static bool set_int_if(json_t *to, const json_t *from, const char *key)
{
    const json_t *v = json_object_get(from, key);
    return !json_is_integer(v) || json_object_set_new(to, key, json_integer(json_integer_value(v))) == 0;
}

basalt_status basalt_iceberg_update_set_ref(struct basalt_iceberg_update_state *s,
                                            const json_t *u, struct basalt_error *err)
{
    const char *name = json_string_value(json_object_get(u, "ref-name"));
    const char *type = json_string_value(json_object_get(u, "type"));
    int64_t id;
    if (!name || !*name)
        return basalt_error_set(err, BASALT_CORRUPT, "set-snapshot-ref: missing 'ref-name'");
    if (!type || (strcmp(type, "branch") != 0 && strcmp(type, "tag") != 0))
        return basalt_error_set(err, BASALT_CORRUPT,
                                "set-snapshot-ref %s: 'type' must be branch or tag", name);
    basalt_status st = basalt_iceberg_jint(u, "snapshot-id", true, 0, &id, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "set-snapshot-ref %s", name);
    const json_t *snap = basalt_iceberg_jfind(json_object_get(s->m, "snapshots"), "snapshot-id", id);
    if (!snap)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "set-snapshot-ref %s: no snapshot %lld", name, (long long)id);
    if (strcmp(name, "main") == 0 && strcmp(type, "branch") != 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "set-snapshot-ref: main must be a branch");
    json_t *refs = basalt_iceberg_jobject(s->m, "refs");
    json_t *ref = json_object();
    if (!refs || !ref || json_object_set_new(ref, "snapshot-id", json_integer(id)) != 0 ||
        json_object_set_new(ref, "type", json_string(type)) != 0 ||
        !set_int_if(ref, u, "max-ref-age-ms") || !set_int_if(ref, u, "max-snapshot-age-ms") ||
        !set_int_if(ref, u, "min-snapshots-to-keep") || json_object_set_new(refs, name, ref) != 0)
        return basalt_error_set(err, BASALT_NOMEM, "set-snapshot-ref: out of memory");
    if (strcmp(name, "main") != 0)
        return BASALT_OK;
    /* The main branch is the table's current snapshot, and its history. */
    json_int_t when = json_integer_value(json_object_get(snap, "timestamp-ms"));
    json_t *log = basalt_iceberg_jarray(s->m, "snapshot-log");
    json_t *entry = json_pack("{s:I,s:I}", "timestamp-ms", (json_int_t)when, "snapshot-id",
                              (json_int_t)id);
    if (!log || !entry || json_array_append_new(log, entry) != 0 ||
        json_object_set_new(s->m, "current-snapshot-id", json_integer(id)) != 0)
        return basalt_error_set(err, BASALT_NOMEM, "set-snapshot-ref: out of memory");
    return BASALT_OK;
}

basalt_status basalt_iceberg_update_remove_ref(struct basalt_iceberg_update_state *s,
                                               const json_t *u, struct basalt_error *err)
{
    const char *name = json_string_value(json_object_get(u, "ref-name"));
    if (!name)
        return basalt_error_set(err, BASALT_CORRUPT, "remove-snapshot-ref: missing 'ref-name'");
    json_object_del(json_object_get(s->m, "refs"), name);
    if (strcmp(name, "main") == 0 &&
        json_object_set_new(s->m, "current-snapshot-id", json_integer(-1)) != 0)
        return basalt_error_set(err, BASALT_NOMEM, "remove-snapshot-ref: out of memory");
    return BASALT_OK;
}

static bool in_list(const json_t *ids, json_int_t id)
{
    size_t i;
    const json_t *v;
    json_array_foreach(ids, i, v)
    {
        if (json_integer_value(v) == id)
            return true;
    }
    return false;
}

basalt_status basalt_iceberg_update_remove_snapshots(struct basalt_iceberg_update_state *s,
                                                     const json_t *u, struct basalt_error *err)
{
    const json_t *ids = json_object_get(u, "snapshot-ids");
    if (!json_is_array(ids))
        return basalt_error_set(err, BASALT_CORRUPT, "remove-snapshots: 'snapshot-ids' is not an array");
    json_t *snaps = json_object_get(s->m, "snapshots");
    for (size_t i = json_array_size(snaps); i-- > 0;)
        if (in_list(ids, json_integer_value(json_object_get(json_array_get(snaps, i), "snapshot-id"))))
            json_array_remove(snaps, i);
    /* Refs to removed snapshots go with them. */
    json_t *refs = json_object_get(s->m, "refs");
    const char *key;
    json_t *ref, *tmp;
    json_object_foreach_safe(refs, tmp, key, ref)
    {
        if (in_list(ids, json_integer_value(json_object_get(ref, "snapshot-id")))) {
            if (strcmp(key, "main") == 0)
                json_object_set_new(s->m, "current-snapshot-id", json_integer(-1));
            json_object_del(refs, key);
        }
    }
    /* The snapshot log keeps only the entries after the last removed
     * snapshot, as the Java builder does: history must not skip a gap. */
    json_t *log = json_object_get(s->m, "snapshot-log");
    size_t keep_from = 0;
    for (size_t i = 0; i < json_array_size(log); i++)
        if (in_list(ids, json_integer_value(json_object_get(json_array_get(log, i), "snapshot-id"))))
            keep_from = i + 1;
    for (size_t i = 0; i < keep_from; i++)
        json_array_remove(log, 0);
    /* Statistics of removed snapshots too. */
    static const char *const stats[] = {"statistics", "partition-statistics"};
    for (int k = 0; k < 2; k++) {
        json_t *arr = json_object_get(s->m, stats[k]);
        for (size_t i = json_array_size(arr); i-- > 0;)
            if (in_list(ids, json_integer_value(json_object_get(json_array_get(arr, i), "snapshot-id"))))
                json_array_remove(arr, i);
    }
    return BASALT_OK;
}
