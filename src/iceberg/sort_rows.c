/* Sorting the rows a compaction or a sorted append writes: keys from sort
 * text or the table's sort order, a stable merge sort of (batch, row)
 * references compared on the Arrow values, and the sorted rows gathered
 * from all batches at once with basalt_arrow_take_many. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_write.h"
#include "maintain_internal.h"

/* Rows per batch handed to the writer. */
#define SORTED_BATCH_ROWS 65536

/* The value layouts keys can be compared in. */
enum kind { K_INT, K_UINT, K_FLOAT, K_BOOL, K_BYTES, K_LARGE_BYTES, K_FIXED, K_DECIMAL };

struct layout {
    enum kind kind;
    int width; /* bytes: ints, floats, fixed */
};

static bool layout_of(const char *f, struct layout *l)
{
    static const struct {
        const char *format;
        enum kind kind;
        int width;
    } simple[] = {
        {"c", K_INT, 1},   {"s", K_INT, 2},   {"i", K_INT, 4},         {"l", K_INT, 8},
        {"C", K_UINT, 1},  {"S", K_UINT, 2},  {"I", K_UINT, 4},        {"L", K_UINT, 8},
        {"f", K_FLOAT, 4}, {"g", K_FLOAT, 8}, {"b", K_BOOL, 0},        {"u", K_BYTES, 0},
        {"z", K_BYTES, 0}, {"U", K_LARGE_BYTES, 0}, {"Z", K_LARGE_BYTES, 0},
        {"tdD", K_INT, 4}, {"tdm", K_INT, 8}, {"tts", K_INT, 4},       {"ttm", K_INT, 4},
        {"ttu", K_INT, 8}, {"ttn", K_INT, 8},
    };
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
        if (strcmp(f, simple[i].format) == 0) {
            l->kind = simple[i].kind;
            l->width = simple[i].width;
            return true;
        }
    if (strncmp(f, "ts", 2) == 0 && f[2] && f[3] == ':') {
        l->kind = K_INT;
        l->width = 8;
        return true;
    }
    if (strncmp(f, "w:", 2) == 0) {
        l->kind = K_FIXED;
        l->width = atoi(f + 2);
        return l->width > 0;
    }
    if (strncmp(f, "d:", 2) == 0 && !strchr(strchr(f, ',') ? strchr(f, ',') + 1 : f, ',')) {
        l->kind = K_DECIMAL;
        l->width = 16;
        return true;
    }
    return false;
}

static basalt_status add_key(const struct ArrowSchema *schema, const char *name, size_t len,
                             bool desc, int nulls, struct basalt_iceberg_sort_key *keys,
                             uint32_t *n, struct basalt_error *err)
{
    for (int64_t c = 0; c < schema->n_children; c++) {
        const char *cn = schema->children[c]->name;
        if (!cn || strlen(cn) != len || strncmp(cn, name, len) != 0)
            continue;
        struct layout l;
        if (!layout_of(schema->children[c]->format, &l))
            return basalt_error_set(err, BASALT_UNSUPPORTED,
                                    "sort column '%.*s': its type has no order here", (int)len,
                                    name);
        keys[*n].column = c;
        keys[*n].descending = desc;
        /* Iceberg's default: nulls first ascending, last descending. */
        keys[*n].nulls_first = nulls < 0 ? !desc : nulls == 1;
        (*n)++;
        return BASALT_OK;
    }
    return basalt_error_set(err, BASALT_INVALID_ARG, "sort: no top-level column '%.*s'", (int)len,
                            name);
}

static bool word_is(const char *p, size_t len, const char *w)
{
    if (len != strlen(w))
        return false;
    for (size_t i = 0; i < len; i++)
        if (tolower((unsigned char)p[i]) != w[i])
            return false;
    return true;
}

