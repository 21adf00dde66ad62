/* Fuzz target for the Arrow IPC schema decoder. Every input is read three
 * ways: as an encapsulated message (continuation, length, flatbuffer), as a
 * bare flatbuffer Message, and as base64 text. Only OK, CORRUPT, UNSUPPORTED,
 * LIMIT and NOMEM may come back; a decoded schema must validate, and
 * re-encoding it must be stable: decode(encode(s)) encodes to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/arrow.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_status(basalt_status st)
{
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_UNSUPPORTED &&
        st != BASALT_LIMIT && st != BASALT_NOMEM)
        abort();
}

static void round_trip(struct ArrowSchema *schema)
{
    if (basalt_arrow_schema_validate(schema, NULL) != BASALT_OK)
        abort();
    struct basalt_buffer first, second;
    basalt_buffer_init(&first);
    basalt_buffer_init(&second);
    basalt_status st = basalt_arrow_ipc_schema_encode(schema, &first, NULL);
    if (st == BASALT_OK) {
        struct ArrowSchema again;
        st = basalt_arrow_ipc_schema_decode(first.data, first.size, &again, NULL, NULL);
        if (st != BASALT_OK && st != BASALT_NOMEM)
            abort();
        if (st == BASALT_OK) {
            if (basalt_arrow_ipc_schema_encode(&again, &second, NULL) == BASALT_OK &&
                (second.size != first.size || memcmp(first.data, second.data, first.size) != 0))
                abort();
            basalt_arrow_schema_release(&again);
        }
    } else if (st != BASALT_NOMEM && st != BASALT_LIMIT) {
        abort();
    }
    basalt_buffer_reset(&first);
    basalt_buffer_reset(&second);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ArrowSchema schema;
    struct basalt_arrow_ipc_schema_info info;
    basalt_status st = basalt_arrow_ipc_schema_decode(data, size, &schema, &info, NULL);
    check_status(st);
    if (st == BASALT_OK) {
        round_trip(&schema);
        basalt_arrow_schema_release(&schema);
    } else if (schema.release) {
        abort();
    }
    st = basalt_arrow_ipc_schema_decode_message(data, size, &schema, NULL, NULL);
    check_status(st);
    if (st == BASALT_OK) {
        round_trip(&schema);
        basalt_arrow_schema_release(&schema);
    }
    st = basalt_arrow_ipc_schema_decode_base64((const char *)data, size, &schema, NULL, NULL);
    check_status(st);
    if (st == BASALT_OK) {
        round_trip(&schema);
        basalt_arrow_schema_release(&schema);
    }
    return 0;
}
