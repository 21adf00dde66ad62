/* The Parquet writer's Arrow null type and fixed-size lists, alone and nested
 * in and around structs, lists and maps: tables built here are written,
 * read back by basalt's reader (with and without the ARROW:schema key) and
 * compared value by value and format by format with what was built (with
 * the key the reader restores every fixed-size list, without it reads
 * lists; the file's ARROW:schema is checked to hold the fixed sizes, the
 * arrays read back are validated in full); the schema elements and levels
 * written are checked against the Parquet specification (the LIST form, the
 * Null logical type); unions stay UNSUPPORTED; allocation failures are swept
 * over a small write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basalt/parquet.h"
#include "basalt/parquet_writer.h"
#include "parquet_encoding.h"
#include "parquet_writer.h"
#include "test.h"
#include "writer_test_util.h"

/* ------------------------------------------------------------ writing and reading */

static basalt_status tt_write(const struct ArrowSchema *s, const struct ArrowArray *a,
                              const struct basalt_parquet_writer_options *o, int nbatches,
                              uint8_t **data, size_t *len, struct basalt_error *err)
{
    return wtu_write(s, a, o, nbatches, data, len, NULL, err);
}

static basalt_status tt_read(const uint8_t *data, size_t len, bool ignore_arrow_schema,
                             struct basalt_arrow_batches *b, struct basalt_parquet_reader **reader,
                             struct basalt_error *err)
{
    return wtu_read(data, len, ignore_arrow_schema, b, reader, err);
}

/* ------------------------------------------------------------ comparison */

static bool tt_is_fixed_list(const char *f) { return strncmp(f, "+w:", 3) == 0; }

/* The formats of `got` are those of `want`, but for what basalt's reader
 * makes of the LIST form without the ARROW:schema key (`lists`): a list
 * whatever the list was. */
static bool tt_same_formats(const struct ArrowSchema *want, const struct ArrowSchema *got,
                            bool lists)
{
    const char *w = want->format, *g = got->format;
    bool ok = strcmp(w, g) == 0 ||
              (lists && (tt_is_fixed_list(w) || strcmp(w, "+L") == 0) && strcmp(g, "+l") == 0);
    if (!ok) {
        fprintf(stderr, "  format '%s' read back as '%s'\n", w, g);
        return false;
    }
    if (want->n_children != got->n_children)
        return false;
    for (int64_t k = 0; k < want->n_children; k++)
        if (!tt_same_formats(want->children[k], got->children[k], lists))
            return false;
    return true;
}

static bool tt_valid(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i)
{
    if (strcmp(s->format, "n") == 0)
        return false;
    return a->null_count == 0 || !a->buffers[0] || basalt_bitmap_get(a->buffers[0], a->offset + i);
}

/* The child range of list-like slot `i` (logical) of `a`. */
static void tt_range(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                     int64_t *b, int64_t *e)
{
    int64_t p = a->offset + i;
    if (tt_is_fixed_list(s->format)) {
        int64_t n = atoll(s->format + 3);
        *b = p * n;
        *e = *b + n;
    } else if (strcmp(s->format, "+L") == 0) {
        const int64_t *o = a->buffers[1];
        *b = o[p];
        *e = o[p + 1];
    } else {
        const int32_t *o = a->buffers[1];
        *b = o[p];
        *e = o[p + 1];
    }
}

/* Slot `i` of (s, a) holds the value slot `j` of (t, b) does. */
static bool tt_same(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i,
                    const struct ArrowSchema *t, const struct ArrowArray *b, int64_t j)
{
    bool va = tt_valid(s, a, i), vb = tt_valid(t, b, j);
    if (va != vb)
        return false;
    if (!va)
        return true;
    const char *f = s->format;
    if (strcmp(f, "i") == 0)
        return ((const int32_t *)a->buffers[1])[a->offset + i] ==
               ((const int32_t *)b->buffers[1])[b->offset + j];
    if (strcmp(f, "l") == 0)
        return ((const int64_t *)a->buffers[1])[a->offset + i] ==
               ((const int64_t *)b->buffers[1])[b->offset + j];
    if (strcmp(f, "u") == 0) {
        const int32_t *oa = a->buffers[1], *ob = b->buffers[1];
        int64_t la = oa[a->offset + i + 1] - oa[a->offset + i];
        int64_t lb = ob[b->offset + j + 1] - ob[b->offset + j];
        return la == lb && memcmp((const char *)a->buffers[2] + oa[a->offset + i],
                                  (const char *)b->buffers[2] + ob[b->offset + j],
                                  (size_t)la) == 0;
    }
    if (strcmp(f, "+s") == 0) {
        for (int64_t k = 0; k < s->n_children; k++)
            if (!tt_same(s->children[k], a->children[k], a->offset + i, t->children[k],
                         b->children[k], b->offset + j))
                return false;
        return true;
    }
    /* list, large list, fixed-size list, map */
    int64_t ab, ae, bb, be;
    tt_range(s, a, i, &ab, &ae);
    tt_range(t, b, j, &bb, &be);
    if (ae - ab != be - bb)
        return false;
    for (int64_t k = 0; k < ae - ab; k++)
        if (!tt_same(s->children[0], a->children[0], ab + k, t->children[0], b->children[0],
                     bb + k))
            return false;
    return true;
}

