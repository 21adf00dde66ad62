/* ARROW:schema restoration on hand-built schemas: what is restored, what is
 * refused because it does not fit the column, metadata merging, and the
 * states of a missing, mismatched or malformed key. The stored schemas are
 * encoded with basalt_arrow_ipc_schema_encode_base64, whose output is checked
 * against Arrow C++'s files in tests/unit/arrow. */
#include <stdlib.h>

#include "basalt/parquet_format.h"
#include "parquet_schema.h"
#include "test.h"

void pq_test_render(const struct ArrowSchema *s, struct basalt_buffer *out, bool with_name,
                    bool with_metadata);

enum { REQ = 0, OPT = 1, REP = 2 };

static struct basalt_parquet_schema_element el(const char *name, int rep, int type, int children)
{
    struct basalt_parquet_schema_element e;
    memset(&e, 0, sizeof e);
    e.name.data = name;
    e.name.len = strlen(name);
    e.has_repetition_type = rep >= 0;
    e.repetition_type = rep;
    if (type >= 0) {
        e.has_type = true;
        e.type = type;
    } else {
        e.has_num_children = true;
        e.num_children = children;
    }
    return e;
}

static struct basalt_parquet_schema_element lt(struct basalt_parquet_schema_element e, int kind,
                                               int a, int b)
{
    e.has_logical_type = true;
    e.logical_type.kind = kind;
    e.logical_type.time.unit = a;
    e.logical_type.time.is_adjusted_to_utc = b != 0;
    e.logical_type.decimal.precision = a;
    e.logical_type.decimal.scale = b;
    return e;
}

#define G -1
#define I32 BASALT_PARQUET_TYPE_INT32
#define I64 BASALT_PARQUET_TYPE_INT64
#define BIN BASALT_PARQUET_TYPE_BYTE_ARRAY
#define FLBA BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY
#define STR BASALT_PARQUET_LOGICAL_TYPE_STRING
#define TS BASALT_PARQUET_LOGICAL_TYPE_TIMESTAMP

/* The Parquet side: one column per restoration rule. */
static size_t parquet_elements(struct basalt_parquet_schema_element *e)
{
    size_t n = 0;
    e[n++] = el("schema", -1, G, 17);
    e[n++] = lt(el("s", OPT, BIN, 0), STR, 0, 0);       /* 0 -> U */
    e[n++] = el("b", OPT, BIN, 0);                      /* 1 -> Z */
    e[n++] = lt(el("d", OPT, BIN, 0), STR, 0, 0);       /* 2 -> dictionary<int8, utf8> ordered, read with int32 indices */
    e[n++] = lt(el("t1", OPT, I64, 0), TS, 1, 1);       /* 3 ms UTC -> Europe/Paris */
    e[n++] = lt(el("t2", OPT, I64, 0), TS, 2, 1);       /* 4 us UTC, stored ns +01:00 */
    e[n++] = lt(el("t3", OPT, I64, 0), TS, 1, 0);       /* 5 not UTC: the zone is not restored */
    e[n++] = el("du", OPT, I64, 0);                     /* 6 -> duration[ns] */
    e[n++] = lt(el("dec", OPT, FLBA, 0), BASALT_PARQUET_LOGICAL_TYPE_DECIMAL, 20, 2); /* 7 */
    e[n - 1].has_type_length = true;
    e[n - 1].type_length = 9;
    e[n++] = el("i", REQ, I32, 0);                      /* 8 stored utf8: refused */
    e[n++] = lt(el("l", OPT, G, 1), BASALT_PARQUET_LOGICAL_TYPE_LIST, 0, 0); /* 9 large_list */
    e[n++] = el("list", REP, G, 1);
    e[n++] = lt(el("element", OPT, BIN, 0), STR, 0, 0);
    e[n++] = lt(el("f", OPT, G, 1), BASALT_PARQUET_LOGICAL_TYPE_LIST, 0, 0); /* 10 fixed-size */
    e[n++] = el("list", REP, G, 1);
    e[n++] = el("element", OPT, BIN, 0);
    e[n++] = el("st", OPT, G, 1);                       /* 11 struct */
    e[n++] = el("x", OPT, BIN, 0);
    e[n++] = el("st2", OPT, G, 1);                      /* 12 struct, stored with 2 children */
    e[n++] = el("x", OPT, BIN, 0);
    e[n++] = lt(el("m", OPT, G, 1), BASALT_PARQUET_LOGICAL_TYPE_MAP, 0, 0); /* 13 map */
    e[n++] = el("key_value", REP, G, 2);
    e[n++] = lt(el("key", REQ, BIN, 0), STR, 0, 0);
    e[n++] = lt(el("value", OPT, I64, 0), TS, 3, 1);
    e[n++] = el("md", OPT, BIN, 0);                     /* 14 metadata, extension kept */
    e[n - 1].has_field_id = true;
    e[n - 1].field_id = 7;
    e[n++] = el("md2", OPT, I32, 0);                    /* 15 extension dropped */
    e[n++] = el("dict_int", OPT, I32, 0);               /* 16 dictionary of int: refused */
    return n;
}

