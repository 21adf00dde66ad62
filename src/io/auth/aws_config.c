/* Resolution of AWS credentials, region, endpoint and S3 addressing style
 * from options, the environment and the shared files (order in aws_config.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/aws_config.h"
#include "auth/aws_ini.h"
#include "auth/sigv4_internal.h"

const char *basalt_aws_process_getenv(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

const char *basalt_aws_source_name(enum basalt_aws_source source)
{
    switch (source) {
    case BASALT_AWS_SOURCE_EXPLICIT: return "explicit";
    case BASALT_AWS_SOURCE_ENVIRONMENT: return "environment";
    case BASALT_AWS_SOURCE_CREDENTIALS_FILE: return "credentials file";
    case BASALT_AWS_SOURCE_CONFIG_FILE: return "config file";
    case BASALT_AWS_SOURCE_DEFAULT: return "default";
    case BASALT_AWS_SOURCE_NONE: break;
    }
    return "none";
}

static void free_secret(char *s)
{
    if (s)
        basalt_sigv4_wipe(s, strlen(s));
    basalt_free(s);
}

void basalt_aws_config_reset(struct basalt_aws_config *c)
{
    if (!c)
        return;
    basalt_free(c->access_key_id);
    free_secret(c->secret_access_key);
    free_secret(c->session_token);
    basalt_free(c->region);
    basalt_free(c->endpoint_url);
    basalt_free(c->profile);
    memset(c, 0, sizeof *c);
}

/* Everything one resolution looks at. */
struct resolver {
    const struct basalt_aws_config_options *o;
    struct basalt_aws_config *out;
    struct basalt_aws_ini credentials, config;
    char credentials_path[4096], config_path[4096];
    char config_section[512];  /* "profile NAME" */
};

/* An environment value; empty counts as unset, as in the SDKs. */
static const char *env(const struct resolver *r, const char *name)
{
    if (!r->o->getenv)
        return NULL;
    const char *v = r->o->getenv(r->o->getenv_ctx, name);
    return v && *v ? v : NULL;
}

static basalt_status set(char **field, const char *value, struct basalt_error *err)
{
    size_t len = strlen(value);
    *field = basalt_malloc(len + 1);
    if (!*field)
        return basalt_error_set(err, BASALT_NOMEM, "aws config: out of memory");
    memcpy(*field, value, len + 1);
    return BASALT_OK;
}

/* The file a variable names (a leading ~ meaning home), else home/.aws/leaf;
 * "" when there is neither. */
static basalt_status file_path(const struct resolver *r, const char *var, const char *leaf,
                               char *path, size_t cap, struct basalt_error *err)
{
    const char *v = env(r, var);
    int n;
    if (v && v[0] == '~' && (v[1] == '/' || v[1] == '\0') && r->o->home)
        n = snprintf(path, cap, "%s%s", r->o->home, v + 1);
    else if (v)
        n = snprintf(path, cap, "%s", v);
    else if (r->o->home)
        n = snprintf(path, cap, "%s/.aws/%s", r->o->home, leaf);
    else
        n = snprintf(path, cap, "%s", "");
    if (n < 0 || (size_t)n >= cap)
        return basalt_error_set(err, BASALT_LIMIT, "aws config: path of the %s file too long",
                                leaf);
    return BASALT_OK;
}

/* The config file's entry for key (and subkey) of the profile; the default
 * profile may be written [default] or [profile default]. */
static const struct basalt_aws_ini_entry *config_get(const struct resolver *r, const char *key,
                                                     const char *subkey)
{
    const struct basalt_aws_ini_entry *e =
        basalt_aws_ini_get(&r->config, r->config_section, key, subkey);
    if (!e && strcmp(r->out->profile, "default") == 0)
        e = basalt_aws_ini_get(&r->config, "default", key, subkey);
    return e;
}

