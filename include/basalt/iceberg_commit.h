/* basalt iceberg: changing tables.
 *
 * A change to a table is a list of requirements and a list of updates, the
 * TableRequirement and TableUpdate objects of the REST catalog specification
 * (../reference/iceberg-rest-catalog-open-api.yaml), as JSON text. One model
 * serves every catalog: a REST catalog receives the lists as they are; the
 * SQL and file-system catalogs check the requirements against the table's
 * current metadata, apply the updates, write the next metadata file and
 * swap the catalog's pointer to it atomically (compare-and-swap), so two
 * writers never both win.
 *
 * Requirements (a failed one is CONFLICT, naming it):
 *   assert-create, assert-table-uuid, assert-ref-snapshot-id (snapshot-id
 *   null: the ref must not exist), assert-last-assigned-field-id,
 *   assert-current-schema-id, assert-last-assigned-partition-id,
 *   assert-default-spec-id, assert-default-sort-order-id.
 * Updates: assign-uuid, upgrade-format-version, add-schema,
 *   set-current-schema (-1: the schema added last), add-spec,
 *   set-default-spec (-1), add-sort-order, set-default-sort-order (-1),
 *   add-snapshot, set-snapshot-ref, remove-snapshots, remove-snapshot-ref,
 *   set-location, set-properties, remove-properties, set-statistics,
 *   remove-statistics, set-partition-statistics, remove-partition-statistics,
 *   remove-partition-specs, remove-schemas. Others are UNSUPPORTED.
 * Added schemas, specs and sort orders get the next free id unless an equal
 * one exists (its id is reused), as the Java metadata builder does. */
#ifndef BASALT_ICEBERG_COMMIT_H
#define BASALT_ICEBERG_COMMIT_H

#include "basalt/arrow.h"
#include "basalt/core.h"
#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------- requirements */

/* Checks a JSON array of requirements against `base` (NULL: the table does
 * not exist, so only assert-create holds). CONFLICT naming the first that
 * fails; CORRUPT for malformed JSON or an unknown requirement type. */
BASALT_EXPORT basalt_status basalt_iceberg_check_requirements(
    const struct basalt_iceberg_metadata *base, const char *requirements_json,
    struct basalt_error *err);

/* ---------------------------------------------------------------- updates */

struct basalt_iceberg_update_context {
    int64_t now_ms;                         /* last-updated-ms of the result */
    /* The file `base` was read from: added to the metadata log (NULL: none,
     * as for a new table). */
    const char *base_location;
};

/* Applies a JSON array of updates to `base` (NULL: a new, empty table: the
 * updates must then set a location and add a schema) and returns the new
 * metadata as JSON text in *out (basalt_malloc'd, *len its length). The
 * result is checked by parsing it back, so it is always loadable. The
 * metadata log keeps write.metadata.previous-versions-max entries (default
 * 100). CORRUPT (malformed update), INVALID_ARG (an update that does not
 * apply: an unknown schema id, a snapshot with an older sequence number,
 * a ref to a missing snapshot...), UNSUPPORTED, NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_apply_updates(
    const struct basalt_iceberg_metadata *base, const char *updates_json,
    const struct basalt_iceberg_update_context *ctx, char **out, size_t *len,
    struct basalt_error *err);

/* ---------------------------------------------------------- table creation */

/* A schema from text: comma-separated "name type [not null] [comment 'doc']"
 * with types boolean, int, long, float, double, decimal(P,S), date, time,
 * timestamp, timestamptz, timestamp_ns, timestamptz_ns, string, uuid,
 * fixed[L], binary, variant, unknown, struct<name: type, ...>, list<type>,
 * map<type, type> (case-insensitive; "bigint", "integer", "varchar" and
 * "bool" also accepted). Field ids are assigned as the Java library
 * assigns fresh ids: 1..n for the top-level fields, then the fields nested
 * in each, breadth first. *out: the schema's JSON (schema-id 0),
 * basalt_malloc'd. INVALID_ARG with the position of the first error. */
BASALT_EXPORT basalt_status basalt_iceberg_schema_from_text(const char *text, char **out,
                                                            struct basalt_error *err);

