/* Hand-built Parquet schemas: the LIST and MAP examples and
 * backward-compatibility rules of LogicalTypes.md (apache/parquet-format),
 * unannotated repeated fields, structs, the levels of every field, the
 * annotation -> Arrow type table, and malformed schemas. */
#include <stdlib.h>

#include "basalt/parquet_format.h"
#include "parquet_schema.h"
#include "test.h"

void pq_test_render(const struct ArrowSchema *s, struct basalt_buffer *out, bool with_name,
                    bool with_metadata);

enum { REQ = BASALT_PARQUET_FIELD_REPETITION_TYPE_REQUIRED,
       OPT = BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL,
       REP = BASALT_PARQUET_FIELD_REPETITION_TYPE_REPEATED };

/* ------------------------------------------------------------ building elements */

static struct basalt_parquet_schema_element el_root(int n)
{
    struct basalt_parquet_schema_element e;
    memset(&e, 0, sizeof e);
    e.name.data = "schema";
    e.name.len = 6;
    e.has_num_children = true;
    e.num_children = n;
    return e;
}

static struct basalt_parquet_schema_element el_group(const char *name, int rep, int n)
{
    struct basalt_parquet_schema_element e = el_root(n);
    e.name.data = name;
    e.name.len = strlen(name);
    e.has_repetition_type = true;
    e.repetition_type = rep;
    return e;
}

static struct basalt_parquet_schema_element el_leaf(const char *name, int rep, int type)
{
    struct basalt_parquet_schema_element e;
    memset(&e, 0, sizeof e);
    e.name.data = name;
    e.name.len = strlen(name);
    e.has_repetition_type = true;
    e.repetition_type = rep;
    e.has_type = true;
    e.type = type;
    return e;
}

static struct basalt_parquet_schema_element with_ct(struct basalt_parquet_schema_element e, int ct)
{
    e.has_converted_type = true;
    e.converted_type = ct;
    return e;
}

static struct basalt_parquet_schema_element with_lt(struct basalt_parquet_schema_element e,
                                                    int kind)
{
    e.has_logical_type = true;
    e.logical_type.kind = kind;
    return e;
}

static struct basalt_parquet_schema_element with_len(struct basalt_parquet_schema_element e,
                                                     int len)
{
    e.has_type_length = true;
    e.type_length = len;
    return e;
}

static struct basalt_parquet_schema_element with_id(struct basalt_parquet_schema_element e, int id)
{
    e.has_field_id = true;
    e.field_id = id;
    return e;
}

#define BOOLEAN BASALT_PARQUET_TYPE_BOOLEAN
#define INT32 BASALT_PARQUET_TYPE_INT32
#define INT64 BASALT_PARQUET_TYPE_INT64
#define INT96 BASALT_PARQUET_TYPE_INT96
#define FLOAT BASALT_PARQUET_TYPE_FLOAT
#define DOUBLE BASALT_PARQUET_TYPE_DOUBLE
#define BINARY BASALT_PARQUET_TYPE_BYTE_ARRAY
#define FLBA BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY
#define LIST_LT BASALT_PARQUET_LOGICAL_TYPE_LIST
#define MAP_LT BASALT_PARQUET_LOGICAL_TYPE_MAP
#define STRING_LT BASALT_PARQUET_LOGICAL_TYPE_STRING
#define CT_LIST BASALT_PARQUET_CONVERTED_TYPE_LIST
#define CT_MAP BASALT_PARQUET_CONVERTED_TYPE_MAP
#define CT_MKV BASALT_PARQUET_CONVERTED_TYPE_MAP_KEY_VALUE
#define CT_UTF8 BASALT_PARQUET_CONVERTED_TYPE_UTF8

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Builds a schema from `e` and renders its Arrow fields and levels:
 *   arrow  "a:+l?<element:i?>,..." (as the corpus test)
 *   levels "a 1/0/0,element 3/1/2,..." in pre-order: def/rep/anc per field
 *   leaves "a.list.element 3/1,..." max_def/max_rep per leaf. */
struct rendered {
    char arrow[2048];
    char levels[2048];
    char leaves[2048];
};

static basalt_status build_and_render(const struct basalt_parquet_schema_element *e, size_t n,
                                      struct rendered *r, struct basalt_error *err)
{
    struct basalt_parquet_schema *s;
    basalt_status st = basalt_parquet_schema_from_elements(e, n, NULL, 0, NULL, &s, err);
    if (st != BASALT_OK)
        return st;
    struct ArrowSchema out;
    st = basalt_parquet_schema_to_arrow(s, NULL, NULL, &out, err);
    if (st != BASALT_OK) {
        basalt_parquet_schema_free(s);
        return st;
    }
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    for (int64_t i = 0; i < out.n_children; i++) {
        if (i)
            basalt_buffer_append(&buf, ",", 1, NULL);
        pq_test_render(out.children[i], &buf, true, true);
    }
    basalt_buffer_append(&buf, "", 1, NULL);
    snprintf(r->arrow, sizeof r->arrow, "%s", (const char *)buf.data);
    basalt_buffer_reset(&buf);
    size_t w = 0;
    r->levels[0] = '\0';
    for (int32_t i = 0; i < s->n_fields && w < sizeof r->levels; i++) {
        const struct basalt_parquet_schema_field *f = &s->fields[i];
        w += (size_t)snprintf(r->levels + w, sizeof r->levels - w, "%s%s %d/%d/%d", i ? "," : "",
                              f->name, f->def_level, f->rep_level, f->repeated_ancestor_def_level);
    }
    w = 0;
    r->leaves[0] = '\0';
    for (int32_t i = 0; i < s->n_leaves && w < sizeof r->leaves; i++) {
        const struct basalt_parquet_schema_leaf *l = &s->leaves[i];
        w += (size_t)snprintf(r->leaves + w, sizeof r->leaves - w, "%s%s %d/%d", i ? "," : "",
                              l->path, l->max_def, l->max_rep);
    }
    st = basalt_arrow_schema_validate(&out, err);
    basalt_arrow_schema_release(&out);
    basalt_parquet_schema_free(s);
    return st;
}

#define CHECK_SCHEMA(elements, want_arrow, want_levels, want_leaves)                         \
    do {                                                                                      \
        struct rendered r_;                                                                   \
        struct basalt_error e_;                                                               \
        CHECK_OK(build_and_render((elements), N(elements), &r_, &e_), &e_);                  \
        CHECK_STR(r_.arrow, want_arrow);                                                      \
        CHECK_STR(r_.levels, want_levels);                                                    \
        CHECK_STR(r_.leaves, want_leaves);                                                    \
    } while (0)

/* ------------------------------------------------------------ LIST */

