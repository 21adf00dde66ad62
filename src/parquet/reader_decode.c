/* Decoding planned row groups: one task per (row group, column chunk), run
 * on the pool, then one task per (row group, output field) for the record
 * assembly, then the batches. Tasks write only their own outputs, so the
 * result does not depend on which worker ran what. */
#include <stdatomic.h>
#include <string.h>

#include "parquet_column.h"
#include "parquet_reader.h"

void basalt_parquet_scan_free_scratch(struct basalt_parquet_scan *scan)
{
    for (int i = 0; i < scan->n_scratch; i++) {
        basalt_parquet_scratch_free(scan->scratch[i]);
        basalt_buffer_reset(&scan->chunk_buf[i]);
    }
    basalt_free(scan->scratch);
    basalt_free(scan->chunk_buf);
    scan->scratch = NULL;
    scan->chunk_buf = NULL;
    scan->n_scratch = 0;
}

/* The lowest failing task of a phase and its message: each worker keeps its
 * own lowest, merged at the end, so the error reported is the same for any
 * schedule. */
struct worker_error {
    int64_t task;
    struct basalt_error err;
};

struct window {
    struct basalt_parquet_scan *scan;
    const struct basalt_parquet_rg_plan *plans;
    int32_t n;
    int32_t n_leaves;
    struct basalt_parquet_leaf_values *leaves; /* n * n_leaves */
    struct ArrowArray *fields;                 /* n * n_out_fields */
    struct worker_error *errors;               /* per worker */
    int workers;
    atomic_llong first_failed;                 /* lowest failed task so far */
    atomic_llong bytes_read;
};

static void record_failure(struct window *w, int worker, int64_t task, basalt_status st,
                           const struct basalt_error *err)
{
    struct worker_error *we = &w->errors[worker];
    if (we->task < 0 || task < we->task) {
        we->task = task;
        we->err = *err;
        we->err.status = st;
    }
    long long cur = atomic_load(&w->first_failed);
    while (task < cur && !atomic_compare_exchange_weak(&w->first_failed, &cur, task)) {
    }
}

static basalt_status merged_failure(struct window *w, struct basalt_error *err)
{
    int best = -1;
    for (int i = 0; i < w->workers; i++)
        if (w->errors[i].task >= 0 && (best < 0 || w->errors[i].task < w->errors[best].task))
            best = i;
    if (best < 0)
        return BASALT_OK;
    if (err)
        *err = w->errors[best].err;
    return w->errors[best].err.status;
}

/* ------------------------------------------------------------------ chunk bytes */

/* Fills buf (the chunk [off, off + len)) with the dictionary region and the
 * selected pages only; the rest is zeroed and never looked at. */
static basalt_status read_selected(const struct basalt_parquet_reader *r, uint64_t off,
                                   uint64_t len, const struct basalt_parquet_page_selection *sel,
                                   uint8_t *buf, int64_t *fetched, struct basalt_error *err)
{
    int32_t n = sel->n_pages;
    struct basalt_io_range *ranges = basalt_malloc(sizeof *ranges * ((size_t)n + 1));
    if (!ranges)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for read ranges");
    size_t count = 0;
    uint64_t covered = off;
    uint64_t first = n > 0 ? (uint64_t)sel->page_offsets[0] : off + len;
    if (first > off) {
        ranges[count++] = (struct basalt_io_range){off, first - off, buf};
        covered = first;
    }
    for (int32_t k = 0; k < n; k++) {
        uint64_t b = (uint64_t)sel->page_offsets[k];
        uint64_t e = (uint64_t)sel->page_offsets[k + 1];
        if (k + 1 == n || e > off + len)
            e = off + len;
        if (!sel->selected[k]) {
            memset(buf + (b - off), 0, (size_t)(e - b));
            continue;
        }
        if (count > 0 && covered == b &&
            (uint8_t *)ranges[count - 1].dst + ranges[count - 1].length == buf + (b - off))
            ranges[count - 1].length += e - b;
        else
            ranges[count++] = (struct basalt_io_range){b, e - b, buf + (b - off)};
        covered = e;
    }
    int64_t total = 0;
    for (size_t i = 0; i < count; i++)
        total += (int64_t)ranges[i].length;
    basalt_status st = basalt_input_read_ranges(r->input, ranges, count, err);
    basalt_free(ranges);
    *fetched = total;
    return st;
}

