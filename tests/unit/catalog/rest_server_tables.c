/* The REST server's table routes without sockets: create (plain, staged,
 * with spec, order, location, properties), load (ETags, snapshots=refs),
 * exists, list, drop, register, rename, metrics; and a table created
 * through REST is the catalog's table, loadable by the catalog API. */
#include <stdlib.h>
#include <string.h>

#include "rest_server_fixture.h"
#include "test.h"

static const char create_body[] =
    "{\"name\": \"events\", \"location\": \"%s/elsewhere/events\", \"schema\": {\"type\": "
    "\"struct\", \"schema-id\": 0, \"identifier-field-ids\": [1], \"fields\": [{\"id\": 1, "
    "\"name\": \"id\", \"type\": \"long\", \"required\": true}, {\"id\": 2, \"name\": \"ts\", "
    "\"type\": \"timestamptz\", \"required\": false}, {\"id\": 3, \"name\": \"tags\", \"type\": "
    "{\"type\": \"list\", \"element-id\": 4, \"element\": \"string\", \"element-required\": "
    "false}, \"required\": false}]}, \"partition-spec\": {\"spec-id\": 0, \"fields\": "
    "[{\"source-id\": 2, \"field-id\": 1000, \"transform\": \"day\", \"name\": \"ts_day\"}]}, "
    "\"write-order\": {\"order-id\": 1, \"fields\": [{\"source-id\": 1, \"transform\": "
    "\"identity\", \"direction\": \"desc\", \"null-order\": \"nulls-last\"}]}, \"properties\": "
    "{\"format-version\": \"3\", \"owner\": \"ann\"}}";

TEST(rest_create_table_keeps_what_the_client_sent)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, NULL));
    CHECK(rs_create_namespace(&f, "[\"db\"]"));
    char body_text[2048];
    snprintf(body_text, sizeof body_text, create_body, f.dir);
    json_t *body = NULL;
    struct basalt_catalog_rest_response r;
    CHECK_EQ(rs_call(&f, "POST", "namespaces/db/tables", NULL, body_text, NULL, &body, &r), 200);
    CHECK(rs_header(&r, "ETag"));
    basalt_catalog_rest_response_reset(&r);
    const char *location = json_string_value(json_object_get(body, "metadata-location"));
    char want[256];
    snprintf(want, sizeof want, "%s/elsewhere/events/metadata/00000-", f.dir);
    CHECK(location && strncmp(location, want, strlen(want)) == 0);
    CHECK(json_is_object(json_object_get(body, "config")));
    CHECK_EQ(json_integer_value(rs_metadata(body, "format-version")), 3);
    CHECK_EQ(json_integer_value(rs_metadata(body, "last-column-id")), 4);
    CHECK_EQ(json_integer_value(rs_metadata(body, "last-partition-id")), 1000);
    CHECK_EQ(json_integer_value(rs_metadata(body, "default-sort-order-id")), 1);
    const json_t *props = rs_metadata(body, "properties");
    CHECK_STR(json_string_value(json_object_get(props, "owner")), "ann");
    /* format-version is a request, not a property. */
    CHECK(!json_object_get(props, "format-version"));
    const json_t *spec = json_array_get(rs_metadata(body, "partition-specs"), 0);
    CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(spec, "fields"), 0),
                                                "transform")),
              "day");
    const json_t *schema = json_array_get(rs_metadata(body, "schemas"), 0);
    CHECK_EQ(json_integer_value(json_array_get(json_object_get(schema, "identifier-field-ids"), 0)),
             1);
    json_decref(body);
    /* The catalog has it, at the location the response named. */
    struct basalt_catalog *c = NULL;
    struct basalt_iceberg_table *t = NULL;
    CHECK_OK(basalt_catalog_open(f.uri, NULL, false, &c, &f.err), &f.err);
    CHECK_OK(basalt_catalog_load_table(c, "db.events", &t, &f.err), &f.err);
    CHECK_EQ(t->metadata->format_version, 3);
    basalt_iceberg_table_free(t);
    basalt_catalog_close(c);
    /* Again: taken. */
    CHECK_EQ(rs_post(&f, "namespaces/db/tables", body_text, &body), 409);
    CHECK(rs_is_error(body, 409, "AlreadyExistsException"));
    json_decref(body);
    rs_close(&f);
}

