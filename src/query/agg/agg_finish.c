/* finish: the locals' groups are bucketed by partition (the top bits of
 * their hash), each partition is merged on one worker into a table of its
 * own, its groups are ordered by hash, and the output batches are written in
 * parallel from the merged tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg_internal.h"
#include "spill/spill.h"

struct fin {
    struct basalt_qagg *agg;
    struct basalt_qagg_local **locals;
    int n_locals;
    /* One local and nothing collected: its groups need no merge, each
     * partition is just its groups in output order (n_part[p] of them). */
    bool direct;
    int64_t n_part[QAGG_PARTS];
    /* per local: groups bucketed by partition, and the merged group id of each */
    int64_t (*part_off)[QAGG_PARTS + 1];
    uint32_t **part_gid;
    uint32_t **map;
    /* per local and collecting call: entries bucketed by partition */
    int64_t (*coll_off)[QAGG_PARTS + 1]; /* [local * n_calls + call] */
    int64_t **coll_idx;
    /* per partition */
    struct basalt_qagg_local *parts;
    uint32_t **order;          /* groups of the partition in output order */
    int64_t **coll_start;      /* [part * n_calls + call]: per group, start of its values */
    basalt_status *status;     /* per task */
    struct basalt_error *errs; /* per task */
    /* output */
    uint32_t *ref_part, *ref_gid;
    int64_t n_out;
    struct ArrowArray *batches;
    int64_t out_bytes; /* spilled finish: the result's size in memory so far */
    const struct basalt_qagg_spill_ops *ops; /* spilled finish: ops->emit takes the batches */
    /* spilled finish, a partition split again: only the groups whose hash
     * starts with the pre_bits bits `pre` (0 bits: all) */
    int pre_bits;
    uint64_t pre;
    /* spilled finish: result batches of small ranges, merged into batches
     * of up to QAGG_BATCH_ROWS before they go out */
    struct basalt_arrow_batches pend;
    int64_t pend_rows;
    /* per partition, when each is merged and written in one task
     * (merge_write_task): its batches */
    struct ArrowArray **part_batches;
    int64_t *n_part_batches;
};


static int part_of(uint64_t h)
{
    return (int)(h >> (64 - QAGG_PART_BITS));
}

/* ------------------------------------------------------------ phase 1 */

static basalt_status bucket_local(struct fin *f, int i, struct basalt_error *err)
{
    struct basalt_qagg_local *l = f->locals[i];
    const struct basalt_qagg *a = f->agg;
    int64_t *off = f->part_off[i];
    memset(off, 0, sizeof f->part_off[i]);
    f->part_gid[i] = basalt_malloc(sizeof(uint32_t) * (size_t)(l->n_groups + 1));
    f->map[i] = basalt_malloc(sizeof(uint32_t) * (size_t)(l->n_groups + 1));
    if (!f->part_gid[i] || !f->map[i])
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    for (int64_t g = 0; g < l->n_groups; g++)
        off[part_of(l->hashes[g]) + 1]++;
    for (int p = 0; p < QAGG_PARTS; p++)
        off[p + 1] += off[p];
    int64_t pos[QAGG_PARTS];
    memcpy(pos, off, sizeof pos);
    for (int64_t g = 0; g < l->n_groups; g++)
        f->part_gid[i][pos[part_of(l->hashes[g])]++] = (uint32_t)g;
    for (int c = 0; c < a->n_calls; c++) {
        if (a->calls[c].state != QS_COLLECT)
            continue;
        struct qagg_coll *co = &l->coll[c];
        int64_t *co_off = f->coll_off[(size_t)i * (size_t)a->n_calls + (size_t)c];
        memset(co_off, 0, sizeof(int64_t) * (QAGG_PARTS + 1));
        int64_t *idx = basalt_malloc(sizeof(int64_t) * (size_t)(co->n + 1));
        if (!idx)
            return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
        f->coll_idx[(size_t)i * (size_t)a->n_calls + (size_t)c] = idx;
        for (int64_t e = 0; e < co->n; e++)
            co_off[part_of(l->hashes[co->gid[e]]) + 1]++;
        for (int p = 0; p < QAGG_PARTS; p++)
            co_off[p + 1] += co_off[p];
        memcpy(pos, co_off, sizeof pos);
        for (int64_t e = 0; e < co->n; e++)
            idx[pos[part_of(l->hashes[co->gid[e]])]++] = e;
    }
    return BASALT_OK;
}

/* dst[to[g]] = src[g] for n elements of sz bytes; the common sizes get
 * fixed-size copies the compiler inlines (a libc call per element costs
 * more than the copy). */
static void scatter(uint8_t *dst, const uint8_t *src, const uint32_t *to, int64_t n, size_t sz)
{
#define SCATTER(K)                                                                       \
    for (int64_t g = 0; g < n; g++)                                                      \
        memcpy(dst + (size_t)to[g] * (K), src + (size_t)g * (K), (K));                   \
    return
    switch (sz) {
    case 1: SCATTER(1);
    case 8: SCATTER(8);
    case 16: SCATTER(16);
    case 24: SCATTER(24);
    case 32: SCATTER(32);
    case 40: SCATTER(40);
    default: SCATTER(sz);
    }
#undef SCATTER
}

