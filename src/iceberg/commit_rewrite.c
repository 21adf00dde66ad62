/* A snapshot that removes data files and may add others (delete, overwrite,
 * rewrite, merge-on-read deletes): the branch head's manifests that name a
 * removed file are written again with that entry DELETED and the rest
 * EXISTING, the others are carried as they are, the added data files get a
 * manifest of their own and the added delete files one per spec. */
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
    if (st == BASALT_OK && basalt_string_list_add(&state->written, loc, strlen(loc), err) !=
                               BASALT_OK) {
        /* Untracked, it would outlive a failed attempt: it goes now. */
        const char *gone = loc;
        basalt_iceberg_io_delete(t->io, &gone, 1, NULL);
        st = BASALT_NOMEM;
    }
    return st;
}

/* The index of `path` among the delete files named for removal, or -1. */
static long named_delete(const struct basalt_iceberg_rewrite *rw, const char *path)
{
    const char *const *hit =
        rw->n_removed_deletes ? bsearch(&path, rw->removed_deletes, rw->n_removed_deletes,
                                        sizeof *rw->removed_deletes, compare_paths)
                              : NULL;
    return hit ? (long)(hit - rw->removed_deletes) : -1;
}

/* Whether a delete file goes with the change: a DV or file-scoped position
 * delete of a removed data file, or of one whose DV is replaced (the new DV
 * holds its positions), or a delete file named for removal. A Puffin file
 * holds the DVs of many data files, so naming its path removes none of
 * them: a DV goes only with its data file. */
static bool delete_goes(const struct basalt_iceberg_rewrite *rw,
                        const struct basalt_iceberg_data_file *f)
{
    const char *ref = f->referenced_data_file;
    if (ref && f->content == BASALT_ICEBERG_CONTENT_POSITION_DELETES &&
        (removed(rw, ref) ||
         (rw->n_replaced_dvs && bsearch(&ref, rw->replaced_dvs, rw->n_replaced_dvs,
                                        sizeof *rw->replaced_dvs, compare_paths))))
        return true;
    return f->file_format != BASALT_ICEBERG_FORMAT_PUFFIN && named_delete(rw, f->file_path) >= 0;
}

