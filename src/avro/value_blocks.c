/* The block structure shared by Avro arrays and maps, for the generic value
 * decoders: blocks of items (a negative count carries a byte size), grown by
 * doubling inside the arena, with the per-value item limit. */
#include <string.h>

#include "avro_internal.h"

static basalt_status bad(struct avro_value_reader *d, const uint8_t *p, const char *what)
{
    return basalt_error_set(d->err, BASALT_CORRUPT, "truncated or malformed %s at byte %zu",
                            what, (size_t)(p - d->start));
}

basalt_status basalt_avro_value_read_blocks(struct avro_value_reader *d, bool map,
                                            bool zero_size_items, const uint8_t **pp,
                                            avro_item_decode_fn item, void *ctx,
                                            struct basalt_avro_value *out)
{
    size_t elem = map ? sizeof(struct basalt_avro_entry) : sizeof(struct basalt_avro_value);
    bool zero = zero_size_items;
    uint8_t *items = NULL;
    size_t count = 0, cap = 0;
    for (;;) {
        int64_t block;
        if (!avro_read_long(pp, d->end, &block))
            return bad(d, *pp, "block count");
        if (block == 0)
            break;
        if (block < 0) {
            int64_t size;
            if (block == INT64_MIN || !avro_read_long(pp, d->end, &size) || size < 0)
                return bad(d, *pp, "block size");
            block = -block;
        }
        if (!zero && (uint64_t)block > (uint64_t)(d->end - *pp))
            return basalt_error_set(d->err, BASALT_CORRUPT,
                                    "block claims %lld items but %zu bytes remain at byte %zu",
                                    (long long)block, (size_t)(d->end - *pp),
                                    (size_t)(*pp - d->start));
        if ((uint64_t)block > d->lim.max_items - d->items)
            return basalt_error_set(d->err, BASALT_LIMIT, "more than %llu items in a value",
                                    (unsigned long long)d->lim.max_items);
        d->items += (uint64_t)block;
        if (count + (size_t)block > cap) {
            size_t ncap = cap ? cap * 2 : 8;
            while (ncap < count + (size_t)block)
                ncap *= 2;
            uint8_t *grown = basalt_arena_alloc(d->arena, ncap * elem, 8);
            if (!grown)
                return basalt_error_set(d->err, BASALT_NOMEM, "out of memory decoding a value");
            if (count)
                memcpy(grown, items, count * elem);
            items = grown;
            cap = ncap;
        }
        for (int64_t i = 0; i < block; i++, count++) {
            struct basalt_avro_value *v;
            if (map) {
                struct basalt_avro_entry *e = (struct basalt_avro_entry *)(void *)items + count;
                int64_t klen;
                if (!avro_read_long(pp, d->end, &klen) || klen < 0 ||
                    (uint64_t)klen > (uint64_t)(d->end - *pp))
                    return bad(d, *pp, "map key");
                e->key = *pp;
                e->key_size = (size_t)klen;
                *pp += klen;
                v = &e->value;
            } else {
                v = (struct basalt_avro_value *)(void *)items + count;
            }
            basalt_status st = item(ctx, pp, v);
            if (st != BASALT_OK)
                return st;
        }
    }
    out->count = count;
    if (map)
        out->entries = (struct basalt_avro_entry *)(void *)items;
    else
        out->items = (struct basalt_avro_value *)(void *)items;
    return BASALT_OK;
}
