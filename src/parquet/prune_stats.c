/* Statistics-based pruning: sort orders, which bounds to trust, predicates
 * bound to leaves, and the test "may a value within these bounds match". */
#include <math.h>
#include <string.h>

#include "parquet_reader.h"

/* ------------------------------------------------------------------ sort orders */

enum basalt_parquet_sort_order basalt_parquet_leaf_sort_order(
    const struct basalt_parquet_schema_leaf *leaf)
{
    const struct basalt_parquet_schema_annotation *a = &leaf->annotation;
    switch (leaf->physical_type) {
    case BASALT_PARQUET_TYPE_BOOLEAN:
        return BASALT_PARQUET_SORT_ORDER_UNSIGNED;
    case BASALT_PARQUET_TYPE_INT32:
    case BASALT_PARQUET_TYPE_INT64:
        if (a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_INTEGER && !a->is_signed)
            return BASALT_PARQUET_SORT_ORDER_UNSIGNED;
        if (a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_UNKNOWN)
            return BASALT_PARQUET_SORT_ORDER_UNKNOWN;
        return BASALT_PARQUET_SORT_ORDER_SIGNED;
    case BASALT_PARQUET_TYPE_FLOAT:
    case BASALT_PARQUET_TYPE_DOUBLE:
        return BASALT_PARQUET_SORT_ORDER_SIGNED;
    case BASALT_PARQUET_TYPE_BYTE_ARRAY:
    case BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY:
        switch (a->kind) {
        case BASALT_PARQUET_SCHEMA_LOGICAL_DECIMAL:
        case BASALT_PARQUET_SCHEMA_LOGICAL_FLOAT16:
            return BASALT_PARQUET_SORT_ORDER_SIGNED;
        case BASALT_PARQUET_SCHEMA_LOGICAL_NONE:
        case BASALT_PARQUET_SCHEMA_LOGICAL_STRING:
        case BASALT_PARQUET_SCHEMA_LOGICAL_ENUM:
        case BASALT_PARQUET_SCHEMA_LOGICAL_JSON:
        case BASALT_PARQUET_SCHEMA_LOGICAL_BSON:
        case BASALT_PARQUET_SCHEMA_LOGICAL_UUID:
            return BASALT_PARQUET_SORT_ORDER_UNSIGNED;
        default:
            return BASALT_PARQUET_SORT_ORDER_UNKNOWN;
        }
    default: /* INT96 and types from later versions */
        return BASALT_PARQUET_SORT_ORDER_UNKNOWN;
    }
}

enum basalt_parquet_value_class basalt_parquet_leaf_value_class(
    const struct basalt_parquet_schema_leaf *leaf)
{
    const struct basalt_parquet_schema_annotation *a = &leaf->annotation;
    enum basalt_parquet_sort_order order = basalt_parquet_leaf_sort_order(leaf);
    if (order == BASALT_PARQUET_SORT_ORDER_UNKNOWN ||
        a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_DECIMAL ||
        a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_NULL)
        return BASALT_PARQUET_CLASS_NONE;
    switch (leaf->physical_type) {
    case BASALT_PARQUET_TYPE_BOOLEAN:
        return BASALT_PARQUET_CLASS_BOOL;
    case BASALT_PARQUET_TYPE_INT32:
    case BASALT_PARQUET_TYPE_INT64:
        return order == BASALT_PARQUET_SORT_ORDER_UNSIGNED ? BASALT_PARQUET_CLASS_UINT
                                                           : BASALT_PARQUET_CLASS_INT;
    case BASALT_PARQUET_TYPE_FLOAT:
    case BASALT_PARQUET_TYPE_DOUBLE:
        return BASALT_PARQUET_CLASS_FLOAT;
    case BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY:
        if (a->kind == BASALT_PARQUET_SCHEMA_LOGICAL_FLOAT16)
            return BASALT_PARQUET_CLASS_FLOAT;
        return BASALT_PARQUET_CLASS_BYTES;
    case BASALT_PARQUET_TYPE_BYTE_ARRAY:
        return BASALT_PARQUET_CLASS_BYTES;
    default:
        return BASALT_PARQUET_CLASS_NONE;
    }
}

static bool is_float_type(const struct basalt_parquet_schema_leaf *leaf)
{
    return leaf->physical_type == BASALT_PARQUET_TYPE_FLOAT ||
           leaf->physical_type == BASALT_PARQUET_TYPE_DOUBLE ||
           (leaf->physical_type == BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY &&
            leaf->annotation.kind == BASALT_PARQUET_SCHEMA_LOGICAL_FLOAT16);
}

