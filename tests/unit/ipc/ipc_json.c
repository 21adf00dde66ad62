/* The integration JSON format: "schema" {fields: [{name, nullable, type,
 * children, dictionary?, metadata?}], metadata?}, "batches" [{count,
 * columns: [{name, count, VALIDITY, OFFSET, SIZE, TYPE_ID, DATA, VIEWS,
 * VARIADIC_DATA_BUFFERS, children}]}], "dictionaries" [{id, data: {count,
 * columns: [one column]}}]. 64-bit integers are strings, binary is
 * upper-case hex, decimals are decimal strings of the unscaled value. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ipc_json.h"

json_t *ij_load(const char *path)
{
    gzFile f = gzopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (cap - len < 65536) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        int n = gzread(f, buf + len, (unsigned)(cap - len));
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    gzclose(f);
    json_error_t e;
    json_t *doc = json_loadb(buf, len, JSON_DECODE_INT_AS_REAL * 0, &e);
    free(buf);
    return doc;
}

struct cmp {
    char *why;
    size_t why_len;
    json_t *dictionaries;
    char path[512];
};

static int fail(struct cmp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct cmp *c, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(c->why, c->why_len, "%s: %s", c->path, msg);
    return -1;
}

static const char *jstr(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static int64_t jint(json_t *v)
{
    if (json_is_integer(v))
        return (int64_t)json_integer_value(v);
    if (json_is_string(v))
        return (int64_t)strtoll(json_string_value(v), NULL, 10);
    if (json_is_real(v))
        return (int64_t)json_real_value(v);
    if (json_is_true(v))
        return 1;
    return 0;
}

static uint64_t juint(json_t *v)
{
    if (json_is_string(v))
        return (uint64_t)strtoull(json_string_value(v), NULL, 10);
    return (uint64_t)jint(v);
}

static double jreal(json_t *v)
{
    if (json_is_real(v))
        return json_real_value(v);
    if (json_is_integer(v))
        return (double)json_integer_value(v);
    if (json_is_string(v))
        return strtod(json_string_value(v), NULL);
    return NAN;
}

/* ------------------------------------------------------------ formats */

static char unit_char(const char *unit)
{
    if (!unit)
        return '?';
    if (!strcmp(unit, "SECOND"))
        return 's';
    if (!strcmp(unit, "MILLISECOND"))
        return 'm';
    if (!strcmp(unit, "MICROSECOND"))
        return 'u';
    if (!strcmp(unit, "NANOSECOND"))
        return 'n';
    return '?';
}

static const char *int_format(json_t *t)
{
    int64_t bits = jint(json_object_get(t, "bitWidth"));
    bool sign = json_is_true(json_object_get(t, "isSigned"));
    switch (bits) {
    case 8: return sign ? "c" : "C";
    case 16: return sign ? "s" : "S";
    case 32: return sign ? "i" : "I";
    case 64: return sign ? "l" : "L";
    default: return "?";
    }
}