/* Moves local i's groups into partition order (group k of the new order is
 * part_gid[i][k] of the old), so that the merge and the writers read each
 * partition's rows and states as one contiguous run instead of gathering
 * them across the whole table: one sequential pass here replaces a cache
 * miss per group and state later. The local's indexes are dropped (nothing
 * probes it again before its reset), which also bounds the extra memory. */
static basalt_status reorder_local(struct fin *f, int i, struct basalt_error *err)
{
    struct basalt_qagg_local *l = f->locals[i];
    const struct basalt_qagg *a = f->agg;
    int64_t n = l->n_groups;
    size_t w = (size_t)a->row_width, nn = (size_t)n + 1;
    basalt_free(l->slots);
    basalt_free(l->wslots);
    l->slots = NULL;
    l->wslots = NULL;
    l->mask = l->wmask = 0;
    l->in_slots = l->in_wslots = 0;
    uint32_t *to = basalt_malloc(sizeof *to * nn);
    uint8_t *rows = basalt_malloc(w * nn);
    uint64_t *hashes = basalt_malloc(sizeof *hashes * nn);
    if (!to || !rows || !hashes) {
        basalt_free(to);
        basalt_free(rows);
        basalt_free(hashes);
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    }
    for (int64_t k = 0; k < n; k++)
        to[f->part_gid[i][k]] = (uint32_t)k;
    scatter(rows, l->rows, to, n, w);
    scatter((uint8_t *)hashes, (const uint8_t *)l->hashes, to, n, sizeof *hashes);
    basalt_free(l->rows);
    basalt_free(l->hashes);
    l->rows = rows;
    l->hashes = hashes;
    for (int c = 0; c < a->n_calls; c++) {
        size_t sz = a->calls[c].state_size;
        if (!sz)
            continue;
        uint8_t *s = basalt_malloc(sz * nn);
        if (!s) {
            /* states of the calls before c are moved, the rest not: the
             * local can only be reset now, and the error ends the finish */
            basalt_free(to);
            return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
        }
        scatter(s, l->states[c], to, n, sz);
        basalt_free(l->states[c]);
        l->states[c] = s;
    }
    l->cap_groups = n;
    basalt_free(to);
    return BASALT_OK;
}

static void bucket_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct fin *f = ctx;
    for (int64_t i = begin; i < end; i++) {
        f->status[i] = bucket_local(f, (int)i, &f->errs[i]);
        if (f->status[i] == BASALT_OK)
            f->status[i] = reorder_local(f, (int)i, &f->errs[i]);
    }
}

/* ------------------------------------------------------------ phase 2 */

struct sort_ctx {
    const struct basalt_qagg_local *t;
    enum qagg_phys phys;
    bool keyed; /* an ordered STRING_AGG's (order key, piece) values */
};

static int cmp_cells(const void *x, const void *y, void *ctx)
{
    const struct sort_ctx *s = ctx;
    return s->keyed ? basalt_qagg_keyed_cmp(x, y) : basalt_qagg_cell_cmp(s->phys, x, y);
}

/* Partition p's collected values of call c, grouped by their group in the
 * partition's table straight from the locals (a counting sort through the
 * locals' group maps: no copy of them in between), then each group's
 * values sorted, or for a quantile the values of the ranks it reads put in
 * place (agg_select.c). */
static basalt_status group_collected(struct fin *f, int p, int c, struct basalt_error *err)
{
    const struct basalt_qagg *a = f->agg;
    struct basalt_qagg_local *t = &f->parts[p];
    int64_t *start = basalt_calloc((size_t)t->n_groups + 1, sizeof(int64_t));
    if (!start)
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    f->coll_start[(size_t)p * (size_t)a->n_calls + (size_t)c] = start;
    int64_t total = 0;
    for (int i = 0; i < f->n_locals; i++) {
        size_t ic = (size_t)i * (size_t)a->n_calls + (size_t)c;
        const struct qagg_coll *co = &f->locals[i]->coll[c];
        for (int64_t k = f->coll_off[ic][p]; k < f->coll_off[ic][p + 1]; k++) {
            uint32_t g = f->map[i][co->gid[f->coll_idx[ic][k]]];
            if (g != UINT32_MAX) { /* else another sub-partition's */
                start[g + 1]++;
                total++;
            }
        }
    }
    union qagg_cell *v = basalt_malloc(sizeof *v * (size_t)(total + 1));
    if (!v)
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    for (int64_t g = 0; g < t->n_groups; g++)
        start[g + 1] += start[g];
    for (int i = 0; i < f->n_locals; i++) {
        size_t ic = (size_t)i * (size_t)a->n_calls + (size_t)c;
        const struct qagg_coll *co = &f->locals[i]->coll[c];
        for (int64_t k = f->coll_off[ic][p]; k < f->coll_off[ic][p + 1]; k++) {
            int64_t e = f->coll_idx[ic][k];
            uint32_t g = f->map[i][co->gid[e]];
            if (g != UINT32_MAX)
                v[start[g]++] = co->v[e];
        }
    }
    for (int64_t g = t->n_groups; g > 0; g--)
        start[g] = start[g - 1];
    start[0] = 0;
    struct qagg_coll *out = &t->coll[c];
    basalt_free(out->gid);
    basalt_free(out->v);
    out->gid = NULL;
    out->v = v;
    out->n = out->cap = total;
    const struct qagg_callinfo *ci = &a->calls[c];
    uint64_t *scratch = NULL;
    if (basalt_qagg_selects(ci))
        scratch = basalt_malloc(sizeof *scratch * (size_t)(total + 1));
    if (scratch != NULL) {
        for (int64_t g = 0; g < t->n_groups; g++)
            basalt_qagg_select_ranks(ci, v + start[g], start[g + 1] - start[g], scratch);
        basalt_free(scratch);
    } else {
        /* (without room for the keys, sorting gives the same answer) */
        struct sort_ctx sc = {t, ci->in_phys, ci->call.ordered};
        for (int64_t g = 0; g < t->n_groups; g++)
            if (start[g + 1] - start[g] > 1)
                qsort_r(v + start[g], (size_t)(start[g + 1] - start[g]), sizeof *v, cmp_cells,
                        &sc);
    }
    return BASALT_OK;
}

