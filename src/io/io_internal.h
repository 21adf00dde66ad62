/* Internal helpers shared by the io backends. */
#ifndef BASALT_IO_INTERNAL_H
#define BASALT_IO_INTERNAL_H

#include "basalt/io.h"

/* Formats errno as an IO (or NOT_FOUND for ENOENT) error naming `what`. */
basalt_status basalt_io_errno(struct basalt_error *err, int errnum, const char *what,
                              const char *name);

/* A local file output; with `exclusive`, commit fails with CONFLICT when
 * `path` exists by then. */
basalt_status basalt_io_file_output_open(const char *path, bool exclusive,
                                         struct basalt_output **out, struct basalt_error *err);

#endif
