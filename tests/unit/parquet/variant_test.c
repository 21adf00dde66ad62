/* VARIANT: the binary encoding (metadata, values, validation, JSON text)
 * against parquet-testing's variant/ examples, and reading shredded and
 * unshredded columns against every case of shredded_variant/cases.json.
 *
 * The oracles are the corpus files: the expected .variant.bin of each case
 * (written by Iceberg's reader) and data_dictionary.json (Spark's rendering
 * of each example). Reassembled values are compared two ways:
 *   - semantically, by an evaluator written here independently of the
 *     library: same kinds, same primitive type ids and bytes (a short
 *     string equal to a long string, as the specification says they are),
 *     objects by field name whatever the dictionary ids, arrays in order.
 *     This is what the specification requires: it lets a writer choose its
 *     dictionary, offset and id widths and the order of object values.
 *   - byte for byte: Iceberg writes the canonical form (fields sorted,
 *     values in field order, the smallest widths), which is what the reader
 *     builds too; a byte difference with equal values would be a change of
 *     encoding choice, reported separately from a wrong value. */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "basalt/parquet.h"
#include "basalt/parquet_variant.h"
#include "test.h"

/* ------------------------------------------------------------------ an independent evaluator */

struct vm {
    const uint8_t *p;
    size_t len;
    int osz;
    uint32_t n;
};

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static bool vm_parse(const uint8_t *p, size_t len, struct vm *m, size_t *used)
{
    if (len < 2 || (p[0] & 15) != 1)
        return false;
    m->p = p;
    m->osz = ((p[0] >> 6) & 3) + 1;
    m->n = (uint32_t)le(p + 1, m->osz);
    size_t head = 1 + (size_t)m->osz * (m->n + 2);
    if (head > len)
        return false;
    size_t bytes = (size_t)le(p + 1 + (size_t)m->osz * (m->n + 1), m->osz);
    if (head + bytes > len)
        return false;
    m->len = head + bytes;
    if (used)
        *used = m->len;
    return true;
}

static bool vm_name(const struct vm *m, uint64_t id, const uint8_t **s, size_t *n)
{
    if (id >= m->n)
        return false;
    const uint8_t *offs = m->p + 1 + m->osz;
    size_t b = (size_t)le(offs + id * m->osz, m->osz), e = (size_t)le(offs + (id + 1) * m->osz, m->osz);
    *s = m->p + 1 + (size_t)m->osz * (m->n + 2) + b;
    *n = e - b;
    return true;
}

/* A decoded node: kind 0 primitive (type, data, n), 1 string, 2 object, 3 array. */
struct vv {
    int kind;
    int type;
    const uint8_t *data;
    size_t n;
    /* objects and arrays */
    uint64_t count;
    const uint8_t *ids, *offs, *fields;
    int isz, osz;
    size_t fields_len;
};

static bool vv_read(const uint8_t *p, size_t len, struct vv *v)
{
    static const int sizes[] = {0, 0, 0, 1, 2, 4, 8, 8, 5, 9, 17, 4, 8, 8, 4, -1, -1, 8, 8, 8, 16};
    memset(v, 0, sizeof *v);
    if (len < 1)
        return false;
    int basic = p[0] & 3, h = p[0] >> 2;
    if (basic == 0) {
        if (h > 20)
            return false;
        v->type = h;
        if (sizes[h] >= 0) {
            if ((size_t)sizes[h] + 1 > len)
                return false;
            v->data = p + 1;
            v->n = (size_t)sizes[h];
            return true;
        }
        if (len < 5 || le(p + 1, 4) > len - 5)
            return false;
        v->data = p + 5;
        v->n = (size_t)le(p + 1, 4);
        if (h == 16)
            v->kind = 1; /* a string, like a short string */
        return true;
    }
    if (basic == 1) {
        if ((size_t)h + 1 > len)
            return false;
        v->kind = 1;
        v->data = p + 1;
        v->n = (size_t)h;
        return true;
    }
    v->kind = basic;
    v->osz = (h & 3) + 1;
    v->isz = basic == 2 ? ((h >> 2) & 3) + 1 : 0;
    bool large = basic == 2 ? (h >> 4) & 1 : (h >> 2) & 1;
    size_t cs = large ? 4 : 1;
    if (len < 1 + cs)
        return false;
    v->count = le(p + 1, (int)cs);
    size_t head = 1 + cs + (size_t)v->count * (size_t)v->isz + (size_t)(v->count + 1) * (size_t)v->osz;
    if (head > len)
        return false;
    v->ids = p + 1 + cs;
    v->offs = v->ids + v->count * v->isz;
    v->fields = p + head;
    v->fields_len = (size_t)le(v->offs + v->count * v->osz, v->osz);
    return v->fields_len <= len - head;
}

