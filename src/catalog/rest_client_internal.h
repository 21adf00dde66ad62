/* The REST catalog client's insides: the session (config, prefix,
 * endpoints, tokens), requests with their error mapping, and the
 * operations the catalog dispatches to. Not part of the public API; the
 * unit tests include it to build URLs and to swap the transport. */
#ifndef BASALT_CATALOG_REST_CLIENT_INTERNAL_H
#define BASALT_CATALOG_REST_CLIENT_INTERNAL_H

#include <jansson.h>

#include "basalt/catalog.h"

/* Sends one request: what basalt_io_http_request does (the default). Tests
 * put a fake here. */
typedef basalt_status (*basalt_rest_client_transport)(void *ctx,
                                                       const struct basalt_io_http_request *req,
                                                       struct basalt_io_http_response *resp,
                                                       struct basalt_error *err);

/* What a request is, for the error messages and the status mapping. */
enum basalt_rest_client_op {
    BASALT_REST_CLIENT_OP_READ = 0, /* GET/HEAD: retried on anything */
    BASALT_REST_CLIENT_OP_WRITE,    /* creates, drops, registers: sent again only if never sent */
    BASALT_REST_CLIENT_OP_COMMIT,   /* updateTable, transactions: 5xx = commit state unknown */
};

struct basalt_rest_client {
    /* From the URI and the options. */
    char *base;      /* "http://host:port[/path]", no trailing '/' */
    char *warehouse; /* the ?warehouse= of GET /v1/config; NULL: none */
    char *token;     /* a fixed bearer token */
    char *client_id; /* OAuth2 client credentials */
    char *client_secret;
    char *oauth2_uri; /* the token endpoint the caller named */
    char *scope;
    bool vended;      /* X-Iceberg-Access-Delegation: vended-credentials */
    bool stage_create;

    /* The session, made by the first operation (basalt_rest_client_session)
     * and again after the options or the warehouse change. */
    bool configured;
    char *prefix;     /* the {prefix} segment(s) as the config gave them; NULL: none */
    char *separator;  /* the namespace separator as sent in paths ("%1F") */
    bool have_endpoints;
    struct basalt_string_list endpoints; /* "VERB /v1/{prefix}/..." */
    char *config_warehouse; /* "warehouse" of the merged config, if any */
    char *token_endpoint;   /* where client credentials go */
    char *access_token;     /* from the token endpoint */
    int64_t token_expires_ms; /* monotonic; 0: no expiry known */
    unsigned token_fetches;   /* tokens fetched (tests check refreshes) */

    /* Per table: the `config` and `storage-credentials` of its last
     * LoadTableResult (a table token, vended credentials), by identifier. */
    json_t *tables;

    /* HTTP. */
    struct basalt_io_store *store;     /* the catalog's (borrowed), else own_store */
    struct basalt_io_store *own_store; /* made on first use when none was set */
    basalt_rest_client_transport transport;
    void *transport_ctx;
};

/* rest_client.c: opening, options, the session. */
bool basalt_rest_client_uri(const char *uri);
basalt_status basalt_rest_client_open(const char *uri, struct basalt_rest_client **out,
                                       struct basalt_error *err);
void basalt_rest_client_close(struct basalt_rest_client *r);
void basalt_rest_client_set_store(struct basalt_rest_client *r, struct basalt_io_store *store);
basalt_status basalt_rest_client_set_warehouse(struct basalt_rest_client *r,
                                                const char *warehouse, struct basalt_error *err);
/* Swaps the transport (tests). NULL restores basalt_io_http_request. */
void basalt_rest_client_set_transport(struct basalt_rest_client *r,
                                       basalt_rest_client_transport fn, void *ctx);
/* GET /v1/config (after a token when client credentials are set) unless
 * done: the prefix, the separator, the endpoints. */
basalt_status basalt_rest_client_session(struct basalt_rest_client *r,
                                          struct basalt_error *err);
/* Whether the server offers "VERB /v1/{prefix}/PATH" (its `endpoints`, or
 * the spec's default set when it sent none). */
bool basalt_rest_client_offers(const struct basalt_rest_client *r, const char *endpoint);
/* UNSUPPORTED naming the endpoint when the server does not offer it. */
basalt_status basalt_rest_client_require(const struct basalt_rest_client *r,
                                          const char *endpoint, struct basalt_error *err);

/* rest_client_auth.c: the bearer token of a request (a fixed token, or
 * client credentials exchanged at the token endpoint and exchanged again
 * when they expire). `force`: fetch a new one now (after a 401). NULL in
 * *out: no Authorization header. */
basalt_status basalt_rest_client_bearer(struct basalt_rest_client *r, bool force,
                                         const char **out, struct basalt_error *err);
