/* Arrow output: every mapped type against the generic decoder, validated
 * with the arrow module's full validation; projection, defaults through a
 * reader schema, container files across blocks; unions of several types as
 * dense unions against python3-avro's reading of its own files. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basalt/arrow.h"

#include "random_gen.h"
#include "test.h"

static const char *all_types =
    "{\"type\":\"record\",\"name\":\"T\",\"fields\":["
    "{\"name\":\"l\",\"type\":\"long\"},"
    "{\"name\":\"s\",\"type\":\"string\"},"
    "{\"name\":\"o\",\"type\":[\"null\",\"long\"]},"
    "{\"name\":\"d\",\"type\":\"double\"},"
    "{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"P\",\"Q\",\"R\"]}},"
    "{\"name\":\"arr\",\"type\":{\"type\":\"array\",\"items\":\"int\"}},"
    "{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":[\"null\",\"string\"]}},"
    "{\"name\":\"r\",\"type\":{\"type\":\"record\",\"name\":\"In\",\"fields\":["
    "{\"name\":\"x\",\"type\":\"int\"},{\"name\":\"y\",\"type\":[\"string\",\"null\"]}]}},"
    "{\"name\":\"nr\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"In2\",\"fields\":["
    "{\"name\":\"z\",\"type\":\"boolean\"}]}]},"
    "{\"name\":\"f\",\"type\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":4}},"
    "{\"name\":\"dec\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":20,"
    "\"scale\":2}},"
    "{\"name\":\"fdec\",\"type\":{\"type\":\"fixed\",\"name\":\"FD\",\"size\":5,\"logicalType\":"
    "\"decimal\",\"precision\":10,\"scale\":3}},"
    "{\"name\":\"dt\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"}},"
    "{\"name\":\"ts\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}},"
    "{\"name\":\"lts\",\"type\":{\"type\":\"long\",\"logicalType\":\"local-timestamp-millis\"}},"
    "{\"name\":\"b\",\"type\":\"boolean\"},"
    "{\"name\":\"fl\",\"type\":\"float\"},"
    "{\"name\":\"dur\",\"type\":{\"type\":\"fixed\",\"name\":\"D\",\"size\":12,\"logicalType\":"
    "\"duration\"}},"
    "{\"name\":\"n\",\"type\":\"null\"},"
    "{\"name\":\"by\",\"type\":\"bytes\"}]}";

static const char *const all_formats[] = {"l",   "u",      "l",       "g",   "i",  "+l",  "+m",
                                          "+s",  "+s",     "w:4",     "d:20,2", "d:10,3", "tdD",
                                          "tsu:UTC", "tsm:", "b", "f", "tin", "n", "z"};

static bool valid_at(const struct ArrowArray *a, int64_t i)
{
    const uint8_t *bits = a->buffers[0];
    return !bits || basalt_bitmap_get(bits, a->offset + i);
}

static int32_t i32_at(const void *buf, int64_t i)
{
    int32_t v;
    memcpy(&v, (const uint8_t *)buf + 4 * i, 4);
    return v;
}

/* Whether element i of (s, a) holds the generic value v; why says what not. */
static bool check(const struct basalt_avro_value *v, const struct ArrowSchema *s,
                  const struct ArrowArray *a, int64_t i, char *why, size_t cap)
{
    const struct basalt_avro_node *n = v->node;
    if (n->type == BASALT_AVRO_UNION) {
        if (v->branch->node->type == BASALT_AVRO_NULL) {
            snprintf(why, cap, "%s: expected null", s->name);
            return !valid_at(a, i);
        }
        return check(v->branch, s, a, i, why, cap);
    }
    snprintf(why, cap, "%s (%s) element %lld differs", s->name, s->format, (long long)i);
    if (n->type == BASALT_AVRO_NULL)
        return strcmp(s->format, "n") == 0;
    if (!valid_at(a, i))
        return false;
    int64_t j = a->offset + i;
    const uint8_t *values = a->n_buffers > 1 ? a->buffers[1] : NULL;
    switch (n->type) {
    case BASALT_AVRO_BOOLEAN:
        return basalt_bitmap_get(values, j) == v->boolean;
    case BASALT_AVRO_INT:
        return i32_at(values, j) == v->i;
    case BASALT_AVRO_LONG:
        return memcmp(values + 8 * j, &v->i, 8) == 0;
    case BASALT_AVRO_FLOAT:
        return memcmp(values + 4 * j, &v->f, 4) == 0;
    case BASALT_AVRO_DOUBLE:
        return memcmp(values + 8 * j, &v->d, 8) == 0;
    case BASALT_AVRO_ENUM: {
        int32_t k = i32_at(values, j);
        const struct ArrowArray *dict = a->dictionary;
        int32_t lo = i32_at(dict->buffers[1], k), hi = i32_at(dict->buffers[1], k + 1);
        const char *sym = n->symbols[v->index];
        return k == (int32_t)v->index && hi - lo == (int32_t)strlen(sym) &&
               memcmp((const uint8_t *)dict->buffers[2] + lo, sym, strlen(sym)) == 0;
    }
    case BASALT_AVRO_STRING:
    case BASALT_AVRO_BYTES:
    case BASALT_AVRO_FIXED: {
        if (n->logical == BASALT_AVRO_LOGICAL_DECIMAL) {
            /* the unscaled value as a signed 128-bit number, both ways */
            __int128 want = (v->bytes.size && (v->bytes.data[0] & 0x80)) ? -1 : 0;
            for (size_t k = 0; k < v->bytes.size; k++)
                want = (__int128)(((unsigned __int128)want << 8) | v->bytes.data[k]);
            __int128 got;
            memcpy(&got, values + 16 * j, 16);
            return got == want;
        }
        if (n->logical == BASALT_AVRO_LOGICAL_DURATION) {
            const uint8_t *e = values + 16 * j;
            uint32_t ms;
            int64_t ns;
            memcpy(&ms, v->bytes.data + 8, 4);
            memcpy(&ns, e + 8, 8);
            return memcmp(e, v->bytes.data, 8) == 0 && ns == (int64_t)ms * 1000000;
        }
        if (n->type == BASALT_AVRO_FIXED)
            return memcmp(values + n->size * j, v->bytes.data, (size_t)n->size) == 0;
        int32_t lo = i32_at(values, j), hi = i32_at(values, j + 1);
        return (size_t)(hi - lo) == v->bytes.size &&
               (v->bytes.size == 0 ||
                memcmp((const uint8_t *)a->buffers[2] + lo, v->bytes.data, v->bytes.size) == 0);
    }
    case BASALT_AVRO_ARRAY:
    case BASALT_AVRO_MAP: {
        int32_t lo = i32_at(values, j), hi = i32_at(values, j + 1);
        if ((size_t)(hi - lo) != v->count)
            return false;
        const struct ArrowArray *child = a->children[0];
        const struct ArrowSchema *cs = s->children[0];
        for (size_t k = 0; k < v->count; k++) {
            if (n->type == BASALT_AVRO_ARRAY) {
                if (!check(&v->items[k], cs, child, lo + (int64_t)k, why, cap))
                    return false;
                continue;
            }
            const struct ArrowArray *keys = child->children[0];
            int64_t e = child->offset + lo + (int64_t)k;
            int32_t klo = i32_at(keys->buffers[1], keys->offset + e);
            int32_t khi = i32_at(keys->buffers[1], keys->offset + e + 1);
            if ((size_t)(khi - klo) != v->entries[k].key_size ||
                memcmp((const uint8_t *)keys->buffers[2] + klo, v->entries[k].key,
                       v->entries[k].key_size) != 0)
                return false;
            if (!check(&v->entries[k].value, cs->children[1], child->children[1], e, why, cap))
                return false;
        }
        return true;
    }
    case BASALT_AVRO_RECORD:
        for (size_t k = 0; k < v->count; k++)
            if (!check(&v->items[k], s->children[k], a->children[k], j, why, cap))
                return false;
        return true;
    default:
        return false;
    }
}

