/* basalt avro: schema, cat and count of Avro Object Container Files. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/avro.h"
#include "cli.h"
#include "format.h"

static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i]))
            return true;
    return false;
}

/* A container file read into memory with its reader. */
struct avro_file {
    unsigned char *data;
    size_t len;
    struct basalt_avro_reader *reader;
};

static int open_file(const char *path, struct avro_file *f, struct basalt_error *err)
{
    memset(f, 0, sizeof *f);
    if (cli_read_file(path, &f->data, &f->len, err) != BASALT_OK)
        return cli_fail_error(err);
    if (basalt_avro_reader_new(f->data, f->len, NULL, &f->reader, err) != BASALT_OK) {
        basalt_free(f->data);
        basalt_error_context(err, err->status, "%s", path);
        return cli_fail_error(err);
    }
    return CLI_OK;
}

static void close_file(struct avro_file *f)
{
    basalt_avro_reader_free(f->reader);
    basalt_free(f->data);
}

static int write_buffer(struct basalt_buffer *b)
{
    if (b->size && fwrite(b->data, 1, b->size, stdout) != b->size)
        return cli_fail("write to stdout failed");
    b->size = 0;
    return CLI_OK;
}

/* ------------------------------------------------------------------ schema */

static int cmd_schema(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt avro schema FILE [--canonical] [--fingerprint]\n\n"
               "Prints the schema of a container file (or of a .avsc schema file) as\n"
               "indented JSON, or its Parsing Canonical Form, or its CRC-64-AVRO\n"
               "fingerprint (hex).\n"
               "\nFILE is a local path or a URI (s3://, gs://, az://, http(s)://, file://);\n"
               "the object-store options are in 'basalt --help'.\n");
        return CLI_OK;
    }
    const char *path = NULL;
    bool canonical = false, fingerprint = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--canonical") == 0)
            canonical = true;
        else if (strcmp(argv[i], "--fingerprint") == 0)
            fingerprint = true;
        else if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("avro schema: unknown option '%s'", argv[i]);
        else if (path)
            return cli_usage_error("avro schema: unexpected argument '%s'", argv[i]);
        else
            path = argv[i];
    }
    if (!path)
        return cli_usage_error("avro schema: expected FILE");
    struct basalt_error err;
    basalt_error_init(&err);
    unsigned char *data;
    size_t len;
    if (cli_read_file(path, &data, &len, &err) != BASALT_OK)
        return cli_fail_error(&err);
    struct basalt_avro_reader *reader = NULL;
    struct basalt_avro_schema *own = NULL;
    const struct basalt_avro_schema *schema;
    basalt_status st;
    if (len >= 4 && memcmp(data, "Obj\x01", 4) == 0) {
        st = basalt_avro_reader_new(data, len, NULL, &reader, &err);
        schema = reader ? basalt_avro_reader_schema(reader) : NULL;
    } else {
        struct basalt_avro_schema_options opt;
        basalt_avro_schema_options_init(&opt);
        opt.lenient_names = true;
        st = basalt_avro_schema_parse((const char *)data, len, &opt, &own, &err);
        schema = own;
    }
    int rc = CLI_OK;
    if (st != BASALT_OK) {
        basalt_error_context(&err, st, "%s", path);
        rc = cli_fail_error(&err);
    } else if (fingerprint) {
        printf("%016" PRIx64 "\n", basalt_avro_schema_fingerprint(schema));
    } else if (canonical) {
        printf("%s\n", basalt_avro_schema_canonical(schema, NULL));
    } else {
        struct basalt_buffer out;
        basalt_buffer_init(&out);
        if (basalt_avro_schema_to_json(schema, true, &out, &err) != BASALT_OK ||
            basalt_buffer_append(&out, "\n", 1, &err) != BASALT_OK)
            rc = cli_fail_error(&err);
        else
            rc = write_buffer(&out);
        basalt_buffer_reset(&out);
    }
    basalt_avro_reader_free(reader);
    basalt_avro_schema_free(own);
    basalt_free(data);
    return rc;
}

/* ------------------------------------------------------------------ count */