/* The updates that create a table: assign-uuid (a random UUID),
 * upgrade-format-version, add-schema (schema_json), set-current-schema,
 * add-spec from `partition_text` ("month(ts), bucket(16, id), truncate(4,
 * name), day(d), year(d), hour(ts), identity(x) or x, void(x)"; NULL or "":
 * unpartitioned; partition field names as the Java builder names them:
 * ts_month, id_bucket, name_trunc, x, x_null...), set-default-spec, add-sort-order
 * from `sort_text` ("col [asc|desc] [nulls first|nulls last]" or a transform
 * of a column, comma separated; NULL: unsorted), set-default-sort-order,
 * set-location and set-properties. *out is the JSON array, basalt_malloc'd.
 * INVALID_ARG naming the bad clause (an unknown column, a transform that
 * does not apply to the column's type). */
BASALT_EXPORT basalt_status basalt_iceberg_create_updates(
    const char *schema_json, const char *partition_text, const char *sort_text,
    int32_t format_version, const char *location, const struct basalt_iceberg_kv *properties,
    uint32_t n_properties, char **out, struct basalt_error *err);

/* The same updates from JSON objects, as a REST CreateTableRequest carries
 * them: `schema_json` a Schema (field ids as given: they are kept),
 * `spec_json` a PartitionSpec and `order_json` a SortOrder (NULL or "":
 * unpartitioned, unsorted), `properties_json` an object of strings (NULL:
 * none). Partition field ids and spec and order ids are assigned as for
 * add-spec and add-sort-order when missing. *out is the JSON array,
 * basalt_malloc'd. INVALID_ARG (not an object, no schema fields, a property
 * that is not a string, no location), UNSUPPORTED (format version), NOMEM;
 * what the objects hold is checked when the updates are applied. */
BASALT_EXPORT basalt_status basalt_iceberg_create_updates_json(
    const char *schema_json, const char *spec_json, const char *order_json,
    int32_t format_version, const char *location, const char *properties_json, char **out,
    struct basalt_error *err);

/* ---------------------------------------------------------- committing */

/* How a change reaches the catalog that names a table. Every catalog kind
 * provides one (catalog.h: basalt_catalog_committer), so the table format
 * commits without knowing whether SQL, a file system or HTTP is behind it.
 *   load    the table as the catalog has it now (*out owned by the caller);
 *   commit  requirements and updates as basalt_catalog_commit_table takes
 *           them: CONFLICT when a requirement fails or another writer won,
 *           UNKNOWN_OUTCOME when it may have been applied (a lost
 *           connection after the request went out), any other failure
 *           when it certainly was not; *out (may be NULL) the table as
 *           committed. */
struct basalt_iceberg_committer {
    void *ctx;
    basalt_status (*load)(void *ctx, const char *identifier, struct basalt_iceberg_table **out,
                          struct basalt_error *err);
    basalt_status (*commit)(void *ctx, const char *identifier, const char *requirements_json,
                            const char *updates_json, struct basalt_iceberg_table **out,
                            struct basalt_error *err);
};

/* A random (version 4) UUID as 36 lowercase characters and a NUL, as table
 * uuids and file names use them. */
BASALT_EXPORT void basalt_iceberg_uuid4(char out[37]);

/* ------------------------------------------------------------ appending */

struct basalt_iceberg_append_options {
    const char *branch;                     /* NULL: "main" */
    /* Extra snapshot summary entries (borrowed). */
    const struct basalt_iceberg_kv *summary;
    uint32_t n_summary;
    /* -1: the table's commit.retry.num-retries (default 4). Waits between
     * attempts follow commit.retry.min-wait-ms / max-wait-ms (100 / 60000),
     * doubling, with jitter. */
    int retries;
    /* The table as the caller last loaded it (borrowed; NULL: none): the
     * first attempt builds on it instead of loading the table again, which
     * spares a catalog round trip when the caller has just loaded it to
     * write the files. Stale is safe: the commit then meets CONFLICT and
     * the retries load the table afresh. */
    const struct basalt_iceberg_table *base;
};

