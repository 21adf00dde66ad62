/* Applying REST-style updates to table metadata, held as a JSON object while
 * it changes and checked by parsing the result back. */
#include <stdlib.h>
#include <string.h>

#include "commit_internal.h"
#include "iceberg_internal.h"

basalt_status basalt_iceberg_jint(const json_t *o, const char *key, bool required, int64_t dflt,
                                  int64_t *out, struct basalt_error *err)
{
    const json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) {
        if (required)
            return basalt_error_set(err, BASALT_CORRUPT, "missing '%s'", key);
        *out = dflt;
        return BASALT_OK;
    }
    if (!json_is_integer(v))
        return basalt_error_set(err, BASALT_CORRUPT, "'%s' is not an integer", key);
    *out = json_integer_value(v);
    return BASALT_OK;
}

json_t *basalt_iceberg_jarray(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (json_is_array(v))
        return v;
    v = json_array();
    if (!v || json_object_set_new(o, key, v) != 0)
        return NULL;
    return v;
}

json_t *basalt_iceberg_jobject(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (json_is_object(v))
        return v;
    v = json_object();
    if (!v || json_object_set_new(o, key, v) != 0)
        return NULL;
    return v;
}

json_t *basalt_iceberg_jfind(const json_t *arr, const char *key, int64_t id)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e)
    {
        const json_t *v = json_object_get(e, key);
        if (json_is_integer(v) && json_integer_value(v) == id)
            return e;
    }
    return NULL;
}

/* The members a new table starts with; the create updates fill in the rest. */
static json_t *empty_table(int64_t now_ms)
{
    char uuid[37];
    basalt_iceberg_uuid4(uuid);
    return json_pack("{s:i,s:s,s:s,s:I,s:I,s:i,s:[],s:i,s:[],s:i,s:i,s:[],s:i,s:{},s:i,"
                     "s:{},s:[],s:[],s:[]}",
                     "format-version", 2, "table-uuid", uuid, "location", "",
                     "last-sequence-number", (json_int_t)0, "last-updated-ms",
                     (json_int_t)now_ms, "last-column-id", 0, "schemas", "current-schema-id", -1,
                     "partition-specs", "default-spec-id", 0, "last-partition-id", 999,
                     "sort-orders", "default-sort-order-id", 0, "properties",
                     "current-snapshot-id", -1, "refs", "snapshots", "snapshot-log",
                     "metadata-log");
}

static basalt_status set_string(struct basalt_iceberg_update_state *s, const json_t *u,
                                const char *from, const char *to, struct basalt_error *err)
{
    const json_t *v = json_object_get(u, from);
    if (!json_is_string(v) || !*json_string_value(v))
        return basalt_error_set(err, BASALT_CORRUPT, "missing '%s'", from);
    if (json_object_set_new(s->m, to, json_string(json_string_value(v))) != 0)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    return BASALT_OK;
}

static basalt_status upgrade_format(struct basalt_iceberg_update_state *s, const json_t *u,
                                    struct basalt_error *err)
{
    int64_t want = 0, have = 0;
    basalt_status st = basalt_iceberg_jint(u, "format-version", true, 0, &want, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_jint(s->m, "format-version", true, 0, &have, err);
    if (st != BASALT_OK)
        return st;
    if (want < 1 || want > 3)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "format version %lld", (long long)want);
    if (want < have && !s->is_new)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "cannot downgrade format version %lld to %lld", (long long)have,
                                (long long)want);
    if (json_object_set_new(s->m, "format-version", json_integer(want)) != 0 ||
        (want >= 3 && !json_object_get(s->m, "next-row-id") &&
         json_object_set_new(s->m, "next-row-id", json_integer(0)) != 0))
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    return BASALT_OK;
}

