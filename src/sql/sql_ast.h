/* The SQL syntax tree: what basalt_sql_parse produces and the binder reads.
 *
 * Every node lives in the script's arena and is valid until
 * basalt_sql_script_free. Every node carries `pos`, the 0-based byte offset
 * of its first token in the query text (an operator node: of its operator,
 * `+` in `a + b`, IS in `a IS NULL`), for error messages ("... (at
 * position N)"). Strings are NUL-terminated arena copies. Optional children
 * are NULL when absent; arrays come with their counts (and are NULL when the
 * count is 0).
 *
 * Identifiers: unquoted ones are stored lower-cased (ASCII) since SQL
 * compares them case-insensitively; quoted ones keep their case and have
 * `quoted` set. The parser keeps what was written; it resolves nothing:
 * names, ordinals (`GROUP BY 1`), aliases, function names and types are the
 * binder's.
 *
 * Depth: every expression, query and FROM item records `height`, the
 * nesting height of its subtree (1 for a leaf, counting nested queries).
 * The parser rejects anything taller than BASALT_SQL_MAX_DEPTH with LIMIT,
 * so code walking the tree may recurse. */
#ifndef BASALT_SQL_AST_H
#define BASALT_SQL_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basalt/core.h"
#include "basalt/sql.h"

#define BASALT_SQL_MAX_DEPTH 1000
/* Longest query text accepted (LIMIT above). */
#define BASALT_SQL_MAX_TEXT ((size_t)16 << 20)

struct basalt_sql_query;
struct basalt_sql_expr;
struct basalt_sql_window;

/* ------------------------------------------------------------------ names */

struct basalt_sql_ident {
    const char *name; /* lower-cased unless quoted */
    bool quoted;
    int32_t pos;
};

/* A dotted name, outermost first: `x`, `t.x`, a struct's leaf `s.b.c` or
 * `t.s.b.c` for a column (up to BASALT_SQL_NAME_PARTS parts); `trips`,
 * `db.trips`, `cat.db.trips` for a table (up to
 * BASALT_SQL_TABLE_NAME_PARTS). */
#define BASALT_SQL_NAME_PARTS 6
#define BASALT_SQL_TABLE_NAME_PARTS 3
struct basalt_sql_name {
    int32_t n_parts;
    struct basalt_sql_ident parts[BASALT_SQL_NAME_PARTS];
};

/* ------------------------------------------------------------------ types */

/* The type of a CAST, a typed literal or a column definition. Aliases are
 * folded onto DuckDB's canonical type by the parser (INT, INT4, SIGNED ->
 * INTEGER; FLOAT, FLOAT4 -> FLOAT (REAL); TEXT, STRING, CHAR -> VARCHAR;
 * DATETIME -> TIMESTAMP; TIMESTAMP WITH TIME ZONE -> TIMESTAMPTZ...). A name
 * the parser does not know is kept as OTHER with its written name; the
 * binder reports it. */
