/* Type names: DuckDB's names and aliases folded onto its canonical types. */
#include <string.h>

#include "sql_internal.h"

struct type_alias {
    const char *word;
    enum basalt_sql_type_id id;
};

static const struct type_alias aliases[] = {
    {"boolean", BASALT_SQL_TYPE_BOOLEAN},     {"bool", BASALT_SQL_TYPE_BOOLEAN},
    {"logical", BASALT_SQL_TYPE_BOOLEAN},     {"tinyint", BASALT_SQL_TYPE_TINYINT},
    {"int1", BASALT_SQL_TYPE_TINYINT},        {"smallint", BASALT_SQL_TYPE_SMALLINT},
    {"int2", BASALT_SQL_TYPE_SMALLINT},       {"short", BASALT_SQL_TYPE_SMALLINT},
    {"integer", BASALT_SQL_TYPE_INTEGER},     {"int", BASALT_SQL_TYPE_INTEGER},
    {"int4", BASALT_SQL_TYPE_INTEGER},        {"signed", BASALT_SQL_TYPE_INTEGER},
    {"bigint", BASALT_SQL_TYPE_BIGINT},       {"int8", BASALT_SQL_TYPE_BIGINT},
    {"long", BASALT_SQL_TYPE_BIGINT},         {"hugeint", BASALT_SQL_TYPE_HUGEINT},
    {"int128", BASALT_SQL_TYPE_HUGEINT},      {"utinyint", BASALT_SQL_TYPE_UTINYINT},
    {"uint8", BASALT_SQL_TYPE_UTINYINT},      {"usmallint", BASALT_SQL_TYPE_USMALLINT},
    {"uint16", BASALT_SQL_TYPE_USMALLINT},    {"uinteger", BASALT_SQL_TYPE_UINTEGER},
    {"uint32", BASALT_SQL_TYPE_UINTEGER},     {"ubigint", BASALT_SQL_TYPE_UBIGINT},
    {"uint64", BASALT_SQL_TYPE_UBIGINT},      {"uhugeint", BASALT_SQL_TYPE_UHUGEINT},
    {"uint128", BASALT_SQL_TYPE_UHUGEINT},    {"real", BASALT_SQL_TYPE_FLOAT},
    {"float4", BASALT_SQL_TYPE_FLOAT},        {"float", BASALT_SQL_TYPE_FLOAT},
    {"double", BASALT_SQL_TYPE_DOUBLE},       {"float8", BASALT_SQL_TYPE_DOUBLE},
    {"decimal", BASALT_SQL_TYPE_DECIMAL},     {"numeric", BASALT_SQL_TYPE_DECIMAL},
    {"dec", BASALT_SQL_TYPE_DECIMAL},         {"varchar", BASALT_SQL_TYPE_VARCHAR},
    {"text", BASALT_SQL_TYPE_VARCHAR},        {"string", BASALT_SQL_TYPE_VARCHAR},
    {"char", BASALT_SQL_TYPE_VARCHAR},        {"bpchar", BASALT_SQL_TYPE_VARCHAR},
    {"nvarchar", BASALT_SQL_TYPE_VARCHAR},    {"character", BASALT_SQL_TYPE_VARCHAR},
    {"blob", BASALT_SQL_TYPE_BLOB},           {"bytea", BASALT_SQL_TYPE_BLOB},
    {"binary", BASALT_SQL_TYPE_BLOB},         {"varbinary", BASALT_SQL_TYPE_BLOB},
    {"date", BASALT_SQL_TYPE_DATE},           {"time", BASALT_SQL_TYPE_TIME},
    {"timestamp", BASALT_SQL_TYPE_TIMESTAMP}, {"datetime", BASALT_SQL_TYPE_TIMESTAMP},
    {"timestamp_us", BASALT_SQL_TYPE_TIMESTAMP}, {"timestamp_s", BASALT_SQL_TYPE_TIMESTAMP_S},
    {"timestamp_ms", BASALT_SQL_TYPE_TIMESTAMP_MS}, {"timestamp_ns", BASALT_SQL_TYPE_TIMESTAMP_NS},
    {"timestamptz", BASALT_SQL_TYPE_TIMESTAMPTZ}, {"interval", BASALT_SQL_TYPE_INTERVAL},
    {"uuid", BASALT_SQL_TYPE_UUID},
};

