/* Opening tables by path: metadata discovery (version-hint.text, highest
 * version, ties by last-updated-ms), every corpus table of TABLES.tsv by its
 * directory and by its metadata file (values from TABLES.tsv, written by the
 * corpus curators from the files themselves), and the rebasing of stored
 * locations onto the local table directory. */
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_metadata.h"
#include "test.h"

static const char *corpus(const char *rel, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s", bt_testdata_path("iceberg"), rel);
    return buf;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static bool found_file(const char *rel, const char *want_suffix)
{
    char path[1024], out[1024];
    struct basalt_error err;
    basalt_error_init(&err);
    if (basalt_iceberg_table_find_metadata(corpus(rel, path, sizeof path), out, sizeof out, &err) !=
        BASALT_OK) {
        printf("  %s: %s\n", rel, err.message);
        return false;
    }
    if (!ends_with(out, want_suffix)) {
        printf("  %s: found %s, expected .../%s\n", rel, out, want_suffix);
        return false;
    }
    return true;
}

TEST(table_discovery_corpus)
{
    /* version-hint.text "2" */
    CHECK(found_file("glaredb/iceberg/tables-v1/lineitem_versioned", "/metadata/v2.metadata.json"));
    CHECK(found_file("glaredb/iceberg/tables-v1/lineitem_versioned/metadata",
                     "/metadata/v2.metadata.json"));
    CHECK(found_file("glaredb/iceberg/tables-v1/lineitem_versioned/metadata/", "v2.metadata.json"));
    /* hint "5" */
    CHECK(found_file("icebird/hyperparam-iceberg/java/bunnies", "/metadata/v5.metadata.json"));
    /* no hint: the highest of two uuid-named versions (icebird/EXPECTED.md) */
    CHECK(found_file("icebird/hyperparam-iceberg/athena/example",
                     "/metadata/00001-aaf0d033-d06b-43c7-be60-67f83abd4aca.metadata.json"));
    CHECK(found_file("glaredb/iceberg/wh/default.db/cities",
                     "/metadata/00001-278cfebe-cfd4-4475-b30f-1b8ba1ae8eee.metadata.json"));
    /* no hint, a single v2.metadata.json (polars/EXPECTED.md) */
    CHECK(found_file("polars/iceberg-table", "/metadata/v2.metadata.json"));
    /* a file is itself */
    CHECK(found_file("glaredb/iceberg/tables-v1/lineitem_versioned/metadata/v1.metadata.json",
                     "/metadata/v1.metadata.json"));
    char path[1024], out[1024];
    CHECK_STATUS(basalt_iceberg_table_find_metadata(corpus("no/such/table", path, sizeof path), out,
                                                    sizeof out, NULL),
                 BASALT_NOT_FOUND, NULL);
    /* a directory without metadata */
    CHECK_STATUS(basalt_iceberg_table_find_metadata(
                     corpus("glaredb/iceberg/tables-v1/lineitem_simple/data", path, sizeof path), out,
                     sizeof out, NULL),
                 BASALT_NOT_FOUND, NULL);
}

/* ------------------------------------------------------------ temp tables */

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static bool copy_file(const char *from, const char *to)
{
    size_t len;
    uint8_t *data = bt_read_file(from, &len);
    if (!data)
        return false;
    FILE *f = fopen(to, "wb");
    bool ok = f && fwrite(data, 1, len, f) == len;
    if (f)
        ok = fclose(f) == 0 && ok;
    basalt_free(data);
    return ok;
}

static bool write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

/* A table directory <tmp>/t/metadata with the given files copied from the
 * corpus: pairs of (source relative to corpus/iceberg, name). */
static bool make_table(char *tmp, size_t cap, const char *const *files, size_t n)
{
    snprintf(tmp, cap, "/tmp/basalt-table-XXXXXX");
    if (!mkdtemp(tmp))
        return false;
    char path[1024], src[1024];
    snprintf(path, sizeof path, "%s/t", tmp);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/t/metadata", tmp);
    if (mkdir(path, 0777) != 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/t/metadata/%s", tmp, files[2 * i + 1]);
        if (!copy_file(corpus(files[2 * i], src, sizeof src), path))
            return false;
    }
    return true;
}

#define ATHENA0 "icebird/hyperparam-iceberg/athena/example/metadata/00000-eedf51e6-8c09-463b-8850-844ee6ec1de0.metadata.json"
#define ATHENA1 "icebird/hyperparam-iceberg/athena/example/metadata/00001-aaf0d033-d06b-43c7-be60-67f83abd4aca.metadata.json"
#define BUNNIES(v) "icebird/hyperparam-iceberg/java/bunnies/metadata/v" #v ".metadata.json"

static bool tmp_finds(const char *tmp, const char *want)
{
    char path[1024], out[1024];
    snprintf(path, sizeof path, "%s/t", tmp);
    struct basalt_error err;
    basalt_error_init(&err);
    if (basalt_iceberg_table_find_metadata(path, out, sizeof out, &err) != BASALT_OK) {
        printf("  %s\n", err.message);
        return false;
    }
    if (!ends_with(out, want)) {
        printf("  found %s, expected %s\n", out, want);
        return false;
    }
    return true;
}

TEST(table_discovery_ties_and_hints)
{
    char tmp[256], path[1024];
    /* Two files of version 5: the later last-updated-ms wins (00001's
     * 1743474984216 over 00000's 1743474980940, icebird/EXPECTED.md), even
     * though its name sorts first. */
    static const char *const tie[] = {ATHENA1, "00005-aaaa.metadata.json", ATHENA0,
                                      "00005-bbbb.metadata.json", ATHENA0, "00004-cccc.metadata.json",
                                      ATHENA0, "notversioned.metadata.json"};
    bool ok = make_table(tmp, sizeof tmp, tie, 4);
    ok = ok && tmp_finds(tmp, "/00005-aaaa.metadata.json");
    remove_tree(tmp);
    CHECK(ok);

    /* v<N> numbers compare as numbers: v10 over v9. */
    static const char *const numeric[] = {BUNNIES(1), "v9.metadata.json", BUNNIES(2),
                                          "v10.metadata.json", BUNNIES(3), "v1.metadata.json"};
    ok = make_table(tmp, sizeof tmp, numeric, 3);
    ok = ok && tmp_finds(tmp, "/v10.metadata.json");
    /* A hint naming a version picks it ... */
    snprintf(path, sizeof path, "%s/t/metadata/version-hint.text", tmp);
    ok = ok && write_text(path, "9\n") && tmp_finds(tmp, "/v10.metadata.json");
    /* (9 rolls forward to 10, which exists); 1 rolls forward to nothing: */
    ok = ok && write_text(path, "1") && tmp_finds(tmp, "/v1.metadata.json");
    /* ... a hint naming a file picks that file ... */
    ok = ok && write_text(path, "v9.metadata.json") && tmp_finds(tmp, "/v9.metadata.json");
    /* ... and a hint naming nothing that exists falls back to listing. */
    ok = ok && write_text(path, "42") && tmp_finds(tmp, "/v10.metadata.json");
    ok = ok && write_text(path, "gone.metadata.json") && tmp_finds(tmp, "/v10.metadata.json");
    ok = ok && write_text(path, "") && tmp_finds(tmp, "/v10.metadata.json");
    remove_tree(tmp);
    CHECK(ok);

    /* Only unversioned files: still found. */
    static const char *const plain[] = {BUNNIES(1), "abc.metadata.json"};
    ok = make_table(tmp, sizeof tmp, plain, 1) && tmp_finds(tmp, "/abc.metadata.json");
    remove_tree(tmp);
    CHECK(ok);

    /* Nothing at all: NOT_FOUND. */
    ok = make_table(tmp, sizeof tmp, NULL, 0);
    snprintf(path, sizeof path, "%s/t", tmp);
    char out[1024];
    basalt_status st = basalt_iceberg_table_find_metadata(path, out, sizeof out, NULL);
    remove_tree(tmp);
    CHECK(ok);
    CHECK_EQ(st, BASALT_NOT_FOUND);
}

/* ---------------------------------------------------------- TABLES.tsv */

struct tsv_row {
    char *cols[20];
    int n;
};

/* Splits TABLES.tsv into rows (the header skipped); `text` is modified. */
static int read_tsv(char *text, struct tsv_row *rows, int max)
{
    int n = 0;
    char *line = strchr(text, '\n');
    while (line && n < max) {
        line++;
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        if (*line) {
            struct tsv_row *r = &rows[n++];
            r->n = 0;
            for (char *c = line; c && r->n < 20;) {
                r->cols[r->n++] = c;
                c = strchr(c, '\t');
                if (c)
                    *c++ = '\0';
            }
        }
        line = end;
    }
    return n;
}

/* The checks of one loaded table against its TABLES.tsv row. */
static bool matches_row(const struct basalt_iceberg_table *t, const struct tsv_row *r)
{
    const struct basalt_iceberg_metadata *m = t->metadata;
    bool ok = ends_with(t->metadata_location, r->cols[1]);
    ok = ok && m->format_version == atoi(r->cols[2]);
    ok = ok && m->location && strcmp(m->location, r->cols[3]) == 0;
    ok = ok && (int)m->n_schemas == atoi(r->cols[5]);
    ok = ok && (int)m->n_snapshots == atoi(r->cols[6]);
    const char *current = r->cols[8];
    if (!*current || strcmp(current, "-1") == 0)
        ok = ok && !m->has_current_snapshot_id;
    else
        ok = ok && m->has_current_snapshot_id && m->current_snapshot_id == strtoll(current, NULL, 10);
    if (!ok)
        printf("  %s/%s: metadata does not match TABLES.tsv\n", r->cols[0], r->cols[1]);
    return ok;
}

/* Every manifest list of the table resolves, through table->io, to a file
 * that exists: the stored location was rebased onto the corpus directory. */
static bool manifest_lists_exist(const struct basalt_iceberg_table *t)
{
    for (uint32_t i = 0; i < t->metadata->n_snapshots; i++) {
        const char *list = t->metadata->snapshots[i].manifest_list;
        char path[1024];
        struct stat sb;
        struct basalt_error err;
        basalt_error_init(&err);
        if (!list)
            continue;
        if (basalt_iceberg_io_resolve(t->io, list, path, sizeof path, &err) != BASALT_OK ||
            stat(path, &sb) != 0) {
            printf("  %s: %s -> %s %s\n", t->name, list, path, err.message);
            return false;
        }
    }
    return true;
}

TEST(table_load_every_corpus_table)
{
    char path[1024];
    size_t len;
    uint8_t *text = bt_read_file(corpus("TABLES.tsv", path, sizeof path), &len);
    CHECK(text != NULL);
    char *s = malloc(len + 1);
    memcpy(s, text, len);
    s[len] = '\0';
    basalt_free(text);
    static struct tsv_row rows[128];
    int n = read_tsv(s, rows, 128);
    int loaded_files = 0, loaded_dirs = 0, failures = 0;
    for (int i = 0; i < n; i++) {
        struct tsv_row *r = &rows[i];
        if (r->n < 9)
            continue;
        struct basalt_error err;
        basalt_error_init(&err);
        struct basalt_iceberg_table *t = NULL;
        /* by its metadata file */
        char rel[512];
        snprintf(rel, sizeof rel, "%s/%s", r->cols[0], r->cols[1]);
        if (basalt_iceberg_table_load(corpus(rel, path, sizeof path), NULL, &t, &err) != BASALT_OK) {
            printf("  %s: %s\n", rel, err.message);
            failures++;
            continue;
        }
        loaded_files++;
        const char *dir_name = strrchr(r->cols[0], '/') + 1;
        if (!matches_row(t, r) || !manifest_lists_exist(t) || strcmp(t->name, dir_name) != 0)
            failures++;
        basalt_iceberg_table_free(t);
        /* by its table directory, when this row is the table's latest version */
        if (i + 1 < n && strcmp(rows[i + 1].cols[0], r->cols[0]) == 0)
            continue;
        if (basalt_iceberg_table_load(corpus(r->cols[0], path, sizeof path), NULL, &t, &err) !=
            BASALT_OK) {
            printf("  %s: %s\n", r->cols[0], err.message);
            failures++;
            continue;
        }
        loaded_dirs++;
        if (!matches_row(t, r) || !manifest_lists_exist(t))
            failures++;
        basalt_iceberg_table_free(t);
    }
    free(s);
    CHECK_EQ(failures, 0);
    CHECK_EQ(loaded_files, 26); /* the rows of TABLES.tsv */
    CHECK_EQ(loaded_dirs, 12);  /* its distinct table directories */
}

TEST(table_rebasing_paths)
{
    char path[1024], out[1024];
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_iceberg_table *t = NULL;
    CHECK_OK(basalt_iceberg_table_load(corpus("glaredb/iceberg/tables-v1/lineitem_simple", path,
                                              sizeof path),
                                       NULL, &t, &err),
             &err);
    char want[1024];
    corpus("glaredb/iceberg/tables-v1/lineitem_simple/data/x.parquet", want, sizeof want);
    /* location "./iceberg/tables-v1/lineitem_simple"; files stored without "./" */
    bool ok = basalt_iceberg_io_resolve(t->io, "iceberg/tables-v1/lineitem_simple/data/x.parquet",
                                        out, sizeof out, &err) == BASALT_OK &&
              strcmp(out, want) == 0;
    ok = ok && basalt_iceberg_io_resolve(t->io, "./iceberg/tables-v1/lineitem_simple/data/x.parquet",
                                         out, sizeof out, &err) == BASALT_OK &&
         strcmp(out, want) == 0;
    /* A path outside the location is taken as it is ... */
    ok = ok && basalt_iceberg_io_resolve(t->io, "/elsewhere/x.parquet", out, sizeof out, &err) ==
                   BASALT_OK &&
         strcmp(out, "/elsewhere/x.parquet") == 0;
    /* ... and opening it names it. */
    struct basalt_input *in = NULL;
    basalt_status missing = basalt_iceberg_io_open(t->io, "/elsewhere/x.parquet", &in, &err);
    bool named = strstr(err.message, "/elsewhere/x.parquet") != NULL;
    basalt_input_close(in);
    /* An object-store path outside the location stays unsupported. */
    basalt_status s3 = basalt_iceberg_io_resolve(t->io, "s3://other/x", out, sizeof out, NULL);
    basalt_iceberg_table_free(t);
    CHECK(ok);
    CHECK_EQ(missing, BASALT_NOT_FOUND);
    CHECK(named);
    CHECK_EQ(s3, BASALT_UNSUPPORTED);

    /* Extra mappings given by the caller are kept beside the rebasing. */
    struct basalt_iceberg_io *io = NULL;
    CHECK_OK(basalt_iceberg_io_new(&io, &err), &err);
    basalt_status st = basalt_iceberg_io_map(io, "s3://other/", "/mnt/other", &err);
    if (st == BASALT_OK)
        st = basalt_iceberg_table_load(corpus("polars/iceberg-table", path, sizeof path), io, &t, &err);
    basalt_iceberg_io_free(io);
    CHECK_OK(st, &err);
    ok = basalt_iceberg_io_resolve(t->io, "s3://other/x", out, sizeof out, NULL) == BASALT_OK &&
         strcmp(out, "/mnt/other/x") == 0;
    corpus("polars/iceberg-table/data/a.parquet", want, sizeof want);
    ok = ok && basalt_iceberg_io_resolve(t->io, "/tmp/iceberg/t1/data/a.parquet", out, sizeof out,
                                         NULL) == BASALT_OK &&
         strcmp(out, want) == 0;
    bool named_dir = strcmp(t->name, "iceberg-table") == 0;
    basalt_iceberg_table_free(t);
    CHECK(ok);
    CHECK(named_dir);
}

TEST(table_load_errors)
{
    char path[1024];
    struct basalt_iceberg_table *t = (struct basalt_iceberg_table *)1;
    CHECK_STATUS(basalt_iceberg_table_load(corpus("missing", path, sizeof path), NULL, &t, NULL),
                 BASALT_NOT_FOUND, NULL);
    CHECK(t == NULL);
    /* A file that is not metadata: the parser's status. */
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_STATUS(basalt_iceberg_table_load(corpus("TABLES.tsv", path, sizeof path), NULL, &t, &err),
                 BASALT_CORRUPT, &err);
    CHECK(t == NULL);
}

struct load_ctx {
    const char *path;
    uint32_t snapshots;
};

static basalt_status load_attempt(void *ctx)
{
    struct load_ctx *c = ctx;
    struct basalt_iceberg_io *io = NULL;
    struct basalt_iceberg_table *t = NULL;
    basalt_status st = basalt_iceberg_io_new(&io, NULL);
    if (st == BASALT_OK)
        st = basalt_iceberg_io_map(io, "s3://x/", "/y", NULL);
    if (st == BASALT_OK)
        st = basalt_iceberg_table_load(c->path, io, &t, NULL);
    if (st == BASALT_OK && t->metadata->n_snapshots != c->snapshots)
        st = BASALT_INTERNAL;
    basalt_iceberg_table_free(t);
    basalt_iceberg_io_free(io);
    return st;
}

TEST(table_load_alloc_sweep)
{
    char path[1024];
    struct load_ctx ctx = {corpus("icebird/hyperparam-iceberg/java/bunnies", path, sizeof path), 3};
    CHECK_ALLOC_SWEEP(load_attempt, &ctx);
    /* discovery by listing with a version tie parses candidates too */
    char tmp[256];
    static const char *const tie[] = {ATHENA1, "00005-a.metadata.json", ATHENA0,
                                      "00005-b.metadata.json"};
    bool ok = make_table(tmp, sizeof tmp, tie, 2);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/t", tmp);
    struct load_ctx tie_ctx = {dir, 1};
    int64_t attempts = ok ? bt_alloc_failure_sweep(__FILE__, __LINE__, load_attempt, &tie_ctx) : -1;
    remove_tree(tmp);
    CHECK(ok);
    CHECK(attempts > 0);
}
