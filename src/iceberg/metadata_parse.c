/* Table metadata JSON (spec, "Table Metadata Fields") into struct
 * basalt_iceberg_metadata, with the defaults and checks of the Java reader. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basalt/iceberg_transform.h"
#include "iceberg_internal.h"

#define CHECK_ST(expr)                                                                      \
    do {                                                                                    \
        basalt_status st_ = (expr);                                                         \
        if (st_ != BASALT_OK)                                                               \
            return st_;                                                                     \
    } while (0)

/* Every top-level key this parser reads; the rest are kept as unknown. */
static const char *const known_keys[] = {
    "format-version",  "table-uuid",        "location",      "last-sequence-number",
    "last-updated-ms", "last-column-id",    "schema",        "schemas",
    "current-schema-id", "partition-spec",  "partition-specs", "default-spec-id",
    "last-partition-id", "properties",      "current-snapshot-id", "snapshots",
    "snapshot-log",    "metadata-log",      "sort-orders",   "default-sort-order-id",
    "refs",            "statistics",        "partition-statistics", "next-row-id",
    "encryption-keys",
};

static bool is_known_key(const char *key)
{
    for (size_t i = 0; i < sizeof(known_keys) / sizeof(known_keys[0]); i++)
        if (strcmp(key, known_keys[i]) == 0)
            return true;
    return false;
}

/* ---------------------------------------------------------------- schemas */

static basalt_status parse_schemas(struct basalt_iceberg_parse_ctx *ctx, const json_t *root,
                                   struct basalt_iceberg_metadata *m)
{
    const json_t *arr, *single;
    bool has_current = false;
    CHECK_ST(basalt_iceberg_json_array(root, "schemas", false, &arr, ctx->err));
    CHECK_ST(basalt_iceberg_json_object(root, "schema", false, &single, ctx->err));
    CHECK_ST(basalt_iceberg_json_i32(root, "current-schema-id", false, &has_current,
                                     &m->current_schema_id, ctx->err));
    if (!arr) {
        if (ctx->format_version >= 2)
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "missing 'schemas'");
        if (!single)
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "missing 'schema'");
        m->schemas = basalt_iceberg_arena_array(ctx, 1, sizeof(*m->schemas));
        if (!m->schemas)
            return BASALT_NOMEM;
        basalt_status st = basalt_iceberg_schema_parse(ctx, single, &m->schemas[0]);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "schema");
        m->n_schemas = 1;
        m->current_schema_id = m->schemas[0].schema_id;
        return BASALT_OK;
    }
    CHECK_ST(basalt_iceberg_json_array_of(ctx, arr, sizeof(*m->schemas), (void **)&m->schemas,
                                          &m->n_schemas));
    for (uint32_t i = 0; i < m->n_schemas; i++) {
        basalt_status st = basalt_iceberg_schema_parse(ctx, json_array_get(arr, i), &m->schemas[i]);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "schemas[%u]", i);
        for (uint32_t j = 0; j < i; j++)
            if (m->schemas[j].schema_id == m->schemas[i].schema_id)
                return basalt_error_set(ctx->err, BASALT_CORRUPT, "schemas[%u]: schema id %d is used twice",
                                        i, m->schemas[i].schema_id);
    }
    if (!has_current) {
        /* v1 writers that added `schemas` kept the singular `schema` as the
         * current one; without either id there is no current schema. */
        if (ctx->format_version >= 2 || !single)
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "missing 'current-schema-id'");
        int32_t id = 0;
        CHECK_ST(basalt_iceberg_json_i32(single, "schema-id", false, NULL, &id, ctx->err));
        m->current_schema_id = id;
    }
    for (uint32_t i = 0; i < m->n_schemas; i++)
        if (m->schemas[i].schema_id == m->current_schema_id)
            return BASALT_OK;
    return basalt_error_set(ctx->err, BASALT_CORRUPT,
                            "current-schema-id %d: no such schema in 'schemas'",
                            m->current_schema_id);
}

/* ------------------------------------------------------ partition specs */

static basalt_status parse_transform(struct basalt_iceberg_parse_ctx *ctx, const json_t *obj,
                                     struct basalt_iceberg_transform *out)
{
    const char *text;
    CHECK_ST(basalt_iceberg_json_str(ctx, obj, "transform", true, &text));
    return basalt_iceberg_transform_parse(text, out, ctx->err);
}

/* source-id, or v3's source-ids: all of them kept (so they are written
 * back), the first as source_id. */
