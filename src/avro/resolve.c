/* Schema resolution (specification, "Schema Resolution"): builds the action
 * graph that the resolved decoder and the plan compiler follow. */
#include <jansson.h>

#include "avro_resolve.h"

struct memo {
    const struct basalt_avro_node *w;
    const struct basalt_avro_node *r;
    struct avro_rnode *rn;
};

struct rctx {
    struct basalt_arena *arena;
    struct basalt_buffer memo; /* struct memo, records only: they are the only cycles */
    struct basalt_buffer all;  /* every rnode, for the identity fixpoint */
    struct basalt_error *err;
};

static basalt_status nomem(struct rctx *c)
{
    return basalt_error_set(c->err, BASALT_NOMEM, "out of memory resolving schemas");
}

static void *ralloc(struct rctx *c, size_t size)
{
    void *p = basalt_arena_alloc(c->arena, size ? size : 1, 8);
    if (p)
        memset(p, 0, size ? size : 1);
    return p;
}

static bool names_match(const struct basalt_avro_node *w, const struct basalt_avro_node *r)
{
    if (strcmp(w->name, r->name) == 0 || strcmp(w->short_name, r->short_name) == 0)
        return true;
    for (uint32_t i = 0; i < r->alias_count; i++) {
        const char *a = r->aliases[i];
        const char *dot = strrchr(a, '.');
        if (strcmp(a, w->name) == 0 || strcmp(dot ? dot + 1 : a, w->short_name) == 0)
            return true;
    }
    return false;
}

static bool promotable(enum basalt_avro_type w, enum basalt_avro_type r)
{
    switch (w) {
    case BASALT_AVRO_INT:
        return r == BASALT_AVRO_LONG || r == BASALT_AVRO_FLOAT || r == BASALT_AVRO_DOUBLE;
    case BASALT_AVRO_LONG:
        return r == BASALT_AVRO_FLOAT || r == BASALT_AVRO_DOUBLE;
    case BASALT_AVRO_FLOAT:
        return r == BASALT_AVRO_DOUBLE;
    case BASALT_AVRO_STRING:
        return r == BASALT_AVRO_BYTES;
    case BASALT_AVRO_BYTES:
        return r == BASALT_AVRO_STRING;
    default:
        return false;
    }
}

/* Whether reader branch `r` is a candidate for writer type `w`. */
static bool branch_matches(const struct basalt_avro_node *w, const struct basalt_avro_node *r)
{
    if (w->type == r->type) {
        if (w->type == BASALT_AVRO_FIXED)
            return w->size == r->size && names_match(w, r);
        if (w->type == BASALT_AVRO_RECORD || w->type == BASALT_AVRO_ENUM)
            return names_match(w, r);
        return true;
    }
    return promotable(w->type, r->type);
}

static const char *describe(const struct basalt_avro_node *n)
{
    return n->name ? n->name : basalt_avro_type_name(n->type);
}

static basalt_status mismatch(struct rctx *c, const struct basalt_avro_node *w,
                              const struct basalt_avro_node *r)
{
    return basalt_error_set(c->err, BASALT_INVALID_ARG, "cannot read the writer's %s%s%s as %s%s%s",
                            basalt_avro_type_name(w->type), w->name ? " " : "",
                            w->name ? w->name : "", basalt_avro_type_name(r->type),
                            r->name ? " " : "", r->name ? r->name : "");
}

static basalt_status resolve(struct rctx *c, const struct basalt_avro_node *w,
                             const struct basalt_avro_node *r, uint32_t depth,
                             struct avro_rnode **out);

static basalt_status new_rnode(struct rctx *c, enum avro_rkind kind,
                               const struct basalt_avro_node *w,
                               const struct basalt_avro_node *r, struct avro_rnode **out)
{
    struct avro_rnode *rn = ralloc(c, sizeof *rn);
    if (!rn)
        return nomem(c);
    rn->kind = kind;
    rn->w = w;
    rn->r = r;
    if (basalt_buffer_append(&c->all, &rn, sizeof rn, NULL) != BASALT_OK)
        return nomem(c);
    *out = rn;
    return BASALT_OK;
}

