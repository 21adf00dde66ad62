/* Reading the aws-c-auth signing suite (testdata/sigv4/README.md): one case
 * folder's request.txt and context.json, and the expected files beside them. */
#ifndef BASALT_TEST_SIGV4_CASES_H
#define BASALT_TEST_SIGV4_CASES_H

#include <stdbool.h>

#include "auth/sigv4.h"

#define SIGV4_CASE_MAX_HEADERS 32

/* A parsed HTTP request: method, target (path and query as on the wire),
 * headers (continuation lines folded in with their LF), body. */
struct sigv4_http {
    char *method;
    char *target;
    struct basalt_sigv4_header headers[SIGV4_CASE_MAX_HEADERS];
    size_t header_count;
    char *body;
    size_t body_len;
    char *text_; /* private: the file, cut up in place */
};

struct sigv4_case {
    char dir[1024];
    const char *name;
    struct sigv4_http request;
    char *path;   /* target before '?' */
    char *query;  /* after '?', or "" */
    char access_key_id[64];
    char secret[128];
    char token[1024];
    char region[64];
    char service[64];
    int64_t time;
    int64_t expires;
    bool normalize, sign_body, omit_session_token;
    char payload_hash[65];
};

/* Parses `text` (len bytes, taken: freed by sigv4_http_free). false with a
 * reason in `why` when it is malformed. */
bool sigv4_http_parse(char *text, size_t len, struct sigv4_http *out, char *why, size_t cap);
void sigv4_http_free(struct sigv4_http *h);

/* Loads the case in `dir`. false with a reason in `why`. */
bool sigv4_case_load(const char *dir, struct sigv4_case *c, char *why, size_t cap);
void sigv4_case_free(struct sigv4_case *c);

/* The whole of `dir/file` as a NUL-terminated basalt_malloc'd string, or NULL
 * when missing. */
char *sigv4_case_file(const struct sigv4_case *c, const char *file);

/* Request and params for signing the case in header (query == false) or query
 * mode; `v4a_key` NULL for SigV4. */
void sigv4_case_params(const struct sigv4_case *c, bool query,
                       const struct basalt_sigv4a_key *v4a_key, struct basalt_sigv4_request *req,
                       struct basalt_sigv4_params *params);

/* Percent-decodes `s` in place. */
void sigv4_percent_decode(char *s);

/* Case folder names under `root`, sorted; returns the count (at most `cap`). */
size_t sigv4_case_list(const char *root, char names[][128], size_t cap);

#endif