/* The C data interface format the JSON type object describes. */
static void expected_format(json_t *t, int n_children, char *out, size_t cap)
{
    const char *name = jstr(t, "name");
    if (!name) {
        snprintf(out, cap, "?");
        return;
    }
    if (!strcmp(name, "null")) snprintf(out, cap, "n");
    else if (!strcmp(name, "bool")) snprintf(out, cap, "b");
    else if (!strcmp(name, "int")) snprintf(out, cap, "%s", int_format(t));
    else if (!strcmp(name, "floatingpoint")) {
        const char *p = jstr(t, "precision");
        snprintf(out, cap, "%s", !p ? "?" : !strcmp(p, "HALF") ? "e" : !strcmp(p, "SINGLE") ? "f" : "g");
    } else if (!strcmp(name, "binary")) snprintf(out, cap, "z");
    else if (!strcmp(name, "utf8")) snprintf(out, cap, "u");
    else if (!strcmp(name, "largebinary")) snprintf(out, cap, "Z");
    else if (!strcmp(name, "largeutf8")) snprintf(out, cap, "U");
    else if (!strcmp(name, "binaryview")) snprintf(out, cap, "vz");
    else if (!strcmp(name, "utf8view")) snprintf(out, cap, "vu");
    else if (!strcmp(name, "fixedsizebinary"))
        snprintf(out, cap, "w:%lld", (long long)jint(json_object_get(t, "byteWidth")));
    else if (!strcmp(name, "decimal")) {
        int64_t bits = json_object_get(t, "bitWidth") ? jint(json_object_get(t, "bitWidth")) : 128;
        long long p = (long long)jint(json_object_get(t, "precision"));
        long long s = (long long)jint(json_object_get(t, "scale"));
        if (bits == 128) snprintf(out, cap, "d:%lld,%lld", p, s);
        else snprintf(out, cap, "d:%lld,%lld,%lld", p, s, (long long)bits);
    } else if (!strcmp(name, "date")) {
        const char *u = jstr(t, "unit");
        snprintf(out, cap, "%s", u && !strcmp(u, "DAY") ? "tdD" : "tdm");
    } else if (!strcmp(name, "time")) snprintf(out, cap, "tt%c", unit_char(jstr(t, "unit")));
    else if (!strcmp(name, "timestamp")) {
        const char *tz = jstr(t, "timezone");
        snprintf(out, cap, "ts%c:%s", unit_char(jstr(t, "unit")), tz ? tz : "");
    } else if (!strcmp(name, "duration")) snprintf(out, cap, "tD%c", unit_char(jstr(t, "unit")));
    else if (!strcmp(name, "interval")) {
        const char *u = jstr(t, "unit");
        snprintf(out, cap, "%s", !u ? "?" : !strcmp(u, "YEAR_MONTH") ? "tiM" : !strcmp(u, "DAY_TIME") ? "tiD" : "tin");
    } else if (!strcmp(name, "list")) snprintf(out, cap, "+l");
    else if (!strcmp(name, "largelist")) snprintf(out, cap, "+L");
    else if (!strcmp(name, "listview")) snprintf(out, cap, "+vl");
    else if (!strcmp(name, "largelistview")) snprintf(out, cap, "+vL");
    else if (!strcmp(name, "fixedsizelist"))
        snprintf(out, cap, "+w:%lld", (long long)jint(json_object_get(t, "listSize")));
    else if (!strcmp(name, "struct")) snprintf(out, cap, "+s");
    else if (!strcmp(name, "map")) snprintf(out, cap, "+m");
    else if (!strcmp(name, "runendencoded")) snprintf(out, cap, "+r");
    else if (!strcmp(name, "union")) {
        const char *mode = jstr(t, "mode");
        size_t n = (size_t)snprintf(out, cap, "+u%c:", mode && !strcmp(mode, "DENSE") ? 'd' : 's');
        json_t *ids = json_object_get(t, "typeIds");
        for (int i = 0; i < n_children && n < cap; i++)
            n += (size_t)snprintf(out + n, cap - n, i ? ",%lld" : "%lld",
                                  ids ? (long long)jint(json_array_get(ids, (size_t)i)) : (long long)i);
    } else snprintf(out, cap, "?%s", name);
}

/* ------------------------------------------------------------ values */

static bool valid_at(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *v = a->n_buffers > 0 ? a->buffers[0] : NULL;
    return !v || basalt_bitmap_get(v, a->offset + i);
}

static int hexval(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                             : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* Decodes hex into out (cap bytes); returns the byte count or -1. */
static int64_t unhex(const char *s, uint8_t *out, size_t cap)
{
    size_t n = strlen(s);
    if (n % 2 || n / 2 > cap)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        int a = hexval(s[2 * i]), b = hexval(s[2 * i + 1]);
        if (a < 0 || b < 0)
            return -1;
        out[i] = (uint8_t)(a << 4 | b);
    }
    return (int64_t)(n / 2);
}

/* The little-endian two's complement bytes of a decimal string. */
static void decimal_bytes(const char *s, uint8_t *out, int width)
{
    uint32_t w[8] = {0};
    bool neg = *s == '-';
    if (neg || *s == '+')
        s++;
    for (; *s >= '0' && *s <= '9'; s++) {
        uint64_t carry = (uint64_t)(*s - '0');
        for (int i = 0; i < 8; i++) {
            uint64_t v = (uint64_t)w[i] * 10 + carry;
            w[i] = (uint32_t)v;
            carry = v >> 32;
        }
    }
    if (neg) {
        uint64_t carry = 1;
        for (int i = 0; i < 8; i++) {
            uint64_t v = (uint64_t)(uint32_t)~w[i] + carry;
            w[i] = (uint32_t)v;
            carry = v >> 32;
        }
    }
    for (int i = 0; i < width; i++)
        out[i] = (uint8_t)(w[i / 4] >> (8 * (i % 4)));
}

