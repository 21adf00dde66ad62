/* Reading whole files through scans: values (checked against DuckDB's
 * reading of the same files, transcribed below), projection, batch sizes,
 * worker-count invariance, the stream, page pruning end to end, errors. */
#include <stdlib.h>

#include "basalt/parquet.h"
#include "parquet_reader.h"
#include "test.h"

void pqr_text_row(const struct ArrowSchema *s, const struct ArrowArray *batch, int64_t row,
                  struct basalt_buffer *out);
void pqr_text_batches(const struct ArrowSchema *s, const struct ArrowArray *batches, int64_t n,
                      struct basalt_buffer *out);

static const char *corpus(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", bt_testdata_path("parquet-testing/data"), name);
    return path;
}

/* How a test reads a file. */
struct read_spec {
    const char *file;
    const char *const *columns; /* NULL: every column */
    int64_t batch_size;         /* -1: read_all */
    int threads;                /* pool threads (0: no pool) */
    bool no_mmap;
    bool keep_dictionary;
    const char *filter;         /* a column, with op and lit below */
    enum basalt_parquet_op op;
    struct basalt_parquet_literal lit;
};

/* Reads as `spec` says and renders every row (pqr_text_batches) into
 * `text` (NUL-terminated), the batch lengths into `lengths`. */
static basalt_status read_text(const struct read_spec *spec, struct basalt_buffer *text,
                               struct basalt_buffer *lengths,
                               struct basalt_parquet_scan_stats *stats, struct basalt_error *err)
{
    struct basalt_parquet_reader_options ro;
    basalt_parquet_reader_options_init(&ro);
    ro.use_mmap = !spec->no_mmap;
    struct basalt_parquet_reader *r = NULL;
    struct basalt_pool *pool = NULL;
    struct basalt_parquet_scan *scan = NULL;
    struct basalt_arrow_batches batches;
    basalt_arrow_batches_init(&batches);
    basalt_status st = basalt_parquet_reader_open_file(corpus(spec->file), &ro, &r, err);
    if (st == BASALT_OK && spec->threads > 0)
        st = basalt_pool_new(spec->threads, &pool, err);
    struct basalt_parquet_read_options o;
    basalt_parquet_read_options_init(&o);
    o.batch_size = spec->batch_size < 0 ? 0 : spec->batch_size;
    o.pool = pool;
    o.keep_dictionary = spec->keep_dictionary;
    if (st == BASALT_OK)
        st = basalt_parquet_scan_new(r, &o, &scan, err);
    if (st == BASALT_OK) {
        if (!spec->columns)
            basalt_parquet_scan_select_all(scan);
        for (int i = 0; spec->columns && spec->columns[i] && st == BASALT_OK; i++)
            st = basalt_parquet_scan_select_path(scan, spec->columns[i], err);
    }
    if (st == BASALT_OK && spec->filter)
        st = basalt_parquet_scan_filter(scan, spec->filter, spec->op, &spec->lit, err);
    if (st == BASALT_OK) {
        if (spec->batch_size < 0) {
            st = basalt_parquet_scan_read_all(scan, &batches, err);
        } else {
            st = basalt_parquet_scan_schema(scan, &batches.schema, err);
            while (st == BASALT_OK) {
                struct ArrowArray a;
                st = basalt_parquet_scan_next(scan, &a, err);
                if (st != BASALT_OK || !a.release)
                    break;
                st = basalt_arrow_batches_append(&batches, &a, err);
            }
        }
    }
    if (st == BASALT_OK) {
        for (int64_t b = 0; b < batches.n; b++) {
            st = basalt_arrow_array_validate(&batches.schema, &batches.arrays[b],
                                             BASALT_ARROW_VALIDATE_FULL, err);
            if (st != BASALT_OK)
                break;
            char num[32];
            int n = snprintf(num, sizeof num, "%lld,", (long long)batches.arrays[b].length);
            basalt_buffer_append(lengths, num, (size_t)n, NULL);
        }
    }
    if (st == BASALT_OK)
        pqr_text_batches(&batches.schema, batches.arrays, batches.n, text);
    basalt_buffer_append(text, "", 1, NULL);
    basalt_buffer_append(lengths, "", 1, NULL);
    if (stats)
        basalt_parquet_scan_get_stats(scan, stats);
    basalt_arrow_batches_reset(&batches);
    basalt_parquet_scan_free(scan);
    basalt_pool_free(pool);
    basalt_parquet_reader_close(r);
    return st;
}

struct texts {
    struct basalt_buffer text, lengths;
};

static void texts_init(struct texts *t)
{
    basalt_buffer_init(&t->text);
    basalt_buffer_init(&t->lengths);
}

static void texts_reset(struct texts *t)
{
    basalt_buffer_reset(&t->text);
    basalt_buffer_reset(&t->lengths);
}

#define TXT(t) ((const char *)(t).text.data)
#define LEN(t) ((const char *)(t).lengths.data)

/* DuckDB 1.5.6, SELECT * FROM read_parquet('alltypes_plain.parquet'):
 * [4,true,0,0,0,"0",0,0,"03/01/09","0","2009-03-01 00:00:00"] ... with
 * timestamps here as nanoseconds since the epoch and the binary columns as
 * text. */
