/* SigV4 signing keys and their cache, and the X-Amz-Date timestamp. */
#include <stdio.h>
#include <string.h>

#include "auth/sigv4_internal.h"
#include "basalt/hash.h"

basalt_status basalt_sigv4_format_time(int64_t time, char out[17], struct basalt_error *err)
{
    /* 0001-01-01 .. 9999-12-31 keeps the year at four digits. */
    if (time < -62135596800LL || time > 253402300799LL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "sigv4: time %lld out of range",
                                (long long)time);
    int64_t days = time / 86400, secs = time % 86400;
    if (secs < 0) {
        secs += 86400;
        days--;
    }
    /* Civil date from days since 1970-01-01 in the proleptic Gregorian
     * calendar, counting from 0000-03-01 so leap days end each 4/100/400-year
     * cycle (no gmtime: it depends on the C library and the TZ database). */
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t day = doy - (153 * mp + 2) / 5 + 1;
    int64_t month = mp < 10 ? mp + 3 : mp - 9;
    int64_t year = yoe + era * 400 + (month <= 2);
    /* Formatted into room for any int so the compiler sees no truncation;
     * the range checks above keep it to 16 characters. */
    char text[64];
    snprintf(text, sizeof text, "%04d%02d%02dT%02d%02d%02dZ", (int)year, (int)month, (int)day,
             (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60));
    memcpy(out, text, 16);
    out[16] = '\0';
    return BASALT_OK;
}

static basalt_status check_scope_part(const char *what, const char *s, struct basalt_error *err)
{
    if (!s || !*s)
        return basalt_error_set(err, BASALT_INVALID_ARG, "sigv4: no %s", what);
    for (const char *p = s; *p; p++)
        if (*p == '/' || (unsigned char)*p <= 0x20 || *p == 0x7f)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "sigv4: %s '%s' has a character a scope cannot hold", what,
                                    s);
    return BASALT_OK;
}

basalt_status basalt_sigv4_signing_key(const char *secret_access_key, const char *date,
                                       const char *region, const char *service,
                                       uint8_t key[32], struct basalt_error *err)
{
    if (!secret_access_key || !*secret_access_key)
        return basalt_error_set(err, BASALT_INVALID_ARG, "sigv4: no secret access key");
    basalt_status st = check_scope_part("date", date, err);
    if (st == BASALT_OK)
        st = check_scope_part("region", region, err);
    if (st == BASALT_OK)
        st = check_scope_part("service", service, err);
    if (st != BASALT_OK)
        return st;
    size_t secret_len = strlen(secret_access_key);
    uint8_t *first = basalt_malloc(secret_len + 4);
    if (!first)
        return basalt_error_set(err, BASALT_NOMEM, "sigv4: out of memory deriving a key");
    memcpy(first, "AWS4", 4);
    memcpy(first + 4, secret_access_key, secret_len);
    uint8_t a[32], b[32];
    st = basalt_hash_hmac_sha256(first, secret_len + 4, date, strlen(date), a);
    if (st == BASALT_OK)
        st = basalt_hash_hmac_sha256(a, 32, region, strlen(region), b);
    if (st == BASALT_OK)
        st = basalt_hash_hmac_sha256(b, 32, service, strlen(service), a);
    if (st == BASALT_OK)
        st = basalt_hash_hmac_sha256(a, 32, "aws4_request", 12, key);
    basalt_sigv4_wipe(first, secret_len + 4);
    basalt_sigv4_wipe(a, sizeof a);
    basalt_sigv4_wipe(b, sizeof b);
    basalt_free(first);
    if (st != BASALT_OK)
        return basalt_error_set(err, st, "sigv4: deriving the signing key failed");
    return BASALT_OK;
}

/* ------------------------------------------------------------------ cache */

void basalt_sigv4_key_cache_init(struct basalt_sigv4_key_cache *cache)
{
    memset(cache, 0, sizeof *cache);
    pthread_mutex_init(&cache->lock, NULL);
}

void basalt_sigv4_key_cache_reset(struct basalt_sigv4_key_cache *cache)
{
    if (!cache)
        return;
    basalt_sigv4_wipe(cache->slots, sizeof cache->slots);
    pthread_mutex_destroy(&cache->lock);
    cache->clock = cache->hits = cache->misses = 0;
}

static bool fits(const char *s, size_t cap) { return strlen(s) < cap; }

static bool slot_matches(const struct basalt_sigv4_key_cache_slot *s, const char *akid,
                         const char *secret, const char *date, const char *region,
                         const char *service)
{
    return s->used && strcmp(s->access_key_id, akid) == 0 && strcmp(s->secret, secret) == 0 &&
           strcmp(s->date, date) == 0 && strcmp(s->region, region) == 0 &&
           strcmp(s->service, service) == 0;
}

basalt_status basalt_sigv4_key_cache_get(struct basalt_sigv4_key_cache *cache,
                                         const char *access_key_id,
                                         const char *secret_access_key, const char *date,
                                         const char *region, const char *service,
                                         uint8_t key[32], struct basalt_error *err)
{
    if (!access_key_id || !secret_access_key || !date || !region || !service)
        return basalt_sigv4_signing_key(secret_access_key, date, region, service, key, err);
    struct basalt_sigv4_key_cache_slot probe;
    bool cacheable = fits(access_key_id, sizeof probe.access_key_id) &&
                     fits(secret_access_key, sizeof probe.secret) &&
                     fits(date, sizeof probe.date) && fits(region, sizeof probe.region) &&
                     fits(service, sizeof probe.service);
    if (!cacheable)
        return basalt_sigv4_signing_key(secret_access_key, date, region, service, key, err);

    pthread_mutex_lock(&cache->lock);
    for (int i = 0; i < BASALT_SIGV4_KEY_CACHE_SLOTS; i++) {
        struct basalt_sigv4_key_cache_slot *s = &cache->slots[i];
        if (slot_matches(s, access_key_id, secret_access_key, date, region, service)) {
            memcpy(key, s->key, 32);
            s->last_use = ++cache->clock;
            cache->hits++;
            pthread_mutex_unlock(&cache->lock);
            return BASALT_OK;
        }
    }
    cache->misses++;
    pthread_mutex_unlock(&cache->lock);

    /* Derive outside the lock: other threads keep signing meanwhile, and two
     * threads missing at once merely both derive the same key. */
    basalt_status st = basalt_sigv4_signing_key(secret_access_key, date, region, service, key,
                                                err);
    if (st != BASALT_OK)
        return st;
    memset(&probe, 0, sizeof probe);
    probe.used = true;
    strcpy(probe.access_key_id, access_key_id);
    strcpy(probe.secret, secret_access_key);
    strcpy(probe.date, date);
    strcpy(probe.region, region);
    strcpy(probe.service, service);
    memcpy(probe.key, key, 32);

    pthread_mutex_lock(&cache->lock);
    int victim = 0;
    for (int i = 0; i < BASALT_SIGV4_KEY_CACHE_SLOTS; i++) {
        struct basalt_sigv4_key_cache_slot *s = &cache->slots[i];
        if (slot_matches(s, access_key_id, secret_access_key, date, region, service)) {
            victim = -1; /* another thread stored it first */
            break;
        }
        if (cache->slots[victim].used && (!s->used || s->last_use < cache->slots[victim].last_use))
            victim = i;
    }
    if (victim >= 0) {
        probe.last_use = ++cache->clock;
        cache->slots[victim] = probe;
    }
    pthread_mutex_unlock(&cache->lock);
    basalt_sigv4_wipe(&probe, sizeof probe);
    return BASALT_OK;
}
