/* Reading file columns into table types: the promotions the Iceberg spec
 * allows (int -> long, float -> double, decimal widening, date -> timestamp),
 * unit and offset-width changes, refusals, constants, and conforming a struct
 * by field id (renamed, reordered, added with a default, dropped). */
#include <string.h>

#include "scan_internal.h"
#include "test.h"

static struct basalt_iceberg_type ty(enum basalt_iceberg_type_id id)
{
    struct basalt_iceberg_type t;
    memset(&t, 0, sizeof t);
    t.id = id;
    return t;
}

static struct basalt_iceberg_field fld(int32_t id, const char *name, enum basalt_iceberg_type_id type)
{
    struct basalt_iceberg_field f;
    memset(&f, 0, sizeof f);
    f.id = id;
    f.name = name;
    f.type.id = type;
    f.initial_default.is_null = true;
    f.write_default.is_null = true;
    return f;
}

/* A column of `format` from n int64 values (INT64_MIN = null). */
static basalt_status ints(const char *format, const int64_t *v, int n, struct ArrowArray *out)
{
    struct basalt_arrow_builder *b;
    basalt_status st = basalt_arrow_builder_new(format, "c", ARROW_FLAG_NULLABLE, &b, NULL);
    for (int i = 0; i < n && st == BASALT_OK; i++)
        st = v[i] == INT64_MIN ? basalt_arrow_builder_append_null(b, NULL)
                               : basalt_arrow_builder_append_int(b, v[i], NULL);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(b, NULL, out, NULL);
    basalt_arrow_builder_free(b);
    return st;
}

static bool valid(const struct ArrowArray *a, int64_t i)
{
    return a->buffers[0] == NULL || basalt_bitmap_get(a->buffers[0], a->offset + i);
}

static int64_t i64_at(const struct ArrowArray *a, int64_t i)
{
    return ((const int64_t *)a->buffers[1])[a->offset + i];
}

TEST(read_cast_int_to_long)
{
    int64_t v[] = {1, INT64_MIN, -3, 2147483647};
    struct ArrowArray src, out;
    struct basalt_error err;
    CHECK_OK(ints("i", v, 4, &src), NULL);
    struct basalt_iceberg_type t = ty(BASALT_ICEBERG_TYPE_LONG);
    CHECK_OK(basalt_iceberg_cast("i", &src, &t, &out, &err), &err);
    CHECK(src.release == NULL);
    CHECK_EQ(out.length, 4);
    CHECK_EQ(out.null_count, 1);
    CHECK_EQ(i64_at(&out, 0), 1);
    CHECK(!valid(&out, 1));
    CHECK_EQ(i64_at(&out, 2), -3);
    CHECK_EQ(i64_at(&out, 3), 2147483647);
    basalt_arrow_array_release(&out);
}

