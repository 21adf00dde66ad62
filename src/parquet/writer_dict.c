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
    size_t width = d->width;
    memset(d, 0, sizeof *d);
    d->width = width;
}

static const uint8_t *value_at(const struct basalt_parquet_wdict *d, uint32_t i, size_t *len)
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

basalt_status basalt_parquet_wdict_put(struct basalt_parquet_wdict *d,
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
                const uint8_t *kp = value_at(d, k, &klen);
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
