/* Resolvers of DuckDB's list functions: list_value (the `[a, b]` literal),
 * len / array_length (length() of a list lands here too), list_extract
 * (`l[i]`), list_contains and string_split. Lists hold one level of a
 * scalar type (basalt_query_type_list); a list of lists is refused. Kernels
 * in exec/k_list.c. */
#include <string.h>
#include <strings.h>

#include "query_internal.h"

static bool is_list(const struct basalt_qexpr *e) { return e->type.id == BASALT_QUERY_TYPE_LIST; }
static bool is_list_type(struct basalt_query_type t) { return t.id == BASALT_QUERY_TYPE_LIST; }

static basalt_status nested(struct basalt_qexpr_builder *b, const char *name,
                            struct basalt_error *err)
{
    return basalt_qnode_error(b, BASALT_UNSUPPORTED, err,
                              "%s: lists of lists are not supported yet", name);
}

/* list_value(a, b, ...): the arguments in their common type. DuckDB's
 * list_value() of nothing is a list of untyped NULLs. */
static basalt_status r_list_value(struct basalt_qexpr_builder *b, const char *name, enum qop op,
                                  struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                                  struct basalt_error *err)
{
    struct basalt_query_type t = basalt_query_type_make(BASALT_QUERY_TYPE_NULL);
    for (int i = 0; i < n; i++) {
        if (is_list(args[i]))
            return nested(b, name, err);
        if (i == 0)
            t = args[0]->type;
        else if (!basalt_qbind_operand_types(args[0], t, args[i], args[i]->type, &t))
            return basalt_qbind_no_overload(b, name, args, n, err);
    }
    /* NULL arguments are NULL elements, not a NULL list: bind with no NULL
     * shortcut by making the call over casts of its own */
    struct basalt_qexpr *cast[QMAX_ARGS];
    for (int i = 0; i < n; i++) {
        basalt_status st = basalt_qbind_cast(b, args[i], t, false, true, &cast[i], err);
        if (st != BASALT_OK)
            return st;
    }
    return basalt_qbind_list_call(b, name, op, cast, n, basalt_query_type_list(t), out, err);
}

static basalt_status r_list_len(struct basalt_qexpr_builder *b, const char *name, enum qop op,
                                struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                                struct basalt_error *err)
{
    if (args[0]->type.id == BASALT_QUERY_TYPE_STRING && strcasecmp(name, "len") == 0)
        return basalt_qexpr_call(b, "length", args, n, out, err);
    if (args[0]->type.id == BASALT_QUERY_TYPE_NULL)
        return basalt_qexpr_null(b, basalt_query_type_make(BASALT_QUERY_TYPE_INT64), out, err);
    if (!is_list(args[0]))
        return basalt_qbind_no_overload(b, name, args, n, err);
    return basalt_qbind_call(b, name, op, args, n, &args[0]->type,
                             basalt_query_type_make(BASALT_QUERY_TYPE_INT64), false, out, err);
}

/* list_extract(l, i): the element's type; i any integer (BIGINT). */
static basalt_status r_list_extract(struct basalt_qexpr_builder *b, const char *name, enum qop op,
                                    struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                                    struct basalt_error *err)
{
    enum basalt_query_type_id it = args[1]->type.id;
    if (!is_list(args[0]) || !(basalt_qtype_is_int(it) || it == BASALT_QUERY_TYPE_NULL))
        return basalt_qbind_no_overload(b, name, args, n, err);
    struct basalt_query_type types[2] = {args[0]->type, basalt_query_type_make(BASALT_QUERY_TYPE_INT64)};
    return basalt_qbind_call(b, name, op, args, n, types, basalt_query_type_element(args[0]->type),
                             true, out, err);
}

