/* Parquet modular encryption (parquet-format Encryption.md), internal to the
 * parquet module: AES-GCM and AES-CTR modules through OpenSSL's libcrypto
 * (crypto_aes.c), the reader's keys and decryption of the footer and column
 * metadata (crypto_read.c), and parquet-java's key material (crypto_keytools.c).
 *
 * A module is what the format encrypts as one piece: the footer, a column
 * chunk's ColumnMetaData, a page header, a page, a ColumnIndex, an
 * OffsetIndex, a bloom filter header and its bitset. On disk a module is
 *     GCM:  length (4, little-endian) | nonce (12) | ciphertext | tag (16)
 *     CTR:  length (4, little-endian) | nonce (12) | ciphertext
 * where length counts the bytes after it. AES_GCM_V1 uses GCM for every
 * module; AES_GCM_CTR_V1 uses CTR for pages (data and dictionary) and GCM
 * for the rest. GCM authenticates the module AAD: the file's AAD prefix,
 * its aad_file_unique, the module type, and the row group, column and page
 * ordinals (int16, little-endian) that apply to that type. */
#ifndef BASALT_PARQUET_CRYPTO_H
#define BASALT_PARQUET_CRYPTO_H

#include "basalt/core.h"
#include "basalt/parquet_format.h"

#define BASALT_PARQUET_CRYPTO_NONCE 12
#define BASALT_PARQUET_CRYPTO_TAG 16
#define BASALT_PARQUET_CRYPTO_LENGTH 4
/* Bytes a module adds to its plaintext. */
#define BASALT_PARQUET_CRYPTO_GCM_OVERHEAD (4 + 12 + 16)
#define BASALT_PARQUET_CRYPTO_CTR_OVERHEAD (4 + 12)
/* A plaintext footer's signature: nonce and GCM tag. */
#define BASALT_PARQUET_CRYPTO_SIGNATURE 28
#define BASALT_PARQUET_CRYPTO_MAX_KEY 32

/* Module types of the AAD suffix. */
enum basalt_parquet_module {
    BASALT_PARQUET_MODULE_FOOTER = 0,
    BASALT_PARQUET_MODULE_COLUMN_METADATA = 1,
    BASALT_PARQUET_MODULE_DATA_PAGE = 2,
    BASALT_PARQUET_MODULE_DICTIONARY_PAGE = 3,
    BASALT_PARQUET_MODULE_DATA_PAGE_HEADER = 4,
    BASALT_PARQUET_MODULE_DICTIONARY_PAGE_HEADER = 5,
    BASALT_PARQUET_MODULE_COLUMN_INDEX = 6,
    BASALT_PARQUET_MODULE_OFFSET_INDEX = 7,
    BASALT_PARQUET_MODULE_BLOOM_HEADER = 8,
    BASALT_PARQUET_MODULE_BLOOM_BITSET = 9
};

/* "footer", "column metadata", "data page", ... for messages. */
const char *basalt_parquet_module_name(int module);

/* One key of one file: everything a module encrypted with it needs besides
 * its place. The AAD base is the file's (shared, not owned). */
struct basalt_parquet_cipher {
    int32_t algorithm;   /* enum basalt_parquet_encryption_algorithm_kind */
    uint8_t key[BASALT_PARQUET_CRYPTO_MAX_KEY];
    size_t key_len;      /* 16, 24 or 32 */
    const uint8_t *aad;  /* AAD prefix followed by aad_file_unique */
    size_t aad_len;
    /* No AAD at all, not even the suffix: DuckDB 1.x writes files so
     * (readers only; see crypto_read.c). */
    bool bare;
};

/* Where a module sits in the file: its AAD suffix. Ordinals that do not
 * apply to the type are ignored (the footer has none; pages, data page
 * headers have a page ordinal; the rest a row group and a column). */
struct basalt_parquet_module_id {
    int type;            /* enum basalt_parquet_module */
    int32_t row_group;
    int32_t column;
    int32_t page;
};

/* Whether `len` is an AES key length (16, 24, 32). */
bool basalt_parquet_crypto_key_len_ok(size_t len);

/* Whether modules of this type are CTR modules under the cipher's algorithm. */
bool basalt_parquet_crypto_is_ctr(const struct basalt_parquet_cipher *c, int type);

