/* Shared pieces of the REST server tests (rest_server_*.c): a handler over
 * a temporary catalog, requests through the sans-IO entry point, and the
 * checks every response gets. */
#ifndef BASALT_TEST_REST_SERVER_FIXTURE_H
#define BASALT_TEST_REST_SERVER_FIXTURE_H

#include <jansson.h>

#include "basalt/catalog.h"

struct rs_fixture {
    char dir[64];
    char uri[512];
    struct basalt_catalog_rest_handler *h;
    struct basalt_error err;
};

/* Options of a fixture; zero fields take the handler's defaults. */
struct rs_config {
    bool filesystem; /* a file-system catalog instead of SQLite */
    /* Another catalog (PostgreSQL): new tables then go into the temporary
     * directory, under a catalog_name of their own. */
    const char *uri;
    const char *token;
    const char *prefix;
    size_t max_body;
    unsigned threads;
};

/* A temporary directory with a catalog in it (or config->uri's, with the
 * tables in the directory), and a handler over it. */
bool rs_open(struct rs_fixture *f, const struct rs_config *config);
/* The PostgreSQL URI of BASALT_TEST_POSTGRES_URI, or NULL after printing
 * that the test is skipped. */
const char *rs_postgres_uri(void);
/* Frees the handler and removes the directory. */
void rs_close(struct rs_fixture *f);

/* One request: `path` under /v1/ as sent ("namespaces/db"), `query` raw
 * (NULL: none), `body` JSON text (NULL: none), `headers` (may be NULL)
 * "Name: value" strings ending with NULL. Returns the status; *out (may be
 * NULL) receives the body parsed (NULL when there is none), and *resp (may
 * be NULL) the whole response, which the caller then resets. Every
 * response is checked to be well formed: JSON or no body, an error body of
 * exactly {"error": {"message", "type", "code" = status}} for a status of
 * 400 or more; a malformed one fails the call with status -1. */
int rs_call(struct rs_fixture *f, const char *method, const char *path, const char *query,
            const char *body, const char *const *headers, json_t **out,
            struct basalt_catalog_rest_response *resp);
/* Shorthands: no query, no headers, body parsed into *out (may be NULL). */
int rs_get(struct rs_fixture *f, const char *path, json_t **out);
int rs_post(struct rs_fixture *f, const char *path, const char *body, json_t **out);

/* Whether `body` is an error of this status and Java exception type. */
bool rs_is_error(const json_t *body, int status, const char *type);
/* A response header's value, or NULL. */
const char *rs_header(const struct basalt_catalog_rest_response *resp, const char *name);

/* Creates namespace `ns` (a JSON array text, e.g. "[\"db\"]") and table
 * `name` with columns id long, v string (ids 1, 2) through the handler;
 * false when either is not 200. */
bool rs_create_namespace(struct rs_fixture *f, const char *ns_json);
bool rs_create_table(struct rs_fixture *f, const char *ns_path, const char *name);
/* The JSON text of an append of snapshot `snapshot_id` on branch main: the
 * requirements expect `uuid` and main at `parent` (-1: main must not
 * exist). */
char *rs_append_commit(const char *uuid, int64_t parent, int64_t snapshot_id, int64_t sequence);
/* A member of a loaded table's metadata, from a LoadTableResult body. */
json_t *rs_metadata(const json_t *result, const char *key);
/* The number of files in `dir` (not recursive). */
int rs_count_files(const char *dir);

#endif
