/* basalt avro: Apache Avro schemas, the binary encoding, Object Container
 * Files, schema resolution and a compiled decoder.
 *
 *   - basalt_avro_schema_*   parse JSON schemas into a read-only node graph;
 *                            Parsing Canonical Form, CRC-64-AVRO fingerprints
 *   - basalt_avro_value_*    a generic datum tree: binary decode and encode,
 *                            JSON text out
 *   - basalt_avro_resolution_*  writer schema -> reader schema resolution
 *   - basalt_avro_plan_*     a schema (resolved or not) plus a selection of
 *                            fields compiled once into a flat decode program
 *                            that writes into caller-provided slots
 *   - basalt_avro_reader_* / basalt_avro_writer_*  Object Container Files
 *   - basalt_avro_arrow_*    records into Arrow record batches
 *   - basalt_avro_single_*   single-object encoding (C3 01 + fingerprint)
 *
 * Statuses: malformed schemas and data are CORRUPT, sizes beyond the limits
 * are LIMIT, schemas that cannot be resolved or a selection that does not fit
 * the schema are INVALID_ARG, codecs not built in are UNSUPPORTED.
 *
 * Thread safety: schemas, resolutions and plans are immutable once built and
 * may be shared between threads. Readers, writers and arenas are used by one
 * thread at a time. */
#ifndef BASALT_AVRO_H
#define BASALT_AVRO_H

#include "basalt/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ schema */

enum basalt_avro_type {
    BASALT_AVRO_NULL = 0,
    BASALT_AVRO_BOOLEAN,
    BASALT_AVRO_INT,
    BASALT_AVRO_LONG,
    BASALT_AVRO_FLOAT,
    BASALT_AVRO_DOUBLE,
    BASALT_AVRO_BYTES,
    BASALT_AVRO_STRING,
    BASALT_AVRO_RECORD, /* also "error" */
    BASALT_AVRO_ENUM,
    BASALT_AVRO_ARRAY,
    BASALT_AVRO_MAP,
    BASALT_AVRO_UNION,
    BASALT_AVRO_FIXED
};

/* Logical types. One that is unknown or invalid for its underlying type
 * (a decimal whose precision is missing, a uuid on a long) is ignored, as the
 * specification says: the node keeps `logical` NONE and the attributes stay
 * in `props`. */
enum basalt_avro_logical {
    BASALT_AVRO_LOGICAL_NONE = 0,
    BASALT_AVRO_LOGICAL_DECIMAL,                /* bytes or fixed; precision, scale */
    BASALT_AVRO_LOGICAL_UUID,                   /* string or fixed(16) */
    BASALT_AVRO_LOGICAL_DATE,                   /* int: days since 1970-01-01 */
    BASALT_AVRO_LOGICAL_TIME_MILLIS,            /* int */
    BASALT_AVRO_LOGICAL_TIME_MICROS,            /* long */
    BASALT_AVRO_LOGICAL_TIMESTAMP_MILLIS,       /* long, UTC */
    BASALT_AVRO_LOGICAL_TIMESTAMP_MICROS,       /* long, UTC */
    BASALT_AVRO_LOGICAL_TIMESTAMP_NANOS,        /* long, UTC */
    BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS, /* long, local time */
    BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS, /* long */
    BASALT_AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS,  /* long */
    BASALT_AVRO_LOGICAL_DURATION                /* fixed(12): months, days, millis */
};

enum basalt_avro_order {
    BASALT_AVRO_ORDER_ASCENDING = 0,
    BASALT_AVRO_ORDER_DESCENDING,
    BASALT_AVRO_ORDER_IGNORE
};

/* An attribute the specification does not define ("field-id",
 * "avro.java.string", ...), with its value as compact JSON text. */
struct basalt_avro_prop {
    const char *key;
    const char *json;
};

struct basalt_avro_node;

struct basalt_avro_field {
    const char *name;
    struct basalt_avro_node *type;
    const char *doc;          /* NULL when absent */
    const char *default_json; /* the default as compact JSON text; NULL when absent */
    enum basalt_avro_order order;
    uint32_t index;           /* position in the record */
    uint32_t alias_count;
    const char **aliases;
    uint32_t prop_count;
    struct basalt_avro_prop *props;
};

/* One node of a parsed schema. Nodes are owned by their schema and read-only
 * to callers. A named type (record, enum, fixed) is one node however many
 * times it is referenced, so the graph of a recursive schema has cycles. */
