/* A small whole-file reader over the column decoder, for the corpus tests:
 * footer (thrift), schema, every column chunk decoded, every top-level
 * field assembled, and the rows printed in the canonical text that
 * tests/parquet/duckdb_dump.mjs prints DuckDB's rows in (see its header):
 * one JSON array a row, no spaces; integers as decimal strings; floats as
 * JavaScript's toExponential() of the double ("1.5e+0"), "NaN", "Infinity";
 * decimals exact ("-1.50"); text as JSON strings; binary and fixed-size
 * binary as "hex:..."; dates as days; times and timestamps as microseconds,
 * floored; lists as arrays, structs as objects, maps as [[key, value], ...].
 *
 * The helpers (pqc_*) are shared with the other column*_test.c files. */
#include <math.h>
#include <stdlib.h>

#include "basalt/parquet_format.h"
#include "parquet_column.h"
#include "test.h"

struct pqc_file {
    uint8_t *data;
    size_t len;
    struct basalt_arena arena;
    struct basalt_parquet_file_metadata md;
    struct basalt_parquet_schema *schema;
};

struct pqc_read_options {
    struct basalt_parquet_column_options column;
    bool large_lists;
    bool validate; /* basalt_arrow_array_validate(FULL) every assembled array */
    bool general_walk;          /* assembly without walk_branchless */
    int64_t *branchless_walks;  /* counts walk_branchless's successes, or NULL */
};

void pqc_read_options_init(struct pqc_read_options *o);
basalt_status pqc_open_bytes(const uint8_t *data, size_t len, struct pqc_file *f,
                             struct basalt_error *err);
basalt_status pqc_open(const char *path, struct pqc_file *f, struct basalt_error *err);
void pqc_close(struct pqc_file *f);
basalt_status pqc_chunk_source(const struct pqc_file *f, int64_t rg, int32_t leaf,
                               struct basalt_parquet_chunk_source *src, struct basalt_error *err);
basalt_status pqc_dump(struct pqc_file *f, const struct pqc_read_options *o,
                       struct basalt_parquet_scratch *scratch, struct basalt_buffer *out,
                       struct basalt_error *err);
basalt_status pqc_dump_path(const char *path, const struct pqc_read_options *o,
                            struct basalt_buffer *out, struct basalt_error *err);
void pqc_put_value(struct basalt_buffer *out, const struct ArrowSchema *s,
                   const struct ArrowArray *a, int64_t i);
const char *pqc_corpus(const char *rel);
void pqc_puts(struct basalt_buffer *out, const char *s);

/* ------------------------------------------------------------------ files */

void pqc_read_options_init(struct pqc_read_options *o)
{
    memset(o, 0, sizeof *o);
    basalt_parquet_column_options_init(&o->column);
    o->validate = true;
}

const char *pqc_corpus(const char *rel)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s", bt_testdata_path(rel));
    return path;
}

basalt_status pqc_open_bytes(const uint8_t *data, size_t len, struct pqc_file *f,
                             struct basalt_error *err)
{
    memset(f, 0, sizeof *f);
    basalt_arena_init(&f->arena, 0);
    f->data = basalt_malloc(len ? len : 1);
    f->len = len;
    if (!f->data)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (len)
        memcpy(f->data, data, len);
    uint32_t footer_len;
    if (len < 12)
        return basalt_error_set(err, BASALT_CORRUPT, "file of %zu bytes", len);
    basalt_status st = basalt_thrift_decode_trailer(f->data + len - 8, len, &footer_len, err);
    if (st == BASALT_OK)
        st = basalt_thrift_decode_file_metadata(f->data + len - 8 - footer_len, footer_len,
                                                &f->arena, NULL, &f->md, err);
    if (st == BASALT_OK)
        st = basalt_parquet_schema_new(&f->md, NULL, &f->schema, err);
    return st;
}

basalt_status pqc_open(const char *path, struct pqc_file *f, struct basalt_error *err)
{
    memset(f, 0, sizeof *f);
    basalt_arena_init(&f->arena, 0);
    size_t len;
    uint8_t *data = bt_read_file(path, &len);
    if (!data)
        return basalt_error_set(err, BASALT_IO, "cannot read %s", path);
    basalt_status st = pqc_open_bytes(data, len, f, err);
    basalt_free(data);
    return st;
}

