/* REST catalog client: HTTP error answers mapped to statuses, with the
 * server's words; commits whose outcome is unknown. */
#include <string.h>

#include "rest_client_fake.h"
#include "test.h"

static const char iceberg_error[] =
    "{\"error\": {\"message\": \"Requirement failed: branch main has changed\", "
    "\"type\": \"CommitFailedException\", \"code\": 409}}";

TEST(rest_error_statuses)
{
    static const struct {
        long http;
        enum basalt_rest_client_op op;
        basalt_status want;
    } cases[] = {
        {400, BASALT_REST_CLIENT_OP_READ, BASALT_INVALID_ARG},  {422, BASALT_REST_CLIENT_OP_WRITE, BASALT_INVALID_ARG},
        {401, BASALT_REST_CLIENT_OP_READ, BASALT_AUTH},         {403, BASALT_REST_CLIENT_OP_COMMIT, BASALT_AUTH},
        {419, BASALT_REST_CLIENT_OP_READ, BASALT_AUTH},         {404, BASALT_REST_CLIENT_OP_READ, BASALT_NOT_FOUND},
        {404, BASALT_REST_CLIENT_OP_COMMIT, BASALT_NOT_FOUND},  {406, BASALT_REST_CLIENT_OP_READ, BASALT_UNSUPPORTED},
        {501, BASALT_REST_CLIENT_OP_WRITE, BASALT_UNSUPPORTED}, {409, BASALT_REST_CLIENT_OP_WRITE, BASALT_CONFLICT},
        {409, BASALT_REST_CLIENT_OP_COMMIT, BASALT_CONFLICT},   {500, BASALT_REST_CLIENT_OP_READ, BASALT_IO},
        {503, BASALT_REST_CLIENT_OP_READ, BASALT_IO},           {500, BASALT_REST_CLIENT_OP_COMMIT, BASALT_UNKNOWN_OUTCOME},
        {502, BASALT_REST_CLIENT_OP_COMMIT, BASALT_UNKNOWN_OUTCOME},
        {503, BASALT_REST_CLIENT_OP_COMMIT, BASALT_UNKNOWN_OUTCOME},
        {504, BASALT_REST_CLIENT_OP_COMMIT, BASALT_UNKNOWN_OUTCOME},         {418, BASALT_REST_CLIENT_OP_READ, BASALT_IO},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct basalt_error err;
        basalt_error_init(&err);
        basalt_status st = basalt_rest_client_error(cases[i].http, iceberg_error,
                                                     strlen(iceberg_error), cases[i].op,
                                                     "POST http://h/v1/x", &err);
        CHECK_MSG(st == cases[i].want, "HTTP %ld op %d: %s", cases[i].http, (int)cases[i].op,
                  basalt_status_name(st));
        CHECK_EQ(err.status, cases[i].want);
        CHECK(strstr(err.message, "POST http://h/v1/x: "));
        CHECK(strstr(err.message, "CommitFailedException: Requirement failed: branch main"));
        bool unknown = cases[i].op == BASALT_REST_CLIENT_OP_COMMIT && cases[i].http >= 500 &&
                       cases[i].http != 501;
        CHECK_MSG((strstr(err.message, "commit state unknown") != NULL) == unknown, "%s",
                  err.message);
    }
}

TEST(rest_error_bodies)
{
    struct basalt_error err;
    basalt_error_init(&err);
    /* An OAuth2 error. */
    const char *oauth = "{\"error\": \"invalid_client\", \"error_description\": \"bad secret\"}";
    CHECK_EQ(basalt_rest_client_error(401, oauth, strlen(oauth), BASALT_REST_CLIENT_OP_READ, "POST t",
                                       &err),
             BASALT_AUTH);
    CHECK(strstr(err.message, "HTTP 401 invalid_client: bad secret"));
    CHECK(strstr(err.message, "not authenticated"));
    /* Not JSON: a printable excerpt on one line. */
    const char *html = "<html>\n<b>Bad\tGateway</b>\n</html>\n";
    CHECK_EQ(basalt_rest_client_error(502, html, strlen(html), BASALT_REST_CLIENT_OP_READ, "GET u", &err),
             BASALT_IO);
    CHECK(strstr(err.message, "HTTP 502: <html> <b>Bad Gateway</b> </html>"));
    CHECK(!strchr(err.message, '\n'));
    /* Nothing at all. */
    CHECK_EQ(basalt_rest_client_error(404, NULL, 0, BASALT_REST_CLIENT_OP_READ, "GET u", &err),
             BASALT_NOT_FOUND);
    CHECK_STR(err.message, "GET u: HTTP 404");
}

/* A commit through the catalog: 409 is CONFLICT (appends retry it), 503
 * and a lost answer are IO saying the outcome is unknown, 401 with a fixed
 * token is AUTH, and the request carries what it was given. */