struct basalt_avro_node {
    enum basalt_avro_type type;
    enum basalt_avro_logical logical;
    int32_t precision;       /* decimal */
    int32_t scale;           /* decimal */
    uint32_t id;             /* dense index of the node within its schema */
    const char *name;        /* named types: the full name "ns.Name"; NULL otherwise */
    const char *short_name;  /* named types: the part after the last dot */
    const char *space;       /* named types: the namespace, "" for none */
    const char *doc;         /* NULL when absent */
    uint32_t alias_count;    /* named types: aliases as full names */
    const char **aliases;
    /* record: fields; enum: symbols; union: branches */
    uint32_t count;
    struct basalt_avro_field *fields;
    const char **symbols;
    int32_t enum_default;    /* enum: index of the "default" symbol, -1 when none */
    struct basalt_avro_node **branches;
    struct basalt_avro_node *items; /* array items, map values */
    int64_t size;            /* fixed */
    uint32_t prop_count;
    struct basalt_avro_prop *props;
};

/* Options for parsing a schema. Zero-initialised (or basalt_avro_schema_
 * options_init) means: strict names, depth limit 64. */
struct basalt_avro_schema_options {
    /* Accept any non-empty name without dots in its parts (Java reflection
     * writes names such as "Outer$Inner"); the specification allows only
     * [A-Za-z_][A-Za-z0-9_]*. Object Container File readers set this. */
    bool lenient_names;
    /* Deepest nesting of schema JSON accepted (0 = 64); deeper is LIMIT. */
    uint32_t max_depth;
};

BASALT_EXPORT void basalt_avro_schema_options_init(struct basalt_avro_schema_options *options);

struct basalt_avro_schema;

/* Parses a JSON schema from json[0, len) (no NUL needed). Every type of the
 * specification, named types and namespaces, aliases, defaults, logical types
 * and extra attributes. Defaults are kept as JSON text and checked against
 * their field's type only when a resolution uses them (files in the wild
 * carry defaults that do not fit, such as null for ["string","null"]), as
 * python3-avro does. A reference to a type without dots is looked up in the
 * enclosing namespace, then as written. Thread-safe. `options` may be NULL.
 * Returns OK; CORRUPT for invalid JSON or an invalid schema, with a message
 * naming the offending part ("field 'City' of record 'Address': missing
 * type"); LIMIT for nesting beyond the limit; NOMEM. *out is owned by the
 * caller (basalt_avro_schema_free). */
BASALT_EXPORT basalt_status basalt_avro_schema_parse(const char *json, size_t len,
                                                     const struct basalt_avro_schema_options *options,
                                                     struct basalt_avro_schema **out,
                                                     struct basalt_error *err);
BASALT_EXPORT void basalt_avro_schema_free(struct basalt_avro_schema *schema);

/* The root node; valid as long as the schema. */
BASALT_EXPORT const struct basalt_avro_node *basalt_avro_schema_root(
    const struct basalt_avro_schema *schema);
/* Looks a named type up by its full name; NULL when there is none. */
BASALT_EXPORT const struct basalt_avro_node *basalt_avro_schema_find(
    const struct basalt_avro_schema *schema, const char *full_name);
/* Number of nodes (node ids are 0 .. count-1). */
BASALT_EXPORT uint32_t basalt_avro_schema_node_count(const struct basalt_avro_schema *schema);

/* The Parsing Canonical Form, computed at parse time: NUL-terminated, valid
 * as long as the schema; *len (may be NULL) receives its length. */
BASALT_EXPORT const char *basalt_avro_schema_canonical(const struct basalt_avro_schema *schema,
                                                       size_t *len);
/* CRC-64-AVRO (Rabin) fingerprint of the canonical form. */
BASALT_EXPORT uint64_t basalt_avro_schema_fingerprint(const struct basalt_avro_schema *schema);
/* CRC-64-AVRO of any bytes, as the specification defines it. Pure. */
BASALT_EXPORT uint64_t basalt_avro_fingerprint64(const void *data, size_t len);

/* Appends the full JSON form of the schema to `out`: every attribute that was
 * parsed (doc, aliases, defaults, order, logical types, extra attributes),
 * named types defined at their first occurrence (with a "namespace" where it
 * differs from the enclosing one) and referenced by name afterwards; it parses
 * back to the same schema. `pretty` indents by two spaces. Returns OK or NOMEM. */
BASALT_EXPORT basalt_status basalt_avro_schema_to_json(const struct basalt_avro_schema *schema,
                                                       bool pretty, struct basalt_buffer *out,
                                                       struct basalt_error *err);

/* Lower-case name of a type ("record", "long"); static storage. */
BASALT_EXPORT const char *basalt_avro_type_name(enum basalt_avro_type type);
/* The logical type's name as written in schemas ("timestamp-micros"), or ""
 * for NONE; static storage. */
BASALT_EXPORT const char *basalt_avro_logical_name(enum basalt_avro_logical logical);