/* Whether a 401 can be answered by fetching a new token. */
bool basalt_rest_client_can_refresh(const struct basalt_rest_client *r);

/* rest_client_http.c: URLs and requests. */
/* "BASE/v1/[PREFIX/]" + `path` into *out (basalt_malloc'd). */
basalt_status basalt_rest_client_url(const struct basalt_rest_client *r, const char *path,
                                      char **out, struct basalt_error *err);
/* Appends a percent-encoded copy of s[0, len) (RFC 3986 unreserved kept). */
basalt_status basalt_rest_client_append_encoded(struct basalt_buffer *b, const char *s,
                                                 size_t len, struct basalt_error *err);
/* Appends the path form of dotted namespace `ns`: each level encoded, the
 * levels joined by the session's separator. INVALID_ARG for an empty
 * level. */
basalt_status basalt_rest_client_append_namespace(const struct basalt_rest_client *r,
                                                   struct basalt_buffer *b, const char *ns,
                                                   struct basalt_error *err);
/* "namespaces/<ns>" and "namespaces/<ns>/<kind>/<name>" ("tables",
 * "views") for an identifier "ns.name", basalt_malloc'd. */
basalt_status basalt_rest_client_namespace_path(const struct basalt_rest_client *r,
                                                 const char *ns, const char *suffix,
                                                 char **out, struct basalt_error *err);
basalt_status basalt_rest_client_object_path(const struct basalt_rest_client *r,
                                              const char *identifier, const char *kind,
                                              char **out, struct basalt_error *err);

/* One request. `url` is complete; `body` (NULL: none) is JSON, or a form
 * when `form`. `table` (NULL: none) names the table whose token, if its
 * LoadTableResult gave one, is used. The Authorization header is the
 * session's; a 401 is answered once by fetching a new token when client
 * credentials allow. On 2xx, *json (may be NULL) receives the parsed body
 * (NULL for an empty one) and OK is returned; any other status is mapped
 * to a status and a message (basalt_rest_client_error) and *http_status
 * (may be NULL) says which it was. */
struct basalt_rest_client_call {
    const char *method;
    const char *url;
    const char *body;
    size_t body_len;
    bool form;
    bool delegation; /* send X-Iceberg-Access-Delegation when asked for */
    const char *table;
    enum basalt_rest_client_op op;
    bool no_auth; /* no Authorization header (the token request itself) */
};
basalt_status basalt_rest_client_call(struct basalt_rest_client *r,
                                       const struct basalt_rest_client_call *call, json_t **json,
                                       long *http_status, struct basalt_error *err);

/* rest_client_errors.c: the status of an HTTP error answer and a message
 * "<what>: <type>: <message> (HTTP <code>)" from an IcebergErrorResponse
 * (or whatever the body is). 400/422 INVALID_ARG, 401/403/419 AUTH, 404
 * NOT_FOUND, 406/501 UNSUPPORTED, 409 CONFLICT, other statuses IO; for a
 * COMMIT, 500/502/503/504 are IO saying that the commit state is unknown. */
basalt_status basalt_rest_client_error(long http_status, const char *body, size_t len,
                                        enum basalt_rest_client_op op, const char *what,
                                        struct basalt_error *err);
/* Dotted "a.b" from a JSON namespace array ["a", "b"] into *out
 * (basalt_malloc'd). CORRUPT naming `what` for anything else, NOMEM. */
basalt_status basalt_rest_client_namespace_string(const json_t *levels, const char *what,
                                                   char **out, struct basalt_error *err);
/* ["a", "b"] from "a.b". */
json_t *basalt_rest_client_namespace_json(const char *ns);
/* {"namespace": [...], "name": "t"} from "ns.t". */
json_t *basalt_rest_client_identifier_json(const char *identifier);
/* Parses JSON text (NULL or "" for an empty array) into an array.
 * CORRUPT naming `what`. */
basalt_status basalt_rest_client_parse_array(const char *text, const char *what, json_t **out,
                                              struct basalt_error *err);

/* rest_client_namespaces.c */
basalt_status basalt_rest_client_list_namespaces(struct basalt_rest_client *r,
                                                  const char *parent,
                                                  struct basalt_string_list *out,
                                                  struct basalt_error *err);
basalt_status basalt_rest_client_create_namespace(struct basalt_rest_client *r,
                                                   const char *ns, struct basalt_error *err);
basalt_status basalt_rest_client_namespace_exists(struct basalt_rest_client *r,
                                                   const char *ns, bool *exists,
                                                   struct basalt_error *err);
/* Follows next-page-token through every page of GET `path` (relative to
 * /v1/[prefix]/, with `query` ("parent=..." or NULL) first), calling
 * `each` with every page's member `member`. */
