/* Spill files over an unlinked temporary file (see spill.h). */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basalt/io.h"
#include "basalt/ipc.h"
#include "spill/spill.h"

static atomic_llong files_open, files_made, test_budget, test_fan_in;

void basalt_qspill_test_set_budget(int64_t bytes)
{
    atomic_store(&test_budget, bytes);
}

int64_t basalt_qspill_test_budget(void)
{
    return atomic_load(&test_budget);
}

void basalt_qspill_test_set_fan_in(int64_t runs)
{
    atomic_store(&test_fan_in, runs);
}

int64_t basalt_qspill_test_fan_in(void)
{
    return atomic_load(&test_fan_in);
}

int64_t basalt_qspill_files_open(void)
{
    return atomic_load(&files_open);
}

int64_t basalt_qspill_files_made(void)
{
    return atomic_load(&files_made);
}

/* Spill files are written and read in small pieces (an IPC message's
 * header, metadata and buffers each): both sides go through a buffer of this
 * many bytes, so that a split partition's many small files do not cost a
 * system call per piece. Kept small: 64 files are written at once, and the
 * buffers count against the memory limit. */
#define SPILL_IO_BUFFER ((size_t)32 << 10)

struct fd_output {
    struct basalt_output base;
    int fd;
    uint8_t *buf; /* pending bytes, SPILL_IO_BUFFER of room; NULL until needed */
    size_t pending;
};

struct fd_input {
    struct basalt_input base;
    int fd;
    uint8_t *buf; /* bytes [buf_at, buf_at + buf_len) of the file */
    uint64_t buf_at;
    size_t buf_len;
};

struct basalt_qspill_file {
    int fd;
    struct fd_output out;
    struct basalt_ipc_writer *writer;
    struct basalt_ipc_reader *reader;
    bool reading;
    basalt_status sealed; /* how the writing ended */
    int64_t rows;
};

static basalt_status write_all(int fd, const void *data, size_t len, struct basalt_error *err)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return basalt_error_set(err, BASALT_IO, "spill file: write failed: %s",
                                    n < 0 ? strerror(errno) : "no space");
        p += n;
        len -= (size_t)n;
    }
    return BASALT_OK;
}

static basalt_status fd_flush(struct fd_output *f, struct basalt_error *err)
{
    size_t n = f->pending;
    f->pending = 0;
    return n > 0 ? write_all(f->fd, f->buf, n, err) : BASALT_OK;
}

static basalt_status fd_write(struct basalt_output *o, const void *data, size_t len,
                              struct basalt_error *err)
{
    struct fd_output *f = (struct fd_output *)o;
    if (f->pending + len > SPILL_IO_BUFFER) {
        basalt_status st = fd_flush(f, err);
        if (st != BASALT_OK || len >= SPILL_IO_BUFFER)
            return st == BASALT_OK ? write_all(f->fd, data, len, err) : st;
    }
    if (f->buf == NULL && (f->buf = basalt_malloc(SPILL_IO_BUFFER)) == NULL)
        return write_all(f->fd, data, len, err);
    memcpy(f->buf + f->pending, data, len);
    f->pending += len;
    return BASALT_OK;
}

static basalt_status fd_commit(struct basalt_output *o, struct basalt_error *err)
{
    return fd_flush((struct fd_output *)o, err);
}

static void fd_output_close(struct basalt_output *o)
{
    (void)o; /* the descriptor belongs to the spill file */
}

static const struct basalt_output_ops fd_output_ops = {fd_write, fd_commit, fd_output_close};

