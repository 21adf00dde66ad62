/* A cache of parsed schemas and compiled plans, keyed by their bytes. */
#include <pthread.h>

#include "avro_plan.h"
#include "basalt/hash.h"

struct cached_schema {
    uint64_t hash;
    char *json;
    size_t len;
    bool lenient;
    uint32_t max_depth;
    struct basalt_avro_schema *schema;
};

struct cached_plan {
    uint64_t hash;
    const struct basalt_avro_schema *writer;
    const struct basalt_avro_schema *reader;
    uint8_t *key; /* the columns: path, NUL, type byte, ... */
    size_t key_len;
    struct basalt_avro_plan *plan;
};

struct basalt_avro_plan_cache {
    pthread_mutex_t mu;
    struct cached_schema *schemas;
    size_t schema_count, schema_cap;
    struct cached_plan *plans;
    size_t plan_count, plan_cap;
    uint64_t hits, misses;
};

/* Keys are whole schema texts (a manifest's is about 8 KB, looked up once
 * per manifest), so the hash runs at XXH64's speed, not a byte at a time. */
static uint64_t hash_bytes(uint64_t h, const void *data, size_t len)
{
    return basalt_hash_xxh64(data, len, h);
}

basalt_status basalt_avro_plan_cache_new(struct basalt_avro_plan_cache **out,
                                         struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "plan_cache_new: NULL argument");
    struct basalt_avro_plan_cache *c = basalt_calloc(1, sizeof *c);
    if (!c)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a plan cache");
    if (pthread_mutex_init(&c->mu, NULL) != 0) {
        basalt_free(c);
        return basalt_error_set(err, BASALT_INTERNAL, "plan cache: mutex initialisation failed");
    }
    *out = c;
    return BASALT_OK;
}

void basalt_avro_plan_cache_free(struct basalt_avro_plan_cache *cache)
{
    if (!cache)
        return;
    for (size_t i = 0; i < cache->plan_count; i++) {
        basalt_avro_plan_free(cache->plans[i].plan);
        basalt_free(cache->plans[i].key);
    }
    for (size_t i = 0; i < cache->schema_count; i++) {
        basalt_avro_schema_free(cache->schemas[i].schema);
        basalt_free(cache->schemas[i].json);
    }
    basalt_free(cache->plans);
    basalt_free(cache->schemas);
    pthread_mutex_destroy(&cache->mu);
    basalt_free(cache);
}

static bool grow(void **items, size_t *cap, size_t count, size_t size)
{
    if (count < *cap)
        return true;
    size_t ncap = *cap ? *cap * 2 : 8;
    void *p = basalt_realloc(*items, ncap * size);
    if (!p)
        return false;
    *items = p;
    *cap = ncap;
    return true;
}

static basalt_status schema_locked(struct basalt_avro_plan_cache *c, const char *json, size_t len,
                                   const struct basalt_avro_schema_options *options,
                                   const struct basalt_avro_schema **out,
                                   struct basalt_error *err)
{
    bool lenient = options && options->lenient_names;
    uint32_t depth = options && options->max_depth ? options->max_depth : AVRO_DEFAULT_SCHEMA_DEPTH;
    uint64_t h = hash_bytes(1469598103934665603ull, json, len);
    for (size_t i = 0; i < c->schema_count; i++) {
        const struct cached_schema *s = &c->schemas[i];
        if (s->hash == h && s->len == len && s->lenient == lenient && s->max_depth == depth &&
            memcmp(s->json, json, len) == 0) {
            c->hits++;
            *out = s->schema;
            return BASALT_OK;
        }
    }
    if (!grow((void **)&c->schemas, &c->schema_cap, c->schema_count, sizeof *c->schemas))
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a plan cache");
    struct cached_schema *s = &c->schemas[c->schema_count];
    memset(s, 0, sizeof *s);
    s->json = basalt_malloc(len ? len : 1);
    if (!s->json)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a plan cache");
    basalt_status st = basalt_avro_schema_parse(json, len, options, &s->schema, err);
    if (st != BASALT_OK) {
        basalt_free(s->json);
        return st;
    }
    if (len)
        memcpy(s->json, json, len);
    s->len = len;
    s->hash = h;
    s->lenient = lenient;
    s->max_depth = depth;
    c->schema_count++;
    c->misses++;
    *out = s->schema;
    return BASALT_OK;
}

