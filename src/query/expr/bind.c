/* The expression builder: nodes in an arena, typed as they are made. Calls
 * resolve through a registry of functions, each with a resolver that picks
 * the overload for the argument types and inserts DuckDB's implicit casts.
 * Nodes whose arguments are all constants fold into constants. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "query_internal.h"

#define T(id) basalt_query_type_make(BASALT_QUERY_TYPE_##id)

basalt_status basalt_qnode_error(const struct basalt_qexpr_builder *b, basalt_status st,
                          struct basalt_error *err, const char *fmt, ...)
{
    char msg[BASALT_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (b && b->position >= 0)
        return basalt_error_set(err, st, "%s (at position %d)", msg, b->position);
    return basalt_error_set(err, st, "%s", msg);
}

static const char *tname(struct basalt_query_type t, char *buf)
{
    return basalt_query_type_name(t, buf, 48);
}

/* "(VARCHAR, INTEGER)" */
static const char *arg_list(struct basalt_qexpr *const *args, int n, char *buf, size_t cap)
{
    size_t k = 0;
    k += (size_t)snprintf(buf + k, cap - k, "(");
    for (int i = 0; i < n && k < cap; i++) {
        char t[48];
        k += (size_t)snprintf(buf + k, cap - k, "%s%s", i ? ", " : "", tname(args[i]->type, t));
    }
    if (k < cap)
        snprintf(buf + k, cap - k, ")");
    return buf;
}

/* What an Arrow format the expressions do not take holds, in words. */
static const char *kind_of(const char *format)
{
    if (strcmp(format, "+l") == 0 || strcmp(format, "+L") == 0 || strncmp(format, "+w:", 3) == 0 ||
        strcmp(format, "+vl") == 0 || strcmp(format, "+vL") == 0)
        return "a list";
    if (strcmp(format, "+m") == 0)
        return "a map";
    if (strcmp(format, "+s") == 0)
        return "a struct";
    if (strncmp(format, "+u", 2) == 0)
        return "a union";
    if (strcmp(format, "+r") == 0)
        return "run-end encoded";
    return format;
}

basalt_status basalt_qexpr_builder_new(const struct ArrowSchema *input,
                                       struct basalt_qexpr_builder **out, struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL out");
    *out = NULL;
    if (!input || !input->format || strcmp(input->format, "+s") != 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "input schema must be a struct (+s)");
    struct basalt_qexpr_builder *b = basalt_calloc(1, sizeof *b);
    if (!b)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_arena_init(&b->arena, 16384);
    b->position = -1;
    b->fold = true;
    b->n_columns = (int32_t)input->n_children;
    b->column_types = basalt_arena_alloc(&b->arena, sizeof *b->column_types * (size_t)(b->n_columns + 1), 8);
    b->column_formats = basalt_arena_alloc(&b->arena, sizeof(char *) * (size_t)(b->n_columns + 1), 8);
    if (!b->column_types || !b->column_formats) {
        basalt_qexpr_builder_free(b);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (int32_t i = 0; i < b->n_columns; i++) {
        const char *f = input->children[i]->format;
        /* A column the expressions cannot read keeps its name and kind for
         * the error that reading it gives. */
        char what[256];
        bool known = basalt_query_type_from_schema(input->children[i], &b->column_types[i], NULL) ==
                     BASALT_OK;
        if (!known) {
            b->column_types[i].id = BASALT_QUERY_TYPE_COUNT;
            const char *name = input->children[i]->name ? input->children[i]->name : "";
            snprintf(what, sizeof what, "\"%s\" (%s)", name, kind_of(f));
            f = what;
        }
        b->column_formats[i] = basalt_arena_strndup(&b->arena, f, strlen(f));
        if (!b->column_formats[i]) {
            basalt_qexpr_builder_free(b);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
    }
    *out = b;
    return BASALT_OK;
}

void basalt_qexpr_builder_free(struct basalt_qexpr_builder *b)
{
    if (!b)
        return;
    basalt_arena_reset(&b->arena);
    basalt_free(b);
}

void basalt_qexpr_builder_set_position(struct basalt_qexpr_builder *b, int32_t position)
{
    if (b)
        b->position = position;
}

struct basalt_query_type basalt_qexpr_type(const struct basalt_qexpr *e) { return e->type; }
bool basalt_qexpr_nullable(const struct basalt_qexpr *e) { return e->nullable; }
int32_t basalt_qexpr_position(const struct basalt_qexpr *e) { return e->pos; }
bool basalt_qexpr_constant(const struct basalt_qexpr *e, struct basalt_query_value *value)
{
    if (e->kind != QN_CONST)
        return false;
    if (value)
        *value = e->value;
    return true;
}

int32_t basalt_qexpr_column_index(const struct basalt_qexpr *e)
{
    return e != NULL && e->kind == QN_COLUMN ? e->column : -1;
}

static struct basalt_qexpr *node(struct basalt_qexpr_builder *b, enum qnode_kind kind, int n_args)
{
    struct basalt_qexpr *e = basalt_arena_alloc(&b->arena, sizeof *e, 16);
    if (!e)
        return NULL;
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->pos = b->position;
    e->aux = -1;
    e->n_args = n_args;
    if (n_args) {
        e->args = basalt_arena_alloc(&b->arena, sizeof *e->args * (size_t)n_args, 8);
        if (!e->args)
            return NULL;
    }
    return e;
}

#define NOMEM_IF(cond)                                                                            \
    do {                                                                                          \
        if (cond)                                                                                 \
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");                          \
    } while (0)

/* A list, map or union column only passes through (basalt_qexpr_opaque). */
#define REFUSE_OPAQUE(es, n)                                                                      \
    do {                                                                                          \
        basalt_status refused_ = basalt_qexpr_refuse_opaque(es, n, err);                          \
        if (refused_ != BASALT_OK)                                                                \
            return refused_;                                                                      \
    } while (0)

basalt_status basalt_qexpr_column(struct basalt_qexpr_builder *b, int32_t index,
                                  struct basalt_qexpr **out, struct basalt_error *err)
{
    if (!b || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    *out = NULL;
    if (index < 0 || index >= b->n_columns)
        return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "column %d out of range (%d columns)",
                           index, b->n_columns);
    struct basalt_qexpr *e = node(b, QN_COLUMN, 0);
    NOMEM_IF(!e);
    e->column = index;
    e->type = b->column_types[index];
    e->nullable = true;
    if (basalt_qexpr_opaque(e))
        e->name = b->column_formats[index]; /* "name" (a list) */
    *out = e;
    return BASALT_OK;
}

basalt_status basalt_qexpr_refuse_opaque(struct basalt_qexpr *const *es, int n,
                                         struct basalt_error *err)
{
    for (int i = 0; i < n; i++) {
        const struct basalt_qexpr *e = es[i];
        if (!basalt_qexpr_opaque(e))
            continue;
        if (e->pos >= 0)
            return basalt_error_set(err, BASALT_UNSUPPORTED,
                                    "column %s can only be passed through: expressions, keys and "
                                    "aggregates do not take it yet (at position %d)",
                                    e->name, (int)e->pos);
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "column %s can only be passed through: expressions, keys and "
                                "aggregates do not take it yet",
                                e->name);
    }
    return BASALT_OK;
}

basalt_status basalt_qexpr_refuse_list(struct basalt_qexpr *const *es, int n, const char *what,
                                       struct basalt_error *err)
{
    for (int i = 0; i < n; i++) {
        const struct basalt_qexpr *e = es[i];
        if (e == NULL || e->type.id != BASALT_QUERY_TYPE_LIST)
            continue;
        char t[96];
        basalt_query_type_name(e->type, t, sizeof t);
        if (e->pos >= 0)
            return basalt_error_set(err, BASALT_UNSUPPORTED,
                                    "a list (%s) cannot be %s yet (at position %d)", t, what,
                                    (int)e->pos);
        return basalt_error_set(err, BASALT_UNSUPPORTED, "a list (%s) cannot be %s yet", t, what);
    }
    return BASALT_OK;
}

basalt_status basalt_qexpr_literal(struct basalt_qexpr_builder *b,
                                   const struct basalt_query_value *value,
                                   struct basalt_qexpr **out, struct basalt_error *err)
{
    if (!b || !out || !value)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    *out = NULL;
    if (value->type.id >= BASALT_QUERY_TYPE_COUNT)
        return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "literal of unknown type");
    if (value->type.id == BASALT_QUERY_TYPE_DECIMAL &&
        (value->type.precision < 1 || value->type.precision > 38 || value->type.scale < 0 ||
         value->type.scale > value->type.precision))
        return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "decimal literal precision/scale (%d,%d)",
                           value->type.precision, value->type.scale);
    struct basalt_qexpr *e = node(b, QN_CONST, 0);
    NOMEM_IF(!e);
    e->value = *value;
    e->type = value->type;
    e->value.is_null = value->is_null || value->type.id == BASALT_QUERY_TYPE_NULL;
    e->nullable = e->value.is_null;
    if (!e->value.is_null &&
        (value->type.id == BASALT_QUERY_TYPE_STRING || value->type.id == BASALT_QUERY_TYPE_BINARY)) {
        char *copy = basalt_arena_alloc(&b->arena, value->v.str.len + 1, 1);
        NOMEM_IF(!copy);
        if (value->v.str.len)
            memcpy(copy, value->v.str.ptr, value->v.str.len);
        copy[value->v.str.len] = 0;
        e->value.v.str.ptr = copy;
    }
    *out = e;
    return BASALT_OK;
}

basalt_status basalt_qexpr_int(struct basalt_qexpr_builder *b, enum basalt_query_type_id id,
                               int64_t v, struct basalt_qexpr **out, struct basalt_error *err)
{
    struct basalt_query_value val;
    memset(&val, 0, sizeof val);
    val.type = basalt_query_type_make(id);
    if (basalt_qtype_is_unsigned(id))
        val.v.u = (uint64_t)v;
    else
        val.v.i = v;
    if (!basalt_qtype_is_int(id) && id != BASALT_QUERY_TYPE_DATE && id != BASALT_QUERY_TYPE_TIMESTAMP)
        return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "basalt_qexpr_int: not an integer type");
    return basalt_qexpr_literal(b, &val, out, err);
}

basalt_status basalt_qexpr_double(struct basalt_qexpr_builder *b, double v,
                                  struct basalt_qexpr **out, struct basalt_error *err)
{
    struct basalt_query_value val;
    memset(&val, 0, sizeof val);
    val.type = T(DOUBLE);
    val.v.f = v;
    return basalt_qexpr_literal(b, &val, out, err);
}

basalt_status basalt_qexpr_bool(struct basalt_qexpr_builder *b, bool v, struct basalt_qexpr **out,
                                struct basalt_error *err)
{
    struct basalt_query_value val;
    memset(&val, 0, sizeof val);
    val.type = T(BOOL);
    val.v.b = v;
    return basalt_qexpr_literal(b, &val, out, err);
}

basalt_status basalt_qexpr_string(struct basalt_qexpr_builder *b, const char *s, size_t len,
                                  struct basalt_qexpr **out, struct basalt_error *err)
{
    struct basalt_query_value val;
    memset(&val, 0, sizeof val);
    val.type = T(STRING);
    val.v.str.ptr = s;
    val.v.str.len = len;
    return basalt_qexpr_literal(b, &val, out, err);
}

basalt_status basalt_qexpr_null(struct basalt_qexpr_builder *b, struct basalt_query_type type,
                                struct basalt_qexpr **out, struct basalt_error *err)
{
    struct basalt_query_value val;
    memset(&val, 0, sizeof val);
    val.type = type;
    val.is_null = true;
    return basalt_qexpr_literal(b, &val, out, err);
}

/* ------------------------------------------------------------------ folding */

