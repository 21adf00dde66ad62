/* Fuzz target for the pushed-message reader, what a Flight client or
 * server decodes FlightData with: the input is split at 0xFFFFFFFF
 * continuation markers into (length, metadata, body) messages, the bytes
 * between one message's metadata and the next marker taken as its body, and
 * the messages are pushed one at a time. Only OK, CORRUPT, UNSUPPORTED,
 * LIMIT and NOMEM may come back, and accepted batches must validate. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/ipc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t next_marker(const uint8_t *data, size_t size, size_t from)
{
    for (size_t i = from; i + 4 <= size; i++)
        if (data[i] == 0xFF && data[i + 1] == 0xFF && data[i + 2] == 0xFF && data[i + 3] == 0xFF)
            return i;
    return size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct basalt_ipc_read_options o;
    basalt_ipc_read_options_init(&o);
    o.max_body_size = 1 << 24;
    struct basalt_ipc_reader *r;
    if (basalt_ipc_reader_new_messages("fuzz", &o, &r, NULL) != BASALT_OK)
        return 0;
    struct ArrowSchema schema;
    schema.release = NULL;
    size_t at = next_marker(data, size, 0);
    while (at + 8 <= size) {
        uint32_t len;
        memcpy(&len, data + at + 4, 4);
        size_t meta = at + 8;
        if (len > size - meta)
            break;
        size_t body = meta + len;
        size_t end = next_marker(data, size, body);
        /* The body is copied: the reader keeps it (free_body) past the call. */
        uint8_t *copy = malloc(end - body + 1);
        if (!copy)
            break;
        memcpy(copy, data + body, end - body);
        struct ArrowArray out;
        basalt_status st = basalt_ipc_reader_push_message(r, data + meta, len, copy, end - body,
                                                          free, copy, &out, NULL);
        if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_UNSUPPORTED &&
            st != BASALT_LIMIT && st != BASALT_NOMEM)
            abort();
        if (st == BASALT_OK && !schema.release &&
            basalt_ipc_reader_schema(r, &schema, NULL) != BASALT_OK)
            schema.release = NULL;
        if (out.release) {
            st = basalt_arrow_array_validate(&schema, &out, BASALT_ARROW_VALIDATE_DEFAULT, NULL);
            if (st != BASALT_OK && st != BASALT_UNSUPPORTED)
                abort();
            basalt_arrow_array_release(&out);
        }
        if (st != BASALT_OK)
            break;
        at = end;
    }
    if (schema.release)
        basalt_arrow_schema_release(&schema);
    basalt_ipc_reader_close(r);
    return 0;
}