static basalt_status parse_source_id(struct basalt_iceberg_parse_ctx *ctx, const json_t *obj,
                                     int32_t *out, int32_t **ids_out, uint32_t *n_ids_out)
{
    bool here = false;
    CHECK_ST(basalt_iceberg_json_i32(obj, "source-id", false, &here, out, ctx->err));
    if (here)
        return BASALT_OK;
    const json_t *ids;
    CHECK_ST(basalt_iceberg_json_array(obj, "source-ids", false, &ids, ctx->err));
    size_t n = ids ? json_array_size(ids) : 0;
    if (n == 0)
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "missing 'source-id'");
    int32_t *v = basalt_iceberg_arena_array(ctx, n, sizeof *v);
    if (!v)
        return BASALT_NOMEM;
    for (size_t i = 0; i < n; i++) {
        const json_t *id = json_array_get(ids, i);
        if (!json_is_integer(id) || json_integer_value(id) < INT32_MIN ||
            json_integer_value(id) > INT32_MAX)
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "'source-ids' holds a non-int");
        v[i] = (int32_t)json_integer_value(id);
    }
    *out = v[0];
    *ids_out = v;
    *n_ids_out = (uint32_t)n;
    return BASALT_OK;
}

static basalt_status parse_spec_fields(struct basalt_iceberg_parse_ctx *ctx, const json_t *arr,
                                       struct basalt_iceberg_partition_spec *spec)
{
    CHECK_ST(basalt_iceberg_json_array_of(ctx, arr, sizeof(*spec->fields), (void **)&spec->fields,
                                          &spec->n_fields));
    int32_t last = 999; /* ids are assigned after the highest seen, as Java does */
    for (uint32_t i = 0; i < spec->n_fields; i++) {
        struct basalt_iceberg_partition_field *f = &spec->fields[i];
        const json_t *o = json_array_get(arr, i);
        bool has_id = false;
        basalt_status st = basalt_iceberg_json_need_object(ctx, o);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_str(ctx, o, "name", true, &f->name);
        if (st == BASALT_OK)
            st = parse_transform(ctx, o, &f->transform);
        if (st == BASALT_OK)
            st = parse_source_id(ctx, o, &f->source_id, &f->source_ids, &f->n_source_ids);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_i32(o, "field-id", false, &has_id, &f->field_id, ctx->err);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "fields[%u]", i);
        if (has_id) {
            if (f->field_id > last)
                last = f->field_id;
        } else {
            if (last == INT32_MAX)
                return basalt_error_set(ctx->err, BASALT_CORRUPT, "fields[%u]: field id overflow", i);
            f->field_id = ++last;
        }
    }
    return BASALT_OK;
}

static basalt_status parse_specs(struct basalt_iceberg_parse_ctx *ctx, const json_t *root,
                                 struct basalt_iceberg_metadata *m)
{
    const json_t *arr;
    bool has_default = false, has_last = false;
    CHECK_ST(basalt_iceberg_json_array(root, "partition-specs", false, &arr, ctx->err));
    CHECK_ST(basalt_iceberg_json_i32(root, "default-spec-id", false, &has_default,
                                     &m->default_spec_id, ctx->err));
    if (!arr) {
        if (ctx->format_version >= 2)
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "missing 'partition-specs'");
        const json_t *single;
        CHECK_ST(basalt_iceberg_json_array(root, "partition-spec", true, &single, ctx->err));
        m->specs = basalt_iceberg_arena_array(ctx, 1, sizeof(*m->specs));
        if (!m->specs)
            return BASALT_NOMEM;
        m->n_specs = 1;
        basalt_status st = parse_spec_fields(ctx, single, &m->specs[0]);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "partition-spec");
        m->default_spec_id = 0;
    } else {
        CHECK_ST(basalt_iceberg_json_array_of(ctx, arr, sizeof(*m->specs), (void **)&m->specs,
                                              &m->n_specs));
        for (uint32_t i = 0; i < m->n_specs; i++) {
            const json_t *o = json_array_get(arr, i);
            const json_t *fields;
            basalt_status st = basalt_iceberg_json_need_object(ctx, o);
            if (st == BASALT_OK)
                st = basalt_iceberg_json_i32(o, "spec-id", true, NULL, &m->specs[i].spec_id,
                                             ctx->err);
            if (st == BASALT_OK)
                st = basalt_iceberg_json_array(o, "fields", true, &fields, ctx->err);
            if (st == BASALT_OK)
                st = parse_spec_fields(ctx, fields, &m->specs[i]);
            if (st != BASALT_OK)
                return basalt_error_context(ctx->err, st, "partition-specs[%u]", i);
            for (uint32_t j = 0; j < i; j++)
                if (m->specs[j].spec_id == m->specs[i].spec_id)
                    return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                            "partition-specs[%u]: spec id %d is used twice", i,
                                            m->specs[i].spec_id);
        }
        if (!has_default) {
            if (ctx->format_version >= 2)
                return basalt_error_set(ctx->err, BASALT_CORRUPT, "missing 'default-spec-id'");
            /* v1 writers that omitted it meant the newest spec. */
            m->default_spec_id = 0;
            for (uint32_t i = 0; i < m->n_specs; i++)
                if (i == 0 || m->specs[i].spec_id > m->default_spec_id)
                    m->default_spec_id = m->specs[i].spec_id;
        }
    }
    bool found = false;
    for (uint32_t i = 0; i < m->n_specs; i++)
        found |= m->specs[i].spec_id == m->default_spec_id;
    if (!found)
        return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                "default-spec-id %d: no such spec in 'partition-specs'",
                                m->default_spec_id);

    CHECK_ST(basalt_iceberg_json_i32(root, "last-partition-id", ctx->format_version >= 2,
                                     &has_last, &m->last_partition_id, ctx->err));
    if (!has_last) {
        m->last_partition_id = 999;
        for (uint32_t i = 0; i < m->n_specs; i++)
            for (uint32_t j = 0; j < m->specs[i].n_fields; j++)
                if (m->specs[i].fields[j].field_id > m->last_partition_id)
                    m->last_partition_id = m->specs[i].fields[j].field_id;
    }
    return BASALT_OK;
}

