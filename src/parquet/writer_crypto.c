/* The writer's side of Parquet modular encryption: the keys of the columns,
 * the modules of indexes and bloom filters, each encrypted column's
 * ColumnCryptoMetaData and encrypted ColumnMetaData, and the footer
 * (encrypted behind a FileCryptoMetaData, or signed). Pages are encrypted
 * where they are emitted (writer_chunk.c). */
#include <string.h>

#include <openssl/crypto.h>

#include "parquet_crypto.h"
#include "parquet_writer.h"

/* Bytes of aad_file_unique, as parquet-java and Arrow C++ write. */
#define FILE_UNIQUE 8

void basalt_parquet_wcrypto_free(struct basalt_parquet_wcrypto *c)
{
    if (!c)
        return;
    if (c->ciphers) {
        OPENSSL_cleanse(c->ciphers, c->n_ciphers * sizeof *c->ciphers);
        basalt_free(c->ciphers);
    }
    basalt_free(c->aad);
    basalt_free(c->footer_key_metadata);
    for (int32_t i = 0; c->key_metadata && i < c->n_columns; i++)
        basalt_free((void *)(uintptr_t)c->key_metadata[i].data);
    basalt_free(c->key_metadata);
    basalt_free(c);
}

static basalt_status copy_bytes(const uint8_t *p, size_t n, uint8_t **out,
                                struct basalt_error *err)
{
    *out = basalt_malloc(n ? n : 1);
    if (!*out)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (n)
        memcpy(*out, p, n);
    return BASALT_OK;
}

basalt_status basalt_parquet_wcrypto_new(const struct basalt_parquet_encryption *e,
                                         struct basalt_parquet_wcolumn *cols, int32_t ncols,
                                         struct basalt_parquet_wcrypto **out,
                                         struct basalt_error *err)
{
    *out = NULL;
    int32_t alg = e->algorithm ? e->algorithm : BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_V1;
    if (alg != BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_V1 &&
        alg != BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "parquet writer: encryption algorithm %d (AES_GCM_V1 or "
                                "AES_GCM_CTR_V1)",
                                (int)e->algorithm);
    if (!e->footer_key || !basalt_parquet_crypto_key_len_ok(e->footer_key_len))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "parquet writer: a footer key of 16, 24 or 32 bytes is needed");
    if ((e->num_columns && !e->columns) || (e->aad_prefix_len && !e->aad_prefix) ||
        (e->footer_key_metadata_len && !e->footer_key_metadata))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "parquet writer: encryption: a length without its data");
    if (ncols > INT16_MAX)
        return basalt_error_set(err, BASALT_LIMIT,
                                "parquet writer: %d columns: an encrypted file holds at most "
                                "32767",
                                (int)ncols);
    for (size_t k = 0; k < e->num_columns; k++) {
        const struct basalt_parquet_column_encryption *ce = &e->columns[k];
        if (!ce->column)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "parquet writer: encryption column %zu has no name", k);
        if (ce->key && !basalt_parquet_crypto_key_len_ok(ce->key_len))
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "parquet writer: column '%s': a key of 16, 24 or 32 bytes "
                                    "is needed",
                                    ce->column);
        if (ce->key_metadata_len && !ce->key_metadata)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "parquet writer: column '%s': key metadata length without "
                                    "data",
                                    ce->column);
        for (size_t j = 0; j < k; j++)
            if (strcmp(e->columns[j].column, ce->column) == 0)
                return basalt_error_set(err, BASALT_INVALID_ARG,
                                        "parquet writer: column '%s' is listed twice for "
                                        "encryption",
                                        ce->column);
        int32_t i = 0;
        while (i < ncols && strcmp(cols[i].name, ce->column) != 0)
            i++;
        if (i == ncols)
            return basalt_error_set(err, BASALT_NOT_FOUND,
                                    "parquet writer: column '%s' not found (encryption)",
                                    ce->column);
    }
    struct basalt_parquet_wcrypto *c = basalt_calloc(1, sizeof *c);
    if (!c)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    c->algorithm = alg;
    c->plaintext_footer = e->plaintext_footer;
    c->store_aad_prefix = !e->skip_aad_prefix_storage;
    c->prefix_len = e->aad_prefix ? e->aad_prefix_len : 0;
    c->aad_len = c->prefix_len + FILE_UNIQUE;
    c->ciphers = basalt_calloc(e->num_columns + 1, sizeof *c->ciphers);
    c->key_metadata = basalt_calloc((size_t)ncols + 1, sizeof *c->key_metadata);
    c->n_columns = c->key_metadata ? ncols : 0;
    c->aad = basalt_malloc(c->aad_len);
    basalt_status st = BASALT_OK;
    if (!c->ciphers || !c->key_metadata || !c->aad)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (st == BASALT_OK && e->footer_key_metadata)
        st = copy_bytes(e->footer_key_metadata, e->footer_key_metadata_len,
                        &c->footer_key_metadata, err);
    c->footer_key_metadata_len = e->footer_key_metadata ? e->footer_key_metadata_len : 0;
    if (st == BASALT_OK) {
        if (c->prefix_len)
            memcpy(c->aad, e->aad_prefix, c->prefix_len);
        st = basalt_parquet_crypto_random(c->aad + c->prefix_len, FILE_UNIQUE, err);
    }
    if (st != BASALT_OK) {
        basalt_parquet_wcrypto_free(c);
        return st;
    }
    struct basalt_parquet_cipher *footer = &c->ciphers[0];
    footer->algorithm = alg;
    memcpy(footer->key, e->footer_key, e->footer_key_len);
    footer->key_len = e->footer_key_len;
    footer->aad = c->aad;
    footer->aad_len = c->aad_len;
    c->n_ciphers = 1;
    for (int32_t i = 0; i < ncols; i++) {
        cols[i].ordinal = i;
        cols[i].cipher = e->num_columns ? NULL : footer;
        cols[i].own_key = false;
        cols[i].v2_clear_levels = e->v2_levels_in_plaintext;
    }
    for (size_t k = 0; k < e->num_columns; k++) {
        const struct basalt_parquet_column_encryption *ce = &e->columns[k];
        int32_t i = 0;
        while (strcmp(cols[i].name, ce->column) != 0)
            i++;
        if (ce->key) {
            struct basalt_parquet_cipher *ck = &c->ciphers[c->n_ciphers++];
            *ck = *footer;
            memset(ck->key, 0, sizeof ck->key);
            memcpy(ck->key, ce->key, ce->key_len);
            ck->key_len = ce->key_len;
            cols[i].cipher = ck;
            cols[i].own_key = true;
        } else {
            cols[i].cipher = footer;
        }
        if (ce->key_metadata) {
            uint8_t *md = NULL;
            st = copy_bytes(ce->key_metadata, ce->key_metadata_len, &md, err);
            if (st != BASALT_OK) {
                basalt_parquet_wcrypto_free(c);
                return st;
            }
            c->key_metadata[i].data = md;
            c->key_metadata[i].len = ce->key_metadata_len;
        }
    }
    *out = c;
    return BASALT_OK;
}

