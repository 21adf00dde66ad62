/* Writing Object Container Files: header, blocks of records, sync markers. */
#include <sys/random.h>
#include <time.h>

#include "basalt/hash.h"

#include "avro_ocf.h"

struct basalt_avro_writer {
    const struct basalt_avro_schema *schema;
    basalt_avro_write_fn write;
    void *ctx;
    enum basalt_avro_codec codec;
    struct basalt_codec *enc;
    size_t block_bytes;
    uint8_t sync[AVRO_SYNC_SIZE];
    struct basalt_buffer block; /* records of the open block, encoded */
    int64_t block_count;
    struct basalt_buffer out;   /* the framed block being written */
};

void basalt_avro_writer_options_init(struct basalt_avro_writer_options *options)
{
    memset(options, 0, sizeof *options);
    options->block_bytes = 64000;
}

basalt_status basalt_avro_write_to_buffer(void *ctx, const void *data, size_t len,
                                          struct basalt_error *err)
{
    return basalt_buffer_append(ctx, data, len, err);
}

static void random_sync(uint8_t sync[AVRO_SYNC_SIZE])
{
    if (getrandom(sync, AVRO_SYNC_SIZE, 0) == AVRO_SYNC_SIZE)
        return;
    /* No entropy source: the clock and an address, mixed (splitmix64). */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)(uintptr_t)sync;
    for (int i = 0; i < AVRO_SYNC_SIZE; i += 8) {
        x += 0x9e3779b97f4a7c15ull;
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        memcpy(sync + i, &z, 8);
    }
}

static basalt_status put_meta(struct basalt_buffer *b, const char *key, const void *value,
                              size_t size, struct basalt_error *err)
{
    basalt_status st = basalt_avro_put_bytes(b, key, strlen(key), err);
    if (st == BASALT_OK)
        st = basalt_avro_put_bytes(b, value, size, err);
    return st;
}