BASALT_EXPORT void basalt_iceberg_append_options_init(struct basalt_iceberg_append_options *o);

/* Fast append: commits files[0, n) (DATA files of the table's default spec,
 * as basalt_iceberg_data_writer_finish returns them) as one new snapshot
 * (operation "append") on the branch. One manifest of the new files is
 * written once; each attempt writes a manifest list of it plus the base's
 * manifests and commits with assert-ref-snapshot-id on the branch. On
 * CONFLICT (another writer committed first) the table is reloaded and the
 * commit retried. An append never conflicts with other changes, so only the
 * retry limit makes it fail.
 * On failure the manifest and manifest lists written are deleted, except
 * when the commit's outcome is unknown (UNKNOWN_OUTCOME from the catalog,
 * and the snapshot not found in the table loaded again), in which case
 * nothing that a successful commit might reference is deleted and the
 * status is UNKNOWN_OUTCOME. The data files are the caller's (delete them with
 * basalt_iceberg_data_writer_abort on failure).
 * *out (may be NULL) receives the table as committed; *snapshot_id (may be
 * NULL) the new snapshot's id. */
BASALT_EXPORT basalt_status basalt_iceberg_append(
    const struct basalt_iceberg_committer *committer, const char *identifier,
    const struct basalt_iceberg_data_file *files, uint32_t n_files,
    const struct basalt_iceberg_append_options *options, struct basalt_iceberg_table **out,
    int64_t *snapshot_id, struct basalt_error *err);

/* ------------------------------------------------------------- evolution */

enum basalt_iceberg_column_change_kind {
    BASALT_ICEBERG_ADD_COLUMN,        /* value: the type text (as schema text) */
    BASALT_ICEBERG_DROP_COLUMN,
    BASALT_ICEBERG_RENAME_COLUMN,     /* value: the new name of the last level */
    BASALT_ICEBERG_UPDATE_COLUMN,     /* value: the wider type (int -> long,
                                         float -> double, decimal(P,S) ->
                                         decimal(P2,S) with P2 >= P) */
    BASALT_ICEBERG_MAKE_OPTIONAL,
    BASALT_ICEBERG_MOVE_FIRST,
    BASALT_ICEBERG_MOVE_AFTER,        /* value: the column it follows (same parent) */
    BASALT_ICEBERG_MOVE_BEFORE,       /* value: the column it precedes (same parent) */
    BASALT_ICEBERG_SET_DOC,           /* value: the doc */
};

/* One schema change. `column` is the full dotted name ("loc.alt": for an
 * add, the new field alt inside struct loc; lists and maps are crossed by
 * "element", "key", "value"). */
struct basalt_iceberg_column_change {
    enum basalt_iceberg_column_change_kind kind;
    const char *column;
    const char *value;
};

/* The requirements and updates that apply `changes` in order to the
 * current schema of `m`, as one new schema (the Java library's
 * UpdateSchema): new fields get ids from last-column-id + 1 on (nested ones
 * in fresh-id order) and are optional (a required new column would make
 * existing rows invalid); dropped columns may not be identifier fields or
 * sources of the default partition spec or sort order. Requirements:
 * assert-current-schema-id and assert-last-assigned-field-id, so a
 * concurrent schema change makes the commit fail rather than lose one of
 * the two. *requirements and *updates are basalt_malloc'd JSON arrays.
 * INVALID_ARG naming the change (an unknown column, a name taken, a type
 * change that is not a promotion...), NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_schema_changes(
    const struct basalt_iceberg_metadata *m, const struct basalt_iceberg_column_change *changes,
    uint32_t n_changes, char **requirements, char **updates, struct basalt_error *err);

/* Partition spec evolution: a new default spec of the current one's fields
 * minus those named in drop[0, n_drop), plus the clauses of `add_text` (as
 * basalt_iceberg_create_updates reads them; NULL for none). Fields kept keep
 * their ids; requirements assert-default-spec-id and
 * assert-last-assigned-partition-id. INVALID_ARG (an unknown field, a clause
 * that does not apply, a field both kept and added), NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_spec_changes(const struct basalt_iceberg_metadata *m,
                                                        const char *add_text,
                                                        const char *const *drop,
                                                        uint32_t n_drop, char **requirements,
                                                        char **updates,
                                                        struct basalt_error *err);

/* ----------------------------------------------------------------- expiry */

