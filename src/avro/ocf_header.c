/* Container file header: magic, metadata map, sync marker; the reader object. */
#include "avro_ocf.h"

static const uint8_t avro_magic[4] = {'O', 'b', 'j', 1};

void basalt_avro_reader_options_init(struct basalt_avro_reader_options *options)
{
    memset(options, 0, sizeof *options);
}

static basalt_status header_bad(struct basalt_error *err, size_t offset, const char *what)
{
    return basalt_error_set(err, BASALT_CORRUPT, "header: %s at offset %zu", what, offset);
}

static basalt_status read_meta(struct basalt_avro_reader *r, const uint8_t **pp,
                               const uint8_t *end, struct basalt_error *err)
{
    size_t cap = 0;
    for (;;) {
        int64_t count;
        if (!avro_read_long(pp, end, &count))
            return header_bad(err, (size_t)(*pp - r->data), "truncated metadata");
        if (count == 0)
            return BASALT_OK;
        if (count < 0) {
            int64_t size;
            if (count == INT64_MIN || !avro_read_long(pp, end, &size) || size < 0)
                return header_bad(err, (size_t)(*pp - r->data), "bad metadata block");
            count = -count;
        }
        /* Every entry takes at least two bytes. */
        if ((uint64_t)count > (uint64_t)(end - *pp) / 2)
            return header_bad(err, (size_t)(*pp - r->data), "metadata count exceeds the header");
        if (r->meta_count + (size_t)count > cap) {
            size_t ncap = cap ? cap * 2 : 8;
            while (ncap < r->meta_count + (size_t)count)
                ncap *= 2;
            struct avro_meta *m = basalt_realloc(r->meta, ncap * sizeof *m);
            if (!m)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory reading a header");
            r->meta = m;
            cap = ncap;
        }
        for (int64_t i = 0; i < count; i++) {
            struct avro_meta *m = &r->meta[r->meta_count];
            int64_t klen, vlen;
            if (!avro_read_long(pp, end, &klen) || klen < 0 ||
                (uint64_t)klen > (uint64_t)(end - *pp))
                return header_bad(err, (size_t)(*pp - r->data), "bad metadata key");
            m->key = *pp;
            m->key_size = (size_t)klen;
            *pp += klen;
            if (!avro_read_long(pp, end, &vlen) || vlen < 0 ||
                (uint64_t)vlen > (uint64_t)(end - *pp))
                return header_bad(err, (size_t)(*pp - r->data), "bad metadata value");
            m->value = *pp;
            m->value_size = (size_t)vlen;
            *pp += vlen;
            r->meta_count++;
        }
    }
}

const uint8_t *basalt_avro_reader_meta(const struct basalt_avro_reader *reader, const char *key,
                                       size_t *size)
{
    size_t klen = strlen(key);
    for (size_t i = 0; i < reader->meta_count; i++) {
        const struct avro_meta *m = &reader->meta[i];
        if (m->key_size == klen && memcmp(m->key, key, klen) == 0) {
            if (size)
                *size = m->value_size;
            return m->value;
        }
    }
    return NULL;
}

size_t basalt_avro_reader_meta_count(const struct basalt_avro_reader *reader)
{
    return reader->meta_count;
}

void basalt_avro_reader_meta_at(const struct basalt_avro_reader *reader, size_t i,
                                const char **key, size_t *key_size, const uint8_t **value,
                                size_t *value_size)
{
    const struct avro_meta *m = &reader->meta[i];
    *key = (const char *)m->key;
    *key_size = m->key_size;
    *value = m->value;
    *value_size = m->value_size;
}

const uint8_t *basalt_avro_reader_sync(const struct basalt_avro_reader *reader)
{
    return reader->sync;
}

const struct basalt_avro_schema *basalt_avro_reader_schema(const struct basalt_avro_reader *reader)
{
    return reader->schema;
}

enum basalt_avro_codec basalt_avro_reader_codec(const struct basalt_avro_reader *reader)
{
    return reader->codec;
}

