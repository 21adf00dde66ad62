/* Avro data files of a scan: the top-level fields a layout reads, by field
 * id, decoded into Arrow by the Avro converter, with the ids of the Avro
 * schema (field-id, element-id, key-id, value-id) put on the Arrow schema so
 * that conforming to the table schema works as for Parquet files. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/avro.h"
#include "basalt/iceberg_catalog.h"
#include "basalt/iceberg_metadata.h"
#include "scan_internal.h"

#define FIELD_ID_KEY "PARQUET:field_id"
#define MAX_DEPTH 200

struct basalt_iceberg_avro_source {
    const struct basalt_iceberg_io *io; /* the scan's: counts the input */
    struct basalt_input *in;
    struct basalt_avro_reader *reader;
    struct basalt_avro_arrow *conv;
    struct ArrowSchema schema; /* "+s" of the selected fields, with ids */
    int64_t batch_size;
};

/* ------------------------------------------------------------ ids */

/* An id property ("field-id": 3, or "3") as an int32; false when absent or
 * not one. */
static bool prop_id(const char *json, int32_t *out)
{
    if (json == NULL)
        return false;
    const char *p = json;
    if (*p == '"')
        p++;
    char *end;
    long long v = strtoll(p, &end, 10);
    if (end == p || (*end != '\0' && *end != '"') || v < 0 || v > INT32_MAX)
        return false;
    *out = (int32_t)v;
    return true;
}

/* The type a value of `n` is stored as: a union of null and one type is that
 * type. */
static const struct basalt_avro_node *base_of(const struct basalt_avro_node *n)
{
    if (n->type != BASALT_AVRO_UNION)
        return n;
    const struct basalt_avro_node *base = NULL;
    for (uint32_t i = 0; i < n->count; i++) {
        if (n->branches[i]->type == BASALT_AVRO_NULL)
            continue;
        if (base)
            return n;
        base = n->branches[i];
    }
    return base ? base : n;
}

static bool node_has_ids(const struct basalt_avro_node *n, int depth)
{
    if (depth > MAX_DEPTH)
        return false;
    n = base_of(n);
    int32_t id;
    switch (n->type) {
    case BASALT_AVRO_RECORD:
        for (uint32_t i = 0; i < n->count; i++)
            if (prop_id(basalt_avro_field_prop(&n->fields[i], "field-id"), &id) ||
                node_has_ids(n->fields[i].type, depth + 1))
                return true;
        return false;
    case BASALT_AVRO_ARRAY:
        return prop_id(basalt_avro_node_prop(n, "element-id"), &id) || node_has_ids(n->items, depth + 1);
    case BASALT_AVRO_MAP:
        return prop_id(basalt_avro_node_prop(n, "key-id"), &id) ||
               prop_id(basalt_avro_node_prop(n, "value-id"), &id) || node_has_ids(n->items, depth + 1);
    default:
        return false;
    }
}

