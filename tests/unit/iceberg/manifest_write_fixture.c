#include "manifest_write_fixture.h"

#include <math.h>
#include <string.h>

const char mw_table_json[] =
    "{\"format-version\":3,\"table-uuid\":\"5f1b2a3c-0d4e-4f60-8a7b-9c0d1e2f3a4b\","
    "\"location\":\"s3://b/t\",\"last-sequence-number\":6,\"last-updated-ms\":1,"
    "\"last-column-id\":16,\"next-row-id\":1000,\"current-schema-id\":0,"
    "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"ts\",\"required\":false,\"type\":\"timestamp\"},"
    "{\"id\":4,\"name\":\"d\",\"required\":false,\"type\":\"date\"},"
    "{\"id\":5,\"name\":\"price\",\"required\":false,\"type\":\"decimal(9, 2)\"},"
    "{\"id\":6,\"name\":\"ratio\",\"required\":false,\"type\":\"double\"},"
    "{\"id\":7,\"name\":\"u\",\"required\":false,\"type\":\"uuid\"},"
    "{\"id\":8,\"name\":\"f\",\"required\":false,\"type\":\"fixed[4]\"},"
    "{\"id\":9,\"name\":\"flag\",\"required\":false,\"type\":\"boolean\"},"
    "{\"id\":10,\"name\":\"tstz\",\"required\":false,\"type\":\"timestamptz\"},"
    "{\"id\":11,\"name\":\"bin\",\"required\":false,\"type\":\"binary\"},"
    "{\"id\":12,\"name\":\"t\",\"required\":false,\"type\":\"time\"},"
    "{\"id\":13,\"name\":\"amount\",\"required\":false,\"type\":\"decimal(20, 4)\"},"
    "{\"id\":14,\"name\":\"tsns\",\"required\":false,\"type\":\"timestamp_ns\"},"
    "{\"id\":15,\"name\":\"score\",\"required\":false,\"type\":\"float\"},"
    "{\"id\":16,\"name\":\"n\",\"required\":false,\"type\":\"int\"}]}],"
    "\"default-spec-id\":1,\"last-partition-id\":1021,\"partition-specs\":["
    "{\"spec-id\":0,\"fields\":[]},"
    "{\"spec-id\":1,\"fields\":["
    "{\"name\":\"name\",\"transform\":\"identity\",\"source-id\":2,\"field-id\":1000},"
    "{\"name\":\"id_bucket\",\"transform\":\"bucket[16]\",\"source-id\":1,\"field-id\":1001},"
    "{\"name\":\"ts_month\",\"transform\":\"month\",\"source-id\":3,\"field-id\":1002},"
    "{\"name\":\"d_day\",\"transform\":\"day\",\"source-id\":4,\"field-id\":1003},"
    "{\"name\":\"name_trunc\",\"transform\":\"truncate[3]\",\"source-id\":2,\"field-id\":1004},"
    "{\"name\":\"price\",\"transform\":\"identity\",\"source-id\":5,\"field-id\":1005},"
    "{\"name\":\"ratio\",\"transform\":\"identity\",\"source-id\":6,\"field-id\":1006}]},"
    "{\"spec-id\":2,\"fields\":["
    "{\"name\":\"u\",\"transform\":\"identity\",\"source-id\":7,\"field-id\":1007},"
    "{\"name\":\"f\",\"transform\":\"identity\",\"source-id\":8,\"field-id\":1008},"
    "{\"name\":\"flag\",\"transform\":\"identity\",\"source-id\":9,\"field-id\":1009},"
    "{\"name\":\"tstz\",\"transform\":\"identity\",\"source-id\":10,\"field-id\":1010},"
    "{\"name\":\"bin\",\"transform\":\"identity\",\"source-id\":11,\"field-id\":1011},"
    "{\"name\":\"t\",\"transform\":\"identity\",\"source-id\":12,\"field-id\":1012},"
    "{\"name\":\"amount\",\"transform\":\"identity\",\"source-id\":13,\"field-id\":1013},"
    "{\"name\":\"tsns\",\"transform\":\"identity\",\"source-id\":14,\"field-id\":1014},"
    "{\"name\":\"score\",\"transform\":\"identity\",\"source-id\":15,\"field-id\":1015},"
    "{\"name\":\"9 lives\",\"transform\":\"identity\",\"source-id\":16,\"field-id\":1016},"
    "{\"name\":\"price_t\",\"transform\":\"truncate[100]\",\"source-id\":5,\"field-id\":1017},"
    "{\"name\":\"price_i\",\"transform\":\"identity\",\"source-id\":5,\"field-id\":1018},"
    "{\"name\":\"ts_hour\",\"transform\":\"hour\",\"source-id\":3,\"field-id\":1019},"
    "{\"name\":\"d_year\",\"transform\":\"year\",\"source-id\":4,\"field-id\":1020},"
    "{\"name\":\"id\",\"transform\":\"identity\",\"source-id\":1,\"field-id\":1021}]}],"
    "\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,\"fields\":[]}]}";

