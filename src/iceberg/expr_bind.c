/* Binding: names to field ids, literals to the field's type, NOT pushed down
 * and what the schema decides folded. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expr_internal.h"

struct binder {
    const struct basalt_iceberg_schema *schema;
    bool case_sensitive;
    struct basalt_arena *arena;
    struct basalt_error *err;
};

static bool name_eq(const char *a, const char *b, size_t n, bool cs)
{
    if (cs)
        return memcmp(a, b, n) == 0;
    for (size_t i = 0; i < n; i++) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z')
            x = (char)(x + 32);
        if (y >= 'A' && y <= 'Z')
            y = (char)(y + 32);
        if (x != y)
            return false;
    }
    return true;
}

/* Finds `name` (a dotted path) under the struct `type`; counts matches so
 * ambiguity can be reported, keeps the first and its path of fields. */
static void find(const struct basalt_iceberg_type *type, const char *name, size_t len, bool cs,
                 const struct basalt_iceberg_field **path, int depth, int *matches,
                 const struct basalt_iceberg_field **best_path, int *best_depth)
{
    if (depth >= 64)
        return;
    for (uint32_t i = 0; i < type->n_fields; i++) {
        const struct basalt_iceberg_field *f = &type->fields[i];
        if (!f->name)
            continue;
        size_t flen = strlen(f->name);
        if (flen > len || !name_eq(f->name, name, flen, cs))
            continue;
        path[depth] = f;
        if (flen == len) {
            if (++*matches == 1) {
                memcpy(best_path, path, sizeof(*path) * (size_t)(depth + 1));
                *best_depth = depth + 1;
            }
        } else if (name[flen] == '.' && f->type.id == BASALT_ICEBERG_TYPE_STRUCT) {
            find(&f->type, name + flen + 1, len - flen - 1, cs, path, depth + 1, matches, best_path,
                 best_depth);
        }
    }
}

static basalt_status lookup(struct binder *b, const char *name,
                            const struct basalt_iceberg_field **field, const char **full)
{
    const struct basalt_iceberg_field *path[64], *best[64];
    int matches = 0, depth = 0;
    size_t len = strlen(name);
    find(&b->schema->root, name, len, true, path, 0, &matches, best, &depth);
    if (matches == 0 && !b->case_sensitive) {
        find(&b->schema->root, name, len, false, path, 0, &matches, best, &depth);
        if (matches > 1)
            return basalt_error_set(b->err, BASALT_INVALID_ARG,
                                    "column '%s' matches %d fields ignoring case", name, matches);
    }
    if (matches == 0)
        return basalt_error_set(b->err, BASALT_NOT_FOUND, "column '%s' not found", name);
    size_t total = 0;
    for (int i = 0; i < depth; i++)
        total += strlen(best[i]->name) + 1;
    char *s = basalt_arena_alloc(b->arena, total, 1);
    if (!s)
        return basalt_error_set(b->err, BASALT_NOMEM, "out of memory binding '%s'", name);
    size_t n = 0;
    for (int i = 0; i < depth; i++) {
        size_t k = strlen(best[i]->name);
        memcpy(s + n, best[i]->name, k);
        n += k;
        s[n++] = i + 1 < depth ? '.' : '\0';
    }
    *field = best[depth - 1];
    *full = s;
    return BASALT_OK;
}

static bool takes_literals(enum basalt_iceberg_type_id t)
{
    return t >= BASALT_ICEBERG_TYPE_BOOLEAN && t <= BASALT_ICEBERG_TYPE_BINARY;
}

static bool is_nested(enum basalt_iceberg_type_id t)
{
    return t == BASALT_ICEBERG_TYPE_STRUCT || t == BASALT_ICEBERG_TYPE_LIST ||
           t == BASALT_ICEBERG_TYPE_MAP;
}

static struct basalt_iceberg_expr *constant(struct binder *b, bool value)
{
    return value ? basalt_iceberg_expr_true(b->arena) : basalt_iceberg_expr_false(b->arena);
}

static basalt_status nomem(struct binder *b)
{
    return basalt_error_set(b->err, BASALT_NOMEM, "out of memory binding a filter");
}

