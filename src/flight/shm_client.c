/* The shared-memory transport's consumer: connects, asks for a ticket, maps
 * the memory file it is given read-only and decodes each published range in
 * place, as an ArrowArrayStream (include/basalt/flight_shm.h,
 * shm_internal.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "shm_internal.h"

void basalt_flight_shm_client_options_init(struct basalt_flight_shm_client_options *o)
{
    memset(o, 0, sizeof *o);
    o->max_segment_size = (uint64_t)64 << 30;
    o->max_records = (int64_t)1 << 24;
    o->timeout_ms = 0;
    basalt_ipc_read_options_init(&o->ipc);
}

/* ------------------------------------------------------------ the mapping */

/* The read-only mapping as a basalt_input with a view: the IPC reader's
 * arrays point into it and hold it (through the reader's input owner)
 * until the last of them is released; closing unmaps. */
struct shm_map {
    struct basalt_input in; /* first */
    uint8_t *map;
    uint64_t map_size;
    char name[128];
};

static basalt_status map_read_at(struct basalt_input *in, uint64_t offset, uint64_t length,
                                 void *dst, struct basalt_error *err)
{
    struct shm_map *m = (struct shm_map *)in;
    if (offset > m->map_size || length > m->map_size - offset)
        return basalt_error_set(err, BASALT_CORRUPT, "%s: %llu bytes at %llu pass the end",
                                m->name, (unsigned long long)length,
                                (unsigned long long)offset);
    memcpy(dst, m->map + offset, (size_t)length);
    return BASALT_OK;
}

static const uint8_t *map_view(struct basalt_input *in)
{
    return ((struct shm_map *)in)->map;
}

static void map_close(struct basalt_input *in)
{
    struct shm_map *m = (struct shm_map *)in;
    munmap(m->map, (size_t)m->map_size);
    basalt_free(m);
}

static const struct basalt_input_ops map_ops = {map_read_at, NULL, map_view, map_close, NULL};

/* ------------------------------------------------------------ the stream */

struct shm_client {
    int sock;
    int memfd;
    struct basalt_ipc_reader *reader; /* owns the mapping's input */
    const uint8_t *map;
    uint64_t map_size;
    struct basalt_flight_shm_client_options o;
    uint64_t file_size; /* last seen; only grows (F_SEAL_SHRINK) */
    uint64_t published;
    int64_t records;
    int64_t batches;
    bool ended;
    bool no_populate; /* MADV_POPULATE_READ is not there */
    basalt_status status;
    struct basalt_error err;
    char path[108];
};

static void client_disconnect(struct shm_client *c)
{
    if (c->sock >= 0)
        close(c->sock);
    if (c->memfd >= 0)
        close(c->memfd);
    c->sock = c->memfd = -1;
}

/* Makes `st` final: every later get_next returns it; the connection and
 * the file's descriptor are closed (the mapping stays while arrays live). */
static basalt_status client_fail(struct shm_client *c, basalt_status st)
{
    c->status = st;
    client_disconnect(c);
    return basalt_error_context(&c->err, st, "flight shm %s", c->path);
}

static basalt_status next_record(struct shm_client *c, struct shm_record *r, int *fd)
{
    uint8_t buf[SHM_RECORD_MAX];
    size_t n;
    basalt_status st =
        basalt_flight_shm_recv(c->sock, buf, sizeof buf, &n, fd, c->o.timeout_ms, &c->err);
    if (st != BASALT_OK)
        return st;
    if (n == 0)
        return basalt_error_set(&c->err, BASALT_IO,
                                "the producer closed the connection before the end of the "
                                "stream (it exited or crashed), after %lld batches",
                                (long long)c->batches);
    if (++c->records > c->o.max_records) {
        if (fd && *fd >= 0)
            close(*fd);
        return basalt_error_set(&c->err, BASALT_LIMIT, "more than %lld manifest records",
                                (long long)c->o.max_records);
    }
    st = basalt_flight_shm_record_decode(buf, n, r, &c->err);
    if (st == BASALT_OK && r->type == SHM_RECORD_ERROR) {
        basalt_status ps = (basalt_status)r->status;
        if (r->status == 0 || r->status > BASALT_INTERNAL)
            return basalt_error_set(&c->err, BASALT_CORRUPT,
                                    "an error record with status %u: %s", (unsigned)r->status,
                                    r->text);
        st = basalt_error_set(&c->err, ps, "producer: %s", r->text);
    }
    if (st != BASALT_OK && fd && *fd >= 0) {
        close(*fd);
        *fd = -1;
    }
    return st;
}

