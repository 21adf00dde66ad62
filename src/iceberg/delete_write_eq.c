/* Equality-delete files: the key columns of the deleted rows, one file per
 * partition of the data files those rows came from (an equality delete
 * applies only within its partition, or to the whole table when written
 * unpartitioned), with equality_ids naming the key fields. Every row of
 * any older data file in that partition whose key equals one written here
 * is deleted, so the keys should identify rows (identifier fields). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "basalt/arrow.h"
#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_write.h"
#include "commit_internal.h"
#include "delete_write_internal.h"
#include "iceberg_internal.h"
#include "scan_internal.h"

struct eq_group {
    int32_t spec_id;
    const struct basalt_iceberg_data_file *sample; /* a data file of the partition */
    struct basalt_iceberg_data_writer *w;          /* also kept in the delete files */
};

struct basalt_iceberg_eq_groups {
    const struct basalt_iceberg_table *t;
    struct basalt_iceberg_schema *schema;          /* the key columns, in d's arena */
    int32_t *ids;
    uint32_t n_ids;
    struct eq_group *groups;
    uint32_t n, cap;
    uint32_t *row_group;                           /* scratch: a group per row */
    size_t row_cap;
};

void basalt_iceberg_eq_groups_free(struct basalt_iceberg_eq_groups *g)
{
    if (!g)
        return;
    basalt_free(g->groups);
    basalt_free(g->row_group);
    basalt_free(g);
}

