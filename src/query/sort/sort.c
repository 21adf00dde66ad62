/* The sort object: locals collect batches (a full sort keeps them whole;
 * top-k encodes each batch at once and keeps only rows that can still be in
 * the first offset+limit, pruning at twice that), and finish encodes, sorts
 * and gathers in parallel. */
#include <stdlib.h>
#include <string.h>

#include "sort/sort_impl.h"

#define OUT_ROWS 65536
#define MAX_KEY_BYTES 512

static basalt_status nomem(struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

basalt_status basalt_qsort_new(const struct ArrowSchema *schema, const struct basalt_qsort_key *keys,
                               int n_keys, int64_t limit, int64_t offset,
                               struct basalt_qsort **out, struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (!schema || !schema->release || !schema->format || strcmp(schema->format, "+s") != 0 ||
        !keys || !out || n_keys < 0 || n_keys > 64 || offset < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "sort: needs a struct schema, 0 to 64 keys and offset >= 0");
    struct basalt_qsort *s = basalt_calloc(1, sizeof *s);
    if (!s)
        return nomem(err);
    s->n_keys = n_keys;
    s->limit = limit;
    s->offset = offset;
    s->keys = basalt_calloc((size_t)n_keys + 1, sizeof *s->keys);
    basalt_status st = s->keys ? basalt_arrow_schema_copy(schema, &s->schema, err) : nomem(err);
    bool all[64];
    for (int k = 0; k < n_keys && st == BASALT_OK; k++) {
        if (keys[k].column < 0 || keys[k].column >= schema->n_children) {
            st = basalt_error_set(err, BASALT_INVALID_ARG, "sort: key %d column %d out of range", k,
                                  keys[k].column);
            break;
        }
        st = basalt_qs_key_init(schema->children[keys[k].column], &s->keys[k], err);
        s->keys[k].column = keys[k].column;
        s->keys[k].desc = keys[k].descending;
        s->keys[k].nulls_first = keys[k].nulls_first;
        all[k] = true;
    }
    if (st == BASALT_OK) {
        basalt_qs_layout(s->keys, n_keys, all, NULL, &s->topk_layout);
        if (s->topk_layout.bytes > MAX_KEY_BYTES)
            st = basalt_error_set(err, BASALT_LIMIT, "sort: keys wider than %d bytes", MAX_KEY_BYTES);
    }
    if (st != BASALT_OK) {
        basalt_qsort_free(s);
        return st;
    }
    *out = s;
    return BASALT_OK;
}

void basalt_qsort_free(struct basalt_qsort *s)
{
    if (!s)
        return;
    basalt_arrow_schema_release(&s->schema);
    basalt_free(s->keys);
    basalt_free(s);
}

basalt_status basalt_qsort_local_new(struct basalt_qsort *s, struct basalt_qsort_local **out,
                                     struct basalt_error *err)
{
    if (!s || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "sort: NULL argument");
    *out = basalt_calloc(1, sizeof **out);
    if (!*out)
        return nomem(err);
    (*out)->s = s;
    return BASALT_OK;
}

static void drop_batches(struct basalt_qsort_local *l)
{
    for (int64_t i = 0; i < l->n; i++)
        basalt_arrow_array_release(&l->arr[i]);
    l->n = 0;
}

void basalt_qsort_local_free(struct basalt_qsort_local *l)
{
    if (!l)
        return;
    drop_batches(l);
    basalt_free(l->arr);
    basalt_free(l->seq);
    basalt_free(l->rec);
    basalt_free(l->thr);
    basalt_free(l->sel);
    basalt_free(l);
}

static basalt_status keep_batch(struct basalt_qsort_local *l, struct ArrowArray *batch, int64_t seq,
                                struct basalt_error *err)
{
    if (l->n == l->cap) {
        int64_t cap = l->cap ? 2 * l->cap : 16;
        struct ArrowArray *a = basalt_realloc(l->arr, (size_t)cap * sizeof *a);
        if (!a)
            return nomem(err);
        l->arr = a;
        int64_t *q = basalt_realloc(l->seq, (size_t)cap * sizeof *q);
        if (!q)
            return nomem(err);
        l->seq = q;
        l->cap = cap;
    }
    basalt_arrow_array_move(batch, &l->arr[l->n]);
    l->seq[l->n++] = seq;
    return BASALT_OK;
}

/* When the candidates (sorted, the first k) sit in more than a few batches,
 * which are held whole, their rows are copied into one batch of their own
 * and the others released: LIMIT 100 over 65536-row batches held up to 100
 * of them. A candidate's tag keeps its seq and takes its new row, whose
 * order among the rows of one seq is the old one (they are sorted), so the
 * order of every comparison stays as it was. `refs` is scratch of l->n.
 * Done when they sit in more than `max_batches`. */
static basalt_status compact(struct basalt_qsort_local *l, int64_t *refs, int64_t max_batches,
                             struct basalt_error *err)
{
    const int S = l->s->topk_layout.K + 2;
    int64_t distinct = 0, max_seq = 0;
    for (int64_t i = 0; i < l->n; i++)
        refs[i] = 0;
    for (int64_t r = 0; r < l->n_rec; r++) {
        int64_t *ref = &refs[l->rec[(size_t)r * (size_t)S + (size_t)S - 1]];
        distinct += *ref == 0;
        *ref = 1;
    }
    if (distinct <= max_batches)
        return BASALT_OK;
    int32_t *src = basalt_malloc((size_t)l->n_rec * sizeof *src);
    int64_t *idx = basalt_malloc((size_t)l->n_rec * sizeof *idx);
    struct ArrowArray merged;
    basalt_status st = src && idx ? BASALT_OK : nomem(err);
    for (int64_t r = 0; r < l->n_rec && st == BASALT_OK; r++) {
        const uint64_t *x = l->rec + (size_t)r * (size_t)S;
        src[r] = (int32_t)x[S - 1];
        idx[r] = (int64_t)(x[S - 2] & 0xffffffffu);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_take_many(&l->s->schema, l->arr, (int32_t)l->n, src, idx, l->n_rec,
                                    &merged, err);
    basalt_free(src);
    basalt_free(idx);
    if (st != BASALT_OK)
        return st;
    for (int64_t i = 0; i < l->n; i++) {
        if (l->seq[i] > max_seq)
            max_seq = l->seq[i];
        basalt_arrow_array_release(&l->arr[i]);
    }
    basalt_arrow_array_move(&merged, &l->arr[0]);
    l->seq[0] = max_seq; /* the batches it replaces are gone: still distinct */
    l->n = 1;
    for (int64_t r = 0; r < l->n_rec; r++) {
        uint64_t *x = l->rec + (size_t)r * (size_t)S;
        x[S - 2] = (x[S - 2] & ~(uint64_t)0xffffffffu) | (uint64_t)r;
        x[S - 1] = 0;
    }
    return BASALT_OK;
}

/* Keeps the first k candidates (sorted), releases batches none of them
 * refers to (copying the candidates into one batch when they sit in more
 * than `max_batches`) and sets the threshold to the k-th. */
static basalt_status prune(struct basalt_qsort_local *l, int64_t k, int64_t max_batches,
                           struct basalt_error *err)
{
    struct basalt_qsort *s = l->s;
    const struct qs_layout *lay = &s->topk_layout;
    int S = lay->K + 2;
    uint64_t *tmp = basalt_malloc((size_t)(l->n_rec ? l->n_rec : 1) * (size_t)S * 8);
    int64_t *map = basalt_malloc((size_t)(l->n ? l->n : 1) * sizeof *map);
    if (!tmp || !map) {
        basalt_free(tmp);
        basalt_free(map);
        return nomem(err);
    }
    struct qs_ctx c;
    basalt_qs_ctx_init(&c, s, lay, l->arr);
    basalt_qs_sort(&c, l->rec, tmp, l->n_rec, NULL);
    atomic_fetch_add(&s->tie_compares, c.ties);
    basalt_free(tmp);
    if (l->n_rec > k)
        l->n_rec = k;
    basalt_status st = compact(l, map, max_batches, err);
    if (st != BASALT_OK) {
        basalt_free(map);
        return st;
    }
    for (int64_t i = 0; i < l->n; i++)
        map[i] = -1;
    for (int64_t r = 0; r < l->n_rec; r++)
        map[l->rec[(size_t)r * (size_t)S + (size_t)S - 1]] = 0;
    int64_t m = 0;
    for (int64_t i = 0; i < l->n; i++) {
        if (map[i] < 0) {
            basalt_arrow_array_release(&l->arr[i]);
            continue;
        }
        map[i] = m;
        if (m != i) {
            basalt_arrow_array_move(&l->arr[i], &l->arr[m]);
            l->seq[m] = l->seq[i];
        }
        m++;
    }
    l->n = m;
    for (int64_t r = 0; r < l->n_rec; r++) {
        uint64_t *ref = &l->rec[(size_t)r * (size_t)S + (size_t)S - 1];
        *ref = (uint64_t)map[*ref];
    }
    basalt_free(map);
    if (l->n_rec == k && k > 0) {
        if (!l->thr && !(l->thr = basalt_malloc((size_t)S * 8)))
            return nomem(err);
        memcpy(l->thr, &l->rec[(size_t)(k - 1) * (size_t)S], (size_t)S * 8);
    }
    return BASALT_OK;
}

static basalt_status topk_consume(struct basalt_qsort_local *l, struct ArrowArray *batch,
                                  int64_t seq, struct basalt_error *err)
{
    struct basalt_qsort *s = l->s;
    int64_t k = s->limit + s->offset;
    if (k == 0 || batch->length == 0) {
        basalt_arrow_array_release(batch);
        return BASALT_OK;
    }
    const struct qs_layout *lay = &s->topk_layout;
    int S = lay->K + 2;
    int64_t n = batch->length;
    if (l->n_rec + n > l->cap_rec) {
        int64_t cap = l->cap_rec ? l->cap_rec : 1024;
        while (cap < l->n_rec + n)
            cap *= 2;
        uint64_t *r = basalt_realloc(l->rec, (size_t)cap * (size_t)S * 8);
        if (!r) {
            basalt_arrow_array_release(batch);
            return nomem(err);
        }
        l->rec = r;
        l->cap_rec = cap;
    }
    /* The batch takes the next ref; encoded at the end of the candidates. */
    basalt_status st = keep_batch(l, batch, seq, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(batch);
        return st;
    }
    /* Against the running threshold, key 0 alone first, on the raw column:
     * most rows of a large input stop here without being encoded. */
    int64_t *sel = NULL;
    int64_t pre = n;
    struct ArrowArray *a = &l->arr[l->n - 1];
    uint64_t timg;
    bool have_thr = false;
    if (l->thr) {
        const struct ArrowArray *tb = &l->arr[l->thr[S - 1]];
        have_thr = basalt_qs_key0_image(s, tb, (int64_t)(l->thr[S - 2] & 0xffffffffu), &timg);
    } else if (n >= 4 * k && n >= 4096) {
        /* No threshold yet: the batch's own k-th key 0 value serves, found by
         * selection instead of encoding and sorting the whole batch. */
        uint64_t *scratch = basalt_malloc((size_t)n * sizeof *scratch);
        if (!scratch)
            return nomem(err);
        have_thr = basalt_qs_batch_threshold(s, a, k, scratch, &timg);
        basalt_free(scratch);
    }
    if (have_thr) {
        if (l->sel_cap < n) {
            int64_t *x = basalt_realloc(l->sel, (size_t)n * sizeof *x);
            if (!x)
                return nomem(err);
            l->sel = x;
            l->sel_cap = n;
        }
        sel = l->sel;
        pre = basalt_qs_prefilter(s, a, timg, sel);
        if (pre < 0) {
            sel = NULL;
            pre = n;
        }
    }
    uint64_t *dst = l->rec + (size_t)l->n_rec * (size_t)S;
    int64_t enc = n;
    if (sel && pre < n / 4) {
        for (enc = 0; enc < pre; enc++)
            basalt_qs_encode_row(s, lay, a, sel[enc], (uint64_t)seq, (uint64_t)(l->n - 1),
                                 dst + (size_t)enc * (size_t)S);
    } else {
        basalt_qs_encode(s, lay, a, (uint64_t)seq, (uint64_t)(l->n - 1), dst);
    }
    int64_t kept = enc;
    if (l->thr) {
        struct qs_ctx c;
        basalt_qs_ctx_init(&c, s, lay, l->arr);
        kept = 0;
        for (int64_t r = 0; r < enc; r++) {
            const uint64_t *x = dst + (size_t)r * (size_t)S;
            if (basalt_qs_cmp(&c, x, l->thr, 0) < 0) {
                if (kept != r)
                    basalt_qs_rcopy(dst + (size_t)kept * (size_t)S, x, S);
                kept++;
            }
        }
        atomic_fetch_add(&s->topk_dropped, n - kept);
        atomic_fetch_add(&s->tie_compares, c.ties);
    }
    l->n_rec += kept;
    if (kept == 0) {
        basalt_arrow_array_release(&l->arr[--l->n]);
        return BASALT_OK;
    }
    int64_t bound = k < 1024 ? 2048 : 2 * k;
    /* A first threshold as soon as there are k candidates (cheap when they
     * came through the batch's own selection). Past the threshold, a batch
     * with a candidate is held whole: pruning once the held batches have
     * four times the rows needed releases them or copies the first k rows
     * into one (compact), where waiting for 2048 candidates held hundreds
     * of batches for LIMIT 3. */
    int64_t held = 0;
    for (int64_t i = 0; l->thr && i < l->n; i++)
        held += l->arr[i].length;
    if (l->n_rec >= bound || (!l->thr && have_thr && l->n_rec >= k) ||
        (l->n > 1 && held > 4 * (k + 1024)))
        return prune(l, k, 4, err);
    return BASALT_OK;
}

basalt_status basalt_qsort_local_prune(struct basalt_qsort_local *l, struct basalt_error *err)
{
    int64_t k = l->s->limit + l->s->offset;
    if (l->s->limit < 0 || l->n < 2)
        return BASALT_OK;
    return prune(l, k, 0, err);
}

basalt_status basalt_qsort_consume(struct basalt_qsort_local *l, struct ArrowArray *batch,
                                   int64_t seq, struct basalt_error *err)
{
    if (!l || !batch || !batch->release) {
        basalt_arrow_array_release(batch);
        return basalt_error_set(err, BASALT_INVALID_ARG, "sort: NULL or released batch");
    }
    if (batch->n_children != l->s->schema.n_children || seq < 0 || seq >= (INT64_C(1) << 31) ||
        batch->length >= (int64_t)UINT32_MAX) {
        basalt_arrow_array_release(batch);
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "sort: batch of %lld columns (schema %lld), seq %lld, %lld rows",
                                (long long)batch->n_children, (long long)l->s->schema.n_children,
                                (long long)seq, (long long)batch->length);
    }
    if (l->s->limit >= 0)
        return topk_consume(l, batch, seq, err);
    basalt_status st = keep_batch(l, batch, seq, err);
    if (st != BASALT_OK)
        basalt_arrow_array_release(batch);
    return st;
}

/* ------------------------------------------------------------------ finish */

struct fin {
    struct basalt_qsort *s;
    const struct qs_layout *lay;
    struct ArrowArray *arr;
    int64_t n_batches;
    int64_t *start; /* first record of each batch */
    uint64_t *rec;
    int64_t first, n_out; /* output rows [first, first + n_out) of the sorted records */
    struct ArrowArray *outs;
    basalt_status *st;
    struct basalt_error *errs;
};

static void encode_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct fin *f = ctx;
    int S = f->lay->K + 2;
    for (int64_t b = begin; b < end; b++)
        basalt_qs_encode(f->s, f->lay, &f->arr[b], (uint64_t)b, (uint64_t)b,
                         f->rec + (size_t)f->start[b] * (size_t)S);
}

