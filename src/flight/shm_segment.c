/* The shared-memory producer's segment: a memory file mapped once over
 * max_segment_size bytes of address space, and the allocator over it.
 *
 * Everything in the file is a chunk: a buffer the source stream's decoder
 * allocated there (the values of a Parquet column, decoded straight into
 * the file), a copy of a buffer that was not there, or a batch's metadata.
 * A chunk is held by the producer's arrays that own it (one hold, dropped
 * when they are released) and by each published batch that points into it
 * (one hold per batch, dropped when the consumer hands the batch back).
 * Chunks without holds go to a free list that later chunks are cut from,
 * so that a consumer releasing batches as it goes keeps the file at a few
 * row groups' size and its pages, once allocated and zeroed, are written
 * again and again.
 *
 * The decoder allocates on whichever threads decode, and arrays are
 * released on any thread, possibly after the connection ended: one mutex
 * guards the bookkeeping, and the segment itself is freed when the
 * connection is done with it and no chunk is held. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shm_internal.h"

struct seg_chunk {
    uint64_t offset, length;
    int64_t holds;
};

struct seg_ranges {
    struct { uint64_t offset, length; } *r;
    size_t n, cap;
};

/* A published batch: its metadata chunk (how the consumer names it when it
 * hands it back), the chunks it holds and the bytes it counts as held by
 * the consumer. */
struct seg_batch {
    uint64_t meta_offset;
    uint64_t *holds; /* chunk offsets, one per hold */
    size_t n_holds;
    uint64_t bytes;
};

struct shm_segment {
    pthread_mutex_t mu;
    struct basalt_arrow_allocator allocator; /* ctx: this */
    int fd;
    uint8_t *map;
    uint64_t map_size;
    uint64_t file_size;
    uint64_t grow_step;
    uint64_t end;          /* chunks are cut below this; the file grows past it */
    bool no_populate;      /* MADV_POPULATE_WRITE is not there: fallocate */
    struct seg_chunk *chunks; /* sorted by offset */
    size_t n_chunks, cap_chunks;
    struct seg_ranges free;
    struct seg_batch *sent; /* published, not handed back */
    size_t n_sent, cap_sent;
    uint64_t consumer_bytes; /* bytes of the batches in `sent` */
    /* The consumer's socket, read for RELEASE packets; the wait for memory
     * to come back (see reuse_window) is given up after one timeout. */
    int sock;
    uint64_t reuse_window;
    bool waiting;
    bool consumer_gone;
    bool consumer_confused; /* it sent a packet that is not a release */
    bool closed; /* the connection let go: freed with the last hold */
    bool has_schema;
    uint64_t schema_chunk; /* the current stream's schema message */
    struct shm_segment_stats stats;
};

/* ------------------------------------------------------------ the file */

/* Grows the file to hold `need` bytes, allocating its pages now, where
 * running out of memory is an error, not at the first write into the
 * mapping, where it would be SIGBUS. Called with mu held. */
static basalt_status grow(struct shm_segment *s, uint64_t need, struct basalt_error *err)
{
    if (need > s->map_size)
        return basalt_error_set(err, BASALT_LIMIT,
                                "the stream needs more than max_segment_size (%llu bytes)",
                                (unsigned long long)s->map_size);
    /* Doubling from 1 MiB up to steps of grow_step: a small split does not
     * pay for pages it never fills (each one is zeroed on allocation). */
    uint64_t step = s->file_size < s->grow_step ? s->file_size : s->grow_step;
    if (step < ((uint64_t)1 << 20))
        step = (uint64_t)1 << 20;
    uint64_t size = s->file_size + step;
    if (size < need)
        size = need;
    size = (size + 4095) & ~(uint64_t)4095;
    if (size > s->map_size)
        size = s->map_size;
    /* MADV_POPULATE_WRITE (Linux 5.14) allocates and maps the pages in one
     * call, sparing a page fault per page (costly on virtual machines);
     * older kernels get fallocate. */
    uint64_t old = s->file_size;
    int rc = ftruncate(s->fd, (off_t)size);
    if (rc == 0 && !s->no_populate) {
        do
            rc = madvise(s->map + old, (size_t)(size - old), MADV_POPULATE_WRITE);
        while (rc != 0 && errno == EINTR);
        if (rc != 0 && errno == EINVAL) {
            s->no_populate = true;
            rc = 0;
        }
    }
    if (rc == 0 && s->no_populate) {
        do
            rc = fallocate(s->fd, 0, (off_t)old, (off_t)(size - old));
        while (rc != 0 && errno == EINTR);
        if (rc != 0 && (errno == EOPNOTSUPP || errno == ENOSYS))
            rc = 0;
    }
    if (rc != 0)
        return basalt_error_set(err,
                                errno == ENOSPC || errno == ENOMEM || errno == EFAULT
                                    ? BASALT_NOMEM
                                    : BASALT_IO,
                                "growing the memory file to %llu bytes: %s",
                                (unsigned long long)size, strerror(errno));
    s->file_size = size;
    return BASALT_OK;
}

