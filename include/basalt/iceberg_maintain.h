/* basalt iceberg: table maintenance.
 *
 *   - basalt_iceberg_compact             rewrite small (or large, or deleted
 *                                        from) data files into files near the
 *                                        target size, deletes applied
 *   - basalt_iceberg_rewrite_manifests   regroup the data manifests of the
 *                                        current snapshot by partition
 *   - basalt_iceberg_remove_orphans      delete the files under the table's
 *                                        location that no metadata reaches
 *   - basalt_iceberg_cherry_pick         apply an append snapshot onto a
 *                                        branch
 *
 * Each commits through a basalt_iceberg_committer (iceberg_commit.h) and
 * behaves as the Java library's action of the same purpose
 * (RewriteDataFiles, RewriteManifests, DeleteOrphanFiles,
 * CherryPickOperation), as described at each function. */
#ifndef BASALT_ICEBERG_MAINTAIN_H
#define BASALT_ICEBERG_MAINTAIN_H

#include "basalt/core.h"
#include "basalt/iceberg_commit.h"

#ifdef __cplusplus
extern "C" {
#endif

struct basalt_pool;

/* ------------------------------------------------------------ compaction */

enum basalt_iceberg_compact_strategy {
    BASALT_ICEBERG_COMPACT_BINPACK = 0, /* rows kept in file order */
    BASALT_ICEBERG_COMPACT_SORT = 1,    /* rows of a partition sorted */
};

struct basalt_iceberg_compact_options {
    const char *branch;                 /* NULL: main */
    enum basalt_iceberg_compact_strategy strategy;
    /* SORT: "col [asc|desc] [nulls first|nulls last], ..." over top-level
     * primitive columns; NULL: the table's default sort order (identity and
     * order-preserving transforms sort by their source column; bucket is
     * UNSUPPORTED; an unsorted table is INVALID_ARG). */
    const char *sort;
    /* Bytes; -1: the table's write.target-file-size-bytes (default 512 MiB). */
    int64_t target_file_size;
    /* Files below min or above max are rewritten; -1: 0.75 and 1.8 times
     * the target, as Java's defaults. */
    int64_t min_file_size, max_file_size;
    /* A partition's candidates are rewritten when there are at least this
     * many (and more than one), or their bytes pass the target, or one is
     * above max, or one carries deletes; default 5. */
    int32_t min_input_files;
    bool rewrite_all;                   /* every file of every partition */
    /* Only files that may hold rows matching this filter (text language of
     * iceberg_expr.h; pruned by partition and metrics) are candidates;
     * NULL: all. */
    const char *filter;
    struct basalt_pool *pool;           /* reading and writing */
    int num_workers;
    int retries;                        /* attempts after a conflict (default 10) */
};

BASALT_EXPORT void basalt_iceberg_compact_options_init(struct basalt_iceberg_compact_options *o);

struct basalt_iceberg_compact_result {
    int64_t snapshot_id;                /* 0: nothing to rewrite, no snapshot */
    uint32_t groups;                    /* partitions rewritten */
    uint32_t data_files_removed;
    uint32_t data_files_added;
    uint32_t delete_files_removed;
    int64_t rows;                       /* rows written (deletes applied) */
    int64_t bytes_removed, bytes_added; /* data files */
    uint32_t attempts;                  /* commits tried */
};

/* Compacts the data files of the branch head as Java's RewriteDataFiles:
 * the live data files are grouped by spec and partition; in each group the
 * files smaller than min_file_size, larger than max_file_size or with
 * deletes applying to them are candidates, and a group's candidates are
 * rewritten when options allow (see min_input_files). They are read with
 * their deletes applied (position deletes, deletion vectors, equality
 * deletes), in the current schema, and written by the data writer in the
 * table's default spec at the target size (SORT: each group's rows sorted
 * first). One snapshot (operation "replace") removes the rewritten files
 * and the delete files that applied only to them, and adds the new files
 * with the data sequence number of the snapshot the compaction started
 * from, so that deletes committed meanwhile still apply to them. When the
 * commit loses a race the new head is checked: a rewritten file removed or
 * a delete file added that applies to one is CONFLICT for that attempt,
 * which starts over (the files it wrote deleted); otherwise the same files
 * are committed on the new head. Nothing to rewrite: OK, no snapshot.
 * *result (may be NULL) says what was done. INVALID_ARG (bad options, sort
 * text or filter), NOT_FOUND, UNSUPPORTED (a sort column type or
 * transform), CONFLICT after the retries, the statuses of reading, writing
 * and committing. */
BASALT_EXPORT basalt_status basalt_iceberg_compact(const struct basalt_iceberg_committer *committer,
                                                   const char *identifier,
                                                   const struct basalt_iceberg_compact_options *options,
                                                   struct basalt_iceberg_compact_result *result,
                                                   struct basalt_error *err);

/* ------------------------------------------------------ manifest rewrite */

struct basalt_iceberg_rewrite_manifests_options {
    const char *branch;                 /* NULL: main */
    /* Bytes per new manifest; -1: the table's
     * commit.manifest.target-size-bytes (default 8 MiB). */
    int64_t target_size;
    int retries;                        /* attempts after a conflict (default 10) */
};

BASALT_EXPORT void basalt_iceberg_rewrite_manifests_options_init(
    struct basalt_iceberg_rewrite_manifests_options *o);

struct basalt_iceberg_rewrite_manifests_result {
    int64_t snapshot_id;                /* 0: no data manifest, no snapshot */
    uint32_t manifests_replaced;
    uint32_t manifests_created;
    uint32_t manifests_kept;            /* delete manifests, carried */
    int64_t entries;                    /* live data file entries moved */
};

/* Rewrites the data manifests of the branch head as Java's
 * RewriteManifests: their live entries are sorted by spec and partition
 * and cut into manifests of about target_size bytes (estimated from the
 * old manifests' bytes per entry), each entry EXISTING with its snapshot id
 * and sequence numbers kept; delete manifests are carried as they are. One
 * snapshot (operation "replace", summary manifests-created /
 * manifests-replaced / manifests-kept / entries-processed, totals carried)
 * asserting the head has not moved; on a conflict it is redone on the new
 * head. The statuses of reading, writing and committing. */
BASALT_EXPORT basalt_status basalt_iceberg_rewrite_manifests(
    const struct basalt_iceberg_committer *committer, const char *identifier,
    const struct basalt_iceberg_rewrite_manifests_options *options,
    struct basalt_iceberg_rewrite_manifests_result *result, struct basalt_error *err);

/* ---------------------------------------------------------- orphan files */

struct basalt_iceberg_remove_orphans_options {
    /* Only files modified before this (Unix ms) go; -1: now minus 3 days. */
    int64_t older_than_ms;
    bool dry_run;                       /* find and count, delete nothing */
    /* Called for each orphan found (deleted or, dry, to delete); may be NULL. */
    void (*visit)(void *ctx, const char *location);
    void *visit_ctx;
};

BASALT_EXPORT void basalt_iceberg_remove_orphans_options_init(
    struct basalt_iceberg_remove_orphans_options *o);

struct basalt_iceberg_remove_orphans_result {
    uint64_t files_listed;
    uint64_t files_reachable;           /* listed files some metadata names */
    uint64_t orphans;                   /* deleted (or, dry, to delete) */
    uint64_t too_young;                 /* orphans kept: modified after the cut-off */
};

/* Deletes the files under the table's location that nothing reaches, as
 * Java's DeleteOrphanFiles: reachable are every snapshot's manifest list,
 * manifests and the data and delete files they name (deleted entries too),
 * statistics and partition statistics files, every metadata file of the
 * metadata log, the current metadata file and version-hint.text. Locations
 * are compared in their resolved form (basalt_iceberg_io_resolve), so
 * "file:///t" and "/t" are the same file. A file whose modification time is
 * unknown is kept. The table is only read: nothing is committed. NOT_FOUND,
 * the statuses of listing, reading metadata and deleting. */
BASALT_EXPORT basalt_status basalt_iceberg_remove_orphans(
    const struct basalt_iceberg_table *table,
    const struct basalt_iceberg_remove_orphans_options *options,
    struct basalt_iceberg_remove_orphans_result *result, struct basalt_error *err);

/* ------------------------------------------------------------ cherry-pick */

struct basalt_iceberg_cherry_pick_result {
    int64_t snapshot_id;                /* the branch's new head */
    bool fast_forward;                  /* the head was the source's parent */
    uint32_t files_added;
};

/* Applies snapshot `snapshot_id` onto `branch` (NULL: main) as Java's
 * CherryPickOperation: when the source's parent is the branch head the
 * branch is moved to the source (fast-forward); otherwise the source must be
 * an append, and its added data files are appended in a new snapshot whose
 * summary carries "source-snapshot-id" (and "published-wap-id" when the
 * source has a "wap.id"). NOT_FOUND (no such snapshot or branch),
 * INVALID_ARG (already an ancestor of the branch head, already picked into
 * one, or not an append), CONFLICT after the retries, the statuses of
 * reading and committing. */
BASALT_EXPORT basalt_status basalt_iceberg_cherry_pick(
    const struct basalt_iceberg_committer *committer, const char *identifier,
    int64_t snapshot_id, const char *branch, int retries,
    struct basalt_iceberg_cherry_pick_result *result, struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