/* min_value / max_value and ColumnIndex bounds follow the column order.
 * parquet.thrift calls them undefined without one, but every writer that
 * leaves column_orders out (parquet-mr 1.12 with a page index, parquet-rs
 * 49) sorts by the type-defined order, which is also what parquet-mr, Arrow
 * C++ and DuckDB assume; a kind this library does not know is not trusted. */
static bool order_defines_bounds(const struct basalt_parquet_reader *reader, int32_t leaf)
{
    const struct basalt_parquet_schema_leaf *l = &reader->schema->leaves[leaf];
    if (basalt_parquet_leaf_sort_order(l) == BASALT_PARQUET_SORT_ORDER_UNKNOWN)
        return false;
    int32_t order = reader->column_orders[leaf];
    return order == BASALT_PARQUET_COLUMN_ORDER_NONE ||
           order == BASALT_PARQUET_COLUMN_ORDER_TYPE_ORDER ||
           (order == BASALT_PARQUET_COLUMN_ORDER_IEEE_754_TOTAL_ORDER && is_float_type(l));
}

bool basalt_parquet_page_bounds_usable(const struct basalt_parquet_reader *reader, int32_t leaf)
{
    return order_defines_bounds(reader, leaf);
}

void basalt_parquet_stats_of(const struct basalt_parquet_reader *reader, int32_t leaf,
                             const struct basalt_parquet_column_metadata *meta,
                             struct basalt_parquet_column_stats *out)
{
    const struct basalt_parquet_schema_leaf *l = &reader->schema->leaves[leaf];
    memset(out, 0, sizeof *out);
    out->sort_order = basalt_parquet_leaf_sort_order(l);
    out->num_values = meta->num_values;
    if (meta->has_geospatial_statistics &&
        (l->annotation.kind == BASALT_PARQUET_SCHEMA_LOGICAL_GEOMETRY ||
         l->annotation.kind == BASALT_PARQUET_SCHEMA_LOGICAL_GEOGRAPHY))
        out->geospatial = meta->geospatial_statistics;
    if (!meta->has_statistics)
        return;
    const struct basalt_parquet_statistics *s = &meta->statistics;
    out->has_null_count = s->has_null_count && s->null_count >= 0;
    out->null_count = s->null_count;
    out->has_nan_count = s->has_nan_count && s->nan_count >= 0;
    out->nan_count = s->nan_count;
    bool bytes = l->physical_type == BASALT_PARQUET_TYPE_BYTE_ARRAY ||
                 (l->physical_type == BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY &&
                  l->annotation.kind != BASALT_PARQUET_SCHEMA_LOGICAL_FLOAT16);
    if (s->has_min_value && s->has_max_value && order_defines_bounds(reader, leaf)) {
        out->has_min_max = true;
        out->min = s->min_value;
        out->max = s->max_value;
        /* Fixed-width values cannot be truncated; byte arrays may be unless
         * the writer says otherwise. */
        out->min_exact = s->has_is_min_value_exact ? s->is_min_value_exact : !bytes;
        out->max_exact = s->has_is_max_value_exact ? s->is_max_value_exact : !bytes;
        return;
    }
    /* The deprecated fields were compared as signed values by every writer,
     * so only signed-order numbers can trust them; parquet-mr before 1.8.0
     * wrote them wrong (PARQUET-251). */
    bool signed_number = out->sort_order == BASALT_PARQUET_SORT_ORDER_SIGNED &&
                         (l->physical_type == BASALT_PARQUET_TYPE_INT32 ||
                          l->physical_type == BASALT_PARQUET_TYPE_INT64 ||
                          l->physical_type == BASALT_PARQUET_TYPE_FLOAT ||
                          l->physical_type == BASALT_PARQUET_TYPE_DOUBLE);
    bool old_mr = reader->writer.known && reader->writer.parquet_mr &&
                  basalt_parquet_writer_version_lt(&reader->writer, 1, 8, 0);
    if (s->has_min && s->has_max && signed_number && !old_mr) {
        out->has_min_max = true;
        out->from_legacy = true;
        out->min = s->min;
        out->max = s->max;
        out->min_exact = out->max_exact = true;
    }
}

/* ------------------------------------------------------------------ predicates */

