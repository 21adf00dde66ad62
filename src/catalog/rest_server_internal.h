/* Internal declarations of the REST catalog server: the handler and the
 * request being handled (rest_server.c, routing in rest_server_route.c),
 * responses and JSON helpers (rest_server_json.c), the operations
 * (rest_server_namespaces.c, rest_server_tables.c, rest_server_commit.c,
 * rest_server_views.c),
 * and what the server does in a SQL catalog's database that catalog.h does
 * not offer (rest_server_sql.c). Not part of the public API. */
#ifndef BASALT_CATALOG_REST_SERVER_INTERNAL_H
#define BASALT_CATALOG_REST_SERVER_INTERNAL_H

#include <jansson.h>
#include <pthread.h>

#include "catalog_internal.h"

struct basalt_catalog_rest_sql;

/* One connection to the catalog; a request holds one for its duration,
 * since a catalog is used by one thread at a time. */
struct basalt_catalog_rest_slot {
    struct basalt_catalog *catalog;
    struct basalt_catalog_rest_sql *sql; /* SQL catalogs: the server's own connection */
    bool busy;
};

struct basalt_catalog_rest_handler {
    char *prefix;  /* NULL: none */
    char *token;   /* NULL: no authentication */
    size_t max_body;
    /* A SQL catalog: the routes that need its database are served. */
    bool sql;
    pthread_mutex_t lock;
    pthread_cond_t freed;
    struct basalt_catalog_rest_slot *slots;
    unsigned n_slots;
};

/* One request in progress: what the route named, and where the answer goes. */
struct basalt_catalog_rest_call {
    struct basalt_catalog_rest_handler *h;
    struct basalt_catalog *catalog; /* this request's connection */
    struct basalt_catalog_rest_slot *slot;
    const struct basalt_catalog_rest_request *req;
    struct basalt_catalog_rest_response *resp;
    json_t *body;     /* the request body, for routes that take one: an object */
    char *ns;         /* {namespace} as a dotted name; NULL when the route has none */
    char *table;      /* {table}; NULL when none */
    char *identifier; /* "ns.table" when the route names a table */
};

typedef void (*basalt_catalog_rest_op)(struct basalt_catalog_rest_call *call);

/* ------------------------------------------------------------- routing */

/* Routes the request below "/v1/" (`rest`: the path after it, prefix
 * included) and answers it. */
void basalt_catalog_rest_route(struct basalt_catalog_rest_handler *h,
                               const struct basalt_catalog_rest_request *req, const char *rest,
                               struct basalt_catalog_rest_response *resp);
/* GET /v1/config: defaults, overrides and the endpoints served. */
void basalt_catalog_rest_config(struct basalt_catalog_rest_handler *h,
                                struct basalt_catalog_rest_response *resp);
/* Borrows a free connection, waiting for one; gives it back. */
struct basalt_catalog_rest_slot *basalt_catalog_rest_slot_take(
    struct basalt_catalog_rest_handler *h);
void basalt_catalog_rest_slot_give(struct basalt_catalog_rest_handler *h,
                                   struct basalt_catalog_rest_slot *slot);

/* ---------------------------------------------------------- responses */

/* The error response {"error": {"message", "type", "code"}}, replacing
 * whatever the response held. `type` is the Java exception name. */
void basalt_catalog_rest_error(struct basalt_catalog_rest_response *resp, int status,
                               const char *type, const char *fmt, ...) BASALT_PRINTF(4, 5);

/* How an operation names what went wrong, by the catalog's status. */
struct basalt_catalog_rest_errors {
    const char *not_found; /* NOT_FOUND -> 404 with this type */
    const char *conflict;  /* CONFLICT -> 409 with this type */
    /* A commit: failures of the server (IO, NOMEM, INTERNAL) are 500
     * CommitStateUnknownException, since the client must then not clean up. */
    bool commit;
};

/* The error response for a failed call: NOT_FOUND 404, CONFLICT 409,
 * INVALID_ARG / CORRUPT / LIMIT 400 BadRequestException, UNSUPPORTED 501
 * UnsupportedOperationException, anything else 500. */
void basalt_catalog_rest_fail(struct basalt_catalog_rest_response *resp, basalt_status st,
                              const struct basalt_error *err,
                              const struct basalt_catalog_rest_errors *kinds);

