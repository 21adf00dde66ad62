/* REST catalog client: catalog URIs, and the URLs built from the session
 * (base path, {prefix}, namespaces joined by %1F, percent-encoding). */
#include <stdlib.h>
#include <string.h>

#include "rest_client_fake.h"
#include "test.h"

TEST(rest_uri_forms)
{
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_EQ(basalt_catalog_open("rest+http://127.0.0.1:8181", NULL, false, &c, &err), BASALT_OK);
    CHECK_STR(c->rest->base, "http://127.0.0.1:8181");
    CHECK(c->rest->warehouse == NULL);
    basalt_catalog_close(c);
    /* A base path keeps its segments; trailing slashes go. */
    CHECK_EQ(basalt_catalog_open("rest+https://cat.example.com/api/catalog/?warehouse=s3%3A%2F%2Fb%2Fwh",
                                 NULL, false, &c, &err),
             BASALT_OK);
    CHECK_STR(c->rest->base, "https://cat.example.com/api/catalog");
    CHECK_STR(c->rest->warehouse, "s3://b/wh");
    basalt_catalog_close(c);
    CHECK_EQ(basalt_catalog_open("REST+HTTP://h:1", NULL, false, &c, &err), BASALT_OK);
    basalt_catalog_close(c);
}

TEST(rest_uri_refused)
{
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_EQ(basalt_catalog_open("rest+http://user:secret@h:1", NULL, false, &c, &err),
             BASALT_INVALID_ARG);
    CHECK(strstr(err.message, "credentials do not go in the URI"));
    CHECK(!strstr(err.message, "secret@"));
    CHECK_EQ(basalt_catalog_open("rest+http:///v1", NULL, false, &c, &err), BASALT_INVALID_ARG);
    CHECK_EQ(basalt_catalog_open("rest+http://h:1/?wharehouse=x", NULL, false, &c, &err),
             BASALT_INVALID_ARG);
    CHECK(strstr(err.message, "wharehouse"));
    CHECK(c == NULL);
}

/* Builds a URL for `path` in a session with `prefix` and separator. */
static char *url_of(struct basalt_rest_client *r, const char *path)
{
    char *out = NULL;
    return basalt_rest_client_url(r, path, &out, NULL) == BASALT_OK ? out : NULL;
}

TEST(rest_url_prefix_and_namespaces)
{
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_EQ(basalt_catalog_open("rest+http://h:1/base", NULL, false, &c, &err), BASALT_OK);
    struct basalt_rest_client *r = c->rest;
    char *u = url_of(r, "namespaces");
    CHECK(u);
    CHECK_STR(u, "http://h:1/base/v1/namespaces"); /* no prefix: no segment */
    basalt_free(u);
    r->prefix = basalt_strdup("wh/main");
    u = url_of(r, "namespaces");
    CHECK_STR(u, "http://h:1/base/v1/wh/main/namespaces");
    basalt_free(u);

    char *p = NULL;
    CHECK_EQ(basalt_rest_client_namespace_path(r, "a.b.c", "tables", &p, &err), BASALT_OK);
    CHECK_STR(p, "namespaces/a%1Fb%1Fc/tables");
    basalt_free(p);
    CHECK_EQ(basalt_rest_client_object_path(r, "a.b.tbl", "tables", &p, &err), BASALT_OK);
    CHECK_STR(p, "namespaces/a%1Fb/tables/tbl");
    basalt_free(p);
    /* Levels and names are percent-encoded: '/', '%', space, UTF-8. */
    CHECK_EQ(basalt_rest_client_object_path(r, "sales/eu.q 1%.t\xc3\xa9/x", "views", &p, &err),
             BASALT_OK);
    CHECK_STR(p, "namespaces/sales%2Feu%1Fq%201%25/views/t%C3%A9%2Fx");
    basalt_free(p);
    /* The separator the config advertised, as it gave it. */
    r->separator = basalt_strdup("%2E");
    CHECK_EQ(basalt_rest_client_namespace_path(r, "a.b", NULL, &p, &err), BASALT_OK);
    CHECK_STR(p, "namespaces/a%2Eb");
    basalt_free(p);
    CHECK_EQ(basalt_rest_client_namespace_path(r, "a..b", NULL, &p, &err), BASALT_INVALID_ARG);
    CHECK_EQ(basalt_rest_client_object_path(r, "nodot", "tables", &p, &err), BASALT_INVALID_ARG);
    CHECK(p == NULL);
    basalt_catalog_close(c);
}

TEST(rest_url_config_and_query)
{
    static const struct fake_reply replies[] = {
        {"GET", "/v1/config", 200,
         "{\"defaults\": {\"prefix\": \"dflt\"}, \"overrides\": {\"prefix\": \"/ovr/\"}}"},
        {"GET", "/v1/ovr/namespaces", 200, "{\"namespaces\": [[\"a\", \"b\", \"c\"]]}"},
    };
    struct fake f;
    struct basalt_catalog *c = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_EQ(fake_catalog("rest+http://h:1", &f, replies, FAKE_LEN(replies), &c, &err), BASALT_OK);
    CHECK_EQ(basalt_catalog_set_warehouse(c, "my wh/1&2", &err), BASALT_OK);
    char **list = NULL;
    size_t n = 0;
    CHECK_EQ(basalt_catalog_list_namespaces(c, "a.b", &list, &n, &err), BASALT_OK);
    CHECK_EQ(n, 1);
    CHECK_STR(list[0], "a.b.c");
    basalt_string_list_free(list, n);
    CHECK_EQ(f.n_log, 2);
    /* The warehouse is a query parameter, encoded; overrides beat defaults
     * and lose their slashes. */
    CHECK_STR(f.log[0].url, "http://h:1/v1/config?warehouse=my%20wh%2F1%262");
    CHECK_STR(f.log[1].url, "http://h:1/v1/ovr/namespaces?parent=a%1Fb&pageToken=");
    CHECK_STR(f.log[0].authorization, "");
    basalt_catalog_close(c);
}
