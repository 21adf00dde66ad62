/* Helpers shared by the codec tests. */
#ifndef BASALT_CODEC_TEST_UTIL_H
#define BASALT_CODEC_TEST_UTIL_H

#include <stdint.h>
#include <string.h>

#include "basalt/codec.h"
#include "test.h"

/* Every codec, for loops. */
static inline enum basalt_codec_kind ct_kind(int i) { return (enum basalt_codec_kind)i; }

/* Text-like data: words drawn from a small vocabulary, so every codec finds
 * matches. */
static inline void ct_fill_words(struct bt_rng *rng, uint8_t *buf, size_t len)
{
    static const char *const words[] = {"iceberg ", "parquet ", "avro ",   "snapshot ",
                                        "manifest ", "column ", "page ",   "row group ",
                                        "null ",     "42 ",     "3.14 ",   "\n"};
    size_t i = 0;
    while (i < len) {
        const char *w = words[bt_rng_below(rng, sizeof words / sizeof words[0])];
        size_t n = strlen(w);
        if (n > len - i)
            n = len - i;
        memcpy(buf + i, w, n);
        i += n;
    }
}

/* Fills buf with words (kind 0), random bytes (1) or long runs (2). */
static inline void ct_fill(struct bt_rng *rng, int kind, uint8_t *buf, size_t len)
{
    if (kind == 0) {
        ct_fill_words(rng, buf, len);
    } else if (kind == 1) {
        bt_rng_fill(rng, buf, len);
    } else {
        size_t i = 0;
        while (i < len) {
            size_t run = 1 + bt_rng_below(rng, 5000);
            if (run > len - i)
                run = len - i;
            memset(buf + i, (int)bt_rng_below(rng, 4), run);
            i += run;
        }
    }
}

/* A size in [0, max], skewed towards small sizes so both tiny and large
 * inputs turn up. */
static inline size_t ct_size(struct bt_rng *rng, size_t max)
{
    int bits = 0;
    while (((size_t)1 << bits) < max)
        bits++;
    size_t top = (size_t)1 << bt_rng_below(rng, (uint64_t)bits + 1);
    size_t n = (size_t)bt_rng_below(rng, top + 1);
    return n > max ? max : n;
}

#endif
