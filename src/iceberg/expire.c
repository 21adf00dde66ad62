/* Expiring snapshots, as the Java library's ExpireSnapshots does: each
 * branch keeps its head and the ancestors within its retention (a minimum
 * count and a maximum age), tags keep their snapshot, refs past their
 * maximum age go (never main), and snapshots on no branch's history are
 * kept while they are younger than the cut-off. After the commit, the
 * manifest lists, manifests and data files that only expired snapshots
 * reached are deleted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basalt/iceberg_commit.h"
#include "basalt/iceberg_metadata.h"
#include "commit_internal.h"
#include "snapshot_internal.h"

void basalt_iceberg_expire_options_init(struct basalt_iceberg_expire_options *o)
{
    memset(o, 0, sizeof *o);
    o->older_than_ms = -1;
    o->retain_last = -1;
    o->clean_files = true;
    o->retries = 10;
}

static int64_t property(const struct basalt_iceberg_metadata *m, const char *key, int64_t dflt)
{
    const char *v = basalt_iceberg_metadata_property(m, key);
    char *end;
    long long n = v ? strtoll(v, &end, 10) : 0;
    return v && end != v && n >= 0 ? (int64_t)n : dflt;
}

struct plan {
    int64_t *expire;
    uint32_t n_expire;
    const char **drop_refs;
    uint32_t n_drop_refs;
};

static void plan_reset(struct plan *p)
{
    basalt_free(p->expire);
    basalt_free(p->drop_refs);
    memset(p, 0, sizeof *p);
}

/* Decides what goes; keep[i] says whether m->snapshots[i] stays. */
static basalt_status decide(const struct basalt_iceberg_metadata *m,
                            const struct basalt_iceberg_expire_options *o, int64_t now,
                            struct plan *p, struct basalt_error *err)
{
    int64_t max_age = property(m, "history.expire.max-snapshot-age-ms", 432000000);
    int64_t min_keep = o->retain_last >= 0 ? o->retain_last
                                           : property(m, "history.expire.min-snapshots-to-keep", 1);
    int64_t max_ref_age = property(m, "history.expire.max-ref-age-ms", INT64_MAX);
    int64_t cutoff = o->older_than_ms >= 0 ? o->older_than_ms : now - max_age;
    bool *keep = basalt_calloc(m->n_snapshots ? m->n_snapshots : 1, sizeof *keep);
    bool *on_branch = basalt_calloc(m->n_snapshots ? m->n_snapshots : 1, sizeof *on_branch);
    p->drop_refs = basalt_calloc(m->n_refs ? m->n_refs : 1, sizeof *p->drop_refs);
    p->expire = basalt_calloc(m->n_snapshots ? m->n_snapshots : 1, sizeof *p->expire);
    if (!keep || !on_branch || !p->drop_refs || !p->expire) {
        basalt_free(keep);
        basalt_free(on_branch);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (uint32_t r = 0; r < m->n_refs; r++) {
        const struct basalt_iceberg_ref *ref = &m->refs[r];
        const struct basalt_iceberg_snapshot *head = basalt_iceberg_metadata_snapshot(m, ref->snapshot_id);
        if (!head)
            continue;
        int64_t ref_age = ref->has_max_ref_age_ms ? ref->max_ref_age_ms : max_ref_age;
        if (strcmp(ref->name, "main") != 0 && ref_age < INT64_MAX && now - head->timestamp_ms > ref_age) {
            p->drop_refs[p->n_drop_refs++] = ref->name;
            continue;
        }
        int64_t keep_n = ref->has_min_snapshots_to_keep ? ref->min_snapshots_to_keep : min_keep;
        int64_t ref_cutoff = ref->has_max_snapshot_age_ms ? now - ref->max_snapshot_age_ms : cutoff;
        int64_t kept = 0;
        for (const struct basalt_iceberg_snapshot *s = head; s;
             s = s->has_parent_snapshot_id ? basalt_iceberg_metadata_snapshot(m, s->parent_snapshot_id)
                                           : NULL) {
            uint32_t i = (uint32_t)(s - m->snapshots);
            if (!ref->is_tag)
                on_branch[i] = true;
            /* The head always; then while the count or the age says so. */
            if (s == head || (!ref->is_tag && (kept < keep_n || s->timestamp_ms >= ref_cutoff))) {
                keep[i] = true;
                kept++;
            } else if (ref->is_tag) {
                break;
            }
        }
    }
    for (uint32_t i = 0; i < m->n_snapshots; i++) {
        /* Not on any branch's history (staged, or left by a dropped ref):
         * kept while young. */
        if (!on_branch[i] && m->snapshots[i].timestamp_ms >= cutoff)
            keep[i] = true;
        if (!keep[i])
            p->expire[p->n_expire++] = m->snapshots[i].snapshot_id;
    }
    basalt_free(keep);
    basalt_free(on_branch);
    return BASALT_OK;
}

static basalt_status build_change(const struct basalt_iceberg_metadata *m, const struct plan *p,
                                  char **requirements, char **updates, struct basalt_error *err)
{
    json_t *reqs = json_array(), *ups = json_array(), *ids = json_array();
    bool ok = reqs && ups && ids;
    /* Retention was decided from these heads: a moved branch means decide
     * again. */
    for (uint32_t r = 0; ok && r < m->n_refs; r++)
        if (!m->refs[r].is_tag)
            ok = json_array_append_new(reqs, json_pack("{s:s,s:s,s:I}", "type",
                                                       "assert-ref-snapshot-id", "ref",
                                                       m->refs[r].name, "snapshot-id",
                                                       (json_int_t)m->refs[r].snapshot_id)) == 0;
    for (uint32_t i = 0; ok && i < p->n_drop_refs; i++)
        ok = json_array_append_new(ups, json_pack("{s:s,s:s}", "action", "remove-snapshot-ref",
                                                  "ref-name", p->drop_refs[i])) == 0;
    for (uint32_t i = 0; ok && i < p->n_expire; i++)
        ok = json_array_append_new(ids, json_integer(p->expire[i])) == 0;
    if (ok && p->n_expire)
        ok = json_array_append_new(ups, json_pack("{s:s,s:O}", "action", "remove-snapshots",
                                                  "snapshot-ids", ids)) == 0;
    char *a = ok ? json_dumps(reqs, JSON_COMPACT) : NULL, *b = ok ? json_dumps(ups, JSON_COMPACT) : NULL;
    *requirements = a ? basalt_strdup(a) : NULL;
    *updates = b ? basalt_strdup(b) : NULL;
    free(a);
    free(b);
    json_decref(reqs);
    json_decref(ups);
    json_decref(ids);
    if (!*requirements || !*updates) {
        basalt_free(*requirements);
        basalt_free(*updates);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    return BASALT_OK;
}

/* Deletes what the expired snapshots reached and the kept ones do not. */
static basalt_status clean(const struct basalt_iceberg_table *before,
                           const struct basalt_iceberg_table *after, const struct plan *p,
                           struct basalt_iceberg_expire_result *r, bool dry_run,
                           struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *am = after->metadata;
    int64_t *kept = basalt_malloc((am->n_snapshots ? am->n_snapshots : 1) * sizeof *kept);
    if (!kept)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t i = 0; i < am->n_snapshots; i++)
        kept[i] = am->snapshots[i].snapshot_id;
    struct basalt_iceberg_reach live = {0}, gone = {0};
    basalt_status st = basalt_iceberg_reach_snapshots(after->io, am, kept, am->n_snapshots, true,
                                                      true, &live, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_reach_snapshots(before->io, before->metadata, p->expire, p->n_expire,
                                            true, false, &gone, err);
    basalt_free(kept);
    struct {
        struct basalt_string_list *candidates, *keep;
        uint32_t *count;
    } kinds[3] = {{&gone.files, &live.files, &r->files_deleted},
                  {&gone.manifests, &live.manifests, &r->manifests_deleted},
                  {&gone.lists, &live.lists, &r->manifest_lists_deleted}};
    /* Data files first, then manifests, then lists: a crash part-way leaves
     * only unreferenced files, never a list naming a missing manifest. */
    for (int k = 0; st == BASALT_OK && k < 3; k++)
        for (size_t i = 0; i < kinds[k].candidates->n; i++) {
            const char *f = kinds[k].candidates->items[i];
            if (basalt_iceberg_reach_has(kinds[k].keep, f))
                continue;
            if (!dry_run)
                basalt_iceberg_io_delete(before->io, &f, 1, NULL);
            (*kinds[k].count)++;
        }
    basalt_iceberg_reach_reset(&live);
    basalt_iceberg_reach_reset(&gone);
    return st;
}

basalt_status basalt_iceberg_expire_snapshots(const struct basalt_iceberg_committer *committer,
                                              const char *identifier,
                                              const struct basalt_iceberg_expire_options *options,
                                              struct basalt_iceberg_expire_result *result,
                                              struct basalt_error *err)
{
    struct basalt_iceberg_expire_options defaults;
    struct basalt_iceberg_expire_result ignored;
    if (!options) {
        basalt_iceberg_expire_options_init(&defaults);
        options = &defaults;
    }
    if (!result)
        result = &ignored;
    memset(result, 0, sizeof *result);
    basalt_status st = BASALT_CONFLICT;
    for (int attempt = 0; st == BASALT_CONFLICT && attempt <= options->retries; attempt++) {
        struct basalt_iceberg_table *before = NULL, *after = NULL;
        struct plan p = {0};
        char *reqs = NULL, *ups = NULL;
        st = committer->load(committer->ctx, identifier, &before, err);
        if (st == BASALT_OK)
            st = decide(before->metadata, options, basalt_iceberg_now_ms(), &p, err);
        if (st == BASALT_OK) {
            result->snapshots_expired = p.n_expire;
            result->refs_removed = p.n_drop_refs;
        }
        bool nothing = st == BASALT_OK && p.n_expire == 0 && p.n_drop_refs == 0;
        if (st == BASALT_OK && !nothing && !options->dry_run)
            st = build_change(before->metadata, &p, &reqs, &ups, err);
        if (st == BASALT_OK && !nothing && !options->dry_run)
            st = committer->commit(committer->ctx, identifier, reqs, ups, &after, err);
        /* A dry run counts against the table as it would be after. */
        if (st == BASALT_OK && options->clean_files && p.n_expire)
            st = clean(before, after ? after : before, &p, result, options->dry_run, err);
        basalt_free(reqs);
        basalt_free(ups);
        plan_reset(&p);
        basalt_iceberg_table_free(after);
        basalt_iceberg_table_free(before);
    }
    return st;
}
