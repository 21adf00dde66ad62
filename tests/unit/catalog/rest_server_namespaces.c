/* The REST server without sockets: configuration, authentication, size
 * limits, routing, and the namespace routes, with their status codes and
 * bodies. Every response also passes the fixture's checks (JSON, and the
 * error model for every status >= 400). */
#include <stdlib.h>
#include <string.h>

#include "rest_server_fixture.h"
#include "test.h"

static bool has_string(const json_t *arr, const char *s)
{
    size_t i;
    const json_t *e;
    json_array_foreach(arr, i, e)
    {
        if (json_is_string(e) && strcmp(json_string_value(e), s) == 0)
            return true;
    }
    return false;
}

TEST(rest_config_lists_exactly_the_endpoints_served)
{
    static const char *const sql_only[] = {
        "DELETE /v1/{prefix}/namespaces/{namespace}",
        "POST /v1/{prefix}/namespaces/{namespace}/properties",
        "POST /v1/{prefix}/namespaces/{namespace}/register",
        "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "POST /v1/{prefix}/tables/rename",
        "POST /v1/{prefix}/transactions/commit",
        "GET /v1/{prefix}/namespaces/{namespace}/views",
        "POST /v1/{prefix}/namespaces/{namespace}/views",
        "GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
        "POST /v1/{prefix}/namespaces/{namespace}/views/{view}",
        "DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}",
        "HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}",
        "POST /v1/{prefix}/views/rename",
        "POST /v1/{prefix}/namespaces/{namespace}/register-view",
    };
    static const char *const always[] = {
        "GET /v1/{prefix}/namespaces",
        "POST /v1/{prefix}/namespaces",
        "GET /v1/{prefix}/namespaces/{namespace}",
        "HEAD /v1/{prefix}/namespaces/{namespace}",
        "GET /v1/{prefix}/namespaces/{namespace}/tables",
        "POST /v1/{prefix}/namespaces/{namespace}/tables",
        "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
        "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
    };
    for (int fs = 0; fs < 2; fs++) {
        struct rs_fixture f;
        CHECK(rs_open(&f, &(struct rs_config){.filesystem = fs}));
        json_t *config = NULL;
        CHECK_EQ(rs_get(&f, "config", &config), 200);
        const json_t *endpoints = json_object_get(config, "endpoints");
        CHECK(json_is_object(json_object_get(config, "defaults")));
        CHECK_STR(json_string_value(json_object_get(json_object_get(config, "overrides"),
                                                    "namespace-separator")),
                  "%1F");
        CHECK(!json_object_get(json_object_get(config, "overrides"), "prefix"));
        for (size_t i = 0; i < sizeof always / sizeof *always; i++)
            CHECK_MSG(has_string(endpoints, always[i]), "missing %s", always[i]);
        for (size_t i = 0; i < sizeof sql_only / sizeof *sql_only; i++)
            CHECK_MSG(has_string(endpoints, sql_only[i]) == !fs, "%s in a %s catalog",
                      sql_only[i], fs ? "file-system" : "SQL");
        /* Nothing else: no planning, no credentials. */
        CHECK_EQ(json_array_size(endpoints),
                 sizeof always / sizeof *always + (fs ? 0 : sizeof sql_only / sizeof *sql_only));
        json_decref(config);
        /* What is not listed is refused as unsupported (501, which every
         * operation declares as 5XX), not as unknown. */
        json_t *body = NULL;
        CHECK_EQ(rs_call(&f, "POST", "tables/rename", NULL, "{}", NULL, &body, NULL),
                 fs ? 501 : 400);
        json_decref(body);
        CHECK_EQ(rs_get(&f, "namespaces/db/views", &body), fs ? 501 : 404);
        CHECK(rs_is_error(body, fs ? 501 : 404,
                          fs ? "UnsupportedOperationException" : "NoSuchNamespaceException"));
        json_decref(body);
        CHECK_EQ(rs_call(&f, "POST", "namespaces/db/tables/t/plan", NULL, "{}", NULL, &body, NULL),
                 501);
        CHECK(rs_is_error(body, 501, "UnsupportedOperationException"));
        json_decref(body);
        rs_close(&f);
    }
}

