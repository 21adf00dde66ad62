/* Parquet physical-layer encoding kernels (sans-IO).
 *
 * Decoders and encoders for the value and level encodings of Parquet data
 * pages: bit packing, the RLE / bit-packed hybrid, definition and repetition
 * levels, dictionary indices, PLAIN, DELTA_BINARY_PACKED,
 * DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT.
 *
 * Decoders write straight into Arrow layouts: validity bitmaps (LSB order, at
 * any bit offset), fixed-width value arrays, and offsets (int32 or int64) plus
 * a data buffer for byte arrays. Every decoder takes its input as (pointer,
 * length) and never reads past it; every value derived from the input is
 * checked, and malformed input yields BASALT_CORRUPT with a message naming
 * what is wrong. Outputs are sized by the caller's `count`, and nothing is
 * written past the slots that count names.
 *
 * "Spaced" output: functions taking `validity` (an Arrow validity bitmap and
 * its bit offset) produce `count` slots, of which only those whose validity
 * bit is set consume an encoded value; null slots are left zeroed (fixed
 * width) or empty (byte arrays). `validity` NULL means every slot is valid.
 *
 * On error the destination's contents are unspecified and the decoder is not
 * to be used further.
 *
 * Decoder structs live in caller storage and are used by one thread at a
 * time; the kernels themselves keep no state and are thread-safe. Decoders
 * borrow their input: it must stay valid and unchanged while they are used.
 * Unless a function says otherwise it does not allocate.
 *
 * Internal to the parquet module (the page reader and writer build on it). */
#ifndef BASALT_PARQUET_ENCODING_H
#define BASALT_PARQUET_ENCODING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "basalt/core.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the Parquet kernels assume a little-endian target"
#endif

/* ================================================================ helpers */

static inline uint32_t basalt_parquet_load32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint64_t basalt_parquet_load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Input of length 0 may come as NULL; arithmetic on NULL is undefined even
 * with a zero offset, so decoders start from a real address instead. */
static inline const uint8_t *basalt_parquet_nonnull(const uint8_t *p)
{
    static const uint8_t empty[1];
    return p ? p : empty;
}

/* Reads a ULEB128 of at most 10 bytes whose value fits in 64 bits. Returns
 * false on truncation or overflow (the caller reports CORRUPT). */
static inline bool basalt_parquet_read_uleb(const uint8_t **pos, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pos;
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (p == end)
            return false;
        uint8_t b = *p++;
        if (shift == 63 && (b & 0x7e))
            return false; /* bits beyond the 64th */
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *pos = p;
            *out = v;
            return true;
        }
    }
    return false;
}

static inline int64_t basalt_parquet_zigzag_decode(uint64_t v)
{
    return (int64_t)((v >> 1) ^ (~(v & 1) + 1));
}