/* One clause "col [asc|desc] [nulls first|nulls last]" of p[0, len). */
static basalt_status parse_clause(const char *p, size_t len, const struct ArrowSchema *schema,
                                  struct basalt_iceberg_sort_key *keys, uint32_t *n,
                                  struct basalt_error *err)
{
    const char *w[5];
    size_t wl[5];
    int nw = 0;
    for (size_t i = 0; i < len;) {
        while (i < len && isspace((unsigned char)p[i]))
            i++;
        if (i == len)
            break;
        if (nw == 5)
            return basalt_error_set(err, BASALT_INVALID_ARG, "sort: bad clause '%.*s'", (int)len,
                                    p);
        size_t s = i;
        while (i < len && !isspace((unsigned char)p[i]))
            i++;
        w[nw] = p + s;
        wl[nw++] = i - s;
    }
    bool desc = false;
    int nulls = -1, k = 1;
    if (k < nw && (word_is(w[k], wl[k], "asc") || word_is(w[k], wl[k], "desc"))) {
        desc = word_is(w[k], wl[k], "desc");
        k++;
    }
    if (k + 1 < nw && word_is(w[k], wl[k], "nulls") &&
        (word_is(w[k + 1], wl[k + 1], "first") || word_is(w[k + 1], wl[k + 1], "last"))) {
        nulls = word_is(w[k + 1], wl[k + 1], "first");
        k += 2;
    }
    if (nw == 0 || k != nw)
        return basalt_error_set(err, BASALT_INVALID_ARG, "sort: bad clause '%.*s'", (int)len, p);
    return add_key(schema, w[0], wl[0], desc, nulls, keys, n, err);
}

basalt_status basalt_iceberg_sort_keys(const struct basalt_iceberg_metadata *m, const char *text,
                                       const struct ArrowSchema *schema,
                                       struct basalt_iceberg_sort_key **keys, uint32_t *n_keys,
                                       struct basalt_error *err)
{
    *keys = NULL;
    *n_keys = 0;
    const struct basalt_iceberg_sort_order *order =
        text ? NULL : basalt_iceberg_metadata_sort_order(m, m->default_sort_order_id);
    size_t cap = order ? order->n_fields : 1;
    for (const char *p = text; p && *p; p++)
        cap += *p == ',';
    struct basalt_iceberg_sort_key *k = basalt_malloc((cap ? cap : 1) * sizeof *k);
    if (!k)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    uint32_t n = 0;
    basalt_status st = BASALT_OK;
    if (text) {
        for (const char *p = text; st == BASALT_OK;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            st = parse_clause(p, len, schema, k, &n, err);
            if (!e)
                break;
            p = e + 1;
        }
    } else if (!order || order->n_fields == 0) {
        st = basalt_error_set(err, BASALT_INVALID_ARG,
                              "sort: the table has no sort order; give one");
    } else {
        const struct basalt_iceberg_schema *s = basalt_iceberg_metadata_current_schema(m);
        for (uint32_t i = 0; st == BASALT_OK && i < order->n_fields; i++) {
            const struct basalt_iceberg_sort_field *f = &order->fields[i];
            enum basalt_iceberg_transform_kind t = f->transform.kind;
            if (t == BASALT_ICEBERG_TRANSFORM_VOID)
                continue;
            /* Order-preserving transforms: sorting by the source sorts by them. */
            if (t != BASALT_ICEBERG_TRANSFORM_IDENTITY && t != BASALT_ICEBERG_TRANSFORM_TRUNCATE &&
                t != BASALT_ICEBERG_TRANSFORM_YEAR && t != BASALT_ICEBERG_TRANSFORM_MONTH &&
                t != BASALT_ICEBERG_TRANSFORM_DAY && t != BASALT_ICEBERG_TRANSFORM_HOUR) {
                st = basalt_error_set(err, BASALT_UNSUPPORTED,
                                      "sort: the sort order's %s transform",
                                      f->transform.text ? f->transform.text : "?");
                break;
            }
            const struct basalt_iceberg_field *field = NULL;
            for (uint32_t c = 0; s && c < s->root.n_fields; c++)
                if (s->root.fields[c].id == f->source_id)
                    field = &s->root.fields[c];
            if (!field) {
                st = basalt_error_set(err, BASALT_UNSUPPORTED,
                                      "sort: source field %d is not a top-level column",
                                      (int)f->source_id);
                break;
            }
            st = add_key(schema, field->name, strlen(field->name),
                         f->direction == BASALT_ICEBERG_SORT_DESC,
                         f->null_order == BASALT_ICEBERG_NULLS_FIRST, k, &n, err);
        }
    }
    if (st == BASALT_OK && n == 0)
        st = basalt_error_set(err, BASALT_INVALID_ARG, "sort: no sort key");
    if (st != BASALT_OK) {
        basalt_free(k);
        return st;
    }
    *keys = k;
    *n_keys = n;
    return BASALT_OK;
}

/* ------------------------------------------------------------ comparing */

struct ref {
    uint32_t batch;
    int64_t row;
};