/* Bytes a module of this type adds to its plaintext. */
size_t basalt_parquet_crypto_overhead(const struct basalt_parquet_cipher *c, int type);

/* Reads the length of the module at `data` (`avail` bytes there): the whole
 * module is *module_len bytes (length field included) and holds
 * *plain_len bytes of plaintext. CORRUPT when the length runs past `avail`
 * or is too short for a nonce (and tag). */
basalt_status basalt_parquet_crypto_module_size(const struct basalt_parquet_cipher *c, int type,
                                                const uint8_t *data, size_t avail,
                                                size_t *module_len, size_t *plain_len,
                                                struct basalt_error *err);

/* Decrypts the module at `data` (`avail` bytes there, the module possibly
 * shorter) into `out`, which has room for the plaintext
 * (basalt_parquet_crypto_module_size) and does not overlap the module.
 * Sets *plain_len and, when not NULL,
 * *module_len. AUTH when the GCM tag does not verify (a wrong key or AAD
 * prefix, or modified bytes); CORRUPT (length); LIMIT (an ordinal over
 * 32767); NOMEM. */
basalt_status basalt_parquet_crypto_decrypt(const struct basalt_parquet_cipher *c,
                                            const struct basalt_parquet_module_id *id,
                                            const uint8_t *data, size_t avail, uint8_t *out,
                                            size_t *plain_len, size_t *module_len,
                                            struct basalt_error *err);

/* Decrypts the module at `data` into a new basalt_malloc'd buffer (*out, of
 * *plain_len bytes, at least one byte allocated). Same statuses. */
basalt_status basalt_parquet_crypto_decrypt_alloc(const struct basalt_parquet_cipher *c,
                                                  const struct basalt_parquet_module_id *id,
                                                  const uint8_t *data, size_t avail,
                                                  uint8_t **out, size_t *plain_len,
                                                  size_t *module_len, struct basalt_error *err);

/* Appends the module holding `a` then `b` (either may be empty) to `out`,
 * with a fresh random nonce. LIMIT (a module over 4 GiB, an ordinal over
 * 32767); NOMEM; INTERNAL when the random generator fails. */
basalt_status basalt_parquet_crypto_encrypt(const struct basalt_parquet_cipher *c,
                                            const struct basalt_parquet_module_id *id,
                                            const uint8_t *a, size_t a_len, const uint8_t *b,
                                            size_t b_len, struct basalt_buffer *out,
                                            struct basalt_error *err);

/* The signature of a plaintext footer (`len` bytes of serialized
 * FileMetaData): a random nonce and the GCM tag of the footer under the
 * footer key and the footer AAD. NOMEM, INTERNAL. */
basalt_status basalt_parquet_crypto_sign_footer(const struct basalt_parquet_cipher *c,
                                                const uint8_t *footer, size_t len,
                                                uint8_t sig[BASALT_PARQUET_CRYPTO_SIGNATURE],
                                                struct basalt_error *err);
/* AUTH when `sig` is not the footer's signature under this key. NOMEM. */
basalt_status basalt_parquet_crypto_verify_footer(const struct basalt_parquet_cipher *c,
                                                  const uint8_t *footer, size_t len,
                                                  const uint8_t sig[BASALT_PARQUET_CRYPTO_SIGNATURE],
                                                  struct basalt_error *err);

/* AES-GCM of a whole buffer laid out nonce | ciphertext | tag, with `aad`:
 * what parquet-java's key tools use to wrap keys. AUTH, CORRUPT (too short),
 * INVALID_ARG (key length), NOMEM. `out` has room for len - 28 bytes. */
basalt_status basalt_parquet_crypto_gcm_open(const uint8_t *key, size_t key_len,
                                             const uint8_t *aad, size_t aad_len,
                                             const uint8_t *data, size_t len, uint8_t *out,
                                             size_t *out_len, struct basalt_error *err);

/* Cryptographically random bytes. INTERNAL when the generator fails. */
basalt_status basalt_parquet_crypto_random(uint8_t *out, size_t n, struct basalt_error *err);

/* ------------------------------------------------------------------ reader */

struct basalt_parquet_reader;
struct basalt_parquet_decryption;

