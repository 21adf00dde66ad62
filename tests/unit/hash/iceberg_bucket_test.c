/* Every line of the Iceberg bucket-transform vectors
 * (corpus/iceberg/spec-vectors/sungwy-iceberg-testing/transforms/bucket/cases.jsonl)
 * hashed with the hash input of the spec's Appendix B:
 *   int, long, date, time, timestamp(tz): the value as an 8-byte little-endian
 *     long (days for date, microseconds for time and timestamps)
 *   decimal(P, S): the unscaled value as minimal two's-complement big-endian
 *   string: UTF-8 bytes; uuid: 16 bytes big-endian; fixed[L] / binary: raw bytes
 * The spec leaves boolean, float and double unhashed by the bucket transform;
 * such lines are listed as skipped. Any other line fails the test. */
#include <ctype.h>
#include <stdlib.h>

#include "basalt/hash.h"
#include "test.h"

#define CASES "iceberg/spec-vectors/sungwy-iceberg-testing/transforms/bucket/cases.jsonl"
#define CORPUS_CASES CASES

/* ---------------------------------------------------------------- JSON */

/* One flat JSON object of string and integer members, the shape of each line. */
struct json_line {
    char id[128];
    char type[64];
    uint8_t value[512]; /* UTF-8, unescaped */
    size_t value_len;
    int64_t hash;
    bool has_id, has_type, has_value, has_hash;
};

static const char *json_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    return p;
}

static int json_hex4(const char *p, const char *end, uint32_t *out)
{
    if (end - p < 4)
        return -1;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int c = (unsigned char)p[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return -1;
        v = v << 4 | (uint32_t)d;
    }
    *out = v;
    return 0;
}

static size_t utf8_put(uint8_t *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xc0 | cp >> 6);
        out[1] = (uint8_t)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xe0 | cp >> 12);
        out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (uint8_t)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (uint8_t)(0xf0 | cp >> 18);
    out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (uint8_t)(0x80 | (cp & 0x3f));
    return 4;
}

/* Parses a JSON string at p (on the quote) into out; returns the position
 * after it, or NULL. */
static const char *json_string(const char *p, const char *end, uint8_t *out, size_t cap,
                               size_t *len)
{
    if (p >= end || *p != '"')
        return NULL;
    p++;
    size_t n = 0;
    while (p < end && *p != '"') {
        uint8_t tmp[4];
        size_t k = 1;
        if (*p == '\\') {
            if (++p >= end)
                return NULL;
            char e = *p++;
            switch (e) {
            case '"': tmp[0] = '"'; break;
            case '\\': tmp[0] = '\\'; break;
            case '/': tmp[0] = '/'; break;
            case 'b': tmp[0] = '\b'; break;
            case 'f': tmp[0] = '\f'; break;
            case 'n': tmp[0] = '\n'; break;
            case 'r': tmp[0] = '\r'; break;
            case 't': tmp[0] = '\t'; break;
            case 'u': {
                uint32_t cp, lo;
                if (json_hex4(p, end, &cp) != 0)
                    return NULL;
                p += 4;
                if (cp >= 0xd800 && cp < 0xdc00) {
                    if (end - p < 6 || p[0] != '\\' || p[1] != 'u' ||
                        json_hex4(p + 2, end, &lo) != 0 || lo < 0xdc00 || lo >= 0xe000)
                        return NULL;
                    p += 6;
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                } else if (cp >= 0xdc00 && cp < 0xe000) {
                    return NULL;
                }
                k = utf8_put(tmp, cp);
                break;
            }
            default:
                return NULL;
            }
        } else {
            tmp[0] = (uint8_t)*p++;
        }
        if (n + k > cap)
            return NULL;
        memcpy(out + n, tmp, k);
        n += k;
    }
    if (p >= end)
        return NULL;
    *len = n;
    return p + 1;
}

