/* The dictionary of a column chunk being written: distinct values in the
 * order first seen, kept PLAIN-encoded so they are the dictionary page. */
#include <string.h>

#include "basalt/hash.h"
#include "parquet_encoding.h"
#include "parquet_writer.h"

void basalt_parquet_wdict_init(struct basalt_parquet_wdict *d, size_t width)
{
    memset(d, 0, sizeof *d);
    basalt_buffer_init(&d->values);
    basalt_buffer_init(&d->offsets);
    d->width = width;
}

void basalt_parquet_wdict_reset(struct basalt_parquet_wdict *d)
{
    basalt_buffer_reset(&d->values);
    basalt_buffer_reset(&d->offsets);
    basalt_free(d->slots);
    basalt_free(d->hashes);
    basalt_free(d->fslots);
    size_t width = d->width;
    memset(d, 0, sizeof *d);
    d->width = width;
}


const uint8_t *basalt_parquet_wdict_value(const struct basalt_parquet_wdict *d, uint32_t i,
                                          size_t *len)
{
    if (d->width) {
        *len = d->width;
        return d->values.data + (size_t)i * d->width;
    }
    uint64_t start;
    memcpy(&start, d->offsets.data + (size_t)i * 8, 8);
    uint32_t n;
    memcpy(&n, d->values.data + start, 4);
    *len = n;
    return d->values.data + start + 4;
}

static basalt_status grow(struct basalt_parquet_wdict *d, struct basalt_error *err)
{
    uint32_t cap = d->capacity ? d->capacity * 2 : 1024;
    if (cap == 0 || cap > (1u << 30))
        return basalt_error_set(err, BASALT_LIMIT, "dictionary too large");
    uint32_t *slots = basalt_calloc(cap, sizeof *slots);
    uint64_t *hashes = basalt_realloc(d->hashes, (size_t)(cap / 2) * sizeof *hashes);
    if (!slots || !hashes) {
        basalt_free(slots);
        if (hashes)
            d->hashes = hashes;
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    d->hashes = hashes;
    for (uint32_t i = 0; i < d->count; i++) {
        uint32_t h = (uint32_t)hashes[i] & (cap - 1);
        while (slots[h])
            h = (h + 1) & (cap - 1);
        slots[h] = i + 1;
    }
    basalt_free(d->slots);
    d->slots = slots;
    d->capacity = cap;
    return BASALT_OK;
}

/* The reference lookup: any value, XXH64 of its bytes, memcmp. */
static basalt_status put_simple(struct basalt_parquet_wdict *d,
                                const struct basalt_parquet_wvalues *v, uint64_t first,
                                int64_t max_bytes, uint32_t *indices, uint64_t *done,
                                uint64_t *n_indices, struct basalt_error *err)
{
    uint64_t n = 0;
    uint64_t i = first;
    basalt_status st = BASALT_OK;
    for (; i < v->count; i++) {
        if (v->validity && !basalt_bitmap_get(v->validity, v->validity_offset + (int64_t)i))
            continue;
        const uint8_t *p;
        size_t len;
        if (d->width) {
            p = (const uint8_t *)v->fixed + i * d->width;
            len = d->width;
        } else {
            int64_t b, e;
            if (v->binary.offsets32) {
                b = v->binary.offsets32[i];
                e = v->binary.offsets32[i + 1];
            } else {
                b = v->binary.offsets64[i];
                e = v->binary.offsets64[i + 1];
            }
            p = basalt_parquet_nonnull(v->binary.data) + b;
            len = (size_t)(e - b);
        }
        uint64_t hash = basalt_hash_xxh64(p, len, 0);
        if (d->count * 2 >= d->capacity) {
            st = grow(d, err);
            if (st != BASALT_OK)
                break;
        }
        uint32_t h = (uint32_t)hash & (d->capacity - 1);
        uint32_t found = 0;
        while (d->slots[h]) {
            uint32_t k = d->slots[h] - 1;
            if (d->hashes[k] == hash) {
                size_t klen;
                const uint8_t *kp = basalt_parquet_wdict_value(d, k, &klen);
                if (klen == len && (len == 0 || memcmp(kp, p, len) == 0)) {
                    found = k + 1;
                    break;
                }
            }
            h = (h + 1) & (d->capacity - 1);
        }
        if (!found) {
            size_t add = d->width ? len : len + 4;
            if (d->count > 0 && (int64_t)(d->values.size + add) > max_bytes)
                break;
            if (len > UINT32_MAX) {
                st = basalt_error_set(err, BASALT_LIMIT, "value longer than 4 GiB");
                break;
            }
            size_t start = d->values.size;
            st = basalt_buffer_reserve(&d->values, add, err);
            if (st == BASALT_OK && !d->width) {
                uint64_t s64 = start;
                st = basalt_buffer_append(&d->offsets, &s64, 8, err);
            }
            if (st != BASALT_OK)
                break;
            if (!d->width) {
                uint32_t l32 = (uint32_t)len;
                memcpy(d->values.data + start, &l32, 4);
                start += 4;
            }
            if (len)
                memcpy(d->values.data + start, p, len);
            d->values.size += add;
            d->hashes[d->count] = hash;
            d->slots[h] = d->count + 1;
            found = ++d->count;
        }
        indices[n++] = found - 1;
    }
    *done = i - first;
    *n_indices = n;
    d->plain_bytes = (int64_t)d->values.size;
    return st;
}

/* The fast lookups hash with a few multiplies instead of an XXH64 call and
 * compare 4- and 8-byte values as integers and short byte arrays inline.
 * The table's layout is all they change: entries, their order and the
 * indices are those of put_simple. */

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    x ^= x >> 31;
    return x;
}

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

