/* Shared inputs of the manifest writer tests: a v3 table whose specs cover
 * the transforms and every partition type the writer maps, entries with
 * known values, and writing to memory. Expected values in the tests come
 * from these inputs and the spec, never from the writer. */
#ifndef BASALT_TEST_MANIFEST_WRITE_FIXTURE_H
#define BASALT_TEST_MANIFEST_WRITE_FIXTURE_H

#include "basalt/iceberg_manifest.h"
#include "basalt/iceberg_metadata.h"
#include "basalt/iceberg_write.h"
#include "basalt/io.h"

/* The table's JSON: schema 0 and specs 0 (unpartitioned), 1 (transforms:
 * identity string, bucket, month, day, truncate, decimal and double
 * identity) and 2 (one identity per partition type, a name Avro must
 * sanitize, two decimal(9,2) fields sharing one named type, hour, year). */
extern const char mw_table_json[];

struct mw_fixture {
    struct basalt_iceberg_metadata *meta;
    const struct basalt_iceberg_schema *schema;
    const struct basalt_iceberg_partition_spec *unpartitioned, *transforms, *types;
};

basalt_status mw_fixture_load(struct mw_fixture *fx, struct basalt_error *err);
void mw_fixture_free(struct mw_fixture *fx);

/* Values. Byte payloads are borrowed. */
struct basalt_iceberg_value mw_null(enum basalt_iceberg_type_id type);
struct basalt_iceberg_value mw_i32(enum basalt_iceberg_type_id type, int32_t v);
struct basalt_iceberg_value mw_i64(enum basalt_iceberg_type_id type, int64_t v);
struct basalt_iceberg_value mw_str(const char *s);
struct basalt_iceberg_value mw_bytes(enum basalt_iceberg_type_id type, const void *p, size_t n);
struct basalt_iceberg_value mw_dec(int64_t hi, uint64_t lo, int32_t scale);
struct basalt_iceberg_value mw_double(double v);
struct basalt_iceberg_value mw_float(float v);
struct basalt_iceberg_value mw_bool(bool v);

/* The transforms spec's entries (ADDED, EXISTING, DELETED), with metrics,
 * split offsets, key metadata; v3 gives the EXISTING one first_row_id 500.
 * Expected summary:
 *   files 1/1/1, rows 100/50/7, min sequence number 3 (the EXISTING one);
 *   name: null, "alpha".."beta"; id_bucket 0..15; ts_month 640..660;
 *   d_day 19000..19900; name_trunc: null, "alp".."bet"; price -0.05..999.99;
 *   ratio: NaN, 1.5..2.5. */
#define MW_N_ENTRIES 3
void mw_transform_entries(int32_t version, struct basalt_iceberg_manifest_entry out[MW_N_ENTRIES]);

/* Delete files for the unpartitioned spec: position deletes with a
 * referenced data file, equality deletes (ids 1, 2) and, in v3, a deletion
 * vector in a Puffin file; the last one EXISTING with sequence numbers 5/6. */
uint32_t mw_delete_entries(int32_t version, struct basalt_iceberg_manifest_entry out[4]);

/* One ADDED entry for the types spec: row 0 holds values, row 1 other
 * values, row 2 nulls everywhere. `tuple` must have room for the spec's
 * fields. */
#define MW_N_TYPES 15
void mw_types_entry(int row, struct basalt_iceberg_value tuple[MW_N_TYPES],
                    struct basalt_iceberg_manifest_entry *out);

/* Writes to a memory output; *data (basalt_free) gets the committed bytes.
 * On failure *data is NULL and *written says how much reached the output. */
basalt_status mw_write_manifest(const struct basalt_iceberg_manifest_write_options *o,
                                const struct basalt_iceberg_manifest_entry *entries, uint32_t n,
                                struct basalt_arena *arena,
                                struct basalt_iceberg_manifest_file *summary, uint8_t **data,
                                size_t *len, uint64_t *written, struct basalt_error *err);
basalt_status mw_write_list(const struct basalt_iceberg_manifest_list_write_options *o,
                            const struct basalt_iceberg_manifest_file *files, uint32_t n,
                            int64_t *next_row_id, uint8_t **data, size_t *len, uint64_t *written,
                            struct basalt_error *err);

#endif