static bool vv_equal(const struct vm *ma, const uint8_t *a, size_t alen, const struct vm *mb,
                     const uint8_t *b, size_t blen, int depth)
{
    struct vv x, y;
    if (depth > 64 || !vv_read(a, alen, &x) || !vv_read(b, blen, &y) || x.kind != y.kind)
        return false;
    switch (x.kind) {
    case 0:
        return x.type == y.type && x.n == y.n && memcmp(x.data, y.data, x.n) == 0;
    case 1:
        return x.n == y.n && memcmp(x.data, y.data, x.n) == 0;
    case 3:
        if (x.count != y.count)
            return false;
        for (uint64_t i = 0; i < x.count; i++) {
            size_t ox = (size_t)le(x.offs + i * x.osz, x.osz), oy = (size_t)le(y.offs + i * y.osz, y.osz);
            if (ox >= x.fields_len || oy >= y.fields_len ||
                !vv_equal(ma, x.fields + ox, x.fields_len - ox, mb, y.fields + oy,
                          y.fields_len - oy, depth + 1))
                return false;
        }
        return true;
    default:
        if (x.count != y.count)
            return false;
        for (uint64_t i = 0; i < x.count; i++) {
            const uint8_t *na, *nb;
            size_t la, lb;
            if (!vm_name(ma, le(x.ids + i * x.isz, x.isz), &na, &la))
                return false;
            bool found = false;
            for (uint64_t k = 0; k < y.count && !found; k++) {
                if (!vm_name(mb, le(y.ids + k * y.isz, y.isz), &nb, &lb))
                    return false;
                if (la != lb || memcmp(na, nb, la) != 0)
                    continue;
                found = true;
                size_t ox = (size_t)le(x.offs + i * x.osz, x.osz);
                size_t oy = (size_t)le(y.offs + k * y.osz, y.osz);
                if (ox >= x.fields_len || oy >= y.fields_len ||
                    !vv_equal(ma, x.fields + ox, x.fields_len - ox, mb, y.fields + oy,
                              y.fields_len - oy, depth + 1))
                    return false;
            }
            if (!found)
                return false;
        }
        return true;
    }
}

/* ------------------------------------------------------------------ reading a case */

static const char *shredded(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", bt_testdata_path("parquet-testing/shredded_variant"),
             name);
    return path;
}

/* Reads every batch of `file` with `threads` pool workers. */
static basalt_status read_file(const char *file, int threads, struct basalt_arrow_batches *out,
                               struct basalt_error *err)
{
    struct basalt_parquet_reader *r = NULL;
    struct basalt_parquet_scan *scan = NULL;
    struct basalt_pool *pool = NULL;
    basalt_status st = basalt_parquet_reader_open_file(file, NULL, &r, err);
    struct basalt_parquet_read_options o;
    basalt_parquet_read_options_init(&o);
    if (st == BASALT_OK && threads > 0)
        st = basalt_pool_new(threads, &pool, err);
    o.pool = pool;
    if (st == BASALT_OK)
        st = basalt_parquet_scan_new(r, &o, &scan, err);
    if (st == BASALT_OK) {
        basalt_parquet_scan_select_all(scan);
        st = basalt_parquet_scan_read_all(scan, out, err);
    }
    for (int64_t b = 0; st == BASALT_OK && b < out->n; b++)
        st = basalt_arrow_array_validate(&out->schema, &out->arrays[b], BASALT_ARROW_VALIDATE_FULL,
                                         err);
    basalt_parquet_scan_free(scan);
    basalt_pool_free(pool);
    basalt_parquet_reader_close(r);
    return st;
}

static bool bin_at(const struct ArrowArray *a, int64_t i, const uint8_t **p, size_t *n)
{
    const int32_t *o = a->buffers[1];
    int64_t j = a->offset + i;
    if (a->buffers[0] && !basalt_bitmap_get(a->buffers[0], j))
        return false;
    *p = (const uint8_t *)a->buffers[2] + o[j];
    *n = (size_t)(o[j + 1] - o[j]);
    return true;
}

static bool is_extension(const struct ArrowSchema *s, const char *name)
{
    const char *v;
    size_t n;
    return basalt_arrow_metadata_get(s->metadata, "ARROW:extension:name", &v, &n, NULL) ==
               BASALT_OK &&
           n == strlen(name) && memcmp(v, name, n) == 0;
}

