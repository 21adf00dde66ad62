/* Result types of the aggregate calls (DuckDB's rules) and the physical
 * layout of each query type. */
#include <string.h>

#include "agg/agg_internal.h"

static const char *const kind_names[] = {
    "count_star", "count", "sum", "avg", "min", "max", "any_value", "stddev_samp",
    "stddev_pop", "var_samp", "var_pop", "median", "quantile_cont", "quantile_disc",
    "string_agg", "bool_and", "bool_or", "corr", "covar_pop", "covar_samp", "regr_slope",
    "regr_intercept", "regr_r2", "regr_count", "regr_avgx", "regr_avgy", "regr_sxx",
    "regr_syy", "regr_sxy", "arg_min", "arg_max", "arg_min_null", "arg_max_null", "product",
    "bit_and", "bit_or", "bit_xor", "mode", "array_agg"};
_Static_assert(sizeof kind_names / sizeof kind_names[0] == BASALT_QAGG_KIND_LAST + 1,
               "a name per kind");

void basalt_qagg_options_init(struct basalt_qagg_options *o)
{
    memset(o, 0, sizeof *o);
}

enum qagg_phys basalt_qagg_phys(struct basalt_query_type t)
{
    switch (t.id) {
    case BASALT_QUERY_TYPE_BOOL: return QP_BOOL;
    case BASALT_QUERY_TYPE_INT8: return QP_I8;
    case BASALT_QUERY_TYPE_INT16: return QP_I16;
    case BASALT_QUERY_TYPE_INT32: case BASALT_QUERY_TYPE_DATE: return QP_I32;
    case BASALT_QUERY_TYPE_INT64: case BASALT_QUERY_TYPE_TIMESTAMP: case BASALT_QUERY_TYPE_TIME: return QP_I64;
    case BASALT_QUERY_TYPE_UINT8: return QP_U8;
    case BASALT_QUERY_TYPE_UINT16: return QP_U16;
    case BASALT_QUERY_TYPE_UINT32: return QP_U32;
    case BASALT_QUERY_TYPE_UINT64: return QP_U64;
    case BASALT_QUERY_TYPE_FLOAT: return QP_F32;
    case BASALT_QUERY_TYPE_DOUBLE: return QP_F64;
    case BASALT_QUERY_TYPE_DECIMAL: return QP_DEC;
    case BASALT_QUERY_TYPE_INTERVAL: return QP_IV;
    default: return QP_STR;
    }
}

int basalt_qagg_phys_width(enum qagg_phys p)
{
    static const int w[] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 16, 16, 16};
    return w[p];
}

static bool is_int(enum basalt_query_type_id id)
{
    return basalt_qtype_is_int(id) || id == BASALT_QUERY_TYPE_BOOL;
}

