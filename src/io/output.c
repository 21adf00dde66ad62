/* Outputs: generic entry points, the atomic local file backend and the
 * memory backend. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basalt/io.h"
#include "io_internal.h"

/* Writes and commits left before injected failures start; <= 0: never. */
static _Atomic int64_t write_fail_countdown;

void basalt_io_fail_writes_after(int64_t n)
{
    atomic_store_explicit(&write_fail_countdown, n > 0 ? n : 0, memory_order_relaxed);
}

/* Once the countdown reaches 1 this and every later write or commit fails
 * until the hook is disarmed, as allocations do under basalt_alloc_fail_after:
 * a retry or a cleanup that writes must see the failure too. */
static basalt_status write_should_fail(const struct basalt_output *out, const char *what,
                                       struct basalt_error *err)
{
    if (atomic_load_explicit(&write_fail_countdown, memory_order_relaxed) <= 0)
        return BASALT_OK;
    int64_t left = atomic_fetch_sub_explicit(&write_fail_countdown, 1, memory_order_relaxed);
    if (left > 1)
        return BASALT_OK;
    atomic_store_explicit(&write_fail_countdown, 1, memory_order_relaxed);
    return basalt_error_set(err, BASALT_IO, "%s: %s: injected failure", out->name, what);
}

basalt_status basalt_output_write(struct basalt_output *out, const void *data, size_t len,
                                  struct basalt_error *err)
{
    if (out->committed)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: write after commit", out->name);
    if (len == 0)
        return BASALT_OK;
    basalt_status st = write_should_fail(out, "write", err);
    if (st != BASALT_OK)
        return st;
    st = out->ops->write(out, data, len, err);
    if (st == BASALT_OK)
        out->written += len;
    return st;
}

basalt_status basalt_output_commit(struct basalt_output *out, struct basalt_error *err)
{
    if (out->committed)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%s: committed twice", out->name);
    basalt_status st = write_should_fail(out, "commit", err);
    if (st != BASALT_OK)
        return st;
    st = out->ops->commit(out, err);
    if (st == BASALT_OK)
        out->committed = true;
    return st;
}

void basalt_output_close(struct basalt_output *out)
{
    if (out)
        out->ops->close(out);
}

/* ---------------------------------------------------------------- file */

/* A regular file is written in whole, aligned stretches of this size: the
 * page cache then holds it in 2 MiB folios (filesystems with large folios,
 * ext4 and XFS on current kernels), which a reader that maps the file gets
 * as huge-page mappings. A mapped read of a file written in 512 KiB pieces
 * took 485 ms for 640 MB on the development machine, of one written in
 * stretches 60 ms: a fault and a TLB miss per 4 KiB page, or per 2 MiB. */
#define FILE_STRETCH ((size_t)2 << 20)

struct file_output {
    struct basalt_output base;
    int fd;
    bool exclusive; /* commit fails when the name exists */
    bool direct;    /* written in place: the name is a device, FIFO or socket */
    uint8_t *buf;   /* the stretch being gathered (grown up to FILE_STRETCH) */
    size_t buf_len, buf_cap;
    char *tmp_path; /* points into storage after name */
    char name[];
};

static basalt_status write_all(struct file_output *f, const uint8_t *p, size_t len,
                               struct basalt_error *err)
{
    while (len > 0) {
        ssize_t n = write(f->fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return basalt_io_errno(err, errno, "write", f->base.name);
        }
        p += n;
        len -= (size_t)n;
    }
    return BASALT_OK;
}

/* Every write to the file is a whole number of stretches, at a multiple of
 * FILE_STRETCH, except the last one at commit: what does not fill a stretch
 * waits in `buf`; the middle of a large write goes straight to the file. A
 * device or FIFO is written as it comes (a reader may be waiting). */
static basalt_status file_write(struct basalt_output *out, const void *data, size_t len,
                                struct basalt_error *err)
{
    struct file_output *f = (struct file_output *)out;
    const uint8_t *p = data;
    if (f->direct)
        return write_all(f, p, len, err);
    while (len > 0) {
        if (f->buf_len == 0 && len >= FILE_STRETCH) {
            size_t n = len - len % FILE_STRETCH;
            basalt_status st = write_all(f, p, n, err);
            if (st != BASALT_OK)
                return st;
            p += n;
            len -= n;
            continue;
        }
        size_t n = FILE_STRETCH - f->buf_len;
        if (n > len)
            n = len;
        if (f->buf_len + n > f->buf_cap) {
            size_t cap = f->buf_cap ? f->buf_cap : (size_t)64 << 10;
            while (cap < f->buf_len + n)
                cap *= 2;
            if (cap > FILE_STRETCH)
                cap = FILE_STRETCH;
            uint8_t *b = basalt_realloc(f->buf, cap);
            if (!b)
                return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory for a write buffer",
                                        out->name);
            f->buf = b;
            f->buf_cap = cap;
        }
        memcpy(f->buf + f->buf_len, p, n);
        f->buf_len += n;
        p += n;
        len -= n;
        if (f->buf_len == FILE_STRETCH) {
            basalt_status st = write_all(f, f->buf, FILE_STRETCH, err);
            if (st != BASALT_OK)
                return st;
            f->buf_len = 0;
        }
    }
    return BASALT_OK;
}

