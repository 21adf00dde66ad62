/* The REST server's view routes: the requests written from the spec's
 * CreateViewRequest, CommitViewRequest, RenameTableRequest and
 * RegisterViewRequest, answered with LoadViewResults and the error model;
 * then the library's REST client against the server over HTTP, processes
 * replacing one view through it at once included. */
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rest_server_fixture.h"
#include "test.h"

#define CREATE_VIEW                                                                              \
    "{\"name\": \"v\", \"schema\": {\"type\": \"struct\", \"schema-id\": 5, \"fields\": ["      \
    "{\"id\": 1, \"name\": \"id\", \"type\": \"long\", \"required\": false}]},"                \
    "\"view-version\": {\"version-id\": 1, \"timestamp-ms\": 1700000000000, \"schema-id\": 5,"  \
    "\"summary\": {\"engine-name\": \"spark\"}, \"default-namespace\": [\"db\"],"              \
    "\"representations\": [{\"type\": \"sql\", \"sql\": \"SELECT id FROM db.t\","              \
    "\"dialect\": \"spark\"}]}, \"properties\": {\"comment\": \"a view\"}}"

static json_t *meta(const json_t *result, const char *key)
{
    return json_object_get(json_object_get(result, "metadata"), key);
}

TEST(rest_views_create_load_replace_rename_drop)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, NULL));
    json_t *body = NULL;
    CHECK_EQ(rs_post(&f, "namespaces/db/views", CREATE_VIEW, &body), 404);
    CHECK(rs_is_error(body, 404, "NoSuchNamespaceException"));
    json_decref(body);
    CHECK(rs_create_namespace(&f, "[\"db\"]"));
    CHECK(rs_create_table(&f, "db", "t"));
    CHECK_EQ(rs_post(&f, "namespaces/db/views", CREATE_VIEW, &body), 200);
    const char *loc = json_string_value(json_object_get(body, "metadata-location"));
    CHECK(loc && strstr(loc, "/db/v/metadata/00000-"));
    CHECK(json_is_object(json_object_get(body, "config")));
    CHECK_EQ(json_integer_value(meta(body, "format-version")), 1);
    CHECK_EQ(json_integer_value(meta(body, "current-version-id")), 1);
    /* The version's schema-id is the id the request's schema got: 0. */
    CHECK_EQ(json_integer_value(json_object_get(json_array_get(meta(body, "versions"), 0),
                                                "schema-id")),
             0);
    CHECK_STR(json_string_value(json_object_get(meta(body, "properties"), "comment")), "a view");
    char uuid[64];
    snprintf(uuid, sizeof uuid, "%s", json_string_value(meta(body, "view-uuid")));
    json_decref(body);

    /* One name for a table or a view. */
    CHECK_EQ(rs_post(&f, "namespaces/db/views", CREATE_VIEW, &body), 409);
    CHECK(rs_is_error(body, 409, "AlreadyExistsException"));
    json_decref(body);
    char as_table[2048];
    snprintf(as_table, sizeof as_table, "%s", CREATE_VIEW);
    memcpy(strstr(as_table, "\"v\""), "\"t\"", 3);
    CHECK_EQ(rs_post(&f, "namespaces/db/views", as_table, &body), 409);
    json_decref(body);
    CHECK_EQ(rs_get(&f, "namespaces/db/tables/v", &body), 404);
    CHECK(rs_is_error(body, 404, "NoSuchTableException"));
    json_decref(body);
    CHECK_EQ(rs_get(&f, "namespaces/db/views/t", &body), 404);
    CHECK(rs_is_error(body, 404, "NoSuchViewException"));
    json_decref(body);
    CHECK_EQ(rs_get(&f, "namespaces/db/tables", &body), 200);
    CHECK_EQ(json_array_size(json_object_get(body, "identifiers")), 1);
    json_decref(body);
    CHECK_EQ(rs_get(&f, "namespaces/db/views", &body), 200);
    CHECK_EQ(json_array_size(json_object_get(body, "identifiers")), 1);
    CHECK_STR(json_string_value(json_object_get(json_array_get(json_object_get(body,
                                                                               "identifiers"),
                                                               0),
                                                "name")),
              "v");
    json_decref(body);
    CHECK_EQ(rs_call(&f, "HEAD", "namespaces/db/views/v", NULL, NULL, NULL, NULL, NULL), 204);
    CHECK_EQ(rs_call(&f, "HEAD", "namespaces/db/views/t", NULL, NULL, NULL, NULL, NULL), 404);

    /* A replace as the Java client sends it. */
    char commit[2048];
    snprintf(commit, sizeof commit,
             "{\"identifier\": {\"namespace\": [\"db\"], \"name\": \"v\"},"
             "\"requirements\": [{\"type\": \"assert-view-uuid\", \"uuid\": \"%s\"}],"
             "\"updates\": [{\"action\": \"add-schema\", \"schema\": {\"type\": \"struct\","
             "\"schema-id\": 0, \"fields\": [{\"id\": 1, \"name\": \"id\", \"type\": \"long\","
             "\"required\": false}, {\"id\": 2, \"name\": \"n\", \"type\": \"int\","
             "\"required\": false}]}, \"last-column-id\": 2},"
             "{\"action\": \"add-view-version\", \"view-version\": {\"version-id\": 2,"
             "\"timestamp-ms\": 1700000001000, \"schema-id\": -1, \"summary\": {},"
             "\"default-namespace\": [\"db\"], \"representations\": [{\"type\": \"sql\","
             "\"sql\": \"SELECT id, 1 AS n FROM db.t\", \"dialect\": \"spark\"}]}},"
             "{\"action\": \"set-current-view-version\", \"view-version-id\": -1}]}",
             uuid);
    CHECK_EQ(rs_post(&f, "namespaces/db/views/v", commit, &body), 200);
    CHECK(strstr(json_string_value(json_object_get(body, "metadata-location")),
                 "/metadata/00001-"));
    CHECK_EQ(json_integer_value(meta(body, "current-version-id")), 2);
    CHECK_EQ(json_array_size(meta(body, "version-log")), 2);
    CHECK_EQ(json_array_size(meta(body, "schemas")), 2);
    json_decref(body);
    CHECK_EQ(rs_get(&f, "namespaces/db/views/v", &body), 200);
    CHECK_EQ(json_integer_value(meta(body, "current-version-id")), 2);
    json_decref(body);
    /* A stale uuid: the commit failed, the client may retry. */
    char stale[2048];
    snprintf(stale, sizeof stale, "%s", commit);
    memcpy(strstr(stale, uuid), "00000000", 8);
    CHECK_EQ(rs_post(&f, "namespaces/db/views/v", stale, &body), 409);
    CHECK(rs_is_error(body, 409, "CommitFailedException"));
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces/db/views/v",
                     "{\"updates\": [{\"action\": \"add-snapshot\", \"snapshot\": {}}]}", &body),
             400);
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces/db/views/v",
                     "{\"updates\": [{\"action\": \"set-current-view-version\","
                     "\"view-version-id\": 9}]}",
                     &body),
             400);
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces/db/views/nope", "{\"updates\": []}", &body), 404);
    CHECK(rs_is_error(body, 404, "NoSuchViewException"));
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces/db/views/t", "{\"updates\": []}", &body), 404);
    json_decref(body);

    /* Renames. */
    CHECK_EQ(rs_post(&f, "views/rename",
                     "{\"source\": {\"namespace\": [\"db\"], \"name\": \"v\"},"
                     "\"destination\": {\"namespace\": [\"db\"], \"name\": \"t\"}}",
                     &body),
             409);
    json_decref(body);
    CHECK_EQ(rs_post(&f, "views/rename",
                     "{\"source\": {\"namespace\": [\"db\"], \"name\": \"t\"},"
                     "\"destination\": {\"namespace\": [\"db\"], \"name\": \"w\"}}",
                     &body),
             404);
    CHECK(rs_is_error(body, 404, "NoSuchViewException"));
    json_decref(body);
    CHECK_EQ(rs_post(&f, "views/rename",
                     "{\"source\": {\"namespace\": [\"db\"], \"name\": \"v\"},"
                     "\"destination\": {\"namespace\": [\"nowhere\"], \"name\": \"w\"}}",
                     &body),
             404);
    CHECK(rs_is_error(body, 404, "NoSuchNamespaceException"));
    json_decref(body);
    CHECK_EQ(rs_post(&f, "views/rename",
                     "{\"source\": {\"namespace\": [\"db\"], \"name\": \"v\"},"
                     "\"destination\": {\"namespace\": [\"db\"], \"name\": \"w\"}}",
                     &body),
             204);
    CHECK_EQ(rs_get(&f, "namespaces/db/views/v", &body), 404);
    json_decref(body);
    CHECK_EQ(rs_get(&f, "namespaces/db/views/w", &body), 200);
    char location[1024];
    snprintf(location, sizeof location, "%s",
             json_string_value(json_object_get(body, "metadata-location")));
    json_decref(body);

    /* Registered from its file under a second name. */
    char reg[1400];
    snprintf(reg, sizeof reg, "{\"name\": \"again\", \"metadata-location\": \"%s\"}", location);
    CHECK_EQ(rs_post(&f, "namespaces/db/register-view", reg, &body), 200);
    CHECK_STR(json_string_value(json_object_get(body, "metadata-location")), location);
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces/db/register-view", reg, &body), 409);
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces/db/register-view",
                     "{\"name\": \"bad\", \"metadata-location\": \"/nonexistent.json\"}", &body),
             400);
    json_decref(body);

    /* A namespace holding views is not dropped. */
    CHECK_EQ(rs_call(&f, "DELETE", "namespaces/db/tables/t", NULL, NULL, NULL, &body, NULL), 204);
    CHECK_EQ(rs_call(&f, "DELETE", "namespaces/db", NULL, NULL, NULL, &body, NULL), 409);
    json_decref(body);
    CHECK_EQ(rs_call(&f, "DELETE", "namespaces/db/views/w", NULL, NULL, NULL, &body, NULL), 204);
    CHECK_EQ(rs_call(&f, "DELETE", "namespaces/db/views/w", NULL, NULL, NULL, &body, NULL), 404);
    CHECK(rs_is_error(body, 404, "NoSuchViewException"));
    json_decref(body);
    CHECK_EQ(rs_call(&f, "DELETE", "namespaces/db/views/again", NULL, NULL, NULL, &body, NULL),
             204);
    CHECK_EQ(rs_call(&f, "DELETE", "namespaces/db", NULL, NULL, NULL, &body, NULL), 204);
    rs_close(&f);
}

