/* basalt json: reading and writing JSON lines (newline-delimited JSON).
 *
 *   - basalt_json_reader_*   infer a schema from a sample (or take one), then
 *                            parse the records in parallel into Arrow batches
 *   - basalt_json_writer_*   Arrow record batches to JSON lines on an output
 *
 * Grammar (reader): one JSON object (RFC 8259) per line; lines end with LF
 * (a CR before it is whitespace); the last line may lack one. A record never
 * spans lines, which is what lets the reader cut the text anywhere at a line
 * feed. Lines holding only whitespace are skipped. A UTF-8 byte order mark at
 * offset 0 is skipped. A file whose first value is a top-level array is
 * UNSUPPORTED (format 'array'). Strings must be valid UTF-8; \u escapes are
 * decoded, surrogate pairs joined, and a lone surrogate is an error. Objects
 * nest at most `max_depth` levels (LIMIT past it). A key repeated in one
 * object is an error.
 *
 * Schema inference (what read_json_auto does), over the first `sample_rows`
 * records: the columns are the union of the top-level keys in first-seen
 * order, each typed by unifying its values:
 *   true/false                  bool "b"
 *   integers                    int64 "l"; double "g" when some value has a
 *                               fraction or an exponent or does not fit int64
 *   strings                     string "u"; date "tdD" when every string is
 *                               YYYY-MM-DD, timestamp "tsu:" when every one is
 *                               YYYY-MM-DD[T ]HH:MM:SS[.f{1,9}][Z|+HH:MM] in
 *                               one form (the same separator, a fraction or
 *                               none, a zone or none; zones adjust to UTC),
 *                               time "ttu" when every one is
 *                               H[H]:M[M][:S[S][.fraction]] up to 24:00:00
 *   objects                     struct "+s" (fields unified the same way)
 *   arrays                      list "+l" of the unified element type
 *   null only / empty object    string "u"
 * Values of different kinds in one column (1 and "x", an object and a
 * number) make it a string column of their JSON text (strings keep their
 * quotes), as DuckDB's JSON type does. NaN, Infinity and -Infinity are read
 * as doubles (DuckDB writes them). Fields missing in a record are null; keys
 * absent from the schema are skipped (but checked). A value after the sample
 * that does not fit its column's type is an error: CORRUPT naming the file,
 * the 1-based line, the 1-based byte column and the column path.
 *
 * Values into explicit types: integer columns ("c", "s", "i", "l") take
 * integers in range; float and double take any number; bool true/false;
 * date, time ("ttu"), timestamp ("tsu:") and timestamp with time zone
 * ("tsu:UTC") take strings in the forms above (any of them, a zone adjusting to UTC); string columns take anything (non-strings as their JSON text);
 * structs take objects, lists arrays; null fits every column.
 *
 * Parallelism: the text is cut into chunks of `chunk_size` bytes, each
 * starting after the first line feed at or after its nominal offset, and the
 * chunks are parsed concurrently on the pool, each into batches of at most
 * `batch_size` rows, handed out in file order. Batches, lengths and errors
 * depend on the bytes and the options only, never on the number of workers.
 *
 * Thread safety: a reader or writer is used by one thread at a time. */
#ifndef BASALT_JSON_H
#define BASALT_JSON_H

#include "basalt/arrow.h"
#include "basalt/core.h"
#include "basalt/io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reader options. Everything borrowed is read during open only, except
 * `pool`, which must outlive the reader. */
struct basalt_json_read_options {
    /* Explicit columns: a "+s" schema whose children are the columns (types
     * as above, nested structs and lists allowed). NULL: infer. */
    const struct ArrowSchema *schema;
    /* Or explicit columns as names and type texts, `n_columns` of each (see
     * basalt_json_type_parse). Ignored when `schema` is set. */
    const char *const *names;
    const char *const *types;
    size_t n_columns;
    int64_t sample_rows;      /* records inferred from (default 20480; < 0: every record) */
    size_t max_record_size;   /* bytes of one line (default 16 MiB): LIMIT */
    int32_t max_depth;        /* nesting of objects and arrays (default 64): LIMIT */
    int64_t batch_size;       /* rows per batch at most (default 65536) */
    size_t chunk_size;        /* bytes per parallel chunk (default 2 MiB; at least 1) */
    struct basalt_pool *pool; /* NULL: the calling thread */
    int max_workers;          /* workers of the pool to use (0: all) */
};

