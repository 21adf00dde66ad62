/* AES-GCM and AES-CTR modules of Parquet modular encryption, through
 * OpenSSL's EVP interface (AES-NI where the CPU has it). One cipher context
 * per call: contexts are cheap next to a page, and calls stay thread-safe
 * without any shared state. */
#include <limits.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "parquet_crypto.h"

/* The longest AAD suffix: type, row group, column, page. */
#define AAD_SUFFIX 7
/* AADs up to this long are built on the stack. */
#define AAD_STACK 256

const char *basalt_parquet_module_name(int module)
{
    switch (module) {
    case BASALT_PARQUET_MODULE_FOOTER: return "footer";
    case BASALT_PARQUET_MODULE_COLUMN_METADATA: return "column metadata";
    case BASALT_PARQUET_MODULE_DATA_PAGE: return "data page";
    case BASALT_PARQUET_MODULE_DICTIONARY_PAGE: return "dictionary page";
    case BASALT_PARQUET_MODULE_DATA_PAGE_HEADER: return "data page header";
    case BASALT_PARQUET_MODULE_DICTIONARY_PAGE_HEADER: return "dictionary page header";
    case BASALT_PARQUET_MODULE_COLUMN_INDEX: return "column index";
    case BASALT_PARQUET_MODULE_OFFSET_INDEX: return "offset index";
    case BASALT_PARQUET_MODULE_BLOOM_HEADER: return "bloom filter header";
    case BASALT_PARQUET_MODULE_BLOOM_BITSET: return "bloom filter bitset";
    default: return "module";
    }
}

bool basalt_parquet_crypto_key_len_ok(size_t len)
{
    return len == 16 || len == 24 || len == 32;
}

bool basalt_parquet_crypto_is_ctr(const struct basalt_parquet_cipher *c, int type)
{
    return c->algorithm == BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1 &&
           (type == BASALT_PARQUET_MODULE_DATA_PAGE ||
            type == BASALT_PARQUET_MODULE_DICTIONARY_PAGE);
}

size_t basalt_parquet_crypto_overhead(const struct basalt_parquet_cipher *c, int type)
{
    return basalt_parquet_crypto_is_ctr(c, type) ? BASALT_PARQUET_CRYPTO_CTR_OVERHEAD
                                                 : BASALT_PARQUET_CRYPTO_GCM_OVERHEAD;
}

static const EVP_CIPHER *evp_cipher(bool ctr, size_t key_len)
{
    switch (key_len) {
    case 16: return ctr ? EVP_aes_128_ctr() : EVP_aes_128_gcm();
    case 24: return ctr ? EVP_aes_192_ctr() : EVP_aes_192_gcm();
    case 32: return ctr ? EVP_aes_256_ctr() : EVP_aes_256_gcm();
    default: return NULL;
    }
}

static void put_i16(uint8_t *p, int32_t v)
{
    p[0] = (uint8_t)(v & 0xff);
    p[1] = (uint8_t)((v >> 8) & 0xff);
}

/* The module AAD: the cipher's base then the suffix of `id`. *aad is `stack`
 * or a basalt_malloc'd buffer the caller frees when it differs from `stack`. */
static basalt_status module_aad(const struct basalt_parquet_cipher *c,
                                const struct basalt_parquet_module_id *id, uint8_t *stack,
                                uint8_t **aad, size_t *aad_len, struct basalt_error *err)
{
    bool ordinals = id->type != BASALT_PARQUET_MODULE_FOOTER;
    bool page = id->type == BASALT_PARQUET_MODULE_DATA_PAGE ||
                id->type == BASALT_PARQUET_MODULE_DATA_PAGE_HEADER;
    if (ordinals && (id->row_group < 0 || id->row_group > INT16_MAX || id->column < 0 ||
                     id->column > INT16_MAX))
        return basalt_error_set(err, BASALT_LIMIT,
                                "%s: row group %d or column %d is past the 32767 that an "
                                "encrypted file can address",
                                basalt_parquet_module_name(id->type), (int)id->row_group,
                                (int)id->column);
    if (page && (id->page < 0 || id->page > INT16_MAX))
        return basalt_error_set(err, BASALT_LIMIT,
                                "%s: page %d is past the 32767 pages an encrypted column chunk "
                                "can hold",
                                basalt_parquet_module_name(id->type), (int)id->page);
    if (c->bare) {
        *aad = stack;
        *aad_len = 0;
        return BASALT_OK;
    }
    size_t n = c->aad_len + AAD_SUFFIX;
    uint8_t *p = stack;
    if (n > AAD_STACK) {
        p = basalt_malloc(n);
        if (!p)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for an AAD");
    }
    if (c->aad_len)
        memcpy(p, c->aad, c->aad_len);
    size_t k = c->aad_len;
    p[k++] = (uint8_t)id->type;
    if (ordinals) {
        put_i16(p + k, id->row_group);
        put_i16(p + k + 2, id->column);
        k += 4;
        if (page) {
            put_i16(p + k, id->page);
            k += 2;
        }
    }
    *aad = p;
    *aad_len = k;
    return BASALT_OK;
}

