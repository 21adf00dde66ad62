/* Planned scans kept between calls: GetFlightInfo plans a table's scan
 * once, and the DoGets of its endpoints (tickets naming that snapshot)
 * read their tasks from the same plan, concurrently, instead of loading
 * the table and reading its manifests again per endpoint. Only scans of a
 * fixed snapshot are kept, so what a ticket reads never changes; the least
 * recently used unreferenced scans go beyond FLIGHT_CACHED_SCANS. */
#include <stdio.h>
#include <string.h>

#include "flight_internal.h"

#define FLIGHT_CACHED_SCANS 8

struct flight_cached_scan {
    char *key;                 /* NULL: not kept (freed on release) */
    struct flight_scan scan;
    int refs;
    uint64_t used;
    struct flight_cached_scan *next;
};

/* The key of a request's scan at `snapshot_id`: the ticket of no task. */
static char *scan_key(const struct flight_request *r, int64_t snapshot_id)
{
    char *key = NULL;
    size_t len;
    if (basalt_flight_ticket_make(r, snapshot_id, NULL, &key, &len, NULL) != BASALT_OK)
        return NULL;
    return key;
}

static struct flight_cached_scan *find(struct basalt_flight_server *srv, const char *key)
{
    for (struct flight_cached_scan *e = srv->scans; e; e = e->next)
        if (!strcmp(e->key, key))
            return e;
    return NULL;
}

static void entry_free(struct flight_cached_scan *e)
{
    basalt_flight_scan_close(&e->scan);
    basalt_free(e->key);
    basalt_free(e);
}

/* Drops unreferenced entries, least recently used first, down to the cap.
 * Called with the lock held. */
static void evict(struct basalt_flight_server *srv)
{
    for (;;) {
        int n = 0;
        struct flight_cached_scan **victim = NULL;
        for (struct flight_cached_scan **pp = &srv->scans; *pp; pp = &(*pp)->next) {
            n++;
            if ((*pp)->refs == 0 && (!victim || (*pp)->used < (*victim)->used))
                victim = pp;
        }
        if (n <= FLIGHT_CACHED_SCANS || !victim)
            return;
        struct flight_cached_scan *e = *victim;
        *victim = e->next;
        entry_free(e);
    }
}

basalt_status basalt_flight_scan_acquire(struct basalt_flight_server *srv,
                                         const struct flight_request *r,
                                         struct flight_cached_scan **out, struct basalt_error *err)
{
    *out = NULL;
    char *key = r->has_snapshot ? scan_key(r, r->snapshot_id) : NULL;
    if (key) {
        pthread_mutex_lock(&srv->scans_lock);
        struct flight_cached_scan *e = find(srv, key);
        if (e) {
            e->refs++;
            e->used = ++srv->scans_clock;
        }
        pthread_mutex_unlock(&srv->scans_lock);
        if (e) {
            basalt_free(key);
            *out = e;
            return BASALT_OK;
        }
        basalt_free(key);
    }
    struct flight_cached_scan *e = basalt_calloc(1, sizeof *e);
    if (!e)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    const struct basalt_iceberg_plan *plan;
    basalt_status st = basalt_flight_scan_open(srv, r, &e->scan, err);
    if (st == BASALT_OK)
        st = basalt_iceberg_scan_prepare_tasks(e->scan.scan, &plan, err);
    if (st != BASALT_OK) {
        if (e->scan.table)
            basalt_flight_scan_close(&e->scan);
        basalt_free(e);
        return st; /* the message names the table */
    }
    e->refs = 1;
    /* Kept under the snapshot it read (a table without one: not kept). */
    if (e->scan.snapshot_id != -1)
        e->key = scan_key(r, e->scan.snapshot_id);
    if (e->key) {
        pthread_mutex_lock(&srv->scans_lock);
        struct flight_cached_scan *other = find(srv, e->key);
        if (other) {
            /* Planned meanwhile by another call: this one stays private. */
            basalt_free(e->key);
            e->key = NULL;
        } else {
            e->used = ++srv->scans_clock;
            e->next = srv->scans;
            srv->scans = e;
            evict(srv);
        }
        pthread_mutex_unlock(&srv->scans_lock);
    }
    *out = e;
    return BASALT_OK;
}

const struct flight_scan *basalt_flight_cached_scan(const struct flight_cached_scan *e)
{
    return &e->scan;
}

void basalt_flight_scan_release(struct basalt_flight_server *srv, struct flight_cached_scan *e)
{
    if (!e)
        return;
    if (!e->key) {
        entry_free(e);
        return;
    }
    pthread_mutex_lock(&srv->scans_lock);
    e->refs--;
    evict(srv);
    pthread_mutex_unlock(&srv->scans_lock);
}

void basalt_flight_scan_cache_clear(struct basalt_flight_server *srv)
{
    while (srv->scans) {
        struct flight_cached_scan *e = srv->scans;
        srv->scans = e->next;
        entry_free(e);
    }
}