/* LogicalTypes.md, "Lists": the standard three-level forms. */
TEST(schema_list_three_level_standard)
{
    /* // List<String> (list non-null, elements nullable)
     * required group my_list (LIST) { repeated group list { optional binary element (STRING); } } */
    const struct basalt_parquet_schema_element a[] = {
        el_root(1),
        with_lt(el_group("my_list", REQ, 1), LIST_LT),
        el_group("list", REP, 1),
        with_lt(el_leaf("element", OPT, BINARY), STRING_LT),
    };
    CHECK_SCHEMA(a, "my_list:+l<element:u?>", "my_list 0/0/0,element 2/1/1",
                 "my_list.list.element 2/1");
    /* // List<String> (list nullable, elements non-null)
     * optional group my_list (LIST) { repeated group list { required binary element (STRING); } } */
    const struct basalt_parquet_schema_element b[] = {
        el_root(1),
        with_lt(el_group("my_list", OPT, 1), LIST_LT),
        el_group("list", REP, 1),
        with_lt(el_leaf("element", REQ, BINARY), STRING_LT),
    };
    CHECK_SCHEMA(b, "my_list:+l?<element:u>", "my_list 1/0/0,element 2/1/2",
                 "my_list.list.element 2/1");
    /* optional list of optional elements, and the element named "item" as
     * older Arrow writers name it */
    const struct basalt_parquet_schema_element c[] = {
        el_root(1),
        with_lt(el_group("a", OPT, 1), LIST_LT),
        el_group("list", REP, 1),
        el_leaf("item", OPT, INT32),
    };
    CHECK_SCHEMA(c, "a:+l?<item:i?>", "a 1/0/0,item 3/1/2", "a.list.item 3/1");
}

/* LogicalTypes.md: List<List<Integer>>, and the worked example (c) of
 * parquet_schema.h with optional levels everywhere. */
TEST(schema_list_of_lists)
{
    const struct basalt_parquet_schema_element a[] = {
        el_root(1),
        with_lt(el_group("array_of_arrays", OPT, 1), LIST_LT),
        el_group("list", REP, 1),
        with_lt(el_group("element", REQ, 1), LIST_LT),
        el_group("list", REP, 1),
        el_leaf("element", REQ, INT32),
    };
    CHECK_SCHEMA(a, "array_of_arrays:+l?<element:+l<element:i>>",
                 "array_of_arrays 1/0/0,element 2/1/2,element 3/2/3",
                 "array_of_arrays.list.element.list.element 3/2");
    const struct basalt_parquet_schema_element b[] = {
        el_root(1),
        with_ct(el_group("outer", OPT, 1), CT_LIST),
        el_group("list", REP, 1),
        with_ct(el_group("element", OPT, 1), CT_LIST),
        el_group("list", REP, 1),
        el_leaf("element", OPT, INT32),
    };
    CHECK_SCHEMA(b, "outer:+l?<element:+l?<element:i?>>",
                 "outer 1/0/0,element 3/1/2,element 5/2/4",
                 "outer.list.element.list.element 5/2");
}

/* LogicalTypes.md, "Backward-compatibility rules", each example. */
TEST(schema_list_backward_compatibility_rules)
{
    /* 1. the repeated field is not a group: it is the (required) element.
     * // List<Integer> (nullable list, non-null elements)
     * optional group my_list (LIST) { repeated int32 element; } */
    const struct basalt_parquet_schema_element r1[] = {
        el_root(1),
        with_ct(el_group("my_list", OPT, 1), CT_LIST),
        el_leaf("element", REP, INT32),
    };
    CHECK_SCHEMA(r1, "my_list:+l?<element:i>", "my_list 1/0/0,element 2/1/2",
                 "my_list.element 2/1");
    /* 2. a repeated group with several fields is the element.
     * // List<Tuple<String, Integer>> (nullable list, non-null elements)
     * optional group my_list (LIST) { repeated group element {
     *   required binary str (STRING); required int32 num; } } */
    const struct basalt_parquet_schema_element r2[] = {
        el_root(1),
        with_ct(el_group("my_list", OPT, 1), CT_LIST),
        el_group("element", REP, 2),
        with_ct(el_leaf("str", REQ, BINARY), CT_UTF8),
        el_leaf("num", REQ, INT32),
    };
    CHECK_SCHEMA(r2, "my_list:+l?<element:+s<str:u,num:i>>",
                 "my_list 1/0/0,element 2/1/2,str 2/1/2,num 2/1/2",
                 "my_list.element.str 2/1,my_list.element.num 2/1");
    /* 3. a repeated group of one field named "array" or "<list>_tuple" is
     * the element.
     * // List<OneTuple<String>> (nullable list, non-null elements) */
    const struct basalt_parquet_schema_element r3a[] = {
        el_root(1),
        with_ct(el_group("my_list", OPT, 1), CT_LIST),
        el_group("array", REP, 1),
        with_ct(el_leaf("str", REQ, BINARY), CT_UTF8),
    };
    CHECK_SCHEMA(r3a, "my_list:+l?<array:+s<str:u>>", "my_list 1/0/0,array 2/1/2,str 2/1/2",
                 "my_list.array.str 2/1");
    const struct basalt_parquet_schema_element r3b[] = {
        el_root(1),
        with_ct(el_group("my_list", OPT, 1), CT_LIST),
        el_group("my_list_tuple", REP, 1),
        with_ct(el_leaf("str", REQ, BINARY), CT_UTF8),
    };
    CHECK_SCHEMA(r3b, "my_list:+l?<my_list_tuple:+s<str:u>>",
                 "my_list 1/0/0,my_list_tuple 2/1/2,str 2/1/2", "my_list.my_list_tuple.str 2/1");
    /* ... but "<other>_tuple" is not the rule: three-level. */
    const struct basalt_parquet_schema_element r3c[] = {
        el_root(1),
        with_ct(el_group("my_list", OPT, 1), CT_LIST),
        el_group("other_tuple", REP, 1),
        with_ct(el_leaf("str", REQ, BINARY), CT_UTF8),
    };
    CHECK_SCHEMA(r3c, "my_list:+l?<str:u>", "my_list 1/0/0,str 2/1/2",
                 "my_list.other_tuple.str 2/1");
    /* 4. otherwise the single field is the element, with its repetition.
     * // List<String> (nullable list, nullable elements)
     * optional group my_list (LIST) { repeated group element { optional binary str (STRING); } } */
    const struct basalt_parquet_schema_element r4[] = {
        el_root(1),
        with_ct(el_group("my_list", OPT, 1), CT_LIST),
        el_group("element", REP, 1),
        with_ct(el_leaf("str", OPT, BINARY), CT_UTF8),
    };
    CHECK_SCHEMA(r4, "my_list:+l?<str:u?>", "my_list 1/0/0,str 3/1/2",
                 "my_list.element.str 3/1");
    /* A repeated group whose only field is repeated (parquet-avro's old
     * list of lists, data/old_list_structure.parquet). */
    const struct basalt_parquet_schema_element r5[] = {
        el_root(1),
        with_ct(el_group("a", REQ, 1), CT_LIST),
        with_ct(el_group("array", REP, 1), CT_LIST),
        el_leaf("array", REP, INT32),
    };
    CHECK_SCHEMA(r5, "a:+l<array:+l<array:i>>", "a 0/0/0,array 1/1/1,array 2/2/2",
                 "a.array.array 2/2");
}

