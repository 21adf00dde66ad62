/* A reader of the Arrow integration-test JSON format (the .json.gz files of
 * testdata/arrow-ipc/integration), written for these tests from the format's
 * description, independent of the library: it compares what a basalt IPC
 * reader returns with the JSON, field by field and value by value. */
#ifndef BASALT_TEST_IPC_JSON_H
#define BASALT_TEST_IPC_JSON_H

#include <jansson.h>

#include "basalt/ipc.h"

/* Loads X.json.gz. NULL on failure. */
json_t *ij_load(const char *path);

/* Compares everything `reader` yields (schema, then every batch in order)
 * with `doc`. Returns 0 when equal, else writes the first difference to
 * `why` and returns -1. */
int ij_compare_reader(struct basalt_ipc_reader *reader, json_t *doc, char *why, size_t why_len);

#endif
