/* Transparent huge pages for a program's heap (the CLI and the benchmark
 * programs call this first thing in main).
 *
 * A read or a query writes its decoded columns into memory the process has
 * not touched before, and on these machines (virtual, nested paging) the
 * 4 KiB page faults of that first touch cost more than the decoding: a
 * 4-of-19-column scan of a 60 MiB taxi file spent 0.62 s in one process
 * with 4 KiB pages and 0.13 s with 2 MiB ones. Linux hands out huge pages
 * only to memory that asked for them (THP "madvise", the common default),
 * and glibc's malloc asks when its tunable glibc.malloc.hugetlb=1 is set.
 * Tunables are read when the process starts, so the program sets the
 * variable and executes itself again, once, before doing anything else.
 * Each start costs the dynamic loader's work (the CLI loads 54 libraries:
 * about 25 ms on these machines), so the `basalt` command is a launcher
 * that loads none and executes the CLI with the variable already set
 * (basalt_exec_path_with_huge_pages): one full start instead of two.
 *
 * glibc asks for huge pages only in its main arena (and in chunks it maps
 * apart); the arenas it makes for other threads stay in 4 KiB pages. So
 * the same re-execution sets glibc.malloc.arena_max=1, which keeps the
 * workers' allocations in the main arena: a 2-worker group-by into 200,000
 * groups took 12,800 page faults and 380 ms of CPU without it, 1,400 and
 * 260 ms with it (its small allocations still come from per-thread caches
 * without the arena's lock). The user's own arena_max wins.
 *
 * Not done: when the user already set glibc.malloc.hugetlb (their value
 * wins, and it is how the re-execution is recognised), when
 * BASALT_HUGE_PAGES=0, when the kernel's THP mode is not "madvise" (never:
 * nothing to gain; always: already on), under valgrind (its preload would
 * not follow the exec) and under AddressSanitizer (its allocator is not
 * glibc's). A failed exec leaves the process as it was. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basalt/core.h"

#define HUGETLB_TUNABLE "glibc.malloc.hugetlb"
#define ARENA_MAX_TUNABLE "glibc.malloc.arena_max"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(UNDER_ASAN)
#define HUGE_PAGES_APPLY 1

/* The kernel's THP mode: the bracketed word of
 * /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never"). */
static bool thp_mode_is(const char *mode)
{
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f == NULL)
        return false;
    char line[128] = {0};
    bool ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    char want[32];
    snprintf(want, sizeof want, "[%s]", mode);
    return ok && strstr(line, want) != NULL;
}

static bool under_valgrind(void)
{
    const char *preload = getenv("LD_PRELOAD");
    return preload != NULL && strstr(preload, "vgpreload") != NULL;
}

/* GLIBC_TUNABLES with the huge-page tunables added (malloc'd), or NULL
 * when they do not apply here. Plain malloc: this runs before anything
 * else, and the CLI's launcher (tools/basalt/launcher) links this file
 * alone, without the rest of basalt. */
static char *huge_page_tunables(void)
{
    const char *tunables = getenv("GLIBC_TUNABLES");
    const char *opt_out = getenv("BASALT_HUGE_PAGES");
    if ((tunables != NULL && strstr(tunables, HUGETLB_TUNABLE) != NULL) ||
        (opt_out != NULL && strcmp(opt_out, "0") == 0) || !thp_mode_is("madvise") ||
        under_valgrind())
        return NULL;
    size_t old_len = tunables != NULL ? strlen(tunables) : 0;
    bool user_arenas = tunables != NULL && strstr(tunables, ARENA_MAX_TUNABLE) != NULL;
    char *value = malloc(old_len + sizeof ":" HUGETLB_TUNABLE "=1:" ARENA_MAX_TUNABLE "=1");
    if (value == NULL)
        return NULL;
    sprintf(value, "%s%s%s=1%s", tunables != NULL ? tunables : "",
            tunables != NULL && old_len > 0 ? ":" : "", HUGETLB_TUNABLE,
            user_arenas ? "" : ":" ARENA_MAX_TUNABLE "=1");
    return value;
}

/* Executes `path` with `tunables` as GLIBC_TUNABLES (NULL: the environment
 * as it is). Returns only when the exec failed: the environment as it was
 * before, errno the exec's. */
static void exec_with_tunables(const char *path, char **argv, const char *tunables)
{
    bool had = getenv("GLIBC_TUNABLES") != NULL;
    /* The user's value, to put back if the exec fails (only when replaced). */
    char *saved = tunables != NULL && had ? strdup(getenv("GLIBC_TUNABLES")) : NULL;
    if (tunables != NULL && setenv("GLIBC_TUNABLES", tunables, 1) != 0) {
        free(saved);
        return;
    }
    fflush(NULL);
    execv(path, argv);
    int failed = errno;
    if (tunables != NULL && !had)
        unsetenv("GLIBC_TUNABLES");
    else if (saved != NULL)
        setenv("GLIBC_TUNABLES", saved, 1);
    free(saved);
    errno = failed;
}
#endif

void basalt_exec_with_huge_pages(char **argv)
{
#ifdef HUGE_PAGES_APPLY
    char *tunables = huge_page_tunables();
    if (tunables == NULL)
        return;
    /* Still here: the exec failed; carry on with small pages. */
    exec_with_tunables("/proc/self/exe", argv, tunables);
    free(tunables);
#else
    (void)argv;
#endif
}

void basalt_exec_path_with_huge_pages(const char *path, char **argv)
{
#ifdef HUGE_PAGES_APPLY
    char *tunables = huge_page_tunables();
    exec_with_tunables(path, argv, tunables);
    int failed = errno;
    free(tunables);
    errno = failed;
#else
    fflush(NULL);
    execv(path, argv);
#endif
}

void basalt_huge_pages_describe(char *buf, size_t cap)
{
#ifdef HUGE_PAGES_APPLY
    const char *tunables = getenv("GLIBC_TUNABLES");
    if (tunables != NULL && strstr(tunables, HUGETLB_TUNABLE "=1") != NULL &&
        thp_mode_is("madvise")) {
        snprintf(buf, cap, "on (THP madvise, GLIBC_TUNABLES=%s)", tunables);
        return;
    }
    snprintf(buf, cap, "%s", thp_mode_is("always") ? "on (THP always)" : "off");
#else
    snprintf(buf, cap, "off (not glibc's malloc)");
#endif
}
