/* Writing a remote object: buffered parts, uploaded by a few threads while
 * the caller keeps writing; nothing visible before commit, nothing left
 * behind by a failure or a close without commit. */
#include <pthread.h>
#include <string.h>

#include "remote/remote.h"

struct part {
    uint32_t number;
    uint8_t *data;
    size_t len;
};

struct remote_output {
    struct basalt_output base;
    const struct basalt_remote_upload_ops *ops;
    void *upload;
    size_t part_size;
    uint32_t in_flight_max;
    bool exclusive;

    uint8_t *buf; /* the part being filled */
    size_t buf_len;

    bool begun;    /* an upload exists on the server */
    uint32_t parts; /* parts handed to the uploaders */
    char (*ids)[BASALT_IO_ETAG_MAX];
    uint32_t ids_cap;

    pthread_mutex_t lock;
    pthread_cond_t changed;
    struct part *queue; /* parts waiting for an uploader, FIFO */
    uint32_t queued, queue_head;
    uint32_t uploading;
    bool stopping;
    pthread_t *threads;
    uint32_t nthreads;
    basalt_status failed; /* first part failure */
    struct basalt_error failure;
    char name[];
};

static void *uploader_main(void *arg)
{
    struct remote_output *o = arg;
    pthread_mutex_lock(&o->lock);
    for (;;) {
        while (o->queued == 0 && !o->stopping)
            pthread_cond_wait(&o->changed, &o->lock);
        if (o->queued == 0)
            break;
        struct part p = o->queue[o->queue_head];
        o->queue_head = (o->queue_head + 1) % o->in_flight_max;
        o->queued--;
        o->uploading++;
        bool skip = o->failed != BASALT_OK;
        pthread_mutex_unlock(&o->lock);
        struct basalt_error err;
        basalt_error_init(&err);
        char id[BASALT_IO_ETAG_MAX] = "";
        basalt_status st =
            skip ? BASALT_OK : o->ops->put_part(o->upload, p.number, p.data, p.len, id, &err);
        basalt_free(p.data);
        pthread_mutex_lock(&o->lock);
        o->uploading--;
        if (st != BASALT_OK && o->failed == BASALT_OK) {
            o->failed = st;
            o->failure = err;
        } else if (st == BASALT_OK && !skip) {
            memcpy(o->ids[p.number - 1], id, sizeof id);
        }
        pthread_cond_broadcast(&o->changed);
    }
    pthread_mutex_unlock(&o->lock);
    return NULL;
}

static basalt_status report_failure(struct remote_output *o, struct basalt_error *err)
{
    if (err)
        *err = o->failure;
    return o->failed;
}

static basalt_status begin_upload(struct remote_output *o, struct basalt_error *err)
{
    if (o->ops->begin) {
        basalt_status st = o->ops->begin(o->upload, err);
        if (st != BASALT_OK)
            return st;
    }
    o->begun = true;
    o->queue = basalt_calloc(o->in_flight_max, sizeof *o->queue);
    o->threads = basalt_calloc(o->in_flight_max, sizeof *o->threads);
    if (!o->queue || !o->threads)
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory for uploads", o->name);
    for (uint32_t i = 0; i < o->in_flight_max; i++) {
        if (pthread_create(&o->threads[i], NULL, uploader_main, o) != 0)
            break;
        o->nthreads++;
    }
    if (o->nthreads == 0)
        return basalt_error_set(err, BASALT_IO, "%s: could not start an upload thread", o->name);
    return BASALT_OK;
}

/* Hands the full buffer to the uploaders, waiting while every slot is busy:
 * memory stays at (parts_in_flight + 1) parts whatever the object's size. */
static basalt_status ship_part(struct remote_output *o, struct basalt_error *err)
{
    if (o->parts == 10000)
        return basalt_error_set(err, BASALT_LIMIT,
                                "%s: more than 10000 parts (raise the part size)", o->name);
    if (o->parts == o->ids_cap) {
        uint32_t cap = o->ids_cap ? o->ids_cap * 2 : 64;
        void *grown = basalt_realloc(o->ids, sizeof *o->ids * cap);
        if (!grown)
            return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory for part ids", o->name);
        o->ids = grown;
        o->ids_cap = cap;
    }
    pthread_mutex_lock(&o->lock);
    while (o->queued + o->uploading >= o->in_flight_max && o->failed == BASALT_OK)
        pthread_cond_wait(&o->changed, &o->lock);
    if (o->failed != BASALT_OK) {
        pthread_mutex_unlock(&o->lock);
        return report_failure(o, err);
    }
    o->parts++;
    o->ids[o->parts - 1][0] = '\0';
    uint32_t slot = (o->queue_head + o->queued) % o->in_flight_max;
    o->queue[slot] = (struct part){o->parts, o->buf, o->buf_len};
    o->queued++;
    pthread_cond_broadcast(&o->changed);
    pthread_mutex_unlock(&o->lock);
    o->buf = NULL;
    o->buf_len = 0;
    return BASALT_OK;
}