static int cmd_count(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt avro count FILE [--verify]\n\n"
               "Prints the number of records, from the block headers (every block is\n"
               "framed and its sync marker checked). --verify also decompresses every\n"
               "block and decodes every record.\n"
               "\nFILE is a local path or a URI (s3://, gs://, az://, http(s)://, file://);\n"
               "the object-store options are in 'basalt --help'.\n");
        return CLI_OK;
    }
    const char *path = NULL;
    bool verify = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--verify") == 0)
            verify = true;
        else if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("avro count: unknown option '%s'", argv[i]);
        else if (path)
            return cli_usage_error("avro count: unexpected argument '%s'", argv[i]);
        else
            path = argv[i];
    }
    if (!path)
        return cli_usage_error("avro count: expected FILE");
    struct basalt_error err;
    basalt_error_init(&err);
    struct avro_file f;
    int rc = open_file(path, &f, &err);
    if (rc != CLI_OK)
        return rc;
    int64_t count = 0;
    basalt_status st;
    if (verify) {
        /* Decode every record, storing nothing. */
        struct basalt_avro_plan *plan = NULL;
        st = basalt_avro_plan_new(basalt_avro_reader_schema(f.reader), NULL, NULL, 0, &plan, &err);
        for (int64_t n = 1; st == BASALT_OK && n > 0; count += n)
            st = basalt_avro_reader_read(f.reader, plan, NULL, INT64_MAX, &n, &err);
        basalt_avro_plan_free(plan);
    } else {
        st = basalt_avro_reader_count(f.reader, false, &count, &err);
    }
    if (st != BASALT_OK) {
        basalt_error_context(&err, st, "%s", path);
        rc = cli_fail_error(&err);
    } else {
        printf("%" PRId64 "\n", count);
    }
    close_file(&f);
    return rc;
}

/* ------------------------------------------------------------------ cat */

enum cat_format { CAT_TABLE, CAT_JSON };

struct cat_args {
    const char *path;
    const char *fields;
    enum cat_format format;
    int64_t limit;
    bool raw; /* the Avro JSON encoding, logical types not applied */
};

/* ------------------------------------------------------------------ values */

/* Big-endian two's complement (an Avro decimal) to `width` bytes
 * little-endian; false when it does not fit. */
static bool decimal_le(const uint8_t *be, size_t n, size_t width, uint8_t *le)
{
    uint8_t sign = n && (be[0] & 0x80) ? 0xff : 0x00;
    for (; n > width; be++, n--)
        if (be[0] != sign || ((be[1] ^ sign) & 0x80))
            return false;
    memset(le, sign, width);
    for (size_t i = 0; i < n; i++)
        le[i] = be[n - 1 - i];
    return true;
}