basalt_status basalt_rest_client_list_pages(
    struct basalt_rest_client *r, const char *path, const char *query, const char *member,
    basalt_status (*each)(void *ctx, const json_t *item, struct basalt_error *err), void *ctx,
    struct basalt_error *err);

/* rest_client_tables.c */
basalt_status basalt_rest_client_list_tables(struct basalt_rest_client *r, const char *ns,
                                              bool views, struct basalt_string_list *out,
                                              struct basalt_error *err);
/* GET the table; *result is the LoadTableResult. */
basalt_status basalt_rest_client_load_result(struct basalt_rest_client *r,
                                              const char *identifier, json_t **result,
                                              struct basalt_error *err);
/* A table from a LoadTableResult or a commit's response: its metadata
 * parsed, metadata_location and name set, and an io with the catalog's
 * mappings (`base_io`) and store, or a store of its own holding the vended
 * credentials remembered for the identifier. */
basalt_status basalt_rest_client_make_table(struct basalt_rest_client *r,
                                             const struct basalt_iceberg_io *base_io,
                                             const char *identifier, const json_t *result,
                                             struct basalt_iceberg_table **out,
                                             struct basalt_error *err);
/* Remembers a LoadTableResult's config and storage-credentials. */
void basalt_rest_client_remember(struct basalt_rest_client *r, const char *identifier,
                                  const json_t *result);
/* The io options of a table's vended credentials: the storage credential
 * with the longest prefix of `location`, else the table config. False when
 * there are none. Strings point into `result`. */
bool basalt_rest_client_vended_options(const json_t *result, const char *location,
                                        struct basalt_io_options *o);
basalt_status basalt_rest_client_register(struct basalt_rest_client *r,
                                           const char *identifier, const char *location,
                                           struct basalt_error *err);
basalt_status basalt_rest_client_drop(struct basalt_rest_client *r, const char *identifier,
                                       struct basalt_error *err);
basalt_status basalt_rest_client_load_view(struct basalt_rest_client *r,
                                            const char *identifier,
                                            struct basalt_iceberg_view_metadata **out,
                                            char **location, struct basalt_error *err);

/* rest_client_commit.c */
basalt_status basalt_rest_client_default_location(struct basalt_rest_client *r,
                                                   const char *identifier, char **out,
                                                   struct basalt_error *err);
/* The CreateTableRequest of create updates, or NULL (OK) when the updates
 * hold more than a CreateTableRequest carries (then a staged create and a
 * commit with assert-create are made). */
basalt_status basalt_rest_client_create_request(const char *name, const json_t *updates,
                                                 json_t **out, struct basalt_error *err);
basalt_status basalt_rest_client_create_table(struct basalt_rest_client *r,
                                               const struct basalt_iceberg_io *base_io,
                                               const char *identifier, const char *updates_json,
                                               struct basalt_iceberg_table **out,
                                               struct basalt_error *err);
basalt_status basalt_rest_client_commit_table(struct basalt_rest_client *r,
                                               const struct basalt_iceberg_io *base_io,
                                               const char *identifier,
                                               const char *requirements_json,
                                               const char *updates_json,
                                               struct basalt_iceberg_table **out,
                                               struct basalt_error *err);
basalt_status basalt_rest_client_commit_transaction(struct basalt_rest_client *r, size_t n,
                                                     const char *const *identifiers,
                                                     const char *const *requirements,
                                                     const char *const *updates,
                                                     struct basalt_error *err);

/* rest_client_views.c: view routes. `result` receives the LoadViewResult
 * (owned by the caller). */
basalt_status basalt_rest_client_view_from_result(const json_t *result, const char *identifier,
                                                  struct basalt_iceberg_view_metadata **out,
                                                  char **location, struct basalt_error *err);
/* POST createView with the CreateViewRequest of create updates (schema,
 * version, location, properties; INVALID_ARG for updates it cannot carry). */
basalt_status basalt_rest_client_create_view(struct basalt_rest_client *r, const char *identifier,
                                             const char *updates_json, json_t **result,
                                             struct basalt_error *err);
basalt_status basalt_rest_client_commit_view(struct basalt_rest_client *r, const char *identifier,
                                             const char *requirements_json,
                                             const char *updates_json, json_t **result,
                                             struct basalt_error *err);
basalt_status basalt_rest_client_register_view(struct basalt_rest_client *r,
                                               const char *identifier, const char *location,
                                               json_t **result, struct basalt_error *err);
basalt_status basalt_rest_client_drop_view(struct basalt_rest_client *r, const char *identifier,
                                           struct basalt_error *err);
basalt_status basalt_rest_client_rename_view(struct basalt_rest_client *r, const char *from,
                                             const char *to, struct basalt_error *err);
basalt_status basalt_rest_client_view_exists(struct basalt_rest_client *r, const char *identifier,
                                             bool *exists, struct basalt_error *err);

#endif
