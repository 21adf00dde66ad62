/* basalt_iceberg_schema_to_arrow: every Iceberg type against the Arrow
 * format strings of the Arrow C data interface specification, field ids,
 * nullability and the shape of lists and maps. */
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_scan.h"
#include "scan_internal.h"
#include "test.h"

static struct basalt_iceberg_field fld(int32_t id, const char *name, bool required,
                                       enum basalt_iceberg_type_id type)
{
    struct basalt_iceberg_field f;
    memset(&f, 0, sizeof f);
    f.id = id;
    f.name = name;
    f.required = required;
    f.type.id = type;
    f.initial_default.is_null = true;
    f.write_default.is_null = true;
    return f;
}

static int32_t field_id(const struct ArrowSchema *s)
{
    int32_t id = -1;
    if (!basalt_iceberg_scan_arrow_field_id(s, &id))
        return -1;
    return id;
}

TEST(scan_schema_to_arrow_primitives)
{
    static const struct {
        enum basalt_iceberg_type_id type;
        const char *format;
    } cases[] = {
        {BASALT_ICEBERG_TYPE_BOOLEAN, "b"},
        {BASALT_ICEBERG_TYPE_INT, "i"},
        {BASALT_ICEBERG_TYPE_LONG, "l"},
        {BASALT_ICEBERG_TYPE_FLOAT, "f"},
        {BASALT_ICEBERG_TYPE_DOUBLE, "g"},
        {BASALT_ICEBERG_TYPE_DATE, "tdD"},
        {BASALT_ICEBERG_TYPE_TIME, "ttu"},
        {BASALT_ICEBERG_TYPE_TIMESTAMP, "tsu:"},
        {BASALT_ICEBERG_TYPE_TIMESTAMPTZ, "tsu:UTC"},
        {BASALT_ICEBERG_TYPE_TIMESTAMP_NS, "tsn:"},
        {BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS, "tsn:UTC"},
        {BASALT_ICEBERG_TYPE_STRING, "u"},
        {BASALT_ICEBERG_TYPE_UUID, "w:16"},
        {BASALT_ICEBERG_TYPE_BINARY, "z"},
        {BASALT_ICEBERG_TYPE_UNKNOWN, "n"},
    };
    size_t n = sizeof cases / sizeof cases[0];
    struct basalt_iceberg_field fields[20];
    char names[20][8];
    for (size_t i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "c%zu", i);
        fields[i] = fld((int32_t)(i + 1), names[i], i % 2 == 0, cases[i].type);
    }
    fields[n] = fld(100, "dec", false, BASALT_ICEBERG_TYPE_DECIMAL);
    fields[n].type.precision = 38;
    fields[n].type.scale = 9;
    fields[n + 1] = fld(101, "fix", true, BASALT_ICEBERG_TYPE_FIXED);
    fields[n + 1].type.length = 7;
    struct basalt_iceberg_schema schema;
    memset(&schema, 0, sizeof schema);
    schema.root.id = BASALT_ICEBERG_TYPE_STRUCT;
    schema.root.fields = fields;
    schema.root.n_fields = (uint32_t)n + 2;

    struct ArrowSchema out;
    struct basalt_error err;
    CHECK_OK(basalt_iceberg_schema_to_arrow(&schema, &out, &err), &err);
    CHECK_STR(out.format, "+s");
    CHECK_EQ(out.n_children, (int64_t)n + 2);
    for (size_t i = 0; i < n; i++) {
        const struct ArrowSchema *c = out.children[i];
        CHECK_STR(c->format, cases[i].format);
        CHECK_STR(c->name, names[i]);
        CHECK_EQ(field_id(c), (int64_t)i + 1);
        bool nullable = (c->flags & ARROW_FLAG_NULLABLE) != 0;
        /* the null type is nullable even when required */
        CHECK(nullable == (i % 2 != 0 || cases[i].type == BASALT_ICEBERG_TYPE_UNKNOWN));
    }
    CHECK_STR(out.children[n]->format, "d:38,9");
    CHECK_EQ(field_id(out.children[n]), 100);
    CHECK_STR(out.children[n + 1]->format, "w:7");
    CHECK_EQ(out.children[n + 1]->flags & ARROW_FLAG_NULLABLE, 0);
    CHECK_OK(basalt_arrow_schema_validate(&out, &err), &err);
    basalt_arrow_schema_release(&out);
}

