/* Parquet encoding kernels: decode throughput of bit unpacking, RLE levels,
 * dictionary gathers, PLAIN byte arrays, DELTA_BINARY_PACKED and
 * BYTE_STREAM_SPLIT. Inputs are generated once (fixed seed) in setup and
 * encoded by the library's encoders; each iteration decodes a whole page of
 * BENCH_VALUES values into buffers that stay allocated between iterations. */
#include "../src/parquet/parquet_encoding.h"
#include "basalt/bench.h"

basalt_status bench_parquet_encoding_register(struct basalt_bench *bench,
                                              struct basalt_error *err);

#define BENCH_VALUES (1 << 16)

enum pq_kind {
    PQ_UNPACK,
    PQ_VALIDITY,
    PQ_LEVELS,
    PQ_DICT_I64,
    PQ_DICT_STR,
    PQ_PLAIN_STR,
    PQ_DELTA_I64,
    PQ_BSS_F64
};

struct pq_bench {
    enum pq_kind kind;
    unsigned width;       /* bit width (unpack, levels) */
    double null_rate;     /* validity: fraction of nulls */
    struct basalt_buffer page;
    uint8_t *out;         /* decoded values / bitmap */
    int32_t *offsets;
    struct basalt_buffer data;
    int64_t *dict64;
    int32_t *dict_offsets;
    uint8_t *dict_data;
    uint64_t sink;
};

static uint64_t pq_rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

#define DICT_ENTRIES 1000

static basalt_status pq_setup(void *ctx, struct basalt_error *err)
{
    struct pq_bench *b = ctx;
    uint64_t seed = 42;
    const size_t n = BENCH_VALUES;
    basalt_buffer_init(&b->page);
    basalt_buffer_init(&b->data);
    b->out = basalt_aligned_alloc(64, n * 16 + 64);
    b->offsets = basalt_malloc((n + 1) * sizeof *b->offsets);
    uint32_t *u = basalt_malloc(n * sizeof *u);
    if (!b->out || !b->offsets || !u) {
        basalt_free(u);
        return basalt_error_set(err, BASALT_NOMEM, "bench setup");
    }
    basalt_status st = BASALT_OK;
    switch (b->kind) {
    case PQ_UNPACK: {
        for (size_t i = 0; i < n; i++)
            u[i] = (uint32_t)pq_rng(&seed);
        st = basalt_buffer_resize(&b->page, (n * b->width + 7) / 8, err);
        if (st == BASALT_OK)
            basalt_parquet_pack_u32(u, n, b->width, b->page.data);
        break;
    }
    case PQ_VALIDITY:
    case PQ_LEVELS: {
        int16_t *lv = (int16_t *)(void *)b->out;
        int16_t max = b->kind == PQ_VALIDITY ? 1 : (int16_t)((1 << b->width) - 1);
        for (size_t i = 0; i < n; i++) {
            double r = (double)(pq_rng(&seed) >> 11) / 9007199254740992.0;
            if (b->kind == PQ_VALIDITY)
                lv[i] = r >= b->null_rate;
            else /* nested-like: mostly max, with runs of lower levels */
                lv[i] = r < 0.8 ? max : (int16_t)(pq_rng(&seed) % (uint64_t)(max + 1));
        }
        st = basalt_parquet_levels_encode(lv, n, max, false, &b->page, err);
        break;
    }
    case PQ_DICT_I64:
    case PQ_DICT_STR: {
        for (size_t i = 0; i < n; i++)
            u[i] = (uint32_t)(pq_rng(&seed) % DICT_ENTRIES);
        st = basalt_parquet_dict_encode_indices(u, n, DICT_ENTRIES, &b->page, err);
        b->dict64 = basalt_malloc(DICT_ENTRIES * sizeof *b->dict64);
        b->dict_offsets = basalt_malloc((DICT_ENTRIES + 1) * sizeof *b->dict_offsets);
        b->dict_data = basalt_malloc(DICT_ENTRIES * 24);
        if (!b->dict64 || !b->dict_offsets || !b->dict_data) {
            st = basalt_error_set(err, BASALT_NOMEM, "bench setup");
            break;
        }
        b->dict_offsets[0] = 0;
        for (int i = 0; i < DICT_ENTRIES; i++) {
            b->dict64[i] = (int64_t)pq_rng(&seed);
            int len = 4 + (int)(pq_rng(&seed) % 13); /* 4..16 bytes, mean 10 */
            for (int k = 0; k < len; k++)
                b->dict_data[b->dict_offsets[i] + k] = (uint8_t)('a' + pq_rng(&seed) % 26);
            b->dict_offsets[i + 1] = b->dict_offsets[i] + len;
        }
        break;
    }
    case PQ_PLAIN_STR: {
        int64_t *off = basalt_malloc((n + 1) * sizeof *off);
        uint8_t *chars = basalt_malloc(n * 24);
        if (!off || !chars) {
            basalt_free(off);
            basalt_free(chars);
            st = basalt_error_set(err, BASALT_NOMEM, "bench setup");
            break;
        }
        off[0] = 0;
        for (size_t i = 0; i < n; i++) {
            int len = 4 + (int)(pq_rng(&seed) % 17); /* 4..20 bytes, mean 12 */
            for (int k = 0; k < len; k++)
                chars[off[i] + k] = (uint8_t)('a' + pq_rng(&seed) % 26);
            off[i + 1] = off[i] + len;
        }
        struct basalt_parquet_binary_view view = {NULL, off, chars};
        st = basalt_parquet_plain_encode_binary(&view, n, NULL, 0, &b->page, err);
        basalt_free(off);
        basalt_free(chars);
        break;
    }
    case PQ_DELTA_I64: {
        int64_t *v = (int64_t *)(void *)b->out;
        int64_t x = 1700000000000;
        for (size_t i = 0; i < n; i++) /* timestamps: increasing, jittered */
            v[i] = x += 1000 + (int64_t)(pq_rng(&seed) % 500);
        st = basalt_parquet_delta_encode_i64(v, n, NULL, 0, &b->page, err);
        break;
    }
    case PQ_BSS_F64: {
        double *v = (double *)(void *)b->out;
        for (size_t i = 0; i < n; i++)
            v[i] = (double)(pq_rng(&seed) % 100000) / 100.0;
        st = basalt_parquet_bss_encode(v, 8, n, NULL, 0, &b->page, err);
        break;
    }
    }
    basalt_free(u);
    return st;
}

