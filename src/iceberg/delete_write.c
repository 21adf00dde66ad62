/* Position-delete files for merge-on-read deletes in v2 tables: one file per
 * data file (file-scoped, as the Java writers do by default since
 * write.delete.granularity became "file"), rows (file_path, pos) in
 * position order, in the data file's partition so that scan planning pairs
 * them by partition as the spec requires. Also the bookkeeping of every
 * delete file an attempt writes. */
#include <stdio.h>
#include <string.h>

#include "basalt/arrow.h"
#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_write.h"
#include "commit_internal.h"
#include "delete_write_internal.h"

/* The reserved field ids and names of position-delete files (spec:
 * "Position Delete Files"). */
static const char POSITION_DELETE_SCHEMA[] =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":2147483546,\"name\":\"file_path\",\"required\":true,\"type\":\"string\"},"
    "{\"id\":2147483545,\"name\":\"pos\",\"required\":true,\"type\":\"long\"}]}";

void basalt_iceberg_delete_files_init(struct basalt_iceberg_delete_files *d)
{
    memset(d, 0, sizeof *d);
    basalt_arena_init(&d->arena, 0);
}

basalt_status basalt_iceberg_delete_files_add(struct basalt_iceberg_delete_files *d,
                                              const struct basalt_iceberg_data_file *f,
                                              int32_t spec_id, struct basalt_error *err)
{
    if (d->n == d->cap) {
        uint32_t cap = d->cap ? d->cap * 2 : 16;
        struct basalt_iceberg_data_file *files = basalt_realloc(d->files, cap * sizeof *files);
        if (files)
            d->files = files;
        int32_t *specs = files ? basalt_realloc(d->spec_ids, cap * sizeof *specs) : NULL;
        if (!specs)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        d->spec_ids = specs;
        d->cap = cap;
    }
    d->files[d->n] = *f;
    d->spec_ids[d->n++] = spec_id;
    return BASALT_OK;
}

