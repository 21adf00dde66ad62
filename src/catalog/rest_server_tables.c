/* Table routes that read or remove: list, load (with ETags and the
 * snapshot selection), exists, drop, and the metrics reports. Creating is
 * in rest_server_create.c, register and rename in rest_server_register.c,
 * commits in rest_server_commit.c. */
#include <stdio.h>
#include <string.h>

#include "basalt/hash.h"
#include "rest_server_internal.h"

static const struct basalt_catalog_rest_errors table_errors = {
    "NoSuchTableException", "AlreadyExistsException", false};

static json_t *identifier_item(const char *identifier)
{
    return basalt_catalog_rest_identifier_json(identifier);
}

bool basalt_catalog_rest_find_table(struct basalt_catalog_rest_call *call, const char *identifier,
                                    bool *exists, char **location)
{
    struct basalt_error err;
    basalt_error_init(&err);
    char *loc = NULL;
    basalt_status st = basalt_catalog_table_location(call->catalog, identifier, &loc, &err);
    *exists = st == BASALT_OK;
    if (location)
        *location = loc;
    else
        basalt_free(loc);
    if (st != BASALT_OK && st != BASALT_NOT_FOUND) {
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
        return false;
    }
    return true;
}

void basalt_catalog_rest_op_list_tables(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    char **list = NULL;
    size_t n = 0;
    basalt_status st = basalt_catalog_list_tables(call->catalog, call->ns, &list, &n, &err);
    if (st == BASALT_OK)
        basalt_catalog_rest_reply_page(call, list, n, "identifiers", identifier_item);
    else if (st == BASALT_NOT_FOUND)
        basalt_catalog_rest_error(call->resp, 404, "NoSuchNamespaceException",
                                  "Namespace does not exist: %.300s", call->ns);
    else
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
    basalt_string_list_free(list, n);
}

void basalt_catalog_rest_etag(const char *metadata_location, bool refs_only, char out[72])
{
    out[0] = '\0';
    size_t n = strlen(metadata_location);
    char *text = basalt_malloc(n + 6);
    if (!text)
        return;
    memcpy(text, metadata_location, n);
    strcpy(text + n, refs_only ? "|refs" : "|all");
    uint8_t digest[BASALT_HASH_SHA256_SIZE];
    if (basalt_hash_sha256(text, strlen(text), digest) == BASALT_OK) {
        char hex[2 * BASALT_HASH_SHA256_SIZE + 1];
        basalt_hash_hex(digest, 16, hex);
        snprintf(out, 72, "\"%s\"", hex);
    }
    basalt_free(text);
}

/* Keeps only the snapshots that a ref names ("snapshots=refs"). */
static void keep_ref_snapshots(json_t *metadata)
{
    json_t *refs = json_object_get(metadata, "refs");
    json_t *snapshots = json_object_get(metadata, "snapshots");
    for (size_t i = json_array_size(snapshots); i-- > 0;) {
        json_t *id = json_object_get(json_array_get(snapshots, i), "snapshot-id");
        bool named = false;
        const char *key;
        json_t *ref;
        json_object_foreach(refs, key, ref)
        {
            if (json_equal(json_object_get(ref, "snapshot-id"), id))
                named = true;
        }
        if (!named)
            json_array_remove(snapshots, i);
    }
}

