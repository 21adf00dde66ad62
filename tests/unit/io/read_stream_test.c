/* basalt_input_read_stream over the backends without a streaming operation
 * of their own (memory, mapped and pread files): every byte once, in order,
 * in bounded pieces; the sink's failure and a range past the end. The
 * remote path is exercised against servers by cli.io_faults and cli.io_s3. */
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

#include "basalt/io.h"

/* Collects what a stream hands over, checking it against `want`. */
struct collector {
    const uint8_t *want;
    uint64_t got;
    size_t calls;
    size_t largest;
    bool mismatch;
    uint64_t fail_after; /* fail the call that passes this many bytes; 0: never */
};

static basalt_status collect(void *ctx, const void *data, size_t len, struct basalt_error *err)
{
    struct collector *c = ctx;
    if (c->fail_after && c->got + len > c->fail_after)
        return basalt_error_set(err, BASALT_IO, "sink: disk full");
    if (memcmp(data, c->want + c->got, len) != 0)
        c->mismatch = true;
    c->got += len;
    c->calls++;
    if (len > c->largest)
        c->largest = len;
    return BASALT_OK;
}

static void check_streams(struct basalt_input *in, const uint8_t *content, uint64_t size)
{
    struct basalt_error err;
    const uint64_t cases[][2] = {{0, size}, {1, size - 1}, {size / 3, size / 2}, {size - 7, 7},
                                 {size, 0}, {12345, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct collector c = {.want = content + cases[i][0]};
        CHECK_OK(basalt_input_read_stream(in, cases[i][0], cases[i][1], collect, &c, &err), &err);
        CHECK(!c.mismatch);
        CHECK_EQ(c.got, cases[i][1]);
        CHECK(c.largest <= ((size_t)4 << 20));
    }
    /* Past the end: CORRUPT naming the input, nothing handed over. */
    struct collector c = {.want = content};
    CHECK_STATUS(basalt_input_read_stream(in, size - 1, 2, collect, &c, &err), BASALT_CORRUPT,
                 &err);
    CHECK(strstr(err.message, in->name) != NULL);
    CHECK_EQ(c.got, 0);
    /* The sink's failure stops the read with its own status and message. */
    c = (struct collector){.want = content, .fail_after = size / 2};
    CHECK_STATUS(basalt_input_read_stream(in, 0, size, collect, &c, &err), BASALT_IO, &err);
    CHECK(strstr(err.message, "sink: disk full") != NULL);
    CHECK(c.got <= size / 2);
}

TEST(read_stream_memory_input)
{
    enum { SIZE = 100000 };
    uint8_t *content = malloc(SIZE);
    CHECK(content != NULL);
    struct bt_rng rng;
    bt_rng_seed(&rng, 11);
    bt_rng_fill(&rng, content, SIZE);
    struct basalt_input *in;
    struct basalt_error err;
    CHECK_OK(basalt_input_open_memory(content, SIZE, "mem.bin", &in, &err), &err);
    check_streams(in, content, SIZE);
    basalt_input_close(in);
    free(content);
}

static void check_file(bool use_mmap)
{
    /* Over two pieces of the fallback (4 MiB), and not a multiple of one. */
    const size_t size = ((size_t)9 << 20) + 1234;
    uint8_t *content = malloc(size);
    CHECK(content != NULL);
    struct bt_rng rng;
    bt_rng_seed(&rng, 12);
    bt_rng_fill(&rng, content, size);
    const char *dir = getenv("TMPDIR");
    char path[256];
    snprintf(path, sizeof path, "%s/basalt-io-%ld-stream-%d", dir && *dir ? dir : "/tmp",
             (long)getpid(), (int)use_mmap);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    CHECK(fwrite(content, 1, size, f) == size);
    fclose(f);
    struct basalt_input *in;
    struct basalt_error err;
    CHECK_OK(basalt_input_open_file(path, use_mmap, &in, &err), &err);
    check_streams(in, content, size);
    struct collector c = {.want = content};
    CHECK_OK(basalt_input_read_stream(in, 0, size, collect, &c, &err), &err);
    CHECK_EQ(c.calls, 3); /* 4 MiB, 4 MiB, the rest */
    basalt_input_close(in);
    unlink(path);
    free(content);
}

TEST(read_stream_file_input_pread) { check_file(false); }
TEST(read_stream_file_input_mmap) { check_file(true); }
