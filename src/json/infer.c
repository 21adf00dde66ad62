/* Schema inference: the values of the sample unified into a type tree, as
 * read_json_auto does (see json.h for the rules). */
#include "json_internal.h"

/* Keys an object may have before inference gives up (each new key is a
 * linear search, so this also bounds the work on hostile input). */
#define JSON_MAX_FIELDS 10000

static bool infer_value(struct json_lex *lx, struct json_type *t);

/* Drops what a type knew about its values: it becomes a string column. */
static void to_string(struct json_type *t)
{
    for (int32_t i = 0; i < t->n_children; i++)
        basalt_json_type_reset(&t->children[i]);
    t->n_children = 0;
    t->kind = JSON_K_STRING;
    t->raw = true;
    t->maybe_date = t->maybe_ts = t->maybe_time = false;
}

static struct json_type *field(struct json_lex *lx, struct json_type *t, const uint8_t *key,
                               size_t n, const uint8_t *at)
{
    for (int32_t i = 0; i < t->n_children; i++)
        if (t->children[i].name_len == n && memcmp(t->children[i].name, key, n) == 0)
            return &t->children[i];
    if (memchr(key, 0, n)) {
        basalt_json_fail(lx, at, BASALT_UNSUPPORTED, "a key holding a NUL character");
        return NULL;
    }
    if (t->n_children >= JSON_MAX_FIELDS) {
        basalt_json_fail(lx, at, BASALT_LIMIT, "more than %d distinct keys in an object",
                         JSON_MAX_FIELDS);
        return NULL;
    }
    if (t->n_children == t->cap_children) {
        int32_t cap = t->cap_children ? 2 * t->cap_children : 8;
        struct json_type *c = basalt_realloc(t->children, (size_t)cap * sizeof *c);
        if (!c) {
            basalt_json_fail(lx, at, BASALT_NOMEM, "out of memory");
            return NULL;
        }
        t->children = c;
        t->cap_children = cap;
    }
    struct json_type *c = &t->children[t->n_children];
    memset(c, 0, sizeof *c);
    c->name = basalt_strndup((const char *)key, n);
    if (!c->name) {
        basalt_json_fail(lx, at, BASALT_NOMEM, "out of memory");
        return NULL;
    }
    c->name_len = n;
    t->n_children++;
    return c;
}

static bool infer_object(struct json_lex *lx, struct json_type *t)
{
    lx->p++;
    basalt_json_ws(lx);
    if (lx->p < lx->end && *lx->p == '}') {
        lx->p++;
        return true;
    }
    for (;;) {
        basalt_json_ws(lx);
        if (lx->p >= lx->end || *lx->p != '"')
            return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "expected a key");
        const uint8_t *at = lx->p, *key;
        size_t n;
        if (!basalt_json_lex_string(lx, &key, &n))
            return false;
        struct json_type *c = t ? field(lx, t, key, n, at) : NULL;
        if (t && !c)
            return false;
        basalt_json_ws(lx);
        if (lx->p >= lx->end || *lx->p != ':')
            return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "expected ':'");
        lx->p++;
        /* `t` may move when a sibling is added, `c` stays valid until then */
        if (!(c ? infer_value(lx, c) : basalt_json_skip_value(lx)))
            return false;
        basalt_json_ws(lx);
        if (lx->p < lx->end && *lx->p == ',') {
            lx->p++;
            continue;
        }
        if (lx->p < lx->end && *lx->p == '}') {
            lx->p++;
            return true;
        }
        return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "expected ',' or '}'");
    }
}

static bool infer_array(struct json_lex *lx, struct json_type *t)
{
    if (t->n_children == 0) {
        t->children = basalt_calloc(1, sizeof *t->children);
        if (!t->children)
            return basalt_json_fail(lx, lx->p, BASALT_NOMEM, "out of memory");
        t->n_children = t->cap_children = 1;
    }
    lx->p++;
    basalt_json_ws(lx);
    if (lx->p < lx->end && *lx->p == ']') {
        lx->p++;
        return true;
    }
    for (;;) {
        if (!infer_value(lx, &t->children[0]))
            return false;
        basalt_json_ws(lx);
        if (lx->p < lx->end && *lx->p == ',') {
            lx->p++;
            continue;
        }
        if (lx->p < lx->end && *lx->p == ']') {
            lx->p++;
            return true;
        }
        return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "expected ',' or ']'");
    }
}

