/* Puffin files: "PFA1", blobs, then the footer: "PFA1", a JSON payload, its
 * 4-byte little-endian size, 4 flag bytes and "PFA1" again. */
#include <jansson.h>

#include "basalt/codec.h"
#include "manifest_internal.h"

static const uint8_t puffin_magic[4] = {'P', 'F', 'A', '1'};
#define FOOTER_TAIL 12u              /* payload size, flags, magic */
#define MAX_BLOB_OUTPUT (1u << 30)   /* decompressed blob or footer */

static basalt_status nomem(struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const char *dup_str(struct basalt_arena *a, const char *s)
{
    return (const char *)basalt_iceberg_mf_copy(a, s, strlen(s));
}

static basalt_status read_props(json_t *obj, struct basalt_arena *arena,
                                struct basalt_iceberg_kv **out, uint32_t *n_out,
                                struct basalt_error *err)
{
    *out = NULL;
    *n_out = 0;
    if (!obj)
        return BASALT_OK;
    if (!json_is_object(obj))
        return basalt_error_set(err, BASALT_CORRUPT, "properties is not an object");
    size_t n = json_object_size(obj);
    if (n == 0)
        return BASALT_OK;
    struct basalt_iceberg_kv *kv = basalt_arena_alloc(arena, sizeof *kv * n, 8);
    if (!kv)
        return nomem(err);
    const char *key;
    json_t *val;
    uint32_t i = 0;
    json_object_foreach(obj, key, val)
    {
        if (!json_is_string(val))
            return basalt_error_set(err, BASALT_CORRUPT, "property '%s' is not a string", key);
        kv[i].key = dup_str(arena, key);
        kv[i].value = (const char *)basalt_iceberg_mf_copy(arena, json_string_value(val),
                                                           json_string_length(val));
        if (!kv[i].key || !kv[i].value)
            return nomem(err);
        i++;
    }
    *out = kv;
    *n_out = i;
    return BASALT_OK;
}

static bool get_i64(json_t *obj, const char *key, int64_t *out)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v))
        return false;
    *out = (int64_t)json_integer_value(v);
    return true;
}

static basalt_status read_blob(json_t *b, uint32_t index, size_t footer_start,
                               struct basalt_arena *arena, struct basalt_iceberg_puffin_blob *blob,
                               struct basalt_error *err)
{
    memset(blob, 0, sizeof *blob);
    if (!json_is_object(b))
        return basalt_error_set(err, BASALT_CORRUPT, "blob %u is not an object", index);
    json_t *type = json_object_get(b, "type");
    json_t *fields = json_object_get(b, "fields");
    if (!json_is_string(type) || !json_is_array(fields))
        return basalt_error_set(err, BASALT_CORRUPT, "blob %u: missing type or fields", index);
    if (!get_i64(b, "snapshot-id", &blob->snapshot_id) ||
        !get_i64(b, "sequence-number", &blob->sequence_number) ||
        !get_i64(b, "offset", &blob->offset) || !get_i64(b, "length", &blob->length))
        return basalt_error_set(err, BASALT_CORRUPT,
                                "blob %u: missing snapshot-id, sequence-number, offset or length",
                                index);
    if (blob->offset < 4 || blob->length < 0 || (uint64_t)blob->offset > footer_start ||
        (uint64_t)blob->length > footer_start - (uint64_t)blob->offset)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "blob %u: offset %lld length %lld outside the file", index,
                                (long long)blob->offset, (long long)blob->length);
    if (!(blob->type = dup_str(arena, json_string_value(type))))
        return nomem(err);
    size_t nf = json_array_size(fields);
    blob->fields = basalt_arena_alloc(arena, sizeof *blob->fields * (nf ? nf : 1), 4);
    if (!blob->fields)
        return nomem(err);
    for (size_t i = 0; i < nf; i++) {
        json_t *f = json_array_get(fields, i);
        if (!json_is_integer(f) || json_integer_value(f) < INT32_MIN ||
            json_integer_value(f) > INT32_MAX)
            return basalt_error_set(err, BASALT_CORRUPT, "blob %u: field %zu is not an int",
                                    index, i);
        blob->fields[i] = (int32_t)json_integer_value(f);
    }
    blob->n_fields = (uint32_t)nf;
    json_t *codec = json_object_get(b, "compression-codec");
    if (codec && !json_is_null(codec)) {
        if (!json_is_string(codec))
            return basalt_error_set(err, BASALT_CORRUPT, "blob %u: compression-codec", index);
        if (!(blob->compression_codec = dup_str(arena, json_string_value(codec))))
            return nomem(err);
    }
    basalt_status st = read_props(json_object_get(b, "properties"), arena, &blob->properties,
                                  &blob->n_properties, err);
    return st != BASALT_OK ? basalt_error_context(err, st, "blob %u", index) : BASALT_OK;
}

