/* Azure Blob Storage: Shared Key request signing and connection strings.
 *
 * Pure functions, no I/O. The Shared Key scheme is the one of service version
 * 2009-09-19 and later ("Authorize with Shared Key" in the Azure Storage REST
 * docs). The account key never appears in error messages. */
#ifndef BASALT_IO_AUTH_AZURE_SIGN_H
#define BASALT_IO_AUTH_AZURE_SIGN_H

#include "basalt/core.h"

/* Borrowed (name, value). */
struct basalt_azure_header {
    const char *name;
    const char *value;
};

/* The request as it will be sent; every pointer borrowed for the call. */
struct basalt_azure_request {
    const char *method;   /* "GET", "PUT", ... */
    const char *account;  /* the storage account name */
    /* The path as on the wire, percent-encoded, without the query: with
     * path-style endpoints (azurite: http://127.0.0.1:10000/devstoreaccount1/c/b)
     * it starts with the account, which then appears twice in the resource,
     * as the service expects. NULL or "" is "/". */
    const char *path;
    const char *query;    /* raw, without '?'; NULL or "" for none */
    /* All request headers: the standard ones are picked by name (ignoring
     * case), and every x-ms-* one is signed. Others are ignored. */
    const struct basalt_azure_header *headers;
    size_t header_count;
};

/* The StringToSign of `req` as an owned string (basalt_free): VERB, the eleven
 * standard header values (Content-Length empty when "0"), the x-ms-* headers
 * lower-cased, sorted and trimmed, then "/account/path" and one line
 * "name:v1,v2" per query parameter (names lower-cased and sorted, values
 * decoded and sorted). Returns INVALID_ARG (no method or account, malformed
 * header name), NOMEM. */
basalt_status basalt_azure_string_to_sign(const struct basalt_azure_request *req, char **out,
                                          struct basalt_error *err);

/* Signs `req` with `account_key` (the base64 text of the key, as in the
 * portal and connection strings) and returns in `*authorization` an owned
 * "SharedKey account:signature" value for the Authorization header, and in
 * `*string_to_sign` (NULL allowed) what was signed. Returns CORRUPT (the key
 * is not base64), and as basalt_azure_string_to_sign. Thread-safe. */
basalt_status basalt_azure_sign_shared_key(const struct basalt_azure_request *req,
                                           const char *account_key, char **authorization,
                                           char **string_to_sign, struct basalt_error *err);

/* ------------------------------------------------------ connection strings */

/* A parsed connection string. Strings are owned (reset frees them); NULL when
 * absent. blob_endpoint is always set on success: given, or built from the
 * protocol, account and endpoint suffix, or azurite's for development storage. */
struct basalt_azure_connection {
    char *protocol;         /* DefaultEndpointsProtocol: "https" unless given */
    char *account_name;     /* AccountName */
    char *account_key;      /* AccountKey, base64 text */
    char *blob_endpoint;    /* BlobEndpoint, without a trailing '/' */
    char *sas;              /* SharedAccessSignature, without a leading '?' */
    char *endpoint_suffix;  /* EndpointSuffix: "core.windows.net" unless given */
};

/* The well-known credentials of the storage emulator (azurite). */
#define BASALT_AZURE_DEV_ACCOUNT "devstoreaccount1"
#define BASALT_AZURE_DEV_KEY \
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
#define BASALT_AZURE_DEV_BLOB_ENDPOINT "http://127.0.0.1:10000/devstoreaccount1"

/* Parses "Key=Value;Key=Value;..." (keys case-insensitive, empty segments and
 * keys of other services ignored; values may hold '='). UseDevelopmentStorage=
 * true stands for azurite's account, key and endpoint. `out` is initialised
 * here. Returns CORRUPT (a segment without '=', a repeated key, neither an
 * account nor a blob endpoint, an account key that is not base64), NOMEM. On
 * failure `out` is left empty. */
basalt_status basalt_azure_connection_parse(const char *text,
                                            struct basalt_azure_connection *out,
                                            struct basalt_error *err);
/* Frees the strings (wiping the key and SAS) and empties `c`. */
void basalt_azure_connection_reset(struct basalt_azure_connection *c);

#endif
