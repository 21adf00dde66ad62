/* Worker-count and batch-size invariance of whole-file reads: every
 * combination of num_workers (no pool, and pools giving 1, 2, 4, 8-way
 * parallelism) and batch size must yield the same rows, byte for byte. Rows
 * are rendered by a printer local to this file (raw value bytes in hex,
 * offsets followed, validity respected) so that a difference in any buffer
 * an Arrow consumer can see shows up as a difference in text. */
#include <stdlib.h>

#include "basalt/parquet.h"
#include "test.h"

/* A growing NUL-terminated string; `failed` sticks once set. */
struct text {
    char *data;
    size_t len, cap;
    bool failed;
    char why[128];
};

static void text_put(struct text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (t->len + n + 1 > cap)
            cap *= 2;
        char *p = basalt_realloc(t->data, cap);
        if (!p) {
            t->failed = true;
            snprintf(t->why, sizeof t->why, "out of memory");
            return;
        }
        t->data = p;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
}

static void text_str(struct text *t, const char *s) { text_put(t, s, strlen(s)); }

static void text_hex(struct text *t, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    char buf[64];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        buf[k++] = digits[p[i] >> 4];
        buf[k++] = digits[p[i] & 15];
        if (k == sizeof buf) {
            text_put(t, buf, k);
            k = 0;
        }
    }
    text_put(t, buf, k);
}

static void text_fail(struct text *t, const char *what, const char *format)
{
    if (!t->failed)
        snprintf(t->why, sizeof t->why, "%s: format '%s'", what, format);
    t->failed = true;
}

static bool bit(const void *bits, int64_t i)
{
    return (((const uint8_t *)bits)[i >> 3] >> (i & 7)) & 1;
}

/* Bytes per value of a fixed-width format, 0 if it is not one. */
static size_t fixed_width(const char *f)
{
    switch (f[0]) {
    case 'c': case 'C': return 1;
    case 's': case 'S': case 'e': return 2;
    case 'i': case 'I': case 'f': return 4;
    case 'l': case 'L': case 'g': return 8;
    case 'w': return f[1] == ':' ? (size_t)strtoul(f + 2, NULL, 10) : 0;
    case 'd': {
        const char *c = strchr(f, ',');
        const char *c2 = c ? strchr(c + 1, ',') : NULL;
        return c2 ? (size_t)strtoul(c2 + 1, NULL, 10) / 8 : 16;
    }
    case 't':
        if (f[1] == 'd')
            return f[2] == 'D' ? 4 : 8;
        if (f[1] == 't')
            return (f[2] == 's' || f[2] == 'm') ? 4 : 8;
        if (f[1] == 's' || f[1] == 'D')
            return 8;
        return 0;
    default: return 0;
    }
}

static int64_t offset_at(const void *offsets, bool large, int64_t i)
{
    return large ? ((const int64_t *)offsets)[i] : ((const int32_t *)offsets)[i];
}

