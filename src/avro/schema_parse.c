/* Avro JSON schemas -> the node graph of struct basalt_avro_schema. */
#include <jansson.h>
#include <stdio.h>

#include "avro_internal.h"

struct parse_ctx {
    struct basalt_avro_schema *schema;
    bool lenient;
    uint32_t max_depth;
    struct basalt_buffer nodes; /* struct basalt_avro_node * by id */
    struct basalt_buffer errors; /* uint32_t ids of nodes declared "error" */
    struct basalt_error *err;
};

static const char *const primitive_names[] = {"null",  "boolean", "int",   "long",
                                              "float", "double",  "bytes", "string"};

static int primitive_type(const char *name)
{
    for (int i = 0; i < 8; i++)
        if (strcmp(name, primitive_names[i]) == 0)
            return i; /* BASALT_AVRO_NULL .. BASALT_AVRO_STRING in order */
    return -1;
}

static basalt_status nomem(struct parse_ctx *ctx)
{
    return basalt_error_set(ctx->err, BASALT_NOMEM, "out of memory parsing a schema");
}

static void *ctx_alloc(struct parse_ctx *ctx, size_t size)
{
    void *p = basalt_arena_alloc(&ctx->schema->arena, size ? size : 1, 8);
    if (p)
        memset(p, 0, size ? size : 1);
    return p;
}

static const char *ctx_strdup(struct parse_ctx *ctx, const char *s)
{
    return basalt_arena_strndup(&ctx->schema->arena, s, strlen(s));
}

static basalt_status new_node(struct parse_ctx *ctx, enum basalt_avro_type type,
                              struct basalt_avro_node **out)
{
    struct basalt_avro_node *node = ctx_alloc(ctx, sizeof *node);
    if (!node)
        return nomem(ctx);
    if (basalt_buffer_append(&ctx->nodes, &node, sizeof node, NULL) != BASALT_OK)
        return nomem(ctx);
    node->type = type;
    node->id = (uint32_t)(ctx->nodes.size / sizeof node - 1);
    node->enum_default = -1;
    *out = node;
    return BASALT_OK;
}

/* Compact JSON text of a jansson value, copied into the arena. */
static basalt_status dump_json(struct parse_ctx *ctx, const json_t *value, const char **out)
{
    char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!text)
        return nomem(ctx);
    *out = ctx_strdup(ctx, text);
    free(text);
    return *out ? BASALT_OK : nomem(ctx);
}

static bool key_in(const char *key, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(key, *list) == 0)
            return true;
    return false;
}

/* Attributes not in `reserved`, as JSON text, in document order. */
static basalt_status collect_props(struct parse_ctx *ctx, json_t *obj, const char *const *reserved,
                                   struct basalt_avro_prop **props, uint32_t *count)
{
    const char *key;
    json_t *value;
    uint32_t n = 0;
    json_object_foreach(obj, key, value) {
        if (!key_in(key, reserved))
            n++;
    }
    *count = 0;
    *props = NULL;
    if (n == 0)
        return BASALT_OK;
    struct basalt_avro_prop *p = ctx_alloc(ctx, sizeof *p * n);
    if (!p)
        return nomem(ctx);
    uint32_t i = 0;
    json_object_foreach(obj, key, value) {
        if (key_in(key, reserved))
            continue;
        p[i].key = ctx_strdup(ctx, key);
        if (!p[i].key)
            return nomem(ctx);
        basalt_status st = dump_json(ctx, value, &p[i].json);
        if (st != BASALT_OK)
            return st;
        i++;
    }
    *props = p;
    *count = n;
    return BASALT_OK;
}

static const char *get_string(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Builds "ns.name" (or "name" when ns is empty) in the arena. */
static const char *join_name(struct parse_ctx *ctx, const char *ns, const char *name)
{
    if (!ns || !*ns || strchr(name, '.'))
        return ctx_strdup(ctx, name);
    size_t a = strlen(ns), b = strlen(name);
    char *s = basalt_arena_alloc(&ctx->schema->arena, a + b + 2, 1);
    if (!s)
        return NULL;
    memcpy(s, ns, a);
    s[a] = '.';
    memcpy(s + a + 1, name, b + 1);
    return s;
}

static basalt_status parse_schema(struct parse_ctx *ctx, json_t *j, const char *ns,
                                  uint32_t depth, struct basalt_avro_node **out);

/* A reference to a named type: relative to the enclosing namespace first,
 * then as written (Java and Python differ on the fallback; accepting both
 * resolves every schema either accepts). */
static basalt_status lookup_reference(struct parse_ctx *ctx, const char *name, const char *ns,
                                      struct basalt_avro_node **out)
{
    struct basalt_avro_node *node = NULL;
    if (!strchr(name, '.') && ns && *ns) {
        const char *full = join_name(ctx, ns, name);
        if (!full)
            return nomem(ctx);
        node = basalt_avro_names_get(ctx->schema, full);
    }
    if (!node)
        node = basalt_avro_names_get(ctx->schema, name);
    if (!node)
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "unknown type '%s'", name);
    *out = node;
    return BASALT_OK;
}