/* Checks that [offset, offset + length) is published memory: after the
 * previous range, inside the file (whose size only grows) and the mapping. */
static basalt_status check_range(struct shm_client *c, const struct shm_record *r)
{
    if (r->length == 0 || r->offset + r->length < r->offset)
        return basalt_error_set(&c->err, BASALT_CORRUPT, "manifest range of %llu bytes at %llu",
                                (unsigned long long)r->length, (unsigned long long)r->offset);
    if (r->offset < c->published)
        return basalt_error_set(&c->err, BASALT_CORRUPT,
                                "manifest range at %llu overlaps the previous one (to %llu)",
                                (unsigned long long)r->offset, (unsigned long long)c->published);
    uint64_t end = r->offset + r->length;
    if (end > c->file_size) {
        struct stat sb;
        if (fstat(c->memfd, &sb) != 0)
            return basalt_error_set(&c->err, BASALT_IO, "fstat: %s", strerror(errno));
        c->file_size = (uint64_t)sb.st_size;
        if (end > c->file_size)
            return basalt_error_set(&c->err, BASALT_CORRUPT,
                                    "manifest range [%llu, %llu) passes the end of the memory "
                                    "file (%llu bytes)",
                                    (unsigned long long)r->offset, (unsigned long long)end,
                                    (unsigned long long)c->file_size);
    }
    if (end > c->map_size)
        return basalt_error_set(&c->err, BASALT_LIMIT,
                                "manifest range [%llu, %llu) passes max_segment_size (%llu)",
                                (unsigned long long)r->offset, (unsigned long long)end,
                                (unsigned long long)c->map_size);
    return BASALT_OK;
}

/* Decodes the messages of one BATCH range; a record batch (it must come
 * last) lands in `out`. */
static basalt_status decode_range(struct shm_client *c, const struct shm_record *r,
                                  struct ArrowArray *out)
{
    uint64_t pos = r->offset, end = r->offset + r->length;
    /* Maps the range's pages in one call rather than a fault per page
     * (Linux 5.14; elsewhere the faults happen as the consumer reads). The
     * range is inside the file, so this cannot fail for want of pages. */
    if (!c->no_populate) {
        uint64_t lo = pos & ~(uint64_t)4095;
        if (madvise((void *)(uintptr_t)(c->map + lo), (size_t)(end - lo), MADV_POPULATE_READ) != 0 &&
            errno == EINVAL)
            c->no_populate = true;
    }
    while (pos < end) {
        uint64_t next;
        basalt_status st = basalt_ipc_reader_read_at(c->reader, pos, end - pos, out, &next,
                                                     &c->err);
        if (st != BASALT_OK)
            return st;
        if (next <= pos || next > end) {
            basalt_arrow_array_release(out);
            return basalt_error_set(&c->err, BASALT_CORRUPT, "message at %llu ends at %llu",
                                    (unsigned long long)pos, (unsigned long long)next);
        }
        pos = next;
        if (out->release && pos != end) {
            basalt_arrow_array_release(out);
            return basalt_error_set(&c->err, BASALT_CORRUPT,
                                    "%llu bytes after the record batch of the range at %llu",
                                    (unsigned long long)(end - pos),
                                    (unsigned long long)r->offset);
        }
    }
    c->published = end;
    return BASALT_OK;
}

static int status_errno(basalt_status st)
{
    switch (st) {
    case BASALT_OK: return 0;
    case BASALT_NOMEM: return ENOMEM;
    case BASALT_IO: return EIO;
    case BASALT_UNSUPPORTED: return ENOTSUP;
    case BASALT_LIMIT: return EOVERFLOW;
    default: return EINVAL;
    }
}

