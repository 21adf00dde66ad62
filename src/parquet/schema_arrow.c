/* The ArrowSchema of a (projected) Parquet schema, with the output options. */
#include <string.h>

#include "parquet_schema.h"

struct actx {
    const struct basalt_parquet_schema *s;
    const struct basalt_parquet_projection *p;
    const struct basalt_parquet_arrow_options *o;
    struct basalt_error *err;
};

static bool selected(const struct actx *c, int32_t field)
{
    return !c->p || c->p->fields[field];
}

static int64_t selected_children(const struct actx *c, const struct basalt_parquet_schema_field *f)
{
    int64_t n = 0;
    for (int32_t i = 0; i < f->n_children; i++)
        n += selected(c, f->children[i]);
    return n;
}

static const char *large_of(const char *format)
{
    if (strcmp(format, "u") == 0)
        return "U";
    if (strcmp(format, "z") == 0)
        return "Z";
    return format;
}

static bool is_byte_array_format(const char *format)
{
    return strcmp(format, "u") == 0 || strcmp(format, "z") == 0 || strcmp(format, "U") == 0 ||
           strcmp(format, "Z") == 0;
}

/* A VARIANT group: the parquet.variant struct of a non-nullable binary
 * `metadata` and a binary `value` (never null where the struct is not),
 * large when any byte-array leaf below is (see build_variant in
 * assemble.c). */
static basalt_status export_variant(const struct actx *c, const struct basalt_parquet_schema_field *f,
                                    struct ArrowSchema *out)
{
    bool large = false;
    for (int32_t k = f->leaf_begin; k < f->leaf_end && c->o && c->o->large_binary; k++)
        large |= c->o->large_binary[k] &&
                 c->s->leaves[k].physical_type == BASALT_PARQUET_TYPE_BYTE_ARRAY;
    const char *format = large ? "Z" : "z";
    basalt_status st = basalt_arrow_schema_init(out, "+s", f->name,
                                                f->nullable ? ARROW_FLAG_NULLABLE : 0, 2, c->err);
    if (st == BASALT_OK && f->metadata)
        st = basalt_arrow_schema_set_metadata(out, f->metadata, c->err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(out->children[0], format, "metadata", 0, 0, c->err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_init(out->children[1], format, "value", ARROW_FLAG_NULLABLE, 0,
                                      c->err);
    return st;
}

static basalt_status export_field(const struct actx *c, int32_t index, struct ArrowSchema *out)
{
    const struct basalt_parquet_schema_field *f = &c->s->fields[index];
    if (f->variant)
        return export_variant(c, f, out);
    const char *format = f->format;
    const char *dict = f->dictionary_format;
    int64_t flags = f->nullable ? ARROW_FLAG_NULLABLE : 0;
    if (f->dictionary_format && f->dictionary_ordered)
        flags |= ARROW_FLAG_DICTIONARY_ORDERED;
    if (f->kind == BASALT_PARQUET_FIELD_PRIMITIVE && c->o) {
        int32_t leaf = f->leaf;
        bool large = c->o->large_binary && c->o->large_binary[leaf];
        if (dict) {
            if (large)
                dict = large_of(dict);
        } else {
            if (large)
                format = large_of(format);
            if (c->o->dictionary && c->o->dictionary[leaf] && is_byte_array_format(format)) {
                dict = format;
                format = "i";
            }
        }
    }
    if (f->kind == BASALT_PARQUET_FIELD_LIST && c->o && c->o->large_lists)
        format = "+L";
    int64_t n = selected_children(c, f);
    basalt_status st = basalt_arrow_schema_init(out, format, f->name, flags, n, c->err);
    if (st != BASALT_OK)
        return st;
    if (f->metadata)
        st = basalt_arrow_schema_set_metadata(out, f->metadata, c->err);
    if (st == BASALT_OK && dict) {
        struct ArrowSchema d;
        st = basalt_arrow_schema_init(&d, dict, "", ARROW_FLAG_NULLABLE, 0, c->err);
        if (st == BASALT_OK)
            st = basalt_arrow_schema_set_dictionary(out, &d, c->err);
    }
    int64_t k = 0;
    for (int32_t i = 0; i < f->n_children && st == BASALT_OK; i++)
        if (selected(c, f->children[i]))
            st = export_field(c, f->children[i], out->children[k++]);
    return st;
}

basalt_status basalt_parquet_schema_to_arrow(const struct basalt_parquet_schema *schema,
                                             const struct basalt_parquet_projection *projection,
                                             const struct basalt_parquet_arrow_options *options,
                                             struct ArrowSchema *out, struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "schema_to_arrow: NULL out");
    out->release = NULL;
    if (!schema)
        return basalt_error_set(err, BASALT_INVALID_ARG, "schema_to_arrow: NULL schema");
    if (projection && projection->schema != schema)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "schema_to_arrow: the projection is of another schema");
    struct actx c = {schema, projection, options, err};
    int64_t n = 0;
    for (int32_t i = 0; i < schema->n_roots; i++)
        n += selected(&c, schema->roots[i]);
    basalt_status st = basalt_arrow_schema_init(out, "+s", "", 0, n, err);
    if (st != BASALT_OK)
        return st;
    if (schema->metadata)
        st = basalt_arrow_schema_set_metadata(out, schema->metadata, err);
    int64_t k = 0;
    for (int32_t i = 0; i < schema->n_roots && st == BASALT_OK; i++)
        if (selected(&c, schema->roots[i]))
            st = export_field(&c, schema->roots[i], out->children[k++]);
    if (st != BASALT_OK) {
        basalt_arrow_schema_release(out);
        out->release = NULL;
    }
    return st;
}