/* Every row of (s, a) is the row at the same place in `got`'s batches. */
static void tt_compare(const struct ArrowSchema *s, const struct ArrowArray *a,
                       const struct basalt_arrow_batches *got, bool lists)
{
    CHECK(tt_same_formats(s, &got->schema, lists));
    if (!tt_same_formats(s, &got->schema, lists))
        return;
    int64_t row = 0;
    for (int64_t k = 0; k < got->n; k++) {
        const struct ArrowArray *b = &got->arrays[k];
        for (int64_t j = 0; j < b->length && row < a->length; j++, row++) {
            if (!tt_same(s, a, row, &got->schema, b, j)) {
                CHECK(!"row read back differs");
                fprintf(stderr, "  at row %lld\n", (long long)row);
                return;
            }
        }
    }
    CHECK_EQ(row, a->length);
}

/* The file's ARROW:schema holds exactly the formats of `s`. */
static void tt_check_stored_schema(const struct basalt_parquet_reader *r,
                                   const struct ArrowSchema *s)
{
    struct basalt_error err;
    const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r);
    bool found = false;
    for (size_t k = 0; k < md->num_key_value_metadata; k++) {
        const struct basalt_parquet_key_value *kv = &md->key_value_metadata[k];
        if (kv->key.len != 12 || memcmp(kv->key.data, "ARROW:schema", 12) != 0)
            continue;
        found = true;
        struct ArrowSchema stored;
        memset(&stored, 0, sizeof stored);
        CHECK_OK(basalt_arrow_ipc_schema_decode_base64(kv->value.data, kv->value.len, &stored,
                                                       NULL, &err),
                 &err);
        if (stored.release)
            CHECK(tt_same_formats(s, &stored, false));
        basalt_arrow_schema_release(&stored);
    }
    CHECK(found);
}

/* Writes (s, a) with `o`, reads it back with and without ARROW:schema and
 * compares both readings with the input. */
static void tt_roundtrip(const struct ArrowSchema *s, const struct ArrowArray *a,
                         const struct basalt_parquet_writer_options *o, int nbatches)
{
    struct basalt_error err;
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(tt_write(s, a, o, nbatches, &data, &len, &err), &err);
    for (int ignore = 0; data && ignore < 2; ignore++) {
        struct basalt_arrow_batches b;
        basalt_arrow_batches_init(&b);
        struct basalt_parquet_reader *r = NULL;
        CHECK_OK(tt_read(data, len, ignore != 0, &b, &r, &err), &err);
        if (b.schema.release)
            tt_compare(s, a, &b, ignore != 0);
        for (int64_t k = 0; k < b.n; k++)
            CHECK_OK(basalt_arrow_array_validate(&b.schema, &b.arrays[k],
                                                 BASALT_ARROW_VALIDATE_FULL, &err),
                     &err);
        if (r && !ignore)
            tt_check_stored_schema(r, s);
        basalt_parquet_reader_close(r);
        basalt_arrow_batches_reset(&b);
    }
    basalt_free(data);
}

/* ------------------------------------------------------------ tables */

struct tt_field {
    const char *format, *name;
    int64_t flags;
    int nkids;
    const struct tt_field *kids;
};

static basalt_status tt_add(struct basalt_arrow_builder *parent, const struct tt_field *f,
                            struct basalt_error *err)
{
    struct basalt_arrow_builder *c = NULL;
    basalt_status st =
        basalt_arrow_builder_add_child(parent, f->format, f->name, f->flags, &c, err);
    /* buffers from the start (see writer_types_zero_size_and_null_lists_levels) */
    if (st == BASALT_OK)
        st = basalt_arrow_builder_reserve(c, 8, err);
    for (int k = 0; k < f->nkids && st == BASALT_OK; k++)
        st = tt_add(c, &f->kids[k], err);
    return st;
}

/* Appends one random value of field `s` (nulls at every nullable level). */
static basalt_status tt_value(struct basalt_arrow_builder *b, const struct ArrowSchema *s,
                              struct bt_rng *rng, struct basalt_error *err)
{
    const char *f = s->format;
    if (strcmp(f, "n") == 0 ||
        ((s->flags & ARROW_FLAG_NULLABLE) && bt_rng_below(rng, 5) == 0))
        return basalt_arrow_builder_append_null(b, err);
    basalt_status st = BASALT_OK;
    if (strcmp(f, "+s") == 0) {
        for (int64_t k = 0; k < s->n_children && st == BASALT_OK; k++)
            st = tt_value(basalt_arrow_builder_child(b, k), s->children[k], rng, err);
        return st == BASALT_OK ? basalt_arrow_builder_end_element(b, err) : st;
    }
    if (f[0] == '+' && (f[1] == 'l' || f[1] == 'L' || f[1] == 'w')) {
        uint64_t n = f[1] == 'w' ? (uint64_t)atoll(f + 3) : bt_rng_below(rng, 4);
        for (uint64_t k = 0; k < n && st == BASALT_OK; k++)
            st = tt_value(basalt_arrow_builder_child(b, 0), s->children[0], rng, err);
        return st == BASALT_OK ? basalt_arrow_builder_end_element(b, err) : st;
    }
    if (strcmp(f, "+m") == 0) {
        struct basalt_arrow_builder *entries = basalt_arrow_builder_child(b, 0);
        uint64_t n = bt_rng_below(rng, 4);
        for (uint64_t k = 0; k < n && st == BASALT_OK; k++) {
            char key[24];
            snprintf(key, sizeof key, "k%llu", (unsigned long long)k);
            st = basalt_arrow_builder_append_string(basalt_arrow_builder_child(entries, 0), key,
                                                    err);
            if (st == BASALT_OK)
                st = tt_value(basalt_arrow_builder_child(entries, 1),
                              s->children[0]->children[1], rng, err);
        }
        return st == BASALT_OK ? basalt_arrow_builder_end_element(b, err) : st;
    }
    uint64_t r = bt_rng_next(rng);
    if (f[0] == 'i')
        return basalt_arrow_builder_append_int(b, (int32_t)(r % 2001) - 1000, err);
    if (f[0] == 'l')
        return basalt_arrow_builder_append_int(b, (int64_t)r, err);
    char buf[32];
    int n = snprintf(buf, sizeof buf, "s%llu", (unsigned long long)(r % 40));
    return basalt_arrow_builder_append_bytes(b, buf, n, err);
}

