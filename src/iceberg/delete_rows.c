/* The pass over the files a row-level change touches: each row read (with
 * the deletes already on its file applied) is kept, dropped, changed by SET
 * clauses, or turned into an equality-delete key, and what stays goes to a
 * data writer. Also the SET clauses' parsing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basalt/arrow.h"
#include "basalt/iceberg_expr.h"
#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_write.h"
#include "delete_internal.h"
#include "scan_internal.h"

/* ------------------------------------------------------------ SET clauses */

static bool is_null_literal(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (strncasecmp(s, "null", 4) != 0)
        return false;
    for (s += 4; *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r';)
        s++;
    return *s == 0;
}

static basalt_status parse_one(const struct basalt_iceberg_schema *schema, const char *text,
                               struct basalt_arena *arena, struct basalt_iceberg_set_clause *out,
                               struct basalt_error *err)
{
    const char *eq = strchr(text, '=');
    if (!eq)
        return basalt_error_set(err, BASALT_INVALID_ARG, "SET clause '%.200s': expected column = value",
                                text);
    bool null = is_null_literal(eq + 1);
    /* "col = NULL" is not a filter; "col IS NULL" binds the column alike. */
    char *probe = NULL;
    if (null) {
        size_t len = (size_t)(eq - text);
        probe = basalt_arena_alloc(arena, len + 16, 1);
        if (!probe)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        snprintf(probe, len + 16, "%.*s is null", (int)len, text);
    }
    struct basalt_iceberg_expr *parsed = NULL, *bound = NULL;
    basalt_status st = basalt_iceberg_expr_parse(null ? probe : text, arena, &parsed, err);
    if (st == BASALT_OK && parsed->op != (null ? BASALT_ICEBERG_OP_IS_NULL : BASALT_ICEBERG_OP_EQ))
        st = basalt_error_set(err, BASALT_INVALID_ARG,
                              "SET clause '%.200s': expected column = value", text);
    const char *name = st == BASALT_OK ? parsed->name : NULL;
    const struct basalt_iceberg_field *field = NULL;
    for (uint32_t i = 0; name && i < schema->root.n_fields; i++)
        if (strcmp(schema->root.fields[i].name, name) == 0) {
            field = &schema->root.fields[i];
            out->index = i;
        }
    if (st == BASALT_OK && !field)
        st = basalt_error_set(err, basalt_iceberg_schema_field_by_name(schema, name, true)
                                       ? BASALT_INVALID_ARG
                                       : BASALT_NOT_FOUND,
                              "SET clause '%.200s': '%s' is not a top-level column", text, name);
    if (st == BASALT_OK && field->type.id >= BASALT_ICEBERG_TYPE_VARIANT)
        st = basalt_error_set(err, BASALT_INVALID_ARG,
                              "SET clause '%.200s': column '%s' is not of a primitive type", text,
                              name);
    if (st == BASALT_OK && null && field->required)
        st = basalt_error_set(err, BASALT_INVALID_ARG,
                              "SET clause '%.200s': column '%s' is required", text, name);
    if (st != BASALT_OK)
        return st;
    out->field = field;
    memset(&out->value, 0, sizeof out->value);
    out->value.type = field->type.id;
    out->value.is_null = true;
    if (null)
        return BASALT_OK;
    st = basalt_iceberg_expr_bind(parsed, schema, true, arena, &bound, err);
    /* Binding folds a literal the type cannot hold into TRUE/FALSE. */
    if (st == BASALT_OK && (bound->op != BASALT_ICEBERG_OP_EQ || bound->n_literals != 1))
        st = basalt_error_set(err, BASALT_INVALID_ARG,
                              "SET clause '%.200s': the value does not fit column '%s'", text, name);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "SET clause '%.200s'", text);
    out->value = bound->literals[0];
    return BASALT_OK;
}

basalt_status basalt_iceberg_set_parse(const struct basalt_iceberg_schema *schema,
                                       const char *const *set, uint32_t n,
                                       struct basalt_arena *arena,
                                       struct basalt_iceberg_set_clause **out,
                                       struct basalt_error *err)
{
    if (n == 0)
        return basalt_error_set(err, BASALT_INVALID_ARG, "an update needs a SET clause");
    struct basalt_iceberg_set_clause *c = basalt_arena_alloc(arena, n * sizeof *c, 8);
    if (!c)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        basalt_status st = parse_one(schema, set[i], arena, &c[i], err);
        if (st != BASALT_OK)
            return st;
        for (uint32_t k = 0; k < i; k++)
            if (c[k].index == c[i].index)
                return basalt_error_set(err, BASALT_INVALID_ARG,
                                        "column '%s' is set twice", c[i].field->name);
    }
    *out = c;
    return BASALT_OK;
}