static inline uint32_t load32(const uint8_t *p)
{
    uint32_t x;
    memcpy(&x, p, 4);
    return x;
}

static inline uint64_t hash_bytes(const uint8_t *p, size_t n)
{
    uint64_t h = UINT64_C(0x9e3779b97f4a7c15) * (n + 1);
    if (n >= 8) {
        /* up to 24 bytes: three overlapping words cover them all */
        if (n <= 24)
            return mix64(h ^ load64(p) * UINT64_C(0xc2b2ae3d27d4eb4f) ^
                         load64(p + (n >> 1) - 4) * UINT64_C(0x165667b19e3779f9) ^
                         load64(p + n - 8));
        const uint8_t *end = p + n;
        while (n > 16) {
            h = (h ^ load64(p)) * UINT64_C(0xbf58476d1ce4e5b9);
            h ^= h >> 29;
            p += 8;
            n -= 8;
        }
        uint64_t t = load64(end - 8);
        return mix64(h ^ load64(p) ^ (t << 29 | t >> 35));
    }
    uint64_t w;
    if (n >= 4)
        w = load32(p) | (uint64_t)load32(p + n - 4) << 32;
    else if (n > 0)
        w = p[0] | (uint64_t)p[n / 2] << 8 | (uint64_t)p[n - 1] << 16;
    else
        w = 0;
    return mix64(h ^ w);
}

static inline bool same_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
    if (n >= 8) {
        if (n <= 24)
            return ((load64(a) ^ load64(b)) |
                    (load64(a + (n >> 1) - 4) ^ load64(b + (n >> 1) - 4)) |
                    (load64(a + n - 8) ^ load64(b + n - 8))) == 0;
        if (n <= 32)
            return ((load64(a) ^ load64(b)) | (load64(a + 8) ^ load64(b + 8)) |
                    (load64(a + n - 16) ^ load64(b + n - 16)) |
                    (load64(a + n - 8) ^ load64(b + n - 8))) == 0;
        return memcmp(a, b, n) == 0;
    }
    if (n >= 4)
        return ((load32(a) ^ load32(b)) | (load32(a + n - 4) ^ load32(b + n - 4))) == 0;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