/* A JSON body (`body` is taken, even on failure) with `status`. */
void basalt_catalog_rest_reply(struct basalt_catalog_rest_response *resp, int status,
                               json_t *body);
/* 204, no body. */
void basalt_catalog_rest_no_content(struct basalt_catalog_rest_response *resp);
/* Adds a header (false when there is no room or it does not fit). */
bool basalt_catalog_rest_add_header(struct basalt_catalog_rest_response *resp, const char *name,
                                    const char *value);

/* ---------------------------------------------------------- requests */

/* A request header's value (the first with that name), or NULL. */
const char *basalt_catalog_rest_header(const struct basalt_catalog_rest_request *req,
                                       const char *name);
/* Percent-decodes s[0, len) into a basalt_malloc'd string (`plus_space`:
 * '+' is a space, as in query strings). INVALID_ARG for a bad escape or a
 * NUL byte, NOMEM. */
basalt_status basalt_catalog_rest_unescape(const char *s, size_t len, bool plus_space,
                                           char **out, struct basalt_error *err);
/* The decoded value of query parameter `name` in *out (NULL when absent). */
basalt_status basalt_catalog_rest_query(const struct basalt_catalog_rest_request *req,
                                        const char *name, char **out,
                                        struct basalt_error *err);

/* ------------------------------------------------------- identifiers */

/* The catalog's dotted name of a namespace given as levels joined by 0x1F
 * (already percent-decoded), or as a JSON array of strings. INVALID_ARG for
 * no levels, an empty level, or a level holding '.' (the catalogs join
 * levels with dots, so such a name could not come back as it went in). */
basalt_status basalt_catalog_rest_namespace_from_path(const char *levels, char **out,
                                                      struct basalt_error *err);
basalt_status basalt_catalog_rest_namespace_from_json(const json_t *levels, char **out,
                                                      struct basalt_error *err);
/* A table name: not empty, no '.'. INVALID_ARG. */
basalt_status basalt_catalog_rest_check_name(const char *name, struct basalt_error *err);
/* "ns.name" from a TableIdentifier object. INVALID_ARG, NOMEM. */
basalt_status basalt_catalog_rest_identifier_from_json(const json_t *ident, char **out,
                                                       struct basalt_error *err);
/* JSON forms of a dotted namespace (its first `len` bytes: an array of
 * levels) and of an identifier "ns.name" ({namespace, name}); NULL on
 * NOMEM. */
json_t *basalt_catalog_rest_namespace_json(const char *dotted, size_t len);
json_t *basalt_catalog_rest_identifier_json(const char *identifier);
/* "ns.name", basalt_malloc'd (NULL on NOMEM). */
char *basalt_catalog_rest_join(const char *ns, const char *name);

/* ------------------------------------------------------------ lookups */

/* Whether namespace `ns` exists; when it does not, or the lookup fails, the
 * call is answered (404 NoSuchNamespaceException, or the failure). */
bool basalt_catalog_rest_require_namespace(struct basalt_catalog_rest_call *call,
                                           const char *ns);
/* Whether table `identifier` exists into *exists (*location, may be NULL,
 * receives its metadata location); false when the lookup failed and the
 * call was answered. */
bool basalt_catalog_rest_find_table(struct basalt_catalog_rest_call *call, const char *identifier,
                                    bool *exists, char **location);

/* ------------------------------------------------------------ tables */

/* The LoadTableResult of a table: metadata-location, metadata (only the
 * snapshots its refs name when `refs_only`), config. */
basalt_status basalt_catalog_rest_table_result(const struct basalt_iceberg_table *t,
                                               bool refs_only, json_t **out,
                                               struct basalt_error *err);
/* Answers 200 with the LoadTableResult of `t` and its ETag. */
void basalt_catalog_rest_reply_table(struct basalt_catalog_rest_call *call,
                                     const struct basalt_iceberg_table *t, bool refs_only);
/* The ETag of a table's metadata as loaded: a hash of its location (each
 * commit writes a new file) and of the snapshot selection. */
void basalt_catalog_rest_etag(const char *metadata_location, bool refs_only, char out[72]);

/* --------------------------------------------------------- operations */