static basalt_status finish(struct basalt_qexpr_builder *b, struct basalt_qexpr *e,
                            struct basalt_qexpr **out, struct basalt_error *err)
{
    bool all_const = e->kind != QN_COLUMN && e->kind != QN_CONST;
    for (int i = 0; i < e->n_args && all_const; i++)
        all_const = e->args[i]->kind == QN_CONST;
    if (all_const && b->fold) {
        struct basalt_query_value v;
        struct basalt_error ferr;
        basalt_error_init(&ferr);
        basalt_status st = basalt_qfold(b, e, &v, &ferr);
        if (st == BASALT_NOMEM)
            return basalt_error_set(err, st, "out of memory");
        /* a list constant stays a call (a value holds no list), unless NULL */
        if (st == BASALT_OK && e->type.id == BASALT_QUERY_TYPE_LIST && !v.is_null)
            st = BASALT_UNSUPPORTED;
        if (st == BASALT_OK) {
            int32_t pos = e->pos;
            struct basalt_qexpr *c = node(b, QN_CONST, 0);
            NOMEM_IF(!c);
            c->pos = pos;
            c->type = e->type;
            c->value = v;
            c->value.type = e->type;
            c->nullable = v.is_null;
            if (!v.is_null && (e->type.id == BASALT_QUERY_TYPE_STRING ||
                               e->type.id == BASALT_QUERY_TYPE_BINARY)) {
                char *copy = basalt_arena_alloc(&b->arena, v.v.str.len + 1, 1);
                NOMEM_IF(!copy);
                if (v.v.str.len)
                    memcpy(copy, v.v.str.ptr, v.v.str.len);
                copy[v.v.str.len] = 0;
                c->value.v.str.ptr = copy;
            }
            *out = c;
            return BASALT_OK;
        }
        /* A constant that fails (overflow, bad cast) fails when it runs. */
    }
    *out = e;
    return BASALT_OK;
}

static bool any_nullable(struct basalt_qexpr *const *args, int n)
{
    for (int i = 0; i < n; i++)
        if (args[i]->nullable)
            return true;
    return false;
}

/* ------------------------------------------------------------------ casts */

static bool is_str(enum basalt_query_type_id id)
{
    return id == BASALT_QUERY_TYPE_STRING;
}

/* Between TIMESTAMP units, DuckDB casts to a finer unit, and from
 * microseconds (with a zone or not) to seconds or milliseconds, but not
 * from nanoseconds or milliseconds to a coarser unit. */
static bool timestamp_cast_allowed(struct basalt_query_type f, struct basalt_query_type t)
{
    if (!t.coarse)
        return true;
    if (f.coarse)
        return t.coarse >= f.coarse; /* MILLIS above SECONDS */
    return !f.nanos;
}

static bool cast_allowed(struct basalt_query_type f, struct basalt_query_type t)
{
    enum basalt_query_type_id a = f.id, z = t.id;
    if (a == BASALT_QUERY_TYPE_LIST || z == BASALT_QUERY_TYPE_LIST) {
        /* a list casts to text; a list of untyped NULLs (`[]`) to any list */
        if (a == BASALT_QUERY_TYPE_NULL || (a == BASALT_QUERY_TYPE_LIST && is_str(z)))
            return true;
        return a == z && (f.elem == BASALT_QUERY_TYPE_NULL ||
                          cast_allowed(basalt_query_type_element(f), basalt_query_type_element(t)));
    }
    if (a == BASALT_QUERY_TYPE_TIMESTAMP && z == BASALT_QUERY_TYPE_TIMESTAMP)
        return timestamp_cast_allowed(f, t);
    if (a == BASALT_QUERY_TYPE_TIMESTAMP && z == BASALT_QUERY_TYPE_TIME)
        return !f.tz;
    if (a == BASALT_QUERY_TYPE_NULL || a == z)
        return true;
    if (z == BASALT_QUERY_TYPE_NULL)
        return false;
    if (is_str(z))
        return a != BASALT_QUERY_TYPE_BINARY || true;
    if (is_str(a))
        return z != BASALT_QUERY_TYPE_INTERVAL;
    if (basalt_qtype_is_numeric(a) && basalt_qtype_is_numeric(z))
        return true;
    if (a == BASALT_QUERY_TYPE_BOOL && basalt_qtype_is_numeric(z))
        return true;
    if (basalt_qtype_is_numeric(a) && z == BASALT_QUERY_TYPE_BOOL)
        return basalt_qtype_is_int(a);
    if (a == BASALT_QUERY_TYPE_DATE && z == BASALT_QUERY_TYPE_TIMESTAMP)
        return true;
    if (a == BASALT_QUERY_TYPE_TIMESTAMP && z == BASALT_QUERY_TYPE_DATE)
        return true;
    if (a == BASALT_QUERY_TYPE_BINARY && is_str(z))
        return true;
    if (is_str(a) && z == BASALT_QUERY_TYPE_BINARY)
        return true;
    return false;
}

basalt_status basalt_qbind_cast(struct basalt_qexpr_builder *b, struct basalt_qexpr *x,
                         struct basalt_query_type to, bool try_cast, bool implicit,
                         struct basalt_qexpr **out, struct basalt_error *err)
{
    (void)implicit;
    *out = NULL;
    if (basalt_query_type_equal(x->type, to)) {
        *out = x;
        return BASALT_OK;
    }
    if (!cast_allowed(x->type, to)) {
        char f[48], t[48];
        return basalt_qnode_error(b, BASALT_UNSUPPORTED, err, "cannot cast %s to %s", tname(x->type, f),
                           tname(to, t));
    }
    if (to.id == BASALT_QUERY_TYPE_DECIMAL &&
        (to.precision < 1 || to.precision > 38 || to.scale < 0 || to.scale > to.precision))
        return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "DECIMAL(%d,%d) out of range",
                           to.precision, to.scale);
    struct basalt_qexpr *e = node(b, QN_CAST, 1);
    NOMEM_IF(!e);
    e->args[0] = x;
    e->type = to;
    e->try_cast = try_cast;
    e->nullable = x->nullable || try_cast;
    if (x->kind == QN_CONST && x->value.is_null) {
        struct basalt_qexpr *c = node(b, QN_CONST, 0);
        NOMEM_IF(!c);
        c->type = to;
        c->value.type = to;
        c->value.is_null = true;
        c->nullable = true;
        *out = c;
        return BASALT_OK;
    }
    return finish(b, e, out, err);
}