struct batch_fixture {
    struct basalt_avro_schema *schema;
    struct basalt_arena arena;
    struct basalt_avro_value values[300];
    struct basalt_buffer data;
};

static basalt_status fixture_init(struct batch_fixture *f, struct basalt_error *err)
{
    basalt_status st = basalt_avro_schema_parse(all_types, strlen(all_types), NULL, &f->schema, err);
    if (st != BASALT_OK)
        return st;
    basalt_arena_init(&f->arena, 65536);
    basalt_buffer_init(&f->data);
    struct bt_rng rng;
    bt_rng_seed(&rng, 4242);
    for (int i = 0; i < 300 && st == BASALT_OK; i++) {
        rg_value(&rng, basalt_avro_schema_root(f->schema), &f->arena, 4, &f->values[i]);
        st = basalt_avro_value_encode(&f->values[i], &f->data, err);
    }
    return st;
}

static void fixture_free(struct batch_fixture *f)
{
    basalt_buffer_reset(&f->data);
    basalt_arena_reset(&f->arena);
    basalt_avro_schema_free(f->schema);
}

TEST(arrow_every_type_matches_generic_values)
{
    struct batch_fixture f;
    struct basalt_error err;
    CHECK_OK(fixture_init(&f, &err), &err);
    struct basalt_avro_arrow *conv;
    CHECK_OK(basalt_avro_arrow_new(f.schema, NULL, NULL, 0, &conv, &err), &err);
    size_t pos = 0;
    for (int batch = 0; batch < 2; batch++) {
        size_t used;
        CHECK_OK(basalt_avro_arrow_decode(conv, f.data.data + pos, f.data.size - pos, 150, &used, &err),
                 &err);
        pos += used;
        CHECK_EQ(basalt_avro_arrow_length(conv), 150);
        struct ArrowSchema schema;
        struct ArrowArray array;
        CHECK_OK(basalt_avro_arrow_finish(conv, &schema, &array, &err), &err);
        CHECK_EQ(basalt_avro_arrow_length(conv), 0);
        basalt_status st = basalt_arrow_array_validate(&schema, &array, BASALT_ARROW_VALIDATE_FULL, &err);
        bool ok = st == BASALT_OK && array.length == 150 && schema.n_children == 20;
        for (int64_t k = 0; ok && k < schema.n_children; k++)
            if (strcmp(schema.children[k]->format, all_formats[k]) != 0) {
                bt_fail(__FILE__, __LINE__, "field %lld: format %s, expected %s", (long long)k,
                        schema.children[k]->format, all_formats[k]);
                ok = false;
            }
        ok = ok && schema.children[4]->dictionary && strcmp(schema.children[4]->dictionary->format, "u") == 0;
        ok = ok && (schema.children[2]->flags & ARROW_FLAG_NULLABLE) &&
             !(schema.children[0]->flags & ARROW_FLAG_NULLABLE);
        char why[160] = "";
        for (int64_t i = 0; ok && i < 150; i++) {
            struct basalt_avro_value row = f.values[batch * 150 + i];
            for (int64_t k = 0; ok && k < schema.n_children; k++)
                if (!check(&row.items[k], schema.children[k], array.children[k], i, why, sizeof why)) {
                    bt_fail(__FILE__, __LINE__, "batch %d row %lld: %s", batch, (long long)i, why);
                    ok = false;
                }
        }
        if (st != BASALT_OK)
            bt_fail(__FILE__, __LINE__, "validation: %s", err.message);
        basalt_arrow_array_release(&array);
        basalt_arrow_schema_release(&schema);
        if (!ok) {
            basalt_avro_arrow_free(conv);
            fixture_free(&f);
            return;
        }
    }
    CHECK_EQ(pos, f.data.size);
    basalt_avro_arrow_free(conv);
    fixture_free(&f);
}

