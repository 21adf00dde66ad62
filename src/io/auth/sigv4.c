/* The SigV4 / SigV4a signer: canonical request, string to sign, signature,
 * and what the request must carry afterwards (headers or a presigned query). */
#include <stdio.h>
#include <string.h>

#include "auth/sigv4_internal.h"
#include "basalt/hash.h"

#define ALG_V4 "AWS4-HMAC-SHA256"
#define ALG_V4A "AWS4-ECDSA-P256-SHA256"

/* Headers the signer itself adds (at most host, date, region set, token,
 * content hash), and query parameters for presigning. */
#define MAX_ADDED 8

struct sign_state {
    const struct basalt_sigv4_request *req;
    const struct basalt_sigv4_params *p;
    bool presign;
    bool v4a;
    bool token;         /* a session token is present */
    bool sign_token;    /* ... and is signed */
    const char *payload;
    char date[9];
    char expires[24];
    struct basalt_buffer scope, credential, headers_block, signed_names, canonical_query;
    struct basalt_buffer creq, sts;
};

static void state_reset(struct sign_state *s)
{
    basalt_buffer_reset(&s->scope);
    basalt_buffer_reset(&s->credential);
    basalt_buffer_reset(&s->headers_block);
    basalt_buffer_reset(&s->signed_names);
    basalt_buffer_reset(&s->canonical_query);
    basalt_buffer_reset(&s->creq);
    basalt_buffer_reset(&s->sts);
}

/* Appends NUL and hands the text over as an owned C string. */
static basalt_status take_string(struct basalt_buffer *buf, char **out, struct basalt_error *err)
{
    basalt_status st = basalt_buffer_append(buf, "", 1, err);
    if (st != BASALT_OK)
        return st;
    *out = (char *)basalt_buffer_take(buf);
    return BASALT_OK;
}

static basalt_status check_inputs(const struct sign_state *s, struct basalt_error *err)
{
    const struct basalt_sigv4_request *req = s->req;
    const struct basalt_sigv4_params *p = s->p;
    if (!req->method || !*req->method)
        return basalt_error_set(err, BASALT_INVALID_ARG, "sigv4: no method");
    for (const char *m = req->method; *m; m++)
        if ((unsigned char)*m <= 0x20 || *m == 0x7f)
            return basalt_error_set(err, BASALT_INVALID_ARG, "sigv4: malformed method");
    if (req->header_count && !req->headers)
        return basalt_error_set(err, BASALT_INVALID_ARG, "sigv4: header_count without headers");
    if (!p->credentials.access_key_id || !*p->credentials.access_key_id)
        return basalt_error_set(err, BASALT_INVALID_ARG, "sigv4: no access key id");
    if (strchr(p->credentials.access_key_id, '/'))
        return basalt_error_set(err, BASALT_INVALID_ARG, "sigv4: access key id holds '/'");
    if (!p->credentials.secret_access_key || !*p->credentials.secret_access_key)
        return basalt_error_set(err, BASALT_INVALID_ARG, "sigv4: no secret access key");
    if (!p->region || !*p->region || !p->service || !*p->service)
        return basalt_error_set(err, BASALT_INVALID_ARG, "sigv4: no region or service");
    if (strchr(p->region, '/') || strchr(p->service, '/'))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "sigv4: region or service holds '/'");
    if (s->presign && (p->expires < 1 || p->expires > BASALT_SIGV4_MAX_EXPIRES))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "sigv4: presigned expiry %lld s is outside 1..%d",
                                (long long)p->expires, BASALT_SIGV4_MAX_EXPIRES);
    return BASALT_OK;
}

/* "date/region/service/aws4_request" (SigV4a has no region in its scope: the
 * region set travels in its own signed header). */
static basalt_status build_scope(struct sign_state *s, struct basalt_error *err)
{
    basalt_status st = basalt_sigv4_append(&s->scope, s->date, err);
    if (st == BASALT_OK && !s->v4a) {
        st = basalt_buffer_append(&s->scope, "/", 1, err);
        if (st == BASALT_OK)
            st = basalt_sigv4_append(&s->scope, s->p->region, err);
    }
    if (st == BASALT_OK)
        st = basalt_buffer_append(&s->scope, "/", 1, err);
    if (st == BASALT_OK)
        st = basalt_sigv4_append(&s->scope, s->p->service, err);
    if (st == BASALT_OK)
        st = basalt_sigv4_append(&s->scope, "/aws4_request", err);
    if (st == BASALT_OK)
        st = basalt_sigv4_append(&s->credential, s->p->credentials.access_key_id, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&s->credential, "/", 1, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&s->credential, s->scope.data, s->scope.size, err);
    /* Both are used as C strings below. */
    if (st == BASALT_OK)
        st = basalt_buffer_append(&s->scope, "", 1, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&s->credential, "", 1, err);
    if (st == BASALT_OK) {
        s->scope.size--;
        s->credential.size--;
    }
    return st;
}