basalt_status basalt_qexpr_cast(struct basalt_qexpr_builder *b, struct basalt_qexpr *x,
                                struct basalt_query_type type, bool try_cast,
                                struct basalt_qexpr **out, struct basalt_error *err)
{
    if (!b || !x || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    REFUSE_OPAQUE(&x, 1);
    return basalt_qbind_cast(b, x, type, try_cast, false, out, err);
}

/* ------------------------------------------------------------------ implicit types */

static int int_rank(enum basalt_query_type_id id)
{
    switch (id) {
    case BASALT_QUERY_TYPE_INT8: return 1;
    case BASALT_QUERY_TYPE_INT16: return 2;
    case BASALT_QUERY_TYPE_INT32: return 3;
    case BASALT_QUERY_TYPE_INT64: return 4;
    default: return 0;
    }
}

/* Decimal digits an integer type needs (DuckDB's DECIMAL(w,0) for ints). */
static int int_digits(enum basalt_query_type_id id)
{
    switch (id) {
    case BASALT_QUERY_TYPE_INT8: case BASALT_QUERY_TYPE_UINT8: return 3;
    case BASALT_QUERY_TYPE_INT16: case BASALT_QUERY_TYPE_UINT16: return 5;
    case BASALT_QUERY_TYPE_INT32: case BASALT_QUERY_TYPE_UINT32: return 10;
    case BASALT_QUERY_TYPE_INT64: return 19;
    case BASALT_QUERY_TYPE_UINT64: return 20;
    case BASALT_QUERY_TYPE_BOOL: return 1;
    default: return 38;
    }
}

static struct basalt_query_type as_decimal(struct basalt_query_type t)
{
    if (t.id == BASALT_QUERY_TYPE_DECIMAL)
        return t;
    return basalt_query_type_decimal(int_digits(t.id), 0);
}

/* The common type two operands are cast to (DuckDB's max logical type for
 * the types these expressions know); false when there is none. */
static bool common_type(struct basalt_query_type a, struct basalt_query_type c,
                        struct basalt_query_type *out)
{
    enum basalt_query_type_id x = a.id, y = c.id;
    if (x == BASALT_QUERY_TYPE_NULL) {
        *out = c;
        return true;
    }
    if (y == BASALT_QUERY_TYPE_NULL || basalt_query_type_equal(a, c)) {
        *out = a;
        return true;
    }
    if (x == BASALT_QUERY_TYPE_LIST || y == BASALT_QUERY_TYPE_LIST) {
        /* two lists meet in the list of their elements' common type */
        struct basalt_query_type e;
        if (x != y || !common_type(basalt_query_type_element(a), basalt_query_type_element(c), &e))
            return false;
        *out = basalt_query_type_list(e);
        return true;
    }
    if (x == y && (x == BASALT_QUERY_TYPE_STRING || x == BASALT_QUERY_TYPE_BINARY)) {
        *out = a;
        out->large = a.large || c.large;
        return true;
    }
    if (basalt_qtype_is_numeric(x) && basalt_qtype_is_numeric(y)) {
        if (x == BASALT_QUERY_TYPE_DOUBLE || y == BASALT_QUERY_TYPE_DOUBLE) {
            *out = T(DOUBLE);
            return true;
        }
        if (x == BASALT_QUERY_TYPE_FLOAT || y == BASALT_QUERY_TYPE_FLOAT) {
            *out = T(FLOAT);
            return true;
        }
        if (x == BASALT_QUERY_TYPE_DECIMAL || y == BASALT_QUERY_TYPE_DECIMAL) {
            struct basalt_query_type da = as_decimal(a), dc = as_decimal(c);
            int scale = da.scale > dc.scale ? da.scale : dc.scale;
            int ia = da.precision - da.scale, ic = dc.precision - dc.scale;
            int p = (ia > ic ? ia : ic) + scale;
            *out = basalt_query_type_decimal(p > 38 ? 38 : p, scale);
            return true;
        }
        bool ux = basalt_qtype_is_unsigned(x), uy = basalt_qtype_is_unsigned(y);
        if (ux && uy) {
            *out = T(UINT8);
            out->id = x > y ? x : y;
            return true;
        }
        if (ux || uy) {
            enum basalt_query_type_id u = ux ? x : y, s = ux ? y : x;
            if (u == BASALT_QUERY_TYPE_UINT64)
                return false;
            /* unsigned of width w fits the signed type of width 2w */
            int need = int_rank(u == BASALT_QUERY_TYPE_UINT8    ? BASALT_QUERY_TYPE_INT16
                                : u == BASALT_QUERY_TYPE_UINT16 ? BASALT_QUERY_TYPE_INT32
                                                                : BASALT_QUERY_TYPE_INT64);
            int r = int_rank(s) > need ? int_rank(s) : need;
            *out = T(INT8);
            out->id = (enum basalt_query_type_id)(BASALT_QUERY_TYPE_INT8 + r - 1);
            return true;
        }
        *out = int_rank(x) >= int_rank(y) ? a : c;
        return true;
    }
    if ((x == BASALT_QUERY_TYPE_DATE && y == BASALT_QUERY_TYPE_TIMESTAMP) ||
        (y == BASALT_QUERY_TYPE_DATE && x == BASALT_QUERY_TYPE_TIMESTAMP)) {
        *out = x == BASALT_QUERY_TYPE_TIMESTAMP ? a : c;
        return true;
    }
    if (x == BASALT_QUERY_TYPE_TIMESTAMP && y == BASALT_QUERY_TYPE_TIMESTAMP) {
        /* seconds and milliseconds meet in the finer; either meets a finer
         * unit in that unit */
        if (a.coarse && c.coarse)
            *out = basalt_query_type_timestamp_coarse(a.coarse > c.coarse ? a.coarse : c.coarse);
        else if (a.coarse || c.coarse)
            *out = a.coarse ? c : a;
        else
            *out = basalt_query_type_timestamp(a.nanos && c.nanos, a.tz || c.tz);
        return true;
    }
    return false;
}

/* Whether e is an integer constant that a UBIGINT holds. */
static bool fits_uint64(const struct basalt_qexpr *e)
{
    if (e == NULL || e->kind != QN_CONST || e->value.is_null)
        return false;
    enum basalt_query_type_id id = e->type.id;
    if (basalt_qtype_is_unsigned(id))
        return true;
    return int_rank(id) > 0 && e->value.v.i >= 0;
}

/* common_type of operands x and y (typed xt and yt), with DuckDB's rule for
 * integer literals where it has none: UBIGINT and a signed integer have no
 * common type here (DuckDB's is HUGEINT), but a literal that fits takes the
 * UBIGINT's type, so `hash(x) % 1000` and `hash(x) = 5` bind. */
static bool operand_type(const struct basalt_qexpr *x, struct basalt_query_type xt,
                         const struct basalt_qexpr *y, struct basalt_query_type yt,
                         struct basalt_query_type *out)
{
    if (common_type(xt, yt, out))
        return true;
    if (xt.id == BASALT_QUERY_TYPE_UINT64 && fits_uint64(y)) {
        *out = xt;
        return true;
    }
    if (yt.id == BASALT_QUERY_TYPE_UINT64 && fits_uint64(x)) {
        *out = yt;
        return true;
    }
    return false;
}

/* ------------------------------------------------------------------ calls */

struct qfunc;
typedef basalt_status (*qresolve_fn)(struct basalt_qexpr_builder *b, const struct qfunc *f,
                                     struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                                     struct basalt_error *err);
struct qfunc {
    const char *name;
    enum qop op;
    qresolve_fn resolve;
    int min_args, max_args;
};

static basalt_status no_overload(struct basalt_qexpr_builder *b, const struct qfunc *f,
                                 struct basalt_qexpr *const *args, int n, struct basalt_error *err)
{
    char list[256];
    return basalt_qnode_error(b, BASALT_UNSUPPORTED, err, "no overload of '%s' for %s", f->name,
                       arg_list(args, n, list, sizeof list));
}

/* Casts args to types[i] and makes the call node. */
static basalt_status make_call(struct basalt_qexpr_builder *b, const struct qfunc *f, enum qop op,
                               struct basalt_qexpr **args, int n,
                               const struct basalt_query_type *types,
                               struct basalt_query_type result, bool nullable,
                               struct basalt_qexpr **out, struct basalt_error *err)
{
    struct basalt_qexpr *e = node(b, QN_CALL, n);
    NOMEM_IF(!e);
    for (int i = 0; i < n; i++) {
        basalt_status st = types ? basalt_qbind_cast(b, args[i], types[i], false, true, &e->args[i], err)
                                 : BASALT_OK;
        if (st != BASALT_OK)
            return st;
        if (!types)
            e->args[i] = args[i];
    }
    e->op = op;
    e->name = f->name;
    e->type = result;
    e->nullable = nullable || any_nullable(e->args, n);
    /* A constant NULL argument makes the call NULL without running the
     * others (concat() alone skips NULLs), as DuckDB's folding does. */
    if (op != QOP_CONCAT || strcmp(f->name, "||") == 0)
        for (int i = 0; i < n; i++)
            if (e->args[i]->kind == QN_CONST && e->args[i]->value.is_null)
                return basalt_qexpr_null(b, result, out, err);
    return finish(b, e, out, err);
}

static struct basalt_query_type dbl(void) { return T(DOUBLE); }

/* The type a date/time function computes a TIMESTAMP argument in: seconds
 * and milliseconds as microseconds, as DuckDB casts TIMESTAMP_S and
 * TIMESTAMP_MS to TIMESTAMP for them. */
static struct basalt_query_type fine(struct basalt_query_type t)
{
    t.coarse = 0;
    return t;
}

static basalt_status r_arith(struct basalt_qexpr_builder *b, const struct qfunc *f,
                             struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                             struct basalt_error *err)
{
    enum qop op = f->op;
    if (n == 1) {
        if (op != QOP_SUB)
            return no_overload(b, f, args, n, err);
        struct basalt_query_type t = args[0]->type;
        if (t.id == BASALT_QUERY_TYPE_NULL)
            t = T(INT32);
        if (!basalt_qtype_is_numeric(t.id) || basalt_qtype_is_unsigned(t.id)) {
            if (t.id != BASALT_QUERY_TYPE_INTERVAL)
                return no_overload(b, f, args, n, err);
        }
        return make_call(b, f, QOP_NEG, args, 1, &t, t, false, out, err);
    }
    bool handled;
    basalt_status tst = basalt_qbind_time_arith(b, f->name, op, args, &handled, out, err);
    if (handled)
        return tst;
    struct basalt_query_type a = fine(args[0]->type), c = fine(args[1]->type), types[2], r;
    enum basalt_query_type_id x = a.id, y = c.id;
    /* temporal arithmetic */
    if (x == BASALT_QUERY_TYPE_DATE && y == BASALT_QUERY_TYPE_DATE && op == QOP_SUB)
        return make_call(b, f, QOP_DATE_SUB_DATE, args, 2, NULL, T(INT64), false, out, err);
    /* a date and a number of days, as DuckDB: date + n, n + date, date - n */
    if (x == BASALT_QUERY_TYPE_DATE && basalt_qtype_is_int(y) && (op == QOP_ADD || op == QOP_SUB)) {
        types[0] = a;
        types[1] = T(INT64);
        return make_call(b, f, op == QOP_ADD ? QOP_DATE_ADD_DAYS : QOP_DATE_SUB_DAYS, args, 2,
                         types, a, false, out, err);
    }
    if (basalt_qtype_is_int(x) && y == BASALT_QUERY_TYPE_DATE && op == QOP_ADD) {
        struct basalt_qexpr *sw[2] = {args[1], args[0]};
        types[0] = c;
        types[1] = T(INT64);
        return make_call(b, f, QOP_DATE_ADD_DAYS, sw, 2, types, c, false, out, err);
    }
    if (x == BASALT_QUERY_TYPE_TIMESTAMP && y == BASALT_QUERY_TYPE_TIMESTAMP && op == QOP_SUB &&
        basalt_query_type_equal(a, c)) {
        types[0] = a;
        types[1] = c;
        return make_call(b, f, QOP_TS_SUB_TS, args, 2, types, T(INTERVAL), false, out, err);
    }
    if ((x == BASALT_QUERY_TYPE_DATE || x == BASALT_QUERY_TYPE_TIMESTAMP) &&
        y == BASALT_QUERY_TYPE_INTERVAL && (op == QOP_ADD || op == QOP_SUB)) {
        types[0] = x == BASALT_QUERY_TYPE_DATE ? T(TIMESTAMP) : a;
        types[1] = c;
        return make_call(b, f, op == QOP_ADD ? QOP_TS_ADD_INTERVAL : QOP_TS_SUB_INTERVAL, args, 2,
                         types, types[0], false, out, err);
    }
    if (x == BASALT_QUERY_TYPE_INTERVAL && (y == BASALT_QUERY_TYPE_DATE || y == BASALT_QUERY_TYPE_TIMESTAMP) &&
        op == QOP_ADD) {
        struct basalt_qexpr *sw[2] = {args[1], args[0]};
        types[0] = y == BASALT_QUERY_TYPE_DATE ? T(TIMESTAMP) : c;
        types[1] = a;
        return make_call(b, f, QOP_TS_ADD_INTERVAL, sw, 2, types, types[0], false, out, err);
    }
    if (x == BASALT_QUERY_TYPE_INTERVAL && y == BASALT_QUERY_TYPE_INTERVAL &&
        (op == QOP_ADD || op == QOP_SUB))
        return make_call(b, f, op == QOP_ADD ? QOP_INTERVAL_ADD : QOP_INTERVAL_SUB, args, 2, NULL,
                         a, false, out, err);
    if ((x == BASALT_QUERY_TYPE_INTERVAL) != (y == BASALT_QUERY_TYPE_INTERVAL))
        return basalt_qbind_interval_arith(b, f->name, op, args, out, err);
    if (x == BASALT_QUERY_TYPE_NULL && y == BASALT_QUERY_TYPE_NULL)
        a = c = T(INT32);
    if (!operand_type(args[0], a, args[1], c, &r) || !basalt_qtype_is_numeric(r.id))
        return no_overload(b, f, args, n, err);
    bool nullable = false;
    switch (op) {
    case QOP_DIV:
        if (r.id != BASALT_QUERY_TYPE_FLOAT)
            r = dbl();
        types[0] = types[1] = r;
        nullable = true; /* x / 0 */
        break;
    case QOP_IDIV:
        if (r.id == BASALT_QUERY_TYPE_DECIMAL)
            r = dbl();
        types[0] = types[1] = r;
        nullable = true;
        break;
    case QOP_MOD:
        if (r.id == BASALT_QUERY_TYPE_DECIMAL) {
            struct basalt_query_type da = as_decimal(a), dc = as_decimal(c);
            int scale = da.scale > dc.scale ? da.scale : dc.scale;
            int ia = da.precision - da.scale, ic = dc.precision - dc.scale;
            r = basalt_query_type_decimal((ia > ic ? ia : ic) + scale, scale);
            types[0] = basalt_query_type_decimal(da.precision - da.scale + scale, scale);
            types[1] = basalt_query_type_decimal(dc.precision - dc.scale + scale, scale);
            if (types[0].precision > 38 || types[1].precision > 38)
                return no_overload(b, f, args, n, err);
        } else {
            types[0] = types[1] = r;
        }
        nullable = true;
        break;
    case QOP_ADD:
    case QOP_SUB:
        if (r.id == BASALT_QUERY_TYPE_DECIMAL) {
            int p = r.precision + 1;
            int maxw = as_decimal(a).precision > as_decimal(c).precision ? as_decimal(a).precision
                                                                         : as_decimal(c).precision;
            if (p > 18 && maxw <= 18)
                p = 18; /* 64-bit inputs stay 64-bit, with an overflow check */
            r.precision = (int8_t)(p > 38 ? 38 : p);
            types[0] = basalt_query_type_decimal(as_decimal(a).precision - as_decimal(a).scale + r.scale, r.scale);
            types[1] = basalt_query_type_decimal(as_decimal(c).precision - as_decimal(c).scale + r.scale, r.scale);
            if (types[0].precision > 38 || types[1].precision > 38)
                types[0] = types[1] = r;
        } else {
            types[0] = types[1] = r;
        }
        break;
    case QOP_MUL:
        if (r.id == BASALT_QUERY_TYPE_DECIMAL) {
            struct basalt_query_type da = as_decimal(a), dc = as_decimal(c);
            int p = da.precision + dc.precision, s = da.scale + dc.scale;
            if (s > 38)
                return basalt_qnode_error(b, BASALT_UNSUPPORTED, err,
                                   "Needed scale %d to accurately represent the multiplication "
                                   "result, but this is out of range of the DECIMAL type", s);
            /* Inputs that fit 64 bits multiply into DECIMAL(18, s) with an
             * overflow check rather than widening (DuckDB's rule). */
            int maxw = da.precision > dc.precision ? da.precision : dc.precision;
            if (p > 18 && maxw <= 18 && s < 18)
                p = 18;
            r = basalt_query_type_decimal(p > 38 ? 38 : p, s);
            types[0] = da;
            types[1] = dc;
        } else {
            types[0] = types[1] = r;
        }
        break;
    default:
        types[0] = types[1] = r;
    }
    return make_call(b, f, op, args, 2, types, r, nullable, out, err);
}

static basalt_status r_compare(struct basalt_qexpr_builder *b, const struct qfunc *f,
                               struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                               struct basalt_error *err)
{
    struct basalt_query_type r, types[2];
    (void)n;
    if (!operand_type(args[0], args[0]->type, args[1], args[1]->type, &r) ||
        r.id == BASALT_QUERY_TYPE_INTERVAL)
        return no_overload(b, f, args, 2, err);
    if (r.id == BASALT_QUERY_TYPE_NULL)
        r = T(INT32);
    types[0] = types[1] = r;
    return make_call(b, f, f->op, args, 2, types, T(BOOL), false, out, err);
}

/* DECIMAL results keep their width; integers and floats as DuckDB types them. */
static basalt_status r_math(struct basalt_qexpr_builder *b, const struct qfunc *f,
                            struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                            struct basalt_error *err)
{
    struct basalt_query_type t = args[0]->type, types[2];
    if (t.id == BASALT_QUERY_TYPE_NULL)
        t = dbl();
    if (!basalt_qtype_is_numeric(t.id))
        return no_overload(b, f, args, n, err);
    switch (f->op) {
    case QOP_ABS:
        if (n != 1)
            return no_overload(b, f, args, n, err);
        return make_call(b, f, f->op, args, 1, &t, t, false, out, err);
    case QOP_SIGN:
        if (n != 1)
            return no_overload(b, f, args, n, err);
        return make_call(b, f, f->op, args, 1, &t, T(INT8), false, out, err);
    case QOP_FLOOR:
    case QOP_CEIL:
    case QOP_TRUNC:
        if (n != 1)
            return no_overload(b, f, args, n, err);
        if (t.id == BASALT_QUERY_TYPE_DECIMAL)
            return make_call(b, f, f->op, args, 1, &t, basalt_query_type_decimal(t.precision, 0),
                             false, out, err);
        if (basalt_qtype_is_int(t.id) && f->op == QOP_TRUNC)
            return make_call(b, f, f->op, args, 1, &t, t, false, out, err);
        if (t.id != BASALT_QUERY_TYPE_FLOAT)
            t = dbl();
        return make_call(b, f, f->op, args, 1, &t, t, false, out, err);
    case QOP_ROUND: {
        if (n == 2) {
            if (!basalt_qtype_is_int(args[1]->type.id) && args[1]->type.id != BASALT_QUERY_TYPE_NULL)
                return no_overload(b, f, args, n, err);
            types[1] = T(INT32);
        }
        if (t.id == BASALT_QUERY_TYPE_DECIMAL) {
            int s = 0;
            if (n == 2) {
                if (args[1]->kind != QN_CONST || args[1]->value.is_null)
                    return basalt_qnode_error(b, BASALT_UNSUPPORTED, err,
                                       "round(DECIMAL, n) needs a constant n");
                s = (int)args[1]->value.v.i;
                if (s < 0)
                    s = 0;
                if (s > t.scale)
                    s = t.scale;
            }
            types[0] = t;
            struct basalt_qexpr *e;
            basalt_status st = make_call(b, f, f->op, args, n, types,
                                         basalt_query_type_decimal(t.precision, s), false, &e, err);
            if (st == BASALT_OK)
                *out = e;
            return st;
        }
        if (basalt_qtype_is_int(t.id)) {
            types[0] = t;
            return make_call(b, f, f->op, args, n, types, t, false, out, err);
        }
        types[0] = t.id == BASALT_QUERY_TYPE_FLOAT ? t : dbl();
        return make_call(b, f, f->op, args, n, types, types[0], false, out, err);
    }
    case QOP_POW:
    case QOP_ATAN2:
    case QOP_LOG_BASE:
        if (n != 2 || (!basalt_qtype_is_numeric(args[1]->type.id) &&
                       args[1]->type.id != BASALT_QUERY_TYPE_NULL))
            return no_overload(b, f, args, n, err);
        types[0] = types[1] = dbl();
        return make_call(b, f, f->op, args, 2, types, dbl(), false, out, err);
    default: /* sqrt ln log10 exp log2 cbrt degrees radians even, the trigonometric ones */
        if (n != 1)
            return no_overload(b, f, args, n, err);
        types[0] = dbl();
        return make_call(b, f, f->op, args, 1, types, dbl(), false, out, err);
    }
}

static struct basalt_query_type vc(void) { return T(STRING); }

static basalt_status r_string(struct basalt_qexpr_builder *b, const struct qfunc *f,
                              struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                              struct basalt_error *err)
{
    struct basalt_query_type types[QMAX_ARGS];
    for (int i = 0; i < n; i++) {
        enum basalt_query_type_id id = args[i]->type.id;
        if (id != BASALT_QUERY_TYPE_STRING && id != BASALT_QUERY_TYPE_NULL)
            return no_overload(b, f, args, n, err);
        types[i] = vc();
    }
    struct basalt_query_type r = vc();
    switch (f->op) {
    case QOP_LENGTH: r = T(INT64); break;
    case QOP_STARTS_WITH: case QOP_ENDS_WITH: case QOP_CONTAINS: case QOP_REGEXP:
        r = T(BOOL);
        break;
    default: break;
    }
    struct basalt_qexpr *e;
    basalt_status st = make_call(b, f, f->op, args, n, types, r, false, &e, err);
    if (st == BASALT_OK && f->op == QOP_REGEXP && e->kind == QN_CALL &&
        (e->args[1]->kind != QN_CONST))
        return basalt_qnode_error(b, BASALT_UNSUPPORTED, err, "regexp_matches needs a constant pattern");
    if (st == BASALT_OK)
        *out = e;
    return st;
}

static basalt_status r_substring(struct basalt_qexpr_builder *b, const struct qfunc *f,
                                 struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                                 struct basalt_error *err)
{
    struct basalt_query_type types[3] = {vc(), T(INT64), T(INT64)};
    if (args[0]->type.id != BASALT_QUERY_TYPE_STRING && args[0]->type.id != BASALT_QUERY_TYPE_NULL)
        return no_overload(b, f, args, n, err);
    for (int i = 1; i < n; i++)
        if (!basalt_qtype_is_int(args[i]->type.id) && args[i]->type.id != BASALT_QUERY_TYPE_NULL)
            return no_overload(b, f, args, n, err);
    return make_call(b, f, QOP_SUBSTRING, args, n, types, vc(), false, out, err);
}

static basalt_status r_concat(struct basalt_qexpr_builder *b, const struct qfunc *f,
                              struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                              struct basalt_error *err)
{
    struct basalt_query_type types[QMAX_ARGS];
    if (n > QMAX_ARGS)
        return basalt_qnode_error(b, BASALT_LIMIT, err, "'%s' takes at most %d arguments", f->name,
                           QMAX_ARGS);
    for (int i = 0; i < n; i++) {
        if (args[i]->type.id == BASALT_QUERY_TYPE_BINARY)
            return no_overload(b, f, args, n, err);
        types[i] = vc();
    }
    struct basalt_qexpr *e;
    /* concat() skips NULLs; || is NULL when an argument is. */
    bool is_op = strcmp(f->name, "||") == 0, fold = b->fold;
    b->fold = false;
    basalt_status st = make_call(b, f, QOP_CONCAT, args, n, types, vc(), false, &e, err);
    b->fold = fold;
    if (st != BASALT_OK)
        return st;
    if (e->kind == QN_CALL) {
        e->aux = is_op;
        if (!is_op)
            e->nullable = false;
        return finish(b, e, out, err);
    }
    *out = e;
    return BASALT_OK;
}

static basalt_status r_like(struct basalt_qexpr_builder *b, const struct qfunc *f,
                            struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                            struct basalt_error *err)
{
    struct basalt_query_type types[2] = {vc(), vc()};
    int esc = -1;
    for (int i = 0; i < 2; i++)
        if (args[i]->type.id != BASALT_QUERY_TYPE_STRING && args[i]->type.id != BASALT_QUERY_TYPE_NULL)
            return no_overload(b, f, args, n, err);
    if (n == 3) {
        if (args[2]->kind != QN_CONST || args[2]->type.id != BASALT_QUERY_TYPE_STRING)
            return basalt_qnode_error(b, BASALT_UNSUPPORTED, err, "'%s': ESCAPE must be a constant string",
                               f->name);
        if (!args[2]->value.is_null) {
            if (args[2]->value.v.str.len > 1)
                return basalt_qnode_error(b, BASALT_INVALID_ARG, err,
                                   "Invalid escape string. Escape string must be empty or one "
                                   "character.");
            if (args[2]->value.v.str.len == 1)
                esc = (unsigned char)args[2]->value.v.str.ptr[0];
        }
    }
    bool neg = strncmp(f->name, "not_", 4) == 0, fold = b->fold;
    struct basalt_qexpr *e;
    b->fold = false; /* fold once the escape and negation are set */
    basalt_status st = make_call(b, f, f->op, args, 2, types, T(BOOL), false, &e, err);
    b->fold = fold;
    if (st != BASALT_OK)
        return st;
    if (e->kind == QN_CALL) {
        e->aux = esc;
        e->negate = neg;
        return finish(b, e, out, err);
    }
    *out = e;
    return BASALT_OK;
}

/* ------------------------------------------------------------------ more string functions */

/* DuckDB's signatures of the functions of k_string_more.c: S VARCHAR, I
 * INTEGER, B BIGINT. An integer argument takes the integer types DuckDB
 * casts to it implicitly and nothing else (left('abc', 2.0) and chr(BIGINT)
 * have no overload there either). */
static const struct {
    enum qop op;
    const char *args;
    enum basalt_query_type_id result;
} str_sigs[] = {
    {QOP_LEFT, "SB", BASALT_QUERY_TYPE_STRING},
    {QOP_RIGHT, "SB", BASALT_QUERY_TYPE_STRING},
    {QOP_LPAD, "SIS", BASALT_QUERY_TYPE_STRING},
    {QOP_RPAD, "SIS", BASALT_QUERY_TYPE_STRING},
    {QOP_STRPOS, "SS", BASALT_QUERY_TYPE_INT64},
    {QOP_REVERSE, "S", BASALT_QUERY_TYPE_STRING},
    {QOP_REPEAT, "SB", BASALT_QUERY_TYPE_STRING},
    {QOP_SPLIT_PART, "SSB", BASALT_QUERY_TYPE_STRING},
    {QOP_ASCII, "S", BASALT_QUERY_TYPE_INT32},
    {QOP_CHR, "I", BASALT_QUERY_TYPE_STRING},
    {QOP_TRANSLATE, "SSS", BASALT_QUERY_TYPE_STRING},
    {QOP_REGEXP_REPLACE, "SSSS", BASALT_QUERY_TYPE_STRING},
    {QOP_REGEXP_EXTRACT, "SSIS", BASALT_QUERY_TYPE_STRING},
};

static bool takes(char want, enum basalt_query_type_id id)
{
    if (id == BASALT_QUERY_TYPE_NULL)
        return true;
    if (want == 'S')
        return id == BASALT_QUERY_TYPE_STRING;
    if (id == BASALT_QUERY_TYPE_UINT8 || id == BASALT_QUERY_TYPE_UINT16)
        return true;
    if (want == 'I')
        return int_rank(id) >= 1 && int_rank(id) <= 3;
    return int_rank(id) >= 1 || id == BASALT_QUERY_TYPE_UINT32;
}

/* regexp_replace and regexp_extract: the pattern a constant that compiles
 * (checked here, as DuckDB checks it when it binds); the options and group
 * constants too, which ride in the call's aux (QRE_*). */
static basalt_status r_regexp(struct basalt_qexpr_builder *b, const struct qfunc *f,
                              struct basalt_qexpr **args, int n,
                              const struct basalt_query_type *types, struct basalt_qexpr **out,
                              struct basalt_error *err)
{
    bool extract = f->op == QOP_REGEXP_EXTRACT;
    const struct basalt_qexpr *opt = n == 4 ? args[3] : NULL, *grp = extract && n >= 3 ? args[2] : NULL;
    int32_t aux = 0;
    if (opt && opt->kind != QN_CONST)
        return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "Regex options field must be a constant");
    if (opt && opt->value.is_null) {
        if (extract)
            return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "Regex options field must not be NULL");
        return basalt_qexpr_null(b, vc(), out, err); /* DuckDB's answer, whatever the string */
    }
    for (size_t i = 0; opt && i < opt->value.v.str.len; i++) {
        char c = opt->value.v.str.ptr[i];
        if (c == 'c' || c == 'i')
            aux = c == 'i' ? aux | QRE_ICASE : aux & ~QRE_ICASE;
        else if (c == 's' || c == 'm' || c == 'n' || c == 'p')
            aux = c == 's' ? aux | QRE_DOT_NL : aux & ~QRE_DOT_NL;
        else if (c == 'l')
            aux |= QRE_LITERAL;
        else if (c == 'g' && !extract)
            aux |= QRE_GLOBAL;
        else if (c == 'g')
            return basalt_qnode_error(b, BASALT_INVALID_ARG, err,
                                      "Option 'g' (global replace) is only valid for regexp_replace");
        else if (c != ' ' && c != '\t' && c != '\n')
            return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "Unrecognized Regex option %c", c);
    }
    if (grp && grp->kind != QN_CONST)
        return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "Group specification field must be a constant!");
    if (grp && grp->value.is_null) {
        aux |= QRE_GROUP_NULL;
    } else if (grp) {
        int64_t g = basalt_qtype_is_unsigned(grp->type.id) ? (int64_t)grp->value.v.u : grp->value.v.i;
        if (g < 0 || g > 9)
            return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "Group index must be between 0 and 9!");
        aux |= (int32_t)g;
    }
    const struct basalt_qexpr *pat = args[1];
    char msg[256];
    if (pat->kind != QN_CONST)
        return basalt_qnode_error(b, BASALT_UNSUPPORTED, err, "'%s' needs a constant pattern", f->name);
    if (!pat->value.is_null &&
        !basalt_qregex_check(pat->value.v.str.ptr, pat->value.v.str.len, aux, msg, sizeof msg))
        return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "%s: invalid pattern '%.*s': %s", f->name,
                                  (int)pat->value.v.str.len, pat->value.v.str.ptr, msg);
    bool fold = b->fold;
    struct basalt_qexpr *e;
    b->fold = false; /* fold once the options are set */
    basalt_status st = make_call(b, f, f->op, args, extract ? 2 : 3, types, vc(), false, &e, err);
    b->fold = fold;
    if (st != BASALT_OK)
        return st;
    if (e->kind == QN_CALL) {
        e->aux = aux;
        return finish(b, e, out, err);
    }
    *out = e;
    return BASALT_OK;
}

