/* Scans: projection, row-group selection, predicates, the decisions fixed
 * when a scan starts (output types), and handing out batches. */
#include <string.h>

#include "parquet_reader.h"

void basalt_parquet_read_options_init(struct basalt_parquet_read_options *options)
{
    if (!options)
        return;
    memset(options, 0, sizeof *options);
    options->batch_size = 65536;
    options->use_statistics = true;
    options->use_bloom_filters = true;
    options->use_page_index = true;
}

basalt_status basalt_parquet_scan_new(const struct basalt_parquet_reader *reader,
                                      const struct basalt_parquet_read_options *options,
                                      struct basalt_parquet_scan **out, struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (!reader || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "parquet_scan_new: NULL argument");
    if (options && (options->batch_size < 0 || options->num_workers < 0))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "parquet_scan_new: negative batch_size or num_workers");
    struct basalt_parquet_scan *s = basalt_calloc(1, sizeof *s);
    if (!s)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a scan");
    s->reader = reader;
    if (options)
        s->options = *options;
    else
        basalt_parquet_read_options_init(&s->options);
    basalt_arena_init(&s->plan_arena, 16 * 1024);
    basalt_error_init(&s->failure);
    basalt_status st = basalt_parquet_projection_init(&s->projection, reader->schema, err);
    if (st != BASALT_OK) {
        basalt_free(s);
        return st;
    }
    *out = s;
    return BASALT_OK;
}

void basalt_parquet_scan_free(struct basalt_parquet_scan *scan)
{
    if (!scan)
        return;
    basalt_parquet_projection_reset(&scan->projection);
    basalt_free(scan->row_groups);
    for (int32_t i = 0; i < scan->n_preds; i++)
        basalt_parquet_predicate_reset(&scan->preds[i]);
    basalt_free(scan->preds);
    basalt_arrow_schema_release(&scan->schema);
    basalt_free(scan->out_fields);
    basalt_free(scan->decode);
    basalt_free(scan->decode_leaves);
    basalt_free(scan->large);
    basalt_free(scan->dict);
    basalt_free(scan->keep_dict);
    basalt_free(scan->dict_fields);
    basalt_arena_reset(&scan->plan_arena);
    basalt_parquet_scan_free_scratch(scan);
    for (int32_t i = 0; i < scan->queue_len; i++)
        basalt_arrow_array_release(&scan->queue[(scan->queue_head + i) % scan->queue_cap]);
    basalt_free(scan->queue);
    basalt_parquet_holder_release(scan->holder);
    basalt_free(scan);
}

/* ------------------------------------------------------------------ selection */

static basalt_status not_started(const struct basalt_parquet_scan *scan, struct basalt_error *err)
{
    if (scan->started)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "the scan has started: its selection is fixed");
    return BASALT_OK;
}

void basalt_parquet_scan_select_all(struct basalt_parquet_scan *scan)
{
    if (scan && !scan->started)
        basalt_parquet_projection_select_all(&scan->projection);
}

basalt_status basalt_parquet_scan_select_column(struct basalt_parquet_scan *scan, const char *name,
                                                struct basalt_error *err)
{
    if (!scan || !name)
        return basalt_error_set(err, BASALT_INVALID_ARG, "scan_select_column: NULL argument");
    basalt_status st = not_started(scan, err);
    if (st == BASALT_OK)
        st = basalt_parquet_projection_select_name(&scan->projection, name, err);
    return st == BASALT_OK ? st : basalt_error_context(err, st, "%s", scan->reader->name);
}

basalt_status basalt_parquet_scan_keep_dictionary(struct basalt_parquet_scan *scan, const char *name,
                                                  struct basalt_error *err)
{
    if (!scan || !name)
        return basalt_error_set(err, BASALT_INVALID_ARG, "scan_keep_dictionary: NULL argument");
    basalt_status st = not_started(scan, err);
    if (st != BASALT_OK)
        return st;
    const struct basalt_parquet_schema *s = scan->reader->schema;
    for (int32_t i = 0; i < s->n_roots; i++) {
        int32_t f = s->roots[i];
        if (strcmp(s->fields[f].name, name) != 0)
            continue;
        if (!scan->dict_fields && !(scan->dict_fields = basalt_calloc((size_t)s->n_fields, 1)))
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for a scan");
        scan->dict_fields[f] = 1;
        return BASALT_OK;
    }
    return basalt_error_context(
        err, basalt_error_set(err, BASALT_NOT_FOUND, "column '%s' not found", name), "%s",
        scan->reader->name);
}

