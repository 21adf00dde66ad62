/* Fuzz target for the CSV reader: sniffing and parsing arbitrary bytes with
 * the options picked by the first input byte (delimiter and quote sniffed or
 * given, backslash escapes, comments, ragged filling, small chunks). Garbage
 * may only give CORRUPT, LIMIT or NOMEM; the rows must not depend on the
 * chunk size (one chunk against 7-byte chunks); nothing may leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_status(basalt_status st)
{
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_LIMIT && st != BASALT_NOMEM &&
        st != BASALT_NOT_FOUND)
        abort();
}

/* Reads everything; *rows and *status receive the outcome. */
static void read_all(const uint8_t *data, size_t size, const struct basalt_csv_read_options *o,
                     int64_t *rows, basalt_status *status)
{
    struct basalt_csv_reader *r = NULL;
    *rows = 0;
    basalt_status st = basalt_csv_reader_open_memory(data, size, "fuzz.csv", o, &r, NULL);
    while (st == BASALT_OK) {
        struct ArrowArray a;
        st = basalt_csv_reader_next(r, &a, NULL);
        if (st != BASALT_OK || !a.release)
            break;
        *rows += a.length;
        basalt_arrow_array_release(&a);
    }
    basalt_csv_reader_close(r);
    check_status(st);
    *status = st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    uint8_t flags = data[0];
    data++;
    size--;
    struct basalt_csv_read_options o;
    basalt_csv_read_options_init(&o);
    if (flags & 1)
        o.delimiter = ',';
    if (flags & 2)
        o.quote = '"';
    if (flags & 4)
        o.escape = BASALT_CSV_ESCAPE_BACKSLASH;
    if (flags & 8)
        o.comment = '#';
    if (flags & 16)
        o.fill_ragged = true;
    if (flags & 32)
        o.header = BASALT_CSV_HEADER_NO;
    if (flags & 64)
        o.sample_rows = 2;
    o.max_line_size = 1 << 16;
    o.batch_size = 3;
    int64_t rows_one, rows_small;
    basalt_status st_one, st_small;
    o.chunk_size = 1 << 30;
    read_all(data, size, &o, &rows_one, &st_one);
    o.chunk_size = 7;
    read_all(data, size, &o, &rows_small, &st_small);
    if (st_one != st_small || (st_one == BASALT_OK && rows_one != rows_small))
        abort();
    return 0;
}