/* ----------------------------------------------------------- sort orders */

static basalt_status parse_sort_field(struct basalt_iceberg_parse_ctx *ctx, const json_t *o,
                                      struct basalt_iceberg_sort_field *f)
{
    const char *direction, *null_order;
    CHECK_ST(basalt_iceberg_json_need_object(ctx, o));
    CHECK_ST(parse_transform(ctx, o, &f->transform));
    CHECK_ST(parse_source_id(ctx, o, &f->source_id, &f->source_ids, &f->n_source_ids));
    CHECK_ST(basalt_iceberg_json_str(ctx, o, "direction", true, &direction));
    CHECK_ST(basalt_iceberg_json_str(ctx, o, "null-order", true, &null_order));
    if (strcmp(direction, "asc") == 0)
        f->direction = BASALT_ICEBERG_SORT_ASC;
    else if (strcmp(direction, "desc") == 0)
        f->direction = BASALT_ICEBERG_SORT_DESC;
    else
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "unknown direction '%s'", direction);
    if (strcmp(null_order, "nulls-first") == 0)
        f->null_order = BASALT_ICEBERG_NULLS_FIRST;
    else if (strcmp(null_order, "nulls-last") == 0)
        f->null_order = BASALT_ICEBERG_NULLS_LAST;
    else
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "unknown null-order '%s'", null_order);
    return BASALT_OK;
}

static basalt_status parse_sort_orders(struct basalt_iceberg_parse_ctx *ctx, const json_t *root,
                                       struct basalt_iceberg_metadata *m)
{
    const json_t *arr;
    CHECK_ST(basalt_iceberg_json_array(root, "sort-orders", false, &arr, ctx->err));
    if (!arr) {
        if (ctx->format_version >= 2)
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "missing 'sort-orders'");
        /* v1 tables without sort orders are unsorted: order 0, no fields. */
        m->sort_orders = basalt_iceberg_arena_array(ctx, 1, sizeof(*m->sort_orders));
        if (!m->sort_orders)
            return BASALT_NOMEM;
        m->n_sort_orders = 1;
        m->default_sort_order_id = 0;
        return BASALT_OK;
    }
    CHECK_ST(basalt_iceberg_json_i32(root, "default-sort-order-id", true, NULL,
                                     &m->default_sort_order_id, ctx->err));
    CHECK_ST(basalt_iceberg_json_array_of(ctx, arr, sizeof(*m->sort_orders),
                                          (void **)&m->sort_orders,
                      &m->n_sort_orders));
    bool found = false;
    for (uint32_t i = 0; i < m->n_sort_orders; i++) {
        struct basalt_iceberg_sort_order *so = &m->sort_orders[i];
        const json_t *o = json_array_get(arr, i), *fields;
        basalt_status st = basalt_iceberg_json_need_object(ctx, o);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_i32(o, "order-id", true, NULL, &so->order_id, ctx->err);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_array(o, "fields", true, &fields, ctx->err);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_array_of(ctx, fields, sizeof(*so->fields),
                                              (void **)&so->fields, &so->n_fields);
        for (uint32_t j = 0; st == BASALT_OK && j < so->n_fields; j++) {
            st = parse_sort_field(ctx, json_array_get(fields, j), &so->fields[j]);
            if (st != BASALT_OK)
                st = basalt_error_context(ctx->err, st, "fields[%u]", j);
        }
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "sort-orders[%u]", i);
        found |= so->order_id == m->default_sort_order_id;
    }
    if (!found && m->n_sort_orders > 0)
        return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                "default-sort-order-id %d: no such order in 'sort-orders'",
                                m->default_sort_order_id);
    return BASALT_OK;
}

