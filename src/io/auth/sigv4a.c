/* SigV4a keys: the ECDSA P-256 key pair AWS derives from an access key pair,
 * and signing / verifying with it, through OpenSSL 3's EVP interfaces. */
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>

#include "auth/sigv4_internal.h"
#include "basalt/hash.h"

struct basalt_sigv4a_key {
    EVP_PKEY *pkey;
    uint8_t x[32];
    uint8_t y[32];
};

#define KDF_LABEL "AWS4-ECDSA-P256-SHA256"

static basalt_status crypto_failed(struct basalt_error *err, const char *what)
{
    /* libcrypto's queue would otherwise surface in an unrelated later call. */
    ERR_clear_error();
    return basalt_error_set(err, BASALT_INTERNAL, "sigv4a: %s failed in libcrypto", what);
}

/* An EVP_PKEY on P-256 from the uncompressed point `pub` (65 bytes) and, for
 * a key pair, the private scalar. NULL when libcrypto refuses it. */
static EVP_PKEY *make_pkey(const uint8_t pub[65], const BIGNUM *priv)
{
    EVP_PKEY *pkey = NULL;
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    if (!bld ||
        !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
        !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub, 65) ||
        (priv && !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, priv)))
        goto done;
    params = OSSL_PARAM_BLD_to_param(bld);
    ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (!params || !ctx || EVP_PKEY_fromdata_init(ctx) <= 0 ||
        EVP_PKEY_fromdata(ctx, &pkey, priv ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) <= 0)
        pkey = NULL;
done:
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params); /* holds a copy of the scalar; freed before return */
    OSSL_PARAM_BLD_free(bld);
    return pkey;
}

/* The KDF: NIST SP 800-108 in counter mode with HMAC-SHA256 keyed by "AWS4A" +
 * secret, over 1 || label || 0x00 || access key id || counter || 256, all
 * counts big-endian. A candidate c is accepted when c <= n - 2 and the private
 * key is c + 1 (so it lies in [1, n - 1]); otherwise the counter moves on. */
static basalt_status derive_scalar(const char *akid, const char *secret, const BIGNUM *order,
                                   BIGNUM *d, struct basalt_error *err)
{
    size_t akid_len = strlen(akid), secret_len = strlen(secret);
    size_t label_len = sizeof KDF_LABEL - 1;
    size_t input_len = 4 + label_len + 1 + akid_len + 1 + 4;
    uint8_t *key = basalt_malloc(5 + secret_len);
    uint8_t *input = basalt_malloc(input_len);
    BIGNUM *limit = BN_dup(order);
    basalt_status st = BASALT_OK;
    if (!key || !input || !limit) {
        st = basalt_error_set(err, BASALT_NOMEM, "sigv4a: out of memory deriving the key");
        goto done;
    }
    memcpy(key, "AWS4A", 5);
    memcpy(key + 5, secret, secret_len);
    uint8_t *p = input;
    memcpy(p, "\0\0\0\1", 4);
    p += 4;
    memcpy(p, KDF_LABEL, label_len);
    p += label_len;
    *p++ = 0;
    memcpy(p, akid, akid_len);
    p += akid_len;
    uint8_t *counter = p++;
    memcpy(p, "\0\0\1\0", 4);
    if (!BN_sub_word(limit, 2)) {
        st = crypto_failed(err, "key derivation");
        goto done;
    }
    for (int c = 1; c <= 254; c++) {
        uint8_t k0[32];
        *counter = (uint8_t)c;
        basalt_status hs = basalt_hash_hmac_sha256(key, 5 + secret_len, input, input_len, k0);
        bool ok = hs == BASALT_OK && BN_bin2bn(k0, 32, d) != NULL;
        basalt_sigv4_wipe(k0, sizeof k0);
        if (!ok) {
            st = hs != BASALT_OK ? basalt_error_set(err, hs, "sigv4a: HMAC failed")
                                 : crypto_failed(err, "key derivation");
            goto done;
        }
        if (BN_cmp(d, limit) <= 0) {
            st = BN_add_word(d, 1) ? BASALT_OK : crypto_failed(err, "key derivation");
            goto done;
        }
    }
    /* Each candidate fails with probability ~2^-32: unreachable in practice. */
    st = basalt_error_set(err, BASALT_INTERNAL, "sigv4a: key derivation found no key");
done:
    if (key)
        basalt_sigv4_wipe(key, 5 + secret_len);
    basalt_free(key);
    basalt_free(input);
    BN_free(limit);
    return st;
}

