/* The CSV reader on hand-written inputs: every expected value below was
 * written by hand from the text, not taken from the reader. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "basalt/csv.h"
#include "csv_internal.h"
#include "test.h"

/* The rows of a read as "v|v|v\n" lines, nulls as NULL; integers, doubles
 * (%.17g), booleans, dates (YYYY-MM-DD), timestamps (microseconds) and
 * strings as they are. A header line of "name:type" first. */
struct rendered {
    basalt_status st;
    char text[8192];
    char error[BASALT_ERROR_MESSAGE_MAX];
    struct basalt_csv_stats stats;
};

static void append(struct rendered *r, const char *fmt, ...) BASALT_PRINTF(2, 3);
static void append(struct rendered *r, const char *fmt, ...)
{
    size_t n = strlen(r->text);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->text + n, sizeof r->text - n, fmt, ap);
    va_end(ap);
}

static void render_value(struct rendered *r, const struct basalt_csv_column_type *t,
                         const struct ArrowArray *a, int64_t i)
{
    const uint8_t *valid = a->buffers[0];
    if (valid && !basalt_bitmap_get(valid, i)) {
        append(r, "NULL");
        return;
    }
    const void *v = a->buffers[1];
    switch (t->type) {
    case BASALT_CSV_TYPE_BOOL: append(r, basalt_bitmap_get(v, i) ? "true" : "false"); break;
    case BASALT_CSV_TYPE_INT32: append(r, "%d", ((const int32_t *)v)[i]); break;
    case BASALT_CSV_TYPE_INT64:
    case BASALT_CSV_TYPE_TIMESTAMP:
    case BASALT_CSV_TYPE_TIMESTAMPTZ:
    case BASALT_CSV_TYPE_TIME:
        append(r, "%lld", (long long)((const int64_t *)v)[i]);
        break;
    case BASALT_CSV_TYPE_DOUBLE: append(r, "%.17g", ((const double *)v)[i]); break;
    case BASALT_CSV_TYPE_FLOAT: append(r, "%.9g", (double)((const float *)v)[i]); break;
    case BASALT_CSV_TYPE_DATE: {
        int64_t y;
        unsigned m, d;
        basalt_csv_civil_from_days(((const int32_t *)v)[i], &y, &m, &d);
        append(r, "%04lld-%02u-%02u", (long long)y, m, d);
        break;
    }
    case BASALT_CSV_TYPE_DECIMAL: {
        __int128 x;
        memcpy(&x, (const uint8_t *)v + i * 16, 16);
        append(r, "%lld", (long long)x);
        break;
    }
    default: {
        const int32_t *off = v;
        append(r, "%.*s", (int)(off[i + 1] - off[i]), (const char *)a->buffers[2] + off[i]);
        break;
    }
    }
}

static void read_text(const char *text, size_t len, const struct basalt_csv_read_options *opts,
                      struct rendered *r)
{
    memset(r, 0, sizeof *r);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_csv_reader *reader = NULL;
    r->st = basalt_csv_reader_open_memory(text, len, "t.csv", opts, &reader, &err);
    if (r->st != BASALT_OK) {
        snprintf(r->error, sizeof r->error, "%s", err.message);
        return;
    }
    int32_t n = basalt_csv_reader_num_columns(reader);
    for (int32_t c = 0; c < n; c++) {
        char type[48];
        basalt_csv_type_name(basalt_csv_reader_column_type(reader, c), type, sizeof type);
        append(r, "%s%s:%s", c ? "|" : "", basalt_csv_reader_column_name(reader, c), type);
    }
    append(r, "\n");
    for (;;) {
        struct ArrowArray a;
        r->st = basalt_csv_reader_next(reader, &a, &err);
        if (r->st != BASALT_OK) {
            snprintf(r->error, sizeof r->error, "%s", err.message);
            break;
        }
        if (!a.release)
            break;
        for (int64_t i = 0; i < a.length; i++) {
            for (int32_t c = 0; c < n; c++) {
                if (c)
                    append(r, "|");
                render_value(r, basalt_csv_reader_column_type(reader, c), a.children[c], i);
            }
            append(r, "\n");
        }
        basalt_arrow_array_release(&a);
    }
    basalt_csv_reader_stats(reader, &r->stats);
    basalt_csv_reader_close(reader);
}