/* ------------------------------------------------------------------ dictionaries */

/* The values of a flat leaf as a dictionary array whose dictionary is the
 * values themselves and whose indices count up: the type the schema
 * promised, for chunks the decoder had to materialise. */
static basalt_status wrap_dictionary(struct ArrowArray *values, struct basalt_error *err)
{
    struct ArrowArray idx;
    int64_t n = values->length;
    basalt_status st = basalt_arrow_array_init(&idx, 2, 0, err);
    if (st != BASALT_OK)
        return st;
    void *ptr = NULL;
    st = basalt_arrow_array_allocate_buffer(&idx, 1, (size_t)n * sizeof(int32_t) + 4, &ptr, err);
    if (st == BASALT_OK) {
        int32_t *ix = ptr;
        for (int64_t i = 0; i < n; i++)
            ix[i] = (int32_t)i;
    }
    if (st == BASALT_OK && values->null_count != 0 && values->n_buffers > 0 && values->buffers[0]) {
        st = basalt_arrow_array_allocate_buffer(&idx, 0, (size_t)basalt_bitmap_bytes(n), &ptr, err);
        if (st == BASALT_OK)
            basalt_bitmap_copy(ptr, 0, values->buffers[0], values->offset, n);
    }
    if (st != BASALT_OK) {
        basalt_arrow_array_release(&idx);
        return st;
    }
    idx.length = n;
    idx.null_count = values->null_count;
    idx.offset = 0;
    st = basalt_arrow_array_set_dictionary(&idx, values, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(&idx);
        return st;
    }
    basalt_arrow_array_move(&idx, values);
    return BASALT_OK;
}

/* ------------------------------------------------------------------ phase 1 */

