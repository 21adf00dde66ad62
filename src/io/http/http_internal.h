/* The HTTP client's insides, shared by http_client.c and http_execute.c. */
#ifndef BASALT_IO_HTTP_INTERNAL_H
#define BASALT_IO_HTTP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include <curl/curl.h>

#include "http/http.h"

#define BASALT_HTTP_LOCKS 8

#define BASALT_HTTP_IDLE_MULTIS 16

struct basalt_http_client {
    /* DNS answers and TLS sessions are shared by every request. Connections
     * are not: curl does not support one connection cache used from several
     * threads, so each batch borrows a multi handle (which keeps its own open
     * connections) from this idle list and gives it back. */
    CURLSH *share;
    pthread_mutex_t idle_lock;
    CURLM *idle[BASALT_HTTP_IDLE_MULTIS];
    size_t idle_count;
    pthread_mutex_t locks[BASALT_HTTP_LOCKS];
    struct basalt_io_options options; /* numbers only; its strings are not kept */
    char *ca_file;                    /* a copy of options->ca_file; NULL: system store */
    _Atomic uint64_t rng;
    _Atomic uint64_t requests;
    _Atomic uint64_t retries;
    _Atomic uint64_t bytes_received;
    _Atomic uint64_t bytes_sent;
    _Atomic uint64_t failures;
    _Atomic uint64_t held_back; /* bodies paused for one wanted sooner */
};

/* A multi handle with warm connections, or a new one; NULL on NOMEM. */
CURLM *basalt_http_client_acquire(struct basalt_http_client *c);
void basalt_http_client_release(struct basalt_http_client *c, CURLM *multi);

/* A uniformly spread 64-bit number, for retry jitter. */
uint64_t basalt_http_client_random(struct basalt_http_client *c);

#endif