/* Decompresses `src` with a Puffin codec name into a basalt_malloc'd buffer. */
static basalt_status decompress(const char *codec_name, const uint8_t *src, size_t len,
                                uint8_t **out, size_t *out_len, struct basalt_error *err)
{
    enum basalt_codec_kind kind;
    if (strcmp(codec_name, "zstd") == 0) {
        kind = BASALT_CODEC_ZSTD;
    } else if (strcmp(codec_name, "lz4") == 0) {
        /* Puffin's lz4 is the frame format; the codec reads frames by magic. */
        static const uint8_t frame_magic[4] = {0x04, 0x22, 0x4d, 0x18};
        if (len < 4 || memcmp(src, frame_magic, 4) != 0)
            return basalt_error_set(err, BASALT_CORRUPT, "lz4: not an LZ4 frame");
        kind = BASALT_CODEC_LZ4_HADOOP;
    } else {
        return basalt_error_set(err, BASALT_UNSUPPORTED, "unsupported compression codec '%s'",
                                codec_name);
    }
    struct basalt_codec *codec;
    basalt_status st = basalt_codec_new(kind, BASALT_CODEC_LEVEL_DEFAULT, &codec, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    st = basalt_codec_decompress_grow(codec, src, len, &buf, MAX_BLOB_OUTPUT, err);
    basalt_codec_free(codec);
    if (st == BASALT_OK && buf.size == 0 && !buf.data)
        st = basalt_buffer_reserve(&buf, 1, err);
    if (st != BASALT_OK) {
        basalt_buffer_reset(&buf);
        return st;
    }
    *out_len = buf.size;
    *out = basalt_buffer_take(&buf);
    return BASALT_OK;
}

static basalt_status parse(const uint8_t *d, size_t len, int64_t footer_size,
                           struct basalt_iceberg_puffin *p, struct basalt_error *err)
{
    if (len < 4 + 4 + FOOTER_TAIL)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "invalid file: length %zu is less than the minimum %u", len,
                                4 + 4 + FOOTER_TAIL);
    if (memcmp(d, puffin_magic, 4) != 0)
        return basalt_error_set(err, BASALT_CORRUPT, "invalid file: expected magic at offset 0");
    if (memcmp(d + len - 4, puffin_magic, 4) != 0)
        return basalt_error_set(err, BASALT_CORRUPT, "invalid file: expected magic at offset %zu",
                                len - 4);
    uint32_t payload = le32(d + len - FOOTER_TAIL);
    const uint8_t *flags = d + len - 8;
    /* footer = magic + payload + tail; it must leave room for the leading magic */
    if ((uint64_t)payload + 4 + FOOTER_TAIL > len - 4)
        return basalt_error_set(err, BASALT_CORRUPT, "invalid footer size: payload size %u",
                                payload);
    size_t footer = (size_t)payload + 4 + FOOTER_TAIL;
    if (footer_size >= 0 && (uint64_t)footer_size != footer)
        return basalt_error_set(err, BASALT_CORRUPT, "invalid footer size: %lld, the file says %zu",
                                (long long)footer_size, footer);
    size_t footer_start = len - footer;
    if (memcmp(d + footer_start, puffin_magic, 4) != 0)
        return basalt_error_set(err, BASALT_CORRUPT, "invalid file: expected magic at offset %zu",
                                footer_start);
    const uint8_t *json = d + footer_start + 4;
    size_t json_len = payload;
    uint8_t *inflated = NULL;
    if (flags[0] & 1) {
        size_t n = 0;
        basalt_status st = decompress("lz4", json, json_len, &inflated, &n, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "footer payload");
        json = inflated;
        json_len = n;
    }
    json_error_t jerr;
    json_t *root = json_loadb((const char *)json, json_len, JSON_REJECT_DUPLICATES, &jerr);
    basalt_free(inflated);
    if (!root)
        return basalt_error_set(err, BASALT_CORRUPT, "footer payload: invalid JSON: %s (line %d)",
                                jerr.text, jerr.line);
    basalt_status st = BASALT_OK;
    struct basalt_arena *arena = &p->priv->arena;
    json_t *blobs = json_object_get(root, "blobs");
    if (!json_is_object(root) || !json_is_array(blobs)) {
        st = basalt_error_set(err, BASALT_CORRUPT, "footer payload: no blobs array");
        goto done;
    }
    size_t nb = json_array_size(blobs);
    if (nb > UINT32_MAX / sizeof *p->blobs) {
        st = basalt_error_set(err, BASALT_LIMIT, "too many blobs");
        goto done;
    }
    p->blobs = basalt_arena_alloc(arena, sizeof *p->blobs * (nb ? nb : 1), 8);
    if (!p->blobs) {
        st = nomem(err);
        goto done;
    }
    for (size_t i = 0; i < nb && st == BASALT_OK; i++) {
        st = read_blob(json_array_get(blobs, i), (uint32_t)i, footer_start, arena, &p->blobs[i], err);
        if (st == BASALT_OK)
            p->n_blobs++;
    }
    if (st == BASALT_OK)
        st = read_props(json_object_get(root, "properties"), arena, &p->properties,
                        &p->n_properties, err);
done:
    json_decref(root);
    return st;
}

