/* Statements that write: COPY (query) TO 'file' as Parquet, CSV or JSON lines;
 * CREATE TABLE ... AS, CREATE TABLE (columns), INSERT INTO and DROP TABLE on
 * the session's catalog through the Iceberg write path (data files written
 * by the Iceberg data writer, one append commit per statement, files of a
 * failed commit removed unless its outcome is unknown). */
#include <stdio.h>
#include <string.h>

#include "basalt/iceberg_commit.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_scan.h"
#include "basalt/iceberg_write.h"
#include "basalt/io.h"
#include "basalt/json.h"
#include "basalt/parquet_writer.h"
#include "sql_write.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* The text of a COPY option's value (a word or a string). */
static const char *option_text(const struct basalt_sql_option *o)
{
    if (o->value == NULL)
        return NULL;
    const struct basalt_sql_expr *v = o->value;
    if (v->kind == BASALT_SQL_EXPR_STRING || v->kind == BASALT_SQL_EXPR_INTEGER ||
        v->kind == BASALT_SQL_EXPR_NUMBER)
        return v->u.lit.text;
    if (v->kind == BASALT_SQL_EXPR_COLUMN)
        return v->u.column.parts[v->u.column.n_parts - 1].name;
    return NULL;
}

static bool option_bool(const struct basalt_sql_option *o)
{
    if (o->value == NULL)
        return true;
    if (o->value->kind == BASALT_SQL_EXPR_BOOL)
        return o->value->u.lit.b;
    const char *t = option_text(o);
    return t != NULL && (strcasecmp(t, "true") == 0 || strcmp(t, "1") == 0);
}

basalt_status basalt_sql_copy_to(const struct basalt_sql_statement *stmt,
                                 struct sql_rows *rows, int64_t *written,
                                 struct basalt_error *err)
{
    const char *path = stmt->copy_to;
    bool csv = ends_with(path, ".csv") || ends_with(path, ".tsv");
    bool json = ends_with(path, ".json") || ends_with(path, ".jsonl") ||
                ends_with(path, ".ndjson");
    struct basalt_csv_write_options co;
    basalt_csv_write_options_init(&co);
    if (ends_with(path, ".tsv"))
        co.delimiter = '\t';
    for (int i = 0; i < stmt->n_options; i++) {
        const struct basalt_sql_option *o = &stmt->options[i];
        const char *t = option_text(o);
        if (strcmp(o->name, "format") == 0 && t != NULL) {
            csv = json = false;
            if (strcasecmp(t, "csv") == 0)
                csv = true;
            else if (strcasecmp(t, "json") == 0 || strcasecmp(t, "ndjson") == 0)
                json = true;
            else if (strcasecmp(t, "parquet") != 0)
                return basalt_error_set(err, BASALT_UNSUPPORTED,
                                        "COPY: format '%s' is not supported (parquet, csv, json) (at "
                                        "position %d)",
                                        t, (int)o->pos);
        } else if (strcmp(o->name, "header") == 0) {
            co.header = option_bool(o);
        } else if ((strcmp(o->name, "delimiter") == 0 || strcmp(o->name, "delim") == 0 ||
                    strcmp(o->name, "sep") == 0) && t != NULL && t[0] != '\0') {
            co.delimiter = t[0];
        } else if (strcmp(o->name, "quote") == 0 && t != NULL && t[0] != '\0') {
            co.quote = t[0];
        } else {
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "COPY: unknown option '%s' (at position %d)", o->name,
                                    (int)o->pos);
        }
    }
    *written = 0;
    basalt_status st;
    if (csv) {
        struct basalt_output *out;
        st = basalt_output_open_file(path, &out, err);
        struct basalt_csv_writer *w = NULL;
        if (st == BASALT_OK)
            st = basalt_csv_writer_open(out, true, &rows->schema, &co, &w, err);
        while (st == BASALT_OK) {
            struct ArrowArray b;
            st = basalt_qcursor_next(rows->cursor, &b, err);
            if (st != BASALT_OK || b.release == NULL)
                break;
            st = basalt_csv_writer_write(w, &b, err);
            basalt_arrow_array_release(&b);
        }
        if (st == BASALT_OK)
            st = basalt_csv_writer_finish(w, err);
        if (st == BASALT_OK)
            *written = basalt_csv_writer_num_rows(w);
        basalt_csv_writer_close(w);
    } else if (json) {
        struct basalt_output *out;
        st = basalt_output_open_file(path, &out, err);
        struct basalt_json_writer *w = NULL;
        if (st == BASALT_OK)
            st = basalt_json_writer_open(out, true, &rows->schema, NULL, &w, err);
        while (st == BASALT_OK) {
            struct ArrowArray b;
            st = basalt_qcursor_next(rows->cursor, &b, err);
            if (st != BASALT_OK || b.release == NULL)
                break;
            st = basalt_json_writer_write(w, &b, err);
            basalt_arrow_array_release(&b);
        }
        if (st == BASALT_OK)
            st = basalt_json_writer_finish(w, err);
        if (st == BASALT_OK)
            *written = basalt_json_writer_num_rows(w);
        basalt_json_writer_close(w);
    } else {
        struct basalt_parquet_writer *w = NULL;
        st = basalt_parquet_writer_open_file(path, &rows->schema, NULL, &w, err);
        while (st == BASALT_OK) {
            struct ArrowArray b;
            st = basalt_qcursor_next(rows->cursor, &b, err);
            if (st != BASALT_OK || b.release == NULL)
                break;
            st = basalt_parquet_writer_write(w, &b, err);
            basalt_arrow_array_release(&b);
        }
        if (st == BASALT_OK)
            st = basalt_parquet_writer_finish(w, err);
        if (st == BASALT_OK)
            *written = basalt_parquet_writer_num_rows(w);
        basalt_parquet_writer_close(w);
    }
    if (st != BASALT_OK)
        basalt_error_context(err, st, "COPY TO '%s'", path);
    return st;
}