static basalt_status convert(struct binder *b, const struct basalt_iceberg_expr *e,
                             const struct basalt_iceberg_value *in,
                             const struct basalt_iceberg_type *type, struct basalt_iceberg_value *out,
                             int *range)
{
    if ((in->type == BASALT_ICEBERG_TYPE_DOUBLE && isnan(in->u.f64)) ||
        (in->type == BASALT_ICEBERG_TYPE_FLOAT && isnan(in->u.f32)))
        return basalt_error_set(b->err, BASALT_INVALID_ARG,
                                "column '%s': NaN literal (use IS NAN)", e->name);
    if (in->is_null)
        return basalt_error_set(b->err, BASALT_INVALID_ARG,
                                "column '%s': null literal (use IS NULL)", e->name);
    basalt_status st = basalt_iceberg_value_convert_range(in, type, b->arena, out, range, b->err);
    if (st != BASALT_OK)
        return basalt_error_context(b->err, st, "column '%s'", e->name);
    return BASALT_OK;
}

static int compare_values(const void *x, const void *y)
{
    return basalt_iceberg_value_compare(x, y);
}

static basalt_status bind_predicate(struct binder *b, const struct basalt_iceberg_expr *e,
                                    enum basalt_iceberg_op op, struct basalt_iceberg_expr **out)
{
    if (e->field_id != 0)
        return basalt_error_set(b->err, BASALT_INVALID_ARG, "column '%s' is already bound",
                                e->name ? e->name : "");
    if (!e->name)
        return basalt_error_set(b->err, BASALT_INVALID_ARG, "predicate without a column");
    const struct basalt_iceberg_field *field;
    const char *full;
    basalt_status st = lookup(b, e->name, &field, &full);
    if (st != BASALT_OK)
        return st;
    const struct basalt_iceberg_type *type = &field->type;
    if (is_nested(type->id))
        return basalt_error_set(b->err, BASALT_INVALID_ARG,
                                "column '%s': %s is not allowed on a nested type", full,
                                basalt_iceberg_op_name(op));
    struct basalt_iceberg_expr *r = NULL;
    struct basalt_iceberg_value *lits = NULL;
    uint32_t n = 0;
    switch (op) {
    case BASALT_ICEBERG_OP_IS_NULL:
    case BASALT_ICEBERG_OP_NOT_NULL:
        if (field->required || type->id == BASALT_ICEBERG_TYPE_UNKNOWN) {
            /* required: never null; unknown (v3): always null */
            bool is_null_holds = type->id == BASALT_ICEBERG_TYPE_UNKNOWN;
            *out = constant(b, op == BASALT_ICEBERG_OP_IS_NULL ? is_null_holds : !is_null_holds);
            return *out ? BASALT_OK : nomem(b);
        }
        break;
    case BASALT_ICEBERG_OP_IS_NAN:
    case BASALT_ICEBERG_OP_NOT_NAN:
        if (type->id != BASALT_ICEBERG_TYPE_FLOAT && type->id != BASALT_ICEBERG_TYPE_DOUBLE)
            return basalt_error_set(b->err, BASALT_INVALID_ARG,
                                    "column '%s': IS NAN needs a float or double column", full);
        break;
    case BASALT_ICEBERG_OP_IN:
    case BASALT_ICEBERG_OP_NOT_IN: {
        if (!takes_literals(type->id))
            return basalt_error_set(b->err, BASALT_INVALID_ARG,
                                    "column '%s': the type takes no literals", full);
        if (e->n_literals) {
            lits = basalt_arena_alloc(b->arena, sizeof(*lits) * e->n_literals,
                                      _Alignof(struct basalt_iceberg_value));
            if (!lits)
                return nomem(b);
        }
        for (uint32_t i = 0; i < e->n_literals; i++) {
            int range;
            st = convert(b, e, &e->literals[i], type, &lits[n], &range);
            if (st != BASALT_OK)
                return st;
            if (range == 0)
                n++; /* an out-of-range literal can match nothing */
        }
        if (n > 1) {
            qsort(lits, n, sizeof(*lits), compare_values);
            uint32_t k = 1;
            for (uint32_t i = 1; i < n; i++)
                if (basalt_iceberg_value_compare(&lits[k - 1], &lits[i]) != 0)
                    lits[k++] = lits[i];
            n = k;
        }
        if (n == 0) {
            if (op == BASALT_ICEBERG_OP_IN) {
                *out = constant(b, false);
                return *out ? BASALT_OK : nomem(b);
            }
            op = BASALT_ICEBERG_OP_NOT_NULL;
            goto not_null;
        }
        if (n == 1)
            op = op == BASALT_ICEBERG_OP_IN ? BASALT_ICEBERG_OP_EQ : BASALT_ICEBERG_OP_NOT_EQ;
        break;
    }
    default: {
        if (!basalt_iceberg_op_has_literals(op) || e->n_literals != 1 || !e->literals)
            return basalt_error_set(b->err, BASALT_INVALID_ARG, "column '%s': malformed %s",
                                    full, basalt_iceberg_op_name(op));
        bool prefix = op == BASALT_ICEBERG_OP_STARTS_WITH || op == BASALT_ICEBERG_OP_NOT_STARTS_WITH;
        if (prefix && type->id != BASALT_ICEBERG_TYPE_STRING)
            return basalt_error_set(b->err, BASALT_INVALID_ARG,
                                    "column '%s': STARTS WITH needs a string column", full);
        if (!takes_literals(type->id))
            return basalt_error_set(b->err, BASALT_INVALID_ARG,
                                    "column '%s': the type takes no literals", full);
        lits = basalt_arena_alloc(b->arena, sizeof(*lits), _Alignof(struct basalt_iceberg_value));
        if (!lits)
            return nomem(b);
        int range;
        st = convert(b, e, &e->literals[0], type, lits, &range);
        if (st != BASALT_OK)
            return st;
        n = 1;
        if (range) {
            /* Like Java's aboveMax / belowMin: every non-null value, or none. */
            bool all = (range > 0 && (op == BASALT_ICEBERG_OP_LT || op == BASALT_ICEBERG_OP_LT_EQ)) ||
                       (range < 0 && (op == BASALT_ICEBERG_OP_GT || op == BASALT_ICEBERG_OP_GT_EQ)) ||
                       op == BASALT_ICEBERG_OP_NOT_EQ;
            if (!all) {
                *out = constant(b, false);
                return *out ? BASALT_OK : nomem(b);
            }
            op = BASALT_ICEBERG_OP_NOT_NULL;
            goto not_null;
        }
        break;
    }
    }
    goto make;
not_null:
    lits = NULL;
    n = 0;
    if (field->required) {
        *out = constant(b, true);
        return *out ? BASALT_OK : nomem(b);
    }
make:
    r = basalt_iceberg_expr_node(b->arena, op);
    if (!r)
        return nomem(b);
    r->name = full;
    r->field_id = field->id;
    r->type = type;
    r->literals = lits;
    r->n_literals = n;
    *out = r;
    return BASALT_OK;
}

