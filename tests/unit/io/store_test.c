/* The store's pieces that need no server: URI schemes, S3 URL building and
 * addressing, error documents, XML scanning, local backends, credentials. */
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basalt/io.h"
#include "s3/s3.h"
#include "xml/xml.h"

static struct basalt_io_store *store_with(const char *endpoint, enum basalt_io_addressing a,
                                          const char *region)
{
    struct basalt_io_options o;
    basalt_io_options_init(&o);
    o.ignore_environment = true;
    o.endpoint = endpoint;
    o.addressing = a;
    o.region = region;
    o.access_key_id = "AKIDEXAMPLE";
    o.secret_access_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    struct basalt_io_store *s = NULL;
    struct basalt_error err;
    basalt_status st = basalt_io_store_new(&o, &s, &err);
    if (st != BASALT_OK)
        bt_fail(__FILE__, __LINE__, "store_new: %s", err.message);
    return s;
}

static void expect_url(struct basalt_io_store *s, const char *uri, const char *want)
{
    struct basalt_s3_target t;
    struct basalt_error err;
    char url[BASALT_S3_URL_MAX];
    CHECK_OK(basalt_s3_target_parse(s, uri, &t, &err), &err);
    CHECK_OK(basalt_s3_url(&t, t.key, NULL, url, sizeof url, &err), &err);
    CHECK_MSG(strcmp(url, want) == 0, "%s: got %s, want %s", uri, url, want);
}

TEST(uri_schemes_pick_backends)
{
    CHECK(!basalt_io_uri_is_remote("/tmp/x.parquet"));
    CHECK(!basalt_io_uri_is_remote("relative/x.parquet"));
    CHECK(!basalt_io_uri_is_remote("file:///tmp/x"));
    CHECK(!basalt_io_uri_is_remote("file:/tmp/x")); /* Java's form */
    CHECK(basalt_io_uri_is_remote("s3://b/k"));
    CHECK(basalt_io_uri_is_remote("s3a://b/k"));
    CHECK(basalt_io_uri_is_remote("gs://b/k"));
    CHECK(basalt_io_uri_is_remote("az://c/k"));
    CHECK(basalt_io_uri_is_remote("abfss://c@a.dfs.core.windows.net/k"));
    CHECK(basalt_io_uri_is_remote("HTTPS://example.com/x"));
    CHECK(!basalt_io_uri_is_remote("ftp://example.com/x")); /* unknown: not ours */
    struct basalt_input *in = NULL;
    struct basalt_error err;
    CHECK_EQ(basalt_io_open_input(NULL, "ftp://example.com/x", &in, &err), BASALT_INVALID_ARG);
    CHECK(strstr(err.message, "unknown URI scheme") != NULL);
    CHECK_EQ(basalt_io_open_input(NULL, "s3://b/k", &in, &err), BASALT_INVALID_ARG);
    CHECK(strstr(err.message, "object store") != NULL);
}

TEST(s3_urls_follow_the_addressing_rules)
{
    struct basalt_io_store *aws = store_with(NULL, BASALT_IO_ADDRESSING_AUTO, "eu-west-1");
    expect_url(aws, "s3://bucket/a/b.parquet",
               "https://bucket.s3.eu-west-1.amazonaws.com/a/b.parquet");
    /* Dots break the wildcard certificate: path style. */
    expect_url(aws, "s3://my.bucket/k", "https://s3.eu-west-1.amazonaws.com/my.bucket/k");
    /* Keys are percent-encoded, '/' kept. */
    expect_url(aws, "s3a://bucket/dir/a b+c=é.txt",
               "https://bucket.s3.eu-west-1.amazonaws.com/dir/a%20b%2Bc%3D%C3%A9.txt");
    expect_url(aws, "gs://bucket/k", "https://storage.googleapis.com/bucket/k");
    basalt_io_store_free(aws);

    struct basalt_io_store *local = store_with("http://127.0.0.1:9000", BASALT_IO_ADDRESSING_AUTO,
                                               NULL);
    expect_url(local, "s3://bucket/k", "http://127.0.0.1:9000/bucket/k");
    basalt_io_store_free(local);
    struct basalt_io_store *lh = store_with("http://localhost:4566/", BASALT_IO_ADDRESSING_AUTO,
                                            NULL);
    expect_url(lh, "s3://bucket/k", "http://localhost:4566/bucket/k");
    basalt_io_store_free(lh);
    struct basalt_io_store *named = store_with("https://minio.example.com",
                                               BASALT_IO_ADDRESSING_AUTO, NULL);
    expect_url(named, "s3://bucket/k", "https://bucket.minio.example.com/k");
    basalt_io_store_free(named);
    struct basalt_io_store *forced = store_with("https://minio.example.com",
                                                BASALT_IO_ADDRESSING_PATH, NULL);
    expect_url(forced, "s3://bucket/k", "https://minio.example.com/bucket/k");
    basalt_io_store_free(forced);

    struct basalt_io_store *s = store_with(NULL, BASALT_IO_ADDRESSING_AUTO, NULL);
    struct basalt_s3_target t;
    struct basalt_error err;
    CHECK_EQ(basalt_s3_target_parse(s, "s3:///k", &t, &err), BASALT_INVALID_ARG);
    CHECK_EQ(basalt_s3_target_parse(s, "s3://", &t, &err), BASALT_INVALID_ARG);
    basalt_io_store_free(s);
}

