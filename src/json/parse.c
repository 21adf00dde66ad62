/* The chunk parser: JSON lines straight into Arrow builders, one builder
 * tree per chunk, so chunks parse on any worker without sharing. */
#include <stdio.h>

#include "json_internal.h"

/* One builder of the tree with its type. `stamp` tells which object last set
 * a struct field (missing fields are filled with nulls, repeated keys are
 * errors). */
struct slot {
    struct basalt_arrow_builder *b;
    const struct json_type *t;
    struct slot *kids;
    int32_t n_kids;
    int32_t hint;      /* struct: the field after the last one matched */
    uint64_t stamp;
};

struct parser {
    struct json_lex lx;
    uint64_t next_stamp;
    struct basalt_error err;
};

static void slot_reset(struct slot *s)
{
    for (int32_t i = 0; i < s->n_kids; i++)
        slot_reset(&s->kids[i]);
    basalt_free(s->kids);
}

/* Builds the slot tree of `t` over the builder `b` (already made for t),
 * adding the children's builders. */
static basalt_status slot_init(struct slot *s, struct basalt_arrow_builder *b,
                               const struct json_type *t, struct basalt_error *err)
{
    memset(s, 0, sizeof *s);
    s->b = b;
    s->t = t;
    if (t->kind != JSON_K_STRUCT && t->kind != JSON_K_LIST)
        return BASALT_OK;
    if (t->n_children == 0)
        return BASALT_OK;
    s->kids = basalt_calloc((size_t)t->n_children, sizeof *s->kids);
    if (!s->kids)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    s->n_kids = t->n_children;
    for (int32_t i = 0; i < t->n_children; i++) {
        char f[16];
        basalt_json_type_format(&t->children[i], f);
        struct basalt_arrow_builder *cb;
        basalt_status st = basalt_arrow_builder_add_child(
            b, f, t->kind == JSON_K_LIST ? "item" : t->children[i].name, ARROW_FLAG_NULLABLE,
            &cb, err);
        if (st == BASALT_OK)
            st = slot_init(&s->kids[i], cb, &t->children[i], err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static bool builder_failed(struct parser *ps, basalt_status st, const uint8_t *at)
{
    return basalt_json_fail(&ps->lx, at, st, "%s", ps->err.message);
}

static bool type_error(struct parser *ps, const struct slot *s, const uint8_t *at,
                       const char *what)
{
    static const char *const names[] = {"NULL", "BOOLEAN",   "BIGINT", "DOUBLE", "VARCHAR",
                                        "DATE", "TIMESTAMP", "STRUCT", "LIST", "TIME"};
    const char *name = names[s->t->kind];
    if (s->t->kind == JSON_K_INT && s->t->int_bits < 64)
        name = s->t->int_bits == 8 ? "TINYINT" : s->t->int_bits == 16 ? "SMALLINT" : "INTEGER";
    const uint8_t *e = at;
    while (e < ps->lx.end && e - at < 40 && *e != ',' && *e != '}' && *e != ']')
        e++;
    return basalt_json_fail(&ps->lx, at, BASALT_CORRUPT, "column '%.200s': %s %.*s is not a %s",
                            s->t->path ? s->t->path : "?", what, (int)(e - at),
                            (const char *)at, name);
}

static bool parse_value(struct parser *ps, struct slot *s);

static bool append_raw(struct parser *ps, struct slot *s, const uint8_t *from)
{
    basalt_status st =
        basalt_arrow_builder_append_bytes(s->b, from, ps->lx.p - from, &ps->err);
    return st == BASALT_OK || builder_failed(ps, st, from);
}

static bool parse_object(struct parser *ps, struct slot *s)
{
    struct json_lex *lx = &ps->lx;
    uint64_t stamp = ++ps->next_stamp;
    lx->p++;
    basalt_json_ws(lx);
    if (lx->p < lx->end && *lx->p == '}') {
        lx->p++;
    } else {
        for (;;) {
            basalt_json_ws(lx);
            if (lx->p >= lx->end || *lx->p != '"')
                return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "expected a key");
            const uint8_t *at = lx->p, *key;
            size_t n;
            if (!basalt_json_lex_string(lx, &key, &n))
                return false;
            struct slot *k = NULL;
            int32_t h = s->hint < s->n_kids ? s->hint : 0;
            for (int32_t tries = 0; tries < s->n_kids; tries++) {
                const struct json_type *ct = s->kids[h].t;
                if (ct->name_len == n && memcmp(ct->name, key, n) == 0) {
                    k = &s->kids[h];
                    s->hint = h + 1;
                    break;
                }
                if (++h == s->n_kids)
                    h = 0;
            }
            basalt_json_ws(lx);
            if (lx->p >= lx->end || *lx->p != ':')
                return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "expected ':'");
            lx->p++;
            if (k) {
                if (k->stamp == stamp)
                    return basalt_json_fail(lx, at, BASALT_CORRUPT, "key '%.*s' repeated",
                                            (int)(n < 100 ? n : 100), (const char *)key);
                k->stamp = stamp;
                if (!parse_value(ps, k))
                    return false;
            } else if (!basalt_json_skip_value(lx)) {
                return false;
            }
            basalt_json_ws(lx);
            if (lx->p < lx->end && *lx->p == ',') {
                lx->p++;
                continue;
            }
            if (lx->p < lx->end && *lx->p == '}') {
                lx->p++;
                break;
            }
            return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "expected ',' or '}'");
        }
    }
    for (int32_t i = 0; i < s->n_kids; i++) {
        if (s->kids[i].stamp == stamp)
            continue;
        basalt_status st = basalt_arrow_builder_append_null(s->kids[i].b, &ps->err);
        if (st != BASALT_OK)
            return builder_failed(ps, st, lx->p);
    }
    basalt_status st = basalt_arrow_builder_end_element(s->b, &ps->err);
    return st == BASALT_OK || builder_failed(ps, st, lx->p);
}

