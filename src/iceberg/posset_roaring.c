/* Sets of 64-bit positions: a sorted array of (high 32 bits, 32-bit Roaring
 * bitmap of the low bits). CRoaring 0.2.66 has no 64-bit bitmap and no
 * allocator hook, so the bitmaps allocate through the C library. */
#include "manifest_internal.h"

static basalt_status nomem(struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

basalt_status basalt_iceberg_posset_new(struct basalt_iceberg_posset **out,
                                        struct basalt_error *err)
{
    *out = basalt_calloc(1, sizeof **out);
    return *out ? BASALT_OK : nomem(err);
}

void basalt_iceberg_posset_free(struct basalt_iceberg_posset *set)
{
    if (!set)
        return;
    for (uint32_t i = 0; i < set->n; i++)
        roaring_bitmap_free(set->buckets[i].bitmap);
    basalt_free(set->buckets);
    basalt_free(set);
}

/* Index of the first bucket whose key is >= key. */
static uint32_t lower_bound(const struct basalt_iceberg_posset *set, uint32_t key)
{
    uint32_t lo = 0, hi = set->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (set->buckets[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static roaring_bitmap_t *find(const struct basalt_iceberg_posset *set, uint32_t key)
{
    uint32_t i = lower_bound(set, key);
    return i < set->n && set->buckets[i].key == key ? set->buckets[i].bitmap : NULL;
}

basalt_status basalt_iceberg_posset_insert_bitmap(struct basalt_iceberg_posset *set, uint32_t key,
                                                  roaring_bitmap_t *bitmap, roaring_bitmap_t **out,
                                                  struct basalt_error *err)
{
    uint32_t i = lower_bound(set, key);
    if (i < set->n && set->buckets[i].key == key) {
        *out = set->buckets[i].bitmap;
        return BASALT_INTERNAL;
    }
    if (set->n == set->cap) {
        uint32_t ncap = set->cap ? set->cap * 2 : 4;
        struct basalt_iceberg_posset_bucket *nb =
            basalt_realloc(set->buckets, sizeof *nb * (size_t)ncap);
        if (!nb)
            return nomem(err);
        set->buckets = nb;
        set->cap = ncap;
    }
    memmove(&set->buckets[i + 1], &set->buckets[i], sizeof *set->buckets * (set->n - i));
    set->buckets[i].key = key;
    set->buckets[i].bitmap = bitmap;
    set->n++;
    *out = bitmap;
    return BASALT_OK;
}

static basalt_status bucket(struct basalt_iceberg_posset *set, uint32_t key, roaring_bitmap_t **out,
                            struct basalt_error *err)
{
    roaring_bitmap_t *bm = find(set, key);
    if (bm) {
        *out = bm;
        return BASALT_OK;
    }
    if (!(bm = roaring_bitmap_create()))
        return nomem(err);
    basalt_status st = basalt_iceberg_posset_insert_bitmap(set, key, bm, out, err);
    if (st != BASALT_OK)
        roaring_bitmap_free(bm);
    return st;
}

basalt_status basalt_iceberg_posset_add(struct basalt_iceberg_posset *set, uint64_t pos,
                                        struct basalt_error *err)
{
    roaring_bitmap_t *bm = NULL;
    basalt_status st = bucket(set, (uint32_t)(pos >> 32), &bm, err);
    if (st != BASALT_OK)
        return st;
    roaring_bitmap_add(bm, (uint32_t)pos);
    return BASALT_OK;
}

basalt_status basalt_iceberg_posset_add_many(struct basalt_iceberg_posset *set, const int64_t *pos,
                                             size_t n, struct basalt_error *err)
{
    roaring_bitmap_t *bm = NULL;
    uint32_t key = 0;
    for (size_t i = 0; i < n; i++) {
        if (pos[i] < 0)
            return basalt_error_set(err, BASALT_INVALID_ARG, "negative position %lld at %zu",
                                    (long long)pos[i], i);
        uint32_t k = (uint32_t)((uint64_t)pos[i] >> 32);
        if (!bm || k != key) {
            basalt_status st = bucket(set, k, &bm, err);
            if (st != BASALT_OK)
                return st;
            key = k;
        }
        roaring_bitmap_add(bm, (uint32_t)pos[i]);
    }
    return BASALT_OK;
}

basalt_status basalt_iceberg_posset_union(struct basalt_iceberg_posset *set,
                                          const struct basalt_iceberg_posset *other,
                                          struct basalt_error *err)
{
    for (uint32_t i = 0; i < other->n; i++) {
        roaring_bitmap_t *bm = find(set, other->buckets[i].key);
        if (bm) {
            roaring_bitmap_or_inplace(bm, other->buckets[i].bitmap);
            continue;
        }
        if (!(bm = roaring_bitmap_copy(other->buckets[i].bitmap)))
            return nomem(err);
        roaring_bitmap_t *got;
        basalt_status st = basalt_iceberg_posset_insert_bitmap(set, other->buckets[i].key, bm, &got,
                                                               err);
        if (st != BASALT_OK) {
            roaring_bitmap_free(bm);
            return st;
        }
    }
    return BASALT_OK;
}

bool basalt_iceberg_posset_contains(const struct basalt_iceberg_posset *set, uint64_t pos)
{
    roaring_bitmap_t *bm = find(set, (uint32_t)(pos >> 32));
    return bm && roaring_bitmap_contains(bm, (uint32_t)pos);
}

uint64_t basalt_iceberg_posset_cardinality(const struct basalt_iceberg_posset *set)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < set->n; i++)
        n += roaring_bitmap_get_cardinality(set->buckets[i].bitmap);
    return n;
}

void basalt_iceberg_posset_mark(const struct basalt_iceberg_posset *set, uint64_t start, size_t n,
                                uint8_t *bitmap)
{
    if (n == 0)
        return;
    uint64_t last = start + (uint64_t)n - 1;
    if (last < start)
        last = UINT64_MAX;
    uint32_t first_key = (uint32_t)(start >> 32), last_key = (uint32_t)(last >> 32);
    for (uint32_t b = lower_bound(set, first_key); b < set->n && set->buckets[b].key <= last_key;
         b++) {
        uint64_t base = (uint64_t)set->buckets[b].key << 32;
        uint32_t lo = set->buckets[b].key == first_key ? (uint32_t)start : 0;
        uint32_t hi = set->buckets[b].key == last_key ? (uint32_t)last : UINT32_MAX;
        roaring_uint32_iterator_t it;
        roaring_init_iterator(set->buckets[b].bitmap, &it);
        if (!roaring_move_uint32_iterator_equalorlarger(&it, lo))
            continue;
        uint32_t buf[256];
        for (;;) {
            uint32_t got = roaring_read_uint32_iterator(&it, buf, 256);
            bool done = got == 0;
            for (uint32_t i = 0; i < got; i++) {
                if (buf[i] > hi) {
                    done = true;
                    break;
                }
                uint64_t off = base + buf[i] - start;
                bitmap[off >> 3] = (uint8_t)(bitmap[off >> 3] | (1u << (off & 7)));
            }
            if (done)
                break;
        }
    }
}

uint64_t basalt_iceberg_posset_to_array(const struct basalt_iceberg_posset *set, uint64_t *out,
                                        uint64_t cap)
{
    uint64_t total = 0;
    uint32_t buf[256];
    for (uint32_t b = 0; b < set->n; b++) {
        uint64_t base = (uint64_t)set->buckets[b].key << 32;
        roaring_uint32_iterator_t it;
        roaring_init_iterator(set->buckets[b].bitmap, &it);
        for (;;) {
            uint32_t got = roaring_read_uint32_iterator(&it, buf, 256);
            if (got == 0)
                break;
            for (uint32_t i = 0; i < got; i++, total++)
                if (total < cap)
                    out[total] = base | buf[i];
        }
    }
    return total;
}
