/* Validation of schemas and arrays from any producer: the structure of each
 * node, then (arrow_validate_full.c) the contents at the FULL level. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arrow_internal.h"

basalt_status basalt_arrow_validate_fail(struct basalt_arrow_vctx *ctx, basalt_status status,
                                         const char *fmt, ...)
{
    char message[BASALT_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (n < 0)
        message[0] = '\0';
    if (ctx->path_len)
        return basalt_error_set(ctx->err, status, "column '%s': %s", ctx->path, message);
    return basalt_error_set(ctx->err, status, "%s", message);
}

/* Appends a path segment; returns the length to restore with path_pop. */
static size_t path_push(struct basalt_arrow_vctx *ctx, const char *name, int64_t index)
{
    size_t old = ctx->path_len;
    size_t cap = sizeof ctx->path;
    int n;
    if (name && name[0])
        n = snprintf(ctx->path + old, cap - old, "%s%s", old ? "." : "", name);
    else
        n = snprintf(ctx->path + old, cap - old, "%s#%lld", old ? "." : "", (long long)index);
    ctx->path_len = n < 0 ? old : strnlen(ctx->path, cap - 1);
    return old;
}

static size_t path_push_dictionary(struct basalt_arrow_vctx *ctx)
{
    size_t old = ctx->path_len;
    snprintf(ctx->path + old, sizeof ctx->path - old, "%s", "[dictionary]");
    ctx->path_len = strnlen(ctx->path, sizeof ctx->path - 1);
    return old;
}

static void path_pop(struct basalt_arrow_vctx *ctx, size_t old)
{
    ctx->path_len = old;
    ctx->path[old] = '\0';
}

/* Children a type requires; -1 for any number (struct). */
static int64_t expected_children(const struct basalt_arrow_type *type)
{
    switch (type->id) {
    case BASALT_ARROW_TYPE_LIST:
    case BASALT_ARROW_TYPE_LARGE_LIST:
    case BASALT_ARROW_TYPE_LIST_VIEW:
    case BASALT_ARROW_TYPE_LARGE_LIST_VIEW:
    case BASALT_ARROW_TYPE_FIXED_SIZE_LIST:
    case BASALT_ARROW_TYPE_MAP:
        return 1;
    case BASALT_ARROW_TYPE_RUN_END_ENCODED:
        return 2;
    case BASALT_ARROW_TYPE_SPARSE_UNION:
    case BASALT_ARROW_TYPE_DENSE_UNION:
        return type->n_union_types;
    case BASALT_ARROW_TYPE_STRUCT:
        return -1;
    default:
        return 0;
    }
}

/* The checks of one schema node that do not look at its children's own
 * children: format, child count and presence, map shape, dictionary. */
static basalt_status check_schema_node(struct basalt_arrow_vctx *ctx,
                                       const struct ArrowSchema *schema,
                                       struct basalt_arrow_type *type)
{
    if (!schema->format)
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT, "schema has no format");
    basalt_status st = basalt_arrow_type_parse(schema->format, type, ctx->err);
    if (st != BASALT_OK)
        return ctx->path_len ? basalt_error_context(ctx->err, st, "column '%s'", ctx->path) : st;
    int64_t want = expected_children(type);
    if (schema->n_children < 0 || (want >= 0 && schema->n_children != want))
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                          "%s schema has %lld children, expected %lld",
                                          basalt_arrow_type_name(type->id),
                                          (long long)schema->n_children, (long long)want);
    if (schema->n_children > 0 && !schema->children)
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT, "schema children pointer is NULL");
    for (int64_t i = 0; i < schema->n_children; i++) {
        const struct ArrowSchema *child = schema->children[i];
        if (!child || !child->release)
            return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                              "schema child %lld is missing or released",
                                              (long long)i);
    }
    if (type->id == BASALT_ARROW_TYPE_MAP) {
        const struct ArrowSchema *entries = schema->children[0];
        if (!entries->format || strcmp(entries->format, "+s") != 0 || entries->n_children != 2)
            return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                              "map entries are not a struct of key and value");
    }
    if (schema->dictionary) {
        if (!schema->dictionary->release)
            return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT, "schema dictionary released");
        if (!basalt_arrow_type_is_integer(type->id))
            return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                              "dictionary indices of type %s are not integers",
                                              basalt_arrow_type_name(type->id));
    }
    size_t metadata_size;
    st = basalt_arrow_metadata_size(schema->metadata, &metadata_size, ctx->err);
    if (st != BASALT_OK)
        return ctx->path_len ? basalt_error_context(ctx->err, st, "column '%s'", ctx->path) : st;
    return BASALT_OK;
}

