/* Rewriting manifests (Java's RewriteManifests): the live entries of the
 * head's data manifests, clustered by spec and partition, cut into
 * manifests near the target size; entries keep their snapshot ids and
 * sequence numbers (EXISTING), so reads and delete association do not
 * change. Delete manifests are carried. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_maintain.h"
#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "commit_internal.h"
#include "snapshot_internal.h"

void basalt_iceberg_rewrite_manifests_options_init(
    struct basalt_iceberg_rewrite_manifests_options *o)
{
    memset(o, 0, sizeof *o);
    o->target_size = -1;
    o->retries = 10;
}

struct item {
    const struct basalt_iceberg_manifest_entry *e;
    int32_t spec_id;
    uint8_t key[256];   /* partition values, serialized (cut at 256 bytes) */
    size_t key_len;
    uint64_t order;     /* input order, for a stable sort */
};

static int compare_item(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    if (x->spec_id != y->spec_id)
        return x->spec_id < y->spec_id ? -1 : 1;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->key, y->key, n);
    if (c)
        return c;
    if (x->key_len != y->key_len)
        return x->key_len < y->key_len ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

static void item_key(struct item *it)
{
    const struct basalt_iceberg_data_file *f = &it->e->data_file;
    size_t at = 0;
    for (uint32_t i = 0; i < f->n_partition && at + 8 < sizeof it->key; i++) {
        const struct basalt_iceberg_value *v = &f->partition[i];
        it->key[at++] = v->is_null ? 0 : 1;
        size_t len = 0;
        uint8_t buf[128];
        if (!v->is_null &&
            basalt_iceberg_value_to_bytes(v, buf, sizeof buf, &len, NULL) != BASALT_OK)
            len = 0;
        if (len > sizeof it->key - at)
            len = sizeof it->key - at;
        memcpy(it->key + at, buf, len);
        at += len;
    }
    it->key_len = at;
}

static int64_t size_property(const struct basalt_iceberg_metadata *m, const char *key, int64_t dflt)
{
    const char *v = basalt_iceberg_metadata_property(m, key);
    if (!v)
        return dflt;
    char *end;
    long long n = strtoll(v, &end, 10);
    return end == v || *end || n <= 0 ? dflt : (int64_t)n;
}

static bool put_count(json_t *o, const char *key, int64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)v);
    return json_object_set_new(o, key, json_string(text)) == 0;
}