static const char alltypes_plain[] =
    "[4,true,0,0,0,0,0,0,\"03/01/09\",\"0\",1235865600000000000]\n"
    "[5,false,1,1,1,10,1.1,10.1,\"03/01/09\",\"1\",1235865660000000000]\n"
    "[6,true,0,0,0,0,0,0,\"04/01/09\",\"0\",1238544000000000000]\n"
    "[7,false,1,1,1,10,1.1,10.1,\"04/01/09\",\"1\",1238544060000000000]\n"
    "[2,true,0,0,0,0,0,0,\"02/01/09\",\"0\",1233446400000000000]\n"
    "[3,false,1,1,1,10,1.1,10.1,\"02/01/09\",\"1\",1233446460000000000]\n"
    "[0,true,0,0,0,0,0,0,\"01/01/09\",\"0\",1230768000000000000]\n"
    "[1,false,1,1,1,10,1.1,10.1,\"01/01/09\",\"1\",1230768060000000000]\n";

TEST(reader_scan_alltypes_plain)
{
    struct basalt_error err;
    struct texts t;
    for (int mm = 0; mm < 2; mm++) {
        texts_init(&t);
        struct read_spec spec = {.file = "alltypes_plain.parquet", .batch_size = 0, .no_mmap = mm};
        basalt_status st = read_text(&spec, &t.text, &t.lengths, NULL, &err);
        bool same = st == BASALT_OK && strcmp(TXT(t), alltypes_plain) == 0;
        if (st == BASALT_OK && !same)
            fprintf(stderr, "got:\n%s", TXT(t));
        bool one = st == BASALT_OK && strcmp(LEN(t), "8,") == 0;
        texts_reset(&t);
        CHECK_OK(st, &err);
        CHECK(same);
        CHECK(one);
    }
}

TEST(reader_scan_projection)
{
    struct basalt_error err;
    struct texts t;
    texts_init(&t);
    /* Selected out of order: the output keeps the file's order. */
    const char *cols[] = {"string_col", "id", NULL};
    struct read_spec spec = {.file = "alltypes_plain.parquet", .columns = cols};
    basalt_status st = read_text(&spec, &t.text, &t.lengths, NULL, &err);
    bool ok = st == BASALT_OK && strncmp(TXT(t), "[4,\"0\"]\n[5,\"1\"]\n[6,\"0\"]\n", 24) == 0;
    texts_reset(&t);
    CHECK_OK(st, &err);
    CHECK(ok);
}

/* nested_structs.rust.parquet and a nested path: the struct keeps only the
 * selected child. */
TEST(reader_scan_nested_path)
{
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(basalt_parquet_reader_open_file(corpus("nested_structs.rust.parquet"), NULL, &r, &err),
             &err);
    struct basalt_parquet_scan *scan = NULL;
    CHECK_OK(basalt_parquet_scan_new(r, NULL, &scan, &err), &err);
    basalt_status st = basalt_parquet_scan_select_path(scan, "ul_observation_date.max", &err);
    struct ArrowSchema s;
    s.release = NULL;
    if (st == BASALT_OK)
        st = basalt_parquet_scan_schema(scan, &s, &err);
    struct ArrowArray a;
    a.release = NULL;
    if (st == BASALT_OK)
        st = basalt_parquet_scan_next(scan, &a, &err);
    bool shape = st == BASALT_OK && s.n_children == 1 && s.children[0]->n_children == 1 &&
                 strcmp(s.children[0]->children[0]->name, "max") == 0 && a.release &&
                 a.n_children == 1 && a.children[0]->n_children == 1;
    struct basalt_buffer text;
    basalt_buffer_init(&text);
    if (shape)
        pqr_text_row(&s, &a, 0, &text);
    basalt_buffer_append(&text, "", 1, NULL);
    /* DuckDB: ul_observation_date = {'min': 2011-09-01 ..., 'max': 2013-03-19 21:38:57}
     * its raw value, which epoch_us() also gives: 1608822900000000000. */
    bool value = strcmp((const char *)text.data, "[{max:1608822900000000000}]") == 0;
    if (shape && !value)
        fprintf(stderr, "got %s\n", (const char *)text.data);
    basalt_buffer_reset(&text);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    CHECK_OK(st, &err);
    CHECK(shape);
    CHECK(value);
}

TEST(reader_scan_batch_sizes)
{
    struct basalt_error err;
    const int64_t sizes[] = {1, 3, 5, 8, 100};
    const char *want[] = {"1,1,1,1,1,1,1,1,", "3,3,2,", "5,3,", "8,", "8,"};
    for (int i = 0; i < 5; i++) {
        struct texts t;
        texts_init(&t);
        struct read_spec spec = {.file = "alltypes_plain.parquet", .batch_size = sizes[i]};
        basalt_status st = read_text(&spec, &t.text, &t.lengths, NULL, &err);
        bool same = st == BASALT_OK && strcmp(TXT(t), alltypes_plain) == 0;
        bool lens = st == BASALT_OK && strcmp(LEN(t), want[i]) == 0;
        texts_reset(&t);
        CHECK_OK(st, &err);
        CHECK_MSG(same && lens, "batch size %lld", (long long)sizes[i]);
    }
}

/* The same rows, bit for bit, for 1, 2 and 4 workers, through read_all and
 * through next() with small batches. */
