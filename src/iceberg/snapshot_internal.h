/* Internal declarations of snapshot producers. Not part of the public API. */
#ifndef BASALT_ICEBERG_SNAPSHOT_INTERNAL_H
#define BASALT_ICEBERG_SNAPSHOT_INTERNAL_H

#include <jansson.h>

#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_types.h"

/* The summary of an append of files[0, n) on top of `parent` (NULL for the
 * first snapshot): "operation", the added counts and the running totals,
 * plus `extra` entries. NULL on NOMEM. */
json_t *basalt_iceberg_append_summary(const struct basalt_iceberg_data_file *files, uint32_t n,
                                      const struct basalt_iceberg_snapshot *parent,
                                      const struct basalt_iceberg_kv *extra, uint32_t n_extra);

/* ----------------------------------------------------- rewriting commits */

/* A change that removes data files and adds others in one snapshot. */
struct basalt_iceberg_rewrite {
    const char *branch;                       /* NULL: main */
    const char *operation;                    /* "append", "delete", "overwrite", "replace" */
    const char *const *removed;               /* paths, sorted (strcmp) */
    uint32_t n_removed;
    const struct basalt_iceberg_data_file *added;
    uint32_t n_added;
    const struct basalt_iceberg_kv *summary;  /* extra summary entries */
    uint32_t n_summary;
    /* Delete files added (position deletes, DVs, equality deletes), each in
     * the spec of the data files it applies to; a delete manifest per spec. */
    const struct basalt_iceberg_data_file *added_deletes;
    const int32_t *added_delete_specs;
    uint32_t n_added_deletes;
    /* Data files whose deletion vector the change replaces with a merged
     * one (sorted, strcmp). Their old DVs are removed, and so are the DVs
     * and file-scoped position deletes of every removed data file, so that
     * a data file never has two DVs and no delete outlives its file. */
    const char *const *replaced_dvs;
    uint32_t n_replaced_dvs;
    /* Delete files to remove (paths, sorted), e.g. those that only applied
     * to removed data files. A Puffin path removes none of its DVs: those
     * go with their data files (above). CONFLICT when one is not live. */
    const char *const *removed_deletes;
    uint32_t n_removed_deletes;
    /* The data sequence number of the added files (a rewrite keeps its
     * starting snapshot's, so that deletes committed since still apply);
     * without it they get the new snapshot's. */
    bool has_added_sequence_number;
    int64_t added_sequence_number;
};

/* Counts of delete files, for snapshot summaries. */
struct basalt_iceberg_delete_counts {
    int64_t files, position_files, dvs, equality_files;
    int64_t position_records, equality_records, bytes;
};

/* What one attempt wrote (to delete when it loses) and counted. */
struct basalt_iceberg_rewrite_state {
    struct basalt_string_list written;        /* manifests and the list */
    int64_t deleted_files, deleted_rows, deleted_bytes;
    struct basalt_iceberg_delete_counts removed_deletes;
    bool *named_deletes_seen;                 /* per removed_deletes path */
};

/* Adds what `f` (a delete file) counts to *c. */
void basalt_iceberg_delete_counts_add(struct basalt_iceberg_delete_counts *c,
                                      const struct basalt_iceberg_data_file *f);
/* Writes the added-* and removed-* delete entries of a summary (those that
 * are not zero) and moves the parent's delete totals on. false on NOMEM. */
bool basalt_iceberg_summary_deletes(json_t *summary, const struct basalt_iceberg_delete_counts *added,
                                    const struct basalt_iceberg_delete_counts *removed,
                                    const struct basalt_iceberg_snapshot *parent);

/* Writes the manifests and manifest list of the change against `t`'s
 * branch head and builds its requirements (the head must not have moved)
 * and updates (add-snapshot, set-snapshot-ref). CONFLICT when a file to
 * remove is no longer live in the head. */
basalt_status basalt_iceberg_rewrite_build(const struct basalt_iceberg_table *t,
                                           const struct basalt_iceberg_rewrite *rw,
                                           int64_t snapshot_id, struct basalt_arena *arena,
                                           struct basalt_iceberg_rewrite_state *state,
                                           char **requirements, char **updates,
                                           struct basalt_error *err);

