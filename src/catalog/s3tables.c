/* Amazon S3 Tables as an Iceberg catalog, over its control-plane REST API
 * (SigV4 service "s3tables"): a table bucket (named by its ARN) holds
 * one-level namespaces and tables. The service chooses where a table lives
 * (its warehouseLocation, an S3 bucket of its own) and keeps a version
 * token: UpdateTableMetadataLocation succeeds only with the current one,
 * which makes it the compare-and-swap of commits. */
#include <stdio.h>
#include <string.h>

#include "aws_internal.h"
#include "catalog_internal.h"

struct basalt_catalog_s3tables {
    struct basalt_aws_client aws;
    char *arn;
    char *arn_encoded; /* as it goes into paths */
};

bool basalt_catalog_s3tables_uri(const char *uri)
{
    return strncmp(uri, "s3tables://", 11) == 0;
}

basalt_status basalt_catalog_s3tables_open(const char *uri,
                                           struct basalt_catalog_s3tables **out,
                                           struct basalt_error *err)
{
    *out = NULL;
    const char *arn = uri + 11;
    /* arn:PARTITION:s3tables:REGION:ACCOUNT:bucket/NAME */
    char region[64] = "";
    const char *p = arn;
    int colons = 0;
    for (; *p && colons < 3; p++)
        colons += *p == ':';
    size_t rn = strcspn(p, ":");
    if (strncmp(arn, "arn:", 4) != 0 || colons < 3 || !strstr(arn, ":s3tables:") ||
        !strstr(arn, ":bucket/") || rn == 0 || rn >= sizeof region)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "catalog URI '%.200s' is not s3tables://<table bucket ARN> "
                                "(arn:aws:s3tables:REGION:ACCOUNT:bucket/NAME)",
                                uri);
    memcpy(region, p, rn);
    region[rn] = '\0';
    struct basalt_catalog_s3tables *s = basalt_calloc(1, sizeof *s);
    if (!s)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st =
        basalt_aws_client_init(&s->aws, "s3tables", "AWS_ENDPOINT_URL_S3TABLES", region, err);
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    if (st == BASALT_OK && !(s->arn = basalt_strdup(arn)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = basalt_aws_append_encoded(&b, arn, strlen(arn), err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&b, "", 1, err);
    if (st == BASALT_OK)
        s->arn_encoded = (char *)basalt_buffer_take(&b);
    basalt_buffer_reset(&b);
    if (st != BASALT_OK) {
        basalt_catalog_s3tables_close(s);
        return st;
    }
    *out = s;
    return BASALT_OK;
}

void basalt_catalog_s3tables_close(struct basalt_catalog_s3tables *s)
{
    if (!s)
        return;
    basalt_aws_client_reset(&s->aws);
    basalt_free(s->arn);
    basalt_free(s->arn_encoded);
    basalt_free(s);
}

void basalt_catalog_s3tables_set_store(struct basalt_catalog_s3tables *s,
                                       struct basalt_io_store *store)
{
    basalt_aws_client_set_store(&s->aws, store);
}

/* "/<head>/<ARN>[/<ns>[/<name>[/<tail>]]][?<query>=<value>...]" with every
 * part percent-encoded. Query pairs: NULL-terminated name, value, ... */
static basalt_status path_of(const struct basalt_catalog_s3tables *s, const char *head,
                             const char *ns, const char *name, const char *tail,
                             const char *const *query, char **out, struct basalt_error *err)
{
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    basalt_status st = basalt_buffer_append(&b, "/", 1, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&b, head, strlen(head), err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&b, "/", 1, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&b, s->arn_encoded, strlen(s->arn_encoded), err);
    const char *parts[] = {ns, name};
    for (int i = 0; i < 2 && parts[i] && st == BASALT_OK; i++) {
        st = basalt_buffer_append(&b, "/", 1, err);
        if (st == BASALT_OK)
            st = basalt_aws_append_encoded(&b, parts[i], strlen(parts[i]), err);
    }
    if (st == BASALT_OK && tail) {
        st = basalt_buffer_append(&b, "/", 1, err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&b, tail, strlen(tail), err);
    }
    const char *sep = "?";
    for (size_t i = 0; query && query[i] && st == BASALT_OK; i += 2) {
        if (!query[i + 1])
            continue;
        st = basalt_buffer_append(&b, sep, 1, err);
        sep = "&";
        if (st == BASALT_OK)
            st = basalt_buffer_append(&b, query[i], strlen(query[i]), err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&b, "=", 1, err);
        if (st == BASALT_OK)
            st = basalt_aws_append_encoded(&b, query[i + 1], strlen(query[i + 1]), err);
    }
    if (st == BASALT_OK)
        st = basalt_buffer_append(&b, "", 1, err);
    if (st != BASALT_OK) {
        basalt_buffer_reset(&b);
        return st;
    }
    *out = (char *)basalt_buffer_take(&b);
    return BASALT_OK;
}

static basalt_status call(struct basalt_catalog_s3tables *s, const char *method, char *path,
                          json_t *body, enum basalt_aws_op op, const char *what, json_t **out,
                          struct basalt_aws_answer *answer, struct basalt_error *err)
{
    struct basalt_aws_call c = {
        .method = method,
        .path = path,
        .content_type = body ? "application/json" : NULL,
        .body = body,
        .op = op,
        .what = what,
    };
    basalt_status st = basalt_aws_call(&s->aws, &c, out, answer, err);
    json_decref(body);
    basalt_free(path);
    return st;
}

/* Path, body and call in one: NOMEM when the path or body could not be made. */
#define CALL(s, method, path_st, path, body, op, what, out, answer, err)                    \
    ((path_st) != BASALT_OK ? (json_decref(body), basalt_free(path), (path_st))              \
                            : call((s), (method), (path), (body), (op), (what), (out),       \
                                   (answer), (err)))

static basalt_status one_level(const char *ns, struct basalt_error *err)
{
    if (strchr(ns, '.'))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "namespace '%.200s': S3 Tables namespaces have one level", ns);
    return BASALT_OK;
}

