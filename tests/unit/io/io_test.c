#include "test.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basalt/io.h"

static void temp_path(char *buf, size_t cap, const char *leaf)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, cap, "%s/basalt-io-%ld-%s", dir && *dir ? dir : "/tmp", (long)getpid(), leaf);
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

TEST(memory_input_reads_and_bounds)
{
    const char data[] = "0123456789";
    struct basalt_input *in;
    struct basalt_error err;
    CHECK_OK(basalt_input_open_memory(data, 10, "mem.bin", &in, &err), &err);
    CHECK_EQ(in->size, 10);
    char buf[16] = {0};
    CHECK_OK(basalt_input_read_at(in, 3, 4, buf, &err), &err);
    CHECK_STR(buf, "3456");
    CHECK_STATUS(basalt_input_read_at(in, 8, 3, buf, &err), BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "mem.bin") != NULL);
    CHECK_STATUS(basalt_input_read_at(in, UINT64_MAX, 2, buf, &err), BASALT_CORRUPT, &err);
    CHECK(basalt_input_view(in) == (const uint8_t *)data);
    char a[2], b[3];
    struct basalt_io_range ranges[2] = {{0, 2, a}, {7, 3, b}};
    CHECK_OK(basalt_input_read_ranges(in, ranges, 2, &err), &err);
    CHECK_MEM(a, "01", 2);
    CHECK_MEM(b, "789", 3);
    basalt_input_close(in);
    basalt_input_close(NULL);
}

static void check_file_input(bool use_mmap)
{
    char path[256];
    temp_path(path, sizeof path, use_mmap ? "in-mmap" : "in-pread");
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    uint8_t content[100000];
    struct bt_rng rng;
    bt_rng_seed(&rng, 5);
    bt_rng_fill(&rng, content, sizeof content);
    CHECK(fwrite(content, 1, sizeof content, f) == sizeof content);
    fclose(f);

    struct basalt_input *in;
    struct basalt_error err;
    CHECK_OK(basalt_input_open_file(path, use_mmap, &in, &err), &err);
    CHECK_EQ(in->size, sizeof content);
    CHECK(use_mmap ? basalt_input_view(in) != NULL : basalt_input_view(in) == NULL);
    uint8_t buf[5000];
    for (int i = 0; i < 50; i++) {
        uint64_t off = bt_rng_below(&rng, sizeof content - sizeof buf);
        uint64_t len = bt_rng_below(&rng, sizeof buf);
        CHECK_OK(basalt_input_read_at(in, off, len, buf, &err), &err);
        CHECK_MEM(buf, content + off, len);
    }
    CHECK_STATUS(basalt_input_read_at(in, sizeof content - 1, 2, buf, &err), BASALT_CORRUPT, &err);
    basalt_input_close(in);
    unlink(path);
}

TEST(file_input_pread) { check_file_input(false); }
TEST(file_input_mmap) { check_file_input(true); }

/* A mapped file read through its view is resident; released, its pages
 * leave the resident set, and reading them again gives the same bytes.
 * Memory inputs ignore the call (their bytes are the caller's). */
/* basalt_input_spool copies an input (here one over memory, 9 MiB and some:
 * several of read_stream's pieces) into an unlinked file in the given
 * directory and maps it: the same bytes, a view, the source's name, and no
 * name left in the directory; an empty input spools to an empty one; a
 * directory that does not exist fails with IO naming it. */