struct basalt_iceberg_expire_options {
    /* Snapshots older than this (Unix ms) may go; -1: now minus the table's
     * history.expire.max-snapshot-age-ms (default 5 days). */
    int64_t older_than_ms;
    /* Snapshots each branch keeps whatever their age; -1: the table's
     * history.expire.min-snapshots-to-keep (default 1). A ref's own
     * min-snapshots-to-keep / max-snapshot-age-ms take precedence. */
    int32_t retain_last;
    bool clean_files;   /* delete what only expired snapshots reached (default true) */
    bool dry_run;       /* decide and count, change nothing */
    int retries;        /* attempts after a conflict (default 10) */
};

BASALT_EXPORT void basalt_iceberg_expire_options_init(struct basalt_iceberg_expire_options *o);

struct basalt_iceberg_expire_result {
    uint32_t snapshots_expired;
    uint32_t refs_removed;
    uint32_t manifest_lists_deleted;
    uint32_t manifests_deleted;
    uint32_t files_deleted;             /* data and delete files */
};

/* Expires snapshots as the Java library's ExpireSnapshots does: every branch
 * keeps its head and the ancestors within its retention, tags keep their
 * snapshot, refs older than their max-ref-age-ms (table default
 * history.expire.max-ref-age-ms) are removed (never main), snapshots on no
 * branch's history are kept while younger than the cut-off. One commit of
 * remove-snapshot-ref / remove-snapshots, asserting every branch head it
 * decided from (recomputed on conflict). Then, with clean_files, the data
 * files, manifests and manifest lists that expired snapshots reached and
 * kept ones do not are deleted, in that order. *result (may be NULL) counts
 * it all. The statuses of loading, committing and reading manifests. */
BASALT_EXPORT basalt_status basalt_iceberg_expire_snapshots(
    const struct basalt_iceberg_committer *committer, const char *identifier,
    const struct basalt_iceberg_expire_options *options,
    struct basalt_iceberg_expire_result *result, struct basalt_error *err);

/* ------------------------------------------------- delete and overwrite */

struct basalt_pool;

/* How rows are deleted (and updated rows replaced). */
enum basalt_iceberg_delete_mode {
    /* The table's write.delete.mode (write.update.mode for updates):
     * "copy-on-write" (the default) or "merge-on-read". */
    BASALT_ICEBERG_DELETE_TABLE_MODE = 0,
    /* Files holding deleted rows are written again without them. */
    BASALT_ICEBERG_COPY_ON_WRITE,
    /* Delete files record the deleted rows; data files stay (v2+): one
     * position-delete file per data file in v2 tables, deletion vectors in
     * one Puffin file in v3 (merged with the deletes already on the file,
     * whose old vector is removed), or equality deletes on request. A data
     * file whose every row goes is removed instead. */
    BASALT_ICEBERG_MERGE_ON_READ,
};

struct basalt_iceberg_delete_options {
    const char *branch;          /* NULL: main */
    struct basalt_pool *pool;    /* reading and writing the rewritten files */
    int num_workers;
    int retries;                 /* attempts after a conflict (default 10) */
    enum basalt_iceberg_delete_mode mode;
    /* Merge-on-read with equality deletes: the key columns (top-level
     * primitive columns; NULL: position deletes or DVs). Every row of an
     * older data file in the same partition whose key equals a deleted
     * row's key is deleted too, so the keys should identify rows (the
     * table's identifier fields). */
    const char *const *equality_columns;
    uint32_t n_equality_columns;
    /* Update: computes the changed rows in place of literal SET clauses
     * (the clauses are then not read and may be none). Called, one batch at
     * a time and by one thread, with the matching rows as a struct array of
     * the table's top-level columns (`schema`: their Arrow types, as a scan
     * gives them); it replaces *rows (releasing the old) with an array of
     * the same schema and length. An error it returns fails the update and
     * nothing is committed. A query engine evaluates `SET col = expr` so. */
    basalt_status (*set_rows)(void *ctx, const struct ArrowSchema *schema,
                              struct ArrowArray *rows, struct basalt_error *err);
    void *set_rows_ctx;
};

