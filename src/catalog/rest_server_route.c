/* Routing: the table of routes served (it also makes the `endpoints` of
 * GET /v1/config, so the list and the routes cannot disagree), matching a
 * request's path against it, and decoding the path parameters. */
#include <stdio.h>
#include <string.h>

#include "rest_server_internal.h"

struct route {
    const char *method;
    const char *path; /* after /v1/{prefix}/; {x} matches one segment */
    basalt_catalog_rest_op op;
    bool sql;         /* needs a SQL catalog's database */
    bool body;        /* takes a JSON object */
};

static const struct route routes[] = {
    {"GET", "namespaces", basalt_catalog_rest_op_list_namespaces, false, false},
    {"POST", "namespaces", basalt_catalog_rest_op_create_namespace, false, true},
    {"GET", "namespaces/{namespace}", basalt_catalog_rest_op_load_namespace, false, false},
    {"HEAD", "namespaces/{namespace}", basalt_catalog_rest_op_namespace_exists, false, false},
    {"DELETE", "namespaces/{namespace}", basalt_catalog_rest_op_drop_namespace, true, false},
    {"POST", "namespaces/{namespace}/properties", basalt_catalog_rest_op_update_properties, true,
     true},
    {"GET", "namespaces/{namespace}/tables", basalt_catalog_rest_op_list_tables, false, false},
    {"POST", "namespaces/{namespace}/tables", basalt_catalog_rest_op_create_table, false, true},
    {"POST", "namespaces/{namespace}/register", basalt_catalog_rest_op_register_table, true,
     true},
    {"GET", "namespaces/{namespace}/tables/{table}", basalt_catalog_rest_op_load_table, false,
     false},
    {"POST", "namespaces/{namespace}/tables/{table}", basalt_catalog_rest_op_update_table, false,
     true},
    {"DELETE", "namespaces/{namespace}/tables/{table}", basalt_catalog_rest_op_drop_table, true,
     false},
    {"HEAD", "namespaces/{namespace}/tables/{table}", basalt_catalog_rest_op_table_exists, false,
     false},
    {"POST", "namespaces/{namespace}/tables/{table}/metrics",
     basalt_catalog_rest_op_report_metrics, false, true},
    {"POST", "tables/rename", basalt_catalog_rest_op_rename_table, true, true},
    {"POST", "transactions/commit", basalt_catalog_rest_op_commit_transaction, true, true},
    /* Views live in the SQL catalogs' iceberg_tables (catalog.h). */
    {"GET", "namespaces/{namespace}/views", basalt_catalog_rest_op_list_views, true, false},
    {"POST", "namespaces/{namespace}/views", basalt_catalog_rest_op_create_view, true, true},
    {"GET", "namespaces/{namespace}/views/{view}", basalt_catalog_rest_op_load_view, true, false},
    {"POST", "namespaces/{namespace}/views/{view}", basalt_catalog_rest_op_replace_view, true,
     true},
    {"DELETE", "namespaces/{namespace}/views/{view}", basalt_catalog_rest_op_drop_view, true,
     false},
    {"HEAD", "namespaces/{namespace}/views/{view}", basalt_catalog_rest_op_view_exists, true,
     false},
    {"POST", "views/rename", basalt_catalog_rest_op_rename_view, true, true},
    {"POST", "namespaces/{namespace}/register-view", basalt_catalog_rest_op_register_view, true,
     true},
};

/* Routes of the spec that are not served: answered 501 (which the Java
 * client turns into UnsupportedOperationException) rather than "no such
 * route", so a client that calls one anyway learns why. 501 because every
 * operation declares 5XX, while few declare 406; 406 is kept for a request
 * that a served route cannot honour (namespace properties in a file-system
 * catalog). */
static const char *const unserved[] = {
    "namespaces/{namespace}/functions",
    "namespaces/{namespace}/functions/{function}",
    "namespaces/{namespace}/tables/{table}/plan",
    "namespaces/{namespace}/tables/{table}/plan/{plan-id}",
    "namespaces/{namespace}/tables/{table}/tasks",
    "namespaces/{namespace}/tables/{table}/credentials",
    "namespaces/{namespace}/tables/{table}/sign",
    "namespaces/{namespace}/tables/{table}/unregister",
};

