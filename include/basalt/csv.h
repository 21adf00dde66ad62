/* basalt csv: reading and writing delimited text (RFC 4180 and its dialects).
 *
 *   - basalt_csv_reader_*   sniff a file's dialect, header and column types,
 *                           then parse it in parallel into Arrow record batches
 *   - basalt_csv_writer_*   Arrow record batches to CSV text on an output
 *
 * Grammar (reader): records end with LF or CRLF; the last record may lack
 * one. A field is quoted when it starts with the quote character; inside,
 * the delimiter, CR and LF are data and the quote is escaped by doubling it
 * ("a""b") or, with a backslash escape, as \" (and \\). Nothing but a
 * delimiter or a record end may follow a closing quote, and a quote may not
 * appear inside an unquoted field. A bare CR outside quotes is an error. A
 * UTF-8 byte order mark at offset 0 is skipped. Blank lines are skipped
 * (unless the file has a single column, where they are nulls). Whitespace is
 * data, never trimmed.
 *
 * Values: an unquoted field equal to one of the null strings is null (the
 * default null string is "", so an empty unquoted field is null); a quoted
 * field is never null ("" is the empty string). Columns are:
 *   bool       "b"        true / false, any case
 *   int32      "i"        (only when asked for) decimal integers
 *   int64      "l"        decimal integers, range-checked
 *   double     "g"        decimal numbers with an optional exponent; also
 *                         inf, infinity and nan (any case, signed) when the
 *                         column is double; correctly rounded
 *   float      "f"        (only when asked for) as double, then narrowed
 *   decimal    "d:P,S"    (only when asked for) exact; more fraction digits
 *                         than S round half away from zero; too many digits
 *                         is an error
 *   date       "tdD"      YYYY-MM-DD
 *   timestamp  "tsu:"     YYYY-MM-DD[ T]HH:MM[:SS[.f{1,9}]], microseconds
 *                         (digits past the sixth are truncated)
 *   timestamptz "tsu:UTC" the same with Z, +HH, +HHMM or +HH:MM: adjusted to UTC
 *   string     "u"        any valid UTF-8 (invalid UTF-8 is an error)
 *
 * Sniffing (what is not given in the options is detected from the first
 * `sample_rows` records): the delimiter among , ; TAB | and the quote among
 * " and ' (the pair that splits the sample into the most consistent number
 * of fields); whether the first record is a header (it is when some column
 * whose other values are all of a non-string type has a first value that is
 * not of that type, or when every column is a string column); and each
 * column's type, the narrowest of bool, int64, double, date, timestamp,
 * timestamptz and string that holds every sampled value. Sniffing is
 * stricter than parsing, so that text which only looks like a number stays
 * text: integers with a leading zero ("007") or a plus sign, and inf/nan,
 * sniff as string. Conflicts promote int64 -> double and timestamp ->
 * timestamptz; anything else (dates mixed with timestamps too, and a column
 * of nulls only) becomes string.
 * Header names are deduplicated as name, name_1, ...; an empty name and
 * every column of a file without header is column<i>, with i zero-padded to
 * the width of the largest index (column0..column9, column00..column11).
 *
 * A value after the sample that does not fit its column's sniffed type is
 * an error, never a silent change of value: CORRUPT with the file, the
 * 1-based line, the 1-based column and its name, and the value. Give the
 * column's type in the options, or sample every record (sample_rows < 0), to
 * read such a file.
 *
 * Parallelism: the bytes after the header are cut into chunks of
 * `chunk_size`; each chunk starts at the first record start at or after its
 * nominal offset, found from the parity of the quotes before it (with
 * doubled-quote escaping a quote toggles in and out of a quoted field, so a
 * line feed ends a record exactly when an even number of quotes precede
 * it). The quote counts of the chunks are taken in parallel, the starts
 * follow from a prefix sum, and the chunks are parsed concurrently on the
 * pool. With a backslash escape or a comment character the starts come from
 * one serial scan instead (a quote there does not always toggle), and the
 * parsing stays parallel. With one worker there is no separate split: the
 * parser ends each chunk at the first record start at or after the next
 * nominal offset, which is where the split would have put it. Each chunk
 * gives batches of at most `batch_size` rows; batches come out in file order.
 * The output (the batches, their lengths and every error) depends on the
 * bytes and the options only, never on the number of workers.
 *
 * Thread safety: a reader or writer is used by one thread at a time. */
