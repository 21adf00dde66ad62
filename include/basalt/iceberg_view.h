/* basalt iceberg: view metadata (the metadata.json files of the Iceberg view
 * spec, format version 1).
 *
 * A parsed struct basalt_iceberg_view_metadata owns all of its memory: every
 * string, array and schema inside it lives until
 * basalt_iceberg_view_metadata_free. Parsing is reentrant; parsed metadata is
 * immutable and may be read from any number of threads at once.
 *
 * Errors name the file and the JSON path, e.g.
 * "v1.metadata.json: versions[2]: representations[0]: missing 'sql'". */
#ifndef BASALT_ICEBERG_VIEW_H
#define BASALT_ICEBERG_VIEW_H

#include "basalt/iceberg_metadata.h" /* schema lookups, BASALT_ICEBERG_METADATA_MAX_JSON */

#ifdef __cplusplus
extern "C" {
#endif

/* The highest view format version this library reads. */
#define BASALT_ICEBERG_VIEW_MAX_FORMAT_VERSION 1

/* One representation of a view version. The spec defines only "sql"; other
 * types are kept whole in `json` so they are written back unchanged. */
struct basalt_iceberg_view_representation {
    const char *type;               /* "sql", or what the file says */
    const char *sql;                /* type "sql": the query text; else NULL */
    const char *dialect;            /* type "sql": e.g. "spark"; else NULL */
    const char *json;               /* other types: the whole object as JSON; else NULL */
};

struct basalt_iceberg_view_version {
    int32_t version_id;
    int64_t timestamp_ms;
    int32_t schema_id;
    struct basalt_iceberg_kv *summary;      /* sorted by key */
    uint32_t n_summary;
    struct basalt_iceberg_view_representation *representations; /* file order */
    uint32_t n_representations;
    const char *default_catalog;            /* NULL when absent */
    const char **default_namespace;         /* namespace levels; may be empty */
    uint32_t n_default_namespace;
};

struct basalt_iceberg_view_log_entry {
    int64_t timestamp_ms;
    int32_t version_id;
};

struct basalt_iceberg_view_metadata {
    int32_t format_version;                 /* 1 */
    const char *view_uuid;
    const char *location;
    struct basalt_iceberg_schema *schemas;  /* file order; ids unique */
    uint32_t n_schemas;
    int32_t current_version_id;             /* names one of `versions` */
    struct basalt_iceberg_view_version *versions; /* file order; ids unique */
    uint32_t n_versions;
    struct basalt_iceberg_view_log_entry *version_log;
    uint32_t n_version_log;
    struct basalt_iceberg_kv *properties;   /* sorted by key; empty when absent */
    uint32_t n_properties;
    /* Top-level keys the spec does not define, as one compact JSON object
     * (sorted keys), "{}" when there are none. */
    const char *unknown_keys_json;
};

/* Parses view metadata. `data` (borrowed, `len` bytes) is JSON text, or gzip
 * (1f 8b) or zstd (28 b5 2f fd) compressed JSON, told apart by their magic.
 * `name` (borrowed, may be NULL) prefixes error messages. On success *out is
 * a new object (free it with basalt_iceberg_view_metadata_free); on failure
 * *out is NULL. Several representations of one dialect are accepted (a
 * reader must not refuse what a writer may have produced).
 * Returns UNSUPPORTED for a format-version other than 1; CORRUPT for
 * malformed JSON, table metadata, a missing required field (view-uuid,
 * location, current-version-id, schemas, versions, version-log; in a
 * version: version-id, timestamp-ms, schema-id, summary, representations,
 * default-namespace), repeated schema or version ids, a current version
 * that is not among `versions`, or a current version whose schema is not
 * among `schemas`; LIMIT when compressed metadata inflates past
 * BASALT_ICEBERG_METADATA_MAX_JSON (iceberg_metadata.h) or types nest too
 * deep; NOMEM; INVALID_ARG for NULL data/out. */
BASALT_EXPORT basalt_status basalt_iceberg_view_metadata_parse(
    const void *data, size_t len, const char *name, struct basalt_iceberg_view_metadata **out,
    struct basalt_error *err);
/* Reads the whole file at `path` and parses it, the path naming it in
 * errors. IO when the file cannot be read; otherwise as parse. */
BASALT_EXPORT basalt_status basalt_iceberg_view_metadata_read_file(
    const char *path, struct basalt_iceberg_view_metadata **out, struct basalt_error *err);
/* Frees the metadata and everything in it. NULL is a no-op. */
BASALT_EXPORT void basalt_iceberg_view_metadata_free(struct basalt_iceberg_view_metadata *view);

/* Serialises every field back to view metadata JSON, unknown top-level keys
 * included; object keys are sorted. Parsing the result gives metadata equal
 * to `view` field by field. *out is basalt_malloc'd and NUL-terminated; *len
 * (may be NULL) is its length without the NUL. NOMEM; INTERNAL when the JSON
 * library fails; INVALID_ARG for NULL view/out. */
BASALT_EXPORT basalt_status basalt_iceberg_view_metadata_to_json(
    const struct basalt_iceberg_view_metadata *view, char **out, size_t *len,
    struct basalt_error *err);

/* Lookups; results point into the metadata, NULL when there is no such
 * thing. The current version always exists in parsed metadata, and so does
 * its schema. */
BASALT_EXPORT const struct basalt_iceberg_view_version *basalt_iceberg_view_metadata_version(
    const struct basalt_iceberg_view_metadata *view, int32_t version_id);
BASALT_EXPORT const struct basalt_iceberg_view_version *
basalt_iceberg_view_metadata_current_version(const struct basalt_iceberg_view_metadata *view);
BASALT_EXPORT const struct basalt_iceberg_schema *basalt_iceberg_view_metadata_schema(
    const struct basalt_iceberg_view_metadata *view, int32_t schema_id);
/* The schema of the current version. */
BASALT_EXPORT const struct basalt_iceberg_schema *basalt_iceberg_view_metadata_current_schema(
    const struct basalt_iceberg_view_metadata *view);

/* ------------------------------------------------------------- changing
 *
 * A change to a view is a list of requirements and a list of updates, the
 * ViewRequirement and ViewUpdate objects of the REST catalog specification,
 * as JSON text; catalogs check the requirements against the view's current
 * metadata, apply the updates, write the next metadata file and swap their
 * pointer to it atomically, as for tables (iceberg_commit.h).
 *
 * Requirements (a failed one is CONFLICT): assert-view-uuid.
 * Updates: assign-uuid, upgrade-format-version (only to 1), add-schema (an
 *   equal schema -- same fields and identifier field ids -- is reused, else
 *   the next id after the highest), set-location, set-properties,
 *   remove-properties, add-view-version, set-current-view-version.
 * add-view-version: a schema-id of -1 is the schema added last; a version
 *   equal to an existing one (same schema id, summary, representations,
 *   default catalog and namespace; its id and timestamp aside) is reused
 *   under its id, as the Java ViewMetadata.Builder does; otherwise the
 *   version keeps its id when that is free and above every existing id,
 *   else it gets the highest id + 1. Two SQL representations of one dialect
 *   (case-insensitively) are INVALID_ARG.
 * set-current-view-version: -1 is the version added (or reused) last. A
 *   change of the current version appends {timestamp-ms, version-id} to
 *   version-log: the version's own timestamp when it was added by this
 *   change, else the change's time.
 * Retention: after the updates, when there are more versions than the
 *   property version.history.num-entries (default 10, at least 1) -- and
 *   than the versions added by the change plus the current one -- the
 *   current version and the highest ids are kept; version-log keeps the
 *   entries of kept versions after the last entry of a dropped one. */

/* The view property that bounds the versions kept. */
#define BASALT_ICEBERG_VIEW_HISTORY_SIZE "version.history.num-entries"
#define BASALT_ICEBERG_VIEW_HISTORY_SIZE_DEFAULT 10

/* Checks a JSON array of ViewRequirements (NULL or "": none) against
 * `base` (NULL: the view does not exist: any requirement fails). CONFLICT
 * naming the first that fails; CORRUPT for malformed JSON or an unknown
 * requirement type. */
BASALT_EXPORT basalt_status basalt_iceberg_view_check_requirements(
    const struct basalt_iceberg_view_metadata *base, const char *requirements_json,
    struct basalt_error *err);

/* Applies a JSON array of ViewUpdates to `base` (NULL: a new view; the
 * updates must then set a location, add a schema and a version and make
 * it current) at time `now_ms`, and returns the new view metadata as JSON
 * text in *out (basalt_malloc'd; *len, may be NULL, its length). The result
 * is parsed back before it is returned, so it is always readable.
 * CORRUPT (malformed update), INVALID_ARG (an update that does not apply:
 * an unknown schema or version id, -1 with nothing added, a duplicate
 * dialect, no location or no current version for a new view), UNSUPPORTED
 * (another update action, a format version other than 1), NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_view_apply_updates(
    const struct basalt_iceberg_view_metadata *base, const char *updates_json, int64_t now_ms,
    char **out, size_t *len, struct basalt_error *err);

/* What a view is defined by, for the updates below. Borrowed. */
struct basalt_iceberg_view_definition {
    const char *schema_json;       /* a Schema object (its schema-id is ignored) */
    const char *sql;               /* the query text */
    const char *dialect;           /* NULL: "spark" */
    const char *default_catalog;   /* NULL: none */
    const char *default_namespace; /* dotted levels; NULL or "": none */
    const struct basalt_iceberg_kv *properties; /* set on the view */
    uint32_t n_properties;
    /* Summary entries of the version (NULL: {"engine-name": "basalt"}). */
    const struct basalt_iceberg_kv *summary;
    uint32_t n_summary;
};

/* The updates that create a view at `location`: assign-uuid (random),
 * upgrade-format-version 1, add-schema, set-location (none when location is
 * NULL or "": the catalog then chooses), set-properties, add-view-version
 * (version-id 1, schema-id -1, timestamp now_ms) and
 * set-current-view-version -1. *out is the JSON array, basalt_malloc'd.
 * INVALID_ARG (no schema object, no SQL, an empty namespace level), NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_view_create_updates(
    const struct basalt_iceberg_view_definition *def, const char *location, int64_t now_ms,
    char **out, struct basalt_error *err);

/* The change that replaces the current version of `base` by `def`:
 * requirements [assert-view-uuid] and updates add-schema, add-view-version
 * (the highest version id + 1, schema-id -1), set-current-view-version -1
 * and, when def has properties, set-properties. Both basalt_malloc'd.
 * INVALID_ARG, NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_view_replace_updates(
    const struct basalt_iceberg_view_metadata *base,
    const struct basalt_iceberg_view_definition *def, int64_t now_ms, char **requirements,
    char **updates, struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
