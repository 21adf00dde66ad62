/* DuckDB's string functions beyond the core ones of k_string.c: left/right,
 * lpad/rpad, strpos, reverse, repeat, split_part, concat_ws, ascii/chr,
 * translate, regexp_replace/regexp_extract, and upper/lower over all of
 * Unicode (unicode.c). Lengths and positions count code points, as
 * DuckDB's do; reverse alone keeps grapheme clusters whole, as DuckDB's
 * does. Regular expressions are DuckDB's RE2 syntax, rewritten into the
 * POSIX ERE that glibc's regcomp takes (re2_to_ere says how far that goes). */
#include <inttypes.h>
#include <locale.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "query_internal.h"
#include "unicode.h"

#define A(i) (x->vec[st->args[i]])
#define OUT (x->vec[st->out])

/* DuckDB's largest string, which substring's length and repeat's result
 * must stay within. */
#define QSTR_MAX INT64_C(4294967295)

/* The result's validity: the AND of the first n arguments' (concat_ws: the
 * separator's alone). */
static void valid_first(struct qexec *x, const struct qstep *st, int n)
{
    bool any = false;
    for (int k = 0; k < n; k++)
        any |= A(k).valid != NULL;
    if (!any) {
        OUT.valid = NULL;
        return;
    }
    memset(OUT.vbuf, 0xff, QWORDS * 8);
    for (int k = 0; k < n; k++)
        if (A(k).valid)
            for (int w = 0; w < QWORDS; w++)
                OUT.vbuf[w] &= A(k).valid[w];
    OUT.valid = OUT.vbuf;
}

/* A string result, validity from all arguments, every row '' to start. */
static struct qstr *str_result(struct qexec *x, const struct qstep *st)
{
    valid_first(x, st, st->n_args);
    struct qstr *o = OUT.dbuf;
    OUT.data = o;
    for (int i = 0; i < x->n; i++)
        o[i] = (struct qstr){"", 0};
    return o;
}

static int64_t chars(const char *p, int64_t n)
{
    int64_t c = 0;
    for (int64_t i = 0; i < n; i++)
        c += ((unsigned char)p[i] & 0xC0) != 0x80;
    return c;
}

/* Byte offset of code point k of p[0..n), clamped to n. */
static int64_t char_offset(const char *p, int64_t n, int64_t k)
{
    int64_t i = 0;
    while (i < n && k > 0) {
        i++;
        while (i < n && ((unsigned char)p[i] & 0xC0) == 0x80)
            i++;
        k--;
    }
    return i;
}

static bool is_ascii(const struct qstr *s)
{
    for (int64_t i = 0; i < s->len; i++)
        if ((unsigned char)s->ptr[i] >= 0x80)
            return false;
    return true;
}

/* Copies n bytes to w (src may be NULL when n is 0); returns w + n. */
static char *put(char *w, const char *src, int64_t n)
{
    if (n > 0)
        memcpy(w, src, (size_t)n);
    return w + n;
}

/* ---------------------------------------------------------------- slices and padding */

/* left(s, n) and right(s, n): the first or last n characters; a negative n
 * all but the last or first -n. left checks n as DuckDB's substring does. */
static basalt_status k_left_right(const struct qstep *st, struct qexec *x)
{
    const struct qstr *a = A(0).data;
    const int64_t *k = A(1).data;
    struct qstr *o = str_result(x, st);
    for (int i = 0; i < x->n; i++) {
        if (!qrow_valid(OUT.valid, i))
            continue;
        const struct qstr s = a[i];
        int64_t n = k[i];
        if (st->op == QOP_LEFT) {
            if (n > QSTR_MAX && qcounts(x, st, i))
                return basalt_qexec_error(x, st, BASALT_LIMIT,
                                          "Substring length outside of supported range (> %" PRId64 ")",
                                          QSTR_MAX);
            int64_t len = n >= 0 ? n : chars(s.ptr, s.len) + n;
            o[i] = (struct qstr){s.ptr, char_offset(s.ptr, s.len, len < 0 ? 0 : len)};
            continue;
        }
        int64_t len = chars(s.ptr, s.len), keep;
        if (n >= 0)
            keep = n < len ? n : len;
        else
            keep = n == INT64_MIN || -n >= len ? 0 : len + n;
        int64_t b = char_offset(s.ptr, s.len, len - keep);
        o[i] = (struct qstr){s.ptr + b, s.len - b};
    }
    return BASALT_OK;
}

/* lpad(s, n, fill) and rpad: s cut to n characters, or filled to n on the
 * left or right with fill repeated (and cut); a fill that is needed but
 * empty is an error, as in DuckDB. */
