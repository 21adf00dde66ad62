/* Fuzz target: the delta family (DELTA_BINARY_PACKED as INT32 and INT64,
 * DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY as byte arrays and fixed width),
 * dense and spaced, in uneven calls so decoders resume mid-miniblock.
 *
 * Input: mode byte, parameter byte, 2-byte little-endian slot count, then the
 * encoded bytes. Garbage may only yield CORRUPT, LIMIT (block size or data
 * cap) or NOMEM (none expected here); anything else, or a leak, aborts. */
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
    memset(validity, param | 0x21, sizeof validity);
    const uint8_t *vp = (mode & 0x80) ? validity : NULL;
    const uint64_t n = basalt_parquet_count_valid(vp, 0, count);
    /* The page's value count: right, or (mode bit) not known. */
    const uint64_t page_n = (mode & 0x40) ? UINT64_MAX : n;

    uint8_t *out = basalt_malloc(FUZZ_MAX_SLOTS * 16 + 64);
    int64_t *offsets = basalt_malloc((FUZZ_MAX_SLOTS + 1) * sizeof *offsets);
    if (!out || !offsets)
        abort();
    basalt_status st = BASALT_OK;
    uint64_t step = (uint64_t)param % 97 + 1;
    switch (mode & 0x07) {
    case 0:
    case 1: { /* DELTA_BINARY_PACKED */
        bool is32 = mode & 1;
        struct basalt_parquet_delta_decoder dec;
        st = basalt_parquet_delta_decoder_init(&dec, in, len, is32 ? 32 : 64, page_n, NULL);
        for (uint64_t done = 0; st == BASALT_OK && done < count; done += step) {
            uint64_t m = count - done < step ? count - done : step;
            if (is32)
                st = basalt_parquet_delta_decode_i32(&dec, m, vp, (int64_t)done,
                                                     (int32_t *)(void *)out + done, NULL);
            else
                st = basalt_parquet_delta_decode_i64(&dec, m, vp, (int64_t)done,
                                                     (int64_t *)(void *)out + done, NULL);
        }
        if (st == BASALT_OK) {
            size_t stream_len;
            st = basalt_parquet_delta_decoder_finish(&dec, &stream_len, NULL);
            if (st == BASALT_OK && stream_len > len)
                abort();
        }
        break;
    }
    case 2: { /* DELTA_LENGTH_BYTE_ARRAY */
        struct basalt_parquet_delta_length_decoder dec;
        struct basalt_buffer buf;
        basalt_buffer_init(&buf);
        st = basalt_parquet_delta_length_decoder_init(&dec, in, len, page_n, NULL);
        for (uint64_t done = 0; st == BASALT_OK && done < count; done += step) {
            uint64_t m = count - done < step ? count - done : step;
            struct basalt_parquet_binary_out o = {NULL, offsets + done, &buf, 0};
            st = basalt_parquet_delta_length_decode(&dec, m, vp, (int64_t)done, &o, NULL);
        }
        basalt_buffer_reset(&buf);
        break;
    }
    case 3: { /* DELTA_BYTE_ARRAY, byte arrays, capped against amplification */
        struct basalt_parquet_delta_bytes_decoder dec;
        struct basalt_buffer buf;
        basalt_buffer_init(&buf);
        st = basalt_parquet_delta_bytes_decoder_init(&dec, in, len, page_n, NULL);
        for (uint64_t done = 0; st == BASALT_OK && done < count; done += step) {
            uint64_t m = count - done < step ? count - done : step;
            struct basalt_parquet_binary_out o = {(int32_t *)(void *)offsets + done, NULL, &buf,
                                                  1 << 20};
            st = basalt_parquet_delta_bytes_decode(&dec, m, vp, (int64_t)done, &o, NULL);
        }
        basalt_parquet_delta_bytes_decoder_reset(&dec);
        basalt_buffer_reset(&buf);
        break;
    }
    default: { /* DELTA_BYTE_ARRAY, fixed width */
        size_t width = (size_t)param % 16 + 1;
        struct basalt_parquet_delta_bytes_decoder dec;
        st = basalt_parquet_delta_bytes_decoder_init(&dec, in, len, page_n, NULL);
        for (uint64_t done = 0; st == BASALT_OK && done < count; done += step) {
            uint64_t m = count - done < step ? count - done : step;
            st = basalt_parquet_delta_bytes_decode_fixed(&dec, width, m, vp, (int64_t)done,
                                                         out + done * width, NULL);
        }
        basalt_parquet_delta_bytes_decoder_reset(&dec);
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