/* Unannotated repeated fields, LogicalTypes.md: "// List<Integer> (non-null
 * list, non-null elements) repeated int32 num;" and the group form. */
TEST(schema_unannotated_repeated)
{
    const struct basalt_parquet_schema_element a[] = {
        el_root(2),
        el_leaf("num", REP, INT32),
        el_group("my_list", REP, 2),
        el_leaf("num", REQ, INT32),
        el_leaf("flag", OPT, BOOLEAN),
    };
    CHECK_SCHEMA(a, "num:+l<num:i>,my_list:+l<my_list:+s<num:i,flag:b?>>",
                 "num 0/0/0,num 1/1/1,my_list 0/0/0,my_list 1/1/1,num 1/1/1,flag 2/1/1",
                 "num 1/1,my_list.num 1/1,my_list.flag 2/1");
    /* Inside an optional struct (data/repeated_no_annotation.parquet). */
    const struct basalt_parquet_schema_element b[] = {
        el_root(2),
        el_leaf("id", REQ, INT32),
        el_group("phoneNumbers", OPT, 1),
        el_group("phone", REP, 2),
        el_leaf("number", REQ, INT64),
        with_ct(el_leaf("kind", OPT, BINARY), CT_UTF8),
    };
    CHECK_SCHEMA(b, "id:i,phoneNumbers:+s?<phone:+l<phone:+s<number:l,kind:u?>>>",
                 "id 0/0/0,phoneNumbers 1/0/0,phone 1/0/0,phone 2/1/2,number 2/1/2,kind 3/1/2",
                 "id 0/0,phoneNumbers.phone.number 2/1,phoneNumbers.phone.kind 3/1");
}

/* ------------------------------------------------------------ MAP */

TEST(schema_map_forms)
{
    /* LogicalTypes.md, "Maps": // Map<String, Integer>
     * required group my_map (MAP) { repeated group key_value {
     *   required binary key (STRING); optional int32 value; } } */
    const struct basalt_parquet_schema_element a[] = {
        el_root(1),
        with_lt(el_group("my_map", REQ, 1), MAP_LT),
        el_group("key_value", REP, 2),
        with_lt(el_leaf("key", REQ, BINARY), STRING_LT),
        el_leaf("value", OPT, INT32),
    };
    CHECK_SCHEMA(a, "my_map:+m<key_value:+s<key:u,value:i?>>",
                 "my_map 0/0/0,key_value 1/1/1,key 1/1/1,value 2/1/1",
                 "my_map.key_value.key 1/1,my_map.key_value.value 2/1");
    /* Backward compatibility: MAP_KEY_VALUE on the repeated group inside a
     * MAP, other names (// Map<String, Integer> (nullable map, non-null values)). */
    const struct basalt_parquet_schema_element b[] = {
        el_root(1),
        with_ct(el_group("my_map", OPT, 1), CT_MAP),
        with_ct(el_group("map", REP, 2), CT_MKV),
        with_ct(el_leaf("str", REQ, BINARY), CT_UTF8),
        el_leaf("num", REQ, INT32),
    };
    CHECK_SCHEMA(b, "my_map:+m?<map:+s<str:u,num:i>>", "my_map 1/0/0,map 2/1/2,str 2/1/2,num 2/1/2",
                 "my_map.map.str 2/1,my_map.map.num 2/1");
    /* MAP_KEY_VALUE used in place of MAP: handled as a MAP-annotated group. */
    const struct basalt_parquet_schema_element c[] = {
        el_root(1),
        with_ct(el_group("my_map", OPT, 1), CT_MKV),
        el_group("map", REP, 2),
        with_ct(el_leaf("str", REQ, BINARY), CT_UTF8),
        el_leaf("num", OPT, INT32),
    };
    CHECK_SCHEMA(c, "my_map:+m?<map:+s<str:u,num:i?>>", "my_map 1/0/0,map 2/1/2,str 2/1/2,num 3/1/2",
                 "my_map.map.str 2/1,my_map.map.num 3/1");
    /* An optional key: the Arrow key stays non-null, its def level shows
     * where a (corrupt) null key would be. */
    const struct basalt_parquet_schema_element d[] = {
        el_root(1),
        with_lt(el_group("m", OPT, 1), MAP_LT),
        el_group("key_value", REP, 2),
        el_leaf("key", OPT, INT32),
        el_leaf("value", OPT, INT32),
    };
    CHECK_SCHEMA(d, "m:+m?<key_value:+s<key:i,value:i?>>",
                 "m 1/0/0,key_value 2/1/2,key 3/1/2,value 3/1/2",
                 "m.key_value.key 3/1,m.key_value.value 3/1");
    /* A key_value group of one field reads as a list of it. */
    const struct basalt_parquet_schema_element e[] = {
        el_root(1),
        with_lt(el_group("set", REQ, 1), MAP_LT),
        el_group("key_value", REP, 1),
        el_leaf("key", REQ, INT32),
    };
    CHECK_SCHEMA(e, "set:+l<key:i>", "set 0/0/0,key 1/1/1", "set.key_value.key 1/1");
    /* A map of maps, both optional. */
    const struct basalt_parquet_schema_element f[] = {
        el_root(1),
        with_ct(el_group("a", OPT, 1), CT_MAP),
        el_group("key_value", REP, 2),
        with_ct(el_leaf("key", REQ, BINARY), CT_UTF8),
        with_ct(el_group("value", OPT, 1), CT_MAP),
        el_group("key_value", REP, 2),
        el_leaf("key", REQ, INT32),
        el_leaf("value", REQ, BOOLEAN),
    };
    CHECK_SCHEMA(f, "a:+m?<key_value:+s<key:u,value:+m?<key_value:+s<key:i,value:b>>>>",
                 "a 1/0/0,key_value 2/1/2,key 2/1/2,value 3/1/2,key_value 4/2/4,key 4/2/4,"
                 "value 4/2/4",
                 "a.key_value.key 2/1,a.key_value.value.key_value.key 4/2,"
                 "a.key_value.value.key_value.value 4/2");
}

