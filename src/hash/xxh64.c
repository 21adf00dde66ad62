/* XXH64 through libxxhash. */
#include <xxhash.h>

#include "basalt/hash.h"

uint64_t basalt_hash_xxh64(const void *data, size_t len, uint64_t seed)
{
    return (uint64_t)XXH64(data, len, (XXH64_hash_t)seed);
}