static basalt_status set_id(struct ArrowSchema *s, int32_t id, struct basalt_error *err)
{
    char text[16];
    int n = snprintf(text, sizeof text, "%" PRId32, id);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st = basalt_arrow_metadata_append(&buf, FIELD_ID_KEY, strlen(FIELD_ID_KEY), text,
                                                    (size_t)n, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_set_metadata(s, (const char *)buf.data, err);
    basalt_buffer_reset(&buf);
    return st;
}

static basalt_status set_prop_id(struct ArrowSchema *s, const char *json, struct basalt_error *err)
{
    int32_t id;
    return prop_id(json, &id) ? set_id(s, id, err) : BASALT_OK;
}

/* Puts the Avro schema's ids below node `n` on its Arrow form `s`. */
static basalt_status annotate(const struct basalt_avro_node *n, struct ArrowSchema *s, int depth,
                              struct basalt_error *err)
{
    if (depth > MAX_DEPTH)
        return basalt_error_set(err, BASALT_LIMIT, "nesting over %d levels", MAX_DEPTH);
    n = base_of(n);
    basalt_status st = BASALT_OK;
    switch (n->type) {
    case BASALT_AVRO_RECORD:
        if (s->n_children != (int64_t)n->count)
            return BASALT_OK;
        for (uint32_t i = 0; i < n->count && st == BASALT_OK; i++) {
            st = set_prop_id(s->children[i], basalt_avro_field_prop(&n->fields[i], "field-id"), err);
            if (st == BASALT_OK)
                st = annotate(n->fields[i].type, s->children[i], depth + 1, err);
        }
        return st;
    case BASALT_AVRO_ARRAY:
        if (s->n_children != 1)
            return BASALT_OK;
        st = set_prop_id(s->children[0], basalt_avro_node_prop(n, "element-id"), err);
        return st == BASALT_OK ? annotate(n->items, s->children[0], depth + 1, err) : st;
    case BASALT_AVRO_MAP: {
        if (s->n_children != 1 || s->children[0]->n_children != 2)
            return BASALT_OK;
        struct ArrowSchema *entries = s->children[0];
        st = set_prop_id(entries->children[0], basalt_avro_node_prop(n, "key-id"), err);
        if (st == BASALT_OK)
            st = set_prop_id(entries->children[1], basalt_avro_node_prop(n, "value-id"), err);
        return st == BASALT_OK ? annotate(n->items, entries->children[1], depth + 1, err) : st;
    }
    default:
        return BASALT_OK;
    }
}

/* ------------------------------------------------------------ open */

/* The id of each top-level field of `root` (-1: none): from the file's
 * ids, else from the table's name mapping, else from the table schema's
 * names (as Java reads Avro files without ids). */
static basalt_status top_ids(const struct basalt_iceberg_scan *scan, const struct basalt_avro_node *root,
                             bool has_ids, int32_t *ids, struct basalt_error *err)
{
    for (uint32_t i = 0; i < root->count; i++) {
        ids[i] = -1;
        if (has_ids)
            prop_id(basalt_avro_field_prop(&root->fields[i], "field-id"), &ids[i]);
    }
    if (has_ids)
        return BASALT_OK;
    struct ArrowSchema skel;
    basalt_status st = basalt_arrow_schema_init(&skel, "+s", "", 0, root->count, err);
    for (uint32_t i = 0; i < root->count && st == BASALT_OK; i++)
        st = basalt_arrow_schema_init(skel.children[i], "n", root->fields[i].name, ARROW_FLAG_NULLABLE, 0, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_name_mapping_apply(scan->name_mapping, scan->schema, &skel, err);
    for (uint32_t i = 0; i < root->count && st == BASALT_OK; i++)
        basalt_iceberg_scan_arrow_field_id(skel.children[i], &ids[i]);
    basalt_arrow_schema_release(&skel);
    return st;
}

static bool wanted(const struct basalt_iceberg_layout *layout, int32_t id)
{
    for (uint32_t c = 0; id >= 0 && c < layout->n_cols; c++)
        if (layout->cols[c].kind == BASALT_ICEBERG_COLUMN_DATA && layout->cols[c].field->id == id)
            return true;
    return false;
}

basalt_status basalt_iceberg_avro_source_open(const struct basalt_iceberg_scan *scan,
                                              const struct basalt_iceberg_data_file *file,
                                              const struct basalt_iceberg_layout *layout,
                                              int64_t batch_size,
                                              struct basalt_iceberg_avro_source **out,
                                              struct basalt_error *err)
{
    *out = NULL;
    struct basalt_iceberg_avro_source *a = basalt_calloc(1, sizeof *a);
    if (a == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    a->batch_size = batch_size;
    a->io = &scan->io;
    basalt_status st = basalt_iceberg_io_open(a->io, file->file_path, &a->in, err);
    const uint8_t *data = st == BASALT_OK ? basalt_input_view(a->in) : NULL;
    if (st == BASALT_OK && data == NULL && a->in->size > 0)
        st = basalt_error_set(err, BASALT_UNSUPPORTED, "Avro data files are read from mapped files only");
    if (st == BASALT_OK)
        st = basalt_avro_reader_new(data ? data : (const uint8_t *)"", (size_t)a->in->size, NULL,
                                    &a->reader, err);
    const struct basalt_avro_node *root = NULL;
    if (st == BASALT_OK) {
        root = basalt_avro_schema_root(basalt_avro_reader_schema(a->reader));
        if (root->type != BASALT_AVRO_RECORD)
            st = basalt_error_set(err, BASALT_CORRUPT, "the file's schema is a %s, not a record",
                                  basalt_avro_type_name(root->type));
    }
    int32_t *ids = NULL;
    const char **names = NULL;
    if (st == BASALT_OK) {
        ids = basalt_calloc(root->count + 1, sizeof *ids);
        names = basalt_calloc(root->count + 1, sizeof *names);
        if (ids == NULL || names == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    bool has_ids = st == BASALT_OK && node_has_ids(root, 0);
    if (st == BASALT_OK)
        st = top_ids(scan, root, has_ids, ids, err);
    size_t n = 0;
    for (uint32_t i = 0; st == BASALT_OK && i < root->count; i++)
        if (wanted(layout, ids[i]))
            names[n++] = root->fields[i].name;
    /* no field read: records still counted (and skipped) */
    if (st == BASALT_OK)
        st = basalt_avro_arrow_new(basalt_avro_reader_schema(a->reader), NULL, names, n, &a->conv, err);
    struct ArrowArray empty;
    empty.release = NULL;
    if (st == BASALT_OK)
        st = basalt_avro_arrow_finish(a->conv, &a->schema, &empty, err);
    basalt_arrow_array_release(&empty);
    if (st == BASALT_OK && has_ids) {
        /* the selected fields are the schema's children, in the file's order */
        int64_t k = 0;
        for (uint32_t i = 0; i < root->count && st == BASALT_OK; i++) {
            if (!wanted(layout, ids[i]))
                continue;
            st = set_id(a->schema.children[k], ids[i], err);
            if (st == BASALT_OK)
                st = annotate(root->fields[i].type, a->schema.children[k], 0, err);
            k++;
        }
    } else if (st == BASALT_OK) {
        st = basalt_iceberg_name_mapping_apply(scan->name_mapping, scan->schema, &a->schema, err);
    }
    basalt_free(ids);
    basalt_free(names);
    if (st != BASALT_OK) {
        basalt_iceberg_avro_source_close(a);
        return st;
    }
    *out = a;
    return BASALT_OK;
}

const struct ArrowSchema *basalt_iceberg_avro_source_schema(const struct basalt_iceberg_avro_source *a)
{
    return &a->schema;
}

basalt_status basalt_iceberg_avro_source_next(struct basalt_iceberg_avro_source *a,
                                              struct ArrowArray *out, struct basalt_error *err)
{
    out->release = NULL;
    int64_t got = 0;
    basalt_status st = basalt_avro_reader_read_arrow(a->reader, a->conv, a->batch_size, &got, err);
    if (st != BASALT_OK || got == 0)
        return st;
    return basalt_avro_arrow_finish(a->conv, NULL, out, err);
}

void basalt_iceberg_avro_source_close(struct basalt_iceberg_avro_source *a)
{
    if (a == NULL)
        return;
    basalt_arrow_schema_release(&a->schema);
    basalt_avro_arrow_free(a->conv);
    basalt_avro_reader_free(a->reader);
    basalt_iceberg_io_count(a->io, a->in);
    basalt_input_close(a->in);
    basalt_free(a);
}
