/* The DataFrame API over in-memory batches with values written by hand:
 * filter, with_columns, group_by, sort, head, join, unique, concat, file
 * round trips through Parquet and CSV; expected rows computed by hand. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "basalt/sql.h"
#include "sql_test_rows.h"
#include "test.h"

/* trips: (id, zone, fare) = (1,'a',10) (2,'b',20) (3,'a',30) (4,NULL,40) (5,'b',50) */
static struct ArrowArrayStream trips_stream(void)
{
    struct basalt_arrow_builder *root, *id, *zone, *fare;
    basalt_arrow_builder_new("+s", "", 0, &root, NULL);
    basalt_arrow_builder_add_child(root, "l", "id", 0, &id, NULL);
    basalt_arrow_builder_add_child(root, "u", "zone", ARROW_FLAG_NULLABLE, &zone, NULL);
    basalt_arrow_builder_add_child(root, "g", "fare", 0, &fare, NULL);
    static const char *const zones[] = {"a", "b", "a", NULL, "b"};
    for (int i = 0; i < 5; i++) {
        basalt_arrow_builder_append_int(id, i + 1, NULL);
        if (zones[i])
            basalt_arrow_builder_append_string(zone, zones[i], NULL);
        else
            basalt_arrow_builder_append_null(zone, NULL);
        basalt_arrow_builder_append_double(fare, 10.0 * (i + 1), NULL);
        basalt_arrow_builder_end_element(root, NULL);
    }
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    struct ArrowArray a;
    basalt_arrow_builder_finish(root, &b.schema, &a, NULL);
    basalt_arrow_builder_free(root);
    basalt_arrow_batches_append(&b, &a, NULL);
    struct ArrowArrayStream s;
    basalt_arrow_stream_from_batches(&b, &s, NULL);
    return s;
}

/* The frame's rows as "v1|v2;v1|v2;" text (doubles %g, NULL as N). */
static basalt_status render(const struct basalt_df *df, char *out, size_t cap,
                            struct basalt_error *err)
{
    struct ArrowArrayStream s;
    basalt_status st = basalt_df_collect(df, &s, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    st = basalt_arrow_stream_collect(&s, &b, err);
    out[0] = '\0';
    if (st == BASALT_OK)
        sql_test_render(&b, true, out, cap);
    basalt_arrow_batches_reset(&b);
    return st;
}

#define EXPECT_ROWS(df, want)                                                                \
    do {                                                                                     \
        char got_[1024];                                                                     \
        struct basalt_error e_;                                                              \
        basalt_error_init(&e_);                                                              \
        basalt_status s_ = render(df, got_, sizeof got_, &e_);                               \
        CHECK_MSG(s_ == BASALT_OK, "%s: %s", basalt_df_sql_text(df), e_.message);            \
        CHECK_MSG(strcmp(got_, want) == 0, "%s\n  got  %s\n  want %s", basalt_df_sql_text(df), \
                  got_, want);                                                               \
    } while (0)

TEST(dataframe_steps)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK(basalt_sql_session_new(NULL, &s, &err) == BASALT_OK);
    struct ArrowArrayStream in = trips_stream();
    struct basalt_df *t, *f, *w, *g, *gs, *h, *u, *c, *j, *zones;
    CHECK(basalt_df_from_stream(s, &in, &t, &err) == BASALT_OK);
    EXPECT_ROWS(t, "1|a|10;2|b|20;3|a|30;4|N|40;5|b|50;");

    CHECK(basalt_df_filter(t, "fare > 15 AND zone IS NOT NULL", &f, &err) == BASALT_OK);
    EXPECT_ROWS(f, "2|b|20;3|a|30;5|b|50;");

    const char *exprs[] = {"fare * 2", "upper(zone)"}, *names[] = {"fare", "z"};
    CHECK(basalt_df_with_columns(f, exprs, names, 2, &w, &err) == BASALT_OK);
    EXPECT_ROWS(w, "2|b|40|B;3|a|60|A;5|b|100|B;");
    /* a column the frame has is replaced where it stands */
    struct basalt_df *w2;
    const char *e2[] = {"upper(zone)"}, *n2[] = {"ZONE"};
    CHECK(basalt_df_with_columns(f, e2, n2, 1, &w2, &err) == BASALT_OK);
    EXPECT_ROWS(w2, "2|B|20;3|A|30;5|B|50;");
    basalt_df_free(w2);

    const char *keys[] = {"zone"}, *aggs[] = {"count(*) AS n", "sum(fare) AS total"};
    CHECK(basalt_df_group_by(t, keys, 1, aggs, 2, &g, &err) == BASALT_OK);
    CHECK(basalt_df_sort(g, "zone NULLS FIRST", &gs, &err) == BASALT_OK);
    EXPECT_ROWS(gs, "N|1|40;a|2|40;b|2|70;");

    CHECK(basalt_df_head(gs, 2, &h, &err) == BASALT_OK);
    EXPECT_ROWS(h, "N|1|40;a|2|40;");

