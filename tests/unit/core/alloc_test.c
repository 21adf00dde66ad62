#include "test.h"

TEST(alloc_live_counts_outstanding)
{
    int64_t live = basalt_alloc_live();
    void *a = basalt_malloc(10);
    void *b = basalt_calloc(3, 4);
    void *c = basalt_aligned_alloc(64, 100);
    CHECK(a && b && c);
    CHECK_EQ(((uintptr_t)c) % 64, 0);
    CHECK_EQ(basalt_alloc_live(), live + 3);
    unsigned char *bz = b;
    for (int i = 0; i < 12; i++)
        CHECK_EQ(bz[i], 0);
    a = basalt_realloc(a, 1000);
    CHECK(a != NULL);
    CHECK_EQ(basalt_alloc_live(), live + 3);
    basalt_free(a);
    basalt_free(b);
    basalt_free(c);
    basalt_free(NULL);
    CHECK_EQ(basalt_alloc_live(), live);
}

TEST(alloc_fail_after_fails_nth_and_later)
{
    basalt_alloc_fail_after(3);
    void *a = basalt_malloc(1);
    void *b = basalt_malloc(1);
    void *c = basalt_malloc(1);
    void *d = basalt_calloc(1, 1);
    void *e = basalt_aligned_alloc(64, 1);
    basalt_alloc_fail_after(0);
    void *f = basalt_malloc(1);
    CHECK(a != NULL);
    CHECK(b != NULL);
    CHECK(c == NULL);
    CHECK(d == NULL);
    CHECK(e == NULL);
    CHECK(f != NULL);
    basalt_free(a);
    basalt_free(b);
    basalt_free(f);
}

TEST(realloc_failure_keeps_original)
{
    char *p = basalt_malloc(4);
    CHECK(p != NULL);
    memcpy(p, "abc", 4);
    basalt_alloc_fail_after(1);
    char *q = basalt_realloc(p, 1 << 20);
    basalt_alloc_fail_after(0);
    CHECK(q == NULL);
    CHECK_STR(p, "abc");
    basalt_free(p);
}

static int harness_attempts;

static basalt_status three_allocations(void *ctx)
{
    (void)ctx;
    harness_attempts++;
    void *p[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        p[i] = basalt_malloc(16);
        if (!p[i]) {
            for (int j = 0; j < i; j++)
                basalt_free(p[j]);
            return BASALT_NOMEM;
        }
    }
    for (int i = 0; i < 3; i++)
        basalt_free(p[i]);
    return BASALT_OK;
}

TEST(alloc_sweep_runs_until_success)
{
    harness_attempts = 0;
    CHECK_EQ(bt_alloc_failure_sweep(__FILE__, __LINE__, three_allocations, NULL), 4);
    CHECK_EQ(harness_attempts, 4);
}
