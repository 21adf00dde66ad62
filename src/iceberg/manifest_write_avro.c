/* Avro binary encoding of manifest records, and the container file they go
 * into, written through a basalt_output whose bytes are counted (the
 * manifest list records each manifest's length). */
#include <string.h>

#include "manifest_write_internal.h"

basalt_status basalt_iceberg_mw_put_long(struct basalt_buffer *b, int64_t v,
                                         struct basalt_error *err)
{
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); /* zig-zag */
    uint8_t tmp[10];
    size_t n = 0;
    while (z >= 0x80) {
        tmp[n++] = (uint8_t)(z | 0x80);
        z >>= 7;
    }
    tmp[n++] = (uint8_t)z;
    return basalt_buffer_append(b, tmp, n, err);
}

basalt_status basalt_iceberg_mw_put_bytes(struct basalt_buffer *b, const void *data, size_t len,
                                          struct basalt_error *err)
{
    basalt_status st = basalt_iceberg_mw_put_long(b, (int64_t)len, err);
    return st == BASALT_OK && len ? basalt_buffer_append(b, data, len, err) : st;
}

basalt_status basalt_iceberg_mw_begin(struct basalt_buffer *b,
                                      const struct basalt_iceberg_mw_field *f, int32_t version,
                                      bool present, bool *write, struct basalt_error *err)
{
    *write = present;
    if (basalt_iceberg_mw_presence(f, version) == BASALT_ICEBERG_MW_OPTIONAL)
        return basalt_iceberg_mw_put_long(b, present ? 1 : 0, err);
    if (!present)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s (field %d) is required in format v%d",
                                f->name, (int)f->id, (int)version);
    return BASALT_OK;
}

basalt_status basalt_iceberg_mw_put_opt_long(struct basalt_buffer *b,
                                             const struct basalt_iceberg_mw_field *f,
                                             int32_t version, bool present, int64_t v,
                                             struct basalt_error *err)
{
    bool write;
    basalt_status st = basalt_iceberg_mw_begin(b, f, version, present, &write, err);
    return st == BASALT_OK && write ? basalt_iceberg_mw_put_long(b, v, err) : st;
}

/* ---------------------------------------------------------- container */

static basalt_status sink(void *ctx, const void *data, size_t len, struct basalt_error *err)
{
    struct basalt_iceberg_mw_file *f = ctx;
    basalt_status st = basalt_output_write(f->out, data, len, err);
    if (st == BASALT_OK)
        f->bytes += len;
    return st;
}

void basalt_iceberg_mw_file_abort(struct basalt_iceberg_mw_file *f)
{
    basalt_avro_writer_free(f->writer);
    basalt_avro_schema_free(f->schema);
    basalt_buffer_reset(&f->record);
    f->writer = NULL;
    f->schema = NULL;
}

basalt_status basalt_iceberg_mw_file_open(struct basalt_iceberg_mw_file *f,
                                          struct basalt_output *out,
                                          const struct basalt_buffer *schema_json,
                                          const struct basalt_avro_meta_item *meta, size_t n_meta,
                                          struct basalt_error *err)
{
    memset(f, 0, sizeof *f);
    f->out = out;
    basalt_buffer_init(&f->record);
    basalt_status st = basalt_avro_schema_parse((const char *)schema_json->data, schema_json->size,
                                                NULL, &f->schema, err);
    if (st == BASALT_CORRUPT) /* names the spec made unusable, e.g. two partition fields alike */
        st = basalt_error_context(err, BASALT_INVALID_ARG, "the manifest's Avro schema");
    if (st == BASALT_OK) {
        struct basalt_avro_writer_options o;
        basalt_avro_writer_options_init(&o);
        o.codec = BASALT_AVRO_CODEC_DEFLATE; /* what the Java writer uses for manifests */
        o.meta = meta;
        o.meta_count = n_meta;
        st = basalt_avro_writer_new(f->schema, &o, sink, f, &f->writer, err);
    }
    if (st != BASALT_OK)
        basalt_iceberg_mw_file_abort(f);
    return st;
}

basalt_status basalt_iceberg_mw_file_append(struct basalt_iceberg_mw_file *f,
                                            struct basalt_error *err)
{
    basalt_status st =
        basalt_avro_writer_append_encoded(f->writer, f->record.data, f->record.size, err);
    f->record.size = 0;
    return st;
}

basalt_status basalt_iceberg_mw_file_close(struct basalt_iceberg_mw_file *f,
                                           struct basalt_error *err)
{
    basalt_status st = basalt_avro_writer_close(f->writer, err);
    f->writer = NULL;
    basalt_iceberg_mw_file_abort(f);
    return st;
}
