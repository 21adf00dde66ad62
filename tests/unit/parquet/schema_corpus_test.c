/* The schema of every file of the parquet-testing corpus, mapped to Arrow and
 * compared with schema_expected.tsv (derived without basalt: see its header),
 * the ARROW:schema keys compared with schema_arrow_expected.tsv (decoded by
 * apache-arrow), and the leaves compared with the paths the writers stored in
 * ColumnMetaData. */
#include <stdlib.h>

#include "basalt/parquet_format.h"
#include "parquet_schema.h"
#include "test.h"

/* Canonical text of a schema (shared with the other schema tests):
 *   name:format[?][!][[dictionary]][<children>][{key=value;...}]
 * metadata sorted by key; the top level without name and metadata when
 * `top` says so. */
void pq_test_render(const struct ArrowSchema *s, struct basalt_buffer *out, bool with_name,
                    bool with_metadata);

/* A decoded footer and the arena holding it. */
struct pq_footer {
    struct basalt_arena arena;
    struct basalt_parquet_file_metadata md;
};

/* Reads the footer of the corpus file `rel` (relative to corpus/parquet-testing).
 * Returns the decoder's status. */
basalt_status pq_test_footer(const char *rel, struct pq_footer *f, struct basalt_error *err);

static void put(struct basalt_buffer *out, const char *s, size_t n)
{
    if (basalt_buffer_append(out, s, n, NULL) != BASALT_OK)
        abort();
}

static void puts_(struct basalt_buffer *out, const char *s) { put(out, s, strlen(s)); }

static int item_cmp(const void *a, const void *b)
{
    const struct basalt_arrow_metadata_item *x = a, *y = b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->key, y->key, n);
    return c ? c : (x->key_len > y->key_len) - (x->key_len < y->key_len);
}

void pq_test_render(const struct ArrowSchema *s, struct basalt_buffer *out, bool with_name,
                    bool with_metadata)
{
    if (with_name) {
        puts_(out, s->name ? s->name : "(null)");
        puts_(out, ":");
    }
    puts_(out, s->format);
    if (s->flags & ARROW_FLAG_NULLABLE)
        puts_(out, "?");
    if (s->flags & ARROW_FLAG_DICTIONARY_ORDERED)
        puts_(out, "!");
    if (s->flags & ARROW_FLAG_MAP_KEYS_SORTED)
        puts_(out, "^");
    if (s->dictionary) {
        puts_(out, "[");
        pq_test_render(s->dictionary, out, false, true);
        puts_(out, "]");
    }
    if (s->n_children) {
        puts_(out, "<");
        for (int64_t i = 0; i < s->n_children; i++) {
            if (i)
                puts_(out, ",");
            pq_test_render(s->children[i], out, true, true);
        }
        puts_(out, ">");
    }
    if (s->metadata && with_metadata) {
        struct basalt_arrow_metadata_reader r;
        struct basalt_arrow_metadata_item items[64];
        if (basalt_arrow_metadata_reader_init(&r, s->metadata, NULL) != BASALT_OK)
            abort();
        int n = 0;
        while (n < 64 && basalt_arrow_metadata_reader_next(&r, &items[n]))
            n++;
        qsort(items, (size_t)n, sizeof items[0], item_cmp);
        puts_(out, "{");
        for (int i = 0; i < n; i++) {
            if (i)
                puts_(out, ";");
            put(out, items[i].key, items[i].key_len);
            puts_(out, "=");
            put(out, items[i].value, items[i].value_len);
        }
        puts_(out, "}");
    }
}

basalt_status pq_test_footer(const char *rel, struct pq_footer *f, struct basalt_error *err)
{
    char path[512];
    snprintf(path, sizeof path, "parquet-testing/%s", rel);
    basalt_arena_init(&f->arena, 0);
    size_t len;
    uint8_t *data = bt_read_file(bt_testdata_path(path), &len);
    if (!data)
        return basalt_error_set(err, BASALT_IO, "cannot read %s", path);
    uint32_t footer_len;
    basalt_status st = len < 12 ? BASALT_CORRUPT
                                : basalt_thrift_decode_trailer(data + len - 8, len, &footer_len, err);
    if (st == BASALT_OK)
        st = basalt_thrift_decode_file_metadata(data + len - 8 - footer_len, footer_len,
                                                &f->arena, NULL, &f->md, err);
    basalt_free(data);
    return st;
}

/* The fields of `schema` without the top-level struct: "f1,f2,...". */
static const char *render_fields(const struct ArrowSchema *schema, struct basalt_buffer *buf)
{
    buf->size = 0;
    for (int64_t i = 0; i < schema->n_children; i++) {
        if (i)
            puts_(buf, ",");
        pq_test_render(schema->children[i], buf, true, true);
    }
    put(buf, "", 1);
    return (const char *)buf->data;
}