static basalt_status nomem(struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_NOMEM, "out of memory for a cipher context");
}

/* Runs `n` bytes through the context in pieces that fit an int. */
static bool update(EVP_CIPHER_CTX *ctx, bool encrypt, uint8_t *out, const uint8_t *in, size_t n)
{
    while (n > 0) {
        int piece = n > (size_t)(INT_MAX / 2) ? INT_MAX / 2 : (int)n;
        int got = 0;
        int ok = encrypt ? EVP_EncryptUpdate(ctx, out, &got, in, piece)
                         : EVP_DecryptUpdate(ctx, out, &got, in, piece);
        if (!ok || got != piece)
            return false;
        out += piece;
        in += piece;
        n -= (size_t)piece;
    }
    return true;
}

static bool aad_update(EVP_CIPHER_CTX *ctx, bool encrypt, const uint8_t *aad, size_t n)
{
    if (n == 0)
        return true;
    if (n > INT_MAX)
        return false;
    int got = 0;
    return encrypt ? EVP_EncryptUpdate(ctx, NULL, &got, aad, (int)n) == 1
                   : EVP_DecryptUpdate(ctx, NULL, &got, aad, (int)n) == 1;
}

/* GCM decryption of `ct` (n bytes) into `out`; AUTH when the tag fails. */
static basalt_status gcm_decrypt(const uint8_t *key, size_t key_len, const uint8_t *nonce,
                                 const uint8_t *aad, size_t aad_len, const uint8_t *ct, size_t n,
                                 const uint8_t *tag, uint8_t *out, struct basalt_error *err)
{
    const EVP_CIPHER *cipher = evp_cipher(false, key_len);
    if (!cipher)
        return basalt_error_set(err, BASALT_INVALID_ARG, "AES key of %zu bytes (16, 24 or 32)",
                                key_len);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx)
        return nomem(err);
    bool ok = EVP_DecryptInit_ex(ctx, cipher, NULL, NULL, NULL) == 1 &&
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, BASALT_PARQUET_CRYPTO_NONCE,
                                  NULL) == 1 &&
              EVP_DecryptInit_ex(ctx, NULL, NULL, key, nonce) == 1 &&
              aad_update(ctx, false, aad, aad_len) && update(ctx, false, out, ct, n) &&
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, BASALT_PARQUET_CRYPTO_TAG,
                                  (void *)(uintptr_t)tag) == 1;
    int got = 0;
    bool auth = ok && EVP_DecryptFinal_ex(ctx, out + n, &got) == 1;
    EVP_CIPHER_CTX_free(ctx);
    if (!auth) {
        /* Whatever was written is unauthenticated: leave nothing of it. */
        if (n)
            OPENSSL_cleanse(out, n);
        return basalt_error_set(err, BASALT_AUTH,
                                "AES-GCM authentication failed: a wrong key or AAD prefix, or "
                                "modified bytes");
    }
    return BASALT_OK;
}

/* CTR over a then b (one keystream) into `out`; decryption is the same. */
static basalt_status ctr_crypt(const uint8_t *key, size_t key_len, const uint8_t *nonce,
                               const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len,
                               uint8_t *out, struct basalt_error *err)
{
    const EVP_CIPHER *cipher = evp_cipher(true, key_len);
    if (!cipher)
        return basalt_error_set(err, BASALT_INVALID_ARG, "AES key of %zu bytes (16, 24 or 32)",
                                key_len);
    /* The IV: the nonce, then a 32-bit big-endian counter starting at 1. */
    uint8_t iv[16];
    memcpy(iv, nonce, BASALT_PARQUET_CRYPTO_NONCE);
    iv[12] = iv[13] = iv[14] = 0;
    iv[15] = 1;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx)
        return nomem(err);
    bool ok = EVP_EncryptInit_ex(ctx, cipher, NULL, key, iv) == 1 &&
              update(ctx, true, out, a, a_len) && update(ctx, true, out + a_len, b, b_len);
    int got = 0;
    ok = ok && EVP_EncryptFinal_ex(ctx, out + a_len + b_len, &got) == 1;
    EVP_CIPHER_CTX_free(ctx);
    if (!ok)
        return basalt_error_set(err, BASALT_INTERNAL, "AES-CTR failed");
    return BASALT_OK;
}

