/* Table metadata of the real tables of the corpus (glaredb, icebird,
 * polars) against the columns of corpus/iceberg/TABLES.tsv; time travel
 * and refs; validation messages; allocation failures. */
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_metadata.h"
#include "test.h"

#define MAX_COLS 24

static int split_tabs(char *line, char **cols)
{
    int n = 0;
    cols[n++] = line;
    for (char *p = line; *p && n < MAX_COLS; p++)
        if (*p == '\t') {
            *p = '\0';
            cols[n++] = p + 1;
        }
    return n;
}

static int column(char **header, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(header[i], name) == 0)
            return i;
    return -1;
}

/* "0:[bucket[4](1),identity(3)]" for every spec, ';'-separated. */
static void spec_text(const struct basalt_iceberg_metadata *m, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < m->n_specs; i++) {
        const struct basalt_iceberg_partition_spec *s = &m->specs[i];
        n += (size_t)snprintf(buf + n, cap - n, "%s%d:[", i ? ";" : "", s->spec_id);
        for (uint32_t j = 0; j < s->n_fields && n < cap; j++)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s(%d)", j ? "," : "",
                                  s->fields[j].transform.text, s->fields[j].source_id);
        if (n < cap)
            n += (size_t)snprintf(buf + n, cap - n, "]");
    }
}

TEST(metadata_corpus_tables_tsv)
{
    size_t len = 0;
    char *tsv = (char *)bt_read_file(bt_testdata_path("iceberg/TABLES.tsv"), &len);
    CHECK(tsv != NULL);
    char *text = basalt_malloc(len + 1);
    if (!text)
        basalt_free(tsv);
    CHECK(text != NULL);
    memcpy(text, tsv, len);
    text[len] = '\0';
    basalt_free(tsv);

    char *save = NULL;
    char *line = strtok_r(text, "\n", &save);
    char *header[MAX_COLS];
    int nh = line ? split_tabs(line, header) : 0;
    int c_dir = column(header, nh, "table_dir"), c_file = column(header, nh, "metadata_file");
    int c_fv = column(header, nh, "format_version"), c_snaps = column(header, nh, "snapshots");
    int c_cur = column(header, nh, "current_snapshot_id"), c_schemas = column(header, nh, "schemas");
    int c_specs = column(header, nh, "partition_specs(spec:[transform(source-id)])");
    int c_ops = column(header, nh, "snapshot_ops"), c_loc = column(header, nh, "stored_location");
    int rows = 0, failures = 0;
    if (c_dir < 0 || c_file < 0 || c_fv < 0 || c_snaps < 0 || c_cur < 0 || c_schemas < 0 ||
        c_specs < 0 || c_ops < 0 || c_loc < 0) {
        basalt_free(text);
        CHECK_MSG(false, "TABLES.tsv lacks an expected column");
    }
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        char *cols[MAX_COLS];
        int nc = split_tabs(line, cols);
        if (nc <= c_cur || nc <= c_ops)
            continue;
        const char *dir = cols[c_dir];
        if (strncmp(dir, "glaredb/", 8) && strncmp(dir, "icebird/", 8) && strncmp(dir, "polars/", 7))
            continue;
        char rel[1024];
        snprintf(rel, sizeof(rel), "iceberg/%s/%s", dir, cols[c_file]);
        struct basalt_iceberg_metadata *m = NULL;
        struct basalt_error err;
        basalt_status st = basalt_iceberg_metadata_read_file(bt_testdata_path(rel), &m, &err);
        rows++;
        if (st != BASALT_OK) {
            bt_fail(__FILE__, __LINE__, "%s: %s", rel, err.message);
            failures++;
            continue;
        }
        int64_t want_cur = cols[c_cur][0] ? strtoll(cols[c_cur], NULL, 10) : -1;
        int64_t have_cur = m->has_current_snapshot_id ? m->current_snapshot_id : -1;
        char specs[512], ops[512];
        spec_text(m, specs, sizeof(specs));
        ops[0] = '\0';
        size_t on = 0;
        for (uint32_t i = 0; i < m->n_snapshots && on < sizeof(ops); i++)
            on += (size_t)snprintf(ops + on, sizeof(ops) - on, "%s%s", i ? "," : "",
                                   m->snapshots[i].operation);
        if (m->format_version != atoi(cols[c_fv]) || (int64_t)m->n_snapshots != atoll(cols[c_snaps]) ||
            have_cur != want_cur || (int64_t)m->n_schemas != atoll(cols[c_schemas]) ||
            strcmp(specs, cols[c_specs]) || strcmp(ops, cols[c_ops]) ||
            strcmp(m->location, cols[c_loc])) {
            bt_fail(__FILE__, __LINE__,
                    "%s: version %d snapshots %u current %lld schemas %u specs %s ops %s "
                    "location %s; TSV says %s %s %s %s %s %s %s",
                    rel, m->format_version, m->n_snapshots, (long long)have_cur, m->n_schemas,
                    specs, ops, m->location, cols[c_fv], cols[c_snaps], cols[c_cur],
                    cols[c_schemas], cols[c_specs], cols[c_ops], cols[c_loc]);
            failures++;
        }
        /* the current snapshot is what "main" points at */
        const struct basalt_iceberg_snapshot *main_snap = NULL;
        st = basalt_iceberg_metadata_snapshot_by_ref(m, "main", &main_snap, NULL);
        if (want_cur >= 0 && (st != BASALT_OK || main_snap->snapshot_id != want_cur)) {
            bt_fail(__FILE__, __LINE__, "%s: main does not point at the current snapshot", rel);
            failures++;
        }
        if (want_cur < 0 && st != BASALT_NOT_FOUND) {
            bt_fail(__FILE__, __LINE__, "%s: main exists without a current snapshot", rel);
            failures++;
        }
        basalt_iceberg_metadata_free(m);
    }
    basalt_free(text);
    CHECK_EQ(failures, 0);
    CHECK_EQ(rows, 26);
}

