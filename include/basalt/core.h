/* basalt core: status codes, errors, allocation, arenas, buffers, bitmaps,
 * shortest round-trip text of floating-point values, the thread pool and CPU
 * feature detection.
 *
 * Everything else in basalt is built on these. Nothing here allocates behind
 * the caller's back except where a function says so, and every allocation goes
 * through basalt_malloc and friends so tests can fail the N-th one. */
#ifndef BASALT_CORE_H
#define BASALT_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(BASALT_BUILDING_LIBRARY)
#define BASALT_EXPORT __attribute__((visibility("default")))
#else
#define BASALT_EXPORT
#endif

#if defined(__GNUC__)
#define BASALT_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define BASALT_PRINTF(fmt, args)
#endif

#define BASALT_VERSION_MAJOR 0
#define BASALT_VERSION_MINOR 1
#define BASALT_VERSION_PATCH 0
#define BASALT_VERSION_STRING "0.1.0"

/* The library's version string, "MAJOR.MINOR.PATCH". Static storage. */
BASALT_EXPORT const char *basalt_version(void);

/* ------------------------------------------------------------------ status */

typedef enum basalt_status {
    BASALT_OK = 0,
    BASALT_INVALID_ARG,  /* the caller broke a documented precondition */
    BASALT_CORRUPT,      /* input bytes are malformed */
    BASALT_UNSUPPORTED,  /* well-formed input using a feature we do not implement */
    BASALT_LIMIT,        /* input exceeds a configured or hard limit */
    BASALT_NOMEM,        /* an allocation failed */
    BASALT_IO,           /* the operating system or a remote store failed */
    BASALT_NOT_FOUND,    /* a named thing does not exist */
    BASALT_CONFLICT,     /* a concurrent change won (commits, catalogs) */
    BASALT_AUTH,         /* credentials were refused */
    BASALT_INTERNAL,     /* a bug in basalt */
    /* A change went out but its answer was lost (a dropped connection, a
     * server error on a commit): it may or may not have been applied, so
     * nothing it may have made visible is deleted. */
    BASALT_UNKNOWN_OUTCOME
} basalt_status;

/* Upper-case name of a status ("CORRUPT"); static storage, never NULL. */
BASALT_EXPORT const char *basalt_status_name(basalt_status status);

/* ------------------------------------------------------------------ errors */

#define BASALT_ERROR_MESSAGE_MAX 512

/* An error report in caller storage. It never allocates: context added on the
 * way up is prepended inside the fixed buffer, truncating the tail if needed,
 * so a message reads "flat.parquet: row group 3: column 'price': page 7: ...".
 * Every fallible function takes an optional `struct basalt_error *` (NULL
 * means the caller only wants the status). */
struct basalt_error {
    basalt_status status;
    char message[BASALT_ERROR_MESSAGE_MAX];
};

/* Clears `err` to OK with an empty message. `err` may be NULL. */
BASALT_EXPORT void basalt_error_init(struct basalt_error *err);

/* Records `status` and a printf-style message in `err` (NULL allowed) and
 * returns `status`, so that `return basalt_error_set(err, BASALT_CORRUPT, ...)`
 * reads naturally. */
BASALT_EXPORT basalt_status basalt_error_set(struct basalt_error *err, basalt_status status,
                                             const char *fmt, ...) BASALT_PRINTF(3, 4);
BASALT_EXPORT basalt_status basalt_error_setv(struct basalt_error *err, basalt_status status,
                                              const char *fmt, va_list ap)
    BASALT_PRINTF(3, 0);

/* Prepends "<context>: " to the message already in `err` (NULL allowed) and
 * returns `status`, the status being propagated, unchanged:
 *     if (st != BASALT_OK) return basalt_error_context(err, st, "page %d", i); */
BASALT_EXPORT basalt_status basalt_error_context(struct basalt_error *err, basalt_status status,
                                                 const char *fmt, ...) BASALT_PRINTF(3, 4);

/* ------------------------------------------------------------------ memory */

/* Allocation wrappers. All of basalt allocates through these; memory from any
 * of them is released with basalt_free (free(NULL) is a no-op). Buffers handed
 * out as Arrow data come from basalt_aligned_alloc (64-byte aligned). */
