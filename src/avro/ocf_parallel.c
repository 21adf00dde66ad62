/* Decoding the rest of a container file at once, block by block on a pool:
 * the blocks are framed first (so every block knows its first row), then
 * decompressed and decoded independently. */
#include "avro_ocf.h"
#include "avro_plan.h"

struct par_block {
    struct avro_frame frame;
    size_t offset; /* of the block's count */
    int64_t first_row;
    basalt_status status;
};

struct par_ctx {
    struct basalt_avro_reader *r;
    const struct basalt_avro_plan *plan;
    const struct basalt_avro_dest *dests;
    struct par_block *blocks;
    struct basalt_codec **codecs;      /* per worker */
    struct basalt_avro_dest *scratch;  /* per worker: plan->col_count dests */
    uint8_t **kept;                    /* per block: its decompressed bytes */
};

/* Decodes one block into its rows; the decompressed bytes are kept by the
 * reader so that views stay valid. */
static basalt_status decode_block(struct par_ctx *c, const struct par_block *b,
                                  struct basalt_codec *codec, struct basalt_avro_dest *dests,
                                  uint8_t **keep, struct basalt_error *err)
{
    struct basalt_avro_reader *r = c->r;
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    const uint8_t *data;
    size_t size;
    basalt_status st = basalt_avro_ocf_decompress(r->codec, codec, r->data + b->frame.data_offset,
                                                  b->frame.size, r->lim.max_block_bytes, &buf,
                                                  &data, &size, err);
    if (st != BASALT_OK) {
        basalt_buffer_reset(&buf);
        return st;
    }
    *keep = buf.data;
    for (size_t k = 0; k < c->plan->col_count; k++) {
        const struct basalt_avro_dest *d = &c->dests[k];
        size_t stride = d->stride ? d->stride : c->plan->cols[k].size;
        size_t pstride = d->present_stride ? d->present_stride : 1;
        dests[k] = *d;
        dests[k].values = (uint8_t *)d->values + (size_t)b->first_row * stride;
        if (d->present)
            dests[k].present = d->present + (size_t)b->first_row * pstride;
    }
    struct basalt_avro_limits lim = {.max_depth = r->lim.max_depth};
    size_t used = 0;
    st = basalt_avro_plan_decode(c->plan, data, size, b->frame.count, dests, &lim, &used, err);
    if (st == BASALT_OK && used != size)
        st = basalt_error_set(err, BASALT_CORRUPT, "%zu bytes left after its %lld records",
                              size - used, (long long)b->frame.count);
    return st;
}

static void decode_range(void *ctx, int64_t begin, int64_t end, int worker)
{
    struct par_ctx *c = ctx;
    for (int64_t i = begin; i < end; i++)
        c->blocks[i].status =
            decode_block(c, &c->blocks[i], c->codecs[worker],
                         c->scratch + (size_t)worker * c->plan->col_count, &c->kept[i], NULL);
}

basalt_status basalt_avro_reader_read_all(struct basalt_avro_reader *reader,
                                          const struct basalt_avro_plan *plan,
                                          const struct basalt_avro_dest *dests, int64_t capacity,
                                          struct basalt_pool *pool, int64_t *count,
                                          struct basalt_error *err)
{
    if (!reader || !plan || !count || capacity < 0 || (!dests && plan->col_count))
        return basalt_error_set(err, BASALT_INVALID_ARG, "reader_read_all: bad argument");
    *count = 0;
    int64_t done = 0;
    /* Finish a block already being read, on this thread. */
    if (reader->in_block && reader->cur_left > 0) {
        if (reader->cur_left > capacity)
            return basalt_error_set(err, BASALT_LIMIT, "more records than the capacity of %lld",
                                    (long long)capacity);
        basalt_status st = basalt_avro_reader_read(reader, plan, dests, reader->cur_left, &done,
                                                   err);
        if (st != BASALT_OK)
            return st;
        size_t left = (size_t)(reader->cur.data + reader->cur.size - reader->cur_p);
        if (left)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "block %lld at offset %llu: %zu bytes left after its %lld "
                                    "records",
                                    (long long)reader->cur.index,
                                    (unsigned long long)reader->cur.offset, left,
                                    (long long)reader->cur.count);
    }
    reader->in_block = false;
    /* Frame every remaining block. */
    struct basalt_buffer frames;
    basalt_buffer_init(&frames);
    basalt_status st = BASALT_OK;
    int64_t rows = done;
    size_t pos = reader->pos;
    int64_t index = reader->block_index;
    while (pos < reader->len && st == BASALT_OK) {
        struct par_block b = {.first_row = rows, .offset = pos};
        st = basalt_avro_ocf_frame(reader, pos, index, &b.frame, err);
        if (st != BASALT_OK)
            break;
        if (b.frame.count > capacity - rows) {
            st = basalt_error_set(err, BASALT_LIMIT, "more records than the capacity of %lld",
                                  (long long)capacity);
            break;
        }
        rows += b.frame.count;
        st = basalt_buffer_append(&frames, &b, sizeof b, err);
        pos = b.frame.next;
        index++;
    }
    size_t nblocks = frames.size / sizeof(struct par_block);
    int workers = basalt_pool_workers(pool);
    struct par_ctx c = {.r = reader, .plan = plan, .dests = dests,
                        .blocks = (struct par_block *)(void *)frames.data};
    if (st == BASALT_OK && nblocks) {
        c.codecs = basalt_calloc((size_t)workers, sizeof *c.codecs);
        c.scratch = basalt_calloc((size_t)workers * (plan->col_count ? plan->col_count : 1),
                                  sizeof *c.scratch);
        uint8_t **kept = basalt_realloc(reader->kept,
                                        (reader->kept_count + nblocks) * sizeof *kept);
        if (!c.codecs || !c.scratch || !kept) {
            if (kept)
                reader->kept = kept;
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory reading blocks");
        } else {
            reader->kept = kept;
            memset(kept + reader->kept_count, 0, nblocks * sizeof *kept);
        }
        for (int w = 0; w < workers && st == BASALT_OK && reader->codec != BASALT_AVRO_CODEC_NULL;
             w++)
            st = basalt_codec_new(basalt_avro_codec_kind(reader->codec),
                                  BASALT_CODEC_LEVEL_DEFAULT, &c.codecs[w], err);
    }
    if (st == BASALT_OK && nblocks) {
        c.kept = reader->kept + reader->kept_count;
        basalt_pool_parallel_for(pool, 0, (int64_t)nblocks, 1, decode_range, &c);
        reader->kept_count += nblocks;
        for (size_t i = 0; i < nblocks; i++) {
            if (c.blocks[i].status == BASALT_OK)
                continue;
            /* The first failing block in file order, decoded again on this
             * thread for its message. */
            uint8_t *again = NULL;
            st = decode_block(&c, &c.blocks[i], c.codecs[0], c.scratch, &again, err);
            basalt_free(again);
            if (st == BASALT_OK)
                st = basalt_error_set(err, c.blocks[i].status, "decoding failed");
            st = basalt_error_context(err, st, "block %lld at offset %zu",
                                      (long long)(reader->block_index + (int64_t)i),
                                      c.blocks[i].offset);
            break;
        }
    }
    if (c.codecs)
        for (int w = 0; w < workers; w++)
            basalt_codec_free(c.codecs[w]);
    basalt_free(c.codecs);
    basalt_free(c.scratch);
    basalt_buffer_reset(&frames);
    if (st != BASALT_OK)
        return st;
    reader->pos = pos;
    reader->block_index = index;
    reader->records_before += rows - done;
    *count = rows;
    return BASALT_OK;
}
