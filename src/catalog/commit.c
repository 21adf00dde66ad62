/* Creating and committing tables in the SQL and file-system catalogs:
 * requirements checked against the current metadata, updates applied, the
 * next metadata file written where no other writer can have written it, then
 * the catalog's pointer swapped to it atomically. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <strings.h>
#include <time.h>

#include "catalog_internal.h"
#include "rest_client_internal.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

basalt_status basalt_catalog_set_warehouse(struct basalt_catalog *c,
                                                   const char *warehouse,
                                                   struct basalt_error *err)
{
    if (c->kind == BASALT_CATALOG_KIND_REST) {
        /* The ?warehouse= of the REST config request, sent as given. */
        basalt_status st = basalt_rest_client_set_warehouse(c->rest, warehouse, err);
        if (st != BASALT_OK)
            return st;
    }
    char *copy = basalt_strdup(warehouse);
    if (!copy)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    size_t n = strlen(copy);
    while (n > 1 && copy[n - 1] == '/')
        copy[--n] = '\0';
    basalt_free(c->warehouse);
    c->warehouse = copy;
    return BASALT_OK;
}

basalt_status basalt_catalog_default_location(struct basalt_catalog *c,
                                                      const char *identifier, char **out,
                                                      struct basalt_error *err)
{
    char *ns, *name;
    *out = NULL;
    if (c->kind == BASALT_CATALOG_KIND_REST)
        return basalt_rest_client_default_location(c->rest, identifier, out, err);
    basalt_status st = basalt_catalog_identifier_split(identifier, &ns, &name, err);
    if (st != BASALT_OK)
        return st;
    if (c->kind == BASALT_CATALOG_KIND_GLUE || c->kind == BASALT_CATALOG_KIND_S3TABLES) {
        st = c->kind == BASALT_CATALOG_KIND_GLUE
                 ? basalt_catalog_glue_default_location(c->glue, c->warehouse, ns, name, out,
                                                        err)
                 : basalt_catalog_s3tables_default_location(c->s3t, ns, name, out, err);
        basalt_free(ns);
        basalt_free(name);
        return st;
    }
    size_t cap = strlen(c->warehouse) + strlen(ns) + strlen(name) + 3;
    char *loc = basalt_malloc(cap);
    if (loc) {
        /* Namespace levels as directories, as the Java catalogs lay them out. */
        char *p = loc + snprintf(loc, cap, "%s/%s/%s", c->warehouse, ns, name);
        for (char *q = loc + strlen(c->warehouse) + 1; q < p - strlen(name) - 1; q++)
            if (*q == '.')
                *q = '/';
    }
    basalt_free(ns);
    basalt_free(name);
    if (!loc)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    *out = loc;
    return BASALT_OK;
}

/* The version number of a metadata file name: "00012-<uuid>.metadata.json"
 * and "v12.metadata.json" are 12; -1 when the name has none. */
static long metadata_version(const char *location)
{
    const char *base = strrchr(location, '/');
    base = base ? base + 1 : location;
    if (*base == 'v')
        base++;
    char *end;
    long v = strtol(base, &end, 10);
    if (end == base || (*end != '-' && *end != '.'))
        return -1;
    return v;
}

/* Where the next metadata file of a table at `table_location` goes. */
static basalt_status next_metadata_location(const struct basalt_catalog *c,
                                            const char *table_location, const char *previous,
                                            const char *compression, char **out, long *version,
                                            struct basalt_error *err)
{
    long v = previous ? metadata_version(previous) + 1 : (c->kind == BASALT_CATALOG_KIND_FS);
    if (c->kind == BASALT_CATALOG_KIND_FS && v < 1)
        v = 1;
    bool gz = compression && strcasecmp(compression, "gzip") == 0;
    size_t cap = strlen(table_location) + 96;
    char *loc = basalt_malloc(cap);
    if (!loc)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    size_t tl = strlen(table_location);
    while (tl > 1 && table_location[tl - 1] == '/')
        tl--;
    if (c->kind == BASALT_CATALOG_KIND_FS) {
        snprintf(loc, cap, "%.*s/metadata/v%ld%s.metadata.json", (int)tl, table_location, v,
                 gz ? ".gz" : "");
    } else {
        char uuid[37];
        basalt_iceberg_uuid4(uuid);
        snprintf(loc, cap, "%.*s/metadata/%05ld-%s%s.metadata.json", (int)tl, table_location, v,
                 uuid, gz ? ".gz" : "");
    }
    *out = loc;
    *version = v;
    return BASALT_OK;
}

