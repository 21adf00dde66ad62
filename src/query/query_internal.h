/* query internals: the expression nodes, the registry's resolved calls, and
 * the compiled program's steps and vectors. */
#ifndef BASALT_QUERY_INTERNAL_H
#define BASALT_QUERY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "basalt/query.h"

/* Kernels whose loops the compiler vectorises only with AVX2 (a compare of
 * doubles into flag bytes is scalar on baseline x86-64): built twice, the
 * AVX2 copy chosen at load time where the CPU has it. GCC only: clang 14
 * emits no resolver for a cloned function called from another file. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__)
#define BASALT_QK_CLONES __attribute__((target_clones("default", "arch=x86-64-v3")))
#else
#define BASALT_QK_CLONES
#endif

#define QVEC BASALT_QUERY_VECTOR
#define QWORDS (QVEC / 64)

typedef __int128 qi128;

/* Expression nodes (by address) to values (expr/node_map.c): zeroed to
 * start, freed with basalt_qnode_map_free; put returns false out of
 * memory. */
struct qnode_map {
    const void **keys;
    uintptr_t *values;
    size_t cap, n;
};
bool basalt_qnode_map_find(const struct qnode_map *m, const void *key, uintptr_t *value);
bool basalt_qnode_map_put(struct qnode_map *m, const void *key, uintptr_t value);
void basalt_qnode_map_free(struct qnode_map *m);

/* A string or binary value in a vector: a view into the batch's data or the
 * state's string arena. */
struct qstr {
    const char *ptr;
    int64_t len;
};

struct qinterval {
    int32_t months;
    int32_t days;
    int64_t nanos;
};

/* ------------------------------------------------------------------ nodes */

enum qnode_kind {
    QN_COLUMN,
    QN_CONST,
    QN_CALL,     /* a resolved function: op below */
    QN_CAST,
    QN_AND,
    QN_OR,
    QN_NOT,
    QN_IS_NULL,  /* negate: IS NOT NULL */
    QN_DISTINCT, /* negate: IS NOT DISTINCT FROM */
    QN_CASE,     /* args: when0, then0, when1, then1, ..., else */
    QN_COALESCE,
    QN_IN_SET    /* args[0] IN (set): constants of args[0]'s type, looked up in a hash set */
};