/* What the reader knows of one column chunk's encryption. */
struct basalt_parquet_chunk_crypto {
    bool encrypted;      /* crypto_metadata or encrypted_column_metadata */
    bool rejected;       /* its column metadata did not authenticate with the key found */
    int32_t key;         /* 1 + index into the file's keys; 0: no key (plaintext or missing) */
};

/* The encryption of an open file (crypto_read.c). Lives with the reader;
 * the keys are wiped when it is freed. */
struct basalt_parquet_file_crypto {
    int32_t algorithm;           /* enum basalt_parquet_encryption_algorithm_kind; 0 if unknown */
    bool encrypted_footer;       /* "PARE" */
    bool have_options;           /* the caller gave decryption options */
    bool footer_verified;        /* a plaintext footer's signature was checked */
    bool bare;                   /* modules have no AAD (DuckDB's files) */
    uint8_t *aad;                /* AAD prefix + aad_file_unique (reader arena) */
    size_t aad_len;
    int32_t footer_key;          /* 1 + index into keys; 0: none */
    struct basalt_parquet_cipher *keys; /* basalt_malloc'd */
    size_t n_keys, cap_keys;
    struct basalt_parquet_chunk_crypto *chunks; /* row_group * n_leaves + leaf (reader arena) */
    int32_t n_leaves;
};

/* Decrypts an encrypted footer (`len` bytes: FileCryptoMetaData, then the
 * footer module) into *plain (basalt_malloc'd, *plain_len bytes), setting up
 * r->crypto. UNSUPPORTED without decryption options; AUTH (no footer key or
 * AAD prefix, a module that does not authenticate); CORRUPT; NOMEM. */
basalt_status basalt_parquet_crypto_open_encrypted_footer(struct basalt_parquet_reader *r,
                                                          const uint8_t *footer, size_t len,
                                                          uint8_t **plain, size_t *plain_len,
                                                          struct basalt_error *err);

/* For a plaintext footer of `len` bytes whose FileMetaData (r->md, decoded)
 * names an encryption algorithm: sets up r->crypto and verifies the
 * signature when the footer key is known. AUTH, CORRUPT, NOMEM. */
basalt_status basalt_parquet_crypto_open_plaintext_footer(struct basalt_parquet_reader *r,
                                                          const uint8_t *footer, size_t len,
                                                          struct basalt_error *err);

/* Once the schema is built: finds each encrypted chunk's key and decrypts
 * its column metadata into r->md. AUTH (a retriever's refusal other than
 * NOT_FOUND / AUTH is passed on), CORRUPT, NOMEM, INVALID_ARG (a bad
 * explicit key). */
basalt_status basalt_parquet_crypto_open_columns(struct basalt_parquet_reader *r,
                                                 struct basalt_error *err);

/* Wipes and frees the keys. NULL is a no-op. */
void basalt_parquet_crypto_free(struct basalt_parquet_file_crypto *c);

/* The key of chunk (row_group, leaf): NULL for a plaintext chunk, and for an
 * encrypted one without a key (basalt_parquet_reader_chunk_meta refuses
 * those). Indices must be in range. */
const struct basalt_parquet_cipher *basalt_parquet_reader_chunk_cipher(
    const struct basalt_parquet_reader *r, int32_t row_group, int32_t leaf);

/* The row group ordinal of the module AADs: RowGroup.ordinal when set, else
 * the row group's index. */
int32_t basalt_parquet_reader_rg_ordinal(const struct basalt_parquet_reader *r, int32_t row_group);

/* The refusal for an encrypted chunk without a key (UNSUPPORTED without
 * decryption options, AUTH otherwise), naming no place. */
basalt_status basalt_parquet_crypto_chunk_refusal(const struct basalt_parquet_reader *r,
                                                  int32_t row_group, int32_t leaf,
                                                  struct basalt_error *err);

/* Decrypts the module of chunk (row_group, leaf) at `data` into a
 * basalt_malloc'd buffer (*out, *out_len bytes), for the page index and
 * bloom filters. The statuses of basalt_parquet_crypto_decrypt. */
basalt_status basalt_parquet_reader_decrypt_module(const struct basalt_parquet_reader *r,
                                                   int32_t row_group, int32_t leaf, int type,
                                                   const uint8_t *data, size_t avail,
                                                   uint8_t **out, size_t *out_len,
                                                   size_t *module_len, struct basalt_error *err);

#endif