/* Where a slot's entry hashes to: 4- and 8-byte values keep the value as
 * their key, other values the 32-bit hash above the entry's start. */
static inline uint32_t fslot_hash(const struct basalt_parquet_wslot *s, size_t width)
{
    if (width == 8 || width == 4)
        return (uint32_t)mix64(s->key);
    return (uint32_t)(s->key >> 32);
}

static basalt_status grow_fast(struct basalt_parquet_wdict *d, size_t width, uint32_t at_least,
                               struct basalt_error *err)
{
    uint32_t cap = d->fcapacity ? d->fcapacity * 2 : 1024;
    while (cap < at_least && cap <= (1u << 30))
        cap *= 2;
    if (cap == 0 || cap > (1u << 30))
        return basalt_error_set(err, BASALT_LIMIT, "dictionary too large");
    struct basalt_parquet_wslot *slots = basalt_calloc(cap, sizeof *slots);
    if (!slots)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t i = 0; i < d->fcapacity; i++) {
        const struct basalt_parquet_wslot *o = &d->fslots[i];
        if (!o->index1)
            continue;
        uint32_t h = fslot_hash(o, width) & (cap - 1);
        while (slots[h].index1)
            h = (h + 1) & (cap - 1);
        slots[h] = *o;
    }
    basalt_free(d->fslots);
    d->fslots = slots;
    d->fcapacity = cap;
    return BASALT_OK;
}

/* Values are hashed a block ahead of their lookups, and their slots
 * prefetched, so the table's cache misses overlap. */
#define PUT_BLOCK 64

/* `width` is 4, 8, another fixed width (any), or 0 for byte arrays with
 * int64 (`o64`) or int32 offsets; every value valid. */
static inline basalt_status put_fast(struct basalt_parquet_wdict *d,
                                     const struct basalt_parquet_wvalues *v, uint64_t first,
                                     int64_t max_bytes, uint32_t max_count, uint32_t *indices,
                                     uint64_t *done,
                                     uint64_t *n_indices, size_t width, bool o64,
                                     struct basalt_error *err)
{
    uint64_t i = first;
    basalt_status st = BASALT_OK;
    const uint8_t *fixed = v->fixed;
    const uint8_t *data = width ? NULL : basalt_parquet_nonnull(v->binary.data);
    uint32_t *out = indices;
    const uint8_t *ptr[PUT_BLOCK];
    uint64_t key[PUT_BLOCK];

