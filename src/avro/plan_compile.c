/* Compiling (resolution, selected columns) into the flat op program. */
#include <stdio.h>

#include "avro_plan.h"

struct cctx {
    struct basalt_avro_plan *plan;
    struct basalt_buffer ops;
    struct basalt_error *err;
};

static basalt_status nomem(struct cctx *c)
{
    return basalt_error_set(c->err, BASALT_NOMEM, "out of memory compiling a plan");
}

static void *calloc_arena(struct cctx *c, size_t size)
{
    void *p = basalt_arena_alloc(&c->plan->arena, size ? size : 1, 8);
    if (p)
        memset(p, 0, size ? size : 1);
    return p;
}

/* ------------------------------------------------------------------ emission */

static struct avro_op *op_at(struct cctx *c, size_t i)
{
    return (struct avro_op *)(void *)c->ops.data + i;
}

static size_t op_count(struct cctx *c) { return c->ops.size / sizeof(struct avro_op); }

static basalt_status emit(struct cctx *c, uint8_t code, int32_t col, uint32_t arg,
                          const void *p)
{
    /* Adjacent fixed-size skips merge (branches always end in a jump, so
     * the previous op is never the end of another path). */
    size_t n = op_count(c);
    if (code == AVRO_OP_SKIP_N && n && op_at(c, n - 1)->code == AVRO_OP_SKIP_N &&
        op_at(c, n - 1)->arg <= UINT32_MAX - arg) {
        op_at(c, n - 1)->arg += arg;
        return BASALT_OK;
    }
    struct avro_op op;
    memset(&op, 0, sizeof op);
    op.code = code;
    op.col = (uint16_t)(col < 0 ? 0 : col);
    op.arg = arg;
    op.imm.p = p;
    if (basalt_buffer_append(&c->ops, &op, sizeof op, NULL) != BASALT_OK)
        return nomem(c);
    return BASALT_OK;
}

static basalt_status emit_skip(struct cctx *c, const struct basalt_avro_node *w, uint32_t depth)
{
    switch (w->type) {
    case BASALT_AVRO_NULL:
        return BASALT_OK;
    case BASALT_AVRO_BOOLEAN:
        return emit(c, AVRO_OP_SKIP_N, -1, 1, NULL);
    case BASALT_AVRO_INT:
    case BASALT_AVRO_LONG:
        return emit(c, AVRO_OP_SKIP_VARINT, -1, 0, NULL);
    case BASALT_AVRO_FLOAT:
        return emit(c, AVRO_OP_SKIP_N, -1, 4, NULL);
    case BASALT_AVRO_DOUBLE:
        return emit(c, AVRO_OP_SKIP_N, -1, 8, NULL);
    case BASALT_AVRO_FIXED:
        return w->size ? emit(c, AVRO_OP_SKIP_N, -1, (uint32_t)w->size, NULL) : BASALT_OK;
    case BASALT_AVRO_BYTES:
    case BASALT_AVRO_STRING:
        return emit(c, AVRO_OP_SKIP_BYTES, -1, 0, NULL);
    case BASALT_AVRO_RECORD:
        if (depth < 8) {
            for (uint32_t i = 0; i < w->count; i++) {
                basalt_status st = emit_skip(c, w->fields[i].type, depth + 1);
                if (st != BASALT_OK)
                    return st;
            }
            return BASALT_OK;
        }
        return emit(c, AVRO_OP_SKIP_NODE, -1, 0, w);
    case BASALT_AVRO_UNION:
        /* Optional ints and longs (manifests are full of them) get their own op. */
        if (w->count == 2) {
            for (uint32_t i = 0; i < 2; i++) {
                enum basalt_avro_type other = w->branches[1 - i]->type;
                if (w->branches[i]->type == BASALT_AVRO_NULL &&
                    (other == BASALT_AVRO_INT || other == BASALT_AVRO_LONG))
                    return emit(c, AVRO_OP_SKIP_OPT_VARINT, -1, i, NULL);
            }
        }
        return emit(c, AVRO_OP_SKIP_NODE, -1, 0, w);
    default: /* enums are checked, other unions, arrays, maps walked generically */
        return emit(c, AVRO_OP_SKIP_NODE, -1, 0, w);
    }
}

