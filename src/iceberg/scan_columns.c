/* Which columns a scan reads and returns: pruned copies of schema fields. */
#include <string.h>

#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_metadata.h"
#include "scan_internal.h"

static bool has_id(const int32_t *ids, size_t n, int32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id)
            return true;
    return false;
}

const struct basalt_iceberg_field *basalt_iceberg_field_prune(struct basalt_arena *arena,
                                                              const struct basalt_iceberg_field *field,
                                                              const int32_t *ids, size_t n_ids,
                                                              bool *nomem)
{
    if (has_id(ids, n_ids, field->id))
        return field;
    const struct basalt_iceberg_type *t = &field->type;
    if (t->n_fields == 0 || (t->id != BASALT_ICEBERG_TYPE_STRUCT && t->id != BASALT_ICEBERG_TYPE_LIST &&
                             t->id != BASALT_ICEBERG_TYPE_MAP))
        return NULL;
    const struct basalt_iceberg_field **kept =
        basalt_arena_alloc(arena, t->n_fields * sizeof *kept, _Alignof(void *));
    if (kept == NULL) {
        *nomem = true;
        return NULL;
    }
    uint32_t n_kept = 0;
    bool all_same = true;
    for (uint32_t i = 0; i < t->n_fields; i++) {
        kept[i] = basalt_iceberg_field_prune(arena, &t->fields[i], ids, n_ids, nomem);
        if (*nomem)
            return NULL;
        if (kept[i] != NULL)
            n_kept++;
        if (kept[i] != &t->fields[i])
            all_same = false;
    }
    if (n_kept == 0)
        return NULL;
    if (all_same)
        return field;
    struct basalt_iceberg_field *copy = basalt_arena_alloc(arena, sizeof *copy, _Alignof(struct basalt_iceberg_field));
    if (copy == NULL) {
        *nomem = true;
        return NULL;
    }
    *copy = *field;
    if (t->id == BASALT_ICEBERG_TYPE_STRUCT) {
        struct basalt_iceberg_field *children =
            basalt_arena_alloc(arena, n_kept * sizeof *children, _Alignof(struct basalt_iceberg_field));
        if (children == NULL) {
            *nomem = true;
            return NULL;
        }
        uint32_t k = 0;
        for (uint32_t i = 0; i < t->n_fields; i++)
            if (kept[i] != NULL)
                children[k++] = *kept[i];
        copy->type.fields = children;
        copy->type.n_fields = n_kept;
    } else {
        /* a list element or a map value pruned below: the key of a map stays whole */
        struct basalt_iceberg_field *children =
            basalt_arena_alloc(arena, t->n_fields * sizeof *children, _Alignof(struct basalt_iceberg_field));
        if (children == NULL) {
            *nomem = true;
            return NULL;
        }
        for (uint32_t i = 0; i < t->n_fields; i++)
            children[i] = kept[i] != NULL ? *kept[i] : t->fields[i];
        copy->type.fields = children;
    }
    return copy;
}

bool basalt_iceberg_field_same_shape(const struct basalt_iceberg_field *a,
                                     const struct basalt_iceberg_field *b)
{
    if (a == b)
        return true;
    if (a->id != b->id || a->type.id != b->type.id || a->type.n_fields != b->type.n_fields)
        return false;
    for (uint32_t i = 0; i < a->type.n_fields; i++)
        if (!basalt_iceberg_field_same_shape(&a->type.fields[i], &b->type.fields[i]))
            return false;
    return true;
}

static basalt_status push_id(int32_t **ids, size_t *n, size_t *cap, int32_t id,
                             struct basalt_error *err)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        int32_t *p = basalt_realloc(*ids, nc * sizeof *p);
        if (p == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        *ids = p;
        *cap = nc;
    }
    (*ids)[(*n)++] = id;
    return BASALT_OK;
}

basalt_status basalt_iceberg_field_collect_ids(const struct basalt_iceberg_field *field,
                                               int32_t **ids, size_t *n, size_t *cap,
                                               struct basalt_error *err)
{
    basalt_status st = push_id(ids, n, cap, field->id, err);
    for (uint32_t i = 0; i < field->type.n_fields && st == BASALT_OK; i++)
        st = basalt_iceberg_field_collect_ids(&field->type.fields[i], ids, n, cap, err);
    return st;
}

static bool subtree_has(const struct basalt_iceberg_field *field, int32_t id)
{
    if (field->id == id)
        return true;
    for (uint32_t i = 0; i < field->type.n_fields; i++)
        if (subtree_has(&field->type.fields[i], id))
            return true;
    return false;
}

