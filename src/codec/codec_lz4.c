/* LZ4_RAW (a bare LZ4 block) and LZ4_HADOOP (Parquet's deprecated LZ4)
 * through liblz4.
 *
 * LZ4_HADOOP data in the wild comes in three shapes: Hadoop framing (Arrow,
 * parquet-mr), a bare block (older parquet-cpp) and LZ4 frames (older writers
 * that used the frame format). Hadoop framing is a sequence of
 * [BE32 uncompressed size] followed by one or more [BE32 compressed size]
 * [block] whose outputs add up to that size; Arrow and parquet-mr write one
 * block per size. Hadoop framing is tried first, as Arrow's readers do; then
 * input starting with an LZ4 frame magic is read as frames and anything else
 * as a bare block. (A bare block can never start with the frame magic
 * 04 22 4D 18: its first match would reach before the output's start.)
 *
 * Decompression into a known size goes straight to LZ4_decompress_safe, as
 * Arrow and DuckDB do; walking a block first (lz4_block_length) costs about as
 * much as decoding it, so the walk is kept for what needs it: telling LIMIT
 * from CORRUPT after a failure, sizing decompress_grow, and checking LZ4
 * frames before liblz4 decodes them. liblz4 1.9 accepts a match offset of 0
 * (the format calls it corrupt) and then copies output bytes not yet written:
 * on that path such a block decodes to unspecified bytes, never outside the
 * buffers. The walk rejects it, so decompress_grow and frames return CORRUPT.
 *
 * Contexts: the block compressor state (LZ4_sizeofState bytes) and, only when
 * a frame turns up, an LZ4F decompression context; both come from basalt's
 * allocator and are reused. Block decompression needs no state. */
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include <lz4.h>
#define LZ4F_STATIC_LINKING_ONLY /* LZ4F_CustomMem, LZ4F_create*_advanced */
#include <lz4frame.h>

#include "codec_internal.h"

/* ------------------------------------------------------------ bare blocks */

/* Decoded length of an LZ4 block, found by walking its sequences without
 * writing: false if the sequences do not form a block (lengths running past
 * the input, a block ending in a match, an offset of 0 or one reaching before
 * the `history` bytes of earlier output a linked frame block may refer to). */
static bool lz4_block_length(const uint8_t *src, size_t n, uint64_t history, uint64_t *out_len)
{
    size_t ip = 0;
    uint64_t op = 0;
    for (;;) {
        /* A block ends with a literals-only sequence, never after a match. */
        if (ip >= n)
            return false;
        uint8_t token = src[ip++];
        uint64_t lit = token >> 4;
        if (lit == 15) {
            uint8_t b;
            do {
                if (ip >= n)
                    return false;
                b = src[ip++];
                lit += b;
            } while (b == 255);
        }
        if (lit > n - ip)
            return false;
        ip += (size_t)lit;
        op += lit;
        if (ip == n)
            break;
        if (n - ip < 2)
            return false;
        uint64_t offset = (uint64_t)src[ip] | (uint64_t)src[ip + 1] << 8;
        ip += 2;
        if (offset == 0 || offset > op + history)
            return false;
        uint64_t match = (token & 15u) + 4u;
        if ((token & 15u) == 15u) {
            uint8_t b;
            do {
                if (ip >= n)
                    return false;
                b = src[ip++];
                match += b;
            } while (b == 255);
        }
        op += match;
    }
    *out_len = op;
    return true;
}

/* LZ4_decompress_safe with the sizes clamped to its int arguments; -1 on any
 * failure. */
static int64_t block_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap)
{
    if (n > INT_MAX)
        return -1;
    int r = LZ4_decompress_safe((const char *)src, (char *)dst, (int)n,
                                cap > INT_MAX ? INT_MAX : (int)cap);
    return r < 0 ? -1 : r;
}

