/* What the data writer reads from a batch's values itself: nulls in
 * required fields (refused with the column and row named) and NaN counts of
 * float and double leaves (Parquet statistics have none). Everything else
 * comes from the Parquet writer's statistics, so columns that need neither
 * are never visited.
 *
 * A walk goes down the Iceberg fields and the Arrow arrays together. At
 * each node it looks at a run of slots, and at which of them the rows reach:
 * a slot under a null struct, list or map element holds no value, whatever
 * its own validity says, so a bitmap of reached slots goes down with the
 * run once some ancestor had a null. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "data_write_internal.h"

struct scan {
    const struct basalt_iceberg_data_writer *w;
    int64_t *counts;          /* NULL: not counting NaN */
    bool check;               /* looking for nulls in required fields */
    uint32_t leaf;            /* index of the next leaf, depth first */
    /* the first null found in a required field: its dotted name */
    char name[512];
    struct basalt_error *err;
};

/* Physical slots [lo, hi) of `a`; `reach` bit i - lo says whether slot i is
 * reached (NULL: every slot). */
struct run {
    const struct ArrowArray *a;
    int64_t lo, hi;
    const uint8_t *reach;
};

static bool has_nulls(const struct ArrowArray *a)
{
    return a->n_buffers > 0 && a->buffers[0] && a->null_count != 0;
}

static bool reached(const struct run *r, int64_t i)
{
    return !r->reach || basalt_bitmap_get(r->reach, i - r->lo);
}

static bool valid(const struct ArrowArray *a, int64_t i)
{
    return !has_nulls(a) || basalt_bitmap_get(a->buffers[0], i);
}

static uint32_t count_leaves(const struct basalt_iceberg_type *t)
{
    if (t->id != BASALT_ICEBERG_TYPE_STRUCT && t->id != BASALT_ICEBERG_TYPE_LIST &&
        t->id != BASALT_ICEBERG_TYPE_MAP)
        return 1;
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->n_fields; i++)
        n += count_leaves(&t->fields[i].type);
    return n;
}

/* Whether anything under `f` (itself included) needs looking at. */
static bool wanted(const struct scan *s, const struct basalt_iceberg_field *f, uint32_t leaf)
{
    const struct basalt_iceberg_type *t = &f->type;
    if (s->check && f->required)
        return true;
    if (t->id != BASALT_ICEBERG_TYPE_STRUCT && t->id != BASALT_ICEBERG_TYPE_LIST &&
        t->id != BASALT_ICEBERG_TYPE_MAP)
        return s->counts && s->w->leaves[leaf].nan;
    for (uint32_t i = 0; i < t->n_fields; i++) {
        if (wanted(s, &t->fields[i], leaf))
            return true;
        leaf += count_leaves(&t->fields[i].type);
    }
    return false;
}

static int64_t count_nan_run(const struct run *r, bool is_float)
{
    const struct ArrowArray *a = r->a;
    int64_t n = 0;
    if (is_float) {
        const float *v = a->buffers[1];
        for (int64_t i = r->lo; i < r->hi; i++)
            n += v[i] != v[i];
    } else {
        const double *v = a->buffers[1];
        for (int64_t i = r->lo; i < r->hi; i++)
            n += v[i] != v[i];
    }
    if (n == 0 || (!r->reach && !has_nulls(a)))
        return n;
    /* Some NaN: those in null or unreached slots do not count. */
    n = 0;
    for (int64_t i = r->lo; i < r->hi; i++) {
        if (!reached(r, i) || !valid(a, i))
            continue;
        n += is_float ? isnan(((const float *)a->buffers[1])[i])
                      : isnan(((const double *)a->buffers[1])[i]);
    }
    return n;
}

/* The reach of `r`'s slots that hold a value: r->reach and the validity,
 * into a new bitmap, or NULL (every slot) when neither restricts it. */
static basalt_status own_reach(const struct run *r, uint8_t **out, struct basalt_error *err)
{
    *out = NULL;
    if (!r->reach && !has_nulls(r->a))
        return BASALT_OK;
    int64_t n = r->hi - r->lo;
    uint8_t *bits = basalt_calloc((size_t)basalt_bitmap_bytes(n) + 1, 1);
    if (!bits)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (int64_t i = r->lo; i < r->hi; i++)
        if (reached(r, i) && valid(r->a, i))
            basalt_bitmap_set(bits, i - r->lo, true);
    *out = bits;
    return BASALT_OK;
}