/* The stored Arrow side, field by field. */
static basalt_status init(struct ArrowSchema *s, const char *format, const char *name,
                          int64_t n_children)
{
    return basalt_arrow_schema_init(s, format, name, ARROW_FLAG_NULLABLE, n_children, NULL);
}

static basalt_status add_md(struct ArrowSchema *s, const char *k1, const char *v1, const char *k2,
                            const char *v2)
{
    struct basalt_buffer md;
    basalt_buffer_init(&md);
    basalt_status st = basalt_arrow_metadata_append(&md, k1, strlen(k1), v1, strlen(v1), NULL);
    if (st == BASALT_OK && k2)
        st = basalt_arrow_metadata_append(&md, k2, strlen(k2), v2, strlen(v2), NULL);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_set_metadata(s, (const char *)md.data, NULL);
    basalt_buffer_reset(&md);
    return st;
}

static basalt_status dictionary(struct ArrowSchema *s, const char *index, const char *name,
                                const char *values, bool ordered)
{
    basalt_status st = basalt_arrow_schema_init(
        s, index, name, ARROW_FLAG_NULLABLE | (ordered ? ARROW_FLAG_DICTIONARY_ORDERED : 0), 0,
        NULL);
    struct ArrowSchema d;
    if (st == BASALT_OK)
        st = init(&d, values, "", 0);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_set_dictionary(s, &d, NULL);
    return st;
}

static basalt_status stored_schema(struct ArrowSchema *a)
{
    struct ArrowSchema **c;
    basalt_status st = basalt_arrow_schema_init(a, "+s", "", 0, 17, NULL);
    if (st != BASALT_OK)
        return st;
    c = a->children;
    st = init(c[0], "U", "s", 0);
    if (st == BASALT_OK) st = init(c[1], "Z", "b", 0);
    if (st == BASALT_OK) st = dictionary(c[2], "c", "d", "u", true);
    if (st == BASALT_OK) st = init(c[3], "tsm:Europe/Paris", "t1", 0);
    if (st == BASALT_OK) st = init(c[4], "tsn:+01:00", "t2", 0);
    if (st == BASALT_OK) st = init(c[5], "tsm:Asia/Tokyo", "t3", 0);
    if (st == BASALT_OK) st = init(c[6], "tDn", "du", 0);
    if (st == BASALT_OK) st = init(c[7], "d:20,2,256", "dec", 0);
    if (st == BASALT_OK) st = init(c[8], "u", "i", 0);
    if (st == BASALT_OK) st = init(c[9], "+L", "l", 1);
    if (st == BASALT_OK) st = init(c[9]->children[0], "U", "item", 0);
    if (st == BASALT_OK) st = init(c[10], "+w:2", "f", 1);
    if (st == BASALT_OK) st = init(c[10]->children[0], "Z", "item", 0);
    if (st == BASALT_OK) st = init(c[11], "+s", "st", 1);
    if (st == BASALT_OK) st = init(c[11]->children[0], "Z", "x", 0);
    if (st == BASALT_OK) st = init(c[12], "+s", "st2", 2);
    if (st == BASALT_OK) st = init(c[12]->children[0], "Z", "x", 0);
    if (st == BASALT_OK) st = init(c[12]->children[1], "Z", "y", 0);
    if (st == BASALT_OK) st = init(c[13], "+m", "m", 1);
    if (st == BASALT_OK) st = basalt_arrow_schema_init(c[13]->children[0], "+s", "entries", 0, 2, NULL);
    if (st == BASALT_OK) st = basalt_arrow_schema_init(c[13]->children[0]->children[0], "U", "key", 0, 0, NULL);
    if (st == BASALT_OK) st = init(c[13]->children[0]->children[1], "tsn:America/Lima", "value", 0);
    if (st == BASALT_OK) st = init(c[14], "z", "md", 0);
    if (st == BASALT_OK) st = add_md(c[14], "ARROW:extension:name", "my.ext", "PARQUET:field_id", "99");
    if (st == BASALT_OK) st = init(c[15], "u", "md2", 0);
    if (st == BASALT_OK) st = add_md(c[15], "ARROW:extension:name", "my.ext", "comment", "kept");
    if (st == BASALT_OK) st = dictionary(c[16], "i", "dict_int", "i", false);
    if (st == BASALT_OK) st = add_md(a, "origin", "stored schema", NULL, NULL);
    return st;
}

