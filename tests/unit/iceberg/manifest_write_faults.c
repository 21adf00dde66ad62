/* The manifest writers' failure paths: input the header calls INVALID_ARG
 * (refused before a byte is written, the message naming the file), failed
 * allocations and failed writes at every point (only NOMEM / IO with
 * nothing leaked, or success). */
#include <stdlib.h>

#include "manifest_write_fixture.h"
#include "test.h"

enum change {
    SHORT_TUPLE,
    WRONG_TYPE,
    DELETE_IN_DATA,
    DATA_IN_DELETES,
    V1_DELETES,
    EXISTING_NO_SEQ,
    DECIMAL_SCALE,
    DECIMAL_DIGITS,
    NULL_PATH,
    BAD_STATUS,
    BAD_VERSION,
    FIXED_LENGTH,
    NULL_METRICS,
    UNKNOWN_TRANSFORM,
    MISSING_SOURCE,
    N_CHANGES
};

static const struct {
    basalt_status status;
    const char *message; /* a part of the error message */
} expect[N_CHANGES] = {
    [SHORT_TUPLE] =
        {BASALT_INVALID_ARG,
         "entry 1 ('s3://b/t/data/b.avro'): the partition tuple has 6 values, the spec 7 fields"},
    [WRONG_TYPE] = {BASALT_INVALID_ARG,
                    "partition field 'id_bucket': a string value where the spec gives int"},
    [DELETE_IN_DATA] = {BASALT_INVALID_ARG,
                        "'s3://b/t/data/c.orc'): a delete file in a data manifest"},
    [DATA_IN_DELETES] = {BASALT_INVALID_ARG, "a data file in a delete manifest"},
    [V1_DELETES] = {BASALT_INVALID_ARG, "format v1 has no delete manifests"},
    [EXISTING_NO_SEQ] = {BASALT_INVALID_ARG, "EXISTING entries need their sequence numbers"},
    [DECIMAL_SCALE] = {BASALT_INVALID_ARG, "partition field 'price': decimal of scale 3"},
    [DECIMAL_DIGITS] = {BASALT_INVALID_ARG, "10 digits does not fit decimal(9,2)"},
    [NULL_PATH] = {BASALT_INVALID_ARG, "entry 0 ('NULL path'): file_path is NULL"},
    [BAD_STATUS] = {BASALT_INVALID_ARG, "status 7 is not an entry status"},
    [BAD_VERSION] = {BASALT_INVALID_ARG, "format version 4"},
    [FIXED_LENGTH] = {BASALT_INVALID_ARG, "partition field 'f': 3 bytes where 4 are needed"},
    [NULL_METRICS] = {BASALT_INVALID_ARG, "a metrics map is NULL"},
    [UNKNOWN_TRANSFORM] = {BASALT_UNSUPPORTED, "partition field 'id_bucket'"},
    [MISSING_SOURCE] = {BASALT_INVALID_ARG,
                        "partition field 'ts_month': source field 99 is not in the schema"},
};

static basalt_status write_changed(const struct mw_fixture *fx, enum change c,
                                   struct basalt_arena *arena, uint64_t *written,
                                   struct basalt_error *err)
{
    int32_t version = c == V1_DELETES ? 1 : 2;
    struct basalt_iceberg_manifest_entry e[MW_N_ENTRIES];
    struct basalt_iceberg_value tuple[MW_N_ENTRIES][7], types[MW_N_TYPES];
    mw_transform_entries(version, e);
    for (int i = 0; i < MW_N_ENTRIES; i++) { /* private copies to change */
        memcpy(tuple[i], e[i].data_file.partition, sizeof tuple[i]);
        e[i].data_file.partition = tuple[i];
    }
    struct basalt_iceberg_partition_field fields[7];
    struct basalt_iceberg_partition_spec spec = *fx->transforms;
    memcpy(fields, spec.fields, sizeof fields);
    spec.fields = fields;
    struct basalt_iceberg_manifest_write_options o = {version, fx->schema, &spec,
                                                      BASALT_ICEBERG_MANIFEST_DATA, 9, false};
    uint32_t n = MW_N_ENTRIES;
    switch (c) {
    case SHORT_TUPLE:
        e[1].data_file.n_partition = 6;
        break;
    case WRONG_TYPE:
        tuple[0][1] = mw_str("five");
        break;
    case DELETE_IN_DATA:
        e[2].data_file.content = BASALT_ICEBERG_CONTENT_POSITION_DELETES;
        break;
    case DATA_IN_DELETES:
    case V1_DELETES:
        o.content = BASALT_ICEBERG_MANIFEST_DELETES;
        break;
    case EXISTING_NO_SEQ:
        e[1].sequence_number = -1;
        break;
    case DECIMAL_SCALE:
        tuple[2][5].scale = 3;
        break;
    case DECIMAL_DIGITS:
        tuple[0][5] = mw_dec(0, 1000000000, 2);
        break;
    case NULL_PATH:
        e[0].data_file.file_path = NULL;
        break;
    case BAD_STATUS:
        e[2].status = (enum basalt_iceberg_entry_status)7;
        break;
    case BAD_VERSION:
        o.format_version = 4;
        break;
    case FIXED_LENGTH:
        mw_types_entry(0, types, &e[0]);
        types[1] = mw_bytes(BASALT_ICEBERG_TYPE_FIXED, "abc", 3);
        o.spec = fx->types;
        n = 1;
        break;
    case NULL_METRICS:
        e[0].data_file.n_nan_value_counts = 3;
        e[0].data_file.nan_value_counts = NULL;
        break;
    case UNKNOWN_TRANSFORM:
        fields[1].transform.kind = BASALT_ICEBERG_TRANSFORM_UNKNOWN;
        fields[1].transform.text = "zorder";
        break;
    case MISSING_SOURCE:
        fields[2].source_id = 99;
        break;
    default:
        break;
    }
    struct basalt_iceberg_manifest_file summary;
    uint8_t *data = NULL;
    size_t len;
    basalt_status st = mw_write_manifest(&o, e, n, arena, &summary, &data, &len, written, err);
    basalt_free(data);
    return st;
}

