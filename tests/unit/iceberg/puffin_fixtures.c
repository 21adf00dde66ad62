/* Puffin files: apache/iceberg's canonical fixtures (TestPuffinReader values
 * in corpus/iceberg/puffin/EXPECTED.md), iceberg-go's deletion-vector
 * envelopes, malformed footers. */
#include <stdlib.h>

#include "basalt/iceberg_manifest.h"
#include "test.h"

static uint8_t *read_rel(const char *rel, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", bt_testdata_path("iceberg"));
    size_t n = strlen(path);
    snprintf(path + n, sizeof path - n, "/%s", rel);
    return bt_read_file(path, len);
}

static const char blob1_text[] =
    "some blob \0 binary data \xf0\x9f\xa4\xaf that is not very very very very very very long, is it?";

TEST(puffin_empty_file)
{
    size_t len;
    uint8_t *data = read_rel("puffin/apache-iceberg/v1/empty-puffin-uncompressed.bin", &len);
    CHECK(data);
    struct basalt_error err;
    struct basalt_iceberg_puffin *p = NULL;
    basalt_status st = basalt_iceberg_puffin_parse(data, len, "empty", &p, &err);
    basalt_free(data);
    CHECK_OK(st, &err);
    bool ok = p->n_blobs == 0 && p->n_properties == 0;
    basalt_iceberg_puffin_free(p);
    CHECK(ok);
}

static const char *check_sample(const char *rel, const char *codec)
{
    size_t len;
    uint8_t *data = read_rel(rel, &len);
    if (!data)
        return "cannot read";
    struct basalt_error err;
    struct basalt_iceberg_puffin *p = NULL;
    const char *why = NULL;
    uint8_t *b0 = NULL, *b1 = NULL;
    size_t n0 = 0, n1 = 0;
    if (basalt_iceberg_puffin_parse(data, len, rel, &p, &err) != BASALT_OK)
        why = "parse";
    else if (p->n_blobs != 2 || p->n_properties != 1 || strcmp(p->properties[0].key, "created-by") ||
             strcmp(p->properties[0].value, "Test 1234"))
        why = "footer";
    else if (strcmp(p->blobs[0].type, "some-blob") || p->blobs[0].n_fields != 1 ||
             p->blobs[0].fields[0] != 1 || strcmp(p->blobs[1].type, "some-other-blob") ||
             p->blobs[1].n_fields != 1 || p->blobs[1].fields[0] != 2 || p->blobs[0].offset != 4 ||
             p->blobs[1].offset != p->blobs[0].offset + p->blobs[0].length ||
             p->blobs[0].snapshot_id != 2 || p->blobs[0].sequence_number != 1)
        why = "blob metadata";
    else if ((codec == NULL) != (p->blobs[0].compression_codec == NULL) ||
             (codec && (strcmp(p->blobs[0].compression_codec, codec) ||
                        strcmp(p->blobs[1].compression_codec, codec))))
        why = "codec";
    else if (basalt_iceberg_puffin_blob_read(p, data, len, 0, &b0, &n0, &err) != BASALT_OK ||
             basalt_iceberg_puffin_blob_read(p, data, len, 1, &b1, &n1, &err) != BASALT_OK)
        why = "blob read";
    else if (n0 != 9 || memcmp(b0, "abcdefghi", 9) != 0 || n1 != sizeof blob1_text - 1 ||
             memcmp(b1, blob1_text, n1) != 0)
        why = "payload";
    uint8_t *none = NULL;
    size_t n_none;
    if (!why && basalt_iceberg_puffin_blob_read(p, data, len, 2, &none, &n_none, &err) !=
                    BASALT_INVALID_ARG)
        why = "blob index out of range";
    basalt_free(none);
    basalt_free(b0);
    basalt_free(b1);
    basalt_iceberg_puffin_free(p);
    basalt_free(data);
    return why;
}

TEST(puffin_sample_metric_data)
{
    const char *why = check_sample("puffin/apache-iceberg/v1/sample-metric-data-uncompressed.bin", NULL);
    CHECK_MSG(!why, "uncompressed: %s", why);
    why = check_sample("puffin/apache-iceberg/v1/sample-metric-data-compressed-zstd.bin", "zstd");
    CHECK_MSG(!why, "zstd: %s", why);
}