static basalt_status k_pad(const struct qstep *st, struct qexec *x)
{
    const struct qstr *a = A(0).data, *fill = A(2).data;
    const int32_t *k = A(1).data;
    bool left = st->op == QOP_LPAD;
    struct qstr *o = str_result(x, st);
    for (int i = 0; i < x->n; i++) {
        if (!qrow_valid(OUT.valid, i))
            continue;
        const struct qstr s = a[i], f = fill[i];
        int64_t n = k[i] < 0 ? 0 : k[i];
        int64_t keep = char_offset(s.ptr, s.len, n);
        int64_t need = n - chars(s.ptr, keep);
        if (need > 0 && f.len == 0) {
            if (qcounts(x, st, i))
                return basalt_qexec_error(x, st, BASALT_INVALID_ARG, "Insufficient padding in %s.",
                                          left ? "LPAD" : "RPAD");
            continue;
        }
        if (need == 0) {
            o[i] = (struct qstr){s.ptr, keep};
            continue;
        }
        int64_t fc = chars(f.ptr, f.len);
        if (fc == 0) /* stray continuation bytes: one character */
            fc = 1;
        int64_t whole = need / fc, part = char_offset(f.ptr, f.len, need % fc);
        int64_t len = keep + whole * f.len + part;
        char *p = basalt_qstr_alloc(x, (size_t)len);
        if (!p)
            return BASALT_NOMEM;
        char *w = left ? p : put(p, s.ptr, keep);
        for (int64_t r = 0; r < whole; r++)
            w = put(w, f.ptr, f.len);
        w = put(w, f.ptr, part);
        if (left)
            put(w, s.ptr, keep);
        o[i] = (struct qstr){p, len};
    }
    return BASALT_OK;
}

/* strpos(s, needle), instr: the 1-based character position of the first
 * occurrence, 0 when there is none; an empty needle is at 1. */
static basalt_status k_strpos(const struct qstep *st, struct qexec *x)
{
    const struct qstr *a = A(0).data, *b = A(1).data;
    int64_t *o = OUT.dbuf;
    valid_first(x, st, 2);
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        o[i] = 0;
        if (!qrow_valid(OUT.valid, i))
            continue;
        if (b[i].len == 0) {
            o[i] = 1;
            continue;
        }
        const char *f = b[i].len > a[i].len
                            ? NULL
                            : memmem(a[i].ptr, (size_t)a[i].len, b[i].ptr, (size_t)b[i].len);
        if (f)
            o[i] = 1 + chars(a[i].ptr, f - a[i].ptr);
    }
    return BASALT_OK;
}

/* Grapheme clusters in reverse order; ASCII byte by byte, as DuckDB does
 * (so "\r\n" turns round there, but not in other text). */
static basalt_status k_reverse(const struct qstep *st, struct qexec *x)
{
    const struct qstr *a = A(0).data;
    struct qstr *o = str_result(x, st);
    for (int i = 0; i < x->n; i++) {
        const struct qstr s = a[i];
        if (!qrow_valid(OUT.valid, i) || s.len == 0)
            continue;
        char *p = basalt_qstr_alloc(x, (size_t)s.len);
        if (!p)
            return BASALT_NOMEM;
        if (is_ascii(&s)) {
            for (int64_t k = 0; k < s.len; k++)
                p[s.len - 1 - k] = s.ptr[k];
        } else {
            for (int64_t b = 0, e; b < s.len; b = e) {
                e = basalt_qgrapheme_next(s.ptr, s.len, b);
                memcpy(p + s.len - e, s.ptr + b, (size_t)(e - b));
            }
        }
        o[i] = (struct qstr){p, s.len};
    }
    return BASALT_OK;
}

/* repeat(s, n): s n times, '' for n <= 0; a result over DuckDB's largest
 * string is an error (its message shows the size as DuckDB's unsigned
 * 64-bit product does). */
static basalt_status k_repeat(const struct qstep *st, struct qexec *x)
{
    const struct qstr *a = A(0).data;
    const int64_t *k = A(1).data;
    struct qstr *o = str_result(x, st);
    for (int i = 0; i < x->n; i++) {
        const struct qstr s = a[i];
        int64_t n = k[i];
        if (!qrow_valid(OUT.valid, i) || n <= 0 || s.len == 0)
            continue;
        if (n > QSTR_MAX / s.len) {
            if (qcounts(x, st, i))
                return basalt_qexec_error(x, st, BASALT_LIMIT,
                                          "Cannot create a string of size: '%" PRIu64
                                          "', the maximum supported string size is: '%" PRId64 "'",
                                          (uint64_t)s.len * (uint64_t)n, QSTR_MAX);
            continue;
        }
        char *p = basalt_qstr_alloc(x, (size_t)(s.len * n));
        if (!p)
            return BASALT_NOMEM;
        for (int64_t r = 0, w = 0; r < n; r++, w += s.len)
            memcpy(p + w, s.ptr, (size_t)s.len);
        o[i] = (struct qstr){p, s.len * n};
    }
    return BASALT_OK;
}

/* Where sep next occurs in s[from..), or -1. */
static int64_t find_from(const struct qstr *s, int64_t from, const struct qstr *sep)
{
    if (sep->len > s->len - from)
        return -1;
    const char *f = memmem(s->ptr + from, (size_t)(s->len - from), sep->ptr, (size_t)sep->len);
    return f ? f - s->ptr : -1;
}

/* split_part(s, sep, k): DuckDB's string_split(s, sep)[k] or '' past
 * either end: k from 1, a negative k from the end; an empty sep splits into
 * characters. */
