/* Dictionary indices: decode fused with the bounds check and the gather.
 *
 * Indices come from the hybrid decoder a piece at a time. A repeated run is
 * checked once and becomes a fill; a literal piece is unpacked into a small
 * scratch block, checked with one max-reduction (the offender is looked for
 * only when it fails), and gathered. */
#include <inttypes.h>

#include "parquet_encoding.h"

#define DICT_CHUNK 1024

static basalt_status dict_index_error(uint32_t index, uint32_t dict_len, struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_CORRUPT,
                            "dictionary index %" PRIu32 " out of range (dictionary has %" PRIu32
                            " entries)",
                            index, dict_len);
}

/* Checks n unpacked indices of `width` bits against dict_len. A dictionary
 * covering every value of the width needs no check; below 32 bits the
 * indices fit int32 and a signed compare vectorises. The offender is looked
 * for only once a block has failed. */
static basalt_status dict_check(const uint32_t *idx, size_t n, unsigned width, uint32_t dict_len,
                                struct basalt_error *err)
{
    if (width < 32 && dict_len >= (UINT32_C(1) << width))
        return BASALT_OK;
    int bad = 0;
    if (width < 32) {
        for (size_t i = 0; i < n; i++)
            bad |= (int32_t)idx[i] >= (int32_t)dict_len;
    } else {
        for (size_t i = 0; i < n; i++)
            bad |= idx[i] >= dict_len;
    }
    if (!bad)
        return BASALT_OK;
    for (size_t i = 0; i < n; i++)
        if (idx[i] >= dict_len)
            return dict_index_error(idx[i], dict_len, err);
    return BASALT_INTERNAL;
}

static basalt_status dict_want(const struct basalt_parquet_rle_decoder *dec, uint64_t n,
                               struct basalt_error *err)
{
    if (n > basalt_parquet_rle_decoder_remaining(dec))
        return basalt_error_set(err, BASALT_CORRUPT,
                                "%" PRIu64 " dictionary indices wanted, %" PRIu64 " left", n,
                                basalt_parquet_rle_decoder_remaining(dec));
    return BASALT_OK;
}

/* The next piece of at most DICT_CHUNK indices: a repeat (checked) or
 * literal indices unpacked into idx (checked). */
static basalt_status dict_next(struct basalt_parquet_rle_decoder *dec, uint64_t left,
                               uint32_t dict_len, uint32_t *idx,
                               struct basalt_parquet_rle_run *run, struct basalt_error *err)
{
    basalt_status st = basalt_parquet_rle_decoder_next(dec, left < DICT_CHUNK ? left : DICT_CHUNK,
                                                       run, err);
    if (st != BASALT_OK)
        return st;
    if (run->kind == BASALT_PARQUET_RUN_REPEAT) {
        if (run->value >= dict_len)
            return dict_index_error(run->value, dict_len, err);
        return BASALT_OK;
    }
    basalt_parquet_rle_run_unpack(dec, run, idx);
    return dict_check(idx, (size_t)run->count, run->bit_width, dict_len, err);
}

static void fill_fixed(uint8_t *out, const uint8_t *value, size_t width, size_t n)
{
    switch (width) {
    case 4: {
        uint32_t v = basalt_parquet_load32(value);
        for (size_t i = 0; i < n; i++)
            memcpy(out + 4 * i, &v, 4);
        break;
    }
    case 8: {
        uint64_t v = basalt_parquet_load64(value);
        for (size_t i = 0; i < n; i++)
            memcpy(out + 8 * i, &v, 8);
        break;
    }
    default:
        if (n == 0)
            break;
        /* Doubling copies: log2(n) memcpy calls. */
        memcpy(out, value, width);
        for (size_t done = 1; done < n;) {
            size_t m = done < n - done ? done : n - done;
            memcpy(out + done * width, out, m * width);
            done += m;
        }
        break;
    }
}

static void gather_fixed(uint8_t *out, const uint8_t *dict, size_t width, const uint32_t *idx,
                         size_t n)
{
    switch (width) {
    case 2:
        for (size_t i = 0; i < n; i++)
            memcpy(out + 2 * i, dict + 2 * (size_t)idx[i], 2);
        break;
    case 4: {
        uint32_t *o = (uint32_t *)(void *)out;
        for (size_t i = 0; i < n; i++)
            o[i] = basalt_parquet_load32(dict + 4 * (size_t)idx[i]);
        break;
    }
    case 8: {
        uint64_t *o = (uint64_t *)(void *)out;
        for (size_t i = 0; i < n; i++)
            o[i] = basalt_parquet_load64(dict + 8 * (size_t)idx[i]);
        break;
    }
    case 12:
        for (size_t i = 0; i < n; i++)
            memcpy(out + 12 * i, dict + 12 * (size_t)idx[i], 12);
        break;
    case 16:
        for (size_t i = 0; i < n; i++)
            memcpy(out + 16 * i, dict + 16 * (size_t)idx[i], 16);
        break;
    default:
        for (size_t i = 0; i < n; i++)
            memcpy(out + width * i, dict + width * (size_t)idx[i], width);
        break;
    }
}

