/* Format strings: the specification's table, parsed and written back. */
#include "basalt/arrow.h"
#include "test.h"

struct valid_case {
    const char *format;
    enum basalt_arrow_type_id id;
    int64_t bit_width;
    int32_t fixed_size;
    int32_t precision;
    int32_t scale;
    enum basalt_arrow_time_unit unit;
    const char *timezone;      /* NULL: none */
    int32_t n_union_types;
    const char *canonical;     /* what type_format writes back; NULL: the same */
};

#define U_S BASALT_ARROW_TIME_UNIT_SECOND
#define U_MS BASALT_ARROW_TIME_UNIT_MILLI
#define U_US BASALT_ARROW_TIME_UNIT_MICRO
#define U_NS BASALT_ARROW_TIME_UNIT_NANO
#define T(x) BASALT_ARROW_TYPE_##x

static const struct valid_case valid_cases[] = {
    {"n", T(NULL), 0, 0, 0, 0, U_S, NULL, 0, NULL},
    {"b", T(BOOL), 1, 0, 0, 0, U_S, NULL, 0, NULL},
    {"c", T(INT8), 8, 0, 0, 0, U_S, NULL, 0, NULL},
    {"C", T(UINT8), 8, 0, 0, 0, U_S, NULL, 0, NULL},
    {"s", T(INT16), 16, 0, 0, 0, U_S, NULL, 0, NULL},
    {"S", T(UINT16), 16, 0, 0, 0, U_S, NULL, 0, NULL},
    {"i", T(INT32), 32, 0, 0, 0, U_S, NULL, 0, NULL},
    {"I", T(UINT32), 32, 0, 0, 0, U_S, NULL, 0, NULL},
    {"l", T(INT64), 64, 0, 0, 0, U_S, NULL, 0, NULL},
    {"L", T(UINT64), 64, 0, 0, 0, U_S, NULL, 0, NULL},
    {"e", T(HALF_FLOAT), 16, 0, 0, 0, U_S, NULL, 0, NULL},
    {"f", T(FLOAT), 32, 0, 0, 0, U_S, NULL, 0, NULL},
    {"g", T(DOUBLE), 64, 0, 0, 0, U_S, NULL, 0, NULL},
    {"z", T(BINARY), 0, 0, 0, 0, U_S, NULL, 0, NULL},
    {"u", T(STRING), 0, 0, 0, 0, U_S, NULL, 0, NULL},
    {"Z", T(LARGE_BINARY), 0, 0, 0, 0, U_S, NULL, 0, NULL},
    {"U", T(LARGE_STRING), 0, 0, 0, 0, U_S, NULL, 0, NULL},
    {"vz", T(BINARY_VIEW), 0, 0, 0, 0, U_S, NULL, 0, NULL},
    {"vu", T(STRING_VIEW), 0, 0, 0, 0, U_S, NULL, 0, NULL},
    {"w:16", T(FIXED_SIZE_BINARY), 128, 16, 0, 0, U_S, NULL, 0, NULL},
    {"w:0", T(FIXED_SIZE_BINARY), 0, 0, 0, 0, U_S, NULL, 0, NULL},
    {"d:19,10", T(DECIMAL128), 128, 0, 19, 10, U_S, NULL, 0, NULL},
    {"d:38,-3", T(DECIMAL128), 128, 0, 38, -3, U_S, NULL, 0, NULL},
    {"d:5,2,128", T(DECIMAL128), 128, 0, 5, 2, U_S, NULL, 0, "d:5,2"},
    {"d:76,0,256", T(DECIMAL256), 256, 0, 76, 0, U_S, NULL, 0, NULL},
    {"d:9,2,32", T(DECIMAL32), 32, 0, 9, 2, U_S, NULL, 0, NULL},
    {"d:18,4,64", T(DECIMAL64), 64, 0, 18, 4, U_S, NULL, 0, NULL},
    {"tdD", T(DATE32), 32, 0, 0, 0, U_S, NULL, 0, NULL},
    {"tdm", T(DATE64), 64, 0, 0, 0, U_S, NULL, 0, NULL},
    {"tts", T(TIME32), 32, 0, 0, 0, U_S, NULL, 0, NULL},
    {"ttm", T(TIME32), 32, 0, 0, 0, U_MS, NULL, 0, NULL},
    {"ttu", T(TIME64), 64, 0, 0, 0, U_US, NULL, 0, NULL},
    {"ttn", T(TIME64), 64, 0, 0, 0, U_NS, NULL, 0, NULL},
    {"tss:", T(TIMESTAMP), 64, 0, 0, 0, U_S, NULL, 0, NULL},
    {"tsm:UTC", T(TIMESTAMP), 64, 0, 0, 0, U_MS, "UTC", 0, NULL},
    {"tsu:Europe/Paris", T(TIMESTAMP), 64, 0, 0, 0, U_US, "Europe/Paris", 0, NULL},
    {"tsn:+07:30", T(TIMESTAMP), 64, 0, 0, 0, U_NS, "+07:30", 0, NULL},
    {"tDs", T(DURATION), 64, 0, 0, 0, U_S, NULL, 0, NULL},
    {"tDm", T(DURATION), 64, 0, 0, 0, U_MS, NULL, 0, NULL},
    {"tDu", T(DURATION), 64, 0, 0, 0, U_US, NULL, 0, NULL},
    {"tDn", T(DURATION), 64, 0, 0, 0, U_NS, NULL, 0, NULL},
    {"tiM", T(INTERVAL_MONTHS), 32, 0, 0, 0, U_S, NULL, 0, NULL},
    {"tiD", T(INTERVAL_DAY_TIME), 64, 0, 0, 0, U_S, NULL, 0, NULL},
    {"tin", T(INTERVAL_MONTH_DAY_NANO), 128, 0, 0, 0, U_S, NULL, 0, NULL},
    {"+l", T(LIST), 0, 0, 0, 0, U_S, NULL, 0, NULL},
    {"+L", T(LARGE_LIST), 0, 0, 0, 0, U_S, NULL, 0, NULL},
    {"+vl", T(LIST_VIEW), 0, 0, 0, 0, U_S, NULL, 0, NULL},
    {"+vL", T(LARGE_LIST_VIEW), 0, 0, 0, 0, U_S, NULL, 0, NULL},
    {"+w:3", T(FIXED_SIZE_LIST), 0, 3, 0, 0, U_S, NULL, 0, NULL},
    {"+s", T(STRUCT), 0, 0, 0, 0, U_S, NULL, 0, NULL},
    {"+m", T(MAP), 0, 0, 0, 0, U_S, NULL, 0, NULL},
    {"+us:0,1,5", T(SPARSE_UNION), 0, 0, 0, 0, U_S, NULL, 3, NULL},
    {"+ud:127", T(DENSE_UNION), 0, 0, 0, 0, U_S, NULL, 1, NULL},
    {"+us:", T(SPARSE_UNION), 0, 0, 0, 0, U_S, NULL, 0, NULL},
    {"+r", T(RUN_END_ENCODED), 0, 0, 0, 0, U_S, NULL, 0, NULL},
};

