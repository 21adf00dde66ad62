/* The AWS Glue Data Catalog as an Iceberg catalog, over Glue's JSON 1.1 API
 * (POST / with X-Amz-Target: AWSGlue.<Operation>), laid out as the Java
 * GlueCatalog and PyIceberg lay it out: a database per namespace, a table
 * of TableType EXTERNAL_TABLE whose Parameters hold table_type ICEBERG,
 * metadata_location and previous_metadata_location, the table location in
 * StorageDescriptor.Location and the current schema as Columns. Commits
 * are optimistic: UpdateTable names the VersionId of the GetTable that
 * showed the base metadata, and Glue refuses a stale one. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "aws_internal.h"
#include "catalog_internal.h"

#define GLUE_JSON "application/x-amz-json-1.1"

struct basalt_catalog_glue {
    struct basalt_aws_client aws;
};

bool basalt_catalog_glue_uri(const char *uri)
{
    return strncmp(uri, "glue://", 7) == 0;
}

basalt_status basalt_catalog_glue_open(const char *uri, struct basalt_catalog_glue **out,
                                       struct basalt_error *err)
{
    *out = NULL;
    const char *region = uri + 7;
    size_t n = strcspn(region, "/?");
    if (region[n] && strspn(region + n, "/") != strlen(region + n))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "catalog URI '%.200s' is not glue://[REGION]", uri);
    char reg[64];
    if (n >= sizeof reg)
        return basalt_error_set(err, BASALT_INVALID_ARG, "region in '%.200s' too long", uri);
    memcpy(reg, region, n);
    reg[n] = '\0';
    struct basalt_catalog_glue *g = basalt_calloc(1, sizeof *g);
    if (!g)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = basalt_aws_client_init(&g->aws, "glue", "AWS_ENDPOINT_URL_GLUE", reg, err);
    if (st != BASALT_OK) {
        basalt_free(g);
        return st;
    }
    *out = g;
    return BASALT_OK;
}

void basalt_catalog_glue_close(struct basalt_catalog_glue *g)
{
    if (!g)
        return;
    basalt_aws_client_reset(&g->aws);
    basalt_free(g);
}

void basalt_catalog_glue_set_store(struct basalt_catalog_glue *g, struct basalt_io_store *store)
{
    basalt_aws_client_set_store(&g->aws, store);
}

/* One Glue operation: POST / with the request as JSON (taken: decref'd). */
static basalt_status glue_call(struct basalt_catalog_glue *g, const char *op_name,
                               enum basalt_aws_op op, json_t *request, json_t **out,
                               struct basalt_aws_answer *answer, struct basalt_error *err)
{
    char target[96];
    snprintf(target, sizeof target, "AWSGlue.%s", op_name);
    if (!request)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_aws_call call = {
        .method = "POST",
        .path = "/",
        .target = target,
        .content_type = GLUE_JSON,
        .body = request,
        .op = op,
        .what = op_name,
    };
    basalt_status st = basalt_aws_call(&g->aws, &call, out, answer, err);
    json_decref(request);
    return st;
}

/* A Glue database is one namespace level. */
static basalt_status one_level(const char *ns, struct basalt_error *err)
{
    if (strchr(ns, '.'))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "namespace '%.200s': Glue namespaces have one level", ns);
    return BASALT_OK;
}

static basalt_status get_database(struct basalt_catalog_glue *g, const char *ns, json_t **out,
                                  struct basalt_error *err)
{
    return glue_call(g, "GetDatabase", BASALT_AWS_OP_READ, json_pack("{s:s}", "Name", ns), out,
                     NULL, err);
}

basalt_status basalt_catalog_glue_namespace_exists(struct basalt_catalog_glue *g, const char *ns,
                                                   bool *exists, struct basalt_error *err)
{
    *exists = false;
    if (strchr(ns, '.'))
        return BASALT_OK;
    json_t *db = NULL;
    struct basalt_error probe;
    basalt_error_init(&probe);
    basalt_status st = get_database(g, ns, &db, &probe);
    json_decref(db);
    if (st == BASALT_OK)
        *exists = true;
    else if (st == BASALT_NOT_FOUND)
        st = BASALT_OK;
    else if (err)
        *err = probe;
    return st;
}

