/* The data writer's table properties: Parquet options, the target file
 * size, and the metrics mode of every leaf column as the Java writer's
 * MetricsConfig derives it. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "data_write_internal.h"

#define DEFAULT_TARGET_BYTES INT64_C(536870912)
#define DEFAULT_ROW_GROUP_BYTES INT64_C(134217728)
#define DEFAULT_MAX_INFERRED 100
#define METRICS_DEFAULT "write.metadata.metrics.default"
#define METRICS_COLUMN "write.metadata.metrics.column."
#define METRICS_MAX_INFERRED "write.metadata.metrics.max-inferred-column-defaults"
/* Parquet's statistics bounds are cut at this many bytes at least (its own
 * default), and at most at the cap below: a longer value keeps a truncated
 * bound, which is still a bound. */
#define MIN_STATISTICS_BYTES 64
#define MAX_STATISTICS_BYTES 65536

/* The last value given for `key` (later entries override earlier ones). */
static const char *prop(const struct basalt_iceberg_data_writer *w, const char *key)
{
    const char *v = NULL;
    for (uint32_t i = 0; i < w->options.n_properties; i++)
        if (w->options.properties[i].key && strcmp(w->options.properties[i].key, key) == 0)
            v = w->options.properties[i].value;
    return v;
}

/* A decimal integer, the whole text (as Java's Long.parseLong). */
static bool parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s || isspace((unsigned char)*s))
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return false;
    *out = v;
    return true;
}

static basalt_status prop_i64(const struct basalt_iceberg_data_writer *w, const char *key,
                              int64_t min, int64_t max, int64_t *out, struct basalt_error *err)
{
    const char *v = prop(w, key);
    if (!v)
        return BASALT_OK;
    int64_t x;
    if (!parse_i64(v, &x) || x < min || x > max)
        return basalt_error_set(err, BASALT_INVALID_ARG, "property %s: '%.100s' is not a number in [%lld, %lld]",
                                key, v, (long long)min, (long long)max);
    *out = x;
    return BASALT_OK;
}

bool basalt_iceberg_dw_mode_parse(const char *text, struct basalt_iceberg_dw_mode *out)
{
    if (!text)
        return false;
    out->length = 0;
    if (strcasecmp(text, "none") == 0) {
        out->kind = BASALT_ICEBERG_DW_NONE;
        return true;
    }
    if (strcasecmp(text, "counts") == 0) {
        out->kind = BASALT_ICEBERG_DW_COUNTS;
        return true;
    }
    if (strcasecmp(text, "full") == 0) {
        out->kind = BASALT_ICEBERG_DW_FULL;
        return true;
    }
    /* truncate(\d+), the length positive and an int */
    if (strncasecmp(text, "truncate(", 9) != 0)
        return false;
    const char *p = text + 9;
    int64_t len = 0;
    if (!isdigit((unsigned char)*p))
        return false;
    while (isdigit((unsigned char)*p)) {
        len = len * 10 + (*p++ - '0');
        if (len > INT32_MAX)
            return false;
    }
    if (strcmp(p, ")") != 0 || len <= 0)
        return false;
    out->kind = BASALT_ICEBERG_DW_TRUNCATE;
    out->length = (int32_t)len;
    return true;
}

static basalt_status parse_codec(const char *name, enum basalt_codec_kind *out,
                                 struct basalt_error *err)
{
    static const struct {
        const char *name;
        enum basalt_codec_kind kind;
    } codecs[] = {
        {"zstd", BASALT_CODEC_ZSTD},           {"snappy", BASALT_CODEC_SNAPPY},
        {"gzip", BASALT_CODEC_GZIP},           {"lz4", BASALT_CODEC_LZ4_HADOOP},
        {"lz4_raw", BASALT_CODEC_LZ4_RAW},     {"brotli", BASALT_CODEC_BROTLI},
        {"uncompressed", BASALT_CODEC_UNCOMPRESSED},
    };
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++) {
        if (strcasecmp(name, codecs[i].name) == 0) {
            *out = codecs[i].kind;
            return BASALT_OK;
        }
    }
    return basalt_error_set(err, BASALT_INVALID_ARG,
                            "property write.parquet.compression-codec: unknown codec '%.100s'",
                            name);
}