TEST(arrow_projection_and_defaults)
{
    struct batch_fixture f;
    struct basalt_error err;
    CHECK_OK(fixture_init(&f, &err), &err);
    /* A reader schema: l as double, a new field with a default, most dropped. */
    const char *reader_json =
        "{\"type\":\"record\",\"name\":\"T\",\"fields\":[{\"name\":\"s\",\"type\":\"string\"},"
        "{\"name\":\"l\",\"type\":\"double\"},{\"name\":\"extra\",\"type\":{\"type\":\"array\","
        "\"items\":\"long\"},\"default\":[7,8]},{\"name\":\"o\",\"type\":[\"null\",\"long\"]}]}";
    struct basalt_avro_schema *reader;
    CHECK_OK(basalt_avro_schema_parse(reader_json, strlen(reader_json), NULL, &reader, &err), &err);
    const char *fields[] = {"extra", "l"};
    struct basalt_avro_arrow *conv;
    CHECK_OK(basalt_avro_arrow_new(f.schema, reader, fields, 2, &conv, &err), &err);
    CHECK_OK(basalt_avro_arrow_decode(conv, f.data.data, f.data.size, 300, NULL, &err), &err);
    struct ArrowSchema schema;
    struct ArrowArray array;
    CHECK_OK(basalt_avro_arrow_finish(conv, &schema, &array, &err), &err);
    basalt_status st = basalt_arrow_array_validate(&schema, &array, BASALT_ARROW_VALIDATE_FULL, &err);
    bool ok = st == BASALT_OK && schema.n_children == 2 && strcmp(schema.children[0]->name, "l") == 0 &&
              strcmp(schema.children[0]->format, "g") == 0 &&
              strcmp(schema.children[1]->format, "+l") == 0;
    for (int64_t i = 0; ok && i < 300; i++) {
        double d;
        memcpy(&d, (const uint8_t *)array.children[0]->buffers[1] + 8 * i, 8);
        ok = d == (double)f.values[i].items[0].i;
        const struct ArrowArray *list = array.children[1];
        int32_t lo = i32_at(list->buffers[1], i), hi = i32_at(list->buffers[1], i + 1);
        int64_t x[2];
        memcpy(x, (const uint8_t *)list->children[0]->buffers[1] + 8 * lo, 16);
        ok = ok && hi - lo == 2 && x[0] == 7 && x[1] == 8;
    }
    basalt_arrow_array_release(&array);
    basalt_arrow_schema_release(&schema);
    basalt_avro_arrow_free(conv);
    CHECK(ok);
    /* Unknown field; a recursive record. */
    const char *bad[] = {"nope"};
    CHECK_STATUS(basalt_avro_arrow_new(f.schema, NULL, bad, 1, &conv, &err), BASALT_INVALID_ARG, &err);
    const char *u = "{\"type\":\"record\",\"name\":\"U\",\"fields\":[{\"name\":\"u\",\"type\":[\"null\","
                    "\"U\"]}]}";
    struct basalt_avro_schema *us;
    CHECK_OK(basalt_avro_schema_parse(u, strlen(u), NULL, &us, &err), &err);
    CHECK_STATUS(basalt_avro_arrow_new(us, NULL, NULL, 0, &conv, &err), BASALT_UNSUPPORTED, &err);
    CHECK_MSG(strstr(err.message, "recursive") != NULL, "%s", err.message);
    basalt_avro_schema_free(us);
    basalt_avro_schema_free(reader);
    fixture_free(&f);
}