static bool contains_ci(const char *hay, const char *needle, size_t n)
{
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < n && hay[k] && tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == n)
            return true;
    }
    return false;
}

struct case_totals {
    int cases, rows, byte_equal, errors, invalid_read;
};

/* One case of cases.json; returns false after reporting a failure. */
static bool check_case(json_t *c, int threads, struct case_totals *t)
{
    int number = (int)json_integer_value(json_object_get(c, "case_number"));
    json_t *file = json_object_get(c, "parquet_file");
    json_t *error = json_object_get(c, "error_message");
    if (!json_is_string(file))
        return true; /* case 3 names no file */
    const char *name = json_string_value(file);
    bool invalid = strstr(name, "INVALID") != NULL;
    /* The expected variant of every row: a file name or null. */
    const char *single[1] = {NULL};
    json_t *many = json_object_get(c, "variant_files");
    size_t n_rows = 0;
    if (json_is_array(many)) {
        n_rows = json_array_size(many);
    } else if (json_is_string(json_object_get(c, "variant_file"))) {
        single[0] = json_string_value(json_object_get(c, "variant_file"));
        n_rows = 1;
    }
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = read_file(shredded(name), threads, &b, &err);
    bool ok = true;
    t->cases++;
    if (json_is_string(error)) {
        /* Must fail cleanly, for the reason Iceberg gives (its text up to
         * the first ':'). */
        const char *why = json_string_value(error);
        const char *colon = strchr(why, ':');
        size_t len = colon ? (size_t)(colon - why) : strlen(why);
        if ((st != BASALT_CORRUPT && st != BASALT_UNSUPPORTED) ||
            !contains_ci(err.message, why, len)) {
            bt_fail(__FILE__, __LINE__, "case %d: expected an error '%s', got %s: %s", number,
                    why, basalt_status_name(st), err.message);
            ok = false;
        }
        t->errors++;
        basalt_arrow_batches_reset(&b);
        return ok;
    }
    if (st != BASALT_OK) {
        /* The INVALID cases may be refused, nothing else. */
        if (!invalid || st != BASALT_CORRUPT) {
            bt_fail(__FILE__, __LINE__, "case %d (%s): %s: %s", number, name,
                    basalt_status_name(st), err.message);
            ok = false;
        }
        basalt_arrow_batches_reset(&b);
        return ok;
    }
    if (invalid)
        t->invalid_read++;
    const struct ArrowSchema *var = b.schema.n_children == 2 ? b.schema.children[1] : NULL;
    if (!var || strcmp(var->name, "var") != 0 || strcmp(var->format, "+s") != 0 ||
        !is_extension(var, "parquet.variant") || var->n_children != 2 ||
        strcmp(var->children[0]->name, "metadata") != 0 ||
        strcmp(var->children[1]->name, "value") != 0) {
        bt_fail(__FILE__, __LINE__, "case %d: not a parquet.variant column", number);
        basalt_arrow_batches_reset(&b);
        return false;
    }
    size_t row = 0;
    for (int64_t k = 0; k < b.n && ok; k++) {
        const struct ArrowArray *a = b.arrays[k].children[1];
        for (int64_t i = 0; i < a->length && ok; i++, row++) {
            const char *expected = NULL;
            if (row < n_rows)
                expected = json_is_array(many) ? json_string_value(json_array_get(many, row))
                                               : single[0];
            bool is_null = a->buffers[0] && !basalt_bitmap_get(a->buffers[0], a->offset + i);
            if (row >= n_rows || (expected == NULL) != is_null) {
                bt_fail(__FILE__, __LINE__, "case %d row %zu: %s where %s was expected", number,
                        row, is_null ? "null" : "a value", expected ? expected : "null");
                ok = false;
                break;
            }
            t->rows++;
            if (!expected)
                continue;
            size_t len;
            uint8_t *want = bt_read_file(shredded(expected), &len);
            const uint8_t *m, *v;
            size_t mn, vn, used;
            struct vm mw, mg;
            if (!want || !vm_parse(want, len, &mw, &used) ||
                !bin_at(a->children[0], i, &m, &mn) || !bin_at(a->children[1], i, &v, &vn) ||
                !vm_parse(m, mn, &mg, NULL)) {
                bt_fail(__FILE__, __LINE__, "case %d row %zu: unreadable", number, row);
                ok = false;
            } else if (!vv_equal(&mw, want + used, len - used, &mg, v, vn, 0)) {
                bt_fail(__FILE__, __LINE__, "case %d row %zu: the value differs from %s", number,
                        row, expected);
                ok = false;
            } else if (mn + vn == len && memcmp(want, m, mn) == 0 &&
                       memcmp(want + mn, v, vn) == 0) {
                t->byte_equal++;
            }
            basalt_free(want);
        }
    }
    if (ok && row != n_rows) {
        bt_fail(__FILE__, __LINE__, "case %d: %zu rows, %zu expected", number, row, n_rows);
        ok = false;
    }
    basalt_arrow_batches_reset(&b);
    return ok;
}