basalt_status basalt_qagg_result_type(const struct basalt_qagg_call *call,
                                      struct basalt_query_type *out, struct basalt_error *err)
{
    if (!call || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate: NULL argument");
    if ((unsigned)call->kind > BASALT_QAGG_KIND_LAST)
        return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate: unknown kind %d",
                                (int)call->kind);
    struct basalt_query_type in = call->input;
    enum basalt_query_type_id id = in.id;
    bool num = basalt_qtype_is_numeric(id);
    bool ok = false;
    if (call->kind == BASALT_QAGG_QUANTILE_CONT || call->kind == BASALT_QAGG_QUANTILE_DISC) {
        if (!(call->quantile >= 0.0 && call->quantile <= 1.0))
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "QUANTILE can only take parameters in the range [0, 1]");
    }
    if (basalt_qagg_kind_binary(call->kind)) {
        /* DuckDB casts both arguments to DOUBLE: numbers only. */
        if (call->distinct)
            return basalt_error_set(err, BASALT_UNSUPPORTED, "%s(DISTINCT ...) is not supported",
                                    kind_names[call->kind]);
        enum basalt_query_type_id id2 = call->input2.id;
        if (num && basalt_qtype_is_numeric(id2)) {
            *out = basalt_query_type_make(call->kind == BASALT_QAGG_REGR_COUNT
                                              ? BASALT_QUERY_TYPE_UINT32
                                              : BASALT_QUERY_TYPE_DOUBLE);
            return BASALT_OK;
        }
        char tn[64], tn2[64];
        if (id < BASALT_QUERY_TYPE_COUNT)
            basalt_query_type_name(in, tn, sizeof tn);
        else
            strcpy(tn, "?");
        if (id2 < BASALT_QUERY_TYPE_COUNT)
            basalt_query_type_name(call->input2, tn2, sizeof tn2);
        else
            strcpy(tn2, "?");
        return basalt_error_set(err, BASALT_UNSUPPORTED, "no aggregate %s(%s, %s)",
                                kind_names[call->kind], tn, tn2);
    }
    bool typed = id > BASALT_QUERY_TYPE_NULL && id < BASALT_QUERY_TYPE_COUNT;
    if (call->ordered) {
        /* The order key basalt_qagg_order_key writes. */
        if (call->input2.id != BASALT_QUERY_TYPE_BINARY ||
            !(basalt_qagg_kind_arg(call->kind) || call->kind == BASALT_QAGG_STRING_AGG ||
              call->kind == BASALT_QAGG_ARRAY_AGG))
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "aggregate: an order key needs a BLOB and a kind that "
                                    "takes one");
    }
    if (basalt_qagg_kind_arg(call->kind)) {
        /* Every type has an order (agg_state.c's comparator). */
        enum basalt_query_type_id id2 = call->input2.id;
        if (typed && id2 > BASALT_QUERY_TYPE_NULL && id2 < BASALT_QUERY_TYPE_COUNT) {
            *out = in;
            return BASALT_OK;
        }
        return basalt_error_set(err, BASALT_UNSUPPORTED, "no aggregate %s without typed arguments",
                                kind_names[call->kind]);
    }
    switch (call->kind) {
    case BASALT_QAGG_COUNT_STAR:
    case BASALT_QAGG_COUNT:
        *out = basalt_query_type_make(BASALT_QUERY_TYPE_INT64);
        return BASALT_OK;
    case BASALT_QAGG_SUM:
        if (is_int(id)) {
            *out = basalt_query_type_decimal(38, 0);
            ok = true;
        } else if (id == BASALT_QUERY_TYPE_DECIMAL) {
            *out = basalt_query_type_decimal(38, in.scale);
            ok = true;
        } else if (id == BASALT_QUERY_TYPE_FLOAT || id == BASALT_QUERY_TYPE_DOUBLE) {
            *out = basalt_query_type_make(BASALT_QUERY_TYPE_DOUBLE);
            ok = true;
        }
        break;
    case BASALT_QAGG_AVG:
    case BASALT_QAGG_STDDEV_SAMP:
    case BASALT_QAGG_STDDEV_POP:
    case BASALT_QAGG_VAR_SAMP:
    case BASALT_QAGG_VAR_POP:
        if (num) {
            *out = basalt_query_type_make(BASALT_QUERY_TYPE_DOUBLE);
            ok = true;
        }
        break;
    case BASALT_QAGG_MIN:
    case BASALT_QAGG_MAX:
    case BASALT_QAGG_ANY_VALUE:
    case BASALT_QAGG_QUANTILE_DISC:
        if (id != BASALT_QUERY_TYPE_NULL && id < BASALT_QUERY_TYPE_COUNT) {
            *out = in;
            ok = true;
        }
        break;
    case BASALT_QAGG_MEDIAN:
    case BASALT_QAGG_QUANTILE_CONT:
        if (basalt_qtype_is_int(id) || id == BASALT_QUERY_TYPE_DOUBLE) {
            *out = basalt_query_type_make(BASALT_QUERY_TYPE_DOUBLE);
            ok = true;
        } else if (id == BASALT_QUERY_TYPE_FLOAT || id == BASALT_QUERY_TYPE_DECIMAL ||
                   id == BASALT_QUERY_TYPE_TIMESTAMP || id == BASALT_QUERY_TYPE_TIME) {
            *out = in;
            ok = true;
        } else if (id == BASALT_QUERY_TYPE_DATE) {
            *out = basalt_query_type_timestamp(false, false);
            ok = true;
        } else if (call->kind == BASALT_QAGG_MEDIAN &&
                   (id == BASALT_QUERY_TYPE_BOOL || id == BASALT_QUERY_TYPE_INTERVAL ||
                    id == BASALT_QUERY_TYPE_STRING || id == BASALT_QUERY_TYPE_BINARY)) {
            *out = in; /* DuckDB's median of these is discrete */
            ok = true;
        }
        break;
    case BASALT_QAGG_STRING_AGG:
        if (id == BASALT_QUERY_TYPE_STRING) {
            *out = basalt_query_type_make(BASALT_QUERY_TYPE_STRING);
            ok = true;
        }
        break;
    case BASALT_QAGG_BOOL_AND:
    case BASALT_QAGG_BOOL_OR:
        if (id == BASALT_QUERY_TYPE_BOOL) {
            *out = in;
            ok = true;
        }
        break;
    case BASALT_QAGG_PRODUCT:
        if (num) {
            *out = basalt_query_type_make(BASALT_QUERY_TYPE_DOUBLE);
            ok = true;
        }
        break;
    case BASALT_QAGG_BIT_AND:
    case BASALT_QAGG_BIT_OR:
    case BASALT_QAGG_BIT_XOR:
        if (basalt_qtype_is_int(id)) {
            *out = in;
            ok = true;
        }
        break;
    case BASALT_QAGG_ARRAY_AGG:
        /* a list of lists is not a type here */
        if (!call->ordered)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "aggregate: array_agg needs an order key");
        if (typed && id != BASALT_QUERY_TYPE_LIST) {
            *out = basalt_query_type_list(in);
            ok = true;
        }
        break;
    case BASALT_QAGG_MODE:
        if (typed) {
            *out = in;
            ok = true;
        }
        break;
    default: break; /* the two-argument kinds, above */
    }
    if (ok)
        return BASALT_OK;
    char tn[64];
    if (id < BASALT_QUERY_TYPE_COUNT)
        basalt_query_type_name(in, tn, sizeof tn);
    else
        strcpy(tn, "?");
    return basalt_error_set(err, BASALT_UNSUPPORTED, "no aggregate %s(%s)%s",
                            kind_names[call->kind], tn,
                            call->kind == BASALT_QAGG_STRING_AGG ? " (cast to VARCHAR first)" : "");
}
