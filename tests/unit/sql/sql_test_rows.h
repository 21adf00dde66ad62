/* Rows of a SQL statement as text, for tests that write their answers by
 * hand: EXPECT_SQL_ROWS(sql, "a|b;c|d;") and EXPECT_SQL_ERROR(sql, status, text)
 * over a session `s` in scope. */
#ifndef BASALT_SQL_TEST_ROWS_H
#define BASALT_SQL_TEST_ROWS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "basalt/sql.h"

/* Renders the rows as "a|b;c|d;": NULL as N, booleans as t and f,
 * integers as such, doubles with %.17g (%g when `short_doubles`), strings
 * as they are. */
static inline void sql_test_render(const struct basalt_arrow_batches *b, bool short_doubles,
                                   char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (int64_t k = 0; k < b->n; k++) {
        const struct ArrowArray *a = &b->arrays[k];
        for (int64_t r = 0; r < a->length; r++) {
            for (int64_t c = 0; c < a->n_children; c++) {
                const struct ArrowArray *col = a->children[c];
                const char *f = b->schema.children[c]->format;
                int64_t i = col->offset + r;
                const uint8_t *v = col->buffers[0];
                char cell[64];
                if (v && !((v[i >> 3] >> (i & 7)) & 1))
                    snprintf(cell, sizeof cell, "N");
                else if (strcmp(f, "b") == 0)
                    snprintf(cell, sizeof cell, "%s",
                             (((const uint8_t *)col->buffers[1])[i >> 3] >> (i & 7)) & 1 ? "t" : "f");
                else if (strcmp(f, "i") == 0)
                    snprintf(cell, sizeof cell, "%d", ((const int32_t *)col->buffers[1])[i]);
                else if (strcmp(f, "l") == 0)
                    snprintf(cell, sizeof cell, "%lld", (long long)((const int64_t *)col->buffers[1])[i]);
                else if (strcmp(f, "I") == 0)
                    snprintf(cell, sizeof cell, "%u", ((const uint32_t *)col->buffers[1])[i]);
                else if (strcmp(f, "g") == 0 && short_doubles)
                    snprintf(cell, sizeof cell, "%g", ((const double *)col->buffers[1])[i]);
                else if (strcmp(f, "g") == 0)
                    snprintf(cell, sizeof cell, "%.17g", ((const double *)col->buffers[1])[i]);
                else if (strcmp(f, "u") == 0) {
                    const int32_t *o = col->buffers[1];
                    snprintf(cell, sizeof cell, "%.*s", (int)(o[i + 1] - o[i]),
                             (const char *)col->buffers[2] + o[i]);
                } else
                    snprintf(cell, sizeof cell, "?%s", f);
                n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s", c ? "|" : "", cell);
            }
            n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, ";");
        }
    }
}

/* Runs `sql`; on success renders its rows (sql_test_render, %.17g). */
static inline basalt_status sql_test_rows(struct basalt_sql_session *s, const char *sql,
                                          char *out, size_t cap, struct basalt_error *err)
{
    struct basalt_arrow_batches b;
    basalt_arrow_batches_init(&b);
    basalt_status st = basalt_sql_session_run(s, sql, strlen(sql), &b, err);
    out[0] = '\0';
    if (st == BASALT_OK)
        sql_test_render(&b, false, out, cap);
    basalt_arrow_batches_reset(&b);
    return st;
}

#define EXPECT_SQL_ROWS(sql, want)                                                           \
    do {                                                                                 \
        char got_[2048];                                                                 \
        struct basalt_error e_;                                                          \
        basalt_error_init(&e_);                                                          \
        basalt_status s_ = sql_test_rows(s, sql, got_, sizeof got_, &e_);                \
        CHECK_MSG(s_ == BASALT_OK, "%s: %s", sql, e_.message);                           \
        CHECK_MSG(strcmp(got_, want) == 0, "%s\n  got  %s\n  want %s", sql, got_, want); \
    } while (0)

#define EXPECT_SQL_ERROR(sql, status, msg)                                                   \
    do {                                                                                 \
        char got_[256];                                                                  \
        struct basalt_error e_;                                                          \
        basalt_error_init(&e_);                                                          \
        CHECK_STATUS(sql_test_rows(s, sql, got_, sizeof got_, &e_), status, &e_);        \
        CHECK_MSG(strstr(e_.message, msg) != NULL, "%s: '%s' lacks '%s'", sql, e_.message, \
                  msg);                                                                  \
    } while (0)

#endif
