/* basalt_iceberg_create_updates_json: the create updates of a REST
 * CreateTableRequest keep the client's ids, default to unpartitioned and
 * unsorted, apply to a new table, and refuse specs and orders that name
 * missing columns or transforms that do not apply. */
#include <jansson.h>
#include <string.h>

#include "basalt/iceberg_commit.h"
#include "basalt/iceberg_metadata.h"
#include "test.h"

static const char schema[] =
    "{\"type\": \"struct\", \"schema-id\": 0, \"fields\": [{\"id\": 7, \"name\": \"id\", "
    "\"type\": \"long\", \"required\": true}, {\"id\": 9, \"name\": \"name\", \"type\": "
    "\"string\", \"required\": false}, {\"id\": 8, \"name\": \"at\", \"type\": \"date\", "
    "\"required\": false}]}";

/* Applies the updates to no table and parses the result. */
static basalt_status apply(const char *updates, struct basalt_iceberg_metadata **out,
                           struct basalt_error *err)
{
    struct basalt_iceberg_update_context ctx = {.now_ms = 1700000000000};
    char *text = NULL;
    size_t len = 0;
    basalt_status st = basalt_iceberg_apply_updates(NULL, updates, &ctx, &text, &len, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_metadata_parse(text, len, "created", out, err);
    basalt_free(text);
    return st;
}

TEST(create_updates_json_keep_the_clients_ids)
{
    struct basalt_error err;
    char *updates = NULL;
    CHECK_OK(basalt_iceberg_create_updates_json(
                 schema,
                 "{\"spec-id\": 0, \"fields\": [{\"source-id\": 8, \"transform\": \"month\", "
                 "\"name\": \"at_month\"}, {\"source-id\": 7, \"transform\": \"bucket[8]\", "
                 "\"name\": \"id_bucket\", \"field-id\": 1005}]}",
                 "{\"order-id\": 3, \"fields\": [{\"source-id\": 9, \"transform\": "
                 "\"identity\", \"direction\": \"desc\", \"null-order\": \"nulls-last\"}]}",
                 3, "/tmp/nowhere/t", "{\"owner\": \"ann\"}", &updates, &err),
             &err);
    json_t *list = json_loads(updates, 0, NULL);
    CHECK_EQ(json_array_size(list), 10);
    CHECK_STR(json_string_value(json_object_get(json_array_get(list, 0), "action")),
              "assign-uuid");
    CHECK_EQ(json_integer_value(json_object_get(json_array_get(list, 1), "format-version")), 3);
    json_decref(list);
    struct basalt_iceberg_metadata *m = NULL;
    CHECK_OK(apply(updates, &m, &err), &err);
    basalt_free(updates);
    CHECK_EQ(m->format_version, 3);
    CHECK_EQ(m->last_column_id, 9);
    const struct basalt_iceberg_schema *s = basalt_iceberg_metadata_current_schema(m);
    CHECK(s && basalt_iceberg_schema_field(s, 9));
    CHECK_STR(basalt_iceberg_schema_field(s, 9)->name, "name");
    const struct basalt_iceberg_partition_spec *spec =
        basalt_iceberg_metadata_spec(m, m->default_spec_id);
    CHECK(spec && spec->n_fields == 2);
    /* A missing field id is the next free one; a given one is kept. */
    CHECK_EQ(spec->fields[0].field_id, 1000);
    CHECK_EQ(spec->fields[1].field_id, 1005);
    CHECK_EQ(m->last_partition_id, 1005);
    CHECK_STR(basalt_iceberg_metadata_property(m, "owner"), "ann");
    CHECK_STR(m->location, "/tmp/nowhere/t");
    basalt_iceberg_metadata_free(m);
}

TEST(create_updates_json_default_to_unpartitioned_unsorted)
{
    struct basalt_error err;
    char *updates = NULL;
    CHECK_OK(basalt_iceberg_create_updates_json(schema, NULL, "", 2, "/tmp/t", NULL, &updates,
                                                &err),
             &err);
    struct basalt_iceberg_metadata *m = NULL;
    CHECK_OK(apply(updates, &m, &err), &err);
    basalt_free(updates);
    CHECK_EQ(m->default_spec_id, 0);
    CHECK_EQ(basalt_iceberg_metadata_spec(m, 0)->n_fields, 0);
    CHECK_EQ(m->default_sort_order_id, 0);
    CHECK_EQ(m->last_partition_id, 999);
    basalt_iceberg_metadata_free(m);
}

TEST(create_updates_json_refuse_what_would_not_work)
{
    struct basalt_error err;
    char *updates = NULL;
    static const struct {
        const char *schema, *spec, *order, *props;
        int version;
        basalt_status want;
        const char *says;
    } cases[] = {
        {schema, "{\"fields\": [{\"source-id\": 4, \"transform\": \"identity\", \"name\": "
                 "\"x\"}]}",
         NULL, NULL, 2, BASALT_INVALID_ARG, "no source field 4"},
        {schema, "{\"fields\": [{\"source-id\": 9, \"transform\": \"day\", \"name\": \"x\"}]}",
         NULL, NULL, 2, BASALT_INVALID_ARG, "day cannot apply"},
        {schema, "{\"fields\": [{\"source-id\": 9, \"transform\": 3, \"name\": \"x\"}]}",
         NULL, NULL, 2, BASALT_INVALID_ARG, "bad transform"},
        {schema, NULL, "{\"order-id\": 1, \"fields\": [{\"transform\": \"identity\"}]}", NULL, 2,
         BASALT_INVALID_ARG, "no source-id"},
        {schema, "[]", NULL, NULL, 2, BASALT_INVALID_ARG, "not a JSON object"},
        {schema, "{}", NULL, NULL, 2, BASALT_INVALID_ARG, "no 'fields'"},
        {schema, NULL, NULL, "{\"k\": 1}", 2, BASALT_INVALID_ARG, "not a string"},
        {"{\"type\": \"struct\"}", NULL, NULL, NULL, 2, BASALT_INVALID_ARG, "no 'fields'"},
        {"{\"type\": \"struct\", \"fields\": [{\"id\": 1}]}", NULL, NULL, NULL, 2,
         BASALT_INVALID_ARG, "the schema"},
        {NULL, NULL, NULL, NULL, 2, BASALT_INVALID_ARG, "no schema"},
        {schema, NULL, NULL, NULL, 4, BASALT_UNSUPPORTED, "format version 4"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        basalt_status st = basalt_iceberg_create_updates_json(
            cases[i].schema, cases[i].spec, cases[i].order, cases[i].version, "/tmp/t",
            cases[i].props, &updates, &err);
        CHECK_MSG(st == cases[i].want, "case %zu: %s: %s", i, basalt_status_name(st),
                  err.message);
        CHECK_MSG(strstr(err.message, cases[i].says), "case %zu: '%s'", i, err.message);
        CHECK(!updates);
    }
    CHECK_STATUS(basalt_iceberg_create_updates_json(schema, NULL, NULL, 2, "", NULL, &updates,
                                                    &err),
                 BASALT_INVALID_ARG, &err);
}

static basalt_status attempt(void *ctx)
{
    (void)ctx;
    char *updates = NULL;
    basalt_status st = basalt_iceberg_create_updates_json(
        schema, "{\"fields\": [{\"source-id\": 7, \"transform\": \"identity\", \"name\": \"id\"}]}",
        NULL, 2, "/tmp/t", "{\"a\": \"b\"}", &updates, NULL);
    basalt_free(updates);
    return st;
}

TEST(create_updates_json_failing_allocations)
{
    CHECK_ALLOC_SWEEP(attempt, NULL);
}
