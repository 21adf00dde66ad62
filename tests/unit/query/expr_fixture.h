/* The fixture of the scalar-function tests (string_fn_test.c,
 * time_math_fn_test.c): one batch made by the test file, a builder over
 * it, expression shorthands that pass a failure on as NULL (F.failed set,
 * the message in F.err), and EXPECT/EXPECT_ERROR over the cells of one
 * evaluation ("v0|v1|..."). Each file that includes it has its own F. */
#ifndef BASALT_TEST_EXPR_FIXTURE_H
#define BASALT_TEST_EXPR_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "basalt/query.h"
#include "query_test_util.h"
#include "test.h"

struct fx {
    struct ArrowSchema schema;
    struct ArrowArray batch;
    struct basalt_qexpr_builder *b;
    struct basalt_error err;
    bool failed;
};

static struct fx F;

static inline bool fx_open_with(basalt_status (*make_batch)(struct ArrowSchema *,
                                                            struct ArrowArray *))
{
    memset(&F, 0, sizeof F);
    basalt_error_init(&F.err);
    return make_batch(&F.schema, &F.batch) == BASALT_OK &&
           basalt_qexpr_builder_new(&F.schema, &F.b, &F.err) == BASALT_OK;
}

static inline void fx_close(void)
{
    basalt_qexpr_builder_free(F.b);
    basalt_arrow_array_release(&F.batch);
    basalt_arrow_schema_release(&F.schema);
}

static inline struct basalt_qexpr *chk(basalt_status st, struct basalt_qexpr *e)
{
    if (st != BASALT_OK) {
        F.failed = true;
        return NULL;
    }
    return e;
}
static inline struct basalt_qexpr *col(int i)
{
    struct basalt_qexpr *e = NULL;
    basalt_status st_ = basalt_qexpr_column(F.b, i, &e, &F.err);
    return chk(st_, e);
}
static inline struct basalt_qexpr *i64(int64_t v)
{
    struct basalt_qexpr *e = NULL;
    basalt_status st_ = basalt_qexpr_int(F.b, BASALT_QUERY_TYPE_INT64, v, &e, &F.err);
    return chk(st_, e);
}
static inline struct basalt_qexpr *i32(int32_t v)
{
    struct basalt_qexpr *e = NULL;
    basalt_status st_ = basalt_qexpr_int(F.b, BASALT_QUERY_TYPE_INT32, v, &e, &F.err);
    return chk(st_, e);
}
static inline struct basalt_qexpr *f64(double v)
{
    struct basalt_qexpr *e = NULL;
    basalt_status st_ = basalt_qexpr_double(F.b, v, &e, &F.err);
    return chk(st_, e);
}
static inline struct basalt_qexpr *str(const char *s)
{
    struct basalt_qexpr *e = NULL;
    basalt_status st_ = basalt_qexpr_string(F.b, s, strlen(s), &e, &F.err);
    return chk(st_, e);
}
static inline struct basalt_qexpr *null(void)
{
    struct basalt_qexpr *e = NULL;
    struct basalt_query_type t = basalt_query_type_make(BASALT_QUERY_TYPE_NULL);
    basalt_status st_ = basalt_qexpr_null(F.b, t, &e, &F.err);
    return chk(st_, e);
}
/* name(args[0..n)), NULL when an argument is; CALL(name, a, b, ...) counts
 * them. */
static inline struct basalt_qexpr *callv(const char *name, int n, struct basalt_qexpr *const *args)
{
    struct basalt_qexpr *e = NULL;
    for (int i = 0; i < n; i++)
        if (!args[i])
            return NULL;
    basalt_status st_ = basalt_qexpr_call(F.b, name, args, n, &e, &F.err);
    return chk(st_, e);
}
#define CALL(name, ...)                                                                           \
    callv(name, (int)(sizeof((struct basalt_qexpr *[]){__VA_ARGS__}) / sizeof(struct basalt_qexpr *)), \
          (struct basalt_qexpr *[]){__VA_ARGS__})

/* Evaluates e over the batch into cells "v0|v1|...". */
static inline basalt_status run(struct basalt_qexpr *e, char *out, size_t cap)
{
    struct basalt_query_program *p = NULL;
    struct basalt_query_state *s = NULL;
    struct ArrowArray res;
    if (!e)
        return BASALT_INVALID_ARG;
    basalt_status st = basalt_query_compile(F.b, &e, 1, NULL, &p, &F.err);
    if (st == BASALT_OK)
        st = basalt_query_state_new(p, &s, &F.err);
    if (st == BASALT_OK)
        st = basalt_query_eval(p, s, &F.batch, &res, &F.err);
    if (st == BASALT_OK) {
        size_t k = 0;
        out[0] = 0;
        for (int64_t r = 0; r < res.length; r++) {
            char cell[256];
            qt_cell(&res, basalt_qexpr_type(e), r, cell, sizeof cell);
            k += (size_t)snprintf(out + k, cap - k, "%s%s", r ? "|" : "", cell);
        }
        basalt_arrow_array_release(&res);
    }
    basalt_query_state_free(s);
    basalt_query_program_free(p);
    return st;
}

#define EXPECT(expr, want)                                                                        \
    do {                                                                                          \
        char got_[2048];                                                                          \
        struct basalt_qexpr *e_ = (expr);                                                         \
        CHECK_MSG(!F.failed && e_, "build failed: %s", F.err.message);                            \
        CHECK_OK(run(e_, got_, sizeof got_), &F.err);                                             \
        CHECK_MSG(strcmp(got_, want) == 0, "%s:\n  got  %s\n  want %s", #expr, got_, want);     \
    } while (0)

/* Fails when it runs, with a message holding text_. */
#define EXPECT_ERROR(expr, status, text_)                                                         \
    do {                                                                                          \
        char got_[2048];                                                                          \
        struct basalt_qexpr *e_ = (expr);                                                         \
        CHECK_MSG(!F.failed && e_, "build failed: %s", F.err.message);                            \
        CHECK_STATUS(run(e_, got_, sizeof got_), status, &F.err);                                 \
        CHECK_MSG(strstr(F.err.message, text_), "message '%s' lacks '%s'", F.err.message, text_); \
    } while (0)

#endif