/* Writes the metadata text to a location no one else can have written. */
static basalt_status write_metadata(const struct basalt_iceberg_io *io, const char *location,
                                    const char *text, size_t len, struct basalt_error *err)
{
    struct basalt_output *out = NULL;
    basalt_status st =
        basalt_iceberg_io_open_output(io, location, BASALT_IO_CREATE_EXCLUSIVE, &out, err);
    if (st == BASALT_OK)
        st = basalt_output_write(out, text, len, err);
    if (st == BASALT_OK)
        st = basalt_output_commit(out, err);
    basalt_output_close(out);
    if (st == BASALT_CONFLICT)
        st = basalt_error_context(err, st, "metadata file %.300s was written by another commit",
                                  location);
    return st;
}

basalt_status basalt_catalog_next_metadata_location(const struct basalt_catalog *c,
                                                    const char *location, const char *previous,
                                                    char **out, struct basalt_error *err)
{
    long version = 0;
    return next_metadata_location(c, location, previous, NULL, out, &version, err);
}

basalt_status basalt_catalog_write_metadata(const struct basalt_iceberg_io *io,
                                            const char *location, const char *text, size_t len,
                                            struct basalt_error *err)
{
    return write_metadata(io, location, text, len, err);
}

int64_t basalt_catalog_now_ms(void)
{
    return now_ms();
}

/* Hadoop tables: version-hint.text names the newest version. Best effort:
 * readers fall back to listing, and a lagging hint rolls forward. */
static void write_version_hint(const struct basalt_iceberg_io *io, const char *table_location,
                               long version)
{
    char loc[PATH_MAX], text[32];
    snprintf(loc, sizeof loc, "%s/metadata/version-hint.text", table_location);
    int n = snprintf(text, sizeof text, "%ld", version);
    struct basalt_output *out = NULL;
    if (basalt_iceberg_io_open_output(io, loc, 0, &out, NULL) == BASALT_OK &&
        basalt_output_write(out, text, (size_t)n, NULL) == BASALT_OK)
        basalt_output_commit(out, NULL);
    basalt_output_close(out);
}

/* The location member of metadata JSON text, basalt_malloc'd. */
static char *json_location(const char *text)
{
    json_t *m = json_loads(text, 0, NULL);
    const char *loc = json_string_value(json_object_get(m, "location"));
    char *copy = loc ? basalt_strdup(loc) : NULL;
    json_decref(m);
    return copy;
}

static const char *property(const char *text, const char *key, char *buf, size_t cap)
{
    json_t *m = json_loads(text, 0, NULL);
    const char *v = json_string_value(json_object_get(json_object_get(m, "properties"), key));
    if (v)
        snprintf(buf, cap, "%s", v);
    json_decref(m);
    return v ? buf : NULL;
}

/* The updates with every set-location pointing at `location` (JSON text,
 * basalt_malloc'd). */
static basalt_status relocate(const char *updates_json, const char *location, char **out,
                              struct basalt_error *err)
{
    *out = NULL;
    json_t *u = json_loads(updates_json, 0, NULL);
    if (!json_is_array(u)) {
        json_decref(u);
        return basalt_error_set(err, BASALT_INVALID_ARG, "the updates are not a JSON array");
    }
    size_t i;
    json_t *e;
    json_array_foreach(u, i, e)
    {
        const char *action = json_string_value(json_object_get(e, "action"));
        if (action && strcmp(action, "set-location") == 0)
            json_object_set_new(e, "location", json_string(location));
    }
    char *text = json_dumps(u, JSON_COMPACT);
    json_decref(u);
    if (text)
        *out = basalt_strdup(text);
    free(text);
    if (!*out)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    return BASALT_OK;
}