static void read_str(const char *text, const struct basalt_csv_read_options *opts,
                     struct rendered *r)
{
    read_text(text, strlen(text), opts, r);
}

TEST(csv_quoted_fields)
{
    struct rendered r;
    read_str("a,b\n\"x,y\",\"he said \"\"hi\"\"\"\n\"two\nlines\",\"\"\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_OK);
    CHECK_STR(r.text, "a:string|b:string\nx,y|he said \"hi\"\ntwo\nlines|\n");
}

TEST(csv_crlf_and_last_line)
{
    struct rendered r;
    read_str("a,b\r\n1,2\r\n3,4", NULL, &r);
    CHECK_EQ(r.st, BASALT_OK);
    CHECK_STR(r.text, "a:int64|b:int64\n1|2\n3|4\n");
    read_str("a,b\r\n1,\"x\r\ny\"\r\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_OK);
    CHECK_STR(r.text, "a:int64|b:string\n1|x\r\ny\n");
}

TEST(csv_bom_empty_header_only)
{
    struct rendered r;
    read_str("\xEF\xBB\xBF" "id,name\n7,x\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_OK);
    CHECK_STR(r.text, "id:int64|name:string\n7|x\n");
    read_str("", NULL, &r);
    CHECK_EQ(r.st, BASALT_OK);
    CHECK_STR(r.text, "\n");
    read_str("a,b\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_OK);
    CHECK_STR(r.text, "a:string|b:string\n");
    read_str("\xEF\xBB\xBF", NULL, &r);
    CHECK_EQ(r.st, BASALT_OK);
    CHECK_STR(r.text, "\n");
}

TEST(csv_sniffed_types)
{
    struct rendered r;
    read_str("b,i,d,dt,ts,tz,s,mix,nul\n"
             "true,1,1.5,2024-02-29,2024-01-02 03:04:05,2024-01-02T03:04:05+01:00,x,1,\n"
             "FALSE,-20,-2e3,1970-01-01,1970-01-01T00:00:00.25,1970-01-01 00:00:00Z,007,2.5,\n",
             NULL, &r);
    CHECK_EQ(r.st, BASALT_OK);
    /* 2024-01-02 03:04:05 UTC = 19724 days * 86400 + 11045 s;
     * the +01:00 value is an hour earlier in UTC. */
    CHECK_STR(r.text,
              "b:bool|i:int64|d:double|dt:date|ts:timestamp|tz:timestamptz|s:string|mix:double|"
              "nul:string\n"
              "true|1|1.5|2024-02-29|1704164645000000|1704161045000000|x|1|NULL\n"
              "false|-20|-2000|1970-01-01|250000|0|007|2.5|NULL\n");
}

/* HH:MM[:SS[.fraction]] is a TIME (microseconds), as DuckDB sniffs it;
 * past 24:00:00 it stays text. */
TEST(csv_sniffed_time)
{
    struct rendered r;
    read_str("t,hm,over\n12:34:56,12:34,24:00:00\n00:00:00.1234567,01:02,24:00:01\n24:00:00,,\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_OK);
    CHECK_STR(r.text, "t:time|hm:time|over:string\n"
                      "45296000000|45240000000|24:00:00\n"
                      "123456|3720000000|24:00:01\n"
                      "86400000000|NULL|NULL\n");
    struct basalt_csv_column_type t;
    CHECK_EQ(basalt_csv_type_parse("time", 4, &t, NULL), BASALT_OK);
    CHECK_EQ(t.type, BASALT_CSV_TYPE_TIME);
}

TEST(csv_header_detection)
{
    struct rendered r;
    /* all integers: no header, default names */
    read_str("1,2\n3,4\n", NULL, &r);
    CHECK_STR(r.text, "column0:int64|column1:int64\n1|2\n3|4\n");
    /* repeated and empty names */
    read_str("x,y,x,\n1,2,3,4\n", NULL, &r);
    CHECK_STR(r.text, "x:int64|y:int64|x_1:int64|column3:int64\n1|2|3|4\n");
    /* quoted header over typed columns */
    read_str("\"id\",\"v\"\n1,2.5\n", NULL, &r);
    CHECK_STR(r.text, "id:int64|v:double\n1|2.5\n");
    /* eleven columns: two-digit names */
    read_str("1,2,3,4,5,6,7,8,9,10,11\n1,2,3,4,5,6,7,8,9,10,11\n", NULL, &r);
    CHECK(strncmp(r.text, "column00:int64|column01:int64", 29) == 0);
    struct basalt_csv_read_options o;
    basalt_csv_read_options_init(&o);
    o.header = BASALT_CSV_HEADER_NO;
    read_str("a,b\nc,d\n", &o, &r);
    CHECK_STR(r.text, "column0:string|column1:string\na|b\nc|d\n");
}

TEST(csv_dialects)
{
    struct rendered r;
    read_str("a;b\n1;x,y\n", NULL, &r);
    CHECK_STR(r.text, "a:int64|b:string\n1|x,y\n");
    read_str("a\tb\n1\t2\n", NULL, &r);
    CHECK_STR(r.text, "a:int64|b:int64\n1|2\n");
    read_str("a|b\n'x|y'|2\n", NULL, &r);
    CHECK_STR(r.text, "a:string|b:int64\nx|y|2\n");
    struct basalt_csv_read_options o;
    basalt_csv_read_options_init(&o);
    o.escape = BASALT_CSV_ESCAPE_BACKSLASH;
    o.comment = '#';
    o.skip_rows = 1;
    read_str("junk \"line\n# a comment \"\na,b\n\"x\\\"y\",1\n# another\n\"p\\\\q\",2\n", &o, &r);
    CHECK_EQ(r.st, BASALT_OK);
    CHECK_STR(r.text, "a:string|b:int64\nx\"y|1\np\\q|2\n");
}

TEST(csv_nulls_and_blank_lines)
{
    struct rendered r;
    struct basalt_csv_read_options o;
    basalt_csv_read_options_init(&o);
    const char *nulls[] = {"NULL", ""};
    o.nulls = nulls;
    o.n_nulls = 2;
    read_str("a,b,c\nNULL,\"NULL\",1\n2,,NULL\n\n3,\"\",4\n", &o, &r);
    CHECK_EQ(r.st, BASALT_OK);
    CHECK_STR(r.text, "a:int64|b:string|c:int64\nNULL|NULL|1\n2|NULL|NULL\n3||4\n");
    /* a single column: blank lines are nulls */
    read_str("a\n1\n\n2\n", NULL, &r);
    CHECK_STR(r.text, "a:int64\n1\nNULL\n2\n");
}

TEST(csv_ragged_rows)
{
    struct rendered r;
    read_str("a,b\n1,2\n3\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.csv: line 3: expected 2 fields, found 1");
    read_str("a,b\n1,2\n3,4,5\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.csv: line 3: expected 2 fields, found 3");
    struct basalt_csv_read_options o;
    basalt_csv_read_options_init(&o);
    o.fill_ragged = true;
    read_str("a,b\n1,2\n3\n", &o, &r);
    CHECK_EQ(r.st, BASALT_OK);
    CHECK_STR(r.text, "a:int64|b:int64\n1|2\n3|NULL\n");
}

TEST(csv_bad_quotes)
{
    struct rendered r;
    struct basalt_csv_read_options o;
    basalt_csv_read_options_init(&o);
    o.quote = '"';
    read_str("a,b\n1,2\n1,x\"y\n", &o, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.csv: line 3, column 2 ('b'): quote inside an unquoted field");
    read_str("a,b\n1,2\n\"ab\"c,2\n", &o, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.csv: line 3, column 1 ('a'): unexpected text after a closing quote");
    read_str("a,b\n1,2\n3,\"open\n4,5\n", &o, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.csv: line 3, column 2 ('b'): unterminated quoted field");
    read_str("a,b\n1,2\r3,4\n", &o, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    /* errors in the sample are reported as the parser meets them */
    read_str("a\n\"x\"y\n", &o, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.csv: line 2, column 1 ('a'): unexpected text after a closing quote");
    /* in the first record there are no names yet */
    read_str("\"a\"b\n1\n", &o, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.csv: line 1: unexpected text after a closing quote");
}

TEST(csv_value_after_sample_does_not_fit)
{
    struct rendered r;
    struct basalt_csv_read_options o;
    basalt_csv_read_options_init(&o);
    o.sample_rows = 2;
    read_str("id,v\n1,2\n2,3\n3,x\n", &o, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK(strstr(r.error, "t.csv: line 4, column 2 ('v'): value 'x' is not an int64") == r.error);
    /* sampling everything widens instead */
    o.sample_rows = -1;
    read_str("id,v\n1,2\n2,3\n3,x\n", &o, &r);
    CHECK_EQ(r.st, BASALT_OK);
    CHECK_STR(r.text, "id:int64|v:string\n1|2\n2|3\n3|x\n");
    /* a given type */
    o.sample_rows = 20480;
    struct basalt_csv_column_type t[2] = {{BASALT_CSV_TYPE_AUTO, 0, 0},
                                          {BASALT_CSV_TYPE_DECIMAL, 5, 2}};
    o.types = t;
    o.n_types = 2;
    read_str("id,v\n1,2\n2,3.456\n3,-0.5\n", &o, &r);
    CHECK_EQ(r.st, BASALT_OK);
    CHECK_STR(r.text, "id:int64|v:decimal(5,2)\n1|200\n2|346\n3|-50\n");
    read_str("id,v\n1,1234\n", &o, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK(strstr(r.error, "line 2, column 2 ('v'): value '1234' is not a decimal") != NULL);
}

TEST(csv_named_types_and_names)
{
    struct rendered r;
    struct basalt_csv_read_options o;
    basalt_csv_read_options_init(&o);
    const char *tn[] = {"b"};
    struct basalt_csv_column_type tt[] = {{BASALT_CSV_TYPE_STRING, 0, 0}};
    o.type_names = tn;
    o.named_types = tt;
    o.n_named_types = 1;
    read_str("a,b\n1,2\n", &o, &r);
    CHECK_STR(r.text, "a:int64|b:string\n1|2\n");
    const char *names[] = {"x", "y"};
    o.n_named_types = 0;
    o.names = names;
    o.n_names = 2;
    read_str("a,b\n1,2\n", &o, &r);
    CHECK_STR(r.text, "x:int64|y:int64\n1|2\n");
    o.n_names = 0;
    o.n_named_types = 1;
    tn[0] = "nope";
    read_str("a,b\n1,2\n", &o, &r);
    CHECK_EQ(r.st, BASALT_NOT_FOUND);
}

TEST(csv_limits_and_utf8)
{
    struct rendered r;
    struct basalt_csv_read_options o;
    basalt_csv_read_options_init(&o);
    o.max_line_size = 8;
    read_str("a,b\n1,2\n123456,7890\n", &o, &r);
    CHECK_EQ(r.st, BASALT_LIMIT);
    CHECK(strstr(r.error, "line 3") != NULL);
    read_str("a,b\n1,\xff\xfe\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.csv: line 2, column 2 ('b'): invalid UTF-8");
    read_str("a,b\n1,\xc3\xa9t\xc3\xa9\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_OK);
    CHECK_STR(r.text, "a:int64|b:string\n1|\xc3\xa9t\xc3\xa9\n");
}

/* A file whose quoted fields hold newlines, delimiters and doubled quotes,
 * read with every chunk size from 1 byte up: chunk boundaries fall inside
 * quoted fields, between CR and LF, on quotes. */
TEST(csv_chunk_boundaries_inside_quotes)
{
    const char *text = "id,note,v\r\n"
                       "1,\"a\nb\",1.5\r\n"
                       "2,\"\"\"q\"\",\n\"\"\",2\r\n"
                       "3,plain,\r\n"
                       "4,\"x,y\r\nz\",-3\r\n"
                       "5,\"\",4\r\n";
    const char *want = "id:int64|note:string|v:double\n"
                       "1|a\nb|1.5\n"
                       "2|\"q\",\n\"|2\n"
                       "3|plain|NULL\n"
                       "4|x,y\r\nz|-3\n"
                       "5||4\n";
    struct basalt_pool *pool = NULL;
    CHECK_EQ(basalt_pool_new(3, &pool, NULL), BASALT_OK);
    for (size_t chunk = 1; chunk <= strlen(text) + 1; chunk++) {
        for (int workers = 1; workers <= 4; workers *= 2) {
            struct basalt_csv_read_options o;
            basalt_csv_read_options_init(&o);
            o.chunk_size = chunk;
            o.pool = pool;
            o.max_workers = workers;
            o.batch_size = 2;
            struct rendered r;
            read_str(text, &o, &r);
            if (r.st != BASALT_OK || strcmp(r.text, want) != 0) {
                basalt_pool_free(pool);
                CHECK_MSG(false, "chunk %zu workers %d: %s\n%s", chunk, workers, r.error, r.text);
            }
        }
    }
    basalt_pool_free(pool);
}

/* The split fires: many chunks for a small chunk size, by quote parity, and
 * by the serial scan when the dialect needs it (with several workers; one
 * worker ends its chunks as it parses); output the same for 1, 2 and 4
 * workers and the same as one chunk. */
TEST(csv_parallel_split_fires)
{
    char *text = basalt_malloc(1 << 20);
    CHECK(text != NULL);
    size_t n = (size_t)sprintf(text, "id,s,x\n");
    for (int i = 0; i < 5000; i++)
        n += (size_t)sprintf(text + n, "%d,\"v%d,\"\"%s\",%d.5\n", i, i,
                             i % 7 == 0 ? "\nnl" : "", i * 3);
    struct basalt_pool *pool = NULL;
    CHECK_EQ(basalt_pool_new(3, &pool, NULL), BASALT_OK);
    static struct rendered base, r;
    struct basalt_csv_read_options o;
    basalt_csv_read_options_init(&o);
    o.chunk_size = 1 << 30;
    read_text(text, n, &o, &base);
    bool ok = base.st == BASALT_OK && base.stats.chunks == 1 && base.stats.rows == 5000;
    for (int workers = 1; ok && workers <= 4; workers *= 2) {
        for (int serial = 0; ok && serial < 2; serial++) {
            basalt_csv_read_options_init(&o);
            o.chunk_size = 4096;
            o.pool = pool;
            o.max_workers = workers;
            o.comment = serial ? '#' : 0; /* a comment character takes the serial split */
            read_text(text, n, &o, &r);
            ok = r.st == BASALT_OK && r.stats.chunks >= 20 && r.stats.rows == 5000 &&
                 strcmp(r.text, base.text) == 0;
            /* several workers split first: by parity, or serially */
            if (workers > 1)
                ok = ok && (r.stats.serial_splits > 0) == (serial == 1) &&
                     (r.stats.parity_splits > 0) == (serial == 0);
            else
                ok = ok && r.stats.serial_splits == 0 && r.stats.parity_splits == 0;
        }
    }
    basalt_pool_free(pool);
    basalt_free(text);
    CHECK_MSG(ok, "chunks %lld rows %lld: %s", (long long)r.stats.chunks,
              (long long)r.stats.rows, r.error);
}

/* A mapped file read a batch at a time does not stay resident: each window's
 * pages go back once it is parsed, so the resident set grows by far less
 * than the file (32 MiB, read in windows of 4 MiB), and the rows are all
 * there. */
TEST(csv_mapped_file_pages_go_back_as_windows_are_parsed)
{
    char path[256];
    snprintf(path, sizeof path, "/tmp/basalt-csv-resident-%ld.csv", (long)getpid());
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("id,name,x\n", f);
    long rows = 0;
    while (ftell(f) < (32l << 20)) {
        fprintf(f, "%ld,name%ld,%ld.25\n", rows, rows % 977, rows * 3);
        rows++;
    }
    fclose(f);
    struct basalt_csv_read_options o;
    basalt_csv_read_options_init(&o);
    o.chunk_size = 1 << 20;
    struct basalt_csv_reader *r;
    struct basalt_error err;
    CHECK_OK(basalt_csv_reader_open_file(path, &o, &r, &err), &err);
    long start = bt_resident_pages(), peak = start, page = sysconf(_SC_PAGESIZE);
    int64_t got = 0, sum = 0;
    for (;;) {
        struct ArrowArray b;
        CHECK_OK(basalt_csv_reader_next(r, &b, &err), &err);
        if (b.release == NULL)
            break;
        const int64_t *id = b.children[0]->buffers[1];
        for (int64_t i = 0; i < b.length; i++)
            sum += id[b.children[0]->offset + i];
        got += b.length;
        basalt_arrow_array_release(&b);
        long now = bt_resident_pages();
        if (now > peak)
            peak = now;
    }
    basalt_csv_reader_close(r);
    unlink(path);
    CHECK_EQ(got, rows);
    CHECK_EQ(sum, (int64_t)rows * (rows - 1) / 2);
#if defined(__SANITIZE_ADDRESS__)
    /* AddressSanitizer keeps freed batches in its quarantine: the resident
     * set says nothing about the mapping there. */
    (void)start;
    (void)peak;
    (void)page;
#else
    CHECK_MSG(start > 0 && (peak - start) * page < (16l << 20),
              "resident set grew by %ld KiB reading a 32 MiB file", (peak - start) * page >> 10);
#endif
}

/* Errors are the same for every worker count and chunk size: the first in
 * the file, with its line. */
TEST(csv_errors_do_not_depend_on_workers)
{
    char text[4096];
    size_t n = (size_t)sprintf(text, "a,b\n");
    for (int i = 0; i < 100; i++)
        n += (size_t)sprintf(text + n, i == 60 ? "%d,x\"y\n" : "%d,\"q\nq\"\n", i);
    struct basalt_pool *pool = NULL;
    CHECK_EQ(basalt_pool_new(3, &pool, NULL), BASALT_OK);
    bool ok = true;
    struct rendered r;
    for (size_t chunk = 7; ok && chunk < 400; chunk += 37) {
        for (int workers = 1; ok && workers <= 4; workers *= 2) {
            struct basalt_csv_read_options o;
            basalt_csv_read_options_init(&o);
            o.chunk_size = chunk;
            o.pool = pool;
            o.max_workers = workers;
            o.sample_rows = 10;
            o.quote = '"';
            read_text(text, n, &o, &r);
            /* record 60 starts on line 2 + 60 * 2 */
            ok = r.st == BASALT_CORRUPT &&
                 strcmp(r.error, "t.csv: line 122, column 2 ('b'): quote inside an unquoted "
                                 "field") == 0;
        }
    }
    basalt_pool_free(pool);
    CHECK_MSG(ok, "%s", r.error);
}

TEST(csv_failed_allocations)
{
    const char *text = "a,b,c\n1,\"x\ny\",2024-01-01\n2,z,2024-01-02\n";
    for (int64_t n = 1;; n++) {
        struct basalt_csv_read_options o;
        basalt_csv_read_options_init(&o);
        o.chunk_size = 8;
        struct rendered r;
        basalt_alloc_fail_after(n);
        read_str(text, &o, &r);
        basalt_alloc_fail_after(0);
        if (r.st == BASALT_OK) {
            CHECK_STR(r.text, "a:int64|b:string|c:date\n1|x\ny|2024-01-01\n2|z|2024-01-02\n");
            break;
        }
        CHECK_MSG(r.st == BASALT_NOMEM, "allocation %lld: %s", (long long)n, r.error);
        CHECK(n < 1000);
    }
}

TEST(csv_count_byte_kernels)
{
    uint8_t buf[5000];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof buf; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (x >> 16) % 3 == 0 ? '"' : (uint8_t)(x >> 24);
    }
    for (size_t off = 0; off < 40; off++)
        for (size_t n = 0; n + off <= sizeof buf; n += 97)
            CHECK_UEQ(basalt_csv_count_byte(buf + off, n, '"'), basalt_csv_count_byte_scalar(buf + off, n, '"'));
    memset(buf, '"', sizeof buf);
    CHECK_UEQ(basalt_csv_count_byte(buf, sizeof buf, '"'), sizeof buf);
}

TEST(csv_value_parsers)
{
    static const char *doubles[] = {"0.1", "1e23", "9007199254740993", "2.2250738585072011e-308",
                                    "123456789012345678901234567890", "-0.0", "1.7976931348623157e308",
                                    "4.9e-324", "0.000001", "3.14159265358979323846"};
    for (size_t i = 0; i < sizeof doubles / sizeof doubles[0]; i++) {
        double got = 0;
        CHECK(basalt_csv_parse_double((const uint8_t *)doubles[i], strlen(doubles[i]), false, &got));
        CHECK_MSG(memcmp(&got, &(double){strtod(doubles[i], NULL)}, 8) == 0, "%s", doubles[i]);
    }
    double d;
    CHECK(!basalt_csv_parse_double((const uint8_t *)"1e400", 5, false, &d));
    CHECK(!basalt_csv_parse_double((const uint8_t *)"1.", 1, true, &d) || true);
    CHECK(!basalt_csv_parse_double((const uint8_t *)"inf", 3, true, &d));
    CHECK(basalt_csv_parse_double((const uint8_t *)"-Infinity", 9, false, &d) && d < 0 && d * 0 != 0);
    int64_t v;
    CHECK(basalt_csv_parse_int64((const uint8_t *)"9223372036854775807", 19, true, &v) &&
          v == INT64_MAX);
    CHECK(basalt_csv_parse_int64((const uint8_t *)"-9223372036854775808", 20, true, &v) &&
          v == INT64_MIN);
    CHECK(!basalt_csv_parse_int64((const uint8_t *)"9223372036854775808", 19, true, &v));
    CHECK(!basalt_csv_parse_int64((const uint8_t *)"007", 3, true, &v));
    CHECK(basalt_csv_parse_int64((const uint8_t *)"007", 3, false, &v) && v == 7);
    CHECK(!basalt_csv_parse_int64((const uint8_t *)"+5", 2, true, &v));
    int32_t days;
    CHECK(!basalt_csv_parse_date((const uint8_t *)"2023-02-29", 10, &days));
    CHECK(basalt_csv_parse_date((const uint8_t *)"2000-02-29", 10, &days) && days == 11016);
    bool zone;
    CHECK(basalt_csv_parse_timestamp((const uint8_t *)"1969-12-31 23:59:59.999999", 26, &v, &zone) &&
          v == -1 && !zone);
    CHECK(basalt_csv_parse_timestamp((const uint8_t *)"1970-01-01T05:30+0530", 21, &v, &zone) &&
          v == 0 && zone);
    __int128 x;
    CHECK(basalt_csv_parse_decimal((const uint8_t *)"-12.345", 7, 10, 2, &x) && x == -1235);
    CHECK(!basalt_csv_parse_decimal((const uint8_t *)"99.995", 6, 4, 2, &x));
    CHECK(basalt_csv_utf8_valid((const uint8_t *)"\xf0\x9f\x98\x80", 4));
    CHECK(!basalt_csv_utf8_valid((const uint8_t *)"\xed\xa0\x80", 3));
    CHECK(!basalt_csv_utf8_valid((const uint8_t *)"\xc0\xaf", 2));
}
