/* The JSON-lines writer: expected text written by hand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "basalt/json.h"
#include "test.h"

/* Writes `a` of schema `s` to memory; returns the text (basalt_free) or NULL. */
static char *write_batch(const struct ArrowSchema *s, const struct ArrowArray *a,
                         struct basalt_error *err)
{
    struct basalt_output *out = NULL;
    struct basalt_json_writer *w = NULL;
    struct basalt_json_write_options o;
    basalt_json_write_options_init(&o);
    o.buffer_size = 7; /* many small writes */
    char *text = NULL;
    if (basalt_output_open_memory("m", &out, err) == BASALT_OK &&
        basalt_json_writer_open(out, false, s, &o, &w, err) == BASALT_OK &&
        basalt_json_writer_write(w, a, err) == BASALT_OK &&
        basalt_json_writer_finish(w, err) == BASALT_OK &&
        basalt_output_commit(out, err) == BASALT_OK) {
        size_t len = 0;
        uint8_t *bytes = basalt_output_memory_take(out, &len);
        text = basalt_malloc(len + 1);
        if (text) {
            memcpy(text, bytes, len);
            text[len] = 0;
        }
        basalt_free(bytes);
    }
    basalt_json_writer_close(w);
    basalt_output_close(out);
    return text;
}

TEST(json_writer_values)
{
    struct basalt_arrow_builder *b = NULL, *d, *f, *s, *ts, *tz, *dt, *dec, *bin, *l, *li;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &b, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "g", "d", ARROW_FLAG_NULLABLE, &d, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "f", "f", ARROW_FLAG_NULLABLE, &f, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "u", "s\"q", ARROW_FLAG_NULLABLE, &s, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "tsu:", "ts", ARROW_FLAG_NULLABLE, &ts, &err),
             &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "tsm:UTC", "tz", ARROW_FLAG_NULLABLE, &tz, &err),
             &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "tdD", "dt", ARROW_FLAG_NULLABLE, &dt, &err),
             &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "d:5,2", "dec", ARROW_FLAG_NULLABLE, &dec, &err),
             &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "z", "bin", ARROW_FLAG_NULLABLE, &bin, &err),
             &err);
    CHECK_OK(basalt_arrow_builder_add_child(b, "+l", "l", ARROW_FLAG_NULLABLE, &l, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(l, "l", "item", ARROW_FLAG_NULLABLE, &li, &err),
             &err);
    /* row 1 */
    basalt_arrow_builder_append_double(d, 0.1, NULL);
    basalt_arrow_builder_append_double(f, 0.1f, NULL);
    basalt_arrow_builder_append_string(s, "a\"\\\n\x01\xc3\xa9", NULL);
    basalt_arrow_builder_append_int(ts, 1500001, NULL);
    basalt_arrow_builder_append_int(tz, -1, NULL);
    basalt_arrow_builder_append_int(dt, -1, NULL);
    basalt_arrow_builder_append_int(dec, -1230, NULL);
    basalt_arrow_builder_append_bytes(bin, "\x00\xff\x10", 3, NULL);
    basalt_arrow_builder_append_int(li, 1, NULL);
    basalt_arrow_builder_append_null(li, NULL);
    basalt_arrow_builder_end_element(l, NULL);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    /* row 2 */
    basalt_arrow_builder_append_double(d, 1e21, NULL);
    basalt_arrow_builder_append_double(f, NAN, NULL);
    basalt_arrow_builder_append_null(s, NULL);
    basalt_arrow_builder_append_null(ts, NULL);
    basalt_arrow_builder_append_int(tz, 0, NULL);
    basalt_arrow_builder_append_int(dt, 18263, NULL);
    basalt_arrow_builder_append_int(dec, 5, NULL);
    basalt_arrow_builder_append_bytes(bin, "", 0, NULL);
    basalt_arrow_builder_end_element(l, NULL);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    /* row 3 */
    basalt_arrow_builder_append_double(d, -2.5e-7, NULL);
    basalt_arrow_builder_append_double(f, -INFINITY, NULL);
    basalt_arrow_builder_append_string(s, "", NULL);
    basalt_arrow_builder_append_int(ts, 0, NULL);
    basalt_arrow_builder_append_null(tz, NULL);
    basalt_arrow_builder_append_null(dt, NULL);
    basalt_arrow_builder_append_null(dec, NULL);
    basalt_arrow_builder_append_null(bin, NULL);
    basalt_arrow_builder_append_null(l, NULL);
    CHECK_OK(basalt_arrow_builder_end_element(b, &err), &err);
    struct ArrowSchema sc;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_finish(b, &sc, &a, &err), &err);
    basalt_arrow_builder_free(b);
    char *text = write_batch(&sc, &a, &err);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&sc);
    CHECK_MSG(text != NULL, "%s", err.message);
    const char *want =
        "{\"d\":0.1,\"f\":0.1,\"s\\\"q\":\"a\\\"\\\\\\n\\u0001\xc3\xa9\","
        "\"ts\":\"1970-01-01T00:00:01.500001\",\"tz\":\"1969-12-31T23:59:59.999Z\","
        "\"dt\":\"1969-12-31\",\"dec\":\"-12.30\",\"bin\":\"AP8Q\",\"l\":[1,null]}\n"
        "{\"d\":1e+21,\"f\":\"NaN\",\"s\\\"q\":null,\"ts\":null,"
        "\"tz\":\"1970-01-01T00:00:00.000Z\",\"dt\":\"2020-01-02\",\"dec\":\"0.05\",\"bin\":\"\","
        "\"l\":[]}\n"
        "{\"d\":-2.5e-7,\"f\":\"-Infinity\",\"s\\\"q\":\"\",\"ts\":\"1970-01-01T00:00:00.000000\","
        "\"tz\":null,\"dt\":null,\"dec\":null,\"bin\":null,\"l\":null}\n";
    bool same = strcmp(text, want) == 0;
    if (!same)
        fprintf(stderr, "got:\n%s\nwant:\n%s\n", text, want);
    basalt_free(text);
    CHECK(same);
}

