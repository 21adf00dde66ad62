/* Selecting columns: dotted paths over the reader's schema become a tree of
 * the records they pass through, each leaf a column with its slot type. */
#include "avro_plan.h"

/* The record a path steps into: the node itself, or the one record branch
 * of a union whose other branches are null. */
static const struct basalt_avro_node *record_of(const struct basalt_avro_node *n)
{
    if (n->type == BASALT_AVRO_RECORD)
        return n;
    if (n->type != BASALT_AVRO_UNION)
        return NULL;
    const struct basalt_avro_node *rec = NULL;
    for (uint32_t i = 0; i < n->count; i++) {
        const struct basalt_avro_node *b = n->branches[i];
        if (b->type == BASALT_AVRO_NULL)
            continue;
        if (b->type != BASALT_AVRO_RECORD || rec)
            return NULL;
        rec = b;
    }
    return rec;
}

/* The type a leaf holds: through a union of null and one type, that type;
 * a union of only nulls is null; other unions stay unions. */
static const struct basalt_avro_node *leaf_base(const struct basalt_avro_node *n)
{
    if (n->type != BASALT_AVRO_UNION)
        return n;
    const struct basalt_avro_node *base = NULL, *null = NULL;
    for (uint32_t i = 0; i < n->count; i++) {
        const struct basalt_avro_node *b = n->branches[i];
        if (b->type == BASALT_AVRO_NULL) {
            null = b;
            continue;
        }
        if (base)
            return n;
        base = b;
    }
    return base ? base : null ? null : n;
}

static enum basalt_avro_slot_type natural_slot(const struct basalt_avro_node *base)
{
    switch (base->type) {
    case BASALT_AVRO_NULL:
    case BASALT_AVRO_BOOLEAN:
        return BASALT_AVRO_SLOT_BOOL;
    case BASALT_AVRO_INT:
    case BASALT_AVRO_ENUM:
        return BASALT_AVRO_SLOT_INT32;
    case BASALT_AVRO_LONG:
        return BASALT_AVRO_SLOT_INT64;
    case BASALT_AVRO_FLOAT:
        return BASALT_AVRO_SLOT_FLOAT;
    case BASALT_AVRO_DOUBLE:
        return BASALT_AVRO_SLOT_DOUBLE;
    case BASALT_AVRO_BYTES:
    case BASALT_AVRO_STRING:
    case BASALT_AVRO_FIXED:
        return BASALT_AVRO_SLOT_BYTES;
    default:
        return BASALT_AVRO_SLOT_RAW;
    }
}

static bool slot_allows(enum basalt_avro_slot_type t, const struct basalt_avro_node *base)
{
    enum basalt_avro_type b = base->type;
    if (t == BASALT_AVRO_SLOT_RAW || b == BASALT_AVRO_NULL)
        return true;
    switch (t) {
    case BASALT_AVRO_SLOT_BOOL:
        return b == BASALT_AVRO_BOOLEAN;
    case BASALT_AVRO_SLOT_INT32:
        return b == BASALT_AVRO_INT || b == BASALT_AVRO_ENUM;
    case BASALT_AVRO_SLOT_INT64:
        return b == BASALT_AVRO_INT || b == BASALT_AVRO_LONG || b == BASALT_AVRO_ENUM;
    case BASALT_AVRO_SLOT_FLOAT:
        return b == BASALT_AVRO_FLOAT;
    case BASALT_AVRO_SLOT_DOUBLE:
        return b == BASALT_AVRO_INT || b == BASALT_AVRO_LONG || b == BASALT_AVRO_FLOAT ||
               b == BASALT_AVRO_DOUBLE;
    case BASALT_AVRO_SLOT_BYTES:
        return b == BASALT_AVRO_STRING || b == BASALT_AVRO_BYTES || b == BASALT_AVRO_FIXED;
    default:
        return false;
    }
}

static basalt_status nomem(struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_NOMEM, "out of memory compiling a plan");
}

static void *calloc_arena(struct basalt_arena *arena, size_t size)
{
    void *p = basalt_arena_alloc(arena, size ? size : 1, 8);
    if (p)
        memset(p, 0, size ? size : 1);
    return p;
}

static basalt_status new_sel(struct basalt_arena *arena, const struct basalt_avro_node *record,
                             int32_t col, struct avro_sel **out, struct basalt_error *err)
{
    struct avro_sel *s = calloc_arena(arena, sizeof *s);
    if (!s)
        return nomem(err);
    s->col = col;
    s->record = record;
    if (record && !(s->fields = calloc_arena(arena, sizeof *s->fields * record->count)))
        return nomem(err);
    *out = s;
    return BASALT_OK;
}

basalt_status basalt_avro_select_column(struct basalt_avro_plan *plan, struct avro_sel **root,
                                        const struct basalt_avro_node *root_node, size_t col,
                                        const struct basalt_avro_column *spec,
                                        struct basalt_error *err)
{
    const char *path = spec->path ? spec->path : "";
    struct avro_sel **slot = root;
    const struct basalt_avro_node *n = root_node;
    const char *p = path;
    while (*path) {
        const struct basalt_avro_node *rec = record_of(n);
        if (!rec)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "column '%s': '%.*s' is not a record", path,
                                    (int)(p > path ? p - path - 1 : 0), path);
        if (*slot && (*slot)->col >= 0)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "column '%s' overlaps another column", path);
        basalt_status st;
        if (!*slot && (st = new_sel(&plan->arena, rec, -1, slot, err)) != BASALT_OK)
            return st;
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        int32_t idx = -1;
        for (uint32_t i = 0; i < rec->count; i++)
            if (strlen(rec->fields[i].name) == len && memcmp(rec->fields[i].name, p, len) == 0)
                idx = (int32_t)i;
        if (idx < 0)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "column '%s': record %s has no field '%.*s'", path, rec->name,
                                    (int)len, p);
        slot = &(*slot)->fields[idx];
        n = rec->fields[idx].type;
        if (!dot)
            break;
        p = dot + 1;
    }
    if (*slot)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "column '%s' is selected twice or overlaps another", path);
    basalt_status st = new_sel(&plan->arena, NULL, (int32_t)col, slot, err);
    if (st != BASALT_OK)
        return st;
    struct avro_plan_col *pc = &plan->cols[col];
    const struct basalt_avro_node *base = leaf_base(n);
    pc->node = n;
    pc->type = spec->type == BASALT_AVRO_SLOT_AUTO ? natural_slot(base) : spec->type;
    if ((unsigned)pc->type > BASALT_AVRO_SLOT_RAW)
        return basalt_error_set(err, BASALT_INVALID_ARG, "column '%s': unknown slot type",
                                path);
    if (!slot_allows(pc->type, base))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "column '%s': a %s%s%s cannot be stored in this slot type", path,
                                basalt_avro_type_name(base->type), base->name ? " " : "",
                                base->name ? base->name : "");
    pc->size = (uint8_t)basalt_avro_slot_size(pc->type);
    pc->path = basalt_arena_strndup(&plan->arena, path, strlen(path));
    return pc->path ? BASALT_OK : nomem(err);
}
