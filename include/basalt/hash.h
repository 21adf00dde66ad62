/* basalt hash: checksums and hashes used by the formats and object stores.
 * Every function is pure and thread-safe, never allocates through basalt's
 * allocator, and accepts data == NULL when its length is 0. */
#ifndef BASALT_HASH_H
#define BASALT_HASH_H

#include "basalt/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) as used by Parquet page
 * checksums, gzip and Avro snappy blocks. Pass 0 as `crc` to start; pass the
 * previous result to continue over more data. Hardware-accelerated (PCLMULQDQ
 * or ARMv8 CRC) where available. */
BASALT_EXPORT uint32_t basalt_hash_crc32(uint32_t crc, const void *data, size_t len);

/* MurmurHash3 x86 32-bit, the hash of Iceberg's bucket transform. Blocks are
 * read little-endian on every host, so results are portable. */
BASALT_EXPORT uint32_t basalt_hash_murmur3_32(const void *data, size_t len, uint32_t seed);
/* Iceberg's hashes of int/long/date/time/timestamp values: the value as a
 * little-endian 8-byte long, seed 0. */
BASALT_EXPORT uint32_t basalt_hash_murmur3_32_i64(int64_t value);

/* XXH64, the hash of Parquet split-block bloom filters (Parquet uses seed 0). */
BASALT_EXPORT uint64_t basalt_hash_xxh64(const void *data, size_t len, uint64_t seed);

/* SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104) through libcrypto, for S3
 * SigV4 signing and content checksums. `out` receives the 32-byte digest. Any
 * key length is accepted (longer than 64 bytes is hashed first, per RFC 2104).
 * libcrypto allocates its own context, so these can fail: NOMEM (with `out`
 * left unspecified). */
#define BASALT_HASH_SHA256_SIZE 32
BASALT_EXPORT basalt_status basalt_hash_sha256(const void *data, size_t len,
                                               uint8_t out[BASALT_HASH_SHA256_SIZE]);
BASALT_EXPORT basalt_status basalt_hash_hmac_sha256(const void *key, size_t key_len,
                                                    const void *data, size_t len,
                                                    uint8_t out[BASALT_HASH_SHA256_SIZE]);
/* Lower-case hex of `len` bytes into `out` (2 * len + 1 bytes, NUL-terminated). */
BASALT_EXPORT void basalt_hash_hex(const uint8_t *bytes, size_t len, char *out);

#ifdef __cplusplus
}
#endif

#endif