/* Also used with a known footer size (the table's statistics file entry). */
static basalt_status puffin_parse(const void *data, size_t len, const char *name,
                                  int64_t footer_size, struct basalt_iceberg_puffin **out,
                                  struct basalt_error *err)
{
    *out = NULL;
    struct basalt_iceberg_puffin *p = basalt_calloc(1, sizeof *p);
    if (!p)
        return nomem(err);
    if (!(p->priv = basalt_calloc(1, sizeof *p->priv))) {
        basalt_free(p);
        return nomem(err);
    }
    basalt_arena_init(&p->priv->arena, 4096);
    basalt_status st = parse(data, len, footer_size, p, err);
    if (st != BASALT_OK) {
        basalt_iceberg_puffin_free(p);
        return name ? basalt_error_context(err, st, "%s", name) : st;
    }
    *out = p;
    return BASALT_OK;
}

basalt_status basalt_iceberg_puffin_parse(const void *data, size_t len, const char *name,
                                          struct basalt_iceberg_puffin **out,
                                          struct basalt_error *err)
{
    return puffin_parse(data, len, name, -1, out, err);
}

basalt_status basalt_iceberg_puffin_parse_footer(const void *data, size_t len, const char *name,
                                                 int64_t footer_size,
                                                 struct basalt_iceberg_puffin **out,
                                                 struct basalt_error *err)
{
    return puffin_parse(data, len, name, footer_size, out, err);
}

void basalt_iceberg_puffin_free(struct basalt_iceberg_puffin *puffin)
{
    if (!puffin)
        return;
    if (puffin->priv) {
        basalt_arena_reset(&puffin->priv->arena);
        basalt_free(puffin->priv);
    }
    basalt_free(puffin);
}

const char *basalt_iceberg_puffin_blob_property(const struct basalt_iceberg_puffin_blob *blob,
                                                const char *key)
{
    for (uint32_t i = 0; i < blob->n_properties; i++)
        if (strcmp(blob->properties[i].key, key) == 0)
            return blob->properties[i].value;
    return NULL;
}

basalt_status basalt_iceberg_puffin_blob_read(const struct basalt_iceberg_puffin *puffin,
                                              const void *data, size_t len, uint32_t index,
                                              uint8_t **out, size_t *out_len,
                                              struct basalt_error *err)
{
    *out = NULL;
    *out_len = 0;
    if (index >= puffin->n_blobs)
        return basalt_error_set(err, BASALT_INVALID_ARG, "blob %u of %u", index, puffin->n_blobs);
    const struct basalt_iceberg_puffin_blob *b = &puffin->blobs[index];
    if ((uint64_t)b->offset > len || (uint64_t)b->length > len - (uint64_t)b->offset)
        return basalt_error_set(err, BASALT_INVALID_ARG, "blob %u lies beyond %zu bytes", index,
                                len);
    const uint8_t *src = (const uint8_t *)data + b->offset;
    size_t n = (size_t)b->length;
    if (b->compression_codec) {
        basalt_status st = decompress(b->compression_codec, src, n, out, out_len, err);
        return st != BASALT_OK ? basalt_error_context(err, st, "blob %u", index) : BASALT_OK;
    }
    uint8_t *copy = basalt_malloc(n ? n : 1);
    if (!copy)
        return nomem(err);
    if (n)
        memcpy(copy, src, n);
    *out = copy;
    *out_len = n;
    return BASALT_OK;
}
