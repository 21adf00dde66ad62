/* The REST server's commits without sockets: single-table commits and their
 * 400/404/409 answers, commits made directly through the catalog seen
 * through REST (and making a stale REST commit fail), requests racing on
 * one table (one winner, the rest 409), multi-table transactions that
 * commit all or nothing, also while racing, and failing allocations. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rest_server_fixture.h"
#include "test.h"

/* The table's uuid and main's snapshot (-1 when none), from a load. */
static bool table_state(struct rs_fixture *f, const char *path, char uuid[64], int64_t *main)
{
    json_t *body = NULL;
    if (rs_get(f, path, &body) != 200)
        return false;
    snprintf(uuid, 64, "%s", json_string_value(rs_metadata(body, "table-uuid")));
    const json_t *ref = json_object_get(rs_metadata(body, "refs"), "main");
    *main = ref ? json_integer_value(json_object_get(ref, "snapshot-id")) : -1;
    json_decref(body);
    return true;
}

static const char set_v[] =
    "{\"requirements\": [%s], \"updates\": [{\"action\": \"set-properties\", \"updates\": "
    "{\"v\": \"%s\"}}]}";

TEST(rest_commit_table_answers)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, NULL));
    CHECK(rs_create_namespace(&f, "[\"db\"]"));
    CHECK(rs_create_table(&f, "db", "t"));
    char uuid[64], text[1024];
    int64_t main = 0;
    CHECK(table_state(&f, "namespaces/db/tables/t", uuid, &main));
    CHECK_EQ(main, -1);
    char req[128];
    snprintf(req, sizeof req, "{\"type\": \"assert-table-uuid\", \"uuid\": \"%s\"}", uuid);
    snprintf(text, sizeof text, set_v, req, "1");
    json_t *body = NULL;
    struct basalt_catalog_rest_response r;
    CHECK_EQ(rs_call(&f, "POST", "namespaces/db/tables/t", NULL, text, NULL, &body, &r), 200);
    /* CommitTableResponse: location and metadata, nothing else. */
    CHECK_EQ(json_object_size(body), 2);
    CHECK(strstr(json_string_value(json_object_get(body, "metadata-location")), "/00001-"));
    CHECK_STR(json_string_value(json_object_get(rs_metadata(body, "properties"), "v")), "1");
    CHECK_EQ(json_array_size(rs_metadata(body, "metadata-log")), 1);
    CHECK(rs_header(&r, "ETag"));
    basalt_catalog_rest_response_reset(&r);
    json_decref(body);
    /* A requirement that fails. */
    snprintf(text, sizeof text, set_v,
             "{\"type\": \"assert-table-uuid\", \"uuid\": \"00000000-0000-0000-0000-000000000000\"}",
             "2");
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/t", text, &body), 409);
    CHECK(rs_is_error(body, 409, "CommitFailedException"));
    json_decref(body);
    snprintf(text, sizeof text, set_v, "{\"type\": \"assert-current-schema-id\", "
                                       "\"current-schema-id\": 5}",
             "2");
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/t", text, NULL), 409);
    /* Unknown requirements and updates are 400, even next to a failing
     * requirement. */
    snprintf(text, sizeof text, set_v,
             "{\"type\": \"assert-current-schema-id\", \"current-schema-id\": 5}, {\"type\": "
             "\"assert-the-moon\"}",
             "2");
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/t", text, &body), 400);
    CHECK(rs_is_error(body, 400, "BadRequestException"));
    json_decref(body);
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/t",
                     "{\"requirements\": [], \"updates\": [{\"action\": \"paint-it-red\"}]}",
                     NULL),
             400);
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/t",
                     "{\"requirements\": [], \"updates\": [{\"updates\": {}}]}", NULL),
             400);
    /* Known, but not applied here. */
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/t",
                     "{\"requirements\": [], \"updates\": [{\"action\": \"add-encryption-key\", "
                     "\"encryption-key\": {\"key-id\": \"k\", \"encrypted-key-metadata\": "
                     "\"AA==\"}}]}",
                     NULL),
             400);
    /* Updates that do not apply. */
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/t",
                     "{\"requirements\": [], \"updates\": [{\"action\": \"set-current-schema\", "
                     "\"schema-id\": 7}]}",
                     NULL),
             400);
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/t", "{\"updates\": []}", NULL), 400);
    /* The body's identifier must be the path's. */
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/t",
                     "{\"identifier\": {\"namespace\": [\"db\"], \"name\": \"u\"}, "
                     "\"requirements\": [], \"updates\": []}",
                     NULL),
             400);
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/t",
                     "{\"identifier\": {\"namespace\": [\"db\"], \"name\": \"t\"}, "
                     "\"requirements\": [], \"updates\": []}",
                     NULL),
             200);
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/none", "{\"requirements\": [], \"updates\": []}",
                     &body),
             404);
    CHECK(rs_is_error(body, 404, "NoSuchTableException"));
    json_decref(body);
    /* None of the failures moved the table: two commits made it. */
    CHECK_EQ(rs_get(&f, "namespaces/db/tables/t", &body), 200);
    CHECK(strstr(json_string_value(json_object_get(body, "metadata-location")), "/00002-"));
    CHECK_STR(json_string_value(json_object_get(rs_metadata(body, "properties"), "v")), "1");
    json_decref(body);
    rs_close(&f);
}

