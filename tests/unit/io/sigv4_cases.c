/* Reader of the aws-c-auth signing suite's case folders. */
#include "sigv4_cases.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <jansson.h>

#include "basalt/hash.h"
#include "test.h"

bool sigv4_http_parse(char *text, size_t len, struct sigv4_http *out, char *why, size_t cap)
{
    memset(out, 0, sizeof *out);
    out->text_ = text;
    text[len] = '\0';
    char *eol = strchr(text, '\n');
    char *line_end = eol ? eol : text + len;
    /* The path may hold spaces: cut " HTTP/1.1" off the end, split at the
     * first space only. */
    if (line_end - text < 9 || memcmp(line_end - 9, " HTTP/1.1", 9) != 0) {
        snprintf(why, cap, "request line does not end in ' HTTP/1.1'");
        return false;
    }
    line_end[-9] = '\0';
    char *space = strchr(text, ' ');
    if (!space) {
        snprintf(why, cap, "request line has no target");
        return false;
    }
    *space = '\0';
    out->method = text;
    out->target = space + 1;
    char *p = eol ? eol + 1 : text + len;
    char *end = text + len;
    char *last_value_end = NULL;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *stop = nl ? nl : end;
        if (stop == p) { /* the empty line: the body follows */
            out->body = p + 1 <= end ? p + 1 : end;
            out->body_len = (size_t)(end - out->body);
            if (last_value_end)
                *last_value_end = '\0';
            return true;
        }
        if (*p == ' ' || *p == '\t') {
            /* A continuation line: the previous value runs on over the LF. */
            if (!last_value_end) {
                snprintf(why, cap, "continuation line before any header");
                return false;
            }
        } else {
            if (last_value_end)
                *last_value_end = '\0';
            char *colon = memchr(p, ':', (size_t)(stop - p));
            if (!colon || out->header_count == SIGV4_CASE_MAX_HEADERS) {
                snprintf(why, cap, "malformed header line");
                return false;
            }
            *colon = '\0';
            out->headers[out->header_count].name = p;
            out->headers[out->header_count].value = colon + 1;
            out->header_count++;
        }
        last_value_end = stop;
        p = nl ? nl + 1 : end;
    }
    if (last_value_end)
        *last_value_end = '\0';
    out->body = end;
    out->body_len = 0;
    return true;
}

void sigv4_http_free(struct sigv4_http *h)
{
    basalt_free(h->text_);
    memset(h, 0, sizeof *h);
}

static char *read_text(const char *path, size_t *len)
{
    size_t n = 0;
    uint8_t *buf = bt_read_file(path, &n);
    if (!buf)
        return NULL;
    buf[n] = '\0'; /* bt_read_file leaves one spare byte */
    if (len)
        *len = n;
    return (char *)buf;
}

char *sigv4_case_file(const struct sigv4_case *c, const char *file)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", c->dir, file);
    return read_text(path, NULL);
}

static bool copy_json_string(json_t *obj, const char *key, char *dst, size_t cap, bool required)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return !required;
    const char *s = json_string_value(v);
    if (!s || strlen(s) >= cap)
        return false;
    strcpy(dst, s);
    return true;
}

static bool load_context(struct sigv4_case *c, char *why, size_t cap)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/context.json", c->dir);
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root) {
        snprintf(why, cap, "context.json: %s", jerr.text);
        return false;
    }
    bool ok = true;
    json_t *creds = json_object_get(root, "credentials");
    ok = ok && copy_json_string(creds, "access_key_id", c->access_key_id,
                                sizeof c->access_key_id, true);
    ok = ok && copy_json_string(creds, "secret_access_key", c->secret, sizeof c->secret, true);
    ok = ok && copy_json_string(creds, "token", c->token, sizeof c->token, false);
    ok = ok && copy_json_string(root, "region", c->region, sizeof c->region, true);
    ok = ok && copy_json_string(root, "service", c->service, sizeof c->service, true);
    char stamp[64] = "";
    ok = ok && copy_json_string(root, "timestamp", stamp, sizeof stamp, true);
    json_t *exp = json_object_get(root, "expiration_in_seconds");
    ok = ok && json_is_integer(exp);
    if (ok) {
        c->expires = json_integer_value(exp);
        c->normalize = json_is_true(json_object_get(root, "normalize"));
        c->sign_body = json_is_true(json_object_get(root, "sign_body"));
        c->omit_session_token = json_is_true(json_object_get(root, "omit_session_token"));
        struct tm tm;
        memset(&tm, 0, sizeof tm);
        const char *rest = strptime(stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
        ok = rest && *rest == '\0';
        c->time = ok ? (int64_t)timegm(&tm) : 0;
    }
    json_decref(root);
    if (!ok)
        snprintf(why, cap, "context.json lacks a field or has a malformed one");
    return ok;
}

