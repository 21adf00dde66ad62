/* The HTTP client's insides, shared by http_client.c and http_execute.c. */
#ifndef BASALT_IO_HTTP_INTERNAL_H
#define BASALT_IO_HTTP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include <curl/curl.h>

#include "http/http.h"

#define BASALT_HTTP_LOCKS 8

struct basalt_http_client {
    CURLSH *share;
    pthread_mutex_t locks[BASALT_HTTP_LOCKS];
    struct basalt_io_options options; /* numbers only; its strings are not kept */
    _Atomic uint64_t rng;
    _Atomic uint64_t requests;
    _Atomic uint64_t retries;
    _Atomic uint64_t bytes_received;
    _Atomic uint64_t bytes_sent;
    _Atomic uint64_t failures;
};

/* A uniformly spread 64-bit number, for retry jitter. */
uint64_t basalt_http_client_random(struct basalt_http_client *c);

#endif