static basalt_status tt_table(const struct tt_field *fields, size_t nf, uint64_t seed, int64_t rows,
                              struct ArrowSchema *schema, struct ArrowArray *array,
                              struct basalt_error *err)
{
    struct basalt_arrow_builder *root = NULL;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, err);
    for (size_t k = 0; k < nf && st == BASALT_OK; k++)
        st = tt_add(root, &fields[k], err);
    struct ArrowSchema s;
    memset(&s, 0, sizeof s);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_schema(root, &s, err);
    struct bt_rng rng;
    bt_rng_seed(&rng, seed);
    for (int64_t r = 0; r < rows && st == BASALT_OK; r++) {
        for (size_t k = 0; k < nf && st == BASALT_OK; k++)
            st = tt_value(basalt_arrow_builder_child(root, (int64_t)k), s.children[k], &rng, err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, err);
    }
    basalt_arrow_schema_release(&s);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(root, schema, array, err);
    basalt_arrow_builder_free(root);
    return st;
}

#define N ARROW_FLAG_NULLABLE
static const struct tt_field tt_int[] = {{"i", "item", N, 0, NULL}};
static const struct tt_field tt_int_req[] = {{"i", "item", 0, 0, NULL}};
static const struct tt_field tt_null[] = {{"n", "item", N, 0, NULL}};
static const struct tt_field tt_ab[] = {{"i", "a", N, 0, NULL}, {"u", "b", N, 0, NULL}};
static const struct tt_field tt_ab_struct[] = {{"+s", "item", N, 2, tt_ab}};
static const struct tt_field tt_fixed2_int[] = {{"+w:2", "item", N, 1, tt_int}};
static const struct tt_field tt_fixed3_int[] = {{"+w:3", "item", N, 1, tt_int}};
static const struct tt_field tt_null_in_struct[] = {{"n", "nothing", N, 0, NULL},
                                                    {"i", "v", N, 0, NULL},
                                                    {"n", "never", 0, 0, NULL}};
static const struct tt_field tt_map_kv[] = {{"u", "key", 0, 0, NULL},
                                            {"+w:2", "value", N, 1, tt_int}};
static const struct tt_field tt_list_of_fixed_struct[] = {
    {"+w:1", "item", N, 1, tt_ab_struct}};
static const struct tt_field tt_struct_of_fixed[] = {{"+w:2", "inner", N, 1, tt_int},
                                                     {"i", "z", 0, 0, NULL}};
static const struct tt_field tt_fields[] = {
    {"+w:3", "fl", N, 1, tt_int},
    {"+w:0", "f0", N, 1, tt_int_req},
    {"+w:2", "freq", 0, 1, tt_int_req},
    {"+w:2", "fs", N, 1, tt_ab_struct},
    {"+l", "lf", N, 1, tt_fixed2_int},
    {"+w:2", "ff", N, 1, tt_fixed3_int},
    {"+s", "sn", N, 3, tt_null_in_struct},
    {"+m", "mv", N, 2, tt_map_kv},
    {"+l", "ln", N, 1, tt_null},
    {"+w:2", "fn", N, 1, tt_null},
    {"n", "top_null", N, 0, NULL},
    {"+L", "lfs", N, 1, tt_list_of_fixed_struct},
    {"l", "flat", 0, 0, NULL},
    {"+s", "sf", N, 2, tt_struct_of_fixed},
};
#undef N

/* ------------------------------------------------------------ tests */