static basalt_status parse_aliases(struct parse_ctx *ctx, json_t *obj, const char *ns,
                                   bool qualify, const char ***aliases, uint32_t *count)
{
    json_t *a = json_object_get(obj, "aliases");
    *aliases = NULL;
    *count = 0;
    if (!a || json_is_null(a))
        return BASALT_OK;
    if (!json_is_array(a))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "aliases must be an array of names");
    size_t n = json_array_size(a);
    if (n == 0)
        return BASALT_OK;
    const char **list = ctx_alloc(ctx, sizeof *list * n);
    if (!list)
        return nomem(ctx);
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(a, i);
        if (!json_is_string(e))
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "aliases must be an array of names");
        const char *s = json_string_value(e);
        bool ok = qualify ? basalt_avro_fullname_valid(s, ctx->lenient)
                          : basalt_avro_name_valid(s, ctx->lenient);
        if (!ok)
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "invalid alias '%s'", s);
        list[i] = qualify ? join_name(ctx, ns, s) : ctx_strdup(ctx, s);
        if (!list[i])
            return nomem(ctx);
    }
    *aliases = list;
    *count = (uint32_t)n;
    return BASALT_OK;
}

/* Name, namespace, aliases and doc of a record, enum or fixed; registers the
 * name so that the type's own fields may refer to it. */
static basalt_status parse_named(struct parse_ctx *ctx, json_t *obj, const char *ns,
                                 struct basalt_avro_node *node)
{
    json_t *jname = json_object_get(obj, "name");
    if (!jname)
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "%s without a name",
                                basalt_avro_type_name(node->type));
    if (!json_is_string(jname))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "%s name is not a string",
                                basalt_avro_type_name(node->type));
    const char *name = json_string_value(jname);
    json_t *jns = json_object_get(obj, "namespace");
    if (jns && !json_is_string(jns) && !json_is_null(jns))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "namespace of '%s' is not a string",
                                name);
    const char *space;
    const char *dot = strrchr(name, '.');
    if (dot) {
        space = basalt_arena_strndup(&ctx->schema->arena, name, (size_t)(dot - name));
    } else if (json_is_string(jns)) {
        space = ctx_strdup(ctx, json_string_value(jns));
    } else if (jns) {
        space = ""; /* explicit null: the null namespace */
    } else {
        space = ns ? ns : "";
    }
    if (!space)
        return nomem(ctx);
    if (*space && !basalt_avro_fullname_valid(space, ctx->lenient))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "invalid namespace '%s'", space);
    const char *short_name = dot ? dot + 1 : name;
    if (!basalt_avro_name_valid(short_name, ctx->lenient))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "invalid name '%s'", name);
    if (primitive_type(short_name) >= 0)
        return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                "'%s' is a primitive type and cannot be redefined", name);
    node->name = join_name(ctx, space, short_name);
    node->space = space;
    if (!node->name)
        return nomem(ctx);
    node->short_name = strrchr(node->name, '.') ? strrchr(node->name, '.') + 1 : node->name;
    const char *doc = get_string(obj, "doc");
    if (doc && !(node->doc = ctx_strdup(ctx, doc)))
        return nomem(ctx);
    basalt_status st = parse_aliases(ctx, obj, space, true, &node->aliases, &node->alias_count);
    if (st != BASALT_OK)
        return basalt_error_context(ctx->err, st, "type '%s'", node->name);
    return basalt_avro_names_put(ctx->schema, node, ctx->err);
}