/* Fills `options` with the defaults above. */
BASALT_EXPORT void basalt_json_read_options_init(struct basalt_json_read_options *options);

/* Parses a column type text into `out` (caller storage, owned on OK; its name
 * is `name`): BOOLEAN/BOOL, TINYINT, SMALLINT, INTEGER/INT, BIGINT, FLOAT/REAL,
 * DOUBLE, VARCHAR/TEXT/STRING/JSON, DATE, TIME, TIMESTAMP, TIMESTAMPTZ, `T[]`
 * (a list) and STRUCT(name T, ...), any case. Returns OK, INVALID_ARG naming
 * the text, NOMEM. */
BASALT_EXPORT basalt_status basalt_json_type_parse(const char *text, const char *name,
                                                   struct ArrowSchema *out,
                                                   struct basalt_error *err);

/* Work counters of a reader, for tests and tuning. */
struct basalt_json_stats {
    int64_t chunks;       /* chunks parsed so far */
    int64_t windows;      /* parallel rounds over groups of chunks */
    int64_t rows;         /* rows returned so far */
    int64_t sample_rows;  /* records the inference looked at */
};

struct basalt_json_reader;

/* Opens a JSON-lines reader over `in`. With `take_input` the reader owns the
 * input and closes it with itself (also when this call fails). Inputs with a
 * view (memory, mapped files) are parsed in place; others are read whole
 * first. Infers the schema unless the options give one. `options` NULL: the
 * defaults. Returns OK; INVALID_ARG (bad options); UNSUPPORTED (a top-level
 * array, an explicit type the reader cannot fill); CORRUPT (malformed text in
 * the sample, naming the line and column); LIMIT; IO; NOMEM. *out is NULL on
 * failure. */
BASALT_EXPORT basalt_status basalt_json_reader_open(struct basalt_input *in, bool take_input,
                                                    const struct basalt_json_read_options *options,
                                                    struct basalt_json_reader **out,
                                                    struct basalt_error *err);
/* The same over a local file (mapped) or over memory (borrowed; `name` names
 * it in errors). */
BASALT_EXPORT basalt_status basalt_json_reader_open_file(
    const char *path, const struct basalt_json_read_options *options,
    struct basalt_json_reader **out, struct basalt_error *err);
BASALT_EXPORT basalt_status basalt_json_reader_open_memory(
    const void *data, size_t len, const char *name,
    const struct basalt_json_read_options *options, struct basalt_json_reader **out,
    struct basalt_error *err);
/* Frees the reader. NULL is a no-op. */
BASALT_EXPORT void basalt_json_reader_close(struct basalt_json_reader *reader);

/* The Arrow schema of every batch: "+s" with one nullable child per column.
 * `out` is caller storage, owned on OK. NOMEM. */
BASALT_EXPORT basalt_status basalt_json_reader_schema(const struct basalt_json_reader *reader,
                                                      struct ArrowSchema *out,
                                                      struct basalt_error *err);

/* The next batch, a "+s" struct array, into `out` (caller storage, owned);
 * out->release is NULL at the end. Returns OK; CORRUPT naming the file, the
 * line and the column (malformed JSON, a value that does not fit its type,
 * invalid UTF-8); LIMIT (record size, depth); NOMEM. After an error every
 * later call returns it again. */
BASALT_EXPORT basalt_status basalt_json_reader_next(struct basalt_json_reader *reader,
                                                    struct ArrowArray *out,
                                                    struct basalt_error *err);
/* Reads every remaining batch into `batches` (empty; its schema is set). */
BASALT_EXPORT basalt_status basalt_json_reader_read_all(struct basalt_json_reader *reader,
                                                        struct basalt_arrow_batches *batches,
                                                        struct basalt_error *err);
/* Makes `stream` (caller storage) yield the reader's schema and batches; the
 * stream takes the reader over (closed when the stream is released). NOMEM. */
BASALT_EXPORT basalt_status basalt_json_reader_stream(struct basalt_json_reader *reader,
                                                      struct ArrowArrayStream *stream,
                                                      struct basalt_error *err);
/* Counters so far. */
BASALT_EXPORT void basalt_json_reader_stats(const struct basalt_json_reader *reader,
                                            struct basalt_json_stats *out);

