/* Views in the catalogs: SQL catalogs keep them as iceberg_tables rows of
 * iceberg_type 'VIEW' and write their metadata files here; REST catalogs
 * are asked over the view routes. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "catalog_internal.h"
#include "rest_client_internal.h"

static basalt_status unsupported(const struct basalt_catalog *c, struct basalt_error *err)
{
    (void)c;
    return basalt_error_set(err, BASALT_UNSUPPORTED,
                            "views are kept by SQL and REST catalogs only");
}

static bool has_views(const struct basalt_catalog *c)
{
    return c->kind == BASALT_CATALOG_KIND_SQL || c->kind == BASALT_CATALOG_KIND_REST;
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

static basalt_status split(const char *identifier, char **ns, char **name,
                           struct basalt_error *err)
{
    basalt_status st = basalt_catalog_identifier_split(identifier, ns, name, err);
    if (st == BASALT_OK)
        st = check_namespace(*ns, err);
    if (st != BASALT_OK) {
        basalt_free(*ns);
        basalt_free(*name);
        *ns = *name = NULL;
    }
    return st;
}

/* Hands out the metadata and location of a LoadViewResult. */
static basalt_status from_result(json_t *result, const char *identifier,
                                 struct basalt_iceberg_view_metadata **out, char **location,
                                 struct basalt_error *err)
{
    basalt_status st = basalt_rest_client_view_from_result(result, identifier, out, location, err);
    json_decref(result);
    return st;
}

basalt_status basalt_catalog_list_views(struct basalt_catalog *c, const char *ns, char ***out,
                                        size_t *n, struct basalt_error *err)
{
    *out = NULL;
    *n = 0;
    if (!has_views(c))
        return unsupported(c, err);
    basalt_status st = check_namespace(ns, err);
    struct basalt_string_list views = {0};
    if (st == BASALT_OK && c->kind == BASALT_CATALOG_KIND_REST) {
        st = basalt_rest_client_list_tables(c->rest, ns, true, &views, err);
    } else if (st == BASALT_OK) {
        bool exists = false;
        st = basalt_catalog_namespace_exists(c, ns, &exists, err);
        if (st == BASALT_OK && !exists)
            st = basalt_error_set(err, BASALT_NOT_FOUND, "no namespace '%.200s' in catalog "
                                                         "'%.100s'",
                                  ns, c->name);
        if (st == BASALT_OK)
            st = basalt_catalog_sql_list_views(c->sql, c->name, ns, &views, err);
    }
    if (st != BASALT_OK) {
        basalt_string_list_reset(&views);
        return st;
    }
    basalt_string_list_sort_unique(&views);
    *out = views.items;
    *n = views.n;
    if (!views.n) {
        basalt_free(views.items);
        *out = NULL;
    }
    return BASALT_OK;
}

/* The stored metadata location of a view in a SQL catalog. */
static basalt_status sql_location(struct basalt_catalog *c, const char *identifier, char **out,
                                  struct basalt_error *err)
{
    char *ns = NULL, *name = NULL;
    basalt_status st = split(identifier, &ns, &name, err);
    if (st == BASALT_OK)
        st = basalt_catalog_sql_view_location(c->sql, c->name, ns, name, out, err);
    basalt_free(ns);
    basalt_free(name);
    return st;
}

/* Reads and parses the view metadata file at `location`. */
static basalt_status read_view(struct basalt_catalog *c, const char *location,
                               struct basalt_iceberg_view_metadata **out,
                               struct basalt_error *err)
{
    uint8_t *data = NULL;
    size_t len = 0;
    basalt_status st = basalt_iceberg_io_read_all(c->io, location, &data, &len, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_view_metadata_parse(data, len, location, out, err);
    basalt_free(data);
    return st;
}

basalt_status basalt_catalog_load_view(struct basalt_catalog *c, const char *identifier,
                                       struct basalt_iceberg_view_metadata **out, char **location,
                                       struct basalt_error *err)
{
    *out = NULL;
    if (location)
        *location = NULL;
    if (!has_views(c))
        return unsupported(c, err);
    if (c->kind == BASALT_CATALOG_KIND_REST)
        return basalt_rest_client_load_view(c->rest, identifier, out, location, err);
    char *loc = NULL;
    basalt_status st = sql_location(c, identifier, &loc, err);
    if (st == BASALT_OK)
        st = read_view(c, loc, out, err);
    if (st == BASALT_OK && location)
        *location = loc;
    else
        basalt_free(loc);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "load view %.200s", identifier);
    return BASALT_OK;
}