struct sorter {
    const struct ArrowArray *batches;
    const struct basalt_iceberg_sort_key *keys;
    const struct layout *layouts;
    uint32_t n_keys;
};

static bool is_valid(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *v = a->buffers[0];
    return !v || a->null_count == 0 || (v[(a->offset + i) >> 3] >> ((a->offset + i) & 7)) & 1;
}

static int cmp_bytes(const uint8_t *a, size_t la, const uint8_t *b, size_t lb)
{
    int c = memcmp(a, b, la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

static int cmp_value(const struct layout *l, const struct ArrowArray *a, int64_t i,
                     const struct ArrowArray *b, int64_t j)
{
    i += a->offset;
    j += b->offset;
    switch (l->kind) {
    case K_INT: {
        int64_t x = 0, y = 0;
        switch (l->width) {
        case 1: x = ((const int8_t *)a->buffers[1])[i], y = ((const int8_t *)b->buffers[1])[j]; break;
        case 2: x = ((const int16_t *)a->buffers[1])[i], y = ((const int16_t *)b->buffers[1])[j]; break;
        case 4: x = ((const int32_t *)a->buffers[1])[i], y = ((const int32_t *)b->buffers[1])[j]; break;
        default: x = ((const int64_t *)a->buffers[1])[i], y = ((const int64_t *)b->buffers[1])[j];
        }
        return (x > y) - (x < y);
    }
    case K_UINT: {
        uint64_t x = 0, y = 0;
        switch (l->width) {
        case 1: x = ((const uint8_t *)a->buffers[1])[i], y = ((const uint8_t *)b->buffers[1])[j]; break;
        case 2: x = ((const uint16_t *)a->buffers[1])[i], y = ((const uint16_t *)b->buffers[1])[j]; break;
        case 4: x = ((const uint32_t *)a->buffers[1])[i], y = ((const uint32_t *)b->buffers[1])[j]; break;
        default: x = ((const uint64_t *)a->buffers[1])[i], y = ((const uint64_t *)b->buffers[1])[j];
        }
        return (x > y) - (x < y);
    }
    case K_FLOAT: {
        double x = l->width == 4 ? ((const float *)a->buffers[1])[i] : ((const double *)a->buffers[1])[i];
        double y = l->width == 4 ? ((const float *)b->buffers[1])[j] : ((const double *)b->buffers[1])[j];
        /* NaN sorts after every number, as Iceberg orders floats. */
        bool nx = x != x, ny = y != y;
        if (nx || ny)
            return (int)nx - (int)ny;
        return (x > y) - (x < y);
    }
    case K_BOOL: {
        int x = (((const uint8_t *)a->buffers[1])[i >> 3] >> (i & 7)) & 1;
        int y = (((const uint8_t *)b->buffers[1])[j >> 3] >> (j & 7)) & 1;
        return x - y;
    }
    case K_BYTES: {
        const int32_t *oa = a->buffers[1], *ob = b->buffers[1];
        return cmp_bytes((const uint8_t *)a->buffers[2] + oa[i], (size_t)(oa[i + 1] - oa[i]),
                         (const uint8_t *)b->buffers[2] + ob[j], (size_t)(ob[j + 1] - ob[j]));
    }
    case K_LARGE_BYTES: {
        const int64_t *oa = a->buffers[1], *ob = b->buffers[1];
        return cmp_bytes((const uint8_t *)a->buffers[2] + oa[i], (size_t)(oa[i + 1] - oa[i]),
                         (const uint8_t *)b->buffers[2] + ob[j], (size_t)(ob[j + 1] - ob[j]));
    }
    case K_FIXED:
        return memcmp((const uint8_t *)a->buffers[1] + (size_t)i * (size_t)l->width,
                      (const uint8_t *)b->buffers[1] + (size_t)j * (size_t)l->width,
                      (size_t)l->width);
    case K_DECIMAL: {
        /* Little-endian two's complement 128-bit: the high words signed. */
        const uint64_t *x = (const uint64_t *)a->buffers[1] + 2 * i;
        const uint64_t *y = (const uint64_t *)b->buffers[1] + 2 * j;
        int64_t hx = (int64_t)x[1], hy = (int64_t)y[1];
        if (hx != hy)
            return (hx > hy) - (hx < hy);
        return (x[0] > y[0]) - (x[0] < y[0]);
    }
    }
    return 0;
}

static int cmp_ref(const struct sorter *s, const struct ref *a, const struct ref *b)
{
    for (uint32_t k = 0; k < s->n_keys; k++) {
        const struct basalt_iceberg_sort_key *key = &s->keys[k];
        const struct ArrowArray *x = s->batches[a->batch].children[key->column];
        const struct ArrowArray *y = s->batches[b->batch].children[key->column];
        bool vx = is_valid(x, a->row), vy = is_valid(y, b->row);
        int c;
        if (!vx || !vy)
            c = vx == vy ? 0 : (!vx == key->nulls_first ? -1 : 1);
        else {
            c = cmp_value(&s->layouts[k], x, a->row, y, b->row);
            if (key->descending)
                c = -c;
        }
        if (c)
            return c;
    }
    return 0;
}

/* Bottom-up merge sort: stable, O(n log n), with the sorter as context. */
static void merge_sort(const struct sorter *s, struct ref *v, struct ref *tmp, size_t n)
{
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                tmp[o++] = cmp_ref(s, &v[j], &v[i]) < 0 ? v[j++] : v[i++];
            while (i < mid)
                tmp[o++] = v[i++];
            while (j < hi)
                tmp[o++] = v[j++];
        }
        memcpy(v, tmp, n * sizeof *v);
    }
}

