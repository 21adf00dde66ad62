/* Delete association on hand-built files, rule by rule from the spec's
 * "Scan Planning" section: position deletes apply to data with a data
 * sequence number <= theirs, in the same spec and partition or from an
 * unpartitioned spec, and only to referenced_data_file when set; equality
 * deletes to data with a strictly lower sequence number; deletion vectors to
 * their referenced file, superseding position delete files. */
#include <string.h>

#include "scan_internal.h"
#include "test.h"

static struct basalt_iceberg_value sval(const char *s)
{
    struct basalt_iceberg_value v;
    memset(&v, 0, sizeof v);
    v.type = BASALT_ICEBERG_TYPE_STRING;
    v.u.bytes.data = (const uint8_t *)s;
    v.u.bytes.len = strlen(s);
    return v;
}

static struct basalt_iceberg_data_file file(enum basalt_iceberg_file_content content, const char *path,
                                            struct basalt_iceberg_value *partition, uint32_t n)
{
    struct basalt_iceberg_data_file f;
    memset(&f, 0, sizeof f);
    f.content = content;
    f.file_path = path;
    f.file_format = BASALT_ICEBERG_FORMAT_PARQUET;
    f.partition = partition;
    f.n_partition = n;
    return f;
}

static struct basalt_iceberg_partition_field identity_field;
static struct basalt_iceberg_partition_spec partitioned = {0, &identity_field, 1};
static struct basalt_iceberg_partition_spec unpartitioned = {1, NULL, 0};

static void init_specs(void)
{
    identity_field.source_id = 15;
    identity_field.field_id = 1000;
    identity_field.name = "mode";
    identity_field.transform.kind = BASALT_ICEBERG_TRANSFORM_IDENTITY;
}

TEST(scan_position_delete_rules)
{
    init_specs();
    struct basalt_iceberg_value air = sval("AIR"), fob = sval("FOB"), air2 = sval("AIR");
    struct basalt_iceberg_data_file data = file(BASALT_ICEBERG_CONTENT_DATA, "s3://b/d1.parquet", &air, 1);
    struct basalt_iceberg_data_file pos = file(BASALT_ICEBERG_CONTENT_POSITION_DELETES, "s3://b/p.parquet", &air2, 1);
    /* sequence numbers: data 5; delete 5 applies (<=), 4 does not */
    CHECK(basalt_iceberg_delete_applies(&data, 0, 5, &pos, &partitioned, 5));
    CHECK(basalt_iceberg_delete_applies(&data, 0, 5, &pos, &partitioned, 6));
    CHECK(!basalt_iceberg_delete_applies(&data, 0, 5, &pos, &partitioned, 4));
    /* another partition value, another spec */
    pos.partition = &fob;
    CHECK(!basalt_iceberg_delete_applies(&data, 0, 5, &pos, &partitioned, 6));
    pos.partition = &air2;
    CHECK(!basalt_iceberg_delete_applies(&data, 3, 5, &pos, &partitioned, 6));
    /* an unpartitioned delete applies globally */
    pos.partition = NULL;
    pos.n_partition = 0;
    CHECK(basalt_iceberg_delete_applies(&data, 0, 5, &pos, &unpartitioned, 6));
    /* referenced_data_file narrows it to one file */
    pos.referenced_data_file = "s3://b/d2.parquet";
    CHECK(!basalt_iceberg_delete_applies(&data, 0, 5, &pos, &unpartitioned, 6));
    pos.referenced_data_file = "s3://b/d1.parquet";
    CHECK(basalt_iceberg_delete_applies(&data, 0, 5, &pos, &unpartitioned, 6));
    /* null partition values equal each other */
    struct basalt_iceberg_value n1, n2;
    memset(&n1, 0, sizeof n1);
    n1.type = BASALT_ICEBERG_TYPE_STRING;
    n1.is_null = true;
    n2 = n1;
    data.partition = &n1;
    pos.partition = &n2;
    pos.n_partition = 1;
    pos.referenced_data_file = NULL;
    CHECK(basalt_iceberg_delete_applies(&data, 0, 5, &pos, &partitioned, 5));
    pos.partition = &air2;
    CHECK(!basalt_iceberg_delete_applies(&data, 0, 5, &pos, &partitioned, 5));
}