static basalt_status parquet_options(struct basalt_iceberg_data_writer *w,
                                     struct basalt_error *err)
{
    struct basalt_parquet_writer_options *o = &w->popts;
    basalt_parquet_writer_options_init(o);
    o->codec = BASALT_CODEC_ZSTD;
    o->row_group_bytes = DEFAULT_ROW_GROUP_BYTES;
    o->pool = w->options.pool;
    o->num_workers = w->options.num_workers;
    o->key_value_metadata = w->kv_metadata;
    w->target_bytes = DEFAULT_TARGET_BYTES;
    const char *codec = prop(w, "write.parquet.compression-codec");
    basalt_status st = codec ? parse_codec(codec, &o->codec, err) : BASALT_OK;
    int64_t level = o->codec_level;
    if (st == BASALT_OK)
        st = prop_i64(w, "write.parquet.compression-level", INT32_MIN, INT32_MAX, &level, err);
    o->codec_level = (int)level;
    if (st == BASALT_OK)
        st = prop_i64(w, "write.target-file-size-bytes", 1, INT64_MAX, &w->target_bytes, err);
    if (st == BASALT_OK)
        st = prop_i64(w, "write.parquet.row-group-size-bytes", 1, INT64_MAX, &o->row_group_bytes,
                      err);
    if (st == BASALT_OK)
        st = prop_i64(w, "write.parquet.page-size-bytes", 1, INT64_MAX, &o->page_bytes, err);
    if (st == BASALT_OK)
        st = prop_i64(w, "write.parquet.page-row-limit", 1, INT32_MAX, &o->page_rows, err);
    if (st == BASALT_OK)
        st = prop_i64(w, "write.parquet.dict-size-bytes", 1, INT32_MAX, &o->dictionary_max_bytes,
                      err);
    return st;
}

/* ------------------------------------------------------------ leaves */

struct leaf_walk {
    struct basalt_iceberg_data_writer *w;
    uint32_t cap;
    /* the default mode, and whether it is the inferred one limited to the
     * first `max_inferred` top-level columns */
    struct basalt_iceberg_dw_mode deflt;
    bool limited;
    int64_t max_inferred;
    char name[1024];
};

static bool has_order(enum basalt_iceberg_type_id id)
{
    switch (id) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_LONG:
    case BASALT_ICEBERG_TYPE_FLOAT:
    case BASALT_ICEBERG_TYPE_DOUBLE:
    case BASALT_ICEBERG_TYPE_DECIMAL:
    case BASALT_ICEBERG_TYPE_DATE:
    case BASALT_ICEBERG_TYPE_TIME:
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_UUID:
    case BASALT_ICEBERG_TYPE_FIXED:
    case BASALT_ICEBERG_TYPE_BINARY:
        return true;
    default: /* unknown is always null; geometry has boxes, not an order */
        return false;
    }
}

/* The mode of the column named lw->name under top-level column `top`. */
static struct basalt_iceberg_dw_mode leaf_mode(const struct leaf_walk *lw, uint32_t top)
{
    struct basalt_iceberg_dw_mode fallback = lw->deflt;
    struct basalt_iceberg_dw_mode mode = lw->deflt;
    if (lw->limited) {
        /* Java: the first columns get the default by name, the rest none,
         * and a bad override falls back to none. */
        fallback.kind = BASALT_ICEBERG_DW_NONE;
        fallback.length = 0;
        if (top >= lw->max_inferred)
            mode = fallback;
    }
    char key[sizeof lw->name + sizeof METRICS_COLUMN];
    snprintf(key, sizeof key, "%s%s", METRICS_COLUMN, lw->name);
    const char *v = prop(lw->w, key);
    if (v && !basalt_iceberg_dw_mode_parse(v, &mode))
        mode = fallback;
    return mode;
}

static basalt_status add_leaf(struct leaf_walk *lw, const struct basalt_iceberg_field *f,
                              uint32_t top, bool through_structs, struct basalt_error *err)
{
    struct basalt_iceberg_data_writer *w = lw->w;
    if (w->n_leaves == lw->cap) {
        uint32_t cap = lw->cap ? lw->cap * 2 : 16;
        struct basalt_iceberg_dw_leaf *l = basalt_realloc(w->leaves, cap * sizeof *l);
        if (!l)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        w->leaves = l;
        lw->cap = cap;
    }
    struct basalt_iceberg_dw_leaf *leaf = &w->leaves[w->n_leaves++];
    leaf->field = f;
    leaf->mode = leaf_mode(lw, top);
    leaf->bounds = through_structs && has_order(f->type.id);
    leaf->nan = (f->type.id == BASALT_ICEBERG_TYPE_FLOAT ||
                 f->type.id == BASALT_ICEBERG_TYPE_DOUBLE) &&
                leaf->mode.kind != BASALT_ICEBERG_DW_NONE;
    if (leaf->nan)
        w->any_nan = true;
    return BASALT_OK;
}