/* ------------------------------------------------------------ free ranges */

/* Adds a range, merged with its neighbours. A list that cannot grow only
 * means the range is not reused. */
static void free_add(struct seg_ranges *f, uint64_t offset, uint64_t length)
{
    size_t i = 0;
    while (i < f->n && f->r[i].offset < offset)
        i++;
    if (i > 0 && f->r[i - 1].offset + f->r[i - 1].length == offset) {
        f->r[i - 1].length += length;
        if (i < f->n && f->r[i - 1].offset + f->r[i - 1].length == f->r[i].offset) {
            f->r[i - 1].length += f->r[i].length;
            memmove(&f->r[i], &f->r[i + 1], (f->n - i - 1) * sizeof *f->r);
            f->n--;
        }
        return;
    }
    if (i < f->n && offset + length == f->r[i].offset) {
        f->r[i].offset = offset;
        f->r[i].length += length;
        return;
    }
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 16;
        void *r = basalt_realloc(f->r, cap * sizeof *f->r);
        if (!r)
            return;
        f->r = r;
        f->cap = cap;
    }
    memmove(&f->r[i + 1], &f->r[i], (f->n - i) * sizeof *f->r);
    f->r[i].offset = offset;
    f->r[i].length = length;
    f->n++;
}

/* Takes `need` bytes from the first free range that holds them. */
static bool free_take(struct seg_ranges *f, uint64_t need, uint64_t *offset)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->r[i].length >= need) {
            *offset = f->r[i].offset;
            f->r[i].offset += need;
            f->r[i].length -= need;
            if (f->r[i].length == 0) {
                memmove(&f->r[i], &f->r[i + 1], (f->n - i - 1) * sizeof *f->r);
                f->n--;
            }
            return true;
        }
    return false;
}

/* ------------------------------------------------------------ chunks */

/* The index of the last chunk starting at or before `offset` (SIZE_MAX:
 * none). */
static size_t chunk_at_or_before(const struct shm_segment *s, uint64_t offset)
{
    size_t lo = 0, hi = s->n_chunks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->chunks[mid].offset <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : SIZE_MAX;
}

/* The chunk holding [offset, offset + length), or NULL. */
static struct seg_chunk *chunk_holding(struct shm_segment *s, uint64_t offset, uint64_t length)
{
    size_t i = chunk_at_or_before(s, offset);
    if (i == SIZE_MAX)
        return NULL;
    struct seg_chunk *c = &s->chunks[i];
    return offset + length <= c->offset + c->length ? c : NULL;
}

/* Drops one hold on the chunk at `offset`; at none it is free again. */
static void chunk_drop(struct shm_segment *s, uint64_t offset)
{
    size_t i = chunk_at_or_before(s, offset);
    if (i == SIZE_MAX || s->chunks[i].offset != offset)
        return;
    if (--s->chunks[i].holds > 0)
        return;
    free_add(&s->free, s->chunks[i].offset, s->chunks[i].length);
    memmove(&s->chunks[i], &s->chunks[i + 1], (s->n_chunks - i - 1) * sizeof *s->chunks);
    s->n_chunks--;
}