/* ---------------------------------------------------------------- the pass */

/* The table's columns of `src` (moved out: src's children [0, n_fields)),
 * and with `lineage` its _row_id and _last_updated_sequence_number, which
 * the scan put after _file and _pos. */
static basalt_status table_rows(struct ArrowArray *src, uint32_t n_fields, bool lineage,
                                struct ArrowArray *out, struct basalt_error *err)
{
    basalt_status st = basalt_arrow_array_init(out, 1, n_fields + (lineage ? 2 : 0), err);
    for (uint32_t i = 0; st == BASALT_OK && i < n_fields; i++)
        basalt_arrow_array_move(src->children[i], out->children[i]);
    for (uint32_t k = 0; st == BASALT_OK && lineage && k < 2; k++)
        basalt_arrow_array_move(src->children[n_fields + 2 + k], out->children[n_fields + k]);
    if (st == BASALT_OK)
        out->length = src->length;
    return st;
}

/* Changed rows (the table's columns) with their lineage appended: the ids
 * of `matched` (NULL: new ids, for rows that equality deletes replace) and
 * a null sequence number, which the commit's then replaces on read. */
static basalt_status changed_lineage(struct ArrowArray *rows, struct ArrowArray *matched,
                                     uint32_t n_fields, struct basalt_error *err)
{
    struct ArrowArray out;
    basalt_status st = basalt_arrow_array_init(&out, 1, n_fields + 2, err);
    for (uint32_t i = 0; st == BASALT_OK && i < n_fields; i++)
        basalt_arrow_array_move(rows->children[i], out.children[i]);
    if (st == BASALT_OK && matched)
        basalt_arrow_array_move(matched->children[n_fields + 2], out.children[n_fields]);
    else if (st == BASALT_OK)
        st = basalt_iceberg_constant_array(basalt_iceberg_row_lineage_field(BASALT_ICEBERG_FIELD_ID_ROW_ID),
                                           NULL, rows->length, out.children[n_fields], err);
    if (st == BASALT_OK)
        st = basalt_iceberg_constant_array(
            basalt_iceberg_row_lineage_field(BASALT_ICEBERG_FIELD_ID_LAST_UPDATED_SEQ), NULL,
            rows->length, out.children[n_fields + 1], err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(&out);
        return st;
    }
    out.length = rows->length;
    basalt_arrow_array_release(rows);
    basalt_arrow_array_move(&out, rows);
    return BASALT_OK;
}

/* Replaces the set columns of `rows` by constants. */
static basalt_status apply_set(const struct basalt_iceberg_row_pass *pass, struct ArrowArray *rows,
                               struct basalt_error *err)
{
    for (uint32_t k = 0; k < pass->n_set; k++) {
        struct ArrowArray col;
        const struct basalt_iceberg_set_clause *c = &pass->set[k];
        basalt_status st = basalt_iceberg_constant_array(c->field, &c->value, rows->length, &col, err);
        if (st != BASALT_OK)
            return st;
        basalt_arrow_array_release(rows->children[c->index]);
        basalt_arrow_array_move(&col, rows->children[c->index]);
    }
    return BASALT_OK;
}

static void release_schema_view(struct ArrowSchema *s);

/* The caller's new values for the matching rows: it sees the table's
 * columns only (not _file and _pos) and must keep their shape. */
static basalt_status set_rows(const struct basalt_iceberg_row_pass *pass,
                              const struct ArrowSchema *scan_schema, uint32_t n_fields,
                              struct ArrowArray *rows, struct basalt_error *err)
{
    struct ArrowSchema view = {.format = "+s", .n_children = n_fields,
                               .children = scan_schema->children,
                               .release = release_schema_view};
    int64_t length = rows->length;
    basalt_status st = pass->set_rows(pass->set_rows_ctx, &view, rows, err);
    if (st == BASALT_OK &&
        (rows->release == NULL || rows->length != length || rows->n_children != n_fields))
        st = basalt_error_set(err, BASALT_INVALID_ARG,
                              "update: the new rows are not %lld rows of %u columns",
                              (long long)length, n_fields);
    return st;
}

/* The key struct only borrows its columns: releasing it frees nothing. */
static void release_view(struct ArrowArray *a)
{
    a->release = NULL;
}

static void release_schema_view(struct ArrowSchema *s)
{
    s->release = NULL;
}

