/* Where a store's credentials and endpoints come from: the options first,
 * then (unless the options say not to) the standard environment variables
 * and the AWS shared files. */
#ifndef BASALT_IO_STORE_CREDENTIALS_H
#define BASALT_IO_STORE_CREDENTIALS_H

#include "store/store.h"

/* Fills store->s3, gcs, gcs_bearer and azure (owned copies). INVALID_ARG,
 * CORRUPT (a malformed shared file or connection string), NOMEM. */
basalt_status basalt_io_store_resolve_credentials(struct basalt_io_store *store,
                                                  const struct basalt_io_options *options,
                                                  struct basalt_error *err);
/* Wipes and frees what resolve stored. */
void basalt_io_store_forget_credentials(struct basalt_io_store *store);

#endif