static uint32_t get_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

basalt_status basalt_parquet_crypto_module_size(const struct basalt_parquet_cipher *c, int type,
                                                const uint8_t *data, size_t avail,
                                                size_t *module_len, size_t *plain_len,
                                                struct basalt_error *err)
{
    const char *name = basalt_parquet_module_name(type);
    if (avail < BASALT_PARQUET_CRYPTO_LENGTH)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "encrypted %s: %zu bytes cannot hold its length", name, avail);
    uint64_t len = get_u32le(data);
    size_t over = basalt_parquet_crypto_overhead(c, type) - BASALT_PARQUET_CRYPTO_LENGTH;
    if (len > avail - BASALT_PARQUET_CRYPTO_LENGTH)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "encrypted %s of %llu bytes runs past the %zu bytes there", name,
                                (unsigned long long)len, avail - BASALT_PARQUET_CRYPTO_LENGTH);
    if (len < over)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "encrypted %s of %llu bytes is shorter than its nonce%s", name,
                                (unsigned long long)len, over > 12 ? " and tag" : "");
    *module_len = BASALT_PARQUET_CRYPTO_LENGTH + (size_t)len;
    *plain_len = (size_t)len - over;
    return BASALT_OK;
}

basalt_status basalt_parquet_crypto_decrypt(const struct basalt_parquet_cipher *c,
                                            const struct basalt_parquet_module_id *id,
                                            const uint8_t *data, size_t avail, uint8_t *out,
                                            size_t *plain_len, size_t *module_len,
                                            struct basalt_error *err)
{
    size_t mlen = 0, n = 0;
    basalt_status st = basalt_parquet_crypto_module_size(c, id->type, data, avail, &mlen, &n, err);
    if (st != BASALT_OK)
        return st;
    const uint8_t *nonce = data + BASALT_PARQUET_CRYPTO_LENGTH;
    const uint8_t *ct = nonce + BASALT_PARQUET_CRYPTO_NONCE;
    if (basalt_parquet_crypto_is_ctr(c, id->type)) {
        st = ctr_crypt(c->key, c->key_len, nonce, ct, n, NULL, 0, out, err);
    } else {
        uint8_t stack[AAD_STACK];
        uint8_t *aad = NULL;
        size_t aad_len = 0;
        st = module_aad(c, id, stack, &aad, &aad_len, err);
        if (st != BASALT_OK)
            return st;
        st = gcm_decrypt(c->key, c->key_len, nonce, aad, aad_len, ct, n, ct + n, out, err);
        if (aad != stack)
            basalt_free(aad);
    }
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", basalt_parquet_module_name(id->type));
    *plain_len = n;
    if (module_len)
        *module_len = mlen;
    return BASALT_OK;
}

basalt_status basalt_parquet_crypto_decrypt_alloc(const struct basalt_parquet_cipher *c,
                                                  const struct basalt_parquet_module_id *id,
                                                  const uint8_t *data, size_t avail,
                                                  uint8_t **out, size_t *plain_len,
                                                  size_t *module_len, struct basalt_error *err)
{
    *out = NULL;
    size_t mlen = 0, n = 0;
    basalt_status st = basalt_parquet_crypto_module_size(c, id->type, data, avail, &mlen, &n, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *buf = basalt_malloc(n ? n : 1);
    if (!buf)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a decrypted %s",
                                basalt_parquet_module_name(id->type));
    st = basalt_parquet_crypto_decrypt(c, id, data, avail, buf, plain_len, module_len, err);
    if (st != BASALT_OK) {
        basalt_free(buf);
        return st;
    }
    *out = buf;
    return BASALT_OK;
}