enum basalt_sql_type_id {
    BASALT_SQL_TYPE_OTHER = 0,
    BASALT_SQL_TYPE_BOOLEAN,
    BASALT_SQL_TYPE_TINYINT,
    BASALT_SQL_TYPE_SMALLINT,
    BASALT_SQL_TYPE_INTEGER,
    BASALT_SQL_TYPE_BIGINT,
    BASALT_SQL_TYPE_HUGEINT,
    BASALT_SQL_TYPE_UTINYINT,
    BASALT_SQL_TYPE_USMALLINT,
    BASALT_SQL_TYPE_UINTEGER,
    BASALT_SQL_TYPE_UBIGINT,
    BASALT_SQL_TYPE_UHUGEINT,
    BASALT_SQL_TYPE_FLOAT,       /* REAL, FLOAT4, FLOAT */
    BASALT_SQL_TYPE_DOUBLE,      /* FLOAT8, DOUBLE PRECISION */
    BASALT_SQL_TYPE_DECIMAL,     /* NUMERIC; params: none, (p) or (p, s) */
    BASALT_SQL_TYPE_VARCHAR,     /* TEXT, STRING, CHAR(n), VARCHAR(n): the length is kept, DuckDB ignores it */
    BASALT_SQL_TYPE_BLOB,        /* BYTEA, BINARY, VARBINARY */
    BASALT_SQL_TYPE_DATE,
    BASALT_SQL_TYPE_TIME,
    BASALT_SQL_TYPE_TIMESTAMP,   /* DATETIME; microseconds */
    BASALT_SQL_TYPE_TIMESTAMP_S,
    BASALT_SQL_TYPE_TIMESTAMP_MS,
    BASALT_SQL_TYPE_TIMESTAMP_NS,
    BASALT_SQL_TYPE_TIMESTAMPTZ, /* TIMESTAMP WITH TIME ZONE */
    BASALT_SQL_TYPE_INTERVAL,
    BASALT_SQL_TYPE_UUID,
};

struct basalt_sql_type {
    enum basalt_sql_type_id id;
    const char *name;   /* DuckDB's canonical name ("INTEGER", "DECIMAL"), or as written for OTHER */
    int32_t n_params;   /* 0..2 */
    int64_t params[2];  /* DECIMAL(p, s), VARCHAR(n), ... */
    int32_t pos;
    bool list;          /* INTEGER[]: a list of the type */
};

/* ------------------------------------------------------------------ expressions */

/* A select-list item, and an entry of * REPLACE (expr AS alias). */
struct basalt_sql_select_item {
    struct basalt_sql_expr *expr;
    struct basalt_sql_ident alias; /* name NULL when none */
};

enum basalt_sql_expr_kind {
    BASALT_SQL_EXPR_INTEGER,       /* lit.text: the digits; lit.fits: lit.i64 holds the value */
    BASALT_SQL_EXPR_NUMBER,        /* lit.text: `1.5`, `.5`, `1e10` (a '.' and no exponent is DECIMAL in DuckDB) */
    BASALT_SQL_EXPR_STRING,        /* lit.text: the value, quotes and '' escapes removed */
    BASALT_SQL_EXPR_BOOL,          /* lit.b */
    BASALT_SQL_EXPR_NULL,
    BASALT_SQL_EXPR_TYPED_LITERAL, /* DATE '2024-01-01': typed.type, typed.text */
    BASALT_SQL_EXPR_INTERVAL,      /* INTERVAL '1 day' | INTERVAL 3 DAY | INTERVAL '3' MONTH */
    BASALT_SQL_EXPR_COLUMN,        /* column: 1..3 parts */
    BASALT_SQL_EXPR_STAR,          /* *, t.*, * EXCLUDE (a, b) REPLACE (x AS a) RENAME (b AS c) */
    BASALT_SQL_EXPR_UNARY,         /* - + NOT */
    BASALT_SQL_EXPR_BINARY,        /* arithmetic, ||, comparisons, AND, OR, IS [NOT] DISTINCT FROM */
    BASALT_SQL_EXPR_IS,            /* IS [NOT] NULL | TRUE | FALSE, ISNULL, NOTNULL */
    BASALT_SQL_EXPR_BETWEEN,       /* x [NOT] BETWEEN lo AND hi */
    BASALT_SQL_EXPR_IN_LIST,       /* x [NOT] IN (a, b, ...) */
    BASALT_SQL_EXPR_IN_QUERY,      /* x [NOT] IN (SELECT ...) */
    BASALT_SQL_EXPR_LIKE,          /* x [NOT] LIKE | ILIKE | SIMILAR TO pattern [ESCAPE e] */
    BASALT_SQL_EXPR_CASE,          /* CASE [operand] WHEN .. THEN .. [ELSE ..] END */
    BASALT_SQL_EXPR_CAST,          /* CAST(x AS t), TRY_CAST(x AS t), x::t */
    BASALT_SQL_EXPR_EXTRACT,       /* EXTRACT(part FROM x) */
    BASALT_SQL_EXPR_FUNCTION,      /* f(args) [FILTER (WHERE ..)] [OVER ..]; SUBSTRING(x FROM a FOR b) becomes substring(x, a, b) */
    BASALT_SQL_EXPR_SUBQUERY,      /* (SELECT ...) as a scalar */
    BASALT_SQL_EXPR_EXISTS,        /* EXISTS (SELECT ...); NOT EXISTS is NOT over it */
    BASALT_SQL_EXPR_LIST,          /* [a, b, c] (function arguments: file lists) */
    BASALT_SQL_EXPR_LAMBDA,        /* c -> body, lambda c: body (COLUMNS' argument only) */
};