TEST(rest_create_table_errors)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, NULL));
    CHECK(rs_create_namespace(&f, "[\"db\"]"));
    json_t *body = NULL;
    static const char schema[] =
        "\"schema\": {\"type\": \"struct\", \"fields\": [{\"id\": 1, \"name\": \"id\", "
        "\"type\": \"long\", \"required\": true}]}";
    char text[512];
    snprintf(text, sizeof text, "{\"name\": \"t\", %s}", schema);
    CHECK_EQ(rs_post(&f, "namespaces/nope/tables", text, &body), 404);
    CHECK(rs_is_error(body, 404, "NoSuchNamespaceException"));
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces/db/tables", "{\"name\": \"t\"}", &body), 400);
    CHECK(rs_is_error(body, 400, "BadRequestException"));
    json_decref(body);
    snprintf(text, sizeof text, "{\"name\": \"a.b\", %s}", schema);
    CHECK_EQ(rs_post(&f, "namespaces/db/tables", text, NULL), 400);
    snprintf(text, sizeof text, "{\"name\": \"t\", %s, \"partition-spec\": {\"fields\": "
                                "[{\"source-id\": 9, \"transform\": \"identity\", \"name\": "
                                "\"x\"}]}}",
             schema);
    CHECK_EQ(rs_post(&f, "namespaces/db/tables", text, NULL), 400);
    snprintf(text, sizeof text, "{\"name\": \"t\", %s, \"properties\": {\"format-version\": "
                                "\"9\"}}",
             schema);
    CHECK_EQ(rs_post(&f, "namespaces/db/tables", text, NULL), 400);
    snprintf(text, sizeof text, "{\"name\": \"t\", %s, \"stage-create\": \"yes\"}", schema);
    CHECK_EQ(rs_post(&f, "namespaces/db/tables", text, NULL), 400);
    /* Nothing of those was created. */
    CHECK_EQ(rs_get(&f, "namespaces/db/tables", &body), 200);
    CHECK_EQ(json_array_size(json_object_get(body, "identifiers")), 0);
    json_decref(body);
    rs_close(&f);
}

TEST(rest_staged_create_commits_with_assert_create)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, NULL));
    CHECK(rs_create_namespace(&f, "[\"db\"]"));
    json_t *body = NULL;
    CHECK_EQ(rs_post(&f, "namespaces/db/tables",
                     "{\"name\": \"s\", \"stage-create\": true, \"schema\": {\"type\": "
                     "\"struct\", \"fields\": [{\"id\": 1, \"name\": \"x\", \"type\": \"int\", "
                     "\"required\": false}]}}",
                     &body),
             200);
    /* Staged: metadata, but no location and nothing in the catalog. */
    CHECK(!json_object_get(body, "metadata-location"));
    CHECK(json_is_object(json_object_get(body, "metadata")));
    const char *uuid = json_string_value(rs_metadata(body, "table-uuid"));
    CHECK(uuid);
    char commit[2048];
    snprintf(commit, sizeof commit,
             "{\"requirements\": [{\"type\": \"assert-create\"}], \"updates\": [{\"action\": "
             "\"assign-uuid\", \"uuid\": \"%s\"}, {\"action\": \"upgrade-format-version\", "
             "\"format-version\": 2}, {\"action\": \"add-schema\", \"schema\": {\"type\": "
             "\"struct\", \"schema-id\": 0, \"fields\": [{\"id\": 1, \"name\": \"x\", \"type\": "
             "\"int\", \"required\": false}]}, \"last-column-id\": 1}, {\"action\": "
             "\"set-current-schema\", \"schema-id\": -1}, {\"action\": \"add-spec\", \"spec\": "
             "{\"spec-id\": 0, \"fields\": []}}, {\"action\": \"set-default-spec\", \"spec-id\": "
             "-1}, {\"action\": \"add-sort-order\", \"sort-order\": {\"order-id\": 0, "
             "\"fields\": []}}, {\"action\": \"set-default-sort-order\", \"sort-order-id\": -1}, "
             "{\"action\": \"set-properties\", \"updates\": {\"staged\": \"yes\"}}]}",
             uuid);
    json_decref(body);
    CHECK_EQ(rs_call(&f, "HEAD", "namespaces/db/tables/s", NULL, NULL, NULL, NULL, NULL), 404);
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/s", commit, &body), 200);
    CHECK(json_is_string(json_object_get(body, "metadata-location")));
    CHECK_STR(json_string_value(json_object_get(rs_metadata(body, "properties"), "staged")),
              "yes");
    /* The default location filled in, as the client did not send one. */
    char want[200];
    snprintf(want, sizeof want, "%s/db/s", f.dir);
    const char *loc = json_string_value(rs_metadata(body, "location"));
    CHECK(loc && strstr(loc, "/db/s"));
    json_decref(body);
    CHECK_EQ(rs_call(&f, "HEAD", "namespaces/db/tables/s", NULL, NULL, NULL, NULL, NULL), 204);
    /* A second create of the same name loses: assert-create fails. */
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/s", commit, &body), 409);
    CHECK(rs_is_error(body, 409, "CommitFailedException"));
    json_decref(body);
    rs_close(&f);
}