static basalt_status parse_field(struct parse_ctx *ctx, json_t *jf, const char *ns,
                                 uint32_t depth, const struct basalt_avro_node *record,
                                 uint32_t index, struct basalt_avro_field *f)
{
    static const char *const reserved[] = {"name", "type", "doc", "default",
                                           "order", "aliases", NULL};
    if (!json_is_object(jf))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "field %u of record '%s' is not an object",
                                index, record->name);
    json_t *jname = json_object_get(jf, "name");
    if (!json_is_string(jname))
        return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                "field %u of record '%s': missing name", index, record->name);
    const char *name = json_string_value(jname);
    if (!basalt_avro_name_valid(name, ctx->lenient))
        return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                "field %u of record '%s': invalid name '%s'", index, record->name,
                                name);
    f->name = ctx_strdup(ctx, name);
    if (!f->name)
        return nomem(ctx);
    f->index = index;
    json_t *jtype = json_object_get(jf, "type");
    if (!jtype)
        return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                "field '%s' of record '%s': missing type", name, record->name);
    basalt_status st = parse_schema(ctx, jtype, ns, depth + 1, &f->type);
    if (st != BASALT_OK)
        return basalt_error_context(ctx->err, st, "field '%s' of record '%s'", name, record->name);
    const char *doc = get_string(jf, "doc");
    if (doc && !(f->doc = ctx_strdup(ctx, doc)))
        return nomem(ctx);
    json_t *def = json_object_get(jf, "default");
    if (def && (st = dump_json(ctx, def, &f->default_json)) != BASALT_OK)
        return st;
    json_t *order = json_object_get(jf, "order");
    if (order) {
        const char *o = json_is_string(order) ? json_string_value(order) : "";
        if (strcmp(o, "ascending") == 0)
            f->order = BASALT_AVRO_ORDER_ASCENDING;
        else if (strcmp(o, "descending") == 0)
            f->order = BASALT_AVRO_ORDER_DESCENDING;
        else if (strcmp(o, "ignore") == 0)
            f->order = BASALT_AVRO_ORDER_IGNORE;
        else
            return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                    "field '%s' of record '%s': invalid order", name, record->name);
    }
    st = parse_aliases(ctx, jf, NULL, false, &f->aliases, &f->alias_count);
    if (st != BASALT_OK)
        return basalt_error_context(ctx->err, st, "field '%s' of record '%s'", name, record->name);
    return collect_props(ctx, jf, reserved, &f->props, &f->prop_count);
}

static basalt_status parse_record(struct parse_ctx *ctx, json_t *obj, const char *ns,
                                  uint32_t depth, struct basalt_avro_node *node)
{
    basalt_status st = parse_named(ctx, obj, ns, node);
    if (st != BASALT_OK)
        return st;
    json_t *fields = json_object_get(obj, "fields");
    if (!json_is_array(fields))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "record '%s': fields must be an array",
                                node->name);
    size_t n = json_array_size(fields);
    if (n > UINT32_MAX / 2)
        return basalt_error_set(ctx->err, BASALT_LIMIT, "record '%s': too many fields", node->name);
    node->fields = ctx_alloc(ctx, sizeof *node->fields * n);
    if (!node->fields)
        return nomem(ctx);
    for (size_t i = 0; i < n; i++) {
        st = parse_field(ctx, json_array_get(fields, i), node->space, depth, node, (uint32_t)i,
                         &node->fields[i]);
        if (st != BASALT_OK)
            return st;
        for (size_t k = 0; k < i; k++)
            if (strcmp(node->fields[k].name, node->fields[i].name) == 0)
                return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                        "record '%s': field '%s' appears twice", node->name,
                                        node->fields[i].name);
        node->count = (uint32_t)(i + 1);
    }
    node->count = (uint32_t)n;
    return BASALT_OK;
}

static basalt_status parse_enum(struct parse_ctx *ctx, json_t *obj, const char *ns,
                                struct basalt_avro_node *node)
{
    basalt_status st = parse_named(ctx, obj, ns, node);
    if (st != BASALT_OK)
        return st;
    json_t *symbols = json_object_get(obj, "symbols");
    if (!json_is_array(symbols))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "enum '%s': symbols must be an array",
                                node->name);
    size_t n = json_array_size(symbols);
    if (n > INT32_MAX)
        return basalt_error_set(ctx->err, BASALT_LIMIT, "enum '%s': too many symbols", node->name);
    node->symbols = ctx_alloc(ctx, sizeof *node->symbols * n);
    if (!node->symbols)
        return nomem(ctx);
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(symbols, i);
        if (!json_is_string(s))
            return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                    "enum '%s': symbol %zu is not a string", node->name, i);
        const char *sym = json_string_value(s);
        if (!basalt_avro_name_valid(sym, ctx->lenient))
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "enum '%s': invalid symbol '%s'",
                                    node->name, sym);
        for (size_t k = 0; k < i; k++)
            if (strcmp(node->symbols[k], sym) == 0)
                return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                        "enum '%s': symbol '%s' appears twice", node->name, sym);
        if (!(node->symbols[i] = ctx_strdup(ctx, sym)))
            return nomem(ctx);
    }
    node->count = (uint32_t)n;
    json_t *def = json_object_get(obj, "default");
    if (def) {
        const char *d = json_is_string(def) ? json_string_value(def) : NULL;
        for (size_t i = 0; d && i < n; i++)
            if (strcmp(node->symbols[i], d) == 0)
                node->enum_default = (int32_t)i;
        if (node->enum_default < 0)
            return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                    "enum '%s': default is not one of its symbols", node->name);
    }
    return BASALT_OK;
}

