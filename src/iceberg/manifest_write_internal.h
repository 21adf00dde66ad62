/* Internals of the manifest and manifest-list writers: the spec's field
 * tables (one source for both the Avro schema and the encoder, so the two
 * cannot drift apart), the schema JSON, and the Avro binary encoding. */
#ifndef BASALT_ICEBERG_MANIFEST_WRITE_INTERNAL_H
#define BASALT_ICEBERG_MANIFEST_WRITE_INTERNAL_H

#include "basalt/avro.h"
#include "basalt/iceberg_write.h"

/* How a field of the spec's tables is typed in Avro. */
enum basalt_iceberg_mw_kind {
    BASALT_ICEBERG_MW_INT,
    BASALT_ICEBERG_MW_LONG,
    BASALT_ICEBERG_MW_BOOLEAN,
    BASALT_ICEBERG_MW_STRING,
    BASALT_ICEBERG_MW_BYTES,
    BASALT_ICEBERG_MW_MAP_LONG,  /* map<int, long>: key_id, value_id */
    BASALT_ICEBERG_MW_MAP_BYTES, /* map<int, binary>: key_id, value_id */
    BASALT_ICEBERG_MW_LIST_INT,  /* list<int>: element id in key_id */
    BASALT_ICEBERG_MW_LIST_LONG,
    BASALT_ICEBERG_MW_DATA_FILE, /* the record "r2" */
    BASALT_ICEBERG_MW_PARTITION, /* the record "r102", from the spec */
    BASALT_ICEBERG_MW_SUMMARIES, /* list<508: record "r508"> */
};

/* Presence of a field in one format version. */
enum { BASALT_ICEBERG_MW_ABSENT = 0, BASALT_ICEBERG_MW_OPTIONAL, BASALT_ICEBERG_MW_REQUIRED };

struct basalt_iceberg_mw_field {
    int32_t id;
    const char *name;
    enum basalt_iceberg_mw_kind kind;
    int32_t key_id, value_id;
    uint8_t presence[3]; /* format versions 1, 2, 3 */
    const char *doc;     /* as the Java implementation documents the field; NULL: none */
};

struct basalt_iceberg_mw_table {
    const struct basalt_iceberg_mw_field *fields;
    uint32_t n;
};

/* The spec's tables, in the field order the Java implementation writes. */
extern const struct basalt_iceberg_mw_table basalt_iceberg_mw_entry;     /* manifest_entry */
extern const struct basalt_iceberg_mw_table basalt_iceberg_mw_data_file; /* r2 */
extern const struct basalt_iceberg_mw_table basalt_iceberg_mw_summary;   /* r508 */
/* manifest_file: v1 puts the partition summaries before the row counts. */
extern const struct basalt_iceberg_mw_table basalt_iceberg_mw_list_v1;
extern const struct basalt_iceberg_mw_table basalt_iceberg_mw_list;

/* Presence of `f` in format version `version` (1..3). */
static inline int basalt_iceberg_mw_presence(const struct basalt_iceberg_mw_field *f,
                                             int32_t version)
{
    return f->presence[version - 1];
}

/* --- schema JSON (manifest_write_schema.c) --- */

/* UNSUPPORTED unless partition values of `type` have an Avro form (the
 * primitive types but unknown, variant and the geo types). */
basalt_status basalt_iceberg_mw_check_partition_type(const struct basalt_iceberg_type *type,
                                                     struct basalt_error *err);
/* Fewest bytes of a fixed holding every unscaled value of `precision` digits
 * (1..38), as the Java writer sizes decimal partition values. */
int32_t basalt_iceberg_mw_decimal_bytes(int32_t precision);

/* Appends the Avro schema of a manifest ("manifest_entry") of `version`
 * whose partition record has one optional field per spec field, typed
 * types[i] (checked with basalt_iceberg_mw_check_partition_type). NOMEM. */
basalt_status basalt_iceberg_mw_manifest_schema(int32_t version,
                                                const struct basalt_iceberg_partition_spec *spec,
                                                const struct basalt_iceberg_type *types,
                                                struct basalt_buffer *out,
                                                struct basalt_error *err);
/* Appends the Avro schema of a manifest list ("manifest_file"). NOMEM. */
basalt_status basalt_iceberg_mw_list_schema(int32_t version, struct basalt_buffer *out,
                                            struct basalt_error *err);

/* --- Avro encoding and container (manifest_write_avro.c) --- */

basalt_status basalt_iceberg_mw_put_long(struct basalt_buffer *b, int64_t v,
                                         struct basalt_error *err);
/* A length-prefixed string or bytes. */
basalt_status basalt_iceberg_mw_put_bytes(struct basalt_buffer *b, const void *data, size_t len,
                                          struct basalt_error *err);
/* The union branch of an optional field (["null", T]: 0 null, 1 the value)
 * and nothing for a required one; *write says whether a value must follow.
 * INVALID_ARG (naming the field) for a required field without a value. */
basalt_status basalt_iceberg_mw_begin(struct basalt_buffer *b,
                                      const struct basalt_iceberg_mw_field *f, int32_t version,
                                      bool present, bool *write, struct basalt_error *err);
/* A whole optional-or-required long / int field. */
basalt_status basalt_iceberg_mw_put_opt_long(struct basalt_buffer *b,
                                             const struct basalt_iceberg_mw_field *f,
                                             int32_t version, bool present, int64_t v,
                                             struct basalt_error *err);

/* A container file being written to a basalt_output, counting its bytes. */
struct basalt_iceberg_mw_file {
    struct basalt_output *out;
    uint64_t bytes;
    struct basalt_avro_schema *schema;
    struct basalt_avro_writer *writer;
    struct basalt_buffer record; /* one record's encoding */
};

/* Parses `schema_json`, writes the header (codec deflate, the metadata
 * `meta`) to `out`. On failure everything is released. CORRUPT/INTERNAL for
 * a schema that does not parse (a bug), IO from `out`, NOMEM. */
basalt_status basalt_iceberg_mw_file_open(struct basalt_iceberg_mw_file *f,
                                          struct basalt_output *out,
                                          const struct basalt_buffer *schema_json,
                                          const struct basalt_avro_meta_item *meta, size_t n_meta,
                                          struct basalt_error *err);
/* Appends f->record as one record and empties it. */
basalt_status basalt_iceberg_mw_file_append(struct basalt_iceberg_mw_file *f,
                                            struct basalt_error *err);
/* Flushes the last block; releases everything, also on failure. */
basalt_status basalt_iceberg_mw_file_close(struct basalt_iceberg_mw_file *f,
                                           struct basalt_error *err);
/* Releases everything without flushing (after an error). */
void basalt_iceberg_mw_file_abort(struct basalt_iceberg_mw_file *f);

#endif
