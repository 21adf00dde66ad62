/* Fuzz target for the Iceberg filter language: the input (up to its first
 * NUL) is parsed; when it parses, its canonical text must parse back into a
 * structurally equal expression. It is also bound to a fixed schema; when
 * that binds, the bound expression's text must parse and bind back to an
 * equal tree, and it is evaluated over a small batch holding every column
 * (nulls, NaN, -0.0, a dictionary): evaluation must succeed, and no row may
 * match both the expression and its negation. Parsing may only return OK,
 * INVALID_ARG, LIMIT or NOMEM; binding also NOT_FOUND. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FIELD(fid, fname, req, tid) {.id = fid, .name = fname, .required = req, .type = {.id = tid}}

static struct basalt_iceberg_field nested[] = {FIELD(20, "x", false, BASALT_ICEBERG_TYPE_INT)};
static struct basalt_iceberg_field fields[] = {
    FIELD(1, "a", true, BASALT_ICEBERG_TYPE_LONG),
    FIELD(2, "b", false, BASALT_ICEBERG_TYPE_STRING),
    FIELD(3, "c", false, BASALT_ICEBERG_TYPE_DOUBLE),
    {.id = 4, .name = "d", .type = {.id = BASALT_ICEBERG_TYPE_DECIMAL, .precision = 9, .scale = 2}},
    FIELD(5, "e", false, BASALT_ICEBERG_TYPE_DATE),
    FIELD(6, "f", false, BASALT_ICEBERG_TYPE_TIMESTAMPTZ),
    FIELD(7, "g", false, BASALT_ICEBERG_TYPE_FLOAT),
    FIELD(8, "h", false, BASALT_ICEBERG_TYPE_INT),
    {.id = 9, .name = "s", .type = {.id = BASALT_ICEBERG_TYPE_STRUCT, .fields = nested, .n_fields = 1}},
    FIELD(10, "u", false, BASALT_ICEBERG_TYPE_UUID),
    FIELD(11, "t", false, BASALT_ICEBERG_TYPE_TIMESTAMP_NS),
    FIELD(12, "bin", false, BASALT_ICEBERG_TYPE_BINARY),
    FIELD(13, "flag", false, BASALT_ICEBERG_TYPE_BOOLEAN),
    FIELD(14, "tm", false, BASALT_ICEBERG_TYPE_TIME),
    FIELD(15, "ts", false, BASALT_ICEBERG_TYPE_TIMESTAMP),
    {.id = 16, .name = "fx", .type = {.id = BASALT_ICEBERG_TYPE_FIXED, .length = 2}},
    FIELD(17, "Breed Name", false, BASALT_ICEBERG_TYPE_STRING),
};
static const struct basalt_iceberg_schema schema = {
    .root = {.id = BASALT_ICEBERG_TYPE_STRUCT, .fields = fields,
             .n_fields = sizeof(fields) / sizeof(fields[0])}};

/* ------------------------------------------------------------ the batch */

#define ROWS 9

static struct ArrowSchema batch_schema;
static struct ArrowArray batch_array;
static int batch_state; /* 0 not built, 1 built, -1 failed */

static basalt_status field_id(struct basalt_arrow_builder *b, int id)
{
    struct basalt_buffer buf;
    char text[16];
    basalt_buffer_init(&buf);
    snprintf(text, sizeof(text), "%d", id);
    basalt_status st = basalt_arrow_metadata_append(&buf, "PARQUET:field_id", 16, text, strlen(text), NULL);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_set_metadata(b, (const char *)buf.data, NULL);
    basalt_buffer_reset(&buf);
    return st;
}

static basalt_status add(struct basalt_arrow_builder *parent, const char *format, int id,
                         struct basalt_arrow_builder **out)
{
    basalt_status st = basalt_arrow_builder_add_child(parent, format, "", ARROW_FLAG_NULLABLE, out, NULL);
    return st == BASALT_OK ? field_id(*out, id) : st;
}

