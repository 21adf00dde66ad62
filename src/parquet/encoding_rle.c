/* The RLE / bit-packed hybrid: a run-based decoder and a greedy encoder. */
#include <inttypes.h>

#include "parquet_encoding.h"

basalt_status basalt_parquet_write_uleb(struct basalt_buffer *out, uint64_t v,
                                        struct basalt_error *err)
{
    uint8_t tmp[10];
    size_t n = 0;
    do {
        uint8_t b = (uint8_t)(v & 0x7f);
        v >>= 7;
        tmp[n++] = (uint8_t)(b | (v ? 0x80 : 0));
    } while (v);
    return basalt_buffer_append(out, tmp, n, err);
}

/* ---------------------------------------------------------------- decoder */

basalt_status basalt_parquet_rle_decoder_init(struct basalt_parquet_rle_decoder *dec,
                                              const uint8_t *data, size_t len, unsigned bit_width,
                                              uint64_t num_values, struct basalt_error *err)
{
    memset(dec, 0, sizeof *dec);
    if (bit_width > 32)
        return basalt_error_set(err, BASALT_INVALID_ARG, "RLE bit width %u is above 32",
                                bit_width);
    data = basalt_parquet_nonnull(data);
    dec->pos = data;
    dec->end = data + len;
    dec->kernels = basalt_parquet_bitpack_best();
    dec->num_values = num_values;
    dec->values_left = num_values;
    dec->bit_width = (uint8_t)bit_width;
    return BASALT_OK;
}

basalt_status basalt_parquet_rle_decoder_init_prefixed(struct basalt_parquet_rle_decoder *dec,
                                                       const uint8_t *data, size_t len,
                                                       unsigned bit_width, uint64_t num_values,
                                                       size_t *consumed,
                                                       struct basalt_error *err)
{
    memset(dec, 0, sizeof *dec);
    if (len < 4)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "RLE length prefix needs 4 bytes, %zu left", len);
    uint32_t body = basalt_parquet_load32(data);
    if (body > len - 4)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "RLE data of %" PRIu32 " bytes runs past the %zu bytes left", body,
                                len - 4);
    if (consumed)
        *consumed = 4 + (size_t)body;
    return basalt_parquet_rle_decoder_init(dec, data + 4, body, bit_width, num_values, err);
}

basalt_status basalt_parquet_dict_indices_init(struct basalt_parquet_rle_decoder *dec,
                                               const uint8_t *data, size_t len,
                                               uint64_t num_values, struct basalt_error *err)
{
    memset(dec, 0, sizeof *dec);
    if (len == 0) {
        if (num_values == 0) /* an all-null page may carry no index bytes at all */
            return basalt_parquet_rle_decoder_init(dec, data, 0, 0, 0, err);
        return basalt_error_set(err, BASALT_CORRUPT, "dictionary indices: no bit width byte");
    }
    if (data[0] > 32)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "dictionary index bit width %u is above 32", data[0]);
    return basalt_parquet_rle_decoder_init(dec, data + 1, len - 1, data[0], num_values, err);
}