static int64_t offset_at(const struct ArrowArray *a, int64_t i)
{
    int32_t v;
    memcpy(&v, (const uint8_t *)a->buffers[1] + 4 * i, 4);
    return v;
}

static basalt_status visit(struct scan *s, const struct basalt_iceberg_field *f,
                           const struct run *r, int64_t *bad, int depth);

/* Struct children see the struct's slots shifted by their own offset. */
static basalt_status visit_struct(struct scan *s, const struct basalt_iceberg_type *t,
                                  const struct run *r, const uint8_t *reach, int64_t *bad,
                                  int depth)
{
    const struct ArrowArray *a = r->a;
    if ((uint64_t)a->n_children != t->n_fields)
        return basalt_error_set(s->err, BASALT_CORRUPT, "struct with %lld children, %u expected",
                                (long long)a->n_children, t->n_fields);
    for (uint32_t i = 0; i < t->n_fields; i++) {
        const struct ArrowArray *c = a->children[i];
        struct run cr = {c, r->lo + c->offset, r->hi + c->offset, reach};
        int64_t q = -1;
        basalt_status st = visit(s, &t->fields[i], &cr, &q, depth + 1);
        if (st != BASALT_OK)
            return st;
        if (q >= 0 && *bad < 0) {
            *bad = q - c->offset;
            return BASALT_OK;
        }
    }
    return BASALT_OK;
}

/* List and map slots own runs of their child (the map's entries struct). */
static basalt_status visit_list(struct scan *s, const struct basalt_iceberg_field *f,
                                const struct run *r, const uint8_t *reach, int64_t *bad,
                                int depth)
{
    const struct ArrowArray *a = r->a;
    if (a->n_children != 1 || (r->hi > r->lo && !a->buffers[1]))
        return basalt_error_set(s->err, BASALT_CORRUPT, "list without offsets or child");
    const struct ArrowArray *c = a->children[0];
    int64_t clo = r->hi > r->lo ? offset_at(a, r->lo) : 0;
    int64_t chi = r->hi > r->lo ? offset_at(a, r->hi) : 0;
    if (clo < 0 || chi < clo || chi > c->length)
        return basalt_error_set(s->err, BASALT_CORRUPT, "list offsets out of order");
    uint8_t *creach = NULL;
    if (reach) {
        creach = basalt_calloc((size_t)basalt_bitmap_bytes(chi - clo) + 1, 1);
        if (!creach)
            return basalt_error_set(s->err, BASALT_NOMEM, "out of memory");
        for (int64_t i = r->lo; i < r->hi; i++) {
            int64_t b = offset_at(a, i), e = offset_at(a, i + 1);
            if (b < clo || e < b || e > chi) {
                basalt_free(creach);
                return basalt_error_set(s->err, BASALT_CORRUPT, "list offsets out of order");
            }
            if (basalt_bitmap_get(reach, i - r->lo) && e > b)
                basalt_bitmap_fill(creach, b - clo, e - b, true);
        }
    }
    struct run cr = {c, clo + c->offset, chi + c->offset, creach};
    int64_t q = -1;
    basalt_status st;
    if (f->type.id == BASALT_ICEBERG_TYPE_MAP) {
        /* the entries struct: key and value */
        if (c->n_children != 2 || f->type.n_fields != 2)
            st = basalt_error_set(s->err, BASALT_CORRUPT, "map entries without key and value");
        else
            st = visit_struct(s, &f->type, &cr, creach, &q, depth + 1);
    } else {
        st = visit(s, &f->type.fields[0], &cr, &q, depth + 1);
    }
    basalt_free(creach);
    if (st != BASALT_OK || q < 0)
        return st;
    /* the slot whose run holds child slot q */
    int64_t cl = q - c->offset, lo = r->lo, hi = r->hi - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (offset_at(a, mid) <= cl)
            lo = mid;
        else
            hi = mid - 1;
    }
    *bad = lo;
    return BASALT_OK;
}

