/* The residual's simple conjuncts handed to the Parquet reader, which skips
 * row groups and pages that cannot match (statistics, bloom filters, page
 * index). The reader returns a superset of the matching rows, and the
 * residual is applied to them afterwards, so only what the reader can judge
 * exactly is pushed: comparisons and null tests of primitive columns whose
 * stored values are in the table type's unit. */
#include <string.h>

#include "basalt/iceberg_expr.h"
#include "basalt/parquet.h"
#include "scan_internal.h"

#define MAX_PATH 256

/* The dotted path of the leaf with field id `id` under struct `s` (no lists,
 * no maps, no dots in names); its node in *leaf. */
static bool leaf_path(const struct ArrowSchema *s, int32_t id, char *buf, size_t cap, size_t len,
                      const struct ArrowSchema **leaf, int depth)
{
    if (depth > 32 || strcmp(s->format, "+s") != 0)
        return false;
    for (int64_t j = 0; j < s->n_children; j++) {
        const struct ArrowSchema *c = s->children[j];
        if (c->name == NULL || strchr(c->name, '.') != NULL)
            continue;
        size_t n = strlen(c->name);
        size_t need = len + (len ? 1 : 0) + n + 1;
        if (need > cap)
            continue;
        size_t at = len;
        if (len)
            buf[at++] = '.';
        memcpy(buf + at, c->name, n + 1);
        int32_t cid;
        if (basalt_iceberg_scan_arrow_field_id(c, &cid) && cid == id) {
            *leaf = c;
            return c->format[0] != '+';
        }
        if (leaf_path(c, id, buf, cap, at + n, leaf, depth + 1))
            return true;
        buf[len] = '\0';
    }
    return false;
}

static bool op_of(enum basalt_iceberg_op op, enum basalt_parquet_op *out)
{
    switch (op) {
    case BASALT_ICEBERG_OP_EQ: *out = BASALT_PARQUET_OP_EQ; return true;
    case BASALT_ICEBERG_OP_NOT_EQ: *out = BASALT_PARQUET_OP_NE; return true;
    case BASALT_ICEBERG_OP_LT: *out = BASALT_PARQUET_OP_LT; return true;
    case BASALT_ICEBERG_OP_LT_EQ: *out = BASALT_PARQUET_OP_LE; return true;
    case BASALT_ICEBERG_OP_GT: *out = BASALT_PARQUET_OP_GT; return true;
    case BASALT_ICEBERG_OP_GT_EQ: *out = BASALT_PARQUET_OP_GE; return true;
    case BASALT_ICEBERG_OP_IS_NULL: *out = BASALT_PARQUET_OP_IS_NULL; return true;
    case BASALT_ICEBERG_OP_NOT_NULL: *out = BASALT_PARQUET_OP_IS_NOT_NULL; return true;
    default: return false;
    }
}

/* The literal in the stored domain of a column of Arrow type `format`
 * holding values of Iceberg type `t`; false when it cannot be given. */