/* -------------------------------------------------------------- snapshots */

static basalt_status parse_snapshot(struct basalt_iceberg_parse_ctx *ctx, const json_t *o,
                                    struct basalt_iceberg_snapshot *s)
{
    CHECK_ST(basalt_iceberg_json_need_object(ctx, o));
    CHECK_ST(basalt_iceberg_json_i64(o, "snapshot-id", true, NULL, &s->snapshot_id, ctx->err));
    CHECK_ST(basalt_iceberg_json_i64(o, "parent-snapshot-id", false, &s->has_parent_snapshot_id,
                                     &s->parent_snapshot_id, ctx->err));
    CHECK_ST(basalt_iceberg_json_i64(o, "sequence-number", false, NULL, &s->sequence_number,
                                     ctx->err));
    CHECK_ST(basalt_iceberg_json_i64(o, "timestamp-ms", true, NULL, &s->timestamp_ms, ctx->err));
    CHECK_ST(basalt_iceberg_json_str(ctx, o, "manifest-list", false, &s->manifest_list));
    if (!s->manifest_list) {
        const json_t *list;
        CHECK_ST(basalt_iceberg_json_array(o, "manifests", false, &list, ctx->err));
        if (!list)
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "missing 'manifest-list'");
        CHECK_ST(basalt_iceberg_json_array_of(ctx, list, sizeof(*s->manifests),
                                              (void **)&s->manifests,
                          &s->n_manifests));
        for (uint32_t i = 0; i < s->n_manifests; i++) {
            basalt_status st =
                basalt_iceberg_json_str_value(ctx, json_array_get(list, i), &s->manifests[i]);
            if (st != BASALT_OK)
                return basalt_error_context(ctx->err, st, "manifests[%u]", i);
        }
    }
    const json_t *summary;
    CHECK_ST(basalt_iceberg_json_object(o, "summary", false, &summary, ctx->err));
    s->operation = "append";
    if (summary) {
        struct basalt_iceberg_kv *kv;
        uint32_t n;
        basalt_status st = basalt_iceberg_json_kv(ctx, summary, &kv, &n);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "summary");
        uint32_t w = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (strcmp(kv[i].key, "operation") == 0)
                s->operation = kv[i].value;
            else
                kv[w++] = kv[i];
        }
        s->summary = kv;
        s->n_summary = w;
    }
    CHECK_ST(basalt_iceberg_json_i32(o, "schema-id", false, &s->has_schema_id, &s->schema_id,
                                     ctx->err));
    CHECK_ST(basalt_iceberg_json_i64(o, "first-row-id", false, &s->has_first_row_id,
                                     &s->first_row_id, ctx->err));
    CHECK_ST(basalt_iceberg_json_i64(o, "added-rows", false, &s->has_added_rows, &s->added_rows,
                                     ctx->err));
    CHECK_ST(basalt_iceberg_json_str(ctx, o, "key-id", false, &s->key_id));
    return BASALT_OK;
}

static basalt_status parse_snapshots(struct basalt_iceberg_parse_ctx *ctx, const json_t *root,
                                     struct basalt_iceberg_metadata *m)
{
    const json_t *arr;
    CHECK_ST(basalt_iceberg_json_array(root, "snapshots", false, &arr, ctx->err));
    if (!arr) {
        m->snapshots = basalt_iceberg_arena_array(ctx, 0, sizeof(*m->snapshots));
        return m->snapshots ? BASALT_OK : BASALT_NOMEM;
    }
    CHECK_ST(basalt_iceberg_json_array_of(ctx, arr, sizeof(*m->snapshots), (void **)&m->snapshots,
                                          &m->n_snapshots));
    for (uint32_t i = 0; i < m->n_snapshots; i++) {
        struct basalt_iceberg_snapshot *s = &m->snapshots[i];
        basalt_status st = parse_snapshot(ctx, json_array_get(arr, i), s);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "snapshots[%u]", i);
        if (ctx->format_version >= 2 && s->sequence_number > m->last_sequence_number)
            return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                    "snapshots[%u]: sequence number %lld is greater than "
                                    "last-sequence-number %lld",
                                    i, (long long)s->sequence_number,
                                    (long long)m->last_sequence_number);
        for (uint32_t j = 0; j < i; j++)
            if (m->snapshots[j].snapshot_id == s->snapshot_id)
                return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                        "snapshots[%u]: snapshot id %lld is used twice", i,
                                        (long long)s->snapshot_id);
    }
    return BASALT_OK;
}

