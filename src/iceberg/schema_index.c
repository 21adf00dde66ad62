/* The field index of a schema: every field at any depth by id and by full
 * dotted name, as sorted arrays in the schema's arena. */
#include <stdlib.h>
#include <string.h>

#include "iceberg_internal.h"

struct index_entry {
    int32_t id;
    const struct basalt_iceberg_field *field;
    const char *name;   /* full dotted name */
    const char *lower;  /* the same, ASCII lower case */
    uint32_t order;     /* position in a depth-first walk, for "first wins" */
};

struct basalt_iceberg_field_index {
    struct index_entry *by_id;
    struct index_entry **by_name;
    struct index_entry **by_lower;
    uint32_t n;
};

struct walk {
    struct basalt_iceberg_parse_ctx *ctx;
    struct index_entry *entries;
    uint32_t n, cap;
};

static uint32_t count_fields(const struct basalt_iceberg_type *t, int depth)
{
    uint32_t n = 0;
    if (depth > BASALT_ICEBERG_MAX_TYPE_DEPTH + 2)
        return 0;
    for (uint32_t i = 0; i < t->n_fields; i++) {
        uint32_t sub = count_fields(&t->fields[i].type, depth + 1);
        if (n > UINT32_MAX - 1 - sub)
            return UINT32_MAX;
        n += 1 + sub;
    }
    return n;
}

static basalt_status walk_type(struct walk *w, const struct basalt_iceberg_type *t,
                               const char *prefix, size_t prefix_len)
{
    for (uint32_t i = 0; i < t->n_fields; i++) {
        const struct basalt_iceberg_field *f = &t->fields[i];
        size_t nlen = strlen(f->name);
        size_t len = prefix_len + (prefix_len ? 1 : 0) + nlen;
        char *name = basalt_arena_alloc(w->ctx->arena, len + 1, 1);
        char *lower = basalt_arena_alloc(w->ctx->arena, len + 1, 1);
        if (!name || !lower)
            return basalt_error_set(w->ctx->err, BASALT_NOMEM, "out of memory");
        size_t p = 0;
        if (prefix_len) {
            memcpy(name, prefix, prefix_len);
            name[prefix_len] = '.';
            p = prefix_len + 1;
        }
        memcpy(name + p, f->name, nlen);
        name[len] = '\0';
        for (size_t k = 0; k <= len; k++)
            lower[k] = (name[k] >= 'A' && name[k] <= 'Z') ? (char)(name[k] + 32) : name[k];
        if (w->n >= w->cap)
            return basalt_error_set(w->ctx->err, BASALT_INTERNAL, "field index overflow");
        struct index_entry *e = &w->entries[w->n];
        e->id = f->id;
        e->field = f;
        e->name = name;
        e->lower = lower;
        e->order = w->n;
        w->n++;
        basalt_status st = walk_type(w, &f->type, name, len);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static int by_id_cmp(const void *a, const void *b)
{
    const struct index_entry *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int by_name_cmp(const void *a, const void *b)
{
    const struct index_entry *x = *(const struct index_entry *const *)a;
    const struct index_entry *y = *(const struct index_entry *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->order < y->order ? -1 : x->order > y->order);
}

static int by_lower_cmp(const void *a, const void *b)
{
    const struct index_entry *x = *(const struct index_entry *const *)a;
    const struct index_entry *y = *(const struct index_entry *const *)b;
    int c = strcmp(x->lower, y->lower);
    return c ? c : (x->order < y->order ? -1 : x->order > y->order);
}

basalt_status basalt_iceberg_field_index_build(struct basalt_iceberg_parse_ctx *ctx,
                                               struct basalt_iceberg_schema *schema)
{
    uint32_t n = count_fields(&schema->root, 0);
    if (n == UINT32_MAX)
        return basalt_error_set(ctx->err, BASALT_LIMIT, "too many fields");
    struct basalt_iceberg_field_index *ix = basalt_iceberg_arena_array(ctx, 1, sizeof(*ix));
    if (!ix)
        return BASALT_NOMEM;
    struct walk w = {ctx, NULL, 0, n};
    w.entries = basalt_iceberg_arena_array(ctx, n, sizeof(*w.entries));
    ix->by_name = basalt_iceberg_arena_array(ctx, n, sizeof(*ix->by_name));
    ix->by_lower = basalt_iceberg_arena_array(ctx, n, sizeof(*ix->by_lower));
    if (!w.entries || !ix->by_name || !ix->by_lower)
        return BASALT_NOMEM;
    basalt_status st = walk_type(&w, &schema->root, "", 0);
    if (st != BASALT_OK)
        return st;
    qsort(w.entries, w.n, sizeof(*w.entries), by_id_cmp);
    for (uint32_t i = 1; i < w.n; i++)
        if (w.entries[i].id == w.entries[i - 1].id)
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "field id %d is used twice",
                                    w.entries[i].id);
    for (uint32_t i = 0; i < w.n; i++)
        ix->by_name[i] = ix->by_lower[i] = &w.entries[i];
    qsort(ix->by_name, w.n, sizeof(*ix->by_name), by_name_cmp);
    qsort(ix->by_lower, w.n, sizeof(*ix->by_lower), by_lower_cmp);
    ix->by_id = w.entries;
    ix->n = w.n;
    schema->index = ix;
    return BASALT_OK;
}

static const struct index_entry *find_id(const struct basalt_iceberg_schema *s, int32_t id)
{
    if (!s || !s->index)
        return NULL;
    const struct basalt_iceberg_field_index *ix = s->index;
    uint32_t lo = 0, hi = ix->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ix->by_id[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->n && ix->by_id[lo].id == id ? &ix->by_id[lo] : NULL;
}

const struct basalt_iceberg_field *basalt_iceberg_schema_field(const struct basalt_iceberg_schema *s,
                                                               int32_t field_id)
{
    const struct index_entry *e = find_id(s, field_id);
    return e ? e->field : NULL;
}

static int ascii_lower(int c)
{
    return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

/* strcmp of an already lower-cased name against `name` lower-cased on the fly. */
static int lower_cmp(const char *lower, const char *name)
{
    const unsigned char *a = (const unsigned char *)lower, *b = (const unsigned char *)name;
    while (*a && *a == ascii_lower(*b)) {
        a++;
        b++;
    }
    return (int)*a - ascii_lower(*b);
}

const struct basalt_iceberg_field *basalt_iceberg_schema_field_by_name(
    const struct basalt_iceberg_schema *s, const char *name, bool case_sensitive)
{
    if (!s || !s->index || !name)
        return NULL;
    const struct basalt_iceberg_field_index *ix = s->index;
    struct index_entry *const *arr = case_sensitive ? ix->by_name : ix->by_lower;
    uint32_t lo = 0, hi = ix->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = case_sensitive ? strcmp(arr[mid]->name, name) : lower_cmp(arr[mid]->lower, name);
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < ix->n &&
        (case_sensitive ? strcmp(arr[lo]->name, name) : lower_cmp(arr[lo]->lower, name)) == 0)
        return arr[lo]->field;
    return NULL;
}

basalt_status basalt_iceberg_schema_field_name(const struct basalt_iceberg_schema *s,
                                               int32_t field_id, char *buf, size_t cap)
{
    const struct index_entry *e = find_id(s, field_id);
    if (!e)
        return BASALT_NOT_FOUND;
    size_t len = strlen(e->name);
    if (!buf || len >= cap)
        return BASALT_LIMIT;
    memcpy(buf, e->name, len + 1);
    return BASALT_OK;
}
