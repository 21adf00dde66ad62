/* Dictionaries the IPC writer sends: one that only gains entries at its end
 * goes out as a delta holding just the new entries, one that changes
 * otherwise as a replacement (stream format; the file format refuses it),
 * an unchanged one not at all; a reader applying those messages sees every
 * batch's own dictionary. With apache-arrow installed (node), the same
 * stream and file are read by it too and must give the same strings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basalt/ipc.h"
#include "test.h"

/* A batch of one dictionary-encoded string column "d": int32 indices into
 * the dictionary `words` (n_words entries). */
struct dict_batch {
    struct ArrowArray batch, column, dict;
    struct ArrowArray *children[1];
    const void *batch_buffers[1], *column_buffers[2], *dict_buffers[3];
    int32_t indices[8];
    int32_t offsets[9];
    char chars[64];
};

static void release_nothing(struct ArrowArray *a)
{
    a->release = NULL;
}

static void dict_batch_make(struct dict_batch *b, const char *const *words, int n_words,
                            const int32_t *indices, int n)
{
    memset(b, 0, sizeof *b);
    int32_t at = 0;
    for (int i = 0; i < n_words; i++) {
        b->offsets[i] = at;
        size_t len = strlen(words[i]);
        memcpy(b->chars + at, words[i], len);
        at += (int32_t)len;
    }
    b->offsets[n_words] = at;
    memcpy(b->indices, indices, (size_t)n * sizeof *indices);
    b->dict_buffers[1] = b->offsets;
    b->dict_buffers[2] = b->chars;
    b->dict = (struct ArrowArray){.length = n_words, .n_buffers = 3, .buffers = b->dict_buffers,
                                  .release = release_nothing};
    b->column_buffers[1] = b->indices;
    b->column = (struct ArrowArray){.length = n, .n_buffers = 2, .buffers = b->column_buffers,
                                    .dictionary = &b->dict, .release = release_nothing};
    b->children[0] = &b->column;
    b->batch = (struct ArrowArray){.length = n, .n_buffers = 1, .buffers = b->batch_buffers,
                                   .n_children = 1, .children = b->children,
                                   .release = release_nothing};
}

static void release_schema_nothing(struct ArrowSchema *s)
{
    s->release = NULL;
}

static struct ArrowSchema dict_schema, dict_field, dict_values, *dict_fields[1] = {&dict_field};

static void schema_make(void)
{
    dict_values = (struct ArrowSchema){.format = "u", .name = "", .release = release_schema_nothing};
    dict_field = (struct ArrowSchema){.format = "i", .name = "d", .dictionary = &dict_values,
                                      .release = release_schema_nothing};
    dict_schema = (struct ArrowSchema){.format = "+s", .name = "", .n_children = 1,
                                       .children = dict_fields, .release = release_schema_nothing};
}

/* The batches: a b | a b c (delta) | a b c (unchanged) | x y (replacement). */
static const char *const words1[] = {"a", "b"}, *const words2[] = {"a", "b", "c"},
                         *const words4[] = {"x", "y"};
static const int32_t idx1[] = {1, 0, 1}, idx2[] = {2, 0}, idx3[] = {2, 2, 1}, idx4[] = {1, 0};
static const char *const expected[] = {"b", "a", "b", "c", "a", "c", "c", "b", "y", "x"};

static uint8_t *write_batches(int n_batches, const struct basalt_ipc_write_options *o,
                              basalt_status *last_status, size_t *len, struct basalt_error *err)
{
    schema_make();
    *last_status = BASALT_INTERNAL;
    struct basalt_output *out;
    struct basalt_ipc_writer *w;
    if (basalt_output_open_memory("dict.arrows", &out, err) != BASALT_OK)
        return NULL;
    if (basalt_ipc_writer_open(out, &dict_schema, o, &w, err) != BASALT_OK) {
        basalt_output_close(out);
        return NULL;
    }
    struct dict_batch b;
    *last_status = BASALT_OK;
    for (int k = 0; k < n_batches && *last_status == BASALT_OK; k++) {
        if (k == 0)
            dict_batch_make(&b, words1, 2, idx1, 3);
        else if (k == 1)
            dict_batch_make(&b, words2, 3, idx2, 2);
        else if (k == 2)
            dict_batch_make(&b, words2, 3, idx3, 3);
        else
            dict_batch_make(&b, words4, 2, idx4, 2);
        *last_status = basalt_ipc_writer_write(w, &b.batch, err);
    }
    if (*last_status == BASALT_OK)
        *last_status = basalt_ipc_writer_finish(w, err);
    if (*last_status == BASALT_OK)
        *last_status = basalt_output_commit(out, err);
    basalt_ipc_writer_free(w);
    uint8_t *bytes = *last_status == BASALT_OK ? basalt_output_memory_take(out, len) : NULL;
    basalt_output_close(out);
    return bytes;
}

/* Reads every batch's strings through its own dictionary into `got`; the
 * count, or -1 (reported) on an error. */