#define N_ROUTES (sizeof routes / sizeof routes[0])
#define N_UNSERVED (sizeof unserved / sizeof unserved[0])

/* Where the path parameters of a match are: raw (still percent-encoded). */
struct params {
    const char *ns, *table;
    size_t ns_len, table_len;
};

/* Whether `path` (raw segments) matches `template`, capturing parameters. */
static bool matches(const char *template, const char *path, struct params *p)
{
    memset(p, 0, sizeof *p);
    for (;;) {
        const char *ts = strchr(template, '/'), *ps = strchr(path, '/');
        size_t tl = ts ? (size_t)(ts - template) : strlen(template);
        size_t pl = ps ? (size_t)(ps - path) : strlen(path);
        if (template[0] == '{') {
            if (pl == 0)
                return false;
            if (strncmp(template, "{namespace}", tl) == 0) {
                p->ns = path;
                p->ns_len = pl;
            } else if (strncmp(template, "{table}", tl) == 0 ||
                       strncmp(template, "{view}", tl) == 0) {
                p->table = path;
                p->table_len = pl;
            }
        } else if (tl != pl || strncmp(template, path, tl) != 0) {
            return false;
        }
        if (!ts || !ps)
            return !ts && !ps;
        template = ts + 1;
        path = ps + 1;
    }
}

static bool served(const struct basalt_catalog_rest_handler *h, const struct route *r)
{
    return !r->sql || h->sql;
}

void basalt_catalog_rest_config(struct basalt_catalog_rest_handler *h,
                                struct basalt_catalog_rest_response *resp)
{
    json_t *endpoints = json_array(), *overrides = json_object();
    bool ok = endpoints && overrides;
    for (size_t i = 0; ok && i < N_ROUTES; i++) {
        if (!served(h, &routes[i]))
            continue;
        char text[160];
        snprintf(text, sizeof text, "%s /v1/{prefix}/%s", routes[i].method, routes[i].path);
        ok = json_array_append_new(endpoints, json_string(text)) == 0;
    }
    /* Levels in paths are joined by the unit separator, which no level can
     * hold; saying so keeps clients that default otherwise in step. */
    if (ok)
        ok = json_object_set_new(overrides, "namespace-separator", json_string("%1F")) == 0;
    if (ok && h->prefix)
        ok = json_object_set_new(overrides, "prefix", json_string(h->prefix)) == 0;
    json_t *body = ok ? json_pack("{s:{},s:O,s:O}", "defaults", "overrides", overrides,
                                  "endpoints", endpoints)
                      : NULL;
    json_decref(endpoints);
    json_decref(overrides);
    if (!body)
        basalt_catalog_rest_error(resp, 500, "ServiceFailureException", "out of memory");
    else
        basalt_catalog_rest_reply(resp, 200, body);
}

