/* Updates that add or choose schemas, partition specs and sort orders. */
#include <string.h>

#include "commit_internal.h"

/* The highest field id in a type, nested types included. */
static int64_t highest_id(const json_t *type, int depth)
{
    int64_t high = 0;
    if (!json_is_object(type) || depth > 200)
        return 0;
    const json_t *fields = json_object_get(type, "fields");
    size_t i;
    const json_t *f;
    json_array_foreach(fields, i, f)
    {
        json_int_t id = json_integer_value(json_object_get(f, "id"));
        if (id > high)
            high = id;
        int64_t inner = highest_id(json_object_get(f, "type"), depth + 1);
        if (inner > high)
            high = inner;
    }
    static const char *const ids[] = {"element-id", "key-id", "value-id"};
    static const char *const types[] = {"element", "key", "value"};
    for (int k = 0; k < 3; k++) {
        json_int_t id = json_integer_value(json_object_get(type, ids[k]));
        if (id > high)
            high = id;
        int64_t inner = highest_id(json_object_get(type, types[k]), depth + 1);
        if (inner > high)
            high = inner;
    }
    return high;
}

/* The highest integer member `key` over the array's elements (`floor` when
 * empty or lower). */
static int64_t max_id(const json_t *arr, const char *key, int64_t floor)
{
    int64_t high = floor;
    size_t i;
    const json_t *e;
    json_array_foreach(arr, i, e)
    {
        json_int_t id = json_integer_value(json_object_get(e, key));
        if (id > high)
            high = id;
    }
    return high;
}

/* An element of `arr` whose `member` equals `value` (schemas compared by
 * fields and identifier ids, specs and orders by fields), or NULL. */
static json_t *find_equal(const json_t *arr, const json_t *value, const char *member,
                          const char *member2)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e)
    {
        if (!json_equal(json_object_get(e, member), json_object_get(value, member)))
            continue;
        if (member2) {
            const json_t *a = json_object_get(e, member2), *b = json_object_get(value, member2);
            bool a_empty = !a || json_array_size(a) == 0, b_empty = !b || json_array_size(b) == 0;
            if (!(a_empty && b_empty) && !json_equal(a, b))
                continue;
        }
        return e;
    }
    return NULL;
}

basalt_status basalt_iceberg_update_add_schema(struct basalt_iceberg_update_state *s,
                                               const json_t *u, struct basalt_error *err)
{
    const json_t *schema = json_object_get(u, "schema");
    if (!json_is_object(schema) || !json_is_array(json_object_get(schema, "fields")))
        return basalt_error_set(err, BASALT_CORRUPT, "add-schema: 'schema' is not a schema");
    json_t *schemas = basalt_iceberg_jarray(s->m, "schemas");
    if (!schemas)
        return basalt_error_set(err, BASALT_NOMEM, "add-schema: out of memory");
    int64_t last_column = 0, given_last = 0;
    basalt_status st =
        basalt_iceberg_jint(s->m, "last-column-id", false, 0, &last_column, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_jint(u, "last-column-id", false, 0, &given_last, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "add-schema");
    int64_t high = highest_id(schema, 0);
    if (given_last > high)
        high = given_last;
    if (high > last_column &&
        json_object_set_new(s->m, "last-column-id", json_integer(high)) != 0)
        return basalt_error_set(err, BASALT_NOMEM, "add-schema: out of memory");
    json_t *same = find_equal(schemas, schema, "fields", "identifier-field-ids");
    if (same) {
        s->last_added_schema_id = (int32_t)json_integer_value(json_object_get(same, "schema-id"));
        return BASALT_OK;
    }
    int64_t id = json_array_size(schemas) ? max_id(schemas, "schema-id", 0) + 1 : 0;
    json_t *copy = json_deep_copy(schema);
    if (!copy || json_object_set_new(copy, "schema-id", json_integer(id)) != 0 ||
        json_object_set_new(copy, "type", json_string("struct")) != 0 ||
        json_array_append_new(schemas, copy) != 0)
        return basalt_error_set(err, BASALT_NOMEM, "add-schema: out of memory");
    s->last_added_schema_id = (int32_t)id;
    return BASALT_OK;
}

/* The id an update names under `key`: -1 means the one added last. */
static basalt_status chosen_id(const json_t *u, const char *key, int32_t last_added,
                               const char *what, int64_t *out, struct basalt_error *err)
{
    basalt_status st = basalt_iceberg_jint(u, key, true, 0, out, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", what);
    if (*out == -1) {
        if (last_added < 0)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "%s: -1 names the last one added, and none was", what);
        *out = last_added;
    }
    return BASALT_OK;
}

basalt_status basalt_iceberg_update_set_current_schema(struct basalt_iceberg_update_state *s,
                                                       const json_t *u,
                                                       struct basalt_error *err)
{
    int64_t id = 0;
    basalt_status st = chosen_id(u, "schema-id", s->last_added_schema_id,
                                 "set-current-schema", &id, err);
    if (st != BASALT_OK)
        return st;
    if (!basalt_iceberg_jfind(json_object_get(s->m, "schemas"), "schema-id", id))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "set-current-schema: no schema with id %lld", (long long)id);
    if (json_object_set_new(s->m, "current-schema-id", json_integer(id)) != 0)
        return basalt_error_set(err, BASALT_NOMEM, "set-current-schema: out of memory");
    return BASALT_OK;
}

