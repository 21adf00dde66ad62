/* Helpers shared by the data writer's tests: temporary table directories,
 * schemas and specs, reading written files back with the Parquet reader,
 * and looking metrics up by field id. */
#ifndef BASALT_DATA_WRITE_UTIL_H
#define BASALT_DATA_WRITE_UTIL_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_transform.h"
#include "basalt/iceberg_write.h"
#include "basalt/parquet.h"
#include "test.h"

static inline int dwt_remove_entry(const char *path, const struct stat *sb, int flag,
                                   struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* A fresh directory under /tmp (dir: 64 bytes). */
static inline bool dwt_tmpdir(char *dir)
{
    strcpy(dir, "/tmp/basalt_dw_XXXXXX");
    return mkdtemp(dir) != NULL;
}

static inline void dwt_rmrf(const char *dir) { nftw(dir, dwt_remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

static int dwt_count_files_n;
static inline int dwt_count_entry(const char *path, const struct stat *sb, int flag,
                                  struct FTW *ftw)
{
    (void)path;
    (void)sb;
    (void)ftw;
    if (flag == FTW_F)
        dwt_count_files_n++;
    return 0;
}

/* Regular files anywhere under `dir` (temporary names included). */
static inline int dwt_count_files(const char *dir)
{
    dwt_count_files_n = 0;
    nftw(dir, dwt_count_entry, 16, FTW_PHYS);
    return dwt_count_files_n;
}

static inline int64_t dwt_file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (int64_t)sb.st_size : -1;
}

/* A schema from its JSON (abort on failure: the tests' own text). */
static inline void dwt_schema(const char *json, struct basalt_arena *arena,
                              struct basalt_iceberg_schema *out)
{
    struct basalt_error err;
    if (basalt_iceberg_schema_parse_json(json, strlen(json), arena, out, &err) != BASALT_OK) {
        fprintf(stderr, "schema: %s\n", err.message);
        abort();
    }
}

/* A spec field: `transform` as text, e.g. "bucket[16]". */
static inline struct basalt_iceberg_partition_field dwt_pfield(int32_t source, int32_t id,
                                                               const char *name,
                                                               const char *transform)
{
    struct basalt_iceberg_partition_field f;
    memset(&f, 0, sizeof f);
    f.source_id = source;
    f.field_id = id;
    f.name = name;
    if (basalt_iceberg_transform_parse(transform, &f.transform, NULL) != BASALT_OK)
        abort();
    return f;
}

/* Every row of a Parquet file as batches (read_all), and its schema. */
static inline basalt_status dwt_read(const char *path, struct basalt_arrow_batches *out,
                                     struct basalt_error *err)
{
    struct basalt_parquet_reader *r;
    basalt_status st = basalt_parquet_reader_open_file(path, NULL, &r, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_parquet_scan *scan;
    st = basalt_parquet_scan_new(r, NULL, &scan, err);
    if (st == BASALT_OK) {
        basalt_parquet_scan_select_all(scan);
        basalt_arrow_batches_init(out);
        st = basalt_parquet_scan_read_all(scan, out, err);
        basalt_parquet_scan_free(scan);
    }
    basalt_parquet_reader_close(r);
    return st;
}

static inline const struct basalt_iceberg_metric_long *
dwt_long(const struct basalt_iceberg_metric_long *m, uint32_t n, int32_t id)
{
    for (uint32_t i = 0; i < n; i++)
        if (m[i].field_id == id)
            return &m[i];
    return NULL;
}

static inline const struct basalt_iceberg_metric_bytes *
dwt_bytes(const struct basalt_iceberg_metric_bytes *m, uint32_t n, int32_t id)
{
    for (uint32_t i = 0; i < n; i++)
        if (m[i].field_id == id)
            return &m[i];
    return NULL;
}

/* Whether metric arrays are sorted by field id, without repeats. */
static inline bool dwt_sorted_long(const struct basalt_iceberg_metric_long *m, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
        if (m[i - 1].field_id >= m[i].field_id)
            return false;
    return true;
}

static inline bool dwt_sorted_bytes(const struct basalt_iceberg_metric_bytes *m, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
        if (m[i - 1].field_id >= m[i].field_id)
            return false;
    return true;
}

/* Options for a table at `dir` ("<dir>/data", prefix "00000-0-test"). */
static inline void dwt_options(struct basalt_iceberg_data_writer_options *o,
                               const struct basalt_iceberg_schema *schema,
                               const struct basalt_iceberg_partition_spec *spec, char *data_dir,
                               size_t cap, const char *dir)
{
    basalt_iceberg_data_writer_options_init(o);
    snprintf(data_dir, cap, "%s/data", dir);
    o->schema = schema;
    o->spec = spec;
    o->data_location = data_dir;
    o->file_prefix = "00000-0-test";
}

/* The PARQUET:field_id of an Arrow field, or -1. */
static inline int32_t dwt_field_id(const struct ArrowSchema *s)
{
    char value[32];
    size_t len = 0;
    struct basalt_arrow_metadata_reader r;
    struct basalt_arrow_metadata_item item;
    if (!s->metadata || basalt_arrow_metadata_reader_init(&r, s->metadata, NULL) != BASALT_OK)
        return -1;
    while (basalt_arrow_metadata_reader_next(&r, &item)) {
        if (item.key_len == 16 && memcmp(item.key, "PARQUET:field_id", 16) == 0 &&
            item.value_len < sizeof value) {
            len = item.value_len;
            memcpy(value, item.value, len);
            value[len] = '\0';
            return (int32_t)atoi(value);
        }
    }
    return -1;
}

#endif