/* Builds the Parquet schema with ARROW:schema = `value` (NULL: no such key)
 * and a plain pair in the key-value metadata, and renders its Arrow output
 * into `text` unless that is NULL. */
static basalt_status build(const char *value, size_t value_len,
                           const struct basalt_parquet_schema_options *o,
                           struct basalt_parquet_schema **s, struct basalt_buffer *text,
                           struct basalt_error *err)
{
    static struct basalt_parquet_schema_element e[32];
    size_t n = parquet_elements(e);
    struct basalt_parquet_key_value kv[2];
    memset(kv, 0, sizeof kv);
    kv[0].key.data = "writer";
    kv[0].key.len = 6;
    kv[0].has_value = true;
    kv[0].value.data = "test";
    kv[0].value.len = 4;
    kv[1].key.data = "ARROW:schema";
    kv[1].key.len = 12;
    kv[1].has_value = true;
    kv[1].value.data = value;
    kv[1].value.len = value_len;
    basalt_status st = basalt_parquet_schema_from_elements(e, n, kv, value ? 2 : 1, o, s, err);
    if (st != BASALT_OK || !text)
        return st;
    struct ArrowSchema out;
    st = basalt_parquet_schema_to_arrow(*s, NULL, NULL, &out, err);
    if (st == BASALT_OK) {
        text->size = 0;
        pq_test_render(&out, text, false, true);
        basalt_buffer_append(text, "", 1, NULL);
        st = basalt_arrow_schema_validate(&out, err);
        basalt_arrow_schema_release(&out);
    }
    return st;
}

/* Hand-derived from the rules in parquet_schema.h. */
static const char restored[] =
    "+s<s:U?,b:Z?,d:i?![u?],t1:tsm:Europe/Paris?,t2:tsu:+01:00?,t3:tsm:?,du:tDn?,"
    "dec:d:20,2,256?,i:i,l:+L?<element:U?>,f:+w:2?<element:Z?>,st:+s?<x:Z?>,st2:+s?<x:z?>,"
    "m:+m?<key_value:+s<key:U,value:tsn:America/Lima?>>,"
    "md:z?{ARROW:extension:name=my.ext;PARQUET:field_id=7},md2:i?{comment=kept},dict_int:i?>"
    "{origin=stored schema}";

static const char plain[] =
    "+s<s:u?,b:z?,d:u?,t1:tsm:UTC?,t2:tsu:UTC?,t3:tsm:?,du:l?,dec:d:20,2?,i:i,"
    "l:+l?<element:u?>,f:+l?<element:z?>,st:+s?<x:z?>,st2:+s?<x:z?>,"
    "m:+m?<key_value:+s<key:u,value:tsn:UTC?>>,md:z?{PARQUET:field_id=7},md2:i?,dict_int:i?>"
    "{writer=test}";

