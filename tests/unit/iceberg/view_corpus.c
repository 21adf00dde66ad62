/* Every view metadata file of corpus/iceberg/metadata-json behaves as the
 * corpus README says (outcomes written out here by hand from it), and every
 * valid one survives a round trip through basalt_iceberg_view_metadata_to_json.
 * A view file found in the corpus without an entry here fails the test. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "basalt/iceberg_view.h"
#include "test.h"

struct view_expectation {
    const char *path;       /* under metadata-json/ */
    basalt_status status;   /* OK: must parse */
    const char *message;    /* for failures: a substring of the error */
};

static const struct view_expectation view_expected[] = {
    {"apache-iceberg/view/ValidViewMetadata.json", BASALT_OK, NULL},
    {"apache-iceberg/view/ViewMetadataMultipleSQLsForDialect.json", BASALT_OK, NULL},
    {"iceberg-rust/view_metadata/ViewMetadataV1Valid.json", BASALT_OK, NULL},
    /* version 2 names schema-id 1234; only schema 1 exists */
    {"apache-iceberg/view/ViewMetadataInvalidCurrentSchema.json", BASALT_CORRUPT,
     "current version 2: schema-id 1234: no such schema"},
    {"apache-iceberg/view/ViewMetadataInvalidCurrentVersion.json", BASALT_CORRUPT,
     "current-version-id 1234: no such version"},
    {"apache-iceberg/view/ViewMetadataMissingCurrentVersion.json", BASALT_CORRUPT,
     "missing 'current-version-id'"},
    {"apache-iceberg/view/ViewMetadataMissingLocation.json", BASALT_CORRUPT, "missing 'location'"},
    {"iceberg-rust/view_metadata/ViewMetadataUnsupportedVersion.json", BASALT_UNSUPPORTED,
     "view format-version 2 is not supported"},
    {"iceberg-rust/view_metadata/ViewMetadataV1CurrentVersionNotFound.json", BASALT_CORRUPT,
     "current-version-id 2: no such version"},
    {"iceberg-rust/view_metadata/ViewMetadataV1MissingCurrentVersion.json", BASALT_CORRUPT,
     "missing 'current-version-id'"},
    /* The version lacks schema-id, and the file lacks current-version-id
     * too, which is read (and reported) first, as the Java reader does. */
    {"iceberg-rust/view_metadata/ViewMetadataV1MissingSchema.json", BASALT_CORRUPT,
     "missing 'current-version-id'"},
    {"iceberg-rust/view_metadata/ViewMetadataV1SchemaNotFound.json", BASALT_CORRUPT,
     "current version 1: schema-id 2: no such schema"},
};

#define N_VIEW_EXPECTED (sizeof(view_expected) / sizeof(view_expected[0]))

/* ------------------------------------------------------ deep comparison */

#define SAME(cond)                                                                          \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            snprintf(why, 256, "%s:%d: %s", __func__, __LINE__, #cond);                     \
            return false;                                                                   \
        }                                                                                   \
    } while (0)

static bool same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_kv(const struct basalt_iceberg_kv *a, uint32_t na,
                    const struct basalt_iceberg_kv *b, uint32_t nb)
{
    if (na != nb)
        return false;
    for (uint32_t i = 0; i < na; i++)
        if (!same_str(a[i].key, b[i].key) || !same_str(a[i].value, b[i].value))
            return false;
    return true;
}

static bool same_type(const struct basalt_iceberg_type *a, const struct basalt_iceberg_type *b,
                      char *why)
{
    SAME(a->id == b->id && a->precision == b->precision && a->scale == b->scale);
    SAME(a->length == b->length && a->n_fields == b->n_fields);
    for (uint32_t i = 0; i < a->n_fields; i++) {
        const struct basalt_iceberg_field *x = &a->fields[i], *y = &b->fields[i];
        SAME(x->id == y->id && same_str(x->name, y->name) && x->required == y->required);
        SAME(same_str(x->doc, y->doc));
        if (!same_type(&x->type, &y->type, why))
            return false;
    }
    return true;
}