static void run_cases(int threads, int *failures, struct case_totals *t)
{
    size_t len;
    uint8_t *text = bt_read_file(shredded("cases.json"), &len);
    json_error_t jerr;
    json_t *cases = text ? json_loadb((const char *)text, len, 0, &jerr) : NULL;
    basalt_free(text);
    if (!json_is_array(cases)) {
        bt_fail(__FILE__, __LINE__, "cases.json unreadable");
        (*failures)++;
        json_decref(cases);
        return;
    }
    for (size_t i = 0; i < json_array_size(cases); i++)
        if (!check_case(json_array_get(cases, i), threads, t))
            (*failures)++;
    json_decref(cases);
}

TEST(variant_shredded_cases)
{
    int failures = 0;
    struct case_totals t = {0};
    run_cases(0, &failures, &t);
    CHECK_EQ(failures, 0);
    /* 137 files: 6 must fail; the other 131 hold 138 rows (cases 45, 83
     * and 126 have 4, 4 and 2), one of them a null variant. */
    CHECK_EQ(t.cases, 137);
    CHECK_EQ(t.errors, 6);
    CHECK_EQ(t.rows, 138);
    CHECK_EQ(t.invalid_read, 3);
    /* Every value, byte for byte too (see the top). */
    fprintf(stderr, "  %d of %d values equal byte for byte\n", t.byte_equal, t.rows - 1);
    CHECK_EQ(t.byte_equal, 137);
}

TEST(variant_shredded_cases_threads)
{
    int failures = 0;
    struct case_totals t = {0};
    run_cases(3, &failures, &t);
    CHECK_EQ(failures, 0);
    CHECK_EQ(t.rows, 138);
}

/* ------------------------------------------------------------------ variant/ examples */

static uint8_t *example(const char *name, const char *ext, size_t *len)
{
    char rel[256];
    snprintf(rel, sizeof rel, "parquet-testing/variant/%s.%s", name, ext);
    return bt_read_file(bt_testdata_path(rel), len);
}

/* Spark's renderings of times and timestamps, the one value per example
 * that reads differently, as the instant or wall-clock time they name in
 * the library's form: a Z for UTC-adjusted timestamps, fractions at the
 * type's precision (CORPUS_NOTES.md: primitive_time "12:33:54:123456" is
 * 45234123456 us). */
static const struct {
    const char *name, *json;
} renderings[] = {
    {"primitive_time", "\"12:33:54.123456\""},
    /* "2025-04-16 12:34:56.78-04:00" */
    {"primitive_timestamp", "\"2025-04-16T16:34:56.780000Z\""},
    {"primitive_timestampntz", "\"2025-04-16T12:34:56.780000\""},
    /* "2024-11-07T12:33:54.123456789+00:00" */
    {"primitive_timestamp_nanos", "\"2024-11-07T12:33:54.123456789Z\""},
    {"primitive_timestampntz_nanos", "\"2024-11-07T12:33:54.123456789\""},
    /* not in the dictionary: CORPUS_NOTES.md */
    {"long_string", "\"This string is for sure and certainly longer than 64 bytes and it also "
                    "includes several non ascii characters such as \\ud83d\\udc22, "
                    "\\ud83d\\udc96, \\u2665\\ufe0f, \\ud83c\\udfa3 and \\ud83e\\udd26!!\""},
};

/* Equal JSON values; numbers within a float's precision when either is
 * not an integer (the dictionary shows a float32 and decimals as doubles). */
