/* basalt iceberg: row filter expressions, typed values, and their evaluation.
 *
 * An expression is a tree of `struct basalt_iceberg_expr` nodes living in an
 * arena. It starts unbound (columns by name, literals as written) from the
 * builders or from the filter language below, and is bound to a table schema
 * (columns by field id, literals converted to the column's type). Bound
 * expressions are what scan planning, partition projection and the
 * vectorised evaluator take.
 *
 * Values (`struct basalt_iceberg_value`, iceberg_types.h) are compared,
 * converted, printed and serialised here (spec Appendix D).
 *
 * Thread safety: expressions and values are immutable once built; any
 * number of threads may read, print, bind or evaluate the same expression.
 * An arena is used by one thread at a time.
 *
 * ------------------------------------------------------------------------
 * The filter language (the one the CLI's filters are written in)
 *
 *   expr       := and_expr { OR and_expr }
 *   and_expr   := not_expr { AND not_expr }
 *   not_expr   := NOT not_expr | primary
 *   primary    := '(' expr ')' | TRUE | FALSE | predicate
 *   predicate  := column IS [NOT] NULL
 *               | column IS [NOT] NAN
 *               | column cmp literal
 *               | literal cmp column                (the operator is flipped)
 *               | column [NOT] IN '(' [literal {',' literal}] ')'
 *               | column [NOT] STARTS WITH string
 *               | column [NOT] LIKE string         (only 'prefix%')
 *   cmp        := '=' | '==' | '!=' | '<>' | '<' | '<=' | '>' | '>='
 *   column     := part {'.' part}                   (a dotted path into structs)
 *   part       := [A-Za-z_][A-Za-z0-9_]*  (not a keyword)
 *               | '"' { any byte but '"' | '""' } '"'  (e.g. "Breed Name")
 *   literal    := integer | decimal | float | string | TRUE | FALSE
 *   integer    := ['-'|'+'] digits                  -> LONG (must fit int64)
 *   decimal    := ['-'|'+'] digits '.' [digits]     -> DECIMAL, the scale is the
 *                                                      number of digits after
 *                                                      the point (at most 38 digits)
 *   float      := ['-'|'+'] digits ['.' [digits]] ('e'|'E') ['-'|'+'] digits -> DOUBLE
 *   string     := "'" { any byte but "'" | "''" } "'"
 *
 * Keywords (AND OR NOT IN IS NULL NAN STARTS WITH LIKE TRUE FALSE) are
 * case-insensitive. Precedence: NOT > AND > OR; AND and OR associate to the
 * left. Whitespace is space, tab, CR and LF. NULL appears only in IS [NOT]
 * NULL. Typed values are written as strings and converted when the filter is
 * bound to a schema: dates '2023-03-01', times '19:25:00.000001',
 * timestamps '2023-03-01T19:25:00' or '2023-03-01 19:25' (timestamptz
 * columns also take 'Z' or '+hh:mm' offsets), uuids
 * 'f79c3e09-677c-4bbd-a479-3f349cb785e7', decimals '12.50'.
 * Expressions nest at most BASALT_ICEBERG_EXPR_MAX_DEPTH levels (a chain of
 * n ANDs is n levels).
 *
 * Semantics: SQL three-valued logic. A predicate on a null value is unknown,
 * except IS NULL / IS NOT NULL; unknown rows are not selected. Comparisons
 * follow basalt_iceberg_value_compare (floats in the spec's total order,
 * strings and binary by unsigned bytes). */
#ifndef BASALT_ICEBERG_EXPR_H
#define BASALT_ICEBERG_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basalt/arrow.h"
#include "basalt/core.h"
#include "basalt/iceberg_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The deepest expression tree the parser builds. */
#define BASALT_ICEBERG_EXPR_MAX_DEPTH 1000