TEST(arrow_from_container_across_blocks)
{
    struct batch_fixture f;
    struct basalt_error err;
    CHECK_OK(fixture_init(&f, &err), &err);
    struct basalt_buffer file;
    basalt_buffer_init(&file);
    struct basalt_avro_writer_options o;
    basalt_avro_writer_options_init(&o);
    o.codec = BASALT_AVRO_CODEC_ZSTANDARD;
    o.block_bytes = 1000;
    struct basalt_avro_writer *w;
    CHECK_OK(basalt_avro_writer_new(f.schema, &o, basalt_avro_write_to_buffer, &file, &w, &err), &err);
    for (int i = 0; i < 300; i++)
        CHECK_OK(basalt_avro_writer_append(w, &f.values[i], &err), &err);
    CHECK_OK(basalt_avro_writer_close(w, &err), &err);
    struct basalt_avro_reader *r;
    CHECK_OK(basalt_avro_reader_new(file.data, file.size, NULL, &r, &err), &err);
    struct basalt_avro_arrow *conv;
    CHECK_OK(basalt_avro_arrow_new(basalt_avro_reader_schema(r), NULL, NULL, 0, &conv, &err), &err);
    int64_t total = 0, got;
    bool ok = true;
    do {
        CHECK_OK(basalt_avro_reader_read_arrow(r, conv, 128, &got, &err), &err);
        if (got == 0)
            break;
        struct ArrowSchema schema;
        struct ArrowArray array;
        CHECK_OK(basalt_avro_arrow_finish(conv, &schema, &array, &err), &err);
        char why[160];
        ok = array.length == got &&
             basalt_arrow_array_validate(&schema, &array, BASALT_ARROW_VALIDATE_FULL, &err) == BASALT_OK;
        for (int64_t i = 0; ok && i < got; i++)
            for (int64_t k = 0; ok && k < schema.n_children; k++)
                ok = check(&f.values[total + i].items[k], schema.children[k], array.children[k], i, why,
                           sizeof why);
        basalt_arrow_array_release(&array);
        basalt_arrow_schema_release(&schema);
        total += got;
    } while (ok);
    basalt_avro_arrow_free(conv);
    basalt_avro_reader_free(r);
    basalt_buffer_reset(&file);
    fixture_free(&f);
    CHECK(ok);
    CHECK_EQ(total, 300);
}

struct arrow_sweep {
    struct batch_fixture *f;
    struct basalt_avro_schema *reader;
};

static basalt_status arrow_attempt(void *p)
{
    struct arrow_sweep *c = p;
    struct basalt_avro_resolution *res = NULL;
    basalt_status st = basalt_avro_resolution_new(c->f->schema, c->reader, &res, NULL);
    struct basalt_avro_arrow *conv = NULL;
    if (st == BASALT_OK)
        st = basalt_avro_arrow_new(c->f->schema, c->reader, NULL, 0, &conv, NULL);
    if (st == BASALT_OK)
        st = basalt_avro_arrow_decode(conv, c->f->data.data, c->f->data.size, 20, NULL, NULL);
    if (st == BASALT_OK) {
        struct ArrowSchema schema;
        struct ArrowArray array;
        st = basalt_avro_arrow_finish(conv, &schema, &array, NULL);
        if (st == BASALT_OK) {
            basalt_arrow_array_release(&array);
            basalt_arrow_schema_release(&schema);
        }
    }
    basalt_avro_arrow_free(conv);
    basalt_avro_resolution_free(res);
    return st;
}