static void pq_teardown(void *ctx)
{
    struct pq_bench *b = ctx;
    basalt_buffer_reset(&b->page);
    basalt_buffer_reset(&b->data);
    basalt_free(b->out);
    basalt_free(b->offsets);
    basalt_free(b->dict64);
    basalt_free(b->dict_offsets);
    basalt_free(b->dict_data);
    b->out = NULL;
    b->offsets = NULL;
    b->dict64 = NULL;
    b->dict_offsets = NULL;
    b->dict_data = NULL;
}

static basalt_status pq_once(struct pq_bench *b, struct basalt_error *err)
{
    const uint64_t n = BENCH_VALUES;
    basalt_status st = BASALT_OK;
    switch (b->kind) {
    case PQ_UNPACK:
        basalt_parquet_unpack_u32(NULL, b->page.data, b->page.size, 0, n, b->width,
                                  (uint32_t *)(void *)b->out);
        break;
    case PQ_VALIDITY: {
        struct basalt_parquet_rle_decoder dec;
        uint64_t nulls = 0;
        st = basalt_parquet_levels_init(&dec, b->page.data, b->page.size, 1, n, false, NULL, err);
        if (st == BASALT_OK)
            st = basalt_parquet_levels_decode_validity(&dec, n, b->out, 0, &nulls, err);
        b->sink += nulls;
        break;
    }
    case PQ_LEVELS: {
        struct basalt_parquet_rle_decoder dec;
        int16_t max = (int16_t)((1 << b->width) - 1);
        st = basalt_parquet_levels_init(&dec, b->page.data, b->page.size, max, n, false, NULL,
                                        err);
        if (st == BASALT_OK)
            st = basalt_parquet_levels_decode(&dec, n, max, (int16_t *)(void *)b->out, err);
        break;
    }
    case PQ_DICT_I64: {
        struct basalt_parquet_rle_decoder dec;
        st = basalt_parquet_dict_indices_init(&dec, b->page.data, b->page.size, n, err);
        if (st == BASALT_OK)
            st = basalt_parquet_dict_gather_fixed(&dec, b->dict64, DICT_ENTRIES, 8, n, NULL, 0,
                                                  b->out, err);
        break;
    }
    case PQ_DICT_STR: {
        struct basalt_parquet_rle_decoder dec;
        struct basalt_parquet_dict_binary dict = {b->dict_offsets, b->dict_data, DICT_ENTRIES};
        struct basalt_parquet_binary_out out = {b->offsets, NULL, &b->data, 0};
        b->data.size = 0;
        st = basalt_parquet_dict_indices_init(&dec, b->page.data, b->page.size, n, err);
        if (st == BASALT_OK)
            st = basalt_parquet_dict_gather_binary(&dec, &dict, n, NULL, 0, &out, err);
        break;
    }
    case PQ_PLAIN_STR: {
        struct basalt_parquet_plain_decoder dec;
        struct basalt_parquet_binary_out out = {b->offsets, NULL, &b->data, 0};
        b->data.size = 0;
        basalt_parquet_plain_decoder_init(&dec, b->page.data, b->page.size);
        st = basalt_parquet_plain_decode_binary(&dec, n, NULL, 0, &out, err);
        break;
    }
    case PQ_DELTA_I64: {
        struct basalt_parquet_delta_decoder dec;
        st = basalt_parquet_delta_decoder_init(&dec, b->page.data, b->page.size, 64, n, err);
        if (st == BASALT_OK)
            st = basalt_parquet_delta_decode_i64(&dec, n, NULL, 0, (int64_t *)(void *)b->out,
                                                 err);
        break;
    }
    case PQ_BSS_F64: {
        struct basalt_parquet_bss_decoder dec;
        st = basalt_parquet_bss_decoder_init(&dec, b->page.data, b->page.size, 8, err);
        if (st == BASALT_OK)
            st = basalt_parquet_bss_decode(&dec, n, NULL, 0, b->out, err);
        break;
    }
    }
    b->sink += b->out[0];
    return st;
}

