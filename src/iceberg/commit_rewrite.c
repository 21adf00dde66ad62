/* A snapshot that removes data files and may add others (delete, overwrite,
 * rewrite): the branch head's manifests that name a removed file are written
 * again with that entry DELETED and the rest EXISTING, the others are
 * carried as they are, and the added files get a manifest of their own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "commit_internal.h"
#include "snapshot_internal.h"

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool removed(const struct basalt_iceberg_rewrite *rw, const char *path)
{
    return rw->n_removed &&
           bsearch(&path, rw->removed, rw->n_removed, sizeof *rw->removed, compare_paths);
}

static char *metadata_location(struct basalt_arena *arena, const char *table_location,
                               const char *name)
{
    size_t tl = strlen(table_location);
    while (tl > 1 && table_location[tl - 1] == '/')
        tl--;
    size_t cap = tl + strlen(name) + 16;
    char *loc = basalt_arena_alloc(arena, cap, 1);
    if (loc)
        snprintf(loc, cap, "%.*s/metadata/%s", (int)tl, table_location, name);
    return loc;
}

basalt_status basalt_iceberg_snapshot_write_manifest(
    const struct basalt_iceberg_table *t, int64_t snapshot_id, const char *uuid, int k,
    int32_t spec_id, enum basalt_iceberg_manifest_content content,
    bool keep_added_sequence_numbers, const struct basalt_iceberg_manifest_entry *entries,
    uint32_t n, struct basalt_arena *arena, struct basalt_iceberg_manifest_file *summary,
    struct basalt_iceberg_rewrite_state *state, struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = t->metadata;
    char name[96];
    snprintf(name, sizeof name, "%s-m%d.avro", uuid, k);
    char *loc = metadata_location(arena, m->location, name);
    if (!loc)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_iceberg_manifest_write_options mo = {
        .format_version = m->format_version,
        .schema = basalt_iceberg_metadata_current_schema(m),
        .spec = basalt_iceberg_metadata_spec(m, spec_id),
        .content = content,
        .snapshot_id = snapshot_id,
        .keep_added_sequence_numbers = keep_added_sequence_numbers,
    };
    struct basalt_output *out = NULL;
    basalt_status st =
        basalt_iceberg_io_open_output(t->io, loc, BASALT_IO_CREATE_EXCLUSIVE, &out, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_manifest_write(&mo, entries, n, out, arena, summary, err);
    if (st == BASALT_OK)
        st = basalt_output_commit(out, err);
    basalt_output_close(out);
    summary->manifest_path = loc;
    if (st == BASALT_OK)
        st = basalt_string_list_add(&state->written, loc, strlen(loc), err);
    return st;
}

static bool removed_delete(const struct basalt_iceberg_rewrite *rw, const char *path)
{
    return rw->n_removed_deletes &&
           bsearch(&path, rw->removed_deletes, rw->n_removed_deletes, sizeof *rw->removed_deletes,
                   compare_paths);
}

/* Counts a removed entry into the state's tallies. */
static void count_removed(struct basalt_iceberg_rewrite_state *state,
                          const struct basalt_iceberg_data_file *f)
{
    switch (f->content) {
    case BASALT_ICEBERG_CONTENT_DATA:
        state->deleted_rows += f->record_count;
        state->deleted_bytes += f->file_size_in_bytes;
        state->deleted_files++;
        return;
    case BASALT_ICEBERG_CONTENT_POSITION_DELETES:
        if (f->file_format == BASALT_ICEBERG_FORMAT_PUFFIN)
            state->deleted_dvs++;
        else
            state->deleted_pos_files++;
        state->deleted_pos_rows += f->record_count;
        break;
    case BASALT_ICEBERG_CONTENT_EQUALITY_DELETES:
        state->deleted_eq_files++;
        state->deleted_eq_rows += f->record_count;
        break;
    }
    state->deleted_delete_files++;
    state->deleted_delete_bytes += f->file_size_in_bytes;
}

/* The head's manifest `mf` with removed files marked DELETED, or NULL in
 * *rewritten when it names none of them. */