/* Reads run headers until a non-empty run is current. */
static basalt_status rle_next_run(struct basalt_parquet_rle_decoder *dec, struct basalt_error *err)
{
    const unsigned w = dec->bit_width;
    for (;;) {
        if (dec->pos == dec->end)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "RLE data ends with %" PRIu64 " of %" PRIu64
                                    " values still to come",
                                    dec->values_left, dec->num_values);
        uint64_t header;
        if (!basalt_parquet_read_uleb(&dec->pos, dec->end, &header))
            return basalt_error_set(err, BASALT_CORRUPT, "RLE run header is malformed");
        size_t avail = (size_t)(dec->end - dec->pos);
        if (header & 1) {
            uint64_t groups = header >> 1;
            if (groups == 0)
                continue;
            /* A run announcing more values than are left is cut there:
             * writers pad the last run (DuckDB to 256 values) and the
             * padding is never read, as in arrow-cpp's RleDecoder. */
            uint64_t n = groups <= dec->values_left / 8 ? groups * 8 : dec->values_left;
            /* The values handed out must be present; trailing padding may not.
             * (Multiplications, not divisions: this runs once per run.) */
            uint64_t need_bits, full;
            if (__builtin_mul_overflow(n, (uint64_t)w, &need_bits) ||
                need_bits > (uint64_t)avail * 8)
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "bit-packed run of %" PRIu64
                                        " values of %u bits runs past the %zu bytes left",
                                        n, w, avail);
            size_t bytes = avail;
            if (!__builtin_mul_overflow(groups, (uint64_t)w, &full) && full <= avail)
                bytes = (size_t)full;
            dec->lit_data = dec->pos;
            dec->lit_len = bytes;
            dec->pos += bytes;
            dec->lit_next = 0;
            dec->run_left = n;
            dec->literal = true;
            return BASALT_OK;
        }
        uint64_t count = header >> 1;
        size_t nbytes = (w + 7) / 8;
        if (avail < nbytes)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "RLE run value needs %zu bytes, %zu left", nbytes, avail);
        uint32_t value = 0;
        for (size_t i = 0; i < nbytes; i++)
            value |= (uint32_t)dec->pos[i] << (8 * i);
        dec->pos += nbytes;
        if (count == 0)
            continue;
        if (w < 32 && (value >> w) != 0)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "RLE run value %" PRIu32 " does not fit in %u bits", value, w);
        dec->value = value;
        /* Cut at the values left, like a padded bit-packed run. */
        dec->run_left = count < dec->values_left ? count : dec->values_left;
        dec->literal = false;
        return BASALT_OK;
    }
}

basalt_status basalt_parquet_rle_decoder_next(struct basalt_parquet_rle_decoder *dec, uint64_t max,
                                              struct basalt_parquet_rle_run *run,
                                              struct basalt_error *err)
{
    memset(run, 0, sizeof *run);
    run->bit_width = dec->bit_width;
    if (max == 0 || dec->values_left == 0)
        return BASALT_OK;
    if (dec->run_left == 0) {
        basalt_status st = rle_next_run(dec, err);
        if (st != BASALT_OK)
            return st;
    }
    uint64_t n = dec->run_left < max ? dec->run_left : max;
    run->count = n;
    if (dec->literal) {
        run->kind = BASALT_PARQUET_RUN_LITERAL;
        run->data = dec->lit_data;
        run->data_len = dec->lit_len;
        run->data_avail = (size_t)(dec->end - dec->lit_data);
        run->first = dec->lit_next;
        dec->lit_next += n;
    } else {
        run->kind = BASALT_PARQUET_RUN_REPEAT;
        run->value = dec->value;
    }
    dec->run_left -= n;
    dec->values_left -= n;
    return BASALT_OK;
}

static basalt_status rle_want(const struct basalt_parquet_rle_decoder *dec, uint64_t count,
                              struct basalt_error *err)
{
    if (count > dec->values_left)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "%" PRIu64 " values wanted from an RLE stream with %" PRIu64
                                " left",
                                count, dec->values_left);
    return BASALT_OK;
}

basalt_status basalt_parquet_rle_decoder_skip(struct basalt_parquet_rle_decoder *dec,
                                              uint64_t count, struct basalt_error *err)
{
    basalt_status st = rle_want(dec, count, err);
    while (st == BASALT_OK && count) {
        struct basalt_parquet_rle_run run;
        st = basalt_parquet_rle_decoder_next(dec, count, &run, err);
        count -= run.count;
    }
    return st;
}

basalt_status basalt_parquet_rle_decode_u32(struct basalt_parquet_rle_decoder *dec, uint64_t count,
                                            uint32_t *out, struct basalt_error *err)
{
    basalt_status st = rle_want(dec, count, err);
    while (st == BASALT_OK && count) {
        struct basalt_parquet_rle_run run;
        st = basalt_parquet_rle_decoder_next(dec, count, &run, err);
        if (st != BASALT_OK)
            break;
        if (run.kind == BASALT_PARQUET_RUN_REPEAT) {
            for (uint64_t i = 0; i < run.count; i++)
                out[i] = run.value;
        } else {
            basalt_parquet_rle_run_unpack(dec, &run, out);
        }
        out += run.count;
        count -= run.count;
    }
    return st;
}

