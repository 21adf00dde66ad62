/* parquet-java's key tools, read side: key metadata of key material type
 * PKMT1 (JSON), the key material inside it or in the external
 * `_KEY_MATERIAL_FOR_<file>.json`, and keys wrapped locally with AES-GCM
 * under master keys held in memory (InMemoryKMS / LocalWrapKmsClient), with
 * or without a key-encryption key in between. Also the text form of keys
 * (hex or base64) that tools take. */
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <openssl/crypto.h>

#include "basalt/parquet.h"
#include "parquet_crypto.h"

/* Wrapped keys and key ids are short: a key plus nonce and tag. */
#define WRAPPED_MAX 256

/* ------------------------------------------------------------------ base64 */

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

/* Standard or URL-safe base64, padding optional. false when malformed or
 * longer than `cap` bytes decoded. */
static bool b64_decode(const char *s, size_t n, uint8_t *out, size_t cap, size_t *out_len)
{
    while (n > 0 && s[n - 1] == '=')
        n--;
    if (n % 4 == 1)
        return false;
    size_t len = n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
    if (len > cap)
        return false;
    uint32_t acc = 0;
    int bits = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64_value((unsigned char)s[i]);
        if (v < 0)
            return false;
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[k++] = (uint8_t)(acc >> bits);
        }
    }
    *out_len = k;
    return true;
}

static int hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool all_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (hex_value((unsigned char)s[i]) < 0)
            return false;
    return true;
}

basalt_status basalt_parquet_key_parse(const char *text, uint8_t *key, size_t *key_len,
                                       struct basalt_error *err)
{
    if (!text || !key || !key_len)
        return basalt_error_set(err, BASALT_INVALID_ARG, "key_parse: NULL argument");
    bool force_hex = strncmp(text, "hex:", 4) == 0;
    bool force_b64 = strncmp(text, "base64:", 7) == 0;
    const char *s = text + (force_hex ? 4 : force_b64 ? 7 : 0);
    size_t n = strlen(s);
    bool hex = !force_b64 && n % 2 == 0 && basalt_parquet_crypto_key_len_ok(n / 2) &&
               all_hex(s, n);
    if (hex) {
        for (size_t i = 0; i < n / 2; i++)
            key[i] = (uint8_t)(hex_value((unsigned char)s[2 * i]) << 4 |
                               hex_value((unsigned char)s[2 * i + 1]));
        *key_len = n / 2;
        return BASALT_OK;
    }
    size_t got = 0;
    if (force_hex || !b64_decode(s, n, key, BASALT_PARQUET_MAX_KEY_SIZE, &got) ||
        !basalt_parquet_crypto_key_len_ok(got)) {
        OPENSSL_cleanse(key, BASALT_PARQUET_MAX_KEY_SIZE);
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "a key is 16, 24 or 32 bytes, in hex (32, 48 or 64 digits) or "
                                "base64");
    }
    *key_len = got;
    return BASALT_OK;
}

/* ------------------------------------------------------------------ key material */

basalt_status basalt_parquet_key_tools_material_path(const char *path, char *out, size_t size,
                                                     struct basalt_error *err)
{
    if (!path || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "key_tools_material_path: NULL argument");
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    int dir = slash ? (int)(slash - path + 1) : 0;
    int n = snprintf(out, size, "%.*s_KEY_MATERIAL_FOR_%s.json", dir, path, name);
    if (n < 0 || (size_t)n >= size)
        return basalt_error_set(err, BASALT_LIMIT, "key material path of '%s' too long", path);
    return BASALT_OK;
}

