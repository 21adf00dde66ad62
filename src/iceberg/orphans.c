/* Removing orphan files (Java's DeleteOrphanFiles): every file under the
 * table's location is listed, and those that no metadata reaches and that
 * are older than the cut-off are deleted. What is reachable is gathered
 * first, generously (deleted manifest entries count too), and compared in
 * resolved form, so that a location written as a file URI and one written
 * as a path name the same file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_maintain.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_write.h"
#include "commit_internal.h"
#include "io_internal.h"
#include "snapshot_internal.h"

#define THREE_DAYS_MS (3LL * 24 * 3600 * 1000)

void basalt_iceberg_remove_orphans_options_init(struct basalt_iceberg_remove_orphans_options *o)
{
    memset(o, 0, sizeof *o);
    o->older_than_ms = -1;
}

static basalt_status add_resolved(const struct basalt_iceberg_io *io, const char *location,
                                  struct basalt_string_list *out, struct basalt_error *err)
{
    if (!location || !*location)
        return BASALT_OK;
    char path[4096];
    basalt_status st = basalt_iceberg_io_resolve(io, location, path, sizeof path, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%.300s", location);
    return basalt_string_list_add(out, path, strlen(path), err);
}

static basalt_status add_all(const struct basalt_iceberg_io *io,
                             const struct basalt_string_list *l, struct basalt_string_list *out,
                             struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (size_t i = 0; st == BASALT_OK && i < l->n; i++)
        st = add_resolved(io, l->items[i], out, err);
    return st;
}

/* Every location the table's metadata reaches, resolved, sorted. */
static basalt_status reachable(const struct basalt_iceberg_table *t,
                               struct basalt_string_list *out, struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = t->metadata;
    int64_t *ids = basalt_malloc((m->n_snapshots + 1) * sizeof *ids);
    if (!ids)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t i = 0; i < m->n_snapshots; i++)
        ids[i] = m->snapshots[i].snapshot_id;
    struct basalt_iceberg_reach reach;
    memset(&reach, 0, sizeof reach);
    basalt_status st =
        basalt_iceberg_reach_snapshots(t->io, m, ids, m->n_snapshots, true, false, &reach, err);
    basalt_free(ids);
    if (st == BASALT_OK)
        st = add_all(t->io, &reach.lists, out, err);
    if (st == BASALT_OK)
        st = add_all(t->io, &reach.manifests, out, err);
    if (st == BASALT_OK)
        st = add_all(t->io, &reach.files, out, err);
    /* v1 snapshots listing their manifests inline. */
    for (uint32_t i = 0; st == BASALT_OK && i < m->n_snapshots; i++)
        for (uint32_t k = 0; st == BASALT_OK && k < m->snapshots[i].n_manifests; k++)
            st = add_resolved(t->io, m->snapshots[i].manifests[k], out, err);
    for (uint32_t i = 0; st == BASALT_OK && i < m->n_statistics; i++)
        st = add_resolved(t->io, m->statistics[i].statistics_path, out, err);
    for (uint32_t i = 0; st == BASALT_OK && i < m->n_partition_statistics; i++)
        st = add_resolved(t->io, m->partition_statistics[i].statistics_path, out, err);
    for (uint32_t i = 0; st == BASALT_OK && i < m->n_metadata_log; i++)
        st = add_resolved(t->io, m->metadata_log[i].metadata_file, out, err);
    if (st == BASALT_OK)
        st = add_resolved(t->io, t->metadata_location, out, err);
    if (st == BASALT_OK) {
        size_t cap = strlen(m->location) + 40;
        char *hint = basalt_malloc(cap);
        if (!hint)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        else {
            size_t tl = strlen(m->location);
            while (tl > 1 && m->location[tl - 1] == '/')
                tl--;
            snprintf(hint, cap, "%.*s/metadata/version-hint.text", (int)tl, m->location);
            st = add_resolved(t->io, hint, out, err);
            basalt_free(hint);
        }
    }
    basalt_iceberg_reach_reset(&reach);
    basalt_string_list_sort_unique(out);
    return st;
}

struct listing {
    const struct basalt_string_list *reachable;
    const struct basalt_iceberg_remove_orphans_options *o;
    int64_t cutoff;
    struct basalt_iceberg_remove_orphans_result *r;
    struct basalt_string_list orphans;
};

static basalt_status visit(void *ctx, const struct basalt_io_entry *e, struct basalt_error *err)
{
    struct listing *l = ctx;
    if (e->is_prefix)
        return BASALT_OK;
    l->r->files_listed++;
    char path[4096];
    basalt_status st = basalt_iceberg_location_normalize(e->uri, true, path, sizeof path, err);
    if (st != BASALT_OK)
        return st;
    if (basalt_iceberg_reach_has(l->reachable, path)) {
        l->r->files_reachable++;
        return BASALT_OK;
    }
    /* Unknown or recent times: it may be a file a writer is about to commit. */
    if (e->mtime_ms <= 0 || e->mtime_ms >= l->cutoff) {
        l->r->too_young++;
        return BASALT_OK;
    }
    l->r->orphans++;
    if (l->o->visit)
        l->o->visit(l->o->visit_ctx, path);
    return basalt_string_list_add(&l->orphans, path, strlen(path), err);
}

basalt_status basalt_iceberg_remove_orphans(const struct basalt_iceberg_table *table,
                                            const struct basalt_iceberg_remove_orphans_options *options,
                                            struct basalt_iceberg_remove_orphans_result *result,
                                            struct basalt_error *err)
{
    struct basalt_iceberg_remove_orphans_options defaults;
    struct basalt_iceberg_remove_orphans_result ignored;
    if (!options) {
        basalt_iceberg_remove_orphans_options_init(&defaults);
        options = &defaults;
    }
    if (!result)
        result = &ignored;
    memset(result, 0, sizeof *result);
    const struct basalt_iceberg_metadata *m = table->metadata;
    if (!m->location || !*m->location)
        return basalt_error_set(err, BASALT_NOT_FOUND, "the table has no location");
    struct basalt_string_list reach = {0};
    struct listing l = {
        .reachable = &reach,
        .o = options,
        .cutoff = options->older_than_ms >= 0 ? options->older_than_ms
                                              : basalt_iceberg_now_ms() - THREE_DAYS_MS,
        .r = result,
    };
    basalt_status st = reachable(table, &reach, err);
    char root[4096];
    if (st == BASALT_OK)
        st = basalt_iceberg_io_resolve(table->io, m->location, root, sizeof root - 1, err);
    if (st == BASALT_OK) {
        size_t n = strlen(root);
        while (n > 1 && root[n - 1] == '/')
            n--;
        root[n] = '/'; /* never a sibling sharing the name's start */
        root[n + 1] = 0;
        st = basalt_io_list(table->io->store, root, false, visit, &l, err);
        if (st != BASALT_OK)
            st = basalt_error_context(err, st, "listing %.300s", root);
    }
    if (st == BASALT_OK && !options->dry_run && l.orphans.n)
        st = basalt_iceberg_io_delete(table->io, (const char *const *)l.orphans.items,
                                      l.orphans.n, err);
    basalt_string_list_reset(&l.orphans);
    basalt_string_list_reset(&reach);
    return st;
}