basalt_status basalt_parquet_scan_select_path(struct basalt_parquet_scan *scan, const char *dotted,
                                              struct basalt_error *err)
{
    if (!scan || !dotted)
        return basalt_error_set(err, BASALT_INVALID_ARG, "scan_select_path: NULL argument");
    basalt_status st = not_started(scan, err);
    if (st == BASALT_OK)
        st = basalt_parquet_projection_select_path(&scan->projection, dotted, err);
    return st == BASALT_OK ? st : basalt_error_context(err, st, "%s", scan->reader->name);
}

basalt_status basalt_parquet_scan_select_field_id(struct basalt_parquet_scan *scan,
                                                  int32_t field_id, struct basalt_error *err)
{
    if (!scan)
        return basalt_error_set(err, BASALT_INVALID_ARG, "scan_select_field_id: NULL scan");
    basalt_status st = not_started(scan, err);
    if (st == BASALT_OK)
        st = basalt_parquet_projection_select_field_id(&scan->projection, field_id, err);
    return st == BASALT_OK ? st : basalt_error_context(err, st, "%s", scan->reader->name);
}

basalt_status basalt_parquet_scan_select_row_groups(struct basalt_parquet_scan *scan,
                                                    const int32_t *row_groups, size_t count,
                                                    struct basalt_error *err)
{
    if (!scan || (!row_groups && count))
        return basalt_error_set(err, BASALT_INVALID_ARG, "scan_select_row_groups: NULL argument");
    basalt_status st = not_started(scan, err);
    if (st != BASALT_OK)
        return st;
    size_t n = scan->reader->md.num_row_groups;
    for (size_t i = 0; i < count; i++)
        if (row_groups[i] < 0 || (size_t)row_groups[i] >= n)
            return basalt_error_set(err, BASALT_NOT_FOUND, "%s: row group %d not found (%zu row groups)",
                                    scan->reader->name, (int)row_groups[i], n);
    if (!scan->row_groups) {
        scan->row_groups = basalt_calloc(n + 1, 1);
        if (!scan->row_groups)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for a row-group selection");
    }
    for (size_t i = 0; i < count; i++)
        scan->row_groups[row_groups[i]] = 1;
    return BASALT_OK;
}

basalt_status basalt_parquet_scan_filter(struct basalt_parquet_scan *scan, const char *column,
                                         enum basalt_parquet_op op,
                                         const struct basalt_parquet_literal *literal,
                                         struct basalt_error *err)
{
    if (!scan || !column)
        return basalt_error_set(err, BASALT_INVALID_ARG, "scan_filter: NULL argument");
    basalt_status st = not_started(scan, err);
    if (st != BASALT_OK)
        return st;
    const struct basalt_parquet_reader *r = scan->reader;
    int32_t leaf = -1;
    st = basalt_parquet_reader_find_column(r, column, &leaf, NULL);
    if (st == BASALT_NOT_FOUND) {
        /* A path through the Arrow fields ("l.element", "m.key_value.key"). */
        int32_t field = -1;
        st = basalt_parquet_schema_find_path(r->schema, column, &field, err);
        if (st == BASALT_OK && r->schema->fields[field].kind != BASALT_PARQUET_FIELD_PRIMITIVE)
            st = basalt_error_set(err, BASALT_NOT_FOUND, "column '%s' is not a leaf", column);
        if (st == BASALT_OK)
            leaf = r->schema->fields[field].leaf;
    }
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", r->name);
    const struct basalt_parquet_schema_leaf *l = &r->schema->leaves[leaf];
    for (int32_t f = l->field; f >= 0; f = r->schema->fields[f].parent)
        if (r->schema->fields[f].variant)
            return basalt_error_set(err, BASALT_UNSUPPORTED,
                                    "%s: column '%s' is part of a VARIANT: predicates take "
                                    "columns outside variants",
                                    r->name, column);
    if (scan->n_preds == scan->cap_preds) {
        int32_t cap = scan->cap_preds ? scan->cap_preds * 2 : 4;
        struct basalt_parquet_predicate *p =
            basalt_realloc(scan->preds, sizeof *p * (size_t)cap);
        if (!p)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for a predicate");
        scan->preds = p;
        scan->cap_preds = cap;
    }
    st = basalt_parquet_predicate_init(&scan->preds[scan->n_preds], l, leaf, op, literal, err);
    if (st != BASALT_OK) {
        basalt_parquet_predicate_reset(&scan->preds[scan->n_preds]);
        return basalt_error_context(err, st, "%s", r->name);
    }
    scan->n_preds++;
    return BASALT_OK;
}

