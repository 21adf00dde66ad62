/* The JSON-lines reader on hand-written inputs: every expected value below
 * was written by hand from the text, not taken from the reader. The rows are
 * shown by a small renderer of this file (not the library's writer). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "basalt/json.h"
#include "test.h"

struct rendered {
    basalt_status st;
    char schema[1024];
    char text[16384];
    char error[BASALT_ERROR_MESSAGE_MAX];
    struct basalt_json_stats stats;
};

static void append(char *buf, size_t cap, const char *fmt, ...) BASALT_PRINTF(3, 4);
static void append(char *buf, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, cap - n, fmt, ap);
    va_end(ap);
}
#define OUT(r, ...) append((r)->text, sizeof (r)->text, __VA_ARGS__)

static void show_schema(struct rendered *r, const struct ArrowSchema *s)
{
    if (s->name && s->name[0])
        append(r->schema, sizeof r->schema, "%s:", s->name);
    append(r->schema, sizeof r->schema, "%s", s->format);
    if (s->n_children) {
        append(r->schema, sizeof r->schema, "<");
        for (int64_t i = 0; i < s->n_children; i++) {
            if (i)
                append(r->schema, sizeof r->schema, ",");
            show_schema(r, s->children[i]);
        }
        append(r->schema, sizeof r->schema, ">");
    }
}

/* Element i (with the array's offset added here) as text: nulls as NULL,
 * strings in single quotes, structs {a=..}, lists [..], dates and
 * timestamps as their integers. */
static void show(struct rendered *r, const struct ArrowSchema *s, const struct ArrowArray *a,
                 int64_t i)
{
    int64_t j = a->offset + i;
    const uint8_t *valid = a->buffers[0];
    if (valid && !basalt_bitmap_get(valid, j)) {
        OUT(r, "NULL");
        return;
    }
    const char *f = s->format;
    const void *v = a->buffers[1];
    if (strcmp(f, "b") == 0) {
        OUT(r, "%s", basalt_bitmap_get(v, j) ? "true" : "false");
    } else if (strcmp(f, "l") == 0 || strncmp(f, "ts", 2) == 0 || strcmp(f, "ttu") == 0) {
        OUT(r, "%lld", (long long)((const int64_t *)v)[j]);
    } else if (strcmp(f, "i") == 0 || strcmp(f, "tdD") == 0) {
        OUT(r, "%d", ((const int32_t *)v)[j]);
    } else if (strcmp(f, "s") == 0) {
        OUT(r, "%d", ((const int16_t *)v)[j]);
    } else if (strcmp(f, "g") == 0) {
        OUT(r, "%.17g", ((const double *)v)[j]);
    } else if (strcmp(f, "u") == 0) {
        const int32_t *o = v;
        OUT(r, "'%.*s'", (int)(o[j + 1] - o[j]), (const char *)a->buffers[2] + o[j]);
    } else if (strcmp(f, "+s") == 0) {
        OUT(r, "{");
        for (int64_t c = 0; c < s->n_children; c++) {
            OUT(r, "%s%s=", c ? "," : "", s->children[c]->name);
            show(r, s->children[c], a->children[c], j);
        }
        OUT(r, "}");
    } else if (strcmp(f, "+l") == 0) {
        const int32_t *o = v;
        OUT(r, "[");
        for (int32_t k = o[j]; k < o[j + 1]; k++) {
            if (k > o[j])
                OUT(r, ",");
            show(r, s->children[0], a->children[0], k);
        }
        OUT(r, "]");
    } else {
        OUT(r, "?%s", f);
    }
}