/* list_contains(l, v): the list's elements and v in their common type. */
static basalt_status r_list_contains(struct basalt_qexpr_builder *b, const char *name, enum qop op,
                                     struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                                     struct basalt_error *err)
{
    if (args[0]->type.id == BASALT_QUERY_TYPE_NULL || !is_list(args[0]) || is_list(args[1]))
        return args[0]->type.id == BASALT_QUERY_TYPE_NULL && !is_list(args[1])
                   ? basalt_qexpr_null(b, basalt_query_type_make(BASALT_QUERY_TYPE_BOOL), out, err)
                   : basalt_qbind_no_overload(b, name, args, n, err);
    struct basalt_query_type elem = basalt_query_type_element(args[0]->type), t;
    if (elem.id == BASALT_QUERY_TYPE_NULL)
        elem = args[1]->type;
    if (!basalt_qbind_operand_types(args[1], elem, args[1], args[1]->type, &t))
        return basalt_qbind_no_overload(b, name, args, n, err);
    struct basalt_query_type types[2] = {basalt_query_type_list(t), t};
    return basalt_qbind_call(b, name, op, args, n, types,
                             basalt_query_type_make(BASALT_QUERY_TYPE_BOOL), false, out, err);
}

/* string_split(s, sep): VARCHAR[]. */
static basalt_status r_string_split(struct basalt_qexpr_builder *b, const char *name, enum qop op,
                                    struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                                    struct basalt_error *err)
{
    struct basalt_query_type s = basalt_query_type_make(BASALT_QUERY_TYPE_STRING);
    for (int i = 0; i < n; i++)
        if (args[i]->type.id != BASALT_QUERY_TYPE_STRING && args[i]->type.id != BASALT_QUERY_TYPE_NULL)
            return basalt_qbind_no_overload(b, name, args, n, err);
    /* a NULL separator is no split, not a NULL result: no NULL shortcut */
    struct basalt_qexpr *cast[2];
    for (int i = 0; i < n; i++) {
        basalt_status st = basalt_qbind_cast(b, args[i], s, false, true, &cast[i], err);
        if (st != BASALT_OK)
            return st;
    }
    basalt_status st = basalt_qbind_list_call(b, name, op, cast, n, basalt_query_type_list(s), out, err);
    if (st == BASALT_OK)
        (*out)->nullable = cast[0]->nullable;
    return st;
}

/* A constant text option of list_sort: *is_null for a NULL one. */
static basalt_status sort_option(struct basalt_qexpr_builder *b, const char *name,
                                 const struct basalt_qexpr *a,
                                 const char *const *words, int n_words, int *which,
                                 bool *is_null, struct basalt_error *err)
{
    if (a->kind != QN_CONST || (a->type.id != BASALT_QUERY_TYPE_STRING &&
                                a->type.id != BASALT_QUERY_TYPE_NULL))
        return basalt_qnode_error(b, BASALT_INVALID_ARG, err,
                                  "Sorting order must be a constant");
    if (a->value.is_null || a->type.id == BASALT_QUERY_TYPE_NULL) {
        *is_null = true;
        return BASALT_OK;
    }
    for (int w = 0; w < n_words; w++)
        if (strlen(words[w]) == a->value.v.str.len &&
            strncasecmp(words[w], a->value.v.str.ptr, a->value.v.str.len) == 0) {
            *which = w;
            return BASALT_OK;
        }
    return basalt_qnode_error(b, BASALT_INVALID_ARG, err,
                              "%s: unrecognized sorting option \"%.*s\" (%s or %s)", name,
                              (int)a->value.v.str.len, a->value.v.str.ptr, words[0], words[1]);
}

/* list_sort(l [, 'ASC'|'DESC' [, 'NULLS FIRST'|'NULLS LAST']]) and
 * list_reverse_sort(l [, nulls]): DuckDB's defaults ASC, NULLS LAST; the
 * options are constants (a NULL one makes the result NULL). */