/* The index of the field named `name` in record `node`, or -1. */
BASALT_EXPORT int32_t basalt_avro_node_field_index(const struct basalt_avro_node *node,
                                                   const char *name);
/* Value of an extra attribute as JSON text, or NULL. */
BASALT_EXPORT const char *basalt_avro_node_prop(const struct basalt_avro_node *node,
                                                const char *key);
BASALT_EXPORT const char *basalt_avro_field_prop(const struct basalt_avro_field *field,
                                                 const char *key);

/* ------------------------------------------------------------------ limits */

/* Bounds on what untrusted data may make the library do. Zero in any member
 * means its default. Exceeding one is LIMIT. */
struct basalt_avro_limits {
    uint32_t max_depth;          /* nesting of values (recursive schemas): 128 */
    uint64_t max_items;          /* items of one array or map, entries of one
                                    generic value tree: 1 << 26 */
    uint64_t max_block_bytes;    /* compressed or decompressed container block: 256 MiB */
    uint64_t max_block_records;  /* records claimed by one container block: 1 << 31 */
    uint64_t max_header_bytes;   /* container file header: 64 MiB */
};

/* ------------------------------------------------------------------ values */

struct basalt_avro_entry;

/* A generic datum. `node` is the schema node the value is an instance of
 * (the reader's node when decoded with a resolution). Which member holds the
 * value follows node->type:
 *   null      nothing            boolean   boolean
 *   int, long  i                 float     f           double  d
 *   bytes, string, fixed  bytes (a view, not NUL-terminated)
 *   enum      index (symbol)     union     index (branch) and branch
 *   array     items[count]       map       entries[count]
 *   record    items[count] in field order */
struct basalt_avro_value {
    const struct basalt_avro_node *node;
    uint32_t index;
    size_t count;
    union {
        bool boolean;
        int64_t i;
        float f;
        double d;
        struct {
            const uint8_t *data;
            size_t size;
        } bytes;
        struct basalt_avro_value *items;
        struct basalt_avro_entry *entries;
        struct basalt_avro_value *branch;
    };
};

struct basalt_avro_entry {
    const uint8_t *key; /* UTF-8, not NUL-terminated */
    size_t key_size;
    struct basalt_avro_value value;
};

/* Decodes one datum of schema `node` from data[0, len), storing the bytes it
 * used in *consumed (may be NULL). Strings, bytes and fixed are views into
 * `data`; everything else is allocated in `arena`, so the value lives as
 * long as both. `limits` may be NULL.
 * Returns OK; CORRUPT for truncated or malformed input (a union branch or
 * enum index out of range, a negative length, invalid UTF-8 is not checked);
 * LIMIT; NOMEM. */
BASALT_EXPORT basalt_status basalt_avro_value_decode(const struct basalt_avro_node *node,
                                                     const uint8_t *data, size_t len,
                                                     const struct basalt_avro_limits *limits,
                                                     struct basalt_arena *arena,
                                                     struct basalt_avro_value *out,
                                                     size_t *consumed, struct basalt_error *err);

/* Skips one datum of schema `node`: like decode without building anything.
 * Returns OK, CORRUPT or LIMIT (depth). */
BASALT_EXPORT basalt_status basalt_avro_value_skip(const struct basalt_avro_node *node,
                                                   const uint8_t *data, size_t len,
                                                   const struct basalt_avro_limits *limits,
                                                   size_t *consumed, struct basalt_error *err);

/* Appends the binary encoding of `value` to `out`. Arrays and maps are
 * written as one block followed by the end marker. Returns OK; INVALID_ARG
 * when the value does not fit its node (a union index or enum index out of
 * range, a fixed of the wrong size, an int outside 32 bits); NOMEM. */
BASALT_EXPORT basalt_status basalt_avro_value_encode(const struct basalt_avro_value *value,
                                                     struct basalt_buffer *out,
                                                     struct basalt_error *err);

/* JSON text of a value, for display and comparison:
 *   - unions are written as the value of their branch, without a wrapper
 *     (use BASALT_AVRO_JSON_UNION_WRAP for the specification's JSON encoding,
 *     {"type name": value}, with null bare);
 *   - bytes and fixed as strings whose characters are the byte values
 *     U+0000..U+00FF (the specification's JSON encoding), escaped as \u00XX
 *     outside printable ASCII;
 *   - strings as UTF-8, with bytes that are not UTF-8 escaped as \u00XX;
 *   - floats and doubles with the fewest digits that read back to the same
 *     double (a float is widened first), NaN and infinities as NaN, Infinity,
 *     -Infinity (what Python's json module reads and writes);
 *   - enums as their symbol, maps as objects, records as objects in field
 *     order. */