enum basalt_iceberg_op {
    BASALT_ICEBERG_OP_TRUE,
    BASALT_ICEBERG_OP_FALSE,
    BASALT_ICEBERG_OP_AND,
    BASALT_ICEBERG_OP_OR,
    BASALT_ICEBERG_OP_NOT,
    BASALT_ICEBERG_OP_IS_NULL,
    BASALT_ICEBERG_OP_NOT_NULL,
    BASALT_ICEBERG_OP_IS_NAN,
    BASALT_ICEBERG_OP_NOT_NAN,
    BASALT_ICEBERG_OP_LT,
    BASALT_ICEBERG_OP_LT_EQ,
    BASALT_ICEBERG_OP_GT,
    BASALT_ICEBERG_OP_GT_EQ,
    BASALT_ICEBERG_OP_EQ,
    BASALT_ICEBERG_OP_NOT_EQ,
    BASALT_ICEBERG_OP_STARTS_WITH,
    BASALT_ICEBERG_OP_NOT_STARTS_WITH,
    BASALT_ICEBERG_OP_IN,
    BASALT_ICEBERG_OP_NOT_IN
};

struct basalt_iceberg_expr {
    enum basalt_iceberg_op op;
    struct basalt_iceberg_expr *left, *right;   /* AND/OR: both; NOT: left */
    /* predicates */
    const char *name;          /* unbound: the column as written; bound: the field's full dotted name */
    int32_t field_id;          /* 0 while unbound. After projection: the PARTITION field id */
    const struct basalt_iceberg_type *type; /* bound: the field's type (after projection: the partition field's result type) */
    struct basalt_iceberg_value *literals;  /* unbound: as parsed (LONG, DOUBLE, DECIMAL with scale, STRING, BOOLEAN);
                                               bound: converted to `type`; IN/NOT_IN sorted and de-duplicated */
    uint32_t n_literals;
};

/* ------------------------------------------------------------------ builders
 *
 * Nodes, names and literal bytes are copied into `arena`; each returns NULL
 * on allocation failure (or on a NULL operand / name, so calls can nest:
 * and(a, or(b, c)) is NULL when any part failed). and/or fold TRUE and FALSE
 * operands (a AND TRUE = a, a AND FALSE = FALSE, ...); not folds TRUE/FALSE
 * and NOT NOT. The results are unbound predicates (field_id 0, type NULL).
 * `literal` takes one of LT..NOT_EQ, STARTS_WITH, NOT_STARTS_WITH; `set`
 * takes IN / NOT_IN (n may be 0); `unary` IS_NULL..NOT_NAN. A wrong op for
 * the builder returns NULL. */
BASALT_EXPORT struct basalt_iceberg_expr *basalt_iceberg_expr_true(struct basalt_arena *arena);
BASALT_EXPORT struct basalt_iceberg_expr *basalt_iceberg_expr_false(struct basalt_arena *arena);
BASALT_EXPORT struct basalt_iceberg_expr *basalt_iceberg_expr_and(struct basalt_arena *arena,
                                                                  struct basalt_iceberg_expr *a,
                                                                  struct basalt_iceberg_expr *b);
BASALT_EXPORT struct basalt_iceberg_expr *basalt_iceberg_expr_or(struct basalt_arena *arena,
                                                                 struct basalt_iceberg_expr *a,
                                                                 struct basalt_iceberg_expr *b);
BASALT_EXPORT struct basalt_iceberg_expr *basalt_iceberg_expr_not(struct basalt_arena *arena,
                                                                  struct basalt_iceberg_expr *a);
BASALT_EXPORT struct basalt_iceberg_expr *basalt_iceberg_expr_unary(struct basalt_arena *arena,
                                                                    enum basalt_iceberg_op op,
                                                                    const char *name);
BASALT_EXPORT struct basalt_iceberg_expr *basalt_iceberg_expr_literal(
    struct basalt_arena *arena, enum basalt_iceberg_op op, const char *name,
    const struct basalt_iceberg_value *literal);
BASALT_EXPORT struct basalt_iceberg_expr *basalt_iceberg_expr_set(
    struct basalt_arena *arena, enum basalt_iceberg_op op, const char *name,
    const struct basalt_iceberg_value *literals, uint32_t n);