static basalt_status pq_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    for (uint64_t i = 0; i < iters; i++) {
        basalt_status st = pq_once(ctx, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static void pq_release(void *ctx) { basalt_free(ctx); }

struct pq_def {
    const char *name;
    enum pq_kind kind;
    unsigned width;
    double null_rate;
    double bytes_per_value; /* decoded bytes, for MB/s */
};

static const struct pq_def pq_defs[] = {
    {"parquet/unpack/w1", PQ_UNPACK, 1, 0, 4},
    {"parquet/unpack/w8", PQ_UNPACK, 8, 0, 4},
    {"parquet/unpack/w17", PQ_UNPACK, 17, 0, 4},
    {"parquet/levels/validity/10pct-null", PQ_VALIDITY, 1, 0.10, 0.125},
    {"parquet/levels/validity/no-null", PQ_VALIDITY, 1, 0.0, 0.125},
    {"parquet/levels/int16/max3", PQ_LEVELS, 2, 0, 2},
    {"parquet/dict/int64", PQ_DICT_I64, 0, 0, 8},
    {"parquet/dict/string", PQ_DICT_STR, 0, 0, 14},
    {"parquet/plain/byte_array", PQ_PLAIN_STR, 0, 0, 16},
    {"parquet/delta/int64", PQ_DELTA_I64, 0, 0, 8},
    {"parquet/bss/double", PQ_BSS_F64, 0, 0, 8},
};

basalt_status bench_parquet_encoding_register(struct basalt_bench *bench,
                                              struct basalt_error *err)
{
    for (size_t i = 0; i < sizeof pq_defs / sizeof pq_defs[0]; i++) {
        const struct pq_def *d = &pq_defs[i];
        struct pq_bench *b = basalt_calloc(1, sizeof *b);
        if (!b)
            return basalt_error_set(err, BASALT_NOMEM, "bench setup");
        b->kind = d->kind;
        b->width = d->width;
        b->null_rate = d->null_rate;
        struct basalt_bench_case c = {
            .name = d->name,
            .peer = "basalt",
            .run = pq_run,
            .setup = pq_setup,
            .teardown = pq_teardown,
            .release = pq_release,
            .ctx = b,
            .bytes_per_iter = d->bytes_per_value * BENCH_VALUES,
            .items_per_iter = BENCH_VALUES,
            .threads = 1,
        };
        basalt_status st = basalt_bench_add(bench, &c, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}
