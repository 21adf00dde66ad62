/* The Avro schemas of manifests and manifest lists, per format version: the
 * spec's tables ("Manifests", "Manifest Lists") with the names, field ids,
 * docs and field order the Java implementation writes, so that every reader
 * resolving by name or by id finds what it expects. */
#include <stdio.h>
#include <string.h>

#include "basalt/iceberg_metadata.h"

#include "manifest_write_internal.h"

#define ABS BASALT_ICEBERG_MW_ABSENT
#define OPT BASALT_ICEBERG_MW_OPTIONAL
#define REQ BASALT_ICEBERG_MW_REQUIRED
#define K(x) BASALT_ICEBERG_MW_##x

/* manifest_entry: v1 requires snapshot_id and has no sequence numbers. */
static const struct basalt_iceberg_mw_field entry_fields[] = {
    {0, "status", K(INT), 0, 0, {REQ, REQ, REQ}, NULL},
    {1, "snapshot_id", K(LONG), 0, 0, {REQ, OPT, OPT}, NULL},
    {3, "sequence_number", K(LONG), 0, 0, {ABS, OPT, OPT}, NULL},
    {4, "file_sequence_number", K(LONG), 0, 0, {ABS, OPT, OPT}, NULL},
    {2, "data_file", K(DATA_FILE), 0, 0, {REQ, REQ, REQ}, NULL},
};

/* data_file ("r2"). v1 must still write block_size_in_bytes; the fields
 * the spec marks deprecated (file_ordinal, sort_columns, distinct_counts)
 * are never written. */
static const struct basalt_iceberg_mw_field data_file_fields[] = {
    {134, "content", K(INT), 0, 0, {ABS, REQ, REQ},
     "Contents of the file: 0=data, 1=position deletes, 2=equality deletes"},
    {100, "file_path", K(STRING), 0, 0, {REQ, REQ, REQ}, "Location URI with FS scheme"},
    {101, "file_format", K(STRING), 0, 0, {REQ, REQ, REQ},
     "File format name: avro, orc, or parquet"},
    {102, "partition", K(PARTITION), 0, 0, {REQ, REQ, REQ},
     "Partition data tuple, schema based on the partition spec"},
    {103, "record_count", K(LONG), 0, 0, {REQ, REQ, REQ}, "Number of records in the file"},
    {104, "file_size_in_bytes", K(LONG), 0, 0, {REQ, REQ, REQ}, "Total file size in bytes"},
    {105, "block_size_in_bytes", K(LONG), 0, 0, {REQ, ABS, ABS}, NULL},
    {108, "column_sizes", K(MAP_LONG), 117, 118, {OPT, OPT, OPT},
     "Map of column id to total size on disk"},
    {109, "value_counts", K(MAP_LONG), 119, 120, {OPT, OPT, OPT},
     "Map of column id to total count, including null and NaN"},
    {110, "null_value_counts", K(MAP_LONG), 121, 122, {OPT, OPT, OPT},
     "Map of column id to null value count"},
    {137, "nan_value_counts", K(MAP_LONG), 138, 139, {OPT, OPT, OPT},
     "Map of column id to number of NaN values in the column"},
    {125, "lower_bounds", K(MAP_BYTES), 126, 127, {OPT, OPT, OPT},
     "Map of column id to lower bound"},
    {128, "upper_bounds", K(MAP_BYTES), 129, 130, {OPT, OPT, OPT},
     "Map of column id to upper bound"},
    {131, "key_metadata", K(BYTES), 0, 0, {OPT, OPT, OPT}, "Encryption key metadata blob"},
    {132, "split_offsets", K(LIST_LONG), 133, 0, {OPT, OPT, OPT}, "Splittable offsets"},
    {135, "equality_ids", K(LIST_INT), 136, 0, {ABS, OPT, OPT}, "Equality comparison field IDs"},
    {140, "sort_order_id", K(INT), 0, 0, {OPT, OPT, OPT}, "Sort order ID"},
    {142, "first_row_id", K(LONG), 0, 0, {ABS, ABS, OPT},
     "The first row ID assigned to the first row in the data file"},
    {143, "referenced_data_file", K(STRING), 0, 0, {ABS, OPT, OPT},
     "Fully qualified location (URI with FS scheme) of a data file that all deletes reference"},
    {144, "content_offset", K(LONG), 0, 0, {ABS, ABS, OPT},
     "The offset in the file where the content starts"},
    {145, "content_size_in_bytes", K(LONG), 0, 0, {ABS, ABS, OPT},
     "The length of referenced content stored in the file"},
};

