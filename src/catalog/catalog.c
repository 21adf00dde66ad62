/* Catalog entry points: URI dispatch, namespaces, table loads. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_commit.h"

#include "catalog_internal.h"
#include "rest_client_internal.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

basalt_status basalt_catalog_identifier_split(const char *identifier, char **ns, char **name,
                                              struct basalt_error *err)
{
    *ns = *name = NULL;
    const char *dot = identifier ? strrchr(identifier, '.') : NULL;
    if (!dot || dot == identifier || !dot[1])
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "table identifier '%.200s' is not <namespace>.<table>",
                                identifier ? identifier : "");
    *ns = basalt_strndup(identifier, (size_t)(dot - identifier));
    *name = basalt_strdup(dot + 1);
    if (!*ns || !*name) {
        basalt_free(*ns);
        basalt_free(*name);
        *ns = *name = NULL;
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    return BASALT_OK;
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The database path of a SQLite URI, or NULL when `uri` is not one. */
static const char *sqlite_path(const char *uri)
{
    if (starts_with(uri, "jdbc:"))
        uri += 5;
    if (!starts_with(uri, "sqlite:"))
        return NULL;
    uri += 7;
    /* SQLAlchemy: sqlite:///relative.db, sqlite:////absolute.db. */
    if (starts_with(uri, "///"))
        return uri + 3;
    if (starts_with(uri, "file:"))
        uri += 5;
    return uri;
}

/* New tables go next to the catalog database, or into the file-system
 * catalog's directory; absolute, so other engines find them too. */
static basalt_status default_warehouse(struct basalt_catalog *c, const char *path,
                                       bool is_db, struct basalt_error *err)
{
    char dir[PATH_MAX], real[PATH_MAX];
    basalt_status st = basalt_iceberg_location_normalize(path, true, dir, sizeof dir, err);
    if (st != BASALT_OK)
        return st;
    if (is_db) {
        char *slash = strrchr(dir, '/');
        if (slash && slash != dir)
            *slash = '\0';
        else if (slash)
            slash[1] = '\0';
        else
            strcpy(dir, ".");
    }
    const char *use = realpath(dir, real) ? real : dir;
    return basalt_catalog_set_warehouse(c, use, err);
}

/* The libpq URI of a PostgreSQL catalog URI ("postgresql://...",
 * "postgres://...", also after "jdbc:"), or NULL. */
static const char *postgres_uri(const char *uri)
{
    if (starts_with(uri, "jdbc:"))
        uri += 5;
    return starts_with(uri, "postgresql://") || starts_with(uri, "postgres://") ? uri : NULL;
}

basalt_status basalt_catalog_open(const char *uri, const char *catalog_name, bool create,
                                          struct basalt_catalog **out,
                                          struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "no catalog output");
    *out = NULL;
    if (!uri || !*uri)
        return basalt_error_set(err, BASALT_INVALID_ARG, "empty catalog URI");
    struct basalt_catalog *c = basalt_calloc(1, sizeof *c);
    if (!c)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory opening a catalog");
    c->name = basalt_strdup(catalog_name && *catalog_name
                                        ? catalog_name
                                        : BASALT_CATALOG_DEFAULT_NAME);
    basalt_status st = c->name ? basalt_iceberg_io_new(&c->io, err)
                               : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    const char *db = sqlite_path(uri);
    const char *pg = postgres_uri(uri);
    bool rest = basalt_rest_client_uri(uri);
    bool glue = basalt_catalog_glue_uri(uri), s3t = basalt_catalog_s3tables_uri(uri);
    if (st == BASALT_OK && glue) {
        /* New tables go under --warehouse (or the database's LocationUri). */
        c->kind = BASALT_CATALOG_KIND_GLUE;
        st = basalt_catalog_glue_open(uri, &c->glue, err);
    } else if (st == BASALT_OK && s3t) {
        /* The service places tables itself. */
        c->kind = BASALT_CATALOG_KIND_S3TABLES;
        st = basalt_catalog_s3tables_open(uri, &c->s3t, err);
    } else if (st == BASALT_OK && rest) {
        /* Nothing is sent yet; the server chooses where tables go. */
        c->kind = BASALT_CATALOG_KIND_REST;
        st = basalt_rest_client_open(uri, &c->rest, err);
    } else if (st == BASALT_OK && pg) {
        c->kind = BASALT_CATALOG_KIND_SQL;
        st = basalt_catalog_sql_open(pg, true, create, &c->sql, err);
    } else if (st == BASALT_OK && db) {
        c->kind = BASALT_CATALOG_KIND_SQL;
        st = *db ? basalt_catalog_sql_open(db, false, create, &c->sql, err)
                 : basalt_error_set(err, BASALT_INVALID_ARG, "catalog URI '%s' names no file", uri);
    } else if (st == BASALT_OK) {
        c->kind = BASALT_CATALOG_KIND_FS;
        st = basalt_catalog_fs_open(uri, create, &c->fs, err);
    }
    if (st == BASALT_OK && !rest && !glue && !s3t)
        st = default_warehouse(c, pg ? "./warehouse/catalog" : db ? db : uri, pg || db, err);
    if (st != BASALT_OK) {
        basalt_catalog_close(c);
        return st;
    }
    *out = c;
    return BASALT_OK;
}

