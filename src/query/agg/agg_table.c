/* A worker's table of groups: key rows (row-major, fixed width, long strings
 * out of line), their 64-bit hashes, an open-addressing index of group ids,
 * and the dense path that maps small integer keys straight to group ids. */
#include <math.h>
#include <string.h>

#include "agg/agg_internal.h"
#include "basalt/hash.h"

basalt_status basalt_qagg_col_init(const struct ArrowArray *a, enum qagg_phys phys, bool large,
                                   int64_t n, struct qagg_col *c, struct basalt_error *err)
{
    memset(c, 0, sizeof *c);
    if (!a)
        return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate: missing input array");
    if (a->length < n || a->offset < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "aggregate: array of %lld rows for a batch of %lld",
                                (long long)a->length, (long long)n);
    int64_t need = phys == QP_STR ? 3 : 2;
    if (a->n_buffers < need || !a->buffers || (n > 0 && !a->buffers[1]) ||
        (phys == QP_STR && n > 0 && !a->buffers[2]))
        return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate: input array lacks buffers");
    c->valid = a->null_count != 0 ? a->buffers[0] : NULL;
    c->data = a->buffers[1];
    c->sdata = phys == QP_STR ? a->buffers[2] : NULL;
    c->off = a->offset;
    c->large = phys == QP_STR && large;
    return BASALT_OK;
}

void basalt_qagg_cell_get(const struct qagg_col *c, enum qagg_phys phys, int64_t i,
                          union qagg_cell *out)
{
    int64_t j = c->off + i;
    const void *d = c->data;
    memset(out, 0, sizeof *out);
    switch (phys) {
    case QP_BOOL: out->i = basalt_bitmap_get(d, j); break;
    case QP_I8: out->i = ((const int8_t *)d)[j]; break;
    case QP_I16: out->i = ((const int16_t *)d)[j]; break;
    case QP_I32: out->i = ((const int32_t *)d)[j]; break;
    case QP_I64: out->i = ((const int64_t *)d)[j]; break;
    case QP_U8: out->u = ((const uint8_t *)d)[j]; break;
    case QP_U16: out->u = ((const uint16_t *)d)[j]; break;
    case QP_U32: out->u = ((const uint32_t *)d)[j]; break;
    case QP_U64: out->u = ((const uint64_t *)d)[j]; break;
    case QP_F32: out->f = ((const float *)d)[j]; break;
    case QP_F64: out->f = ((const double *)d)[j]; break;
    case QP_DEC: memcpy(&out->d, (const char *)d + 16 * j, 16); break;
    case QP_IV: memcpy(&out->iv, (const char *)d + 16 * j, 16); break;
    case QP_STR: basalt_qagg_str_get(c, i, &out->s.p, &out->s.n); break;
    }
}

/* ------------------------------------------------------------ key rows */

static void put_str(uint8_t *dst, const char *p, int64_t n)
{
    struct qagg_str s;
    memset(&s, 0, sizeof s);
    s.len = (uint32_t)n;
    if (n <= QAGG_STR_INLINE) {
        memcpy(s.prefix, p, (size_t)n);
    } else {
        memcpy(s.prefix, p, 4);
        s.u.ptr = p;
    }
    memcpy(dst, &s, sizeof s);
}

/* Writes column k's value of row i (valid) into `row`; floats and intervals
 * in their canonical form, so equal keys have equal bytes. */
