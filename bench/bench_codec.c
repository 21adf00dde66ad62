/* Codec throughput and the cost of basalt's wrapper.
 *
 * For every codec of basalt/codec.h: compress and decompress 1 MiB of
 * text-like bytes and 1 MiB of random bytes, once through basalt_codec_* and
 * once through the library it wraps, called directly with its contexts reused
 * the way an expert caller would. The two legs of each pair are one comparison
 * (the harness interleaves their samples), so the ratio basalt / direct is the
 * wrapper's overhead; the project's goal is 1.03 at most. Both legs use the
 * same level and decompress the same compressed bytes; each is checked to
 * round-trip before it is timed. Throughput is counted in uncompressed bytes. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <brotli/decode.h>
#include <brotli/encode.h>
#include <bzlib.h>
#include <libdeflate.h>
#include <lz4.h>
#include <lzma.h>
#include <snappy-c.h>
#include <zstd.h>

#include "basalt/bench.h"
#include "basalt/codec.h"

basalt_status bench_codec_register(struct basalt_bench *bench, struct basalt_error *err);

#define CODEC_INPUT_BYTES ((size_t)1 << 20)
#define CODEC_RATIO_GOAL 1.03
/* Hadoop's Lz4Codec block: its 256 KiB buffer less the worst-case expansion
 * it reserves, as basalt's LZ4_HADOOP writer splits. */
#define CODEC_HADOOP_BLOCK (256u * 1024u - (256u * 1024u / 255u + 16u))
/* The xz decoder's memory limit, as basalt's. */
#define CODEC_XZ_MEMLIMIT ((uint64_t)512 << 20)

enum codec_input { CODEC_TEXT, CODEC_RANDOM, CODEC_INPUTS };
static const char *const codec_input_names[CODEC_INPUTS] = {"text", "random"};

struct codec_leg;

/* The direct calls of one library. */
struct codec_direct {
    enum basalt_codec_kind kind;
    int level;                     /* used by both legs; 0 for codecs without levels */
    const char *library;
    void (*version)(char *buf, size_t size);
    const char *compress_api;
    const char *decompress_api;
    /* Creates the reused contexts in leg->cctx / leg->dctx (NULL: none). */
    bool (*open)(struct codec_leg *leg);
    void (*close)(struct codec_leg *leg);
    size_t (*bound)(size_t n);
    bool (*compress)(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                     size_t cap, size_t *out);
    bool (*decompress)(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                       size_t cap, size_t *out);
};

/* One benchmark: a codec, a direction, an input and a leg. */
struct codec_leg {
    const struct codec_direct *direct;
    enum codec_input input;
    bool decompress;
    bool wrapper;
    /* From setup to teardown: */
    uint8_t *plain;             /* the uncompressed input */
    uint8_t *packed;            /* its compressed form (decompress legs) */
    size_t packed_len;
    uint8_t *dst;
    size_t dst_cap;
    struct basalt_codec *codec; /* the wrapper leg's object */
    void *cctx;                 /* the direct leg's library contexts */
    void *dctx;
};

/* ------------------------------------------------------------------ inputs */

static uint64_t codec_xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

/* Log-like lines of words from a fixed list, integers and decimals. */
static void codec_fill_text(uint8_t *dst, size_t n)
{
    static const char *const words[] = {
        "order",   "customer", "region",  "north",    "south",    "east",     "west",
        "price",   "quantity", "status",  "shipped",  "returned", "pending",  "parquet",
        "iceberg", "snapshot", "column",  "page",     "manifest", "the",      "of",
        "and",     "lakehouse", "basalt", "warehouse", "delivery", "invoice", "priority",
    };
    const size_t nwords = sizeof words / sizeof words[0];
    uint64_t s = UINT64_C(0x9e3779b97f4a7c15);
    size_t pos = 0;
    int tokens = 0;
    char tok[48];
    while (pos < n) {
        uint64_t r = codec_xorshift(&s);
        int len;
        if (r % 4 == 0)
            len = snprintf(tok, sizeof tok, "%u", (unsigned)((r >> 8) % 100000));
        else if (r % 4 == 1)
            len = snprintf(tok, sizeof tok, "%u.%02u", (unsigned)((r >> 8) % 1000),
                           (unsigned)((r >> 24) % 100));
        else
            len = snprintf(tok, sizeof tok, "%s", words[(r >> 8) % nwords]);
        tok[len++] = ++tokens % 12 == 0 ? '\n' : ' ';
        size_t take = (size_t)len < n - pos ? (size_t)len : n - pos;
        memcpy(dst + pos, tok, take);
        pos += take;
    }
}

