/* The shared-memory transport's consumer: connects, asks for a ticket, maps
 * the memory file it is given read-only and decodes each published range in
 * place, as an ArrowArrayStream (include/basalt/flight_shm.h,
 * shm_internal.h). When the last array pointing into a range is released,
 * the range is handed back to the producer (a RELEASE packet), which
 * writes later batches there: pages already in the file are reused rather
 * than new ones allocated and zeroed for every batch. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "basalt/arrow_fb.h"
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

/* The read-only mapping, held by the stream and by every range whose
 * arrays are alive; unmapped when the last lets go. */
struct shm_map {
    atomic_long refs;
    uint8_t *map;
    uint64_t map_size;
};

static void map_unref(struct shm_map *m)
{
    if (m && atomic_fetch_sub(&m->refs, 1) == 1) {
        munmap(m->map, (size_t)m->map_size);
        basalt_free(m);
    }
}

/* The way back to the producer, shared by the stream and the live ranges:
 * array releases may run on any thread, after the stream is gone. */
struct shm_channel {
    atomic_long refs;
    pthread_mutex_t lock;
    int sock;            /* -1 once the stream closed it */
    struct { uint64_t offset, length; } *live; /* ranges whose arrays are alive */
    size_t n_live, cap_live;
};

static void channel_unref(struct shm_channel *ch)
{
    if (ch && atomic_fetch_sub(&ch->refs, 1) == 1) {
        pthread_mutex_destroy(&ch->lock);
        basalt_free(ch->live);
        basalt_free(ch);
    }
}

/* One published range: its messages' bodies are pushed to the reader with
 * range_unref as their free callback. */
struct shm_range {
    atomic_long refs;
    struct shm_channel *ch;
    struct shm_map *map;
    uint64_t offset, length;
};

