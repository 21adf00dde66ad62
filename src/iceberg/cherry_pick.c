/* Cherry-picking (Java's CherryPickOperation): a snapshot whose parent is
 * the branch head is published by moving the branch to it; any other
 * append is applied by appending its added data files in a new snapshot
 * that names its source, so that it is never picked twice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_maintain.h"
#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "commit_internal.h"
#include "snapshot_internal.h"

static const char *summary_value(const struct basalt_iceberg_snapshot *s, const char *key)
{
    for (uint32_t i = 0; i < s->n_summary; i++)
        if (strcmp(s->summary[i].key, key) == 0)
            return s->summary[i].value;
    return NULL;
}

/* INVALID_ARG when `id` is the head or an ancestor, or was picked into one. */
static basalt_status check_not_applied(const struct basalt_iceberg_metadata *m,
                                       const struct basalt_iceberg_snapshot *head, int64_t id,
                                       struct basalt_error *err)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)id);
    for (const struct basalt_iceberg_snapshot *s = head; s;) {
        if (s->snapshot_id == id)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "cannot cherry-pick snapshot %s: already an ancestor", text);
        const char *src = summary_value(s, "source-snapshot-id");
        if (src && strcmp(src, text) == 0)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "cannot cherry-pick snapshot %s: already picked to create "
                                    "ancestor %lld",
                                    text, (long long)s->snapshot_id);
        s = s->has_parent_snapshot_id ? basalt_iceberg_metadata_snapshot(m, s->parent_snapshot_id)
                                      : NULL;
    }
    return BASALT_OK;
}

/* The data files snapshot `src` added, read from its manifests; the
 * manifests stay alive in `mans` (freed by the caller). */
