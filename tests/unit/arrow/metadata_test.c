/* Binary metadata: encoding against hand-written bytes, reading, lookup. */
#include "basalt/arrow.h"
#include "test.h"

/* Two pairs, little-endian int32 lengths (x86-64 is little-endian). */
static const uint8_t expected_two_pairs[] = {
    0x02, 0x00, 0x00, 0x00,                                     /* 2 pairs */
    0x10, 0x00, 0x00, 0x00, 'P', 'A', 'R', 'Q', 'U', 'E', 'T', ':',
    'f', 'i', 'e', 'l', 'd', '_', 'i', 'd',                     /* key, 16 bytes */
    0x01, 0x00, 0x00, 0x00, '7',                                /* value "7" */
    0x01, 0x00, 0x00, 0x00, 'k',                                /* key "k" */
    0x00, 0x00, 0x00, 0x00,                                     /* empty value */
};

TEST(arrow_metadata_encode_bytes)
{
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    CHECK_OK(basalt_arrow_metadata_append(&buf, "PARQUET:field_id", 16, "7", 1, NULL), NULL);
    CHECK_OK(basalt_arrow_metadata_append(&buf, "k", 1, "", 0, NULL), NULL);
    CHECK_EQ(buf.size, sizeof expected_two_pairs);
    CHECK_MEM(buf.data, expected_two_pairs, sizeof expected_two_pairs);
    size_t size;
    CHECK_OK(basalt_arrow_metadata_size((const char *)buf.data, &size, NULL), NULL);
    CHECK_EQ(size, sizeof expected_two_pairs);
    basalt_buffer_reset(&buf);
}

TEST(arrow_metadata_read_and_get)
{
    const char *md = (const char *)expected_two_pairs;
    struct basalt_arrow_metadata_reader reader;
    struct basalt_arrow_metadata_item item;
    CHECK_OK(basalt_arrow_metadata_reader_init(&reader, md, NULL), NULL);
    CHECK(basalt_arrow_metadata_reader_next(&reader, &item));
    CHECK_EQ(item.key_len, 16);
    CHECK_MEM(item.key, "PARQUET:field_id", 16);
    CHECK_EQ(item.value_len, 1);
    CHECK_EQ(item.value[0], '7');
    CHECK(basalt_arrow_metadata_reader_next(&reader, &item));
    CHECK_EQ(item.key_len, 1);
    CHECK_EQ(item.key[0], 'k');
    CHECK_EQ(item.value_len, 0);
    CHECK(!basalt_arrow_metadata_reader_next(&reader, &item));

    const char *value;
    size_t value_len;
    CHECK_OK(basalt_arrow_metadata_get(md, "PARQUET:field_id", &value, &value_len, NULL), NULL);
    CHECK_EQ(value_len, 1);
    CHECK(value == md + 28);
    CHECK_OK(basalt_arrow_metadata_get(md, "k", &value, &value_len, NULL), NULL);
    CHECK_EQ(value_len, 0);
    CHECK_STATUS(basalt_arrow_metadata_get(md, "PARQUET", &value, &value_len, NULL),
                 BASALT_NOT_FOUND, NULL);
    CHECK_STATUS(basalt_arrow_metadata_get(NULL, "k", &value, &value_len, NULL),
                 BASALT_NOT_FOUND, NULL);

    /* NULL metadata reads as no pairs. */
    CHECK_OK(basalt_arrow_metadata_reader_init(&reader, NULL, NULL), NULL);
    CHECK(!basalt_arrow_metadata_reader_next(&reader, &item));
}

TEST(arrow_metadata_corrupt)
{
    static const uint8_t negative_count[] = {0xff, 0xff, 0xff, 0xff};
    static const uint8_t negative_value[] = {0x01, 0, 0, 0, 0x01, 0, 0, 0, 'a',
                                             0xfe, 0xff, 0xff, 0xff};
    struct basalt_arrow_metadata_reader reader;
    struct basalt_error err;
    CHECK_STATUS(basalt_arrow_metadata_reader_init(&reader, (const char *)negative_count, &err),
                 BASALT_CORRUPT, &err);
    CHECK_STATUS(basalt_arrow_metadata_reader_init(&reader, (const char *)negative_value, &err),
                 BASALT_CORRUPT, &err);
    const char *value;
    size_t len;
    CHECK_STATUS(basalt_arrow_metadata_get((const char *)negative_value, "a", &value, &len, &err),
                 BASALT_CORRUPT, &err);
}

TEST(arrow_metadata_round_trip_many)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 7);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    char keys[50][16], values[50][40];
    size_t value_lens[50];
    for (int i = 0; i < 50; i++) {
        snprintf(keys[i], sizeof keys[i], "key%d", i);
        value_lens[i] = (size_t)bt_rng_below(&rng, sizeof values[i]);
        bt_rng_fill(&rng, values[i], value_lens[i]);
        CHECK_OK(basalt_arrow_metadata_append(&buf, keys[i], strlen(keys[i]), values[i],
                                              value_lens[i], NULL),
                 NULL);
    }
    struct basalt_arrow_metadata_reader reader;
    struct basalt_arrow_metadata_item item;
    CHECK_OK(basalt_arrow_metadata_reader_init(&reader, (const char *)buf.data, NULL), NULL);
    for (int i = 0; i < 50; i++) {
        CHECK(basalt_arrow_metadata_reader_next(&reader, &item));
        CHECK_EQ(item.key_len, strlen(keys[i]));
        CHECK_MEM(item.key, keys[i], item.key_len);
        CHECK_EQ(item.value_len, value_lens[i]);
        CHECK_MEM(item.value, values[i], item.value_len);
    }
    CHECK(!basalt_arrow_metadata_reader_next(&reader, &item));
    int32_t count;
    memcpy(&count, buf.data, 4);
    CHECK_EQ(count, 50);
    basalt_buffer_reset(&buf);
}

static basalt_status append_attempt(void *ctx)
{
    (void)ctx;
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st = BASALT_OK;
    for (int i = 0; i < 40 && st == BASALT_OK; i++)
        st = basalt_arrow_metadata_append(&buf, "some key", 8, "a longer value", 14, NULL);
    basalt_buffer_reset(&buf);
    return st;
}

TEST(arrow_metadata_alloc_failures) { CHECK_ALLOC_SWEEP(append_attempt, NULL); }