/* ------------------------------------------------------------------ start */

static bool is_byte_array_format(const char *f)
{
    return f && (strcmp(f, "u") == 0 || strcmp(f, "z") == 0 || strcmp(f, "U") == 0 ||
                 strcmp(f, "Z") == 0);
}

/* Whether any chunk of `leaf` in the scanned row groups may hold more than
 * 2 GiB of byte-array data. */
static bool may_overflow(const struct basalt_parquet_scan *scan, int32_t leaf)
{
    const struct basalt_parquet_reader *r = scan->reader;
    for (size_t g = 0; g < r->md.num_row_groups; g++) {
        if (scan->row_groups && !scan->row_groups[g])
            continue;
        const struct basalt_parquet_column_chunk *cc = &r->md.row_groups[g].columns[leaf];
        if (!cc->has_meta_data)
            continue;
        const struct basalt_parquet_column_metadata *m = &cc->meta_data;
        int64_t bytes = m->size_statistics.has_unencoded_byte_array_data_bytes
                            ? m->size_statistics.unencoded_byte_array_data_bytes
                            : m->total_uncompressed_size;
        if (bytes > (int64_t)INT32_MAX)
            return true;
    }
    return false;
}

static basalt_status start(struct basalt_parquet_scan *scan, struct basalt_error *err)
{
    if (scan->started)
        return BASALT_OK;
    const struct basalt_parquet_reader *r = scan->reader;
    const struct basalt_parquet_schema *s = r->schema;
    size_t nl = (size_t)s->n_leaves + 1;
    scan->decode = basalt_calloc(nl, 1);
    scan->decode_leaves = basalt_calloc(nl, sizeof(int32_t));
    scan->large = basalt_calloc(nl, 1);
    scan->dict = basalt_calloc(nl, 1);
    scan->keep_dict = basalt_calloc(nl, 1);
    scan->out_fields = basalt_calloc((size_t)s->n_roots + 1, sizeof(int32_t));
    if (!scan->decode || !scan->decode_leaves || !scan->large || !scan->dict || !scan->keep_dict ||
        !scan->out_fields)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a scan");
    const uint8_t *fsel = scan->projection.fields;
    for (int32_t i = 0; i < s->n_roots; i++) {
        int32_t f = s->roots[i];
        if (!fsel[f])
            continue;
        scan->out_fields[scan->n_out_fields++] = f;
        const struct basalt_parquet_schema_field *fd = &s->fields[f];
        /* The assembler builds whole top-level fields: every leaf below a
         * selected one is decoded, and unselected children dropped after. */
        for (int32_t l = fd->leaf_begin; l < fd->leaf_end; l++) {
            scan->decode[l] = 1;
            scan->decode_leaves[scan->n_decode++] = l;
            if (!scan->projection.leaves[l])
                scan->partial = true;
        }
    }
    for (int32_t k = 0; k < scan->n_decode; k++) {
        int32_t l = scan->decode_leaves[k];
        const struct basalt_parquet_schema_leaf *leaf = &s->leaves[l];
        const struct basalt_parquet_schema_field *fd = &s->fields[leaf->field];
        if (fd->dictionary_format)
            scan->keep_dict[l] = 1;
        if (is_byte_array_format(leaf->format)) {
            if (scan->options.large_binary || may_overflow(scan, l))
                scan->large[l] = 1;
            bool asked = scan->options.keep_dictionary ||
                         (scan->dict_fields && scan->dict_fields[leaf->field]);
            if (asked && fd->parent < 0 && !fd->dictionary_format) {
                scan->dict[l] = 1;
                scan->keep_dict[l] = 1;
            }
        }
    }
    struct basalt_parquet_arrow_options ao;
    memset(&ao, 0, sizeof ao);
    ao.large_binary = scan->large;
    ao.dictionary = scan->dict;
    basalt_status st = basalt_parquet_schema_to_arrow(s, &scan->projection, &ao, &scan->schema, err);
    if (st != BASALT_OK)
        return st;
    scan->v2_always_compressed = basalt_parquet_writer_v2_always_compressed(&r->writer);
    for (size_t g = 0; g < r->md.num_row_groups; g++)
        if (!scan->row_groups || scan->row_groups[g])
            scan->stats.row_groups_selected++;
    scan->started = true;
    return BASALT_OK;
}

