/* The small results statements give: EXPLAIN's lines, the row count of a
 * write, DESCRIBE's columns, SHOW TABLES. */
#include <stdio.h>
#include <string.h>

#include "sql_results.h"

/* Hands the built rows to `out` as its one batch. */
static basalt_status rows_done(struct basalt_arrow_builder *root, basalt_status st,
                               struct basalt_arrow_batches *out, struct basalt_error *err)
{
    struct ArrowArray a;
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(root, &out->schema, &a, err);
    if (st == BASALT_OK)
        st = basalt_arrow_batches_append(out, &a, err);
    basalt_arrow_builder_free(root);
    return st;
}

basalt_status basalt_sql_explain_rows(const char *text, struct basalt_arrow_batches *out,
                                    struct basalt_error *err)
{
    struct basalt_arrow_builder *root, *col;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_arrow_builder_add_child(root, "u", "explain", 0, &col, err);
    /* One row per line, as DuckDB prints a plan. */
    for (const char *p = text; st == BASALT_OK && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        char line[1024];
        if (n >= sizeof line)
            n = sizeof line - 1;
        memcpy(line, p, n);
        line[n] = '\0';
        st = basalt_arrow_builder_append_string(col, line, err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, err);
        p += nl ? (size_t)(nl - p) + 1 : strlen(p);
    }
    return rows_done(root, st, out, err);
}

/* A one-row, one-column BIGINT result ("Count"), as DuckDB answers writes. */
basalt_status basalt_sql_count_rows(const char *name, int64_t n, struct basalt_arrow_batches *out,
                                  struct basalt_error *err)
{
    struct basalt_arrow_builder *root, *col;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_arrow_builder_add_child(root, "l", name, 0, &col, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_append_int(col, n, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_end_element(root, err);
    return rows_done(root, st, out, err);
}

/* DESCRIBE: one row per column, its name and DuckDB's type name. */
basalt_status basalt_sql_describe_rows(const struct ArrowSchema *schema,
                                     struct basalt_arrow_batches *out, struct basalt_error *err)
{
    struct basalt_arrow_builder *root, *name, *type;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_arrow_builder_add_child(root, "u", "column_name", 0, &name, err);
    if (st == BASALT_OK)
        st = basalt_arrow_builder_add_child(root, "u", "column_type", 0, &type, err);
    for (int64_t i = 0; i < schema->n_children && st == BASALT_OK; i++) {
        const struct ArrowSchema *c = schema->children[i];
        struct basalt_query_type t;
        char buf[64];
        struct basalt_error ignore;
        basalt_error_init(&ignore);
        const char *text = basalt_query_type_from_format(c->format, &t, &ignore) == BASALT_OK
                               ? basalt_query_type_name(t, buf, sizeof buf)
                               : c->format;
        st = basalt_arrow_builder_append_string(name, c->name ? c->name : "", err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_append_string(type, text, err);
        if (st == BASALT_OK)
            st = basalt_arrow_builder_end_element(root, err);
    }
    return rows_done(root, st, out, err);
}

/* SHOW TABLES: every namespace's tables, "ns.table". */
basalt_status basalt_sql_show_tables(struct basalt_sql_session *s, struct basalt_arrow_batches *out,
                                 struct basalt_error *err)
{
    if (s->catalog == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "SHOW TABLES needs a catalog (--catalog URI)");
    struct basalt_arrow_builder *root, *col;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &root, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_arrow_builder_add_child(root, "u", "name", 0, &col, err);
    char **ns = NULL;
    size_t n_ns = 0;
    if (st == BASALT_OK)
        st = basalt_catalog_list_namespaces(s->catalog, NULL, &ns, &n_ns, err);
    for (size_t i = 0; i < n_ns && st == BASALT_OK; i++) {
        char **tables = NULL;
        size_t n_tables = 0;
        st = basalt_catalog_list_tables(s->catalog, ns[i], &tables, &n_tables, err);
        for (size_t k = 0; k < n_tables && st == BASALT_OK; k++) {
            char full[512];
            /* catalogs list tables by their full identifier or by name */
            if (strchr(tables[k], '.') != NULL)
                snprintf(full, sizeof full, "%s", tables[k]);
            else
                snprintf(full, sizeof full, "%s.%s", ns[i], tables[k]);
            st = basalt_arrow_builder_append_string(col, full, err);
            if (st == BASALT_OK)
                st = basalt_arrow_builder_end_element(root, err);
        }
        basalt_string_list_free(tables, n_tables);
    }
    basalt_string_list_free(ns, n_ns);
    return rows_done(root, st, out, err);
}

