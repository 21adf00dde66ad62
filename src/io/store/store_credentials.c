/* Resolving a store's credentials (see store_credentials.h). */
#include <stdlib.h>
#include <string.h>

#include "auth/aws_config.h"
#include "auth/azure_sign.h"
#include "store/store_credentials.h"

/* An owned copy of the first non-empty value; NULL when all are empty. */
static basalt_status pick(char **dst, const char *a, const char *b, const char *c,
                          struct basalt_error *err)
{
    const char *v = a && a[0] ? a : b && b[0] ? b : c && c[0] ? c : NULL;
    *dst = NULL;
    if (!v)
        return BASALT_OK;
    size_t n = strlen(v);
    *dst = basalt_malloc(n + 1);
    if (!*dst)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for credentials");
    memcpy(*dst, v, n + 1);
    return BASALT_OK;
}

static const char *env(const struct basalt_io_options *o, const char *name)
{
    return o->ignore_environment ? NULL : getenv(name);
}

static enum basalt_aws_addressing to_aws(enum basalt_io_addressing a)
{
    switch (a) {
    case BASALT_IO_ADDRESSING_PATH: return BASALT_AWS_ADDRESSING_PATH;
    case BASALT_IO_ADDRESSING_VIRTUAL: return BASALT_AWS_ADDRESSING_VIRTUAL;
    case BASALT_IO_ADDRESSING_AUTO: break;
    }
    return BASALT_AWS_ADDRESSING_UNSET;
}

static enum basalt_io_addressing from_aws(enum basalt_aws_addressing a)
{
    return a == BASALT_AWS_ADDRESSING_PATH      ? BASALT_IO_ADDRESSING_PATH
           : a == BASALT_AWS_ADDRESSING_VIRTUAL ? BASALT_IO_ADDRESSING_VIRTUAL
                                                : BASALT_IO_ADDRESSING_AUTO;
}

/* Keys, region, endpoint and addressing the way the AWS SDKs find them:
 * options, then the environment, then the shared credentials and config
 * files (aws_config.h has the order). */
static basalt_status resolve_s3(struct basalt_io_s3_config *c, const struct basalt_io_options *o,
                                struct basalt_error *err)
{
    struct basalt_aws_config_options ao = {
        .access_key_id = o->access_key_id, .secret_access_key = o->secret_access_key,
        .session_token = o->session_token, .region = o->region, .endpoint_url = o->endpoint,
        .profile = o->profile, .addressing_style = to_aws(o->addressing),
        .getenv = o->ignore_environment ? NULL : basalt_aws_process_getenv,
        .home = o->ignore_environment ? NULL : getenv("HOME")};
    struct basalt_aws_config ac;
    basalt_status st = basalt_aws_config_resolve(&ao, &ac, err);
    if (st != BASALT_OK)
        return st;
    c->anonymous = o->anonymous;
    c->addressing = from_aws(ac.addressing_style);
    /* The strings move into the store's config. */
    c->access_key_id = ac.access_key_id;
    c->secret_access_key = ac.secret_access_key;
    c->session_token = ac.session_token;
    c->region = ac.region;
    c->endpoint = ac.endpoint_url;
    ac.access_key_id = ac.secret_access_key = ac.session_token = NULL;
    ac.region = ac.endpoint_url = NULL;
    basalt_aws_config_reset(&ac);
    return BASALT_OK;
}

static void wipe_free(char **p)
{
    if (*p) {
        volatile char *v = *p;
        while (*v)
            *v++ = 0;
        basalt_free(*p);
        *p = NULL;
    }
}

static void forget_s3(struct basalt_io_s3_config *c)
{
    wipe_free(&c->access_key_id);
    wipe_free(&c->secret_access_key);
    wipe_free(&c->session_token);
    wipe_free(&c->region);
    wipe_free(&c->endpoint);
}

/* A SAS token without the '?' it is often pasted with. */
static const char *sas_of(const char *token)
{
    return token && token[0] == '?' ? token + 1 : token;
}

/* Azure: options.azure_connection_string stands for account, key and SAS
 * (and the endpoint, unless options.azure_endpoint is given). Otherwise
 * each comes from its option, else AZURE_STORAGE_CONNECTION_STRING, else its
 * own variable. */
static basalt_status resolve_azure(struct basalt_io_azure_config *c,
                                   const struct basalt_io_options *o, struct basalt_error *err)
{
    struct basalt_azure_connection conn;
    memset(&conn, 0, sizeof conn);
    const char *text = o->azure_connection_string;
    bool given = text && text[0];
    if (!given)
        text = env(o, "AZURE_STORAGE_CONNECTION_STRING");
    basalt_status st = BASALT_OK;
    if (text && text[0]) {
        st = basalt_azure_connection_parse(text, &conn, err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "%s",
                                        given ? "options.azure_connection_string"
                                              : "AZURE_STORAGE_CONNECTION_STRING");
    }
    c->anonymous = o->anonymous;
    if (given) {
        st = pick(&c->account, conn.account_name, NULL, NULL, err);
        if (st == BASALT_OK)
            st = pick(&c->key, conn.account_key, NULL, NULL, err);
        if (st == BASALT_OK)
            st = pick(&c->sas_token, sas_of(conn.sas), NULL, NULL, err);
    } else {
        st = pick(&c->account, o->azure_account, conn.account_name,
                  env(o, "AZURE_STORAGE_ACCOUNT"), err);
        if (st == BASALT_OK)
            st = pick(&c->key, o->azure_key, conn.account_key, env(o, "AZURE_STORAGE_KEY"), err);
        if (st == BASALT_OK)
            st = pick(&c->sas_token, sas_of(o->azure_sas_token), sas_of(conn.sas),
                      sas_of(env(o, "AZURE_STORAGE_SAS_TOKEN")), err);
    }
    /* The connection string's endpoint serves its own account only. */
    bool same = !c->account || !conn.account_name || strcmp(c->account, conn.account_name) == 0;
    if (st == BASALT_OK)
        st = pick(&c->endpoint, o->azure_endpoint, same ? conn.blob_endpoint : NULL, NULL, err);
    basalt_azure_connection_reset(&conn);
    return st;
}

basalt_status basalt_io_store_resolve_credentials(struct basalt_io_store *store,
                                                  const struct basalt_io_options *o,
                                                  struct basalt_error *err)
{
    basalt_status st = resolve_s3(&store->s3, o, err);
    /* GCS takes the same HMAC keys (its interoperability API) or a token. */
    if (st == BASALT_OK)
        st = resolve_s3(&store->gcs, o, err);
    if (st == BASALT_OK) {
        wipe_free(&store->gcs.region);
        st = pick(&store->gcs.region, "auto", NULL, NULL, err);
    }
    if (st == BASALT_OK)
        st = pick(&store->gcs_bearer, o->bearer_token, env(o, "GOOGLE_OAUTH_ACCESS_TOKEN"), NULL,
                  err);
    if (st == BASALT_OK)
        st = resolve_azure(&store->azure, o, err);
    return st;
}

void basalt_io_store_forget_credentials(struct basalt_io_store *store)
{
    forget_s3(&store->s3);
    forget_s3(&store->gcs);
    wipe_free(&store->gcs_bearer);
    wipe_free(&store->azure.account);
    wipe_free(&store->azure.key);
    wipe_free(&store->azure.sas_token);
    wipe_free(&store->azure.endpoint);
}