static bool literal_of(const struct basalt_iceberg_type *t, const char *format,
                       const struct basalt_iceberg_value *v, struct basalt_parquet_literal *out)
{
    memset(out, 0, sizeof *out);
    if (v == NULL || v->is_null || v->type != t->id)
        return false;
    switch (t->id) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        if (strcmp(format, "b") != 0)
            return false;
        out->kind = BASALT_PARQUET_LITERAL_BOOL;
        out->b = v->u.b;
        return true;
    case BASALT_ICEBERG_TYPE_INT:
        if (strcmp(format, "i") != 0)
            return false;
        out->kind = BASALT_PARQUET_LITERAL_INT;
        out->i = v->u.i32;
        return true;
    case BASALT_ICEBERG_TYPE_DATE:
        if (strcmp(format, "tdD") != 0)
            return false;
        out->kind = BASALT_PARQUET_LITERAL_INT;
        out->i = v->u.i32;
        return true;
    case BASALT_ICEBERG_TYPE_LONG:
        if (strcmp(format, "l") != 0 && strcmp(format, "i") != 0)
            return false;
        out->kind = BASALT_PARQUET_LITERAL_INT;
        out->i = v->u.i64;
        return true;
    case BASALT_ICEBERG_TYPE_TIME:
        if (strcmp(format, "ttu") != 0)
            return false;
        out->kind = BASALT_PARQUET_LITERAL_INT;
        out->i = v->u.i64;
        return true;
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
        if (strncmp(format, "tsu:", 4) != 0)
            return false;
        out->kind = BASALT_PARQUET_LITERAL_INT;
        out->i = v->u.i64;
        return true;
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
        if (strncmp(format, "tsn:", 4) != 0)
            return false;
        out->kind = BASALT_PARQUET_LITERAL_INT;
        out->i = v->u.i64;
        return true;
    case BASALT_ICEBERG_TYPE_FLOAT:
        if (strcmp(format, "f") != 0)
            return false;
        out->kind = BASALT_PARQUET_LITERAL_DOUBLE;
        out->d = v->u.f32;
        return true;
    case BASALT_ICEBERG_TYPE_DOUBLE:
        if (strcmp(format, "g") != 0 && strcmp(format, "f") != 0)
            return false;
        out->kind = BASALT_PARQUET_LITERAL_DOUBLE;
        out->d = v->u.f64;
        return true;
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_BINARY:
        if (strcmp(format, "u") != 0 && strcmp(format, "z") != 0 && strcmp(format, "U") != 0 &&
            strcmp(format, "Z") != 0)
            return false;
        out->kind = BASALT_PARQUET_LITERAL_BYTES;
        out->bytes = v->u.bytes.data;
        out->len = v->u.bytes.len;
        return true;
    default:
        return false;
    }
}

static basalt_status push(struct basalt_parquet_scan *pscan, const struct ArrowSchema *file,
                          const struct basalt_iceberg_expr *e, int depth, int *pushed,
                          struct basalt_error *err)
{
    if (e == NULL || depth > 64)
        return BASALT_OK;
    if (e->op == BASALT_ICEBERG_OP_AND) {
        basalt_status st = push(pscan, file, e->left, depth + 1, pushed, err);
        return st == BASALT_OK ? push(pscan, file, e->right, depth + 1, pushed, err) : st;
    }
    enum basalt_parquet_op op;
    if (!op_of(e->op, &op) || e->type == NULL)
        return BASALT_OK;
    char path[MAX_PATH];
    path[0] = '\0';
    const struct ArrowSchema *leaf = NULL;
    if (!leaf_path(file, e->field_id, path, sizeof path, 0, &leaf, 0))
        return BASALT_OK;
    struct basalt_parquet_literal lit;
    if (op == BASALT_PARQUET_OP_IS_NULL || op == BASALT_PARQUET_OP_IS_NOT_NULL) {
        memset(&lit, 0, sizeof lit);
        lit.kind = BASALT_PARQUET_LITERAL_NONE;
    } else if (e->n_literals != 1 || !literal_of(e->type, leaf->format, &e->literals[0], &lit)) {
        return BASALT_OK;
    }
    struct basalt_error e2;
    basalt_status st = basalt_parquet_scan_filter(pscan, path, op, &lit, &e2);
    if (st == BASALT_OK) {
        (*pushed)++;
        return BASALT_OK;
    }
    /* what the reader does not take is simply not pruned on */
    if (st == BASALT_NOMEM)
        return basalt_error_set(err, st, "%s", e2.message);
    return BASALT_OK;
}

basalt_status basalt_iceberg_pushdown(struct basalt_parquet_scan *pscan, const struct ArrowSchema *file,
                                      const struct basalt_iceberg_expr *residual, int *pushed,
                                      struct basalt_error *err)
{
    *pushed = 0;
    return push(pscan, file, residual, 0, pushed, err);
}