static basalt_status block_encode(struct basalt_codec *codec, const uint8_t *src, size_t src_len,
                                  uint8_t *dst, size_t dst_cap, size_t *out_len,
                                  struct basalt_error *err)
{
    const char *name = basalt_codec_name(codec->kind);
    if (src_len > LZ4_MAX_INPUT_SIZE)
        return basalt_error_set(err, BASALT_LIMIT, "%s: block of %zu bytes exceeds LZ4's maximum",
                                name, src_len);
    if (!codec->cctx) {
        /* malloc alignment covers the 8 bytes the state needs. */
        codec->cctx = basalt_malloc((size_t)LZ4_sizeofState());
        if (!codec->cctx)
            return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory creating a context",
                                    name);
        codec->contexts_created++;
    }
    int cap = dst_cap > INT_MAX ? INT_MAX : (int)dst_cap;
    int r = LZ4_compress_fast_extState(codec->cctx, (const char *)src, (char *)dst, (int)src_len,
                                       cap, 1);
    if (r <= 0)
        return basalt_codec_output_limit(err, codec, dst_cap);
    *out_len = (size_t)r;
    return BASALT_OK;
}

static basalt_status raw_decode(struct basalt_codec *codec, const uint8_t *src, size_t src_len,
                                uint8_t *dst, size_t dst_cap, size_t *out_len,
                                struct basalt_error *err)
{
    int64_t r = block_decode(src, src_len, dst, dst_cap);
    if (r >= 0) {
        *out_len = (size_t)r;
        return BASALT_OK;
    }
    uint64_t need;
    if (lz4_block_length(src, src_len, 0, &need) && need > dst_cap)
        return basalt_codec_output_limit(err, codec, dst_cap);
    return basalt_error_set(err, BASALT_CORRUPT, "lz4_raw: invalid block");
}

/* Exactly the walked size is reserved and decoded. */
static basalt_status raw_decode_grow(struct basalt_codec *codec, const uint8_t *src,
                                     size_t src_len, struct basalt_buffer *out, size_t limit,
                                     struct basalt_error *err)
{
    uint64_t need;
    if (!lz4_block_length(src, src_len, 0, &need))
        return basalt_error_set(err, BASALT_CORRUPT, "lz4_raw: invalid block");
    if (need > limit - out->size)
        return basalt_codec_output_limit(err, codec, limit);
    basalt_status st = basalt_buffer_reserve(out, need ? (size_t)need : 1, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "lz4_raw");
    if (block_decode(src, src_len, out->data + out->size, (size_t)need) != (int64_t)need)
        return basalt_error_set(err, BASALT_CORRUPT, "lz4_raw: invalid block");
    out->size += (size_t)need;
    return BASALT_OK;
}

static size_t raw_bound(const struct basalt_codec *codec, size_t src_len)
{
    (void)codec;
    if (src_len > LZ4_MAX_INPUT_SIZE)
        return SIZE_MAX;
    return (size_t)LZ4_compressBound((int)src_len);
}

/* ---------------------------------------------------------- Hadoop framing */

static uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* Decodes one Hadoop size group at src[*ip..n): the announced size, then
 * blocks until their outputs add up to it, into dst[0..room). False if the
 * group is malformed, a block fails, or the output would pass `room`. With
 * `strict`, each block is walked first and decoded into exactly its size. */
static bool hadoop_group(const uint8_t *src, size_t n, size_t *ip, uint8_t *dst, size_t room,
                         bool strict, size_t *produced)
{
    size_t p = *ip;
    if (n - p < 8)
        return false;
    size_t expect = load_be32(src + p);
    p += 4;
    if (expect > room)
        return false;
    size_t op = 0;
    do {
        if (n - p < 4)
            return false;
        uint32_t clen = load_be32(src + p);
        p += 4;
        if (clen > n - p)
            return false;
        size_t block_room = expect - op;
        if (strict) {
            uint64_t walked;
            if (!lz4_block_length(src + p, clen, 0, &walked) || walked > block_room)
                return false;
            block_room = (size_t)walked;
        }
        int64_t r = block_decode(src + p, clen, dst + op, block_room);
        if (r < 0 || (strict && (size_t)r != block_room))
            return false;
        p += clen;
        op += (size_t)r;
    } while (op < expect);
    *ip = p;
    *produced = op;
    return true;
}

/* Decodes src as Hadoop framing into dst[0..cap); false unless every byte
 * belongs to a group that decodes and fits. */
