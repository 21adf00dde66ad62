/* Azure Blob storage: az:// and abfs[s]:// URIs to Blob service URLs, Shared
 * Key signing (or a SAS token in the query), error documents, and the
 * object, listing and delete operations on the remote input and output. */
#ifndef BASALT_IO_AZURE_H
#define BASALT_IO_AZURE_H

#include "remote/remote.h"
#include "store/store.h"

#define BASALT_AZURE_URL_MAX 4096
/* The service version every request asks for. */
#define BASALT_AZURE_VERSION "2021-08-06"

/* A blob (or container) named by az://CONTAINER/BLOB or
 * abfs[s]://CONTAINER@ACCOUNT.dfs.core.windows.net/BLOB. */
struct basalt_azure_target {
    const struct basalt_io_azure_config *config;
    char account[64];
    char container[64];
    const char *blob; /* into the URI; "" for the container itself */
    /* The URI up to the container ("az://c", "abfss://c@a.dfs.core.windows.net"),
     * to name listed entries the way the caller named their prefix. */
    char uri_base[256];
    /* The Blob service endpoint without a trailing '/':
     * "https://ACCOUNT.blob.core.windows.net" or the configured one
     * ("http://127.0.0.1:10000/devstoreaccount1", path style). */
    char endpoint[512];
};

basalt_status basalt_azure_target_parse(struct basalt_io_store *store, const char *uri,
                                        struct basalt_azure_target *out,
                                        struct basalt_error *err);

/* The URL of `blob` (encoded here; NULL: the container) with an optional raw
 * query ("comp=block&blockid=..."); the store's SAS token, if any, is
 * appended to the query. The result may hold a secret: never put it in a
 * message (use the URI). */
basalt_status basalt_azure_url(const struct basalt_azure_target *t, const char *blob,
                               const char *query, char *url, size_t cap,
                               struct basalt_error *err);

/* The signer to put in requests: Shared Key when the store has an account key
 * and no SAS token, else NULL (the SAS is in the URL, or anonymous). */
const struct basalt_http_signer *basalt_azure_signer_get(const struct basalt_io_store *store);
void basalt_azure_signer_init(struct basalt_azure_signer *s,
                              const struct basalt_io_azure_config *config);

/* Headers every Azure request carries (x-ms-version): copies them into `h`. */
basalt_status basalt_azure_headers_init(struct basalt_http_headers *h, struct basalt_error *err);

/* The error of a final non-2xx response: 401/403 AUTH, 404 NOT_FOUND, 409/412
 * CONFLICT, else IO; the message has Azure's Code and the first line of its
 * Message. */
basalt_status basalt_azure_error(const struct basalt_http_response *resp, const char *method,
                                 const char *name, struct basalt_error *err);

basalt_status basalt_azure_open_input(struct basalt_io_store *store, const char *uri, unsigned flags,
                                      struct basalt_input **out, struct basalt_error *err);
basalt_status basalt_azure_open_output(struct basalt_io_store *store, const char *uri,
                                       unsigned flags, struct basalt_output **out,
                                       struct basalt_error *err);
basalt_status basalt_azure_stat(struct basalt_io_store *store, const char *uri,
                                struct basalt_io_object_info *out, struct basalt_error *err);
basalt_status basalt_azure_list(struct basalt_io_store *store, const char *uri_prefix,
                                bool delimited, basalt_io_visit_fn visit, void *ctx,
                                struct basalt_error *err);
basalt_status basalt_azure_delete(struct basalt_io_store *store, const char *const *uris,
                                  size_t count, struct basalt_error *err);

#endif