/* Writes one manifest of `entries` (content DATA or DELETES, spec
 * `spec_id`) at "<location>/metadata/<uuid>-m<k>.avro" for the snapshot;
 * *summary filled (its manifest_path too) and the location added to
 * state->written. `keep_added_sequence_numbers`: ADDED entries with a
 * sequence number >= 0 keep it. The statuses of writing. */
basalt_status basalt_iceberg_snapshot_write_manifest(
    const struct basalt_iceberg_table *t, int64_t snapshot_id, const char *uuid, int k,
    int32_t spec_id, enum basalt_iceberg_manifest_content content,
    bool keep_added_sequence_numbers, const struct basalt_iceberg_manifest_entry *entries,
    uint32_t n, struct basalt_arena *arena, struct basalt_iceberg_manifest_file *summary,
    struct basalt_iceberg_rewrite_state *state, struct basalt_error *err);

/* Merges the data manifests of list[0, *n_list) as the table's
 * commit.manifest-merge.* properties say (commit_merge.c); merged manifests
 * are named <uuid>-m<k> from k = first_k on. The list shrinks in place.
 * The statuses of reading and writing manifests. */
basalt_status basalt_iceberg_merge_manifests(const struct basalt_iceberg_table *t,
                                             int64_t snapshot_id, const char *uuid, int first_k,
                                             struct basalt_iceberg_manifest_file *list,
                                             uint32_t *n_list, struct basalt_arena *arena,
                                             struct basalt_iceberg_rewrite_state *state,
                                             struct basalt_error *err);

/* Writes the manifest list of list[0, n_list) for a new snapshot on `branch`
 * whose parent is `head` (NULL: none) and builds the commit: requirements
 * (assert-ref-snapshot-id: the head has not moved) and updates
 * (add-snapshot with `summary`, taken in every case, and set-snapshot-ref).
 * uuid names the list file. The statuses of writing, NOMEM. */
basalt_status basalt_iceberg_snapshot_finish(const struct basalt_iceberg_table *t,
                                             const char *branch,
                                             const struct basalt_iceberg_snapshot *head,
                                             int64_t snapshot_id, const char *uuid,
                                             struct basalt_iceberg_manifest_file *list,
                                             uint32_t n_list, json_t *summary,
                                             struct basalt_arena *arena,
                                             struct basalt_iceberg_rewrite_state *state,
                                             char **requirements, char **updates,
                                             struct basalt_error *err);

/* The requirements and updates that point `branch` at snapshot `to`,
 * asserting it is at `from` (NULL: absent). NOMEM. */
basalt_status basalt_iceberg_snapshot_move_ref(const char *branch,
                                               const struct basalt_iceberg_snapshot *from,
                                               int64_t to, char **requirements, char **updates,
                                               struct basalt_error *err);

/* ------------------------------------------------------- reachable files */

struct basalt_iceberg_io;
struct basalt_iceberg_metadata;
struct basalt_iceberg_manifest_list;

/* Sorted, unique lists of the files some snapshots reach. */
struct basalt_iceberg_reach {
    struct basalt_string_list lists;     /* manifest lists */
    struct basalt_string_list manifests;
    struct basalt_string_list files;     /* data and delete files */
};

/* Adds what snapshots ids[0, n) of `m` reach (unknown ids skipped): their
 * manifest lists and manifests and, with `with_files`, the files their
 * manifests name (only live entries with `live_only`). Reads through `io`.
 * The statuses of reading manifest lists and manifests, NOMEM. */
basalt_status basalt_iceberg_reach_snapshots(const struct basalt_iceberg_io *io,
                                             const struct basalt_iceberg_metadata *m,
                                             const int64_t *ids, uint32_t n_ids, bool with_files,
                                             bool live_only, struct basalt_iceberg_reach *out,
                                             struct basalt_error *err);
bool basalt_iceberg_reach_has(const struct basalt_string_list *sorted, const char *s);
void basalt_iceberg_reach_reset(struct basalt_iceberg_reach *r);

/* Reads and parses a snapshot's manifest list. UNSUPPORTED for v1 inline
 * manifests; the statuses of reading and parsing. */
basalt_status basalt_iceberg_read_manifest_list(const struct basalt_iceberg_io *io,
                                                const struct basalt_iceberg_metadata *m,
                                                const struct basalt_iceberg_snapshot *s,
                                                struct basalt_iceberg_manifest_list **out,
                                                struct basalt_error *err);

#endif