static void put_key(const struct qagg_keyinfo *k, const struct qagg_col *c, int64_t i,
                    uint8_t *row)
{
    uint8_t *dst = row + k->offset;
    int64_t j = c->off + i;
    switch (k->phys) {
    case QP_BOOL: *dst = basalt_bitmap_get(c->data, j); break;
    case QP_I8: case QP_U8: *dst = ((const uint8_t *)c->data)[j]; break;
    case QP_I16: case QP_U16: memcpy(dst, (const uint16_t *)c->data + j, 2); break;
    case QP_I32: case QP_U32: memcpy(dst, (const uint32_t *)c->data + j, 4); break;
    case QP_I64: case QP_U64: memcpy(dst, (const uint64_t *)c->data + j, 8); break;
    case QP_F32: {
        float f = ((const float *)c->data)[j];
        if (f == 0.0f)
            f = 0.0f;
        uint32_t b;
        memcpy(&b, &f, 4);
        if (isnan(f))
            b = 0x7fc00000u;
        memcpy(dst, &b, 4);
        break;
    }
    case QP_F64: {
        double f = ((const double *)c->data)[j];
        if (f == 0.0)
            f = 0.0;
        uint64_t b;
        memcpy(&b, &f, 8);
        if (isnan(f))
            b = 0x7ff8000000000000ull;
        memcpy(dst, &b, 8);
        break;
    }
    case QP_DEC: memcpy(dst, (const char *)c->data + 16 * j, 16); break;
    case QP_IV: {
        struct qinterval iv;
        memcpy(&iv, (const char *)c->data + 16 * j, 16);
        basalt_qinterval_normalize(&iv);
        memcpy(dst, &iv, 16);
        break;
    }
    case QP_STR: {
        const char *p;
        int64_t n;
        basalt_qagg_str_get(c, i, &p, &n);
        put_str(dst, p, n);
        break;
    }
    }
}

void basalt_qagg_encode_rows(const struct basalt_qagg *a, const struct qagg_col *keys, int64_t n,
                             uint8_t *rows)
{
    size_t w = (size_t)a->row_width;
    memset(rows, 0, w * (size_t)n);
    for (int k = 0; k < a->n_keys; k++) {
        const struct qagg_keyinfo *ki = &a->keys[k];
        const struct qagg_col *c = &keys[k];
        uint64_t bit = 1ull << (k & 63);
        size_t word = (size_t)(k >> 6) * 8;
        if (!c->valid && ki->phys == QP_I64) {
            const int64_t *d = (const int64_t *)c->data + c->off;
            for (int64_t i = 0; i < n; i++)
                memcpy(rows + (size_t)i * w + ki->offset, d + i, 8);
            continue;
        }
        for (int64_t i = 0; i < n; i++) {
            uint8_t *row = rows + (size_t)i * w;
            if (basalt_qagg_valid(c, i)) {
                put_key(ki, c, i, row);
            } else {
                uint64_t m;
                memcpy(&m, row + word, 8);
                m |= bit;
                memcpy(row + word, &m, 8);
            }
        }
    }
}

/* The hash of a key row: a function of the key values only (a long string
 * contributes the hash of its bytes, not its address). */
static inline uint64_t hash_row(const struct basalt_qagg *a, const uint8_t *row)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int w = 0; w < a->row_words; w++) {
        uint64_t v;
        memcpy(&v, row + 8 * w, 8);
        if (a->ptr_word[w]) {
            uint32_t len;
            memcpy(&len, row + 8 * w - 8, 4);
            if (len > QAGG_STR_INLINE) {
                const char *p;
                memcpy(&p, row + 8 * w, sizeof p);
                v = basalt_hash_xxh64(p, len, 0);
            }
        }
        h = basalt_qagg_hash_step(h, v);
    }
    return basalt_qagg_fmix64(h);
}

uint64_t basalt_qagg_hash_row(const struct basalt_qagg *a, const uint8_t *row)
{
    return hash_row(a, row);
}

bool basalt_qagg_row_eq(const struct basalt_qagg *a, const uint8_t *x, const uint8_t *y)
{
    for (int w = 0; w < a->row_words; w++) {
        uint64_t u, v;
        memcpy(&u, x + 8 * w, 8);
        memcpy(&v, y + 8 * w, 8);
        if (u == v)
            continue;
        if (!a->ptr_word[w])
            return false;
        uint32_t len;
        memcpy(&len, x + 8 * w - 8, 4); /* the header words were equal */
        if (len <= QAGG_STR_INLINE)
            return false;
        const char *p, *q;
        memcpy(&p, &u, sizeof p);
        memcpy(&q, &v, sizeof q);
        if (memcmp(p, q, len) != 0)
            return false;
    }
    return true;
}

