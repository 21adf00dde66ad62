/* Resolvers of DuckDB's bitwise operators over integers: & | << >> (two
 * operands of one integer type, the result that type) and ~ (bitwise NOT,
 * the operand's type). Other types have no overload, as in DuckDB
 * (`5 & 3.5`, `~1.5`). Kernels in exec/k_bitwise.c. */
#include "query_internal.h"

static basalt_status r_bitwise(struct basalt_qexpr_builder *b, const char *name, enum qop op,
                               struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                               struct basalt_error *err)
{
    struct basalt_query_type t = args[0]->type, types[2];
    if (n == 2 && !basalt_qbind_operand_type(args[0], args[1], &t))
        return basalt_qbind_no_overload(b, name, args, n, err);
    /* DuckDB's overload for an unsigned and a signed integer of one width
     * below 64 bits is BIGINT's (UTINYINT & TINYINT), not the next wider */
    enum basalt_query_type_id x = args[0]->type.id, y = n == 2 ? args[1]->type.id : x;
    if (n == 2 && basalt_qtype_is_unsigned(x) != basalt_qtype_is_unsigned(y) && basalt_qtype_is_int(x) &&
        basalt_qtype_is_int(y) && basalt_qtype_width(args[0]->type) == basalt_qtype_width(args[1]->type) &&
        basalt_qtype_width(args[0]->type) < 4)
        t = basalt_query_type_make(BASALT_QUERY_TYPE_INT64);
    if (t.id == BASALT_QUERY_TYPE_NULL) /* DuckDB: INTEGER for two NULLs, BIGINT for ~NULL */
        t = basalt_query_type_make(n == 2 ? BASALT_QUERY_TYPE_INT32 : BASALT_QUERY_TYPE_INT64);
    if (!basalt_qtype_is_int(t.id))
        return basalt_qbind_no_overload(b, name, args, n, err);
    types[0] = types[1] = t;
    /* << fails on negative numbers and overflow, which a NULL does not reach */
    return basalt_qbind_call(b, name, op, args, n, types, t, false, out, err);
}

const struct qfunc_ext basalt_qfuncs_bitwise[] = {
    {"&", QOP_BIT_AND, r_bitwise, 2, 2},
    {"|", QOP_BIT_OR, r_bitwise, 2, 2},
    {"<<", QOP_SHIFT_LEFT, r_bitwise, 2, 2},
    {">>", QOP_SHIFT_RIGHT, r_bitwise, 2, 2},
    {"~", QOP_BIT_NOT, r_bitwise, 1, 1},
};
const size_t basalt_qfuncs_bitwise_n = sizeof basalt_qfuncs_bitwise / sizeof basalt_qfuncs_bitwise[0];