/* field_summary ("r508"). */
static const struct basalt_iceberg_mw_field summary_fields[] = {
    {509, "contains_null", K(BOOLEAN), 0, 0, {REQ, REQ, REQ},
     "True if any file has a null partition value"},
    {518, "contains_nan", K(BOOLEAN), 0, 0, {OPT, OPT, OPT},
     "True if any file has a nan partition value"},
    {510, "lower_bound", K(BYTES), 0, 0, {OPT, OPT, OPT}, "Partition lower bound for all files"},
    {511, "upper_bound", K(BYTES), 0, 0, {OPT, OPT, OPT}, "Partition upper bound for all files"},
};

/* manifest_file. The spec makes the counts optional in v1 and everything
 * but the summaries and key metadata required from v2 on. */
#define LIST_HEAD                                                                               \
    {500, "manifest_path", K(STRING), 0, 0, {REQ, REQ, REQ}, "Location URI with FS scheme"},    \
        {501, "manifest_length", K(LONG), 0, 0, {REQ, REQ, REQ}, "Total file size in bytes"},   \
        {502, "partition_spec_id", K(INT), 0, 0, {REQ, REQ, REQ}, "Spec ID used to write"}
#define LIST_SNAPSHOT                                                                           \
    {503, "added_snapshot_id", K(LONG), 0, 0, {REQ, REQ, REQ},                                 \
     "Snapshot ID that added the manifest"}
#define LIST_FILE_COUNTS                                                                        \
    {504, "added_files_count", K(INT), 0, 0, {OPT, REQ, REQ}, "Added entry count"},             \
        {505, "existing_files_count", K(INT), 0, 0, {OPT, REQ, REQ}, "Existing entry count"},   \
        {506, "deleted_files_count", K(INT), 0, 0, {OPT, REQ, REQ}, "Deleted entry count"}
#define LIST_ROW_COUNTS                                                                         \
    {512, "added_rows_count", K(LONG), 0, 0, {OPT, REQ, REQ}, "Added rows count"},              \
        {513, "existing_rows_count", K(LONG), 0, 0, {OPT, REQ, REQ}, "Existing rows count"},   \
        {514, "deleted_rows_count", K(LONG), 0, 0, {OPT, REQ, REQ}, "Deleted rows count"}
#define LIST_PARTITIONS                                                                         \
    {507, "partitions", K(SUMMARIES), 508, 0, {OPT, OPT, OPT}, "Summary for each partition"}
#define LIST_KEY                                                                                \
    {519, "key_metadata", K(BYTES), 0, 0, {OPT, OPT, OPT}, "Encryption key metadata blob"}

static const struct basalt_iceberg_mw_field list_fields_v1[] = {
    LIST_HEAD, LIST_SNAPSHOT, LIST_FILE_COUNTS, LIST_PARTITIONS, LIST_ROW_COUNTS, LIST_KEY,
};

static const struct basalt_iceberg_mw_field list_fields[] = {
    LIST_HEAD,
    {517, "content", K(INT), 0, 0, {ABS, REQ, REQ}, "Contents of the manifest: 0=data, 1=deletes"},
    {515, "sequence_number", K(LONG), 0, 0, {ABS, REQ, REQ},
     "Sequence number when the manifest was added"},
    {516, "min_sequence_number", K(LONG), 0, 0, {ABS, REQ, REQ},
     "Lowest sequence number in the manifest"},
    LIST_SNAPSHOT,
    LIST_FILE_COUNTS,
    LIST_ROW_COUNTS,
    LIST_PARTITIONS,
    LIST_KEY,
    {520, "first_row_id", K(LONG), 0, 0, {ABS, ABS, OPT},
     "Starting row ID to assign to new rows in ADDED data files"},
};