/* Structural equality: same ops, names, field ids and literals (same type,
 * scale and bits; floats bit for bit), same shape. Types are not compared.
 * Either may be NULL (equal only to NULL). */
BASALT_EXPORT bool basalt_iceberg_expr_equal(const struct basalt_iceberg_expr *a,
                                             const struct basalt_iceberg_expr *b);

/* The operator that holds when `op` does not (LT <-> GT_EQ, IN <-> NOT_IN,
 * AND <-> OR, TRUE <-> FALSE, ...); NOT for NOT. */
BASALT_EXPORT enum basalt_iceberg_op basalt_iceberg_op_negate(enum basalt_iceberg_op op);
/* The operator with its operands swapped (LT <-> GT, LT_EQ <-> GT_EQ); others unchanged. */
BASALT_EXPORT enum basalt_iceberg_op basalt_iceberg_op_flip(enum basalt_iceberg_op op);
/* Upper-case name, "LT", "NOT_STARTS_WITH"; static storage, "?" when unknown. */
BASALT_EXPORT const char *basalt_iceberg_op_name(enum basalt_iceberg_op op);

/* ------------------------------------------------------------------ language */

/* Parses `text` (NUL-terminated, the language above) into an unbound
 * expression in `arena`. Returns OK; INVALID_ARG for a syntax error, an
 * integer out of int64, a decimal of more than 38 digits or a LIKE pattern
 * other than 'prefix%', with a message saying what was expected and the byte
 * offset ("expected a literal at byte 4"); LIMIT past
 * BASALT_ICEBERG_EXPR_MAX_DEPTH; NOMEM. *out is NULL on failure; what was
 * allocated stays in the arena until it is reset. */
BASALT_EXPORT basalt_status basalt_iceberg_expr_parse(const char *text, struct basalt_arena *arena,
                                                      struct basalt_iceberg_expr **out,
                                                      struct basalt_error *err);

/* Writes canonical text of `expr` (bound or unbound) with its NUL into
 * buf[0, cap): parse() reads it back into a structurally equal unbound
 * expression (for bound ones: the same predicates with typed literals
 * written as strings, e.g. d = '2023-03-01', which bind back to the same
 * values). Names are quoted when they need it, the right operand of AND/OR is
 * parenthesised when it is the same operator, doubles carry an exponent,
 * decimals a point. Returns OK; LIMIT when it does not fit (buf then holds a
 * truncated, NUL-terminated prefix when cap > 0); INVALID_ARG for a NULL
 * expression or a malformed node. */
BASALT_EXPORT basalt_status basalt_iceberg_expr_to_string(const struct basalt_iceberg_expr *expr,
                                                          char *buf, size_t cap);

/* ------------------------------------------------------------------ binding */

/* Binds names to field ids of `schema` (dotted paths through struct fields;
 * case_sensitive false matches names ignoring ASCII case and fails on
 * ambiguity), converts literals to the field's type (basalt_iceberg_value_convert),
 * pushes NOTs down to the predicates (the result has no NOT) and folds what
 * the schema decides:
 *   - IS NULL on a required field is FALSE, IS NOT NULL TRUE;
 *   - a comparison with a literal outside the type's range (an int column
 *     against 10000000000, a decimal(4,2) against 123.45) becomes FALSE or,
 *     where every non-null value qualifies (int < 10000000000, != ...),
 *     IS NOT NULL (so TRUE on required fields): three-valued logic keeps
 *     nulls out;
 *   - IN / NOT IN drop out-of-range literals, sort and de-duplicate the rest;
 *     one literal left becomes EQ / NOT_EQ, none FALSE / IS NOT NULL;
 *   - AND / OR fold TRUE and FALSE.
 * The result lives in `arena`, points at `schema`'s types (it must outlive
 * the expression) and names each field by its full dotted name.
 * Returns OK; NOT_FOUND for an unknown column (the message names it);
 * INVALID_ARG for a literal that does not convert, an operator the type does
 * not allow (any on struct/list/map/variant/geo columns; IS NAN only on
 * float/double; STARTS WITH only on string; ordering comparisons and IN on
 * non-primitive types), a NaN literal, an already bound expression or a
 * case-insensitive name matching several fields; NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_expr_bind(const struct basalt_iceberg_expr *expr,
                                                     const struct basalt_iceberg_schema *schema,
                                                     bool case_sensitive,
                                                     struct basalt_arena *arena,
                                                     struct basalt_iceberg_expr **out,
                                                     struct basalt_error *err);

/* A copy of `expr` in `arena` with every NOT pushed down to the predicates
 * (NOT a < 5 -> a >= 5, NOT (x AND y) -> NOT x OR NOT y); literals are shared
 * with `expr`. NULL on allocation failure or a NULL expr. */