#define BASALT_AVRO_JSON_UNION_WRAP 1u
BASALT_EXPORT basalt_status basalt_avro_value_to_json(const struct basalt_avro_value *value,
                                                      unsigned flags, struct basalt_buffer *out,
                                                      struct basalt_error *err);

/* Builds a value of schema `node` from JSON text in the form default values
 * use (the specification's JSON encoding, but a union takes the value of its
 * first branch, or of the first branch the JSON fits when that one does not;
 * bytes and fixed are strings of U+0000..U+00FF). Everything is allocated in
 * `arena`. Returns OK; CORRUPT when the JSON is malformed or does not fit the
 * schema; NOMEM. */
BASALT_EXPORT basalt_status basalt_avro_value_from_json(const struct basalt_avro_node *node,
                                                        const char *json, size_t len,
                                                        struct basalt_arena *arena,
                                                        struct basalt_avro_value *out,
                                                        struct basalt_error *err);

/* ------------------------------------------------------------------ resolution */

struct basalt_avro_resolution;

/* Resolves data written with `writer` to be read as `reader`, following the
 * specification's rules: fields matched by name or by the reader field's
 * aliases, in any order; writer-only fields skipped; reader-only fields
 * filled from their defaults; int -> long -> float -> double and string <->
 * bytes promotions; unions on either side (the reader's branch of the
 * writer's type, else the first that matches, as the specification says);
 * enum symbols by name with the reader's default for unknown ones;
 * named types matched by unqualified name or the reader's aliases; fixed of
 * equal size. Both schemas are borrowed and must outlive the resolution.
 * Returns OK; INVALID_ARG when the schemas cannot be resolved (a reader field
 * without default missing from the writer, types that do not match), the
 * message naming the path; NOMEM. Mismatches inside writer union branches or
 * unknown enum symbols are only errors when such a value is read (CORRUPT).
 * The resolution is immutable and shareable. */
BASALT_EXPORT basalt_status basalt_avro_resolution_new(const struct basalt_avro_schema *writer,
                                                       const struct basalt_avro_schema *reader,
                                                       struct basalt_avro_resolution **out,
                                                       struct basalt_error *err);
BASALT_EXPORT void basalt_avro_resolution_free(struct basalt_avro_resolution *resolution);

/* Decodes one datum written with the resolution's writer schema into a value
 * of its reader schema. Ownership as in basalt_avro_value_decode; defaults
 * filled in are allocated in `arena`. */
BASALT_EXPORT basalt_status basalt_avro_value_decode_resolved(
    const struct basalt_avro_resolution *resolution, const uint8_t *data, size_t len,
    const struct basalt_avro_limits *limits, struct basalt_arena *arena,
    struct basalt_avro_value *out, size_t *consumed, struct basalt_error *err);

/* ------------------------------------------------------------------ plans */

/* How a selected column is stored in its slot. */
enum basalt_avro_slot_type {
    BASALT_AVRO_SLOT_AUTO = 0, /* pick from the reader type (see below) */
    BASALT_AVRO_SLOT_BOOL,     /* uint8_t, 0 or 1 */
    BASALT_AVRO_SLOT_INT32,    /* int32_t: int, date, time-millis; enum symbol index */
    BASALT_AVRO_SLOT_INT64,    /* int64_t: long and its logical types; also int */
    BASALT_AVRO_SLOT_FLOAT,    /* float */
    BASALT_AVRO_SLOT_DOUBLE,   /* double; also float, int, long */
    BASALT_AVRO_SLOT_BYTES,    /* struct basalt_avro_bytes view: string, bytes, fixed */
    BASALT_AVRO_SLOT_RAW       /* struct basalt_avro_bytes view of the encoded datum,
                                  any type (for arrays, maps, records read later) */
};

/* A view of bytes inside the data being decoded. */
struct basalt_avro_bytes {
    const uint8_t *data;
    size_t size;
};

/* A column to decode: a dotted path of field names from the root record
 * ("data_file.file_path"). A path may pass through a union whose branches are
 * null and one record. AUTO picks BOOL, INT32 (int, enum), INT64, FLOAT,
 * DOUBLE, BYTES (string, bytes, fixed) or RAW (array, map, record, other
 * unions). A union of null and one type is stored as that type, with
 * `present` cleared for null. */
struct basalt_avro_column {
    const char *path;
    enum basalt_avro_slot_type type;
};

/* Where decoded values of one column go. Record i of a call is stored at
 * (char *)values + i * stride; `present`, when not NULL, receives 1 or 0 at
 * present + i * present_stride (0 when the value is null or not written,
 * the slot then holding zero). A stride of 0 means the size of the slot type
 * (1 for present), i.e. dense arrays; a struct of slots per record uses
 * sizeof(struct) for both. */