static basalt_status merge_part(struct fin *f, int p, struct basalt_error *err)
{
    struct basalt_qagg *a = f->agg;
    struct basalt_qagg_local *t = &f->parts[p];
    basalt_status st;
    size_t w = (size_t)a->row_width;
    int64_t bound = 0;
    for (int i = 0; i < f->n_locals; i++)
        bound += f->part_off[i][p + 1] - f->part_off[i][p];
    if ((st = basalt_qagg_local_reserve(t, bound, err)) != BASALT_OK)
        return st;
    for (int i = 0; i < f->n_locals; i++) {
        struct basalt_qagg_local *l = f->locals[i];
        const int64_t *off = f->part_off[i];
        /* Groups first, then the states call by call; the local's groups
         * of this partition are a run from off[p] (reorder_local), and
         * map is by their group id before that. */
        const uint32_t *old = f->part_gid[i] + off[p];
        int64_t cnt = off[p + 1] - off[p];
        uint32_t *dg = basalt_malloc(sizeof(uint32_t) * (size_t)(cnt + 1));
        if (!dg)
            return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
        st = BASALT_OK;
        for (int64_t k = 0; k < cnt && st == BASALT_OK; k++) {
            size_t g = (size_t)(off[p] + k);
            if (f->pre_bits > 0 && l->hashes[g] >> (64 - f->pre_bits) != f->pre) {
                f->map[i][old[k]] = UINT32_MAX; /* another sub-partition's */
                continue;
            }
            st = basalt_qagg_find_or_add(t, l->hashes[g], l->rows + g * w, &dg[k], err);
            f->map[i][old[k]] = dg[k];
            if (st == BASALT_OK && f->pre_bits > 0)
                st = basalt_qagg_combine_many(t, &dg[k], l, (uint32_t)g, 1, err);
        }
        if (st == BASALT_OK && f->pre_bits == 0)
            st = basalt_qagg_combine_many(t, dg, l, (uint32_t)off[p], cnt, err);
        basalt_free(dg);
        if (st != BASALT_OK)
            return st;
    }
    uint8_t zero[8] = {0};
    uint64_t h0 = a->n_keys == 0 ? basalt_qagg_hash_row(a, zero) : 0;
    if (a->n_keys == 0 && p == part_of(h0) && t->n_groups == 0) {
        /* SQL: a global aggregate has one row even over no input (no locals). */
        uint32_t g;
        if ((st = basalt_qagg_find_or_add(t, h0, zero, &g, err)) != BASALT_OK)
            return st;
    }
    uint32_t *ord = basalt_malloc(sizeof(uint32_t) * (size_t)(t->n_groups + 1));
    if (!ord)
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    f->order[p] = ord;
    for (int64_t g = 0; g < t->n_groups; g++)
        ord[g] = (uint32_t)g;
    if ((st = basalt_qagg_order(t, ord, t->n_groups, err)) != BASALT_OK)
        return st;
    for (int c = 0; c < a->n_calls; c++)
        if (a->calls[c].state == QS_COLLECT && (st = group_collected(f, p, c, err)) != BASALT_OK)
            return st;
    return BASALT_OK;
}

static basalt_status order_part(struct fin *f, int p, struct basalt_error *err)
{
    const int64_t *off = f->part_off[0];
    int64_t n = off[p + 1] - off[p];
    uint32_t *ord = basalt_malloc(sizeof(uint32_t) * (size_t)(n + 1));
    if (!ord)
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    f->order[p] = ord;
    f->n_part[p] = n;
    for (int64_t k = 0; k < n; k++)
        ord[k] = (uint32_t)(off[p] + k); /* reorder_local made them a run */
    return basalt_qagg_order(f->locals[0], ord, n, err);
}

static void merge_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct fin *f = ctx;
    for (int64_t p = begin; p < end && f->direct; p++)
        f->status[p] = order_part(f, (int)p, &f->errs[p]);
    for (int64_t p = begin; p < end && !f->direct; p++) {
        f->status[p] = basalt_qagg_local_init(f->agg, &f->parts[p], false, &f->errs[p]);
        if (f->status[p] == BASALT_OK)
            f->status[p] = merge_part(f, (int)p, &f->errs[p]);
        f->n_part[p] = f->parts[p].n_groups;
    }
}

/* Partition p's merged groups, in their order, as batches of their own;
 * then its table goes. */