static basalt_status r_strfn(struct basalt_qexpr_builder *b, const struct qfunc *f,
                             struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                             struct basalt_error *err)
{
    size_t k = 0;
    while (str_sigs[k].op != f->op)
        k++;
    struct basalt_query_type types[4];
    for (int i = 0; i < n; i++) {
        char want = str_sigs[k].args[i];
        if (!takes(want, args[i]->type.id))
            return no_overload(b, f, args, n, err);
        types[i] = want == 'S' ? vc() : want == 'I' ? T(INT32) : T(INT64);
    }
    if (f->op == QOP_REGEXP_REPLACE || f->op == QOP_REGEXP_EXTRACT)
        return r_regexp(b, f, args, n, types, out, err);
    return make_call(b, f, f->op, args, n, types, basalt_query_type_make(str_sigs[k].result), false,
                     out, err);
}

/* concat_ws(sep, ...): the others cast to VARCHAR. NULLs are skipped, so a
 * constant NULL is left out, and the call is NULL only when sep is. */
static basalt_status r_concat_ws(struct basalt_qexpr_builder *b, const struct qfunc *f,
                                 struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                                 struct basalt_error *err)
{
    if (!takes('S', args[0]->type.id))
        return no_overload(b, f, args, n, err);
    if (args[0]->kind == QN_CONST && args[0]->value.is_null)
        return basalt_qexpr_null(b, vc(), out, err);
    struct basalt_qexpr *kept[QMAX_ARGS];
    struct basalt_query_type types[QMAX_ARGS];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (i == 0 || args[i]->kind != QN_CONST || !args[i]->value.is_null) {
            kept[k] = args[i];
            types[k++] = vc();
        }
    bool fold = b->fold;
    struct basalt_qexpr *e;
    b->fold = false; /* fold once nullable is set */
    basalt_status st = make_call(b, f, QOP_CONCAT_WS, kept, k, types, vc(), false, &e, err);
    b->fold = fold;
    if (st != BASALT_OK)
        return st;
    if (e->kind == QN_CALL) {
        e->nullable = e->args[0]->nullable;
        return finish(b, e, out, err);
    }
    *out = e;
    return BASALT_OK;
}

