/* az:// and abfs[s]:// URIs to Blob service URLs. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "azure/azure.h"

/* Copies s[0..len) into a fixed field; false when it is empty or too long. */
static bool take(char *dst, size_t cap, const char *s, size_t len)
{
    if (len == 0 || len >= cap)
        return false;
    memcpy(dst, s, len);
    dst[len] = '\0';
    return true;
}

/* abfs[s]://CONTAINER@ACCOUNT.dfs.SUFFIX/PATH: the account and its Blob
 * endpoint come from the host (the dfs endpoint's blob twin), unless the
 * store is configured for that same account with an endpoint of its own
 * (an emulator), which then wins. */
static basalt_status parse_abfs(const char *uri, const char *rest,
                                struct basalt_azure_target *out, struct basalt_error *err)
{
    size_t authority = strcspn(rest, "/");
    const char *at = memchr(rest, '@', authority);
    if (!at || !take(out->container, sizeof out->container, rest, (size_t)(at - rest)))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "%.300s: expected abfs[s]://CONTAINER@ACCOUNT.dfs.core.windows.net/PATH",
                                uri);
    const char *host = at + 1;
    size_t host_len = (size_t)(rest + authority - host);
    size_t account_len = strcspn(host, ".");
    const char *dfs = ".dfs.";
    if (account_len >= host_len || !take(out->account, sizeof out->account, host, account_len) ||
        strncasecmp(host + account_len, dfs, strlen(dfs)) != 0)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "%.300s: the host is not ACCOUNT.dfs.SUFFIX", uri);
    const char *suffix = host + account_len + strlen(dfs);
    size_t suffix_len = host_len - account_len - strlen(dfs);
    const struct basalt_io_azure_config *c = out->config;
    int w;
    if (c->endpoint && c->account && strcmp(c->account, out->account) == 0)
        w = snprintf(out->endpoint, sizeof out->endpoint, "%s", c->endpoint);
    else
        w = snprintf(out->endpoint, sizeof out->endpoint, "https://%s.blob.%.*s", out->account,
                     (int)suffix_len, suffix);
    if (w < 0 || (size_t)w >= sizeof out->endpoint)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%.300s: endpoint too long", uri);
    w = snprintf(out->uri_base, sizeof out->uri_base, "%.*s", (int)(rest + authority - uri), uri);
    if (w < 0 || (size_t)w >= sizeof out->uri_base)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%.300s: host too long", uri);
    out->blob = rest[authority] == '/' ? rest + authority + 1 : rest + authority;
    return BASALT_OK;
}

/* az://CONTAINER/BLOB: the account and endpoint are the store's. */
static basalt_status parse_az(const char *uri, const char *rest, struct basalt_azure_target *out,
                              struct basalt_error *err)
{
    size_t clen = strcspn(rest, "/");
    if (!take(out->container, sizeof out->container, rest, clen))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "%.300s: no container name (or one too long)", uri);
    const struct basalt_io_azure_config *c = out->config;
    if (!c->account && !c->endpoint)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "%.300s: no Azure account (set AZURE_STORAGE_ACCOUNT, a "
                                "connection string or the store's azure options)",
                                uri);
    if (c->account && !take(out->account, sizeof out->account, c->account, strlen(c->account)))
        return basalt_error_set(err, BASALT_INVALID_ARG, "%.300s: account name too long", uri);
    int w = c->endpoint
                ? snprintf(out->endpoint, sizeof out->endpoint, "%s", c->endpoint)
                : snprintf(out->endpoint, sizeof out->endpoint, "https://%s.blob.core.windows.net",
                           c->account);
    if (w < 0 || (size_t)w >= sizeof out->endpoint)
        return basalt_error_set(err, BASALT_INVALID_ARG, "%.300s: endpoint too long", uri);
    snprintf(out->uri_base, sizeof out->uri_base, "%.*s", (int)(rest + clen - uri), uri);
    out->blob = rest[clen] == '/' ? rest + clen + 1 : rest + clen;
    return BASALT_OK;
}

basalt_status basalt_azure_target_parse(struct basalt_io_store *store, const char *uri,
                                        struct basalt_azure_target *out,
                                        struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    if (!store)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "%.300s: a remote URI needs an object store (none was given)",
                                uri);
    out->config = &store->azure;
    /* Every Azure operation starts here: make the store's HTTP client now,
     * so the operations may use store->http directly. */
    struct basalt_http_client *http;
    basalt_status st = basalt_io_store_http(store, uri, &http, err);
    if (st != BASALT_OK)
        return st;
    if (strncasecmp(uri, "az://", 5) == 0)
        st = parse_az(uri, uri + 5, out, err);
    else if (strncasecmp(uri, "abfs://", 7) == 0)
        st = parse_abfs(uri, uri + 7, out, err);
    else if (strncasecmp(uri, "abfss://", 8) == 0)
        st = parse_abfs(uri, uri + 8, out, err);
    else
        st = basalt_error_set(err, BASALT_INVALID_ARG, "%.300s: not an az:// or abfs:// URI", uri);
    if (st != BASALT_OK)
        return st;
    size_t n = strlen(out->endpoint);
    while (n > 0 && out->endpoint[n - 1] == '/')
        out->endpoint[--n] = '\0';
    return BASALT_OK;
}

basalt_status basalt_azure_url(const struct basalt_azure_target *t, const char *blob,
                               const char *query, char *url, size_t cap,
                               struct basalt_error *err)
{
    char path[BASALT_AZURE_URL_MAX];
    path[0] = '\0';
    if (blob) {
        basalt_status st =
            basalt_http_uri_encode(blob, strlen(blob), true, path, sizeof path, err);
        if (st != BASALT_OK)
            return st;
    }
    const char *sas = t->config->sas_token;
    bool has_query = query && query[0];
    bool has_sas = sas && sas[0] && !t->config->anonymous;
    int w = snprintf(url, cap, "%s/%s%s%s%s%s%s", t->endpoint, t->container, blob ? "/" : "",
                     path, has_query || has_sas ? "?" : "", has_query ? query : "",
                     has_query && has_sas ? "&" : "");
    if (w >= 0 && (size_t)w < cap && has_sas) {
        size_t used = (size_t)w;
        w = snprintf(url + used, cap - used, "%s", sas);
        w = w < 0 ? w : w + (int)used;
    }
    if (w < 0 || (size_t)w >= cap)
        return basalt_error_set(err, BASALT_LIMIT, "%s/%s: URL too long", t->uri_base,
                                blob ? blob : "");
    return BASALT_OK;
}
