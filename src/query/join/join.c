/* The join object: validation of the spec, the output schema, the build
 * locals and build_finish (batches ordered by seq, concatenated, the table
 * built on the pool). Probing is in join_probe.c. */
#include <stdlib.h>
#include <string.h>

#include "join/join_impl.h"

static basalt_status nomem(struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

static bool is_struct(const struct ArrowSchema *s)
{
    return s && s->release && s->format && strcmp(s->format, "+s") == 0;
}

/* Key pairs must have one type; string and binary widths (large or not) may differ. */
static basalt_status same_type(const struct ArrowSchema *a, const struct ArrowSchema *b,
                               struct basalt_error *err)
{
    struct basalt_query_type x, y;
    basalt_status st = basalt_query_type_from_format(a->format, &x, err);
    if (st == BASALT_OK)
        st = basalt_query_type_from_format(b->format, &y, err);
    if (st != BASALT_OK)
        return st;
    x.large = y.large = false;
    if (!basalt_query_type_equal(x, y)) {
        char n1[64], n2[64];
        return basalt_error_set(err, BASALT_UNSUPPORTED, "join keys '%s' and '%s' differ in type "
                                "(%s, %s)", a->name ? a->name : "", b->name ? b->name : "",
                                basalt_query_type_name(x, n1, sizeof n1),
                                basalt_query_type_name(y, n2, sizeof n2));
    }
    return BASALT_OK;
}

/* The type's own output row (probe then build columns, or one side's) as
 * indices into the INNER layout: its column i is INNER column base + i. */
static void type_layout(const struct basalt_qjoin *j, int64_t *base, int64_t *width)
{
    int64_t np = j->probe_schema.n_children, nb = j->build_schema.n_children;
    bool semi = j->type == BASALT_QJOIN_SEMI || j->type == BASALT_QJOIN_ANTI;
    bool right_semi = j->type == BASALT_QJOIN_RIGHT_SEMI || j->type == BASALT_QJOIN_RIGHT_ANTI;
    *base = right_semi ? np : 0;
    *width = semi ? np : right_semi ? nb : np + nb;
}

/* j->out_cols: the spec's output columns, or all of the type's. */
static basalt_status output_columns(struct basalt_qjoin *j, const struct basalt_qjoin_spec *spec,
                                    struct basalt_error *err)
{
    int64_t base, width;
    type_layout(j, &base, &width);
    bool narrowed = spec->output_columns != NULL;
    int64_t n = narrowed ? spec->n_output_columns : width;
    if (n < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "join: %lld output columns",
                                (long long)n);
    j->out_cols = basalt_calloc((size_t)n + 1, sizeof *j->out_cols);
    if (!j->out_cols)
        return nomem(err);
    for (int64_t i = 0; i < n; i++) {
        int64_t c = narrowed ? spec->output_columns[i] : i;
        if (c < 0 || c >= width)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "join: output column %lld out of range", (long long)c);
        j->out_cols[i] = (int)(base + c);
    }
    j->n_out_cols = (int)n;
    return BASALT_OK;
}

