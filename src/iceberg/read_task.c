/* Reading one file task: the Parquet or Avro file's columns selected by
 * field id, conformed to the table schema, deletes and the residual applied
 * as one selection per batch, the selected rows kept. */
#include <stdatomic.h>
#include <string.h>

#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/parquet.h"
#include "scan_internal.h"

struct basalt_iceberg_task_reader {
    struct basalt_iceberg_scan *scan;
    const struct basalt_iceberg_file_task *task;
    const struct basalt_iceberg_layout *layout;
    struct basalt_iceberg_read_ctx ctx;
    struct basalt_parquet_reader *reader;
    struct basalt_input *input; /* the reader's, for the scan's counters */
    struct basalt_parquet_scan *pscan;
    struct basalt_iceberg_avro_source *avro; /* an Avro data file */
    struct ArrowSchema file_schema;
    bool mapped;            /* the file has no field ids: names mapped to ids */
    bool synthetic;         /* no column of the file is read: rows from row-group counts */
    int32_t *rgs;
    size_t n_rgs, rg_i;
    int64_t rg_left;
    int64_t pos;            /* file position of the next row */
    int64_t batch_size;
    struct basalt_iceberg_posset *deleted;
    const struct basalt_iceberg_eqset **eq;
    uint32_t n_eq;
    int64_t *src_index;
    bool filtered;          /* the residual is not TRUE */
    int pushed;             /* conjuncts handed to the Parquet reader */
    bool done;
    uint8_t *sel;
    uint8_t *aux;
    int64_t sel_cap;
    const struct basalt_arrow_allocator *allocator; /* decoded values' memory; NULL: heap */
};

/* Data columns, and the lineage columns a rewrite may have stored. */
static bool stored_in_file(enum basalt_iceberg_column_kind kind)
{
    return kind == BASALT_ICEBERG_COLUMN_DATA || kind == BASALT_ICEBERG_COLUMN_ROW_ID ||
           kind == BASALT_ICEBERG_COLUMN_LAST_UPDATED_SEQ;
}

static int64_t rg_start(const struct basalt_parquet_row_group *rg)
{
    if (rg->num_columns == 0)
        return rg->has_file_offset ? rg->file_offset : 0;
    const struct basalt_parquet_column_metadata *md = &rg->columns[0].meta_data;
    int64_t s = md->data_page_offset;
    if (md->has_dictionary_page_offset && md->dictionary_page_offset > 0 && md->dictionary_page_offset < s)
        s = md->dictionary_page_offset;
    return s;
}

static int64_t child_with_id(const struct ArrowSchema *s, int32_t id)
{
    for (int64_t j = 0; j < s->n_children; j++) {
        int32_t cid;
        if (basalt_iceberg_scan_arrow_field_id(s->children[j], &cid) && cid == id)
            return j;
    }
    return -1;
}

/* Selects the file columns holding `field` (a pruned copy of a schema
 * field): whole fields by id, pruned structs by their kept children. */
