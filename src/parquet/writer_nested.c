/* The Parquet schema tree of an Arrow schema: groups for structs, the
 * three-level LIST form (lists of either offset width and fixed-size lists)
 * and the MAP form, and the path from each top-level field to each leaf,
 * from which the levels are computed. */
#include <stdlib.h>
#include <string.h>

#include "parquet_writer.h"

struct wbuild {
    struct basalt_arena *arena;
    struct basalt_parquet_schema_element *elements;
    size_t num_elements, cap_elements;
    struct basalt_parquet_wcolumn *cols;
    int32_t ncols, cap_cols;
    struct basalt_parquet_wnode nodes[BASALT_PARQUET_WRITER_MAX_DEPTH];
    struct basalt_parquet_string path[BASALT_PARQUET_WRITER_MAX_DEPTH * 2];
    size_t path_len;
    int32_t top;
};

static struct basalt_parquet_schema_element *add_element(struct wbuild *b, const char *name,
                                                         int32_t repetition,
                                                         struct basalt_error *err)
{
    if (b->num_elements == b->cap_elements) {
        size_t cap = b->cap_elements ? b->cap_elements * 2 : 16;
        struct basalt_parquet_schema_element *e = basalt_realloc(b->elements, cap * sizeof *e);
        if (!e) {
            basalt_error_set(err, BASALT_NOMEM, "out of memory");
            return NULL;
        }
        b->elements = e;
        b->cap_elements = cap;
    }
    size_t len = strlen(name);
    char *copy = basalt_arena_strndup(b->arena, name, len);
    if (!copy) {
        basalt_error_set(err, BASALT_NOMEM, "out of memory");
        return NULL;
    }
    struct basalt_parquet_schema_element *e = &b->elements[b->num_elements++];
    memset(e, 0, sizeof *e);
    e->name.data = copy;
    e->name.len = len;
    if (repetition >= 0) {
        e->has_repetition_type = true;
        e->repetition_type = repetition;
    }
    b->path[b->path_len].data = copy;
    b->path[b->path_len].len = len;
    b->path_len++;
    return e;
}

static int32_t repetition_of(bool nullable)
{
    return nullable ? BASALT_PARQUET_FIELD_REPETITION_TYPE_OPTIONAL
                    : BASALT_PARQUET_FIELD_REPETITION_TYPE_REQUIRED;
}

static basalt_status add_leaf(struct wbuild *b, const struct ArrowSchema *f, const char *name,
                              bool nullable, int depth, int16_t def, int16_t rep,
                              struct basalt_error *err)
{
    if (b->ncols == b->cap_cols) {
        int32_t cap = b->cap_cols ? b->cap_cols * 2 : 16;
        struct basalt_parquet_wcolumn *c = basalt_realloc(b->cols, (size_t)cap * sizeof *c);
        if (!c)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        b->cols = c;
        b->cap_cols = cap;
    }
    struct basalt_parquet_wcolumn *col = &b->cols[b->ncols];
    basalt_status st = basalt_parquet_wcolumn_init(col, f, err);
    b->ncols++;
    if (st != BASALT_OK)
        return st;
    bool null_type = col->conv == BASALT_PARQUET_WCONV_NULL;
    if (null_type)
        nullable = true;
    struct basalt_parquet_schema_element *e = add_element(b, name, repetition_of(nullable), err);
    if (!e)
        return BASALT_NOMEM;
    struct basalt_parquet_schema_element leaf = col->element;
    leaf.name = e->name;
    leaf.repetition_type = repetition_of(nullable);
    *e = leaf;
    col->element = leaf;
    col->nullable = nullable;
    /* The column is named by its dotted path. */
    size_t len = 0;
    for (size_t i = 0; i < b->path_len; i++)
        len += b->path[i].len + 1;
    char *dotted = basalt_malloc(len + 1);
    if (!dotted)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    size_t pos = 0;
    for (size_t i = 0; i < b->path_len; i++) {
        if (i)
            dotted[pos++] = '.';
        memcpy(dotted + pos, b->path[i].data, b->path[i].len);
        pos += b->path[i].len;
    }
    dotted[pos] = '\0';
    basalt_free(col->name);
    col->name = dotted;
    struct basalt_parquet_string *path =
        basalt_arena_alloc(b->arena, b->path_len * sizeof *path, 8);
    if (!path)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memcpy(path, b->path, b->path_len * sizeof *path);
    col->path = path;
    col->path_len = b->path_len;
    col->top = b->top;
    col->depth = depth + 1;
    memcpy(col->nodes, b->nodes, (size_t)depth * sizeof *col->nodes);
    col->nodes[depth] = (struct basalt_parquet_wnode){
        null_type ? BASALT_PARQUET_WNODE_NULL : BASALT_PARQUET_WNODE_LEAF, nullable, 0, rep, 0};
    col->max_def = (int16_t)(def + (nullable ? 1 : 0));
    col->max_rep = rep;
    col->nested = depth > 0;
    return BASALT_OK;
}

