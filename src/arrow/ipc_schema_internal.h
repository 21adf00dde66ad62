/* Shared between the files of the Arrow IPC schema codec: base64 and the
 * flatbuffers helpers.
 *
 * The flatbuffers reader and builder are declared in basalt/arrow_fb.h. */
#ifndef BASALT_ARROW_IPC_SCHEMA_INTERNAL_H
#define BASALT_ARROW_IPC_SCHEMA_INTERNAL_H

#include <string.h>

#include "basalt/arrow.h"
#include "basalt/arrow_fb.h"

/* ------------------------------------------------------------ base64 */

/* RFC 4648 base64 with the standard alphabet. Decoding accepts input with or
 * without '=' padding and nothing else (CORRUPT names the offending offset);
 * the decoded bytes are appended to `out`. Encoding appends padded text
 * (no NUL). Both: NOMEM, LIMIT. */
basalt_status basalt_arrow_base64_decode(const char *text, size_t len, struct basalt_buffer *out,
                                         struct basalt_error *err);
basalt_status basalt_arrow_base64_encode(const uint8_t *data, size_t len,
                                         struct basalt_buffer *out, struct basalt_error *err);

#endif