basalt_status basalt_parquet_wcrypto_put(const struct basalt_parquet_wcolumn *col,
                                         const struct basalt_parquet_wctx *ctx, int type,
                                         const uint8_t *plain, size_t len,
                                         struct basalt_buffer *dst, struct basalt_error *err)
{
    if (!col->cipher)
        return basalt_buffer_append(dst, plain, len, err);
    struct basalt_parquet_module_id id = {type, ctx->row_group, col->ordinal, 0};
    return basalt_parquet_crypto_encrypt(col->cipher, &id, plain, len, NULL, 0, dst, err);
}

basalt_status basalt_parquet_wcrypto_chunk(const struct basalt_parquet_wcrypto *c,
                                           const struct basalt_parquet_wcolumn *col,
                                           int32_t row_group, struct basalt_arena *arena,
                                           struct basalt_parquet_column_chunk *cc,
                                           struct basalt_error *err)
{
    if (!c || !col->cipher)
        return BASALT_OK;
    struct basalt_parquet_column_crypto_metadata *cm = basalt_arena_alloc(arena, sizeof *cm, 8);
    if (!cm)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memset(cm, 0, sizeof *cm);
    if (col->own_key) {
        cm->kind = BASALT_PARQUET_COLUMN_CRYPTO_ENCRYPTION_WITH_COLUMN_KEY;
        cm->path_in_schema = col->path;
        cm->num_path_in_schema = col->path_len;
        const struct basalt_parquet_binary *md = &c->key_metadata[col->ordinal];
        if (md->data) {
            cm->has_key_metadata = true;
            cm->key_metadata = *md;
        }
    } else {
        cm->kind = BASALT_PARQUET_COLUMN_CRYPTO_ENCRYPTION_WITH_FOOTER_KEY;
    }
    cc->has_crypto_metadata = true;
    cc->crypto_metadata = cm;
    /* The footer protects the metadata of columns under its own key; the
     * rest is serialized and encrypted with the column's key. */
    if (!c->plaintext_footer && !col->own_key)
        return BASALT_OK;
    struct basalt_buffer plain, enc;
    basalt_buffer_init(&plain);
    basalt_buffer_init(&enc);
    basalt_status st = basalt_thrift_encode_column_metadata(&cc->meta_data, &plain, err);
    struct basalt_parquet_module_id id = {BASALT_PARQUET_MODULE_COLUMN_METADATA, row_group,
                                          col->ordinal, 0};
    if (st == BASALT_OK)
        st = basalt_parquet_crypto_encrypt(col->cipher, &id, plain.data, plain.size, NULL, 0,
                                           &enc, err);
    uint8_t *copy = NULL;
    if (st == BASALT_OK) {
        copy = basalt_arena_alloc(arena, enc.size, 1);
        if (!copy)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        else
            memcpy(copy, enc.data, enc.size);
    }
    if (plain.data)
        OPENSSL_cleanse(plain.data, plain.size);
    basalt_buffer_reset(&plain);
    if (st == BASALT_OK) {
        cc->has_encrypted_column_metadata = true;
        cc->encrypted_column_metadata.data = copy;
        cc->encrypted_column_metadata.len = enc.size;
    }
    basalt_buffer_reset(&enc);
    if (st != BASALT_OK)
        return st;
    if (!c->plaintext_footer) {
        /* Only the encrypted copy: nothing of it in the footer. */
        cc->has_meta_data = false;
        return BASALT_OK;
    }
    /* A plaintext footer keeps what old readers need to find the chunk,
     * without what tells about its values. */
    struct basalt_parquet_column_metadata *m = &cc->meta_data;
    m->has_statistics = false;
    memset(&m->statistics, 0, sizeof m->statistics);
    m->has_encoding_stats = false;
    m->encoding_stats = NULL;
    m->num_encoding_stats = 0;
    m->has_size_statistics = false;
    memset(&m->size_statistics, 0, sizeof m->size_statistics);
    m->has_geospatial_statistics = false;
    m->geospatial_statistics = NULL;
    return BASALT_OK;
}