TEST(read_cast_float_to_double)
{
    struct basalt_arrow_builder *b;
    struct ArrowArray src, out;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("f", "c", ARROW_FLAG_NULLABLE, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_double(b, 1.5, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_double(b, -0.1, &err), &err);
    CHECK_OK(basalt_arrow_builder_finish(b, NULL, &src, &err), &err);
    basalt_arrow_builder_free(b);
    struct basalt_iceberg_type t = ty(BASALT_ICEBERG_TYPE_DOUBLE);
    CHECK_OK(basalt_iceberg_cast("f", &src, &t, &out, &err), &err);
    const double *d = out.buffers[1];
    CHECK(d[0] == 1.5);
    CHECK(d[1] == (double)-0.1f); /* the float's value, widened exactly */
    basalt_arrow_array_release(&out);
}

TEST(read_cast_decimal_widening)
{
    /* decimal(9,2) stored as decimal128 reads as decimal(12,2) unchanged;
     * a decimal64 column is widened to 128 bits */
    int64_t v[] = {12345, -1, INT64_MIN};
    struct ArrowArray src, out;
    struct basalt_error err;
    struct basalt_iceberg_type t = ty(BASALT_ICEBERG_TYPE_DECIMAL);
    t.precision = 12;
    t.scale = 2;
    CHECK_OK(ints("d:9,2", v, 3, &src), NULL);
    CHECK_OK(basalt_iceberg_cast("d:9,2", &src, &t, &out, &err), &err);
    const int64_t *w = out.buffers[1];
    CHECK_EQ(w[0], 12345);
    CHECK_EQ(w[1], 0);
    CHECK_EQ(w[2], -1);
    CHECK_EQ(w[3], -1);
    CHECK(!valid(&out, 2));
    basalt_arrow_array_release(&out);

    CHECK_OK(ints("d:9,2,64", v, 3, &src), NULL);
    CHECK_OK(basalt_iceberg_cast("d:9,2,64", &src, &t, &out, &err), &err);
    w = out.buffers[1];
    CHECK_EQ(w[0], 12345);
    CHECK_EQ(w[1], 0);
    CHECK_EQ(w[2], -1);
    CHECK_EQ(w[3], -1);
    basalt_arrow_array_release(&out);

    /* another scale is not a promotion */
    t.scale = 3;
    CHECK_OK(ints("d:9,2", v, 3, &src), NULL);
    CHECK_STATUS(basalt_iceberg_cast("d:9,2", &src, &t, &out, &err), BASALT_UNSUPPORTED, &err);
    CHECK(src.release == NULL && out.release == NULL);
}

TEST(read_cast_temporal)
{
    /* 2023-03-01 = day 19417; -1 = 1969-12-31 */
    int64_t days[] = {19417, -1};
    struct ArrowArray src, out;
    struct basalt_error err;
    struct basalt_iceberg_type ts = ty(BASALT_ICEBERG_TYPE_TIMESTAMP);
    CHECK_OK(ints("tdD", days, 2, &src), NULL);
    CHECK_OK(basalt_iceberg_cast("tdD", &src, &ts, &out, &err), &err);
    CHECK_EQ(i64_at(&out, 0), 1677628800000000LL);
    CHECK_EQ(i64_at(&out, 1), -86400000000LL);
    basalt_arrow_array_release(&out);

    struct basalt_iceberg_type tsns = ty(BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS);
    CHECK_OK(ints("tdD", days, 2, &src), NULL);
    CHECK_OK(basalt_iceberg_cast("tdD", &src, &tsns, &out, &err), &err);
    CHECK_EQ(i64_at(&out, 0), 1677628800000000000LL);
    basalt_arrow_array_release(&out);

    /* nanoseconds (INT96) to microseconds round toward negative infinity */
    int64_t ns[] = {1500, -1500, 1677628800123456789LL};
    CHECK_OK(ints("tsn:", ns, 3, &src), NULL);
    CHECK_OK(basalt_iceberg_cast("tsn:", &src, &ts, &out, &err), &err);
    CHECK_EQ(i64_at(&out, 0), 1);
    CHECK_EQ(i64_at(&out, 1), -2);
    CHECK_EQ(i64_at(&out, 2), 1677628800123456LL);
    basalt_arrow_array_release(&out);

    int64_t ms[] = {1000, -1};
    CHECK_OK(ints("tsm:UTC", ms, 2, &src), NULL);
    struct basalt_iceberg_type tstz = ty(BASALT_ICEBERG_TYPE_TIMESTAMPTZ);
    CHECK_OK(basalt_iceberg_cast("tsm:UTC", &src, &tstz, &out, &err), &err);
    CHECK_EQ(i64_at(&out, 0), 1000000);
    CHECK_EQ(i64_at(&out, 1), -1000);
    basalt_arrow_array_release(&out);

    /* a timestamp column is not a date */
    int64_t us[] = {0};
    struct basalt_iceberg_type date = ty(BASALT_ICEBERG_TYPE_DATE);
    CHECK_OK(ints("tsu:", us, 1, &src), NULL);
    CHECK_STATUS(basalt_iceberg_cast("tsu:", &src, &date, &out, &err), BASALT_UNSUPPORTED, &err);
}

TEST(read_cast_strings)
{
    struct basalt_arrow_builder *b;
    struct ArrowArray src, out;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_builder_new("U", "c", ARROW_FLAG_NULLABLE, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(b, "ab", &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(b, "cde", &err), &err);
    CHECK_OK(basalt_arrow_builder_finish(b, NULL, &src, &err), &err);
    basalt_arrow_builder_free(b);
    struct basalt_iceberg_type t = ty(BASALT_ICEBERG_TYPE_STRING);
    CHECK_OK(basalt_iceberg_cast("U", &src, &t, &out, &err), &err);
    const int32_t *o = out.buffers[1];
    CHECK_EQ(o[0], 0);
    CHECK_EQ(o[1], 2);
    CHECK_EQ(o[2], 2);
    CHECK_EQ(o[3], 5);
    CHECK_MEM(out.buffers[2], "abcde", 5);
    CHECK(!valid(&out, 1));
    basalt_arrow_array_release(&out);

    /* a string column cannot become an int */
    CHECK_OK(basalt_arrow_builder_new("u", "c", 0, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_string(b, "1", &err), &err);
    CHECK_OK(basalt_arrow_builder_finish(b, NULL, &src, &err), &err);
    basalt_arrow_builder_free(b);
    struct basalt_iceberg_type i = ty(BASALT_ICEBERG_TYPE_INT);
    CHECK_STATUS(basalt_iceberg_cast("u", &src, &i, &out, &err), BASALT_UNSUPPORTED, &err);
    CHECK(src.release == NULL);
}

TEST(read_constant_arrays)
{
    struct basalt_error err;
    struct ArrowArray out;
    struct basalt_iceberg_field f = fld(1, "s", BASALT_ICEBERG_TYPE_STRING);
    struct basalt_iceberg_value v;
    memset(&v, 0, sizeof v);
    v.type = BASALT_ICEBERG_TYPE_STRING;
    v.u.bytes.data = (const uint8_t *)"REG AIR";
    v.u.bytes.len = 7;
    CHECK_OK(basalt_iceberg_constant_array(&f, &v, 3, &out, &err), &err);
    CHECK_EQ(out.length, 3);
    CHECK_EQ(out.null_count, 0);
    CHECK_EQ(((const int32_t *)out.buffers[1])[3], 21);
    CHECK_MEM((const char *)out.buffers[2] + 14, "REG AIR", 7);
    basalt_arrow_array_release(&out);

    struct basalt_iceberg_field d = fld(2, "d", BASALT_ICEBERG_TYPE_DECIMAL);
    d.type.precision = 10;
    d.type.scale = 2;
    memset(&v, 0, sizeof v);
    v.type = BASALT_ICEBERG_TYPE_DECIMAL;
    v.scale = 2;
    v.u.dec.lo = (uint64_t)-999;
    v.u.dec.hi = -1;
    CHECK_OK(basalt_iceberg_constant_array(&d, &v, 2, &out, &err), &err);
    CHECK_EQ(((const int64_t *)out.buffers[1])[2], -999);
    CHECK_EQ(((const int64_t *)out.buffers[1])[3], -1);
    basalt_arrow_array_release(&out);

    /* nulls of a nested type */
    struct basalt_iceberg_field kv[2] = {fld(4, "key", BASALT_ICEBERG_TYPE_STRING),
                                         fld(5, "value", BASALT_ICEBERG_TYPE_INT)};
    struct basalt_iceberg_field m = fld(3, "m", BASALT_ICEBERG_TYPE_MAP);
    m.type.fields = kv;
    m.type.n_fields = 2;
    CHECK_OK(basalt_iceberg_constant_array(&m, NULL, 4, &out, &err), &err);
    CHECK_EQ(out.null_count, 4);
    struct ArrowSchema s;
    CHECK_OK(basalt_iceberg_scan_field_to_arrow(&m, &s, &err), &err);
    CHECK_OK(basalt_arrow_array_validate(&s, &out, BASALT_ARROW_VALIDATE_FULL, &err), &err);
    basalt_arrow_schema_release(&s);
    basalt_arrow_array_release(&out);
}

static basalt_status set_id(struct basalt_arrow_builder *b, int32_t id)
{
    char text[16];
    int n = snprintf(text, sizeof text, "%d", (int)id);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st = basalt_arrow_metadata_append(&buf, "PARQUET:field_id", 16, text, (size_t)n, NULL);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_set_metadata(b, (const char *)buf.data, NULL);
    basalt_buffer_reset(&buf);
    return st;
}

TEST(read_conform_struct_by_field_id)
{
    /* the file: struct<2 "b": int, 1 "old_name": string, 9 "dropped": int> */
    struct basalt_error err;
    struct basalt_arrow_builder *root, *b2, *b1, *b9;
    CHECK_OK(basalt_arrow_builder_new("+s", "s", ARROW_FLAG_NULLABLE, &root, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "i", "b", ARROW_FLAG_NULLABLE, &b2, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "u", "old_name", ARROW_FLAG_NULLABLE, &b1, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "i", "dropped", ARROW_FLAG_NULLABLE, &b9, &err), &err);
    CHECK_OK(set_id(b2, 2), NULL);
    CHECK_OK(set_id(b1, 1), NULL);
    CHECK_OK(set_id(b9, 9), NULL);
    CHECK_OK(set_id(root, 10), NULL);
    const char *names[] = {"x", "y", "z"};
    for (int i = 0; i < 3; i++) {
        CHECK_OK(basalt_arrow_builder_append_int(b2, 100 + i, &err), &err);
        CHECK_OK(basalt_arrow_builder_append_string(b1, names[i], &err), &err);
        CHECK_OK(basalt_arrow_builder_append_int(b9, -i, &err), &err);
        CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    }
    struct ArrowSchema src_schema;
    struct ArrowArray src, out;
    CHECK_OK(basalt_arrow_builder_finish(root, &src_schema, &src, &err), &err);
    basalt_arrow_builder_free(root);

    /* the table: struct<1 "name": string, 3 "added": int default 7, 2 "b": long> */
    struct basalt_iceberg_field kids[3] = {fld(1, "name", BASALT_ICEBERG_TYPE_STRING),
                                           fld(3, "added", BASALT_ICEBERG_TYPE_INT),
                                           fld(2, "b", BASALT_ICEBERG_TYPE_LONG)};
    kids[1].initial_default.is_null = false;
    kids[1].initial_default.type = BASALT_ICEBERG_TYPE_INT;
    kids[1].initial_default.u.i32 = 7;
    struct basalt_iceberg_field table = fld(10, "s", BASALT_ICEBERG_TYPE_STRUCT);
    table.type.fields = kids;
    table.type.n_fields = 3;
    CHECK_OK(basalt_iceberg_conform(NULL, &table, &src_schema, &src, 3, &out, &err), &err);
    CHECK(src.release == NULL);
    CHECK_EQ(out.length, 3);
    CHECK_EQ(out.n_children, 3);
    const struct ArrowArray *name = out.children[0], *added = out.children[1], *b = out.children[2];
    CHECK_MEM((const char *)name->buffers[2], "xyz", 3);
    CHECK_EQ(((const int32_t *)added->buffers[1])[0], 7);
    CHECK_EQ(((const int32_t *)added->buffers[1])[2], 7);
    CHECK_EQ(added->null_count, 0);
    CHECK_EQ(i64_at(b, 0), 100);
    CHECK_EQ(i64_at(b, 2), 102);
    struct ArrowSchema ts;
    CHECK_OK(basalt_iceberg_scan_field_to_arrow(&table, &ts, &err), &err);
    CHECK_OK(basalt_arrow_array_validate(&ts, &out, BASALT_ARROW_VALIDATE_FULL, &err), &err);
    basalt_arrow_schema_release(&ts);
    basalt_arrow_schema_release(&src_schema);
    basalt_arrow_array_release(&out);
}

TEST(read_conform_identity_partition_value)
{
    /* a column missing from the file takes the identity partition value */
    struct basalt_iceberg_field f = fld(15, "l_shipmode", BASALT_ICEBERG_TYPE_STRING);
    struct basalt_iceberg_partition_field pf;
    memset(&pf, 0, sizeof pf);
    pf.source_id = 15;
    pf.field_id = 1000;
    pf.name = "l_shipmode";
    pf.transform.kind = BASALT_ICEBERG_TRANSFORM_IDENTITY;
    struct basalt_iceberg_partition_spec spec = {0, &pf, 1};
    struct basalt_iceberg_value pv;
    memset(&pv, 0, sizeof pv);
    pv.type = BASALT_ICEBERG_TYPE_STRING;
    pv.u.bytes.data = (const uint8_t *)"MAIL";
    pv.u.bytes.len = 4;
    struct basalt_iceberg_data_file file;
    memset(&file, 0, sizeof file);
    file.partition = &pv;
    file.n_partition = 1;
    struct basalt_iceberg_read_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.file = &file;
    ctx.spec = &spec;
    struct ArrowArray out;
    struct basalt_error err;
    CHECK_OK(basalt_iceberg_conform(&ctx, &f, NULL, NULL, 2, &out, &err), &err);
    CHECK_EQ(out.null_count, 0);
    CHECK_MEM((const char *)out.buffers[2], "MAILMAIL", 8);
    basalt_arrow_array_release(&out);
    /* not an identity field: nulls */
    pf.transform.kind = BASALT_ICEBERG_TRANSFORM_BUCKET;
    CHECK_OK(basalt_iceberg_conform(&ctx, &f, NULL, NULL, 2, &out, &err), &err);
    CHECK_EQ(out.null_count, 2);
    basalt_arrow_array_release(&out);
}

static int32_t id_of(const struct ArrowSchema *s)
{
    int32_t id = -1;
    return basalt_iceberg_scan_arrow_field_id(s, &id) ? id : -1;
}

TEST(read_name_mapping)
{
    /* a file schema without ids: struct<id: int, location: struct<lat: double, x: double>, tags: list<string>> */
    struct basalt_error err;
    struct ArrowSchema s;
    CHECK_OK(basalt_arrow_schema_init(&s, "+s", "", 0, 3, &err), &err);
    CHECK_OK(basalt_arrow_schema_init(s.children[0], "i", "record_id", 0, 0, &err), &err);
    CHECK_OK(basalt_arrow_schema_init(s.children[1], "+s", "location", 0, 2, &err), &err);
    CHECK_OK(basalt_arrow_schema_init(s.children[1]->children[0], "g", "lat", 0, 0, &err), &err);
    CHECK_OK(basalt_arrow_schema_init(s.children[1]->children[1], "g", "x", 0, 0, &err), &err);
    CHECK_OK(basalt_arrow_schema_init(s.children[2], "+l", "tags", 0, 1, &err), &err);
    CHECK_OK(basalt_arrow_schema_init(s.children[2]->children[0], "u", "element", 0, 0, &err), &err);
    /* the spec's example mapping form: several names per id, nested fields */
    const char *mapping =
        "[{\"field-id\": 1, \"names\": [\"id\", \"record_id\"]},"
        " {\"field-id\": 2, \"names\": [\"location\"], \"fields\": ["
        "    {\"field-id\": 3, \"names\": [\"latitude\", \"lat\"]},"
        "    {\"field-id\": 4, \"names\": [\"longitude\", \"long\"]}]},"
        " {\"field-id\": 5, \"names\": [\"tags\"], \"fields\": [{\"field-id\": 6, \"names\": [\"element\"]}]}]";
    CHECK_OK(basalt_iceberg_name_mapping_apply(mapping, NULL, &s, &err), &err);
    CHECK_EQ(id_of(s.children[0]), 1);
    CHECK_EQ(id_of(s.children[1]), 2);
    CHECK_EQ(id_of(s.children[1]->children[0]), 3);
    CHECK_EQ(id_of(s.children[1]->children[1]), -1); /* not in the mapping */
    CHECK_EQ(id_of(s.children[2]), 5);
    CHECK_EQ(id_of(s.children[2]->children[0]), 6);
    CHECK_STATUS(basalt_iceberg_name_mapping_apply("{\"not\": \"a list\"}", NULL, &s, &err), BASALT_CORRUPT, &err);
    basalt_arrow_schema_release(&s);
}