static uint32_t avro_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The JSON text of a value whose node has a logical type, as basalt parquet
 * cat prints the same Arrow type (basalt_avro_arrow's mapping); false when
 * the logical type changes nothing in the text (or is none). */
static bool logical_json(const struct basalt_avro_value *v, struct basalt_buffer *out,
                         basalt_status *st, struct basalt_error *err)
{
    const struct basalt_avro_node *n = v->node;
    char format[40];
    uint8_t bytes[32];
    const void *value = bytes;
    switch (n->logical) {
    case BASALT_AVRO_LOGICAL_DATE:
    case BASALT_AVRO_LOGICAL_TIME_MILLIS: {
        int32_t x = (int32_t)v->i;
        memcpy(bytes, &x, 4);
        snprintf(format, sizeof format, "%s",
                 n->logical == BASALT_AVRO_LOGICAL_DATE ? "tdD" : "ttm");
        break;
    }
    case BASALT_AVRO_LOGICAL_TIME_MICROS:
    case BASALT_AVRO_LOGICAL_TIMESTAMP_MILLIS:
    case BASALT_AVRO_LOGICAL_TIMESTAMP_MICROS:
    case BASALT_AVRO_LOGICAL_TIMESTAMP_NANOS:
    case BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS:
    case BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS:
    case BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS: {
        static const char *const formats[] = {
            [BASALT_AVRO_LOGICAL_TIME_MICROS] = "ttu",
            [BASALT_AVRO_LOGICAL_TIMESTAMP_MILLIS] = "tsm:UTC",
            [BASALT_AVRO_LOGICAL_TIMESTAMP_MICROS] = "tsu:UTC",
            [BASALT_AVRO_LOGICAL_TIMESTAMP_NANOS] = "tsn:UTC",
            [BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS] = "tsm:",
            [BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS] = "tsu:",
            [BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS] = "tsn:"};
        memcpy(bytes, &v->i, 8);
        snprintf(format, sizeof format, "%s", formats[n->logical]);
        /* Iceberg writes its timestamps without zone as UTC ones with
         * "adjust-to-utc": false */
        const char *adjust = basalt_avro_node_prop(n, "adjust-to-utc");
        if (format[0] == 't' && format[1] == 's' && adjust && strcmp(adjust, "false") == 0)
            format[4] = '\0';
        break;
    }
    case BASALT_AVRO_LOGICAL_DECIMAL: {
        size_t width = n->precision <= 38 ? 16 : 32;
        if (!decimal_le(v->bytes.data, v->bytes.size, width, bytes)) {
            *st = basalt_error_set(err, BASALT_CORRUPT,
                                   "decimal of %zu bytes does not fit its precision %d",
                                   v->bytes.size, n->precision);
            return true;
        }
        snprintf(format, sizeof format, width == 16 ? "d:%d,%d" : "d:%d,%d,256", n->precision,
                 n->scale);
        break;
    }
    case BASALT_AVRO_LOGICAL_UUID: {
        if (n->type != BASALT_AVRO_FIXED || v->bytes.size != 16)
            return false; /* a string uuid is its own text */
        char text[40];
        const uint8_t *u = v->bytes.data;
        int w = 0;
        for (int i = 0; i < 16; i++)
            w += snprintf(text + w, sizeof text - (size_t)w, "%s%02x",
                          i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
        *st = cli_format_json_string(out, (const uint8_t *)text, (size_t)w, err);
        return true;
    }
    case BASALT_AVRO_LOGICAL_DURATION: {
        if (v->bytes.size != 12)
            return false;
        /* the form of Arrow's month_day_nano intervals, with the full
         * unsigned range of Avro's months and days */
        uint32_t m[3];
        for (int k = 0; k < 3; k++)
            m[k] = avro_u32le(v->bytes.data + 4 * k);
        char text[96];
        int w = snprintf(text, sizeof text, "{\"months\":%" PRIu32 ",\"days\":%" PRIu32
                         ",\"nanoseconds\":%" PRId64 "}", m[0], m[1], (int64_t)m[2] * 1000000);
        *st = basalt_buffer_append(out, text, (size_t)w, err);
        return true;
    }
    default:
        return false;
    }
    *st = cli_format_json_scalar(format, value, 0, out, err);
    return true;
}

/* JSON text of a value for cat: the Avro JSON encoding (unions bare), except
 * that values of logical types print as basalt parquet cat prints them;
 * with `raw`, the Avro JSON encoding as it is. */
static basalt_status value_json(const struct basalt_avro_value *v, bool raw,
                                struct basalt_buffer *out, struct basalt_error *err)
{
    if (raw)
        return basalt_avro_value_to_json(v, 0, out, err);
    const struct basalt_avro_node *n = v->node;
    basalt_status st = BASALT_OK;
    switch (n->type) {
    case BASALT_AVRO_UNION:
        return value_json(v->branch, raw, out, err);
    case BASALT_AVRO_RECORD:
    case BASALT_AVRO_MAP:
        st = basalt_buffer_append(out, "{", 1, err);
        for (size_t i = 0; i < v->count && st == BASALT_OK; i++) {
            bool record = n->type == BASALT_AVRO_RECORD;
            const char *key = record ? n->fields[i].name : (const char *)v->entries[i].key;
            size_t key_len = record ? strlen(key) : v->entries[i].key_size;
            if (i)
                st = basalt_buffer_append(out, ",", 1, err);
            if (st == BASALT_OK)
                st = cli_format_json_string(out, (const uint8_t *)key, key_len, err);
            if (st == BASALT_OK)
                st = basalt_buffer_append(out, ":", 1, err);
            if (st == BASALT_OK)
                st = value_json(record ? &v->items[i] : &v->entries[i].value, raw, out, err);
        }
        return st == BASALT_OK ? basalt_buffer_append(out, "}", 1, err) : st;
    case BASALT_AVRO_ARRAY:
        st = basalt_buffer_append(out, "[", 1, err);
        for (size_t i = 0; i < v->count && st == BASALT_OK; i++) {
            if (i)
                st = basalt_buffer_append(out, ",", 1, err);
            if (st == BASALT_OK)
                st = value_json(&v->items[i], raw, out, err);
        }
        return st == BASALT_OK ? basalt_buffer_append(out, "]", 1, err) : st;
    default:
        if (logical_json(v, out, &st, err))
            return st;
        return basalt_avro_value_to_json(v, 0, out, err);
    }
}

/* JSON of one column value stored by a plan. */
static basalt_status column_json(const struct basalt_avro_plan *plan, size_t k, const void *slot,
                                 uint8_t present, bool raw, struct basalt_arena *arena,
                                 struct basalt_buffer *out, struct basalt_error *err)
{
    if (!present)
        return basalt_buffer_append(out, "null", 4, err);
    const struct basalt_avro_node *node = basalt_avro_plan_column_node(plan, k);
    while (node->type == BASALT_AVRO_UNION) {
        const struct basalt_avro_node *next = NULL;
        for (uint32_t i = 0; i < node->count; i++)
            if (node->branches[i]->type != BASALT_AVRO_NULL)
                next = node->branches[i];
        if (!next || basalt_avro_plan_column_type(plan, k) == BASALT_AVRO_SLOT_RAW)
            break;
        node = next;
    }
    struct basalt_avro_value v;
    memset(&v, 0, sizeof v);
    v.node = node;
    switch (basalt_avro_plan_column_type(plan, k)) {
    case BASALT_AVRO_SLOT_BOOL:
        v.boolean = *(const uint8_t *)slot != 0;
        break;
    case BASALT_AVRO_SLOT_INT32: {
        int32_t i;
        memcpy(&i, slot, 4);
        v.i = i;
        v.index = (uint32_t)i;
        break;
    }
    case BASALT_AVRO_SLOT_INT64:
        memcpy(&v.i, slot, 8);
        v.index = (uint32_t)v.i;
        break;
    case BASALT_AVRO_SLOT_FLOAT:
        memcpy(&v.f, slot, 4);
        break;
    case BASALT_AVRO_SLOT_DOUBLE:
        memcpy(&v.d, slot, 8);
        break;
    case BASALT_AVRO_SLOT_BYTES: {
        struct basalt_avro_bytes b;
        memcpy(&b, slot, sizeof b);
        v.bytes.data = b.data;
        v.bytes.size = b.size;
        break;
    }
    case BASALT_AVRO_SLOT_RAW: {
        struct basalt_avro_bytes b;
        memcpy(&b, slot, sizeof b);
        basalt_status st = basalt_avro_value_decode(node, b.data, b.size, NULL, arena, &v, NULL, err);
        if (st != BASALT_OK)
            return st;
        break;
    }
    default:
        return basalt_error_set(err, BASALT_INTERNAL, "bad slot type");
    }
    return value_json(&v, raw, out, err);
}

/* Table output: cells of up to TABLE_WINDOW rows are buffered to size the
 * columns, then printed; later windows reuse the widths where they fit. */
#define TABLE_WINDOW 1000

struct table {
    size_t ncols;
    struct basalt_buffer cells; /* NUL-separated cell texts */
    size_t rows;
    size_t *width;
    bool header_done;
    const char **names;
};

static const char *cell_text(const char *json, size_t len, struct basalt_buffer *tmp)
{
    /* Strings print without their quotes; everything else as JSON. */
    tmp->size = 0;
    if (len >= 2 && json[0] == '"' && !memchr(json + 1, '"', len - 2) &&
        !memchr(json + 1, '\\', len - 2)) {
        basalt_buffer_append(tmp, json + 1, len - 2, NULL);
    } else {
        basalt_buffer_append(tmp, json, len, NULL);
    }
    basalt_buffer_append(tmp, "", 1, NULL);
    return tmp->data ? (const char *)tmp->data : "";
}

static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xc0) != 0x80)
            w++;
    return w;
}

