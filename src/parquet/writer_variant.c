/* The writer's check of parquet.variant columns: every present variant's
 * metadata and value must be valid Variant bytes (VariantEncoding.md), so a
 * file never carries a VARIANT that readers must refuse. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/parquet_variant.h"
#include "parquet_writer.h"

static bool extension_is(const struct ArrowSchema *s, const char *name)
{
    const char *v;
    size_t n;
    return s->metadata &&
           basalt_arrow_metadata_get(s->metadata, "ARROW:extension:name", &v, &n, NULL) ==
               BASALT_OK &&
           n == strlen(name) && memcmp(v, name, n) == 0;
}

bool basalt_parquet_wvariant_present(const struct ArrowSchema *s)
{
    if (s->format[0] == '+' && strcmp(s->format, "+s") == 0 && extension_is(s, "parquet.variant"))
        return true;
    for (int64_t c = 0; c < s->n_children; c++)
        if (basalt_parquet_wvariant_present(s->children[c]))
            return true;
    return false;
}

static bool valid(const struct ArrowArray *a, int64_t j)
{
    return a->null_count == 0 || !a->buffers[0] || basalt_bitmap_get(a->buffers[0], j);
}

static void bytes_at(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t j,
                     const uint8_t **p, size_t *n)
{
    int64_t b, e;
    if (s->format[0] == 'Z') {
        b = ((const int64_t *)a->buffers[1])[j];
        e = ((const int64_t *)a->buffers[1])[j + 1];
    } else {
        b = ((const int32_t *)a->buffers[1])[j];
        e = ((const int32_t *)a->buffers[1])[j + 1];
    }
    *p = basalt_parquet_nonnull((const uint8_t *)a->buffers[2]) + b;
    *n = (size_t)(e - b);
}

/* Slot `j` (with the array's offset) of `a`, type `s`, and what is below it. */
static basalt_status check(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t j,
                           const char *column, int64_t row, struct basalt_error *err)
{
    if (!valid(a, j))
        return BASALT_OK;
    if (strcmp(s->format, "+s") == 0 && extension_is(s, "parquet.variant")) {
        const uint8_t *m = NULL, *v = NULL;
        size_t mn = 0, vn = 0;
        for (int64_t c = 0; c < s->n_children; c++) {
            const struct ArrowArray *ca = a->children[c];
            const char *name = s->children[c]->name ? s->children[c]->name : "";
            if (!valid(ca, ca->offset + j))
                continue; /* refused by the levels as a null in a required column */
            if (strcmp(name, "metadata") == 0)
                bytes_at(s->children[c], ca, ca->offset + j, &m, &mn);
            else if (strcmp(name, "value") == 0)
                bytes_at(s->children[c], ca, ca->offset + j, &v, &vn);
        }
        if (!m || !v)
            return BASALT_OK;
        struct basalt_parquet_variant_metadata md;
        size_t used = 0;
        basalt_status st = basalt_parquet_variant_metadata_parse(m, mn, &md, &used, err);
        if (st == BASALT_OK && used != mn)
            st = basalt_error_set(err, BASALT_INVALID_ARG, "variant metadata: %zu bytes after it",
                                  mn - used);
        if (st == BASALT_OK)
            st = basalt_parquet_variant_validate(&md, v, vn, &used, err);
        if (st == BASALT_OK && used != vn)
            st = basalt_error_set(err, BASALT_INVALID_ARG, "variant value: %zu bytes after it",
                                  vn - used);
        if (st != BASALT_OK)
            return basalt_error_context(err, BASALT_INVALID_ARG, "column '%s': row %" PRId64,
                                        column, row);
        return BASALT_OK;
    }
    if (s->format[0] != '+' || s->dictionary)
        return BASALT_OK;
    int64_t b = 0, e = 0;
    if (strcmp(s->format, "+s") == 0) {
        for (int64_t c = 0; c < s->n_children; c++) {
            basalt_status st = check(s->children[c], a->children[c], a->children[c]->offset + j,
                                     column, row, err);
            if (st != BASALT_OK)
                return st;
        }
        return BASALT_OK;
    }
    if (strcmp(s->format, "+l") == 0 || strcmp(s->format, "+m") == 0) {
        b = ((const int32_t *)a->buffers[1])[j];
        e = ((const int32_t *)a->buffers[1])[j + 1];
    } else if (strcmp(s->format, "+L") == 0) {
        b = ((const int64_t *)a->buffers[1])[j];
        e = ((const int64_t *)a->buffers[1])[j + 1];
    } else if (strncmp(s->format, "+w:", 3) == 0) {
        int64_t size = strtoll(s->format + 3, NULL, 10);
        b = j * size;
        e = b + size;
    } else {
        return BASALT_OK;
    }
    if (s->n_children < 1)
        return BASALT_OK;
    for (int64_t k = b; k < e; k++) {
        basalt_status st = check(s->children[0], a->children[0], a->children[0]->offset + k,
                                 column, row, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

basalt_status basalt_parquet_wvariant_check(const struct ArrowSchema *schema,
                                            const struct ArrowArray *batch,
                                            struct basalt_error *err)
{
    for (int64_t c = 0; c < schema->n_children; c++) {
        const struct ArrowSchema *s = schema->children[c];
        if (!basalt_parquet_wvariant_present(s))
            continue;
        const struct ArrowArray *a = batch->children[c];
        for (int64_t i = 0; i < batch->length; i++) {
            basalt_status st = check(s, a, a->offset + batch->offset + i, s->name ? s->name : "",
                                     i, err);
            if (st != BASALT_OK)
                return st;
        }
    }
    return BASALT_OK;
}
