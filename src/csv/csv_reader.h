/* The reader's state, shared by reader.c and sniff.c. */
#ifndef BASALT_CSV_READER_H
#define BASALT_CSV_READER_H

#include "csv_internal.h"

struct basalt_csv_reader {
    struct basalt_input *in;      /* owned when own_input */
    bool own_input;
    uint8_t *owned;               /* the bytes, when the input had no view */
    const uint8_t *data;
    size_t size;
    char *name;

    struct basalt_csv_dialect dialect;
    struct csv_parse_config cfg;
    struct csv_column *columns;
    int32_t n_columns;
    uint8_t **nulls;
    size_t *null_lens;

    size_t header_begin;          /* offset of the first record (header or not) */
    size_t data_begin;            /* offset of the first data record */

    /* Chunks: nominal offsets data_begin + k * chunk_size. */
    size_t chunk_size;
    int64_t n_chunks;
    int64_t next_chunk;           /* first chunk not parsed yet */
    size_t next_start;            /* its actual start */
    bool next_parity;             /* quote parity at its nominal offset */
    bool serial_split;            /* starts from a serial scan (backslash, comments) */
    int64_t next_line;            /* 1-based line of next_start */

    /* The parsed window, handed out in order. */
    struct csv_chunk_result *results;
    size_t *starts;               /* window starts, n_results + 1 */
    uint64_t *quotes;
    int64_t n_results, window_cap;
    int64_t result_pos, batch_pos;
    int64_t result_line;          /* line of results[result_pos]'s start */

    struct basalt_pool *pool;
    int max_workers;
    int workers;                  /* workers a window is parsed on */

    basalt_status failed;
    struct basalt_error failure;
    struct basalt_csv_stats stats;
};

void basalt_csv_sniff_dialect(const struct basalt_csv_read_options *o, const uint8_t *p,
                       const uint8_t *end, uint8_t *delim, uint8_t *quote);
basalt_status basalt_csv_sniff_schema(struct basalt_csv_reader *r,
                                      const struct basalt_csv_read_options *o,
                               const uint8_t **pp, int64_t *line, struct basalt_error *err);

#endif
