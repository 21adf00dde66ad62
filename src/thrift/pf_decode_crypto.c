/* Decoders used by Parquet modular encryption that the footer decoder does
 * not need on their own: a ColumnMetaData serialized by itself (the
 * plaintext of a column chunk's encrypted_column_metadata). */
#include "pf_decode_internal.h"
#include "pf_desc.h"

basalt_status basalt_thrift_decode_column_metadata(const void *data, size_t len,
                                                   struct basalt_arena *arena,
                                                   const struct basalt_thrift_limits *limits,
                                                   struct basalt_parquet_column_metadata *out,
                                                   struct basalt_error *err)
{
    if (!arena || !out || (!data && len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "decode_column_metadata: NULL argument");
    memset(out, 0, sizeof *out);
    struct pf_dec d;
    basalt_thrift_pf_init(&d, data, len, arena, limits, err);
    basalt_status st = basalt_thrift_pf_decode(&d, &basalt_thrift_pf_column_metadata, out);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "ColumnMetaData");
    return BASALT_OK;
}
