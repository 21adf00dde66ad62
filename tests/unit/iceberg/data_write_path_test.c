/* Partition path text against strings written out by hand from what the
 * Java writer prints (Transform.toHumanString through java.time,
 * Double.toString, BigDecimal.toString, base64; URLEncoder for the path). */
#include <math.h>

#include "data_write_internal.h"
#include "data_write_util.h"

static struct basalt_iceberg_value val(enum basalt_iceberg_type_id type)
{
    struct basalt_iceberg_value v;
    memset(&v, 0, sizeof v);
    v.type = type;
    return v;
}

static struct basalt_iceberg_value v32(enum basalt_iceberg_type_id type, int32_t x)
{
    struct basalt_iceberg_value v = val(type);
    v.u.i32 = x;
    return v;
}

static struct basalt_iceberg_value v64(enum basalt_iceberg_type_id type, int64_t x)
{
    struct basalt_iceberg_value v = val(type);
    v.u.i64 = x;
    return v;
}

static struct basalt_iceberg_value vf64(double x)
{
    struct basalt_iceberg_value v = val(BASALT_ICEBERG_TYPE_DOUBLE);
    v.u.f64 = x;
    return v;
}

static struct basalt_iceberg_value vf32(float x)
{
    struct basalt_iceberg_value v = val(BASALT_ICEBERG_TYPE_FLOAT);
    v.u.f32 = x;
    return v;
}

static struct basalt_iceberg_value vdec(int64_t unscaled, int32_t scale)
{
    struct basalt_iceberg_value v = val(BASALT_ICEBERG_TYPE_DECIMAL);
    v.scale = scale;
    v.u.dec.lo = (uint64_t)unscaled;
    v.u.dec.hi = unscaled < 0 ? -1 : 0;
    return v;
}

static struct basalt_iceberg_value vbytes(enum basalt_iceberg_type_id type, const void *p,
                                          size_t n)
{
    struct basalt_iceberg_value v = val(type);
    v.u.bytes.data = p;
    v.u.bytes.len = n;
    return v;
}

/* The human text of `v` (of result type `type`, scale for decimals) under `transform`. */
static bool human_is(const char *transform, enum basalt_iceberg_type_id type, int32_t scale,
                     struct basalt_iceberg_value v, const char *want, char *got, size_t cap)
{
    struct basalt_iceberg_transform t;
    if (basalt_iceberg_transform_parse(transform, &t, NULL) != BASALT_OK)
        return false;
    struct basalt_iceberg_type rt;
    memset(&rt, 0, sizeof rt);
    rt.id = type;
    rt.scale = scale;
    rt.precision = 38;
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    basalt_status st = basalt_iceberg_dw_human_value(&t, &rt, &v, &out, NULL);
    snprintf(got, cap, "%s", st == BASALT_OK ? (const char *)out.data : "(error)");
    basalt_buffer_reset(&out);
    return st == BASALT_OK && strcmp(got, want) == 0;
}