static inline uint64_t basalt_parquet_zigzag_encode(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/* Appends a ULEB128 to `out`. Returns OK or NOMEM. */
basalt_status basalt_parquet_write_uleb(struct basalt_buffer *out, uint64_t v,
                                        struct basalt_error *err);

/* Population count without a libgcc call where the popcnt instruction is
 * not in the target baseline. */
static inline unsigned basalt_parquet_popcount64(uint64_t v)
{
#if defined(__POPCNT__) || !(defined(__x86_64__) || defined(__i386__))
    return (unsigned)__builtin_popcountll(v);
#else
    v = v - ((v >> 1) & UINT64_C(0x5555555555555555));
    v = (v & UINT64_C(0x3333333333333333)) + ((v >> 2) & UINT64_C(0x3333333333333333));
    v = (v + (v >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (unsigned)((v * UINT64_C(0x0101010101010101)) >> 56);
#endif
}

/* Bits needed to represent `max_value` (0 for 0). */
static inline unsigned basalt_parquet_bit_width(uint64_t max_value)
{
    return max_value ? 64u - (unsigned)__builtin_clzll(max_value) : 0u;
}

/* ============================================================ bit packing */

/* Values are packed LSB first, as the RLE / bit-packed hybrid and
 * DELTA_BINARY_PACKED store them: value i occupies bits [i*w, (i+1)*w) of the
 * little-endian bit stream.
 *
 * A kernel table holds unpackers per bit width; 32 values of width w take
 * exactly 4*w bytes and 8 values w bytes, and the batch kernels read exactly
 * that much. Decoders take their table once, at init, from
 * basalt_parquet_bitpack_best: the seam where a CPU-specific table would be
 * chosen. Only the portable table exists: compiled for AVX2 the same
 * unrolled kernels measured no faster (0.27 vs 0.23 ns a value at widths
 * 1..25), and unpacking is a fifth of a dictionary gather. */
typedef void (*basalt_parquet_unpack32_u32_fn)(const uint8_t *in, uint32_t *out);
typedef void (*basalt_parquet_unpack32_u64_fn)(const uint8_t *in, uint64_t *out);
typedef void (*basalt_parquet_unpack8_u32_fn)(const uint8_t *in, uint32_t *out);

struct basalt_parquet_bitpack_kernels {
    const char *name;                                 /* "scalar" */
    basalt_parquet_unpack32_u32_fn unpack32_u32[33];  /* widths 0..32 */
    basalt_parquet_unpack8_u32_fn unpack8_u32[33];    /* 8 values from w bytes */
    basalt_parquet_unpack32_u64_fn unpack32_u64[65];  /* widths 0..64 */
};

/* The portable kernels, unrolled per bit width. Static storage. */
const struct basalt_parquet_bitpack_kernels *basalt_parquet_bitpack_scalar(void);
/* The kernels decoders use: the fastest for this CPU. Static storage. */
const struct basalt_parquet_bitpack_kernels *basalt_parquet_bitpack_best(void);

/* The reference unpacker: value at a time, reads only the bytes holding
 * values [first, first + count). Width 0..64. Slow; used for ragged edges
 * and as the oracle for the unrolled kernels. */
void basalt_parquet_unpack_ref(const uint8_t *in, uint64_t first, size_t count, unsigned width,
                               uint64_t *out);

/* Unpacks values [first, first + count) of the packed stream `in` of `in_len`
 * bytes into `out`, using kernels `k` (NULL: the best). Width 0..32 for u32,
 * 0..64 for u64. Reads nothing past `in_len`; the caller guarantees
 * in_len >= ceil((first + count) * width / 8). */
void basalt_parquet_unpack_u32(const struct basalt_parquet_bitpack_kernels *k, const uint8_t *in,
                               size_t in_len, uint64_t first, size_t count, unsigned width,
                               uint32_t *out);
void basalt_parquet_unpack_u64(const struct basalt_parquet_bitpack_kernels *k, const uint8_t *in,
                               size_t in_len, uint64_t first, size_t count, unsigned width,
                               uint64_t *out);

/* Packs `count` values of `width` bits (0..64; higher bits of each value are
 * ignored) into ceil(count * width / 8) bytes at `out`; the last byte's
 * unused high bits are zero. */
void basalt_parquet_pack_u32(const uint32_t *in, size_t count, unsigned width, uint8_t *out);
void basalt_parquet_pack_u64(const uint64_t *in, size_t count, unsigned width, uint8_t *out);

/* ================================================ RLE / bit-packed hybrid */

enum basalt_parquet_run_kind {
    BASALT_PARQUET_RUN_REPEAT = 0,  /* `count` copies of `value` */
    BASALT_PARQUET_RUN_LITERAL = 1  /* `count` bit-packed values */
};

/* A piece of a hybrid stream as the decoder hands it out. A LITERAL piece is
 * values [first, first + count) of the bit-packed run at `data` (`data_len`
 * bytes, enough for them; unpack with basalt_parquet_rle_run_unpack or
 * basalt_parquet_unpack_u32). Views into the decoder's input. */
struct basalt_parquet_rle_run {
    enum basalt_parquet_run_kind kind;
    unsigned bit_width;
    uint64_t count;
    uint32_t value;
    const uint8_t *data;
    size_t data_len;
    size_t data_avail; /* bytes readable at data (the rest of the input), >= data_len */
    uint64_t first;
};

/* Decoder of the RLE / bit-packed hybrid (without the optional 4-byte length
 * prefix; see basalt_parquet_rle_decoder_init_prefixed). It knows how many
 * values the stream must hold: a run that claims more than are left is cut
 * at the values left (writers pad the last bit-packed run, DuckDB up to 256
 * values), while a run cut short by the end of the input, or a repeated value
 * wider than the bit width, is CORRUPT. The padding bytes of a final
 * bit-packed run may be missing. Fields are private. */
struct basalt_parquet_rle_decoder {
    const uint8_t *pos;
    const uint8_t *end;
    const struct basalt_parquet_bitpack_kernels *kernels;
    uint64_t num_values;   /* values the stream holds */
    uint64_t values_left;  /* not yet handed out, including the current run's */
    uint64_t run_left;     /* of the current run */
    uint64_t lit_next;     /* LITERAL: index in the run of the next value */
    const uint8_t *lit_data;
    size_t lit_len;
    uint32_t value;
    uint8_t bit_width;
    bool literal;
};

/* Starts decoding `num_values` values of `bit_width` (0..32) bits from
 * data[0, len). Returns OK, or INVALID_ARG for a width above 32. */
basalt_status basalt_parquet_rle_decoder_init(struct basalt_parquet_rle_decoder *dec,
                                              const uint8_t *data, size_t len, unsigned bit_width,
                                              uint64_t num_values, struct basalt_error *err);

/* The same for a stream preceded by its 4-byte little-endian length (v1 page
 * levels, RLE booleans). `*consumed` receives 4 + that length, the bytes the
 * stream occupies in `data`. CORRUPT if the length runs past `len`. */
basalt_status basalt_parquet_rle_decoder_init_prefixed(struct basalt_parquet_rle_decoder *dec,
                                                       const uint8_t *data, size_t len,
                                                       unsigned bit_width, uint64_t num_values,
                                                       size_t *consumed,
                                                       struct basalt_error *err);

/* Dictionary indices of a data page: one byte of bit width (at most 32) and
 * the hybrid stream after it, to the end of `data`. */
basalt_status basalt_parquet_dict_indices_init(struct basalt_parquet_rle_decoder *dec,
                                               const uint8_t *data, size_t len,
                                               uint64_t num_values, struct basalt_error *err);

/* Values not yet handed out. */
static inline uint64_t basalt_parquet_rle_decoder_remaining(const struct basalt_parquet_rle_decoder *dec)
{
    return dec->values_left;
}

/* Hands out the next piece of at most `max` values. run->count is 0 only when
 * `max` is 0 or the stream is exhausted. Returns OK or CORRUPT. */
basalt_status basalt_parquet_rle_decoder_next(struct basalt_parquet_rle_decoder *dec, uint64_t max,
                                              struct basalt_parquet_rle_run *run,
                                              struct basalt_error *err);

/* Skips `count` values. CORRUPT if the stream holds fewer or is malformed. */
basalt_status basalt_parquet_rle_decoder_skip(struct basalt_parquet_rle_decoder *dec,
                                              uint64_t count, struct basalt_error *err);

/* Expands a LITERAL piece into run->count values at `out`. */
static inline void basalt_parquet_rle_run_unpack(const struct basalt_parquet_rle_decoder *dec,
                                                 const struct basalt_parquet_rle_run *run,
                                                 uint32_t *out)
{
    basalt_parquet_unpack_u32(dec->kernels, run->data, run->data_len, run->first,
                              (size_t)run->count, run->bit_width, out);
}

/* Decodes the next `count` values into out[0, count). CORRUPT if the stream
 * holds fewer than `count` values or is malformed. */
basalt_status basalt_parquet_rle_decode_u32(struct basalt_parquet_rle_decoder *dec, uint64_t count,
                                            uint32_t *out, struct basalt_error *err);

/* Decodes the next `count` values of a width-0 or width-1 stream straight
 * into a bitmap: bits [offset, offset + count) of `bits` (other bits are
 * kept). Repeats become bit fills and literals bit copies. `*ones` (optional)
 * receives the number of 1 values. This is the flat nullable column's
 * definition levels (max level 1) to validity, and RLE-encoded booleans.
 * INVALID_ARG for a wider stream; CORRUPT as for the other decoders. */
basalt_status basalt_parquet_rle_decode_bitmap(struct basalt_parquet_rle_decoder *dec,
                                               uint64_t count, uint8_t *bits, int64_t offset,
                                               uint64_t *ones, struct basalt_error *err);

/* Encoder of the hybrid: greedy, a run of 8 or more equal values becomes a
 * repeated run, everything else bit-packed groups of 8 (the last group padded
 * with zeros). Appends to a caller buffer; buffers at most 504 values
 * itself. Fields are private. */
#define BASALT_PARQUET_RLE_LITERAL_MAX 504  /* 63 groups: a one-byte run header */

struct basalt_parquet_rle_encoder {
    struct basalt_buffer *out;
    uint64_t rep_count;    /* trailing run of equal values not yet placed */
    uint64_t values;       /* values put so far */
    uint32_t rep_value;
    uint32_t lit_count;
    uint8_t bit_width;
    uint32_t lit[BASALT_PARQUET_RLE_LITERAL_MAX];
};

/* Starts an encoder of `bit_width` (0..32) bits appending to `out`
 * (borrowed; it must outlive the encoder). INVALID_ARG for a width above 32. */
basalt_status basalt_parquet_rle_encoder_init(struct basalt_parquet_rle_encoder *enc,
                                              unsigned bit_width, struct basalt_buffer *out,
                                              struct basalt_error *err);
/* Adds `count` values (INVALID_ARG if one does not fit in the bit width). */
basalt_status basalt_parquet_rle_encoder_put(struct basalt_parquet_rle_encoder *enc,
                                             const uint32_t *values, size_t count,
                                             struct basalt_error *err);
/* Adds `count` copies of `value`, without expanding them. */
basalt_status basalt_parquet_rle_encoder_put_run(struct basalt_parquet_rle_encoder *enc,
                                                 uint32_t value, uint64_t count,
                                                 struct basalt_error *err);
/* Adds bits [offset, offset + count) of a bitmap as width-1 values (validity
 * to definition levels, booleans). INVALID_ARG unless the width is 1. */
basalt_status basalt_parquet_rle_encoder_put_bitmap(struct basalt_parquet_rle_encoder *enc,
                                                    const uint8_t *bits, int64_t offset,
                                                    uint64_t count, struct basalt_error *err);
/* Writes out everything still buffered. The encoder may not be used after. */
basalt_status basalt_parquet_rle_encoder_finish(struct basalt_parquet_rle_encoder *enc,
                                                struct basalt_error *err);

/* ================================================================ levels */

/* Bit width of levels whose maximum is `max_level` (0..32767). */
static inline unsigned basalt_parquet_level_bit_width(int16_t max_level)
{
    return basalt_parquet_bit_width(max_level > 0 ? (uint64_t)max_level : 0);
}

/* Starts a level decoder (RLE / bit-packed hybrid, width from `max_level`).
 * `prefixed` selects the v1 data page layout (4-byte length first);
 * `*consumed` (optional) receives the bytes the levels occupy. */
basalt_status basalt_parquet_levels_init(struct basalt_parquet_rle_decoder *dec,
                                         const uint8_t *data, size_t len, int16_t max_level,
                                         uint64_t num_values, bool prefixed, size_t *consumed,
                                         struct basalt_error *err);

/* Decodes `count` levels into out[0, count) as int16, checking each is at
 * most `max_level` (CORRUPT otherwise). Repetition and definition levels
 * alike. */
basalt_status basalt_parquet_levels_decode(struct basalt_parquet_rle_decoder *dec, uint64_t count,
                                           int16_t max_level, int16_t *out,
                                           struct basalt_error *err);

/* Definition levels of a flat nullable column (max level 1) straight into an
 * Arrow validity bitmap at bit `offset`; `*null_count` receives the number of
 * nulls (level 0). A wrapper of basalt_parquet_rle_decode_bitmap. */
basalt_status basalt_parquet_levels_decode_validity(struct basalt_parquet_rle_decoder *dec,
                                                    uint64_t count, uint8_t *validity,
                                                    int64_t offset, uint64_t *null_count,
                                                    struct basalt_error *err);

/* The deprecated BIT_PACKED level encoding (MSB first, no header): `count`
 * levels of width from `max_level` from data[0, len), checked against
 * `max_level`. `*consumed` (optional) receives ceil(count * width / 8). */
basalt_status basalt_parquet_levels_decode_bit_packed(const uint8_t *data, size_t len,
                                                      uint64_t count, int16_t max_level,
                                                      int16_t *out, size_t *consumed,
                                                      struct basalt_error *err);

/* Appends `count` levels as a hybrid stream of width from `max_level`,
 * preceded by its 4-byte length when `prefixed` (v1 pages). INVALID_ARG for a
 * level outside [0, max_level]. */
basalt_status basalt_parquet_levels_encode(const int16_t *levels, size_t count, int16_t max_level,
                                           bool prefixed, struct basalt_buffer *out,
                                           struct basalt_error *err);

/* ============================================== byte-array destinations */

/* Where byte-array decoders put their values: Arrow offsets (exactly one of
 * offsets32 / offsets64) and a data buffer they append to. A call decoding
 * `count` slots writes offsets[0, count]; offsets[0] is set to data->size as
 * found, so consecutive calls can continue one array (pass &offsets[n]).
 * `max_data` caps data->size (LIMIT beyond it); 0 means INT32_MAX for
 * offsets32 and BASALT_PARQUET_MAX_DATA_LARGE for offsets64. Data buffers get
 * up to 32 bytes of slack capacity beyond their size. */
#define BASALT_PARQUET_MAX_DATA_LARGE (INT64_C(1) << 34)

struct basalt_parquet_binary_out {
    int32_t *offsets32;
    int64_t *offsets64;
    struct basalt_buffer *data;
    uint64_t max_data;
};

/* A source of byte-array values for encoders: Arrow offsets (exactly one of
 * offsets32 / offsets64; slot i spans [offsets[i], offsets[i + 1]) of data). */
struct basalt_parquet_binary_view {
    const int32_t *offsets32;
    const int64_t *offsets64;
    const uint8_t *data;
};

/* ============================================================ dictionary */

/* A byte-array dictionary as the PLAIN decoder produces it: `count` values,
 * value i at data[offsets[i], offsets[i + 1]). Trusted: offsets must be
 * non-decreasing and within data (they are when they come from
 * basalt_parquet_plain_decode_binary). */
struct basalt_parquet_dict_binary {
    const int32_t *offsets;
    const uint8_t *data;
    uint32_t count;
};

/* Decodes `count` slots of dictionary indices from `dec` and writes the
 * dictionary values they name straight into `out` (count * width bytes):
 * `dict` holds `dict_len` values of `width` bytes each. Every index is
 * checked against dict_len (CORRUPT naming the first offender); repeated runs
 * become fills. Spaced with `validity` (see the top of this file). */
basalt_status basalt_parquet_dict_gather_fixed(struct basalt_parquet_rle_decoder *dec,
                                               const void *dict, uint32_t dict_len, size_t width,
                                               uint64_t count, const uint8_t *validity,
                                               int64_t validity_offset, void *out,
                                               struct basalt_error *err);

/* The same for a byte-array dictionary: values are copied into `out`. LIMIT if
 * the data would pass out->max_data; NOMEM if the data buffer cannot grow. */
basalt_status basalt_parquet_dict_gather_binary(struct basalt_parquet_rle_decoder *dec,
                                                const struct basalt_parquet_dict_binary *dict,
                                                uint64_t count, const uint8_t *validity,
                                                int64_t validity_offset,
                                                const struct basalt_parquet_binary_out *out,
                                                struct basalt_error *err);

/* Checked indices only (for Arrow dictionary-encoded output): out[i] is the
 * index, 0 in null slots. */
basalt_status basalt_parquet_dict_decode_indices(struct basalt_parquet_rle_decoder *dec,
                                                 uint32_t dict_len, uint64_t count,
                                                 const uint8_t *validity, int64_t validity_offset,
                                                 int32_t *out, struct basalt_error *err);

/* Appends a dictionary data page's indices: the bit-width byte (bits needed
 * for dict_len - 1, at least 1: some readers refuse width 0) and the hybrid
 * stream. INVALID_ARG if an index is not below dict_len. */
basalt_status basalt_parquet_dict_encode_indices(const uint32_t *indices, size_t count,
                                                 uint32_t dict_len, struct basalt_buffer *out,
                                                 struct basalt_error *err);

/* ================================================================= PLAIN */

/* A cursor over PLAIN-encoded values. Fields are private. */
struct basalt_parquet_plain_decoder {
    const uint8_t *data;
    size_t len;
    size_t pos;       /* bytes consumed (fixed width, byte arrays) */
    uint64_t bit_pos; /* bits consumed (booleans) */
};

void basalt_parquet_plain_decoder_init(struct basalt_parquet_plain_decoder *dec,
                                       const uint8_t *data, size_t len);

/* Fixed-width values (INT32 4, INT64 8, INT96 12, FLOAT 4, DOUBLE 8,
 * FIXED_LEN_BYTE_ARRAY n): count slots of `width` bytes into `out`.
 * CORRUPT if the input holds too few values. */
basalt_status basalt_parquet_plain_decode_fixed(struct basalt_parquet_plain_decoder *dec,
                                                size_t width, uint64_t count,
                                                const uint8_t *validity, int64_t validity_offset,
                                                void *out, struct basalt_error *err);

/* BOOLEAN: bits [offset, offset + count) of `bits` (other bits kept); null
 * slots get 0. */
basalt_status basalt_parquet_plain_decode_bool(struct basalt_parquet_plain_decoder *dec,
                                               uint64_t count, const uint8_t *validity,
                                               int64_t validity_offset, uint8_t *bits,
                                               int64_t offset, struct basalt_error *err);

/* BYTE_ARRAY: 4-byte length and bytes per value, into offsets and data.
 * CORRUPT for a length running past the input; LIMIT past out->max_data. */
basalt_status basalt_parquet_plain_decode_binary(struct basalt_parquet_plain_decoder *dec,
                                                 uint64_t count, const uint8_t *validity,
                                                 int64_t validity_offset,
                                                 const struct basalt_parquet_binary_out *out,
                                                 struct basalt_error *err);

/* Encoders append the non-null slots of [0, count) to `out`. Booleans are
 * packed from the first bit of a fresh byte, the last byte zero-padded: one
 * call per page. NOMEM if `out` cannot grow; LIMIT for a byte array longer
 * than 4 GiB - 1. */
basalt_status basalt_parquet_plain_encode_fixed(const void *values, size_t width, uint64_t count,
                                                const uint8_t *validity, int64_t validity_offset,
                                                struct basalt_buffer *out,
                                                struct basalt_error *err);
basalt_status basalt_parquet_plain_encode_bool(const uint8_t *bits, int64_t offset, uint64_t count,
                                               const uint8_t *validity, int64_t validity_offset,
                                               struct basalt_buffer *out,
                                               struct basalt_error *err);
basalt_status basalt_parquet_plain_encode_binary(const struct basalt_parquet_binary_view *values,
                                                 uint64_t count, const uint8_t *validity,
                                                 int64_t validity_offset,
                                                 struct basalt_buffer *out,
                                                 struct basalt_error *err);

/* =================================================== DELTA_BINARY_PACKED */

/* Decoder of DELTA_BINARY_PACKED. The header's block size must be a positive
 * multiple of 128 (LIMIT above 2^24) and its miniblocks hold a multiple of 32
 * values; miniblock bit widths are at most 32 for INT32 data and 64 for INT64;
 * every miniblock holding a value must be present in full (the spec pads the
 * last one); arithmetic wraps around. Fields are private. */
struct basalt_parquet_delta_decoder {
    const uint8_t *start; /* the header's first byte */
    const uint8_t *pos;   /* next unread byte of the stream */
    const uint8_t *end;
    const struct basalt_parquet_bitpack_kernels *kernels;
    uint64_t total;       /* values in the stream (header) */
    uint64_t values_left; /* not yet handed out */
    uint64_t last;        /* previous value, two's complement */
    uint64_t min_delta;
    uint32_t block_size;
    uint32_t miniblocks;
    uint32_t mb_values;   /* values per miniblock */
    uint32_t mb_index;    /* current miniblock in its block */
    uint32_t mb_left;     /* values left in the current miniblock */
    uint32_t buf_pos;     /* buf[buf_pos, buf_len) decoded, not yet handed out */
    uint32_t buf_len;
    uint8_t type_bits;    /* 32 or 64 */
    bool first_pending;   /* the header's first value is not yet handed out */
    const uint8_t *widths;/* the current block's miniblock widths */
    const uint8_t *mb_data; /* the current miniblock's packed values */
    uint8_t mb_width;
    uint64_t buf[32];
};

/* Reads the header of a stream in data[0, len) holding values of `type_bits`
 * (32 or 64) bits. `num_values`, when not UINT64_MAX, is what the page says
 * the stream holds, and a header disagreeing is CORRUPT. */
basalt_status basalt_parquet_delta_decoder_init(struct basalt_parquet_delta_decoder *dec,
                                                const uint8_t *data, size_t len,
                                                unsigned type_bits, uint64_t num_values,
                                                struct basalt_error *err);

/* Values in the stream, as its header says. */
static inline uint64_t basalt_parquet_delta_decoder_total(const struct basalt_parquet_delta_decoder *dec)
{
    return dec->total;
}

/* Decodes `count` slots (spaced with `validity`). CORRUPT if the stream holds
 * fewer values or is malformed. */
basalt_status basalt_parquet_delta_decode_i32(struct basalt_parquet_delta_decoder *dec,
                                              uint64_t count, const uint8_t *validity,
                                              int64_t validity_offset, int32_t *out,
                                              struct basalt_error *err);
basalt_status basalt_parquet_delta_decode_i64(struct basalt_parquet_delta_decoder *dec,
                                              uint64_t count, const uint8_t *validity,
                                              int64_t validity_offset, int64_t *out,
                                              struct basalt_error *err);

/* Skips `count` values. They are decoded all the same: every later value
 * depends on every delta before it. */
basalt_status basalt_parquet_delta_decoder_skip(struct basalt_parquet_delta_decoder *dec,
                                                uint64_t count, struct basalt_error *err);

/* The stream's size in bytes: skips whatever values are left (the decoder is
 * exhausted afterwards) and returns where the stream ends, the end of the
 * miniblock holding its last value (DELTA_LENGTH_BYTE_ARRAY data follows). */
basalt_status basalt_parquet_delta_decoder_finish(struct basalt_parquet_delta_decoder *dec,
                                                  size_t *stream_len, struct basalt_error *err);

/* Appends the non-null slots of [0, count) as a stream: blocks of 128 values
 * in 4 miniblocks of 32. Allocates scratch only when `validity` is given.
 * NOMEM if `out` cannot grow. */
basalt_status basalt_parquet_delta_encode_i32(const int32_t *values, uint64_t count,
                                              const uint8_t *validity, int64_t validity_offset,
                                              struct basalt_buffer *out, struct basalt_error *err);
basalt_status basalt_parquet_delta_encode_i64(const int64_t *values, uint64_t count,
                                              const uint8_t *validity, int64_t validity_offset,
                                              struct basalt_buffer *out, struct basalt_error *err);

/* ================================================ DELTA_LENGTH_BYTE_ARRAY */

/* Lengths (a DELTA_BINARY_PACKED stream) followed by the concatenated bytes.
 * Fields are private. */
struct basalt_parquet_delta_length_decoder {
    struct basalt_parquet_delta_decoder lengths;
    const uint8_t *data;  /* next value's bytes */
    const uint8_t *end;
};

/* Starts on data[0, len): finds where the bytes begin by walking the length
 * stream's block headers. `num_values` as for the delta decoder. */
basalt_status basalt_parquet_delta_length_decoder_init(struct basalt_parquet_delta_length_decoder *dec,
                                                       const uint8_t *data, size_t len,
                                                       uint64_t num_values,
                                                       struct basalt_error *err);

/* `count` slots into offsets and data; CORRUPT for a negative length or bytes
 * running past the input; LIMIT past out->max_data. */
basalt_status basalt_parquet_delta_length_decode(struct basalt_parquet_delta_length_decoder *dec,
                                                 uint64_t count, const uint8_t *validity,
                                                 int64_t validity_offset,
                                                 const struct basalt_parquet_binary_out *out,
                                                 struct basalt_error *err);

/* Appends the non-null slots of [0, count). Allocates scratch for the
 * lengths. LIMIT for a value longer than INT32_MAX. */
basalt_status basalt_parquet_delta_length_encode(const struct basalt_parquet_binary_view *values,
                                                 uint64_t count, const uint8_t *validity,
                                                 int64_t validity_offset,
                                                 struct basalt_buffer *out,
                                                 struct basalt_error *err);

/* ===================================================== DELTA_BYTE_ARRAY */

/* Prefix lengths (DELTA_BINARY_PACKED), then the suffixes as
 * DELTA_LENGTH_BYTE_ARRAY; each value is the previous value's first
 * prefix-length bytes and its suffix. The decoder keeps a copy of the last
 * value between calls (allocated): release it with
 * basalt_parquet_delta_bytes_decoder_reset. Fields are private. */
struct basalt_parquet_delta_bytes_decoder {
    struct basalt_parquet_delta_decoder prefixes;
    struct basalt_parquet_delta_length_decoder suffixes;
    struct basalt_buffer last;
};

/* Starts on data[0, len); `num_values` as for the delta decoder. CORRUPT if
 * the prefix and suffix streams disagree on how many values they hold.
 * Allocates nothing; call reset after any use, failed init included. */
basalt_status basalt_parquet_delta_bytes_decoder_init(struct basalt_parquet_delta_bytes_decoder *dec,
                                                      const uint8_t *data, size_t len,
                                                      uint64_t num_values,
                                                      struct basalt_error *err);
/* Frees the copy of the last value. The decoder may be initialised again. */
void basalt_parquet_delta_bytes_decoder_reset(struct basalt_parquet_delta_bytes_decoder *dec);

/* BYTE_ARRAY output. CORRUPT for a prefix longer than the previous value, a
 * negative length, or bytes running past the input; LIMIT past
 * out->max_data; NOMEM. */
basalt_status basalt_parquet_delta_bytes_decode(struct basalt_parquet_delta_bytes_decoder *dec,
                                                uint64_t count, const uint8_t *validity,
                                                int64_t validity_offset,
                                                const struct basalt_parquet_binary_out *out,
                                                struct basalt_error *err);

/* FIXED_LEN_BYTE_ARRAY output: every value must be `width` bytes long
 * (CORRUPT otherwise); count * width bytes into `out`. */
basalt_status basalt_parquet_delta_bytes_decode_fixed(struct basalt_parquet_delta_bytes_decoder *dec,
                                                      size_t width, uint64_t count,
                                                      const uint8_t *validity,
                                                      int64_t validity_offset, void *out,
                                                      struct basalt_error *err);

/* Appends the non-null slots of [0, count) of byte arrays, or (`values`
 * NULL) of `fixed` values of `width` bytes. Allocates scratch. */
basalt_status basalt_parquet_delta_bytes_encode(const struct basalt_parquet_binary_view *values,
                                                const void *fixed, size_t width, uint64_t count,
                                                const uint8_t *validity, int64_t validity_offset,
                                                struct basalt_buffer *out,
                                                struct basalt_error *err);

/* ===================================================== BYTE_STREAM_SPLIT */

/* `width` byte streams of N bytes each, N = len / width (FLOAT16 2, FLOAT 4,
 * DOUBLE 8, INT32 4, INT64 8, FIXED_LEN_BYTE_ARRAY n). Fields are private. */
struct basalt_parquet_bss_decoder {
    const uint8_t *data;
    size_t width;
    uint64_t stride;  /* N */
    uint64_t pos;     /* values handed out */
};

/* CORRUPT unless len is a multiple of width (the spec allows no padding);
 * INVALID_ARG for width 0. */
basalt_status basalt_parquet_bss_decoder_init(struct basalt_parquet_bss_decoder *dec,
                                              const uint8_t *data, size_t len, size_t width,
                                              struct basalt_error *err);

/* `count` slots of `width` bytes into out; CORRUPT if fewer values are left. */
basalt_status basalt_parquet_bss_decode(struct basalt_parquet_bss_decoder *dec, uint64_t count,
                                        const uint8_t *validity, int64_t validity_offset,
                                        void *out, struct basalt_error *err);

/* The transposes themselves: values [first, first + count) of streams of
 * `stride` bytes to `count` interleaved values. The scalar one is the oracle
 * of the vectorised one, which basalt_parquet_bss_decode uses; that one
 * returns how many values its vector loop moved (the rest went through the
 * scalar loop), so tests can see the fast path run. */
void basalt_parquet_bss_gather_scalar(const uint8_t *streams, uint64_t stride, size_t width,
                                      uint64_t first, size_t count, uint8_t *out);
size_t basalt_parquet_bss_gather(const uint8_t *streams, uint64_t stride, size_t width,
                                 uint64_t first, size_t count, uint8_t *out);

/* Appends the non-null slots of [0, count) split into streams. */
basalt_status basalt_parquet_bss_encode(const void *values, size_t width, uint64_t count,
                                        const uint8_t *validity, int64_t validity_offset,
                                        struct basalt_buffer *out, struct basalt_error *err);

/* ========================================== spaced output (shared by all) */

/* Moves `n_valid` dense values at the start of `values` (width bytes each)
 * out to the set slots of validity[offset, offset + count), zeroing the
 * others, in place (back to front). n_valid must equal the set bits. */
void basalt_parquet_spaced_expand_fixed(uint8_t *values, size_t width, uint64_t count,
                                        const uint8_t *validity, int64_t offset);
/* The same for offsets: dense offsets[0, n_valid] become spaced
 * offsets[0, count], null slots empty. */
void basalt_parquet_spaced_expand_offsets32(int32_t *offsets, uint64_t count,
                                            const uint8_t *validity, int64_t offset);
void basalt_parquet_spaced_expand_offsets64(int64_t *offsets, uint64_t count,
                                            const uint8_t *validity, int64_t offset);
/* The same for bits: dense bits [bits_offset, bits_offset + n_valid) become
 * spaced bits [bits_offset, bits_offset + count). */
void basalt_parquet_spaced_expand_bits(uint8_t *bits, int64_t bits_offset, uint64_t count,
                                       const uint8_t *validity, int64_t offset);

/* Number of set bits of validity[offset, offset + count) (count if NULL). */
static inline uint64_t basalt_parquet_count_valid(const uint8_t *validity, int64_t offset,
                                                  uint64_t count)
{
    return validity ? (uint64_t)basalt_bitmap_count(validity, offset, (int64_t)count) : count;
}

/* Copies a byte-array value of `len` bytes. Short values move as one or two
 * 16-byte blocks (no call, no length-dependent branch tree) when `src_room`
 * bytes are readable at src; the destination must have 32 bytes of slack. */
static inline void basalt_parquet_copy_value(uint8_t *dst, const uint8_t *src, size_t len,
                                             size_t src_room)
{
    if (len <= 16 && src_room >= 16)
        memcpy(dst, src, 16);
    else if (len <= 32 && src_room >= 32)
        memcpy(dst, src, 32);
    else
        memcpy(dst, src, len);
}

/* Checks and fills in the defaults of a byte-array destination: its cap on
 * data bytes. INVALID_ARG unless exactly one offsets array and a data buffer
 * are given. */
basalt_status basalt_parquet_binary_out_limit(const struct basalt_parquet_binary_out *out,
                                              uint64_t *max_data, struct basalt_error *err);

#endif