/* Resolved operations of QN_CALL. */
enum qop {
    QOP_ADD, QOP_SUB, QOP_MUL, QOP_DIV, QOP_IDIV, QOP_MOD, QOP_NEG,
    QOP_EQ, QOP_NE, QOP_LT, QOP_LE, QOP_GT, QOP_GE,
    QOP_ABS, QOP_ROUND, QOP_FLOOR, QOP_CEIL, QOP_TRUNC, QOP_SQRT, QOP_LN, QOP_LOG10,
    QOP_EXP, QOP_POW, QOP_SIGN,
    QOP_LENGTH, QOP_LOWER, QOP_UPPER, QOP_SUBSTRING, QOP_CONCAT, QOP_TRIM, QOP_LTRIM,
    QOP_RTRIM, QOP_REPLACE, QOP_STARTS_WITH, QOP_ENDS_WITH, QOP_CONTAINS, QOP_LIKE,
    QOP_ILIKE, QOP_REGEXP,
    /* k_string_more.c, with QOP_LOWER and QOP_UPPER */
    QOP_LEFT, QOP_RIGHT, QOP_LPAD, QOP_RPAD, QOP_STRPOS, QOP_REVERSE, QOP_REPEAT,
    QOP_SPLIT_PART, QOP_CONCAT_WS, QOP_ASCII, QOP_CHR, QOP_TRANSLATE, QOP_REGEXP_REPLACE,
    QOP_REGEXP_EXTRACT,
    QOP_DATE_PART, QOP_DATE_TRUNC, QOP_STRFTIME,
    QOP_TS_ADD_INTERVAL, QOP_TS_SUB_INTERVAL, QOP_TS_SUB_TS, QOP_DATE_SUB_DATE,
    QOP_DATE_ADD_DAYS, QOP_DATE_SUB_DAYS,
    QOP_INTERVAL_ADD, QOP_INTERVAL_SUB,
    /* k_time_more.c */
    QOP_DATE_DIFF, QOP_DATE_SUB_PART, QOP_MAKE_DATE, QOP_MAKE_TIMESTAMP, QOP_LAST_DAY,
    QOP_EPOCH_MS, QOP_FROM_EPOCH, QOP_STRPTIME,
    /* k_math_more.c */
    QOP_LOG2, QOP_CBRT, QOP_DEGREES, QOP_RADIANS, QOP_SIN, QOP_COS, QOP_TAN, QOP_ASIN,
    QOP_ACOS, QOP_ATAN, QOP_ATAN2, QOP_LOG_BASE, QOP_EVEN, QOP_ISNAN, QOP_ISINF, QOP_ISFINITE,
    QOP_GCD, QOP_LCM, QOP_BIT_COUNT, QOP_XOR, QOP_GREATEST, QOP_LEAST,
    /* k_error.c */
    QOP_ERROR,
    /* k_bitwise.c */
    QOP_BIT_AND, QOP_BIT_OR, QOP_SHIFT_LEFT, QOP_SHIFT_RIGHT, QOP_BIT_NOT,
    /* k_string_more.c: regexp_full_match (QOP_REGEXP is regexp_matches) */
    QOP_REGEXP_FULL,
    /* k_interval.c */
    QOP_INTERVAL_MUL, QOP_INTERVAL_MUL_F, QOP_INTERVAL_DIV_F, QOP_TO_INTERVAL,
    /* k_list.c */
    QOP_LIST_VALUE, QOP_LIST_LEN, QOP_LIST_EXTRACT, QOP_LIST_CONTAINS, QOP_STRING_SPLIT,
    /* k_list_sort.c: list_sort (aux bit 0 DESC, bit 1 NULLS FIRST), list_distinct */
    QOP_LIST_SORT, QOP_LIST_DISTINCT,
    /* two lists compared (aux: 0 =, 1 <>, 2 <, 3 <=, 4 >, 5 >=) */
    QOP_LIST_CMP,
    /* k_time_of_day.c: TIME +/- INTERVAL (aux -1 for -), DATE + TIME, a TIME's
     * part (aux the part), make_time */
    QOP_TIME_ADD_INTERVAL, QOP_DATE_ADD_TIME, QOP_TIME_PART, QOP_MAKE_TIME,
    QOP_COUNT
};

/* Date parts (date_part, date_trunc). */
enum qpart {
    QP_YEAR, QP_QUARTER, QP_MONTH, QP_WEEK, QP_DAY, QP_HOUR, QP_MINUTE, QP_SECOND,
    QP_MILLISECOND, QP_MICROSECOND, QP_DOW, QP_ISODOW, QP_DOY, QP_EPOCH, QP_DECADE,
    QP_CENTURY, QP_MILLENNIUM
};

struct basalt_qexpr {
    enum qnode_kind kind;
    struct basalt_query_type type;
    bool nullable;
    bool negate;   /* NOT LIKE, IS NOT NULL, IS NOT DISTINCT */
    bool try_cast; /* QN_CAST */
    int32_t pos;
    int32_t column;
    enum qop op;
    int32_t aux; /* date part, like escape char (or -1) */
    const char *name; /* function name as called, for messages */
    struct basalt_query_value value; /* QN_CONST */
    /* QN_IN_SET: the constants (NULLs among them; strings in the builder's
     * arena) */
    const struct basalt_query_value *set;
    int32_t n_set;
    int n_args;
    struct basalt_qexpr **args;
};

struct basalt_qexpr_builder {
    struct basalt_arena arena;
    int32_t n_columns;
    struct basalt_query_type *column_types; /* type id COUNT: unsupported */
    char **column_formats;
    int32_t position;
    bool fold; /* constant folding enabled */
};