/* The partition field id of (source, transform) in any existing spec, so
 * that the same field keeps its id across specs (v2 rule), or -1. */
static int64_t existing_partition_field_id(const json_t *specs, const json_t *field)
{
    size_t i, j;
    const json_t *spec, *f;
    json_array_foreach(specs, i, spec)
    {
        json_array_foreach(json_object_get(spec, "fields"), j, f)
        {
            if (json_equal(json_object_get(f, "source-id"), json_object_get(field, "source-id")) &&
                json_equal(json_object_get(f, "transform"), json_object_get(field, "transform")) &&
                json_equal(json_object_get(f, "name"), json_object_get(field, "name")))
                return json_integer_value(json_object_get(f, "field-id"));
        }
    }
    return -1;
}

basalt_status basalt_iceberg_update_add_spec(struct basalt_iceberg_update_state *s,
                                             const json_t *u, struct basalt_error *err)
{
    const json_t *spec = json_object_get(u, "spec");
    const json_t *fields = json_object_get(spec, "fields");
    if (!json_is_object(spec) || !json_is_array(fields))
        return basalt_error_set(err, BASALT_CORRUPT, "add-spec: 'spec' is not a partition spec");
    json_t *specs = basalt_iceberg_jarray(s->m, "partition-specs");
    int64_t last_partition = 999;
    basalt_status st =
        basalt_iceberg_jint(s->m, "last-partition-id", false, 999, &last_partition, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "add-spec");
    json_t *copy = json_object(), *copy_fields = json_array();
    if (!specs || !copy || !copy_fields ||
        json_object_set_new(copy, "fields", copy_fields) != 0) {
        json_decref(copy);
        json_decref(copy_fields);
        return basalt_error_set(err, BASALT_NOMEM, "add-spec: out of memory");
    }
    size_t i;
    const json_t *f;
    json_array_foreach(fields, i, f)
    {
        if (!json_is_string(json_object_get(f, "name")) ||
            !json_is_string(json_object_get(f, "transform")) ||
            (!json_is_integer(json_object_get(f, "source-id")) &&
             !json_is_array(json_object_get(f, "source-ids")))) {
            json_decref(copy);
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "add-spec: field %zu needs name, transform and source-id", i);
        }
        json_t *nf = json_deep_copy(f);
        int64_t id = json_is_integer(json_object_get(f, "field-id"))
                         ? json_integer_value(json_object_get(f, "field-id"))
                         : existing_partition_field_id(specs, f);
        if (id < 0)
            id = ++last_partition;
        if (id > last_partition)
            last_partition = id;
        if (!nf || json_object_set_new(nf, "field-id", json_integer(id)) != 0 ||
            json_array_append_new(copy_fields, nf) != 0) {
            json_decref(copy);
            return basalt_error_set(err, BASALT_NOMEM, "add-spec: out of memory");
        }
    }
    if (json_object_set_new(s->m, "last-partition-id", json_integer(last_partition)) != 0) {
        json_decref(copy);
        return basalt_error_set(err, BASALT_NOMEM, "add-spec: out of memory");
    }
    json_t *same = find_equal(specs, copy, "fields", NULL);
    if (same) {
        json_decref(copy);
        s->last_added_spec_id = (int32_t)json_integer_value(json_object_get(same, "spec-id"));
        return BASALT_OK;
    }
    int64_t id = json_array_size(specs) ? max_id(specs, "spec-id", 0) + 1 : 0;
    if (json_object_set_new(copy, "spec-id", json_integer(id)) != 0 ||
        json_array_append_new(specs, copy) != 0)
        return basalt_error_set(err, BASALT_NOMEM, "add-spec: out of memory");
    s->last_added_spec_id = (int32_t)id;
    return BASALT_OK;
}

