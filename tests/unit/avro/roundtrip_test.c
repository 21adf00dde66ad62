/* Files written by basalt (seeded random schemas and data, every codec) read
 * back by basalt, by python3-avro (tests/avro/pyavro_dump.py) and by avro-c's
 * avrocat, compared as canonical JSON lines (tests/avro/canon_json.py). */
#include <stdlib.h>
#include <sys/stat.h>

#include "random_gen.h"
#include "test.h"

#define PY "/usr/bin/python3"
#define SCRIPTS BASALT_TEST_SOURCE_DIR "/tests/avro"
#define SCHEMAS 10
#define RECORDS 30

static bool write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

static char *read_text(const char *path)
{
    size_t len;
    uint8_t *data = bt_read_file(path, &len);
    if (!data)
        return NULL;
    char *s = basalt_malloc(len + 1);
    memcpy(s, data, len);
    s[len] = '\0';
    basalt_free(data);
    return s;
}

static bool same_text(const char *a, const char *b, char *why, size_t cap)
{
    char *x = read_text(a), *y = read_text(b);
    bool same = x && y && strcmp(x, y) == 0;
    snprintf(why, cap, "%s vs %s", x ? "" : "missing", y ? "" : "missing");
    basalt_free(x);
    basalt_free(y);
    return same;
}

/* Reads a file back with basalt's reader, as JSON lines. */
static basalt_status reread(const struct basalt_buffer *file, struct basalt_buffer *out)
{
    struct basalt_avro_reader *r;
    basalt_status st = basalt_avro_reader_new(file->data, file->size, NULL, &r, NULL);
    if (st != BASALT_OK)
        return st;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    for (;;) {
        struct basalt_avro_value v;
        bool has;
        st = basalt_avro_reader_next_value(r, NULL, &arena, &v, &has, NULL);
        if (st != BASALT_OK || !has)
            break;
        basalt_avro_value_to_json(&v, 0, out, NULL);
        basalt_buffer_append(out, "\n", 1, NULL);
        basalt_arena_reset(&arena);
    }
    basalt_arena_reset(&arena);
    basalt_avro_reader_free(r);
    return st;
}

