/* Internal declarations of table changes: updates, requirements, commits.
 * Not part of the public API. */
#ifndef BASALT_ICEBERG_COMMIT_INTERNAL_H
#define BASALT_ICEBERG_COMMIT_INTERNAL_H

#include <jansson.h>

#include "basalt/iceberg_commit.h"
#include "basalt/iceberg_write.h"

/* Random bytes from the kernel (a clock-seeded mix when it has none). */
void basalt_iceberg_random_bytes(void *out, size_t len);
/* A random positive snapshot id, as Java derives one from a UUID. */
int64_t basalt_iceberg_new_snapshot_id(void);
/* Milliseconds since the epoch. */
int64_t basalt_iceberg_now_ms(void);

/* Whether two files' partition tuples are equal (same arity, values equal
 * or both null). */
bool basalt_iceberg_partition_equal(const struct basalt_iceberg_data_file *a,
                                    const struct basalt_iceberg_data_file *b);

/* After a commit of snapshot `snapshot_id` answered UNKNOWN_OUTCOME:
 * reloads the table. OK when the snapshot is there (the commit happened:
 * err cleared); else UNKNOWN_OUTCOME saying the commit state is unknown
 * and the files were kept (commit_status.c). */
basalt_status basalt_iceberg_commit_status_check(const struct basalt_iceberg_committer *committer,
                                                 const char *identifier, int64_t snapshot_id,
                                                 struct basalt_error *err);

/* Numbers the fields of schema JSON as Java's fresh ids: a struct's
 * fields take the next ids together, then each nested type in turn. */
void basalt_iceberg_assign_fresh_ids(json_t *schema);
/* The same numbering for the ids nested in `type`, from *next on. */
void basalt_iceberg_assign_ids_from(json_t *type, int32_t *next);

/* A partition spec object ({"spec-id": 0, "fields": [...]}, fields without
 * field ids) from partition text, resolved against `schema`. *out is a new
 * reference (also on failure, when not NULL). INVALID_ARG, NOMEM. */
struct basalt_iceberg_schema;
basalt_status basalt_iceberg_spec_from_text(const struct basalt_iceberg_schema *schema,
                                           const char *text, json_t **out,
                                           struct basalt_error *err);

/* ---------------------------------------------------- metadata as JSON */

/* What the updates of one change share: ids added last (for the -1 forms). */
struct basalt_iceberg_update_state {
    json_t *m;                       /* the metadata object being changed */
    int64_t now_ms;
    int32_t last_added_schema_id;    /* -1: none added yet */
    int32_t last_added_spec_id;
    int32_t last_added_order_id;
    bool is_new;                     /* no base: format version may be set freely */
};

/* One member of an object as an integer (INVALID_ARG naming it when missing
 * or not an integer, unless optional: then `dflt`). */
basalt_status basalt_iceberg_jint(const json_t *o, const char *key, bool required, int64_t dflt,
                                  int64_t *out, struct basalt_error *err);
/* The member `key` of `o` as an array / object, created empty when missing.
 * NULL on NOMEM. */
json_t *basalt_iceberg_jarray(json_t *o, const char *key);
json_t *basalt_iceberg_jobject(json_t *o, const char *key);
/* The element of array `arr` whose integer member `key` is `id`, or NULL. */
json_t *basalt_iceberg_jfind(const json_t *arr, const char *key, int64_t id);

/* Schema, spec and sort-order updates (update_schema.c). */
basalt_status basalt_iceberg_update_add_schema(struct basalt_iceberg_update_state *s,
                                               const json_t *u, struct basalt_error *err);
basalt_status basalt_iceberg_update_set_current_schema(struct basalt_iceberg_update_state *s,
                                                       const json_t *u,
                                                       struct basalt_error *err);
basalt_status basalt_iceberg_update_add_spec(struct basalt_iceberg_update_state *s,
                                             const json_t *u, struct basalt_error *err);
basalt_status basalt_iceberg_update_set_default_spec(struct basalt_iceberg_update_state *s,
                                                     const json_t *u, struct basalt_error *err);
basalt_status basalt_iceberg_update_add_sort_order(struct basalt_iceberg_update_state *s,
                                                   const json_t *u, struct basalt_error *err);
basalt_status basalt_iceberg_update_set_default_sort_order(struct basalt_iceberg_update_state *s,
                                                           const json_t *u,
                                                           struct basalt_error *err);
basalt_status basalt_iceberg_update_remove_ids(struct basalt_iceberg_update_state *s,
                                               const json_t *u, const char *list_key,
                                               const char *array_key, const char *id_key,
                                               const char *current_key,
                                               struct basalt_error *err);

/* Snapshot and ref updates (update_snapshot.c). */
basalt_status basalt_iceberg_update_add_snapshot(struct basalt_iceberg_update_state *s,
                                                 const json_t *u, struct basalt_error *err);
basalt_status basalt_iceberg_update_set_ref(struct basalt_iceberg_update_state *s,
                                            const json_t *u, struct basalt_error *err);
basalt_status basalt_iceberg_update_remove_ref(struct basalt_iceberg_update_state *s,
                                               const json_t *u, struct basalt_error *err);
basalt_status basalt_iceberg_update_remove_snapshots(struct basalt_iceberg_update_state *s,
                                                     const json_t *u, struct basalt_error *err);

#endif