basalt_status basalt_catalog_glue_list_namespaces(struct basalt_catalog_glue *g,
                                                  const char *parent,
                                                  struct basalt_string_list *out,
                                                  struct basalt_error *err)
{
    if (parent)
        return BASALT_OK; /* one level: nothing under a database */
    char *token = NULL;
    basalt_status st = BASALT_OK;
    do {
        json_t *req = json_object(), *res = NULL;
        if (req && token)
            json_object_set_new(req, "NextToken", json_string(token));
        basalt_free(token);
        token = NULL;
        st = glue_call(g, "GetDatabases", BASALT_AWS_OP_READ, req, &res, NULL, err);
        size_t i;
        const json_t *db;
        json_array_foreach(json_object_get(res, "DatabaseList"), i, db)
        {
            const char *name = json_string_value(json_object_get(db, "Name"));
            if (st == BASALT_OK && name)
                st = basalt_string_list_add(out, name, strlen(name), err);
        }
        const char *next = json_string_value(json_object_get(res, "NextToken"));
        if (st == BASALT_OK && next && *next && !(token = basalt_strdup(next)))
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        json_decref(res);
    } while (st == BASALT_OK && token);
    basalt_free(token);
    return st;
}

/* Whether a Glue table entry is an Iceberg table (table_type, any case). */
static bool is_iceberg(const json_t *table)
{
    const char *t = json_string_value(
        json_object_get(json_object_get(table, "Parameters"), "table_type"));
    return t && strcasecmp(t, "iceberg") == 0;
}

basalt_status basalt_catalog_glue_list_tables(struct basalt_catalog_glue *g, const char *ns,
                                              struct basalt_string_list *out,
                                              struct basalt_error *err)
{
    basalt_status st = one_level(ns, err);
    char *token = NULL;
    while (st == BASALT_OK) {
        json_t *req = json_pack("{s:s}", "DatabaseName", ns), *res = NULL;
        if (req && token)
            json_object_set_new(req, "NextToken", json_string(token));
        basalt_free(token);
        token = NULL;
        st = glue_call(g, "GetTables", BASALT_AWS_OP_READ, req, &res, NULL, err);
        size_t i;
        const json_t *t;
        json_array_foreach(json_object_get(res, "TableList"), i, t)
        {
            const char *name = json_string_value(json_object_get(t, "Name"));
            if (st == BASALT_OK && name && is_iceberg(t)) {
                size_t len = strlen(ns) + strlen(name) + 2;
                char *id = basalt_malloc(len);
                if (!id) {
                    st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
                    break;
                }
                snprintf(id, len, "%s.%s", ns, name);
                st = basalt_string_list_add(out, id, len - 1, err);
                basalt_free(id);
            }
        }
        const char *next = json_string_value(json_object_get(res, "NextToken"));
        if (st == BASALT_OK && next && *next && !(token = basalt_strdup(next)))
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        json_decref(res);
        if (!token)
            break;
    }
    basalt_free(token);
    return st;
}

basalt_status basalt_catalog_glue_create_namespace(struct basalt_catalog_glue *g, const char *ns,
                                                   struct basalt_error *err)
{
    basalt_status st = one_level(ns, err);
    if (st != BASALT_OK)
        return st;
    return glue_call(g, "CreateDatabase", BASALT_AWS_OP_WRITE,
                     json_pack("{s:{s:s}}", "DatabaseInput", "Name", ns), NULL, NULL, err);
}

/* GetTable's Table, refused unless it is an Iceberg table. */
static basalt_status get_table(struct basalt_catalog_glue *g, const char *ns, const char *name,
                               json_t **res, const json_t **table, struct basalt_error *err)
{
    *table = NULL;
    basalt_status st = one_level(ns, err);
    if (st == BASALT_OK)
        st = glue_call(g, "GetTable", BASALT_AWS_OP_READ,
                       json_pack("{s:s,s:s}", "DatabaseName", ns, "Name", name), res, NULL, err);
    if (st != BASALT_OK)
        return st;
    *table = json_object_get(*res, "Table");
    if (!json_is_object(*table))
        return basalt_error_set(err, BASALT_CORRUPT, "GetTable %s.%s: no Table in the answer", ns,
                                name);
    if (!is_iceberg(*table))
        return basalt_error_set(err, BASALT_NOT_FOUND, "%.200s.%.200s is not an Iceberg table",
                                ns, name);
    return BASALT_OK;
}

