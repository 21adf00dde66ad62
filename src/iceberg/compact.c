/* Compaction (Java's RewriteDataFiles): the branch head's live data files
 * grouped by spec and partition, the groups worth rewriting read with their
 * deletes applied and written again near the target size, and one
 * "replace" snapshot that swaps them, removing the delete files that only
 * applied to them. The new files keep the starting snapshot's data
 * sequence number, so a lost race is often settled without rewriting
 * again: the new head is checked for what would make the rewrite wrong (a
 * rewritten file gone, a delete added that applies to one) and, when none,
 * the same files are committed on it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_maintain.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_scan.h"
#include "basalt/iceberg_write.h"
#include "commit_internal.h"
#include "maintain_internal.h"
#include "scan_internal.h"
#include "snapshot_internal.h"

void basalt_iceberg_compact_options_init(struct basalt_iceberg_compact_options *o)
{
    memset(o, 0, sizeof *o);
    o->target_file_size = o->min_file_size = o->max_file_size = -1;
    o->min_input_files = 5;
    o->retries = 10;
}

/* One live data file of the head. */
struct cfile {
    const struct basalt_iceberg_data_file *file; /* from the full plan */
    int32_t spec_id;
    const struct basalt_iceberg_data_file *const *deletes;
    uint32_t n_deletes;
    uint8_t *key;                                /* spec id and partition tuple */
    size_t key_len;
    bool candidate;                              /* may match the filter */
    bool rewrite;
};

struct work {
    struct basalt_iceberg_scan *scan;            /* the full plan */
    struct cfile *files;
    uint32_t n_files;
    const char **removed;                        /* sorted */
    uint32_t n_removed;
    const char **removed_deletes;                /* sorted */
    uint32_t n_removed_deletes;
    uint32_t groups;
    int64_t bytes_removed;
};

static void work_reset(struct work *w)
{
    for (uint32_t i = 0; i < w->n_files; i++)
        basalt_free(w->files[i].key);
    basalt_free(w->files);
    basalt_free(w->removed);
    basalt_free(w->removed_deletes);
    basalt_iceberg_scan_free(w->scan);
    memset(w, 0, sizeof *w);
}

static int compare_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int compare_file_path(const void *a, const void *b)
{
    return strcmp(((const struct cfile *)a)->file->file_path,
                  ((const struct cfile *)b)->file->file_path);
}

static int compare_key(const void *a, const void *b)
{
    const struct cfile *x = a, *y = b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->key, y->key, n);
    if (c || x->key_len != y->key_len)
        return c ? c : (x->key_len > y->key_len) - (x->key_len < y->key_len);
    return strcmp(x->file->file_path, y->file->file_path);
}

static const char *branch_ref(const struct basalt_iceberg_table *t, const char *branch)
{
    return basalt_iceberg_metadata_ref(t->metadata, branch) ? branch : NULL;
}

/* spec id, then each partition value as (null flag, length, bytes). */
static basalt_status file_key(struct cfile *f, struct basalt_error *err)
{
    size_t cap = 8;
    for (uint32_t i = 0; i < f->file->n_partition; i++)
        cap += 5 + 64 + (f->file->partition[i].is_null ? 0 : f->file->partition[i].u.bytes.len);
    uint8_t *k = basalt_malloc(cap);
    if (!k)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    /* Big-endian spec id so that keys of one spec are adjacent and ordered. */
    uint32_t s = (uint32_t)f->spec_id;
    size_t at = 0;
    for (int b = 3; b >= 0; b--)
        k[at++] = (uint8_t)(s >> (8 * b));
    for (uint32_t i = 0; i < f->file->n_partition; i++) {
        const struct basalt_iceberg_value *v = &f->file->partition[i];
        size_t len = 0;
        k[at++] = v->is_null ? 0 : 1;
        if (!v->is_null) {
            basalt_status st = basalt_iceberg_value_to_bytes(v, k + at + 4, cap - at - 4, &len, err);
            if (st != BASALT_OK) {
                basalt_free(k);
                return st;
            }
        }
        memcpy(k + at, &len, 4);
        at += 4 + len;
    }
    f->key = k;
    f->key_len = at;
    return BASALT_OK;
}