static basalt_status fail(struct basalt_parquet_scan *scan, basalt_status st,
                          struct basalt_error *err)
{
    scan->failed = st;
    if (err)
        scan->failure = *err;
    else
        scan->failure.status = st;
    return st;
}

static basalt_status failed(const struct basalt_parquet_scan *scan, struct basalt_error *err)
{
    if (err)
        *err = scan->failure;
    return scan->failed;
}

basalt_status basalt_parquet_scan_schema(struct basalt_parquet_scan *scan, struct ArrowSchema *out,
                                         struct basalt_error *err)
{
    if (!scan || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "scan_schema: NULL argument");
    out->release = NULL;
    if (scan->failed != BASALT_OK)
        return failed(scan, err);
    basalt_status st = start(scan, err);
    if (st != BASALT_OK)
        return fail(scan, st, err);
    return basalt_arrow_schema_copy(&scan->schema, out, err);
}

/* ------------------------------------------------------------------ batches */

static basalt_status queue_push(struct basalt_parquet_scan *scan, struct ArrowArray *a,
                                struct basalt_error *err)
{
    if (scan->queue_len == scan->queue_cap) {
        int32_t cap = scan->queue_cap ? scan->queue_cap * 2 : 8;
        struct ArrowArray *q = basalt_malloc(sizeof *q * (size_t)cap);
        if (!q) {
            basalt_arrow_array_release(a);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for batches");
        }
        for (int32_t i = 0; i < scan->queue_len; i++)
            basalt_arrow_array_move(&scan->queue[(scan->queue_head + i) % scan->queue_cap], &q[i]);
        basalt_free(scan->queue);
        scan->queue = q;
        scan->queue_cap = cap;
        scan->queue_head = 0;
    }
    basalt_arrow_array_move(a, &scan->queue[(scan->queue_head + scan->queue_len) % scan->queue_cap]);
    scan->queue_len++;
    return BASALT_OK;
}

static void queue_pop(struct basalt_parquet_scan *scan, struct ArrowArray *out)
{
    basalt_arrow_array_move(&scan->queue[scan->queue_head], out);
    scan->queue_head = (scan->queue_head + 1) % scan->queue_cap;
    scan->queue_len--;
}

/* Plans and decodes up to `max_groups` more row groups into the queue.
 * *done when no row group was left. */
/* How far ahead of the decoder a remote input is asked to fetch: whole row
 * groups until their projected bytes pass this (at least one window). One
 * request per coalesced run of that stretch, fetched while the stretch
 * before it decodes. */
#define PREFETCH_AHEAD_BYTES ((uint64_t)64 << 20)

/* Over a remote input: once the decoder is half way through the stretch
 * asked for last, ask for the next one (and this window too if it was not
 * part of the last stretch), so the fetch of one stretch overlaps the
 * decoding of half of the one before. The input keeps the last stretch's
 * bytes while it fetches the next. The stretch is planned here and again when its
 * turn comes; planning reads only the footer (and bloom filters), and its
 * pruning counters are not counted twice. */
static void prefetch_ahead(struct basalt_parquet_scan *scan,
                           const struct basalt_parquet_rg_plan *plans, int32_t n,
                           int32_t max_groups)
{
    const struct basalt_parquet_reader *r = scan->reader;
    int32_t n_rg = (int32_t)r->md.num_row_groups;
    bool this_window = scan->prefetched_until <= plans[n - 1].row_group;
    if (!this_window && (scan->next_rg < scan->prefetch_trigger ||
                         scan->prefetched_until >= n_rg))
        return; /* the next stretch is already on its way, or there is none */
    int32_t from = scan->next_rg > scan->prefetched_until ? scan->next_rg : scan->prefetched_until;
    struct basalt_parquet_scan_stats saved = scan->stats;
    int32_t cap = n + (n_rg - from > 0 ? n_rg - from : 0);
    struct basalt_parquet_rg_plan *all = basalt_calloc((size_t)(cap > 0 ? cap : 1), sizeof *all);
    if (!all)
        return;
    int32_t m = 0;
    if (this_window)
        for (int32_t i = 0; i < n; i++)
            all[m++] = plans[i];
    uint64_t bytes = 0;
    int32_t ahead = 0, g = from;
    for (; g < n_rg && (bytes < PREFETCH_AHEAD_BYTES || ahead < max_groups); g++) {
        if (scan->row_groups && !scan->row_groups[g])
            continue;
        bool skip = false;
        if (basalt_parquet_scan_plan(scan, g, &all[m], &skip, NULL) != BASALT_OK)
            break;
        if (skip)
            continue;
        for (int32_t d = 0; d < scan->n_decode; d++) {
            uint64_t off = 0, len = 0;
            if (basalt_parquet_reader_chunk_range(r, g, scan->decode_leaves[d], &off, &len,
                                                  NULL) == BASALT_OK)
                bytes += len;
        }
        m++;
        ahead++;
    }
    scan->stats = saved;
    if (m > 0)
        basalt_parquet_scan_prefetch(scan, all, m);
    int32_t start = this_window ? plans[0].row_group : from;
    scan->prefetch_trigger = start + (g - start + 1) / 2;
    scan->prefetched_until = g;
    basalt_free(all);
}

