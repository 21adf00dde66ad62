/* CRC-32 (IEEE) through libdeflate, which picks a PCLMULQDQ / ARMv8 CRC kernel
 * at run time and keeps the zlib continuation convention. */
#include <libdeflate.h>

#include "basalt/hash.h"

uint32_t basalt_hash_crc32(uint32_t crc, const void *data, size_t len)
{
    if (len == 0)
        return crc;
    return libdeflate_crc32(crc, data, len);
}