#ifndef BASALT_CSV_H
#define BASALT_CSV_H

#include "basalt/arrow.h"
#include "basalt/core.h"
#include "basalt/io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Column types of the reader, for options and for the sniffed schema. */
enum basalt_csv_type {
    BASALT_CSV_TYPE_AUTO = 0, /* options: sniff this column */
    BASALT_CSV_TYPE_BOOL,
    BASALT_CSV_TYPE_INT32,
    BASALT_CSV_TYPE_INT64,
    BASALT_CSV_TYPE_FLOAT,
    BASALT_CSV_TYPE_DOUBLE,
    BASALT_CSV_TYPE_DECIMAL,  /* with precision and scale */
    BASALT_CSV_TYPE_DATE,
    BASALT_CSV_TYPE_TIMESTAMP,
    BASALT_CSV_TYPE_TIMESTAMPTZ,
    BASALT_CSV_TYPE_TIME, /* HH:MM[:SS[.ffffff]] as time64[us] */
    BASALT_CSV_TYPE_STRING
};

/* A column type; precision (1..38) and scale (0..precision) for decimals. */
struct basalt_csv_column_type {
    enum basalt_csv_type type;
    int32_t precision;
    int32_t scale;
};

/* Parses a type name: bool, int32, int64, float, double, date, timestamp,
 * timestamptz, string, decimal(P,S) (also the aliases boolean, int, integer,
 * bigint, long, real, float64, varchar, text, utf8). INVALID_ARG naming the
 * text when unknown. */
BASALT_EXPORT basalt_status basalt_csv_type_parse(const char *text, size_t len,
                                                  struct basalt_csv_column_type *out,
                                                  struct basalt_error *err);
/* The name of a type as parse reads it ("int64", "decimal(10,2)") into
 * buf[0, cap) with its NUL (truncated to fit). */
BASALT_EXPORT void basalt_csv_type_name(const struct basalt_csv_column_type *type, char *buf,
                                        size_t cap);
/* The Arrow format string of a type ("l", "tsu:UTC", "d:10,2") into
 * buf[0, cap) with its NUL (at least 16 bytes). */
BASALT_EXPORT void basalt_csv_type_format(const struct basalt_csv_column_type *type, char *buf,
                                          size_t cap);

/* What the first record is. */
enum basalt_csv_header { BASALT_CSV_HEADER_AUTO = 0, BASALT_CSV_HEADER_YES, BASALT_CSV_HEADER_NO };

/* Escaping inside quoted fields. */
enum basalt_csv_escape {
    BASALT_CSV_ESCAPE_DOUBLED = 0, /* "" is a quote (RFC 4180) */
    BASALT_CSV_ESCAPE_BACKSLASH    /* \" is a quote, \\ a backslash */
};

/* Reader options. Everything borrowed is read during basalt_csv_reader_open
 * only (the reader copies what it keeps), except `pool`, which must outlive
 * the reader. */
struct basalt_csv_read_options {
    char delimiter;                  /* 0: sniff among , ; TAB | */
    char quote;                      /* 0: sniff among " and ' */
    bool no_quote;                   /* no quoting at all (quote is ignored) */
    enum basalt_csv_escape escape;
    enum basalt_csv_header header;
    char comment;                    /* 0: none; a record starting with it is skipped */
    int64_t skip_rows;               /* physical lines skipped before the header (default 0) */
    /* Column names, `n_names` of them, replacing the header's or the
     * defaults (NULL: keep them). With more names than columns: INVALID_ARG. */
    const char *const *names;
    size_t n_names;
    /* Column types by position, `n_types` of them (AUTO entries and columns
     * past n_types are sniffed). */
    const struct basalt_csv_column_type *types;
    size_t n_types;
    /* Column types by name ("price"), applied after `types`: `n_named_types`
     * names with their types; a name the file does not have is NOT_FOUND. */
    const char *const *type_names;
    const struct basalt_csv_column_type *named_types;
    size_t n_named_types;
    /* The null strings, `n_nulls` of them (NULL: just ""). Unquoted fields
     * only. */
    const char *const *nulls;
    size_t n_nulls;
    /* Records shorter than the header: an error naming the line (false,
     * default) or filled with nulls (true). Longer records are always an
     * error. */
    bool fill_ragged;
    size_t max_line_size;    /* bytes of one record, quotes included (default 8 MiB): LIMIT */
    int64_t sample_rows;     /* records sniffed (default 20480; < 0: every record) */
    int64_t batch_size;      /* rows per batch at most (default 65536) */
    size_t chunk_size;       /* bytes per parallel chunk (default 2 MiB; at least 1) */
    struct basalt_pool *pool; /* NULL: the calling thread */
    int max_workers;         /* workers of the pool to use (0: all) */
};

