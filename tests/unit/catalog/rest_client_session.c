/* REST catalog client over a scripted transport: paging, OAuth2 tokens and
 * their renewal, loads with vended credentials and table tokens, creates
 * (plain, staged, into a missing namespace), register, views and
 * transactions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rest_client_fake.h"
#include "test.h"

#define METADATA                                                                                \
    "{\"format-version\": 2, \"table-uuid\": \"9c12d441-03fe-4693-9a96-a0705ddf69c1\","       \
    "\"location\": \"s3://bucket/wh/db/t\", \"last-sequence-number\": 0,"                     \
    "\"last-updated-ms\": 1700000000000, \"last-column-id\": 1, \"schemas\": [{\"type\": "    \
    "\"struct\", \"schema-id\": 0, \"fields\": [{\"id\": 1, \"name\": \"id\", \"required\": " \
    "false, \"type\": \"long\"}]}], \"current-schema-id\": 0, \"partition-specs\": "         \
    "[{\"spec-id\": 0, \"fields\": []}], \"default-spec-id\": 0, \"last-partition-id\": 999," \
    "\"sort-orders\": [{\"order-id\": 0, \"fields\": []}], \"default-sort-order-id\": 0}"

/* Whether `v` is the JSON of `want`. */
static bool json_value_is(const json_t *v, const char *want)
{
    json_t *b = json_loads(want, 0, NULL);
    bool same = v && b && json_equal(v, b);
    json_decref(b);
    return same;
}

static bool json_same(const char *text, const char *want)
{
    json_t *a = json_loads(text, 0, NULL), *b = json_loads(want, 0, NULL);
    bool same = a && b && json_equal(a, b);
    json_decref(a);
    json_decref(b);
    return same;
}

TEST(rest_paging_follows_tokens)
{
    static const struct fake_reply replies[] = {
        {"GET", "/v1/config", 200, fake_config},
        {"GET", "/tables?pageToken=", 200,
         "{\"identifiers\": [{\"namespace\": [\"db\"], \"name\": \"b\"}, {\"namespace\": [\"db\"], "
         "\"name\": \"a\"}], \"next-page-token\": \"p 2/x\"}"},
        {"GET", "/tables?pageToken=p%202%2Fx", 200,
         "{\"identifiers\": [{\"namespace\": [\"db\"], \"name\": \"d\"}], \"next-page-token\": "
         "\"p3\"}"},
        {"GET", "/tables?pageToken=p3", 200,
         "{\"identifiers\": [{\"namespace\": [\"db\"], \"name\": \"c\"}], \"next-page-token\": null}"},
        /* A server that does not page: no token at all. */
        {"GET", "/namespaces/e/tables?pageToken=", 200,
         "{\"identifiers\": [{\"namespace\": [\"e\"], \"name\": \"x\"}]}"},
        /* One that never stops: the same token again. */
        {"GET", "/namespaces/f/tables?pageToken=", 200, "{\"identifiers\": [], \"next-page-token\": \"same\"}"},
        {"GET", "/namespaces/f/tables?pageToken=same", 200,
         "{\"identifiers\": [], \"next-page-token\": \"same\"}"},
        {"GET", "/namespaces/g/tables?pageToken=", 200,
         "{\"identifiers\": [{\"namespace\": \"g\", \"name\": \"x\"}]}"},
    };
    struct fake f;
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_EQ(fake_catalog("rest+http://h:1", &f, replies, FAKE_LEN(replies), &c, &err), BASALT_OK);
    char **list = NULL;
    size_t n = 0;
    CHECK_EQ(basalt_catalog_list_tables(c, "db", &list, &n, &err), BASALT_OK);
    CHECK_EQ(n, 4);
    CHECK_STR(list[0], "db.a");
    CHECK_STR(list[1], "db.b");
    CHECK_STR(list[2], "db.c");
    CHECK_STR(list[3], "db.d");
    basalt_string_list_free(list, n);
    CHECK_EQ(fake_count(&f, "GET", "/v1/p/namespaces/db/tables?pageToken="), 3);
    CHECK_EQ(basalt_catalog_list_tables(c, "e", &list, &n, &err), BASALT_OK);
    CHECK_EQ(n, 1);
    basalt_string_list_free(list, n);
    CHECK_EQ(basalt_catalog_list_tables(c, "f", &list, &n, &err), BASALT_CORRUPT);
    CHECK(strstr(err.message, "same next-page-token twice"));
    CHECK(list == NULL);
    CHECK_EQ(basalt_catalog_list_tables(c, "g", &list, &n, &err), BASALT_CORRUPT);
    CHECK_EQ(fake_count(&f, "GET", "/v1/config"), 1); /* one session for all */
    basalt_catalog_close(c);
}