static basalt_status set_properties(struct basalt_iceberg_update_state *s, const json_t *u,
                                    struct basalt_error *err)
{
    json_t *updates = json_object_get(u, "updates");
    if (!json_is_object(updates))
        return basalt_error_set(err, BASALT_CORRUPT, "'updates' is not an object");
    json_t *props = basalt_iceberg_jobject(s->m, "properties");
    const char *key;
    json_t *v;
    json_object_foreach(updates, key, v)
    {
        if (!json_is_string(v))
            return basalt_error_set(err, BASALT_CORRUPT, "property '%s' is not a string", key);
        if (!props || json_object_set_new(props, key, json_string(json_string_value(v))) != 0)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    return BASALT_OK;
}

static basalt_status remove_properties(struct basalt_iceberg_update_state *s, const json_t *u,
                                       struct basalt_error *err)
{
    const json_t *removals = json_object_get(u, "removals");
    if (!json_is_array(removals))
        return basalt_error_set(err, BASALT_CORRUPT, "'removals' is not an array");
    size_t i;
    const json_t *k;
    json_array_foreach(removals, i, k)
    {
        if (json_is_string(k))
            json_object_del(json_object_get(s->m, "properties"), json_string_value(k));
    }
    return BASALT_OK;
}

/* set-statistics / set-partition-statistics: one file per snapshot. */
static basalt_status set_statistics(struct basalt_iceberg_update_state *s, const json_t *u,
                                    const char *key, struct basalt_error *err)
{
    const json_t *file = json_object_get(u, key);
    int64_t id = 0;
    if (!json_is_object(file))
        return basalt_error_set(err, BASALT_CORRUPT, "'%s' is not an object", key);
    basalt_status st = basalt_iceberg_jint(file, "snapshot-id", true, 0, &id, err);
    if (st != BASALT_OK)
        return st;
    const char *array_key = strcmp(key, "statistics") == 0 ? "statistics" : "partition-statistics";
    json_t *arr = basalt_iceberg_jarray(s->m, array_key);
    json_t *copy = json_deep_copy(file);
    if (!arr || !copy) {
        json_decref(copy);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < json_array_size(arr); i++)
        if (json_integer_value(json_object_get(json_array_get(arr, i), "snapshot-id")) == id)
            return json_array_set_new(arr, i, copy) == 0
                       ? BASALT_OK
                       : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    return json_array_append_new(arr, copy) == 0 ? BASALT_OK
                                                 : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

static basalt_status remove_statistics(struct basalt_iceberg_update_state *s, const json_t *u,
                                       const char *array_key, struct basalt_error *err)
{
    int64_t id = 0;
    basalt_status st = basalt_iceberg_jint(u, "snapshot-id", true, 0, &id, err);
    if (st != BASALT_OK)
        return st;
    json_t *arr = json_object_get(s->m, array_key);
    for (size_t i = json_array_size(arr); i-- > 0;)
        if (json_integer_value(json_object_get(json_array_get(arr, i), "snapshot-id")) == id)
            json_array_remove(arr, i);
    return BASALT_OK;
}

static basalt_status apply_one(struct basalt_iceberg_update_state *s, const json_t *u,
                               struct basalt_error *err)
{
    const char *action = json_string_value(json_object_get(u, "action"));
    if (!action)
        return basalt_error_set(err, BASALT_CORRUPT, "update without an 'action'");
    if (strcmp(action, "assign-uuid") == 0)
        return set_string(s, u, "uuid", "table-uuid", err);
    if (strcmp(action, "upgrade-format-version") == 0)
        return upgrade_format(s, u, err);
    if (strcmp(action, "add-schema") == 0)
        return basalt_iceberg_update_add_schema(s, u, err);
    if (strcmp(action, "set-current-schema") == 0)
        return basalt_iceberg_update_set_current_schema(s, u, err);
    if (strcmp(action, "add-spec") == 0)
        return basalt_iceberg_update_add_spec(s, u, err);
    if (strcmp(action, "set-default-spec") == 0)
        return basalt_iceberg_update_set_default_spec(s, u, err);
    if (strcmp(action, "add-sort-order") == 0)
        return basalt_iceberg_update_add_sort_order(s, u, err);
    if (strcmp(action, "set-default-sort-order") == 0)
        return basalt_iceberg_update_set_default_sort_order(s, u, err);
    if (strcmp(action, "add-snapshot") == 0)
        return basalt_iceberg_update_add_snapshot(s, u, err);
    if (strcmp(action, "set-snapshot-ref") == 0)
        return basalt_iceberg_update_set_ref(s, u, err);
    if (strcmp(action, "remove-snapshot-ref") == 0)
        return basalt_iceberg_update_remove_ref(s, u, err);
    if (strcmp(action, "remove-snapshots") == 0)
        return basalt_iceberg_update_remove_snapshots(s, u, err);
    if (strcmp(action, "set-location") == 0)
        return set_string(s, u, "location", "location", err);
    if (strcmp(action, "set-properties") == 0)
        return set_properties(s, u, err);
    if (strcmp(action, "remove-properties") == 0)
        return remove_properties(s, u, err);
    if (strcmp(action, "set-statistics") == 0)
        return set_statistics(s, u, "statistics", err);
    if (strcmp(action, "remove-statistics") == 0)
        return remove_statistics(s, u, "statistics", err);
    if (strcmp(action, "set-partition-statistics") == 0)
        return set_statistics(s, u, "partition-statistics", err);
    if (strcmp(action, "remove-partition-statistics") == 0)
        return remove_statistics(s, u, "partition-statistics", err);
    if (strcmp(action, "remove-partition-specs") == 0)
        return basalt_iceberg_update_remove_ids(s, u, "spec-ids", "partition-specs", "spec-id",
                                                "default-spec-id", err);
    if (strcmp(action, "remove-schemas") == 0)
        return basalt_iceberg_update_remove_ids(s, u, "schema-ids", "schemas", "schema-id",
                                                "current-schema-id", err);
    return basalt_error_set(err, BASALT_UNSUPPORTED, "update '%s' is not supported", action);
}

/* What every change does besides its updates: the time, the metadata log,
 * the default spec and order of a new table, v1's singular fields. */
static basalt_status finish(struct basalt_iceberg_update_state *s,
                            const struct basalt_iceberg_metadata *base,
                            const struct basalt_iceberg_update_context *ctx,
                            struct basalt_error *err)
{
    json_t *m = s->m;
    if (json_object_set_new(m, "last-updated-ms", json_integer(s->now_ms)) != 0)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (json_array_size(json_object_get(m, "partition-specs")) == 0 &&
        json_array_append_new(basalt_iceberg_jarray(m, "partition-specs"),
                              json_pack("{s:i,s:[]}", "spec-id", 0, "fields")) != 0)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (json_array_size(json_object_get(m, "sort-orders")) == 0 &&
        json_array_append_new(basalt_iceberg_jarray(m, "sort-orders"),
                              json_pack("{s:i,s:[]}", "order-id", 0, "fields")) != 0)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (base && ctx->base_location) {
        json_t *log = basalt_iceberg_jarray(m, "metadata-log");
        json_t *entry = json_pack("{s:I,s:s}", "timestamp-ms", (json_int_t)base->last_updated_ms,
                                  "metadata-file", ctx->base_location);
        if (!log || !entry || json_array_append_new(log, entry) != 0)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        const char *max_text = json_string_value(json_object_get(
            json_object_get(m, "properties"), "write.metadata.previous-versions-max"));
        long max = max_text ? strtol(max_text, NULL, 10) : 100;
        if (max < 1)
            max = 1;
        while (json_array_size(log) > (size_t)max)
            json_array_remove(log, 0);
    }
    if (json_integer_value(json_object_get(m, "format-version")) == 1) {
        /* v1 readers look for the singular forms. */
        json_t *cur = basalt_iceberg_jfind(json_object_get(m, "schemas"), "schema-id",
                                           json_integer_value(json_object_get(m, "current-schema-id")));
        json_t *spec = basalt_iceberg_jfind(json_object_get(m, "partition-specs"), "spec-id",
                                            json_integer_value(json_object_get(m, "default-spec-id")));
        if ((cur && json_object_set(m, "schema", cur) != 0) ||
            (spec && json_object_set(m, "partition-spec", json_object_get(spec, "fields")) != 0))
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    return BASALT_OK;
}

basalt_status basalt_iceberg_apply_updates(const struct basalt_iceberg_metadata *base,
                                           const char *updates_json,
                                           const struct basalt_iceberg_update_context *ctx,
                                           char **out, size_t *len, struct basalt_error *err)
{
    *out = NULL;
    json_error_t jerr;
    json_t *updates = json_loads(updates_json, 0, &jerr);
    if (!json_is_array(updates)) {
        json_decref(updates);
        return basalt_error_set(err, BASALT_CORRUPT, "updates: not a JSON array (%s)", jerr.text);
    }
    struct basalt_iceberg_update_state s = {
        .m = base ? basalt_iceberg_metadata_json(base) : empty_table(ctx->now_ms),
        .now_ms = ctx->now_ms,
        .last_added_schema_id = -1,
        .last_added_spec_id = -1,
        .last_added_order_id = -1,
        .is_new = base == NULL,
    };
    basalt_status st = BASALT_OK;
    if (!s.m)
        st = basalt_error_set(err, BASALT_NOMEM, "updates: out of memory");
    size_t i;
    const json_t *u;
    json_array_foreach(updates, i, u)
    {
        if (st != BASALT_OK)
            break;
        st = apply_one(&s, u, err);
        if (st != BASALT_OK)
            st = basalt_error_context(err, st, "update %zu", i);
    }
    if (st == BASALT_OK)
        st = finish(&s, base, ctx, err);
    char *text = NULL;
    if (st == BASALT_OK) {
        text = json_dumps(s.m, JSON_INDENT(2) | JSON_SORT_KEYS);
        if (!text)
            st = basalt_error_set(err, BASALT_NOMEM, "updates: out of memory");
    }
    json_decref(s.m);
    json_decref(updates);
    if (st != BASALT_OK)
        return st;
    /* Whatever the updates did, the result must be metadata a reader takes. */
    size_t n = strlen(text);
    struct basalt_iceberg_metadata *check = NULL;
    st = basalt_iceberg_metadata_parse(text, n, "updated metadata", &check, err);
    basalt_iceberg_metadata_free(check);
    if (st == BASALT_CORRUPT)
        st = basalt_error_context(err, BASALT_INVALID_ARG, "the updates give invalid metadata");
    char *copy = st == BASALT_OK ? basalt_malloc(n + 1) : NULL;
    if (st == BASALT_OK && !copy)
        st = basalt_error_set(err, BASALT_NOMEM, "updates: out of memory");
    if (copy)
        memcpy(copy, text, n + 1);
    free(text);
    *out = copy;
    if (len && copy)
        *len = n;
    return st;
}