/* Renders the value at logical index `i` of `a` (format of `s`). */
static void render(struct text *t, const struct ArrowSchema *s, const struct ArrowArray *a,
                   int64_t i)
{
    if (t->failed)
        return;
    if (i < 0 || i >= a->length) {
        text_fail(t, "index out of range", s->format);
        return;
    }
    int64_t p = a->offset + i;
    const char *f = s->format;
    if (f[0] == 'n') {
        text_str(t, "N");
        return;
    }
    if (a->null_count != 0 && a->n_buffers > 0 && a->buffers[0] && !bit(a->buffers[0], p)) {
        text_str(t, "N");
        return;
    }
    if (s->dictionary) {
        size_t w = fixed_width(f);
        const uint8_t *idx = (const uint8_t *)a->buffers[1] + (size_t)p * w;
        int64_t k = w == 1 ? *(const int8_t *)idx
                  : w == 2 ? *(const int16_t *)(const void *)idx
                  : w == 4 ? *(const int32_t *)(const void *)idx
                           : *(const int64_t *)(const void *)idx;
        if (!a->dictionary) {
            text_fail(t, "dictionary array missing", f);
            return;
        }
        render(t, s->dictionary, a->dictionary, k);
        return;
    }
    if (strcmp(f, "b") == 0) {
        text_str(t, bit(a->buffers[1], p) ? "1" : "0");
        return;
    }
    size_t w = fixed_width(f);
    if (w) {
        text_hex(t, (const uint8_t *)a->buffers[1] + (size_t)p * w, w);
        return;
    }
    if (strcmp(f, "u") == 0 || strcmp(f, "z") == 0 || strcmp(f, "U") == 0 ||
        strcmp(f, "Z") == 0) {
        bool large = f[0] == 'U' || f[0] == 'Z';
        int64_t lo = offset_at(a->buffers[1], large, p);
        int64_t hi = offset_at(a->buffers[1], large, p + 1);
        if (hi < lo) {
            text_fail(t, "decreasing offsets", f);
            return;
        }
        text_str(t, "'");
        text_hex(t, (const uint8_t *)a->buffers[2] + lo, (size_t)(hi - lo));
        text_str(t, "'");
        return;
    }
    if (strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0 || strcmp(f, "+m") == 0) {
        bool large = f[1] == 'L';
        int64_t lo = offset_at(a->buffers[1], large, p);
        int64_t hi = offset_at(a->buffers[1], large, p + 1);
        text_str(t, "[");
        for (int64_t j = lo; j < hi && !t->failed; j++) {
            if (j > lo)
                text_str(t, ",");
            render(t, s->children[0], a->children[0], j);
        }
        text_str(t, "]");
        return;
    }
    if (strncmp(f, "+w:", 3) == 0) {
        int64_t n = strtol(f + 3, NULL, 10);
        text_str(t, "[");
        for (int64_t j = p * n; j < (p + 1) * n && !t->failed; j++) {
            if (j > p * n)
                text_str(t, ",");
            render(t, s->children[0], a->children[0], j);
        }
        text_str(t, "]");
        return;
    }
    if (strcmp(f, "+s") == 0) {
        if (a->n_children != s->n_children) {
            text_fail(t, "child count differs from the schema", f);
            return;
        }
        text_str(t, "{");
        for (int64_t c = 0; c < s->n_children && !t->failed; c++) {
            if (c)
                text_str(t, ",");
            render(t, s->children[c], a->children[c], p);
        }
        text_str(t, "}");
        return;
    }
    text_fail(t, "no rendering", f);
}

struct result {
    struct text text;
    int64_t rows;
    int64_t batches;
    int64_t max_batch; /* longest batch */
    char schema[256];  /* top-level formats, to compare schemas too */
};

static void result_reset(struct result *r) { basalt_free(r->text.data); }

static const char *corpus(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", bt_testdata_path("parquet-testing/data"), name);
    return path;
}

/* Reads the whole of `file` with `workers`-way parallelism (0: no pool)
 * and `batch_size`, rendering every row as one line. */
static basalt_status read_rows(const char *file, int workers, int64_t batch_size,
                               struct result *res, int64_t *footer_rows, struct basalt_error *err)
{
    memset(res, 0, sizeof *res);
    struct basalt_parquet_reader *r = NULL;
    struct basalt_pool *pool = NULL;
    struct basalt_parquet_scan *scan = NULL;
    struct ArrowSchema schema = { 0 };
    basalt_status st = basalt_parquet_reader_open_file(corpus(file), NULL, &r, err);
    if (st == BASALT_OK) {
        *footer_rows = basalt_parquet_reader_num_rows(r);
        if (workers > 0)
            st = basalt_pool_new(workers - 1, &pool, err);
    }
    struct basalt_parquet_read_options o;
    basalt_parquet_read_options_init(&o);
    o.batch_size = batch_size;
    o.pool = pool;
    o.num_workers = workers;
    if (st == BASALT_OK)
        st = basalt_parquet_scan_new(r, &o, &scan, err);
    if (st == BASALT_OK) {
        basalt_parquet_scan_select_all(scan);
        st = basalt_parquet_scan_schema(scan, &schema, err);
    }
    if (st == BASALT_OK) {
        for (int64_t c = 0; c < schema.n_children; c++) {
            size_t used = strlen(res->schema);
            snprintf(res->schema + used, sizeof res->schema - used, "%s;",
                     schema.children[c]->format);
        }
    }
    while (st == BASALT_OK) {
        struct ArrowArray a;
        st = basalt_parquet_scan_next(scan, &a, err);
        if (st != BASALT_OK || !a.release)
            break;
        res->batches++;
        res->rows += a.length;
        if (a.length > res->max_batch)
            res->max_batch = a.length;
        for (int64_t i = 0; i < a.length; i++) {
            render(&res->text, &schema, &a, i);
            text_str(&res->text, "\n");
        }
        a.release(&a);
    }
    if (schema.release)
        schema.release(&schema);
    basalt_parquet_scan_free(scan);
    basalt_pool_free(pool);
    basalt_parquet_reader_close(r);
    return st;
}