TEST(rest_oauth_tokens_renewed)
{
    static const struct fake_reply replies[] = {
        {"POST", "http://h:1/v1/oauth/tokens", 200,
         "{\"access_token\": \"tok1\", \"token_type\": \"bearer\", \"expires_in\": 3600}"},
        {"GET", "/v1/config", 200,
         "{\"defaults\": {}, \"overrides\": {\"oauth2-server-uri\": \"http://idp:9/token\"}}"},
        /* The token is refused before it said it would expire. */
        {"GET", "/v1/namespaces?", 401,
         "{\"error\": {\"message\": \"expired\", \"type\": \"NotAuthorizedException\", \"code\": 401}}"},
        {"POST", "http://idp:9/token", 200,
         "{\"access_token\": \"tok2\", \"token_type\": \"Bearer\", \"expires_in\": 3600}"},
        {"GET", "/v1/namespaces?", 200, "{\"namespaces\": [[\"a\"]]}"},
        /* Expired by the clock: renewed before the request. */
        {"POST", "http://idp:9/token", 200, "{\"access_token\": \"tok3\", \"token_type\": \"bearer\"}"},
        {"GET", "/v1/namespaces?", 200, "{\"namespaces\": []}"},
    };
    struct fake f;
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_EQ(fake_catalog("rest+http://h:1", &f, replies, FAKE_LEN(replies), &c, &err), BASALT_OK);
    struct basalt_catalog_rest_options o;
    basalt_catalog_rest_options_init(&o);
    o.credential = "cid:c s&cret";
    o.token = "ignored-when-credentials-are-given";
    CHECK_EQ(basalt_catalog_set_rest_options(c, &o, &err), BASALT_OK);
    char **list = NULL;
    size_t n = 0;
    CHECK_EQ(basalt_catalog_list_namespaces(c, NULL, &list, &n, &err), BASALT_OK);
    CHECK_EQ(n, 1);
    basalt_string_list_free(list, n);
    CHECK_EQ(c->rest->token_fetches, 2);
    c->rest->token_expires_ms = 1; /* long past */
    CHECK_EQ(basalt_catalog_list_namespaces(c, NULL, &list, &n, &err), BASALT_OK);
    CHECK_EQ(n, 0);
    CHECK_EQ(c->rest->token_fetches, 3);
    CHECK_EQ(f.n_log, 7);
    CHECK_STR(f.log[0].content_type, "application/x-www-form-urlencoded");
    CHECK_STR(f.log[0].body,
              "grant_type=client_credentials&client_id=cid&client_secret=c%20s%26cret&scope=catalog");
    CHECK_STR(f.log[0].authorization, "");
    CHECK_STR(f.log[1].authorization, "Bearer tok1");
    CHECK_STR(f.log[2].authorization, "Bearer tok1");
    CHECK_STR(f.log[4].authorization, "Bearer tok2");
    CHECK_STR(f.log[6].authorization, "Bearer tok3");
    basalt_catalog_close(c);
}