TEST(writer_types_null_column)
{
    struct basalt_error err;
    struct basalt_arrow_builder *root = NULL, *n1 = NULL, *n2 = NULL, *x = NULL;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "n", "nothing", ARROW_FLAG_NULLABLE, &n1, &err),
             &err);
    /* declared non-nullable, as some producers do: still every slot null */
    CHECK_OK(basalt_arrow_builder_add_child(root, "n", "required_nothing", 0, &n2, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "i", "x", ARROW_FLAG_NULLABLE, &x, &err), &err);
    for (int r = 0; r < 7; r++) {
        CHECK_OK(basalt_arrow_builder_append_null(n1, &err), &err);
        CHECK_OK(basalt_arrow_builder_append_null(n2, &err), &err);
        CHECK_OK(basalt_arrow_builder_append_int(x, r * 3, &err), &err);
        CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    }
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_finish(root, &s, &a, &err), &err);
    basalt_arrow_builder_free(root);
    CHECK_STR(s.children[0]->format, "n");

    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.page_rows = 3;
    for (int v = 1; v <= 2; v++) {
        o.page_version = v;
        tt_roundtrip(&s, &a, &o, 2);
    }
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(tt_write(&s, &a, &o, 1, &data, &len, &err), &err);
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    struct basalt_parquet_reader *r = NULL;
    /* without ARROW:schema the Null logical type alone gives the null type */
    CHECK_OK(tt_read(data, len, true, &b, &r, &err), &err);
    if (r) {
        CHECK_STR(b.schema.children[0]->format, "n");
        CHECK_STR(b.schema.children[1]->format, "n");
        const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r);
        CHECK_EQ(md->num_schema, 4);
        CHECK_EQ(md->num_rows, 7);
        for (size_t k = 1; k <= 2 && md->num_schema == 4; k++) {
            /* the Parquet spec: Null "must annotate an optional field"; the
             * physical type is free (Arrow C++ writes INT32) */
            const struct basalt_parquet_schema_element *e = &md->schema[k];
            CHECK(e->has_type);
            CHECK_EQ(e->type, BASALT_PARQUET_TYPE_INT32);
            CHECK(e->has_repetition_type);
            CHECK_EQ(e->repetition_type, BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL);
            CHECK(e->has_logical_type);
            CHECK_EQ(e->logical_type.kind, BASALT_PARQUET_LOGICAL_TYPE_UNKNOWN);
            CHECK(!e->has_converted_type);
            CHECK(!e->has_num_children);
        }
        for (size_t g = 0; g < md->num_row_groups; g++) {
            for (int c = 0; c < 2; c++) {
                const struct basalt_parquet_column_metadata *m =
                    &md->row_groups[g].columns[c].meta_data;
                CHECK_EQ(m->num_values, md->row_groups[g].num_rows);
                CHECK(m->has_statistics);
                const struct basalt_parquet_statistics *st = &m->statistics;
                CHECK(st->has_null_count);
                CHECK_EQ(st->null_count, md->row_groups[g].num_rows);
                CHECK(!st->has_min_value && !st->has_max_value && !st->has_min && !st->has_max);
            }
        }
        int64_t rows = 0;
        for (int64_t k = 0; k < b.n; k++) {
            const struct ArrowArray *arr = b.arrays[k].children[0];
            CHECK_EQ(arr->null_count, arr->length);
            rows += arr->length;
        }
        CHECK_EQ(rows, 7);
    }
    basalt_parquet_reader_close(r);
    basalt_arrow_batches_reset(&b);
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

/* Decodes the levels of the first data page (v2) of `data`. */
static void tt_first_page_levels(const uint8_t *data, size_t len, int16_t max_rep,
                                 int16_t max_def, int32_t want_values, int32_t want_rows,
                                 int32_t want_nulls, const int16_t *want_rep,
                                 const int16_t *want_def)
{
    struct basalt_error err;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_parquet_page_header ph;
    memset(&ph, 0, sizeof ph);
    size_t hl = 0;
    CHECK_OK(basalt_thrift_decode_page_header(data + 4, len - 4, &arena, NULL, &ph, &hl, &err),
             &err);
    CHECK(ph.has_data_page_header_v2);
    if (ph.has_data_page_header_v2) {
        const struct basalt_parquet_data_page_header_v2 *h = &ph.data_page_header_v2;
        CHECK_EQ(h->num_values, want_values);
        CHECK_EQ(h->num_rows, want_rows);
        CHECK_EQ(h->num_nulls, want_nulls);
        int16_t rep[16], def[16];
        size_t n = (size_t)want_values;
        struct basalt_parquet_rle_decoder dec;
        const uint8_t *p = data + 4 + hl;
        CHECK_OK(basalt_parquet_levels_init(&dec, p, (size_t)h->repetition_levels_byte_length,
                                            max_rep, n, false, NULL, &err),
                 &err);
        CHECK_OK(basalt_parquet_levels_decode(&dec, n, max_rep, rep, &err), &err);
        CHECK_OK(basalt_parquet_levels_init(&dec, p + h->repetition_levels_byte_length,
                                            (size_t)h->definition_levels_byte_length, max_def, n,
                                            false, NULL, &err),
                 &err);
        CHECK_OK(basalt_parquet_levels_decode(&dec, n, max_def, def, &err), &err);
        CHECK_MEM(rep, want_rep, n * sizeof *rep);
        CHECK_MEM(def, want_def, n * sizeof *def);
    }
    basalt_arena_reset(&arena);
}

