/* LIST values with hand-written expected values (DuckDB 1.5's answers for
 * the same rows): list columns of integers and strings with NULL lists,
 * empty lists and NULL elements, read through the kernels (len, element
 * access from either end, list_contains, casts to text and between element
 * types, list_value) and written back to Arrow as "+l". */
#include <string.h>

#include "expr_fixture.h"

#define N 6
enum { C_LI, C_LS, C_K, C_COUNT };

/* li INTEGER[]: [1, NULL, 3] | [] | NULL | [-5] | [7, 7] | [NULL]
 * ls VARCHAR[]: ['a', 'b,c'] | NULL | [''] | ['x', NULL] | [] | ['null']
 * k  INTEGER:   1 | -1 | 2 | -2 | 3 | NULL */
static basalt_status make_batch(struct ArrowSchema *schema, struct ArrowArray *array)
{
    struct basalt_arrow_builder *root, *li, *ls, *k, *lie, *lse;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, NULL);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(root, "+l", "li", ARROW_FLAG_NULLABLE, &li, NULL);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(li, "i", "item", ARROW_FLAG_NULLABLE, &lie, NULL);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(root, "+l", "ls", ARROW_FLAG_NULLABLE, &ls, NULL);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(ls, "u", "item", ARROW_FLAG_NULLABLE, &lse, NULL);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(root, "i", "k", ARROW_FLAG_NULLABLE, &k, NULL);
    /* -100: a NULL element, -200: a NULL list */
    static const int64_t iv[N][4] = {{1, -100, 3}, {0}, {-200}, {-5}, {7, 7}, {-100}};
    static const int in[N] = {3, 0, 1, 1, 2, 1};
    static const char *const sv[N][2] = {{"a", "b,c"}, {"-"}, {""}, {"x", NULL}, {NULL}, {"null"}};
    static const int sn[N] = {2, -1, 1, 2, 0, 1};
    static const int64_t kv[N] = {1, -1, 2, -2, 3, 0};
    for (int r = 0; r < N && st == BASALT_OK; r++) {
        if (in[r] == 1 && iv[r][0] == -200) {
            st = basalt_arrow_builder_append_null(li, NULL);
        } else {
            for (int e = 0; e < in[r] && st == BASALT_OK; e++)
                st = iv[r][e] == -100 ? basalt_arrow_builder_append_null(lie, NULL)
                                      : basalt_arrow_builder_append_int(lie, iv[r][e], NULL);
            if (st == BASALT_OK)
                st = basalt_arrow_builder_end_element(li, NULL);
        }
        if (st == BASALT_OK && sn[r] < 0) {
            st = basalt_arrow_builder_append_null(ls, NULL);
        } else if (st == BASALT_OK) {
            for (int e = 0; e < sn[r] && st == BASALT_OK; e++)
                st = sv[r][e] ? basalt_arrow_builder_append_string(lse, sv[r][e], NULL)
                              : basalt_arrow_builder_append_null(lse, NULL);
            if (st == BASALT_OK)
                st = basalt_arrow_builder_end_element(ls, NULL);
        }
        if (st == BASALT_OK)
            st = r == N - 1 ? basalt_arrow_builder_append_null(k, NULL)
                            : basalt_arrow_builder_append_int(k, kv[r], NULL);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, NULL);
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(root, schema, array, NULL);
    basalt_arrow_builder_free(root);
    return st;
}

static bool fx_open(void)
{
    return fx_open_with(make_batch);
}

static struct basalt_qexpr *cast(struct basalt_qexpr *x, struct basalt_query_type t, bool try_cast)
{
    struct basalt_qexpr *e = NULL;
    if (!x)
        return NULL;
    basalt_status st_ = basalt_qexpr_cast(F.b, x, t, try_cast, &e, &F.err);
    return chk(st_, e);
}