TEST(rest_oauth_refused)
{
    static const struct fake_reply replies[] = {
        {"POST", "http://idp:9/oauth", 401,
         "{\"error\": \"invalid_client\", \"error_description\": \"unknown client\"}"},
    };
    struct fake f;
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_EQ(fake_catalog("rest+http://h:1", &f, replies, FAKE_LEN(replies), &c, &err), BASALT_OK);
    struct basalt_catalog_rest_options o;
    basalt_catalog_rest_options_init(&o);
    o.credential = "cid:topsecret";
    o.oauth2_server_uri = "http://idp:9/oauth";
    CHECK_EQ(basalt_catalog_set_rest_options(c, &o, &err), BASALT_OK);
    bool exists;
    CHECK_EQ(basalt_catalog_namespace_exists(c, "db", &exists, &err), BASALT_AUTH);
    CHECK(strstr(err.message, "the token endpoint refused the client credentials"));
    CHECK(strstr(err.message, "invalid_client: unknown client"));
    CHECK(!strstr(err.message, "topsecret"));
    CHECK_EQ(f.n_log, 1); /* the named endpoint, not the catalog's; no config without a token */
    CHECK_STR(f.log[0].url, "http://idp:9/oauth");
    basalt_catalog_close(c);
}

TEST(rest_load_vended_and_table_token)
{
    static const struct fake_reply replies[] = {
        {"GET", "/v1/config", 200, fake_config},
        {"GET", "/v1/p/namespaces/db/tables/t", 200,
         "{\"metadata-location\": \"s3://bucket/wh/db/t/metadata/00001-x.metadata.json\","
         "\"metadata\": " METADATA ", \"config\": {\"token\": \"table-tok\", \"client.region\": "
         "\"eu-west-1\", \"s3.access-key-id\": \"CFG\", \"s3.secret-access-key\": \"CFGS\"},"
         "\"storage-credentials\": [{\"prefix\": \"s3://bucket\", \"config\": "
         "{\"s3.access-key-id\": \"SHORT\", \"s3.secret-access-key\": \"S\"}},"
         "{\"prefix\": \"s3://bucket/wh/db\", \"config\": {\"s3.access-key-id\": \"LONG\", "
         "\"s3.secret-access-key\": \"L\", \"s3.session-token\": \"ST\", \"s3.endpoint\": "
         "\"http://127.0.0.1:9000\", \"s3.path-style-access\": \"true\"}},"
         "{\"prefix\": \"s3://other\", \"config\": {\"s3.access-key-id\": \"OTHER\"}}]}"},
        {"POST", "/v1/p/namespaces/db/tables/t", 200,
         "{\"metadata-location\": \"s3://bucket/wh/db/t/metadata/00002-y.metadata.json\","
         "\"metadata\": " METADATA "}"},
        {"GET", "/v1/p/namespaces/db/tables/t", 200,
         "{\"metadata-location\": \"s3://bucket/wh/db/t/metadata/00002-y.metadata.json\","
         "\"metadata\": " METADATA "}"},
    };
    struct fake f;
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_EQ(fake_catalog("rest+http://h:1", &f, replies, FAKE_LEN(replies), &c, &err), BASALT_OK);
    struct basalt_catalog_rest_options o;
    basalt_catalog_rest_options_init(&o);
    o.token = "session-tok";
    o.vended_credentials = true;
    CHECK_EQ(basalt_catalog_set_rest_options(c, &o, &err), BASALT_OK);
    struct basalt_iceberg_table *t = NULL;
    CHECK_EQ(basalt_catalog_load_table(c, "db.t", &t, &err), BASALT_OK);
    CHECK_STR(t->name, "db.t");
    CHECK_STR(t->metadata_location, "s3://bucket/wh/db/t/metadata/00001-x.metadata.json");
    CHECK_STR(t->metadata->location, "s3://bucket/wh/db/t");
    CHECK(t->io != NULL);
    CHECK_STR(f.log[1].delegation, "vended-credentials");
    CHECK_STR(f.log[1].authorization, "Bearer session-tok");
    /* The longest prefix of the table's location wins; the region comes
     * from the config. */
    json_t *result = json_loads(replies[1].body, 0, NULL);
    struct basalt_io_options io;
    CHECK(basalt_rest_client_vended_options(result, t->metadata->location, &io));
    CHECK_STR(io.access_key_id, "LONG");
    CHECK_STR(io.secret_access_key, "L");
    CHECK_STR(io.session_token, "ST");
    CHECK_STR(io.region, "eu-west-1");
    CHECK_STR(io.endpoint, "http://127.0.0.1:9000");
    CHECK_EQ(io.addressing, BASALT_IO_ADDRESSING_PATH);
    /* Without a matching prefix: the config's keys. */
    CHECK(basalt_rest_client_vended_options(result, "gs://elsewhere/t", &io));
    CHECK_STR(io.access_key_id, "CFG");
    json_decref(result);
    basalt_iceberg_table_free(t);
    /* The table's token is the bearer of its commit; the answer's table
     * keeps the credentials of the load. */
    CHECK_EQ(basalt_catalog_commit_table(c, "db.t", NULL, "[]", &t, &err), BASALT_OK);
    CHECK_STR(f.log[2].authorization, "Bearer table-tok");
    CHECK_STR(f.log[2].delegation, "");
    CHECK_STR(t->metadata_location, "s3://bucket/wh/db/t/metadata/00002-y.metadata.json");
    basalt_iceberg_table_free(t);
    char *loc = NULL;
    CHECK_EQ(basalt_catalog_table_location(c, "db.t", &loc, &err), BASALT_OK);
    CHECK_STR(loc, "s3://bucket/wh/db/t/metadata/00002-y.metadata.json");
    basalt_free(loc);
    basalt_catalog_close(c);
}