/* The key columns of the matching rows, with the data file of each row. */
static basalt_status add_keys(const struct basalt_iceberg_row_pass *pass,
                              const struct basalt_iceberg_hits *h, const struct ArrowSchema *schema,
                              const struct ArrowArray *hits, uint32_t n_fields,
                              struct basalt_error *err)
{
    size_t n = (size_t)hits->length;
    const struct basalt_iceberg_data_file **files = basalt_malloc((n ? n : 1) * sizeof *files);
    int32_t *specs = basalt_malloc((n ? n : 1) * sizeof *specs);
    struct ArrowArray keys;
    struct ArrowSchema key_schema;
    keys.release = NULL;
    key_schema.release = NULL;
    basalt_status st = files && specs ? BASALT_OK
                                      : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    const struct ArrowArray *paths = hits->children[n_fields];
    const int32_t *off = (const int32_t *)paths->buffers[1] + paths->offset;
    const char *chars = paths->buffers[2];
    const struct basalt_iceberg_hit *x = NULL;
    for (size_t r = 0; st == BASALT_OK && r < n; r++) {
        size_t len = (size_t)(off[r + 1] - off[r]);
        if (!x || strlen(x->path) != len || memcmp(x->path, chars + off[r], len) != 0)
            x = basalt_iceberg_hits_find(h, chars + off[r], len);
        if (!x)
            st = basalt_error_set(err, BASALT_CORRUPT, "a matching row of an unknown file");
        else {
            files[r] = x->file;
            specs[r] = x->spec_id;
        }
    }
    /* Views of the key columns: the struct and its schema borrow them. */
    struct ArrowArray *key_children[64];
    struct ArrowSchema *schema_children[64];
    if (st == BASALT_OK && pass->n_eq > 64)
        st = basalt_error_set(err, BASALT_LIMIT, "more than 64 equality delete columns");
    if (st == BASALT_OK) {
        for (uint32_t k = 0; k < pass->n_eq; k++) {
            key_children[k] = hits->children[pass->eq_index[k]];
            schema_children[k] = schema->children[pass->eq_index[k]];
        }
        keys = (struct ArrowArray){.length = hits->length, .n_buffers = 1,
                                   .n_children = pass->n_eq, .buffers = (const void *[]){NULL},
                                   .children = key_children, .release = release_view};
        key_schema = (struct ArrowSchema){.format = "+s", .n_children = pass->n_eq,
                                          .children = schema_children,
                                          .release = release_schema_view};
        st = basalt_iceberg_eq_deletes_add(pass->eq, &key_schema, &keys, files, specs, err);
    }
    basalt_free(files);
    basalt_free(specs);
    return st;
}

/* Splits one batch into rows to keep and matching rows and writes them. */
static basalt_status pass_batch(const struct basalt_iceberg_row_pass *pass,
                                const struct basalt_iceberg_hits *h,
                                const struct ArrowSchema *schema, struct ArrowArray *batch,
                                uint32_t n_fields, struct basalt_iceberg_data_writer *w,
                                struct basalt_error *err)
{
    size_t n = (size_t)batch->length;
    uint8_t *hit = basalt_calloc(n / 8 + 1, 1), *miss = basalt_calloc(n / 8 + 1, 1);
    basalt_status st = hit && miss ? BASALT_OK
                                   : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int64_t n_hit = 0;
    const struct ArrowArray *files = batch->children[n_fields], *pos = batch->children[n_fields + 1];
    const int32_t *off = (const int32_t *)files->buffers[1] + files->offset;
    const char *chars = files->buffers[2];
    const int64_t *p = (const int64_t *)pos->buffers[1] + pos->offset;
    const struct basalt_iceberg_hit *x = NULL;
    for (size_t r = 0; st == BASALT_OK && r < n; r++) {
        bool matches = pass->filter != NULL; /* the scan kept only matching rows */
        if (!matches) {
            size_t len = (size_t)(off[r + 1] - off[r]);
            if (!x || strlen(x->path) != len || memcmp(x->path, chars + off[r], len) != 0)
                x = basalt_iceberg_hits_find(h, chars + off[r], len);
            matches = x && basalt_iceberg_posset_contains(x->positions, (uint64_t)p[r]);
        }
        uint8_t *bits = matches ? hit : miss;
        bits[r / 8] |= (uint8_t)(1u << (r % 8));
        n_hit += matches;
    }
    int64_t n_miss = (int64_t)n - n_hit;
    if (st == BASALT_OK && pass->keep_unmatched && n_miss > 0) {
        struct ArrowArray kept, rows;
        st = basalt_iceberg_filter_array(schema, batch, miss, n_miss, &kept, err);
        if (st == BASALT_OK) {
            st = table_rows(&kept, n_fields, pass->lineage, &rows, err);
            if (st == BASALT_OK)
                st = basalt_iceberg_data_writer_write(w, &rows, err);
            basalt_arrow_array_release(&rows);
            basalt_arrow_array_release(&kept);
        }
    }
    bool changes = pass->n_set > 0 || pass->set_rows != NULL;
    if (st == BASALT_OK && n_hit > 0 && (changes || pass->eq)) {
        struct ArrowArray matched, rows;
        rows.release = NULL;
        st = basalt_iceberg_filter_array(schema, batch, hit, n_hit, &matched, err);
        if (st == BASALT_OK && pass->eq)
            st = add_keys(pass, h, schema, &matched, n_fields, err);
        if (st == BASALT_OK && changes) {
            st = table_rows(&matched, n_fields, false, &rows, err);
            if (st == BASALT_OK)
                st = pass->set_rows ? set_rows(pass, schema, n_fields, &rows, err)
                                    : apply_set(pass, &rows, err);
            if (st == BASALT_OK && pass->lineage)
                st = changed_lineage(&rows, pass->eq ? NULL : &matched, n_fields, err);
            if (st == BASALT_OK)
                st = basalt_iceberg_data_writer_write(w, &rows, err);
            basalt_arrow_array_release(&rows);
        }
        if (matched.release)
            basalt_arrow_array_release(&matched);
    }
    basalt_free(hit);
    basalt_free(miss);
    return st;
}