static void build_batch(void)
{
    static const char *const formats[] = {"l", "u", "g", "d:9,2", "tdD", "tsu:UTC", "f", "i", "+s",
                                          "w:16", "tsn:", "z", "b", "ttu", "tsu:", "w:2", "i"};
    static const double floats[ROWS] = {0.0, -0.0, 1.5, -1.5, 1e300, -1e300, 2.0, 0.25, 0.0};
    static const char *const strings[ROWS] = {"", "a", "ab", "abc", "b", "\x80", "Lab", "La", "x"};
    struct basalt_arrow_builder *root = NULL, *col[17], *x = NULL, *dict = NULL;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, NULL);
    for (int k = 0; k < 17 && st == BASALT_OK; k++)
        st = add(root, formats[k], k + 1, &col[k]);
    if (st == BASALT_OK)
        st = add(col[8], "i", 20, &x);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_dictionary(col[16], "u", &dict, NULL);
    for (int r = 0; r < ROWS && st == BASALT_OK; r++)
        st = basalt_arrow_builder_append_string(dict, strings[r], NULL);
    uint8_t bytes[16];
    for (int r = 0; r < ROWS && st == BASALT_OK; r++) {
        memset(bytes, 0x11 * r, sizeof(bytes));
        int64_t v = (int64_t)r - 4;
        double f = r == 7 ? NAN : r == 8 ? -NAN : floats[r];
        for (int k = 0; k < 17 && st == BASALT_OK; k++) {
            struct basalt_arrow_builder *b = col[k];
            if ((r + k) % 5 == 4 && k != 8) {
                st = basalt_arrow_builder_append_null(b, NULL);
                continue;
            }
            switch (k) {
            case 1: case 11: st = basalt_arrow_builder_append_string(b, strings[r], NULL); break;
            case 2: case 6: st = basalt_arrow_builder_append_double(b, f, NULL); break;
            case 8:
                if (r == 3) {
                    st = basalt_arrow_builder_append_null(b, NULL);
                } else {
                    st = basalt_arrow_builder_append_int(x, v, NULL);
                    if (st == BASALT_OK)
                        st = basalt_arrow_builder_end_element(b, NULL);
                }
                break;
            case 9: st = basalt_arrow_builder_append_bytes(b, bytes, 16, NULL); break;
            case 15: st = basalt_arrow_builder_append_bytes(b, bytes, 2, NULL); break;
            case 12: st = basalt_arrow_builder_append_bool(b, r % 2, NULL); break;
            case 13: st = basalt_arrow_builder_append_int(b, r * INT64_C(3600000000), NULL); break;
            case 16: st = basalt_arrow_builder_append_int(b, (ROWS - 1 - r), NULL); break;
            default: st = basalt_arrow_builder_append_int(b, v * 1000003, NULL); break;
            }
        }
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, NULL);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(root, &batch_schema, &batch_array, NULL);
    basalt_arrow_builder_free(root);
    batch_state = st == BASALT_OK ? 1 : -1;
}

static void check_eval(struct basalt_arena *arena, struct basalt_iceberg_expr *bound)
{
    if (batch_state == 0)
        build_batch();
    if (batch_state < 0)
        return; /* out of memory at start-up */
    uint8_t yes[(ROWS + 7) / 8], no[(ROWS + 7) / 8];
    struct basalt_iceberg_expr *negated = basalt_iceberg_expr_not(arena, bound);
    basalt_status s1 = basalt_iceberg_expr_eval_batch(bound, &batch_schema, &batch_array, yes, NULL);
    if (s1 != BASALT_OK && s1 != BASALT_NOMEM)
        abort();
    if (!negated || s1 != BASALT_OK)
        return;
    basalt_status s2 = basalt_iceberg_expr_eval_batch(negated, &batch_schema, &batch_array, no, NULL);
    if (s2 != BASALT_OK && s2 != BASALT_NOMEM)
        abort();
    for (size_t i = 0; s2 == BASALT_OK && i < sizeof(yes); i++)
        if (yes[i] & no[i])
            abort();
}

/* The canonical text in a basalt_malloc'd buffer, grown until it fits. */
static char *text_of(const struct basalt_iceberg_expr *e)
{
    size_t cap = 256;
    for (;;) {
        char *buf = basalt_malloc(cap);
        if (!buf)
            return NULL;
        basalt_status st = basalt_iceberg_expr_to_string(e, buf, cap);
        if (st == BASALT_OK)
            return buf;
        basalt_free(buf);
        if (st != BASALT_LIMIT || cap > (1u << 26))
            abort();
        cap *= 4;
    }
}

static void check_parse_status(basalt_status st)
{
    if (st != BASALT_OK && st != BASALT_INVALID_ARG && st != BASALT_LIMIT && st != BASALT_NOMEM)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    if (size)
        memcpy(text, data, size);
    text[size] = '\0';
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_iceberg_expr *e = NULL, *again = NULL, *bound = NULL, *rebound = NULL;
    basalt_status st = basalt_iceberg_expr_parse(text, &arena, &e, NULL);
    check_parse_status(st);
    if (st == BASALT_OK) {
        char *canon = text_of(e);
        if (canon) {
            if (basalt_iceberg_expr_parse(canon, &arena, &again, NULL) != BASALT_OK ||
                !basalt_iceberg_expr_equal(e, again))
                abort();
            basalt_free(canon);
        }
        st = basalt_iceberg_expr_bind(e, &schema, false, &arena, &bound, NULL);
        if (st != BASALT_OK && st != BASALT_INVALID_ARG && st != BASALT_NOT_FOUND &&
            st != BASALT_NOMEM)
            abort();
        if (st == BASALT_OK) {
            char *btext = text_of(bound);
            if (btext) {
                if (basalt_iceberg_expr_parse(btext, &arena, &again, NULL) != BASALT_OK ||
                    basalt_iceberg_expr_bind(again, &schema, false, &arena, &rebound, NULL) !=
                        BASALT_OK ||
                    !basalt_iceberg_expr_equal(bound, rebound))
                    abort();
                basalt_free(btext);
            }
            check_eval(&arena, bound);
        }
    }
    basalt_arena_reset(&arena);
    free(text);
    return 0;
}