static bool json_same(json_t *a, json_t *b)
{
    if (json_is_number(a) && json_is_number(b)) {
        if (json_is_integer(a) && json_is_integer(b))
            return json_integer_value(a) == json_integer_value(b);
        double x = json_number_value(a), y = json_number_value(b);
        return fabs(x - y) <= 1e-7 * fabs(y);
    }
    if (json_typeof(a) != json_typeof(b))
        return false;
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b))
            return false;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!json_same(json_array_get(a, i), json_array_get(b, i)))
                return false;
        return true;
    }
    if (json_is_object(a)) {
        if (json_object_size(a) != json_object_size(b))
            return false;
        const char *k;
        json_t *v;
        json_object_foreach(a, k, v) {
            json_t *w = json_object_get(b, k);
            if (!w || !json_same(v, w))
                return false;
        }
        return true;
    }
    return json_equal(a, b);
}

TEST(variant_examples_json)
{
    size_t len;
    uint8_t *text = bt_read_file(bt_testdata_path("parquet-testing/variant/data_dictionary.json"),
                                 &len);
    CHECK(text != NULL);
    /* The file has a trailing comma before its closing brace. */
    for (size_t i = len; i-- > 0;) {
        if (text[i] == ',') {
            text[i] = ' ';
            break;
        }
        if (text[i] != '}' && !isspace(text[i]))
            break;
    }
    json_error_t jerr;
    json_t *dict = json_loadb((const char *)text, len, 0, &jerr);
    basalt_free(text);
    CHECK_MSG(json_is_object(dict), "data_dictionary.json: %s", jerr.text);
    int checked = 0;
    const char *name;
    json_t *want;
    json_t *extra = json_object();
    for (size_t i = 0; i < sizeof renderings / sizeof *renderings; i++)
        json_object_set_new(extra, renderings[i].name, json_loads(renderings[i].json,
                                                                  JSON_DECODE_ANY, NULL));
    json_object_update_missing(extra, dict);
    json_object_foreach(extra, name, want) {
        size_t mn, vn;
        uint8_t *m = example(name, "metadata", &mn), *v = example(name, "value", &vn);
        struct basalt_buffer out;
        basalt_buffer_init(&out);
        struct basalt_error err;
        basalt_status st = m && v ? basalt_parquet_variant_to_json(m, mn, v, vn, &out, &err)
                                  : BASALT_NOT_FOUND;
        json_t *got = st == BASALT_OK ? json_loadb((const char *)out.data, out.size,
                                                   JSON_DECODE_ANY, &jerr)
                                      : NULL;
        bool same = got && json_same(got, want);
        if (!same)
            bt_fail(__FILE__, __LINE__, "%s: %.*s", name, (int)out.size, (const char *)out.data);
        json_decref(got);
        basalt_buffer_reset(&out);
        basalt_free(m);
        basalt_free(v);
        checked += same;
    }
    json_decref(extra);
    json_decref(dict);
    CHECK_EQ(checked, 29); /* every example */
}

/* The exact texts of the forms the CLI prints (basalt/parquet_variant.h). */
TEST(variant_json_forms)
{
    static const struct {
        const char *name, *json;
    } forms[] = {
        {"primitive_decimal4", "12.34"},
        {"primitive_decimal8", "12345678.90"},
        {"primitive_decimal16", "12345678912345678.90"},
        {"primitive_float", "1234568000"},
        {"primitive_binary", "\"AxM33q2+78r+\""},
        {"primitive_date", "\"2025-04-16\""},
        {"primitive_uuid", "\"f24f9b64-81fa-49d1-b74e-8c09a6e31c56\""},
        {"primitive_int64", "1234567890123456789"},
        {"object_empty", "{}"},
        {"array_primitive", "[2,1,5,9]"},
    };
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        size_t mn, vn;
        uint8_t *m = example(forms[i].name, "metadata", &mn);
        uint8_t *v = example(forms[i].name, "value", &vn);
        CHECK(m && v);
        struct basalt_buffer out;
        basalt_buffer_init(&out);
        struct basalt_error err;
        basalt_status st = basalt_parquet_variant_to_json(m, mn, v, vn, &out, &err);
        basalt_buffer_append(&out, "", 1, NULL);
        basalt_free(m);
        basalt_free(v);
        char got[640];
        snprintf(got, sizeof got, "%s", st == BASALT_OK ? (const char *)out.data : err.message);
        basalt_buffer_reset(&out);
        CHECK_STR(got, forms[i].json);
    }
}

/* ------------------------------------------------------------------ untrusted bytes */

/* Every prefix and every single-byte change of every example: OK, CORRUPT
 * or LIMIT, never a read outside the bytes (the copies are exactly sized,
 * so ASan sees any), and a prefix too short for the value is CORRUPT. */
