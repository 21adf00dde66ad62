/* Deletion vectors for merge-on-read deletes in v3 tables: one Puffin file
 * per change holding a deletion-vector-v1 blob for each data file touched
 * (Puffin spec: magic "PFA1", the blobs, then the footer: magic, JSON
 * payload, payload size as a 4-byte little-endian int, 4 flag bytes,
 * magic). Each blob is tracked in a delete manifest by the file's path,
 * its offset and length, and the data file it applies to. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_write.h"
#include "basalt/io.h"
#include "commit_internal.h"
#include "delete_write_internal.h"

static const uint8_t MAGIC[4] = {'P', 'F', 'A', '1'};

/* The blob's footer entry: "snapshot-id" and "sequence-number" are -1, as
 * the spec asks of DVs (inherited from the manifest entry). */
static json_t *blob_json(const struct basalt_iceberg_file_deletes *item, int64_t offset,
                         size_t length)
{
    char cardinality[24];
    snprintf(cardinality, sizeof cardinality, "%llu",
             (unsigned long long)basalt_iceberg_posset_cardinality(item->positions));
    return json_pack("{s:s,s:[i],s:i,s:i,s:I,s:I,s:{s:s,s:s}}", "type", "deletion-vector-v1",
                     "fields", 2147483645, "snapshot-id", -1, "sequence-number", -1, "offset",
                     (json_int_t)offset, "length", (json_int_t)length, "properties",
                     "referenced-data-file", item->file->file_path, "cardinality", cardinality);
}

static basalt_status put(struct basalt_output *out, const void *data, size_t len, int64_t *at,
                         struct basalt_error *err)
{
    *at += (int64_t)len;
    return basalt_output_write(out, data, len, err);
}

basalt_status basalt_iceberg_write_dvs(const struct basalt_iceberg_table *t,
                                       const struct basalt_iceberg_file_deletes *items, uint32_t n,
                                       struct basalt_iceberg_delete_files *d,
                                       struct basalt_error *err)
{
    if (n == 0)
        return BASALT_OK;
    char data_location[4096], prefix[96];
    struct basalt_iceberg_data_writer_options o;
    basalt_iceberg_delete_writer_options(t, "dv", data_location, prefix, &o);
    size_t cap = strlen(data_location) + strlen(prefix) + 16;
    char *path = basalt_arena_alloc(&d->arena, cap, 1);
    json_t *footer = json_pack("{s:[],s:{s:s}}", "blobs", "properties", "created-by",
                               "basalt");
    if (!path || !footer) {
        json_decref(footer);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    snprintf(path, cap, "%s/%s.puffin", data_location, prefix);
    struct basalt_output *out = NULL;
    basalt_status st =
        basalt_iceberg_io_open_output(t->io, path, BASALT_IO_CREATE_EXCLUSIVE, &out, err);
    if (st == BASALT_OK)
        st = basalt_string_list_add(&d->puffins, path, strlen(path), err);
    int64_t at = 0;
    if (st == BASALT_OK)
        st = put(out, MAGIC, 4, &at, err);
    struct basalt_iceberg_data_file *entries =
        basalt_arena_alloc(&d->arena, n * sizeof *entries, 8);
    if (st == BASALT_OK && !entries)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t i = 0; st == BASALT_OK && i < n; i++) {
        uint8_t *blob = NULL;
        size_t len = 0;
        int64_t offset = at;
        st = basalt_iceberg_dv_serialize(items[i].positions, &blob, &len, err);
        if (st == BASALT_OK)
            st = put(out, blob, len, &at, err);
        basalt_free(blob);
        json_t *b = st == BASALT_OK ? blob_json(&items[i], offset, len) : NULL;
        if (st == BASALT_OK && (!b || json_array_append_new(json_object_get(footer, "blobs"), b)))
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        if (st != BASALT_OK)
            break;
        struct basalt_iceberg_data_file *f = &entries[i];
        memset(f, 0, sizeof *f);
        f->content = BASALT_ICEBERG_CONTENT_POSITION_DELETES;
        f->file_path = path;
        f->file_format = BASALT_ICEBERG_FORMAT_PUFFIN;
        f->partition = items[i].file->partition;
        f->n_partition = items[i].file->n_partition;
        f->record_count = (int64_t)basalt_iceberg_posset_cardinality(items[i].positions);
        f->referenced_data_file = items[i].file->file_path;
        f->has_content_offset = true;
        f->content_offset = offset;
        f->content_size_in_bytes = (int64_t)len;
    }
    char *payload = st == BASALT_OK ? json_dumps(footer, JSON_COMPACT) : NULL;
    json_decref(footer);
    if (st == BASALT_OK && !payload)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK) {
        size_t plen = strlen(payload);
        uint8_t tail[12] = {(uint8_t)plen, (uint8_t)(plen >> 8), (uint8_t)(plen >> 16),
                            (uint8_t)(plen >> 24), 0, 0, 0, 0, 'P', 'F', 'A', '1'};
        st = put(out, MAGIC, 4, &at, err);
        if (st == BASALT_OK)
            st = put(out, payload, plen, &at, err);
        if (st == BASALT_OK)
            st = put(out, tail, sizeof tail, &at, err);
    }
    free(payload);
    if (st == BASALT_OK)
        st = basalt_output_commit(out, err);
    basalt_output_close(out);
    /* Every DV of the file carries the file's size. */
    for (uint32_t i = 0; st == BASALT_OK && i < n; i++) {
        entries[i].file_size_in_bytes = at;
        st = basalt_iceberg_delete_files_add(d, &entries[i], items[i].spec_id, err);
    }
    return st;
}