basalt_status basalt_parquet_crypto_random(uint8_t *out, size_t n, struct basalt_error *err)
{
    if (n > INT_MAX || RAND_bytes(out, (int)n) != 1)
        return basalt_error_set(err, BASALT_INTERNAL, "the random generator failed");
    return BASALT_OK;
}

/* GCM encryption of a then b under `nonce` and `aad` into `out`, the tag
 * after the ciphertext. */
static basalt_status gcm_encrypt(const uint8_t *key, size_t key_len, const uint8_t *nonce,
                                 const uint8_t *aad, size_t aad_len, const uint8_t *a,
                                 size_t a_len, const uint8_t *b, size_t b_len, uint8_t *out,
                                 struct basalt_error *err)
{
    const EVP_CIPHER *cipher = evp_cipher(false, key_len);
    if (!cipher)
        return basalt_error_set(err, BASALT_INVALID_ARG, "AES key of %zu bytes (16, 24 or 32)",
                                key_len);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx)
        return nomem(err);
    int got = 0;
    bool ok = EVP_EncryptInit_ex(ctx, cipher, NULL, NULL, NULL) == 1 &&
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, BASALT_PARQUET_CRYPTO_NONCE,
                                  NULL) == 1 &&
              EVP_EncryptInit_ex(ctx, NULL, NULL, key, nonce) == 1 &&
              aad_update(ctx, true, aad, aad_len) && update(ctx, true, out, a, a_len) &&
              update(ctx, true, out + a_len, b, b_len) &&
              EVP_EncryptFinal_ex(ctx, out + a_len + b_len, &got) == 1 &&
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, BASALT_PARQUET_CRYPTO_TAG,
                                  out + a_len + b_len) == 1;
    EVP_CIPHER_CTX_free(ctx);
    if (!ok)
        return basalt_error_set(err, BASALT_INTERNAL, "AES-GCM encryption failed");
    return BASALT_OK;
}

basalt_status basalt_parquet_crypto_encrypt(const struct basalt_parquet_cipher *c,
                                            const struct basalt_parquet_module_id *id,
                                            const uint8_t *a, size_t a_len, const uint8_t *b,
                                            size_t b_len, struct basalt_buffer *out,
                                            struct basalt_error *err)
{
    bool ctr = basalt_parquet_crypto_is_ctr(c, id->type);
    size_t over = basalt_parquet_crypto_overhead(c, id->type);
    if (a_len > UINT32_MAX || b_len > UINT32_MAX - a_len ||
        a_len + b_len > UINT32_MAX - (over - BASALT_PARQUET_CRYPTO_LENGTH))
        return basalt_error_set(err, BASALT_LIMIT, "%s over 4 GiB cannot be encrypted",
                                basalt_parquet_module_name(id->type));
    size_t total = over + a_len + b_len;
    basalt_status st = basalt_buffer_reserve(out, total, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *p = out->data + out->size;
    uint32_t len = (uint32_t)(total - BASALT_PARQUET_CRYPTO_LENGTH);
    p[0] = (uint8_t)len;
    p[1] = (uint8_t)(len >> 8);
    p[2] = (uint8_t)(len >> 16);
    p[3] = (uint8_t)(len >> 24);
    uint8_t *nonce = p + BASALT_PARQUET_CRYPTO_LENGTH;
    uint8_t *ct = nonce + BASALT_PARQUET_CRYPTO_NONCE;
    st = basalt_parquet_crypto_random(nonce, BASALT_PARQUET_CRYPTO_NONCE, err);
    if (st != BASALT_OK)
        return st;
    if (ctr) {
        st = ctr_crypt(c->key, c->key_len, nonce, a, a_len, b, b_len, ct, err);
    } else {
        uint8_t stack[AAD_STACK];
        uint8_t *aad = NULL;
        size_t aad_len = 0;
        st = module_aad(c, id, stack, &aad, &aad_len, err);
        if (st != BASALT_OK)
            return st;
        st = gcm_encrypt(c->key, c->key_len, nonce, aad, aad_len, a, a_len, b, b_len, ct, err);
        if (aad != stack)
            basalt_free(aad);
    }
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", basalt_parquet_module_name(id->type));
    out->size += total;
    return BASALT_OK;
}

/* The GCM tag of the footer under a given nonce (the ciphertext is not
 * kept: it goes through a small buffer a piece at a time). */
static basalt_status footer_tag(const struct basalt_parquet_cipher *c, const uint8_t *footer,
                                size_t len, const uint8_t *nonce, uint8_t *tag,
                                struct basalt_error *err)
{
    const EVP_CIPHER *cipher = evp_cipher(false, c->key_len);
    if (!cipher)
        return basalt_error_set(err, BASALT_INVALID_ARG, "AES key of %zu bytes (16, 24 or 32)",
                                c->key_len);
    struct basalt_parquet_module_id id = {BASALT_PARQUET_MODULE_FOOTER, 0, 0, 0};
    uint8_t stack[AAD_STACK];
    uint8_t *aad = NULL;
    size_t aad_len = 0;
    basalt_status st = module_aad(c, &id, stack, &aad, &aad_len, err);
    if (st != BASALT_OK)
        return st;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx) {
        if (aad != stack)
            basalt_free(aad);
        return nomem(err);
    }
    bool ok = EVP_EncryptInit_ex(ctx, cipher, NULL, NULL, NULL) == 1 &&
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, BASALT_PARQUET_CRYPTO_NONCE,
                                  NULL) == 1 &&
              EVP_EncryptInit_ex(ctx, NULL, NULL, c->key, nonce) == 1 &&
              aad_update(ctx, true, aad, aad_len);
    uint8_t scratch[4096];
    for (size_t done = 0; ok && done < len;) {
        size_t piece = len - done < sizeof scratch ? len - done : sizeof scratch;
        ok = update(ctx, true, scratch, footer + done, piece);
        done += piece;
    }
    int got = 0;
    ok = ok && EVP_EncryptFinal_ex(ctx, scratch, &got) == 1 &&
         EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, BASALT_PARQUET_CRYPTO_TAG, tag) == 1;
    EVP_CIPHER_CTX_free(ctx);
    OPENSSL_cleanse(scratch, sizeof scratch);
    if (aad != stack)
        basalt_free(aad);
    if (!ok)
        return basalt_error_set(err, BASALT_INTERNAL, "AES-GCM failed");
    return BASALT_OK;
}

