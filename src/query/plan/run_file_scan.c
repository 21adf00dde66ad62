/* CSV, JSON lines and Arrow IPC files as the source of a plan. Their readers
 * were opened when the plan was built (the schema comes from them) and give
 * batches in file order; the CSV and JSON readers parse a window of chunks
 * on the pool per call.
 *
 * A cursor reads them a batch at a time (basalt_qcursor_streams), so a
 * pipeline over a file larger than memory runs a window of its batches at a
 * time and a LIMIT stops the parsing; where a breaker's whole result is
 * needed (a join's build side, execute) they are read to the end. Either way
 * the reader is closed when its rows are out: a plan reads each scan once. */
#include "basalt/ipc.h"
#include "plan/run_internal.h"

static void close_reader(struct qscan *s)
{
    basalt_csv_reader_close(s->csv_reader);
    basalt_json_reader_close(s->json_reader);
    basalt_ipc_reader_close(s->ipc_reader);
    s->csv_reader = NULL;
    s->json_reader = NULL;
    s->ipc_reader = NULL;
}

basalt_status basalt_qrun_file_scan_next(struct basalt_qplan *node, struct ArrowArray *out,
                                         struct basalt_error *err)
{
    struct qscan *s = &node->scan;
    basalt_status st = BASALT_OK;
    out->release = NULL;
    if (s->csv_reader != NULL) {
        st = basalt_csv_reader_next(s->csv_reader, out, err);
    } else if (s->json_reader != NULL) {
        st = basalt_json_reader_next(s->json_reader, out, err);
    } else if (s->ipc_reader != NULL) {
        st = basalt_ipc_reader_next(s->ipc_reader, out, err);
        /* the CSV and JSON readers name the file and line themselves */
        if (st != BASALT_OK)
            basalt_error_context(err, st, "%s", s->path);
    }
    if (st == BASALT_OK && out->release != NULL && s->with_structs.release != NULL)
        st = basalt_qflat_batch(&s->with_structs, out, (int32_t)s->full.n_children, err);
    if (st != BASALT_OK || out->release == NULL)
        close_reader(s);
    return st;
}

basalt_status basalt_qrun_file_scan_all(struct basalt_qplan *node, struct basalt_arrow_batches *out,
                                        struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    if (out->schema.release == NULL)
        st = basalt_arrow_schema_copy(&node->schema, &out->schema, err);
    while (st == BASALT_OK) {
        struct ArrowArray batch;
        st = basalt_qrun_file_scan_next(node, &batch, err);
        if (st != BASALT_OK || batch.release == NULL)
            break;
        st = basalt_arrow_batches_append(out, &batch, err);
    }
    return st;
}