TEST(data_writer_partition_value_text)
{
    enum basalt_iceberg_type_id I = BASALT_ICEBERG_TYPE_INT, L = BASALT_ICEBERG_TYPE_LONG,
                                D = BASALT_ICEBERG_TYPE_DATE, T = BASALT_ICEBERG_TYPE_TIME,
                                TS = BASALT_ICEBERG_TYPE_TIMESTAMP,
                                TZ = BASALT_ICEBERG_TYPE_TIMESTAMPTZ,
                                NS = BASALT_ICEBERG_TYPE_TIMESTAMP_NS,
                                NZ = BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS,
                                S = BASALT_ICEBERG_TYPE_STRING, B = BASALT_ICEBERG_TYPE_BINARY,
                                U = BASALT_ICEBERG_TYPE_UUID, F = BASALT_ICEBERG_TYPE_FIXED,
                                DEC = BASALT_ICEBERG_TYPE_DECIMAL,
                                DBL = BASALT_ICEBERG_TYPE_DOUBLE, FLT = BASALT_ICEBERG_TYPE_FLOAT,
                                BOOL = BASALT_ICEBERG_TYPE_BOOLEAN;
    static const uint8_t uuid[16] = {0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd,
                                     0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7, 0x85, 0xe7};
    static const uint8_t bin[4] = {0, 1, 2, 3};
    struct basalt_iceberg_value null_int = val(I);
    null_int.is_null = true;
    struct basalt_iceberg_value yes = val(BOOL);
    yes.u.b = true;
    const struct {
        const char *transform;
        enum basalt_iceberg_type_id type;
        int32_t scale;
        struct basalt_iceberg_value v;
        const char *want;
    } cases[] = {
        /* time transforms (TransformUtil.humanYear/Month/Day/Hour) */
        {"year", I, 0, v32(I, 54), "2024"},
        {"year", I, 0, v32(I, -1), "1969"},
        {"month", I, 0, v32(I, 650), "2024-03"},
        {"month", I, 0, v32(I, -1), "1969-12"},
        {"month", I, 0, v32(I, 0), "1970-01"},
        {"day", D, 0, v32(D, 19787), "2024-03-05"},
        {"day", D, 0, v32(D, -1), "1969-12-31"},
        {"day", D, 0, v32(D, 0), "1970-01-01"},
        {"hour", I, 0, v32(I, 474898), "2024-03-05-10"},
        {"hour", I, 0, v32(I, -1), "1969-12-31-23"},
        {"bucket[16]", I, 0, v32(I, 7), "7"},
        {"void", I, 0, v32(I, 7), "null"},
        {"bucket[16]", I, 0, null_int, "null"},
        /* identity and truncate: the value's own text */
        {"identity", L, 0, v64(L, -5), "-5"},
        {"identity", BOOL, 0, yes, "true"},
        {"identity", D, 0, v32(D, 19787), "2024-03-05"},
        {"identity", T, 0, v64(T, INT64_C(36930000000)), "10:15:30"},
        {"identity", T, 0, v64(T, INT64_C(36900000000)), "10:15"},
        {"identity", T, 0, v64(T, INT64_C(36930500000)), "10:15:30.500"},
        {"identity", T, 0, v64(T, INT64_C(36930123456)), "10:15:30.123456"},
        {"identity", TZ, 0, v64(TZ, INT64_C(1709633730000000)), "2024-03-05T10:15:30Z"},
        {"identity", TZ, 0, v64(TZ, INT64_C(1709633700000000)), "2024-03-05T10:15Z"},
        {"identity", TZ, 0, v64(TZ, INT64_C(1709633730500000)), "2024-03-05T10:15:30.500Z"},
        {"identity", TS, 0, v64(TS, INT64_C(1709633730000000)), "2024-03-05T10:15:30"},
        {"identity", TS, 0, v64(TS, -1), "1969-12-31T23:59:59.999999"},
        {"identity", NS, 0, v64(NS, INT64_C(1709633730000000001)), "2024-03-05T10:15:30.000000001"},
        {"identity", NZ, 0, v64(NZ, INT64_C(1709633730123000000)), "2024-03-05T10:15:30.123Z"},
        {"identity", DEC, 2, vdec(1420, 2), "14.20"},
        {"identity", DEC, 3, vdec(-5, 3), "-0.005"},
        {"identity", DEC, 2, vdec(0, 2), "0.00"},
        {"identity", DEC, 0, vdec(-12345, 0), "-12345"},
        {"identity", DEC, 7, vdec(1, 7), "1E-7"},
        {"identity", DEC, 10, vdec(-123, 10), "-1.23E-8"},
        {"identity", DEC, 6, vdec(1, 6), "0.000001"},
        {"identity", DBL, 0, vf64(1.5), "1.5"},
        {"identity", DBL, 0, vf64(100.0), "100.0"},
        {"identity", DBL, 0, vf64(1e7), "1.0E7"},
        {"identity", DBL, 0, vf64(9999999.5), "9999999.5"},
        {"identity", DBL, 0, vf64(0.001), "0.001"},
        {"identity", DBL, 0, vf64(0.0001), "1.0E-4"},
        {"identity", DBL, 0, vf64(123456.789), "123456.789"},
        {"identity", DBL, 0, vf64(-2.5e-10), "-2.5E-10"},
        {"identity", DBL, 0, vf64(0.1 + 0.2), "0.30000000000000004"},
        {"identity", DBL, 0, vf64(-0.0), "-0.0"},
        {"identity", DBL, 0, vf64(NAN), "NaN"},
        {"identity", DBL, 0, vf64(-INFINITY), "-Infinity"},
        {"identity", FLT, 0, vf32(0.1f), "0.1"},
        {"identity", FLT, 0, vf32(1.0e10f), "1.0E10"},
        {"identity", FLT, 0, vf32(3.4028235e38f), "3.4028235E38"},
        {"identity", S, 0, vbytes(S, "a b", 3), "a b"},
        {"truncate[3]", S, 0, vbytes(S, "ice", 3), "ice"},
        {"identity", U, 0, vbytes(U, uuid, 16), "f79c3e09-677c-4bbd-a479-3f349cb785e7"},
        {"identity", B, 0, vbytes(B, bin, 4), "AAECAw=="},
        {"identity", F, 0, vbytes(F, bin, 3), "AAEC"},
        {"truncate[2]", B, 0, vbytes(B, bin, 2), "AAE="},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char got[128];
        CHECK_MSG(human_is(cases[i].transform, cases[i].type, cases[i].scale, cases[i].v,
                           cases[i].want, got, sizeof got),
                  "case %zu (%s): '%s', expected '%s'", i, cases[i].transform, got,
                  cases[i].want);
    }
}

