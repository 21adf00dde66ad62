/* Yardsticks for reading the other numbers: the machine's memcpy bandwidth
 * over 1 MiB (the size of the codec inputs) and the harness's reference
 * kernel as a benchmark of its own. */
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
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        basalt_status st = basalt_bench_add(bench, &cases[i], err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}
