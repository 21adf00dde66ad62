/* ArrowSchema structs owned by basalt: one block holds the private data, the
 * children's pointer array and structs, the format and the name; metadata
 * and the dictionary struct are allocated when set. */
#include <string.h>

#include "arrow_internal.h"

struct schema_private {
    int64_t n_children;
    struct ArrowSchema **child_ptrs;
    struct ArrowSchema *children;
    struct ArrowSchema *dictionary;
    char *metadata;
};

void basalt_arrow_schema_release_owned(struct ArrowSchema *schema)
{
    struct schema_private *p = schema->private_data;
    /* The private copy of the pointers is used, not schema->children, so a
     * consumer rearranging the public fields cannot make us free foreign memory. */
    for (int64_t i = 0; i < p->n_children; i++)
        basalt_arrow_schema_release(&p->children[i]);
    if (p->dictionary) {
        basalt_arrow_schema_release(p->dictionary);
        basalt_free(p->dictionary);
    }
    basalt_free(p->metadata);
    basalt_free(p);
    schema->release = NULL;
    schema->private_data = NULL;
}

void basalt_arrow_schema_release(struct ArrowSchema *schema)
{
    if (schema && schema->release)
        schema->release(schema);
}

void basalt_arrow_schema_move(struct ArrowSchema *src, struct ArrowSchema *dst)
{
    memcpy(dst, src, sizeof *dst);
    src->release = NULL;
}

basalt_status basalt_arrow_schema_init(struct ArrowSchema *schema, const char *format,
                                       const char *name, int64_t flags, int64_t n_children,
                                       struct basalt_error *err)
{
    if (!schema)
        return basalt_error_set(err, BASALT_INVALID_ARG, "schema_init: NULL schema");
    schema->release = NULL;
    if (!format || n_children < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "schema_init: NULL format or negative n_children");
    if (n_children > INT32_MAX)
        return basalt_error_set(err, BASALT_LIMIT, "schema_init: %lld children",
                                (long long)n_children);
    size_t format_len = strlen(format) + 1;
    size_t name_len = name ? strlen(name) + 1 : 0;
    size_t n = (size_t)n_children;
    size_t size = sizeof(struct schema_private) + n * sizeof(struct ArrowSchema *) +
                  n * sizeof(struct ArrowSchema) + format_len + name_len;
    struct schema_private *p = basalt_malloc(size);
    if (!p)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a schema");
    char *cursor = (char *)(p + 1);
    p->n_children = n_children;
    p->child_ptrs = (struct ArrowSchema **)(void *)cursor;
    cursor += n * sizeof(struct ArrowSchema *);
    p->children = (struct ArrowSchema *)(void *)cursor;
    cursor += n * sizeof(struct ArrowSchema);
    p->dictionary = NULL;
    p->metadata = NULL;
    for (size_t i = 0; i < n; i++) {
        memset(&p->children[i], 0, sizeof p->children[i]);
        p->child_ptrs[i] = &p->children[i];
    }
    char *fmt = cursor;
    memcpy(fmt, format, format_len);
    char *nm = NULL;
    if (name) {
        nm = cursor + format_len;
        memcpy(nm, name, name_len);
    }
    schema->format = fmt;
    schema->name = nm;
    schema->metadata = NULL;
    schema->flags = flags;
    schema->n_children = n_children;
    schema->children = n ? p->child_ptrs : NULL;
    schema->dictionary = NULL;
    schema->private_data = p;
    schema->release = basalt_arrow_schema_release_owned;
    return BASALT_OK;
}

static bool schema_is_ours(const struct ArrowSchema *schema)
{
    return schema && schema->release == basalt_arrow_schema_release_owned;
}

