/* Output of Arrow record batches for the CLI, shared by every command group
 * that prints rows: an aligned table, CSV or JSON lines, for any
 * (ArrowSchema, ArrowArray) pair of format "+s" whose children are the
 * columns. Also the `--where` row predicates (`col op literal [AND ...]`)
 * evaluated over the same batches.
 *
 * JSON values (one object per row, keys in column order):
 *   integers exact; floats in the shortest text that reads back to the same
 *   value, written as ECMAScript's Number::toString writes it ("0.1", "1e+21",
 *   "1.5e-7"), NaN, Infinity and -Infinity as the strings "NaN", "Infinity",
 *   "-Infinity"; booleans; strings JSON-escaped as JSON.stringify does;
 *   binary and fixed-size binary as base64, but UUIDs (fixed_size_binary(16)
 *   of the arrow.uuid extension type, ARROW:extension:name in the field's
 *   metadata) as their canonical lowercase 8-4-4-4-12 text in every format;
 *   date32/date64 "YYYY-MM-DD";
 *   time32/time64 "HH:MM:SS" with 3, 6 or 9 fraction digits for ms, us and
 *   ns; timestamps "YYYY-MM-DDTHH:MM:SS[.fraction]" at the column's unit, with
 *   a trailing "Z" when the column has a time zone (UTC-adjusted); durations
 *   as integers; decimals as exact decimal strings ("-12.30"); lists and
 *   fixed-size lists as arrays; structs as objects; maps as arrays of
 *   {"key":..,"value":..}; dictionary-encoded values as their values;
 *   intervals as objects ({"months":..,"days":..,"nanoseconds":..});
 *   parquet.variant structs as the JSON of the Variant
 *   (basalt_parquet_variant_to_json), in table and CSV cells too.
 * Table and CSV cells: strings as they are, null as NULL (table) or an empty
 * field (CSV), nested values as their JSON text, everything else as in JSON
 * without quotes. */
#ifndef BASALT_CLI_FORMAT_H
#define BASALT_CLI_FORMAT_H

#include <stdio.h>

#include "basalt/basalt.h"

enum cli_format_kind { CLI_FORMAT_TABLE = 0, CLI_FORMAT_CSV, CLI_FORMAT_JSON };

/* Parses "table", "csv" or "json". false when unknown. */
bool cli_format_parse(const char *name, enum cli_format_kind *out);

/* ------------------------------------------------------------------ values */

/* Appends the JSON text of element `i` of `a` (type `s`), i counted from
 * the array's offset as Arrow says. CORRUPT for data that cannot be printed
 * (offsets out of order), UNSUPPORTED for types without a rendering; NOMEM. */
basalt_status cli_format_json_value(const struct ArrowSchema *s, const struct ArrowArray *a,
                                    int64_t i, struct basalt_buffer *out,
                                    struct basalt_error *err);

/* Appends the cell text of element `i` (see the top); *is_null tells a null
 * (nothing is appended then). */
basalt_status cli_format_cell_value(const struct ArrowSchema *s, const struct ArrowArray *a,
                                    int64_t i, struct basalt_buffer *out, bool *is_null,
                                    struct basalt_error *err);

/* Appends the JSON text of one value of the primitive Arrow type `format`,
 * rendered as cli_format_json_value renders a column of that type: `value`
 * holds the value's bytes as a values buffer would (little-endian, the type's
 * width), or for string / binary ("u", "z") the `len` bytes themselves. */
basalt_status cli_format_json_scalar(const char *format, const void *value, size_t len,
                                     struct basalt_buffer *out, struct basalt_error *err);

/* Appends `n` bytes as a JSON string, escaped as JSON.stringify escapes. */
basalt_status cli_format_json_string(struct basalt_buffer *out, const uint8_t *p, size_t n,
                                     struct basalt_error *err);

/* Whether a column holds numbers (tables right-align them). */
bool cli_format_numeric(const struct ArrowSchema *s);

/* The shortest decimal text of a double (or, with `single`, of a float's
 * value) that reads back to it, ECMAScript-style. buf holds at least 32
 * bytes. NaN and infinities are written "NaN", "Infinity", "-Infinity". */
void cli_format_double(double d, bool single, char *buf);

/* Bytes of Arrow memory the array's values occupy (validity, offsets, values,
 * data, children, dictionary), for throughput figures. */
int64_t cli_format_array_bytes(const struct ArrowSchema *s, const struct ArrowArray *a);

/* ------------------------------------------------------------------ writers */

struct cli_format_writer;

/* A writer of rows to `out` (borrowed) in `kind`, for batches of type
 * `schema` (borrowed; format "+s"). `columns` (NULL: all, in order) lists the
 * children to print, `n_columns` of them. NOMEM. */