TEST(arrow_and_resolution_allocation_failures)
{
    struct batch_fixture f;
    struct basalt_error err;
    CHECK_OK(fixture_init(&f, &err), &err);
    const char *reader_json =
        "{\"type\":\"record\",\"name\":\"T\",\"fields\":[{\"name\":\"m\",\"type\":{\"type\":\"map\","
        "\"values\":[\"null\",\"string\"]}},{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\","
        "\"symbols\":[\"R\",\"Q\",\"P\"]}},{\"name\":\"extra\",\"type\":{\"type\":\"array\",\"items\":"
        "\"string\"},\"default\":[\"a\",\"b\"]},{\"name\":\"r\",\"type\":{\"type\":\"record\",\"name\":"
        "\"In\",\"fields\":[{\"name\":\"x\",\"type\":\"long\"}]}}]}";
    struct arrow_sweep c = {.f = &f};
    CHECK_OK(basalt_avro_schema_parse(reader_json, strlen(reader_json), NULL, &c.reader, &err), &err);
    CHECK_OK(arrow_attempt(&c), NULL);
    CHECK_ALLOC_SWEEP(arrow_attempt, &c);
    basalt_avro_schema_free(c.reader);
    fixture_free(&f);
}

/* ------------------------------------------------------------------ unions */

#define PY "/usr/bin/python3"
#define SCRIPTS BASALT_TEST_SOURCE_DIR "/tests/avro"

static void put(struct basalt_buffer *out, const char *s)
{
    basalt_buffer_append(out, s, strlen(s), NULL);
}

static void put_text(struct basalt_buffer *out, const uint8_t *p, size_t n, bool latin1)
{
    put(out, "\"");
    for (size_t i = 0; i < n; i++) {
        char esc[8];
        uint8_t c = p[i];
        if (c == '"' || c == '\\' || c < 0x20 || (latin1 && c >= 0x7f)) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            put(out, esc);
        } else {
            basalt_buffer_append(out, &c, 1, NULL);
        }
    }
    put(out, "\"");
}

static void put_i64(struct basalt_buffer *out, int64_t v)
{
    char num[32];
    snprintf(num, sizeof num, "%lld", (long long)v);
    put(out, num);
}

/* Element i of (s, a) as JSON, a dense union as {"@branch": code, "value": v}
 * (the form tests/avro/pyavro_unions.py reads python3-avro's values in). */
static void arrow_json(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                       struct basalt_buffer *out)
{
    int64_t j = a->offset + i;
    if (strncmp(s->format, "+ud:", 4) == 0) {
        int8_t code = ((const int8_t *)a->buffers[0])[j];
        int32_t off = i32_at(a->buffers[1], j);
        put(out, "{\"@branch\":");
        put_i64(out, code);
        put(out, ",\"value\":");
        arrow_json(s->children[code], a->children[code], off, out);
        put(out, "}");
        return;
    }
    if (strcmp(s->format, "n") == 0 || !valid_at(a, i)) {
        put(out, "null");
        return;
    }
    const uint8_t *v = a->n_buffers > 1 ? a->buffers[1] : NULL;
    if (s->dictionary) {
        int32_t k = i32_at(v, j);
        const struct ArrowArray *d = a->dictionary;
        int32_t lo = i32_at(d->buffers[1], k), hi = i32_at(d->buffers[1], k + 1);
        put_text(out, (const uint8_t *)d->buffers[2] + lo, (size_t)(hi - lo), false);
        return;
    }
    switch (s->format[0]) {
    case 'b': put(out, basalt_bitmap_get(v, j) ? "true" : "false"); return;
    case 'i': put_i64(out, i32_at(v, j)); return;
    case 'l': {
        int64_t x;
        memcpy(&x, v + 8 * j, 8);
        put_i64(out, x);
        return;
    }
    case 'g': {
        double d;
        memcpy(&d, v + 8 * j, 8);
        char num[40];
        snprintf(num, sizeof num, "%.17g", d);
        put(out, num);
        if (!strpbrk(num, ".en"))
            put(out, ".0");
        return;
    }
    case 'u':
    case 'z': {
        int32_t lo = i32_at(v, j), hi = i32_at(v, j + 1);
        put_text(out, (const uint8_t *)a->buffers[2] + lo, (size_t)(hi - lo), s->format[0] == 'z');
        return;
    }
    case 'w': {
        int w = atoi(s->format + 2);
        put_text(out, v + (size_t)w * (size_t)j, (size_t)w, true);
        return;
    }
    default:
        break;
    }
    if (strcmp(s->format, "+s") == 0) {
        put(out, "{");
        for (int64_t k = 0; k < s->n_children; k++) {
            if (k)
                put(out, ",");
            put_text(out, (const uint8_t *)s->children[k]->name, strlen(s->children[k]->name), false);
            put(out, ":");
            arrow_json(s->children[k], a->children[k], j, out);
        }
        put(out, "}");
        return;
    }
    bool map = strcmp(s->format, "+m") == 0;
    int32_t lo = i32_at(v, j), hi = i32_at(v, j + 1);
    put(out, map ? "{" : "[");
    for (int32_t k = lo; k < hi; k++) {
        if (k > lo)
            put(out, ",");
        if (!map) {
            arrow_json(s->children[0], a->children[0], k, out);
            continue;
        }
        const struct ArrowArray *e = a->children[0];
        const struct ArrowArray *keys = e->children[0];
        int32_t klo = i32_at(keys->buffers[1], keys->offset + e->offset + k);
        int32_t khi = i32_at(keys->buffers[1], keys->offset + e->offset + k + 1);
        put_text(out, (const uint8_t *)keys->buffers[2] + klo, (size_t)(khi - klo), false);
        put(out, ":");
        arrow_json(s->children[0]->children[1], e->children[1], e->offset + k, out);
    }
    put(out, map ? "}" : "]");
}

