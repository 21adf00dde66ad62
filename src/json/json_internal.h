/* The JSON module's internals: the lexer shared by the inference and the
 * chunk parser, the column type tree, and the chunk parser's results. */
#ifndef BASALT_JSON_INTERNAL_H
#define BASALT_JSON_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "basalt/json.h"

/* ------------------------------------------------------------------ types */

enum json_kind {
    JSON_K_NULL = 0, /* inference only: nothing but nulls seen yet */
    JSON_K_BOOL,
    JSON_K_INT,
    JSON_K_DOUBLE,
    JSON_K_STRING,
    JSON_K_DATE,
    JSON_K_TIMESTAMP,
    JSON_K_STRUCT,
    JSON_K_LIST,
    JSON_K_TIME /* "HH:MM:SS[.fraction]" strings, time64[us] */
};

/* A column's type, nested for structs (fields) and lists (one element). */
struct json_type {
    enum json_kind kind;
    int int_bits;        /* JSON_K_INT: 8, 16, 32 or 64 */
    bool single;         /* JSON_K_DOUBLE: float rather than double */
    bool zoned;          /* JSON_K_TIMESTAMP: "tsu:UTC" */
    bool raw;            /* JSON_K_STRING: strings keep their JSON text too (a column
                          * mixing objects or arrays with other values) */
    /* inference: whether every string so far was a date / a timestamp */
    bool maybe_date, maybe_ts, maybe_time;
    int ts_shape;        /* the shape of the first timestamp (as read_json_auto,
                          * one format per column: separator, fraction, zone) */
    int64_t n_strings;
    char *name;          /* NUL-terminated; may hold no NUL inside (checked) */
    size_t name_len;
    char *path;          /* "a.b[]" for errors */
    struct json_type *children;
    int32_t n_children, cap_children;
};

void basalt_json_type_reset(struct json_type *t);
/* The Arrow format of a (final) type into buf (at least 16 bytes). */
void basalt_json_type_format(const struct json_type *t, char *buf);
/* `t` (a final type) as a schema named `name` into `out`. NOMEM. */
basalt_status basalt_json_type_schema(const struct json_type *t, const char *name,
                                      struct ArrowSchema *out, struct basalt_error *err);
/* The type tree of a schema node; UNSUPPORTED for formats the reader cannot fill. */
basalt_status basalt_json_type_from_schema(const struct ArrowSchema *s, struct json_type *t,
                                           struct basalt_error *err);
/* Sets the error paths of a final tree below `prefix` (NULL at the root). NOMEM. */
basalt_status basalt_json_type_paths(struct json_type *t, const char *prefix,
                                     struct basalt_error *err);

/* ------------------------------------------------------------------ lexer */

/* The lexer over one line [p, end). On a failure `status` is set, `pos`
 * points at the offending byte and `message` says what is wrong. */
struct json_lex {
    const uint8_t *p, *end;
    int32_t depth, max_depth;
    struct basalt_buffer scratch; /* unescaped strings */
    basalt_status status;
    const uint8_t *pos;
    char message[320];
};

/* Records a failure at `at`; always returns false. */
bool basalt_json_fail(struct json_lex *lx, const uint8_t *at, basalt_status st, const char *fmt,
                      ...) BASALT_PRINTF(4, 5);

static inline void basalt_json_ws(struct json_lex *lx)
{
    const uint8_t *p = lx->p, *end = lx->end;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    lx->p = p;
}

/* A string at lx->p (which is a quote): *s and *n receive its decoded bytes, in the
 * input when it has no escapes, else in lx->scratch; lx->p moves past the
 * closing quote. Checks UTF-8 and escapes. */
bool basalt_json_lex_string(struct json_lex *lx, const uint8_t **s, size_t *n);

/* A number at lx->p (a '-' or a digit): checks the grammar, moves past it. */
struct json_number {
    const uint8_t *text;
    size_t len;
    bool integral;   /* no fraction and no exponent */
    bool fits;       /* integral and within int64 */
    int special;     /* NaN (1), Infinity (2), -Infinity (3), as DuckDB writes them */
    int64_t value;   /* when fits */
};
bool basalt_json_lex_number(struct json_lex *lx, struct json_number *num);
/* The double nearest a number's text (correctly rounded). */
double basalt_json_number_double(const struct json_number *num);

/* Checks and skips any value at lx->p (after whitespace). */
bool basalt_json_skip_value(struct json_lex *lx);

/* true / false / null at lx->p: 1 true, 0 false, 2 null, -1 not a literal
 * (nothing consumed then). */
int basalt_json_lex_literal(struct json_lex *lx);

bool basalt_json_utf8_valid(const uint8_t *s, size_t n);

/* YYYY-MM-DD into days since 1970-01-01. */
bool basalt_json_parse_date(const uint8_t *s, size_t n, int32_t *days);
/* YYYY-MM-DD[T ]HH:MM:SS[.f{1,9}], with `zone_ok` also a trailing Z or
 * +HH[:MM] / -HH[:MM] (adjusted to UTC), into microseconds. */
bool basalt_json_parse_timestamp(const uint8_t *s, size_t n, bool zone_ok, int64_t *micros);
/* H[H]:M[M][:S[S][.fraction]] (digits past microseconds dropped), up to
 * 24:00:00. */
bool basalt_json_parse_time(const uint8_t *s, size_t n, int64_t *micros);
/* A small number telling the form of a timestamp text apart: 'T' or ' '
 * between date and time, a fraction or none, a zone (Z, an offset) or none. */
int basalt_json_timestamp_shape(const uint8_t *s, size_t n);

/* ------------------------------------------------------------------ inference */

/* Unifies the object at lx->p (a whole record) into `root` (a struct). */
bool basalt_json_infer_record(struct json_lex *lx, struct json_type *root);
/* Turns what inference saw into final types (nulls and empty structs to
 * strings, strings to dates or timestamps). */
void basalt_json_infer_finish(struct json_type *t);

/* ------------------------------------------------------------------ chunks */

/* What every chunk parser shares (read-only). */
struct json_parse_config {
    const struct json_type *root; /* the struct of the columns */
    int64_t batch_size;
    size_t max_record_size;
    int32_t max_depth;
};

struct json_chunk_error {
    basalt_status status;
    int64_t line;    /* newlines from the chunk's start to the record's line */
    int64_t column;  /* 1-based byte column in that line, 0 for none */
    char message[400];
};

struct json_chunk_result {
    struct ArrowArray *batches;
    int64_t n_batches;
    int64_t rows;
    int64_t newlines;
    struct json_chunk_error error;
};

/* Parses the lines in [begin, end) (begin is a line start, end a line start
 * or the end of the text) into batches. Never fails without filling
 * result->error. */
void basalt_json_parse_chunk(const struct json_parse_config *cfg, const uint8_t *begin,
                             const uint8_t *end, struct json_chunk_result *result);
void basalt_json_chunk_result_reset(struct json_chunk_result *r);

#endif
