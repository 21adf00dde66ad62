/* A canonical text of Arrow values for the reader tests (any type the
 * Parquet reader produces), and checks of it on hand-built arrays:
 *   null; true/false; integers in decimal; floats in the shortest text that
 *   reads back to the same value; utf8 and binary as "quoted" text with \xNN
 *   for bytes outside printable ASCII; decimals as their unscaled integer
 *   followed by "e-<scale>"; temporal types as their stored integers; lists
 *   and fixed-size lists [a,b]; structs {name:value,...}; maps
 *   [{key:value},...]; dictionaries as their values. A row of a batch is
 *   [field,field,...]. */
#include <stdarg.h>
#include <stdlib.h>

#include "basalt/arrow.h"
#include "test.h"

/* Appends the text of element `i` of `a` (of type `s`) to `out`. */
void pqr_text_value(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                    struct basalt_buffer *out);
/* Appends the text of row `row` of a struct batch. */
void pqr_text_row(const struct ArrowSchema *s, const struct ArrowArray *batch, int64_t row,
                  struct basalt_buffer *out);
/* All rows of a list of batches, one per line. */
void pqr_text_batches(const struct ArrowSchema *s, const struct ArrowArray *batches, int64_t n,
                      struct basalt_buffer *out);

static void put(struct basalt_buffer *out, const char *s, size_t n)
{
    if (basalt_buffer_append(out, s, n, NULL) != BASALT_OK)
        abort();
}

static void puts_(struct basalt_buffer *out, const char *s) { put(out, s, strlen(s)); }

static void putf(struct basalt_buffer *out, const char *fmt, ...) BASALT_PRINTF(2, 3);
static void putf(struct basalt_buffer *out, const char *fmt, ...)
{
    char buf[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    put(out, buf, (size_t)n);
}

static bool valid(const struct ArrowArray *a, int64_t i)
{
    if (a->n_buffers == 0)
        return false; /* the null type */
    const uint8_t *v = a->buffers[0];
    return !v || basalt_bitmap_get(v, a->offset + i);
}

static void put_double(struct basalt_buffer *out, double d, bool single)
{
    if (d != d) {
        puts_(out, "nan");
        return;
    }
    char buf[64];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*g", p, d);
        if (single ? (strtof(buf, NULL) == (float)d) : (strtod(buf, NULL) == d))
            break;
    }
    puts_(out, buf);
}

static void put_bytes(struct basalt_buffer *out, const uint8_t *p, int64_t n)
{
    puts_(out, "\"");
    for (int64_t k = 0; k < n; k++) {
        if (p[k] >= 0x20 && p[k] < 0x7f && p[k] != '"' && p[k] != '\\')
            put(out, (const char *)&p[k], 1);
        else
            putf(out, "\\x%02x", p[k]);
    }
    puts_(out, "\"");
}

static void put_int128(struct basalt_buffer *out, const uint8_t *p, int bytes)
{
    /* Little-endian two's complement of `bytes` bytes, printed in decimal. */
    uint8_t mag[32];
    memcpy(mag, p, (size_t)bytes);
    bool neg = (mag[bytes - 1] & 0x80) != 0;
    if (neg) {
        int carry = 1;
        for (int k = 0; k < bytes; k++) {
            int v = (uint8_t)~mag[k] + carry;
            mag[k] = (uint8_t)v;
            carry = v >> 8;
        }
    }
    char digits[90];
    int nd = 0;
    for (;;) {
        bool zero = true;
        int rem = 0;
        for (int k = bytes - 1; k >= 0; k--) {
            int cur = rem * 256 + mag[k];
            mag[k] = (uint8_t)(cur / 10);
            rem = cur % 10;
            if (mag[k])
                zero = false;
        }
        digits[nd++] = (char)('0' + rem);
        if (zero)
            break;
    }
    if (neg)
        puts_(out, "-");
    while (nd > 0)
        put(out, &digits[--nd], 1);
}