static int32_t window(const struct basalt_parquet_scan *scan);

void basalt_parquet_scan_warm(struct basalt_parquet_scan *scan)
{
    if (scan == NULL || !basalt_parquet_scan_prefetches(scan) || scan->next_rg > 0 ||
        scan->prefetched_until > 0)
        return;
    const struct basalt_parquet_reader *r = scan->reader;
    struct basalt_parquet_scan_stats saved = scan->stats;
    struct basalt_parquet_rg_plan plan;
    for (int32_t g = 0; g < (int32_t)r->md.num_row_groups; g++) {
        if (scan->row_groups && !scan->row_groups[g])
            continue;
        bool skip = false;
        if (basalt_parquet_scan_plan(scan, g, &plan, &skip, NULL) != BASALT_OK)
            break;
        if (skip)
            continue;
        /* as decode_more leaves it: the first group planned, the rest ahead */
        scan->next_rg = g + 1;
        prefetch_ahead(scan, &plan, 1, window(scan));
        scan->next_rg = 0;
        break;
    }
    scan->stats = saved;
    basalt_arena_reset(&scan->plan_arena);
}

static basalt_status decode_more(struct basalt_parquet_scan *scan, int32_t max_groups, bool *done,
                                 struct basalt_error *err)
{
    const struct basalt_parquet_reader *r = scan->reader;
    int32_t n_rg = (int32_t)r->md.num_row_groups;
    *done = false;
    basalt_arena_reset(&scan->plan_arena);
    struct basalt_parquet_rg_plan *plans = NULL;
    struct ArrowArray *batches = NULL;
    int32_t n = 0, cap = 0;
    basalt_status st = BASALT_OK;
    while (scan->next_rg < n_rg && n < max_groups) {
        int32_t g = scan->next_rg++;
        if (scan->row_groups && !scan->row_groups[g])
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 4;
            if (cap > max_groups)
                cap = max_groups;
            struct basalt_parquet_rg_plan *p = basalt_realloc(plans, sizeof *p * (size_t)cap);
            if (!p) {
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory for a scan plan");
                break;
            }
            plans = p;
        }
        bool skip = false;
        st = basalt_parquet_scan_plan(scan, g, &plans[n], &skip, err);
        if (st != BASALT_OK)
            break;
        if (!skip)
            n++;
    }
    if (st == BASALT_OK && n == 0) {
        *done = scan->next_rg >= n_rg;
        basalt_free(plans);
        return BASALT_OK;
    }
    if (st == BASALT_OK && basalt_parquet_scan_prefetches(scan))
        prefetch_ahead(scan, plans, n, max_groups);
    if (st == BASALT_OK) {
        batches = basalt_calloc((size_t)n, sizeof *batches);
        if (!batches)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory for batches");
    }
    if (st == BASALT_OK)
        st = basalt_parquet_scan_decode(scan, plans, n, batches, err);
    for (int32_t i = 0; i < n && st == BASALT_OK; i++) {
        scan->stats.row_groups_read++;
        scan->stats.rows_total += r->md.row_groups[plans[i].row_group].num_rows;
        scan->stats.rows_read += plans[i].rows;
        st = queue_push(scan, &batches[i], err);
    }
    if (batches)
        for (int32_t i = 0; i < n; i++)
            basalt_arrow_array_release(&batches[i]);
    basalt_free(batches);
    basalt_free(plans);
    basalt_arena_reset(&scan->plan_arena);
    return st;
}

/* Row groups decoded together: enough chunks to keep every worker busy. */
static int32_t window(const struct basalt_parquet_scan *scan)
{
    int workers = basalt_pool_workers(scan->options.pool);
    if (scan->options.num_workers > 0 && scan->options.num_workers < workers)
        workers = scan->options.num_workers;
    if (workers <= 1)
        return 1;
    int32_t per_group = scan->n_decode > 0 ? scan->n_decode : 1;
    int32_t w = (4 * workers + per_group - 1) / per_group;
    if (w > 2 * workers)
        w = 2 * workers;
    return w < 1 ? 1 : w;
}

