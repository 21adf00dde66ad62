/* Azure Shared Key signing: StringToSign texts written out by hand from the
 * "Authorize with Shared Key" rules, the HMAC checked against the openssl
 * command (or node) run independently, and connection strings. */
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

#include "auth/azure_sign.h"
#include "auth/base64.h"

#define KEY BASALT_AZURE_DEV_KEY

/* Base64 of HMAC-SHA256(base64decode(KEY), text) computed by a program that
 * shares no code with basalt: the openssl command, else node. false (with
 * `why`) when neither runs. */
static bool reference_mac(const char *text, char *out, size_t cap, char *why, size_t why_cap)
{
    char path[256];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/basalt-azure-%ld.txt", dir && *dir ? dir : "/tmp",
             (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(text, 1, strlen(text), f) != strlen(text)) {
        if (f)
            fclose(f);
        snprintf(why, why_cap, "cannot write %.100s", path);
        return false;
    }
    fclose(f);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "if command -v openssl >/dev/null 2>&1; then "
             "hex=$(printf %%s '%s' | openssl base64 -d -A | od -An -v -tx1 | tr -d ' \\n') && "
             "openssl dgst -sha256 -mac HMAC -macopt hexkey:$hex -binary '%s' | openssl base64 -A; "
             "elif command -v node >/dev/null 2>&1; then "
             "node -e \"const c=require('crypto'),fs=require('fs');"
             "process.stdout.write(c.createHmac('sha256',Buffer.from('%s','base64'))"
             ".update(fs.readFileSync('%s')).digest('base64'))\"; fi",
             KEY, path, KEY, path);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(out, 1, cap - 1, p) : 0;
    if (p)
        pclose(p);
    remove(path);
    out[n] = '\0';
    while (n && (out[n - 1] == '\n' || out[n - 1] == '\r'))
        out[--n] = '\0';
    if (n == 0)
        snprintf(why, why_cap, "neither openssl nor node produced an HMAC");
    return n > 0;
}

static void check_request(const struct basalt_azure_request *req, const char *want_sts)
{
    char *auth = NULL, *sts = NULL;
    struct basalt_error err;
    CHECK_OK(basalt_azure_sign_shared_key(req, KEY, &auth, &sts, &err), &err);
    bool same = strcmp(sts, want_sts) == 0;
    if (!same)
        bt_fail(__FILE__, __LINE__, "StringToSign:\n%s\n--- expected\n%s", sts, want_sts);
    char want_auth[256], mac[128], why[128];
    if (same && reference_mac(want_sts, mac, sizeof mac, why, sizeof why)) {
        snprintf(want_auth, sizeof want_auth, "SharedKey %s:%s", req->account, mac);
        if (strcmp(auth, want_auth) != 0)
            bt_fail(__FILE__, __LINE__, "Authorization %s, expected %s", auth, want_auth);
    } else if (same) {
        printf("  skipped the independent HMAC check: %s\n", why);
    }
    basalt_free(auth);
    basalt_free(sts);
}

TEST(azure_string_to_sign_get_range)
{
    struct basalt_azure_header h[] = {{"x-ms-version", "2009-09-19"},
                                      {"Range", "bytes=0-1023"},
                                      {"Content-Length", "0"},
                                      {"X-Ms-Date", " Sun, 11 Oct 2009 21:49:13 GMT "},
                                      {"User-Agent", "basalt"}};
    struct basalt_azure_request req = {.method = "GET", .account = "myaccount",
                                       .path = "/mycontainer/my%20blob.txt", .headers = h,
                                       .header_count = 5};
    /* VERB, ten empty standard headers (Content-Length 0 is empty), Range. */
    check_request(&req, "GET\n"
                        "\n\n\n\n\n\n\n\n\n\n"
                        "bytes=0-1023\n"
                        "x-ms-date:Sun, 11 Oct 2009 21:49:13 GMT\n"
                        "x-ms-version:2009-09-19\n"
                        "/myaccount/mycontainer/my%20blob.txt");
}