void basalt_catalog_rest_op_list_namespaces(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_create_namespace(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_load_namespace(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_namespace_exists(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_drop_namespace(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_update_properties(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_list_tables(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_create_table(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_load_table(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_table_exists(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_drop_table(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_register_table(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_rename_table(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_report_metrics(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_update_table(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_commit_transaction(struct basalt_catalog_rest_call *call);
/* rest_server_views.c */
void basalt_catalog_rest_op_list_views(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_create_view(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_load_view(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_replace_view(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_view_exists(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_drop_view(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_rename_view(struct basalt_catalog_rest_call *call);
void basalt_catalog_rest_op_register_view(struct basalt_catalog_rest_call *call);

/* Lists answered a page at a time: the sorted `items[0, n)` after the
 * request's pageToken (the last item of the previous page), at most
 * pageSize of them, with next-page-token set in `body` when a pageToken was
 * given. `to_json` makes one item. Answers the request (200, or 400 for a
 * bad pageSize). */
void basalt_catalog_rest_reply_page(struct basalt_catalog_rest_call *call, char **items,
                                    size_t n, const char *member,
                                    json_t *(*to_json)(const char *item));

/* ------------------------------------------------- the SQL database */

/* A second connection to a SQL catalog's database, for what catalog.h does
 * not do: namespace properties, dropping namespaces, renaming tables,
 * committing several tables in one transaction. UNSUPPORTED for other
 * catalog kinds. */
basalt_status basalt_catalog_rest_sql_open(const char *catalog_uri, struct basalt_catalog *c,
                                           struct basalt_catalog_rest_sql **out,
                                           struct basalt_error *err);
void basalt_catalog_rest_sql_close(struct basalt_catalog_rest_sql *sql);
/* The connection of the call's slot; UNSUPPORTED for other kinds. */
basalt_status basalt_catalog_rest_slot_sql(struct basalt_catalog_rest_call *call,
                                           struct basalt_catalog_rest_sql **out,
                                           struct basalt_error *err);

/* The stored properties of namespace `ns` into the object `out`, without
 * the ("exists", "true") row that only marks a namespace as created. */
basalt_status basalt_catalog_rest_sql_properties(struct basalt_catalog_rest_sql *sql,
                                                 const char *catalog, const char *ns,
                                                 json_t *out, struct basalt_error *err);
/* Creates namespace `ns` with `props` (an object of strings, not empty) in
 * one transaction; CONFLICT when it exists. */
basalt_status basalt_catalog_rest_sql_create_namespace(struct basalt_catalog_rest_sql *sql,
                                                       const char *catalog, const char *ns,
                                                       json_t *props,
                                                       struct basalt_error *err);
/* Removes `removals` (array of strings) and sets `updates` (object of
 * strings) in one transaction; the keys go into the arrays `updated`,
 * `removed` and `missing`. The namespace keeps its ("exists", "true") row
 * when no property is left, so it does not vanish. */
basalt_status basalt_catalog_rest_sql_update_properties(
    struct basalt_catalog_rest_sql *sql, const char *catalog, const char *ns,
    const json_t *removals, json_t *updates, json_t *updated, json_t *removed,
    json_t *missing, struct basalt_error *err);
/* Drops an existing namespace: CONFLICT when a table or view is in it or
 * under it, or a namespace is under it. */
basalt_status basalt_catalog_rest_sql_drop_namespace(struct basalt_catalog_rest_sql *sql,
                                                     const char *catalog, const char *ns,
                                                     struct basalt_error *err);
/* Renames a table's row: NOT_FOUND when there is no such table, CONFLICT
 * when the new identifier is taken. */
basalt_status basalt_catalog_rest_sql_rename(struct basalt_catalog_rest_sql *sql,
                                             const char *catalog, const char *from_ns,
                                             const char *from_name, const char *to_ns,
                                             const char *to_name, struct basalt_error *err);

/* One table's pointer swap of a multi-table commit. */
struct basalt_catalog_rest_swap {
    const char *ns;
    const char *name;
    const char *expected; /* the metadata location the change was built on */
    const char *location; /* the new metadata file */
};
/* Swaps every table's pointer in one transaction, each only if it still
 * names `expected`: all or none. CONFLICT (rolled back) when one moved;
 * UNKNOWN_OUTCOME when the COMMIT itself failed (its outcome is then not
 * known). */
basalt_status basalt_catalog_rest_sql_swap_all(struct basalt_catalog_rest_sql *sql,
                                               const char *catalog,
                                               const struct basalt_catalog_rest_swap *swaps,
                                               size_t n,
                                               struct basalt_error *err);

#endif