int basalt_qagg_row_cmp(const struct basalt_qagg *a, const uint8_t *x, const uint8_t *y)
{
    for (int w = 0; w < a->row_words; w++) {
        uint64_t u, v;
        memcpy(&u, x + 8 * w, 8);
        memcpy(&v, y + 8 * w, 8);
        if (u == v)
            continue;
        if (a->ptr_word[w]) {
            uint32_t len;
            memcpy(&len, x + 8 * w - 8, 4);
            if (len > QAGG_STR_INLINE) {
                const char *p, *q;
                memcpy(&p, &u, sizeof p);
                memcpy(&q, &v, sizeof q);
                int c = memcmp(p, q, len);
                if (c != 0)
                    return c < 0 ? -1 : 1;
                continue;
            }
        }
        return u < v ? -1 : 1;
    }
    return 0;
}

/* ------------------------------------------------------------ the table */

basalt_status basalt_qagg_local_init(struct basalt_qagg *agg, struct basalt_qagg_local *l,
                                     bool copy_strings, struct basalt_error *err)
{
    memset(l, 0, sizeof *l);
    l->agg = agg;
    l->copy_strings = copy_strings;
    l->dense = agg->dense_ok ? 0 : -1;
    l->dense_null_gid = -1;
    basalt_arena_init(&l->arena, 1 << 16);
    size_t nc = agg->n_calls ? (size_t)agg->n_calls : 1;
    l->states = basalt_calloc(nc, sizeof *l->states);
    l->coll = basalt_calloc(nc, sizeof *l->coll);
    l->rowbuf = basalt_malloc((size_t)QAGG_CHUNK * (size_t)agg->row_width + 8);
    l->hbuf = basalt_malloc(sizeof(uint64_t) * QAGG_CHUNK);
    l->gids = basalt_calloc(QAGG_CHUNK, sizeof(uint32_t));
    if (agg->word_key)
        l->wbuf = basalt_malloc(sizeof(uint64_t) * QAGG_CHUNK);
    if (!l->states || !l->coll || !l->rowbuf || !l->hbuf || !l->gids ||
        (agg->word_key && !l->wbuf)) {
        basalt_qagg_local_clear(l);
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    }
    return BASALT_OK;
}

void basalt_qagg_local_clear(struct basalt_qagg_local *l)
{
    if (!l->agg)
        return;
    if (l->states)
        basalt_qagg_states_free(l, 0);
    for (int c = 0; l->states && c < l->agg->n_calls; c++)
        basalt_free(l->states[c]);
    for (int c = 0; l->coll && c < l->agg->n_calls; c++) {
        basalt_free(l->coll[c].gid);
        basalt_free(l->coll[c].v);
    }
    basalt_free(l->states);
    basalt_free(l->coll);
    basalt_free(l->rows);
    basalt_free(l->hashes);
    basalt_free(l->slots);
    basalt_free(l->wslots);
    basalt_free(l->wbuf);
    basalt_free(l->dense_map);
    basalt_free(l->rowbuf);
    basalt_free(l->hbuf);
    basalt_free(l->gids);
    basalt_free(l->dict_map);
    basalt_arena_reset(&l->arena);
    memset(l, 0, sizeof *l);
}

static basalt_status groups_resize(struct basalt_qagg_local *l, int64_t cap,
                                   struct basalt_error *err)
{
    const struct basalt_qagg *a = l->agg;
    if (l->cap_groups >= (int64_t)UINT32_MAX - 1)
        return basalt_error_set(err, BASALT_LIMIT, "aggregate: more than 2^32-2 groups");
    uint8_t *rows = basalt_realloc(l->rows, (size_t)cap * (size_t)a->row_width);
    if (!rows)
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    l->rows = rows;
    uint64_t *h = basalt_realloc(l->hashes, (size_t)cap * sizeof *h);
    if (!h)
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    l->hashes = h;
    for (int c = 0; c < a->n_calls; c++) {
        size_t sz = a->calls[c].state_size;
        if (!sz)
            continue;
        /* Not zeroed here: basalt_qagg_group_append zeroes a group's
         * states as it adds it, so the pages past the last group are never
         * touched (a table doubles: zeroing its new half here made the
         * kernel clear pages half of which no group ever used). */
        uint8_t *s = basalt_realloc(l->states[c], (size_t)cap * sz);
        if (!s)
            return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
        l->states[c] = s;
    }
    l->cap_groups = cap;
    return BASALT_OK;
}

