/* CPU feature detection, once per process. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/core.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

static struct basalt_cpu_features cpu_features;
static char cpu_description[128];
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

#if defined(__x86_64__) || defined(__i386__)
/* The OS must save the wider registers on context switch (XGETBV), not only
 * the CPU support them. */
static uint64_t cpu_xgetbv(void)
{
    uint32_t eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((uint64_t)edx << 32) | eax;
}

static void cpu_detect_x86(struct basalt_cpu_features *f)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return;
    f->sse42 = (c >> 20) & 1;
    f->pclmulqdq = (c >> 1) & 1;
    bool osxsave = (c >> 27) & 1;
    uint64_t xcr0 = osxsave ? cpu_xgetbv() : 0;
    bool ymm = (xcr0 & 0x6) == 0x6;
    bool zmm = (xcr0 & 0xe6) == 0xe6;
    f->fma = ymm && ((c >> 12) & 1);
    if (__get_cpuid_max(0, NULL) >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        f->avx2 = ymm && ((b >> 5) & 1);
        f->bmi2 = (b >> 8) & 1;
        f->avx512f = zmm && ((b >> 16) & 1);
        f->avx512bw = zmm && ((b >> 30) & 1);
        f->avx512vl = zmm && ((b >> 31) & 1);
    }
}
#endif

static void cpu_detect(void)
{
    struct basalt_cpu_features f;
    memset(&f, 0, sizeof f);
    const char *force = getenv("BASALT_CPU");
    if (!force || strcmp(force, "scalar") != 0) {
#if defined(__x86_64__) || defined(__i386__)
        cpu_detect_x86(&f);
#elif defined(__aarch64__)
        f.neon = true;
#if defined(__linux__) && defined(HWCAP_CRC32)
        f.crc32 = (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#endif
#endif
    }
    cpu_features = f;

    struct { bool on; const char *name; } names[] = {
        {f.sse42, "sse42"}, {f.pclmulqdq, "pclmulqdq"}, {f.avx2, "avx2"}, {f.bmi2, "bmi2"},
        {f.avx512f, "avx512f"}, {f.avx512bw, "avx512bw"}, {f.avx512vl, "avx512vl"},
        {f.neon, "neon"}, {f.crc32, "crc32"}, {f.fma, "fma"},
    };
    size_t len = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!names[i].on)
            continue;
        size_t n = strlen(names[i].name);
        if (len + n + 2 > sizeof cpu_description)
            break;
        if (len)
            cpu_description[len++] = ' ';
        memcpy(cpu_description + len, names[i].name, n);
        len += n;
    }
    cpu_description[len] = '\0';
    if (len == 0)
        strcpy(cpu_description, "none (scalar kernels)");
}

const struct basalt_cpu_features *basalt_cpu_features(void)
{
    pthread_once(&cpu_once, cpu_detect);
    return &cpu_features;
}

const char *basalt_cpu_describe(void)
{
    pthread_once(&cpu_once, cpu_detect);
    return cpu_description;
}
