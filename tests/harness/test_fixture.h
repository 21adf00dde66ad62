/* Writing a test's table to Parquet, for fixtures built row by row. */
#ifndef BASALT_TEST_FIXTURE_H
#define BASALT_TEST_FIXTURE_H

#include "basalt/parquet_writer.h"

/* Finishes `root` (freed) into one batch and writes it to `path` in row
 * groups of `row_group_rows`. */
static inline basalt_status test_write_fixture(struct basalt_arrow_builder *root,
                                                   const char *path, int64_t row_group_rows)
{
    struct ArrowSchema schema;
    struct ArrowArray batch;
    basalt_status st = basalt_arrow_builder_finish(root, &schema, &batch, NULL);
    basalt_arrow_builder_free(root);
    if (st != BASALT_OK)
        return st;
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.row_group_rows = row_group_rows;
    struct basalt_parquet_writer *w = NULL;
    st = basalt_parquet_writer_open_file(path, &schema, &o, &w, NULL);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_write(w, &batch, NULL);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_finish(w, NULL);
    basalt_parquet_writer_close(w);
    basalt_arrow_array_release(&batch);
    basalt_arrow_schema_release(&schema);
    return st;
}

#endif