basalt_status basalt_catalog_s3tables_namespace_exists(struct basalt_catalog_s3tables *s,
                                                       const char *ns, bool *exists,
                                                       struct basalt_error *err)
{
    *exists = false;
    if (strchr(ns, '.'))
        return BASALT_OK;
    char *path = NULL;
    basalt_status pst = path_of(s, "namespaces", ns, NULL, NULL, NULL, &path, err);
    struct basalt_error probe;
    basalt_error_init(&probe);
    if (pst != BASALT_OK)
        return pst;
    basalt_status st = CALL(s, "GET", pst, path, NULL, BASALT_AWS_OP_READ, "GetNamespace", NULL,
                            NULL, &probe);
    if (st == BASALT_OK)
        *exists = true;
    else if (st == BASALT_NOT_FOUND)
        st = BASALT_OK;
    else if (err)
        *err = probe;
    return st;
}

/* Every page of a listing: the names under `array` (member `member`, or
 * its first element when it is an array) prefixed with `prefix`. */
static basalt_status list_all(struct basalt_catalog_s3tables *s, const char *head,
                              const char *what, const char *ns, const char *array,
                              const char *member, struct basalt_string_list *out,
                              struct basalt_error *err)
{
    char *token = NULL;
    basalt_status st = BASALT_OK;
    do {
        const char *query[] = {"continuationToken", token, "namespace", ns, NULL};
        char *path = NULL;
        json_t *res = NULL;
        basalt_status pst = path_of(s, head, NULL, NULL, NULL, query, &path, err);
        basalt_free(token);
        token = NULL;
        st = CALL(s, "GET", pst, path, NULL, BASALT_AWS_OP_READ, what, &res, NULL, err);
        size_t i;
        const json_t *e;
        json_array_foreach(json_object_get(res, array), i, e)
        {
            const json_t *v = json_object_get(e, member);
            const char *name = json_string_value(json_is_array(v) ? json_array_get(v, 0) : v);
            if (st != BASALT_OK || !name)
                continue;
            char id[1024];
            int w = snprintf(id, sizeof id, "%s%s%s", ns ? ns : "", ns ? "." : "", name);
            st = w < 0 || (size_t)w >= sizeof id
                     ? basalt_error_set(err, BASALT_LIMIT, "name too long")
                     : basalt_string_list_add(out, id, (size_t)w, err);
        }
        const char *next = json_string_value(json_object_get(res, "continuationToken"));
        if (st == BASALT_OK && next && *next && !(token = basalt_strdup(next)))
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        json_decref(res);
    } while (st == BASALT_OK && token);
    basalt_free(token);
    return st;
}

