/* REST catalog answers: error statuses mapped to basalt statuses with the
 * server's own words, and the JSON shapes shared by the operations. */
#include <stdio.h>
#include <string.h>

#include "rest_client_internal.h"

/* The status of an HTTP error answer to an operation of kind `op`. */
static basalt_status map_status(long status, enum basalt_rest_client_op op)
{
    switch (status) {
    case 400:
    case 422: return BASALT_INVALID_ARG;
    case 401:
    case 403:
    case 419: return BASALT_AUTH;
    case 404: return BASALT_NOT_FOUND;
    case 406:
    case 501: return BASALT_UNSUPPORTED;
    case 409: return BASALT_CONFLICT;
    default: (void)op; return BASALT_IO;
    }
}

static bool commit_unknown(long status)
{
    return status == 500 || status == 502 || status == 503 || status == 504;
}

/* Up to `cap` - 1 printable characters of a body that is not an error
 * document, on one line. */
static void plain_excerpt(const char *body, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 1 < cap; i++) {
        unsigned char c = (unsigned char)body[i];
        out[o++] = c >= 0x20 && c < 0x7f ? (char)c : ' ';
    }
    while (o > 0 && out[o - 1] == ' ')
        o--;
    out[o] = '\0';
}

basalt_status basalt_rest_client_error(long http_status, const char *body, size_t len,
                                        enum basalt_rest_client_op op, const char *what,
                                        struct basalt_error *err)
{
    basalt_status st = map_status(http_status, op);
    const char *type = NULL, *message = NULL;
    char excerpt[160] = "";
    json_t *doc = body && len ? json_loadb(body, len, 0, NULL) : NULL;
    const json_t *e = json_object_get(doc, "error");
    if (json_is_object(e)) {
        /* IcebergErrorResponse {"error": {"message", "type", "code"}}. */
        type = json_string_value(json_object_get(e, "type"));
        message = json_string_value(json_object_get(e, "message"));
    } else if (json_is_string(e)) {
        /* An OAuth2 error {"error": "invalid_client", "error_description"}. */
        type = json_string_value(e);
        message = json_string_value(json_object_get(doc, "error_description"));
    } else if (body && len) {
        plain_excerpt(body, len, excerpt, sizeof excerpt);
        message = excerpt;
    }
    const char *unknown = "";
    if (op == BASALT_REST_CLIENT_OP_COMMIT && commit_unknown(http_status)) {
        st = BASALT_UNKNOWN_OUTCOME;
        unknown = "commit state unknown (the server may have applied it): ";
    }
    const char *hint = "";
    if (http_status == 401 || http_status == 419)
        hint = " (not authenticated: give a token or client credentials, or renew them)";
    else if (http_status == 403)
        hint = " (not allowed)";
    basalt_error_set(err, st, "%s: %sHTTP %ld%s%s%s%s%s", what, unknown, http_status,
                     type ? " " : "", type ? type : "", message && *message ? ": " : "",
                     message ? message : "", hint);
    json_decref(doc);
    return st;
}

basalt_status basalt_rest_client_namespace_string(const json_t *levels, const char *what,
                                                   char **result, struct basalt_error *err)
{
    *result = NULL;
    size_t total = 0, i;
    const json_t *v;
    bool valid = json_is_array(levels) && json_array_size(levels) > 0;
    json_array_foreach(levels, i, v)
    {
        if (!json_is_string(v) || json_string_length(v) == 0)
            valid = false;
        total += json_string_length(v) + 1;
    }
    if (!valid)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "%s: a namespace is not an array of non-empty strings", what);
    char *out = basalt_malloc(total);
    if (!out)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    size_t o = 0;
    json_array_foreach(levels, i, v)
    {
        if (i)
            out[o++] = '.';
        memcpy(out + o, json_string_value(v), json_string_length(v));
        o += json_string_length(v);
    }
    out[o] = '\0';
    *result = out;
    return BASALT_OK;
}

json_t *basalt_rest_client_namespace_json(const char *ns)
{
    json_t *a = json_array();
    const char *p = ns;
    while (a && p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (json_array_append_new(a, json_stringn(p, n)) != 0) {
            json_decref(a);
            return NULL;
        }
        p = dot ? dot + 1 : NULL;
    }
    return a;
}

json_t *basalt_rest_client_identifier_json(const char *identifier)
{
    const char *dot = strrchr(identifier, '.');
    if (!dot)
        return NULL;
    char *ns = basalt_strndup(identifier, (size_t)(dot - identifier));
    json_t *levels = ns ? basalt_rest_client_namespace_json(ns) : NULL;
    basalt_free(ns);
    if (!levels)
        return NULL;
    return json_pack("{s:o,s:s}", "namespace", levels, "name", dot + 1);
}

basalt_status basalt_rest_client_parse_array(const char *text, const char *what, json_t **out,
                                              struct basalt_error *err)
{
    *out = NULL;
    if (!text || !*text) {
        *out = json_array();
        return *out ? BASALT_OK : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    json_error_t jerr;
    json_t *v = json_loads(text, 0, &jerr);
    if (!json_is_array(v)) {
        json_decref(v);
        return basalt_error_set(err, BASALT_CORRUPT, "%s: not a JSON array (%.100s)", what,
                                v ? "another JSON value" : jerr.text);
    }
    *out = v;
    return BASALT_OK;
}