basalt_status mw_fixture_load(struct mw_fixture *fx, struct basalt_error *err)
{
    memset(fx, 0, sizeof *fx);
    basalt_status st = basalt_iceberg_metadata_parse(mw_table_json, strlen(mw_table_json),
                                                     "fixture", &fx->meta, err);
    if (st != BASALT_OK)
        return st;
    fx->schema = basalt_iceberg_metadata_current_schema(fx->meta);
    fx->unpartitioned = basalt_iceberg_metadata_spec(fx->meta, 0);
    fx->transforms = basalt_iceberg_metadata_spec(fx->meta, 1);
    fx->types = basalt_iceberg_metadata_spec(fx->meta, 2);
    if (!fx->schema || !fx->unpartitioned || !fx->transforms || !fx->types ||
        fx->types->n_fields != MW_N_TYPES) {
        mw_fixture_free(fx);
        return basalt_error_set(err, BASALT_INTERNAL, "fixture: specs missing");
    }
    return BASALT_OK;
}

void mw_fixture_free(struct mw_fixture *fx)
{
    basalt_iceberg_metadata_free(fx->meta);
    memset(fx, 0, sizeof *fx);
}

/* ---------------------------------------------------------------- values */

struct basalt_iceberg_value mw_null(enum basalt_iceberg_type_id type)
{
    struct basalt_iceberg_value v;
    memset(&v, 0, sizeof v);
    v.type = type;
    v.is_null = true;
    return v;
}

struct basalt_iceberg_value mw_i32(enum basalt_iceberg_type_id type, int32_t x)
{
    struct basalt_iceberg_value v = mw_null(type);
    v.is_null = false;
    v.u.i32 = x;
    return v;
}

struct basalt_iceberg_value mw_i64(enum basalt_iceberg_type_id type, int64_t x)
{
    struct basalt_iceberg_value v = mw_null(type);
    v.is_null = false;
    v.u.i64 = x;
    return v;
}

struct basalt_iceberg_value mw_bytes(enum basalt_iceberg_type_id type, const void *p, size_t n)
{
    struct basalt_iceberg_value v = mw_null(type);
    v.is_null = false;
    v.u.bytes.data = p;
    v.u.bytes.len = n;
    return v;
}

struct basalt_iceberg_value mw_str(const char *s)
{
    return mw_bytes(BASALT_ICEBERG_TYPE_STRING, s, strlen(s));
}

struct basalt_iceberg_value mw_dec(int64_t hi, uint64_t lo, int32_t scale)
{
    struct basalt_iceberg_value v = mw_null(BASALT_ICEBERG_TYPE_DECIMAL);
    v.is_null = false;
    v.scale = scale;
    v.u.dec.hi = hi;
    v.u.dec.lo = lo;
    return v;
}

struct basalt_iceberg_value mw_double(double x)
{
    struct basalt_iceberg_value v = mw_null(BASALT_ICEBERG_TYPE_DOUBLE);
    v.is_null = false;
    v.u.f64 = x;
    return v;
}

struct basalt_iceberg_value mw_float(float x)
{
    struct basalt_iceberg_value v = mw_null(BASALT_ICEBERG_TYPE_FLOAT);
    v.is_null = false;
    v.u.f32 = x;
    return v;
}

struct basalt_iceberg_value mw_bool(bool x)
{
    struct basalt_iceberg_value v = mw_null(BASALT_ICEBERG_TYPE_BOOLEAN);
    v.is_null = false;
    v.u.b = x;
    return v;
}