static basalt_status bind_node(struct binder *b, const struct basalt_iceberg_expr *e, bool negate,
                               struct basalt_iceberg_expr **out)
{
    if (!e)
        return basalt_error_set(b->err, BASALT_INVALID_ARG, "malformed expression (NULL node)");
    switch (e->op) {
    case BASALT_ICEBERG_OP_TRUE:
    case BASALT_ICEBERG_OP_FALSE:
        *out = constant(b, (e->op == BASALT_ICEBERG_OP_TRUE) != negate);
        return *out ? BASALT_OK : nomem(b);
    case BASALT_ICEBERG_OP_NOT:
        return bind_node(b, e->left, !negate, out);
    case BASALT_ICEBERG_OP_AND:
    case BASALT_ICEBERG_OP_OR: {
        struct basalt_iceberg_expr *l, *r;
        basalt_status st = bind_node(b, e->left, negate, &l);
        if (st == BASALT_OK)
            st = bind_node(b, e->right, negate, &r);
        if (st != BASALT_OK)
            return st;
        bool is_and = (e->op == BASALT_ICEBERG_OP_AND) != negate;
        *out = is_and ? basalt_iceberg_expr_and(b->arena, l, r) : basalt_iceberg_expr_or(b->arena, l, r);
        return *out ? BASALT_OK : nomem(b);
    }
    default:
        if ((unsigned)e->op > BASALT_ICEBERG_OP_NOT_IN)
            return basalt_error_set(b->err, BASALT_INVALID_ARG, "unknown operator %d", (int)e->op);
        return bind_predicate(b, e, negate ? basalt_iceberg_op_negate(e->op) : e->op, out);
    }
}

basalt_status basalt_iceberg_expr_bind(const struct basalt_iceberg_expr *expr,
                                       const struct basalt_iceberg_schema *schema,
                                       bool case_sensitive, struct basalt_arena *arena,
                                       struct basalt_iceberg_expr **out, struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (!expr || !schema || !arena || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "expr_bind: NULL argument");
    struct binder b = {schema, case_sensitive, arena, err};
    struct basalt_iceberg_expr *r = NULL;
    basalt_status st = bind_node(&b, expr, false, &r);
    if (st != BASALT_OK)
        return st;
    *out = r;
    return BASALT_OK;
}
