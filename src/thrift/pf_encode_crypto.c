/* Encoders used by Parquet modular encryption: a ColumnMetaData serialized
 * by itself (encrypted into a column chunk's encrypted_column_metadata) and
 * the FileCryptoMetaData that precedes an encrypted footer. Both are their
 * tables (pf_tables.c) written by the generic encoder. */
#include "pf_desc.h"
#include "thrift_internal.h"

static basalt_status encode(const struct pf_struct *s, const void *in, struct basalt_buffer *out,
                            struct basalt_error *err)
{
    if (!in || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "encoding %s: NULL argument", s->name);
    struct basalt_thrift_writer w;
    basalt_thrift_writer_init(&w, out, err);
    basalt_thrift_pf_encode(&w, s, in);
    basalt_status st = basalt_thrift_writer_finish(&w);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "encoding %s", s->name);
    return BASALT_OK;
}

basalt_status basalt_thrift_encode_column_metadata(const struct basalt_parquet_column_metadata *m,
                                                   struct basalt_buffer *out,
                                                   struct basalt_error *err)
{
    return encode(&basalt_thrift_pf_column_metadata, m, out, err);
}

basalt_status basalt_thrift_encode_file_crypto_metadata(
    const struct basalt_parquet_file_crypto_metadata *m, struct basalt_buffer *out,
    struct basalt_error *err)
{
    if (m && m->encryption_algorithm.kind != BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_V1 &&
        m->encryption_algorithm.kind != BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "encoding FileCryptoMetaData: unknown algorithm %d",
                                (int)m->encryption_algorithm.kind);
    return encode(&basalt_thrift_pf_file_crypto_metadata, m, out, err);
}
