/* x IN (c1, c2, ...) over many constants: one lookup per row in a hash set
 * built when the program is compiled, instead of one comparison per
 * constant (an IN subquery's thousands of values). Three-valued as the OR
 * of equalities it replaces: TRUE when x is in the set, NULL when x is NULL
 * or when it is not and the list holds a NULL, FALSE otherwise. Values are
 * compared as `=` compares them: integers by value whatever their width,
 * floats as doubles with -0 equal to 0 and NaN equal to NaN, strings by
 * their bytes. */
#include <string.h>

#include "basalt/hash.h"
#include "query_internal.h"

struct qkey {
    uint64_t lo, hi;
};

struct qin_set {
    enum basalt_query_type_id id;
    bool strings;
    bool has_null;
    uint64_t mask;      /* slots - 1 */
    int32_t *slots;     /* 1 + index of the key there; 0: empty */
    struct qkey *keys;  /* fixed-width values */
    struct qstr *strs;  /* strings and binaries */
    int32_t n;
};

bool basalt_qk_in_set_type(enum basalt_query_type_id id)
{
    return basalt_qtype_is_int(id) || id == BASALT_QUERY_TYPE_FLOAT ||
           id == BASALT_QUERY_TYPE_DOUBLE || id == BASALT_QUERY_TYPE_DECIMAL ||
           id == BASALT_QUERY_TYPE_DATE || id == BASALT_QUERY_TYPE_TIMESTAMP ||
           id == BASALT_QUERY_TYPE_TIME ||
           id == BASALT_QUERY_TYPE_STRING || id == BASALT_QUERY_TYPE_BINARY;
}

static uint64_t mix(uint64_t h)
{
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9u;
    h ^= h >> 29;
    h *= 0x94d049bb133111ebu;
    return h ^ (h >> 32);
}

static uint64_t key_hash(struct qkey k)
{
    return mix(k.lo ^ mix(k.hi + 0x9e3779b97f4a7c15u));
}

static uint64_t str_hash(const struct qstr *s)
{
    return basalt_hash_xxh64(s->ptr, (size_t)s->len, 0);
}

static struct qkey double_key(double d)
{
    struct qkey k = {0, 0};
    if (d != d)
        k.hi = 1; /* every NaN */
    else if (d != 0)
        memcpy(&k.lo, &d, 8); /* 0 and -0 are the zero key */
    return k;
}

/* Row i of a vector of type id as a key. */
static struct qkey row_key(enum basalt_query_type_id id, const void *data, int i)
{
    struct qkey k = {0, 0};
    switch (id) {
    case BASALT_QUERY_TYPE_INT8: k.lo = (uint64_t)(int64_t)((const int8_t *)data)[i]; break;
    case BASALT_QUERY_TYPE_INT16: k.lo = (uint64_t)(int64_t)((const int16_t *)data)[i]; break;
    case BASALT_QUERY_TYPE_INT32:
    case BASALT_QUERY_TYPE_DATE: k.lo = (uint64_t)(int64_t)((const int32_t *)data)[i]; break;
    case BASALT_QUERY_TYPE_UINT8: k.lo = ((const uint8_t *)data)[i]; break;
    case BASALT_QUERY_TYPE_UINT16: k.lo = ((const uint16_t *)data)[i]; break;
    case BASALT_QUERY_TYPE_UINT32: k.lo = ((const uint32_t *)data)[i]; break;
    case BASALT_QUERY_TYPE_FLOAT: k = double_key(((const float *)data)[i]); break;
    case BASALT_QUERY_TYPE_DOUBLE: k = double_key(((const double *)data)[i]); break;
    case BASALT_QUERY_TYPE_DECIMAL: memcpy(&k, (const char *)data + 16 * (size_t)i, 16); break;
    default: k.lo = ((const uint64_t *)data)[i]; break; /* INT64, UINT64, TIMESTAMP, TIME */
    }
    return k;
}

/* A constant as a key, alike. */
static struct qkey value_key(const struct basalt_query_value *v)
{
    struct qkey k = {0, 0};
    switch (v->type.id) {
    case BASALT_QUERY_TYPE_FLOAT:
    case BASALT_QUERY_TYPE_DOUBLE: return double_key(v->v.f);
    case BASALT_QUERY_TYPE_DECIMAL:
        k.lo = v->v.dec.lo;
        k.hi = (uint64_t)v->v.dec.hi;
        return k;
    default:
        k.lo = basalt_qtype_is_unsigned(v->type.id) ? v->v.u : (uint64_t)v->v.i;
        return k;
    }
}