/* Fills `options` with the defaults above. */
BASALT_EXPORT void basalt_csv_read_options_init(struct basalt_csv_read_options *options);

/* What the reader decided and did. */
struct basalt_csv_dialect {
    char delimiter;
    char quote;        /* 0 when no_quote */
    enum basalt_csv_escape escape;
    bool header;
    bool bom;
    int64_t data_line; /* 1-based line of the first data record */
};

/* Work counters of a reader, for tests and tuning. */
struct basalt_csv_stats {
    int64_t chunks;        /* chunks parsed so far */
    int64_t windows;       /* parallel rounds over groups of chunks */
    int64_t rows;          /* rows returned so far */
    int64_t parity_splits; /* chunk starts found from the quote parity (several workers) */
    int64_t serial_splits; /* chunk starts found by the serial scan (several workers,
                            * backslash escapes or comments) */
    int64_t sample_rows;   /* records the sniffer looked at */
};

struct basalt_csv_reader;

/* Opens a CSV reader over `in`. With `take_input` the reader owns the input
 * and closes it with itself (also when this call fails). Inputs with a view
 * (memory, mapped files) are parsed in place; others are read whole into
 * memory first (remote objects come in concurrent ranges). Sniffs whatever
 * the options leave open. `options` NULL: the defaults.
 * Returns OK; INVALID_ARG (bad options); NOT_FOUND (a typed column name the
 * file lacks); CORRUPT (malformed text in the sample or header, naming the
 * line); LIMIT; IO; NOMEM. *out is NULL on failure. */
BASALT_EXPORT basalt_status basalt_csv_reader_open(struct basalt_input *in, bool take_input,
                                                   const struct basalt_csv_read_options *options,
                                                   struct basalt_csv_reader **out,
                                                   struct basalt_error *err);
/* The same over a local file (mapped) or over memory (borrowed; `name` names
 * it in errors). */