TEST(rest_sees_commits_made_through_the_catalog)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, NULL));
    CHECK(rs_create_namespace(&f, "[\"db\"]"));
    CHECK(rs_create_table(&f, "db", "t"));
    char uuid[64];
    int64_t main = 0;
    CHECK(table_state(&f, "namespaces/db/tables/t", uuid, &main));
    /* A client builds an append on what it loaded... */
    char *stale = rs_append_commit(uuid, -1, 101, 1);
    /* ...while basalt appends directly through the catalog. */
    struct basalt_catalog *c = NULL;
    CHECK_OK(basalt_catalog_open(f.uri, NULL, false, &c, &f.err), &f.err);
    struct basalt_iceberg_committer committer;
    basalt_catalog_committer(c, &committer);
    struct basalt_iceberg_data_file file;
    memset(&file, 0, sizeof file);
    file.content = BASALT_ICEBERG_CONTENT_DATA;
    file.file_path = "/nowhere/data/a.parquet";
    file.file_format = BASALT_ICEBERG_FORMAT_PARQUET;
    file.record_count = 5;
    file.file_size_in_bytes = 500;
    int64_t direct = 0;
    struct basalt_iceberg_table *t = NULL;
    CHECK_OK(basalt_iceberg_append(&committer, "db.t", &file, 1, NULL, &t, &direct, &f.err),
             &f.err);
    char direct_location[512];
    snprintf(direct_location, sizeof direct_location, "%s", t->metadata_location);
    basalt_iceberg_table_free(t);
    basalt_catalog_close(c);
    /* REST sees the direct commit... */
    json_t *body = NULL;
    CHECK_EQ(rs_get(&f, "namespaces/db/tables/t", &body), 200);
    CHECK_STR(json_string_value(json_object_get(body, "metadata-location")), direct_location);
    CHECK_EQ(json_integer_value(rs_metadata(body, "current-snapshot-id")), direct);
    json_decref(body);
    /* ...and the client's stale append loses. */
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/t", stale, &body), 409);
    CHECK(rs_is_error(body, 409, "CommitFailedException"));
    json_decref(body);
    free(stale);
    /* Built on the new state it goes through. */
    char *fresh = rs_append_commit(uuid, direct, 102, 2);
    CHECK_EQ(rs_post(&f, "namespaces/db/tables/t", fresh, NULL), 200);
    free(fresh);
    rs_close(&f);
}

/* Requests racing on one handler (one catalog connection each). */
struct racer {
    struct rs_fixture *f;
    pthread_barrier_t *start;
    const char *path;
    char *body;
    int status;
};

static void *race(void *arg)
{
    struct racer *r = arg;
    pthread_barrier_wait(r->start);
    r->status = rs_post(r->f, r->path, r->body, NULL);
    return NULL;
}