static const char *parameter(const json_t *table, const char *key)
{
    return json_string_value(json_object_get(json_object_get(table, "Parameters"), key));
}

basalt_status basalt_catalog_glue_table_location(struct basalt_catalog_glue *g, const char *ns,
                                                 const char *name, char **out,
                                                 struct basalt_error *err)
{
    json_t *res = NULL;
    const json_t *table;
    *out = NULL;
    basalt_status st = get_table(g, ns, name, &res, &table, err);
    const char *loc = st == BASALT_OK ? parameter(table, "metadata_location") : NULL;
    if (st == BASALT_OK && (!loc || !*loc))
        st = basalt_error_set(err, BASALT_NOT_FOUND, "%.200s.%.200s has no metadata_location",
                              ns, name);
    if (st == BASALT_OK && !(*out = basalt_strdup(loc)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    json_decref(res);
    return st;
}

basalt_status basalt_catalog_glue_default_location(struct basalt_catalog_glue *g,
                                                   const char *warehouse, const char *ns,
                                                   const char *name, char **out,
                                                   struct basalt_error *err)
{
    json_t *db = NULL;
    *out = NULL;
    basalt_status st = one_level(ns, err);
    if (st == BASALT_OK)
        st = get_database(g, ns, &db, err);
    const char *uri = json_string_value(json_object_get(json_object_get(db, "Database"),
                                                        "LocationUri"));
    char buf[4096];
    int w = 0;
    if (st == BASALT_OK && uri && *uri) {
        size_t n = strlen(uri);
        while (n > 1 && uri[n - 1] == '/')
            n--;
        w = snprintf(buf, sizeof buf, "%.*s/%s", (int)n, uri, name);
    } else if (st == BASALT_OK && warehouse) {
        w = snprintf(buf, sizeof buf, "%s/%s.db/%s", warehouse, ns, name);
    } else if (st == BASALT_OK) {
        st = basalt_error_set(err, BASALT_INVALID_ARG,
                              "database %.200s has no LocationUri and the catalog no warehouse: "
                              "set one (--warehouse s3://bucket/prefix)",
                              ns);
    }
    if (st == BASALT_OK && (w < 0 || (size_t)w >= sizeof buf))
        st = basalt_error_set(err, BASALT_LIMIT, "table location too long");
    if (st == BASALT_OK && !(*out = basalt_strdup(buf)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    json_decref(db);
    return st;
}

/* ------------------------------------------------------------- columns */

/* The Hive type name of an Iceberg type, as the Java converter writes it. */
static basalt_status hive_type(const json_t *type, struct basalt_buffer *b, int depth,
                               struct basalt_error *err)
{
#define PUT(s) basalt_buffer_append(b, (s), strlen(s), err)
    if (depth > 32)
        return basalt_error_set(err, BASALT_LIMIT, "schema nested too deeply");
    if (json_is_string(type)) {
        const char *t = json_string_value(type);
        static const char *const map[][2] = {
            {"boolean", "boolean"},       {"int", "int"},           {"long", "bigint"},
            {"float", "float"},           {"double", "double"},     {"date", "date"},
            {"time", "string"},           {"timestamp", "timestamp"},
            {"timestamptz", "timestamp"}, {"timestamp_ns", "timestamp"},
            {"timestamptz_ns", "timestamp"}, {"string", "string"}, {"uuid", "string"},
            {"binary", "binary"},
        };
        for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
            if (strcmp(t, map[i][0]) == 0)
                return PUT(map[i][1]);
        if (strncmp(t, "fixed", 5) == 0)
            return PUT("binary");
        if (strncmp(t, "decimal", 7) == 0) {
            basalt_status st = BASALT_OK;
            for (const char *p = t; *p && st == BASALT_OK; p++)
                if (*p != ' ')
                    st = basalt_buffer_append(b, p, 1, err);
            return st;
        }
        return PUT("string");
    }
    const char *kind = json_string_value(json_object_get(type, "type"));
    basalt_status st = BASALT_OK;
    if (kind && strcmp(kind, "struct") == 0) {
        st = PUT("struct<");
        size_t i;
        const json_t *f;
        json_array_foreach(json_object_get(type, "fields"), i, f)
        {
            const char *name = json_string_value(json_object_get(f, "name"));
            if (st == BASALT_OK && i)
                st = PUT(",");
            if (st == BASALT_OK)
                st = PUT(name ? name : "");
            if (st == BASALT_OK)
                st = PUT(":");
            if (st == BASALT_OK)
                st = hive_type(json_object_get(f, "type"), b, depth + 1, err);
        }
        return st == BASALT_OK ? PUT(">") : st;
    }
    if (kind && strcmp(kind, "list") == 0) {
        st = PUT("array<");
        if (st == BASALT_OK)
            st = hive_type(json_object_get(type, "element"), b, depth + 1, err);
        return st == BASALT_OK ? PUT(">") : st;
    }
    if (kind && strcmp(kind, "map") == 0) {
        st = PUT("map<");
        if (st == BASALT_OK)
            st = hive_type(json_object_get(type, "key"), b, depth + 1, err);
        if (st == BASALT_OK)
            st = PUT(",");
        if (st == BASALT_OK)
            st = hive_type(json_object_get(type, "value"), b, depth + 1, err);
        return st == BASALT_OK ? PUT(">") : st;
    }
    return PUT("string");
#undef PUT
}

/* StorageDescriptor {Location, Columns} from metadata JSON text. */
static basalt_status storage_descriptor(const char *metadata_text, json_t **out,
                                        struct basalt_error *err)
{
    *out = NULL;
    json_t *m = metadata_text ? json_loads(metadata_text, 0, NULL) : NULL;
    if (!m)
        return basalt_error_set(err, BASALT_CORRUPT, "the table metadata is not JSON");
    json_t *sd = json_object(), *columns = json_array();
    basalt_status st = sd && columns ? BASALT_OK
                                     : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    const char *loc = json_string_value(json_object_get(m, "location"));
    if (st == BASALT_OK && loc)
        json_object_set_new(sd, "Location", json_string(loc));
    const json_t *schema = NULL, *s;
    json_int_t current = json_integer_value(json_object_get(m, "current-schema-id"));
    size_t i;
    json_array_foreach(json_object_get(m, "schemas"), i, s)
    {
        if (json_integer_value(json_object_get(s, "schema-id")) == current)
            schema = s;
    }
    if (!schema)
        schema = json_object_get(m, "schema"); /* v1 */
    const json_t *f;
    json_array_foreach(json_object_get(schema, "fields"), i, f)
    {
        if (st != BASALT_OK)
            break;
        struct basalt_buffer b;
        basalt_buffer_init(&b);
        st = hive_type(json_object_get(f, "type"), &b, 0, err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&b, "", 1, err);
        char id[32];
        snprintf(id, sizeof id, "%lld", (long long)json_integer_value(json_object_get(f, "id")));
        json_t *col = st == BASALT_OK
                          ? json_pack("{s:s?,s:s,s:{s:s,s:s,s:s}}", "Name",
                                      json_string_value(json_object_get(f, "name")), "Type",
                                      (const char *)b.data, "Parameters", "iceberg.field.id", id,
                                      "iceberg.field.optional",
                                      json_is_true(json_object_get(f, "required")) ? "false"
                                                                                    : "true",
                                      "iceberg.field.current", "true")
                          : NULL;
        basalt_buffer_reset(&b);
        const char *doc = json_string_value(json_object_get(f, "doc"));
        if (col && doc)
            json_object_set_new(col, "Comment", json_string(doc));
        if (st == BASALT_OK && (!col || json_array_append_new(columns, col) != 0))
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    json_decref(m);
    if (st == BASALT_OK)
        json_object_set_new(sd, "Columns", columns);
    else
        json_decref(columns);
    if (st != BASALT_OK) {
        json_decref(sd);
        return st;
    }
    *out = sd;
    return BASALT_OK;
}

/* The TableInput of an Iceberg table: `parameters` (taken) with the
 * locations set. */
static basalt_status table_input(const char *name, json_t *parameters,
                                 const char *metadata_location, const char *previous,
                                 const char *metadata_text, json_t **out,
                                 struct basalt_error *err)
{
    *out = NULL;
    json_t *sd = NULL;
    basalt_status st = storage_descriptor(metadata_text, &sd, err);
    if (st != BASALT_OK) {
        json_decref(parameters);
        return st;
    }
    if (!parameters)
        parameters = json_object();
    if (parameters) {
        json_object_set_new(parameters, "table_type", json_string("ICEBERG"));
        json_object_set_new(parameters, "metadata_location", json_string(metadata_location));
        if (previous)
            json_object_set_new(parameters, "previous_metadata_location", json_string(previous));
        else
            json_object_del(parameters, "previous_metadata_location");
    }
    json_t *in = parameters ? json_pack("{s:s,s:s,s:o,s:o}", "Name", name, "TableType",
                                        "EXTERNAL_TABLE", "Parameters", parameters,
                                        "StorageDescriptor", sd)
                            : NULL;
    if (!in)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    *out = in;
    return BASALT_OK;
}

basalt_status basalt_catalog_glue_register(struct basalt_catalog_glue *g, const char *ns,
                                           const char *name, const char *metadata_location,
                                           const char *metadata_text, struct basalt_error *err)
{
    json_t *in = NULL;
    basalt_status st = one_level(ns, err);
    if (st == BASALT_OK)
        st = table_input(name, NULL, metadata_location, NULL, metadata_text, &in, err);
    if (st != BASALT_OK)
        return st;
    st = glue_call(g, "CreateTable", BASALT_AWS_OP_WRITE,
                   json_pack("{s:s,s:o}", "DatabaseName", ns, "TableInput", in), NULL, NULL, err);
    if (st == BASALT_CONFLICT)
        return basalt_error_context(err, st, "table '%.200s.%.200s' already exists", ns, name);
    return st;
}

basalt_status basalt_catalog_glue_swap(struct basalt_catalog_glue *g, const char *ns,
                                       const char *name, const char *expected,
                                       const char *location, const char *metadata_text,
                                       struct basalt_error *err)
{
    json_t *res = NULL, *in = NULL;
    const json_t *table;
    basalt_status st = get_table(g, ns, name, &res, &table, err);
    const char *current = st == BASALT_OK ? parameter(table, "metadata_location") : NULL;
    const char *version = st == BASALT_OK
                              ? json_string_value(json_object_get(table, "VersionId"))
                              : NULL;
    if (st == BASALT_OK && (!current || strcmp(current, expected) != 0))
        st = basalt_error_set(err, BASALT_CONFLICT,
                              "%.200s.%.200s was committed by another writer (now at %.300s)",
                              ns, name, current ? current : "nothing");
    /* Without a VersionId Glue could not refuse a stale update. */
    if (st == BASALT_OK && (!version || !*version))
        st = basalt_error_set(err, BASALT_UNSUPPORTED,
                              "GetTable %.200s.%.200s gave no VersionId: refusing an unchecked "
                              "commit",
                              ns, name);
    if (st == BASALT_OK)
        st = table_input(name, json_deep_copy(json_object_get(table, "Parameters")), location,
                         expected, metadata_text, &in, err);
    if (st == BASALT_OK)
        st = glue_call(g, "UpdateTable", BASALT_AWS_OP_COMMIT,
                       json_pack("{s:s,s:o,s:s,s:b}", "DatabaseName", ns, "TableInput", in,
                                 "VersionId", version, "SkipArchive", 1),
                       NULL, NULL, err);
    json_decref(res);
    return st;
}

basalt_status basalt_catalog_glue_drop(struct basalt_catalog_glue *g, const char *ns,
                                       const char *name, struct basalt_error *err)
{
    json_t *res = NULL;
    const json_t *table;
    /* Only Iceberg tables are this catalog's to drop. */
    basalt_status st = get_table(g, ns, name, &res, &table, err);
    json_decref(res);
    if (st == BASALT_OK)
        st = glue_call(g, "DeleteTable", BASALT_AWS_OP_WRITE,
                       json_pack("{s:s,s:s}", "DatabaseName", ns, "Name", name), NULL, NULL,
                       err);
    return st;
}
