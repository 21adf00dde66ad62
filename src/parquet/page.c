/* Pages of a column chunk: the header walk (sizes checked against the chunk
 * and the options before anything is allocated) and page bodies (CRC,
 * decompression into the one reused scratch buffer, or the bytes in place). */
#include <inttypes.h>

#include "basalt/hash.h"
#include "parquet_column.h"
#include "parquet_crypto.h"

/* A header holds at most a few statistics; this bounds what one may take. */
#define PAGE_HEADER_MAX_MEMORY ((size_t)16 << 20)

static bool is_dictionary_encoding(int32_t encoding)
{
    return encoding == BASALT_PARQUET_ENCODING_PLAIN_DICTIONARY ||
           encoding == BASALT_PARQUET_ENCODING_RLE_DICTIONARY;
}

static basalt_status page_append(struct basalt_parquet_scratch *scratch,
                                 const struct basalt_parquet_page *page, struct basalt_error *err)
{
    struct basalt_buffer *b = &scratch->buffers[BASALT_PARQUET_SCRATCH_PAGES];
    if (b->capacity - b->size < sizeof *page) {
        size_t cap = b->capacity;
        basalt_status st = basalt_buffer_reserve(b, sizeof *page * 16, err);
        if (st != BASALT_OK)
            return st;
        if (b->capacity != cap)
            scratch->stats.scratch_grows++;
    }
    memcpy(b->data + b->size, page, sizeof *page);
    b->size += sizeof *page;
    return BASALT_OK;
}

/* Checks the header of a data page, v1 or v2, and fills in `page`. */
static basalt_status data_page_header(const struct basalt_parquet_page_header *h,
                                      struct basalt_parquet_page *page, struct basalt_error *err)
{
    if (h->type == BASALT_PARQUET_PAGE_TYPE_DATA_PAGE) {
        if (!h->has_data_page_header)
            return basalt_error_set(err, BASALT_CORRUPT, "DATA_PAGE without a data_page_header");
        const struct basalt_parquet_data_page_header *d = &h->data_page_header;
        page->num_values = d->num_values;
        page->encoding = d->encoding;
        page->def_encoding = d->definition_level_encoding;
        page->rep_encoding = d->repetition_level_encoding;
    } else {
        if (!h->has_data_page_header_v2)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "DATA_PAGE_V2 without a data_page_header_v2");
        const struct basalt_parquet_data_page_header_v2 *d = &h->data_page_header_v2;
        page->num_values = d->num_values;
        page->encoding = d->encoding;
        page->def_bytes = d->definition_levels_byte_length;
        page->rep_bytes = d->repetition_levels_byte_length;
        page->is_compressed = d->is_compressed;
        if (d->num_nulls < 0 || d->num_rows < 0)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "negative num_nulls (%" PRId32 ") or num_rows (%" PRId32 ")",
                                    d->num_nulls, d->num_rows);
        if (page->def_bytes < 0 || page->rep_bytes < 0)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "negative level section length (rep %" PRId32 ", def %" PRId32
                                    ")",
                                    page->rep_bytes, page->def_bytes);
        int64_t levels = (int64_t)page->def_bytes + page->rep_bytes;
        if (levels > page->compressed_size || levels > page->uncompressed_size)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "level sections of %" PRId64 " bytes exceed the page (%" PRId32
                                    " bytes compressed, %" PRId32 " uncompressed)",
                                    levels, page->compressed_size, page->uncompressed_size);
    }
    if (page->num_values < 0)
        return basalt_error_set(err, BASALT_CORRUPT, "negative num_values %" PRId32,
                                page->num_values);
    return BASALT_OK;
}

/* Whether the chunk's first page is a dictionary page, as its metadata
 * says (writers store 0, or the data page offset, when there is none). */
static bool dictionary_at(const struct basalt_parquet_chunk_source *src, size_t pos)
{
    const struct basalt_parquet_column_metadata *m = src->meta;
    return m->has_dictionary_page_offset && m->dictionary_page_offset > 0 &&
           m->dictionary_page_offset != m->data_page_offset &&
           m->dictionary_page_offset == src->file_offset + (int64_t)pos;
}