/* Reads `path` (with reader schema `reader_path`, or NULL) into Arrow batches
 * of 64 records, validated, and appends every record as a JSON line. */
static basalt_status union_file_json(const char *path, const char *reader_path,
                                     struct basalt_buffer *lines, int64_t *unions,
                                     struct basalt_error *err)
{
    size_t len = 0, rlen = 0;
    uint8_t *data = bt_read_file(path, &len);
    uint8_t *rtext = reader_path ? bt_read_file(reader_path, &rlen) : NULL;
    if (!data || (reader_path && !rtext)) {
        basalt_free(data);
        basalt_free(rtext);
        return basalt_error_set(err, BASALT_IO, "cannot read %s", path);
    }
    struct basalt_avro_schema *reader = NULL;
    struct basalt_avro_reader *r = NULL;
    struct basalt_avro_arrow *conv = NULL;
    basalt_status st = rtext ? basalt_avro_schema_parse((const char *)rtext, rlen, NULL, &reader, err)
                             : BASALT_OK;
    if (st == BASALT_OK)
        st = basalt_avro_reader_new(data, len, NULL, &r, err);
    if (st == BASALT_OK)
        st = basalt_avro_arrow_new(basalt_avro_reader_schema(r), reader, NULL, 0, &conv, err);
    for (int64_t got = 1; st == BASALT_OK && got > 0;) {
        st = basalt_avro_reader_read_arrow(r, conv, 64, &got, err);
        if (st != BASALT_OK || got == 0)
            break;
        struct ArrowSchema schema;
        struct ArrowArray array;
        st = basalt_avro_arrow_finish(conv, &schema, &array, err);
        if (st != BASALT_OK)
            break;
        st = basalt_arrow_array_validate(&schema, &array, BASALT_ARROW_VALIDATE_FULL, err);
        for (int64_t k = 0; st == BASALT_OK && k < schema.n_children; k++)
            *unions += strncmp(schema.children[k]->format, "+ud:", 4) == 0;
        for (int64_t i = 0; st == BASALT_OK && i < array.length; i++) {
            arrow_json(&schema, &array, i, lines);
            put(lines, "\n");
        }
        basalt_arrow_array_release(&array);
        basalt_arrow_schema_release(&schema);
    }
    basalt_avro_arrow_free(conv);
    basalt_avro_reader_free(r);
    basalt_avro_schema_free(reader);
    basalt_free(rtext);
    basalt_free(data);
    return st;
}

/* python3-avro writes files with unions of several types (branches chosen
 * by the test, nulls first, last and in the middle, records, maps, enums,
 * fixed and bytes as branches, unions inside arrays, maps and records);
 * basalt reads them as dense unions, as written and through a reader schema
 * that reorders branches and promotes int to long, and every value with its
 * branch matches python3-avro's own reading. */
