/* basalt iceberg update --set 'col = expr' through the SQL engine. */
#ifndef BASALT_CLI_UPDATE_EXPRS_H
#define BASALT_CLI_UPDATE_EXPRS_H

#include <stdbool.h>
#include <stdint.h>

#include "basalt/arrow.h"
#include "basalt/core.h"

struct cli_set_exprs;

/* Whether the value of "col = value" is a plain literal of the filter
 * language (a number, a quoted string, true, false, NULL). */
bool cli_set_value_is_literal(const char *clause);
/* Parses the clauses; INVALID_ARG naming a malformed one. */
basalt_status cli_set_exprs_new(const char *const *set, uint32_t n, struct cli_set_exprs **out,
                                struct basalt_error *err);
void cli_set_exprs_free(struct cli_set_exprs *x);
/* basalt_iceberg_delete_options.set_rows with ctx the clauses. */
basalt_status cli_set_exprs_rows(void *ctx, const struct ArrowSchema *schema,
                                 struct ArrowArray *rows, struct basalt_error *err);

#endif