static void segment_free(struct shm_segment *s)
{
    if (s->map != MAP_FAILED)
        munmap(s->map, (size_t)s->map_size);
    if (s->fd >= 0)
        close(s->fd);
    for (size_t i = 0; i < s->n_sent; i++)
        basalt_free(s->sent[i].holds);
    basalt_free(s->sent);
    basalt_free(s->chunks);
    basalt_free(s->free.r);
    pthread_mutex_destroy(&s->mu);
    basalt_free(s);
}

/* ------------------------------------------------------------ releases */

/* Hands back the batch whose metadata is at `meta_offset`. Only batches
 * this producer published count: a confused consumer cannot make it
 * overwrite a live chunk. Called with mu held. */
static void batch_returned(struct shm_segment *s, uint64_t meta_offset)
{
    for (size_t i = 0; i < s->n_sent; i++) {
        struct seg_batch *b = &s->sent[i];
        if (b->meta_offset != meta_offset)
            continue;
        for (size_t k = 0; k < b->n_holds; k++)
            chunk_drop(s, b->holds[k]);
        s->consumer_bytes -= b->bytes;
        basalt_free(b->holds);
        s->sent[i] = s->sent[--s->n_sent];
        return;
    }
}

static uint64_t release_offset(const uint8_t *pkt)
{
    uint64_t offset = 0;
    for (int i = 0; i < 8; i++)
        offset |= (uint64_t)pkt[8 + i] << (8 * i);
    return offset;
}

void basalt_flight_shm_segment_release_packet(struct shm_segment *s, const uint8_t *pkt)
{
    pthread_mutex_lock(&s->mu);
    batch_returned(s, release_offset(pkt));
    pthread_mutex_unlock(&s->mu);
}

/* Reads the RELEASE packets waiting on the socket without blocking. IO when
 * the consumer closed its end. Called with mu held. */
