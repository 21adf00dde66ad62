/* The files a table's snapshots reach: their manifest lists, manifests and
 * the data and delete files those list. Expiry deletes what expired
 * snapshots reached and retained ones do not; orphan removal deletes what
 * no snapshot reaches. */
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "snapshot_internal.h"

static int compare(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

bool basalt_iceberg_reach_has(const struct basalt_string_list *sorted, const char *s)
{
    return sorted->n && bsearch(&s, sorted->items, sorted->n, sizeof *sorted->items, compare);
}

void basalt_iceberg_reach_reset(struct basalt_iceberg_reach *r)
{
    basalt_string_list_reset(&r->lists);
    basalt_string_list_reset(&r->manifests);
    basalt_string_list_reset(&r->files);
}

basalt_status basalt_iceberg_read_manifest_list(const struct basalt_iceberg_io *io,
                                                const struct basalt_iceberg_metadata *m,
                                                const struct basalt_iceberg_snapshot *s,
                                                struct basalt_iceberg_manifest_list **out,
                                                struct basalt_error *err)
{
    *out = NULL;
    if (!s->manifest_list)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "snapshot %lld lists its manifests inline (format v1 without a "
                                "manifest list)",
                                (long long)s->snapshot_id);
    uint8_t *data = NULL;
    size_t len = 0;
    basalt_status st = basalt_iceberg_io_read_all(io, s->manifest_list, &data, &len, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_manifest_list_parse(data, len, s->manifest_list, m->format_version, out,
                                                err);
    basalt_free(data);
    return st;
}

/* Adds the files of one manifest (live entries only, or every entry). */
static basalt_status add_manifest_files(const struct basalt_iceberg_io *io,
                                        const struct basalt_iceberg_metadata *m,
                                        const struct basalt_iceberg_manifest_file *mf,
                                        bool live_only, struct basalt_string_list *files,
                                        struct basalt_error *err)
{
    uint8_t *data = NULL;
    size_t len = 0;
    struct basalt_iceberg_manifest *man = NULL;
    struct basalt_iceberg_manifest_read_options o;
    basalt_iceberg_manifest_read_options_init(&o);
    o.with_metrics = false;
    o.with_deleted = !live_only;
    basalt_status st = basalt_iceberg_io_read_all(io, mf->manifest_path, &data, &len, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_manifest_parse(data, len, mf->manifest_path, mf,
                                           basalt_iceberg_metadata_spec(m, mf->partition_spec_id),
                                           basalt_iceberg_metadata_current_schema(m), &o, &man,
                                           err);
    for (uint32_t i = 0; st == BASALT_OK && i < man->n_entries; i++) {
        const char *p = man->entries[i].data_file.file_path;
        st = basalt_string_list_add(files, p, strlen(p), err);
    }
    basalt_iceberg_manifest_free(man);
    basalt_free(data);
    return st;
}

basalt_status basalt_iceberg_reach_snapshots(const struct basalt_iceberg_io *io,
                                             const struct basalt_iceberg_metadata *m,
                                             const int64_t *ids, uint32_t n_ids, bool with_files,
                                             bool live_only, struct basalt_iceberg_reach *out,
                                             struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    struct basalt_string_list seen = {0};
    for (uint32_t i = 0; st == BASALT_OK && i < n_ids; i++) {
        const struct basalt_iceberg_snapshot *s = basalt_iceberg_metadata_snapshot(m, ids[i]);
        if (!s || !s->manifest_list)
            continue;
        struct basalt_iceberg_manifest_list *list = NULL;
        st = basalt_string_list_add(&out->lists, s->manifest_list, strlen(s->manifest_list), err);
        if (st == BASALT_OK)
            st = basalt_iceberg_read_manifest_list(io, m, s, &list, err);
        for (uint32_t k = 0; st == BASALT_OK && k < list->n_files; k++) {
            const struct basalt_iceberg_manifest_file *mf = &list->files[k];
            /* A manifest shared by many snapshots is read once. */
            basalt_string_list_sort_unique(&seen);
            if (basalt_iceberg_reach_has(&seen, mf->manifest_path))
                continue;
            st = basalt_string_list_add(&seen, mf->manifest_path, strlen(mf->manifest_path), err);
            if (st == BASALT_OK)
                st = basalt_string_list_add(&out->manifests, mf->manifest_path,
                                            strlen(mf->manifest_path), err);
            if (st == BASALT_OK && with_files)
                st = add_manifest_files(io, m, mf, live_only, &out->files, err);
        }
        basalt_iceberg_manifest_list_free(list);
    }
    basalt_string_list_reset(&seen);
    basalt_string_list_sort_unique(&out->lists);
    basalt_string_list_sort_unique(&out->manifests);
    basalt_string_list_sort_unique(&out->files);
    return st;
}
