/* basalt query: typed expressions over Arrow batches, compiled once and run
 * in vectors.
 *
 *   - basalt_query_type_*     the logical types expressions compute with
 *   - basalt_qexpr_*          a bound, typed expression tree built in an arena
 *                             over an input struct schema (columns by index);
 *                             function calls resolve through a registry of
 *                             overloads with DuckDB's implicit casts, and
 *                             constant subtrees fold as they are built
 *   - basalt_query_program_*  a list of expressions compiled into kernels
 *                             chosen per (operation, types, constant or column
 *                             operands), run over batches 2048 rows at a time
 *   - basalt_query_state_*    per-thread scratch for running a program
 *
 * Semantics follow DuckDB (names, result types, NULL handling, errors);
 * docs/QUERY.md lists the differences. A compiled program is immutable and
 * may be run by several threads at once, each with its own state. */
#ifndef BASALT_QUERY_H
#define BASALT_QUERY_H

#include "basalt/arrow.h"
#include "basalt/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ types */

enum basalt_query_type_id {
    BASALT_QUERY_TYPE_NULL = 0, /* the type of an untyped NULL */
    BASALT_QUERY_TYPE_BOOL,
    BASALT_QUERY_TYPE_INT8,
    BASALT_QUERY_TYPE_INT16,
    BASALT_QUERY_TYPE_INT32,
    BASALT_QUERY_TYPE_INT64,
    BASALT_QUERY_TYPE_UINT8,
    BASALT_QUERY_TYPE_UINT16,
    BASALT_QUERY_TYPE_UINT32,
    BASALT_QUERY_TYPE_UINT64,
    BASALT_QUERY_TYPE_FLOAT,
    BASALT_QUERY_TYPE_DOUBLE,
    BASALT_QUERY_TYPE_DECIMAL,   /* precision 1..38, scale 0..precision; decimal128 */
    BASALT_QUERY_TYPE_DATE,      /* date32: days since 1970-01-01 */
    BASALT_QUERY_TYPE_TIMESTAMP, /* int64 since the epoch, unit us or ns, optional UTC zone */
    BASALT_QUERY_TYPE_INTERVAL,  /* month_day_nano */
    BASALT_QUERY_TYPE_STRING,    /* utf8 or large_utf8 */
    BASALT_QUERY_TYPE_BINARY,    /* binary or large_binary */
    BASALT_QUERY_TYPE_LIST,      /* a list of one of the types above (basalt_query_type_list) */
    BASALT_QUERY_TYPE_TIME,      /* time64[us]: microseconds since midnight, 0..86400000000 */
    BASALT_QUERY_TYPE_COUNT
};

/* A logical type. Compare with basalt_query_type_equal. */
struct basalt_query_type {
    enum basalt_query_type_id id;
    int8_t precision;        /* DECIMAL */
    int8_t scale;            /* DECIMAL */
    bool nanos;              /* TIMESTAMP: ns instead of us */
    bool tz;                 /* TIMESTAMP: with time zone (values in UTC, printed +00) */
    bool large;              /* STRING, BINARY: 64-bit offsets in Arrow */
    /* LIST: the element's type id; the fields above then describe the
     * element (a LIST of DECIMAL(12,3) has precision 12 and scale 3). Lists
     * do not nest. */
    enum basalt_query_type_id elem;
    uint8_t coarse;          /* TIMESTAMP: 0, or a unit above us (below) */
};

/* DuckDB's TIMESTAMP_S and TIMESTAMP_MS: TIMESTAMPs whose values are whole
 * seconds or milliseconds since the epoch (Arrow timestamp[s], [ms]); never
 * with `nanos` or `tz`. Functions other than casts, comparisons and the
 * order-only aggregates take them as TIMESTAMP (microseconds). */
#define BASALT_QUERY_TS_SECONDS 1
#define BASALT_QUERY_TS_MILLIS 2