/* Create updates as the CLI makes them. */
static char *updates_for(const char *location)
{
    char *schema = NULL, *updates = NULL;
    struct basalt_iceberg_kv props[] = {{"owner", "me"}};
    if (basalt_iceberg_schema_from_text("id long not null, ts timestamp", &schema, NULL) ==
        BASALT_OK)
        basalt_iceberg_create_updates(schema, "day(ts)", "id desc", 2, location, props, 1,
                                      &updates, NULL);
    basalt_free(schema);
    return updates;
}

TEST(rest_create_plain_into_missing_namespace)
{
    static const struct fake_reply replies[] = {
        {"GET", "/v1/config", 200, fake_config},
        {"POST", "/v1/p/namespaces/db/tables", 404,
         "{\"error\": {\"message\": \"no db\", \"type\": \"NoSuchNamespaceException\", \"code\": 404}}"},
        {"GET", "/v1/p/namespaces/db", 404, ""},
        {"POST", "/v1/p/namespaces", 200, "{\"namespace\": [\"db\"]}"},
        {"POST", "/v1/p/namespaces/db/tables", 200,
         "{\"metadata-location\": \"s3://bucket/wh/db/t/metadata/00000-z.metadata.json\","
         "\"metadata\": " METADATA ", \"config\": {}}"},
    };
    struct fake f;
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_EQ(fake_catalog("rest+http://h:1", &f, replies, FAKE_LEN(replies), &c, &err), BASALT_OK);
    char *updates = updates_for("s3://bucket/wh/db/t");
    CHECK(updates);
    struct basalt_iceberg_table *t = NULL;
    basalt_status st = basalt_catalog_create_table(c, "db.t", updates, &t, &err);
    basalt_free(updates);
    CHECK_MSG(st == BASALT_OK, "%s", err.message);
    CHECK_STR(t->metadata_location, "s3://bucket/wh/db/t/metadata/00000-z.metadata.json");
    basalt_iceberg_table_free(t);
    CHECK_EQ(f.n_log, 5);
    CHECK_STR(f.log[3].body, "{\"namespace\":[\"db\"],\"properties\":{}}");
    CHECK_STR(f.log[1].body, f.log[4].body);
    json_t *body = json_loads(f.log[4].body, 0, NULL);
    CHECK(body);
    bool ok = json_object_size(body) == 6 &&
              strcmp(json_string_value(json_object_get(body, "name")), "t") == 0 &&
              strcmp(json_string_value(json_object_get(body, "location")), "s3://bucket/wh/db/t") ==
                  0 &&
              json_value_is(json_object_get(body, "properties"),
                            "{\"format-version\": \"2\", \"owner\": \"me\"}") &&
              json_array_size(json_object_get(json_object_get(body, "schema"), "fields")) == 2 &&
              strcmp(json_string_value(json_object_get(
                         json_array_get(json_object_get(json_object_get(body, "partition-spec"),
                                                        "fields"),
                                        0),
                         "transform")),
                     "day") == 0 &&
              json_array_size(json_object_get(json_object_get(body, "write-order"), "fields")) == 1 &&
              !json_object_get(body, "stage-create");
    json_decref(body);
    CHECK(ok);
    basalt_catalog_close(c);
}

