/* The shortest-decimal conversion behind basalt_double_shortest and its
 * siblings, for tests. */
#ifndef BASALT_CORE_FLOAT_TEXT_INTERNAL_H
#define BASALT_CORE_FLOAT_TEXT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

/* The shortest decimal d x 10^*exp10 (d with no trailing zeros) in the
 * rounding interval of the binary value c x 2^q (c > 0, c < 2^53, q in
 * -1074..971), nearest to it among the shortest. The interval reaches half
 * a unit (2^q) either side, closed when c is even; `irregular` (c is the
 * smallest significand of a binade above the lowest) makes the part below a
 * quarter unit. `exact` settles every comparison with big-integer arithmetic
 * instead of only those the 128-bit product leaves in doubt (a test hook:
 * the answers must not change). */
uint64_t basalt_float_text_decimal(uint64_t c, int q, bool irregular, bool exact, int *exp10);

/* The sign (-1, 0, 1) of m 2^a 5^b - n, in big integers; both sides must fit
 * 1280 bits (|a| + 2.33 |b| + 64 <= 1280 will do). */
int basalt_float_text_compare(uint64_t m, int a, int b, uint64_t n);

#endif