static basalt_status expr_ids(const struct basalt_iceberg_expr *e, int32_t **ids, size_t *n,
                              size_t *cap, int depth, struct basalt_error *err)
{
    if (e == NULL)
        return BASALT_OK;
    if (depth > 10000)
        return basalt_error_set(err, BASALT_LIMIT, "filter nested too deeply");
    switch (e->op) {
    case BASALT_ICEBERG_OP_TRUE:
    case BASALT_ICEBERG_OP_FALSE:
        return BASALT_OK;
    case BASALT_ICEBERG_OP_AND:
    case BASALT_ICEBERG_OP_OR:
    case BASALT_ICEBERG_OP_NOT: {
        basalt_status st = expr_ids(e->left, ids, n, cap, depth + 1, err);
        if (st == BASALT_OK && e->op != BASALT_ICEBERG_OP_NOT)
            st = expr_ids(e->right, ids, n, cap, depth + 1, err);
        return st;
    }
    default:
        return push_id(ids, n, cap, e->field_id, err);
    }
}

static const struct basalt_iceberg_field *meta_field(struct basalt_arena *arena, int32_t id,
                                                     const char *name,
                                                     enum basalt_iceberg_type_id type)
{
    struct basalt_iceberg_field *f = basalt_arena_alloc(arena, sizeof *f, _Alignof(struct basalt_iceberg_field));
    if (f == NULL)
        return NULL;
    memset(f, 0, sizeof *f);
    f->id = id;
    f->name = name;
    f->required = true;
    f->type.id = type;
    f->initial_default.is_null = true;
    f->write_default.is_null = true;
    return f;
}

struct out_spec {
    enum basalt_iceberg_column_kind kind;
    const struct basalt_iceberg_field *top;
    int32_t *ids;
    size_t n_ids, cap;
};

static basalt_status arrow_of(const struct basalt_iceberg_column *cols, uint32_t n,
                              const struct basalt_iceberg_field *const *fields,
                              struct ArrowSchema *out, struct basalt_error *err)
{
    basalt_status st = basalt_arrow_schema_init(out, "+s", "", 0, n, err);
    for (uint32_t i = 0; i < n && st == BASALT_OK; i++)
        st = basalt_iceberg_scan_field_to_arrow(fields ? fields[i] : cols[i].field, out->children[i], err);
    if (st != BASALT_OK)
        basalt_arrow_schema_release(out);
    return st;
}

void basalt_iceberg_layout_reset(struct basalt_iceberg_layout *layout)
{
    basalt_arrow_schema_release(&layout->arrow);
    basalt_arrow_schema_release(&layout->out_arrow);
    basalt_free(layout->cols);
    basalt_free(layout->out_index);
    basalt_free(layout->out_fields);
    basalt_free(layout->out_narrow);
    memset(layout, 0, sizeof *layout);
}

static enum basalt_iceberg_column_kind meta_kind(const char *name, bool *is_meta)
{
    *is_meta = true;
    if (strcmp(name, "_file") == 0)
        return BASALT_ICEBERG_COLUMN_FILE;
    if (strcmp(name, "_pos") == 0)
        return BASALT_ICEBERG_COLUMN_POS;
    if (strcmp(name, "_spec_id") == 0)
        return BASALT_ICEBERG_COLUMN_SPEC_ID;
    if (strcmp(name, "_partition") == 0)
        return BASALT_ICEBERG_COLUMN_PARTITION;
    if (strcmp(name, BASALT_ICEBERG_ROW_ID_NAME) == 0)
        return BASALT_ICEBERG_COLUMN_ROW_ID;
    if (strcmp(name, BASALT_ICEBERG_LAST_UPDATED_SEQ_NAME) == 0)
        return BASALT_ICEBERG_COLUMN_LAST_UPDATED_SEQ;
    *is_meta = false;
    return BASALT_ICEBERG_COLUMN_DATA;
}

