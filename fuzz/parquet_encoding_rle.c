/* Fuzz target: the RLE / bit-packed hybrid family (hybrid streams, levels,
 * validity bitmaps, dictionary indices with their gathers, the deprecated
 * BIT_PACKED levels).
 *
 * Input: mode byte, parameter byte, 2-byte little-endian slot count, then the
 * encoded bytes. Garbage may only yield CORRUPT (or LIMIT where a cap is
 * set); anything else, or a leak, aborts. */
#include <stdlib.h>

#include "../src/parquet/parquet_encoding.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_SLOTS 4096

static void expect(basalt_status st, bool limit_ok)
{
    if (st != BASALT_OK && st != BASALT_CORRUPT && !(limit_ok && st == BASALT_LIMIT))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    const uint8_t mode = data[0], param = data[1];
    const uint64_t count = (uint64_t)(data[2] | data[3] << 8) % (FUZZ_MAX_SLOTS + 1);
    const uint8_t *in = data + 4;
    const size_t len = size - 4;
    int64_t live = basalt_alloc_live();

    /* A validity pattern for the spaced variants, from the parameter byte. */
    uint8_t validity[FUZZ_MAX_SLOTS / 8 + 2];
    memset(validity, param | 0x01, sizeof validity);
    const uint8_t *vp = (mode & 0x80) ? validity : NULL;
    uint64_t n = basalt_parquet_count_valid(vp, 1, count);

    uint8_t *out = basalt_malloc(FUZZ_MAX_SLOTS * 16 + 64);
    int32_t *offsets = basalt_malloc((FUZZ_MAX_SLOTS + 1) * sizeof *offsets);
    if (!out || !offsets)
        abort();
    struct basalt_parquet_rle_decoder dec;
    basalt_status st = BASALT_OK;
    switch (mode & 0x0f) {
    case 0: /* plain hybrid decode, width from the parameter */
        st = basalt_parquet_rle_decoder_init(&dec, in, len, param % 33, count, NULL);
        if (st == BASALT_OK)
            st = basalt_parquet_rle_decode_u32(&dec, count, (uint32_t *)(void *)out, NULL);
        break;
    case 1: { /* piece by piece with varying limits, expanding literals */
        st = basalt_parquet_rle_decoder_init(&dec, in, len, param % 33, count, NULL);
        uint64_t max = 1;
        while (st == BASALT_OK && basalt_parquet_rle_decoder_remaining(&dec)) {
            struct basalt_parquet_rle_run run;
            st = basalt_parquet_rle_decoder_next(&dec, max, &run, NULL);
            if (st == BASALT_OK && run.kind == BASALT_PARQUET_RUN_LITERAL)
                basalt_parquet_rle_run_unpack(&dec, &run, (uint32_t *)(void *)out);
            max = max * 5 % 1031 + 1;
        }
        break;
    }
    case 2: /* validity bitmap at an odd offset */
        st = basalt_parquet_levels_init(&dec, in, len, 1, count, param & 1, NULL, NULL);
        if (st == BASALT_OK) {
            uint64_t nulls;
            st = basalt_parquet_levels_decode_validity(&dec, count, out, param % 61, &nulls,
                                                       NULL);
        }
        break;
    case 3: { /* levels to int16 */
        int16_t max = (int16_t)(param % 40);
        st = basalt_parquet_levels_init(&dec, in, len, max, count, param & 0x40, NULL, NULL);
        if (st == BASALT_OK)
            st = basalt_parquet_levels_decode(&dec, count, max, (int16_t *)(void *)out, NULL);
        break;
    }
    case 4: { /* dictionary gather, fixed width */
        static const size_t widths[] = {1, 2, 4, 8, 12, 16, 3, 5};
        size_t width = widths[param & 7];
        uint32_t dict_len = (uint32_t)(param >> 3) * 9 + 1;
        uint8_t dict[300 * 16];
        for (size_t i = 0; i < sizeof dict; i++)
            dict[i] = (uint8_t)i;
        st = basalt_parquet_dict_indices_init(&dec, in, len, n, NULL);
        if (st == BASALT_OK)
            st = basalt_parquet_dict_gather_fixed(&dec, dict, dict_len, width, count, vp, 1, out,
                                                  NULL);
        break;
    }
    case 5: { /* dictionary gather, byte arrays, with a data cap */
        static const uint8_t chars[] = "the quick brown fox jumps over the lazy dog 0123456789";
        int32_t doff[34];
        uint32_t dict_len = param % 33 + 1;
        for (uint32_t i = 0; i <= dict_len; i++)
            doff[i] = (int32_t)(i * 3 / 2);
        struct basalt_parquet_dict_binary dict = {doff, chars, dict_len};
        struct basalt_buffer buf;
        basalt_buffer_init(&buf);
        struct basalt_parquet_binary_out o = {offsets, NULL, &buf, 20000};
        st = basalt_parquet_dict_indices_init(&dec, in, len, n, NULL);
        if (st == BASALT_OK)
            st = basalt_parquet_dict_gather_binary(&dec, &dict, count, vp, 1, &o, NULL);
        basalt_buffer_reset(&buf);
        break;
    }
    case 6: /* checked indices */
        st = basalt_parquet_dict_indices_init(&dec, in, len, n, NULL);
        if (st == BASALT_OK)
            st = basalt_parquet_dict_decode_indices(&dec, (uint32_t)param * 97 + 1, count, vp, 1,
                                                    (int32_t *)(void *)out, NULL);
        break;
    case 7: /* deprecated BIT_PACKED levels */
        st = basalt_parquet_levels_decode_bit_packed(in, len, count, (int16_t)(param % 300),
                                                     (int16_t *)(void *)out, NULL, NULL);
        break;
    default: /* RLE booleans: length-prefixed, width 1, into a bitmap */
        st = basalt_parquet_rle_decoder_init_prefixed(&dec, in, len, 1, count, NULL, NULL);
        if (st == BASALT_OK)
            st = basalt_parquet_rle_decode_bitmap(&dec, count, out, 3, NULL, NULL);
        break;
    }
    expect(st, (mode & 0x0f) == 5);
    basalt_free(out);
    basalt_free(offsets);
    if (basalt_alloc_live() != live)
        abort();
    return 0;
}