static bool hadoop_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out_len)
{
    size_t ip = 0, op = 0;
    while (ip < n) {
        size_t got;
        if (!hadoop_group(src, n, &ip, dst + op, cap - op, false, &got))
            return false;
        op += got;
    }
    *out_len = op;
    return true;
}

/* hadoop_decode into a growing buffer, group by group, reserving each
 * group's announced size when the rest of the input could produce it (an LZ4
 * byte yields at most 255 bytes), and walking every block. False, with
 * out->size unchanged, if it is not Hadoop framing that fits under `limit`;
 * *alloc tells an allocation failure apart. */
static bool hadoop_decode_grow_raw(const uint8_t *src, size_t n, struct basalt_buffer *out,
                                   size_t limit, basalt_status *alloc, struct basalt_error *err)
{
    size_t ip = 0, base = out->size;
    *alloc = BASALT_OK;
    while (ip < n) {
        if (n - ip < 8)
            break;
        size_t expect = load_be32(src + ip);
        if (expect > limit - out->size || expect / 256 > n - ip)
            break;
        *alloc = basalt_buffer_reserve(out, expect ? expect : 1, err);
        size_t got;
        if (*alloc != BASALT_OK ||
            !hadoop_group(src, n, &ip, out->data + out->size, expect, true, &got))
            break;
        out->size += got;
    }
    if (ip == n)
        return true;
    out->size = base;
    return false;
}

/* Output length of src read as Hadoop framing, from the headers and the
 * blocks' walks; false if it is not Hadoop framing. Only classifies failures. */
static bool hadoop_length(const uint8_t *src, size_t n, uint64_t *total)
{
    size_t ip = 0;
    uint64_t sum = 0;
    while (ip < n) {
        if (n - ip < 8)
            return false;
        uint64_t left = load_be32(src + ip);
        sum += left;
        ip += 4;
        do {
            if (n - ip < 4)
                return false;
            uint32_t clen = load_be32(src + ip);
            ip += 4;
            uint64_t got;
            if (clen > n - ip || !lz4_block_length(src + ip, clen, 0, &got) || got > left)
                return false;
            ip += clen;
            left -= got;
        } while (left > 0);
    }
    *total = sum;
    return true;
}

static basalt_status hadoop_encode(struct basalt_codec *codec, const uint8_t *src,
                                   size_t src_len, uint8_t *dst, size_t dst_cap, size_t *out_len,
                                   struct basalt_error *err)
{
    size_t ip = 0, op = 0;
    do {
        size_t chunk = src_len - ip;
        if (chunk > BASALT_CODEC_LZ4_HADOOP_BLOCK)
            chunk = BASALT_CODEC_LZ4_HADOOP_BLOCK;
        if (dst_cap - op < 8)
            return basalt_codec_output_limit(err, codec, dst_cap);
        size_t clen = 0;
        basalt_status st = block_encode(codec, src + ip, chunk, dst + op + 8, dst_cap - op - 8,
                                        &clen, err);
        if (st == BASALT_LIMIT)
            return basalt_codec_output_limit(err, codec, dst_cap);
        if (st != BASALT_OK)
            return st;
        store_be32(dst + op, (uint32_t)chunk);
        store_be32(dst + op + 4, (uint32_t)clen);
        op += 8 + clen;
        ip += chunk;
    } while (ip < src_len);
    *out_len = op;
    return BASALT_OK;
}

static size_t hadoop_bound(const struct basalt_codec *codec, size_t src_len)
{
    (void)codec;
    const size_t block = BASALT_CODEC_LZ4_HADOOP_BLOCK;
    size_t full = src_len / block, rest = src_len % block;
    size_t per_full = 8 + (size_t)LZ4_compressBound((int)block);
    if (full > (SIZE_MAX - 64) / per_full - 1)
        return SIZE_MAX;
    size_t bound = full * per_full;
    if (rest || full == 0)
        bound += 8 + (size_t)LZ4_compressBound((int)rest);
    return bound;
}

/* ------------------------------------------------------------ LZ4 frames */

static uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static bool is_skippable(uint32_t magic)
{
    return (magic & 0xFFFFFFF0u) == 0x184D2A50u;
}

