/* Projection by top-level name, nested path (Parquet or Arrow names), field id
 * and leaf, and the output options (large types, dictionaries, large lists). */
#include <stdlib.h>

#include "basalt/parquet_format.h"
#include "parquet_schema.h"
#include "test.h"

enum { REQ = 0, OPT = 1, REP = 2 };

static struct basalt_parquet_schema_element el(const char *name, int rep, int type, int children,
                                               int id)
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
    e.has_field_id = id > 0;
    e.field_id = id;
    return e;
}

static struct basalt_parquet_schema_element ann(struct basalt_parquet_schema_element e, int kind)
{
    e.has_logical_type = true;
    e.logical_type.kind = kind;
    return e;
}

#define G -1
#define I32 BASALT_PARQUET_TYPE_INT32
#define I64 BASALT_PARQUET_TYPE_INT64
#define BIN BASALT_PARQUET_TYPE_BYTE_ARRAY

/* leaves: 0 a, 1 s.x, 2 s.l.list.element.p, 3 s.l.list.element.q,
 *         4 m.key_value.key, 5 m.key_value.value.v1, 6 m.key_value.value.v2,
 *         7 r, 8 x.y */
static basalt_status make(struct basalt_parquet_schema **out, struct basalt_error *err)
{
    static struct basalt_parquet_schema_element e[19];
    size_t n = 0;
    e[n++] = el("schema", -1, G, 5, 0);
    e[n++] = el("a", OPT, I32, 0, 1);
    e[n++] = el("s", OPT, G, 2, 2);
    e[n++] = el("x", OPT, I64, 0, 3);
    e[n++] = ann(el("l", OPT, G, 1, 4), BASALT_PARQUET_LOGICAL_TYPE_LIST);
    e[n++] = el("list", REP, G, 1, 0);
    e[n++] = el("element", OPT, G, 2, 5);
    e[n++] = el("p", REQ, I32, 0, 6);
    e[n++] = ann(el("q", OPT, BIN, 0, 7), BASALT_PARQUET_LOGICAL_TYPE_STRING);
    e[n++] = ann(el("m", OPT, G, 1, 8), BASALT_PARQUET_LOGICAL_TYPE_MAP);
    e[n++] = el("key_value", REP, G, 2, 0);
    e[n++] = ann(el("key", REQ, BIN, 0, 9), BASALT_PARQUET_LOGICAL_TYPE_STRING);
    e[n++] = el("value", OPT, G, 2, 10);
    e[n++] = el("v1", OPT, I32, 0, 11);
    e[n++] = el("v2", OPT, I32, 0, 12);
    e[n++] = el("r", REP, I32, 0, 13);
    e[n++] = el("x.y", OPT, BIN, 0, 12);
    return basalt_parquet_schema_from_elements(e, n, NULL, 0, NULL, out, err);
}

/* name:format[?][[dict]]<children>, no metadata. */
static void render(const struct ArrowSchema *s, char *buf, size_t cap, size_t *w)
{
    *w += (size_t)snprintf(buf + *w, cap - *w, "%s:%s%s", s->name, s->format,
                           (s->flags & ARROW_FLAG_NULLABLE) ? "?" : "");
    if (s->dictionary)
        *w += (size_t)snprintf(buf + *w, cap - *w, "[%s]", s->dictionary->format);
    if (s->n_children) {
        *w += (size_t)snprintf(buf + *w, cap - *w, "<");
        for (int64_t i = 0; i < s->n_children; i++) {
            if (i)
                *w += (size_t)snprintf(buf + *w, cap - *w, ",");
            render(s->children[i], buf, cap, w);
        }
        *w += (size_t)snprintf(buf + *w, cap - *w, ">");
    }
}

/* The projected output's fields and the selected leaves ("0,3"). */
static basalt_status output(const struct basalt_parquet_schema *s,
                            const struct basalt_parquet_projection *p,
                            const struct basalt_parquet_arrow_options *o, char *fields,
                            char *leaves, struct basalt_error *err)
{
    struct ArrowSchema out;
    basalt_status st = basalt_parquet_schema_to_arrow(s, p, o, &out, err);
    if (st != BASALT_OK)
        return st;
    size_t w = 0;
    fields[0] = '\0';
    for (int64_t i = 0; i < out.n_children; i++) {
        if (i)
            w += (size_t)snprintf(fields + w, 1024 - w, ",");
        render(out.children[i], fields, 1024, &w);
    }
    st = basalt_arrow_schema_validate(&out, err);
    basalt_arrow_schema_release(&out);
    w = 0;
    leaves[0] = '\0';
    int32_t count = 0;
    for (int32_t i = 0; p && i < s->n_leaves; i++) {
        if (p->leaves[i]) {
            w += (size_t)snprintf(leaves + w, 256 - w, "%s%d", w ? "," : "", (int)i);
            count++;
        }
    }
    if (p && count != p->n_selected_leaves)
        return basalt_error_set(err, BASALT_INTERNAL, "n_selected_leaves %d, counted %d",
                                (int)p->n_selected_leaves, (int)count);
    return st;
}

