/* Resolvers of regexp_matches(s, pattern [, options]) (a match anywhere)
 * and regexp_full_match(s, pattern [, options]) (the whole string; SQL's
 * `~` and SIMILAR TO). Patterns are RE2 syntax rewritten to POSIX ERE as
 * for regexp_replace (exec/k_string_more.c). A constant pattern is checked
 * here, as DuckDB checks it when it binds, and compiled once; a column of
 * patterns is compiled as the rows come (a bad one fails there). */
#include "query_internal.h"

#define T(id) basalt_query_type_make(BASALT_QUERY_TYPE_##id)

static bool text_or_null(const struct basalt_qexpr *e)
{
    return e->type.id == BASALT_QUERY_TYPE_STRING || e->type.id == BASALT_QUERY_TYPE_NULL;
}

/* DuckDB's options of the matching functions: c/i case, s/m/n/p newline
 * handling ('s' lets `.` take a newline), l literal; 'g' is refused. */
static basalt_status options(struct basalt_qexpr_builder *b, const struct basalt_qexpr *opt,
                             int32_t *flags, struct basalt_error *err)
{
    if (opt->kind != QN_CONST)
        return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "Regex options field must be a constant");
    if (opt->value.is_null)
        return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "Regex options field must not be NULL");
    for (size_t i = 0; i < opt->value.v.str.len; i++) {
        char c = opt->value.v.str.ptr[i];
        if (c == 'c' || c == 'i')
            *flags = c == 'i' ? *flags | QRE_ICASE : *flags & ~QRE_ICASE;
        else if (c == 's' || c == 'm' || c == 'n' || c == 'p')
            *flags = c == 's' ? *flags | QRE_DOT_NL : *flags & ~QRE_DOT_NL;
        else if (c == 'l')
            *flags |= QRE_LITERAL;
        else if (c == 'g')
            return basalt_qnode_error(b, BASALT_INVALID_ARG, err,
                                      "Option 'g' (global replace) is only valid for regexp_replace");
        else if (c != ' ' && c != '\t' && c != '\n')
            return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "Unrecognized Regex option %c", c);
    }
    return BASALT_OK;
}

static basalt_status r_match(struct basalt_qexpr_builder *b, const char *name, enum qop op,
                             struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                             struct basalt_error *err)
{
    if (!text_or_null(args[0]) || !text_or_null(args[1]) || (n == 3 && !text_or_null(args[2])))
        return basalt_qbind_no_overload(b, name, args, n, err);
    int32_t flags = op == QOP_REGEXP_FULL ? QRE_FULL : 0;
    if (n == 3) {
        basalt_status st = options(b, args[2], &flags, err);
        if (st != BASALT_OK)
            return st;
    }
    const struct basalt_qexpr *pat = args[1];
    char msg[256];
    if (pat->kind == QN_CONST && !pat->value.is_null &&
        !basalt_qregex_check(pat->value.v.str.ptr, pat->value.v.str.len, flags, msg, sizeof msg))
        return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "%s: invalid pattern '%.*s': %s", name,
                                  (int)pat->value.v.str.len, pat->value.v.str.ptr, msg);
    struct basalt_query_type types[2] = {T(STRING), T(STRING)};
    return basalt_qbind_call_aux(b, name, op, args, 2, types, T(BOOL), flags, false, out, err);
}

const struct qfunc_ext basalt_qfuncs_regex[] = {
    {"regexp_matches", QOP_REGEXP, r_match, 2, 3},
    {"regexp_full_match", QOP_REGEXP_FULL, r_match, 2, 3},
};
const size_t basalt_qfuncs_regex_n = sizeof basalt_qfuncs_regex / sizeof basalt_qfuncs_regex[0];