/* DuckDB's names, indexed by basalt_sql_type_id. */
static const char *const canonical[] = {
    [BASALT_SQL_TYPE_OTHER] = "",
    [BASALT_SQL_TYPE_BOOLEAN] = "BOOLEAN",
    [BASALT_SQL_TYPE_TINYINT] = "TINYINT",
    [BASALT_SQL_TYPE_SMALLINT] = "SMALLINT",
    [BASALT_SQL_TYPE_INTEGER] = "INTEGER",
    [BASALT_SQL_TYPE_BIGINT] = "BIGINT",
    [BASALT_SQL_TYPE_HUGEINT] = "HUGEINT",
    [BASALT_SQL_TYPE_UTINYINT] = "UTINYINT",
    [BASALT_SQL_TYPE_USMALLINT] = "USMALLINT",
    [BASALT_SQL_TYPE_UINTEGER] = "UINTEGER",
    [BASALT_SQL_TYPE_UBIGINT] = "UBIGINT",
    [BASALT_SQL_TYPE_UHUGEINT] = "UHUGEINT",
    [BASALT_SQL_TYPE_FLOAT] = "FLOAT",
    [BASALT_SQL_TYPE_DOUBLE] = "DOUBLE",
    [BASALT_SQL_TYPE_DECIMAL] = "DECIMAL",
    [BASALT_SQL_TYPE_VARCHAR] = "VARCHAR",
    [BASALT_SQL_TYPE_BLOB] = "BLOB",
    [BASALT_SQL_TYPE_DATE] = "DATE",
    [BASALT_SQL_TYPE_TIME] = "TIME",
    [BASALT_SQL_TYPE_TIMESTAMP] = "TIMESTAMP",
    [BASALT_SQL_TYPE_TIMESTAMP_S] = "TIMESTAMP_S",
    [BASALT_SQL_TYPE_TIMESTAMP_MS] = "TIMESTAMP_MS",
    [BASALT_SQL_TYPE_TIMESTAMP_NS] = "TIMESTAMP_NS",
    [BASALT_SQL_TYPE_TIMESTAMPTZ] = "TIMESTAMP WITH TIME ZONE",
    [BASALT_SQL_TYPE_INTERVAL] = "INTERVAL",
    [BASALT_SQL_TYPE_UUID] = "UUID",
};

static const struct type_alias *find_alias(const struct sql_parser *p, const struct sql_token *t)
{
    for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
        if (basalt_sqlp_word_is(p, t, aliases[i].word))
            return &aliases[i];
    return NULL;
}

/* Words for which `WORD 'text'` is a typed literal. */
static const char *const literal_types[] = {
    "date", "time", "timestamp", "timestamptz", "datetime", "timestamp_s", "timestamp_ms",
    "timestamp_ns", "timestamp_us", "uuid", "blob", "bytea",
};

bool basalt_sqlp_at_typed_literal(const struct sql_parser *p)
{
    bool known = false;
    for (size_t i = 0; i < sizeof(literal_types) / sizeof(literal_types[0]); i++)
        known = known || sqlp_kw(p, literal_types[i]);
    if (!known)
        return false;
    if (sqlp_peek(p, 1)->kind == TK_STRING)
        return true;
    /* TIMESTAMP WITH TIME ZONE '...' */
    return sqlp_kw(p, "timestamp") && sqlp_kw_at(p, 1, "with") && sqlp_kw_at(p, 2, "time") &&
           sqlp_kw_at(p, 3, "zone") && sqlp_peek(p, 4)->kind == TK_STRING;
}