static basalt_status resolve_writer_union(struct rctx *c, const struct basalt_avro_node *w,
                                          const struct basalt_avro_node *r, uint32_t depth,
                                          struct avro_rnode **out)
{
    struct avro_rnode *rn;
    basalt_status st = new_rnode(c, AVRO_R_WUNION, w, r, &rn);
    if (st != BASALT_OK)
        return st;
    rn->branches = ralloc(c, sizeof *rn->branches * w->count);
    if (!rn->branches)
        return nomem(c);
    bool identity = r->type == BASALT_AVRO_UNION && r->count == w->count;
    for (uint32_t i = 0; i < w->count; i++) {
        st = resolve(c, w->branches[i], r, depth + 1, &rn->branches[i]);
        if (st == BASALT_INVALID_ARG) {
            /* Only an error if such a value is read. */
            rn->branches[i] = NULL;
            identity = false;
            continue;
        }
        if (st != BASALT_OK)
            return st;
        const struct avro_rnode *b = rn->branches[i];
        if (!(b->kind == AVRO_R_RUNION && b->branch == i))
            identity = false;
    }
    basalt_error_init(c->err);
    rn->identity = identity;
    *out = rn;
    return BASALT_OK;
}

static basalt_status resolve_enum(struct rctx *c, const struct basalt_avro_node *w,
                                  const struct basalt_avro_node *r, struct avro_rnode *rn)
{
    rn->enum_map = ralloc(c, sizeof *rn->enum_map * w->count);
    if (!rn->enum_map)
        return nomem(c);
    bool identity = w->count == r->count;
    for (uint32_t i = 0; i < w->count; i++) {
        rn->enum_map[i] = r->enum_default;
        for (uint32_t j = 0; j < r->count; j++)
            if (strcmp(w->symbols[i], r->symbols[j]) == 0) {
                rn->enum_map[i] = (int32_t)j;
                break;
            }
        if (rn->enum_map[i] != (int32_t)i)
            identity = false;
    }
    rn->identity = identity;
    return BASALT_OK;
}

static int32_t find_writer_field(const struct basalt_avro_node *w,
                                 const struct basalt_avro_field *rf)
{
    int32_t k = basalt_avro_node_field_index(w, rf->name);
    for (uint32_t a = 0; k < 0 && a < rf->alias_count; a++)
        k = basalt_avro_node_field_index(w, rf->aliases[a]);
    return k;
}