basalt_status basalt_avro_plan_cache_schema(struct basalt_avro_plan_cache *cache, const char *json,
                                            size_t len,
                                            const struct basalt_avro_schema_options *options,
                                            const struct basalt_avro_schema **out,
                                            struct basalt_error *err)
{
    if (!cache || !out || (!json && len))
        return basalt_error_set(err, BASALT_INVALID_ARG, "plan_cache_schema: NULL argument");
    pthread_mutex_lock(&cache->mu);
    basalt_status st = schema_locked(cache, json, len, options, out, err);
    pthread_mutex_unlock(&cache->mu);
    return st;
}

static basalt_status columns_key(const struct basalt_avro_column *columns, size_t n,
                                 uint8_t **key, size_t *len, struct basalt_error *err)
{
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    basalt_status st = BASALT_OK;
    for (size_t i = 0; i < n && st == BASALT_OK; i++) {
        const char *path = columns[i].path ? columns[i].path : "";
        uint8_t type = (uint8_t)columns[i].type;
        st = basalt_buffer_append(&b, path, strlen(path) + 1, err);
        if (st == BASALT_OK)
            st = basalt_buffer_append(&b, &type, 1, err);
    }
    if (st != BASALT_OK) {
        basalt_buffer_reset(&b);
        return st;
    }
    *len = b.size;
    *key = b.size ? basalt_buffer_take(&b) : NULL;
    return BASALT_OK;
}

static basalt_status plan_locked(struct basalt_avro_plan_cache *c,
                                 const struct basalt_avro_schema *writer,
                                 const struct basalt_avro_schema *reader,
                                 const struct basalt_avro_column *columns, size_t n,
                                 struct basalt_avro_plan **out, struct basalt_error *err)
{
    uint8_t *key;
    size_t key_len;
    basalt_status st = columns_key(columns, n, &key, &key_len, err);
    if (st != BASALT_OK)
        return st;
    uint64_t h = hash_bytes(hash_bytes(1469598103934665603ull, &writer, sizeof writer), &reader,
                            sizeof reader);
    h = hash_bytes(h, key, key_len);
    for (size_t i = 0; i < c->plan_count; i++) {
        const struct cached_plan *p = &c->plans[i];
        if (p->hash == h && p->writer == writer && p->reader == reader && p->key_len == key_len &&
            (key_len == 0 || memcmp(p->key, key, key_len) == 0)) {
            basalt_free(key);
            c->hits++;
            *out = basalt_avro_plan_ref(p->plan);
            return BASALT_OK;
        }
    }
    struct basalt_avro_plan *plan;
    if (!grow((void **)&c->plans, &c->plan_cap, c->plan_count, sizeof *c->plans)) {
        basalt_free(key);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a plan cache");
    }
    st = basalt_avro_plan_new(writer, reader, columns, n, &plan, err);
    if (st != BASALT_OK) {
        basalt_free(key);
        return st;
    }
    struct cached_plan *p = &c->plans[c->plan_count++];
    p->hash = h;
    p->writer = writer;
    p->reader = reader;
    p->key = key;
    p->key_len = key_len;
    p->plan = plan;
    c->misses++;
    *out = basalt_avro_plan_ref(plan);
    return BASALT_OK;
}

basalt_status basalt_avro_plan_cache_plan(struct basalt_avro_plan_cache *cache,
                                          const struct basalt_avro_schema *writer,
                                          const struct basalt_avro_schema *reader,
                                          const struct basalt_avro_column *columns,
                                          size_t column_count, struct basalt_avro_plan **out,
                                          struct basalt_error *err)
{
    if (!cache || !writer || !out || (!columns && column_count))
        return basalt_error_set(err, BASALT_INVALID_ARG, "plan_cache_plan: NULL argument");
    pthread_mutex_lock(&cache->mu);
    basalt_status st = plan_locked(cache, writer, reader, columns, column_count, out, err);
    pthread_mutex_unlock(&cache->mu);
    return st;
}

void basalt_avro_plan_cache_stats(struct basalt_avro_plan_cache *cache, uint64_t *hits,
                                  uint64_t *misses)
{
    pthread_mutex_lock(&cache->mu);
    if (hits)
        *hits = cache->hits;
    if (misses)
        *misses = cache->misses;
    pthread_mutex_unlock(&cache->mu);
}
