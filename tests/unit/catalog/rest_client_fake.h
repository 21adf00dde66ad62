/* A scripted transport for the REST catalog client's unit tests: replies
 * picked by method and URL, every request recorded. */
#ifndef BASALT_TEST_REST_CLIENT_FAKE_H
#define BASALT_TEST_REST_CLIENT_FAKE_H

#include "catalog_internal.h"
#include "rest_client_internal.h"

/* A reply to the first not yet used request whose method is `method` and
 * whose URL contains `url_part`. status 0: fail at the transport (IO, as a
 * lost connection). */
struct fake_reply {
    const char *method;
    const char *url_part;
    long status;
    const char *body;
};

#define FAKE_MAX_LOG 64

struct fake_request {
    char method[8];
    char url[600];
    char authorization[200];
    char delegation[64];
    char content_type[64];
    char body[4096];
    int retry; /* enum basalt_io_http_retry */
};

struct fake {
    const struct fake_reply *replies;
    size_t n_replies;
    bool used[64];
    struct fake_request log[FAKE_MAX_LOG];
    size_t n_log;
};

basalt_status fake_transport(void *ctx, const struct basalt_io_http_request *req,
                             struct basalt_io_http_response *resp, struct basalt_error *err);

/* Opens `uri` (a rest+http URI) as a catalog talking to `f`. */
basalt_status fake_catalog(const char *uri, struct fake *f, const struct fake_reply *replies,
                           size_t n, struct basalt_catalog **out, struct basalt_error *err);

/* The number of recorded requests whose "METHOD URL" contains `part`. */
size_t fake_count(const struct fake *f, const char *method, const char *part);

/* The config answer of the tests: prefix "p", the endpoints below. */
extern const char fake_config[];

#define FAKE_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
