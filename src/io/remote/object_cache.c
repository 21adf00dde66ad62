/* The store's cache of immutable objects: a list of objects (size, ETag,
 * tail) and of blocks (a byte range of one object), both most recently used
 * first, evicted from the back once their bytes pass the capacity. Lookups
 * walk the lists: a scan touches tens of objects and blocks, not millions,
 * and every request saved costs milliseconds. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "remote/object_cache.h"

struct cached_object {
    struct cached_object *prev, *next;
    char *name;
    uint64_t size;
    char etag[BASALT_IO_ETAG_MAX];
    uint8_t *tail;
    uint64_t tail_offset, tail_len;
};

struct cached_block {
    struct cached_block *prev, *next;
    char *name;
    uint64_t offset, length;
    uint8_t *data;
};

struct basalt_object_cache {
    pthread_mutex_t lock;
    uint64_t capacity, bytes;
    struct cached_object *objects; /* most recent first */
    struct cached_block *blocks, *oldest_block;
    _Atomic uint64_t hits;
};

struct basalt_object_cache *basalt_object_cache_new(uint64_t capacity)
{
    struct basalt_object_cache *c = basalt_calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    pthread_mutex_init(&c->lock, NULL);
    c->capacity = capacity;
    return c;
}

static void free_object(struct cached_object *o)
{
    basalt_free(o->name);
    basalt_free(o->tail);
    basalt_free(o);
}

static void free_block(struct cached_block *b)
{
    basalt_free(b->name);
    basalt_free(b->data);
    basalt_free(b);
}

void basalt_object_cache_free(struct basalt_object_cache *c)
{
    if (c == NULL)
        return;
    for (struct cached_object *o = c->objects, *n; o; o = n) {
        n = o->next;
        free_object(o);
    }
    for (struct cached_block *b = c->blocks, *n; b; b = n) {
        n = b->next;
        free_block(b);
    }
    pthread_mutex_destroy(&c->lock);
    basalt_free(c);
}

uint64_t basalt_object_cache_hits(struct basalt_object_cache *c)
{
    return c ? atomic_load(&c->hits) : 0;
}

/* ------------------------------------------------------------ lists */

static void object_to_front(struct basalt_object_cache *c, struct cached_object *o)
{
    if (c->objects == o)
        return;
    if (o->prev)
        o->prev->next = o->next;
    if (o->next)
        o->next->prev = o->prev;
    o->prev = NULL;
    o->next = c->objects;
    if (c->objects)
        c->objects->prev = o;
    c->objects = o;
}

static void block_unlink(struct basalt_object_cache *c, struct cached_block *b)
{
    if (b->prev)
        b->prev->next = b->next;
    else
        c->blocks = b->next;
    if (b->next)
        b->next->prev = b->prev;
    else
        c->oldest_block = b->prev;
    b->prev = b->next = NULL;
}

static void block_push_front(struct basalt_object_cache *c, struct cached_block *b)
{
    b->prev = NULL;
    b->next = c->blocks;
    if (c->blocks)
        c->blocks->prev = b;
    c->blocks = b;
    if (c->oldest_block == NULL)
        c->oldest_block = b;
}

/* Drops the least recently used blocks, then objects, until `more` bytes
 * fit. */
static bool make_room(struct basalt_object_cache *c, uint64_t more)
{
    if (more > c->capacity)
        return false;
    while (c->bytes + more > c->capacity && c->oldest_block) {
        struct cached_block *b = c->oldest_block;
        block_unlink(c, b);
        c->bytes -= b->length;
        free_block(b);
    }
    while (c->bytes + more > c->capacity && c->objects) {
        struct cached_object *o = c->objects;
        while (o->next)
            o = o->next;
        if (o->prev)
            o->prev->next = NULL;
        else
            c->objects = NULL;
        c->bytes -= o->tail_len;
        free_object(o);
    }
    return true;
}

/* ------------------------------------------------------------ objects */

static struct cached_object *find_object(struct basalt_object_cache *c, const char *name)
{
    for (struct cached_object *o = c->objects; o; o = o->next)
        if (strcmp(o->name, name) == 0)
            return o;
    return NULL;
}

