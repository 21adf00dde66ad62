/* Restoring the original Arrow types from a stored ARROW:schema, where the
 * stored type fits the column (rules in parquet_schema.h). */
#include <stdio.h>
#include <string.h>

#include "parquet_schema.h"

static basalt_status set_format(struct basalt_parquet_schema *s,
                                struct basalt_parquet_schema_field *f, const char *format,
                                struct basalt_error *err)
{
    const char *copy = basalt_parquet_schema_strdup(s, format, strlen(format), err);
    if (!copy)
        return BASALT_NOMEM;
    f->format = copy;
    if (f->kind == BASALT_PARQUET_FIELD_PRIMITIVE && !f->dictionary_format) {
        struct basalt_parquet_schema_leaf *leaf = &s->leaves[f->leaf];
        leaf->format = copy;
        leaf->value_width = basalt_parquet_schema_format_width(copy);
    }
    return BASALT_OK;
}

static bool is_extension_key(const struct basalt_arrow_metadata_item *item)
{
    return item->key_len >= 16 && memcmp(item->key, "ARROW:extension:", 16) == 0;
}

/* Looks `key` up in encoded metadata (NULL: none). */
static bool find_key(const char *metadata, const char *key, size_t key_len,
                     struct basalt_arrow_metadata_item *found)
{
    struct basalt_arrow_metadata_reader r;
    if (basalt_arrow_metadata_reader_init(&r, metadata, NULL) != BASALT_OK)
        return false;
    while (basalt_arrow_metadata_reader_next(&r, found))
        if (found->key_len == key_len && memcmp(found->key, key, key_len) == 0)
            return true;
    return false;
}

/* The stored field's metadata, then the field's own keys; the field's values
 * win (PARQUET:field_id). Extension keys come along only when the field now
 * has the stored type. */