static int table_flush(struct table *t)
{
    const char *p = (const char *)t->cells.data;
    if (!t->header_done) {
        for (size_t k = 0; k < t->ncols; k++) {
            size_t w = text_width(t->names[k]);
            if (w > t->width[k])
                t->width[k] = w;
        }
        const char *q = p;
        for (size_t r = 0; r < t->rows; r++)
            for (size_t k = 0; k < t->ncols; k++) {
                size_t w = text_width(q);
                if (w > t->width[k])
                    t->width[k] = w;
                q += strlen(q) + 1;
            }
        for (size_t k = 0; k < t->ncols; k++)
            printf("%s%-*s", k ? "  " : "", k + 1 < t->ncols ? (int)t->width[k] : 0, t->names[k]);
        printf("\n");
        t->header_done = true;
    }
    for (size_t r = 0; r < t->rows; r++) {
        for (size_t k = 0; k < t->ncols; k++) {
            size_t w = text_width(p);
            fputs(k ? "  " : "", stdout);
            fputs(p, stdout);
            if (k + 1 < t->ncols)
                for (size_t i = w; i < t->width[k]; i++)
                    fputc(' ', stdout);
            p += strlen(p) + 1;
        }
        fputc('\n', stdout);
    }
    t->cells.size = 0;
    t->rows = 0;
    return ferror(stdout) ? cli_fail("write to stdout failed") : CLI_OK;
}

