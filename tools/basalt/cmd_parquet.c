/* basalt parquet: schema, meta, head, cat and scan over Parquet files. */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "basalt/parquet.h"
#include "cli.h"
#include "format.h"

/* ------------------------------------------------------------------ arguments */

/* --key-file and --aad-prefix of the one command this process runs. */
static struct cli_keys keys;

struct args {
    const char *verb;
    const char *path;
    const char *columns;
    const char *where;
    enum cli_format_kind format;
    int64_t limit;   /* -n: rows (head); -1 for all */
    int threads;
    int repeat;
    int warmup;
};

static bool parse_count(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* Options each verb takes: c columns, w where, f format, n rows, t threads,
 * r repeat, W warmup. */
static int parse_args(int argc, char **argv, const char *verb, const char *allowed,
                      struct args *a)
{
    memset(a, 0, sizeof *a);
    a->verb = verb;
    a->limit = -1;
    a->threads = 1;
    a->repeat = 1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        char opt = 0;
        if (strcmp(arg, "--key-file") == 0 || strcmp(arg, "--aad-prefix") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error("parquet %s: %s needs a value", verb, arg);
            bool taken = false;
            int rc = cli_keys_option(&keys, arg, argv[++i], &taken);
            if (rc != CLI_OK)
                return rc;
            continue;
        }
        if (strcmp(arg, "--columns") == 0)
            opt = 'c';
        else if (strcmp(arg, "--where") == 0)
            opt = 'w';
        else if (strcmp(arg, "--format") == 0)
            opt = 'f';
        else if (strcmp(arg, "-n") == 0 || strcmp(arg, "--rows") == 0)
            opt = 'n';
        else if (strcmp(arg, "--threads") == 0)
            opt = 't';
        else if (strcmp(arg, "--repeat") == 0)
            opt = 'r';
        else if (strcmp(arg, "--warmup") == 0)
            opt = 'W';
        if (!opt) {
            if (arg[0] == '-' && arg[1])
                return cli_usage_error("parquet %s: unknown option '%s'", verb, arg);
            if (a->path)
                return cli_usage_error("parquet %s: unexpected argument '%s'", verb, arg);
            a->path = arg;
            continue;
        }
        if (!strchr(allowed, opt))
            return cli_usage_error("parquet %s: unknown option '%s'", verb, arg);
        if (i + 1 >= argc)
            return cli_usage_error("parquet %s: %s needs a value", verb, arg);
        const char *val = argv[++i];
        int64_t v = 0;
        switch (opt) {
        case 'c': a->columns = val; break;
        case 'w': a->where = val; break;
        case 'f':
            if (!cli_format_parse(val, &a->format))
                return cli_usage_error("parquet %s: unknown format '%s' (table, csv, json)", verb,
                                       val);
            break;
        case 'n':
            if (!parse_count(val, 0, INT64_MAX, &v))
                return cli_usage_error("parquet %s: -n wants a row count, got '%s'", verb, val);
            a->limit = v;
            break;
        case 't':
            if (!parse_count(val, 1, 1024, &v))
                return cli_usage_error("parquet %s: --threads wants 1..1024, got '%s'", verb, val);
            a->threads = (int)v;
            break;
        case 'r':
            if (!parse_count(val, 1, 1000000, &v))
                return cli_usage_error("parquet %s: --repeat wants a positive count, got '%s'",
                                       verb, val);
            a->repeat = (int)v;
            break;
        case 'W':
            if (!parse_count(val, 0, 1000, &v))
                return cli_usage_error("parquet %s: --warmup wants 0..1000, got '%s'", verb, val);
            a->warmup = (int)v;
            break;
        }
    }
    if (!a->path)
        return cli_usage_error("parquet %s: expected FILE", verb);
    return CLI_OK;
}

static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i]))
            return true;
    return false;
}

/* Every verb's help ends with this. */
#define KEYS_HELP                                                                         \
    "\nencrypted files: --key-file PATH reads keys, one 'NAME KEY' line each (# comments):\n" \
    "  footer KEY       the footer key\n"                                                  \
    "  id:META KEY      the key whose key metadata in the file is META\n"                  \
    "  column:PATH KEY  the key of leaf column PATH\n"                                     \
    "  master:ID KEY    a master key for parquet-java key material (PKMT1, also\n"          \
    "                   _KEY_MATERIAL_FOR_<file>.json beside the file)\n"                   \
    "  NAME KEY         both id:NAME and column:NAME\n"                                    \
    "KEY is hex (32, 48 or 64 digits) or base64 (16, 24 or 32 bytes). --aad-prefix TEXT\n"  \
    "gives the AAD prefix of a file that does not store it.\n"                            \
    "\nFILE is a local path or a URI (s3://, gs://, az://, http(s)://, file://); the\n"      \
    "object-store options are in 'basalt --help'.\n"

/* Opens `path` (a local path or a URI) with the keys of --key-file / --aad-prefix, if any. */
static basalt_status open_file(const char *path, struct basalt_parquet_reader **r,
                               struct basalt_error *err)
{
    const struct basalt_parquet_decryption *dec = NULL;
    if (cli_keys_decryption(&keys, path, &dec) != CLI_OK)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_parquet_reader_options o;
    basalt_parquet_reader_options_init(&o);
    o.decryption = dec;
    struct basalt_input *in = NULL;
    basalt_status st = cli_open_input(path, &in, err);
    if (st != BASALT_OK)
        return st;
    return basalt_parquet_reader_open(in, true /* owns */, &o, r, err);
}

static int open_reader(const char *path, struct basalt_parquet_reader **r,
                       struct basalt_error *err)
{
    if (open_file(path, r, err) != BASALT_OK)
        return cli_fail_error(err);
    return CLI_OK;
}

/* ------------------------------------------------------------------ schema */

static const char *physical_name(const struct basalt_parquet_schema_element *e, char *buf,
                                 size_t cap)
{
    switch (e->type) {
    case BASALT_PARQUET_TYPE_BOOLEAN: return "boolean";
    case BASALT_PARQUET_TYPE_INT32: return "int32";
    case BASALT_PARQUET_TYPE_INT64: return "int64";
    case BASALT_PARQUET_TYPE_INT96: return "int96";
    case BASALT_PARQUET_TYPE_FLOAT: return "float";
    case BASALT_PARQUET_TYPE_DOUBLE: return "double";
    case BASALT_PARQUET_TYPE_BYTE_ARRAY: return "binary";
    case BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY:
        snprintf(buf, cap, "fixed_len_byte_array(%d)", (int)e->type_length);
        return buf;
    default: snprintf(buf, cap, "type%d", (int)e->type); return buf;
    }
}

