/* Telling a remote input what the next window of row groups will read, so
 * its bytes come down (coalesced, concurrently) while this window decodes. */
#include <string.h>

#include "parquet_column.h"
#include "parquet_reader.h"

/* The byte ranges decode_chunk reads for one plan: whole chunks, or with
 * page pruning the chunk's head (dictionary page) and its selected pages. */
static basalt_status plan_ranges(const struct basalt_parquet_scan *scan,
                                 const struct basalt_parquet_rg_plan *plan,
                                 struct basalt_buffer *out, struct basalt_error *err)
{
    const struct basalt_parquet_reader *r = scan->reader;
    for (int32_t d = 0; d < scan->n_decode; d++) {
        int32_t leaf = scan->decode_leaves[d];
        uint64_t off = 0, len = 0;
        basalt_status st = basalt_parquet_reader_chunk_range(r, plan->row_group, leaf, &off, &len,
                                                             err);
        if (st != BASALT_OK)
            return st;
        const struct basalt_parquet_page_selection *sel =
            plan->pages && plan->pages[leaf].selected ? &plan->pages[leaf] : NULL;
        if (!sel || !sel->page_offsets) {
            struct basalt_io_range g = {off, len, NULL};
            if ((st = basalt_buffer_append(out, &g, sizeof g, err)) != BASALT_OK)
                return st;
            continue;
        }
        uint64_t first = sel->n_pages > 0 ? (uint64_t)sel->page_offsets[0] : off + len;
        if (first > off) {
            struct basalt_io_range g = {off, first - off, NULL};
            if ((st = basalt_buffer_append(out, &g, sizeof g, err)) != BASALT_OK)
                return st;
        }
        for (int32_t k = 0; k < sel->n_pages; k++) {
            if (!sel->selected[k])
                continue;
            uint64_t b = (uint64_t)sel->page_offsets[k];
            uint64_t e = k + 1 == sel->n_pages ? off + len : (uint64_t)sel->page_offsets[k + 1];
            if (e > off + len)
                e = off + len;
            if (e <= b)
                continue;
            struct basalt_io_range g = {b, e - b, NULL};
            if ((st = basalt_buffer_append(out, &g, sizeof g, err)) != BASALT_OK)
                return st;
        }
    }
    return BASALT_OK;
}

bool basalt_parquet_scan_prefetches(const struct basalt_parquet_scan *scan)
{
    const struct basalt_parquet_reader *r = scan->reader;
    return !r->view && r->input->ops->prefetch != NULL;
}

void basalt_parquet_scan_prefetch(struct basalt_parquet_scan *scan,
                                  const struct basalt_parquet_rg_plan *plans, int32_t n)
{
    struct basalt_buffer ranges, need;
    basalt_buffer_init(&ranges);
    basalt_buffer_init(&need);
    basalt_status st = BASALT_OK;
    for (int32_t i = 0; i < n && st == BASALT_OK; i++) {
        st = plan_ranges(scan, &plans[i], &ranges, NULL);
        /* The plans come in the order they decode: one rank per row group,
         * so its chunks land together and before the next group's. */
        uint32_t rank = (uint32_t)i;
        size_t n_ranges = ranges.size / sizeof(struct basalt_io_range);
        while (st == BASALT_OK && need.size / sizeof rank < n_ranges)
            st = basalt_buffer_append(&need, &rank, sizeof rank, NULL);
    }
    /* A range that cannot be computed is read, and reported, by the decode. */
    if (st == BASALT_OK && ranges.size > 0)
        basalt_input_prefetch_in_order(scan->reader->input,
                                       (const struct basalt_io_range *)ranges.data,
                                       (const uint32_t *)need.data,
                                       ranges.size / sizeof(struct basalt_io_range));
    basalt_buffer_reset(&ranges);
    basalt_buffer_reset(&need);
}