TEST(arrow_unions_match_python)
{
    if (system(PY " -c 'import avro' 2>/dev/null") != 0) {
        bt_fail(__FILE__, __LINE__, "python3-avro is missing");
        return;
    }
    char dir[] = "/tmp/basalt-avro-unions-XXXXXX";
    CHECK(mkdtemp(dir));
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             PY " " SCRIPTS "/pyavro_unions.py write %s/null.avro && "
             PY " " SCRIPTS "/pyavro_unions.py write %s/deflate.avro --codec deflate --seed 7 && "
             PY " " SCRIPTS "/pyavro_unions.py reader > %s/reader.avsc",
             dir, dir, dir);
    CHECK_MSG(system(cmd) == 0, "python failed: %s", cmd);
    const char *files[] = {"null", "deflate"};
    bool ok = true;
    for (int f = 0; f < 2 && ok; f++) {
        for (int with_reader = 0; with_reader < 2 && ok; with_reader++) {
            char path[256], rpath[256], ours[256], want[256];
            snprintf(path, sizeof path, "%s/%s.avro", dir, files[f]);
            snprintf(rpath, sizeof rpath, "%s/reader.avsc", dir);
            snprintf(ours, sizeof ours, "%s/%s-%d.basalt", dir, files[f], with_reader);
            snprintf(want, sizeof want, "%s/%s-%d.python", dir, files[f], with_reader);
            struct basalt_buffer lines;
            basalt_buffer_init(&lines);
            struct basalt_error err;
            int64_t unions = 0;
            basalt_status st = union_file_json(path, with_reader ? rpath : NULL, &lines, &unions, &err);
            if (st != BASALT_OK) {
                bt_fail(__FILE__, __LINE__, "%s: %s", path, err.message);
                ok = false;
            }
            FILE *o = ok ? fopen(ours, "w") : NULL;
            if (o) {
                fwrite(lines.data, 1, lines.size, o);
                fclose(o);
            }
            basalt_buffer_reset(&lines);
            if (!ok)
                break;
            /* 5 batches (64 records each, 300 in all) of 4 top-level unions
             * (5 with the reader's) */
            if (unions != (with_reader ? 5 * 5 : 4 * 5)) {
                bt_fail(__FILE__, __LINE__, "%s: %lld union columns", path, (long long)unions);
                ok = false;
                break;
            }
            snprintf(cmd, sizeof cmd,
                     PY " " SCRIPTS "/canon_json.py < %s > %s.canon && " PY " " SCRIPTS
                     "/pyavro_unions.py read %s %s%s > %s && cmp -s %s.canon %s",
                     ours, ours, path, with_reader ? "--reader-schema " : "",
                     with_reader ? rpath : "", want, ours, want);
            if (system(cmd) != 0) {
                snprintf(cmd, sizeof cmd, "diff %s.canon %s | head -4 >&2", ours, want);
                if (system(cmd) != 0)
                    ok = false;
                bt_fail(__FILE__, __LINE__, "%s (reader schema: %d): not python3-avro's values", path,
                        with_reader);
                ok = false;
            }
        }
    }
    if (ok) {
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        CHECK(system(cmd) == 0);
    }
    CHECK(ok);
}

/* The layout of one small dense union: codes, offsets, children; nullable
 * when a branch is null; a reader-only union field from its default. */
TEST(arrow_union_layout)
{
    const char *w = "{\"type\":\"record\",\"name\":\"T\",\"fields\":["
                    "{\"name\":\"u\",\"type\":[\"int\",\"null\",\"string\"]},"
                    "{\"name\":\"v\",\"type\":[\"long\",\"boolean\"]}]}";
    const char *r = "{\"type\":\"record\",\"name\":\"T\",\"fields\":["
                    "{\"name\":\"u\",\"type\":[\"int\",\"null\",\"string\"]},"
                    "{\"name\":\"v\",\"type\":[\"long\",\"boolean\"]},"
                    "{\"name\":\"d\",\"type\":[\"string\",\"int\"],\"default\":\"x\"}]}";
    struct basalt_error err;
    struct basalt_avro_schema *ws, *rs;
    CHECK_OK(basalt_avro_schema_parse(w, strlen(w), NULL, &ws, &err), &err);
    CHECK_OK(basalt_avro_schema_parse(r, strlen(r), NULL, &rs, &err), &err);
    /* rows: (5, 1), (null, true), ("ab", -2) */
    static const uint8_t data[] = {0, 10, 0, 2,         2, 2, 1,
                                   4, 4, 'a', 'b', 0, 3};
    struct basalt_avro_arrow *conv;
    CHECK_OK(basalt_avro_arrow_new(ws, rs, NULL, 0, &conv, &err), &err);
    size_t used;
    CHECK_OK(basalt_avro_arrow_decode(conv, data, sizeof data, 3, &used, &err), &err);
    CHECK_EQ(used, sizeof data);
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_avro_arrow_finish(conv, &s, &a, &err), &err);
    basalt_avro_arrow_free(conv);
    basalt_status st = basalt_arrow_array_validate(&s, &a, BASALT_ARROW_VALIDATE_FULL, &err);
    const struct ArrowSchema *us = s.children[0];
    const struct ArrowArray *ua = a.children[0];
    bool ok = st == BASALT_OK && strcmp(us->format, "+ud:0,1,2") == 0 &&
              (us->flags & ARROW_FLAG_NULLABLE) && us->n_children == 3 &&
              strcmp(us->children[0]->name, "int") == 0 && strcmp(us->children[1]->format, "n") == 0 &&
              strcmp(us->children[2]->format, "u") == 0 &&
              strcmp(s.children[1]->format, "+ud:0,1") == 0 &&
              !(s.children[1]->flags & ARROW_FLAG_NULLABLE) &&
              strcmp(s.children[2]->format, "+ud:0,1") == 0 && ua->null_count == 0;
    static const int8_t codes[] = {0, 1, 2};
    static const int32_t offs[] = {0, 0, 0};
    ok = ok && memcmp(ua->buffers[0], codes, 3) == 0 && memcmp(ua->buffers[1], offs, 12) == 0 &&
         ua->children[0]->length == 1 && i32_at(ua->children[0]->buffers[1], 0) == 5 &&
         ua->children[1]->length == 1 && ua->children[2]->length == 1;
    const struct ArrowArray *va = a.children[1], *da = a.children[2];
    static const int8_t vcodes[] = {0, 1, 0};
    static const int8_t dcodes[] = {0, 0, 0};
    int64_t l1;
    if (ok)
        memcpy(&l1, (const uint8_t *)va->children[0]->buffers[1] + 8, 8);
    ok = ok && memcmp(va->buffers[0], vcodes, 3) == 0 && l1 == -2 &&
         memcmp(da->buffers[0], dcodes, 3) == 0 && da->children[0]->length == 3 &&
         da->children[1]->length == 0;
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
    basalt_avro_schema_free(ws);
    basalt_avro_schema_free(rs);
    CHECK_OK(st, &err);
    CHECK(ok);
}