TEST(arrow_format_parse_valid)
{
    for (size_t i = 0; i < sizeof valid_cases / sizeof valid_cases[0]; i++) {
        const struct valid_case *c = &valid_cases[i];
        struct basalt_arrow_type t;
        struct basalt_error err;
        basalt_status st = basalt_arrow_type_parse(c->format, &t, &err);
        CHECK_MSG(st == BASALT_OK, "'%s': %s", c->format, err.message);
        CHECK_MSG(t.id == c->id, "'%s': id %d", c->format, (int)t.id);
        CHECK_MSG(t.bit_width == c->bit_width, "'%s': bit_width %lld", c->format,
                  (long long)t.bit_width);
        CHECK_MSG(t.fixed_size == c->fixed_size, "'%s': fixed_size", c->format);
        CHECK_MSG(t.precision == c->precision && t.scale == c->scale, "'%s': decimal", c->format);
        CHECK_MSG(t.unit == c->unit, "'%s': unit", c->format);
        CHECK_MSG((t.timezone == NULL) == (c->timezone == NULL), "'%s': timezone", c->format);
        if (c->timezone)
            CHECK_STR(t.timezone, c->timezone);
        CHECK_MSG(t.n_union_types == c->n_union_types, "'%s': union types", c->format);

        char buf[64];
        CHECK_OK(basalt_arrow_type_format(&t, buf, sizeof buf, &err), &err);
        CHECK_STR(buf, c->canonical ? c->canonical : c->format);
    }
}

TEST(arrow_format_union_ids_view)
{
    struct basalt_arrow_type t;
    const char *format = "+ud:2,7";
    CHECK_OK(basalt_arrow_type_parse(format, &t, NULL), NULL);
    CHECK(t.union_type_ids == format + 4);
    CHECK_STR(t.union_type_ids, "2,7");
}