TEST(scan_equality_delete_rules)
{
    init_specs();
    struct basalt_iceberg_value air = sval("AIR"), air2 = sval("AIR"), fob = sval("FOB");
    struct basalt_iceberg_data_file data = file(BASALT_ICEBERG_CONTENT_DATA, "d.parquet", &air, 1);
    struct basalt_iceberg_data_file eq = file(BASALT_ICEBERG_CONTENT_EQUALITY_DELETES, "e.parquet", &air2, 1);
    /* strictly lower data sequence number only */
    CHECK(basalt_iceberg_delete_applies(&data, 0, 2, &eq, &partitioned, 3));
    CHECK(!basalt_iceberg_delete_applies(&data, 0, 3, &eq, &partitioned, 3));
    CHECK(!basalt_iceberg_delete_applies(&data, 0, 4, &eq, &partitioned, 3));
    eq.partition = &fob;
    CHECK(!basalt_iceberg_delete_applies(&data, 0, 2, &eq, &partitioned, 3));
    eq.partition = NULL;
    eq.n_partition = 0;
    CHECK(basalt_iceberg_delete_applies(&data, 0, 2, &eq, &unpartitioned, 3));
    CHECK(!basalt_iceberg_delete_applies(&data, 0, 3, &eq, &unpartitioned, 3));
    /* a void-only spec is unpartitioned */
    struct basalt_iceberg_partition_field vf = identity_field;
    vf.transform.kind = BASALT_ICEBERG_TRANSFORM_VOID;
    struct basalt_iceberg_partition_spec voids = {2, &vf, 1};
    CHECK(basalt_iceberg_spec_unpartitioned(&voids));
    CHECK(!basalt_iceberg_spec_unpartitioned(&partitioned));
    CHECK(basalt_iceberg_delete_applies(&data, 0, 2, &eq, &voids, 3));
}

TEST(scan_deletes_for_dv_supersedes_position_files)
{
    init_specs();
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_iceberg_data_file data = file(BASALT_ICEBERG_CONTENT_DATA, "d1.parquet", NULL, 0);
    struct basalt_iceberg_data_file pos = file(BASALT_ICEBERG_CONTENT_POSITION_DELETES, "p.parquet", NULL, 0);
    struct basalt_iceberg_data_file dv = file(BASALT_ICEBERG_CONTENT_POSITION_DELETES, "x.puffin", NULL, 0);
    dv.file_format = BASALT_ICEBERG_FORMAT_PUFFIN;
    dv.referenced_data_file = "d1.parquet";
    struct basalt_iceberg_data_file dv_other = dv;
    dv_other.referenced_data_file = "d2.parquet";
    struct basalt_iceberg_data_file eq = file(BASALT_ICEBERG_CONTENT_EQUALITY_DELETES, "e.parquet", NULL, 0);
    struct basalt_iceberg_delete_entry dels[] = {
        {&eq, &unpartitioned, 1, 7},
        {&pos, &unpartitioned, 1, 7},
        {&dv_other, &unpartitioned, 1, 7},
        {&dv, &unpartitioned, 1, 7},
    };
    const struct basalt_iceberg_data_file **out;
    uint32_t n;
    struct basalt_error err;
    CHECK_OK(basalt_iceberg_deletes_for(dels, 4, &data, 1, 6, &arena, &out, &n, &err), &err);
    CHECK_EQ(n, 2);
    CHECK(out[0] == &dv);
    CHECK(out[1] == &eq);
    /* without the DV the position delete file applies */
    CHECK_OK(basalt_iceberg_deletes_for(dels, 3, &data, 1, 6, &arena, &out, &n, &err), &err);
    CHECK_EQ(n, 2);
    CHECK(out[0] == &pos);
    CHECK(out[1] == &eq);
    /* data written after the deletes: nothing (seq 7: position files <= apply, equality < do not) */
    CHECK_OK(basalt_iceberg_deletes_for(dels, 4, &data, 1, 7, &arena, &out, &n, &err), &err);
    CHECK_EQ(n, 1);
    CHECK(out[0] == &dv);
    CHECK_OK(basalt_iceberg_deletes_for(dels, 4, &data, 1, 8, &arena, &out, &n, &err), &err);
    CHECK_EQ(n, 0);
    basalt_arena_reset(&arena);
}