static struct basalt_qexpr *text(struct basalt_qexpr *x)
{
    return cast(x, basalt_query_type_make(BASALT_QUERY_TYPE_STRING), false);
}

TEST(list_fn_types)
{
    CHECK(fx_open());
    struct basalt_query_type li = basalt_qexpr_type(col(C_LI));
    char name[64];
    CHECK(li.id == BASALT_QUERY_TYPE_LIST && li.elem == BASALT_QUERY_TYPE_INT32);
    CHECK(strcmp(basalt_query_type_name(li, name, sizeof name), "INTEGER[]") == 0);
    CHECK(strcmp(basalt_query_type_name(basalt_qexpr_type(col(C_LS)), name, sizeof name),
                 "VARCHAR[]") == 0);
    struct basalt_query_type dl = basalt_query_type_list(basalt_query_type_decimal(12, 3));
    CHECK(strcmp(basalt_query_type_name(dl, name, sizeof name), "DECIMAL(12,3)[]") == 0);
    CHECK(basalt_query_type_element(dl).precision == 12);
    CHECK(!basalt_query_type_equal(dl, basalt_query_type_list(basalt_query_type_decimal(12, 2))));
    CHECK(strcmp(basalt_query_type_name(basalt_qexpr_type(CALL("list_value")), name, sizeof name),
                 "\"NULL\"[]") == 0);
    fx_close();
}

TEST(list_fn_values)
{
    CHECK(fx_open());
    EXPECT(text(col(C_LI)), "[1, NULL, 3]|[]|NULL|[-5]|[7, 7]|[NULL]");
    EXPECT(text(col(C_LS)), "[a, 'b,c']|NULL|['']|[x, NULL]|[]|['null']");
    EXPECT(CALL("len", col(C_LI)), "3|0|NULL|1|2|1");
    EXPECT(CALL("length", col(C_LS)), "2|NULL|1|2|0|1");
    EXPECT(CALL("list_extract", col(C_LI), col(C_K)), "1|NULL|NULL|NULL|NULL|NULL");
    EXPECT(CALL("list_extract", col(C_LI), i32(-1)), "3|NULL|NULL|-5|7|NULL");
    EXPECT(CALL("list_extract", col(C_LS), i32(2)), "b,c|NULL|NULL|NULL|NULL|NULL");
    EXPECT(CALL("list_extract", col(C_LS), i32(0)), "NULL|NULL|NULL|NULL|NULL|NULL");
    EXPECT(CALL("list_contains", col(C_LI), i32(7)), "false|false|NULL|false|true|false");
    EXPECT(CALL("list_contains", col(C_LI), col(C_K)), "true|false|NULL|false|false|NULL");
    EXPECT(CALL("list_contains", col(C_LS), str("")), "false|NULL|true|false|false|false");
    /* list_value keeps NULL arguments as NULL elements */
    EXPECT(text(CALL("list_value", col(C_K), null(), i32(4))),
           "[1, NULL, 4]|[-1, NULL, 4]|[2, NULL, 4]|[-2, NULL, 4]|[3, NULL, 4]|[NULL, NULL, 4]");
    EXPECT(text(CALL("string_split", str("a,,b"), str(","))), "[a, '', b]|[a, '', b]|[a, '', b]|"
                                                              "[a, '', b]|[a, '', b]|[a, '', b]");
    fx_close();
}

