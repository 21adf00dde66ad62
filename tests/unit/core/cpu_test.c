#include "test.h"

#include <stdlib.h>

TEST(cpu_features_consistent)
{
    const struct basalt_cpu_features *f = basalt_cpu_features();
    CHECK(f == basalt_cpu_features());
    const char *d = basalt_cpu_describe();
    CHECK(d != NULL && d[0] != '\0');
    /* Wider vector extensions imply the narrower ones on every real CPU. */
    if (f->avx512bw)
        CHECK(f->avx512f);
    if (f->avx512f)
        CHECK(f->avx2);
    const char *force = getenv("BASALT_CPU");
    if (force && strcmp(force, "scalar") == 0)
        CHECK(!f->sse42 && !f->avx2 && !f->neon);
#if defined(__x86_64__) && defined(__SSE4_2__)
    else
        CHECK(f->sse42); /* the compiler was told the CPU has it */
#endif
#if defined(__x86_64__)
    if (f->avx2)
        CHECK(strstr(d, "avx2") != NULL);
#endif
}