static float half_to_float(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 31, man = h & 1023;
    float v;
    if (exp == 0)
        v = ldexpf((float)man, -24);
    else if (exp == 31)
        v = man ? NAN : INFINITY;
    else
        v = ldexpf((float)(man | 1024), exp - 25);
    return sign ? -v : v;
}

static int64_t int_at(const void *buf, int bytes, bool sign, int64_t i)
{
    switch (bytes) {
    case 1: return sign ? ((const int8_t *)buf)[i] : ((const uint8_t *)buf)[i];
    case 2: return sign ? ((const int16_t *)buf)[i] : ((const uint16_t *)buf)[i];
    case 4: return sign ? ((const int32_t *)buf)[i] : (int64_t)((const uint32_t *)buf)[i];
    default: return ((const int64_t *)buf)[i];
    }
}

static int compare_column(struct cmp *c, json_t *field, json_t *col, const struct ArrowSchema *s,
                          const struct ArrowArray *a, bool dictionary_values);

static int compare_validity(struct cmp *c, json_t *col, const struct ArrowArray *a)
{
    json_t *v = json_object_get(col, "VALIDITY");
    if (!v)
        return 0;
    int64_t nulls = 0;
    for (int64_t i = 0; i < a->length; i++) {
        bool want = jint(json_array_get(v, (size_t)i)) != 0;
        if (valid_at(a, i) != want)
            return fail(c, "slot %lld: valid %d, expected %d", (long long)i, valid_at(a, i), want);
        nulls += !want;
    }
    if (a->null_count >= 0 && a->null_count != nulls)
        return fail(c, "null_count %lld, expected %lld", (long long)a->null_count, (long long)nulls);
    return 0;
}

static int compare_bytes_value(struct cmp *c, int64_t i, const uint8_t *got, int64_t got_len,
                               json_t *want, bool utf8)
{
    const char *w = json_string_value(want);
    if (!w)
        return fail(c, "slot %lld: expected value is not a string", (long long)i);
    if (utf8) {
        if ((int64_t)strlen(w) != got_len || memcmp(w, got, (size_t)got_len) != 0)
            return fail(c, "slot %lld: '%.*s', expected '%s'", (long long)i, (int)got_len,
                        (const char *)got, w);
        return 0;
    }
    size_t cap = strlen(w) / 2 + 1;
    uint8_t *b = malloc(cap);
    int64_t n = unhex(w, b, cap);
    int r = 0;
    if (n != got_len || (n > 0 && memcmp(b, got, (size_t)n) != 0))
        r = fail(c, "slot %lld: binary of %lld bytes differs from %s", (long long)i,
                 (long long)got_len, w);
    free(b);
    return r;
}

static int compare_children(struct cmp *c, json_t *field, json_t *col, const struct ArrowSchema *s,
                            const struct ArrowArray *a)
{
    json_t *fkids = json_object_get(field, "children");
    json_t *ckids = json_object_get(col, "children");
    if ((int64_t)json_array_size(ckids) != a->n_children || a->n_children != s->n_children)
        return fail(c, "%lld children, expected %zu", (long long)a->n_children,
                    json_array_size(ckids));
    for (int64_t k = 0; k < a->n_children; k++)
        if (compare_column(c, json_array_get(fkids, (size_t)k), json_array_get(ckids, (size_t)k),
                           s->children[k], a->children[k], false))
            return -1;
    return 0;
}

static int compare_offsets(struct cmp *c, json_t *col, const char *key, const void *buf, bool large,
                           int64_t n, int64_t base)
{
    json_t *o = json_object_get(col, key);
    if (!o)
        return fail(c, "no %s in the JSON", key);
    for (int64_t i = 0; i < n; i++) {
        int64_t got = large ? ((const int64_t *)buf)[base + i] : ((const int32_t *)buf)[base + i];
        int64_t want = jint(json_array_get(o, (size_t)i));
        if (got != want)
            return fail(c, "%s[%lld] = %lld, expected %lld", key, (long long)i, (long long)got,
                        (long long)want);
    }
    return 0;
}