/* ------------------------------------------------- the client over HTTP */

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

#define SCHEMA                                                                                    \
    "{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":"  \
    "\"long\"}]}"

static int rest_worker(const char *uri, int worker, int n)
{
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    if (basalt_catalog_open(uri, NULL, false, &c, &err) != BASALT_OK)
        return 100;
    int accepted = 0;
    for (int i = 0; i < n; i++) {
        char sql[64];
        snprintf(sql, sizeof sql, "SELECT %d AS id -- rest worker %d", i, worker);
        struct basalt_iceberg_view_definition def = {.schema_json = SCHEMA, .sql = sql};
        basalt_status st = basalt_catalog_replace_view(c, "db.v", &def, 1000, NULL, NULL, &err);
        if (st == BASALT_OK)
            accepted++;
        else
            fprintf(stderr, "rest worker %d: %s\n", worker, err.message);
    }
    basalt_catalog_close(c);
    return accepted;
}

TEST(rest_client_views_against_the_server)
{
    char dir[64], db[128], uri[128];
    snprintf(dir, sizeof dir, "/tmp/basalt-rest-views-XXXXXX");
    CHECK(mkdtemp(dir));
    snprintf(db, sizeof db, "sqlite:%s/catalog.db", dir);
    struct basalt_catalog_rest_server_options o;
    basalt_catalog_rest_server_options_init(&o);
    o.catalog_uri = db;
    o.threads = 3;
    struct basalt_catalog_rest_server *s = NULL;
    struct basalt_error err;
    CHECK_EQ(basalt_catalog_rest_server_start(&o, &s, &err), BASALT_OK);
    snprintf(uri, sizeof uri, "rest+http://127.0.0.1:%u", basalt_catalog_rest_server_port(s));
    struct basalt_catalog *c = NULL;
    CHECK_EQ(basalt_catalog_open(uri, NULL, false, &c, &err), BASALT_OK);
    CHECK_EQ(basalt_catalog_create_namespace(c, "db", &err), BASALT_OK);
    struct basalt_iceberg_view_definition def = {
        .schema_json = SCHEMA, .sql = "SELECT 1 AS id", .dialect = "trino",
        .default_namespace = "db"};
    struct basalt_iceberg_view_metadata *v = NULL;
    char *loc = NULL;
    CHECK_MSG(basalt_catalog_create_sql_view(c, "db.v", &def, &v, &loc, &err) == BASALT_OK, "%s",
              err.message);
    CHECK(strstr(loc, "/db/v/metadata/00000-") != NULL);
    CHECK_STR(basalt_iceberg_view_metadata_current_version(v)->representations[0].dialect,
              "trino");
    basalt_iceberg_view_metadata_free(v);
    basalt_free(loc);
    char **list = NULL;
    size_t n = 0;
    CHECK_EQ(basalt_catalog_list_views(c, "db", &list, &n, &err), BASALT_OK);
    CHECK_EQ(n, 1);
    CHECK_STR(list[0], "db.v");
    basalt_string_list_free(list, n);
    bool exists = false;
    CHECK_EQ(basalt_catalog_view_exists(c, "db.v", &exists, &err), BASALT_OK);
    CHECK(exists);
    CHECK_EQ(basalt_catalog_view_exists(c, "db.x", &exists, &err), BASALT_OK);
    CHECK(!exists);
    CHECK_EQ(basalt_catalog_create_sql_view(c, "db.v", &def, NULL, NULL, &err), BASALT_CONFLICT);
    CHECK_EQ(basalt_catalog_commit_view(c, "db.v",
                                        "[{\"type\":\"assert-view-uuid\",\"uuid\":\"x\"}]", "[]",
                                        NULL, NULL, &err),
             BASALT_CONFLICT);
    basalt_catalog_close(c);

    /* Two processes replacing through the server, retrying on 409. */
    enum { WORKERS = 2, REPLACES = 6 };
    pid_t pids[WORKERS];
    int accepted = 0;
    for (int w = 0; w < WORKERS; w++) {
        pids[w] = fork();
        if (pids[w] == 0)
            _exit(rest_worker(uri, w, REPLACES));
    }
    for (int w = 0; w < WORKERS; w++) {
        int status = 0;
        waitpid(pids[w], &status, 0);
        accepted += WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    }
    CHECK_EQ(accepted, WORKERS * REPLACES);
    CHECK_EQ(basalt_catalog_open(uri, NULL, false, &c, &err), BASALT_OK);
    CHECK_EQ(basalt_catalog_load_view(c, "db.v", &v, NULL, &err), BASALT_OK);
    /* The default retention (10 versions) applies; the log is the history
     * of those kept, each named once, the newest current. */
    CHECK_EQ(v->n_versions, 10);
    bool distinct = true;
    for (uint32_t i = 0; i < v->n_version_log; i++)
        for (uint32_t j = 0; j < i; j++)
            distinct = distinct && v->version_log[i].version_id != v->version_log[j].version_id;
    CHECK(distinct);
    CHECK_EQ(v->version_log[v->n_version_log - 1].version_id, v->current_version_id);
    CHECK_EQ(v->current_version_id, 1 + WORKERS * REPLACES);
    basalt_iceberg_view_metadata_free(v);

    CHECK_EQ(basalt_catalog_rename_view(c, "db.v", "db.w", &err), BASALT_OK);
    CHECK_EQ(basalt_catalog_load_view(c, "db.v", &v, NULL, &err), BASALT_NOT_FOUND);
    CHECK_EQ(basalt_catalog_load_view(c, "db.w", &v, &loc, &err), BASALT_OK);
    basalt_iceberg_view_metadata_free(v);
    CHECK_MSG(basalt_catalog_register_view(c, "db.r", loc, &err) == BASALT_OK, "%s", err.message);
    basalt_free(loc);
    CHECK_EQ(basalt_catalog_drop_view(c, "db.w", &err), BASALT_OK);
    CHECK_EQ(basalt_catalog_drop_view(c, "db.w", &err), BASALT_NOT_FOUND);
    CHECK_EQ(basalt_catalog_drop_view(c, "db.r", &err), BASALT_OK);
    basalt_catalog_close(c);
    basalt_catalog_rest_server_stop(s);
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