TEST(variant_untrusted_bytes)
{
    static const char *const names[] = {"array_nested", "object_nested", "object_primitive",
                                        "primitive_decimal16", "primitive_string",
                                        "short_string", "primitive_uuid", "long_string"};
    int corrupt = 0;
    for (size_t e = 0; e < sizeof names / sizeof *names; e++) {
        size_t mn, vn;
        uint8_t *m = example(names[e], "metadata", &mn), *v = example(names[e], "value", &vn);
        CHECK(m && v);
        struct basalt_parquet_variant_metadata md;
        struct basalt_error err;
        CHECK_OK(basalt_parquet_variant_metadata_parse(m, mn, &md, NULL, &err), &err);
        size_t size = 0;
        CHECK_OK(basalt_parquet_variant_validate(&md, v, vn, &size, &err), &err);
        CHECK_EQ(size, vn);
        for (size_t k = 0; k < vn; k++) {
            uint8_t *cut = basalt_malloc(k ? k : 1);
            memcpy(cut, v, k);
            basalt_status st = basalt_parquet_variant_validate(&md, cut, k, NULL, &err);
            basalt_free(cut);
            CHECK_MSG(st == BASALT_CORRUPT, "%s: prefix %zu: %s", names[e], k,
                      basalt_status_name(st));
            corrupt++;
        }
        for (size_t k = 0; k < mn; k++) {
            uint8_t *cut = basalt_malloc(k ? k : 1);
            memcpy(cut, m, k);
            struct basalt_parquet_variant_metadata bad;
            size_t used;
            basalt_status st = basalt_parquet_variant_metadata_parse(cut, k, &bad, &used, &err);
            basalt_free(cut);
            CHECK_MSG(st == BASALT_CORRUPT, "%s: metadata prefix %zu: %s", names[e], k,
                      basalt_status_name(st));
        }
        for (size_t k = 0; k < vn + mn; k++) {
            for (int bit = 0; bit < 8; bit++) {
                uint8_t *mm = basalt_malloc(mn), *vv = basalt_malloc(vn);
                memcpy(mm, m, mn);
                memcpy(vv, v, vn);
                if (k < vn)
                    vv[k] ^= (uint8_t)(1u << bit);
                else
                    mm[k - vn] ^= (uint8_t)(1u << bit);
                struct basalt_buffer out;
                basalt_buffer_init(&out);
                basalt_status st = basalt_parquet_variant_to_json(mm, mn, vv, vn, &out, &err);
                basalt_buffer_reset(&out);
                basalt_free(mm);
                basalt_free(vv);
                CHECK_MSG(st == BASALT_OK || st == BASALT_CORRUPT || st == BASALT_LIMIT,
                          "%s: byte %zu bit %d: %s", names[e], k, bit, basalt_status_name(st));
            }
        }
        basalt_free(m);
        basalt_free(v);
    }
    CHECK(corrupt > 0);
}

