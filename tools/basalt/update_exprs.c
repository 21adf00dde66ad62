/* basalt iceberg update --set 'col = expr': new values computed by the SQL
 * engine. The matching rows of each batch are registered in a session of
 * their own as table __rows and `SELECT col, CAST((expr) AS type) AS col2,
 * ... FROM __rows` gives them back changed, in the table's types and order
 * (the Iceberg update calls this through basalt_iceberg_delete_options'
 * set_rows). A plain literal keeps the Iceberg layer's own conversion. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basalt/query.h"
#include "basalt/sql.h"
#include "cli.h"
#include "update_exprs.h"

#define MAX_SET 64

struct cli_set_exprs {
    char *column[MAX_SET];
    char *expr[MAX_SET];
    bool used[MAX_SET];
    uint32_t n;
    struct basalt_sql_session *session;
    char *select; /* built from the first batch's schema */
};

static char *trimmed(const char *s, size_t n)
{
    while (n > 0 && isspace((unsigned char)*s)) {
        s++;
        n--;
    }
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
        s++;
        n -= 2;
    }
    char *out = malloc(n + 1);
    if (out != NULL) {
        memcpy(out, s, n);
        out[n] = '\0';
    }
    return out;
}

bool cli_set_value_is_literal(const char *clause)
{
    const char *eq = strchr(clause, '=');
    if (eq == NULL)
        return true; /* malformed: the Iceberg layer names it */
    const char *v = eq + 1;
    while (isspace((unsigned char)*v))
        v++;
    size_t n = strlen(v);
    while (n > 0 && isspace((unsigned char)v[n - 1]))
        n--;
    if (n == 0)
        return true;
    if (v[0] == '\'') { /* one quoted string, '' inside */
        size_t i = 1;
        for (; i < n; i++)
            if (v[i] == '\'') {
                if (i + 1 < n && v[i + 1] == '\'')
                    i++;
                else
                    break;
            }
        return i == n - 1;
    }
    if ((n == 4 && strncasecmp(v, "null", 4) == 0) || (n == 4 && strncasecmp(v, "true", 4) == 0) ||
        (n == 5 && strncasecmp(v, "false", 5) == 0))
        return true;
    char *end;
    strtod(v, &end);
    return end == v + n;
}

void cli_set_exprs_free(struct cli_set_exprs *x)
{
    if (x == NULL)
        return;
    for (uint32_t i = 0; i < x->n; i++) {
        free(x->column[i]);
        free(x->expr[i]);
    }
    basalt_sql_session_free(x->session);
    free(x->select);
    free(x);
}