enum basalt_sql_unary_op {
    BASALT_SQL_UNARY_MINUS,
    BASALT_SQL_UNARY_PLUS,
    BASALT_SQL_UNARY_NOT,
    BASALT_SQL_UNARY_BIT_NOT, /* ~x */
};

enum basalt_sql_binary_op {
    BASALT_SQL_BINARY_ADD,
    BASALT_SQL_BINARY_SUB,
    BASALT_SQL_BINARY_MUL,
    BASALT_SQL_BINARY_DIV,     /* / */
    BASALT_SQL_BINARY_INTDIV,  /* // */
    BASALT_SQL_BINARY_MOD,     /* % */
    BASALT_SQL_BINARY_CONCAT,  /* || */
    BASALT_SQL_BINARY_EQ,      /* = and == */
    BASALT_SQL_BINARY_NE,      /* <> and != */
    BASALT_SQL_BINARY_LT,
    BASALT_SQL_BINARY_LE,
    BASALT_SQL_BINARY_GT,
    BASALT_SQL_BINARY_GE,
    BASALT_SQL_BINARY_AND,
    BASALT_SQL_BINARY_OR,
    BASALT_SQL_BINARY_IS_DISTINCT,     /* IS DISTINCT FROM */
    BASALT_SQL_BINARY_IS_NOT_DISTINCT, /* IS NOT DISTINCT FROM */
    /* DuckDB's other operators, kept as written (its column names spell them) */
    BASALT_SQL_BINARY_POW,         /* ** */
    BASALT_SQL_BINARY_CARET,       /* ^, also power */
    BASALT_SQL_BINARY_BIT_AND,     /* & */
    BASALT_SQL_BINARY_BIT_OR,      /* | */
    BASALT_SQL_BINARY_SHIFT_LEFT,  /* << */
    BASALT_SQL_BINARY_SHIFT_RIGHT, /* >> */
    BASALT_SQL_BINARY_STARTS_WITH, /* ^@ */
    BASALT_SQL_BINARY_REGEX,       /* ~: regexp_full_match */
    BASALT_SQL_BINARY_NOT_REGEX,   /* !~ */
    BASALT_SQL_BINARY_LIKE,        /* ~~ */
    BASALT_SQL_BINARY_NOT_LIKE,    /* !~~ */
    BASALT_SQL_BINARY_ILIKE,       /* ~~* */
    BASALT_SQL_BINARY_NOT_ILIKE,   /* !~~* */
};

/* The text of a binary operator of BASALT_SQL_BINARY_POW and after ("**",
 * "~~*"); NULL for the others. */
const char *basalt_sql_operator_text(enum basalt_sql_binary_op op);

enum basalt_sql_is_what {
    BASALT_SQL_IS_NULL,
    BASALT_SQL_IS_TRUE,
    BASALT_SQL_IS_FALSE,
};

