/* Fast append: a snapshot that adds data files and removes none, built by
 * the shared rewrite builder (commit_rewrite.c) against the branch head and
 * committed with the requirement that the head has not moved. A moved head
 * means another writer won; the append is rebuilt on the new head and tried
 * again after a jittered wait. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    if (out)
        *out = NULL;
    for (uint32_t i = 0; i < n_files; i++)
        if (files[i].content != BASALT_ICEBERG_CONTENT_DATA)
            return basalt_error_set(err, BASALT_INVALID_ARG, "append: %.300s is a delete file",
                                    files[i].file_path);
    struct basalt_iceberg_rewrite rw = {
        .branch = options->branch ? options->branch : "main",
        .operation = "append",
        .added = files,
        .n_added = n_files,
        .summary = options->summary,
        .n_summary = options->n_summary,
    };
    int64_t id = basalt_iceberg_new_snapshot_id();
    basalt_status st = BASALT_CONFLICT;
    for (int attempt = 0; st == BASALT_CONFLICT; attempt++) {
        struct basalt_iceberg_table *loaded = NULL;
        struct basalt_arena arena;
        basalt_arena_init(&arena, 0);
        struct basalt_iceberg_rewrite_state state;
        memset(&state, 0, sizeof state);
        char *reqs = NULL, *ups = NULL;
        const struct basalt_iceberg_table *table = attempt == 0 ? options->base : NULL;
        st = table ? BASALT_OK : committer->load(committer->ctx, identifier, &loaded, err);
        if (!table)
            table = loaded;
        int retries = table && options->retries < 0
                          ? (int)int_property(table->metadata, "commit.retry.num-retries", 4)
                          : options->retries;
        if (st == BASALT_OK)
            st = basalt_iceberg_rewrite_build(table, &rw, id, &arena, &state, &reqs, &ups, err);
        bool sent = st == BASALT_OK;
        if (sent)
            st = committer->commit(committer->ctx, identifier, reqs, ups, out, err);
        bool committing = st == BASALT_UNKNOWN_OUTCOME && sent;
        if (committing) {
            st = basalt_iceberg_commit_status_check(committer, identifier, id, err);
            if (st == BASALT_OK && out)
                st = committer->load(committer->ctx, identifier, out, err);
        } else if (st != BASALT_OK && state.written.n)
            /* Nothing names this attempt's manifests and list. */
            basalt_iceberg_io_delete(table->io, (const char *const *)state.written.items,
                                     state.written.n, NULL);
        if (st == BASALT_CONFLICT && attempt < retries)
            back_off(table->metadata, attempt + 1);
        else if (st == BASALT_CONFLICT)
            st = basalt_error_context(err, BASALT_CONFLICT, "append: gave up after %d retries",
                                      retries);
        bool again = st == BASALT_CONFLICT && attempt < retries;
        basalt_string_list_reset(&state.written);
        basalt_free(reqs);
        basalt_free(ups);
        basalt_arena_reset(&arena);
        basalt_iceberg_table_free(loaded);
        if (!again && st == BASALT_CONFLICT)
            break;
    }
    if (st == BASALT_OK && snapshot_id)
        *snapshot_id = id;
    return st;
}