/* Whether a row lives in the word index rather than in slots. */
static inline bool word_row(const struct basalt_qagg *a, const uint8_t *row)
{
    uint64_t m;
    if (!a->word_key)
        return false;
    memcpy(&m, row, 8);
    return m == 0;
}

static basalt_status grow_groups(struct basalt_qagg_local *l, struct basalt_error *err)
{
    return groups_resize(l, l->cap_groups ? l->cap_groups * 2 : 256, err);
}

/* Sizes an empty table for about n groups (a merge table, whose size the
 * locals tell), so filling it neither reallocates nor rehashes. */
basalt_status basalt_qagg_local_reserve(struct basalt_qagg_local *l, int64_t n,
                                        struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    if (n > l->cap_groups && n < (int64_t)UINT32_MAX - 1)
        st = groups_resize(l, n, err);
    if (st == BASALT_OK && l->agg->word_key)
        st = basalt_qagg_word_reserve(l, n, err);
    return st;
}

static basalt_status grow_slots(struct basalt_qagg_local *l, struct basalt_error *err)
{
    const struct basalt_qagg *a = l->agg;
    uint64_t n = l->slots ? (l->mask + 1) * 2 : 1024;
    uint64_t *s = basalt_calloc((size_t)n, sizeof *s);
    if (!s)
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    uint64_t mask = n - 1;
    size_t w = (size_t)a->row_width;
    for (int64_t g = 0; g < l->n_groups; g++) {
        if (word_row(a, l->rows + (size_t)g * w))
            continue;
        uint64_t h = l->hashes[g], pos = h & mask;
        while (s[pos])
            pos = (pos + 1) & mask;
        s[pos] = (h >> 32 << 32) | (uint64_t)(g + 1);
    }
    basalt_free(l->slots);
    l->slots = s;
    l->mask = mask;
    return BASALT_OK;
}

/* Appends a new group (key row, hash, zeroed states); the caller indexes it. */
basalt_status basalt_qagg_group_append(struct basalt_qagg_local *l, uint64_t h,
                                       const uint8_t *row, uint32_t *gid,
                                       struct basalt_error *err)
{
    const struct basalt_qagg *a = l->agg;
    basalt_status st;
    if (l->n_groups == l->cap_groups && (st = grow_groups(l, err)) != BASALT_OK)
        return st;
    int64_t g = l->n_groups;
    uint8_t *dst = l->rows + (size_t)g * (size_t)a->row_width;
    memcpy(dst, row, (size_t)a->row_width);
    if (l->copy_strings && a->has_strings) {
        for (int k = 0; k < a->n_keys; k++) {
            if (a->keys[k].phys != QP_STR)
                continue;
            struct qagg_str s;
            memcpy(&s, dst + a->keys[k].offset, sizeof s);
            if (s.len <= QAGG_STR_INLINE)
                continue;
            char *copy = basalt_arena_alloc(&l->arena, s.len, 1);
            if (!copy)
                return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
            memcpy(copy, s.u.ptr, s.len);
            s.u.ptr = copy;
            memcpy(dst + a->keys[k].offset, &s, sizeof s);
        }
    }
    l->hashes[g] = h;
    for (int c = 0; c < a->n_calls; c++)
        if (a->calls[c].state_size != 0)
            memset(l->states[c] + (size_t)g * a->calls[c].state_size, 0, a->calls[c].state_size);
    l->n_groups++;
    *gid = (uint32_t)g;
    return BASALT_OK;
}