/* Appends bits to a bitmap a 64-bit word at a time. The word holding the
 * start keeps its bits below the start; the last, partial word is merged
 * byte-wise, so nothing past the last appended bit is read or written. */
struct bit_sink {
    uint8_t *bits;
    int64_t word_bit; /* bitmap index of acc's bit 0, a multiple of 64 */
    uint64_t acc;
    unsigned n;       /* bits of acc in use, < 64 */
    uint64_t ones;    /* 1 bits appended */
};

static void sink_init(struct bit_sink *s, uint8_t *bits, int64_t offset)
{
    s->bits = bits;
    s->word_bit = offset & ~(int64_t)63;
    s->n = (unsigned)(offset & 63);
    s->acc = 0;
    s->ones = 0;
    const uint8_t *p = bits + (s->word_bit >> 3);
    unsigned full = s->n / 8;
    if (full)
        memcpy(&s->acc, p, full);
    if (s->n & 7)
        s->acc |= (uint64_t)(p[full] & ((1u << (s->n & 7)) - 1)) << (8 * full);
}

/* k in 1..64 bits of v (higher bits zero). */
static inline void sink_put(struct bit_sink *s, uint64_t v, unsigned k)
{
    s->ones += basalt_parquet_popcount64(v);
    s->acc |= v << s->n;
    if (s->n + k >= 64) {
        memcpy(s->bits + (s->word_bit >> 3), &s->acc, 8);
        s->word_bit += 64;
        s->acc = s->n ? v >> (64 - s->n) : 0;
        s->n = s->n + k - 64;
    } else {
        s->n += k;
    }
}

static inline uint64_t low_bits(unsigned k) { return k >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << k) - 1; }

static void sink_fill(struct bit_sink *s, bool value, uint64_t count)
{
    while (count) {
        if (s->n == 0 && count >= 64) {
            uint64_t words = count / 64;
            memset(s->bits + (s->word_bit >> 3), value ? 0xff : 0x00, (size_t)words * 8);
            s->word_bit += (int64_t)(64 * words);
            s->ones += value ? 64 * words : 0;
            count -= 64 * words;
            continue;
        }
        unsigned k = count < 64 - s->n ? (unsigned)count : 64 - s->n;
        sink_put(s, value ? low_bits(k) : 0, k);
        count -= k;
    }
}

/* Bits [bit, bit + k) of src, k <= 64; len bytes are readable and hold
 * them (bits read beyond them are masked off). */
static inline uint64_t src_bits(const uint8_t *src, size_t len, uint64_t bit, unsigned k)
{
    size_t byte = (size_t)(bit >> 3);
    unsigned shift = (unsigned)(bit & 7);
    uint64_t v;
    if (len - byte >= 8) {
        v = basalt_parquet_load64(src + byte) >> shift;
        if (shift + k > 64)
            v |= (uint64_t)src[byte + 8] << (64 - shift);
    } else { /* byte loads: no store-to-load stall through memory */
        uint64_t w = 0;
        for (size_t i = 0; i < len - byte; i++)
            w |= (uint64_t)src[byte + i] << (8 * i);
        v = w >> shift;
    }
    return v & low_bits(k);
}

static void sink_copy(struct bit_sink *s, const uint8_t *src, size_t len, uint64_t first,
                      uint64_t count)
{
    while (count) {
        unsigned k = count < 64 - s->n ? (unsigned)count : 64 - s->n;
        sink_put(s, src_bits(src, len, first, k), k);
        first += k;
        count -= k;
    }
}

static void sink_finish(struct bit_sink *s)
{
    uint8_t *p = s->bits + (s->word_bit >> 3);
    unsigned full = s->n / 8;
    if (full)
        memcpy(p, &s->acc, full);
    if (s->n & 7) {
        uint8_t m = (uint8_t)((1u << (s->n & 7)) - 1);
        p[full] = (uint8_t)((p[full] & ~m) | ((s->acc >> (8 * full)) & m));
    }
}