TEST(rest_bearer_token_is_required_everywhere)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, &(struct rs_config){.token = "s3cret"}));
    struct basalt_catalog_rest_response r;
    json_t *body = NULL;
    static const char *const wrong[] = {"Authorization: Bearer s3cre", NULL};
    static const char *const wrong_scheme[] = {"Authorization: Basic s3cret", NULL};
    static const char *const right[] = {"authorization: bearer s3cret", NULL};
    /* The spec puts every route under its security schemes, config too. */
    CHECK_EQ(rs_call(&f, "GET", "config", NULL, NULL, NULL, &body, &r), 401);
    CHECK(rs_is_error(body, 401, "NotAuthorizedException"));
    CHECK_STR(rs_header(&r, "WWW-Authenticate"), "Bearer");
    basalt_catalog_rest_response_reset(&r);
    json_decref(body);
    CHECK_EQ(rs_call(&f, "GET", "namespaces", NULL, NULL, wrong, NULL, NULL), 401);
    CHECK_EQ(rs_call(&f, "GET", "namespaces", NULL, NULL, wrong_scheme, NULL, NULL), 401);
    CHECK_EQ(rs_call(&f, "POST", "namespaces", NULL, "{\"namespace\": [\"a\"]}", NULL, NULL,
                     NULL),
             401);
    CHECK_EQ(rs_call(&f, "GET", "config", NULL, NULL, right, NULL, NULL), 200);
    CHECK_EQ(rs_call(&f, "POST", "namespaces", NULL, "{\"namespace\": [\"a\"]}", right, NULL,
                     NULL),
             200);
    CHECK_EQ(rs_call(&f, "GET", "namespaces", NULL, NULL, right, &body, NULL), 200);
    CHECK_EQ(json_array_size(json_object_get(body, "namespaces")), 1);
    json_decref(body);
    rs_close(&f);
}

TEST(rest_request_bodies_are_bounded)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, &(struct rs_config){.max_body = 64}));
    char big[200];
    snprintf(big, sizeof big, "{\"namespace\": [\"%0120d\"]}", 7);
    json_t *body = NULL;
    CHECK_EQ(rs_post(&f, "namespaces", big, &body), 413);
    CHECK(json_is_string(json_object_get(json_object_get(body, "error"), "message")));
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces", "{\"namespace\": [\"small\"]}", NULL), 200);
    rs_close(&f);
}

TEST(rest_routing_prefix_methods_and_malformed_requests)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, &(struct rs_config){.prefix = "wh 1"}));
    json_t *body = NULL;
    CHECK_EQ(rs_get(&f, "config", &body), 200);
    CHECK_STR(json_string_value(json_object_get(json_object_get(body, "overrides"), "prefix")),
              "wh 1");
    json_decref(body);
    /* The prefix segment arrives percent-encoded. */
    CHECK_EQ(rs_post(&f, "wh%201/namespaces", "{\"namespace\": [\"db\"]}", NULL), 200);
    CHECK_EQ(rs_get(&f, "wh%201/namespaces/db", NULL), 200);
    CHECK_EQ(rs_get(&f, "namespaces", &body), 404);
    CHECK(rs_is_error(body, 404, "NotFoundException"));
    json_decref(body);
    CHECK_EQ(rs_get(&f, "other/namespaces", NULL), 404);
    CHECK_EQ(rs_get(&f, "wh%201/nothing", NULL), 404);
    struct basalt_catalog_rest_response r;
    CHECK_EQ(rs_call(&f, "PUT", "wh%201/namespaces", NULL, NULL, NULL, NULL, &r), 405);
    CHECK_STR(rs_header(&r, "Allow"), "GET, POST");
    basalt_catalog_rest_response_reset(&r);
    CHECK_EQ(rs_call(&f, "POST", "config", NULL, "{}", NULL, NULL, NULL), 405);
    /* Bodies: not JSON, not an object, missing, wrong members. */
    CHECK_EQ(rs_post(&f, "wh%201/namespaces", "{\"namespace\": ", &body), 400);
    CHECK(rs_is_error(body, 400, "BadRequestException"));
    json_decref(body);
    CHECK_EQ(rs_post(&f, "wh%201/namespaces", "[1]", NULL), 400);
    CHECK_EQ(rs_post(&f, "wh%201/namespaces", NULL, NULL), 400);
    CHECK_EQ(rs_post(&f, "wh%201/namespaces", "{\"namespace\": \"db\"}", NULL), 400);
    CHECK_EQ(rs_post(&f, "wh%201/namespaces", "{\"namespace\": []}", NULL), 400);
    CHECK_EQ(rs_post(&f, "wh%201/namespaces", "{\"namespace\": [\"a\", \"\"]}", NULL), 400);
    /* The catalogs join levels with '.', so a level cannot hold one. */
    CHECK_EQ(rs_post(&f, "wh%201/namespaces", "{\"namespace\": [\"a.b\"]}", &body), 400);
    json_decref(body);
    CHECK_EQ(rs_post(&f, "wh%201/namespaces", "{\"namespace\": [\"a\"], \"properties\": 3}", NULL),
             400);
    CHECK_EQ(rs_get(&f, "wh%201/namespaces/a%zz", NULL), 400);
    CHECK_EQ(rs_get(&f, "wh%201/namespaces/a%00b", NULL), 400);
    rs_close(&f);
}