/* INTERVAL units; plurals (DAYS) fold onto the singular. */
enum basalt_sql_interval_unit {
    BASALT_SQL_UNIT_NONE = 0, /* INTERVAL '1 day 2 hours': the text says */
    BASALT_SQL_UNIT_YEAR,
    BASALT_SQL_UNIT_QUARTER,
    BASALT_SQL_UNIT_MONTH,
    BASALT_SQL_UNIT_WEEK,
    BASALT_SQL_UNIT_DAY,
    BASALT_SQL_UNIT_HOUR,
    BASALT_SQL_UNIT_MINUTE,
    BASALT_SQL_UNIT_SECOND,
    BASALT_SQL_UNIT_MILLISECOND,
    BASALT_SQL_UNIT_MICROSECOND,
};

enum basalt_sql_order_dir {
    BASALT_SQL_ORDER_DEFAULT = 0, /* not written: ASC */
    BASALT_SQL_ORDER_ASC,
    BASALT_SQL_ORDER_DESC,
};

enum basalt_sql_nulls_order {
    BASALT_SQL_NULLS_DEFAULT = 0, /* not written: DuckDB's default is NULLS LAST */
    BASALT_SQL_NULLS_FIRST,
    BASALT_SQL_NULLS_LAST,
};

/* An ORDER BY item. In ORDER BY ALL the single item's expr is NULL. */
struct basalt_sql_order_item {
    struct basalt_sql_expr *expr;
    enum basalt_sql_order_dir dir;
    enum basalt_sql_nulls_order nulls;
};

/* Whether a function name is one of the aggregates (bind/bind.c); the
 * parser asks too, for the rewrite of ANY and ALL. */
bool basalt_sql_is_aggregate(const char *name);

/* A function call, in an expression or as a table function in FROM.
 * arg_names[i] is NULL for a positional argument and the (lower-cased)
 * name for `name => value` (also `name := value`); arg_names itself is NULL
 * when every argument is positional. */
struct basalt_sql_call {
    struct basalt_sql_ident name;
    int32_t n_args;
    struct basalt_sql_expr **args;
    const char **arg_names;
    bool distinct;                        /* count(DISTINCT x) */
    bool star;                            /* count(*): n_args is 0 */
    bool unpack;                          /* *COLUMNS(...): its columns become the arguments of the call around it */
    int32_t n_order;                      /* string_agg(x, ',' ORDER BY y) */
    struct basalt_sql_order_item *order;
    struct basalt_sql_expr *filter;       /* FILTER (WHERE ...) */
    struct basalt_sql_window *over;       /* OVER (...) or OVER w */
};

enum basalt_sql_frame_mode {
    BASALT_SQL_FRAME_NONE = 0, /* no frame clause: the default frame */
    BASALT_SQL_FRAME_ROWS,
    BASALT_SQL_FRAME_RANGE,
    BASALT_SQL_FRAME_GROUPS,
};

enum basalt_sql_bound_kind {
    BASALT_SQL_BOUND_UNBOUNDED_PRECEDING,
    BASALT_SQL_BOUND_PRECEDING,  /* offset PRECEDING */
    BASALT_SQL_BOUND_CURRENT_ROW,
    BASALT_SQL_BOUND_FOLLOWING,  /* offset FOLLOWING */
    BASALT_SQL_BOUND_UNBOUNDED_FOLLOWING,
};

/* EXCLUDE after a frame (EXCLUDE NO OTHERS is the default, NONE). */
enum basalt_sql_frame_exclude {
    BASALT_SQL_EXCLUDE_NONE = 0,
    BASALT_SQL_EXCLUDE_CURRENT_ROW,
    BASALT_SQL_EXCLUDE_GROUP,
    BASALT_SQL_EXCLUDE_TIES,
};

struct basalt_sql_frame_bound {
    enum basalt_sql_bound_kind kind;
    struct basalt_sql_expr *offset; /* PRECEDING / FOLLOWING only */
};

/* A window: OVER (...), OVER w, or a WINDOW clause entry. `ref` names the
 * window it builds on: OVER w is {ref = w} and nothing else; OVER (w ORDER
 * BY x) adds to w. A frame written without BETWEEN (ROWS 3 PRECEDING) has
 * `end` CURRENT ROW, as SQL defines. */