static bool is_frame(const uint8_t *src, size_t n)
{
    if (n < 4)
        return false;
    uint32_t magic = load_le32(src);
    return magic == 0x184D2204u || is_skippable(magic);
}

/* Walks the frames' structure and every compressed block in them before
 * liblz4 decodes anything (see the top of this file). Headers, checksums and
 * content sizes are left to liblz4. False if the frames do not parse. */
static bool frames_valid(const uint8_t *src, size_t n)
{
    size_t ip = 0;
    while (ip < n) {
        if (n - ip < 8)
            return false;
        uint32_t magic = load_le32(src + ip);
        if (is_skippable(magic)) {
            uint32_t size = load_le32(src + ip + 4);
            ip += 8;
            if (size > n - ip)
                return false;
            ip += size;
            continue;
        }
        if (magic != 0x184D2204u)
            return false;
        ip += 4;
        uint8_t flg = src[ip];
        size_t header = 3 + ((flg & 0x08) ? 8 : 0) + ((flg & 0x01) ? 4 : 0);
        if (n - ip < header)
            return false;
        ip += header;
        bool linked = !(flg & 0x20), block_checksums = flg & 0x10, content_checksum = flg & 0x04;
        uint64_t produced = 0;
        for (;;) {
            if (n - ip < 4)
                return false;
            uint32_t word = load_le32(src + ip);
            ip += 4;
            if (word == 0)
                break; /* end mark */
            uint32_t size = word & 0x7FFFFFFFu;
            if (size > n - ip)
                return false;
            uint64_t got = size; /* the high bit marks a stored block */
            if (!(word & 0x80000000u) &&
                !lz4_block_length(src + ip, size, linked ? produced : 0, &got))
                return false;
            produced += got;
            ip += size;
            if (block_checksums) {
                if (n - ip < 4)
                    return false;
                ip += 4;
            }
        }
        if (content_checksum) {
            if (n - ip < 4)
                return false;
            ip += 4;
        }
    }
    return true;
}

static void *lz4f_alloc(void *opaque, size_t size)
{
    (void)opaque;
    return basalt_malloc(size);
}

static void *lz4f_calloc(void *opaque, size_t size)
{
    (void)opaque;
    return basalt_calloc(1, size);
}

static void lz4f_free(void *opaque, void *address)
{
    (void)opaque;
    basalt_free(address);
}

static basalt_status get_frame_dctx(struct basalt_codec *codec, LZ4F_dctx **out,
                                    struct basalt_error *err)
{
    if (!codec->dctx) {
        const LZ4F_CustomMem mem = {lz4f_alloc, lz4f_calloc, lz4f_free, NULL};
        codec->dctx = LZ4F_createDecompressionContext_advanced(mem, LZ4F_VERSION);
        if (!codec->dctx)
            return basalt_error_set(err, BASALT_NOMEM, "lz4_hadoop: out of memory creating a "
                                                       "frame context");
        codec->contexts_created++;
    } else {
        LZ4F_resetDecompressionContext(codec->dctx);
    }
    *out = codec->dctx;
    return BASALT_OK;
}

static basalt_status frame_fail(size_t code, struct basalt_error *err)
{
    if (LZ4F_getErrorCode(code) == LZ4F_ERROR_allocation_failed)
        return basalt_error_set(err, BASALT_NOMEM, "lz4_hadoop: out of memory in an LZ4 frame");
    return basalt_error_set(err, BASALT_CORRUPT, "lz4_hadoop: LZ4 frame: %s",
                            LZ4F_getErrorName(code));
}

/* One LZ4F_decompress call over src[*ip..n) into dst[0..room). */
enum frame_step { FRAME_MORE, FRAME_DONE, FRAME_STUCK, FRAME_FAILED };

