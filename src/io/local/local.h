/* Local files under the store's URI operations: plain paths, file:///path
 * and Java's file:/path. */
#ifndef BASALT_IO_LOCAL_H
#define BASALT_IO_LOCAL_H

#include "basalt/io.h"

/* The path a local URI names (a pointer into `uri`). */
const char *basalt_local_path(const char *uri);

basalt_status basalt_local_open_input(const char *uri, struct basalt_input **out,
                                      struct basalt_error *err);
basalt_status basalt_local_open_output(const char *uri, unsigned flags, struct basalt_output **out,
                                       struct basalt_error *err);
basalt_status basalt_local_list(const char *uri_prefix, bool delimited, basalt_io_visit_fn visit,
                                void *ctx, struct basalt_error *err);
basalt_status basalt_local_stat(const char *uri, struct basalt_io_object_info *out,
                                struct basalt_error *err);
basalt_status basalt_local_delete(const char *const *uris, size_t count,
                                  struct basalt_error *err);

#endif