BASALT_EXPORT basalt_status basalt_csv_reader_open_file(
    const char *path, const struct basalt_csv_read_options *options,
    struct basalt_csv_reader **out, struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_csv_reader_open_memory(
    const void *data, size_t len, const char *name,
    const struct basalt_csv_read_options *options, struct basalt_csv_reader **out,
    struct basalt_error *err);
/* Frees the reader. NULL is a no-op. */
BASALT_EXPORT void basalt_csv_reader_close(struct basalt_csv_reader *reader);

/* The dialect, the columns and their types. Borrowed from the reader. */
BASALT_EXPORT const struct basalt_csv_dialect *basalt_csv_reader_dialect(
    const struct basalt_csv_reader *reader);
BASALT_EXPORT int32_t basalt_csv_reader_num_columns(const struct basalt_csv_reader *reader);
BASALT_EXPORT const char *basalt_csv_reader_column_name(const struct basalt_csv_reader *reader,
                                                        int32_t i);
BASALT_EXPORT const struct basalt_csv_column_type *basalt_csv_reader_column_type(
    const struct basalt_csv_reader *reader, int32_t i);
/* The Arrow schema of every batch: "+s" with one nullable child per column.
 * `out` is caller storage, owned on OK. NOMEM. */
BASALT_EXPORT basalt_status basalt_csv_reader_schema(const struct basalt_csv_reader *reader,
                                                     struct ArrowSchema *out,
                                                     struct basalt_error *err);

/* The next batch, a "+s" struct array, into `out` (caller storage, owned);
 * out->release is NULL at the end. Returns OK; CORRUPT naming the file, the
 * line and the column (a value that does not fit its type, a ragged record,
 * a misplaced quote, an unterminated quoted field, invalid UTF-8); LIMIT; NOMEM.
 * After an error every later call returns it again. */
BASALT_EXPORT basalt_status basalt_csv_reader_next(struct basalt_csv_reader *reader,
                                                   struct ArrowArray *out,
                                                   struct basalt_error *err);
/* Reads every remaining batch into `batches` (empty; its schema is set). */
BASALT_EXPORT basalt_status basalt_csv_reader_read_all(struct basalt_csv_reader *reader,
                                                       struct basalt_arrow_batches *batches,
                                                       struct basalt_error *err);
/* Makes `stream` (caller storage) yield the reader's schema and batches.
 * The stream takes the reader over (it is closed when the stream is released,
 * also on failure). Errors come back as EINVAL/ENOMEM/EIO with
 * get_last_error giving the message. NOMEM. */
BASALT_EXPORT basalt_status basalt_csv_reader_stream(struct basalt_csv_reader *reader,
                                                     struct ArrowArrayStream *stream,
                                                     struct basalt_error *err);
/* Counters so far. */
BASALT_EXPORT void basalt_csv_reader_stats(const struct basalt_csv_reader *reader,
                                           struct basalt_csv_stats *out);

/* ------------------------------------------------------------------ writer */

struct basalt_csv_write_options {
    char delimiter;        /* default ',' */
    char quote;            /* default '"' */
    bool header;           /* default true */
    const char *null;      /* text of a null (default ""); borrowed until open returns */
    bool crlf;             /* records end with CRLF (default false: LF) */
    size_t buffer_size;    /* bytes gathered before a write to the output (default 1 MiB) */
};

BASALT_EXPORT void basalt_csv_write_options_init(struct basalt_csv_write_options *options);

struct basalt_csv_writer;

/* Starts CSV text on `output` for batches of `schema` ("+s"; read during the
 * call only), writing the header line now when asked. With `take_output`
 * the writer owns the output: finish commits it and close closes it (also
 * when this call fails); otherwise the caller commits and closes it after
 * finish. Values are written as:
 *   null       the null text; bool true / false; integers in decimal;
 *   float and double in the fewest digits that read back to the same value,
 *              with ".0" on integral values, inf, -inf and nan;
 *   decimals   exactly, with their scale's digits ("12.30", "-0.05");
 *   date32/64  YYYY-MM-DD;
 *   timestamps YYYY-MM-DD HH:MM:SS[.fraction without trailing zeros], with
 *              "+00" when the column has a time zone (values are UTC);
 *   time32/64  HH:MM:SS[.fraction];
 *   strings    as they are (binary as its bytes), quoted only when they hold
 *              the delimiter, the quote, CR or LF, start or end with a space,
 *              or equal the null text (so "" is the empty string), quotes
 *              doubled;
 *   dictionary columns as their values.
 * Returns OK; INVALID_ARG (not a struct, bad options); UNSUPPORTED naming a
 * column of a type without a text form here (nested, intervals, unions);
 * IO; NOMEM. *out is NULL on failure. */
BASALT_EXPORT basalt_status basalt_csv_writer_open(struct basalt_output *output, bool take_output,
                                                   const struct ArrowSchema *schema,
                                                   const struct basalt_csv_write_options *options,
                                                   struct basalt_csv_writer **out,
                                                   struct basalt_error *err);
/* Appends the rows of `batch` (borrowed, a "+s" array of the schema).
 * INVALID_ARG (a writer that failed or finished), CORRUPT (the batch does
 * not fit the schema), IO, NOMEM. After a failure only close is accepted. */
BASALT_EXPORT basalt_status basalt_csv_writer_write(struct basalt_csv_writer *writer,
                                                    const struct ArrowArray *batch,
                                                    struct basalt_error *err);
/* Writes what is buffered and, when the writer owns the output, commits it. */
BASALT_EXPORT basalt_status basalt_csv_writer_finish(struct basalt_csv_writer *writer,
                                                     struct basalt_error *err);
/* Frees the writer (closing an owned output, discarding it unless finish
 * committed it). NULL is a no-op. */
BASALT_EXPORT void basalt_csv_writer_close(struct basalt_csv_writer *writer);
/* Rows written so far. */
BASALT_EXPORT int64_t basalt_csv_writer_num_rows(const struct basalt_csv_writer *writer);

#ifdef __cplusplus
}
#endif

#endif
