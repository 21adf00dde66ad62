/* Input files read as Arrow batches for the table-writing verbs: Parquet
 * (any file starting with PAR1), Avro Object Container Files, and CSV (a
 * name ending in .csv or .tsv, any case; dialect, header and types sniffed). */
#ifndef BASALT_CLI_BATCH_SOURCE_H
#define BASALT_CLI_BATCH_SOURCE_H

#include "basalt/arrow.h"
#include "basalt/core.h"

struct basalt_pool;
struct cli_batch_source;

/* Opens `uri` (a path or a URI read through the CLI's store). `pool` may be
 * NULL. NOT_FOUND, IO, CORRUPT, UNSUPPORTED (not Parquet, Avro or CSV), NOMEM. */
basalt_status cli_batch_source_open(const char *uri, struct basalt_pool *pool,
                                    struct cli_batch_source **out, struct basalt_error *err);
/* The same, reading a CSV file's columns as the types the columns of the
 * same name (exactly, else ignoring ASCII case) have in `want` (a "+s"
 * schema, borrowed during the call) where a CSV type fits them: a table's
 * types decide, not the sniffer. Other inputs ignore `want`. */
basalt_status cli_batch_source_open_as(const char *uri, struct basalt_pool *pool,
                                       const struct ArrowSchema *want,
                                       struct cli_batch_source **out, struct basalt_error *err);
/* The Arrow type of every batch (borrowed from the source). */
const struct ArrowSchema *cli_batch_source_schema(const struct cli_batch_source *s);
/* The next batch into `out` (caller storage, owned); out->release is NULL at
 * the end. */
basalt_status cli_batch_source_next(struct cli_batch_source *s, struct ArrowArray *out,
                                    struct basalt_error *err);
void cli_batch_source_close(struct cli_batch_source *s);

#endif