basalt_status basalt_qjoin_new(const struct basalt_qjoin_spec *spec, struct basalt_qjoin **out,
                               struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (!spec || !out || !is_struct(spec->probe_schema) || !is_struct(spec->build_schema))
        return basalt_error_set(err, BASALT_INVALID_ARG, "join: NULL spec or inputs not structs");
    if (spec->type < BASALT_QJOIN_INNER || spec->type > BASALT_QJOIN_RIGHT_ANTI)
        return basalt_error_set(err, BASALT_INVALID_ARG, "join: unknown type %d", (int)spec->type);
    bool cross = spec->type == BASALT_QJOIN_CROSS;
    if (spec->n_keys < 0 || (cross && spec->n_keys != 0) || (!cross && spec->n_keys == 0) ||
        (spec->n_keys > 0 && (!spec->probe_keys || !spec->build_keys)))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "join: %d keys (CROSS takes none, the others at least one)",
                                spec->n_keys);
    if (spec->residual && (basalt_query_program_outputs(spec->residual) < 1 ||
                           basalt_query_program_type(spec->residual, 0).id != BASALT_QUERY_TYPE_BOOL))
        return basalt_error_set(err, BASALT_INVALID_ARG, "join: residual is not a BOOL program");
    struct basalt_qjoin *j = basalt_calloc(1, sizeof *j);
    if (!j)
        return nomem(err);
    j->type = spec->type;
    j->n_keys = spec->n_keys;
    j->residual = spec->residual;
    basalt_status st = basalt_arrow_schema_copy(spec->probe_schema, &j->probe_schema, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_copy(spec->build_schema, &j->build_schema, err);
    if (st != BASALT_OK) {
        basalt_qjoin_free(j);
        return st;
    }
    if (spec->residual_columns && spec->n_residual_columns > 0) {
        int64_t width = spec->probe_schema->n_children + spec->build_schema->n_children;
        j->res_cols = basalt_calloc((size_t)spec->n_residual_columns, sizeof *j->res_cols);
        if (!j->res_cols) {
            basalt_qjoin_free(j);
            return nomem(err);
        }
        j->n_res_cols = spec->n_residual_columns;
        for (int i = 0; i < j->n_res_cols; i++) {
            int c = spec->residual_columns[i];
            if (c < 0 || c >= width) {
                basalt_qjoin_free(j);
                return basalt_error_set(err, BASALT_INVALID_ARG,
                                        "join: residual column %d out of range", c);
            }
            j->res_cols[i] = c;
        }
    }
    st = output_columns(j, spec, err);
    if (st != BASALT_OK) {
        basalt_qjoin_free(j);
        return st;
    }
    int nk = spec->n_keys ? spec->n_keys : 1;
    j->probe_keys = basalt_calloc((size_t)nk, sizeof *j->probe_keys);
    j->build_keys = basalt_calloc((size_t)nk, sizeof *j->build_keys);
    j->kt = basalt_calloc((size_t)nk, sizeof *j->kt);
    if (!j->probe_keys || !j->build_keys || !j->kt) {
        basalt_qjoin_free(j);
        return nomem(err);
    }
    for (int k = 0; k < spec->n_keys; k++) {
        int p = spec->probe_keys[k], b = spec->build_keys[k];
        if (p < 0 || p >= spec->probe_schema->n_children || b < 0 ||
            b >= spec->build_schema->n_children) {
            basalt_qjoin_free(j);
            return basalt_error_set(err, BASALT_INVALID_ARG, "join: key %d column out of range", k);
        }
        j->probe_keys[k] = p;
        j->build_keys[k] = b;
        st = same_type(spec->probe_schema->children[p], spec->build_schema->children[b], err);
        if (st == BASALT_OK)
            st = basalt_qj_keytype(spec->probe_schema->children[p], &j->kt[k], err);
        if (st != BASALT_OK) {
            basalt_qjoin_free(j);
            return st;
        }
    }
    *out = j;
    return BASALT_OK;
}

void basalt_qjoin_free(struct basalt_qjoin *j)
{
    if (!j)
        return;
    basalt_arrow_schema_release(&j->probe_schema);
    basalt_arrow_schema_release(&j->build_schema);
    basalt_arrow_array_release(&j->build);
    basalt_free(j->probe_keys);
    basalt_free(j->build_keys);
    basalt_free(j->kt);
    basalt_free(j->res_cols);
    basalt_free(j->out_cols);
    basalt_free(j->offs);
    basalt_free(j->erow);
    basalt_free(j->ekey);
    basalt_free(j->drow);
    basalt_free((void *)(uintptr_t)j->matched);
    basalt_free(j);
}

basalt_status basalt_qjoin_output_schema(const struct basalt_qjoin *j, struct ArrowSchema *out,
                                         struct basalt_error *err)
{
    basalt_status st = basalt_arrow_schema_init(out, "+s", "", 0, j->n_out_cols, err);
    if (st != BASALT_OK)
        return st;
    int64_t np = j->probe_schema.n_children;
    bool null_probe = j->type == BASALT_QJOIN_RIGHT || j->type == BASALT_QJOIN_FULL;
    bool null_build = j->type == BASALT_QJOIN_LEFT || j->type == BASALT_QJOIN_FULL;
    for (int i = 0; i < j->n_out_cols && st == BASALT_OK; i++) {
        int64_t c = j->out_cols[i];
        const struct ArrowSchema *src =
            c < np ? j->probe_schema.children[c] : j->build_schema.children[c - np];
        st = basalt_arrow_schema_copy(src, out->children[i], err);
        if (st == BASALT_OK && (c < np ? null_probe : null_build))
            out->children[i]->flags |= ARROW_FLAG_NULLABLE;
    }
    if (st != BASALT_OK)
        basalt_arrow_schema_release(out);
    return st;
}

basalt_status basalt_qjoin_build_local_new(struct basalt_qjoin *j,
                                           struct basalt_qjoin_build_local **out,
                                           struct basalt_error *err)
{
    if (!j || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "join: NULL argument");
    *out = basalt_calloc(1, sizeof **out);
    if (!*out)
        return nomem(err);
    (*out)->j = j;
    return BASALT_OK;
}