basalt_status basalt_arrow_schema_set_metadata(struct ArrowSchema *schema, const char *metadata,
                                               struct basalt_error *err)
{
    if (!schema_is_ours(schema))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "schema_set_metadata: schema released or not made by basalt");
    size_t size;
    basalt_status st = basalt_arrow_metadata_size(metadata, &size, err);
    if (st != BASALT_OK)
        return st;
    char *copy = NULL;
    if (metadata) {
        copy = basalt_malloc(size);
        if (!copy)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for schema metadata");
        memcpy(copy, metadata, size);
    }
    struct schema_private *p = schema->private_data;
    basalt_free(p->metadata);
    p->metadata = copy;
    schema->metadata = copy;
    return BASALT_OK;
}

basalt_status basalt_arrow_schema_set_dictionary(struct ArrowSchema *schema,
                                                 struct ArrowSchema *dictionary,
                                                 struct basalt_error *err)
{
    if (!dictionary || !dictionary->release) {
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "schema_set_dictionary: dictionary missing or released");
    }
    if (!schema_is_ours(schema)) {
        basalt_arrow_schema_release(dictionary);
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "schema_set_dictionary: schema released or not made by basalt");
    }
    struct ArrowSchema *slot = basalt_malloc(sizeof *slot);
    if (!slot) {
        basalt_arrow_schema_release(dictionary);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a dictionary schema");
    }
    basalt_arrow_schema_move(dictionary, slot);
    struct schema_private *p = schema->private_data;
    if (p->dictionary) {
        basalt_arrow_schema_release(p->dictionary);
        basalt_free(p->dictionary);
    }
    p->dictionary = slot;
    schema->dictionary = slot;
    return BASALT_OK;
}

static basalt_status schema_copy(const struct ArrowSchema *src, const char *name,
                                 struct ArrowSchema *dst, int depth, struct basalt_error *err)
{
    dst->release = NULL;
    if (depth > BASALT_ARROW_MAX_DEPTH)
        return basalt_error_set(err, BASALT_LIMIT, "schema nested deeper than %d levels",
                                BASALT_ARROW_MAX_DEPTH);
    if (!src->format || src->n_children < 0 || (src->n_children > 0 && !src->children))
        return basalt_error_set(err, BASALT_CORRUPT, "schema without format or children");
    basalt_status st = basalt_arrow_schema_init(dst, src->format, name, src->flags,
                                                src->n_children, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_arrow_schema_set_metadata(dst, src->metadata, err);
    for (int64_t i = 0; st == BASALT_OK && i < src->n_children; i++) {
        const struct ArrowSchema *child = src->children[i];
        if (!child || !child->release)
            st = basalt_error_set(err, BASALT_CORRUPT, "child %lld missing or released",
                                  (long long)i);
        else
            st = schema_copy(child, child->name, dst->children[i], depth + 1, err);
    }
    if (st == BASALT_OK && src->dictionary) {
        struct ArrowSchema dict;
        if (!src->dictionary->release)
            st = basalt_error_set(err, BASALT_CORRUPT, "dictionary released");
        else
            st = schema_copy(src->dictionary, src->dictionary->name, &dict, depth + 1, err);
        if (st == BASALT_OK)
            st = basalt_arrow_schema_set_dictionary(dst, &dict, err);
    }
    if (st != BASALT_OK)
        basalt_arrow_schema_release(dst);
    return st;
}

basalt_status basalt_arrow_schema_copy(const struct ArrowSchema *src, struct ArrowSchema *dst,
                                       struct basalt_error *err)
{
    if (!src || !dst)
        return basalt_error_set(err, BASALT_INVALID_ARG, "schema_copy: NULL argument");
    if (!src->release) {
        dst->release = NULL;
        return basalt_error_set(err, BASALT_INVALID_ARG, "schema_copy: source released");
    }
    return schema_copy(src, src->name, dst, 0, err);
}

basalt_status basalt_arrow_schema_copy_renamed(const struct ArrowSchema *src, const char *name,
                                               struct ArrowSchema *dst, struct basalt_error *err)
{
    if (!src || !dst)
        return basalt_error_set(err, BASALT_INVALID_ARG, "schema_copy: NULL argument");
    if (!src->release) {
        dst->release = NULL;
        return basalt_error_set(err, BASALT_INVALID_ARG, "schema_copy: source released");
    }
    return schema_copy(src, name, dst, 0, err);
}