/* WITH TIME ZONE / WITHOUT TIME ZONE after TIMESTAMP or TIME; returns 1
 * for WITH, 0 for WITHOUT, -1 for neither. */
static int zone_suffix(struct sql_parser *p)
{
    bool with = sqlp_kw(p, "with");
    if (!(with || sqlp_kw(p, "without")) || !sqlp_kw_at(p, 1, "time") || !sqlp_kw_at(p, 2, "zone"))
        return -1;
    sqlp_advance(p);
    sqlp_advance(p);
    sqlp_advance(p);
    return with ? 1 : 0;
}

/* `[]` after a type: DuckDB's list of it. A second `[]` (a list of lists)
 * is refused; `[n]` (DuckDB's fixed-size ARRAY) is left to the caller,
 * where it is a syntax error. */
static bool list_suffix(struct sql_parser *p, struct basalt_sql_type *out)
{
    while (sqlp_is(p, TK_LBRACKET) && sqlp_peek(p, 1)->kind == TK_RBRACKET) {
        if (out->list) {
            basalt_sqlp_fail(p, BASALT_UNSUPPORTED, sqlp_cur(p)->pos,
                             "lists of lists are not supported yet");
            return false;
        }
        out->list = true;
        sqlp_advance(p);
        sqlp_advance(p);
    }
    return true;
}

bool basalt_sqlp_type(struct sql_parser *p, struct basalt_sql_type *out)
{
    const struct sql_token *t = sqlp_cur(p);
    memset(out, 0, sizeof(*out));
    out->pos = t->pos;
    if (t->kind != TK_WORD) {
        basalt_sqlp_syntax(p);
        return false;
    }
    const struct type_alias *a = find_alias(p, t);
    if (a) {
        out->id = a->id;
        out->name = canonical[a->id];
        bool timestamp = basalt_sqlp_word_is(p, t, "timestamp");
        bool time = basalt_sqlp_word_is(p, t, "time");
        bool dbl = basalt_sqlp_word_is(p, t, "double");
        bool character = basalt_sqlp_word_is(p, t, "character");
        sqlp_advance(p);
        if (dbl)
            basalt_sqlp_accept_kw(p, "precision");
        if (character)
            basalt_sqlp_accept_kw(p, "varying");
        if (timestamp || time) {
            int zone = zone_suffix(p);
            if (zone == 1 && timestamp) {
                out->id = BASALT_SQL_TYPE_TIMESTAMPTZ;
                out->name = canonical[out->id];
            } else if (zone == 1) {
                basalt_sqlp_fail(p, BASALT_UNSUPPORTED, t->pos, "TIME WITH TIME ZONE is not supported");
                return false;
            }
        }
    } else {
        if (basalt_sqlp_reserved(p, t, false)) {
            basalt_sqlp_syntax(p);
            return false;
        }
        out->id = BASALT_SQL_TYPE_OTHER;
        out->name = basalt_sqlp_token_text(p, t);
        if (!out->name)
            return false;
        sqlp_advance(p);
    }
    if (!sqlp_is(p, TK_LPAREN))
        return list_suffix(p, out);
    sqlp_advance(p);
    for (;;) {
        const struct sql_token *n = sqlp_cur(p);
        if (out->n_params == 2 || n->kind != TK_INTEGER) {
            basalt_sqlp_syntax(p);
            return false;
        }
        int64_t v = 0;
        for (int32_t i = 0; i < n->len; i++) {
            if (v > (INT32_MAX - 9) / 10) {
                basalt_sqlp_fail(p, BASALT_INVALID_ARG, n->pos, "type parameter out of range");
                return false;
            }
            v = v * 10 + (p->text[n->pos + i] - '0');
        }
        out->params[out->n_params++] = v;
        sqlp_advance(p);
        if (!basalt_sqlp_accept(p, TK_COMMA))
            break;
    }
    return basalt_sqlp_expect(p, TK_RPAREN) && list_suffix(p, out);
}
