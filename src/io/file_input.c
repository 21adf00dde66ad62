/* Local file input: pread by default, or a read-only mapping. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basalt/io.h"
#include "io_internal.h"

struct file_input {
    struct basalt_input base;
    int fd;
    const uint8_t *map; /* NULL unless mapped */
    char name[];
};

basalt_status basalt_io_errno(struct basalt_error *err, int errnum, const char *what,
                              const char *name)
{
    return basalt_error_set(err, errnum == ENOENT ? BASALT_NOT_FOUND : BASALT_IO, "%s: %s: %s",
                            name, what, strerror(errnum));
}

static basalt_status file_read_at(struct basalt_input *in, uint64_t offset, uint64_t length,
                                  void *dst, struct basalt_error *err)
{
    struct file_input *f = (struct file_input *)in;
    if (f->map) {
        memcpy(dst, f->map + offset, (size_t)length);
        return BASALT_OK;
    }
    uint8_t *p = dst;
    while (length > 0) {
        size_t chunk = length > (1u << 30) ? (1u << 30) : (size_t)length;
        ssize_t n = pread(f->fd, p, chunk, (off_t)offset);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return basalt_io_errno(err, errno, "read", in->name);
        }
        if (n == 0)
            return basalt_error_set(err, BASALT_IO, "%s: file shrank while reading at %llu",
                                    in->name, (unsigned long long)offset);
        p += n;
        offset += (uint64_t)n;
        length -= (uint64_t)n;
    }
    return BASALT_OK;
}

static const uint8_t *file_view(struct basalt_input *in) { return ((struct file_input *)in)->map; }

/* The mapping is private and read-only, so its pages are never dirty: once
 * dropped, a page touched again is read again from the page cache. */
static void file_release_view(struct basalt_input *in, uint64_t offset, uint64_t length)
{
    struct file_input *f = (struct file_input *)in;
    static long page;
    if (f->map == NULL)
        return;
    if (page == 0)
        page = sysconf(_SC_PAGESIZE);
    uint64_t lo = (offset + (uint64_t)page - 1) & ~(uint64_t)(page - 1);
    uint64_t hi = (offset + length) & ~(uint64_t)(page - 1);
    if (hi > lo)
        madvise((void *)(uintptr_t)(f->map + lo), (size_t)(hi - lo), MADV_DONTNEED);
}

static void file_close(struct basalt_input *in)
{
    struct file_input *f = (struct file_input *)in;
    if (f->map)
        munmap((void *)(uintptr_t)f->map, (size_t)in->size);
    close(f->fd);
    basalt_free(f);
}

static const struct basalt_input_ops file_ops = {.read_at = file_read_at,
                                                 .read_ranges = NULL,
                                                 .view = file_view,
                                                 .close = file_close,
                                                 .release_view = file_release_view};

/* An input over the open regular file fd (taken: closed on failure too),
 * named `name`, mapped when asked and possible. */
static basalt_status input_of_fd(int fd, const char *name, bool use_mmap,
                                 struct basalt_input **out, struct basalt_error *err)
{
    size_t nlen = strlen(name);
    struct file_input *f = basalt_malloc(sizeof *f + nlen + 1);
    if (!f) {
        close(fd);
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory opening file", name);
    }
    memcpy(f->name, name, nlen + 1);
    f->fd = fd;
    struct stat st;
    if (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        basalt_status s = fstat(f->fd, &st) != 0
                              ? basalt_io_errno(err, errno, "stat", name)
                              : basalt_error_set(err, BASALT_IO, "%s: not a regular file", name);
        close(f->fd);
        basalt_free(f);
        return s;
    }
    f->base.ops = &file_ops;
    f->base.size = (uint64_t)st.st_size;
    f->base.name = f->name;
    f->map = NULL;
    if (use_mmap && st.st_size > 0) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, f->fd, 0);
        if (m != MAP_FAILED)
            f->map = m; /* a failed mapping falls back to pread */
    }
    *out = &f->base;
    return BASALT_OK;
}

basalt_status basalt_input_open_file(const char *path, bool use_mmap, struct basalt_input **out,
                                     struct basalt_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return basalt_io_errno(err, errno, "open", path);
    return input_of_fd(fd, path, use_mmap, out, err);
}

/* ------------------------------------------------------------ spooling */

struct spool {
    int fd;
    const char *where; /* the temporary file's directory, for errors */
    const char *name;  /* the object's */
};

static basalt_status spool_write(void *ctx, const void *data, size_t len,
                                 struct basalt_error *err)
{
    struct spool *sp = ctx;
    const uint8_t *p = data;
    while (len > 0) {
        ssize_t n = write(sp->fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return basalt_error_set(err, errno == ENOSPC ? BASALT_LIMIT : BASALT_IO,
                                    "%s: copying it to a temporary file in %s: %s", sp->name,
                                    sp->where, strerror(errno));
        p += n;
        len -= (size_t)n;
    }
    return BASALT_OK;
}

/* An unlinked file in dir, open for reading and writing: nothing is left
 * behind however the process ends. */
static int unlinked_file(const char *dir)
{
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
#endif
    char path[4096];
    if (snprintf(path, sizeof path, "%s/basalt-spool-XXXXXX", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd2 = mkstemp(path);
    if (fd2 >= 0) {
        unlink(path);
        fcntl(fd2, F_SETFD, FD_CLOEXEC);
    }
    return fd2;
}

basalt_status basalt_input_spool(struct basalt_input *src, const char *dir,
                                 struct basalt_input **out, struct basalt_error *err)
{
    *out = NULL;
    if (dir == NULL || dir[0] == '\0') {
        dir = getenv("TMPDIR");
        if (dir == NULL || dir[0] == '\0')
            dir = "/tmp";
    }
    struct spool sp = {unlinked_file(dir), dir, src->name};
    if (sp.fd < 0)
        return basalt_error_set(err, BASALT_IO, "%s: a temporary file in %s: %s", src->name, dir,
                                strerror(errno));
    basalt_status st = basalt_input_read_stream(src, 0, src->size, spool_write, &sp, err);
    if (st != BASALT_OK) {
        close(sp.fd);
        return st;
    }
    return input_of_fd(sp.fd, src->name, true, out, err);
}