BASALT_EXPORT void basalt_iceberg_delete_options_init(struct basalt_iceberg_delete_options *o);

struct basalt_iceberg_delete_result {
    int64_t snapshot_id;         /* 0: nothing matched, no snapshot */
    uint32_t files_removed;      /* data files taken out of the table */
    uint32_t files_added;        /* files written with the rows kept or updated */
    uint32_t delete_files_added; /* merge-on-read: delete files and DVs */
    int64_t rows_deleted;        /* for an update: the rows updated */
};

/* Deletes the rows where `filter` (the text language of iceberg_expr.h) is
 * true, merge-on-read or copy-on-write as options->mode says. Copy-on-write:
 * the matching rows are found by a scan of their
 * positions (pruned by partitions and metrics); files where every row
 * matches are removed, the others are rewritten without those rows (in the
 * current schema and default spec); deletes already on a file stay applied.
 * With added[0, n_added) (data files the caller wrote) it is an overwrite:
 * one snapshot removes the matching rows and adds those files. The snapshot
 * (operation "delete" or "overwrite") asserts the branch has not moved;
 * when it has, everything is done again on the new head (the attempt's
 * files are deleted), so rows a concurrent writer added are judged too.
 * Nothing matching and nothing added: no snapshot. INVALID_ARG / NOT_FOUND
 * for a bad filter, the statuses of reading, writing and committing. */
BASALT_EXPORT basalt_status basalt_iceberg_delete_where(
    const struct basalt_iceberg_committer *committer, const char *identifier, const char *filter,
    const struct basalt_iceberg_data_file *added, uint32_t n_added,
    const struct basalt_iceberg_delete_options *options,
    struct basalt_iceberg_delete_result *result, struct basalt_error *err);

/* Dynamic partition overwrite (INSERT OVERWRITE without a filter):
 * commits files[0, n) (DATA files of the table's default spec) as one
 * snapshot (operation "overwrite", summary "replace-partitions" = "true")
 * that removes every live data file of the default spec in a partition one
 * of them falls in (in an unpartitioned table: every data file), with the
 * DVs and file-scoped position deletes of those files. The branch head
 * must not have moved; when it has, the files to remove are found again on
 * the new head. result: snapshot_id, files_removed, rows_deleted (the
 * removed files' rows). INVALID_ARG for a delete file, the statuses of
 * planning, writing and committing. */
BASALT_EXPORT basalt_status basalt_iceberg_replace_partitions(
    const struct basalt_iceberg_committer *committer, const char *identifier,
    const struct basalt_iceberg_data_file *files, uint32_t n_files,
    const struct basalt_iceberg_delete_options *options,
    struct basalt_iceberg_delete_result *result, struct basalt_error *err);

/* Row-level update: the rows where `filter` is true get the values of the
 * SET clauses set[0, n_set), each "column = literal" (a top-level primitive
 * column; a literal of the filter language, converted to the column's type
 * as filters convert them, or NULL for an optional column). Copy-on-write
 * rewrites the files holding those rows with the rows changed;
 * merge-on-read deletes them (position deletes, DVs or equality deletes as
 * for a delete) and appends the changed rows in new files. One snapshot
 * ("overwrite"), redone on the new head when the branch moved, as a delete
 * is. INVALID_ARG naming a bad clause (unknown or nested column, a literal
 * that does not convert, NULL for a required column), and the statuses of
 * basalt_iceberg_delete_where. */
BASALT_EXPORT basalt_status basalt_iceberg_update_where(
    const struct basalt_iceberg_committer *committer, const char *identifier, const char *filter,
    const char *const *set, uint32_t n_set, const struct basalt_iceberg_delete_options *options,
    struct basalt_iceberg_delete_result *result, struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