static basalt_status parse_fixed(struct parse_ctx *ctx, json_t *obj, const char *ns,
                                 struct basalt_avro_node *node)
{
    basalt_status st = parse_named(ctx, obj, ns, node);
    if (st != BASALT_OK)
        return st;
    json_t *size = json_object_get(obj, "size");
    if (!json_is_integer(size))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "fixed '%s': size must be an integer",
                                node->name);
    json_int_t v = json_integer_value(size);
    if (v < 0 || v > INT32_MAX)
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "fixed '%s': invalid size %lld",
                                node->name, (long long)v);
    node->size = (int64_t)v;
    return BASALT_OK;
}

static basalt_status parse_union(struct parse_ctx *ctx, json_t *arr, const char *ns,
                                 uint32_t depth, struct basalt_avro_node **out)
{
    struct basalt_avro_node *node;
    basalt_status st = new_node(ctx, BASALT_AVRO_UNION, &node);
    if (st != BASALT_OK)
        return st;
    size_t n = json_array_size(arr);
    if (n > INT32_MAX)
        return basalt_error_set(ctx->err, BASALT_LIMIT, "union with too many branches");
    node->branches = ctx_alloc(ctx, sizeof *node->branches * n);
    if (!node->branches)
        return nomem(ctx);
    for (size_t i = 0; i < n; i++) {
        struct basalt_avro_node *b;
        st = parse_schema(ctx, json_array_get(arr, i), ns, depth + 1, &b);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "union branch %zu", i);
        if (b->type == BASALT_AVRO_UNION)
            return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                    "a union may not contain a union (branch %zu)", i);
        for (size_t k = 0; k < i; k++) {
            const struct basalt_avro_node *o = node->branches[k];
            if (o->type != b->type)
                continue;
            if (!b->name || strcmp(o->name, b->name) == 0)
                return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                        "union contains %s twice (branches %zu and %zu)",
                                        b->name ? b->name : basalt_avro_type_name(b->type), k, i);
        }
        node->branches[i] = b;
    }
    node->count = (uint32_t)n;
    *out = node;
    return BASALT_OK;
}

