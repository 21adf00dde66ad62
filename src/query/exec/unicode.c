/* Case mapping and grapheme clusters over the tables that
 * scripts/gen_unicode_tables.mjs writes (unicode_tables.h): binary searches
 * over runs of code points, ASCII kept off them. */
#include "unicode.h"

#include <stddef.h>

struct case_run {
    int32_t first, last, delta;
    uint8_t step;
};

#include "unicode_tables.h"

int32_t basalt_qutf8_decode(const char *s, int64_t n, int *len)
{
    const unsigned char *u = (const unsigned char *)s;
    unsigned c = u[0];
    int k = c < 0x80                ? 1
            : c >= 0xC2 && c < 0xE0 ? 2
            : c >= 0xE0 && c < 0xF0 ? 3
            : c >= 0xF0 && c < 0xF5 ? 4
                                    : 0;
    *len = 1;
    if (k == 0 || k > n)
        return -1;
    int32_t cp = k == 1 ? (int32_t)c : (int32_t)(c & (0x7Fu >> k));
    for (int j = 1; j < k; j++) {
        if ((u[j] & 0xC0) != 0x80)
            return -1;
        cp = cp << 6 | (u[j] & 0x3F);
    }
    *len = k;
    return cp;
}

int basalt_qutf8_encode(int32_t cp, char *out)
{
    unsigned char *o = (unsigned char *)out;
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | cp >> 6);
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | cp >> 12);
        o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | cp >> 18);
    o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

static int32_t map_case(const struct case_run *runs, size_t n, int32_t cp)
{
    size_t lo = 0, hi = n; /* the last run starting at or before cp */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (runs[mid].first <= cp)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return cp;
    const struct case_run *r = &runs[lo - 1];
    return cp <= r->last && (cp - r->first) % r->step == 0 ? cp + r->delta : cp;
}

int64_t basalt_qutf8_case(const char *s, int64_t n, bool upper, char *out)
{
    int64_t w = 0;
    for (int64_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            if (upper && c >= 'a' && c <= 'z')
                c = (unsigned char)(c - 32);
            else if (!upper && c >= 'A' && c <= 'Z')
                c = (unsigned char)(c + 32);
            out[w++] = (char)c;
            i++;
            continue;
        }
        int len;
        int32_t cp = basalt_qutf8_decode(s + i, n - i, &len);
        if (cp < 0) {
            out[w++] = s[i++];
            continue;
        }
        cp = upper ? map_case(upper_runs, sizeof upper_runs / sizeof upper_runs[0], cp)
                   : map_case(lower_runs, sizeof lower_runs / sizeof lower_runs[0], cp);
        w += basalt_qutf8_encode(cp, out + w);
        i += len;
    }
    return w;
}

/* ---------------------------------------------------------------- graphemes */

/* Grapheme_Cluster_Break classes in the tables' order, then one state of
 * the matcher's own: a pictograph, its extends and a ZWJ (rule GB11). */
enum gclass { G_OTHER, G_CR, G_LF, G_CONTROL, G_EXTEND, G_ZWJ, G_RI, G_PREPEND, G_SPACINGMARK,
              G_L, G_V, G_T, G_LV, G_LVT, G_PICTO, G_PICTO_ZWJ };
enum incb { I_NONE, I_CONSONANT, I_LINKER, I_EXTEND };

static unsigned gprops(int32_t cp)
{
    if (cp < 0)
        return G_OTHER;
    size_t lo = 0, hi = sizeof grapheme_ranges / sizeof grapheme_ranges[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if ((grapheme_ranges[mid] >> 8) <= (uint32_t)cp)
            lo = mid + 1;
        else
            hi = mid;
    }
    return grapheme_ranges[lo - 1] & 0xFF;
}

/* Rules GB3 to GB13 between the cluster so far (its state l) and the next
 * code point's class t. */
static bool breaks(int l, int t)
{
    if (l == G_CR && t == G_LF)
        return false;
    if ((l >= G_CR && l <= G_CONTROL) || (t >= G_CR && t <= G_CONTROL))
        return true;
    if (l == G_L && (t == G_L || t == G_V || t == G_LV || t == G_LVT))
        return false;
    if ((l == G_LV || l == G_V) && (t == G_V || t == G_T))
        return false;
    if ((l == G_LVT || l == G_T) && t == G_T)
        return false;
    if (t == G_EXTEND || t == G_ZWJ || t == G_SPACINGMARK || l == G_PREPEND)
        return false;
    if (l == G_PICTO_ZWJ && t == G_PICTO)
        return false;
    return !(l == G_RI && t == G_RI);
}

int64_t basalt_qgrapheme_next(const char *s, int64_t n, int64_t i)
{
    int len;
    unsigned p = gprops(basalt_qutf8_decode(s + i, n - i, &len));
    int state = (int)(p & 15);
    int icb = (p >> 4) == I_CONSONANT ? I_CONSONANT : I_NONE;
    for (i += len; i < n; i += len) {
        unsigned q = gprops(basalt_qutf8_decode(s + i, n - i, &len));
        int t = (int)(q & 15), ticb = (int)(q >> 4);
        /* GB9c: a consonant, extends and at least one linker, a consonant */
        if (breaks(state, t) && !(icb == I_LINKER && ticb == I_CONSONANT))
            return i;
        if (ticb == I_CONSONANT || icb == I_CONSONANT || icb == I_EXTEND)
            icb = ticb;
        else if (icb == I_LINKER)
            icb = ticb == I_EXTEND ? I_LINKER : ticb;
        /* A second regional indicator closes the pair (GB12, GB13); a
         * pictograph absorbs its extends, then a ZWJ (GB11). */
        if (state == G_RI && t == G_RI)
            state = G_OTHER;
        else if (state == G_PICTO && (t == G_EXTEND || t == G_ZWJ))
            state = t == G_ZWJ ? G_PICTO_ZWJ : G_PICTO;
        else
            state = t;
    }
    return n;
}