struct basalt_avro_dest {
    void *values;
    size_t stride;
    uint8_t *present;
    size_t present_stride;
};

struct basalt_avro_plan;

/* Compiles the decoding of `columns` from data written with `writer`, read
 * as `reader` (NULL: no resolution, the writer schema itself) into a flat
 * program: unselected fields are skipped without being stored. The root of
 * the (reader) schema must be a record unless the only column has path ""
 * (the whole datum). Schemas are borrowed and must outlive the plan, or use a
 * plan cache. Returns OK; INVALID_ARG for an unknown path, a type that the
 * column type cannot hold, or unresolvable schemas; NOMEM. The plan is
 * immutable and shareable. */
BASALT_EXPORT basalt_status basalt_avro_plan_new(const struct basalt_avro_schema *writer,
                                                 const struct basalt_avro_schema *reader,
                                                 const struct basalt_avro_column *columns,
                                                 size_t column_count,
                                                 struct basalt_avro_plan **out,
                                                 struct basalt_error *err);
/* Plans are reference-counted so that caches can share them: _ref adds a
 * reference, _free drops one (NULL is a no-op). Thread-safe. */
BASALT_EXPORT struct basalt_avro_plan *basalt_avro_plan_ref(struct basalt_avro_plan *plan);
BASALT_EXPORT void basalt_avro_plan_free(struct basalt_avro_plan *plan);

BASALT_EXPORT size_t basalt_avro_plan_column_count(const struct basalt_avro_plan *plan);
/* The slot type of column i after AUTO was resolved. */
BASALT_EXPORT enum basalt_avro_slot_type basalt_avro_plan_column_type(
    const struct basalt_avro_plan *plan, size_t i);
/* The reader schema node of column i. */
BASALT_EXPORT const struct basalt_avro_node *basalt_avro_plan_column_node(
    const struct basalt_avro_plan *plan, size_t i);

/* Decodes `count` consecutive records from data[0, len) into `dests` (one per
 * column, in column order), storing the bytes used in *consumed (may be NULL).
 * Views point into `data`. No allocation. Returns OK; CORRUPT for truncated or
 * malformed data (with the record number); LIMIT for nesting beyond
 * limits->max_depth (limits may be NULL). */
BASALT_EXPORT basalt_status basalt_avro_plan_decode(const struct basalt_avro_plan *plan,
                                                    const uint8_t *data, size_t len,
                                                    int64_t count,
                                                    const struct basalt_avro_dest *dests,
                                                    const struct basalt_avro_limits *limits,
                                                    size_t *consumed, struct basalt_error *err);

/* A cache of parsed writer schemas (keyed by their JSON bytes) and of plans
 * (keyed by writer schema, reader schema and columns), so that reading many
 * files with the same schema parses and compiles once. Thread-safe. Entries
 * live until the cache is freed; plans handed out hold their own reference. */
struct basalt_avro_plan_cache;

BASALT_EXPORT basalt_status basalt_avro_plan_cache_new(struct basalt_avro_plan_cache **out,
                                                       struct basalt_error *err);
BASALT_EXPORT void basalt_avro_plan_cache_free(struct basalt_avro_plan_cache *cache);

/* Returns the parsed schema for json[0, len), parsing it on first use with
 * `options` (which are part of the key). The schema is owned by the cache.
 * Statuses of basalt_avro_schema_parse. */
BASALT_EXPORT basalt_status basalt_avro_plan_cache_schema(
    struct basalt_avro_plan_cache *cache, const char *json, size_t len,
    const struct basalt_avro_schema_options *options, const struct basalt_avro_schema **out,
    struct basalt_error *err);

/* Returns a plan (a new reference: basalt_avro_plan_free it) for the
 * arguments of basalt_avro_plan_new, compiling it on first use. The schemas
 * must outlive the cache (schemas from basalt_avro_plan_cache_schema do).
 * Statuses of basalt_avro_plan_new. */
BASALT_EXPORT basalt_status basalt_avro_plan_cache_plan(
    struct basalt_avro_plan_cache *cache, const struct basalt_avro_schema *writer,
    const struct basalt_avro_schema *reader, const struct basalt_avro_column *columns,
    size_t column_count, struct basalt_avro_plan **out, struct basalt_error *err);

/* Cache statistics, for tests: lookups that found an entry and that compiled. */
BASALT_EXPORT void basalt_avro_plan_cache_stats(struct basalt_avro_plan_cache *cache,
                                                uint64_t *hits, uint64_t *misses);

/* ------------------------------------------------------------------ container files */