static basalt_status write_part(struct fin *f, int p, struct basalt_error *err)
{
    struct basalt_qagg_local *t = &f->parts[p];
    int64_t n = t->n_groups, nb = (n + QAGG_BATCH_ROWS - 1) / QAGG_BATCH_ROWS;
    f->part_batches[p] = basalt_calloc((size_t)nb + 1, sizeof **f->part_batches);
    uint32_t *ref = basalt_malloc(sizeof *ref * (size_t)(n < QAGG_BATCH_ROWS ? n + 1 : QAGG_BATCH_ROWS));
    basalt_status st = BASALT_OK;
    if (f->part_batches[p] == NULL || ref == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    struct basalt_qagg_local *parts[QAGG_PARTS];
    for (int q = 0; q < QAGG_PARTS; q++)
        parts[q] = t;
    for (int64_t b = 0; b < nb && st == BASALT_OK; b++) {
        int64_t lo = b * QAGG_BATCH_ROWS, cnt = n - lo < QAGG_BATCH_ROWS ? n - lo : QAGG_BATCH_ROWS;
        for (int64_t i = 0; i < cnt; i++)
            ref[i] = (uint32_t)p;
        st = basalt_qagg_write(f->agg, parts, ref, f->order[p] + lo,
                               (const int64_t *const *)f->coll_start, cnt,
                               &f->part_batches[p][b], err);
        if (st == BASALT_OK)
            f->n_part_batches[p]++;
    }
    basalt_free(ref);
    basalt_qagg_local_clear(t);
    basalt_free(f->order[p]);
    f->order[p] = NULL;
    for (int c = 0; c < f->agg->n_calls; c++) {
        size_t pc = (size_t)p * (size_t)f->agg->n_calls + (size_t)c;
        basalt_free(f->coll_start[pc]);
        f->coll_start[pc] = NULL;
    }
    return st;
}

static void merge_write_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct fin *f = ctx;
    for (int64_t p = begin; p < end; p++) {
        f->status[p] = basalt_qagg_local_init(f->agg, &f->parts[p], false, &f->errs[p]);
        if (f->status[p] == BASALT_OK)
            f->status[p] = merge_part(f, (int)p, &f->errs[p]);
        f->n_part[p] = f->parts[p].n_groups;
        if (f->status[p] == BASALT_OK)
            f->status[p] = write_part(f, (int)p, &f->errs[p]);
    }
}

/* ------------------------------------------------------------ phase 3 */

static void write_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct fin *f = ctx;
    struct basalt_qagg_local *parts[QAGG_PARTS];
    for (int p = 0; p < QAGG_PARTS; p++)
        parts[p] = f->direct ? f->locals[0] : &f->parts[p];
    for (int64_t b = begin; b < end; b++) {
        int64_t lo = b * QAGG_BATCH_ROWS;
        int64_t n = f->n_out - lo < QAGG_BATCH_ROWS ? f->n_out - lo : QAGG_BATCH_ROWS;
        f->status[b] = basalt_qagg_write(f->agg, parts, f->ref_part + lo, f->ref_gid + lo,
                                         (const int64_t *const *)f->coll_start, n,
                                         &f->batches[b], &f->errs[b]);
    }
}

static basalt_status first_error(struct fin *f, int64_t n, struct basalt_error *err)
{
    for (int64_t i = 0; i < n; i++)
        if (f->status[i] != BASALT_OK) {
            if (err)
                *err = f->errs[i];
            return f->status[i];
        }
    return BASALT_OK;
}

static basalt_status out_schema(const struct basalt_qagg *a, struct ArrowSchema *s,
                                struct basalt_error *err)
{
    basalt_status st = basalt_arrow_schema_init(s, "+s", "", 0, a->n_keys + a->n_calls, err);
    for (int i = 0; i < a->n_keys + a->n_calls && st == BASALT_OK; i++) {
        char name[32], fmt[48];
        snprintf(name, sizeof name, i < a->n_keys ? "k%d" : "a%d",
                 i < a->n_keys ? i : i - a->n_keys);
        if (i < a->n_keys)
            snprintf(fmt, sizeof fmt, "%s", a->keys[i].format);
        else
            st = basalt_query_type_format(a->calls[i - a->n_keys].out, fmt, sizeof fmt, err);
        /* ARRAY_AGG's lists: "+l" with a nullable "item" child */
        bool list = i >= a->n_keys && a->calls[i - a->n_keys].out.id == BASALT_QUERY_TYPE_LIST;
        if (st == BASALT_OK)
            st = basalt_arrow_schema_init(s->children[i], fmt, name, ARROW_FLAG_NULLABLE, list,
                                          err);
        if (st == BASALT_OK && list)
            st = basalt_query_type_format(basalt_query_type_element(a->calls[i - a->n_keys].out),
                                          fmt, sizeof fmt, err);
        if (st == BASALT_OK && list)
            st = basalt_arrow_schema_init(s->children[i]->children[0], fmt, "item",
                                          ARROW_FLAG_NULLABLE, 0, err);
    }
    if (st != BASALT_OK)
        basalt_arrow_schema_release(s);
    return st;
}

