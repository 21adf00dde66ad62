/* MurmurHash3 x86 32-bit (Austin Appleby's public-domain algorithm), the hash
 * of Iceberg's bucket transform. Blocks are read as little-endian on every
 * host, as Iceberg (through Guava) defines it. */
#include "basalt/hash.h"

#define MURMUR3_C1 0xcc9e2d51u
#define MURMUR3_C2 0x1b873593u

static inline uint32_t murmur3_rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

static inline uint32_t murmur3_load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint32_t murmur3_mix_k(uint32_t k)
{
    k *= MURMUR3_C1;
    k = murmur3_rotl(k, 15);
    return k * MURMUR3_C2;
}

static inline uint32_t murmur3_mix_h(uint32_t h, uint32_t k)
{
    h ^= murmur3_mix_k(k);
    h = murmur3_rotl(h, 13);
    return h * 5 + 0xe6546b64u;
}

static inline uint32_t murmur3_finish(uint32_t h, size_t len)
{
    /* The reference mixes the length in as a 32-bit int. */
    h ^= (uint32_t)len;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    return h ^ (h >> 16);
}

uint32_t basalt_hash_murmur3_32(const void *data, size_t len, uint32_t seed)
{
    const uint8_t *p = data;
    uint32_t h = seed;
    size_t blocks = len / 4;
    for (size_t i = 0; i < blocks; i++, p += 4)
        h = murmur3_mix_h(h, murmur3_load_le32(p));
    size_t tail = len & 3;
    if (tail) {
        uint32_t k = 0;
        for (size_t i = tail; i-- > 0;)
            k = k << 8 | p[i];
        h ^= murmur3_mix_k(k);
    }
    return murmur3_finish(h, len);
}

uint32_t basalt_hash_murmur3_32_i64(int64_t value)
{
    uint64_t u = (uint64_t)value;
    uint32_t h = murmur3_mix_h(0, (uint32_t)u);
    h = murmur3_mix_h(h, (uint32_t)(u >> 32));
    return murmur3_finish(h, 8);
}