static int compare_views(struct cmp *c, json_t *col, const struct ArrowArray *a, bool utf8)
{
    json_t *views = json_object_get(col, "VIEWS");
    json_t *bufs = json_object_get(col, "VARIADIC_DATA_BUFFERS");
    int64_t nvar = a->n_buffers - 3;
    if (nvar != (int64_t)json_array_size(bufs))
        return fail(c, "%lld variadic buffers, expected %zu", (long long)nvar, json_array_size(bufs));
    for (int64_t i = 0; i < a->length; i++) {
        if (!valid_at(a, i))
            continue;
        const uint8_t *v = (const uint8_t *)a->buffers[1] + 16 * (a->offset + i);
        int32_t len;
        memcpy(&len, v, 4);
        const uint8_t *got = v + 4;
        if (len > 12) {
            int32_t bi, off;
            memcpy(&bi, v + 8, 4);
            memcpy(&off, v + 12, 4);
            got = (const uint8_t *)a->buffers[2 + bi] + off;
        }
        json_t *jv = json_array_get(views, (size_t)i);
        int64_t want_len = jint(json_object_get(jv, "SIZE"));
        if (want_len != len)
            return fail(c, "view %lld: length %d, expected %lld", (long long)i, len, (long long)want_len);
        json_t *inl = json_object_get(jv, "INLINED");
        if (inl) {
            if (compare_bytes_value(c, i, got, len, inl, utf8))
                return -1;
            continue;
        }
        int64_t bi = jint(json_object_get(jv, "BUFFER_INDEX"));
        int64_t off = jint(json_object_get(jv, "OFFSET"));
        const char *hex = json_string_value(json_array_get(bufs, (size_t)bi));
        if (!hex || (int64_t)strlen(hex) < 2 * (off + len))
            return fail(c, "view %lld: bad JSON buffer reference", (long long)i);
        for (int32_t k = 0; k < len; k++) {
            int b = hexval(hex[2 * (off + k)]) << 4 | hexval(hex[2 * (off + k) + 1]);
            if (b != got[k])
                return fail(c, "view %lld: byte %d differs", (long long)i, k);
        }
    }
    return 0;
}

static json_t *find_dictionary(struct cmp *c, int64_t id)
{
    size_t i;
    json_t *d;
    json_array_foreach(c->dictionaries, i, d)
        if (jint(json_object_get(d, "id")) == id)
            return d;
    return NULL;
}

