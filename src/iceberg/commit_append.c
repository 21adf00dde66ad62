/* Fast append: one new manifest of the added files, and per attempt a
 * manifest list of it plus the branch head's manifests, committed with the
 * requirement that the branch has not moved. A moved branch means another
 * writer won; the append is rebuilt on the new head and tried again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "commit_internal.h"
#include "snapshot_internal.h"

void basalt_iceberg_append_options_init(struct basalt_iceberg_append_options *o)
{
    memset(o, 0, sizeof *o);
    o->retries = -1;
}

static long int_property(const struct basalt_iceberg_metadata *m, const char *key, long dflt)
{
    const char *v = basalt_iceberg_metadata_property(m, key);
    if (!v)
        return dflt;
    char *end;
    long n = strtol(v, &end, 10);
    return end == v || n < 0 ? dflt : n;
}

/* Waits before attempt `attempt` (1, 2, ...): doubling from the table's
 * minimum wait up to its maximum, with full jitter so that writers that
 * collided do not collide again in step. */
static void back_off(const struct basalt_iceberg_metadata *m, int attempt)
{
    long min_ms = int_property(m, "commit.retry.min-wait-ms", 100);
    long max_ms = int_property(m, "commit.retry.max-wait-ms", 60000);
    double wait = (double)min_ms;
    for (int i = 1; i < attempt && wait < (double)max_ms; i++)
        wait *= 2;
    if (wait > (double)max_ms)
        wait = (double)max_ms;
    uint32_t r;
    basalt_iceberg_random_bytes(&r, sizeof r);
    long ms = (long)(wait * ((double)r / 4294967296.0));
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static char *location_in(const char *table_location, const char *file)
{
    size_t tl = strlen(table_location);
    while (tl > 1 && table_location[tl - 1] == '/')
        tl--;
    size_t cap = tl + strlen(file) + 16;
    char *loc = basalt_malloc(cap);
    if (loc)
        snprintf(loc, cap, "%.*s/metadata/%s", (int)tl, table_location, file);
    return loc;
}

/* Writes the manifest of the added files; summary->manifest_path set. */
static basalt_status write_new_manifest(const struct basalt_iceberg_table *table,
                                        int64_t snapshot_id, const char *commit_uuid,
                                        const struct basalt_iceberg_data_file *files,
                                        uint32_t n, struct basalt_arena *arena,
                                        struct basalt_iceberg_manifest_file *summary,
                                        char **location, struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = table->metadata;
    char name[96];
    snprintf(name, sizeof name, "%s-m0.avro", commit_uuid);
    *location = location_in(m->location, name);
    if (!*location)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_iceberg_manifest_entry *entries =
        basalt_arena_alloc(arena, (size_t)(n ? n : 1) * sizeof *entries, 8);
    if (!entries)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        memset(&entries[i], 0, sizeof entries[i]);
        entries[i].status = BASALT_ICEBERG_ENTRY_ADDED;
        entries[i].snapshot_id = snapshot_id;
        entries[i].sequence_number = -1;
        entries[i].file_sequence_number = -1;
        entries[i].data_file = files[i];
        if (files[i].content != BASALT_ICEBERG_CONTENT_DATA)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "append: %.300s is a delete file", files[i].file_path);
    }
    struct basalt_iceberg_manifest_write_options mo = {
        .format_version = m->format_version,
        .schema = basalt_iceberg_metadata_current_schema(m),
        .spec = basalt_iceberg_metadata_spec(m, m->default_spec_id),
        .content = BASALT_ICEBERG_MANIFEST_DATA,
        .snapshot_id = snapshot_id,
    };
    struct basalt_output *out = NULL;
    basalt_status st = basalt_iceberg_io_open_output(table->io, *location,
                                                     BASALT_IO_CREATE_EXCLUSIVE, &out, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_manifest_write(&mo, entries, n, out, arena, summary, err);
    if (st == BASALT_OK)
        st = basalt_output_commit(out, err);
    basalt_output_close(out);
    summary->manifest_path = *location;
    return st;
}

