/* S3 and the S3-compatible XML API of GCS: object URLs, signing, error
 * documents, and the object, listing and delete operations. */
#ifndef BASALT_IO_S3_H
#define BASALT_IO_S3_H

#include "remote/remote.h"
#include "store/store.h"

#define BASALT_S3_URL_MAX 4096

/* An object named by an s3://, s3a:// or gs:// URI. */
struct basalt_s3_target {
    const struct basalt_io_s3_config *config;
    bool gcs;
    char bucket[256];
    const char *key; /* into the URI; "" for the bucket itself */
};

basalt_status basalt_s3_target_parse(struct basalt_io_store *store, const char *uri,
                                     struct basalt_s3_target *out, struct basalt_error *err);

/* The URL of the target's key (or, with `key` NULL, of the bucket), with an
 * optional raw query ("list-type=2&prefix=a%2Fb"). */
basalt_status basalt_s3_url(const struct basalt_s3_target *t, const char *key, const char *query,
                            char *url, size_t cap, struct basalt_error *err);

/* Signers (struct basalt_s3_signer, in store.h: the store holds one per
 * provider). */
void basalt_s3_signer_init(struct basalt_s3_signer *s, const struct basalt_io_s3_config *config,
                           const char *bearer);
void basalt_s3_signer_reset(struct basalt_s3_signer *s);
/* The signer to put in requests: NULL when anonymous. */
const struct basalt_http_signer *basalt_s3_signer_get(const struct basalt_s3_signer *s);

/* The error of a final non-2xx response: 404 NOT_FOUND, 401/403 AUTH,
 * 409/412 CONFLICT, else IO; the message has S3's Code and Message. */
basalt_status basalt_s3_error(const struct basalt_http_response *resp, const char *method,
                              const char *name, struct basalt_error *err);

basalt_status basalt_s3_open_input(struct basalt_io_store *store, const char *uri, unsigned flags,
                                   struct basalt_input **out, struct basalt_error *err);
basalt_status basalt_s3_open_output(struct basalt_io_store *store, const char *uri,
                                    unsigned flags, struct basalt_output **out,
                                    struct basalt_error *err);
basalt_status basalt_s3_list(struct basalt_io_store *store, const char *uri_prefix,
                             bool delimited, basalt_io_visit_fn visit, void *ctx,
                             struct basalt_error *err);
basalt_status basalt_s3_stat(struct basalt_io_store *store, const char *uri,
                             struct basalt_io_object_info *out, struct basalt_error *err);
basalt_status basalt_s3_delete(struct basalt_io_store *store, const char *const *uris,
                               size_t count, struct basalt_error *err);
basalt_status basalt_s3_presign(struct basalt_io_store *store, const char *uri,
                                const char *method, uint32_t expires_s, char *url, size_t cap,
                                struct basalt_error *err);

#endif