/* Short type names for the value tables below. */
#define S BASALT_ICEBERG_TYPE_STRING
#define I BASALT_ICEBERG_TYPE_INT
#define D BASALT_ICEBERG_TYPE_DATE
#define U BASALT_ICEBERG_TYPE_UUID
#define F BASALT_ICEBERG_TYPE_FIXED
#define TZ BASALT_ICEBERG_TYPE_TIMESTAMPTZ
#define BIN BASALT_ICEBERG_TYPE_BINARY
#define T BASALT_ICEBERG_TYPE_TIME
#define NS BASALT_ICEBERG_TYPE_TIMESTAMP_NS
#define L BASALT_ICEBERG_TYPE_LONG
#define DEC(x) mw_dec((x) < 0 ? -1 : 0, (uint64_t)(int64_t)(x), 2)

/* ---------------------------------------------------------------- entries */

static struct basalt_iceberg_metric_long col_sizes[] = {{1, 400}, {2, 300}};
static struct basalt_iceberg_metric_long val_counts[] = {{1, 100}, {2, 100}};
static struct basalt_iceberg_metric_long null_counts[] = {{1, 0}, {2, 3}};
static struct basalt_iceberg_metric_long nan_counts[] = {{6, 1}};
static const uint8_t lo_id[8] = {7, 0, 0, 0, 0, 0, 0, 0};
static const uint8_t hi_id[8] = {0x84, 3, 0, 0, 0, 0, 0, 0};
static struct basalt_iceberg_metric_bytes lower[] = {{1, lo_id, 8}, {2, (const uint8_t *)"aa", 2}};
static struct basalt_iceberg_metric_bytes upper[] = {{1, hi_id, 8}, {2, (const uint8_t *)"zz", 2}};
static const uint8_t key_meta[2] = {0xde, 0xad};
static int64_t splits[2] = {4, 2048};

static struct basalt_iceberg_value transform_tuples[MW_N_ENTRIES][7];

void mw_transform_entries(int32_t version, struct basalt_iceberg_manifest_entry out[MW_N_ENTRIES])
{
    memset(out, 0, sizeof *out * MW_N_ENTRIES);
    struct basalt_iceberg_value(*tp)[7] = transform_tuples;
    struct basalt_iceberg_value rows[MW_N_ENTRIES][7] = {
        {mw_str("alpha"), mw_i32(I, 5), mw_i32(I, 650), mw_i32(D, 19800), mw_str("alp"), DEC(1234),
         mw_double(1.5)},
        {mw_null(S), mw_i32(I, 15), mw_i32(I, 640), mw_i32(D, 19000), mw_null(S), DEC(-5),
         mw_double(NAN)},
        {mw_str("beta"), mw_i32(I, 0), mw_i32(I, 660), mw_i32(D, 19900), mw_str("bet"), DEC(99999),
         mw_double(2.5)},
    };
    memcpy(tp, rows, sizeof rows);
    static const char *const paths[MW_N_ENTRIES] = {"s3://b/t/data/a.parquet",
                                                    "s3://b/t/data/b.avro", "s3://b/t/data/c.orc"};
    static const enum basalt_iceberg_file_format formats[MW_N_ENTRIES] = {
        BASALT_ICEBERG_FORMAT_PARQUET, BASALT_ICEBERG_FORMAT_AVRO, BASALT_ICEBERG_FORMAT_ORC};
    static const int64_t records[MW_N_ENTRIES] = {100, 50, 7},
                         sizes[MW_N_ENTRIES] = {4096, 1000, 77};
    for (int i = 0; i < MW_N_ENTRIES; i++) {
        struct basalt_iceberg_data_file *df = &out[i].data_file;
        df->content = BASALT_ICEBERG_CONTENT_DATA;
        df->file_path = paths[i];
        df->file_format = formats[i];
        df->partition = tp[i];
        df->n_partition = 7;
        df->record_count = records[i];
        df->file_size_in_bytes = sizes[i];
    }
    out[0].status = BASALT_ICEBERG_ENTRY_ADDED;
    out[0].snapshot_id = 12345;  /* replaced: an ADDED file belongs to the writing snapshot */
    out[0].sequence_number = 77; /* ignored: ADDED entries inherit */
    struct basalt_iceberg_data_file *a = &out[0].data_file;
    a->column_sizes = col_sizes;
    a->n_column_sizes = 2;
    a->value_counts = val_counts;
    a->n_value_counts = 2;
    a->null_value_counts = null_counts;
    a->n_null_value_counts = 2;
    a->nan_value_counts = nan_counts;
    a->n_nan_value_counts = 1;
    a->lower_bounds = lower;
    a->n_lower_bounds = 2;
    a->upper_bounds = upper;
    a->n_upper_bounds = 2;
    a->key_metadata = key_meta;
    a->key_metadata_len = 2;
    a->split_offsets = splits;
    a->n_split_offsets = 2;
    a->has_sort_order_id = true;
    a->sort_order_id = 1;

    out[1].status = BASALT_ICEBERG_ENTRY_EXISTING;
    out[1].snapshot_id = 111;
    out[1].sequence_number = 3;
    out[1].file_sequence_number = 4;
    if (version >= 3) {
        out[1].data_file.has_first_row_id = true;
        out[1].data_file.first_row_id = 500;
    }
    out[2].status = BASALT_ICEBERG_ENTRY_DELETED;
    out[2].snapshot_id = 222;
    out[2].sequence_number = 2;
    out[2].file_sequence_number = 2;
}