TEST(azure_string_to_sign_put_block)
{
    struct basalt_azure_header h[] = {{"Content-Length", "4"},
                                      {"Content-MD5", "sQqNsWTgdUEFt6mb5y4/5Q=="},
                                      {"Content-Type", "application/octet-stream"},
                                      {"x-ms-version", "2021-08-06"},
                                      {"x-ms-date", "Mon, 05 Aug 2024 10:00:00 GMT"},
                                      {"x-ms-client-request-id", "a\r\n  b"}};
    struct basalt_azure_request req = {.method = "PUT", .account = "myaccount",
                                       .path = "/mycontainer/myblob",
                                       .query = "comp=block&blockid=QUFBQUFBQUFBQUFBQUFBQQ%3D%3D",
                                       .headers = h, .header_count = 6};
    check_request(&req, "PUT\n"
                        "\n"                          /* Content-Encoding */
                        "\n"                          /* Content-Language */
                        "4\n"                         /* Content-Length */
                        "sQqNsWTgdUEFt6mb5y4/5Q==\n"  /* Content-MD5 */
                        "application/octet-stream\n"  /* Content-Type */
                        "\n\n\n\n\n\n"                /* Date .. Range */
                        "x-ms-client-request-id:a b\n"
                        "x-ms-date:Mon, 05 Aug 2024 10:00:00 GMT\n"
                        "x-ms-version:2021-08-06\n"
                        "/myaccount/mycontainer/myblob\n"
                        "blockid:QUFBQUFBQUFBQUFBQUFBQQ==\n"
                        "comp:block");
}

TEST(azure_string_to_sign_list_blobs)
{
    struct basalt_azure_header h[] = {{"x-ms-date", "Tue, 06 Aug 2024 08:00:00 GMT"},
                                      {"x-ms-version", "2021-08-06"},
                                      {"If-Match", "\"0x8D\""}};
    /* Azurite's path-style URL: the account is in the path and the resource. */
    struct basalt_azure_request req = {
        .method = "GET", .account = "devstoreaccount1", .path = "/devstoreaccount1/data",
        .query = "restype=container&comp=list&prefix=dir%2Fsub%20x&Include=snapshots"
                 "&include=metadata&maxresults=10&marker=",
        .headers = h, .header_count = 3};
    check_request(&req, "GET\n"
                        "\n\n\n\n\n\n\n"  /* Content-Encoding .. If-Modified-Since */
                        "\"0x8D\"\n"       /* If-Match */
                        "\n\n\n"           /* If-None-Match, If-Unmodified-Since, Range */
                        "x-ms-date:Tue, 06 Aug 2024 08:00:00 GMT\n"
                        "x-ms-version:2021-08-06\n"
                        "/devstoreaccount1/devstoreaccount1/data\n"
                        "comp:list\n"
                        "include:metadata,snapshots\n"
                        "marker:\n"
                        "maxresults:10\n"
                        "prefix:dir/sub x\n"
                        "restype:container");
}

TEST(azure_sign_rejects_bad_key_without_showing_it)
{
    struct basalt_azure_request req = {.method = "GET", .account = "a", .path = "/c"};
    char *auth = NULL;
    struct basalt_error err;
    CHECK_STATUS(basalt_azure_sign_shared_key(&req, "not*base64", &auth, NULL, &err),
                 BASALT_CORRUPT, &err);
    CHECK(strstr(err.message, "not*base64") == NULL);
    CHECK(auth == NULL);
    req.account = NULL;
    CHECK_STATUS(basalt_azure_sign_shared_key(&req, KEY, &auth, NULL, &err),
                 BASALT_INVALID_ARG, &err);
}