basalt_status basalt_iceberg_update_set_default_spec(struct basalt_iceberg_update_state *s,
                                                     const json_t *u, struct basalt_error *err)
{
    int64_t id = 0;
    basalt_status st =
        chosen_id(u, "spec-id", s->last_added_spec_id, "set-default-spec", &id, err);
    if (st != BASALT_OK)
        return st;
    if (!basalt_iceberg_jfind(json_object_get(s->m, "partition-specs"), "spec-id", id))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "set-default-spec: no partition spec with id %lld", (long long)id);
    if (json_object_set_new(s->m, "default-spec-id", json_integer(id)) != 0)
        return basalt_error_set(err, BASALT_NOMEM, "set-default-spec: out of memory");
    return BASALT_OK;
}

basalt_status basalt_iceberg_update_add_sort_order(struct basalt_iceberg_update_state *s,
                                                   const json_t *u, struct basalt_error *err)
{
    const json_t *order = json_object_get(u, "sort-order");
    if (!json_is_object(order) || !json_is_array(json_object_get(order, "fields")))
        return basalt_error_set(err, BASALT_CORRUPT,
                                "add-sort-order: 'sort-order' is not a sort order");
    json_t *orders = basalt_iceberg_jarray(s->m, "sort-orders");
    if (!orders)
        return basalt_error_set(err, BASALT_NOMEM, "add-sort-order: out of memory");
    json_t *same = find_equal(orders, order, "fields", NULL);
    if (same) {
        s->last_added_order_id = (int32_t)json_integer_value(json_object_get(same, "order-id"));
        return BASALT_OK;
    }
    /* Order 0 is reserved for "unsorted". */
    int64_t id = json_array_size(json_object_get(order, "fields")) == 0
                     ? 0
                     : max_id(orders, "order-id", 0) + 1;
    json_t *copy = json_deep_copy(order);
    if (!copy || json_object_set_new(copy, "order-id", json_integer(id)) != 0 ||
        json_array_append_new(orders, copy) != 0)
        return basalt_error_set(err, BASALT_NOMEM, "add-sort-order: out of memory");
    s->last_added_order_id = (int32_t)id;
    return BASALT_OK;
}

basalt_status basalt_iceberg_update_set_default_sort_order(struct basalt_iceberg_update_state *s,
                                                           const json_t *u,
                                                           struct basalt_error *err)
{
    int64_t id = 0;
    basalt_status st = chosen_id(u, "sort-order-id", s->last_added_order_id,
                                 "set-default-sort-order", &id, err);
    if (st != BASALT_OK)
        return st;
    if (!basalt_iceberg_jfind(json_object_get(s->m, "sort-orders"), "order-id", id))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "set-default-sort-order: no sort order with id %lld",
                                (long long)id);
    if (json_object_set_new(s->m, "default-sort-order-id", json_integer(id)) != 0)
        return basalt_error_set(err, BASALT_NOMEM, "set-default-sort-order: out of memory");
    return BASALT_OK;
}

basalt_status basalt_iceberg_update_remove_ids(struct basalt_iceberg_update_state *s,
                                               const json_t *u, const char *list_key,
                                               const char *array_key, const char *id_key,
                                               const char *current_key,
                                               struct basalt_error *err)
{
    const json_t *ids = json_object_get(u, list_key);
    if (!json_is_array(ids))
        return basalt_error_set(err, BASALT_CORRUPT, "'%s' is not an array", list_key);
    json_t *arr = json_object_get(s->m, array_key);
    json_int_t current = json_integer_value(json_object_get(s->m, current_key));
    size_t i;
    const json_t *id;
    json_array_foreach(ids, i, id)
    {
        if (json_integer_value(id) == current)
            return basalt_error_set(err, BASALT_INVALID_ARG, "cannot remove the current %s %lld",
                                    id_key, (long long)current);
        for (size_t k = 0; k < json_array_size(arr); k++)
            if (json_integer_value(json_object_get(json_array_get(arr, k), id_key)) ==
                json_integer_value(id)) {
                json_array_remove(arr, k);
                break;
            }
    }
    return BASALT_OK;
}