/* Calls fn(path, expected) for every line of the TSV `name` beside this file. */
static int for_each_line(const char *name, void (*fn)(const char *, const char *, void *),
                         void *ctx)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/unit/parquet/%s", BASALT_TEST_SOURCE_DIR, name);
    size_t len;
    uint8_t *text = bt_read_file(path, &len);
    if (!text)
        return -1;
    char *p = (char *)text, *end = p + len;
    int lines = 0;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            nl = end;
        *nl = '\0';
        if (*p && *p != '#') {
            char *tab = strchr(p, '\t');
            if (tab) {
                *tab = '\0';
                fn(p, tab + 1, ctx);
                lines++;
            }
        }
        p = nl + 1;
    }
    basalt_free(text);
    return lines;
}

struct corpus_ctx {
    struct basalt_buffer buf;
    int checked;
    int failed;
};

static void check_schema_line(const char *rel, const char *expected, void *p)
{
    struct corpus_ctx *c = p;
    struct basalt_error err;
    struct pq_footer f;
    struct basalt_parquet_schema *schema = NULL;
    struct ArrowSchema out;
    out.release = NULL;
    basalt_status st = pq_test_footer(rel, &f, &err);
    if (st == BASALT_OK)
        st = basalt_parquet_schema_new(&f.md, NULL, &schema, &err);
    if (st == BASALT_OK)
        st = basalt_parquet_schema_to_arrow(schema, NULL, NULL, &out, &err);
    if (st != BASALT_OK) {
        fprintf(stderr, "  %s: %s\n", rel, err.message);
        c->failed++;
    } else if (strcmp(render_fields(&out, &c->buf), expected) != 0) {
        fprintf(stderr, "  %s:\n    got  %s\n    want %s\n", rel, (const char *)c->buf.data,
                expected);
        c->failed++;
    } else if (basalt_arrow_schema_validate(&out, &err) != BASALT_OK) {
        fprintf(stderr, "  %s: output does not validate: %s\n", rel, err.message);
        c->failed++;
    }
    c->checked++;
    basalt_arrow_schema_release(&out);
    basalt_parquet_schema_free(schema);
    basalt_arena_reset(&f.arena);
}

TEST(schema_corpus_matches_expected)
{
    struct corpus_ctx c = {.checked = 0};
    basalt_buffer_init(&c.buf);
    int lines = for_each_line("schema_expected.tsv", check_schema_line, &c);
    basalt_buffer_reset(&c.buf);
    CHECK(lines > 0);
    CHECK_EQ(c.failed, 0);
    /* Every parseable file of the corpus has a line (82 of 83; PARQUET-1481
     * has a corrupt footer), and the 137 of shredded_variant/. */
    CHECK_EQ(c.checked, 82 + 137);
}

/* The corpus inventory lists every file; each must have an expected line or
 * be one whose footer is known to be corrupt. */
static void count_expected(const char *rel, const char *expected, void *p)
{
    (void)expected;
    const char **want = p;
    if (*want && strcmp(rel, *want) == 0)
        *want = NULL;
}

TEST(schema_corpus_inventory_is_covered)
{
    char path[512];
    snprintf(path, sizeof path, "%s", bt_testdata_path("parquet-testing/INVENTORY.tsv"));
    size_t len;
    uint8_t *text = bt_read_file(path, &len);
    CHECK(text != NULL);
    char *p = (char *)text, *end = p + len;
    int files = 0, missing = 0;
    p = (char *)memchr(p, '\n', len) + 1; /* header */
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            nl = end;
        *nl = '\0';
        char *tab = strchr(p, '\t');
        if (tab) {
            *tab = '\0';
            const char *want = p;
            for_each_line("schema_expected.tsv", count_expected, &want);
            if (want && strcmp(p, "bad_data/PARQUET-1481.parquet") != 0) {
                fprintf(stderr, "  no expected schema for %s\n", p);
                missing++;
            }
            files++;
        }
        p = nl + 1;
    }
    basalt_free(text);
    CHECK(files >= 80);
    CHECK_EQ(missing, 0);
    /* The one without a line fails in the footer decoder, before the schema. */
    struct pq_footer f;
    struct basalt_error err;
    CHECK_STATUS(pq_test_footer("bad_data/PARQUET-1481.parquet", &f, &err), BASALT_CORRUPT, &err);
    basalt_arena_reset(&f.arena);
}