basalt_status basalt_catalog_s3tables_list_namespaces(struct basalt_catalog_s3tables *s,
                                                      const char *parent,
                                                      struct basalt_string_list *out,
                                                      struct basalt_error *err)
{
    if (parent)
        return BASALT_OK;
    return list_all(s, "namespaces", "ListNamespaces", NULL, "namespaces", "namespace", out,
                    err);
}

basalt_status basalt_catalog_s3tables_list_tables(struct basalt_catalog_s3tables *s,
                                                  const char *ns,
                                                  struct basalt_string_list *out,
                                                  struct basalt_error *err)
{
    basalt_status st = one_level(ns, err);
    if (st == BASALT_OK)
        st = list_all(s, "tables", "ListTables", ns, "tables", "name", out, err);
    return st;
}

basalt_status basalt_catalog_s3tables_create_namespace(struct basalt_catalog_s3tables *s,
                                                       const char *ns,
                                                       struct basalt_error *err)
{
    basalt_status st = one_level(ns, err);
    if (st != BASALT_OK)
        return st;
    char *path = NULL;
    basalt_status pst = path_of(s, "namespaces", NULL, NULL, NULL, NULL, &path, err);
    json_t *body = json_pack("{s:[s]}", "namespace", ns);
    if (pst == BASALT_OK && !body)
        pst = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    return CALL(s, "PUT", pst, path, body, BASALT_AWS_OP_WRITE, "CreateNamespace", NULL, NULL,
                err);
}

/* GetTableMetadataLocation: the answer, owned by the caller. */
static basalt_status get_location(struct basalt_catalog_s3tables *s, const char *ns,
                                  const char *name, json_t **res, struct basalt_error *err)
{
    char *path = NULL;
    basalt_status st = one_level(ns, err);
    if (st != BASALT_OK)
        return st;
    basalt_status pst = path_of(s, "tables", ns, name, "metadata-location", NULL, &path, err);
    return CALL(s, "GET", pst, path, NULL, BASALT_AWS_OP_READ, "GetTableMetadataLocation", res,
                NULL, err);
}