/* The live data files of the head with the deletes that apply to them. */
static basalt_status plan_files(const struct basalt_iceberg_table *t, const char *branch,
                                const struct basalt_iceberg_compact_options *opt,
                                struct work *w, struct basalt_error *err)
{
    struct basalt_iceberg_scan_options o;
    basalt_iceberg_scan_options_init(&o);
    o.ref = branch_ref(t, branch);
    o.pool = opt->pool;
    o.num_workers = opt->num_workers;
    const struct basalt_iceberg_plan *plan = NULL;
    basalt_status st = basalt_iceberg_scan_new(t, &o, &w->scan, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_plan(w->scan, &plan, err);
    if (st != BASALT_OK)
        return st;
    w->files = basalt_calloc(plan->n_tasks ? plan->n_tasks : 1, sizeof *w->files);
    if (!w->files)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t i = 0; i < plan->n_tasks; i++) {
        const struct basalt_iceberg_file_task *task = &plan->tasks[i];
        struct cfile *f = &w->files[w->n_files++];
        f->file = task->file;
        f->spec_id = task->spec_id;
        f->deletes = task->deletes;
        f->n_deletes = task->n_deletes;
        f->candidate = opt->filter == NULL;
    }
    /* Split files give several tasks: one entry each. */
    if (w->n_files > 1)
        qsort(w->files, w->n_files, sizeof *w->files, compare_file_path);
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->n_files; i++)
        if (n == 0 || strcmp(w->files[n - 1].file->file_path, w->files[i].file->file_path) != 0)
            w->files[n++] = w->files[i];
    w->n_files = n;
    for (uint32_t i = 0; st == BASALT_OK && i < w->n_files; i++)
        st = file_key(&w->files[i], err);
    if (st != BASALT_OK || !opt->filter)
        return st;
    /* The filter's plan names the candidates. */
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_iceberg_expr *expr = NULL;
    struct basalt_iceberg_scan *fs = NULL;
    st = basalt_iceberg_expr_parse(opt->filter, &arena, &expr, err);
    o.filter = expr;
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_new(t, &o, &fs, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_plan(fs, &plan, err);
    for (uint32_t i = 0; st == BASALT_OK && i < plan->n_tasks; i++) {
        struct cfile key = {.file = plan->tasks[i].file};
        struct cfile *f =
            bsearch(&key, w->files, w->n_files, sizeof *w->files, compare_file_path);
        if (f)
            f->candidate = true;
    }
    basalt_iceberg_scan_free(fs);
    basalt_arena_reset(&arena);
    return st;
}

struct limits {
    int64_t target, min, max;
};

static bool size_candidate(const struct limits *l, const struct cfile *f)
{
    int64_t size = f->file->file_size_in_bytes;
    return size < l->min || size > l->max || f->n_deletes > 0;
}

/* Marks the files to rewrite, group by group, as Java's size-based
 * rewriter decides (files out of the size range or with deletes; a group
 * when it has enough of them, enough or too much content, or deletes). */
static void select_files(const struct basalt_iceberg_compact_options *opt, const struct limits *l,
                         struct work *w)
{
    if (w->n_files > 1)
        qsort(w->files, w->n_files, sizeof *w->files, compare_key);
    for (uint32_t i = 0; i < w->n_files;) {
        uint32_t j = i;
        while (j < w->n_files && w->files[j].key_len == w->files[i].key_len &&
               memcmp(w->files[j].key, w->files[i].key, w->files[i].key_len) == 0)
            j++;
        uint32_t n = 0;
        int64_t bytes = 0;
        bool deletes = false, too_big = false;
        for (uint32_t k = i; k < j; k++) {
            struct cfile *f = &w->files[k];
            if (!f->candidate || !(opt->rewrite_all || size_candidate(l, f)))
                continue;
            n++;
            bytes += f->file->file_size_in_bytes;
            deletes |= f->n_deletes > 0;
            too_big |= f->file->file_size_in_bytes > l->max;
        }
        bool go = n > 0 && (opt->rewrite_all || (n > 1 && n >= (uint32_t)opt->min_input_files) ||
                            (n > 1 && bytes > l->target) || bytes > l->max || too_big || deletes);
        for (uint32_t k = i; go && k < j; k++) {
            struct cfile *f = &w->files[k];
            f->rewrite = f->candidate && (opt->rewrite_all || size_candidate(l, f));
        }
        w->groups += go;
        i = j;
    }
}