TEST(rest_create_staged_and_default_location)
{
    static const struct fake_reply replies[] = {
        {"GET", "/v1/config", 200, fake_config},
        /* default_location: a staged create that creates nothing. */
        {"POST", "/v1/p/namespaces/db/tables", 200, "{\"metadata\": " METADATA ", \"config\": {}}"},
        /* create with stage_create: staged, then the commit. */
        {"POST", "/v1/p/namespaces/db/tables", 200, "{\"metadata\": " METADATA ", \"config\": {}}"},
        {"POST", "/v1/p/namespaces/db/tables/t", 200,
         "{\"metadata-location\": \"s3://bucket/wh/db/t/metadata/00000-a.metadata.json\","
         "\"metadata\": " METADATA "}"},
        /* default_location in a namespace that does not exist. */
        {"POST", "/v1/p/namespaces/nope/tables", 404,
         "{\"error\": {\"message\": \"no\", \"type\": \"NoSuchNamespaceException\", \"code\": 404}}"},
    };
    struct fake f;
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_EQ(fake_catalog("rest+http://h:1", &f, replies, FAKE_LEN(replies), &c, &err), BASALT_OK);
    struct basalt_catalog_rest_options o;
    basalt_catalog_rest_options_init(&o);
    o.stage_create = true;
    CHECK_EQ(basalt_catalog_set_rest_options(c, &o, &err), BASALT_OK);
    char *loc = NULL;
    CHECK_EQ(basalt_catalog_default_location(c, "db.t", &loc, &err), BASALT_OK);
    CHECK_STR(loc, "s3://bucket/wh/db/t");
    CHECK(json_same(f.log[1].body, "{\"name\": \"t\", \"schema\": {\"type\": \"struct\", "
                                   "\"schema-id\": 0, \"fields\": []}, \"stage-create\": true}"));
    char *updates = updates_for(loc);
    basalt_free(loc);
    CHECK_EQ(basalt_catalog_create_table(c, "db.t", updates, NULL, &err), BASALT_OK);
    json_t *staged = json_loads(f.log[2].body, 0, NULL);
    json_t *commit = json_loads(f.log[3].body, 0, NULL);
    json_t *want_updates = json_loads(updates, 0, NULL);
    basalt_free(updates);
    bool ok = staged && commit && json_is_true(json_object_get(staged, "stage-create")) &&
              json_equal(json_object_get(commit, "updates"), want_updates) &&
              json_value_is(json_object_get(commit, "requirements"),
                            "[{\"type\": \"assert-create\"}]");
    json_decref(staged);
    json_decref(commit);
    json_decref(want_updates);
    CHECK(ok);
    CHECK_EQ(basalt_catalog_default_location(c, "nope.t", &loc, &err), BASALT_NOT_FOUND);
    CHECK(strstr(err.message, "namespace 'nope' does not exist"));
    CHECK(loc == NULL);
    basalt_catalog_close(c);
}

