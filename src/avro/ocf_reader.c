/* Container file blocks, one after another: framing, sync markers,
 * decompression, and records as values or through a plan. */
#include "avro_ocf.h"
#include "avro_plan.h"

basalt_status basalt_avro_ocf_frame(const struct basalt_avro_reader *r, size_t pos, int64_t index,
                                    struct avro_frame *frame, struct basalt_error *err)
{
    const uint8_t *p = r->data + pos, *end = r->data + r->len;
    int64_t count, size;
    if (!avro_read_long(&p, end, &count) || !avro_read_long(&p, end, &size))
        return basalt_error_set(err, BASALT_CORRUPT,
                                "block %lld at offset %zu: truncated block header",
                                (long long)index, pos);
    if (count < 0 || size < 0)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "block %lld at offset %zu: negative %s (%lld)", (long long)index,
                                pos, count < 0 ? "record count" : "size",
                                (long long)(count < 0 ? count : size));
    if ((uint64_t)count > r->lim.max_block_records)
        return basalt_error_set(err, BASALT_LIMIT,
                                "block %lld at offset %zu: %lld records, over the limit of %llu",
                                (long long)index, pos, (long long)count,
                                (unsigned long long)r->lim.max_block_records);
    if ((uint64_t)size > r->lim.max_block_bytes)
        return basalt_error_set(err, BASALT_LIMIT,
                                "block %lld at offset %zu: %lld bytes, over the limit of %llu",
                                (long long)index, pos, (long long)size,
                                (unsigned long long)r->lim.max_block_bytes);
    size_t remain = (size_t)(end - p);
    if ((uint64_t)size > remain)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "block %lld at offset %zu: truncated (%lld bytes declared, %zu "
                                "remain)",
                                (long long)index, pos, (long long)size, remain);
    if (remain - (size_t)size < AVRO_SYNC_SIZE)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "block %lld at offset %zu: truncated before its sync marker",
                                (long long)index, pos);
    const uint8_t *sync = p + size;
    if (memcmp(sync, r->sync, AVRO_SYNC_SIZE) != 0)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "block %lld at offset %zu: bad sync marker at offset %zu",
                                (long long)index, pos, (size_t)(sync - r->data));
    frame->count = count;
    frame->data_offset = (size_t)(p - r->data);
    frame->size = (size_t)size;
    frame->next = (size_t)(sync - r->data) + AVRO_SYNC_SIZE;
    return BASALT_OK;
}

basalt_status basalt_avro_reader_next_block(struct basalt_avro_reader *reader,
                                            struct basalt_avro_block *block, bool *has_block,
                                            struct basalt_error *err)
{
    if (!reader || !block || !has_block)
        return basalt_error_set(err, BASALT_INVALID_ARG, "reader_next_block: NULL argument");
    reader->in_block = false;
    *has_block = false;
    if (reader->pos >= reader->len)
        return BASALT_OK;
    struct avro_frame f;
    basalt_status st = basalt_avro_ocf_frame(reader, reader->pos, reader->block_index, &f, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_avro_ocf_decompress(reader->codec, reader->dec, reader->data + f.data_offset,
                                    f.size, reader->lim.max_block_bytes, &reader->scratch,
                                    &block->data, &block->size, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "block %lld at offset %zu",
                                    (long long)reader->block_index, reader->pos);
    block->count = f.count;
    block->index = reader->block_index;
    block->offset = reader->pos;
    block->first_record = reader->records_before;
    reader->pos = f.next;
    reader->block_index++;
    reader->records_before += f.count;
    *has_block = true;
    return BASALT_OK;
}

/* Moves to a block with records left; false at the end of the file. */
static basalt_status ensure_block(struct basalt_avro_reader *r, bool *has,
                                  struct basalt_error *err)
{
    while (!r->in_block || r->cur_left == 0) {
        if (r->in_block) {
            size_t left = (size_t)(r->cur.data + r->cur.size - r->cur_p);
            if (left)
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "block %lld at offset %llu: %zu bytes left after its "
                                        "%lld records",
                                        (long long)r->cur.index, (unsigned long long)r->cur.offset,
                                        left, (long long)r->cur.count);
        }
        struct basalt_avro_block b;
        bool got;
        basalt_status st = basalt_avro_reader_next_block(r, &b, &got, err);
        if (st != BASALT_OK)
            return st;
        if (!got) {
            *has = false;
            return BASALT_OK;
        }
        r->cur = b;
        r->cur_p = b.data;
        r->cur_left = b.count;
        r->in_block = true;
    }
    *has = true;
    return BASALT_OK;
}

