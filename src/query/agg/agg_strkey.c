/* One string key: the chunk's key rows and their hashes in one tight pass,
 * without the generic encoder's per-row type switch or the generic hash's
 * per-word pointer checks. A string's first 16 bytes are read as two words
 * (masked to its length) when the chunk's data covers them; the rows and
 * hashes are exactly those of basalt_qagg_encode_rows and hash_row. */
#include <string.h>

#include "agg/agg_internal.h"
#include "basalt/hash.h"

void basalt_qagg_str_encode(const struct basalt_qagg *a, const struct qagg_col *c, int64_t n,
                            uint8_t *rows, uint64_t *hashes)
{
    size_t w = (size_t)a->row_width;
    const char *sd = c->sdata;
    int64_t limit;
    {
        const char *p;
        int64_t len;
        basalt_qagg_str_get(c, n - 1, &p, &len);
        limit = (p - sd) + len; /* the bytes the chunk is known to have */
    }
    for (int64_t i = 0; i < n; i++) {
        uint8_t *row = rows + (size_t)i * w;
        uint64_t w0 = 0, w1 = 0, w2 = 0, hv;
        if (!basalt_qagg_valid(c, i)) {
            w0 = 1;
            hv = 0;
        } else {
            const char *p;
            int64_t len;
            basalt_qagg_str_get(c, i, &p, &len);
            uint64_t b0 = 0, b1 = 0;
            if ((p - sd) + 16 <= limit) {
                memcpy(&b0, p, 8);
                memcpy(&b1, p + 8, 8);
            } else {
                uint8_t tmp[16] = {0};
                memcpy(tmp, p, (size_t)(len < 16 ? len : 16));
                memcpy(&b0, tmp, 8);
                memcpy(&b1, tmp + 8, 8);
            }
            if (len <= QAGG_STR_INLINE) {
                b0 &= len >= 8 ? ~0ull : (1ull << (8 * len)) - 1;
                b1 &= len <= 8 ? 0 : (1ull << (8 * (len - 8))) - 1;
                w2 = b0 >> 32 | b1 << 32;
                hv = w2;
            } else {
                memcpy(&w2, &p, sizeof p);
                hv = basalt_hash_xxh64(p, (size_t)len, 0);
            }
            w1 = (uint64_t)(uint32_t)len | b0 << 32;
        }
        memcpy(row, &w0, 8);
        memcpy(row + 8, &w1, 8);
        memcpy(row + 16, &w2, 8);
        uint64_t h = basalt_qagg_hash_step(0x9e3779b97f4a7c15ull, w0);
        h = basalt_qagg_hash_step(h, w1);
        hashes[i] = basalt_qagg_fmix64(basalt_qagg_hash_step(h, hv));
    }
}
