/* Differential test: every Parquet file of the corpus read by basalt (column
 * decoder + assembler, through column_read_test.c's small reader) and by
 * DuckDB (tests/parquet/duckdb_dump.mjs, run with node), compared row by row
 * in the canonical text both print. Files where the two legitimately differ,
 * or that one of them cannot read, are listed with the reason and checked
 * for exactly that outcome. Skipped, saying so, when node or the npm
 * packages are missing. Registered under the `differential` label too. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parquet_column.h"
#include "test.h"

struct pqc_read_options {
    struct basalt_parquet_column_options column;
    bool large_lists;
    bool validate;
    bool general_walk;          /* assembly without walk_branchless */
    int64_t *branchless_walks;  /* counts walk_branchless's successes, or NULL */
};
void pqc_read_options_init(struct pqc_read_options *o);
basalt_status pqc_dump_path(const char *path, const struct pqc_read_options *o,
                            struct basalt_buffer *out, struct basalt_error *err);
const char *pqc_corpus(const char *rel);

enum expect {
    SAME = 0,      /* identical rows */
    DIFFERS,       /* both read it; the rows differ for the stated reason */
    DUCKDB_FAILS,  /* DuckDB cannot read it; basalt reads it (checked elsewhere) */
    BASALT_FAILS,  /* basalt refuses it with `status` */
    SKIP           /* not compared (size, encryption) */
};

struct exception {
    const char *file; /* relative to corpus/ */
    enum expect expect;
    basalt_status status;
    const char *why;
};

static const struct exception exceptions[] = {
    {"parquet-testing/data/large_string_map.brotli.parquet", SKIP, BASALT_OK,
     "two 1 GiB strings, past 2 GiB decoded (column_corpus_large_string_limit)"},
    {"parquet-extra/arrow-testing/ARROW-17100.parquet", DUCKDB_FAILS, BASALT_OK,
     "DuckDB does not read DATA_PAGE_V2 values flagged uncompressed that are compressed "
     "(column_corpus_documented_values)"},
    {"parquet-extra/iceberg-encodings/BYTE_STREAM_SPLIT/int32.parquet", DUCKDB_FAILS, BASALT_OK,
     "DuckDB reads BYTE_STREAM_SPLIT for FLOAT/DOUBLE only; equal to PLAIN/ "
     "(column_corpus_iceberg_encodings)"},
    {"parquet-extra/iceberg-encodings/BYTE_STREAM_SPLIT/int32_with_nulls.parquet", DUCKDB_FAILS,
     BASALT_OK, "as BYTE_STREAM_SPLIT/int32"},
    {"parquet-extra/iceberg-encodings/BYTE_STREAM_SPLIT/int64.parquet", DUCKDB_FAILS, BASALT_OK,
     "as BYTE_STREAM_SPLIT/int32"},
    {"parquet-extra/iceberg-encodings/BYTE_STREAM_SPLIT/int64_with_nulls.parquet", DUCKDB_FAILS,
     BASALT_OK, "as BYTE_STREAM_SPLIT/int32"},
    {"parquet-extra/iceberg-encodings/BYTE_STREAM_SPLIT/uuid.parquet", DUCKDB_FAILS, BASALT_OK,
     "as BYTE_STREAM_SPLIT/int32"},
    {"parquet-extra/iceberg-encodings/BYTE_STREAM_SPLIT/uuid_with_nulls.parquet", DUCKDB_FAILS,
     BASALT_OK, "as BYTE_STREAM_SPLIT/int32"},
    {"parquet-testing/data/byte_stream_split_extended.gzip.parquet", DUCKDB_FAILS, BASALT_OK,
     "DuckDB reads BYTE_STREAM_SPLIT for FLOAT/DOUBLE only; each pair of columns equal "
     "(column_corpus_byte_stream_split_pairs)"},
    {"parquet-testing/data/datapage_v1-corrupt-checksum.parquet", BASALT_FAILS, BASALT_CORRUPT,
     "a page CRC mismatch by design; read with verify_crc off (column_corpus_checksums)"},
    {"parquet-testing/data/rle-dict-uncompressed-corrupt-checksum.parquet", BASALT_FAILS,
     BASALT_CORRUPT, "as datapage_v1-corrupt-checksum"},
    {"parquet-testing/data/hadoop_lz4_compressed.parquet", DUCKDB_FAILS, BASALT_OK,
     "DuckDB has no LZ4 (Hadoop) codec; equal to lz4_raw_compressed "
     "(column_corpus_self_consistency)"},
    {"parquet-testing/data/hadoop_lz4_compressed_larger.parquet", DUCKDB_FAILS, BASALT_OK,
     "as hadoop_lz4_compressed"},
    {"parquet-testing/data/non_hadoop_lz4_compressed.parquet", DUCKDB_FAILS, BASALT_OK,
     "as hadoop_lz4_compressed"},
    {"parquet-testing/data/int96_from_spark.parquet", DIFFERS, BASALT_OK,
     "rows 3 and 6 lie outside int64 nanoseconds: INT96 reads as timestamp[ns] (as Arrow C++), "
     "which wraps, DuckDB reads microseconds; checked against int96_from_spark.md "
     "(column_corpus_int96_from_spark)"},
    {"parquet-testing/data/map_no_value.parquet", DUCKDB_FAILS, BASALT_OK,
     "DuckDB rejects a MAP without a value field; checked against map_no_value.md "
     "(column_corpus_documented_values)"},
};