bool sigv4_case_load(const char *dir, struct sigv4_case *c, char *why, size_t cap)
{
    memset(c, 0, sizeof *c);
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    const char *slash = strrchr(c->dir, '/');
    c->name = slash ? slash + 1 : c->dir;
    char path[1200];
    snprintf(path, sizeof path, "%s/request.txt", dir);
    size_t len = 0;
    char *text = read_text(path, &len);
    if (!text) {
        snprintf(why, cap, "request.txt is missing");
        return false;
    }
    if (!sigv4_http_parse(text, len, &c->request, why, cap))
        return false;
    if (!load_context(c, why, cap))
        return false;
    size_t tlen = strlen(c->request.target);
    c->path = basalt_malloc(tlen + 2);
    if (!c->path) {
        snprintf(why, cap, "out of memory");
        return false;
    }
    memcpy(c->path, c->request.target, tlen + 1);
    char *q = strchr(c->path, '?');
    if (q) {
        *q = '\0';
        c->query = q + 1;
    } else {
        c->query = c->path + tlen + 1;
        *c->query = '\0';
    }
    if (c->sign_body) {
        uint8_t digest[32];
        if (basalt_hash_sha256(c->request.body, c->request.body_len, digest) != BASALT_OK) {
            snprintf(why, cap, "sha256 failed");
            return false;
        }
        basalt_hash_hex(digest, 32, c->payload_hash);
    } else {
        strcpy(c->payload_hash, BASALT_SIGV4_EMPTY_SHA256);
    }
    return true;
}

void sigv4_case_free(struct sigv4_case *c)
{
    sigv4_http_free(&c->request);
    basalt_free(c->path);
    c->path = NULL;
}

void sigv4_case_params(const struct sigv4_case *c, bool query,
                       const struct basalt_sigv4a_key *v4a_key, struct basalt_sigv4_request *req,
                       struct basalt_sigv4_params *params)
{
    memset(req, 0, sizeof *req);
    memset(params, 0, sizeof *params);
    req->method = c->request.method;
    req->host = NULL; /* Host comes with the request's headers */
    req->path = c->path;
    req->query = c->query;
    req->headers = c->request.headers;
    req->header_count = c->request.header_count;
    req->payload_hash = c->payload_hash;
    params->region = c->region;
    params->service = c->service;
    params->time = c->time;
    params->credentials.access_key_id = c->access_key_id;
    params->credentials.secret_access_key = c->secret;
    params->credentials.session_token = c->token;
    /* The suite always runs with double encoding (README: use_double_uri_encode). */
    params->flags = BASALT_SIGV4_ENCODE_PATH;
    if (c->normalize)
        params->flags |= BASALT_SIGV4_NORMALIZE_PATH;
    if (c->omit_session_token)
        params->flags |= BASALT_SIGV4_OMIT_SESSION_TOKEN;
    if (c->sign_body && !query)
        params->flags |= BASALT_SIGV4_ADD_CONTENT_SHA256;
    params->expires = c->expires;
    params->v4a_key = v4a_key;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

void sigv4_percent_decode(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (r[0] == '%' && r[1] && r[2] && hexval(r[1]) >= 0 && hexval(r[2]) >= 0) {
            *w++ = (char)(hexval(r[1]) << 4 | hexval(r[2]));
            r += 2;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

static int compare_names(const void *a, const void *b) { return strcmp(a, b); }

size_t sigv4_case_list(const char *root, char names[][128], size_t cap)
{
    DIR *d = opendir(root);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < cap) {
        char path[1200];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", root, e->d_name);
        if (e->d_name[0] == '.' || strlen(e->d_name) >= 128 || stat(path, &st) != 0 ||
            !S_ISDIR(st.st_mode))
            continue;
        memcpy(names[n++], e->d_name, strlen(e->d_name) + 1);
    }
    closedir(d);
    qsort(names, n, 128, compare_names);
    return n;
}