/* --------------------------------------------------------- time travel */

/* Snapshots listed out of time order; the log has a rollback (1 -> 3 -> 1). */
static const char travel_json[] =
    "{\"format-version\":2,\"table-uuid\":\"u\",\"location\":\"l\",\"last-sequence-number\":3,"
    "\"last-updated-ms\":400,\"last-column-id\":1,\"current-schema-id\":1,"
    "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"int\"}]},"
    "{\"type\":\"struct\",\"schema-id\":1,\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"long\"}]}],"
    "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],\"last-partition-id\":999,"
    "\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],"
    "\"current-snapshot-id\":1,"
    "\"snapshots\":["
    "{\"snapshot-id\":3,\"parent-snapshot-id\":1,\"timestamp-ms\":300,\"sequence-number\":3,\"manifest-list\":\"m3\",\"summary\":{\"operation\":\"overwrite\",\"added-records\":\"5\"},\"schema-id\":1},"
    "{\"snapshot-id\":1,\"timestamp-ms\":100,\"sequence-number\":1,\"manifest-list\":\"m1\",\"summary\":{\"operation\":\"append\"},\"schema-id\":0},"
    "{\"snapshot-id\":2,\"parent-snapshot-id\":1,\"timestamp-ms\":200,\"sequence-number\":2,\"manifest-list\":\"m2\",\"summary\":{\"operation\":\"delete\"}}],"
    "\"snapshot-log\":[{\"timestamp-ms\":100,\"snapshot-id\":1},{\"timestamp-ms\":300,\"snapshot-id\":3},"
    "{\"timestamp-ms\":300,\"snapshot-id\":1}],"
    "\"refs\":{\"main\":{\"snapshot-id\":1,\"type\":\"branch\"},\"v1\":{\"snapshot-id\":2,\"type\":\"tag\",\"max-ref-age-ms\":5},"
    "\"audit\":{\"snapshot-id\":3,\"type\":\"branch\",\"min-snapshots-to-keep\":2,\"max-snapshot-age-ms\":9}}}";

