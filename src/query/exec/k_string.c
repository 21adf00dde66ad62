/* String kernels over views: results that are slices of an input stay
 * views, new strings go to the state's per-vector arena. LIKE patterns that
 * are constants compile once into an exact, prefix, suffix or contains test,
 * or the general matcher. */
#include <stdio.h>
#include <string.h>

#include "query_internal.h"

#define A(i) (x->vec[st->args[i]])
#define OUT (x->vec[st->out])

static void valid_all(struct qexec *x, const struct qstep *st)
{
    const struct qvec *v[QMAX_ARGS];
    bool any = false;
    for (int k = 0; k < st->n_args; k++) {
        v[k] = &A(k);
        any |= v[k]->valid != NULL;
    }
    if (!any) {
        OUT.valid = NULL;
        return;
    }
    memset(OUT.vbuf, 0xff, QWORDS * 8);
    for (int k = 0; k < st->n_args; k++)
        if (v[k]->valid)
            for (int w = 0; w < QWORDS; w++)
                OUT.vbuf[w] &= v[k]->valid[w];
    OUT.valid = OUT.vbuf;
}

static int64_t utf8_len(const struct qstr *s)
{
    int64_t n = 0;
    for (int64_t i = 0; i < s->len; i++)
        n += ((unsigned char)s->ptr[i] & 0xC0) != 0x80;
    return n;
}

/* Byte offset of code point `cp` (clamped to the end). */
static int64_t utf8_offset(const struct qstr *s, int64_t cp)
{
    int64_t i = 0;
    while (i < s->len && cp > 0) {
        i++;
        while (i < s->len && ((unsigned char)s->ptr[i] & 0xC0) == 0x80)
            i++;
        cp--;
    }
    return i;
}

static bool has(const struct qstr *h, const struct qstr *n)
{
    if (n->len == 0)
        return true;
    if (n->len > h->len)
        return false;
    return memmem(h->ptr, (size_t)h->len, n->ptr, (size_t)n->len) != NULL;
}