static int compare_data(struct cmp *c, json_t *field, json_t *t, json_t *col,
                        const struct ArrowSchema *s, const struct ArrowArray *a)
{
    const char *name = jstr(t, "name");
    json_t *data = json_object_get(col, "DATA");
    int64_t n = a->length, off = a->offset;
    if (!strcmp(name, "null"))
        return 0;
    if (!strcmp(name, "struct"))
        return compare_validity(c, col, a) || compare_children(c, field, col, s, a);
    if (!strcmp(name, "list") || !strcmp(name, "largelist") || !strcmp(name, "map"))
        return compare_validity(c, col, a) ||
               compare_offsets(c, col, "OFFSET", a->buffers[1], !strcmp(name, "largelist"),
                               n ? n + 1 : 0, off) ||
               compare_children(c, field, col, s, a);
    if (!strcmp(name, "listview") || !strcmp(name, "largelistview")) {
        bool large = !strcmp(name, "largelistview");
        if (compare_validity(c, col, a))
            return -1;
        json_t *jo = json_object_get(col, "OFFSET"), *js = json_object_get(col, "SIZE");
        for (int64_t i = 0; i < n; i++) {
            if (!valid_at(a, i))
                continue;
            int64_t o = large ? ((const int64_t *)a->buffers[1])[off + i] : ((const int32_t *)a->buffers[1])[off + i];
            int64_t z = large ? ((const int64_t *)a->buffers[2])[off + i] : ((const int32_t *)a->buffers[2])[off + i];
            if (o != jint(json_array_get(jo, (size_t)i)) || z != jint(json_array_get(js, (size_t)i)))
                return fail(c, "list view %lld: offset/size differ", (long long)i);
        }
        return compare_children(c, field, col, s, a);
    }
    if (!strcmp(name, "fixedsizelist"))
        return compare_validity(c, col, a) || compare_children(c, field, col, s, a);
    if (!strcmp(name, "runendencoded"))
        return compare_children(c, field, col, s, a);
    if (!strcmp(name, "union")) {
        json_t *ids = json_object_get(col, "TYPE_ID");
        for (int64_t i = 0; i < n; i++)
            if (((const int8_t *)a->buffers[0])[off + i] != jint(json_array_get(ids, (size_t)i)))
                return fail(c, "type id %lld differs", (long long)i);
        const char *mode = jstr(t, "mode");
        if (mode && !strcmp(mode, "DENSE"))
            if (compare_offsets(c, col, "OFFSET", a->buffers[1], false, n, off))
                return -1;
        return compare_children(c, field, col, s, a);
    }
    if (compare_validity(c, col, a))
        return -1;
    if (!strcmp(name, "binaryview") || !strcmp(name, "utf8view"))
        return compare_views(c, col, a, !strcmp(name, "utf8view"));
    if (!data)
        return n ? fail(c, "no DATA") : 0;
    for (int64_t i = 0; i < n; i++) {
        if (!valid_at(a, i))
            continue;
        json_t *w = json_array_get(data, (size_t)i);
        int64_t k = off + i;
        const uint8_t *buf = a->buffers[1];
        if (!strcmp(name, "bool")) {
            if (basalt_bitmap_get(buf, k) != json_is_true(w))
                return fail(c, "slot %lld: bool differs", (long long)i);
        } else if (!strcmp(name, "int") || !strcmp(name, "date") || !strcmp(name, "time") ||
                   !strcmp(name, "timestamp") || !strcmp(name, "duration") ||
                   (!strcmp(name, "interval") && !strcmp(jstr(t, "unit"), "YEAR_MONTH"))) {
            struct basalt_arrow_type at;
            basalt_arrow_type_parse(s->format, &at, NULL);
            int bytes = (int)(at.bit_width / 8);
            bool sign = !(at.id == BASALT_ARROW_TYPE_UINT8 || at.id == BASALT_ARROW_TYPE_UINT16 ||
                          at.id == BASALT_ARROW_TYPE_UINT32 || at.id == BASALT_ARROW_TYPE_UINT64);
            if (at.id == BASALT_ARROW_TYPE_UINT64) {
                if (((const uint64_t *)buf)[k] != juint(w))
                    return fail(c, "slot %lld: %llu, expected %llu", (long long)i,
                                (unsigned long long)((const uint64_t *)buf)[k], (unsigned long long)juint(w));
            } else if (int_at(buf, bytes, sign, k) != jint(w)) {
                return fail(c, "slot %lld: %lld, expected %lld", (long long)i,
                            (long long)int_at(buf, bytes, sign, k), (long long)jint(w));
            }
        } else if (!strcmp(name, "floatingpoint")) {
            const char *p = jstr(t, "precision");
            double want = jreal(w), got;
            if (!strcmp(p, "HALF"))
                got = half_to_float(((const uint16_t *)buf)[k]);
            else if (!strcmp(p, "SINGLE"))
                got = ((const float *)buf)[k], want = (float)want;
            else
                got = ((const double *)buf)[k];
            bool ok = got == want || (isnan(got) && isnan(want)) ||
                      (!strcmp(p, "HALF") && fabs(got - want) <= 1e-3 * fabs(want) + 1e-3);
            if (!ok)
                return fail(c, "slot %lld: %.17g, expected %.17g", (long long)i, got, want);
        } else if (!strcmp(name, "interval")) {
            const char *u = jstr(t, "unit");
            if (!strcmp(u, "DAY_TIME")) {
                const int32_t *p = (const int32_t *)buf + 2 * k;
                if (p[0] != jint(json_object_get(w, "days")) || p[1] != jint(json_object_get(w, "milliseconds")))
                    return fail(c, "slot %lld: day-time differs", (long long)i);
            } else {
                const uint8_t *p = buf + 16 * k;
                int32_t mo, d;
                int64_t ns;
                memcpy(&mo, p, 4);
                memcpy(&d, p + 4, 4);
                memcpy(&ns, p + 8, 8);
                if (mo != jint(json_object_get(w, "months")) || d != jint(json_object_get(w, "days")) ||
                    ns != jint(json_object_get(w, "nanoseconds")))
                    return fail(c, "slot %lld: month-day-nano differs", (long long)i);
            }
        } else if (!strcmp(name, "decimal")) {
            int64_t bits = json_object_get(t, "bitWidth") ? jint(json_object_get(t, "bitWidth")) : 128;
            int width = (int)(bits / 8);
            uint8_t want[32];
            decimal_bytes(json_string_value(w), want, width);
            if (memcmp(want, buf + (size_t)width * (size_t)k, (size_t)width) != 0)
                return fail(c, "slot %lld: decimal differs from %s", (long long)i, json_string_value(w));
        } else if (!strcmp(name, "fixedsizebinary")) {
            int64_t width = jint(json_object_get(t, "byteWidth"));
            if (compare_bytes_value(c, i, buf + width * k, width, w, false))
                return -1;
        } else if (!strcmp(name, "binary") || !strcmp(name, "utf8") || !strcmp(name, "largebinary") ||
                   !strcmp(name, "largeutf8")) {
            bool large = name[0] == 'l';
            int64_t s0 = large ? ((const int64_t *)buf)[k] : ((const int32_t *)buf)[k];
            int64_t s1 = large ? ((const int64_t *)buf)[k + 1] : ((const int32_t *)buf)[k + 1];
            if (compare_bytes_value(c, i, (const uint8_t *)a->buffers[2] + s0, s1 - s0, w,
                                    strstr(name, "utf8") != NULL))
                return -1;
        } else {
            return fail(c, "type %s not handled by the JSON reader", name);
        }
    }
    return 0;
}