TEST(rest_load_table_etags_and_snapshot_selection)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, NULL));
    CHECK(rs_create_namespace(&f, "[\"db\"]"));
    CHECK(rs_create_table(&f, "db", "t"));
    json_t *body = NULL;
    struct basalt_catalog_rest_response r;
    CHECK_EQ(rs_call(&f, "GET", "namespaces/db/tables/t", NULL, NULL, NULL, &body, &r), 200);
    char etag[256], header[300];
    snprintf(etag, sizeof etag, "%s", rs_header(&r, "ETag"));
    basalt_catalog_rest_response_reset(&r);
    const char *uuid_text = json_string_value(rs_metadata(body, "table-uuid"));
    char uuid[64];
    snprintf(uuid, sizeof uuid, "%s", uuid_text);
    json_decref(body);
    /* Unchanged: 304 without a body. */
    snprintf(header, sizeof header, "If-None-Match: %s", etag);
    const char *const match[] = {header, NULL};
    CHECK_EQ(rs_call(&f, "GET", "namespaces/db/tables/t", NULL, NULL, match, NULL, &r), 304);
    CHECK_STR(rs_header(&r, "ETag"), etag);
    basalt_catalog_rest_response_reset(&r);
    /* Two snapshots, the first then left without a ref. */
    char *append = rs_append_commit(uuid, -1, 11, 1);
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/t", append, NULL), 200);
    free(append);
    append = rs_append_commit(uuid, 11, 12, 2);
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/t", append, NULL), 200);
    free(append);
    /* Changed: the old tag no longer matches. */
    CHECK_EQ(rs_call(&f, "GET", "namespaces/db/tables/t", NULL, NULL, match, &body, NULL), 200);
    CHECK_EQ(json_array_size(rs_metadata(body, "snapshots")), 2);
    CHECK_EQ(json_integer_value(rs_metadata(body, "current-snapshot-id")), 12);
    json_decref(body);
    CHECK_EQ(rs_call(&f, "GET", "namespaces/db/tables/t", "snapshots=refs", NULL, NULL, &body, &r),
             200);
    const json_t *snaps = rs_metadata(body, "snapshots");
    CHECK_EQ(json_array_size(snaps), 1);
    CHECK_EQ(json_integer_value(json_object_get(json_array_get(snaps, 0), "snapshot-id")), 12);
    /* The selection is part of the tag. */
    char refs_tag[256];
    snprintf(refs_tag, sizeof refs_tag, "%s", rs_header(&r, "ETag"));
    basalt_catalog_rest_response_reset(&r);
    CHECK_EQ(rs_call(&f, "GET", "namespaces/db/tables/t", NULL, NULL, NULL, NULL, &r), 200);
    CHECK(strcmp(rs_header(&r, "ETag"), refs_tag) != 0);
    basalt_catalog_rest_response_reset(&r);
    json_decref(body);
    CHECK_EQ(rs_call(&f, "GET", "namespaces/db/tables/t", "snapshots=some", NULL, NULL, NULL, NULL),
             400);
    CHECK_EQ(rs_get(&f, "namespaces/db/tables/none", &body), 404);
    CHECK(rs_is_error(body, 404, "NoSuchTableException"));
    json_decref(body);
    CHECK_EQ(rs_get(&f, "namespaces/nons/tables/t", &body), 404);
    json_decref(body);
    rs_close(&f);
}