static void check_stored_line(const char *rel, const char *expected, void *p)
{
    struct corpus_ctx *c = p;
    struct basalt_error err;
    struct pq_footer f;
    struct ArrowSchema stored;
    stored.release = NULL;
    basalt_status st = pq_test_footer(rel, &f, &err);
    const struct basalt_parquet_key_value *kv = NULL;
    for (size_t i = 0; st == BASALT_OK && i < f.md.num_key_value_metadata; i++)
        if (strcmp(f.md.key_value_metadata[i].key.data, "ARROW:schema") == 0)
            kv = &f.md.key_value_metadata[i];
    if (st == BASALT_OK && !kv)
        st = basalt_error_set(&err, BASALT_NOT_FOUND, "no ARROW:schema");
    if (st == BASALT_OK)
        st = basalt_arrow_ipc_schema_decode_base64(kv->value.data, kv->value.len, &stored, NULL,
                                                   &err);
    if (st != BASALT_OK) {
        fprintf(stderr, "  %s: %s\n", rel, err.message);
        c->failed++;
    } else {
        c->buf.size = 0;
        pq_test_render(&stored, &c->buf, false, true);
        put(&c->buf, "", 1);
        if (strcmp((const char *)c->buf.data, expected) != 0) {
            fprintf(stderr, "  %s:\n    got  %s\n    want %s\n", rel, (const char *)c->buf.data,
                    expected);
            c->failed++;
        }
    }
    c->checked++;
    basalt_arrow_schema_release(&stored);
    basalt_arena_reset(&f.arena);
}

TEST(schema_corpus_arrow_schema_keys_decode)
{
    struct corpus_ctx c = {.checked = 0};
    basalt_buffer_init(&c.buf);
    int lines = for_each_line("schema_arrow_expected.tsv", check_stored_line, &c);
    basalt_buffer_reset(&c.buf);
    CHECK(lines >= 18);
    CHECK_EQ(c.failed, 0);
}

/* Leaves against what the writers stored: one per column chunk, in order,
 * with the path of ColumnMetaData.path_in_schema. */
TEST(schema_corpus_leaves_match_column_chunks)
{
    static const char *files[] = {
        "data/nested_lists.snappy.parquet",     "data/nested_maps.snappy.parquet",
        "data/nonnullable.impala.parquet",      "data/nullable.impala.parquet",
        "data/repeated_no_annotation.parquet",  "data/repeated_primitive_no_list.parquet",
        "data/old_list_structure.parquet",      "data/map_no_value.parquet",
        "data/nested_structs.rust.parquet",     "data/list_columns.parquet",
        "data/incorrect_map_schema.parquet",    "data/alltypes_plain.parquet",
        "bad_data/ARROW-GH-41317.parquet",      "data/delta_encoding_required_column.parquet",
    };
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        struct basalt_error err;
        struct pq_footer f;
        struct basalt_parquet_schema *s;
        CHECK_OK(pq_test_footer(files[k], &f, &err), &err);
        CHECK_OK(basalt_parquet_schema_new(&f.md, NULL, &s, &err), &err);
        CHECK(f.md.num_row_groups > 0);
        const struct basalt_parquet_row_group *rg = &f.md.row_groups[0];
        CHECK_MSG((size_t)s->n_leaves == rg->num_columns, "%s: %d leaves, %zu chunks", files[k],
                  (int)s->n_leaves, rg->num_columns);
        for (int32_t i = 0; i < s->n_leaves; i++) {
            const struct basalt_parquet_column_metadata *cm = &rg->columns[i].meta_data;
            const struct basalt_parquet_schema_leaf *leaf = &s->leaves[i];
            CHECK_EQ(leaf->index, i);
            CHECK_EQ(leaf->physical_type, cm->type);
            CHECK_EQ((size_t)leaf->n_path_parts, cm->num_path_in_schema);
            for (int32_t p = 0; p < leaf->n_path_parts; p++)
                CHECK_STR(leaf->path_parts[p], cm->path_in_schema[p].data);
            CHECK_EQ(s->fields[leaf->field].leaf, i);
        }
        basalt_parquet_schema_free(s);
        basalt_arena_reset(&f.arena);
    }
}