static basalt_status k_split_part(const struct qstep *st, struct qexec *x)
{
    const struct qstr *a = A(0).data, *b = A(1).data;
    const int64_t *k = A(2).data;
    struct qstr *o = str_result(x, st);
    for (int i = 0; i < x->n; i++) {
        if (!qrow_valid(OUT.valid, i) || k[i] == 0)
            continue;
        const struct qstr s = a[i], sep = b[i];
        int64_t part = k[i];
        if (part < 0) {
            int64_t parts = sep.len == 0 ? chars(s.ptr, s.len) : 1;
            for (int64_t at = 0; sep.len > 0 && (at = find_from(&s, at, &sep)) >= 0; at += sep.len)
                parts++;
            part += parts + 1;
            if (part < 1)
                continue;
        }
        if (sep.len == 0) {
            int64_t b0 = char_offset(s.ptr, s.len, part - 1);
            o[i] = (struct qstr){s.ptr + b0, char_offset(s.ptr + b0, s.len - b0, 1)};
            continue;
        }
        int64_t start = 0;
        while (--part > 0 && start >= 0) {
            start = find_from(&s, start, &sep);
            if (start >= 0)
                start += sep.len;
        }
        if (start < 0)
            continue;
        int64_t end = find_from(&s, start, &sep);
        o[i] = (struct qstr){s.ptr + start, (end < 0 ? s.len : end) - start};
    }
    return BASALT_OK;
}

/* concat_ws(sep, ...): the non-NULL arguments joined by sep; NULL when sep
 * is. */
static basalt_status k_concat_ws(const struct qstep *st, struct qexec *x)
{
    const struct qstr *sep = A(0).data;
    valid_first(x, st, 1);
    struct qstr *o = OUT.dbuf;
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        o[i] = (struct qstr){"", 0};
        if (!qrow_valid(OUT.valid, i))
            continue;
        int64_t len = 0, n = 0;
        for (int k = 1; k < st->n_args; k++)
            if (qrow_valid(A(k).valid, i)) {
                len += ((const struct qstr *)A(k).data)[i].len;
                n++;
            }
        if (n > 1)
            len += (n - 1) * sep[i].len;
        char *p = basalt_qstr_alloc(x, (size_t)len), *w = p;
        if (!p)
            return BASALT_NOMEM;
        bool first = true;
        for (int k = 1; k < st->n_args; k++) {
            if (!qrow_valid(A(k).valid, i))
                continue;
            if (!first)
                w = put(w, sep[i].ptr, sep[i].len);
            first = false;
            const struct qstr *s = &((const struct qstr *)A(k).data)[i];
            w = put(w, s->ptr, s->len);
        }
        o[i] = (struct qstr){p, len};
    }
    return BASALT_OK;
}

/* ---------------------------------------------------------------- characters */

/* ascii(s): the code point of the first character, 0 for ''. */
static basalt_status k_ascii(const struct qstep *st, struct qexec *x)
{
    const struct qstr *a = A(0).data;
    int32_t *o = OUT.dbuf;
    valid_first(x, st, 1);
    OUT.data = o;
    for (int i = 0; i < x->n; i++) {
        o[i] = 0;
        if (!qrow_valid(OUT.valid, i) || a[i].len == 0)
            continue;
        int len;
        int32_t cp = basalt_qutf8_decode(a[i].ptr, a[i].len, &len);
        o[i] = cp >= 0 ? cp : (unsigned char)a[i].ptr[0];
    }
    return BASALT_OK;
}

/* chr(n): the character of code point n; surrogates and numbers outside
 * Unicode are errors. */
static basalt_status k_chr(const struct qstep *st, struct qexec *x)
{
    const int32_t *a = A(0).data;
    struct qstr *o = str_result(x, st);
    for (int i = 0; i < x->n; i++) {
        if (!qrow_valid(OUT.valid, i))
            continue;
        int32_t cp = a[i];
        if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            if (qcounts(x, st, i))
                return basalt_qexec_error(x, st, BASALT_INVALID_ARG,
                                          "Invalid UTF8 Codepoint %" PRId32, cp);
            continue;
        }
        char *p = basalt_qstr_alloc(x, 4);
        if (!p)
            return BASALT_NOMEM;
        o[i] = (struct qstr){p, basalt_qutf8_encode(cp, p)};
    }
    return BASALT_OK;
}

/* translate(s, from, to) into out (NULL: its length only): each character
 * of s found in from becomes the character at the same place in to, or
 * goes when to is shorter; the first place in from counts. */
static int64_t translate_into(const struct qstr *s, const struct qstr *from, const struct qstr *to,
                              char *out)
{
    int64_t w = 0;
    for (int64_t i = 0, len; i < s->len; i += len) {
        int n;
        basalt_qutf8_decode(s->ptr + i, s->len - i, &n);
        len = n;
        int64_t at = 0, j = 0;
        while (j < from->len) {
            basalt_qutf8_decode(from->ptr + j, from->len - j, &n);
            if (n == len && memcmp(from->ptr + j, s->ptr + i, (size_t)len) == 0)
                break;
            j += n;
            at++;
        }
        const char *c = s->ptr + i;
        int64_t clen = len;
        if (j < from->len) {
            int64_t t = char_offset(to->ptr, to->len, at);
            c = to->ptr + t;
            clen = char_offset(c, to->len - t, 1);
        }
        if (out)
            put(out + w, c, clen);
        w += clen;
    }
    return w;
}