/* "ns.table" from a 2- or 3-part name (a catalog part is ignored). */
static basalt_status identifier(const struct basalt_sql_name *n, char *buf, size_t cap,
                                struct basalt_error *err)
{
    if (n->n_parts < 2)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "table \"%s\" needs a namespace (db.%s)", n->parts[0].name,
                                n->parts[0].name);
    int first = n->n_parts == 3 ? 1 : 0;
    snprintf(buf, cap, "%s.%s", n->parts[first].name, n->parts[first + 1].name);
    return BASALT_OK;
}

static basalt_status need_catalog(const struct basalt_sql_session *s, const char *what,
                                  struct basalt_error *err)
{
    if (s->catalog == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s needs a catalog (--catalog URI)",
                                what);
    return BASALT_OK;
}

/* Creates table `ident` with the Iceberg schema `schema_json` at the
 * catalog's default location (a missing namespace created first). */
static basalt_status create_table(struct basalt_sql_session *s, const char *ident,
                                  const char *schema_json, struct basalt_error *err)
{
    char *location = NULL, *updates = NULL;
    basalt_status st = basalt_catalog_default_location(s->catalog, ident, &location, err);
    const char *dot = strrchr(ident, '.');
    if (st == BASALT_NOT_FOUND && dot != NULL) {
        char ns[256];
        snprintf(ns, sizeof ns, "%.*s", (int)(dot - ident), ident);
        basalt_error_init(err);
        st = basalt_catalog_create_namespace(s->catalog, ns, err);
        if (st == BASALT_CONFLICT)
            st = BASALT_OK;
        if (st == BASALT_OK)
            st = basalt_catalog_default_location(s->catalog, ident, &location, err);
    }
    if (st == BASALT_OK)
        st = basalt_iceberg_create_updates(schema_json, NULL, NULL, 2, location, NULL, 0, &updates,
                                           err);
    struct basalt_iceberg_table *t = NULL;
    if (st == BASALT_OK)
        st = basalt_catalog_create_table(s->catalog, ident, updates, &t, err);
    basalt_iceberg_table_free(t);
    basalt_free(location);
    basalt_free(updates);
    return st;
}

/* Appends the rows to table `ident`: conformed to its schema, written as
 * data files, committed as one snapshot. */
/* Renames the columns of `rows` to the table's top-level fields, in order. */
static basalt_status by_position(const struct basalt_iceberg_schema *schema, struct ArrowSchema *rows,
                                 struct basalt_error *err)
{
    struct ArrowSchema table;
    basalt_status st = basalt_iceberg_schema_to_arrow(schema, &table, err);
    if (st != BASALT_OK)
        return st;
    if (table.n_children != rows->n_children) {
        st = basalt_error_set(err, BASALT_INVALID_ARG,
                              "the table has %lld columns but the query gives %lld",
                              (long long)table.n_children, (long long)rows->n_children);
    }
    for (int64_t i = 0; st == BASALT_OK && i < rows->n_children; i++) {
        struct ArrowSchema c;
        st = basalt_arrow_schema_copy_renamed(rows->children[i], table.children[i]->name, &c, err);
        if (st == BASALT_OK) {
            basalt_arrow_schema_release(rows->children[i]);
            basalt_arrow_schema_move(&c, rows->children[i]);
        }
    }
    basalt_arrow_schema_release(&table);
    return st;
}