/* An input column of a type the expressions do not compute with (a list, a
 * map, a union): it may only pass through (a projection's column, a sort's,
 * join's or window's payload); `name` describes it for the error that any
 * other use gives (basalt_qexpr_refuse_opaque). */
static inline bool basalt_qexpr_opaque(const struct basalt_qexpr *e)
{
    return e != NULL && e->type.id == BASALT_QUERY_TYPE_COUNT;
}

/* bind.c */
/* UNSUPPORTED naming the first opaque expression of es[0..n), else OK. */
basalt_status basalt_qexpr_refuse_opaque(struct basalt_qexpr *const *es, int n,
                                         struct basalt_error *err);
/* UNSUPPORTED naming the first LIST expression of es[0..n) (NULLs
 * skipped) as `what` ("a grouping key"), else OK. */
basalt_status basalt_qexpr_refuse_list(struct basalt_qexpr *const *es, int n, const char *what,
                                       struct basalt_error *err);
basalt_status basalt_qbind_cast(struct basalt_qexpr_builder *b, struct basalt_qexpr *x,
                         struct basalt_query_type to, bool try_cast, bool implicit,
                         struct basalt_qexpr **out, struct basalt_error *err);
basalt_status basalt_qnode_error(const struct basalt_qexpr_builder *b, basalt_status st,
                          struct basalt_error *err, const char *fmt, ...) BASALT_PRINTF(4, 5);

/* types.c */
int basalt_qtype_width(struct basalt_query_type t); /* bytes per value in a vector; 0 bool/null */
bool basalt_qtype_is_int(enum basalt_query_type_id id);
bool basalt_qtype_is_signed_int(enum basalt_query_type_id id);
bool basalt_qtype_is_unsigned(enum basalt_query_type_id id);
bool basalt_qtype_is_numeric(enum basalt_query_type_id id); /* ints, floats, decimal */
const char *basalt_qtype_phys_name(enum basalt_query_type_id id); /* INT64, INT32 ... (messages) */
qi128 basalt_qpow10(int n);
size_t basalt_qformat_decimal(qi128 v, int scale, char *buf, size_t cap);
size_t basalt_qformat_date(int32_t days, char *buf, size_t cap);
size_t basalt_qformat_timestamp(int64_t v, int64_t per_sec, bool tz, char *buf, size_t cap);
/* The text of one value of type t (a number, DATE, TIMESTAMP of any unit,
 * TIME or INTERVAL) as CAST(... AS VARCHAR) writes it; `value` in its
 * native width, at any alignment. 0 for the types it does not write
 * (BOOLEAN, strings: their callers hold them differently). */
size_t basalt_qformat_value(struct basalt_query_type t, const void *value, char *buf, size_t cap);
/* HH:MM:SS[.fraction] of microseconds since midnight, as DuckDB prints TIME. */
size_t basalt_qformat_time(int64_t micros, char *buf, size_t cap);
/* Ticks of a TIMESTAMP type in a second: 1, 1000, 1000000 or 1000000000. */
int64_t basalt_qts_per_second(struct basalt_query_type t);
/* A day in microseconds: TIME holds 0..this (24:00:00 included, as DuckDB). */
#define BASALT_QTIME_DAY INT64_C(86400000000)
size_t basalt_qformat_interval(struct qinterval iv, char *buf, size_t cap);
/* Carries whole days out of the time part and whole 30-day months out of
 * the days: intervals order (and are equal) as their normalised months,
 * then days, then nanoseconds, as in DuckDB. */
void basalt_qinterval_normalize(struct qinterval *iv);
/* -1, 0 or 1: months, then days, then nanoseconds, as stored (normalise
 * both first to compare as DuckDB's comparisons do). */
int basalt_qinterval_cmp_fields(const struct qinterval *x, const struct qinterval *y);
size_t basalt_qformat_int128(qi128 v, char *buf, size_t cap);
/* A DOUBLE / FLOAT as DuckDB casts it to text (Python's repr): the
 * shortest digits that read back, "2.0", "0.0001", "1e-05", "1e+16",
 * "nan", "-nan", "-inf", "-0.0". */