/* Constructors for the common types. */
BASALT_EXPORT struct basalt_query_type basalt_query_type_make(enum basalt_query_type_id id);
BASALT_EXPORT struct basalt_query_type basalt_query_type_decimal(int precision, int scale);
BASALT_EXPORT struct basalt_query_type basalt_query_type_timestamp(bool nanos, bool tz);
/* LIST(elem); elem must be a scalar type (not LIST). */
BASALT_EXPORT struct basalt_query_type basalt_query_type_list(struct basalt_query_type elem);
/* The element type of a LIST. */
BASALT_EXPORT struct basalt_query_type basalt_query_type_element(struct basalt_query_type list);
/* TIMESTAMP_S (BASALT_QUERY_TS_SECONDS) or TIMESTAMP_MS (_MILLIS). */
BASALT_EXPORT struct basalt_query_type basalt_query_type_timestamp_coarse(int coarse);
BASALT_EXPORT bool basalt_query_type_equal(struct basalt_query_type a, struct basalt_query_type b);

/* DuckDB's name of a type ("BIGINT", "DECIMAL(12,2)", "TIMESTAMP_NS",
 * "TIMESTAMP WITH TIME ZONE", "VARCHAR") into buf (always NUL-terminated
 * when cap > 0). Returns buf. */
BASALT_EXPORT const char *basalt_query_type_name(struct basalt_query_type type, char *buf,
                                                 size_t cap);

/* The query type of an Arrow format string. Returns OK; UNSUPPORTED for a
 * format the expressions cannot compute with (nested, views, time32 and
 * time64[ns] (scans convert them to time64[us]), duration...), naming it;
 * INVALID_ARG. */
BASALT_EXPORT basalt_status basalt_query_type_from_format(const char *format,
                                                          struct basalt_query_type *out,
                                                          struct basalt_error *err);
/* The query type of an Arrow field: as basalt_query_type_from_format, and
 * a list ("+l") of a type that takes no children is a LIST. */
BASALT_EXPORT basalt_status basalt_query_type_from_schema(const struct ArrowSchema *field,
                                                          struct basalt_query_type *out,
                                                          struct basalt_error *err);
/* The Arrow format string of a type into buf ("+l" for a LIST, whose
 * child has the element's format). Returns OK, LIMIT. */
BASALT_EXPORT basalt_status basalt_query_type_format(struct basalt_query_type type, char *buf,
                                                     size_t cap, struct basalt_error *err);

/* ------------------------------------------------------------------ values */

/* A scalar value of a query type (literals, folded constants). Strings and
 * binaries are views: the builder copies them into its arena. */
struct basalt_query_value {
    struct basalt_query_type type;
    bool is_null;
    union {
        bool b;
        int64_t i;  /* ints, DATE (days), TIMESTAMP (its unit), TIME (us) */
        uint64_t u; /* unsigned ints */
        double f;   /* FLOAT, DOUBLE */
        struct {
            uint64_t lo;
            int64_t hi;
        } dec; /* DECIMAL: unscaled two's-complement 128-bit value */
        struct {
            int32_t months;
            int32_t days;
            int64_t nanos;
        } interval;
        struct {
            const char *ptr;
            size_t len;
        } str; /* STRING, BINARY */
    } v;
};

/* ------------------------------------------------------------------ expressions */

struct basalt_qexpr;
struct basalt_qexpr_builder;

/* Starts a builder over `input`, an Arrow struct schema ("+s") whose children
 * are the columns (borrowed; read during this call only). Nodes live in the
 * builder's arena until basalt_qexpr_builder_free. Not shareable between
 * threads. Returns OK; INVALID_ARG (not a struct); NOMEM. A column of a type
 * the expressions do not support fails only when referenced. */
BASALT_EXPORT basalt_status basalt_qexpr_builder_new(const struct ArrowSchema *input,
                                                     struct basalt_qexpr_builder **out,
                                                     struct basalt_error *err);
BASALT_EXPORT void basalt_qexpr_builder_free(struct basalt_qexpr_builder *b);

/* The source position (byte offset in the query text) given to the nodes
 * built from now on; -1 (the start) means none. Error messages about a node
 * end with " (at position N)". */
BASALT_EXPORT void basalt_qexpr_builder_set_position(struct basalt_qexpr_builder *b,
                                                     int32_t position);