void pqr_text_value(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                    struct basalt_buffer *out)
{
    if (!valid(a, i)) {
        puts_(out, "null");
        return;
    }
    int64_t j = a->offset + i;
    if (s->dictionary) {
        const void *ix = a->buffers[1];
        int64_t k;
        switch (s->format[0]) {
        case 'c': k = ((const int8_t *)ix)[j]; break;
        case 's': k = ((const int16_t *)ix)[j]; break;
        case 'l': k = ((const int64_t *)ix)[j]; break;
        default: k = ((const int32_t *)ix)[j]; break;
        }
        pqr_text_value(s->dictionary, a->dictionary, k, out);
        return;
    }
    struct basalt_arrow_type t;
    if (basalt_arrow_type_parse(s->format, &t, NULL) != BASALT_OK) {
        puts_(out, "?");
        return;
    }
    const void *v = a->n_buffers > 1 ? a->buffers[1] : NULL;
    switch (t.id) {
    case BASALT_ARROW_TYPE_NULL: puts_(out, "null"); return;
    case BASALT_ARROW_TYPE_BOOL:
        puts_(out, basalt_bitmap_get(v, j) ? "true" : "false");
        return;
    case BASALT_ARROW_TYPE_INT8: putf(out, "%d", ((const int8_t *)v)[j]); return;
    case BASALT_ARROW_TYPE_UINT8: putf(out, "%u", ((const uint8_t *)v)[j]); return;
    case BASALT_ARROW_TYPE_INT16: putf(out, "%d", ((const int16_t *)v)[j]); return;
    case BASALT_ARROW_TYPE_UINT16: putf(out, "%u", ((const uint16_t *)v)[j]); return;
    case BASALT_ARROW_TYPE_INT32:
    case BASALT_ARROW_TYPE_DATE32:
    case BASALT_ARROW_TYPE_TIME32:
        putf(out, "%d", ((const int32_t *)v)[j]);
        return;
    case BASALT_ARROW_TYPE_UINT32: putf(out, "%u", ((const uint32_t *)v)[j]); return;
    case BASALT_ARROW_TYPE_INT64:
    case BASALT_ARROW_TYPE_DATE64:
    case BASALT_ARROW_TYPE_TIME64:
    case BASALT_ARROW_TYPE_TIMESTAMP:
    case BASALT_ARROW_TYPE_DURATION:
        putf(out, "%lld", (long long)((const int64_t *)v)[j]);
        return;
    case BASALT_ARROW_TYPE_UINT64:
        putf(out, "%llu", (unsigned long long)((const uint64_t *)v)[j]);
        return;
    case BASALT_ARROW_TYPE_HALF_FLOAT: {
        uint16_t h = ((const uint16_t *)v)[j];
        putf(out, "half:%04x", h);
        return;
    }
    case BASALT_ARROW_TYPE_FLOAT: put_double(out, ((const float *)v)[j], true); return;
    case BASALT_ARROW_TYPE_DOUBLE: put_double(out, ((const double *)v)[j], false); return;
    case BASALT_ARROW_TYPE_BINARY:
    case BASALT_ARROW_TYPE_STRING: {
        const int32_t *o = v;
        put_bytes(out, (const uint8_t *)a->buffers[2] + o[j], o[j + 1] - o[j]);
        return;
    }
    case BASALT_ARROW_TYPE_LARGE_BINARY:
    case BASALT_ARROW_TYPE_LARGE_STRING: {
        const int64_t *o = v;
        put_bytes(out, (const uint8_t *)a->buffers[2] + o[j], o[j + 1] - o[j]);
        return;
    }
    case BASALT_ARROW_TYPE_FIXED_SIZE_BINARY:
    case BASALT_ARROW_TYPE_INTERVAL_MONTH_DAY_NANO:
    case BASALT_ARROW_TYPE_INTERVAL_DAY_TIME:
    case BASALT_ARROW_TYPE_INTERVAL_MONTHS: {
        int64_t w = t.bit_width / 8;
        put_bytes(out, (const uint8_t *)v + j * w, w);
        return;
    }
    case BASALT_ARROW_TYPE_DECIMAL32:
    case BASALT_ARROW_TYPE_DECIMAL64:
    case BASALT_ARROW_TYPE_DECIMAL128:
    case BASALT_ARROW_TYPE_DECIMAL256: {
        int w = (int)(t.bit_width / 8);
        put_int128(out, (const uint8_t *)v + j * w, w);
        putf(out, "e-%d", t.scale);
        return;
    }
    case BASALT_ARROW_TYPE_LIST:
    case BASALT_ARROW_TYPE_LARGE_LIST:
    case BASALT_ARROW_TYPE_MAP: {
        int64_t b, e;
        if (t.id == BASALT_ARROW_TYPE_LARGE_LIST) {
            b = ((const int64_t *)v)[j];
            e = ((const int64_t *)v)[j + 1];
        } else {
            b = ((const int32_t *)v)[j];
            e = ((const int32_t *)v)[j + 1];
        }
        puts_(out, "[");
        for (int64_t k = b; k < e; k++) {
            if (k > b)
                puts_(out, ",");
            pqr_text_value(s->children[0], a->children[0], k, out);
        }
        puts_(out, "]");
        return;
    }
    case BASALT_ARROW_TYPE_FIXED_SIZE_LIST: {
        puts_(out, "[");
        for (int64_t k = 0; k < t.fixed_size; k++) {
            if (k)
                puts_(out, ",");
            pqr_text_value(s->children[0], a->children[0], j * t.fixed_size + k, out);
        }
        puts_(out, "]");
        return;
    }
    case BASALT_ARROW_TYPE_STRUCT:
        puts_(out, "{");
        for (int64_t c = 0; c < s->n_children; c++) {
            if (c)
                puts_(out, ",");
            puts_(out, s->children[c]->name ? s->children[c]->name : "");
            puts_(out, ":");
            pqr_text_value(s->children[c], a->children[c], j, out);
        }
        puts_(out, "}");
        return;
    default: puts_(out, "?"); return;
    }
}