static basalt_status add_group(struct basalt_qagg_local *l, uint64_t h, const uint8_t *row,
                               uint64_t pos, uint32_t *gid, struct basalt_error *err)
{
    basalt_status st = basalt_qagg_group_append(l, h, row, gid, err);
    if (st != BASALT_OK)
        return st;
    l->slots[pos] = (h >> 32 << 32) | (uint64_t)(*gid + 1);
    l->in_slots++;
    if ((uint64_t)l->in_slots * 2 > l->mask + 1)
        return grow_slots(l, err);
    return BASALT_OK;
}

basalt_status basalt_qagg_find_or_add(struct basalt_qagg_local *l, uint64_t h,
                                      const uint8_t *row, uint32_t *gid,
                                      struct basalt_error *err)
{
    basalt_status st;
    const struct basalt_qagg *a = l->agg;
    if (word_row(a, row)) {
        uint64_t word;
        memcpy(&word, row + 8, 8);
        return basalt_qagg_word_find_or_add(l, h, word, gid, err);
    }
    if (!l->slots && (st = grow_slots(l, err)) != BASALT_OK)
        return st;
    uint64_t mask = l->mask, pos = h & mask, tag = h >> 32;
    for (;;) {
        uint64_t s = l->slots[pos];
        if (!s)
            return add_group(l, h, row, pos, gid, err);
        if ((s >> 32) == tag) {
            uint32_t g = (uint32_t)s - 1;
            if (basalt_qagg_row_eq(a, l->rows + (size_t)g * (size_t)a->row_width, row)) {
                *gid = g;
                return BASALT_OK;
            }
        }
        pos = (pos + 1) & mask;
    }
}

/* ------------------------------------------------------------ dense path */

static int64_t dense_value(const struct qagg_col *c, enum qagg_phys p, int64_t i)
{
    int64_t j = c->off + i;
    switch (p) {
    case QP_BOOL: return basalt_bitmap_get(c->data, j);
    case QP_I8: return ((const int8_t *)c->data)[j];
    case QP_I16: return ((const int16_t *)c->data)[j];
    case QP_I32: return ((const int32_t *)c->data)[j];
    case QP_U8: return ((const uint8_t *)c->data)[j];
    case QP_U16: return ((const uint16_t *)c->data)[j];
    case QP_U32: return ((const uint32_t *)c->data)[j];
    default: return ((const int64_t *)c->data)[j]; /* I64; U64 checked by range */
    }
}

/* The range of the chunk's valid keys; false when there are none or an
 * unsigned value does not fit int64. */
static bool chunk_range(const struct qagg_col *c, enum qagg_phys p, int64_t n, int64_t *lo,
                        int64_t *hi, bool *any)
{
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    *any = false;
    if (!c->valid && p == QP_I64) {
        const int64_t *d = (const int64_t *)c->data + c->off;
        for (int64_t i = 0; i < n; i++) {
            mn = d[i] < mn ? d[i] : mn;
            mx = d[i] > mx ? d[i] : mx;
        }
    } else if (!c->valid && p == QP_I32) {
        const int32_t *d = (const int32_t *)c->data + c->off;
        for (int64_t i = 0; i < n; i++) {
            mn = d[i] < mn ? d[i] : mn;
            mx = d[i] > mx ? d[i] : mx;
        }
    } else {
        for (int64_t i = 0; i < n; i++) {
            if (!basalt_qagg_valid(c, i))
                continue;
            if (p == QP_U64 && ((const uint64_t *)c->data)[c->off + i] > (uint64_t)INT64_MAX)
                return false;
            int64_t v = dense_value(c, p, i);
            mn = v < mn ? v : mn;
            mx = v > mx ? v : mx;
        }
    }
    *any = mn <= mx;
    *lo = mn;
    *hi = mx;
    return true;
}

static basalt_status dense_new_group(struct basalt_qagg_local *l, const struct qagg_col *c,
                                     int64_t i, uint32_t *gid, struct basalt_error *err)
{
    const struct basalt_qagg *a = l->agg;
    uint8_t row[32];
    memset(row, 0, sizeof row);
    if (basalt_qagg_valid(c, i))
        put_key(&a->keys[0], c, i, row);
    else
        row[0] = 1;
    return basalt_qagg_find_or_add(l, hash_row(a, row), row, gid, err);
}