/* The table as committed at `location` (not whatever is newest now). */
static basalt_status load_committed(struct basalt_catalog *c, const char *identifier,
                                    const char *location, struct basalt_iceberg_table **out,
                                    struct basalt_error *err)
{
    if (!out)
        return BASALT_OK;
    return basalt_catalog_load_location(c, identifier, location, out, err);
}

basalt_status basalt_catalog_create_table(struct basalt_catalog *c,
                                                  const char *identifier,
                                                  const char *updates_json,
                                                  struct basalt_iceberg_table **out,
                                                  struct basalt_error *err)
{
    char *ns = NULL, *name = NULL, *text = NULL, *table_loc = NULL, *meta_loc = NULL;
    size_t len = 0;
    long version = 0;
    char compression[32];
    if (out)
        *out = NULL;
    if (c->kind == BASALT_CATALOG_KIND_REST)
        return basalt_rest_client_create_table(c->rest, c->io, identifier, updates_json, out, err);
    basalt_status st = basalt_catalog_identifier_split(identifier, &ns, &name, err);
    if (st == BASALT_OK) {
        char *existing = NULL;
        struct basalt_error probe;
        basalt_error_init(&probe);
        st = basalt_catalog_table_location(c, identifier, &existing, &probe);
        basalt_free(existing);
        if (st == BASALT_OK)
            st = basalt_error_set(err, BASALT_CONFLICT, "table '%.200s' already exists",
                                  identifier);
        else if (st == BASALT_NOT_FOUND)
            st = BASALT_OK;
        else if (err)
            *err = probe;
    }
    bool aws = c->kind == BASALT_CATALOG_KIND_GLUE || c->kind == BASALT_CATALOG_KIND_S3TABLES;
    if (st == BASALT_OK && aws) {
        bool exists = false;
        st = basalt_catalog_namespace_exists(c, ns, &exists, err);
        if (st == BASALT_OK && !exists)
            st = basalt_catalog_create_namespace(c, ns, err);
    }
    char *entry_token = NULL, *placed = NULL;
    bool entry = false;
    if (st == BASALT_OK && c->kind == BASALT_CATALOG_KIND_S3TABLES) {
        /* The service places the table: its location replaces the one asked for. */
        char *warehouse = NULL;
        st = basalt_catalog_s3tables_create_entry(c->s3t, ns, name, &warehouse, &entry_token,
                                                  err);
        entry = st == BASALT_OK;
        if (st == BASALT_OK)
            st = relocate(updates_json, warehouse, &placed, err);
        basalt_free(warehouse);
    }
    if (st == BASALT_OK) {
        struct basalt_iceberg_update_context ctx = {.now_ms = now_ms()};
        st = basalt_iceberg_apply_updates(NULL, placed ? placed : updates_json, &ctx, &text,
                                          &len, err);
    }
    if (st == BASALT_OK && !(table_loc = json_location(text)))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK && c->kind == BASALT_CATALOG_KIND_FS) {
        /* A file-system catalog finds tables by directory: the table must
         * live where its identifier says. */
        char *want = NULL;
        st = basalt_catalog_default_location(c, identifier, &want, err);
        if (st == BASALT_OK && strcmp(want, table_loc) != 0)
            st = basalt_error_set(err, BASALT_INVALID_ARG,
                                  "a file-system catalog keeps table %.200s at %.300s, not %.300s",
                                  identifier, want, table_loc);
        basalt_free(want);
        bool exists = false;
        if (st == BASALT_OK)
            st = basalt_catalog_namespace_exists(c, ns, &exists, err);
        if (st == BASALT_OK && !exists)
            st = basalt_catalog_fs_create_namespace(c->fs, ns, err);
    }
    if (st == BASALT_OK)
        st = next_metadata_location(
            c, table_loc, NULL,
            property(text, "write.metadata.compression-codec", compression, sizeof compression),
            &meta_loc, &version, err);
    /* Compressed metadata is written plain for now: readers take either, and
     * the name only promises what the content says. */
    if (st == BASALT_OK && strstr(meta_loc, ".gz.metadata.json")) {
        char *gz = strstr(meta_loc, ".gz.metadata.json");
        memmove(gz, gz + 3, strlen(gz + 3) + 1);
    }
    if (st == BASALT_OK)
        st = write_metadata(c->io, meta_loc, text, len, err);
    if (st == BASALT_OK) {
        if (c->kind == BASALT_CATALOG_KIND_FS)
            write_version_hint(c->io, table_loc, version);
        else if (c->kind == BASALT_CATALOG_KIND_GLUE)
            st = basalt_catalog_glue_register(c->glue, ns, name, meta_loc, text, err);
        else if (c->kind == BASALT_CATALOG_KIND_S3TABLES)
            st = basalt_catalog_s3tables_swap(c->s3t, ns, name, entry_token, NULL, meta_loc, err);
        else
            st = basalt_catalog_sql_register(c->sql, c->name, ns, name, meta_loc, err);
        bool unknown = st == BASALT_UNKNOWN_OUTCOME;
        if (st != BASALT_OK && !unknown) {
            const char *loc = meta_loc;
            basalt_iceberg_io_delete(c->io, &loc, 1, NULL);
        }
        if (unknown)
            entry = false; /* the table may well point at the file */
    }
    if (st != BASALT_OK && entry)
        basalt_catalog_s3tables_drop(c->s3t, ns, name, NULL);
    if (st == BASALT_OK)
        st = load_committed(c, identifier, meta_loc, out, err);
    basalt_free(entry_token);
    basalt_free(placed);
    basalt_free(ns);
    basalt_free(name);
    basalt_free(text);
    basalt_free(table_loc);
    basalt_free(meta_loc);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "create %.200s", identifier);
    return BASALT_OK;
}