struct union_sweep {
    struct basalt_avro_schema *schema;
    const uint8_t *data;
    size_t len;
};

static basalt_status union_attempt(void *p)
{
    struct union_sweep *c = p;
    struct basalt_avro_arrow *conv = NULL;
    basalt_status st = basalt_avro_arrow_new(c->schema, NULL, NULL, 0, &conv, NULL);
    if (st == BASALT_OK)
        st = basalt_avro_arrow_decode(conv, c->data, c->len, 3, NULL, NULL);
    if (st == BASALT_OK) {
        struct ArrowSchema schema;
        struct ArrowArray array;
        st = basalt_avro_arrow_finish(conv, &schema, &array, NULL);
        if (st == BASALT_OK) {
            basalt_arrow_array_release(&array);
            basalt_arrow_schema_release(&schema);
        }
    }
    basalt_avro_arrow_free(conv);
    return st;
}

TEST(arrow_union_allocation_failures)
{
    const char *w = "{\"type\":\"record\",\"name\":\"T\",\"fields\":["
                    "{\"name\":\"u\",\"type\":[\"int\",\"null\",\"string\"]},"
                    "{\"name\":\"a\",\"type\":{\"type\":\"array\",\"items\":[\"long\",\"boolean\"]}}]}";
    /* rows: (5, [1]), (null, [true, 2]), ("ab", []) */
    static const uint8_t data[] = {0, 10, 2, 0, 2, 0, 2, 4, 2, 1, 0, 4, 0, 4, 4, 'a', 'b', 0};
    struct union_sweep c = {.data = data, .len = sizeof data};
    struct basalt_error err;
    CHECK_OK(basalt_avro_schema_parse(w, strlen(w), NULL, &c.schema, &err), &err);
    CHECK_OK(union_attempt(&c), NULL);
    CHECK_ALLOC_SWEEP(union_attempt, &c);
    basalt_avro_schema_free(c.schema);
}

/* Iceberg's timestamps without zone: timestamp-* with "adjust-to-utc": false. */
TEST(arrow_iceberg_local_timestamps)
{
    const char *w = "{\"type\":\"record\",\"name\":\"T\",\"fields\":["
                    "{\"name\":\"a\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-micros\","
                    "\"adjust-to-utc\":false}},"
                    "{\"name\":\"b\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-micros\","
                    "\"adjust-to-utc\":true}},"
                    "{\"name\":\"c\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":"
                    "\"timestamp-nanos\",\"adjust-to-utc\":false}]}]}";
    struct basalt_error err;
    struct basalt_avro_schema *ws;
    CHECK_OK(basalt_avro_schema_parse(w, strlen(w), NULL, &ws, &err), &err);
    struct basalt_avro_arrow *conv;
    CHECK_OK(basalt_avro_arrow_new(ws, NULL, NULL, 0, &conv, &err), &err);
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_avro_arrow_finish(conv, &s, &a, &err), &err);
    bool ok = strcmp(s.children[0]->format, "tsu:") == 0 && strcmp(s.children[1]->format, "tsu:UTC") == 0 &&
              strcmp(s.children[2]->format, "tsn:") == 0;
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
    basalt_avro_arrow_free(conv);
    basalt_avro_schema_free(ws);
    CHECK(ok);
}