/* Messages name what is wrong and where. */
TEST(variant_errors_named)
{
    const uint8_t md[] = {0x11, 0x01, 0x00, 0x01, 'a'};
    struct basalt_parquet_variant_metadata m;
    struct basalt_error err;
    CHECK_OK(basalt_parquet_variant_metadata_parse(md, sizeof md, &m, NULL, &err), &err);
    CHECK_EQ(basalt_parquet_variant_metadata_find(&m, "a", 1), 0);
    CHECK_EQ(basalt_parquet_variant_metadata_find(&m, "b", 1), -1);
    /* {"a": 1} with field id 3: outside the dictionary. */
    const uint8_t bad_id[] = {0x02, 0x01, 0x03, 0x00, 0x02, 0x0c, 0x01};
    CHECK_STATUS(basalt_parquet_variant_validate(&m, bad_id, sizeof bad_id, NULL, &err),
                 BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "field id 3 outside the dictionary of 1 names") != NULL);
    /* [x] whose element offset points past its values. */
    const uint8_t bad_off[] = {0x03, 0x01, 0x05, 0x01, 0x00};
    CHECK_STATUS(basalt_parquet_variant_validate(&m, bad_off, sizeof bad_off, NULL, &err),
                 BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "array element 0 starts at 5") != NULL);
    /* A decimal4 with scale 40. */
    const uint8_t bad_scale[] = {0x20, 40, 1, 0, 0, 0};
    CHECK_STATUS(basalt_parquet_variant_validate(&m, bad_scale, sizeof bad_scale, NULL, &err),
                 BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "scale 40") != NULL);
    /* Metadata version 2; offsets past the bytes. */
    const uint8_t v2[] = {0x02, 0x00, 0x00};
    CHECK_STATUS(basalt_parquet_variant_metadata_parse(v2, sizeof v2, &m, NULL, &err),
                 BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "version 2") != NULL);
    const uint8_t past[] = {0x01, 0x01, 0x00, 0x09, 'a'};
    CHECK_STATUS(basalt_parquet_variant_metadata_parse(past, sizeof past, &m, NULL, &err),
                 BASALT_CORRUPT, &err);
    /* Arrays nested past the depth limit: LIMIT, not a stack overflow. */
    size_t depth = BASALT_PARQUET_VARIANT_MAX_DEPTH + 5, total = depth * 10 + 1;
    uint8_t *deep = basalt_malloc(total);
    for (size_t i = 0; i < depth; i++) {
        /* [ <rest> ] with 4-byte offsets: 0f 01, offset 0, offset len(rest) */
        uint8_t *p = deep + 10 * i;
        size_t rest = total - 10 * (i + 1);
        p[0] = 0x0f;
        p[1] = 0x01;
        memset(p + 2, 0, 4);
        for (int k = 0; k < 4; k++)
            p[6 + k] = (uint8_t)(rest >> (8 * k));
    }
    deep[total - 1] = 0x00;
    const uint8_t empty_md[] = {0x01, 0x00, 0x00};
    CHECK_OK(basalt_parquet_variant_metadata_parse(empty_md, sizeof empty_md, &m, NULL, &err), &err);
    basalt_status st = basalt_parquet_variant_validate(&m, deep, total, NULL, &err);
    basalt_free(deep);
    CHECK_MSG(st == BASALT_LIMIT, "%s: %s", basalt_status_name(st), err.message);
}

/* ------------------------------------------------------------------ allocation failures */

static basalt_status sweep_read(void *file)
{
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    basalt_status st = read_file(shredded(file), 0, &b, NULL);
    basalt_arrow_batches_reset(&b);
    return st;
}

/* Failing each allocation of a read in turn: NOMEM and nothing leaked, or
 * the whole read. Shredded objects, nested arrays and a null variant. */
TEST(variant_read_allocation_failures)
{
    CHECK_ALLOC_SWEEP(sweep_read, "case-134.parquet");
    CHECK_ALLOC_SWEEP(sweep_read, "case-083.parquet");
    CHECK_ALLOC_SWEEP(sweep_read, "case-136.parquet");
}

/* ------------------------------------------------------------------ scans of variants */

/* Rows of `file`'s var column as "metadata|value" hex lines, read with the
 * given options, projection (NULL: everything) and filter column (NULL:
 * none, else UNSUPPORTED is expected from it). */
static basalt_status var_rows(const char *file, const struct basalt_parquet_read_options *o,
                              const char *path, struct basalt_buffer *out, char format[8],
                              struct basalt_error *err)
{
    struct basalt_parquet_reader *r = NULL;
    struct basalt_parquet_scan *scan = NULL;
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    basalt_status st = basalt_parquet_reader_open_file(shredded(file), NULL, &r, err);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_new(r, o, &scan, err);
    if (st == BASALT_OK) {
        if (path)
            st = basalt_parquet_scan_select_path(scan, path, err);
        else
            basalt_parquet_scan_select_all(scan);
    }
    if (st == BASALT_OK)
        st = basalt_parquet_scan_schema(scan, &b.schema, err);
    while (st == BASALT_OK) {
        struct ArrowArray a;
        st = basalt_parquet_scan_next(scan, &a, err);
        if (st != BASALT_OK || !a.release)
            break;
        st = basalt_arrow_batches_append(&b, &a, err);
    }
    int64_t var = -1;
    for (int64_t c = 0; st == BASALT_OK && c < b.schema.n_children; c++)
        if (strcmp(b.schema.children[c]->name, "var") == 0)
            var = c;
    if (st == BASALT_OK && var < 0)
        st = basalt_error_set(err, BASALT_NOT_FOUND, "no var column");
    for (int64_t k = 0; st == BASALT_OK && k < b.n; k++) {
        st = basalt_arrow_array_validate(&b.schema, &b.arrays[k], BASALT_ARROW_VALIDATE_FULL, err);
        const struct ArrowSchema *vs = b.schema.children[var];
        const struct ArrowArray *va = b.arrays[k].children[var];
        snprintf(format, 8, "%s", vs->children[0]->format);
        bool wide = strcmp(format, "Z") == 0;
        for (int64_t i = 0; st == BASALT_OK && i < va->length; i++) {
            int64_t j = va->offset + i;
            if (va->buffers[0] && !basalt_bitmap_get(va->buffers[0], j)) {
                basalt_buffer_append(out, "null\n", 5, NULL);
                continue;
            }
            for (int c = 0; c < 2; c++) {
                const struct ArrowArray *x = va->children[c];
                int64_t p = x->offset + j, s0, s1;
                if (wide) {
                    s0 = ((const int64_t *)x->buffers[1])[p];
                    s1 = ((const int64_t *)x->buffers[1])[p + 1];
                } else {
                    s0 = ((const int32_t *)x->buffers[1])[p];
                    s1 = ((const int32_t *)x->buffers[1])[p + 1];
                }
                for (int64_t q = s0; q < s1; q++) {
                    char h[3];
                    snprintf(h, sizeof h, "%02x", ((const uint8_t *)x->buffers[2])[q]);
                    basalt_buffer_append(out, h, 2, NULL);
                }
                basalt_buffer_append(out, c ? "\n" : "|", 1, NULL);
            }
        }
    }
    basalt_buffer_append(out, "", 1, NULL);
    basalt_arrow_batches_reset(&b);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    return st;
}