/* Decides whether this chunk can go through the dense map: its range joined
 * with the keys seen so far must fit the window (which slides down when a
 * lower key arrives). */
static basalt_status dense_admit(struct basalt_qagg_local *l, const struct qagg_col *c,
                                 int64_t n, bool *use, struct basalt_error *err)
{
    *use = false;
    if (l->dense < 0)
        return BASALT_OK;
    int64_t lo, hi;
    bool any;
    if (!chunk_range(c, l->agg->keys[0].phys, n, &lo, &hi, &any)) {
        l->dense = -1;
        return BASALT_OK;
    }
    if (!any) {
        *use = true;
        return BASALT_OK;
    }
    if (!l->dense_map) {
        l->dense_map = basalt_malloc(sizeof(int32_t) * QAGG_DENSE_SLOTS);
        if (!l->dense_map)
            return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
        memset(l->dense_map, 0xff, sizeof(int32_t) * QAGG_DENSE_SLOTS);
        l->dense_base = l->dense_lo = lo;
        l->dense_hi = hi;
    }
    int64_t nlo = lo < l->dense_lo ? lo : l->dense_lo;
    int64_t nhi = hi > l->dense_hi ? hi : l->dense_hi;
    if ((uint64_t)nhi - (uint64_t)nlo >= QAGG_DENSE_SLOTS) {
        l->dense = -1; /* the groups are all in the hash table already */
        return BASALT_OK;
    }
    /* The base is always the lowest key seen, so the window only ever
     * slides down: nhi - nlo fits it, hence nhi < base + slots when nlo did
     * not move. */
    if (nlo < l->dense_base) {
        int64_t shift = l->dense_base - nlo;
        int32_t *m = l->dense_map;
        memmove(m + shift, m, sizeof(int32_t) * (size_t)(QAGG_DENSE_SLOTS - shift));
        memset(m, 0xff, sizeof(int32_t) * (size_t)shift);
        l->dense_base = nlo;
    }
    l->dense_lo = nlo;
    l->dense_hi = nhi;
    l->dense = 1;
    *use = true;
    return BASALT_OK;
}

#define DENSE_LOOP(T)                                                                    \
    do {                                                                                 \
        const T *d = (const T *)c->data + c->off;                                        \
        for (int64_t i = 0; i < n; i++) {                                                \
            if (c->valid && !basalt_bitmap_get(c->valid, c->off + i)) {                  \
                if (l->dense_null_gid < 0) {                                             \
                    uint32_t g;                                                          \
                    if ((st = dense_new_group(l, c, i, &g, err)) != BASALT_OK)           \
                        return st;                                                       \
                    l->dense_null_gid = g;                                               \
                }                                                                        \
                gids[i] = (uint32_t)l->dense_null_gid;                                   \
                continue;                                                                \
            }                                                                            \
            int64_t slot = (int64_t)d[i] - base;                                         \
            int32_t g = map[slot];                                                       \
            if (g < 0) {                                                                 \
                uint32_t ng;                                                             \
                if ((st = dense_new_group(l, c, i, &ng, err)) != BASALT_OK)              \
                    return st;                                                           \
                map[slot] = g = (int32_t)ng;                                             \
            }                                                                            \
            gids[i] = (uint32_t)g;                                                       \
        }                                                                                \
    } while (0)

