/* REST catalog authentication: a fixed bearer token, or OAuth2 client
 * credentials exchanged for one (RFC 6749 4.4) at the token endpoint, and
 * exchanged again before the token expires or when a request gets 401. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "rest_client_internal.h"

static int64_t monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool basalt_rest_client_can_refresh(const struct basalt_rest_client *r)
{
    return r->client_secret != NULL;
}

static basalt_status form_field(struct basalt_buffer *b, const char *name, const char *value,
                                struct basalt_error *err)
{
    basalt_status st = BASALT_OK;
    if (b->size)
        st = basalt_buffer_append(b, "&", 1, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(b, name, strlen(name), err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(b, "=", 1, err);
    if (st == BASALT_OK)
        st = basalt_rest_client_append_encoded(b, value, strlen(value), err);
    return st;
}

/* POST grant_type=client_credentials to the token endpoint. */
static basalt_status fetch_token(struct basalt_rest_client *r, struct basalt_error *err)
{
    struct basalt_buffer form;
    basalt_buffer_init(&form);
    basalt_status st = form_field(&form, "grant_type", "client_credentials", err);
    if (st == BASALT_OK && r->client_id)
        st = form_field(&form, "client_id", r->client_id, err);
    if (st == BASALT_OK)
        st = form_field(&form, "client_secret", r->client_secret, err);
    if (st == BASALT_OK)
        st = form_field(&form, "scope", r->scope ? r->scope : "catalog", err);
    json_t *answer = NULL;
    if (st == BASALT_OK) {
        /* A token request may be sent twice: a second token does no harm. */
        struct basalt_rest_client_call call = {.method = "POST", .url = r->token_endpoint,
                                        .body = (const char *)form.data, .body_len = form.size,
                                        .form = true, .op = BASALT_REST_CLIENT_OP_READ,
                                        .no_auth = true};
        long status = 0;
        st = basalt_rest_client_call(r, &call, &answer, &status, err);
        /* The token endpoint refusing credentials is an authentication
         * failure, whatever status it chose (400 invalid_client...). */
        if (st != BASALT_OK && status >= 400 && status < 500)
            st = basalt_error_context(err, BASALT_AUTH,
                                      "the token endpoint refused the client credentials");
    }
    basalt_buffer_reset(&form);
    const char *token = json_string_value(json_object_get(answer, "access_token"));
    const char *type = json_string_value(json_object_get(answer, "token_type"));
    const json_t *expires = json_object_get(answer, "expires_in");
    if (st == BASALT_OK && (!token || !*token))
        st = basalt_error_set(err, BASALT_CORRUPT, "the token endpoint answered no access_token");
    if (st == BASALT_OK && type && strcasecmp(type, "bearer") != 0 && strcasecmp(type, "N_A") != 0)
        st = basalt_error_set(err, BASALT_UNSUPPORTED,
                              "the token endpoint issued a '%.40s' token (only bearer tokens are "
                              "used)",
                              type);
    if (st == BASALT_OK) {
        char *copy = basalt_strdup(token);
        if (!copy) {
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        } else {
            basalt_free(r->access_token);
            r->access_token = copy;
            r->token_fetches++;
            r->token_expires_ms = 0;
            if (json_is_integer(expires) && json_integer_value(expires) > 0) {
                int64_t ms = (int64_t)json_integer_value(expires) * 1000;
                /* Renew a tenth of the lifetime early (at most a minute), so a
                 * request does not set out with a token about to lapse. */
                int64_t margin = ms / 10 < 60000 ? ms / 10 : 60000;
                r->token_expires_ms = monotonic_ms() + ms - margin;
            }
        }
    }
    json_decref(answer);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "OAuth2 token from %.200s", r->token_endpoint);
    return BASALT_OK;
}

basalt_status basalt_rest_client_bearer(struct basalt_rest_client *r, bool force,
                                         const char **out, struct basalt_error *err)
{
    *out = r->token;
    if (!r->client_secret)
        return BASALT_OK;
    if (!r->token_endpoint)
        return basalt_error_set(err, BASALT_INTERNAL, "no token endpoint before the session");
    bool expired = r->token_expires_ms && monotonic_ms() >= r->token_expires_ms;
    if (force || !r->access_token || expired) {
        basalt_status st = fetch_token(r, err);
        if (st != BASALT_OK)
            return st;
    }
    *out = r->access_token;
    return BASALT_OK;
}