size_t basalt_qformat_double(double v, char *buf, size_t cap);
size_t basalt_qformat_float(float v, char *buf, size_t cap);
void basalt_qcivil_from_days(int64_t z, int64_t *y, int *m, int *d);
int64_t basalt_qdays_from_civil(int64_t y, int m, int d);
bool basalt_qparse_date(const char *s, size_t n, int32_t *out);
bool basalt_qparse_timestamp(const char *s, size_t n, bool nanos, int64_t *out);
bool basalt_qparse_time(const char *s, size_t n, int64_t *out);
int64_t basalt_qfloordiv(int64_t a, int64_t b);
/* a / b (b > 0) rounded half away from zero. */
int64_t basalt_qround_div(int64_t a, int64_t b);
/* v + an interval, as TIMESTAMP + INTERVAL computes it (months first, the
 * day clamped to the month's last, then days, then the rest; us or ns by
 * `ns`) into *out. False when it overflows. */
bool basalt_qts_add_interval(int64_t v, int64_t months, int64_t days, int64_t nanos, bool ns,
                             int64_t *out);

/* ------------------------------------------------------------------ programs */

/* One vector's worth of a slot: values and validity for rows [0, n). */
struct qvec {
    const void *data;     /* values; BOOL: uint64 bit words */
    const uint64_t *valid; /* bit words, NULL: all valid */
    void *dbuf;           /* owned values storage (QVEC values) */
    uint64_t *vbuf;       /* owned validity storage (QWORDS words) */
};

struct qexec;
struct qstep;
typedef basalt_status (*qkernel)(const struct qstep *st, struct qexec *x);

/* Fused register programs: numeric subtrees of + - * / and one comparison at
 * the top, over double registers; leaves load straight from the columns. */
enum qfop { QF_LOAD, QF_CONST, QF_ADD, QF_SUB, QF_MUL, QF_DIV, QF_EQ, QF_NE, QF_LT, QF_LE,
            QF_GT, QF_GE };
struct qfinstr {
    enum qfop op;
    int8_t dst, a, b;  /* registers */
    int32_t column;    /* QF_LOAD: input column */
    enum basalt_query_type_id src; /* QF_LOAD: FLOAT, DOUBLE, INT32 or INT64 */
    double k;          /* QF_CONST */
};

#define QMAX_ARGS 16

struct qstep {
    qkernel fn;
    const char *kname;  /* for explain */
    int32_t out;        /* slot */
    int32_t n_args;
    int32_t args[QMAX_ARGS];
    int32_t mask;       /* slot (BOOL) of the rows whose errors count; -1: all rows */
    int32_t pos;
    enum qop op;
    int32_t aux;
    bool flag;          /* negate / try / nanos... kernel-specific */
    bool a_const, b_const;
    struct basalt_query_type type;    /* result */
    struct basalt_query_type in_type; /* first argument's */
    struct basalt_query_type in_type2;
    int32_t column;     /* QN_COLUMN */
    void *data;         /* kernel-specific compiled data (in the program arena) */
    qkernel inner;      /* IS DISTINCT FROM: the comparison it wraps */
    bool regex;         /* data is a regex_t to regfree with the program */
    /* fused */
    int32_t n_instr;
    struct qfinstr *instr;
    int32_t n_loads;
    int32_t loads[QMAX_ARGS]; /* input columns whose validity is ANDed */
    int8_t result_reg;
    int8_t n_regs;
};

struct qslot {
    struct basalt_query_type type;
    bool is_const;
    bool const_null;
    struct basalt_query_value value; /* constants */
};

struct basalt_query_program {
    struct basalt_arena arena;
    int32_t n_slots;
    struct qslot *slots;
    int32_t n_steps;
    struct qstep *steps;
    int n_out;
    int32_t *out_slots;
    struct basalt_query_type *out_types;
    int32_t n_columns;
    struct basalt_query_type *column_types;
    bool has_strings;
};