static basalt_status select_ids(struct basalt_iceberg_task_reader *r,
                                const struct basalt_iceberg_field *field, int *selected,
                                struct basalt_error *err)
{
    const struct basalt_iceberg_field *whole = basalt_iceberg_schema_field(r->scan->schema, field->id);
    if (whole == field || whole == NULL || field->type.n_fields == 0) {
        struct basalt_error e2;
        basalt_status st = basalt_parquet_scan_select_field_id(r->pscan, field->id, &e2);
        if (st == BASALT_OK)
            (*selected)++;
        else if (st != BASALT_NOT_FOUND)
            return basalt_error_set(err, st, "%s", e2.message);
        return BASALT_OK;
    }
    for (uint32_t i = 0; i < field->type.n_fields; i++) {
        basalt_status st = select_ids(r, &field->type.fields[i], selected, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

/* Ids for a Parquet file written without them, as Java's reader gives
 * them: from the table's name mapping, else by column position. `s` is the
 * file's whole schema (`full` NULL), or the schema of the selected columns
 * whose positions are those of the same names in `full`. */
static basalt_status parquet_ids(struct basalt_iceberg_task_reader *r, const struct ArrowSchema *full,
                                 struct ArrowSchema *s, struct basalt_error *err)
{
    if (r->scan->name_mapping)
        return basalt_iceberg_name_mapping_apply(r->scan->name_mapping, r->scan->schema, s, err);
    if (full == NULL)
        return basalt_iceberg_position_ids_apply(s, err);
    for (int64_t j = 0; j < s->n_children; j++) {
        for (int64_t k = 0; k < full->n_children; k++) {
            int32_t id;
            if (s->children[j]->name == NULL || full->children[k]->name == NULL ||
                strcmp(s->children[j]->name, full->children[k]->name) != 0 ||
                !basalt_iceberg_scan_arrow_field_id(full->children[k], &id))
                continue;
            basalt_status st = basalt_arrow_schema_set_metadata(s->children[j], full->children[k]->metadata, err);
            if (st != BASALT_OK)
                return st;
            break;
        }
    }
    return BASALT_OK;
}

static basalt_status open_parquet(struct basalt_iceberg_task_reader *r, struct basalt_pool *pool,
                                  int num_workers, struct basalt_error *err)
{
    const struct basalt_iceberg_data_file *f = r->task->file;
    const struct basalt_iceberg_layout *layout = r->layout;
    struct basalt_input *in = NULL;
    basalt_status st = basalt_iceberg_io_open(&r->scan->io, f->file_path, &in, err);
    if (st != BASALT_OK)
        return st;
    if (f->content == BASALT_ICEBERG_CONTENT_DATA)
        atomic_fetch_add_explicit(&r->scan->files_opened, 1, memory_order_relaxed);
    st = basalt_parquet_reader_open(in, true, NULL, &r->reader, err);
    if (st != BASALT_OK)
        return st;
    r->input = in;

    /* row groups of the byte range, and the position of the first one */
    const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r->reader);
    r->rgs = basalt_calloc(md->num_row_groups ? md->num_row_groups : 1, sizeof *r->rgs);
    if (r->rgs == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    bool whole = r->task->start == 0 && r->task->length >= f->file_size_in_bytes;
    int64_t row = 0;
    bool first = true;
    for (size_t i = 0; i < md->num_row_groups; i++) {
        const struct basalt_parquet_row_group *rg = &md->row_groups[i];
        int64_t s = rg_start(rg);
        bool in_range = whole || (s >= r->task->start && s < r->task->start + r->task->length) ||
                        (r->task->start == 0 && i == 0);
        if (in_range) {
            if (first)
                r->pos = row;
            first = false;
            r->rgs[r->n_rgs++] = (int32_t)i;
        }
        row += rg->num_rows;
    }
    if (r->n_rgs == 0) {
        r->done = true;
        return BASALT_OK;
    }
    r->rg_left = md->row_groups[r->rgs[0]].num_rows;

    struct basalt_parquet_read_options ro;
    basalt_parquet_read_options_init(&ro);
    ro.batch_size = r->batch_size;
    ro.pool = pool;
    ro.num_workers = num_workers;
    ro.allocator = r->allocator;
    st = basalt_parquet_scan_new(r->reader, &ro, &r->pscan, err);
    if (st != BASALT_OK)
        return st;

    struct ArrowSchema rs;
    st = basalt_parquet_reader_schema(r->reader, &rs, err);
    if (st != BASALT_OK)
        return st;
    r->mapped = !basalt_iceberg_arrow_has_ids(&rs);
    if (r->mapped)
        st = parquet_ids(r, NULL, &rs, err);
    int selected = 0;
    for (uint32_t c = 0; c < layout->n_cols && st == BASALT_OK; c++) {
        if (!stored_in_file(layout->cols[c].kind))
            continue;
        if (!r->mapped) {
            st = select_ids(r, layout->cols[c].field, &selected, err);
            continue;
        }
        int64_t j = child_with_id(&rs, layout->cols[c].field->id);
        if (j >= 0) {
            st = basalt_parquet_scan_select_column(r->pscan, rs.children[j]->name, err);
            selected++;
        }
    }
    /* pruning inside the file skips rows, so not when positions matter */
    if (st == BASALT_OK && selected > 0 && r->filtered && !r->mapped && r->deleted == NULL &&
        !layout->needs_pos && r->scan->options.prune) {
        int pushed = 0;
        st = basalt_iceberg_pushdown(r->pscan, &rs, r->task->residual, &pushed, err);
        r->pushed = pushed;
        atomic_fetch_add_explicit(&r->scan->predicates_pushed, pushed, memory_order_relaxed);
    }
    if (st == BASALT_OK && selected == 0) {
        basalt_arrow_schema_release(&rs);
        r->synthetic = true;
        return BASALT_OK;
    }
    if (st == BASALT_OK)
        st = basalt_parquet_scan_select_row_groups(r->pscan, r->rgs, r->n_rgs, err);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_schema(r->pscan, &r->file_schema, err);
    if (st == BASALT_OK && r->mapped)
        st = parquet_ids(r, &rs, &r->file_schema, err);
    basalt_arrow_schema_release(&rs);
    if (st != BASALT_OK)
        return st;
    for (uint32_t c = 0; c < layout->n_cols; c++)
        r->src_index[c] = stored_in_file(layout->cols[c].kind)
                              ? child_with_id(&r->file_schema, layout->cols[c].field->id)
                              : -1;
    /* remote: the first chunks start coming now (opened ahead, they overlap
     * the decoding of the tasks before) */
    basalt_parquet_scan_warm(r->pscan);
    return BASALT_OK;
}

static basalt_status open_avro(struct basalt_iceberg_task_reader *r, struct basalt_error *err)
{
    const struct basalt_iceberg_data_file *f = r->task->file;
    if (f->content == BASALT_ICEBERG_CONTENT_DATA)
        atomic_fetch_add_explicit(&r->scan->files_opened, 1, memory_order_relaxed);
    basalt_status st = basalt_iceberg_avro_source_open(r->scan, f, r->layout, r->batch_size, &r->avro, err);
    if (st != BASALT_OK)
        return st;
    const struct ArrowSchema *fs = basalt_iceberg_avro_source_schema(r->avro);
    for (uint32_t c = 0; c < r->layout->n_cols; c++)
        r->src_index[c] = r->layout->cols[c].kind == BASALT_ICEBERG_COLUMN_DATA
                              ? child_with_id(fs, r->layout->cols[c].field->id)
                              : -1;
    return BASALT_OK;
}

/* The task's file, by its format. */
static basalt_status open_file(struct basalt_iceberg_task_reader *r, struct basalt_pool *pool,
                               int num_workers, struct basalt_error *err)
{
    switch (r->task->file->file_format) {
    case BASALT_ICEBERG_FORMAT_PARQUET:
        return open_parquet(r, pool, num_workers, err);
    case BASALT_ICEBERG_FORMAT_AVRO:
        return open_avro(r, err);
    case BASALT_ICEBERG_FORMAT_ORC:
        return basalt_error_set(err, BASALT_UNSUPPORTED, "%s: ORC data files cannot be read",
                                r->task->file->file_path);
    default:
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "%s: only Parquet and Avro data files can be read",
                                r->task->file->file_path);
    }
}

basalt_status basalt_iceberg_task_reader_open(struct basalt_iceberg_scan *scan,
                                              const struct basalt_iceberg_file_task *task,
                                              const struct basalt_iceberg_layout *layout,
                                              struct basalt_pool *pool, int num_workers,
                                              struct basalt_iceberg_task_reader **out,
                                              struct basalt_error *err)
{
    return basalt_iceberg_task_reader_open_into(scan, task, layout, pool, num_workers, NULL, out,
                                                err);
}

basalt_status basalt_iceberg_task_reader_open_into(
    struct basalt_iceberg_scan *scan, const struct basalt_iceberg_file_task *task,
    const struct basalt_iceberg_layout *layout, struct basalt_pool *pool, int num_workers,
    const struct basalt_arrow_allocator *allocator, struct basalt_iceberg_task_reader **out,
    struct basalt_error *err)
{
    *out = NULL;
    struct basalt_iceberg_task_reader *r = basalt_calloc(1, sizeof *r);
    if (r == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    r->allocator = allocator;
    r->scan = scan;
    r->task = task;
    r->layout = layout;
    r->batch_size = scan->options.batch_size > 0 ? scan->options.batch_size : 65536;
    r->ctx.file = task->file;
    r->ctx.spec = task->spec_id >= 0 ? basalt_iceberg_metadata_spec(scan->table->metadata, task->spec_id) : NULL;
    r->ctx.schema = scan->schema;
    r->ctx.partition_type = scan->partition_type;
    r->ctx.spec_id = task->spec_id;
    r->filtered = scan->options.filter_rows && task->residual != NULL &&
                  task->residual->op != BASALT_ICEBERG_OP_TRUE;
    r->src_index = basalt_calloc(layout->n_cols ? layout->n_cols : 1, sizeof *r->src_index);
    basalt_status st = r->src_index ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK)
        st = basalt_iceberg_task_deletes(scan, task, &r->deleted, &r->eq, &r->n_eq, err);
    if (st == BASALT_OK)
        st = open_file(r, pool, num_workers, err);
    if (st != BASALT_OK) {
        /* io names the location itself */
        if (err != NULL && strncmp(err->message, task->file->file_path, strlen(task->file->file_path)) != 0)
            basalt_error_context(err, st, "%s", task->file->file_path);
        basalt_iceberg_task_reader_close(r);
        return st;
    }
    *out = r;
    return BASALT_OK;
}

void basalt_iceberg_task_reader_close(struct basalt_iceberg_task_reader *r)
{
    if (r == NULL)
        return;
    basalt_parquet_scan_free(r->pscan);
    basalt_iceberg_io_count(&r->scan->io, r->input);
    basalt_parquet_reader_close(r->reader);
    basalt_iceberg_avro_source_close(r->avro);
    basalt_arrow_schema_release(&r->file_schema);
    basalt_iceberg_posset_free(r->deleted);
    basalt_free(r->eq);
    basalt_free(r->rgs);
    basalt_free(r->src_index);
    basalt_free(r->sel);
    basalt_free(r->aux);
    basalt_free(r);
}

static basalt_status meta_column(struct basalt_iceberg_task_reader *r,
                                 const struct basalt_iceberg_column *col, int64_t n, int64_t pos,
                                 struct ArrowArray *out, struct basalt_error *err)
{
    const struct basalt_iceberg_data_file *f = r->task->file;
    struct basalt_iceberg_value v;
    memset(&v, 0, sizeof v);
    switch (col->kind) {
    case BASALT_ICEBERG_COLUMN_FILE:
        v.type = BASALT_ICEBERG_TYPE_STRING;
        v.u.bytes.data = (const uint8_t *)f->file_path;
        v.u.bytes.len = strlen(f->file_path);
        return basalt_iceberg_constant_array(col->field, &v, n, out, err);
    case BASALT_ICEBERG_COLUMN_SPEC_ID:
        v.type = BASALT_ICEBERG_TYPE_INT;
        v.u.i32 = r->ctx.spec_id;
        return basalt_iceberg_constant_array(col->field, &v, n, out, err);
    case BASALT_ICEBERG_COLUMN_POS: {
        basalt_status st = basalt_arrow_array_init(out, 2, 0, err);
        int64_t *p = NULL;
        if (st == BASALT_OK)
            st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)n * 8 + 1, (void **)&p, err);
        if (st != BASALT_OK) {
            basalt_arrow_array_release(out);
            return st;
        }
        for (int64_t i = 0; i < n; i++)
            p[i] = pos + i;
        out->length = n;
        return BASALT_OK;
    }
    case BASALT_ICEBERG_COLUMN_PARTITION: {
        const struct basalt_iceberg_type *t = &col->field->type;
        basalt_status st = basalt_arrow_array_init(out, 1, t->n_fields, err);
        for (uint32_t i = 0; i < t->n_fields && st == BASALT_OK; i++) {
            const struct basalt_iceberg_value *value = NULL;
            const struct basalt_iceberg_partition_spec *spec = r->ctx.spec;
            for (uint32_t k = 0; spec != NULL && k < spec->n_fields && k < f->n_partition; k++)
                if (spec->fields[k].field_id == t->fields[i].id && f->partition[k].type == t->fields[i].type.id)
                    value = &f->partition[k];
            st = basalt_iceberg_constant_array(&t->fields[i], value, n, out->children[i], err);
        }
        if (st != BASALT_OK) {
            basalt_arrow_array_release(out);
            return st;
        }
        out->length = n;
        return BASALT_OK;
    }
    default:
        return basalt_error_set(err, BASALT_INTERNAL, "not a metadata column");
    }
}