static const struct basalt_iceberg_snapshot *find_snapshot(const struct basalt_iceberg_metadata *m,
                                                           int64_t id)
{
    for (uint32_t i = 0; i < m->n_snapshots; i++)
        if (m->snapshots[i].snapshot_id == id)
            return &m->snapshots[i];
    return NULL;
}

static int ref_compare(const void *a, const void *b)
{
    const struct basalt_iceberg_ref *x = a, *y = b;
    return strcmp(x->name, y->name);
}

static basalt_status parse_refs(struct basalt_iceberg_parse_ctx *ctx, const json_t *root,
                                struct basalt_iceberg_metadata *m)
{
    const json_t *obj;
    CHECK_ST(basalt_iceberg_json_object(root, "refs", false, &obj, ctx->err));
    if (!obj) {
        m->refs = basalt_iceberg_arena_array(ctx, 1, sizeof(*m->refs));
        if (!m->refs)
            return BASALT_NOMEM;
        if (m->has_current_snapshot_id) {
            m->refs[0].name = "main";
            m->refs[0].snapshot_id = m->current_snapshot_id;
            m->n_refs = 1;
        }
        return BASALT_OK;
    }
    size_t n = json_object_size(obj);
    if (n > UINT32_MAX)
        return basalt_error_set(ctx->err, BASALT_LIMIT, "too many refs");
    m->refs = basalt_iceberg_arena_array(ctx, n, sizeof(*m->refs));
    if (!m->refs)
        return BASALT_NOMEM;
    const char *key;
    json_t *value;
    json_t *o = (json_t *)(uintptr_t)obj;
    json_object_foreach(o, key, value)
    {
        struct basalt_iceberg_ref *r = &m->refs[m->n_refs];
        const char *type = NULL;
        basalt_status st = basalt_iceberg_json_need_object(ctx, value);
        if (st == BASALT_OK) {
            char *name = basalt_arena_strndup(ctx->arena, key, strlen(key));
            if (!name)
                return basalt_error_set(ctx->err, BASALT_NOMEM, "out of memory");
            r->name = name;
            st = basalt_iceberg_json_i64(value, "snapshot-id", true, NULL, &r->snapshot_id,
                                         ctx->err);
        }
        if (st == BASALT_OK)
            st = basalt_iceberg_json_str(ctx, value, "type", true, &type);
        if (st == BASALT_OK) {
            if (strcasecmp(type, "tag") == 0)
                r->is_tag = true;
            else if (strcasecmp(type, "branch") != 0)
                st = basalt_error_set(ctx->err, BASALT_CORRUPT, "unknown ref type '%s'", type);
        }
        if (st == BASALT_OK)
            st = basalt_iceberg_json_i32(value, "min-snapshots-to-keep", false,
                                         &r->has_min_snapshots_to_keep, &r->min_snapshots_to_keep,
                                         ctx->err);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_i64(value, "max-snapshot-age-ms", false,
                                         &r->has_max_snapshot_age_ms, &r->max_snapshot_age_ms,
                                         ctx->err);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_i64(value, "max-ref-age-ms", false, &r->has_max_ref_age_ms,
                                         &r->max_ref_age_ms, ctx->err);
        if (st == BASALT_OK && !find_snapshot(m, r->snapshot_id))
            st = basalt_error_set(ctx->err, BASALT_CORRUPT, "snapshot %lld does not exist",
                                  (long long)r->snapshot_id);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "refs: '%s'", key);
        m->n_refs++;
    }
    qsort(m->refs, m->n_refs, sizeof(*m->refs), ref_compare);
    return BASALT_OK;
}

/* ------------------------------------------------------------------ logs */