TEST(puffin_footer_size_checked)
{
    size_t len;
    uint8_t *data = read_rel("puffin/apache-iceberg/v1/sample-metric-data-compressed-zstd.bin", &len);
    CHECK(data);
    /* The footer: magic + payload + 12; the payload size sits 12 bytes from
     * the end. */
    uint32_t payload = (uint32_t)data[len - 12] | (uint32_t)data[len - 11] << 8 |
                       (uint32_t)data[len - 10] << 16 | (uint32_t)data[len - 9] << 24;
    int64_t footer = (int64_t)payload + 16;
    struct basalt_error err;
    struct basalt_iceberg_puffin *p = NULL;
    int failures = 0;
    if (basalt_iceberg_puffin_parse_footer(data, len, "f", footer, &p, &err) != BASALT_OK)
        failures++;
    basalt_iceberg_puffin_free(p);
    p = NULL;
    for (int64_t d = -2; d <= 2; d++) {
        if (d == 0)
            continue;
        if (basalt_iceberg_puffin_parse_footer(data, len, "f", footer + d, &p, &err) != BASALT_CORRUPT ||
            p || !strstr(err.message, "invalid footer size"))
            failures++;
    }
    /* A payload size that moves the footer start off its magic, or past the
     * leading magic. */
    data[len - 12] ^= 1;
    if (basalt_iceberg_puffin_parse(data, len, "f", &p, &err) != BASALT_CORRUPT || p ||
        !strstr(err.message, "expected magic at offset"))
        failures++;
    data[len - 12] ^= 1;
    data[len - 9] = 0x7f;
    if (basalt_iceberg_puffin_parse(data, len, "f", &p, &err) != BASALT_CORRUPT || p ||
        !strstr(err.message, "invalid footer size"))
        failures++;
    /* No trailing magic; no leading magic. */
    if (basalt_iceberg_puffin_parse(data, len - 1, "f", &p, &err) != BASALT_CORRUPT || p)
        failures++;
    if (basalt_iceberg_puffin_parse(data + 1, len - 1, "f", &p, &err) != BASALT_CORRUPT || p)
        failures++;
    basalt_free(data);
    CHECK_EQ(failures, 0);
}

