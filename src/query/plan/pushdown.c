/* Predicates pushed into scans: the `column op constant` conjuncts of a
 * filter right above a Parquet or Iceberg scan, handed to row-group pruning
 * (statistics, bloom filters, page indexes) and to Iceberg planning
 * (partitions, file metrics). The filter itself stays: pruning only skips
 * data that cannot match. */
#include <string.h>

#include "plan/plan_internal.h"

static bool op_of(enum qop op, bool flip, enum basalt_parquet_op *out)
{
    switch (op) {
    case QOP_EQ: *out = BASALT_PARQUET_OP_EQ; return true;
    case QOP_NE: *out = BASALT_PARQUET_OP_NE; return true;
    case QOP_LT: *out = flip ? BASALT_PARQUET_OP_GT : BASALT_PARQUET_OP_LT; return true;
    case QOP_LE: *out = flip ? BASALT_PARQUET_OP_GE : BASALT_PARQUET_OP_LE; return true;
    case QOP_GT: *out = flip ? BASALT_PARQUET_OP_LT : BASALT_PARQUET_OP_GT; return true;
    case QOP_GE: *out = flip ? BASALT_PARQUET_OP_LE : BASALT_PARQUET_OP_GE; return true;
    default: return false;
    }
}

/* Types whose constants convert to both scans' literals exactly. */
static bool pushable_type(enum basalt_query_type_id id)
{
    switch (id) {
    case BASALT_QUERY_TYPE_BOOL:
    case BASALT_QUERY_TYPE_INT8:
    case BASALT_QUERY_TYPE_INT16:
    case BASALT_QUERY_TYPE_INT32:
    case BASALT_QUERY_TYPE_INT64:
    case BASALT_QUERY_TYPE_FLOAT:
    case BASALT_QUERY_TYPE_DOUBLE:
    case BASALT_QUERY_TYPE_DATE:
    case BASALT_QUERY_TYPE_TIMESTAMP:
    case BASALT_QUERY_TYPE_STRING:
        return true;
    default:
        return false;
    }
}

/* One conjunct as `column op constant`, when it is one. */
static bool as_pushed(const struct basalt_qexpr *e, struct qpushed *out)
{
    if (e->kind == QN_IS_NULL && e->args[0]->kind == QN_COLUMN) {
        out->column = e->args[0]->column;
        out->op = e->negate ? BASALT_PARQUET_OP_IS_NOT_NULL : BASALT_PARQUET_OP_IS_NULL;
        memset(&out->value, 0, sizeof out->value);
        return true;
    }
    if (e->kind != QN_CALL || e->n_args != 2)
        return false;
    const struct basalt_qexpr *a = e->args[0], *b = e->args[1];
    bool flip = false;
    if (a->kind == QN_CONST && b->kind == QN_COLUMN) {
        const struct basalt_qexpr *t = a;
        a = b;
        b = t;
        flip = true;
    }
    if (a->kind != QN_COLUMN || b->kind != QN_CONST || b->value.is_null)
        return false;
    if (!basalt_query_type_equal(a->type, b->value.type) || !pushable_type(a->type.id))
        return false;
    if (!op_of(e->op, flip, &out->op))
        return false;
    out->column = a->column;
    out->value = b->value;
    return true;
}

/* Conjuncts of nested ANDs: a AND (b AND c) is three. */
static int count_conjuncts(const struct basalt_qexpr *e)
{
    if (e->kind != QN_AND)
        return 1;
    int n = 0;
    for (int i = 0; i < e->n_args; i++)
        n += count_conjuncts(e->args[i]);
    return n;
}

static void flatten(const struct basalt_qexpr *e, const struct basalt_qexpr **out, int *n)
{
    if (e->kind != QN_AND) {
        out[(*n)++] = e;
        return;
    }
    for (int i = 0; i < e->n_args; i++)
        flatten(e->args[i], out, n);
}