TEST(rest_commit_outcomes)
{
    static const struct fake_reply replies[] = {
        {"GET", "/v1/config", 200, fake_config},
        {"POST", "/v1/p/namespaces/db/tables/t", 409, iceberg_error},
        {"POST", "/v1/p/namespaces/db/tables/t", 503, ""},
        {"POST", "/v1/p/namespaces/db/tables/t", 0, NULL},
        {"POST", "/v1/p/namespaces/db/tables/t", 401,
         "{\"error\": {\"message\": \"expired\", \"type\": \"NotAuthorizedException\", "
         "\"code\": 401}}"},
    };
    struct fake f;
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_EQ(fake_catalog("rest+http://h:1", &f, replies, FAKE_LEN(replies), &c, &err), BASALT_OK);
    struct basalt_catalog_rest_options o;
    basalt_catalog_rest_options_init(&o);
    o.token = "fixed-token";
    CHECK_EQ(basalt_catalog_set_rest_options(c, &o, &err), BASALT_OK);
    const char *req = "[{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\",\"snapshot-id\":null}]";
    const char *upd = "[{\"action\":\"set-properties\",\"updates\":{\"k\":\"v\"}}]";
    CHECK_EQ(basalt_catalog_commit_table(c, "db.t", req, upd, NULL, &err), BASALT_CONFLICT);
    CHECK(strstr(err.message, "commit db.t: "));
    CHECK(strstr(err.message, "HTTP 409 CommitFailedException"));
    CHECK_EQ(basalt_catalog_commit_table(c, "db.t", req, upd, NULL, &err), BASALT_UNKNOWN_OUTCOME);
    CHECK(strstr(err.message, "commit state unknown"));
    CHECK(strstr(err.message, "HTTP 503"));
    CHECK_EQ(basalt_catalog_commit_table(c, "db.t", req, upd, NULL, &err), BASALT_UNKNOWN_OUTCOME);
    CHECK(strstr(err.message, "commit state unknown (no answer came)"));
    CHECK_EQ(basalt_catalog_commit_table(c, "db.t", req, upd, NULL, &err), BASALT_AUTH);
    CHECK(strstr(err.message, "HTTP 401 NotAuthorizedException: expired"));
    CHECK(!strstr(err.message, "fixed-token"));
    CHECK_EQ(f.n_log, 5);
    /* The body: the identifier, then the lists as given. */
    json_t *body = json_loads(f.log[1].body, 0, NULL);
    CHECK(body);
    json_t *want = json_loads("{\"identifier\": {\"namespace\": [\"db\"], \"name\": \"t\"},"
                              "\"requirements\": [{\"type\": \"assert-ref-snapshot-id\", \"ref\": "
                              "\"main\", \"snapshot-id\": null}],"
                              "\"updates\": [{\"action\": \"set-properties\", \"updates\": {\"k\": "
                              "\"v\"}}]}",
                              0, NULL);
    bool same = json_equal(body, want);
    json_decref(body);
    json_decref(want);
    CHECK(same);
    CHECK_STR(f.log[1].authorization, "Bearer fixed-token");
    CHECK_STR(f.log[1].content_type, "application/json");
    /* A commit is never sent again by the transport after it may have
     * arrived; a read may be. */
    CHECK_EQ(f.log[1].retry, BASALT_IO_HTTP_RETRY_UNSENT);
    CHECK_EQ(f.log[0].retry, BASALT_IO_HTTP_RETRY_ANY);
    /* Malformed lists never leave. */
    CHECK_EQ(basalt_catalog_commit_table(c, "db.t", "{}", upd, NULL, &err), BASALT_CORRUPT);
    CHECK_EQ(f.n_log, 5);
    basalt_catalog_close(c);
}

TEST(rest_unsupported_routes)
{
    static const struct fake_reply replies[] = {
        {"GET", "/v1/config", 200,
         "{\"defaults\": {}, \"overrides\": {}, \"endpoints\": [\"GET /v1/{prefix}/namespaces\"]}"},
    };
    struct fake f;
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_EQ(fake_catalog("rest+http://h:1", &f, replies, FAKE_LEN(replies), &c, &err), BASALT_OK);
    struct basalt_iceberg_table *t = NULL;
    CHECK_EQ(basalt_catalog_load_table(c, "db.t", &t, &err), BASALT_UNSUPPORTED);
    CHECK(strstr(err.message, "does not offer GET /v1/{prefix}/namespaces/{namespace}/tables/{table}"));
    CHECK_EQ(basalt_catalog_drop_table(c, "db.t", &err), BASALT_UNSUPPORTED);
    const char *ids[] = {"db.t"}, *upd[] = {"[]"};
    CHECK_EQ(basalt_catalog_commit_transaction(c, 1, ids, NULL, upd, &err), BASALT_UNSUPPORTED);
    char **list = NULL;
    size_t n = 0;
    CHECK_EQ(basalt_catalog_list_views(c, "db", &list, &n, &err), BASALT_UNSUPPORTED);
    bool exists = true;
    CHECK_EQ(basalt_catalog_namespace_exists(c, "db", &exists, &err), BASALT_UNSUPPORTED);
    CHECK_EQ(f.n_log, 1); /* only the config was asked for */
    basalt_catalog_close(c);
    /* Other catalog kinds have no transactions or views. */
    CHECK_EQ(basalt_catalog_open("/nonexistent-basalt-dir", NULL, false, &c, &err),
             BASALT_NOT_FOUND);
}