static bool same_view(const struct basalt_iceberg_view_metadata *a,
                      const struct basalt_iceberg_view_metadata *b, char *why)
{
    SAME(a->format_version == b->format_version && same_str(a->view_uuid, b->view_uuid));
    SAME(same_str(a->location, b->location));
    SAME(a->current_version_id == b->current_version_id);
    SAME(same_kv(a->properties, a->n_properties, b->properties, b->n_properties));
    SAME(same_str(a->unknown_keys_json, b->unknown_keys_json));
    SAME(a->n_schemas == b->n_schemas);
    for (uint32_t i = 0; i < a->n_schemas; i++) {
        SAME(a->schemas[i].schema_id == b->schemas[i].schema_id);
        SAME(a->schemas[i].n_identifier_field_ids == b->schemas[i].n_identifier_field_ids);
        if (!same_type(&a->schemas[i].root, &b->schemas[i].root, why))
            return false;
    }
    SAME(a->n_versions == b->n_versions);
    for (uint32_t i = 0; i < a->n_versions; i++) {
        const struct basalt_iceberg_view_version *x = &a->versions[i], *y = &b->versions[i];
        SAME(x->version_id == y->version_id && x->timestamp_ms == y->timestamp_ms);
        SAME(x->schema_id == y->schema_id);
        SAME(same_kv(x->summary, x->n_summary, y->summary, y->n_summary));
        SAME(same_str(x->default_catalog, y->default_catalog));
        SAME(x->n_default_namespace == y->n_default_namespace);
        for (uint32_t j = 0; j < x->n_default_namespace; j++)
            SAME(same_str(x->default_namespace[j], y->default_namespace[j]));
        SAME(x->n_representations == y->n_representations);
        for (uint32_t j = 0; j < x->n_representations; j++) {
            const struct basalt_iceberg_view_representation *p = &x->representations[j];
            const struct basalt_iceberg_view_representation *q = &y->representations[j];
            SAME(same_str(p->type, q->type) && same_str(p->sql, q->sql));
            SAME(same_str(p->dialect, q->dialect) && same_str(p->json, q->json));
        }
    }
    SAME(a->n_version_log == b->n_version_log);
    for (uint32_t i = 0; i < a->n_version_log; i++)
        SAME(a->version_log[i].timestamp_ms == b->version_log[i].timestamp_ms &&
             a->version_log[i].version_id == b->version_log[i].version_id);
    return true;
}

/* Parses, serialises, parses again, and compares field by field. */
static bool view_round_trip(const struct basalt_iceberg_view_metadata *v, const char *name)
{
    char *json = NULL;
    size_t len = 0;
    struct basalt_error err;
    basalt_error_init(&err);
    if (basalt_iceberg_view_metadata_to_json(v, &json, &len, &err) != BASALT_OK) {
        bt_fail(__FILE__, __LINE__, "%s: to_json: %s", name, err.message);
        return false;
    }
    struct basalt_iceberg_view_metadata *again = NULL;
    basalt_status st = basalt_iceberg_view_metadata_parse(json, len, "round-trip", &again, &err);
    bool ok = st == BASALT_OK;
    char why[256] = "";
    if (!ok)
        bt_fail(__FILE__, __LINE__, "%s: reparse: %s", name, err.message);
    else if (!same_view(v, again, why)) {
        bt_fail(__FILE__, __LINE__, "%s: round trip differs: %s", name, why);
        ok = false;
    }
    basalt_iceberg_view_metadata_free(again);
    basalt_free(json);
    return ok;
}

/* A view file: "view" in its path (the corpus keeps them in view/ and
 * view_metadata/ directories), or a top-level view-uuid in its text. */
static bool is_view_file(const char *rel, const uint8_t *data, size_t len)
{
    for (const char *p = rel; *p; p++)
        if (strncasecmp(p, "view", 4) == 0)
            return true;
    static const char key[] = "\"view-uuid\"";
    for (size_t i = 0; i + sizeof(key) - 1 <= len; i++)
        if (memcmp(data + i, key, sizeof(key) - 1) == 0)
            return true;
    return false;
}