/* Decrypts and decodes the page header module at `pos`: a dictionary page
 * header where the metadata places the dictionary, else data page header
 * `page_ordinal` (the other kind is tried too for the chunk's first page,
 * for writers whose offsets say otherwise). *module_len is the module's
 * length on disk. */
static basalt_status decrypt_header(const struct basalt_parquet_chunk_source *src,
                                    struct basalt_parquet_scratch *scratch,
                                    const struct basalt_thrift_limits *limits, size_t pos,
                                    int32_t page_ordinal, bool first,
                                    struct basalt_parquet_page_header *h, size_t *module_len,
                                    struct basalt_error *err)
{
    const uint8_t *at = src->data + pos;
    size_t avail = src->len - pos;
    struct basalt_parquet_module_id id = {BASALT_PARQUET_MODULE_DATA_PAGE_HEADER,
                                          src->row_group_ordinal, src->column_ordinal,
                                          page_ordinal};
    if (first && dictionary_at(src, pos))
        id.type = BASALT_PARQUET_MODULE_DICTIONARY_PAGE_HEADER;
    size_t mlen = 0, n = 0;
    basalt_status st =
        basalt_parquet_crypto_module_size(src->cipher, id.type, at, avail, &mlen, &n, err);
    if (st != BASALT_OK)
        return st;
    uint8_t *plain = NULL;
    st = basalt_parquet_scratch_reserve(scratch, BASALT_PARQUET_SCRATCH_HEADER, n ? n : 1, &plain,
                                        err);
    if (st != BASALT_OK)
        return st;
    st = basalt_parquet_crypto_decrypt(src->cipher, &id, at, avail, plain, &n, &mlen, err);
    if (st == BASALT_AUTH && first) {
        struct basalt_parquet_module_id other = id;
        other.type = id.type == BASALT_PARQUET_MODULE_DATA_PAGE_HEADER
                         ? BASALT_PARQUET_MODULE_DICTIONARY_PAGE_HEADER
                         : BASALT_PARQUET_MODULE_DATA_PAGE_HEADER;
        if (basalt_parquet_crypto_decrypt(src->cipher, &other, at, avail, plain, &n, &mlen,
                                          NULL) == BASALT_OK) {
            id = other;
            st = BASALT_OK;
        }
    }
    if (st != BASALT_OK)
        return st;
    size_t used = 0;
    st = basalt_thrift_decode_page_header(plain, n, &scratch->arena, limits, h, &used, err);
    if (st != BASALT_OK)
        return st;
    bool dict = h->type == BASALT_PARQUET_PAGE_TYPE_DICTIONARY_PAGE;
    if (dict != (id.type == BASALT_PARQUET_MODULE_DICTIONARY_PAGE_HEADER))
        return basalt_error_set(err, BASALT_CORRUPT, "a %s page header encrypted as a %s",
                                dict ? "dictionary" : "data",
                                basalt_parquet_module_name(id.type));
    *module_len = mlen;
    return BASALT_OK;
}

/* Checks the CRC of an encrypted page body (over its bytes as stored,
 * `stored` of them) and decrypts it onto the end of the scratch's DECRYPTED
 * buffer, pointing `page` there. The first `clear` bytes are a DATA_PAGE_V2
 * page's levels left in plaintext before the module (parquet-java's
 * layout): they are copied. */
