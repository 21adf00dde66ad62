/* Stored locations -> local paths (the rules in iceberg_catalog.h), and
 * reading through them. */
#include <string.h>

#include "basalt/iceberg_catalog.h"
#include "test.h"

/* Resolves `location` with `io` and compares with `want`. */
static bool resolves_to(const struct basalt_iceberg_io *io, const char *location, const char *want)
{
    char path[512];
    struct basalt_error err;
    basalt_error_init(&err);
    if (basalt_iceberg_io_resolve(io, location, path, sizeof path, &err) != BASALT_OK) {
        printf("  %s: %s\n", location, err.message);
        return false;
    }
    if (strcmp(path, want) != 0) {
        printf("  %s -> %s, expected %s\n", location, path, want);
        return false;
    }
    return true;
}

TEST(io_resolve_local_forms)
{
    CHECK(resolves_to(NULL, "/abs/t/data/x.parquet", "/abs/t/data/x.parquet"));
    CHECK(resolves_to(NULL, "rel/t/x", "rel/t/x"));
    CHECK(resolves_to(NULL, "./rel/t/x", "rel/t/x"));
    CHECK(resolves_to(NULL, "././rel/x", "rel/x"));
    CHECK(resolves_to(NULL, "file:///abs/t/x", "/abs/t/x"));
    CHECK(resolves_to(NULL, "file:/abs/t/x", "/abs/t/x"));
    CHECK(resolves_to(NULL, "file://localhost/abs/x", "/abs/x"));
    /* PyIceberg with a relative warehouse writes file://<relative path>. */
    CHECK(resolves_to(NULL, "file://wh/default.db/cities/data/a.parquet",
                      "wh/default.db/cities/data/a.parquet"));
    CHECK(resolves_to(NULL, "file:rel/x", "rel/x"));
    /* No percent-decoding: Spark's directories are named as stored. */
    CHECK(resolves_to(NULL, "/t/data/l_shipmode=REG+AIR/f%20x.parquet",
                      "/t/data/l_shipmode=REG+AIR/f%20x.parquet"));
}

TEST(io_resolve_unmapped_schemes)
{
    char path[256];
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_STATUS(basalt_iceberg_io_resolve(NULL, "s3://bucket/t/x.avro", path, sizeof path, &err),
                 BASALT_UNSUPPORTED, &err);
    CHECK(strstr(err.message, "s3://bucket/t/x.avro") != NULL);
    CHECK_STATUS(basalt_iceberg_io_resolve(NULL, "s3a://b/x", path, sizeof path, NULL),
                 BASALT_UNSUPPORTED, NULL);
    CHECK_STATUS(basalt_iceberg_io_resolve(NULL, "gs://b/x", path, sizeof path, NULL),
                 BASALT_UNSUPPORTED, NULL);
    CHECK_STATUS(basalt_iceberg_io_resolve(NULL, "", path, sizeof path, NULL), BASALT_INVALID_ARG,
                 NULL);
    /* One letter before a colon is a path, not a scheme. */
    CHECK(resolves_to(NULL, "c:x", "c:x"));
}