basalt_status basalt_catalog_view_exists(struct basalt_catalog *c, const char *identifier,
                                         bool *exists, struct basalt_error *err)
{
    *exists = false;
    if (!has_views(c))
        return unsupported(c, err);
    if (c->kind == BASALT_CATALOG_KIND_REST)
        return basalt_rest_client_view_exists(c->rest, identifier, exists, err);
    char *loc = NULL;
    struct basalt_error probe;
    basalt_error_init(&probe);
    basalt_status st = sql_location(c, identifier, &loc, &probe);
    basalt_free(loc);
    *exists = st == BASALT_OK;
    if (st == BASALT_NOT_FOUND)
        return BASALT_OK;
    if (st != BASALT_OK && err)
        *err = probe;
    return st;
}

/* CONFLICT when a table or view is called `identifier`. */
static basalt_status name_free(struct basalt_catalog *c, const char *identifier,
                               struct basalt_error *err)
{
    char *loc = NULL;
    struct basalt_error probe;
    basalt_error_init(&probe);
    basalt_status st = basalt_catalog_table_location(c, identifier, &loc, &probe);
    basalt_free(loc);
    if (st == BASALT_OK)
        return basalt_error_set(err, BASALT_CONFLICT, "a table '%.200s' already exists",
                                identifier);
    if (st == BASALT_NOT_FOUND)
        st = sql_location(c, identifier, &loc, &probe);
    basalt_free(loc);
    if (st == BASALT_OK)
        return basalt_error_set(err, BASALT_CONFLICT, "a view '%.200s' already exists",
                                identifier);
    if (st == BASALT_NOT_FOUND)
        return BASALT_OK;
    if (err)
        *err = probe;
    return st;
}

/* The updates with a set-location to the default location when they have
 * none (JSON text, basalt_malloc'd). */