static basalt_status filter_manifest(const struct basalt_iceberg_table *t,
                                     const struct basalt_iceberg_rewrite *rw, int64_t snapshot_id,
                                     const char *uuid, int k,
                                     const struct basalt_iceberg_manifest_file *mf,
                                     struct basalt_arena *arena,
                                     struct basalt_iceberg_manifest_file *out, bool *rewritten,
                                     struct basalt_iceberg_rewrite_state *state,
                                     struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = t->metadata;
    *rewritten = false;
    bool data_manifest = mf->content == BASALT_ICEBERG_MANIFEST_DATA;
    if (data_manifest ? rw->n_removed == 0 : rw->n_removed_deletes == 0)
        return BASALT_OK;
    uint8_t *data = NULL;
    size_t len = 0;
    struct basalt_iceberg_manifest *man = NULL;
    struct basalt_iceberg_manifest_read_options o;
    basalt_iceberg_manifest_read_options_init(&o);
    basalt_status st = basalt_iceberg_io_read_all(t->io, mf->manifest_path, &data, &len, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_manifest_parse(data, len, mf->manifest_path, mf,
                                           basalt_iceberg_metadata_spec(m, mf->partition_spec_id),
                                           basalt_iceberg_metadata_current_schema(m), &o, &man, err);
    uint32_t hits = 0;
    for (uint32_t i = 0; st == BASALT_OK && i < man->n_entries; i++) {
        const char *path = man->entries[i].data_file.file_path;
        hits += data_manifest ? removed(rw, path) : removed_delete(rw, path);
    }
    if (st == BASALT_OK && hits) {
        struct basalt_iceberg_manifest_entry *entries =
            basalt_malloc((size_t)man->n_entries * sizeof *entries);
        if (!entries)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (uint32_t i = 0; st == BASALT_OK && i < man->n_entries; i++) {
            entries[i] = man->entries[i];
            const char *path = entries[i].data_file.file_path;
            if (data_manifest ? removed(rw, path) : removed_delete(rw, path)) {
                entries[i].status = BASALT_ICEBERG_ENTRY_DELETED;
                entries[i].snapshot_id = snapshot_id;
                count_removed(state, &entries[i].data_file);
            } else {
                entries[i].status = BASALT_ICEBERG_ENTRY_EXISTING;
            }
        }
        if (st == BASALT_OK)
            st = basalt_iceberg_snapshot_write_manifest(t, snapshot_id, uuid, k,
                                                        mf->partition_spec_id, mf->content, false,
                                                        entries, man->n_entries, arena, out,
                                                        state, err);
        basalt_free(entries);
        *rewritten = st == BASALT_OK;
    }
    basalt_iceberg_manifest_free(man);
    basalt_free(data);
    return st;
}

static bool put_count(json_t *o, const char *key, int64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)v);
    return json_object_set_new(o, key, json_string(text)) == 0;
}