void basalt_qjoin_build_local_free(struct basalt_qjoin_build_local *l)
{
    if (!l)
        return;
    for (int64_t i = 0; i < l->n; i++)
        basalt_arrow_array_release(&l->b[i].a);
    basalt_free(l->b);
    basalt_free(l);
}

basalt_status basalt_qjoin_build_consume(struct basalt_qjoin_build_local *l,
                                         struct ArrowArray *batch, int64_t seq,
                                         struct basalt_error *err)
{
    if (!l || !batch || !batch->release) {
        basalt_arrow_array_release(batch);
        return basalt_error_set(err, BASALT_INVALID_ARG, "join: NULL or released build batch");
    }
    if (seq < 0 || batch->n_children != l->j->build_schema.n_children) {
        basalt_arrow_array_release(batch);
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "join: build batch with %lld columns (schema %lld) or seq %lld",
                                (long long)batch->n_children,
                                (long long)l->j->build_schema.n_children, (long long)seq);
    }
    if (l->n == l->cap) {
        int64_t cap = l->cap ? 2 * l->cap : 16;
        struct qj_batch *b = basalt_realloc(l->b, (size_t)cap * sizeof *b);
        if (!b) {
            basalt_arrow_array_release(batch);
            return nomem(err);
        }
        l->b = b;
        l->cap = cap;
    }
    l->b[l->n].seq = seq;
    basalt_arrow_array_move(batch, &l->b[l->n].a);
    l->n++;
    return BASALT_OK;
}

static int by_seq(const void *a, const void *b)
{
    int64_t x = ((const struct qj_batch *)a)->seq, y = ((const struct qj_batch *)b)->seq;
    return x < y ? -1 : x > y;
}

basalt_status basalt_qjoin_build_finish(struct basalt_qjoin *j,
                                        struct basalt_qjoin_build_local **locals, int n_locals,
                                        struct basalt_pool *pool, struct basalt_error *err)
{
    if (!j || j->finished || j->build.release || j->offs || j->matched || n_locals < 0 || (n_locals > 0 && !locals))
        return basalt_error_set(err, BASALT_INVALID_ARG, "join: build_finish called twice or "
                                                         "without locals");
    int64_t nb = 0;
    for (int i = 0; i < n_locals; i++)
        nb += locals[i] ? locals[i]->n : 0;
    struct qj_batch *all = basalt_malloc((size_t)(nb ? nb : 1) * sizeof *all);
    if (!all)
        return nomem(err);
    int64_t k = 0, rows = 0;
    for (int i = 0; i < n_locals; i++) {
        if (!locals[i])
            continue;
        for (int64_t b = 0; b < locals[i]->n; b++) {
            all[k] = locals[i]->b[b];
            rows += all[k].a.length;
            k++;
        }
        locals[i]->n = 0; /* moved out */
    }
    qsort(all, (size_t)nb, sizeof *all, by_seq);
    basalt_status st = BASALT_OK;
    for (int64_t b = 1; b < nb && st == BASALT_OK; b++)
        if (all[b].seq == all[b - 1].seq)
            st = basalt_error_set(err, BASALT_INVALID_ARG, "join: two build batches with seq %lld",
                                  (long long)all[b].seq);
    if (st == BASALT_OK && rows >= (int64_t)UINT32_MAX)
        st = basalt_error_set(err, BASALT_LIMIT, "join: %lld build rows (at most 2^32-2)",
                              (long long)rows);
    if (st == BASALT_OK && nb == 1) {
        basalt_arrow_array_move(&all[0].a, &j->build);
    } else if (st == BASALT_OK && rows > 0) {
        st = basalt_qj_concat(&j->build_schema, all, nb, pool, &j->build, err);
    }
    for (int64_t b = 0; b < nb; b++)
        basalt_arrow_array_release(&all[b].a);
    basalt_free(all);
    if (st != BASALT_OK)
        return st;
    j->n_build = rows;
    st = basalt_qj_build_table(j, pool, err);
    if (st != BASALT_OK)
        return st;
    j->finished = true;
    return BASALT_OK;
}

void basalt_qjoin_stats(const struct basalt_qjoin *j, struct basalt_qjoin_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!j)
        return;
    /* C11's atomic_load takes a non-const pointer. */
    struct basalt_qjoin *m = (struct basalt_qjoin *)(uintptr_t)j;
    out->table = j->table;
    out->direct_unique = j->drow != NULL;
    out->build_rows = j->n_build;
    out->direct_lookups = atomic_load(&m->direct_lookups);
    out->integer_lookups = atomic_load(&m->integer_lookups);
    out->hashed_lookups = atomic_load(&m->hashed_lookups);
    out->hash_hits_compared = atomic_load(&m->hash_hits);
    out->residual_pairs = atomic_load(&m->residual_pairs);
}