static basalt_status decrypt_body(const struct basalt_parquet_chunk_source *src,
                                  const struct basalt_parquet_column_options *options,
                                  struct basalt_parquet_scratch *scratch, size_t pos,
                                  size_t stored, size_t clear, int32_t page_ordinal,
                                  struct basalt_parquet_page *page, struct basalt_error *err)
{
    const uint8_t *at = src->data + pos;
    if (options->verify_crc && page->has_crc) {
        uint32_t crc = basalt_hash_crc32(0, at, stored);
        if (crc != page->crc)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "CRC mismatch: the header says %08" PRIx32
                                    ", the page has %08" PRIx32,
                                    page->crc, crc);
        scratch->stats.crc_checked++;
    }
    page->has_crc = false;
    struct basalt_parquet_module_id id = {page->type == BASALT_PARQUET_PAGE_TYPE_DICTIONARY_PAGE
                                              ? BASALT_PARQUET_MODULE_DICTIONARY_PAGE
                                              : BASALT_PARQUET_MODULE_DATA_PAGE,
                                          src->row_group_ordinal, src->column_ordinal,
                                          page_ordinal};
    struct basalt_buffer *b = &scratch->buffers[BASALT_PARQUET_SCRATCH_DECRYPTED];
    size_t n = (size_t)page->compressed_size;
    if (b->capacity - b->size < n + 1) {
        size_t cap = b->capacity;
        basalt_status st = basalt_buffer_reserve(b, n + 1, err);
        if (st != BASALT_OK)
            return st;
        if (b->capacity != cap)
            scratch->stats.scratch_grows++;
    }
    if (clear)
        memcpy(b->data + b->size, at, clear);
    basalt_status st = basalt_parquet_crypto_decrypt(src->cipher, &id, at + clear, stored - clear,
                                                     b->data + b->size + clear, &n, NULL, err);
    if (st != BASALT_OK)
        return st;
    page->body = b->size;
    page->decrypted = true;
    b->size += clear + n;
    return BASALT_OK;
}

/* The plaintext size of an encrypted page whose header says it takes
 * h->compressed_page_size bytes at `pos`: one module (Arrow C++ and Rust,
 * and every page but parquet-java's DATA_PAGE_V2), or a DATA_PAGE_V2 page's
 * levels in plaintext then a module of its values (parquet-java). *clear is
 * the plaintext prefix, *plain_size what the page decrypts to. */
static basalt_status encrypted_body_size(const struct basalt_parquet_chunk_source *src,
                                         const struct basalt_parquet_page_header *h, size_t pos,
                                         size_t *clear, int32_t *plain_size, size_t *on_disk,
                                         struct basalt_error *err)
{
    int type = h->type == BASALT_PARQUET_PAGE_TYPE_DICTIONARY_PAGE
                   ? BASALT_PARQUET_MODULE_DICTIONARY_PAGE
                   : BASALT_PARQUET_MODULE_DATA_PAGE;
    size_t stored = (size_t)h->compressed_page_size;
    const uint8_t *at = src->data + pos;
    size_t mlen = 0, plain = 0;
    *clear = 0;
    *on_disk = stored;
    basalt_status st = basalt_parquet_crypto_module_size(src->cipher, type, at, stored, &mlen,
                                                         &plain, NULL);
    if (st == BASALT_OK && mlen == stored) {
        *plain_size = (int32_t)plain;
        return BASALT_OK;
    }
    /* DuckDB's files (no AAD) give the plaintext's size in the header. */
    if (src->cipher->bare &&
        basalt_parquet_crypto_module_size(src->cipher, type, at, src->len - pos, &mlen, &plain,
                                          NULL) == BASALT_OK &&
        plain == stored) {
        *plain_size = (int32_t)plain;
        *on_disk = mlen;
        return BASALT_OK;
    }
    if (h->type == BASALT_PARQUET_PAGE_TYPE_DATA_PAGE_V2 && h->has_data_page_header_v2) {
        int64_t levels = (int64_t)h->data_page_header_v2.definition_levels_byte_length +
                         h->data_page_header_v2.repetition_levels_byte_length;
        if (h->data_page_header_v2.definition_levels_byte_length >= 0 &&
            h->data_page_header_v2.repetition_levels_byte_length >= 0 &&
            (uint64_t)levels < stored &&
            basalt_parquet_crypto_module_size(src->cipher, type, at + levels,
                                              stored - (size_t)levels, &mlen, &plain,
                                              NULL) == BASALT_OK &&
            mlen == stored - (size_t)levels) {
            *clear = (size_t)levels;
            *plain_size = (int32_t)((size_t)levels + plain);
            return BASALT_OK;
        }
    }
    return basalt_error_set(err, BASALT_CORRUPT,
                            "the header says %" PRId32 " bytes, which hold no encrypted page",
                            h->compressed_page_size);
}