basalt_status basalt_iceberg_layout_build(struct basalt_iceberg_scan *scan,
                                          const char *const *columns, size_t n_columns,
                                          const int32_t *extra_ids, size_t n_extra,
                                          struct basalt_iceberg_layout *layout,
                                          struct basalt_error *err)
{
    const struct basalt_iceberg_schema *schema = scan->schema;
    const struct basalt_iceberg_type *root = &schema->root;
    struct basalt_arena *arena = &scan->arena;
    memset(layout, 0, sizeof *layout);
    basalt_status st = BASALT_OK;
    size_t n_specs = columns ? n_columns : root->n_fields;
    struct out_spec *specs = basalt_calloc(n_specs ? n_specs : 1, sizeof *specs);
    int32_t *extra = NULL;
    size_t n_x = 0, cap_x = 0;
    size_t n_out = 0;
    if (specs == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");

    if (columns == NULL) {
        for (uint32_t i = 0; i < root->n_fields && st == BASALT_OK; i++) {
            specs[n_out].kind = BASALT_ICEBERG_COLUMN_DATA;
            specs[n_out].top = &root->fields[i];
            st = push_id(&specs[n_out].ids, &specs[n_out].n_ids, &specs[n_out].cap,
                         root->fields[i].id, err);
            n_out++;
        }
    } else {
        for (size_t c = 0; c < n_columns && st == BASALT_OK; c++) {
            bool is_meta;
            enum basalt_iceberg_column_kind kind = meta_kind(columns[c], &is_meta);
            if (is_meta) {
                bool dup = false;
                for (size_t k = 0; k < n_out; k++)
                    dup = dup || specs[k].kind == kind;
                if (!dup)
                    specs[n_out++].kind = kind;
                continue;
            }
            const struct basalt_iceberg_field *f =
                basalt_iceberg_schema_field_by_name(schema, columns[c], scan->options.case_sensitive);
            if (f == NULL) {
                st = basalt_error_set(err, BASALT_NOT_FOUND, "column '%s' not found", columns[c]);
                break;
            }
            const struct basalt_iceberg_field *top = NULL;
            for (uint32_t i = 0; i < root->n_fields && top == NULL; i++)
                if (subtree_has(&root->fields[i], f->id))
                    top = &root->fields[i];
            if (top == NULL) {
                st = basalt_error_set(err, BASALT_NOT_FOUND, "column '%s' not found", columns[c]);
                break;
            }
            size_t k = 0;
            while (k < n_out && !(specs[k].kind == BASALT_ICEBERG_COLUMN_DATA && specs[k].top == top))
                k++;
            if (k == n_out) {
                specs[k].kind = BASALT_ICEBERG_COLUMN_DATA;
                specs[k].top = top;
                n_out++;
            }
            st = push_id(&specs[k].ids, &specs[k].n_ids, &specs[k].cap, f->id, err);
        }
    }
    if (st == BASALT_OK && scan->options.filter_rows)
        st = expr_ids(scan->bound, &extra, &n_x, &cap_x, 0, err);
    for (size_t i = 0; i < n_extra && st == BASALT_OK; i++)
        st = push_id(&extra, &n_x, &cap_x, extra_ids[i], err);
    if (st != BASALT_OK)
        goto done;

    /* at most: every output column, plus every top-level field */
    size_t max_cols = n_out + root->n_fields;
    layout->cols = basalt_calloc(max_cols ? max_cols : 1, sizeof *layout->cols);
    layout->out_index = basalt_calloc(n_out ? n_out : 1, sizeof *layout->out_index);
    layout->out_fields = basalt_calloc(n_out ? n_out : 1, sizeof *layout->out_fields);
    layout->out_narrow = basalt_calloc(n_out ? n_out : 1, sizeof *layout->out_narrow);
    if (!layout->cols || !layout->out_index || !layout->out_fields || !layout->out_narrow) {
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        goto done;
    }
    bool nomem = false;
    for (size_t k = 0; k < n_out; k++) {
        struct basalt_iceberg_column *col = &layout->cols[k];
        col->kind = specs[k].kind;
        const struct basalt_iceberg_field *out_field = NULL;
        switch (specs[k].kind) {
        case BASALT_ICEBERG_COLUMN_FILE:
            out_field = meta_field(arena, BASALT_ICEBERG_FIELD_ID_FILE_PATH, "_file", BASALT_ICEBERG_TYPE_STRING);
            break;
        case BASALT_ICEBERG_COLUMN_POS:
            out_field = meta_field(arena, BASALT_ICEBERG_FIELD_ID_POS, "_pos", BASALT_ICEBERG_TYPE_LONG);
            layout->needs_pos = true;
            break;
        case BASALT_ICEBERG_COLUMN_SPEC_ID:
            out_field = meta_field(arena, BASALT_ICEBERG_FIELD_ID_SPEC_ID, "_spec_id", BASALT_ICEBERG_TYPE_INT);
            break;
        case BASALT_ICEBERG_COLUMN_PARTITION:
            out_field = scan->partition_type;
            break;
        case BASALT_ICEBERG_COLUMN_ROW_ID:
            out_field = basalt_iceberg_row_lineage_field(BASALT_ICEBERG_FIELD_ID_ROW_ID);
            layout->needs_pos = true; /* inherited ids are first_row_id + _pos */
            break;
        case BASALT_ICEBERG_COLUMN_LAST_UPDATED_SEQ:
            out_field = basalt_iceberg_row_lineage_field(BASALT_ICEBERG_FIELD_ID_LAST_UPDATED_SEQ);
            break;
        case BASALT_ICEBERG_COLUMN_DATA: {
            out_field = basalt_iceberg_field_prune(arena, specs[k].top, specs[k].ids, specs[k].n_ids, &nomem);
            if (nomem)
                break;
            /* widened by what the filter and the deletes need below it */
            for (size_t x = 0; x < n_x && !nomem; x++)
                if (subtree_has(specs[k].top, extra[x]))
                    st = push_id(&specs[k].ids, &specs[k].n_ids, &specs[k].cap, extra[x], err);
            if (st != BASALT_OK)
                goto done;
            col->field = basalt_iceberg_field_prune(arena, specs[k].top, specs[k].ids, specs[k].n_ids, &nomem);
            break;
        }
        }
        if (nomem || out_field == NULL) {
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
            goto done;
        }
        if (col->field == NULL)
            col->field = out_field;
        layout->out_fields[k] = out_field;
        layout->out_index[k] = (uint32_t)k;
        layout->out_narrow[k] = !basalt_iceberg_field_same_shape(col->field, out_field);
    }
    layout->n_out = (uint32_t)n_out;
    layout->n_cols = (uint32_t)n_out;
    for (uint32_t i = 0; i < root->n_fields; i++) {
        const struct basalt_iceberg_field *top = &root->fields[i];
        bool taken = false;
        for (size_t k = 0; k < n_out; k++)
            taken = taken || (specs[k].kind == BASALT_ICEBERG_COLUMN_DATA && specs[k].top == top);
        if (taken)
            continue;
        const struct basalt_iceberg_field *p = basalt_iceberg_field_prune(arena, top, extra, n_x, &nomem);
        if (nomem) {
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
            goto done;
        }
        if (p != NULL) {
            layout->cols[layout->n_cols].kind = BASALT_ICEBERG_COLUMN_DATA;
            layout->cols[layout->n_cols].field = p;
            layout->n_cols++;
        }
    }
    st = arrow_of(layout->cols, layout->n_cols, NULL, &layout->arrow, err);
    if (st == BASALT_OK)
        st = arrow_of(NULL, layout->n_out, layout->out_fields, &layout->out_arrow, err);
done:
    for (size_t k = 0; k < n_specs; k++)
        basalt_free(specs[k].ids);
    basalt_free(specs);
    basalt_free(extra);
    if (st != BASALT_OK)
        basalt_iceberg_layout_reset(layout);
    return st;
}

basalt_status basalt_iceberg_layout_for_fields(const struct basalt_iceberg_field *const *fields,
                                               uint32_t n, struct basalt_iceberg_layout *layout,
                                               struct basalt_error *err)
{
    memset(layout, 0, sizeof *layout);
    layout->cols = basalt_calloc(n ? n : 1, sizeof *layout->cols);
    layout->out_index = basalt_calloc(n ? n : 1, sizeof *layout->out_index);
    layout->out_fields = basalt_calloc(n ? n : 1, sizeof *layout->out_fields);
    layout->out_narrow = basalt_calloc(n ? n : 1, sizeof *layout->out_narrow);
    if (!layout->cols || !layout->out_index || !layout->out_fields || !layout->out_narrow) {
        basalt_iceberg_layout_reset(layout);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < n; i++) {
        layout->cols[i].kind = BASALT_ICEBERG_COLUMN_DATA;
        layout->cols[i].field = fields[i];
        layout->out_index[i] = i;
        layout->out_fields[i] = fields[i];
    }
    layout->n_cols = layout->n_out = n;
    basalt_status st = arrow_of(layout->cols, n, NULL, &layout->arrow, err);
    if (st == BASALT_OK)
        st = arrow_of(NULL, n, layout->out_fields, &layout->out_arrow, err);
    if (st != BASALT_OK)
        basalt_iceberg_layout_reset(layout);
    return st;
}