bool basalt_object_cache_find_object(struct basalt_object_cache *c, const char *name,
                                     uint64_t *size, char etag[BASALT_IO_ETAG_MAX],
                                     uint8_t **tail, uint64_t *tail_offset, uint64_t *tail_len)
{
    *tail = NULL;
    pthread_mutex_lock(&c->lock);
    struct cached_object *o = find_object(c, name);
    bool found = o != NULL;
    if (found) {
        object_to_front(c, o);
        *size = o->size;
        memcpy(etag, o->etag, BASALT_IO_ETAG_MAX);
        *tail_offset = o->tail_offset;
        *tail_len = o->tail_len;
        if (o->tail_len > 0) {
            *tail = basalt_malloc((size_t)o->tail_len);
            if (*tail == NULL)
                found = false;
            else
                memcpy(*tail, o->tail, (size_t)o->tail_len);
        }
    }
    pthread_mutex_unlock(&c->lock);
    if (found)
        atomic_fetch_add(&c->hits, 1);
    return found;
}

void basalt_object_cache_put_object(struct basalt_object_cache *c, const char *name,
                                    uint64_t size, const char *etag, const uint8_t *tail,
                                    uint64_t tail_offset, uint64_t tail_len)
{
    struct cached_object *o = basalt_calloc(1, sizeof *o);
    if (o == NULL)
        return;
    o->name = basalt_strdup(name);
    o->tail = tail_len ? basalt_malloc((size_t)tail_len) : NULL;
    if (o->name == NULL || (tail_len && o->tail == NULL)) {
        free_object(o);
        return;
    }
    o->size = size;
    snprintf(o->etag, sizeof o->etag, "%s", etag ? etag : "");
    if (tail_len)
        memcpy(o->tail, tail, (size_t)tail_len);
    o->tail_offset = tail_offset;
    o->tail_len = tail_len;
    pthread_mutex_lock(&c->lock);
    /* tails count against the capacity too, as blocks do not: a tail is
     * small (the footer's), and the objects of a table are few */
    if (find_object(c, name) != NULL || !make_room(c, tail_len)) {
        pthread_mutex_unlock(&c->lock);
        free_object(o);
        return;
    }
    c->bytes += tail_len;
    o->next = c->objects;
    if (c->objects)
        c->objects->prev = o;
    c->objects = o;
    pthread_mutex_unlock(&c->lock);
}

/* ------------------------------------------------------------ blocks */

bool basalt_object_cache_read(struct basalt_object_cache *c, const char *name, uint64_t offset,
                              uint64_t length, void *dst)
{
    bool found = false;
    pthread_mutex_lock(&c->lock);
    for (struct cached_block *b = c->blocks; b; b = b->next) {
        if (offset < b->offset || offset + length > b->offset + b->length ||
            strcmp(b->name, name) != 0)
            continue;
        memcpy(dst, b->data + (offset - b->offset), (size_t)length);
        block_unlink(c, b);
        block_push_front(c, b);
        found = true;
        break;
    }
    pthread_mutex_unlock(&c->lock);
    if (found)
        atomic_fetch_add(&c->hits, 1);
    return found;
}

bool basalt_object_cache_has(struct basalt_object_cache *c, const char *name, uint64_t offset,
                             uint64_t length)
{
    bool have = false;
    pthread_mutex_lock(&c->lock);
    for (struct cached_block *b = c->blocks; b && !have; b = b->next)
        have = offset >= b->offset && offset + length <= b->offset + b->length &&
               strcmp(b->name, name) == 0;
    pthread_mutex_unlock(&c->lock);
    return have;
}

void basalt_object_cache_put(struct basalt_object_cache *c, const char *name, uint64_t offset,
                             uint64_t length, const void *data)
{
    if (length == 0 || length > c->capacity)
        return;
    struct cached_block *b = basalt_calloc(1, sizeof *b);
    if (b == NULL)
        return;
    b->name = basalt_strdup(name);
    b->data = basalt_malloc((size_t)length);
    if (b->name == NULL || b->data == NULL) {
        free_block(b);
        return;
    }
    memcpy(b->data, data, (size_t)length);
    b->offset = offset;
    b->length = length;
    pthread_mutex_lock(&c->lock);
    bool have = false;
    for (struct cached_block *o = c->blocks; o && !have; o = o->next)
        have = offset >= o->offset && offset + length <= o->offset + o->length &&
               strcmp(o->name, name) == 0;
    if (have || !make_room(c, length)) {
        pthread_mutex_unlock(&c->lock);
        free_block(b);
        return;
    }
    c->bytes += length;
    block_push_front(c, b);
    pthread_mutex_unlock(&c->lock);
}
