/* Page header statistics and size statistics of the Parquet writer, checked
 * against a model the test builds itself: while the Arrow columns are
 * appended, each row's definition and repetition levels and values are
 * derived here by the Dremel rules (not by the writer), and every page's
 * expected null count, bounds (truncated as the statistics rules say),
 * level histograms and byte-array bytes are computed from that model for
 * the rows the OffsetIndex says the page holds. Flat required, flat
 * nullable, a truncated string, a list, a struct and a list of lists; both
 * page versions, with and without dictionaries, the fast and the reference
 * paths (byte-identical), several row groups; then the option that leaves
 * the header statistics out, and pages whose bounds cannot be written. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "basalt/parquet_format.h"
#include "basalt/parquet_writer.h"
#include "test.h"
#include "writer_test_util.h"

/* ------------------------------------------------------------ the model */

enum ps_kind { PS_I64, PS_I32, PS_STR };

struct ps_level {
    int32_t row;
    int16_t def, rep;
    int64_t iv;
    uint8_t slen;
    char s[40];
};

struct ps_col {
    const char *name;
    enum ps_kind kind;
    int16_t max_def, max_rep;
    struct ps_level *lv;
    size_t n, cap;
};

static struct ps_level *ps_push(struct ps_col *c, int32_t row, int16_t def, int16_t rep)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 1024;
        struct ps_level *p = basalt_realloc(c->lv, cap * sizeof *p);
        if (!p)
            return NULL;
        c->lv = p;
        c->cap = cap;
    }
    struct ps_level *l = &c->lv[c->n++];
    memset(l, 0, sizeof *l);
    l->row = row;
    l->def = def;
    l->rep = rep;
    return l;
}

#define PS_NCOLS 6
#define PS_ROWS 1000

/* The string of row i: 3 to 30 bytes, so that a bound of 8 is truncated. */
static uint8_t ps_string(int64_t i, char *out)
{
    uint8_t len = (uint8_t)(3 + (i * 7) % 28);
    for (uint8_t k = 0; k < len; k++)
        out[k] = (char)('a' + (i * 13 + k * 5) % 26);
    return len;
}

struct ps_table {
    struct ArrowSchema schema;
    struct ArrowArray array;
    struct ps_col cols[PS_NCOLS];
};

static void ps_table_free(struct ps_table *t)
{
    basalt_arrow_array_release(&t->array);
    basalt_arrow_schema_release(&t->schema);
    for (int c = 0; c < PS_NCOLS; c++)
        basalt_free(t->cols[c].lv);
}

#define TRY(x)                                                                                     \
    do {                                                                                           \
        if ((st = (x)) != BASALT_OK)                                                               \
            goto done;                                                                             \
    } while (0)