/* Decodes the parameters into the call. */
static basalt_status decode_params(struct basalt_catalog_rest_call *call, const struct params *p,
                                   struct basalt_error *err)
{
    char *raw = NULL;
    basalt_status st = BASALT_OK;
    if (p->ns) {
        st = basalt_catalog_rest_unescape(p->ns, p->ns_len, false, &raw, err);
        if (st == BASALT_OK)
            st = basalt_catalog_rest_namespace_from_path(raw, &call->ns, err);
        basalt_free(raw);
    }
    if (st == BASALT_OK && p->table) {
        st = basalt_catalog_rest_unescape(p->table, p->table_len, false, &call->table, err);
        if (st == BASALT_OK)
            st = basalt_catalog_rest_check_name(call->table, err);
        if (st == BASALT_OK && !(call->identifier = basalt_catalog_rest_join(call->ns,
                                                                             call->table)))
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    return st;
}

static basalt_status parse_body(struct basalt_catalog_rest_call *call, struct basalt_error *err)
{
    const struct basalt_catalog_rest_request *req = call->req;
    json_error_t jerr;
    call->body = req->body_len ? json_loadb(req->body, req->body_len, JSON_REJECT_DUPLICATES,
                                            &jerr)
                               : NULL;
    if (!req->body_len)
        return basalt_error_set(err, BASALT_INVALID_ARG, "the request needs a JSON body");
    if (!call->body)
        return basalt_error_set(err, BASALT_INVALID_ARG, "malformed JSON body: line %d: %s",
                                jerr.line, jerr.text);
    if (!json_is_object(call->body))
        return basalt_error_set(err, BASALT_INVALID_ARG, "the JSON body is not an object");
    return BASALT_OK;
}

static void run(struct basalt_catalog_rest_handler *h,
                const struct basalt_catalog_rest_request *req, const struct route *r,
                const struct params *p, struct basalt_catalog_rest_response *resp)
{
    struct basalt_catalog_rest_call call = {.h = h, .req = req, .resp = resp};
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = decode_params(&call, p, &err);
    if (st == BASALT_OK && r->body)
        st = parse_body(&call, &err);
    if (st != BASALT_OK) {
        basalt_catalog_rest_fail(resp, st, &err,
                                 &(struct basalt_catalog_rest_errors){"NotFoundException",
                                                                      "AlreadyExistsException",
                                                                      false});
    } else {
        call.slot = basalt_catalog_rest_slot_take(h);
        call.catalog = call.slot->catalog;
        r->op(&call);
        basalt_catalog_rest_slot_give(h, call.slot);
    }
    json_decref(call.body);
    basalt_free(call.ns);
    basalt_free(call.table);
    basalt_free(call.identifier);
}

void basalt_catalog_rest_route(struct basalt_catalog_rest_handler *h,
                               const struct basalt_catalog_rest_request *req, const char *rest,
                               struct basalt_catalog_rest_response *resp)
{
    const char *method = req->method ? req->method : "";
    if (strcmp(rest, "config") == 0) {
        if (strcmp(method, "GET") != 0) {
            basalt_catalog_rest_error(resp, 405, "MethodNotAllowedException",
                                      "/v1/config takes GET, not %.16s", method);
            basalt_catalog_rest_add_header(resp, "Allow", "GET");
        } else {
            basalt_catalog_rest_config(h, resp);
        }
        return;
    }
    const char *path = rest;
    if (h->prefix) {
        size_t n = strlen(h->prefix);
        char *seg = NULL;
        const char *slash = strchr(rest, '/');
        size_t len = slash ? (size_t)(slash - rest) : strlen(rest);
        bool same = basalt_catalog_rest_unescape(rest, len, false, &seg, NULL) == BASALT_OK &&
                    strlen(seg) == n && memcmp(seg, h->prefix, n) == 0;
        basalt_free(seg);
        path = same && slash ? slash + 1 : NULL;
    }
    struct params p;
    char allow[64] = "";
    for (size_t i = 0; path && i < N_ROUTES; i++) {
        if (!matches(routes[i].path, path, &p))
            continue;
        if (strcmp(routes[i].method, method) != 0) {
            if (served(h, &routes[i]) && strlen(allow) + strlen(routes[i].method) + 3 < sizeof allow)
                snprintf(allow + strlen(allow), sizeof allow - strlen(allow), "%s%s",
                         allow[0] ? ", " : "", routes[i].method);
            continue;
        }
        if (!served(h, &routes[i])) {
            basalt_catalog_rest_error(resp, 501, "UnsupportedOperationException",
                                      "%s /v1/{prefix}/%s needs a SQL catalog; this one keeps "
                                      "tables in a file system",
                                      method, routes[i].path);
            return;
        }
        run(h, req, &routes[i], &p, resp);
        return;
    }
    for (size_t i = 0; path && i < N_UNSERVED; i++) {
        if (matches(unserved[i], path, &p)) {
            basalt_catalog_rest_error(resp, 501, "UnsupportedOperationException",
                                      "/v1/{prefix}/%s is not served by this catalog",
                                      unserved[i]);
            return;
        }
    }
    if (allow[0]) {
        basalt_catalog_rest_error(resp, 405, "MethodNotAllowedException",
                                  "%.16s is not allowed here; allowed: %s", method, allow);
        basalt_catalog_rest_add_header(resp, "Allow", allow);
        return;
    }
    basalt_catalog_rest_error(resp, 404, "NotFoundException", "no route for %.16s /v1/%.300s",
                              method, rest);
}
