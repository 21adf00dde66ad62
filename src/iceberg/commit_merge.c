/* Manifest merging, as the Java library's merging snapshot producers do it
 * (commit.manifest-merge.enabled, default true): a table appended to often
 * gains a manifest per commit, and planning reads every one, so once a
 * spec's data manifests are many they are packed into manifests of about
 * commit.manifest.target-size-bytes (default 8 MiB). The manifests are
 * packed in list order (newest first) into bins of at most the target
 * size; a bin of several manifests is merged into one, except the bin
 * holding the newest manifest while it has fewer than
 * commit.manifest.min-count-to-merge (default 100) of them, so small tables
 * are left alone. A merged manifest keeps this snapshot's entries as they
 * are (ADDED, with a data sequence number of their own when a rewrite gave
 * them one, and DELETED ones), older live entries as EXISTING with their
 * sequence numbers, and drops older DELETED entries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "commit_internal.h"
#include "snapshot_internal.h"

static int64_t long_property(const struct basalt_iceberg_metadata *m, const char *key,
                             int64_t dflt)
{
    const char *v = basalt_iceberg_metadata_property(m, key);
    if (!v)
        return dflt;
    char *end;
    long long n = strtoll(v, &end, 10);
    return end == v || *end || n < 0 ? dflt : (int64_t)n;
}

/* The live entries of list[idx[0..n)], this snapshot's DELETED ones too,
 * written as one manifest into *out. */