/* Structs, and the example (a) of parquet_schema.h. */
TEST(schema_struct_levels)
{
    const struct basalt_parquet_schema_element a[] = {
        el_root(2),
        el_group("s", OPT, 2),
        el_leaf("a", OPT, INT32),
        el_leaf("b", REQ, INT32),
        el_group("t", REQ, 1),
        el_group("u", OPT, 1),
        el_leaf("c", REQ, DOUBLE),
    };
    CHECK_SCHEMA(a, "s:+s?<a:i?,b:i>,t:+s<u:+s?<c:g>>",
                 "s 1/0/0,a 2/0/0,b 1/0/0,t 0/0/0,u 1/0/0,c 1/0/0",
                 "s.a 2/0,s.b 1/0,t.u.c 1/0");
    /* A struct in a list in a struct. */
    const struct basalt_parquet_schema_element b[] = {
        el_root(1),
        el_group("s", OPT, 1),
        with_lt(el_group("l", OPT, 1), LIST_LT),
        el_group("list", REP, 1),
        el_group("element", OPT, 2),
        el_leaf("x", OPT, INT64),
        el_leaf("y", REQ, INT64),
    };
    CHECK_SCHEMA(b, "s:+s?<l:+l?<element:+s?<x:l?,y:l>>>",
                 "s 1/0/0,l 2/0/0,element 4/1/3,x 5/1/3,y 4/1/3",
                 "s.l.list.element.x 5/1,s.l.list.element.y 4/1");
}

/* Field ids travel as PARQUET:field_id metadata: on the list field for an
 * unannotated repeated node, on the element for a two-level list; negative
 * ids are dropped (Arrow C++ cannot tell them from absent ones). */
TEST(schema_field_ids)
{
    const struct basalt_parquet_schema_element a[] = {
        el_root(3),
        with_id(el_leaf("a", OPT, INT32), 1),
        with_id(el_leaf("r", REP, INT32), 2),
        with_id(with_lt(el_group("l", OPT, 1), LIST_LT), 3),
        with_id(el_group("list", REP, 1), 4),
        with_id(el_leaf("element", OPT, INT32), 5),
    };
    CHECK_SCHEMA(a,
                 "a:i?{PARQUET:field_id=1},r:+l<r:i>{PARQUET:field_id=2},"
                 "l:+l?<element:i?{PARQUET:field_id=5}>{PARQUET:field_id=3}",
                 "a 1/0/0,r 0/0/0,r 1/1/1,l 1/0/0,element 3/1/2", "a 1/0,r 1/1,l.list.element 3/1");
    const struct basalt_parquet_schema_element b[] = {
        el_root(1),
        with_id(with_lt(el_group("l", OPT, 1), LIST_LT), -7),
        with_id(el_leaf("array", REP, INT32), 8),
    };
    CHECK_SCHEMA(b, "l:+l?<array:i{PARQUET:field_id=8}>",
                 "l 1/0/0,array 2/1/2", "l.array 2/1");
}

/* An empty schema (a root without children) is a valid, empty struct. */
TEST(schema_empty_root)
{
    const struct basalt_parquet_schema_element a[] = {el_root(0)};
    CHECK_SCHEMA(a, "", "", "");
}

/* ------------------------------------------------------------ types */

struct type_row {
    int type;
    int type_length;    /* FLBA */
    int logical;        /* LogicalType kind, 0 none */
    int p1, p2;         /* decimal precision/scale; integer width/signed; time unit/utc */
    int converted;      /* ConvertedType + 1, 0 none */
    int c_precision, c_scale;
    const char *format; /* expected, from LogicalTypes.md and the Arrow C data interface */
    enum basalt_parquet_conversion conversion;
    int width;
};

#define LT(k) BASALT_PARQUET_LOGICAL_TYPE_##k
#define CT(k) (BASALT_PARQUET_CONVERTED_TYPE_##k + 1)
#define CV(k) BASALT_PARQUET_CONVERT_##k