static void racing_commits(const char *uri)
{
    enum { N = 6 };
    struct rs_fixture f;
    CHECK(rs_open(&f, &(struct rs_config){.threads = N, .uri = uri}));
    CHECK(rs_create_namespace(&f, "[\"db\"]"));
    CHECK(rs_create_table(&f, "db", "t"));
    char uuid[64];
    int64_t main = 0;
    CHECK(table_state(&f, "namespaces/db/tables/t", uuid, &main));
    for (int round = 0; round < 3; round++) {
        /* Every racer appends on the same base: main where it is now. */
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, N);
        struct racer r[N];
        pthread_t threads[N];
        for (int i = 0; i < N; i++) {
            r[i] = (struct racer){&f, &start, "namespaces/db/tables/t",
                                  rs_append_commit(uuid, main, 1000 * (round + 1) + i, round + 1),
                                  0};
            pthread_create(&threads[i], NULL, race, &r[i]);
        }
        int won = 0, lost = 0;
        for (int i = 0; i < N; i++) {
            pthread_join(threads[i], NULL);
            won += r[i].status == 200;
            lost += r[i].status == 409;
            free(r[i].body);
        }
        pthread_barrier_destroy(&start);
        CHECK_MSG(won == 1 && lost == N - 1, "round %d: %d won, %d lost", round, won, lost);
        int64_t before = main;
        CHECK(table_state(&f, "namespaces/db/tables/t", uuid, &main));
        CHECK(main != before);
    }
    /* Losers left no metadata file behind: create + three commits. */
    char dir[128];
    snprintf(dir, sizeof dir, "%s/db/t/metadata", f.dir);
    CHECK_EQ(rs_count_files(dir), 4);
    rs_close(&f);
}

TEST(rest_racing_commits_have_one_winner)
{
    racing_commits(NULL);
}

static const char tx_two[] =
    "{\"table-changes\": [{\"identifier\": {\"namespace\": [\"db\"], \"name\": \"a\"}, "
    "\"requirements\": [%s], \"updates\": [{\"action\": \"set-properties\", \"updates\": "
    "{\"%s\": \"1\"}}]}, {\"identifier\": {\"namespace\": [\"db\"], \"name\": \"b\"}, "
    "\"requirements\": [%s], \"updates\": [{\"action\": \"set-properties\", \"updates\": "
    "{\"%s\": \"1\"}}]}]}";

static int count_property(struct rs_fixture *f, const char *path, const char *key)
{
    json_t *body = NULL;
    if (rs_get(f, path, &body) != 200)
        return -1;
    int n = json_object_get(rs_metadata(body, "properties"), key) != NULL;
    json_decref(body);
    return n;
}

