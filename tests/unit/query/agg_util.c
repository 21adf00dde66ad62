#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg_util.h"
#include "query_test_util.h"
#include "test.h"

basalt_status at_array(const char *fmt, const char *const *cells, int64_t n,
                       struct ArrowArray *out)
{
    struct basalt_arrow_builder *b;
    struct ArrowSchema s;
    basalt_status st = basalt_arrow_builder_new(fmt, NULL, ARROW_FLAG_NULLABLE, &b, NULL);
    if (st != BASALT_OK)
        return st;
    for (int64_t i = 0; i < n && st == BASALT_OK; i++) {
        const char *c = cells[i];
        if (strcmp(c, "N") == 0)
            st = basalt_arrow_builder_append_null(b, NULL);
        else if (fmt[0] == 'u' || fmt[0] == 'U' || fmt[0] == 'z')
            st = basalt_arrow_builder_append_bytes(b, c, (int64_t)strlen(c), NULL);
        else if (fmt[0] == 'g' || fmt[0] == 'f')
            st = basalt_arrow_builder_append_double(b, strtod(c, NULL), NULL);
        else if (fmt[0] == 'b')
            st = basalt_arrow_builder_append_bool(b, c[0] == 't', NULL);
        else if (fmt[0] == 'L' || fmt[0] == 'I' || fmt[0] == 'S' || fmt[0] == 'C')
            st = basalt_arrow_builder_append_uint(b, strtoull(c, NULL, 10), NULL);
        else
            st = basalt_arrow_builder_append_int(b, strtoll(c, NULL, 10), NULL);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(b, &s, out, NULL);
    if (st == BASALT_OK)
        basalt_arrow_schema_release(&s);
    basalt_arrow_builder_free(b);
    return st;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void at_free(char **rows, int64_t n)
{
    for (int64_t i = 0; rows && i < n; i++)
        free(rows[i]);
    free(rows);
}

/* A window [lo, lo + len) of an array, as a view with an offset. */
static struct ArrowArray view(const struct ArrowArray *a, int64_t lo, int64_t len)
{
    struct ArrowArray v = *a;
    v.offset = a->offset + lo;
    v.length = len;
    v.null_count = a->null_count ? -1 : 0;
    v.release = NULL;
    return v;
}

basalt_status at_run(struct basalt_qagg *agg, const struct basalt_query_type *kt, int nk,
                     const struct basalt_qagg_call *calls, int nc,
                     const struct ArrowArray *keys, const struct ArrowArray *args, int64_t n,
                     const struct at_opts *o, char ***rows, int64_t *n_rows,
                     struct basalt_error *err)
{
    int nl = o->locals > 0 ? o->locals : 1;
    struct basalt_qagg_local *locals[16];
    basalt_status st = BASALT_OK;
    int made = 0;
    for (; made < nl && st == BASALT_OK; made++)
        st = basalt_qagg_local_new(agg, &locals[made], err);
    if (st != BASALT_OK)
        made--;
    struct bt_rng rng;
    bt_rng_seed(&rng, o->split_seed);
    int64_t pos = 0;
    int who = 0;
    while (st == BASALT_OK && pos < n) {
        int64_t len = o->split_seed ? 1 + (int64_t)bt_rng_below(&rng, 5000) : (n + nl - 1) / nl;
        if (len > n - pos)
            len = n - pos;
        struct ArrowArray kv[8], av[16], av2[16];
        const struct ArrowArray *kp[8], *ap[16], *ap2[16];
        for (int k = 0; k < nk; k++) {
            kv[k] = view(&keys[k], pos, len);
            kp[k] = &kv[k];
        }
        for (int c = 0; c < nc; c++) {
            if (calls[c].kind == BASALT_QAGG_COUNT_STAR) {
                ap[c] = NULL;
            } else {
                av[c] = view(&args[c], pos, len);
                ap[c] = &av[c];
            }
            ap2[c] = NULL;
            if (o->args2 && basalt_qagg_call_two_args(&calls[c])) {
                av2[c] = view(&o->args2[c], pos, len);
                ap2[c] = &av2[c];
            }
        }
        st = basalt_qagg_consume(locals[who], kp, ap, ap2, len, err);
        who = (who + 1) % nl;
        pos += len;
    }
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    if (st == BASALT_OK)
        st = basalt_qagg_finish(agg, locals, nl, o->pool, &out, err);
    for (int i = 0; i < made; i++)
        basalt_qagg_local_free(locals[i]);
    if (st != BASALT_OK) {
        basalt_arrow_batches_reset(&out);
        return st;
    }
    int64_t total = 0;
    for (int64_t b = 0; b < out.n; b++)
        total += out.arrays[b].length;
    char **lines = calloc((size_t)total + 1, sizeof *lines);
    int64_t r = 0;
    for (int64_t b = 0; b < out.n; b++) {
        const struct ArrowArray *batch = &out.arrays[b];
        for (int64_t i = 0; i < batch->length; i++, r++) {
            char line[4096] = "", cell[1024];
            for (int c = 0; c < nk + nc; c++) {
                struct basalt_query_type t;
                if (c < nk) {
                    t = kt[c];
                } else {
                    basalt_qagg_result_type(&calls[c - nk], &t, NULL);
                }
                qt_cell(batch->children[c], t, i, cell, sizeof cell);
                if (c)
                    strncat(line, "|", sizeof line - strlen(line) - 1);
                strncat(line, cell, sizeof line - strlen(line) - 1);
            }
            lines[r] = strdup(line);
        }
    }
    basalt_arrow_batches_reset(&out);
    if (o->sorted)
        qsort(lines, (size_t)total, sizeof *lines, cmp_str);
    *rows = lines;
    *n_rows = total;
    return BASALT_OK;
}