basalt_status basalt_parquet_crypto_sign_footer(const struct basalt_parquet_cipher *c,
                                                const uint8_t *footer, size_t len,
                                                uint8_t sig[BASALT_PARQUET_CRYPTO_SIGNATURE],
                                                struct basalt_error *err)
{
    basalt_status st = basalt_parquet_crypto_random(sig, BASALT_PARQUET_CRYPTO_NONCE, err);
    if (st == BASALT_OK)
        st = footer_tag(c, footer, len, sig, sig + BASALT_PARQUET_CRYPTO_NONCE, err);
    return st;
}

basalt_status basalt_parquet_crypto_verify_footer(const struct basalt_parquet_cipher *c,
                                                  const uint8_t *footer, size_t len,
                                                  const uint8_t sig[BASALT_PARQUET_CRYPTO_SIGNATURE],
                                                  struct basalt_error *err)
{
    uint8_t tag[BASALT_PARQUET_CRYPTO_TAG];
    basalt_status st = footer_tag(c, footer, len, sig, tag, err);
    if (st != BASALT_OK)
        return st;
    if (CRYPTO_memcmp(tag, sig + BASALT_PARQUET_CRYPTO_NONCE, sizeof tag) != 0)
        return basalt_error_set(err, BASALT_AUTH,
                                "footer signature does not verify: a wrong footer key or AAD "
                                "prefix, or a modified footer");
    return BASALT_OK;
}

basalt_status basalt_parquet_crypto_gcm_open(const uint8_t *key, size_t key_len,
                                             const uint8_t *aad, size_t aad_len,
                                             const uint8_t *data, size_t len, uint8_t *out,
                                             size_t *out_len, struct basalt_error *err)
{
    if (len < BASALT_PARQUET_CRYPTO_NONCE + BASALT_PARQUET_CRYPTO_TAG)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "wrapped key of %zu bytes is shorter than a nonce and tag", len);
    size_t n = len - BASALT_PARQUET_CRYPTO_NONCE - BASALT_PARQUET_CRYPTO_TAG;
    basalt_status st =
        gcm_decrypt(key, key_len, data, aad, aad_len, data + BASALT_PARQUET_CRYPTO_NONCE, n,
                    data + BASALT_PARQUET_CRYPTO_NONCE + n, out, err);
    if (st != BASALT_OK)
        return st;
    *out_len = n;
    return BASALT_OK;
}