static basalt_status resolve_record_body(struct rctx *c, const struct basalt_avro_node *w,
                                         const struct basalt_avro_node *r, uint32_t depth,
                                         struct avro_rnode **out)
{
    const struct memo *m = (const struct memo *)(const void *)c->memo.data;
    for (size_t i = 0; i < c->memo.size / sizeof *m; i++)
        if (m[i].w == w && m[i].r == r) {
            *out = m[i].rn;
            return BASALT_OK;
        }
    struct avro_rnode *rn;
    basalt_status st = new_rnode(c, AVRO_R_RECORD, w, r, &rn);
    if (st != BASALT_OK)
        return st;
    struct memo entry = {w, r, rn};
    if (basalt_buffer_append(&c->memo, &entry, sizeof entry, NULL) != BASALT_OK)
        return nomem(c);
    rn->fields = ralloc(c, sizeof *rn->fields * w->count);
    rn->defaults = ralloc(c, sizeof *rn->defaults * r->count);
    if (!rn->fields || !rn->defaults)
        return nomem(c);
    for (uint32_t i = 0; i < w->count; i++) {
        rn->fields[i].reader_index = -1;
        rn->fields[i].writer_type = w->fields[i].type;
    }
    bool identity = w->count == r->count;
    for (uint32_t j = 0; j < r->count; j++) {
        const struct basalt_avro_field *rf = &r->fields[j];
        int32_t k = find_writer_field(w, rf);
        if (k >= 0 && rn->fields[k].reader_index < 0) {
            rn->fields[k].reader_index = (int32_t)j;
            st = resolve(c, w->fields[k].type, rf->type, depth + 1, &rn->fields[k].child);
            if (st != BASALT_OK)
                return basalt_error_context(c->err, st, "field '%s'", rf->name);
            if ((uint32_t)k != j)
                identity = false;
            continue;
        }
        identity = false;
        if (!rf->default_json)
            return basalt_error_set(c->err, BASALT_INVALID_ARG,
                                    "field '%s' of record %s is not in the writer's schema and "
                                    "has no default",
                                    rf->name, r->name);
        json_t *def = json_loads(rf->default_json, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
        if (!def)
            return nomem(c);
        struct avro_rdefault *d = &rn->defaults[rn->default_count++];
        d->reader_index = j;
        st = basalt_avro_value_from_jansson(rf->type, def, c->arena, &d->value, c->err);
        json_decref(def);
        if (st != BASALT_OK)
            return basalt_error_context(c->err, st == BASALT_CORRUPT ? BASALT_INVALID_ARG : st,
                                        "default of field '%s' of record %s", rf->name, r->name);
    }
    rn->identity = identity; /* so far: the children are checked at the end */
    *out = rn;
    return BASALT_OK;
}

/* A record that fails to resolve leaves the memo as it was, so that no later
 * lookup (inside another writer union branch) finds its half-built node. */
static basalt_status resolve_record(struct rctx *c, const struct basalt_avro_node *w,
                                    const struct basalt_avro_node *r, uint32_t depth,
                                    struct avro_rnode **out)
{
    size_t mark = c->memo.size;
    basalt_status st = resolve_record_body(c, w, r, depth, out);
    if (st != BASALT_OK)
        c->memo.size = mark;
    return st;
}

static basalt_status resolve(struct rctx *c, const struct basalt_avro_node *w,
                             const struct basalt_avro_node *r, uint32_t depth,
                             struct avro_rnode **out)
{
    if (depth > 512)
        return basalt_error_set(c->err, BASALT_LIMIT, "schemas nested too deeply to resolve");
    if (w->type == BASALT_AVRO_UNION)
        return resolve_writer_union(c, w, r, depth, out);
    basalt_status st;
    struct avro_rnode *rn;
    if (r->type == BASALT_AVRO_UNION) {
        /* The first branch of the writer's own type (and full name), else the
         * first that matches by promotion or unqualified name or alias: a value
         * keeps its type when it can (the
         * specification's "first match" alone would read the int branch of
         * ["long","int"] as a long). */
        uint32_t k = r->count;
        for (uint32_t i = 0; i < r->count && k == r->count; i++) {
            const struct basalt_avro_node *b = r->branches[i];
            if (b->type == w->type && (w->name ? strcmp(b->name, w->name) == 0 &&
                                                     (w->type != BASALT_AVRO_FIXED || b->size == w->size)
                                               : true))
                k = i;
        }
        for (uint32_t i = 0; i < r->count && k == r->count; i++)
            if (branch_matches(w, r->branches[i]))
                k = i;
        if (k < r->count) {
            if ((st = new_rnode(c, AVRO_R_RUNION, w, r, &rn)) != BASALT_OK)
                return st;
            rn->branch = k;
            if ((st = resolve(c, w, r->branches[k], depth + 1, &rn->child)) != BASALT_OK)
                return st;
            *out = rn;
            return BASALT_OK;
        }
        return basalt_error_set(c->err, BASALT_INVALID_ARG,
                                "the writer's %s matches no branch of the reader's union",
                                describe(w));
    }
    if (w->type != r->type) {
        if (!promotable(w->type, r->type))
            return mismatch(c, w, r);
        return new_rnode(c, AVRO_R_PROMOTE, w, r, out);
    }
    switch (w->type) {
    case BASALT_AVRO_FIXED:
        if (w->size != r->size || !names_match(w, r))
            return mismatch(c, w, r);
        /* fall through */
    case BASALT_AVRO_NULL:
    case BASALT_AVRO_BOOLEAN:
    case BASALT_AVRO_INT:
    case BASALT_AVRO_LONG:
    case BASALT_AVRO_FLOAT:
    case BASALT_AVRO_DOUBLE:
    case BASALT_AVRO_BYTES:
    case BASALT_AVRO_STRING:
        if ((st = new_rnode(c, AVRO_R_SAME, w, r, &rn)) != BASALT_OK)
            return st;
        rn->identity = true;
        *out = rn;
        return BASALT_OK;
    case BASALT_AVRO_ENUM:
        if (!names_match(w, r))
            return mismatch(c, w, r);
        if ((st = new_rnode(c, AVRO_R_ENUM, w, r, &rn)) != BASALT_OK)
            return st;
        if ((st = resolve_enum(c, w, r, rn)) != BASALT_OK)
            return st;
        *out = rn;
        return BASALT_OK;
    case BASALT_AVRO_ARRAY:
    case BASALT_AVRO_MAP:
        if ((st = new_rnode(c, w->type == BASALT_AVRO_ARRAY ? AVRO_R_ARRAY : AVRO_R_MAP, w, r,
                            &rn)) != BASALT_OK)
            return st;
        if ((st = resolve(c, w->items, r->items, depth + 1, &rn->child)) != BASALT_OK)
            return basalt_error_context(c->err, st, w->type == BASALT_AVRO_ARRAY ? "array items"
                                                                                  : "map values");
        rn->identity = true;
        *out = rn;
        return BASALT_OK;
    case BASALT_AVRO_RECORD:
        if (!names_match(w, r))
            return mismatch(c, w, r);
        st = resolve_record(c, w, r, depth, out);
        if (st != BASALT_OK)
            return basalt_error_context(c->err, st, "record %s", r->name);
        return st;
    case BASALT_AVRO_UNION:
        break;
    }
    return basalt_error_set(c->err, BASALT_INTERNAL, "unknown node type");
}

/* A node reads data as written when it and every node below it do. Nodes
 * start from their own (local) answer and lose it while a child has none:
 * the greatest fixpoint, right for recursive records too. */
static bool children_identity(const struct avro_rnode *rn)
{
    switch (rn->kind) {
    case AVRO_R_ARRAY:
    case AVRO_R_MAP:
        return rn->child->identity;
    case AVRO_R_RECORD:
        for (uint32_t i = 0; i < rn->w->count; i++)
            if (!rn->fields[i].child || !rn->fields[i].child->identity)
                return false;
        return true;
    case AVRO_R_WUNION:
        for (uint32_t i = 0; i < rn->w->count; i++)
            if (!rn->branches[i] || !rn->branches[i]->child->identity)
                return false;
        return true;
    default:
        return true;
    }
}

static void identity_fixpoint(struct rctx *c)
{
    struct avro_rnode **all = (struct avro_rnode **)(void *)c->all.data;
    size_t n = c->all.size / sizeof *all;
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < n; i++)
            if (all[i]->identity && !children_identity(all[i])) {
                all[i]->identity = false;
                changed = true;
            }
    }
}