/* A lineage column of the batch: the file's values (`src`, NULL when the
 * file has none; moved out) conformed to long, nulls inherited. */
static basalt_status lineage_column(struct basalt_iceberg_task_reader *r,
                                    const struct basalt_iceberg_column *col, struct ArrowArray *src,
                                    int64_t src_offset, int64_t n, int64_t pos,
                                    struct ArrowArray *out, struct basalt_error *err)
{
    struct ArrowArray stored;
    stored.release = NULL;
    basalt_status st = BASALT_OK;
    if (src != NULL) {
        struct ArrowArray child;
        basalt_arrow_array_move(src, &child);
        child.offset += src_offset;
        child.length = n;
        const int64_t j = r->src_index[col - r->layout->cols];
        st = basalt_iceberg_conform(&r->ctx, col->field, r->file_schema.children[j], &child, n,
                                    &stored, err);
    }
    if (st == BASALT_OK)
        st = basalt_iceberg_lineage_column(r->task, col->field->id, pos, n,
                                           stored.release ? &stored : NULL, out, err);
    basalt_arrow_array_release(&stored);
    return st;
}

/* The next batch in the layout's columns with its selection (r->sel, n_sel
 * bits set); *internal is released at the end of the file. */
static basalt_status next_selected(struct basalt_iceberg_task_reader *r, struct ArrowArray *internal,
                                   int64_t *n_sel, struct basalt_error *err)
{
    const struct basalt_iceberg_layout *layout = r->layout;
    internal->release = NULL;
    for (;;) {
        if (r->done)
            return BASALT_OK;
        struct ArrowArray fb;
        fb.release = NULL;
        int64_t n;
        if (r->synthetic) {
            const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r->reader);
            while (r->rg_left == 0 && r->rg_i + 1 < r->n_rgs) {
                r->rg_i++;
                r->rg_left = md->row_groups[r->rgs[r->rg_i]].num_rows;
            }
            if (r->rg_left == 0) {
                r->done = true;
                return BASALT_OK;
            }
            n = r->rg_left < r->batch_size ? r->rg_left : r->batch_size;
            r->rg_left -= n;
        } else {
            basalt_status st = r->avro ? basalt_iceberg_avro_source_next(r->avro, &fb, err)
                                       : basalt_parquet_scan_next(r->pscan, &fb, err);
            if (st != BASALT_OK)
                return st;
            if (fb.release == NULL) {
                r->done = true;
                return BASALT_OK;
            }
            n = fb.length;
        }
        int64_t pos = r->pos;
        r->pos += n;
        basalt_status st = basalt_arrow_array_init(internal, 1, layout->n_cols, err);
        for (uint32_t c = 0; c < layout->n_cols && st == BASALT_OK; c++) {
            const struct basalt_iceberg_column *col = &layout->cols[c];
            struct ArrowArray *dst = internal->children[c];
            int64_t j = r->synthetic ? -1 : r->src_index[c];
            if (col->kind == BASALT_ICEBERG_COLUMN_ROW_ID ||
                col->kind == BASALT_ICEBERG_COLUMN_LAST_UPDATED_SEQ) {
                st = lineage_column(r, col, fb.release && j >= 0 ? fb.children[j] : NULL, fb.offset,
                                    n, pos, dst, err);
                continue;
            }
            if (col->kind != BASALT_ICEBERG_COLUMN_DATA) {
                st = meta_column(r, col, n, pos, dst, err);
                continue;
            }
            if (j < 0) {
                st = basalt_iceberg_conform(&r->ctx, col->field, NULL, NULL, n, dst, err);
                continue;
            }
            struct ArrowArray child;
            basalt_arrow_array_move(fb.children[j], &child);
            child.offset += fb.offset;
            child.length = n;
            const struct ArrowSchema *fs = r->avro ? basalt_iceberg_avro_source_schema(r->avro) : &r->file_schema;
            st = basalt_iceberg_conform(&r->ctx, col->field, fs->children[j], &child, n, dst, err);
        }
        basalt_arrow_array_release(&fb);
        if (st != BASALT_OK) {
            basalt_arrow_array_release(internal);
            return st;
        }
        internal->length = n;
        if (n == 0) {
            basalt_arrow_array_release(internal);
            continue;
        }

        int64_t bytes = (n + 7) / 8;
        if (bytes > r->sel_cap) {
            basalt_free(r->sel);
            basalt_free(r->aux);
            r->sel = basalt_malloc((size_t)bytes);
            r->aux = basalt_malloc((size_t)bytes);
            r->sel_cap = bytes;
            if (r->sel == NULL || r->aux == NULL) {
                r->sel_cap = 0;
                basalt_arrow_array_release(internal);
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
            }
        }
        memset(r->sel, 0xff, (size_t)bytes);
        if (r->deleted != NULL) {
            memset(r->aux, 0, (size_t)bytes);
            basalt_iceberg_posset_mark(r->deleted, (uint64_t)pos, (size_t)n, r->aux);
            for (int64_t b = 0; b < bytes; b++)
                r->sel[b] = (uint8_t)(r->sel[b] & ~r->aux[b]);
        }
        for (uint32_t k = 0; k < r->n_eq && st == BASALT_OK; k++)
            st = basalt_iceberg_eqset_apply(r->eq[k], &layout->arrow, internal, r->sel, err);
        if (st == BASALT_OK && r->filtered) {
            memset(r->aux, 0, (size_t)bytes);
            st = basalt_iceberg_expr_eval_batch(r->task->residual, &layout->arrow, internal, r->aux, err);
            for (int64_t b = 0; b < bytes && st == BASALT_OK; b++)
                r->sel[b] &= r->aux[b];
        }
        if (st != BASALT_OK) {
            basalt_arrow_array_release(internal);
            return st;
        }
        *n_sel = basalt_bitmap_count(r->sel, 0, n);
        if (*n_sel == 0) {
            basalt_arrow_array_release(internal);
            continue;
        }
        return BASALT_OK;
    }
}

