/* Single-object encoding against the Java-written message of the Avro
 * repository (share/test/data/messageV1). */
#include "avro_internal.h"
#include "test.h"

TEST(single_object_java_message)
{
    size_t mlen, slen;
    uint8_t *msg = bt_read_file(
        bt_testdata_path("avro/apache-avro/share/test/data/messageV1/test_message.bin"), &mlen);
    uint8_t *schema_text = bt_read_file(
        bt_testdata_path("avro/apache-avro/share/test/data/messageV1/test_schema.avsc"), &slen);
    CHECK(msg && schema_text);
    struct basalt_avro_schema *s;
    struct basalt_error err;
    basalt_status st = basalt_avro_schema_parse((const char *)schema_text, slen, NULL, &s, &err);
    basalt_free(schema_text);
    CHECK_OK(st, &err);
    uint64_t fp;
    const uint8_t *datum;
    size_t dlen;
    CHECK_OK(basalt_avro_single_parse(msg, mlen, &fp, &datum, &dlen, &err), &err);
    CHECK_UEQ(fp, basalt_avro_schema_fingerprint(s));
    struct basalt_arena arena;
    basalt_arena_init(&arena, 1024);
    struct basalt_avro_value v;
    size_t used;
    CHECK_OK(basalt_avro_value_decode(basalt_avro_schema_root(s), datum, dlen, NULL, &arena, &v, &used,
                                      &err),
             &err);
    CHECK_EQ(used, dlen);
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    CHECK_OK(basalt_avro_value_to_json(&v, 0, &out, &err), &err);
    basalt_buffer_append(&out, "", 1, NULL);
    CHECK_STR((const char *)out.data, "{\"id\":42,\"name\":\"Bill\",\"tags\":[\"dog_lover\",\"cat_hater\"]}");
    /* Encoding the value again gives the Java message byte for byte. */
    out.size = 0;
    CHECK_OK(basalt_avro_single_encode(s, &v, &out, &err), &err);
    CHECK_EQ(out.size, mlen);
    CHECK_MEM(out.data, msg, mlen);
    uint8_t header[BASALT_AVRO_SINGLE_HEADER_SIZE];
    basalt_avro_single_header(s, header);
    CHECK_MEM(header, msg, sizeof header);
    basalt_buffer_reset(&out);
    basalt_arena_reset(&arena);
    /* Malformed headers. */
    CHECK_STATUS(basalt_avro_single_parse(msg, 9, &fp, &datum, &dlen, &err), BASALT_CORRUPT, &err);
    msg[1] = 0x02;
    CHECK_STATUS(basalt_avro_single_parse(msg, mlen, &fp, &datum, &dlen, &err), BASALT_CORRUPT, &err);
    basalt_free(msg);
    basalt_avro_schema_free(s);
}