static int read_strings(const uint8_t *bytes, size_t len, char got[][8], int cap,
                        struct basalt_ipc_read_stats *stats)
{
    struct basalt_error err;
    struct basalt_ipc_reader *r;
    memset(stats, 0, sizeof *stats);
    if (!bytes || basalt_ipc_reader_open_memory(bytes, len, "dict", NULL, &r, &err) != BASALT_OK) {
        bt_fail(__FILE__, __LINE__, "open: %s", bytes ? bt_error_text(&err) : "no bytes");
        return -1;
    }
    int n = 0;
    for (;;) {
        struct ArrowArray b;
        if (basalt_ipc_reader_next(r, &b, &err) != BASALT_OK) {
            bt_fail(__FILE__, __LINE__, "next: %s", bt_error_text(&err));
            n = -1;
            break;
        }
        if (!b.release)
            break;
        const struct ArrowArray *c = b.children[0], *d = c->dictionary;
        const int32_t *o = d->buffers[1];
        for (int64_t i = 0; i < c->length && n < cap; i++, n++) {
            int32_t k = ((const int32_t *)c->buffers[1])[c->offset + i];
            snprintf(got[n], 8, "%.*s", o[k + 1] - o[k], (const char *)d->buffers[2] + o[k]);
        }
        b.release(&b);
    }
    basalt_ipc_reader_stats(r, stats);
    basalt_ipc_reader_close(r);
    return n;
}

static void check_strings(char got[][8], int n)
{
    CHECK_EQ(n, 10);
    for (int i = 0; i < n && i < 10; i++)
        CHECK_MSG(strcmp(got[i], expected[i]) == 0, "value %d: %s, expected %s", i, got[i],
                  expected[i]);
}

/* apache-arrow reads `path` (format as named) and gives the same strings. */
static void check_with_apache_arrow(const uint8_t *bytes, size_t len, const char *name,
                                    const char *want)
{
    char path[256], cmd[1024];
    snprintf(path, sizeof path, "/tmp/basalt-dict-%d-%s", (int)getpid(), name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    fwrite(bytes, 1, len, f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && node -e \"import('apache-arrow').then(a => {"
             " const t = a.tableFromIPC(require('fs').readFileSync('%s'));"
             " process.stdout.write(t.getChild('d').toArray().join(','));"
             " })\" > '%s.out' 2>&1",
             BASALT_TEST_SOURCE_DIR, path, path);
    int rc = system(cmd);
    char out_path[300], line[256] = {0};
    snprintf(out_path, sizeof out_path, "%s.out", path);
    FILE *o = fopen(out_path, "r");
    if (o) {
        if (!fgets(line, sizeof line, o))
            line[0] = 0;
        fclose(o);
    }
    CHECK_MSG(rc == 0 && strcmp(line, want) == 0,
              "apache-arrow read %s as '%s' (exit %d)", name, line, rc);
    unlink(path);
    unlink(out_path);
}

static bool have_apache_arrow(void)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/node_modules/apache-arrow/package.json", BASALT_TEST_SOURCE_DIR);
    FILE *f = fopen(dir, "r");
    if (f)
        fclose(f);
    const char *require = getenv("BASALT_REQUIRE_PEERS");
    if (!f && require && !strcmp(require, "1"))
        bt_fail(__FILE__, __LINE__, "apache-arrow is not installed (scripts/setup installs it)");
    return f != NULL;
}

TEST(ipc_dictionary_that_grows_is_written_as_a_delta)
{
    struct basalt_ipc_write_options o;
    basalt_ipc_write_options_init(&o);
    struct basalt_error err;
    basalt_status st = BASALT_OK;
    size_t len = 0;
    uint8_t *bytes = write_batches(4, &o, &st, &len, &err);
    CHECK_OK(st, &err);
    char got[16][8];
    struct basalt_ipc_read_stats stats;
    check_strings(got, read_strings(bytes, len, got, 16, &stats));
    /* a b; the delta (c); x y: three dictionary messages, one a delta. */
    CHECK_EQ(stats.dictionary_batches, 3);
    CHECK_EQ(stats.dictionary_deltas, 1);
    if (bytes && have_apache_arrow())
        check_with_apache_arrow(bytes, len, "delta.arrows", "b,a,b,c,a,c,c,b,y,x");
    basalt_free(bytes);

    /* Without deltas the grown dictionary goes whole. */
    o.dictionary_deltas = false;
    bytes = write_batches(4, &o, &st, &len, &err);
    CHECK_OK(st, &err);
    check_strings(got, read_strings(bytes, len, got, 16, &stats));
    CHECK_EQ(stats.dictionary_batches, 3);
    CHECK_EQ(stats.dictionary_deltas, 0);
    basalt_free(bytes);
}

TEST(ipc_file_format_takes_deltas_and_refuses_replacements)
{
    struct basalt_ipc_write_options o;
    basalt_ipc_write_options_init(&o);
    o.format = BASALT_IPC_FORMAT_FILE;
    struct basalt_error err;
    basalt_status st = BASALT_OK;
    size_t len = 0;
    /* The first three batches: one dictionary and a delta. */
    uint8_t *bytes = write_batches(3, &o, &st, &len, &err);
    CHECK_OK(st, &err);
    char got[16][8];
    struct basalt_ipc_read_stats stats;
    int n = read_strings(bytes, len, got, 16, &stats);
    CHECK_EQ(n, 8);
    for (int i = 0; i < n && i < 8; i++)
        CHECK_MSG(strcmp(got[i], expected[i]) == 0, "value %d: %s, expected %s", i, got[i],
                  expected[i]);
    CHECK_EQ(stats.dictionary_deltas, 1);
    if (bytes && have_apache_arrow())
        check_with_apache_arrow(bytes, len, "delta.arrow", "b,a,b,c,a,c,c,b");
    basalt_free(bytes);
    /* The fourth replaces the dictionary: refused, by name. */
    bytes = write_batches(4, &o, &st, &len, &err);
    CHECK_STATUS(st, BASALT_UNSUPPORTED, &err);
    CHECK(strstr(err.message, "allows no replacement") != NULL);
    basalt_free(bytes);
}