static basalt_status dense_rows(struct basalt_qagg_local *l, const struct qagg_col *c,
                                int64_t n, struct basalt_error *err)
{
    basalt_status st;
    uint32_t *gids = l->gids;
    int32_t *map = l->dense_map;
    int64_t base = l->dense_base;
    switch (l->agg->keys[0].phys) {
    case QP_I8: DENSE_LOOP(int8_t); break;
    case QP_I16: DENSE_LOOP(int16_t); break;
    case QP_I32: DENSE_LOOP(int32_t); break;
    case QP_I64: DENSE_LOOP(int64_t); break;
    case QP_U8: DENSE_LOOP(uint8_t); break;
    case QP_U16: DENSE_LOOP(uint16_t); break;
    case QP_U32: DENSE_LOOP(uint32_t); break;
    case QP_U64: DENSE_LOOP(uint64_t); break;
    default: /* BOOL */
        for (int64_t i = 0; i < n; i++) {
            int64_t slot = basalt_qagg_valid(c, i) ? dense_value(c, QP_BOOL, i) - base : -1;
            int32_t g = slot >= 0 ? map[slot] : (int32_t)l->dense_null_gid;
            if (g < 0) {
                uint32_t ng;
                if ((st = dense_new_group(l, c, i, &ng, err)) != BASALT_OK)
                    return st;
                g = (int32_t)ng;
                if (slot >= 0)
                    map[slot] = g;
                else
                    l->dense_null_gid = g;
            }
            gids[i] = (uint32_t)g;
        }
        break;
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------ a chunk */

basalt_status basalt_qagg_group_rows(struct basalt_qagg_local *l, const struct qagg_col *keys,
                                     int64_t n, struct basalt_error *err)
{
    struct basalt_qagg *a = l->agg;
    basalt_status st;
    bool use_dense = false;
    if (a->dense_ok && (st = dense_admit(l, &keys[0], n, &use_dense, err)) != BASALT_OK)
        return st;
    if (use_dense) {
        atomic_fetch_add_explicit(&a->dense_batches, 1, memory_order_relaxed);
        return dense_rows(l, &keys[0], n, err);
    }
    atomic_fetch_add_explicit(&a->hashed_batches, 1, memory_order_relaxed);
    if (a->word_key)
        return basalt_qagg_word_rows(l, keys, n, err);
    if (!l->slots && (st = grow_slots(l, err)) != BASALT_OK)
        return st;
    size_t w = (size_t)a->row_width;
    if (a->str_keys) {
        basalt_qagg_str_encode(a, keys, n, l->rowbuf, l->hbuf);
    } else {
        basalt_qagg_encode_rows(a, keys, n, l->rowbuf);
        for (int64_t i = 0; i < n; i++)
            l->hbuf[i] = hash_row(a, l->rowbuf + (size_t)i * w);
    }
    /* Key rows past the caches' reach (as the states' loops judge it) */
    bool prefetch_rows = (uint64_t)l->n_groups * w > QAGG_PREFETCH_ROWS_BYTES;
    for (int64_t i = 0; i < n; i++) {
        /* The slot of a row a few ahead is fetched while this one probes,
         * and, once the key rows outgrow the caches, the key row of the
         * group in the slot of a nearer one (whose slot came in by now), so
         * the compare does not wait on either. */
        if (i + 8 < n)
            __builtin_prefetch(&l->slots[l->hbuf[i + 8] & l->mask]);
        if (prefetch_rows && i + 4 < n) {
            uint64_t ahead = l->slots[l->hbuf[i + 4] & l->mask];
            if (ahead)
                __builtin_prefetch(l->rows + (size_t)((uint32_t)ahead - 1) * w);
        }
        uint64_t h = l->hbuf[i], pos = h & l->mask, tag = h >> 32;
        const uint8_t *row = l->rowbuf + (size_t)i * w;
        for (;;) {
            uint64_t s = l->slots[pos];
            if (!s) {
                if ((st = add_group(l, h, row, pos, &l->gids[i], err)) != BASALT_OK)
                    return st;
                break;
            }
            if ((s >> 32) == tag) {
                uint32_t g = (uint32_t)s - 1;
                const uint8_t *grow = l->rows + (size_t)g * w;
                uint64_t x0, y0;
                memcpy(&x0, grow + 8, 8);
                memcpy(&y0, row + 8, 8);
                /* the second word (a string's length and prefix, or the first
                 * key) settles most mismatches before the generic compare */
                if ((!a->str_keys || x0 == y0) && basalt_qagg_row_eq(a, grow, row)) {
                    l->gids[i] = g;
                    break;
                }
            }
            pos = (pos + 1) & l->mask;
        }
    }
    return BASALT_OK;
}