static basalt_status keep_writer(struct basalt_iceberg_delete_files *d,
                                 struct basalt_iceberg_data_writer *w, struct basalt_error *err)
{
    if (d->n_writers == d->cap_writers) {
        uint32_t cap = d->cap_writers ? d->cap_writers * 2 : 16;
        struct basalt_iceberg_data_writer **ws = basalt_realloc(d->writers, cap * sizeof *ws);
        if (!ws) {
            basalt_iceberg_data_writer_abort(w, NULL);
            basalt_iceberg_data_writer_free(w);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        d->writers = ws;
        d->cap_writers = cap;
    }
    d->writers[d->n_writers++] = w;
    return BASALT_OK;
}

void basalt_iceberg_delete_files_abort(const struct basalt_iceberg_table *t,
                                       struct basalt_iceberg_delete_files *d)
{
    for (uint32_t i = 0; i < d->n_writers; i++)
        basalt_iceberg_data_writer_abort(d->writers[i], NULL);
    if (d->puffins.n)
        basalt_iceberg_io_delete(t->io, (const char *const *)d->puffins.items, d->puffins.n, NULL);
}

void basalt_iceberg_delete_files_reset(struct basalt_iceberg_delete_files *d)
{
    basalt_iceberg_eq_groups_free(d->eq);
    for (uint32_t i = 0; i < d->n_writers; i++)
        basalt_iceberg_data_writer_free(d->writers[i]);
    basalt_free(d->writers);
    basalt_free(d->files);
    basalt_free(d->spec_ids);
    basalt_string_list_reset(&d->puffins);
    basalt_arena_reset(&d->arena);
    memset(d, 0, sizeof *d);
    basalt_arena_init(&d->arena, 0);
}

void basalt_iceberg_delete_writer_options(const struct basalt_iceberg_table *t, const char *tag,
                                          char data_location[4096], char prefix[96],
                                          struct basalt_iceberg_data_writer_options *o)
{
    const struct basalt_iceberg_metadata *m = t->metadata;
    const char *path = basalt_iceberg_metadata_property(m, "write.data.path");
    snprintf(data_location, 4096, "%s%s", path ? path : m->location, path ? "" : "/data");
    char uuid[37];
    basalt_iceberg_uuid4(uuid);
    snprintf(prefix, 96, "00000-0-%s-%s", uuid, tag);
    basalt_iceberg_data_writer_options_init(o);
    o->properties = m->properties;
    o->n_properties = m->n_properties;
    o->data_location = data_location;
    o->file_prefix = prefix;
    o->io = t->io;
}

basalt_status basalt_iceberg_delete_files_writer(const struct basalt_iceberg_table *t,
                                                 const char *tag,
                                                 const struct basalt_iceberg_schema *schema,
                                                 const struct basalt_iceberg_kv *props,
                                                 uint32_t n_props,
                                                 struct basalt_iceberg_delete_files *d,
                                                 struct basalt_iceberg_data_writer **out,
                                                 struct basalt_error *err)
{
    /* The options' strings live in d's arena: the writer keeps pointers. */
    char *location = basalt_arena_alloc(&d->arena, 4096, 1);
    char *prefix = basalt_arena_alloc(&d->arena, 96, 1);
    if (!location || !prefix)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_iceberg_data_writer_options o;
    basalt_iceberg_delete_writer_options(t, tag, location, prefix, &o);
    o.schema = schema;
    if (props) {
        o.properties = props;
        o.n_properties = n_props;
    }
    struct basalt_iceberg_data_writer *w = NULL;
    basalt_status st = basalt_iceberg_data_writer_new(&o, &w, err);
    if (st == BASALT_OK)
        st = keep_writer(d, w, err);
    *out = st == BASALT_OK ? w : NULL;
    return st;
}

/* The table's properties plus full metrics for both columns: readers find
 * the referenced data file from the file_path bounds. */
static basalt_status position_properties(const struct basalt_iceberg_metadata *m,
                                         struct basalt_arena *arena,
                                         struct basalt_iceberg_kv **out, uint32_t *n)
{
    struct basalt_iceberg_kv *kv =
        basalt_arena_alloc(arena, (m->n_properties + 2) * sizeof *kv, 8);
    if (!kv)
        return BASALT_NOMEM;
    uint32_t k = 0;
    for (uint32_t i = 0; i < m->n_properties; i++)
        if (strncmp(m->properties[i].key, "write.metadata.metrics.", 23) != 0)
            kv[k++] = m->properties[i];
    kv[k].key = "write.metadata.metrics.column.file_path";
    kv[k++].value = "full";
    kv[k].key = "write.metadata.metrics.column.pos";
    kv[k++].value = "full";
    *out = kv;
    *n = k;
    return BASALT_OK;
}

/* A (file_path, pos) batch of positions[from, to) of `path`. */
static basalt_status position_batch(const char *path, const uint64_t *positions, size_t n,
                                    struct ArrowArray *out, struct basalt_error *err)
{
    size_t len = strlen(path);
    basalt_status st = basalt_arrow_array_init(out, 1, 2, err);
    if (st != BASALT_OK)
        return st; /* out has no children to look at */
    struct ArrowArray *paths = out->children[0], *pos = out->children[1];
    st = basalt_arrow_array_init(paths, 3, 0, err);
    if (st == BASALT_OK)
        st = basalt_arrow_array_init(pos, 2, 0, err);
    int32_t *offsets = NULL;
    char *chars = NULL;
    int64_t *values = NULL;
    if (st == BASALT_OK && (uint64_t)len * n > INT32_MAX)
        st = basalt_error_set(err, BASALT_LIMIT, "too many positions for one batch");
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(paths, 1, (n + 1) * sizeof *offsets,
                                                (void **)&offsets, err);
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(paths, 2, len * n, (void **)&chars, err);
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(pos, 1, n * sizeof *values, (void **)&values, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(out);
        return st;
    }
    for (size_t i = 0; i < n; i++) {
        offsets[i] = (int32_t)(i * len);
        memcpy(chars + i * len, path, len);
        values[i] = (int64_t)positions[i];
    }
    offsets[n] = (int32_t)(n * len);
    out->length = paths->length = pos->length = (int64_t)n;
    return BASALT_OK;
}

/* Rows per batch given to the writer: bounded so a batch's paths stay far
 * below the 2 GiB of 32-bit string offsets. */
#define POSITIONS_PER_BATCH 65536

static basalt_status write_one(const struct basalt_iceberg_table *t,
                               const struct basalt_iceberg_schema *schema,
                               const struct basalt_iceberg_kv *props, uint32_t n_props,
                               const struct basalt_iceberg_file_deletes *item,
                               struct basalt_iceberg_delete_files *d, struct basalt_error *err)
{
    struct basalt_iceberg_data_writer *w = NULL;
    basalt_status st =
        basalt_iceberg_delete_files_writer(t, "deletes", schema, props, n_props, d, &w, err);
    if (st != BASALT_OK)
        return st;
    uint64_t total = basalt_iceberg_posset_cardinality(item->positions);
    uint64_t *positions = basalt_malloc((size_t)(total ? total : 1) * sizeof *positions);
    if (!positions)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_iceberg_posset_to_array(item->positions, positions, total);
    for (uint64_t at = 0; st == BASALT_OK && at < total; at += POSITIONS_PER_BATCH) {
        size_t n = (size_t)(total - at < POSITIONS_PER_BATCH ? total - at : POSITIONS_PER_BATCH);
        struct ArrowArray batch;
        st = position_batch(item->file->file_path, positions + at, n, &batch, err);
        if (st == BASALT_OK) {
            st = basalt_iceberg_data_writer_write(w, &batch, err);
            basalt_arrow_array_release(&batch);
        }
    }
    basalt_free(positions);
    const struct basalt_iceberg_data_file *files = NULL;
    uint32_t n_files = 0;
    if (st == BASALT_OK)
        st = basalt_iceberg_data_writer_finish(w, &files, &n_files, err);
    for (uint32_t i = 0; st == BASALT_OK && i < n_files; i++) {
        struct basalt_iceberg_data_file f = files[i];
        f.content = BASALT_ICEBERG_CONTENT_POSITION_DELETES;
        f.partition = item->file->partition;
        f.n_partition = item->file->n_partition;
        f.referenced_data_file = item->file->file_path;
        f.has_sort_order_id = false;
        st = basalt_iceberg_delete_files_add(d, &f, item->spec_id, err);
    }
    return st;
}

basalt_status basalt_iceberg_write_position_deletes(const struct basalt_iceberg_table *t,
                                                    const struct basalt_iceberg_file_deletes *items,
                                                    uint32_t n,
                                                    struct basalt_iceberg_delete_files *out,
                                                    struct basalt_error *err)
{
    struct basalt_iceberg_schema *schema = basalt_arena_alloc(&out->arena, sizeof *schema, 8);
    if (!schema)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = basalt_iceberg_schema_parse_json(
        POSITION_DELETE_SCHEMA, sizeof POSITION_DELETE_SCHEMA - 1, &out->arena, schema, err);
    struct basalt_iceberg_kv *props = NULL;
    uint32_t n_props = 0;
    if (st == BASALT_OK && position_properties(t->metadata, &out->arena, &props, &n_props) != BASALT_OK)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t i = 0; st == BASALT_OK && i < n; i++)
        if (basalt_iceberg_posset_cardinality(items[i].positions) > 0)
            st = write_one(t, schema, props, n_props, &items[i], out, err);
    return st;
}
