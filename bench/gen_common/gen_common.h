/* What the data generators (basalt-h2ogen, basalt-taxigen, basalt-tpchgen)
 * share on their command lines: counts, output folders, a clock. */
#ifndef BASALT_GEN_COMMON_H
#define BASALT_GEN_COMMON_H

#include <stdbool.h>
#include <stdint.h>

/* A whole number in [lo, hi], written plainly, with '_' separators, in 1e7
 * notation or with a k, M or G suffix (10M, 1e6, 79_478_796). */
bool gen_parse_count(const char *s, double lo, double hi, int64_t *out);

/* mkdir -p: the folder and its parents. */
bool gen_make_dirs(const char *dir);

/* Seconds on the monotonic clock. */
double gen_now(void);

#endif
