/* Yardsticks for reading the other numbers: the machine's memcpy bandwidth
 * over 1 MiB (the size of the codec inputs) and the harness's reference
 * kernel as a benchmark of its own. And the shortest round-trip text of
 * doubles (basalt_double_shortest / basalt_double_format_g) beside the
 * printf-and-strtod trial loops it replaced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/bench.h"

basalt_status bench_core_register(struct basalt_bench *bench, struct basalt_error *err);

#define CORE_COPY_BYTES ((size_t)1 << 20)

struct core_copy {
    uint8_t *src;
    uint8_t *dst;
};

static struct core_copy core_copy_state;

static basalt_status core_copy_setup(void *ctx, struct basalt_error *err)
{
    struct core_copy *c = ctx;
    c->src = basalt_aligned_alloc(64, CORE_COPY_BYTES);
    c->dst = basalt_aligned_alloc(64, CORE_COPY_BYTES);
    if (!c->src || !c->dst) {
        basalt_free(c->src);
        basalt_free(c->dst);
        c->src = c->dst = NULL;
        return basalt_error_set(err, BASALT_NOMEM, "memcpy: out of memory");
    }
    for (size_t i = 0; i < CORE_COPY_BYTES; i++)
        c->src[i] = (uint8_t)(i * 131u + (i >> 9));
    memset(c->dst, 0, CORE_COPY_BYTES);
    return BASALT_OK;
}

static void core_copy_teardown(void *ctx)
{
    struct core_copy *c = ctx;
    basalt_free(c->src);
    basalt_free(c->dst);
    c->src = c->dst = NULL;
}

static basalt_status core_copy_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct core_copy *c = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        memcpy(c->dst, c->src, CORE_COPY_BYTES);
        /* The copy must be observable or it could be dropped. */
        __asm__ volatile("" : : "r"(c->dst) : "memory");
    }
    if (c->dst[CORE_COPY_BYTES - 1] != c->src[CORE_COPY_BYTES - 1])
        return basalt_error_set(err, BASALT_INTERNAL, "memcpy: copy differs");
    return BASALT_OK;
}

static volatile uint64_t core_ref_sink;

static basalt_status core_reference_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    (void)ctx;
    (void)err;
    for (uint64_t i = 0; i < iters; i++)
        core_ref_sink = basalt_bench_reference_kernel(core_ref_sink + i, BASALT_BENCH_REF_STEPS);
    return BASALT_OK;
}

/* ------------------------------------------------------------ double text */

#define CORE_TEXT_VALUES 4096

struct core_text {
    double values[CORE_TEXT_VALUES];
};

static struct core_text core_text_random, core_text_prices;
static volatile size_t core_text_sink;

static uint64_t core_text_next(uint64_t *s)
{
    *s += UINT64_C(0x9e3779b97f4a7c15);
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform over the bit patterns of finite doubles. */
static basalt_status core_text_random_setup(void *ctx, struct basalt_error *err)
{
    (void)err;
    struct core_text *t = ctx;
    uint64_t s = 1;
    for (int i = 0; i < CORE_TEXT_VALUES;) {
        uint64_t bits = core_text_next(&s);
        if (((bits >> 52) & 0x7ff) == 0x7ff)
            continue;
        memcpy(&t->values[i++], &bits, sizeof bits);
    }
    return BASALT_OK;
}

/* Prices: 0.00 to 9999.99 in cents, as a CSV of amounts holds them. */
static basalt_status core_text_prices_setup(void *ctx, struct basalt_error *err)
{
    (void)err;
    struct core_text *t = ctx;
    uint64_t s = 2;
    for (int i = 0; i < CORE_TEXT_VALUES; i++)
        t->values[i] = (double)(core_text_next(&s) % 1000000) / 100.0;
    return BASALT_OK;
}

/* The CSV writer's and the query layer's old loop: "%.*g" from precision 15
 * until strtod reads the value back. */
static basalt_status core_text_trial15_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    (void)err;
    const struct core_text *t = ctx;
    char buf[40];
    size_t sum = 0;
    for (uint64_t it = 0; it < iters; it++)
        for (int i = 0; i < CORE_TEXT_VALUES; i++) {
            int n = 0;
            for (int p = 15; p <= 17; p++) {
                n = snprintf(buf, sizeof buf, "%.*g", p, t->values[i]);
                if (strtod(buf, NULL) == t->values[i])
                    break;
            }
            sum += (size_t)n;
        }
    core_text_sink = sum;
    return BASALT_OK;
}