BASALT_EXPORT void *basalt_malloc(size_t size);
BASALT_EXPORT void *basalt_calloc(size_t count, size_t size);
BASALT_EXPORT void *basalt_realloc(void *ptr, size_t size);
BASALT_EXPORT void *basalt_aligned_alloc(size_t alignment, size_t size);
BASALT_EXPORT void basalt_free(void *ptr);

/* Test hooks (process-wide, thread-safe counters).
 * basalt_alloc_fail_after(n): the n-th allocation from now (n >= 1) and every
 * later one fail, until called again; n = 0 disarms. basalt_alloc_live()
 * counts allocations not yet freed, for leak checks. */
BASALT_EXPORT void basalt_alloc_fail_after(int64_t n);
BASALT_EXPORT int64_t basalt_alloc_live(void);
BASALT_EXPORT int64_t basalt_alloc_total(void);
/* Bytes held by live allocations (their usable sizes), process-wide: what
 * query memory limits are checked against. */
BASALT_EXPORT int64_t basalt_alloc_bytes(void);

/* For a program's main, before anything else: where the kernel gives
 * transparent huge pages only to memory that asks for them (THP "madvise"),
 * executes the program again (/proc/self/exe, same argv, same pid) with
 * glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES, so malloc's heap asks:
 * first touches of fresh memory then fault 2 MiB at a time. Does nothing
 * and returns when the tunable is already set (the user's value wins),
 * when BASALT_HUGE_PAGES=0, when the mode is not "madvise", under valgrind
 * or AddressSanitizer, or when the exec fails. Not for libraries' callers
 * that already run threads or hold resources an exec would lose. */
BASALT_EXPORT void basalt_exec_with_huge_pages(char **argv);
/* The same for another program: executes `path` with argv, with the
 * tunable added where basalt_exec_with_huge_pages would add it and with the
 * environment as it is where not. Returns only when the exec fails (errno
 * says why). What the `basalt` launcher does: one cheap start of a program
 * that loads no libraries, then the CLI's one start with huge pages. */
BASALT_EXPORT void basalt_exec_path_with_huge_pages(const char *path, char **argv);
/* One line (NUL-terminated, truncated to cap) saying whether this process's
 * heap gets huge pages: "on (THP madvise, GLIBC_TUNABLES=...)",
 * "on (THP always)", "off", "off (not glibc's malloc)". */
BASALT_EXPORT void basalt_huge_pages_describe(char *buf, size_t cap);

/* ---------------------------------------------------------------- strings */

/* basalt_malloc'd copies of s / of s[0, len) plus a NUL; NULL on NOMEM (or
 * for a NULL s). */
BASALT_EXPORT char *basalt_strdup(const char *s);
BASALT_EXPORT char *basalt_strndup(const char *s, size_t len);

/* A growable list of basalt_malloc'd strings (caller storage, zeroed to
 * start). Lists handed out by the library are (items, n) pairs freed with
 * basalt_string_list_free. */
struct basalt_string_list {
    char **items;
    size_t n;
    size_t cap;
};
/* Appends a copy of s[0, len). NOMEM. */
BASALT_EXPORT basalt_status basalt_string_list_add(struct basalt_string_list *list, const char *s,
                                                   size_t len, struct basalt_error *err);
/* Sorts in byte order and drops duplicates. */
BASALT_EXPORT void basalt_string_list_sort_unique(struct basalt_string_list *list);
/* Frees every string and the array; the list is empty again. */
BASALT_EXPORT void basalt_string_list_reset(struct basalt_string_list *list);
/* Frees an array of n basalt_malloc'd strings and the array. NULL is a no-op. */
BASALT_EXPORT void basalt_string_list_free(char **items, size_t n);

/* ------------------------------------------------------------- float text */

/* The shortest decimal that reads back as the same binary64 / binary32 /
 * binary16 value (the reader rounding to nearest, ties to even, as strtod and
 * strtof do), and of the shortest ones the nearest to the exact value.
 * Writes its significant digits to `digits` (ASCII, no leading or trailing
 * zeros, not NUL-terminated; at most 17 / 9 / 5 of them) and the decimal
 * exponent of the first one to *exp10: |v| reads back from
 * d1.d2...dn x 10^*exp10. Returns n. The sign is ignored. Zero gives "0"
 * with exponent 0 (n = 1); NaN and infinities return 0 and write nothing.
 * Exact integer arithmetic: no allocation, no locale, thread-safe. */