static void expect_error(long http, const char *body, basalt_status want, const char *text)
{
    struct basalt_http_response r;
    basalt_http_response_init(&r);
    r.status = http;
    r.body = (uint8_t *)(uintptr_t)body;
    r.body_len = body ? strlen(body) : 0;
    struct basalt_error err;
    basalt_error_init(&err);
    CHECK_EQ(basalt_s3_error(&r, "GET", "s3://b/k", &err), want);
    CHECK_MSG(strstr(err.message, text) != NULL, "'%s' lacks '%s'", err.message, text);
    CHECK(strncmp(err.message, "s3://b/k: GET", 13) == 0);
}

TEST(s3_error_documents_map_to_statuses)
{
    expect_error(404,
                 "<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code><Message>The specified key "
                 "does not exist.</Message></Error>",
                 BASALT_NOT_FOUND, "NoSuchKey: The specified key does not exist.");
    expect_error(403,
                 "<Error><Code>SignatureDoesNotMatch</Code><Message>nope</Message></Error>",
                 BASALT_AUTH, "SignatureDoesNotMatch");
    expect_error(412, "<Error><Code>PreconditionFailed</Code></Error>", BASALT_CONFLICT,
                 "PreconditionFailed");
    expect_error(500, "<Error><Code>InternalError</Code><Message>x</Message></Error>", BASALT_IO,
                 "HTTP 500 InternalError");
    /* No document (HEAD) or a broken one still names the status. */
    expect_error(404, NULL, BASALT_NOT_FOUND, "no such object");
    expect_error(503, "<Error><Code>Slow", BASALT_IO, "HTTP 503");
}

struct collected {
    char text[1024];
};

static basalt_status collect(void *ctx, const char *path, const char *text, size_t len,
                             struct basalt_error *err)
{
    (void)err;
    struct collected *c = ctx;
    size_t used = strlen(c->text);
    snprintf(c->text + used, sizeof c->text - used, "%s=%.*s;", path, text ? (int)len : 1,
             text ? text : "<");
    return BASALT_OK;
}

TEST(xml_scan_gives_paths_and_decoded_text)
{
    const char *doc = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                      "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                      "<Contents><Key>a&amp;b &lt;c&gt;</Key><Size>12</Size></Contents>"
                      "</ListBucketResult>";
    struct collected c = {""};
    struct basalt_error err;
    CHECK_OK(basalt_xml_scan(doc, strlen(doc), "list", collect, &c, &err), &err);
    CHECK_STR(c.text, "ListBucketResult=<;ListBucketResult/Contents=<;"
                      "ListBucketResult/Contents/Key=<;ListBucketResult/Contents/Key=a&b <c>;"
                      "ListBucketResult/Contents/Size=<;ListBucketResult/Contents/Size=12;"
                      "ListBucketResult/Contents=;ListBucketResult=;");
    const char *bad = "<a>\n<b></a>";
    CHECK_EQ(basalt_xml_scan(bad, strlen(bad), "doc.xml", collect, &c, &err), BASALT_CORRUPT);
    CHECK(strstr(err.message, "doc.xml: bad XML at line 2") != NULL);
    char deep[400] = "";
    for (int i = 0; i < 20; i++)
        strcat(deep, "<x>");
    CHECK_EQ(basalt_xml_scan(deep, strlen(deep), "deep", collect, &c, &err), BASALT_LIMIT);
}

static void temp_dir(char *buf, size_t cap)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, cap, "%s/basalt-store-XXXXXX", dir && *dir ? dir : "/tmp");
    CHECK(mkdtemp(buf) != NULL);
}

static void put(const char *uri, const char *text, unsigned flags, basalt_status want)
{
    struct basalt_output *out;
    struct basalt_error err;
    CHECK_OK(basalt_io_open_output(NULL, uri, flags, &out, &err), &err);
    CHECK_OK(basalt_output_write(out, text, strlen(text), &err), &err);
    CHECK_EQ(basalt_output_commit(out, &err), want);
    basalt_output_close(out);
}

struct names {
    char text[2048];
};

static basalt_status note(void *ctx, const struct basalt_io_entry *e, struct basalt_error *err)
{
    (void)err;
    struct names *n = ctx;
    const char *leaf = strstr(e->uri, "/basalt-store-");
    leaf = leaf ? strchr(leaf + 1, '/') : e->uri;
    size_t used = strlen(n->text);
    snprintf(n->text + used, sizeof n->text - used, "%s%s:%llu ", leaf ? leaf : e->uri,
             e->is_prefix ? "(dir)" : "", (unsigned long long)e->size);
    return BASALT_OK;
}

