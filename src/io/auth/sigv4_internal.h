/* The canonical pieces of a SigV4 request, shared by the signer (sigv4.c) and
 * its SigV4a variant. Internal to the io module. */
#ifndef BASALT_IO_AUTH_SIGV4_INTERNAL_H
#define BASALT_IO_AUTH_SIGV4_INTERNAL_H

#include "auth/sigv4.h"

/* Appends the canonical URI of `path` (NULL or "" is "/") per `flags`
 * (BASALT_SIGV4_NORMALIZE_PATH, BASALT_SIGV4_ENCODE_PATH). */
basalt_status basalt_sigv4_canonical_path(struct basalt_buffer *out, const char *path,
                                          unsigned flags, struct basalt_error *err);

/* Appends the canonical query of `query` (raw, without '?') plus `extra`
 * parameters (raw names and values, encoded here): each name and value
 * percent-decoded, re-encoded, sorted by name then value, joined with '&'.
 * A request parameter whose name matches an extra one (ignoring case) is
 * INVALID_ARG: the signer adds those itself; so is X-Amz-Signature when there
 * are extras (presigning), since it would end up signed. */
basalt_status basalt_sigv4_canonical_query(struct basalt_buffer *out, const char *query,
                                           const struct basalt_sigv4_header *extra,
                                           size_t extra_count, struct basalt_error *err);

/* Appends the canonical header block ("name:value\n" per distinct name) to
 * `block` and the signed-header list ("a;b;c") to `signed_names`. Names are
 * lower-cased and sorted; values trimmed, inner whitespace runs collapsed to
 * one space, and repeated names joined with ',' in their order. INVALID_ARG for
 * an empty or malformed name. */
basalt_status basalt_sigv4_canonical_headers(struct basalt_buffer *block,
                                             struct basalt_buffer *signed_names,
                                             const struct basalt_sigv4_header *headers,
                                             size_t count, struct basalt_error *err);

/* Appends a NUL-terminated string. */
basalt_status basalt_sigv4_append(struct basalt_buffer *out, const char *s,
                                  struct basalt_error *err);

/* Overwrites `len` bytes in a way the compiler may not drop, for secrets. */
void basalt_sigv4_wipe(void *p, size_t len);

/* ASCII case-insensitive string equality. */
bool basalt_sigv4_name_equal(const char *a, const char *b);

#endif