/* The JSON writers' old loop: "%.*e" from one digit until strtod reads the
 * value back. */
static basalt_status core_text_trial1_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    (void)err;
    const struct core_text *t = ctx;
    char buf[40];
    size_t sum = 0;
    for (uint64_t it = 0; it < iters; it++)
        for (int i = 0; i < CORE_TEXT_VALUES; i++) {
            int n = 0;
            for (int p = 1; p <= 17; p++) {
                n = snprintf(buf, sizeof buf, "%.*e", p - 1, t->values[i]);
                if (strtod(buf, NULL) == t->values[i])
                    break;
            }
            sum += (size_t)n;
        }
    core_text_sink = sum;
    return BASALT_OK;
}

static basalt_status core_text_shortest_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    (void)err;
    const struct core_text *t = ctx;
    char digits[17];
    size_t sum = 0;
    for (uint64_t it = 0; it < iters; it++)
        for (int i = 0; i < CORE_TEXT_VALUES; i++) {
            int x;
            sum += (size_t)basalt_double_shortest(t->values[i], digits, &x) + (size_t)x;
        }
    core_text_sink = sum;
    return BASALT_OK;
}

static basalt_status core_text_format_g_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    (void)err;
    const struct core_text *t = ctx;
    char buf[BASALT_FLOAT_TEXT_MAX];
    size_t sum = 0;
    for (uint64_t it = 0; it < iters; it++)
        for (int i = 0; i < CORE_TEXT_VALUES; i++)
            sum += basalt_double_format_g(t->values[i], 15, buf);
    core_text_sink = sum;
    return BASALT_OK;
}

basalt_status bench_core_register(struct basalt_bench *bench, struct basalt_error *err)
{
    const struct basalt_bench_case cases[] = {
        {.name = "core/memcpy/1MiB",
         .peer = "libc memcpy",
         .run = core_copy_run,
         .setup = core_copy_setup,
         .teardown = core_copy_teardown,
         .ctx = &core_copy_state,
         .bytes_per_iter = (double)CORE_COPY_BYTES},
        {.name = "core/reference-kernel",
         .peer = "basalt_bench_reference_kernel",
         .run = core_reference_run,
         .items_per_iter = (double)BASALT_BENCH_REF_STEPS},
#define CORE_TEXT_CASES(kind, state, setup_fn)                                           \
    {.name = "core/double-text/" kind "/trial-loop-g15",                                 \
     .group = "core/double-text/" kind,                                                  \
     .peer = "glibc snprintf %.*g from precision 15 + strtod (the old CSV loop)",        \
     .run = core_text_trial15_run, .setup = setup_fn, .ctx = &state,                     \
     .items_per_iter = CORE_TEXT_VALUES},                                                \
    {.name = "core/double-text/" kind "/trial-loop-e1",                                  \
     .group = "core/double-text/" kind,                                                  \
     .peer = "glibc snprintf %.*e from one digit + strtod (the old JSON loop)",          \
     .run = core_text_trial1_run, .setup = setup_fn, .ctx = &state,                      \
     .items_per_iter = CORE_TEXT_VALUES},                                                \
    {.name = "core/double-text/" kind "/shortest",                                       \
     .group = "core/double-text/" kind,                                                  \
     .peer = "basalt basalt_double_shortest (digits)",                                   \
     .run = core_text_shortest_run, .setup = setup_fn, .ctx = &state,                    \
     .items_per_iter = CORE_TEXT_VALUES},                                                \
    {.name = "core/double-text/" kind "/format-g15",                                     \
     .group = "core/double-text/" kind,                                                  \
     .peer = "basalt basalt_double_format_g (text, as the CSV writer lays it out)",      \
     .run = core_text_format_g_run, .setup = setup_fn, .ctx = &state,                    \
     .items_per_iter = CORE_TEXT_VALUES}
        CORE_TEXT_CASES("random", core_text_random, core_text_random_setup),
        CORE_TEXT_CASES("prices", core_text_prices, core_text_prices_setup),
#undef CORE_TEXT_CASES
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        basalt_status st = basalt_bench_add(bench, &cases[i], err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}