basalt_status basalt_qagg_finish(struct basalt_qagg *agg, struct basalt_qagg_local **locals,
                                 int n_locals, struct basalt_pool *pool,
                                 struct basalt_arrow_batches *out, struct basalt_error *err)
{
    if (!agg || !out || n_locals < 0 || (n_locals && !locals))
        return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate: bad arguments");
    for (int i = 0; i < n_locals; i++)
        if (!locals[i] || locals[i]->agg != agg || !locals[i]->rowbuf)
            return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate: local %d not usable", i);
    struct fin f;
    memset(&f, 0, sizeof f);
    f.agg = agg;
    f.locals = locals;
    f.n_locals = n_locals;
    f.direct = n_locals == 1 && agg->n_keys > 0;
    for (int c = 0; c < agg->n_calls; c++)
        if (agg->calls[c].state == QS_COLLECT)
            f.direct = false;
    size_t nl = (size_t)n_locals + 1, nc = (size_t)agg->n_calls + 1;
    size_t tasks = nl > QAGG_PARTS ? nl : QAGG_PARTS;
    basalt_status st = BASALT_OK;
    struct ArrowSchema schema;
    memset(&schema, 0, sizeof schema);
    f.part_off = basalt_calloc(nl, sizeof *f.part_off);
    f.part_gid = basalt_calloc(nl, sizeof *f.part_gid);
    f.map = basalt_calloc(nl, sizeof *f.map);
    f.coll_off = basalt_calloc(nl * nc, sizeof *f.coll_off);
    f.coll_idx = basalt_calloc(nl * nc, sizeof *f.coll_idx);
    f.parts = basalt_calloc(QAGG_PARTS, sizeof *f.parts);
    f.order = basalt_calloc(QAGG_PARTS, sizeof *f.order);
    f.coll_start = basalt_calloc(QAGG_PARTS * nc, sizeof *f.coll_start);
    f.status = basalt_calloc(tasks, sizeof *f.status);
    f.errs = basalt_calloc(tasks, sizeof *f.errs);
    if (!f.part_off || !f.part_gid || !f.map || !f.coll_off || !f.coll_idx || !f.parts ||
        !f.order || !f.coll_start || !f.status || !f.errs)
        st = basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    if (st == BASALT_OK) {
        basalt_pool_parallel_for(pool, 0, n_locals, 1, bucket_task, &f);
        st = first_error(&f, n_locals, err);
    }
    int64_t local_groups = 0;
    for (int i = 0; i < n_locals; i++)
        local_groups += locals[i]->n_groups;
    bool merge_write = st == BASALT_OK && !f.direct && local_groups >= QAGG_MERGE_WRITE_GROUPS;
    if (merge_write) {
        f.part_batches = basalt_calloc(QAGG_PARTS, sizeof *f.part_batches);
        f.n_part_batches = basalt_calloc(QAGG_PARTS, sizeof *f.n_part_batches);
        if (!f.part_batches || !f.n_part_batches)
            st = basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
        if (st == BASALT_OK) {
            basalt_pool_parallel_for(pool, 0, QAGG_PARTS, 1, merge_write_task, &f);
            st = first_error(&f, QAGG_PARTS, err);
        }
    } else if (st == BASALT_OK) {
        basalt_pool_parallel_for(pool, 0, QAGG_PARTS, 1, merge_task, &f);
        st = first_error(&f, QAGG_PARTS, err);
    }
    int64_t n_batches = 0;
    if (st == BASALT_OK && merge_write) {
        for (int p = 0; p < QAGG_PARTS; p++)
            f.n_out += f.n_part[p];
    } else if (st == BASALT_OK) {
        for (int p = 0; p < QAGG_PARTS; p++)
            f.n_out += f.n_part[p];
        f.ref_part = basalt_malloc(sizeof(uint32_t) * (size_t)(f.n_out + 1));
        f.ref_gid = basalt_malloc(sizeof(uint32_t) * (size_t)(f.n_out + 1));
        n_batches = (f.n_out + QAGG_BATCH_ROWS - 1) / QAGG_BATCH_ROWS;
        f.batches = basalt_calloc((size_t)n_batches + 1, sizeof *f.batches);
        basalt_free(f.status);
        basalt_free(f.errs);
        f.status = basalt_calloc((size_t)n_batches + 1, sizeof *f.status);
        f.errs = basalt_calloc((size_t)n_batches + 1, sizeof *f.errs);
        if (!f.ref_part || !f.ref_gid || !f.batches || !f.status || !f.errs)
            st = basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    }
    if (st == BASALT_OK && !merge_write) {
        int64_t r = 0;
        for (int p = 0; p < QAGG_PARTS; p++)
            for (int64_t k = 0; k < f.n_part[p]; k++, r++) {
                f.ref_part[r] = f.direct ? 0 : (uint32_t)p;
                f.ref_gid[r] = f.order[p][k];
            }
        basalt_pool_parallel_for(pool, 0, n_batches, 1, write_task, &f);
        st = first_error(&f, n_batches, err);
    }
    if (st == BASALT_OK && out->schema.release == NULL)
        st = out_schema(agg, &schema, err);
    if (st == BASALT_OK) {
        if (schema.release)
            basalt_arrow_schema_move(&schema, &out->schema);
        for (int64_t b = 0; b < n_batches && st == BASALT_OK; b++)
            st = basalt_arrow_batches_append(out, &f.batches[b], err);
        for (int p = 0; merge_write && p < QAGG_PARTS && st == BASALT_OK; p++)
            for (int64_t b = 0; b < f.n_part_batches[p] && st == BASALT_OK; b++)
                st = basalt_arrow_batches_append(out, &f.part_batches[p][b], err);
        agg->groups = f.n_out;
        agg->partitions = QAGG_PARTS;
        agg->direct_finish = f.direct;
        agg->merge_write_finish = merge_write;
    }
    /* clean up */
    for (int64_t b = 0; f.batches && b < n_batches; b++)
        basalt_arrow_array_release(&f.batches[b]);
    basalt_free(f.batches);
    for (int p = 0; f.part_batches && p < QAGG_PARTS; p++) {
        for (int64_t b = 0; f.part_batches[p] && b < f.n_part_batches[p]; b++)
            basalt_arrow_array_release(&f.part_batches[p][b]);
        basalt_free(f.part_batches[p]);
    }
    basalt_free(f.part_batches);
    basalt_free(f.n_part_batches);
    basalt_free(f.ref_part);
    basalt_free(f.ref_gid);
    for (int p = 0; f.parts && p < QAGG_PARTS; p++) {
        if (f.parts[p].agg) {
            basalt_qagg_local_clear(&f.parts[p]);
        }
        if (f.order)
            basalt_free(f.order[p]);
        for (size_t c = 0; f.coll_start && c < nc - 1; c++)
            basalt_free(f.coll_start[(size_t)p * (size_t)agg->n_calls + c]);
    }
    for (size_t i = 0; i < nl - 1; i++) {
        if (f.part_gid)
            basalt_free(f.part_gid[i]);
        if (f.map)
            basalt_free(f.map[i]);
        for (size_t c = 0; f.coll_idx && c < nc - 1; c++)
            basalt_free(f.coll_idx[i * (size_t)agg->n_calls + c]);
    }
    basalt_free(f.part_off);
    basalt_free(f.part_gid);
    basalt_free(f.map);
    basalt_free(f.coll_off);
    basalt_free(f.coll_idx);
    basalt_free(f.parts);
    basalt_free(f.order);
    basalt_free(f.coll_start);
    basalt_free(f.status);
    basalt_free(f.errs);
    for (int i = 0; i < n_locals; i++)
        basalt_qagg_local_reset(locals[i]);
    return st;
}