static void transactions(const char *uri)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, &(struct rs_config){.uri = uri}));
    CHECK(rs_create_namespace(&f, "[\"db\"]"));
    CHECK(rs_create_table(&f, "db", "a"));
    CHECK(rs_create_table(&f, "db", "b"));
    char uuid_b[64], text[2048];
    int64_t main = 0;
    CHECK(table_state(&f, "namespaces/db/tables/b", uuid_b, &main));
    char ok_b[128];
    snprintf(ok_b, sizeof ok_b, "{\"type\": \"assert-table-uuid\", \"uuid\": \"%s\"}", uuid_b);
    snprintf(text, sizeof text, tx_two, "", "both", ok_b, "both");
    CHECK_EQ(rs_post(&f, "transactions/commit", text, NULL), 204);
    CHECK_EQ(count_property(&f, "namespaces/db/tables/a", "both"), 1);
    CHECK_EQ(count_property(&f, "namespaces/db/tables/b", "both"), 1);
    /* b's requirement fails: a does not move either. */
    json_t *body = NULL;
    snprintf(text, sizeof text, tx_two, "", "neither",
             "{\"type\": \"assert-current-schema-id\", \"current-schema-id\": 9}", "neither");
    CHECK_EQ(rs_post(&f, "transactions/commit", text, &body), 409);
    CHECK(rs_is_error(body, 409, "CommitFailedException"));
    json_decref(body);
    CHECK_EQ(count_property(&f, "namespaces/db/tables/a", "neither"), 0);
    CHECK_EQ(count_property(&f, "namespaces/db/tables/b", "neither"), 0);
    /* An update of b that does not apply: 400, a does not move. */
    snprintf(text, sizeof text,
             "{\"table-changes\": [{\"identifier\": {\"namespace\": [\"db\"], \"name\": \"a\"}, "
             "\"requirements\": [], \"updates\": [{\"action\": \"set-properties\", \"updates\": "
             "{\"bad\": \"1\"}}]}, {\"identifier\": {\"namespace\": [\"db\"], \"name\": \"b\"}, "
             "\"requirements\": [], \"updates\": [{\"action\": \"set-default-spec\", "
             "\"spec-id\": 4}]}]}");
    CHECK_EQ(rs_post(&f, "transactions/commit", text, NULL), 400);
    CHECK_EQ(count_property(&f, "namespaces/db/tables/a", "bad"), 0);
    /* A missing table: 404, nothing moves. */
    snprintf(text, sizeof text,
             "{\"table-changes\": [{\"identifier\": {\"namespace\": [\"db\"], \"name\": \"a\"}, "
             "\"requirements\": [], \"updates\": [{\"action\": \"set-properties\", \"updates\": "
             "{\"lost\": \"1\"}}]}, {\"identifier\": {\"namespace\": [\"db\"], \"name\": "
             "\"zz\"}, \"requirements\": [], \"updates\": []}]}");
    CHECK_EQ(rs_post(&f, "transactions/commit", text, &body), 404);
    CHECK(rs_is_error(body, 404, "NoSuchTableException"));
    json_decref(body);
    CHECK_EQ(count_property(&f, "namespaces/db/tables/a", "lost"), 0);
    /* Malformed: no identifier, a table twice, a create, an unknown update. */
    CHECK_EQ(rs_post(&f, "transactions/commit",
                     "{\"table-changes\": [{\"requirements\": [], \"updates\": []}]}", NULL),
             400);
    snprintf(text, sizeof text, tx_two, "", "x", "", "x");
    char *twice = strstr(text, "\"name\": \"b\"");
    CHECK(twice);
    memcpy(twice, "\"name\": \"a\"", 11);
    CHECK_EQ(rs_post(&f, "transactions/commit", text, NULL), 400);
    snprintf(text, sizeof text, tx_two, "{\"type\": \"assert-create\"}", "x", "", "x");
    CHECK_EQ(rs_post(&f, "transactions/commit", text, NULL), 400);
    CHECK_EQ(rs_post(&f, "transactions/commit",
                     "{\"table-changes\": [{\"identifier\": {\"namespace\": [\"db\"], \"name\": "
                     "\"a\"}, \"requirements\": [], \"updates\": [{\"action\": \"nope\"}]}]}",
                     NULL),
             400);
    CHECK_EQ(rs_post(&f, "transactions/commit", "{}", NULL), 400);
    CHECK_EQ(rs_post(&f, "transactions/commit", "{\"table-changes\": []}", NULL), 204);
    /* Failed transactions left no metadata file: create + one commit each. */
    char dir[128];
    snprintf(dir, sizeof dir, "%s/db/a/metadata", f.dir);
    CHECK_EQ(rs_count_files(dir), 2);
    snprintf(dir, sizeof dir, "%s/db/b/metadata", f.dir);
    CHECK_EQ(rs_count_files(dir), 2);
    rs_close(&f);
}

TEST(rest_transactions_commit_all_or_nothing)
{
    transactions(NULL);
}

/* Transactions racing with each other and with single-table commits: each
 * transaction sets its own key on both tables, a single commit sets its own
 * on a only. Whatever won, a and b must hold the same transaction keys. */
struct tx_racer {
    struct rs_fixture *f;
    pthread_barrier_t *start;
    int id;
    int committed, conflicts, other;
};

static void *tx_race(void *arg)
{
    struct tx_racer *r = arg;
    pthread_barrier_wait(r->start);
    for (int i = 0; i < 6; i++) {
        char key[32], text[2048];
        int status;
        if (r->id == 0) {
            snprintf(key, sizeof key, "single-%d", i);
            snprintf(text, sizeof text, set_v, "", key);
            status = rs_post(r->f, "namespaces/db/tables/a", text, NULL);
        } else {
            snprintf(key, sizeof key, "tx-%d-%d", r->id, i);
            snprintf(text, sizeof text, tx_two, "", key, "", key);
            status = rs_post(r->f, "transactions/commit", text, NULL);
        }
        r->committed += status == 200 || status == 204;
        r->conflicts += status == 409;
        r->other += status != 200 && status != 204 && status != 409;
    }
    return NULL;
}