static basalt_status reader_open(struct basalt_avro_reader *r,
                                 const struct basalt_avro_reader_options *options,
                                 struct basalt_error *err)
{
    if (r->len < 4 || memcmp(r->data, avro_magic, 4) != 0)
        return basalt_error_set(err, BASALT_CORRUPT, "not an Avro container file (bad magic)");
    const uint8_t *p = r->data + 4;
    size_t header_cap = r->lim.max_header_bytes < r->len ? (size_t)r->lim.max_header_bytes : r->len;
    basalt_status st = read_meta(r, &p, r->data + header_cap, err);
    if (st == BASALT_CORRUPT && header_cap < r->len)
        return basalt_error_set(err, BASALT_LIMIT, "header larger than %llu bytes",
                                (unsigned long long)r->lim.max_header_bytes);
    if (st != BASALT_OK)
        return st;
    if ((size_t)(r->data + r->len - p) < AVRO_SYNC_SIZE)
        return header_bad(err, (size_t)(p - r->data), "truncated before the sync marker");
    memcpy(r->sync, p, AVRO_SYNC_SIZE);
    r->pos = (size_t)(p - r->data) + AVRO_SYNC_SIZE;
    size_t n;
    const uint8_t *codec = basalt_avro_reader_meta(r, "avro.codec", &n);
    r->codec = BASALT_AVRO_CODEC_NULL;
    if (codec && basalt_avro_codec_parse((const char *)codec, n, &r->codec, err) != BASALT_OK)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "header: unsupported codec '%.*s'",
                                (int)(n > 64 ? 64 : n), (const char *)codec);
    if (r->codec != BASALT_AVRO_CODEC_NULL) {
        st = basalt_codec_new(basalt_avro_codec_kind(r->codec), BASALT_CODEC_LEVEL_DEFAULT, &r->dec,
                              err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st == BASALT_INVALID_ARG ? BASALT_UNSUPPORTED : st,
                                        "header: codec %s", basalt_avro_codec_name(r->codec));
    }
    const uint8_t *schema = basalt_avro_reader_meta(r, "avro.schema", &n);
    if (!schema)
        return basalt_error_set(err, BASALT_CORRUPT, "header: no avro.schema");
    struct basalt_avro_schema_options so;
    basalt_avro_schema_options_init(&so);
    so.lenient_names = !(options && options->strict_names);
    if (options && options->cache)
        st = basalt_avro_plan_cache_schema(options->cache, (const char *)schema, n, &so, &r->schema,
                                           err);
    else {
        st = basalt_avro_schema_parse((const char *)schema, n, &so, &r->own_schema, err);
        r->schema = r->own_schema;
    }
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "header: avro.schema");
    return BASALT_OK;
}

basalt_status basalt_avro_reader_new(const uint8_t *data, size_t len,
                                     const struct basalt_avro_reader_options *options,
                                     struct basalt_avro_reader **out, struct basalt_error *err)
{
    if (!out || (!data && len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "reader_new: NULL argument");
    *out = NULL;
    struct basalt_avro_reader *r = basalt_calloc(1, sizeof *r);
    if (!r)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory opening a container file");
    r->data = data ? data : avro_magic;
    r->len = len;
    basalt_avro_limits_resolve(options ? &options->limits : NULL, &r->lim);
    basalt_buffer_init(&r->scratch);
    basalt_status st = reader_open(r, options, err);
    if (st != BASALT_OK) {
        basalt_avro_reader_free(r);
        return st;
    }
    *out = r;
    return BASALT_OK;
}

void basalt_avro_reader_free(struct basalt_avro_reader *reader)
{
    if (!reader)
        return;
    basalt_avro_schema_free(reader->own_schema);
    basalt_codec_free(reader->dec);
    basalt_free(reader->meta);
    basalt_buffer_reset(&reader->scratch);
    for (size_t i = 0; i < reader->kept_count; i++)
        basalt_free(reader->kept[i]);
    basalt_free(reader->kept);
    basalt_free(reader);
}