basalt_status basalt_sigv4a_key_derive(const char *access_key_id, const char *secret_access_key,
                                       struct basalt_sigv4a_key **out, struct basalt_error *err)
{
    *out = NULL;
    if (!access_key_id || !*access_key_id || !secret_access_key || !*secret_access_key)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "sigv4a: no access key id or secret access key");
    struct basalt_sigv4a_key *key = basalt_calloc(1, sizeof *key);
    EC_GROUP *group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    BN_CTX *bn = BN_CTX_new();
    BIGNUM *d = BN_secure_new();
    EC_POINT *pub = group ? EC_POINT_new(group) : NULL;
    uint8_t oct[65];
    basalt_status st = BASALT_OK;
    if (!key)
        st = basalt_error_set(err, BASALT_NOMEM, "sigv4a: out of memory deriving the key");
    else if (!group || !bn || !d || !pub)
        st = crypto_failed(err, "allocating key material");
    if (st == BASALT_OK)
        st = derive_scalar(access_key_id, secret_access_key, EC_GROUP_get0_order(group), d, err);
    if (st == BASALT_OK &&
        (!EC_POINT_mul(group, pub, d, NULL, NULL, bn) ||
         EC_POINT_point2oct(group, pub, POINT_CONVERSION_UNCOMPRESSED, oct, sizeof oct, bn) !=
             sizeof oct))
        st = crypto_failed(err, "computing the public key");
    if (st == BASALT_OK) {
        key->pkey = make_pkey(oct, d);
        if (!key->pkey)
            st = crypto_failed(err, "building the key");
    }
    if (st == BASALT_OK) {
        memcpy(key->x, oct + 1, 32);
        memcpy(key->y, oct + 33, 32);
        *out = key;
    } else {
        basalt_free(key);
    }
    EC_POINT_free(pub);
    BN_clear_free(d);
    BN_CTX_free(bn);
    EC_GROUP_free(group);
    return st;
}

void basalt_sigv4a_key_free(struct basalt_sigv4a_key *key)
{
    if (!key)
        return;
    EVP_PKEY_free(key->pkey);
    basalt_free(key);
}

void basalt_sigv4a_key_public(const struct basalt_sigv4a_key *key, uint8_t x[32], uint8_t y[32])
{
    memcpy(x, key->x, 32);
    memcpy(y, key->y, 32);
}

basalt_status basalt_sigv4a_sign(const struct basalt_sigv4a_key *key, const void *message,
                                 size_t len, char *hex, struct basalt_error *err)
{
    uint8_t sig[80];
    size_t sig_len = sizeof sig;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx)
        return crypto_failed(err, "allocating a signing context");
    int ok = EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, key->pkey) > 0 &&
             EVP_DigestSign(ctx, sig, &sig_len, message, len) > 0;
    EVP_MD_CTX_free(ctx);
    if (!ok || sig_len > (BASALT_SIGV4_SIGNATURE_MAX - 1) / 2)
        return crypto_failed(err, "ECDSA signing");
    basalt_hash_hex(sig, sig_len, hex);
    return BASALT_OK;
}

static int hex_nibble(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

basalt_status basalt_sigv4a_verify(const uint8_t x[32], const uint8_t y[32], const void *message,
                                   size_t len, const char *hex_signature,
                                   struct basalt_error *err)
{
    uint8_t sig[80];
    size_t hex_len = hex_signature ? strlen(hex_signature) : 0;
    if (hex_len == 0 || hex_len % 2 || hex_len / 2 > sizeof sig)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "sigv4a: signature is not hex of a DER ECDSA signature");
    for (size_t i = 0; i < hex_len / 2; i++) {
        int hi = hex_nibble(hex_signature[2 * i]), lo = hex_nibble(hex_signature[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return basalt_error_set(err, BASALT_CORRUPT, "sigv4a: signature is not hex");
        sig[i] = (uint8_t)(hi << 4 | lo);
    }
    uint8_t oct[65];
    oct[0] = 4; /* uncompressed point */
    memcpy(oct + 1, x, 32);
    memcpy(oct + 33, y, 32);
    EVP_PKEY *pkey = make_pkey(oct, NULL);
    if (!pkey) {
        ERR_clear_error();
        return basalt_error_set(err, BASALT_CORRUPT, "sigv4a: public key is not on P-256");
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int rc = ctx && EVP_DigestVerifyInit(ctx, NULL, EVP_sha256(), NULL, pkey) > 0
                 ? EVP_DigestVerify(ctx, sig, hex_len / 2, message, len)
                 : -2;
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(pkey);
    if (rc == -2)
        return crypto_failed(err, "allocating a verification context");
    ERR_clear_error();
    if (rc != 1)
        return basalt_error_set(err, BASALT_AUTH, "sigv4a: signature does not verify");
    return BASALT_OK;
}