/* The current schema narrowed to the top-level key fields. */
static basalt_status key_schema(const struct basalt_iceberg_schema *schema, const int32_t *ids,
                                uint32_t n, struct basalt_arena *arena,
                                struct basalt_iceberg_schema *out, struct basalt_error *err)
{
    json_t *json = basalt_iceberg_schema_to_json(schema);
    json_t *fields = json ? json_object_get(json, "fields") : NULL, *kept = json_array();
    basalt_status st = json && fields && kept ? BASALT_OK
                                             : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t k = 0; st == BASALT_OK && k < n; k++) {
        json_t *f = basalt_iceberg_jfind(fields, "id", ids[k]);
        const json_t *type = f ? json_object_get(f, "type") : NULL;
        if (!f)
            st = basalt_error_set(err, BASALT_INVALID_ARG,
                                  "equality delete column %d is not a top-level column", (int)ids[k]);
        else if (!json_is_string(type))
            st = basalt_error_set(err, BASALT_INVALID_ARG,
                                  "equality delete column '%s' is not of a primitive type",
                                  json_string_value(json_object_get(f, "name")));
        else if (json_array_append(kept, f))
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    char *text = NULL;
    if (st == BASALT_OK) {
        json_object_set(json, "fields", kept);
        json_object_del(json, "identifier-field-ids");
        text = json_dumps(json, JSON_COMPACT);
        if (!text)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    if (st == BASALT_OK)
        st = basalt_iceberg_schema_parse_json(text, strlen(text), arena, out, err);
    free(text);
    json_decref(kept);
    json_decref(json);
    return st;
}

basalt_status basalt_iceberg_eq_deletes_begin(const struct basalt_iceberg_table *t,
                                              const int32_t *field_ids, uint32_t n_ids,
                                              struct basalt_iceberg_delete_files *d,
                                              struct basalt_error *err)
{
    if (n_ids == 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "equality deletes need key columns");
    struct basalt_iceberg_eq_groups *g = basalt_calloc(1, sizeof *g);
    if (!g)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    d->eq = g;
    g->t = t;
    g->n_ids = n_ids;
    g->ids = basalt_arena_alloc(&d->arena, n_ids * sizeof *g->ids, 4);
    g->schema = basalt_arena_alloc(&d->arena, sizeof *g->schema, 8);
    if (!g->ids || !g->schema)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memcpy(g->ids, field_ids, n_ids * sizeof *g->ids);
    return key_schema(basalt_iceberg_metadata_current_schema(t->metadata), field_ids, n_ids,
                      &d->arena, g->schema, err);
}

static basalt_status group_for(struct basalt_iceberg_delete_files *d,
                               const struct basalt_iceberg_data_file *file, int32_t spec_id,
                               uint32_t *out, struct basalt_error *err)
{
    struct basalt_iceberg_eq_groups *g = d->eq;
    for (uint32_t i = 0; i < g->n; i++)
        if (g->groups[i].spec_id == spec_id &&
            basalt_iceberg_partition_equal(g->groups[i].sample, file)) {
            *out = i;
            return BASALT_OK;
        }
    if (g->n == g->cap) {
        uint32_t cap = g->cap ? g->cap * 2 : 8;
        struct eq_group *groups = basalt_realloc(g->groups, cap * sizeof *groups);
        if (!groups)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        g->groups = groups;
        g->cap = cap;
    }
    struct basalt_iceberg_data_writer *w = NULL;
    basalt_status st =
        basalt_iceberg_delete_files_writer(g->t, "eq-deletes", g->schema, NULL, 0, d, &w, err);
    if (st != BASALT_OK)
        return st;
    g->groups[g->n] = (struct eq_group){.spec_id = spec_id, .sample = file, .w = w};
    *out = g->n++;
    return BASALT_OK;
}

basalt_status basalt_iceberg_eq_deletes_add(struct basalt_iceberg_delete_files *d,
                                            const struct ArrowSchema *keys_schema,
                                            const struct ArrowArray *keys,
                                            const struct basalt_iceberg_data_file *const *files,
                                            const int32_t *spec_ids, struct basalt_error *err)
{
    struct basalt_iceberg_eq_groups *g = d->eq;
    size_t n = (size_t)keys->length;
    if (n == 0)
        return BASALT_OK;
    if (n > g->row_cap) {
        uint32_t *rg = basalt_realloc(g->row_group, n * sizeof *rg);
        if (!rg)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        g->row_group = rg;
        g->row_cap = n;
    }
    basalt_status st = BASALT_OK;
    bool one_group = true;
    for (size_t r = 0; st == BASALT_OK && r < n; r++) {
        if (r > 0 && files[r] == files[r - 1]) {
            g->row_group[r] = g->row_group[r - 1];
            continue;
        }
        st = group_for(d, files[r], spec_ids[r], &g->row_group[r], err);
        one_group &= g->row_group[r] == g->row_group[0];
    }
    if (st != BASALT_OK)
        return st;
    if (one_group)
        return basalt_iceberg_data_writer_write(g->groups[g->row_group[0]].w, keys, err);
    uint8_t *sel = basalt_malloc(n / 8 + 1);
    if (!sel)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t k = 0; st == BASALT_OK && k < g->n; k++) {
        memset(sel, 0, n / 8 + 1);
        int64_t n_sel = 0;
        for (size_t r = 0; r < n; r++)
            if (g->row_group[r] == k) {
                sel[r / 8] |= (uint8_t)(1u << (r % 8));
                n_sel++;
            }
        if (n_sel == 0)
            continue;
        struct ArrowArray part;
        st = basalt_iceberg_filter_array(keys_schema, keys, sel, n_sel, &part, err);
        if (st == BASALT_OK) {
            st = basalt_iceberg_data_writer_write(g->groups[k].w, &part, err);
            basalt_arrow_array_release(&part);
        }
    }
    basalt_free(sel);
    return st;
}

basalt_status basalt_iceberg_eq_deletes_finish(struct basalt_iceberg_delete_files *d,
                                               struct basalt_error *err)
{
    struct basalt_iceberg_eq_groups *g = d->eq;
    basalt_status st = BASALT_OK;
    for (uint32_t k = 0; g && st == BASALT_OK && k < g->n; k++) {
        const struct basalt_iceberg_data_file *files = NULL;
        uint32_t n_files = 0;
        st = basalt_iceberg_data_writer_finish(g->groups[k].w, &files, &n_files, err);
        for (uint32_t i = 0; st == BASALT_OK && i < n_files; i++) {
            struct basalt_iceberg_data_file f = files[i];
            f.content = BASALT_ICEBERG_CONTENT_EQUALITY_DELETES;
            f.partition = g->groups[k].sample->partition;
            f.n_partition = g->groups[k].sample->n_partition;
            f.equality_ids = g->ids;
            f.n_equality_ids = g->n_ids;
            f.has_sort_order_id = false;
            st = basalt_iceberg_delete_files_add(d, &f, g->groups[k].spec_id, err);
        }
    }
    return st;
}