struct basalt_sql_window {
    struct basalt_sql_ident ref;  /* name NULL when none */
    bool parenthesised;           /* false only for OVER w */
    int32_t n_partition;
    struct basalt_sql_expr **partition;
    int32_t n_order;
    struct basalt_sql_order_item *order;
    enum basalt_sql_frame_mode frame;
    struct basalt_sql_frame_bound start, end;
    enum basalt_sql_frame_exclude exclude;
    int32_t pos;
    /* DISTINCT ON's row_number (bind_distinct_on.c): a COLUMNS(...) of its
     * PARTITION BY expands into the list (bind_star.c); elsewhere that is
     * DuckDB's error. */
    bool expand_columns;
};

/* `x op ANY (query)` as written, kept on the expression that means it
 * (parse/parser_quantified.c) so that it prints, and is named, as written.
 * ALL is NOT over the negated ANY, as DuckDB prints it. */
struct basalt_sql_quantified {
    enum basalt_sql_binary_op op;
    struct basalt_sql_expr *arg;
    struct basalt_sql_query *query;
};

/* An entry of * RENAME (t.a AS b): the column as written (1 to 3 parts,
 * the last its name; `'a'` is one part) and its new name. */
struct basalt_sql_rename {
    struct basalt_sql_name column;
    struct basalt_sql_ident alias;
};

struct basalt_sql_expr {
    enum basalt_sql_expr_kind kind;
    int32_t pos;
    int32_t height;
    const struct basalt_sql_quantified *written; /* NULL but for ANY / ALL */
    union {
        struct {
            const char *text;  /* INTEGER, NUMBER, STRING */
            int64_t i64;       /* INTEGER when fits */
            bool fits;         /* INTEGER: the digits fit int64 */
            bool b;            /* BOOL */
        } lit;
        struct {
            struct basalt_sql_type type;
            const char *text;
        } typed; /* TYPED_LITERAL */
        struct {
            struct basalt_sql_expr *value; /* a STRING or INTEGER/NUMBER literal, or any expression written in parentheses */
            enum basalt_sql_interval_unit unit;
        } interval;
        struct basalt_sql_name column;
        struct {
            struct basalt_sql_name qualifier; /* n_parts 0 for a bare * */
            int32_t n_exclude;
            struct basalt_sql_name *exclude;         /* `a`, `t.a` or 'a' (one part) */
            int32_t n_replace;                       /* * REPLACE (expr AS name, ...) */
            struct basalt_sql_select_item *replace;  /* alias: the column replaced */
            int32_t n_rename;                        /* * RENAME (col AS name, ...) */
            struct basalt_sql_rename *rename;
        } star;
        struct {
            enum basalt_sql_unary_op op;
            struct basalt_sql_expr *arg;
        } unary;
        struct {
            enum basalt_sql_binary_op op;
            struct basalt_sql_expr *left, *right;
        } binary;
        struct {
            struct basalt_sql_expr *arg;
            enum basalt_sql_is_what what;
            bool negated;
        } is;
        struct {
            struct basalt_sql_expr *arg, *low, *high;
            bool negated;
        } between;
        struct {
            struct basalt_sql_expr *arg;
            int32_t n_items;
            struct basalt_sql_expr **items;
            bool negated;
        } in_list;
        struct {
            struct basalt_sql_expr *arg;
            struct basalt_sql_query *query;
            bool negated;
        } in_query;
        struct {
            struct basalt_sql_expr *arg, *pattern, *escape; /* escape may be NULL */
            bool negated;
            bool ilike;
            bool similar; /* [NOT] SIMILAR TO: a regular expression matching all of arg */
        } like;
        struct {
            struct basalt_sql_expr *operand; /* NULL for the searched form */
            int32_t n_when;
            struct basalt_sql_expr **when, **then;
            struct basalt_sql_expr *otherwise; /* ELSE; NULL when absent */
        } case_;
        struct {
            struct basalt_sql_expr *arg;
            struct basalt_sql_type type;
            bool try_cast;
        } cast;
        struct {
            const char *part; /* lower-cased: year, month, epoch, ... */
            struct basalt_sql_expr *arg;
        } extract;
        struct basalt_sql_call call; /* FUNCTION */
        struct basalt_sql_query *subquery; /* SUBQUERY, EXISTS */
        struct {
            int32_t n_items;
            struct basalt_sql_expr **items;
        } list;
        struct {
            struct basalt_sql_ident param;
            struct basalt_sql_expr *body;
        } lambda;
    } u;
};

