/* Single-object encoding: C3 01, the schema's CRC-64-AVRO fingerprint
 * little-endian, then the datum. */
#include "avro_internal.h"

void basalt_avro_single_header(const struct basalt_avro_schema *schema,
                               uint8_t out[BASALT_AVRO_SINGLE_HEADER_SIZE])
{
    uint64_t fp = schema->fingerprint;
    out[0] = 0xc3;
    out[1] = 0x01;
    for (int i = 0; i < 8; i++)
        out[2 + i] = (uint8_t)(fp >> (8 * i));
}

basalt_status basalt_avro_single_parse(const uint8_t *data, size_t len, uint64_t *fingerprint,
                                       const uint8_t **datum, size_t *datum_len,
                                       struct basalt_error *err)
{
    if (!data && len)
        return basalt_error_set(err, BASALT_INVALID_ARG, "single_parse: NULL argument");
    if (len < BASALT_AVRO_SINGLE_HEADER_SIZE)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "single-object message shorter than its 10-byte header");
    if (data[0] != 0xc3 || data[1] != 0x01)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "not a single-object message (magic %02x %02x, expected c3 01)",
                                data[0], data[1]);
    if (fingerprint)
        *fingerprint = avro_load_u64le(data + 2);
    if (datum)
        *datum = data + BASALT_AVRO_SINGLE_HEADER_SIZE;
    if (datum_len)
        *datum_len = len - BASALT_AVRO_SINGLE_HEADER_SIZE;
    return BASALT_OK;
}

basalt_status basalt_avro_single_encode(const struct basalt_avro_schema *schema,
                                        const struct basalt_avro_value *value,
                                        struct basalt_buffer *out, struct basalt_error *err)
{
    if (!schema || !value || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "single_encode: NULL argument");
    if (value->node != schema->root)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "single_encode: the value is not of the schema's root type");
    uint8_t header[BASALT_AVRO_SINGLE_HEADER_SIZE];
    basalt_avro_single_header(schema, header);
    size_t mark = out->size;
    basalt_status st = basalt_buffer_append(out, header, sizeof header, err);
    if (st == BASALT_OK)
        st = basalt_avro_value_encode(value, out, err);
    if (st != BASALT_OK)
        out->size = mark;
    return st;
}