static void invariance(const char *file, int64_t batch)
{
    struct basalt_error err;
    struct texts base;
    texts_init(&base);
    struct read_spec spec = {.file = file, .batch_size = batch};
    basalt_status st = read_text(&spec, &base.text, &base.lengths, NULL, &err);
    if (st != BASALT_OK)
        texts_reset(&base);
    CHECK_OK(st, &err);
    const int threads[] = {1, 3};
    for (int i = 0; i < 2; i++) {
        struct texts t;
        texts_init(&t);
        spec.threads = threads[i];
        st = read_text(&spec, &t.text, &t.lengths, NULL, &err);
        bool same = st == BASALT_OK && strcmp(TXT(t), TXT(base)) == 0 &&
                    strcmp(LEN(t), LEN(base)) == 0;
        texts_reset(&t);
        if (!same)
            texts_reset(&base);
        CHECK_OK(st, &err);
        CHECK_MSG(same, "%s: %d threads differ", file, threads[i]);
    }
    bool nonempty = base.text.size > 10;
    texts_reset(&base);
    CHECK(nonempty);
}

TEST(reader_scan_workers)
{
    invariance("geospatial/geography-points.parquet", -1);
    invariance("geospatial/geography-points.parquet", 7);
    invariance("alltypes_tiny_pages.parquet", -1);
    invariance("alltypes_tiny_pages.parquet", 1000);
    invariance("floating_orders_nan_count.parquet", 3);
    invariance("nested_maps.snappy.parquet", -1);
}

TEST(reader_scan_stream)
{
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(basalt_parquet_reader_open_file(corpus("alltypes_plain.parquet"), NULL, &r, &err),
             &err);
    struct basalt_parquet_read_options o;
    basalt_parquet_read_options_init(&o);
    o.batch_size = 3;
    struct basalt_parquet_scan *scan = NULL;
    CHECK_OK(basalt_parquet_scan_new(r, &o, &scan, &err), &err);
    basalt_parquet_scan_select_all(scan);
    struct ArrowArrayStream stream;
    CHECK_OK(basalt_parquet_scan_stream(scan, &stream, &err), &err);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    basalt_status st = basalt_arrow_stream_collect(&stream, &b, &err);
    struct basalt_buffer text;
    basalt_buffer_init(&text);
    if (st == BASALT_OK)
        pqr_text_batches(&b.schema, b.arrays, b.n, &text);
    basalt_buffer_append(&text, "", 1, NULL);
    bool same = strcmp((const char *)text.data, alltypes_plain) == 0 && b.n == 3;
    basalt_buffer_reset(&text);
    basalt_arrow_batches_reset(&b);
    basalt_parquet_reader_close(r);
    CHECK_OK(st, &err);
    CHECK(same);
}

/* Page pruning end to end: id = 7 reads the pages of every column that
 * overlap rows [132, 174) and cuts them to those rows, which must be the
 * same as rows 132..173 of a full read. */