/* ------------------------------------------------------------------ FROM */

enum basalt_sql_from_kind {
    BASALT_SQL_FROM_TABLE,    /* a named table, with optional time travel */
    BASALT_SQL_FROM_FILE,     /* FROM 'trips/part-1.parquet' (globs allowed) */
    BASALT_SQL_FROM_FUNCTION, /* read_parquet(...), iceberg_scan(...), any name with arguments */
    BASALT_SQL_FROM_SUBQUERY, /* (SELECT ...), (VALUES ...) */
    BASALT_SQL_FROM_JOIN,
};

enum basalt_sql_join_kind {
    BASALT_SQL_JOIN_CROSS, /* `,` and CROSS JOIN */
    BASALT_SQL_JOIN_INNER,
    BASALT_SQL_JOIN_LEFT,
    BASALT_SQL_JOIN_RIGHT,
    BASALT_SQL_JOIN_FULL,
    BASALT_SQL_JOIN_SEMI,
    BASALT_SQL_JOIN_ANTI,
};

enum basalt_sql_time_travel {
    BASALT_SQL_TRAVEL_NONE = 0,
    BASALT_SQL_TRAVEL_VERSION,   /* FOR VERSION AS OF expr */
    BASALT_SQL_TRAVEL_TIMESTAMP, /* FOR TIMESTAMP AS OF expr */
};

struct basalt_sql_from {
    enum basalt_sql_from_kind kind;
    int32_t pos;
    int32_t height;
    union {
        struct {
            struct basalt_sql_name name;
            enum basalt_sql_time_travel travel;
            struct basalt_sql_expr *as_of;
        } table;
        const char *file;              /* FILE: the path or glob */
        struct basalt_sql_call call;   /* FUNCTION: name and arguments only */
        struct basalt_sql_query *subquery;
        struct {
            enum basalt_sql_join_kind kind;
            struct basalt_sql_from *left, *right;
            struct basalt_sql_expr *on;      /* NULL with USING or CROSS */
            int32_t n_using;
            struct basalt_sql_ident *using_; /* USING (a, b) */
            bool natural; /* NATURAL: USING the names both sides have */
        } join;
    } u;
    /* [AS] alias [(c1, c2)]; alias.name NULL when none (never on a JOIN). */
    struct basalt_sql_ident alias;
    int32_t n_column_aliases;
    struct basalt_sql_ident *column_aliases;
    /* The aliases must name every column (the rewrite of ANY and ALL reads
     * a query's one column this way, parse/parser_quantified.c). */
    bool exact_column_aliases;
    bool lateral; /* LATERAL (query): it may read the FROM items before it */
};

/* ------------------------------------------------------------------ queries */


/* WINDOW name AS (...) */
struct basalt_sql_named_window {
    struct basalt_sql_ident name;
    struct basalt_sql_window *window;
};

/* An element of a GROUP BY written with grouping sets. The binder expands
 * the elements into the grouping sets: a KEY is the one set {key}, a LIST
 * the one set of its keys (`()` the empty set), ROLLUP (e1, .., en) the n +
 * 1 sets {e1..en}, {e1..en-1}, .., {}, CUBE every subset of its items,
 * GROUPING SETS the sets of its items one after another (duplicates kept);
 * the GROUP BY's elements combine as the cross product of their sets. */