static basalt_status k_strfn(const struct qstep *st, struct qexec *x)
{
    int n = x->n;
    const struct qstr *a = A(0).data;
    valid_all(x, st);
    OUT.data = OUT.dbuf;
    if (st->type.id == BASALT_QUERY_TYPE_BOOL) {
        uint64_t *d = OUT.dbuf;
        const struct qstr *b = A(1).data;
        memset(d, 0, QWORDS * 8);
        for (int i = 0; i < n; i++) {
            bool r;
            if (st->op == QOP_STARTS_WITH)
                r = b[i].len <= a[i].len && memcmp(a[i].ptr, b[i].ptr, (size_t)b[i].len) == 0;
            else if (st->op == QOP_ENDS_WITH)
                r = b[i].len <= a[i].len &&
                    memcmp(a[i].ptr + a[i].len - b[i].len, b[i].ptr, (size_t)b[i].len) == 0;
            else
                r = has(&a[i], &b[i]);
            if (r)
                qbit_set(d, i, true);
        }
        return BASALT_OK;
    }
    if (st->op == QOP_LENGTH) {
        int64_t *o = OUT.dbuf;
        for (int i = 0; i < n; i++)
            o[i] = utf8_len(&a[i]);
        return BASALT_OK;
    }
    struct qstr *o = OUT.dbuf;
    for (int i = 0; i < n; i++) {
        if (!qrow_valid(OUT.valid, i)) {
            o[i].ptr = "";
            o[i].len = 0;
            continue;
        }
        const struct qstr s = a[i];
        switch (st->op) {
        case QOP_SUBSTRING: {
            int64_t start = ((const int64_t *)A(1).data)[i];
            if (start > 0 && st->n_args == 3 && ((const int64_t *)A(2).data)[i] >= 0) {
                /* From the front (substring(s, 1, 2)): walk to the end of
                 * the piece only, not the whole string for its length. */
                int64_t b0 = utf8_offset(&s, start - 1);
                const struct qstr rest = {s.ptr + b0, s.len - b0};
                o[i].ptr = rest.ptr;
                o[i].len = utf8_offset(&rest, ((const int64_t *)A(2).data)[i]);
                break;
            }
            int64_t len = utf8_len(&s), count = st->n_args == 3 ? ((const int64_t *)A(2).data)[i] : len + 1;
            int64_t begin = start > 0 ? start - 1 : start < 0 ? len + start : -1;
            int64_t end;
            if (count < 0) {
                end = begin;
                begin = begin + count;
            } else
                end = begin > INT64_MAX - count ? INT64_MAX : begin + count;
            if (begin < 0)
                begin = 0;
            if (end > len)
                end = len;
            if (end < begin)
                end = begin;
            int64_t b0 = utf8_offset(&s, begin), b1 = utf8_offset(&s, end);
            o[i].ptr = s.ptr + b0;
            o[i].len = b1 - b0;
            break;
        }
        case QOP_TRIM:
        case QOP_LTRIM:
        case QOP_RTRIM: {
            const struct qstr set = st->n_args == 2 ? ((const struct qstr *)A(1).data)[i]
                                                    : (struct qstr){" ", 1};
            int64_t b0 = 0, b1 = s.len;
            if (st->op != QOP_RTRIM)
                while (b0 < b1 && memchr(set.ptr, s.ptr[b0], (size_t)set.len))
                    b0++;
            if (st->op != QOP_LTRIM)
                while (b1 > b0 && memchr(set.ptr, s.ptr[b1 - 1], (size_t)set.len))
                    b1--;
            o[i].ptr = s.ptr + b0;
            o[i].len = b1 - b0;
            break;
        }
        case QOP_REPLACE: {
            const struct qstr f = ((const struct qstr *)A(1).data)[i];
            const struct qstr t = ((const struct qstr *)A(2).data)[i];
            if (f.len == 0) {
                o[i] = s;
                break;
            }
            int64_t count = 0;
            for (int64_t k = 0; k + f.len <= s.len;) {
                if (memcmp(s.ptr + k, f.ptr, (size_t)f.len) == 0) {
                    count++;
                    k += f.len;
                } else
                    k++;
            }
            int64_t len = s.len + count * (t.len - f.len);
            char *p = basalt_qstr_alloc(x, (size_t)len);
            if (!p)
                return BASALT_NOMEM;
            int64_t w = 0;
            for (int64_t k = 0; k < s.len;) {
                if (k + f.len <= s.len && memcmp(s.ptr + k, f.ptr, (size_t)f.len) == 0) {
                    memcpy(p + w, t.ptr, (size_t)t.len);
                    w += t.len;
                    k += f.len;
                } else
                    p[w++] = s.ptr[k++];
            }
            o[i].ptr = p;
            o[i].len = w;
            break;
        }
        default:
            break;
        }
    }
    return BASALT_OK;
}

static basalt_status k_concat(const struct qstep *st, struct qexec *x)
{
    int n = x->n;
    bool strict = st->aux == 1; /* || */
    if (strict)
        valid_all(x, st);
    else
        OUT.valid = NULL;
    struct qstr *o = OUT.dbuf;
    OUT.data = o;
    for (int i = 0; i < n; i++) {
        int64_t len = 0;
        for (int k = 0; k < st->n_args; k++)
            if (qrow_valid(A(k).valid, i))
                len += ((const struct qstr *)A(k).data)[i].len;
        char *p = basalt_qstr_alloc(x, (size_t)len);
        if (!p)
            return BASALT_NOMEM;
        int64_t w = 0;
        for (int k = 0; k < st->n_args; k++)
            if (qrow_valid(A(k).valid, i)) {
                const struct qstr *s = &((const struct qstr *)A(k).data)[i];
                if (s->len)
                    memcpy(p + w, s->ptr, (size_t)s->len);
                w += s->len;
            }
        o[i].ptr = p;
        o[i].len = w;
    }
    return BASALT_OK;
}

/* ---------------------------------------------------------------- LIKE */