static basalt_status parse_logs(struct basalt_iceberg_parse_ctx *ctx, const json_t *root,
                                struct basalt_iceberg_metadata *m)
{
    const json_t *arr;
    CHECK_ST(basalt_iceberg_json_array(root, "snapshot-log", false, &arr, ctx->err));
    CHECK_ST(basalt_iceberg_json_array_of(ctx, arr, sizeof(*m->snapshot_log),
                                          (void **)&m->snapshot_log,
                      &m->n_snapshot_log));
    for (uint32_t i = 0; i < m->n_snapshot_log; i++) {
        const json_t *o = json_array_get(arr, i);
        basalt_status st = basalt_iceberg_json_need_object(ctx, o);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_i64(o, "timestamp-ms", true, NULL,
                                         &m->snapshot_log[i].timestamp_ms, ctx->err);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_i64(o, "snapshot-id", true, NULL,
                                         &m->snapshot_log[i].snapshot_id, ctx->err);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "snapshot-log[%u]", i);
    }
    CHECK_ST(basalt_iceberg_json_array(root, "metadata-log", false, &arr, ctx->err));
    CHECK_ST(basalt_iceberg_json_array_of(ctx, arr, sizeof(*m->metadata_log),
                                          (void **)&m->metadata_log,
                      &m->n_metadata_log));
    for (uint32_t i = 0; i < m->n_metadata_log; i++) {
        const json_t *o = json_array_get(arr, i);
        basalt_status st = basalt_iceberg_json_need_object(ctx, o);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_i64(o, "timestamp-ms", true, NULL,
                                         &m->metadata_log[i].timestamp_ms, ctx->err);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_str(ctx, o, "metadata-file", true,
                                         &m->metadata_log[i].metadata_file);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "metadata-log[%u]", i);
    }
    return BASALT_OK;
}

/* ------------------------------------------------------------ statistics */

static basalt_status parse_int_list(struct basalt_iceberg_parse_ctx *ctx, const json_t *obj,
                                    const char *key, int32_t **out, uint32_t *n)
{
    const json_t *arr;
    CHECK_ST(basalt_iceberg_json_array(obj, key, true, &arr, ctx->err));
    CHECK_ST(basalt_iceberg_json_array_of(ctx, arr, sizeof(int32_t), (void **)out, n));
    for (uint32_t i = 0; i < *n; i++) {
        const json_t *v = json_array_get(arr, i);
        if (!json_is_integer(v) || json_integer_value(v) < INT32_MIN ||
            json_integer_value(v) > INT32_MAX)
            return basalt_error_set(ctx->err, BASALT_CORRUPT, "%s[%u] is not an int", key, i);
        (*out)[i] = (int32_t)json_integer_value(v);
    }
    return BASALT_OK;
}

static basalt_status parse_statistics_file(struct basalt_iceberg_parse_ctx *ctx, const json_t *o,
                                           struct basalt_iceberg_statistics_file *f)
{
    const json_t *blobs;
    CHECK_ST(basalt_iceberg_json_need_object(ctx, o));
    CHECK_ST(basalt_iceberg_json_i64(o, "snapshot-id", true, NULL, &f->snapshot_id, ctx->err));
    CHECK_ST(basalt_iceberg_json_str(ctx, o, "statistics-path", true, &f->statistics_path));
    CHECK_ST(basalt_iceberg_json_i64(o, "file-size-in-bytes", true, NULL, &f->file_size_in_bytes,
                                     ctx->err));
    CHECK_ST(basalt_iceberg_json_i64(o, "file-footer-size-in-bytes", true, NULL,
                                     &f->file_footer_size_in_bytes, ctx->err));
    CHECK_ST(basalt_iceberg_json_str(ctx, o, "key-metadata", false, &f->key_metadata));
    CHECK_ST(basalt_iceberg_json_array(o, "blob-metadata", true, &blobs, ctx->err));
    CHECK_ST(basalt_iceberg_json_array_of(ctx, blobs, sizeof(*f->blobs), (void **)&f->blobs,
                                          &f->n_blobs));
    for (uint32_t i = 0; i < f->n_blobs; i++) {
        struct basalt_iceberg_blob_metadata *b = &f->blobs[i];
        const json_t *bo = json_array_get(blobs, i);
        basalt_status st = basalt_iceberg_json_need_object(ctx, bo);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_str(ctx, bo, "type", true, &b->type);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_i64(bo, "snapshot-id", true, NULL, &b->snapshot_id, ctx->err);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_i64(bo, "sequence-number", true, NULL, &b->sequence_number,
                                         ctx->err);
        if (st == BASALT_OK)
            st = parse_int_list(ctx, bo, "fields", &b->fields, &b->n_fields);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_kv_field(ctx, bo, "properties", false, &b->properties,
                                              &b->n_properties);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "blob-metadata[%u]", i);
    }
    return BASALT_OK;
}