/* The input batch as the kernels see it. */
struct qcolumn {
    const struct ArrowArray *array;
    const uint8_t *validity;
    const void *values;
    const void *data; /* string bytes */
    int64_t offset;
};

struct basalt_query_state {
    const struct basalt_query_program *p;
    struct qvec *vec;
    struct basalt_arena strings; /* per vector */
    struct basalt_query_stats stats;
    struct qcolumn *cols;
    void *scratch;
    size_t scratch_cap;
};

struct qexec {
    struct basalt_query_state *s;
    struct qvec *vec;
    struct qcolumn *cols;
    int64_t start; /* first row of the vector in the batch */
    int n;         /* rows in the vector */
    struct basalt_error *err;
};

/* Rows whose errors count: valid in the result and in the step's mask. */
static inline bool qrow_valid(const uint64_t *valid, int i)
{
    return !valid || ((valid[i >> 6] >> (i & 63)) & 1);
}
static inline bool qbit(const uint64_t *w, int i) { return (w[i >> 6] >> (i & 63)) & 1; }
static inline void qbit_set(uint64_t *w, int i, bool v)
{
    if (v)
        w[i >> 6] |= (uint64_t)1 << (i & 63);
    else
        w[i >> 6] &= ~((uint64_t)1 << (i & 63));
}

/* exec.c */
basalt_status basalt_qexec_error(struct qexec *x, const struct qstep *st, basalt_status status,
                          const char *fmt, ...) BASALT_PRINTF(4, 5);
/* Whether row i's error counts (its mask bit, if any, is set). */
static inline bool qcounts(const struct qexec *x, const struct qstep *st, int i)
{
    if (st->mask < 0)
        return true;
    const struct qvec *m = &x->vec[st->mask];
    return qrow_valid(m->valid, i) && qbit((const uint64_t *)m->data, i);
}
/* The result's validity: AND of the arguments' (NULL when all valid). */
void basalt_qvalid_and(struct qexec *x, struct qvec *out, const struct qvec *a, const struct qvec *b);
/* A string result stored in the state's arena. */
char *basalt_qstr_alloc(struct qexec *x, size_t len);

/* kernel selection (k_*.c): fill st->fn for a node; return false if none */
bool basalt_qk_arith_select(struct qstep *st);
bool basalt_qk_compare_select(struct qstep *st);
/* arena: the program's, for kernel data (a list's element cast) */
bool basalt_qk_cast_select(struct qstep *st, struct basalt_arena *arena);
bool basalt_qk_math_select(struct qstep *st);
bool basalt_qk_string_select(struct qstep *st, struct basalt_arena *arena, const struct qslot *slots);
/* k_string_more.c: QOP_LEFT to QOP_REGEXP_EXTRACT, QOP_LOWER and QOP_UPPER,
 * hooked into basalt_qk_string_select; false for others. The call's aux of
 * regexp_replace and regexp_extract holds DuckDB's options and
 * regexp_extract's group (QRE_GROUP_NULL: a NULL group, always ''). */
bool basalt_qk_string_more_select(struct qstep *st, struct basalt_arena *arena,
                                  const struct qslot *slots);
enum { QRE_GROUP = 15, QRE_GROUP_NULL = 15, QRE_ICASE = 16, QRE_DOT_NL = 32, QRE_LITERAL = 64,
       QRE_GLOBAL = 128, QRE_FULL = 256 /* the whole string must match */ };
/* Whether the RE2 pattern p[0..n) compiles under those options; else the
 * reason in msg. */
bool basalt_qregex_check(const char *p, size_t n, int32_t flags, char *msg, size_t cap);
bool basalt_qk_time_select(struct qstep *st);
/* k_bitwise.c: QOP_BIT_AND to QOP_BIT_NOT. */
bool basalt_qk_bitwise_select(struct qstep *st);
/* k_time_more.c, k_math_more.c: the operations after QOP_INTERVAL_SUB, hooked
 * into basalt_qk_time_select and basalt_qk_math_select; false for others. */