TEST(reader_scan_page_pruning)
{
    struct basalt_error err;
    struct texts full;
    texts_init(&full);
    struct read_spec spec = {.file = "alltypes_tiny_pages.parquet", .batch_size = 0};
    struct basalt_parquet_scan_stats all;
    basalt_status st = read_text(&spec, &full.text, &full.lengths, &all, &err);
    if (st != BASALT_OK)
        texts_reset(&full);
    CHECK_OK(st, &err);
    /* Lines 132..173 of the full read. */
    const char *p = TXT(full);
    for (int i = 0; i < 132 && p; i++) {
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    const char *q = p;
    for (int i = 0; i < 42 && q; i++) {
        q = strchr(q, '\n');
        q = q ? q + 1 : NULL;
    }
    bool found = p && q;
    size_t want_len = found ? (size_t)(q - p) : 0;
    for (int mm = 0; mm < 2 && found; mm++) {
        struct texts t;
        texts_init(&t);
        spec.filter = "id";
        spec.op = BASALT_PARQUET_OP_EQ;
        spec.lit.kind = BASALT_PARQUET_LITERAL_INT;
        spec.lit.i = 7;
        spec.no_mmap = mm;
        struct basalt_parquet_scan_stats ss;
        st = read_text(&spec, &t.text, &t.lengths, &ss, &err);
        bool same = st == BASALT_OK && strlen(TXT(t)) == want_len &&
                    memcmp(TXT(t), p, want_len) == 0;
        bool has7 = st == BASALT_OK && strstr(TXT(t), "\n[7,") != NULL;
        texts_reset(&t);
        if (!same || !has7 || st != BASALT_OK)
            texts_reset(&full);
        CHECK_OK(st, &err);
        CHECK(same);
        CHECK(has7);
        CHECK_EQ(ss.rows_read, 42);
        CHECK_EQ(ss.rows_total, 7300);
        CHECK(ss.pages_skipped > ss.pages_total * 9 / 10);
        /* Only the pages read (and the dictionaries) count: 98 kB of 320. */
        CHECK(ss.bytes_read * 3 < all.bytes_read);
    }
    texts_reset(&full);
    CHECK(found);
}

TEST(reader_scan_keep_dictionary)
{
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(basalt_parquet_reader_open_file(corpus("alltypes_tiny_pages.parquet"), NULL, &r, &err),
             &err);
    struct basalt_parquet_read_options o;
    basalt_parquet_read_options_init(&o);
    o.keep_dictionary = true;
    o.batch_size = 0;
    struct basalt_parquet_scan *scan = NULL;
    CHECK_OK(basalt_parquet_scan_new(r, &o, &scan, &err), &err);
    CHECK_OK(basalt_parquet_scan_select_column(scan, "string_col", &err), &err);
    struct ArrowSchema s;
    CHECK_OK(basalt_parquet_scan_schema(scan, &s, &err), &err);
    bool dict = strcmp(s.children[0]->format, "i") == 0 && s.children[0]->dictionary &&
                strcmp(s.children[0]->dictionary->format, "u") == 0;
    struct ArrowArray a;
    basalt_status st = basalt_parquet_scan_next(scan, &a, &err);
    bool arr = st == BASALT_OK && a.release && a.children[0]->dictionary != NULL;
    if (st == BASALT_OK)
        st = basalt_arrow_array_validate(&s, &a, BASALT_ARROW_VALIDATE_FULL, &err);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    CHECK_OK(st, &err);
    CHECK(dict);
    CHECK(arr);
    /* Same values as without the option. */
    struct texts t1, t2;
    texts_init(&t1);
    texts_init(&t2);
    const char *cols[] = {"string_col", "date_string_col", NULL};
    struct read_spec spec = {.file = "alltypes_tiny_pages.parquet", .columns = cols};
    basalt_status st1 = read_text(&spec, &t1.text, &t1.lengths, NULL, &err);
    spec.keep_dictionary = true;
    basalt_status st2 = read_text(&spec, &t2.text, &t2.lengths, NULL, &err);
    bool same = st1 == BASALT_OK && st2 == BASALT_OK && strcmp(TXT(t1), TXT(t2)) == 0;
    texts_reset(&t1);
    texts_reset(&t2);
    CHECK(same);
}

/* keep_dictionary for one column: that column alone comes out as a
 * dictionary array, its values those of the plain read; an unknown name and
 * a started scan are refused. */
TEST(reader_scan_keep_dictionary_one_column)
{
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(basalt_parquet_reader_open_file(corpus("alltypes_tiny_pages.parquet"), NULL, &r, &err),
             &err);
    struct basalt_parquet_read_options o;
    basalt_parquet_read_options_init(&o);
    o.batch_size = 0;
    struct basalt_parquet_scan *scan = NULL, *plain = NULL;
    CHECK_OK(basalt_parquet_scan_new(r, &o, &scan, &err), &err);
    CHECK_OK(basalt_parquet_scan_new(r, &o, &plain, &err), &err);
    for (int i = 0; i < 2; i++) {
        struct basalt_parquet_scan *x = i ? plain : scan;
        CHECK_OK(basalt_parquet_scan_select_column(x, "string_col", &err), &err);
        CHECK_OK(basalt_parquet_scan_select_column(x, "date_string_col", &err), &err);
    }
    CHECK_OK(basalt_parquet_scan_keep_dictionary(scan, "date_string_col", &err), &err);
    CHECK_STATUS(basalt_parquet_scan_keep_dictionary(scan, "no_such_col", &err), BASALT_NOT_FOUND,
                 &err);
    struct ArrowSchema s, ps;
    CHECK_OK(basalt_parquet_scan_schema(scan, &s, &err), &err);
    CHECK_OK(basalt_parquet_scan_schema(plain, &ps, &err), &err);
    /* the file's order: date_string_col, then string_col */
    CHECK_STR(s.children[0]->name, "date_string_col");
    CHECK_STR(s.children[0]->format, "i");
    CHECK(s.children[0]->dictionary && strcmp(s.children[0]->dictionary->format, "u") == 0);
    CHECK_STR(s.children[1]->format, "u");
    CHECK(s.children[1]->dictionary == NULL);
    CHECK_STATUS(basalt_parquet_scan_keep_dictionary(scan, "string_col", &err),
                 BASALT_INVALID_ARG, &err);
    int64_t rows = 0;
    for (;;) {
        struct ArrowArray a, pa;
        CHECK_OK(basalt_parquet_scan_next(scan, &a, &err), &err);
        CHECK_OK(basalt_parquet_scan_next(plain, &pa, &err), &err);
        if (!a.release || !pa.release) {
            CHECK(!a.release && !pa.release);
            basalt_arrow_array_release(&a);
            basalt_arrow_array_release(&pa);
            break;
        }
        CHECK_OK(basalt_arrow_array_validate(&s, &a, BASALT_ARROW_VALIDATE_FULL, &err), &err);
        CHECK_EQ(a.length, pa.length);
        CHECK(a.children[0]->dictionary != NULL && a.children[1]->dictionary == NULL);
        /* every value of the dictionary column equals the plain read's */
        const struct ArrowArray *ix = a.children[0], *d = ix->dictionary, *pv = pa.children[0];
        const int32_t *idx = (const int32_t *)ix->buffers[1] + ix->offset;
        const int32_t *doff = (const int32_t *)d->buffers[1] + d->offset;
        const int32_t *poff = (const int32_t *)pv->buffers[1] + pv->offset;
        const char *dd = d->buffers[2], *pd = pv->buffers[2];
        for (int64_t i = 0; i < a.length; i++) {
            int32_t dl = doff[idx[i] + 1] - doff[idx[i]], pl = poff[i + 1] - poff[i];
            CHECK_MSG(dl == pl && memcmp(dd + doff[idx[i]], pd + poff[i], (size_t)dl) == 0,
                      "row %lld differs", (long long)(rows + i));
        }
        rows += a.length;
        basalt_arrow_array_release(&a);
        basalt_arrow_array_release(&pa);
    }
    CHECK(rows > 0);
    basalt_arrow_schema_release(&s);
    basalt_arrow_schema_release(&ps);
    basalt_parquet_scan_free(scan);
    basalt_parquet_scan_free(plain);
    basalt_parquet_reader_close(r);
}

TEST(reader_scan_row_groups)
{
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(basalt_parquet_reader_open_file(corpus("geospatial/geography-points.parquet"), NULL,
                                             &r, &err),
             &err);
    struct basalt_parquet_scan *scan = NULL;
    CHECK_OK(basalt_parquet_scan_new(r, NULL, &scan, &err), &err);
    CHECK_OK(basalt_parquet_scan_select_column(scan, "id", &err), &err);
    const int32_t groups[] = {3, 1, 3};
    CHECK_OK(basalt_parquet_scan_select_row_groups(scan, groups, 3, &err), &err);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    basalt_status st = basalt_parquet_scan_read_all(scan, &b, &err);
    int64_t n = b.n, rows = n == 2 ? b.arrays[0].length + b.arrays[1].length : -1;
    struct basalt_parquet_scan_stats ss;
    basalt_parquet_scan_get_stats(scan, &ss);
    basalt_arrow_batches_reset(&b);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    CHECK_OK(st, &err);
    CHECK_EQ(n, 2);
    CHECK_EQ(rows, 20);
    CHECK_EQ(ss.row_groups_selected, 2);
    CHECK_EQ(ss.row_groups_read, 2);
}

TEST(reader_scan_encrypted_column)
{
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(basalt_parquet_reader_open_file(
                 corpus("encrypt_columns_plaintext_footer.parquet.encrypted"), NULL, &r, &err),
             &err);
    struct basalt_parquet_scan *scan = NULL;
    CHECK_OK(basalt_parquet_scan_new(r, NULL, &scan, &err), &err);
    basalt_parquet_scan_select_all(scan);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    basalt_status st = basalt_parquet_scan_read_all(scan, &b, &err);
    basalt_arrow_batches_reset(&b);
    /* The error sticks. */
    struct ArrowArray a;
    basalt_status again = basalt_parquet_scan_next(scan, &a, NULL);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    CHECK_STATUS(st, BASALT_UNSUPPORTED, &err);
    CHECK(strstr(err.message, "encrypt_columns_plaintext_footer.parquet.encrypted: row group 0: "
                              "column '") != NULL);
    /* float_field is the first of its encrypted columns (parquet-testing's
     * README: float_field and double_field have column keys). */
    CHECK(strstr(err.message, "column 'float_field': encrypted") != NULL);
    CHECK_EQ(again, BASALT_UNSUPPORTED);
    /* Its plaintext columns still read. */
    struct texts t;
    texts_init(&t);
    static const char *const cols[] = {"int32_field", NULL};
    struct read_spec spec = {.file = "encrypt_columns_plaintext_footer.parquet.encrypted",
                             .columns = cols, .batch_size = -1};
    st = read_text(&spec, &t.text, &t.lengths, NULL, &err);
    size_t lines = 0;
    for (const char *p = TXT(t); *p; p++)
        lines += *p == '\n';
    texts_reset(&t);
    CHECK_OK(st, &err);
    CHECK_EQ(lines, 50);
}

/* nation.dict-malformed.parquet: created_by "parquet-mr" without a version,
 * whose chunk sizes leave out the dictionary page header (PARQUET-816).
 * Rows as DuckDB 1.5.6 reads them (its JSON, base64 decoded). */
TEST(reader_scan_parquet_816_padding)
{
    struct basalt_error err;
    struct texts t;
    texts_init(&t);
    struct read_spec spec = {.file = "nation.dict-malformed.parquet", .batch_size = -1};
    basalt_status st = read_text(&spec, &t.text, &t.lengths, NULL, &err);
    const char *text = TXT(t);
    size_t lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    static const char row0[] =
        "[0,\"ALGERIA\",0,\" haggle. carefully final deposits detect slyly agai\"]\n";
    bool first = strncmp(text, row0, sizeof row0 - 1) == 0;
    bool last = strstr(text, "[24,\"UNITED STATES\",1,\"y final packages. slow foxes cajole "
                             "quickly. quickly silent platelets breach ironic accounts. "
                             "unusual pinto be\"]\n") != NULL;
    if (st == BASALT_OK && !(first && last))
        fprintf(stderr, "got:\n%s", text);
    texts_reset(&t);
    CHECK_OK(st, &err);
    CHECK_EQ(lines, 25);
    CHECK(first);
    CHECK(last);
}

/* dict-page-offset-zero.parquet: dictionary_page_offset 0 means no
 * dictionary page. DuckDB 1.5.6: 39 rows of l_partkey 1552. */
TEST(reader_scan_dictionary_offset_zero)
{
    struct basalt_error err;
    struct texts t;
    texts_init(&t);
    struct read_spec spec = {.file = "dict-page-offset-zero.parquet", .batch_size = -1};
    basalt_status st = read_text(&spec, &t.text, &t.lengths, NULL, &err);
    char want[39 * 7 + 1];
    for (int i = 0; i < 39; i++)
        memcpy(want + 7 * i, "[1552]\n", 7);
    want[39 * 7] = 0;
    bool same = st == BASALT_OK && strcmp(TXT(t), want) == 0;
    if (st == BASALT_OK && !same)
        fprintf(stderr, "got:\n%s", TXT(t));
    texts_reset(&t);
    CHECK_OK(st, &err);
    CHECK(same);
}

/* ARROW-17100.parquet, written by "parquet-cpp version 1.5.1-SNAPSHOT":
 * the scan treats its v2 pages as compressed whatever their flag says. */
TEST(reader_scan_v2_always_compressed_from_created_by)
{
    struct basalt_error err;
    char path[4096];
    snprintf(path, sizeof path, "%s",
             bt_testdata_path("parquet-extra/arrow-testing/ARROW-17100.parquet"));
    const char *others[] = {"alltypes_plain.parquet", "datapage_v2.snappy.parquet"};
    for (int i = 0; i < 3; i++) {
        struct basalt_parquet_reader *r = NULL;
        CHECK_OK(basalt_parquet_reader_open_file(i == 0 ? path : corpus(others[i - 1]), NULL, &r,
                                                 &err),
                 &err);
        struct basalt_parquet_scan *scan = NULL;
        CHECK_OK(basalt_parquet_scan_new(r, NULL, &scan, &err), &err);
        basalt_parquet_scan_select_all(scan);
        struct basalt_arrow_batches b;
        basalt_arrow_batches_init(&b);
        basalt_status st = basalt_parquet_scan_read_all(scan, &b, &err);
        bool always = scan->v2_always_compressed;
        int64_t rows = 0;
        for (int64_t k = 0; k < b.n; k++)
            rows += b.arrays[k].length;
        basalt_arrow_batches_reset(&b);
        basalt_parquet_scan_free(scan);
        basalt_parquet_reader_close(r);
        CHECK_OK(st, &err);
        CHECK_EQ(always, i == 0);
        CHECK(rows > 0);
    }
}

TEST(reader_scan_corrupt_checksum)
{
    struct basalt_error err;
    struct texts t;
    texts_init(&t);
    struct read_spec spec = {.file = "datapage_v1-corrupt-checksum.parquet", .batch_size = -1};
    basalt_status st = read_text(&spec, &t.text, &t.lengths, NULL, &err);
    texts_reset(&t);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "datapage_v1-corrupt-checksum.parquet: row group 0: column '") !=
          NULL);
    CHECK(strstr(err.message, "page ") != NULL);
}