TEST(input_spool_copies_into_an_unlinked_mapped_file)
{
    char dir[256];
    temp_path(dir, sizeof dir, "spool-dir");
    CHECK(mkdir(dir, 0700) == 0);
    const size_t size = (9u << 20) + 12345;
    uint8_t *content = malloc(size);
    CHECK(content != NULL);
    struct bt_rng rng;
    bt_rng_seed(&rng, 11);
    bt_rng_fill(&rng, content, size);
    struct basalt_input *src, *copy;
    struct basalt_error err;
    CHECK_OK(basalt_input_open_memory(content, size, "s3://b/k.csv", &src, &err), &err);
    CHECK_OK(basalt_input_spool(src, dir, &copy, &err), &err);
    basalt_input_close(src);
    CHECK_EQ(copy->size, (uint64_t)size);
    CHECK_STR(copy->name, "s3://b/k.csv");
    const uint8_t *view = basalt_input_view(copy);
    CHECK(view != NULL && view != content);
    CHECK_MEM(view, content, size);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    int names = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        names += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d != NULL)
        closedir(d);
    CHECK_EQ(names, 0);
    basalt_input_close(copy);
    CHECK_OK(basalt_input_open_memory(content, 0, "empty", &src, &err), &err);
    CHECK_OK(basalt_input_spool(src, dir, &copy, &err), &err);
    CHECK_EQ(copy->size, 0);
    basalt_input_close(copy);
    char missing[300];
    snprintf(missing, sizeof missing, "%s/none", dir);
    CHECK_STATUS(basalt_input_spool(src, missing, &copy, &err), BASALT_IO, &err);
    CHECK_MSG(strstr(err.message, missing) != NULL, "%s", err.message);
    basalt_input_close(src);
    rmdir(dir);
    free(content);
}

TEST(file_input_release_view_drops_pages)
{
    char path[256];
    temp_path(path, sizeof path, "in-release");
    const size_t size = 16u << 20;
    uint8_t *content = malloc(size);
    CHECK(content != NULL);
    struct bt_rng rng;
    bt_rng_seed(&rng, 9);
    bt_rng_fill(&rng, content, size);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    CHECK(fwrite(content, 1, size, f) == size);
    fclose(f);
    struct basalt_input *in;
    struct basalt_error err;
    CHECK_OK(basalt_input_open_file(path, true, &in, &err), &err);
    const uint8_t *view = basalt_input_view(in);
    CHECK(view != NULL);
    long page = sysconf(_SC_PAGESIZE);
    volatile unsigned sum = 0;
    for (size_t i = 0; i < size; i += (size_t)page)
        sum += view[i];
    long before = bt_resident_pages();
    /* an unaligned range: only the pages wholly inside it go */
    basalt_input_release_view(in, 100, size - 200);
    long after = bt_resident_pages();
    CHECK_MSG(before > 0 && before - after >= (long)(size / (size_t)page) * 3 / 4,
              "resident pages %ld before, %ld after releasing %zu", before, after,
              size / (size_t)page);
    CHECK_MEM(view, content, size);
    basalt_input_release_view(in, size, 1); /* past the end: ignored */
    basalt_input_close(in);
    unlink(path);
    CHECK_OK(basalt_input_open_memory(content, size, "mem.bin", &in, &err), &err);
    basalt_input_release_view(in, 0, size);
    CHECK(basalt_input_view(in) == content);
    basalt_input_close(in);
    free(content);
    (void)sum;
}

TEST(file_input_missing_is_not_found)
{
    struct basalt_input *in = NULL;
    struct basalt_error err;
    CHECK_STATUS(basalt_input_open_file("/nonexistent/basalt/file.parquet", false, &in, &err),
                 BASALT_NOT_FOUND, &err);
    CHECK(strstr(err.message, "/nonexistent/basalt/file.parquet") != NULL);
    CHECK_STATUS(basalt_input_open_file("/tmp", false, &in, &err), BASALT_IO, &err);
}

TEST(file_output_commits_atomically)
{
    char path[256];
    temp_path(path, sizeof path, "out-commit");
    unlink(path);
    struct basalt_output *out;
    struct basalt_error err;
    CHECK_OK(basalt_output_open_file(path, &out, &err), &err);
    CHECK_OK(basalt_output_write(out, "hello ", 6, &err), &err);
    CHECK(!file_exists(path)); /* nothing under the final name before commit */
    CHECK_OK(basalt_output_write(out, "world", 5, &err), &err);
    CHECK_EQ(out->written, 11);
    CHECK_OK(basalt_output_commit(out, &err), &err);
    CHECK_STATUS(basalt_output_write(out, "x", 1, &err), BASALT_INVALID_ARG, &err);
    basalt_output_close(out);
    size_t len;
    uint8_t *data = bt_read_file(path, &len);
    CHECK(data != NULL);
    CHECK_EQ(len, 11);
    CHECK_MEM(data, "hello world", 11);
    basalt_free(data);
    unlink(path);
}

