/* Base64 (RFC 4648, standard alphabet) for the object-store credentials that
 * travel in it: Azure account keys and Shared Key signatures. (Arrow's copy is
 * internal to its module, and the layering keeps modules' internals apart.) */
#ifndef BASALT_IO_AUTH_BASE64_H
#define BASALT_IO_AUTH_BASE64_H

#include "basalt/core.h"

/* Appends the padded encoding of data[0..len) to `out`. NOMEM or LIMIT. */
basalt_status basalt_io_base64_encode(const uint8_t *data, size_t len, struct basalt_buffer *out,
                                      struct basalt_error *err);

/* Appends the bytes `text[0..len)` encodes to `out`. Padding is optional but,
 * when present, must complete the last group. CORRUPT for any other
 * character or a dangling group; the message never quotes the text, which
 * is usually a key. NOMEM. */
basalt_status basalt_io_base64_decode(const char *text, size_t len, struct basalt_buffer *out,
                                      struct basalt_error *err);

#endif