void pqc_close(struct pqc_file *f)
{
    basalt_parquet_schema_free(f->schema);
    basalt_arena_reset(&f->arena);
    basalt_free(f->data);
    memset(f, 0, sizeof *f);
}

/* parquet-mr up to 1.2.8 left the dictionary page header out of the chunk
 * sizes (PARQUET-816): readers add up to 100 bytes. A created_by without a
 * version counts as old, as Arrow C++ reads it. */
static bool old_parquet_mr(const struct basalt_parquet_file_metadata *md)
{
    const char *cb = md->has_created_by ? md->created_by.data : NULL;
    if (!cb || strncmp(cb, "parquet-mr", 10) != 0)
        return false;
    int a = 0, b = 0, c = 0;
    if (sscanf(cb, "parquet-mr version %d.%d.%d", &a, &b, &c) < 1)
        return true;
    return a < 1 || (a == 1 && (b < 2 || (b == 2 && c < 9)));
}

/* The chunk's bytes as a reader would fetch them: from the dictionary page
 * when there is one (an offset of 0 is no dictionary page), clipped to the
 * file, padded for old parquet-mr files. */
basalt_status pqc_chunk_source(const struct pqc_file *f, int64_t rg, int32_t leaf,
                               struct basalt_parquet_chunk_source *src, struct basalt_error *err)
{
    memset(src, 0, sizeof *src);
    const struct basalt_parquet_row_group *g = &f->md.row_groups[rg];
    if ((size_t)leaf >= g->num_columns)
        return basalt_error_set(err, BASALT_CORRUPT, "row group %" PRId64 " has %zu columns", rg,
                                g->num_columns);
    const struct basalt_parquet_column_chunk *c = &g->columns[leaf];
    if (c->has_crypto_metadata || c->has_encrypted_column_metadata)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "encrypted column chunk");
    if (!c->has_meta_data)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "column without metadata");
    const struct basalt_parquet_column_metadata *m = &c->meta_data;
    int64_t start = m->data_page_offset;
    if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 &&
        m->dictionary_page_offset < start)
        start = m->dictionary_page_offset;
    if (start < 0 || (uint64_t)start >= f->len || m->total_compressed_size < 0)
        return basalt_error_set(err, BASALT_CORRUPT, "chunk at %" PRId64 " outside the file",
                                start);
    uint64_t len = (uint64_t)m->total_compressed_size;
    if (len > f->len - (uint64_t)start)
        len = f->len - (uint64_t)start;
    else if (old_parquet_mr(&f->md))
        len += f->len - (uint64_t)start - len < 100 ? f->len - (uint64_t)start - len : 100;
    src->data = f->data + start;
    src->len = (size_t)len;
    src->file_offset = start;
    src->meta = m;
    src->leaf = &f->schema->leaves[leaf];
    src->num_rows = g->num_rows;
    return BASALT_OK;
}

/* ------------------------------------------------------------------ printing */

void pqc_puts(struct basalt_buffer *out, const char *s)
{
    if (basalt_buffer_append(out, s, strlen(s), NULL) != BASALT_OK)
        abort();
}

static void put_mem(struct basalt_buffer *out, const void *s, size_t n)
{
    if (basalt_buffer_append(out, s, n, NULL) != BASALT_OK)
        abort();
}

static void put_json_string(struct basalt_buffer *out, const uint8_t *s, size_t n)
{
    pqc_puts(out, "\"");
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            put_mem(out, esc, 2);
        } else if (c < 0x20) {
            switch (c) {
            case '\b': pqc_puts(out, "\\b"); break;
            case '\f': pqc_puts(out, "\\f"); break;
            case '\n': pqc_puts(out, "\\n"); break;
            case '\r': pqc_puts(out, "\\r"); break;
            case '\t': pqc_puts(out, "\\t"); break;
            default:
                snprintf(esc, sizeof esc, "\\u%04x", c);
                pqc_puts(out, esc);
            }
        } else {
            put_mem(out, &c, 1);
        }
    }
    pqc_puts(out, "\"");
}

static void put_hex(struct basalt_buffer *out, const uint8_t *s, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    pqc_puts(out, "\"hex:");
    for (size_t i = 0; i < n; i++) {
        char h[2] = {digits[s[i] >> 4], digits[s[i] & 15]};
        put_mem(out, h, 2);
    }
    pqc_puts(out, "\"");
}

static void put_int(struct basalt_buffer *out, int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "\"%" PRId64 "\"", v);
    pqc_puts(out, b);
}