static const char *json_int(const char *p, const char *end, int64_t *out)
{
    char buf[32];
    size_t n = 0;
    while (p < end && (isdigit((unsigned char)*p) || (*p == '-' && n == 0)) && n < sizeof buf - 1)
        buf[n++] = *p++;
    buf[n] = '\0';
    if (n == 0 || (n == 1 && buf[0] == '-'))
        return NULL;
    char *e;
    long long v = strtoll(buf, &e, 10);
    if (*e)
        return NULL;
    *out = v;
    return p;
}

/* Skips a value we do not need (a string or a number). */
static const char *json_skip(const char *p, const char *end)
{
    static uint8_t scratch[4096];
    size_t len;
    if (p < end && *p == '"')
        return json_string(p, end, scratch, sizeof scratch, &len);
    while (p < end && *p != ',' && *p != '}')
        p++;
    return p;
}

static bool json_parse_line(const char *p, const char *end, struct json_line *line)
{
    memset(line, 0, sizeof *line);
    p = json_ws(p, end);
    if (p >= end || *p++ != '{')
        return false;
    for (;;) {
        p = json_ws(p, end);
        uint8_t key[64];
        size_t key_len;
        p = json_string(p, end, key, sizeof key - 1, &key_len);
        if (!p)
            return false;
        key[key_len] = '\0';
        p = json_ws(p, end);
        if (p >= end || *p++ != ':')
            return false;
        p = json_ws(p, end);
        size_t len;
        if (strcmp((char *)key, "id") == 0) {
            p = json_string(p, end, (uint8_t *)line->id, sizeof line->id - 1, &len);
            if (p)
                line->id[len] = '\0';
            line->has_id = true;
        } else if (strcmp((char *)key, "type") == 0) {
            p = json_string(p, end, (uint8_t *)line->type, sizeof line->type - 1, &len);
            if (p)
                line->type[len] = '\0';
            line->has_type = true;
        } else if (strcmp((char *)key, "value") == 0) {
            p = json_string(p, end, line->value, sizeof line->value - 1, &line->value_len);
            if (p)
                line->value[line->value_len] = '\0';
            line->has_value = true;
        } else if (strcmp((char *)key, "hash") == 0) {
            p = json_int(p, end, &line->hash);
            line->has_hash = true;
        } else {
            p = json_skip(p, end);
        }
        if (!p)
            return false;
        p = json_ws(p, end);
        if (p < end && *p == ',') {
            p++;
            continue;
        }
        if (p < end && *p == '}')
            return json_ws(p + 1, end) == end;
        return false;
    }
}

/* ---------------------------------------------------------------- values */

