/* REST catalog client under failing allocations: the N-th allocation fails,
 * N rising until the whole flow succeeds; every attempt ends in success or
 * a clean NOMEM, with nothing leaked (the harness checks). */
#include <string.h>

#include "rest_client_fake.h"
#include "test.h"

#define META                                                                                    \
    "{\"format-version\": 2, \"table-uuid\": \"9c12d441-03fe-4693-9a96-a0705ddf69c1\","       \
    "\"location\": \"s3://bucket/wh/db/t\", \"last-sequence-number\": 0,"                     \
    "\"last-updated-ms\": 1700000000000, \"last-column-id\": 1, \"schemas\": [{\"type\": "    \
    "\"struct\", \"schema-id\": 0, \"fields\": [{\"id\": 1, \"name\": \"id\", \"required\": " \
    "false, \"type\": \"long\"}]}], \"current-schema-id\": 0, \"partition-specs\": "         \
    "[{\"spec-id\": 0, \"fields\": []}], \"default-spec-id\": 0, \"last-partition-id\": 999," \
    "\"sort-orders\": [{\"order-id\": 0, \"fields\": []}], \"default-sort-order-id\": 0}"

static const struct fake_reply replies[] = {
    {"POST", "/v1/oauth/tokens", 200, "{\"access_token\": \"t\", \"token_type\": \"bearer\"}"},
    {"GET", "/v1/config", 200, fake_config},
    {"GET", "/namespaces?pageToken=", 200, "{\"namespaces\": [[\"db\"], [\"a\", \"b\"]]}"},
    {"GET", "/tables?pageToken=", 200,
     "{\"identifiers\": [{\"namespace\": [\"db\"], \"name\": \"t\"}], \"next-page-token\": \"2\"}"},
    {"GET", "/tables?pageToken=2", 200, "{\"identifiers\": [{\"namespace\": [\"db\"], \"name\": \"u\"}]}"},
    {"GET", "/v1/p/namespaces/db/tables/t", 200,
     "{\"metadata-location\": \"s3://bucket/wh/db/t/metadata/1.json\", \"metadata\": " META
     ", \"storage-credentials\": [{\"prefix\": \"s3://bucket\", \"config\": "
     "{\"s3.access-key-id\": \"K\", \"s3.secret-access-key\": \"S\"}}]}"},
    {"POST", "/v1/p/namespaces/db/tables/t", 200,
     "{\"metadata-location\": \"s3://bucket/wh/db/t/metadata/2.json\", \"metadata\": " META "}"},
    {"POST", "/v1/p/namespaces/db/tables", 200, "{\"metadata\": " META "}"},
    {"POST", "/v1/p/namespaces/db/tables", 200,
     "{\"metadata-location\": \"s3://bucket/wh/db/t/metadata/0.json\", \"metadata\": " META "}"},
};

static const char create_updates[] =
    "[{\"action\":\"assign-uuid\",\"uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\"},"
    "{\"action\":\"upgrade-format-version\",\"format-version\":2},"
    "{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":"
    "[{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"}]}},"
    "{\"action\":\"set-current-schema\",\"schema-id\":-1},"
    "{\"action\":\"set-location\",\"location\":\"s3://bucket/wh/db/t\"},"
    "{\"action\":\"set-properties\",\"updates\":{\"a\":\"b\"}}]";

static basalt_status flow(struct basalt_error *err)
{
    struct fake f;
    struct basalt_catalog *c = NULL;
    basalt_status st = fake_catalog("rest+http://h:1/base?warehouse=w", &f, replies,
                                    FAKE_LEN(replies), &c, err);
    struct basalt_catalog_rest_options o;
    basalt_catalog_rest_options_init(&o);
    o.credential = "id:secret";
    o.vended_credentials = true;
    if (st == BASALT_OK)
        st = basalt_catalog_set_rest_options(c, &o, err);
    char **list = NULL;
    size_t n = 0;
    if (st == BASALT_OK)
        st = basalt_catalog_list_namespaces(c, NULL, &list, &n, err);
    basalt_string_list_free(list, n);
    list = NULL;
    n = 0;
    if (st == BASALT_OK)
        st = basalt_catalog_list_tables(c, "db", &list, &n, err);
    basalt_string_list_free(list, n);
    struct basalt_iceberg_table *t = NULL;
    char *loc = NULL;
    if (st == BASALT_OK)
        st = basalt_catalog_default_location(c, "db.t", &loc, err);
    basalt_free(loc);
    if (st == BASALT_OK)
        st = basalt_catalog_create_table(c, "db.t", create_updates, &t, err);
    basalt_iceberg_table_free(t);
    t = NULL;
    if (st == BASALT_OK)
        st = basalt_catalog_load_table(c, "db.t", &t, err);
    basalt_iceberg_table_free(t);
    t = NULL;
    if (st == BASALT_OK)
        st = basalt_catalog_commit_table(c, "db.t", "[]", "[]", &t, err);
    basalt_iceberg_table_free(t);
    basalt_catalog_close(c);
    return st;
}

TEST(rest_client_failing_allocations)
{
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = BASALT_NOMEM;
    int n;
    for (n = 1; n < 5000 && st != BASALT_OK; n++) {
        basalt_alloc_fail_after(n);
        st = flow(&err);
        basalt_alloc_fail_after(0);
        CHECK_MSG(st == BASALT_OK || st == BASALT_NOMEM, "allocation %d: %s: %s", n,
                  basalt_status_name(st), err.message);
    }
    CHECK_MSG(st == BASALT_OK, "no success after %d allocations", n);
    CHECK(n > 20); /* the flow allocates: the loop did fail some */
}
