/* AWS credentials and settings from the usual places, in the order the AWS
 * SDKs and CLI use:
 *
 *   1. explicit values (options),
 *   2. the environment: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 *      AWS_SESSION_TOKEN, AWS_REGION then AWS_DEFAULT_REGION,
 *      AWS_ENDPOINT_URL_S3 then AWS_ENDPOINT_URL, AWS_PROFILE,
 *      AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE,
 *   3. the shared files: credentials (~/.aws/credentials, section [NAME]) and
 *      config (~/.aws/config, section [profile NAME] or [default]), with the
 *      nested "s3 =" sub-section for addressing_style and endpoint_url.
 *
 * Credentials come as a unit from the first place that has them, never a key
 * from one and a secret from another. A profile named in the options is
 * explicit configuration, so its files' credentials then come before the
 * environment's (as the SDKs do for a profile chosen in code).
 *
 * The environment is read through a function the caller passes (tests pass a
 * table; production passes basalt_aws_process_getenv), and ~ is the home
 * directory the caller passes: nothing here reads global state behind the
 * caller's back. Secrets never appear in error messages. */
#ifndef BASALT_IO_AUTH_AWS_CONFIG_H
#define BASALT_IO_AUTH_AWS_CONFIG_H

#include "basalt/core.h"

/* Looks `name` up; NULL when unset. The result is read before the next call. */
typedef const char *(*basalt_aws_getenv_fn)(void *ctx, const char *name);

/* The process environment (getenv); ctx is unused. */
const char *basalt_aws_process_getenv(void *ctx, const char *name);

enum basalt_aws_addressing {
    BASALT_AWS_ADDRESSING_UNSET = 0, /* options only: no explicit choice */
    BASALT_AWS_ADDRESSING_AUTO,      /* virtual-hosted where the bucket name allows */
    BASALT_AWS_ADDRESSING_PATH,
    BASALT_AWS_ADDRESSING_VIRTUAL,
};

/* Where a resolved value came from. */
enum basalt_aws_source {
    BASALT_AWS_SOURCE_NONE = 0,
    BASALT_AWS_SOURCE_EXPLICIT,
    BASALT_AWS_SOURCE_ENVIRONMENT,
    BASALT_AWS_SOURCE_CREDENTIALS_FILE,
    BASALT_AWS_SOURCE_CONFIG_FILE,
    BASALT_AWS_SOURCE_DEFAULT,
};

/* Lower-case name of a source ("environment"); static storage. */
const char *basalt_aws_source_name(enum basalt_aws_source source);

/* Inputs; every pointer borrowed for the call, NULL meaning "not given". */
struct basalt_aws_config_options {
    const char *access_key_id;     /* with secret_access_key, or neither */
    const char *secret_access_key;
    const char *session_token;
    const char *region;
    const char *endpoint_url;
    const char *profile;
    enum basalt_aws_addressing addressing_style;
    basalt_aws_getenv_fn getenv;   /* NULL: no environment */
    void *getenv_ctx;
    /* The home directory for ~/.aws/ and a leading ~ in file variables; NULL:
     * only files named by the environment are read. */
    const char *home;
};

/* The result: owned strings (basalt_aws_config_reset frees them), NULL when
 * nothing provided a value. No credentials is not an error: anonymous access
 * to public buckets needs none; the caller decides. */
struct basalt_aws_config {
    char *access_key_id;
    char *secret_access_key;
    char *session_token;
    char *region;
    char *endpoint_url;
    char *profile;  /* the profile the files were read for ("default" unless named) */
    enum basalt_aws_addressing addressing_style; /* AUTO unless configured */
    enum basalt_aws_source credentials_source;
    enum basalt_aws_source region_source;
    enum basalt_aws_source endpoint_source;
    enum basalt_aws_source addressing_source;
};

/* Resolves the configuration into `out` (initialised here). Returns
 * INVALID_ARG (a key without a secret among the options or the environment),
 * CORRUPT (a shared file is not valid INI, or its profile has a key without
 * a secret; the message names the file and line), NOT_FOUND (a profile named
 * by the options or AWS_PROFILE is in neither file), LIMIT (a shared file over
 * 16 MiB), IO (a file exists but cannot be read), NOMEM. Missing shared files
 * are not errors. On failure `out` is left empty. */
basalt_status basalt_aws_config_resolve(const struct basalt_aws_config_options *opts,
                                        struct basalt_aws_config *out,
                                        struct basalt_error *err);

/* Frees the strings (wiping the secret and token) and empties `config`. */
void basalt_aws_config_reset(struct basalt_aws_config *config);

#endif