enum basalt_avro_codec {
    BASALT_AVRO_CODEC_NULL = 0,
    BASALT_AVRO_CODEC_DEFLATE,
    BASALT_AVRO_CODEC_SNAPPY,   /* each block: snappy data + big-endian CRC-32 of the output */
    BASALT_AVRO_CODEC_ZSTANDARD,
    BASALT_AVRO_CODEC_BZIP2,
    BASALT_AVRO_CODEC_XZ,
    BASALT_AVRO_CODEC_COUNT
};

/* The name in "avro.codec" ("null", "deflate", "zstandard", ...). */
BASALT_EXPORT const char *basalt_avro_codec_name(enum basalt_avro_codec codec);
/* Parses a codec name as written in "avro.codec" (also "zstd", "none").
 * NOT_FOUND for an unknown name. */
BASALT_EXPORT basalt_status basalt_avro_codec_parse(const char *name, size_t len,
                                                    enum basalt_avro_codec *out,
                                                    struct basalt_error *err);

struct basalt_pool;

struct basalt_avro_reader_options {
    struct basalt_avro_limits limits;
    /* Schema parsing for the file's schema; lenient_names is forced on unless
     * strict_names is set. */
    bool strict_names;
    /* Optional: parse the writer schema through this cache (borrowed; must
     * outlive the reader). */
    struct basalt_avro_plan_cache *cache;
};

BASALT_EXPORT void basalt_avro_reader_options_init(struct basalt_avro_reader_options *options);

/* One block of a container file, decompressed. */
struct basalt_avro_block {
    const uint8_t *data;  /* the records; valid until the next call on the reader */
    size_t size;
    int64_t count;        /* records in the block */
    int64_t index;        /* 0-based block number */
    uint64_t offset;      /* file offset of the block's count */
    int64_t first_record; /* number of records in the blocks before */
};

struct basalt_avro_reader;

/* Opens an Object Container File held in data[0, len) (borrowed: it must
 * outlive the reader). Reads and checks the header: magic, metadata, schema,
 * codec, sync marker. `options` may be NULL.
 * Returns OK; CORRUPT (not a container file, bad header, bad schema);
 * UNSUPPORTED (unknown codec); LIMIT; NOMEM. */
BASALT_EXPORT basalt_status basalt_avro_reader_new(const uint8_t *data, size_t len,
                                                   const struct basalt_avro_reader_options *options,
                                                   struct basalt_avro_reader **out,
                                                   struct basalt_error *err);
BASALT_EXPORT void basalt_avro_reader_free(struct basalt_avro_reader *reader);

/* The writer schema (owned by the reader, or by its cache). */
BASALT_EXPORT const struct basalt_avro_schema *basalt_avro_reader_schema(
    const struct basalt_avro_reader *reader);
BASALT_EXPORT enum basalt_avro_codec basalt_avro_reader_codec(const struct basalt_avro_reader *reader);
/* A metadata value by key (a view into the file); NULL when absent. */
BASALT_EXPORT const uint8_t *basalt_avro_reader_meta(const struct basalt_avro_reader *reader,
                                                     const char *key, size_t *size);
/* Metadata entries in file order, i < count. */
BASALT_EXPORT size_t basalt_avro_reader_meta_count(const struct basalt_avro_reader *reader);
BASALT_EXPORT void basalt_avro_reader_meta_at(const struct basalt_avro_reader *reader, size_t i,
                                              const char **key, size_t *key_size,
                                              const uint8_t **value, size_t *value_size);
BASALT_EXPORT const uint8_t *basalt_avro_reader_sync(const struct basalt_avro_reader *reader);

/* Reads the next block: its count, its size, its bytes, decompressed, and the
 * sync marker after it. *has_block is false at the end of the file.
 * Returns OK; CORRUPT (truncated block, bad sync marker, undecodable
 * compressed data, snappy checksum mismatch) with the file offset and block
 * number in the message; LIMIT; NOMEM. */
BASALT_EXPORT basalt_status basalt_avro_reader_next_block(struct basalt_avro_reader *reader,
                                                          struct basalt_avro_block *block,
                                                          bool *has_block,
                                                          struct basalt_error *err);

/* Reads the next record as a generic value (arena-allocated, views into the
 * current block: valid until the next call on the reader and while `arena`
 * lives). `resolution` may be NULL, or resolve the file's schema to a reader
 * schema. *has_value is false at the end. Statuses of next_block and
 * basalt_avro_value_decode; CORRUPT also when a block's records do not fill
 * it exactly. */
BASALT_EXPORT basalt_status basalt_avro_reader_next_value(
    struct basalt_avro_reader *reader, const struct basalt_avro_resolution *resolution,
    struct basalt_arena *arena, struct basalt_avro_value *out, bool *has_value,
    struct basalt_error *err);