void basalt_catalog_close(struct basalt_catalog *catalog)
{
    if (!catalog)
        return;
    basalt_catalog_sql_close(catalog->sql);
    basalt_catalog_fs_close(catalog->fs);
    basalt_rest_client_close(catalog->rest);
    basalt_catalog_glue_close(catalog->glue);
    basalt_catalog_s3tables_close(catalog->s3t);
    basalt_iceberg_io_free(catalog->io);
    basalt_free(catalog->warehouse);
    basalt_free(catalog->name);
    basalt_free(catalog);
}

basalt_status basalt_catalog_map(struct basalt_catalog *c, const char *prefix,
                                         const char *local, struct basalt_error *err)
{
    return basalt_iceberg_io_map(c->io, prefix, local, err);
}

void basalt_catalog_set_store(struct basalt_catalog *c,
                                      struct basalt_io_store *store)
{
    basalt_iceberg_io_set_store(c->io, store);
    if (c->rest)
        basalt_rest_client_set_store(c->rest, store);
    if (c->glue)
        basalt_catalog_glue_set_store(c->glue, store);
    if (c->s3t)
        basalt_catalog_s3tables_set_store(c->s3t, store);
}

/* A namespace name: non-empty levels separated by single dots. */
static basalt_status check_namespace(const char *ns, struct basalt_error *err)
{
    size_t len = ns ? strlen(ns) : 0;
    if (!len || ns[0] == '.' || ns[len - 1] == '.' || strstr(ns, ".."))
        return basalt_error_set(err, BASALT_INVALID_ARG, "invalid namespace '%.200s'",
                                ns ? ns : "");
    return BASALT_OK;
}

basalt_status basalt_catalog_namespace_exists(struct basalt_catalog *c,
                                                      const char *ns, bool *exists,
                                                      struct basalt_error *err)
{
    *exists = false;
    if (!ns || !*ns) {
        *exists = true; /* the root */
        return BASALT_OK;
    }
    if (c->kind == BASALT_CATALOG_KIND_REST)
        return basalt_rest_client_namespace_exists(c->rest, ns, exists, err);
    if (c->kind == BASALT_CATALOG_KIND_GLUE)
        return basalt_catalog_glue_namespace_exists(c->glue, ns, exists, err);
    if (c->kind == BASALT_CATALOG_KIND_S3TABLES)
        return basalt_catalog_s3tables_namespace_exists(c->s3t, ns, exists, err);
    if (c->kind == BASALT_CATALOG_KIND_SQL)
        return basalt_catalog_sql_namespace_exists(c->sql, c->name, ns, exists, err);
    return basalt_catalog_fs_namespace_exists(c->fs, ns, exists, err);
}

static basalt_status require_namespace(struct basalt_catalog *c, const char *ns,
                                       struct basalt_error *err)
{
    bool exists;
    basalt_status st = basalt_catalog_namespace_exists(c, ns, &exists, err);
    if (st == BASALT_OK && !exists)
        st = basalt_error_set(err, BASALT_NOT_FOUND, "no namespace '%.200s' in catalog '%.100s'",
                              ns, c->name);
    return st;
}

static void hand_out(struct basalt_string_list *list, char ***out, size_t *n)
{
    basalt_string_list_sort_unique(list);
    *out = list->items;
    *n = list->n;
    if (!list->n) {
        basalt_free(list->items);
        *out = NULL;
    }
}