#define CHECK_PROJECTION(schema, proj, opts, want_fields, want_leaves)                        \
    do {                                                                                      \
        char f_[1024], l_[256];                                                               \
        struct basalt_error e_;                                                               \
        CHECK_OK(output((schema), (proj), (opts), f_, l_, &e_), &e_);                        \
        CHECK_STR(f_, want_fields);                                                           \
        CHECK_STR(l_, want_leaves);                                                           \
    } while (0)

static const char all_fields[] =
    "a:i?,s:+s?<x:l?,l:+l?<element:+s?<p:i,q:u?>>>,m:+m?<key_value:+s<key:u,value:+s?<v1:i?,"
    "v2:i?>>>,r:+l<r:i>,x.y:z?";

TEST(projection_everything_and_nothing)
{
    struct basalt_parquet_schema *s;
    struct basalt_error err;
    struct basalt_parquet_projection p;
    CHECK_OK(make(&s, &err), &err);
    CHECK_PROJECTION(s, NULL, NULL, all_fields, "");
    CHECK_OK(basalt_parquet_projection_init(&p, s, &err), &err);
    CHECK_PROJECTION(s, &p, NULL, "", "");
    basalt_parquet_projection_select_all(&p);
    CHECK_PROJECTION(s, &p, NULL, all_fields, "0,1,2,3,4,5,6,7,8");
    basalt_parquet_projection_reset(&p);
    basalt_parquet_schema_free(s);
}

TEST(projection_by_name)
{
    struct basalt_parquet_schema *s;
    struct basalt_error err;
    struct basalt_parquet_projection p;
    CHECK_OK(make(&s, &err), &err);
    CHECK_OK(basalt_parquet_projection_init(&p, s, &err), &err);
    /* Requested out of order and twice: file order, once. */
    CHECK_OK(basalt_parquet_projection_select_name(&p, "r", &err), &err);
    CHECK_OK(basalt_parquet_projection_select_name(&p, "s", &err), &err);
    CHECK_OK(basalt_parquet_projection_select_name(&p, "r", &err), &err);
    CHECK_PROJECTION(s, &p, NULL, "s:+s?<x:l?,l:+l?<element:+s?<p:i,q:u?>>>,r:+l<r:i>", "1,2,3,7");
    /* A name holding a dot is a top-level name, not a path. */
    CHECK_OK(basalt_parquet_projection_select_name(&p, "x.y", &err), &err);
    CHECK_PROJECTION(s, &p, NULL, "s:+s?<x:l?,l:+l?<element:+s?<p:i,q:u?>>>,r:+l<r:i>,x.y:z?",
                     "1,2,3,7,8");
    CHECK_STATUS(basalt_parquet_projection_select_name(&p, "x", &err), BASALT_NOT_FOUND, &err);
    CHECK_STR(err.message, "column 'x' not found");
    basalt_parquet_projection_reset(&p);
    basalt_parquet_schema_free(s);
}

