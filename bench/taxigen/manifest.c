/* manifest.json: what was generated, for the readers that check a table
 * against its parameters. It holds no times or thread counts, so it is as
 * reproducible as the files it lists. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "taxigen.h"

#define GENERATOR_VERSION 1

basalt_status basalt_taxigen_manifest(const char *dir, int64_t scale, int64_t row_group_rows,
                                      int zstd_level, const struct basalt_taxigen_file *files,
                                      int num_files, struct basalt_error *err)
{
    char path[4096], tmp[4100];
    if ((size_t)snprintf(path, sizeof path, "%s/manifest.json", dir) >= sizeof path)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: output path too long", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL)
        return basalt_error_set(err, BASALT_IO, "%s: %s", tmp, strerror(errno));
    int64_t rows = 0, bytes = 0;
    for (int i = 0; i < num_files; i++) {
        rows += files[i].rows;
        bytes += files[i].bytes;
    }
    fprintf(f, "{\n  \"generator\": \"basalt-taxigen\",\n  \"generator_version\": %d,\n",
            GENERATOR_VERSION);
    fprintf(f, "  \"scale\": %lld,\n  \"row_group_size\": %lld,\n", (long long)scale,
            (long long)row_group_rows);
    if (zstd_level == BASALT_CODEC_LEVEL_DEFAULT)
        fprintf(f, "  \"zstd_level\": \"default\",\n");
    else
        fprintf(f, "  \"zstd_level\": %d,\n", zstd_level);
    fprintf(f, "  \"months\": [\n");
    for (int i = 0; i < num_files; i++)
        fprintf(f,
                "    {\"month\": \"%s\", \"file\": \"yellow_tripdata_%s.parquet\", \"rows\": %lld, "
                "\"flex_rows\": %lld, \"bytes\": %lld}%s\n",
                files[i].month, files[i].month, (long long)files[i].rows,
                (long long)files[i].flex_rows, (long long)files[i].bytes,
                i + 1 < num_files ? "," : "");
    /* total_rows is what this run wrote: the scale when every month was
     * generated, less with --months. */
    fprintf(f, "  ],\n  \"total_rows\": %lld,\n  \"total_bytes\": %lld,\n", (long long)rows,
            (long long)bytes);
    fprintf(f, "  \"bytes_per_row\": %.3f\n}\n", rows > 0 ? (double)bytes / (double)rows : 0.0);
    bool failed = ferror(f) != 0;
    if (fclose(f) != 0 || failed) {
        remove(tmp);
        return basalt_error_set(err, BASALT_IO, "%s: write failed", tmp);
    }
    if (rename(tmp, path) != 0) {
        remove(tmp);
        return basalt_error_set(err, BASALT_IO, "%s: %s", path, strerror(errno));
    }
    return BASALT_OK;
}