TEST(roundtrip_random_files_read_by_python_and_avrocat)
{
    char dir[] = "/tmp/basalt-avro-rt-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    struct bt_rng rng;
    bt_rng_seed(&rng, 77);
    char path[512], cmd[8192];
    struct basalt_buffer py_files, avrocat_cmds;
    basalt_buffer_init(&py_files);
    basalt_buffer_init(&avrocat_cmds);
    bool ok = true;
    int files = 0;
    for (int s = 0; s < SCHEMAS && ok; s++) {
        rg_avrocat_safe = s % 2 == 1;
        struct basalt_buffer json, lines;
        basalt_buffer_init(&json);
        basalt_buffer_init(&lines);
        rg_schema_json(&rng, 3, &json);
        struct basalt_avro_schema *schema;
        struct basalt_error err;
        CHECK_OK(basalt_avro_schema_parse((const char *)json.data, json.size, NULL, &schema, &err),
                 &err);
        json.size = 0;
        CHECK_OK(basalt_avro_schema_to_json(schema, true, &json, &err), &err);
        snprintf(path, sizeof path, "%s/s%d.avsc", dir, s);
        CHECK(write_file(path, json.data, json.size));
        struct basalt_arena arena;
        basalt_arena_init(&arena, 16384);
        struct basalt_avro_value values[RECORDS];
        for (int i = 0; i < RECORDS; i++) {
            rg_value(&rng, basalt_avro_schema_root(schema), &arena, 4, &values[i]);
            CHECK_OK(basalt_avro_value_to_json(&values[i], 0, &lines, &err), &err);
            basalt_buffer_append(&lines, "\n", 1, NULL);
        }
        snprintf(path, sizeof path, "%s/s%d.jsonl", dir, s);
        CHECK(write_file(path, lines.data, lines.size));
        for (int codec = 0; codec < BASALT_AVRO_CODEC_COUNT && ok; codec++) {
            struct basalt_buffer file, back;
            basalt_buffer_init(&file);
            basalt_buffer_init(&back);
            struct basalt_avro_writer_options o;
            basalt_avro_writer_options_init(&o);
            o.codec = (enum basalt_avro_codec)codec;
            o.block_bytes = 200 + bt_rng_below(&rng, 400);
            struct basalt_avro_writer *w;
            CHECK_OK(basalt_avro_writer_new(schema, &o, basalt_avro_write_to_buffer, &file, &w, &err),
                     &err);
            for (int i = 0; i < RECORDS; i++)
                CHECK_OK(basalt_avro_writer_append(w, &values[i], &err), &err);
            CHECK_OK(basalt_avro_writer_close(w, &err), &err);
            /* basalt reads it back */
            CHECK_OK(reread(&file, &back), NULL);
            if (back.size != lines.size || memcmp(back.data, lines.data, lines.size) != 0) {
                bt_fail(__FILE__, __LINE__, "schema %d codec %s: basalt reads back other records", s,
                        basalt_avro_codec_name(o.codec));
                ok = false;
            }
            snprintf(path, sizeof path, "%s/s%d-%s.avro", dir, s, basalt_avro_codec_name(o.codec));
            CHECK(write_file(path, file.data, file.size));
            basalt_buffer_append(&py_files, " ", 1, NULL);
            basalt_buffer_append(&py_files, path, strlen(path), NULL);
            files++;
            if (rg_avrocat_safe && codec <= BASALT_AVRO_CODEC_SNAPPY) {
                snprintf(cmd, sizeof cmd, "avrocat %s > %s.avrocat 2> %s.avrocat.err;", path, path,
                         path);
                basalt_buffer_append(&avrocat_cmds, cmd, strlen(cmd), NULL);
            }
            basalt_buffer_reset(&file);
            basalt_buffer_reset(&back);
        }
        basalt_arena_reset(&arena);
        basalt_buffer_reset(&json);
        basalt_buffer_reset(&lines);
        basalt_avro_schema_free(schema);
    }
    rg_avrocat_safe = false;
    basalt_buffer_append(&py_files, "", 1, NULL);
    basalt_buffer_append(&avrocat_cmds, "", 1, NULL);
    /* python3-avro reads every file; our records and avrocat's are
     * canonicalised the same way. */
    snprintf(cmd, sizeof cmd, PY " " SCRIPTS "/pyavro_dump.py --each%s && " PY " " SCRIPTS
             "/canon_json.py --each %s/*.jsonl",
             (const char *)py_files.data, dir);
    int rc = system(cmd);
    CHECK_MSG(rc == 0, "python failed: %s", cmd);
    rc = system((const char *)avrocat_cmds.data);
    for (int s = 1; s < SCHEMAS; s += 2) {
        snprintf(cmd, sizeof cmd, PY " " SCRIPTS "/canon_json.py --each-unwrap %s/s%d.avsc %s/s%d-*.avrocat",
                 dir, s, dir, s);
        CHECK_MSG(system(cmd) == 0, "canon_json failed: %s", cmd);
    }
    int python_ok = 0, avrocat_ok = 0;
    for (int s = 0; s < SCHEMAS && ok; s++) {
        char ours[512];
        snprintf(ours, sizeof ours, "%s/s%d.jsonl.canon", dir, s);
        for (int codec = 0; codec < BASALT_AVRO_CODEC_COUNT; codec++) {
            const char *name = basalt_avro_codec_name((enum basalt_avro_codec)codec);
            char why[64];
            snprintf(path, sizeof path, "%s/s%d-%s.avro.py", dir, s, name);
            if (!same_text(ours, path, why, sizeof why)) {
                snprintf(path, sizeof path, "%s/s%d-%s.avro.py.err", dir, s, name);
                char *e = read_text(path);
                bt_fail(__FILE__, __LINE__, "schema %d codec %s: python3-avro reads other records %s",
                        s, name, e ? e : why);
                basalt_free(e);
                ok = false;
                break;
            }
            python_ok++;
            if (s % 2 == 0 || codec > BASALT_AVRO_CODEC_SNAPPY)
                continue;
            snprintf(path, sizeof path, "%s/s%d-%s.avro.avrocat.err", dir, s, name);
            char *e = read_text(path);
            bool quiet = e && e[0] == '\0';
            basalt_free(e);
            snprintf(path, sizeof path, "%s/s%d-%s.avro.avrocat.canon", dir, s, name);
            if (!quiet || !same_text(ours, path, why, sizeof why)) {
                bt_fail(__FILE__, __LINE__, "schema %d codec %s: avrocat reads other records", s,
                        name);
                ok = false;
                break;
            }
            avrocat_ok++;
        }
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (ok)
        rc = system(cmd);
    basalt_buffer_reset(&py_files);
    basalt_buffer_reset(&avrocat_cmds);
    CHECK(ok);
    CHECK_EQ(files, SCHEMAS * BASALT_AVRO_CODEC_COUNT);
    CHECK_EQ(python_ok, SCHEMAS * BASALT_AVRO_CODEC_COUNT);
    CHECK_EQ(avrocat_ok, SCHEMAS / 2 * 3);
}