static bool infer_value(struct json_lex *lx, struct json_type *t)
{
    basalt_json_ws(lx);
    if (lx->p >= lx->end)
        return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "expected a value, found the line end");
    uint8_t c = *lx->p;
    if (c == '{' || c == '[') {
        if (lx->depth + 1 > lx->max_depth)
            return basalt_json_fail(lx, lx->p, BASALT_LIMIT, "nesting deeper than %d levels",
                                    (int)lx->max_depth);
        enum json_kind want = c == '{' ? JSON_K_STRUCT : JSON_K_LIST;
        if (t->kind == JSON_K_NULL)
            t->kind = want;
        else if (t->kind != want)
            to_string(t);
        if (t->kind == JSON_K_STRING)
            return basalt_json_skip_value(lx);
        lx->depth++;
        bool ok = c == '{' ? infer_object(lx, t) : infer_array(lx, t);
        lx->depth--;
        return ok;
    }
    if (c == '"') {
        const uint8_t *s;
        size_t n;
        if (!basalt_json_lex_string(lx, &s, &n))
            return false;
        if (t->kind == JSON_K_NULL) {
            t->kind = JSON_K_STRING;
            t->maybe_date = t->maybe_ts = t->maybe_time = true;
            t->ts_shape = -1;
        } else if (t->kind != JSON_K_STRING) {
            to_string(t);
        }
        if (t->maybe_time) {
            int64_t micros;
            t->maybe_time = basalt_json_parse_time(s, n, &micros);
        }
        if (t->maybe_date || t->maybe_ts) {
            int32_t days;
            int64_t micros;
            t->maybe_date = t->maybe_date && basalt_json_parse_date(s, n, &days);
            if (t->maybe_ts && basalt_json_parse_timestamp(s, n, true, &micros)) {
                int shape = basalt_json_timestamp_shape(s, n);
                if (t->ts_shape < 0)
                    t->ts_shape = shape;
                t->maybe_ts = t->ts_shape == shape;
            } else {
                t->maybe_ts = false;
            }
        }
        t->n_strings++;
        return true;
    }
    if (c == '-' || (c >= '0' && c <= '9') || c == 'N' || c == 'I') {
        struct json_number num;
        if (!basalt_json_lex_number(lx, &num))
            return false;
        enum json_kind k = num.fits ? JSON_K_INT : JSON_K_DOUBLE;
        if (t->kind == JSON_K_NULL || (t->kind == JSON_K_INT && k == JSON_K_DOUBLE)) {
            t->kind = k;
            t->int_bits = 64;
        } else if (t->kind != JSON_K_INT && t->kind != JSON_K_DOUBLE) {
            to_string(t);
        }
        return true;
    }
    const uint8_t *at = lx->p;
    int lit = basalt_json_lex_literal(lx);
    if (lit < 0)
        return basalt_json_fail(lx, at, BASALT_CORRUPT, "unexpected character '%c'",
                                c >= 0x20 && c < 0x7f ? c : '?');
    if (lit == 2)
        return true;
    if (t->kind == JSON_K_NULL)
        t->kind = JSON_K_BOOL;
    else if (t->kind != JSON_K_BOOL)
        to_string(t);
    return true;
}

bool basalt_json_infer_record(struct json_lex *lx, struct json_type *root)
{
    basalt_json_ws(lx);
    if (lx->p >= lx->end || *lx->p != '{')
        return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "a record must be a JSON object");
    lx->depth = 1;
    bool ok = infer_object(lx, root);
    lx->depth = 0;
    if (!ok)
        return false;
    basalt_json_ws(lx);
    if (lx->p < lx->end)
        return basalt_json_fail(lx, lx->p, BASALT_CORRUPT, "text after the record");
    return true;
}

void basalt_json_infer_finish(struct json_type *t)
{
    switch (t->kind) {
    case JSON_K_NULL: t->kind = JSON_K_STRING; break;
    case JSON_K_STRING:
        if (!t->raw && t->n_strings > 0 && t->maybe_date)
            t->kind = JSON_K_DATE;
        else if (!t->raw && t->n_strings > 0 && t->maybe_ts)
            t->kind = JSON_K_TIMESTAMP;
        else if (!t->raw && t->n_strings > 0 && t->maybe_time)
            t->kind = JSON_K_TIME;
        break;
    case JSON_K_STRUCT:
        if (t->n_children == 0) {
            t->kind = JSON_K_STRING;
            t->raw = true;
        }
        break;
    default: break;
    }
    for (int32_t i = 0; i < t->n_children; i++)
        basalt_json_infer_finish(&t->children[i]);
}
