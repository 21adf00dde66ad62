/* The CSV writer: expected text written by hand; and a round trip through
 * the reader. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "basalt/csv.h"
#include "test.h"

/* The struct builder the fill functions close one row of after each value. */
static struct basalt_arrow_builder *parent;

/* A batch of one row per value, built with the Arrow builders. */
static char *write_columns(int rows, void (*fill)(struct basalt_arrow_builder *), const char *fmt,
                           const char *name, const struct basalt_csv_write_options *o)
{
    struct basalt_arrow_builder *b = NULL, *child = NULL;
    if (basalt_arrow_builder_new("+s", "", 0, &b, NULL) != BASALT_OK ||
        basalt_arrow_builder_add_child(b, fmt, name, ARROW_FLAG_NULLABLE, &child, NULL) !=
            BASALT_OK)
        return NULL;
    parent = b;
    fill(child);
    if (basalt_arrow_builder_length(b) != rows)
        return NULL;
    struct ArrowSchema s;
    struct ArrowArray a;
    if (basalt_arrow_builder_finish(b, &s, &a, NULL) != BASALT_OK)
        return NULL;
    basalt_arrow_builder_free(b);
    struct basalt_output *out = NULL;
    struct basalt_csv_writer *w = NULL;
    char *text = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    if (basalt_output_open_memory("m", &out, &err) == BASALT_OK &&
        basalt_csv_writer_open(out, false, &s, o, &w, &err) == BASALT_OK &&
        basalt_csv_writer_write(w, &a, &err) == BASALT_OK &&
        basalt_csv_writer_finish(w, &err) == BASALT_OK &&
        basalt_output_commit(out, &err) == BASALT_OK) {
        size_t len = 0;
        uint8_t *bytes = basalt_output_memory_take(out, &len);
        text = basalt_malloc(len + 1);
        memcpy(text, bytes, len);
        text[len] = 0;
        basalt_free(bytes);
    } else {
        fprintf(stderr, "write_columns: %s\n", err.message);
    }
    basalt_csv_writer_close(w);
    basalt_output_close(out);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
    return text;
}

static void fill_strings(struct basalt_arrow_builder *c)
{
    const char *v[] = {"plain", "a,b", "say \"hi\"", "two\nlines", "", " pad", "x\r"};
    for (size_t i = 0; i < 7; i++) {
        basalt_arrow_builder_append_string(c, v[i], NULL);
        basalt_arrow_builder_end_element(parent, NULL);
    }
    basalt_arrow_builder_append_null(c, NULL);
    basalt_arrow_builder_end_element(parent, NULL);
}

static void fill_doubles(struct basalt_arrow_builder *c)
{
    double v[] = {3.0, 0.1, 1e21, -2.5e-7, 1.0 / 3.0, INFINITY, -INFINITY, NAN, -0.0};
    for (size_t i = 0; i < 9; i++) {
        basalt_arrow_builder_append_double(c, v[i], NULL);
        basalt_arrow_builder_end_element(parent, NULL);
    }
    basalt_arrow_builder_append_null(c, NULL);
    basalt_arrow_builder_end_element(parent, NULL);
}

static void fill_ts(struct basalt_arrow_builder *c)
{
    basalt_arrow_builder_append_int(c, 0, NULL);
    basalt_arrow_builder_end_element(parent, NULL);
    basalt_arrow_builder_append_int(c, 1500000, NULL);
    basalt_arrow_builder_end_element(parent, NULL);
    basalt_arrow_builder_append_int(c, -1, NULL);
    basalt_arrow_builder_end_element(parent, NULL);
    basalt_arrow_builder_append_int(c, 1704164645123400, NULL);
    basalt_arrow_builder_end_element(parent, NULL);
}

static void fill_dates(struct basalt_arrow_builder *c)
{
    basalt_arrow_builder_append_int(c, 0, NULL);
    basalt_arrow_builder_end_element(parent, NULL);
    basalt_arrow_builder_append_int(c, 11016, NULL);
    basalt_arrow_builder_end_element(parent, NULL);
    basalt_arrow_builder_append_int(c, -1, NULL);
    basalt_arrow_builder_end_element(parent, NULL);
}

static void fill_decimals(struct basalt_arrow_builder *c)
{
    basalt_arrow_builder_append_int(c, 1230, NULL);
    basalt_arrow_builder_end_element(parent, NULL);
    basalt_arrow_builder_append_int(c, -5, NULL);
    basalt_arrow_builder_end_element(parent, NULL);
    basalt_arrow_builder_append_int(c, 0, NULL);
    basalt_arrow_builder_end_element(parent, NULL);
}

static void fill_ints(struct basalt_arrow_builder *c)
{
    basalt_arrow_builder_append_int(c, INT64_MIN, NULL);
    basalt_arrow_builder_end_element(parent, NULL);
    basalt_arrow_builder_append_int(c, 42, NULL);
    basalt_arrow_builder_end_element(parent, NULL);
}