static const struct exception *find_exception(const char *rel)
{
    for (size_t i = 0; i < sizeof exceptions / sizeof exceptions[0]; i++)
        if (strcmp(exceptions[i].file, rel) == 0)
            return &exceptions[i];
    return NULL;
}

/* ------------------------------------------------------------------ files */

struct file_list {
    char **names; /* relative to corpus/ */
    size_t n, cap;
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_add(struct file_list *l, const char *rel)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->names = basalt_realloc(l->names, l->cap * sizeof *l->names);
        if (!l->names)
            abort();
    }
    size_t n = strlen(rel) + 1;
    l->names[l->n] = basalt_malloc(n);
    if (!l->names[l->n])
        abort();
    memcpy(l->names[l->n++], rel, n);
}

/* Adds the .parquet files of `dir` (absolute) to the list, as full paths. */
static void list_abs_dir(struct file_list *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > 8 && strcmp(e->d_name + n - 8, ".parquet") == 0) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            list_add(l, path);
        }
    }
    closedir(d);
}

static void list_dir(struct file_list *l, const char *rel_dir)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", pqc_corpus(rel_dir));
    list_abs_dir(l, dir);
}

/* The path relative to the corpus, for the exception table (itself when the
 * file is elsewhere). */
static const char *corpus_relative(const char *path)
{
    char base[1024];
    snprintf(base, sizeof base, "%s", pqc_corpus(""));
    size_t n = strlen(base);
    return strncmp(path, base, n) == 0 ? path + n : path;
}

static void list_free(struct file_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        basalt_free(l->names[i]);
    basalt_free(l->names);
}

/* ------------------------------------------------------------------ DuckDB */

static bool have_node(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/node_modules/@duckdb/node-api/package.json",
             BASALT_TEST_SOURCE_DIR);
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    return system("command -v node >/dev/null 2>&1") == 0;
}

/* Runs the DuckDB dumper over the files; its whole output in `out`. */
static bool duckdb_dump(const struct file_list *l, struct basalt_buffer *out)
{
    struct basalt_buffer cmd;
    basalt_buffer_init(&cmd);
    char head[1200];
    snprintf(head, sizeof head, "node '%s/tests/parquet/duckdb_dump.mjs'", BASALT_TEST_SOURCE_DIR);
    bool ok = basalt_buffer_append(&cmd, head, strlen(head), NULL) == BASALT_OK;
    for (size_t i = 0; ok && i < l->n; i++) {
        char arg[1200];
        snprintf(arg, sizeof arg, " '%s'", l->names[i]);
        ok = basalt_buffer_append(&cmd, arg, strlen(arg), NULL) == BASALT_OK;
    }
    ok = ok && basalt_buffer_append(&cmd, "", 1, NULL) == BASALT_OK;
    FILE *p = ok ? popen((const char *)cmd.data, "r") : NULL;
    basalt_buffer_reset(&cmd);
    if (!p)
        return false;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        if (basalt_buffer_append(out, buf, n, NULL) != BASALT_OK)
            abort();
    return pclose(p) == 0;
}