static void racing_transactions(const char *uri)
{
    enum { N = 4 };
    struct rs_fixture f;
    CHECK(rs_open(&f, &(struct rs_config){.threads = N, .uri = uri}));
    CHECK(rs_create_namespace(&f, "[\"db\"]"));
    CHECK(rs_create_table(&f, "db", "a"));
    CHECK(rs_create_table(&f, "db", "b"));
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, N);
    struct tx_racer r[N];
    pthread_t threads[N];
    for (int i = 0; i < N; i++) {
        r[i] = (struct tx_racer){.f = &f, .start = &start, .id = i};
        pthread_create(&threads[i], NULL, tx_race, &r[i]);
    }
    int committed = 0;
    for (int i = 0; i < N; i++) {
        pthread_join(threads[i], NULL);
        CHECK_EQ(r[i].other, 0);
        if (i > 0)
            committed += r[i].committed;
    }
    pthread_barrier_destroy(&start);
    json_t *a = NULL, *b = NULL;
    CHECK_EQ(rs_get(&f, "namespaces/db/tables/a", &a), 200);
    CHECK_EQ(rs_get(&f, "namespaces/db/tables/b", &b), 200);
    json_t *pa = rs_metadata(a, "properties"), *pb = rs_metadata(b, "properties");
    int in_a = 0;
    const char *key;
    json_t *v;
    json_object_foreach(pa, key, v)
    {
        if (strncmp(key, "tx-", 3) == 0) {
            in_a++;
            CHECK_MSG(json_object_get(pb, key), "%s committed on a only", key);
        }
    }
    int in_b = 0;
    json_object_foreach(pb, key, v)
    {
        in_b += strncmp(key, "tx-", 3) == 0;
    }
    CHECK_EQ(in_a, committed);
    CHECK_EQ(in_b, committed);
    CHECK(committed > 0);
    json_decref(a);
    json_decref(b);
    rs_close(&f);
}

TEST(rest_racing_transactions_stay_atomic)
{
    racing_transactions(NULL);
}

/* The same on PostgreSQL (row locks instead of SQLite's write lock),
 * against a server tests/cli/catalog_rest_server.sh starts; skipped
 * without one. */
TEST(rest_pg_racing_commits_have_one_winner)
{
    const char *uri = rs_postgres_uri();
    if (uri)
        racing_commits(uri);
}

TEST(rest_pg_transactions_commit_all_or_nothing)
{
    const char *uri = rs_postgres_uri();
    if (uri)
        transactions(uri);
}

TEST(rest_pg_racing_transactions_stay_atomic)
{
    const char *uri = rs_postgres_uri();
    if (uri)
        racing_transactions(uri);
}

/* Failing the n-th allocation: every request still gets an answer (the
 * right one, or a 500 with the error model), and nothing leaks. */
struct sweep {
    struct rs_fixture *f;
    int n;
};

static basalt_status sweep_requests(void *ctx)
{
    struct sweep *s = ctx;
    char text[256];
    snprintf(text, sizeof text, set_v, "", "sweep");
    const struct {
        const char *method, *path, *query, *body;
        int ok;
    } requests[] = {
        {"GET", "config", NULL, NULL, 200},
        {"GET", "namespaces", "pageToken=&pageSize=1", NULL, 200},
        {"GET", "namespaces/db", NULL, NULL, 200},
        {"GET", "namespaces/db/tables/t", "snapshots=refs", NULL, 200},
        {"POST", "namespaces/db/tables/t", NULL, text, 200},
        {"POST", "transactions/commit", NULL,
         "{\"table-changes\": [{\"identifier\": {\"namespace\": [\"db\"], \"name\": \"t\"}, "
         "\"requirements\": [], \"updates\": []}]}",
         204},
    };
    basalt_status st = BASALT_OK;
    for (size_t i = 0; i < sizeof requests / sizeof *requests; i++) {
        int status = rs_call(s->f, requests[i].method, requests[i].path, requests[i].query,
                             requests[i].body, NULL, NULL, NULL);
        if (status == 500)
            st = BASALT_NOMEM;
        else if (status != requests[i].ok)
            return BASALT_INTERNAL; /* the sweep reports it */
    }
    return st;
}

TEST(rest_failing_allocations_answer_500_and_leak_nothing)
{
    struct rs_fixture f;
    CHECK(rs_open(&f, NULL));
    CHECK(rs_create_namespace(&f, "[\"db\"]"));
    CHECK(rs_create_table(&f, "db", "t"));
    struct sweep s = {&f, 0};
    CHECK_ALLOC_SWEEP(sweep_requests, &s);
    rs_close(&f);
}
