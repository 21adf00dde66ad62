/* Batches of a generated table: the Arrow arrays are made first and their
 * buffers filled in place (strings sized by the longest value), so nothing
 * is copied on the way to the writer. */
#include "h2ogen.h"

basalt_status basalt_h2ogen_batch_init(struct basalt_h2ogen_batch *b,
                                       const struct basalt_h2ogen_table *t, int64_t rows,
                                       struct ArrowArray *out, struct basalt_error *err)
{
    memset(b, 0, sizeof *b);
    b->out = out;
    b->rows = rows;
    basalt_status st = basalt_arrow_array_init(out, 1, t->num_columns, err);
    if (st != BASALT_OK)
        return st;
    out->length = rows;
    for (int c = 0; c < t->num_columns && st == BASALT_OK; c++) {
        struct basalt_h2ogen_col *col = &b->cols[c];
        struct ArrowArray *child = out->children[c];
        col->kind = t->columns[c].kind;
        bool str = col->kind == H2OGEN_STR;
        st = basalt_arrow_array_init(child, str ? 3 : 2, 0, err);
        if (st != BASALT_OK)
            break;
        child->length = rows;
        void *p = NULL;
        st = basalt_arrow_array_allocate_buffer(child, 0, (size_t)basalt_bitmap_bytes(rows), &p,
                                                err);
        col->validity = p;
        if (st == BASALT_OK) {
            memset(col->validity, 0xff, (size_t)basalt_bitmap_bytes(rows));
            size_t width = col->kind == H2OGEN_F64 ? 8 : 4;
            st = basalt_arrow_array_allocate_buffer(child, 1, (size_t)(rows + str) * width,
                                                    &col->values, err);
        }
        if (st == BASALT_OK && str) {
            ((int32_t *)col->values)[0] = 0;
            st = basalt_arrow_array_allocate_buffer(child, 2, (size_t)rows * H2OGEN_MAX_STR, &p,
                                                    err);
            col->data = p;
        }
    }
    if (st != BASALT_OK)
        basalt_arrow_array_release(out);
    return st;
}

void basalt_h2ogen_batch_finish(struct basalt_h2ogen_batch *b)
{
    for (int64_t c = 0; c < b->out->n_children; c++) {
        struct ArrowArray *child = b->out->children[c];
        child->null_count = b->cols[c].nulls;
        /* Setting NULL frees the buffer there and cannot fail for our own
         * array. */
        if (b->cols[c].nulls == 0)
            basalt_arrow_array_set_buffer(child, 0, NULL, NULL);
    }
}