static int parse_cat(int argc, char **argv, struct cat_args *a)
{
    memset(a, 0, sizeof *a);
    a->limit = -1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--fields") == 0 || strcmp(arg, "--format") == 0 ||
            strcmp(arg, "--limit") == 0) {
            if (i + 1 >= argc)
                return cli_usage_error("avro cat: %s needs a value", arg);
            const char *val = argv[++i];
            if (arg[2] == 'f' && arg[3] == 'i') {
                a->fields = val;
            } else if (arg[2] == 'f') {
                if (strcmp(val, "table") == 0)
                    a->format = CAT_TABLE;
                else if (strcmp(val, "json") == 0)
                    a->format = CAT_JSON;
                else
                    return cli_usage_error("avro cat: unknown format '%s' (table, json)", val);
            } else {
                char *end;
                errno = 0;
                long long v = strtoll(val, &end, 10);
                if (errno || end == val || *end || v < 0)
                    return cli_usage_error("avro cat: bad limit '%s'", val);
                a->limit = v;
            }
        } else if (strcmp(arg, "--raw") == 0) {
            a->raw = true;
        } else if (arg[0] == '-' && arg[1]) {
            return cli_usage_error("avro cat: unknown option '%s'", arg);
        } else if (a->path) {
            return cli_usage_error("avro cat: unexpected argument '%s'", arg);
        } else {
            a->path = arg;
        }
    }
    if (!a->path)
        return cli_usage_error("avro cat: expected FILE");
    return CLI_OK;
}

/* Splits "a,b.c" into columns (pointers into `copy`). */
static size_t split_fields(char *copy, struct basalt_avro_column *cols, size_t max)
{
    size_t n = 0;
    for (char *tok = strtok(copy, ","); tok && n < max; tok = strtok(NULL, ","))
        cols[n++] = (struct basalt_avro_column){.path = tok, .type = BASALT_AVRO_SLOT_AUTO};
    return n;
}

static size_t slot_size(enum basalt_avro_slot_type type)
{
    switch (type) {
    case BASALT_AVRO_SLOT_BOOL:
        return 1;
    case BASALT_AVRO_SLOT_INT32:
    case BASALT_AVRO_SLOT_FLOAT:
        return 4;
    case BASALT_AVRO_SLOT_INT64:
    case BASALT_AVRO_SLOT_DOUBLE:
        return 8;
    default:
        return sizeof(struct basalt_avro_bytes);
    }
}

#define CAT_BATCH 256
#define CAT_MAX_FIELDS 256