static const char *unit_name(int32_t unit)
{
    return unit == BASALT_PARQUET_TIME_UNIT_MILLIS   ? "MILLIS"
           : unit == BASALT_PARQUET_TIME_UNIT_MICROS ? "MICROS"
           : unit == BASALT_PARQUET_TIME_UNIT_NANOS  ? "NANOS"
                                                     : "?";
}

/* The annotation of an element as parquet-format names it. */
static void annotation(const struct basalt_parquet_schema_element *e, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (e->has_logical_type && e->logical_type.kind != BASALT_PARQUET_LOGICAL_TYPE_NONE) {
        const struct basalt_parquet_logical_type *l = &e->logical_type;
        const char *name = basalt_thrift_parquet_logical_type_name(l->kind);
        switch (l->kind) {
        case BASALT_PARQUET_LOGICAL_TYPE_DECIMAL:
            snprintf(buf, cap, "DECIMAL(%d,%d)", (int)l->decimal.precision, (int)l->decimal.scale);
            return;
        case BASALT_PARQUET_LOGICAL_TYPE_TIME:
        case BASALT_PARQUET_LOGICAL_TYPE_TIMESTAMP:
            snprintf(buf, cap, "%s(%s,%s)", name, unit_name(l->time.unit),
                     l->time.is_adjusted_to_utc ? "true" : "false");
            return;
        case BASALT_PARQUET_LOGICAL_TYPE_INTEGER:
            snprintf(buf, cap, "INTEGER(%d,%s)", (int)l->integer.bit_width,
                     l->integer.is_signed ? "true" : "false");
            return;
        case BASALT_PARQUET_LOGICAL_TYPE_VARIANT:
            if (l->variant.has_specification_version)
                snprintf(buf, cap, "VARIANT(%d)", (int)l->variant.specification_version);
            else
                snprintf(buf, cap, "VARIANT");
            return;
        case BASALT_PARQUET_LOGICAL_TYPE_GEOMETRY:
        case BASALT_PARQUET_LOGICAL_TYPE_GEOGRAPHY: {
            /* A PROJJSON crs runs to kilobytes: its start is enough here. */
            static const char *const algorithms[] = {"SPHERICAL", "VINCENTY", "THOMAS",
                                                     "ANDOYER", "KARNEY"};
            char crs[48] = "";
            if (l->geo.has_crs && l->geo.crs.data)
                snprintf(crs, sizeof crs, "crs=%s%.*s", l->geo.crs.len > 32 ? "" : "",
                         (int)(l->geo.crs.len > 32 ? 29 : l->geo.crs.len), l->geo.crs.data);
            if (l->geo.has_crs && l->geo.crs.len > 32)
                strcat(crs, "...");
            char alg[32] = "";
            if (l->geo.has_algorithm)
                snprintf(alg, sizeof alg, "algorithm=%s",
                         l->geo.algorithm >= 0 && l->geo.algorithm <= 4
                             ? algorithms[l->geo.algorithm]
                             : "?");
            snprintf(buf, cap, "%s%s%s%s%s%s", name, crs[0] || alg[0] ? "(" : "", crs,
                     crs[0] && alg[0] ? ", " : "", alg, crs[0] || alg[0] ? ")" : "");
            return;
        }
        default:
            snprintf(buf, cap, "%s", name ? name : "UNKNOWN_LOGICAL_TYPE");
            return;
        }
    }
    if (e->has_converted_type) {
        const char *name = basalt_thrift_parquet_converted_type_name(e->converted_type);
        if (e->converted_type == BASALT_PARQUET_CONVERTED_TYPE_DECIMAL)
            snprintf(buf, cap, "DECIMAL(%d,%d)", (int)e->precision, (int)e->scale);
        else
            snprintf(buf, cap, "%s", name ? name : "?");
    }
}

/* Prints elements [*at, ...) of one group's children, depth-first. */
static void print_elements(const struct basalt_parquet_file_metadata *md, size_t *at, int32_t n,
                           int indent)
{
    for (int32_t k = 0; k < n && *at < md->num_schema; k++) {
        const struct basalt_parquet_schema_element *e = &md->schema[(*at)++];
        const char *rep = basalt_thrift_parquet_repetition_name(e->repetition_type);
        char lower[16] = "required", ann[128], phys[48];
        if (e->has_repetition_type && rep) {
            size_t i = 0;
            for (; rep[i] && i + 1 < sizeof lower; i++)
                lower[i] = (char)(rep[i] >= 'A' && rep[i] <= 'Z' ? rep[i] + 32 : rep[i]);
            lower[i] = '\0';
        }
        annotation(e, ann, sizeof ann);
        bool group = e->has_num_children && e->num_children > 0;
        printf("%*s%s %s %s", indent, "", lower, group ? "group" : physical_name(e, phys, sizeof phys),
               e->name.data ? e->name.data : "");
        if (ann[0])
            printf(" (%s)", ann);
        if (e->has_field_id)
            printf(" = %d", (int)e->field_id);
        if (group) {
            printf(" {\n");
            print_elements(md, at, e->num_children, indent + 2);
            printf("%*s}\n", indent, "");
        } else {
            printf(";\n");
        }
    }
}