static basalt_status merge_metadata(struct basalt_parquet_schema *s,
                                    struct basalt_parquet_schema_field *f,
                                    const struct ArrowSchema *h, struct basalt_error *err)
{
    if (!h->metadata)
        return BASALT_OK;
    bool same_type = strcmp(f->format, h->format) == 0 &&
                     (h->dictionary ? f->dictionary_format &&
                                          strcmp(f->dictionary_format, h->dictionary->format) == 0
                                    : !f->dictionary_format);
    struct basalt_arrow_metadata_reader r;
    struct basalt_arrow_metadata_item item, mine;
    basalt_status st = basalt_arrow_metadata_reader_init(&r, h->metadata, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_buffer md;
    basalt_buffer_init(&md);
    while (st == BASALT_OK && basalt_arrow_metadata_reader_next(&r, &item)) {
        if (is_extension_key(&item) && !same_type)
            continue;
        if (find_key(f->metadata, item.key, item.key_len, &mine))
            item = mine;
        st = basalt_arrow_metadata_append(&md, item.key, item.key_len, item.value,
                                          item.value_len, err);
    }
    if (st == BASALT_OK && f->metadata) {
        st = basalt_arrow_metadata_reader_init(&r, f->metadata, err);
        while (st == BASALT_OK && basalt_arrow_metadata_reader_next(&r, &mine)) {
            if (find_key(h->metadata, mine.key, mine.key_len, &item) &&
                (!is_extension_key(&item) || same_type))
                continue;
            st = basalt_arrow_metadata_append(&md, mine.key, mine.key_len, mine.value,
                                              mine.value_len, err);
        }
    }
    if (st == BASALT_OK)
        st = basalt_parquet_schema_metadata_dup(s, &md, &f->metadata, err);
    basalt_buffer_reset(&md);
    return st;
}

static basalt_status restore_primitive(struct basalt_parquet_schema *s,
                                       struct basalt_parquet_schema_field *f,
                                       const struct ArrowSchema *h, struct basalt_error *err)
{
    struct basalt_arrow_type mine, stored;
    if (basalt_arrow_type_parse(f->format, &mine, NULL) != BASALT_OK ||
        basalt_arrow_type_parse(h->format, &stored, NULL) != BASALT_OK)
        return BASALT_OK;
    char buf[64];
    if (h->dictionary) {
        /* Only byte arrays are read as dictionaries. */
        if ((mine.id == BASALT_ARROW_TYPE_STRING || mine.id == BASALT_ARROW_TYPE_BINARY) &&
            !f->dictionary_format) {
            f->dictionary_format = f->format;
            f->dictionary_ordered = (h->flags & ARROW_FLAG_DICTIONARY_ORDERED) != 0;
            /* The decoder emits int32 indices whatever width the writer's
             * Arrow type had, so the restored index type is int32. */
            const char *index = basalt_parquet_schema_strdup(s, "i", 1, err);
            if (!index)
                return BASALT_NOMEM;
            f->format = index;
        }
        return BASALT_OK;
    }
    switch (stored.id) {
    case BASALT_ARROW_TYPE_TIMESTAMP:
        /* Parquet keeps "UTC-normalised or not"; the zone itself lives here. */
        if (mine.id == BASALT_ARROW_TYPE_TIMESTAMP && mine.timezone &&
            strcmp(mine.timezone, "UTC") == 0 && stored.timezone) {
            snprintf(buf, sizeof buf, "ts%c:", f->format[2]);
            size_t n = strlen(buf), tz = strlen(stored.timezone);
            char *full = basalt_arena_alloc(&s->arena, n + tz + 1, 1);
            if (!full)
                return basalt_error_set(err, BASALT_NOMEM, "out of memory for the schema");
            memcpy(full, buf, n);
            memcpy(full + n, stored.timezone, tz + 1);
            return set_format(s, f, full, err);
        }
        return BASALT_OK;
    case BASALT_ARROW_TYPE_DURATION:
        return mine.id == BASALT_ARROW_TYPE_INT64 ? set_format(s, f, h->format, err) : BASALT_OK;
    case BASALT_ARROW_TYPE_LARGE_STRING:
        return mine.id == BASALT_ARROW_TYPE_STRING ? set_format(s, f, "U", err) : BASALT_OK;
    case BASALT_ARROW_TYPE_LARGE_BINARY:
        return mine.id == BASALT_ARROW_TYPE_BINARY ? set_format(s, f, "Z", err) : BASALT_OK;
    case BASALT_ARROW_TYPE_DECIMAL256:
        if (mine.id == BASALT_ARROW_TYPE_DECIMAL128) {
            snprintf(buf, sizeof buf, "d:%d,%d,256", (int)mine.precision, (int)mine.scale);
            return set_format(s, f, buf, err);
        }
        return BASALT_OK;
    case BASALT_ARROW_TYPE_DECIMAL32:
    case BASALT_ARROW_TYPE_DECIMAL64: {
        /* Narrower than the default decimal128 only where every value the
         * column may hold fits: the precision within the width, and no
         * INT64 read into 32 bits (it would be cut, not checked; byte
         * arrays are checked value by value). */
        int bits = stored.id == BASALT_ARROW_TYPE_DECIMAL32 ? 32 : 64;
        int32_t physical = s->leaves[f->leaf].physical_type;
        if (mine.id != BASALT_ARROW_TYPE_DECIMAL128 || f->dictionary_format ||
            mine.precision > (bits == 32 ? 9 : 18) ||
            (bits == 32 && physical == BASALT_PARQUET_TYPE_INT64))
            return BASALT_OK;
        snprintf(buf, sizeof buf, "d:%d,%d,%d", (int)mine.precision, (int)mine.scale, bits);
        return set_format(s, f, buf, err);
    }
    default:
        return BASALT_OK;
    }
}

static basalt_status apply_field(struct basalt_parquet_schema *s, int32_t field,
                                 const struct ArrowSchema *h, int depth, struct basalt_error *err);

/* Pairs the children of `field` with those of the stored type, when they
 * have the same number. */
static basalt_status apply_children(struct basalt_parquet_schema *s, int32_t field,
                                    const struct ArrowSchema *h, int depth,
                                    struct basalt_error *err)
{
    const struct basalt_parquet_schema_field *f = &s->fields[field];
    if (h->n_children != f->n_children)
        return BASALT_OK;
    for (int32_t i = 0; i < f->n_children; i++) {
        basalt_status st = apply_field(s, f->children[i], h->children[i], depth + 1, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static basalt_status apply_field(struct basalt_parquet_schema *s, int32_t field,
                                 const struct ArrowSchema *h, int depth, struct basalt_error *err)
{
    /* The stored schema was validated to 64 levels; the fields may nest
     * deeper, but then nothing below matches anyway. */
    if (depth > 64)
        return BASALT_OK;
    struct basalt_parquet_schema_field *f = &s->fields[field];
    /* A variant's output type is fixed (metadata, value), whatever the
     * writer's Arrow schema said of its storage. */
    if (f->variant)
        return BASALT_OK;
    basalt_status st = BASALT_OK;
    const char *hf = h->format;
    switch (f->kind) {
    case BASALT_PARQUET_FIELD_PRIMITIVE:
        st = restore_primitive(s, f, h, err);
        break;
    case BASALT_PARQUET_FIELD_STRUCT:
        if (!h->dictionary && strcmp(hf, "+s") == 0)
            st = apply_children(s, field, h, depth, err);
        break;
    case BASALT_PARQUET_FIELD_LIST:
    case BASALT_PARQUET_FIELD_LARGE_LIST:
    case BASALT_PARQUET_FIELD_FIXED_LIST:
        if (h->dictionary || h->n_children != 1)
            break;
        if (strcmp(hf, "+L") == 0) {
            f->kind = BASALT_PARQUET_FIELD_LARGE_LIST;
            f->format = "+L";
        } else if (strncmp(hf, "+w:", 3) == 0) {
            struct basalt_arrow_type t;
            if (basalt_arrow_type_parse(hf, &t, NULL) == BASALT_OK &&
                t.id == BASALT_ARROW_TYPE_FIXED_SIZE_LIST && t.fixed_size >= 0) {
                const char *copy = basalt_parquet_schema_strdup(s, hf, strlen(hf), err);
                if (!copy)
                    return BASALT_NOMEM;
                f->kind = BASALT_PARQUET_FIELD_FIXED_LIST;
                f->format = copy;
                f->list_size = (int32_t)t.fixed_size;
            }
        }
        if (strcmp(hf, "+l") == 0 || strcmp(hf, "+L") == 0 || strncmp(hf, "+w:", 3) == 0)
            st = apply_children(s, field, h, depth, err);
        break;
    case BASALT_PARQUET_FIELD_MAP:
        if (!h->dictionary && strcmp(hf, "+m") == 0 && h->n_children == 1)
            st = apply_children(s, field, h, depth, err);
        break;
    }
    if (st == BASALT_OK)
        st = merge_metadata(s, &s->fields[field], h, err);
    return st;
}

basalt_status basalt_parquet_schema_apply_arrow(struct basalt_parquet_schema *schema,
                                                const struct ArrowSchema *stored,
                                                struct basalt_error *err)
{
    if (stored->n_children != schema->n_roots)
        return BASALT_OK;
    for (int32_t i = 0; i < schema->n_roots; i++) {
        basalt_status st = apply_field(schema, schema->roots[i], stored->children[i], 0, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}