TEST(writer_types_fixed_list_levels_and_schema)
{
    /* fl: [[1, null], null, [3, 4]] -> rep 0 1 0 0 1, def 3 2 0 3 3; the
     * null list's two child slots hold values that must not be written */
    struct basalt_error err;
    struct basalt_arrow_builder *root = NULL, *l = NULL, *item = NULL;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "+w:2", "fl", ARROW_FLAG_NULLABLE, &l, &err),
             &err);
    CHECK_OK(basalt_arrow_builder_add_child(l, "i", "item", ARROW_FLAG_NULLABLE, &item, &err),
             &err);
    CHECK_OK(basalt_arrow_builder_append_int(item, 1, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(item, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(l, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(l, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(item, 3, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_int(item, 4, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(l, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_finish(root, &s, &a, &err), &err);
    basalt_arrow_builder_free(root);
    struct ArrowArray *child = a.children[0]->children[0];
    CHECK_EQ(child->length, 6);
    if (child->length == 6 && child->buffers[0]) {
        /* slots 2 and 3 sit under the null list: make them valid values */
        uint8_t *bits;
        int32_t *vals;
        memcpy(&bits, &child->buffers[0], sizeof bits);
        memcpy(&vals, &child->buffers[1], sizeof vals);
        basalt_bitmap_set(bits, child->offset + 2, true);
        basalt_bitmap_set(bits, child->offset + 3, true);
        vals[child->offset + 2] = 98;
        vals[child->offset + 3] = 99;
        child->null_count = 1;
    }
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.codec = BASALT_CODEC_UNCOMPRESSED;
    o.dictionary = false;
    o.page_version = 2;
    tt_roundtrip(&s, &a, &o, 1);
    tt_roundtrip(&s, &a, &o, 3);
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(tt_write(&s, &a, &o, 1, &data, &len, &err), &err);
    if (data) {
        static const int16_t want_rep[5] = {0, 1, 0, 0, 1}, want_def[5] = {3, 2, 0, 3, 3};
        tt_first_page_levels(data, len, 1, 3, 5, 3, 2, want_rep, want_def);
        struct basalt_arrow_batches b;
        basalt_arrow_batches_init(&b);
        struct basalt_parquet_reader *r = NULL;
        CHECK_OK(tt_read(data, len, false, &b, &r, &err), &err);
        if (r) {
            /* the three-level LIST form of the Parquet spec */
            const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r);
            CHECK_EQ(md->num_schema, 4);
            if (md->num_schema == 4) {
                const struct basalt_parquet_schema_element *g = &md->schema[1],
                                                           *rep = &md->schema[2],
                                                           *el = &md->schema[3];
                CHECK(!g->has_type);
                CHECK_EQ(g->repetition_type, BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL);
                CHECK(g->has_converted_type);
                CHECK_EQ(g->converted_type, BASALT_PARQUET_CONVERTED_TYPE_LIST);
                CHECK(g->has_logical_type);
                CHECK_EQ(g->logical_type.kind, BASALT_PARQUET_LOGICAL_TYPE_LIST);
                CHECK_EQ(g->num_children, 1);
                CHECK(!rep->has_type);
                CHECK_EQ(rep->repetition_type, BASALT_PARQUET_FIELD_REPETITION_TYPE_REPEATED);
                CHECK_EQ(rep->num_children, 1);
                CHECK(!rep->has_converted_type && !rep->has_logical_type);
                CHECK_EQ(rep->name.len, 4);
                CHECK(rep->name.len == 4 && memcmp(rep->name.data, "list", 4) == 0);
                CHECK(el->has_type);
                CHECK_EQ(el->type, BASALT_PARQUET_TYPE_INT32);
                CHECK_EQ(el->repetition_type, BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL);
                CHECK(el->name.len == 7 && memcmp(el->name.data, "element", 7) == 0);
            }
            /* basalt's reader restores the fixed size from ARROW:schema; the
             * null list takes two slots of empty values */
            CHECK_STR(b.schema.children[0]->format, "+w:2");
            CHECK_EQ(b.n, 1);
            if (b.n == 1 && strcmp(b.schema.children[0]->format, "+w:2") == 0) {
                const struct ArrowArray *fl = b.arrays[0].children[0];
                const struct ArrowArray *items = fl->children[0];
                CHECK_EQ(fl->length, 3);
                CHECK_EQ(fl->null_count, 1);
                CHECK(fl->buffers[0] && !basalt_bitmap_get(fl->buffers[0], fl->offset + 1));
                CHECK_EQ(items->length, 6);
                CHECK_EQ(items->null_count, 1);
                const int32_t *v = items->buffers[1];
                static const int32_t want[6] = {1, 0, 0, 0, 3, 4};
                static const bool valid[6] = {true, false, true, true, true, true};
                for (int k = 0; k < 6 && items->length == 6; k++) {
                    CHECK_EQ(basalt_bitmap_get(items->buffers[0], items->offset + k), valid[k]);
                    if (valid[k])
                        CHECK_EQ(v[items->offset + k], want[k]);
                }
            }
            const struct basalt_parquet_column_metadata *m =
                &md->row_groups[0].columns[0].meta_data;
            CHECK_EQ(m->num_values, 5);
            CHECK(m->has_statistics);
            CHECK_EQ(m->statistics.null_count, 2);
            CHECK(m->statistics.has_min_value && m->statistics.min_value.len == 4);
            CHECK(m->statistics.has_max_value && m->statistics.max_value.len == 4);
            if (m->statistics.has_max_value && m->statistics.max_value.len == 4) {
                int32_t mx, mn;
                memcpy(&mx, m->statistics.max_value.data, 4);
                memcpy(&mn, m->statistics.min_value.data, 4);
                CHECK_EQ(mn, 1);
                CHECK_EQ(mx, 4); /* not 99: the null list's slots are not values */
            }
        }
        basalt_parquet_reader_close(r);
        basalt_arrow_batches_reset(&b);
    }
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

TEST(writer_types_zero_size_and_null_lists_levels)
{
    /* f0: +w:0 [[], null, []] -> rep 0 0 0, def 1 0 1;
     * ln: list<null> [[null, null], [], null] -> rep 0 1 0 0, def 2 2 1 0 */
    struct basalt_error err;
    struct basalt_arrow_builder *root = NULL, *l = NULL, *item = NULL;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "+w:0", "f0", ARROW_FLAG_NULLABLE, &l, &err),
             &err);
    /* A required item with room for values it never gets: for a null list
     * of no values the builder's filler would otherwise pass a NULL buffer
     * to memset (a nullable item's validity, or its values). */
    CHECK_OK(basalt_arrow_builder_add_child(l, "i", "item", 0, &item, &err), &err);
    CHECK_OK(basalt_arrow_builder_reserve(item, 8, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(l, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(l, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(l, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_finish(root, &s, &a, &err), &err);
    basalt_arrow_builder_free(root);
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.codec = BASALT_CODEC_UNCOMPRESSED;
    o.dictionary = false;
    o.page_version = 2;
    tt_roundtrip(&s, &a, &o, 2);
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(tt_write(&s, &a, &o, 1, &data, &len, &err), &err);
    if (data) {
        static const int16_t want_rep[3] = {0, 0, 0}, want_def[3] = {1, 0, 1};
        tt_first_page_levels(data, len, 1, 3, 3, 3, 3, want_rep, want_def);
    }
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);

    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "+l", "ln", ARROW_FLAG_NULLABLE, &l, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(l, "n", "item", ARROW_FLAG_NULLABLE, &item, &err),
             &err);
    CHECK_OK(basalt_arrow_builder_append_nulls(item, 2, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(l, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(l, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    CHECK_OK(basalt_arrow_builder_append_null(l, &err), &err);
    CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    CHECK_OK(basalt_arrow_builder_finish(root, &s, &a, &err), &err);
    basalt_arrow_builder_free(root);
    tt_roundtrip(&s, &a, &o, 2);
    CHECK_OK(tt_write(&s, &a, &o, 1, &data, &len, &err), &err);
    if (data) {
        static const int16_t want_rep[4] = {0, 1, 0, 0}, want_def[4] = {2, 2, 1, 0};
        tt_first_page_levels(data, len, 1, 3, 4, 3, 4, want_rep, want_def);
    }
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

TEST(writer_types_nested_roundtrip)
{
    struct basalt_error err;
    struct ArrowSchema s;
    struct ArrowArray a;
    size_t nf = sizeof tt_fields / sizeof tt_fields[0];
    CHECK_OK(tt_table(tt_fields, nf, 7, 400, &s, &a, &err), &err);
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    tt_roundtrip(&s, &a, &o, 1);
    o.page_rows = 7;
    o.row_group_rows = 150;
    o.page_version = 2;
    o.dictionary = false;
    tt_roundtrip(&s, &a, &o, 3);
    o.simple_paths = true;
    o.dictionary = true;
    o.codec = BASALT_CODEC_UNCOMPRESSED;
    tt_roundtrip(&s, &a, &o, 4);

    /* the same table as a slice of itself: fixed-size lists at an offset */
    struct ArrowArray view = a;
    view.offset = 13;
    view.length = a.length - 13;
    basalt_parquet_writer_options_init(&o);
    o.page_rows = 50;
    tt_roundtrip(&s, &view, &o, 2);
    /* fixed-size list arrays with offsets of their own (fl, fs, ff, fn) */
    static const int shifted[] = {0, 3, 5, 9};
    for (size_t k = 0; k < sizeof shifted / sizeof shifted[0]; k++) {
        struct ArrowArray *c = a.children[shifted[k]];
        CHECK(tt_is_fixed_list(s.children[shifted[k]]->format));
        c->offset += 5;
        c->length -= 5;
        c->null_count = -1;
    }
    view.offset = 0;
    view.length = a.length - 5;
    tt_roundtrip(&s, &view, &o, 3);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

/* Fixed-size lists and null leaves in runs of slices: the same bytes as
 * slice-by-slice encoding (simple_paths) where row groups are cut by bytes,
 * so the bound on what their slices add holds. */
static void tt_write_counted(const struct ArrowSchema *s, const struct ArrowArray *a,
                             const struct basalt_parquet_writer_options *o, uint8_t **data,
                             size_t *len, struct basalt_parquet_wcounters *counters)
{
    struct basalt_error err;
    CHECK_OK(wtu_write(s, a, o, 1, data, len, counters, &err), &err);
}

TEST(writer_types_runs_match_slices)
{
    struct basalt_error err;
    struct ArrowSchema s;
    struct ArrowArray a;
    size_t nf = sizeof tt_fields / sizeof tt_fields[0];
    int64_t runs = 0, groups = 0;
    /* every field alone (so that no other column's bound hides a wrong
     * one), then all of them */
    for (size_t f = 0; f <= nf; f++) {
        const struct tt_field *fields = f < nf ? &tt_fields[f] : tt_fields;
        CHECK_OK(tt_table(fields, f < nf ? 1 : nf, 11 + f, 30000, &s, &a, &err), &err);
        static const int64_t cut_bytes[] = {20000, 150000, INT64_C(64) << 20};
        for (size_t k = 0; k < sizeof cut_bytes / sizeof cut_bytes[0]; k++) {
            struct basalt_parquet_writer_options o;
            basalt_parquet_writer_options_init(&o);
            o.row_group_rows = 0;
            o.row_group_bytes = cut_bytes[k];
            o.codec = BASALT_CODEC_UNCOMPRESSED;
            uint8_t *fast = NULL, *simple = NULL;
            size_t fl = 0, sl = 0;
            struct basalt_parquet_wcounters c;
            tt_write_counted(&s, &a, &o, &fast, &fl, &c);
            runs += c.slice_runs;
            o.simple_paths = true;
            tt_write_counted(&s, &a, &o, &simple, &sl, &c);
            CHECK_EQ(c.slice_runs, 0);
            CHECK_EQ(fl, sl);
            if (fast && simple && fl == sl)
                CHECK(memcmp(fast, simple, fl) == 0);
            struct basalt_arrow_batches b;
            basalt_arrow_batches_init(&b);
            struct basalt_parquet_reader *r = NULL;
            CHECK_OK(tt_read(fast, fl, false, &b, &r, &err), &err);
            if (r)
                groups += (int64_t)basalt_parquet_reader_metadata(r)->num_row_groups;
            basalt_parquet_reader_close(r);
            basalt_arrow_batches_reset(&b);
            basalt_free(fast);
            basalt_free(simple);
        }
        basalt_arrow_array_release(&a);
        basalt_arrow_schema_release(&s);
    }
    CHECK(runs > 0);
    CHECK(groups > 4 * (int64_t)nf); /* the small cuts made several row groups */
}

TEST(writer_types_unions_stay_unsupported)
{
    /* struct<u: sparse_union<a: int32>> */
    struct basalt_error err;
    struct ArrowSchema s;
    CHECK_OK(basalt_arrow_schema_init(&s, "+s", "", 0, 1, &err), &err);
    if (!s.release)
        return;
    CHECK_OK(basalt_arrow_schema_init(s.children[0], "+us:0", "u", ARROW_FLAG_NULLABLE, 1, &err),
             &err);
    if (s.children[0]->release)
        CHECK_OK(basalt_arrow_schema_init(s.children[0]->children[0], "i", "a",
                                          ARROW_FLAG_NULLABLE, 0, &err),
                 &err);
    struct basalt_output *out = NULL;
    struct basalt_parquet_writer *w = NULL;
    CHECK_OK(basalt_output_open_memory("m", &out, &err), &err);
    CHECK_STATUS(basalt_parquet_writer_open(out, true, &s, NULL, &w, &err), BASALT_UNSUPPORTED,
                 &err);
    basalt_parquet_writer_close(w);
    basalt_arrow_schema_release(&s);
}

TEST(writer_types_allocation_failures)
{
    struct basalt_error err;
    struct wtu_sweep k;
    size_t nf = sizeof tt_fields / sizeof tt_fields[0];
    CHECK_OK(tt_table(tt_fields, nf, 3, 24, &k.s, &k.a, &err), &err);
    basalt_parquet_writer_options_init(&k.o);
    k.o.page_rows = 8;
    k.o.row_group_rows = 16;
    CHECK_ALLOC_SWEEP(wtu_sweep_write, &k);
    basalt_arrow_array_release(&k.a);
    basalt_arrow_schema_release(&k.s);
}

/* Reading the table back restores its fixed-size lists, null lists padded:
 * every allocation failure along the way is a clean NOMEM. */
struct tt_read_sweep {
    const uint8_t *data;
    size_t len;
};

static basalt_status tt_read_attempt(void *p)
{
    const struct tt_read_sweep *k = p;
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    basalt_status st = tt_read(k->data, k->len, false, &b, NULL, NULL);
    if (st == BASALT_OK && (b.schema.n_children < 1 || strcmp(b.schema.children[0]->format,
                                                              "+w:3") != 0))
        st = BASALT_INTERNAL;
    basalt_arrow_batches_reset(&b);
    return st;
}

TEST(writer_types_read_allocation_failures)
{
    struct basalt_error err;
    struct ArrowSchema s;
    struct ArrowArray a;
    size_t nf = sizeof tt_fields / sizeof tt_fields[0];
    CHECK_OK(tt_table(tt_fields, nf, 5, 24, &s, &a, &err), &err);
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.row_group_rows = 16;
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(tt_write(&s, &a, &o, 1, &data, &len, &err), &err);
    if (data) {
        struct tt_read_sweep k = {data, len};
        CHECK_ALLOC_SWEEP(tt_read_attempt, &k);
    }
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}

/* ------------------------------------------------------------ decimal32 / decimal64 */

/* Runs `cmd` and keeps its standard output; false when it fails. */
static bool tt_run(const char *cmd, struct basalt_buffer *out)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return false;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        if (basalt_buffer_append(out, buf, n, NULL) != BASALT_OK)
            abort();
    return pclose(p) == 0;
}

static bool tt_have_duckdb(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/node_modules/@duckdb/node-api/package.json",
             BASALT_TEST_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    if (f)
        fclose(f);
    return f && system("command -v node >/dev/null 2>&1") == 0;
}

/* decimal32 and decimal64 inputs (alone and in a list) are written as INT32
 * and INT64 DECIMAL(p, s) with the ARROW:schema that names their width.
 * basalt's reader gives the widths back with the same values; DuckDB reads
 * the file as DECIMAL(9,2), DECIMAL(18,3) and DECIMAL(5,1)[] with the same
 * decimals (tests/parquet/duckdb_json.mjs's rows, written out here). */
TEST(writer_types_decimal32_64_duckdb)
{
    struct basalt_error err;
    struct basalt_arrow_builder *root = NULL, *d32 = NULL, *d64 = NULL, *l = NULL, *item = NULL;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "d:9,2,32", "d32", ARROW_FLAG_NULLABLE, &d32,
                                            &err),
             &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "d:18,3,64", "d64", ARROW_FLAG_NULLABLE, &d64,
                                            &err),
             &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "+l", "l", ARROW_FLAG_NULLABLE, &l, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(l, "d:5,1,32", "item", ARROW_FLAG_NULLABLE, &item,
                                            &err),
             &err);
    static const int64_t v32[6] = {0, -1, 123456789, -999999999, 0, 5};
    static const int64_t v64[6] = {0, 1, -999999999999999999ll, 123456789012345678ll, 42, 0};
    static const int64_t items[6][2] = {{15, -20}, {0, 0}, {0, 0}, {99999, 0}, {0, 0}, {-99999, 0}};
    static const int n_items[6] = {2, 0, -1, 1, 1, 1};
    for (int r = 0; r < 6; r++) {
        if (r == 4)
            CHECK_OK(basalt_arrow_builder_append_null(d32, &err), &err);
        else
            CHECK_OK(basalt_arrow_builder_append_int(d32, v32[r], &err), &err);
        if (r == 5)
            CHECK_OK(basalt_arrow_builder_append_null(d64, &err), &err);
        else
            CHECK_OK(basalt_arrow_builder_append_int(d64, v64[r], &err), &err);
        if (n_items[r] < 0) {
            CHECK_OK(basalt_arrow_builder_append_null(l, &err), &err);
        } else {
            for (int k = 0; k < n_items[r]; k++)
                CHECK_OK(basalt_arrow_builder_append_int(item, items[r][k], &err), &err);
            CHECK_OK(basalt_arrow_builder_end_element(l, &err), &err);
        }
        CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    }
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_finish(root, &s, &a, &err), &err);
    basalt_arrow_builder_free(root);
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(tt_write(&s, &a, NULL, 2, &data, &len, &err), &err);
    if (data) {
        struct basalt_arrow_batches b;
        basalt_arrow_batches_init(&b);
        struct basalt_parquet_reader *r = NULL;
        CHECK_OK(tt_read(data, len, false, &b, &r, &err), &err);
        if (r) {
            const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r);
            CHECK_EQ(md->num_schema, 6);
            if (md->num_schema == 6) {
                CHECK_EQ(md->schema[1].type, BASALT_PARQUET_TYPE_INT32);
                CHECK_EQ(md->schema[2].type, BASALT_PARQUET_TYPE_INT64);
                CHECK_EQ(md->schema[5].type, BASALT_PARQUET_TYPE_INT32);
            }
            CHECK_STR(b.schema.children[0]->format, "d:9,2,32");
            CHECK_STR(b.schema.children[1]->format, "d:18,3,64");
            CHECK_STR(b.schema.children[2]->children[0]->format, "d:5,1,32");
            int64_t row = 0;
            for (int64_t k = 0; k < b.n && strcmp(b.schema.children[0]->format, "d:9,2,32") == 0 &&
                                strcmp(b.schema.children[1]->format, "d:18,3,64") == 0;
                 k++) {
                const struct ArrowArray *c32 = b.arrays[k].children[0];
                const struct ArrowArray *c64 = b.arrays[k].children[1];
                for (int64_t i = 0; i < b.arrays[k].length && row < 6; i++, row++) {
                    CHECK_EQ(tt_valid(b.schema.children[0], c32, i), row != 4);
                    CHECK_EQ(tt_valid(b.schema.children[1], c64, i), row != 5);
                    if (row != 4)
                        CHECK_EQ(((const int32_t *)c32->buffers[1])[c32->offset + i], v32[row]);
                    if (row != 5)
                        CHECK_EQ(((const int64_t *)c64->buffers[1])[c64->offset + i], v64[row]);
                }
            }
            CHECK_EQ(row, 6);
        }
        basalt_parquet_reader_close(r);
        basalt_arrow_batches_reset(&b);
    }
    if (!tt_have_duckdb()) {
        const char *required = getenv("BASALT_REQUIRE_PEERS");
        CHECK_MSG(!required || strcmp(required, "1") != 0,
                  "node or node_modules/@duckdb/node-api missing (run scripts/setup)");
        printf("SKIP writer_types_decimal32_64_duckdb: DuckDB's reading (node or "
               "node_modules/@duckdb/node-api missing)\n");
    } else if (data) {
        char path[] = "/tmp/basalt_decimal_XXXXXX";
        int fd = mkstemp(path);
        FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
        CHECK(f != NULL);
        if (f) {
            CHECK_EQ(fwrite(data, 1, len, f), len);
            fclose(f);
            char cmd[2048];
            struct basalt_buffer out;
            basalt_buffer_init(&out);
            snprintf(cmd, sizeof cmd,
                     "cd '%s' && node tests/parquet/duckdb_query.mjs '%s' "
                     "\"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM f)\"",
                     BASALT_TEST_SOURCE_DIR, path);
            CHECK(tt_run(cmd, &out));
            static const char types[] =
                "d32 DECIMAL(9,2)\nd64 DECIMAL(18,3)\nl DECIMAL(5,1)[]\n";
            CHECK_MSG(out.size == strlen(types) && memcmp(out.data, types, out.size) == 0,
                      "DuckDB's types:\n%.*s", (int)out.size, (const char *)out.data);
            out.size = 0;
            snprintf(cmd, sizeof cmd, "cd '%s' && node tests/parquet/duckdb_json.mjs '%s'",
                     BASALT_TEST_SOURCE_DIR, path);
            CHECK(tt_run(cmd, &out));
            static const char rows[] =
                "{\"d32\":\"0.00\",\"d64\":\"0.000\",\"l\":[\"1.5\",\"-2.0\"]}\n"
                "{\"d32\":\"-0.01\",\"d64\":\"0.001\",\"l\":[]}\n"
                "{\"d32\":\"1234567.89\",\"d64\":\"-999999999999999.999\",\"l\":null}\n"
                "{\"d32\":\"-9999999.99\",\"d64\":\"123456789012345.678\",\"l\":[\"9999.9\"]}\n"
                "{\"d32\":null,\"d64\":\"0.042\",\"l\":[\"0.0\"]}\n"
                "{\"d32\":\"0.05\",\"d64\":null,\"l\":[\"-9999.9\"]}\n";
            CHECK_MSG(out.size == strlen(rows) && memcmp(out.data, rows, out.size) == 0,
                      "DuckDB's rows:\n%.*s", (int)out.size, (const char *)out.data);
            basalt_buffer_reset(&out);
        }
        unlink(path);
    }
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}
