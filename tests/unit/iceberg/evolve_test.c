/* Schema and partition evolution as requirements and updates: ids of added
 * fields (nested ones in fresh-id order), renames, promotions, moves, drops
 * refused for partition sources, and specs keeping field ids. Expected
 * values are written out by hand from the spec's rules. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_commit.h"
#include "basalt/iceberg_metadata.h"
#include "test.h"

/* A table "id long not null, name string, loc struct<lat double, lon double>"
 * partitioned by bucket(4, id), as metadata. */
static struct basalt_iceberg_metadata *base_table(struct basalt_error *err)
{
    char *schema = NULL, *updates = NULL, *text = NULL;
    struct basalt_iceberg_metadata *m = NULL;
    struct basalt_iceberg_update_context ctx = {.now_ms = 1700000000000};
    if (basalt_iceberg_schema_from_text(
            "id long not null, name string, loc struct<lat: double, lon: double>", &schema, err) ==
            BASALT_OK &&
        basalt_iceberg_create_updates(schema, "bucket(4, id)", "name", 2, "/tmp/t", NULL, 0,
                                      &updates, err) == BASALT_OK &&
        basalt_iceberg_apply_updates(NULL, updates, &ctx, &text, NULL, err) == BASALT_OK)
        basalt_iceberg_metadata_parse(text, strlen(text), "t", &m, err);
    basalt_free(schema);
    basalt_free(updates);
    basalt_free(text);
    return m;
}

/* Applies requirements (checked first) and updates to m. */
static struct basalt_iceberg_metadata *evolve(const struct basalt_iceberg_metadata *m,
                                              const char *reqs, const char *ups,
                                              struct basalt_error *err)
{
    struct basalt_iceberg_metadata *out = NULL;
    struct basalt_iceberg_update_context ctx = {.now_ms = 1700000001000};
    char *text = NULL;
    if (basalt_iceberg_check_requirements(m, reqs, err) == BASALT_OK &&
        basalt_iceberg_apply_updates(m, ups, &ctx, &text, NULL, err) == BASALT_OK)
        basalt_iceberg_metadata_parse(text, strlen(text), "t", &out, err);
    basalt_free(text);
    return out;
}

static const char *field_name(const struct basalt_iceberg_metadata *m, int32_t id, char *buf)
{
    const struct basalt_iceberg_schema *s = basalt_iceberg_metadata_current_schema(m);
    if (basalt_iceberg_schema_field_name(s, id, buf, 128) != BASALT_OK)
        strcpy(buf, "(none)");
    return buf;
}

TEST(evolve_adds_renames_promotes_and_moves)
{
    struct basalt_error err;
    struct basalt_iceberg_metadata *m = base_table(&err);
    CHECK_MSG(m, "%s", err.message);
    /* last-column-id is 5 (id 1, name 2, loc 3, lat 4, lon 5). */
    CHECK_EQ(m->last_column_id, 5);
    struct basalt_iceberg_column_change changes[] = {
        {BASALT_ICEBERG_ADD_COLUMN, "tags", "map<string, list<int>>"},
        {BASALT_ICEBERG_ADD_COLUMN, "loc.alt", "float"},
        {BASALT_ICEBERG_RENAME_COLUMN, "name", "customer"},
        {BASALT_ICEBERG_UPDATE_COLUMN, "loc.alt", "double"},
        {BASALT_ICEBERG_MOVE_FIRST, "customer", NULL},
        {BASALT_ICEBERG_MOVE_BEFORE, "loc.alt", "loc.lat"},
    };
    char *reqs = NULL, *ups = NULL;
    CHECK_MSG(basalt_iceberg_schema_changes(m, changes, 6, &reqs, &ups, &err) == BASALT_OK, "%s",
              err.message);
    struct basalt_iceberg_metadata *n = evolve(m, reqs, ups, &err);
    CHECK_MSG(n, "%s", err.message);
    char buf[128];
    /* tags 6, then its key 7 and value 8, the value's element 9; alt 10. */
    CHECK_STR(field_name(n, 6, buf), "tags");
    CHECK_STR(field_name(n, 7, buf), "tags.key");
    CHECK_STR(field_name(n, 8, buf), "tags.value");
    CHECK_STR(field_name(n, 9, buf), "tags.value.element");
    CHECK_STR(field_name(n, 10, buf), "loc.alt");
    CHECK_STR(field_name(n, 2, buf), "customer");
    CHECK_EQ(n->last_column_id, 10);
    CHECK_EQ(n->current_schema_id, 1);
    const struct basalt_iceberg_schema *s = basalt_iceberg_metadata_current_schema(n);
    CHECK_STR(s->root.fields[0].name, "customer");
    const struct basalt_iceberg_field *loc = basalt_iceberg_schema_field(s, 3);
    CHECK_STR(loc->type.fields[0].name, "alt");
    CHECK_EQ(loc->type.fields[0].type.id, BASALT_ICEBERG_TYPE_DOUBLE);
    CHECK(!loc->type.fields[0].required);
    /* A concurrent schema change makes these requirements fail. */
    CHECK_EQ(basalt_iceberg_check_requirements(n, reqs, &err), BASALT_CONFLICT);
    basalt_free(reqs);
    basalt_free(ups);
    basalt_iceberg_metadata_free(n);
    basalt_iceberg_metadata_free(m);
}