TEST(file_output_close_without_commit_leaves_nothing)
{
    char path[256], dir[256];
    temp_path(path, sizeof path, "out-abort");
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    unlink(path);
    struct basalt_output *out;
    struct basalt_error err;
    CHECK_OK(basalt_output_open_file(path, &out, &err), &err);
    CHECK_OK(basalt_output_write(out, "partial", 7, &err), &err);
    basalt_output_close(out);
    CHECK(!file_exists(path));
    /* The temporary file is gone too. */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q -- '%s.tmp-'", dir, strrchr(path, '/') + 1);
    CHECK(system(cmd) != 0);
}

TEST(file_output_existing_file_survives_failed_write)
{
    char path[256];
    temp_path(path, sizeof path, "out-keep");
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    fputs("old", f);
    fclose(f);
    struct basalt_output *out;
    struct basalt_error err;
    CHECK_OK(basalt_output_open_file(path, &out, &err), &err);
    CHECK_OK(basalt_output_write(out, "new but abandoned", 17, &err), &err);
    basalt_output_close(out);
    size_t len;
    uint8_t *data = bt_read_file(path, &len);
    CHECK(data != NULL && len == 3 && memcmp(data, "old", 3) == 0);
    basalt_free(data);
    unlink(path);
}

/* A FIFO (as /dev/null or /dev/stdout, not a regular file) is written in
 * place and stays what it was: a temporary file renamed over it would
 * replace it, and as root that turned /dev/null into a plain file. */
TEST(file_output_to_a_fifo_writes_in_place)
{
    char path[256], got[256];
    temp_path(path, sizeof path, "out-fifo");
    temp_path(got, sizeof got, "out-fifo-got");
    unlink(path);
    CHECK(mkfifo(path, 0600) == 0);
    char cmd[700];
    /* (timeout: a reader left waiting on a replaced FIFO must not outlive us) */
    snprintf(cmd, sizeof cmd, "timeout 10 cat '%s' > '%s' &", path, got);
    CHECK(system(cmd) == 0);
    struct basalt_output *out;
    struct basalt_error err;
    CHECK_OK(basalt_output_open_file(path, &out, &err), &err);
    CHECK_OK(basalt_output_write(out, "through the pipe", 16, &err), &err);
    CHECK_OK(basalt_output_commit(out, &err), &err);
    basalt_output_close(out);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode));
    size_t len = 0;
    uint8_t *data = NULL;
    for (int i = 0; i < 200 && (data == NULL || len < 16); i++) { /* cat may lag */
        basalt_free(data);
        data = bt_read_file(got, &len);
        usleep(10000);
    }
    CHECK(data != NULL && len == 16 && memcmp(data, "through the pipe", 16) == 0);
    basalt_free(data);
    unlink(path);
    unlink(got);
}

TEST(file_output_bad_directory_is_error)
{
    struct basalt_output *out;
    struct basalt_error err;
    CHECK_STATUS(basalt_output_open_file("/nonexistent/dir/x.parquet", &out, &err),
                 BASALT_NOT_FOUND, &err);
}

TEST(memory_output_take)
{
    struct basalt_output *out;
    struct basalt_error err;
    CHECK_OK(basalt_output_open_memory("mem-out", &out, &err), &err);
    size_t len = 0;
    CHECK(basalt_output_memory_take(out, &len) == NULL); /* not committed yet */
    for (int i = 0; i < 1000; i++)
        CHECK_OK(basalt_output_write(out, "abcd", 4, &err), &err);
    CHECK_OK(basalt_output_commit(out, &err), &err);
    uint8_t *data = basalt_output_memory_take(out, &len);
    CHECK(data != NULL);
    CHECK_EQ(len, 4000);
    CHECK_MEM(data + 3996, "abcd", 4);
    basalt_free(data);
    basalt_output_close(out);
}

static basalt_status output_attempt(void *ctx)
{
    (void)ctx;
    struct basalt_output *out;
    basalt_status st = basalt_output_open_memory("m", &out, NULL);
    if (st != BASALT_OK)
        return st;
    for (int i = 0; i < 200 && st == BASALT_OK; i++)
        st = basalt_output_write(out, "0123456789", 10, NULL);
    basalt_output_close(out);
    return st;
}

TEST(output_allocation_failures) { CHECK_ALLOC_SWEEP(output_attempt, NULL); }
