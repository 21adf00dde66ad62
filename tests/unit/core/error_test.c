#include "test.h"

TEST(error_set_formats_and_returns_status)
{
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_EQ(err.status, BASALT_OK);
    CHECK_STR(err.message, "");
    basalt_status st = basalt_error_set(&err, BASALT_CORRUPT, "RLE run of %d exceeds page", 9);
    CHECK_EQ(st, BASALT_CORRUPT);
    CHECK_EQ(err.status, BASALT_CORRUPT);
    CHECK_STR(err.message, "RLE run of 9 exceeds page");
}

TEST(error_context_prepends_in_order)
{
    struct basalt_error err;
    basalt_error_set(&err, BASALT_CORRUPT, "RLE run exceeds page");
    CHECK_EQ(basalt_error_context(&err, BASALT_CORRUPT, "page %d", 7), BASALT_CORRUPT);
    basalt_error_context(&err, BASALT_CORRUPT, "column '%s'", "price");
    basalt_error_context(&err, BASALT_CORRUPT, "row group %d", 3);
    basalt_error_context(&err, BASALT_CORRUPT, "%s", "flat.parquet");
    CHECK_STR(err.message, "flat.parquet: row group 3: column 'price': page 7: RLE run exceeds page");
}

TEST(error_null_is_allowed)
{
    CHECK_EQ(basalt_error_set(NULL, BASALT_IO, "x"), BASALT_IO);
    CHECK_EQ(basalt_error_context(NULL, BASALT_LIMIT, "y"), BASALT_LIMIT);
    basalt_error_init(NULL);
}

TEST(error_context_truncates_tail_without_overflow)
{
    struct basalt_error err;
    char longmsg[2000];
    memset(longmsg, 'm', sizeof longmsg - 1);
    longmsg[sizeof longmsg - 1] = '\0';
    basalt_error_set(&err, BASALT_CORRUPT, "%s", longmsg);
    CHECK_EQ(strlen(err.message), BASALT_ERROR_MESSAGE_MAX - 1);
    basalt_error_context(&err, BASALT_CORRUPT, "outer");
    CHECK_EQ(strlen(err.message), BASALT_ERROR_MESSAGE_MAX - 1);
    CHECK(strncmp(err.message, "outer: mmm", 10) == 0);
    /* A context longer than the whole buffer still leaves a terminated message. */
    basalt_error_context(&err, BASALT_CORRUPT, "%s", longmsg);
    CHECK_EQ(strlen(err.message), BASALT_ERROR_MESSAGE_MAX - 1);
}

TEST(error_context_never_allocates)
{
    struct basalt_error err;
    int64_t before = basalt_alloc_total();
    basalt_alloc_fail_after(1); /* any allocation would now fail */
    basalt_error_set(&err, BASALT_NOMEM, "inner");
    basalt_error_context(&err, BASALT_NOMEM, "outer");
    basalt_alloc_fail_after(0);
    CHECK_EQ(basalt_alloc_total(), before);
    CHECK_STR(err.message, "outer: inner");
}

TEST(status_names)
{
    CHECK_STR(basalt_status_name(BASALT_OK), "OK");
    CHECK_STR(basalt_status_name(BASALT_CORRUPT), "CORRUPT");
    CHECK_STR(basalt_status_name(BASALT_UNSUPPORTED), "UNSUPPORTED");
    CHECK_STR(basalt_status_name(BASALT_INTERNAL), "INTERNAL");
    CHECK_STR(basalt_status_name((basalt_status)999), "UNKNOWN");
}

TEST(version_matches_macros)
{
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", BASALT_VERSION_MAJOR, BASALT_VERSION_MINOR,
             BASALT_VERSION_PATCH);
    CHECK_STR(basalt_version(), expected);
}