static void check_levels_line(const char *rel, const char *expected, void *p)
{
    struct corpus_ctx *c = p;
    struct basalt_error err;
    struct pq_footer f;
    struct basalt_parquet_schema *s = NULL;
    basalt_status st = pq_test_footer(rel, &f, &err);
    if (st == BASALT_OK)
        st = basalt_parquet_schema_new(&f.md, NULL, &s, &err);
    if (st != BASALT_OK) {
        fprintf(stderr, "  %s: %s\n", rel, err.message);
        c->failed++;
    } else {
        c->buf.size = 0;
        for (int32_t i = 0; i < s->n_leaves; i++) {
            char levels[32];
            const struct basalt_parquet_schema_leaf *leaf = &s->leaves[i];
            if (i)
                puts_(&c->buf, ";");
            puts_(&c->buf, leaf->path);
            snprintf(levels, sizeof levels, "=%d/%d", leaf->max_def, leaf->max_rep);
            puts_(&c->buf, levels);
        }
        put(&c->buf, "", 1);
        if (strcmp((const char *)c->buf.data, expected) != 0) {
            fprintf(stderr, "  %s:\n    got  %.300s\n    want %.300s\n", rel,
                    (const char *)c->buf.data, expected);
            c->failed++;
        }
    }
    c->checked++;
    basalt_parquet_schema_free(s);
    basalt_arena_reset(&f.arena);
}

TEST(schema_corpus_leaf_levels)
{
    struct corpus_ctx c = {.checked = 0};
    basalt_buffer_init(&c.buf);
    int lines = for_each_line("schema_levels_expected.tsv", check_levels_line, &c);
    basalt_buffer_reset(&c.buf);
    CHECK_EQ(lines, 82);
    CHECK_EQ(c.failed, 0);
}

/* Field levels of the deepest corpus list, worked out by hand from its
 * schema: optional a (LIST) / repeated list / optional element (LIST) /
 * repeated list / optional element (LIST) / repeated list / optional
 * binary element. */
TEST(schema_corpus_nested_list_field_levels)
{
    struct basalt_error err;
    struct pq_footer f;
    struct basalt_parquet_schema *s;
    CHECK_OK(pq_test_footer("data/nested_lists.snappy.parquet", &f, &err), &err);
    CHECK_OK(basalt_parquet_schema_new(&f.md, NULL, &s, &err), &err);
    static const int want[][4] = {
        /* kind, def, rep, anc */
        {BASALT_PARQUET_FIELD_LIST, 1, 0, 0},
        {BASALT_PARQUET_FIELD_LIST, 3, 1, 2},
        {BASALT_PARQUET_FIELD_LIST, 5, 2, 4},
        {BASALT_PARQUET_FIELD_PRIMITIVE, 7, 3, 6},
        {BASALT_PARQUET_FIELD_PRIMITIVE, 0, 0, 0},
    };
    CHECK_EQ(s->n_fields, 5);
    for (int i = 0; i < 5; i++) {
        const struct basalt_parquet_schema_field *fl = &s->fields[i];
        CHECK_EQ(fl->kind, want[i][0]);
        CHECK_EQ(fl->def_level, want[i][1]);
        CHECK_EQ(fl->rep_level, want[i][2]);
        CHECK_EQ(fl->repeated_ancestor_def_level, want[i][3]);
    }
    CHECK_EQ(s->leaves[0].max_def, 7);
    CHECK_EQ(s->leaves[0].max_rep, 3);
    basalt_parquet_schema_free(s);
    basalt_arena_reset(&f.arena);
}

/* Building the widest corpus schema (80 columns, ARROW:schema with
 * dictionaries, maps, time zones) with every allocation failing in turn. */
static basalt_status corpus_attempt(void *p)
{
    const struct basalt_parquet_file_metadata *md = p;
    struct basalt_parquet_schema *s;
    basalt_status st = basalt_parquet_schema_new(md, NULL, &s, NULL);
    if (st != BASALT_OK)
        return st;
    if (s->arrow_schema_state != BASALT_PARQUET_ARROW_SCHEMA_APPLIED)
        st = BASALT_INTERNAL;
    struct ArrowSchema out;
    if (st == BASALT_OK) {
        st = basalt_parquet_schema_to_arrow(s, NULL, NULL, &out, NULL);
        if (st == BASALT_OK)
            basalt_arrow_schema_release(&out);
    }
    basalt_parquet_schema_free(s);
    return st;
}

TEST(schema_corpus_alloc_failure_sweep)
{
    struct basalt_error err;
    struct pq_footer f;
    CHECK_OK(pq_test_footer("bad_data/ARROW-GH-41317.parquet", &f, &err), &err);
    CHECK_ALLOC_SWEEP(corpus_attempt, &f.md);
    basalt_arena_reset(&f.arena);
    CHECK_OK(pq_test_footer("data/nullable.impala.parquet", &f, &err), &err);
    f.md.has_key_value_metadata = false; /* its schema has no ARROW:schema */
    struct basalt_parquet_schema *s;
    CHECK_OK(basalt_parquet_schema_new(&f.md, NULL, &s, &err), &err);
    CHECK_EQ(s->arrow_schema_state, BASALT_PARQUET_ARROW_SCHEMA_ABSENT);
    basalt_parquet_schema_free(s);
    basalt_arena_reset(&f.arena);
}