static int compare_column(struct cmp *c, json_t *field, json_t *col, const struct ArrowSchema *s,
                          const struct ArrowArray *a, bool dictionary_values)
{
    size_t plen = strlen(c->path);
    snprintf(c->path + plen, sizeof c->path - plen, "%s%s", plen ? "." : "",
             jstr(field, "name") ? jstr(field, "name") : "?");
    int r = 0;
    int64_t count = jint(json_object_get(col, "count"));
    json_t *t = json_object_get(field, "type");
    json_t *dict = dictionary_values ? NULL : json_object_get(field, "dictionary");
    if (a->length != count) {
        r = fail(c, "length %lld, expected %lld", (long long)a->length, (long long)count);
    } else if (dict) {
        /* The column holds indices; the values are in the dictionaries. */
        json_t *it = json_object_get(dict, "indexType");
        json_t *idx_type = it ? it : json_pack("{s:s, s:b, s:i}", "name", "int", "isSigned", 1, "bitWidth", 32);
        r = compare_data(c, field, idx_type, col, s, a);
        if (!it)
            json_decref(idx_type);
        json_t *jd = find_dictionary(c, jint(json_object_get(dict, "id")));
        if (!r && !jd)
            r = fail(c, "no dictionary %lld in the JSON", (long long)jint(json_object_get(dict, "id")));
        if (!r && !a->dictionary)
            r = fail(c, "no dictionary attached");
        if (!r) {
            json_t *dcol = json_array_get(json_object_get(json_object_get(jd, "data"), "columns"), 0);
            r = compare_column(c, field, dcol, s->dictionary, a->dictionary, true);
        }
    } else {
        r = compare_data(c, field, t, col, s, a);
    }
    c->path[plen] = '\0';
    return r;
}

/* ------------------------------------------------------------ schema */

/* Metadata is a map: pairs compare as a set. */
static int compare_metadata(struct cmp *c, json_t *md, const char *got)
{
    struct basalt_arrow_metadata_reader r;
    if (basalt_arrow_metadata_reader_init(&r, got, NULL) != BASALT_OK)
        return fail(c, "malformed metadata");
    size_t n = 0;
    struct basalt_arrow_metadata_item item;
    while (basalt_arrow_metadata_reader_next(&r, &item)) {
        n++;
        bool found = false;
        size_t i;
        json_t *kv;
        json_array_foreach(md, i, kv) {
            const char *k = jstr(kv, "key"), *v = jstr(kv, "value");
            if (k && v && strlen(k) == item.key_len && !memcmp(k, item.key, item.key_len) &&
                strlen(v) == item.value_len && !memcmp(v, item.value, item.value_len))
                found = true;
        }
        if (!found)
            return fail(c, "metadata pair '%.*s' not in the JSON", (int)item.key_len, item.key);
    }
    if (n != json_array_size(md))
        return fail(c, "%zu metadata pairs, expected %zu", n, json_array_size(md));
    return 0;
}

/* Names inside a map (entries, key, value) are not part of the type, as in
 * Arrow's own type equality: writers may canonicalise them. */
