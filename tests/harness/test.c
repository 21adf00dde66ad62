#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

#define BT_MAX_TESTS 4096

struct bt_test {
    const char *name;
    bt_test_fn fn;
};

static struct bt_test bt_tests[BT_MAX_TESTS];
static int bt_count;
static int bt_current_failed;
static int bt_current_allows_leaks;

void bt_register(const char *name, bt_test_fn fn)
{
    if (bt_count == BT_MAX_TESTS) {
        fprintf(stderr, "too many tests\n");
        abort();
    }
    bt_tests[bt_count].name = name;
    bt_tests[bt_count].fn = fn;
    bt_count++;
}

void bt_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "  %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    bt_current_failed = 1;
}

int bt_failed(void) { return bt_current_failed; }

const char *bt_error_text(const struct basalt_error *err) { return err ? err->message : ""; }

void bt_allow_leaks(void) { bt_current_allows_leaks = 1; }

/* The next allocation to fail: every one, or with BASALT_FAULT_SWEEP=quick
 * (the sanitizer run, where each attempt costs several times more and the
 * sweep is quadratic) every one of the first 256, then one in about 2%
 * further each time, which still reaches every stage of a long attempt. */
static int64_t sweep_next(int64_t n)
{
    static int quick = -1;
    if (quick < 0) {
        const char *sweep = getenv("BASALT_FAULT_SWEEP");
        quick = sweep && strcmp(sweep, "quick") == 0;
    }
    return quick && n >= 256 ? n + n / 50 : n + 1;
}

int64_t bt_alloc_failure_sweep(const char *file, int line, bt_attempt_fn attempt, void *ctx)
{
    for (int64_t n = 1; n < 1000000; n = sweep_next(n)) {
        int64_t live = basalt_alloc_live();
        basalt_alloc_fail_after(n);
        basalt_status st = attempt(ctx);
        basalt_alloc_fail_after(0);
        if (basalt_alloc_live() != live) {
            bt_fail(file, line, "allocation %" PRId64 " failed: %" PRId64 " allocations leaked", n,
                    basalt_alloc_live() - live);
            return -1;
        }
        if (st == BASALT_OK)
            return n;
        if (st != BASALT_NOMEM) {
            bt_fail(file, line, "allocation %" PRId64 " failed: got %s instead of NOMEM", n,
                    basalt_status_name(st));
            return -1;
        }
    }
    bt_fail(file, line, "attempt never succeeded");
    return -1;
}

static uint64_t bt_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void bt_rng_seed(struct bt_rng *rng, uint64_t seed)
{
    for (int i = 0; i < 4; i++) { /* splitmix64 expands the seed */
        seed += 0x9e3779b97f4a7c15ull;
        uint64_t z = seed;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        rng->s[i] = z ^ (z >> 31);
    }
}

uint64_t bt_rng_next(struct bt_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = bt_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = bt_rotl(s[3], 45);
    return result;
}

uint64_t bt_rng_below(struct bt_rng *rng, uint64_t bound)
{
    return bound ? bt_rng_next(rng) % bound : 0;
}

void bt_rng_fill(struct bt_rng *rng, void *buf, size_t len)
{
    uint8_t *p = buf;
    while (len >= 8) {
        uint64_t v = bt_rng_next(rng);
        memcpy(p, &v, 8);
        p += 8;
        len -= 8;
    }
    if (len) {
        uint64_t v = bt_rng_next(rng);
        memcpy(p, &v, len);
    }
}

static const char *testdata_root(void)
{
    const char *root = getenv("BASALT_TESTDATA_DIR");
    return root && *root ? root : BASALT_TEST_DATA_DIR;
}

const char *bt_testdata_path(const char *relative)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", testdata_root(), relative);
    return path;
}

/* A corpus test whose files are missing must fail, not pass on an empty
 * directory walk: every test binary checks for the tree's index first. */
static int testdata_present(void)
{
    char index[4096];
    snprintf(index, sizeof index, "%s/SOURCES.md", testdata_root());
    FILE *f = fopen(index, "rb");
    if (!f) {
        printf("FAIL: the test data is missing: %s does not exist\n", index);
        return 0;
    }
    fclose(f);
    return 1;
}

uint8_t *bt_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return NULL;
    }
    long size = ftell(f);
    rewind(f);
    uint8_t *buf = size >= 0 ? basalt_malloc((size_t)size + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)size, f) != (size_t)size) {
        basalt_free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf)
        *len = (size_t)size;
    return buf;
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : NULL;
    int passed = 0, failed = 0;
    if (!testdata_present())
        return 1;
    for (int i = 0; i < bt_count; i++) {
        if (filter && !strstr(bt_tests[i].name, filter))
            continue;
        bt_current_failed = 0;
        bt_current_allows_leaks = 0;
        int64_t live = basalt_alloc_live();
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        bt_tests[i].fn();
        clock_gettime(CLOCK_MONOTONIC, &t1);
        basalt_alloc_fail_after(0);
        if (!bt_current_failed && !bt_current_allows_leaks && basalt_alloc_live() != live)
            bt_fail(__FILE__, __LINE__, "%s leaked %" PRId64 " allocations", bt_tests[i].name,
                    basalt_alloc_live() - live);
        /* Tests of a second or more say how long they took: where the
         * suite's time goes, in every log. */
        double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        if (seconds >= 1.0)
            printf("%s %s (%.1f s)\n", bt_current_failed ? "FAIL" : "ok  ", bt_tests[i].name,
                   seconds);
        else
            printf("%s %s\n", bt_current_failed ? "FAIL" : "ok  ", bt_tests[i].name);
        fflush(stdout);
        if (bt_current_failed)
            failed++;
        else
            passed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : (passed ? 0 : 1);
}

long bt_resident_pages(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = -1;
    if (f != NULL) {
        if (fscanf(f, "%ld %ld", &size, &resident) != 2)
            resident = -1;
        fclose(f);
    }
    return resident;
}