/* An Arrow type as text: int32, utf8, timestamp[us, tz=UTC], list<element: int32>. */
static void arrow_type_text(const struct ArrowSchema *s, struct basalt_buffer *out)
{
    char buf[160];
    if (s->dictionary) {
        struct basalt_buffer v;
        basalt_buffer_init(&v);
        arrow_type_text(s->dictionary, &v);
        basalt_buffer_append(&v, "", 1, NULL);
        struct basalt_arrow_type it;
        basalt_arrow_type_parse(s->format, &it, NULL);
        snprintf(buf, sizeof buf, "dictionary<values=%s, indices=%s%s>", (const char *)v.data,
                 basalt_arrow_type_name(it.id),
                 (s->flags & ARROW_FLAG_DICTIONARY_ORDERED) ? ", ordered" : "");
        basalt_buffer_reset(&v);
        basalt_buffer_append(out, buf, strlen(buf), NULL);
        return;
    }
    struct basalt_arrow_type t;
    if (basalt_arrow_type_parse(s->format, &t, NULL) != BASALT_OK) {
        basalt_buffer_append(out, s->format, strlen(s->format), NULL);
        return;
    }
    static const char *units[] = {"s", "ms", "us", "ns"};
    const char *name = basalt_arrow_type_name(t.id);
    switch (t.id) {
    case BASALT_ARROW_TYPE_DECIMAL32:
    case BASALT_ARROW_TYPE_DECIMAL64:
    case BASALT_ARROW_TYPE_DECIMAL128:
    case BASALT_ARROW_TYPE_DECIMAL256:
        snprintf(buf, sizeof buf, "%s(%d, %d)", name, (int)t.precision, (int)t.scale);
        break;
    case BASALT_ARROW_TYPE_TIMESTAMP:
        if (t.timezone && t.timezone[0])
            snprintf(buf, sizeof buf, "timestamp[%s, tz=%s]", units[t.unit], t.timezone);
        else
            snprintf(buf, sizeof buf, "timestamp[%s]", units[t.unit]);
        break;
    case BASALT_ARROW_TYPE_TIME32:
    case BASALT_ARROW_TYPE_TIME64:
    case BASALT_ARROW_TYPE_DURATION:
        snprintf(buf, sizeof buf, "%s[%s]", name, units[t.unit]);
        break;
    case BASALT_ARROW_TYPE_FIXED_SIZE_BINARY:
        snprintf(buf, sizeof buf, "fixed_size_binary[%d]", (int)t.fixed_size);
        break;
    case BASALT_ARROW_TYPE_LIST:
    case BASALT_ARROW_TYPE_LARGE_LIST:
    case BASALT_ARROW_TYPE_FIXED_SIZE_LIST:
    case BASALT_ARROW_TYPE_STRUCT:
    case BASALT_ARROW_TYPE_MAP: {
        basalt_buffer_append(out, name, strlen(name), NULL);
        if (t.id == BASALT_ARROW_TYPE_FIXED_SIZE_LIST) {
            snprintf(buf, sizeof buf, "[%d]", (int)t.fixed_size);
            basalt_buffer_append(out, buf, strlen(buf), NULL);
        }
        basalt_buffer_append(out, "<", 1, NULL);
        const struct ArrowSchema *p = s;
        if (t.id == BASALT_ARROW_TYPE_MAP && s->n_children == 1)
            p = s->children[0];
        for (int64_t c = 0; c < p->n_children; c++) {
            if (c)
                basalt_buffer_append(out, ", ", 2, NULL);
            const char *cn = p->children[c]->name ? p->children[c]->name : "";
            basalt_buffer_append(out, cn, strlen(cn), NULL);
            basalt_buffer_append(out, ": ", 2, NULL);
            arrow_type_text(p->children[c], out);
            if (!(p->children[c]->flags & ARROW_FLAG_NULLABLE))
                basalt_buffer_append(out, " not null", 9, NULL);
        }
        basalt_buffer_append(out, ">", 1, NULL);
        return;
    }
    default:
        snprintf(buf, sizeof buf, "%s", name);
        break;
    }
    basalt_buffer_append(out, buf, strlen(buf), NULL);
}

static int cmd_schema(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt parquet schema FILE [--key-file PATH] [--aad-prefix TEXT]\n\n"
               "Prints the file's Parquet schema (repetition, physical type, name,\n"
               "annotation, = field id) and the Arrow schema it is read as.\n" KEYS_HELP);
        return CLI_OK;
    }
    struct args a;
    int rc = parse_args(argc, argv, "schema", "", &a);
    if (rc != CLI_OK)
        return rc;
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    if ((rc = open_reader(a.path, &r, &err)) != CLI_OK)
        return rc;
    const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r);
    const struct basalt_parquet_schema_element *root = &md->schema[0];
    printf("message %s {\n", root->name.data ? root->name.data : "schema");
    size_t at = 1;
    print_elements(md, &at, root->has_num_children ? root->num_children : 0, 2);
    printf("}\n\narrow schema:\n");
    struct ArrowSchema s;
    if (basalt_parquet_reader_schema(r, &s, &err) != BASALT_OK) {
        basalt_parquet_reader_close(r);
        return cli_fail_error(&err);
    }
    struct basalt_buffer line;
    basalt_buffer_init(&line);
    for (int64_t c = 0; c < s.n_children; c++) {
        line.size = 0;
        arrow_type_text(s.children[c], &line);
        basalt_buffer_append(&line, "", 1, NULL);
        printf("  %s: %s%s\n", s.children[c]->name, (const char *)line.data,
               (s.children[c]->flags & ARROW_FLAG_NULLABLE) ? "" : " not null");
    }
    basalt_buffer_reset(&line);
    basalt_arrow_schema_release(&s);
    basalt_parquet_reader_close(r);
    return fflush(stdout) == 0 ? CLI_OK : cli_fail("write to stdout failed");
}

/* ------------------------------------------------------------------ meta */

