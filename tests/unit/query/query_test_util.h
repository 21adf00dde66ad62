/* Helpers for the query tests: a batch from format strings and text cells,
 * and one result cell rendered as text ("NULL" for nulls). */
#ifndef QUERY_TEST_UTIL_H
#define QUERY_TEST_UTIL_H

#include "basalt/query.h"

/* Reads row i of `a` (an output of type t) into v (strings are views). */
void qt_value(const struct ArrowArray *a, struct basalt_query_type t, int64_t i,
              struct basalt_query_value *v);
/* Renders row i as basalt_query_value_format does (doubles with %.17g). */
const char *qt_cell(const struct ArrowArray *a, struct basalt_query_type t, int64_t i,
                    char *buf, size_t cap);

#endif
