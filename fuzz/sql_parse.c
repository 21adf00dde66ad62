/* Fuzz target for the SQL parser: the input is parsed as a script (by
 * length; it need not end in NUL). Parsing may only return OK, INVALID_ARG,
 * UNSUPPORTED, LIMIT or NOMEM, and an error must carry a message. When it
 * parses, each statement's canonical text must report the same length
 * however it is asked for, and must parse back (LIMIT allowed: the text
 * adds parentheses) into a statement with the same canonical text. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/sql.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_status(basalt_status st, const struct basalt_error *err)
{
    if (st != BASALT_OK && st != BASALT_INVALID_ARG && st != BASALT_UNSUPPORTED && st != BASALT_LIMIT &&
        st != BASALT_NOMEM)
        abort();
    if (st != BASALT_OK && err->message[0] == '\0')
        abort();
}

/* Statement i's canonical text in a malloc'd buffer. */
static char *text_of(const struct basalt_sql_script *s, size_t i, size_t *len)
{
    size_t n = basalt_sql_statement_format(s, i, NULL, 0);
    char *buf = malloc(n + 1);
    if (!buf)
        return NULL;
    if (basalt_sql_statement_format(s, i, buf, n + 1) != n || strlen(buf) != n)
        abort();
    /* A short buffer gets a NUL-terminated prefix and the same length. */
    char small[7];
    if (basalt_sql_statement_format(s, i, small, sizeof(small)) != n ||
        strncmp(small, buf, strlen(small)) != 0)
        abort();
    *len = n;
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct basalt_sql_script *s = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = basalt_sql_parse((const char *)data, size, &s, &err);
    check_status(st, &err);
    if (st != BASALT_OK) {
        if (s)
            abort();
        return 0;
    }
    for (size_t i = 0; i < basalt_sql_script_count(s); i++) {
        size_t n;
        char *text = text_of(s, i, &n);
        if (!text)
            continue;
        struct basalt_sql_script *again = NULL;
        basalt_error_init(&err);
        st = basalt_sql_parse(text, n, &again, &err);
        if (st == BASALT_OK) {
            size_t n2;
            char *text2 = basalt_sql_script_count(again) == 1 ? text_of(again, 0, &n2) : NULL;
            if (basalt_sql_script_count(again) != 1 || (text2 && strcmp(text, text2) != 0))
                abort();
            free(text2);
        } else if (st != BASALT_LIMIT && st != BASALT_NOMEM) {
            abort();
        }
        basalt_sql_script_free(again);
        free(text);
    }
    basalt_sql_script_free(s);
    return 0;
}