static uint64_t le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n && i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* A statistics bound (PLAIN-encoded) as text, by the column's type. */
static void bound_text(const struct basalt_parquet_column_info *info,
                       const struct basalt_parquet_binary *b, char *buf, size_t cap)
{
    const struct basalt_parquet_schema_element *e = info->element;
    const struct basalt_parquet_logical_type *l = &e->logical_type;
    bool is_unsigned =
        (e->has_logical_type && l->kind == BASALT_PARQUET_LOGICAL_TYPE_INTEGER &&
         !l->integer.is_signed) ||
        (e->has_converted_type && e->converted_type >= BASALT_PARQUET_CONVERTED_TYPE_UINT_8 &&
         e->converted_type <= BASALT_PARQUET_CONVERTED_TYPE_UINT_64);
    bool is_string = (e->has_logical_type && (l->kind == BASALT_PARQUET_LOGICAL_TYPE_STRING ||
                                              l->kind == BASALT_PARQUET_LOGICAL_TYPE_ENUM ||
                                              l->kind == BASALT_PARQUET_LOGICAL_TYPE_JSON)) ||
                     (e->has_converted_type &&
                      (e->converted_type == BASALT_PARQUET_CONVERTED_TYPE_UTF8 ||
                       e->converted_type == BASALT_PARQUET_CONVERTED_TYPE_ENUM ||
                       e->converted_type == BASALT_PARQUET_CONVERTED_TYPE_JSON));
    const uint8_t *p = b->data;
    size_t n = b->len;
    switch (info->physical_type) {
    case BASALT_PARQUET_TYPE_BOOLEAN:
        if (n >= 1) {
            snprintf(buf, cap, "%s", p[0] ? "true" : "false");
            return;
        }
        break;
    case BASALT_PARQUET_TYPE_INT32:
        if (n == 4) {
            uint32_t v = (uint32_t)le(p, 4);
            if (is_unsigned)
                snprintf(buf, cap, "%u", v);
            else
                snprintf(buf, cap, "%d", (int32_t)v);
            return;
        }
        break;
    case BASALT_PARQUET_TYPE_INT64:
        if (n == 8) {
            uint64_t v = le(p, 8);
            if (is_unsigned)
                snprintf(buf, cap, "%llu", (unsigned long long)v);
            else
                snprintf(buf, cap, "%lld", (long long)(int64_t)v);
            return;
        }
        break;
    case BASALT_PARQUET_TYPE_FLOAT:
        if (n == 4) {
            uint32_t v = (uint32_t)le(p, 4);
            float f;
            memcpy(&f, &v, 4);
            cli_format_double(f, true, buf);
            return;
        }
        break;
    case BASALT_PARQUET_TYPE_DOUBLE:
        if (n == 8) {
            uint64_t v = le(p, 8);
            double d;
            memcpy(&d, &v, 8);
            cli_format_double(d, false, buf);
            return;
        }
        break;
    case BASALT_PARQUET_TYPE_FIXED_LEN_BYTE_ARRAY:
        if (n == 2 && e->has_logical_type && l->kind == BASALT_PARQUET_LOGICAL_TYPE_FLOAT16) {
            /* IEEE 754 binary16, exact in a double */
            unsigned h = (unsigned)le(p, 2), x = (h >> 10) & 31, f = h & 1023;
            double d = x == 0 ? ldexp(f, -24) : x == 31 ? (f ? NAN : INFINITY) : ldexp(f + 1024, (int)x - 25);
            cli_format_double((h & 0x8000) ? -d : d, false, buf);
            return;
        }
        break;
    default:
        break;
    }
    if (is_string) {
        size_t k = 0;
        for (size_t i = 0; i < n && k + 4 < cap && i < 40; i++)
            buf[k++] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
        if (n > 40 && k + 4 < cap) {
            memcpy(buf + k, "...", 3);
            k += 3;
        }
        buf[k] = '\0';
        return;
    }
    size_t k = 0;
    k += (size_t)snprintf(buf, cap, "0x");
    for (size_t i = 0; i < n && k + 6 < cap && i < 20; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%02x", p[i]);
    if (n > 20 && k + 4 < cap)
        snprintf(buf + k, cap - k, "...");
}

/* GeospatialStatistics as text: "x 30..40 y 10..20 z 40..80; types 1,1001"
 * (the bounding box, when there is one, then the WKB type codes). */
static void geo_text(const struct basalt_parquet_geospatial_statistics *g, char *buf, size_t cap)
{
    size_t w = 0;
    buf[0] = '\0';
    if (g->has_bbox) {
        const struct basalt_parquet_bounding_box *x = &g->bbox;
        double lo[4] = {x->xmin, x->ymin, x->zmin, x->mmin}, hi[4] = {x->xmax, x->ymax, x->zmax,
                                                                     x->mmax};
        bool has[4] = {true, true, x->has_zmin && x->has_zmax, x->has_mmin && x->has_mmax};
        static const char axis[] = "xyzm";
        for (int k = 0; k < 4 && w + 80 < cap; k++) {
            if (!has[k])
                continue;
            char a[32], b[32];
            cli_format_double(lo[k], false, a);
            cli_format_double(hi[k], false, b);
            w += (size_t)snprintf(buf + w, cap - w, "%s%c %s..%s", w ? " " : "", axis[k], a, b);
        }
    }
    if (g->has_geospatial_types && w + 16 < cap) {
        w += (size_t)snprintf(buf + w, cap - w, "%stypes ", w ? "; " : "");
        for (size_t i = 0; i < g->num_geospatial_types && w + 12 < cap; i++)
            w += (size_t)snprintf(buf + w, cap - w, "%s%d", i ? "," : "",
                                  (int)g->geospatial_types[i]);
    }
}

/* The builders of the meta table, one per column. */
enum meta_col {
    M_GROUP, M_COLUMN, M_TYPE, M_CODEC, M_ENCODINGS, M_VALUES, M_COMPRESSED, M_UNCOMPRESSED,
    M_MIN, M_MAX, M_NULLS, M_INDEX, M_BLOOM, M_COUNT
};

static basalt_status meta_table(struct basalt_parquet_reader *r, struct ArrowSchema *schema,
                                struct ArrowArray *array, struct basalt_error *err)
{
    static const struct {
        const char *name, *format;
    } cols[M_COUNT] = {{"row_group", "i"},    {"column", "u"},      {"type", "u"},
                       {"codec", "u"},        {"encodings", "u"},   {"values", "l"},
                       {"compressed", "l"},   {"uncompressed", "l"}, {"min", "u"},
                       {"max", "u"},          {"nulls", "l"},       {"page_index", "u"},
                       {"bloom", "u"}};
    struct basalt_arrow_builder *b = NULL, *c[M_COUNT], *geo = NULL;
    basalt_status st = basalt_arrow_builder_new("+s", "", 0, &b, err);
    for (int k = 0; k < M_COUNT && st == BASALT_OK; k++)
        st = basalt_arrow_builder_add_child(b, cols[k].format, cols[k].name, ARROW_FLAG_NULLABLE,
                                            &c[k], err);
    const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r);
    /* A geo column only for files with GeospatialStatistics. */
    bool any_geo = false;
    for (size_t g = 0; g < md->num_row_groups; g++)
        for (size_t k = 0; k < md->row_groups[g].num_columns; k++)
            any_geo |= md->row_groups[g].columns[k].meta_data.has_geospatial_statistics;
    if (any_geo && st == BASALT_OK)
        st = basalt_arrow_builder_add_child(b, "u", "geo", ARROW_FLAG_NULLABLE, &geo, err);
    char buf[256];
    for (int32_t g = 0; g < (int32_t)md->num_row_groups && st == BASALT_OK; g++) {
        for (int32_t k = 0; k < basalt_parquet_reader_num_columns(r) && st == BASALT_OK; k++) {
            const struct basalt_parquet_column_chunk *cc = &md->row_groups[g].columns[k];
            const struct basalt_parquet_column_metadata *m = &cc->meta_data;
            struct basalt_parquet_column_info info;
            st = basalt_parquet_reader_column(r, k, &info, err);
            if (st != BASALT_OK)
                break;
            st = basalt_arrow_builder_append_int(c[M_GROUP], g, err);
            if (st == BASALT_OK)
                st = basalt_arrow_builder_append_string(c[M_COLUMN], info.path, err);
            bool plain = cc->has_meta_data;
            if (st == BASALT_OK) {
                const char *tn = basalt_thrift_parquet_type_name(info.physical_type);
                st = basalt_arrow_builder_append_string(c[M_TYPE], tn ? tn : "?", err);
            }
            if (st == BASALT_OK && !plain) {
                /* Encrypted: nothing more to say. */
                for (int x = M_CODEC; x < M_COUNT && st == BASALT_OK; x++)
                    st = basalt_arrow_builder_append_null(c[x], err);
                if (st == BASALT_OK)
                    st = basalt_arrow_builder_end_element(b, err);
                continue;
            }
            if (st == BASALT_OK) {
                const char *cn = basalt_thrift_parquet_codec_name(m->codec);
                st = basalt_arrow_builder_append_string(c[M_CODEC], cn ? cn : "?", err);
            }
            if (st == BASALT_OK) {
                size_t w = 0;
                buf[0] = '\0';
                for (size_t e = 0; e < m->num_encodings && w + 32 < sizeof buf; e++) {
                    const char *en = basalt_thrift_parquet_encoding_name(m->encodings[e]);
                    w += (size_t)snprintf(buf + w, sizeof buf - w, "%s%s", e ? "," : "",
                                          en ? en : "?");
                }
                st = basalt_arrow_builder_append_string(c[M_ENCODINGS], buf, err);
            }
            if (st == BASALT_OK)
                st = basalt_arrow_builder_append_int(c[M_VALUES], m->num_values, err);
            if (st == BASALT_OK)
                st = basalt_arrow_builder_append_int(c[M_COMPRESSED], m->total_compressed_size, err);
            if (st == BASALT_OK)
                st = basalt_arrow_builder_append_int(c[M_UNCOMPRESSED], m->total_uncompressed_size,
                                                     err);
            struct basalt_parquet_column_stats cs;
            memset(&cs, 0, sizeof cs);
            basalt_status sst = basalt_parquet_reader_column_stats(r, g, k, &cs, NULL);
            if (st == BASALT_OK) {
                if (sst == BASALT_OK && cs.has_min_max) {
                    bound_text(&info, &cs.min, buf, sizeof buf);
                    st = basalt_arrow_builder_append_string(c[M_MIN], buf, err);
                    if (st == BASALT_OK) {
                        bound_text(&info, &cs.max, buf, sizeof buf);
                        st = basalt_arrow_builder_append_string(c[M_MAX], buf, err);
                    }
                } else {
                    st = basalt_arrow_builder_append_null(c[M_MIN], err);
                    if (st == BASALT_OK)
                        st = basalt_arrow_builder_append_null(c[M_MAX], err);
                }
            }
            if (st == BASALT_OK) {
                if (sst == BASALT_OK && cs.has_null_count)
                    st = basalt_arrow_builder_append_int(c[M_NULLS], cs.null_count, err);
                else
                    st = basalt_arrow_builder_append_null(c[M_NULLS], err);
            }
            if (st == BASALT_OK) {
                const char *pi = cc->has_column_index_offset && cc->has_offset_index_offset
                                     ? "column+offset"
                                 : cc->has_offset_index_offset ? "offset"
                                 : cc->has_column_index_offset ? "column"
                                                               : "none";
                st = basalt_arrow_builder_append_string(c[M_INDEX], pi, err);
            }
            if (st == BASALT_OK)
                st = basalt_arrow_builder_append_string(c[M_BLOOM],
                                                        m->has_bloom_filter_offset ? "yes" : "no",
                                                        err);
            if (st == BASALT_OK && geo) {
                if (sst == BASALT_OK && cs.geospatial) {
                    geo_text(cs.geospatial, buf, sizeof buf);
                    st = basalt_arrow_builder_append_string(geo, buf, err);
                } else {
                    st = basalt_arrow_builder_append_null(geo, err);
                }
            }
            if (st == BASALT_OK)
                st = basalt_arrow_builder_end_element(b, err);
        }
    }
    if (st == BASALT_OK)
        st = basalt_arrow_builder_finish(b, schema, array, err);
    basalt_arrow_builder_free(b);
    return st;
}