TEST(puffin_deletion_vector_envelopes)
{
    struct {
        const char *file;
        const char *ref[2];
        uint64_t pos[2][5];
        uint32_t n[2];
        uint32_t blobs;
        uint32_t n_fields;
    } cases[] = {
        {"deletion-vectors/iceberg-go/single-blob-dv.puffin",
         {"s3://warehouse/db/table/data/00000-0-abc.parquet", NULL},
         {{1, 3, 5, 7, 9}},
         {5, 0},
         1,
         1},
        {"deletion-vectors/iceberg-go/multi-blob-dv.puffin",
         {"s3://warehouse/db/table/data/file-001.parquet",
          "s3://warehouse/db/table/data/file-002.parquet"},
         {{0, 100, 200}, {50, 150}},
         {3, 2},
         2,
         1},
        {"deletion-vectors/iceberg-go/deletion-vector-v1.puffin",
         {"data/test.parquet", NULL},
         {{1, 3, 5, 7, 9}},
         {5, 0},
         1,
         0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t len;
        uint8_t *data = read_rel(cases[c].file, &len);
        CHECK(data);
        struct basalt_error err;
        struct basalt_iceberg_puffin *p = NULL;
        basalt_status st = basalt_iceberg_puffin_parse(data, len, cases[c].file, &p, &err);
        const char *why = st != BASALT_OK ? "parse" : p->n_blobs != cases[c].blobs ? "blob count" : NULL;
        for (uint32_t b = 0; !why && b < p->n_blobs; b++) {
            const struct basalt_iceberg_puffin_blob *blob = &p->blobs[b];
            const char *ref = basalt_iceberg_puffin_blob_property(blob, "referenced-data-file");
            const char *card = basalt_iceberg_puffin_blob_property(blob, "cardinality");
            int k = -1;
            for (int x = 0; x < 2; x++)
                if (ref && cases[c].ref[x] && strcmp(ref, cases[c].ref[x]) == 0)
                    k = x;
            if (k < 0 || strcmp(blob->type, "deletion-vector-v1") || blob->compression_codec ||
                blob->snapshot_id != -1 || blob->sequence_number != -1 ||
                blob->n_fields != cases[c].n_fields ||
                (blob->n_fields && blob->fields[0] != 2147483645) || !card) {
                why = "blob metadata";
                break;
            }
            uint8_t *payload = NULL;
            size_t n = 0;
            struct basalt_iceberg_posset *set = NULL;
            uint64_t got[8];
            if (basalt_iceberg_puffin_blob_read(p, data, len, b, &payload, &n, &err) != BASALT_OK ||
                basalt_iceberg_dv_parse(payload, n, &set, &err) != BASALT_OK)
                why = "payload";
            else if (basalt_iceberg_posset_to_array(set, got, 8) != cases[c].n[k] ||
                     memcmp(got, cases[c].pos[k], cases[c].n[k] * sizeof got[0]) != 0 ||
                     (uint64_t)strtoull(card, NULL, 10) != cases[c].n[k])
                why = "positions";
            basalt_iceberg_posset_free(set);
            basalt_free(payload);
        }
        basalt_iceberg_puffin_free(p);
        basalt_free(data);
        CHECK_MSG(!why, "%s: %s %s", cases[c].file, why, err.message);
    }
}

TEST(puffin_rejects_bad_blobs)
{
    /* Hand-made: one blob running past the footer, then one with an unknown codec. */
    static const char *footers[] = {
        "{\"blobs\":[{\"type\":\"t\",\"fields\":[],\"snapshot-id\":1,\"sequence-number\":1,"
        "\"offset\":4,\"length\":100}]}",
        "{\"blobs\":[{\"type\":\"t\",\"fields\":[1],\"snapshot-id\":1,\"sequence-number\":1,"
        "\"offset\":4,\"length\":2,\"compression-codec\":\"brotli\"}]}",
        "{\"blobs\":[{\"type\":\"t\",\"fields\":[\"x\"],\"snapshot-id\":1,\"sequence-number\":1,"
        "\"offset\":4,\"length\":2}]}",
        "{\"blobs\":{}}",
        "not json",
    };
    static const basalt_status parse_status[] = {BASALT_CORRUPT, BASALT_OK, BASALT_CORRUPT,
                                                 BASALT_CORRUPT, BASALT_CORRUPT};
    int failures = 0;
    for (size_t i = 0; i < sizeof footers / sizeof footers[0]; i++) {
        uint8_t buf[512];
        size_t n = strlen(footers[i]), pos = 0;
        memcpy(buf, "PFA1xyPFA1", 10);
        pos = 10;
        memcpy(buf + pos, footers[i], n);
        pos += n;
        buf[pos++] = (uint8_t)n;
        buf[pos++] = (uint8_t)(n >> 8);
        buf[pos++] = 0;
        buf[pos++] = 0;
        memset(buf + pos, 0, 4);
        pos += 4;
        memcpy(buf + pos, "PFA1", 4);
        pos += 4;
        struct basalt_error err;
        struct basalt_iceberg_puffin *p = NULL;
        basalt_status st = basalt_iceberg_puffin_parse(buf, pos, "hand", &p, &err);
        if (st != parse_status[i])
            failures++;
        if (st == BASALT_OK) {
            uint8_t *out = NULL;
            size_t out_len;
            if (basalt_iceberg_puffin_blob_read(p, buf, pos, 0, &out, &out_len, &err) !=
                BASALT_UNSUPPORTED)
                failures++;
            basalt_free(out);
        }
        basalt_iceberg_puffin_free(p);
    }
    CHECK_EQ(failures, 0);
}

/* Built with the lz4 command-line tool (an independent writer): a blob
 * compressed as an LZ4 frame and a footer payload compressed likewise
 * (flag bit 0), holding {"k":"v"} and one blob of type "t". */
static const uint8_t lz4_puffin[] = {
    0x50, 0x46, 0x41, 0x31, 0x04, 0x22, 0x4d, 0x18, 0x64, 0x40, 0xa7, 0x1a,
    0x00, 0x00, 0x00, 0xff, 0x00, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x20, 0x6c,
    0x7a, 0x34, 0x20, 0x62, 0x6c, 0x6f, 0x62, 0x20, 0x0f, 0x00, 0x05, 0x50,
    0x20, 0x62, 0x6c, 0x6f, 0x62, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x52, 0x2e,
    0x2c, 0x50, 0x46, 0x41, 0x31, 0x04, 0x22, 0x4d, 0x18, 0x64, 0x40, 0xa7,
    0x91, 0x00, 0x00, 0x80, 0x7b, 0x22, 0x62, 0x6c, 0x6f, 0x62, 0x73, 0x22,
    0x3a, 0x5b, 0x7b, 0x22, 0x74, 0x79, 0x70, 0x65, 0x22, 0x3a, 0x22, 0x74,
    0x22, 0x2c, 0x22, 0x66, 0x69, 0x65, 0x6c, 0x64, 0x73, 0x22, 0x3a, 0x5b,
    0x37, 0x5d, 0x2c, 0x22, 0x73, 0x6e, 0x61, 0x70, 0x73, 0x68, 0x6f, 0x74,
    0x2d, 0x69, 0x64, 0x22, 0x3a, 0x33, 0x2c, 0x22, 0x73, 0x65, 0x71, 0x75,
    0x65, 0x6e, 0x63, 0x65, 0x2d, 0x6e, 0x75, 0x6d, 0x62, 0x65, 0x72, 0x22,
    0x3a, 0x34, 0x2c, 0x22, 0x6f, 0x66, 0x66, 0x73, 0x65, 0x74, 0x22, 0x3a,
    0x34, 0x2c, 0x22, 0x6c, 0x65, 0x6e, 0x67, 0x74, 0x68, 0x22, 0x3a, 0x34,
    0x35, 0x2c, 0x22, 0x63, 0x6f, 0x6d, 0x70, 0x72, 0x65, 0x73, 0x73, 0x69,
    0x6f, 0x6e, 0x2d, 0x63, 0x6f, 0x64, 0x65, 0x63, 0x22, 0x3a, 0x22, 0x6c,
    0x7a, 0x34, 0x22, 0x7d, 0x5d, 0x2c, 0x22, 0x70, 0x72, 0x6f, 0x70, 0x65,
    0x72, 0x74, 0x69, 0x65, 0x73, 0x22, 0x3a, 0x7b, 0x22, 0x6b, 0x22, 0x3a,
    0x22, 0x76, 0x22, 0x7d, 0x7d, 0x00, 0x00, 0x00, 0x00, 0xe8, 0x9b, 0x32,
    0x1f, 0xa4, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x50, 0x46, 0x41,
    0x31,
};

TEST(puffin_lz4_footer_and_blob)
{
    struct basalt_error err;
    struct basalt_iceberg_puffin *p = NULL;
    CHECK_OK(basalt_iceberg_puffin_parse(lz4_puffin, sizeof lz4_puffin, "lz4", &p, &err), &err);
    uint8_t *out = NULL;
    size_t n = 0;
    basalt_status st = p->n_blobs == 1 ? basalt_iceberg_puffin_blob_read(p, lz4_puffin,
                                                                         sizeof lz4_puffin, 0, &out,
                                                                         &n, &err)
                                       : BASALT_INTERNAL;
    static const char text[] = "hello lz4 blob hello lz4 blob hello lz4 blob";
    bool ok = st == BASALT_OK && n == sizeof text - 1 && memcmp(out, text, n) == 0 &&
              p->n_properties == 1 && strcmp(p->properties[0].value, "v") == 0 &&
              strcmp(p->blobs[0].compression_codec, "lz4") == 0 && p->blobs[0].fields[0] == 7 &&
              p->blobs[0].snapshot_id == 3 && p->blobs[0].sequence_number == 4;
    basalt_free(out);
    basalt_iceberg_puffin_free(p);
    CHECK_MSG(ok, "%s", err.message);
}

struct sweep_ctx {
    const uint8_t *data;
    size_t len;
};

static basalt_status puffin_attempt(void *p)
{
    struct sweep_ctx *c = p;
    struct basalt_iceberg_puffin *puffin = NULL;
    basalt_status st = basalt_iceberg_puffin_parse(c->data, c->len, "x", &puffin, NULL);
    for (uint32_t i = 0; st == BASALT_OK && i < puffin->n_blobs; i++) {
        uint8_t *out = NULL;
        size_t n;
        st = basalt_iceberg_puffin_blob_read(puffin, c->data, c->len, i, &out, &n, NULL);
        basalt_free(out);
    }
    basalt_iceberg_puffin_free(puffin);
    return st;
}

TEST(puffin_allocation_failure_sweep)
{
    size_t len;
    uint8_t *data = read_rel("puffin/apache-iceberg/v1/sample-metric-data-compressed-zstd.bin", &len);
    CHECK(data);
    struct sweep_ctx c = {data, len};
    int64_t attempts = bt_alloc_failure_sweep(__FILE__, __LINE__, puffin_attempt, &c);
    basalt_free(data);
    CHECK(attempts > 3);
}
