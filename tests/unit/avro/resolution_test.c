/* Schema resolution: the table of writer/reader pairs in
 * tests/avro/resolution_cases.json, each read by python3-avro's
 * DatumReader(writer, reader) (tests/avro/pyavro_resolve.py) and by basalt,
 * both as generic values and through a plan. */
#include <stdlib.h>
#include <unistd.h>

#include "avro_plan.h"
#include "plan_check.h"
#include "test.h"

#define PY "/usr/bin/python3"
#define SCRIPTS BASALT_TEST_SOURCE_DIR "/tests/avro"

struct rcase {
    char *name, *writer, *reader, *hex, *expected, *source;
};

/* Runs a command and returns its whole stdout (basalt_malloc'd, NUL-ended). */
static char *run_capture(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    struct basalt_buffer b;
    basalt_buffer_init(&b);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, p)) > 0)
        basalt_buffer_append(&b, chunk, n, NULL);
    int rc = pclose(p);
    basalt_buffer_append(&b, "", 1, NULL);
    if (rc != 0) {
        basalt_buffer_reset(&b);
        return NULL;
    }
    return (char *)basalt_buffer_take(&b);
}

static size_t split_cases(char *text, struct rcase *cases, size_t max)
{
    size_t n = 0;
    for (char *line = strtok(text, "\n"); line && n < max; line = strtok(NULL, "\n")) {
        char *f[6];
        int k = 0;
        for (char *p = line; k < 6; k++) {
            f[k] = p;
            char *tab = strchr(p, '\t');
            if (!tab) {
                k++;
                break;
            }
            *tab = '\0';
            p = tab + 1;
        }
        if (k < 6)
            continue;
        cases[n++] = (struct rcase){f[0], f[1], f[2], f[3], f[4], f[5]};
    }
    return n;
}

/* Our JSON of each case's resolved value, canonicalised by canon_json.py. */
static char *canonicalise(const struct basalt_buffer *lines)
{
    char in[] = "/tmp/basalt-avro-resolve-XXXXXX";
    int fd = mkstemp(in);
    if (fd < 0)
        return NULL;
    bool ok = write(fd, lines->data, lines->size) == (ssize_t)lines->size;
    close(fd);
    char cmd[512];
    snprintf(cmd, sizeof cmd, PY " " SCRIPTS "/canon_json.py < %s", in);
    char *out = ok ? run_capture(cmd) : NULL;
    unlink(in);
    return out;
}

static uint8_t *unhex(const char *hex, size_t *len)
{
    *len = strlen(hex) / 2;
    uint8_t *b = basalt_malloc(*len + 1);
    for (size_t i = 0; i < *len; i++)
        sscanf(hex + 2 * i, "%2hhx", &b[i]);
    return b;
}

/* Decodes a case: OK with the value's JSON appended to `out`, or the status. */
static basalt_status resolve_case(const struct rcase *c, struct basalt_buffer *out,
                                  int *plan_columns, struct basalt_error *err)
{
    struct basalt_avro_schema *w = NULL, *r = NULL;
    struct basalt_avro_resolution *res = NULL;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    size_t len;
    uint8_t *data = unhex(c->hex, &len);
    basalt_status st = basalt_avro_schema_parse(c->writer, strlen(c->writer), NULL, &w, err);
    if (st == BASALT_OK)
        st = basalt_avro_schema_parse(c->reader, strlen(c->reader), NULL, &r, err);
    if (st != BASALT_OK) {
        basalt_error_context(err, BASALT_INTERNAL, "schema");
        st = BASALT_INTERNAL;
        goto done;
    }
    st = basalt_avro_resolution_new(w, r, &res, err);
    struct basalt_avro_value v;
    size_t used = 0;
    if (st == BASALT_OK)
        st = basalt_avro_value_decode_resolved(res, data, len, NULL, &arena, &v, &used, err);
    if (st == BASALT_OK && used != len)
        st = basalt_error_set(err, BASALT_INTERNAL, "used %zu of %zu bytes", used, len);
    if (st == BASALT_OK)
        st = basalt_avro_value_to_json(&v, 0, out, err);
    if (st != BASALT_OK)
        goto done;
    /* The same through a plan of every column of the reader's record. */
    const struct basalt_avro_node *root = basalt_avro_schema_root(r);
    static struct leaf leaves[MAX_COLS];
    size_t n = 0;
    if (root->type == BASALT_AVRO_RECORD)
        pc_collect_leaves(root, "", leaves, &n, 0);
    else
        snprintf(leaves[n++].path, sizeof leaves[0].path, "%s", "");
    struct basalt_avro_column cols[MAX_COLS];
    for (size_t k = 0; k < n; k++)
        cols[k] = (struct basalt_avro_column){leaves[k].path, BASALT_AVRO_SLOT_AUTO};
    /* nested columns overlap their record's RAW column: keep the leaves */
    size_t kept = 0;
    for (size_t k = 0; k < n; k++) {
        bool prefix = false;
        for (size_t j = 0; j < n; j++)
            if (j != k && strncmp(cols[j].path, cols[k].path, strlen(cols[k].path)) == 0 &&
                cols[j].path[strlen(cols[k].path)] == '.')
                prefix = true;
        if (!prefix)
            cols[kept++] = cols[k];
    }
    struct basalt_avro_plan *plan = NULL;
    st = basalt_avro_plan_new(w, r, cols, kept, &plan, err);
    if (st == BASALT_INVALID_ARG && strstr(err->message, "RAW slot")) {
        /* a converted array, map or union column: the plan cannot view it */
        for (size_t k = 0; k < kept; k++) {
            struct basalt_avro_plan *one = NULL;
            if (basalt_avro_plan_new(w, r, &cols[k], 1, &one, NULL) != BASALT_OK)
                cols[k--] = cols[--kept];
            basalt_avro_plan_free(one);
        }
        st = basalt_avro_plan_new(w, r, cols, kept, &plan, err);
    }
    if (st != BASALT_OK) {
        basalt_error_context(err, BASALT_INTERNAL, "plan");
        st = BASALT_INTERNAL;
        goto done;
    }
    uint8_t slots[MAX_COLS][16], present[MAX_COLS];
    struct basalt_avro_dest dests[MAX_COLS];
    for (size_t k = 0; k < kept; k++)
        dests[k] = (struct basalt_avro_dest){.values = slots[k], .present = &present[k]};
    st = basalt_avro_plan_decode(plan, data, len, 1, dests, NULL, &used, err);
    for (size_t k = 0; st == BASALT_OK && k < kept; k++) {
        char why[128];
        if (!pc_slot_matches(plan, k, pc_value_at(&v, cols[k].path), slots[k], present[k], why,
                             sizeof why))
            st = basalt_error_set(err, BASALT_INTERNAL, "plan column '%s': %s", cols[k].path, why);
        (*plan_columns)++;
    }
    if (st != BASALT_OK && st != BASALT_INTERNAL)
        st = basalt_error_context(err, BASALT_INTERNAL, "plan failed where the value decoded");
    basalt_avro_plan_free(plan);
done:
    basalt_free(data);
    basalt_arena_reset(&arena);
    basalt_avro_resolution_free(res);
    basalt_avro_schema_free(w);
    basalt_avro_schema_free(r);
    return st;
}

