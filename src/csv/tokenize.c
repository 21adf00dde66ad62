/* The record tokenizer: one grammar for the sniffer, the header and the
 * chunk parsers. */
#include "csv_internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void basalt_csv_dialect_init(struct csv_dialect *d, uint8_t delim, bool has_quote, uint8_t quote,
                      bool backslash, bool has_comment, uint8_t comment)
{
    memset(d, 0, sizeof *d);
    d->delim = delim;
    d->has_quote = has_quote;
    d->quote = quote;
    d->backslash = backslash;
    d->has_comment = has_comment;
    d->comment = comment;
    d->stop[delim] = 1;
    d->stop['\n'] = 1;
    d->stop['\r'] = 1;
    if (has_quote)
        d->stop[quote] = 1;
}

const char *basalt_csv_tok_message(enum csv_tok t)
{
    switch (t) {
    case CSV_TOK_OK: return "ok";
    case CSV_TOK_STRAY_QUOTE: return "quote inside an unquoted field";
    case CSV_TOK_AFTER_QUOTE: return "unexpected text after a closing quote";
    case CSV_TOK_UNTERMINATED: return "unterminated quoted field";
    case CSV_TOK_BARE_CR: return "carriage return not followed by a line feed";
    case CSV_TOK_TOO_LONG: return "field longer than 4 GiB";
    }
    return "malformed record";
}

static uint32_t count_lf(const uint8_t *p, const uint8_t *end)
{
    uint32_t n = 0;
    while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        n++;
        p++;
    }
    return n;
}

/* Scans a quoted field whose opening quote is at p[-1]: *pp moves to its
 * closing quote. */
static enum csv_tok scan_quoted(const struct csv_dialect *d, const uint8_t **pp, const uint8_t *end,
                                bool *escaped, uint32_t *newlines)
{
    const uint8_t *p = *pp;
    uint8_t q = d->quote;
    if (d->backslash) {
        for (;;) {
            while (p < end && *p != q && *p != '\\') {
                *newlines += *p == '\n';
                p++;
            }
            if (p >= end) {
                *pp = p;
                return CSV_TOK_UNTERMINATED;
            }
            if (*p == q)
                break;
            *escaped = true;
            if (++p >= end) {
                *pp = p;
                return CSV_TOK_UNTERMINATED;
            }
            *newlines += *p == '\n';
            p++;
        }
    } else {
        for (;;) {
            const uint8_t *qp = memchr(p, q, (size_t)(end - p));
            if (!qp) {
                *newlines += count_lf(p, end);
                *pp = end;
                return CSV_TOK_UNTERMINATED;
            }
            *newlines += count_lf(p, qp);
            p = qp;
            if (p + 1 < end && p[1] == q) {
                *escaped = true;
                p += 2;
                continue;
            }
            break;
        }
    }
    *pp = p;
    return CSV_TOK_OK;
}

