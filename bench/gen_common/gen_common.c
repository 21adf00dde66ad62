/* Command-line helpers shared by the data generators. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "basalt/bench.h"
#include "gen_common.h"

bool gen_parse_count(const char *s, double lo, double hi, int64_t *out)
{
    char text[64];
    size_t n = 0;
    for (const char *p = s; *p != '\0'; p++) {
        if (*p == '_')
            continue;
        if (n + 1 >= sizeof text)
            return false;
        text[n++] = *p;
    }
    text[n] = '\0';
    double mult = 1;
    if (n > 0 && strchr("kKmMgG", text[n - 1]) != NULL) {
        char c = text[--n];
        text[n] = '\0';
        mult = c == 'k' || c == 'K' ? 1e3 : c == 'm' || c == 'M' ? 1e6 : 1e9;
    }
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (n == 0 || end == text || *end != '\0' || errno != 0 || !isfinite(v))
        return false;
    v *= mult;
    if (v != floor(v) || v < lo || v > hi)
        return false;
    *out = (int64_t)v;
    return true;
}

bool gen_make_dirs(const char *dir)
{
    char path[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path)
        return false;
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        char c = path[i];
        path[i] = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return false;
        path[i] = c;
    }
    return true;
}

double gen_now(void)
{
    return (double)basalt_bench_now_ns() / 1e9;
}