static basalt_status write_header(struct basalt_avro_writer *w,
                                  const struct basalt_avro_writer_options *o,
                                  struct basalt_error *err)
{
    struct basalt_buffer schema_json;
    basalt_buffer_init(&schema_json);
    struct basalt_buffer *h = &w->out;
    h->size = 0;
    basalt_status st = basalt_avro_schema_to_json(w->schema, false, &schema_json, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(h, "Obj\x01", 4, err);
    if (st == BASALT_OK)
        st = basalt_avro_put_long(h, (int64_t)(2 + o->meta_count), err);
    if (st == BASALT_OK)
        st = put_meta(h, "avro.schema", schema_json.data, schema_json.size, err);
    if (st == BASALT_OK) {
        const char *name = basalt_avro_codec_name(w->codec);
        st = put_meta(h, "avro.codec", name, strlen(name), err);
    }
    for (size_t i = 0; i < o->meta_count && st == BASALT_OK; i++)
        st = put_meta(h, o->meta[i].key, o->meta[i].value, o->meta[i].size, err);
    if (st == BASALT_OK)
        st = basalt_avro_put_long(h, 0, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(h, w->sync, AVRO_SYNC_SIZE, err);
    basalt_buffer_reset(&schema_json);
    if (st == BASALT_OK)
        st = w->write(w->ctx, h->data, h->size, err);
    return st;
}

basalt_status basalt_avro_writer_new(const struct basalt_avro_schema *schema,
                                     const struct basalt_avro_writer_options *options,
                                     basalt_avro_write_fn write, void *ctx,
                                     struct basalt_avro_writer **out, struct basalt_error *err)
{
    if (!schema || !write || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "writer_new: NULL argument");
    *out = NULL;
    struct basalt_avro_writer_options defaults;
    basalt_avro_writer_options_init(&defaults);
    const struct basalt_avro_writer_options *o = options ? options : &defaults;
    if ((unsigned)o->codec >= BASALT_AVRO_CODEC_COUNT)
        return basalt_error_set(err, BASALT_INVALID_ARG, "writer_new: unknown codec %d",
                                (int)o->codec);
    for (size_t i = 0; i < o->meta_count; i++) {
        if (!o->meta[i].key || (!o->meta[i].value && o->meta[i].size))
            return basalt_error_set(err, BASALT_INVALID_ARG, "writer_new: metadata %zu is NULL", i);
        if (strncmp(o->meta[i].key, "avro.", 5) == 0)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "writer_new: metadata key '%s' is reserved", o->meta[i].key);
    }
    struct basalt_avro_writer *w = basalt_calloc(1, sizeof *w);
    if (!w)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory creating a writer");
    w->schema = schema;
    w->write = write;
    w->ctx = ctx;
    w->codec = o->codec;
    w->block_bytes = o->block_bytes ? o->block_bytes : 64000;
    basalt_buffer_init(&w->block);
    basalt_buffer_init(&w->out);
    if (o->sync)
        memcpy(w->sync, o->sync, AVRO_SYNC_SIZE);
    else
        random_sync(w->sync);
    basalt_status st = BASALT_OK;
    if (w->codec != BASALT_AVRO_CODEC_NULL) {
        st = basalt_codec_new(basalt_avro_codec_kind(w->codec),
                              o->level ? o->level : BASALT_CODEC_LEVEL_DEFAULT, &w->enc, err);
        if (st != BASALT_OK)
            st = basalt_error_context(err, st, "writer: codec %s", basalt_avro_codec_name(w->codec));
    }
    if (st == BASALT_OK)
        st = write_header(w, o, err);
    if (st != BASALT_OK) {
        basalt_avro_writer_free(w);
        return st;
    }
    *out = w;
    return BASALT_OK;
}

basalt_status basalt_avro_writer_flush(struct basalt_avro_writer *w, struct basalt_error *err)
{
    if (!w)
        return basalt_error_set(err, BASALT_INVALID_ARG, "writer_flush: NULL argument");
    if (w->block_count == 0)
        return BASALT_OK;
    struct basalt_buffer *o = &w->out;
    o->size = 0;
    const uint8_t *payload = w->block.data;
    size_t payload_size = w->block.size;
    struct basalt_buffer compressed;
    basalt_buffer_init(&compressed);
    basalt_status st = BASALT_OK;
    if (w->codec != BASALT_AVRO_CODEC_NULL) {
        size_t cap = basalt_codec_max_compressed_size(w->enc, w->block.size) + 4;
        st = basalt_buffer_reserve(&compressed, cap, err);
        size_t n = 0;
        if (st == BASALT_OK)
            st = basalt_codec_compress(w->enc, w->block.data, w->block.size, compressed.data, cap,
                                       &n, err);
        if (st == BASALT_OK && w->codec == BASALT_AVRO_CODEC_SNAPPY) {
            uint32_t crc = basalt_hash_crc32(0, w->block.data, w->block.size);
            uint8_t be[4] = {(uint8_t)(crc >> 24), (uint8_t)(crc >> 16), (uint8_t)(crc >> 8),
                             (uint8_t)crc};
            memcpy(compressed.data + n, be, 4);
            n += 4;
        }
        compressed.size = n;
        payload = compressed.data;
        payload_size = n;
    }
    if (st == BASALT_OK)
        st = basalt_avro_put_long(o, w->block_count, err);
    if (st == BASALT_OK)
        st = basalt_avro_put_long(o, (int64_t)payload_size, err);
    if (st == BASALT_OK)
        st = w->write(w->ctx, o->data, o->size, err);
    if (st == BASALT_OK && payload_size)
        st = w->write(w->ctx, payload, payload_size, err);
    if (st == BASALT_OK)
        st = w->write(w->ctx, w->sync, AVRO_SYNC_SIZE, err);
    basalt_buffer_reset(&compressed);
    if (st == BASALT_OK) {
        w->block.size = 0;
        w->block_count = 0;
    }
    return st;
}

static basalt_status after_append(struct basalt_avro_writer *w, struct basalt_error *err)
{
    w->block_count++;
    return w->block.size >= w->block_bytes ? basalt_avro_writer_flush(w, err) : BASALT_OK;
}

basalt_status basalt_avro_writer_append(struct basalt_avro_writer *writer,
                                        const struct basalt_avro_value *value,
                                        struct basalt_error *err)
{
    if (!writer || !value)
        return basalt_error_set(err, BASALT_INVALID_ARG, "writer_append: NULL argument");
    if (value->node != writer->schema->root)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "writer_append: the value is not of the writer's schema");
    basalt_status st = basalt_avro_value_encode(value, &writer->block, err);
    return st == BASALT_OK ? after_append(writer, err) : st;
}

basalt_status basalt_avro_writer_append_encoded(struct basalt_avro_writer *writer,
                                                const void *datum, size_t len,
                                                struct basalt_error *err)
{
    if (!writer || (!datum && len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "writer_append_encoded: NULL argument");
    basalt_status st = len ? basalt_buffer_append(&writer->block, datum, len, err) : BASALT_OK;
    return st == BASALT_OK ? after_append(writer, err) : st;
}

basalt_status basalt_avro_writer_close(struct basalt_avro_writer *writer, struct basalt_error *err)
{
    if (!writer)
        return basalt_error_set(err, BASALT_INVALID_ARG, "writer_close: NULL argument");
    basalt_status st = basalt_avro_writer_flush(writer, err);
    basalt_avro_writer_free(writer);
    return st;
}

void basalt_avro_writer_free(struct basalt_avro_writer *writer)
{
    if (!writer)
        return;
    basalt_codec_free(writer->enc);
    basalt_buffer_reset(&writer->block);
    basalt_buffer_reset(&writer->out);
    basalt_free(writer);
}
