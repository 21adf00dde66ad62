/* Fuzz target for the JSON-lines reader: inference and parsing of arbitrary
 * bytes, with the options picked by the first input byte (a small sample so
 * later records meet types they do not fit, a low depth limit, a small
 * record limit, explicit columns). Garbage may only give CORRUPT, LIMIT,
 * UNSUPPORTED or NOMEM; every batch must validate; the rows and the status
 * must not depend on the chunk size (one chunk against 5-byte chunks);
 * nothing may leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_status(basalt_status st)
{
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_LIMIT && st != BASALT_NOMEM &&
        st != BASALT_UNSUPPORTED)
        abort();
}

static void read_all(const uint8_t *data, size_t size, const struct basalt_json_read_options *o,
                     int64_t *rows, basalt_status *status)
{
    struct basalt_json_reader *r = NULL;
    *rows = 0;
    basalt_status st = basalt_json_reader_open_memory(data, size, "fuzz.json", o, &r, NULL);
    struct ArrowSchema s;
    memset(&s, 0, sizeof s);
    if (st == BASALT_OK)
        st = basalt_json_reader_schema(r, &s, NULL);
    while (st == BASALT_OK) {
        struct ArrowArray a;
        st = basalt_json_reader_next(r, &a, NULL);
        if (st != BASALT_OK || !a.release)
            break;
        if (basalt_arrow_array_validate(&s, &a, BASALT_ARROW_VALIDATE_FULL, NULL) != BASALT_OK)
            abort();
        *rows += a.length;
        basalt_arrow_array_release(&a);
    }
    basalt_arrow_schema_release(&s);
    basalt_json_reader_close(r);
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
    struct basalt_json_read_options o;
    basalt_json_read_options_init(&o);
    if (flags & 1)
        o.sample_rows = 1;
    if (flags & 2)
        o.max_depth = 3;
    if (flags & 4)
        o.max_record_size = 64;
    const char *names[] = {"a", "b", "c"};
    const char *types[] = {"BIGINT", "STRUCT(x DOUBLE, y VARCHAR[])", "TIMESTAMP"};
    if (flags & 8) {
        o.names = names;
        o.types = types;
        o.n_columns = 3;
    }
    o.batch_size = 3;
    int64_t rows_one, rows_small;
    basalt_status st_one, st_small;
    o.chunk_size = 1 << 30;
    read_all(data, size, &o, &rows_one, &st_one);
    o.chunk_size = 5;
    read_all(data, size, &o, &rows_small, &st_small);
    if (st_one != st_small || (st_one == BASALT_OK && rows_one != rows_small))
        abort();
    return 0;
}