static void algorithm(const struct basalt_parquet_wcrypto *c,
                      struct basalt_parquet_encryption_algorithm *a)
{
    memset(a, 0, sizeof *a);
    a->kind = c->algorithm;
    a->has_aad_file_unique = true;
    a->aad_file_unique.data = c->aad + c->prefix_len;
    a->aad_file_unique.len = FILE_UNIQUE;
    if (c->prefix_len && c->store_aad_prefix) {
        a->has_aad_prefix = true;
        a->aad_prefix.data = c->aad;
        a->aad_prefix.len = c->prefix_len;
    }
    if (c->prefix_len && !c->store_aad_prefix) {
        a->has_supply_aad_prefix = true;
        a->supply_aad_prefix = true;
    }
}

void basalt_parquet_wcrypto_footer_fields(const struct basalt_parquet_wcrypto *c,
                                          struct basalt_parquet_file_metadata *md)
{
    if (!c || !c->plaintext_footer)
        return;
    md->has_encryption_algorithm = true;
    algorithm(c, &md->encryption_algorithm);
    if (c->footer_key_metadata) {
        md->has_footer_signing_key_metadata = true;
        md->footer_signing_key_metadata.data = c->footer_key_metadata;
        md->footer_signing_key_metadata.len = c->footer_key_metadata_len;
    }
}

basalt_status basalt_parquet_wcrypto_footer(const struct basalt_parquet_wcrypto *c,
                                            struct basalt_buffer *footer,
                                            struct basalt_error *err)
{
    const struct basalt_parquet_cipher *key = &c->ciphers[0];
    if (c->plaintext_footer) {
        uint8_t sig[BASALT_PARQUET_CRYPTO_SIGNATURE];
        basalt_status st =
            basalt_parquet_crypto_sign_footer(key, footer->data, footer->size, sig, err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(footer, sig, sizeof sig, err);
        return st;
    }
    struct basalt_parquet_file_crypto_metadata fcm;
    memset(&fcm, 0, sizeof fcm);
    algorithm(c, &fcm.encryption_algorithm);
    if (c->footer_key_metadata) {
        fcm.has_key_metadata = true;
        fcm.key_metadata.data = c->footer_key_metadata;
        fcm.key_metadata.len = c->footer_key_metadata_len;
    }
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    basalt_status st = basalt_thrift_encode_file_crypto_metadata(&fcm, &out, err);
    struct basalt_parquet_module_id id = {BASALT_PARQUET_MODULE_FOOTER, 0, 0, 0};
    if (st == BASALT_OK)
        st = basalt_parquet_crypto_encrypt(key, &id, footer->data, footer->size, NULL, 0, &out,
                                           err);
    if (st != BASALT_OK) {
        basalt_buffer_reset(&out);
        return st;
    }
    basalt_buffer_reset(footer);
    *footer = out;
    return BASALT_OK;
}