static bool is_variant(const struct ArrowSchema *f)
{
    const char *value;
    size_t len;
    return basalt_arrow_metadata_get(f->metadata, "ARROW:extension:name", &value, &len, NULL) ==
               BASALT_OK &&
           len == 15 && memcmp(value, "parquet.variant", 15) == 0;
}

/* A parquet.variant struct is written unshredded: exactly a binary
 * `metadata` and a binary `value`, the bytes as they are. */
static basalt_status check_variant(const struct ArrowSchema *f, const char *name,
                                   struct basalt_error *err)
{
    bool metadata = false, value = false;
    for (int64_t k = 0; k < f->n_children; k++) {
        const struct ArrowSchema *ch = f->children[k];
        const char *n = ch->name ? ch->name : "";
        bool binary = !ch->dictionary &&
                      (strcmp(ch->format, "z") == 0 || strcmp(ch->format, "Z") == 0);
        if (strcmp(n, "metadata") == 0 && binary)
            metadata = true;
        else if (strcmp(n, "value") == 0 && binary)
            value = true;
        else if (strcmp(n, "typed_value") == 0)
            return basalt_error_set(err, BASALT_UNSUPPORTED,
                                    "column '%s': shredded variants (typed_value) are not "
                                    "written yet",
                                    name);
        else
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "column '%s': a parquet.variant holds only binary metadata "
                                    "and value, not '%s' (%s)",
                                    name, n, ch->format);
    }
    if (!metadata || !value)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "column '%s': a parquet.variant needs binary metadata and value",
                                name);
    return BASALT_OK;
}

/* Field `f` named `name` (its Parquet name), nullable as given, at node
 * `depth` with `def` and `rep` levels above it. */