BASALT_EXPORT struct basalt_iceberg_expr *basalt_iceberg_expr_rewrite_not(
    struct basalt_arena *arena, const struct basalt_iceberg_expr *expr);

/* ------------------------------------------------------------------ values */

/* Orders two non-null values of one type: negative, 0 or positive.
 * Integers, dates, times and timestamps signed; strings, binary, fixed and
 * uuid by unsigned bytes, then length; decimals numerically (scales may
 * differ); booleans false < true; floats in the spec's total order
 * -NaN < -inf < ... < -0 < 0 < ... < inf < NaN (NaNs of one sign are equal).
 * Null or mismatched values order by (is_null, type) so sorting stays total. */
BASALT_EXPORT int basalt_iceberg_value_compare(const struct basalt_iceberg_value *a,
                                               const struct basalt_iceberg_value *b);

/* Single-value binary serialization (spec Appendix D), decoding: `out` gets a
 * value of `type` whose bytes (string, binary, fixed, uuid) view `data`.
 * boolean 1 byte; int/date 4 bytes little-endian; long/time/timestamp(tz)(_ns)
 * 8 bytes little-endian (a long also from 4 bytes, a double also from a
 * 4-byte float: the type promotions); float/double IEEE 754 little-endian;
 * decimal the unscaled value, big-endian two's complement, 1 to 16 bytes
 * (more when the extra leading bytes are sign extension), scale from `type`;
 * uuid 16 bytes; string, fixed and binary the bytes.
 * Returns OK; CORRUPT for a length the type does not allow; UNSUPPORTED for
 * nested, unknown, variant and geo types; INVALID_ARG for NULL arguments. */
BASALT_EXPORT basalt_status basalt_iceberg_value_from_bytes(const struct basalt_iceberg_type *type,
                                                            const uint8_t *data, size_t len,
                                                            struct basalt_iceberg_value *out,
                                                            struct basalt_error *err);

/* Encoding, the inverse: writes the bytes into buf[0, cap) and their number
 * into *len (also on LIMIT, so a caller can size the buffer; at most 16 for
 * fixed-width types). Decimals use the fewest bytes that hold the value.
 * Returns OK; LIMIT when cap is too small; INVALID_ARG for a null value or a
 * type without a serialization. */
BASALT_EXPORT basalt_status basalt_iceberg_value_to_bytes(const struct basalt_iceberg_value *value,
                                                          uint8_t *buf, size_t cap, size_t *len,
                                                          struct basalt_error *err);