static basalt_status build_headers(struct sign_state *s, const char *amz_date,
                                   struct basalt_error *err)
{
    const struct basalt_sigv4_request *req = s->req;
    struct basalt_sigv4_header added[MAX_ADDED];
    size_t n_added = 0;
    if (req->host)
        added[n_added++] = (struct basalt_sigv4_header){"host", req->host};
    if (!s->presign) {
        added[n_added++] = (struct basalt_sigv4_header){"x-amz-date", amz_date};
        if (s->v4a)
            added[n_added++] = (struct basalt_sigv4_header){"x-amz-region-set", s->p->region};
        if (s->sign_token)
            added[n_added++] = (struct basalt_sigv4_header){"x-amz-security-token",
                                                            s->p->credentials.session_token};
        if (s->p->flags & BASALT_SIGV4_ADD_CONTENT_SHA256)
            added[n_added++] = (struct basalt_sigv4_header){"x-amz-content-sha256", s->payload};
    }
    bool has_host = req->host != NULL;
    for (size_t i = 0; i < req->header_count; i++) {
        const char *name = req->headers[i].name;
        if (!name)
            continue; /* reported by basalt_sigv4_canonical_headers */
        for (size_t k = 0; k < n_added; k++)
            if (basalt_sigv4_name_equal(name, added[k].name))
                return basalt_error_set(err, BASALT_INVALID_ARG,
                                        "sigv4: header %s is added by the signer", added[k].name);
        /* An unsigned token is still added, after signing. */
        if (!s->presign && s->token && !s->sign_token &&
            basalt_sigv4_name_equal(name, "x-amz-security-token"))
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "sigv4: header X-Amz-Security-Token is added by the signer");
        if (basalt_sigv4_name_equal(name, "authorization"))
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "sigv4: the request already has an Authorization header");
        has_host |= basalt_sigv4_name_equal(name, "host");
    }
    if (!has_host)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "sigv4: no host (SigV4 always signs the Host header)");
    size_t total = req->header_count + n_added;
    struct basalt_sigv4_header *all = basalt_malloc(total * sizeof *all);
    if (!all)
        return basalt_error_set(err, BASALT_NOMEM, "sigv4: out of memory collecting headers");
    if (req->header_count)
        memcpy(all, req->headers, req->header_count * sizeof *all);
    memcpy(all + req->header_count, added, n_added * sizeof *all);
    basalt_status st = basalt_sigv4_canonical_headers(&s->headers_block, &s->signed_names, all,
                                                      total, err);
    basalt_free(all);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&s->signed_names, "", 1, err);
    if (st == BASALT_OK)
        s->signed_names.size--;
    return st;
}

static basalt_status build_query(struct sign_state *s, const char *amz_date,
                                 struct basalt_error *err)
{
    struct basalt_sigv4_header extra[MAX_ADDED];
    size_t n = 0;
    if (s->presign) {
        snprintf(s->expires, sizeof s->expires, "%lld", (long long)s->p->expires);
        extra[n++] = (struct basalt_sigv4_header){"X-Amz-Algorithm", s->v4a ? ALG_V4A : ALG_V4};
        extra[n++] = (struct basalt_sigv4_header){"X-Amz-Credential",
                                                  (const char *)s->credential.data};
        extra[n++] = (struct basalt_sigv4_header){"X-Amz-Date", amz_date};
        extra[n++] = (struct basalt_sigv4_header){"X-Amz-Expires", s->expires};
        extra[n++] = (struct basalt_sigv4_header){"X-Amz-SignedHeaders",
                                                  (const char *)s->signed_names.data};
        if (s->sign_token)
            extra[n++] = (struct basalt_sigv4_header){"X-Amz-Security-Token",
                                                      s->p->credentials.session_token};
        if (s->v4a)
            extra[n++] = (struct basalt_sigv4_header){"X-Amz-Region-Set", s->p->region};
    }
    return basalt_sigv4_canonical_query(&s->canonical_query, s->req->query, extra, n, err);
}

