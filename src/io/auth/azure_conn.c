/* Azure Storage connection strings ("Configure Azure Storage connection
 * strings" in the Azure docs). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "auth/azure_sign.h"
#include "auth/base64.h"
#include "auth/sigv4_internal.h"

static void free_secret(char *s)
{
    if (s)
        basalt_sigv4_wipe(s, strlen(s));
    basalt_free(s);
}

void basalt_azure_connection_reset(struct basalt_azure_connection *c)
{
    if (!c)
        return;
    basalt_free(c->protocol);
    basalt_free(c->account_name);
    free_secret(c->account_key);
    basalt_free(c->blob_endpoint);
    free_secret(c->sas);
    basalt_free(c->endpoint_suffix);
    memset(c, 0, sizeof *c);
}

static char *dup_n(const char *s, size_t len)
{
    char *d = basalt_malloc(len + 1);
    if (d) {
        memcpy(d, s, len);
        d[len] = '\0';
    }
    return d;
}

/* The field a key fills, or NULL for keys of other services (QueueEndpoint,
 * TableEndpoint, ...), which are ignored. */
static char **field_for(struct basalt_azure_connection *c, const char *key, size_t len,
                        bool *dev)
{
    static const char *const names[] = {"DefaultEndpointsProtocol", "AccountName", "AccountKey",
                                        "BlobEndpoint", "SharedAccessSignature",
                                        "EndpointSuffix"};
    char **fields[] = {&c->protocol, &c->account_name, &c->account_key, &c->blob_endpoint,
                       &c->sas, &c->endpoint_suffix};
    *dev = false;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strlen(names[i]) == len && strncasecmp(names[i], key, len) == 0)
            return fields[i];
    *dev = len == 21 && strncasecmp(key, "UseDevelopmentStorage", len) == 0;
    return NULL;
}

static basalt_status set_default(char **field, const char *value, struct basalt_error *err)
{
    if (*field)
        return BASALT_OK;
    *field = dup_n(value, strlen(value));
    return *field ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "azure: out of memory");
}

static basalt_status parse_pairs(const char *text, struct basalt_azure_connection *c,
                                 bool *dev_storage, struct basalt_error *err)
{
    size_t len = strlen(text);
    int segment = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && text[j] != ';')
            j++;
        segment++;
        /* Whitespace around segments is common in configuration files. */
        size_t a = i, b = j;
        while (a < b && (text[a] == ' ' || text[a] == '\t' || text[a] == '\n' || text[a] == '\r'))
            a++;
        while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t' || text[b - 1] == '\n' ||
                         text[b - 1] == '\r'))
            b--;
        i = j + 1;
        if (a == b)
            continue;
        const char *eq = memchr(text + a, '=', b - a);
        if (!eq || eq == text + a)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "azure connection string: segment %d is not Key=Value",
                                    segment);
        size_t key_len = (size_t)(eq - (text + a));
        bool dev = false;
        char **field = field_for(c, text + a, key_len, &dev);
        const char *value = eq + 1;
        size_t value_len = (size_t)(text + b - value);
        if (dev) {
            *dev_storage = value_len == 4 && strncasecmp(value, "true", 4) == 0;
            continue;
        }
        if (!field)
            continue;
        if (*field)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "azure connection string: %.*s appears twice", (int)key_len,
                                    text + a);
        if (field == &c->sas && value_len && *value == '?') {
            value++;
            value_len--;
        }
        if (field == &c->blob_endpoint && value_len && value[value_len - 1] == '/')
            value_len--;
        *field = dup_n(value, value_len);
        if (!*field)
            return basalt_error_set(err, BASALT_NOMEM, "azure: out of memory");
    }
    return BASALT_OK;
}

static basalt_status fill_defaults(struct basalt_azure_connection *c, bool dev,
                                   struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    if (dev) {
        st = set_default(&c->account_name, BASALT_AZURE_DEV_ACCOUNT, err);
        if (st == BASALT_OK && !c->sas)
            st = set_default(&c->account_key, BASALT_AZURE_DEV_KEY, err);
        if (st == BASALT_OK)
            st = set_default(&c->protocol, "http", err);
        if (st == BASALT_OK)
            st = set_default(&c->blob_endpoint, BASALT_AZURE_DEV_BLOB_ENDPOINT, err);
    }
    if (st == BASALT_OK)
        st = set_default(&c->protocol, "https", err);
    if (st == BASALT_OK)
        st = set_default(&c->endpoint_suffix, "core.windows.net", err);
    if (st != BASALT_OK || c->blob_endpoint)
        return st;
    if (!c->account_name)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "azure connection string: neither AccountName nor BlobEndpoint");
    size_t n = strlen(c->protocol) + strlen(c->account_name) + strlen(c->endpoint_suffix) + 10;
    c->blob_endpoint = basalt_malloc(n);
    if (!c->blob_endpoint)
        return basalt_error_set(err, BASALT_NOMEM, "azure: out of memory");
    snprintf(c->blob_endpoint, n, "%s://%s.blob.%s", c->protocol, c->account_name,
             c->endpoint_suffix);
    return BASALT_OK;
}

basalt_status basalt_azure_connection_parse(const char *text,
                                            struct basalt_azure_connection *out,
                                            struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    if (!text)
        return basalt_error_set(err, BASALT_INVALID_ARG, "azure: no connection string");
    bool dev = false;
    basalt_status st = parse_pairs(text, out, &dev, err);
    if (st == BASALT_OK)
        st = fill_defaults(out, dev, err);
    if (st == BASALT_OK && out->account_key) {
        /* A bad key would otherwise surface only as a 403 on the first request. */
        struct basalt_buffer key;
        basalt_buffer_init(&key);
        st = basalt_io_base64_decode(out->account_key, strlen(out->account_key), &key, err);
        if (st != BASALT_OK)
            basalt_error_context(err, st, "azure connection string: AccountKey");
        else if (key.size == 0)
            st = basalt_error_set(err, BASALT_CORRUPT,
                                  "azure connection string: AccountKey is empty");
        if (key.data)
            basalt_sigv4_wipe(key.data, key.capacity);
        basalt_buffer_reset(&key);
    }
    if (st != BASALT_OK)
        basalt_azure_connection_reset(out);
    return st;
}
