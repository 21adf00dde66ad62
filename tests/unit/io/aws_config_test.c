/* AWS credential and config resolution with a fake environment and shared
 * files written to a temporary home. */
#include "test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth/aws_config.h"
#include "auth/aws_ini.h"

/* A fake environment: NULL-terminated name/value pairs. */
static const char *fake_getenv(void *ctx, const char *name)
{
    const char *const *kv = ctx;
    for (; kv && kv[0]; kv += 2)
        if (strcmp(kv[0], name) == 0)
            return kv[1];
    return NULL;
}

/* A fresh home directory with .aws/ in it. */
static void make_home(char *home, size_t cap, const char *tag)
{
    const char *dir = getenv("TMPDIR");
    snprintf(home, cap, "%s/basalt-aws-%ld-%s", dir && *dir ? dir : "/tmp", (long)getpid(),
             tag);
    mkdir(home, 0700);
    char aws[1100];
    snprintf(aws, sizeof aws, "%s/.aws", home);
    mkdir(aws, 0700);
}

static void write_file(const char *home, const char *leaf, const char *text)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", home, leaf);
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void remove_home(const char *home)
{
    static const char *const leaves[] = {".aws/credentials", ".aws/config", "other-creds",
                                         "other-config"};
    char path[1200];
    for (size_t i = 0; i < sizeof leaves / sizeof *leaves; i++) {
        snprintf(path, sizeof path, "%s/%s", home, leaves[i]);
        remove(path);
    }
    snprintf(path, sizeof path, "%s/.aws", home);
    rmdir(path);
    rmdir(home);
}

static const char credentials_text[] =
    "# comment\n"
    "[default]\n"
    "aws_access_key_id = FILEKEY\n"
    "aws_secret_access_key = FILESECRET\n"
    "\n"
    "[dev]\r\n"
    "AWS_Access_Key_Id=DEVKEY\r\n"
    "aws_secret_access_key=DEVSECRET\r\n"
    "aws_session_token = DEVTOKEN\r\n";

static const char config_text[] =
    "[default]\n"
    "region = eu-west-1\n"
    "; comment\n"
    "[profile   dev]\n"
    "region = us-west-2\n"
    "endpoint_url = http://general:9000\n"
    "s3 =\n"
    "  addressing_style = path\n"
    "  endpoint_url = http://minio:9000\n"
    "[profile cfgonly]\n"
    "aws_access_key_id = CFGKEY\n"
    "aws_secret_access_key = CFGSECRET\n"
    "s3 =\n"
    "    addressing_style = virtual\n"
    "[sso-session corp]\n"
    "sso_region = us-east-1\n";

TEST(aws_config_shared_files)
{
    char home[1024];
    make_home(home, sizeof home, "files");
    write_file(home, ".aws/credentials", credentials_text);
    write_file(home, ".aws/config", config_text);
    struct basalt_aws_config_options o = {.home = home, .getenv = fake_getenv};
    struct basalt_aws_config c;
    struct basalt_error err;

    CHECK_OK(basalt_aws_config_resolve(&o, &c, &err), &err);
    CHECK_STR(c.profile, "default");
    CHECK_STR(c.access_key_id, "FILEKEY");
    CHECK_STR(c.secret_access_key, "FILESECRET");
    CHECK(c.session_token == NULL);
    CHECK_EQ(c.credentials_source, BASALT_AWS_SOURCE_CREDENTIALS_FILE);
    CHECK_STR(c.region, "eu-west-1");
    CHECK(c.endpoint_url == NULL);
    CHECK_EQ(c.addressing_style, BASALT_AWS_ADDRESSING_AUTO);
    CHECK_EQ(c.addressing_source, BASALT_AWS_SOURCE_DEFAULT);
    basalt_aws_config_reset(&c);

    const char *env_dev[] = {"AWS_PROFILE", "dev", NULL};
    o.getenv_ctx = env_dev;
    CHECK_OK(basalt_aws_config_resolve(&o, &c, &err), &err);
    CHECK_STR(c.access_key_id, "DEVKEY");
    CHECK_STR(c.session_token, "DEVTOKEN");
    CHECK_STR(c.region, "us-west-2");
    CHECK_STR(c.endpoint_url, "http://minio:9000"); /* the s3 section's wins */
    CHECK_EQ(c.addressing_style, BASALT_AWS_ADDRESSING_PATH);
    CHECK_EQ(c.addressing_source, BASALT_AWS_SOURCE_CONFIG_FILE);
    basalt_aws_config_reset(&c);

    o.getenv_ctx = NULL;
    o.profile = "cfgonly";
    CHECK_OK(basalt_aws_config_resolve(&o, &c, &err), &err);
    CHECK_STR(c.access_key_id, "CFGKEY");
    CHECK_EQ(c.credentials_source, BASALT_AWS_SOURCE_CONFIG_FILE);
    CHECK(c.region == NULL);
    CHECK_EQ(c.addressing_style, BASALT_AWS_ADDRESSING_VIRTUAL);
    basalt_aws_config_reset(&c);

    o.profile = "nosuch";
    CHECK_STATUS(basalt_aws_config_resolve(&o, &c, &err), BASALT_NOT_FOUND, &err);
    CHECK(strstr(err.message, "nosuch") != NULL);
    CHECK(c.profile == NULL);
    remove_home(home);
}