/* Credentials of the profile in one file. *found false when it has none. */
static basalt_status file_credentials(struct resolver *r, bool config_file, bool *found,
                                      struct basalt_error *err)
{
    const struct basalt_aws_ini *ini = config_file ? &r->config : &r->credentials;
    const struct basalt_aws_ini_entry *key, *secret, *token;
    if (config_file) {
        key = config_get(r, "aws_access_key_id", NULL);
        secret = config_get(r, "aws_secret_access_key", NULL);
        token = config_get(r, "aws_session_token", NULL);
    } else {
        key = basalt_aws_ini_get(ini, r->out->profile, "aws_access_key_id", NULL);
        secret = basalt_aws_ini_get(ini, r->out->profile, "aws_secret_access_key", NULL);
        token = basalt_aws_ini_get(ini, r->out->profile, "aws_session_token", NULL);
    }
    *found = false;
    if (!key && !secret)
        return BASALT_OK;
    if (!key || !secret || !*key->value || !*secret->value)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "%s:%d: profile '%s' needs both aws_access_key_id and "
                                "aws_secret_access_key",
                                ini->name, key ? key->line : secret->line, r->out->profile);
    *found = true;
    r->out->credentials_source =
        config_file ? BASALT_AWS_SOURCE_CONFIG_FILE : BASALT_AWS_SOURCE_CREDENTIALS_FILE;
    basalt_status st = set(&r->out->access_key_id, key->value, err);
    if (st == BASALT_OK)
        st = set(&r->out->secret_access_key, secret->value, err);
    if (st == BASALT_OK && token && *token->value)
        st = set(&r->out->session_token, token->value, err);
    return st;
}

static basalt_status env_credentials(struct resolver *r, bool *found, struct basalt_error *err)
{
    const char *key = env(r, "AWS_ACCESS_KEY_ID"), *secret = env(r, "AWS_SECRET_ACCESS_KEY");
    *found = false;
    if (!key && !secret)
        return BASALT_OK;
    if (!key || !secret)
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "aws config: %s is set but %s is not",
                                key ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY",
                                key ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID");
    *found = true;
    r->out->credentials_source = BASALT_AWS_SOURCE_ENVIRONMENT;
    const char *token = env(r, "AWS_SESSION_TOKEN");
    basalt_status st = set(&r->out->access_key_id, key, err);
    if (st == BASALT_OK)
        st = set(&r->out->secret_access_key, secret, err);
    if (st == BASALT_OK && token)
        st = set(&r->out->session_token, token, err);
    return st;
}

static basalt_status resolve_credentials(struct resolver *r, struct basalt_error *err)
{
    const struct basalt_aws_config_options *o = r->o;
    if (o->access_key_id || o->secret_access_key) {
        if (!o->access_key_id || !*o->access_key_id || !o->secret_access_key ||
            !*o->secret_access_key)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "aws config: an access key id needs its secret access key");
        r->out->credentials_source = BASALT_AWS_SOURCE_EXPLICIT;
        basalt_status st = set(&r->out->access_key_id, o->access_key_id, err);
        if (st == BASALT_OK)
            st = set(&r->out->secret_access_key, o->secret_access_key, err);
        if (st == BASALT_OK && o->session_token && *o->session_token)
            st = set(&r->out->session_token, o->session_token, err);
        return st;
    }
    bool found = false;
    basalt_status st = BASALT_OK;
    /* A profile chosen in code outranks the environment's keys. */
    if (!o->profile)
        st = env_credentials(r, &found, err);
    if (st == BASALT_OK && !found)
        st = file_credentials(r, false, &found, err);
    if (st == BASALT_OK && !found)
        st = file_credentials(r, true, &found, err);
    if (st == BASALT_OK && !found && o->profile)
        st = env_credentials(r, &found, err);
    return st;
}