static enum frame_step frame_step(LZ4F_dctx *d, const uint8_t *src, size_t n, size_t *ip,
                                  uint8_t *dst, size_t room, size_t *produced,
                                  basalt_status *status, struct basalt_error *err)
{
    size_t in_len = n - *ip, out_len = room;
    size_t hint = LZ4F_decompress(d, dst, &out_len, src + *ip, &in_len, NULL);
    *produced = 0;
    if (LZ4F_isError(hint)) {
        *status = frame_fail(hint, err);
        return FRAME_FAILED;
    }
    *ip += in_len;
    *produced = out_len;
    /* A hint of 0 ends a frame; more input starts the next one. */
    if (*ip == n && hint == 0) {
        *status = BASALT_OK;
        return FRAME_DONE;
    }
    if (*ip == n && out_len < room) {
        *status = basalt_error_set(err, BASALT_CORRUPT, "lz4_hadoop: truncated LZ4 frame");
        return FRAME_FAILED;
    }
    return in_len == 0 && out_len == 0 ? FRAME_STUCK : FRAME_MORE;
}

/* The decoder stopped with no room left. Feeding it the rest of the input
 * with one byte of room tells a frame that has more to give (LIMIT) from one
 * that ends here (OK) or is cut short (CORRUPT). */
static basalt_status frame_probe(struct basalt_codec *codec, LZ4F_dctx *d, const uint8_t *src,
                                 size_t n, size_t ip, size_t cap, struct basalt_error *err)
{
    for (;;) {
        uint8_t probe;
        size_t in_len = n - ip, out_len = 1;
        size_t hint = LZ4F_decompress(d, &probe, &out_len, src + ip, &in_len, NULL);
        if (LZ4F_isError(hint))
            return frame_fail(hint, err);
        ip += in_len;
        if (out_len == 1)
            return basalt_codec_output_limit(err, codec, cap);
        if (ip == n && hint == 0)
            return BASALT_OK;
        if (in_len == 0)
            return basalt_error_set(err, BASALT_CORRUPT, "lz4_hadoop: truncated LZ4 frame");
    }
}

static basalt_status frame_decode(struct basalt_codec *codec, const uint8_t *src, size_t n,
                                  uint8_t *dst, size_t cap, size_t *out_len,
                                  struct basalt_error *err)
{
    if (!frames_valid(src, n))
        return basalt_error_set(err, BASALT_CORRUPT, "lz4_hadoop: invalid or truncated LZ4 frame");
    LZ4F_dctx *d = NULL;
    basalt_status st = get_frame_dctx(codec, &d, err);
    if (st != BASALT_OK)
        return st;
    size_t ip = 0, op = 0;
    for (;;) {
        size_t produced = 0;
        enum frame_step step =
            frame_step(d, src, n, &ip, dst + op, cap - op, &produced, &st, err);
        op += produced;
        switch (step) {
        case FRAME_DONE:
            *out_len = op;
            return BASALT_OK;
        case FRAME_FAILED:
            return st;
        case FRAME_STUCK:
            if (op == cap) {
                st = frame_probe(codec, d, src, n, ip, cap, err);
                if (st == BASALT_OK)
                    *out_len = op;
                return st;
            }
            return basalt_error_set(err, BASALT_CORRUPT, "lz4_hadoop: LZ4 frame decoder stalled");
        case FRAME_MORE:
            break;
        }
    }
}

static basalt_status frame_decode_grow(struct basalt_codec *codec, const uint8_t *src, size_t n,
                                       struct basalt_buffer *out, size_t limit,
                                       struct basalt_error *err)
{
    if (!frames_valid(src, n))
        return basalt_error_set(err, BASALT_CORRUPT, "lz4_hadoop: invalid or truncated LZ4 frame");
    LZ4F_dctx *d = NULL;
    basalt_status st = get_frame_dctx(codec, &d, err);
    if (st != BASALT_OK)
        return st;
    size_t ip = 0;
    for (;;) {
        size_t room;
        if (out->size == limit)
            return frame_probe(codec, d, src, n, ip, limit, err);
        st = basalt_codec_grow_room(out, limit, n * 4, "lz4_hadoop", &room, err);
        if (st != BASALT_OK)
            return st;
        size_t produced = 0;
        enum frame_step step =
            frame_step(d, src, n, &ip, out->data + out->size, room, &produced, &st, err);
        out->size += produced;
        if (step == FRAME_DONE || step == FRAME_FAILED)
            return st;
        if (step == FRAME_STUCK)
            return basalt_error_set(err, BASALT_CORRUPT, "lz4_hadoop: LZ4 frame decoder stalled");
    }
}

/* ------------------------------------------------------------ LZ4_HADOOP */