TEST(rest_list_exists_drop_metrics)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, NULL));
    CHECK(rs_create_namespace(&f, "[\"a\", \"b\"]"));
    const char *names[] = {"t3", "t1", "t2"};
    for (int i = 0; i < 3; i++)
        CHECK(rs_create_table(&f, "a%1Fb", names[i]));
    json_t *body = NULL;
    CHECK_EQ(rs_get(&f, "namespaces/a%1Fb/tables", &body), 200);
    const json_t *ids = json_object_get(body, "identifiers");
    CHECK_EQ(json_array_size(ids), 3);
    const json_t *first = json_array_get(ids, 0);
    CHECK_STR(json_string_value(json_object_get(first, "name")), "t1");
    CHECK_EQ(json_array_size(json_object_get(first, "namespace")), 2);
    json_decref(body);
    /* Pages of two. */
    CHECK_EQ(rs_call(&f, "GET", "namespaces/a%1Fb/tables", "pageToken=&pageSize=2", NULL, NULL,
                     &body, NULL),
             200);
    CHECK_EQ(json_array_size(json_object_get(body, "identifiers")), 2);
    char query[128];
    snprintf(query, sizeof query, "pageSize=2&pageToken=%s",
             json_string_value(json_object_get(body, "next-page-token")));
    json_decref(body);
    CHECK_EQ(rs_call(&f, "GET", "namespaces/a%1Fb/tables", query, NULL, NULL, &body, NULL), 200);
    CHECK_EQ(json_array_size(json_object_get(body, "identifiers")), 1);
    CHECK(json_is_null(json_object_get(body, "next-page-token")));
    json_decref(body);
    CHECK_EQ(rs_get(&f, "namespaces/zz/tables", &body), 404);
    CHECK(rs_is_error(body, 404, "NoSuchNamespaceException"));
    json_decref(body);
    CHECK_EQ(rs_call(&f, "HEAD", "namespaces/a%1Fb/tables/t2", NULL, NULL, NULL, NULL, NULL), 204);
    CHECK_EQ(rs_post(&f, "namespaces/a%1Fb/tables/t2/metrics",
                     "{\"report-type\": \"commit-report\", \"table-name\": \"a.b.t2\", "
                     "\"snapshot-id\": 1, \"sequence-number\": 1, \"operation\": \"append\", "
                     "\"metrics\": {}}",
                     NULL),
             204);
    CHECK_EQ(rs_post(&f, "namespaces/a%1Fb/tables/t2/metrics", "{\"metrics\": {}}", NULL), 400);
    CHECK_EQ(rs_post(&f, "namespaces/a%1Fb/tables/none/metrics", "{\"report-type\": \"x\"}",
                     &body),
             404);
    CHECK(rs_is_error(body, 404, "NoSuchTableException"));
    json_decref(body);
    /* purgeRequested is accepted (the files are kept either way). */
    CHECK_EQ(rs_call(&f, "DELETE", "namespaces/a%1Fb/tables/t2", "purgeRequested=true", NULL,
                     NULL, NULL, NULL),
             204);
    CHECK_EQ(rs_call(&f, "HEAD", "namespaces/a%1Fb/tables/t2", NULL, NULL, NULL, NULL, NULL), 404);
    CHECK_EQ(rs_call(&f, "DELETE", "namespaces/a%1Fb/tables/t2", NULL, NULL, NULL, &body, NULL),
             404);
    CHECK(rs_is_error(body, 404, "NoSuchTableException"));
    json_decref(body);
    rs_close(&f);
}

