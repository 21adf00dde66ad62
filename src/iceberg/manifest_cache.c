/* A thread-safe cache of parsed manifests by path (open hashing), with the
 * Avro plan cache the parses share. */
#include <pthread.h>

#include "manifest_internal.h"

struct cache_slot {
    char *path;
    uint64_t hash;
    struct basalt_iceberg_manifest *manifest;
};

struct basalt_iceberg_manifest_cache {
    pthread_mutex_t lock;
    struct cache_slot *slots;
    uint32_t cap;   /* power of two */
    uint32_t count;
    struct basalt_avro_plan_cache *plans;
};

static uint64_t hash_path(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (uint8_t)*s;
        h *= 1099511628211ull;
    }
    return h;
}

basalt_status basalt_iceberg_manifest_cache_new(struct basalt_iceberg_manifest_cache **out,
                                                struct basalt_error *err)
{
    *out = NULL;
    struct basalt_iceberg_manifest_cache *c = basalt_calloc(1, sizeof *c);
    if (!c)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_status st = basalt_avro_plan_cache_new(&c->plans, err);
    if (st != BASALT_OK) {
        basalt_free(c);
        return st;
    }
    if (pthread_mutex_init(&c->lock, NULL) != 0) {
        basalt_avro_plan_cache_free(c->plans);
        basalt_free(c);
        return basalt_error_set(err, BASALT_INTERNAL, "pthread_mutex_init failed");
    }
    *out = c;
    return BASALT_OK;
}

void basalt_iceberg_manifest_cache_free(struct basalt_iceberg_manifest_cache *cache)
{
    if (!cache)
        return;
    for (uint32_t i = 0; i < cache->cap; i++) {
        if (cache->slots[i].path) {
            basalt_free(cache->slots[i].path);
            basalt_iceberg_manifest_free(cache->slots[i].manifest);
        }
    }
    basalt_free(cache->slots);
    /* Manifests hold nothing of the plan cache, so it goes last only by habit. */
    basalt_avro_plan_cache_free(cache->plans);
    pthread_mutex_destroy(&cache->lock);
    basalt_free(cache);
}

static struct cache_slot *lookup(struct basalt_iceberg_manifest_cache *c, const char *path,
                                 uint64_t h)
{
    if (!c->cap)
        return NULL;
    for (uint32_t i = (uint32_t)h & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
        struct cache_slot *s = &c->slots[i];
        if (!s->path)
            return s;
        if (s->hash == h && strcmp(s->path, path) == 0)
            return s;
    }
}

static bool grow(struct basalt_iceberg_manifest_cache *c)
{
    uint32_t ncap = c->cap ? c->cap * 2 : 64;
    struct cache_slot *ns = basalt_calloc(ncap, sizeof *ns);
    if (!ns)
        return false;
    for (uint32_t i = 0; i < c->cap; i++) {
        struct cache_slot *s = &c->slots[i];
        if (!s->path)
            continue;
        uint32_t j = (uint32_t)s->hash & (ncap - 1);
        while (ns[j].path)
            j = (j + 1) & (ncap - 1);
        ns[j] = *s;
    }
    basalt_free(c->slots);
    c->slots = ns;
    c->cap = ncap;
    return true;
}

const struct basalt_iceberg_manifest *basalt_iceberg_manifest_cache_find(
    struct basalt_iceberg_manifest_cache *cache, const char *path)
{
    uint64_t h = hash_path(path);
    pthread_mutex_lock(&cache->lock);
    struct cache_slot *s = lookup(cache, path, h);
    const struct basalt_iceberg_manifest *m = s && s->path ? s->manifest : NULL;
    pthread_mutex_unlock(&cache->lock);
    return m;
}

basalt_status basalt_iceberg_manifest_cache_add(struct basalt_iceberg_manifest_cache *cache,
                                                const char *path,
                                                struct basalt_iceberg_manifest *manifest,
                                                const struct basalt_iceberg_manifest **out,
                                                struct basalt_error *err)
{
    *out = NULL;
    uint64_t h = hash_path(path);
    size_t plen = strlen(path);
    char *copy = basalt_malloc(plen + 1);
    if (!copy) {
        basalt_iceberg_manifest_free(manifest);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    memcpy(copy, path, plen + 1);
    pthread_mutex_lock(&cache->lock);
    struct cache_slot *s = lookup(cache, path, h);
    if (s && s->path) {
        *out = s->manifest;
        pthread_mutex_unlock(&cache->lock);
        basalt_free(copy);
        basalt_iceberg_manifest_free(manifest);
        return BASALT_OK;
    }
    if ((uint64_t)(cache->count + 1) * 4 > (uint64_t)cache->cap * 3) {
        if (!grow(cache)) {
            pthread_mutex_unlock(&cache->lock);
            basalt_free(copy);
            basalt_iceberg_manifest_free(manifest);
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
        s = lookup(cache, path, h);
    }
    s->path = copy;
    s->hash = h;
    s->manifest = manifest;
    cache->count++;
    *out = manifest;
    pthread_mutex_unlock(&cache->lock);
    return BASALT_OK;
}

uint32_t basalt_iceberg_manifest_cache_count(struct basalt_iceberg_manifest_cache *cache)
{
    pthread_mutex_lock(&cache->lock);
    uint32_t n = cache->count;
    pthread_mutex_unlock(&cache->lock);
    return n;
}

struct basalt_avro_plan_cache *basalt_iceberg_manifest_cache_plans(
    struct basalt_iceberg_manifest_cache *cache)
{
    return cache->plans;
}
