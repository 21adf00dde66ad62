/* Object Container File internals shared by the reader and the writer. */
#ifndef BASALT_AVRO_OCF_H
#define BASALT_AVRO_OCF_H

#include "basalt/codec.h"

#include "avro_internal.h"

#define AVRO_SYNC_SIZE 16

struct avro_meta {
    const uint8_t *key;
    size_t key_size;
    const uint8_t *value;
    size_t value_size;
};

/* Where one block's parts are, as framed by basalt_avro_ocf_frame. */
struct avro_frame {
    int64_t count;
    size_t data_offset;
    size_t size;     /* compressed */
    size_t next;     /* offset after the sync marker */
};

struct basalt_avro_reader {
    const uint8_t *data;
    size_t len;
    struct avro_limits lim;
    struct basalt_avro_schema *own_schema;
    const struct basalt_avro_schema *schema;
    enum basalt_avro_codec codec;
    struct basalt_codec *dec;
    struct avro_meta *meta;
    size_t meta_count;
    uint8_t sync[AVRO_SYNC_SIZE];
    size_t pos;            /* offset of the next block */
    int64_t block_index;   /* index of the next block */
    int64_t records_before;
    struct basalt_buffer scratch;
    /* the block being read record by record */
    bool in_block;
    struct basalt_avro_block cur;
    const uint8_t *cur_p;
    int64_t cur_left;
    /* decompressed blocks kept alive by read_all */
    uint8_t **kept;
    size_t kept_count;
};

/* Library codec kind of an Avro codec (UNCOMPRESSED for null). */
enum basalt_codec_kind basalt_avro_codec_kind(enum basalt_avro_codec codec);

/* Frames the block at `pos`: count, size, data, sync marker. CORRUPT or
 * LIMIT with the offset and block number. */
basalt_status basalt_avro_ocf_frame(const struct basalt_avro_reader *r, size_t pos, int64_t index,
                                    struct avro_frame *frame, struct basalt_error *err);

/* Decompresses a block's data into `out` (emptied first) with `codec`
 * (NULL for the null codec, when out is left untouched and *data points
 * into the file). */
basalt_status basalt_avro_ocf_decompress(enum basalt_avro_codec kind, struct basalt_codec *codec,
                                         const uint8_t *src, size_t size, uint64_t limit,
                                         struct basalt_buffer *out, const uint8_t **data,
                                         size_t *data_size, struct basalt_error *err);

#endif
