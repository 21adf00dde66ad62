/* Randomised differential of the hash aggregation against DuckDB: DuckDB
 * writes a seeded random table to Parquet (tests/query/duckdb_agg.mjs), basalt's
 * reader reads it back, a seeded generator picks group-by specs (1-3 keys of
 * every kind at cardinalities 2..100000, 1-4 aggregates of every kind,
 * corr/covar/regr_* over pairs of columns with NULLs, zero variances, NaNs and
 * means near 1e9 among them) and each runs here and in DuckDB (`SELECT keys,
 * aggs FROM f GROUP BY ALL`).
 * Rows are compared order-insensitively (keys exact, doubles to 1e-9
 * relative, the rest as DuckDB's VARCHAR text). Every spec also runs with 1,
 * 2 and 4 locals, random consume sizes and a pool: the outputs must be
 * identical, in order. Runs only with BASALT_QUERY_DIFFERENTIAL=1 (ctest's
 * differential.query_agg); BASALT_AGG_SPECS (default 60), BASALT_AGG_ROWS
 * (default 50000) and BASALT_RANDOM_SEED change it. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agg/agg.h"
#include "basalt/parquet.h"
#include "query_test_util.h"
#include "test.h"

static const char *const key_cols[] = {"k_b", "k_i8", "k_i32", "k_i64", "k_u16",
                                       "k_s", "k_dt", "k_f", "k_d", "k_ts"};

struct aspec {
    enum basalt_qagg_kind kind;
    const char *cols; /* space-separated argument columns; "y:x" pairs for f(y, x) */
    const char *sql;  /* %1$s the column; f(y, x): %1$s y, %2$s x, %3$s and %4$s
                         the constants y and x were shifted by in DuckDB's query */
    bool distinct;
    double q;
};

/* f(y, x) pairs: v_g/v_h correlated, v_i/v_l independent, k_i8 constant
 * within its own groups (zero variances: NaN and NULL results), v_f with
 * NaNs (DuckDB's "out of range" errors), v_m/v_n near 1e9 with a spread of
 * 1000. DuckDB reads v_m and v_n shifted by -1e9 (exact): its Welford
 * updates in doubles lose up to ~1e-4 of a covariance whose pairs are that
 * close (two rows 0.01 apart near 1e9), while ours are exact there; the
 * shift-invariant results compare directly, the means and the intercept
 * through %3$s/%4$s. */
#define PAIRS                                                                            \
    "v_g:v_h v_h:v_g v_i:v_l v_d:v_g v_g:k_i8 k_i8:v_i v_f:v_g v_g:v_g v_n:v_m v_m:v_n "  \
    "v_m:v_g v_g:v_m v_m:v_m"