TEST(rest_register_drop_views_transactions)
{
    char path[512];
    snprintf(path, sizeof path, "%s/iceberg/metadata-json/iceberg-rust/view_metadata/ViewMetadataV1Valid.json",
             BASALT_TEST_DATA_DIR);
    FILE *fp = fopen(path, "rb");
    CHECK(fp);
    char view[16384];
    size_t vn = fread(view, 1, sizeof view - 1, fp);
    fclose(fp);
    view[vn] = '\0';
    char *load_view = malloc(vn + 128);
    CHECK(load_view);
    snprintf(load_view, vn + 128, "{\"metadata-location\": \"s3://b/v/1.json\", \"metadata\": %s}", view);
    struct fake_reply replies[] = {
        {"GET", "/v1/config", 200, "{\"defaults\": {}, \"overrides\": {}}"},
        {"POST", "/v1/namespaces/db/register", 200, "{\"metadata\": " METADATA "}"},
        {"DELETE", "/v1/namespaces/db/tables/t?purgeRequested=false", 204, ""},
        {"POST", "/v1/transactions/commit", 409,
         "{\"error\": {\"message\": \"no\", \"type\": \"CommitFailedException\", \"code\": 409}}"},
        {"POST", "/v1/transactions/commit", 204, ""},
    };
    struct fake f;
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_EQ(fake_catalog("rest+http://h:1", &f, replies, FAKE_LEN(replies), &c, &err), BASALT_OK);
    CHECK_EQ(basalt_catalog_register_table(c, "db.t", "s3://b/m.json", &err), BASALT_OK);
    CHECK(json_same(f.log[1].body, "{\"name\": \"t\", \"metadata-location\": \"s3://b/m.json\"}"));
    CHECK_EQ(basalt_catalog_drop_table(c, "db.t", &err), BASALT_OK);
    const char *ids[] = {"db.a", "x.y.b"};
    const char *reqs[] = {"[{\"type\":\"assert-create\"}]", NULL};
    const char *upds[] = {"[]", "[{\"action\":\"remove-properties\",\"removals\":[\"k\"]}]"};
    CHECK_EQ(basalt_catalog_commit_transaction(c, 2, ids, reqs, upds, &err), BASALT_CONFLICT);
    CHECK_EQ(basalt_catalog_commit_transaction(c, 2, ids, reqs, upds, &err), BASALT_OK);
    CHECK(json_same(f.log[4].body,
                    "{\"table-changes\": [{\"identifier\": {\"namespace\": [\"db\"], \"name\": "
                    "\"a\"}, \"requirements\": [{\"type\": \"assert-create\"}], \"updates\": []},"
                    "{\"identifier\": {\"namespace\": [\"x\", \"y\"], \"name\": \"b\"}, "
                    "\"requirements\": [], \"updates\": [{\"action\": \"remove-properties\", "
                    "\"removals\": [\"k\"]}]}]}"));
    /* Views are not in the default endpoints. */
    struct basalt_iceberg_view_metadata *v = NULL;
    CHECK_EQ(basalt_catalog_load_view(c, "db.v", &v, NULL, &err), BASALT_UNSUPPORTED);
    basalt_catalog_close(c);

    struct fake_reply view_replies[] = {
        {"GET", "/v1/config", 200, fake_config},
        {"GET", "/v1/p/namespaces/db/views?pageToken=", 200,
         "{\"identifiers\": [{\"namespace\": [\"db\"], \"name\": \"v2\"}, {\"namespace\": "
         "[\"db\"], \"name\": \"v1\"}]}"},
        {"GET", "/v1/p/namespaces/db/views/v1", 200, load_view},
    };
    CHECK_EQ(fake_catalog("rest+http://h:1", &f, view_replies, FAKE_LEN(view_replies), &c, &err),
             BASALT_OK);
    char **list = NULL;
    size_t n = 0;
    CHECK_EQ(basalt_catalog_list_views(c, "db", &list, &n, &err), BASALT_OK);
    CHECK_EQ(n, 2);
    CHECK_STR(list[0], "db.v1");
    basalt_string_list_free(list, n);
    char *loc = NULL;
    basalt_status st = basalt_catalog_load_view(c, "db.v1", &v, &loc, &err);
    free(load_view);
    CHECK_MSG(st == BASALT_OK, "%s", err.message);
    CHECK_STR(loc, "s3://b/v/1.json");
    CHECK(basalt_iceberg_view_metadata_current_version(v) != NULL);
    basalt_iceberg_view_metadata_free(v);
    basalt_free(loc);
    basalt_catalog_close(c);
}