#define PUSH(c, row, def, rep)                                                                     \
    do {                                                                                           \
        if (!(l = ps_push((c), (row), (def), (rep)))) {                                            \
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");                             \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

/* x int64 required; n int32 nullable (rows 200..399 all null); s utf8
 * nullable; l list<int32>; st struct<a: int32>; ll list<list<int32>>, every
 * nested field nullable. */
static basalt_status ps_build(struct ps_table *t, struct basalt_error *err)
{
    memset(t, 0, sizeof *t);
    static const struct ps_col shape[PS_NCOLS] = {
        {"x", PS_I64, 0, 0, NULL, 0, 0}, {"n", PS_I32, 1, 0, NULL, 0, 0},
        {"s", PS_STR, 1, 0, NULL, 0, 0}, {"l.list.element", PS_I32, 3, 1, NULL, 0, 0},
        {"st.a", PS_I32, 2, 0, NULL, 0, 0}, {"ll.list.element.list.element", PS_I32, 5, 2, NULL, 0, 0},
    };
    memcpy(t->cols, shape, sizeof shape);
    struct basalt_arrow_builder *root = NULL, *x, *n, *s, *l_, *li, *st_, *sa, *ll, *lli, *llii;
    struct ps_level *l;
    basalt_status st;
    TRY(basalt_arrow_builder_new("+s", "", 0, &root, err));
    TRY(basalt_arrow_builder_add_child(root, "l", "x", 0, &x, err));
    TRY(basalt_arrow_builder_add_child(root, "i", "n", ARROW_FLAG_NULLABLE, &n, err));
    TRY(basalt_arrow_builder_add_child(root, "u", "s", ARROW_FLAG_NULLABLE, &s, err));
    TRY(basalt_arrow_builder_add_child(root, "+l", "l", ARROW_FLAG_NULLABLE, &l_, err));
    TRY(basalt_arrow_builder_add_child(l_, "i", "element", ARROW_FLAG_NULLABLE, &li, err));
    TRY(basalt_arrow_builder_add_child(root, "+s", "st", ARROW_FLAG_NULLABLE, &st_, err));
    TRY(basalt_arrow_builder_add_child(st_, "i", "a", ARROW_FLAG_NULLABLE, &sa, err));
    TRY(basalt_arrow_builder_add_child(root, "+l", "ll", ARROW_FLAG_NULLABLE, &ll, err));
    TRY(basalt_arrow_builder_add_child(ll, "+l", "element", ARROW_FLAG_NULLABLE, &lli, err));
    TRY(basalt_arrow_builder_add_child(lli, "i", "element", ARROW_FLAG_NULLABLE, &llii, err));
    for (int32_t i = 0; i < PS_ROWS; i++) {
        /* x */
        PUSH(&t->cols[0], i, 0, 0);
        l->iv = (int64_t)i * 3 - 500;
        TRY(basalt_arrow_builder_append_int(x, l->iv, err));
        /* n */
        if ((i >= 200 && i < 400) || i % 5 == 2) {
            PUSH(&t->cols[1], i, 0, 0);
            TRY(basalt_arrow_builder_append_null(n, err));
        } else {
            PUSH(&t->cols[1], i, 1, 0);
            l->iv = (int64_t)((i * 7919) % 1000) - 500;
            TRY(basalt_arrow_builder_append_int(n, l->iv, err));
        }
        /* s */
        if (i % 9 == 4) {
            PUSH(&t->cols[2], i, 0, 0);
            TRY(basalt_arrow_builder_append_null(s, err));
        } else {
            PUSH(&t->cols[2], i, 1, 0);
            l->slen = ps_string(i, l->s);
            TRY(basalt_arrow_builder_append_bytes(s, l->s, l->slen, err));
        }
        /* l: null list (0, 0), empty (0, 1), elements rep 0 then 1, def 2
         * null / 3 value */
        if (i % 7 == 0) {
            PUSH(&t->cols[3], i, 0, 0);
            TRY(basalt_arrow_builder_append_null(l_, err));
        } else if (i % 7 == 1) {
            PUSH(&t->cols[3], i, 1, 0);
            TRY(basalt_arrow_builder_end_element(l_, err));
        } else {
            for (int j = 0; j < i % 4 + 1; j++) {
                int16_t rep = j == 0 ? 0 : 1;
                if ((i + j) % 6 == 0) {
                    PUSH(&t->cols[3], i, 2, rep);
                    TRY(basalt_arrow_builder_append_null(li, err));
                } else {
                    PUSH(&t->cols[3], i, 3, rep);
                    l->iv = (int64_t)((i * 31 + j * 17) % 2000) - 1000;
                    TRY(basalt_arrow_builder_append_int(li, l->iv, err));
                }
            }
            TRY(basalt_arrow_builder_end_element(l_, err));
        }
        /* st: null struct 0, null a 1, value 2 */
        if (i % 8 == 3) {
            PUSH(&t->cols[4], i, 0, 0);
            TRY(basalt_arrow_builder_append_null(st_, err));
        } else {
            if (i % 8 == 5) {
                PUSH(&t->cols[4], i, 1, 0);
                TRY(basalt_arrow_builder_append_null(sa, err));
            } else {
                PUSH(&t->cols[4], i, 2, 0);
                l->iv = i % 300;
                TRY(basalt_arrow_builder_append_int(sa, l->iv, err));
            }
            TRY(basalt_arrow_builder_end_element(st_, err));
        }
        /* ll: null 0, empty 1; per inner list j (first level rep 0, else
         * 1): null 2, empty 3, elements (rep 2 after the first) null 4 /
         * value 5 */
        if (i % 10 == 0) {
            PUSH(&t->cols[5], i, 0, 0);
            TRY(basalt_arrow_builder_append_null(ll, err));
        } else if (i % 3 == 0) {
            PUSH(&t->cols[5], i, 1, 0);
            TRY(basalt_arrow_builder_end_element(ll, err));
        } else {
            for (int j = 0; j < i % 3; j++) {
                int16_t r = j == 0 ? 0 : 1;
                int len = (i + j) % 3;
                if ((i + j) % 4 == 1) {
                    PUSH(&t->cols[5], i, 2, r);
                    TRY(basalt_arrow_builder_append_null(lli, err));
                    continue;
                }
                if (len == 0) {
                    PUSH(&t->cols[5], i, 3, r);
                } else {
                    for (int k = 0; k < len; k++) {
                        int16_t rep = k == 0 ? r : 2;
                        if ((i + j + k) % 5 == 0) {
                            PUSH(&t->cols[5], i, 4, rep);
                            TRY(basalt_arrow_builder_append_null(llii, err));
                        } else {
                            PUSH(&t->cols[5], i, 5, rep);
                            l->iv = (int64_t)i * 10 + j * 3 + k;
                            TRY(basalt_arrow_builder_append_int(llii, l->iv, err));
                        }
                    }
                }
                TRY(basalt_arrow_builder_end_element(lli, err));
            }
            TRY(basalt_arrow_builder_end_element(ll, err));
        }
        TRY(basalt_arrow_builder_end_element(root, err));
    }
    TRY(basalt_arrow_builder_finish(root, &t->schema, &t->array, err));
done:
    basalt_arrow_builder_free(root);
    return st;
}
#undef PUSH

/* ------------------------------------------------------------ expected */

struct ps_expect {
    int64_t values, nulls, levels, rows, bytes;
    int64_t def_hist[8], rep_hist[8];
    bool has;
    uint8_t mn[40], mx[40];
    size_t mn_len, mx_len;
    bool mn_exact, mx_exact, has_max;
};

static int ps_cmp(const struct ps_col *c, const struct ps_level *a, const struct ps_level *b)
{
    if (c->kind != PS_STR)
        return (a->iv > b->iv) - (a->iv < b->iv);
    size_t m = a->slen < b->slen ? a->slen : b->slen;
    int r = memcmp(a->s, b->s, m);
    if (r)
        return r < 0 ? -1 : 1;
    return (a->slen > b->slen) - (a->slen < b->slen);
}

/* What page rows [first, end) of column `c` must say. */
static void ps_expect_page(const struct ps_col *c, int32_t first, int32_t end, size_t max_stats,
                           struct ps_expect *e)
{
    memset(e, 0, sizeof *e);
    e->rows = end - first;
    const struct ps_level *lo = NULL, *hi = NULL;
    for (size_t i = 0; i < c->n; i++) {
        const struct ps_level *l = &c->lv[i];
        if (l->row < first || l->row >= end)
            continue;
        e->levels++;
        e->def_hist[l->def]++;
        e->rep_hist[l->rep]++;
        if (l->def < c->max_def) {
            e->nulls++;
            continue;
        }
        e->values++;
        e->bytes += l->slen;
        if (!lo || ps_cmp(c, l, lo) < 0)
            lo = l;
        if (!hi || ps_cmp(c, l, hi) > 0)
            hi = l;
    }
    if (!lo)
        return;
    e->has = e->has_max = true;
    e->mn_exact = e->mx_exact = true;
    if (c->kind == PS_I64) {
        memcpy(e->mn, &lo->iv, 8);
        memcpy(e->mx, &hi->iv, 8);
        e->mn_len = e->mx_len = 8;
    } else if (c->kind == PS_I32) {
        int32_t a = (int32_t)lo->iv, b = (int32_t)hi->iv;
        memcpy(e->mn, &a, 4);
        memcpy(e->mx, &b, 4);
        e->mn_len = e->mx_len = 4;
    } else {
        /* min: a prefix is <= the value; max: the prefix with its last byte
         * raised is >= it (ASCII here, never 0xff) */
        e->mn_len = lo->slen;
        memcpy(e->mn, lo->s, lo->slen);
        e->mx_len = hi->slen;
        memcpy(e->mx, hi->s, hi->slen);
        if (e->mn_len > max_stats) {
            e->mn_len = max_stats;
            e->mn_exact = false;
        }
        if (e->mx_len > max_stats) {
            e->mx_len = max_stats;
            e->mx[max_stats - 1]++;
            e->mx_exact = false;
        }
    }
}

/* ------------------------------------------------------------ the file */

static basalt_status ps_write(const struct ps_table *t, const struct basalt_parquet_writer_options *o,
                              uint8_t **data, size_t *len, struct basalt_error *err)
{
    return wtu_write(&t->schema, &t->array, o, 1, data, len, NULL, err);
}

/* Decodes the footer with basalt's decoder; *ok tells whether it did. */
static void ps_footer(const uint8_t *data, size_t len, struct basalt_arena *arena,
                      struct basalt_parquet_file_metadata *md, bool *ok)
{
    struct basalt_error err;
    uint32_t flen;
    *ok = false;
    CHECK(len > 12);
    memcpy(&flen, data + len - 8, 4);
    CHECK(flen <= len - 12);
    CHECK_OK(basalt_thrift_decode_file_metadata(data + len - 8 - flen, flen, arena, NULL, md, &err),
             &err);
    *ok = true;
}

static void ps_check_bounds(const char *what, int page, const struct basalt_parquet_binary *got,
                            bool has, const uint8_t *want, size_t want_len)
{
    CHECK_MSG(has, "%s page %d: no bound", what, page);
    if (!has)
        return;
    CHECK_MSG(got->len == want_len && memcmp(got->data, want, want_len) == 0,
              "%s page %d: bound of %zu bytes differs", what, page, got->len);
}

/* Every page of every chunk against the model. */
static void ps_check_file(const struct ps_table *t, const uint8_t *data, size_t len,
                          const struct basalt_parquet_writer_options *o)
{
    struct basalt_error err;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 1 << 16);
    struct basalt_parquet_file_metadata md;
    bool ok;
    ps_footer(data, len, &arena, &md, &ok);
    if (!ok) {
        basalt_arena_reset(&arena);
        return;
    }
    CHECK_EQ(md.num_row_groups, (PS_ROWS + o->row_group_rows - 1) / o->row_group_rows);
    int32_t rg_start = 0;
    for (size_t g = 0; g < md.num_row_groups; g++) {
        const struct basalt_parquet_row_group *rg = &md.row_groups[g];
        CHECK_EQ(rg->num_columns, PS_NCOLS);
        for (int c = 0; c < PS_NCOLS && c < (int)rg->num_columns; c++) {
            const struct ps_col *col = &t->cols[c];
            const struct basalt_parquet_column_chunk *cc = &rg->columns[c];
            const struct basalt_parquet_column_metadata *m = &cc->meta_data;
            CHECK(cc->has_offset_index_offset && cc->has_column_index_offset);
            if (!cc->has_offset_index_offset || !cc->has_column_index_offset)
                continue;
            struct basalt_parquet_offset_index oi;
            struct basalt_parquet_column_index ci;
            CHECK_OK(basalt_thrift_decode_offset_index(data + cc->offset_index_offset,
                                                       (size_t)cc->offset_index_length, &arena,
                                                       NULL, &oi, &err),
                     &err);
            CHECK_OK(basalt_thrift_decode_column_index(data + cc->column_index_offset,
                                                       (size_t)cc->column_index_length, &arena,
                                                       NULL, &ci, &err),
                     &err);
            size_t np = oi.num_page_locations;
            /* 100 rows a page */
            CHECK_EQ(np, (size_t)((rg->num_rows + 99) / 100));
            CHECK_EQ(ci.num_null_pages, np);
            if (bt_failed())
                break;
            size_t nd = (size_t)col->max_def + 1, nr = (size_t)col->max_rep + 1;
            CHECK_EQ(ci.has_definition_level_histograms, col->max_def > 0);
            CHECK_EQ(ci.has_repetition_level_histograms, col->max_rep > 0);
            if (col->max_def > 0)
                CHECK_EQ(ci.num_definition_level_histograms, np * nd);
            if (col->max_rep > 0)
                CHECK_EQ(ci.num_repetition_level_histograms, np * nr);
            CHECK_EQ(oi.has_unencoded_byte_array_data_bytes, col->kind == PS_STR);
            struct ps_expect sum;
            memset(&sum, 0, sizeof sum);
            for (size_t p = 0; p < np && !bt_failed(); p++) {
                const struct basalt_parquet_page_location *pl = &oi.page_locations[p];
                int32_t first = rg_start + (int32_t)pl->first_row_index;
                int32_t end = p + 1 < np ? rg_start + (int32_t)oi.page_locations[p + 1].first_row_index
                                         : rg_start + (int32_t)rg->num_rows;
                CHECK_EQ(end - first, 100 < rg->num_rows - pl->first_row_index
                                          ? 100
                                          : rg->num_rows - pl->first_row_index);
                struct ps_expect e;
                ps_expect_page(col, first, end, o->max_statistics_size, &e);
                for (size_t k = 0; k < nd; k++)
                    sum.def_hist[k] += e.def_hist[k];
                for (size_t k = 0; k < nr; k++)
                    sum.rep_hist[k] += e.rep_hist[k];
                sum.bytes += e.bytes;
                struct basalt_parquet_page_header ph;
                size_t hl = 0;
                CHECK_OK(basalt_thrift_decode_page_header(data + pl->offset,
                                                          len - (size_t)pl->offset, &arena, NULL,
                                                          &ph, &hl, &err),
                         &err);
                const struct basalt_parquet_statistics *hs;
                bool has_stats;
                if (o->page_version == 2) {
                    CHECK_EQ(ph.type, BASALT_PARQUET_PAGE_TYPE_DATA_PAGE_V2);
                    CHECK_EQ(ph.data_page_header_v2.num_values, e.levels);
                    CHECK_EQ(ph.data_page_header_v2.num_nulls, e.nulls);
                    CHECK_EQ(ph.data_page_header_v2.num_rows, e.rows);
                    hs = &ph.data_page_header_v2.statistics;
                    has_stats = ph.data_page_header_v2.has_statistics;
                } else {
                    CHECK_EQ(ph.type, BASALT_PARQUET_PAGE_TYPE_DATA_PAGE);
                    CHECK_EQ(ph.data_page_header.num_values, e.levels);
                    hs = &ph.data_page_header.statistics;
                    has_stats = ph.data_page_header.has_statistics;
                }
                /* the ColumnIndex entry */
                CHECK_EQ(ci.null_pages[p], !e.has);
                CHECK_EQ(ci.null_counts[p], e.nulls);
                if (e.has) {
                    ps_check_bounds(col->name, (int)p, &ci.min_values[p], true, e.mn, e.mn_len);
                    ps_check_bounds(col->name, (int)p, &ci.max_values[p], true, e.mx, e.mx_len);
                }
                for (size_t k = 0; col->max_def > 0 && k < nd; k++)
                    CHECK_MSG(ci.definition_level_histograms[p * nd + k] == e.def_hist[k],
                              "%s page %zu: def level %zu: %lld, expected %lld", col->name, p, k,
                              (long long)ci.definition_level_histograms[p * nd + k],
                              (long long)e.def_hist[k]);
                for (size_t k = 0; col->max_rep > 0 && k < nr; k++)
                    CHECK_MSG(ci.repetition_level_histograms[p * nr + k] == e.rep_hist[k],
                              "%s page %zu: rep level %zu: %lld, expected %lld", col->name, p, k,
                              (long long)ci.repetition_level_histograms[p * nr + k],
                              (long long)e.rep_hist[k]);
                if (col->kind == PS_STR && oi.has_unencoded_byte_array_data_bytes)
                    CHECK_EQ(oi.unencoded_byte_array_data_bytes[p], e.bytes);
                /* the header */
                CHECK_EQ(has_stats, !o->skip_page_statistics);
                if (!has_stats)
                    continue;
                CHECK(hs->has_null_count);
                CHECK_EQ(hs->null_count, e.nulls);
                CHECK(!hs->has_min && !hs->has_max && !hs->has_distinct_count);
                CHECK_EQ(hs->has_min_value, e.has);
                CHECK_EQ(hs->has_max_value, e.has);
                if (!e.has)
                    continue;
                ps_check_bounds(col->name, (int)p, &hs->min_value, hs->has_min_value, e.mn,
                                e.mn_len);
                ps_check_bounds(col->name, (int)p, &hs->max_value, hs->has_max_value, e.mx,
                                e.mx_len);
                CHECK(hs->has_is_min_value_exact && hs->has_is_max_value_exact);
                CHECK_EQ(hs->is_min_value_exact, e.mn_exact);
                CHECK_EQ(hs->is_max_value_exact, e.mx_exact);
            }
            /* ColumnMetaData.size_statistics: the pages' sums */
            const struct basalt_parquet_size_statistics *z = &m->size_statistics;
            bool want = col->kind == PS_STR || col->max_def > 0 || col->max_rep > 0;
            CHECK_EQ(m->has_size_statistics, want);
            if (!m->has_size_statistics)
                continue;
            CHECK_EQ(z->has_unencoded_byte_array_data_bytes, col->kind == PS_STR);
            if (z->has_unencoded_byte_array_data_bytes)
                CHECK_EQ(z->unencoded_byte_array_data_bytes, sum.bytes);
            CHECK_EQ(z->has_definition_level_histogram, col->max_def > 0);
            CHECK_EQ(z->has_repetition_level_histogram, col->max_rep > 0);
            if (z->has_definition_level_histogram) {
                CHECK_EQ(z->num_definition_level_histogram, nd);
                for (size_t k = 0; k < nd && k < z->num_definition_level_histogram; k++)
                    CHECK_EQ(z->definition_level_histogram[k], sum.def_hist[k]);
            }
            if (z->has_repetition_level_histogram) {
                CHECK_EQ(z->num_repetition_level_histogram, nr);
                for (size_t k = 0; k < nr && k < z->num_repetition_level_histogram; k++)
                    CHECK_EQ(z->repetition_level_histogram[k], sum.rep_hist[k]);
            }
        }
        rg_start += (int32_t)rg->num_rows;
    }
    basalt_arena_reset(&arena);
}

static void ps_options(struct basalt_parquet_writer_options *o)
{
    basalt_parquet_writer_options_init(o);
    o->page_rows = 100;
    o->row_group_rows = 600;
    o->max_statistics_size = 8;
    o->codec = BASALT_CODEC_UNCOMPRESSED;
}

TEST(writer_pagestats_model)
{
    struct basalt_error err;
    struct ps_table t;
    CHECK_OK(ps_build(&t, &err), &err);
    /* the model itself: pages must hold nulls, null pages, every level */
    struct ps_expect e;
    ps_expect_page(&t.cols[1], 200, 300, 8, &e);
    CHECK(!e.has && e.nulls == 100);
    ps_expect_page(&t.cols[5], 0, PS_ROWS, 8, &e);
    for (int k = 0; k <= 5; k++)
        CHECK_MSG(e.def_hist[k] > 0, "ll: no definition level %d", k);
    for (int k = 0; k <= 2; k++)
        CHECK_MSG(e.rep_hist[k] > 0, "ll: no repetition level %d", k);
    ps_expect_page(&t.cols[2], 0, 100, 8, &e);
    CHECK(!e.mn_exact || !e.mx_exact);
    for (int pv = 1; pv <= 2; pv++)
        for (int dict = 0; dict < 2; dict++) {
            struct basalt_parquet_writer_options o;
            ps_options(&o);
            o.page_version = pv;
            o.dictionary = dict != 0;
            uint8_t *fast = NULL, *simple = NULL;
            size_t fast_len = 0, simple_len = 0;
            CHECK_OK(ps_write(&t, &o, &fast, &fast_len, &err), &err);
            o.simple_paths = true;
            CHECK_OK(ps_write(&t, &o, &simple, &simple_len, &err), &err);
            /* the counting while encoding and the reference count agree */
            CHECK_MSG(fast_len == simple_len && fast && simple &&
                          memcmp(fast, simple, fast_len) == 0,
                      "page v%d, dictionary %d: the fast paths write other bytes", pv, dict);
            if (fast)
                ps_check_file(&t, fast, fast_len, &o);
            if (simple)
                ps_check_file(&t, simple, simple_len, &o);
            basalt_free(fast);
            basalt_free(simple);
        }
    ps_table_free(&t);
}

TEST(writer_pagestats_can_be_left_out)
{
    struct basalt_error err;
    struct ps_table t;
    CHECK_OK(ps_build(&t, &err), &err);
    for (int pv = 1; pv <= 2; pv++) {
        struct basalt_parquet_writer_options o;
        ps_options(&o);
        o.page_version = pv;
        o.skip_page_statistics = true;
        uint8_t *data = NULL;
        size_t len = 0;
        CHECK_OK(ps_write(&t, &o, &data, &len, &err), &err);
        /* no header statistics; the page index and size statistics stay */
        if (data)
            ps_check_file(&t, data, len, &o);
        /* and the same without a page index: header statistics alone */
        o.skip_page_statistics = false;
        o.page_index = false;
        uint8_t *d2 = NULL;
        size_t l2 = 0;
        CHECK_OK(ps_write(&t, &o, &d2, &l2, &err), &err);
        struct basalt_arena arena;
        basalt_arena_init(&arena, 1 << 16);
        struct basalt_parquet_file_metadata md;
        bool ok = false;
        if (d2)
            ps_footer(d2, l2, &arena, &md, &ok);
        if (ok) {
            const struct basalt_parquet_column_chunk *cc = &md.row_groups[0].columns[0];
            CHECK(!cc->has_column_index_offset && !cc->has_offset_index_offset);
            struct basalt_parquet_page_header ph;
            size_t hl = 0;
            int64_t at = cc->meta_data.data_page_offset;
            CHECK_OK(basalt_thrift_decode_page_header(d2 + at, l2 - (size_t)at, &arena, NULL, &ph,
                                                      &hl, &err),
                     &err);
            const struct basalt_parquet_statistics *hs =
                pv == 2 ? &ph.data_page_header_v2.statistics : &ph.data_page_header.statistics;
            CHECK(pv == 2 ? ph.data_page_header_v2.has_statistics
                          : ph.data_page_header.has_statistics);
            /* x of rows 0..99: -500 .. -203 */
            int64_t mn = 0, mx = 0;
            CHECK(hs->has_min_value && hs->min_value.len == 8 && hs->has_max_value &&
                  hs->max_value.len == 8);
            if (hs->has_min_value && hs->min_value.len == 8)
                memcpy(&mn, hs->min_value.data, 8);
            if (hs->has_max_value && hs->max_value.len == 8)
                memcpy(&mx, hs->max_value.data, 8);
            CHECK_EQ(mn, -500);
            CHECK_EQ(mx, 99 * 3 - 500);
            CHECK(hs->has_null_count && hs->null_count == 0);
        }
        basalt_arena_reset(&arena);
        basalt_free(data);
        basalt_free(d2);
    }
    ps_table_free(&t);
}

/* A page of only NaN and a page whose byte-array max cannot be truncated
 * (all 0xff) have no bounds: their headers carry the null count alone, and
 * those chunks no ColumnIndex (a ColumnIndex entry needs bounds). */
TEST(writer_pagestats_pages_without_bounds)
{
    struct basalt_error err;
    struct basalt_arrow_builder *root = NULL, *d = NULL, *b = NULL;
    CHECK_OK(basalt_arrow_builder_new("+s", "", 0, &root, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "g", "d", ARROW_FLAG_NULLABLE, &d, &err), &err);
    CHECK_OK(basalt_arrow_builder_add_child(root, "z", "b", 0, &b, &err), &err);
    uint8_t ff[12];
    memset(ff, 0xff, sizeof ff);
    for (int i = 0; i < 20; i++) {
        /* rows 0..9: page 0 NaN and nulls; rows 10..19: page 1 numbers */
        if (i < 10 && i % 3 == 0)
            CHECK_OK(basalt_arrow_builder_append_null(d, &err), &err);
        else
            CHECK_OK(basalt_arrow_builder_append_double(d, i < 10 ? NAN : (double)i, &err),
                     &err);
        CHECK_OK(basalt_arrow_builder_append_bytes(b, ff, i < 10 ? 12 : 4, &err), &err);
        CHECK_OK(basalt_arrow_builder_end_element(root, &err), &err);
    }
    struct ArrowSchema s;
    struct ArrowArray a;
    CHECK_OK(basalt_arrow_builder_finish(root, &s, &a, &err), &err);
    basalt_arrow_builder_free(root);
    struct basalt_parquet_writer_options o;
    basalt_parquet_writer_options_init(&o);
    o.page_rows = 10;
    o.max_statistics_size = 8;
    o.dictionary = false;
    struct ps_table t;
    memset(&t, 0, sizeof t);
    t.schema = s;
    t.array = a;
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK_OK(ps_write(&t, &o, &data, &len, &err), &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 1 << 16);
    struct basalt_parquet_file_metadata md;
    bool ok = false;
    if (data)
        ps_footer(data, len, &arena, &md, &ok);
    if (ok) {
        for (int c = 0; c < 2; c++) {
            const struct basalt_parquet_column_chunk *cc = &md.row_groups[0].columns[c];
            CHECK(!cc->has_column_index_offset);
            CHECK(cc->has_offset_index_offset);
            int64_t at = cc->meta_data.data_page_offset;
            for (int p = 0; p < 2; p++) {
                struct basalt_parquet_page_header ph;
                size_t hl = 0;
                CHECK_OK(basalt_thrift_decode_page_header(data + at, len - (size_t)at, &arena,
                                                          NULL, &ph, &hl, &err),
                         &err);
                const struct basalt_parquet_statistics *hs = &ph.data_page_header.statistics;
                CHECK(ph.data_page_header.has_statistics && hs->has_null_count);
                CHECK_EQ(hs->null_count, c == 0 && p == 0 ? 4 : 0);
                bool bounded = p == 1;
                CHECK_EQ(hs->has_min_value, bounded);
                CHECK_EQ(hs->has_max_value, bounded);
                if (bounded && c == 0 && hs->min_value.len == 8 && hs->max_value.len == 8) {
                    double mn, mx;
                    memcpy(&mn, hs->min_value.data, 8);
                    memcpy(&mx, hs->max_value.data, 8);
                    CHECK(mn == 10.0 && mx == 19.0);
                }
                if (bounded && c == 1)
                    CHECK(hs->min_value.len == 4 && hs->max_value.len == 4 &&
                          hs->is_min_value_exact && hs->is_max_value_exact);
                at += (int64_t)hl + ph.compressed_page_size;
            }
            /* the unencoded bytes of the byte-array chunk: 10 * 12 + 10 * 4 */
            if (c == 1) {
                CHECK(cc->meta_data.has_size_statistics);
                CHECK_EQ(cc->meta_data.size_statistics.unencoded_byte_array_data_bytes, 160);
                CHECK(!cc->meta_data.size_statistics.has_definition_level_histogram);
            } else {
                CHECK(cc->meta_data.has_size_statistics);
                const struct basalt_parquet_size_statistics *z = &cc->meta_data.size_statistics;
                CHECK(z->has_definition_level_histogram && z->num_definition_level_histogram == 2);
                if (z->num_definition_level_histogram == 2) {
                    CHECK_EQ(z->definition_level_histogram[0], 4);
                    CHECK_EQ(z->definition_level_histogram[1], 16);
                }
            }
        }
    }
    basalt_arena_reset(&arena);
    basalt_free(data);
    basalt_arrow_array_release(&a);
    basalt_arrow_schema_release(&s);
}