static basalt_status with_location(struct basalt_catalog *c, const char *identifier,
                                   const char *updates_json, char **out, struct basalt_error *err)
{
    *out = NULL;
    json_t *u = json_loads(updates_json ? updates_json : "", 0, NULL);
    if (!json_is_array(u)) {
        json_decref(u);
        return basalt_error_set(err, BASALT_INVALID_ARG, "the updates are not a JSON array");
    }
    bool located = false;
    size_t i;
    json_t *e;
    json_array_foreach(u, i, e)
    {
        const char *action = json_string_value(json_object_get(e, "action"));
        located = located || (action && strcmp(action, "set-location") == 0);
    }
    char *loc = NULL;
    basalt_status st = BASALT_OK;
    if (!located) {
        st = basalt_catalog_default_location(c, identifier, &loc, err);
        if (st == BASALT_OK &&
            json_array_insert_new(u, 0, json_pack("{s:s,s:s}", "action", "set-location",
                                                  "location", loc)) != 0)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    char *text = st == BASALT_OK ? json_dumps(u, JSON_COMPACT) : NULL;
    if (st == BASALT_OK && !(text && (*out = basalt_strdup(text))))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    free(text);
    basalt_free(loc);
    json_decref(u);
    return st;
}

/* Writes view metadata `text` as the next file after `previous` (NULL: the
 * first) under the view's location; *meta_loc receives its location. */
static basalt_status write_next(struct basalt_catalog *c, const char *text, size_t len,
                                const char *previous, char **meta_loc, struct basalt_error *err)
{
    *meta_loc = NULL;
    json_t *m = json_loads(text, 0, NULL);
    const char *view_loc = json_string_value(json_object_get(m, "location"));
    basalt_status st = view_loc ? basalt_catalog_next_metadata_location(c, view_loc, previous,
                                                                        meta_loc, err)
                                : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    json_decref(m);
    if (st == BASALT_OK)
        st = basalt_catalog_write_metadata(c->io, *meta_loc, text, len, err);
    if (st != BASALT_OK) {
        basalt_free(*meta_loc);
        *meta_loc = NULL;
    }
    return st;
}

static void delete_file(struct basalt_catalog *c, const char *location)
{
    const char *loc = location;
    basalt_iceberg_io_delete(c->io, &loc, 1, NULL);
}

/* The view as committed at `meta_loc`: parsed from the text written. */
static basalt_status hand_out(const char *text, size_t len, char *meta_loc,
                              struct basalt_iceberg_view_metadata **out, char **location,
                              struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    if (out)
        st = basalt_iceberg_view_metadata_parse(text, len, meta_loc, out, err);
    if (st == BASALT_OK && location)
        *location = meta_loc;
    else
        basalt_free(meta_loc);
    return st;
}

basalt_status basalt_catalog_create_view(struct basalt_catalog *c, const char *identifier,
                                         const char *updates_json,
                                         struct basalt_iceberg_view_metadata **out,
                                         char **location, struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (location)
        *location = NULL;
    if (!has_views(c))
        return unsupported(c, err);
    char *ns = NULL, *name = NULL, *updates = NULL, *text = NULL, *meta_loc = NULL;
    size_t len = 0;
    basalt_status st = split(identifier, &ns, &name, err);
    if (st == BASALT_OK && c->kind == BASALT_CATALOG_KIND_REST) {
        json_t *result = NULL;
        st = basalt_rest_client_create_view(c->rest, identifier, updates_json, &result, err);
        if (st == BASALT_OK)
            st = from_result(result, identifier, out, location, err);
        else
            json_decref(result);
        goto done;
    }
    if (st == BASALT_OK)
        st = name_free(c, identifier, err);
    if (st == BASALT_OK)
        st = with_location(c, identifier, updates_json, &updates, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_view_apply_updates(NULL, updates, basalt_catalog_now_ms(), &text, &len,
                                               err);
    if (st == BASALT_OK)
        st = write_next(c, text, len, NULL, &meta_loc, err);
    if (st == BASALT_OK) {
        st = basalt_catalog_sql_register_view(c->sql, c->name, ns, name, meta_loc, err);
        if (st != BASALT_OK && st != BASALT_UNKNOWN_OUTCOME)
            delete_file(c, meta_loc);
    }
    if (st == BASALT_OK) {
        st = hand_out(text, len, meta_loc, out, location, err);
        meta_loc = NULL;
    }
done:
    basalt_free(meta_loc);
    basalt_free(text);
    basalt_free(updates);
    basalt_free(ns);
    basalt_free(name);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "create view %.200s", identifier);
    return BASALT_OK;
}

basalt_status basalt_catalog_create_sql_view(struct basalt_catalog *c, const char *identifier,
                                             const struct basalt_iceberg_view_definition *def,
                                             struct basalt_iceberg_view_metadata **out,
                                             char **location, struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (location)
        *location = NULL;
    char *updates = NULL;
    /* No set-location: the catalog (or the REST server) places the view. */
    basalt_status st =
        basalt_iceberg_view_create_updates(def, NULL, basalt_catalog_now_ms(), &updates, err);
    if (st == BASALT_OK)
        st = basalt_catalog_create_view(c, identifier, updates, out, location, err);
    basalt_free(updates);
    return st;
}

basalt_status basalt_catalog_commit_view(struct basalt_catalog *c, const char *identifier,
                                         const char *requirements_json, const char *updates_json,
                                         struct basalt_iceberg_view_metadata **out,
                                         char **location, struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (location)
        *location = NULL;
    if (!has_views(c))
        return unsupported(c, err);
    if (c->kind == BASALT_CATALOG_KIND_REST) {
        json_t *result = NULL;
        basalt_status st = basalt_rest_client_commit_view(c->rest, identifier, requirements_json,
                                                          updates_json, &result, err);
        if (st != BASALT_OK) {
            json_decref(result);
            return st;
        }
        return from_result(result, identifier, out, location, err);
    }
    char *ns = NULL, *name = NULL, *base_loc = NULL, *text = NULL, *meta_loc = NULL;
    struct basalt_iceberg_view_metadata *base = NULL;
    size_t len = 0;
    basalt_status st = split(identifier, &ns, &name, err);
    if (st == BASALT_OK)
        st = basalt_catalog_sql_view_location(c->sql, c->name, ns, name, &base_loc, err);
    if (st == BASALT_OK)
        st = read_view(c, base_loc, &base, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_view_check_requirements(base, requirements_json, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_view_apply_updates(base, updates_json, basalt_catalog_now_ms(), &text,
                                               &len, err);
    if (st == BASALT_OK)
        st = write_next(c, text, len, base_loc, &meta_loc, err);
    if (st == BASALT_OK) {
        /* The row moves only while it still names the base: one statement,
         * made atomic by the database. A refused swap referenced nothing;
         * one whose answer was lost may have been made. */
        st = basalt_catalog_sql_swap_view(c->sql, c->name, ns, name, base_loc, meta_loc, err);
        if (st != BASALT_OK && st != BASALT_UNKNOWN_OUTCOME)
            delete_file(c, meta_loc);
    }
    if (st == BASALT_OK) {
        st = hand_out(text, len, meta_loc, out, location, err);
        meta_loc = NULL;
    }
    basalt_iceberg_view_metadata_free(base);
    basalt_free(meta_loc);
    basalt_free(text);
    basalt_free(base_loc);
    basalt_free(ns);
    basalt_free(name);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "commit view %.200s", identifier);
    return BASALT_OK;
}

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

basalt_status basalt_catalog_replace_view(struct basalt_catalog *c, const char *identifier,
                                          const struct basalt_iceberg_view_definition *def,
                                          int retries, struct basalt_iceberg_view_metadata **out,
                                          char **location, struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (location)
        *location = NULL;
    if (retries < 0)
        retries = 4;
    long wait = 10;
    for (int attempt = 0;; attempt++) {
        struct basalt_iceberg_view_metadata *base = NULL;
        char *reqs = NULL, *updates = NULL;
        basalt_status st = basalt_catalog_load_view(c, identifier, &base, NULL, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_view_replace_updates(base, def, basalt_catalog_now_ms(), &reqs,
                                                     &updates, err);
        if (st == BASALT_OK)
            st = basalt_catalog_commit_view(c, identifier, reqs, updates, out, location, err);
        basalt_iceberg_view_metadata_free(base);
        basalt_free(reqs);
        basalt_free(updates);
        if (st != BASALT_CONFLICT || attempt >= retries)
            return st;
        char jitter[37];
        basalt_iceberg_uuid4(jitter); /* random hex digits */
        long r = strtol((char[3]){jitter[0], jitter[1], 0}, NULL, 16);
        pause_ms(wait / 2 + r * wait / 512);
        if (wait < 200)
            wait *= 2;
    }
}

basalt_status basalt_catalog_register_view(struct basalt_catalog *c, const char *identifier,
                                           const char *metadata_location,
                                           struct basalt_error *err)
{
    if (!has_views(c))
        return unsupported(c, err);
    char *ns = NULL, *name = NULL;
    basalt_status st = split(identifier, &ns, &name, err);
    if (st == BASALT_OK && (!metadata_location || !*metadata_location))
        st = basalt_error_set(err, BASALT_INVALID_ARG, "no metadata location");
    if (st == BASALT_OK && c->kind == BASALT_CATALOG_KIND_REST) {
        json_t *result = NULL;
        st = basalt_rest_client_register_view(c->rest, identifier, metadata_location, &result,
                                              err);
        json_decref(result);
    } else if (st == BASALT_OK) {
        st = name_free(c, identifier, err);
        struct basalt_iceberg_view_metadata *v = NULL;
        if (st == BASALT_OK)
            st = read_view(c, metadata_location, &v, err);
        basalt_iceberg_view_metadata_free(v);
        if (st == BASALT_OK)
            st = basalt_catalog_sql_register_view(c->sql, c->name, ns, name, metadata_location,
                                                  err);
    }
    basalt_free(ns);
    basalt_free(name);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "register view %.200s", identifier);
    return BASALT_OK;
}

basalt_status basalt_catalog_drop_view(struct basalt_catalog *c, const char *identifier,
                                       struct basalt_error *err)
{
    if (!has_views(c))
        return unsupported(c, err);
    if (c->kind == BASALT_CATALOG_KIND_REST)
        return basalt_rest_client_drop_view(c->rest, identifier, err);
    char *ns = NULL, *name = NULL;
    basalt_status st = split(identifier, &ns, &name, err);
    if (st == BASALT_OK)
        st = basalt_catalog_sql_drop_view(c->sql, c->name, ns, name, err);
    basalt_free(ns);
    basalt_free(name);
    return st;
}

basalt_status basalt_catalog_rename_view(struct basalt_catalog *c, const char *from,
                                         const char *to, struct basalt_error *err)
{
    if (!has_views(c))
        return unsupported(c, err);
    char *from_ns = NULL, *from_name = NULL, *to_ns = NULL, *to_name = NULL;
    basalt_status st = split(from, &from_ns, &from_name, err);
    if (st == BASALT_OK)
        st = split(to, &to_ns, &to_name, err);
    if (st == BASALT_OK && c->kind == BASALT_CATALOG_KIND_REST) {
        st = basalt_rest_client_rename_view(c->rest, from, to, err);
    } else if (st == BASALT_OK) {
        bool exists = false;
        st = basalt_catalog_namespace_exists(c, to_ns, &exists, err);
        if (st == BASALT_OK && !exists)
            st = basalt_error_set(err, BASALT_NOT_FOUND, "no namespace '%.200s' in catalog "
                                                         "'%.100s'",
                                  to_ns, c->name);
        if (st == BASALT_OK)
            st = basalt_catalog_sql_rename_view(c->sql, c->name, from_ns, from_name, to_ns,
                                                to_name, err);
    }
    basalt_free(from_ns);
    basalt_free(from_name);
    basalt_free(to_ns);
    basalt_free(to_name);
    return st;
}