static basalt_status added_files(const struct basalt_iceberg_table *t,
                                 const struct basalt_iceberg_snapshot *src,
                                 struct basalt_iceberg_data_file **files, uint32_t *n,
                                 struct basalt_iceberg_manifest ***mans, uint8_t ***bufs,
                                 uint32_t *n_mans, struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = t->metadata;
    struct basalt_iceberg_manifest_list *list = NULL;
    basalt_status st = basalt_iceberg_read_manifest_list(t->io, m, src, &list, err);
    if (st != BASALT_OK)
        return st;
    *mans = basalt_calloc(list->n_files + 1, sizeof **mans);
    *bufs = basalt_calloc(list->n_files + 1, sizeof **bufs);
    if (!*mans || !*bufs)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    uint32_t cap = 0;
    for (uint32_t i = 0; st == BASALT_OK && i < list->n_files; i++) {
        const struct basalt_iceberg_manifest_file *mf = &list->files[i];
        if (mf->content != BASALT_ICEBERG_MANIFEST_DATA || mf->added_snapshot_id != src->snapshot_id)
            continue;
        size_t len = 0;
        struct basalt_iceberg_manifest *man = NULL;
        struct basalt_iceberg_manifest_read_options o;
        basalt_iceberg_manifest_read_options_init(&o);
        st = basalt_iceberg_io_read_all(t->io, mf->manifest_path, &(*bufs)[*n_mans], &len, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_manifest_parse((*bufs)[*n_mans], len, mf->manifest_path, mf,
                                               basalt_iceberg_metadata_spec(m, mf->partition_spec_id),
                                               basalt_iceberg_metadata_current_schema(m), &o, &man,
                                               err);
        (*mans)[(*n_mans)++] = man;
        if (st == BASALT_OK && mf->partition_spec_id != m->default_spec_id)
            st = basalt_error_set(err, BASALT_UNSUPPORTED,
                                  "cherry-pick: files of spec %d, not the default spec",
                                  (int)mf->partition_spec_id);
        for (uint32_t k = 0; st == BASALT_OK && k < man->n_entries; k++) {
            const struct basalt_iceberg_manifest_entry *e = &man->entries[k];
            if (e->status != BASALT_ICEBERG_ENTRY_ADDED || e->snapshot_id != src->snapshot_id)
                continue;
            if (*n == cap) {
                cap = cap ? cap * 2 : 16;
                struct basalt_iceberg_data_file *f = basalt_realloc(*files, cap * sizeof *f);
                if (!f) {
                    st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
                    break;
                }
                *files = f;
            }
            (*files)[(*n)++] = e->data_file;
        }
    }
    basalt_iceberg_manifest_list_free(list);
    return st;
}

basalt_status basalt_iceberg_cherry_pick(const struct basalt_iceberg_committer *committer,
                                         const char *identifier, int64_t snapshot_id,
                                         const char *branch, int retries,
                                         struct basalt_iceberg_cherry_pick_result *result,
                                         struct basalt_error *err)
{
    struct basalt_iceberg_cherry_pick_result ignored;
    if (!result)
        result = &ignored;
    memset(result, 0, sizeof *result);
    if (!branch)
        branch = "main";
    int64_t new_id = basalt_iceberg_new_snapshot_id();
    basalt_status st = BASALT_CONFLICT;
    for (int attempt = 0; st == BASALT_CONFLICT && attempt <= retries; attempt++) {
        struct basalt_iceberg_table *t = NULL;
        struct basalt_arena arena;
        basalt_arena_init(&arena, 0);
        struct basalt_iceberg_rewrite_state state;
        memset(&state, 0, sizeof state);
        char *reqs = NULL, *ups = NULL;
        struct basalt_iceberg_data_file *files = NULL;
        uint32_t n_files = 0, n_mans = 0;
        struct basalt_iceberg_manifest **mans = NULL;
        uint8_t **bufs = NULL;
        bool forward = false;
        st = committer->load(committer->ctx, identifier, &t, err);
        const struct basalt_iceberg_metadata *m = st == BASALT_OK ? t->metadata : NULL;
        const struct basalt_iceberg_snapshot *src =
            m ? basalt_iceberg_metadata_snapshot(m, snapshot_id) : NULL, *head = NULL;
        if (st == BASALT_OK && !src)
            st = basalt_error_set(err, BASALT_NOT_FOUND, "snapshot %lld not found",
                                  (long long)snapshot_id);
        if (st == BASALT_OK && basalt_iceberg_metadata_ref(m, branch))
            basalt_iceberg_metadata_snapshot_by_ref(m, branch, &head, NULL);
        else if (st == BASALT_OK && strcmp(branch, "main") != 0)
            st = basalt_error_set(err, BASALT_NOT_FOUND, "no branch '%s'", branch);
        if (st == BASALT_OK)
            st = check_not_applied(m, head, snapshot_id, err);
        if (st == BASALT_OK) {
            forward = head ? src->has_parent_snapshot_id && src->parent_snapshot_id == head->snapshot_id
                           : !src->has_parent_snapshot_id;
            if (!forward && strcmp(src->operation, "append") != 0)
                st = basalt_error_set(err, BASALT_INVALID_ARG,
                                      "cannot cherry-pick snapshot %lld: its operation is %s, "
                                      "not append, and its parent is not the head of %s",
                                      (long long)snapshot_id, src->operation, branch);
        }
        if (st == BASALT_OK && forward) {
            st = basalt_iceberg_snapshot_move_ref(branch, head, snapshot_id, &reqs, &ups, err);
        } else if (st == BASALT_OK) {
            st = added_files(t, src, &files, &n_files, &mans, &bufs, &n_mans, err);
            char id_text[32];
            snprintf(id_text, sizeof id_text, "%lld", (long long)snapshot_id);
            struct basalt_iceberg_kv extra[2] = {{"source-snapshot-id", id_text}, {NULL, NULL}};
            uint32_t n_extra = 1;
            const char *wap = summary_value(src, "wap.id");
            if (wap) {
                extra[1].key = "published-wap-id";
                extra[1].value = wap;
                n_extra = 2;
            }
            struct basalt_iceberg_rewrite rw = {
                .branch = branch,
                .operation = "append",
                .added = files,
                .n_added = n_files,
                .summary = extra,
                .n_summary = n_extra,
            };
            if (st == BASALT_OK)
                st = basalt_iceberg_rewrite_build(t, &rw, new_id, &arena, &state, &reqs, &ups,
                                                  err);
        }
        bool sent = st == BASALT_OK;
        if (sent)
            st = committer->commit(committer->ctx, identifier, reqs, ups, NULL, err);
        if (st == BASALT_OK) {
            result->snapshot_id = forward ? snapshot_id : new_id;
            result->fast_forward = forward;
            result->files_added = forward ? 0 : n_files;
        } else if (st == BASALT_UNKNOWN_OUTCOME && sent) {
            st = basalt_error_context(err, BASALT_UNKNOWN_OUTCOME,
                                      "the commit state of the cherry-pick is unknown");
        } else if (state.written.n) {
            basalt_iceberg_io_delete(t->io, (const char *const *)state.written.items,
                                     state.written.n, NULL);
        }
        basalt_string_list_reset(&state.written);
        for (uint32_t i = 0; i < n_mans; i++) {
            basalt_iceberg_manifest_free(mans[i]);
            basalt_free(bufs[i]);
        }
        basalt_free(mans);
        basalt_free(bufs);
        basalt_free(files);
        basalt_free(reqs);
        basalt_free(ups);
        basalt_arena_reset(&arena);
        basalt_iceberg_table_free(t);
    }
    if (st == BASALT_CONFLICT)
        st = basalt_error_context(err, BASALT_CONFLICT, "cherry-pick: gave up after %d retries",
                                  retries);
    return st;
}
