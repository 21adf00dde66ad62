/* Input batches (a Parquet, CSV or Avro file's columns) conformed to a
 * table's schema before they are written: columns matched by name, values
 * cast to the table's types, missing optional columns filled with nulls. */
#include <string.h>
#include <strings.h>

#include "basalt/iceberg_scan.h"
#include "basalt/iceberg_write.h"
#include "scan_internal.h"

/* The input column named like `field`: exact first, then ignoring ASCII
 * case; -1 when there is none. */
static int64_t find_column(const struct ArrowSchema *src, const char *name)
{
    for (int64_t i = 0; i < src->n_children; i++)
        if (src->children[i]->name && strcmp(src->children[i]->name, name) == 0)
            return i;
    for (int64_t i = 0; i < src->n_children; i++)
        if (src->children[i]->name && strcasecmp(src->children[i]->name, name) == 0)
            return i;
    return -1;
}

static bool is_nested(const struct basalt_iceberg_type *t)
{
    return t->id == BASALT_ICEBERG_TYPE_STRUCT || t->id == BASALT_ICEBERG_TYPE_LIST ||
           t->id == BASALT_ICEBERG_TYPE_MAP;
}

/* Whether two Arrow types have the same formats all the way down. */
static bool same_shape(const struct ArrowSchema *a, const struct ArrowSchema *b)
{
    if (strcmp(a->format, b->format) != 0 || a->n_children != b->n_children || a->dictionary ||
        b->dictionary)
        return false;
    for (int64_t i = 0; i < a->n_children; i++)
        if (!same_shape(a->children[i], b->children[i]))
            return false;
    return true;
}

/* Replaces the dictionary-encoded `column` (type `from`) by its values; a
 * column of nulls only over an empty dictionary becomes nulls of the field. */
static basalt_status decode_dictionary(const struct basalt_iceberg_field *f,
                                       const struct ArrowSchema *from, struct ArrowArray *column,
                                       struct basalt_error *err)
{
    struct ArrowArray plain;
    basalt_status st;
    if (column->dictionary && column->dictionary->length == 0 && column->length > 0 &&
        column->null_count == column->length)
        st = basalt_iceberg_constant_array(f, NULL, column->length, &plain, err);
    else
        st = basalt_arrow_dictionary_decode(from, column, &plain, err);
    basalt_arrow_array_release(column);
    if (st == BASALT_OK)
        basalt_arrow_array_move(&plain, column);
    return st;
}

basalt_status basalt_iceberg_conform_batch(const struct basalt_iceberg_schema *schema,
                                           const struct ArrowSchema *src_schema,
                                           struct ArrowArray *src, struct ArrowArray *out,
                                           struct basalt_error *err)
{
    const struct basalt_iceberg_type *root = &schema->root;
    struct ArrowSchema want;
    memset(&want, 0, sizeof want);
    memset(out, 0, sizeof *out);
    basalt_status st = BASALT_OK;
    if (strcmp(src_schema->format, "+s") != 0 || src->n_children != src_schema->n_children)
        st = basalt_error_set(err, BASALT_INVALID_ARG, "input batch is not a struct of columns");
    else if (src->offset != 0 || src->null_count != 0)
        st = basalt_error_set(err, BASALT_UNSUPPORTED,
                              "input batch with an offset or top-level nulls");
    for (int64_t i = 0; st == BASALT_OK && i < src_schema->n_children; i++) {
        const char *name = src_schema->children[i]->name ? src_schema->children[i]->name : "";
        bool known = false;
        for (uint32_t k = 0; k < root->n_fields && !known; k++)
            known = strcasecmp(root->fields[k].name, name) == 0;
        if (!known)
            st = basalt_error_set(err, BASALT_INVALID_ARG, "column '%.200s' is not in the table",
                                  name);
    }
    if (st == BASALT_OK)
        st = basalt_iceberg_schema_to_arrow(schema, &want, err);
    if (st == BASALT_OK)
        st = basalt_arrow_array_init(out, 1, root->n_fields, err);
    for (uint32_t k = 0; st == BASALT_OK && k < root->n_fields; k++) {
        const struct basalt_iceberg_field *f = &root->fields[k];
        int64_t at = find_column(src_schema, f->name);
        if (at < 0) {
            st = f->required
                     ? basalt_error_set(err, BASALT_INVALID_ARG,
                                        "the input has no column '%.200s', which the table "
                                        "requires",
                                        f->name)
                     : basalt_iceberg_constant_array(f, NULL, src->length, out->children[k], err);
            continue;
        }
        const struct ArrowSchema *from = src_schema->children[at];
        struct ArrowArray column;
        basalt_arrow_array_move(src->children[at], &column);
        if (from->dictionary) {
            /* Tables hold values: a dictionary-encoded column (pandas
             * categoricals through Arrow Flight, say) is decoded first. */
            st = decode_dictionary(f, from, &column, err);
            if (st != BASALT_OK) {
                st = basalt_error_context(err, st, "column '%.200s'", f->name);
                continue;
            }
            from = from->dictionary;
        }
        if (is_nested(&f->type)) {
            if (same_shape(from, want.children[k])) {
                basalt_arrow_array_move(&column, out->children[k]);
            } else {
                basalt_arrow_array_release(&column);
                st = basalt_error_set(err, BASALT_UNSUPPORTED,
                                      "column '%.200s': input type '%s' does not match the "
                                      "table's '%s'",
                                      f->name, from->format, want.children[k]->format);
            }
            continue;
        }
        st = basalt_iceberg_cast(from->format, &column, &f->type, out->children[k], err);
        if (st != BASALT_OK)
            st = basalt_error_context(err, st, "column '%.200s'", f->name);
    }
    if (st == BASALT_OK)
        out->length = src->length;
    basalt_arrow_schema_release(&want);
    basalt_arrow_array_release(src);
    if (st != BASALT_OK)
        basalt_arrow_array_release(out);
    return st;
}