static basalt_status walk(struct wbuild *b, const struct ArrowSchema *f, const char *name,
                          bool nullable, int depth, int16_t def, int16_t rep,
                          struct basalt_error *err)
{
    if (depth + 2 >= BASALT_PARQUET_WRITER_MAX_DEPTH)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "column '%s': nested too deep", name);
    size_t path_mark = b->path_len;
    const char *fmt = f->format;
    if (f->dictionary || fmt[0] != '+') {
        basalt_status st = add_leaf(b, f, name, nullable, depth, def, rep, err);
        b->path_len = path_mark;
        return st;
    }
    int16_t d = (int16_t)(def + (nullable ? 1 : 0));
    struct basalt_parquet_wnode *node = &b->nodes[depth];
    node->nullable = nullable;
    node->child = 0;
    node->rep_level = 0;
    node->fixed_size = 0;
    struct basalt_parquet_schema_element *e;
    basalt_status st = BASALT_OK;
    if (strcmp(fmt, "+s") == 0) {
        if (f->n_children == 0)
            return basalt_error_set(err, BASALT_UNSUPPORTED,
                                    "column '%s': a struct without fields", name);
        bool variant = is_variant(f);
        if (variant) {
            st = check_variant(f, name, err);
            if (st != BASALT_OK)
                return st;
        }
        e = add_element(b, name, repetition_of(nullable), err);
        if (!e)
            return BASALT_NOMEM;
        e->has_num_children = true;
        e->num_children = (int32_t)f->n_children;
        if (variant) {
            e->has_logical_type = true;
            e->logical_type.kind = BASALT_PARQUET_LOGICAL_TYPE_VARIANT;
            e->logical_type.variant.has_specification_version = true;
            e->logical_type.variant.specification_version = 1;
        }
        node->kind = BASALT_PARQUET_WNODE_STRUCT;
        for (int64_t k = 0; k < f->n_children && st == BASALT_OK; k++) {
            const struct ArrowSchema *ch = f->children[k];
            b->nodes[depth].child = (int32_t)k;
            /* An unshredded variant's metadata and value are required
             * (VariantEncoding.md): a null one in a present variant is
             * refused when written. */
            bool child_nullable = !variant && (ch->flags & ARROW_FLAG_NULLABLE) != 0;
            st = walk(b, ch, ch->name ? ch->name : "", child_nullable, depth + 1, d, rep, err);
        }
    } else if (strcmp(fmt, "+l") == 0 || strcmp(fmt, "+L") == 0 ||
               strncmp(fmt, "+w:", 3) == 0) {
        int32_t fixed_size = 0;
        if (fmt[1] == 'w') {
            struct basalt_arrow_type t;
            st = basalt_arrow_type_parse(fmt, &t, err);
            if (st != BASALT_OK)
                return basalt_error_context(err, st, "column '%s'", name);
            if (t.fixed_size < 0)
                return basalt_error_set(err, BASALT_CORRUPT, "column '%s': bad format '%s'",
                                        name, fmt);
            fixed_size = t.fixed_size;
        }
        if (f->n_children != 1)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "column '%s': a list without one child", name);
        e = add_element(b, name, repetition_of(nullable), err);
        if (!e)
            return BASALT_NOMEM;
        e->has_num_children = true;
        e->num_children = 1;
        e->has_logical_type = e->has_converted_type = true;
        e->logical_type.kind = BASALT_PARQUET_LOGICAL_TYPE_LIST;
        e->converted_type = BASALT_PARQUET_CONVERTED_TYPE_LIST;
        struct basalt_parquet_schema_element *g =
            add_element(b, "list", BASALT_PARQUET_FIELD_REPETITION_TYPE_REPEATED, err);
        if (!g)
            return BASALT_NOMEM;
        g->has_num_children = true;
        g->num_children = 1;
        node->kind = fmt[1] == 'l'   ? BASALT_PARQUET_WNODE_LIST
                     : fmt[1] == 'L' ? BASALT_PARQUET_WNODE_LARGE_LIST
                                     : BASALT_PARQUET_WNODE_FIXED_LIST;
        node->fixed_size = fixed_size;
        node->rep_level = (int16_t)(rep + 1);
        const struct ArrowSchema *ch = f->children[0];
        st = walk(b, ch, "element", (ch->flags & ARROW_FLAG_NULLABLE) != 0, depth + 1,
                  (int16_t)(d + 1), (int16_t)(rep + 1), err);
    } else if (strcmp(fmt, "+m") == 0) {
        const struct ArrowSchema *entries = f->children[0];
        e = add_element(b, name, repetition_of(nullable), err);
        if (!e)
            return BASALT_NOMEM;
        e->has_num_children = true;
        e->num_children = 1;
        e->has_logical_type = e->has_converted_type = true;
        e->logical_type.kind = BASALT_PARQUET_LOGICAL_TYPE_MAP;
        e->converted_type = BASALT_PARQUET_CONVERTED_TYPE_MAP;
        struct basalt_parquet_schema_element *g =
            add_element(b, "key_value", BASALT_PARQUET_FIELD_REPETITION_TYPE_REPEATED, err);
        if (!g)
            return BASALT_NOMEM;
        g->has_num_children = true;
        g->num_children = 2;
        node->kind = BASALT_PARQUET_WNODE_MAP;
        node->rep_level = (int16_t)(rep + 1);
        struct basalt_parquet_wnode *en = &b->nodes[depth + 1];
        en->kind = BASALT_PARQUET_WNODE_STRUCT;
        en->nullable = false;
        en->rep_level = 0;
        for (int k = 0; k < 2 && st == BASALT_OK; k++) {
            const struct ArrowSchema *ch = entries->children[k];
            b->nodes[depth + 1].child = k;
            st = walk(b, ch, k == 0 ? "key" : "value",
                      k == 1 && (ch->flags & ARROW_FLAG_NULLABLE) != 0, depth + 2,
                      (int16_t)(d + 1), (int16_t)(rep + 1), err);
        }
    } else {
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "column '%s': Arrow type '%s' is not written yet", name, fmt);
    }
    b->path_len = path_mark;
    return st;
}