basalt_status basalt_parquet_dict_gather_fixed(struct basalt_parquet_rle_decoder *dec,
                                               const void *dict, uint32_t dict_len, size_t width,
                                               uint64_t count, const uint8_t *validity,
                                               int64_t validity_offset, void *out,
                                               struct basalt_error *err)
{
    if (width == 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "dictionary value width 0");
    uint64_t n = basalt_parquet_count_valid(validity, validity_offset, count);
    basalt_status st = dict_want(dec, n, err);
    if (st != BASALT_OK)
        return st;
    const uint8_t *d = dict;
    uint8_t *o = out;
    uint32_t idx[DICT_CHUNK];
    for (uint64_t left = n; left;) {
        struct basalt_parquet_rle_run run;
        st = dict_next(dec, left, dict_len, idx, &run, err);
        if (st != BASALT_OK)
            return st;
        size_t m = (size_t)run.count;
        if (run.kind == BASALT_PARQUET_RUN_REPEAT)
            fill_fixed(o, d + (size_t)run.value * width, width, m);
        else
            gather_fixed(o, d, width, idx, m);
        o += m * width;
        left -= m;
    }
    if (validity && n != count)
        basalt_parquet_spaced_expand_fixed(out, width, count, validity, validity_offset);
    return BASALT_OK;
}

basalt_status basalt_parquet_dict_decode_indices(struct basalt_parquet_rle_decoder *dec,
                                                 uint32_t dict_len, uint64_t count,
                                                 const uint8_t *validity, int64_t validity_offset,
                                                 int32_t *out, struct basalt_error *err)
{
    if (dict_len > (uint32_t)INT32_MAX + 1)
        return basalt_error_set(err, BASALT_LIMIT,
                                "dictionary of %" PRIu32 " entries exceeds int32 indices",
                                dict_len);
    uint64_t n = basalt_parquet_count_valid(validity, validity_offset, count);
    basalt_status st = dict_want(dec, n, err);
    if (st != BASALT_OK)
        return st;
    int32_t *o = out;
    for (uint64_t left = n; left;) {
        struct basalt_parquet_rle_run run;
        /* Literal indices unpack straight into the output; uint32 and int32
         * share their representation for values below 2^31. */
        st = basalt_parquet_rle_decoder_next(dec, left, &run, err);
        if (st != BASALT_OK)
            return st;
        size_t m = (size_t)run.count;
        if (run.kind == BASALT_PARQUET_RUN_REPEAT) {
            if (run.value >= dict_len)
                return dict_index_error(run.value, dict_len, err);
            for (size_t i = 0; i < m; i++)
                o[i] = (int32_t)run.value;
        } else {
            uint32_t *u = (uint32_t *)(void *)o;
            basalt_parquet_rle_run_unpack(dec, &run, u);
            st = dict_check(u, m, run.bit_width, dict_len, err);
            if (st != BASALT_OK)
                return st;
        }
        o += m;
        left -= m;
    }
    if (validity && n != count)
        basalt_parquet_spaced_expand_fixed((uint8_t *)out, sizeof *out, count, validity,
                                           validity_offset);
    return BASALT_OK;
}

/* ------------------------------------------------------------ byte arrays */

static inline void put_offset(const struct basalt_parquet_binary_out *out, uint64_t i, uint64_t v)
{
    if (out->offsets32)
        out->offsets32[i] = (int32_t)v;
    else
        out->offsets64[i] = (int64_t)v;
}

static inline void copy_value(uint8_t *dst, const uint8_t *src, size_t len, const uint8_t *src_end)
{
    basalt_parquet_copy_value(dst, src, len, (size_t)(src_end - src));
}

static basalt_status data_limit(uint64_t have, uint64_t more, uint64_t cap,
                                struct basalt_error *err)
{
    if (more > cap - have)
        return basalt_error_set(err, BASALT_LIMIT,
                                "byte-array data would grow past %" PRIu64 " bytes", cap);
    return BASALT_OK;
}