static basalt_status too_deep(struct basalt_arrow_vctx *ctx)
{
    return basalt_arrow_validate_fail(ctx, BASALT_LIMIT, "nested deeper than %d levels",
                                      BASALT_ARROW_MAX_DEPTH);
}

static basalt_status check_schema(struct basalt_arrow_vctx *ctx, const struct ArrowSchema *schema,
                                  int depth)
{
    if (depth > BASALT_ARROW_MAX_DEPTH)
        return too_deep(ctx);
    struct basalt_arrow_type type;
    basalt_status st = check_schema_node(ctx, schema, &type);
    for (int64_t i = 0; st == BASALT_OK && i < schema->n_children; i++) {
        size_t mark = path_push(ctx, schema->children[i]->name, i);
        st = check_schema(ctx, schema->children[i], depth + 1);
        if (st == BASALT_OK)
            path_pop(ctx, mark);
    }
    if (st == BASALT_OK && schema->dictionary) {
        size_t mark = path_push_dictionary(ctx);
        st = check_schema(ctx, schema->dictionary, depth + 1);
        if (st == BASALT_OK)
            path_pop(ctx, mark);
    }
    return st;
}

static void ctx_init(struct basalt_arrow_vctx *ctx, const struct ArrowSchema *root,
                     enum basalt_arrow_validate_level level, struct basalt_error *err)
{
    ctx->level = level;
    ctx->err = err;
    ctx->path_len = 0;
    ctx->path[0] = '\0';
    if (root->name && root->name[0])
        path_push(ctx, root->name, 0);
}

basalt_status basalt_arrow_schema_validate(const struct ArrowSchema *schema,
                                           struct basalt_error *err)
{
    if (!schema || !schema->release)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "schema_validate: schema missing or released");
    struct basalt_arrow_vctx ctx;
    ctx_init(&ctx, schema, BASALT_ARROW_VALIDATE_STRUCTURE, err);
    return check_schema(&ctx, schema, 0);
}

/* ------------------------------------------------------------ arrays */

static bool is_unsupported(enum basalt_arrow_type_id id)
{
    switch (id) {
    case BASALT_ARROW_TYPE_BINARY_VIEW:
    case BASALT_ARROW_TYPE_STRING_VIEW:
    case BASALT_ARROW_TYPE_LIST_VIEW:
    case BASALT_ARROW_TYPE_LARGE_LIST_VIEW:
    case BASALT_ARROW_TYPE_RUN_END_ENCODED:
        return true;
    default:
        return false;
    }
}

static bool is_offsets_type(enum basalt_arrow_type_id id, bool *large, bool *binary)
{
    *large = id == BASALT_ARROW_TYPE_LARGE_BINARY || id == BASALT_ARROW_TYPE_LARGE_STRING ||
             id == BASALT_ARROW_TYPE_LARGE_LIST;
    *binary = id == BASALT_ARROW_TYPE_BINARY || id == BASALT_ARROW_TYPE_STRING ||
              id == BASALT_ARROW_TYPE_LARGE_BINARY || id == BASALT_ARROW_TYPE_LARGE_STRING;
    return *binary || id == BASALT_ARROW_TYPE_LIST || id == BASALT_ARROW_TYPE_LARGE_LIST ||
           id == BASALT_ARROW_TYPE_MAP;
}