static const struct type_row type_rows[] = {
    {BOOLEAN, 0, 0, 0, 0, 0, 0, 0, "b", CV(NONE), 0},
    {INT32, 0, 0, 0, 0, 0, 0, 0, "i", CV(NONE), 4},
    {INT64, 0, 0, 0, 0, 0, 0, 0, "l", CV(NONE), 8},
    {INT96, 0, 0, 0, 0, 0, 0, 0, "tsn:", CV(INT96_TO_TIMESTAMP), 8},
    {FLOAT, 0, 0, 0, 0, 0, 0, 0, "f", CV(NONE), 4},
    {DOUBLE, 0, 0, 0, 0, 0, 0, 0, "g", CV(NONE), 8},
    {BINARY, 0, 0, 0, 0, 0, 0, 0, "z", CV(NONE), 0},
    {FLBA, 7, 0, 0, 0, 0, 0, 0, "w:7", CV(NONE), 7},
    /* INTEGER(bitWidth, isSigned) */
    {INT32, 0, LT(INTEGER), 8, 1, 0, 0, 0, "c", CV(INT32_TO_INT8), 1},
    {INT32, 0, LT(INTEGER), 8, 0, 0, 0, 0, "C", CV(INT32_TO_INT8), 1},
    {INT32, 0, LT(INTEGER), 16, 1, 0, 0, 0, "s", CV(INT32_TO_INT16), 2},
    {INT32, 0, LT(INTEGER), 16, 0, 0, 0, 0, "S", CV(INT32_TO_INT16), 2},
    {INT32, 0, LT(INTEGER), 32, 1, 0, 0, 0, "i", CV(NONE), 4},
    {INT32, 0, LT(INTEGER), 32, 0, 0, 0, 0, "I", CV(NONE), 4},
    {INT64, 0, LT(INTEGER), 64, 1, 0, 0, 0, "l", CV(NONE), 8},
    {INT64, 0, LT(INTEGER), 64, 0, 0, 0, 0, "L", CV(NONE), 8},
    {INT32, 0, 0, 0, 0, CT(INT_8), 0, 0, "c", CV(INT32_TO_INT8), 1},
    {INT32, 0, 0, 0, 0, CT(UINT_8), 0, 0, "C", CV(INT32_TO_INT8), 1},
    {INT32, 0, 0, 0, 0, CT(INT_16), 0, 0, "s", CV(INT32_TO_INT16), 2},
    {INT32, 0, 0, 0, 0, CT(UINT_16), 0, 0, "S", CV(INT32_TO_INT16), 2},
    {INT32, 0, 0, 0, 0, CT(INT_32), 0, 0, "i", CV(NONE), 4},
    {INT32, 0, 0, 0, 0, CT(UINT_32), 0, 0, "I", CV(NONE), 4},
    {INT64, 0, 0, 0, 0, CT(INT_64), 0, 0, "l", CV(NONE), 8},
    {INT64, 0, 0, 0, 0, CT(UINT_64), 0, 0, "L", CV(NONE), 8},
    /* dates and times; TIME/TIMESTAMP unit 1 ms, 2 us, 3 ns */
    {INT32, 0, LT(DATE), 0, 0, 0, 0, 0, "tdD", CV(NONE), 4},
    {INT32, 0, 0, 0, 0, CT(DATE), 0, 0, "tdD", CV(NONE), 4},
    {INT32, 0, LT(TIME), 1, 1, 0, 0, 0, "ttm", CV(NONE), 4},
    {INT64, 0, LT(TIME), 2, 1, 0, 0, 0, "ttu", CV(NONE), 8},
    {INT64, 0, LT(TIME), 3, 0, 0, 0, 0, "ttn", CV(NONE), 8},
    {INT32, 0, 0, 0, 0, CT(TIME_MILLIS), 0, 0, "ttm", CV(NONE), 4},
    {INT64, 0, 0, 0, 0, CT(TIME_MICROS), 0, 0, "ttu", CV(NONE), 8},
    {INT64, 0, LT(TIMESTAMP), 1, 1, 0, 0, 0, "tsm:UTC", CV(NONE), 8},
    {INT64, 0, LT(TIMESTAMP), 2, 0, 0, 0, 0, "tsu:", CV(NONE), 8},
    {INT64, 0, LT(TIMESTAMP), 3, 1, 0, 0, 0, "tsn:UTC", CV(NONE), 8},
    {INT64, 0, 0, 0, 0, CT(TIMESTAMP_MILLIS), 0, 0, "tsm:", CV(NONE), 8},
    {INT64, 0, 0, 0, 0, CT(TIMESTAMP_MICROS), 0, 0, "tsu:", CV(NONE), 8},
    /* a TIME unit this library does not know: the physical type */
    {INT64, 0, LT(TIMESTAMP), 9, 1, 0, 0, 0, "l", CV(NONE), 8},
    /* decimals: the smallest and largest precision of each physical type */
    {INT32, 0, LT(DECIMAL), 1, 0, 0, 0, 0, "d:1,0", CV(INT32_TO_DECIMAL), 16},
    {INT32, 0, LT(DECIMAL), 9, 2, 0, 0, 0, "d:9,2", CV(INT32_TO_DECIMAL), 16},
    {INT64, 0, LT(DECIMAL), 18, 18, 0, 0, 0, "d:18,18", CV(INT64_TO_DECIMAL), 16},
    {FLBA, 16, LT(DECIMAL), 38, 10, 0, 0, 0, "d:38,10", CV(BYTES_TO_DECIMAL), 16},
    {FLBA, 17, LT(DECIMAL), 39, 0, 0, 0, 0, "d:39,0,256", CV(BYTES_TO_DECIMAL), 32},
    {FLBA, 32, LT(DECIMAL), 76, 3, 0, 0, 0, "d:76,3,256", CV(BYTES_TO_DECIMAL), 32},
    {BINARY, 0, LT(DECIMAL), 20, 4, 0, 0, 0, "d:20,4", CV(BYTES_TO_DECIMAL), 16},
    {BINARY, 0, LT(DECIMAL), 50, 4, 0, 0, 0, "d:50,4,256", CV(BYTES_TO_DECIMAL), 32},
    {FLBA, 3, 0, 0, 0, CT(DECIMAL), 5, 2, "d:5,2", CV(BYTES_TO_DECIMAL), 16},
    {INT64, 0, 0, 0, 0, CT(DECIMAL), 10, 2, "d:10,2", CV(INT64_TO_DECIMAL), 16},
    /* strings and other byte annotations */
    {BINARY, 0, LT(STRING), 0, 0, 0, 0, 0, "u", CV(NONE), 0},
    {BINARY, 0, LT(ENUM), 0, 0, 0, 0, 0, "u", CV(NONE), 0},
    {BINARY, 0, LT(JSON), 0, 0, 0, 0, 0, "u", CV(NONE), 0},
    {BINARY, 0, LT(BSON), 0, 0, 0, 0, 0, "z", CV(NONE), 0},
    {BINARY, 0, 0, 0, 0, CT(UTF8), 0, 0, "u", CV(NONE), 0},
    {BINARY, 0, 0, 0, 0, CT(ENUM), 0, 0, "u", CV(NONE), 0},
    {BINARY, 0, 0, 0, 0, CT(JSON), 0, 0, "u", CV(NONE), 0},
    {BINARY, 0, 0, 0, 0, CT(BSON), 0, 0, "z", CV(NONE), 0},
    {BINARY, 0, LT(GEOMETRY), 0, 0, 0, 0, 0, "z", CV(NONE), 0},
    {BINARY, 0, LT(GEOGRAPHY), 0, 0, 0, 0, 0, "z", CV(NONE), 0},
    {FLBA, 16, LT(UUID), 0, 0, 0, 0, 0, "w:16", CV(NONE), 16},
    {FLBA, 2, LT(FLOAT16), 0, 0, 0, 0, 0, "e", CV(NONE), 2},
    {FLBA, 12, 0, 0, 0, CT(INTERVAL), 0, 0, "w:12", CV(NONE), 12},
    /* UNKNOWN: always null, whatever the physical type */
    {INT32, 0, LT(UNKNOWN), 0, 0, 0, 0, 0, "n", CV(NULL), 0},
    {BINARY, 0, LT(UNKNOWN), 0, 0, 0, 0, 0, "n", CV(NULL), 0},
    /* a LogicalType this library does not know: the ConvertedType if any,
     * else the physical type */
    {BINARY, 0, 2555, 0, 0, 0, 0, 0, "z", CV(NONE), 0},
    {BINARY, 0, 2555, 0, 0, CT(UTF8), 0, 0, "u", CV(NONE), 0},
    /* the LogicalType wins over a (contradicting) ConvertedType */
    {INT32, 0, LT(INTEGER), 16, 0, CT(INT_8), 0, 0, "S", CV(INT32_TO_INT16), 2},
};