TEST(data_writer_partition_path_url_encoding)
{
    /* URLEncoder: letters, digits and .-*_ stay; ' ' is '+'; the rest %XX
     * of its UTF-8 bytes, names too */
    struct basalt_iceberg_partition_field pf[3];
    struct basalt_iceberg_dw_pfield bound[3];
    memset(bound, 0, sizeof bound);
    pf[0] = dwt_pfield(1, 1000, "a b/c", "identity");
    pf[1] = dwt_pfield(2, 1001, "ts", "identity");
    pf[2] = dwt_pfield(3, 1002, "x.y-z_*", "identity");
    bound[0].result.id = BASALT_ICEBERG_TYPE_STRING;
    bound[1].result.id = BASALT_ICEBERG_TYPE_TIMESTAMPTZ;
    bound[2].result.id = BASALT_ICEBERG_TYPE_STRING;
    struct basalt_iceberg_partition_spec spec = {0, pf, 3};
    struct basalt_iceberg_value tuple[3] = {
        vbytes(BASALT_ICEBERG_TYPE_STRING, "caf\xc3\xa9 100%=&?+#", 15),
        v64(BASALT_ICEBERG_TYPE_TIMESTAMPTZ, INT64_C(1709633730000000)),
        vbytes(BASALT_ICEBERG_TYPE_STRING, "~.-*_AZaz09", 11),
    };
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    struct basalt_error err;
    CHECK_OK(basalt_iceberg_dw_partition_path(&spec, bound, tuple, &out, &err), &err);
    static const char want[] = "a+b%2Fc=caf%C3%A9+100%25%3D%26%3F%2B%23/"
                               "ts=2024-03-05T10%3A15%3A30Z/"
                               "x.y-z_*=%7E.-*_AZaz09";
    CHECK_MSG(out.size == strlen(want) && memcmp(out.data, want, out.size) == 0, "'%.*s'",
              (int)out.size, (const char *)out.data);
    basalt_buffer_reset(&out);
}