/* large_string_map.brotli.parquet holds 2 x 1 GiB strings in one chunk:
 * the footer says so, and the key column reads as large_utf8. Only the
 * schema is looked at (reading would take gigabytes). */
TEST(reader_scan_large_offsets_decision)
{
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(basalt_parquet_reader_open_file(corpus("large_string_map.brotli.parquet"), NULL, &r,
                                             &err),
             &err);
    struct ArrowSchema s;
    basalt_status st = basalt_parquet_reader_schema(r, &s, &err);
    basalt_parquet_reader_close(r);
    CHECK_OK(st, &err);
    const struct ArrowSchema *entries = s.children[0]->children[0];
    bool large = strcmp(s.children[0]->format, "+m") == 0 &&
                 strcmp(entries->children[0]->format, "U") == 0 &&
                 strcmp(entries->children[1]->format, "i") == 0;
    basalt_arrow_schema_release(&s);
    CHECK(large);
}

/* The large_binary option: 64-bit offsets, the same values. */
TEST(reader_scan_large_binary_option)
{
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    CHECK_OK(basalt_parquet_reader_open_file(corpus("alltypes_plain.parquet"), NULL, &r, &err),
             &err);
    struct basalt_parquet_read_options o;
    basalt_parquet_read_options_init(&o);
    o.large_binary = true;
    struct basalt_parquet_scan *scan = NULL;
    CHECK_OK(basalt_parquet_scan_new(r, &o, &scan, &err), &err);
    basalt_parquet_scan_select_all(scan);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    basalt_status st = basalt_parquet_scan_read_all(scan, &b, &err);
    bool large = st == BASALT_OK && strcmp(b.schema.children[9]->format, "Z") == 0;
    if (st == BASALT_OK)
        st = basalt_arrow_array_validate(&b.schema, &b.arrays[0], BASALT_ARROW_VALIDATE_FULL, &err);
    struct basalt_buffer text;
    basalt_buffer_init(&text);
    if (st == BASALT_OK)
        pqr_text_batches(&b.schema, b.arrays, b.n, &text);
    basalt_buffer_append(&text, "", 1, NULL);
    bool same = strcmp((const char *)text.data, alltypes_plain) == 0;
    basalt_buffer_reset(&text);
    basalt_arrow_batches_reset(&b);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    CHECK_OK(st, &err);
    CHECK(large);
    CHECK(same);
}