/* ------------------------------------------------------------ spilled */

/* Frees what bucket_local made for local i. */
static void unbucket_local(struct fin *f, int i)
{
    basalt_free(f->part_gid[i]);
    basalt_free(f->map[i]);
    f->part_gid[i] = NULL;
    f->map[i] = NULL;
    for (int c = 0; c < f->agg->n_calls; c++) {
        size_t ic = (size_t)i * (size_t)f->agg->n_calls + (size_t)c;
        basalt_free(f->coll_idx[ic]);
        f->coll_idx[ic] = NULL;
    }
}

/* Merges the pending result batches into one; it goes to `out` when
 * `to_out` or when it is full, else it stays pending. */
static basalt_status pend_flush(struct fin *f, bool to_out, struct basalt_arrow_batches *out,
                                struct basalt_error *err)
{
    struct basalt_arrow_batches *pd = &f->pend;
    basalt_status st = BASALT_OK;
    struct ArrowArray merged;
    memset(&merged, 0, sizeof merged);
    if (pd->n == 1) {
        basalt_arrow_array_move(&pd->arrays[0], &merged);
    } else if (pd->n > 1) {
        int64_t n = f->pend_rows;
        int32_t *src = basalt_malloc(sizeof *src * (size_t)(n + 1));
        int64_t *idx = basalt_malloc(sizeof *idx * (size_t)(n + 1));
        if (!src || !idx)
            st = basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
        for (int64_t b = 0, k = 0; st == BASALT_OK && b < pd->n; b++)
            for (int64_t r = 0; r < pd->arrays[b].length; r++, k++) {
                src[k] = (int32_t)b;
                idx[k] = pd->arrays[b].offset + r;
            }
        if (st == BASALT_OK)
            st = basalt_arrow_take_many(&out->schema, pd->arrays, (int32_t)pd->n, src, idx, n,
                                        &merged, err);
        basalt_free(src);
        basalt_free(idx);
    }
    for (int64_t b = 0; b < pd->n; b++)
        if (pd->arrays[b].release != NULL)
            basalt_arrow_array_release(&pd->arrays[b]);
    pd->n = 0;
    if (st != BASALT_OK || merged.release == NULL) {
        f->pend_rows = 0;
        return st;
    }
    if (to_out || f->pend_rows >= QAGG_BATCH_ROWS) {
        f->pend_rows = 0;
        if (f->ops != NULL && f->ops->emit != NULL)
            return f->ops->emit(f->ops->ctx, &merged, err);
        return basalt_arrow_batches_append(out, &merged, err);
    }
    return basalt_arrow_batches_append(pd, &merged, err);
}

/* The groups of partition p whose hash starts with f->pre (f->pre_bits
 * bits; 0: all of p): the frozen locals' and those of the spilled rows h
 * (NULL: none; consumed into `spill`, a fresh local), merged, ordered and
 * written. */