/* Rows with --fields: through a plan, a batch of records at a time. */
static int cat_fields(struct avro_file *f, const struct cat_args *a, struct basalt_error *err)
{
    char *copy = strdup(a->fields);
    struct basalt_avro_column *cols = calloc(CAT_MAX_FIELDS, sizeof *cols);
    if (!copy || !cols) {
        free(copy);
        free(cols);
        return cli_fail("out of memory");
    }
    size_t ncols = split_fields(copy, cols, CAT_MAX_FIELDS);
    if (ncols == 0) {
        free(copy);
        free(cols);
        return cli_usage_error("avro cat: --fields needs at least one field");
    }
    struct basalt_avro_plan *plan = NULL;
    basalt_status st = basalt_avro_plan_new(basalt_avro_reader_schema(f->reader), NULL, cols, ncols,
                                            &plan, err);
    if (st != BASALT_OK) {
        free(copy);
        free(cols);
        return st == BASALT_INVALID_ARG ? cli_usage_error("avro cat: %s", err->message)
                                        : cli_fail_error(err);
    }
    /* One buffer per column, as wide as the widest slot. */
    uint8_t *slots = calloc(ncols, CAT_BATCH * sizeof(struct basalt_avro_bytes));
    uint8_t *present = calloc(ncols, CAT_BATCH);
    struct basalt_avro_dest *dests = calloc(ncols, sizeof *dests);
    struct table t = {.ncols = ncols};
    t.width = calloc(ncols, sizeof *t.width);
    t.names = calloc(ncols, sizeof *t.names);
    int rc = CLI_OK;
    if (!slots || !present || !dests || !t.width || !t.names)
        rc = cli_fail("out of memory");
    for (size_t k = 0; rc == CLI_OK && k < ncols; k++) {
        dests[k].values = slots + k * CAT_BATCH * sizeof(struct basalt_avro_bytes);
        dests[k].present = present + k * CAT_BATCH;
        t.names[k] = cols[k].path;
    }
    basalt_buffer_init(&t.cells);
    struct basalt_buffer line, tmp;
    basalt_buffer_init(&line);
    basalt_buffer_init(&tmp);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 16384);
    int64_t printed = 0;
    while (rc == CLI_OK && (a->limit < 0 || printed < a->limit)) {
        int64_t want = CAT_BATCH, n;
        if (a->limit >= 0 && a->limit - printed < want)
            want = a->limit - printed;
        st = basalt_avro_reader_read(f->reader, plan, dests, want, &n, err);
        if (st != BASALT_OK) {
            basalt_error_context(err, st, "%s", a->path);
            rc = cli_fail_error(err);
            break;
        }
        if (n == 0)
            break;
        for (int64_t r = 0; r < n && rc == CLI_OK; r++) {
            if (a->format == CAT_JSON)
                basalt_buffer_append(&line, "{", 1, err);
            for (size_t k = 0; k < ncols && st == BASALT_OK; k++) {
                size_t size = slot_size(basalt_avro_plan_column_type(plan, k));
                const uint8_t *slot = (const uint8_t *)dests[k].values + (size_t)r * size;
                if (a->format == CAT_JSON) {
                    if (k)
                        basalt_buffer_append(&line, ",", 1, err);
                    basalt_buffer_append(&line, "\"", 1, err);
                    basalt_buffer_append(&line, cols[k].path, strlen(cols[k].path), err);
                    basalt_buffer_append(&line, "\":", 2, err);
                    st = column_json(plan, k, slot, dests[k].present[r], a->raw, &arena, &line,
                                     err);
                } else {
                    size_t mark = line.size;
                    st = column_json(plan, k, slot, dests[k].present[r], a->raw, &arena, &line,
                                     err);
                    if (st == BASALT_OK) {
                        const char *cell = cell_text((const char *)line.data + mark,
                                                     line.size - mark, &tmp);
                        basalt_buffer_append(&t.cells, cell, strlen(cell) + 1, err);
                    }
                    line.size = mark;
                }
            }
            if (st != BASALT_OK) {
                rc = cli_fail_error(err);
                break;
            }
            if (a->format == CAT_JSON) {
                basalt_buffer_append(&line, "}\n", 2, err);
                rc = write_buffer(&line);
            } else if (++t.rows == TABLE_WINDOW) {
                rc = table_flush(&t);
            }
            basalt_arena_reset(&arena);
        }
        printed += n;
    }
    if (rc == CLI_OK && a->format == CAT_TABLE)
        rc = table_flush(&t);
    basalt_arena_reset(&arena);
    basalt_buffer_reset(&line);
    basalt_buffer_reset(&tmp);
    basalt_buffer_reset(&t.cells);
    free(t.width);
    free(t.names);
    free(slots);
    free(present);
    free(dests);
    basalt_avro_plan_free(plan);
    free(copy);
    free(cols);
    return rc;
}

