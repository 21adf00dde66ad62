/* UTF-8 and the Unicode properties the string kernels need, as utf8proc
 * (DuckDB's) has them: simple case mappings and grapheme clusters. */
#ifndef BASALT_QUERY_UNICODE_H
#define BASALT_QUERY_UNICODE_H

#include <stdbool.h>
#include <stdint.h>

/* The code point that starts s[0..n) (n >= 1), its byte length in *len; a
 * byte that starts no well-formed sequence is -1 of length 1. */
int32_t basalt_qutf8_decode(const char *s, int64_t n, int *len);
/* Writes code point cp (0..0x10FFFF) to out; returns its length, 1 to 4. */
int basalt_qutf8_encode(int32_t cp, char *out);
/* s[0..n) with every character upper- or lower-cased into out, which holds
 * n + n / 2 bytes (no mapping grows a character by more than half);
 * returns the length written. Malformed bytes are copied as they are. */
int64_t basalt_qutf8_case(const char *s, int64_t n, bool upper, char *out);
/* The end of the grapheme cluster (Unicode 15.1 rules, as utf8proc applies
 * them) that starts at byte i < n of s. */
int64_t basalt_qgrapheme_next(const char *s, int64_t n, int64_t i);

#endif
