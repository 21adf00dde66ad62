/* A small C test harness.
 *
 *   TEST(arena_grows) { ...; CHECK(x == 3); CHECK_EQ(a, b); }
 *
 * Tests register themselves; the executable runs them all (or those whose
 * name contains argv[1]) and ends with "N passed, N failed". A failed CHECK
 * reports file:line and returns from the test. Every test is also checked for
 * leaks: basalt_alloc_live() must be the same after it as before. */
#ifndef BASALT_TEST_H
#define BASALT_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "basalt/core.h"

typedef void (*bt_test_fn)(void);
void bt_register(const char *name, bt_test_fn fn);
void bt_fail(const char *file, int line, const char *fmt, ...) BASALT_PRINTF(3, 4);
int bt_failed(void);
/* The message of an error report, or "" for NULL. */
const char *bt_error_text(const struct basalt_error *err);

#define TEST(name)                                                                  \
    static void name(void);                                                         \
    __attribute__((constructor)) static void name##_register(void)                  \
    {                                                                               \
        bt_register(#name, name);                                                   \
    }                                                                               \
    static void name(void)

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond)) {                                                              \
            bt_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);                        \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define CHECK_MSG(cond, ...)                                                        \
    do {                                                                            \
        if (!(cond)) {                                                              \
            bt_fail(__FILE__, __LINE__, __VA_ARGS__);                               \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define CHECK_EQ(a, b)                                                              \
    do {                                                                            \
        int64_t bt_a_ = (int64_t)(a), bt_b_ = (int64_t)(b);                         \
        if (bt_a_ != bt_b_) {                                                       \
            bt_fail(__FILE__, __LINE__, "CHECK_EQ(%s, %s): %" PRId64 " != %" PRId64, \
                    #a, #b, bt_a_, bt_b_);                                          \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define CHECK_UEQ(a, b)                                                             \
    do {                                                                            \
        uint64_t bt_a_ = (uint64_t)(a), bt_b_ = (uint64_t)(b);                      \
        if (bt_a_ != bt_b_) {                                                       \
            bt_fail(__FILE__, __LINE__,                                             \
                    "CHECK_UEQ(%s, %s): 0x%" PRIx64 " != 0x%" PRIx64, #a, #b, bt_a_, \
                    bt_b_);                                                         \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define CHECK_STR(a, b)                                                             \
    do {                                                                            \
        const char *bt_a_ = (a), *bt_b_ = (b);                                      \
        if (strcmp(bt_a_, bt_b_) != 0) {                                            \
            bt_fail(__FILE__, __LINE__, "CHECK_STR(%s, %s): \"%s\" != \"%s\"", #a,  \
                    #b, bt_a_, bt_b_);                                              \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define CHECK_MEM(a, b, n)                                                          \
    do {                                                                            \
        if (memcmp((a), (b), (n)) != 0) {                                           \
            bt_fail(__FILE__, __LINE__, "CHECK_MEM(%s, %s, %s): contents differ", \
                    #a, #b, #n);                                                    \
            return;                                                                 \
        }                                                                           \
    } while (0)

/* Checks that `expr` returns `status`; prints the error message if not. */
#define CHECK_STATUS(expr, status, errp)                                            \
    do {                                                                            \
        basalt_status bt_s_ = (expr);                                               \
        if (bt_s_ != (status)) {                                                    \
            bt_fail(__FILE__, __LINE__, "%s returned %s, expected %s: %s", #expr,   \
                    basalt_status_name(bt_s_), basalt_status_name(status),          \
                    bt_error_text(errp));                                           \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define CHECK_OK(expr, errp) CHECK_STATUS(expr, BASALT_OK, errp)

/* Stops the leak check for the current test (for tests of process-wide caches). */
void bt_allow_leaks(void);

/* Fault-injection sweep: calls attempt(ctx) with the n-th allocation failing,
 * for n = 1, 2, ... until it returns OK. Each attempt must return OK or NOMEM
 * and free everything it allocated. Returns the number of attempts, or -1
 * after reporting a failure (bt_fail) if an attempt misbehaved. */
typedef basalt_status (*bt_attempt_fn)(void *ctx);
int64_t bt_alloc_failure_sweep(const char *file, int line, bt_attempt_fn attempt, void *ctx);
#define CHECK_ALLOC_SWEEP(attempt, ctx)                                             \
    do {                                                                            \
        if (bt_alloc_failure_sweep(__FILE__, __LINE__, (attempt), (ctx)) < 0)       \
            return;                                                                 \
    } while (0)

/* Deterministic random numbers (xoshiro256**), seeded per test. */
struct bt_rng {
    uint64_t s[4];
};
void bt_rng_seed(struct bt_rng *rng, uint64_t seed);
uint64_t bt_rng_next(struct bt_rng *rng);
/* Uniform in [0, bound). */
uint64_t bt_rng_below(struct bt_rng *rng, uint64_t bound);
void bt_rng_fill(struct bt_rng *rng, void *buf, size_t len);

/* Path under testdata/ (the third-party files the suite reads):
 * BASALT_TESTDATA_DIR overrides the built-in location. Returns a static
 * buffer. */
const char *bt_testdata_path(const char *relative);
/* Reads a whole file into a basalt_malloc'd buffer; NULL if it cannot. */
uint8_t *bt_read_file(const char *path, size_t *len);
/* Resident pages of the whole process (/proc/self/statm), or -1. */
long bt_resident_pages(void);

#endif