TEST(evolve_refuses_what_would_break_the_table)
{
    struct basalt_error err;
    struct basalt_iceberg_metadata *m = base_table(&err);
    CHECK(m);
    char *reqs = NULL, *ups = NULL;
    struct {
        struct basalt_iceberg_column_change c;
        const char *message;
    } bad[] = {
        {{BASALT_ICEBERG_DROP_COLUMN, "id", NULL}, "source of the partition spec"},
        {{BASALT_ICEBERG_DROP_COLUMN, "name", NULL}, "source of the sort order"},
        {{BASALT_ICEBERG_UPDATE_COLUMN, "id", "int"}, "not a type promotion"},
        {{BASALT_ICEBERG_UPDATE_COLUMN, "loc", "double"}, "not a type promotion"},
        {{BASALT_ICEBERG_ADD_COLUMN, "name", "string"}, "already exists"},
        {{BASALT_ICEBERG_RENAME_COLUMN, "loc.lat", "lon"}, "the name is taken"},
        {{BASALT_ICEBERG_ADD_COLUMN, "nope.x", "int"}, "no 'nope'"},
        {{BASALT_ICEBERG_MOVE_AFTER, "id", "loc.lat"}, "not a column beside it"},
        {{BASALT_ICEBERG_ADD_COLUMN, "x", "lng"}, "unknown type"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_MSG(basalt_iceberg_schema_changes(m, &bad[i].c, 1, &reqs, &ups, &err) ==
                      BASALT_INVALID_ARG,
                  "change %zu accepted", i);
        CHECK_MSG(strstr(err.message, bad[i].message), "change %zu: %s", i, err.message);
        CHECK(!reqs && !ups);
    }
    basalt_iceberg_metadata_free(m);
}

TEST(partition_evolution_keeps_field_ids)
{
    struct basalt_error err;
    struct basalt_iceberg_metadata *m = base_table(&err);
    CHECK(m);
    char *reqs = NULL, *ups = NULL;
    CHECK_MSG(basalt_iceberg_spec_changes(m, "truncate(3, name), loc.lat", NULL, 0, &reqs, &ups,
                                          &err) == BASALT_OK,
              "%s", err.message);
    struct basalt_iceberg_metadata *n = evolve(m, reqs, ups, &err);
    basalt_free(reqs);
    basalt_free(ups);
    CHECK_MSG(n, "%s", err.message);
    const struct basalt_iceberg_partition_spec *spec = basalt_iceberg_metadata_spec(n, n->default_spec_id);
    CHECK_EQ(n->default_spec_id, 1);
    CHECK_EQ(spec->n_fields, 3);
    CHECK_EQ(spec->fields[0].field_id, 1000);
    CHECK_STR(spec->fields[0].name, "id_bucket");
    CHECK_EQ(spec->fields[1].field_id, 1001);
    CHECK_STR(spec->fields[1].name, "name_trunc");
    CHECK_STR(spec->fields[2].name, "loc.lat");
    CHECK_EQ(spec->fields[2].field_id, 1002);
    const char *drop = "id_bucket";
    CHECK_EQ(basalt_iceberg_spec_changes(n, NULL, &drop, 1, &reqs, &ups, &err), BASALT_OK);
    struct basalt_iceberg_metadata *o = evolve(n, reqs, ups, &err);
    basalt_free(reqs);
    basalt_free(ups);
    CHECK_MSG(o, "%s", err.message);
    spec = basalt_iceberg_metadata_spec(o, o->default_spec_id);
    CHECK_EQ(spec->n_fields, 2);
    CHECK_EQ(spec->fields[0].field_id, 1001);
    CHECK_EQ(o->last_partition_id, 1002);
    const char *nope = "nope";
    CHECK_EQ(basalt_iceberg_spec_changes(o, NULL, &nope, 1, &reqs, &ups, &err), BASALT_INVALID_ARG);
    CHECK_EQ(basalt_iceberg_spec_changes(o, "name_trunc", NULL, 0, &reqs, &ups, &err),
             BASALT_INVALID_ARG);
    basalt_iceberg_metadata_free(o);
    basalt_iceberg_metadata_free(n);
    basalt_iceberg_metadata_free(m);
}