static basalt_status emit_range(struct fin *f, int p, int n_frozen,
                                struct basalt_qagg_local *spill,
                                const struct basalt_qagg_spill_ops *ops, void *h,
                                int64_t memory_limit, struct basalt_arrow_batches *out,
                                struct basalt_error *err)
{
    struct basalt_qagg *a = f->agg;
    basalt_status st = basalt_qagg_local_init(a, spill, true, err);
    if (st != BASALT_OK) {
        if (h != NULL)
            ops->drop(ops->ctx, h);
        return st;
    }
    if (h != NULL)
        st = ops->load(ops->ctx, h, spill, err);
    if (st == BASALT_OK && memory_limit > 0 && basalt_alloc_bytes() > memory_limit)
        st = basalt_error_set(err, BASALT_LIMIT,
                              "GROUP BY: memory limit of %.1f MiB exceeded (%.1f MiB in use, "
                              "%.1f MiB of it the result so far) at spilled partition %d of %d "
                              "(split %d times): its groups do not fit; raise --memory-limit",
                              (double)memory_limit / 1048576.0,
                              (double)basalt_alloc_bytes() / 1048576.0,
                              (double)f->out_bytes / 1048576.0, p, QAGG_PARTS,
                              f->pre_bits > 0 ? f->pre_bits / QAGG_PART_BITS - 1 : 0);
    f->locals[n_frozen] = spill;
    if (st == BASALT_OK)
        st = bucket_local(f, n_frozen, err);
    if (st == BASALT_OK)
        st = reorder_local(f, n_frozen, err);
    f->n_locals = n_frozen + 1;
    if (st == BASALT_OK)
        st = basalt_qagg_local_init(a, &f->parts[p], false, err);
    if (st == BASALT_OK)
        st = merge_part(f, p, err);
    int64_t n = st == BASALT_OK ? f->parts[p].n_groups : 0;
    uint32_t *ref_part = basalt_malloc(sizeof(uint32_t) * (size_t)(n + 1));
    uint32_t *ref_gid = basalt_malloc(sizeof(uint32_t) * (size_t)(n + 1));
    if (st == BASALT_OK && (!ref_part || !ref_gid))
        st = basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    struct basalt_qagg_local *parts[QAGG_PARTS];
    for (int q = 0; q < QAGG_PARTS; q++)
        parts[q] = &f->parts[q];
    for (int64_t k = 0; st == BASALT_OK && k < n; k++) {
        ref_part[k] = (uint32_t)p;
        ref_gid[k] = f->order[p][k];
    }
    for (int64_t lo = 0; st == BASALT_OK && lo < n; lo += QAGG_BATCH_ROWS) {
        int64_t cnt = n - lo < QAGG_BATCH_ROWS ? n - lo : QAGG_BATCH_ROWS;
        struct ArrowArray b;
        st = basalt_qagg_write(a, parts, ref_part + lo, ref_gid + lo,
                               (const int64_t *const *)f->coll_start, cnt, &b, err);
        if (st == BASALT_OK) {
            if (ops->emit == NULL)
                f->out_bytes += basalt_qspill_array_bytes(&out->schema, &b);
            f->pend_rows += b.length;
            st = basalt_arrow_batches_append(&f->pend, &b, err);
        }
        if (st == BASALT_OK && (f->pend.n >= 16 || f->pend_rows >= QAGG_BATCH_ROWS))
            st = pend_flush(f, false, out, err);
    }
    f->n_out += n;
    basalt_free(ref_part);
    basalt_free(ref_gid);
    /* This range is done: its memory goes back before the next. */
    if (f->parts[p].agg)
        basalt_qagg_local_clear(&f->parts[p]);
    memset(&f->parts[p], 0, sizeof f->parts[p]);
    basalt_free(f->order[p]);
    f->order[p] = NULL;
    for (int c = 0; c < a->n_calls; c++) {
        basalt_free(f->coll_start[(size_t)p * (size_t)a->n_calls + (size_t)c]);
        f->coll_start[(size_t)p * (size_t)a->n_calls + (size_t)c] = NULL;
    }
    unbucket_local(f, n_frozen);
    f->n_locals = n_frozen;
    basalt_qagg_local_clear(spill);
    return st;
}

/* The range of partition p whose hash starts with `pre` (`bits` bits, the
 * partition's 6 first), with its spilled rows h: split by the next 6 bits
 * while its rows pass the budget on disk and a split spreads them. */
static basalt_status do_range(struct fin *f, int p, int n_frozen, struct basalt_qagg_local *spill,
                              const struct basalt_qagg_spill_ops *ops, void *h, int bits,
                              uint64_t pre, bool may_split, int64_t budget,
                              int64_t memory_limit, struct basalt_arrow_batches *out,
                              struct basalt_error *err)
{
    if (h != NULL && may_split && bits <= 58 && ops->bytes(ops->ctx, h) > budget) {
        void *sub[QAGG_PARTS] = {0};
        basalt_status st = ops->split(ops->ctx, h, bits, sub, err);
        int filled = 0;
        for (int q = 0; q < QAGG_PARTS; q++)
            filled += sub[q] != NULL;
        f->agg->splits++;
        for (int q = 0; q < QAGG_PARTS && st == BASALT_OK; q++) {
            st = do_range(f, p, n_frozen, spill, ops, sub[q], bits + QAGG_PART_BITS,
                          pre << QAGG_PART_BITS | (uint64_t)q, filled > 1, budget, memory_limit,
                          out, err);
            sub[q] = NULL;
        }
        for (int q = 0; q < QAGG_PARTS; q++)
            if (sub[q] != NULL)
                ops->drop(ops->ctx, sub[q]);
        return st;
    }
    f->pre_bits = bits > QAGG_PART_BITS ? bits : 0;
    f->pre = pre;
    return emit_range(f, p, n_frozen, spill, ops, h, memory_limit, out, err);
}