static basalt_status emit_absent_all(struct cctx *c, const struct avro_sel *s)
{
    if (s->col >= 0)
        return emit(c, AVRO_OP_ABSENT, s->col, 0, NULL);
    for (uint32_t i = 0; i < s->record->count; i++) {
        if (!s->fields[i])
            continue;
        basalt_status st = emit_absent_all(c, s->fields[i]);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static basalt_status emit_error(struct cctx *c, const struct avro_rnode *u, uint32_t i)
{
    const struct basalt_avro_node *wb = u->w->branches[i];
    char msg[256];
    snprintf(msg, sizeof msg, "the writer's union branch %u (%s) cannot be read as the reader's %s",
             i, wb->name ? wb->name : basalt_avro_type_name(wb->type),
             u->r->name ? u->r->name : basalt_avro_type_name(u->r->type));
    const char *text = basalt_arena_strndup(&c->plan->arena, msg, strlen(msg));
    if (!text)
        return nomem(c);
    return emit(c, AVRO_OP_ERROR, -1, 0, text);
}

typedef basalt_status (*branch_fn)(struct cctx *c, const struct avro_rnode *rn,
                                   const struct avro_sel *s);

/* A writer union: a dispatch on the branch index, one block of code per
 * branch, each ending in a jump past the last. */
static basalt_status emit_union(struct cctx *c, const struct avro_rnode *u, const struct avro_sel *s,
                                branch_fn fn)
{
    basalt_status st;
    uint32_t n = u->w->count;
    size_t head = op_count(c);
    if ((st = emit(c, AVRO_OP_UNION, -1, n, NULL)) != BASALT_OK)
        return st;
    for (uint32_t i = 0; i < n; i++)
        if ((st = emit(c, AVRO_OP_TARGET, -1, 0, NULL)) != BASALT_OK)
            return st;
    size_t *jumps = basalt_malloc(sizeof *jumps * (n ? n : 1));
    if (!jumps)
        return nomem(c);
    for (uint32_t i = 0; i < n && st == BASALT_OK; i++) {
        op_at(c, head + 1 + i)->arg = (uint32_t)op_count(c);
        if (!u->branches[i])
            st = emit_error(c, u, i);
        else
            st = fn(c, u->branches[i], s);
        jumps[i] = op_count(c);
        if (st == BASALT_OK)
            st = emit(c, AVRO_OP_JUMP, -1, 0, NULL);
    }
    if (st == BASALT_OK)
        for (uint32_t i = 0; i < n; i++)
            op_at(c, jumps[i])->arg = (uint32_t)op_count(c);
    basalt_free(jumps);
    return st;
}

static bool reader_branch_is_null(const struct avro_rnode *rn)
{
    return rn->r->branches[rn->branch]->type == BASALT_AVRO_NULL;
}

/* {null, long} written, read as an optional long into an int64 slot. */
static bool optional_long(const struct avro_rnode *u)
{
    if (u->w->count != 2)
        return false;
    for (uint32_t i = 0; i < 2; i++) {
        const struct avro_rnode *b = u->branches[i];
        if (!b)
            return false;
        if (b->w->type == BASALT_AVRO_NULL) {
            if (b->kind != AVRO_R_RUNION || !reader_branch_is_null(b))
                return false;
        } else if (b->w->type == BASALT_AVRO_LONG) {
            const struct avro_rnode *x = b->kind == AVRO_R_RUNION ? b->child : b;
            if (x->kind != AVRO_R_SAME)
                return false;
        } else {
            return false;
        }
    }
    return true;
}

static basalt_status emit_leaf(struct cctx *c, const struct avro_rnode *rn, const struct avro_sel *s);

static basalt_status emit_leaf_branch(struct cctx *c, const struct avro_rnode *rn,
                                      const struct avro_sel *s)
{
    return emit_leaf(c, rn, s);
}

static basalt_status emit_leaf(struct cctx *c, const struct avro_rnode *rn, const struct avro_sel *s)
{
    const struct avro_plan_col *pc = &c->plan->cols[s->col];
    enum basalt_avro_slot_type t = pc->type;
    int32_t col = s->col;
    if (t == BASALT_AVRO_SLOT_RAW) {
        if (!rn->identity)
            return basalt_error_set(c->err, BASALT_INVALID_ARG,
                                    "column '%s': a RAW slot needs the writer's and the reader's "
                                    "types to be the same",
                                    pc->path);
        return emit(c, AVRO_OP_RAW, col, 0, rn->w);
    }
    switch (rn->kind) {
    case AVRO_R_WUNION:
        if (t == BASALT_AVRO_SLOT_INT64 && optional_long(rn))
            return emit(c, AVRO_OP_OPT_LONG_I64, col,
                        rn->w->branches[0]->type == BASALT_AVRO_NULL ? 0 : 1, NULL);
        return emit_union(c, rn, s, emit_leaf_branch);
    case AVRO_R_RUNION:
        if (reader_branch_is_null(rn))
            return emit(c, AVRO_OP_ABSENT, col, 0, NULL);
        return emit_leaf(c, rn->child, s);
    case AVRO_R_ENUM:
        return emit(c, t == BASALT_AVRO_SLOT_INT64 ? AVRO_OP_ENUM_I64 : AVRO_OP_ENUM_I32, col,
                    rn->w->count, rn->identity ? NULL : rn->enum_map);
    case AVRO_R_SAME:
    case AVRO_R_PROMOTE:
        break;
    default:
        return basalt_error_set(c->err, BASALT_INVALID_ARG,
                                "column '%s': a %s needs a RAW slot", pc->path,
                                basalt_avro_type_name(rn->r->type));
    }
    enum basalt_avro_type w = rn->w->type, r = rn->r->type;
    uint8_t code = AVRO_OP_END;
    switch (w) {
    case BASALT_AVRO_NULL:
        return emit(c, AVRO_OP_ABSENT, col, 0, NULL);
    case BASALT_AVRO_BOOLEAN:
        code = AVRO_OP_BOOL;
        break;
    case BASALT_AVRO_INT:
        code = t == BASALT_AVRO_SLOT_INT32   ? AVRO_OP_INT_I32
               : t == BASALT_AVRO_SLOT_INT64 ? AVRO_OP_INT_I64
               : t == BASALT_AVRO_SLOT_FLOAT ? AVRO_OP_INT_F32
               : r == BASALT_AVRO_FLOAT      ? AVRO_OP_INT_F32D
                                             : AVRO_OP_INT_F64;
        break;
    case BASALT_AVRO_LONG:
        code = t == BASALT_AVRO_SLOT_INT64   ? AVRO_OP_LONG_I64
               : t == BASALT_AVRO_SLOT_FLOAT ? AVRO_OP_LONG_F32
               : r == BASALT_AVRO_FLOAT      ? AVRO_OP_LONG_F32D
                                             : AVRO_OP_LONG_F64;
        break;
    case BASALT_AVRO_FLOAT:
        code = t == BASALT_AVRO_SLOT_FLOAT ? AVRO_OP_FLOAT_F32 : AVRO_OP_FLOAT_F64;
        break;
    case BASALT_AVRO_DOUBLE:
        code = AVRO_OP_DOUBLE_F64;
        break;
    case BASALT_AVRO_BYTES:
    case BASALT_AVRO_STRING:
        code = AVRO_OP_BYTES;
        break;
    case BASALT_AVRO_FIXED:
        return emit(c, AVRO_OP_FIXED, col, (uint32_t)rn->w->size, NULL);
    default:
        return basalt_error_set(c->err, BASALT_INTERNAL, "column '%s': unexpected type",
                                pc->path);
    }
    return emit(c, code, col, 0, NULL);
}

/* A default value (reader-only field) as constants. */
static basalt_status emit_const(struct cctx *c, const struct basalt_avro_value *v,
                                const struct avro_sel *s)
{
    while (v->node->type == BASALT_AVRO_UNION)
        v = v->branch;
    if (v->node->type == BASALT_AVRO_NULL)
        return emit_absent_all(c, s);
    if (s->col < 0) {
        for (uint32_t i = 0; i < s->record->count; i++) {
            if (!s->fields[i])
                continue;
            basalt_status st = emit_const(c, &v->items[i], s->fields[i]);
            if (st != BASALT_OK)
                return st;
        }
        return BASALT_OK;
    }
    const struct avro_plan_col *pc = &c->plan->cols[s->col];
    struct avro_op op;
    memset(&op, 0, sizeof op);
    enum basalt_avro_type vt = v->node->type;
    int64_t iv = vt == BASALT_AVRO_ENUM ? (int64_t)v->index : v->i;
    switch (pc->type) {
    case BASALT_AVRO_SLOT_BOOL:
        op.imm.i = v->boolean;
        break;
    case BASALT_AVRO_SLOT_INT32:
    case BASALT_AVRO_SLOT_INT64:
        op.imm.i = iv;
        break;
    case BASALT_AVRO_SLOT_FLOAT:
        op.imm.f = v->f;
        break;
    case BASALT_AVRO_SLOT_DOUBLE:
        op.imm.d = vt == BASALT_AVRO_FLOAT ? (double)v->f
                   : vt == BASALT_AVRO_DOUBLE ? v->d
                                              : (double)iv;
        break;
    case BASALT_AVRO_SLOT_BYTES:
    case BASALT_AVRO_SLOT_RAW: {
        struct basalt_avro_bytes *b = calloc_arena(c, sizeof *b);
        if (!b)
            return nomem(c);
        if (pc->type == BASALT_AVRO_SLOT_BYTES) {
            b->data = v->bytes.data;
            b->size = v->bytes.size;
        } else {
            struct basalt_buffer enc;
            basalt_buffer_init(&enc);
            basalt_status st = basalt_avro_value_encode(v, &enc, c->err);
            if (st == BASALT_OK) {
                uint8_t *copy = basalt_arena_alloc(&c->plan->arena, enc.size ? enc.size : 1, 1);
                if (copy && enc.size)
                    memcpy(copy, enc.data, enc.size);
                b->data = copy;
                b->size = enc.size;
                if (!copy)
                    st = nomem(c);
            }
            basalt_buffer_reset(&enc);
            if (st != BASALT_OK)
                return st;
        }
        op.imm.p = b;
        break;
    }
    default:
        return basalt_error_set(c->err, BASALT_INTERNAL, "bad slot type");
    }
    op.code = AVRO_OP_CONST;
    op.col = (uint16_t)s->col;
    if (basalt_buffer_append(&c->ops, &op, sizeof op, NULL) != BASALT_OK)
        return nomem(c);
    return BASALT_OK;
}

static basalt_status emit_sel(struct cctx *c, const struct avro_rnode *rn, const struct avro_sel *s);

static basalt_status emit_interior(struct cctx *c, const struct avro_rnode *rn,
                                   const struct avro_sel *s)
{
    basalt_status st;
    switch (rn->kind) {
    case AVRO_R_RECORD:
        for (uint32_t i = 0; i < rn->w->count; i++) {
            const struct avro_rfield *f = &rn->fields[i];
            const struct avro_sel *fs = f->reader_index >= 0 ? s->fields[f->reader_index] : NULL;
            st = fs ? emit_sel(c, f->child, fs) : emit_skip(c, f->writer_type, 0);
            if (st != BASALT_OK)
                return st;
        }
        for (uint32_t i = 0; i < rn->default_count; i++) {
            const struct avro_sel *fs = s->fields[rn->defaults[i].reader_index];
            if (fs && (st = emit_const(c, &rn->defaults[i].value, fs)) != BASALT_OK)
                return st;
        }
        return BASALT_OK;
    case AVRO_R_WUNION:
        return emit_union(c, rn, s, emit_interior);
    case AVRO_R_RUNION:
        if (reader_branch_is_null(rn))
            return emit_absent_all(c, s);
        return emit_interior(c, rn->child, s);
    default:
        return basalt_error_set(c->err, BASALT_INTERNAL, "selection does not match the schema");
    }
}

static basalt_status emit_sel(struct cctx *c, const struct avro_rnode *rn, const struct avro_sel *s)
{
    return s->col >= 0 ? emit_leaf(c, rn, s) : emit_interior(c, rn, s);
}

/* ------------------------------------------------------------------ plan */

basalt_status basalt_avro_plan_new(const struct basalt_avro_schema *writer,
                                   const struct basalt_avro_schema *reader,
                                   const struct basalt_avro_column *columns, size_t column_count,
                                   struct basalt_avro_plan **out, struct basalt_error *err)
{
    if (!writer || !out || (!columns && column_count))
        return basalt_error_set(err, BASALT_INVALID_ARG, "plan_new: NULL argument");
    if (column_count > UINT16_MAX)
        return basalt_error_set(err, BASALT_INVALID_ARG, "plan_new: too many columns");
    *out = NULL;
    struct basalt_avro_plan *plan = basalt_calloc(1, sizeof *plan);
    if (!plan)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory compiling a plan");
    plan->refs = 1;
    basalt_arena_init(&plan->arena, 8192);
    plan->writer = writer;
    plan->reader = reader ? reader : writer;
    struct cctx c = {.plan = plan, .err = err};
    basalt_buffer_init(&c.ops);
    basalt_status st = BASALT_OK;
    struct avro_rnode *root = NULL;
    struct avro_sel *sel = NULL;
    plan->col_count = column_count;
    plan->cols = calloc_arena(&c, sizeof *plan->cols * column_count);
    if (!plan->cols)
        st = nomem(&c);
    if (st == BASALT_OK)
        st = basalt_avro_resolve_nodes(&plan->arena, writer->root, plan->reader->root, &root, err);
    for (size_t i = 0; i < column_count && st == BASALT_OK; i++)
        st = basalt_avro_select_column(plan, &sel, plan->reader->root, i, &columns[i], err);
    if (st == BASALT_OK)
        st = sel ? emit_sel(&c, root, sel) : emit_skip(&c, writer->root, 0);
    if (st == BASALT_OK)
        st = emit(&c, AVRO_OP_END, -1, 0, NULL);
    if (st == BASALT_OK) {
        plan->op_count = (uint32_t)op_count(&c);
        plan->ops = basalt_arena_alloc(&plan->arena, c.ops.size, 16);
        if (!plan->ops)
            st = nomem(&c);
        else
            memcpy(plan->ops, c.ops.data, c.ops.size);
    }
    basalt_buffer_reset(&c.ops);
    if (st != BASALT_OK) {
        basalt_avro_plan_free(plan);
        return st;
    }
    *out = plan;
    return BASALT_OK;
}