#define TABLE(a) {a, sizeof a / sizeof a[0]}
const struct basalt_iceberg_mw_table basalt_iceberg_mw_entry = TABLE(entry_fields);
const struct basalt_iceberg_mw_table basalt_iceberg_mw_data_file = TABLE(data_file_fields);
const struct basalt_iceberg_mw_table basalt_iceberg_mw_summary = TABLE(summary_fields);
const struct basalt_iceberg_mw_table basalt_iceberg_mw_list_v1 = TABLE(list_fields_v1);
const struct basalt_iceberg_mw_table basalt_iceberg_mw_list = TABLE(list_fields);

/* ------------------------------------------------------------- JSON text */

/* Appending with a sticky status keeps the schema code a plain description. */
struct js {
    struct basalt_buffer *b;
    basalt_status st;
    struct basalt_error *err;
};

static void raw(struct js *j, const char *s, size_t len)
{
    if (j->st == BASALT_OK)
        j->st = basalt_buffer_append(j->b, s, len, j->err);
}

static void lit(struct js *j, const char *s) { raw(j, s, strlen(s)); }

static void num(struct js *j, int64_t v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%lld", (long long)v);
    raw(j, tmp, (size_t)n);
}

static void str(struct js *j, const char *s, size_t len)
{
    lit(j, "\"");
    size_t start = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        raw(j, s + start, i - start);
        char esc[8];
        snprintf(esc, sizeof esc, "\\u%04x", c);
        lit(j, c == '"' ? "\\\"" : c == '\\' ? "\\\\" : esc);
        start = i + 1;
    }
    raw(j, s + start, len - start);
    lit(j, "\"");
}

static void cstr(struct js *j, const char *s) { str(j, s, strlen(s)); }

/* ---------------------------------------------------- partition records */

int32_t basalt_iceberg_mw_decimal_bytes(int32_t precision)
{
    /* The largest precision n bytes hold: floor(log10(2^(8n-1) - 1)). */
    static const int32_t max_digits[16] = {2, 4, 6, 9, 11, 14, 16, 18,
                                           21, 23, 26, 28, 31, 33, 35, 38};
    for (int32_t n = 0; n < 16; n++)
        if (precision <= max_digits[n])
            return n + 1;
    return 16;
}

basalt_status basalt_iceberg_mw_check_partition_type(const struct basalt_iceberg_type *type,
                                                     struct basalt_error *err)
{
    switch (type->id) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
    case BASALT_ICEBERG_TYPE_INT:
    case BASALT_ICEBERG_TYPE_LONG:
    case BASALT_ICEBERG_TYPE_FLOAT:
    case BASALT_ICEBERG_TYPE_DOUBLE:
    case BASALT_ICEBERG_TYPE_DATE:
    case BASALT_ICEBERG_TYPE_TIME:
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
    case BASALT_ICEBERG_TYPE_STRING:
    case BASALT_ICEBERG_TYPE_UUID:
    case BASALT_ICEBERG_TYPE_BINARY:
        return BASALT_OK;
    case BASALT_ICEBERG_TYPE_DECIMAL:
        if (type->precision < 1 || type->precision > 38 || type->scale < 0 ||
            type->scale > type->precision)
            return basalt_error_set(err, BASALT_UNSUPPORTED, "decimal(%d,%d) is not writable",
                                    (int)type->precision, (int)type->scale);
        return BASALT_OK;
    case BASALT_ICEBERG_TYPE_FIXED:
        if (type->length < 1)
            return basalt_error_set(err, BASALT_UNSUPPORTED, "fixed[%d] is not writable",
                                    (int)type->length);
        return BASALT_OK;
    default: {
        char text[64];
        basalt_iceberg_type_to_string(type, text, sizeof text);
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "partition values of type %s have no Avro form", text);
    }
    }
}

/* The name of the Avro named type (fixed) the Java writer uses for `t`,
 * or "" for the unnamed types. */