static int cmd_meta(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt parquet meta FILE [--format table|csv|json] [--key-file PATH]\n"
               "                          [--aad-prefix TEXT]\n\n"
               "Prints the footer: writer, version, rows, row groups, key/value metadata\n"
               "keys, then one line per column chunk: type, codec, encodings, values,\n"
               "compressed and uncompressed bytes, the statistics the reader trusts (min,\n"
               "max, null count), page index and bloom filter presence, and for files with\n"
               "GEOMETRY or GEOGRAPHY statistics their bounding box and WKB types (geo).\n"
               "With --format csv or json only the column chunk lines are printed.\n" KEYS_HELP);
        return CLI_OK;
    }
    struct args a;
    int rc = parse_args(argc, argv, "meta", "f", &a);
    if (rc != CLI_OK)
        return rc;
    struct basalt_error err;
    struct basalt_parquet_reader *r = NULL;
    if ((rc = open_reader(a.path, &r, &err)) != CLI_OK)
        return rc;
    const struct basalt_parquet_file_metadata *md = basalt_parquet_reader_metadata(r);
    if (a.format == CLI_FORMAT_TABLE) {
        printf("file: %s\n", a.path);
        printf("created_by: %s\n", md->has_created_by ? md->created_by.data : "");
        printf("version: %d\n", (int)md->version);
        printf("rows: %lld\n", (long long)basalt_parquet_reader_num_rows(r));
        printf("row groups: %d\n", (int)basalt_parquet_reader_num_row_groups(r));
        printf("columns: %d\n", (int)basalt_parquet_reader_num_columns(r));
        for (size_t i = 0; i < md->num_key_value_metadata; i++) {
            const struct basalt_parquet_key_value *kv = &md->key_value_metadata[i];
            printf("metadata: %s (%zu bytes)\n", kv->key.data,
                   kv->has_value ? kv->value.len : (size_t)0);
        }
        for (size_t g = 0; g < md->num_row_groups; g++)
            printf("row group %zu: %lld rows, %lld bytes\n", g,
                   (long long)md->row_groups[g].num_rows,
                   (long long)md->row_groups[g].total_byte_size);
        printf("\n");
    }
    struct ArrowSchema s;
    struct ArrowArray t;
    s.release = NULL;
    t.release = NULL;
    basalt_status st = meta_table(r, &s, &t, &err);
    struct cli_format_writer *w = NULL;
    if (st == BASALT_OK)
        st = cli_format_writer_new(stdout, a.format, &s, NULL, 0, &w, &err);
    for (int64_t i = 0; st == BASALT_OK && i < t.length; i++)
        st = cli_format_writer_row(w, &t, i, &err);
    if (st == BASALT_OK)
        st = cli_format_writer_finish(w, &err);
    cli_format_writer_free(w);
    basalt_parquet_reader_close(r);
    if (s.release)
        basalt_arrow_schema_release(&s);
    if (t.release)
        basalt_arrow_array_release(&t);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