TEST(manifest_write_refuses_bad_input)
{
    struct mw_fixture fx;
    struct basalt_error err;
    CHECK_OK(mw_fixture_load(&fx, &err), &err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 1024);
    int bad = -1;
    basalt_status got = BASALT_OK;
    uint64_t written = 0;
    for (int c = 0; c < N_CHANGES && bad < 0; c++) {
        basalt_error_init(&err);
        got = write_changed(&fx, (enum change)c, &arena, &written, &err);
        if (got != expect[c].status || !strstr(err.message, expect[c].message) ||
            !strstr(err.message, "manifest_write") || written != 0)
            bad = c;
    }
    basalt_arena_reset(&arena);
    mw_fixture_free(&fx);
    CHECK_MSG(bad < 0, "case %d: %s, %llu bytes written: %s", bad, basalt_status_name(got),
              (unsigned long long)written, err.message);
}

TEST(manifest_list_write_refuses_bad_input)
{
    struct mw_fixture fx;
    struct basalt_error err;
    CHECK_OK(mw_fixture_load(&fx, &err), &err);
    struct basalt_iceberg_manifest_file f;
    memset(&f, 0, sizeof f);
    f.manifest_path = "s3://b/t/metadata/d.avro";
    f.content = BASALT_ICEBERG_MANIFEST_DELETES;
    f.sequence_number = f.min_sequence_number = -1;
    f.added_files_count = 1;
    f.added_rows_count = 3;
    struct basalt_iceberg_manifest_list_write_options lo = {1, 5, false, 0, 0, 0};
    uint8_t *data = NULL;
    size_t len;
    uint64_t written = 0;
    const char *stage = "v1 with a delete manifest";
    basalt_status st = mw_write_list(&lo, &f, 1, NULL, &data, &len, &written, &err);
    bool ok = st == BASALT_INVALID_ARG && written == 0 &&
              strstr(err.message,
                     "manifest 0 ('s3://b/t/metadata/d.avro'): format v1 has no delete manifests");
    if (ok) {
        stage = "v2 with an unknown count";
        lo.format_version = 2;
        f.deleted_rows_count = -1;
        st = mw_write_list(&lo, &f, 1, NULL, &data, &len, &written, &err);
        ok = st == BASALT_INVALID_ARG && written == 0 &&
             strstr(err.message, "counts are required from format v2 on");
    }
    if (ok) {
        stage = "a NULL path";
        f.deleted_rows_count = 0;
        f.manifest_path = NULL;
        st = mw_write_list(&lo, &f, 1, NULL, &data, &len, &written, &err);
        ok = st == BASALT_INVALID_ARG && written == 0 &&
             strstr(err.message, "manifest_path is NULL");
    }
    if (ok) {
        stage = "v3 with a negative first row id";
        f.manifest_path = "d.avro";
        lo.format_version = 3;
        lo.first_row_id = -2;
        st = mw_write_list(&lo, &f, 1, NULL, &data, &len, &written, &err);
        ok = st == BASALT_INVALID_ARG && written == 0;
    }
    basalt_free(data);
    mw_fixture_free(&fx);
    CHECK_MSG(ok, "%s: %s: %s", stage, basalt_status_name(st), err.message);
}

/* ------------------------------------------------------- fault injection */

struct attempt {
    struct mw_fixture *fx;
    struct basalt_output *out; /* NULL: memory outputs */
};