enum basalt_sql_grouping_kind {
    BASALT_SQL_GROUPING_KEY,    /* the select's group[key] */
    BASALT_SQL_GROUPING_LIST,   /* (a, b) or (): items are KEYs */
    BASALT_SQL_GROUPING_ROLLUP, /* ROLLUP (a, (b, c)): items are KEYs or LISTs */
    BASALT_SQL_GROUPING_CUBE,   /* CUBE (...): as ROLLUP */
    BASALT_SQL_GROUPING_SETS,   /* GROUPING SETS (...): items of any kind */
};

struct basalt_sql_grouping {
    enum basalt_sql_grouping_kind kind;
    int32_t pos;
    int32_t key; /* KEY: an index into group */
    int32_t n_items;
    struct basalt_sql_grouping *items;
};

struct basalt_sql_select {
    bool distinct;                   /* SELECT DISTINCT (SELECT ALL is the default) */
    int32_t n_distinct_on;           /* SELECT DISTINCT ON (a, b): distinct is false */
    struct basalt_sql_expr **distinct_on;
    int32_t n_items;
    struct basalt_sql_select_item *items;
    struct basalt_sql_from *from;    /* NULL without FROM; `a, b` is a CROSS join */
    struct basalt_sql_expr *where;
    bool group_all;                  /* GROUP BY ALL: n_group is 0 */
    int32_t n_group;
    struct basalt_sql_expr **group;  /* every key as written, also those of grouping sets */
    /* GROUP BY with grouping sets (ROLLUP, CUBE, GROUPING SETS, `()`, a
     * parenthesised list): its elements; 0 and NULL for plain keys. */
    int32_t n_grouping;
    struct basalt_sql_grouping *grouping;
    struct basalt_sql_expr *having;
    int32_t n_windows;
    struct basalt_sql_named_window *windows;
    struct basalt_sql_expr *qualify;
};

enum basalt_sql_query_kind {
    BASALT_SQL_QUERY_SELECT,
    BASALT_SQL_QUERY_SET_OP,
    BASALT_SQL_QUERY_VALUES,
};

enum basalt_sql_set_op {
    BASALT_SQL_SET_UNION,
    BASALT_SQL_SET_INTERSECT,
    BASALT_SQL_SET_EXCEPT,
};

/* WITH t AS [NOT] MATERIALIZED (...): whether the CTE is computed once and
 * its rows read by every reference, or planned again at each one. */
enum basalt_sql_cte_materialize {
    BASALT_SQL_CTE_AUTO = 0, /* once when referenced twice or more and aggregating */
    BASALT_SQL_CTE_MATERIALIZED,
    BASALT_SQL_CTE_NOT_MATERIALIZED,
};

struct basalt_sql_cte {
    struct basalt_sql_ident name;
    int32_t n_columns;
    struct basalt_sql_ident *columns; /* WITH t(a, b) AS (...) */
    struct basalt_sql_query *query;
    enum basalt_sql_cte_materialize materialize;
    bool recursive; /* WITH RECURSIVE: its query may read its own name */
};

/* A query: a SELECT, a set operation or VALUES, with the WITH, ORDER BY and
 * LIMIT/OFFSET that apply to all of it. */
struct basalt_sql_query {
    enum basalt_sql_query_kind kind;
    int32_t pos;
    int32_t height;
    int32_t n_ctes;
    struct basalt_sql_cte *ctes;
    union {
        struct basalt_sql_select select;
        struct {
            enum basalt_sql_set_op op;
            bool all;  /* UNION ALL, INTERSECT ALL, EXCEPT ALL; UNION DISTINCT is the default */
            struct basalt_sql_query *left, *right;
        } set_op;
        struct {
            int32_t n_rows;
            int32_t n_columns;             /* every row has this many (the parser checks) */
            struct basalt_sql_expr ***rows; /* rows[r][c] */
        } values;
    } u;
    bool order_all;                       /* ORDER BY ALL: one item, its expr NULL */
    int32_t n_order;
    struct basalt_sql_order_item *order;
    struct basalt_sql_expr *limit;        /* NULL when absent */
    struct basalt_sql_expr *offset;
};