TEST(rest_namespaces_create_load_exist_list)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, NULL));
    json_t *body = NULL;
    CHECK_EQ(rs_post(&f, "namespaces",
                     "{\"namespace\": [\"acct\"], \"properties\": {\"owner\": \"hank\"}}", &body),
             200);
    CHECK_STR(json_string_value(json_array_get(json_object_get(body, "namespace"), 0)), "acct");
    CHECK_STR(json_string_value(json_object_get(json_object_get(body, "properties"), "owner")),
              "hank");
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces", "{\"namespace\": [\"acct\"]}", &body), 409);
    CHECK(rs_is_error(body, 409, "AlreadyExistsException"));
    json_decref(body);
    /* With properties too: existence is checked first. */
    CHECK_EQ(rs_post(&f, "namespaces",
                     "{\"namespace\": [\"acct\"], \"properties\": {\"a\": \"b\"}}", NULL),
             409);
    CHECK(rs_create_namespace(&f, "[\"acct\", \"tax\"]"));
    CHECK(rs_create_namespace(&f, "[\"acct\", \"tax\", \"paid\"]"));
    CHECK(rs_create_namespace(&f, "[\"zoo\"]"));
    /* Load: the properties, without the marker row of a bare namespace. */
    CHECK_EQ(rs_get(&f, "namespaces/acct", &body), 200);
    CHECK_EQ(json_object_size(json_object_get(body, "properties")), 1);
    json_decref(body);
    CHECK_EQ(rs_get(&f, "namespaces/acct%1Ftax", &body), 200);
    CHECK_EQ(json_array_size(json_object_get(body, "namespace")), 2);
    CHECK_EQ(json_object_size(json_object_get(body, "properties")), 0);
    json_decref(body);
    CHECK_EQ(rs_get(&f, "namespaces/nope", &body), 404);
    CHECK(rs_is_error(body, 404, "NoSuchNamespaceException"));
    json_decref(body);
    CHECK_EQ(rs_call(&f, "HEAD", "namespaces/acct%1ftax%1Fpaid", NULL, NULL, NULL, NULL, NULL),
             204);
    CHECK_EQ(rs_call(&f, "HEAD", "namespaces/acct%1Fnope", NULL, NULL, NULL, NULL, NULL), 404);
    /* Lists: the top level, under a parent, pages. */
    CHECK_EQ(rs_get(&f, "namespaces", &body), 200);
    const json_t *list = json_object_get(body, "namespaces");
    CHECK_EQ(json_array_size(list), 2);
    CHECK_STR(json_string_value(json_array_get(json_array_get(list, 1), 0)), "zoo");
    CHECK(!json_object_get(body, "next-page-token"));
    json_decref(body);
    CHECK_EQ(rs_call(&f, "GET", "namespaces", "parent=acct%1Ftax", NULL, NULL, &body, NULL), 200);
    list = json_object_get(body, "namespaces");
    CHECK_EQ(json_array_size(list), 1);
    CHECK_EQ(json_array_size(json_array_get(list, 0)), 3);
    CHECK_STR(json_string_value(json_array_get(json_array_get(list, 0), 2)), "paid");
    json_decref(body);
    CHECK_EQ(rs_call(&f, "GET", "namespaces", "parent=", NULL, NULL, &body, NULL), 200);
    CHECK_EQ(json_array_size(json_object_get(body, "namespaces")), 2);
    json_decref(body);
    CHECK_EQ(rs_call(&f, "GET", "namespaces", "parent=nope", NULL, NULL, &body, NULL), 404);
    CHECK(rs_is_error(body, 404, "NoSuchNamespaceException"));
    json_decref(body);
    CHECK_EQ(rs_call(&f, "GET", "namespaces", "pageToken=&pageSize=1", NULL, NULL, &body, NULL),
             200);
    CHECK_EQ(json_array_size(json_object_get(body, "namespaces")), 1);
    CHECK_STR(json_string_value(json_object_get(body, "next-page-token")), "acct");
    json_decref(body);
    CHECK_EQ(rs_call(&f, "GET", "namespaces", "pageSize=1&pageToken=acct", NULL, NULL, &body,
                     NULL),
             200);
    CHECK_STR(json_string_value(json_array_get(json_array_get(json_object_get(body, "namespaces"),
                                                              0),
                                               0)),
              "zoo");
    /* The last page says so with null. */
    CHECK(json_is_null(json_object_get(body, "next-page-token")));
    json_decref(body);
    CHECK_EQ(rs_call(&f, "GET", "namespaces", "pageToken=&pageSize=0", NULL, NULL, NULL, NULL),
             400);
    rs_close(&f);
}