TEST(io_resolve_mappings)
{
    struct basalt_iceberg_io *io;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_iceberg_io_new(&io, &err), &err);
    basalt_status st = basalt_iceberg_io_map(io, "s3://b/t", "/local/t", &err);
    if (st == BASALT_OK)
        st = basalt_iceberg_io_map(io, "s3://b/", "/w/", &err);
    if (st == BASALT_OK)
        st = basalt_iceberg_io_map(io, "wh/default.db/cities", "/corpus/cities", &err);
    if (st == BASALT_OK)
        st = basalt_iceberg_io_map(io, "iceberg/tables-v1/x", "/c/x", &err);
    bool ok = st == BASALT_OK;
    ok = ok && resolves_to(io, "s3://b/t/data/x.parquet", "/local/t/data/x.parquet");
    ok = ok && resolves_to(io, "s3://b/t", "/local/t");
    /* At a path boundary only: s3://b/tx is not under s3://b/t ... */
    ok = ok && resolves_to(io, "s3://b/tx/y", "/w/tx/y");
    /* ... and the longest matching prefix wins over the shorter one. */
    ok = ok && resolves_to(io, "s3://b/t/metadata/v1.metadata.json", "/local/t/metadata/v1.metadata.json");
    /* Normalised forms are looked up too. */
    ok = ok && resolves_to(io, "file://wh/default.db/cities/metadata/m.avro",
                           "/corpus/cities/metadata/m.avro");
    ok = ok && resolves_to(io, "./iceberg/tables-v1/x/metadata/a.avro", "/c/x/metadata/a.avro");
    ok = ok && resolves_to(io, "iceberg/tables-v1/x/data/a.parquet", "/c/x/data/a.parquet");
    ok = ok && resolves_to(io, "iceberg/tables-v1/xy/a", "iceberg/tables-v1/xy/a");
    /* A later mapping of the same prefix replaces the earlier one. */
    ok = ok && basalt_iceberg_io_map(io, "s3://b/t", "/other", &err) == BASALT_OK;
    ok = ok && resolves_to(io, "s3://b/t/x", "/other/x");
    char small[8];
    basalt_status limit = basalt_iceberg_io_resolve(io, "s3://b/t/long/name", small, sizeof small, NULL);
    CHECK_STATUS(basalt_iceberg_io_map(io, "", "/x", NULL), BASALT_INVALID_ARG, NULL);
    basalt_iceberg_io_free(io);
    CHECK(ok);
    CHECK_EQ(limit, BASALT_LIMIT);
}

TEST(io_read_through_mapping)
{
    char dir[512], want_path[600];
    snprintf(dir, sizeof dir, "%s", bt_testdata_path("iceberg/icebird/hyperparam-iceberg"));
    snprintf(want_path, sizeof want_path, "%s/java/bunnies/metadata/v5.metadata.json", dir);
    size_t want_len;
    uint8_t *want = bt_read_file(want_path, &want_len);
    CHECK(want != NULL);
    struct basalt_iceberg_io *io = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    uint8_t *got = NULL;
    size_t got_len = 0;
    basalt_status st = basalt_iceberg_io_new(&io, &err);
    if (st == BASALT_OK)
        st = basalt_iceberg_io_map(io, "s3a://hyperparam-iceberg/", dir, &err);
    if (st == BASALT_OK)
        st = basalt_iceberg_io_read_all(
            io, "s3a://hyperparam-iceberg/java/bunnies/metadata/v5.metadata.json", &got, &got_len,
            &err);
    bool same = st == BASALT_OK && got_len == want_len && memcmp(got, want, want_len) == 0;
    basalt_free(got);
    basalt_free(want);
    /* A missing file is NOT_FOUND naming the stored location. */
    struct basalt_input *in = NULL;
    basalt_status missing = io ? basalt_iceberg_io_open(io, "s3a://hyperparam-iceberg/java/none.avro",
                                                        &in, &err)
                               : BASALT_NOMEM;
    bool named = strstr(err.message, "s3a://hyperparam-iceberg/java/none.avro") != NULL;
    basalt_input_close(in);
    basalt_iceberg_io_free(io);
    CHECK_OK(st, &err);
    CHECK(same);
    CHECK_EQ(missing, BASALT_NOT_FOUND);
    CHECK(named);
}

static basalt_status io_attempt(void *ctx)
{
    (void)ctx;
    struct basalt_iceberg_io *io, *copy = NULL;
    char path[256];
    basalt_status st = basalt_iceberg_io_new(&io, NULL);
    if (st != BASALT_OK)
        return st;
    for (int i = 0; st == BASALT_OK && i < 6; i++) {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "s3://b%d/", i);
        st = basalt_iceberg_io_map(io, prefix, "/local", NULL);
    }
    if (st == BASALT_OK)
        st = basalt_iceberg_io_new(&copy, NULL);
    if (st == BASALT_OK)
        st = basalt_iceberg_io_map_all(copy, io, NULL);
    if (st == BASALT_OK)
        st = basalt_iceberg_io_resolve(copy, "s3://b5/x", path, sizeof path, NULL);
    if (st == BASALT_OK && strcmp(path, "/local/x") != 0)
        st = BASALT_INTERNAL;
    basalt_iceberg_io_free(copy);
    basalt_iceberg_io_free(io);
    return st;
}

TEST(io_alloc_sweep)
{
    CHECK_ALLOC_SWEEP(io_attempt, NULL);
}
