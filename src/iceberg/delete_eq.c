/* Equality deletes: the rows of equality delete files as a hash set of
 * tuples of the equality columns. Each tuple is encoded as bytes (a null
 * flag per column, then the value in its Arrow representation), so null
 * equals null and values compare by representation (NaNs canonicalised). */
#include <math.h>
#include <string.h>

#include "basalt/hash.h"
#include "scan_internal.h"

#define MAX_PATH 32

struct slot {
    uint64_t hash;
    uint64_t offset;  /* into keys; UINT64_MAX = empty */
    uint32_t len;
};

struct basalt_iceberg_eqset {
    int32_t *ids;
    uint32_t n_ids;
    struct basalt_buffer keys;
    struct slot *slots;
    uint64_t cap, n;
};

/* Where a column is inside a batch: child indices from the top. */
struct colpath {
    int32_t idx[MAX_PATH];
    int depth;
    const struct ArrowSchema *schema;
    struct basalt_arrow_type type;
};

static bool find_path(const struct ArrowSchema *s, int32_t id, struct colpath *p, int depth)
{
    if (depth >= MAX_PATH || strcmp(s->format, "+s") != 0)
        return false;
    for (int64_t j = 0; j < s->n_children; j++) {
        int32_t cid;
        p->idx[depth] = (int32_t)j;
        if (basalt_iceberg_scan_arrow_field_id(s->children[j], &cid) && cid == id) {
            p->depth = depth + 1;
            p->schema = s->children[j];
            return true;
        }
        if (find_path(s->children[j], id, p, depth + 1))
            return true;
    }
    return false;
}