TEST(scan_split_at_split_offsets)
{
    const int64_t MiB = 1 << 20;
    struct basalt_iceberg_data_file f = file(BASALT_ICEBERG_CONTENT_DATA, "big.parquet", NULL, 0);
    int64_t offsets[10];
    struct basalt_iceberg_file_task proto, *tasks = NULL;
    uint32_t n = 0, cap = 0;
    struct basalt_error err;
    memset(&proto, 0, sizeof proto);
    proto.file = &f;

    /* small files stay whole, with or without offsets */
    f.file_size_in_bytes = 100 * MiB;
    offsets[0] = 4;
    offsets[1] = 50 * MiB;
    f.split_offsets = offsets;
    f.n_split_offsets = 2;
    CHECK_OK(basalt_iceberg_split_file(&proto, &tasks, &n, &cap, &err), &err);
    CHECK_EQ(n, 1);
    CHECK_EQ(tasks[0].start, 0);
    CHECK_EQ(tasks[0].length, 100 * MiB);

    /* 300 MiB in three 100 MiB row groups: three tasks */
    n = 0;
    f.file_size_in_bytes = 300 * MiB;
    offsets[0] = 4;
    offsets[1] = 100 * MiB;
    offsets[2] = 200 * MiB;
    f.n_split_offsets = 3;
    CHECK_OK(basalt_iceberg_split_file(&proto, &tasks, &n, &cap, &err), &err);
    CHECK_EQ(n, 3);
    CHECK_EQ(tasks[0].start, 0);
    CHECK_EQ(tasks[0].length, 100 * MiB);
    CHECK_EQ(tasks[1].start, 100 * MiB);
    CHECK_EQ(tasks[1].length, 100 * MiB);
    CHECK_EQ(tasks[2].start, 200 * MiB);
    CHECK_EQ(tasks[2].length, 100 * MiB);

    /* ten 32 MiB row groups: tasks of four (128 MiB), four, two */
    n = 0;
    for (int i = 0; i < 10; i++)
        offsets[i] = i == 0 ? 4 : i * 32 * MiB;
    f.n_split_offsets = 10;
    f.file_size_in_bytes = 320 * MiB;
    CHECK_OK(basalt_iceberg_split_file(&proto, &tasks, &n, &cap, &err), &err);
    CHECK_EQ(n, 3);
    CHECK_EQ(tasks[0].length, 128 * MiB);
    CHECK_EQ(tasks[1].start, 128 * MiB);
    CHECK_EQ(tasks[1].length, 128 * MiB);
    CHECK_EQ(tasks[2].start, 256 * MiB);
    CHECK_EQ(tasks[2].length, 64 * MiB);

    /* offsets out of order or past the end: one task */
    n = 0;
    offsets[3] = 1;
    CHECK_OK(basalt_iceberg_split_file(&proto, &tasks, &n, &cap, &err), &err);
    CHECK_EQ(n, 1);
    n = 0;
    offsets[3] = 96 * MiB;
    offsets[9] = 400 * MiB;
    CHECK_OK(basalt_iceberg_split_file(&proto, &tasks, &n, &cap, &err), &err);
    CHECK_EQ(n, 1);
    basalt_free(tasks);
}