static void codec_fill_random(uint8_t *dst, size_t n)
{
    uint64_t s = UINT64_C(0x243f6a8885a308d3);
    for (size_t i = 0; i < n; i += 8) {
        uint64_t r = codec_xorshift(&s);
        size_t take = n - i < 8 ? n - i : 8;
        memcpy(dst + i, &r, take);
    }
}

/* ------------------------------------------------------------------ direct calls */

static bool direct_none_open(struct codec_leg *leg)
{
    (void)leg;
    return true;
}

static void direct_none_close(struct codec_leg *leg) { (void)leg; }

/* For libraries with no version call (snappy's C API has none). */
static void direct_no_version(char *buf, size_t size)
{
    if (size)
        buf[0] = '\0';
}

/* uncompressed: memcpy is what a caller does without basalt */
static size_t copy_bound(size_t n) { return n; }
static bool copy_run(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                     size_t cap, size_t *out)
{
    (void)leg;
    if (n > cap)
        return false;
    memcpy(dst, src, n);
    *out = n;
    return true;
}

/* snappy */
static size_t snappy_bound(size_t n) { return snappy_max_compressed_length(n); }
static bool snappy_enc(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                       size_t cap, size_t *out)
{
    (void)leg;
    *out = cap;
    return snappy_compress((const char *)src, n, (char *)dst, out) == SNAPPY_OK;
}
static bool snappy_dec(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                       size_t cap, size_t *out)
{
    (void)leg;
    *out = cap;
    return snappy_uncompress((const char *)src, n, (char *)dst, out) == SNAPPY_OK;
}

/* gzip, zlib, deflate: libdeflate with one compressor and one decompressor */
static void deflate_version(char *buf, size_t size)
{
    snprintf(buf, size, "%s", LIBDEFLATE_VERSION_STRING);
}
static bool deflate_open(struct codec_leg *leg)
{
    leg->cctx = libdeflate_alloc_compressor(leg->direct->level);
    leg->dctx = libdeflate_alloc_decompressor();
    return leg->cctx && leg->dctx;
}
static void deflate_close(struct codec_leg *leg)
{
    libdeflate_free_compressor(leg->cctx);
    libdeflate_free_decompressor(leg->dctx);
}
static size_t deflate_bound(size_t n) { return libdeflate_gzip_compress_bound(NULL, n); }
static bool gzip_enc(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                     size_t cap, size_t *out)
{
    *out = libdeflate_gzip_compress(leg->cctx, src, n, dst, cap);
    return *out != 0;
}
static bool gzip_dec(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                     size_t cap, size_t *out)
{
    return libdeflate_gzip_decompress(leg->dctx, src, n, dst, cap, out) == LIBDEFLATE_SUCCESS;
}
static bool zlib_enc(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                     size_t cap, size_t *out)
{
    *out = libdeflate_zlib_compress(leg->cctx, src, n, dst, cap);
    return *out != 0;
}
static bool zlib_dec(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                     size_t cap, size_t *out)
{
    return libdeflate_zlib_decompress(leg->dctx, src, n, dst, cap, out) == LIBDEFLATE_SUCCESS;
}
static bool raw_deflate_enc(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                            size_t cap, size_t *out)
{
    *out = libdeflate_deflate_compress(leg->cctx, src, n, dst, cap);
    return *out != 0;
}
static bool raw_deflate_dec(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                            size_t cap, size_t *out)
{
    return libdeflate_deflate_decompress(leg->dctx, src, n, dst, cap, out) == LIBDEFLATE_SUCCESS;
}

