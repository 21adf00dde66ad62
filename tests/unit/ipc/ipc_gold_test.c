/* The Arrow integration gold files: every case of every producer version,
 * in the stream and the file format, read and compared value by value with
 * its .json.gz (tests/unit/ipc/ipc_json.c reads the JSON independently).
 * Then written back by basalt's writer (stream and file, uncompressed, LZ4
 * and ZSTD), read again and compared with the JSON again. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipc_json.h"
#include "test.h"

static const char *const gold_dirs[] = {
    "cpp-21.0.0",        "1.0.0-littleendian", "1.0.0-bigendian", "2.0.0-compression",
    "4.0.0-shareddict",  "0.17.1",             "0.14.1",
};

/* Cases this library does not read, each with its reason. Counted and
 * printed; a listed case that starts passing fails the test so the list
 * stays true. */
static const struct {
    const char *dir, *name, *reason;
} unsupported[] = {
    {NULL, NULL, NULL},
};

static const char *unsupported_reason(const char *dir, const char *name)
{
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
        if (unsupported[i].dir && !strcmp(unsupported[i].dir, dir) &&
            !strcmp(unsupported[i].name, name))
            return unsupported[i].reason;
    return NULL;
}

typedef void (*case_fn)(const char *dir, const char *name, const char *base, json_t *doc,
                        int *passed, int *skipped);

static void for_each_case(case_fn fn, int *passed, int *skipped)
{
    for (size_t d = 0; d < sizeof gold_dirs / sizeof gold_dirs[0]; d++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/arrow-ipc/integration/%s", BASALT_TEST_DATA_DIR,
                 gold_dirs[d]);
        DIR *dh = opendir(dir);
        CHECK_MSG(dh != NULL, "%s", dir);
        if (!dh)
            continue;
        struct dirent *e;
        char names[128][128];
        int n = 0;
        while ((e = readdir(dh)) && n < 128) {
            const char *dot = strstr(e->d_name, ".json.gz");
            if (dot && dot[8] == '\0') {
                snprintf(names[n], sizeof names[n], "%.*s", (int)(dot - e->d_name), e->d_name);
                n++;
            }
        }
        closedir(dh);
        for (int i = 0; i < n; i++) {
            char base[1280], json[1400];
            snprintf(base, sizeof base, "%.1023s/%.127s", dir, names[i]);
            snprintf(json, sizeof json, "%s.json.gz", base);
            json_t *doc = ij_load(json);
            CHECK_MSG(doc != NULL, "%s", json);
            if (doc)
                fn(gold_dirs[d], names[i], base, doc, passed, skipped);
            json_decref(doc);
        }
    }
}

static int read_and_compare(const char *path, bool mmap, json_t *doc, char *why, size_t len)
{
    struct basalt_ipc_read_options o;
    basalt_ipc_read_options_init(&o);
    o.use_mmap = mmap;
    struct basalt_ipc_reader *r;
    struct basalt_error err;
    if (basalt_ipc_reader_open_file(path, &o, &r, &err) != BASALT_OK) {
        snprintf(why, len, "open: %s", err.message);
        return -1;
    }
    int rc = ij_compare_reader(r, doc, why, len);
    basalt_ipc_reader_close(r);
    return rc;
}

static void read_case(const char *dir, const char *name, const char *base, json_t *doc,
                      int *passed, int *skipped)
{
    static const char *const ext[] = {".stream", ".arrow_file"};
    const char *reason = unsupported_reason(dir, name);
    for (int f = 0; f < 2; f++) {
        for (int mm = 0; mm < 2; mm++) {
            char path[1400], why[1024] = "";
            snprintf(path, sizeof path, "%s%s", base, ext[f]);
            int rc = read_and_compare(path, mm == 1, doc, why, sizeof why);
            if (reason) {
                CHECK_MSG(rc != 0, "%s/%s%s is listed unsupported (%s) but reads correctly", dir,
                          name, ext[f], reason);
                (*skipped)++;
                continue;
            }
            if (rc != 0)
                printf("    FAILED %s/%s%s (%s): %s\n", dir, name, ext[f],
                       mm ? "mapped" : "read", why);
            CHECK_MSG(rc == 0, "%s/%s%s (%s): %s", dir, name, ext[f], mm ? "mapped" : "read",
                      why);
            *passed += rc == 0;
        }
    }
}