/* LIMIT when either sized shape would decode to more than `room`. */
static basalt_status hadoop_failure(const uint8_t *src, size_t n, size_t room,
                                    struct basalt_error *err)
{
    uint64_t need;
    if ((hadoop_length(src, n, &need) && need > room) ||
        (lz4_block_length(src, n, 0, &need) && need > room))
        return basalt_error_set(err, BASALT_LIMIT,
                                "lz4_hadoop: output of %llu bytes exceeds the limit of %zu bytes",
                                (unsigned long long)need, room);
    return basalt_error_set(err, BASALT_CORRUPT, "lz4_hadoop: neither Hadoop-framed LZ4, an LZ4 "
                                                 "block nor an LZ4 frame");
}

static basalt_status hadoop_decode_any(struct basalt_codec *codec, const uint8_t *src,
                                       size_t src_len, uint8_t *dst, size_t dst_cap,
                                       size_t *out_len, struct basalt_error *err)
{
    if (hadoop_decode(src, src_len, dst, dst_cap, out_len))
        return BASALT_OK;
    if (is_frame(src, src_len))
        return frame_decode(codec, src, src_len, dst, dst_cap, out_len, err);
    int64_t r = block_decode(src, src_len, dst, dst_cap);
    if (r >= 0) {
        *out_len = (size_t)r;
        return BASALT_OK;
    }
    return hadoop_failure(src, src_len, dst_cap, err);
}

/* The same order as hadoop_decode_any, with the room left under `limit`. */
static basalt_status hadoop_decode_grow(struct basalt_codec *codec, const uint8_t *src,
                                        size_t src_len, struct basalt_buffer *out, size_t limit,
                                        struct basalt_error *err)
{
    basalt_status st;
    if (hadoop_decode_grow_raw(src, src_len, out, limit, &st, err))
        return BASALT_OK;
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "lz4_hadoop");
    if (is_frame(src, src_len))
        return frame_decode_grow(codec, src, src_len, out, limit, err);
    uint64_t need;
    if (lz4_block_length(src, src_len, 0, &need) && need <= limit - out->size) {
        st = basalt_buffer_reserve(out, need ? (size_t)need : 1, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "lz4_hadoop");
        if (block_decode(src, src_len, out->data + out->size, (size_t)need) == (int64_t)need) {
            out->size += (size_t)need;
            return BASALT_OK;
        }
    }
    return hadoop_failure(src, src_len, limit - out->size, err);
}

static void lz4_release(struct basalt_codec *codec)
{
    basalt_free(codec->cctx);
    LZ4F_freeDecompressionContext(codec->dctx);
    codec->cctx = codec->dctx = NULL;
}

/* ------------------------------------------------------------ LZ4_FRAME */

/* The frame decoder above names itself lz4_hadoop (it serves that codec's
 * third shape); errors reached through LZ4_FRAME are renamed. */
static basalt_status frame_rename(basalt_status st, struct basalt_error *err)
{
    static const char old[] = "lz4_hadoop: ";
    if (st != BASALT_OK && err && strncmp(err->message, old, sizeof old - 1) == 0) {
        char tmp[BASALT_ERROR_MESSAGE_MAX];
        snprintf(tmp, sizeof tmp, "lz4_frame: %s", err->message + sizeof old - 1);
        memcpy(err->message, tmp, sizeof tmp);
    }
    return st;
}

static basalt_status lz4f_decode(struct basalt_codec *codec, const uint8_t *src, size_t src_len,
                                 uint8_t *dst, size_t dst_cap, size_t *out_len,
                                 struct basalt_error *err)
{
    if (!is_frame(src, src_len))
        return basalt_error_set(err, BASALT_CORRUPT, "lz4_frame: no LZ4 frame magic");
    return frame_rename(frame_decode(codec, src, src_len, dst, dst_cap, out_len, err), err);
}

static basalt_status lz4f_decode_grow(struct basalt_codec *codec, const uint8_t *src,
                                      size_t src_len, struct basalt_buffer *out, size_t limit,
                                      struct basalt_error *err)
{
    if (!is_frame(src, src_len))
        return basalt_error_set(err, BASALT_CORRUPT, "lz4_frame: no LZ4 frame magic");
    return frame_rename(frame_decode_grow(codec, src, src_len, out, limit, err), err);
}