/* ------------------------------------------------------------------ fault injection */

/* Reads int32_with_null_pages.parquet with IS NOT NULL (page pruning and
 * cutting) and nested_maps.snappy.parquet with a nested path, in batches of
 * 100 rows, through an input that may fail reads. */
struct sweep_ctx {
    const uint8_t *data[2];
    size_t len[2];
    int64_t fail_read;  /* the n-th read fails (0: none) */
    int64_t reads;
};

struct failing_input {
    struct basalt_input base;
    struct basalt_input *mem;
    struct sweep_ctx *ctx;
};

static basalt_status failing_read_at(struct basalt_input *in, uint64_t offset, uint64_t length,
                                     void *dst, struct basalt_error *err)
{
    struct failing_input *f = (struct failing_input *)(void *)in;
    if (f->ctx->fail_read > 0 && ++f->ctx->reads == f->ctx->fail_read)
        return basalt_error_set(err, BASALT_IO, "injected read failure");
    return basalt_input_read_at(f->mem, offset, length, dst, err);
}

static void failing_close(struct basalt_input *in)
{
    struct failing_input *f = (struct failing_input *)(void *)in;
    basalt_input_close(f->mem);
    basalt_free(f);
}

static const struct basalt_input_ops failing_ops = {.read_at = failing_read_at,
                                                    .close = failing_close};