    uint32_t len[PUT_BLOCK], hash[PUT_BLOCK];
    bool stop = false;
    if (d->fcapacity == 0 && max_count != UINT32_MAX) {
        /* A first page that may give the dictionary up: the table it can
         * need at most, at once, instead of a chain of doublings. */
        uint64_t most = v->count - first < max_count ? v->count - first : max_count;
        uint32_t cap = 1024;
        while (cap / 2 <= most && cap <= (1u << 29))
            cap *= 2;
        st = grow_fast(d, width, cap, err);
        if (st != BASALT_OK)
            stop = true;
    }
    while (i < v->count && !stop) {
        uint64_t m = v->count - i < PUT_BLOCK ? v->count - i : PUT_BLOCK;
        for (uint64_t j = 0; j < m; j++) {
            uint64_t x = i + j;
            if (width == 8) {
                key[j] = load64(fixed + x * 8);
                hash[j] = (uint32_t)mix64(key[j]);
            } else if (width == 4) {
                key[j] = load32(fixed + x * 4);
                hash[j] = (uint32_t)mix64(key[j]);
            } else {
                const uint8_t *p;
                size_t l;
                if (width) {
                    p = fixed + x * width;
                    l = width;
                } else {
                    int64_t b, e;
                    if (o64) {
                        b = v->binary.offsets64[x];
                        e = v->binary.offsets64[x + 1];
                    } else {
                        b = v->binary.offsets32[x];
                        e = v->binary.offsets32[x + 1];
                    }
                    p = data + b;
                    l = (size_t)(e - b);
                    if (l > UINT32_MAX) { /* the lookup below stops here */
                        m = j + 1;
                        ptr[j] = p;
                        len[j] = 0;
                        hash[j] = 0;
                        key[j] = UINT64_MAX;
                        break;
                    }
                }
                ptr[j] = p;
                len[j] = (uint32_t)l;
                key[j] = 0;
                hash[j] = (uint32_t)hash_bytes(p, l);
            }
            if (d->fcapacity)
                __builtin_prefetch(&d->fslots[hash[j] & (d->fcapacity - 1)]);
        }
        if (!(width == 8 || width == 4) && d->fcapacity) {
            /* second stage: the bytes of the entry each value's first slot
             * holds, which the comparison below reads */
            uint32_t mask = d->fcapacity - 1;
            for (uint64_t j = 0; j < m; j++) {
                const struct basalt_parquet_wslot *s = &d->fslots[hash[j] & mask];
                if (s->index1 && (uint32_t)(s->key >> 32) == hash[j])
                    __builtin_prefetch(d->values.data + (uint32_t)s->key);
            }
        }
        for (uint64_t j = 0; j < m; j++) {
            if (!width && key[j] == UINT64_MAX) {
                st = basalt_error_set(err, BASALT_LIMIT, "value longer than 4 GiB");
                stop = true;
                m = j;
                break;
            }
            if (d->count * 2 >= d->fcapacity) {
                st = grow_fast(d, width, 0, err);
                if (st != BASALT_OK) {
                    stop = true;
                    m = j;
                    break;
                }
            }
            uint32_t mask = d->fcapacity - 1;
            uint32_t h = hash[j] & mask;
            struct basalt_parquet_wslot *s;
            uint32_t found = 0;
            for (;; h = (h + 1) & mask) {
                s = &d->fslots[h];
                if (!s->index1)
                    break;
                if (width == 8 || width == 4) {
                    if (s->key == key[j]) {
                        found = s->index1;
                        break;
                    }
                } else if ((uint32_t)(s->key >> 32) == hash[j] && s->len == len[j]) {
                    const uint8_t *kp = d->values.data + (uint32_t)s->key + (width ? 0 : 4);
                    if (same_bytes(kp, ptr[j], len[j])) {
                        found = s->index1;
                        break;
                    }
                }
            }
            if (!found) {
                size_t l = width ? width : len[j];
                size_t add = width ? l : l + 4;
                if (d->count > 0 && (int64_t)(d->values.size + add) > max_bytes) {
                    stop = true;
                    m = j;
                    break;
                }
                size_t start = d->values.size;
                st = basalt_buffer_reserve(&d->values, add, err);
                if (st == BASALT_OK && !width) {
                    uint64_t s64 = start;
                    st = basalt_buffer_append(&d->offsets, &s64, 8, err);
                }
                if (st != BASALT_OK) {
                    stop = true;
                    m = j;
                    break;
                }
                uint8_t *dst = d->values.data + start;
                if (width == 8 || width == 4) {
                    memcpy(dst, &key[j], width);
                    s->key = key[j];
                } else {
                    if (!width) {
                        uint32_t l32 = (uint32_t)l;
                        memcpy(dst, &l32, 4);
                        dst += 4;
                    }
                    if (l)
                        memcpy(dst, ptr[j], l);
                    s->key = (uint64_t)hash[j] << 32 | (uint32_t)start;
                }
                s->len = (uint32_t)l;
                d->values.size += add;
                s->index1 = found = ++d->count;
                if (d->count >= max_count) {
                    *out++ = found - 1;
                    stop = true;
                    m = j + 1;
                    break;
                }
            }
            *out++ = found - 1;
        }
        i += m;
    }
    *done = i - first;
    *n_indices = (uint64_t)(out - indices);
    d->plain_bytes = (int64_t)d->values.size;
    return st;
}

