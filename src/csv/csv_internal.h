/* The CSV module's internals: the record tokenizer shared by the sniffer and
 * the chunk parser, the value converters, and the reader's state. */
#ifndef BASALT_CSV_INTERNAL_H
#define BASALT_CSV_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "basalt/csv.h"

/* ------------------------------------------------------------------ dialect */

/* Everything the tokenizer needs; read-only once the reader is open, shared
 * by the parsing workers. */
struct csv_dialect {
    uint8_t delim;
    uint8_t quote;        /* meaningful when has_quote */
    bool has_quote;
    bool backslash;       /* escape is \ inside quoted fields */
    uint8_t comment;      /* meaningful when has_comment */
    bool has_comment;
    /* stop[c]: 1 for the delimiter, CR, LF and the quote: the bytes that end
     * an unquoted field (or are an error there). */
    uint8_t stop[256];
};

void basalt_csv_dialect_init(struct csv_dialect *d, uint8_t delim, bool has_quote, uint8_t quote,
                      bool backslash, bool has_comment, uint8_t comment);

/* One field of a record: its bytes as they are in the text, quotes removed
 * but escapes not undone (`escaped` says whether there are any). */
struct csv_field {
    const uint8_t *ptr;
    uint32_t len;
    bool quoted;
    bool escaped;
};

/* How tokenizing one record ended. */
enum csv_tok {
    CSV_TOK_OK = 0,
    CSV_TOK_STRAY_QUOTE,    /* a quote inside an unquoted field */
    CSV_TOK_AFTER_QUOTE,    /* not a delimiter or a record end after a closing quote */
    CSV_TOK_UNTERMINATED,   /* the text ends inside a quoted field */
    CSV_TOK_BARE_CR,        /* a CR not followed by LF outside quotes */
    CSV_TOK_TOO_LONG        /* a record field longer than 4 GiB */
};

/* A tokenized record. */
struct csv_record {
    uint32_t n_fields;    /* fields in the record (may exceed the fields stored) */
    uint32_t newlines;    /* LFs consumed, inside quotes and the terminator */
    bool blank;           /* an empty line */
    bool terminated;      /* ended by a line feed (not by the end of the text) */
};

/* Tokenizes the record at *pp (which is < end), storing at most `cap` fields
 * in `fields`, and moves *pp past its terminator. A comment line is not
 * recognised here (the caller checks the first byte). */
enum csv_tok basalt_csv_tokenize(const struct csv_dialect *d, const uint8_t **pp,
                                 const uint8_t *end,
                          struct csv_field *fields, uint32_t cap, struct csv_record *rec);

/* Undoes the escapes of a quoted field into dst (at least f->len bytes);
 * returns the length. */
size_t basalt_csv_unescape(const struct csv_dialect *d, const struct csv_field *f, uint8_t *dst);

/* Skips one physical line (for comments and skip_rows): *pp moves past the
 * next LF, or to `end`. */
static inline void basalt_csv_skip_line(const uint8_t **pp, const uint8_t *end)
{
    const uint8_t *nl = memchr(*pp, '\n', (size_t)(end - *pp));
    *pp = nl ? nl + 1 : end;
}

const char *basalt_csv_tok_message(enum csv_tok t);

/* ------------------------------------------------------------------ values */

/* Converters over a field's bytes. Each returns true when the whole text is
 * a value of the type. The strict forms are the sniffer's. */
bool basalt_csv_parse_bool(const uint8_t *s, size_t n, bool *out);
bool basalt_csv_parse_int64(const uint8_t *s, size_t n, bool strict, int64_t *out);
bool basalt_csv_parse_double(const uint8_t *s, size_t n, bool strict, double *out);
bool basalt_csv_parse_date(const uint8_t *s, size_t n, int32_t *days);
/* *has_zone tells whether a zone was given (then the value is UTC-adjusted). */
bool basalt_csv_parse_timestamp(const uint8_t *s, size_t n, int64_t *micros, bool *has_zone);
/* HH:MM[:SS[.fraction]] (fraction digits past 6 dropped), up to 24:00:00,
 * as microseconds since midnight. */
bool basalt_csv_parse_time(const uint8_t *s, size_t n, int64_t *micros);
/* Exact decimal into a 128-bit unscaled value at `scale` with at most
 * `precision` digits. */
bool basalt_csv_parse_decimal(const uint8_t *s, size_t n, int32_t precision, int32_t scale,
                       __int128 *out);
bool basalt_csv_utf8_valid_slow(const uint8_t *s, size_t n);
/* ASCII is checked here, eight bytes at a time; the rest out of line. */
static inline bool basalt_csv_utf8_valid(const uint8_t *s, size_t n)
{
    uint64_t bits = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        bits |= w;
    }
    for (; i < n; i++)
        bits |= s[i];
    return !(bits & 0x8080808080808080ull) || basalt_csv_utf8_valid_slow(s, n);
}
/* Days since 1970-01-01 of a proleptic Gregorian date, and back. */
int64_t basalt_csv_days_from_civil(int64_t y, unsigned m, unsigned d);
void basalt_csv_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d);

/* ------------------------------------------------------------------ columns */

struct csv_column {
    char *name;
    struct basalt_csv_column_type type;
    char format[32];
};

/* What every chunk parser shares (read-only). */
struct csv_parse_config {
    struct csv_dialect dialect;
    const struct csv_column *columns;
    int32_t n_columns;
    /* null strings */
    const uint8_t *const *nulls;
    const size_t *null_lens;
    size_t n_nulls;
    bool null_empty;       /* "" is among them */
    bool fill_ragged;
    size_t max_line_size;
    int64_t batch_size;
    double row_bytes;      /* average record size in the sample, for sizing */
};

/* Where a chunk's parse stopped with an error. */
struct csv_chunk_error {
    basalt_status status;
    int64_t line;          /* newlines from the chunk's start to the record's start */
    int32_t column;        /* 0-based, -1 for the record as a whole */
    char message[320];
};

/* The output of one chunk: its batches and its line count. */
struct csv_chunk_result {
    struct ArrowArray *batches;
    int64_t n_batches;
    int64_t rows;
    int64_t newlines;      /* LFs in the chunk, for the lines of later chunks */
    struct csv_chunk_error error; /* status OK when none */
};

/* Parses the records starting in [begin, limit) (begin is a record start;
 * records may run on up to `end`) into batches, and sets *stop to where the
 * next record starts: the first record start at or after `limit`, or `end`.
 * Never fails without filling result->error. */
void basalt_csv_parse_chunk(const struct csv_parse_config *cfg, const uint8_t *begin,
                     const uint8_t *limit, const uint8_t *end, struct csv_chunk_result *result,
                     const uint8_t **stop);
void basalt_csv_chunk_result_reset(struct csv_chunk_result *r);

/* ------------------------------------------------------------------ sniffer */

struct csv_sniff_input {
    const uint8_t *begin;  /* the text after BOM, skipped lines */
    const uint8_t *end;
    int64_t first_line;    /* 1-based line of begin */
};

/* Counts the bytes equal to `byte` in [p, p + n): SSE2 where the target has
 * it, else the scalar form (the oracle the tests compare with). */
uint64_t basalt_csv_count_byte(const uint8_t *p, size_t n, uint8_t byte);
uint64_t basalt_csv_count_byte_scalar(const uint8_t *p, size_t n, uint8_t byte);

#endif