bool basalt_qk_time_more_select(struct qstep *st);
/* k_interval.c: QOP_INTERVAL_MUL to QOP_TO_INTERVAL. */
bool basalt_qk_interval_select(struct qstep *st);
bool basalt_qk_time_of_day_select(struct qstep *st);
/* k_error.c: QOP_ERROR (basalt_qexpr_error). */
bool basalt_qk_error_select(struct qstep *st);
bool basalt_qk_math_more_select(struct qstep *st);
/* k_time_more.c: whether strptime takes format f[0..n), and the result's
 * kind (nanoseconds for %n, WITH TIME ZONE for %z); false with *bad the
 * specifier it does not take, '\0' for an empty format or a trailing '%'. */
bool basalt_qstrptime_format(const char *f, size_t n, bool *nanos, bool *tz, char *bad);
/* k_in_set.c: the step of a QN_IN_SET node e, its hash set built in arena;
 * false out of memory or for a type it does not take
 * (basalt_qk_in_set_type). */
bool basalt_qk_in_set_select(struct qstep *st, struct basalt_arena *arena,
                             const struct basalt_qexpr *e);
bool basalt_qk_in_set_type(enum basalt_query_type_id id);
/* k_list.c: LIST values (a view of the serialised elements per row, see
 * the file's comment). The kernels of QOP_LIST_VALUE to QOP_STRING_SPLIT,
 * the casts from a LIST (to VARCHAR, from a list of NULLs, to itself), and
 * the read of a "+l" column. */
bool basalt_qk_list_select(struct qstep *st);
bool basalt_qk_list_cast_select(struct qstep *st, struct basalt_arena *arena);
basalt_status basalt_qk_list_column(const struct qstep *st, struct qexec *x);
/* A LIST result gathered into an Arrow child array, list by list. */
struct qlist_out {
    struct basalt_query_type elem;
    int64_t n; /* elements so far */
    struct basalt_buffer valid, values, offsets, data;
};
void basalt_qlist_out_init(struct qlist_out *o, struct basalt_query_type list);
void basalt_qlist_out_free(struct qlist_out *o);
/* Appends the elements of `list`; *end: the elements so far (the row's end
 * offset). */
basalt_status basalt_qlist_out_put(struct qlist_out *o, struct qstr list, int32_t *end,
                                   struct basalt_error *err);
basalt_status basalt_qlist_out_finish(struct qlist_out *o, struct ArrowArray *child,
                                      struct basalt_error *err);
basalt_status basalt_qk_fused(const struct qstep *st, struct qexec *x);
basalt_status basalt_qk_distinct(const struct qstep *st, struct qexec *x);

/* parse/format helpers shared by casts */
bool basalt_qparse_int(const char *s, size_t n, int64_t *out);
bool basalt_qparse_double(const char *s, size_t n, double *out);
bool basalt_qparse_decimal(const char *s, size_t n, int precision, int scale, qi128 *out);

/* Function resolution beyond bind.c's table (bind_bitwise.c, bind_regex.c):
 * each table lists names with their argument counts and resolvers, which
 * build their calls with bind.c's helpers below. */
typedef basalt_status (*qext_resolve_fn)(struct basalt_qexpr_builder *b, const char *name, enum qop op,
                                         struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                                         struct basalt_error *err);
struct qfunc_ext {
    const char *name;
    enum qop op;
    qext_resolve_fn resolve;
    int min_args, max_args;
};
extern const struct qfunc_ext basalt_qfuncs_bitwise[];
extern const size_t basalt_qfuncs_bitwise_n;
extern const struct qfunc_ext basalt_qfuncs_regex[];
extern const size_t basalt_qfuncs_regex_n;
extern const struct qfunc_ext basalt_qfuncs_interval[];
extern const size_t basalt_qfuncs_interval_n;
/* bind_interval.c: INTERVAL * or / a number (either side for *). */
basalt_status basalt_qbind_interval_arith(struct basalt_qexpr_builder *b, const char *name,
                                          enum qop op, struct basalt_qexpr **args,
                                          struct basalt_qexpr **out, struct basalt_error *err);
