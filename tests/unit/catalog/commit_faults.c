/* Table changes under faults: an append, a copy-on-write delete, merge-on-read
 * deletes (v2 position deletes, v3 deletion vectors) and a compaction on
 * small tables in a SQLite catalog, run with the n-th allocation failing,
 * the n-th output write failing, and the k-th catalog call failing in each
 * way a catalog can fail (refused, lost before or after it applied, lost
 * races). After every failure the table must be at its old snapshot or at
 * the new one (never a half-made one), every snapshot must read completely,
 * nothing may leak, and the next append must succeed. */
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "basalt/catalog.h"
#include "basalt/io.h"
#include "basalt/iceberg_maintain.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_scan.h"
#include "basalt/iceberg_write.h"
#include "test.h"

#define FILE_ROWS 100

/* ------------------------------------------------------------- the tables */

static basalt_status make_batch(int64_t first, int rows, struct ArrowArray *out,
                                struct basalt_error *err)
{
    struct basalt_arrow_builder *root = NULL, *k[2];
    struct ArrowSchema s;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(root, "l", "id", 0, &k[0], err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(root, "u", "v", ARROW_FLAG_NULLABLE, &k[1], err);
    for (int r = 0; r < rows && st == BASALT_OK; r++) {
        char v[32];
        snprintf(v, sizeof v, "v-%lld", (long long)(first + r));
        st = basalt_arrow_builder_append_int(k[0], first + r, err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_append_string(k[1], v, err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, err);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(root, &s, out, err);
    if (st == BASALT_OK)
        basalt_arrow_schema_release(&s);
    basalt_arrow_builder_free(root);
    return st;
}

/* Writes rows [first, first + rows) as one data file of `identifier` and
 * appends it. On failure the file goes, unless the commit's outcome is
 * unknown: a committed table may name it. */
static basalt_status write_and_append(const struct basalt_iceberg_committer *committer,
                                      const char *identifier, const struct ArrowArray *batch,
                                      struct basalt_error *err)
{
    struct basalt_iceberg_table *t = NULL;
    struct basalt_iceberg_data_writer *w = NULL;
    basalt_status st = committer->load(committer->ctx, identifier, &t, err);
    char data[512], prefix[64], uuid[37];
    if (st == BASALT_OK) {
        const struct basalt_iceberg_metadata *m = t->metadata;
        snprintf(data, sizeof data, "%s/data", m->location);
        basalt_iceberg_uuid4(uuid);
        snprintf(prefix, sizeof prefix, "00000-0-%s", uuid);
        struct basalt_iceberg_data_writer_options wo;
        basalt_iceberg_data_writer_options_init(&wo);
        wo.schema = basalt_iceberg_metadata_current_schema(m);
        wo.spec = basalt_iceberg_metadata_spec(m, m->default_spec_id);
        wo.data_location = data;
        wo.file_prefix = prefix;
        wo.io = t->io;
        st = basalt_iceberg_data_writer_new(&wo, &w, err);
    }
    const struct basalt_iceberg_data_file *files = NULL;
    uint32_t n = 0;
    if (st == BASALT_OK)
        st = basalt_iceberg_data_writer_write(w, batch, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_data_writer_finish(w, &files, &n, err);
    bool committing = st == BASALT_OK;
    struct basalt_iceberg_table *committed = NULL;
    if (st == BASALT_OK)
        st = basalt_iceberg_append(committer, identifier, files, n, NULL, &committed, NULL, err);
    basalt_iceberg_table_free(committed);
    bool unknown = committing && st == BASALT_UNKNOWN_OUTCOME;
    if (st != BASALT_OK && w && !unknown)
        basalt_iceberg_data_writer_abort(w, NULL);
    basalt_iceberg_data_writer_free(w);
    basalt_iceberg_table_free(t);
    return st;
}

static basalt_status append_rows(const struct basalt_iceberg_committer *committer,
                                 const char *identifier, int64_t first, int rows,
                                 struct basalt_error *err)
{
    struct ArrowArray batch;
    basalt_status st = make_batch(first, rows, &batch, err);
    if (st != BASALT_OK)
        return st;
    st = write_and_append(committer, identifier, &batch, err);
    basalt_arrow_array_release(&batch);
    return st;
}

static basalt_status create_table(struct basalt_catalog *c, const char *name, int version,
                                  struct basalt_error *err)
{
    char *schema = NULL, *location = NULL, *updates = NULL;
    struct basalt_iceberg_kv props[] = {{"commit.retry.num-retries", "4"},
                                        {"commit.retry.min-wait-ms", "1"},
                                        {"commit.retry.max-wait-ms", "2"}};
    basalt_status st = basalt_iceberg_schema_from_text("id long not null, v string", &schema, err);
    if (st == BASALT_OK)
        st = basalt_catalog_default_location(c, name, &location, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_create_updates(schema, NULL, NULL, version, location, props, 3,
                                           &updates, err);
    if (st == BASALT_OK)
        st = basalt_catalog_create_table(c, name, updates, NULL, err);
    basalt_free(schema);
    basalt_free(location);
    basalt_free(updates);
    return st;
}

/* ------------------------------------------------------------- the fixture */

/* A catalog directory made once: db.v2 and db.v3 (three files of 100 rows,
 * ids 0..299) and db.c (v2, the same files with ids 0..9 deleted by a
 * position-delete file). After each run the catalog database is put back
 * and every file the run added is removed, so each run starts alike. */
struct fixture {
    char dir[64];
    char db[128];
    char uri[160];
    uint8_t *db_bytes;
    size_t db_len;
    struct basalt_string_list keep;
    struct basalt_catalog *c;
};

static struct basalt_string_list *walk_list;

static int walk_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (flag == FTW_F)
        basalt_string_list_add(walk_list, path, strlen(path), NULL);
    return 0;
}

static void list_files(const char *dir, struct basalt_string_list *out)
{
    walk_list = out;
    nftw(dir, walk_entry, 16, FTW_PHYS);
    basalt_string_list_sort_unique(out);
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int compare_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool write_bytes(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(p, 1, n, f) == n;
    if (f)
        ok = fclose(f) == 0 && ok;
    return ok;
}

static bool fixture_open(struct fixture *fx)
{
    struct basalt_error err;
    return basalt_catalog_open(fx->uri, NULL, false, &fx->c, &err) == BASALT_OK;
}

/* Back to the state fixture_make left. */
static bool fixture_restore(struct fixture *fx)
{
    basalt_catalog_close(fx->c);
    fx->c = NULL;
    struct basalt_string_list now = {0};
    list_files(fx->dir, &now);
    for (size_t i = 0; i < now.n; i++)
        if (!bsearch(&now.items[i], fx->keep.items, fx->keep.n, sizeof *fx->keep.items,
                     compare_str))
            unlink(now.items[i]);
    basalt_string_list_reset(&now);
    return write_bytes(fx->db, fx->db_bytes, fx->db_len) && fixture_open(fx);
}

static void fixture_free(struct fixture *fx)
{
    basalt_catalog_close(fx->c);
    basalt_free(fx->db_bytes);
    basalt_string_list_reset(&fx->keep);
    nftw(fx->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static basalt_status fixture_make(struct fixture *fx, struct basalt_error *err)
{
    memset(fx, 0, sizeof *fx);
    snprintf(fx->dir, sizeof fx->dir, "/tmp/basalt-faults-XXXXXX");
    if (!mkdtemp(fx->dir))
        return basalt_error_set(err, BASALT_IO, "mkdtemp");
    snprintf(fx->db, sizeof fx->db, "%s/catalog.db", fx->dir);
    snprintf(fx->uri, sizeof fx->uri, "sqlite:%s", fx->db);
    basalt_status st = basalt_catalog_open(fx->uri, NULL, true, &fx->c, err);
    static const char *const names[3] = {"db.v2", "db.v3", "db.c"};
    static const int versions[3] = {2, 3, 2};
    struct basalt_iceberg_committer committer;
    if (st == BASALT_OK)
        basalt_catalog_committer(fx->c, &committer);
    for (int t = 0; t < 3 && st == BASALT_OK; t++) {
        st = create_table(fx->c, names[t], versions[t], err);
        for (int f = 0; f < 3 && st == BASALT_OK; f++)
            st = append_rows(&committer, names[t], (int64_t)f * FILE_ROWS, FILE_ROWS, err);
    }
    if (st == BASALT_OK) {
        struct basalt_iceberg_delete_options o;
        basalt_iceberg_delete_options_init(&o);
        o.mode = BASALT_ICEBERG_MERGE_ON_READ;
        st = basalt_iceberg_delete_where(&committer, "db.c", "id < 10", NULL, 0, &o, NULL, err);
    }
    basalt_catalog_close(fx->c);
    fx->c = NULL;
    if (st == BASALT_OK && !(fx->db_bytes = bt_read_file(fx->db, &fx->db_len)))
        st = basalt_error_set(err, BASALT_IO, "%s: cannot read", fx->db);
    if (st == BASALT_OK) {
        list_files(fx->dir, &fx->keep);
        if (!fixture_open(fx))
            st = basalt_error_set(err, BASALT_IO, "cannot reopen %s", fx->uri);
    }
    return st;
}

/* ------------------------------------------------------ the operations */

enum op_kind { OP_APPEND, OP_DELETE_COW, OP_DELETE_MOR_V2, OP_DELETE_MOR_V3, OP_COMPACT };

struct op {
    enum op_kind kind;
    const char *name;
    const char *table;
    int64_t rows_before, rows_after;
};

static const struct op ops[] = {
    {OP_APPEND, "append", "db.v2", 300, 350},
    {OP_DELETE_COW, "delete copy-on-write", "db.v2", 300, 270},
    {OP_DELETE_MOR_V2, "delete merge-on-read v2", "db.v2", 300, 270},
    {OP_DELETE_MOR_V3, "delete merge-on-read v3", "db.v3", 300, 270},
    {OP_COMPACT, "compact", "db.c", 290, 290},
};

/* Runs the operation. The append's rows are made before, outside the
 * faults, as a caller would hold them. */
static basalt_status op_run(const struct op *op, const struct basalt_iceberg_committer *committer,
                            const struct ArrowArray *batch, struct basalt_error *err)
{
    switch (op->kind) {
    case OP_APPEND:
        return write_and_append(committer, op->table, batch, err);
    case OP_DELETE_COW:
    case OP_DELETE_MOR_V2:
    case OP_DELETE_MOR_V3: {
        struct basalt_iceberg_delete_options o;
        basalt_iceberg_delete_options_init(&o);
        o.mode = op->kind == OP_DELETE_COW ? BASALT_ICEBERG_COPY_ON_WRITE
                                           : BASALT_ICEBERG_MERGE_ON_READ;
        o.retries = 4;
        return basalt_iceberg_delete_where(committer, op->table, "id < 30", NULL, 0, &o, NULL,
                                           err);
    }
    case OP_COMPACT: {
        struct basalt_iceberg_compact_options o;
        basalt_iceberg_compact_options_init(&o);
        o.rewrite_all = true;
        o.retries = 4;
        return basalt_iceberg_compact(committer, op->table, &o, NULL, err);
    }
    }
    return BASALT_INTERNAL;
}

/* ------------------------------------------------------------- the checks */

static basalt_status count_rows(const struct basalt_iceberg_table *t, int64_t snapshot_id,
                                int64_t *rows, struct basalt_error *err)
{
    struct basalt_iceberg_scan_options o;
    basalt_iceberg_scan_options_init(&o);
    o.has_snapshot_id = true;
    o.snapshot_id = snapshot_id;
    struct basalt_iceberg_scan *scan = NULL;
    struct ArrowArrayStream stream;
    stream.release = NULL;
    *rows = 0;
    basalt_status st = basalt_iceberg_scan_new(t, &o, &scan, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_stream(scan, &stream, err);
    while (st == BASALT_OK) {
        struct ArrowArray batch;
        if (stream.get_next(&stream, &batch) != 0) {
            st = basalt_error_set(err, BASALT_IO, "%s", stream.get_last_error(&stream));
            break;
        }
        if (!batch.release)
            break;
        *rows += batch.length;
        batch.release(&batch);
    }
    if (stream.release)
        stream.release(&stream);
    basalt_iceberg_scan_free(scan);
    return st;
}

static void print_orphan(void *ctx, const char *location)
{
    (void)ctx;
    printf("    orphan: %s\n", location);
}

static uint64_t count_orphans(const struct basalt_iceberg_table *t)
{
    struct basalt_iceberg_remove_orphans_options o;
    basalt_iceberg_remove_orphans_options_init(&o);
    if (getenv("BASALT_FAULTS_VERBOSE"))
        o.visit = print_orphan;
    o.dry_run = true;
    o.older_than_ms = (int64_t)time(NULL) * 1000 + 86400000;
    struct basalt_iceberg_remove_orphans_result r;
    memset(&r, 0, sizeof r);
    struct basalt_error err;
    if (basalt_iceberg_remove_orphans(t, &o, &r, &err) != BASALT_OK)
        return UINT64_MAX;
    return r.orphans;
}

/* What a run saw, for the sweep's report. */
struct tally {
    int runs, at_old, at_new, io_unknown;
};

/* The table after a run of `op` that returned `st`: at the old head or one
 * new snapshot on top of it (`extra` more rows when a concurrent append
 * went in between), every snapshot readable in full, and the next append
 * going through. `old_head` and `old_snapshots` describe the table before. */
static bool check_after(struct fixture *fx, const struct op *op, basalt_status st,
                        const char *message, int64_t old_head, uint32_t old_snapshots,
                        int64_t extra, struct tally *tally, const char *what)
{
    struct basalt_error err;
    struct basalt_iceberg_table *t = NULL;
    tally->runs++;
    if (basalt_catalog_load_table(fx->c, op->table, &t, &err) != BASALT_OK) {
        bt_fail(__FILE__, __LINE__, "%s: %s: the table does not load: %s", op->name, what,
                err.message);
        return false;
    }
    const struct basalt_iceberg_metadata *m = t->metadata;
    const struct basalt_iceberg_snapshot *head = basalt_iceberg_metadata_current_snapshot(m);
    bool ok = true;
    int64_t want = op->rows_before + extra;
    uint32_t want_snapshots = old_snapshots + (extra ? 1 : 0);
    if (head && head->snapshot_id == old_head && !extra) {
        tally->at_old++;
    } else if (extra && head && head->has_parent_snapshot_id &&
               head->parent_snapshot_id == old_head) {
        tally->at_old++; /* only the concurrent append went in */
    } else {
        /* One new snapshot of this operation on top. */
        const struct basalt_iceberg_snapshot *parent =
            head && head->has_parent_snapshot_id
                ? basalt_iceberg_metadata_snapshot(m, head->parent_snapshot_id)
                : NULL;
        int64_t base = parent ? (extra ? (parent->has_parent_snapshot_id
                                              ? parent->parent_snapshot_id
                                              : -1)
                                       : parent->snapshot_id)
                              : -1;
        if (base != old_head) {
            bt_fail(__FILE__, __LINE__, "%s: %s: head %lld is neither the old head %lld nor "
                                        "one snapshot on it",
                    op->name, what, head ? (long long)head->snapshot_id : -1LL,
                    (long long)old_head);
            ok = false;
        }
        if (ok && st != BASALT_OK && st != BASALT_UNKNOWN_OUTCOME) {
            bt_fail(__FILE__, __LINE__, "%s: %s: the table moved but the call returned %s: %s",
                    op->name, what, basalt_status_name(st), message);
            ok = false;
        }
        want = op->rows_after + extra;
        want_snapshots++;
        tally->at_new++;
    }
    if (ok && st == BASALT_OK && head && head->snapshot_id == old_head && !extra) {
        bt_fail(__FILE__, __LINE__, "%s: %s: OK but no new snapshot", op->name, what);
        ok = false;
    }
    if (ok && m->n_snapshots != want_snapshots) {
        bt_fail(__FILE__, __LINE__, "%s: %s: %u snapshots, want %u", op->name, what,
                m->n_snapshots, want_snapshots);
        ok = false;
    }
    /* Every snapshot reads to the end: no file it names is missing. */
    for (uint32_t i = 0; ok && i < m->n_snapshots; i++) {
        int64_t rows = 0;
        if (count_rows(t, m->snapshots[i].snapshot_id, &rows, &err) != BASALT_OK) {
            bt_fail(__FILE__, __LINE__, "%s: %s: snapshot %lld does not read: %s", op->name,
                    what, (long long)m->snapshots[i].snapshot_id, err.message);
            ok = false;
        }
        if (ok && &m->snapshots[i] == head && rows != want) {
            bt_fail(__FILE__, __LINE__, "%s: %s: the head has %lld rows, want %lld", op->name,
                    what, (long long)rows, (long long)want);
            ok = false;
        }
    }
    /* A failure that is not an unknown outcome leaves no file behind. */
    bool unknown = st == BASALT_UNKNOWN_OUTCOME;
    if (ok && st != BASALT_OK && !unknown && !extra) {
        uint64_t orphans = count_orphans(t);
        if (orphans != 0) {
            bt_fail(__FILE__, __LINE__, "%s: %s: %llu files left behind by a failure (%s: %s)",
                    op->name, what, (unsigned long long)orphans, basalt_status_name(st),
                    message);
            ok = false;
        }
    }
    tally->io_unknown += unknown;
    basalt_iceberg_table_free(t);
    /* The next writer gets through. */
    if (ok) {
        struct basalt_iceberg_committer committer;
        basalt_catalog_committer(fx->c, &committer);
        if (append_rows(&committer, op->table, 9000, 10, &err) != BASALT_OK) {
            bt_fail(__FILE__, __LINE__, "%s: %s: the next append fails: %s", op->name, what,
                    err.message);
            ok = false;
        }
    }
    return ok;
}

/* The head and snapshot count of a table. */
static bool table_head(struct fixture *fx, const char *name, int64_t *head, uint32_t *n)
{
    struct basalt_error err;
    struct basalt_iceberg_table *t = NULL;
    if (basalt_catalog_load_table(fx->c, name, &t, &err) != BASALT_OK)
        return false;
    *head = t->metadata->current_snapshot_id;
    *n = t->metadata->n_snapshots;
    basalt_iceberg_table_free(t);
    return true;
}

/* ------------------------------------------------- a committer with faults */

enum wrap_mode {
    WRAP_PASS,
    WRAP_LOAD_IO,          /* the k-th load fails */
    WRAP_COMMIT_IO_BEFORE, /* the k-th commit certainly fails (IO before the swap) */
    WRAP_COMMIT_LOST,      /* the k-th commit is not applied, and its answer is lost */
    WRAP_COMMIT_CONFLICT,  /* commits 1..k are refused as lost races */
    WRAP_COMMIT_IO_AFTER,  /* the k-th commit applies, but its answer is lost */
    WRAP_CONCURRENT,       /* another writer appends just before the k-th commit */
};

struct wrap {
    struct basalt_iceberg_committer inner;
    enum wrap_mode mode;
    int k;
    int loads, commits;
    int64_t allocs_at_first_commit; /* basalt_alloc_total() */
    int writes_before_commit;
};

static basalt_status wrap_load(void *ctx, const char *identifier,
                               struct basalt_iceberg_table **out, struct basalt_error *err)
{
    struct wrap *w = ctx;
    if (++w->loads == w->k && w->mode == WRAP_LOAD_IO) {
        *out = NULL;
        return basalt_error_set(err, BASALT_IO, "injected: load %d lost", w->k);
    }
    return w->inner.load(w->inner.ctx, identifier, out, err);
}

static basalt_status wrap_commit(void *ctx, const char *identifier, const char *requirements_json,
                                 const char *updates_json, struct basalt_iceberg_table **out,
                                 struct basalt_error *err)
{
    struct wrap *w = ctx;
    if (out)
        *out = NULL;
    if (++w->commits == 1)
        w->allocs_at_first_commit = basalt_alloc_total();
    bool hit = w->commits == w->k;
    if (hit && w->mode == WRAP_COMMIT_IO_BEFORE)
        return basalt_error_set(err, BASALT_IO, "injected: commit %d failed", w->k);
    if (hit && w->mode == WRAP_COMMIT_LOST)
        return basalt_error_set(err, BASALT_UNKNOWN_OUTCOME, "injected: commit %d lost", w->k);
    if (w->commits <= w->k && w->mode == WRAP_COMMIT_CONFLICT)
        return basalt_error_set(err, BASALT_CONFLICT, "injected: commit %d lost a race",
                                w->commits);
    if (hit && w->mode == WRAP_CONCURRENT) {
        basalt_status st = append_rows(&w->inner, identifier, 5000, 10, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "the concurrent append");
    }
    basalt_status st =
        w->inner.commit(w->inner.ctx, identifier, requirements_json, updates_json, out, err);
    if (hit && w->mode == WRAP_COMMIT_IO_AFTER && st == BASALT_OK) {
        if (out) {
            basalt_iceberg_table_free(*out);
            *out = NULL;
        }
        return basalt_error_set(err, BASALT_UNKNOWN_OUTCOME,
                                "injected: commit %d applied, answer lost", w->k);
    }
    return st;
}

static void wrap_init(struct wrap *w, struct fixture *fx, enum wrap_mode mode, int k)
{
    memset(w, 0, sizeof *w);
    basalt_catalog_committer(fx->c, &w->inner);
    w->mode = mode;
    w->k = k;
}

static const struct basalt_iceberg_committer *wrap_committer(struct wrap *w,
                                                            struct basalt_iceberg_committer *c)
{
    c->ctx = w;
    c->load = wrap_load;
    c->commit = wrap_commit;
    return c;
}

/* ----------------------------------------------------------------- sweeps */

enum fault_kind { FAULT_ALLOC, FAULT_WRITE };

/* One run of `op` with fault n armed; false after reporting a failure.
 * *done when the run succeeded. */
static bool run_with_fault(struct fixture *fx, const struct op *op, enum fault_kind kind, int64_t n,
                           bool *done, struct tally *tally)
{
    struct basalt_error err;
    basalt_error_init(&err);
    int64_t head = 0;
    uint32_t n_snapshots = 0;
    if (!table_head(fx, op->table, &head, &n_snapshots)) {
        bt_fail(__FILE__, __LINE__, "%s: cannot load the table before the run", op->name);
        return false;
    }
    struct ArrowArray batch;
    if (make_batch(1000, 50, &batch, &err) != BASALT_OK) {
        bt_fail(__FILE__, __LINE__, "make_batch: %s", err.message);
        return false;
    }
    struct basalt_iceberg_committer committer;
    basalt_catalog_committer(fx->c, &committer);
    int64_t live = basalt_alloc_live();
    if (kind == FAULT_ALLOC)
        basalt_alloc_fail_after(n);
    else
        basalt_io_fail_writes_after(n);
    basalt_status st = op_run(op, &committer, &batch, &err);
    basalt_alloc_fail_after(0);
    basalt_io_fail_writes_after(0);
    int64_t leaked = basalt_alloc_live() - live;
    basalt_arrow_array_release(&batch);
    char what[64];
    snprintf(what, sizeof what, "%s fault %lld", kind == FAULT_ALLOC ? "allocation" : "write",
             (long long)n);
    if (leaked != 0) {
        bt_fail(__FILE__, __LINE__, "%s: %s: %lld allocations leaked (status %s: %s)", op->name,
                what, (long long)leaked, basalt_status_name(st), err.message);
        return false;
    }
    /* Out of memory reading the table back after the swap leaves the
     * outcome unknown to the operation. */
    if (st != BASALT_OK && kind == FAULT_ALLOC && st != BASALT_NOMEM && st != BASALT_IO &&
        st != BASALT_UNKNOWN_OUTCOME) {
        bt_fail(__FILE__, __LINE__, "%s: %s: status %s: %s", op->name, what,
                basalt_status_name(st), err.message);
        return false;
    }
    if (st != BASALT_OK && kind == FAULT_WRITE && st != BASALT_IO) {
        bt_fail(__FILE__, __LINE__, "%s: %s: status %s: %s", op->name, what,
                basalt_status_name(st), err.message);
        return false;
    }
    if (st == BASALT_IO && getenv("BASALT_FAULTS_VERBOSE"))
        printf("    %s: %s: IO: %s\n", op->name, what, err.message);
    *done = st == BASALT_OK;
    bool ok = check_after(fx, op, st, err.message, head, n_snapshots, 0, tally, what);
    if (!fixture_restore(fx)) {
        bt_fail(__FILE__, __LINE__, "cannot restore the fixture");
        return false;
    }
    return ok;
}

/* How many allocations (or writes) the operation makes, and how many come
 * before its first commit call. */
static bool measure(struct fixture *fx, const struct op *op, int64_t *allocs,
                    int64_t *allocs_to_commit)
{
    struct basalt_error err;
    struct ArrowArray batch;
    if (make_batch(1000, 50, &batch, &err) != BASALT_OK)
        return false;
    struct wrap w;
    struct basalt_iceberg_committer c;
    wrap_init(&w, fx, WRAP_PASS, 0);
    int64_t start = basalt_alloc_total();
    basalt_status st = op_run(op, wrap_committer(&w, &c), &batch, &err);
    *allocs = basalt_alloc_total() - start;
    *allocs_to_commit = w.allocs_at_first_commit - start;
    basalt_arrow_array_release(&batch);
    if (st != BASALT_OK)
        bt_fail(__FILE__, __LINE__, "%s: %s", op->name, err.message);
    return st == BASALT_OK && fixture_restore(fx);
}

/* Allocation n = 1, 2, ... until the operation succeeds: every n from a
 * little before the first commit call on, and a stride over the reading
 * and writing before it that keeps the sweep near 200 runs.
 * BASALT_FAULT_SWEEP=quick (the sanitizer run, where each run costs ten
 * times as much) narrows the dense window and widens the stride: the
 * failure paths are still all taken, the same allocation only less often. */
static void alloc_sweep(struct fixture *fx, const struct op *op)
{
    int64_t allocs = 0, to_commit = 0;
    if (!measure(fx, op, &allocs, &to_commit))
        return;
    const char *sweep = getenv("BASALT_FAULT_SWEEP");
    bool quick = sweep && strcmp(sweep, "quick") == 0;
    int64_t window = quick ? 120 : 400;
    int64_t dense_from = to_commit > window ? to_commit - window : 1;
    int64_t stride = dense_from / (quick ? 40 : 150) + 1;
    struct tally tally = {0};
    bool done = false;
    for (int64_t n = 1; !done; n += n < dense_from ? stride : 1) {
        if (!run_with_fault(fx, op, FAULT_ALLOC, n, &done, &tally))
            return;
        if (n > allocs + 10 && !done) {
            bt_fail(__FILE__, __LINE__, "%s: still failing at allocation %lld of %lld",
                    op->name, (long long)n, (long long)allocs);
            return;
        }
    }
    printf("  %s: %lld allocations (%lld before the commit), %d runs: %d at the old snapshot, "
           "%d at the new, %d unknown outcomes\n",
           op->name, (long long)allocs, (long long)to_commit, tally.runs, tally.at_old,
           tally.at_new, tally.io_unknown);
}

static void write_sweep(struct fixture *fx, const struct op *op)
{
    struct tally tally = {0};
    bool done = false;
    int64_t n = 1;
    for (; !done; n++) {
        if (!run_with_fault(fx, op, FAULT_WRITE, n, &done, &tally))
            return;
        if (n > 100000) {
            bt_fail(__FILE__, __LINE__, "%s: never succeeds", op->name);
            return;
        }
    }
    printf("  %s: %lld writes and commits, %d runs: %d at the old snapshot, %d at the new, %d "
           "unknown outcomes\n",
           op->name, (long long)n - 2, tally.runs, tally.at_old, tally.at_new, tally.io_unknown);
}

/* Each test makes its own fixture (tests may run alone or in any order). */
static struct fixture *fixture_get(struct fixture *fx)
{
    struct basalt_error err;
    if (fixture_make(fx, &err) != BASALT_OK) {
        bt_fail(__FILE__, __LINE__, "fixture: %s", err.message);
        fixture_free(fx);
        return NULL;
    }
    return fx;
}

TEST(commit_faults_every_allocation)
{
    bt_allow_leaks(); /* the fixture outlives the test; leaks are checked per run */
    struct fixture storage, *fx = fixture_get(&storage);
    if (!fx)
        return;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        int failed = bt_failed();
        alloc_sweep(fx, &ops[i]);
        if (bt_failed() != failed)
            break;
    }
    fixture_free(fx);
}

TEST(commit_faults_every_write)
{
    bt_allow_leaks();
    struct fixture storage, *fx = fixture_get(&storage);
    if (!fx)
        return;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        int failed = bt_failed();
        write_sweep(fx, &ops[i]);
        if (bt_failed() != failed)
            break;
    }
    fixture_free(fx);
}

/* One run with the committer failing as `mode` says at call k. */
static bool run_wrapped(struct fixture *fx, const struct op *op, enum wrap_mode mode, int k,
                        struct wrap *w, struct tally *tally)
{
    struct basalt_error err;
    basalt_error_init(&err);
    int64_t head = 0;
    uint32_t n_snapshots = 0;
    if (!table_head(fx, op->table, &head, &n_snapshots))
        return false;
    struct ArrowArray batch;
    if (make_batch(1000, 50, &batch, &err) != BASALT_OK)
        return false;
    struct basalt_iceberg_committer c;
    wrap_init(w, fx, mode, k);
    int64_t live = basalt_alloc_live();
    basalt_status st = op_run(op, wrap_committer(w, &c), &batch, &err);
    int64_t leaked = basalt_alloc_live() - live;
    basalt_arrow_array_release(&batch);
    char what[64];
    /* in the order of enum wrap_mode */
    static const char *const names[] = {"pass",      "load lost",         "commit failed",
                                        "commit lost", "conflicts",       "commit lost after",
                                        "concurrent append"};
    snprintf(what, sizeof what, "%s at call %d", names[mode], k);
    bool ok = true;
    if (leaked != 0) {
        bt_fail(__FILE__, __LINE__, "%s: %s: %lld allocations leaked", op->name, what,
                (long long)leaked);
        ok = false;
    }
    /* What each fault must return. */
    basalt_status want = BASALT_OK;
    switch (mode) {
    case WRAP_PASS:
    case WRAP_CONCURRENT:
        want = BASALT_OK;
        break;
    case WRAP_LOAD_IO:
    case WRAP_COMMIT_IO_BEFORE:
        want = w->loads >= k || w->commits >= k ? BASALT_IO : BASALT_OK;
        break;
    case WRAP_COMMIT_LOST:
        /* The reload finds no such snapshot: the outcome stays unknown. */
        want = w->commits >= k ? BASALT_UNKNOWN_OUTCOME : BASALT_OK;
        break;
    case WRAP_COMMIT_IO_AFTER:
        /* The reload after the lost answer finds the applied snapshot: the
         * operation succeeded, once. */
        want = BASALT_OK;
        break;
    case WRAP_COMMIT_CONFLICT:
        want = k <= 4 ? BASALT_OK : BASALT_CONFLICT;
        break;
    }
    if (ok && st != want) {
        bt_fail(__FILE__, __LINE__, "%s: %s: status %s, want %s: %s", op->name, what,
                basalt_status_name(st), basalt_status_name(want), err.message);
        ok = false;
    }
    if (ok && mode == WRAP_COMMIT_IO_AFTER && w->commits >= k) {
        /* The commit went in: the table must be at the new snapshot, with
         * every file it names in place (check_after reads them all). */
        int64_t now = 0;
        uint32_t n = 0;
        if (!table_head(fx, op->table, &now, &n) || now == head) {
            bt_fail(__FILE__, __LINE__, "%s: %s: the applied commit is not the head", op->name,
                    what);
            ok = false;
        }
    }
    if (ok)
        ok = check_after(fx, op, st, err.message, head, n_snapshots,
                         mode == WRAP_CONCURRENT ? 10 : 0, tally, what);
    if (ok && (mode == WRAP_COMMIT_CONFLICT || mode == WRAP_CONCURRENT)) {
        /* Attempts that lost left nothing behind. */
        struct basalt_iceberg_table *t = NULL;
        if (basalt_catalog_load_table(fx->c, op->table, &t, &err) == BASALT_OK) {
            uint64_t orphans = count_orphans(t);
            if (orphans != 0) {
                bt_fail(__FILE__, __LINE__, "%s: %s: %llu files left by lost attempts", op->name,
                        what, (unsigned long long)orphans);
                ok = false;
            }
            basalt_iceberg_table_free(t);
        }
    }
    if (!fixture_restore(fx)) {
        bt_fail(__FILE__, __LINE__, "cannot restore the fixture");
        return false;
    }
    return ok;
}

TEST(commit_faults_every_catalog_call)
{
    bt_allow_leaks();
    struct fixture storage, *fx = fixture_get(&storage);
    if (!fx)
        return;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        const struct op *op = &ops[i];
        struct tally tally = {0};
        struct wrap w;
        /* How many loads and commits a clean run makes. */
        if (!run_wrapped(fx, op, WRAP_PASS, 0, &w, &tally))
            goto done;
        int loads = w.loads, commits = w.commits;
        for (int k = 1; k <= loads; k++)
            if (!run_wrapped(fx, op, WRAP_LOAD_IO, k, &w, &tally))
                goto done;
        for (int k = 1; k <= commits; k++) {
            if (!run_wrapped(fx, op, WRAP_COMMIT_IO_BEFORE, k, &w, &tally) ||
                !run_wrapped(fx, op, WRAP_COMMIT_LOST, k, &w, &tally) ||
                !run_wrapped(fx, op, WRAP_COMMIT_IO_AFTER, k, &w, &tally) ||
                !run_wrapped(fx, op, WRAP_CONCURRENT, k, &w, &tally))
                goto done;
        }
        /* Storms of lost races: up to the retry limit (4) the operation
         * gets through with exactly one new snapshot; past it, it gives up
         * cleanly. */
        for (int k = 1; k <= 5; k++)
            if (!run_wrapped(fx, op, WRAP_COMMIT_CONFLICT, k, &w, &tally))
                goto done;
        printf("  %s: %d loads, %d commits, %d runs: %d at the old snapshot, %d at the new\n",
               op->name, loads, commits, tally.runs, tally.at_old, tally.at_new);
    }
done:
    fixture_free(fx);
}