static const struct {
    const char *name;
    enum qpart part;
} part_names[] = {
    {"year", QP_YEAR}, {"years", QP_YEAR}, {"quarter", QP_QUARTER}, {"month", QP_MONTH},
    {"months", QP_MONTH}, {"week", QP_WEEK}, {"day", QP_DAY}, {"days", QP_DAY},
    {"hour", QP_HOUR}, {"hours", QP_HOUR}, {"minute", QP_MINUTE}, {"minutes", QP_MINUTE},
    {"second", QP_SECOND}, {"seconds", QP_SECOND}, {"millisecond", QP_MILLISECOND},
    {"milliseconds", QP_MILLISECOND}, {"microsecond", QP_MICROSECOND},
    {"microseconds", QP_MICROSECOND}, {"dow", QP_DOW}, {"dayofweek", QP_DOW},
    {"isodow", QP_ISODOW}, {"doy", QP_DOY}, {"dayofyear", QP_DOY}, {"epoch", QP_EPOCH},
    {"decade", QP_DECADE}, {"century", QP_CENTURY}, {"millennium", QP_MILLENNIUM},
    {"weekofyear", QP_WEEK},
};

/* The part a constant string names, or -1. */
static int find_part(const struct basalt_qexpr *name)
{
    for (size_t i = 0; i < sizeof part_names / sizeof part_names[0]; i++)
        if (strlen(part_names[i].name) == name->value.v.str.len &&
            strncasecmp(part_names[i].name, name->value.v.str.ptr, name->value.v.str.len) == 0)
            return (int)part_names[i].part;
    return -1;
}

static basalt_status r_date(struct basalt_qexpr_builder *b, const struct qfunc *f,
                            struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                            struct basalt_error *err)
{
    struct basalt_query_type types[2];
    if (f->op == QOP_STRFTIME) {
        if ((args[0]->type.id != BASALT_QUERY_TYPE_DATE &&
             args[0]->type.id != BASALT_QUERY_TYPE_TIMESTAMP) ||
            args[1]->kind != QN_CONST || args[1]->type.id != BASALT_QUERY_TYPE_STRING)
            return no_overload(b, f, args, n, err);
        types[0] = args[0]->type.id == BASALT_QUERY_TYPE_DATE ? T(TIMESTAMP) : fine(args[0]->type);
        types[1] = vc();
        return make_call(b, f, f->op, args, 2, types, vc(), false, out, err);
    }
    if (args[0]->kind != QN_CONST || args[0]->type.id != BASALT_QUERY_TYPE_STRING ||
        args[0]->value.is_null)
        return basalt_qnode_error(b, BASALT_UNSUPPORTED, err, "'%s' needs a constant part name", f->name);
    enum basalt_query_type_id id = args[1]->type.id;
    bool time_of_day = id == BASALT_QUERY_TYPE_TIME && f->op == QOP_DATE_PART;
    if (id != BASALT_QUERY_TYPE_DATE && id != BASALT_QUERY_TYPE_TIMESTAMP && !time_of_day)
        return no_overload(b, f, args, n, err);
    int part = find_part(args[0]);
    if (part < 0)
        return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "'%s': unknown date part '%.*s'", f->name,
                           (int)args[0]->value.v.str.len, args[0]->value.v.str.ptr);
    if (time_of_day)
        return basalt_qbind_time_part(b, f->name, part, args[1], out, err);
    struct basalt_qexpr *e = node(b, QN_CALL, 1);
    NOMEM_IF(!e);
    e->op = f->op;
    e->name = f->name;
    e->aux = part;
    e->nullable = args[1]->nullable;
    struct basalt_query_type in = id == BASALT_QUERY_TYPE_DATE ? T(TIMESTAMP) : fine(args[1]->type);
    basalt_status st = basalt_qbind_cast(b, args[1], in, false, true, &e->args[0], err);
    if (st != BASALT_OK)
        return st;
    if (f->op == QOP_DATE_PART)
        e->type = part == QP_EPOCH ? dbl() : T(INT64);
    else {
        if (part == QP_DOW || part == QP_ISODOW || part == QP_DOY || part == QP_EPOCH)
            return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "date_trunc: unsupported part '%.*s'",
                               (int)args[0]->value.v.str.len, args[0]->value.v.str.ptr);
        e->type = in;
    }
    return finish(b, e, out, err);
}

/* ------------------------------------------------------------------ more dates, times, math */

/* make_call with e->aux set before the call folds (a date part, a unit,
 * try_strptime's flag). */
static basalt_status make_call_aux(struct basalt_qexpr_builder *b, const struct qfunc *f,
                                   enum qop op, struct basalt_qexpr **args, int n,
                                   const struct basalt_query_type *types,
                                   struct basalt_query_type result, bool nullable, int32_t aux,
                                   struct basalt_qexpr **out, struct basalt_error *err)
{
    struct basalt_qexpr *cast[QMAX_ARGS], *e;
    for (int i = 0; i < n; i++) {
        basalt_status st = basalt_qbind_cast(b, args[i], types[i], false, true, &cast[i], err);
        if (st != BASALT_OK)
            return st;
    }
    bool fold = b->fold;
    b->fold = false;
    basalt_status st = make_call(b, f, op, cast, n, NULL, result, nullable, &e, err);
    b->fold = fold;
    if (st != BASALT_OK)
        return st;
    if (e->kind != QN_CALL) { /* NULL */
        *out = e;
        return BASALT_OK;
    }
    e->aux = aux;
    return finish(b, e, out, err);
}

/* year(x), dayofweek(x), epoch(x) ...: date_part with the function's name
 * as the part; dayname(x) and monthname(x): strftime's %A and %B. */
static basalt_status r_part_fn(struct basalt_qexpr_builder *b, const struct qfunc *f,
                               struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                               struct basalt_error *err)
{
    enum basalt_query_type_id id = args[0]->type.id;
    bool part = f->op == QOP_DATE_PART;
    if (id != BASALT_QUERY_TYPE_DATE && id != BASALT_QUERY_TYPE_TIMESTAMP &&
        !(id == BASALT_QUERY_TYPE_TIME && part))
        return no_overload(b, f, args, n, err);
    const char *s = part ? f->name : strcmp(f->name, "dayname") == 0 ? "%A" : "%B";
    struct basalt_qexpr *lit, *pair[2];
    basalt_status st = basalt_qexpr_string(b, s, strlen(s), &lit, err);
    if (st != BASALT_OK)
        return st;
    pair[part ? 0 : 1] = lit;
    pair[part ? 1 : 0] = args[0];
    return basalt_qexpr_call(b, part ? "date_part" : "strftime", pair, 2, out, err);
}

/* An argument DuckDB takes as BIGINT: a signed integer, an unsigned one
 * narrower than 64 bits, or NULL. */
static bool bigint_arg(const struct basalt_qexpr *e)
{
    enum basalt_query_type_id id = e->type.id;
    return id == BASALT_QUERY_TYPE_NULL ||
           (basalt_qtype_is_int(id) && id != BASALT_QUERY_TYPE_UINT64);
}

static bool double_arg(const struct basalt_qexpr *e)
{
    return basalt_qtype_is_numeric(e->type.id) || e->type.id == BASALT_QUERY_TYPE_NULL;
}

/* make_date(y, m, d), make_timestamp(y, mo, d, h, mi, seconds),
 * make_timestamp(micros), last_day(d), to_timestamp(seconds) and epoch_ms
 * both ways: epoch_ms(ts) in milliseconds, epoch_ms(ms) a TIMESTAMP. */
static basalt_status r_time_more(struct basalt_qexpr_builder *b, const struct qfunc *f,
                                 struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                                 struct basalt_error *err)
{
    struct basalt_query_type types[6];
    enum basalt_query_type_id id = args[0]->type.id;
    bool temporal = id == BASALT_QUERY_TYPE_DATE || id == BASALT_QUERY_TYPE_TIMESTAMP;
    for (int i = 0; i < 6; i++)
        types[i] = T(INT64);
    switch (f->op) {
    case QOP_LAST_DAY:
        if (!temporal && id != BASALT_QUERY_TYPE_NULL)
            return no_overload(b, f, args, n, err);
        types[0] = T(DATE);
        return make_call(b, f, f->op, args, 1, types, T(DATE), false, out, err);
    case QOP_EPOCH_MS:
        if (temporal) {
            types[0] = id == BASALT_QUERY_TYPE_DATE ? T(TIMESTAMP) : fine(args[0]->type);
            return make_call(b, f, f->op, args, 1, types, T(INT64), false, out, err);
        }
        if (!bigint_arg(args[0]))
            return no_overload(b, f, args, n, err);
        return make_call_aux(b, f, QOP_FROM_EPOCH, args, 1, types, T(TIMESTAMP), false, 1000, out,
                             err);
    case QOP_FROM_EPOCH: /* to_timestamp */
        if (!double_arg(args[0]))
            return no_overload(b, f, args, n, err);
        types[0] = dbl();
        return make_call(b, f, f->op, args, 1, types, basalt_query_type_timestamp(false, true),
                         false, out, err);
    case QOP_MAKE_TIMESTAMP:
        if (n == 1 && bigint_arg(args[0]))
            return make_call_aux(b, f, QOP_FROM_EPOCH, args, 1, types, T(TIMESTAMP), false, 1, out,
                                 err);
        types[5] = dbl();
        for (int i = 0; i < n; i++)
            if (n != 6 || !(i == 5 ? double_arg(args[i]) : bigint_arg(args[i])))
                return no_overload(b, f, args, n, err);
        return make_call(b, f, f->op, args, 6, types, T(TIMESTAMP), false, out, err);
    default: /* make_date */
        for (int i = 0; i < n; i++)
            if (!bigint_arg(args[i]))
                return no_overload(b, f, args, n, err);
        return make_call(b, f, f->op, args, 3, types, T(DATE), false, out, err);
    }
}

/* date_diff / date_sub (part, start, end) over DATEs and TIMESTAMPs, both
 * taken in microseconds; a NULL part makes NULL, as in DuckDB. */