/* ------------------------------------------------------------------ reading rows */

/* Selects `columns` ("a,b.c": top-level names, else dotted paths). */
static basalt_status select_columns(struct basalt_parquet_scan *scan, const char *columns,
                                    struct basalt_error *err)
{
    if (!columns) {
        basalt_parquet_scan_select_all(scan);
        return BASALT_OK;
    }
    size_t n = strlen(columns);
    char *copy = basalt_malloc(n + 1);
    if (!copy)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memcpy(copy, columns, n + 1);
    basalt_status st = BASALT_OK;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && st == BASALT_OK;
         tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        st = basalt_parquet_scan_select_column(scan, tok, err);
        if (st == BASALT_NOT_FOUND && strchr(tok, '.'))
            st = basalt_parquet_scan_select_path(scan, tok, err);
    }
    basalt_free(copy);
    return st;
}

struct reading {
    struct basalt_parquet_reader *reader;
    struct basalt_parquet_scan *scan;
    struct ArrowSchema schema;
    struct cli_where where;
    bool has_where;
    /* What prints when --where reads fields --columns did not ask for: the
     * schema of the --columns selection alone (release NULL otherwise). */
    struct ArrowSchema print;
    struct basalt_arena views;
};

static void reading_close(struct reading *rd)
{
    basalt_arrow_schema_release(&rd->print);
    basalt_arena_reset(&rd->views);
    basalt_arrow_schema_release(&rd->schema);
    if (rd->has_where)
        cli_where_reset(&rd->where);
    basalt_parquet_scan_free(rd->scan);
    basalt_parquet_reader_close(rd->reader);
}

/* Selects the columns the --where terms read (they need not be printed). */
static basalt_status select_where_columns(struct reading *rd, const struct args *a,
                                          struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    for (int32_t k = 0; st == BASALT_OK && a->columns && k < rd->where.n; k++) {
        const char *col = rd->where.terms[k].column;
        st = basalt_parquet_scan_select_column(rd->scan, col, err);
        if (st == BASALT_NOT_FOUND)
            st = basalt_parquet_scan_select_path(rd->scan, col, err);
    }
    return st;
}

/* Gives the bound --where terms to the reader, for pruning (a term inside
 * a list or map has the reader's ANY semantics too). Columns it cannot
 * prune on (decimals, a literal of another kind) are filtered row by row
 * only. */