static basalt_status append_rows(struct basalt_sql_session *s, const char *ident,
                                 struct sql_rows *rows, bool rename_to_table,
                                 int64_t *written, struct basalt_error *err)
{
    struct basalt_iceberg_table *t = NULL;
    basalt_status st = basalt_catalog_load_table(s->catalog, ident, &t, err);
    if (st != BASALT_OK)
        return st;
    const struct basalt_iceberg_metadata *m = t->metadata;
    const struct basalt_iceberg_schema *schema = basalt_iceberg_metadata_current_schema(m);
    char *data_location = NULL;
    const char *path = basalt_iceberg_metadata_property(m, "write.data.path");
    size_t cap = (path ? strlen(path) : strlen(m->location)) + 8;
    data_location = basalt_malloc(cap);
    if (data_location == NULL)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    else if (path != NULL)
        snprintf(data_location, cap, "%s", path);
    else
        snprintf(data_location, cap, "%s/data", m->location);
    char uuid[37], prefix[64];
    basalt_iceberg_uuid4(uuid);
    snprintf(prefix, sizeof prefix, "sql-%s", uuid);
    struct basalt_iceberg_data_writer *w = NULL;
    if (st == BASALT_OK) {
        struct basalt_iceberg_data_writer_options wo;
        basalt_iceberg_data_writer_options_init(&wo);
        wo.schema = schema;
        wo.spec = basalt_iceberg_metadata_spec(m, m->default_spec_id);
        wo.properties = m->properties;
        wo.n_properties = m->n_properties;
        wo.data_location = data_location;
        wo.file_prefix = prefix;
        wo.io = t->io;
        wo.sort_order_id = m->default_sort_order_id;
        wo.pool = s->o.pool;
        st = basalt_iceberg_data_writer_new(&wo, &w, err);
    }
    /* INSERT matches columns by position, as SQL does: the rows take the
     * table's names before they are conformed by name. */
    if (st == BASALT_OK && rename_to_table)
        st = by_position(schema, &rows->schema, err);
    *written = 0;
    while (st == BASALT_OK) {
        struct ArrowArray b, conformed;
        st = basalt_qcursor_next(rows->cursor, &b, err);
        if (st != BASALT_OK || b.release == NULL)
            break;
        *written += b.length;
        st = basalt_iceberg_conform_batch(schema, &rows->schema, &b, &conformed, err);
        if (st == BASALT_OK) {
            st = basalt_iceberg_data_writer_write(w, &conformed, err);
            basalt_arrow_array_release(&conformed);
        }
        basalt_arrow_array_release(&b);
    }
    const struct basalt_iceberg_data_file *files = NULL;
    uint32_t n_files = 0;
    if (st == BASALT_OK)
        st = basalt_iceberg_data_writer_finish(w, &files, &n_files, err);
    if (st == BASALT_OK && n_files > 0) {
        struct basalt_iceberg_committer committer;
        basalt_catalog_committer(s->catalog, &committer);
        struct basalt_iceberg_append_options ao;
        basalt_iceberg_append_options_init(&ao);
        st = basalt_iceberg_append(&committer, ident, files, n_files, &ao, NULL, NULL, err);
    }
    /* Data files of a failed append go, unless a commit whose answer was
     * lost may name them. */
    if (st != BASALT_OK && w != NULL && st != BASALT_UNKNOWN_OUTCOME)
        basalt_iceberg_data_writer_abort(w, NULL);
    basalt_iceberg_data_writer_free(w);
    basalt_free(data_location);
    basalt_iceberg_table_free(t);
    return st;
}

basalt_status basalt_sql_create_as(struct basalt_sql_session *s,
                                   const struct basalt_sql_statement *stmt,
                                   struct sql_rows *rows, int64_t *written,
                                   struct basalt_error *err)
{
    char ident[512];
    basalt_status st = need_catalog(s, "CREATE TABLE", err);
    if (st == BASALT_OK)
        st = identifier(&stmt->name, ident, sizeof ident, err);
    char *schema = NULL;
    if (st == BASALT_OK)
        st = basalt_iceberg_schema_from_arrow(&rows->schema, 2, &schema, err);
    if (st == BASALT_OK) {
        st = create_table(s, ident, schema, err);
        if (st == BASALT_CONFLICT && stmt->if_not_exists) {
            basalt_free(schema);
            *written = 0;
            return BASALT_OK;
        }
    }
    if (st == BASALT_OK)
        st = append_rows(s, ident, rows, false, written, err);
    basalt_free(schema);
    return st;
}

