/* What to make of a commit whose answer was lost (the catalog call failed
 * with UNKNOWN_OUTCOME): the table is loaded again
 * and searched for the snapshot, as the Java library's commit status check
 * does. Found: the commit happened and the change succeeded, so a caller
 * neither retries it (which would apply it twice) nor deletes its files.
 * Not found, or the check itself fails: the outcome stays unknown (a
 * catalog server may still apply a request in flight), so the files are
 * kept and the caller is told so. */
#include <stdio.h>

#include "basalt/iceberg_metadata.h"
#include "commit_internal.h"

basalt_status basalt_iceberg_commit_status_check(const struct basalt_iceberg_committer *committer,
                                                 const char *identifier, int64_t snapshot_id,
                                                 struct basalt_error *err)
{
    struct basalt_error probe;
    basalt_error_init(&probe);
    struct basalt_iceberg_table *t = NULL;
    bool applied = committer->load(committer->ctx, identifier, &t, &probe) == BASALT_OK &&
                   basalt_iceberg_metadata_snapshot(t->metadata, snapshot_id) != NULL;
    basalt_iceberg_table_free(t);
    if (applied) {
        basalt_error_init(err);
        return BASALT_OK;
    }
    return basalt_error_context(err, BASALT_UNKNOWN_OUTCOME,
                                "the commit state of snapshot %lld is unknown; its files were kept",
                                (long long)snapshot_id);
}