static void read_with(const char *text, size_t len, const struct basalt_json_read_options *o,
                      struct rendered *r)
{
    memset(r, 0, sizeof *r);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_json_reader *reader = NULL;
    r->st = basalt_json_reader_open_memory(text, len, "t.json", o, &reader, &err);
    if (r->st != BASALT_OK) {
        snprintf(r->error, sizeof r->error, "%s", err.message);
        return;
    }
    struct ArrowSchema s;
    if (basalt_json_reader_schema(reader, &s, NULL) != BASALT_OK) {
        r->st = BASALT_INTERNAL;
        basalt_json_reader_close(reader);
        return;
    }
    show_schema(r, &s);
    for (;;) {
        struct ArrowArray a;
        r->st = basalt_json_reader_next(reader, &a, &err);
        if (r->st != BASALT_OK) {
            snprintf(r->error, sizeof r->error, "%s", err.message);
            break;
        }
        if (!a.release)
            break;
        if (basalt_arrow_array_validate(&s, &a, BASALT_ARROW_VALIDATE_FULL, &err) != BASALT_OK) {
            snprintf(r->error, sizeof r->error, "invalid batch: %.400s", err.message);
            r->st = BASALT_INTERNAL;
            basalt_arrow_array_release(&a);
            break;
        }
        for (int64_t i = 0; i < a.length; i++) {
            show(r, &s, &a, i);
            OUT(r, "\n");
        }
        basalt_arrow_array_release(&a);
    }
    basalt_arrow_schema_release(&s);
    basalt_json_reader_stats(reader, &r->stats);
    basalt_json_reader_close(reader);
}

static void read_str(const char *text, const struct basalt_json_read_options *o,
                     struct rendered *r)
{
    read_with(text, strlen(text), o, r);
}

TEST(json_inferred_scalars)
{
    struct rendered r;
    read_str("{\"i\":1,\"d\":1.5,\"s\":\"x\",\"b\":true,\"n\":null,\"dt\":\"2020-01-02\","
             "\"ts\":\"1970-01-01 00:00:01.5\"}\n"
             "{\"i\":-9223372036854775808,\"d\":2,\"s\":\"y\",\"b\":false,\"n\":null,"
             "\"dt\":\"1969-12-31\",\"ts\":\"1970-01-02 00:00:00.0\"}\n",
             NULL, &r);
    CHECK_MSG(r.st == BASALT_OK, "%s", r.error);
    CHECK_STR(r.schema, "+s<i:l,d:g,s:u,b:b,n:u,dt:tdD,ts:tsu:>");
    CHECK_STR(r.text, "{i=1,d=1.5,s='x',b=true,n=NULL,dt=18263,ts=1500000}\n"
                      "{i=-9223372036854775808,d=2,s='y',b=false,n=NULL,dt=-1,ts=86400000000}\n");
}

/* Strings of times are TIME as read_json_auto infers them (one- or
 * two-digit fields, seconds optional, up to 24:00:00); anything after the
 * time or past midnight keeps the column text. */
TEST(json_inferred_times)
{
    struct rendered r;
    read_str("{\"a\":\"12:34\",\"b\":\"1:2:3\",\"c\":\"12:34:56.1234567\",\"d\":\"24:00:01\","
             "\"e\":\"12:34:56x\",\"f\":\"24:00\"}\n"
             "{\"a\":null,\"b\":\"23:59:59.5\",\"c\":\"00:00:00\",\"d\":\"00:00:00\","
             "\"e\":\"00:00:00\",\"f\":\"00:00:00.000001\"}\n",
             NULL, &r);
    CHECK_MSG(r.st == BASALT_OK, "%s", r.error);
    CHECK_STR(r.schema, "+s<a:ttu,b:ttu,c:ttu,d:u,e:u,f:ttu>");
    CHECK_STR(r.text, "{a=45240000000,b=3723000000,c=45296123456,d='24:00:01',e='12:34:56x',"
                      "f=86400000000}\n"
                      "{a=NULL,b=86399500000,c=0,d='00:00:00',e='00:00:00',f=1}\n");
}