/* Batches of one row (slices of the row group's arrays), 64-bit offsets,
 * a projection into the variant (selecting it whole) and a pool give the
 * same rows as a plain read. */
TEST(variant_scan_forms)
{
    static const char *const files[] = {"case-083.parquet", "case-045.parquet",
                                        "case-134.parquet", "case-136.parquet"};
    for (size_t f = 0; f < 4; f++) {
        struct basalt_buffer plain, other;
        basalt_buffer_init(&plain);
        basalt_buffer_init(&other);
        struct basalt_error err;
        char format[8] = "";
        CHECK_OK(var_rows(files[f], NULL, NULL, &plain, format, &err), &err);
        CHECK_STR(format, "z");
        struct basalt_parquet_read_options o;
        basalt_parquet_read_options_init(&o);
        o.batch_size = 1;
        CHECK_OK(var_rows(files[f], &o, NULL, &other, format, &err), &err);
        CHECK_STR((const char *)other.data, (const char *)plain.data);
        basalt_parquet_read_options_init(&o);
        o.large_binary = true;
        other.size = 0;
        CHECK_OK(var_rows(files[f], &o, NULL, &other, format, &err), &err);
        CHECK_STR(format, "Z");
        CHECK_STR((const char *)other.data, (const char *)plain.data);
        other.size = 0;
        CHECK_OK(var_rows(files[f], NULL, "var.metadata", &other, format, &err), &err);
        CHECK_STR((const char *)other.data, (const char *)plain.data);
        struct basalt_pool *pool;
        CHECK_OK(basalt_pool_new(2, &pool, &err), &err);
        basalt_parquet_read_options_init(&o);
        o.pool = pool;
        other.size = 0;
        basalt_status st = var_rows(files[f], &o, NULL, &other, format, &err);
        basalt_pool_free(pool);
        CHECK_OK(st, &err);
        CHECK_STR((const char *)other.data, (const char *)plain.data);
        basalt_buffer_reset(&plain);
        basalt_buffer_reset(&other);
    }
    /* case-134: var.typed_value.b (a shredded field) selects the whole
     * variant; predicates stay outside variants. */
    struct basalt_buffer rows;
    basalt_buffer_init(&rows);
    struct basalt_error err;
    char format[8] = "";
    CHECK_OK(var_rows("case-134.parquet", NULL, "var.typed_value.b.typed_value", &rows, format,
                      &err),
             &err);
    basalt_buffer_reset(&rows);
    struct basalt_parquet_reader *r;
    struct basalt_parquet_scan *scan;
    CHECK_OK(basalt_parquet_reader_open_file(shredded("case-134.parquet"), NULL, &r, &err), &err);
    CHECK_OK(basalt_parquet_scan_new(r, NULL, &scan, &err), &err);
    struct basalt_parquet_literal lit = {.kind = BASALT_PARQUET_LITERAL_BYTES, .bytes = "x", .len = 1};
    basalt_status st = basalt_parquet_scan_filter(scan, "var.typed_value.b.typed_value",
                                                  BASALT_PARQUET_OP_EQ, &lit, &err);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    CHECK_STATUS(st, BASALT_UNSUPPORTED, &err);
    CHECK(strstr(err.message, "VARIANT") != NULL);
}