/* The manifests of the branch head (none for a new branch). */
static basalt_status head_manifests(const struct basalt_iceberg_table *table,
                                    const struct basalt_iceberg_snapshot *head,
                                    struct basalt_iceberg_manifest_list **out,
                                    struct basalt_error *err)
{
    *out = NULL;
    if (!head)
        return BASALT_OK;
    if (!head->manifest_list)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "snapshot %lld lists its manifests inline (format v1 without a "
                                "manifest list): appending to it is not supported",
                                (long long)head->snapshot_id);
    uint8_t *data = NULL;
    size_t len = 0;
    basalt_status st = basalt_iceberg_io_read_all(table->io, head->manifest_list, &data, &len, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_manifest_list_parse(data, len, head->manifest_list,
                                                table->metadata->format_version, out, err);
    basalt_free(data);
    return st;
}

struct attempt {
    char *list_location;
    char *requirements;
    char *updates;
};

static void attempt_reset(struct attempt *a)
{
    basalt_free(a->list_location);
    free(a->requirements);
    free(a->updates);
    memset(a, 0, sizeof *a);
}

/* Writes this attempt's manifest list and builds its requirements and
 * updates against `table`. */
static basalt_status build_attempt(const struct basalt_iceberg_table *table, const char *branch,
                                   int64_t snapshot_id, const char *commit_uuid, int number,
                                   const struct basalt_iceberg_manifest_file *added,
                                   const struct basalt_iceberg_data_file *files, uint32_t n,
                                   const struct basalt_iceberg_append_options *o,
                                   struct attempt *a, struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = table->metadata;
    const struct basalt_iceberg_snapshot *head = NULL;
    if (basalt_iceberg_metadata_ref(m, branch))
        basalt_iceberg_metadata_snapshot_by_ref(m, branch, &head, NULL);
    struct basalt_iceberg_manifest_list *base_list = NULL;
    basalt_status st = head_manifests(table, head, &base_list, err);
    if (st != BASALT_OK)
        return st;
    uint32_t n_base = base_list ? base_list->n_files : 0;
    struct basalt_iceberg_manifest_file *list = basalt_malloc((n_base + 1) * sizeof *list);
    char name[128];
    snprintf(name, sizeof name, "snap-%lld-%d-%s.avro", (long long)snapshot_id, number, commit_uuid);
    a->list_location = location_in(m->location, name);
    if (!list || !a->list_location) {
        basalt_free(list);
        basalt_iceberg_manifest_list_free(base_list);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    /* The new manifest first, as Java lists it: readers meet new data first. */
    list[0] = *added;
    list[0].sequence_number = -1;
    list[0].min_sequence_number = -1;
    for (uint32_t i = 0; i < n_base; i++)
        list[i + 1] = base_list->files[i];
    int64_t seq = m->format_version >= 2 ? m->last_sequence_number + 1 : 0;
    int64_t first_row_id = m->has_next_row_id ? m->next_row_id : 0, next_row_id = first_row_id;
    struct basalt_iceberg_manifest_list_write_options lo = {
        .format_version = m->format_version,
        .snapshot_id = snapshot_id,
        .has_parent_snapshot_id = head != NULL,
        .parent_snapshot_id = head ? head->snapshot_id : 0,
        .sequence_number = seq,
        .first_row_id = first_row_id,
    };
    struct basalt_output *out = NULL;
    st = basalt_iceberg_io_open_output(table->io, a->list_location, BASALT_IO_CREATE_EXCLUSIVE,
                                       &out, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_manifest_list_write(&lo, list, n_base + 1, out, &next_row_id, err);
    if (st == BASALT_OK)
        st = basalt_output_commit(out, err);
    basalt_output_close(out);
    basalt_free(list);
    json_t *summary = st == BASALT_OK ? basalt_iceberg_append_summary(files, n, head, o->summary,
                                                                      o->n_summary)
                                      : NULL;
    basalt_iceberg_manifest_list_free(base_list);
    if (st != BASALT_OK)
        return st;
    json_t *snap = json_pack("{s:I,s:I,s:I,s:s,s:o,s:i}", "snapshot-id", (json_int_t)snapshot_id,
                             "sequence-number", (json_int_t)seq, "timestamp-ms",
                             (json_int_t)basalt_iceberg_now_ms(), "manifest-list",
                             a->list_location, "summary", summary, "schema-id",
                             (int)m->current_schema_id);
    if (snap && head)
        json_object_set_new(snap, "parent-snapshot-id", json_integer(head->snapshot_id));
    if (snap && m->format_version >= 3) {
        json_object_set_new(snap, "first-row-id", json_integer(first_row_id));
        json_object_set_new(snap, "added-rows", json_integer(next_row_id - first_row_id));
    }
    json_t *updates = snap ? json_pack("[{s:s,s:o},{s:s,s:s,s:s,s:I}]", "action", "add-snapshot",
                                       "snapshot", snap, "action", "set-snapshot-ref", "ref-name",
                                       branch, "type", "branch", "snapshot-id",
                                       (json_int_t)snapshot_id)
                           : NULL;
    json_t *reqs = json_pack("[{s:s,s:s,s:o}]", "type", "assert-ref-snapshot-id", "ref", branch,
                             "snapshot-id",
                             head ? json_integer(head->snapshot_id) : json_null());
    a->updates = updates ? json_dumps(updates, JSON_COMPACT) : NULL;
    a->requirements = reqs ? json_dumps(reqs, JSON_COMPACT) : NULL;
    json_decref(updates);
    json_decref(reqs);
    if (!a->updates || !a->requirements)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    return BASALT_OK;
}

basalt_status basalt_iceberg_append(const struct basalt_iceberg_committer *committer,
                                    const char *identifier,
                                    const struct basalt_iceberg_data_file *files,
                                    uint32_t n_files,
                                    const struct basalt_iceberg_append_options *options,
                                    struct basalt_iceberg_table **out, int64_t *snapshot_id,
                                    struct basalt_error *err)
{
    struct basalt_iceberg_append_options defaults;
    if (!options) {
        basalt_iceberg_append_options_init(&defaults);
        options = &defaults;
    }
    const char *branch = options->branch ? options->branch : "main";
    if (out)
        *out = NULL;
    struct basalt_iceberg_table *table = NULL;
    basalt_status st = committer->load(committer->ctx, identifier, &table, err);
    if (st != BASALT_OK)
        return st;
    int retries = options->retries >= 0
                      ? options->retries
                      : (int)int_property(table->metadata, "commit.retry.num-retries", 4);
    int64_t id = basalt_iceberg_new_snapshot_id();
    char commit_uuid[37];
    basalt_iceberg_uuid4(commit_uuid);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_iceberg_manifest_file added;
    memset(&added, 0, sizeof added);
    char *manifest_location = NULL;
    st = write_new_manifest(table, id, commit_uuid, files, n_files, &arena, &added,
                            &manifest_location, err);
    /* Written lists of failed attempts: deleted, since no commit names them. */
    struct attempt a = {0};
    bool unknown = false;
    for (int attempt = 0; st == BASALT_OK; attempt++) {
        st = build_attempt(table, branch, id, commit_uuid, attempt, &added, files, n_files,
                           options, &a, err);
        if (st == BASALT_OK)
            st = committer->commit(committer->ctx, identifier, a.requirements, a.updates, out,
                                   err);
        if (st == BASALT_OK)
            break;
        if (a.list_location && st != BASALT_IO) {
            const char *loc = a.list_location;
            basalt_iceberg_io_delete(table->io, &loc, 1, NULL);
        }
        if (st == BASALT_IO) {
            unknown = true; /* the catalog may or may not have taken it */
            break;
        }
        if (st != BASALT_CONFLICT || attempt >= retries)
            break;
        attempt_reset(&a);
        back_off(table->metadata, attempt + 1);
        basalt_iceberg_table_free(table);
        table = NULL;
        st = committer->load(committer->ctx, identifier, &table, err);
    }
    if (st != BASALT_OK && !unknown && manifest_location) {
        const char *loc = manifest_location;
        basalt_iceberg_io_delete(table ? table->io : NULL, &loc, 1, NULL);
    }
    if (unknown)
        st = basalt_error_context(err, BASALT_IO,
                                  "the commit state of snapshot %lld is unknown; its files were "
                                  "kept",
                                  (long long)id);
    if (st == BASALT_OK && snapshot_id)
        *snapshot_id = id;
    attempt_reset(&a);
    basalt_free(manifest_location);
    basalt_arena_reset(&arena);
    basalt_iceberg_table_free(table);
    return st;
}