static void fixed_name(const struct basalt_iceberg_type *t, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (t->id == BASALT_ICEBERG_TYPE_FIXED)
        snprintf(buf, cap, "fixed_%d", (int)t->length);
    else if (t->id == BASALT_ICEBERG_TYPE_UUID)
        snprintf(buf, cap, "uuid_fixed");
    else if (t->id == BASALT_ICEBERG_TYPE_DECIMAL)
        snprintf(buf, cap, "decimal_%d_%d", (int)t->precision, (int)t->scale);
}

static void timestamp(struct js *j, const char *logical, bool utc)
{
    lit(j, "{\"type\":\"long\",\"logicalType\":\"");
    lit(j, logical);
    lit(j, utc ? "\",\"adjust-to-utc\":true}" : "\",\"adjust-to-utc\":false}");
}

/* The Avro type of partition field i; a named type an earlier field defined
 * is referenced by name, as Avro requires. */
static void partition_type(struct js *j, const struct basalt_iceberg_type *types, uint32_t i)
{
    const struct basalt_iceberg_type *t = &types[i];
    char name[64];
    fixed_name(t, name, sizeof name);
    if (name[0]) {
        for (uint32_t k = 0; k < i; k++) {
            char other[64];
            fixed_name(&types[k], other, sizeof other);
            if (strcmp(name, other) == 0) {
                cstr(j, name);
                return;
            }
        }
    }
    switch (t->id) {
    case BASALT_ICEBERG_TYPE_BOOLEAN:
        lit(j, "\"boolean\"");
        break;
    case BASALT_ICEBERG_TYPE_INT:
        lit(j, "\"int\"");
        break;
    case BASALT_ICEBERG_TYPE_LONG:
        lit(j, "\"long\"");
        break;
    case BASALT_ICEBERG_TYPE_FLOAT:
        lit(j, "\"float\"");
        break;
    case BASALT_ICEBERG_TYPE_DOUBLE:
        lit(j, "\"double\"");
        break;
    case BASALT_ICEBERG_TYPE_DATE:
        lit(j, "{\"type\":\"int\",\"logicalType\":\"date\"}");
        break;
    case BASALT_ICEBERG_TYPE_TIME:
        lit(j, "{\"type\":\"long\",\"logicalType\":\"time-micros\"}");
        break;
    case BASALT_ICEBERG_TYPE_TIMESTAMP:
        timestamp(j, "timestamp-micros", false);
        break;
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ:
        timestamp(j, "timestamp-micros", true);
        break;
    case BASALT_ICEBERG_TYPE_TIMESTAMP_NS:
        timestamp(j, "timestamp-nanos", false);
        break;
    case BASALT_ICEBERG_TYPE_TIMESTAMPTZ_NS:
        timestamp(j, "timestamp-nanos", true);
        break;
    case BASALT_ICEBERG_TYPE_STRING:
        lit(j, "\"string\"");
        break;
    case BASALT_ICEBERG_TYPE_BINARY:
        lit(j, "\"bytes\"");
        break;
    case BASALT_ICEBERG_TYPE_UUID:
        lit(j, "{\"type\":\"fixed\",\"name\":\"uuid_fixed\",\"size\":16,\"logicalType\":\"uuid\"}");
        break;
    case BASALT_ICEBERG_TYPE_FIXED:
        lit(j, "{\"type\":\"fixed\",\"name\":");
        cstr(j, name);
        lit(j, ",\"size\":");
        num(j, t->length);
        lit(j, "}");
        break;
    case BASALT_ICEBERG_TYPE_DECIMAL:
        lit(j, "{\"type\":\"fixed\",\"name\":");
        cstr(j, name);
        lit(j, ",\"size\":");
        num(j, basalt_iceberg_mw_decimal_bytes(t->precision));
        lit(j, ",\"logicalType\":\"decimal\",\"precision\":");
        num(j, t->precision);
        lit(j, ",\"scale\":");
        num(j, t->scale);
        lit(j, "}");
        break;
    default: /* refused by basalt_iceberg_mw_check_partition_type */
        lit(j, "\"null\"");
        break;
    }
}

static bool avro_name_char(unsigned char c, bool first)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (!first && c >= '0' && c <= '9');
}

static bool valid_avro_name(const char *s)
{
    if (!s[0])
        return false;
    for (size_t i = 0; s[i]; i++)
        if (!avro_name_char((unsigned char)s[i], i == 0))
            return false;
    return true;
}