/* Summary: what was added and removed, and the parent's totals moved on. */
static json_t *rewrite_summary(const struct basalt_iceberg_rewrite *rw,
                               const struct basalt_iceberg_rewrite_state *s,
                               const struct basalt_iceberg_snapshot *parent)
{
    json_t *o = basalt_iceberg_append_summary(rw->added, rw->n_added, parent, rw->summary,
                                              rw->n_summary);
    if (!o)
        return NULL;
    /* Only what happened is written, as Java's SnapshotSummary does. */
    bool ok = json_object_set_new(o, "operation", json_string(rw->operation)) == 0 &&
              (!s->deleted_files || (put_count(o, "deleted-data-files", s->deleted_files) &&
                                     put_count(o, "deleted-records", s->deleted_rows)));
    if (ok && (s->deleted_files || s->deleted_delete_files))
        ok = put_count(o, "removed-files-size", s->deleted_bytes + s->deleted_delete_bytes);
    if (ok && s->deleted_delete_files) {
        ok = put_count(o, "removed-delete-files", s->deleted_delete_files) &&
             (!s->deleted_pos_files ||
              put_count(o, "removed-position-delete-files", s->deleted_pos_files)) &&
             (!s->deleted_dvs || put_count(o, "removed-dvs", s->deleted_dvs)) &&
             (!s->deleted_eq_files ||
              put_count(o, "removed-equality-delete-files", s->deleted_eq_files)) &&
             (!s->deleted_pos_rows ||
              put_count(o, "removed-position-deletes", s->deleted_pos_rows)) &&
             (!s->deleted_eq_rows || put_count(o, "removed-equality-deletes", s->deleted_eq_rows));
    }
    /* append_summary moved the totals on by the added files only. */
    static const char *const keys[] = {"total-records",          "total-files-size",
                                       "total-data-files",       "total-delete-files",
                                       "total-position-deletes", "total-equality-deletes"};
    const int64_t minus[] = {s->deleted_rows,         s->deleted_bytes + s->deleted_delete_bytes,
                             s->deleted_files,        s->deleted_delete_files,
                             s->deleted_pos_rows,     s->deleted_eq_rows};
    for (int k = 0; ok && k < 6; k++) {
        const char *v = json_string_value(json_object_get(o, keys[k]));
        if (v)
            ok = put_count(o, keys[k], strtoll(v, NULL, 10) - minus[k]);
    }
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

basalt_status basalt_iceberg_rewrite_build(const struct basalt_iceberg_table *t,
                                           const struct basalt_iceberg_rewrite *rw,
                                           int64_t snapshot_id, struct basalt_arena *arena,
                                           struct basalt_iceberg_rewrite_state *state,
                                           char **requirements, char **updates,
                                           struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = t->metadata;
    const char *branch = rw->branch ? rw->branch : "main";
    const struct basalt_iceberg_snapshot *head = NULL;
    if (basalt_iceberg_metadata_ref(m, branch))
        basalt_iceberg_metadata_snapshot_by_ref(m, branch, &head, NULL);
    char uuid[37];
    basalt_iceberg_uuid4(uuid);
    struct basalt_iceberg_manifest_list *base = NULL;
    basalt_status st = head ? basalt_iceberg_read_manifest_list(t->io, m, head, &base, err)
                            : BASALT_OK;
    uint32_t n_base = base ? base->n_files : 0;
    struct basalt_iceberg_manifest_file *list =
        basalt_arena_alloc(arena, (n_base + 1) * sizeof *list, 8);
    uint32_t n_list = 0;
    if (st == BASALT_OK && !list)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    /* Added files first, as the Java writers list them. */
    bool keep_seq = rw->has_added_sequence_number && m->format_version >= 2;
    if (st == BASALT_OK && rw->n_added) {
        struct basalt_iceberg_manifest_entry *entries =
            basalt_arena_alloc(arena, rw->n_added * sizeof *entries, 8);
        if (!entries)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (uint32_t i = 0; st == BASALT_OK && i < rw->n_added; i++) {
            memset(&entries[i], 0, sizeof entries[i]);
            entries[i].status = BASALT_ICEBERG_ENTRY_ADDED;
            entries[i].snapshot_id = snapshot_id;
            entries[i].sequence_number = keep_seq ? rw->added_sequence_number : -1;
            entries[i].file_sequence_number = -1;
            entries[i].data_file = rw->added[i];
        }
        if (st == BASALT_OK)
            st = basalt_iceberg_snapshot_write_manifest(
                t, snapshot_id, uuid, 0, m->default_spec_id, BASALT_ICEBERG_MANIFEST_DATA, keep_seq,
                entries, rw->n_added, arena, &list[n_list], state, err);
        if (st == BASALT_OK) {
            list[n_list].sequence_number = -1;
            if (list[n_list].min_sequence_number < 0)
                list[n_list].min_sequence_number = -1;
            n_list++;
        }
    }
    for (uint32_t i = 0; st == BASALT_OK && i < n_base; i++) {
        bool rewritten = false;
        st = filter_manifest(t, rw, snapshot_id, uuid, (int)i + 1, &base->files[i], arena,
                             &list[n_list], &rewritten, state, err);
        if (st != BASALT_OK)
            break;
        if (rewritten) {
            list[n_list].sequence_number = -1;
            if (list[n_list].min_sequence_number < 0)
                list[n_list].min_sequence_number = -1;
        } else {
            list[n_list] = base->files[i];
            list[n_list].manifest_path =
                basalt_arena_strndup(arena, base->files[i].manifest_path,
                                     strlen(base->files[i].manifest_path));
        }
        n_list++;
    }
    if (st == BASALT_OK && state->deleted_files != rw->n_removed)
        st = basalt_error_set(err, BASALT_CONFLICT,
                              "%u of the %u files to remove are no longer in the table",
                              (unsigned)(rw->n_removed - state->deleted_files),
                              (unsigned)rw->n_removed);
    if (st == BASALT_OK && state->deleted_delete_files != rw->n_removed_deletes)
        st = basalt_error_set(err, BASALT_CONFLICT,
                              "%u of the %u delete files to remove are no longer in the table",
                              (unsigned)(rw->n_removed_deletes - state->deleted_delete_files),
                              (unsigned)rw->n_removed_deletes);
    json_t *summary = st == BASALT_OK ? rewrite_summary(rw, state, head) : NULL;
    if (st == BASALT_OK && !summary)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = basalt_iceberg_snapshot_finish(t, branch, head, snapshot_id, uuid, list, n_list,
                                            summary, arena, state, requirements, updates, err);
    basalt_iceberg_manifest_list_free(base);
    return st;
}

static basalt_status dump_pair(json_t *reqs, json_t *ups, char **requirements, char **updates,
                               struct basalt_error *err)
{
    char *a = reqs && ups ? json_dumps(reqs, JSON_COMPACT) : NULL;
    char *b = reqs && ups ? json_dumps(ups, JSON_COMPACT) : NULL;
    *requirements = a ? basalt_strdup(a) : NULL;
    *updates = b ? basalt_strdup(b) : NULL;
    free(a);
    free(b);
    json_decref(reqs);
    json_decref(ups);
    if (!*requirements || !*updates) {
        basalt_free(*requirements);
        basalt_free(*updates);
        *requirements = *updates = NULL;
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    return BASALT_OK;
}

basalt_status basalt_iceberg_snapshot_move_ref(const char *branch,
                                               const struct basalt_iceberg_snapshot *from,
                                               int64_t to, char **requirements, char **updates,
                                               struct basalt_error *err)
{
    json_t *ups = json_pack("[{s:s,s:s,s:s,s:I}]", "action", "set-snapshot-ref", "ref-name",
                            branch, "type", "branch", "snapshot-id", (json_int_t)to);
    json_t *reqs = json_pack("[{s:s,s:s,s:o}]", "type", "assert-ref-snapshot-id", "ref", branch,
                             "snapshot-id", from ? json_integer(from->snapshot_id) : json_null());
    return dump_pair(reqs, ups, requirements, updates, err);
}

basalt_status basalt_iceberg_snapshot_finish(const struct basalt_iceberg_table *t,
                                             const char *branch,
                                             const struct basalt_iceberg_snapshot *head,
                                             int64_t snapshot_id, const char *uuid,
                                             struct basalt_iceberg_manifest_file *list,
                                             uint32_t n_list, json_t *summary,
                                             struct basalt_arena *arena,
                                             struct basalt_iceberg_rewrite_state *state,
                                             char **requirements, char **updates,
                                             struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = t->metadata;
    int64_t seq = m->format_version >= 2 ? m->last_sequence_number + 1 : 0;
    int64_t first_row = m->has_next_row_id ? m->next_row_id : 0, next_row = first_row;
    char name[128];
    snprintf(name, sizeof name, "snap-%lld-1-%s.avro", (long long)snapshot_id, uuid);
    char *list_loc = metadata_location(arena, m->location, name);
    basalt_status st = list_loc ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK) {
        struct basalt_iceberg_manifest_list_write_options lo = {
            .format_version = m->format_version,
            .snapshot_id = snapshot_id,
            .has_parent_snapshot_id = head != NULL,
            .parent_snapshot_id = head ? head->snapshot_id : 0,
            .sequence_number = seq,
            .first_row_id = first_row,
        };
        struct basalt_output *out = NULL;
        st = basalt_iceberg_io_open_output(t->io, list_loc, BASALT_IO_CREATE_EXCLUSIVE, &out, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_manifest_list_write(&lo, list, n_list, out, &next_row, err);
        if (st == BASALT_OK)
            st = basalt_output_commit(out, err);
        basalt_output_close(out);
        if (st == BASALT_OK)
            st = basalt_string_list_add(&state->written, list_loc, strlen(list_loc), err);
    }
    if (st != BASALT_OK) {
        json_decref(summary);
        return st;
    }
    json_t *snap = summary ? json_pack("{s:I,s:I,s:I,s:s,s:o,s:i}", "snapshot-id",
                                       (json_int_t)snapshot_id, "sequence-number", (json_int_t)seq,
                                       "timestamp-ms", (json_int_t)basalt_iceberg_now_ms(),
                                       "manifest-list", list_loc, "summary", summary, "schema-id",
                                       (int)m->current_schema_id)
                           : NULL;
    if (snap && head)
        json_object_set_new(snap, "parent-snapshot-id", json_integer(head->snapshot_id));
    if (snap && m->format_version >= 3) {
        json_object_set_new(snap, "first-row-id", json_integer(first_row));
        json_object_set_new(snap, "added-rows", json_integer(next_row - first_row));
    }
    json_t *ups = snap ? json_pack("[{s:s,s:o},{s:s,s:s,s:s,s:I}]", "action", "add-snapshot",
                                   "snapshot", snap, "action", "set-snapshot-ref", "ref-name",
                                   branch, "type", "branch", "snapshot-id",
                                   (json_int_t)snapshot_id)
                       : NULL;
    json_t *reqs = json_pack("[{s:s,s:s,s:o}]", "type", "assert-ref-snapshot-id", "ref", branch,
                             "snapshot-id", head ? json_integer(head->snapshot_id) : json_null());
    return dump_pair(reqs, ups, requirements, updates, err);
}