basalt_status basalt_parquet_page_scan(const struct basalt_parquet_chunk_source *src,
                                       const struct basalt_parquet_column_options *options,
                                       struct basalt_parquet_scratch *scratch,
                                       struct basalt_parquet_page_table *table,
                                       struct basalt_error *err)
{
    memset(table, 0, sizeof *table);
    table->dictionary = -1;
    table->all_dictionary = true;
    basalt_parquet_scratch_trim(scratch);
    scratch->buffers[BASALT_PARQUET_SCRATCH_PAGES].size = 0;
    scratch->buffers[BASALT_PARQUET_SCRATCH_DECRYPTED].size = 0;

    struct basalt_thrift_limits limits;
    basalt_thrift_limits_init(&limits);
    limits.max_memory = PAGE_HEADER_MAX_MEMORY;

    const int64_t want = src->meta->num_values;
    if (want < 0)
        return basalt_error_set(err, BASALT_CORRUPT, "negative num_values %" PRId64 " in the chunk",
                                want);
    const struct basalt_parquet_page_selection *sel = src->pages;
    size_t pos = 0;
    int64_t seen = 0;
    int32_t data_index = 0;
    int32_t ordinal = 0;
    while (pos < src->len && (sel ? data_index < sel->n_pages : seen < want)) {
        if (ordinal == INT32_MAX)
            return basalt_error_set(err, BASALT_LIMIT, "more than %d pages", INT32_MAX);
        if (sel && sel->page_offsets && !sel->selected[data_index] &&
            sel->page_offsets[data_index] == src->file_offset + (int64_t)pos) {
            /* A page left out: its bytes may not even have been fetched, so
             * the offset index, not its header, says where the next begins. */
            int64_t next = data_index + 1 < sel->n_pages
                               ? sel->page_offsets[data_index + 1] - src->file_offset
                               : (int64_t)src->len;
            if (next <= (int64_t)pos || next > (int64_t)src->len)
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "page %" PRId32 ": the offset index places the next page "
                                        "at %" PRId64 ", outside the chunk",
                                        ordinal, next + src->file_offset);
            pos = (size_t)next;
            data_index++;
            ordinal++;
            scratch->stats.pages_skipped++;
            continue;
        }
        struct basalt_parquet_page_header h;
        size_t hlen = 0;
        /* Data pages count from 0 in the module AADs. */
        const int32_t page_ordinal = data_index;
        basalt_status st;
        if (src->cipher)
            st = decrypt_header(src, scratch, &limits, pos, page_ordinal,
                                data_index == 0 && table->dictionary < 0, &h, &hlen, err);
        else
            st = basalt_thrift_decode_page_header(src->data + pos, src->len - pos,
                                                  &scratch->arena, &limits, &h, &hlen, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "page %" PRId32 ": header", ordinal);
        struct basalt_parquet_page page;
        memset(&page, 0, sizeof page);
        page.ordinal = ordinal;
        page.type = h.type;
        page.body = pos + hlen;
        page.compressed_size = h.compressed_page_size;
        page.uncompressed_size = h.uncompressed_page_size;
        page.has_crc = h.has_crc;
        page.crc = (uint32_t)h.crc;
        if (h.compressed_page_size < 0 || h.uncompressed_page_size < 0)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "page %" PRId32 ": negative size (compressed %" PRId32
                                    ", uncompressed %" PRId32 ")",
                                    ordinal, h.compressed_page_size, h.uncompressed_page_size);
        if ((size_t)h.compressed_page_size > src->len - page.body)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "page %" PRId32 ": %" PRId32
                                    " bytes run past the end of the chunk (%zu bytes left)",
                                    ordinal, h.compressed_page_size, src->len - page.body);
        if (h.compressed_page_size > options->max_page_size ||
            h.uncompressed_page_size > options->max_page_size)
            return basalt_error_set(err, BASALT_LIMIT,
                                    "page %" PRId32 ": %" PRId32 " bytes (%" PRId32
                                    " uncompressed) exceed the page size limit of %" PRId64,
                                    ordinal, h.compressed_page_size, h.uncompressed_page_size,
                                    options->max_page_size);
        /* Where the next page starts: past the body as stored. */
        const size_t body_pos = page.body;
        size_t stored = (size_t)h.compressed_page_size;
        size_t clear = 0;
        if (src->cipher) {
            st = encrypted_body_size(src, &h, body_pos, &clear, &page.compressed_size, &stored,
                                     err);
            if (st != BASALT_OK)
                return basalt_error_context(err, st, "page %" PRId32, ordinal);
        }
        const size_t next = body_pos + stored;
        bool keep = true;
        switch (h.type) {
        case BASALT_PARQUET_PAGE_TYPE_DICTIONARY_PAGE:
            if (!h.has_dictionary_page_header)
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "page %" PRId32
                                        ": DICTIONARY_PAGE without a dictionary_page_header",
                                        ordinal);
            if (table->dictionary >= 0)
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "page %" PRId32 ": a second dictionary page", ordinal);
            if (data_index > 0)
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "page %" PRId32 ": dictionary page after data pages",
                                        ordinal);
            if (h.dictionary_page_header.num_values < 0)
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "page %" PRId32 ": negative dictionary size %" PRId32,
                                        ordinal, h.dictionary_page_header.num_values);
            page.num_values = h.dictionary_page_header.num_values;
            page.encoding = h.dictionary_page_header.encoding;
            table->dictionary = (int32_t)(scratch->buffers[BASALT_PARQUET_SCRATCH_PAGES].size /
                                          sizeof page);
            break;
        case BASALT_PARQUET_PAGE_TYPE_DATA_PAGE:
        case BASALT_PARQUET_PAGE_TYPE_DATA_PAGE_V2:
            st = data_page_header(&h, &page, err);
            if (st != BASALT_OK)
                return basalt_error_context(err, st, "page %" PRId32, ordinal);
            page.selected = true;
            if (sel) {
                if (data_index >= sel->n_pages)
                    return basalt_error_set(err, BASALT_CORRUPT,
                                            "page %" PRId32 ": data page %" PRId32
                                            " is not in the offset index (%" PRId32 " pages)",
                                            ordinal, data_index, sel->n_pages);
                if (sel->page_offsets &&
                    sel->page_offsets[data_index] != src->file_offset + (int64_t)pos)
                    return basalt_error_set(err, BASALT_CORRUPT,
                                            "page %" PRId32 ": at file offset %" PRId64
                                            ", the offset index says %" PRId64,
                                            ordinal, src->file_offset + (int64_t)pos,
                                            sel->page_offsets[data_index]);
                page.selected = sel->selected[data_index] != 0;
            }
            if (page.num_values > 0 && is_dictionary_encoding(page.encoding) &&
                table->dictionary < 0)
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "page %" PRId32
                                        ": dictionary-encoded data page without a dictionary page",
                                        ordinal);
            seen += page.num_values;
            data_index++;
            if (page.selected) {
                page.first_level = table->n_levels;
                table->n_levels += page.num_values;
                if (table->n_levels > options->max_values)
                    return basalt_error_set(err, BASALT_LIMIT,
                                            "page %" PRId32 ": the chunk holds more than %" PRId64
                                            " values",
                                            ordinal, options->max_values);
                table->data_bytes += page.uncompressed_size;
                if (page.num_values > 0 && !is_dictionary_encoding(page.encoding))
                    table->all_dictionary = false;
            } else {
                scratch->stats.pages_skipped++;
            }
            break;
        default:
            /* Index pages and page types from later versions carry nothing
             * the decoder needs: step over them. */
            keep = false;
            break;
        }
        if (keep && src->cipher &&
            (page.type == BASALT_PARQUET_PAGE_TYPE_DICTIONARY_PAGE || page.selected)) {
            st = decrypt_body(src, options, scratch, body_pos, stored, clear, page_ordinal,
                              &page, err);
            if (st != BASALT_OK)
                return basalt_error_context(err, st, "page %" PRId32, ordinal);
        }
        if (keep) {
            st = page_append(scratch, &page, err);
            if (st != BASALT_OK)
                return st;
        }
        pos = next;
        ordinal++;
    }
    if (!sel && seen < want)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "the chunk ends after %" PRId64 " of its %" PRId64 " values", seen,
                                want);
    table->pages = (struct basalt_parquet_page *)(void *)scratch->buffers[BASALT_PARQUET_SCRATCH_PAGES].data;
    table->n_pages =
        (int32_t)(scratch->buffers[BASALT_PARQUET_SCRATCH_PAGES].size / sizeof *table->pages);
    return BASALT_OK;
}