static void range_unref(void *vr)
{
    struct shm_range *r = vr;
    if (atomic_fetch_sub(&r->refs, 1) != 1)
        return;
    struct shm_channel *ch = r->ch;
    pthread_mutex_lock(&ch->lock);
    for (size_t i = 0; i < ch->n_live; i++)
        if (ch->live[i].offset == r->offset) {
            ch->live[i] = ch->live[--ch->n_live];
            break;
        }
    if (ch->sock >= 0) {
        uint8_t pkt[SHM_RELEASE_SIZE];
        memcpy(pkt, SHM_RELEASE_MAGIC, 8);
        for (int i = 0; i < 8; i++) {
            pkt[8 + i] = (uint8_t)(r->offset >> (8 * i));
            pkt[16 + i] = (uint8_t)(r->length >> (8 * i));
        }
        /* Best effort: a producer that is gone no longer needs it. */
        (void)!send(ch->sock, pkt, sizeof pkt, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    pthread_mutex_unlock(&ch->lock);
    map_unref(r->map);
    channel_unref(ch);
    basalt_free(r);
}

/* ------------------------------------------------------------ the session */

/* A connection to a producer and the memory file it shares, read one
 * stream at a time: the session (basalt_flight_shm_session_*) or the one
 * stream of basalt_flight_shm_open. The connection and the mapping last
 * across streams, so that the producer writes each stream over memory the
 * last one handed back and the consumer reads it through pages it has
 * already mapped. */
struct basalt_flight_shm_session {
    int refs; /* the session handle and the open stream; one thread at a time */
    bool handle; /* basalt_flight_shm_session_close not called yet */
    bool single; /* basalt_flight_shm_open: one stream, then the connection ends */
    int sock;
    int memfd;
    struct shm_map *mapping;
    struct shm_channel *ch;
    const uint8_t *map;
    uint64_t map_size;
    uint64_t file_size; /* last seen; only grows (F_SEAL_SHRINK) */
    int64_t connection_streams; /* streams begun on this connection */
    bool no_populate; /* MADV_POPULATE_READ is not there */
    struct basalt_flight_shm_client_options o;
    char path[108];
    /* The stream being read (at most one). */
    bool streaming;
    struct basalt_ipc_reader *reader; /* fed the published messages */
    uint64_t published;
    int64_t records;
    int64_t batches;
    bool ended;
    basalt_status status;
    struct basalt_error err;
};

/* The old name inside this file: most of it reads one stream. */
#define shm_client basalt_flight_shm_session

static void client_disconnect(struct shm_client *c)
{
    if (c->ch) {
        pthread_mutex_lock(&c->ch->lock);
        c->ch->sock = -1; /* releases after this are not sent */
        pthread_mutex_unlock(&c->ch->lock);
    }
    channel_unref(c->ch);
    c->ch = NULL;
    if (c->sock >= 0)
        close(c->sock);
    if (c->memfd >= 0)
        close(c->memfd);
    c->sock = c->memfd = -1;
    c->connection_streams = 0;
    /* The mapping stays (the stream's counters name it) until the next
     * connection's file replaces it or the session goes; arrays still
     * pointing into it keep it mapped longer. */
}

/* Makes `st` final for the stream: every later get_next returns it; the
 * connection is closed (the mapping stays while arrays live), and the
 * session's next stream connects again. */
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

/* Checks that [offset, offset + length) lies inside the file (refreshing
 * its size, which only grows) and the mapping. */
static basalt_status check_inside(struct shm_client *c, uint64_t offset, uint64_t length,
                                  const char *what)
{
    uint64_t end = offset + length;
    if (end < offset)
        return basalt_error_set(&c->err, BASALT_CORRUPT, "%s of %llu bytes at %llu", what,
                                (unsigned long long)length, (unsigned long long)offset);
    if (end > c->file_size) {
        struct stat sb;
        if (fstat(c->memfd, &sb) != 0)
            return basalt_error_set(&c->err, BASALT_IO, "fstat: %s", strerror(errno));
        c->file_size = (uint64_t)sb.st_size;
        if (end > c->file_size)
            return basalt_error_set(&c->err, BASALT_CORRUPT,
                                    "%s [%llu, %llu) passes the end of the memory file (%llu "
                                    "bytes)",
                                    what, (unsigned long long)offset, (unsigned long long)end,
                                    (unsigned long long)c->file_size);
    }
    if (end > c->map_size)
        return basalt_error_set(&c->err, BASALT_LIMIT, "%s [%llu, %llu) passes max_segment_size "
                                "(%llu)", what, (unsigned long long)offset,
                                (unsigned long long)end, (unsigned long long)c->map_size);
    return BASALT_OK;
}

/* Maps [offset, offset + length) of the file in one call rather than a
 * fault per page (Linux 5.14; elsewhere the faults happen as the consumer
 * reads). The range is inside the file, so this cannot fail for want of
 * pages. */
static void populate(struct shm_client *c, uint64_t offset, uint64_t length)
{
    if (c->no_populate || length == 0)
        return;
    uint64_t lo = offset & ~(uint64_t)4095;
    if (madvise((void *)(uintptr_t)(c->map + lo), (size_t)(offset + length - lo),
                MADV_POPULATE_READ) != 0 &&
        errno == EINVAL)
        c->no_populate = true;
}

/* Checks that [offset, offset + length) is published memory: after the
 * previous range, inside the file (whose size only grows) and the mapping. */
static basalt_status check_range(struct shm_client *c, const struct shm_record *r)
{
    if (r->length == 0 || r->offset + r->length < r->offset)
        return basalt_error_set(&c->err, BASALT_CORRUPT, "manifest range of %llu bytes at %llu",
                                (unsigned long long)r->length, (unsigned long long)r->offset);
    uint64_t end = r->offset + r->length;
    /* A range may reuse memory the consumer handed back, never memory its
     * arrays still point into. */
    if (c->ch) {
        pthread_mutex_lock(&c->ch->lock);
        bool overlaps = false;
        for (size_t i = 0; i < c->ch->n_live && !overlaps; i++)
            overlaps = r->offset < c->ch->live[i].offset + c->ch->live[i].length &&
                       c->ch->live[i].offset < end;
        pthread_mutex_unlock(&c->ch->lock);
        if (overlaps)
            return basalt_error_set(&c->err, BASALT_CORRUPT,
                                    "manifest range at %llu overlaps a range still in use",
                                    (unsigned long long)r->offset);
    }
    return check_inside(c, r->offset, r->length, "manifest range");
}

/* The message framed at `pos` inside [pos, end): its flatbuffer and its
 * bodyLength, unchecked. */
static basalt_status message_at(struct shm_client *c, uint64_t pos, uint64_t end,
                                const uint8_t **meta, uint32_t *meta_len, int64_t *body_len)
{
    if (end - pos < 8)
        return basalt_error_set(&c->err, BASALT_CORRUPT, "no message at %llu",
                                (unsigned long long)pos);
    const uint8_t *p = c->map + pos;
    uint32_t cont = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                    (uint32_t)p[3] << 24;
    uint32_t len = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 |
                   (uint32_t)p[7] << 24;
    if (cont != 0xFFFFFFFFu || len == 0 || len > end - pos - 8)
        return basalt_error_set(&c->err, BASALT_CORRUPT, "message at %llu: bad framing",
                                (unsigned long long)pos);
    struct basalt_arrow_fb fb;
    struct basalt_arrow_fb_table msg;
    int64_t body = 0;
    basalt_status st = basalt_arrow_fb_init(&fb, p + 8, len, &c->err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_root(&fb, &msg, &c->err);
    if (st == BASALT_OK)
        st = basalt_arrow_fb_i64(&msg, 3, 0, &body, &c->err);
    if (st != BASALT_OK)
        return basalt_error_context(&c->err, st, "message at %llu", (unsigned long long)pos);
    *meta = p + 8;
    *meta_len = len;
    *body_len = body;
    return BASALT_OK;
}

/* The message framed at `pos` inside [pos, end) with its body after it. */
static basalt_status frame_at(struct shm_client *c, uint64_t pos, uint64_t end,
                              const uint8_t **meta, uint32_t *meta_len, uint64_t *body_len)
{
    int64_t body = 0;
    basalt_status st = message_at(c, pos, end, meta, meta_len, &body);
    if (st != BASALT_OK)
        return st;
    if (body < 0 || (uint64_t)body > end - pos - 8 - *meta_len)
        return basalt_error_set(&c->err, BASALT_CORRUPT, "message at %llu: a body of %lld bytes "
                                "passes its range", (unsigned long long)pos, (long long)body);
    *body_len = (uint64_t)body;
    return BASALT_OK;
}

/* The message of a PLACED range at `pos`: its body's offset in the file,
 * then the message framed without its body, which is checked to lie in the
 * file and mapped in. */
static basalt_status placed_message_at(struct shm_client *c, uint64_t pos, uint64_t end,
                                       const uint8_t **meta, uint32_t *meta_len,
                                       const uint8_t **body, uint64_t *body_len)
{
    if (end - pos < 8)
        return basalt_error_set(&c->err, BASALT_CORRUPT, "no message at %llu",
                                (unsigned long long)pos);
    uint64_t at = 0;
    for (int i = 0; i < 8; i++)
        at |= (uint64_t)c->map[pos + (uint64_t)i] << (8 * i);
    int64_t len = 0;
    basalt_status st = message_at(c, pos + 8, end, meta, meta_len, &len);
    if (st == BASALT_OK && len < 0)
        st = basalt_error_set(&c->err, BASALT_CORRUPT, "message at %llu: a body of %lld bytes",
                              (unsigned long long)pos, (long long)len);
    if (st == BASALT_OK)
        st = check_inside(c, at, (uint64_t)len, "message body");
    if (st != BASALT_OK)
        return st;
    populate(c, at, (uint64_t)len);
    *body = c->map + at;
    *body_len = (uint64_t)len;
    return BASALT_OK;
}

/* Decodes the messages of one BATCH or PLACED range in place; a record
 * batch (it must come last) lands in `out`. The range, and the bodies of a
 * PLACED one, are live until the last array pointing into them is
 * released. */
static basalt_status decode_range(struct shm_client *c, const struct shm_record *r,
                                  struct ArrowArray *out)
{
    uint64_t pos = r->offset, end = r->offset + r->length;
    bool placed = r->type == SHM_RECORD_PLACED;
    if (!placed)
        populate(c, pos, end - pos);
    struct shm_range *range = basalt_calloc(1, sizeof *range);
    if (!range)
        return basalt_error_set(&c->err, BASALT_NOMEM, "out of memory");
    pthread_mutex_lock(&c->ch->lock);
    if (c->ch->n_live == c->ch->cap_live) {
        size_t cap = c->ch->cap_live ? 2 * c->ch->cap_live : 16;
        void *live = basalt_realloc(c->ch->live, cap * sizeof *c->ch->live);
        if (live) {
            c->ch->live = live;
            c->ch->cap_live = cap;
        }
    }
    bool tracked = c->ch->n_live < c->ch->cap_live;
    if (tracked) {
        c->ch->live[c->ch->n_live].offset = r->offset;
        c->ch->live[c->ch->n_live++].length = r->length;
    }
    pthread_mutex_unlock(&c->ch->lock);
    if (!tracked) {
        basalt_free(range);
        return basalt_error_set(&c->err, BASALT_NOMEM, "out of memory");
    }
    atomic_init(&range->refs, 1); /* held while decoding */
    range->ch = c->ch;
    atomic_fetch_add(&c->ch->refs, 1);
    range->map = c->mapping;
    atomic_fetch_add(&c->mapping->refs, 1);
    range->offset = r->offset;
    range->length = r->length;
    basalt_status st = BASALT_OK;
    while (st == BASALT_OK && pos < end) {
        if (out->release) {
            basalt_arrow_array_release(out);
            st = basalt_error_set(&c->err, BASALT_CORRUPT,
                                  "%llu bytes after the record batch of the range at %llu",
                                  (unsigned long long)(end - pos), (unsigned long long)r->offset);
            break;
        }
        const uint8_t *meta = NULL, *body = NULL;
        uint32_t meta_len = 0;
        uint64_t body_len = 0;
        if (placed) {
            st = placed_message_at(c, pos, end, &meta, &meta_len, &body, &body_len);
            pos += 8 + 8 + meta_len;
        } else {
            st = frame_at(c, pos, end, &meta, &meta_len, &body_len);
            body = meta + meta_len;
            pos += 8 + meta_len + body_len;
        }
        if (st != BASALT_OK)
            break;
        atomic_fetch_add(&range->refs, 1); /* the body's, dropped by the reader */
        st = basalt_ipc_reader_push_message(c->reader, meta, meta_len, body, (size_t)body_len,
                                            range_unref, range, out, &c->err);
    }
    range_unref(range);
    if (st == BASALT_OK)
        c->published = end;
    return st;
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
        case SHM_RECORD_PLACED:
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
            /* The stream alone (basalt_flight_shm_open) closes at once:
             * the producer is done when the consumer goes. */
            if (!c->handle)
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

static void session_unref(struct shm_client *c)
{
    if (--c->refs > 0)
        return;
    client_disconnect(c);
    map_unref(c->mapping);
    basalt_ipc_reader_close(c->reader);
    basalt_free(c);
}

/* The stream is done: a stream left before its end takes the connection
 * with it (the producer stops writing it). */
static void stream_end(struct shm_client *c)
{
    if (!c->ended)
        client_disconnect(c);
    basalt_ipc_reader_close(c->reader);
    c->reader = NULL;
    c->streaming = false;
}

static void stream_release(struct ArrowArrayStream *s)
{
    struct shm_client *c = s->private_data;
    stream_end(c);
    session_unref(c);
    s->release = NULL;
}

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
static basalt_status map_file(struct shm_client *c)
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
    atomic_init(&m->refs, 1);
    m->map = p;
    m->map_size = c->o.max_segment_size;
    c->mapping = m;
    c->map = m->map;
    c->map_size = m->map_size;
    return BASALT_OK;
}

static basalt_status send_request(struct shm_client *c, const void *ticket, size_t ticket_len)
{
    uint8_t *req = basalt_malloc(SHM_REQUEST_HEAD + ticket_len);
    if (!req)
        return basalt_error_set(&c->err, BASALT_NOMEM, "out of memory for a request");
    memcpy(req, c->single ? SHM_REQUEST_MAGIC : SHM_SESSION_REQUEST_MAGIC, 8);
    for (int i = 0; i < 4; i++)
        req[8 + i] = (uint8_t)((uint32_t)ticket_len >> (8 * i));
    if (ticket_len)
        memcpy(req + SHM_REQUEST_HEAD, ticket, ticket_len);
    basalt_status st = basalt_flight_shm_send(c->sock, req, SHM_REQUEST_HEAD + ticket_len, -1,
                                              &c->err);
    basalt_free(req);
    return st;
}

/* Asks for `ticket` on the connection (made when there is none) and reads
 * the stream's first record: the memory file with the connection's first
 * stream, then its schema message. *stale is set when a connection that
 * served earlier streams turned out closed (the producer's idle timeout)
 * before answering: asking again on a new one is safe. */
static basalt_status begin_stream(struct shm_client *c, const void *ticket, size_t ticket_len,
                                  bool *stale)
{
    *stale = false;
    basalt_status st = BASALT_OK;
    if (c->sock < 0)
        st = connect_to(c->path, &c->sock, &c->err);
    if (st != BASALT_OK)
        return st;
    bool first = c->connection_streams == 0;
    c->connection_streams++;
    st = send_request(c, ticket, ticket_len);
    if (st != BASALT_OK)
        basalt_error_context(&c->err, st, "request");
    struct shm_record r;
    int fd = -1;
    if (st == BASALT_OK)
        st = next_record(c, &r, &fd);
    if (st != BASALT_OK) {
        *stale = !first && st == BASALT_IO && c->records == 0;
        return st;
    }
    /* The file comes with the connection's first stream only. */
    if (r.type != SHM_RECORD_SEGMENT || (fd >= 0) != first) {
        if (fd >= 0)
            close(fd);
        return basalt_error_set(&c->err, BASALT_CORRUPT,
                                first ? "the first record is not a segment with its file"
                                      : "a later stream's first record is not a segment record "
                                        "without a file");
    }
    if (first) {
        map_unref(c->mapping);
        c->mapping = NULL;
        c->map = NULL;
        c->memfd = fd;
        st = map_file(c);
    }
    if (st == BASALT_OK)
        st = check_range(c, &r);
    if (st != BASALT_OK)
        return st;
    /* The schema message: no body. */
    const uint8_t *meta = NULL;
    uint32_t meta_len = 0;
    uint64_t body_len = 0;
    char name[160];
    snprintf(name, sizeof name, "flight shm %s", c->path);
    struct ArrowArray none;
    st = basalt_ipc_reader_new_messages(name, &c->o.ipc, &c->reader, &c->err);
    if (st == BASALT_OK)
        st = frame_at(c, r.offset, r.offset + r.length, &meta, &meta_len, &body_len);
    if (st == BASALT_OK)
        st = basalt_ipc_reader_push_message(c->reader, meta, meta_len, NULL, 0, NULL, NULL, &none,
                                            &c->err);
    if (st == BASALT_OK && none.release) {
        basalt_arrow_array_release(&none);
        st = basalt_error_set(&c->err, BASALT_CORRUPT, "the segment starts with a record batch");
    }
    if (st != BASALT_OK)
        return basalt_error_context(&c->err, st, "schema");
    if (!c->ch) {
        c->ch = basalt_calloc(1, sizeof *c->ch);
        if (!c->ch)
            return basalt_error_set(&c->err, BASALT_NOMEM, "out of memory");
        atomic_init(&c->ch->refs, 1);
        pthread_mutex_init(&c->ch->lock, NULL);
        c->ch->sock = c->sock;
    }
    c->published = r.offset + r.length;
    return BASALT_OK;
}

static basalt_status check_path(const char *socket_path, struct basalt_error *err)
{
    size_t path_len = strlen(socket_path);
    if (path_len == 0 || path_len >= sizeof ((struct shm_client *)NULL)->path)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "flight shm: socket path of %zu bytes (1 to %zu)", path_len,
                                sizeof ((struct shm_client *)NULL)->path - 1);
    return BASALT_OK;
}

basalt_status basalt_flight_shm_session_open(const char *socket_path,
                                             const struct basalt_flight_shm_client_options *options,
                                             struct basalt_flight_shm_session **out,
                                             struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (!socket_path || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight shm: NULL argument");
    basalt_status st = check_path(socket_path, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_flight_shm_client_options o;
    if (options)
        o = *options;
    else
        basalt_flight_shm_client_options_init(&o);
    if (o.max_records <= 0)
        o.max_records = (int64_t)1 << 24;
    if (o.max_segment_size < 4096 || o.max_segment_size > ((uint64_t)1 << 46))
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight shm: max_segment_size %llu",
                                (unsigned long long)o.max_segment_size);
    struct shm_client *c = basalt_calloc(1, sizeof *c);
    if (!c)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a session");
    c->refs = 1;
    c->handle = true;
    c->sock = c->memfd = -1;
    c->o = o;
    basalt_error_init(&c->err);
    snprintf(c->path, sizeof c->path, "%s", socket_path);
    *out = c;
    return BASALT_OK;
}

basalt_status basalt_flight_shm_session_get(struct basalt_flight_shm_session *c,
                                            const void *ticket, size_t ticket_len,
                                            struct ArrowArrayStream *out,
                                            struct basalt_error *err)
{
    if (out)
        out->release = NULL;
    if (!c || !out || (!ticket && ticket_len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight shm: NULL argument");
    if (ticket_len > BASALT_FLIGHT_SHM_MAX_TICKET)
        return basalt_error_set(err, BASALT_INVALID_ARG, "flight shm: ticket of %zu bytes (%d at "
                                                         "most)",
                                ticket_len, BASALT_FLIGHT_SHM_MAX_TICKET);
    if (c->streaming)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "flight shm: the session's last stream is still open");
    c->status = BASALT_OK;
    c->published = 0;
    c->records = c->batches = 0;
    c->ended = false;
    basalt_error_init(&c->err);
    bool stale;
    basalt_status st = begin_stream(c, ticket, ticket_len, &stale);
    if (st != BASALT_OK && stale) {
        client_disconnect(c);
        basalt_ipc_reader_close(c->reader);
        c->reader = NULL;
        c->records = 0;
        basalt_error_init(&c->err);
        st = begin_stream(c, ticket, ticket_len, &stale);
    }
    if (st != BASALT_OK) {
        basalt_error_context(&c->err, st, "flight shm %s", c->path);
        if (err)
            basalt_error_set(err, st, "%s", c->err.message);
        client_disconnect(c);
        basalt_ipc_reader_close(c->reader);
        c->reader = NULL;
        return st;
    }
    c->streaming = true;
    c->refs++;
    out->get_schema = stream_get_schema;
    out->get_next = stream_get_next;
    out->get_last_error = stream_last_error;
    out->release = stream_release;
    out->private_data = c;
    return BASALT_OK;
}

void basalt_flight_shm_session_close(struct basalt_flight_shm_session *c)
{
    if (!c)
        return;
    c->handle = false;
    if (!c->streaming)
        client_disconnect(c); /* tells the producer the session is over */
    session_unref(c);
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
    struct basalt_flight_shm_session *c;
    basalt_status st = basalt_flight_shm_session_open(socket_path, options, &c, err);
    if (st != BASALT_OK)
        return st;
    c->single = true;
    st = basalt_flight_shm_session_get(c, ticket, ticket_len, out, err);
    /* The stream alone holds the session now: its end closes the
     * connection. */
    c->handle = false;
    session_unref(c);
    return st;
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