static bool parse_array(struct parser *ps, struct slot *s)
{
    struct json_lex *lx = &ps->lx;
    lx->p++;
    basalt_json_ws(lx);
    if (lx->p < lx->end && *lx->p == ']') {
        lx->p++;
    } else {
        for (;;) {
            if (!parse_value(ps, &s->kids[0]))
                return false;
            basalt_json_ws(lx);
            if (lx->p < lx->end && *lx->p == ',') {
                lx->p++;
                continue;
            }
            if (lx->p < lx->end && *lx->p == ']') {
                lx->p++;
                break;
            }
            return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "expected ',' or ']'");
        }
    }
    basalt_status st = basalt_arrow_builder_end_element(s->b, &ps->err);
    return st == BASALT_OK || builder_failed(ps, st, lx->p);
}

static bool parse_string_value(struct parser *ps, struct slot *s, const uint8_t *at)
{
    const uint8_t *v;
    size_t n;
    if (!basalt_json_lex_string(&ps->lx, &v, &n))
        return false;
    basalt_status st = BASALT_OK;
    switch (s->t->kind) {
    case JSON_K_STRING:
        if (s->t->raw)
            return append_raw(ps, s, at);
        st = basalt_arrow_builder_append_bytes(s->b, v, (int64_t)n, &ps->err);
        break;
    case JSON_K_DATE: {
        int32_t days;
        if (!basalt_json_parse_date(v, n, &days))
            return type_error(ps, s, at, "string");
        st = basalt_arrow_builder_append_int(s->b, days, &ps->err);
        break;
    }
    case JSON_K_TIMESTAMP: {
        int64_t micros;
        if (!basalt_json_parse_timestamp(v, n, true, &micros))
            return type_error(ps, s, at, "string");
        st = basalt_arrow_builder_append_int(s->b, micros, &ps->err);
        break;
    }
    case JSON_K_TIME: {
        int64_t micros;
        if (!basalt_json_parse_time(v, n, &micros))
            return type_error(ps, s, at, "string");
        st = basalt_arrow_builder_append_int(s->b, micros, &ps->err);
        break;
    }
    default: return type_error(ps, s, at, "string");
    }
    return st == BASALT_OK || builder_failed(ps, st, at);
}

static bool parse_value(struct parser *ps, struct slot *s)
{
    struct json_lex *lx = &ps->lx;
    basalt_json_ws(lx);
    if (lx->p >= lx->end)
        return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "expected a value, found the line end");
    const uint8_t *at = lx->p;
    uint8_t c = *at;
    basalt_status st = BASALT_OK;
    if (c == '"')
        return parse_string_value(ps, s, at);
    if (c == '{' || c == '[') {
        enum json_kind want = c == '{' ? JSON_K_STRUCT : JSON_K_LIST;
        if (s->t->kind == JSON_K_STRING) {
            if (!basalt_json_skip_value(lx))
                return false;
            return append_raw(ps, s, at);
        }
        if (s->t->kind != want)
            return type_error(ps, s, at, c == '{' ? "object" : "array");
        if (++lx->depth > lx->max_depth)
            return basalt_json_fail(lx, at, BASALT_LIMIT, "nesting deeper than %d levels",
                                    (int)lx->max_depth);
        bool ok = c == '{' ? parse_object(ps, s) : parse_array(ps, s);
        lx->depth--;
        return ok;
    }
    if (c == '-' || (c >= '0' && c <= '9') || c == 'N' || c == 'I') {
        struct json_number num;
        if (!basalt_json_lex_number(lx, &num))
            return false;
        switch (s->t->kind) {
        case JSON_K_INT: {
            int bits = s->t->int_bits;
            if (!num.fits ||
                (bits < 64 && (num.value < -(INT64_C(1) << (bits - 1)) ||
                               num.value >= (INT64_C(1) << (bits - 1)))))
                return type_error(ps, s, at, num.integral ? "out-of-range number" : "number");
            st = basalt_arrow_builder_append_int(s->b, num.value, &ps->err);
            break;
        }
        case JSON_K_DOUBLE:
            st = basalt_arrow_builder_append_double(s->b, basalt_json_number_double(&num),
                                                    &ps->err);
            break;
        case JSON_K_STRING: return append_raw(ps, s, at);
        default: return type_error(ps, s, at, "number");
        }
        return st == BASALT_OK || builder_failed(ps, st, at);
    }
    int lit = basalt_json_lex_literal(lx);
    if (lit < 0)
        return basalt_json_fail(lx, at, BASALT_CORRUPT, "unexpected character '%c'",
                                c >= 0x20 && c < 0x7f ? c : '?');
    if (lit == 2)
        st = basalt_arrow_builder_append_null(s->b, &ps->err);
    else if (s->t->kind == JSON_K_BOOL)
        st = basalt_arrow_builder_append_bool(s->b, lit == 1, &ps->err);
    else if (s->t->kind == JSON_K_STRING)
        return append_raw(ps, s, at);
    else
        return type_error(ps, s, at, "boolean");
    return st == BASALT_OK || builder_failed(ps, st, at);
}