TEST(metadata_time_travel)
{
    struct basalt_iceberg_metadata *m = NULL;
    struct basalt_error err;
    CHECK_OK(basalt_iceberg_metadata_parse(travel_json, strlen(travel_json), "travel", &m, &err), &err);
    const struct basalt_iceberg_snapshot *s = NULL;
    int failures = 0;
#define EXPECT(cond)                                                                           \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            bt_fail(__FILE__, __LINE__, "%s", #cond);                                          \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)
    EXPECT(basalt_iceberg_metadata_snapshot_as_of(m, 99, &s, &err) == BASALT_NOT_FOUND && s == NULL);
    EXPECT(basalt_iceberg_metadata_snapshot_as_of(m, 100, &s, NULL) == BASALT_OK && s->snapshot_id == 1);
    EXPECT(basalt_iceberg_metadata_snapshot_as_of(m, 250, &s, NULL) == BASALT_OK && s->snapshot_id == 1);
    /* two log entries at 300: the later one (the rollback to 1) wins */
    EXPECT(basalt_iceberg_metadata_snapshot_as_of(m, 300, &s, NULL) == BASALT_OK && s->snapshot_id == 1);
    EXPECT(basalt_iceberg_metadata_snapshot_as_of(m, 299, &s, NULL) == BASALT_OK && s->snapshot_id == 1);
    EXPECT(basalt_iceberg_metadata_snapshot_as_of(m, INT64_MAX, &s, NULL) == BASALT_OK && s->snapshot_id == 1);
    EXPECT(basalt_iceberg_metadata_snapshot(m, 2)->timestamp_ms == 200);
    EXPECT(basalt_iceberg_metadata_snapshot(m, 4) == NULL);
    EXPECT(basalt_iceberg_metadata_current_snapshot(m)->snapshot_id == 1);
    /* refs sorted by name, with their retention settings */
    EXPECT(m->n_refs == 3 && strcmp(m->refs[0].name, "audit") == 0 && strcmp(m->refs[2].name, "v1") == 0);
    const struct basalt_iceberg_ref *r = basalt_iceberg_metadata_ref(m, "audit");
    EXPECT(r && !r->is_tag && r->has_min_snapshots_to_keep && r->min_snapshots_to_keep == 2 &&
           r->has_max_snapshot_age_ms && r->max_snapshot_age_ms == 9 && !r->has_max_ref_age_ms);
    EXPECT(basalt_iceberg_metadata_snapshot_by_ref(m, "v1", &s, NULL) == BASALT_OK && s->snapshot_id == 2);
    EXPECT(basalt_iceberg_metadata_ref(m, "v1")->is_tag);
    EXPECT(basalt_iceberg_metadata_snapshot_by_ref(m, "nope", &s, NULL) == BASALT_NOT_FOUND);
    /* schema of a snapshot: its schema-id, else the current schema */
    EXPECT(basalt_iceberg_metadata_snapshot_schema(m, basalt_iceberg_metadata_snapshot(m, 1))->schema_id == 0);
    EXPECT(basalt_iceberg_metadata_snapshot_schema(m, basalt_iceberg_metadata_snapshot(m, 3))->schema_id == 1);
    EXPECT(basalt_iceberg_metadata_snapshot_schema(m, basalt_iceberg_metadata_snapshot(m, 2))->schema_id == 1);
    EXPECT(basalt_iceberg_metadata_snapshot_schema(m, NULL)->schema_id == 1);
    const struct basalt_iceberg_snapshot *s3 = basalt_iceberg_metadata_snapshot(m, 3);
    EXPECT(strcmp(s3->operation, "overwrite") == 0 && s3->n_summary == 1 &&
           strcmp(s3->summary[0].key, "added-records") == 0 && strcmp(s3->summary[0].value, "5") == 0);
    basalt_iceberg_metadata_free(m);

    /* Without a log: the newest snapshot not after T, whatever the list order. */
    static const char nolog[] =
        "{\"format-version\":1,\"location\":\"l\",\"last-updated-ms\":1,\"last-column-id\":1,"
        "\"schema\":{\"type\":\"struct\",\"fields\":[]},\"partition-spec\":[],"
        "\"snapshots\":[{\"snapshot-id\":7,\"timestamp-ms\":50,\"manifest-list\":\"b\"},"
        "{\"snapshot-id\":6,\"timestamp-ms\":10,\"manifest-list\":\"a\"},"
        "{\"snapshot-id\":8,\"timestamp-ms\":30,\"manifest-list\":\"c\"}]}";
    CHECK_OK(basalt_iceberg_metadata_parse(nolog, strlen(nolog), "nolog", &m, &err), &err);
    EXPECT(basalt_iceberg_metadata_snapshot_as_of(m, 9, &s, NULL) == BASALT_NOT_FOUND);
    EXPECT(basalt_iceberg_metadata_snapshot_as_of(m, 10, &s, NULL) == BASALT_OK && s->snapshot_id == 6);
    EXPECT(basalt_iceberg_metadata_snapshot_as_of(m, 49, &s, NULL) == BASALT_OK && s->snapshot_id == 8);
    EXPECT(basalt_iceberg_metadata_snapshot_as_of(m, 50, &s, NULL) == BASALT_OK && s->snapshot_id == 7);
    EXPECT(m->n_refs == 0 && basalt_iceberg_metadata_current_snapshot(m) == NULL);
    basalt_iceberg_metadata_free(m);

    /* The corpus table with two snapshots and a log. */
    CHECK_OK(basalt_iceberg_metadata_read_file(
                 bt_testdata_path("iceberg/metadata-json/apache-iceberg/TableMetadataV2Valid.json"), &m, &err),
             &err);
    EXPECT(basalt_iceberg_metadata_snapshot_as_of(m, 1515100955769LL, &s, NULL) == BASALT_NOT_FOUND);
    EXPECT(basalt_iceberg_metadata_snapshot_as_of(m, 1515100955770LL, &s, NULL) == BASALT_OK &&
           s->snapshot_id == 3051729675574597004LL);
    EXPECT(basalt_iceberg_metadata_snapshot_as_of(m, 1555100955769LL, &s, NULL) == BASALT_OK &&
           s->snapshot_id == 3051729675574597004LL);
    EXPECT(basalt_iceberg_metadata_snapshot_as_of(m, 1555100955770LL, &s, NULL) == BASALT_OK &&
           s->snapshot_id == 3055729675574597004LL);
    basalt_iceberg_metadata_free(m);
#undef EXPECT
    CHECK_EQ(failures, 0);
}