/* Decodes up to `max` records with `plan` (compiled for this file's schema)
 * into `dests`, never past the end of the current block, so that every view
 * stays valid until the next call on the reader. *count receives the number
 * decoded, 0 only at the end of the file. Statuses of next_block and
 * basalt_avro_plan_decode. */
BASALT_EXPORT basalt_status basalt_avro_reader_read(struct basalt_avro_reader *reader,
                                                    const struct basalt_avro_plan *plan,
                                                    const struct basalt_avro_dest *dests,
                                                    int64_t max, int64_t *count,
                                                    struct basalt_error *err);

/* Counts the records of the remaining blocks without decoding them (the
 * blocks are still framed, sync-checked and, when `verify` is set,
 * decompressed). */
BASALT_EXPORT basalt_status basalt_avro_reader_count(struct basalt_avro_reader *reader,
                                                     bool verify, int64_t *count,
                                                     struct basalt_error *err);

/* Decodes every remaining record into `dests`, which must have room for
 * `capacity` records (call basalt_avro_reader_count on a second reader, or
 * size from the Iceberg manifest's record count; LIMIT when the file holds
 * more). Blocks are decompressed and decoded on `pool` (NULL: the calling
 * thread); the output is the same for any number of workers. Views point into
 * the file or into decompressed blocks that the reader keeps until it is
 * freed. *count receives the records decoded. Statuses of next_block and
 * basalt_avro_plan_decode; on error the first failing block (in file order)
 * is reported. */
BASALT_EXPORT basalt_status basalt_avro_reader_read_all(struct basalt_avro_reader *reader,
                                                        const struct basalt_avro_plan *plan,
                                                        const struct basalt_avro_dest *dests,
                                                        int64_t capacity, struct basalt_pool *pool,
                                                        int64_t *count, struct basalt_error *err);

/* Where a writer's bytes go: called with consecutive pieces of the file.
 * Returns OK or the status to stop with. */
typedef basalt_status (*basalt_avro_write_fn)(void *ctx, const void *data, size_t len,
                                              struct basalt_error *err);

struct basalt_avro_meta_item {
    const char *key;
    const uint8_t *value;
    size_t size;
};

struct basalt_avro_writer_options {
    enum basalt_avro_codec codec;
    int level;                   /* codec level, 0 = default */
    size_t block_bytes;          /* uncompressed bytes per block before it is flushed: 64000 */
    const uint8_t *sync;         /* 16 bytes, or NULL for a random marker */
    const struct basalt_avro_meta_item *meta; /* extra metadata (keys not "avro.*") */
    size_t meta_count;
};

BASALT_EXPORT void basalt_avro_writer_options_init(struct basalt_avro_writer_options *options);

struct basalt_avro_writer;

/* Starts a container file for `schema` (borrowed; must outlive the writer),
 * writing the header through `write`. Returns OK; INVALID_ARG (bad options, a
 * reserved metadata key); UNSUPPORTED (codec); NOMEM; or what `write` returned. */
BASALT_EXPORT basalt_status basalt_avro_writer_new(const struct basalt_avro_schema *schema,
                                                   const struct basalt_avro_writer_options *options,
                                                   basalt_avro_write_fn write, void *ctx,
                                                   struct basalt_avro_writer **out,
                                                   struct basalt_error *err);
/* Appends a record given as a value of the writer's root schema. */
BASALT_EXPORT basalt_status basalt_avro_writer_append(struct basalt_avro_writer *writer,
                                                      const struct basalt_avro_value *value,
                                                      struct basalt_error *err);
/* Appends one record already in the binary encoding (trusted to match). */
BASALT_EXPORT basalt_status basalt_avro_writer_append_encoded(struct basalt_avro_writer *writer,
                                                              const void *datum, size_t len,
                                                              struct basalt_error *err);
/* Ends the current block now (no-op when empty). */
BASALT_EXPORT basalt_status basalt_avro_writer_flush(struct basalt_avro_writer *writer,
                                                     struct basalt_error *err);
/* Flushes the last block and frees the writer; it is freed on error too. */
BASALT_EXPORT basalt_status basalt_avro_writer_close(struct basalt_avro_writer *writer,
                                                     struct basalt_error *err);
/* Frees without flushing (after an error). NULL is a no-op. */
BASALT_EXPORT void basalt_avro_writer_free(struct basalt_avro_writer *writer);

/* A basalt_avro_write_fn appending to the struct basalt_buffer in ctx. */
BASALT_EXPORT basalt_status basalt_avro_write_to_buffer(void *ctx, const void *data, size_t len,
                                                        struct basalt_error *err);

/* ------------------------------------------------------------------ Arrow */

struct ArrowSchema;
struct ArrowArray;
struct basalt_avro_arrow;

