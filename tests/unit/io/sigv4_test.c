/* The SigV4 signer against the AWS documentation's S3 examples, and its
 * building blocks, key cache, argument checks and allocation failures. The
 * aws-c-auth suite runs in sigv4_suite_test.c. */
#include "test.h"

#include <pthread.h>

#include "auth/sigv4.h"

#define DOC_AKID "AKIAIOSFODNN7EXAMPLE"
#define DOC_SECRET "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
#define DOC_TIME 1369353600 /* 2013-05-24T00:00:00Z */

static void doc_params(struct basalt_sigv4_params *p, unsigned flags)
{
    memset(p, 0, sizeof *p);
    p->region = "us-east-1";
    p->service = "s3";
    p->time = DOC_TIME;
    p->credentials.access_key_id = DOC_AKID;
    p->credentials.secret_access_key = DOC_SECRET;
    p->flags = flags;
}

/* "Signature Calculations for the Authorization Header: Transferring Payload
 * in a Single Chunk", example GET Object. */
TEST(sigv4_aws_doc_s3_get_object)
{
    struct basalt_sigv4_header range = {"Range", "bytes=0-9"};
    struct basalt_sigv4_request req = {
        .method = "GET", .host = "examplebucket.s3.amazonaws.com", .path = "/test.txt",
        .headers = &range, .header_count = 1, .payload_hash = BASALT_SIGV4_EMPTY_SHA256};
    struct basalt_sigv4_params p;
    doc_params(&p, BASALT_SIGV4_FLAGS_S3);
    struct basalt_sigv4_result res;
    struct basalt_error err;
    CHECK_OK(basalt_sigv4_sign_headers(&req, &p, &res, &err), &err);
    CHECK_STR(res.canonical_request,
              "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
              "x-amz-content-sha256:" BASALT_SIGV4_EMPTY_SHA256 "\n"
              "x-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n"
              BASALT_SIGV4_EMPTY_SHA256);
    CHECK_STR(res.string_to_sign,
              "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
              "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
    CHECK_STR(res.signature, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
    CHECK_STR(res.authorization,
              "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
              "aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
              "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
    CHECK_EQ(res.header_count, 3);
    CHECK_STR(res.headers[0].name, "X-Amz-Date");
    CHECK_STR(res.headers[0].value, "20130524T000000Z");
    CHECK_STR(res.headers[1].name, "x-amz-content-sha256");
    CHECK_STR(res.headers[1].value, BASALT_SIGV4_EMPTY_SHA256);
    CHECK_STR(res.headers[2].name, "Authorization");
    CHECK(res.headers[2].value == res.authorization);
    CHECK(res.query == NULL);
    basalt_sigv4_result_reset(&res);
}

/* "Authenticating Requests: Using Query Parameters", the presigned GET. */
TEST(sigv4_aws_doc_s3_presigned_get)
{
    struct basalt_sigv4_request req = {.method = "GET",
                                       .host = "examplebucket.s3.amazonaws.com",
                                       .path = "/test.txt",
                                       .payload_hash = BASALT_SIGV4_UNSIGNED_PAYLOAD};
    struct basalt_sigv4_params p;
    doc_params(&p, 0);
    p.expires = 86400;
    struct basalt_sigv4_result res;
    struct basalt_error err;
    CHECK_OK(basalt_sigv4_presign(&req, &p, &res, &err), &err);
    CHECK_STR(res.signature, "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
    CHECK_STR(res.query,
              "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524"
              "%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400"
              "&X-Amz-SignedHeaders=host&X-Amz-Signature="
              "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
    CHECK_EQ(res.header_count, 0);
    CHECK(res.authorization == NULL);
    basalt_sigv4_result_reset(&res);
}

TEST(sigv4_uri_encode_rules)
{
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    struct basalt_error err;
    const char *s = "a b/c~-._+*\xE1\x88\xB4%";
    CHECK_OK(basalt_sigv4_uri_encode(&b, s, strlen(s), true, &err), &err);
    CHECK_OK(basalt_buffer_append(&b, "|", 1, &err), &err);
    CHECK_OK(basalt_sigv4_uri_encode(&b, s, strlen(s), false, &err), &err);
    CHECK_OK(basalt_buffer_append(&b, "", 1, &err), &err);
    CHECK_STR((const char *)b.data,
              "a%20b/c~-._%2B%2A%E1%88%B4%25|a%20b%2Fc~-._%2B%2A%E1%88%B4%25");
    basalt_buffer_reset(&b);
}

TEST(sigv4_format_time_calendar)
{
    char out[17];
    struct basalt_error err;
    CHECK_OK(basalt_sigv4_format_time(0, out, &err), &err);
    CHECK_STR(out, "19700101T000000Z");
    CHECK_OK(basalt_sigv4_format_time(951825600, out, &err), &err); /* leap day of a 400-year */
    CHECK_STR(out, "20000229T120000Z");
    CHECK_OK(basalt_sigv4_format_time(4107542399LL, out, &err), &err);
    CHECK_STR(out, "21000228T235959Z"); /* 2100 is not a leap year */
    CHECK_OK(basalt_sigv4_format_time(-1, out, &err), &err);
    CHECK_STR(out, "19691231T235959Z");
    CHECK_OK(basalt_sigv4_format_time(253402300799LL, out, &err), &err);
    CHECK_STR(out, "99991231T235959Z");
    CHECK_STATUS(basalt_sigv4_format_time(253402300800LL, out, &err), BASALT_INVALID_ARG, &err);
}

/* Canonical paths: normalisation and the second encoding are separate. */
static void check_path(const char *path, unsigned flags, const char *want)
{
    struct basalt_sigv4_request req = {.method = "GET", .host = "h", .path = path};
    struct basalt_sigv4_params p;
    doc_params(&p, flags);
    struct basalt_sigv4_result res;
    struct basalt_error err;
    CHECK_OK(basalt_sigv4_sign_headers(&req, &p, &res, &err), &err);
    const char *line = strchr(res.canonical_request, '\n') + 1;
    size_t len = (size_t)(strchr(line, '\n') - line);
    bool same = len == strlen(want) && memcmp(line, want, len) == 0;
    if (!same)
        bt_fail(__FILE__, __LINE__, "path %s flags %u: got %.*s, want %s", path, flags, (int)len,
                line, want);
    basalt_sigv4_result_reset(&res);
}

TEST(sigv4_canonical_paths)
{
    check_path("/a/./b/../c//d/", BASALT_SIGV4_FLAGS_DEFAULT, "/a/c/d/");
    check_path("/a/b/..", BASALT_SIGV4_FLAGS_DEFAULT, "/a");
    check_path("/../..", BASALT_SIGV4_FLAGS_DEFAULT, "/");
    check_path("", BASALT_SIGV4_FLAGS_DEFAULT, "/");
    check_path("/my%20key", BASALT_SIGV4_FLAGS_DEFAULT, "/my%2520key");
    /* S3: the path as sent, dots, doubled slashes and all. */
    check_path("/bucket//a/../my%20key+", BASALT_SIGV4_FLAGS_S3, "/bucket//a/../my%20key+");
    check_path(NULL, BASALT_SIGV4_FLAGS_S3, "/");
}

TEST(sigv4_canonical_query_and_headers)
{
    struct basalt_sigv4_header h[] = {{"X-B", "  two   words\t here "}, {"x-a", "1"},
                                      {"X-A", " 2 "}, {"x-b", ""}};
    struct basalt_sigv4_request req = {.method = "GET", .host = "h:8080", .path = "/",
                                       .query = "b=2&a=%7e&&a=1&c&d=x+y%2", .headers = h,
                                       .header_count = 4};
    struct basalt_sigv4_params p;
    doc_params(&p, BASALT_SIGV4_FLAGS_DEFAULT);
    struct basalt_sigv4_result res;
    struct basalt_error err;
    CHECK_OK(basalt_sigv4_sign_headers(&req, &p, &res, &err), &err);
    CHECK_STR(res.canonical_request,
              "GET\n/\na=1&a=~&b=2&c=&d=x%2By%252\nhost:h:8080\nx-a:1,2\nx-amz-date:"
              "20130524T000000Z\nx-b:two words here,\n\nhost;x-a;x-amz-date;x-b\n"
              BASALT_SIGV4_EMPTY_SHA256);
    basalt_sigv4_result_reset(&res);
}

static basalt_status sign_once(struct basalt_sigv4_key_cache *cache, int64_t time,
                               char sig[BASALT_SIGV4_SIGNATURE_MAX])
{
    struct basalt_sigv4_request req = {.method = "GET", .host = "h", .path = "/k"};
    struct basalt_sigv4_params p;
    doc_params(&p, BASALT_SIGV4_FLAGS_S3);
    p.time = time;
    p.cache = cache;
    struct basalt_sigv4_result res;
    basalt_status st = basalt_sigv4_sign_headers(&req, &p, &res, NULL);
    if (st == BASALT_OK)
        memcpy(sig, res.signature, BASALT_SIGV4_SIGNATURE_MAX);
    basalt_sigv4_result_reset(&res);
    return st;
}

TEST(sigv4_key_cache_hits_and_matches)
{
    struct basalt_sigv4_key_cache cache;
    basalt_sigv4_key_cache_init(&cache);
    char plain[BASALT_SIGV4_SIGNATURE_MAX], cached[BASALT_SIGV4_SIGNATURE_MAX];
    CHECK_OK(sign_once(NULL, DOC_TIME, plain), NULL);
    CHECK_OK(sign_once(&cache, DOC_TIME, cached), NULL);
    CHECK_STR(plain, cached);
    CHECK_UEQ(cache.misses, 1);
    CHECK_OK(sign_once(&cache, DOC_TIME + 60, cached), NULL); /* same day: a hit */
    CHECK_UEQ(cache.hits, 1);
    CHECK_OK(sign_once(&cache, DOC_TIME + 86400, cached), NULL); /* next day: new key */
    CHECK_UEQ(cache.misses, 2);
    /* More days than slots: the oldest goes, the newest stays. */
    for (int d = 2; d < 2 + BASALT_SIGV4_KEY_CACHE_SLOTS; d++)
        CHECK_OK(sign_once(&cache, DOC_TIME + 86400LL * d, cached), NULL);
    CHECK_UEQ(cache.misses, 2 + BASALT_SIGV4_KEY_CACHE_SLOTS);
    CHECK_OK(sign_once(&cache, DOC_TIME + 86400LL * (1 + BASALT_SIGV4_KEY_CACHE_SLOTS), cached),
             NULL);
    CHECK_UEQ(cache.hits, 2);
    CHECK_OK(sign_once(&cache, DOC_TIME, cached), NULL);
    CHECK_UEQ(cache.misses, 3 + BASALT_SIGV4_KEY_CACHE_SLOTS);
    CHECK_STR(plain, cached);
    basalt_sigv4_key_cache_reset(&cache);
}

struct cache_thread {
    struct basalt_sigv4_key_cache *cache;
    const char *want;
    int bad;
};

static void *cache_worker(void *arg)
{
    struct cache_thread *t = arg;
    for (int i = 0; i < 200; i++) {
        char sig[BASALT_SIGV4_SIGNATURE_MAX];
        if (sign_once(t->cache, DOC_TIME, sig) != BASALT_OK || strcmp(sig, t->want) != 0)
            t->bad++;
    }
    return NULL;
}

TEST(sigv4_key_cache_shared_by_threads)
{
    struct basalt_sigv4_key_cache cache;
    basalt_sigv4_key_cache_init(&cache);
    char want[BASALT_SIGV4_SIGNATURE_MAX];
    CHECK_OK(sign_once(NULL, DOC_TIME, want), NULL);
    pthread_t th[4];
    struct cache_thread t[4];
    for (int i = 0; i < 4; i++) {
        t[i] = (struct cache_thread){&cache, want, 0};
        CHECK(pthread_create(&th[i], NULL, cache_worker, &t[i]) == 0);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(t[i].bad, 0);
    CHECK_UEQ(cache.hits + cache.misses, 800);
    CHECK(cache.misses >= 1 && cache.misses <= 4);
    basalt_sigv4_key_cache_reset(&cache);
}

/* Every refusal is INVALID_ARG and no message ever carries the secret. */
TEST(sigv4_rejects_bad_arguments_without_leaking_secrets)
{
    struct basalt_sigv4_header auth = {"Authorization", "x"};
    struct basalt_sigv4_header date = {"x-AMZ-date", "x"};
    struct basalt_sigv4_header host = {"Host", "other"};
    struct basalt_sigv4_header bad_name = {"bad name", "x"};
    struct basalt_sigv4_request good = {.method = "GET", .host = "h", .path = "/"};
    struct basalt_sigv4_params p;
    struct basalt_sigv4_result res;
    struct basalt_error err;
    for (int i = 0; i < 13; i++) {
        struct basalt_sigv4_request req = good;
        doc_params(&p, BASALT_SIGV4_FLAGS_S3);
        p.expires = 60;
        bool presign = false;
        switch (i) {
        case 0: req.method = ""; break;
        case 1: req.host = NULL; break; /* and no Host header */
        case 2: req.headers = &auth; req.header_count = 1; break;
        case 3: req.headers = &date; req.header_count = 1; break;
        case 4: req.headers = &host; req.header_count = 1; break;
        case 5: req.headers = &bad_name; req.header_count = 1; break;
        case 6: p.credentials.secret_access_key = ""; break;
        case 7: p.region = "us/east"; break;
        case 8: p.service = NULL; break;
        case 9: presign = true; p.expires = 0; break;
        case 10: presign = true; p.expires = BASALT_SIGV4_MAX_EXPIRES + 1; break;
        case 11: presign = true; req.query = "x-amz-credential=abc"; break;
        case 12: presign = true; req.query = "a=1&X-Amz-Signature=00"; break;
        }
        basalt_status st = presign ? basalt_sigv4_presign(&req, &p, &res, &err)
                                   : basalt_sigv4_sign_headers(&req, &p, &res, &err);
        CHECK_MSG(st == BASALT_INVALID_ARG, "case %d: %s", i, basalt_status_name(st));
        CHECK_MSG(strstr(err.message, DOC_SECRET) == NULL &&
                      strstr(err.message, "EXAMPLEKEY") == NULL,
                  "case %d: the message shows the secret", i);
        CHECK(res.canonical_request == NULL && res.header_count == 0);
        basalt_sigv4_result_reset(&res);
    }
}

TEST(sigv4_session_token_signed_or_appended)
{
    struct basalt_sigv4_request req = {.method = "GET", .host = "h", .path = "/k"};
    struct basalt_sigv4_params p;
    doc_params(&p, BASALT_SIGV4_FLAGS_S3 | BASALT_SIGV4_OMIT_SESSION_TOKEN);
    p.credentials.session_token = "tok/en+";
    p.expires = 60;
    struct basalt_sigv4_result res;
    struct basalt_error err;
    CHECK_OK(basalt_sigv4_presign(&req, &p, &res, &err), &err);
    CHECK(strstr(res.canonical_request, "Token") == NULL);
    const char *sig = strstr(res.query, "X-Amz-Signature=");
    CHECK(sig != NULL);
    CHECK_STR(sig + 16 + 64, "&X-Amz-Security-Token=tok%2Fen%2B");
    basalt_sigv4_result_reset(&res);
    p.flags &= ~(unsigned)BASALT_SIGV4_OMIT_SESSION_TOKEN;
    CHECK_OK(basalt_sigv4_sign_headers(&req, &p, &res, &err), &err);
    CHECK(strstr(res.canonical_request, "x-amz-security-token:tok/en+\n") != NULL);
    CHECK_STR(res.headers[1].name, "X-Amz-Security-Token");
    CHECK_STR(res.headers[1].value, "tok/en+");
    basalt_sigv4_result_reset(&res);
}

static basalt_status sign_both(void *ctx)
{
    (void)ctx;
    struct basalt_sigv4_header h[] = {{"Range", "bytes=0-9"}, {"x-amz-meta-a", " b  c "}};
    struct basalt_sigv4_request req = {.method = "PUT", .host = "h", .path = "/a/../b",
                                       .query = "uploadId=1&partNumber=2", .headers = h,
                                       .header_count = 2};
    struct basalt_sigv4_params p;
    doc_params(&p, BASALT_SIGV4_FLAGS_DEFAULT | BASALT_SIGV4_ADD_CONTENT_SHA256);
    p.credentials.session_token = "token";
    p.expires = 60;
    struct basalt_sigv4_result res;
    basalt_status st = basalt_sigv4_sign_headers(&req, &p, &res, NULL);
    basalt_sigv4_result_reset(&res);
    if (st == BASALT_OK)
        st = basalt_sigv4_presign(&req, &p, &res, NULL);
    basalt_sigv4_result_reset(&res);
    return st;
}

TEST(sigv4_allocation_failures) { CHECK_ALLOC_SWEEP(sign_both, NULL); }

static basalt_status sign_v4a(void *ctx)
{
    (void)ctx;
    struct basalt_sigv4a_key *key = NULL;
    basalt_status st = basalt_sigv4a_key_derive(DOC_AKID, DOC_SECRET, &key, NULL);
    struct basalt_sigv4_request req = {.method = "GET", .host = "h", .path = "/k"};
    struct basalt_sigv4_params p;
    doc_params(&p, BASALT_SIGV4_FLAGS_S3);
    p.region = "*";
    p.v4a_key = key;
    struct basalt_sigv4_result res;
    if (st == BASALT_OK)
        st = basalt_sigv4_sign_headers(&req, &p, &res, NULL);
    if (st == BASALT_OK) {
        uint8_t x[32], y[32];
        basalt_sigv4a_key_public(key, x, y);
        st = basalt_sigv4a_verify(x, y, res.string_to_sign, strlen(res.string_to_sign),
                                  res.signature, NULL);
        basalt_sigv4_result_reset(&res);
    }
    basalt_sigv4a_key_free(key);
    return st;
}

TEST(sigv4a_allocation_failures) { CHECK_ALLOC_SWEEP(sign_v4a, NULL); }

TEST(sigv4a_verify_refuses_tampering)
{
    struct basalt_sigv4a_key *key;
    struct basalt_error err;
    CHECK_OK(basalt_sigv4a_key_derive(DOC_AKID, DOC_SECRET, &key, &err), &err);
    uint8_t x[32], y[32];
    basalt_sigv4a_key_public(key, x, y);
    char sig[BASALT_SIGV4_SIGNATURE_MAX], sig2[BASALT_SIGV4_SIGNATURE_MAX];
    CHECK_OK(basalt_sigv4a_sign(key, "message", 7, sig, &err), &err);
    CHECK_OK(basalt_sigv4a_sign(key, "message", 7, sig2, &err), &err);
    CHECK(strcmp(sig, sig2) != 0); /* randomised */
    CHECK_OK(basalt_sigv4a_verify(x, y, "message", 7, sig, &err), &err);
    CHECK_OK(basalt_sigv4a_verify(x, y, "message", 7, sig2, &err), &err);
    CHECK_STATUS(basalt_sigv4a_verify(x, y, "messagE", 7, sig, &err), BASALT_AUTH, &err);
    CHECK_STATUS(basalt_sigv4a_verify(x, y, "message", 7, "zz", &err), BASALT_CORRUPT, &err);
    CHECK_STATUS(basalt_sigv4a_verify(x, y, "message", 7, "3000", &err), BASALT_AUTH, &err);
    y[31] ^= 1; /* off the curve */
    CHECK_STATUS(basalt_sigv4a_verify(x, y, "message", 7, sig, &err), BASALT_CORRUPT, &err);
    basalt_sigv4a_key_free(key);
    CHECK_STATUS(basalt_sigv4a_key_derive("", DOC_SECRET, &key, &err), BASALT_INVALID_ARG, &err);
    CHECK(key == NULL);
}