static basalt_status record_context(struct basalt_avro_reader *r, basalt_status st,
                                    struct basalt_error *err)
{
    return basalt_error_context(err, st, "block %lld at offset %llu, record %lld",
                                (long long)r->cur.index, (unsigned long long)r->cur.offset,
                                (long long)(r->cur.count - r->cur_left));
}

basalt_status basalt_avro_reader_next_value(struct basalt_avro_reader *reader,
                                            const struct basalt_avro_resolution *resolution,
                                            struct basalt_arena *arena,
                                            struct basalt_avro_value *out, bool *has_value,
                                            struct basalt_error *err)
{
    if (!reader || !arena || !out || !has_value)
        return basalt_error_set(err, BASALT_INVALID_ARG, "reader_next_value: NULL argument");
    basalt_status st = ensure_block(reader, has_value, err);
    if (st != BASALT_OK || !*has_value)
        return st;
    struct basalt_avro_limits lim = {
        .max_depth = reader->lim.max_depth, .max_items = reader->lim.max_items};
    size_t left = (size_t)(reader->cur.data + reader->cur.size - reader->cur_p), used = 0;
    if (resolution)
        st = basalt_avro_value_decode_resolved(resolution, reader->cur_p, left, &lim, arena, out,
                                               &used, err);
    else
        st = basalt_avro_value_decode(reader->schema->root, reader->cur_p, left, &lim, arena, out,
                                      &used, err);
    if (st != BASALT_OK)
        return record_context(reader, st, err);
    reader->cur_p += used;
    reader->cur_left--;
    return BASALT_OK;
}

basalt_status basalt_avro_reader_read(struct basalt_avro_reader *reader,
                                      const struct basalt_avro_plan *plan,
                                      const struct basalt_avro_dest *dests, int64_t max,
                                      int64_t *count, struct basalt_error *err)
{
    if (!reader || !plan || !count || max < 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "reader_read: bad argument");
    *count = 0;
    if (plan->writer != reader->schema &&
        strcmp(plan->writer->canonical, reader->schema->canonical) != 0)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "reader_read: the plan was compiled for another writer schema");
    if (max == 0)
        return BASALT_OK;
    bool has;
    basalt_status st = ensure_block(reader, &has, err);
    if (st != BASALT_OK || !has)
        return st;
    int64_t n = reader->cur_left < max ? reader->cur_left : max;
    struct basalt_avro_limits lim = {.max_depth = reader->lim.max_depth};
    size_t left = (size_t)(reader->cur.data + reader->cur.size - reader->cur_p), used = 0;
    st = basalt_avro_plan_decode(plan, reader->cur_p, left, n, dests, &lim, &used, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "block %lld at offset %llu",
                                    (long long)reader->cur.index,
                                    (unsigned long long)reader->cur.offset);
    reader->cur_p += used;
    reader->cur_left -= n;
    *count = n;
    return BASALT_OK;
}

basalt_status basalt_avro_reader_count(struct basalt_avro_reader *reader, bool verify,
                                       int64_t *count, struct basalt_error *err)
{
    if (!reader || !count)
        return basalt_error_set(err, BASALT_INVALID_ARG, "reader_count: NULL argument");
    *count = 0;
    int64_t total = reader->in_block ? reader->cur_left : 0;
    reader->in_block = false;
    while (reader->pos < reader->len) {
        if (verify) {
            struct basalt_avro_block b;
            bool got;
            basalt_status st = basalt_avro_reader_next_block(reader, &b, &got, err);
            if (st != BASALT_OK)
                return st;
            total += b.count;
            continue;
        }
        struct avro_frame f;
        basalt_status st = basalt_avro_ocf_frame(reader, reader->pos, reader->block_index, &f, err);
        if (st != BASALT_OK)
            return st;
        total += f.count;
        reader->pos = f.next;
        reader->block_index++;
        reader->records_before += f.count;
    }
    *count = total;
    return BASALT_OK;
}