basalt_status basalt_parquet_rle_decode_bitmap(struct basalt_parquet_rle_decoder *dec,
                                               uint64_t count, uint8_t *bits, int64_t offset,
                                               uint64_t *ones, struct basalt_error *err)
{
    if (ones)
        *ones = 0;
    if (dec->bit_width > 1)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "bitmap decoding needs bit width 0 or 1, not %u", dec->bit_width);
    basalt_status st = rle_want(dec, count, err);
    if (st != BASALT_OK || count == 0)
        return st;
    struct bit_sink sink;
    sink_init(&sink, bits, offset);
    while (count) {
        struct basalt_parquet_rle_run run;
        st = basalt_parquet_rle_decoder_next(dec, count, &run, err);
        if (st != BASALT_OK)
            break;
        if (run.kind == BASALT_PARQUET_RUN_REPEAT || run.bit_width == 0)
            sink_fill(&sink, run.kind == BASALT_PARQUET_RUN_REPEAT && run.value, run.count);
        else
            sink_copy(&sink, run.data, run.data_avail, run.first, run.count);
        count -= run.count;
    }
    /* Flushed on error too: the destination is defined up to where it got. */
    sink_finish(&sink);
    if (ones)
        *ones = sink.ones;
    return st;
}

/* ---------------------------------------------------------------- encoder */

basalt_status basalt_parquet_rle_encoder_init(struct basalt_parquet_rle_encoder *enc,
                                              unsigned bit_width, struct basalt_buffer *out,
                                              struct basalt_error *err)
{
    enc->out = out;
    enc->rep_count = 0;
    enc->values = 0;
    enc->rep_value = 0;
    enc->lit_count = 0;
    enc->bit_width = 0;
    if (bit_width > 32)
        return basalt_error_set(err, BASALT_INVALID_ARG, "RLE bit width %u is above 32",
                                bit_width);
    enc->bit_width = (uint8_t)bit_width;
    return BASALT_OK;
}

/* Writes the buffered literal values as one bit-packed run, zero-padding the
 * last group (only the stream's final run is ever padded). */