basalt_status cli_set_exprs_new(const char *const *set, uint32_t n, struct cli_set_exprs **out,
                                struct basalt_error *err)
{
    *out = NULL;
    if (n > MAX_SET)
        return basalt_error_set(err, BASALT_LIMIT, "update: more than %d SET clauses", MAX_SET);
    struct cli_set_exprs *x = calloc(1, sizeof *x);
    if (x == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = BASALT_OK;
    for (uint32_t i = 0; i < n && st == BASALT_OK; i++) {
        const char *eq = strchr(set[i], '=');
        if (eq == NULL) {
            st = basalt_error_set(err, BASALT_INVALID_ARG,
                                  "update: '%s': expected 'column = expression'", set[i]);
            break;
        }
        x->column[i] = trimmed(set[i], (size_t)(eq - set[i]));
        x->expr[i] = trimmed(eq + 1, strlen(eq + 1));
        x->n = i + 1;
        if (x->column[i] == NULL || x->expr[i] == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        else if (!*x->column[i] || !*x->expr[i])
            st = basalt_error_set(err, BASALT_INVALID_ARG,
                                  "update: '%s': expected 'column = expression'", set[i]);
    }
    if (st == BASALT_OK)
        st = basalt_sql_session_new(NULL, &x->session, err);
    if (st != BASALT_OK) {
        cli_set_exprs_free(x);
        return st;
    }
    *out = x;
    return BASALT_OK;
}

static basalt_status build_select(struct cli_set_exprs *x, const struct ArrowSchema *schema,
                                  struct basalt_error *err)
{
    size_t cap = 64;
    for (uint32_t i = 0; i < x->n; i++)
        cap += strlen(x->expr[i]) + 64;
    for (int64_t c = 0; c < schema->n_children; c++)
        cap += 2 * strlen(schema->children[c]->name) + 48;
    char *sql = malloc(cap);
    if (sql == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    size_t len = (size_t)snprintf(sql, cap, "SELECT ");
    for (int64_t c = 0; c < schema->n_children; c++) {
        const struct ArrowSchema *f = schema->children[c];
        uint32_t k = 0;
        while (k < x->n && strcmp(x->column[k], f->name) != 0)
            k++;
        const char *sep = c ? ", " : "";
        if (k == x->n) {
            len += (size_t)snprintf(sql + len, cap - len, "%s\"%s\"", sep, f->name);
            continue;
        }
        /* the CAST keeps the column's type: DuckDB's name of it */
        char type[48];
        struct basalt_query_type t;
        basalt_status st = basalt_query_type_from_format(f->format, &t, err);
        if (st != BASALT_OK) {
            free(sql);
            return basalt_error_context(err, st, "update: column '%s'", f->name);
        }
        basalt_query_type_name(t, type, sizeof type);
        x->used[k] = true;
        len += (size_t)snprintf(sql + len, cap - len, "%sCAST((%s) AS %s) AS \"%s\"", sep,
                                x->expr[k], type, f->name);
    }
    snprintf(sql + len, cap - len, " FROM __rows");
    for (uint32_t k = 0; k < x->n; k++)
        if (!x->used[k]) {
            free(sql);
            return basalt_error_set(err, BASALT_NOT_FOUND, "update: no column '%s'",
                                    x->column[k]);
        }
    x->select = sql;
    return BASALT_OK;
}

basalt_status cli_set_exprs_rows(void *ctx, const struct ArrowSchema *schema,
                                 struct ArrowArray *rows, struct basalt_error *err)
{
    struct cli_set_exprs *x = ctx;
    basalt_status st = x->select ? BASALT_OK : build_select(x, schema, err);
    struct basalt_arrow_batches in, out;
    basalt_arrow_batches_init(&in);
    basalt_arrow_batches_init(&out);
    int64_t length = rows->length;
    if (st == BASALT_OK)
        st = basalt_arrow_schema_copy(schema, &in.schema, err);
    if (st == BASALT_OK)
        st = basalt_arrow_batches_append(&in, rows, err); /* moves rows */
    if (st == BASALT_OK)
        st = basalt_sql_session_register(x->session, "__rows", &in, err);
    if (st == BASALT_OK) {
        st = basalt_sql_session_run(x->session, x->select, strlen(x->select), &out, err);
        if (st != BASALT_OK) /* the position is in the SELECT the clauses make */
            basalt_error_context(err, st, "update: in %s", x->select);
    }
    /* one batch in, one projection out: the rows in order */
    int64_t got = -1;
    for (int64_t i = 0; st == BASALT_OK && i < out.n; i++) {
        if (out.arrays[i].length == 0)
            continue;
        if (got >= 0)
            st = basalt_error_set(err, BASALT_INTERNAL, "update: the new rows came in pieces");
        got = i;
    }
    for (int64_t c = 0; st == BASALT_OK && c < schema->n_children; c++)
        if (strcmp(out.schema.children[c]->format, schema->children[c]->format) != 0)
            st = basalt_error_set(err, BASALT_INVALID_ARG,
                                  "update: column '%s': the expression gives Arrow type '%s', "
                                  "the column holds '%s'",
                                  schema->children[c]->name, out.schema.children[c]->format,
                                  schema->children[c]->format);
    if (st == BASALT_OK && got >= 0 && out.arrays[got].length == length)
        basalt_arrow_array_move(&out.arrays[got], rows);
    else if (st == BASALT_OK)
        st = basalt_error_set(err, BASALT_INTERNAL, "update: %lld rows in, not as many out",
                              (long long)length);
    basalt_arrow_batches_reset(&in);
    basalt_arrow_batches_reset(&out);
    return st;
}