basalt_status basalt_catalog_list_namespaces(struct basalt_catalog *c,
                                                     const char *parent, char ***out, size_t *n,
                                                     struct basalt_error *err)
{
    *out = NULL;
    *n = 0;
    if (parent && !*parent)
        parent = NULL;
    /* A REST server answers 404 for a missing parent itself. */
    basalt_status st = parent && c->kind != BASALT_CATALOG_KIND_REST
                           ? require_namespace(c, parent, err)
                           : BASALT_OK;
    struct basalt_string_list found = {0}, children = {0};
    if (st == BASALT_OK && c->kind == BASALT_CATALOG_KIND_REST) {
        st = basalt_rest_client_list_namespaces(c->rest, parent, &children, err);
    } else if (st == BASALT_OK && c->kind == BASALT_CATALOG_KIND_FS) {
        st = basalt_catalog_fs_list_namespaces(c->fs, parent, &children, err);
    } else if (st == BASALT_OK && c->kind == BASALT_CATALOG_KIND_GLUE) {
        st = basalt_catalog_glue_list_namespaces(c->glue, parent, &children, err);
    } else if (st == BASALT_OK && c->kind == BASALT_CATALOG_KIND_S3TABLES) {
        st = basalt_catalog_s3tables_list_namespaces(c->s3t, parent, &children, err);
    } else if (st == BASALT_OK) {
        /* Rows name full namespaces at any depth: keep the level under parent. */
        st = basalt_catalog_sql_all_namespaces(c->sql, c->name, parent, &found, err);
        size_t skip = parent ? strlen(parent) + 1 : 0;
        for (size_t i = 0; st == BASALT_OK && i < found.n; i++) {
            const char *ns = found.items[i];
            if (strlen(ns) <= skip)
                continue; /* parent itself */
            const char *dot = strchr(ns + skip, '.');
            size_t len = dot ? (size_t)(dot - ns) : strlen(ns);
            st = basalt_string_list_add(&children, ns, len, err);
        }
    }
    basalt_string_list_reset(&found);
    if (st != BASALT_OK) {
        basalt_string_list_reset(&children);
        return st;
    }
    hand_out(&children, out, n);
    return BASALT_OK;
}

basalt_status basalt_catalog_list_tables(struct basalt_catalog *c, const char *ns,
                                                 char ***out, size_t *n,
                                                 struct basalt_error *err)
{
    *out = NULL;
    *n = 0;
    basalt_status st = check_namespace(ns, err);
    if (st == BASALT_OK && c->kind != BASALT_CATALOG_KIND_REST)
        st = require_namespace(c, ns, err);
    struct basalt_string_list tables = {0};
    if (st == BASALT_OK && c->kind == BASALT_CATALOG_KIND_REST)
        st = basalt_rest_client_list_tables(c->rest, ns, false, &tables, err);
    else if (st == BASALT_OK && c->kind == BASALT_CATALOG_KIND_GLUE)
        st = basalt_catalog_glue_list_tables(c->glue, ns, &tables, err);
    else if (st == BASALT_OK && c->kind == BASALT_CATALOG_KIND_S3TABLES)
        st = basalt_catalog_s3tables_list_tables(c->s3t, ns, &tables, err);
    else if (st == BASALT_OK)
        st = c->kind == BASALT_CATALOG_KIND_SQL
                 ? basalt_catalog_sql_list_tables(c->sql, c->name, ns, &tables, err)
                 : basalt_catalog_fs_list_tables(c->fs, ns, &tables, err);
    if (st != BASALT_OK) {
        basalt_string_list_reset(&tables);
        return st;
    }
    hand_out(&tables, out, n);
    return BASALT_OK;
}

basalt_status basalt_catalog_create_namespace(struct basalt_catalog *c,
                                                      const char *ns, struct basalt_error *err)
{
    basalt_status st = check_namespace(ns, err);
    if (st != BASALT_OK)
        return st;
    if (c->kind == BASALT_CATALOG_KIND_REST)
        return basalt_rest_client_create_namespace(c->rest, ns, err);
    if (c->kind == BASALT_CATALOG_KIND_GLUE)
        return basalt_catalog_glue_create_namespace(c->glue, ns, err);
    if (c->kind == BASALT_CATALOG_KIND_S3TABLES)
        return basalt_catalog_s3tables_create_namespace(c->s3t, ns, err);
    if (c->kind == BASALT_CATALOG_KIND_SQL)
        return basalt_catalog_sql_create_namespace(c->sql, c->name, ns, err);
    return basalt_catalog_fs_create_namespace(c->fs, ns, err);
}