/* Counts a removed entry into the state's tallies. */
static void count_removed(struct basalt_iceberg_rewrite_state *state,
                          const struct basalt_iceberg_data_file *f)
{
    if (f->content != BASALT_ICEBERG_CONTENT_DATA) {
        basalt_iceberg_delete_counts_add(&state->removed_deletes, f);
        return;
    }
    state->deleted_rows += f->record_count;
    state->deleted_bytes += f->file_size_in_bytes;
    state->deleted_files++;
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
    if (data_manifest ? rw->n_removed == 0
                      : rw->n_removed == 0 && rw->n_removed_deletes == 0 && rw->n_replaced_dvs == 0)
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
        const struct basalt_iceberg_data_file *f = &man->entries[i].data_file;
        hits += data_manifest ? removed(rw, f->file_path) : delete_goes(rw, f);
        long named = data_manifest ? -1 : named_delete(rw, f->file_path);
        if (named >= 0)
            state->named_deletes_seen[named] = true;
    }
    if (st == BASALT_OK && hits) {
        struct basalt_iceberg_manifest_entry *entries =
            basalt_malloc((size_t)man->n_entries * sizeof *entries);
        if (!entries)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (uint32_t i = 0; st == BASALT_OK && i < man->n_entries; i++) {
            entries[i] = man->entries[i];
            const struct basalt_iceberg_data_file *f = &entries[i].data_file;
            if (data_manifest ? removed(rw, f->file_path) : delete_goes(rw, f)) {
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

/* The added delete files: one DELETES manifest per spec, in the order the
 * specs first appear. */
static basalt_status write_delete_manifests(const struct basalt_iceberg_table *t,
                                            const struct basalt_iceberg_rewrite *rw,
                                            int64_t snapshot_id, const char *uuid,
                                            struct basalt_arena *arena,
                                            struct basalt_iceberg_manifest_file *list,
                                            uint32_t *n_list,
                                            struct basalt_iceberg_rewrite_state *state,
                                            struct basalt_error *err)
{
    uint32_t n = rw->n_added_deletes;
    struct basalt_iceberg_manifest_entry *entries = basalt_arena_alloc(arena, n * sizeof *entries, 8);
    bool *done = basalt_arena_alloc(arena, n, 1);
    if (!entries || !done)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memset(done, 0, n);
    basalt_status st = BASALT_OK;
    for (uint32_t first = 0; st == BASALT_OK && first < n; first++) {
        if (done[first])
            continue;
        int32_t spec = rw->added_delete_specs[first];
        uint32_t k = 0;
        for (uint32_t i = first; i < n; i++) {
            if (done[i] || rw->added_delete_specs[i] != spec)
                continue;
            done[i] = true;
            memset(&entries[k], 0, sizeof entries[k]);
            entries[k].status = BASALT_ICEBERG_ENTRY_ADDED;
            entries[k].snapshot_id = snapshot_id;
            entries[k].sequence_number = entries[k].file_sequence_number = -1;
            entries[k++].data_file = rw->added_deletes[i];
        }
        /* Manifest names: -m0 the data, -m1.. these, then the rewritten. */
        struct basalt_iceberg_manifest_file *mf = &list[*n_list];
        st = basalt_iceberg_snapshot_write_manifest(t, snapshot_id, uuid, (int)(1 + first), spec,
                                                    BASALT_ICEBERG_MANIFEST_DELETES, false,
                                                    entries, k, arena, mf, state, err);
        if (st == BASALT_OK) {
            mf->sequence_number = mf->min_sequence_number = -1;
            (*n_list)++;
        }
    }
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
                                     put_count(o, "deleted-records", s->deleted_rows) &&
                                     put_count(o, "removed-files-size", s->deleted_bytes)));
    /* append_summary moved the totals on by the added data files only; the
     * delete files' entries and totals are moved on here. */
    struct basalt_iceberg_delete_counts added = {0};
    for (uint32_t i = 0; i < rw->n_added_deletes; i++)
        basalt_iceberg_delete_counts_add(&added, &rw->added_deletes[i]);
    ok = ok && basalt_iceberg_summary_deletes(o, &added, &s->removed_deletes, parent);
    static const char *const keys[] = {"total-records", "total-files-size", "total-data-files"};
    const int64_t minus[] = {s->deleted_rows, s->deleted_bytes, s->deleted_files};
    for (int k = 0; ok && k < 3; k++) {
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
        basalt_arena_alloc(arena, (n_base + 1 + rw->n_added_deletes) * sizeof *list, 8);
    state->named_deletes_seen = basalt_arena_alloc(arena, rw->n_removed_deletes + 1, 1);
    uint32_t n_list = 0;
    if (st == BASALT_OK && (!list || !state->named_deletes_seen))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        memset(state->named_deletes_seen, 0, rw->n_removed_deletes + 1);
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
    if (st == BASALT_OK && rw->n_added_deletes)
        st = write_delete_manifests(t, rw, snapshot_id, uuid, arena, list, &n_list, state, err);
    for (uint32_t i = 0; st == BASALT_OK && i < n_base; i++) {
        bool rewritten = false;
        st = filter_manifest(t, rw, snapshot_id, uuid, (int)(i + 1 + rw->n_added_deletes),
                             &base->files[i], arena, &list[n_list], &rewritten, state, err);
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
    uint32_t named_seen = 0;
    for (uint32_t i = 0; st == BASALT_OK && i < rw->n_removed_deletes; i++)
        named_seen += state->named_deletes_seen[i];
    if (st == BASALT_OK && named_seen != rw->n_removed_deletes)
        st = basalt_error_set(err, BASALT_CONFLICT,
                              "%u of the %u delete files to remove are no longer in the table",
                              (unsigned)(rw->n_removed_deletes - named_seen),
                              (unsigned)rw->n_removed_deletes);
    if (st == BASALT_OK)
        st = basalt_iceberg_merge_manifests(t, snapshot_id, uuid,
                                            (int)(n_base + rw->n_added_deletes + 1), list,
                                            &n_list, arena, state, err);
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
        if (st == BASALT_OK && basalt_string_list_add(&state->written, list_loc,
                                                      strlen(list_loc), err) != BASALT_OK) {
            const char *gone = list_loc;
            basalt_iceberg_io_delete(t->io, &gone, 1, NULL);
            st = BASALT_NOMEM;
        }
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