/* The section of the dump for `path`: rows (or an error line). */
static bool duckdb_section(const struct basalt_buffer *dump, const char *path, const char **begin,
                           size_t *len)
{
    char head[1200];
    snprintf(head, sizeof head, "# %s\n", path);
    size_t hl = strlen(head);
    const char *d = (const char *)dump->data;
    for (size_t i = 0; i + hl <= dump->size; i++) {
        if ((i == 0 || d[i - 1] == '\n') && memcmp(d + i, head, hl) == 0) {
            size_t s = i + hl, e = s;
            while (e < dump->size && !(d[e] == '#' && d[e + 1] == ' ' && d[e + 2] == '/' &&
                                       (e == 0 || d[e - 1] == '\n')))
                e++;
            *begin = d + s;
            *len = e - s;
            return true;
        }
    }
    return false;
}

/* First differing line (1-based), 0 when equal. */
static size_t first_difference(const char *a, size_t an, const char *b, size_t bn, char *msg,
                               size_t cap)
{
    size_t line = 1, i = 0, j = 0;
    while (i < an || j < bn) {
        size_t ie = i, je = j;
        while (ie < an && a[ie] != '\n')
            ie++;
        while (je < bn && b[je] != '\n')
            je++;
        if (ie - i != je - j || memcmp(a + i, b + j, ie - i) != 0) {
            /* Show the lines from a little before where they part. */
            size_t k = 0;
            while (i + k < ie && j + k < je && a[i + k] == b[j + k])
                k++;
            size_t from = k > 40 ? k - 40 : 0;
            snprintf(msg, cap, "line %zu, column %zu:\n    basalt: %.*s\n    duckdb: %.*s", line,
                     k, (int)(ie - i - from > 200 ? 200 : ie - i - from), a + i + from,
                     (int)(je - j - from > 200 ? 200 : je - j - from), b + j + from);
            return line;
        }
        i = ie + 1;
        j = je + 1;
        line++;
    }
    return 0;
}