TEST(hint_restores_fitting_types)
{
    struct ArrowSchema a;
    struct basalt_buffer b64, text;
    struct basalt_error err;
    basalt_buffer_init(&b64);
    basalt_buffer_init(&text);
    CHECK_OK(stored_schema(&a), &err);
    CHECK_OK(basalt_arrow_ipc_schema_encode_base64(&a, &b64, &err), &err);
    basalt_arrow_schema_release(&a);
    struct basalt_parquet_schema *s;
    CHECK_OK(build((const char *)b64.data, b64.size, NULL, &s, &text, &err), &err);
    CHECK_EQ(s->arrow_schema_state, BASALT_PARQUET_ARROW_SCHEMA_APPLIED);
    CHECK_STR((const char *)text.data, restored);
    /* Leaves follow the restored types. */
    CHECK_STR(s->leaves[0].format, "U");
    CHECK_STR(s->leaves[2].format, "u"); /* the dictionary's value type */
    CHECK_STR(s->fields[s->leaves[2].field].format, "i"); /* int8 in the file: read as int32 */
    CHECK_STR(s->fields[s->leaves[2].field].dictionary_format, "u");
    CHECK_STR(s->leaves[6].format, "tDn");
    CHECK_STR(s->leaves[7].format, "d:20,2,256");
    CHECK_EQ(s->leaves[7].value_width, 32);
    CHECK_EQ(s->leaves[7].conversion, BASALT_PARQUET_CONVERT_BYTES_TO_DECIMAL);
    CHECK_EQ(s->fields[s->roots[9]].kind, BASALT_PARQUET_FIELD_LARGE_LIST);
    CHECK_EQ(s->fields[s->roots[10]].kind, BASALT_PARQUET_FIELD_FIXED_LIST);
    CHECK_EQ(s->fields[s->roots[10]].list_size, 2);
    basalt_parquet_schema_free(s);
    /* Ignored on request: the Parquet types and the file's metadata. */
    struct basalt_parquet_schema_options o;
    basalt_parquet_schema_options_init(&o);
    o.ignore_arrow_schema = true;
    CHECK_OK(build((const char *)b64.data, b64.size, &o, &s, &text, &err), &err);
    CHECK_EQ(s->arrow_schema_state, BASALT_PARQUET_ARROW_SCHEMA_ABSENT);
    CHECK_STR((const char *)text.data, plain);
    basalt_parquet_schema_free(s);
    basalt_buffer_reset(&b64);
    basalt_buffer_reset(&text);
}

TEST(hint_absent_mismatched_or_malformed)
{
    struct basalt_buffer b64, text;
    struct basalt_error err;
    struct basalt_parquet_schema *s;
    basalt_buffer_init(&b64);
    basalt_buffer_init(&text);
    CHECK_OK(build(NULL, 0, NULL, &s, &text, &err), &err);
    CHECK_EQ(s->arrow_schema_state, BASALT_PARQUET_ARROW_SCHEMA_ABSENT);
    CHECK_STR((const char *)text.data, plain);
    basalt_parquet_schema_free(s);
    /* A stored schema with another number of fields is not used. */
    struct ArrowSchema a;
    CHECK_OK(basalt_arrow_schema_init(&a, "+s", "", 0, 1, &err), &err);
    CHECK_OK(init(a.children[0], "U", "s", 0), &err);
    CHECK_OK(basalt_arrow_ipc_schema_encode_base64(&a, &b64, &err), &err);
    basalt_arrow_schema_release(&a);
    CHECK_OK(build((const char *)b64.data, b64.size, NULL, &s, &text, &err), &err);
    CHECK_EQ(s->arrow_schema_state, BASALT_PARQUET_ARROW_SCHEMA_MISMATCH);
    CHECK_STR((const char *)text.data, plain);
    basalt_parquet_schema_free(s);
    /* Not base64; base64 of garbage; a message cut short. */
    static const char *bad[] = {"not base64!", "AAAAAAAAAAAA", "/////wAAAAA="};
    for (int i = 0; i < 3; i++) {
        CHECK_OK(build(bad[i], strlen(bad[i]), NULL, &s, &text, &err), &err);
        CHECK_EQ(s->arrow_schema_state, BASALT_PARQUET_ARROW_SCHEMA_MALFORMED);
        CHECK_STR((const char *)text.data, plain);
        basalt_parquet_schema_free(s);
    }
    size_t half = b64.size / 2;
    CHECK_OK(build((const char *)b64.data, half - half % 4, NULL, &s, &text, &err), &err);
    CHECK_EQ(s->arrow_schema_state, BASALT_PARQUET_ARROW_SCHEMA_MALFORMED);
    basalt_parquet_schema_free(s);
    basalt_buffer_reset(&b64);
    basalt_buffer_reset(&text);
}

/* decimal32 / decimal64 stored for DECIMAL columns: restored where the
 * column's precision fits the width (the file's precision and scale kept),
 * never INT64 into 32 bits; leaves then convert at that width. */