static basalt_status walk(struct leaf_walk *lw, const struct basalt_iceberg_field *f, uint32_t top,
                          bool through_structs, int depth, struct basalt_error *err)
{
    if (depth > 64)
        return basalt_error_set(err, BASALT_LIMIT, "schema nested deeper than 64 levels");
    size_t len = strlen(lw->name);
    const char *name = f->name ? f->name : "";
    if (len + strlen(name) + 2 > sizeof lw->name)
        return basalt_error_set(err, BASALT_LIMIT, "column name too long: %.200s", lw->name);
    snprintf(lw->name + len, sizeof lw->name - len, "%s%s", len ? "." : "", name);
    basalt_status st = BASALT_OK;
    const struct basalt_iceberg_type *t = &f->type;
    switch (t->id) {
    case BASALT_ICEBERG_TYPE_STRUCT:
        for (uint32_t i = 0; st == BASALT_OK && i < t->n_fields; i++)
            st = walk(lw, &t->fields[i], top, through_structs, depth + 1, err);
        break;
    case BASALT_ICEBERG_TYPE_LIST:
    case BASALT_ICEBERG_TYPE_MAP:
        for (uint32_t i = 0; st == BASALT_OK && i < t->n_fields; i++)
            st = walk(lw, &t->fields[i], top, false, depth + 1, err);
        break;
    case BASALT_ICEBERG_TYPE_VARIANT:
        st = basalt_error_set(err, BASALT_UNSUPPORTED, "column '%s': variant columns are not written",
                              lw->name);
        break;
    default:
        st = add_leaf(lw, f, top, through_structs, err);
    }
    lw->name[len] = '\0';
    return st;
}

/* Parquet keeps bounds long enough for every truncation asked for: a
 * string's N code points take at most 4N bytes, and one more byte keeps the
 * one Parquet increments in a cut maximum out of them. */
static size_t statistics_bytes(const struct basalt_iceberg_data_writer *w)
{
    size_t need = MIN_STATISTICS_BYTES;
    for (uint32_t i = 0; i < w->n_leaves; i++) {
        const struct basalt_iceberg_dw_leaf *l = &w->leaves[i];
        enum basalt_iceberg_type_id id = l->field->type.id;
        if (!l->bounds || (id != BASALT_ICEBERG_TYPE_STRING && id != BASALT_ICEBERG_TYPE_BINARY))
            continue;
        size_t n;
        if (l->mode.kind == BASALT_ICEBERG_DW_FULL)
            n = MAX_STATISTICS_BYTES;
        else if (l->mode.kind == BASALT_ICEBERG_DW_TRUNCATE)
            n = (size_t)l->mode.length * (id == BASALT_ICEBERG_TYPE_STRING ? 4 : 1) + 1;
        else
            continue;
        if (n > need)
            need = n;
    }
    return need > MAX_STATISTICS_BYTES ? MAX_STATISTICS_BYTES : need;
}

basalt_status basalt_iceberg_dw_configure(struct basalt_iceberg_data_writer *w,
                                          struct basalt_error *err)
{
    basalt_status st = parquet_options(w, err);
    if (st != BASALT_OK)
        return st;
    struct leaf_walk *lw = basalt_calloc(1, sizeof *lw);
    if (!lw)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    lw->w = w;
    lw->deflt.kind = BASALT_ICEBERG_DW_TRUNCATE;
    lw->deflt.length = 16;
    lw->max_inferred = DEFAULT_MAX_INFERRED;
    const char *v = prop(w, METRICS_MAX_INFERRED);
    int64_t max_inferred;
    if (v && parse_i64(v, &max_inferred) && max_inferred >= 0)
        lw->max_inferred = max_inferred; /* Java: a negative value means the default */
    const struct basalt_iceberg_type *root = &w->schema->root;
    v = prop(w, METRICS_DEFAULT);
    if (v) {
        /* A default set by the user applies to every column. */
        struct basalt_iceberg_dw_mode m;
        if (basalt_iceberg_dw_mode_parse(v, &m))
            lw->deflt = m;
    } else {
        lw->limited = root->n_fields > lw->max_inferred;
    }
    for (uint32_t i = 0; st == BASALT_OK && i < root->n_fields; i++)
        st = walk(lw, &root->fields[i], i, true, 0, err);
    basalt_free(lw);
    if (st == BASALT_OK)
        w->popts.max_statistics_size = statistics_bytes(w);
    return st;
}
