#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joinsort_util.h"
#include "query_test_util.h"

static int split(const char *s, char out[][32], int max)
{
    int n = 0;
    while (*s && n < max) {
        const char *e = strchr(s, ',');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        snprintf(out[n++], 32, "%.*s", (int)len, s);
        if (!e)
            break;
        s = e + 1;
    }
    return n;
}

basalt_status js_table(const char *fmts, const char *names, const char *const *cells, int rows,
                       struct ArrowSchema *schema, struct ArrowArray *array)
{
    char f[16][32], nm[16][32];
    int nc = split(fmts, f, 16);
    split(names, nm, 16);
    struct basalt_arrow_builder *root, *c[16];
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, NULL);
    for (int k = 0; k < nc && st == BASALT_OK; k++)
        st = basalt_arrow_builder_add_child(root, f[k], nm[k], ARROW_FLAG_NULLABLE, &c[k], NULL);
    for (int r = 0; r < rows && st == BASALT_OK; r++) {
        for (int k = 0; k < nc && st == BASALT_OK; k++) {
            const char *v = cells[r * nc + k];
            if (strcmp(v, "NULL") == 0)
                st = basalt_arrow_builder_append_null(c[k], NULL);
            else if (f[k][0] == 'u' || f[k][0] == 'U' || f[k][0] == 'z' || f[k][0] == 'Z')
                st = basalt_arrow_builder_append_string(c[k], v, NULL);
            else if (f[k][0] == 'g' || f[k][0] == 'f')
                st = basalt_arrow_builder_append_double(
                    c[k], strcmp(v, "nan") == 0 ? NAN : strcmp(v, "-0") == 0 ? -0.0 : strtod(v, NULL),
                    NULL);
            else if (f[k][0] == 'b')
                st = basalt_arrow_builder_append_bool(c[k], strcmp(v, "true") == 0, NULL);
            else
                st = basalt_arrow_builder_append_int(c[k], strtoll(v, NULL, 10), NULL);
        }
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, NULL);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(root, schema, array, NULL);
    basalt_arrow_builder_free(root);
    return st;
}

basalt_status js_slice(const struct ArrowSchema *schema, const struct ArrowArray *a, int64_t begin,
                       int64_t end, struct ArrowArray *out)
{
    int64_t n = end - begin;
    int64_t *idx = malloc((size_t)(n ? n : 1) * sizeof *idx);
    for (int64_t i = 0; i < n; i++)
        idx[i] = begin + i;
    basalt_status st = basalt_arrow_take(schema, a, idx, n, out, NULL);
    free(idx);
    return st;
}

void js_render_rows(const struct ArrowSchema *schema, const struct ArrowArray *a, char ***lines,
                    int64_t *n)
{
    for (int64_t r = 0; r < a->length; r++) {
        char line[4096] = "";
        size_t len = 0;
        for (int64_t c = 0; c < schema->n_children; c++) {
            struct basalt_query_type t;
            char cell[512];
            if (basalt_query_type_from_format(schema->children[c]->format, &t, NULL) != BASALT_OK)
                snprintf(cell, sizeof cell, "?");
            else {
                /* A struct's offset applies to its children: view the child shifted. */
                struct ArrowArray child = *a->children[c];
                child.offset += a->offset;
                qt_cell(&child, t, r, cell, sizeof cell);
            }
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%s", c ? "|" : "", cell);
        }
        *lines = realloc(*lines, (size_t)(*n + 1) * sizeof **lines);
        (*lines)[(*n)++] = strdup(line);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *js_render(const struct basalt_arrow_batches *b, bool sort)
{
    char **lines = NULL;
    int64_t n = 0;
    for (int64_t i = 0; i < b->n; i++)
        js_render_rows(&b->schema, &b->arrays[i], &lines, &n);
    if (sort && n > 1)
        qsort(lines, (size_t)n, sizeof *lines, cmp_str);
    size_t total = 1;
    for (int64_t i = 0; i < n; i++)
        total += strlen(lines[i]) + 1;
    char *s = malloc(total), *p = s;
    *p = 0;
    for (int64_t i = 0; i < n; i++) {
        p += sprintf(p, "%s\n", lines[i]);
        free(lines[i]);
    }
    free(lines);
    return s;
}