static basalt_status parse_statistics(struct basalt_iceberg_parse_ctx *ctx, const json_t *root,
                                      struct basalt_iceberg_metadata *m)
{
    const json_t *arr;
    CHECK_ST(basalt_iceberg_json_array(root, "statistics", false, &arr, ctx->err));
    CHECK_ST(basalt_iceberg_json_array_of(ctx, arr, sizeof(*m->statistics), (void **)&m->statistics,
                      &m->n_statistics));
    for (uint32_t i = 0; i < m->n_statistics; i++) {
        basalt_status st = parse_statistics_file(ctx, json_array_get(arr, i), &m->statistics[i]);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "statistics[%u]", i);
    }
    CHECK_ST(basalt_iceberg_json_array(root, "partition-statistics", false, &arr, ctx->err));
    CHECK_ST(basalt_iceberg_json_array_of(ctx, arr, sizeof(*m->partition_statistics),
                      (void **)&m->partition_statistics, &m->n_partition_statistics));
    for (uint32_t i = 0; i < m->n_partition_statistics; i++) {
        struct basalt_iceberg_partition_statistics_file *f = &m->partition_statistics[i];
        const json_t *o = json_array_get(arr, i);
        basalt_status st = basalt_iceberg_json_need_object(ctx, o);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_i64(o, "snapshot-id", true, NULL, &f->snapshot_id, ctx->err);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_str(ctx, o, "statistics-path", true, &f->statistics_path);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_i64(o, "file-size-in-bytes", true, NULL,
                                         &f->file_size_in_bytes, ctx->err);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "partition-statistics[%u]", i);
    }
    return BASALT_OK;
}

static basalt_status parse_encryption_keys(struct basalt_iceberg_parse_ctx *ctx,
                                           const json_t *root, struct basalt_iceberg_metadata *m)
{
    const json_t *arr;
    CHECK_ST(basalt_iceberg_json_array(root, "encryption-keys", false, &arr, ctx->err));
    CHECK_ST(basalt_iceberg_json_array_of(ctx, arr, sizeof(*m->encryption_keys),
                                          (void **)&m->encryption_keys,
                      &m->n_encryption_keys));
    for (uint32_t i = 0; i < m->n_encryption_keys; i++) {
        struct basalt_iceberg_encryption_key *k = &m->encryption_keys[i];
        const json_t *o = json_array_get(arr, i);
        basalt_status st = basalt_iceberg_json_need_object(ctx, o);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_str(ctx, o, "key-id", true, &k->key_id);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_str(ctx, o, "encrypted-key-metadata", true,
                                         &k->encrypted_key_metadata);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_str(ctx, o, "encrypted-by-id", false, &k->encrypted_by_id);
        if (st == BASALT_OK)
            st = basalt_iceberg_json_kv_field(ctx, o, "properties", false, &k->properties,
                                              &k->n_properties);
        if (st != BASALT_OK)
            return basalt_error_context(ctx->err, st, "encryption-keys[%u]", i);
    }
    return BASALT_OK;
}


/* ------------------------------------------------------------ top level */

static basalt_status parse_root(struct basalt_iceberg_parse_ctx *ctx, const json_t *root,
                                struct basalt_iceberg_metadata *m)
{
    if (!json_is_object(root))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "table metadata is not a JSON object");
    int64_t version;
    CHECK_ST(basalt_iceberg_json_i64(root, "format-version", true, NULL, &version, ctx->err));
    if (version > BASALT_ICEBERG_MAX_FORMAT_VERSION)
        return basalt_error_set(ctx->err, BASALT_UNSUPPORTED,
                                "format-version %lld is newer than the supported %d",
                                (long long)version, BASALT_ICEBERG_MAX_FORMAT_VERSION);
    if (version < 1)
        return basalt_error_set(ctx->err, BASALT_UNSUPPORTED,
                                "format-version %lld is not supported", (long long)version);
    if (json_object_get(root, "view-uuid") && !json_object_get(root, "table-uuid"))
        return basalt_error_set(ctx->err, BASALT_CORRUPT, "view metadata, not table metadata");
    m->format_version = (int32_t)version;
    ctx->format_version = m->format_version;
    bool v2 = version >= 2;

    CHECK_ST(basalt_iceberg_json_str(ctx, root, "table-uuid", v2, &m->table_uuid));
    CHECK_ST(basalt_iceberg_json_str(ctx, root, "location", true, &m->location));
    CHECK_ST(basalt_iceberg_json_i64(root, "last-sequence-number", v2, NULL,
                                     &m->last_sequence_number, ctx->err));
    CHECK_ST(basalt_iceberg_json_i64(root, "last-updated-ms", true, NULL, &m->last_updated_ms,
                                     ctx->err));
    CHECK_ST(basalt_iceberg_json_i32(root, "last-column-id", true, NULL, &m->last_column_id,
                                     ctx->err));
    CHECK_ST(parse_schemas(ctx, root, m));
    CHECK_ST(parse_specs(ctx, root, m));
    CHECK_ST(parse_sort_orders(ctx, root, m));
    CHECK_ST(basalt_iceberg_json_kv_field(ctx, root, "properties", false, &m->properties,
                                          &m->n_properties));

    int64_t current = -1;
    CHECK_ST(basalt_iceberg_json_i64(root, "current-snapshot-id", false, NULL, &current,
                                     ctx->err));
    CHECK_ST(parse_snapshots(ctx, root, m));
    /* -1 means none, unless a snapshot has that id (2^64 - 1 written
     * unsigned by a writer that keeps ids unsigned). */
    m->has_current_snapshot_id = current != -1 || find_snapshot(m, -1) != NULL;
    m->current_snapshot_id = m->has_current_snapshot_id ? current : 0;
    if (m->has_current_snapshot_id && !find_snapshot(m, current))
        return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                "current-snapshot-id %lld: no such snapshot", (long long)current);
    CHECK_ST(parse_refs(ctx, root, m));
    const struct basalt_iceberg_ref *main_ref = basalt_iceberg_metadata_ref(m, "main");
    if (main_ref && !m->has_current_snapshot_id)
        return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                "current snapshot is not set, but branch main exists");
    if (main_ref && main_ref->snapshot_id != m->current_snapshot_id)
        return basalt_error_set(ctx->err, BASALT_CORRUPT,
                                "current-snapshot-id %lld does not match branch main (%lld)",
                                (long long)m->current_snapshot_id,
                                (long long)main_ref->snapshot_id);
    CHECK_ST(parse_logs(ctx, root, m));
    CHECK_ST(parse_statistics(ctx, root, m));
    /* Required in v3, but Java 1.8 wrote v3 tables without it (row lineage
     * off) and read them as 0, as is done here. */
    CHECK_ST(basalt_iceberg_json_i64(root, "next-row-id", false, &m->has_next_row_id,
                                     &m->next_row_id, ctx->err));
    CHECK_ST(parse_encryption_keys(ctx, root, m));
    CHECK_ST(basalt_iceberg_json_unknown_keys(ctx, root, is_known_key, &m->unknown_keys_json));
    return BASALT_OK;
}