/* Every constructor below returns OK and the node in *out, or an error with
 * *out NULL: INVALID_ARG (NULL argument, column index out of range, a bad
 * constant argument), NOT_FOUND (unknown function: "unknown function
 * 'foo'"), UNSUPPORTED ("no overload of '+' for (VARCHAR, INTEGER)", "cannot
 * cast VARCHAR to INTERVAL"), NOMEM; constant subtrees that fail to fold
 * (overflow...) stay unfolded and fail when run, as DuckDB does. */

/* Column `index` of the input schema. */
BASALT_EXPORT basalt_status basalt_qexpr_column(struct basalt_qexpr_builder *b, int32_t index,
                                                struct basalt_qexpr **out,
                                                struct basalt_error *err);
/* A literal (strings copied). */
BASALT_EXPORT basalt_status basalt_qexpr_literal(struct basalt_qexpr_builder *b,
                                                 const struct basalt_query_value *value,
                                                 struct basalt_qexpr **out,
                                                 struct basalt_error *err);
/* Shorthands for literal. */
BASALT_EXPORT basalt_status basalt_qexpr_int(struct basalt_qexpr_builder *b,
                                             enum basalt_query_type_id id, int64_t v,
                                             struct basalt_qexpr **out, struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_qexpr_double(struct basalt_qexpr_builder *b, double v,
                                                struct basalt_qexpr **out,
                                                struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_qexpr_bool(struct basalt_qexpr_builder *b, bool v,
                                              struct basalt_qexpr **out, struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_qexpr_string(struct basalt_qexpr_builder *b, const char *s,
                                                size_t len, struct basalt_qexpr **out,
                                                struct basalt_error *err);
/* A NULL of `type` (BASALT_QUERY_TYPE_NULL for an untyped NULL). */
BASALT_EXPORT basalt_status basalt_qexpr_null(struct basalt_qexpr_builder *b,
                                              struct basalt_query_type type,
                                              struct basalt_qexpr **out, struct basalt_error *err);

/* A function or operator call resolved by name and argument types, DuckDB's
 * names: operators "+", "-" (also unary), "*", "/", "//", "%", "=", "<>",
 * "<", "<=", ">", ">=", "||"; "like", "not_like", "ilike", "not_ilike" (2 or
 * 3 arguments, the third the ESCAPE character); math "abs", "round",
 * "floor", "ceil", "trunc", "sqrt", "ln", "log10", "exp", "pow", "sign";
 * strings "length", "lower", "upper", "substring", "concat", "trim",
 * "ltrim", "rtrim", "replace", "starts_with", "ends_with", "contains",
 * "regexp_matches", "regexp_full_match" (2 or 3 arguments, the third the
 * options); bitwise "&", "|", "<<", ">>", "~" (one argument) over integers;
 * dates "date_part"/"extract" (constant part name first),
 * "date_trunc", "strftime". Arguments are cast implicitly as DuckDB does
 * (integers widen, integers to DOUBLE or DECIMAL, DATE to TIMESTAMP...). */
BASALT_EXPORT basalt_status basalt_qexpr_call(struct basalt_qexpr_builder *b, const char *name,
                                              struct basalt_qexpr *const *args, int n_args,
                                              struct basalt_qexpr **out,
                                              struct basalt_error *err);
/* Whether `pattern` (RE2 syntax, as regexp_matches reads it) matches
 * somewhere in `subject` (the SQL binder's COLUMNS('regex')). INVALID_ARG
 * with the reason when the pattern does not compile. */
BASALT_EXPORT basalt_status basalt_query_regex_search(const char *pattern, size_t pattern_len,
                                                      const char *subject, size_t subject_len,
                                                      bool *matched, struct basalt_error *err);
/* CAST(x AS type); with `try_cast`, values that do not convert become NULL. */
BASALT_EXPORT basalt_status basalt_qexpr_cast(struct basalt_qexpr_builder *b,
                                              struct basalt_qexpr *x,
                                              struct basalt_query_type type, bool try_cast,
                                              struct basalt_qexpr **out,
                                              struct basalt_error *err);
/* SQL three-valued AND / OR over n >= 1 boolean arguments; NOT. */
BASALT_EXPORT basalt_status basalt_qexpr_and(struct basalt_qexpr_builder *b,
                                             struct basalt_qexpr *const *args, int n,
                                             struct basalt_qexpr **out, struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_qexpr_or(struct basalt_qexpr_builder *b,
                                            struct basalt_qexpr *const *args, int n,
                                            struct basalt_qexpr **out, struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_qexpr_not(struct basalt_qexpr_builder *b,
                                             struct basalt_qexpr *x, struct basalt_qexpr **out,
                                             struct basalt_error *err);
/* x IS NULL, or x IS NOT NULL with `negate`. */
BASALT_EXPORT basalt_status basalt_qexpr_is_null(struct basalt_qexpr_builder *b,
                                                 struct basalt_qexpr *x, bool negate,
                                                 struct basalt_qexpr **out,
                                                 struct basalt_error *err);
/* a IS DISTINCT FROM b, or IS NOT DISTINCT FROM with `negate`. */
BASALT_EXPORT basalt_status basalt_qexpr_is_distinct(struct basalt_qexpr_builder *b,
                                                     struct basalt_qexpr *l, struct basalt_qexpr *r,
                                                     bool negate, struct basalt_qexpr **out,
                                                     struct basalt_error *err);
/* CASE WHEN whens[i] THEN thens[i] ... ELSE else_ END (else_ NULL: ELSE
 * NULL). A branch runs only on the rows that reach it: its errors are raised
 * for those rows alone. */
BASALT_EXPORT basalt_status basalt_qexpr_case(struct basalt_qexpr_builder *b,
                                              struct basalt_qexpr *const *whens,
                                              struct basalt_qexpr *const *thens, int n,
                                              struct basalt_qexpr *else_,
                                              struct basalt_qexpr **out,
                                              struct basalt_error *err);
/* x [NOT] IN (list...). */
BASALT_EXPORT basalt_status basalt_qexpr_in(struct basalt_qexpr_builder *b,
                                            struct basalt_qexpr *x,
                                            struct basalt_qexpr *const *list, int n,
                                            bool negate, struct basalt_qexpr **out,
                                            struct basalt_error *err);
/* x [NOT] BETWEEN lo AND hi. */
BASALT_EXPORT basalt_status basalt_qexpr_between(struct basalt_qexpr_builder *b,
                                                 struct basalt_qexpr *x, struct basalt_qexpr *lo,
                                                 struct basalt_qexpr *hi, bool negate,
                                                 struct basalt_qexpr **out,
                                                 struct basalt_error *err);
/* COALESCE(args...) (later arguments run only on rows still NULL); NULLIF(a, b). */
BASALT_EXPORT basalt_status basalt_qexpr_coalesce(struct basalt_qexpr_builder *b,
                                                  struct basalt_qexpr *const *args, int n,
                                                  struct basalt_qexpr **out,
                                                  struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_qexpr_nullif(struct basalt_qexpr_builder *b,
                                                struct basalt_qexpr *a, struct basalt_qexpr *c,
                                                struct basalt_qexpr **out,
                                                struct basalt_error *err);
/* A value of `type` that fails the evaluation with INVALID_ARG and
 * `message` (copied) at the first row that reaches it: a row of a CASE
 * branch or COALESCE argument that does not run it does not. It is never
 * folded into a constant. */
BASALT_EXPORT basalt_status basalt_qexpr_error(struct basalt_qexpr_builder *b, const char *message,
                                               struct basalt_query_type type,
                                               struct basalt_qexpr **out,
                                               struct basalt_error *err);

/* A node's result type, whether it can be NULL, its source position, and
 * whether it is a constant (then *value views it; strings valid as long as
 * the builder). */
BASALT_EXPORT struct basalt_query_type basalt_qexpr_type(const struct basalt_qexpr *e);
BASALT_EXPORT bool basalt_qexpr_nullable(const struct basalt_qexpr *e);
BASALT_EXPORT int32_t basalt_qexpr_position(const struct basalt_qexpr *e);
BASALT_EXPORT bool basalt_qexpr_constant(const struct basalt_qexpr *e,
                                         struct basalt_query_value *value);
/* The input column a node reads when it is a plain column reference; -1
 * otherwise. */
BASALT_EXPORT int32_t basalt_qexpr_column_index(const struct basalt_qexpr *e);

/* ------------------------------------------------------------------ programs */

struct basalt_query_program;
struct basalt_query_state;

/* Rows per vector. */
#define BASALT_QUERY_VECTOR 2048

struct basalt_query_compile_options {
    /* Compile arithmetic and comparison subtrees over numeric columns into
     * fused register programs (default true); false keeps one kernel per
     * node, the reference the fused path is tested against. */
    bool fuse;
};
BASALT_EXPORT void basalt_query_compile_options_init(struct basalt_query_compile_options *o);

/* Compiles exprs[0, n) (nodes of `b`) into a program. The program copies
 * what it needs: the builder may be freed afterwards. Returns OK,
 * INVALID_ARG, NOMEM. */
BASALT_EXPORT basalt_status basalt_query_compile(struct basalt_qexpr_builder *b,
                                                 struct basalt_qexpr *const *exprs, int n,
                                                 const struct basalt_query_compile_options *opts,
                                                 struct basalt_query_program **out,
                                                 struct basalt_error *err);
BASALT_EXPORT void basalt_query_program_free(struct basalt_query_program *p);

/* Number of output expressions and the Arrow format of output i. */
BASALT_EXPORT int basalt_query_program_outputs(const struct basalt_query_program *p);
BASALT_EXPORT struct basalt_query_type basalt_query_program_type(
    const struct basalt_query_program *p, int i);

/* A readable listing of the compiled steps (one per line: slot, kernel,
 * operands; fused programs with their register steps) into buf, truncated to
 * cap. Returns the length it needed. */
BASALT_EXPORT size_t basalt_query_program_explain(const struct basalt_query_program *p, char *buf,
                                                  size_t cap);

/* Per-thread scratch for running `p` (borrowed; it must outlive the state).
 * Returns OK, NOMEM. */
BASALT_EXPORT basalt_status basalt_query_state_new(const struct basalt_query_program *p,
                                                   struct basalt_query_state **out,
                                                   struct basalt_error *err);
BASALT_EXPORT void basalt_query_state_free(struct basalt_query_state *s);

/* Counters of what a state has run. */
struct basalt_query_stats {
    int64_t vectors;       /* vectors evaluated */
    int64_t fused_vectors; /* vectors run through a fused register program */
    int64_t kernel_calls;  /* unfused kernel invocations */
};
BASALT_EXPORT void basalt_query_state_stats(const struct basalt_query_state *s,
                                            struct basalt_query_stats *stats);

/* Evaluates every output expression over `batch` (a struct array matching
 * the builder's input schema; borrowed) and writes one owned array per
 * output into out[0, outputs) (caller storage; 64-byte aligned buffers).
 * Returns OK; INVALID_ARG (a batch that does not match: wrong child count or
 * layout); the errors of the expressions, with their position: LIMIT
 * ("Overflow in addition of INT64 (9223372036854775807 + 1)!"),
 * INVALID_ARG for conversion errors ("Could not convert string 'x' to
 * INT32"); NOMEM. On failure nothing is left in out. */
BASALT_EXPORT basalt_status basalt_query_eval(const struct basalt_query_program *p,
                                              struct basalt_query_state *s,
                                              const struct ArrowArray *batch,
                                              struct ArrowArray *out, struct basalt_error *err);

/* Evaluates output 0, a BOOL predicate, over `batch` and writes the indices
 * of the rows where it is TRUE (not FALSE, not NULL) into sel[0, *n_selected)
 * (caller storage, batch->length entries), in ascending order. The predicate
 * is never materialised as an array. Returns as basalt_query_eval;
 * INVALID_ARG when output 0 is not BOOL. */
BASALT_EXPORT basalt_status basalt_query_select(const struct basalt_query_program *p,
                                                struct basalt_query_state *s,
                                                const struct ArrowArray *batch, int64_t *sel,
                                                int64_t *n_selected, struct basalt_error *err);

/* Formats a value as DuckDB's CAST(value AS VARCHAR) does ("2024-01-01
 * 10:00:00", "12.30", "1 day 02:00:00") into buf (NUL-terminated, truncated
 * to cap). Returns the length needed. */
BASALT_EXPORT size_t basalt_query_value_format(const struct basalt_query_value *value, char *buf,
                                               size_t cap);

#ifdef __cplusplus
}
#endif

#endif