static int32_t eq_ids[2] = {1, 2};
static int64_t delete_splits[1] = {4};

uint32_t mw_delete_entries(int32_t version, struct basalt_iceberg_manifest_entry out[4])
{
    memset(out, 0, sizeof *out * 4);
    uint32_t n = 0;
    struct basalt_iceberg_data_file *df = &out[n].data_file;
    out[n++].status = BASALT_ICEBERG_ENTRY_ADDED;
    df->content = BASALT_ICEBERG_CONTENT_POSITION_DELETES;
    df->file_path = "s3://b/t/data/pos-deletes.parquet";
    df->file_format = BASALT_ICEBERG_FORMAT_PARQUET;
    df->referenced_data_file = "s3://b/t/data/a.parquet";
    df->record_count = 3;
    df->file_size_in_bytes = 300;
    df->split_offsets = delete_splits;
    df->n_split_offsets = 1;

    df = &out[n].data_file;
    out[n++].status = BASALT_ICEBERG_ENTRY_ADDED;
    df->content = BASALT_ICEBERG_CONTENT_EQUALITY_DELETES;
    df->file_path = "s3://b/t/data/eq-deletes.parquet";
    df->file_format = BASALT_ICEBERG_FORMAT_PARQUET;
    df->equality_ids = eq_ids;
    df->n_equality_ids = 2;
    df->record_count = 2;
    df->file_size_in_bytes = 200;
    df->has_sort_order_id = true;
    df->sort_order_id = 0;

    if (version >= 3) {
        df = &out[n].data_file;
        out[n++].status = BASALT_ICEBERG_ENTRY_ADDED;
        df->content = BASALT_ICEBERG_CONTENT_POSITION_DELETES;
        df->file_path = "s3://b/t/data/dv.puffin";
        df->file_format = BASALT_ICEBERG_FORMAT_PUFFIN;
        df->referenced_data_file = "s3://b/t/data/a.parquet";
        df->has_content_offset = true;
        df->content_offset = 4;
        df->content_size_in_bytes = 40;
        df->record_count = 3;
        df->file_size_in_bytes = 120;
    }

    df = &out[n].data_file;
    out[n].status = BASALT_ICEBERG_ENTRY_EXISTING;
    out[n].snapshot_id = 333;
    out[n].sequence_number = 5;
    out[n++].file_sequence_number = 6;
    df->content = BASALT_ICEBERG_CONTENT_POSITION_DELETES;
    df->file_path = "s3://b/t/data/old-deletes.parquet";
    df->file_format = BASALT_ICEBERG_FORMAT_PARQUET;
    df->record_count = 1;
    df->file_size_in_bytes = 100;
    return n;
}