static basalt_status read_one(struct sweep_ctx *c, int which, struct basalt_error *err)
{
    struct failing_input *f = basalt_calloc(1, sizeof *f);
    if (!f)
        return basalt_error_set(err, BASALT_NOMEM, "no memory");
    basalt_status st = basalt_input_open_memory(c->data[which], c->len[which], "sweep.parquet",
                                                &f->mem, err);
    if (st != BASALT_OK) {
        basalt_free(f);
        return st;
    }
    f->ctx = c;
    f->base.ops = &failing_ops;
    f->base.size = c->len[which];
    f->base.name = "sweep.parquet";
    struct basalt_parquet_reader *r = NULL;
    struct basalt_parquet_scan *scan = NULL;
    st = basalt_parquet_reader_open(&f->base, true, NULL, &r, err);
    struct basalt_parquet_read_options o;
    basalt_parquet_read_options_init(&o);
    o.batch_size = 100;
    if (st == BASALT_OK)
        st = basalt_parquet_scan_new(r, &o, &scan, err);
    if (st == BASALT_OK) {
        if (which == 0) {
            basalt_parquet_scan_select_all(scan);
            st = basalt_parquet_scan_filter(scan, "int32_field", BASALT_PARQUET_OP_IS_NOT_NULL,
                                            NULL, err);
        } else {
            st = basalt_parquet_scan_select_path(scan, "a.key_value.value", err);
        }
    }
    int64_t rows = 0;
    while (st == BASALT_OK) {
        struct ArrowArray a;
        st = basalt_parquet_scan_next(scan, &a, err);
        if (st != BASALT_OK || !a.release)
            break;
        rows += a.length;
        basalt_arrow_array_release(&a);
    }
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    if (st == BASALT_OK && rows != (which == 0 ? 900 : 6))
        st = basalt_error_set(err, BASALT_INTERNAL, "read %lld rows", (long long)rows);
    return st;
}

static basalt_status sweep_attempt(void *ctx)
{
    struct sweep_ctx *c = ctx;
    basalt_status st = read_one(c, 0, NULL);
    if (st == BASALT_OK)
        st = read_one(c, 1, NULL);
    return st;
}

TEST(reader_scan_alloc_sweep)
{
    struct sweep_ctx c;
    memset(&c, 0, sizeof c);
    c.data[0] = bt_read_file(corpus("int32_with_null_pages.parquet"), &c.len[0]);
    c.data[1] = bt_read_file(corpus("nested_maps.snappy.parquet"), &c.len[1]);
    bool loaded = c.data[0] && c.data[1];
    int64_t n = loaded ? bt_alloc_failure_sweep(__FILE__, __LINE__, sweep_attempt, &c) : -1;
    basalt_free((void *)(uintptr_t)c.data[0]);
    basalt_free((void *)(uintptr_t)c.data[1]);
    CHECK(loaded);
    CHECK(n > 10);
}

TEST(reader_scan_read_failures)
{
    struct sweep_ctx c;
    memset(&c, 0, sizeof c);
    c.data[0] = bt_read_file(corpus("int32_with_null_pages.parquet"), &c.len[0]);
    c.data[1] = bt_read_file(corpus("nested_maps.snappy.parquet"), &c.len[1]);
    bool loaded = c.data[0] && c.data[1];
    bool ok = loaded;
    int64_t n = 1;
    for (; ok && n < 1000; n++) {
        for (int which = 0; which < 2 && ok; which++) {
            struct basalt_error err;
            basalt_error_init(&err);
            c.fail_read = n;
            c.reads = 0;
            basalt_status st = read_one(&c, which, &err);
            if (st == BASALT_OK && c.reads < n && which == 1)
                goto done; /* both files read with fewer reads than n */
            if (st != BASALT_OK && (st != BASALT_IO || !strstr(err.message, "sweep.parquet: "))) {
                fprintf(stderr, "read %lld of file %d: %s %s\n", (long long)n, which,
                        basalt_status_name(st), err.message);
                ok = false;
            }
        }
    }
done:
    basalt_free((void *)(uintptr_t)c.data[0]);
    basalt_free((void *)(uintptr_t)c.data[1]);
    CHECK(ok);
    CHECK(n > 3 && n < 1000);
}