static void gather_task(void *ctx, int64_t begin, int64_t end, int worker)
{
    (void)worker;
    struct fin *f = ctx;
    int S = f->lay->K + 2;
    for (int64_t o = begin; o < end; o++) {
        int64_t lo = o * OUT_ROWS, n = f->n_out - lo < OUT_ROWS ? f->n_out - lo : OUT_ROWS;
        int32_t *src = basalt_malloc((size_t)n * sizeof *src);
        int64_t *idx = basalt_malloc((size_t)n * sizeof *idx);
        basalt_error_init(&f->errs[o]);
        if (!src || !idx) {
            f->st[o] = nomem(&f->errs[o]);
        } else {
            for (int64_t r = 0; r < n; r++) {
                const uint64_t *x = f->rec + (size_t)(f->first + lo + r) * (size_t)S;
                src[r] = (int32_t)x[S - 1];
                idx[r] = (int64_t)(x[S - 2] & 0xffffffffu);
            }
            f->st[o] = basalt_qs_gather(&f->s->schema, f->arr, f->n_batches, src, idx, n,
                                        &f->outs[o], &f->errs[o]);
        }
        basalt_free(src);
        basalt_free(idx);
    }
}

static int by_seq(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

basalt_status basalt_qsort_finish(struct basalt_qsort *s, struct basalt_qsort_local **locals,
                                  int n_locals, struct basalt_pool *pool,
                                  struct basalt_arrow_batches *out, struct basalt_error *err)
{
    if (!s || !out || n_locals < 0 || (n_locals > 0 && !locals))
        return basalt_error_set(err, BASALT_INVALID_ARG, "sort: NULL argument");
    bool topk = s->limit >= 0;
    int64_t nb = 0, n_rec = 0;
    for (int i = 0; i < n_locals; i++) {
        if (!locals[i])
            continue;
        nb += locals[i]->n;
        n_rec += locals[i]->n_rec;
    }
    struct fin f;
    memset(&f, 0, sizeof f);
    f.s = s;
    struct qs_layout lay;
    basalt_status st = BASALT_OK;
    /* (seq, local, index) of every batch, ordered by seq. */
    int64_t *order = basalt_malloc((size_t)(nb ? nb : 1) * 3 * sizeof *order);
    f.arr = basalt_calloc((size_t)(nb ? nb : 1), sizeof *f.arr);
    f.start = basalt_malloc((size_t)(nb + 1) * sizeof *f.start);
    if (!order || !f.arr || !f.start) {
        st = nomem(err);
        goto done;
    }
    int64_t k = 0;
    for (int i = 0; i < n_locals; i++)
        for (int64_t b = 0; locals[i] && b < locals[i]->n; b++, k++) {
            order[3 * k] = locals[i]->seq[b];
            order[3 * k + 1] = i;
            order[3 * k + 2] = b;
        }
    qsort(order, (size_t)nb, 3 * sizeof *order, by_seq);
    for (int64_t b = 1; b < nb; b++)
        if (order[3 * b] == order[3 * (b - 1)]) {
            st = basalt_error_set(err, BASALT_INVALID_ARG, "sort: two batches with seq %lld",
                                  (long long)order[3 * b]);
            goto done;
        }
    /* Move the batches into one table in seq order; remember where each went. */
    int64_t **where = basalt_calloc((size_t)(n_locals ? n_locals : 1), sizeof *where);
    if (!where) {
        st = nomem(err);
        goto done;
    }
    for (int i = 0; i < n_locals && st == BASALT_OK; i++)
        if (locals[i] && locals[i]->n &&
            !(where[i] = basalt_malloc((size_t)locals[i]->n * sizeof **where)))
            st = nomem(err);
    int64_t rows = 0;
    /* On failure before the move the batches stay with the locals, which
     * release them when freed. */
    bool moved = st == BASALT_OK;
    for (int64_t b = 0; b < nb && st == BASALT_OK; b++) {
        struct basalt_qsort_local *l = locals[order[3 * b + 1]];
        basalt_arrow_array_move(&l->arr[order[3 * b + 2]], &f.arr[b]);
        where[order[3 * b + 1]][order[3 * b + 2]] = b;
        f.start[b] = rows;
        rows += f.arr[b].length;
    }
    f.start[nb] = rows;
    f.n_batches = nb;
    if (st == BASALT_OK && topk) {
        lay = s->topk_layout;
        n_rec = n_rec ? n_rec : 0;
        f.rec = basalt_malloc((size_t)(n_rec ? n_rec : 1) * (size_t)(lay.K + 2) * 8);
        if (!f.rec)
            st = nomem(err);
        int64_t r = 0;
        int S = lay.K + 2;
        for (int i = 0; i < n_locals && st == BASALT_OK; i++) {
            struct basalt_qsort_local *l = locals[i];
            if (!l)
                continue;
            for (int64_t j = 0; j < l->n_rec; j++, r++) {
                uint64_t *x = f.rec + (size_t)r * (size_t)S;
                memcpy(x, l->rec + (size_t)j * (size_t)S, (size_t)S * 8);
                x[S - 1] = (uint64_t)where[i][x[S - 1]];
            }
        }
    } else if (st == BASALT_OK) {
        bool nullable[64];
        for (int kk = 0; kk < s->n_keys; kk++) {
            nullable[kk] = false;
            for (int64_t b = 0; b < nb && !nullable[kk]; b++) {
                const struct ArrowArray *c = f.arr[b].children[s->keys[kk].column];
                nullable[kk] = c->null_count != 0 && c->buffers[0];
            }
        }
        /* A string key whose values all fit a prefix of at most 32 bytes (and
         * hold no zero byte, which the padding uses) is encoded whole: it
         * decides the order alone and the keys after it are encoded too. */
        int prefix[64];
        for (int kk = 0; kk < s->n_keys; kk++) {
            prefix[kk] = 0;
            if (s->keys[kk].kind != QSK_BYTES)
                continue;
            int64_t mx;
            bool zero;
            basalt_qs_bytes_stats(f.arr, nb, s->keys[kk].column, s->keys[kk].large, &mx, &zero);
            prefix[kk] = mx <= 32 && !zero ? -(int)(mx > 0 ? mx : 1) : 16;
        }
        basalt_qs_layout(s->keys, s->n_keys, nullable, prefix, &lay);
        if (lay.bytes > MAX_KEY_BYTES) {
            for (int kk = 0; kk < s->n_keys; kk++)
                prefix[kk] = 0;
            basalt_qs_layout(s->keys, s->n_keys, nullable, prefix, &lay);
        }
        n_rec = rows;
        f.rec = basalt_malloc((size_t)(n_rec ? n_rec : 1) * (size_t)(lay.K + 2) * 8);
        if (!f.rec)
            st = nomem(err);
    }
    for (int i = 0; i < n_locals; i++) {
        basalt_free(where[i]);
        if (locals[i] && moved) {
            locals[i]->n = 0;
            locals[i]->n_rec = 0;
        }
    }
    basalt_free(where);
    if (st != BASALT_OK)
        goto done;
    f.lay = &lay;
    if (!topk)
        basalt_pool_parallel_for(pool, 0, nb, 1, encode_task, &f);
    uint64_t *tmp = basalt_malloc((size_t)(n_rec ? n_rec : 1) * (size_t)(lay.K + 2) * 8);
    if (!tmp) {
        st = nomem(err);
        goto done;
    }
    struct qs_ctx c;
    basalt_qs_ctx_init(&c, s, &lay, f.arr);
    basalt_qs_sort(&c, f.rec, tmp, n_rec, pool);
    basalt_free(tmp);
    atomic_fetch_add(&s->rows_sorted, n_rec);
    atomic_store(&s->key_words, lay.K);
    atomic_fetch_add(&s->radix_passes, c.passes);
    atomic_fetch_add(&s->skipped_bytes, c.skipped);
    atomic_fetch_add(&s->tie_compares, c.ties);
    f.first = topk ? (s->offset < n_rec ? s->offset : n_rec) : 0;
    f.n_out = n_rec - f.first;
    if (topk && f.n_out > s->limit)
        f.n_out = s->limit;
    if (!out->schema.release && (st = basalt_arrow_schema_copy(&s->schema, &out->schema, err)) != BASALT_OK)
        goto done;
    int64_t n_outs = (f.n_out + OUT_ROWS - 1) / OUT_ROWS;
    if (n_outs > 0) {
        f.outs = basalt_calloc((size_t)n_outs, sizeof *f.outs);
        f.st = basalt_calloc((size_t)n_outs, sizeof *f.st);
        f.errs = basalt_calloc((size_t)n_outs, sizeof *f.errs);
        if (!f.outs || !f.st || !f.errs) {
            st = nomem(err);
        } else {
            basalt_pool_parallel_for(pool, 0, n_outs, 1, gather_task, &f);
            for (int64_t o = 0; o < n_outs && st == BASALT_OK; o++)
                if (f.st[o] != BASALT_OK) {
                    st = f.st[o];
                    if (err)
                        *err = f.errs[o];
                }
            for (int64_t o = 0; o < n_outs; o++) {
                if (st == BASALT_OK)
                    st = basalt_arrow_batches_append(out, &f.outs[o], err);
                else
                    basalt_arrow_array_release(&f.outs[o]);
            }
        }
    }
done:
    for (int64_t b = 0; f.arr && b < nb; b++)
        basalt_arrow_array_release(&f.arr[b]);
    basalt_free(order);
    basalt_free(f.arr);
    basalt_free(f.start);
    basalt_free(f.rec);
    basalt_free(f.outs);
    basalt_free(f.st);
    basalt_free(f.errs);
    return st;
}

void basalt_qsort_stats(const struct basalt_qsort *s, struct basalt_qsort_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!s)
        return;
    /* C11's atomic_load takes a non-const pointer. */
    struct basalt_qsort *m = (struct basalt_qsort *)(uintptr_t)s;
    out->rows_sorted = atomic_load(&m->rows_sorted);
    out->key_words = atomic_load(&m->key_words);
    out->radix_passes = atomic_load(&m->radix_passes);
    out->skipped_bytes = atomic_load(&m->skipped_bytes);
    out->tie_compares = atomic_load(&m->tie_compares);
    out->topk_dropped = atomic_load(&m->topk_dropped);
}