/* Reads "logicalType" and its parameters; an invalid one is ignored. */
static void parse_logical(json_t *obj, struct basalt_avro_node *node)
{
    const char *lt = get_string(obj, "logicalType");
    if (!lt)
        return;
    enum basalt_avro_type t = node->type;
    struct {
        const char *name;
        enum basalt_avro_logical logical;
        enum basalt_avro_type type;
    } simple[] = {
        {"date", BASALT_AVRO_LOGICAL_DATE, BASALT_AVRO_INT},
        {"time-millis", BASALT_AVRO_LOGICAL_TIME_MILLIS, BASALT_AVRO_INT},
        {"time-micros", BASALT_AVRO_LOGICAL_TIME_MICROS, BASALT_AVRO_LONG},
        {"timestamp-millis", BASALT_AVRO_LOGICAL_TIMESTAMP_MILLIS, BASALT_AVRO_LONG},
        {"timestamp-micros", BASALT_AVRO_LOGICAL_TIMESTAMP_MICROS, BASALT_AVRO_LONG},
        {"timestamp-nanos", BASALT_AVRO_LOGICAL_TIMESTAMP_NANOS, BASALT_AVRO_LONG},
        {"local-timestamp-millis", BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS, BASALT_AVRO_LONG},
        {"local-timestamp-micros", BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS, BASALT_AVRO_LONG},
        {"local-timestamp-nanos", BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS, BASALT_AVRO_LONG},
    };
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
        if (strcmp(lt, simple[i].name) == 0) {
            if (t == simple[i].type)
                node->logical = simple[i].logical;
            return;
        }
    if (strcmp(lt, "uuid") == 0) {
        if (t == BASALT_AVRO_STRING || (t == BASALT_AVRO_FIXED && node->size == 16))
            node->logical = BASALT_AVRO_LOGICAL_UUID;
        return;
    }
    if (strcmp(lt, "duration") == 0) {
        if (t == BASALT_AVRO_FIXED && node->size == 12)
            node->logical = BASALT_AVRO_LOGICAL_DURATION;
        return;
    }
    if (strcmp(lt, "decimal") == 0) {
        if (t != BASALT_AVRO_BYTES && t != BASALT_AVRO_FIXED)
            return;
        json_t *p = json_object_get(obj, "precision");
        json_t *s = json_object_get(obj, "scale");
        if (!json_is_integer(p) || (s && !json_is_integer(s)))
            return;
        json_int_t precision = json_integer_value(p);
        json_int_t scale = s ? json_integer_value(s) : 0;
        if (precision <= 0 || precision > INT32_MAX || scale < 0 || scale > precision)
            return;
        if (t == BASALT_AVRO_FIXED) {
            /* Digits that fit in size bytes of two's complement:
             * floor(log10(2^(8*size-1) - 1)). */
            if (node->size == 0)
                return;
            double max_digits = (8.0 * (double)node->size - 1) * 0.30102999566398119521;
            if ((double)precision > max_digits)
                return;
        }
        node->logical = BASALT_AVRO_LOGICAL_DECIMAL;
        node->precision = (int32_t)precision;
        node->scale = (int32_t)scale;
    }
}

static basalt_status parse_object(struct parse_ctx *ctx, json_t *obj, const char *ns,
                                  uint32_t depth, struct basalt_avro_node **out)
{
    static const char *const reserved_named[] = {"type",    "name",    "namespace", "doc",
                                                 "aliases", "fields",  "symbols",   "size",
                                                 "default", NULL};
    static const char *const reserved_other[] = {"type", "items", "values", NULL};
    json_t *jtype = json_object_get(obj, "type");
    if (!jtype)
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "schema object without a type");
    if (json_is_object(jtype) || json_is_array(jtype))
        return parse_schema(ctx, jtype, ns, depth + 1, out);
    if (!json_is_string(jtype))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "type must be a string");
    const char *type = json_string_value(jtype);
    int prim = primitive_type(type);
    struct basalt_avro_node *node;
    basalt_status st;
    if (prim >= 0) {
        if ((st = new_node(ctx, (enum basalt_avro_type)prim, &node)) != BASALT_OK)
            return st;
    } else if (strcmp(type, "record") == 0 || strcmp(type, "error") == 0) {
        if ((st = new_node(ctx, BASALT_AVRO_RECORD, &node)) != BASALT_OK)
            return st;
        if (type[0] == 'e' && basalt_buffer_append(&ctx->errors, &node->id, sizeof node->id,
                                                   NULL) != BASALT_OK)
            return nomem(ctx);
        if ((st = parse_record(ctx, obj, ns, depth, node)) != BASALT_OK)
            return st;
    } else if (strcmp(type, "enum") == 0) {
        if ((st = new_node(ctx, BASALT_AVRO_ENUM, &node)) != BASALT_OK)
            return st;
        if ((st = parse_enum(ctx, obj, ns, node)) != BASALT_OK)
            return st;
    } else if (strcmp(type, "fixed") == 0) {
        if ((st = new_node(ctx, BASALT_AVRO_FIXED, &node)) != BASALT_OK)
            return st;
        if ((st = parse_fixed(ctx, obj, ns, node)) != BASALT_OK)
            return st;
    } else if (strcmp(type, "array") == 0 || strcmp(type, "map") == 0) {
        bool array = type[0] == 'a';
        if ((st = new_node(ctx, array ? BASALT_AVRO_ARRAY : BASALT_AVRO_MAP, &node)) != BASALT_OK)
            return st;
        json_t *inner = json_object_get(obj, array ? "items" : "values");
        if (!inner)
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "%s without %s", type,
                                    array ? "items" : "values");
        if ((st = parse_schema(ctx, inner, ns, depth + 1, &node->items)) != BASALT_OK)
            return basalt_error_context(ctx->err, st, "%s %s", type, array ? "items" : "values");
    } else {
        /* {"type": "SomeName"}: a reference written as an object. */
        struct basalt_avro_node *ref;
        st = lookup_reference(ctx, type, ns, &ref);
        if (st != BASALT_OK)
            return st;
        *out = ref;
        return BASALT_OK;
    }
    bool named = node->name != NULL;
    if ((st = collect_props(ctx, obj, named ? reserved_named : reserved_other, &node->props,
                            &node->prop_count)) != BASALT_OK)
        return st;
    parse_logical(obj, node);
    *out = node;
    return BASALT_OK;
}

