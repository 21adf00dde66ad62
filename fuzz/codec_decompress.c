/* Fuzz target for every decompressor: the first byte picks the codec, the
 * rest is the compressed input. Each input is decoded with decompress into a
 * buffer sized from the input, with decompress_grow, and once more with
 * decompress on the same object (contexts are reused across calls). Statuses
 * other than OK, CORRUPT, LIMIT, NOMEM and UNSUPPORTED abort, as does a
 * disagreement between the two paths when both succeed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_status(basalt_status st)
{
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_LIMIT && st != BASALT_NOMEM &&
        st != BASALT_UNSUPPORTED)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    enum basalt_codec_kind kind = (enum basalt_codec_kind)(data[0] % BASALT_CODEC_COUNT);
    const uint8_t *src = data + 1;
    size_t len = size - 1;
    struct basalt_codec *codec;
    if (basalt_codec_new(kind, BASALT_CODEC_LEVEL_DEFAULT, &codec, NULL) != BASALT_OK)
        abort();

    size_t cap = len * 4 + 64;
    if (cap > (1u << 20))
        cap = 1u << 20;
    uint8_t *dst = malloc(cap);
    if (!dst)
        abort();
    struct basalt_error err;
    size_t n = 0;
    basalt_status st = basalt_codec_decompress(codec, src, len, dst, cap, &n, &err);
    check_status(st);
    if (st == BASALT_OK && n > cap)
        abort();

    struct basalt_buffer out;
    basalt_buffer_init(&out);
    basalt_status st2 = basalt_codec_decompress_grow(codec, src, len, &out, cap, &err);
    check_status(st2);
    if (st2 == BASALT_OK && out.size > cap)
        abort();
    if (st2 != BASALT_OK && out.size != 0)
        abort();
    if (st == BASALT_OK && st2 == BASALT_OK &&
        (n != out.size || (n > 0 && memcmp(dst, out.data, n) != 0)))
        abort();

    /* Again on the warm object: the same answer. */
    size_t n3 = 0;
    basalt_status st3 = basalt_codec_decompress(codec, src, len, dst, cap, &n3, &err);
    if (st3 != st || (st == BASALT_OK && n3 != n))
        abort();

    basalt_buffer_reset(&out);
    free(dst);
    basalt_codec_free(codec);
    return 0;
}