    /* a second frame from SQL, joined on zone */
    CHECK(basalt_df_sql(s, "SELECT * FROM (VALUES ('a', 'Airport'), ('b', 'Bronx')) v(zone, name)",
                        &zones, &err) == BASALT_OK);
    struct basalt_df *js;
    CHECK(basalt_df_join(t, zones, "zone", BASALT_DF_INNER, &j, &err) == BASALT_OK);
    CHECK(basalt_df_sort(j, "id", &js, &err) == BASALT_OK);
    EXPECT_ROWS(js, "1|a|10|Airport;2|b|20|Bronx;3|a|30|Airport;5|b|50|Bronx;");

    const char *zcol[] = {"zone"};
    struct basalt_df *zs, *us;
    CHECK(basalt_df_select(t, zcol, 1, &zs, &err) == BASALT_OK);
    CHECK(basalt_df_unique(zs, &u, &err) == BASALT_OK);
    CHECK(basalt_df_sort(u, "zone", &us, &err) == BASALT_OK);
    EXPECT_ROWS(us, "a;b;N;");

    const struct basalt_df *both[] = {h, h};
    CHECK(basalt_df_concat(both, 2, &c, &err) == BASALT_OK);
    EXPECT_ROWS(c, "N|1|40;a|2|40;N|1|40;a|2|40;");

    /* an error names the position in the frame's SQL */
    struct basalt_df *bad;
    CHECK(basalt_df_filter(t, "nosuch > 1", &bad, &err) == BASALT_OK);
    struct ArrowArrayStream out;
    CHECK(basalt_df_collect(bad, &out, &err) == BASALT_NOT_FOUND);
    CHECK_MSG(strstr(err.message, "column \"nosuch\" not found (at position") != NULL, "%s",
              err.message);

    struct basalt_df *all[] = {t, f, w, g, gs, h, u, c, j, js, zones, zs, us, bad};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        basalt_df_free(all[i]);
    basalt_sql_session_free(s);
}

TEST(dataframe_file_round_trip)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK(basalt_sql_session_new(NULL, &s, &err) == BASALT_OK);
    struct ArrowArrayStream in = trips_stream();
    struct basalt_df *t, *back, *sum;
    CHECK(basalt_df_from_stream(s, &in, &t, &err) == BASALT_OK);
    char path[128];
    snprintf(path, sizeof path, "/tmp/basalt_df_%d.parquet", (int)getpid());
    CHECK_MSG(basalt_df_write(t, path, &err) == BASALT_OK, "%s", err.message);
    CHECK(basalt_df_read_parquet(s, path, &back, &err) == BASALT_OK);
    const char *aggs[] = {"count(*) AS n", "sum(fare) AS f", "count(zone) AS z"};
    CHECK(basalt_df_group_by(back, NULL, 0, aggs, 3, &sum, &err) == BASALT_OK);
    EXPECT_ROWS(sum, "5|150|4;");
    unlink(path);
    basalt_df_free(t);
    basalt_df_free(back);
    basalt_df_free(sum);
    basalt_sql_session_free(s);
}

/* Written as CSV (by the name's extension) and read back through the CSV
 * sniffer: the header names, the types (BIGINT, VARCHAR with an empty field
 * for NULL, DOUBLE) and every value come back. */
TEST(dataframe_csv_round_trip)
{
    struct basalt_sql_session *s;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK(basalt_sql_session_new(NULL, &s, &err) == BASALT_OK);
    struct ArrowArrayStream in = trips_stream();
    struct basalt_df *t, *back, *sorted;
    CHECK(basalt_df_from_stream(s, &in, &t, &err) == BASALT_OK);
    char path[128];
    snprintf(path, sizeof path, "/tmp/basalt_df_%d.csv", (int)getpid());
    CHECK_MSG(basalt_df_write(t, path, &err) == BASALT_OK, "%s", err.message);
    FILE *f = fopen(path, "r");
    char text[256] = "";
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f)
        fclose(f);
    CHECK_MSG(strcmp(text, "id,zone,fare\n1,a,10.0\n2,b,20.0\n3,a,30.0\n4,,40.0\n5,b,50.0\n") == 0,
              "%s", text);
    CHECK_MSG(basalt_df_read_csv(s, path, &back, &err) == BASALT_OK, "%s", err.message);
    CHECK(basalt_df_sort(back, "id DESC", &sorted, &err) == BASALT_OK);
    EXPECT_ROWS(sorted, "5|b|50;4|N|40;3|a|30;2|b|20;1|a|10;");
    /* BIGINT, VARCHAR, DOUBLE */
    struct ArrowArrayStream rows;
    CHECK_MSG(basalt_df_collect(back, &rows, &err) == BASALT_OK, "%s", err.message);
    struct ArrowSchema schema;
    CHECK(rows.get_schema(&rows, &schema) == 0);
    CHECK(schema.n_children == 3 && strcmp(schema.children[0]->format, "l") == 0 &&
          strcmp(schema.children[1]->format, "u") == 0 &&
          strcmp(schema.children[2]->format, "g") == 0);
    schema.release(&schema);
    rows.release(&rows);
    unlink(path);
    basalt_df_free(t);
    basalt_df_free(back);
    basalt_df_free(sorted);
    basalt_sql_session_free(s);
}