/* Every version: the transforms manifest, the delete manifest, their list. */
static basalt_status write_all(struct attempt *a, struct basalt_arena *arena)
{
    struct basalt_error err;
    basalt_status st = BASALT_OK;
    for (int32_t v = 1; v <= 3 && st == BASALT_OK; v++) {
        struct basalt_iceberg_manifest_entry e[MW_N_ENTRIES], d[4];
        mw_transform_entries(v, e);
        uint32_t n_del = mw_delete_entries(v, d);
        struct basalt_iceberg_manifest_write_options o = {v, a->fx->schema, a->fx->transforms,
                                                          BASALT_ICEBERG_MANIFEST_DATA, 9, false};
        struct basalt_iceberg_manifest_file files[2];
        uint32_t n_files = v >= 2 ? 2 : 1;
        for (uint32_t i = 0; i < n_files && st == BASALT_OK; i++) {
            if (i == 1) {
                o.spec = a->fx->unpartitioned;
                o.content = BASALT_ICEBERG_MANIFEST_DELETES;
            }
            if (a->out) {
                st = basalt_iceberg_manifest_write(&o, i ? d : e, i ? n_del : MW_N_ENTRIES, a->out,
                                                   arena, &files[i], &err);
            } else {
                uint8_t *data = NULL;
                size_t len;
                uint64_t written;
                st = mw_write_manifest(&o, i ? d : e, i ? n_del : MW_N_ENTRIES, arena, &files[i],
                                       &data, &len, &written, &err);
                basalt_free(data);
            }
            files[i].manifest_path = "m.avro";
        }
        struct basalt_iceberg_manifest_list_write_options lo = {v, 9, true, 8, 3, 100};
        if (st == BASALT_OK && a->out) {
            st = basalt_iceberg_manifest_list_write(&lo, files, n_files, a->out, NULL, &err);
        } else if (st == BASALT_OK) {
            uint8_t *data = NULL;
            size_t len;
            uint64_t written;
            st = mw_write_list(&lo, files, n_files, NULL, &data, &len, &written, &err);
            basalt_free(data);
        }
        if (st != BASALT_OK && st != err.status)
            return basalt_error_set(&err, BASALT_INTERNAL, "status and report disagree");
    }
    return st;
}

static basalt_status alloc_attempt(void *ctx)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 512);
    basalt_status st = write_all(ctx, &arena);
    basalt_arena_reset(&arena);
    return st;
}

TEST(manifest_write_alloc_failures)
{
    struct mw_fixture fx;
    struct basalt_error err;
    CHECK_OK(mw_fixture_load(&fx, &err), &err);
    struct attempt a = {&fx, NULL};
    int64_t n = bt_alloc_failure_sweep(__FILE__, __LINE__, alloc_attempt, &a);
    mw_fixture_free(&fx);
    CHECK(n > 20); /* the sweep went through the writers' allocations */
}

/* An output whose n-th write fails. */
struct failing_output {
    struct basalt_output base;
    int64_t writes_left;
};

static basalt_status failing_write(struct basalt_output *out, const void *data, size_t len,
                                   struct basalt_error *err)
{
    struct failing_output *f = (struct failing_output *)out;
    (void)data;
    (void)len;
    if (f->writes_left-- == 0)
        return basalt_error_set(err, BASALT_IO, "no space left on the device");
    return BASALT_OK;
}

static basalt_status no_commit(struct basalt_output *out, struct basalt_error *err)
{
    (void)out;
    (void)err;
    return BASALT_OK;
}

static void no_close(struct basalt_output *out) { (void)out; }

static const struct basalt_output_ops failing_ops = {failing_write, no_commit, no_close};

TEST(manifest_write_io_failures)
{
    struct mw_fixture fx;
    struct basalt_error err;
    CHECK_OK(mw_fixture_load(&fx, &err), &err);
    struct failing_output out;
    struct attempt a = {&fx, &out.base};
    basalt_status st = BASALT_IO;
    int64_t n = 0, leaked = 0;
    for (; n < 10000 && st == BASALT_IO && leaked == 0; n++) {
        memset(&out, 0, sizeof out);
        out.base.ops = &failing_ops;
        out.base.name = "failing";
        out.writes_left = n;
        int64_t live = basalt_alloc_live();
        struct basalt_arena arena;
        basalt_arena_init(&arena, 512);
        st = write_all(&a, &arena);
        basalt_arena_reset(&arena);
        leaked = basalt_alloc_live() - live;
    }
    mw_fixture_free(&fx);
    CHECK_MSG(st == BASALT_OK && leaked == 0, "write %lld failing: %s, %lld allocations leaked",
              (long long)n - 1, basalt_status_name(st), (long long)leaked);
    CHECK(n > 10); /* every file has a header, blocks and sync markers to fail */
}