/* The removed data files, and the delete files that apply to no file kept. */
static basalt_status removal_lists(struct work *w, struct basalt_error *err)
{
    uint32_t n_del = 0;
    for (uint32_t i = 0; i < w->n_files; i++)
        n_del += w->files[i].n_deletes;
    w->removed = basalt_malloc((w->n_files + 1) * sizeof *w->removed);
    const char **gone = basalt_malloc((n_del + 1) * sizeof *gone);
    const char **kept = basalt_malloc((n_del + 1) * sizeof *kept);
    w->removed_deletes = basalt_malloc((n_del + 1) * sizeof *w->removed_deletes);
    if (!w->removed || !gone || !kept || !w->removed_deletes) {
        basalt_free(gone);
        basalt_free(kept);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    uint32_t n_gone = 0, n_kept = 0;
    for (uint32_t i = 0; i < w->n_files; i++) {
        const struct cfile *f = &w->files[i];
        if (f->rewrite) {
            w->removed[w->n_removed++] = f->file->file_path;
            w->bytes_removed += f->file->file_size_in_bytes;
        }
        for (uint32_t k = 0; k < f->n_deletes; k++) {
            if (f->rewrite)
                gone[n_gone++] = f->deletes[k]->file_path;
            else
                kept[n_kept++] = f->deletes[k]->file_path;
        }
    }
    qsort(w->removed, w->n_removed, sizeof *w->removed, compare_str);
    qsort(gone, n_gone, sizeof *gone, compare_str);
    qsort(kept, n_kept, sizeof *kept, compare_str);
    for (uint32_t i = 0; i < n_gone; i++) {
        if (i && strcmp(gone[i], gone[i - 1]) == 0)
            continue;
        if (!n_kept || !bsearch(&gone[i], kept, n_kept, sizeof *kept, compare_str))
            w->removed_deletes[w->n_removed_deletes++] = gone[i];
    }
    basalt_free(gone);
    basalt_free(kept);
    return BASALT_OK;
}

/* Reads the rewritten files of each group (deletes applied) into `dw`. */
static basalt_status rewrite_groups(const struct basalt_iceberg_table *t, const char *branch,
                                    const struct basalt_iceberg_compact_options *opt,
                                    struct work *w, struct basalt_iceberg_data_writer *dw,
                                    int64_t *rows, struct basalt_error *err)
{
    const char **only = basalt_malloc((w->n_files + 1) * sizeof *only);
    if (!only)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    /* v3: the rows keep their ids and sequence numbers (they are moved, not
     * changed), read after the table's columns as the writer takes them. */
    const char **columns = NULL;
    size_t n_columns = 0;
    if (basalt_iceberg_tracks_row_lineage(t->metadata)) {
        const struct basalt_iceberg_schema *schema = basalt_iceberg_metadata_current_schema(t->metadata);
        n_columns = schema->root.n_fields + 2;
        columns = basalt_malloc(n_columns * sizeof *columns);
        if (!columns) {
            basalt_free(only);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        for (uint32_t i = 0; i < schema->root.n_fields; i++)
            columns[i] = schema->root.fields[i].name;
        columns[n_columns - 2] = BASALT_ICEBERG_ROW_ID_NAME;
        columns[n_columns - 1] = BASALT_ICEBERG_LAST_UPDATED_SEQ_NAME;
    }
    basalt_status st = BASALT_OK;
    for (uint32_t i = 0; st == BASALT_OK && i < w->n_files;) {
        uint32_t j = i, n = 0;
        while (j < w->n_files && w->files[j].key_len == w->files[i].key_len &&
               memcmp(w->files[j].key, w->files[i].key, w->files[i].key_len) == 0) {
            if (w->files[j].rewrite)
                only[n++] = w->files[j].file->file_path;
            j++;
        }
        i = j;
        if (n == 0)
            continue;
        qsort(only, n, sizeof *only, compare_str);
        struct basalt_iceberg_scan_options o;
        basalt_iceberg_scan_options_init(&o);
        o.ref = branch_ref(t, branch);
        o.only_files = only;
        o.n_only_files = n;
        o.columns = columns;
        o.n_columns = n_columns;
        o.pool = opt->pool;
        o.num_workers = opt->num_workers;
        struct basalt_iceberg_scan *scan = NULL;
        struct ArrowSchema schema;
        schema.release = NULL;
        struct ArrowArrayStream stream;
        stream.release = NULL;
        struct basalt_iceberg_sort_key *keys = NULL;
        uint32_t n_keys = 0;
        struct ArrowArray *held = NULL;
        uint32_t n_held = 0, cap_held = 0;
        st = basalt_iceberg_scan_new(t, &o, &scan, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_scan_schema(scan, &schema, err);
        if (st == BASALT_OK && opt->strategy == BASALT_ICEBERG_COMPACT_SORT)
            st = basalt_iceberg_sort_keys(t->metadata, opt->sort, &schema, &keys, &n_keys, err);
        if (st == BASALT_OK)
            st = basalt_iceberg_scan_stream(scan, &stream, err);
        while (st == BASALT_OK) {
            struct ArrowArray batch;
            if (stream.get_next(&stream, &batch) != 0) {
                st = basalt_error_set(err, basalt_iceberg_scan_stream_status(&stream),
                                      "reading the files to compact: %s",
                                      stream.get_last_error(&stream));
                break;
            }
            if (!batch.release)
                break;
            *rows += batch.length;
            if (!keys) {
                st = basalt_iceberg_data_writer_write(dw, &batch, err);
                batch.release(&batch);
                continue;
            }
            if (n_held == cap_held) {
                uint32_t cap = cap_held ? cap_held * 2 : 16;
                struct ArrowArray *h = basalt_realloc(held, cap * sizeof *h);
                if (!h) {
                    batch.release(&batch);
                    st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
                    break;
                }
                held = h;
                cap_held = cap;
            }
            basalt_arrow_array_move(&batch, &held[n_held++]);
        }
        if (st == BASALT_OK && keys)
            st = basalt_iceberg_write_sorted(&schema, held, n_held, keys, n_keys, dw, err);
        for (uint32_t k = 0; k < n_held; k++)
            basalt_arrow_array_release(&held[k]);
        basalt_free(held);
        basalt_free(keys);
        if (stream.release)
            stream.release(&stream);
        if (schema.release)
            schema.release(&schema);
        basalt_iceberg_scan_free(scan);
    }
    basalt_free(only);
    basalt_free(columns);
    return st;
}

/* After a lost race: may the rewrite go on the new head? CONFLICT when a
 * rewritten file is gone or a delete that was not read applies to one. */
static basalt_status validate(const struct basalt_iceberg_table *t, const char *branch,
                              const struct work *w, struct basalt_error *err)
{
    struct basalt_iceberg_scan_options o;
    basalt_iceberg_scan_options_init(&o);
    o.ref = branch_ref(t, branch);
    o.only_files = w->removed;
    o.n_only_files = w->n_removed;
    struct basalt_iceberg_scan *scan = NULL;
    const struct basalt_iceberg_plan *plan = NULL;
    basalt_status st = basalt_iceberg_scan_new(t, &o, &scan, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_plan(scan, &plan, err);
    uint32_t seen = 0;
    const char *last = NULL;
    for (uint32_t i = 0; st == BASALT_OK && i < plan->n_tasks; i++) {
        const struct basalt_iceberg_file_task *task = &plan->tasks[i];
        const struct cfile *f = NULL;
        for (uint32_t k = 0; k < w->n_files && !f; k++)
            if (strcmp(w->files[k].file->file_path, task->file->file_path) == 0)
                f = &w->files[k];
        if (!f || !f->rewrite)
            continue;
        if (!last || strcmp(last, task->file->file_path) != 0)
            seen++;
        last = task->file->file_path;
        for (uint32_t d = 0; st == BASALT_OK && d < task->n_deletes; d++) {
            bool known = false;
            for (uint32_t k = 0; k < f->n_deletes && !known; k++)
                known = strcmp(f->deletes[k]->file_path, task->deletes[d]->file_path) == 0;
            if (!known)
                st = basalt_error_set(err, BASALT_CONFLICT,
                                      "%.300s: a delete file committed since the compaction "
                                      "started applies to it (%.300s)",
                                      task->file->file_path, task->deletes[d]->file_path);
        }
    }
    if (st == BASALT_OK && seen != w->n_removed)
        st = basalt_error_set(err, BASALT_CONFLICT,
                              "%u of the %u files compacted were removed since it started",
                              (unsigned)(w->n_removed - seen), (unsigned)w->n_removed);
    basalt_iceberg_scan_free(scan);
    return st;
}

static basalt_status open_writer(const struct basalt_iceberg_table *t,
                                 const struct basalt_iceberg_compact_options *opt,
                                 const struct limits *l, struct basalt_arena *arena,
                                 struct basalt_iceberg_data_writer **out,
                                 struct basalt_error *err)
{
    const struct basalt_iceberg_metadata *m = t->metadata;
    char data[4096], prefix[64], uuid[37], target[32];
    const char *path = basalt_iceberg_metadata_property(m, "write.data.path");
    snprintf(data, sizeof data, "%s%s", path ? path : m->location, path ? "" : "/data");
    basalt_iceberg_uuid4(uuid);
    snprintf(prefix, sizeof prefix, "00000-0-%s", uuid);
    snprintf(target, sizeof target, "%lld", (long long)l->target);
    /* The table's properties with the target size the options chose. */
    struct basalt_iceberg_kv *props =
        basalt_arena_alloc(arena, (m->n_properties + 1) * sizeof *props, 8);
    char *tv = basalt_arena_strndup(arena, target, strlen(target));
    if (!props || !tv)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->n_properties; i++)
        if (strcmp(m->properties[i].key, "write.target-file-size-bytes") != 0)
            props[n++] = m->properties[i];
    props[n].key = "write.target-file-size-bytes";
    props[n++].value = tv;
    struct basalt_iceberg_data_writer_options wo;
    basalt_iceberg_data_writer_options_init(&wo);
    wo.schema = basalt_iceberg_metadata_current_schema(m);
    wo.spec = basalt_iceberg_metadata_spec(m, m->default_spec_id);
    wo.properties = props;
    wo.n_properties = n;
    /* The writer borrows them for its life. */
    wo.data_location = basalt_arena_strndup(arena, data, strlen(data));
    wo.file_prefix = basalt_arena_strndup(arena, prefix, strlen(prefix));
    if (!wo.data_location || !wo.file_prefix)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    wo.io = t->io;
    /* Sorted by the table's order: its id; by other keys: none; bin-packed:
     * the unsorted order, 0. */
    wo.sort_order_id = opt->strategy == BASALT_ICEBERG_COMPACT_SORT
                           ? (opt->sort ? -1 : m->default_sort_order_id)
                           : 0;
    wo.row_lineage = basalt_iceberg_tracks_row_lineage(m);
    wo.pool = opt->pool;
    wo.num_workers = opt->num_workers;
    return basalt_iceberg_data_writer_new(&wo, out, err);
}

static int64_t size_property(const struct basalt_iceberg_metadata *m, const char *key, int64_t dflt)
{
    const char *v = basalt_iceberg_metadata_property(m, key);
    if (!v)
        return dflt;
    char *end;
    long long n = strtoll(v, &end, 10);
    return end == v || *end || n <= 0 ? dflt : (int64_t)n;
}

static void delete_written(const struct basalt_iceberg_table *t, struct basalt_string_list *l)
{
    if (t && l->n)
        basalt_iceberg_io_delete(t->io, (const char *const *)l->items, l->n, NULL);
    basalt_string_list_reset(l);
}

basalt_status basalt_iceberg_compact(const struct basalt_iceberg_committer *committer,
                                     const char *identifier,
                                     const struct basalt_iceberg_compact_options *options,
                                     struct basalt_iceberg_compact_result *result,
                                     struct basalt_error *err)
{
    struct basalt_iceberg_compact_options defaults;
    struct basalt_iceberg_compact_result ignored;
    if (!options) {
        basalt_iceberg_compact_options_init(&defaults);
        options = &defaults;
    }
    if (!result)
        result = &ignored;
    memset(result, 0, sizeof *result);
    if (options->min_input_files < 1 || options->retries < 0 ||
        options->target_file_size == 0 || options->target_file_size < -1)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "compact: min_input_files >= 1, retries >= 0, target > 0");
    const char *branch = options->branch ? options->branch : "main";
    int commits = 0;
    basalt_status st = BASALT_CONFLICT;
    while (st == BASALT_CONFLICT && commits <= options->retries) {
        struct basalt_iceberg_table *t = NULL;
        struct basalt_iceberg_data_writer *dw = NULL;
        struct basalt_arena arena;
        basalt_arena_init(&arena, 0);
        struct work w;
        memset(&w, 0, sizeof w);
        int64_t rows = 0;
        const struct basalt_iceberg_data_file *added = NULL;
        uint32_t n_added = 0;
        bool committed_unknown = false;
        st = committer->load(committer->ctx, identifier, &t, err);
        const struct basalt_iceberg_snapshot *head = NULL;
        if (st == BASALT_OK && basalt_iceberg_metadata_ref(t->metadata, branch))
            basalt_iceberg_metadata_snapshot_by_ref(t->metadata, branch, &head, NULL);
        else if (st == BASALT_OK && strcmp(branch, "main") != 0)
            st = basalt_error_set(err, BASALT_NOT_FOUND, "compact: no branch '%s'", branch);
        struct limits l = {0};
        if (st == BASALT_OK) {
            l.target = options->target_file_size > 0
                           ? options->target_file_size
                           : size_property(t->metadata, "write.target-file-size-bytes",
                                           536870912);
            l.min = options->min_file_size >= 0 ? options->min_file_size : l.target * 3 / 4;
            l.max = options->max_file_size >= 0 ? options->max_file_size : l.target * 9 / 5;
        }
        if (st == BASALT_OK && head)
            st = plan_files(t, branch, options, &w, err);
        if (st == BASALT_OK && head) {
            select_files(options, &l, &w);
            st = removal_lists(&w, err);
        }
        if (st == BASALT_OK && w.n_removed) {
            st = open_writer(t, options, &l, &arena, &dw, err);
            if (st == BASALT_OK)
                st = rewrite_groups(t, branch, options, &w, dw, &rows, err);
            if (st == BASALT_OK)
                st = basalt_iceberg_data_writer_finish(dw, &added, &n_added, err);
        }
        if (st == BASALT_OK && w.n_removed) {
            struct basalt_iceberg_rewrite rw = {
                .branch = branch,
                .operation = "replace",
                .removed = w.removed,
                .n_removed = w.n_removed,
                .added = added,
                .n_added = n_added,
                .removed_deletes = w.removed_deletes,
                .n_removed_deletes = w.n_removed_deletes,
                .has_added_sequence_number = true,
                .added_sequence_number = head->sequence_number,
            };
            int64_t id = basalt_iceberg_new_snapshot_id();
            /* Commit; on a lost race, validate the new head and commit the
             * same files there, until the retries run out. */
            struct basalt_iceberg_table *cur = t;
            int64_t deletes_removed = 0;
            for (;;) {
                struct basalt_iceberg_rewrite_state state;
                memset(&state, 0, sizeof state);
                char *reqs = NULL, *ups = NULL;
                commits++;
                st = basalt_iceberg_rewrite_build(cur, &rw, id, &arena, &state, &reqs, &ups, err);
                bool sent = st == BASALT_OK;
                if (sent)
                    st = committer->commit(committer->ctx, identifier, reqs, ups, NULL, err);
                basalt_free(reqs);
                basalt_free(ups);
                deletes_removed = state.removed_deletes.files;
                if (sent && st == BASALT_UNKNOWN_OUTCOME) {
                    st = basalt_iceberg_commit_status_check(committer, identifier, id, err);
                    committed_unknown = st != BASALT_OK;
                    basalt_string_list_reset(&state.written);
                    break;
                }
                delete_written(st == BASALT_OK ? NULL : cur, &state.written);
                if (st != BASALT_CONFLICT || commits > options->retries)
                    break;
                struct basalt_iceberg_table *next = NULL;
                st = committer->load(committer->ctx, identifier, &next, err);
                if (st == BASALT_OK)
                    st = validate(next, branch, &w, err);
                if (cur != t)
                    basalt_iceberg_table_free(cur);
                cur = next;
                if (st != BASALT_OK)
                    break; /* CONFLICT: start over from the new head */
            }
            if (cur != t)
                basalt_iceberg_table_free(cur);
            if (st == BASALT_OK) {
                result->snapshot_id = id;
                result->groups = w.groups;
                result->data_files_removed = w.n_removed;
                result->data_files_added = n_added;
                result->delete_files_removed = (uint32_t)deletes_removed;
                result->rows = rows;
                result->bytes_removed = w.bytes_removed;
                for (uint32_t i = 0; i < n_added; i++)
                    result->bytes_added += added[i].file_size_in_bytes;
            }
        }
        if (st != BASALT_OK && dw && !committed_unknown)
            basalt_iceberg_data_writer_abort(dw, NULL);
        if (st == BASALT_CONFLICT && commits > options->retries)
            st = basalt_error_context(err, BASALT_CONFLICT, "compact: gave up after %d retries",
                                      options->retries);
        basalt_iceberg_data_writer_free(dw);
        work_reset(&w);
        basalt_arena_reset(&arena);
        basalt_iceberg_table_free(t);
    }
    result->attempts = (uint32_t)commits;
    return st;
}
