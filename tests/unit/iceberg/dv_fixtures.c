/* Deletion vectors and position sets: the Java-written fixtures of
 * corpus/iceberg/deletion-vectors (positions from their EXPECTED.md), byte
 * identical re-serialisation, rejection of malformed blobs, set operations
 * and an allocation-failure sweep. */
#include <stdlib.h>

#include "basalt/iceberg_manifest.h"
#include "manifest_internal.h"
#include "test.h"

static uint8_t *read_dv(const char *rel, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", bt_testdata_path("iceberg/deletion-vectors"));
    size_t n = strlen(path);
    snprintf(path + n, sizeof path - n, "/%s", rel);
    return bt_read_file(path, len);
}

/* Parses a DV file, compares its positions to `expect` and its
 * re-serialisation to the file. Returns a failure description or NULL. */
static const char *check_dv(const char *rel, const uint64_t *expect, size_t n)
{
    size_t len;
    uint8_t *data = read_dv(rel, &len);
    if (!data)
        return "cannot read";
    struct basalt_error err;
    struct basalt_iceberg_posset *set = NULL;
    const char *why = NULL;
    if (basalt_iceberg_dv_parse(data, len, &set, &err) != BASALT_OK) {
        why = "parse failed";
    } else if (basalt_iceberg_posset_cardinality(set) != n) {
        why = "cardinality";
    } else {
        uint64_t *got = basalt_malloc(sizeof *got * (n ? n : 1));
        if (!got || basalt_iceberg_posset_to_array(set, got, n) != n ||
            (n && memcmp(got, expect, n * sizeof *got) != 0))
            why = "positions";
        basalt_free(got);
        for (size_t i = 0; !why && i < n; i++)
            if (!basalt_iceberg_posset_contains(set, expect[i]) ||
                basalt_iceberg_posset_contains(set, expect[i] + 1) != (i + 1 < n && expect[i + 1] == expect[i] + 1))
                why = "contains";
        uint8_t *out = NULL;
        size_t out_len = 0;
        if (!why && basalt_iceberg_dv_serialize(set, &out, &out_len, &err) != BASALT_OK)
            why = "serialize failed";
        else if (!why && (out_len != len || memcmp(out, data, len) != 0))
            why = "re-serialised bytes differ";
        basalt_free(out);
    }
    basalt_iceberg_posset_free(set);
    basalt_free(data);
    return why;
}

TEST(dv_small_fixtures)
{
    static const uint64_t alternating[] = {1, 3, 5, 7, 9};
    static const uint64_t small_large[] = {100, 101, UINT64_C(2147483747), UINT64_C(2147483748)};
    const char *why;
    why = check_dv("apache-iceberg/empty-position-index.bin", NULL, 0);
    CHECK_MSG(!why, "empty: %s", why);
    why = check_dv("apache-iceberg/small-alternating-values-position-index.bin", alternating, 5);
    CHECK_MSG(!why, "alternating: %s", why);
    why = check_dv("apache-iceberg/small-and-large-values-position-index.bin", small_large, 4);
    CHECK_MSG(!why, "small and large: %s", why);
    why = check_dv("iceberg-go/deletion-vector-v1-payload.bin", alternating, 5);
    CHECK_MSG(!why, "iceberg-go payload: %s", why);
}

TEST(dv_all_container_types)
{
    /* {5,7} u [C+1, C+1000) u [2C+1, 3C-1) u {B+10, B+20} u [B+C+10, B+C+500)
     * u [B+2C+1, B+3C-1), C = 65536, B = 2^32: 132561 positions. */
    const uint64_t C = 65536, B = UINT64_C(1) << 32;
    const uint64_t ranges[][2] = {{5, 6},           {7, 8},           {C + 1, C + 1000},
                                  {2 * C + 1, 3 * C - 1}, {B + 10, B + 11}, {B + 20, B + 21},
                                  {B + C + 10, B + C + 500}, {B + 2 * C + 1, B + 3 * C - 1}};
    uint64_t *expect = basalt_malloc(sizeof *expect * 132561);
    CHECK(expect);
    size_t n = 0;
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
        for (uint64_t p = ranges[r][0]; p < ranges[r][1] && n < 132561; p++)
            expect[n++] = p;
    const char *why = n == 132561 ? check_dv("apache-iceberg/all-container-types-position-index.bin",
                                            expect, n)
                                  : "expected set";
    basalt_free(expect);
    CHECK_MSG(!why, "%s", why);
}

static const char *check_map(const char *rel, const uint64_t *expect, size_t n)
{
    size_t len;
    uint8_t *data = read_dv(rel, &len);
    if (!data)
        return "cannot read";
    struct basalt_error err;
    struct basalt_iceberg_posset *set = NULL;
    const char *why = NULL;
    uint64_t got[128];
    if (basalt_iceberg_roaring64_parse(data, len, &set, &err) != BASALT_OK)
        why = "parse failed";
    else if (basalt_iceberg_posset_to_array(set, got, 128) != n ||
             (n && memcmp(got, expect, n * sizeof *got) != 0))
        why = "positions";
    basalt_iceberg_posset_free(set);
    basalt_free(data);
    return why;
}