static basalt_status merge_bin(const struct basalt_iceberg_table *t, int64_t snapshot_id,
                               const char *uuid, int k, const struct basalt_iceberg_manifest_file *list,
                               const uint32_t *idx, uint32_t n, struct basalt_arena *arena,
                               struct basalt_iceberg_manifest_file *out,
                               struct basalt_iceberg_rewrite_state *state,
                               struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = t->metadata;
    int32_t spec_id = list[idx[0]].partition_spec_id;
    struct basalt_iceberg_manifest **parsed = basalt_calloc(n, sizeof *parsed);
    uint8_t **bytes = basalt_calloc(n, sizeof *bytes);
    basalt_status st = parsed && bytes ? BASALT_OK
                                       : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_iceberg_manifest_read_options o;
    basalt_iceberg_manifest_read_options_init(&o);
    o.with_deleted = true;
    size_t total = 0;
    for (uint32_t i = 0; st == BASALT_OK && i < n; i++) {
        const struct basalt_iceberg_manifest_file *mf = &list[idx[i]];
        size_t len = 0;
        st = basalt_iceberg_io_read_all(t->io, mf->manifest_path, &bytes[i], &len, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_manifest_parse(bytes[i], len, mf->manifest_path, mf,
                                               basalt_iceberg_metadata_spec(m, spec_id),
                                               basalt_iceberg_metadata_current_schema(m), &o,
                                               &parsed[i], err);
        if (st == BASALT_OK)
            total += parsed[i]->n_entries;
    }
    struct basalt_iceberg_manifest_entry *entries =
        st == BASALT_OK ? basalt_malloc((total ? total : 1) * sizeof *entries) : NULL;
    if (st == BASALT_OK && !entries)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    uint32_t kept = 0;
    for (uint32_t i = 0; st == BASALT_OK && i < n; i++)
        for (uint32_t e = 0; e < parsed[i]->n_entries; e++) {
            struct basalt_iceberg_manifest_entry x = parsed[i]->entries[e];
            bool ours = x.snapshot_id == snapshot_id;
            if (x.status == BASALT_ICEBERG_ENTRY_DELETED && !ours)
                continue;
            if (!ours)
                x.status = BASALT_ICEBERG_ENTRY_EXISTING;
            entries[kept++] = x;
        }
    if (st == BASALT_OK)
        st = basalt_iceberg_snapshot_write_manifest(t, snapshot_id, uuid, k, spec_id,
                                                    BASALT_ICEBERG_MANIFEST_DATA, true, entries,
                                                    kept, arena, out, state, err);
    if (st == BASALT_OK) {
        out->sequence_number = -1;
        if (out->min_sequence_number < 0)
            out->min_sequence_number = -1;
    }
    basalt_free(entries);
    for (uint32_t i = 0; parsed && i < n; i++)
        basalt_iceberg_manifest_free(parsed[i]);
    for (uint32_t i = 0; bytes && i < n; i++)
        basalt_free(bytes[i]);
    basalt_free(parsed);
    basalt_free(bytes);
    return st;
}

/* A manifest this attempt wrote and a merge replaced is referenced by
 * nothing: it goes now rather than staying behind as an orphan. */
static void drop_if_ours(const struct basalt_iceberg_table *t,
                         const struct basalt_iceberg_rewrite_state *state, const char *path)
{
    for (uint32_t i = 0; i < state->written.n; i++)
        if (strcmp(state->written.items[i], path) == 0) {
            basalt_iceberg_io_delete(t->io, &path, 1, NULL);
            return;
        }
}

basalt_status basalt_iceberg_merge_manifests(const struct basalt_iceberg_table *t,
                                             int64_t snapshot_id, const char *uuid, int first_k,
                                             struct basalt_iceberg_manifest_file *list,
                                             uint32_t *n_list, struct basalt_arena *arena,
                                             struct basalt_iceberg_rewrite_state *state,
                                             struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = t->metadata;
    const char *enabled = basalt_iceberg_metadata_property(m, "commit.manifest-merge.enabled");
    if (enabled && strcmp(enabled, "false") == 0)
        return BASALT_OK;
    int64_t min_count = long_property(m, "commit.manifest.min-count-to-merge", 100);
    int64_t target = long_property(m, "commit.manifest.target-size-bytes", 8 << 20);
    uint32_t n = *n_list;
    uint32_t *idx = basalt_malloc((n + 1) * sizeof *idx);
    bool *gone = basalt_calloc(n + 1, sizeof *gone);
    basalt_status st = idx && gone ? BASALT_OK
                                   : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int k = first_k;
    for (uint32_t first = 0; st == BASALT_OK && first < n; first++) {
        const struct basalt_iceberg_manifest_file *lead = &list[first];
        if (lead->content != BASALT_ICEBERG_MANIFEST_DATA || gone[first])
            continue;
        /* Is this the first manifest of its spec? Then pack the spec. */
        bool seen = false;
        for (uint32_t i = 0; i < first && !seen; i++)
            seen = list[i].content == BASALT_ICEBERG_MANIFEST_DATA &&
                   list[i].partition_spec_id == lead->partition_spec_id;
        if (seen)
            continue;
        uint32_t n_spec = 0;
        for (uint32_t i = first; i < n; i++)
            if (list[i].content == BASALT_ICEBERG_MANIFEST_DATA &&
                list[i].partition_spec_id == lead->partition_spec_id)
                idx[n_spec++] = i;
        bool first_bin = true;
        for (uint32_t b = 0; st == BASALT_OK && b < n_spec;) {
            uint32_t e = b + 1;
            int64_t size = list[idx[b]].manifest_length;
            while (e < n_spec && size + list[idx[e]].manifest_length <= target)
                size += list[idx[e++]].manifest_length;
            bool merge = e - b > 1 && (!first_bin || (int64_t)(e - b) >= min_count);
            if (merge) {
                struct basalt_iceberg_manifest_file merged;
                memset(&merged, 0, sizeof merged);
                st = merge_bin(t, snapshot_id, uuid, k++, list, idx + b, e - b, arena, &merged,
                               state, err);
                for (uint32_t i = b; st == BASALT_OK && i < e; i++)
                    drop_if_ours(t, state, list[idx[i]].manifest_path);
                if (st == BASALT_OK) {
                    list[idx[b]] = merged;
                    for (uint32_t i = b + 1; i < e; i++)
                        gone[idx[i]] = true;
                }
            }
            first_bin = false;
            b = e;
        }
    }
    uint32_t w = 0;
    for (uint32_t i = 0; st == BASALT_OK && i < n; i++)
        if (!gone[i])
            list[w++] = list[i];
    if (st == BASALT_OK)
        *n_list = w;
    basalt_free(idx);
    basalt_free(gone);
    return st;
}