static basalt_status r_date_diff(struct basalt_qexpr_builder *b, const struct qfunc *f,
                                 struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                                 struct basalt_error *err)
{
    const struct basalt_qexpr *name = args[0];
    if (name->kind != QN_CONST ||
        (name->type.id != BASALT_QUERY_TYPE_STRING && name->type.id != BASALT_QUERY_TYPE_NULL))
        return basalt_qnode_error(b, BASALT_UNSUPPORTED, err, "'%s' needs a constant part name", f->name);
    bool tz = false;
    int times = 0, dates = 0;
    for (int i = 1; i < 3; i++) {
        enum basalt_query_type_id id = args[i]->type.id;
        if (id != BASALT_QUERY_TYPE_DATE && id != BASALT_QUERY_TYPE_TIMESTAMP &&
            id != BASALT_QUERY_TYPE_TIME && id != BASALT_QUERY_TYPE_NULL)
            return no_overload(b, f, args, n, err);
        tz |= id == BASALT_QUERY_TYPE_TIMESTAMP && args[i]->type.tz;
        times += id == BASALT_QUERY_TYPE_TIME;
        dates += id == BASALT_QUERY_TYPE_DATE || id == BASALT_QUERY_TYPE_TIMESTAMP;
    }
    if (times && dates) /* DuckDB has TIME with TIME only */
        return no_overload(b, f, args, n, err);
    if (name->value.is_null)
        return basalt_qexpr_null(b, T(INT64), out, err);
    int part = find_part(name);
    if (part < 0)
        return basalt_qnode_error(b, BASALT_INVALID_ARG, err, "'%s': unknown date part '%.*s'", f->name,
                                  (int)name->value.v.str.len, name->value.v.str.ptr);
    if (times) { /* on one day, as TIMESTAMPs the parts of a time of day come out alike */
        basalt_status st = basalt_qbind_time_at_epoch(b, f->name, part, &args[1], err);
        if (st == BASALT_OK)
            st = basalt_qbind_time_at_epoch(b, f->name, part, &args[2], err);
        if (st != BASALT_OK)
            return st;
    }
    struct basalt_query_type types[2];
    types[0] = types[1] = basalt_query_type_timestamp(false, tz);
    return make_call_aux(b, f, f->op, args + 1, 2, types, T(INT64), false, part, out, err);
}

/* strptime(s, format) and try_strptime, whose failures are NULL: a constant
 * format, checked here; TIMESTAMP, _NS for %n, WITH TIME ZONE for %z. */
static basalt_status r_strptime(struct basalt_qexpr_builder *b, const struct qfunc *f,
                                struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                                struct basalt_error *err)
{
    const struct basalt_qexpr *fmt = args[1];
    bool ns = false, tz = false, try_ = strncmp(f->name, "try_", 4) == 0;
    if (fmt->kind != QN_CONST)
        return basalt_qnode_error(b, BASALT_UNSUPPORTED, err, "'%s' needs a constant format", f->name);
    for (int i = 0; i < 2; i++)
        if (args[i]->type.id != BASALT_QUERY_TYPE_STRING && args[i]->type.id != BASALT_QUERY_TYPE_NULL)
            return no_overload(b, f, args, n, err);
    char bad;
    if (!fmt->value.is_null && fmt->type.id == BASALT_QUERY_TYPE_STRING &&
        !basalt_qstrptime_format(fmt->value.v.str.ptr, fmt->value.v.str.len, &ns, &tz, &bad)) {
        if (bad)
            return basalt_qnode_error(b, BASALT_INVALID_ARG, err,
                                      "'%s': unsupported format specifier '%%%c'", f->name, bad);
        return basalt_qnode_error(b, BASALT_INVALID_ARG, err,
                                  "'%s': empty format or a trailing '%%'", f->name);
    }
    struct basalt_query_type types[2] = {vc(), vc()};
    return make_call_aux(b, f, f->op, args, 2, types, basalt_query_type_timestamp(ns, tz), try_,
                         try_, out, err);
}

static basalt_status unify(struct basalt_qexpr_builder *b, struct basalt_qexpr *const *vals, int n,
                           const char *what, struct basalt_query_type *out,
                           struct basalt_error *err);

/* greatest / least: the arguments cast to their common type; constant
 * NULLs dropped, as DuckDB skips NULLs (NULL only when all are). */
static basalt_status r_extreme(struct basalt_qexpr_builder *b, const struct qfunc *f,
                               struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                               struct basalt_error *err)
{
    struct basalt_query_type t, types[QMAX_ARGS];
    basalt_status st = unify(b, args, n, f->name, &t, err);
    if (st != BASALT_OK)
        return st;
    if (t.id == BASALT_QUERY_TYPE_INTERVAL)
        return no_overload(b, f, args, n, err);
    if (t.id == BASALT_QUERY_TYPE_NULL)
        t = T(INT32);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (args[i]->kind != QN_CONST || !args[i]->value.is_null) {
            args[k] = args[i];
            types[k++] = t;
        }
    if (k == 0)
        return basalt_qexpr_null(b, t, out, err);
    return make_call(b, f, f->op, args, k, types, t, false, out, err);
}

static basalt_status r_pi(struct basalt_qexpr_builder *b, const struct qfunc *f,
                          struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                          struct basalt_error *err)
{
    (void)f, (void)args, (void)n;
    return basalt_qexpr_double(b, 3.141592653589793, out, err);
}

/* isnan, isinf, isfinite of a number; gcd and lcm of BIGINTs; bit_count of
 * an integer in its own width; xor of two integers in their common type. */
static basalt_status r_math_more(struct basalt_qexpr_builder *b, const struct qfunc *f,
                                 struct basalt_qexpr **args, int n, struct basalt_qexpr **out,
                                 struct basalt_error *err)
{
    struct basalt_query_type t = args[0]->type, types[2];
    switch (f->op) {
    case QOP_ISNAN: case QOP_ISINF: case QOP_ISFINITE:
        if (!double_arg(args[0]))
            return no_overload(b, f, args, n, err);
        types[0] = dbl();
        return make_call(b, f, f->op, args, 1, types, T(BOOL), false, out, err);
    case QOP_GCD: case QOP_LCM:
        if (!bigint_arg(args[0]) || !bigint_arg(args[1]))
            return no_overload(b, f, args, n, err);
        types[0] = types[1] = T(INT64);
        return make_call(b, f, f->op, args, 2, types, T(INT64), false, out, err);
    case QOP_BIT_COUNT:
        if (t.id == BASALT_QUERY_TYPE_NULL)
            t = T(INT32);
        if (!basalt_qtype_is_int(t.id))
            return no_overload(b, f, args, n, err);
        return make_call(b, f, f->op, args, 1, &t, T(INT8), false, out, err);
    default: /* xor */
        if (!operand_type(args[0], args[0]->type, args[1], args[1]->type, &t))
            return no_overload(b, f, args, n, err);
        if (t.id == BASALT_QUERY_TYPE_NULL)
            t = T(INT32);
        if (!basalt_qtype_is_int(t.id))
            return no_overload(b, f, args, n, err);
        types[0] = types[1] = t;
        return make_call(b, f, f->op, args, 2, types, t, false, out, err);
    }
}

static const struct qfunc functions[] = {
    {"+", QOP_ADD, r_arith, 1, 2}, {"-", QOP_SUB, r_arith, 1, 2},
    {"*", QOP_MUL, r_arith, 2, 2}, {"/", QOP_DIV, r_arith, 2, 2},
    {"//", QOP_IDIV, r_arith, 2, 2}, {"%", QOP_MOD, r_arith, 2, 2},
    {"=", QOP_EQ, r_compare, 2, 2}, {"<>", QOP_NE, r_compare, 2, 2},
    {"!=", QOP_NE, r_compare, 2, 2}, {"<", QOP_LT, r_compare, 2, 2},
    {"<=", QOP_LE, r_compare, 2, 2}, {">", QOP_GT, r_compare, 2, 2},
    {">=", QOP_GE, r_compare, 2, 2},
    {"abs", QOP_ABS, r_math, 1, 1}, {"round", QOP_ROUND, r_math, 1, 2},
    {"floor", QOP_FLOOR, r_math, 1, 1}, {"ceil", QOP_CEIL, r_math, 1, 1},
    {"ceiling", QOP_CEIL, r_math, 1, 1}, {"trunc", QOP_TRUNC, r_math, 1, 1},
    {"sqrt", QOP_SQRT, r_math, 1, 1}, {"ln", QOP_LN, r_math, 1, 1},
    {"log10", QOP_LOG10, r_math, 1, 1}, {"exp", QOP_EXP, r_math, 1, 1},
    {"pow", QOP_POW, r_math, 2, 2}, {"power", QOP_POW, r_math, 2, 2},
    {"sign", QOP_SIGN, r_math, 1, 1},
    {"length", QOP_LENGTH, r_string, 1, 1}, {"lower", QOP_LOWER, r_string, 1, 1},
    {"upper", QOP_UPPER, r_string, 1, 1}, {"substring", QOP_SUBSTRING, r_substring, 2, 3},
    {"substr", QOP_SUBSTRING, r_substring, 2, 3},
    {"concat", QOP_CONCAT, r_concat, 1, QMAX_ARGS}, {"||", QOP_CONCAT, r_concat, 2, 2},
    {"trim", QOP_TRIM, r_string, 1, 2}, {"ltrim", QOP_LTRIM, r_string, 1, 2},
    {"rtrim", QOP_RTRIM, r_string, 1, 2}, {"replace", QOP_REPLACE, r_string, 3, 3},
    {"starts_with", QOP_STARTS_WITH, r_string, 2, 2}, {"prefix", QOP_STARTS_WITH, r_string, 2, 2},
    {"ends_with", QOP_ENDS_WITH, r_string, 2, 2}, {"suffix", QOP_ENDS_WITH, r_string, 2, 2},
    {"contains", QOP_CONTAINS, r_string, 2, 2},
    {"left", QOP_LEFT, r_strfn, 2, 2}, {"right", QOP_RIGHT, r_strfn, 2, 2},
    {"lpad", QOP_LPAD, r_strfn, 3, 3}, {"rpad", QOP_RPAD, r_strfn, 3, 3},
    {"strpos", QOP_STRPOS, r_strfn, 2, 2}, {"instr", QOP_STRPOS, r_strfn, 2, 2},
    {"position", QOP_STRPOS, r_strfn, 2, 2},
    {"reverse", QOP_REVERSE, r_strfn, 1, 1}, {"repeat", QOP_REPEAT, r_strfn, 2, 2},
    {"split_part", QOP_SPLIT_PART, r_strfn, 3, 3}, {"ascii", QOP_ASCII, r_strfn, 1, 1},
    {"chr", QOP_CHR, r_strfn, 1, 1}, {"translate", QOP_TRANSLATE, r_strfn, 3, 3},
    {"concat_ws", QOP_CONCAT_WS, r_concat_ws, 2, QMAX_ARGS},
    {"regexp_replace", QOP_REGEXP_REPLACE, r_strfn, 3, 4},
    {"regexp_extract", QOP_REGEXP_EXTRACT, r_strfn, 2, 4},
    {"like", QOP_LIKE, r_like, 2, 3}, {"not_like", QOP_LIKE, r_like, 2, 3},
    {"ilike", QOP_ILIKE, r_like, 2, 3}, {"not_ilike", QOP_ILIKE, r_like, 2, 3},
    {"date_part", QOP_DATE_PART, r_date, 2, 2}, {"extract", QOP_DATE_PART, r_date, 2, 2},
    {"datepart", QOP_DATE_PART, r_date, 2, 2}, {"date_trunc", QOP_DATE_TRUNC, r_date, 2, 2},
    {"datetrunc", QOP_DATE_TRUNC, r_date, 2, 2}, {"strftime", QOP_STRFTIME, r_date, 2, 2},
    {"year", QOP_DATE_PART, r_part_fn, 1, 1}, {"quarter", QOP_DATE_PART, r_part_fn, 1, 1},
    {"month", QOP_DATE_PART, r_part_fn, 1, 1}, {"day", QOP_DATE_PART, r_part_fn, 1, 1},
    {"hour", QOP_DATE_PART, r_part_fn, 1, 1}, {"minute", QOP_DATE_PART, r_part_fn, 1, 1},
    {"second", QOP_DATE_PART, r_part_fn, 1, 1}, {"week", QOP_DATE_PART, r_part_fn, 1, 1},
    {"weekofyear", QOP_DATE_PART, r_part_fn, 1, 1},
    {"dayofweek", QOP_DATE_PART, r_part_fn, 1, 1}, {"isodow", QOP_DATE_PART, r_part_fn, 1, 1},
    {"dayofyear", QOP_DATE_PART, r_part_fn, 1, 1}, {"epoch", QOP_DATE_PART, r_part_fn, 1, 1},
    {"dayname", QOP_STRFTIME, r_part_fn, 1, 1}, {"monthname", QOP_STRFTIME, r_part_fn, 1, 1},
    {"epoch_ms", QOP_EPOCH_MS, r_time_more, 1, 1}, {"to_timestamp", QOP_FROM_EPOCH, r_time_more, 1, 1},
    {"make_date", QOP_MAKE_DATE, r_time_more, 3, 3},
    {"make_timestamp", QOP_MAKE_TIMESTAMP, r_time_more, 1, 6},
    {"last_day", QOP_LAST_DAY, r_time_more, 1, 1},
    {"date_diff", QOP_DATE_DIFF, r_date_diff, 3, 3}, {"datediff", QOP_DATE_DIFF, r_date_diff, 3, 3},
    {"date_sub", QOP_DATE_SUB_PART, r_date_diff, 3, 3},
    {"datesub", QOP_DATE_SUB_PART, r_date_diff, 3, 3},
    {"date_add", QOP_ADD, r_arith, 2, 2}, /* DuckDB's alias of + */
    {"strptime", QOP_STRPTIME, r_strptime, 2, 2}, {"try_strptime", QOP_STRPTIME, r_strptime, 2, 2},
    {"greatest", QOP_GREATEST, r_extreme, 1, QMAX_ARGS}, {"least", QOP_LEAST, r_extreme, 1, QMAX_ARGS},
    {"pi", QOP_COUNT, r_pi, 0, 0}, /* a constant */
    {"log", QOP_LOG10, r_math, 1, 1}, {"log", QOP_LOG_BASE, r_math, 2, 2},
    {"log2", QOP_LOG2, r_math, 1, 1}, {"cbrt", QOP_CBRT, r_math, 1, 1},
    {"degrees", QOP_DEGREES, r_math, 1, 1}, {"radians", QOP_RADIANS, r_math, 1, 1},
    {"sin", QOP_SIN, r_math, 1, 1}, {"cos", QOP_COS, r_math, 1, 1}, {"tan", QOP_TAN, r_math, 1, 1},
    {"asin", QOP_ASIN, r_math, 1, 1}, {"acos", QOP_ACOS, r_math, 1, 1},
    {"atan", QOP_ATAN, r_math, 1, 1}, {"atan2", QOP_ATAN2, r_math, 2, 2},
    {"even", QOP_EVEN, r_math, 1, 1},
    {"isnan", QOP_ISNAN, r_math_more, 1, 1}, {"isinf", QOP_ISINF, r_math_more, 1, 1},
    {"isfinite", QOP_ISFINITE, r_math_more, 1, 1}, {"gcd", QOP_GCD, r_math_more, 2, 2},
    {"lcm", QOP_LCM, r_math_more, 2, 2}, {"bit_count", QOP_BIT_COUNT, r_math_more, 1, 1},
    {"xor", QOP_XOR, r_math_more, 2, 2},
};