/* Converts a literal to `to` (a primitive type), following the spec and the
 * Java implementation's Literals rules:
 *   long    -> int (range-checked), long, float, double, decimal(P,S) (when it
 *              fits P digits), time / timestamp(tz) / timestamp(tz)_ns (taken in
 *              the type's unit);
 *   int     -> as long;
 *   double  -> float (range-checked), double, int / long when integral;
 *   float   -> float, double;
 *   decimal -> decimal(P,S) (rescaled when exact and within P digits),
 *              float, double, int / long when integral;
 *   string  -> string; date 'YYYY-MM-DD'; time 'hh:mm[:ss[.ffffff]]';
 *              timestamp 'YYYY-MM-DD[(T| )hh:mm[:ss[.ffffff]]]' (no offset);
 *              timestamptz the same with an optional 'Z' / '+hh:mm' / '-hh:mm'
 *              offset, converted to UTC (none means UTC); the _ns types take
 *              up to 9 fraction digits; uuid 8-4-4-4-12 hex; decimal '12.50';
 *              binary the string's bytes, fixed the bytes when the length matches;
 *   boolean -> boolean; any type -> itself (decimals rescaled).
 * A null converts to a null of the type. Bytes of the result are copied into
 * `arena` when new (uuid, rescaled) and otherwise view the input's.
 * Returns OK; INVALID_ARG when the conversion does not exist, the text is
 * malformed or the value is out of the target's range; NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_value_convert(const struct basalt_iceberg_value *in,
                                                         const struct basalt_iceberg_type *to,
                                                         struct basalt_arena *arena,
                                                         struct basalt_iceberg_value *out,
                                                         struct basalt_error *err);

/* Human-readable text of a value with its NUL into buf[0, cap): "null";
 * true/false; integers; floats in the shortest form that reads back
 * ("0.1", "1e+30", "NaN", "Infinity", "-Infinity"); decimals exact with
 * their scale ("-0.05"); dates "2023-03-01"; times "19:25:00" (".ffffff"
 * when not whole seconds); timestamps "2023-03-01T19:25:00[.ffffff]" with
 * a "Z" suffix for the tz types (9 fraction digits for the _ns types);
 * strings as they are; uuids 8-4-4-4-12 lower case; binary and fixed as
 * base64. Returns OK; LIMIT when it does not fit (a truncated prefix is
 * written when cap > 0); INVALID_ARG for a type without text. */
BASALT_EXPORT basalt_status basalt_iceberg_value_to_string(const struct basalt_iceberg_value *value,
                                                           char *buf, size_t cap);

/* ------------------------------------------------------------------ evaluation */

/* Vectorised evaluation of a bound expression over a record batch: `schema`
 * and `batch` describe a struct array ("+s"). Columns are found by field id,
 * the "PARQUET:field_id" metadata of the schema's children at any depth
 * through struct children (a null struct makes its fields null). Sets bit i
 * (LSB-first) of `match` (caller-allocated, (length+7)/8 bytes, every bit
 * written) when row i satisfies the expression; SQL three-valued logic,
 * unknown = not selected. A NaN value satisfies no comparison but != and
 * NOT IN, as IEEE 754 says (the ordering of basalt_iceberg_value_compare
 * is for bounds and sorting): file pruning by bounds and NaN counts relies
 * on it.
 * Arrow types accepted for each Iceberg type: boolean "b"; int "c" "s" "i"
 * "C" "S"; long those and "l" "I"; float "f"; double "f" "g"; decimal(P,S)
 * "d:p,S" of 32, 64 or 128 bits (same scale); date "tdD"; time "ttu";
 * timestamp(tz) "tsu:" with or without a zone; the _ns types "tsn:";
 * string "u" "U"; binary "z" "Z" "u" "U"; fixed and uuid "w:N"; a
 * dictionary-encoded column of any of these (integer indices).
 * The arrays are trusted to be valid (check foreign ones first with
 * basalt_arrow_array_validate); lengths and buffer presence are checked.
 * Returns OK; INVALID_ARG (unbound expression, a column whose Arrow type
 * does not fit the field's type, not a struct batch); NOT_FOUND (a field id
 * not in the batch); CORRUPT (missing buffers, short children, a dictionary
 * index out of range, malformed field id metadata); NOMEM. */
BASALT_EXPORT basalt_status basalt_iceberg_expr_eval_batch(const struct basalt_iceberg_expr *bound,
                                                           const struct ArrowSchema *schema,
                                                           const struct ArrowArray *batch,
                                                           uint8_t *match,
                                                           struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