static void put_uint(struct basalt_buffer *out, uint64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "\"%" PRIu64 "\"", v);
    pqc_puts(out, b);
}

/* JavaScript's Number.prototype.toExponential(): the shortest digits that
 * read back as the same double, "d[.ddd]e(+|-)x". */
static void put_double(struct basalt_buffer *out, double v)
{
    if (isnan(v)) {
        pqc_puts(out, "\"NaN\"");
        return;
    }
    if (isinf(v)) {
        pqc_puts(out, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        return;
    }
    char b[64];
    for (int p = 1; p <= 17; p++) {
        snprintf(b, sizeof b, "%.*e", p - 1, v);
        if (strtod(b, NULL) == v)
            break;
    }
    char *e = strchr(b, 'e');
    int exp = atoi(e + 1);
    *e = '\0';
    char res[80];
    snprintf(res, sizeof res, "\"%se%c%d\"", b, exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    pqc_puts(out, res);
}

static double half_to_double(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 31, frac = h & 1023;
    double v;
    if (exp == 0)
        v = ldexp(frac, -24);
    else if (exp == 31)
        v = frac ? NAN : INFINITY;
    else
        v = ldexp(frac + 1024, exp - 25);
    return sign ? -v : v;
}

/* A little-endian two's complement integer of `n` bytes as a decimal with
 * `scale` digits after the point. */
static void put_decimal(struct basalt_buffer *out, const uint8_t *v, size_t n, int scale)
{
    uint32_t limbs[8] = {0};
    size_t nl = n / 4;
    for (size_t i = 0; i < nl; i++)
        memcpy(&limbs[i], v + 4 * i, 4);
    bool neg = (v[n - 1] & 0x80) != 0;
    if (neg) {
        uint64_t carry = 1;
        for (size_t i = 0; i < nl; i++) {
            uint64_t x = (uint64_t)(uint32_t)~limbs[i] + carry;
            limbs[i] = (uint32_t)x;
            carry = x >> 32;
        }
    }
    char digits[100];
    int nd = 0;
    for (;;) {
        bool zero = true;
        for (size_t i = 0; i < nl; i++)
            zero &= limbs[i] == 0;
        if (zero)
            break;
        uint64_t rem = 0;
        for (size_t i = nl; i-- > 0;) {
            uint64_t cur = rem << 32 | limbs[i];
            limbs[i] = (uint32_t)(cur / 10);
            rem = cur % 10;
        }
        digits[nd++] = (char)('0' + rem);
    }
    while (nd <= scale)
        digits[nd++] = '0';
    char text[120];
    int k = 0;
    text[k++] = '"';
    if (neg)
        text[k++] = '-';
    for (int i = nd - 1; i >= 0; i--) {
        text[k++] = digits[i];
        if (i == scale && scale > 0)
            text[k++] = '.';
    }
    text[k++] = '"';
    text[k] = '\0';
    pqc_puts(out, text);
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
        q--;
    return q;
}

static int64_t to_micros(int64_t v, enum basalt_arrow_time_unit unit)
{
    switch (unit) {
    case BASALT_ARROW_TIME_UNIT_SECOND: return (int64_t)((uint64_t)v * 1000000u);
    case BASALT_ARROW_TIME_UNIT_MILLI: return (int64_t)((uint64_t)v * 1000u);
    case BASALT_ARROW_TIME_UNIT_MICRO: return v;
    case BASALT_ARROW_TIME_UNIT_NANO: return floor_div(v, 1000);
    }
    return v;
}

static int64_t read_index(const struct ArrowArray *a, const char *format, int64_t i)
{
    const void *b = a->buffers[1];
    switch (format[0]) {
    case 'c': return ((const int8_t *)b)[i];
    case 'C': return ((const uint8_t *)b)[i];
    case 's': return ((const int16_t *)b)[i];
    case 'S': return ((const uint16_t *)b)[i];
    case 'i': return ((const int32_t *)b)[i];
    case 'I': return ((const uint32_t *)b)[i];
    default: return ((const int64_t *)b)[i];
    }
}

void pqc_put_value(struct basalt_buffer *out, const struct ArrowSchema *s,
                   const struct ArrowArray *a, int64_t i)
{
    int64_t j = i + a->offset;
    if (a->n_buffers > 0 && a->buffers[0] &&
        !basalt_bitmap_get((const uint8_t *)a->buffers[0], j)) {
        pqc_puts(out, "null");
        return;
    }
    if (a->dictionary) {
        const char *index_format = s->dictionary ? s->format : "i";
        const struct ArrowSchema *vs = s->dictionary ? s->dictionary : s;
        pqc_put_value(out, vs, a->dictionary, read_index(a, index_format, j));
        return;
    }
    if (s->dictionary)
        s = s->dictionary; /* materialised */
    struct basalt_arrow_type t;
    if (basalt_arrow_type_parse(s->format, &t, NULL) != BASALT_OK) {
        pqc_puts(out, "\"?format\"");
        return;
    }
    const void *v = a->n_buffers > 1 ? a->buffers[1] : NULL;
    switch (t.id) {
    case BASALT_ARROW_TYPE_NULL: pqc_puts(out, "null"); return;
    case BASALT_ARROW_TYPE_BOOL:
        pqc_puts(out, basalt_bitmap_get(v, j) ? "true" : "false");
        return;
    case BASALT_ARROW_TYPE_INT8: put_int(out, ((const int8_t *)v)[j]); return;
    case BASALT_ARROW_TYPE_UINT8: put_uint(out, ((const uint8_t *)v)[j]); return;
    case BASALT_ARROW_TYPE_INT16: put_int(out, ((const int16_t *)v)[j]); return;
    case BASALT_ARROW_TYPE_UINT16: put_uint(out, ((const uint16_t *)v)[j]); return;
    case BASALT_ARROW_TYPE_INT32: put_int(out, ((const int32_t *)v)[j]); return;
    case BASALT_ARROW_TYPE_UINT32: put_uint(out, ((const uint32_t *)v)[j]); return;
    case BASALT_ARROW_TYPE_INT64: put_int(out, ((const int64_t *)v)[j]); return;
    case BASALT_ARROW_TYPE_UINT64: put_uint(out, ((const uint64_t *)v)[j]); return;
    case BASALT_ARROW_TYPE_DURATION: put_int(out, ((const int64_t *)v)[j]); return;
    case BASALT_ARROW_TYPE_HALF_FLOAT:
        put_double(out, half_to_double(((const uint16_t *)v)[j]));
        return;
    case BASALT_ARROW_TYPE_FLOAT: put_double(out, ((const float *)v)[j]); return;
    case BASALT_ARROW_TYPE_DOUBLE: put_double(out, ((const double *)v)[j]); return;
    case BASALT_ARROW_TYPE_DATE32: put_int(out, ((const int32_t *)v)[j]); return;
    case BASALT_ARROW_TYPE_DATE64: put_int(out, floor_div(((const int64_t *)v)[j], 86400000)); return;
    case BASALT_ARROW_TYPE_TIME32:
        put_int(out, to_micros(((const int32_t *)v)[j], t.unit));
        return;
    case BASALT_ARROW_TYPE_TIME64:
    case BASALT_ARROW_TYPE_TIMESTAMP:
        put_int(out, to_micros(((const int64_t *)v)[j], t.unit));
        return;
    case BASALT_ARROW_TYPE_DECIMAL32:
    case BASALT_ARROW_TYPE_DECIMAL64:
    case BASALT_ARROW_TYPE_DECIMAL128:
    case BASALT_ARROW_TYPE_DECIMAL256: {
        size_t w = (size_t)(t.bit_width / 8);
        put_decimal(out, (const uint8_t *)v + (size_t)j * w, w, t.scale);
        return;
    }
    case BASALT_ARROW_TYPE_FIXED_SIZE_BINARY:
    case BASALT_ARROW_TYPE_INTERVAL_DAY_TIME:
    case BASALT_ARROW_TYPE_INTERVAL_MONTH_DAY_NANO:
    case BASALT_ARROW_TYPE_INTERVAL_MONTHS: {
        size_t w = (size_t)(t.bit_width / 8);
        put_hex(out, (const uint8_t *)v + (size_t)j * w, w);
        return;
    }
    case BASALT_ARROW_TYPE_STRING:
    case BASALT_ARROW_TYPE_BINARY: {
        const int32_t *o = v;
        const uint8_t *d = (const uint8_t *)a->buffers[2] + o[j];
        size_t n = (size_t)(o[j + 1] - o[j]);
        if (t.id == BASALT_ARROW_TYPE_STRING)
            put_json_string(out, d, n);
        else
            put_hex(out, d, n);
        return;
    }
    case BASALT_ARROW_TYPE_LARGE_STRING:
    case BASALT_ARROW_TYPE_LARGE_BINARY: {
        const int64_t *o = v;
        const uint8_t *d = (const uint8_t *)a->buffers[2] + o[j];
        size_t n = (size_t)(o[j + 1] - o[j]);
        if (t.id == BASALT_ARROW_TYPE_LARGE_STRING)
            put_json_string(out, d, n);
        else
            put_hex(out, d, n);
        return;
    }
    case BASALT_ARROW_TYPE_LIST:
    case BASALT_ARROW_TYPE_LARGE_LIST:
    case BASALT_ARROW_TYPE_FIXED_SIZE_LIST:
    case BASALT_ARROW_TYPE_MAP: {
        int64_t b, e;
        if (t.id == BASALT_ARROW_TYPE_FIXED_SIZE_LIST) {
            b = j * t.fixed_size;
            e = b + t.fixed_size;
        } else if (t.id == BASALT_ARROW_TYPE_LARGE_LIST) {
            b = ((const int64_t *)v)[j];
            e = ((const int64_t *)v)[j + 1];
        } else {
            b = ((const int32_t *)v)[j];
            e = ((const int32_t *)v)[j + 1];
        }
        const struct ArrowSchema *cs = s->children[0];
        const struct ArrowArray *ca = a->children[0];
        pqc_puts(out, "[");
        for (int64_t k = b; k < e; k++) {
            if (k > b)
                pqc_puts(out, ",");
            if (t.id == BASALT_ARROW_TYPE_MAP) {
                pqc_puts(out, "[");
                pqc_put_value(out, cs->children[0], ca->children[0], k + ca->offset);
                pqc_puts(out, ",");
                pqc_put_value(out, cs->children[1], ca->children[1], k + ca->offset);
                pqc_puts(out, "]");
            } else {
                pqc_put_value(out, cs, ca, k);
            }
        }
        pqc_puts(out, "]");
        return;
    }
    case BASALT_ARROW_TYPE_STRUCT:
        pqc_puts(out, "{");
        for (int64_t c = 0; c < s->n_children; c++) {
            if (c)
                pqc_puts(out, ",");
            const char *name = s->children[c]->name ? s->children[c]->name : "";
            put_json_string(out, (const uint8_t *)name, strlen(name));
            pqc_puts(out, ":");
            pqc_put_value(out, s->children[c], a->children[c], j);
        }
        pqc_puts(out, "}");
        return;
    default:
        pqc_puts(out, "\"?type\"");
        return;
    }
}

/* ------------------------------------------------------------------ reading */

static bool is_binary_leaf(const struct basalt_parquet_schema_leaf *leaf)
{
    return leaf->physical_type == BASALT_PARQUET_TYPE_BYTE_ARRAY && leaf->format &&
           (strcmp(leaf->format, "u") == 0 || strcmp(leaf->format, "z") == 0 ||
            strcmp(leaf->format, "U") == 0 || strcmp(leaf->format, "Z") == 0);
}

static bool same_dictionary_shape(const struct ArrowSchema *s, const struct ArrowArray *a)
{
    if ((s->dictionary != NULL) != (a->dictionary != NULL))
        return false;
    for (int64_t i = 0; i < s->n_children && i < a->n_children; i++)
        if (!same_dictionary_shape(s->children[i], a->children[i]))
            return false;
    return true;
}

basalt_status pqc_dump(struct pqc_file *f, const struct pqc_read_options *o,
                       struct basalt_parquet_scratch *scratch, struct basalt_buffer *out,
                       struct basalt_error *err)
{
    const struct basalt_parquet_schema *schema = f->schema;
    const int32_t nl = schema->n_leaves, nr = schema->n_roots;
    uint8_t *large = basalt_calloc((size_t)nl + 1, 1);
    uint8_t *dict = basalt_calloc((size_t)nl + 1, 1);
    struct basalt_parquet_leaf_values *leaves = basalt_calloc((size_t)nl + 1, sizeof *leaves);
    struct ArrowArray *arrays = basalt_calloc((size_t)nr + 1, sizeof *arrays);
    struct ArrowSchema as;
    memset(&as, 0, sizeof as);
    basalt_status st = BASALT_OK;
    if (!large || !dict || !leaves || !arrays)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int32_t k = 0; st == BASALT_OK && k < nl; k++) {
        large[k] = o->column.large_offsets;
        dict[k] = o->column.keep_dictionary && is_binary_leaf(&schema->leaves[k]);
    }
    struct basalt_parquet_arrow_options ao = {large, dict, o->large_lists};
    if (st == BASALT_OK)
        st = basalt_parquet_schema_to_arrow(schema, NULL, &ao, &as, err);
    struct basalt_parquet_assemble_options asm_opt = {o->large_lists, o->general_walk,
                                                      o->branchless_walks};
    for (size_t rg = 0; st == BASALT_OK && rg < f->md.num_row_groups; rg++) {
        for (int32_t k = 0; st == BASALT_OK && k < nl; k++) {
            struct basalt_parquet_chunk_source src;
            st = pqc_chunk_source(f, (int64_t)rg, k, &src, err);
            if (st == BASALT_OK)
                st = basalt_parquet_column_decode(&src, &o->column, scratch, &leaves[k], err);
            if (st != BASALT_OK)
                st = basalt_error_context(err, st, "row group %zu: column '%s'", rg,
                                          schema->leaves[k].path);
        }
        for (int32_t r = 0; st == BASALT_OK && r < nr; r++) {
            st = basalt_parquet_assemble_field_with(schema, schema->roots[r], leaves, &asm_opt,
                                                    &arrays[r], err);
            if (st != BASALT_OK)
                st = basalt_error_context(err, st, "row group %zu", rg);
            if (st == BASALT_OK && o->validate &&
                same_dictionary_shape(as.children[r], &arrays[r])) {
                st = basalt_arrow_array_validate(as.children[r], &arrays[r],
                                                 BASALT_ARROW_VALIDATE_FULL, err);
                if (st != BASALT_OK)
                    st = basalt_error_context(err, BASALT_INTERNAL,
                                              "row group %zu: invalid array", rg);
            }
        }
        int64_t rows = nr > 0 && st == BASALT_OK && out ? arrays[0].length : 0;
        for (int64_t i = 0; i < rows; i++) {
            pqc_puts(out, "[");
            for (int32_t r = 0; r < nr; r++) {
                if (r)
                    pqc_puts(out, ",");
                if (arrays[r].length != rows) {
                    st = basalt_error_set(err, BASALT_CORRUPT, "fields of different lengths");
                    break;
                }
                pqc_put_value(out, as.children[r], &arrays[r], i);
            }
            pqc_puts(out, "]\n");
            if (st != BASALT_OK)
                break;
        }
        for (int32_t r = 0; arrays && r < nr; r++)
            basalt_arrow_array_release(&arrays[r]);
        for (int32_t k = 0; leaves && k < nl; k++)
            basalt_parquet_leaf_values_reset(&leaves[k]);
    }
    basalt_arrow_schema_release(&as);
    basalt_free(large);
    basalt_free(dict);
    basalt_free(leaves);
    basalt_free(arrays);
    return st;
}

basalt_status pqc_dump_path(const char *path, const struct pqc_read_options *o,
                            struct basalt_buffer *out, struct basalt_error *err)
{
    struct pqc_file f;
    struct basalt_parquet_scratch *scratch = NULL;
    basalt_status st = pqc_open(path, &f, err);
    if (st == BASALT_OK)
        st = basalt_parquet_scratch_new(&scratch, err);
    if (st == BASALT_OK)
        st = pqc_dump(&f, o, scratch, out, err);
    basalt_parquet_scratch_free(scratch);
    pqc_close(&f);
    return st;
}

/* ------------------------------------------------------------------ tests */

static basalt_status dump_rel(const char *rel, const struct pqc_read_options *o,
                              struct basalt_buffer *out, struct basalt_error *err)
{
    return pqc_dump_path(pqc_corpus(rel), o, out, err);
}

TEST(column_read_alltypes_plain_rows)
{
    /* Expected rows as Impala wrote them (id, bool_col, tinyint, smallint,
     * int, bigint, float, double, date_string, string, timestamp): the
     * values are the ones parquet-testing documents for this file. */
    struct pqc_read_options o;
    pqc_read_options_init(&o);
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    struct basalt_error err;
    CHECK_OK(dump_rel("parquet-testing/data/alltypes_plain.parquet", &o, &out, &err), &err);
    pqc_puts(&out, "");
    const char *want =
        "[\"4\",true,\"0\",\"0\",\"0\",\"0\",\"0e+0\",\"0e+0\",\"hex:30332f30312f3039\","
        "\"hex:30\",\"1235865600000000\"]\n";
    bool ok = out.size >= strlen(want) && memcmp(out.data, want, strlen(want)) == 0;
    size_t lines = 0;
    for (size_t i = 0; i < out.size; i++)
        lines += out.data[i] == '\n';
    if (!ok)
        fprintf(stderr, "got: %.*s\n", (int)(out.size < 400 ? out.size : 400), out.data);
    basalt_buffer_reset(&out);
    CHECK(ok);
    CHECK_EQ(lines, 8);
}

TEST(column_read_canonical_doubles)
{
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    put_double(&out, 1.5);
    put_double(&out, 0.1f);
    put_double(&out, 1e21);
    put_double(&out, -2.5e-7);
    put_double(&out, 0.0);
    put_double(&out, NAN);
    pqc_puts(&out, "");
    const char *want =
        "\"1.5e+0\"\"1.0000000149011612e-1\"\"1e+21\"\"-2.5e-7\"\"0e+0\"\"NaN\"";
    bool ok = out.size == strlen(want) && memcmp(out.data, want, out.size) == 0;
    if (!ok)
        fprintf(stderr, "got: %.*s\n", (int)out.size, out.data);
    basalt_buffer_reset(&out);
    CHECK(ok);
}

TEST(column_read_canonical_decimals)
{
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    uint8_t v[16];
    int64_t x = -1250;
    memcpy(v, &x, 8);
    memset(v + 8, 0xff, 8);
    put_decimal(&out, v, 16, 2);
    x = 5;
    memcpy(v, &x, 8);
    memset(v + 8, 0, 8);
    put_decimal(&out, v, 16, 3);
    memset(v, 0, 16);
    put_decimal(&out, v, 16, 0);
    /* 2^127 - 1 */
    memset(v, 0xff, 16);
    v[15] = 0x7f;
    put_decimal(&out, v, 16, 0);
    pqc_puts(&out, "");
    const char *want =
        "\"-12.50\"\"0.005\"\"0\"\"170141183460469231731687303715884105727\"";
    bool ok = out.size == strlen(want) && memcmp(out.data, want, out.size) == 0;
    if (!ok)
        fprintf(stderr, "got: %.*s\n", (int)out.size, out.data);
    basalt_buffer_reset(&out);
    CHECK(ok);
}

/* The branch-free level walk of record assembly gives the same rows as the
 * general walk on every nested file of the corpus, and it is the one that
 * runs by default (its counter moves; with general_walk it stays at 0). */
TEST(column_read_branchless_walk_matches_general)
{
    static const char *const files[] = {
        "parquet-testing/data/list_columns.parquet",
        "parquet-testing/data/nested_lists.snappy.parquet",
        "parquet-testing/data/nested_maps.snappy.parquet",
        "parquet-testing/data/nested_structs.rust.parquet",
        "parquet-testing/data/null_list.parquet",
        "parquet-testing/data/old_list_structure.parquet",
        "parquet-testing/data/repeated_no_annotation.parquet",
        "parquet-testing/data/repeated_primitive_no_list.parquet",
        "parquet-testing/data/map_no_value.parquet",
        "parquet-testing/data/incorrect_map_schema.parquet",
    };
    int64_t fast_total = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        int64_t fast = 0, general = 0;
        struct pqc_read_options o;
        pqc_read_options_init(&o);
        o.branchless_walks = &fast;
        struct basalt_buffer a, b;
        basalt_buffer_init(&a);
        basalt_buffer_init(&b);
        struct basalt_error err;
        CHECK_OK(dump_rel(files[i], &o, &a, &err), &err);
        o.general_walk = true;
        o.branchless_walks = &general;
        CHECK_OK(dump_rel(files[i], &o, &b, &err), &err);
        bool same = a.size == b.size && memcmp(a.data, b.data, a.size) == 0;
        if (!same)
            fprintf(stderr, "%s: the two walks differ\n", files[i]);
        CHECK(same);
        CHECK(a.size > 0);
        CHECK_EQ(general, 0);
        fast_total += fast;
        basalt_buffer_reset(&a);
        basalt_buffer_reset(&b);
    }
    CHECK(fast_total >= 10);
}