TEST(azure_base64_round_trip_and_errors)
{
    /* RFC 4648 section 10. */
    static const char *const vec[][2] = {{"", ""},          {"f", "Zg=="},
                                         {"fo", "Zm8="},    {"foo", "Zm9v"},
                                         {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
                                         {"foobar", "Zm9vYmFy"}};
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    struct basalt_error err;
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) {
        b.size = 0;
        CHECK_OK(basalt_io_base64_encode((const uint8_t *)vec[i][0], strlen(vec[i][0]), &b, &err),
                 &err);
        CHECK(b.size == strlen(vec[i][1]) && (!b.size || memcmp(b.data, vec[i][1], b.size) == 0));
        b.size = 0;
        CHECK_OK(basalt_io_base64_decode(vec[i][1], strlen(vec[i][1]), &b, &err), &err);
        CHECK(b.size == strlen(vec[i][0]) && (!b.size || memcmp(b.data, vec[i][0], b.size) == 0));
    }
    b.size = 0;
    CHECK_OK(basalt_io_base64_decode("Zm9vYg", 6, &b, &err), &err); /* unpadded */
    CHECK(b.size == 4 && memcmp(b.data, "foob", 4) == 0);
    CHECK_STATUS(basalt_io_base64_decode("Zm9vY", 5, &b, &err), BASALT_CORRUPT, &err);
    CHECK_STATUS(basalt_io_base64_decode("Zm9vYg=", 7, &b, &err), BASALT_CORRUPT, &err);
    CHECK_STATUS(basalt_io_base64_decode("Zm 9v", 5, &b, &err), BASALT_CORRUPT, &err);
    basalt_buffer_reset(&b);
}

TEST(azure_connection_string_azurite)
{
    struct basalt_azure_connection c;
    struct basalt_error err;
    CHECK_OK(basalt_azure_connection_parse(
                 "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;"
                 "AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/"
                 "K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;",
                 &c, &err),
             &err);
    CHECK_STR(c.protocol, "http");
    CHECK_STR(c.account_name, "devstoreaccount1");
    CHECK_STR(c.account_key, BASALT_AZURE_DEV_KEY);
    CHECK_STR(c.blob_endpoint, "http://127.0.0.1:10000/devstoreaccount1");
    CHECK(c.sas == NULL);
    basalt_azure_connection_reset(&c);

    CHECK_OK(basalt_azure_connection_parse("UseDevelopmentStorage=true", &c, &err), &err);
    CHECK_STR(c.account_name, "devstoreaccount1");
    CHECK_STR(c.account_key, BASALT_AZURE_DEV_KEY);
    CHECK_STR(c.blob_endpoint, BASALT_AZURE_DEV_BLOB_ENDPOINT);
    basalt_azure_connection_reset(&c);
}

TEST(azure_connection_string_forms)
{
    struct basalt_azure_connection c;
    struct basalt_error err;
    CHECK_OK(basalt_azure_connection_parse(" accountname=acct ; AccountKey=" KEY
                                           ";EndpointSuffix=core.chinacloudapi.cn;"
                                           "QueueEndpoint=https://q/;;",
                                           &c, &err),
             &err);
    CHECK_STR(c.protocol, "https");
    CHECK_STR(c.blob_endpoint, "https://acct.blob.core.chinacloudapi.cn");
    basalt_azure_connection_reset(&c);

    CHECK_OK(basalt_azure_connection_parse("BlobEndpoint=https://acct.blob.core.windows.net/;"
                                           "SharedAccessSignature=?sv=2022-11-02&sig=a%2Bb=",
                                           &c, &err),
             &err);
    CHECK_STR(c.blob_endpoint, "https://acct.blob.core.windows.net");
    CHECK_STR(c.sas, "sv=2022-11-02&sig=a%2Bb=");
    CHECK(c.account_name == NULL && c.account_key == NULL);
    basalt_azure_connection_reset(&c);

    static const char *const bad[] = {"AccountName=a;AccountKey", "AccountName=a;AccountName=b",
                                      ("AccountKey=" KEY), "=x;AccountName=a",
                                      "AccountName=a;AccountKey=secret*key!"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_STATUS(basalt_azure_connection_parse(bad[i], &c, &err), BASALT_CORRUPT, &err);
        CHECK(strstr(err.message, "secret*key") == NULL && strstr(err.message, KEY) == NULL);
        CHECK(c.account_name == NULL && c.account_key == NULL && c.blob_endpoint == NULL);
    }
}