/* Row counts as DuckDB's parquet_file_metadata reports them. */
static const struct {
    const char *file;
    int64_t rows;
} files[] = {
    { "alltypes_plain.parquet", 8 },
    { "alltypes_tiny_pages.parquet", 7300 },
    { "nested_lists.snappy.parquet", 3 },
    { "nested_maps.snappy.parquet", 6 },
    { "nested_structs.rust.parquet", 1 },
    { "datapage_v2.snappy.parquet", 5 },
};

static const int worker_counts[] = { 0, 1, 2, 4, 8 };
static const int64_t batch_sizes[] = { 1, 7, 1024, 65536 };

static size_t count_lines(const struct text *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->len; i++)
        n += t->data[i] == '\n';
    return n;
}

TEST(parquet_invariance_workers_and_batch_sizes)
{
    struct basalt_error err;
    for (size_t fi = 0; fi < sizeof files / sizeof files[0]; fi++) {
        const char *file = files[fi].file;
        struct result base;
        int64_t footer = -1;
        CHECK_OK(read_rows(file, 0, 65536, &base, &footer, &err), &err);
        CHECK_MSG(!base.text.failed, "%s: %s", file, base.text.why);
        CHECK_MSG(footer == files[fi].rows, "%s: footer says %" PRId64 " rows, expected %" PRId64,
                  file, footer, files[fi].rows);
        CHECK_MSG(base.rows == footer, "%s: read %" PRId64 " rows, footer says %" PRId64, file,
                  base.rows, footer);
        CHECK_MSG((int64_t)count_lines(&base.text) == footer, "%s: rendered %zu rows", file,
                  count_lines(&base.text));
        for (size_t wi = 0; wi < sizeof worker_counts / sizeof worker_counts[0]; wi++) {
            for (size_t bi = 0; bi < sizeof batch_sizes / sizeof batch_sizes[0]; bi++) {
                int workers = worker_counts[wi];
                int64_t bs = batch_sizes[bi];
                struct result got;
                int64_t rows = -1;
                basalt_status st = read_rows(file, workers, bs, &got, &rows, &err);
                bool same = st == BASALT_OK && !got.text.failed && got.rows == base.rows &&
                            got.text.len == base.text.len &&
                            memcmp(got.text.data, base.text.data, base.text.len) == 0 &&
                            strcmp(got.schema, base.schema) == 0;
                bool batches_ok = got.max_batch <= bs &&
                                  (bs != 1 || got.batches == got.rows);
                size_t at = 0;
                while (!same && at < got.text.len && at < base.text.len &&
                       got.text.data[at] == base.text.data[at])
                    at++;
                result_reset(&got);
                if (!same || !batches_ok)
                    result_reset(&base);
                CHECK_MSG(st == BASALT_OK, "%s workers %d batch %" PRId64 ": %s: %s", file,
                          workers, bs, basalt_status_name(st), bt_error_text(&err));
                CHECK_MSG(same, "%s workers %d batch %" PRId64 ": rows differ from no pool, "
                          "batch 65536 (first difference at byte %zu of the rendering)",
                          file, workers, bs, at);
                CHECK_MSG(batches_ok, "%s workers %d batch %" PRId64 ": a batch is too long",
                          file, workers, bs);
            }
        }
        result_reset(&base);
    }
}

/* The printer itself must see differences: a value changed in one buffer
 * changes the text (so identical texts above mean identical values). */
TEST(parquet_invariance_printer_sees_changes)
{
    int32_t values[3] = { 1, 2, 3 };
    uint8_t validity = 0x07;
    const void *buffers[2] = { &validity, values };
    struct ArrowSchema s = { .format = "i" };
    struct ArrowArray a = { .length = 3, .null_count = 0, .n_buffers = 2, .buffers = buffers };
    struct text t1 = { 0 }, t2 = { 0 }, t3 = { 0 };
    for (int64_t i = 0; i < 3; i++)
        render(&t1, &s, &a, i);
    values[1] = 5;
    for (int64_t i = 0; i < 3; i++)
        render(&t2, &s, &a, i);
    validity = 0x05;
    a.null_count = 1;
    for (int64_t i = 0; i < 3; i++)
        render(&t3, &s, &a, i);
    bool ok = !t1.failed && !t2.failed && !t3.failed;
    bool differ12 = ok && strcmp(t1.data, t2.data) != 0;
    bool expected3 = ok && strcmp(t3.data, "01000000N03000000") == 0;
    basalt_free(t1.data);
    basalt_free(t2.data);
    basalt_free(t3.data);
    CHECK(ok);
    CHECK(differ12);
    CHECK(expected3);
}