static struct basalt_parquet_schema_element row_element(const struct type_row *r)
{
    struct basalt_parquet_schema_element e = el_leaf("x", OPT, r->type);
    if (r->type_length)
        e = with_len(e, r->type_length);
    if (r->logical) {
        e = with_lt(e, r->logical);
        struct basalt_parquet_logical_type *lt = &e.logical_type;
        lt->decimal.precision = r->p1;
        lt->decimal.scale = r->p2;
        lt->integer.bit_width = (int8_t)r->p1;
        lt->integer.is_signed = r->p2 != 0;
        lt->time.unit = r->p1;
        lt->time.is_adjusted_to_utc = r->p2 != 0;
    }
    if (r->converted) {
        e = with_ct(e, r->converted - 1);
        e.has_precision = r->c_precision != 0;
        e.precision = r->c_precision;
        e.has_scale = r->c_precision != 0;
        e.scale = r->c_scale;
    }
    return e;
}

TEST(schema_annotation_types)
{
    for (size_t i = 0; i < N(type_rows); i++) {
        const struct type_row *r = &type_rows[i];
        struct basalt_parquet_schema_element e[2] = {el_root(1), row_element(r)};
        struct basalt_parquet_schema *s;
        struct basalt_error err;
        basalt_status st = basalt_parquet_schema_from_elements(e, 2, NULL, 0, NULL, &s, &err);
        CHECK_MSG(st == BASALT_OK, "row %zu: %s", i, err.message);
        const struct basalt_parquet_schema_leaf *leaf = &s->leaves[0];
        CHECK_MSG(strcmp(leaf->format, r->format) == 0, "row %zu: %s, want %s", i, leaf->format,
                  r->format);
        CHECK_MSG(leaf->conversion == r->conversion, "row %zu: conversion %d, want %d", i,
                  (int)leaf->conversion, (int)r->conversion);
        CHECK_MSG(leaf->value_width == r->width, "row %zu: width %d, want %d", i,
                  (int)leaf->value_width, r->width);
        CHECK_STR(s->fields[0].format, r->format);
        /* Only UUID and geospatial leaves carry extension metadata. */
        const char *value;
        size_t value_len;
        basalt_status has = basalt_arrow_metadata_get(s->fields[0].metadata,
                                                      "ARROW:extension:name", &value, &value_len,
                                                      NULL);
        if (r->logical == LT(UUID)) {
            CHECK_EQ(has, BASALT_OK);
            CHECK(value_len == 10 && memcmp(value, "arrow.uuid", 10) == 0);
        } else if (r->logical == LT(GEOMETRY) || r->logical == LT(GEOGRAPHY)) {
            CHECK_EQ(has, BASALT_OK);
            CHECK(value_len == 12 && memcmp(value, "geoarrow.wkb", 12) == 0);
        } else {
            CHECK_EQ(has, BASALT_NOT_FOUND);
        }
        basalt_parquet_schema_free(s);
    }
}

/* VARIANT groups are assembled as structs of their Parquet fields and read
 * as the parquet.variant extension of metadata and value, shredded or not. */
TEST(schema_variant_group_is_extension)
{
    const struct basalt_parquet_schema_element a[] = {
        el_root(1),
        with_lt(el_group("v", OPT, 2), BASALT_PARQUET_LOGICAL_TYPE_VARIANT),
        el_leaf("metadata", REQ, BINARY),
        el_leaf("value", REQ, BINARY),
    };
    CHECK_SCHEMA(a,
                 "v:+s?<metadata:z,value:z?>{ARROW:extension:metadata=;ARROW:extension:name="
                 "parquet.variant}",
                 "v 1/0/0,metadata 1/0/0,value 1/0/0", "v.metadata 1/0,v.value 1/0");
    const struct basalt_parquet_schema_element b[] = {
        el_root(1),
        with_lt(el_group("v", REQ, 3), BASALT_PARQUET_LOGICAL_TYPE_VARIANT),
        el_leaf("metadata", REQ, BINARY),
        el_leaf("value", OPT, BINARY),
        el_leaf("typed_value", OPT, INT64),
    };
    CHECK_SCHEMA(b,
                 "v:+s<metadata:z,value:z?>{ARROW:extension:metadata=;ARROW:extension:name="
                 "parquet.variant}",
                 "v 0/0/0,metadata 0/0/0,value 1/0/0,typed_value 1/0/0",
                 "v.metadata 0/0,v.value 1/0,v.typed_value 1/0");
}

/* ------------------------------------------------------------ malformed */

static void expect_corrupt(const struct basalt_parquet_schema_element *e, size_t n,
                           basalt_status want, const char *message, int line)
{
    struct basalt_parquet_schema *s = (struct basalt_parquet_schema *)1;
    struct basalt_error err;
    basalt_status st = basalt_parquet_schema_from_elements(e, n, NULL, 0, NULL, &s, &err);
    if (st != want) {
        bt_fail(__FILE__, line, "%s, want %s: %s", basalt_status_name(st),
                basalt_status_name(want), err.message);
        basalt_parquet_schema_free(st == BASALT_OK ? s : NULL);
        return;
    }
    if (s != NULL)
        bt_fail(__FILE__, line, "out not NULL on failure");
    if (!strstr(err.message, message))
        bt_fail(__FILE__, line, "message \"%s\" lacks \"%s\"", err.message, message);
}

#define EXPECT_BAD(elements, status, message)                                                 \
    expect_corrupt((elements), N(elements), (status), (message), __LINE__)