TEST(json_timestamp_forms)
{
    struct rendered r;
    /* one form per column, as read_json_auto: separator, fraction, zone */
    read_str("{\"a\":\"1970-01-01T00:00:01Z\",\"b\":\"1970-01-01 00:00:00\","
             "\"c\":\"1970-01-01T01:00:00+01:00\",\"d\":\"2000-01-01\"}\n"
             "{\"a\":\"1970-01-01T00:00:02Z\",\"b\":\"1970-01-01 00:00:00.5\","
             "\"c\":\"1970-01-01T00:00:00-00:30\",\"d\":\"2000-02-30\"}\n",
             NULL, &r);
    CHECK_MSG(r.st == BASALT_OK, "%s", r.error);
    CHECK_STR(r.schema, "+s<a:tsu:,b:u,c:tsu:,d:u>");
    CHECK_STR(r.text, "{a=1000000,b='1970-01-01 00:00:00',c=0,d='2000-01-01'}\n"
                      "{a=2000000,b='1970-01-01 00:00:00.5',c=1800000000,d='2000-02-30'}\n");
    /* NaN and infinities as DuckDB writes them */
    read_str("{\"x\":NaN}\n{\"x\":-Infinity}\n{\"x\":Infinity}\n", NULL, &r);
    CHECK_MSG(r.st == BASALT_OK, "%s", r.error);
    CHECK_STR(r.schema, "+s<x:g>");
    CHECK_STR(r.text, "{x=nan}\n{x=-inf}\n{x=inf}\n");
}

TEST(json_number_promotion)
{
    struct rendered r;
    /* a fraction, an exponent or an integer past int64 makes a double */
    read_str("{\"a\":1,\"b\":1,\"c\":1}\n{\"a\":2.5,\"b\":1e2,\"c\":9223372036854775808}\n", NULL,
             &r);
    CHECK_MSG(r.st == BASALT_OK, "%s", r.error);
    CHECK_STR(r.schema, "+s<a:g,b:g,c:g>");
    CHECK_STR(r.text, "{a=1,b=1,c=1}\n{a=2.5,b=100,c=9.2233720368547758e+18}\n");
    /* correctly rounded beyond the fast path */
    read_str("{\"a\":0.1}\n{\"a\":1.7976931348623157e308}\n{\"a\":123456789012345678901234567890}\n"
             "{\"a\":-0.0}\n{\"a\":4.9e-324}\n",
             NULL, &r);
    CHECK_MSG(r.st == BASALT_OK, "%s", r.error);
    CHECK_STR(r.text, "{a=0.10000000000000001}\n{a=1.7976931348623157e+308}\n"
                      "{a=1.2345678901234568e+29}\n{a=-0}\n{a=4.9406564584124654e-324}\n");
}

TEST(json_mixed_types_are_strings)
{
    struct rendered r;
    read_str("{\"a\":1,\"b\":\"2020-01-01\",\"c\":{\"x\":1},\"d\":true}\n"
             "{\"a\":\"x\",\"b\":\"nope\",\"c\":[1, 2],\"d\":3}\n"
             "{\"a\":null,\"b\":null,\"c\":\"s\",\"d\":null}\n",
             NULL, &r);
    CHECK_MSG(r.st == BASALT_OK, "%s", r.error);
    CHECK_STR(r.schema, "+s<a:u,b:u,c:u,d:u>");
    /* values of different kinds make a column of their JSON text */
    CHECK_STR(r.text, "{a='1',b='2020-01-01',c='{\"x\":1}',d='true'}\n"
                      "{a='\"x\"',b='nope',c='[1, 2]',d='3'}\n"
                      "{a=NULL,b=NULL,c='\"s\"',d=NULL}\n");
}

TEST(json_nested_and_missing)
{
    struct rendered r;
    read_str("{\"id\":1,\"s\":{\"x\":1,\"y\":[1,2]},\"l\":[{\"k\":\"a\"}]}\n"
             "{\"l\":[],\"id\":2,\"extra\":false}\n"
             "{\"id\":3,\"s\":{\"y\":null,\"z\":\"q\"},\"l\":[{\"k\":null,\"j\":1.5},null]}\n"
             "{\"id\":4,\"s\":null,\"l\":null}\n",
             NULL, &r);
    CHECK_MSG(r.st == BASALT_OK, "%s", r.error);
    CHECK_STR(r.schema, "+s<id:l,s:+s<x:l,y:+l<item:l>,z:u>,l:+l<item:+s<k:u,j:g>>,extra:b>");
    CHECK_STR(r.text, "{id=1,s={x=1,y=[1,2],z=NULL},l=[{k='a',j=NULL}],extra=NULL}\n"
                      "{id=2,s=NULL,l=[],extra=false}\n"
                      "{id=3,s={x=NULL,y=NULL,z='q'},l=[{k=NULL,j=1.5},NULL],extra=NULL}\n"
                      "{id=4,s=NULL,l=NULL,extra=NULL}\n");
}