basalt_status basalt_parquet_scan_next(struct basalt_parquet_scan *scan, struct ArrowArray *out,
                                       struct basalt_error *err)
{
    if (!scan || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "scan_next: NULL argument");
    out->release = NULL;
    if (scan->failed != BASALT_OK)
        return failed(scan, err);
    basalt_status st = start(scan, err);
    if (st != BASALT_OK)
        return fail(scan, st, err);
    int64_t batch = scan->options.batch_size;
    for (;;) {
        if (scan->holder) {
            int64_t len = basalt_parquet_holder_length(scan->holder);
            int64_t n = len - scan->holder_pos;
            if (n > batch)
                n = batch;
            st = basalt_parquet_holder_slice(scan->holder, scan->holder_pos, n, out, err);
            if (st != BASALT_OK)
                return fail(scan, st, err);
            scan->holder_pos += n;
            if (scan->holder_pos >= len) {
                basalt_parquet_holder_release(scan->holder);
                scan->holder = NULL;
            }
            return BASALT_OK;
        }
        if (scan->queue_len > 0) {
            struct ArrowArray a;
            queue_pop(scan, &a);
            if (batch <= 0 || a.length <= batch) {
                basalt_arrow_array_move(&a, out);
                return BASALT_OK;
            }
            st = basalt_parquet_holder_new(&a, &scan->holder, err);
            if (st != BASALT_OK)
                return fail(scan, st, err);
            scan->holder_pos = 0;
            continue;
        }
        bool done = false;
        st = decode_more(scan, window(scan), &done, err);
        if (st != BASALT_OK)
            return fail(scan, st, err);
        if (done && scan->queue_len == 0)
            return BASALT_OK; /* the end: out is released */
    }
}

basalt_status basalt_parquet_scan_read_all(struct basalt_parquet_scan *scan,
                                           struct basalt_arrow_batches *batches,
                                           struct basalt_error *err)
{
    if (!scan || !batches)
        return basalt_error_set(err, BASALT_INVALID_ARG, "scan_read_all: NULL argument");
    if (scan->failed != BASALT_OK)
        return failed(scan, err);
    basalt_status st = start(scan, err);
    if (st != BASALT_OK)
        return fail(scan, st, err);
    if (!batches->schema.release) {
        st = basalt_arrow_schema_copy(&scan->schema, &batches->schema, err);
        if (st != BASALT_OK)
            return st;
    }
    /* What a next() left behind comes first. */
    for (;;) {
        struct ArrowArray a;
        a.release = NULL;
        if (scan->holder) {
            int64_t len = basalt_parquet_holder_length(scan->holder);
            st = basalt_parquet_holder_slice(scan->holder, scan->holder_pos,
                                             len - scan->holder_pos, &a, err);
            basalt_parquet_holder_release(scan->holder);
            scan->holder = NULL;
        } else if (scan->queue_len > 0) {
            queue_pop(scan, &a);
        } else {
            bool done = false;
            st = decode_more(scan, (int32_t)scan->reader->md.num_row_groups, &done, err);
            if (st == BASALT_OK && scan->queue_len == 0)
                return BASALT_OK;
            if (st == BASALT_OK)
                continue;
        }
        if (st == BASALT_OK)
            st = basalt_arrow_batches_append(batches, &a, err);
        if (st != BASALT_OK)
            return fail(scan, st, err);
    }
}

void basalt_parquet_scan_get_stats(const struct basalt_parquet_scan *scan,
                                   struct basalt_parquet_scan_stats *out)
{
    if (!out)
        return;
    if (!scan) {
        memset(out, 0, sizeof *out);
        return;
    }
    *out = scan->stats;
}

/* ------------------------------------------------------------------ reader schema */

basalt_status basalt_parquet_reader_schema(const struct basalt_parquet_reader *reader,
                                           struct ArrowSchema *out, struct basalt_error *err)
{
    if (!reader || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "reader_schema: NULL argument");
    out->release = NULL;
    struct basalt_parquet_scan *scan = NULL;
    basalt_status st = basalt_parquet_scan_new(reader, NULL, &scan, err);
    if (st != BASALT_OK)
        return st;
    basalt_parquet_scan_select_all(scan);
    st = basalt_parquet_scan_schema(scan, out, err);
    basalt_parquet_scan_free(scan);
    return st;
}