static basalt_status push_filters(struct reading *rd, struct basalt_error *err)
{
    static const enum basalt_parquet_literal_kind kinds[] = {
        BASALT_PARQUET_LITERAL_NONE,   BASALT_PARQUET_LITERAL_INT,
        BASALT_PARQUET_LITERAL_UINT,   BASALT_PARQUET_LITERAL_DOUBLE,
        BASALT_PARQUET_LITERAL_BYTES,  BASALT_PARQUET_LITERAL_BOOL};
    for (int32_t k = 0; k < rd->where.n; k++) {
        const struct cli_where_term *t = &rd->where.terms[k];
        struct basalt_parquet_literal lit;
        memset(&lit, 0, sizeof lit);
        int kind = cli_where_stored_literal(t, &lit.i, &lit.u, &lit.d);
        if (kind < 0)
            continue;
        lit.kind = kinds[kind];
        lit.bytes = t->text;
        lit.len = t->text ? strlen(t->text) : 0;
        lit.b = t->b;
        /* The --where operators are the reader's, in the same order. */
        enum basalt_parquet_op op = (enum basalt_parquet_op)t->op;
        struct basalt_error ignored;
        if (basalt_parquet_scan_filter(rd->scan, t->column, op, kind == 0 ? NULL : &lit,
                                       &ignored) == BASALT_NOMEM)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    return BASALT_OK;
}

/* The schema of the --columns selection alone, into rd->print, when the
 * scan reads more (fields --where needs), so that those do not print: a
 * filter column beside a printed field of the same struct, list or map
 * stays out of it too. */
static basalt_status print_schema(struct reading *rd, const struct args *a,
                                  struct basalt_error *err)
{
    struct basalt_parquet_scan *only = NULL;
    basalt_status st = basalt_parquet_scan_new(rd->reader, NULL, &only, err);
    if (st == BASALT_OK)
        st = select_columns(only, a->columns, err);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_schema(only, &rd->print, err);
    basalt_parquet_scan_free(only);
    return st;
}

/* A view of `a` (type `from`) shaped as `to`: the same field, or one that
 * holds fewer struct fields at any depth (matched by name, in order).
 * It borrows a's buffers; its structs live in `arena`, and it is never
 * released (the batch is). */
static basalt_status view_as(const struct ArrowSchema *from, const struct ArrowArray *a,
                             const struct ArrowSchema *to, struct basalt_arena *arena,
                             struct ArrowArray *out, int depth, struct basalt_error *err)
{
    *out = *a;
    out->release = NULL;
    out->private_data = NULL;
    if (to->n_children == 0 || depth > 64)
        return BASALT_OK;
    struct ArrowArray *kids = basalt_arena_alloc(arena, sizeof *kids * (size_t)to->n_children, 8);
    struct ArrowArray **ptrs =
        basalt_arena_alloc(arena, sizeof *ptrs * (size_t)to->n_children, 8);
    if (!kids || !ptrs)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    int64_t k = 0;
    for (int64_t c = 0; c < to->n_children; c++) {
        const char *name = to->children[c]->name ? to->children[c]->name : "";
        while (k < from->n_children && strcmp(from->children[k]->name ? from->children[k]->name
                                                                         : "",
                                              name) != 0)
            k++;
        if (k == from->n_children)
            return basalt_error_set(err, BASALT_INTERNAL, "no field '%s' to print", name);
        basalt_status st = view_as(from->children[k], a->children[k], to->children[c], arena,
                                   &kids[c], depth + 1, err);
        if (st != BASALT_OK)
            return st;
        ptrs[c] = &kids[c];
        k++;
    }
    out->n_children = to->n_children;
    out->children = ptrs;
    return BASALT_OK;
}

/* Opens the file and a scan of the columns, with the --where terms given to
 * the reader for pruning. Returns a CLI status. */
static int reading_open(const struct args *a, int64_t batch_size, struct basalt_pool *pool,
                        struct reading *rd, struct basalt_error *err)
{
    memset(rd, 0, sizeof *rd);
    rd->schema.release = NULL;
    rd->print.release = NULL;
    basalt_arena_init(&rd->views, 0);
    if (a->where) {
        if (cli_where_parse(a->where, &rd->where, err) != BASALT_OK)
            return cli_usage_error("parquet %s: %s", a->verb, err->message);
        rd->has_where = true;
    }
    int rc = open_reader(a->path, &rd->reader, err);
    if (rc != CLI_OK)
        return rc;
    basalt_status st;
    if (rd->has_where) {
        /* Literals are converted by the columns' types, which the whole
         * file's schema has too. */
        struct ArrowSchema all;
        st = basalt_parquet_reader_schema(rd->reader, &all, err);
        if (st != BASALT_OK)
            return cli_fail_error(err);
        st = cli_where_bind(&rd->where, &all, err);
        basalt_arrow_schema_release(&all);
        if (st != BASALT_OK)
            return cli_usage_error("parquet %s: %s", a->verb, err->message);
    }
    struct basalt_parquet_read_options o;
    basalt_parquet_read_options_init(&o);
    o.batch_size = batch_size;
    o.pool = pool;
    st = basalt_parquet_scan_new(rd->reader, &o, &rd->scan, err);
    if (st == BASALT_OK)
        st = select_columns(rd->scan, a->columns, err);
    if (st == BASALT_NOT_FOUND)
        return cli_usage_error("parquet %s: %s", a->verb, err->message);
    if (st == BASALT_OK && rd->has_where)
        st = select_where_columns(rd, a, err);
    if (st == BASALT_OK && rd->has_where)
        st = push_filters(rd, err);
    if (st == BASALT_OK)
        st = basalt_parquet_scan_schema(rd->scan, &rd->schema, err);
    /* Bound again to find the columns in the output. */
    if (st == BASALT_OK && rd->has_where)
        st = cli_where_bind(&rd->where, &rd->schema, err);
    if (st == BASALT_OK && rd->has_where && a->columns)
        st = print_schema(rd, a, err);
    if (st != BASALT_OK)
        return cli_fail_error(err);
    return CLI_OK;
}

/* Prints rows (all, or the first a->limit) of the scan through a writer. */
static int print_rows(const struct args *a, struct basalt_error *err)
{
    struct reading rd;
    int64_t batch = a->limit >= 0 && a->limit < 65536 ? (a->limit > 0 ? a->limit : 1) : 65536;
    int rc = reading_open(a, batch, NULL, &rd, err);
    if (rc != CLI_OK) {
        reading_close(&rd);
        return rc;
    }
    const struct ArrowSchema *shown = rd.print.release ? &rd.print : &rd.schema;
    struct cli_format_writer *w = NULL;
    basalt_status st = cli_format_writer_new(stdout, a->format, shown, NULL,
                                             (int32_t)shown->n_children, &w, err);
    int64_t printed = 0;
    while (st == BASALT_OK && (a->limit < 0 || printed < a->limit)) {
        struct ArrowArray b;
        st = basalt_parquet_scan_next(rd.scan, &b, err);
        if (st != BASALT_OK || !b.release)
            break;
        struct ArrowArray view = b;
        basalt_arena_reset(&rd.views);
        if (rd.print.release)
            st = view_as(&rd.schema, &b, &rd.print, &rd.views, &view, 0, err);
        for (int64_t row = 0; row < b.length && st == BASALT_OK; row++) {
            if (a->limit >= 0 && printed >= a->limit)
                break;
            if (rd.has_where && !cli_where_match(&rd.where, &b, row))
                continue;
            st = cli_format_writer_row(w, &view, row, err);
            printed++;
        }
        basalt_arrow_array_release(&b);
    }
    if (st == BASALT_OK)
        st = cli_format_writer_finish(w, err);
    cli_format_writer_free(w);
    reading_close(&rd);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(err);
}

static int cmd_head(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt parquet head FILE [-n N] [--columns a,b.c] [--where EXPR]\n"
               "                          [--format table|csv|json] [--key-file PATH]\n"
               "                          [--aad-prefix TEXT]\n\n"
               "Prints the first N rows (default 10); options as for 'cat'.\n" KEYS_HELP);
        return CLI_OK;
    }
    struct args a;
    int rc = parse_args(argc, argv, "head", "ncwf", &a);
    if (rc != CLI_OK)
        return rc;
    if (a.limit < 0)
        a.limit = 10;
    struct basalt_error err;
    basalt_error_init(&err);
    return print_rows(&a, &err);
}