TEST(schema_malformed_trees)
{
    /* num_children past the end of the list. */
    const struct basalt_parquet_schema_element a[] = {el_root(3), el_leaf("x", OPT, INT32)};
    EXPECT_BAD(a, BASALT_CORRUPT, "declares 3 children");
    const struct basalt_parquet_schema_element b[] = {
        el_root(1), el_group("g", OPT, 2), el_leaf("x", OPT, INT32)};
    EXPECT_BAD(b, BASALT_CORRUPT, "column 'g': declares more children");
    /* Elements left after the root's children. */
    const struct basalt_parquet_schema_element c[] = {
        el_root(1), el_leaf("x", OPT, INT32), el_leaf("y", OPT, INT32)};
    EXPECT_BAD(c, BASALT_CORRUPT, "1 elements after the root");
    /* A negative count, a root that is a column, a repeated root. */
    const struct basalt_parquet_schema_element d[] = {el_root(-1)};
    EXPECT_BAD(d, BASALT_CORRUPT, "negative num_children");
    struct basalt_parquet_schema_element e[] = {el_leaf("schema", REQ, INT32)};
    EXPECT_BAD(e, BASALT_CORRUPT, "the root is a primitive");
    struct basalt_parquet_schema_element f[] = {el_group("schema", REP, 0)};
    EXPECT_BAD(f, BASALT_CORRUPT, "the root is repeated");
    /* No elements at all. */
    struct basalt_parquet_schema *s;
    struct basalt_error err;
    CHECK_STATUS(basalt_parquet_schema_from_elements(NULL, 0, NULL, 0, NULL, &s, &err),
                 BASALT_CORRUPT, &err);
    /* A group without children; an element with neither type nor children. */
    const struct basalt_parquet_schema_element g[] = {el_root(1), el_group("g", OPT, 0)};
    EXPECT_BAD(g, BASALT_CORRUPT, "column 'g': group without children");
    struct basalt_parquet_schema_element h[] = {el_root(1), el_leaf("x", OPT, INT32)};
    h[1].has_type = false;
    EXPECT_BAD(h, BASALT_CORRUPT, "column 'x': neither a type nor children");
    /* Unknown physical type and repetition; FLBA without a length. */
    struct basalt_parquet_schema_element i[] = {el_root(1), el_leaf("x", OPT, 8)};
    EXPECT_BAD(i, BASALT_CORRUPT, "column 'x': unknown physical type");
    struct basalt_parquet_schema_element j[] = {el_root(1), el_leaf("x", 3, INT32)};
    EXPECT_BAD(j, BASALT_CORRUPT, "unknown repetition");
    struct basalt_parquet_schema_element k[] = {el_root(1), el_leaf("x", OPT, FLBA)};
    EXPECT_BAD(k, BASALT_CORRUPT, "without a positive type_length");
    struct basalt_parquet_schema_element l[] = {el_root(1), with_len(el_leaf("x", OPT, FLBA), 0)};
    EXPECT_BAD(l, BASALT_CORRUPT, "without a positive type_length");
    /* A name with a NUL inside. */
    struct basalt_parquet_schema_element m[] = {el_root(1), el_leaf("a\0b", OPT, INT32)};
    m[1].name.len = 3;
    EXPECT_BAD(m, BASALT_CORRUPT, "schema[1]: name holds a NUL byte");
    struct basalt_parquet_schema_element o[] = {el_root(1), el_leaf("x", OPT, INT32)};
    o[1].name.data = NULL;
    o[1].name.len = 0;
    EXPECT_BAD(o, BASALT_CORRUPT, "schema[1]: element without a name");
}

TEST(schema_malformed_annotations)
{
    struct basalt_parquet_schema_element a[] = {el_root(1),
                                                with_lt(el_leaf("x", OPT, INT32), STRING_LT)};
    EXPECT_BAD(a, BASALT_CORRUPT, "column 'x': a string");
    struct basalt_parquet_schema_element b[] = {
        el_root(1), with_lt(el_leaf("x", OPT, INT32), BASALT_PARQUET_LOGICAL_TYPE_DECIMAL)};
    b[1].logical_type.decimal.precision = 10;
    EXPECT_BAD(b, BASALT_CORRUPT, "DECIMAL precision 10 out of range 1..9");
    b[1].logical_type.decimal.precision = 0;
    EXPECT_BAD(b, BASALT_CORRUPT, "DECIMAL precision 0");
    b[1].logical_type.decimal.precision = 5;
    b[1].logical_type.decimal.scale = 6;
    EXPECT_BAD(b, BASALT_CORRUPT, "DECIMAL scale 6");
    struct basalt_parquet_schema_element c[] = {
        el_root(1),
        with_lt(with_len(el_leaf("x", OPT, FLBA), 4), BASALT_PARQUET_LOGICAL_TYPE_DECIMAL)};
    c[1].logical_type.decimal.precision = 10; /* 4 bytes hold 9 digits */
    EXPECT_BAD(c, BASALT_CORRUPT, "out of range 1..9");
    struct basalt_parquet_schema_element d[] = {
        el_root(1), with_lt(el_leaf("x", OPT, INT32), BASALT_PARQUET_LOGICAL_TYPE_INTEGER)};
    d[1].logical_type.integer.bit_width = 64;
    EXPECT_BAD(d, BASALT_CORRUPT, "INTEGER bit width");
    struct basalt_parquet_schema_element e[] = {
        el_root(1),
        with_lt(with_len(el_leaf("x", OPT, FLBA), 8), BASALT_PARQUET_LOGICAL_TYPE_UUID)};
    EXPECT_BAD(e, BASALT_CORRUPT, "UUID needs FIXED_LEN_BYTE_ARRAY(16)");
    struct basalt_parquet_schema_element f[] = {
        el_root(1), with_lt(el_leaf("x", OPT, INT32), BASALT_PARQUET_LOGICAL_TYPE_TIMESTAMP)};
    f[1].logical_type.time.unit = 1;
    EXPECT_BAD(f, BASALT_CORRUPT, "TIMESTAMP needs INT64");
    struct basalt_parquet_schema_element g[] = {el_root(1),
                                                with_ct(el_leaf("x", OPT, INT32), CT_LIST)};
    EXPECT_BAD(g, BASALT_CORRUPT, "a group annotation on a primitive");
    struct basalt_parquet_schema_element h[] = {
        el_root(1), with_ct(el_group("g", OPT, 1), CT_UTF8), el_leaf("x", OPT, INT32)};
    EXPECT_BAD(h, BASALT_CORRUPT, "column 'g': a primitive annotation on a group");
    struct basalt_parquet_schema_element i[] = {
        el_root(1),
        with_lt(with_len(el_leaf("x", OPT, FLBA), 3), BASALT_PARQUET_LOGICAL_TYPE_FLOAT16)};
    EXPECT_BAD(i, BASALT_CORRUPT, "FLOAT16 needs");
    struct basalt_parquet_schema_element j[] = {
        el_root(1), with_lt(el_leaf("x", OPT, INT64), BASALT_PARQUET_LOGICAL_TYPE_TIME)};
    j[1].logical_type.time.unit = 1; /* milliseconds belong in INT32 */
    EXPECT_BAD(j, BASALT_CORRUPT, "TIME needs INT32 for milliseconds");
}