static basalt_status pread_all(int fd, uint64_t offset, uint64_t length, void *dst,
                               struct basalt_error *err)
{
    char *p = dst;
    while (length > 0) {
        ssize_t n = pread(fd, p, length, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return basalt_error_set(err, BASALT_IO, "spill file: read failed: %s",
                                    n < 0 ? strerror(errno) : "short file");
        p += n;
        offset += (uint64_t)n;
        length -= (uint64_t)n;
    }
    return BASALT_OK;
}

/* Reads go through the buffer when small: the reader asks for a message's
 * pieces in file order. */
static basalt_status fd_read_at(struct basalt_input *in, uint64_t offset, uint64_t length,
                                void *dst, struct basalt_error *err)
{
    struct fd_input *f = (struct fd_input *)in;
    if (offset > in->size || length > in->size - offset)
        return basalt_error_set(err, BASALT_CORRUPT, "spill file: read past its end");
    if (f->buf != NULL && offset >= f->buf_at && offset + length <= f->buf_at + f->buf_len) {
        memcpy(dst, f->buf + (offset - f->buf_at), (size_t)length);
        return BASALT_OK;
    }
    if (length >= SPILL_IO_BUFFER / 2 ||
        (f->buf == NULL && (f->buf = basalt_malloc(SPILL_IO_BUFFER)) == NULL))
        return pread_all(f->fd, offset, length, dst, err);
    uint64_t fill = in->size - offset < SPILL_IO_BUFFER ? in->size - offset : SPILL_IO_BUFFER;
    f->buf_at = offset;
    f->buf_len = 0;
    basalt_status st = pread_all(f->fd, offset, fill, f->buf, err);
    if (st != BASALT_OK)
        return st;
    f->buf_len = (size_t)fill;
    memcpy(dst, f->buf, (size_t)length);
    return BASALT_OK;
}

static void fd_input_close(struct basalt_input *in)
{
    basalt_free(((struct fd_input *)in)->buf);
    basalt_free(in);
}

static const struct basalt_input_ops fd_input_ops = {.read_at = fd_read_at,
                                                     .close = fd_input_close};

static const char *spill_dir(const char *dir)
{
    if (dir != NULL && dir[0] != '\0')
        return dir;
    const char *t = getenv("TMPDIR");
    return t != NULL && t[0] != '\0' ? t : "/tmp";
}

basalt_status basalt_qspill_file_new(const char *dir, const struct ArrowSchema *schema,
                                     struct basalt_qspill_file **out, struct basalt_error *err)
{
    *out = NULL;
    const char *d = spill_dir(dir);
    size_t len = strlen(d) + 32;
    char *path = basalt_malloc(len);
    struct basalt_qspill_file *f = basalt_calloc(1, sizeof *f);
    if (path == NULL || f == NULL) {
        basalt_free(path);
        basalt_free(f);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    snprintf(path, len, "%s/basalt-spill-XXXXXX", d);
    f->fd = mkstemp(path);
    if (f->fd < 0) {
        basalt_status st = basalt_error_set(err, BASALT_IO,
                                            "cannot make a spill file in '%s' (temp_directory): %s",
                                            d, strerror(errno));
        basalt_free(path);
        basalt_free(f);
        return st;
    }
    /* Nothing is left behind, however the query ends. */
    unlink(path);
    basalt_free(path);
    atomic_fetch_add(&files_open, 1);
    atomic_fetch_add(&files_made, 1);
    f->out.base.ops = &fd_output_ops;
    f->out.base.name = "spill file";
    f->out.fd = f->fd;
    struct basalt_ipc_write_options o;
    basalt_ipc_write_options_init(&o);
    o.alignment = 8;
    basalt_status st = basalt_ipc_writer_open(&f->out.base, schema, &o, &f->writer, err);
    if (st != BASALT_OK) {
        basalt_qspill_file_free(f);
        return st;
    }
    *out = f;
    return BASALT_OK;
}

void basalt_qspill_file_free(struct basalt_qspill_file *f)
{
    if (f == NULL)
        return;
    basalt_ipc_writer_free(f->writer);
    basalt_ipc_reader_close(f->reader);
    basalt_free(f->out.buf);
    close(f->fd);
    atomic_fetch_sub(&files_open, 1);
    basalt_free(f);
}

basalt_status basalt_qspill_file_write(struct basalt_qspill_file *f, const struct ArrowArray *batch,
                                       struct basalt_error *err)
{
    if (f->reading)
        return basalt_error_set(err, BASALT_INVALID_ARG, "spill file: write after read");
    basalt_status st = basalt_ipc_writer_write(f->writer, batch, err);
    if (st == BASALT_OK)
        f->rows += batch->length;
    return st;
}

basalt_status basalt_qspill_file_seal(struct basalt_qspill_file *f, struct basalt_error *err)
{
    if (f->writer == NULL)
        return BASALT_OK;
    f->reading = true;
    basalt_status st = basalt_ipc_writer_finish(f->writer, err);
    if (st == BASALT_OK)
        st = fd_flush(&f->out, err);
    basalt_ipc_writer_free(f->writer);
    f->writer = NULL;
    basalt_free(f->out.buf);
    f->out.buf = NULL;
    f->sealed = st;
    return st;
}

static basalt_status start_reading(struct basalt_qspill_file *f, struct basalt_error *err)
{
    basalt_status st = basalt_qspill_file_seal(f, err);
    if (st == BASALT_OK && f->sealed != BASALT_OK)
        st = basalt_error_set(err, f->sealed, "spill file: its writing failed");
    if (st != BASALT_OK)
        return st;
    struct fd_input *in = basalt_calloc(1, sizeof *in);
    if (in == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    in->base.ops = &fd_input_ops;
    in->base.size = f->out.base.written;
    in->base.name = "spill file";
    in->fd = f->fd;
    struct basalt_ipc_read_options o;
    basalt_ipc_read_options_init(&o);
    o.use_mmap = false;
    return basalt_ipc_reader_open(&in->base, &o, &f->reader, err);
}

basalt_status basalt_qspill_file_next(struct basalt_qspill_file *f, struct ArrowArray *out,
                                      struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    if (f->reader == NULL) {
        basalt_status st = start_reading(f, err);
        if (st != BASALT_OK)
            return st;
    }
    return basalt_ipc_reader_next(f->reader, out, err);
}

void basalt_qspill_file_rewind(struct basalt_qspill_file *f)
{
    basalt_ipc_reader_close(f->reader);
    f->reader = NULL;
}

int64_t basalt_qspill_file_rows(const struct basalt_qspill_file *f)
{
    return f->rows;
}

int64_t basalt_qspill_file_bytes(const struct basalt_qspill_file *f)
{
    return (int64_t)f->out.base.written;
}

int64_t basalt_qspill_array_bytes(const struct ArrowSchema *s, const struct ArrowArray *a)
{
    int64_t n = a->length, bytes = a->buffers != NULL && a->n_buffers > 0 && a->buffers[0] ? (n + 7) / 8 : 0;
    struct basalt_arrow_type t;
    if (basalt_arrow_type_parse(s->format, &t, NULL) == BASALT_OK) {
        bool bin = t.id == BASALT_ARROW_TYPE_BINARY || t.id == BASALT_ARROW_TYPE_STRING;
        bool large = t.id == BASALT_ARROW_TYPE_LARGE_BINARY || t.id == BASALT_ARROW_TYPE_LARGE_STRING;
        if ((bin || large) && a->n_buffers >= 3 && a->buffers[1] != NULL) {
            int64_t from, to;
            if (large) {
                from = ((const int64_t *)a->buffers[1])[a->offset];
                to = ((const int64_t *)a->buffers[1])[a->offset + n];
            } else {
                from = ((const int32_t *)a->buffers[1])[a->offset];
                to = ((const int32_t *)a->buffers[1])[a->offset + n];
            }
            bytes += (large ? 8 : 4) * (n + 1) + (to - from);
        } else if (t.bit_width > 0) {
            bytes += (n * t.bit_width + 7) / 8;
        }
    }
    for (int64_t i = 0; i < a->n_children && i < s->n_children; i++)
        bytes += basalt_qspill_array_bytes(s->children[i], a->children[i]);
    if (a->dictionary != NULL && s->dictionary != NULL)
        bytes += basalt_qspill_array_bytes(s->dictionary, a->dictionary);
    return bytes;
}