TEST(hint_restores_decimal_widths)
{
    struct basalt_parquet_schema_element e[8];
    size_t n = 0;
    e[n++] = el("schema", -1, G, 7);
    e[n++] = lt(el("i32_32", OPT, I32, 0), BASALT_PARQUET_LOGICAL_TYPE_DECIMAL, 9, 2);
    e[n++] = lt(el("i32_64", OPT, I32, 0), BASALT_PARQUET_LOGICAL_TYPE_DECIMAL, 7, 0);
    e[n++] = lt(el("i64_64", OPT, I64, 0), BASALT_PARQUET_LOGICAL_TYPE_DECIMAL, 18, 3);
    e[n++] = lt(el("i64_32", OPT, I64, 0), BASALT_PARQUET_LOGICAL_TYPE_DECIMAL, 5, 1);
    e[n++] = lt(el("flba_32", OPT, FLBA, 0), BASALT_PARQUET_LOGICAL_TYPE_DECIMAL, 9, 4);
    e[n - 1].has_type_length = true;
    e[n - 1].type_length = 4;
    e[n++] = lt(el("bin_64", OPT, BIN, 0), BASALT_PARQUET_LOGICAL_TYPE_DECIMAL, 12, 2);
    e[n++] = lt(el("wide_64", OPT, BIN, 0), BASALT_PARQUET_LOGICAL_TYPE_DECIMAL, 20, 2);
    static const char *const stored_formats[7] = {"d:9,2,32", "d:7,0,64",  "d:18,3,64",
                                                  "d:5,1,32", "d:9,4,32",  "d:12,2,64",
                                                  "d:18,2,64"};
    static const char *const want[7] = {"d:9,2,32", "d:7,0,64",  "d:18,3,64", "d:5,1",
                                        "d:9,4,32", "d:12,2,64", "d:20,2"};
    static const int32_t width[7] = {4, 8, 8, 16, 4, 8, 16};
    struct ArrowSchema a;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_schema_init(&a, "+s", "", 0, 7, &err), &err);
    for (int k = 0; k < 7; k++)
        CHECK_OK(init(a.children[k], stored_formats[k], e[k + 1].name.data, 0), &err);
    struct basalt_buffer b64;
    basalt_buffer_init(&b64);
    CHECK_OK(basalt_arrow_ipc_schema_encode_base64(&a, &b64, &err), &err);
    basalt_arrow_schema_release(&a);
    struct basalt_parquet_key_value kv;
    memset(&kv, 0, sizeof kv);
    kv.key.data = "ARROW:schema";
    kv.key.len = 12;
    kv.has_value = true;
    kv.value.data = (const char *)b64.data;
    kv.value.len = b64.size;
    struct basalt_parquet_schema *s = NULL;
    CHECK_OK(basalt_parquet_schema_from_elements(e, n, &kv, 1, NULL, &s, &err), &err);
    CHECK_EQ(s->arrow_schema_state, BASALT_PARQUET_ARROW_SCHEMA_APPLIED);
    for (int k = 0; k < 7 && s->n_leaves == 7; k++) {
        CHECK_STR(s->leaves[k].format, want[k]);
        CHECK_EQ(s->leaves[k].value_width, width[k]);
        CHECK_STR(s->fields[s->roots[k]].format, want[k]);
    }
    basalt_parquet_schema_free(s);
    basalt_buffer_reset(&b64);
}

struct sweep {
    const struct basalt_buffer *b64;
};

static basalt_status hint_attempt(void *p)
{
    struct sweep *ctx = p;
    struct basalt_parquet_schema *s = NULL;
    basalt_status st = build((const char *)ctx->b64->data, ctx->b64->size, NULL, &s, NULL, NULL);
    if (st == BASALT_OK && s->arrow_schema_state != BASALT_PARQUET_ARROW_SCHEMA_APPLIED)
        st = BASALT_INTERNAL;
    struct ArrowSchema out;
    if (st == BASALT_OK) {
        st = basalt_parquet_schema_to_arrow(s, NULL, NULL, &out, NULL);
        if (st == BASALT_OK)
            basalt_arrow_schema_release(&out);
    }
    basalt_parquet_schema_free(s);
    return st;
}

TEST(hint_alloc_failure_sweep)
{
    struct ArrowSchema a;
    struct basalt_buffer b64;
    struct basalt_error err;
    basalt_buffer_init(&b64);
    CHECK_OK(stored_schema(&a), &err);
    CHECK_OK(basalt_arrow_ipc_schema_encode_base64(&a, &b64, &err), &err);
    basalt_arrow_schema_release(&a);
    struct sweep ctx = {&b64};
    CHECK_ALLOC_SWEEP(hint_attempt, &ctx);
    basalt_buffer_reset(&b64);
}