/* Counts, pointers and lengths of one array node; nothing in the buffers is read. */
static basalt_status check_array_struct(struct basalt_arrow_vctx *ctx,
                                        const struct ArrowSchema *schema,
                                        const struct basalt_arrow_type *type,
                                        const struct ArrowArray *array)
{
    if (array->length < 0 || array->offset < 0)
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                          "negative length %lld or offset %lld",
                                          (long long)array->length, (long long)array->offset);
    if (array->length > INT64_MAX - 1 - array->offset)
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT, "offset + length overflows");
    if (array->null_count < -1 || array->null_count > array->length)
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                          "null_count %lld outside [-1, length %lld]",
                                          (long long)array->null_count, (long long)array->length);
    if (is_unsupported(type->id))
        return basalt_arrow_validate_fail(ctx, BASALT_UNSUPPORTED,
                                          "validation of %s arrays is not implemented",
                                          basalt_arrow_type_name(type->id));
    int64_t n_buffers = basalt_arrow_type_n_buffers(type->id);
    if (array->n_buffers != n_buffers)
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                          "%s array has %lld buffers, expected %lld",
                                          basalt_arrow_type_name(type->id),
                                          (long long)array->n_buffers, (long long)n_buffers);
    if (n_buffers > 0 && !array->buffers)
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT, "buffers pointer is NULL");
    if (array->n_children != schema->n_children)
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                          "array has %lld children, schema has %lld",
                                          (long long)array->n_children,
                                          (long long)schema->n_children);
    if (array->n_children > 0 && !array->children)
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT, "children pointer is NULL");
    for (int64_t i = 0; i < array->n_children; i++)
        if (!array->children[i] || !array->children[i]->release)
            return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                              "child %lld is missing or released", (long long)i);
    if (!schema->dictionary != !array->dictionary)
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                          schema->dictionary ? "dictionary array missing"
                                                             : "array has a dictionary its "
                                                               "schema does not declare");
    if (array->dictionary && !array->dictionary->release)
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT, "dictionary array released");
    bool is_union =
        type->id == BASALT_ARROW_TYPE_SPARSE_UNION || type->id == BASALT_ARROW_TYPE_DENSE_UNION;
    if (is_union) {
        /* buffers[0] holds the type codes: nulls live in the children */
        if (array->null_count > 0)
            return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                              "union with null_count %lld (unions have no "
                                              "validity of their own)",
                                              (long long)array->null_count);
        if (array->length > 0 && !array->buffers[0])
            return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT, "type ids buffer is NULL");
        if (type->id == BASALT_ARROW_TYPE_DENSE_UNION && array->length > 0 && !array->buffers[1])
            return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT, "offsets buffer is NULL");
    } else if (type->id != BASALT_ARROW_TYPE_NULL && !array->buffers[0] &&
               array->null_count > 0) {
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                          "null_count %lld without a validity bitmap",
                                          (long long)array->null_count);
    }

    int64_t end = array->offset + array->length;
    bool large, binary;
    if (type->bit_width > 0) {
        if (array->length > 0 && !array->buffers[1])
            return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT, "values buffer is NULL");
        if (end > (INT64_MAX >> 1) / type->bit_width)
            return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT, "values buffer size overflows");
    } else if (is_offsets_type(type->id, &large, &binary)) {
        if (array->length > 0 && !array->buffers[1])
            return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT, "offsets buffer is NULL");
    } else if (type->id == BASALT_ARROW_TYPE_FIXED_SIZE_LIST) {
        const struct ArrowArray *child = array->children[0];
        if (type->fixed_size > 0 && end > child->length / type->fixed_size)
            return basalt_arrow_validate_fail(
                ctx, BASALT_CORRUPT, "child has %lld values, %lld lists of %d need %lld",
                (long long)child->length, (long long)end, (int)type->fixed_size,
                (long long)(end <= INT64_MAX / type->fixed_size ? end * type->fixed_size : -1));
    } else if (type->id == BASALT_ARROW_TYPE_STRUCT || type->id == BASALT_ARROW_TYPE_SPARSE_UNION) {
        for (int64_t i = 0; i < array->n_children; i++)
            if (array->children[i]->length < end)
                return basalt_arrow_validate_fail(
                    ctx, BASALT_CORRUPT, "%s field %lld has %lld values, the %s needs %lld",
                    basalt_arrow_type_name(type->id), (long long)i,
                    (long long)array->children[i]->length, basalt_arrow_type_name(type->id),
                    (long long)end);
    }
    return BASALT_OK;
}