enum csv_tok basalt_csv_tokenize(const struct csv_dialect *d, const uint8_t **pp,
                                 const uint8_t *end,
                          struct csv_field *fields, uint32_t cap, struct csv_record *rec)
{
    const uint8_t *p = *pp;
    uint32_t nf = 0, nl = 0;
    enum csv_tok st = CSV_TOK_OK;
    rec->blank = false;
    rec->terminated = false;
#if defined(__SSE2__)
    const __m128i vdelim = _mm_set1_epi8((char)d->delim), vlf = _mm_set1_epi8('\n'),
                  vcr = _mm_set1_epi8('\r'),
                  vquote = _mm_set1_epi8((char)(d->has_quote ? d->quote : d->delim));
#endif
    if (*p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n')) {
        *pp = p + (*p == '\n' ? 1 : 2);
        rec->n_fields = 0;
        rec->newlines = 1;
        rec->blank = true;
        rec->terminated = true;
        return CSV_TOK_OK;
    }
    for (;;) {
        struct csv_field f;
        if (d->has_quote && p < end && *p == d->quote) {
            const uint8_t *s = ++p;
            bool escaped = false;
            st = scan_quoted(d, &p, end, &escaped, &nl);
            if (st != CSV_TOK_OK)
                break;
            if ((uint64_t)(p - s) > UINT32_MAX) {
                st = CSV_TOK_TOO_LONG;
                break;
            }
            f.ptr = s;
            f.len = (uint32_t)(p - s);
            f.quoted = true;
            f.escaped = escaped;
            p++;
            if (p < end && *p != d->delim && *p != '\n' && *p != '\r') {
                st = CSV_TOK_AFTER_QUOTE;
                break;
            }
        } else {
            const uint8_t *s = p;
#if defined(__SSE2__)
            /* Sixteen bytes at a time while they are there: the first
             * delimiter, CR, LF or quote. */
            while (p + 16 <= end) {
                __m128i v = _mm_loadu_si128((const __m128i *)p);
                __m128i m = _mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi8(v, vdelim), _mm_cmpeq_epi8(v, vlf)),
                    _mm_or_si128(_mm_cmpeq_epi8(v, vcr), _mm_cmpeq_epi8(v, vquote)));
                unsigned bits = (unsigned)_mm_movemask_epi8(m);
                if (bits) {
                    p += __builtin_ctz(bits);
                    goto scanned;
                }
                p += 16;
            }
#endif
            while (p < end && !d->stop[*p])
                p++;
#if defined(__SSE2__)
        scanned:
#endif
            if (p < end && d->has_quote && *p == d->quote && *p != d->delim) {
                st = CSV_TOK_STRAY_QUOTE;
                break;
            }
            if ((uint64_t)(p - s) > UINT32_MAX) {
                st = CSV_TOK_TOO_LONG;
                break;
            }
            f.ptr = s;
            f.len = (uint32_t)(p - s);
            f.quoted = false;
            f.escaped = false;
        }
        if (nf < cap)
            fields[nf] = f;
        nf++;
        if (p >= end)
            break;
        if (*p == d->delim) {
            p++;
            continue;
        }
        if (*p == '\n') {
            p++;
            nl++;
            rec->terminated = true;
            break;
        }
        /* *p == '\r' */
        if (p + 1 < end && p[1] == '\n') {
            p += 2;
            nl++;
            rec->terminated = true;
            break;
        }
        st = CSV_TOK_BARE_CR;
        break;
    }
    rec->n_fields = nf;
    rec->newlines = nl;
    *pp = p;
    return st;
}

size_t basalt_csv_unescape(const struct csv_dialect *d, const struct csv_field *f, uint8_t *dst)
{
    const uint8_t *p = f->ptr, *end = f->ptr + f->len;
    uint8_t *o = dst;
    if (d->backslash) {
        while (p < end) {
            if (*p == '\\' && p + 1 < end)
                p++;
            *o++ = *p++;
        }
    } else {
        uint8_t q = d->quote;
        while (p < end) {
            const uint8_t *qp = memchr(p, q, (size_t)(end - p));
            size_t run = (size_t)((qp ? qp + 1 : end) - p);
            memcpy(o, p, run);
            o += run;
            p += run;
            if (qp)
                p++; /* the second quote of the pair */
        }
    }
    return (size_t)(o - dst);
}

uint64_t basalt_csv_count_byte_scalar(const uint8_t *p, size_t n, uint8_t byte)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    const uint64_t pat = ones * byte;
    uint64_t count = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        uint64_t x = w ^ pat;
        /* high bit of each byte set where x's byte is zero; the multiply
         * sums the eight flags into the top byte */
        uint64_t t = ((x & ~high) + ~high) | x;
        count += (((~t & high) >> 7) * ones) >> 56;
    }
    for (; i < n; i++)
        count += p[i] == byte;
    return count;
}

#if defined(__SSE2__)
#include <emmintrin.h>

uint64_t basalt_csv_count_byte(const uint8_t *p, size_t n, uint8_t byte)
{
    const __m128i pat = _mm_set1_epi8((char)byte), zero = _mm_setzero_si128();
    uint64_t count = 0;
    size_t i = 0;
    while (i + 16 <= n) {
        /* at most 255 rounds before the byte counters are summed */
        size_t stop = n - i >= 255 * 16 ? i + 255 * 16 : i + (n - i) / 16 * 16;
        __m128i acc = zero;
        for (; i < stop; i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, pat));
        }
        __m128i sums = _mm_sad_epu8(acc, zero);
        count += (uint64_t)_mm_cvtsi128_si64(sums) +
                 (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
    }
    return count + basalt_csv_count_byte_scalar(p + i, n - i, byte);
}
#else
uint64_t basalt_csv_count_byte(const uint8_t *p, size_t n, uint8_t byte)
{
    return basalt_csv_count_byte_scalar(p, n, byte);
}
#endif