basalt_status basalt_iceberg_task_reader_next(struct basalt_iceberg_task_reader *r,
                                              struct ArrowArray *out, struct basalt_error *err)
{
    const struct basalt_iceberg_layout *layout = r->layout;
    out->release = NULL;
    struct ArrowArray internal;
    int64_t n_sel = 0;
    basalt_status st = next_selected(r, &internal, &n_sel, err);
    if (st != BASALT_OK || internal.release == NULL)
        return st;
    if (n_sel < internal.length) {
        struct ArrowArray kept;
        st = basalt_iceberg_filter_array(&layout->arrow, &internal, r->sel, n_sel, &kept, err);
        basalt_arrow_array_release(&internal);
        if (st != BASALT_OK)
            return st;
        basalt_arrow_array_move(&kept, &internal);
    }
    bool same = layout->n_out == layout->n_cols;
    for (uint32_t i = 0; i < layout->n_out && same; i++)
        same = layout->out_index[i] == i && !layout->out_narrow[i];
    if (same) {
        basalt_arrow_array_move(&internal, out);
        return BASALT_OK;
    }
    st = basalt_arrow_array_init(out, 1, layout->n_out, err);
    for (uint32_t i = 0; i < layout->n_out && st == BASALT_OK; i++) {
        uint32_t c = layout->out_index[i];
        struct ArrowArray child;
        basalt_arrow_array_move(internal.children[c], &child);
        child.offset += internal.offset;
        child.length = internal.length;
        if (layout->out_narrow[i])
            st = basalt_iceberg_narrow(layout->cols[c].field, layout->out_fields[i], &child,
                                       out->children[i], err);
        else
            basalt_arrow_array_move(&child, out->children[i]);
    }
    if (st == BASALT_OK)
        out->length = internal.length;
    else
        basalt_arrow_array_release(out);
    basalt_arrow_array_release(&internal);
    return st;
}

basalt_status basalt_iceberg_task_reader_count(struct basalt_iceberg_task_reader *r, int64_t *count,
                                               struct basalt_error *err)
{
    *count = 0;
    for (;;) {
        struct ArrowArray internal;
        int64_t n_sel = 0;
        basalt_status st = next_selected(r, &internal, &n_sel, err);
        if (st != BASALT_OK)
            return st;
        if (internal.release == NULL)
            return BASALT_OK;
        *count += n_sel;
        basalt_arrow_array_release(&internal);
    }
}