TEST(schema_malformed_lists_and_maps)
{
    /* LIST with two children, LIST whose child is not repeated, a repeated
     * LIST group. */
    const struct basalt_parquet_schema_element a[] = {
        el_root(1), with_lt(el_group("l", OPT, 2), LIST_LT), el_leaf("x", REP, INT32),
        el_leaf("y", REP, INT32)};
    EXPECT_BAD(a, BASALT_CORRUPT, "column 'l': a LIST group needs exactly one child");
    const struct basalt_parquet_schema_element b[] = {
        el_root(1), with_lt(el_group("l", OPT, 1), LIST_LT), el_leaf("x", OPT, INT32)};
    EXPECT_BAD(b, BASALT_CORRUPT, "column 'l': the child of a LIST group is not repeated");
    const struct basalt_parquet_schema_element c[] = {
        el_root(1), with_lt(el_group("l", REP, 1), LIST_LT), el_leaf("x", REP, INT32)};
    EXPECT_BAD(c, BASALT_CORRUPT, "column 'l': a LIST or MAP group is repeated");
    /* MAP whose child is a column, or holds three fields. */
    const struct basalt_parquet_schema_element d[] = {
        el_root(1), with_lt(el_group("m", OPT, 1), MAP_LT), el_leaf("kv", REP, INT32)};
    EXPECT_BAD(d, BASALT_CORRUPT, "column 'm': the child of a MAP group is not a repeated group");
    const struct basalt_parquet_schema_element e[] = {
        el_root(1), with_lt(el_group("m", OPT, 1), MAP_LT), el_group("key_value", REP, 3),
        el_leaf("key", REQ, INT32), el_leaf("v1", OPT, INT32), el_leaf("v2", OPT, INT32)};
    EXPECT_BAD(e, BASALT_CORRUPT, "needs a key and a value");
    const struct basalt_parquet_schema_element f[] = {
        el_root(1), with_lt(el_group("m", OPT, 2), MAP_LT), el_group("key_value", REP, 2),
        el_leaf("key", REQ, INT32), el_leaf("value", OPT, INT32), el_leaf("z", OPT, INT32)};
    EXPECT_BAD(f, BASALT_CORRUPT, "a MAP group needs exactly one child");
}

TEST(schema_depth_limit)
{
    enum { DEPTH = 70 };
    struct basalt_parquet_schema_element e[DEPTH + 2];
    e[0] = el_root(1);
    for (int i = 1; i <= DEPTH; i++)
        e[i] = el_group("g", OPT, 1);
    e[DEPTH + 1] = el_leaf("x", OPT, INT32);
    struct basalt_parquet_schema *s;
    struct basalt_error err;
    CHECK_STATUS(basalt_parquet_schema_from_elements(e, DEPTH + 2, NULL, 0, NULL, &s, &err),
                 BASALT_LIMIT, &err);
    CHECK(strstr(err.message, "deeper than 64") != NULL);
    struct basalt_parquet_schema_options o;
    basalt_parquet_schema_options_init(&o);
    o.max_depth = DEPTH;
    CHECK_OK(basalt_parquet_schema_from_elements(e, DEPTH + 2, NULL, 0, &o, &s, &err), &err);
    CHECK_EQ(s->leaves[0].max_def, DEPTH + 1);
    CHECK_EQ(s->leaves[0].n_path_parts, DEPTH + 1);
    CHECK_EQ(s->n_fields, DEPTH + 1);
    basalt_parquet_schema_free(s);
}

/* Random trees (mostly well-formed, sometimes with a count bent): only OK,
 * CORRUPT or LIMIT, and what builds renders to a valid Arrow schema. */
struct gen {
    struct bt_rng rng;
    struct basalt_parquet_schema_element e[64];
    size_t n;
};

static const char *gen_names[] = {"a", "list", "element", "key_value", "key", "value", "array",
                                  "a_tuple", "map"};

static void gen_node(struct gen *g, int depth)
{
    if (g->n >= 60)
        return;
    struct bt_rng *r = &g->rng;
    const char *name = gen_names[bt_rng_below(r, 9)];
    int rep = (int)bt_rng_below(r, 3);
    size_t at = g->n++;
    if (depth > 4 || bt_rng_below(r, 2) == 0) {
        g->e[at] = el_leaf(name, rep, (int)bt_rng_below(r, 8));
        if (g->e[at].type == FLBA)
            g->e[at] = with_len(g->e[at], 1 + (int)bt_rng_below(r, 20));
    } else {
        int k = 1 + (int)bt_rng_below(r, 3);
        g->e[at] = el_group(name, rep, k);
        int made = 0;
        for (int i = 0; i < k && g->n < 60; i++, made++)
            gen_node(g, depth + 1);
        g->e[at].num_children = made;
    }
    if (bt_rng_below(r, 3) == 0)
        g->e[at] = with_ct(g->e[at], (int)bt_rng_below(r, 23));
    if (bt_rng_below(r, 4) == 0) {
        g->e[at] = with_lt(g->e[at], (int)bt_rng_below(r, 20));
        g->e[at].logical_type.decimal.precision = 1 + (int)bt_rng_below(r, 40);
        g->e[at].logical_type.integer.bit_width = (int8_t)(8 << bt_rng_below(r, 4));
        g->e[at].logical_type.time.unit = (int)bt_rng_below(r, 4);
    }
}

TEST(schema_random_trees_never_crash)
{
    struct gen g;
    bt_rng_seed(&g.rng, 0x5c4e3a);
    int ok = 0, bad = 0;
    for (int iter = 0; iter < 5000; iter++) {
        g.n = 1;
        int k = 1 + (int)bt_rng_below(&g.rng, 4), made = 0;
        for (int i = 0; i < k && g.n < 60; i++, made++)
            gen_node(&g, 1);
        g.e[0] = el_root(made);
        if (bt_rng_below(&g.rng, 10) == 0) {
            size_t at = bt_rng_below(&g.rng, g.n);
            g.e[at].has_num_children = true;
            g.e[at].num_children += (int)bt_rng_below(&g.rng, 5) - 2;
        }
        struct basalt_parquet_schema *s;
        struct basalt_error err;
        basalt_status st = basalt_parquet_schema_from_elements(g.e, g.n, NULL, 0, NULL, &s, &err);
        CHECK_MSG(st == BASALT_OK || st == BASALT_CORRUPT || st == BASALT_LIMIT, "%d: %s", iter,
                  basalt_status_name(st));
        if (st != BASALT_OK) {
            bad++;
            continue;
        }
        ok++;
        struct ArrowSchema out;
        CHECK_OK(basalt_parquet_schema_to_arrow(s, NULL, NULL, &out, &err), &err);
        CHECK_OK(basalt_arrow_schema_validate(&out, &err), &err);
        /* Every leaf belongs to exactly one primitive field, in order, and
         * every field's levels lie within its leaves'. */
        int32_t seen = 0;
        for (int32_t i = 0; i < s->n_fields; i++) {
            const struct basalt_parquet_schema_field *f = &s->fields[i];
            if (f->kind == BASALT_PARQUET_FIELD_PRIMITIVE)
                CHECK_EQ(f->leaf, seen++);
            CHECK(f->repeated_ancestor_def_level <= f->def_level);
            CHECK(f->def_level <= s->leaves[f->leaf_begin].max_def);
            CHECK(f->rep_level <= s->leaves[f->leaf_begin].max_rep);
        }
        CHECK_EQ(seen, s->n_leaves);
        basalt_arrow_schema_release(&out);
        basalt_parquet_schema_free(s);
    }
    CHECK(ok > 300);
    CHECK(bad > 300);
}
