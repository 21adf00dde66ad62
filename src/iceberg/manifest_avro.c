/* Reading Iceberg's Avro schemas by field id, and turning Avro data and
 * single-value serialized bounds into typed Iceberg values. */
#include <stdlib.h>

#include "manifest_internal.h"

static bool parse_integer(const char *text, size_t len, bool wrap, int64_t *out)
{
    if (len >= 2 && text[0] == '"' && text[len - 1] == '"') {
        text++;
        len -= 2;
    }
    if (len == 0 || len > 20)
        return false;
    size_t i = 0;
    bool neg = false;
    if (text[0] == '-') {
        neg = true;
        i = 1;
        if (len == 1)
            return false;
    }
    uint64_t v = 0;
    for (; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return false;
        uint64_t d = (uint64_t)(text[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (neg ? v > (uint64_t)INT64_MAX + 1 : (v > (uint64_t)INT64_MAX && !wrap))
        return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

bool basalt_iceberg_mf_parse_i64(const char *text, size_t len, int64_t *out)
{
    return parse_integer(text, len, false, out);
}

bool basalt_iceberg_mf_parse_snapshot_id(const char *text, size_t len, int64_t *out)
{
    return parse_integer(text, len, true, out);
}

int64_t basalt_iceberg_mf_field_id(const struct basalt_avro_field *field)
{
    for (uint32_t i = 0; i < field->prop_count; i++) {
        if (strcmp(field->props[i].key, "field-id") != 0)
            continue;
        int64_t v;
        const char *j = field->props[i].json;
        if (basalt_iceberg_mf_parse_i64(j, strlen(j), &v) && v >= 0 && v <= INT32_MAX)
            return v;
        return -1;
    }
    return -1;
}

const struct basalt_avro_node *basalt_iceberg_mf_record(const struct basalt_avro_node *node)
{
    if (!node)
        return NULL;
    if (node->type == BASALT_AVRO_RECORD)
        return node;
    if (node->type != BASALT_AVRO_UNION)
        return NULL;
    const struct basalt_avro_node *rec = NULL;
    for (uint32_t i = 0; i < node->count; i++) {
        const struct basalt_avro_node *b = node->branches[i];
        if (b->type == BASALT_AVRO_NULL)
            continue;
        if (b->type != BASALT_AVRO_RECORD || rec)
            return NULL;
        rec = b;
    }
    return rec;
}

int32_t basalt_iceberg_mf_find_id(const struct basalt_avro_node *rec, int64_t id)
{
    if (!rec || rec->type != BASALT_AVRO_RECORD)
        return -1;
    for (uint32_t i = 0; i < rec->count; i++)
        if (basalt_iceberg_mf_field_id(&rec->fields[i]) == id)
            return (int32_t)i;
    return -1;
}

const struct basalt_avro_value *basalt_iceberg_mf_unwrap(const struct basalt_avro_value *v)
{
    while (v && v->node->type == BASALT_AVRO_UNION)
        v = v->branch;
    if (!v || v->node->type == BASALT_AVRO_NULL)
        return NULL;
    return v;
}

uint8_t *basalt_iceberg_mf_copy(struct basalt_arena *arena, const void *data, size_t len)
{
    uint8_t *p = basalt_arena_alloc(arena, len + 1, 1);
    if (p) {
        if (len)
            memcpy(p, data, len);
        p[len] = 0;
    }
    return p;
}

void basalt_iceberg_mf_limits(struct basalt_avro_limits *limits)
{
    memset(limits, 0, sizeof *limits);
    limits->max_depth = 32;
}

/* ------------------------------------------------------------ schema fields */

static const struct basalt_iceberg_field *find_in_type(const struct basalt_iceberg_type *t,
                                                       int32_t id, int depth)
{
    if (depth > 64)
        return NULL;
    for (uint32_t i = 0; i < t->n_fields; i++) {
        const struct basalt_iceberg_field *f = &t->fields[i];
        if (f->id == id)
            return f;
        const struct basalt_iceberg_field *sub = find_in_type(&f->type, id, depth + 1);
        if (sub)
            return sub;
    }
    return NULL;
}

const struct basalt_iceberg_field *basalt_iceberg_mf_schema_field(
    const struct basalt_iceberg_schema *schema, int32_t id)
{
    return schema ? find_in_type(&schema->root, id, 0) : NULL;
}

struct basalt_iceberg_type basalt_iceberg_manifest_result_type(
    enum basalt_iceberg_transform_kind kind, const struct basalt_iceberg_type *source)
{
    struct basalt_iceberg_type t;
    memset(&t, 0, sizeof t);
    switch (kind) {
    case BASALT_ICEBERG_TRANSFORM_IDENTITY:
    case BASALT_ICEBERG_TRANSFORM_TRUNCATE:
    case BASALT_ICEBERG_TRANSFORM_VOID:
        if (source)
            t = *source;
        break;
    case BASALT_ICEBERG_TRANSFORM_BUCKET:
    case BASALT_ICEBERG_TRANSFORM_YEAR:
    case BASALT_ICEBERG_TRANSFORM_MONTH:
    case BASALT_ICEBERG_TRANSFORM_DAY:
    case BASALT_ICEBERG_TRANSFORM_HOUR:
        /* The spec's int; Java writes day values as the Avro "date" logical
         * type, which is the same int. */
        t.id = BASALT_ICEBERG_TYPE_INT;
        break;
    default:
        t.id = BASALT_ICEBERG_TYPE_NONE;
        break;
    }
    return t;
}

void basalt_iceberg_mf_spec_types(const struct basalt_iceberg_partition_spec *spec,
                                  const struct basalt_iceberg_schema *schema,
                                  struct basalt_iceberg_type *out)
{
    for (uint32_t i = 0; i < spec->n_fields; i++) {
        const struct basalt_iceberg_partition_field *pf = &spec->fields[i];
        const struct basalt_iceberg_field *src = basalt_iceberg_mf_schema_field(schema, pf->source_id);
        if (!src && pf->transform.kind != BASALT_ICEBERG_TRANSFORM_BUCKET &&
            pf->transform.kind != BASALT_ICEBERG_TRANSFORM_YEAR &&
            pf->transform.kind != BASALT_ICEBERG_TRANSFORM_MONTH &&
            pf->transform.kind != BASALT_ICEBERG_TRANSFORM_DAY &&
            pf->transform.kind != BASALT_ICEBERG_TRANSFORM_HOUR) {
            memset(&out[i], 0, sizeof out[i]);
            continue;
        }
        out[i] = basalt_iceberg_manifest_result_type(pf->transform.kind, src ? &src->type : NULL);
    }
}

/* ---------------------------------------------------------- Avro -> value */

static bool is_prop_true(const struct basalt_avro_node *n, const char *key)
{
    const char *v = basalt_avro_node_prop(n, key);
    return v && strcmp(v, "true") == 0;
}

/* The Iceberg type an Avro node stands for (Iceberg's own Avro mapping). */
static struct basalt_iceberg_type type_of_node(const struct basalt_avro_node *n)
{
    struct basalt_iceberg_type t;
    memset(&t, 0, sizeof t);
    switch (n->type) {
    case BASALT_AVRO_BOOLEAN:
        t.id = BASALT_ICEBERG_TYPE_BOOLEAN;
        break;
    case BASALT_AVRO_INT:
        t.id = n->logical == BASALT_AVRO_LOGICAL_DATE ? BASALT_ICEBERG_TYPE_DATE
                                                       : BASALT_ICEBERG_TYPE_INT;
        break;
    case BASALT_AVRO_LONG:
        switch (n->logical) {
        case BASALT_AVRO_LOGICAL_TIME_MICROS:
            t.id = BASALT_ICEBERG_TYPE_TIME;
            break;
        case BASALT_AVRO_LOGICAL_TIMESTAMP_MICROS:
            t.id = is_prop_true(n, "adjust-to-utc") ? BASALT_ICEBERG_TYPE_TIMESTAMPTZ
                                                    : BASALT_ICEBERG_TYPE_TIMESTAMP;
            break;
        case BASALT_AVRO_LOGICAL_TIMESTAMP_NANOS:
            t.id = is_prop_true(n, "adjust-to-utc") ? BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS
                                                    : BASALT_ICEBERG_TYPE_TIMESTAMP_NS;
            break;
        case BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS:
            t.id = BASALT_ICEBERG_TYPE_TIMESTAMP;
            break;
        case BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS:
            t.id = BASALT_ICEBERG_TYPE_TIMESTAMP_NS;
            break;
        default:
            t.id = BASALT_ICEBERG_TYPE_LONG;
            break;
        }
        break;
    case BASALT_AVRO_FLOAT:
        t.id = BASALT_ICEBERG_TYPE_FLOAT;
        break;
    case BASALT_AVRO_DOUBLE:
        t.id = BASALT_ICEBERG_TYPE_DOUBLE;
        break;
    case BASALT_AVRO_STRING:
        t.id = n->logical == BASALT_AVRO_LOGICAL_UUID ? BASALT_ICEBERG_TYPE_UUID
                                                       : BASALT_ICEBERG_TYPE_STRING;
        break;
    case BASALT_AVRO_BYTES:
        t.id = BASALT_ICEBERG_TYPE_BINARY;
        if (n->logical == BASALT_AVRO_LOGICAL_DECIMAL) {
            t.id = BASALT_ICEBERG_TYPE_DECIMAL;
            t.precision = n->precision;
            t.scale = n->scale;
        }
        break;
    case BASALT_AVRO_FIXED:
        t.id = BASALT_ICEBERG_TYPE_FIXED;
        t.length = n->size > INT32_MAX ? INT32_MAX : (int32_t)n->size;
        if (n->logical == BASALT_AVRO_LOGICAL_DECIMAL) {
            t.id = BASALT_ICEBERG_TYPE_DECIMAL;
            t.precision = n->precision;
            t.scale = n->scale;
        } else if (n->logical == BASALT_AVRO_LOGICAL_UUID && n->size == 16) {
            t.id = BASALT_ICEBERG_TYPE_UUID;
        }
        break;
    default:
        t.id = BASALT_ICEBERG_TYPE_NONE;
        break;
    }
    return t;
}

static int hexval(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" into 16 bytes. */
static bool parse_uuid(const uint8_t *s, size_t len, uint8_t out[16])
{
    if (len != 36)
        return false;
    size_t o = 0;
    for (size_t i = 0; i < 36;) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return false;
            i++;
            continue;
        }
        int hi = hexval(s[i]), lo = hexval(s[i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[o++] = (uint8_t)(hi << 4 | lo);
        i += 2;
    }
    return true;
}

/* Big-endian two's complement of up to 16 bytes. */
static bool decimal_from_be(const uint8_t *p, size_t len, struct basalt_iceberg_decimal *out)
{
    if (len == 0 || len > 16)
        return false;
    uint64_t hi = (p[0] & 0x80) ? UINT64_MAX : 0, lo = hi;
    for (size_t i = 0; i < len; i++) {
        hi = hi << 8 | lo >> 56;
        lo = lo << 8 | p[i];
    }
    out->lo = lo;
    out->hi = (int64_t)hi;
    return true;
}

static basalt_status mismatch(struct basalt_error *err, const struct basalt_avro_node *n,
                              enum basalt_iceberg_type_id want)
{
    return basalt_error_set(err, BASALT_CORRUPT, "an Avro %s cannot hold a value of type %d",
                            basalt_avro_type_name(n->type), (int)want);
}

basalt_status basalt_iceberg_mf_to_value(const struct basalt_avro_value *v,
                                         const struct basalt_iceberg_type *type,
                                         struct basalt_arena *arena,
                                         struct basalt_iceberg_value *out,
                                         struct basalt_error *err)
{
    const struct basalt_avro_value *d = basalt_iceberg_mf_unwrap(v);
    struct basalt_iceberg_type t;
    if (type && type->id != BASALT_ICEBERG_TYPE_NONE) {
        t = *type;
    } else {
        const struct basalt_avro_node *n = v->node;
        if (n->type == BASALT_AVRO_UNION) {
            /* The type of a nullable field is its non-null branch. */
            n = NULL;
            for (uint32_t i = 0; i < v->node->count; i++)
                if (v->node->branches[i]->type != BASALT_AVRO_NULL)
                    n = v->node->branches[i];
        }
        if (n)
            t = type_of_node(n);
        else
            memset(&t, 0, sizeof t);
    }
    memset(out, 0, sizeof *out);
    out->type = t.id;
    if (!d) {
        out->is_null = true;
        return BASALT_OK;
    }
    const struct basalt_avro_node *n = d->node;
    enum basalt_avro_type at = n->type;
    switch (t.id) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        if (at != BASALT_AVRO_BOOLEAN)
            return mismatch(err, n, t.id);
        out->u.b = d->boolean;
        return BASALT_OK;
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        if (at != BASALT_AVRO_INT && at != BASALT_AVRO_LONG)
            return mismatch(err, n, t.id);
        if (d->i < INT32_MIN || d->i > INT32_MAX)
            return basalt_error_set(err, BASALT_CORRUPT, "int value %lld out of range",
                                    (long long)d->i);
        out->u.i32 = (int32_t)d->i;
        return BASALT_OK;
    case BASALT_ICEBERG_TYPE_LONG:
    case BASALT_ICEBERG_TYPE_TIME:
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
        if (at != BASALT_AVRO_INT && at != BASALT_AVRO_LONG)
            return mismatch(err, n, t.id);
        out->u.i64 = d->i;
        return BASALT_OK;
    case BASALT_ICEBERG_TYPE_FLOAT:
        if (at != BASALT_AVRO_FLOAT)
            return mismatch(err, n, t.id);
        out->u.f32 = d->f;
        return BASALT_OK;
    case BASALT_ICEBERG_TYPE_DOUBLE:
        if (at == BASALT_AVRO_DOUBLE)
            out->u.f64 = d->d;
        else if (at == BASALT_AVRO_FLOAT)
            out->u.f64 = d->f;
        else
            return mismatch(err, n, t.id);
        return BASALT_OK;
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_BINARY:
    case BASALT_ICEBERG_TYPE_FIXED:
        if (at != BASALT_AVRO_STRING && at != BASALT_AVRO_BYTES && at != BASALT_AVRO_FIXED)
            return mismatch(err, n, t.id);
        if (t.id == BASALT_ICEBERG_TYPE_FIXED && t.length > 0 &&
            d->bytes.size != (size_t)t.length)
            return basalt_error_set(err, BASALT_CORRUPT, "fixed[%d] value of %zu bytes",
                                    (int)t.length, d->bytes.size);
        out->u.bytes.data = basalt_iceberg_mf_copy(arena, d->bytes.data, d->bytes.size);
        if (!out->u.bytes.data)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        out->u.bytes.len = d->bytes.size;
        return BASALT_OK;
    case BASALT_ICEBERG_TYPE_UUID: {
        uint8_t u[16];
        if ((at == BASALT_AVRO_FIXED || at == BASALT_AVRO_BYTES) && d->bytes.size == 16)
            memcpy(u, d->bytes.data, 16);
        else if (at == BASALT_AVRO_STRING && parse_uuid(d->bytes.data, d->bytes.size, u))
            ;
        else
            return basalt_error_set(err, BASALT_CORRUPT, "invalid uuid value");
        out->u.bytes.data = basalt_iceberg_mf_copy(arena, u, 16);
        if (!out->u.bytes.data)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        out->u.bytes.len = 16;
        return BASALT_OK;
    }
    case BASALT_ICEBERG_TYPE_DECIMAL:
        if (at != BASALT_AVRO_BYTES && at != BASALT_AVRO_FIXED)
            return mismatch(err, n, t.id);
        if (!decimal_from_be(d->bytes.data, d->bytes.size, &out->u.dec))
            return basalt_error_set(err, BASALT_CORRUPT, "decimal value of %zu bytes",
                                    d->bytes.size);
        out->scale = t.scale;
        return BASALT_OK;
    default:
        return basalt_error_set(err, BASALT_CORRUPT, "partition value of unsupported type %d",
                                (int)t.id);
    }
}

/* ------------------------------------------------------ single-value bounds */

static uint64_t le_u64(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

basalt_status basalt_iceberg_mf_bound_decode(const struct basalt_iceberg_type *type,
                                             const uint8_t *data, size_t len,
                                             struct basalt_iceberg_value *out,
                                             struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    out->type = type->id;
    size_t want = 0;
    switch (type->id) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        want = 1;
        break;
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
    case BASALT_ICEBERG_TYPE_FLOAT:
        want = 4;
        break;
    case BASALT_ICEBERG_TYPE_LONG:
    case BASALT_ICEBERG_TYPE_TIME:
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
    case BASALT_ICEBERG_TYPE_DOUBLE:
        want = 8;
        break;
    case BASALT_ICEBERG_TYPE_UUID:
        want = 16;
        break;
    case BASALT_ICEBERG_TYPE_FIXED:
        want = type->length > 0 ? (size_t)type->length : len;
        break;
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_BINARY:
        want = len;
        break;
    case BASALT_ICEBERG_TYPE_DECIMAL:
        if (!decimal_from_be(data, len, &out->u.dec))
            return basalt_error_set(err, BASALT_CORRUPT, "decimal bound of %zu bytes", len);
        out->scale = type->scale;
        return BASALT_OK;
    default:
        return basalt_error_set(err, BASALT_CORRUPT, "bound of unsupported type %d",
                                (int)type->id);
    }
    if (len != want)
        return basalt_error_set(err, BASALT_CORRUPT, "bound of %zu bytes, expected %zu", len,
                                want);
    switch (type->id) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        out->u.b = data[0] != 0;
        break;
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_DATE:
        out->u.i32 = (int32_t)(uint32_t)le_u64(data, 4);
        break;
    case BASALT_ICEBERG_TYPE_FLOAT: {
        uint32_t bits = (uint32_t)le_u64(data, 4);
        memcpy(&out->u.f32, &bits, 4);
        break;
    }
    case BASALT_ICEBERG_TYPE_DOUBLE: {
        uint64_t bits = le_u64(data, 8);
        memcpy(&out->u.f64, &bits, 8);
        break;
    }
    case BASALT_ICEBERG_TYPE_LONG:
    case BASALT_ICEBERG_TYPE_TIME:
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
        out->u.i64 = (int64_t)le_u64(data, 8);
        break;
    default:
        out->u.bytes.data = data;
        out->u.bytes.len = len;
        break;
    }
    return BASALT_OK;
}