BASALT_EXPORT int basalt_double_shortest(double v, char *digits, int *exp10);
BASALT_EXPORT int basalt_float_shortest(float v, char *digits, int *exp10);
/* `bits` is the IEEE 754 binary16 value's bit pattern. */
BASALT_EXPORT int basalt_half_shortest(uint16_t bits, char *digits, int *exp10);

/* The longest text basalt_double_format_g and basalt_float_format_g write,
 * NUL included. */
#define BASALT_FLOAT_TEXT_MAX 32

/* The shortest round-trip digits of v laid out as printf's "%.*g" lays them
 * out with precision P = max(precision, n), n the shortest digit count
 * (precision is clamped to 1..17): exponent form "d.ddde+XX" (two exponent
 * digits at least) when the decimal exponent is below -4 or at least P, plain
 * otherwise, no trailing zeros. So precision 17 lays out as "%.17g" does,
 * with only the digits needed, and precision 1 gives what "%.*g" prints for
 * the first p whose text reads back (or fewer digits, at some powers of two,
 * where printf's nearest p digits do not read back and other p digits do).
 * NaN, infinities and negative zero are "nan", "inf", "-inf" and "-0" (any
 * NaN's sign is dropped). Writes at most BASALT_FLOAT_TEXT_MAX bytes into buf,
 * NUL-terminated, and returns the length without the NUL. Thread-safe. */
BASALT_EXPORT size_t basalt_double_format_g(double v, int precision, char *buf);
BASALT_EXPORT size_t basalt_float_format_g(float v, int precision, char *buf);

/* ------------------------------------------------------------------ arena */

struct basalt_arena_block;

/* A bump allocator for parsed metadata and scratch: many small allocations,
 * released together by basalt_arena_reset. Caller storage; not shareable. */
struct basalt_arena {
    struct basalt_arena_block *head;
    size_t block_size;   /* size of ordinary blocks; large requests get their own */
    size_t bytes_used;   /* sum of bytes handed out, for accounting */
};

BASALT_EXPORT void basalt_arena_init(struct basalt_arena *arena, size_t block_size);
/* Returns `size` bytes aligned to `align` (a power of two <= 4096), or NULL on
 * allocation failure. Memory is valid until basalt_arena_reset. */
BASALT_EXPORT void *basalt_arena_alloc(struct basalt_arena *arena, size_t size, size_t align);
/* Copies `len` bytes of `s` and a terminating NUL into the arena. */
BASALT_EXPORT char *basalt_arena_strndup(struct basalt_arena *arena, const char *s, size_t len);
/* Frees every block; the arena is empty and reusable afterwards. */
BASALT_EXPORT void basalt_arena_reset(struct basalt_arena *arena);

/* ------------------------------------------------------------------ buffer */

/* A growable byte buffer, 64-byte aligned, capacity rounded to 64 bytes so
 * SIMD kernels may read a little past `size` within `capacity`. */
struct basalt_buffer {
    uint8_t *data;
    size_t size;
    size_t capacity;
};

BASALT_EXPORT void basalt_buffer_init(struct basalt_buffer *buf);
/* Ensures capacity >= size + additional. Contents are kept. */
BASALT_EXPORT basalt_status basalt_buffer_reserve(struct basalt_buffer *buf, size_t additional,
                                                  struct basalt_error *err);