static basalt_status decompress(struct basalt_parquet_scratch *scratch, struct basalt_codec *codec,
                                const uint8_t *in, size_t in_len, size_t out_len,
                                const uint8_t **out, struct basalt_error *err)
{
    static const uint8_t empty[1];
    if (out_len == 0) {
        /* Nothing to produce (an empty page): some writers store no bytes at
         * all, which no codec accepts as a stream. */
        *out = empty;
        return BASALT_OK;
    }
    uint8_t *dst;
    basalt_status st =
        basalt_parquet_scratch_reserve(scratch, BASALT_PARQUET_SCRATCH_PAGE, out_len, &dst, err);
    if (st != BASALT_OK)
        return st;
    size_t got = 0;
    st = basalt_codec_decompress(codec, in, in_len, dst, out_len, &got, err);
    if (st == BASALT_LIMIT)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "decompresses to more than the %zu bytes the header says",
                                out_len);
    if (st != BASALT_OK)
        return st;
    if (got != out_len)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "decompresses to %zu bytes, the header says %zu", got, out_len);
    *out = dst;
    scratch->stats.pages_decompressed++;
    return BASALT_OK;
}

basalt_status basalt_parquet_page_load(const struct basalt_parquet_chunk_source *src,
                                       const struct basalt_parquet_column_options *options,
                                       struct basalt_parquet_scratch *scratch,
                                       const struct basalt_parquet_page *page,
                                       struct basalt_parquet_page_data *out,
                                       struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    const uint8_t *body =
        page->decrypted
            ? scratch->buffers[BASALT_PARQUET_SCRATCH_DECRYPTED].data + page->body
            : basalt_parquet_nonnull(src->data) + page->body;
    size_t clen = (size_t)page->compressed_size;
    if (options->verify_crc && page->has_crc) {
        uint32_t crc = basalt_hash_crc32(0, body, clen);
        if (crc != page->crc)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "CRC mismatch: the header says %08" PRIx32
                                    ", the page has %08" PRIx32,
                                    page->crc, crc);
        scratch->stats.crc_checked++;
    }
    struct basalt_codec *codec;
    basalt_status st = basalt_parquet_scratch_codec(scratch, src->meta->codec, &codec, err);
    if (st != BASALT_OK)
        return st;
    if (page->type == BASALT_PARQUET_PAGE_TYPE_DATA_PAGE_V2) {
        size_t rep = (size_t)page->rep_bytes, def = (size_t)page->def_bytes;
        out->rep = body;
        out->rep_len = rep;
        out->def = body + rep;
        out->def_len = def;
        const uint8_t *values = body + rep + def;
        size_t vlen = clen - rep - def;
        size_t vout = (size_t)page->uncompressed_size - rep - def;
        /* An uncompressed section is as long as it says it is; sizes that
         * differ can only mean it was compressed after all (ARROW-17100). */
        bool compressed = codec && (page->is_compressed || options->v2_always_compressed ||
                                    vlen != vout);
        if (!compressed) {
            out->data = values;
            out->len = vlen;
            scratch->stats.pages_in_place++;
            return BASALT_OK;
        }
        out->len = vout;
        return decompress(scratch, codec, values, vlen, vout, &out->data, err);
    }
    if (!codec) {
        out->data = body;
        out->len = clen;
        scratch->stats.pages_in_place++;
        return BASALT_OK;
    }
    out->len = (size_t)page->uncompressed_size;
    return decompress(scratch, codec, body, clen, out->len, &out->data, err);
}