static basalt_status resolve(const struct ArrowSchema *schema, const int32_t *ids, uint32_t n,
                             struct colpath *paths, struct basalt_error *err)
{
    for (uint32_t k = 0; k < n; k++) {
        if (!find_path(schema, ids[k], &paths[k], 0))
            return basalt_error_set(err, BASALT_NOT_FOUND, "equality delete column %d not read", (int)ids[k]);
        basalt_status st = basalt_arrow_type_parse(paths[k].schema->format, &paths[k].type, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

/* Appends the encoding of row `row` of `batch` to buf. */
static basalt_status encode_row(const struct ArrowArray *batch, const struct colpath *paths,
                                uint32_t n, int64_t row, struct basalt_buffer *buf,
                                struct basalt_error *err)
{
    for (uint32_t k = 0; k < n; k++) {
        const struct colpath *p = &paths[k];
        const struct ArrowArray *a = batch;
        int64_t logical = row;
        bool null = false;
        for (int d = 0; d < p->depth && !null; d++) {
            logical += a->offset;
            a = a->children[p->idx[d]];
            if (a->null_count != 0 && a->n_buffers > 0 && a->buffers[0] != NULL &&
                !basalt_bitmap_get(a->buffers[0], a->offset + logical))
                null = true;
            if (p->type.id == BASALT_ARROW_TYPE_NULL && d == p->depth - 1)
                null = true;
        }
        uint8_t flag = null ? 0 : 1;
        basalt_status st = basalt_buffer_append(buf, &flag, 1, err);
        if (st != BASALT_OK)
            return st;
        if (null)
            continue;
        int64_t i = a->offset + logical;
        const struct basalt_arrow_type *t = &p->type;
        switch (t->id) {
        case BASALT_ARROW_TYPE_BOOL: {
            uint8_t b = basalt_bitmap_get(a->buffers[1], i) ? 1 : 0;
            st = basalt_buffer_append(buf, &b, 1, err);
            break;
        }
        case BASALT_ARROW_TYPE_FLOAT: {
            float f;
            memcpy(&f, (const uint8_t *)a->buffers[1] + i * 4, 4);
            if (isnan(f))
                f = NAN;
            st = basalt_buffer_append(buf, &f, 4, err);
            break;
        }
        case BASALT_ARROW_TYPE_DOUBLE: {
            double d;
            memcpy(&d, (const uint8_t *)a->buffers[1] + i * 8, 8);
            if (isnan(d))
                d = NAN;
            st = basalt_buffer_append(buf, &d, 8, err);
            break;
        }
        case BASALT_ARROW_TYPE_STRING:
        case BASALT_ARROW_TYPE_BINARY: {
            const int32_t *o = a->buffers[1];
            uint32_t len = (uint32_t)(o[i + 1] - o[i]);
            st = basalt_buffer_append(buf, &len, 4, err);
            if (st == BASALT_OK && len)
                st = basalt_buffer_append(buf, (const uint8_t *)a->buffers[2] + o[i], len, err);
            break;
        }
        case BASALT_ARROW_TYPE_LARGE_STRING:
        case BASALT_ARROW_TYPE_LARGE_BINARY: {
            const int64_t *o = a->buffers[1];
            uint64_t len = (uint64_t)(o[i + 1] - o[i]);
            uint32_t l32 = (uint32_t)len;
            st = basalt_buffer_append(buf, &l32, 4, err);
            if (st == BASALT_OK && len)
                st = basalt_buffer_append(buf, (const uint8_t *)a->buffers[2] + o[i], (size_t)len, err);
            break;
        }
        default:
            if (t->bit_width >= 8 && t->bit_width % 8 == 0) {
                size_t w = (size_t)(t->bit_width / 8);
                st = basalt_buffer_append(buf, (const uint8_t *)a->buffers[1] + (size_t)i * w, w, err);
            } else {
                st = basalt_error_set(err, BASALT_UNSUPPORTED, "equality deletes on type '%s'",
                                      p->schema->format);
            }
            break;
        }
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

basalt_status basalt_iceberg_eqset_new(const int32_t *ids, uint32_t n_ids,
                                       struct basalt_iceberg_eqset **out, struct basalt_error *err)
{
    *out = NULL;
    struct basalt_iceberg_eqset *s = basalt_calloc(1, sizeof *s);
    if (s == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    s->ids = basalt_malloc((n_ids ? n_ids : 1) * sizeof *s->ids);
    s->cap = 64;
    s->slots = basalt_malloc(s->cap * sizeof *s->slots);
    if (s->ids == NULL || s->slots == NULL) {
        basalt_iceberg_eqset_free(s);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (uint64_t i = 0; i < s->cap; i++)
        s->slots[i].offset = UINT64_MAX;
    if (n_ids)
        memcpy(s->ids, ids, n_ids * sizeof *ids);
    s->n_ids = n_ids;
    basalt_buffer_init(&s->keys);
    *out = s;
    return BASALT_OK;
}

void basalt_iceberg_eqset_free(struct basalt_iceberg_eqset *set)
{
    if (set == NULL)
        return;
    basalt_free(set->ids);
    basalt_free(set->slots);
    basalt_buffer_reset(&set->keys);
    basalt_free(set);
}

const int32_t *basalt_iceberg_eqset_ids(const struct basalt_iceberg_eqset *set, uint32_t *n)
{
    *n = set->n_ids;
    return set->ids;
}

uint64_t basalt_iceberg_eqset_size(const struct basalt_iceberg_eqset *set)
{
    return set->n;
}

static bool lookup(const struct basalt_iceberg_eqset *s, uint64_t h, const uint8_t *key,
                   size_t len, uint64_t *slot)
{
    uint64_t mask = s->cap - 1, i = h & mask;
    for (;;) {
        const struct slot *e = &s->slots[i];
        if (e->offset == UINT64_MAX) {
            *slot = i;
            return false;
        }
        if (e->hash == h && e->len == len && memcmp(s->keys.data + e->offset, key, len) == 0) {
            *slot = i;
            return true;
        }
        i = (i + 1) & mask;
    }
}

static basalt_status grow(struct basalt_iceberg_eqset *s, struct basalt_error *err)
{
    uint64_t ncap = s->cap * 2;
    struct slot *ns = basalt_malloc(ncap * sizeof *ns);
    if (ns == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint64_t i = 0; i < ncap; i++)
        ns[i].offset = UINT64_MAX;
    for (uint64_t i = 0; i < s->cap; i++) {
        if (s->slots[i].offset == UINT64_MAX)
            continue;
        uint64_t j = s->slots[i].hash & (ncap - 1);
        while (ns[j].offset != UINT64_MAX)
            j = (j + 1) & (ncap - 1);
        ns[j] = s->slots[i];
    }
    basalt_free(s->slots);
    s->slots = ns;
    s->cap = ncap;
    return BASALT_OK;
}

basalt_status basalt_iceberg_eqset_add_batch(struct basalt_iceberg_eqset *set,
                                             const struct ArrowSchema *schema,
                                             const struct ArrowArray *batch,
                                             struct basalt_error *err)
{
    struct colpath *paths = basalt_calloc(set->n_ids ? set->n_ids : 1, sizeof *paths);
    if (paths == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = resolve(schema, set->ids, set->n_ids, paths, err);
    for (int64_t r = 0; r < batch->length && st == BASALT_OK; r++) {
        size_t start = set->keys.size;
        st = encode_row(batch, paths, set->n_ids, r, &set->keys, err);
        if (st != BASALT_OK)
            break;
        size_t len = set->keys.size - start;
        uint64_t h = basalt_hash_xxh64(set->keys.data + start, len, 0);
        uint64_t slot;
        if (lookup(set, h, set->keys.data + start, len, &slot)) {
            set->keys.size = start;
            continue;
        }
        set->slots[slot].hash = h;
        set->slots[slot].offset = start;
        set->slots[slot].len = (uint32_t)len;
        set->n++;
        if (set->n * 2 > set->cap)
            st = grow(set, err);
    }
    basalt_free(paths);
    return st;
}

basalt_status basalt_iceberg_eqset_apply(const struct basalt_iceberg_eqset *set,
                                         const struct ArrowSchema *schema,
                                         const struct ArrowArray *batch, uint8_t *sel,
                                         struct basalt_error *err)
{
    if (set->n == 0)
        return BASALT_OK;
    struct colpath *paths = basalt_calloc(set->n_ids ? set->n_ids : 1, sizeof *paths);
    if (paths == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_buffer key;
    basalt_buffer_init(&key);
    basalt_status st = resolve(schema, set->ids, set->n_ids, paths, err);
    for (int64_t r = 0; r < batch->length && st == BASALT_OK; r++) {
        if (!basalt_bitmap_get(sel, r))
            continue;
        key.size = 0;
        st = encode_row(batch, paths, set->n_ids, r, &key, err);
        if (st != BASALT_OK)
            break;
        uint64_t h = basalt_hash_xxh64(key.data, key.size, 0), slot;
        if (lookup(set, h, key.data, key.size, &slot))
            basalt_bitmap_set(sel, r, false);
    }
    basalt_buffer_reset(&key);
    basalt_free(paths);
    return st;
}