basalt_status basalt_iceberg_row_pass_run(const struct basalt_iceberg_table *t,
                                          const struct basalt_iceberg_hits *h,
                                          const struct basalt_iceberg_row_pass *pass,
                                          struct basalt_iceberg_data_writer *w,
                                          struct basalt_error *err)
{
    const struct basalt_iceberg_schema *schema = basalt_iceberg_metadata_current_schema(t->metadata);
    uint32_t n_fields = schema->root.n_fields, n_only = 0;
    const char **only = basalt_malloc((h->n ? h->n : 1) * sizeof *only);
    uint32_t n_columns = n_fields + (pass->lineage ? 4 : 2);
    const char **columns = basalt_malloc(n_columns * sizeof *columns);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    basalt_status st = only && columns ? BASALT_OK
                                       : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t k = 0; st == BASALT_OK && k < h->n; k++)
        if (pass->all_files || !h->items[k].whole)
            only[n_only++] = h->items[k].path; /* sorted: h is */
    for (uint32_t i = 0; st == BASALT_OK && i < n_fields; i++)
        columns[i] = schema->root.fields[i].name;
    if (st == BASALT_OK) {
        columns[n_fields] = "_file";
        columns[n_fields + 1] = "_pos";
        if (pass->lineage) {
            columns[n_fields + 2] = BASALT_ICEBERG_ROW_ID_NAME;
            columns[n_fields + 3] = BASALT_ICEBERG_LAST_UPDATED_SEQ_NAME;
        }
    }
    struct basalt_iceberg_scan_options o;
    basalt_iceberg_scan_options_init(&o);
    o.ref = basalt_iceberg_metadata_ref(t->metadata, pass->branch) ? pass->branch : NULL;
    o.columns = columns;
    o.n_columns = n_columns;
    o.only_files = only;
    o.n_only_files = n_only;
    o.pool = pass->pool;
    o.num_workers = pass->num_workers;
    struct basalt_iceberg_expr *filter = NULL;
    if (st == BASALT_OK && pass->filter)
        st = basalt_iceberg_expr_parse(pass->filter, &arena, &filter, err);
    o.filter = filter;
    struct basalt_iceberg_scan *scan = NULL;
    struct ArrowArrayStream stream;
    stream.release = NULL;
    struct ArrowSchema out_schema;
    out_schema.release = NULL;
    bool any = st == BASALT_OK && n_only > 0;
    if (any)
        st = basalt_iceberg_scan_new(t, &o, &scan, err);
    if (any && st == BASALT_OK)
        st = basalt_iceberg_scan_schema(scan, &out_schema, err);
    if (any && st == BASALT_OK)
        st = basalt_iceberg_scan_stream(scan, &stream, err);
    while (any && st == BASALT_OK) {
        struct ArrowArray batch;
        if (stream.get_next(&stream, &batch) != 0) {
            st = basalt_error_set(err, basalt_iceberg_scan_stream_status(&stream),
                                  "reading the rows to rewrite: %s",
                                  stream.get_last_error(&stream));
            break;
        }
        if (!batch.release)
            break;
        st = pass_batch(pass, h, &out_schema, &batch, n_fields, w, err);
        batch.release(&batch);
    }
    if (stream.release)
        stream.release(&stream);
    if (out_schema.release)
        out_schema.release(&out_schema);
    basalt_iceberg_scan_free(scan);
    basalt_arena_reset(&arena);
    basalt_free(only);
    basalt_free(columns);
    return st;
}