basalt_status cli_format_writer_new(FILE *out, enum cli_format_kind kind,
                                    const struct ArrowSchema *schema, const int32_t *columns,
                                    int32_t n_columns, struct cli_format_writer **writer,
                                    struct basalt_error *err);
/* Writes row `row` of `batch` (a struct array of `schema`). Tables keep the
 * first rows to size the columns, then print as they go. */
basalt_status cli_format_writer_row(struct cli_format_writer *w, const struct ArrowArray *batch,
                                    int64_t row, struct basalt_error *err);
/* Prints what is kept (a table with no rows still gets its header). */
basalt_status cli_format_writer_finish(struct cli_format_writer *w, struct basalt_error *err);
void cli_format_writer_free(struct cli_format_writer *w);

/* ------------------------------------------------------------------ predicates */

enum cli_where_op {
    CLI_WHERE_EQ = 0,
    CLI_WHERE_NE,
    CLI_WHERE_LT,
    CLI_WHERE_LE,
    CLI_WHERE_GT,
    CLI_WHERE_GE,
    CLI_WHERE_IS_NULL,
    CLI_WHERE_IS_NOT_NULL
};

enum cli_where_literal {
    CLI_WHERE_LIT_NONE = 0,
    CLI_WHERE_LIT_NUMBER,  /* as written: digits, sign, '.', exponent */
    CLI_WHERE_LIT_STRING,  /* 'single-quoted', '' for a quote */
    CLI_WHERE_LIT_BOOL
};

/* One `column op literal` term. */
struct cli_where_term {
    char *column;            /* dotted path */
    enum cli_where_op op;
    enum cli_where_literal kind;
    char *text;              /* the literal's text (unquoted) */
    bool b;
    /* Bound by cli_where_bind: */
    int32_t top;             /* top-level column index in the schema */
    int32_t path[16];        /* child indices below it */
    bool each[16];           /* path[d] steps into the elements of a list, fixed-size
                              * list or map (child 0: its element or entries) */
    const struct ArrowSchema *node[16]; /* the type path[d] steps from */
    int32_t depth;
    const struct ArrowSchema *type;
    /* The literal in the column's value domain. */
    int value_class;         /* internal */
    int64_t i;
    uint64_t u;
    double d;
    __int128 wide;           /* decimals: unscaled at the column's scale */
    bool inexact;            /* decimals: the literal has more digits than the scale */
};

struct cli_where {
    struct cli_where_term *terms;
    int32_t n;
};

/* Parses `col op literal [AND col op literal ...]` (op = != <> < <= > >=,
 * IS NULL, IS NOT NULL; AND in any case). INVALID_ARG with a message for a
 * malformed expression; NOMEM. */
basalt_status cli_where_parse(const char *text, struct cli_where *out, struct basalt_error *err);
void cli_where_reset(struct cli_where *w);

/* Resolves each term's column in `schema` (a top-level name, or a dotted
 * path through struct fields and into the elements of lists and maps: a
 * list's element and a map's entries by their field names, "l.element",
 * "m.key_value.key", and the Parquet form with the repeated group's name
 * too, "l.list.element") and converts its literal to the column's type:
 * numbers for numeric columns, 'YYYY-MM-DD' for dates, ISO-8601 for times
 * and timestamps, exact decimals, strings for utf8/binary, true/false for
 * bool. NOT_FOUND (no such column); INVALID_ARG (a literal that does not
 * fit the type, a column of a type that cannot be compared). */
basalt_status cli_where_bind(struct cli_where *w, const struct ArrowSchema *schema,
                             struct basalt_error *err);

/* Whether row `row` of `batch` satisfies every term (SQL semantics: a
 * comparison with null is false; NaN compares unequal to everything). A
 * term whose path goes into a list or map holds when it holds for some
 * element (ANY; a null or empty list has none, so no term on its elements
 * holds, IS NULL included); a null struct on the way makes the value null. */
bool cli_where_match(const struct cli_where *w, const struct ArrowArray *batch, int64_t row);

/* The literal of a bound term as the stored value of its column, for the
 * Parquet reader's pruning: kind 0 none (IS [NOT] NULL), 1 int64 `*i`,
 * 2 uint64 `*u`, 3 double `*d`, 4 bytes (`text`), 5 bool (`b`); -1 when the
 * column's values cannot be given to the pruner (decimals, INT96 timestamps
 * read as nanoseconds...). */
int cli_where_stored_literal(const struct cli_where_term *t, int64_t *i, uint64_t *u, double *d);

#endif