/* ------------------------------------------------------------------ chunks */

void basalt_json_chunk_result_reset(struct json_chunk_result *r)
{
    for (int64_t i = 0; i < r->n_batches; i++)
        basalt_arrow_array_release(&r->batches[i]);
    basalt_free(r->batches);
    memset(r, 0, sizeof *r);
}

static basalt_status flush(struct json_chunk_result *r, struct basalt_arrow_builder *b,
                           struct basalt_error *err)
{
    if (basalt_arrow_builder_length(b) == 0)
        return BASALT_OK;
    struct ArrowArray *grown =
        basalt_realloc(r->batches, (size_t)(r->n_batches + 1) * sizeof *r->batches);
    if (!grown)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    r->batches = grown;
    basalt_status st = basalt_arrow_builder_finish(b, NULL, &r->batches[r->n_batches], err);
    if (st == BASALT_OK)
        r->n_batches++;
    return st;
}

static void chunk_fail(struct json_chunk_result *r, basalt_status st, int64_t line,
                       int64_t column, const char *msg)
{
    r->error.status = st;
    r->error.line = line;
    r->error.column = column;
    snprintf(r->error.message, sizeof r->error.message, "%.399s", msg);
}

void basalt_json_parse_chunk(const struct json_parse_config *cfg, const uint8_t *begin,
                             const uint8_t *end, struct json_chunk_result *r)
{
    memset(r, 0, sizeof *r);
    struct parser ps;
    memset(&ps, 0, sizeof ps);
    basalt_buffer_init(&ps.lx.scratch);
    ps.lx.max_depth = cfg->max_depth;
    struct basalt_arrow_builder *root = NULL;
    struct slot top;
    memset(&top, 0, sizeof top);
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, &ps.err);
    if (st == BASALT_OK)
        st = slot_init(&top, root, cfg->root, &ps.err);
    if (st != BASALT_OK) {
        chunk_fail(r, st, 0, 0, ps.err.message);
        goto done;
    }
    const uint8_t *p = begin;
    int64_t line = 0;
    while (p < end) {
        const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
        const uint8_t *le = nl ? nl : end;
        if ((size_t)(le - p) > cfg->max_record_size) {
            char msg[128];
            snprintf(msg, sizeof msg, "a record of more than %zu bytes (max_record_size)",
                     cfg->max_record_size);
            chunk_fail(r, BASALT_LIMIT, line, 0, msg);
            goto done;
        }
        ps.lx.p = p;
        ps.lx.end = le;
        basalt_json_ws(&ps.lx);
        if (ps.lx.p < le) {
            bool ok;
            if (*ps.lx.p != '{') {
                ok = basalt_json_fail(&ps.lx, ps.lx.p, BASALT_CORRUPT,
                                      "a record must be a JSON object");
            } else {
                ps.lx.depth = 1;
                ok = parse_object(&ps, &top);
                ps.lx.depth = 0;
                if (ok) {
                    basalt_json_ws(&ps.lx);
                    if (ps.lx.p < le)
                        ok = basalt_json_fail(&ps.lx, ps.lx.p, BASALT_CORRUPT,
                                              "text after the record");
                }
            }
            if (!ok) {
                chunk_fail(r, ps.lx.status, line, ps.lx.pos - p + 1, ps.lx.message);
                goto done;
            }
            r->rows++;
            if (basalt_arrow_builder_length(root) >= cfg->batch_size &&
                (st = flush(r, root, &ps.err)) != BASALT_OK) {
                chunk_fail(r, st, line, 0, ps.err.message);
                goto done;
            }
        }
        if (!nl)
            break;
        line++;
        p = nl + 1;
    }
    r->newlines = line;
    if ((st = flush(r, root, &ps.err)) != BASALT_OK)
        chunk_fail(r, st, line, 0, ps.err.message);
done:
    slot_reset(&top);
    basalt_arrow_builder_free(root);
    basalt_buffer_reset(&ps.lx.scratch);
}