/* One frame, content size recorded, no checksums: the shape Arrow IPC
 * writers produce. The frame compression context is created once (from
 * basalt's allocator) and reused. Frames need their whole bound of room, so a
 * smaller destination goes through scratch. */
static basalt_status lz4f_encode(struct basalt_codec *codec, const uint8_t *src, size_t src_len,
                                 uint8_t *dst, size_t dst_cap, size_t *out_len,
                                 struct basalt_error *err)
{
    LZ4F_preferences_t prefs;
    memset(&prefs, 0, sizeof prefs);
    prefs.frameInfo.contentSize = src_len;
    prefs.frameInfo.blockSizeID = LZ4F_max4MB;
    size_t bound = LZ4F_compressFrameBound(src_len, &prefs);
    if (LZ4F_isError(bound))
        return basalt_error_set(err, BASALT_LIMIT, "lz4_frame: input of %zu bytes too large",
                                src_len);
    if (!codec->cctx) {
        const LZ4F_CustomMem mem = {lz4f_alloc, lz4f_calloc, lz4f_free, NULL};
        codec->cctx = LZ4F_createCompressionContext_advanced(mem, LZ4F_VERSION);
        if (!codec->cctx)
            return basalt_error_set(err, BASALT_NOMEM, "lz4_frame: out of memory creating a "
                                                       "context");
        codec->contexts_created++;
    }
    uint8_t *tmp = NULL, *out = dst;
    if (bound > dst_cap) {
        tmp = basalt_malloc(bound);
        if (!tmp)
            return basalt_error_set(err, BASALT_NOMEM, "lz4_frame: out of memory");
        out = tmp;
    }
    size_t r = LZ4F_compressFrame_usingCDict(codec->cctx, out, bound, src, src_len, NULL, &prefs);
    basalt_status st = BASALT_OK;
    if (LZ4F_isError(r))
        st = LZ4F_getErrorCode(r) == LZ4F_ERROR_allocation_failed
                 ? basalt_error_set(err, BASALT_NOMEM, "lz4_frame: out of memory")
                 : basalt_error_set(err, BASALT_INTERNAL, "lz4_frame: %s", LZ4F_getErrorName(r));
    else if (r > dst_cap)
        st = basalt_codec_output_limit(err, codec, dst_cap);
    else if (tmp)
        memcpy(dst, tmp, r);
    basalt_free(tmp);
    if (st == BASALT_OK)
        *out_len = r;
    return st;
}

static void lz4f_release(struct basalt_codec *codec)
{
    LZ4F_freeCompressionContext(codec->cctx);
    LZ4F_freeDecompressionContext(codec->dctx);
    codec->cctx = codec->dctx = NULL;
}

static size_t lz4f_bound(const struct basalt_codec *codec, size_t src_len)
{
    (void)codec;
    LZ4F_preferences_t prefs;
    memset(&prefs, 0, sizeof prefs);
    prefs.frameInfo.contentSize = src_len;
    prefs.frameInfo.blockSizeID = LZ4F_max4MB;
    size_t b = LZ4F_compressFrameBound(src_len, &prefs);
    return LZ4F_isError(b) ? SIZE_MAX : b;
}

const struct basalt_codec_backend basalt_codec_backend_lz4_frame = {
    .compress = lz4f_encode,
    .decompress = lz4f_decode,
    .decompress_grow = lz4f_decode_grow,
    .max_compressed_size = lz4f_bound,
    .release = lz4f_release,
};

const struct basalt_codec_backend basalt_codec_backend_lz4_raw = {
    .compress = block_encode,
    .decompress = raw_decode,
    .decompress_grow = raw_decode_grow,
    .max_compressed_size = raw_bound,
    .release = lz4_release,
};

const struct basalt_codec_backend basalt_codec_backend_lz4_hadoop = {
    .compress = hadoop_encode,
    .decompress = hadoop_decode_any,
    .decompress_grow = hadoop_decode_grow,
    .max_compressed_size = hadoop_bound,
    .release = lz4_release,
};