/* Exactly `n` decimal digits at s; -1 if not. */
static int64_t digits(const char *s, int n)
{
    int64_t v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (civil-from-days inverse). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* "YYYY-MM-DD" -> days; returns characters consumed or 0. */
static int parse_date(const char *s, int64_t *days)
{
    int64_t y = digits(s, 4), m = digits(s + 5, 2), d = digits(s + 8, 2);
    if (y < 0 || m < 1 || m > 12 || d < 1 || d > 31 || s[4] != '-' || s[7] != '-')
        return 0;
    *days = days_from_civil(y, m, d);
    return 10;
}

/* "HH:MM:SS[.ffffff]" -> microseconds; returns characters consumed or 0. */
static int parse_time(const char *s, int64_t *micros)
{
    int64_t h = digits(s, 2), m = digits(s + 3, 2), sec = digits(s + 6, 2);
    if (h < 0 || h > 23 || m < 0 || m > 59 || sec < 0 || sec > 59 || s[2] != ':' || s[5] != ':')
        return 0;
    int n = 8;
    int64_t frac = 0;
    if (s[8] == '.') {
        int k = 0;
        n = 9;
        while (isdigit((unsigned char)s[n]) && k < 6) {
            frac = frac * 10 + (s[n++] - '0');
            k++;
        }
        if (k == 0 || isdigit((unsigned char)s[n]))
            return 0;
        for (; k < 6; k++)
            frac *= 10;
    }
    *micros = ((h * 60 + m) * 60 + sec) * 1000000 + frac;
    return n;
}

/* "YYYY-MM-DDTHH:MM:SS[.ffffff]" plus, when `tz`, "Z" or "+HH:MM"/"-HH:MM". */
static bool parse_timestamp(const char *s, bool tz, int64_t *micros)
{
    int64_t days, t;
    int n = parse_date(s, &days);
    if (!n || s[n] != 'T')
        return false;
    int k = parse_time(s + n + 1, &t);
    if (!k)
        return false;
    const char *rest = s + n + 1 + k;
    int64_t offset = 0;
    if (tz) {
        if (strcmp(rest, "Z") == 0) {
            rest++;
        } else if ((rest[0] == '+' || rest[0] == '-') && rest[3] == ':') {
            int64_t oh = digits(rest + 1, 2), om = digits(rest + 4, 2);
            if (oh < 0 || om < 0)
                return false;
            offset = (oh * 60 + om) * 60 * 1000000 * (rest[0] == '-' ? -1 : 1);
            rest += 6;
        } else {
            return false;
        }
    }
    if (*rest)
        return false;
    *micros = days * 86400 * INT64_C(1000000) + t - offset;
    return true;
}

static bool parse_i64(const char *s, int64_t *out)
{
    if (!*s)
        return false;
    char *e;
    long long v = strtoll(s, &e, 10);
    if (*e)
        return false;
    *out = v;
    return true;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Hex digits (dashes skipped when `dashes`) -> bytes; false on bad input. */
static bool parse_hex(const char *s, bool dashes, uint8_t *out, size_t cap, size_t *len)
{
    size_t n = 0;
    int hi = -1;
    for (; *s; s++) {
        if (dashes && *s == '-')
            continue;
        int v = hex_value(*s);
        if (v < 0)
            return false;
        if (hi < 0) {
            hi = v;
        } else {
            if (n == cap)
                return false;
            out[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    *len = n;
    return hi < 0;
}

/* "[-]digits[.digits]" with at most `scale` fraction digits -> the unscaled
 * value as minimal two's-complement big-endian bytes (Java's
 * BigInteger.toByteArray), built in 32-byte arithmetic so any precision works. */
static bool decimal_bytes(const char *s, int scale, uint8_t *out, size_t *len)
{
    enum { W = 32 };
    uint8_t mag[W] = {0};
    bool neg = *s == '-';
    if (neg || *s == '+')
        s++;
    int frac = -1, ndigits = 0;
    for (; *s; s++) {
        if (*s == '.' && frac < 0) {
            frac = 0;
            continue;
        }
        if (!isdigit((unsigned char)*s))
            return false;
        unsigned carry = (unsigned)(*s - '0');
        for (int i = W - 1; i >= 0; i--) {
            unsigned v = mag[i] * 10u + carry;
            mag[i] = (uint8_t)v;
            carry = v >> 8;
        }
        if (carry)
            return false;
        ndigits++;
        if (frac >= 0)
            frac++;
    }
    if (ndigits == 0 || frac > scale || frac == 0)
        return false;
    for (int f = frac < 0 ? 0 : frac; f < scale; f++) { /* scale up to the type's scale */
        unsigned carry = 0;
        for (int i = W - 1; i >= 0; i--) {
            unsigned v = mag[i] * 10u + carry;
            mag[i] = (uint8_t)v;
            carry = v >> 8;
        }
        if (carry)
            return false;
    }
    if (neg) { /* two's complement: invert and add one */
        unsigned carry = 1;
        for (int i = W - 1; i >= 0; i--) {
            unsigned v = (uint8_t)~mag[i] + carry;
            mag[i] = (uint8_t)v;
            carry = v >> 8;
        }
    }
    /* Drop leading sign-extension bytes while the next byte keeps the sign. */
    uint8_t fill = neg && memcmp(mag, (uint8_t[W]){0}, W) != 0 ? 0xff : 0x00;
    int start = 0;
    while (start < W - 1 && mag[start] == fill && ((mag[start + 1] & 0x80) != 0) == (fill == 0xff))
        start++;
    *len = (size_t)(W - start);
    memcpy(out, mag + start, *len);
    return true;
}

/* ---------------------------------------------------------------- the test */

enum line_result { LINE_CHECKED, LINE_SKIPPED, LINE_BAD };

/* Computes the hash of one line into *got; LINE_BAD with a reason if the
 * line's type or value is not understood. */
static enum line_result line_hash(const struct json_line *line, uint32_t *got, const char **why)
{
    const char *type = line->type;
    const char *value = (const char *)line->value;
    int64_t v;
    uint8_t bytes[512];
    size_t len;
    int p, s, consumed;
    *why = "unrecognised type";
    if (strcmp(type, "boolean") == 0 || strcmp(type, "float") == 0 ||
        strcmp(type, "double") == 0) {
        *why = "the spec does not bucket this type";
        return LINE_SKIPPED;
    }
    if (strcmp(type, "int") == 0 || strcmp(type, "long") == 0) {
        *why = "bad integer";
        if (!parse_i64(value, &v) || (type[0] == 'i' && (v < INT32_MIN || v > INT32_MAX)))
            return LINE_BAD;
        *got = basalt_hash_murmur3_32_i64(v);
        return LINE_CHECKED;
    }
    if (strcmp(type, "date") == 0) {
        *why = "bad date";
        if (parse_date(value, &v) != 10 || value[10])
            return LINE_BAD;
        *got = basalt_hash_murmur3_32_i64(v);
        return LINE_CHECKED;
    }
    if (strcmp(type, "time") == 0) {
        *why = "bad time";
        consumed = parse_time(value, &v);
        if (!consumed || value[consumed])
            return LINE_BAD;
        *got = basalt_hash_murmur3_32_i64(v);
        return LINE_CHECKED;
    }
    if (strcmp(type, "timestamp") == 0 || strcmp(type, "timestamptz") == 0) {
        *why = "bad timestamp";
        if (!parse_timestamp(value, strcmp(type, "timestamptz") == 0, &v))
            return LINE_BAD;
        *got = basalt_hash_murmur3_32_i64(v);
        return LINE_CHECKED;
    }
    if (strcmp(type, "string") == 0) {
        *got = basalt_hash_murmur3_32(line->value, line->value_len, 0);
        return LINE_CHECKED;
    }
    if (strcmp(type, "uuid") == 0) {
        *why = "bad uuid";
        if (line->value_len != 36 || !parse_hex(value, true, bytes, sizeof bytes, &len) ||
            len != 16)
            return LINE_BAD;
        *got = basalt_hash_murmur3_32(bytes, 16, 0);
        return LINE_CHECKED;
    }
    if (strcmp(type, "binary") == 0 || sscanf(type, "fixed[%d]%n", &p, &consumed) == 1) {
        *why = "bad hex bytes";
        if (!parse_hex(value, false, bytes, sizeof bytes, &len))
            return LINE_BAD;
        if (type[0] == 'f' && (type[consumed] || len != (size_t)p)) {
            *why = "fixed length does not match the value";
            return LINE_BAD;
        }
        *got = basalt_hash_murmur3_32(bytes, len, 0);
        return LINE_CHECKED;
    }
    consumed = 0;
    if (sscanf(type, "decimal(%d, %d)%n", &p, &s, &consumed) == 2 && consumed &&
        !type[consumed]) {
        *why = "bad decimal";
        if (p < 1 || p > 38 || s < 0 || s > p || !decimal_bytes(value, s, bytes, &len))
            return LINE_BAD;
        *got = basalt_hash_murmur3_32(bytes, len, 0);
        return LINE_CHECKED;
    }
    return LINE_BAD;
}

TEST(iceberg_bucket_vectors_every_line)
{
    size_t size = 0;
    uint8_t *file = bt_read_file(bt_testdata_path(CORPUS_CASES), &size);
    CHECK_MSG(file != NULL, "cannot read %s", bt_testdata_path(CORPUS_CASES));
    int lines = 0, checked = 0, skipped = 0, bad = 0;
    const char *p = (const char *)file, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        const char *q = json_ws(p, eol);
        if (q == eol) { /* blank line */
            p = nl ? nl + 1 : end;
            continue;
        }
        lines++;
        struct json_line line;
        uint32_t got = 0;
        const char *why = "malformed JSON line or missing member";
        enum line_result r = LINE_BAD;
        if (json_parse_line(q, eol, &line) && line.has_id && line.has_type && line.has_value &&
            line.has_hash && line.hash >= INT32_MIN && line.hash <= INT32_MAX)
            r = line_hash(&line, &got, &why);
        if (r == LINE_CHECKED) {
            checked++;
            if ((int32_t)got != (int32_t)line.hash) {
                bt_fail(__FILE__, __LINE__, "%s (%s %s): hash %d, expected %" PRId64, line.id,
                        line.type, (const char *)line.value, (int32_t)got, line.hash);
                bad++;
            }
        } else if (r == LINE_SKIPPED) {
            skipped++;
            printf("  skipped line %d (%s, type %s): %s\n", lines, line.id, line.type, why);
        } else {
            bt_fail(__FILE__, __LINE__, "line %d not understood: %s: %.*s", lines, why,
                    (int)(eol - q), q);
            bad++;
        }
        p = nl ? nl + 1 : end;
    }
    basalt_free(file);
    printf("  %s: %d lines, %d checked, %d skipped\n", CASES, lines, checked, skipped);
    CHECK_EQ(bad, 0);
    CHECK_EQ(checked + skipped, lines);
    /* The 11 Appendix B vectors at least. */
    CHECK(checked >= 11);
}

/* The hash inputs themselves, for the encodings the file exercises. */
TEST(iceberg_bucket_encodings)
{
    uint8_t b[64];
    size_t len = 0;
    CHECK(decimal_bytes("14.20", 2, b, &len));
    CHECK_EQ(len, 2);
    CHECK_MEM(b, "\x05\x8c", 2);
    CHECK(decimal_bytes("-1.28", 2, b, &len));
    CHECK_EQ(len, 1);
    CHECK_EQ(b[0], 0x80);
    CHECK(decimal_bytes("-1.29", 2, b, &len));
    CHECK_EQ(len, 2);
    CHECK_MEM(b, "\xff\x7f", 2);
    CHECK(decimal_bytes("1.28", 2, b, &len));
    CHECK_EQ(len, 2);
    CHECK_MEM(b, "\x00\x80", 2);
    CHECK(decimal_bytes("0", 2, b, &len));
    CHECK_EQ(len, 1);
    CHECK_EQ(b[0], 0);
    CHECK(decimal_bytes("-0.01", 2, b, &len));
    CHECK_EQ(len, 1);
    CHECK_EQ(b[0], 0xff);
    CHECK(!decimal_bytes("1.234", 2, b, &len));
    int64_t v;
    CHECK_EQ(parse_date("2017-11-16", &v), 10);
    CHECK_EQ(v, 17486);
    CHECK_EQ(parse_date("1969-12-31", &v), 10);
    CHECK_EQ(v, -1);
    CHECK(parse_timestamp("2017-11-16T22:31:08.000001", false, &v));
    CHECK_EQ(v, INT64_C(1510871468000001));
    CHECK(parse_timestamp("2017-11-16T14:31:08-08:00", true, &v));
    CHECK_EQ(v, INT64_C(1510871468000000));
    CHECK(parse_time("22:31:08", &v) == 8);
    CHECK_EQ(v, INT64_C(81068000000));
}