/* Deletes the metadata files that fell off the log of `after`, when the
 * table asks for it (write.metadata.delete-after-commit.enabled). */
static void delete_old_metadata(const struct basalt_iceberg_io *io,
                                const struct basalt_iceberg_metadata *before,
                                const char *before_location, const char *after_text)
{
    const char *flag = basalt_iceberg_metadata_property(
        before, "write.metadata.delete-after-commit.enabled");
    if (!flag || strcasecmp(flag, "true") != 0)
        return;
    json_t *m = json_loads(after_text, 0, NULL);
    const json_t *log = json_object_get(m, "metadata-log");
    for (uint32_t i = 0; i < before->n_metadata_log; i++) {
        const char *old = before->metadata_log[i].metadata_file;
        bool kept = false;
        size_t k;
        const json_t *e;
        json_array_foreach(log, k, e)
        {
            const char *f = json_string_value(json_object_get(e, "metadata-file"));
            if (f && strcmp(f, old) == 0)
                kept = true;
        }
        if (!kept && strcmp(old, before_location) != 0)
            basalt_iceberg_io_delete(io, &old, 1, NULL);
    }
    json_decref(m);
}

basalt_status basalt_catalog_commit_table(struct basalt_catalog *c,
                                                  const char *identifier,
                                                  const char *requirements_json,
                                                  const char *updates_json,
                                                  struct basalt_iceberg_table **out,
                                                  struct basalt_error *err)
{
    struct basalt_iceberg_table *base = NULL;
    char *ns = NULL, *name = NULL, *text = NULL, *meta_loc = NULL;
    size_t len = 0;
    long version = 0;
    if (out)
        *out = NULL;
    if (c->kind == BASALT_CATALOG_KIND_REST)
        return basalt_rest_client_commit_table(c->rest, c->io, identifier, requirements_json,
                                                updates_json, out, err);
    basalt_status st = basalt_catalog_identifier_split(identifier, &ns, &name, err);
    if (st == BASALT_OK)
        st = basalt_catalog_load_table(c, identifier, &base, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_check_requirements(base->metadata, requirements_json, err);
    if (st == BASALT_OK) {
        struct basalt_iceberg_update_context ctx = {
            .now_ms = now_ms(),
            .base_location = base->metadata_location,
        };
        if (ctx.now_ms <= base->metadata->last_updated_ms)
            ctx.now_ms = base->metadata->last_updated_ms + 1; /* keep time moving forward */
        st = basalt_iceberg_apply_updates(base->metadata, updates_json, &ctx, &text, &len, err);
    }
    char *table_loc = st == BASALT_OK ? json_location(text) : NULL;
    if (st == BASALT_OK && !table_loc)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = next_metadata_location(c, table_loc, base->metadata_location, NULL, &meta_loc,
                                    &version, err);
    if (st == BASALT_OK) {
        st = write_metadata(base->io, meta_loc, text, len, err);
        /* In a file-system catalog the exclusive create of v<N+1> is the
         * swap: a store that lost its answer may have made it. Elsewhere
         * the table cannot name a file that failed to be written, so the
         * commit certainly failed; what a lost answer may have left is
         * nobody's. */
        if (st == BASALT_IO && c->kind == BASALT_CATALOG_KIND_FS) {
            st = basalt_error_context(err, BASALT_UNKNOWN_OUTCOME, "commit state unknown");
        } else if (st == BASALT_IO) {
            const char *loc = meta_loc;
            basalt_iceberg_io_delete(base->io, &loc, 1, NULL);
        }
    }
    if (st == BASALT_OK) {
        if (c->kind == BASALT_CATALOG_KIND_FS) {
            write_version_hint(base->io, table_loc, version);
        } else {
            if (c->kind == BASALT_CATALOG_KIND_GLUE)
                st = basalt_catalog_glue_swap(c->glue, ns, name, base->metadata_location,
                                              meta_loc, text, err);
            else if (c->kind == BASALT_CATALOG_KIND_S3TABLES)
                st = basalt_catalog_s3tables_swap(c->s3t, ns, name, NULL,
                                                  base->metadata_location, meta_loc, err);
            else
                st = basalt_catalog_sql_swap(c->sql, c->name, ns, name,
                                             base->metadata_location, meta_loc, err);
            /* A refused or failed swap changed nothing (SQLite ran the
             * UPDATE or did not; Glue and S3 Tables refused it): the new
             * file is referenced by nothing. An update whose answer was
             * lost may have been applied: its file stays. */
            if (st != BASALT_OK && st != BASALT_UNKNOWN_OUTCOME) {
                const char *loc = meta_loc;
                basalt_iceberg_io_delete(base->io, &loc, 1, NULL);
            }
        }
    }
    if (st == BASALT_OK) {
        delete_old_metadata(base->io, base->metadata, base->metadata_location, text);
        st = load_committed(c, identifier, meta_loc, out, err);
        /* The swap is done: any other status would tell the caller the
         * commit did not happen, and it would delete files the table now
         * names. */
        if (st != BASALT_OK)
            st = basalt_error_context(err, BASALT_UNKNOWN_OUTCOME,
                                      "committed as %.300s, but reading it back failed",
                                      meta_loc);
    }
    basalt_iceberg_table_free(base);
    basalt_free(ns);
    basalt_free(name);
    basalt_free(text);
    basalt_free(table_loc);
    basalt_free(meta_loc);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "commit %.200s", identifier);
    return BASALT_OK;
}

static basalt_status committer_load(void *ctx, const char *identifier,
                                    struct basalt_iceberg_table **out, struct basalt_error *err)
{
    return basalt_catalog_load_table(ctx, identifier, out, err);
}

static basalt_status committer_commit(void *ctx, const char *identifier,
                                      const char *requirements_json, const char *updates_json,
                                      struct basalt_iceberg_table **out, struct basalt_error *err)
{
    return basalt_catalog_commit_table(ctx, identifier, requirements_json, updates_json, out, err);
}

void basalt_catalog_committer(struct basalt_catalog *c, struct basalt_iceberg_committer *out)
{
    out->ctx = c;
    out->load = committer_load;
    out->commit = committer_commit;
}