extern const struct qfunc_ext basalt_qfuncs_list[];
/* bind_list.c: `l op r` for op QOP_EQ .. QOP_GE over two lists (or a list
 * and a NULL), as DuckDB compares lists. */
basalt_status basalt_qbind_list_compare(struct basalt_qexpr_builder *b, const char *name,
                                        enum qop op, struct basalt_qexpr **args,
                                        struct basalt_qexpr **out, struct basalt_error *err);
extern const size_t basalt_qfuncs_list_n;
extern const struct qfunc_ext basalt_qfuncs_time[];
extern const size_t basalt_qfuncs_time_n;
/* bind_time.c: +/- with a TIME operand (sets *handled when it is one of
 * DuckDB's TIME overloads), and date_part of a TIME. */
basalt_status basalt_qbind_time_arith(struct basalt_qexpr_builder *b, const char *name,
                                      enum qop op, struct basalt_qexpr **args, bool *handled,
                                      struct basalt_qexpr **out, struct basalt_error *err);
basalt_status basalt_qbind_time_part(struct basalt_qexpr_builder *b, const char *name, int part,
                                     struct basalt_qexpr *arg, struct basalt_qexpr **out,
                                     struct basalt_error *err);
/* date_diff/date_sub over TIMEs: *arg (a TIME; anything else is left) as the
 * TIMESTAMP of that time on 1970-01-01; UNSUPPORTED for a part above hours
 * (but epoch). */
basalt_status basalt_qbind_time_at_epoch(struct basalt_qexpr_builder *b, const char *name,
                                         int part, struct basalt_qexpr **arg,
                                         struct basalt_error *err);
/* bind.c's make_call: casts args to types and makes (or folds) the call. */
basalt_status basalt_qbind_call(struct basalt_qexpr_builder *b, const char *name, enum qop op,
                                struct basalt_qexpr **args, int n, const struct basalt_query_type *types,
                                struct basalt_query_type result, bool nullable,
                                struct basalt_qexpr **out, struct basalt_error *err);
/* The same, the call's aux and negate set before it folds. */
basalt_status basalt_qbind_call_aux(struct basalt_qexpr_builder *b, const char *name, enum qop op,
                                    struct basalt_qexpr **args, int n,
                                    const struct basalt_query_type *types,
                                    struct basalt_query_type result, int32_t aux, bool negate,
                                    struct basalt_qexpr **out, struct basalt_error *err);
/* A call of args already of their types, never NULL and never folded
 * (list_value: a NULL argument is a NULL element). */
basalt_status basalt_qbind_list_call(struct basalt_qexpr_builder *b, const char *name, enum qop op,
                                     struct basalt_qexpr **args, int n,
                                     struct basalt_query_type result, struct basalt_qexpr **out,
                                     struct basalt_error *err);
/* "no overload of 'name' for (T1, T2)" */
basalt_status basalt_qbind_no_overload(struct basalt_qexpr_builder *b, const char *name,
                                       struct basalt_qexpr *const *args, int n, struct basalt_error *err);
/* The common type of two operands (DuckDB's, with its integer-literal rule
 * for UBIGINT); false when there is none. */
bool basalt_qbind_operand_type(const struct basalt_qexpr *x, const struct basalt_qexpr *y,
                               struct basalt_query_type *out);
/* The same with x taken as of type xt and y of yt (a running common type
 * over several operands). */
bool basalt_qbind_operand_types(const struct basalt_qexpr *x, struct basalt_query_type xt,
                                const struct basalt_qexpr *y, struct basalt_query_type yt,
                                struct basalt_query_type *out);

/* Folding: evaluates a constant node into *out (program built over no columns). */
basalt_status basalt_qfold(struct basalt_qexpr_builder *b, struct basalt_qexpr *e,
                    struct basalt_query_value *out, struct basalt_error *err);

#endif