/* Whole records as generic values. */
static int cat_records(struct avro_file *f, const struct cat_args *a, struct basalt_error *err)
{
    const struct basalt_avro_node *root = basalt_avro_schema_root(basalt_avro_reader_schema(f->reader));
    bool record = root->type == BASALT_AVRO_RECORD;
    struct table t = {.ncols = record ? root->count : 1};
    size_t nalloc = t.ncols ? t.ncols : 1;
    t.width = calloc(nalloc, sizeof *t.width);
    t.names = calloc(nalloc, sizeof *t.names);
    if (!t.width || !t.names) {
        free(t.width);
        free(t.names);
        return cli_fail("out of memory");
    }
    for (size_t k = 0; k < t.ncols; k++)
        t.names[k] = record ? root->fields[k].name : "value";
    basalt_buffer_init(&t.cells);
    struct basalt_buffer line, tmp;
    basalt_buffer_init(&line);
    basalt_buffer_init(&tmp);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 16384);
    int rc = CLI_OK;
    for (int64_t printed = 0; rc == CLI_OK && (a->limit < 0 || printed < a->limit); printed++) {
        struct basalt_avro_value v;
        bool has;
        basalt_status st = basalt_avro_reader_next_value(f->reader, NULL, &arena, &v, &has, err);
        if (st != BASALT_OK) {
            /* The records before the bad one are still printed. */
            if (a->format == CAT_JSON)
                write_buffer(&line);
            else
                table_flush(&t);
            fflush(stdout);
            basalt_error_context(err, st, "%s", a->path);
            rc = cli_fail_error(err);
            break;
        }
        if (!has)
            break;
        if (a->format == CAT_JSON) {
            st = value_json(&v, a->raw, &line, err);
            if (st == BASALT_OK)
                st = basalt_buffer_append(&line, "\n", 1, err);
            if (st != BASALT_OK)
                rc = cli_fail_error(err);
            else if (line.size > (1 << 16))
                rc = write_buffer(&line);
        } else {
            for (size_t k = 0; k < t.ncols && rc == CLI_OK; k++) {
                line.size = 0;
                st = value_json(record ? &v.items[k] : &v, a->raw, &line, err);
                if (st != BASALT_OK) {
                    rc = cli_fail_error(err);
                    break;
                }
                const char *cell = cell_text((const char *)line.data, line.size, &tmp);
                basalt_buffer_append(&t.cells, cell, strlen(cell) + 1, err);
            }
            line.size = 0;
            if (rc == CLI_OK && ++t.rows == TABLE_WINDOW)
                rc = table_flush(&t);
        }
        basalt_arena_reset(&arena);
    }
    if (rc == CLI_OK && a->format == CAT_JSON)
        rc = write_buffer(&line);
    if (rc == CLI_OK && a->format == CAT_TABLE && t.ncols)
        rc = table_flush(&t);
    basalt_arena_reset(&arena);
    basalt_buffer_reset(&line);
    basalt_buffer_reset(&tmp);
    basalt_buffer_reset(&t.cells);
    free(t.width);
    free(t.names);
    return rc;
}

static int cmd_cat(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt avro cat FILE [--fields a,b.c] [--format table|json] [--limit N]\n"
               "                      [--raw]\n\n"
               "Prints the records of a container file: an aligned table (default) or one\n"
               "JSON object per line. --fields selects fields by dotted path and decodes\n"
               "only those. In JSON, unions are written as their value, bytes and fixed as\n"
               "strings of code points U+0000..U+00FF, NaN and infinities as NaN,\n"
               "Infinity, -Infinity. Logical types print as basalt parquet cat prints the\n"
               "same values: decimals as exact decimal text, dates YYYY-MM-DD, times\n"
               "HH:MM:SS.fff[fff], timestamps YYYY-MM-DDTHH:MM:SS.fff[fff[fff]] (with Z for\n"
               "UTC ones, none for local-timestamp-* and Iceberg's \"adjust-to-utc\": false),\n"
               "uuids as their 8-4-4-4-12 text,\n"
               "durations as {\"months\",\"days\",\"nanoseconds\"}. --raw prints the Avro JSON\n"
               "encoding instead (logical types as their underlying values).\n"
               "\nFILE is a local path or a URI (s3://, gs://, az://, http(s)://, file://);\n"
               "the object-store options are in 'basalt --help'.\n");
        return CLI_OK;
    }
    struct cat_args a;
    int rc = parse_cat(argc, argv, &a);
    if (rc != CLI_OK)
        return rc;
    struct basalt_error err;
    basalt_error_init(&err);
    struct avro_file f;
    if ((rc = open_file(a.path, &f, &err)) != CLI_OK)
        return rc;
    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    rc = a.fields ? cat_fields(&f, &a, &err) : cat_records(&f, &a, &err);
    fflush(stdout);
    close_file(&f);
    return rc;
}

int cli_avro_main(int argc, char **argv)
{
    static const struct cli_verb verbs[] = {
        {"schema", "print a file's schema (JSON, canonical form, fingerprint)", cmd_schema},
        {"cat", "print records as a table or JSON lines", cmd_cat},
        {"count", "count records", cmd_count},
        {NULL, NULL, NULL}};
    return cli_dispatch_verbs("avro", verbs, argc, argv);
}