/* ---------------------------------------------------------- validation */

static const char base_v2_head[] =
    "{\"format-version\":2,\"table-uuid\":\"u\",\"location\":\"l\",\"last-sequence-number\":1,"
    "\"last-updated-ms\":1,\"last-column-id\":1,\"current-schema-id\":0,"
    "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"int\"}]}],"
    "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],\"last-partition-id\":999,"
    "\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,\"fields\":[]}]";

TEST(metadata_validation_messages)
{
    static const struct {
        const char *tail; /* appended to base_v2_head, then "}" */
        basalt_status status;
        const char *message;
    } cases[] = {
        {",\"snapshots\":[{\"snapshot-id\":1,\"manifest-list\":\"m\"}]", BASALT_CORRUPT,
         "bad.json: snapshots[0]: missing 'timestamp-ms'"},
        {",\"snapshots\":[{\"snapshot-id\":1,\"timestamp-ms\":1}]", BASALT_CORRUPT,
         "bad.json: snapshots[0]: missing 'manifest-list'"},
        {",\"current-snapshot-id\":5", BASALT_CORRUPT, "current-snapshot-id 5: no such snapshot"},
        {",\"snapshots\":[{\"snapshot-id\":1,\"timestamp-ms\":1,\"sequence-number\":2,\"manifest-list\":\"m\"}]",
         BASALT_CORRUPT, "greater than last-sequence-number"},
        {",\"snapshots\":[{\"snapshot-id\":1,\"timestamp-ms\":1,\"manifest-list\":\"m\"},"
         "{\"snapshot-id\":1,\"timestamp-ms\":2,\"manifest-list\":\"n\"}]",
         BASALT_CORRUPT, "snapshots[1]: snapshot id 1 is used twice"},
        {",\"refs\":{\"b\":{\"snapshot-id\":9,\"type\":\"branch\"}}", BASALT_CORRUPT,
         "refs: 'b': snapshot 9 does not exist"},
        {",\"snapshots\":[{\"snapshot-id\":1,\"timestamp-ms\":1,\"manifest-list\":\"m\"}],"
         "\"refs\":{\"main\":{\"snapshot-id\":1,\"type\":\"branch\"}}",
         BASALT_CORRUPT, "current snapshot is not set, but branch main exists"},
        {",\"refs\":{\"x\":{\"snapshot-id\":1,\"type\":\"leaf\"}},\"snapshots\":[{\"snapshot-id\":1,"
         "\"timestamp-ms\":1,\"manifest-list\":\"m\"}]",
         BASALT_CORRUPT, "unknown ref type 'leaf'"},
        {",\"properties\":{\"a\":1}", BASALT_CORRUPT, "value of 'a' is not a string"},
        {",\"snapshot-log\":[{\"snapshot-id\":1}]", BASALT_CORRUPT,
         "snapshot-log[0]: missing 'timestamp-ms'"},
        {",\"statistics\":[{\"snapshot-id\":1,\"statistics-path\":\"p\",\"file-size-in-bytes\":1,"
         "\"file-footer-size-in-bytes\":1}]",
         BASALT_CORRUPT, "statistics[0]: missing 'blob-metadata'"},
        {",\"encryption-keys\":[{\"key-id\":\"k\"}]", BASALT_CORRUPT,
         "encryption-keys[0]: missing 'encrypted-key-metadata'"},
        {",\"last-column-id\":\"x\"", BASALT_OK, NULL}, /* duplicate key: the later value wins */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char json[4096];
        snprintf(json, sizeof(json), "%s%s}", base_v2_head, cases[i].tail);
        struct basalt_iceberg_metadata *m = NULL;
        struct basalt_error err;
        basalt_error_init(&err);
        basalt_status st = basalt_iceberg_metadata_parse(json, strlen(json), "bad.json", &m, &err);
        basalt_iceberg_metadata_free(m);
        if (!cases[i].message) {
            /* jansson keeps the last of duplicate keys: "x" is not an int */
            CHECK_MSG(st == BASALT_CORRUPT && strstr(err.message, "'last-column-id' is not an integer"),
                      "case %zu: %s", i, err.message);
            continue;
        }
        CHECK_MSG(st == cases[i].status, "case %zu: %s: %s", i, basalt_status_name(st), err.message);
        CHECK_MSG(strstr(err.message, cases[i].message) != NULL, "case %zu: '%s' lacks '%s'", i,
                  err.message, cases[i].message);
    }

    struct basalt_iceberg_metadata *m = NULL;
    struct basalt_error err;
    static const char v4[] = "{\"format-version\":4}";
    CHECK_STATUS(basalt_iceberg_metadata_parse(v4, strlen(v4), "v4.json", &m, &err), BASALT_UNSUPPORTED, &err);
    CHECK_STR(err.message, "v4.json: format-version 4 is newer than the supported 3");
    static const char v0[] = "{\"format-version\":0}";
    CHECK_STATUS(basalt_iceberg_metadata_parse(v0, strlen(v0), "v0.json", &m, &err), BASALT_UNSUPPORTED, &err);
    static const char garbage[] = "{\"format-version\":2,";
    CHECK_STATUS(basalt_iceberg_metadata_parse(garbage, strlen(garbage), "g.json", &m, &err), BASALT_CORRUPT, &err);
    CHECK(strncmp(err.message, "g.json: invalid JSON", 20) == 0);
    CHECK_STATUS(basalt_iceberg_metadata_parse("[]", 2, "a.json", &m, &err), BASALT_CORRUPT, &err);
    CHECK_STATUS(basalt_iceberg_metadata_parse("", 0, "e.json", &m, &err), BASALT_CORRUPT, &err);
    CHECK_STATUS(basalt_iceberg_metadata_parse(NULL, 0, "n", NULL, &err), BASALT_INVALID_ARG, &err);
    CHECK_STATUS(basalt_iceberg_metadata_read_file("/nonexistent/x.json", &m, &err), BASALT_IO, &err);
    CHECK(m == NULL);
    /* zstd magic followed by garbage */
    static const uint8_t badz[] = {0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3, 4, 5};
    CHECK_STATUS(basalt_iceberg_metadata_parse(badz, sizeof(badz), "z.json", &m, &err), BASALT_CORRUPT, &err);
    CHECK(strncmp(err.message, "z.json: ", 8) == 0);
    basalt_iceberg_metadata_free(NULL);
}