static basalt_status remote_write(struct basalt_output *out, const void *data, size_t len,
                                  struct basalt_error *err)
{
    struct remote_output *o = (struct remote_output *)out;
    const uint8_t *p = data;
    while (len > 0) {
        if (!o->buf && !(o->buf = basalt_malloc(o->part_size)))
            return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory for a %zu-byte part",
                                    o->name, o->part_size);
        size_t take = o->part_size - o->buf_len < len ? o->part_size - o->buf_len : len;
        memcpy(o->buf + o->buf_len, p, take);
        o->buf_len += take;
        p += take;
        len -= take;
        /* A full part ships only when more bytes follow, so an object of
         * exactly one part still goes up in a single request. */
        if (o->buf_len == o->part_size && len > 0) {
            basalt_status st = o->begun ? BASALT_OK : begin_upload(o, err);
            if (st == BASALT_OK)
                st = ship_part(o, err);
            if (st != BASALT_OK)
                return st;
        }
    }
    return BASALT_OK;
}

static void stop_uploaders(struct remote_output *o)
{
    pthread_mutex_lock(&o->lock);
    o->stopping = true;
    pthread_cond_broadcast(&o->changed);
    pthread_mutex_unlock(&o->lock);
    for (uint32_t i = 0; i < o->nthreads; i++)
        pthread_join(o->threads[i], NULL);
    o->nthreads = 0;
}

static basalt_status remote_commit(struct basalt_output *out, struct basalt_error *err)
{
    struct remote_output *o = (struct remote_output *)out;
    if (!o->begun)
        return o->ops->put_whole(o->upload, o->buf ? o->buf : (const uint8_t *)"", o->buf_len,
                                 o->exclusive, err);
    basalt_status st = o->buf_len > 0 ? ship_part(o, err) : BASALT_OK;
    stop_uploaders(o); /* waits for every part */
    if (st != BASALT_OK)
        return st;
    if (o->failed != BASALT_OK)
        return report_failure(o, err);
    st = o->ops->complete(o->upload, o->ids, o->parts, o->exclusive, err);
    if (st == BASALT_OK)
        o->begun = false; /* nothing left to abort */
    return st;
}

static void remote_close(struct basalt_output *out)
{
    struct remote_output *o = (struct remote_output *)out;
    if (o->nthreads) {
        /* Abandoned: parts still queued are skipped, not uploaded. */
        pthread_mutex_lock(&o->lock);
        if (o->failed == BASALT_OK) {
            o->failed = BASALT_IO;
            basalt_error_set(&o->failure, BASALT_IO, "%s: closed without commit", o->name);
        }
        pthread_mutex_unlock(&o->lock);
        stop_uploaders(o);
    }
    if (o->begun && !out->committed)
        o->ops->abort(o->upload);
    while (o->queued > 0) {
        basalt_free(o->queue[o->queue_head].data);
        o->queue_head = (o->queue_head + 1) % o->in_flight_max;
        o->queued--;
    }
    o->ops->free(o->upload);
    pthread_cond_destroy(&o->changed);
    pthread_mutex_destroy(&o->lock);
    basalt_free(o->queue);
    basalt_free(o->threads);
    basalt_free(o->ids);
    basalt_free(o->buf);
    basalt_free(o);
}

static const struct basalt_output_ops remote_output_ops = {
    .write = remote_write, .commit = remote_commit, .close = remote_close};

basalt_status basalt_remote_output_open(const struct basalt_io_options *options,
                                        const char *name, unsigned flags,
                                        const struct basalt_remote_upload_ops *ops, void *upload,
                                        struct basalt_output **out, struct basalt_error *err)
{
    *out = NULL;
    size_t nlen = strlen(name);
    struct remote_output *o = basalt_calloc(1, sizeof *o + nlen + 1);
    if (!o) {
        ops->free(upload);
        return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory opening", name);
    }
    memcpy(o->name, name, nlen + 1);
    o->base.ops = &remote_output_ops;
    o->base.name = o->name;
    o->ops = ops;
    o->upload = upload;
    o->part_size = (size_t)(options->part_size ? options->part_size : (8u << 20));
    o->in_flight_max = options->parts_in_flight ? options->parts_in_flight : 1;
    o->exclusive = (flags & BASALT_IO_CREATE_EXCLUSIVE) != 0;
    pthread_mutex_init(&o->lock, NULL);
    pthread_cond_init(&o->changed, NULL);
    *out = &o->base;
    return BASALT_OK;
}