/* One UTF-8 code point at s[*i] (a stray byte stands for itself). */
static uint32_t next_code_point(const char *s, size_t *i)
{
    const unsigned char *u = (const unsigned char *)s + *i;
    int extra = u[0] >= 0xf0 ? 3 : u[0] >= 0xe0 ? 2 : u[0] >= 0xc0 ? 1 : 0;
    uint32_t cp = extra ? u[0] & (0x3fu >> extra) : u[0];
    for (int k = 1; k <= extra; k++) {
        if ((u[k] & 0xc0) != 0x80) {
            (*i)++;
            return u[0];
        }
        cp = cp << 6 | (u[k] & 0x3fu);
    }
    *i += (size_t)extra + 1;
    return cp;
}

/* The Java writer's sanitized name (AvroSchemaUtil.sanitize): a leading
 * digit d becomes "_d", any other character outside [A-Za-z0-9_] "_x" and
 * its UTF-16 code unit(s) in upper-case hex. Non-ASCII letters, which Java
 * keeps, are escaped too: Avro names are ASCII in the specification. */
static void sanitized(struct js *j, const char *s)
{
    lit(j, "\"");
    size_t i = 0;
    bool first = true;
    while (s[i]) {
        unsigned char c = (unsigned char)s[i];
        char tmp[24];
        if (avro_name_char(c, first)) {
            raw(j, s + i, 1);
            i++;
        } else if (first && c >= '0' && c <= '9') {
            snprintf(tmp, sizeof tmp, "_%c", c);
            lit(j, tmp);
            i++;
        } else {
            uint32_t cp = next_code_point(s, &i);
            if (cp > 0xffff) {
                cp -= 0x10000;
                snprintf(tmp, sizeof tmp, "_x%X_x%X", (unsigned)(0xd800 + (cp >> 10)),
                         (unsigned)(0xdc00 + (cp & 0x3ff)));
            } else {
                snprintf(tmp, sizeof tmp, "_x%X", (unsigned)cp);
            }
            lit(j, tmp);
        }
        first = false;
    }
    lit(j, "\"");
}

static void partition_record(struct js *j, const struct basalt_iceberg_partition_spec *spec,
                             const struct basalt_iceberg_type *types)
{
    lit(j, "{\"type\":\"record\",\"name\":\"r102\",\"fields\":[");
    uint32_t n = spec ? spec->n_fields : 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct basalt_iceberg_partition_field *pf = &spec->fields[i];
        const char *name = pf->name ? pf->name : "";
        bool valid = valid_avro_name(name);
        lit(j, i ? ",{\"name\":" : "{\"name\":");
        if (valid)
            cstr(j, name);
        else
            sanitized(j, name);
        lit(j, ",\"type\":[\"null\",");
        partition_type(j, types, i);
        lit(j, "],\"default\":null");
        if (!valid) {
            lit(j, ",\"iceberg-field-name\":");
            cstr(j, name);
        }
        lit(j, ",\"field-id\":");
        num(j, pf->field_id);
        lit(j, "}");
    }
    lit(j, "]}");
}

/* ------------------------------------------------------------- records */

struct ctx {
    int32_t version;
    const struct basalt_iceberg_partition_spec *spec;
    const struct basalt_iceberg_type *types;
};

static void record(struct js *j, const char *name, const struct basalt_iceberg_mw_table *t,
                   const struct ctx *c);

static void key_value(struct js *j, const struct basalt_iceberg_mw_field *f)
{
    lit(j, "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":\"k");
    num(j, f->key_id);
    lit(j, "_v");
    num(j, f->value_id);
    lit(j, "\",\"fields\":[{\"name\":\"key\",\"type\":\"int\",\"field-id\":");
    num(j, f->key_id);
    lit(j, f->kind == BASALT_ICEBERG_MW_MAP_LONG ? "},{\"name\":\"value\",\"type\":\"long\","
                                                 : "},{\"name\":\"value\",\"type\":\"bytes\",");
    lit(j, "\"field-id\":");
    num(j, f->value_id);
    lit(j, "}]},\"logicalType\":\"map\"}");
}