static const char *json_str(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The external key material file's entry `reference`, parsed. */
static basalt_status external_material(const char *path, const char *reference, json_t **out,
                                       struct basalt_error *err)
{
    *out = NULL;
    if (!path)
        return basalt_error_set(err, BASALT_NOT_FOUND,
                                "key material '%s' is stored outside the file, and no key "
                                "material file was given",
                                reference);
    struct basalt_input *in = NULL;
    basalt_status st = basalt_input_open_file(path, false, &in, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "key material");
    if (in->size > (64u << 20)) {
        basalt_input_close(in);
        return basalt_error_set(err, BASALT_LIMIT, "%s: key material over 64 MiB", path);
    }
    size_t n = (size_t)in->size;
    char *text = basalt_malloc(n + 1);
    if (!text) {
        basalt_input_close(in);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for key material");
    }
    st = basalt_input_read_at(in, 0, n, text, err);
    basalt_input_close(in);
    if (st != BASALT_OK) {
        basalt_free(text);
        return st;
    }
    json_error_t je;
    json_t *root = json_loadb(text, n, 0, &je);
    basalt_free(text);
    if (!json_is_object(root)) {
        json_decref(root);
        return basalt_error_set(err, BASALT_CORRUPT, "%s: not a JSON object of key material",
                                path);
    }
    const char *material = json_str(root, reference);
    json_t *m = material ? json_loads(material, 0, &je) : NULL;
    json_decref(root);
    if (!material)
        return basalt_error_set(err, BASALT_NOT_FOUND, "%s: no key material '%s'", path,
                                reference);
    if (!json_is_object(m)) {
        json_decref(m);
        return basalt_error_set(err, BASALT_CORRUPT, "%s: key material '%s' is not JSON", path,
                                reference);
    }
    *out = m;
    return BASALT_OK;
}

/* Unwraps base64 `wrapped` (nonce | ciphertext | tag) with `kek` and `aad`. */
static basalt_status unwrap(const char *wrapped, const uint8_t *kek, size_t kek_len,
                            const uint8_t *aad, size_t aad_len, const char *what, uint8_t *key,
                            size_t *key_len, struct basalt_error *err)
{
    uint8_t raw[WRAPPED_MAX];
    size_t n = 0;
    if (!wrapped || !b64_decode(wrapped, strlen(wrapped), raw, sizeof raw, &n))
        return basalt_error_set(err, BASALT_CORRUPT, "%s: not a base64 wrapped key", what);
    uint8_t plain[WRAPPED_MAX];
    size_t m = 0;
    basalt_status st =
        basalt_parquet_crypto_gcm_open(kek, kek_len, aad, aad_len, raw, n, plain, &m, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "unwrapping %s", what);
    if (!basalt_parquet_crypto_key_len_ok(m)) {
        OPENSSL_cleanse(plain, sizeof plain);
        return basalt_error_set(err, BASALT_CORRUPT, "%s unwraps to %zu bytes, not a key", what,
                                m);
    }
    memcpy(key, plain, m);
    *key_len = m;
    OPENSSL_cleanse(plain, sizeof plain);
    return BASALT_OK;
}

static basalt_status from_material(const struct basalt_parquet_key_tools *kt, json_t *m,
                                   uint8_t *key, size_t *key_len, struct basalt_error *err)
{
    const char *master_id = json_str(m, "masterKeyID");
    const char *wrapped_dek = json_str(m, "wrappedDEK");
    if (!master_id || !wrapped_dek)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "key material without masterKeyID or wrappedDEK");
    const struct basalt_parquet_master_key *mk = NULL;
    for (size_t i = 0; i < kt->num_master_keys; i++)
        if (kt->master_keys[i].id && strcmp(kt->master_keys[i].id, master_id) == 0)
            mk = &kt->master_keys[i];
    if (!mk)
        return basalt_error_set(err, BASALT_NOT_FOUND, "no master key '%s'", master_id);
    if (!mk->key || !basalt_parquet_crypto_key_len_ok(mk->key_len))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "master key '%s': a key of 16, 24 or 32 bytes is needed",
                                master_id);
    const uint8_t *master_aad = (const uint8_t *)master_id;
    size_t master_aad_len = strlen(master_id);
    if (!json_is_true(json_object_get(m, "doubleWrapping")))
        return unwrap(wrapped_dek, mk->key, mk->key_len, master_aad, master_aad_len,
                      "the data key", key, key_len, err);
    /* Double wrapping: the master key wraps a key-encryption key, which
     * wraps the data key with the KEK's id as AAD. */
    const char *kek_id = json_str(m, "keyEncryptionKeyID");
    const char *wrapped_kek = json_str(m, "wrappedKEK");
    uint8_t id[WRAPPED_MAX];
    size_t id_len = 0;
    if (!kek_id || !wrapped_kek || !b64_decode(kek_id, strlen(kek_id), id, sizeof id, &id_len))
        return basalt_error_set(err, BASALT_CORRUPT,
                                "double-wrapped key material without a base64 "
                                "keyEncryptionKeyID and wrappedKEK");
    uint8_t kek[BASALT_PARQUET_MAX_KEY_SIZE];
    size_t kek_len = 0;
    basalt_status st = unwrap(wrapped_kek, mk->key, mk->key_len, master_aad, master_aad_len,
                              "the key-encryption key", kek, &kek_len, err);
    if (st == BASALT_OK)
        st = unwrap(wrapped_dek, kek, kek_len, id, id_len, "the data key", key, key_len, err);
    OPENSSL_cleanse(kek, sizeof kek);
    return st;
}

basalt_status basalt_parquet_key_tools_retrieve(void *ctx, const uint8_t *key_metadata,
                                                size_t len, uint8_t *key, size_t *key_len,
                                                struct basalt_error *err)
{
    const struct basalt_parquet_key_tools *kt = ctx;
    if (!kt || !key || !key_len || (!key_metadata && len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "key_tools_retrieve: NULL argument");
    json_error_t je;
    json_t *md = key_metadata ? json_loadb((const char *)key_metadata, len, 0, &je) : NULL;
    const char *type = json_is_object(md) ? json_str(md, "keyMaterialType") : NULL;
    if (!type || strcmp(type, "PKMT1") != 0) {
        json_decref(md);
        return basalt_error_set(err, BASALT_NOT_FOUND,
                                "key metadata is not parquet-java key material (PKMT1)");
    }
    json_t *internal = json_object_get(md, "internalStorage");
    basalt_status st;
    if (json_is_false(internal)) {
        const char *reference = json_str(md, "keyReference");
        json_t *m = NULL;
        if (!reference)
            st = basalt_error_set(err, BASALT_CORRUPT,
                                  "key metadata with external key material but no keyReference");
        else
            st = external_material(kt->key_material_path, reference, &m, err);
        if (st == BASALT_OK)
            st = from_material(kt, m, key, key_len, err);
        json_decref(m);
    } else {
        st = from_material(kt, md, key, key_len, err);
    }
    json_decref(md);
    return st;
}