/* ------------------------------------------------------------------ writer */

struct basalt_json_write_options {
    size_t buffer_size; /* bytes gathered before a write to the output (default 1 MiB) */
};

BASALT_EXPORT void basalt_json_write_options_init(struct basalt_json_write_options *options);

/* Appends the JSON text of element `i` (logical, before the array's offset)
 * of `array` (type `schema`) to `out`, as the writer renders values:
 *   null; true/false; integers exact; floats in the shortest text that reads
 *   back to the same value, as ECMAScript's Number::toString writes it
 *   ("0.1", "1e+21"), NaN and infinities as the strings "NaN", "Infinity",
 *   "-Infinity"; strings escaped as JSON.stringify escapes; binary and
 *   fixed-size binary as base64 strings (arrow.uuid as 8-4-4-4-12 text);
 *   decimals as exact decimal strings ("-12.30"); date32/64 "YYYY-MM-DD";
 *   time32/64 "HH:MM:SS[.fff...]" at the unit; timestamps
 *   "YYYY-MM-DDTHH:MM:SS[.fraction at the unit]" with "Z" when the column has
 *   a time zone; durations as integers; intervals as objects; lists as
 *   arrays; structs as objects; maps as arrays of {"key":..,"value":..};
 *   dictionary-encoded values as their values.
 * Returns OK; CORRUPT (offsets out of order); UNSUPPORTED (unions, views,
 * run-end encoded); NOMEM. */
BASALT_EXPORT basalt_status basalt_json_render_value(const struct ArrowSchema *schema,
                                                     const struct ArrowArray *array, int64_t i,
                                                     struct basalt_buffer *out,
                                                     struct basalt_error *err);

/* The shortest decimal text of a double (or, with `single`, of a float's
 * value) that reads back to it, ECMAScript-style, into buf (at least 32
 * bytes). NaN and infinities are "NaN", "Infinity", "-Infinity". */
BASALT_EXPORT void basalt_json_format_double(double d, bool single, char *buf);
/* The same for an IEEE 754 binary16 value given by its bits: the shortest
 * text that reads back to the same half. */
BASALT_EXPORT void basalt_json_format_half(uint16_t h, char *buf);

/* Appends `n` bytes as a JSON string (quotes included), escaped as
 * JSON.stringify escapes. NOMEM. */
BASALT_EXPORT basalt_status basalt_json_append_string(struct basalt_buffer *out, const uint8_t *p,
                                                      size_t n, struct basalt_error *err);

struct basalt_json_writer;

/* Starts JSON lines on `output` for batches of `schema` ("+s"; read during
 * the call only): one object per row, keys in column order, values as
 * basalt_json_render_value renders them, each line ended by LF. With
 * `take_output` the writer owns the output: finish commits it and close
 * closes it (also when this call fails). Returns OK; INVALID_ARG (not a
 * struct); UNSUPPORTED (a column type without a rendering); NOMEM. *out is
 * NULL on failure. */
BASALT_EXPORT basalt_status basalt_json_writer_open(struct basalt_output *output, bool take_output,
                                                    const struct ArrowSchema *schema,
                                                    const struct basalt_json_write_options *options,
                                                    struct basalt_json_writer **out,
                                                    struct basalt_error *err);
/* Appends the rows of `batch` (borrowed, a "+s" array of the schema).
 * INVALID_ARG (a writer that failed or finished, a batch that does not fit
 * the schema), CORRUPT, IO, NOMEM. After a failure only close is accepted. */
BASALT_EXPORT basalt_status basalt_json_writer_write(struct basalt_json_writer *writer,
                                                     const struct ArrowArray *batch,
                                                     struct basalt_error *err);
/* Writes what is buffered and, when the writer owns the output, commits it. */
BASALT_EXPORT basalt_status basalt_json_writer_finish(struct basalt_json_writer *writer,
                                                      struct basalt_error *err);
/* Frees the writer (closing an owned output, discarding it unless finish
 * committed it). NULL is a no-op. */
BASALT_EXPORT void basalt_json_writer_close(struct basalt_json_writer *writer);
/* Rows written so far. */
BASALT_EXPORT int64_t basalt_json_writer_num_rows(const struct basalt_json_writer *writer);

#ifdef __cplusplus
}
#endif

#endif
