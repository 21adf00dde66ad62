/* Checking REST-style requirements against a table's current metadata: a
 * requirement that no longer holds means another writer got there first. */
#include <string.h>

#include "basalt/iceberg_metadata.h"
#include "commit_internal.h"

static basalt_status check_ref(const struct basalt_iceberg_metadata *base, const json_t *r,
                               struct basalt_error *err)
{
    const char *name = json_string_value(json_object_get(r, "ref"));
    if (!name)
        return basalt_error_set(err, BASALT_CORRUPT, "assert-ref-snapshot-id: missing 'ref'");
    const json_t *want = json_object_get(r, "snapshot-id");
    const struct basalt_iceberg_ref *ref = basalt_iceberg_metadata_ref(base, name);
    if (!want || json_is_null(want)) {
        if (ref)
            return basalt_error_set(err, BASALT_CONFLICT,
                                    "requirement failed: branch or tag %s was created "
                                    "concurrently (now at snapshot %lld)",
                                    name, (long long)ref->snapshot_id);
        return BASALT_OK;
    }
    if (!json_is_integer(want))
        return basalt_error_set(err, BASALT_CORRUPT,
                                "assert-ref-snapshot-id: 'snapshot-id' is not an integer");
    if (!ref)
        return basalt_error_set(err, BASALT_CONFLICT,
                                "requirement failed: branch or tag %s is missing", name);
    if (ref->snapshot_id != json_integer_value(want))
        return basalt_error_set(err, BASALT_CONFLICT,
                                "requirement failed: %s has changed: expected snapshot %lld, "
                                "found %lld",
                                name, (long long)json_integer_value(want),
                                (long long)ref->snapshot_id);
    return BASALT_OK;
}

static basalt_status check_int(const json_t *r, const char *key, int64_t have, const char *what,
                               struct basalt_error *err)
{
    int64_t want = 0;
    basalt_status st = basalt_iceberg_jint(r, key, true, 0, &want, err);
    if (st != BASALT_OK)
        return st;
    if (want != have)
        return basalt_error_set(err, BASALT_CONFLICT,
                                "requirement failed: %s has changed: expected %lld, found %lld",
                                what, (long long)want, (long long)have);
    return BASALT_OK;
}

static basalt_status check_one(const struct basalt_iceberg_metadata *base, const json_t *r,
                               struct basalt_error *err)
{
    const char *type = json_string_value(json_object_get(r, "type"));
    if (!type)
        return basalt_error_set(err, BASALT_CORRUPT, "requirement without a 'type'");
    if (strcmp(type, "assert-create") == 0)
        return base ? basalt_error_set(err, BASALT_CONFLICT,
                                       "requirement failed: the table already exists")
                    : BASALT_OK;
    if (!base)
        return basalt_error_set(err, BASALT_CONFLICT,
                                "requirement failed: %s on a table that does not exist", type);
    if (strcmp(type, "assert-table-uuid") == 0) {
        const char *want = json_string_value(json_object_get(r, "uuid"));
        if (!want)
            return basalt_error_set(err, BASALT_CORRUPT, "assert-table-uuid: missing 'uuid'");
        if (!base->table_uuid || strcasecmp(want, base->table_uuid) != 0)
            return basalt_error_set(err, BASALT_CONFLICT,
                                    "requirement failed: table uuid does not match: expected "
                                    "%.40s, found %.40s",
                                    want, base->table_uuid ? base->table_uuid : "none");
        return BASALT_OK;
    }
    if (strcmp(type, "assert-ref-snapshot-id") == 0)
        return check_ref(base, r, err);
    if (strcmp(type, "assert-last-assigned-field-id") == 0)
        return check_int(r, "last-assigned-field-id", base->last_column_id,
                         "last assigned field id", err);
    if (strcmp(type, "assert-current-schema-id") == 0)
        return check_int(r, "current-schema-id", base->current_schema_id, "current schema id",
                         err);
    if (strcmp(type, "assert-last-assigned-partition-id") == 0)
        return check_int(r, "last-assigned-partition-id", base->last_partition_id,
                         "last assigned partition id", err);
    if (strcmp(type, "assert-default-spec-id") == 0)
        return check_int(r, "default-spec-id", base->default_spec_id, "default spec id", err);
    if (strcmp(type, "assert-default-sort-order-id") == 0)
        return check_int(r, "default-sort-order-id", base->default_sort_order_id,
                         "default sort order id", err);
    return basalt_error_set(err, BASALT_CORRUPT, "unknown requirement '%s'", type);
}

basalt_status basalt_iceberg_check_requirements(const struct basalt_iceberg_metadata *base,
                                                const char *requirements_json,
                                                struct basalt_error *err)
{
    if (!requirements_json || !*requirements_json)
        return BASALT_OK;
    json_error_t jerr;
    json_t *reqs = json_loads(requirements_json, 0, &jerr);
    if (!json_is_array(reqs)) {
        json_decref(reqs);
        return basalt_error_set(err, BASALT_CORRUPT, "requirements: not a JSON array (%s)",
                                jerr.text);
    }
    basalt_status st = BASALT_OK;
    size_t i;
    const json_t *r;
    json_array_foreach(reqs, i, r)
    {
        st = check_one(base, r, err);
        if (st != BASALT_OK)
            break;
    }
    json_decref(reqs);
    return st;
}