TEST(column_duckdb_differential)
{
    if (!have_node()) {
        /* make test installs the peers and sets BASALT_REQUIRE_PEERS: there
         * a missing peer is a failure, not a skip. */
        const char *required = getenv("BASALT_REQUIRE_PEERS");
        CHECK_MSG(!required || strcmp(required, "1") != 0,
                  "node or node_modules/@duckdb/node-api missing (run scripts/setup)");
        printf("SKIP column_duckdb_differential: node or node_modules/@duckdb/node-api missing "
               "(run scripts/setup)\n");
        return;
    }
    struct file_list l = {0};
    list_dir(&l, "parquet-testing/data");
    list_dir(&l, "parquet-testing/data/geospatial");
    list_dir(&l, "parquet-extra/arrow-testing");
    list_dir(&l, "parquet-extra/arrow-testing/generated_simple_numerics");
    list_dir(&l, "parquet-extra/iceberg-spark");
    static const char *const encodings[] = {
        "PLAIN", "PLAIN_DICTIONARY", "RLE_DICTIONARY", "DELTA_BINARY_PACKED",
        "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "BYTE_STREAM_SPLIT"};
    for (size_t i = 0; i < sizeof encodings / sizeof encodings[0]; i++) {
        char d[128];
        snprintf(d, sizeof d, "parquet-extra/iceberg-encodings/%s", encodings[i]);
        list_dir(&l, d);
    }
    qsort(l.names, l.n, sizeof *l.names, cmp_str);
    /* Files DuckDB writes itself, every type and nesting it has, v1 and v2
     * pages: read back by DuckDB and by basalt. */
    char tmp[] = "/tmp/basalt_duckdb_XXXXXX";
    bool wrote = mkdtemp(tmp) != NULL;
    if (wrote) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "node '%s/tests/parquet/duckdb_dump.mjs' --write '%s'",
                 BASALT_TEST_SOURCE_DIR, tmp);
        wrote = system(cmd) == 0;
        list_abs_dir(&l, tmp);
    }
    /* Files DuckDB should not be asked about (huge decoded sizes). */
    struct file_list ask = {0};
    for (size_t i = 0; i < l.n; i++) {
        const struct exception *x = find_exception(corpus_relative(l.names[i]));
        if (!x || x->expect != SKIP)
            list_add(&ask, l.names[i]);
    }
    struct basalt_buffer dump;
    basalt_buffer_init(&dump);
    bool ran = duckdb_dump(&ask, &dump);
    list_free(&ask);
    int failures = 0, same = 0, listed = 0;
    for (size_t i = 0; ran && i < l.n; i++) {
        const char *rel = corpus_relative(l.names[i]);
        const struct exception *x = find_exception(rel);
        if (x && x->expect == SKIP) {
            printf("  %-72s skipped: %s\n", rel, x->why);
            listed++;
            continue;
        }
        char path_copy[1024];
        snprintf(path_copy, sizeof path_copy, "%s", l.names[i]);
        const char *dk;
        size_t dk_len;
        if (!duckdb_section(&dump, path_copy, &dk, &dk_len)) {
            printf("  %-72s no DuckDB output\n", rel);
            failures++;
            continue;
        }
        bool dk_error = dk_len >= 9 && memcmp(dk, "# error: ", 9) == 0;
        struct pqc_read_options o;
        pqc_read_options_init(&o);
        struct basalt_buffer ours;
        basalt_buffer_init(&ours);
        struct basalt_error err;
        basalt_error_init(&err);
        basalt_status st = pqc_dump_path(path_copy, &o, &ours, &err);
        char msg[1500] = "";
        const char *outcome;
        enum expect got;
        if (st != BASALT_OK) {
            got = BASALT_FAILS;
            snprintf(msg, sizeof msg, "basalt %s: %s", basalt_status_name(st), err.message);
            outcome = "basalt fails";
        } else if (dk_error) {
            got = DUCKDB_FAILS;
            snprintf(msg, sizeof msg, "duckdb: %.*s", (int)(dk_len > 209 ? 200 : dk_len - 10),
                     dk + 9);
            outcome = "duckdb fails";
        } else if (first_difference((const char *)ours.data, ours.size, dk, dk_len, msg,
                                    sizeof msg)) {
            got = DIFFERS;
            outcome = "differs";
        } else {
            got = SAME;
            outcome = "same";
        }
        basalt_buffer_reset(&ours);
        enum expect want = x ? x->expect : SAME;
        bool ok = got == want && (got != BASALT_FAILS || x->status == st);
        if (got == SAME) {
            same++;
            if (ok)
                continue;
        }
        if (x)
            listed++;
        printf("  %-72s %s%s%s\n", rel, outcome, ok ? "" : "  <-- UNEXPECTED",
               x ? (ok ? " (listed)" : "") : "");
        if (!ok || got != SAME)
            printf("      %s\n", msg);
        if (x)
            printf("      listed: %s\n", x->why);
        if (!ok)
            failures++;
    }
    printf("  %zu files: %d identical to DuckDB, %d listed exceptions, %d unexpected\n", l.n, same,
           listed, failures);
    basalt_buffer_reset(&dump);
    int written = 0;
    for (size_t i = 0; i < l.n; i++) {
        if (strncmp(l.names[i], tmp, strlen(tmp)) == 0) {
            remove(l.names[i]);
            written++;
        }
    }
    rmdir(tmp);
    list_free(&l);
    CHECK(ran);
    CHECK(wrote);
    CHECK_EQ(written, 4);
    CHECK_EQ(failures, 0);
}