TEST(json_writer_reader_round_trip)
{
    /* read with explicit types, write, compare with the hand-written form */
    const char *in = "{\"a\":1,\"b\":{\"c\":[\"x\",null]},\"t\":\"2024-02-29 12:00:00\"}\n"
                     "{\"b\":null,\"a\":-7}\n";
    struct basalt_json_reader *r = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_OK(basalt_json_reader_open_memory(in, strlen(in), "r.json", NULL, &r, &err), &err);
    struct basalt_arrow_batches bs;
    basalt_arrow_batches_init(&bs);
    CHECK_OK(basalt_json_reader_read_all(r, &bs, &err), &err);
    basalt_json_reader_close(r);
    CHECK_EQ(bs.n, 1);
    char *text = write_batch(&bs.schema, &bs.arrays[0], &err);
    basalt_arrow_batches_reset(&bs);
    CHECK_MSG(text != NULL, "%s", err.message);
    const char *want = "{\"a\":1,\"b\":{\"c\":[\"x\",null]},\"t\":\"2024-02-29T12:00:00.000000\"}\n"
                       "{\"a\":-7,\"b\":null,\"t\":null}\n";
    bool same = strcmp(text, want) == 0;
    if (!same)
        fprintf(stderr, "got:\n%s\n", text);
    basalt_free(text);
    CHECK(same);
}

TEST(json_writer_refuses)
{
    struct ArrowSchema s;
    struct basalt_error err;
    CHECK_OK(basalt_arrow_schema_init(&s, "+s", "", 0, 1, &err), &err);
    CHECK_OK(basalt_arrow_schema_init(s.children[0], "+ud:0", "u", 0, 1, &err), &err);
    CHECK_OK(basalt_arrow_schema_init(s.children[0]->children[0], "l", "x", 0, 0, &err), &err);
    struct basalt_output *out = NULL;
    CHECK_OK(basalt_output_open_memory("m", &out, &err), &err);
    struct basalt_json_writer *w = NULL;
    CHECK_STATUS(basalt_json_writer_open(out, true, &s, NULL, &w, &err), BASALT_UNSUPPORTED, &err);
    CHECK(w == NULL);
    basalt_arrow_schema_release(&s);
}