static basalt_status r_list_sort(struct basalt_qexpr_builder *b, const char *name, enum qop op,
                                 struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                                 struct basalt_error *err)
{
    static const char *const dirs[] = {"ASC", "DESC"}, *const nulls[] = {"NULLS LAST",
                                                                         "NULLS FIRST"};
    bool reverse = strncasecmp(name, "list_reverse", 12) == 0 ||
                   strncasecmp(name, "array_reverse", 13) == 0;
    if (op == QOP_LIST_DISTINCT && n != 1)
        return basalt_qbind_no_overload(b, name, args, n, err);
    if (n > (reverse ? 2 : 3))
        return basalt_qbind_no_overload(b, name, args, n, err);
    int dir = reverse, nf = 0;
    bool is_null = false;
    basalt_status st = BASALT_OK;
    for (int i = 1; i < n && st == BASALT_OK; i++) {
        bool nulls_arg = reverse || i == 2;
        st = sort_option(b, name, args[i], nulls_arg ? nulls : dirs, 2, nulls_arg ? &nf : &dir,
                         &is_null, err);
    }
    if (st != BASALT_OK)
        return st;
    if (args[0]->type.id == BASALT_QUERY_TYPE_NULL || is_null)
        return basalt_qexpr_null(b, is_list(args[0]) ? args[0]->type
                                                     : basalt_query_type_make(BASALT_QUERY_TYPE_NULL),
                                 out, err);
    if (!is_list(args[0]))
        return basalt_qbind_no_overload(b, name, args, n, err);
    return basalt_qbind_call_aux(b, name, op, args, 1, &args[0]->type, args[0]->type,
                                 dir | nf << 1, false, out, err);
}

basalt_status basalt_qbind_list_compare(struct basalt_qexpr_builder *b, const char *name,
                                        enum qop op, struct basalt_qexpr **args,
                                        struct basalt_qexpr **out, struct basalt_error *err)
{
    struct basalt_query_type t;
    for (int i = 0; i < 2; i++)
        if (args[i]->type.id == BASALT_QUERY_TYPE_NULL)
            return basalt_qexpr_null(b, basalt_query_type_make(BASALT_QUERY_TYPE_BOOL), out, err);
    if (!is_list(args[0]) || !is_list(args[1]) ||
        !basalt_qbind_operand_types(args[0], args[0]->type, args[1], args[1]->type, &t) ||
        !is_list_type(t))
        return basalt_qbind_no_overload(b, name, args, 2, err);
    struct basalt_query_type types[2] = {t, t};
    return basalt_qbind_call_aux(b, name, QOP_LIST_CMP, args, 2, types,
                                 basalt_query_type_make(BASALT_QUERY_TYPE_BOOL),
                                 (int32_t)(op - QOP_EQ), false, out, err);
}

const struct qfunc_ext basalt_qfuncs_list[] = {
    {"list_value", QOP_LIST_VALUE, r_list_value, 0, QMAX_ARGS},
    {"list_pack", QOP_LIST_VALUE, r_list_value, 0, QMAX_ARGS},
    {"len", QOP_LIST_LEN, r_list_len, 1, 1},
    {"array_length", QOP_LIST_LEN, r_list_len, 1, 1},
    {"list_extract", QOP_LIST_EXTRACT, r_list_extract, 2, 2},
    {"list_element", QOP_LIST_EXTRACT, r_list_extract, 2, 2},
    {"array_extract", QOP_LIST_EXTRACT, r_list_extract, 2, 2},
    {"list_contains", QOP_LIST_CONTAINS, r_list_contains, 2, 2},
    {"list_has", QOP_LIST_CONTAINS, r_list_contains, 2, 2},
    {"array_contains", QOP_LIST_CONTAINS, r_list_contains, 2, 2},
    {"array_has", QOP_LIST_CONTAINS, r_list_contains, 2, 2},
    {"string_split", QOP_STRING_SPLIT, r_string_split, 2, 2},
    {"str_split", QOP_STRING_SPLIT, r_string_split, 2, 2},
    {"string_to_array", QOP_STRING_SPLIT, r_string_split, 2, 2},
    {"list_sort", QOP_LIST_SORT, r_list_sort, 1, 3},
    {"array_sort", QOP_LIST_SORT, r_list_sort, 1, 3},
    {"list_reverse_sort", QOP_LIST_SORT, r_list_sort, 1, 2},
    {"array_reverse_sort", QOP_LIST_SORT, r_list_sort, 1, 2},
    {"list_distinct", QOP_LIST_DISTINCT, r_list_sort, 1, 1},
    {"array_distinct", QOP_LIST_DISTINCT, r_list_sort, 1, 1},
};
const size_t basalt_qfuncs_list_n = sizeof basalt_qfuncs_list / sizeof basalt_qfuncs_list[0];