basalt_status basalt_catalog_s3tables_table_location(struct basalt_catalog_s3tables *s,
                                                     const char *ns, const char *name,
                                                     char **out, struct basalt_error *err)
{
    json_t *res = NULL;
    *out = NULL;
    basalt_status st = get_location(s, ns, name, &res, err);
    const char *loc = json_string_value(json_object_get(res, "metadataLocation"));
    if (st == BASALT_OK && (!loc || !*loc))
        st = basalt_error_set(err, BASALT_NOT_FOUND, "%.200s.%.200s has no metadata yet", ns,
                              name);
    if (st == BASALT_OK && !(*out = basalt_strdup(loc)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    json_decref(res);
    return st;
}

basalt_status basalt_catalog_s3tables_default_location(struct basalt_catalog_s3tables *s,
                                                       const char *ns, const char *name,
                                                       char **out, struct basalt_error *err)
{
    size_t len = strlen(s->arn) + strlen(ns) + strlen(name) + 16;
    *out = basalt_malloc(len);
    if (!*out)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    snprintf(*out, len, "s3tables://%s/%s/%s", s->arn, ns, name);
    return BASALT_OK;
}

basalt_status basalt_catalog_s3tables_create_entry(struct basalt_catalog_s3tables *s,
                                                   const char *ns, const char *name,
                                                   char **warehouse, char **token,
                                                   struct basalt_error *err)
{
    *warehouse = *token = NULL;
    basalt_status st = one_level(ns, err);
    if (st != BASALT_OK)
        return st;
    char *path = NULL;
    json_t *res = NULL;
    basalt_status pst = path_of(s, "tables", ns, NULL, NULL, NULL, &path, err);
    json_t *body = json_pack("{s:s,s:s}", "name", name, "format", "ICEBERG");
    if (pst == BASALT_OK && !body)
        pst = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    st = CALL(s, "PUT", pst, path, body, BASALT_AWS_OP_WRITE, "CreateTable", NULL, NULL, err);
    if (st == BASALT_CONFLICT)
        return basalt_error_context(err, st, "table '%.200s.%.200s' already exists", ns, name);
    /* CreateTable answers the ARN and token; the location comes from here. */
    if (st == BASALT_OK)
        st = get_location(s, ns, name, &res, err);
    const char *wh = json_string_value(json_object_get(res, "warehouseLocation"));
    const char *tok = json_string_value(json_object_get(res, "versionToken"));
    if (st == BASALT_OK && (!wh || !tok))
        st = basalt_error_set(err, BASALT_CORRUPT,
                              "GetTableMetadataLocation %.200s.%.200s: no warehouseLocation or "
                              "versionToken",
                              ns, name);
    if (st == BASALT_OK && (!(*warehouse = basalt_strdup(wh)) || !(*token = basalt_strdup(tok))))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    json_decref(res);
    if (st != BASALT_OK) {
        basalt_free(*warehouse);
        basalt_free(*token);
        *warehouse = *token = NULL;
    }
    return st;
}

basalt_status basalt_catalog_s3tables_swap(struct basalt_catalog_s3tables *s, const char *ns,
                                           const char *name, const char *token,
                                           const char *expected, const char *location,
                                           struct basalt_error *err)
{
    json_t *res = NULL;
    basalt_status st = BASALT_OK;
    if (!token) {
        st = get_location(s, ns, name, &res, err);
        const char *current = json_string_value(json_object_get(res, "metadataLocation"));
        token = json_string_value(json_object_get(res, "versionToken"));
        if (st == BASALT_OK && (!current || !expected || strcmp(current, expected) != 0))
            st = basalt_error_set(err, BASALT_CONFLICT,
                                  "%.200s.%.200s was committed by another writer (now at %.300s)",
                                  ns, name, current ? current : "nothing");
        if (st == BASALT_OK && !token)
            st = basalt_error_set(err, BASALT_CORRUPT,
                                  "GetTableMetadataLocation %.200s.%.200s: no versionToken", ns,
                                  name);
    }
    if (st == BASALT_OK) {
        char *path = NULL;
        basalt_status pst =
            path_of(s, "tables", ns, name, "metadata-location", NULL, &path, err);
        json_t *body =
            json_pack("{s:s,s:s}", "versionToken", token, "metadataLocation", location);
        if (pst == BASALT_OK && !body)
            pst = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        st = CALL(s, "PUT", pst, path, body, BASALT_AWS_OP_COMMIT, "UpdateTableMetadataLocation",
                  NULL, NULL, err);
    }
    json_decref(res);
    return st;
}

basalt_status basalt_catalog_s3tables_drop(struct basalt_catalog_s3tables *s, const char *ns,
                                           const char *name, struct basalt_error *err)
{
    basalt_status st = one_level(ns, err);
    if (st != BASALT_OK)
        return st;
    char *path = NULL;
    basalt_status pst = path_of(s, "tables", ns, name, NULL, NULL, &path, err);
    return CALL(s, "DELETE", pst, path, NULL, BASALT_AWS_OP_WRITE, "DeleteTable", NULL, NULL,
                err);
}