TEST(projection_by_path)
{
    struct basalt_parquet_schema *s;
    struct basalt_error err;
    struct basalt_parquet_projection p;
    CHECK_OK(make(&s, &err), &err);
    /* A leaf deep in a list, by its Parquet path and by its Arrow path. */
    static const char *paths[] = {"s.l.list.element.q", "s.l.element.q"};
    for (int k = 0; k < 2; k++) {
        CHECK_OK(basalt_parquet_projection_init(&p, s, &err), &err);
        CHECK_OK(basalt_parquet_projection_select_path(&p, paths[k], &err), &err);
        CHECK_PROJECTION(s, &p, NULL, "s:+s?<l:+l?<element:+s?<q:u?>>>", "3");
        basalt_parquet_projection_reset(&p);
    }
    /* A map value: the key comes along. */
    CHECK_OK(basalt_parquet_projection_init(&p, s, &err), &err);
    CHECK_OK(basalt_parquet_projection_select_path(&p, "m.key_value.value.v2", &err), &err);
    CHECK_PROJECTION(s, &p, NULL, "m:+m?<key_value:+s<key:u,value:+s?<v2:i?>>>", "4,6");
    basalt_parquet_projection_reset(&p);
    /* The repeated group of a three-level list stands for the whole list;
     * a struct inside selects its subtree. */
    CHECK_OK(basalt_parquet_projection_init(&p, s, &err), &err);
    CHECK_OK(basalt_parquet_projection_select_path(&p, "s.l.list", &err), &err);
    CHECK_OK(basalt_parquet_projection_select_path(&p, "m.key_value.value", &err), &err);
    CHECK_PROJECTION(s, &p, NULL,
                     "s:+s?<l:+l?<element:+s?<p:i,q:u?>>>,m:+m?<key_value:+s<key:u,value:+s?<v1:i?,"
                     "v2:i?>>>",
                     "2,3,4,5,6");
    /* The element of an unannotated repeated field, by its Arrow path. */
    CHECK_OK(basalt_parquet_projection_select_path(&p, "r.r", &err), &err);
    /* Names holding dots go through select_parts. */
    const char *parts[] = {"x.y"};
    CHECK_OK(basalt_parquet_projection_select_parts(&p, parts, 1, &err), &err);
    CHECK_EQ(p.n_selected_leaves, 7);
    CHECK_STATUS(basalt_parquet_projection_select_path(&p, "s.l.nope", &err), BASALT_NOT_FOUND,
                 &err);
    CHECK_STR(err.message, "column 's.l.nope' not found");
    const char *bad[] = {"s", "zz", "q"};
    CHECK_STATUS(basalt_parquet_projection_select_parts(&p, bad, 3, &err), BASALT_NOT_FOUND, &err);
    CHECK_STR(err.message, "column 's.zz.q' not found");
    CHECK_STATUS(basalt_parquet_projection_select_path(&p, "", &err), BASALT_NOT_FOUND, &err);
    CHECK_EQ(p.n_selected_leaves, 7);
    basalt_parquet_projection_reset(&p);
    basalt_parquet_schema_free(s);
}

TEST(projection_by_field_id_and_leaf)
{
    struct basalt_parquet_schema *s;
    struct basalt_error err;
    struct basalt_parquet_projection p;
    CHECK_OK(make(&s, &err), &err);
    CHECK_OK(basalt_parquet_projection_init(&p, s, &err), &err);
    /* Id 5: the list element (a struct). */
    CHECK_OK(basalt_parquet_projection_select_field_id(&p, 5, &err), &err);
    CHECK_PROJECTION(s, &p, NULL, "s:+s?<l:+l?<element:+s?<p:i,q:u?>>>", "2,3");
    basalt_parquet_projection_reset(&p);
    /* Id 12 is on two fields (v2 and x.y): both. */
    CHECK_OK(basalt_parquet_projection_init(&p, s, &err), &err);
    CHECK_OK(basalt_parquet_projection_select_field_id(&p, 12, &err), &err);
    CHECK_PROJECTION(s, &p, NULL, "m:+m?<key_value:+s<key:u,value:+s?<v2:i?>>>,x.y:z?", "4,6,8");
    basalt_parquet_projection_reset(&p);
    /* Id 13 is on the list made of the repeated field r. */
    CHECK_OK(basalt_parquet_projection_init(&p, s, &err), &err);
    CHECK_OK(basalt_parquet_projection_select_field_id(&p, 13, &err), &err);
    CHECK_OK(basalt_parquet_projection_select_leaf(&p, 0, &err), &err);
    CHECK_PROJECTION(s, &p, NULL, "a:i?,r:+l<r:i>", "0,7");
    CHECK_STATUS(basalt_parquet_projection_select_field_id(&p, 99, &err), BASALT_NOT_FOUND, &err);
    CHECK_STR(err.message, "no column with field id 99");
    CHECK_STATUS(basalt_parquet_projection_select_leaf(&p, 9, &err), BASALT_NOT_FOUND, &err);
    CHECK_STATUS(basalt_parquet_projection_select_leaf(&p, -1, &err), BASALT_NOT_FOUND, &err);
    basalt_parquet_projection_reset(&p);
    basalt_parquet_schema_free(s);
}

/* An Arrow map needs a key and a value: a selection reaching only the key
 * brings the value's first leaf, in nested maps too. */