/* ------------------------------------------------------------------ statements */

enum basalt_sql_statement_kind {
    BASALT_SQL_STMT_QUERY,           /* query */
    BASALT_SQL_STMT_EXPLAIN,         /* EXPLAIN [ANALYZE] query: analyze */
    BASALT_SQL_STMT_COPY,            /* COPY (query) | name TO 'file' [(options)] */
    BASALT_SQL_STMT_CREATE_TABLE_AS, /* CREATE [OR REPLACE] TABLE [IF NOT EXISTS] name AS query */
    BASALT_SQL_STMT_CREATE_TABLE,    /* CREATE TABLE name (col type [NOT NULL], ...) */
    BASALT_SQL_STMT_INSERT,          /* INSERT INTO name [(cols)] query */
    BASALT_SQL_STMT_DESCRIBE,        /* DESCRIBE query | name (query NULL for a table) */
    BASALT_SQL_STMT_SHOW_TABLES,
    BASALT_SQL_STMT_SET,             /* SET name = value | SET name TO value */
    BASALT_SQL_STMT_DROP_TABLE,      /* DROP TABLE [IF EXISTS] name */
};

struct basalt_sql_column_def {
    struct basalt_sql_ident name;
    struct basalt_sql_type type;
    bool not_null;
};

/* A COPY option: FORMAT parquet, HEADER, DELIMITER ','. The name is
 * lower-cased; value is NULL for a bare flag (HEADER), and a word written
 * without quotes (parquet) is a STRING literal, as DuckDB reads it. */
struct basalt_sql_option {
    const char *name;
    struct basalt_sql_expr *value;
    int32_t pos;
};

struct basalt_sql_statement {
    enum basalt_sql_statement_kind kind;
    int32_t pos;
    struct basalt_sql_query *query; /* QUERY, EXPLAIN, COPY (NULL: copy table `name`), CREATE_TABLE_AS, INSERT, DESCRIBE (NULL: describe table `name`) */
    struct basalt_sql_name name;    /* the table of COPY, CREATE, INSERT, DESCRIBE, DROP */
    bool analyze;                   /* EXPLAIN ANALYZE */
    bool or_replace;                /* CREATE OR REPLACE TABLE */
    bool if_not_exists;             /* CREATE TABLE IF NOT EXISTS */
    bool if_exists;                 /* DROP TABLE IF EXISTS */
    int32_t n_columns;              /* CREATE TABLE (...) definitions */
    struct basalt_sql_column_def *columns;
    int32_t n_insert_columns;       /* INSERT INTO t (a, b) */
    struct basalt_sql_ident *insert_columns;
    const char *copy_to;            /* COPY ... TO 'file' */
    int32_t n_options;
    struct basalt_sql_option *options;
    struct basalt_sql_ident set_name;   /* SET name = value (a word value is a STRING literal) */
    struct basalt_sql_expr *set_value;
};

/* ------------------------------------------------------------------ script */

/* Statement i of a parsed script (i < basalt_sql_script_count), owned by the
 * script; NULL when i is out of range. */
const struct basalt_sql_statement *basalt_sql_script_statement(const struct basalt_sql_script *s,
                                                              size_t i);

/* Canonical, fully parenthesised text of one expression / query into buf
 * (NUL-terminated when cap > 0). Returns the length the whole text needs,
 * like snprintf; never allocates. For the binder's error messages and
 * EXPLAIN. */
size_t basalt_sql_expr_format(const struct basalt_sql_expr *e, char *buf, size_t cap);
size_t basalt_sql_query_format(const struct basalt_sql_query *q, char *buf, size_t cap);

#endif