TEST(json_null_only_and_empty)
{
    struct rendered r;
    read_str("{\"a\":null,\"b\":{},\"c\":[]}\n\n   \n{\"a\":null,\"b\":{},\"c\":[null]}", NULL,
             &r);
    CHECK_MSG(r.st == BASALT_OK, "%s", r.error);
    CHECK_STR(r.schema, "+s<a:u,b:u,c:+l<item:u>>");
    CHECK_STR(r.text, "{a=NULL,b='{}',c=[]}\n{a=NULL,b='{}',c=[NULL]}\n");
    read_str("", NULL, &r);
    CHECK_MSG(r.st == BASALT_OK, "%s", r.error);
    CHECK_STR(r.schema, "+s");
    CHECK_STR(r.text, "");
    read_str("\xEF\xBB\xBF{\"a\":1}\r\n{ \"a\" : 2 }\r\n", NULL, &r);
    CHECK_MSG(r.st == BASALT_OK, "%s", r.error);
    CHECK_STR(r.text, "{a=1}\n{a=2}\n");
}

TEST(json_escapes_and_unicode)
{
    struct rendered r;
    read_str("{\"s\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"}\n"
             "{\"s\":\"\\u00e9\\u20ac\\ud83d\\ude00 \xc3\xa9\"}\n"
             "{\"s\\u0041\":\"key escaped\"}\n",
             NULL, &r);
    CHECK_MSG(r.st == BASALT_OK, "%s", r.error);
    CHECK_STR(r.schema, "+s<s:u,sA:u>");
    CHECK_STR(r.text, "{s='a\"b\\c/d\b\f\n\r\t',sA=NULL}\n"
                      "{s='\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \xc3\xa9',sA=NULL}\n"
                      "{s=NULL,sA='key escaped'}\n");
}