/* Sets size to `size`, growing capacity if needed (new bytes uninitialised). */
BASALT_EXPORT basalt_status basalt_buffer_resize(struct basalt_buffer *buf, size_t size,
                                                 struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_buffer_append(struct basalt_buffer *buf, const void *data,
                                                 size_t len, struct basalt_error *err);
/* Hands the data to the caller (release with basalt_free) and empties `buf`. */
BASALT_EXPORT uint8_t *basalt_buffer_take(struct basalt_buffer *buf);
/* Frees the data; the buffer is empty and reusable. */
BASALT_EXPORT void basalt_buffer_reset(struct basalt_buffer *buf);

/* ------------------------------------------------------------------ bitmap */

/* Bitmaps use Arrow's order: bit i is (bits[i / 8] >> (i % 8)) & 1. */
static inline bool basalt_bitmap_get(const uint8_t *bits, int64_t i)
{
    return (bits[i >> 3] >> (i & 7)) & 1;
}

static inline void basalt_bitmap_set(uint8_t *bits, int64_t i, bool value)
{
    uint8_t mask = (uint8_t)(1u << (i & 7));
    bits[i >> 3] = value ? (uint8_t)(bits[i >> 3] | mask) : (uint8_t)(bits[i >> 3] & ~mask);
}

/* Number of set bits in [offset, offset + length). */
BASALT_EXPORT int64_t basalt_bitmap_count(const uint8_t *bits, int64_t offset, int64_t length);
/* Copies `length` bits from src at src_offset to dst at dst_offset; bits of
 * dst outside the range are preserved. The ranges must not overlap. */
BASALT_EXPORT void basalt_bitmap_copy(uint8_t *dst, int64_t dst_offset, const uint8_t *src,
                                      int64_t src_offset, int64_t length);
/* Sets or clears every bit in [offset, offset + length). */
BASALT_EXPORT void basalt_bitmap_fill(uint8_t *bits, int64_t offset, int64_t length, bool value);
/* Bytes needed for `length` bits. */
static inline int64_t basalt_bitmap_bytes(int64_t length) { return (length + 7) >> 3; }

/* ------------------------------------------------------------------ pool */

struct basalt_pool;

/* A persistent pool of worker threads. Threads are created once, in
 * basalt_pool_new, and sleep between calls; no call creates a thread.
 * `num_threads` counts the workers besides the calling thread, which always
 * takes part, so a pool of N-1 threads gives N-way parallelism.
 * Returns INVALID_ARG (num_threads < 0 or > 1024), NOMEM, or INTERNAL. */
BASALT_EXPORT basalt_status basalt_pool_new(int num_threads, struct basalt_pool **out,
                                            struct basalt_error *err);
/* Joins the workers. NULL is a no-op. Not to be called while a parallel_for runs. */
BASALT_EXPORT void basalt_pool_free(struct basalt_pool *pool);
/* Workers available to a call, counting the caller: threads + 1; 1 for NULL. */
BASALT_EXPORT int basalt_pool_workers(const struct basalt_pool *pool);

/* Runs fn(ctx, begin, end, worker) over [0, n) in chunks of at most `grain`
 * items (grain 0 picks one), handed out dynamically: a worker that finishes
 * early takes the next chunk. `worker` is in [0, workers) and identifies the
 * thread for per-worker scratch; the caller is worker 0. `max_workers` caps
 * the workers used (0 = all). pool NULL runs everything on the caller.
 * Returns after every chunk has run. One parallel_for per pool at a time;
 * fn must not call parallel_for on the same pool. */
typedef void (*basalt_pool_fn)(void *ctx, int64_t begin, int64_t end, int worker);
BASALT_EXPORT void basalt_pool_parallel_for(struct basalt_pool *pool, int max_workers, int64_t n,
                                            int64_t grain, basalt_pool_fn fn, void *ctx);

/* ------------------------------------------------------------------ cpu */

struct basalt_cpu_features {
    bool sse42;
    bool pclmulqdq;
    bool avx2;
    bool bmi2;
    bool avx512f;
    bool avx512bw;
    bool avx512vl;
    bool neon;   /* aarch64 */
    bool crc32;  /* aarch64 CRC32 instructions */
    bool fma;    /* x86 FMA3 (with the OS saving the YMM registers) */
};

/* Features of the running CPU, detected once (thread-safe). Static storage.
 * The environment variable BASALT_CPU=scalar reports no features, so the
 * scalar kernels (the oracle) can be run in tests and benchmarks. */
BASALT_EXPORT const struct basalt_cpu_features *basalt_cpu_features(void);
/* Detected features as a space-separated list ("sse42 avx2 bmi2"), static storage. */
BASALT_EXPORT const char *basalt_cpu_describe(void);

#ifdef __cplusplus
}
#endif

#endif
