/* SHA-256 and HMAC-SHA256 through OpenSSL 3's EVP interfaces (the low-level
 * SHA256_* and HMAC_* calls are deprecated there). */
#include <openssl/evp.h>

#include "basalt/hash.h"

basalt_status basalt_hash_sha256(const void *data, size_t len, uint8_t out[BASALT_HASH_SHA256_SIZE])
{
    static const uint8_t empty;
    unsigned int out_len = 0;
    if (!EVP_Digest(len ? data : &empty, len, out, &out_len, EVP_sha256(), NULL) ||
        out_len != BASALT_HASH_SHA256_SIZE)
        return BASALT_NOMEM; /* libcrypto fails only when it cannot allocate */
    return BASALT_OK;
}

basalt_status basalt_hash_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                             uint8_t out[BASALT_HASH_SHA256_SIZE])
{
    /* An empty key is valid HMAC; libcrypto wants a non-NULL pointer for it. */
    static const uint8_t empty;
    size_t out_len = 0;
    if (!EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, key_len ? key : &empty, key_len,
                   len ? data : &empty, len, out, BASALT_HASH_SHA256_SIZE, &out_len) ||
        out_len != BASALT_HASH_SHA256_SIZE)
        return BASALT_NOMEM;
    return BASALT_OK;
}