static basalt_status field_id_of(const struct ArrowSchema *f,
                                 struct basalt_parquet_schema_element *e, struct basalt_error *err)
{
    const char *value;
    size_t len;
    basalt_status st = basalt_arrow_metadata_get(f->metadata, "PARQUET:field_id", &value, &len,
                                                 err);
    if (st == BASALT_NOT_FOUND) {
        basalt_error_init(err);
        return BASALT_OK;
    }
    if (st != BASALT_OK)
        return st;
    char buf[24];
    char *end;
    if (len == 0 || len >= sizeof buf)
        return basalt_error_set(err, BASALT_CORRUPT, "bad PARQUET:field_id");
    memcpy(buf, value, len);
    buf[len] = '\0';
    long long id = strtoll(buf, &end, 10);
    if (*end || id < INT32_MIN || id > INT32_MAX)
        return basalt_error_set(err, BASALT_CORRUPT, "bad PARQUET:field_id '%s'", buf);
    e->has_field_id = true;
    e->field_id = (int32_t)id;
    return BASALT_OK;
}

/* Field ids of group elements (leaves get theirs in wcolumn_init): walks the
 * Arrow fields in the order walk() added elements. */
static basalt_status group_ids(const struct ArrowSchema *f, struct wbuild *b, size_t *pos,
                               struct basalt_error *err)
{
    struct basalt_parquet_schema_element *e = &b->elements[(*pos)++];
    if (f->dictionary || f->format[0] != '+')
        return BASALT_OK;
    basalt_status st = field_id_of(f, e, err);
    if (st != BASALT_OK)
        return st;
    if (strcmp(f->format, "+s") == 0) {
        for (int64_t k = 0; k < f->n_children && st == BASALT_OK; k++)
            st = group_ids(f->children[k], b, pos, err);
        return st;
    }
    (*pos)++; /* "list" or "key_value" */
    if (f->format[1] == 'm') {
        const struct ArrowSchema *entries = f->children[0];
        st = group_ids(entries->children[0], b, pos, err);
        if (st == BASALT_OK)
            st = group_ids(entries->children[1], b, pos, err);
        return st;
    }
    return group_ids(f->children[0], b, pos, err);
}

basalt_status basalt_parquet_wschema_build(const struct ArrowSchema *schema,
                                           struct basalt_arena *arena,
                                           struct basalt_parquet_schema_element **elements,
                                           size_t *num_elements,
                                           struct basalt_parquet_wcolumn **cols, int32_t *ncols,
                                           struct basalt_error *err)
{
    struct wbuild b;
    memset(&b, 0, sizeof b);
    b.arena = arena;
    basalt_status st = BASALT_OK;
    struct basalt_parquet_schema_element *root = add_element(&b, "schema", -1, err);
    if (!root)
        st = BASALT_NOMEM;
    b.path_len = 0;
    if (root) {
        root->has_num_children = true;
        root->num_children = (int32_t)schema->n_children;
    }
    for (int64_t i = 0; st == BASALT_OK && i < schema->n_children; i++) {
        const struct ArrowSchema *f = schema->children[i];
        b.top = (int32_t)i;
        st = walk(&b, f, f->name ? f->name : "", (f->flags & ARROW_FLAG_NULLABLE) != 0, 0, 0, 0,
                  err);
    }
    size_t pos = 1;
    for (int64_t i = 0; st == BASALT_OK && i < schema->n_children; i++)
        st = group_ids(schema->children[i], &b, &pos, err);
    *elements = b.elements;
    *num_elements = b.num_elements;
    *cols = b.cols;
    *ncols = b.ncols;
    return st;
}