/* A table is emptied slot by slot, each entry's slot found again from its
 * hash, when the entries are few next to its size: a file of many small
 * chunks would otherwise spend its time zeroing whole tables. */
#define SPARSE_CLEAR_RATIO 16

/* Zeroes the slot of each entry in the reference table, found from the
 * entry's stored hash; false (some slots may be zeroed) when an entry is
 * not where its hash leads, so that the caller zeroes the whole table. */
static bool clear_slots_sparse(struct basalt_parquet_wdict *d)
{
    uint32_t mask = d->capacity - 1;
    for (uint32_t i = 0; i < d->count; i++) {
        uint32_t h = (uint32_t)d->hashes[i] & mask, probes = 0;
        /* entries cleared before may have emptied slots on the way */
        while (d->slots[h] != i + 1) {
            if (++probes == d->capacity)
                return false;
            h = (h + 1) & mask;
        }
        d->slots[h] = 0;
    }
    return true;
}

/* The same for the fast table, the hash of each entry computed again as
 * put_fast computes it. */
static bool clear_fast_sparse(struct basalt_parquet_wdict *d)
{
    uint32_t mask = d->fcapacity - 1;
    for (uint32_t i = 0; i < d->count; i++) {
        size_t len;
        const uint8_t *p = basalt_parquet_wdict_value(d, i, &len);
        uint32_t h;
        if (d->width == 8)
            h = (uint32_t)mix64(load64(p));
        else if (d->width == 4)
            h = (uint32_t)mix64(load32(p));
        else
            h = (uint32_t)hash_bytes(p, len);
        h &= mask;
        uint32_t probes = 0;
        while (d->fslots[h].index1 != i + 1) {
            if (++probes == d->fcapacity)
                return false;
            h = (h + 1) & mask;
        }
        memset(&d->fslots[h], 0, sizeof d->fslots[h]);
    }
    return true;
}

void basalt_parquet_wdict_clear(struct basalt_parquet_wdict *d)
{
    if (d->slots && d->count &&
        ((uint64_t)d->count * SPARSE_CLEAR_RATIO >= d->capacity || !clear_slots_sparse(d)))
        memset(d->slots, 0, (size_t)d->capacity * sizeof *d->slots);
    if (d->fslots && d->count &&
        ((uint64_t)d->count * SPARSE_CLEAR_RATIO >= d->fcapacity || !clear_fast_sparse(d)))
        memset(d->fslots, 0, (size_t)d->fcapacity * sizeof *d->fslots);
    d->values.size = 0;
    d->offsets.size = 0;
    d->count = 0;
    d->plain_bytes = 0;
}

basalt_status basalt_parquet_wdict_put(struct basalt_parquet_wdict *d,
                                       const struct basalt_parquet_wvalues *v, uint64_t first,
                                       int64_t max_bytes, uint32_t max_count, bool simple,
                                       uint32_t *indices,
                                       uint64_t *done, uint64_t *n_indices,
                                       struct basalt_error *err)
{
    if (simple)
        return put_simple(d, v, first, max_bytes, indices, done, n_indices, err);
    /* A dictionary's hashes must come from one function: the fast lookups
     * take only the dense values of pending pages. */
    if (v->validity)
        return basalt_error_set(err, BASALT_INTERNAL, "dictionary: values with nulls");
    if (d->width == 8)
        return put_fast(d, v, first, max_bytes, max_count, indices, done, n_indices, 8, false, err);
    if (d->width == 4)
        return put_fast(d, v, first, max_bytes, max_count, indices, done, n_indices, 4, false, err);
    if (d->width)
        return put_fast(d, v, first, max_bytes, max_count, indices, done, n_indices, d->width, false, err);
    if (v->binary.offsets64)
        return put_fast(d, v, first, max_bytes, max_count, indices, done, n_indices, 0, true, err);
    return put_fast(d, v, first, max_bytes, max_count, indices, done, n_indices, 0, false, err);
}
