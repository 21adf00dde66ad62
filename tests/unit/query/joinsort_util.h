/* Helpers for the join and sort tests: tables from text cells, slicing into
 * owned batches, and results rendered as text rows. */
#ifndef JOINSORT_UTIL_H
#define JOINSORT_UTIL_H

#include "basalt/query.h"

/* A struct table: `fmts` and `names` comma-separated (one per column), cells
 * row-major, "NULL" for a null ("nan", "-0", "inf" for doubles). */
basalt_status js_table(const char *fmts, const char *names, const char *const *cells, int rows,
                       struct ArrowSchema *schema, struct ArrowArray *array);
/* An owned copy of rows [begin, end) of a struct batch. */
basalt_status js_slice(const struct ArrowSchema *schema, const struct ArrowArray *a, int64_t begin,
                       int64_t end, struct ArrowArray *out);
/* Every row of the batches as "c1|c2|...\n" lines, in order (sorted when
 * `sort`); malloc'd. */
char *js_render(const struct basalt_arrow_batches *b, bool sort);
/* Rows of one batch rendered as lines appended to a malloc'd list. */
void js_render_rows(const struct ArrowSchema *schema, const struct ArrowArray *a, char ***lines,
                    int64_t *n);

#endif