basalt_status basalt_catalog_table_location(struct basalt_catalog *c,
                                                    const char *identifier, char **out,
                                                    struct basalt_error *err)
{
    char *ns, *name;
    *out = NULL;
    basalt_status st = basalt_catalog_identifier_split(identifier, &ns, &name, err);
    if (st != BASALT_OK)
        return st;
    if (c->kind == BASALT_CATALOG_KIND_REST) {
        json_t *result = NULL;
        st = basalt_rest_client_load_result(c->rest, identifier, &result, err);
        const char *loc = json_string_value(json_object_get(result, "metadata-location"));
        if (st == BASALT_OK && !loc)
            st = basalt_error_set(err, BASALT_CORRUPT, "%.200s: the catalog names no metadata "
                                                       "location", identifier);
        if (st == BASALT_OK && !(*out = basalt_strdup(loc)))
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        json_decref(result);
    } else if (c->kind == BASALT_CATALOG_KIND_GLUE) {
        st = basalt_catalog_glue_table_location(c->glue, ns, name, out, err);
    } else if (c->kind == BASALT_CATALOG_KIND_S3TABLES) {
        st = basalt_catalog_s3tables_table_location(c->s3t, ns, name, out, err);
    } else if (c->kind == BASALT_CATALOG_KIND_SQL) {
        st = basalt_catalog_sql_table_location(c->sql, c->name, ns, name, out, err);
    } else {
        char *dir = NULL;
        char file[PATH_MAX];
        st = basalt_catalog_fs_table_dir(c->fs, ns, name, &dir, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_table_find_metadata(dir, file, sizeof file, err);
        if (st == BASALT_OK && !(*out = basalt_strdup(file)))
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        basalt_free(dir);
    }
    basalt_free(ns);
    basalt_free(name);
    return st;
}

/* Loads a table by the stored location of its metadata file. */
static basalt_status load_location(struct basalt_catalog *c, const char *location,
                                   struct basalt_iceberg_table **out, struct basalt_error *err)
{
    char path[PATH_MAX];
    basalt_status st = basalt_iceberg_io_resolve(c->io, location, path, sizeof path, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_iceberg_table_load_file(path, c->io, out, err);
    if (st != BASALT_OK && strcmp(path, location) != 0)
        return basalt_error_context(err, st, "%.300s", location);
    return st;
}

basalt_status basalt_catalog_load_location(struct basalt_catalog *c,
                                                   const char *identifier, const char *location,
                                                   struct basalt_iceberg_table **out,
                                                   struct basalt_error *err)
{
    struct basalt_iceberg_table *t = NULL;
    *out = NULL;
    basalt_status st = load_location(c, location, &t, err);
    if (st == BASALT_OK) {
        char *name = basalt_strdup(identifier);
        char *loc = basalt_strdup(location);
        if (!name || !loc) {
            basalt_free(name);
            basalt_free(loc);
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        } else {
            basalt_free(t->name);
            t->name = name;
            basalt_free(t->metadata_location);
            t->metadata_location = loc;
        }
    }
    if (st != BASALT_OK) {
        basalt_iceberg_table_free(t);
        return st;
    }
    *out = t;
    return BASALT_OK;
}

basalt_status basalt_catalog_load_table(struct basalt_catalog *c,
                                                const char *identifier,
                                                struct basalt_iceberg_table **out,
                                                struct basalt_error *err)
{
    char *location = NULL;
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "no table output");
    *out = NULL;
    if (c->kind == BASALT_CATALOG_KIND_REST) {
        /* The metadata comes in the answer: no file is read. */
        json_t *result = NULL;
        basalt_status st = basalt_rest_client_load_result(c->rest, identifier, &result, err);
        if (st == BASALT_OK)
            st = basalt_rest_client_make_table(c->rest, c->io, identifier, result, out, err);
        json_decref(result);
        return st;
    }
    basalt_status st = basalt_catalog_table_location(c, identifier, &location, err);
    if (st == BASALT_OK)
        st = basalt_catalog_load_location(c, identifier, location, out, err);
    basalt_free(location);
    return st;
}

basalt_status basalt_catalog_register_table(struct basalt_catalog *c,
                                                    const char *identifier,
                                                    const char *metadata_location,
                                                    struct basalt_error *err)
{
    char *ns, *name;
    if (c->kind == BASALT_CATALOG_KIND_REST) {
        /* The server reads and checks the metadata, with its own access. */
        basalt_status st = basalt_catalog_identifier_split(identifier, &ns, &name, err);
        if (st == BASALT_OK)
            st = check_namespace(ns, err);
        if (st == BASALT_OK && (!metadata_location || !*metadata_location))
            st = basalt_error_set(err, BASALT_INVALID_ARG, "no metadata location");
        if (st == BASALT_OK)
            st = basalt_rest_client_register(c->rest, identifier, metadata_location, err);
        basalt_free(ns);
        basalt_free(name);
        return st;
    }
    if (c->kind == BASALT_CATALOG_KIND_S3TABLES)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "S3 Tables keeps each table's metadata in the bucket the service "
                                "made for it: register is not possible");
    if (c->kind == BASALT_CATALOG_KIND_FS)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "a filesystem catalog lists the tables in its directory: place the "
                                "table there instead of registering it");
    basalt_status st = basalt_catalog_identifier_split(identifier, &ns, &name, err);
    if (st != BASALT_OK)
        return st;
    st = check_namespace(ns, err);
    if (st == BASALT_OK && (!metadata_location || !*metadata_location))
        st = basalt_error_set(err, BASALT_INVALID_ARG, "no metadata location");
    /* Refuse what would not load later; an existing identifier is CONFLICT
     * even when the location is bad, so check that first. */
    if (st == BASALT_OK) {
        char *existing = NULL;
        struct basalt_error lookup;
        basalt_error_init(&lookup);
        st = basalt_catalog_table_location(c, identifier, &existing, &lookup);
        basalt_free(existing);
        if (st == BASALT_OK)
            st = basalt_error_set(err, BASALT_CONFLICT,
                                  "table '%.200s' already exists in catalog '%.100s'", identifier,
                                  c->name);
        else if (st == BASALT_NOT_FOUND)
            st = BASALT_OK;
        else if (err)
            *err = lookup;
    }
    struct basalt_iceberg_table *t = NULL;
    if (st == BASALT_OK)
        st = load_location(c, metadata_location, &t, err);
    if (st == BASALT_OK && c->kind == BASALT_CATALOG_KIND_GLUE) {
        bool exists = false;
        st = basalt_catalog_namespace_exists(c, ns, &exists, err);
        if (st == BASALT_OK && !exists)
            st = basalt_catalog_glue_create_namespace(c->glue, ns, err);
        char *text = NULL;
        if (st == BASALT_OK)
            st = basalt_iceberg_metadata_to_json(t->metadata, &text, NULL, err);
        if (st == BASALT_OK)
            st = basalt_catalog_glue_register(c->glue, ns, name, metadata_location, text, err);
        basalt_free(text);
    } else if (st == BASALT_OK) {
        st = basalt_catalog_sql_register(c->sql, c->name, ns, name, metadata_location, err);
    }
    basalt_iceberg_table_free(t);
    basalt_free(ns);
    basalt_free(name);
    return st;
}