static int compare_field(struct cmp *c, json_t *f, const struct ArrowSchema *s, bool in_map)
{
    size_t plen = strlen(c->path);
    snprintf(c->path + plen, sizeof c->path - plen, "%s%s", plen ? "." : "", jstr(f, "name") ? jstr(f, "name") : "?");
    int r = 0;
    const char *name = jstr(f, "name");
    json_t *kids = json_object_get(f, "children");
    json_t *dict = json_object_get(f, "dictionary");
    const struct ArrowSchema *values = dict ? s->dictionary : s;
    char want[128];
    if (!name || (!in_map && strcmp(name, s->name ? s->name : "")))
        r = fail(c, "name '%s', expected '%s'", s->name, name);
    else if (!!(s->flags & ARROW_FLAG_NULLABLE) != json_is_true(json_object_get(f, "nullable")))
        r = fail(c, "nullable differs");
    else if (dict && !s->dictionary)
        r = fail(c, "not dictionary-encoded");
    if (!r && dict) {
        json_t *it = json_object_get(dict, "indexType");
        const char *idx = it ? int_format(it) : "i";
        if (strcmp(idx, s->format))
            r = fail(c, "index format %s, expected %s", s->format, idx);
    }
    if (!r) {
        expected_format(json_object_get(f, "type"), (int)json_array_size(kids), want, sizeof want);
        if (strcmp(want, values->format))
            r = fail(c, "format %s, expected %s", values->format, want);
    }
    if (!r && json_object_get(f, "metadata"))
        r = compare_metadata(c, json_object_get(f, "metadata"), s->metadata);
    else if (!r && s->metadata)
        r = fail(c, "metadata where the JSON has none");
    if (!r && (int64_t)json_array_size(kids) != values->n_children)
        r = fail(c, "%lld children, expected %zu", (long long)values->n_children, json_array_size(kids));
    for (int64_t i = 0; !r && i < values->n_children; i++)
        r = compare_field(c, json_array_get(kids, (size_t)i), values->children[i],
                          in_map || !strcmp(values->format, "+m"));
    c->path[plen] = '\0';
    return r;
}

int ij_compare_reader(struct basalt_ipc_reader *reader, json_t *doc, char *why, size_t why_len)
{
    struct cmp c = {.why = why, .why_len = why_len, .dictionaries = json_object_get(doc, "dictionaries")};
    struct basalt_error err;
    struct ArrowSchema schema;
    if (basalt_ipc_reader_schema(reader, &schema, &err) != BASALT_OK)
        return fail(&c, "schema: %s", err.message);
    json_t *js = json_object_get(doc, "schema");
    json_t *fields = json_object_get(js, "fields");
    int r = 0;
    if ((int64_t)json_array_size(fields) != schema.n_children)
        r = fail(&c, "%lld fields, expected %zu", (long long)schema.n_children, json_array_size(fields));
    if (!r && json_object_get(js, "metadata"))
        r = compare_metadata(&c, json_object_get(js, "metadata"), schema.metadata);
    for (int64_t i = 0; !r && i < schema.n_children; i++)
        r = compare_field(&c, json_array_get(fields, (size_t)i), schema.children[i], false);
    json_t *batches = json_object_get(doc, "batches");
    size_t b = 0;
    while (!r) {
        struct ArrowArray arr;
        basalt_status st = basalt_ipc_reader_next(reader, &arr, &err);
        if (st != BASALT_OK) {
            r = fail(&c, "batch %zu: %s", b, err.message);
            break;
        }
        if (!arr.release) {
            if (b != json_array_size(batches))
                r = fail(&c, "%zu batches, expected %zu", b, json_array_size(batches));
            break;
        }
        json_t *jb = json_array_get(batches, b);
        snprintf(c.path, sizeof c.path, "batch %zu", b);
        if (!jb)
            r = fail(&c, "more batches than the JSON's %zu", json_array_size(batches));
        else if (arr.length != jint(json_object_get(jb, "count")))
            r = fail(&c, "length %lld, expected %lld", (long long)arr.length,
                     (long long)jint(json_object_get(jb, "count")));
        json_t *cols = json_object_get(jb, "columns");
        for (int64_t k = 0; !r && k < arr.n_children; k++) {
            snprintf(c.path, sizeof c.path, "batch %zu", b);
            r = compare_column(&c, json_array_get(fields, (size_t)k), json_array_get(cols, (size_t)k),
                               schema.children[k], arr.children[k], false);
        }
        c.path[0] = '\0';
        basalt_arrow_array_release(&arr);
        b++;
    }
    basalt_arrow_schema_release(&schema);
    return r;
}