/* In metadata_corpus.c. */
int iceberg_test_list_json(const char *root, const char *rel, char names[][256], int cap, int n);

static const struct view_expectation *find_view_expectation(const char *rel)
{
    for (size_t i = 0; i < N_VIEW_EXPECTED; i++)
        if (strcmp(view_expected[i].path, rel) == 0)
            return &view_expected[i];
    return NULL;
}

TEST(view_corpus_every_file)
{
    const char *root = bt_testdata_path("iceberg/metadata-json");
    char rootbuf[1024];
    snprintf(rootbuf, sizeof(rootbuf), "%s", root);
    static char names[256][256];
    int n = iceberg_test_list_json(rootbuf, "", names, 256, 0);
    int parsed = 0, failed = 0, seen[N_VIEW_EXPECTED] = {0};
    for (int i = 0; i < n; i++) {
        char full[1400];
        CHECK((size_t)snprintf(full, sizeof(full), "%s/%s", rootbuf, names[i]) < sizeof(full));
        size_t len = 0;
        uint8_t *data = bt_read_file(full, &len);
        CHECK_MSG(data != NULL, "cannot read %s", full);
        const struct view_expectation *e = find_view_expectation(names[i]);
        if (!e) {
            bool view = is_view_file(names[i], data, len);
            basalt_free(data);
            CHECK_MSG(!view, "%s is a view file with no expected outcome in the table", names[i]);
            continue;
        }
        seen[e - view_expected]++;
        const char *base = strrchr(names[i], '/') ? strrchr(names[i], '/') + 1 : names[i];
        struct basalt_iceberg_view_metadata *v = NULL;
        struct basalt_error err;
        basalt_error_init(&err);
        basalt_status st = basalt_iceberg_view_metadata_parse(data, len, base, &v, &err);
        basalt_free(data);
        if (e->status == BASALT_OK) {
            CHECK_MSG(st == BASALT_OK, "%s: expected to parse, got %s: %s", names[i],
                      basalt_status_name(st), err.message);
            bool ok = view_round_trip(v, names[i]);
            basalt_iceberg_view_metadata_free(v);
            if (!ok)
                return;
            parsed++;
        } else {
            basalt_iceberg_view_metadata_free(v);
            CHECK_MSG(st == e->status, "%s: expected %s, got %s: %s", names[i],
                      basalt_status_name(e->status), basalt_status_name(st), err.message);
            CHECK_MSG(v == NULL, "%s: *out set on failure", names[i]);
            CHECK_MSG(strncmp(err.message, base, strlen(base)) == 0,
                      "%s: message does not start with the file name: %s", names[i], err.message);
            CHECK_MSG(strstr(err.message, e->message) != NULL, "%s: message '%s' lacks '%s'",
                      names[i], err.message, e->message);
            failed++;
        }
    }
    for (size_t i = 0; i < N_VIEW_EXPECTED; i++)
        CHECK_MSG(seen[i] == 1, "%s: found %d times in the corpus", view_expected[i].path,
                  seen[i]);
    /* The README's counts: three view files parse, nine fail. */
    CHECK_EQ(parsed, 3);
    CHECK_EQ(failed, 9);
}

/* The table reader and the view reader each refuse the other's files. */
TEST(view_corpus_table_files_refused)
{
    struct basalt_iceberg_view_metadata *v = NULL;
    struct basalt_error err;
    basalt_error_init(&err);
    basalt_status st = basalt_iceberg_view_metadata_read_file(
        bt_testdata_path("iceberg/metadata-json/apache-iceberg/TableMetadataV1Valid.json"), &v,
        &err);
    CHECK_EQ(st, BASALT_CORRUPT);
    CHECK(v == NULL);
    CHECK_MSG(strstr(err.message, "table metadata, not view metadata") != NULL, "%s",
              err.message);
    CHECK_MSG(strstr(err.message, "TableMetadataV1Valid.json: ") != NULL, "%s", err.message);
}