static basalt_status k_translate(const struct qstep *st, struct qexec *x)
{
    const struct qstr *a = A(0).data, *from = A(1).data, *to = A(2).data;
    struct qstr *o = str_result(x, st);
    for (int i = 0; i < x->n; i++) {
        if (!qrow_valid(OUT.valid, i) || a[i].len == 0)
            continue;
        int64_t len = translate_into(&a[i], &from[i], &to[i], NULL);
        char *p = basalt_qstr_alloc(x, (size_t)len);
        if (!p)
            return BASALT_NOMEM;
        o[i] = (struct qstr){p, translate_into(&a[i], &from[i], &to[i], p)};
    }
    return BASALT_OK;
}

/* upper(s), lower(s): utf8proc's simple case mappings, character by
 * character (ß uppercases to ẞ, not SS). */
static basalt_status k_case(const struct qstep *st, struct qexec *x)
{
    const struct qstr *a = A(0).data;
    struct qstr *o = str_result(x, st);
    for (int i = 0; i < x->n; i++) {
        const struct qstr s = a[i];
        if (!qrow_valid(OUT.valid, i) || s.len == 0)
            continue;
        char *p = basalt_qstr_alloc(x, (size_t)(is_ascii(&s) ? s.len : s.len + s.len / 2));
        if (!p)
            return BASALT_NOMEM;
        o[i] = (struct qstr){p, basalt_qutf8_case(s.ptr, s.len, st->op == QOP_UPPER, p)};
    }
    return BASALT_OK;
}

/* ---------------------------------------------------------------- regular expressions */

/* A compiled regexp_replace/regexp_extract pattern. */
struct qregex {
    regex_t re; /* first: basalt_query_program_free regfrees the step's data */
    int32_t flags; /* QRE_* */
};

/* glibc's regex reads characters in the thread's locale: it compiles and
 * matches under C.UTF-8, so that `.` is a character, not a byte. Where
 * there is no C.UTF-8 the process's locale stays. */
static locale_t utf8_locale;
static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;