/* zstd: one ZSTD_CCtx and one ZSTD_DCtx */
static void zstd_version(char *buf, size_t size) { snprintf(buf, size, "%s", ZSTD_versionString()); }
static bool zstd_open(struct codec_leg *leg)
{
    leg->cctx = ZSTD_createCCtx();
    leg->dctx = ZSTD_createDCtx();
    return leg->cctx && leg->dctx;
}
static void zstd_close(struct codec_leg *leg)
{
    ZSTD_freeCCtx(leg->cctx);
    ZSTD_freeDCtx(leg->dctx);
}
static size_t zstd_bound(size_t n) { return ZSTD_compressBound(n); }
static bool zstd_enc(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                     size_t cap, size_t *out)
{
    *out = ZSTD_compressCCtx(leg->cctx, dst, cap, src, n, leg->direct->level);
    return !ZSTD_isError(*out);
}
static bool zstd_dec(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                     size_t cap, size_t *out)
{
    *out = ZSTD_decompressDCtx(leg->dctx, dst, cap, src, n);
    return !ZSTD_isError(*out);
}

/* lz4: bare blocks, and Hadoop's framing around them */
static void lz4_version(char *buf, size_t size) { snprintf(buf, size, "%s", LZ4_versionString()); }
static size_t lz4_bound(size_t n) { return (size_t)LZ4_compressBound((int)n); }
static bool lz4_enc(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                    size_t cap, size_t *out)
{
    (void)leg;
    int r = LZ4_compress_default((const char *)src, (char *)dst, (int)n,
                                 cap > INT32_MAX ? INT32_MAX : (int)cap);
    *out = r > 0 ? (size_t)r : 0;
    return r > 0;
}
static bool lz4_dec(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                    size_t cap, size_t *out)
{
    (void)leg;
    int r = LZ4_decompress_safe((const char *)src, (char *)dst, (int)n,
                                cap > INT32_MAX ? INT32_MAX : (int)cap);
    *out = r >= 0 ? (size_t)r : 0;
    return r >= 0;
}
static void be32_store(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static uint32_t be32_load(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static size_t hadoop_bound(size_t n)
{
    size_t blocks = n / CODEC_HADOOP_BLOCK + 1;
    return blocks * (8 + (size_t)LZ4_compressBound(CODEC_HADOOP_BLOCK));
}
static bool hadoop_enc(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                       size_t cap, size_t *out)
{
    size_t ip = 0, op = 0;
    do {
        size_t chunk = n - ip < CODEC_HADOOP_BLOCK ? n - ip : CODEC_HADOOP_BLOCK;
        size_t clen;
        if (cap - op < 8 || !lz4_enc(leg, src + ip, chunk, dst + op + 8, cap - op - 8, &clen))
            return false;
        be32_store(dst + op, (uint32_t)chunk);
        be32_store(dst + op + 4, (uint32_t)clen);
        op += 8 + clen;
        ip += chunk;
    } while (ip < n);
    *out = op;
    return true;
}
static bool hadoop_dec(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                       size_t cap, size_t *out)
{
    (void)leg;
    size_t ip = 0, op = 0;
    while (ip < n) {
        if (n - ip < 8)
            return false;
        uint32_t ulen = be32_load(src + ip), clen = be32_load(src + ip + 4);
        ip += 8;
        if (clen > n - ip || ulen > cap - op)
            return false;
        int r = LZ4_decompress_safe((const char *)src + ip, (char *)dst + op, (int)clen,
                                    (int)ulen);
        if (r != (int)ulen)
            return false;
        ip += clen;
        op += ulen;
    }
    *out = op;
    return true;
}

/* brotli: the one-shot calls */
static void brotli_version(char *buf, size_t size)
{
    uint32_t v = BrotliDecoderVersion();
    snprintf(buf, size, "%u.%u.%u", v >> 24, (v >> 12) & 0xfff, v & 0xfff);
}
static size_t brotli_bound(size_t n) { return BrotliEncoderMaxCompressedSize(n); }
static bool brotli_enc(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                       size_t cap, size_t *out)
{
    *out = cap;
    return BrotliEncoderCompress(leg->direct->level, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC,
                                 n, src, out, dst) == BROTLI_TRUE;
}
static bool brotli_dec(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                       size_t cap, size_t *out)
{
    (void)leg;
    *out = cap;
    return BrotliDecoderDecompress(n, src, out, dst) == BROTLI_DECODER_RESULT_SUCCESS;
}

/* bzip2: the buffer-to-buffer calls (they take non-const pointers) */
static void bzip2_version(char *buf, size_t size)
{
    const char *v = BZ2_bzlibVersion();
    size_t len = strcspn(v, ",");
    snprintf(buf, size, "%.*s", (int)len, v);
}
static size_t bzip2_bound(size_t n) { return n + n / 100 + 600; }
static bool bzip2_enc(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                      size_t cap, size_t *out)
{
    unsigned int len = cap > UINT32_MAX ? UINT32_MAX : (unsigned int)cap;
    int r = BZ2_bzBuffToBuffCompress((char *)dst, &len, (char *)(uintptr_t)src, (unsigned int)n,
                                     leg->direct->level, 0, 0);
    *out = len;
    return r == BZ_OK;
}
static bool bzip2_dec(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                      size_t cap, size_t *out)
{
    (void)leg;
    unsigned int len = cap > UINT32_MAX ? UINT32_MAX : (unsigned int)cap;
    int r = BZ2_bzBuffToBuffDecompress((char *)dst, &len, (char *)(uintptr_t)src, (unsigned int)n,
                                       0, 0);
    *out = len;
    return r == BZ_OK;
}

/* xz: the single-call .xz encoder and decoder */
static void xz_version(char *buf, size_t size) { snprintf(buf, size, "%s", lzma_version_string()); }
static size_t xz_bound(size_t n) { return lzma_stream_buffer_bound(n); }
static bool xz_enc(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                   size_t cap, size_t *out)
{
    *out = 0;
    return lzma_easy_buffer_encode((uint32_t)leg->direct->level, LZMA_CHECK_CRC64, NULL, src, n,
                                   dst, out, cap) == LZMA_OK;
}
static bool xz_dec(struct codec_leg *leg, const uint8_t *src, size_t n, uint8_t *dst,
                   size_t cap, size_t *out)
{
    (void)leg;
    uint64_t memlimit = CODEC_XZ_MEMLIMIT;
    size_t in_pos = 0;
    *out = 0;
    return lzma_stream_buffer_decode(&memlimit, 0, NULL, src, &in_pos, n, dst, out, cap) ==
           LZMA_OK;
}

#define CODEC_NO_CONTEXTS direct_none_open, direct_none_close

static const struct codec_direct codec_directs[] = {
    {BASALT_CODEC_UNCOMPRESSED, 0, "libc", direct_no_version, "memcpy", "memcpy", CODEC_NO_CONTEXTS,
     copy_bound, copy_run, copy_run},
    {BASALT_CODEC_SNAPPY, 0, "libsnappy", direct_no_version, "snappy_compress", "snappy_uncompress",
     CODEC_NO_CONTEXTS, snappy_bound, snappy_enc, snappy_dec},
    {BASALT_CODEC_GZIP, 6, "libdeflate", deflate_version, "libdeflate_gzip_compress",
     "libdeflate_gzip_decompress", deflate_open, deflate_close, deflate_bound, gzip_enc, gzip_dec},
    {BASALT_CODEC_ZLIB, 6, "libdeflate", deflate_version, "libdeflate_zlib_compress",
     "libdeflate_zlib_decompress", deflate_open, deflate_close, deflate_bound, zlib_enc, zlib_dec},
    {BASALT_CODEC_DEFLATE, 6, "libdeflate", deflate_version, "libdeflate_deflate_compress",
     "libdeflate_deflate_decompress", deflate_open, deflate_close, deflate_bound, raw_deflate_enc,
     raw_deflate_dec},
    {BASALT_CODEC_ZSTD, 3, "libzstd", zstd_version, "ZSTD_compressCCtx", "ZSTD_decompressDCtx",
     zstd_open, zstd_close, zstd_bound, zstd_enc, zstd_dec},
    {BASALT_CODEC_LZ4_RAW, 0, "liblz4", lz4_version, "LZ4_compress_default",
     "LZ4_decompress_safe", CODEC_NO_CONTEXTS, lz4_bound, lz4_enc, lz4_dec},
    {BASALT_CODEC_LZ4_HADOOP, 0, "liblz4", lz4_version, "LZ4_compress_default+Hadoop framing",
     "LZ4_decompress_safe+Hadoop framing", CODEC_NO_CONTEXTS, hadoop_bound, hadoop_enc,
     hadoop_dec},
    {BASALT_CODEC_BROTLI, 8, "libbrotli", brotli_version, "BrotliEncoderCompress",
     "BrotliDecoderDecompress", CODEC_NO_CONTEXTS, brotli_bound, brotli_enc, brotli_dec},
    {BASALT_CODEC_BZIP2, 9, "libbz2", bzip2_version, "BZ2_bzBuffToBuffCompress",
     "BZ2_bzBuffToBuffDecompress", CODEC_NO_CONTEXTS, bzip2_bound, bzip2_enc, bzip2_dec},
    {BASALT_CODEC_XZ, 6, "liblzma", xz_version, "lzma_easy_buffer_encode",
     "lzma_stream_buffer_decode", CODEC_NO_CONTEXTS, xz_bound, xz_enc, xz_dec},
};

/* ------------------------------------------------------------------ legs */

static void codec_teardown(void *ctx)
{
    struct codec_leg *leg = ctx;
    if (leg->cctx || leg->dctx)
        leg->direct->close(leg);
    leg->cctx = leg->dctx = NULL;
    basalt_codec_free(leg->codec);
    leg->codec = NULL;
    basalt_free(leg->plain);
    basalt_free(leg->packed);
    basalt_free(leg->dst);
    leg->plain = leg->packed = leg->dst = NULL;
}

static basalt_status codec_setup(void *ctx, struct basalt_error *err)
{
    struct codec_leg *leg = ctx;
    const struct codec_direct *d = leg->direct;
    const char *name = basalt_codec_name(d->kind);
    const size_t n = CODEC_INPUT_BYTES;
    basalt_status st = basalt_codec_new(d->kind, d->level ? d->level : BASALT_CODEC_LEVEL_DEFAULT,
                                        &leg->codec, err);
    if (st != BASALT_OK)
        return st;
    size_t bound = d->bound(n);
    size_t wbound = basalt_codec_max_compressed_size(leg->codec, n);
    if (wbound > bound)
        bound = wbound;
    leg->plain = basalt_malloc(n);
    leg->packed = basalt_malloc(bound);
    leg->dst = basalt_malloc(bound);
    if (!leg->plain || !leg->packed || !leg->dst) {
        codec_teardown(leg);
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory", name);
    }
    if (!d->open(leg)) {
        codec_teardown(leg);
        return basalt_error_set(err, BASALT_NOMEM, "%s: could not create library contexts", name);
    }
    if (leg->input == CODEC_TEXT)
        codec_fill_text(leg->plain, n);
    else
        codec_fill_random(leg->plain, n);

    /* Both legs of a decompression pair decode what the library itself wrote. */
    if (!d->compress(leg, leg->plain, n, leg->packed, bound, &leg->packed_len)) {
        codec_teardown(leg);
        return basalt_error_set(err, BASALT_INTERNAL, "%s: %s failed", name, d->compress_api);
    }
    leg->dst_cap = leg->decompress ? n : bound;

    /* The timed call, once, checked: its output must round-trip. */
    size_t got = 0;
    bool ok;
    if (leg->decompress) {
        if (leg->wrapper)
            ok = basalt_codec_decompress(leg->codec, leg->packed, leg->packed_len, leg->dst,
                                         leg->dst_cap, &got, err) == BASALT_OK;
        else
            ok = d->decompress(leg, leg->packed, leg->packed_len, leg->dst, leg->dst_cap, &got);
        ok = ok && got == n && memcmp(leg->dst, leg->plain, n) == 0;
    } else {
        if (leg->wrapper)
            ok = basalt_codec_compress(leg->codec, leg->plain, n, leg->dst, leg->dst_cap, &got,
                                       err) == BASALT_OK;
        else
            ok = d->compress(leg, leg->plain, n, leg->dst, leg->dst_cap, &got);
        /* Decoded by the other side: basalt's output by the library, and the
         * library's by basalt. */
        size_t back = 0;
        if (ok && leg->wrapper)
            ok = d->decompress(leg, leg->dst, got, leg->packed, bound, &back);
        else if (ok)
            ok = basalt_codec_decompress(leg->codec, leg->dst, got, leg->packed, bound, &back,
                                         err) == BASALT_OK;
        ok = ok && back == n && memcmp(leg->packed, leg->plain, n) == 0;
    }
    if (!ok) {
        codec_teardown(leg);
        return basalt_error_set(err, BASALT_INTERNAL, "%s %s %s: output does not round-trip",
                                name, leg->wrapper ? "basalt" : d->library,
                                leg->decompress ? "decompress" : "compress");
    }
    return BASALT_OK;
}

static basalt_status codec_run_basalt_decompress(void *ctx, uint64_t iters,
                                                 struct basalt_error *err)
{
    struct codec_leg *leg = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        size_t got;
        basalt_status st = basalt_codec_decompress(leg->codec, leg->packed, leg->packed_len,
                                                   leg->dst, leg->dst_cap, &got, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static basalt_status codec_run_basalt_compress(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct codec_leg *leg = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        size_t got;
        basalt_status st = basalt_codec_compress(leg->codec, leg->plain, CODEC_INPUT_BYTES,
                                                 leg->dst, leg->dst_cap, &got, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static basalt_status codec_run_direct_decompress(void *ctx, uint64_t iters,
                                                 struct basalt_error *err)
{
    struct codec_leg *leg = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        size_t got;
        if (!leg->direct->decompress(leg, leg->packed, leg->packed_len, leg->dst, leg->dst_cap,
                                     &got))
            return basalt_error_set(err, BASALT_INTERNAL, "%s failed",
                                    leg->direct->decompress_api);
    }
    return BASALT_OK;
}

static basalt_status codec_run_direct_compress(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct codec_leg *leg = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        size_t got;
        if (!leg->direct->compress(leg, leg->plain, CODEC_INPUT_BYTES, leg->dst, leg->dst_cap,
                                   &got))
            return basalt_error_set(err, BASALT_INTERNAL, "%s failed", leg->direct->compress_api);
    }
    return BASALT_OK;
}

static void codec_release(void *ctx) { basalt_free(ctx); }

static basalt_status codec_add_leg(struct basalt_bench *bench, const struct codec_direct *d,
                                   bool decompress, enum codec_input input, bool wrapper,
                                   struct basalt_error *err)
{
    struct codec_leg *leg = basalt_calloc(1, sizeof *leg);
    if (!leg)
        return basalt_error_set(err, BASALT_NOMEM, "codec benchmarks: out of memory");
    leg->direct = d;
    leg->decompress = decompress;
    leg->input = input;
    leg->wrapper = wrapper;

    const char *codec = basalt_codec_name(d->kind);
    const char *op = decompress ? "decompress" : "compress";
    char group[96], name[128], peer[160], version[48], level[24] = "";
    snprintf(group, sizeof group, "codec/%s/%s/%s", codec, op, codec_input_names[input]);
    snprintf(name, sizeof name, "%s/%s", group, wrapper ? "basalt" : "direct");
    if (d->level && !decompress)
        snprintf(level, sizeof level, " level %d", d->level);
    d->version(version, sizeof version);
    if (wrapper)
        snprintf(peer, sizeof peer, "basalt_codec_%s%s", op, level);
    else
        snprintf(peer, sizeof peer, "%s%s%s %s%s", d->library, version[0] ? " " : "", version,
                 decompress ? d->decompress_api : d->compress_api, level);
    basalt_bench_fn run = wrapper ? (decompress ? codec_run_basalt_decompress
                                                : codec_run_basalt_compress)
                                  : (decompress ? codec_run_direct_decompress
                                                : codec_run_direct_compress);
    const struct basalt_bench_case c = {
        .name = name,
        .group = group,
        .peer = peer,
        .run = run,
        .setup = codec_setup,
        .teardown = codec_teardown,
        .release = codec_release,
        .ctx = leg,
        .bytes_per_iter = (double)CODEC_INPUT_BYTES,
        .threads = 1,
        .ratio_max = wrapper ? CODEC_RATIO_GOAL : 0.0,
    };
    return basalt_bench_add(bench, &c, err);
}

basalt_status bench_codec_register(struct basalt_bench *bench, struct basalt_error *err)
{
    for (size_t i = 0; i < sizeof codec_directs / sizeof codec_directs[0]; i++) {
        for (int dir = 0; dir < 2; dir++) {
            for (int in = 0; in < CODEC_INPUTS; in++) {
                /* The library first: it is the comparison's baseline. */
                for (int wrapper = 0; wrapper < 2; wrapper++) {
                    basalt_status st = codec_add_leg(bench, &codec_directs[i], dir == 0,
                                                     (enum codec_input)in, wrapper == 1, err);
                    if (st != BASALT_OK)
                        return st;
                }
            }
        }
    }
    return BASALT_OK;
}