static basalt_status client_next(struct shm_client *c, struct ArrowArray *out)
{
    out->release = NULL;
    if (c->status != BASALT_OK)
        return c->status;
    while (!c->ended) {
        struct shm_record r;
        basalt_status st = next_record(c, &r, NULL);
        if (st != BASALT_OK)
            return client_fail(c, st);
        switch (r.type) {
        case SHM_RECORD_BATCH:
            st = check_range(c, &r);
            if (st == BASALT_OK)
                st = decode_range(c, &r, out);
            if (st != BASALT_OK)
                return client_fail(c, basalt_error_context(&c->err, st, "batch %lld",
                                                           (long long)c->batches));
            if (out->release) {
                c->batches++;
                return BASALT_OK;
            }
            break; /* dictionaries only: on to the next record */
        case SHM_RECORD_END:
            if (r.length != (uint64_t)c->batches || r.offset < c->published)
                return client_fail(c, basalt_error_set(&c->err, BASALT_CORRUPT,
                                                       "end record for %llu batches after %lld",
                                                       (unsigned long long)r.length,
                                                       (long long)c->batches));
            c->ended = true;
            client_disconnect(c);
            break;
        default:
            return client_fail(c, basalt_error_set(&c->err, BASALT_CORRUPT,
                                                   "manifest record type %u after the segment",
                                                   (unsigned)r.type));
        }
    }
    return BASALT_OK;
}

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    struct shm_client *c = s->private_data;
    basalt_status st = basalt_ipc_reader_schema(c->reader, out, &c->err);
    return status_errno(st);
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    return status_errno(client_next(s->private_data, out));
}

static const char *stream_last_error(struct ArrowArrayStream *s)
{
    struct shm_client *c = s->private_data;
    return c->err.message;
}

static void stream_release(struct ArrowArrayStream *s)
{
    struct shm_client *c = s->private_data;
    client_disconnect(c);
    basalt_ipc_reader_close(c->reader);
    basalt_free(c);
    s->release = NULL;
}

/* ------------------------------------------------------------ opening */

static basalt_status connect_to(const char *path, int *out, struct basalt_error *err)
{
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof addr.sun_path)
        return basalt_error_set(err, BASALT_INVALID_ARG, "socket path of %zu bytes (1 to %zu)",
                                len, sizeof addr.sun_path - 1);
    memcpy(addr.sun_path, path, len);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return basalt_error_set(err, BASALT_IO, "socket: %s", strerror(errno));
    int rc;
    do
        rc = connect(fd, (struct sockaddr *)&addr, sizeof addr);
    while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        int e = errno;
        close(fd);
        if (e == ENOENT)
            return basalt_error_set(err, BASALT_NOT_FOUND, "no socket there");
        if (e == ECONNREFUSED)
            return basalt_error_set(err, BASALT_IO, "no server listening (%s)", strerror(e));
        return basalt_error_set(err, BASALT_IO, "connect: %s", strerror(e));
    }
    *out = fd;
    return BASALT_OK;
}

