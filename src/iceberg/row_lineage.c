/* v3 row lineage (the spec's "Row Lineage"): the _row_id and
 * _last_updated_sequence_number columns as a scan reads them (the file's
 * value where it has one, else inherited from the data file), and the schema
 * that rewrites write them under, so that a row moved to a new file keeps its
 * id and the sequence number that last changed it. */
#include <string.h>

#include "basalt/arrow.h"
#include "iceberg_internal.h"
#include "scan_internal.h"

/* Optional longs: a row that has never been moved has neither in its file. */
static const struct basalt_iceberg_field row_id_field = {
    .id = BASALT_ICEBERG_FIELD_ID_ROW_ID,
    .name = BASALT_ICEBERG_ROW_ID_NAME,
    .type = {.id = BASALT_ICEBERG_TYPE_LONG},
    .initial_default = {.type = BASALT_ICEBERG_TYPE_LONG, .is_null = true},
    .write_default = {.type = BASALT_ICEBERG_TYPE_LONG, .is_null = true},
};
static const struct basalt_iceberg_field last_updated_field = {
    .id = BASALT_ICEBERG_FIELD_ID_LAST_UPDATED_SEQ,
    .name = BASALT_ICEBERG_LAST_UPDATED_SEQ_NAME,
    .type = {.id = BASALT_ICEBERG_TYPE_LONG},
    .initial_default = {.type = BASALT_ICEBERG_TYPE_LONG, .is_null = true},
    .write_default = {.type = BASALT_ICEBERG_TYPE_LONG, .is_null = true},
};

const struct basalt_iceberg_field *basalt_iceberg_row_lineage_field(int32_t id)
{
    return id == BASALT_ICEBERG_FIELD_ID_ROW_ID ? &row_id_field
           : id == BASALT_ICEBERG_FIELD_ID_LAST_UPDATED_SEQ ? &last_updated_field
                                                            : NULL;
}

bool basalt_iceberg_tracks_row_lineage(const struct basalt_iceberg_metadata *m)
{
    return m != NULL && m->format_version >= 3;
}

basalt_status basalt_iceberg_schema_with_lineage(struct basalt_arena *arena,
                                                 const struct basalt_iceberg_schema *schema,
                                                 const struct basalt_iceberg_schema **out,
                                                 struct basalt_error *err)
{
    struct basalt_iceberg_parse_ctx ctx = {arena, err, 3};
    uint32_t n = schema->root.n_fields;
    struct basalt_iceberg_schema *s = basalt_iceberg_arena_array(&ctx, 1, sizeof *s);
    struct basalt_iceberg_field *fields = basalt_iceberg_arena_array(&ctx, n + 2, sizeof *fields);
    if (!s || !fields)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    *s = *schema;
    s->index = NULL;
    memcpy(fields, schema->root.fields, n * sizeof *fields);
    fields[n] = row_id_field;
    fields[n + 1] = last_updated_field;
    s->root.fields = fields;
    s->root.n_fields = n + 2;
    basalt_status st = basalt_iceberg_field_index_build(&ctx, s);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "the schema with row lineage columns");
    *out = s;
    return BASALT_OK;
}

basalt_status basalt_iceberg_lineage_column(const struct basalt_iceberg_file_task *task,
                                            int32_t field_id, int64_t pos, int64_t n,
                                            const struct ArrowArray *stored,
                                            struct ArrowArray *out, struct basalt_error *err)
{
    const struct basalt_iceberg_data_file *f = task->file;
    /* Before a table tracks lineage (no first_row_id) nothing is inherited. */
    bool inherits = f->has_first_row_id;
    bool row_id = field_id == BASALT_ICEBERG_FIELD_ID_ROW_ID;
    const uint8_t *valid = stored && stored->null_count != 0 ? stored->buffers[0] : NULL;
    const int64_t *values = stored ? (const int64_t *)stored->buffers[1] : NULL;
    int64_t off = stored ? stored->offset : 0;
    int64_t *p = NULL;
    uint8_t *bits = NULL;
    basalt_status st = basalt_arrow_array_init(out, 2, 0, err);
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)n * 8 + 1, (void **)&p, err);
    if (st == BASALT_OK && !inherits)
        st = basalt_arrow_array_allocate_buffer(out, 0, (size_t)n / 8 + 1, (void **)&bits, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(out);
        return st;
    }
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; i++) {
        bool have = values && (!valid || basalt_bitmap_get(valid, off + i));
        if (have)
            p[i] = values[off + i];
        else if (inherits)
            p[i] = row_id ? f->first_row_id + pos + i : task->data_sequence_number;
        else
            p[i] = 0;
        if (bits) {
            basalt_bitmap_set(bits, i, have);
            nulls += !have;
        }
    }
    out->length = n;
    out->null_count = nulls;
    return BASALT_OK;
}