/* DEFAULT level: the first and last offsets fit the data or the child. */
static basalt_status check_offset_bounds(struct basalt_arrow_vctx *ctx,
                                         const struct basalt_arrow_type *type,
                                         const struct ArrowArray *array)
{
    bool large, binary;
    if (!is_offsets_type(type->id, &large, &binary) || array->length == 0)
        return BASALT_OK;
    const void *offsets = array->buffers[1];
    int64_t first = basalt_arrow_read_offset(offsets, large, array->offset);
    int64_t last = basalt_arrow_read_offset(offsets, large, array->offset + array->length);
    if (first < 0)
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT, "first offset %lld is negative",
                                          (long long)first);
    if (last < first)
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                          "last offset %lld is below the first %lld",
                                          (long long)last, (long long)first);
    if (binary) {
        /* The interface carries no buffer sizes: a data buffer can only be
         * checked for presence. */
        if (last > first && !array->buffers[2])
            return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                              "offsets reach %lld but the data buffer is NULL",
                                              (long long)last);
        return BASALT_OK;
    }
    int64_t child_length = array->children[0]->length;
    if (last > child_length)
        return basalt_arrow_validate_fail(ctx, BASALT_CORRUPT,
                                          "offsets reach %lld past the child's %lld values",
                                          (long long)last, (long long)child_length);
    return BASALT_OK;
}

static basalt_status check_array(struct basalt_arrow_vctx *ctx, const struct ArrowSchema *schema,
                                 const struct ArrowArray *array, int depth)
{
    if (depth > BASALT_ARROW_MAX_DEPTH)
        return too_deep(ctx);
    struct basalt_arrow_type type;
    basalt_status st = check_schema_node(ctx, schema, &type);
    if (st == BASALT_OK)
        st = check_array_struct(ctx, schema, &type, array);
    if (st == BASALT_OK && ctx->level >= BASALT_ARROW_VALIDATE_DEFAULT)
        st = check_offset_bounds(ctx, &type, array);
    for (int64_t i = 0; st == BASALT_OK && i < array->n_children; i++) {
        size_t mark = path_push(ctx, schema->children[i]->name, i);
        st = check_array(ctx, schema->children[i], array->children[i], depth + 1);
        if (st == BASALT_OK)
            path_pop(ctx, mark);
    }
    if (st == BASALT_OK && array->dictionary) {
        size_t mark = path_push_dictionary(ctx);
        st = check_array(ctx, schema->dictionary, array->dictionary, depth + 1);
        if (st == BASALT_OK)
            path_pop(ctx, mark);
    }
    /* Contents last: they may index children and the dictionary, which must
     * have passed their own structure checks. */
    if (st == BASALT_OK && ctx->level >= BASALT_ARROW_VALIDATE_FULL)
        st = basalt_arrow_validate_content(ctx, &type, array);
    return st;
}

basalt_status basalt_arrow_array_validate(const struct ArrowSchema *schema,
                                          const struct ArrowArray *array,
                                          enum basalt_arrow_validate_level level,
                                          struct basalt_error *err)
{
    if (!schema || !schema->release)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "array_validate: schema missing or released");
    if (!array || !array->release)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "array_validate: array missing or released");
    struct basalt_arrow_vctx ctx;
    ctx_init(&ctx, schema, level, err);
    return check_array(&ctx, schema, array, 0);
}