static void fill_bools(struct basalt_arrow_builder *c)
{
    basalt_arrow_builder_append_bool(c, true, NULL);
    basalt_arrow_builder_end_element(parent, NULL);
    basalt_arrow_builder_append_null(c, NULL);
    basalt_arrow_builder_end_element(parent, NULL);
    basalt_arrow_builder_append_bool(c, false, NULL);
    basalt_arrow_builder_end_element(parent, NULL);
}

TEST(csv_writer_values)
{
    char *t = write_columns(8, fill_strings, "u", "s", NULL);
    CHECK(t != NULL);
    bool ok = strcmp(t, "s\nplain\n\"a,b\"\n\"say \"\"hi\"\"\"\n\"two\nlines\"\n\"\"\n\" pad\"\n"
                        "\"x\r\"\n\n") == 0;
    basalt_free(t);
    CHECK(ok);
    t = write_columns(10, fill_doubles, "g", "d", NULL);
    CHECK(t != NULL);
    ok = strcmp(t, "d\n3.0\n0.1\n1e+21\n-2.5e-07\n0.3333333333333333\ninf\n-inf\nnan\n-0.0\n\n") == 0;
    if (!ok)
        fprintf(stderr, "%s", t);
    basalt_free(t);
    CHECK(ok);
    t = write_columns(4, fill_ts, "tsu:UTC", "ts", NULL);
    ok = t && strcmp(t, "ts\n1970-01-01 00:00:00+00\n1970-01-01 00:00:01.5+00\n"
                        "1969-12-31 23:59:59.999999+00\n2024-01-02 03:04:05.1234+00\n") == 0;
    basalt_free(t);
    CHECK(ok);
    t = write_columns(3, fill_dates, "tdD", "d", NULL);
    ok = t && strcmp(t, "d\n1970-01-01\n2000-02-29\n1969-12-31\n") == 0;
    basalt_free(t);
    CHECK(ok);
    t = write_columns(3, fill_decimals, "d:10,2", "m", NULL);
    ok = t && strcmp(t, "m\n12.30\n-0.05\n0.00\n") == 0;
    basalt_free(t);
    CHECK(ok);
    t = write_columns(2, fill_ints, "l", "i", NULL);
    ok = t && strcmp(t, "i\n-9223372036854775808\n42\n") == 0;
    basalt_free(t);
    CHECK(ok);
    struct basalt_csv_write_options o;
    basalt_csv_write_options_init(&o);
    o.delimiter = ';';
    o.null = "NULL";
    o.crlf = true;
    o.header = false;
    t = write_columns(3, fill_bools, "b", "b", &o);
    ok = t && strcmp(t, "true\r\nNULL\r\nfalse\r\n") == 0;
    basalt_free(t);
    CHECK(ok);
}

TEST(csv_writer_unsupported)
{
    struct ArrowSchema s;
    CHECK_EQ(basalt_arrow_schema_init(&s, "+s", "", 0, 1, NULL), BASALT_OK);
    CHECK_EQ(basalt_arrow_schema_init(s.children[0], "+l", "l", 0, 1, NULL), BASALT_OK);
    CHECK_EQ(basalt_arrow_schema_init(s.children[0]->children[0], "i", "item", 0, 0, NULL),
             BASALT_OK);
    struct basalt_output *out = NULL;
    CHECK_EQ(basalt_output_open_memory("m", &out, NULL), BASALT_OK);
    struct basalt_csv_writer *w = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_EQ(basalt_csv_writer_open(out, true, &s, NULL, &w, &err), BASALT_UNSUPPORTED);
    CHECK(strstr(err.message, "column 'l'") != NULL);
    basalt_arrow_schema_release(&s);
}

/* Text the writer makes reads back to the same values. */
TEST(csv_writer_reader_round_trip)
{
    char *t = write_columns(8, fill_strings, "u", "s", NULL);
    CHECK(t != NULL);
    struct basalt_csv_reader *r = NULL;
    basalt_status st = basalt_csv_reader_open_memory(t, strlen(t), "rt", NULL, &r, NULL);
    struct ArrowArray a = {0};
    if (st == BASALT_OK)
        st = basalt_csv_reader_next(r, &a, NULL);
    bool ok = st == BASALT_OK && a.release && a.length == 8 && a.children[0]->null_count == 1;
    const char *want[] = {"plain", "a,b", "say \"hi\"", "two\nlines", "", " pad", "x\r"};
    for (int i = 0; ok && i < 7; i++) {
        const int32_t *off = a.children[0]->buffers[1];
        const char *data = a.children[0]->buffers[2];
        ok = (size_t)(off[i + 1] - off[i]) == strlen(want[i]) &&
             memcmp(data + off[i], want[i], strlen(want[i])) == 0;
    }
    basalt_arrow_array_release(&a);
    basalt_csv_reader_close(r);
    basalt_free(t);
    CHECK(ok);
}