/* blogs.parquet carries field ids: reply = 1 { reply_id = 1, next_id = 2 },
 * blog_id = 2. Id 2 selects a nested field and a top-level one. Values as
 * DuckDB reads the first row: reply {reply_id 332770973, next_id NULL},
 * blog_id -1473106667809783919. */
TEST(reader_scan_field_id)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/arrow-testing/generated_simple_numerics/blogs.parquet",
             bt_testdata_path("parquet-extra"));
    const int32_t ids[] = {2, 1};
    const char *want[] = {"[{next_id:null},-1473106667809783919]",
                          "[{reply_id:332770973,next_id:null}]"};
    for (int k = 0; k < 2; k++) {
        struct basalt_error err;
        struct basalt_parquet_reader *r = NULL;
        CHECK_OK(basalt_parquet_reader_open_file(path, NULL, &r, &err), &err);
        struct basalt_parquet_scan *scan = NULL;
        CHECK_OK(basalt_parquet_scan_new(r, NULL, &scan, &err), &err);
        basalt_status st = basalt_parquet_scan_select_field_id(scan, ids[k], &err);
        struct ArrowSchema s;
        s.release = NULL;
        struct ArrowArray a;
        a.release = NULL;
        if (st == BASALT_OK)
            st = basalt_parquet_scan_schema(scan, &s, &err);
        if (st == BASALT_OK)
            st = basalt_parquet_scan_next(scan, &a, &err);
        struct basalt_buffer text;
        basalt_buffer_init(&text);
        if (st == BASALT_OK && a.release)
            pqr_text_row(&s, &a, 0, &text);
        basalt_buffer_append(&text, "", 1, NULL);
        bool same = strcmp((const char *)text.data, want[k]) == 0;
        if (!same)
            fprintf(stderr, "id %d: got %s\n", (int)ids[k], (const char *)text.data);
        basalt_buffer_reset(&text);
        basalt_arrow_array_release(&a);
        basalt_arrow_schema_release(&s);
        basalt_parquet_scan_free(scan);
        basalt_parquet_reader_close(r);
        CHECK_OK(st, &err);
        CHECK(same);
    }
}

/* Bytes flipped anywhere in small files (footer, pages, page index), each
 * file then read whole, with a filter so that the page index is used: only
 * clean statuses, nothing leaked (ASan builds also check the accesses). */
static basalt_status read_bytes(const uint8_t *data, size_t len, const char *filter,
                                struct basalt_error *err)
{
    struct basalt_input *in = NULL;
    basalt_status st = basalt_input_open_memory(data, len, "flip.parquet", &in, err);
    struct basalt_parquet_reader *r = NULL;
    if (st == BASALT_OK)
        st = basalt_parquet_reader_open(in, true, NULL, &r, err);
    struct basalt_parquet_scan *scan = NULL;
    if (st == BASALT_OK)
        st = basalt_parquet_scan_new(r, NULL, &scan, err);
    if (st == BASALT_OK) {
        basalt_parquet_scan_select_all(scan);
        if (filter)
            st = basalt_parquet_scan_filter(scan, filter, BASALT_PARQUET_OP_IS_NOT_NULL, NULL, err);
    }
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_read_all(scan, &b, err);
    for (int64_t i = 0; st == BASALT_OK && i < b.n; i++)
        st = basalt_arrow_array_validate(&b.schema, &b.arrays[i], BASALT_ARROW_VALIDATE_FULL, err);
    basalt_arrow_batches_reset(&b);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    return st;
}

TEST(reader_scan_bit_flips)
{
    static const struct {
        const char *file, *filter;
    } files[] = {{"alltypes_plain.parquet", NULL},
                 {"nested_maps.snappy.parquet", NULL},
                 {"int32_with_null_pages.parquet", "int32_field"},
                 {"data_index_bloom_encoding_stats.parquet", "String"}};
    struct bt_rng rng;
    bt_rng_seed(&rng, 2024);
    int outcomes[8] = {0};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t len = 0;
        uint8_t *data = bt_read_file(corpus(files[f].file), &len);
        CHECK(data != NULL);
        struct basalt_error err;
        basalt_status st = read_bytes(data, len, files[f].filter, &err);
        if (st != BASALT_OK)
            basalt_free(data);
        CHECK_OK(st, &err);
        for (int i = 0; i < 300; i++) {
            size_t pos = bt_rng_below(&rng, len);
            uint8_t old = data[pos];
            data[pos] ^= (uint8_t)(1u + bt_rng_below(&rng, 255));
            st = read_bytes(data, len, files[f].filter, &err);
            data[pos] = old;
            outcomes[st < 8 ? st : 7]++;
            bool clean = st == BASALT_OK || st == BASALT_CORRUPT || st == BASALT_UNSUPPORTED ||
                         st == BASALT_LIMIT;
            if (!clean) {
                basalt_free(data);
                CHECK_MSG(false, "%s: byte %zu: %s %s", files[f].file, pos,
                          basalt_status_name(st), err.message);
            }
        }
        basalt_free(data);
    }
    /* Most flips land in values and read back, some break structure. */
    CHECK(outcomes[BASALT_OK] > 100);
    CHECK(outcomes[BASALT_CORRUPT] > 50);
}