static const uint8_t uuid0[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
static const uint8_t uuid1[16] = {0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8,
                                  0xf7, 0xf6, 0xf5, 0xf4, 0xf3, 0xf2, 0xf1, 0xf0};
static const uint8_t bin0[2] = {0x00, 0xff};

void mw_types_entry(int row, struct basalt_iceberg_value tuple[MW_N_TYPES],
                    struct basalt_iceberg_manifest_entry *out)
{
    if (row == 0) {
        struct basalt_iceberg_value v[MW_N_TYPES] = {mw_bytes(U, uuid0, 16),
                                                     mw_bytes(F, "abcd", 4),
                                                     mw_bool(true),
                                                     mw_i64(TZ, 1700000000000000),
                                                     mw_bytes(BIN, bin0, 2),
                                                     mw_i64(T, 3600000000),
                                                     mw_dec(0, 123456789012345678u, 4),
                                                     mw_i64(NS, 1700000000123456789),
                                                     mw_float(0.5f),
                                                     mw_i32(I, 9),
                                                     DEC(1200),
                                                     DEC(1234),
                                                     mw_i32(I, 472222),
                                                     mw_i32(I, 54),
                                                     mw_i64(L, (int64_t)1 << 40)};
        memcpy(tuple, v, sizeof v);
    } else if (row == 1) {
        /* -10^19: 20 digits, beyond 64 bits */
        struct basalt_iceberg_value v[MW_N_TYPES] = {mw_bytes(U, uuid1, 16),
                                                     mw_bytes(F, "wxyz", 4),
                                                     mw_bool(false),
                                                     mw_i64(TZ, -1),
                                                     mw_bytes(BIN, "", 0),
                                                     mw_i64(T, 0),
                                                     mw_dec(-1, 8446744073709551616u, 4),
                                                     mw_i64(NS, -5),
                                                     mw_float(-2.25f),
                                                     mw_i32(I, -1),
                                                     DEC(-100),
                                                     DEC(-1),
                                                     mw_i32(I, 0),
                                                     mw_i32(I, -1),
                                                     mw_i64(L, -7)};
        memcpy(tuple, v, sizeof v);
    } else {
        static const enum basalt_iceberg_type_id types[MW_N_TYPES] = {U,
                                                                      F,
                                                                      BASALT_ICEBERG_TYPE_BOOLEAN,
                                                                      TZ,
                                                                      BIN,
                                                                      T,
                                                                      BASALT_ICEBERG_TYPE_DECIMAL,
                                                                      NS,
                                                                      BASALT_ICEBERG_TYPE_FLOAT,
                                                                      I,
                                                                      BASALT_ICEBERG_TYPE_DECIMAL,
                                                                      BASALT_ICEBERG_TYPE_DECIMAL,
                                                                      I,
                                                                      I,
                                                                      L};
        for (int i = 0; i < MW_N_TYPES; i++)
            tuple[i] = mw_null(types[i]);
    }
    static const char *const paths[3] = {"s3://b/t/data/types-0.parquet",
                                         "s3://b/t/data/types-1.parquet",
                                         "s3://b/t/data/types-2.parquet"};
    memset(out, 0, sizeof *out);
    out->status = BASALT_ICEBERG_ENTRY_ADDED;
    out->data_file.content = BASALT_ICEBERG_CONTENT_DATA;
    out->data_file.file_path = paths[row];
    out->data_file.file_format = BASALT_ICEBERG_FORMAT_PARQUET;
    out->data_file.partition = tuple;
    out->data_file.n_partition = MW_N_TYPES;
    out->data_file.record_count = 10 + row;
    out->data_file.file_size_in_bytes = 1000 + row;
}

/* ---------------------------------------------------------------- output */

static basalt_status finish(struct basalt_output *out, basalt_status st, uint8_t **data,
                            size_t *len, uint64_t *written, struct basalt_error *err)
{
    *written = out->written;
    if (st == BASALT_OK)
        st = basalt_output_commit(out, err);
    if (st == BASALT_OK)
        *data = basalt_output_memory_take(out, len);
    basalt_output_close(out);
    if (st == BASALT_OK && !*data)
        st = basalt_error_set(err, BASALT_NOMEM, "memory_take");
    return st;
}

basalt_status mw_write_manifest(const struct basalt_iceberg_manifest_write_options *o,
                                const struct basalt_iceberg_manifest_entry *entries, uint32_t n,
                                struct basalt_arena *arena,
                                struct basalt_iceberg_manifest_file *summary, uint8_t **data,
                                size_t *len, uint64_t *written, struct basalt_error *err)
{
    *data = NULL;
    *len = 0;
    *written = 0;
    struct basalt_output *out = NULL;
    basalt_status st = basalt_output_open_memory("m.avro", &out, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_iceberg_manifest_write(o, entries, n, out, arena, summary, err);
    return finish(out, st, data, len, written, err);
}

basalt_status mw_write_list(const struct basalt_iceberg_manifest_list_write_options *o,
                            const struct basalt_iceberg_manifest_file *files, uint32_t n,
                            int64_t *next_row_id, uint8_t **data, size_t *len, uint64_t *written,
                            struct basalt_error *err)
{
    *data = NULL;
    *len = 0;
    *written = 0;
    struct basalt_output *out = NULL;
    basalt_status st = basalt_output_open_memory("snap.avro", &out, err);
    if (st != BASALT_OK)
        return st;
    st = basalt_iceberg_manifest_list_write(o, files, n, out, next_row_id, err);
    return finish(out, st, data, len, written, err);
}