/* A converter from Avro records to Arrow record batches: a struct array ("+s")
 * with one child per selected field of the root record. Types map as:
 *   null n, boolean b, int i, long l, float f, double g, string u, bytes z,
 *   fixed w:N; date tdD, time-millis ttm, time-micros ttu,
 *   timestamp-millis/micros/nanos tsm:UTC / tsu:UTC / tsn:UTC (without
 *   zone, tsm: / tsu: / tsn:, when "adjust-to-utc" is false, as Iceberg
 *   writes its timestamps without zone), local-timestamp-* tsm: / tsu: / tsn:, decimal d:P,S (d:P,S,256 above 38
 *   digits), duration tin (milliseconds become nanoseconds), uuid as its
 *   underlying string or fixed; enum: int32 indices with the symbols as a
 *   string dictionary; array +l (child "item"), map +m ("key", "value"),
 *   record +s; a union of null and one type: that type, nullable; a union
 *   of several non-null types: a dense union +ud:0,1,...,n-1 whose type code
 *   i is branch i and child i (named by the branch's type: "int", a named
 *   type's name) holds that branch's values. Arrow unions have no validity
 *   bitmap: a null branch is a child of the null type "n", the union's nulls
 *   are in it, and the union field is then flagged nullable. Unions of more
 *   than 127 branches and recursive records are UNSUPPORTED.
 * `reader` NULL reads the writer's schema as is; `fields` NULL selects every
 * field of the root record (else field_count names). Schemas are borrowed and
 * must outlive the converter. Returns OK; INVALID_ARG (a root that is not a
 * record, an unknown field, unresolvable schemas); UNSUPPORTED; NOMEM.
 * Not shareable between threads. */
BASALT_EXPORT basalt_status basalt_avro_arrow_new(const struct basalt_avro_schema *writer,
                                                  const struct basalt_avro_schema *reader,
                                                  const char *const *fields, size_t field_count,
                                                  struct basalt_avro_arrow **out,
                                                  struct basalt_error *err);
BASALT_EXPORT void basalt_avro_arrow_free(struct basalt_avro_arrow *conv);
/* Decodes `count` records from data[0, len) and appends them to the batch
 * being built (values are copied). *consumed (may be NULL) receives the bytes
 * used. Returns OK; CORRUPT; LIMIT; NOMEM. After a failure the batch being
 * built is inconsistent: free the converter. */
BASALT_EXPORT basalt_status basalt_avro_arrow_decode(struct basalt_avro_arrow *conv,
                                                     const uint8_t *data, size_t len, int64_t count,
                                                     size_t *consumed, struct basalt_error *err);
/* Records appended since the last finish. */
BASALT_EXPORT int64_t basalt_avro_arrow_length(const struct basalt_avro_arrow *conv);
/* Hands the batch over as `array` and, unless NULL, its `schema` (caller
 * storage, owned, with release callbacks) and starts an empty one. Returns OK
 * or NOMEM (both outputs released). */
BASALT_EXPORT basalt_status basalt_avro_arrow_finish(struct basalt_avro_arrow *conv,
                                                     struct ArrowSchema *schema,
                                                     struct ArrowArray *array,
                                                     struct basalt_error *err);
/* Appends up to `max` records of a container file to the converter's batch,
 * across blocks (values are copied). *count receives the number appended, 0
 * only at the end of the file. Statuses of next_block and arrow_decode. */
BASALT_EXPORT basalt_status basalt_avro_reader_read_arrow(struct basalt_avro_reader *reader,
                                                          struct basalt_avro_arrow *conv,
                                                          int64_t max, int64_t *count,
                                                          struct basalt_error *err);

/* ------------------------------------------------------------------ single-object encoding */

#define BASALT_AVRO_SINGLE_HEADER_SIZE 10

/* Writes the single-object header (C3 01, then the schema's fingerprint
 * little-endian) into out[0, 10). */
BASALT_EXPORT void basalt_avro_single_header(const struct basalt_avro_schema *schema,
                                             uint8_t out[BASALT_AVRO_SINGLE_HEADER_SIZE]);
/* Checks the header of a single-object message and returns its fingerprint
 * and the datum that follows it. Returns OK or CORRUPT (short, bad magic). */
BASALT_EXPORT basalt_status basalt_avro_single_parse(const uint8_t *data, size_t len,
                                                     uint64_t *fingerprint,
                                                     const uint8_t **datum, size_t *datum_len,
                                                     struct basalt_error *err);
/* Appends a value as a single-object message (header + encoding). */
BASALT_EXPORT basalt_status basalt_avro_single_encode(const struct basalt_avro_schema *schema,
                                                      const struct basalt_avro_value *value,
                                                      struct basalt_buffer *out,
                                                      struct basalt_error *err);

#ifdef __cplusplus
}
#endif

#endif