TEST(ipc_gold_files_match_their_json)
{
    int passed = 0, skipped = 0;
    for_each_case(read_case, &passed, &skipped);
    printf("    gold reads: %d passed, %d unsupported (listed)\n", passed, skipped);
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
        if (unsupported[i].dir)
            printf("    unsupported: %s/%s: %s\n", unsupported[i].dir, unsupported[i].name,
                   unsupported[i].reason);
    CHECK(passed >= 280);
}

/* Reads `path` and writes every batch with `o` into memory; *out owns the bytes. */
static basalt_status rewrite(const char *path, const struct basalt_ipc_write_options *o,
                             uint8_t **out, size_t *len, struct basalt_error *err)
{
    struct basalt_ipc_reader *r;
    basalt_status st = basalt_ipc_reader_open_file(path, NULL, &r, err);
    if (st != BASALT_OK)
        return st;
    struct ArrowArrayStream stream;
    st = basalt_ipc_reader_to_stream(r, &stream, err);
    struct basalt_output *mem = NULL;
    if (st == BASALT_OK)
        st = basalt_output_open_memory("rewrite", &mem, err);
    if (st == BASALT_OK)
        st = basalt_ipc_write_stream(&stream, mem, o, err);
    else
        basalt_arrow_stream_release(&stream);
    if (st == BASALT_OK)
        st = basalt_output_commit(mem, err);
    if (st == BASALT_OK)
        *out = basalt_output_memory_take(mem, len);
    basalt_output_close(mem);
    return st;
}

static void roundtrip_case(const char *dir, const char *name, const char *base, json_t *doc,
                           int *passed, int *skipped)
{
    if (unsupported_reason(dir, name)) {
        (*skipped)++;
        return;
    }
    static const enum basalt_codec_kind codecs[] = {BASALT_CODEC_UNCOMPRESSED,
                                                    BASALT_CODEC_LZ4_FRAME, BASALT_CODEC_ZSTD};
    char path[1400];
    snprintf(path, sizeof path, "%s.arrow_file", base);
    for (int f = 0; f < 2; f++) {
        for (int k = 0; k < 3; k++) {
            struct basalt_ipc_write_options o;
            basalt_ipc_write_options_init(&o);
            o.format = f ? BASALT_IPC_FORMAT_FILE : BASALT_IPC_FORMAT_STREAM;
            o.compression = codecs[k];
            o.alignment = k == 1 ? 8 : 64;
            uint8_t *bytes = NULL;
            size_t len = 0;
            struct basalt_error err;
            basalt_status st = rewrite(path, &o, &bytes, &len, &err);
            char why[1024] = "";
            int rc = -1;
            if (st != BASALT_OK) {
                snprintf(why, sizeof why, "write: %s", err.message);
            } else {
                struct basalt_ipc_reader *r;
                if (basalt_ipc_reader_open_memory(bytes, len, name, NULL, &r, &err) != BASALT_OK) {
                    snprintf(why, sizeof why, "reopen: %s", err.message);
                } else {
                    rc = ij_compare_reader(r, doc, why, sizeof why);
                    if (rc == 0 && basalt_ipc_reader_format(r) != o.format)
                        rc = -1, snprintf(why, sizeof why, "format not kept");
                    basalt_ipc_reader_close(r);
                }
            }
            basalt_free(bytes);
            if (rc != 0)
                printf("    FAILED rewrite %s/%s as %s/%s: %s\n", dir, name,
                       f ? "file" : "stream", basalt_codec_name(codecs[k]), why);
            CHECK_MSG(rc == 0, "rewrite %s/%s: %s", dir, name, why);
            *passed += rc == 0;
        }
    }
}

TEST(ipc_gold_files_written_back_match_their_json)
{
    int passed = 0, skipped = 0;
    for_each_case(roundtrip_case, &passed, &skipped);
    printf("    rewrites: %d passed, %d cases unsupported (listed)\n", passed, skipped);
    CHECK(passed >= 420);
}