basalt_status basalt_catalog_rest_table_result(const struct basalt_iceberg_table *t,
                                               bool refs_only, json_t **out,
                                               struct basalt_error *err)
{
    *out = NULL;
    char *text = NULL;
    size_t len = 0;
    basalt_status st = basalt_iceberg_metadata_to_json(t->metadata, &text, &len, err);
    if (st != BASALT_OK)
        return st;
    json_t *metadata = json_loadb(text, len, 0, NULL);
    basalt_free(text);
    if (!metadata)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (refs_only)
        keep_ref_snapshots(metadata);
    *out = json_pack("{s:s,s:o,s:{}}", "metadata-location", t->metadata_location, "metadata",
                     metadata, "config");
    return *out ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

void basalt_catalog_rest_reply_table(struct basalt_catalog_rest_call *call,
                                     const struct basalt_iceberg_table *t, bool refs_only)
{
    struct basalt_error err;
    basalt_error_init(&err);
    json_t *result = NULL;
    basalt_status st = basalt_catalog_rest_table_result(t, refs_only, &result, &err);
    if (st != BASALT_OK) {
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
        return;
    }
    char etag[72];
    basalt_catalog_rest_etag(t->metadata_location, refs_only, etag);
    basalt_catalog_rest_reply(call->resp, 200, result);
    if (etag[0] && call->resp->status == 200)
        basalt_catalog_rest_add_header(call->resp, "ETag", etag);
}

void basalt_catalog_rest_op_load_table(struct basalt_catalog_rest_call *call)
{
    struct basalt_error err;
    basalt_error_init(&err);
    char *mode = NULL, *location = NULL;
    basalt_status st = basalt_catalog_rest_query(call->req, "snapshots", &mode, &err);
    bool refs_only = mode && strcmp(mode, "refs") == 0;
    if (st == BASALT_OK && mode && !refs_only && strcmp(mode, "all") != 0)
        st = basalt_error_set(&err, BASALT_INVALID_ARG, "snapshots='%.40s' is not all or refs",
                              mode);
    basalt_free(mode);
    if (st == BASALT_OK)
        st = basalt_catalog_table_location(call->catalog, call->identifier, &location, &err);
    if (st != BASALT_OK) {
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
        return;
    }
    /* The ETag names the metadata file, so a client's copy is current
     * exactly when the stored location still is: no need to read it. */
    char etag[72];
    basalt_catalog_rest_etag(location, refs_only, etag);
    const char *match = basalt_catalog_rest_header(call->req, "If-None-Match");
    struct basalt_iceberg_table *t = NULL;
    if (etag[0] && match && (strstr(match, etag) || strcmp(match, "*") == 0)) {
        call->resp->status = 304;
        basalt_catalog_rest_add_header(call->resp, "ETag", etag);
    } else if ((st = basalt_catalog_load_location(call->catalog, call->identifier, location, &t,
                                                  &err)) == BASALT_OK) {
        basalt_catalog_rest_reply_table(call, t, refs_only);
    } else {
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
    }
    basalt_iceberg_table_free(t);
    basalt_free(location);
}

void basalt_catalog_rest_op_table_exists(struct basalt_catalog_rest_call *call)
{
    bool exists = false;
    if (!basalt_catalog_rest_find_table(call, call->identifier, &exists, NULL))
        return;
    if (exists)
        basalt_catalog_rest_no_content(call->resp);
    else
        basalt_catalog_rest_error(call->resp, 404, "NoSuchTableException",
                                  "Table does not exist: %.300s", call->identifier);
}

void basalt_catalog_rest_op_drop_table(struct basalt_catalog_rest_call *call)
{
    /* purgeRequested is not honoured: the catalog drops the row and keeps
     * the files, which the spec allows ("whether the user requested"). */
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = basalt_catalog_drop_table(call->catalog, call->identifier, &err);
    if (st == BASALT_NOT_FOUND)
        basalt_catalog_rest_error(call->resp, 404, "NoSuchTableException",
                                  "Table does not exist: %.300s", call->identifier);
    else if (st != BASALT_OK)
        basalt_catalog_rest_fail(call->resp, st, &err, &table_errors);
    else
        basalt_catalog_rest_no_content(call->resp);
}

void basalt_catalog_rest_op_report_metrics(struct basalt_catalog_rest_call *call)
{
    /* Reports are accepted and dropped: nothing here keeps metrics. */
    if (!json_is_string(json_object_get(call->body, "report-type"))) {
        basalt_catalog_rest_error(call->resp, 400, "BadRequestException",
                                  "a metrics report needs a 'report-type'");
        return;
    }
    bool exists = false;
    if (!basalt_catalog_rest_find_table(call, call->identifier, &exists, NULL))
        return;
    if (!exists)
        basalt_catalog_rest_error(call->resp, 404, "NoSuchTableException",
                                  "Table does not exist: %.300s", call->identifier);
    else
        basalt_catalog_rest_no_content(call->resp);
}