static basalt_status decode_chunk(struct window *w, int32_t gi, int32_t leaf,
                                  struct basalt_parquet_scratch *scratch,
                                  struct basalt_buffer *bytes,
                                  struct basalt_parquet_leaf_values *out, struct basalt_error *err)
{
    struct basalt_parquet_scan *scan = w->scan;
    const struct basalt_parquet_reader *r = scan->reader;
    const struct basalt_parquet_rg_plan *plan = &w->plans[gi];
    int32_t rg = plan->row_group;
    uint64_t off = 0, len = 0;
    basalt_status st = basalt_parquet_reader_chunk_range(r, rg, leaf, &off, &len, err);
    if (st != BASALT_OK)
        return st;
    const struct basalt_parquet_column_metadata *meta = &r->md.row_groups[rg].columns[leaf].meta_data;
    const struct basalt_parquet_page_selection *sel =
        plan->pages && plan->pages[leaf].selected ? &plan->pages[leaf] : NULL;
    const uint8_t *data = NULL;
    int64_t fetched = (int64_t)len;
    if (r->view) {
        data = r->view + off;
    } else {
        if (len > SIZE_MAX - 64)
            return basalt_error_set(err, BASALT_LIMIT, "column chunk of %llu bytes",
                                    (unsigned long long)len);
        /* The worker's buffer, kept for the next chunk: no allocation per
         * chunk once it has grown to the largest. */
        st = basalt_buffer_resize(bytes, len ? (size_t)len : 1, err);
        if (st != BASALT_OK)
            return st;
        if (sel)
            st = read_selected(r, off, len, sel, bytes->data, &fetched, err);
        else
            st = basalt_input_read_at(r->input, off, len, bytes->data, err);
        if (st != BASALT_OK)
            return st;
        data = bytes->data;
    }
    if (sel) {
        /* Only what the selected pages span counts as read. */
        if (r->view) {
            fetched = 0;
            uint64_t first = sel->n_pages > 0 ? (uint64_t)sel->page_offsets[0] : off + len;
            fetched += (int64_t)(first - off);
            for (int32_t k = 0; k < sel->n_pages; k++)
                if (sel->selected[k])
                    fetched += sel->page_offsets[k + 1] - sel->page_offsets[k];
        }
    }
    atomic_fetch_add(&w->bytes_read, fetched);
    struct basalt_parquet_chunk_source src;
    memset(&src, 0, sizeof src);
    src.data = data;
    src.len = (size_t)len;
    src.file_offset = (int64_t)off;
    src.meta = meta;
    src.leaf = &r->schema->leaves[leaf];
    src.pages = sel;
    src.num_rows = r->md.row_groups[rg].num_rows;
    src.cipher = basalt_parquet_reader_chunk_cipher(r, rg, leaf);
    src.row_group_ordinal = basalt_parquet_reader_rg_ordinal(r, rg);
    src.column_ordinal = leaf;
    struct basalt_parquet_column_options co;
    basalt_parquet_column_options_init(&co);
    co.verify_crc = r->options.verify_crc;
    co.keep_dictionary = scan->keep_dict[leaf];
    co.large_offsets = scan->large[leaf] || strcmp(src.leaf->format, "U") == 0 ||
                       strcmp(src.leaf->format, "Z") == 0;
    co.v2_always_compressed = scan->v2_always_compressed;
    co.max_page_size = r->options.max_page_size;
    co.allocator = scan->options.allocator;
    st = basalt_parquet_column_decode(&src, &co, scratch, out, err);
    if (st == BASALT_LIMIT && !co.large_offsets && (src.leaf->physical_type ==
                                                    BASALT_PARQUET_TYPE_BYTE_ARRAY))
        basalt_error_context(err, st, "(read with the large_binary option for 64-bit offsets)");
    if (st == BASALT_OK && sel && plan->want)
        st = basalt_parquet_leaf_keep_rows(out, src.leaf->max_def, sel, plan->want, plan->n_want,
                                           err);
    if (st == BASALT_OK && scan->keep_dict[leaf] && !out->dense && !out->is_dictionary &&
        r->schema->fields[src.leaf->field].parent < 0 && out->values.release)
        st = wrap_dictionary(&out->values, err);
    if (st != BASALT_OK)
        basalt_parquet_leaf_values_reset(out);
    return st;
}

static void decode_tasks(void *ctx, int64_t begin, int64_t end, int worker)
{
    struct window *w = ctx;
    struct basalt_parquet_scan *scan = w->scan;
    for (int64_t t = begin; t < end; t++) {
        if (t > atomic_load(&w->first_failed))
            continue;
        int32_t gi = (int32_t)(t / scan->n_decode);
        int32_t leaf = scan->decode_leaves[t % scan->n_decode];
        struct basalt_error err;
        basalt_error_init(&err);
        basalt_status st = BASALT_OK;
        if (!scan->scratch[worker])
            st = basalt_parquet_scratch_new(&scan->scratch[worker], &err);
        if (st == BASALT_OK)
            st = decode_chunk(w, gi, leaf, scan->scratch[worker], &scan->chunk_buf[worker],
                              &w->leaves[(size_t)gi * (size_t)w->n_leaves + (size_t)leaf], &err);
        if (st != BASALT_OK) {
            basalt_parquet_reader_context(scan->reader, w->plans[gi].row_group, leaf, st, &err);
            record_failure(w, worker, t, st, &err);
        }
    }
}

/* ------------------------------------------------------------------ phase 2 */

/* A struct array showing only some children of `orig`, which it owns. */
struct pruned {
    struct ArrowArray orig;
};

static void pruned_release(struct ArrowArray *a)
{
    struct pruned *p = a->private_data;
    basalt_arrow_array_release(&p->orig);
    basalt_free(p);
    a->release = NULL;
}

/* Drops the children of struct fields below `field` that the projection did
 * not select (the assembler builds whole top-level fields). */