TEST(local_backend_lists_creates_exclusively_and_deletes)
{
    char dir[512], uri[700], sub[700];
    temp_dir(dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/d", dir);
    CHECK(mkdir(sub, 0755) == 0);
    snprintf(uri, sizeof uri, "file://%s/a.txt", dir);
    put(uri, "hello", 0, BASALT_OK);
    /* Exclusive creation refuses an existing name and keeps its bytes. */
    put(uri, "other", BASALT_IO_CREATE_EXCLUSIVE, BASALT_CONFLICT);
    struct basalt_io_object_info info;
    struct basalt_error err;
    CHECK_OK(basalt_io_stat(NULL, uri, &info, &err), &err);
    CHECK_EQ(info.size, 5);
    snprintf(uri, sizeof uri, "file:%s/d/b.txt", dir); /* Java's file:/path */
    put(uri, "abc", BASALT_IO_CREATE_EXCLUSIVE, BASALT_OK);
    snprintf(uri, sizeof uri, "%s/ab.txt", dir);
    put(uri, "1234567", 0, BASALT_OK);

    struct names all = {""}, top = {""}, stem = {""};
    snprintf(uri, sizeof uri, "%s/", dir);
    CHECK_OK(basalt_io_list(NULL, uri, false, note, &all, &err), &err);
    CHECK_STR(all.text, "/a.txt:5 /ab.txt:7 /d/b.txt:3 ");
    CHECK_OK(basalt_io_list(NULL, uri, true, note, &top, &err), &err);
    CHECK_STR(top.text, "/a.txt:5 /ab.txt:7 /d/(dir):0 ");
    /* A prefix need not end at a '/'. */
    snprintf(uri, sizeof uri, "%s/a", dir);
    CHECK_OK(basalt_io_list(NULL, uri, false, note, &stem, &err), &err);
    CHECK_STR(stem.text, "/a.txt:5 /ab.txt:7 ");

    char u1[700], u2[700], u3[700], u4[700];
    snprintf(u1, sizeof u1, "%s/a.txt", dir);
    snprintf(u2, sizeof u2, "%s/ab.txt", dir);
    snprintf(u3, sizeof u3, "%s/d/b.txt", dir);
    snprintf(u4, sizeof u4, "%s/never-there", dir);
    const char *gone[] = {u1, u2, u3, u4};
    CHECK_OK(basalt_io_delete(NULL, gone, 4, &err), &err);
    CHECK_EQ(basalt_io_stat(NULL, u1, &info, &err), BASALT_NOT_FOUND);
    rmdir(sub);
    rmdir(dir);
}

TEST(credentials_come_from_options_then_environment)
{
    setenv("AWS_ACCESS_KEY_ID", "AKIAENVIRONMENT", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "env-secret-never-printed", 1);
    setenv("AWS_ENDPOINT_URL", "http://generic.example:1", 1);
    setenv("AWS_ENDPOINT_URL_S3", "http://127.0.0.1:9", 1);
    setenv("AWS_REGION", "ap-south-2", 1);
    setenv("AWS_CONFIG_FILE", "/nonexistent/config", 1);
    setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/credentials", 1);
    struct basalt_io_store *s = NULL;
    struct basalt_error err;
    CHECK_OK(basalt_io_store_new(NULL, &s, &err), &err);
    CHECK_STR(s->s3.access_key_id, "AKIAENVIRONMENT");
    CHECK_STR(s->s3.region, "ap-south-2");
    /* The S3-specific endpoint wins over the generic one. */
    CHECK_STR(s->s3.endpoint, "http://127.0.0.1:9");
    CHECK_STR(s->gcs.region, "auto");
    basalt_io_store_free(s);

    struct basalt_io_options o;
    basalt_io_options_init(&o);
    o.ignore_environment = true;
    CHECK_OK(basalt_io_store_new(&o, &s, &err), &err);
    CHECK(s->s3.access_key_id == NULL);
    CHECK(s->s3.endpoint == NULL);
    /* No keys: requests go unsigned. */
    CHECK(basalt_s3_signer_get(&s->s3_signer) == NULL);
    char url[256];
    CHECK_EQ(basalt_io_presign(s, "s3://b/k", "GET", 60, url, sizeof url, &err), BASALT_AUTH);
    basalt_io_store_free(s);

    /* Nothing reachable at 127.0.0.1:9 (discard): the error names the
     * object, never the secret. */
    basalt_io_options_init(&o);
    o.max_attempts = 1;
    o.connect_timeout_ms = 2000;
    CHECK_OK(basalt_io_store_new(&o, &s, &err), &err);
    struct basalt_input *in = NULL;
    basalt_status st = basalt_io_open_input(s, "s3://bucket/key.parquet", &in, &err);
    CHECK_EQ(st, BASALT_IO);
    CHECK(strstr(err.message, "/bucket/key.parquet") != NULL);
    CHECK(strstr(err.message, "env-secret-never-printed") == NULL);
    basalt_io_store_free(s);
    static const char *const vars[] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                                       "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_REGION",
                                       "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}