TEST(dv_raw_64bit_maps)
{
    uint64_t expect[100];
    for (int i = 0; i < 10; i++)
        expect[i] = (uint64_t)i;
    const char *why = check_map("apache-iceberg/64mapempty.bin", NULL, 0);
    CHECK_MSG(!why, "empty: %s", why);
    why = check_map("apache-iceberg/64map32bitvals.bin", expect, 10);
    CHECK_MSG(!why, "32bitvals: %s", why);
    for (int k = 0; k < 10; k++)
        for (int j = 0; j < 10; j++)
            expect[k * 10 + j] = ((uint64_t)k << 32) + (uint64_t)j;
    why = check_map("apache-iceberg/64mapspreadvals.bin", expect, 100);
    CHECK_MSG(!why, "spreadvals: %s", why);

    size_t len;
    uint8_t *data = read_dv("apache-iceberg/64maphighvals.bin", &len);
    CHECK(data);
    struct basalt_error err;
    struct basalt_iceberg_posset *set = NULL;
    basalt_status st = basalt_iceberg_roaring64_parse(data, len, &set, &err);
    basalt_free(data);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
    CHECK(set == NULL);
    CHECK(strstr(err.message, "Invalid unsigned key"));
}

TEST(dv_rejects_damaged_blobs)
{
    size_t len;
    uint8_t *data = read_dv("apache-iceberg/small-and-large-values-position-index.bin", &len);
    CHECK(data);
    struct basalt_error err;
    struct basalt_iceberg_posset *set = NULL;
    struct {
        size_t at;
        uint8_t xor;
        const char *msg;
    } cases[] = {
        {3, 1, "length"},       /* length field */
        {5, 0x10, "magic"},     /* magic */
        {len - 1, 1, "CRC"},    /* checksum */
        {20, 1, "CRC"},         /* bitmap byte: checksum catches it */
    };
    int failures = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        data[cases[c].at] ^= cases[c].xor;
        basalt_status st = basalt_iceberg_dv_parse(data, len, &set, &err);
        data[cases[c].at] ^= cases[c].xor;
        if (st != BASALT_CORRUPT || set || !strstr(err.message, cases[c].msg))
            failures++;
    }
    /* Every truncation is rejected. */
    for (size_t cut = 0; cut < len; cut++) {
        if (basalt_iceberg_dv_parse(data, cut, &set, &err) != BASALT_CORRUPT || set)
            failures++;
    }
    basalt_free(data);
    CHECK_EQ(failures, 0);
}

TEST(dv_roaring32_check_rejects_inconsistent_containers)
{
    /* One array container claiming 2 values that are not ascending. */
    const uint8_t unsorted[] = {0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 5, 0, 3, 0};
    /* The same with the values in order passes, and uses every byte. */
    const uint8_t sorted[] = {0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 3, 0, 5, 0};
    /* A run container (cookie 12347, one container) whose runs add up to 3
     * values while its header says 2. */
    const uint8_t bad_run[] = {0x3b, 0x30, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 2, 0};
    size_t used = 0;
    struct basalt_error err;
    CHECK_STATUS(basalt_iceberg_mf_roaring32_check(unsorted, sizeof unsorted, &used, &err),
                 BASALT_CORRUPT, &err);
    CHECK_OK(basalt_iceberg_mf_roaring32_check(sorted, sizeof sorted, &used, &err), &err);
    CHECK_EQ(used, sizeof sorted);
    CHECK_STATUS(basalt_iceberg_mf_roaring32_check(bad_run, sizeof bad_run, &used, &err),
                 BASALT_CORRUPT, &err);
}