TEST(resolution_table_against_python)
{
    char *text = run_capture(PY " " SCRIPTS "/pyavro_resolve.py " SCRIPTS "/resolution_cases.json");
    CHECK_MSG(text != NULL, "pyavro_resolve.py failed (python3-avro installed?)");
    static struct rcase cases[128];
    size_t n = split_cases(text, cases, 128);
    struct basalt_buffer ours;
    basalt_buffer_init(&ours);
    basalt_status status[128];
    static char messages[128][BASALT_ERROR_MESSAGE_MAX];
    int plan_columns = 0, table_cases = 0, errors = 0;
    for (size_t i = 0; i < n; i++) {
        struct basalt_error err;
        basalt_error_init(&err);
        size_t mark = ours.size;
        status[i] = resolve_case(&cases[i], &ours, &plan_columns, &err);
        snprintf(messages[i], sizeof messages[i], "%s", err.message);
        if (status[i] != BASALT_OK) {
            ours.size = mark;
            basalt_buffer_append(&ours, "\"__ERROR__\"", 11, NULL);
        }
        basalt_buffer_append(&ours, "\n", 1, NULL);
        table_cases += strncmp(cases[i].source, "table", 5) == 0;
    }
    char *canon = canonicalise(&ours);
    basalt_buffer_reset(&ours);
    bool ok = canon != NULL;
    char *line = canon;
    for (size_t i = 0; ok && i < n; i++) {
        char *nl = strchr(line, '\n');
        if (!nl) {
            ok = false;
            break;
        }
        *nl = '\0';
        bool want_error = strcmp(cases[i].expected, "__ERROR__") == 0;
        if (status[i] == BASALT_INTERNAL) {
            bt_fail(__FILE__, __LINE__, "'%s': %s", cases[i].name, messages[i]);
            ok = false;
        } else if (want_error) {
            /* unresolvable schemas are INVALID_ARG, unreadable data CORRUPT */
            if (status[i] != BASALT_INVALID_ARG && status[i] != BASALT_CORRUPT) {
                bt_fail(__FILE__, __LINE__, "'%s': expected an error (%s), got %s", cases[i].name,
                        cases[i].source, line);
                ok = false;
            }
            errors++;
        } else if (status[i] != BASALT_OK || strcmp(line, cases[i].expected) != 0) {
            bt_fail(__FILE__, __LINE__, "'%s': got %s (%s), expected %s (%s)", cases[i].name, line,
                    messages[i], cases[i].expected, cases[i].source);
            ok = false;
        }
        line = nl + 1;
    }
    basalt_free(canon);
    basalt_free(text);
    CHECK(ok);
    CHECK_EQ(n, 42);
    CHECK(table_cases >= 5 && table_cases <= 12);
    CHECK(errors >= 8);
    CHECK(plan_columns > 40);
}
