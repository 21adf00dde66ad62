/* AWS service calls shared by the Glue and S3 Tables catalogs: endpoint and
 * region resolution, SigV4-signed JSON requests through the catalog's store
 * (basalt_io_http_request with aws_service), and AWS error answers mapped to
 * basalt statuses. Not part of the public API. */
#ifndef BASALT_CATALOG_AWS_INTERNAL_H
#define BASALT_CATALOG_AWS_INTERNAL_H

#include <jansson.h>

#include "basalt/catalog.h"
#include "basalt/io.h"

struct basalt_aws_client {
    char *service;  /* signing name: "glue", "s3tables" */
    char *env_name; /* "AWS_ENDPOINT_URL_GLUE" */
    char *region;   /* from the URI; NULL: the store's */
    char *endpoint; /* resolved at the first call, no trailing '/' */
    struct basalt_io_store *store;     /* the catalog's (borrowed), else own_store */
    struct basalt_io_store *own_store; /* made on first use when none was set */
};

/* What a request is, for retries and the meaning of a lost answer. */
enum basalt_aws_op {
    BASALT_AWS_OP_READ = 0, /* retried on anything */
    BASALT_AWS_OP_WRITE,    /* sent again only when it certainly never arrived */
    BASALT_AWS_OP_COMMIT,   /* as WRITE; a lost answer or a 5xx: state unknown */
};

struct basalt_aws_call {
    const char *method;       /* "POST", "GET", "PUT", "DELETE" */
    const char *path;         /* "/" or "/tables/...", encoded, with any "?query" */
    const char *target;       /* X-Amz-Target (JSON 1.1 protocols), or NULL */
    const char *content_type; /* NULL: none (no body) */
    const json_t *body;       /* NULL: no body */
    enum basalt_aws_op op;
    const char *what;         /* the operation's name, for messages ("GetTable") */
};

/* The outcome beyond the status: the HTTP status and the AWS error type
 * ("EntityNotFoundException", without any "namespace#"). */
struct basalt_aws_answer {
    long status;
    char type[96];
};

/* `env_name`: the variable naming this service's endpoint. NOMEM. */
basalt_status basalt_aws_client_init(struct basalt_aws_client *a, const char *service,
                                     const char *env_name, const char *region,
                                     struct basalt_error *err);
void basalt_aws_client_reset(struct basalt_aws_client *a);
void basalt_aws_client_set_store(struct basalt_aws_client *a, struct basalt_io_store *store);
/* The region calls are signed for: the URI's, else the store's. */
basalt_status basalt_aws_client_region(struct basalt_aws_client *a, const char **out,
                                       struct basalt_error *err);

/* Sends one call. A 2xx answer's JSON body goes to *out (NULL when the body
 * is empty; out may be NULL). Other answers: NOT_FOUND (404, or a
 * *NotFound* error type), CONFLICT (409, AlreadyExistsException,
 * ConcurrentModificationException, ConflictException), AUTH (401, 403),
 * INVALID_ARG (other 400s: validation), IO otherwise; a COMMIT call whose
 * answer was lost or was 5xx is UNKNOWN_OUTCOME ("commit state unknown").
 * Messages carry the operation, the AWS error type
 * and its message. `answer` may be NULL. */
basalt_status basalt_aws_call(struct basalt_aws_client *a, const struct basalt_aws_call *call,
                              json_t **out, struct basalt_aws_answer *answer,
                              struct basalt_error *err);

/* Appends s[0, len) percent-encoded (everything but A-Z a-z 0-9 - . _ ~). */
basalt_status basalt_aws_append_encoded(struct basalt_buffer *b, const char *s, size_t len,
                                        struct basalt_error *err);

#endif