basalt_status basalt_avro_resolve_nodes(struct basalt_arena *arena,
                                        const struct basalt_avro_node *writer,
                                        const struct basalt_avro_node *reader,
                                        struct avro_rnode **out, struct basalt_error *err)
{
    struct rctx c = {.arena = arena, .err = err};
    basalt_buffer_init(&c.memo);
    basalt_buffer_init(&c.all);
    basalt_status st = resolve(&c, writer, reader, 0, out);
    if (st == BASALT_OK)
        identity_fixpoint(&c);
    basalt_buffer_reset(&c.memo);
    basalt_buffer_reset(&c.all);
    return st;
}

basalt_status basalt_avro_resolution_new(const struct basalt_avro_schema *writer,
                                         const struct basalt_avro_schema *reader,
                                         struct basalt_avro_resolution **out,
                                         struct basalt_error *err)
{
    if (!writer || !reader || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "resolution_new: NULL argument");
    *out = NULL;
    struct basalt_avro_resolution *res = basalt_calloc(1, sizeof *res);
    if (!res)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory resolving schemas");
    basalt_arena_init(&res->arena, 8192);
    res->writer = writer;
    res->reader = reader;
    basalt_status st = basalt_avro_resolve_nodes(&res->arena, writer->root, reader->root,
                                                 &res->root, err);
    if (st != BASALT_OK) {
        basalt_avro_resolution_free(res);
        return st;
    }
    *out = res;
    return BASALT_OK;
}

void basalt_avro_resolution_free(struct basalt_avro_resolution *resolution)
{
    if (!resolution)
        return;
    basalt_arena_reset(&resolution->arena);
    basalt_free(resolution);
}