static void field_type(struct js *j, const struct basalt_iceberg_mw_field *f, const struct ctx *c)
{
    switch (f->kind) {
    case BASALT_ICEBERG_MW_INT:
        lit(j, "\"int\"");
        break;
    case BASALT_ICEBERG_MW_LONG:
        lit(j, "\"long\"");
        break;
    case BASALT_ICEBERG_MW_BOOLEAN:
        lit(j, "\"boolean\"");
        break;
    case BASALT_ICEBERG_MW_STRING:
        lit(j, "\"string\"");
        break;
    case BASALT_ICEBERG_MW_BYTES:
        lit(j, "\"bytes\"");
        break;
    case BASALT_ICEBERG_MW_MAP_LONG:
    case BASALT_ICEBERG_MW_MAP_BYTES:
        key_value(j, f);
        break;
    case BASALT_ICEBERG_MW_LIST_INT:
    case BASALT_ICEBERG_MW_LIST_LONG:
        lit(j, f->kind == BASALT_ICEBERG_MW_LIST_INT ? "{\"type\":\"array\",\"items\":\"int\""
                                                     : "{\"type\":\"array\",\"items\":\"long\"");
        lit(j, ",\"element-id\":");
        num(j, f->key_id);
        lit(j, "}");
        break;
    case BASALT_ICEBERG_MW_DATA_FILE:
        record(j, "r2", &basalt_iceberg_mw_data_file, c);
        break;
    case BASALT_ICEBERG_MW_PARTITION:
        partition_record(j, c->spec, c->types);
        break;
    case BASALT_ICEBERG_MW_SUMMARIES:
        lit(j, "{\"type\":\"array\",\"items\":");
        record(j, "r508", &basalt_iceberg_mw_summary, c);
        lit(j, ",\"element-id\":");
        num(j, f->key_id);
        lit(j, "}");
        break;
    }
}

/* An optional field is a union with null first and a null default, as the
 * Java writer makes it. */
static void field(struct js *j, const struct basalt_iceberg_mw_field *f, const struct ctx *c)
{
    bool optional = basalt_iceberg_mw_presence(f, c->version) == BASALT_ICEBERG_MW_OPTIONAL;
    lit(j, "{\"name\":");
    cstr(j, f->name);
    lit(j, optional ? ",\"type\":[\"null\"," : ",\"type\":");
    field_type(j, f, c);
    if (optional)
        lit(j, "]");
    if (f->doc) {
        lit(j, ",\"doc\":");
        cstr(j, f->doc);
    }
    if (optional)
        lit(j, ",\"default\":null");
    lit(j, ",\"field-id\":");
    num(j, f->id);
    lit(j, "}");
}

static void record(struct js *j, const char *name, const struct basalt_iceberg_mw_table *t,
                   const struct ctx *c)
{
    lit(j, "{\"type\":\"record\",\"name\":");
    cstr(j, name);
    lit(j, ",\"fields\":[");
    bool first = true;
    for (uint32_t i = 0; i < t->n; i++) {
        if (basalt_iceberg_mw_presence(&t->fields[i], c->version) == BASALT_ICEBERG_MW_ABSENT)
            continue;
        if (!first)
            lit(j, ",");
        field(j, &t->fields[i], c);
        first = false;
    }
    lit(j, "]}");
}

basalt_status basalt_iceberg_mw_manifest_schema(int32_t version,
                                                const struct basalt_iceberg_partition_spec *spec,
                                                const struct basalt_iceberg_type *types,
                                                struct basalt_buffer *out,
                                                struct basalt_error *err)
{
    struct js j = {out, BASALT_OK, err};
    struct ctx c = {version, spec, types};
    record(&j, "manifest_entry", &basalt_iceberg_mw_entry, &c);
    return j.st;
}

basalt_status basalt_iceberg_mw_list_schema(int32_t version, struct basalt_buffer *out,
                                            struct basalt_error *err)
{
    struct js j = {out, BASALT_OK, err};
    struct ctx c = {version, NULL, NULL};
    record(&j, "manifest_file", version == 1 ? &basalt_iceberg_mw_list_v1 : &basalt_iceberg_mw_list,
           &c);
    return j.st;
}