void basalt_parquet_predicate_reset(struct basalt_parquet_predicate *p)
{
    if (!p)
        return;
    basalt_free(p->bytes);
    memset(p, 0, sizeof *p);
}

basalt_status basalt_parquet_predicate_init(struct basalt_parquet_predicate *out,
                                            const struct basalt_parquet_schema_leaf *leaf,
                                            int32_t leaf_index, enum basalt_parquet_op op,
                                            const struct basalt_parquet_literal *literal,
                                            struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    out->leaf = leaf_index;
    out->op = op;
    out->cls = basalt_parquet_leaf_value_class(leaf);
    if ((int)op < (int)BASALT_PARQUET_OP_EQ || (int)op > (int)BASALT_PARQUET_OP_IS_NOT_NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "unknown predicate operator %d",
                                (int)op);
    bool null_test = op == BASALT_PARQUET_OP_IS_NULL || op == BASALT_PARQUET_OP_IS_NOT_NULL;
    enum basalt_parquet_literal_kind kind = literal ? literal->kind : BASALT_PARQUET_LITERAL_NONE;
    if (null_test) {
        if (kind != BASALT_PARQUET_LITERAL_NONE)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "column '%s': IS [NOT] NULL takes no literal", leaf->path);
        return BASALT_OK;
    }
    if (kind == BASALT_PARQUET_LITERAL_NONE)
        return basalt_error_set(err, BASALT_INVALID_ARG, "column '%s': comparison without a literal",
                                leaf->path);
    out->literal = *literal;
    out->literal.bytes = NULL;
    out->literal.len = 0;
    bool fits;
    switch (leaf->physical_type) {
    case BASALT_PARQUET_TYPE_BOOLEAN:
        fits = kind == BASALT_PARQUET_LITERAL_BOOL;
        break;
    case BASALT_PARQUET_TYPE_INT32:
    case BASALT_PARQUET_TYPE_INT64:
        fits = kind == BASALT_PARQUET_LITERAL_INT || kind == BASALT_PARQUET_LITERAL_UINT;
        break;
    case BASALT_PARQUET_TYPE_FLOAT:
    case BASALT_PARQUET_TYPE_DOUBLE:
        fits = kind == BASALT_PARQUET_LITERAL_DOUBLE || kind == BASALT_PARQUET_LITERAL_INT ||
               kind == BASALT_PARQUET_LITERAL_UINT;
        break;
    case BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY:
        if (leaf->annotation.kind == BASALT_PARQUET_SCHEMA_LOGICAL_FLOAT16) {
            fits = kind == BASALT_PARQUET_LITERAL_DOUBLE || kind == BASALT_PARQUET_LITERAL_INT ||
                   kind == BASALT_PARQUET_LITERAL_UINT;
            break;
        }
        fits = kind == BASALT_PARQUET_LITERAL_BYTES;
        break;
    case BASALT_PARQUET_TYPE_BYTE_ARRAY:
        fits = kind == BASALT_PARQUET_LITERAL_BYTES;
        break;
    default: /* INT96: nothing to compare with */
        fits = true;
        break;
    }
    if (!fits)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "column '%s': a literal of kind %d does not fit its type",
                                leaf->path, (int)kind);
    if (kind == BASALT_PARQUET_LITERAL_BYTES) {
        if (literal->len && !literal->bytes)
            return basalt_error_set(err, BASALT_INVALID_ARG, "column '%s': NULL literal bytes",
                                    leaf->path);
        out->bytes = basalt_malloc(literal->len ? literal->len : 1);
        if (!out->bytes)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for a literal");
        if (literal->len)
            memcpy(out->bytes, literal->bytes, literal->len);
        out->len = literal->len;
        out->literal.bytes = out->bytes;
        out->literal.len = out->len;
    }
    out->comparable = true;
    switch (out->cls) {
    case BASALT_PARQUET_CLASS_NONE:
        out->comparable = false;
        break;
    case BASALT_PARQUET_CLASS_BOOL:
        out->i = literal->b ? 1 : 0;
        break;
    case BASALT_PARQUET_CLASS_INT:
        if (kind == BASALT_PARQUET_LITERAL_INT) {
            out->i = literal->i;
        } else if (literal->u > (uint64_t)INT64_MAX) {
            /* Above every signed value: compare as the largest one, which
             * the bounds cannot exceed either, and rule out equality. */
            out->i = INT64_MAX;
            out->u_negative = true; /* marks "beyond the domain" for INT */
        } else {
            out->i = (int64_t)literal->u;
        }
        break;
    case BASALT_PARQUET_CLASS_UINT:
        if (kind == BASALT_PARQUET_LITERAL_UINT) {
            out->u = literal->u;
        } else if (literal->i < 0) {
            out->u_negative = true;
        } else {
            out->u = (uint64_t)literal->i;
        }
        break;
    case BASALT_PARQUET_CLASS_FLOAT:
        out->d = kind == BASALT_PARQUET_LITERAL_DOUBLE ? literal->d
                 : kind == BASALT_PARQUET_LITERAL_INT  ? (double)literal->i
                                                       : (double)literal->u;
        if (isnan(out->d))
            out->comparable = false;
        break;
    case BASALT_PARQUET_CLASS_BYTES:
        break;
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------------ bounds */

static uint64_t load_le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static double half_to_double(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
    double v;
    if (exp == 0)
        v = ldexp((double)frac, -24);
    else if (exp == 31)
        v = frac ? NAN : INFINITY;
    else
        v = ldexp((double)(frac | 0x400), exp - 25);
    return sign ? -v : v;
}

/* A bound decoded for comparison. */
struct value {
    int64_t i;
    uint64_t u;
    double d;
    const uint8_t *b;
    size_t len;
};

static bool decode_bound(const struct basalt_parquet_predicate *p,
                         const struct basalt_parquet_schema_leaf *leaf,
                         const struct basalt_parquet_binary *bin, struct value *v)
{
    const uint8_t *d = bin->data;
    size_t n = bin->len;
    if (!d && n)
        return false;
    switch (p->cls) {
    case BASALT_PARQUET_CLASS_BOOL:
        if (n < 1)
            return false;
        v->i = d[0] & 1;
        return true;
    case BASALT_PARQUET_CLASS_INT:
    case BASALT_PARQUET_CLASS_UINT:
        if (leaf->physical_type == BASALT_PARQUET_TYPE_INT32) {
            if (n != 4)
                return false;
            uint32_t x = (uint32_t)load_le(d, 4);
            v->i = (int32_t)x;
            v->u = x;
        } else {
            if (n != 8)
                return false;
            v->u = load_le(d, 8);
            v->i = (int64_t)v->u;
        }
        return true;
    case BASALT_PARQUET_CLASS_FLOAT:
        if (leaf->physical_type == BASALT_PARQUET_TYPE_FLOAT) {
            if (n != 4)
                return false;
            uint32_t x = (uint32_t)load_le(d, 4);
            float f;
            memcpy(&f, &x, 4);
            v->d = f;
        } else if (leaf->physical_type == BASALT_PARQUET_TYPE_DOUBLE) {
            if (n != 8)
                return false;
            uint64_t x = load_le(d, 8);
            memcpy(&v->d, &x, 8);
        } else {
            if (n != 2)
                return false;
            v->d = half_to_double((uint16_t)load_le(d, 2));
        }
        return !isnan(v->d);
    case BASALT_PARQUET_CLASS_BYTES:
        v->b = d;
        v->len = n;
        return true;
    default:
        return false;
    }
}

/* Sign of (value - literal). */
static int compare(const struct basalt_parquet_predicate *p, const struct value *v)
{
    switch (p->cls) {
    case BASALT_PARQUET_CLASS_BOOL:
        return (v->i > p->i) - (v->i < p->i);
    case BASALT_PARQUET_CLASS_INT:
        if (p->u_negative) /* the literal is above INT64_MAX */
            return -1;
        return (v->i > p->i) - (v->i < p->i);
    case BASALT_PARQUET_CLASS_UINT:
        if (p->u_negative) /* the literal is below 0 */
            return 1;
        return (v->u > p->u) - (v->u < p->u);
    case BASALT_PARQUET_CLASS_FLOAT:
        return (v->d > p->d) - (v->d < p->d);
    case BASALT_PARQUET_CLASS_BYTES: {
        size_t n = v->len < p->len ? v->len : p->len;
        int c = n ? memcmp(v->b, p->bytes, n) : 0;
        if (c)
            return c < 0 ? -1 : 1;
        return (v->len > p->len) - (v->len < p->len);
    }
    default:
        return 0;
    }
}

bool basalt_parquet_predicate_may_match(const struct basalt_parquet_predicate *p,
                                        const struct basalt_parquet_schema_leaf *leaf,
                                        const struct basalt_parquet_bounds *b)
{
    bool all_null = b->all_null || (b->has_null_count && b->num_values >= 0 &&
                                    b->null_count >= b->num_values && b->num_values > 0);
    switch (p->op) {
    case BASALT_PARQUET_OP_IS_NULL:
        if (all_null)
            return true;
        return !(b->has_null_count && b->null_count == 0);
    case BASALT_PARQUET_OP_IS_NOT_NULL:
        return !all_null;
    default:
        break;
    }
    /* A comparison with null is never true. */
    if (all_null)
        return false;
    if (!p->comparable || !b->has_min_max)
        return true;
    struct value lo = {0}, hi = {0};
    if (!decode_bound(p, leaf, &b->min, &lo) || !decode_bound(p, leaf, &b->max, &hi))
        return true;
    int cmin = compare(p, &lo), cmax = compare(p, &hi);
    if (cmin > 0 && cmax < 0) /* min above max: the bounds are nonsense */
        return true;
    switch (p->op) {
    case BASALT_PARQUET_OP_EQ:
        return cmin <= 0 && cmax >= 0;
    case BASALT_PARQUET_OP_NE: {
        if (cmin != 0 || cmax != 0)
            return true;
        if (p->cls == BASALT_PARQUET_CLASS_INT && p->u_negative)
            return true;
        bool exact = b->min_exact && b->max_exact;
        /* NaN != x holds, and NaN never shows in the bounds. */
        bool no_nan = p->cls != BASALT_PARQUET_CLASS_FLOAT || (b->has_nan_count && b->nan_count == 0);
        return !(exact && no_nan);
    }
    case BASALT_PARQUET_OP_LT:
        return cmin < 0;
    case BASALT_PARQUET_OP_LE:
        return cmin <= 0;
    case BASALT_PARQUET_OP_GT:
        return cmax > 0;
    case BASALT_PARQUET_OP_GE:
        return cmax >= 0;
    default:
        return true;
    }
}

/* ------------------------------------------------------------------ bloom probes */

static void store_le(uint8_t *p, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

bool basalt_parquet_predicate_plain(const struct basalt_parquet_predicate *p,
                                    const struct basalt_parquet_schema_leaf *leaf, uint8_t buf[16],
                                    const uint8_t **data, size_t *len)
{
    if (p->op != BASALT_PARQUET_OP_EQ || !p->comparable)
        return false;
    switch (leaf->physical_type) {
    case BASALT_PARQUET_TYPE_INT32:
        if (p->cls == BASALT_PARQUET_CLASS_INT) {
            if (p->u_negative || p->i < INT32_MIN || p->i > INT32_MAX)
                return false;
            store_le(buf, (uint64_t)(uint32_t)(int32_t)p->i, 4);
        } else if (p->cls == BASALT_PARQUET_CLASS_UINT) {
            if (p->u_negative || p->u > UINT32_MAX)
                return false;
            store_le(buf, p->u, 4);
        } else {
            return false;
        }
        *data = buf;
        *len = 4;
        return true;
    case BASALT_PARQUET_TYPE_INT64:
        if (p->cls == BASALT_PARQUET_CLASS_INT) {
            if (p->u_negative)
                return false;
            store_le(buf, (uint64_t)p->i, 8);
        } else if (p->cls == BASALT_PARQUET_CLASS_UINT) {
            if (p->u_negative)
                return false;
            store_le(buf, p->u, 8);
        } else {
            return false;
        }
        *data = buf;
        *len = 8;
        return true;
    case BASALT_PARQUET_TYPE_FLOAT: {
        /* Zero has two encodings that compare equal: no single probe. */
        if (p->d == 0.0 || (double)(float)p->d != p->d)
            return false;
        float f = (float)p->d;
        memcpy(buf, &f, 4);
        *data = buf;
        *len = 4;
        return true;
    }
    case BASALT_PARQUET_TYPE_DOUBLE:
        if (p->d == 0.0)
            return false;
        memcpy(buf, &p->d, 8);
        *data = buf;
        *len = 8;
        return true;
    case BASALT_PARQUET_TYPE_BYTE_ARRAY:
        if (p->cls != BASALT_PARQUET_CLASS_BYTES)
            return false;
        *data = p->bytes;
        *len = p->len;
        return true;
    case BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY:
        if (p->cls != BASALT_PARQUET_CLASS_BYTES || p->len != (size_t)leaf->type_length)
            return false;
        *data = p->bytes;
        *len = p->len;
        return true;
    default:
        return false;
    }
}