basalt_status basalt_qagg_finish_spilled(struct basalt_qagg *agg,
                                         struct basalt_qagg_local **locals, int n_locals,
                                         struct basalt_pool *pool,
                                         const struct basalt_qagg_spill_ops *ops, int64_t budget,
                                         int64_t memory_limit, struct basalt_arrow_batches *out,
                                         struct basalt_error *err)
{
    if (!agg || !out || !ops || n_locals < 0 || (n_locals && !locals) || agg->n_keys == 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate: bad arguments");
    for (int i = 0; i < n_locals; i++)
        if (!locals[i] || locals[i]->agg != agg || !locals[i]->rowbuf)
            return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate: local %d not usable", i);
    struct fin f;
    memset(&f, 0, sizeof f);
    f.agg = agg;
    f.ops = ops;
    f.n_locals = n_locals;
    size_t nl = (size_t)n_locals + 2, nc = (size_t)agg->n_calls + 1;
    size_t tasks = nl > QAGG_PARTS ? nl : QAGG_PARTS;
    basalt_status st = BASALT_OK;
    struct ArrowSchema schema;
    memset(&schema, 0, sizeof schema);
    f.locals = basalt_calloc(nl, sizeof *f.locals);
    f.part_off = basalt_calloc(nl, sizeof *f.part_off);
    f.part_gid = basalt_calloc(nl, sizeof *f.part_gid);
    f.map = basalt_calloc(nl, sizeof *f.map);
    f.coll_off = basalt_calloc(nl * nc, sizeof *f.coll_off);
    f.coll_idx = basalt_calloc(nl * nc, sizeof *f.coll_idx);
    f.parts = basalt_calloc(QAGG_PARTS, sizeof *f.parts);
    f.order = basalt_calloc(QAGG_PARTS, sizeof *f.order);
    f.coll_start = basalt_calloc(QAGG_PARTS * nc, sizeof *f.coll_start);
    f.status = basalt_calloc(tasks, sizeof *f.status);
    f.errs = basalt_calloc(tasks, sizeof *f.errs);
    struct basalt_qagg_local spill;
    memset(&spill, 0, sizeof spill);
    if (!f.locals || !f.part_off || !f.part_gid || !f.map || !f.coll_off || !f.coll_idx ||
        !f.parts || !f.order || !f.coll_start || !f.status || !f.errs)
        st = basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    if (st == BASALT_OK) {
        for (int i = 0; i < n_locals; i++)
            f.locals[i] = locals[i];
        basalt_pool_parallel_for(pool, 0, n_locals, 1, bucket_task, &f);
        st = first_error(&f, n_locals, err);
    }
    if (st == BASALT_OK && out->schema.release == NULL) {
        st = out_schema(agg, &schema, err);
        if (st == BASALT_OK)
            basalt_arrow_schema_move(&schema, &out->schema);
    }
    agg->splits = 0;
    basalt_arrow_batches_init(&f.pend);
    for (int p = 0; p < QAGG_PARTS && st == BASALT_OK; p++)
        st = do_range(&f, p, n_locals, &spill, ops, ops->part(ops->ctx, p), QAGG_PART_BITS,
                      (uint64_t)p, true, budget, memory_limit, out, err);
    if (st == BASALT_OK)
        st = pend_flush(&f, true, out, err);
    basalt_arrow_batches_reset(&f.pend);
    if (st == BASALT_OK) {
        agg->groups = f.n_out;
        agg->partitions = QAGG_PARTS;
        agg->direct_finish = false;
    }
    for (int p = 0; f.parts && p < QAGG_PARTS; p++) {
        if (f.parts[p].agg)
            basalt_qagg_local_clear(&f.parts[p]);
        if (f.order)
            basalt_free(f.order[p]);
        for (size_t c = 0; f.coll_start && c < nc - 1; c++)
            basalt_free(f.coll_start[(size_t)p * (size_t)agg->n_calls + c]);
    }
    for (size_t i = 0; i < nl - 1; i++) {
        if (f.part_gid)
            basalt_free(f.part_gid[i]);
        if (f.map)
            basalt_free(f.map[i]);
        for (size_t c = 0; f.coll_idx && c < nc - 1; c++)
            basalt_free(f.coll_idx[i * (size_t)agg->n_calls + c]);
    }
    if (spill.agg)
        basalt_qagg_local_clear(&spill);
    basalt_free(f.locals);
    basalt_free(f.part_off);
    basalt_free(f.part_gid);
    basalt_free(f.map);
    basalt_free(f.coll_off);
    basalt_free(f.coll_idx);
    basalt_free(f.parts);
    basalt_free(f.order);
    basalt_free(f.coll_start);
    basalt_free(f.status);
    basalt_free(f.errs);
    for (int i = 0; i < n_locals; i++)
        basalt_qagg_local_reset(locals[i]);
    return st;
}