static bool str_eq(const struct qstr *a, const struct qstr *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->ptr, b->ptr, (size_t)a->len) == 0);
}

/* The slot of key k (or string q): where it is, or the empty one where it
 * would go. */
static uint64_t probe(const struct qin_set *s, struct qkey k, const struct qstr *q)
{
    uint64_t h = (q != NULL ? str_hash(q) : key_hash(k)) & s->mask;
    for (;; h = (h + 1) & s->mask) {
        int32_t at = s->slots[h];
        if (at == 0)
            return h;
        if (q != NULL ? str_eq(&s->strs[at - 1], q)
                      : s->keys[at - 1].lo == k.lo && s->keys[at - 1].hi == k.hi)
            return h;
    }
}

static basalt_status k_in_set(const struct qstep *st, struct qexec *x)
{
    const struct qin_set *s = st->data;
    struct qvec *o = &x->vec[st->out];
    const struct qvec *a = &x->vec[st->args[0]];
    uint64_t *d = o->dbuf;
    int nw = (x->n + 63) / 64;
    memset(d, 0, (size_t)nw * 8);
    for (int i = 0; i < x->n; i++) {
        if (!qrow_valid(a->valid, i))
            continue;
        struct qkey k = {0, 0};
        const struct qstr *q = NULL;
        if (s->strings)
            q = &((const struct qstr *)a->data)[i];
        else
            k = row_key(s->id, a->data, i);
        if (s->slots[probe(s, k, q)] != 0)
            d[i >> 6] |= (uint64_t)1 << (i & 63);
    }
    o->data = d;
    /* a miss is NULL when the list holds a NULL */
    if (!s->has_null && a->valid == NULL) {
        o->valid = NULL;
        return BASALT_OK;
    }
    for (int w = 0; w < nw; w++) {
        uint64_t valid = a->valid != NULL ? a->valid[w] : ~(uint64_t)0;
        o->vbuf[w] = s->has_null ? valid & d[w] : valid;
    }
    o->valid = o->vbuf;
    return BASALT_OK;
}

bool basalt_qk_in_set_select(struct qstep *st, struct basalt_arena *arena,
                             const struct basalt_qexpr *e)
{
    enum basalt_query_type_id id = e->args[0]->type.id;
    if (!basalt_qk_in_set_type(id))
        return false;
    struct qin_set *s = basalt_arena_alloc(arena, sizeof *s, 8);
    if (s == NULL)
        return false;
    memset(s, 0, sizeof *s);
    s->id = id;
    s->strings = id == BASALT_QUERY_TYPE_STRING || id == BASALT_QUERY_TYPE_BINARY;
    uint64_t cap = 16;
    while (cap < 2 * (uint64_t)e->n_set)
        cap *= 2;
    s->mask = cap - 1;
    s->slots = basalt_arena_alloc(arena, cap * sizeof *s->slots, 8);
    s->keys = basalt_arena_alloc(arena, ((size_t)e->n_set + 1) * sizeof *s->keys, 8);
    s->strs = basalt_arena_alloc(arena, ((size_t)e->n_set + 1) * sizeof *s->strs, 8);
    if (s->slots == NULL || s->keys == NULL || s->strs == NULL)
        return false;
    memset(s->slots, 0, cap * sizeof *s->slots);
    for (int32_t i = 0; i < e->n_set; i++) {
        const struct basalt_query_value *v = &e->set[i];
        if (v->is_null || v->type.id == BASALT_QUERY_TYPE_NULL) {
            s->has_null = true;
            continue;
        }
        struct qkey k = {0, 0};
        struct qstr q = {"", 0};
        if (s->strings) {
            /* the program outlives the builder that holds the constants */
            char *copy = basalt_arena_alloc(arena, v->v.str.len + 1, 1);
            if (copy == NULL)
                return false;
            if (v->v.str.len > 0)
                memcpy(copy, v->v.str.ptr, v->v.str.len);
            q.ptr = copy;
            q.len = (int64_t)v->v.str.len;
        } else {
            k = value_key(v);
        }
        uint64_t at = probe(s, k, s->strings ? &q : NULL);
        if (s->slots[at] != 0)
            continue; /* listed twice */
        s->keys[s->n] = k;
        s->strs[s->n] = q;
        s->slots[at] = ++s->n;
    }
    st->data = s;
    st->fn = k_in_set;
    st->kname = "in_set";
    return true;
}
