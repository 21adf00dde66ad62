/* The REST server tests' fixture: see rest_server_fixture.h. */
#include "rest_server_fixture.h"

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

bool rs_open(struct rs_fixture *f, const struct rs_config *config)
{
    static const struct rs_config defaults = {0};
    if (!config)
        config = &defaults;
    memset(f, 0, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/basalt-rest-XXXXXX");
    if (!mkdtemp(f->dir))
        return false;
    if (config->uri)
        snprintf(f->uri, sizeof f->uri, "%s", config->uri);
    else if (config->filesystem)
        snprintf(f->uri, sizeof f->uri, "%s/warehouse", f->dir);
    else
        snprintf(f->uri, sizeof f->uri, "sqlite:%s/catalog.db", f->dir);
    struct basalt_catalog_rest_server_options o;
    basalt_catalog_rest_server_options_init(&o);
    o.catalog_uri = f->uri;
    /* A shared database: a catalog of this fixture's own, tables here. */
    char name[96];
    if (config->uri) {
        snprintf(name, sizeof name, "rest%s", strrchr(f->dir, '-'));
        o.catalog_name = name;
        o.warehouse = f->dir;
    }
    o.token = config->token;
    o.prefix = config->prefix;
    if (config->max_body)
        o.max_body_bytes = config->max_body;
    if (config->threads)
        o.threads = config->threads;
    if (basalt_catalog_rest_handler_new(&o, &f->h, &f->err) != BASALT_OK) {
        fprintf(stderr, "  handler: %s\n", f->err.message);
        return false;
    }
    return true;
}

const char *rs_postgres_uri(void)
{
    const char *uri = getenv("BASALT_TEST_POSTGRES_URI");
    if (!uri || !*uri) {
        printf("  skipped: BASALT_TEST_POSTGRES_URI is not set\n");
        return NULL;
    }
    return uri;
}

void rs_close(struct rs_fixture *f)
{
    basalt_catalog_rest_handler_free(f->h);
    f->h = NULL;
    if (f->dir[0])
        nftw(f->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

bool rs_is_error(const json_t *body, int status, const char *type)
{
    const json_t *e = json_object_get(body, "error");
    return json_object_size(body) == 1 && json_is_object(e) &&
           json_integer_value(json_object_get(e, "code")) == status &&
           json_is_string(json_object_get(e, "message")) &&
           json_is_string(json_object_get(e, "type")) &&
           strcmp(json_string_value(json_object_get(e, "type")), type) == 0;
}

const char *rs_header(const struct basalt_catalog_rest_response *resp, const char *name)
{
    for (uint32_t i = 0; i < resp->n_headers; i++)
        if (strcasecmp(resp->headers[i].name, name) == 0)
            return resp->headers[i].value;
    return NULL;
}

/* The error model, exactly: nothing beside "error", and inside it the
 * three required members (and nothing unknown). */
static bool well_formed_error(const json_t *body, int status)
{
    json_t *e = json_object_get(body, "error");
    if (json_object_size(body) != 1 || !json_is_object(e))
        return false;
    const char *key;
    json_t *v;
    json_object_foreach(e, key, v)
    {
        if (strcmp(key, "message") && strcmp(key, "type") && strcmp(key, "code") &&
            strcmp(key, "stack"))
            return false;
    }
    return json_is_string(json_object_get(e, "message")) &&
           json_is_string(json_object_get(e, "type")) &&
           json_integer_value(json_object_get(e, "code")) == status;
}

int rs_call(struct rs_fixture *f, const char *method, const char *path, const char *query,
            const char *body, const char *const *headers, json_t **out,
            struct basalt_catalog_rest_response *resp)
{
    char full[1024];
    snprintf(full, sizeof full, "/v1/%s", path);
    struct basalt_iceberg_kv kv[8];
    char names[8][64];
    uint32_t n = 0;
    for (; headers && headers[n] && n < 8; n++) {
        const char *colon = strchr(headers[n], ':');
        size_t len = colon ? (size_t)(colon - headers[n]) : strlen(headers[n]);
        snprintf(names[n], sizeof names[n], "%.*s", (int)len, headers[n]);
        kv[n].key = names[n];
        kv[n].value = colon ? colon + 1 + (colon[1] == ' ') : "";
    }
    struct basalt_catalog_rest_request req = {
        .method = method,
        .path = full,
        .query = query,
        .headers = kv,
        .n_headers = n,
        .body = body,
        .body_len = body ? strlen(body) : 0,
    };
    struct basalt_catalog_rest_response r;
    basalt_catalog_rest_handle(f->h, &req, &r);
    int status = r.status;
    json_t *parsed = NULL;
    if (r.body) {
        json_error_t jerr;
        parsed = json_loadb(r.body, r.body_len, 0, &jerr);
        if (!parsed) {
            fprintf(stderr, "  %s %s: %d with a body that is not JSON: %.200s\n", method, path,
                    status, r.body);
            status = -1;
        }
    }
    /* Only a 500 may come without a body: when even the error could not
     * be allocated. */
    bool bare_500 = status == 500 && !r.body;
    if (status >= 400 && !bare_500 && !well_formed_error(parsed, status)) {
        fprintf(stderr, "  %s %s: %d without the error model: %.300s\n", method, path, r.status,
                r.body ? r.body : "(no body)");
        status = -1;
    }
    if ((status == 204 || status == 304) && r.body) {
        fprintf(stderr, "  %s %s: %d with a body\n", method, path, status);
        status = -1;
    }
    if (out)
        *out = parsed;
    else
        json_decref(parsed);
    if (resp)
        *resp = r;
    else
        basalt_catalog_rest_response_reset(&r);
    return status;
}

int rs_get(struct rs_fixture *f, const char *path, json_t **out)
{
    return rs_call(f, "GET", path, NULL, NULL, NULL, out, NULL);
}

int rs_post(struct rs_fixture *f, const char *path, const char *body, json_t **out)
{
    return rs_call(f, "POST", path, NULL, body, NULL, out, NULL);
}

bool rs_create_namespace(struct rs_fixture *f, const char *ns_json)
{
    char body[256];
    snprintf(body, sizeof body, "{\"namespace\": %s}", ns_json);
    return rs_post(f, "namespaces", body, NULL) == 200;
}

bool rs_create_table(struct rs_fixture *f, const char *ns_path, const char *name)
{
    char path[256], body[512];
    snprintf(path, sizeof path, "namespaces/%s/tables", ns_path);
    snprintf(body, sizeof body,
             "{\"name\": \"%s\", \"schema\": {\"type\": \"struct\", \"schema-id\": 0, "
             "\"fields\": [{\"id\": 1, \"name\": \"id\", \"type\": \"long\", \"required\": true}, "
             "{\"id\": 2, \"name\": \"v\", \"type\": \"string\", \"required\": false}]}}",
             name);
    return rs_post(f, path, body, NULL) == 200;
}

char *rs_append_commit(const char *uuid, int64_t parent, int64_t snapshot_id, int64_t sequence)
{
    char parent_text[32], parent_member[64] = "";
    if (parent < 0) {
        strcpy(parent_text, "null");
    } else {
        snprintf(parent_text, sizeof parent_text, "%lld", (long long)parent);
        snprintf(parent_member, sizeof parent_member, "\"parent-snapshot-id\": %lld, ",
                 (long long)parent);
    }
    char *text = malloc(2048);
    if (!text)
        return NULL;
    /* What a Java client sends for an append (UpdateRequirements). */
    snprintf(text, 2048,
             "{\"requirements\": [{\"type\": \"assert-table-uuid\", \"uuid\": \"%s\"}, "
             "{\"type\": \"assert-ref-snapshot-id\", \"ref\": \"main\", \"snapshot-id\": %s}], "
             "\"updates\": [{\"action\": \"add-snapshot\", \"snapshot\": {\"snapshot-id\": %lld, "
             "%s\"sequence-number\": %lld, \"timestamp-ms\": 1700000000000, \"manifest-list\": "
             "\"/nowhere/snap-%lld.avro\", \"summary\": {\"operation\": \"append\"}, "
             "\"schema-id\": 0}}, {\"action\": \"set-snapshot-ref\", \"ref-name\": \"main\", "
             "\"type\": \"branch\", \"snapshot-id\": %lld}]}",
             uuid, parent_text, (long long)snapshot_id, parent_member, (long long)sequence,
             (long long)snapshot_id, (long long)snapshot_id);
    return text;
}

json_t *rs_metadata(const json_t *result, const char *key)
{
    return json_object_get(json_object_get(result, "metadata"), key);
}

int rs_count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}