TEST(list_fn_casts)
{
    CHECK(fx_open());
    struct basalt_query_type dbl = basalt_query_type_list(basalt_query_type_make(BASALT_QUERY_TYPE_DOUBLE));
    struct basalt_query_type ints = basalt_query_type_list(basalt_query_type_make(BASALT_QUERY_TYPE_INT32));
    EXPECT(text(cast(col(C_LI), dbl, false)), "[1.0, NULL, 3.0]|[]|NULL|[-5.0]|[7.0, 7.0]|[NULL]");
    EXPECT(text(cast(col(C_LS), ints, true)), "[NULL, NULL]|NULL|[NULL]|[NULL, NULL]|[]|[NULL]");
    EXPECT_ERROR(cast(col(C_LS), ints, false), BASALT_INVALID_ARG,
                 "Could not convert string 'a' to INT32");
    /* a CASE that does not take row 0 does not cast it */
    struct basalt_qexpr *when = CALL("<", col(C_K), i32(0)), *out = NULL;
    struct basalt_qexpr *then = cast(CALL("list_value", str("12")), ints, false);
    CHECK(when && then);
    CHECK_OK(basalt_qexpr_case(F.b, &when, &then, 1, NULL, &out, &F.err), &F.err);
    EXPECT(text(out), "NULL|[12]|NULL|[12]|NULL|NULL");
    struct basalt_query_type blob = basalt_query_type_make(BASALT_QUERY_TYPE_DATE);
    struct basalt_qexpr *bad = NULL;
    CHECK_STATUS(basalt_qexpr_cast(F.b, col(C_LI), blob, false, &bad, &F.err), BASALT_UNSUPPORTED,
                 &F.err);
    fx_close();
}

TEST(list_fn_refused)
{
    CHECK(fx_open());
    /* lists compare (bind_list.c), but take no arithmetic */
    struct basalt_qexpr *e = NULL, *args[2] = {col(C_LI), col(C_LI)};
    basalt_qexpr_builder_set_position(F.b, 17);
    CHECK_STATUS(basalt_qexpr_call(F.b, "+", args, 2, &e, &F.err), BASALT_UNSUPPORTED, &F.err);
    CHECK(strstr(F.err.message, "'+' does not take lists (INTEGER[])") &&
          strstr(F.err.message, "(at position 17)"));
    /* nor compare when their elements do not convert ([1] = ['a']) */
    struct basalt_qexpr *mixed[2] = {col(C_LI), col(C_LS)};
    CHECK_STATUS(basalt_qexpr_call(F.b, "=", mixed, 2, &e, &F.err), BASALT_UNSUPPORTED, &F.err);
    CHECK(strstr(F.err.message, "no overload of '='"));
    struct basalt_qexpr *nested[1] = {col(C_LI)};
    CHECK_STATUS(basalt_qexpr_call(F.b, "list_value", nested, 1, &e, &F.err), BASALT_UNSUPPORTED,
                 &F.err);
    CHECK(strstr(F.err.message, "lists of lists"));
    fx_close();
}

/* A LIST result goes back to Arrow as "+l" with its child: offsets over
 * the kept elements, a NULL list taking none. */
TEST(list_fn_arrow_output)
{
    CHECK(fx_open());
    struct basalt_qexpr *e = col(C_LS);
    struct basalt_query_program *p = NULL;
    struct basalt_query_state *s = NULL;
    struct ArrowArray res;
    CHECK_OK(basalt_query_compile(F.b, &e, 1, NULL, &p, &F.err), &F.err);
    CHECK_OK(basalt_query_state_new(p, &s, &F.err), &F.err);
    CHECK_OK(basalt_query_eval(p, s, &F.batch, &res, &F.err), &F.err);
    CHECK(res.length == N && res.null_count == 1 && res.n_children == 1);
    const int32_t *off = res.buffers[1];
    static const int32_t want[N + 1] = {0, 2, 2, 3, 5, 5, 6};
    for (int i = 0; i <= N; i++)
        CHECK_MSG(off[i] == want[i], "offset %d: %d, want %d", i, off[i], want[i]);
    const struct ArrowArray *c = res.children[0];
    CHECK(c->length == 6 && c->null_count == 1);
    const int32_t *co = c->buffers[1];
    CHECK(co[2] - co[1] == 3 && memcmp((const char *)c->buffers[2] + co[1], "b,c", 3) == 0);
    basalt_arrow_array_release(&res);
    basalt_query_state_free(s);
    basalt_query_program_free(p);
    fx_close();
}
