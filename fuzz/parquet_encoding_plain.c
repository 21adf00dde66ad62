/* Fuzz target: PLAIN (fixed widths, booleans, byte arrays) and
 * BYTE_STREAM_SPLIT, dense and spaced, in two calls per input so decoders
 * resume mid-stream.
 *
 * Input: mode byte, parameter byte, 2-byte little-endian slot count, then the
 * encoded bytes. Garbage may only yield CORRUPT (or LIMIT past the byte-array
 * cap); anything else, or a leak, aborts. */
#include <stdlib.h>

#include "../src/parquet/parquet_encoding.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_SLOTS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    const uint8_t mode = data[0], param = data[1];
    const uint64_t count = (uint64_t)(data[2] | data[3] << 8) % (FUZZ_MAX_SLOTS + 1);
    const uint8_t *in = data + 4;
    const size_t len = size - 4;
    int64_t live = basalt_alloc_live();

    uint8_t validity[FUZZ_MAX_SLOTS / 8 + 2];
    memset(validity, param | 0x10, sizeof validity);
    const uint8_t *vp = (mode & 0x80) ? validity : NULL;
    const uint64_t half = count / 3;

    static const size_t widths[] = {1, 2, 4, 8, 12, 16, 3, 7};
    const size_t width = widths[param & 7];
    uint8_t *out = basalt_malloc(FUZZ_MAX_SLOTS * 16 + 64);
    int64_t *offsets = basalt_malloc((FUZZ_MAX_SLOTS + 1) * sizeof *offsets);
    if (!out || !offsets)
        abort();
    basalt_status st = BASALT_OK;
    switch (mode & 0x07) {
    case 0: { /* fixed width */
        struct basalt_parquet_plain_decoder dec;
        basalt_parquet_plain_decoder_init(&dec, in, len);
        st = basalt_parquet_plain_decode_fixed(&dec, width, half, vp, 0, out, NULL);
        if (st == BASALT_OK)
            st = basalt_parquet_plain_decode_fixed(&dec, width, count - half, vp, (int64_t)half,
                                                   out + half * width, NULL);
        break;
    }
    case 1: { /* booleans at an odd bit offset */
        struct basalt_parquet_plain_decoder dec;
        basalt_parquet_plain_decoder_init(&dec, in, len);
        st = basalt_parquet_plain_decode_bool(&dec, half, vp, 0, out, 5, NULL);
        if (st == BASALT_OK)
            st = basalt_parquet_plain_decode_bool(&dec, count - half, vp, (int64_t)half, out,
                                                  5 + (int64_t)half, NULL);
        break;
    }
    case 2:
    case 3: { /* byte arrays, int32 or int64 offsets, capped */
        struct basalt_parquet_plain_decoder dec;
        basalt_parquet_plain_decoder_init(&dec, in, len);
        struct basalt_buffer buf;
        basalt_buffer_init(&buf);
        int32_t *o32 = (int32_t *)(void *)offsets;
        struct basalt_parquet_binary_out o = {mode & 1 ? o32 : NULL, mode & 1 ? NULL : offsets,
                                              &buf, (uint64_t)param * 64};
        st = basalt_parquet_plain_decode_binary(&dec, half, vp, 0, &o, NULL);
        if (st == BASALT_OK) {
            o.offsets32 = o.offsets32 ? o32 + half : NULL;
            o.offsets64 = o.offsets64 ? offsets + half : NULL;
            st = basalt_parquet_plain_decode_binary(&dec, count - half, vp, (int64_t)half, &o,
                                                    NULL);
        }
        basalt_buffer_reset(&buf);
        break;
    }
    default: { /* BYTE_STREAM_SPLIT */
        struct basalt_parquet_bss_decoder dec;
        st = basalt_parquet_bss_decoder_init(&dec, in, len, width, NULL);
        if (st == BASALT_OK)
            st = basalt_parquet_bss_decode(&dec, half, vp, 0, out, NULL);
        if (st == BASALT_OK)
            st = basalt_parquet_bss_decode(&dec, count - half, vp, (int64_t)half,
                                           out + half * width, NULL);
        break;
    }
    }
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_LIMIT)
        abort();
    basalt_free(out);
    basalt_free(offsets);
    if (basalt_alloc_live() != live)
        abort();
    return 0;
}