/* A literal piece of string indices goes in two passes. The first writes
 * every value's end offset (a prefix sum of dictionary lengths, which also
 * sizes the output exactly), notes the longest value, and turns each index
 * into its value's dictionary offset, so the second pass, which copies,
 * reads both sequentially.
 * When no value of the piece exceeds 16 (or 32) bytes, every copy is one
 * fixed 16- (or 32-) byte move: the value's own bytes and some that the next
 * copy (or the output's padding) overwrites. That leaves one branch per
 * value, on whether the source has that many bytes behind it, which only the
 * last entries of a dictionary fail, so it predicts; a per-value branch on
 * the length would mispredict on mixed short and long values. */
struct piece_shape {
    uint64_t total; /* bytes of the piece */
    size_t max_len; /* longest value */
};

/* piece_offsets_T writes the end offsets o[0..m) from `at` on and replaces
 * idx[i] by the dictionary offset of its value; piece_copy_T copies from
 * those offsets with o[-1] as the piece's first start, `move` from
 * piece_move, and src_safe the last dictionary offset with `move` bytes
 * behind it (negative when there is none). */
#define DEFINE_PIECE(T)                                                                   \
    static struct piece_shape piece_offsets_##T(const int32_t *doff, uint32_t *idx,       \
                                                size_t m, uint64_t at, T *o)              \
    {                                                                                     \
        uint64_t pos = at;                                                                \
        size_t max_len = 0;                                                               \
        for (size_t i = 0; i < m; i++) {                                                  \
            int32_t a = doff[idx[i]];                                                     \
            size_t len = (size_t)(doff[idx[i] + 1] - a);                                  \
            idx[i] = (uint32_t)a;                                                         \
            max_len = len > max_len ? len : max_len;                                      \
            pos += len;                                                                   \
            o[i] = (T)pos;                                                                \
        }                                                                                 \
        return (struct piece_shape){pos - at, max_len};                                   \
    }                                                                                     \
                                                                                          \
    static void piece_copy_##T(uint8_t *base, const uint8_t *dbase, const uint32_t *start, \
                               size_t m, const T *o, size_t move, int64_t src_safe)       \
    {                                                                                     \
        if (move == 16) {                                                                 \
            for (size_t i = 0; i < m; i++) {                                              \
                int64_t a = start[i];                                                     \
                uint8_t *dst = base + o[(ptrdiff_t)i - 1];                                \
                if (a <= src_safe)                                                        \
                    memcpy(dst, dbase + a, 16);                                           \
                else                                                                      \
                    memcpy(dst, dbase + a, (size_t)(o[i] - o[(ptrdiff_t)i - 1]));         \
            }                                                                             \
        } else if (move == 32) {                                                          \
            for (size_t i = 0; i < m; i++) {                                              \
                int64_t a = start[i];                                                     \
                uint8_t *dst = base + o[(ptrdiff_t)i - 1];                                \
                if (a <= src_safe)                                                        \
                    memcpy(dst, dbase + a, 32);                                           \
                else                                                                      \
                    memcpy(dst, dbase + a, (size_t)(o[i] - o[(ptrdiff_t)i - 1]));         \
            }                                                                             \
        } else {                                                                          \
            for (size_t i = 0; i < m; i++)                                                \
                memcpy(base + o[(ptrdiff_t)i - 1], dbase + start[i],                      \
                       (size_t)(o[i] - o[(ptrdiff_t)i - 1]));                             \
        }                                                                                 \
    }

DEFINE_PIECE(int32_t)
DEFINE_PIECE(int64_t)

/* The fixed move for a piece whose longest value is max_len: 16, 32, or 0 for
 * exact copies. */
static size_t piece_move(size_t max_len)
{
    return max_len <= 16 ? 16 : max_len <= 32 ? 32 : 0;
}