static const struct {
    const char *format;
    basalt_status status;
} invalid_cases[] = {
    {"", BASALT_CORRUPT},
    {"x", BASALT_UNSUPPORTED},
    {"?", BASALT_UNSUPPORTED},
    {"ii", BASALT_CORRUPT},
    {"i ", BASALT_CORRUPT},
    {"w", BASALT_CORRUPT},
    {"w:", BASALT_CORRUPT},
    {"w:-1", BASALT_CORRUPT},
    {"w:+4", BASALT_CORRUPT},
    {"w:4x", BASALT_CORRUPT},
    {"w:99999999999", BASALT_CORRUPT},
    {"d", BASALT_CORRUPT},
    {"d:", BASALT_CORRUPT},
    {"d:5", BASALT_CORRUPT},
    {"d:5,", BASALT_CORRUPT},
    {"d:0,2", BASALT_CORRUPT},
    {"d:39,2", BASALT_CORRUPT},
    {"d:77,2,256", BASALT_CORRUPT},
    {"d:10,2,32", BASALT_CORRUPT},
    {"d:5,2,16", BASALT_CORRUPT},
    {"d:5,2,", BASALT_CORRUPT},
    {"d:5,2,128x", BASALT_CORRUPT},
    {"t", BASALT_UNSUPPORTED},
    {"tx", BASALT_UNSUPPORTED},
    {"td", BASALT_CORRUPT},
    {"tdX", BASALT_CORRUPT},
    {"tdDD", BASALT_CORRUPT},
    {"ttx", BASALT_CORRUPT},
    {"tt", BASALT_CORRUPT},
    {"ts", BASALT_CORRUPT},
    {"tsu", BASALT_CORRUPT},
    {"tsx:", BASALT_CORRUPT},
    {"tsuUTC", BASALT_CORRUPT},
    {"tD", BASALT_CORRUPT},
    {"tDx", BASALT_CORRUPT},
    {"ti", BASALT_CORRUPT},
    {"tiX", BASALT_CORRUPT},
    {"+", BASALT_UNSUPPORTED},
    {"+x", BASALT_UNSUPPORTED},
    {"+ll", BASALT_CORRUPT},
    {"+s ", BASALT_CORRUPT},
    {"+w", BASALT_CORRUPT},
    {"+w:", BASALT_CORRUPT},
    {"+w:-2", BASALT_CORRUPT},
    {"+vx", BASALT_UNSUPPORTED},
    {"+u", BASALT_UNSUPPORTED},
    {"+us", BASALT_CORRUPT},
    {"+us:1,", BASALT_CORRUPT},
    {"+us:128", BASALT_CORRUPT},
    {"+ud:1;2", BASALT_CORRUPT},
    {"+ud:-1", BASALT_CORRUPT},
    {"va", BASALT_UNSUPPORTED},
};

TEST(arrow_format_parse_invalid)
{
    for (size_t i = 0; i < sizeof invalid_cases / sizeof invalid_cases[0]; i++) {
        struct basalt_arrow_type t;
        struct basalt_error err;
        basalt_error_init(&err);
        basalt_status st = basalt_arrow_type_parse(invalid_cases[i].format, &t, &err);
        CHECK_MSG(st == invalid_cases[i].status, "'%s': got %s (%s), expected %s",
                  invalid_cases[i].format, basalt_status_name(st), err.message,
                  basalt_status_name(invalid_cases[i].status));
        CHECK_MSG(err.message[0] != '\0', "'%s': no message", invalid_cases[i].format);
    }
    CHECK_STATUS(basalt_arrow_type_parse(NULL, NULL, NULL), BASALT_INVALID_ARG, NULL);
}

TEST(arrow_format_write_limits)
{
    struct basalt_arrow_type t;
    CHECK_OK(basalt_arrow_type_parse("tsu:Europe/Paris", &t, NULL), NULL);
    char buf[17]; /* the string needs 16 + NUL: exactly fits */
    CHECK_OK(basalt_arrow_type_format(&t, buf, sizeof buf, NULL), NULL);
    CHECK_STR(buf, "tsu:Europe/Paris");
    CHECK_STATUS(basalt_arrow_type_format(&t, buf, 16, NULL), BASALT_LIMIT, NULL);

    struct basalt_arrow_type d = {.id = BASALT_ARROW_TYPE_DECIMAL128, .precision = 39};
    CHECK_STATUS(basalt_arrow_type_format(&d, buf, sizeof buf, NULL), BASALT_INVALID_ARG, NULL);
    struct basalt_arrow_type bad = {.id = (enum basalt_arrow_type_id)999};
    CHECK_STATUS(basalt_arrow_type_format(&bad, buf, sizeof buf, NULL), BASALT_INVALID_ARG, NULL);
}

TEST(arrow_format_names)
{
    CHECK_STR(basalt_arrow_type_name(BASALT_ARROW_TYPE_NULL), "null");
    CHECK_STR(basalt_arrow_type_name(BASALT_ARROW_TYPE_LARGE_STRING), "large_string");
    CHECK_STR(basalt_arrow_type_name(BASALT_ARROW_TYPE_RUN_END_ENCODED), "run_end_encoded");
    CHECK_STR(basalt_arrow_type_name(BASALT_ARROW_TYPE_INTERVAL_MONTH_DAY_NANO),
              "interval_month_day_nano");
    CHECK_STR(basalt_arrow_type_name((enum basalt_arrow_type_id)-1), "unknown");
}
