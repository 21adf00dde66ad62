/* Encoders used by Parquet modular encryption: a ColumnMetaData serialized
 * by itself (encrypted into a column chunk's encrypted_column_metadata) and
 * the FileCryptoMetaData that precedes an encrypted footer. */
#include "thrift_internal.h"

#define T(name) BASALT_THRIFT_TYPE_##name

basalt_status basalt_thrift_encode_column_metadata(const struct basalt_parquet_column_metadata *m,
                                                   struct basalt_buffer *out,
                                                   struct basalt_error *err)
{
    if (!m || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "encoding ColumnMetaData: NULL argument");
    struct basalt_thrift_writer w;
    basalt_thrift_writer_init(&w, out, err);
    basalt_thrift_pf_encode_column_metadata(&w, m);
    basalt_status st = basalt_thrift_writer_finish(&w);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "encoding ColumnMetaData");
    return BASALT_OK;
}

static void binary_field(struct basalt_thrift_writer *w, int16_t id,
                         const struct basalt_parquet_binary *b)
{
    if (b->len && !b->data) {
        basalt_thrift_writer_misuse(w, "binary with a length and no data");
        return;
    }
    tw_field(w, T(BINARY), id);
    tw_binary(w, b->data, b->len);
}

basalt_status basalt_thrift_encode_file_crypto_metadata(
    const struct basalt_parquet_file_crypto_metadata *m, struct basalt_buffer *out,
    struct basalt_error *err)
{
    if (!m || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "encoding FileCryptoMetaData: NULL argument");
    const struct basalt_parquet_encryption_algorithm *a = &m->encryption_algorithm;
    if (a->kind != BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_V1 &&
        a->kind != BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "encoding FileCryptoMetaData: unknown algorithm %d", (int)a->kind);
    struct basalt_thrift_writer w;
    basalt_thrift_writer_init(&w, out, err);
    tw_struct_begin(&w);
    /* 1: EncryptionAlgorithm, a union of AesGcmV1 (1) and AesGcmCtrV1 (2) */
    tw_field(&w, T(STRUCT), 1);
    tw_struct_begin(&w);
    tw_field(&w, T(STRUCT), (int16_t)a->kind);
    tw_struct_begin(&w);
    if (a->has_aad_prefix)
        binary_field(&w, 1, &a->aad_prefix);
    if (a->has_aad_file_unique)
        binary_field(&w, 2, &a->aad_file_unique);
    if (a->has_supply_aad_prefix)
        tw_field(&w, a->supply_aad_prefix ? T(BOOL) : T(BOOL_FALSE), 3);
    tw_struct_end(&w);
    tw_struct_end(&w);
    /* 2: key_metadata */
    if (m->has_key_metadata)
        binary_field(&w, 2, &m->key_metadata);
    tw_struct_end(&w);
    basalt_status st = basalt_thrift_writer_finish(&w);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "encoding FileCryptoMetaData");
    return BASALT_OK;
}