static basalt_status parse_schema(struct parse_ctx *ctx, json_t *j, const char *ns,
                                  uint32_t depth, struct basalt_avro_node **out)
{
    if (depth > ctx->max_depth)
        return basalt_error_set(ctx->err, BASALT_LIMIT, "schema nested deeper than %u levels",
                                ctx->max_depth);
    if (json_is_string(j)) {
        const char *name = json_string_value(j);
        int prim = primitive_type(name);
        if (prim >= 0)
            return new_node(ctx, (enum basalt_avro_type)prim, out);
        return lookup_reference(ctx, name, ns, out);
    }
    if (json_is_array(j))
        return parse_union(ctx, j, ns, depth, out);
    if (json_is_object(j))
        return parse_object(ctx, j, ns, depth, out);
    return basalt_error_set(ctx->err, BASALT_CORRUPT,
                            "a schema must be a type name, an object or an array");
}

void basalt_avro_schema_options_init(struct basalt_avro_schema_options *options)
{
    memset(options, 0, sizeof *options);
    options->max_depth = AVRO_DEFAULT_SCHEMA_DEPTH;
}

basalt_status basalt_avro_schema_parse(const char *json, size_t len,
                                       const struct basalt_avro_schema_options *options,
                                       struct basalt_avro_schema **out, struct basalt_error *err)
{
    if (!out || (!json && len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "schema_parse: NULL argument");
    *out = NULL;
    json_error_t jerr;
    json_t *root = json_loadb(json ? json : "", len,
                              JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!root) {
        basalt_status st = json_error_code(&jerr) == json_error_stack_overflow ? BASALT_LIMIT
                           : json_error_code(&jerr) == json_error_out_of_memory
                               ? BASALT_NOMEM
                               : BASALT_CORRUPT;
        return basalt_error_set(err, st, "schema is not valid JSON: %s at line %d column %d",
                                jerr.text, jerr.line, jerr.column);
    }
    struct basalt_avro_schema *schema = basalt_calloc(1, sizeof *schema);
    if (!schema) {
        json_decref(root);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory parsing a schema");
    }
    basalt_arena_init(&schema->arena, 16 * 1024);
    struct parse_ctx ctx = {.schema = schema, .err = err};
    ctx.lenient = options && options->lenient_names;
    ctx.max_depth = options && options->max_depth ? options->max_depth : AVRO_DEFAULT_SCHEMA_DEPTH;
    basalt_buffer_init(&ctx.nodes);
    basalt_buffer_init(&ctx.errors);
    basalt_status st = parse_schema(&ctx, root, "", 0, &schema->root);
    json_decref(root);
    if (st == BASALT_OK) {
        schema->node_count = (uint32_t)(ctx.nodes.size / sizeof(struct basalt_avro_node *));
        schema->nodes = basalt_arena_alloc(&schema->arena, ctx.nodes.size ? ctx.nodes.size : 1, 8);
        schema->is_error = basalt_arena_alloc(&schema->arena, schema->node_count + 1, 1);
        if (!schema->nodes || !schema->is_error) {
            st = nomem(&ctx);
        } else {
            memcpy(schema->nodes, ctx.nodes.data, ctx.nodes.size);
            memset(schema->is_error, 0, schema->node_count + 1);
            const uint32_t *ids = (const uint32_t *)(const void *)ctx.errors.data;
            for (size_t i = 0; i < ctx.errors.size / sizeof(uint32_t); i++)
                schema->is_error[ids[i]] = 1;
            st = basalt_avro_canonical_build(schema, err);
        }
    }
    basalt_buffer_reset(&ctx.nodes);
    basalt_buffer_reset(&ctx.errors);
    if (st != BASALT_OK) {
        basalt_avro_schema_free(schema);
        return st;
    }
    *out = schema;
    return BASALT_OK;
}

void basalt_avro_schema_free(struct basalt_avro_schema *schema)
{
    if (!schema)
        return;
    basalt_arena_reset(&schema->arena);
    basalt_free(schema);
}
