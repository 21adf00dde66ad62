/* Random ids for new tables and snapshots. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "commit_internal.h"

void basalt_iceberg_random_bytes(void *out, size_t len)
{
    if (getrandom(out, len, 0) == (ssize_t)len)
        return;
    /* No entropy source: the clock and an address, mixed (splitmix64). */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)(uintptr_t)out;
    uint8_t *p = out;
    for (size_t i = 0; i < len; i += 8) {
        x += 0x9e3779b97f4a7c15ull;
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        memcpy(p + i, &z, len - i < 8 ? len - i : 8);
    }
}

void basalt_iceberg_uuid4(char out[37])
{
    uint8_t b[16];
    basalt_iceberg_random_bytes(b, sizeof b);
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    snprintf(out, 37,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
             b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
             b[15]);
}

int64_t basalt_iceberg_new_snapshot_id(void)
{
    /* Java: (most significant bits ^ least significant bits) of a random
     * UUID, masked positive. Zero is avoided: some readers treat it as
     * "no snapshot". */
    for (;;) {
        uint64_t v[2];
        basalt_iceberg_random_bytes(v, sizeof v);
        int64_t id = (int64_t)((v[0] ^ v[1]) & INT64_MAX);
        if (id != 0)
            return id;
    }
}

int64_t basalt_iceberg_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
