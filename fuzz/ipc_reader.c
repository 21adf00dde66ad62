/* Fuzz target for the Arrow IPC reader: the input is opened as a stream or
 * file (recognised by its magic), every record batch is read in order and,
 * for a file, at random through the footer. Only OK, CORRUPT, UNSUPPORTED,
 * LIMIT and NOMEM may come back. A batch the reader accepts must pass
 * basalt_arrow_array_validate (offsets against the children): the reader's
 * own checks are meant to be at least as strict. Accepted batches are then
 * written back with the writer, which must not fail on them. */
#include <stdint.h>
#include <stdlib.h>

#include "basalt/ipc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_status(basalt_status st)
{
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_UNSUPPORTED &&
        st != BASALT_LIMIT && st != BASALT_NOMEM)
        abort();
}

static void check_batch(const struct ArrowSchema *schema, struct ArrowArray *batch,
                        struct basalt_ipc_writer *w)
{
    basalt_status st = basalt_arrow_array_validate(schema, batch, BASALT_ARROW_VALIDATE_DEFAULT,
                                                   NULL);
    if (st != BASALT_OK && st != BASALT_UNSUPPORTED)
        abort();
    if (w) {
        st = basalt_ipc_writer_write(w, batch, NULL);
        if (st != BASALT_OK && st != BASALT_NOMEM && st != BASALT_UNSUPPORTED)
            abort();
    }
    basalt_arrow_array_release(batch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct basalt_ipc_read_options o;
    basalt_ipc_read_options_init(&o);
    /* Small limits keep a lying length from costing time or memory. */
    o.max_body_size = 64 << 20;
    o.max_metadata_size = 1 << 20;
    struct basalt_ipc_reader *r;
    basalt_status st = basalt_ipc_reader_open_memory(data, size, "fuzz", &o, &r, NULL);
    check_status(st);
    if (st != BASALT_OK)
        return 0;
    struct ArrowSchema schema;
    if (basalt_ipc_reader_schema(r, &schema, NULL) != BASALT_OK) {
        basalt_ipc_reader_close(r);
        return 0;
    }
    struct basalt_output *out = NULL;
    struct basalt_ipc_writer *w = NULL;
    if (basalt_output_open_memory("fuzz-out", &out, NULL) == BASALT_OK &&
        basalt_ipc_writer_open(out, &schema, NULL, &w, NULL) != BASALT_OK)
        w = NULL;
    for (int n = 0; n < 1000; n++) {
        struct ArrowArray batch;
        st = basalt_ipc_reader_next(r, &batch, NULL);
        check_status(st);
        if (st != BASALT_OK || !batch.release)
            break;
        check_batch(&schema, &batch, w);
    }
    int64_t nb = basalt_ipc_reader_num_batches(r);
    for (int64_t i = nb - 1; i >= 0 && i >= nb - 100; i--) {
        struct ArrowArray batch;
        st = basalt_ipc_reader_read_batch(r, i, &batch, NULL);
        check_status(st);
        if (st == BASALT_OK)
            check_batch(&schema, &batch, NULL);
    }
    basalt_ipc_writer_free(w);
    basalt_output_close(out);
    basalt_arrow_schema_release(&schema);
    basalt_ipc_reader_close(r);
    return 0;
}