/* ------------------------------------------------------------------ other files' resolvers */

basalt_status basalt_qbind_call(struct basalt_qexpr_builder *b, const char *name, enum qop op,
                                struct basalt_qexpr **args, int n, const struct basalt_query_type *types,
                                struct basalt_query_type result, bool nullable,
                                struct basalt_qexpr **out, struct basalt_error *err)
{
    struct qfunc f = {name, op, NULL, n, n};
    return make_call(b, &f, op, args, n, types, result, nullable, out, err);
}

basalt_status basalt_qbind_call_aux(struct basalt_qexpr_builder *b, const char *name, enum qop op,
                                    struct basalt_qexpr **args, int n,
                                    const struct basalt_query_type *types,
                                    struct basalt_query_type result, int32_t aux, bool negate,
                                    struct basalt_qexpr **out, struct basalt_error *err)
{
    struct qfunc f = {name, op, NULL, n, n};
    struct basalt_qexpr *e;
    bool fold = b->fold;
    b->fold = false; /* fold once aux and negate are set */
    basalt_status st = make_call(b, &f, op, args, n, types, result, false, &e, err);
    b->fold = fold;
    if (st != BASALT_OK)
        return st;
    if (e->kind != QN_CALL) {
        *out = e;
        return BASALT_OK;
    }
    e->aux = aux;
    e->negate = negate;
    return finish(b, e, out, err);
}

basalt_status basalt_qbind_list_call(struct basalt_qexpr_builder *b, const char *name, enum qop op,
                                     struct basalt_qexpr **args, int n,
                                     struct basalt_query_type result, struct basalt_qexpr **out,
                                     struct basalt_error *err)
{
    struct basalt_qexpr *e = node(b, QN_CALL, n);
    NOMEM_IF(!e);
    for (int i = 0; i < n; i++)
        e->args[i] = args[i];
    e->op = op;
    e->name = name;
    e->type = result;
    e->nullable = false;
    *out = e;
    return BASALT_OK;
}

basalt_status basalt_qbind_no_overload(struct basalt_qexpr_builder *b, const char *name,
                                       struct basalt_qexpr *const *args, int n, struct basalt_error *err)
{
    struct qfunc f = {name, QOP_COUNT, NULL, n, n};
    return no_overload(b, &f, args, n, err);
}

bool basalt_qbind_operand_type(const struct basalt_qexpr *x, const struct basalt_qexpr *y,
                               struct basalt_query_type *out)
{
    return operand_type(x, x->type, y, y->type, out);
}

bool basalt_qbind_operand_types(const struct basalt_qexpr *x, struct basalt_query_type xt,
                                const struct basalt_qexpr *y, struct basalt_query_type yt,
                                struct basalt_query_type *out)
{
    return operand_type(x, xt, y, yt, out);
}

/* A name of bind_bitwise.c's, bind_regex.c's, bind_interval.c's or bind_list.c's tables. */
static basalt_status call_ext(struct basalt_qexpr_builder *b, const char *name,
                              struct basalt_qexpr *const *args, int n, struct basalt_qexpr **out,
                              struct basalt_error *err)
{
    const struct {
        const struct qfunc_ext *fs;
        size_t n;
    } tables[] = {{basalt_qfuncs_bitwise, basalt_qfuncs_bitwise_n},
                  {basalt_qfuncs_regex, basalt_qfuncs_regex_n},
                  {basalt_qfuncs_interval, basalt_qfuncs_interval_n},
                  {basalt_qfuncs_list, basalt_qfuncs_list_n},
                  {basalt_qfuncs_time, basalt_qfuncs_time_n}};
    bool known = false;
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (size_t i = 0; i < tables[t].n; i++) {
            const struct qfunc_ext *f = &tables[t].fs[i];
            if (strcasecmp(f->name, name) != 0)
                continue;
            known = true;
            if (n > QMAX_ARGS && f->max_args == QMAX_ARGS)
                return basalt_qnode_error(b, BASALT_LIMIT, err,
                                          "'%s' takes at most %d arguments here", name, QMAX_ARGS);
            if (n < f->min_args || n > f->max_args)
                continue;
            struct basalt_qexpr *copy[QMAX_ARGS];
            for (int k = 0; k < n; k++)
                copy[k] = args[k];
            return f->resolve(b, f->name, f->op, copy, n, out, err);
        }
    if (known)
        return basalt_qbind_no_overload(b, name, args, n, err);
    return basalt_qnode_error(b, BASALT_NOT_FOUND, err, "unknown function '%s'", name);
}

basalt_status basalt_qexpr_call(struct basalt_qexpr_builder *b, const char *name,
                                struct basalt_qexpr *const *args, int n_args,
                                struct basalt_qexpr **out, struct basalt_error *err)
{
    if (!b || !name || !out || n_args < 0 || (n_args && !args))
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    *out = NULL;
    for (int i = 0; i < n_args; i++)
        if (!args[i])
            return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument %d of '%s'", i, name);
    REFUSE_OPAQUE(args, n_args);
    /* length() of a list is its element count, as len() */
    if (n_args == 1 && args[0]->type.id == BASALT_QUERY_TYPE_LIST && strcasecmp(name, "length") == 0)
        name = "len";
    /* two lists compare as DuckDB's (bind_list.c) */
    if (n_args == 2 && (args[0]->type.id == BASALT_QUERY_TYPE_LIST ||
                        args[1]->type.id == BASALT_QUERY_TYPE_LIST))
        for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
            if (strcasecmp(functions[i].name, name) == 0 && functions[i].op >= QOP_EQ &&
                functions[i].op <= QOP_GE) {
                struct basalt_qexpr *pair[2] = {args[0], args[1]};
                return basalt_qbind_list_compare(b, name, functions[i].op, pair, out, err);
            }
    /* lists reach the list functions only (bind_list.c) */
    bool list_fn = false;
    for (size_t i = 0; i < basalt_qfuncs_list_n; i++)
        list_fn = list_fn || strcasecmp(basalt_qfuncs_list[i].name, name) == 0;
    for (int i = 0; i < n_args && !list_fn; i++)
        if (args[i]->type.id == BASALT_QUERY_TYPE_LIST) {
            char t[96];
            basalt_query_type_name(args[i]->type, t, sizeof t);
            return basalt_qnode_error(b, BASALT_UNSUPPORTED, err,
                                      "'%s' does not take lists (%s) yet", name, t);
        }
    const struct qfunc *f = NULL;
    bool known = false;
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
        if (strcasecmp(functions[i].name, name) != 0)
            continue;
        known = true;
        if (n_args >= functions[i].min_args && n_args <= functions[i].max_args) {
            f = &functions[i];
            break;
        }
    }
    if (!f && !known)
        return call_ext(b, name, args, n_args, out, err);
    if (!f) {
        struct qfunc tmp = {name, QOP_COUNT, NULL, 0, 0};
        return no_overload(b, &tmp, args, n_args, err);
    }
    struct basalt_qexpr *copy[QMAX_ARGS];
    if (n_args > QMAX_ARGS)
        return basalt_qnode_error(b, BASALT_LIMIT, err, "too many arguments to '%s'", name);
    for (int i = 0; i < n_args; i++)
        copy[i] = args[i];
    return f->resolve(b, f, copy, n_args, out, err);
}

/* ------------------------------------------------------------------ special forms */

static basalt_status to_bool(struct basalt_qexpr_builder *b, struct basalt_qexpr *x,
                             const char *what, struct basalt_qexpr **out, struct basalt_error *err)
{
    if (x->type.id == BASALT_QUERY_TYPE_BOOL) {
        *out = x;
        return BASALT_OK;
    }
    if (x->type.id == BASALT_QUERY_TYPE_NULL)
        return basalt_qbind_cast(b, x, T(BOOL), false, true, out, err);
    char t[48];
    return basalt_qnode_error(b, BASALT_UNSUPPORTED, err, "%s needs BOOLEAN arguments, not %s", what,
                       tname(x->type, t));
}

static basalt_status logic(struct basalt_qexpr_builder *b, enum qnode_kind kind,
                           struct basalt_qexpr *const *args, int n, struct basalt_qexpr **out,
                           struct basalt_error *err)
{
    if (!b || !out || n < 1 || !args)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    *out = NULL;
    for (int i = 0; i < n; i++)
        if (!args[i])
            return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    REFUSE_OPAQUE(args, n);
    if (n == 1)
        return to_bool(b, args[0], kind == QN_AND ? "AND" : "OR", out, err);
    /* chained in pairs so every node has two arguments */
    struct basalt_qexpr *acc = NULL;
    basalt_status st = to_bool(b, args[0], "AND/OR", &acc, err);
    for (int i = 1; i < n && st == BASALT_OK; i++) {
        struct basalt_qexpr *e = node(b, kind, 2);
        NOMEM_IF(!e);
        e->args[0] = acc;
        st = to_bool(b, args[i], kind == QN_AND ? "AND" : "OR", &e->args[1], err);
        if (st != BASALT_OK)
            return st;
        e->type = T(BOOL);
        e->nullable = any_nullable(e->args, 2);
        st = finish(b, e, &acc, err);
    }
    if (st == BASALT_OK)
        *out = acc;
    return st;
}

basalt_status basalt_qexpr_and(struct basalt_qexpr_builder *b, struct basalt_qexpr *const *args,
                               int n, struct basalt_qexpr **out, struct basalt_error *err)
{
    return logic(b, QN_AND, args, n, out, err);
}