/* --------------------------------------------------- allocation failures */

struct sweep_ctx {
    uint8_t *data;
    size_t len;
};

static basalt_status parse_and_write(void *arg)
{
    struct sweep_ctx *c = arg;
    struct basalt_iceberg_metadata *m = NULL;
    basalt_status st = basalt_iceberg_metadata_parse(c->data, c->len, "sweep", &m, NULL);
    if (st != BASALT_OK)
        return st;
    char *json = NULL;
    st = basalt_iceberg_metadata_to_json(m, &json, NULL, NULL);
    basalt_free(json);
    basalt_iceberg_metadata_free(m);
    return st;
}

TEST(metadata_alloc_failure_sweep)
{
    struct sweep_ctx c;
    c.data = bt_read_file(
        bt_testdata_path("iceberg/metadata-json/iceberg-go/TableMetadataV3WithPartitionStatistics.json"),
        &c.len);
    CHECK(c.data != NULL);
    int64_t n = bt_alloc_failure_sweep(__FILE__, __LINE__, parse_and_write, &c);
    struct sweep_ctx z;
    z.data = bt_read_file(
        bt_testdata_path("iceberg/metadata-json/iceberg-go/TableMetadataV2Valid.zstd.metadata.json"),
        &z.len);
    int64_t nz = z.data ? bt_alloc_failure_sweep(__FILE__, __LINE__, parse_and_write, &z) : -1;
    basalt_free(c.data);
    basalt_free(z.data);
    CHECK_MSG(n > 3, "sweep took %lld attempts", (long long)n); /* failures were injected */
    CHECK(nz > 1);
}