enum like_kind { LK_EXACT, LK_PREFIX, LK_SUFFIX, LK_CONTAINS, LK_SEGMENTS, LK_GENERAL };

/* A constant pattern without _: its literal runs between the % signs, and
 * whether it opens and closes with a %. One run is one of the first four
 * kinds; several (TPC-H Q13's '%special%requests%') are searched for left
 * to right, which with % as the only wildcard finds a match when there is
 * one. */
struct like_pat {
    enum like_kind kind;
    const char *lit; /* the literal part, escapes removed */
    int64_t lit_len;
    bool lead, trail;
    int n_segs;
    struct qstr *segs; /* the runs, pointing into lit */
};

static char fold(char c, bool ci)
{
    return ci && c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

/* The general matcher: % backtracks to the last star, _ is one code point. */
static bool like_match(const char *s, int64_t sn, const char *p, int64_t pn, int esc, bool ci)
{
    int64_t si = 0, pi = 0, star_p = -1, star_s = 0;
    while (si < sn) {
        if (pi < pn) {
            char c = p[pi];
            if (c == '%' && c != esc) {
                star_p = ++pi;
                star_s = si;
                continue;
            }
            if (c == '_' && c != esc) {
                si++;
                while (si < sn && ((unsigned char)s[si] & 0xC0) == 0x80)
                    si++;
                pi++;
                continue;
            }
            int64_t adv = 1;
            if (esc >= 0 && (unsigned char)c == esc && pi + 1 < pn) {
                c = p[pi + 1];
                adv = 2;
            }
            if (fold(c, ci) == fold(s[si], ci)) {
                si++;
                pi += adv;
                continue;
            }
        }
        if (star_p < 0)
            return false;
        pi = star_p;
        si = ++star_s;
    }
    while (pi < pn && p[pi] == '%' && p[pi] != esc)
        pi++;
    return pi == pn;
}

/* Runs in order: the first at the start unless the pattern opens with %,
 * the last at the end unless it closes with one, the others each searched
 * for after the one before. */
static bool like_segments(const struct qstr *s, const struct like_pat *lp)
{
    const char *p = s->ptr;
    int64_t start = 0, end = s->len;
    int first = 0, last = lp->n_segs - 1;
    if (!lp->lead) {
        const struct qstr *g = &lp->segs[first++];
        if (g->len > end || memcmp(p, g->ptr, (size_t)g->len) != 0)
            return false;
        start = g->len;
    }
    if (!lp->trail) {
        const struct qstr *g = &lp->segs[last--];
        if (g->len > end - start || memcmp(p + end - g->len, g->ptr, (size_t)g->len) != 0)
            return false;
        end -= g->len;
    }
    for (int k = first; k <= last; k++) {
        const struct qstr *g = &lp->segs[k];
        if (g->len > end - start)
            return false;
        const char *f = memmem(p + start, (size_t)(end - start), g->ptr, (size_t)g->len);
        if (f == NULL)
            return false;
        start = (f - p) + g->len;
    }
    return true;
}

static basalt_status k_like(const struct qstep *st, struct qexec *x)
{
    const struct qstr *a = A(0).data, *pat = A(1).data;
    const struct like_pat *lp = st->data;
    bool ci = st->op == QOP_ILIKE;
    uint64_t *d = OUT.dbuf;
    valid_all(x, st);
    OUT.data = d;
    memset(d, 0, QWORDS * 8);
    for (int i = 0; i < x->n; i++) {
        const struct qstr *s = &a[i];
        bool r;
        if (lp && !ci) {
            switch (lp->kind) {
            case LK_EXACT: r = s->len == lp->lit_len && memcmp(s->ptr, lp->lit, (size_t)lp->lit_len) == 0; break;
            case LK_PREFIX: r = s->len >= lp->lit_len && memcmp(s->ptr, lp->lit, (size_t)lp->lit_len) == 0; break;
            case LK_SUFFIX:
                r = s->len >= lp->lit_len &&
                    memcmp(s->ptr + s->len - lp->lit_len, lp->lit, (size_t)lp->lit_len) == 0;
                break;
            case LK_CONTAINS: {
                struct qstr n = {lp->lit, lp->lit_len};
                r = has(s, &n);
                break;
            }
            case LK_SEGMENTS: r = like_segments(s, lp); break;
            default: r = like_match(s->ptr, s->len, pat[i].ptr, pat[i].len, st->aux, ci);
            }
        } else {
            r = like_match(s->ptr, s->len, pat[i].ptr, pat[i].len, st->aux, ci);
        }
        if (r != st->flag)
            qbit_set(d, i, true);
    }
    return BASALT_OK;
}

/* Classifies a constant pattern: its literal runs, split at the % signs,
 * or general when it holds a _ or ends in a lone escape. */
static struct like_pat *like_compile(struct basalt_arena *arena, const char *p, int64_t n, int esc)
{
    struct like_pat *lp = basalt_arena_alloc(arena, sizeof *lp, 8);
    char *lit = basalt_arena_alloc(arena, (size_t)n + 1, 1);
    /* At most one run per two pattern bytes plus one. */
    struct qstr *segs = basalt_arena_alloc(arena, sizeof *segs * (size_t)(n / 2 + 1), 8);
    if (!lp || !lit || !segs)
        return NULL;
    memset(lp, 0, sizeof *lp);
    bool general = false, star_last = false;
    int64_t k = 0, run = 0; /* run: where the current literal run began in lit */
    int n_segs = 0;
    for (int64_t i = 0; i < n && !general; i++) {
        char c = p[i];
        if (esc >= 0 && (unsigned char)c == esc) {
            if (i + 1 >= n) {
                general = true;
                break;
            }
            lit[k++] = p[++i];
            star_last = false;
            continue;
        }
        if (c == '_') {
            general = true;
        } else if (c == '%') {
            if (i == 0)
                lp->lead = true;
            if (k > run) {
                segs[n_segs].ptr = lit + run;
                segs[n_segs++].len = k - run;
                run = k;
            }
            star_last = true;
        } else {
            lit[k++] = c;
            star_last = false;
        }
    }
    if (k > run) {
        segs[n_segs].ptr = lit + run;
        segs[n_segs++].len = k - run;
    }
    lp->trail = star_last;
    lp->segs = segs;
    lp->n_segs = n_segs;
    lp->lit = lit;
    lp->lit_len = k;
    if (general)
        lp->kind = LK_GENERAL;
    else if (n_segs > 1)
        lp->kind = LK_SEGMENTS;
    else if (lp->lead && lp->trail)
        lp->kind = LK_CONTAINS;
    else if (lp->lead)
        lp->kind = LK_SUFFIX;
    else if (lp->trail)
        lp->kind = LK_PREFIX;
    else
        lp->kind = LK_EXACT;
    return lp;
}

bool basalt_qk_string_select(struct qstep *st, struct basalt_arena *arena, const struct qslot *slots)
{
    if ((st->op >= QOP_LEFT && st->op <= QOP_REGEXP_EXTRACT) || st->op == QOP_LOWER ||
        st->op == QOP_UPPER || st->op == QOP_REGEXP || st->op == QOP_REGEXP_FULL)
        return basalt_qk_string_more_select(st, arena, slots);
    switch (st->op) {
    case QOP_CONCAT:
        st->fn = k_concat;
        st->kname = "concat";
        return true;
    case QOP_LIKE:
    case QOP_ILIKE: {
        st->fn = k_like;
        st->kname = "like";
        const struct qslot *ps = &slots[st->args[1]];
        if (ps->is_const && !ps->const_null) {
            st->data = like_compile(arena, ps->value.v.str.ptr, (int64_t)ps->value.v.str.len, st->aux);
            if (!st->data)
                return false;
            static const char *const names[] = {"like_exact", "like_prefix", "like_suffix",
                                                "like_contains", "like_segments", "like_general"};
            st->kname = names[((struct like_pat *)st->data)->kind];
        }
        return true;
    }
    default:
        st->fn = k_strfn;
        st->kname = "string";
        return true;
    }
}