TEST(projection_map_keeps_key_and_value)
{
    struct basalt_parquet_schema *s;
    struct basalt_error err;
    struct basalt_parquet_projection p;
    CHECK_OK(make(&s, &err), &err);
    CHECK_OK(basalt_parquet_projection_init(&p, s, &err), &err);
    CHECK_OK(basalt_parquet_projection_select_leaf(&p, 4, &err), &err);
    CHECK_PROJECTION(s, &p, NULL, "m:+m?<key_value:+s<key:u,value:+s?<v1:i?>>>", "4,5");
    basalt_parquet_projection_reset(&p);
    basalt_parquet_schema_free(s);

    /* map<string, map<int32, bool>> (data/nested_maps.snappy.parquet). */
    static struct basalt_parquet_schema_element e[8];
    e[0] = el("schema", -1, G, 1, 0);
    e[1] = ann(el("a", OPT, G, 1, 0), BASALT_PARQUET_LOGICAL_TYPE_MAP);
    e[2] = el("key_value", REP, G, 2, 0);
    e[3] = ann(el("key", REQ, BIN, 0, 0), BASALT_PARQUET_LOGICAL_TYPE_STRING);
    e[4] = ann(el("value", OPT, G, 1, 0), BASALT_PARQUET_LOGICAL_TYPE_MAP);
    e[5] = el("key_value", REP, G, 2, 0);
    e[6] = el("key", REQ, I32, 0, 0);
    e[7] = el("value", REQ, BASALT_PARQUET_TYPE_BOOLEAN, 0, 0);
    CHECK_OK(basalt_parquet_schema_from_elements(e, 8, NULL, 0, NULL, &s, &err), &err);
    static const char *want[3][2] = {
        {"a:+m?<key_value:+s<key:u,value:+m?<key_value:+s<key:i,value:b>>>>", "0,1,2"},
        {"a:+m?<key_value:+s<key:u,value:+m?<key_value:+s<key:i,value:b>>>>", "0,1,2"},
        {"a:+m?<key_value:+s<key:u,value:+m?<key_value:+s<key:i,value:b>>>>", "0,1,2"},
    };
    for (int32_t leaf = 0; leaf < 3; leaf++) {
        CHECK_OK(basalt_parquet_projection_init(&p, s, &err), &err);
        CHECK_OK(basalt_parquet_projection_select_leaf(&p, leaf, &err), &err);
        CHECK_PROJECTION(s, &p, NULL, want[leaf][0], want[leaf][1]);
        basalt_parquet_projection_reset(&p);
    }
    basalt_parquet_schema_free(s);
}

TEST(projection_of_another_schema_is_refused)
{
    struct basalt_parquet_schema *s, *t;
    struct basalt_error err;
    struct basalt_parquet_projection p;
    CHECK_OK(make(&s, &err), &err);
    CHECK_OK(make(&t, &err), &err);
    CHECK_OK(basalt_parquet_projection_init(&p, s, &err), &err);
    struct ArrowSchema out;
    CHECK_STATUS(basalt_parquet_schema_to_arrow(t, &p, NULL, &out, &err), BASALT_INVALID_ARG,
                 &err);
    CHECK(out.release == NULL);
    basalt_parquet_projection_reset(&p);
    basalt_parquet_schema_free(s);
    basalt_parquet_schema_free(t);
}

TEST(output_options)
{
    struct basalt_parquet_schema *s;
    struct basalt_error err;
    CHECK_OK(make(&s, &err), &err);
    uint8_t large[9] = {0}, dict[9] = {0};
    large[3] = 1; /* q: utf8 -> large_utf8 */
    large[8] = 1; /* x.y: binary -> large_binary, and dictionary too */
    dict[4] = 1;  /* the map key */
    dict[8] = 1;
    dict[1] = 1;  /* an int64: not a byte array, unchanged */
    struct basalt_parquet_arrow_options o = {large, dict, true};
    CHECK_PROJECTION(s, NULL, &o,
                     "a:i?,s:+s?<x:l?,l:+L?<element:+s?<p:i,q:U?>>>,m:+m?<key_value:+s<key:i[u],"
                     "value:+s?<v1:i?,v2:i?>>>,r:+L<r:i>,x.y:i?[Z]",
                     "");
    basalt_parquet_schema_free(s);
}

/* ------------------------------------------------------------ allocation */

static basalt_status build_attempt(void *ctx)
{
    (void)ctx;
    struct basalt_parquet_schema *s;
    basalt_status st = make(&s, NULL);
    if (st != BASALT_OK)
        return st;
    struct basalt_parquet_projection p;
    st = basalt_parquet_projection_init(&p, s, NULL);
    if (st == BASALT_OK)
        st = basalt_parquet_projection_select_path(&p, "m.key_value.value.v1", NULL);
    struct ArrowSchema out;
    out.release = NULL;
    uint8_t dict[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    struct basalt_parquet_arrow_options o = {NULL, dict, false};
    if (st == BASALT_OK)
        st = basalt_parquet_schema_to_arrow(s, &p, &o, &out, NULL);
    if (st == BASALT_OK)
        basalt_arrow_schema_release(&out);
    else if (out.release)
        st = BASALT_INTERNAL;
    basalt_parquet_projection_reset(&p);
    basalt_parquet_schema_free(s);
    return st;
}

TEST(projection_alloc_failure_sweep)
{
    CHECK_ALLOC_SWEEP(build_attempt, NULL);
}