static const struct aspec aggs[] = {
    {BASALT_QAGG_COUNT_STAR, "", "count(*)", false, 0},
    {BASALT_QAGG_COUNT, "v_i v_s v_f v_b v_dt", "count(%1$s)", false, 0},
    {BASALT_QAGG_SUM, "v_i v_l v_d v_f v_b", "sum(%1$s)", false, 0},
    {BASALT_QAGG_AVG, "v_i v_l v_d v_f", "avg(%1$s)", false, 0},
    {BASALT_QAGG_MIN, "v_i v_l v_d v_f v_s v_b v_dt", "min(%1$s)", false, 0},
    {BASALT_QAGG_MAX, "v_i v_l v_d v_f v_s v_b v_dt", "max(%1$s)", false, 0},
    /* ours is the smallest value: DuckDB's min */
    {BASALT_QAGG_ANY_VALUE, "v_i v_s v_dt", "min(%1$s)", false, 0},
    {BASALT_QAGG_STDDEV_SAMP, "v_i v_d v_f", "stddev_samp(%1$s)", false, 0},
    {BASALT_QAGG_STDDEV_POP, "v_i v_d", "stddev_pop(%1$s)", false, 0},
    {BASALT_QAGG_VAR_SAMP, "v_i v_f", "var_samp(%1$s)", false, 0},
    {BASALT_QAGG_VAR_POP, "v_i v_d", "var_pop(%1$s)", false, 0},
    {BASALT_QAGG_MEDIAN, "v_i v_f v_s v_l", "median(%1$s)", false, 0},
    {BASALT_QAGG_QUANTILE_CONT, "v_i v_f", "quantile_cont(%1$s, 0.25)", false, 0.25},
    {BASALT_QAGG_QUANTILE_CONT, "v_i v_l", "quantile_cont(%1$s, 0.9)", false, 0.9},
    {BASALT_QAGG_QUANTILE_DISC, "v_i v_s v_d v_dt", "quantile_disc(%1$s, 0.3)", false, 0.3},
    /* ours concatenates in byte order */
    {BASALT_QAGG_STRING_AGG, "v_s", "string_agg(%1$s, '-' ORDER BY %1$s)", false, 0},
    {BASALT_QAGG_BOOL_AND, "v_b", "bool_and(%1$s)", false, 0},
    {BASALT_QAGG_BOOL_OR, "v_b", "bool_or(%1$s)", false, 0},
    {BASALT_QAGG_COUNT, "v_i v_s v_b v_f", "count(DISTINCT %1$s)", true, 0},
    {BASALT_QAGG_SUM, "v_i v_d", "sum(DISTINCT %1$s)", true, 0},
    {BASALT_QAGG_AVG, "v_i", "avg(DISTINCT %1$s)", true, 0},
    {BASALT_QAGG_CORR, PAIRS, "corr(%1$s, %2$s)", false, 0},
    {BASALT_QAGG_COVAR_POP, PAIRS, "covar_pop(%1$s, %2$s)", false, 0},
    {BASALT_QAGG_COVAR_SAMP, PAIRS, "covar_samp(%1$s, %2$s)", false, 0},
    {BASALT_QAGG_REGR_SLOPE, PAIRS, "regr_slope(%1$s, %2$s)", false, 0},
    {BASALT_QAGG_REGR_INTERCEPT, PAIRS,
     "regr_intercept(%1$s, %2$s) + %3$s - regr_slope(%1$s, %2$s) * %4$s", false, 0},
    {BASALT_QAGG_REGR_R2, PAIRS, "regr_r2(%1$s, %2$s)", false, 0},
    {BASALT_QAGG_REGR_COUNT, PAIRS, "regr_count(%1$s, %2$s)", false, 0},
    {BASALT_QAGG_REGR_AVGX, PAIRS, "regr_avgx(%1$s, %2$s) + %4$s", false, 0},
    {BASALT_QAGG_REGR_AVGY, PAIRS, "regr_avgy(%1$s, %2$s) + %3$s", false, 0},
    {BASALT_QAGG_REGR_SXX, PAIRS, "regr_sxx(%1$s, %2$s)", false, 0},
    {BASALT_QAGG_REGR_SYY, PAIRS, "regr_syy(%1$s, %2$s)", false, 0},
    {BASALT_QAGG_REGR_SXY, PAIRS, "regr_sxy(%1$s, %2$s)", false, 0},
};

/* How DuckDB's query reads a pair column (see PAIRS) and by what it is
 * shifted. */
static const char *duck_col(const char *col, char *buf, size_t cap, const char **shift)
{
    bool big = strcmp(col, "v_m") == 0 || strcmp(col, "v_n") == 0;
    *shift = big ? "1e9" : "0";
    if (!big)
        return col;
    snprintf(buf, cap, "(%s - 1e9)", col);
    return buf;
}

static int find_col(const struct ArrowSchema *s, const char *name)
{
    for (int i = 0; i < s->n_children; i++)
        if (strcmp(s->children[i]->name, name) == 0)
            return i;
    return -1;
}

static bool have_node(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/node_modules/@duckdb/node-api/package.json", BASALT_TEST_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    if (f)
        fclose(f);
    return f && system("command -v node >/dev/null 2>&1") == 0;
}

static bool same_double(const char *ours, const char *theirs)
{
    if (strcmp(ours, theirs) == 0)
        return true;
    if (!strcmp(ours, "NULL") || !strcmp(theirs, "NULL"))
        return false;
    double a = strtod(ours, NULL), b = strtod(theirs, NULL);
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (isinf(a) || isinf(b))
        return a == b;
    return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)) || fabs(a - b) < 1e-300;
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