static basalt_status take_releases(struct shm_segment *s, struct basalt_error *err)
{
    if (s->consumer_gone)
        return basalt_error_set(err, BASALT_IO, "the consumer went away");
    if (s->consumer_confused)
        return basalt_error_set(err, BASALT_CORRUPT, "the consumer sent a packet that is not "
                                "a release");
    for (;;) {
        uint8_t pkt[SHM_RELEASE_SIZE + 1];
        ssize_t n = recv(s->sock, pkt, sizeof pkt, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return BASALT_OK;
        if (n <= 0) {
            s->consumer_gone = true;
            if (n == 0)
                return basalt_error_set(err, BASALT_IO, "the consumer went away");
            return basalt_error_set(err, BASALT_IO, "the consumer went away (%s)",
                                    strerror(errno));
        }
        if (n != SHM_RELEASE_SIZE || memcmp(pkt, SHM_RELEASE_MAGIC, 8) != 0) {
            s->consumer_confused = true;
            return basalt_error_set(err, BASALT_CORRUPT, "the consumer sent a packet that is not "
                                    "a release");
        }
        batch_returned(s, release_offset(pkt));
    }
}

basalt_status basalt_flight_shm_segment_take_releases(struct shm_segment *s,
                                                      struct basalt_error *err)
{
    pthread_mutex_lock(&s->mu);
    basalt_status st = take_releases(s, err);
    pthread_mutex_unlock(&s->mu);
    return st;
}

/* ------------------------------------------------------------ allocation */

/* A new chunk of `length` (a multiple of 64) with one hold: memory the
 * consumer handed back if some fits, else at the end, the file grown. The
 * socket is read for more releases only when the free list has no room
 * (the producer reads them once a batch anyway). Past reuse_window bytes
 * held by the consumer, waits (up to 100 ms, once per connection) for some
 * to come back before growing. Called with mu held. */
static basalt_status chunk_new(struct shm_segment *s, uint64_t length, uint64_t *offset,
                               struct basalt_error *err)
{
    struct basalt_error ignored;
    basalt_error_init(&ignored);
    bool placed = free_take(&s->free, length, offset);
    if (!placed) {
        take_releases(s, &ignored); /* a consumer gone is seen when publishing */
        placed = free_take(&s->free, length, offset);
    }
    while (!placed && s->waiting && !s->consumer_gone &&
           s->consumer_bytes + length > s->reuse_window) {
        struct pollfd p = {.fd = s->sock, .events = POLLIN};
        pthread_mutex_unlock(&s->mu);
        int rc = poll(&p, 1, 100);
        pthread_mutex_lock(&s->mu);
        if (rc <= 0) {
            s->waiting = false; /* a consumer that keeps its batches */
            break;
        }
        if (take_releases(s, &ignored) != BASALT_OK)
            break;
        placed = free_take(&s->free, length, offset);
    }
    if (!placed) {
        if (s->end + length > s->file_size) {
            basalt_status st = grow(s, s->end + length, err);
            if (st != BASALT_OK)
                return st;
        }
        *offset = s->end;
        s->end += length;
    }
    if (s->n_chunks == s->cap_chunks) {
        size_t cap = s->cap_chunks ? 2 * s->cap_chunks : 64;
        struct seg_chunk *c = basalt_realloc(s->chunks, cap * sizeof *c);
        if (!c) {
            free_add(&s->free, *offset, length);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for a chunk");
        }
        s->chunks = c;
        s->cap_chunks = cap;
    }
    size_t i = chunk_at_or_before(s, *offset);
    i = i == SIZE_MAX ? 0 : i + 1;
    memmove(&s->chunks[i + 1], &s->chunks[i], (s->n_chunks - i) * sizeof *s->chunks);
    s->chunks[i] = (struct seg_chunk){*offset, length, 1};
    s->n_chunks++;
    return BASALT_OK;
}

static void *seg_allocate(void *ctx, size_t size)
{
    struct shm_segment *s = ctx;
    uint64_t length = ((uint64_t)size + 63) & ~(uint64_t)63, offset;
    struct basalt_error ignored;
    basalt_error_init(&ignored);
    pthread_mutex_lock(&s->mu);
    /* Once the connection is done, or when the file is full: the heap. */
    bool ok = !s->closed && chunk_new(s, length, &offset, &ignored) == BASALT_OK;
    if (ok)
        s->stats.decoded_bytes += length;
    pthread_mutex_unlock(&s->mu);
    return ok ? s->map + offset : NULL;
}

static void seg_release(void *ctx, void *buffer)
{
    struct shm_segment *s = ctx;
    pthread_mutex_lock(&s->mu);
    chunk_drop(s, (uint64_t)((uint8_t *)buffer - s->map));
    bool last = s->closed && s->n_chunks == 0;
    pthread_mutex_unlock(&s->mu);
    if (last)
        segment_free(s);
}

/* ------------------------------------------------------------ lifecycle */

basalt_status basalt_flight_shm_segment_new(const struct basalt_flight_shm_server_options *o,
                                            int sock, struct shm_segment **out,
                                            struct basalt_error *err)
{
    *out = NULL;
    struct shm_segment *s = basalt_calloc(1, sizeof *s);
    if (!s)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a segment");
    pthread_mutex_init(&s->mu, NULL);
    s->fd = -1;
    s->map = MAP_FAILED;
    s->allocator = (struct basalt_arrow_allocator){seg_allocate, seg_release, s};
    s->map_size = o->max_segment_size;
    s->grow_step = o->grow_step ? o->grow_step : ((uint64_t)64 << 20);
    s->sock = sock;
    s->reuse_window = o->reuse_window;
    s->waiting = o->reuse_window > 0;
    s->fd = memfd_create("basalt-flight-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    basalt_status st = BASALT_OK;
    if (s->fd < 0)
        st = basalt_error_set(err, BASALT_IO, "memfd_create: %s", strerror(errno));
    /* Never shrinks, so a consumer's view of what was published cannot
     * fault; and no further seals, so a consumer cannot stop it growing. */
    else if (fcntl(s->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0)
        st = basalt_error_set(err, BASALT_IO, "sealing the memory file: %s", strerror(errno));
    if (st == BASALT_OK) {
        void *map = mmap(NULL, (size_t)s->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
        if (map == MAP_FAILED)
            st = basalt_error_set(err, errno == ENOMEM ? BASALT_LIMIT : BASALT_IO,
                                  "mapping %llu bytes of memory file: %s",
                                  (unsigned long long)s->map_size, strerror(errno));
        else
            s->map = map;
    }
    if (st != BASALT_OK) {
        segment_free(s);
        return st;
    }
    *out = s;
    return BASALT_OK;
}

void basalt_flight_shm_segment_close(struct shm_segment *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    /* The consumer's holds go: its mapping keeps the pages it still reads. */
    for (size_t i = 0; i < s->n_sent; i++) {
        for (size_t k = 0; k < s->sent[i].n_holds; k++)
            chunk_drop(s, s->sent[i].holds[k]);
        basalt_free(s->sent[i].holds);
    }
    s->n_sent = 0;
    if (s->has_schema)
        chunk_drop(s, s->schema_chunk);
    s->has_schema = false;
    s->closed = true;
    bool last = s->n_chunks == 0;
    pthread_mutex_unlock(&s->mu);
    if (last)
        segment_free(s);
}

const struct basalt_arrow_allocator *basalt_flight_shm_segment_allocator(struct shm_segment *s)
{
    return &s->allocator;
}

int basalt_flight_shm_segment_fd(const struct shm_segment *s)
{
    return s->fd;
}

uint64_t basalt_flight_shm_segment_end(struct shm_segment *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t end = s->end;
    pthread_mutex_unlock(&s->mu);
    return end;
}

void basalt_flight_shm_segment_stats(struct shm_segment *s, struct shm_segment_stats *out)
{
    pthread_mutex_lock(&s->mu);
    *out = s->stats;
    pthread_mutex_unlock(&s->mu);
}

/* ------------------------------------------------------------ writing */

basalt_status basalt_flight_shm_segment_write_schema(struct shm_segment *s, const void *data,
                                                     size_t len, uint64_t *offset,
                                                     struct basalt_error *err)
{
    pthread_mutex_lock(&s->mu);
    /* The consumer read the last stream's schema before it asked for this
     * one. */
    if (s->has_schema)
        chunk_drop(s, s->schema_chunk);
    s->has_schema = false;
    basalt_status st = chunk_new(s, ((uint64_t)len + 63) & ~(uint64_t)63, offset, err);
    if (st == BASALT_OK) {
        s->has_schema = true;
        s->schema_chunk = *offset;
    }
    pthread_mutex_unlock(&s->mu);
    if (st == BASALT_OK)
        memcpy(s->map + *offset, data, len);
    return st;
}

/* ------------------------------------------------------------ publishing */

/* The batch being published: the chunks it holds. */
struct placing {
    struct shm_segment *s;
    struct seg_batch b;
    size_t cap_holds;
};

static basalt_status hold(struct placing *p, uint64_t chunk, uint64_t bytes,
                          struct basalt_error *err)
{
    if (p->b.n_holds == p->cap_holds) {
        size_t cap = p->cap_holds ? 2 * p->cap_holds : 16;
        uint64_t *h = basalt_realloc(p->b.holds, cap * sizeof *h);
        if (!h)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for a batch's chunks");
        p->b.holds = h;
        p->cap_holds = cap;
    }
    p->b.holds[p->b.n_holds++] = chunk;
    p->b.bytes += bytes;
    return BASALT_OK;
}

/* The encoder's place function: a buffer of the batch that is already in
 * the file (decoded there) stays where it is and gains a hold; anything else
 * is copied into a chunk of its own. */
static basalt_status place(void *ctx, const void *data, size_t len, bool stable,
                           uint64_t *offset, struct basalt_error *err)
{
    struct placing *p = ctx;
    struct shm_segment *s = p->s;
    const uint8_t *d = data;
    pthread_mutex_lock(&s->mu);
    if (stable && d && d >= s->map && d < s->map + s->end && (uint64_t)(d - s->map) % 8 == 0) {
        uint64_t at = (uint64_t)(d - s->map);
        struct seg_chunk *c = chunk_holding(s, at, len);
        if (c) {
            basalt_status st = hold(p, c->offset, len, err);
            if (st == BASALT_OK) {
                c->holds++;
                s->stats.in_place_bytes += len;
                *offset = at;
            }
            pthread_mutex_unlock(&s->mu);
            return st;
        }
    }
    uint64_t at;
    basalt_status st = chunk_new(s, ((uint64_t)len + 63) & ~(uint64_t)63, &at, err);
    if (st == BASALT_OK) {
        st = hold(p, at, len, err);
        if (st != BASALT_OK)
            chunk_drop(s, at);
    }
    if (st == BASALT_OK)
        s->stats.copied_bytes += len;
    pthread_mutex_unlock(&s->mu);
    if (st != BASALT_OK)
        return st;
    /* Copied outside the lock: the decoder may be allocating meanwhile. */
    if (d)
        memcpy(s->map + at, d, len);
    else
        memset(s->map + at, 0, len);
    *offset = at;
    return BASALT_OK;
}

/* A PLACED range's bytes for `msgs`: per message, its body's offset, then
 * the message framed (continuation, length, metadata padded to 8). */
static size_t placed_size(const struct basalt_ipc_message *msgs, size_t n)
{
    size_t size = 0;
    for (size_t i = 0; i < n; i++)
        size += 8 + 8 + ((msgs[i].metadata_len + 7) & ~(size_t)7);
    return size;
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

basalt_status basalt_flight_shm_segment_publish(struct shm_segment *s,
                                                struct basalt_ipc_encoder *enc,
                                                const struct ArrowArray *batch,
                                                struct shm_published *out,
                                                struct basalt_error *err)
{
    struct placing p = {.s = s};
    const struct basalt_ipc_message *msgs;
    size_t n_msgs = 0;
    basalt_status st = basalt_ipc_encoder_batch_placed(enc, batch, place, &p, &msgs, &n_msgs, err);
    size_t size = st == BASALT_OK ? placed_size(msgs, n_msgs) : 0;
    uint64_t meta = 0;
    if (st == BASALT_OK) {
        pthread_mutex_lock(&s->mu);
        st = chunk_new(s, (size + 63) & ~(size_t)63, &meta, err);
        if (st == BASALT_OK && (st = hold(&p, meta, size, err)) != BASALT_OK)
            chunk_drop(s, meta);
        pthread_mutex_unlock(&s->mu);
    }
    if (st == BASALT_OK) {
        uint8_t *w = s->map + meta;
        for (size_t i = 0; i < n_msgs; i++) {
            size_t padded = (msgs[i].metadata_len + 7) & ~(size_t)7;
            put_le(w, msgs[i].body_offset, 8);
            put_le(w + 8, 0xFFFFFFFFu, 4);
            put_le(w + 12, padded, 4);
            memcpy(w + 16, msgs[i].metadata, msgs[i].metadata_len);
            memset(w + 16 + msgs[i].metadata_len, 0, padded - msgs[i].metadata_len);
            w += 16 + padded;
        }
        out->offset = meta;
        out->length = size;
        out->bytes = p.b.bytes;
        p.b.meta_offset = meta;
    }
    pthread_mutex_lock(&s->mu);
    if (st == BASALT_OK && s->n_sent == s->cap_sent) {
        size_t cap = s->cap_sent ? 2 * s->cap_sent : 16;
        struct seg_batch *b = basalt_realloc(s->sent, cap * sizeof *b);
        if (b) {
            s->sent = b;
            s->cap_sent = cap;
        } else {
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory for a batch");
        }
    }
    if (st == BASALT_OK) {
        s->sent[s->n_sent++] = p.b;
        s->consumer_bytes += p.b.bytes;
    } else {
        for (size_t k = 0; k < p.b.n_holds; k++)
            chunk_drop(s, p.b.holds[k]);
        basalt_free(p.b.holds);
    }
    pthread_mutex_unlock(&s->mu);
    return st;
}