static int cmd_cat(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf(
            "usage: basalt parquet cat FILE [--columns a,b.c] [--where EXPR]\n"
            "                         [--format table|csv|json] [--key-file PATH]\n"
            "                         [--aad-prefix TEXT]\n\n"
            "Prints every row. --columns selects top-level columns by name, or nested\n"
            "fields by dotted path. --where keeps the rows where every term holds:\n"
            "  col op literal [AND col op literal ...]   op: = != < <= > >=\n"
            "  col IS NULL, col IS NOT NULL\n"
            "literals: numbers, 'strings' ('' for a quote), true, false; dates as\n"
            "'YYYY-MM-DD', times and timestamps as 'YYYY-MM-DD HH:MM:SS[.fff]'.\n"
            "col is a column, a field of a struct (s.a), or a field inside a list or\n"
            "map, named through the element or entries (l.element, l.element.x,\n"
            "m.key_value.key, m.key_value.value; the Parquet form l.list.element\n"
            "too): such a term holds when it holds for some element of the row's\n"
            "list or map (a null or empty one has none, so it never holds there).\n"
            "Only the --columns print, whatever --where reads. The terms also skip\n"
            "row groups and pages that cannot match (statistics, bloom filters, page\n"
            "index; row groups only for fields inside lists and maps).\n\n"
            "formats: table (aligned, default), csv (RFC 4180, header row), json (one\n"
            "object per row: integers exact, floats shortest round-trip with NaN and\n"
            "Infinity as strings, binary as base64, dates YYYY-MM-DD, timestamps\n"
            "ISO-8601 (Z when UTC-adjusted), decimals as strings, lists as arrays,\n"
            "structs as objects, maps as arrays of {\"key\":..,\"value\":..}). UUIDs\n"
            "print as 8-4-4-4-12 text in every format.\n" KEYS_HELP);
        return CLI_OK;
    }
    struct args a;
    int rc = parse_args(argc, argv, "cat", "cwf", &a);
    if (rc != CLI_OK)
        return rc;
    struct basalt_error err;
    basalt_error_init(&err);
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    rc = print_rows(&a, &err);
    fflush(stdout);
    return rc;
}

/* ------------------------------------------------------------------ scan */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Nearest-rank percentile of sorted values. */
static double percentile(const double *v, int n, double p)
{
    int k = (int)ceil(p * n);
    if (k < 1)
        k = 1;
    return v[k - 1];
}

static int cmd_scan(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt parquet scan FILE [--columns a,b.c] [--threads N] [--repeat K]\n"
               "                          [--warmup W] [--key-file PATH] [--aad-prefix TEXT]\n\n"
               "Reads the file K times (default 1) with N threads (default 1): each read\n"
               "opens it, decodes the footer and every selected column of every row group\n"
               "into Arrow memory (strings materialised), then frees it all. Prints the\n"
               "rows, the decoded bytes and the p50 and p90 time of one read (nearest\n"
               "rank), after W untimed reads (default 0). Nothing is printed per row.\n"
               "Freed memory is kept by the allocator between reads (glibc's malloc would\n"
               "hand it back to the system and fault it in again on every read), as the\n"
               "allocators of DuckDB and Polars keep theirs.\n" KEYS_HELP);
        return CLI_OK;
    }
    struct args a;
    int rc = parse_args(argc, argv, "scan", "ctrW", &a);
    if (rc != CLI_OK)
        return rc;
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_pool *pool = NULL;
    if (a.threads > 1 && basalt_pool_new(a.threads - 1, &pool, &err) != BASALT_OK)
        return cli_fail_error(&err);
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    double *times = basalt_calloc((size_t)a.repeat + (size_t)a.warmup, sizeof *times);
    int64_t rows = 0, bytes = 0;
    basalt_status st = times ? BASALT_OK : basalt_error_set(&err, BASALT_NOMEM, "out of memory");
    for (int k = 0; k < a.repeat + a.warmup && st == BASALT_OK; k++) {
        struct basalt_parquet_read_options o;
        basalt_parquet_read_options_init(&o);
        o.pool = pool;
        o.batch_size = 0;
        struct basalt_parquet_reader *r = NULL;
        struct basalt_parquet_scan *scan = NULL;
        struct basalt_arrow_batches b;
        basalt_arrow_batches_init(&b);
        /* One read opens the file and decodes its footer too, as the
         * peers' reads do. */
        double t0 = now_ms();
        st = open_file(a.path, &r, &err);
        if (st == BASALT_OK)
            st = basalt_parquet_scan_new(r, &o, &scan, &err);
        if (st == BASALT_OK)
            st = select_columns(scan, a.columns, &err);
        if (st == BASALT_OK)
            st = basalt_parquet_scan_read_all(scan, &b, &err);
        times[k] = now_ms() - t0;
        if (st == BASALT_OK && k == a.warmup) {
            for (int64_t i = 0; i < b.n; i++) {
                rows += b.arrays[i].length;
                bytes += cli_format_array_bytes(&b.schema, &b.arrays[i]);
            }
        }
        basalt_arrow_batches_reset(&b);
        basalt_parquet_scan_free(scan);
        basalt_parquet_reader_close(r);
    }
    basalt_pool_free(pool);
    if (st != BASALT_OK) {
        basalt_free(times);
        if (st == BASALT_NOT_FOUND && strstr(err.message, "column '"))
            return cli_usage_error("parquet scan: %s", err.message);
        return cli_fail_error(&err);
    }
    memmove(times, times + a.warmup, sizeof *times * (size_t)a.repeat);
    qsort(times, (size_t)a.repeat, sizeof *times, cmp_double);
    printf("rows: %lld\n", (long long)rows);
    printf("decoded bytes: %lld\n", (long long)bytes);
    printf("threads: %d\n", a.threads);
    printf("reads: %d\n", a.repeat);
    printf("p50: %.3f ms\n", percentile(times, a.repeat, 0.5));
    printf("p90: %.3f ms\n", percentile(times, a.repeat, 0.9));
    basalt_free(times);
    return fflush(stdout) == 0 ? CLI_OK : cli_fail("write to stdout failed");
}

int cli_parquet_main(int argc, char **argv)
{
    static const struct cli_verb verbs[] = {
        {"schema", "print the Parquet schema and the Arrow schema it reads as", cmd_schema},
        {"meta", "print the footer: row groups, column chunks, statistics", cmd_meta},
        {"head", "print the first rows", cmd_head},
        {"cat", "print rows as a table, CSV or JSON lines, with --where", cmd_cat},
        {"scan", "decode columns into memory and time it", cmd_scan},
        {"rewrite", "write a Parquet file again with other options", cli_parquet_rewrite_main},
        {NULL, NULL, NULL}};
    cli_keys_init(&keys);
    int rc = cli_dispatch_verbs("parquet", verbs, argc, argv);
    cli_keys_free(&keys);
    return rc;
}
