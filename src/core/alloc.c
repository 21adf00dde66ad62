/* Allocation wrappers with a fault-injection hook, a live-allocation count
 * and the bytes in use (what a query's memory limit is checked against). */
#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "basalt/core.h"

static _Atomic int64_t alloc_live;
static _Atomic int64_t alloc_total;
static _Atomic int64_t alloc_bytes;
/* Allocations left before failures start; <= 0 means never fail. */
static _Atomic int64_t alloc_fail_countdown;

static bool alloc_should_fail(void)
{
    if (atomic_load_explicit(&alloc_fail_countdown, memory_order_relaxed) <= 0)
        return false;
    /* Once the countdown reaches 1 this and every later allocation fails, until
     * the hook is disarmed: a caller that retries must still see NOMEM. */
    int64_t left = atomic_fetch_sub_explicit(&alloc_fail_countdown, 1, memory_order_relaxed);
    if (left <= 1) {
        atomic_store_explicit(&alloc_fail_countdown, 1, memory_order_relaxed);
        return true;
    }
    return false;
}

static void *alloc_count(void *p)
{
    if (p) {
        atomic_fetch_add_explicit(&alloc_live, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&alloc_total, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&alloc_bytes, (int64_t)malloc_usable_size(p),
                                  memory_order_relaxed);
    }
    return p;
}

void *basalt_malloc(size_t size)
{
    if (alloc_should_fail())
        return NULL;
    return alloc_count(malloc(size ? size : 1));
}

void *basalt_calloc(size_t count, size_t size)
{
    if (alloc_should_fail())
        return NULL;
    if (count == 0 || size == 0)
        count = size = 1;
    return alloc_count(calloc(count, size));
}

void *basalt_realloc(void *ptr, size_t size)
{
    if (!ptr)
        return basalt_malloc(size);
    if (alloc_should_fail())
        return NULL;
    int64_t before = (int64_t)malloc_usable_size(ptr);
    void *p = realloc(ptr, size ? size : 1); /* the live count is unchanged */
    if (p != NULL)
        atomic_fetch_add_explicit(&alloc_bytes, (int64_t)malloc_usable_size(p) - before,
                                  memory_order_relaxed);
    return p;
}

void *basalt_aligned_alloc(size_t alignment, size_t size)
{
    if (alloc_should_fail())
        return NULL;
    if (alignment < sizeof(void *))
        alignment = sizeof(void *);
    void *p = NULL;
    if (posix_memalign(&p, alignment, size ? size : 1) != 0)
        return NULL;
    return alloc_count(p);
}

void basalt_free(void *ptr)
{
    if (!ptr)
        return;
    atomic_fetch_sub_explicit(&alloc_live, 1, memory_order_relaxed);
    atomic_fetch_sub_explicit(&alloc_bytes, (int64_t)malloc_usable_size(ptr), memory_order_relaxed);
    free(ptr);
}

void basalt_alloc_fail_after(int64_t n)
{
    atomic_store_explicit(&alloc_fail_countdown, n > 0 ? n : 0, memory_order_relaxed);
}

int64_t basalt_alloc_live(void) { return atomic_load_explicit(&alloc_live, memory_order_relaxed); }

int64_t basalt_alloc_total(void)
{
    return atomic_load_explicit(&alloc_total, memory_order_relaxed);
}

int64_t basalt_alloc_bytes(void)
{
    return atomic_load_explicit(&alloc_bytes, memory_order_relaxed);
}