static void utf8_init(void)
{
    utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

/* Switches to C.UTF-8; returns what leave_utf8 restores. */
static locale_t enter_utf8(void)
{
    pthread_once(&utf8_once, utf8_init);
    return utf8_locale ? uselocale(utf8_locale) : (locale_t)0;
}

static void leave_utf8(locale_t old)
{
    if (old)
        uselocale(old);
}

static bool refuse(char *msg, size_t cap, const char *why)
{
    snprintf(msg, cap, "%s", why);
    return false;
}

/* An RE2 escape (after its backslash) in POSIX ERE: the Perl classes \d \w
 * \s as brackets (ASCII, as RE2's), their negations outside brackets only,
 * \t \n \r \f \v \a as characters, \A \z as ^ $, \b \B as glibc's; an
 * escaped punctuation character is itself (inside brackets ] - ^ [ as
 * collating symbols, the one POSIX spelling that always works). */
static bool re2_escape(const char *p, size_t n, size_t *i, bool in_bracket, char *o, size_t *w,
                       char *msg, size_t cap)
{
    if (*i >= n)
        return refuse(msg, cap, "trailing \\");
    char c = p[(*i)++];
    const char *cls = NULL, *lit = NULL;
    char one[2] = {c, 0};
    switch (c) {
    case 'd': case 'D': cls = "0-9"; break;
    case 'w': case 'W': cls = "0-9A-Za-z_"; break;
    case 's': case 'S': cls = "\t\n\f\r "; break;
    case 't': one[0] = '\t'; break;
    case 'n': one[0] = '\n'; break;
    case 'r': one[0] = '\r'; break;
    case 'f': one[0] = '\f'; break;
    case 'v': one[0] = '\v'; break;
    case 'a': one[0] = '\a'; break;
    case 'A': lit = "^"; break;
    case 'z': lit = "$"; break;
    case 'b': lit = "\\b"; break;
    case 'B': lit = "\\B"; break;
    default:
        if ((unsigned char)c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') ||
            (c >= 'a' && c <= 'z')) {
            snprintf(msg, cap, "unsupported escape \\%c (basalt's regular expressions are POSIX ERE "
                               "with RE2's \\d \\w \\s)", c);
            return false;
        }
    }
    bool negated = c == 'D' || c == 'W' || c == 'S';
    if (in_bracket && (lit || negated)) {
        snprintf(msg, cap, "unsupported escape \\%c in a bracket expression", c);
        return false;
    }
    char buf[24];
    if (cls)
        snprintf(buf, sizeof buf, in_bracket ? "%s" : negated ? "[^%s]" : "[%s]", cls);
    else if (lit)
        snprintf(buf, sizeof buf, "%s", lit);
    else if (in_bracket)
        snprintf(buf, sizeof buf, one[0] && strchr("]-^[", one[0]) ? "[.%s.]" : "%s", one);
    else
        snprintf(buf, sizeof buf, one[0] && strchr(".[]()*+?{}|^$\\", one[0]) ? "\\%s" : "%s", one);
    size_t k = strlen(buf);
    memcpy(o + *w, buf, k);
    *w += k;
    return true;
}

/* RE2's [:class:]es, ASCII only (glibc's follow the locale: [:upper:]
 * would take Å). */
static const char *const re2_classes[][2] = {
    {"alnum", "0-9A-Za-z"}, {"alpha", "A-Za-z"}, {"ascii", "\x01-\x7f"}, {"blank", "\t "},
    {"cntrl", "\x01-\x1f\x7f"}, {"digit", "0-9"}, {"graph", "!-~"}, {"lower", "a-z"},
    {"print", " -~"}, {"punct", "!-/:-@[-`{-~"}, {"space", "\t\n\v\f\r "},
    {"upper", "A-Z"}, {"word", "0-9A-Za-z_"}, {"xdigit", "0-9A-Fa-f"},
};

/* A bracket expression from after its [: a leading ^ and ] as they are,
 * [:class:] as RE2's, RE2's escapes, and a [ that would start a POSIX [. or
 * [= as a collating symbol. */
static bool re2_bracket(const char *p, size_t n, size_t *i, char *o, size_t *w, char *msg,
                        size_t cap)
{
    o[(*w)++] = '[';
    if (*i < n && p[*i] == '^')
        o[(*w)++] = p[(*i)++];
    if (*i < n && p[*i] == ']')
        o[(*w)++] = p[(*i)++];
    while (*i < n && p[*i] != ']') {
        char c = p[(*i)++];
        if (c == '\\') {
            if (!re2_escape(p, n, i, true, o, w, msg, cap))
                return false;
        } else if (c == '[' && *i < n && p[*i] == ':') {
            const char *name = p + *i + 1, *end = memmem(name, n - *i - 1, ":]", 2);
            size_t k = 0, nk = sizeof re2_classes / sizeof re2_classes[0];
            while (end && k < nk && (strlen(re2_classes[k][0]) != (size_t)(end - name) ||
                                     memcmp(re2_classes[k][0], name, (size_t)(end - name)) != 0))
                k++;
            if (!end || k == nk) {
                snprintf(msg, cap, "unsupported character class [%.*s", end ? (int)(end - name) + 3 : 1,
                         p + *i);
                return false;
            }
            size_t len = strlen(re2_classes[k][1]);
            memcpy(o + *w, re2_classes[k][1], len);
            *w += len;
            *i = (size_t)(end - p) + 2;
        } else if (c == '[') {
            memcpy(o + *w, "[.[.]", 5);
            *w += 5;
        } else {
            o[(*w)++] = c;
        }
    }
    if (*i >= n)
        return refuse(msg, cap, "missing ]");
    o[(*w)++] = p[(*i)++];
    return true;
}

/* RE2 pattern p[0..n) as POSIX ERE into o (8 * n + 1 bytes): `.` stops at a
 * newline unless QRE_DOT_NL (option 's'), leading (?i) (?s) flags become
 * options, and escapes go through re2_escape; QRE_LITERAL escapes every
 * special character. What POSIX cannot say is refused with the reason in
 * msg: other (?...) groups, non-greedy quantifiers, letter escapes beyond
 * re2_escape's. POSIX's leftmost-longest matching stays: a|ab finds ab
 * where RE2 finds a. */
static bool re2_to_ere(const char *p, size_t n, int32_t *flags, char *o, char *msg, size_t cap)
{
    size_t w = 0, i = 0;
    if (*flags & QRE_LITERAL) {
        for (; i < n; i++) {
            if (p[i] && strchr(".[]()*+?{}|^$\\", p[i]))
                o[w++] = '\\';
            o[w++] = p[i];
        }
        o[w] = 0;
        return true;
    }
    while (i + 3 < n && p[i] == '(' && p[i + 1] == '?' && (p[i + 2] == 'i' || p[i + 2] == 's')) {
        size_t j = i + 2;
        int32_t f = 0;
        for (; j < n && (p[j] == 'i' || p[j] == 's'); j++)
            f |= p[j] == 'i' ? QRE_ICASE : QRE_DOT_NL;
        if (j >= n || p[j] != ')')
            break;
        *flags |= f;
        i = j + 1;
    }
    bool quantified = false, in_braces = false; /* a ? after a quantifier: non-greedy */
    while (i < n) {
        char c = p[i++];
        if (c == '?' && quantified)
            return refuse(msg, cap, "non-greedy quantifiers are not supported");
        quantified = false;
        switch (c) {
        case '.':
            if (*flags & QRE_DOT_NL)
                o[w++] = '.';
            else {
                memcpy(o + w, "[^\n]", 4);
                w += 4;
            }
            break;
        case '*': case '+': case '?':
            o[w++] = c;
            quantified = true;
            break;
        case '{': case '}':
            o[w++] = c;
            quantified = c == '}' && in_braces;
            in_braces = c == '{';
            break;
        case '(':
            if (i < n && p[i] == '?')
                return refuse(msg, cap, "(?...) groups are not supported");
            o[w++] = c;
            break;
        case '[':
            if (!re2_bracket(p, n, &i, o, &w, msg, cap))
                return false;
            break;
        case '\\':
            if (!re2_escape(p, n, &i, false, o, &w, msg, cap))
                return false;
            break;
        default:
            o[w++] = c;
        }
    }
    o[w] = 0;
    return true;
}

/* Compiles p[0..n) under flags into re (under C.UTF-8); false with the
 * reason in msg. */
static bool regex_compile(regex_t *re, const char *p, size_t n, int32_t flags, char *msg,
                          size_t cap)
{
    char *ere = basalt_malloc(8 * n + 8);
    if (!ere)
        return refuse(msg, cap, "out of memory");
    /* QRE_FULL: ^(pattern)$, so that the whole subject must match */
    size_t at = flags & QRE_FULL ? 2 : 0;
    bool ok = re2_to_ere(p, n, &flags, ere + at, msg, cap);
    if (ok && (flags & QRE_FULL)) {
        memcpy(ere, "^(", 2);
        memcpy(ere + strlen(ere), ")$", 3);
    }
    if (ok) {
        locale_t old = enter_utf8();
        int rc = regcomp(re, ere, REG_EXTENDED | (flags & QRE_ICASE ? REG_ICASE : 0));
        leave_utf8(old);
        if (rc != 0) {
            regerror(rc, re, msg, cap);
            ok = false;
        }
    }
    basalt_free(ere);
    return ok;
}

bool basalt_qregex_check(const char *p, size_t n, int32_t flags, char *msg, size_t cap)
{
    regex_t re;
    if (!regex_compile(&re, p, n, flags, msg, cap))
        return false;
    regfree(&re);
    return true;
}

basalt_status basalt_query_regex_search(const char *pattern, size_t pattern_len,
                                       const char *subject, size_t subject_len, bool *matched,
                                       struct basalt_error *err)
{
    regex_t re;
    char msg[256];
    if (!pattern || !subject || !matched)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    if (!regex_compile(&re, pattern, pattern_len, 0, msg, sizeof msg))
        return basalt_error_set(err, BASALT_INVALID_ARG, "Failed to compile regex \"%.*s\": %s",
                                (int)pattern_len, pattern, msg);
    char *z = basalt_malloc(subject_len + 1);
    if (!z) {
        regfree(&re);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    memcpy(z, subject, subject_len);
    z[subject_len] = '\0';
    locale_t old = enter_utf8();
    *matched = regexec(&re, z, 0, NULL, 0) == 0;
    leave_utf8(old);
    basalt_free(z);
    regfree(&re);
    return BASALT_OK;
}

/* s copied with a NUL after it, into the vector's strings: glibc's
 * regexec honours REG_STARTEND's end, but the sanitizers' interceptor of
 * regexec reads the subject up to a NUL. */
static bool terminated(struct qexec *x, const struct qstr *s, struct qstr *out)
{
    char *z = basalt_qstr_alloc(x, (size_t)s->len + 1);
    if (z == NULL)
        return false;
    if (s->len > 0)
        memcpy(z, s->ptr, (size_t)s->len);
    z[s->len] = '\0';
    *out = (struct qstr){z, s->len};
    return true;
}

/* The first match of re in s (NUL-terminated: terminated()) at or after
 * byte from, groups into m[0..nm). */
static bool search(const regex_t *re, const struct qstr *s, int64_t from, regmatch_t *m, size_t nm)
{
    m[0].rm_so = (regoff_t)from;
    m[0].rm_eo = (regoff_t)s->len;
    return regexec(re, s->ptr ? s->ptr : "", nm, m, REG_STARTEND) == 0;
}

/* RE2's rewrite of one match (groups m[0..10)) into out (NULL: the length
 * only): \0 to \9 the groups, \\ a backslash. It stops at any other escape,
 * as RE2's does (regexp_replace checks the rewrite first where that
 * matters). */
static int64_t rewrite(const struct qstr *rw, const char *s, const regmatch_t *m, char *out)
{
    int64_t w = 0;
    for (int64_t i = 0; i < rw->len; i++) {
        const char *piece = &rw->ptr[i];
        int64_t len = 1;
        if (rw->ptr[i] == '\\') {
            char c = ++i < rw->len ? rw->ptr[i] : 0;
            if (c >= '0' && c <= '9') {
                const regmatch_t *g = &m[c - '0'];
                len = g->rm_so >= 0 ? g->rm_eo - g->rm_so : 0;
                piece = len ? s + g->rm_so : piece;
            } else if (c != '\\') {
                break;
            }
        }
        if (out && len)
            memcpy(out + w, piece, (size_t)len);
        w += len;
    }
    return w;
}

/* Whether RE2 takes the rewrite: groups the pattern has, no escape but \0 to
 * \9 and \\ (else the string stays as it is). */
static bool rewrite_valid(const struct qstr *rw, size_t groups, bool *escapes_ok)
{
    *escapes_ok = true;
    for (int64_t i = 0; i < rw->len; i++) {
        if (rw->ptr[i] != '\\')
            continue;
        char c = ++i < rw->len ? rw->ptr[i] : 0;
        if (c >= '0' && c <= '9') {
            if ((size_t)(c - '0') > groups)
                return false;
        } else if (c != '\\') {
            *escapes_ok = false;
        }
    }
    return true;
}

/* The matches regexp_replace rewrites, ten group slots each. */
struct matches {
    regmatch_t *m;
    size_t n, cap;
};

/* RE2's Replace (the first match) or GlobalReplace (every one; an empty
 * match where the last one ended is passed over, the character after it
 * kept) of rw into s. */
static basalt_status replace_row(struct qexec *x, const struct qregex *r, const struct qstr *s,
                                 const struct qstr *rw, struct matches *ms, struct qstr *o)
{
    bool global = (r->flags & QRE_GLOBAL) != 0, escapes_ok;
    *o = *s;
    if (!rewrite_valid(rw, r->re.re_nsub, &escapes_ok) || (!global && !escapes_ok))
        return BASALT_OK;
    size_t nm = r->re.re_nsub + 1 < 10 ? r->re.re_nsub + 1 : 10;
    ms->n = 0;
    for (int64_t p = 0, last_end = -1; p <= s->len;) {
        if (ms->n == ms->cap) {
            size_t cap = ms->cap ? 2 * ms->cap : 16;
            regmatch_t *m = basalt_realloc(ms->m, cap * 10 * sizeof *m);
            if (!m)
                return basalt_error_set(x->err, BASALT_NOMEM, "out of memory");
            ms->m = m;
            ms->cap = cap;
        }
        regmatch_t *m = &ms->m[ms->n * 10];
        if (!search(&r->re, s, p, m, nm))
            break;
        if (m[0].rm_so == m[0].rm_eo && m[0].rm_so == last_end) {
            if (p == s->len)
                break;
            int len;
            basalt_qutf8_decode(s->ptr + p, s->len - p, &len);
            p += len;
            continue;
        }
        ms->n++;
        p = last_end = m[0].rm_eo;
        if (!global)
            break;
    }
    if (ms->n == 0)
        return BASALT_OK;
    int64_t len = s->len;
    for (size_t k = 0; k < ms->n; k++) {
        const regmatch_t *m = &ms->m[k * 10];
        len += rewrite(rw, s->ptr, m, NULL) - (m[0].rm_eo - m[0].rm_so);
    }
    char *out = basalt_qstr_alloc(x, (size_t)len), *w = out;
    if (!out)
        return BASALT_NOMEM;
    int64_t at = 0;
    for (size_t k = 0; k < ms->n; k++) {
        const regmatch_t *m = &ms->m[k * 10];
        w = put(w, s->ptr + at, m[0].rm_so - at);
        w += rewrite(rw, s->ptr, m, w);
        at = m[0].rm_eo;
    }
    put(w, s->ptr + at, s->len - at);
    *o = (struct qstr){out, len};
    return BASALT_OK;
}

/* regexp_replace(s, pattern, replacement[, options]). */
static basalt_status k_regexp_replace(const struct qstep *st, struct qexec *x)
{
    const struct qstr *a = A(0).data, *rw = A(2).data;
    struct qstr *o = str_result(x, st);
    struct matches ms = {0};
    basalt_status rs = BASALT_OK;
    locale_t old = enter_utf8();
    for (int i = 0; i < x->n && rs == BASALT_OK; i++) {
        struct qstr s;
        if (!qrow_valid(OUT.valid, i))
            continue;
        rs = terminated(x, &a[i], &s) ? replace_row(x, st->data, &s, &rw[i], &ms, &o[i])
                                       : basalt_error_set(x->err, BASALT_NOMEM, "out of memory");
    }
    leave_utf8(old);
    basalt_free(ms.m);
    return rs;
}

/* regexp_extract(s, pattern[, group[, options]]): the group of the first
 * match (a view of s), '' when there is no match or no such group. */
static basalt_status k_regexp_extract(const struct qstep *st, struct qexec *x)
{
    const struct qstr *a = A(0).data;
    const struct qregex *r = st->data;
    size_t g = (size_t)(r->flags & QRE_GROUP);
    struct qstr *o = str_result(x, st);
    if (g == QRE_GROUP_NULL || g > r->re.re_nsub)
        return BASALT_OK;
    regmatch_t m[10];
    locale_t old = enter_utf8();
    basalt_status rs = BASALT_OK;
    for (int i = 0; i < x->n && rs == BASALT_OK; i++) {
        struct qstr s;
        if (!qrow_valid(OUT.valid, i))
            continue;
        if (!terminated(x, &a[i], &s))
            rs = basalt_error_set(x->err, BASALT_NOMEM, "out of memory");
        else if (search(&r->re, &s, 0, m, g + 1) && m[g].rm_so >= 0)
            o[i] = (struct qstr){s.ptr + m[g].rm_so, m[g].rm_eo - m[g].rm_so};
    }
    leave_utf8(old);
    return rs;
}

/* Patterns compiled for a column of patterns: the last few distinct ones
 * of the vector, replaced round-robin. */
#define PATTERN_CACHE 8
struct pattern_cache {
    struct qstr text[PATTERN_CACHE];
    regex_t re[PATTERN_CACHE];
    bool used[PATTERN_CACHE];
    int next;
};

static const regex_t *cached_pattern(struct pattern_cache *c, const struct qstr *p, int32_t flags,
                                     char *msg, size_t cap)
{
    for (int k = 0; k < PATTERN_CACHE; k++)
        if (c->used[k] && c->text[k].len == p->len &&
            (p->len == 0 || memcmp(c->text[k].ptr, p->ptr, (size_t)p->len) == 0))
            return &c->re[k];
    int k = c->next;
    c->next = (c->next + 1) % PATTERN_CACHE;
    if (c->used[k])
        regfree(&c->re[k]);
    c->used[k] = regex_compile(&c->re[k], p->ptr ? p->ptr : "", (size_t)p->len, flags, msg, cap);
    c->text[k] = *p;
    return c->used[k] ? &c->re[k] : NULL;
}

static void cache_free(struct pattern_cache *c)
{
    for (int k = 0; k < PATTERN_CACHE; k++)
        if (c->used[k])
            regfree(&c->re[k]);
}

/* regexp_matches / regexp_full_match: a match anywhere, or of the whole
 * string (the pattern compiled as ^(...)$, QRE_FULL); st->data is the
 * compiled constant pattern, or NULL for a column of patterns. */
static basalt_status k_regexp_match(const struct qstep *st, struct qexec *x)
{
    const struct qstr *a = A(0).data, *pats = A(1).data;
    const struct qregex *r = st->data;
    uint64_t *d = OUT.dbuf;
    basalt_qvalid_and(x, &OUT, &A(0), &A(1));
    OUT.data = d;
    memset(d, 0, QWORDS * 8);
    struct pattern_cache cache;
    memset(&cache, 0, sizeof cache);
    basalt_status rs = BASALT_OK;
    locale_t old = enter_utf8();
    for (int i = 0; i < x->n && rs == BASALT_OK; i++) {
        if (!qrow_valid(OUT.valid, i))
            continue;
        const regex_t *re = r ? &r->re : NULL;
        char msg[256];
        if (!re && !(re = cached_pattern(&cache, &pats[i], st->aux, msg, sizeof msg))) {
            if (qcounts(x, st, i))
                rs = basalt_qexec_error(x, st, BASALT_INVALID_ARG, "invalid pattern '%.*s': %s",
                                        (int)pats[i].len, pats[i].ptr ? pats[i].ptr : "", msg);
            continue;
        }
        struct qstr s;
        regmatch_t m[1];
        if (!terminated(x, &a[i], &s))
            rs = basalt_error_set(x->err, BASALT_NOMEM, "out of memory");
        else if (search(re, &s, 0, m, 1))
            qbit_set(d, i, true);
    }
    leave_utf8(old);
    cache_free(&cache);
    return rs;
}

/* ---------------------------------------------------------------- selection */

static const struct {
    enum qop op;
    qkernel fn;
    const char *name;
} kernels[] = {
    {QOP_LOWER, k_case, "lower"},
    {QOP_UPPER, k_case, "upper"},
    {QOP_LEFT, k_left_right, "left"},
    {QOP_RIGHT, k_left_right, "right"},
    {QOP_LPAD, k_pad, "lpad"},
    {QOP_RPAD, k_pad, "rpad"},
    {QOP_STRPOS, k_strpos, "strpos"},
    {QOP_REVERSE, k_reverse, "reverse"},
    {QOP_REPEAT, k_repeat, "repeat"},
    {QOP_SPLIT_PART, k_split_part, "split_part"},
    {QOP_CONCAT_WS, k_concat_ws, "concat_ws"},
    {QOP_ASCII, k_ascii, "ascii"},
    {QOP_CHR, k_chr, "chr"},
    {QOP_TRANSLATE, k_translate, "translate"},
    {QOP_REGEXP_REPLACE, k_regexp_replace, "regexp_replace"},
    {QOP_REGEXP_EXTRACT, k_regexp_extract, "regexp_extract"},
    {QOP_REGEXP, k_regexp_match, "regexp_matches"},
    {QOP_REGEXP_FULL, k_regexp_match, "regexp_full_match"},
};

bool basalt_qk_string_more_select(struct qstep *st, struct basalt_arena *arena,
                                  const struct qslot *slots)
{
    size_t k = 0, n = sizeof kernels / sizeof kernels[0];
    while (k < n && kernels[k].op != st->op)
        k++;
    if (k == n)
        return false;
    st->fn = kernels[k].fn;
    st->kname = kernels[k].name;
    if (st->op != QOP_REGEXP_REPLACE && st->op != QOP_REGEXP_EXTRACT && st->op != QOP_REGEXP &&
        st->op != QOP_REGEXP_FULL)
        return true;
    /* the binder checked that a constant pattern compiles; the matching
     * functions also take a column of patterns (st->data NULL) */
    const struct qslot *ps = &slots[st->args[1]];
    if ((st->op == QOP_REGEXP || st->op == QOP_REGEXP_FULL) && !ps->is_const)
        return true;
    if (!ps->is_const || ps->const_null)
        return false;
    struct qregex *r = basalt_arena_alloc(arena, sizeof *r, 16);
    char msg[256];
    if (!r ||
        !regex_compile(&r->re, ps->value.v.str.ptr, ps->value.v.str.len, st->aux, msg, sizeof msg))
        return false;
    r->flags = st->aux;
    st->data = r;
    st->regex = true;
    return true;
}