TEST(aws_config_precedence)
{
    char home[1024];
    make_home(home, sizeof home, "prec");
    write_file(home, ".aws/credentials", credentials_text);
    write_file(home, ".aws/config", config_text);
    const char *envv[] = {"AWS_ACCESS_KEY_ID", "ENVKEY", "AWS_SECRET_ACCESS_KEY", "ENVSECRET",
                          "AWS_SESSION_TOKEN", "ENVTOKEN", "AWS_REGION", "ap-south-1",
                          "AWS_DEFAULT_REGION", "ca-central-1", "AWS_ENDPOINT_URL",
                          "http://all:1", "AWS_ENDPOINT_URL_S3", "http://s3:2",
                          "AWS_PROFILE", "dev", NULL};
    struct basalt_aws_config_options o = {.home = home, .getenv = fake_getenv,
                                          .getenv_ctx = envv};
    struct basalt_aws_config c;
    struct basalt_error err;
    /* The environment beats the files, AWS_PROFILE's included. */
    CHECK_OK(basalt_aws_config_resolve(&o, &c, &err), &err);
    CHECK_STR(c.access_key_id, "ENVKEY");
    CHECK_STR(c.secret_access_key, "ENVSECRET");
    CHECK_STR(c.session_token, "ENVTOKEN");
    CHECK_EQ(c.credentials_source, BASALT_AWS_SOURCE_ENVIRONMENT);
    CHECK_STR(c.region, "ap-south-1");
    CHECK_STR(c.endpoint_url, "http://s3:2");
    CHECK_EQ(c.addressing_style, BASALT_AWS_ADDRESSING_PATH); /* no variable for it */
    basalt_aws_config_reset(&c);

    /* AWS_DEFAULT_REGION and AWS_ENDPOINT_URL when the first choices are unset
     * (empty counts as unset). */
    envv[7] = "";
    envv[13] = "";
    CHECK_OK(basalt_aws_config_resolve(&o, &c, &err), &err);
    CHECK_STR(c.region, "ca-central-1");
    CHECK_STR(c.endpoint_url, "http://all:1");
    basalt_aws_config_reset(&c);

    /* A profile named in code outranks the environment's keys. */
    o.profile = "default";
    CHECK_OK(basalt_aws_config_resolve(&o, &c, &err), &err);
    CHECK_STR(c.access_key_id, "FILEKEY");
    basalt_aws_config_reset(&c);

    /* Explicit values beat everything. */
    o.access_key_id = "XKEY";
    o.secret_access_key = "XSECRET";
    o.region = "sa-east-1";
    o.endpoint_url = "http://x:3";
    o.addressing_style = BASALT_AWS_ADDRESSING_VIRTUAL;
    CHECK_OK(basalt_aws_config_resolve(&o, &c, &err), &err);
    CHECK_STR(c.access_key_id, "XKEY");
    CHECK(c.session_token == NULL); /* credentials come as a unit */
    CHECK_EQ(c.credentials_source, BASALT_AWS_SOURCE_EXPLICIT);
    CHECK_STR(c.region, "sa-east-1");
    CHECK_STR(c.endpoint_url, "http://x:3");
    CHECK_EQ(c.addressing_style, BASALT_AWS_ADDRESSING_VIRTUAL);
    basalt_aws_config_reset(&c);

    o.secret_access_key = NULL;
    CHECK_STATUS(basalt_aws_config_resolve(&o, &c, &err), BASALT_INVALID_ARG, &err);
    o.access_key_id = NULL;
    o.profile = NULL;
    envv[3] = ""; /* a key without a secret in the environment */
    CHECK_STATUS(basalt_aws_config_resolve(&o, &c, &err), BASALT_INVALID_ARG, &err);
    CHECK(strstr(err.message, "AWS_SECRET_ACCESS_KEY") != NULL);
    CHECK(strstr(err.message, "ENVKEY") == NULL);
    remove_home(home);
}

