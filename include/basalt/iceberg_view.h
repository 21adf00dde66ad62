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

#ifdef __cplusplus
}
#endif

#endif