TEST(dv_posset_operations)
{
    struct basalt_error err;
    struct basalt_iceberg_posset *a = NULL, *b = NULL;
    CHECK_OK(basalt_iceberg_posset_new(&a, &err), &err);
    basalt_status st = basalt_iceberg_posset_new(&b, &err);
    if (st != BASALT_OK)
        basalt_iceberg_posset_free(a);
    CHECK_OK(st, &err);
    const uint64_t B = UINT64_C(1) << 32;
    const int64_t many[] = {10, 3, (int64_t)B + 1, 3, (int64_t)(5 * B), 0};
    bool ok = basalt_iceberg_posset_add_many(a, many, 6, &err) == BASALT_OK &&
              basalt_iceberg_posset_add(b, B - 1, &err) == BASALT_OK &&
              basalt_iceberg_posset_add(b, 10, &err) == BASALT_OK &&
              basalt_iceberg_posset_add(b, 7 * B + 5, &err) == BASALT_OK &&
              basalt_iceberg_posset_union(a, b, &err) == BASALT_OK;
    const int64_t negative[] = {1, -1};
    ok = ok && basalt_iceberg_posset_add_many(a, negative, 2, &err) == BASALT_INVALID_ARG;
    static const uint64_t expect[] = {0, 1, 3, 10, UINT64_C(4294967295), UINT64_C(4294967297),
                                      UINT64_C(21474836480), UINT64_C(30064771077)};
    uint64_t got[16];
    ok = ok && basalt_iceberg_posset_cardinality(a) == 8 &&
         basalt_iceberg_posset_to_array(a, got, 16) == 8 && memcmp(got, expect, sizeof expect) == 0;
    /* to_array with a small capacity still returns the cardinality. */
    ok = ok && basalt_iceberg_posset_to_array(a, got, 2) == 8 && got[0] == 0 && got[1] == 1;
    /* mark over a window across the 2^32 boundary: positions B-1 and B+1. */
    uint8_t bits[2] = {0, 0x80};
    basalt_iceberg_posset_mark(a, B - 4, 9, bits);
    ok = ok && bits[0] == (1u << 3 | 1u << 5) && bits[1] == 0x80;
    memset(bits, 0, sizeof bits);
    basalt_iceberg_posset_mark(a, 0, 11, bits);
    ok = ok && bits[0] == (1u | 1u << 1 | 1u << 3) && bits[1] == (1u << 2);
    ok = ok && basalt_iceberg_posset_contains(a, 5 * B) && !basalt_iceberg_posset_contains(a, 6 * B);
    /* Java writes one bitmap per key 0..7 (empty ones included): the blob
     * reads back to the same set. */
    uint8_t *blob = NULL;
    size_t blob_len = 0;
    struct basalt_iceberg_posset *c = NULL;
    ok = ok && basalt_iceberg_dv_serialize(a, &blob, &blob_len, &err) == BASALT_OK &&
         blob_len > 16 && blob[8] == 8 && basalt_iceberg_dv_parse(blob, blob_len, &c, &err) == BASALT_OK &&
         basalt_iceberg_posset_cardinality(c) == 8 && basalt_iceberg_posset_to_array(c, got, 16) == 8 &&
         memcmp(got, expect, sizeof expect) == 0;
    basalt_free(blob);
    basalt_iceberg_posset_free(c);
    /* Java's layout: one (empty) bitmap per key below the highest, so 2^62
     * would take gigabytes: LIMIT. */
    struct basalt_iceberg_posset *far = NULL;
    ok = ok && basalt_iceberg_posset_new(&far, &err) == BASALT_OK &&
         basalt_iceberg_posset_add(far, UINT64_C(1) << 62, &err) == BASALT_OK &&
         basalt_iceberg_dv_serialize(far, &blob, &blob_len, &err) == BASALT_LIMIT && !blob;
    basalt_iceberg_posset_free(far);
    /* Positions at 2^63 cannot be written. */
    ok = ok && basalt_iceberg_posset_add(b, UINT64_C(1) << 63, &err) == BASALT_OK &&
         basalt_iceberg_dv_serialize(b, &blob, &blob_len, &err) == BASALT_LIMIT && !blob;
    basalt_iceberg_posset_free(a);
    basalt_iceberg_posset_free(b);
    CHECK_MSG(ok, "%s", err.message);
}

struct sweep_ctx {
    const uint8_t *data;
    size_t len;
};

static basalt_status dv_attempt(void *p)
{
    struct sweep_ctx *c = p;
    struct basalt_iceberg_posset *set = NULL, *other = NULL;
    uint8_t *out = NULL;
    size_t out_len;
    basalt_status st = basalt_iceberg_dv_parse(c->data, c->len, &set, NULL);
    if (st == BASALT_OK)
        st = basalt_iceberg_posset_new(&other, NULL);
    if (st == BASALT_OK)
        st = basalt_iceberg_posset_add(other, UINT64_C(3) << 32, NULL);
    if (st == BASALT_OK)
        st = basalt_iceberg_posset_union(set, other, NULL);
    if (st == BASALT_OK)
        st = basalt_iceberg_dv_serialize(set, &out, &out_len, NULL);
    basalt_free(out);
    basalt_iceberg_posset_free(set);
    basalt_iceberg_posset_free(other);
    return st;
}

TEST(dv_allocation_failure_sweep)
{
    size_t len;
    uint8_t *data = read_dv("apache-iceberg/all-container-types-position-index.bin", &len);
    CHECK(data);
    struct sweep_ctx c = {data, len};
    int64_t attempts = bt_alloc_failure_sweep(__FILE__, __LINE__, dv_attempt, &c);
    basalt_free(data);
    CHECK(attempts > 3);
}