struct spec {
    int nk, nc;
    int kcol[3], acol[4], acol2[4];
    struct basalt_query_type kt[3];
    struct basalt_qagg_call calls[4];
    char kinds[8]; /* D or S per output column */
};

/* Runs a spec over every batch with `nl` locals, rows dealt out in runs of
 * random length; returns the output rows as text lines, in output order. */
static basalt_status run_spec(const struct spec *sp, const struct basalt_arrow_batches *in,
                              int nl, uint64_t seed, struct basalt_pool *pool, char ***lines,
                              int64_t *n_lines, struct basalt_error *err)
{
    struct basalt_qagg *agg;
    basalt_status st = basalt_qagg_new(sp->kt, sp->nk, sp->calls, sp->nc, NULL, &agg, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_qagg_local *locals[4];
    int made = 0;
    for (; made < nl && st == BASALT_OK; made++)
        st = basalt_qagg_local_new(agg, &locals[made], err);
    if (st != BASALT_OK)
        made--;
    struct bt_rng rng;
    bt_rng_seed(&rng, seed);
    int who = 0;
    for (int64_t b = 0; b < in->n && st == BASALT_OK; b++) {
        const struct ArrowArray *batch = &in->arrays[b];
        for (int64_t pos = 0; pos < batch->length && st == BASALT_OK;) {
            int64_t len = seed ? 1 + (int64_t)bt_rng_below(&rng, 9000) : batch->length;
            if (len > batch->length - pos)
                len = batch->length - pos;
            struct ArrowArray kv[3], av[4], av2[4];
            const struct ArrowArray *kp[3], *ap[4], *ap2[4];
            for (int k = 0; k < sp->nk; k++) {
                kv[k] = *batch->children[sp->kcol[k]];
                kv[k].offset += pos;
                kv[k].length = len;
                kv[k].null_count = kv[k].null_count ? -1 : 0;
                kp[k] = &kv[k];
            }
            for (int c = 0; c < sp->nc; c++) {
                ap[c] = ap2[c] = NULL;
                if (sp->acol2[c] >= 0) {
                    av2[c] = *batch->children[sp->acol2[c]];
                    av2[c].offset += pos;
                    av2[c].length = len;
                    av2[c].null_count = av2[c].null_count ? -1 : 0;
                    ap2[c] = &av2[c];
                }
                if (sp->acol[c] < 0)
                    continue;
                av[c] = *batch->children[sp->acol[c]];
                av[c].offset += pos;
                av[c].length = len;
                av[c].null_count = av[c].null_count ? -1 : 0;
                ap[c] = &av[c];
            }
            st = basalt_qagg_consume(locals[who], kp, ap, ap2, len, err);
            who = (who + 1) % nl;
            pos += len;
        }
    }
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    if (st == BASALT_OK)
        st = basalt_qagg_finish(agg, locals, nl, pool, &out, err);
    for (int i = 0; i < made; i++)
        basalt_qagg_local_free(locals[i]);
    int64_t total = 0, r = 0;
    for (int64_t b = 0; b < out.n; b++)
        total += out.arrays[b].length;
    char **ls = calloc((size_t)total + 1, sizeof *ls);
    for (int64_t b = 0; b < out.n && st == BASALT_OK; b++) {
        const struct ArrowArray *batch = &out.arrays[b];
        for (int64_t i = 0; i < batch->length; i++, r++) {
            static char line[1 << 22], cell[1 << 22];
            line[0] = 0;
            for (int c = 0; c < sp->nk + sp->nc; c++) {
                struct basalt_query_type t = sp->kt[0];
                if (c < sp->nk)
                    t = sp->kt[c];
                else
                    basalt_qagg_result_type(&sp->calls[c - sp->nk], &t, NULL);
                qt_cell(batch->children[c], t, i, cell, sizeof cell);
                if (c)
                    strncat(line, "\x1f", sizeof line - strlen(line) - 1);
                strncat(line, cell, sizeof line - strlen(line) - 1);
            }
            ls[r] = strdup(line);
        }
    }
    basalt_arrow_batches_reset(&out);
    basalt_qagg_free(agg);
    *lines = ls;
    *n_lines = r;
    return st;
}

static void free_lines(char **l, int64_t n)
{
    for (int64_t i = 0; l && i < n; i++)
        free(l[i]);
    free(l);
}

static int split_cells(char *line, char **cells, int max)
{
    int n = 0;
    cells[n++] = line;
    for (char *p = line; *p && n < max; p++)
        if (*p == '\x1f') {
            *p = 0;
            cells[n++] = p + 1;
        }
    return n;
}

TEST(query_agg_duckdb_differential)
{
    const char *on = getenv("BASALT_QUERY_DIFFERENTIAL");
    if (!on || strcmp(on, "1") != 0) {
        printf("SKIP query_agg_duckdb_differential: run by ctest's differential.query_agg\n");
        return;
    }
    if (!have_node()) {
        const char *req = getenv("BASALT_REQUIRE_PEERS");
        CHECK_MSG(!req || strcmp(req, "1") != 0, "node or node_modules/@duckdb/node-api missing");
        printf("SKIP query_agg_duckdb_differential: node or @duckdb/node-api missing\n");
        return;
    }
    const char *se = getenv("BASALT_RANDOM_SEED"), *ne = getenv("BASALT_AGG_SPECS"),
               *re = getenv("BASALT_AGG_ROWS");
    uint64_t seed = se ? strtoull(se, NULL, 10) : 1;
    int total = ne ? atoi(ne) : 60;
    long rows = re ? atol(re) : 50000;
    char dir[] = "/tmp/basalt-aggdiff-XXXXXX";
    CHECK(mkdtemp(dir));
    char cmd[4096], pq[512], qf[512], out[512];
    snprintf(pq, sizeof pq, "%s/t.parquet", dir);
    snprintf(qf, sizeof qf, "%s/queries.txt", dir);
    snprintf(out, sizeof out, "%s/duckdb.txt", dir);
    snprintf(cmd, sizeof cmd, "node '%s/tests/query/duckdb_agg.mjs' table %llu %ld '%s'",
             BASALT_TEST_SOURCE_DIR, (unsigned long long)seed, rows, pq);
    CHECK_MSG(system(cmd) == 0, "%s failed", cmd);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_parquet_reader *rd;
    struct basalt_parquet_scan *scan;
    struct basalt_arrow_batches batches;
    memset(&batches, 0, sizeof batches);
    CHECK_OK(basalt_parquet_reader_open_file(pq, NULL, &rd, &err), &err);
    CHECK_OK(basalt_parquet_scan_new(rd, NULL, &scan, &err), &err);
    basalt_parquet_scan_select_all(scan);
    CHECK_OK(basalt_parquet_scan_read_all(scan, &batches, &err), &err);
    const struct ArrowSchema *schema = &batches.schema;
    struct basalt_pool *pool;
    CHECK_OK(basalt_pool_new(3, &pool, &err), &err);

    struct bt_rng rng;
    bt_rng_seed(&rng, seed);
    struct spec *specs = calloc((size_t)total, sizeof *specs);
    FILE *f = fopen(qf, "w");
    CHECK(f);
    for (int s = 0; s < total; s++) {
        struct spec *sp = &specs[s];
        sp->nk = 1 + (int)bt_rng_below(&rng, 3);
        char sql[2048] = "SELECT ";
        int used = 0;
        for (int k = 0; k < sp->nk; k++) {
            int kc;
            do
                kc = (int)bt_rng_below(&rng, sizeof key_cols / sizeof key_cols[0]);
            while (used & (1 << kc));
            used |= 1 << kc;
            sp->kcol[k] = find_col(schema, key_cols[kc]);
            CHECK_OK(basalt_query_type_from_format(schema->children[sp->kcol[k]]->format,
                                                   &sp->kt[k], &err), &err);
            sp->kinds[k] = strcmp(key_cols[kc], "k_f") == 0 ? 'D' : 'S';
            snprintf(sql + strlen(sql), sizeof sql - strlen(sql), "%s%s", k ? ", " : "",
                     key_cols[kc]);
        }
        sp->nc = 1 + (int)bt_rng_below(&rng, 4);
        for (int c = 0; c < sp->nc; c++) {
            const struct aspec *a = &aggs[bt_rng_below(&rng, sizeof aggs / sizeof aggs[0])];
            char cols[256], *pick[16], *save = NULL;
            int np = 0;
            snprintf(cols, sizeof cols, "%s", a->cols);
            for (char *t = strtok_r(cols, " ", &save); t; t = strtok_r(NULL, " ", &save))
                pick[np++] = t;
            char *col = np ? pick[bt_rng_below(&rng, (uint64_t)np)] : NULL;
            char *col2 = col ? strchr(col, ':') : NULL;
            if (col2)
                *col2++ = 0;
            struct basalt_qagg_call *call = &sp->calls[c];
            memset(call, 0, sizeof *call);
            call->kind = a->kind;
            call->distinct = a->distinct;
            call->quantile = a->q;
            call->separator = a->kind == BASALT_QAGG_STRING_AGG ? "-" : NULL;
            sp->acol[c] = col ? find_col(schema, col) : -1;
            if (col)
                CHECK_OK(basalt_query_type_from_format(schema->children[sp->acol[c]]->format,
                                                       &call->input, &err), &err);
            sp->acol2[c] = col2 ? find_col(schema, col2) : -1;
            if (col2)
                CHECK_OK(basalt_query_type_from_format(schema->children[sp->acol2[c]]->format,
                                                       &call->input2, &err), &err);
            struct basalt_query_type rt;
            CHECK_OK(basalt_qagg_result_type(call, &rt, &err), &err);
            sp->kinds[sp->nk + c] = rt.id == BASALT_QUERY_TYPE_DOUBLE || rt.id == BASALT_QUERY_TYPE_FLOAT ? 'D' : 'S';
            char agg_sql[256];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
            char ybuf[32], xbuf[32];
            const char *ys = "0", *xs = "0";
            const char *yq = col && col2 ? duck_col(col, ybuf, sizeof ybuf, &ys) : col;
            const char *xq = col2 ? duck_col(col2, xbuf, sizeof xbuf, &xs) : "";
            snprintf(agg_sql, sizeof agg_sql, a->sql, yq ? yq : "", xq, ys, xs);
#pragma GCC diagnostic pop
            if (sp->kinds[sp->nk + c] == 'S')
                snprintf(sql + strlen(sql), sizeof sql - strlen(sql), ", CAST(%s AS VARCHAR)", agg_sql);
            else
                snprintf(sql + strlen(sql), sizeof sql - strlen(sql), ", %s", agg_sql);
        }
        /* keys as text too, except the double key */
        char full[4096];
        snprintf(full, sizeof full, "%s FROM f GROUP BY ALL", sql);
        /* cast the non-double keys to VARCHAR */
        char keys_sql[512] = "";
        for (int k = 0; k < sp->nk; k++)
            snprintf(keys_sql + strlen(keys_sql), sizeof keys_sql - strlen(keys_sql),
                     sp->kinds[k] == 'S' ? "%sCAST(%s AS VARCHAR)" : "%s%s", k ? ", " : "",
                     schema->children[sp->kcol[k]]->name);
        char *rest_sql = sql + strlen("SELECT ");
        for (int k = 0; k < sp->nk; k++)
            rest_sql = strchr(rest_sql, ',') ? strchr(rest_sql, ',') + 1 : rest_sql + strlen(rest_sql);
        char group[256] = "";
        for (int k = 0; k < sp->nk; k++)
            snprintf(group + strlen(group), sizeof group - strlen(group), "%s%s", k ? ", " : "",
                     schema->children[sp->kcol[k]]->name);
        fprintf(f, "%.*s\tSELECT %s,%s FROM f GROUP BY %s\n", sp->nk + sp->nc, sp->kinds, keys_sql,
                rest_sql, group);
        (void)full;
    }
    fclose(f);
    snprintf(cmd, sizeof cmd, "node '%s/tests/query/duckdb_agg.mjs' run '%s' '%s' '%s'",
             BASALT_TEST_SOURCE_DIR, pq, qf, out);
    CHECK_MSG(system(cmd) == 0, "%s failed", cmd);
    FILE *in = fopen(out, "r");
    CHECK(in);
    static char line[1 << 22];
    int mismatches = 0, nondet = 0, compared_rows = 0, both_err = 0;
    if (!fgets(line, sizeof line, in))
        line[0] = 0;
    for (int s = 0; s < total; s++) {
        struct spec *sp = &specs[s];
        bool derr = strstr(line, " ERR ") != NULL;
        char head[512];
        snprintf(head, sizeof head, "%.400s", line);
        char **theirs = NULL;
        int64_t nt = 0, cap = 0;
        while (fgets(line, sizeof line, in) && line[0] != '#') {
            line[strcspn(line, "\n")] = 0;
            if (nt == cap) {
                cap = cap ? cap * 2 : 256;
                theirs = realloc(theirs, sizeof *theirs * (size_t)cap);
            }
            theirs[nt++] = strdup(line);
        }
        if (feof(in) && line[0] != '#')
            line[0] = 0;
        char **ours[3] = {NULL, NULL, NULL};
        int64_t no[3] = {0, 0, 0};
        static const int nls[3] = {1, 2, 4};
        basalt_status st = BASALT_OK;
        for (int m = 0; m < 3 && st == BASALT_OK; m++)
            st = run_spec(sp, &batches, nls[m], m ? seed * 31 + (uint64_t)m : 0, m ? pool : NULL,
                          &ours[m], &no[m], &err);
        char why[2048] = "";
        if (st != BASALT_OK && derr) {
            both_err++;
        } else if (st != BASALT_OK || derr) {
            snprintf(why, sizeof why, "ours: %s; duckdb: %s", st == BASALT_OK ? "ok" : err.message, derr ? head : "ok");
        } else {
            for (int m = 1; m < 3; m++) {
                bool same = no[m] == no[0];
                for (int64_t r = 0; same && r < no[0]; r++)
                    same = strcmp(ours[m][r], ours[0][r]) == 0;
                if (!same) {
                    nondet++;
                    snprintf(why, sizeof why, "output with %d locals differs from 1 local", nls[m]);
                }
            }
            qsort(ours[0], (size_t)no[0], sizeof(char *), cmp_line);
            qsort(theirs, (size_t)nt, sizeof(char *), cmp_line);
            if (!why[0] && nt != no[0])
                snprintf(why, sizeof why, "%lld rows, duckdb %lld", (long long)no[0], (long long)nt);
            for (int64_t r = 0; r < nt && !why[0]; r++) {
                static char a[1 << 22], b[1 << 22];
                char *ca[8], *cb[8];
                snprintf(a, sizeof a, "%s", ours[0][r]);
                snprintf(b, sizeof b, "%s", theirs[r]);
                int na = split_cells(a, ca, 8), nb = split_cells(b, cb, 8);
                if (na != nb) {
                    snprintf(why, sizeof why, "row %lld: %d cells, duckdb %d", (long long)r, na, nb);
                    break;
                }
                for (int c = 0; c < na && !why[0]; c++) {
                    bool ok = sp->kinds[c] == 'D' ? same_double(ca[c], cb[c]) : strcmp(ca[c], cb[c]) == 0;
                    if (!ok)
                        snprintf(why, sizeof why, "row %lld col %d: ours '%.200s', duckdb '%.200s'",
                                 (long long)r, c, ca[c], cb[c]);
                }
                compared_rows++;
            }
        }
        if (why[0]) {
            mismatches++;
            if (mismatches <= 20) {
                FILE *q = fopen(qf, "r");
                char ql[4096] = "";
                for (int k = 0; q && k <= s; k++)
                    if (!fgets(ql, sizeof ql, q))
                        break;
                if (q)
                    fclose(q);
                fprintf(stderr, "  mismatch #%d: %s    %s\n", s, ql, why);
            }
        }
        for (int m = 0; m < 3; m++)
            free_lines(ours[m], no[m]);
        free_lines(theirs, nt);
    }
    fclose(in);
    printf("  agg differential: seed %llu, %ld rows, %d specs, %d result rows compared, "
           "%d errors on both sides, %d mismatches, %d nondeterministic\n",
           (unsigned long long)seed, rows, total, compared_rows, both_err, mismatches, nondet);
    free(specs);
    basalt_pool_free(pool);
    basalt_arrow_batches_reset(&batches);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(rd);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    CHECK_MSG(mismatches == 0, "%d of %d specs differ", mismatches, total);
}