static basalt_status prune(const struct basalt_parquet_scan *scan, int32_t field,
                           struct ArrowArray *a, struct basalt_error *err)
{
    const struct basalt_parquet_schema *s = scan->reader->schema;
    const struct basalt_parquet_schema_field *f = &s->fields[field];
    const uint8_t *sel = scan->projection.fields;
    if (f->variant)
        return BASALT_OK; /* selected whole, and already metadata and value */
    switch (f->kind) {
    case BASALT_PARQUET_FIELD_PRIMITIVE:
        return BASALT_OK;
    case BASALT_PARQUET_FIELD_LIST:
    case BASALT_PARQUET_FIELD_LARGE_LIST:
    case BASALT_PARQUET_FIELD_MAP:
    case BASALT_PARQUET_FIELD_FIXED_LIST:
        if (a->n_children < 1)
            return BASALT_OK;
        return prune(scan, f->children[0], a->children[0], err);
    case BASALT_PARQUET_FIELD_STRUCT:
        break;
    }
    if (a->n_children != f->n_children)
        return basalt_error_set(err, BASALT_INTERNAL, "field '%s': %lld children for %d fields",
                                f->name, (long long)a->n_children, (int)f->n_children);
    int64_t keep = 0;
    for (int32_t i = 0; i < f->n_children; i++) {
        if (sel[f->children[i]]) {
            keep++;
            basalt_status st = prune(scan, f->children[i], a->children[i], err);
            if (st != BASALT_OK)
                return st;
        }
    }
    if (keep == a->n_children)
        return BASALT_OK;
    struct pruned *p = basalt_malloc(sizeof *p + sizeof(struct ArrowArray *) * (size_t)(keep + 1));
    if (!p)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a projected struct");
    struct ArrowArray **kids = (struct ArrowArray **)(void *)(p + 1);
    int64_t k = 0;
    for (int32_t i = 0; i < f->n_children; i++) {
        if (sel[f->children[i]])
            kids[k++] = a->children[i];
        else
            basalt_arrow_array_release(a->children[i]);
    }
    basalt_arrow_array_move(a, &p->orig);
    *a = p->orig;
    a->n_children = keep;
    a->children = keep ? kids : NULL;
    a->dictionary = NULL;
    a->private_data = p;
    a->release = pruned_release;
    return BASALT_OK;
}

static void assemble_tasks(void *ctx, int64_t begin, int64_t end, int worker)
{
    struct window *w = ctx;
    struct basalt_parquet_scan *scan = w->scan;
    const struct basalt_parquet_schema *s = scan->reader->schema;
    for (int64_t t = begin; t < end; t++) {
        if (t > atomic_load(&w->first_failed))
            continue;
        int32_t gi = (int32_t)(t / scan->n_out_fields);
        int32_t field = scan->out_fields[t % scan->n_out_fields];
        struct basalt_error err;
        basalt_error_init(&err);
        struct ArrowArray *out = &w->fields[t];
        struct basalt_parquet_leaf_values *leaves =
            &w->leaves[(size_t)gi * (size_t)w->n_leaves];
        basalt_status st = basalt_parquet_assemble_field(s, field, leaves, out, &err);
        if (st == BASALT_OK && scan->partial)
            st = prune(scan, field, out, &err);
        if (st == BASALT_OK && out->length != w->plans[gi].rows)
            st = basalt_error_set(&err, BASALT_CORRUPT, "field '%s' has %lld rows, expected %lld",
                                  s->fields[field].name, (long long)out->length,
                                  (long long)w->plans[gi].rows);
        if (st != BASALT_OK) {
            basalt_arrow_array_release(out);
            basalt_error_context(&err, st, "row group %d", (int)w->plans[gi].row_group);
            basalt_error_context(&err, st, "%s", scan->reader->name);
            record_failure(w, worker, t, st, &err);
        }
    }
}

/* ------------------------------------------------------------------ the window */

static int worker_count(const struct basalt_parquet_scan *scan)
{
    return basalt_pool_workers(scan->options.pool);
}