basalt_status basalt_catalog_drop_table(struct basalt_catalog *c,
                                                const char *identifier, struct basalt_error *err)
{
    char *ns, *name;
    if (c->kind == BASALT_CATALOG_KIND_REST)
        return basalt_rest_client_drop(c->rest, identifier, err);
    if (c->kind == BASALT_CATALOG_KIND_FS)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "a filesystem catalog does not drop tables (it would delete files)");
    basalt_status st = basalt_catalog_identifier_split(identifier, &ns, &name, err);
    if (st != BASALT_OK)
        return st;
    if (c->kind == BASALT_CATALOG_KIND_GLUE)
        st = basalt_catalog_glue_drop(c->glue, ns, name, err);
    else if (c->kind == BASALT_CATALOG_KIND_S3TABLES)
        st = basalt_catalog_s3tables_drop(c->s3t, ns, name, err);
    else
        st = basalt_catalog_sql_drop(c->sql, c->name, ns, name, err);
    basalt_free(ns);
    basalt_free(name);
    return st;
}

basalt_status basalt_catalog_commit_transaction(struct basalt_catalog *c, size_t n,
                                                const char *const *identifiers,
                                                const char *const *requirements_json,
                                                const char *const *updates_json,
                                                struct basalt_error *err)
{
    if (c->kind != BASALT_CATALOG_KIND_REST)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "multi-table transactions are made through REST catalogs only");
    return basalt_rest_client_commit_transaction(c->rest, n, identifiers, requirements_json,
                                                  updates_json, err);
}