TEST(scan_schema_to_arrow_nested)
{
    /* struct<1 point: struct<2 x: double, 3 y: double>, 4 tags: list<5: string>,
     *        6 attrs: map<7: string, 8: long>> */
    struct basalt_iceberg_field xy[2] = {fld(2, "x", true, BASALT_ICEBERG_TYPE_DOUBLE),
                                         fld(3, "y", false, BASALT_ICEBERG_TYPE_DOUBLE)};
    struct basalt_iceberg_field elem = fld(5, "element", false, BASALT_ICEBERG_TYPE_STRING);
    struct basalt_iceberg_field kv[2] = {fld(7, "key", true, BASALT_ICEBERG_TYPE_STRING),
                                         fld(8, "value", false, BASALT_ICEBERG_TYPE_LONG)};
    struct basalt_iceberg_field top[3] = {fld(1, "point", false, BASALT_ICEBERG_TYPE_STRUCT),
                                          fld(4, "tags", true, BASALT_ICEBERG_TYPE_LIST),
                                          fld(6, "attrs", false, BASALT_ICEBERG_TYPE_MAP)};
    top[0].type.fields = xy;
    top[0].type.n_fields = 2;
    top[1].type.fields = &elem;
    top[1].type.n_fields = 1;
    top[2].type.fields = kv;
    top[2].type.n_fields = 2;
    struct basalt_iceberg_schema schema;
    memset(&schema, 0, sizeof schema);
    schema.root.id = BASALT_ICEBERG_TYPE_STRUCT;
    schema.root.fields = top;
    schema.root.n_fields = 3;

    struct ArrowSchema out;
    struct basalt_error err;
    CHECK_OK(basalt_iceberg_schema_to_arrow(&schema, &out, &err), &err);
    CHECK_OK(basalt_arrow_schema_validate(&out, &err), &err);
    const struct ArrowSchema *p = out.children[0];
    CHECK_STR(p->format, "+s");
    CHECK_EQ(p->n_children, 2);
    CHECK_STR(p->children[1]->name, "y");
    CHECK_EQ(field_id(p->children[1]), 3);
    const struct ArrowSchema *l = out.children[1];
    CHECK_STR(l->format, "+l");
    CHECK_EQ(l->flags & ARROW_FLAG_NULLABLE, 0);
    CHECK_STR(l->children[0]->format, "u");
    CHECK_STR(l->children[0]->name, "element");
    CHECK_EQ(field_id(l->children[0]), 5);
    const struct ArrowSchema *m = out.children[2];
    CHECK_STR(m->format, "+m");
    CHECK_EQ(m->n_children, 1);
    CHECK_STR(m->children[0]->format, "+s");
    CHECK_EQ(m->children[0]->flags & ARROW_FLAG_NULLABLE, 0);
    CHECK_STR(m->children[0]->children[0]->name, "key");
    CHECK_EQ(m->children[0]->children[0]->flags & ARROW_FLAG_NULLABLE, 0);
    CHECK_EQ(field_id(m->children[0]->children[0]), 7);
    CHECK_STR(m->children[0]->children[1]->format, "l");
    CHECK_EQ(field_id(m->children[0]->children[1]), 8);
    basalt_arrow_schema_release(&out);
}

TEST(scan_schema_to_arrow_variant_unsupported)
{
    struct basalt_iceberg_field f = fld(1, "v", false, BASALT_ICEBERG_TYPE_VARIANT);
    struct basalt_iceberg_schema schema;
    memset(&schema, 0, sizeof schema);
    schema.root.id = BASALT_ICEBERG_TYPE_STRUCT;
    schema.root.fields = &f;
    schema.root.n_fields = 1;
    struct ArrowSchema out;
    struct basalt_error err;
    CHECK_STATUS(basalt_iceberg_schema_to_arrow(&schema, &out, &err), BASALT_UNSUPPORTED, &err);
    CHECK(out.release == NULL);
}

static basalt_status arrow_attempt(void *ctx)
{
    const struct basalt_iceberg_schema *schema = ctx;
    struct ArrowSchema out;
    basalt_status st = basalt_iceberg_schema_to_arrow(schema, &out, NULL);
    if (st == BASALT_OK)
        basalt_arrow_schema_release(&out);
    return st;
}

TEST(scan_schema_to_arrow_alloc_failures)
{
    struct basalt_iceberg_field kv[2] = {fld(7, "key", true, BASALT_ICEBERG_TYPE_STRING),
                                         fld(8, "value", false, BASALT_ICEBERG_TYPE_LONG)};
    struct basalt_iceberg_field top[2] = {fld(1, "a", false, BASALT_ICEBERG_TYPE_INT),
                                          fld(6, "attrs", false, BASALT_ICEBERG_TYPE_MAP)};
    top[1].type.fields = kv;
    top[1].type.n_fields = 2;
    struct basalt_iceberg_schema schema;
    memset(&schema, 0, sizeof schema);
    schema.root.id = BASALT_ICEBERG_TYPE_STRUCT;
    schema.root.fields = top;
    schema.root.n_fields = 2;
    CHECK_ALLOC_SWEEP(arrow_attempt, &schema);
}