static basalt_status file_commit(struct basalt_output *out, struct basalt_error *err)
{
    struct file_output *f = (struct file_output *)out;
    if (f->buf_len) {
        basalt_status st = write_all(f, f->buf, f->buf_len, err);
        if (st != BASALT_OK)
            return st;
        f->buf_len = 0;
    }
    if (f->direct) {
        int rc = close(f->fd);
        f->fd = -1;
        return rc == 0 ? BASALT_OK : basalt_io_errno(err, errno, "close", out->name);
    }
    if (fsync(f->fd) != 0)
        return basalt_io_errno(err, errno, "fsync", out->name);
    if (close(f->fd) != 0) {
        f->fd = -1;
        return basalt_io_errno(err, errno, "close", out->name);
    }
    f->fd = -1;
    if (f->exclusive) {
        /* link() fails when the name exists, where rename() would replace it. */
        if (link(f->tmp_path, out->name) != 0)
            return errno == EEXIST
                       ? basalt_error_set(err, BASALT_CONFLICT, "%s: already exists", out->name)
                       : basalt_io_errno(err, errno, "link", out->name);
        unlink(f->tmp_path);
        return BASALT_OK;
    }
    if (rename(f->tmp_path, out->name) != 0)
        return basalt_io_errno(err, errno, "rename", out->name);
    return BASALT_OK;
}

static void file_close(struct basalt_output *out)
{
    struct file_output *f = (struct file_output *)out;
    if (f->fd >= 0)
        close(f->fd);
    if (!out->committed && !f->direct)
        unlink(f->tmp_path);
    basalt_free(f->buf);
    basalt_free(f);
}

static const struct basalt_output_ops file_output_ops = {
    .write = file_write, .commit = file_commit, .close = file_close};

static _Atomic unsigned tmp_counter;

basalt_status basalt_output_open_file(const char *path, struct basalt_output **out,
                                      struct basalt_error *err)
{
    return basalt_io_file_output_open(path, false, out, err);
}

basalt_status basalt_io_file_output_open(const char *path, bool exclusive,
                                         struct basalt_output **out, struct basalt_error *err)
{
    size_t nlen = strlen(path);
    size_t tmp_cap = nlen + 48;
    struct file_output *f = basalt_malloc(sizeof *f + nlen + 1 + tmp_cap);
    if (!f)
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory opening output", path);
    memcpy(f->name, path, nlen + 1);
    f->tmp_path = f->name + nlen + 1;
    f->exclusive = exclusive;
    f->buf = NULL;
    f->buf_len = f->buf_cap = 0;
    f->base.ops = &file_output_ops;
    f->base.written = 0;
    f->base.name = f->name;
    f->base.committed = false;
    /* An existing name that is not a regular file (/dev/null, /dev/stdout,
     * a FIFO) is written in place: a temporary file renamed over it would
     * replace the device itself (as root, /dev/null became a plain file). */
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
        if (exclusive) {
            basalt_free(f);
            return basalt_error_set(err, BASALT_CONFLICT, "%s: already exists", path);
        }
        f->direct = true;
        f->tmp_path[0] = '\0';
        f->fd = open(path, O_WRONLY | O_CLOEXEC);
        if (f->fd < 0) {
            basalt_status st = basalt_io_errno(err, errno, "open", path);
            basalt_free(f);
            return st;
        }
        *out = &f->base;
        return BASALT_OK;
    }
    f->direct = false;
    snprintf(f->tmp_path, tmp_cap, "%s.tmp-%ld-%u", path, (long)getpid(),
             atomic_fetch_add(&tmp_counter, 1));
    f->fd = open(f->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (f->fd < 0) {
        basalt_status st = basalt_io_errno(err, errno, "create", path);
        basalt_free(f);
        return st;
    }
    *out = &f->base;
    return BASALT_OK;
}

/* ---------------------------------------------------------------- memory */

struct memory_output {
    struct basalt_output base;
    struct basalt_buffer buf;
    char name[];
};

static basalt_status memory_write(struct basalt_output *out, const void *data, size_t len,
                                  struct basalt_error *err)
{
    struct memory_output *m = (struct memory_output *)out;
    basalt_status st = basalt_buffer_append(&m->buf, data, len, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "%s", out->name);
    return BASALT_OK;
}

static basalt_status memory_commit(struct basalt_output *out, struct basalt_error *err)
{
    (void)out;
    (void)err;
    return BASALT_OK;
}

static void memory_close(struct basalt_output *out)
{
    struct memory_output *m = (struct memory_output *)out;
    basalt_buffer_reset(&m->buf);
    basalt_free(m);
}

static const struct basalt_output_ops memory_output_ops = {
    .write = memory_write, .commit = memory_commit, .close = memory_close};

basalt_status basalt_output_open_memory(const char *name, struct basalt_output **out,
                                        struct basalt_error *err)
{
    if (!name)
        name = "<memory>";
    size_t nlen = strlen(name);
    struct memory_output *m = basalt_malloc(sizeof *m + nlen + 1);
    if (!m)
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory opening output", name);
    memcpy(m->name, name, nlen + 1);
    basalt_buffer_init(&m->buf);
    m->base.ops = &memory_output_ops;
    m->base.written = 0;
    m->base.name = m->name;
    m->base.committed = false;
    *out = &m->base;
    return BASALT_OK;
}

uint8_t *basalt_output_memory_take(struct basalt_output *out, size_t *len)
{
    if (out->ops != &memory_output_ops || !out->committed)
        return NULL;
    struct memory_output *m = (struct memory_output *)out;
    *len = m->buf.size;
    if (m->buf.data == NULL) /* nothing written: hand out an empty allocation */
        return basalt_malloc(1);
    return basalt_buffer_take(&m->buf);
}