basalt_status basalt_qexpr_or(struct basalt_qexpr_builder *b, struct basalt_qexpr *const *args,
                              int n, struct basalt_qexpr **out, struct basalt_error *err)
{
    return logic(b, QN_OR, args, n, out, err);
}

basalt_status basalt_qexpr_not(struct basalt_qexpr_builder *b, struct basalt_qexpr *x,
                               struct basalt_qexpr **out, struct basalt_error *err)
{
    if (!b || !x || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    REFUSE_OPAQUE(&x, 1);
    struct basalt_qexpr *e = node(b, QN_NOT, 1);
    NOMEM_IF(!e);
    basalt_status st = to_bool(b, x, "NOT", &e->args[0], err);
    if (st != BASALT_OK)
        return st;
    e->type = T(BOOL);
    e->nullable = e->args[0]->nullable;
    return finish(b, e, out, err);
}

basalt_status basalt_qexpr_is_null(struct basalt_qexpr_builder *b, struct basalt_qexpr *x,
                                   bool negate, struct basalt_qexpr **out,
                                   struct basalt_error *err)
{
    if (!b || !x || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    REFUSE_OPAQUE(&x, 1);
    struct basalt_qexpr *e = node(b, QN_IS_NULL, 1);
    NOMEM_IF(!e);
    e->args[0] = x;
    e->negate = negate;
    e->type = T(BOOL);
    return finish(b, e, out, err);
}

basalt_status basalt_qexpr_is_distinct(struct basalt_qexpr_builder *b, struct basalt_qexpr *l,
                                       struct basalt_qexpr *r, bool negate,
                                       struct basalt_qexpr **out, struct basalt_error *err)
{
    if (!b || !l || !r || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    struct basalt_qexpr *pair[2] = {l, r};
    REFUSE_OPAQUE(pair, 2);
    struct basalt_query_type t;
    if (!operand_type(l, l->type, r, r->type, &t) || t.id == BASALT_QUERY_TYPE_INTERVAL ||
        t.id == BASALT_QUERY_TYPE_LIST) {
        char list[256];
        struct basalt_qexpr *a[2] = {l, r};
        return basalt_qnode_error(b, BASALT_UNSUPPORTED, err, "no overload of 'IS DISTINCT FROM' for %s",
                           arg_list(a, 2, list, sizeof list));
    }
    if (t.id == BASALT_QUERY_TYPE_NULL)
        t = T(INT32);
    struct basalt_qexpr *e = node(b, QN_DISTINCT, 2);
    NOMEM_IF(!e);
    basalt_status st = basalt_qbind_cast(b, l, t, false, true, &e->args[0], err);
    if (st == BASALT_OK)
        st = basalt_qbind_cast(b, r, t, false, true, &e->args[1], err);
    if (st != BASALT_OK)
        return st;
    e->negate = negate;
    e->type = T(BOOL);
    return finish(b, e, out, err);
}

/* The common type of a list of values (CASE results, COALESCE). */
static basalt_status unify(struct basalt_qexpr_builder *b, struct basalt_qexpr *const *vals, int n,
                           const char *what, struct basalt_query_type *out,
                           struct basalt_error *err)
{
    struct basalt_query_type t = T(NULL);
    for (int i = 0; i < n; i++) {
        if (!vals[i])
            continue;
        struct basalt_query_type u = t; /* a literal a UBIGINT holds keeps it */
        if (!common_type(t, vals[i]->type, &u) &&
            !(t.id == BASALT_QUERY_TYPE_UINT64 && fits_uint64(vals[i]))) {
            char list[256];
            return basalt_qnode_error(b, BASALT_UNSUPPORTED, err, "%s: no common type for %s", what,
                               arg_list(vals, n, list, sizeof list));
        }
        t = u;
    }
    *out = t;
    return BASALT_OK;
}

basalt_status basalt_qexpr_case(struct basalt_qexpr_builder *b, struct basalt_qexpr *const *whens,
                                struct basalt_qexpr *const *thens, int n,
                                struct basalt_qexpr *else_, struct basalt_qexpr **out,
                                struct basalt_error *err)
{
    if (!b || !out || n < 1 || !whens || !thens)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    REFUSE_OPAQUE(whens, n);
    REFUSE_OPAQUE(thens, n);
    REFUSE_OPAQUE(&else_, else_ != NULL);
    *out = NULL;
    struct basalt_qexpr *e = node(b, QN_CASE, 2 * n + 1);
    NOMEM_IF(!e);
    struct basalt_qexpr **vals = basalt_arena_alloc(&b->arena, sizeof *vals * (size_t)(n + 1), 8);
    NOMEM_IF(!vals);
    for (int i = 0; i < n; i++) {
        if (!whens[i] || !thens[i])
            return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
        vals[i] = thens[i];
    }
    vals[n] = else_;
    struct basalt_query_type t;
    basalt_status st = unify(b, vals, n + 1, "CASE", &t, err);
    if (st != BASALT_OK)
        return st;
    bool nullable = !else_;
    for (int i = 0; i < n; i++) {
        st = to_bool(b, whens[i], "CASE WHEN", &e->args[2 * i], err);
        if (st == BASALT_OK)
            st = basalt_qbind_cast(b, thens[i], t, false, true, &e->args[2 * i + 1], err);
        if (st != BASALT_OK)
            return st;
        nullable |= e->args[2 * i + 1]->nullable;
    }
    if (else_) {
        st = basalt_qbind_cast(b, else_, t, false, true, &e->args[2 * n], err);
        if (st != BASALT_OK)
            return st;
        nullable |= e->args[2 * n]->nullable;
    } else {
        st = basalt_qexpr_null(b, t, &e->args[2 * n], err);
        if (st != BASALT_OK)
            return st;
    }
    e->type = t;
    e->nullable = nullable;
    return finish(b, e, out, err);
}

basalt_status basalt_qexpr_coalesce(struct basalt_qexpr_builder *b,
                                    struct basalt_qexpr *const *args, int n,
                                    struct basalt_qexpr **out, struct basalt_error *err)
{
    if (!b || !out || n < 1 || !args)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    *out = NULL;
    REFUSE_OPAQUE(args, n);
    struct basalt_qexpr *e = node(b, QN_COALESCE, n);
    NOMEM_IF(!e);
    struct basalt_query_type t;
    basalt_status st = unify(b, args, n, "COALESCE", &t, err);
    if (st != BASALT_OK)
        return st;
    bool nullable = true;
    for (int i = 0; i < n; i++) {
        st = basalt_qbind_cast(b, args[i], t, false, true, &e->args[i], err);
        if (st != BASALT_OK)
            return st;
        if (!e->args[i]->nullable)
            nullable = false;
    }
    e->type = t;
    e->nullable = nullable;
    return finish(b, e, out, err);
}

basalt_status basalt_qexpr_error(struct basalt_qexpr_builder *b, const char *message,
                                 struct basalt_query_type type, struct basalt_qexpr **out,
                                 struct basalt_error *err)
{
    struct basalt_qexpr *text, *e = node(b, QN_CALL, 1);
    NOMEM_IF(!e);
    basalt_status st = basalt_qexpr_string(b, message, strlen(message), &text, err);
    if (st != BASALT_OK)
        return st;
    e->args[0] = text;
    e->op = QOP_ERROR;
    e->name = "error";
    e->type = type;
    e->nullable = true;
    *out = e; /* not through finish(): folding would run it */
    return BASALT_OK;
}

basalt_status basalt_qexpr_nullif(struct basalt_qexpr_builder *b, struct basalt_qexpr *a,
                                  struct basalt_qexpr *c, struct basalt_qexpr **out,
                                  struct basalt_error *err)
{
    if (!b || !a || !c || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    struct basalt_qexpr *args[2] = {a, c}, *eq, *nul;
    basalt_status st = basalt_qexpr_call(b, "=", args, 2, &eq, err);
    if (st == BASALT_OK)
        st = basalt_qexpr_null(b, a->type, &nul, err);
    if (st != BASALT_OK)
        return st;
    return basalt_qexpr_case(b, &eq, &nul, 1, a, out, err);
}

/* From this many constants on, IN looks x up in a hash set (k_in_set.c)
 * rather than comparing it with each: fewer stay an OR of equalities, which
 * the scans' pruning reads. */
enum { IN_SET_MIN = 8 };

static basalt_status in_set(struct basalt_qexpr_builder *b, struct basalt_qexpr *cx,
                            struct basalt_qexpr *const *items, int n, struct basalt_qexpr **out,
                            struct basalt_error *err)
{
    struct basalt_query_value *set = basalt_arena_alloc(&b->arena, sizeof *set * (size_t)n, 8);
    struct basalt_qexpr *e = node(b, QN_IN_SET, 1);
    NOMEM_IF(!set || !e);
    bool has_null = false;
    for (int i = 0; i < n; i++) {
        set[i] = items[i]->value; /* strings: already in this builder's arena */
        has_null |= items[i]->value.is_null;
    }
    e->args[0] = cx;
    e->set = set;
    e->n_set = n;
    e->type = T(BOOL);
    e->nullable = cx->nullable || has_null;
    return finish(b, e, out, err);
}

basalt_status basalt_qexpr_in(struct basalt_qexpr_builder *b, struct basalt_qexpr *x,
                              struct basalt_qexpr *const *list, int n, bool negate,
                              struct basalt_qexpr **out, struct basalt_error *err)
{
    if (!b || !x || !out || n < 1 || !list)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    REFUSE_OPAQUE(&x, 1);
    REFUSE_OPAQUE(list, n);
    /* x IN (a, b) is x = a OR x = b under three-valued logic, with every
     * operand cast to the common type of all of them first. */
    struct basalt_qexpr **all = basalt_arena_alloc(&b->arena, sizeof *all * (size_t)(n + 1), 8);
    struct basalt_qexpr **eqs = basalt_arena_alloc(&b->arena, sizeof *eqs * (size_t)n, 8);
    NOMEM_IF(!all || !eqs);
    all[0] = x;
    for (int i = 0; i < n; i++)
        all[i + 1] = list[i];
    struct basalt_query_type t;
    basalt_status st = unify(b, all, n + 1, "IN", &t, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_qexpr *cx;
    st = basalt_qbind_cast(b, x, t, false, true, &cx, err);
    struct basalt_qexpr **items = basalt_arena_alloc(&b->arena, sizeof *items * (size_t)n, 8);
    NOMEM_IF(!items);
    bool constants = true;
    for (int i = 0; i < n && st == BASALT_OK; i++) {
        st = basalt_qbind_cast(b, list[i], t, false, true, &items[i], err);
        constants &= st == BASALT_OK && items[i]->kind == QN_CONST;
    }
    if (st != BASALT_OK)
        return st;
    struct basalt_qexpr *any = NULL;
    if (constants && n >= IN_SET_MIN && basalt_qk_in_set_type(t.id))
        st = in_set(b, cx, items, n, &any, err);
    for (int i = 0; any == NULL && i < n && st == BASALT_OK; i++) {
        struct basalt_qexpr *pair[2] = {cx, items[i]};
        st = basalt_qexpr_call(b, "=", pair, 2, &eqs[i], err);
    }
    if (st == BASALT_OK && any == NULL)
        st = basalt_qexpr_or(b, eqs, n, &any, err);
    if (st != BASALT_OK)
        return st;
    if (negate)
        return basalt_qexpr_not(b, any, out, err);
    *out = any;
    return BASALT_OK;
}

basalt_status basalt_qexpr_between(struct basalt_qexpr_builder *b, struct basalt_qexpr *x,
                                   struct basalt_qexpr *lo, struct basalt_qexpr *hi, bool negate,
                                   struct basalt_qexpr **out, struct basalt_error *err)
{
    if (!b || !x || !lo || !hi || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "NULL argument");
    struct basalt_qexpr *a[2] = {x, lo}, *c[2] = {x, hi}, *both[2], *r;
    basalt_status st = basalt_qexpr_call(b, ">=", a, 2, &both[0], err);
    if (st == BASALT_OK)
        st = basalt_qexpr_call(b, "<=", c, 2, &both[1], err);
    if (st == BASALT_OK)
        st = basalt_qexpr_and(b, both, 2, &r, err);
    if (st != BASALT_OK)
        return st;
    if (negate)
        return basalt_qexpr_not(b, r, out, err);
    *out = r;
    return BASALT_OK;
}