basalt_status basalt_iceberg_metadata_parse_limit(const void *data, size_t len, const char *name,
                                                  size_t max_json,
                                                  struct basalt_iceberg_metadata **out,
                                                  struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if ((!data && len) || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "metadata_parse: NULL argument");
    if (!name)
        name = "metadata";
    char *inflated = NULL;
    size_t inflated_len = 0;
    basalt_status st = basalt_iceberg_metadata_inflate(data, len, max_json, &inflated,
                                                       &inflated_len, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", name);
    const char *text = inflated ? inflated : data;
    size_t text_len = inflated ? inflated_len : len;
    char *signed_ids = NULL;
    size_t signed_len = 0;
    st = basalt_iceberg_json_signed_snapshot_ids(text, text_len, &signed_ids, &signed_len, err);
    if (st != BASALT_OK) {
        basalt_free(inflated);
        return basalt_error_context(err, st, "%s", name);
    }
    if (signed_ids) {
        text = signed_ids;
        text_len = signed_len;
    }

    json_error_t jerr;
    json_t *root = json_loadb(text ? text : "", text_len, 0, &jerr);
    basalt_free(signed_ids);
    basalt_free(inflated);
    if (!root)
        return basalt_error_set(err, BASALT_CORRUPT, "%s: invalid JSON at line %d column %d: %s",
                                name, jerr.line, jerr.column, jerr.text);
    struct basalt_iceberg_metadata_impl *impl = basalt_calloc(1, sizeof(*impl));
    if (!impl) {
        json_decref(root);
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory", name);
    }
    basalt_arena_init(&impl->arena, 16384);
    struct basalt_iceberg_parse_ctx ctx = {&impl->arena, err, 0};
    st = parse_root(&ctx, root, &impl->pub);
    json_decref(root);
    if (st != BASALT_OK) {
        basalt_iceberg_metadata_free(&impl->pub);
        return basalt_error_context(err, st, "%s", name);
    }
    *out = &impl->pub;
    return BASALT_OK;
}

basalt_status basalt_iceberg_metadata_parse(const void *data, size_t len, const char *name,
                                            struct basalt_iceberg_metadata **out,
                                            struct basalt_error *err)
{
    return basalt_iceberg_metadata_parse_limit(data, len, name, BASALT_ICEBERG_METADATA_MAX_JSON,
                                               out, err);
}

void basalt_iceberg_metadata_free(struct basalt_iceberg_metadata *metadata)
{
    if (!metadata)
        return;
    struct basalt_iceberg_metadata_impl *impl = (struct basalt_iceberg_metadata_impl *)metadata;
    basalt_arena_reset(&impl->arena);
    basalt_free(impl);
}