/* One attempt against `t`'s head. */
static basalt_status build(const struct basalt_iceberg_table *t, const char *branch,
                           const struct basalt_iceberg_rewrite_manifests_options *opt,
                           int64_t id, struct basalt_arena *arena,
                           struct basalt_iceberg_rewrite_state *state,
                           struct basalt_iceberg_rewrite_manifests_result *r, char **reqs,
                           char **ups, struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = t->metadata;
    const struct basalt_iceberg_snapshot *head = NULL;
    if (basalt_iceberg_metadata_ref(m, branch))
        basalt_iceberg_metadata_snapshot_by_ref(m, branch, &head, NULL);
    else if (strcmp(branch, "main") != 0)
        return basalt_error_set(err, BASALT_NOT_FOUND, "no branch '%s'", branch);
    if (!head)
        return BASALT_OK;
    struct basalt_iceberg_manifest_list *list = NULL;
    basalt_status st = basalt_iceberg_read_manifest_list(t->io, m, head, &list, err);
    if (st != BASALT_OK)
        return st;
    uint32_t n_data = 0;
    for (uint32_t i = 0; i < list->n_files; i++)
        n_data += list->files[i].content == BASALT_ICEBERG_MANIFEST_DATA;
    struct basalt_iceberg_manifest **mans = basalt_calloc(list->n_files + 1, sizeof *mans);
    uint8_t **bufs = basalt_calloc(list->n_files + 1, sizeof *bufs);
    struct item *items = NULL;
    size_t n_items = 0, cap = 0;
    int64_t bytes = 0;
    if (!mans || !bufs)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t i = 0; st == BASALT_OK && n_data && i < list->n_files; i++) {
        const struct basalt_iceberg_manifest_file *mf = &list->files[i];
        if (mf->content != BASALT_ICEBERG_MANIFEST_DATA)
            continue;
        bytes += mf->manifest_length;
        size_t len = 0;
        struct basalt_iceberg_manifest_read_options o;
        basalt_iceberg_manifest_read_options_init(&o);
        st = basalt_iceberg_io_read_all(t->io, mf->manifest_path, &bufs[i], &len, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_manifest_parse(bufs[i], len, mf->manifest_path, mf,
                                               basalt_iceberg_metadata_spec(m, mf->partition_spec_id),
                                               basalt_iceberg_metadata_current_schema(m), &o,
                                               &mans[i], err);
        for (uint32_t k = 0; st == BASALT_OK && k < mans[i]->n_entries; k++) {
            if (mans[i]->entries[k].status == BASALT_ICEBERG_ENTRY_DELETED)
                continue;
            if (n_items == cap) {
                cap = cap ? cap * 2 : 64;
                struct item *x = basalt_realloc(items, cap * sizeof *x);
                if (!x) {
                    st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
                    break;
                }
                items = x;
            }
            struct item *it = &items[n_items];
            it->e = &mans[i]->entries[k];
            it->spec_id = mf->partition_spec_id;
            it->order = n_items++;
            item_key(it);
        }
    }
    int64_t target = opt->target_size > 0
                         ? opt->target_size
                         : size_property(m, "commit.manifest.target-size-bytes", 8388608);
    /* Entries per manifest, from the old manifests' bytes per entry. */
    int64_t per = n_items ? bytes / (int64_t)n_items : 1;
    int64_t chunk = target / (per > 0 ? per : 1);
    if (chunk < 1)
        chunk = 1;
    if (st == BASALT_OK && n_items > 1)
        qsort(items, n_items, sizeof *items, compare_item);
    struct basalt_iceberg_manifest_file *out =
        basalt_arena_alloc(arena, (list->n_files + n_items + 1) * sizeof *out, 8);
    struct basalt_iceberg_manifest_entry *entries =
        basalt_malloc((n_items ? n_items : 1) * sizeof *entries);
    if (st == BASALT_OK && (!out || !entries))
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    uint32_t n_out = 0;
    char uuid[37];
    basalt_iceberg_uuid4(uuid);
    for (size_t i = 0; st == BASALT_OK && i < n_items;) {
        size_t j = i;
        while (j < n_items && items[j].spec_id == items[i].spec_id && (int64_t)(j - i) < chunk)
            j++;
        for (size_t k = i; k < j; k++) {
            entries[k - i] = *items[k].e;
            entries[k - i].status = BASALT_ICEBERG_ENTRY_EXISTING;
        }
        st = basalt_iceberg_snapshot_write_manifest(t, id, uuid, (int)n_out, items[i].spec_id,
                                                    BASALT_ICEBERG_MANIFEST_DATA, false, entries,
                                                    (uint32_t)(j - i), arena, &out[n_out], state,
                                                    err);
        if (st == BASALT_OK) {
            out[n_out].sequence_number = -1;
            if (out[n_out].min_sequence_number < 0)
                out[n_out].min_sequence_number = -1;
            n_out++;
        }
        i = j;
    }
    r->manifests_created = n_out;
    r->manifests_replaced = n_data;
    r->manifests_kept = list->n_files - n_data;
    r->entries = (int64_t)n_items;
    for (uint32_t i = 0; st == BASALT_OK && i < list->n_files; i++)
        if (list->files[i].content != BASALT_ICEBERG_MANIFEST_DATA) {
            out[n_out] = list->files[i];
            out[n_out].manifest_path = basalt_arena_strndup(
                arena, list->files[i].manifest_path, strlen(list->files[i].manifest_path));
            n_out++;
        }
    json_t *summary = NULL;
    if (st == BASALT_OK && n_data) {
        summary = basalt_iceberg_append_summary(NULL, 0, head, NULL, 0);
        bool ok = summary && json_object_set_new(summary, "operation", json_string("replace")) == 0 &&
                  put_count(summary, "manifests-created", r->manifests_created) &&
                  put_count(summary, "manifests-kept", r->manifests_kept) &&
                  put_count(summary, "manifests-replaced", r->manifests_replaced) &&
                  put_count(summary, "entries-processed", r->entries);
        if (!ok) {
            json_decref(summary);
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        } else {
            st = basalt_iceberg_snapshot_finish(t, branch, head, id, uuid, out, n_out, summary,
                                                arena, state, reqs, ups, err);
        }
    }
    basalt_free(entries);
    basalt_free(items);
    for (uint32_t i = 0; mans && i < list->n_files; i++) {
        basalt_iceberg_manifest_free(mans[i]);
        basalt_free(bufs[i]);
    }
    basalt_free(mans);
    basalt_free(bufs);
    basalt_iceberg_manifest_list_free(list);
    return st;
}

basalt_status basalt_iceberg_rewrite_manifests(
    const struct basalt_iceberg_committer *committer, const char *identifier,
    const struct basalt_iceberg_rewrite_manifests_options *options,
    struct basalt_iceberg_rewrite_manifests_result *result, struct basalt_error *err)
{
    struct basalt_iceberg_rewrite_manifests_options defaults;
    struct basalt_iceberg_rewrite_manifests_result ignored;
    if (!options) {
        basalt_iceberg_rewrite_manifests_options_init(&defaults);
        options = &defaults;
    }
    if (!result)
        result = &ignored;
    const char *branch = options->branch ? options->branch : "main";
    basalt_status st = BASALT_CONFLICT;
    for (int attempt = 0; st == BASALT_CONFLICT && attempt <= options->retries; attempt++) {
        memset(result, 0, sizeof *result);
        struct basalt_iceberg_table *t = NULL;
        struct basalt_arena arena;
        basalt_arena_init(&arena, 0);
        struct basalt_iceberg_rewrite_state state;
        memset(&state, 0, sizeof state);
        char *reqs = NULL, *ups = NULL;
        int64_t id = basalt_iceberg_new_snapshot_id();
        st = committer->load(committer->ctx, identifier, &t, err);
        if (st == BASALT_OK)
            st = build(t, branch, options, id, &arena, &state, result, &reqs, &ups, err);
        bool sent = st == BASALT_OK && reqs;
        if (sent)
            st = committer->commit(committer->ctx, identifier, reqs, ups, NULL, err);
        if (st == BASALT_OK && reqs)
            result->snapshot_id = id;
        else if (st == BASALT_UNKNOWN_OUTCOME && sent)
            st = basalt_error_context(err, BASALT_UNKNOWN_OUTCOME,
                                      "the commit state of snapshot %lld is unknown",
                                      (long long)id);
        else if (st != BASALT_OK && state.written.n)
            basalt_iceberg_io_delete(t->io, (const char *const *)state.written.items,
                                     state.written.n, NULL);
        basalt_string_list_reset(&state.written);
        basalt_free(reqs);
        basalt_free(ups);
        basalt_arena_reset(&arena);
        basalt_iceberg_table_free(t);
    }
    return st;
}