/* Checks the memory file and maps it read-only over max_segment_size. */
static basalt_status map_file(struct shm_client *c, struct shm_map **out)
{
    int seals = fcntl(c->memfd, F_GET_SEALS);
    if (seals < 0 || !(seals & F_SEAL_SHRINK))
        return basalt_error_set(&c->err, BASALT_CORRUPT,
                                "the producer's file is not a memory file sealed against "
                                "shrinking");
    struct stat sb;
    if (fstat(c->memfd, &sb) != 0)
        return basalt_error_set(&c->err, BASALT_IO, "fstat: %s", strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return basalt_error_set(&c->err, BASALT_CORRUPT, "the producer's file is not a file");
    c->file_size = (uint64_t)sb.st_size;
    struct shm_map *m = basalt_calloc(1, sizeof *m);
    if (!m)
        return basalt_error_set(&c->err, BASALT_NOMEM, "out of memory for a mapping");
    void *p = mmap(NULL, (size_t)c->o.max_segment_size, PROT_READ, MAP_SHARED, c->memfd, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        basalt_free(m);
        return basalt_error_set(&c->err, e == ENOMEM ? BASALT_LIMIT : BASALT_IO,
                                "mapping %llu bytes: %s",
                                (unsigned long long)c->o.max_segment_size, strerror(e));
    }
    m->map = p;
    m->map_size = c->o.max_segment_size;
    snprintf(m->name, sizeof m->name, "flight shm %s", c->path);
    m->in.ops = &map_ops;
    m->in.size = m->map_size;
    m->in.name = m->name;
    c->map = m->map;
    c->map_size = m->map_size;
    *out = m;
    return BASALT_OK;
}

static basalt_status client_start(struct shm_client *c, const void *ticket, size_t ticket_len)
{
    basalt_status st = connect_to(c->path, &c->sock, &c->err);
    if (st != BASALT_OK)
        return st;
    uint8_t *req = basalt_malloc(SHM_REQUEST_HEAD + ticket_len);
    if (!req)
        return basalt_error_set(&c->err, BASALT_NOMEM, "out of memory for a request");
    memcpy(req, SHM_REQUEST_MAGIC, 8);
    for (int i = 0; i < 4; i++)
        req[8 + i] = (uint8_t)((uint32_t)ticket_len >> (8 * i));
    if (ticket_len)
        memcpy(req + SHM_REQUEST_HEAD, ticket, ticket_len);
    st = basalt_flight_shm_send(c->sock, req, SHM_REQUEST_HEAD + ticket_len, -1, &c->err);
    basalt_free(req);
    if (st != BASALT_OK)
        return basalt_error_context(&c->err, st, "request");
    struct shm_record r;
    int fd = -1;
    st = next_record(c, &r, &fd);
    if (st != BASALT_OK)
        return st;
    c->memfd = fd;
    if (r.type != SHM_RECORD_SEGMENT || fd < 0)
        return basalt_error_set(&c->err, BASALT_CORRUPT,
                                "the first record is not a segment with its file");
    struct shm_map *m = NULL;
    st = map_file(c, &m);
    if (st != BASALT_OK)
        return st;
    st = check_range(c, &r);
    if (st != BASALT_OK) {
        map_close(&m->in);
        c->map = NULL;
        return st;
    }
    st = basalt_ipc_reader_open_at(&m->in, r.offset, r.length, &c->o.ipc, &c->reader, &c->err);
    if (st != BASALT_OK)
        return basalt_error_context(&c->err, st, "schema");
    c->published = r.offset + r.length;
    return BASALT_OK;
}

basalt_status basalt_flight_shm_open(const char *socket_path, const void *ticket,
                                     size_t ticket_len,
                                     const struct basalt_flight_shm_client_options *options,
                                     struct ArrowArrayStream *out, struct basalt_error *err)
{
    if (out)
        out->release = NULL;
    if (!socket_path || !out || (!ticket && ticket_len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight shm: NULL argument");
    if (ticket_len > BASALT_FLIGHT_SHM_MAX_TICKET)
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight shm: ticket of %zu bytes (%d at "
                                                         "most)",
                                ticket_len, BASALT_FLIGHT_SHM_MAX_TICKET);
    size_t path_len = strlen(socket_path);
    if (path_len == 0 || path_len >= sizeof ((struct shm_client *)NULL)->path)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "flight shm: socket path of %zu bytes (1 to %zu)", path_len,
                                sizeof ((struct shm_client *)NULL)->path - 1);
    struct shm_client *c = basalt_calloc(1, sizeof *c);
    if (!c)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a stream");
    c->sock = c->memfd = -1;
    basalt_error_init(&c->err);
    if (options)
        c->o = *options;
    else
        basalt_flight_shm_client_options_init(&c->o);
    if (c->o.max_records <= 0)
        c->o.max_records = (int64_t)1 << 24;
    snprintf(c->path, sizeof c->path, "%s", socket_path);
    basalt_status st;
    if (c->o.max_segment_size < 4096 || c->o.max_segment_size > ((uint64_t)1 << 46))
        st = basalt_error_set(&c->err, BASALT_INVALID_ARG, "max_segment_size %llu",
                              (unsigned long long)c->o.max_segment_size);
    else
        st = client_start(c, ticket, ticket_len);
    if (st != BASALT_OK) {
        basalt_error_context(&c->err, st, "flight shm %s", socket_path);
        if (err)
            basalt_error_set(err, st, "%s", c->err.message);
        client_disconnect(c);
        basalt_ipc_reader_close(c->reader);
        basalt_free(c);
        return st;
    }
    out->get_schema = stream_get_schema;
    out->get_next = stream_get_next;
    out->get_last_error = stream_last_error;
    out->release = stream_release;
    out->private_data = c;
    return BASALT_OK;
}

basalt_status basalt_flight_shm_stream_info(const struct ArrowArrayStream *stream,
                                            struct basalt_flight_shm_stream_info *out,
                                            struct basalt_error *err)
{
    if (!stream || !out || stream->release != stream_release)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "flight shm: not a stream from basalt_flight_shm_open");
    const struct shm_client *c = stream->private_data;
    memset(out, 0, sizeof *out);
    out->mapping = c->map;
    out->mapped_size = c->map_size;
    out->published = c->published;
    out->records = c->records;
    out->batches = c->batches;
    out->ended = c->ended;
    out->status = c->status;
    basalt_ipc_reader_stats(c->reader, &out->ipc);
    return BASALT_OK;
}