basalt_status basalt_parquet_scan_decode(struct basalt_parquet_scan *scan,
                                         const struct basalt_parquet_rg_plan *plans, int32_t n,
                                         struct ArrowArray *batches, struct basalt_error *err)
{
    const struct basalt_parquet_reader *r = scan->reader;
    int workers = worker_count(scan);
    if (!scan->scratch) {
        scan->scratch = basalt_calloc((size_t)workers, sizeof *scan->scratch);
        scan->chunk_buf = basalt_calloc((size_t)workers, sizeof *scan->chunk_buf);
        if (!scan->scratch || !scan->chunk_buf) {
            basalt_free(scan->scratch);
            basalt_free(scan->chunk_buf);
            scan->scratch = NULL;
            scan->chunk_buf = NULL;
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for decoder scratch");
        }
        for (int i = 0; i < workers; i++)
            basalt_buffer_init(&scan->chunk_buf[i]);
        scan->n_scratch = workers;
    }
    struct window w;
    memset(&w, 0, sizeof w);
    w.scan = scan;
    w.plans = plans;
    w.n = n;
    w.n_leaves = r->schema->n_leaves;
    w.workers = workers;
    atomic_init(&w.first_failed, INT64_MAX);
    atomic_init(&w.bytes_read, 0);
    size_t n_leaf_slots = (size_t)n * (size_t)w.n_leaves;
    size_t n_field_slots = (size_t)n * (size_t)scan->n_out_fields;
    w.leaves = basalt_calloc(n_leaf_slots + 1, sizeof *w.leaves);
    w.fields = basalt_calloc(n_field_slots + 1, sizeof *w.fields);
    w.errors = basalt_calloc((size_t)workers, sizeof *w.errors);
    basalt_status st = BASALT_OK;
    if (!w.leaves || !w.fields || !w.errors) {
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory for a decode window");
        goto done;
    }
    for (int i = 0; i < workers; i++)
        w.errors[i].task = -1;
    int max_workers = scan->options.num_workers;

    basalt_pool_parallel_for(scan->options.pool, max_workers, (int64_t)n * scan->n_decode, 1,
                             decode_tasks, &w);
    st = merged_failure(&w, err);
    scan->stats.bytes_read += atomic_load(&w.bytes_read);
    if (st != BASALT_OK)
        goto done;

    basalt_pool_parallel_for(scan->options.pool, max_workers, (int64_t)n_field_slots, 1,
                             assemble_tasks, &w);
    st = merged_failure(&w, err);
    if (st != BASALT_OK)
        goto done;

    for (int32_t g = 0; g < n && st == BASALT_OK; g++) {
        struct ArrowArray *b = &batches[g];
        st = basalt_arrow_array_init(b, 1, scan->n_out_fields, err);
        if (st != BASALT_OK)
            break;
        b->length = plans[g].rows;
        b->null_count = 0;
        for (int32_t j = 0; j < scan->n_out_fields; j++)
            basalt_arrow_array_move(&w.fields[(size_t)g * (size_t)scan->n_out_fields + (size_t)j],
                                    b->children[j]);
    }
done:
    if (w.leaves)
        for (size_t i = 0; i < n_leaf_slots; i++)
            basalt_parquet_leaf_values_reset(&w.leaves[i]);
    if (w.fields)
        for (size_t i = 0; i < n_field_slots; i++)
            basalt_arrow_array_release(&w.fields[i]);
    basalt_free(w.leaves);
    basalt_free(w.fields);
    basalt_free(w.errors);
    int64_t decompressed = 0;
    for (int i = 0; i < scan->n_scratch; i++) {
        struct basalt_parquet_scratch_stats ss;
        basalt_parquet_scratch_get_stats(scan->scratch[i], &ss);
        decompressed += ss.pages_decompressed;
    }
    scan->stats.pages_decompressed = decompressed;
    if (st != BASALT_OK)
        for (int32_t g = 0; g < n; g++)
            basalt_arrow_array_release(&batches[g]);
    return st;
}