static basalt_status resolve_settings(struct resolver *r, struct basalt_error *err)
{
    const struct basalt_aws_config_options *o = r->o;
    struct basalt_aws_config *out = r->out;
    const struct basalt_aws_ini_entry *e;
    const char *v;
    basalt_status st = BASALT_OK;
    if ((v = o->region) || (v = env(r, "AWS_REGION")) || (v = env(r, "AWS_DEFAULT_REGION"))) {
        out->region_source = o->region ? BASALT_AWS_SOURCE_EXPLICIT
                                       : BASALT_AWS_SOURCE_ENVIRONMENT;
        st = set(&out->region, v, err);
    } else if ((e = config_get(r, "region", NULL)) && *e->value) {
        out->region_source = BASALT_AWS_SOURCE_CONFIG_FILE;
        st = set(&out->region, e->value, err);
    }
    if (st != BASALT_OK)
        return st;
    if ((v = o->endpoint_url) || (v = env(r, "AWS_ENDPOINT_URL_S3")) ||
        (v = env(r, "AWS_ENDPOINT_URL"))) {
        out->endpoint_source = o->endpoint_url ? BASALT_AWS_SOURCE_EXPLICIT
                                               : BASALT_AWS_SOURCE_ENVIRONMENT;
        st = set(&out->endpoint_url, v, err);
    } else if (((e = config_get(r, "s3", "endpoint_url")) && *e->value) ||
               ((e = config_get(r, "endpoint_url", NULL)) && *e->value)) {
        out->endpoint_source = BASALT_AWS_SOURCE_CONFIG_FILE;
        st = set(&out->endpoint_url, e->value, err);
    }
    if (st != BASALT_OK)
        return st;
    out->addressing_style = BASALT_AWS_ADDRESSING_AUTO;
    out->addressing_source = BASALT_AWS_SOURCE_DEFAULT;
    if (o->addressing_style != BASALT_AWS_ADDRESSING_UNSET) {
        out->addressing_style = o->addressing_style;
        out->addressing_source = BASALT_AWS_SOURCE_EXPLICIT;
    } else if ((e = config_get(r, "s3", "addressing_style"))) {
        static const char *const names[] = {"auto", "path", "virtual"};
        int i = 0;
        while (i < 3 && strcmp(e->value, names[i]) != 0)
            i++;
        if (i == 3)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "%s:%d: addressing_style must be auto, path or virtual",
                                    r->config.name, e->line);
        out->addressing_style = (enum basalt_aws_addressing)(BASALT_AWS_ADDRESSING_AUTO + i);
        out->addressing_source = BASALT_AWS_SOURCE_CONFIG_FILE;
    }
    return BASALT_OK;
}

static basalt_status load_files(struct resolver *r, struct basalt_error *err)
{
    basalt_status st = file_path(r, "AWS_SHARED_CREDENTIALS_FILE", "credentials",
                                 r->credentials_path, sizeof r->credentials_path, err);
    if (st == BASALT_OK)
        st = file_path(r, "AWS_CONFIG_FILE", "config", r->config_path, sizeof r->config_path,
                       err);
    if (st == BASALT_OK && r->credentials_path[0])
        st = basalt_aws_ini_load(r->credentials_path, &r->credentials, err);
    if (st == BASALT_OK && r->config_path[0])
        st = basalt_aws_ini_load(r->config_path, &r->config, err);
    return st;
}

basalt_status basalt_aws_config_resolve(const struct basalt_aws_config_options *opts,
                                        struct basalt_aws_config *out,
                                        struct basalt_error *err)
{
    memset(out, 0, sizeof *out);
    if (!opts)
        return basalt_error_set(err, BASALT_INVALID_ARG, "aws config: no options");
    struct resolver *r = basalt_calloc(1, sizeof *r);
    if (!r)
        return basalt_error_set(err, BASALT_NOMEM, "aws config: out of memory");
    r->o = opts;
    r->out = out;
    basalt_arena_init(&r->credentials.arena, 4096);
    basalt_arena_init(&r->config.arena, 4096);
    const char *named = opts->profile && *opts->profile ? opts->profile : env(r, "AWS_PROFILE");
    basalt_status st = set(&out->profile, named ? named : "default", err);
    if (st == BASALT_OK) {
        int n = snprintf(r->config_section, sizeof r->config_section, "profile %s",
                         out->profile);
        if (n < 0 || (size_t)n >= sizeof r->config_section)
            st = basalt_error_set(err, BASALT_INVALID_ARG, "aws config: profile name too long");
    }
    if (st == BASALT_OK)
        st = load_files(r, err);
    /* A named profile that exists nowhere is a typo, not "no settings". */
    if (st == BASALT_OK && named && strcmp(out->profile, "default") != 0 &&
        !basalt_aws_ini_has_section(&r->credentials, out->profile) &&
        !basalt_aws_ini_has_section(&r->config, r->config_section))
        st = basalt_error_set(err, BASALT_NOT_FOUND,
                              "aws config: profile '%s' is in neither %s nor %s", out->profile,
                              r->credentials_path[0] ? r->credentials_path : "(no file)",
                              r->config_path[0] ? r->config_path : "(no file)");
    if (st == BASALT_OK)
        st = resolve_credentials(r, err);
    if (st == BASALT_OK)
        st = resolve_settings(r, err);
    basalt_aws_ini_reset(&r->credentials);
    basalt_aws_ini_reset(&r->config);
    basalt_free(r);
    if (st != BASALT_OK)
        basalt_aws_config_reset(out);
    return st;
}