basalt_status basalt_sql_insert(struct basalt_sql_session *s,
                                const struct basalt_sql_statement *stmt,
                                struct sql_rows *rows, int64_t *written,
                                struct basalt_error *err)
{
    char ident[512];
    basalt_status st = need_catalog(s, "INSERT", err);
    if (st == BASALT_OK)
        st = identifier(&stmt->name, ident, sizeof ident, err);
    if (st == BASALT_OK && stmt->n_insert_columns > 0)
        st = basalt_error_set(err, BASALT_UNSUPPORTED,
                              "INSERT with a column list is not supported yet (at position %d)",
                              (int)stmt->pos);
    if (st == BASALT_OK)
        st = append_rows(s, ident, rows, true, written, err);
    return st;
}

static const char *iceberg_type(const struct basalt_sql_type *t, char *buf, size_t cap)
{
    switch (t->id) {
    case BASALT_SQL_TYPE_BOOLEAN: return "boolean";
    case BASALT_SQL_TYPE_TINYINT:
    case BASALT_SQL_TYPE_SMALLINT:
    case BASALT_SQL_TYPE_INTEGER: return "int";
    case BASALT_SQL_TYPE_BIGINT: return "long";
    case BASALT_SQL_TYPE_FLOAT: return "float";
    case BASALT_SQL_TYPE_DOUBLE: return "double";
    case BASALT_SQL_TYPE_DECIMAL:
        snprintf(buf, cap, "decimal(%lld,%lld)", (long long)(t->n_params >= 1 ? t->params[0] : 18),
                 (long long)(t->n_params >= 2 ? t->params[1] : 3));
        return buf;
    case BASALT_SQL_TYPE_VARCHAR: return "string";
    case BASALT_SQL_TYPE_BLOB: return "binary";
    case BASALT_SQL_TYPE_DATE: return "date";
    case BASALT_SQL_TYPE_TIME: return "time";
    case BASALT_SQL_TYPE_TIMESTAMP: return "timestamp";
    case BASALT_SQL_TYPE_TIMESTAMP_NS: return "timestamp_ns";
    case BASALT_SQL_TYPE_TIMESTAMPTZ: return "timestamptz";
    case BASALT_SQL_TYPE_UUID: return "uuid";
    default: return NULL;
    }
}

basalt_status basalt_sql_create_table(struct basalt_sql_session *s,
                                      const struct basalt_sql_statement *stmt,
                                      struct basalt_error *err)
{
    char ident[512];
    basalt_status st = need_catalog(s, "CREATE TABLE", err);
    if (st == BASALT_OK)
        st = identifier(&stmt->name, ident, sizeof ident, err);
    struct basalt_buffer text;
    basalt_buffer_init(&text);
    for (int i = 0; i < stmt->n_columns && st == BASALT_OK; i++) {
        const struct basalt_sql_column_def *c = &stmt->columns[i];
        char tb[64];
        const char *t = iceberg_type(&c->type, tb, sizeof tb);
        if (t == NULL) {
            st = basalt_error_set(err, BASALT_UNSUPPORTED,
                                  "column \"%s\": type %s is not supported (at position %d)",
                                  c->name.name, c->type.name ? c->type.name : "?",
                                  (int)c->type.pos);
            break;
        }
        char part[512];
        snprintf(part, sizeof part, "%s%s %s%s", i ? ", " : "", c->name.name, t,
                 c->not_null ? " not null" : "");
        st = basalt_buffer_append(&text, part, strlen(part), err);
    }
    char nul = '\0';
    if (st == BASALT_OK)
        st = basalt_buffer_append(&text, &nul, 1, err);
    char *schema = NULL;
    if (st == BASALT_OK)
        st = basalt_iceberg_schema_from_text((const char *)text.data, &schema, err);
    if (st == BASALT_OK) {
        st = create_table(s, ident, schema, err);
        if (st == BASALT_CONFLICT && stmt->if_not_exists)
            st = BASALT_OK;
    }
    basalt_free(schema);
    basalt_buffer_reset(&text);
    return st;
}

basalt_status basalt_sql_drop_table(struct basalt_sql_session *s,
                                    const struct basalt_sql_statement *stmt,
                                    struct basalt_error *err)
{
    char ident[512];
    basalt_status st = need_catalog(s, "DROP TABLE", err);
    if (st == BASALT_OK)
        st = identifier(&stmt->name, ident, sizeof ident, err);
    if (st == BASALT_OK) {
        st = basalt_catalog_drop_table(s->catalog, ident, err);
        if (st == BASALT_NOT_FOUND && stmt->if_exists)
            st = BASALT_OK;
    }
    return st;
}
