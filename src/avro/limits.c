/* Defaults for struct basalt_avro_limits. */
#include "avro_internal.h"

void basalt_avro_limits_resolve(const struct basalt_avro_limits *in, struct avro_limits *out)
{
    out->max_depth = in && in->max_depth ? in->max_depth : 128;
    out->max_items = in && in->max_items ? in->max_items : (uint64_t)1 << 26;
    out->max_block_bytes = in && in->max_block_bytes ? in->max_block_bytes : (uint64_t)256 << 20;
    out->max_block_records =
        in && in->max_block_records ? in->max_block_records : (uint64_t)1 << 31;
    out->max_header_bytes = in && in->max_header_bytes ? in->max_header_bytes : (uint64_t)64 << 20;
}