TEST(rest_register_and_rename)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, NULL));
    CHECK(rs_create_namespace(&f, "[\"db\"]"));
    CHECK(rs_create_namespace(&f, "[\"other\"]"));
    CHECK(rs_create_table(&f, "db", "t"));
    json_t *body = NULL;
    CHECK_EQ(rs_get(&f, "namespaces/db/tables/t", &body), 200);
    char location[512], reg[1024];
    snprintf(location, sizeof location, "%s",
             json_string_value(json_object_get(body, "metadata-location")));
    json_decref(body);
    /* The same metadata under a second name. */
    snprintf(reg, sizeof reg, "{\"name\": \"copy\", \"metadata-location\": \"%s\"}", location);
    CHECK_EQ(rs_post(&f, "namespaces/other/register", reg, &body), 200);
    CHECK_STR(json_string_value(json_object_get(body, "metadata-location")), location);
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces/other/register", reg, &body), 409);
    CHECK(rs_is_error(body, 409, "AlreadyExistsException"));
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces/missing/register", reg, &body), 404);
    CHECK(rs_is_error(body, 404, "NoSuchNamespaceException"));
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces/other/register",
                     "{\"name\": \"bad\", \"metadata-location\": \"/nowhere/v1.metadata.json\"}",
                     &body),
             400);
    json_decref(body);
    CHECK_EQ(rs_call(&f, "HEAD", "namespaces/other/tables/bad", NULL, NULL, NULL, NULL, NULL), 404);
    /* overwrite: the pointer moves to the given file. */
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/t",
                     "{\"requirements\": [], \"updates\": [{\"action\": \"set-properties\", "
                     "\"updates\": {\"v\": \"2\"}}]}",
                     &body),
             200);
    char newer[512];
    snprintf(newer, sizeof newer, "%s", json_string_value(json_object_get(body, "metadata-location")));
    json_decref(body);
    snprintf(reg, sizeof reg,
             "{\"name\": \"copy\", \"metadata-location\": \"%s\", \"overwrite\": true}", newer);
    CHECK_EQ(rs_post(&f, "namespaces/other/register", reg, &body), 200);
    CHECK_STR(json_string_value(json_object_get(rs_metadata(body, "properties"), "v")), "2");
    json_decref(body);
    /* Rename, across namespaces. */
    CHECK_EQ(rs_post(&f, "tables/rename",
                     "{\"source\": {\"namespace\": [\"other\"], \"name\": \"copy\"}, "
                     "\"destination\": {\"namespace\": [\"db\"], \"name\": \"moved\"}}",
                     NULL),
             204);
    CHECK_EQ(rs_call(&f, "HEAD", "namespaces/other/tables/copy", NULL, NULL, NULL, NULL, NULL),
             404);
    CHECK_EQ(rs_get(&f, "namespaces/db/tables/moved", &body), 200);
    CHECK_STR(json_string_value(json_object_get(body, "metadata-location")), newer);
    json_decref(body);
    CHECK_EQ(rs_post(&f, "tables/rename",
                     "{\"source\": {\"namespace\": [\"db\"], \"name\": \"moved\"}, "
                     "\"destination\": {\"namespace\": [\"db\"], \"name\": \"t\"}}",
                     &body),
             409);
    CHECK(rs_is_error(body, 409, "AlreadyExistsException"));
    json_decref(body);
    CHECK_EQ(rs_post(&f, "tables/rename",
                     "{\"source\": {\"namespace\": [\"db\"], \"name\": \"nope\"}, "
                     "\"destination\": {\"namespace\": [\"db\"], \"name\": \"x\"}}",
                     &body),
             404);
    CHECK(rs_is_error(body, 404, "NoSuchTableException"));
    json_decref(body);
    CHECK_EQ(rs_post(&f, "tables/rename",
                     "{\"source\": {\"namespace\": [\"db\"], \"name\": \"moved\"}, "
                     "\"destination\": {\"namespace\": [\"void\"], \"name\": \"x\"}}",
                     &body),
             404);
    CHECK(rs_is_error(body, 404, "NoSuchNamespaceException"));
    json_decref(body);
    CHECK_EQ(rs_post(&f, "tables/rename", "{\"source\": {\"name\": \"x\"}}", NULL), 400);
    rs_close(&f);
}

TEST(rest_filesystem_catalog_tables)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, &(struct rs_config){.filesystem = true}));
    CHECK(rs_create_namespace(&f, "[\"db\"]"));
    CHECK(rs_create_table(&f, "db", "t"));
    json_t *body = NULL;
    CHECK_EQ(rs_get(&f, "namespaces/db/tables/t", &body), 200);
    const char *loc = json_string_value(json_object_get(body, "metadata-location"));
    CHECK(loc && strstr(loc, "/db/t/metadata/v1.metadata.json"));
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/t",
                     "{\"requirements\": [], \"updates\": [{\"action\": \"set-properties\", "
                     "\"updates\": {\"k\": \"v\"}}]}",
                     &body),
             200);
    loc = json_string_value(json_object_get(body, "metadata-location"));
    CHECK(loc && strstr(loc, "/db/t/metadata/v2.metadata.json"));
    json_decref(body);
    CHECK_EQ(rs_call(&f, "DELETE", "namespaces/db/tables/t", NULL, NULL, NULL, &body, NULL), 501);
    CHECK(rs_is_error(body, 501, "UnsupportedOperationException"));
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces/db/register",
                     "{\"name\": \"r\", \"metadata-location\": \"/x/v1.metadata.json\"}", NULL),
             501);
    CHECK_EQ(rs_post(&f, "tables/rename", "{}", NULL), 501);
    CHECK_EQ(rs_post(&f, "transactions/commit", "{\"table-changes\": []}", NULL), 501);
    rs_close(&f);
}