static basalt_status visit(struct scan *s, const struct basalt_iceberg_field *f,
                           const struct run *r, int64_t *bad, int depth)
{
    uint32_t leaf = s->leaf;
    const struct basalt_iceberg_type *t = &f->type;
    bool nested = t->id == BASALT_ICEBERG_TYPE_STRUCT || t->id == BASALT_ICEBERG_TYPE_LIST ||
                  t->id == BASALT_ICEBERG_TYPE_MAP;
    if (!wanted(s, f, leaf) || r->hi <= r->lo) {
        s->leaf += count_leaves(t);
        return BASALT_OK;
    }
    if (depth > 64)
        return basalt_error_set(s->err, BASALT_LIMIT, "batch nested deeper than 64 levels");
    const struct ArrowArray *a = r->a;
    if (a->length < r->hi - a->offset)
        return basalt_error_set(s->err, BASALT_CORRUPT, "column '%s' shorter than its parent",
                                f->name ? f->name : "");
    size_t name_len = strlen(s->name);
    snprintf(s->name + name_len, sizeof s->name - name_len, "%s%s", name_len ? "." : "",
             f->name ? f->name : "");
    basalt_status st = BASALT_OK;
    if (s->check && f->required && has_nulls(a)) {
        for (int64_t i = r->lo; i < r->hi; i++) {
            if (reached(r, i) && !basalt_bitmap_get(a->buffers[0], i)) {
                *bad = i;
                s->leaf += count_leaves(t);
                return BASALT_OK; /* the name stays for the message */
            }
        }
    }
    if (!nested) {
        if (s->counts && s->w->leaves[leaf].nan)
            s->counts[leaf] += count_nan_run(r, t->id == BASALT_ICEBERG_TYPE_FLOAT);
        s->leaf++;
    } else {
        uint8_t *reach = NULL;
        st = own_reach(r, &reach, s->err);
        if (st == BASALT_OK) {
            if (t->id == BASALT_ICEBERG_TYPE_STRUCT)
                st = visit_struct(s, t, r, reach, bad, depth);
            else
                st = visit_list(s, f, r, reach, bad, depth);
        }
        basalt_free(reach);
    }
    if (*bad < 0)
        s->name[name_len] = '\0';
    return st;
}

static basalt_status walk(struct scan *s, const struct ArrowArray *batch, int64_t start,
                          int64_t count, struct basalt_error *err)
{
    const struct basalt_iceberg_type *root = &s->w->schema->root;
    if ((uint64_t)batch->n_children != root->n_fields)
        return basalt_error_set(err, BASALT_INVALID_ARG, "batch has %lld columns, the schema %u",
                                (long long)batch->n_children, root->n_fields);
    for (uint32_t i = 0; i < root->n_fields; i++) {
        const struct ArrowArray *c = batch->children[i];
        int64_t lo = c->offset + batch->offset + start;
        struct run r = {c, lo, lo + count, NULL};
        int64_t bad = -1;
        basalt_status st = visit(s, &root->fields[i], &r, &bad, 0);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "column '%s'",
                                        root->fields[i].name ? root->fields[i].name : "");
        if (bad >= 0)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "required column '%s' is null in row %lld", s->name,
                                    (long long)(bad - c->offset - batch->offset));
    }
    return BASALT_OK;
}

basalt_status basalt_iceberg_dw_check_required(const struct basalt_iceberg_data_writer *w,
                                               const struct ArrowArray *batch,
                                               struct basalt_error *err)
{
    struct scan s;
    memset(&s, 0, sizeof s);
    s.w = w;
    s.check = true;
    s.err = err;
    return walk(&s, batch, 0, batch->length, err);
}

basalt_status basalt_iceberg_dw_count_nan(const struct basalt_iceberg_data_writer *w,
                                          const struct ArrowArray *batch, int64_t start,
                                          int64_t count, int64_t *counts,
                                          struct basalt_error *err)
{
    if (!w->any_nan || count <= 0)
        return BASALT_OK;
    struct scan s;
    memset(&s, 0, sizeof s);
    s.w = w;
    s.counts = counts;
    s.err = err;
    return walk(&s, batch, start, count, err);
}