static basalt_status rle_flush_literal(struct basalt_parquet_rle_encoder *enc,
                                       struct basalt_error *err)
{
    if (enc->lit_count == 0)
        return BASALT_OK;
    uint32_t groups = (enc->lit_count + 7) / 8;
    while (enc->lit_count < groups * 8)
        enc->lit[enc->lit_count++] = 0;
    size_t bytes = (size_t)groups * enc->bit_width;
    basalt_status st = basalt_buffer_reserve(enc->out, 1 + bytes, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *p = enc->out->data + enc->out->size;
    p[0] = (uint8_t)(groups << 1 | 1); /* groups <= 63: one byte */
    basalt_parquet_pack_u32(enc->lit, enc->lit_count, enc->bit_width, p + 1);
    enc->out->size += 1 + bytes;
    enc->lit_count = 0;
    return BASALT_OK;
}

static basalt_status rle_write_repeat(struct basalt_parquet_rle_encoder *enc, uint32_t value,
                                      uint64_t count, struct basalt_error *err)
{
    /* The spec caps a run at 2^31 - 1 values. */
    const uint64_t cap = (UINT64_C(1) << 31) - 1;
    while (count) {
        uint64_t n = count < cap ? count : cap;
        basalt_status st = basalt_parquet_write_uleb(enc->out, n << 1, err);
        if (st != BASALT_OK)
            return st;
        uint8_t bytes[4];
        size_t nbytes = ((size_t)enc->bit_width + 7) / 8;
        for (size_t i = 0; i < nbytes; i++)
            bytes[i] = (uint8_t)(value >> (8 * i));
        st = basalt_buffer_append(enc->out, bytes, nbytes, err);
        if (st != BASALT_OK)
            return st;
        count -= n;
    }
    return BASALT_OK;
}

static basalt_status rle_append_literal(struct basalt_parquet_rle_encoder *enc, uint32_t value,
                                        uint64_t count, struct basalt_error *err)
{
    while (count) {
        if (enc->lit_count == BASALT_PARQUET_RLE_LITERAL_MAX) {
            basalt_status st = rle_flush_literal(enc, err);
            if (st != BASALT_OK)
                return st;
        }
        uint64_t space = BASALT_PARQUET_RLE_LITERAL_MAX - enc->lit_count;
        uint64_t n = count < space ? count : space;
        for (uint64_t i = 0; i < n; i++)
            enc->lit[enc->lit_count++] = value;
        count -= n;
    }
    return BASALT_OK;
}

/* Places the pending run of equal values: as a repeated run when 8 or more
 * remain after topping the literal buffer up to a whole group (a literal
 * run must hold whole groups unless it ends the stream), else as literals. */
static basalt_status rle_place_pending(struct basalt_parquet_rle_encoder *enc,
                                       struct basalt_error *err)
{
    uint64_t count = enc->rep_count;
    uint32_t value = enc->rep_value;
    enc->rep_count = 0;
    if (count == 0)
        return BASALT_OK;
    uint32_t fill = (8 - enc->lit_count % 8) % 8;
    if (count >= 8 + (uint64_t)fill) {
        basalt_status st = rle_append_literal(enc, value, fill, err);
        if (st == BASALT_OK)
            st = rle_flush_literal(enc, err);
        if (st == BASALT_OK)
            st = rle_write_repeat(enc, value, count - fill, err);
        return st;
    }
    return rle_append_literal(enc, value, count, err);
}

basalt_status basalt_parquet_rle_encoder_put_run(struct basalt_parquet_rle_encoder *enc,
                                                 uint32_t value, uint64_t count,
                                                 struct basalt_error *err)
{
    if (count == 0)
        return BASALT_OK;
    if (enc->bit_width < 32 && (value >> enc->bit_width) != 0)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "value %" PRIu32 " does not fit in %u bits", value,
                                enc->bit_width);
    if (enc->rep_count && value == enc->rep_value) {
        enc->rep_count += count;
    } else {
        basalt_status st = rle_place_pending(enc, err);
        if (st != BASALT_OK)
            return st;
        enc->rep_value = value;
        enc->rep_count = count;
    }
    enc->values += count;
    return BASALT_OK;
}

basalt_status basalt_parquet_rle_encoder_put(struct basalt_parquet_rle_encoder *enc,
                                             const uint32_t *values, size_t count,
                                             struct basalt_error *err)
{
    size_t i = 0;
    while (i < count) {
        size_t j = i + 1;
        while (j < count && values[j] == values[i])
            j++;
        basalt_status st = basalt_parquet_rle_encoder_put_run(enc, values[i], j - i, err);
        if (st != BASALT_OK)
            return st;
        i = j;
    }
    return BASALT_OK;
}

basalt_status basalt_parquet_rle_encoder_put_bitmap(struct basalt_parquet_rle_encoder *enc,
                                                    const uint8_t *bits, int64_t offset,
                                                    uint64_t count, struct basalt_error *err)
{
    if (enc->bit_width != 1)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "bitmap encoding needs bit width 1, not %u", enc->bit_width);
    uint64_t i = 0;
    while (i < count) {
        bool v = basalt_bitmap_get(bits, offset + (int64_t)i);
        uint64_t j = i + 1;
        /* Whole bytes of equal bits at a time where the run allows. */
        while (j < count) {
            int64_t at = offset + (int64_t)j;
            if ((at & 7) == 0 && count - j >= 8 && bits[at >> 3] == (v ? 0xff : 0x00)) {
                j += 8;
                continue;
            }
            if (basalt_bitmap_get(bits, at) != v)
                break;
            j++;
        }
        basalt_status st = basalt_parquet_rle_encoder_put_run(enc, v, j - i, err);
        if (st != BASALT_OK)
            return st;
        i = j;
    }
    return BASALT_OK;
}

basalt_status basalt_parquet_rle_encoder_finish(struct basalt_parquet_rle_encoder *enc,
                                                struct basalt_error *err)
{
    basalt_status st = rle_place_pending(enc, err);
    if (st == BASALT_OK)
        st = rle_flush_literal(enc, err);
    return st;
}