basalt_status basalt_qpushed_collect(const struct basalt_qexpr *pred, struct basalt_arena *arena,
                                     struct qpushed **out, int32_t *n, bool *all,
                                     struct basalt_error *err)
{
    *out = NULL;
    *n = 0;
    *all = false;
    int n_conj = count_conjuncts(pred);
    const struct basalt_qexpr **conj = basalt_calloc((size_t)n_conj, sizeof *conj);
    struct qpushed *list = basalt_calloc((size_t)n_conj, sizeof *list);
    if (list == NULL || conj == NULL) {
        basalt_free(conj);
        basalt_free(list);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    int filled = 0;
    flatten(pred, conj, &filled);
    int32_t k = 0;
    for (int i = 0; i < n_conj; i++) {
        if (!as_pushed(conj[i], &list[k]))
            continue;
        /* String constants live in the filter's builder, which the
         * optimiser may free: keep a copy. */
        struct basalt_query_value *v = &list[k].value;
        if (!v->is_null && v->type.id == BASALT_QUERY_TYPE_STRING &&
            list[k].op != BASALT_PARQUET_OP_IS_NULL && list[k].op != BASALT_PARQUET_OP_IS_NOT_NULL) {
            char *copy = basalt_arena_strndup(arena, v->v.str.ptr, v->v.str.len);
            if (copy == NULL) {
                basalt_free(conj);
                basalt_free(list);
                return basalt_error_set(err, BASALT_NOMEM, "out of memory");
            }
            v->v.str.ptr = copy;
        }
        k++;
    }
    basalt_free(conj);
    *out = list;
    *n = k;
    *all = k == n_conj;
    return BASALT_OK;
}

bool basalt_qpushed_parquet(const struct qpushed *p, const struct ArrowSchema *field,
                            struct basalt_parquet_literal *lit)
{
    memset(lit, 0, sizeof *lit);
    if (p->op == BASALT_PARQUET_OP_IS_NULL || p->op == BASALT_PARQUET_OP_IS_NOT_NULL) {
        lit->kind = BASALT_PARQUET_LITERAL_NONE;
        return true;
    }
    const struct basalt_query_value *v = &p->value;
    switch (v->type.id) {
    case BASALT_QUERY_TYPE_BOOL:
        lit->kind = BASALT_PARQUET_LITERAL_BOOL;
        lit->b = v->v.b;
        return true;
    case BASALT_QUERY_TYPE_INT8:
    case BASALT_QUERY_TYPE_INT16:
    case BASALT_QUERY_TYPE_INT32:
    case BASALT_QUERY_TYPE_INT64:
    case BASALT_QUERY_TYPE_DATE:
        lit->kind = BASALT_PARQUET_LITERAL_INT;
        lit->i = v->v.i;
        return true;
    case BASALT_QUERY_TYPE_TIMESTAMP:
        /* The column's stored unit is the Arrow field's. */
        if (field->format[0] != 't' || field->format[1] != 's' ||
            field->format[2] != (v->type.coarse ? (v->type.coarse == BASALT_QUERY_TS_SECONDS ? 's' : 'm')
                                                : (v->type.nanos ? 'n' : 'u')))
            return false;
        lit->kind = BASALT_PARQUET_LITERAL_INT;
        lit->i = v->v.i;
        return true;
    case BASALT_QUERY_TYPE_FLOAT:
    case BASALT_QUERY_TYPE_DOUBLE:
        lit->kind = BASALT_PARQUET_LITERAL_DOUBLE;
        lit->d = v->v.f;
        return true;
    case BASALT_QUERY_TYPE_STRING:
        lit->kind = BASALT_PARQUET_LITERAL_BYTES;
        lit->bytes = v->v.str.ptr;
        lit->len = v->v.str.len;
        return true;
    default:
        return false;
    }
}

static enum basalt_iceberg_op iceberg_op(enum basalt_parquet_op op)
{
    switch (op) {
    case BASALT_PARQUET_OP_EQ: return BASALT_ICEBERG_OP_EQ;
    case BASALT_PARQUET_OP_NE: return BASALT_ICEBERG_OP_NOT_EQ;
    case BASALT_PARQUET_OP_LT: return BASALT_ICEBERG_OP_LT;
    case BASALT_PARQUET_OP_LE: return BASALT_ICEBERG_OP_LT_EQ;
    case BASALT_PARQUET_OP_GT: return BASALT_ICEBERG_OP_GT;
    case BASALT_PARQUET_OP_GE: return BASALT_ICEBERG_OP_GT_EQ;
    case BASALT_PARQUET_OP_IS_NULL: return BASALT_ICEBERG_OP_IS_NULL;
    default: return BASALT_ICEBERG_OP_NOT_NULL;
    }
}

basalt_status basalt_qpushed_iceberg(const struct qpushed *p, const char *column,
                                     struct basalt_arena *arena, struct basalt_iceberg_expr **out,
                                     struct basalt_error *err)
{
    *out = NULL;
    enum basalt_iceberg_op op = iceberg_op(p->op);
    if (p->op == BASALT_PARQUET_OP_IS_NULL || p->op == BASALT_PARQUET_OP_IS_NOT_NULL) {
        *out = basalt_iceberg_expr_unary(arena, op, column);
        return *out ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    const struct basalt_query_value *v = &p->value;
    struct basalt_iceberg_value lit;
    memset(&lit, 0, sizeof lit);
    switch (v->type.id) {
    case BASALT_QUERY_TYPE_BOOL:
        lit.type = BASALT_ICEBERG_TYPE_BOOLEAN;
        lit.u.b = v->v.b;
        break;
    case BASALT_QUERY_TYPE_INT8:
    case BASALT_QUERY_TYPE_INT16:
    case BASALT_QUERY_TYPE_INT32:
    case BASALT_QUERY_TYPE_INT64:
        lit.type = BASALT_ICEBERG_TYPE_LONG;
        lit.u.i64 = v->v.i;
        break;
    case BASALT_QUERY_TYPE_DATE:
        lit.type = BASALT_ICEBERG_TYPE_DATE;
        lit.u.i32 = (int32_t)v->v.i;
        break;
    case BASALT_QUERY_TYPE_TIMESTAMP:
        if (v->type.coarse) /* Iceberg has no second or millisecond timestamps */
            return BASALT_OK;
        lit.type = v->type.nanos ? (v->type.tz ? BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS
                                               : BASALT_ICEBERG_TYPE_TIMESTAMP_NS)
                                 : (v->type.tz ? BASALT_ICEBERG_TYPE_TIMESTAMPTZ
                                               : BASALT_ICEBERG_TYPE_TIMESTAMP);
        lit.u.i64 = v->v.i;
        break;
    case BASALT_QUERY_TYPE_FLOAT:
    case BASALT_QUERY_TYPE_DOUBLE:
        lit.type = BASALT_ICEBERG_TYPE_DOUBLE;
        lit.u.f64 = v->v.f;
        break;
    case BASALT_QUERY_TYPE_STRING:
        lit.type = BASALT_ICEBERG_TYPE_STRING;
        lit.u.bytes.data = (const uint8_t *)v->v.str.ptr;
        lit.u.bytes.len = v->v.str.len;
        break;
    default:
        return BASALT_OK;
    }
    *out = basalt_iceberg_expr_literal(arena, op, column, &lit);
    return *out ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
}