basalt_status basalt_parquet_dict_gather_binary(struct basalt_parquet_rle_decoder *dec,
                                                const struct basalt_parquet_dict_binary *dict,
                                                uint64_t count, const uint8_t *validity,
                                                int64_t validity_offset,
                                                const struct basalt_parquet_binary_out *out,
                                                struct basalt_error *err)
{
    uint64_t cap;
    basalt_status st = basalt_parquet_binary_out_limit(out, &cap, err);
    if (st != BASALT_OK)
        return st;
    uint64_t n = basalt_parquet_count_valid(validity, validity_offset, count);
    st = dict_want(dec, n, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_buffer *data = out->data;
    if (data->size > cap)
        return data_limit(data->size, 0, 0, err);
    const int32_t *doff = dict->offsets;
    const uint8_t *dbase = dict->data;
    const uint8_t *dend = dict->count ? dbase + doff[dict->count] : dbase;
    size_t dict_bytes = (size_t)(dend - dbase);
    put_offset(out, 0, data->size);
    uint64_t slot = 0;
    uint32_t idx[DICT_CHUNK];
    for (uint64_t left = n; left;) {
        struct basalt_parquet_rle_run run;
        st = dict_next(dec, left, dict->count, idx, &run, err);
        if (st != BASALT_OK)
            return st;
        size_t m = (size_t)run.count;
        if (run.kind == BASALT_PARQUET_RUN_REPEAT) {
            const uint8_t *src = dbase + doff[run.value];
            size_t len = (size_t)(doff[run.value + 1] - doff[run.value]);
            if (len && m > (cap - data->size) / len)
                return data_limit(data->size, (uint64_t)len * m, cap, err);
            st = basalt_buffer_reserve(data, len * m + 32, err);
            if (st != BASALT_OK)
                return st;
            uint8_t *dst = data->data + data->size;
            for (size_t i = 0; i < m; i++)
                copy_value(dst + i * len, src, len, dend);
            /* Offsets through typed locals: a store through `out` could alias
             * the bytes just copied and force reloads. */
            uint64_t at = data->size;
            if (out->offsets32) {
                int32_t *o = out->offsets32 + slot + 1;
                for (size_t i = 0; i < m; i++)
                    o[i] = (int32_t)(at + (i + 1) * len);
            } else {
                int64_t *o = out->offsets64 + slot + 1;
                for (size_t i = 0; i < m; i++)
                    o[i] = (int64_t)(at + (i + 1) * len);
            }
            data->size += len * m;
        } else {
            struct piece_shape sh;
            if (out->offsets32)
                sh = piece_offsets_int32_t(doff, idx, m, data->size, out->offsets32 + slot + 1);
            else
                sh = piece_offsets_int64_t(doff, idx, m, data->size, out->offsets64 + slot + 1);
            size_t move = piece_move(sh.max_len);
            /* The 32 spare bytes take the last fixed move's overshoot. Offsets
             * already written past the cap are garbage returned with LIMIT. */
            st = data_limit(data->size, sh.total, cap, err);
            if (st == BASALT_OK)
                st = basalt_buffer_reserve(data, (size_t)sh.total + 32, err);
            if (st != BASALT_OK)
                return st;
            int64_t safe = (int64_t)dict_bytes - (int64_t)move;
            if (out->offsets32)
                piece_copy_int32_t(data->data, dbase, idx, m, out->offsets32 + slot + 1,
                                   move, safe);
            else
                piece_copy_int64_t(data->data, dbase, idx, m, out->offsets64 + slot + 1,
                                   move, safe);
            data->size += (size_t)sh.total;
        }
        slot += m;
        left -= m;
    }
    if (validity && n != count) {
        if (out->offsets32)
            basalt_parquet_spaced_expand_offsets32(out->offsets32, count, validity,
                                                   validity_offset);
        else
            basalt_parquet_spaced_expand_offsets64(out->offsets64, count, validity,
                                                   validity_offset);
    }
    return BASALT_OK;
}

basalt_status basalt_parquet_dict_encode_indices(const uint32_t *indices, size_t count,
                                                 uint32_t dict_len, struct basalt_buffer *out,
                                                 struct basalt_error *err)
{
    /* Width at least 1 for a non-empty dictionary: some readers reject 0. */
    unsigned width = dict_len > 1 ? basalt_parquet_bit_width(dict_len - 1) : dict_len ? 1 : 0;
    for (size_t i = 0; i < count; i++)
        if (indices[i] >= dict_len)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "index %" PRIu32 " is not below the dictionary's %" PRIu32
                                    " entries",
                                    indices[i], dict_len);
    size_t start = out->size;
    uint8_t wb = (uint8_t)width;
    basalt_status st = basalt_buffer_append(out, &wb, 1, err);
    struct basalt_parquet_rle_encoder enc;
    if (st == BASALT_OK)
        st = basalt_parquet_rle_encoder_init(&enc, width, out, err);
    if (st == BASALT_OK)
        st = basalt_parquet_rle_encoder_put(&enc, indices, count, err);
    if (st == BASALT_OK)
        st = basalt_parquet_rle_encoder_finish(&enc, err);
    if (st != BASALT_OK)
        out->size = start;
    return st;
}
