/* Reading the small XML documents of object-store APIs (listings, errors,
 * multipart results) on expat: each element's text is handed over with its
 * path from the root, e.g. "ListBucketResult/Contents/Key". */
#ifndef BASALT_IO_XML_H
#define BASALT_IO_XML_H

#include "basalt/core.h"

/* Called for every element that holds text (leaf or not) when it closes,
 * and with text NULL when an element opens ("ListBucketResult/Contents"), so
 * callers can start a record. A non-OK return stops the scan. */
typedef basalt_status (*basalt_xml_visit_fn)(void *ctx, const char *path, const char *text,
                                             size_t text_len, struct basalt_error *err);

/* CORRUPT (with `what` and the line) for XML that does not parse; LIMIT for
 * nesting deeper than 16 or a path over 256 bytes. */
basalt_status basalt_xml_scan(const char *xml, size_t len, const char *what,
                              basalt_xml_visit_fn visit, void *ctx, struct basalt_error *err);

/* Appends `text` to `buf` with &, <, >, " escaped. */
basalt_status basalt_xml_escape_append(struct basalt_buffer *buf, const char *text,
                                       struct basalt_error *err);

#endif
