/* Plain http:// and https:// objects, read with range requests. */
#ifndef BASALT_IO_WEB_H
#define BASALT_IO_WEB_H

#include "store/store.h"

basalt_status basalt_web_open_input(struct basalt_io_store *store, const char *uri, unsigned flags,
                                    struct basalt_input **out, struct basalt_error *err);
basalt_status basalt_web_stat(struct basalt_io_store *store, const char *uri,
                              struct basalt_io_object_info *out, struct basalt_error *err);

#endif