TEST(json_errors_name_line_and_column)
{
    struct rendered r;
    struct basalt_json_read_options o;
    basalt_json_read_options_init(&o);
    o.sample_rows = 1;
    /* syntax: line 3, the byte after "1" */
    read_str("{\"a\":1}\n{\"a\":2}\n{\"a\":1 \"b\":2}\n", &o, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.json: line 3, column 8: expected ',' or '}'");
    /* a value past the sample that does not fit */
    read_str("{\"a\":1}\n\n{\"a\": \"x\"}\n", &o, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.json: line 3, column 7: column 'a': string \"x\" is not a BIGINT");
    CHECK_STR(r.text, ""); /* the rows of the failed batch are not handed out */
    read_str("{\"a\":{\"b\":[1]}}\n{\"a\":{\"b\":[1,2.5]}}\n", &o, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.json: line 2, column 14: column 'a.b[]': number 2.5 is not a BIGINT");
    /* in the sample: reported by open */
    read_str("{\"a\":1}\n[1]\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.json: line 2, column 1: a record must be a JSON object");
    read_str("{\"a\":tru}\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.json: line 1, column 6: unexpected character 't'");
    read_str("{\"a\":1}{\"a\":2}\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.json: line 1, column 8: text after the record");
    read_str("{\"a\":\n1}\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.json: line 1, column 6: expected a value, found the line end");
    read_str("{\"a\":1,\"a\":2}\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.json: line 1, column 8: key 'a' repeated");
    read_str("{\"a\":01}\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.json: line 1, column 6: number with a leading zero");
}

TEST(json_bad_strings)
{
    struct rendered r;
    read_str("{\"a\":\"\\ud800\"}\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.json: line 1, column 7: high surrogate \\ud800 without a low one");
    read_str("{\"a\":\"x\\udc00\"}\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.json: line 1, column 8: lone low surrogate \\udc00");
    read_str("{\"a\":\"\xc3\x28\"}\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.json: line 1, column 7: invalid UTF-8 in a string");
    read_str("{\"a\":\"x\\q\"}\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.json: line 1, column 8: bad escape in a string");
    read_str("{\"a\":\"\xed\xa0\x80\"}\n", NULL, &r); /* a surrogate encoded in UTF-8 */
    CHECK_EQ(r.st, BASALT_CORRUPT);
    read_str("{\"a\":\"tab\there\"}\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.json: line 1, column 10: control character 0x09 in a string");
    read_str("{\"a\":\"open}\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error, "t.json: line 1, column 6: unterminated string");
}

TEST(json_limits)
{
    struct rendered r;
    struct basalt_json_read_options o;
    basalt_json_read_options_init(&o);
    o.max_depth = 3;
    read_str("{\"a\":[[1]]}\n", &o, &r);
    CHECK_MSG(r.st == BASALT_OK, "%s", r.error);
    read_str("{\"a\":[[[1]]]}\n", &o, &r);
    CHECK_EQ(r.st, BASALT_LIMIT);
    CHECK_STR(r.error, "t.json: line 1, column 8: nesting deeper than 3 levels");
    /* past the sample, and in a skipped value */
    o.sample_rows = 1;
    read_str("{\"a\":[[1]]}\n{\"a\":[[1]],\"z\":[[[]]]}\n", &o, &r);
    CHECK_EQ(r.st, BASALT_LIMIT);
    CHECK_STR(r.error, "t.json: line 2, column 18: nesting deeper than 3 levels");
    /* deep input does not exhaust the stack */
    size_t deep = 100000;
    char *text = malloc(2 * deep + 16);
    CHECK(text != NULL);
    strcpy(text, "{\"a\":");
    memset(text + 5, '[', deep);
    memset(text + 5 + deep, ']', deep);
    strcpy(text + 5 + 2 * deep, "}\n");
    read_str(text, NULL, &r);
    free(text);
    CHECK_EQ(r.st, BASALT_LIMIT);
    basalt_json_read_options_init(&o);
    o.max_record_size = 10;
    read_str("{\"a\":1}\n{\"a\":12345}\n", &o, &r);
    CHECK_EQ(r.st, BASALT_LIMIT);
    CHECK_STR(r.error, "t.json: line 2: a record of more than 10 bytes (max_record_size)");
    /* a long number is refused, not copied */
    char big[5000];
    memset(big, '1', sizeof big);
    memcpy(big, "{\"a\":", 5);
    strcpy(big + sizeof big - 3, "}\n");
    read_str(big, NULL, &r);
    CHECK_EQ(r.st, BASALT_LIMIT);
}

TEST(json_top_level_array_unsupported)
{
    struct rendered r;
    read_str("  [{\"a\":1}]\n", NULL, &r);
    CHECK_EQ(r.st, BASALT_UNSUPPORTED);
    CHECK(strstr(r.error, "format 'array'") != NULL);
}

TEST(json_explicit_columns)
{
    struct rendered r;
    struct basalt_json_read_options o;
    basalt_json_read_options_init(&o);
    const char *names[] = {"b", "s", "t", "l", "st"};
    const char *types[] = {"INTEGER", "smallint", "TIMESTAMPTZ", "varchar[]",
                           "STRUCT(x DATE, \"y z\" DOUBLE)"};
    o.names = names;
    o.types = types;
    o.n_columns = 5;
    read_str("{\"a\":\"ignored\",\"b\":7,\"t\":\"1970-01-01T01:00:00+01:00\",\"l\":[\"p\",1],"
             "\"st\":{\"x\":\"1970-01-11\",\"y z\":3}}\n{\"s\":-32768}\n",
             &o, &r);
    CHECK_MSG(r.st == BASALT_OK, "%s", r.error);
    CHECK_STR(r.schema, "+s<b:i,s:s,t:tsu:UTC,l:+l<item:u>,st:+s<x:tdD,y z:g>>");
    CHECK_STR(r.text, "{b=7,s=NULL,t=0,l=['p','1'],st={x=10,y z=3}}\n"
                      "{b=NULL,s=-32768,t=NULL,l=NULL,st=NULL}\n");
    read_str("{\"s\":32768}\n", &o, &r);
    CHECK_EQ(r.st, BASALT_CORRUPT);
    CHECK_STR(r.error,
              "t.json: line 1, column 6: column 's': out-of-range number 32768 is not a SMALLINT");
    types[0] = "HUGEINT";
    read_str("{}\n", &o, &r);
    CHECK_EQ(r.st, BASALT_INVALID_ARG);
}

TEST(json_same_rows_for_any_workers)
{
    /* 3000 records of varied shapes, cut into 1-byte to 4 KiB chunks, read
     * on one and on four workers: the same rows and batch lengths */
    struct bt_rng rng;
    bt_rng_seed(&rng, 7);
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap);
    CHECK(text != NULL);
    for (int i = 0; i < 3000; i++) {
        uint64_t k = bt_rng_below(&rng, 4);
        len += (size_t)snprintf(text + len, cap - len,
                                k == 0   ? "{\"i\":%d,\"s\":\"v%d\"}\n"
                                : k == 1 ? "{\"s\":\"w%d\",\"l\":[%d,1]}\n"
                                : k == 2 ? "\n{\"i\":%d,\"o\":{\"p\":%d}}\n"
                                         : "{\"l\":[],\"i\":%d,\"x\":%d}\n",
                                i, i);
    }
    struct basalt_pool *pool = NULL;
    CHECK_EQ(basalt_pool_new(3, &pool, NULL), BASALT_OK);
    static struct rendered one, four;
    size_t sizes[] = {1, 7, 100, 4096, 1 << 30};
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        struct basalt_json_read_options o;
        basalt_json_read_options_init(&o);
        o.chunk_size = sizes[z];
        o.batch_size = 50;
        o.sample_rows = 10; /* keys past the sample are skipped */
        read_with(text, 2000, &o, &one);
        o.pool = pool;
        read_with(text, 2000, &o, &four);
        if (one.st != BASALT_OK || strcmp(one.text, four.text) != 0 ||
            strcmp(one.schema, four.schema) != 0 || one.stats.rows != four.stats.rows) {
            basalt_pool_free(pool);
            free(text);
            CHECK_MSG(false, "chunk size %zu: %s / %s", sizes[z], one.error, four.error);
        }
    }
    basalt_pool_free(pool);
    free(text);
    CHECK(one.stats.rows > 50);
}

TEST(json_input_without_view)
{
    /* the reader loads inputs that cannot be mapped; stream hand-out */
    const char *text = "{\"a\":1}\n{\"a\":2}\n";
    struct basalt_json_reader *reader = NULL;
    struct basalt_error err;
    CHECK_OK(basalt_json_reader_open_memory(text, strlen(text), "m.json", NULL, &reader, &err),
             &err);
    struct ArrowArrayStream stream;
    CHECK_OK(basalt_json_reader_stream(reader, &stream, &err), &err);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    CHECK_OK(basalt_arrow_stream_collect(&stream, &b, &err), &err);
    CHECK_EQ(b.n, 1);
    CHECK_EQ(b.arrays[0].length, 2);
    basalt_arrow_batches_reset(&b);
}

struct sweep_ctx {
    const char *text;
};

static basalt_status sweep_read(void *p)
{
    struct sweep_ctx *c = p;
    struct basalt_json_reader *reader = NULL;
    struct basalt_json_read_options o;
    basalt_json_read_options_init(&o);
    o.chunk_size = 16;
    o.batch_size = 2;
    basalt_status st =
        basalt_json_reader_open_memory(c->text, strlen(c->text), "f.json", &o, &reader, NULL);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    if (st == BASALT_OK)
        st = basalt_json_reader_read_all(reader, &b, NULL);
    basalt_arrow_batches_reset(&b);
    basalt_json_reader_close(reader);
    return st;
}

TEST(json_allocation_failures)
{
    struct sweep_ctx c = {"{\"a\":1,\"b\":{\"c\":[1,2]},\"s\":\"x\\n\"}\n{\"a\":2,\"s\":\"y\"}\n"
                          "{\"b\":{\"c\":[]},\"a\":3}\n"};
    CHECK_ALLOC_SWEEP(sweep_read, &c);
}