void pqr_text_row(const struct ArrowSchema *s, const struct ArrowArray *batch, int64_t row,
                  struct basalt_buffer *out)
{
    puts_(out, "[");
    for (int64_t c = 0; c < s->n_children; c++) {
        if (c)
            puts_(out, ",");
        pqr_text_value(s->children[c], batch->children[c], batch->offset + row, out);
    }
    puts_(out, "]");
}

void pqr_text_batches(const struct ArrowSchema *s, const struct ArrowArray *batches, int64_t n,
                      struct basalt_buffer *out)
{
    for (int64_t b = 0; b < n; b++) {
        for (int64_t r = 0; r < batches[b].length; r++) {
            pqr_text_row(s, &batches[b], r, out);
            puts_(out, "\n");
        }
    }
}

TEST(reader_text_helper)
{
    struct basalt_error err;
    struct basalt_arrow_builder *b = NULL;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &b, &err), &err);
    struct basalt_arrow_builder *x, *y, *z, *d;
    CHECK_OK(basalt_arrow_builder_add_child(b, "i", "x", ARROW_FLAG_NULLABLE, &x, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "u", "y", ARROW_FLAG_NULLABLE, &y, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "g", "z", ARROW_FLAG_NULLABLE, &z, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "d:9,2", "d", ARROW_FLAG_NULLABLE, &d, &err),
             &err);
    CHECK_OK(basalt_arrow_builder_append_int(x, -3, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(y, "a\"\n", &err), &err);
    CHECK_OK(basalt_arrow_builder_append_double(z, 0.1, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(d, -12345, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(b, &err), &err);
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_finish(b, &s, &a, &err), &err);
    basalt_arrow_builder_free(b);
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    pqr_text_value(&s, &a, 0, &out);
    put(&out, "|", 1);
    pqr_text_row(&s, &a, 1, &out);
    put(&out, "", 1);
    bool ok = strcmp((const char *)out.data, "{x:-3,y:\"a\\x22\\x0a\",z:0.1,d:-12345e-2}|"
                                             "[null,null,null,null]") == 0;
    if (!ok)
        fprintf(stderr, "got %s\n", (const char *)out.data);
    basalt_buffer_reset(&out);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
    CHECK(ok);
}