TEST(rest_namespaces_properties_and_drop)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, NULL));
    CHECK(rs_create_namespace(&f, "[\"db\"]"));
    json_t *body = NULL;
    CHECK_EQ(rs_post(&f, "namespaces/db/properties",
                     "{\"updates\": {\"owner\": \"ann\", \"team\": \"x\"}, \"removals\": "
                     "[\"gone\"]}",
                     &body),
             200);
    CHECK_EQ(json_array_size(json_object_get(body, "updated")), 2);
    CHECK_EQ(json_array_size(json_object_get(body, "removed")), 0);
    CHECK_STR(json_string_value(json_array_get(json_object_get(body, "missing"), 0)), "gone");
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces/db/properties",
                     "{\"updates\": {\"owner\": \"bob\"}, \"removals\": [\"team\"]}", &body),
             200);
    CHECK_STR(json_string_value(json_array_get(json_object_get(body, "removed"), 0)), "team");
    json_decref(body);
    CHECK_EQ(rs_get(&f, "namespaces/db", &body), 200);
    const json_t *props = json_object_get(body, "properties");
    CHECK_EQ(json_object_size(props), 1);
    CHECK_STR(json_string_value(json_object_get(props, "owner")), "bob");
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces/db/properties",
                     "{\"updates\": {\"k\": \"v\"}, \"removals\": [\"k\"]}", &body),
             422);
    CHECK(rs_is_error(body, 422, "UnprocessableEntityException"));
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces/db/properties", "{\"updates\": {\"k\": 1}}", NULL), 400);
    CHECK_EQ(rs_post(&f, "namespaces/none/properties", "{\"updates\": {}}", &body), 404);
    CHECK(rs_is_error(body, 404, "NoSuchNamespaceException"));
    json_decref(body);
    /* With every property removed the namespace stays. */
    CHECK_EQ(rs_post(&f, "namespaces/db/properties", "{\"removals\": [\"owner\"]}", NULL), 200);
    CHECK_EQ(rs_call(&f, "HEAD", "namespaces/db", NULL, NULL, NULL, NULL, NULL), 204);
    /* Drop: only when empty of tables and namespaces. */
    CHECK(rs_create_table(&f, "db", "t"));
    CHECK_EQ(rs_call(&f, "DELETE", "namespaces/db", NULL, NULL, NULL, &body, NULL), 409);
    CHECK(rs_is_error(body, 409, "NamespaceNotEmptyException"));
    json_decref(body);
    CHECK_EQ(rs_call(&f, "DELETE", "namespaces/db/tables/t", NULL, NULL, NULL, NULL, NULL), 204);
    CHECK(rs_create_namespace(&f, "[\"db\", \"inner\"]"));
    CHECK_EQ(rs_call(&f, "DELETE", "namespaces/db", NULL, NULL, NULL, NULL, NULL), 409);
    CHECK_EQ(rs_call(&f, "DELETE", "namespaces/db%1Finner", NULL, NULL, NULL, NULL, NULL), 204);
    CHECK_EQ(rs_call(&f, "DELETE", "namespaces/db", NULL, NULL, NULL, NULL, NULL), 204);
    CHECK_EQ(rs_call(&f, "HEAD", "namespaces/db", NULL, NULL, NULL, NULL, NULL), 404);
    CHECK_EQ(rs_call(&f, "DELETE", "namespaces/db", NULL, NULL, NULL, &body, NULL), 404);
    CHECK(rs_is_error(body, 404, "NoSuchNamespaceException"));
    json_decref(body);
    rs_close(&f);
}

TEST(rest_filesystem_catalog_namespaces)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, &(struct rs_config){.filesystem = true}));
    CHECK(rs_create_namespace(&f, "[\"db\"]"));
    json_t *body = NULL;
    /* No properties kept: load says null, creating with some is refused. */
    CHECK_EQ(rs_get(&f, "namespaces/db", &body), 200);
    CHECK(json_is_null(json_object_get(body, "properties")));
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces", "{\"namespace\": [\"p\"], \"properties\": {\"a\": \"b\"}}",
                     &body),
             406);
    CHECK(rs_is_error(body, 406, "UnsupportedOperationException"));
    json_decref(body);
    CHECK_EQ(rs_call(&f, "DELETE", "namespaces/db", NULL, NULL, NULL, NULL, NULL), 501);
    CHECK_EQ(rs_post(&f, "namespaces/db/properties", "{\"updates\": {}}", NULL), 501);
    rs_close(&f);
}