TEST(aws_config_file_variables_and_no_files)
{
    char home[1024];
    make_home(home, sizeof home, "vars");
    write_file(home, "other-creds", "[default]\naws_access_key_id=K2\naws_secret_access_key=S2\n");
    write_file(home, "other-config", "[default]\nregion=af-south-1\n");
    char cfg[1100];
    snprintf(cfg, sizeof cfg, "%s/other-config", home);
    const char *envv[] = {"AWS_SHARED_CREDENTIALS_FILE", "~/other-creds", "AWS_CONFIG_FILE", cfg,
                          NULL};
    struct basalt_aws_config_options o = {.home = home, .getenv = fake_getenv,
                                          .getenv_ctx = envv};
    struct basalt_aws_config c;
    struct basalt_error err;
    CHECK_OK(basalt_aws_config_resolve(&o, &c, &err), &err);
    CHECK_STR(c.access_key_id, "K2");
    CHECK_STR(c.region, "af-south-1");
    basalt_aws_config_reset(&c);
    remove_home(home);

    /* Nothing anywhere: not an error, just nothing. */
    struct basalt_aws_config_options none = {.home = home};
    CHECK_OK(basalt_aws_config_resolve(&none, &c, &err), &err);
    CHECK(c.access_key_id == NULL && c.region == NULL && c.endpoint_url == NULL);
    CHECK_EQ(c.credentials_source, BASALT_AWS_SOURCE_NONE);
    CHECK_STR(c.profile, "default");
    basalt_aws_config_reset(&c);
}

/* Every malformed file is CORRUPT naming file and line, never quoting it. */
TEST(aws_config_bad_ini_names_file_and_line)
{
    static const struct {
        const char *text;
        int line;
    } bad[] = {
        {"aws_secret_access_key = TOPSECRET\n", 1},
        {"[default]\naws_access_key_id = A\n[profile x\n", 3},
        {"[default]\n\nTOPSECRET\n", 3},
        {"[default]\nregion = x\n  TOPSECRET = y\n", 3},
        {"[default]\ns3 =\n  TOPSECRET\n", 3},
        {"[]\n", 1},
        {"[default]\n= TOPSECRET\n", 2},
        {"[default]\naws_access_key_id = A\naws_session_token = TOPSECRET\n", 2},
        {"[default]\ns3 =\n  addressing_style = sideways\n", 3},
        {"[default]\nregion = a\0b\n", 2},
    };
    char home[1024];
    make_home(home, sizeof home, "bad");
    struct basalt_aws_config_options o = {.home = home};
    struct basalt_aws_config c;
    struct basalt_error err;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/.aws/%s", home, i % 2 ? "credentials" : "config");
        FILE *f = fopen(path, "wb");
        CHECK(f != NULL);
        size_t len = strlen(bad[i].text);
        if (i == 9)
            len = 23; /* past the NUL byte */
        fwrite(bad[i].text, 1, len, f);
        fclose(f);
        basalt_status st = basalt_aws_config_resolve(&o, &c, &err);
        remove(path);
        char where[1300];
        snprintf(where, sizeof where, "%s:%d:", path, bad[i].line);
        CHECK_MSG(st == BASALT_CORRUPT, "case %zu: %s", i, basalt_status_name(st));
        CHECK_MSG(strstr(err.message, where) != NULL, "case %zu: %s", i, err.message);
        CHECK_MSG(strstr(err.message, "TOPSECRET") == NULL, "case %zu: %s", i, err.message);
        CHECK(c.profile == NULL);
    }
    remove_home(home);
}

static basalt_status resolve_attempt(void *ctx)
{
    const char *home = ctx;
    const char *envv[] = {"AWS_PROFILE", "dev", "AWS_REGION", "r", NULL};
    struct basalt_aws_config_options o = {.home = home, .getenv = fake_getenv,
                                          .getenv_ctx = envv};
    struct basalt_aws_config c;
    basalt_status st = basalt_aws_config_resolve(&o, &c, NULL);
    basalt_aws_config_reset(&c);
    return st;
}

TEST(aws_config_allocation_failures)
{
    char home[1024];
    make_home(home, sizeof home, "alloc");
    write_file(home, ".aws/credentials", credentials_text);
    write_file(home, ".aws/config", config_text);
    CHECK_ALLOC_SWEEP(resolve_attempt, home);
    remove_home(home);
}

/* Random bytes: the parser ends in OK or CORRUPT, never anything else. */
TEST(aws_ini_random_input)
{
    struct bt_rng rng;
    bt_rng_seed(&rng, 17);
    static const char alphabet[] = "[]= \t\n\r#;abc\0\xEF";
    char text[256];
    for (int round = 0; round < 5000; round++) {
        size_t len = (size_t)bt_rng_below(&rng, sizeof text);
        for (size_t i = 0; i < len; i++)
            text[i] = alphabet[bt_rng_below(&rng, sizeof alphabet - 1)];
        struct basalt_aws_ini ini;
        struct basalt_error err;
        basalt_status st = basalt_aws_ini_parse(text, len, "random", &ini, &err);
        CHECK_MSG(st == BASALT_OK || st == BASALT_CORRUPT, "round %d: %s", round,
                  basalt_status_name(st));
        basalt_aws_ini_reset(&ini);
    }
}