basalt_status basalt_iceberg_write_sorted(const struct ArrowSchema *schema,
                                          const struct ArrowArray *batches, uint32_t n,
                                          const struct basalt_iceberg_sort_key *keys,
                                          uint32_t n_keys, struct basalt_iceberg_data_writer *w,
                                          struct basalt_error *err)
{
    size_t rows = 0;
    for (uint32_t b = 0; b < n; b++)
        rows += (size_t)batches[b].length;
    if (rows == 0)
        return BASALT_OK;
    struct layout *layouts = basalt_malloc((n_keys ? n_keys : 1) * sizeof *layouts);
    struct ref *v = basalt_malloc(rows * sizeof *v), *tmp = basalt_malloc(rows * sizeof *tmp);
    int64_t *idx = basalt_malloc(rows * sizeof *idx);
    basalt_status st = layouts && v && tmp && idx
                           ? BASALT_OK
                           : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t k = 0; st == BASALT_OK && k < n_keys; k++)
        if (!layout_of(schema->children[keys[k].column]->format, &layouts[k]))
            st = basalt_error_set(err, BASALT_UNSUPPORTED, "sort: a column type has no order");
    if (st == BASALT_OK) {
        size_t at = 0;
        for (uint32_t b = 0; b < n; b++)
            for (int64_t r = 0; r < batches[b].length; r++)
                v[at++] = (struct ref){b, r};
        struct sorter s = {batches, keys, layouts, n_keys};
        merge_sort(&s, v, tmp, rows);
    }
    /* The sorted rows gathered from every batch at once, a slice of output
     * rows at a time, so the writer gets full batches whatever the input's
     * order. */
    int32_t *src = st == BASALT_OK ? basalt_malloc(SORTED_BATCH_ROWS * sizeof *src) : NULL;
    if (st == BASALT_OK && !src)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (size_t i = 0; st == BASALT_OK && i < rows; i += SORTED_BATCH_ROWS) {
        size_t m = rows - i < SORTED_BATCH_ROWS ? rows - i : SORTED_BATCH_ROWS;
        for (size_t j = 0; j < m; j++) {
            src[j] = (int32_t)v[i + j].batch;
            idx[j] = v[i + j].row;
        }
        struct ArrowArray out;
        st = basalt_arrow_take_many(schema, batches, (int32_t)n, src, idx, (int64_t)m, &out, err);
        if (st == BASALT_OK) {
            st = basalt_iceberg_data_writer_write(w, &out, err);
            basalt_arrow_array_release(&out);
        }
    }
    basalt_free(src);
    basalt_free(layouts);
    basalt_free(v);
    basalt_free(tmp);
    basalt_free(idx);
    return st;
}

basalt_status basalt_iceberg_data_writer_write_sorted(struct basalt_iceberg_data_writer *w,
                                                      const struct basalt_iceberg_metadata *m,
                                                      const struct ArrowSchema *schema,
                                                      const struct ArrowArray *batches,
                                                      uint32_t n, struct basalt_error *err)
{
    struct basalt_iceberg_sort_key *keys = NULL;
    uint32_t n_keys = 0;
    basalt_status st = basalt_iceberg_sort_keys(m, NULL, schema, &keys, &n_keys, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_write_sorted(schema, batches, n, keys, n_keys, w, err);
    basalt_free(keys);
    return st;
}