static basalt_status build_canonical_request(struct sign_state *s, struct basalt_error *err)
{
    struct basalt_buffer *c = &s->creq;
    basalt_status st = basalt_sigv4_append(c, s->req->method, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(c, "\n", 1, err);
    if (st == BASALT_OK)
        st = basalt_sigv4_canonical_path(c, s->req->path, s->p->flags, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(c, "\n", 1, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(c, s->canonical_query.data, s->canonical_query.size, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(c, "\n", 1, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(c, s->headers_block.data, s->headers_block.size, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(c, "\n", 1, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(c, s->signed_names.data, s->signed_names.size, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(c, "\n", 1, err);
    if (st == BASALT_OK)
        st = basalt_sigv4_append(c, s->payload, err);
    return st;
}

static basalt_status build_string_to_sign(struct sign_state *s, const char *amz_date,
                                          struct basalt_error *err)
{
    uint8_t digest[BASALT_HASH_SHA256_SIZE];
    char hex[2 * BASALT_HASH_SHA256_SIZE + 1];
    basalt_status st = basalt_hash_sha256(s->creq.data, s->creq.size, digest);
    if (st != BASALT_OK)
        return basalt_error_set(err, st, "sigv4: hashing the canonical request failed");
    basalt_hash_hex(digest, sizeof digest, hex);
    struct basalt_buffer *b = &s->sts;
    st = basalt_sigv4_append(b, s->v4a ? ALG_V4A "\n" : ALG_V4 "\n", err);
    if (st == BASALT_OK)
        st = basalt_sigv4_append(b, amz_date, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(b, "\n", 1, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(b, s->scope.data, s->scope.size, err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(b, "\n", 1, err);
    if (st == BASALT_OK)
        st = basalt_sigv4_append(b, hex, err);
    return st;
}

static basalt_status compute_signature(struct sign_state *s, char *out, struct basalt_error *err)
{
    if (s->v4a)
        return basalt_sigv4a_sign(s->p->v4a_key, s->sts.data, s->sts.size, out, err);
    const struct basalt_sigv4_credentials *c = &s->p->credentials;
    uint8_t key[32], mac[BASALT_HASH_SHA256_SIZE];
    basalt_status st =
        s->p->cache ? basalt_sigv4_key_cache_get(s->p->cache, c->access_key_id,
                                                 c->secret_access_key, s->date, s->p->region,
                                                 s->p->service, key, err)
                    : basalt_sigv4_signing_key(c->secret_access_key, s->date, s->p->region,
                                               s->p->service, key, err);
    if (st == BASALT_OK) {
        st = basalt_hash_hmac_sha256(key, sizeof key, s->sts.data, s->sts.size, mac);
        if (st != BASALT_OK)
            basalt_error_set(err, st, "sigv4: computing the signature failed");
    }
    basalt_sigv4_wipe(key, sizeof key);
    if (st == BASALT_OK)
        basalt_hash_hex(mac, sizeof mac, out);
    return st;
}

static basalt_status own_copy(struct basalt_sigv4_result *out, int slot, const char *s,
                              struct basalt_error *err)
{
    size_t len = strlen(s);
    out->owned_[slot] = basalt_malloc(len + 1);
    if (!out->owned_[slot])
        return basalt_error_set(err, BASALT_NOMEM, "sigv4: out of memory");
    memcpy(out->owned_[slot], s, len + 1);
    return BASALT_OK;
}

static void add_header(struct basalt_sigv4_result *out, const char *name, const char *value)
{
    out->headers[out->header_count++] = (struct basalt_sigv4_header){name, value};
}

/* Header signing: X-Amz-Date ... Authorization, in the documented order. */
static basalt_status finish_headers(struct sign_state *s, struct basalt_sigv4_result *out,
                                    struct basalt_error *err)
{
    struct basalt_buffer auth;
    basalt_buffer_init(&auth);
    basalt_status st = basalt_sigv4_append(&auth, s->v4a ? ALG_V4A : ALG_V4, err);
    if (st == BASALT_OK)
        st = basalt_sigv4_append(&auth, " Credential=", err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&auth, s->credential.data, s->credential.size, err);
    if (st == BASALT_OK)
        st = basalt_sigv4_append(&auth, ", SignedHeaders=", err);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&auth, s->signed_names.data, s->signed_names.size, err);
    if (st == BASALT_OK)
        st = basalt_sigv4_append(&auth, ", Signature=", err);
    if (st == BASALT_OK)
        st = basalt_sigv4_append(&auth, out->signature, err);
    if (st == BASALT_OK)
        st = take_string(&auth, &out->authorization, err);
    basalt_buffer_reset(&auth);
    if (st != BASALT_OK)
        return st;
    add_header(out, "X-Amz-Date", out->amz_date);
    if (s->v4a) {
        if ((st = own_copy(out, 0, s->p->region, err)) != BASALT_OK)
            return st;
        add_header(out, "X-Amz-Region-Set", out->owned_[0]);
    }
    if (s->token) {
        if ((st = own_copy(out, 1, s->p->credentials.session_token, err)) != BASALT_OK)
            return st;
        add_header(out, "X-Amz-Security-Token", out->owned_[1]);
    }
    if (s->p->flags & BASALT_SIGV4_ADD_CONTENT_SHA256) {
        if ((st = own_copy(out, 2, s->payload, err)) != BASALT_OK)
            return st;
        add_header(out, "x-amz-content-sha256", out->owned_[2]);
    }
    add_header(out, "Authorization", out->authorization);
    return BASALT_OK;
}

/* Presigning: the canonical query is a valid query string in itself, so the
 * URL carries it plus the signature (and an unsigned token, if asked). */
static basalt_status finish_query(struct sign_state *s, struct basalt_sigv4_result *out,
                                  struct basalt_error *err)
{
    struct basalt_buffer *q = &s->canonical_query;
    basalt_status st = q->size ? basalt_buffer_append(q, "&", 1, err) : BASALT_OK;
    if (st == BASALT_OK)
        st = basalt_sigv4_append(q, "X-Amz-Signature=", err);
    if (st == BASALT_OK)
        st = basalt_sigv4_append(q, out->signature, err);
    if (st == BASALT_OK && s->token && !s->sign_token) {
        const char *token = s->p->credentials.session_token;
        st = basalt_sigv4_append(q, "&X-Amz-Security-Token=", err);
        if (st == BASALT_OK)
            st = basalt_sigv4_uri_encode(q, token, strlen(token), false, err);
    }
    if (st == BASALT_OK)
        st = take_string(q, &out->query, err);
    return st;
}

static basalt_status sign(const struct basalt_sigv4_request *req,
                          const struct basalt_sigv4_params *params, bool presign,
                          struct basalt_sigv4_result *out, struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "sigv4: no result");
    memset(out, 0, sizeof *out);
    if (!req || !params)
        return basalt_error_set(err, BASALT_INVALID_ARG, "sigv4: no request or parameters");
    struct sign_state s;
    memset(&s, 0, sizeof s);
    s.req = req;
    s.p = params;
    s.presign = presign;
    s.v4a = params->v4a_key != NULL;
    s.token = params->credentials.session_token && *params->credentials.session_token;
    s.sign_token = s.token && !(params->flags & BASALT_SIGV4_OMIT_SESSION_TOKEN);
    s.payload = req->payload_hash ? req->payload_hash : BASALT_SIGV4_EMPTY_SHA256;
    basalt_status st = check_inputs(&s, err);
    if (st == BASALT_OK)
        st = basalt_sigv4_format_time(params->time, out->amz_date, err);
    if (st == BASALT_OK) {
        memcpy(s.date, out->amz_date, 8);
        s.date[8] = '\0';
        st = build_scope(&s, err);
    }
    if (st == BASALT_OK)
        st = build_headers(&s, out->amz_date, err);
    if (st == BASALT_OK)
        st = build_query(&s, out->amz_date, err);
    if (st == BASALT_OK)
        st = build_canonical_request(&s, err);
    if (st == BASALT_OK)
        st = build_string_to_sign(&s, out->amz_date, err);
    if (st == BASALT_OK)
        st = compute_signature(&s, out->signature, err);
    if (st == BASALT_OK)
        st = take_string(&s.creq, &out->canonical_request, err);
    if (st == BASALT_OK)
        st = take_string(&s.sts, &out->string_to_sign, err);
    if (st == BASALT_OK)
        st = presign ? finish_query(&s, out, err) : finish_headers(&s, out, err);
    state_reset(&s);
    if (st != BASALT_OK)
        basalt_sigv4_result_reset(out);
    return st;
}

basalt_status basalt_sigv4_sign_headers(const struct basalt_sigv4_request *req,
                                        const struct basalt_sigv4_params *params,
                                        struct basalt_sigv4_result *out,
                                        struct basalt_error *err)
{
    return sign(req, params, false, out, err);
}

basalt_status basalt_sigv4_presign(const struct basalt_sigv4_request *req,
                                   const struct basalt_sigv4_params *params,
                                   struct basalt_sigv4_result *out, struct basalt_error *err)
{
    return sign(req, params, true, out, err);
}

void basalt_sigv4_result_reset(struct basalt_sigv4_result *out)
{
    if (!out)
        return;
    basalt_free(out->canonical_request);
    basalt_free(out->string_to_sign);
    basalt_free(out->authorization);
    basalt_free(out->query);
    for (size_t i = 0; i < sizeof out->owned_ / sizeof out->owned_[0]; i++) {
        /* The token is a credential: do not leave it behind in freed memory. */
        if (out->owned_[i])
            basalt_sigv4_wipe(out->owned_[i], strlen(out->owned_[i]));
        basalt_free(out->owned_[i]);
    }
    memset(out, 0, sizeof *out);
}
