/* Randomised differential of the window node against DuckDB: DuckDB writes
 * a seeded random table to Parquet (tests/query/duckdb_window.mjs, row
 * groups of 2048 rows), a seeded generator picks window specs (0-2
 * partition keys, 0-2 order keys of every kind, ascending or descending,
 * NULLs first or last, 1-4 functions with random ROWS, RANGE and GROUPS
 * frames, RANGE offsets over one INTEGER, DOUBLE or DATE key, EXCLUDE) and
 * each runs as a plan here (Parquet scan -> WINDOW) and as
 * `SELECT id, f(...) OVER (PARTITION BY ... ORDER BY ... frame) FROM f` in
 * DuckDB. DuckDB orders ties arbitrarily, so a spec either makes its order
 * unique (the row id as last order key) or uses only functions that do not
 * depend on the order within peers (the ranks, aggregates over RANGE,
 * GROUPS and default frames, with or without EXCLUDE). Rows are compared
 * as multisets (doubles to 1e-9 relative, the rest as DuckDB's VARCHAR
 * text); 1, 2 and 4 workers must give identical rows in identical order. Runs only with
 * BASALT_QUERY_WINDOW_DIFFERENTIAL=1 (ctest's differential.query_window);
 * BASALT_WINDOW_SPECS (default 80), BASALT_WINDOW_ROWS (default 20000) and
 * BASALT_RANDOM_SEED change it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basalt/query_plan.h"
#include "query_test_util.h"
#include "test.h"

static const char *const part_cols[] = {"pk_s", "pk_m", "pk_str", "pk_big"};
static const char *const order_cols[] = {"o_i", "o_f", "o_d", "o_s"};

struct fdesc {
    enum basalt_qplan_window_fn fn;
    const char *sql;  /* the call without OVER: %1$s argument, %2$lld integer, %3$s default */
    const char *args; /* space-separated argument columns, "" none */
    bool frame;       /* reads the frame */
    bool ranks;       /* tie-independent without a frame */
};

static const struct fdesc fns[] = {
    {BASALT_QPLAN_WIN_ROW_NUMBER, "row_number()", "", false, false},
    {BASALT_QPLAN_WIN_RANK, "rank()", "", false, true},
    {BASALT_QPLAN_WIN_DENSE_RANK, "dense_rank()", "", false, true},
    {BASALT_QPLAN_WIN_PERCENT_RANK, "percent_rank()", "", false, true},
    {BASALT_QPLAN_WIN_CUME_DIST, "cume_dist()", "", false, true},
    {BASALT_QPLAN_WIN_NTILE, "ntile(%2$lld)", "", false, false},
    {BASALT_QPLAN_WIN_LAG, "lag(%1$s, %2$lld%3$s)", "v_i v_s v_f v_dt v_ts v_d o_i", false, false},
    {BASALT_QPLAN_WIN_LEAD, "lead(%1$s, %2$lld%3$s)", "v_i v_s v_f v_dt v_ts v_d o_i", false, false},
    {BASALT_QPLAN_WIN_FIRST_VALUE, "first_value(%1$s)", "v_i v_s v_f v_dd v_b", true, false},
    {BASALT_QPLAN_WIN_LAST_VALUE, "last_value(%1$s)", "v_i v_s v_f v_dt v_u", true, false},
    {BASALT_QPLAN_WIN_NTH_VALUE, "nth_value(%1$s, %2$lld)", "v_i v_s v_l", true, false},
    {BASALT_QPLAN_WIN_COUNT_STAR, "count(*)", "", true, false},
    {BASALT_QPLAN_WIN_COUNT, "count(%1$s)", "v_i v_s v_f v_b v_ts", true, false},
    {BASALT_QPLAN_WIN_SUM, "sum(%1$s)", "v_i v_l v_f v_d v_dd v_b v_u", true, false},
    {BASALT_QPLAN_WIN_AVG, "avg(%1$s)", "v_i v_l v_f v_d v_dd v_u", true, false},
    {BASALT_QPLAN_WIN_MIN, "min(%1$s)", "v_i v_l v_f v_d v_dd v_s v_b v_dt v_ts v_u", true, false},
    {BASALT_QPLAN_WIN_MAX, "max(%1$s)", "v_i v_l v_f v_d v_dd v_s v_b v_dt v_ts v_u", true, false},
};

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
    snprintf(path, sizeof path, "%s/node_modules/@duckdb/node-api/package.json",
             BASALT_TEST_SOURCE_DIR);
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
    return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)) || fabs(a - b) < 1e-9;
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

struct wspec {
    int np, no, nc;
    int part[2];
    struct basalt_qplan_sort_key ord[3];
    struct basalt_qplan_window_call calls[4];
    char kinds[8];
    char sql[4096];
};

/* A bound's SQL: its offset as the call holds it (a RANGE offset's value
 * when set: DOUBLE, or an INTERVAL of days). */
static const char *bound_sql(enum basalt_qplan_frame_bound b, int64_t off,
                             const struct basalt_query_value *v, char *buf, size_t cap)
{
    char o[40];
    if (v->type.id == BASALT_QUERY_TYPE_DOUBLE)
        snprintf(o, sizeof o, "%.17g", v->v.f);
    else if (v->type.id == BASALT_QUERY_TYPE_INTERVAL)
        snprintf(o, sizeof o, "INTERVAL %d DAY", (int)v->v.interval.days);
    else
        snprintf(o, sizeof o, "%lld", (long long)off);
    switch (b) {
    case BASALT_QPLAN_UNBOUNDED_PRECEDING: return "UNBOUNDED PRECEDING";
    case BASALT_QPLAN_PRECEDING: snprintf(buf, cap, "%s PRECEDING", o); return buf;
    case BASALT_QPLAN_CURRENT_ROW: return "CURRENT ROW";
    case BASALT_QPLAN_FOLLOWING: snprintf(buf, cap, "%s FOLLOWING", o); return buf;
    default: return "UNBOUNDED FOLLOWING";
    }
}

/* Random bounds with offsets 0..3 that SQL accepts (a start before its
 * end, but for offsets: 3 FOLLOWING .. 1 FOLLOWING is empty). */
static void random_bounds(struct bt_rng *rng, struct basalt_qplan_window_call *c)
{
    for (;;) {
        c->start = (enum basalt_qplan_frame_bound)bt_rng_below(rng, 4);
        c->end = (enum basalt_qplan_frame_bound)(1 + bt_rng_below(rng, 4));
        c->start_offset = (int64_t)bt_rng_below(rng, 4);
        c->end_offset = (int64_t)bt_rng_below(rng, 4);
        if (c->start == BASALT_QPLAN_CURRENT_ROW && c->end == BASALT_QPLAN_PRECEDING)
            continue;
        if (c->start == BASALT_QPLAN_FOLLOWING &&
            (c->end == BASALT_QPLAN_PRECEDING || c->end == BASALT_QPLAN_CURRENT_ROW))
            continue;
        return;
    }
}

/* A RANGE offset for an order key of kind `key` ('i' INTEGER, 'f' DOUBLE,
 * 'd' DATE): an integer (days for DATE), a DOUBLE, or an INTERVAL. */
static void range_offset(struct bt_rng *rng, char key, int64_t *off, struct basalt_query_value *v)
{
    memset(v, 0, sizeof *v);
    *off = (int64_t)bt_rng_below(rng, 4);
    if (key == 'f') {
        v->type.id = BASALT_QUERY_TYPE_DOUBLE;
        v->v.f = (double)*off * 0.75;
    } else if (key == 'd' && bt_rng_below(rng, 2)) {
        v->type.id = BASALT_QUERY_TYPE_INTERVAL;
        v->v.interval.days = (int32_t)*off * 2;
    }
}

/* A random frame; in peer mode only those that do not depend on the order
 * within peers (RANGE and GROUPS, or ROWS over the whole partition; EXCLUDE
 * takes out the row or its peers, which keeps them so). RANGE offsets need
 * the one order key `key` ('i', 'f' or 'd'; 0: none that takes them). */
static void random_frame(struct bt_rng *rng, bool peer_mode, char key,
                         struct basalt_qplan_window_call *c)
{
    uint64_t kind = bt_rng_below(rng, 12);
    if (kind < 3) {
        c->has_frame = false;
        return;
    }
    c->has_frame = true;
    if (bt_rng_below(rng, 3) == 0)
        c->exclude = (enum basalt_qplan_frame_exclude)(1 + bt_rng_below(rng, 3));
    if (key != 0 && kind < 8) {
        c->rows = false;
        random_bounds(rng, c);
        range_offset(rng, key, &c->start_offset, &c->start_value);
        range_offset(rng, key, &c->end_offset, &c->end_value);
        return;
    }
    if (kind < 5) {
        /* GROUPS with offsets */
        c->rows = false;
        c->groups = true;
        random_bounds(rng, c);
        return;
    }
    if (kind < 9 || peer_mode) {
        c->rows = peer_mode && bt_rng_below(rng, 4) == 0;
        if (c->rows) {
            c->start = BASALT_QPLAN_UNBOUNDED_PRECEDING;
            c->end = BASALT_QPLAN_UNBOUNDED_FOLLOWING;
            return;
        }
        c->start = bt_rng_below(rng, 2) ? BASALT_QPLAN_UNBOUNDED_PRECEDING : BASALT_QPLAN_CURRENT_ROW;
        c->end = bt_rng_below(rng, 2) ? BASALT_QPLAN_UNBOUNDED_FOLLOWING : BASALT_QPLAN_CURRENT_ROW;
        return;
    }
    c->rows = true;
    random_bounds(rng, c);
}

static basalt_status make_spec(struct bt_rng *rng, const struct ArrowSchema *schema,
                               struct wspec *sp, struct basalt_error *err)
{
    memset(sp, 0, sizeof *sp);
    bool peer_mode = bt_rng_below(rng, 3) == 0;
    sp->np = (int)bt_rng_below(rng, 3);
    int used = 0;
    char over[1024] = "";
    size_t ol = 0;
    for (int k = 0; k < sp->np; k++) {
        int c;
        do
            c = (int)bt_rng_below(rng, 4);
        while (used & (1 << c));
        used |= 1 << c;
        sp->part[k] = find_col(schema, part_cols[c]);
        ol += (size_t)snprintf(over + ol, sizeof over - ol, "%s%s", k ? ", " : "PARTITION BY ",
                               part_cols[c]);
    }
    sp->no = (int)bt_rng_below(rng, 3);
    if (peer_mode && sp->no == 0)
        sp->no = 1;
    used = 0;
    for (int k = 0; k < sp->no; k++) {
        int c;
        do
            c = (int)bt_rng_below(rng, 4);
        while (used & (1 << c));
        used |= 1 << c;
        sp->ord[k].column = find_col(schema, order_cols[c]);
        sp->ord[k].descending = bt_rng_below(rng, 2);
        sp->ord[k].nulls_first = bt_rng_below(rng, 2);
        ol += (size_t)snprintf(over + ol, sizeof over - ol, "%s%s %s NULLS %s",
                               k ? ", " : (sp->np ? " ORDER BY " : "ORDER BY "), order_cols[c],
                               sp->ord[k].descending ? "DESC" : "ASC",
                               sp->ord[k].nulls_first ? "FIRST" : "LAST");
    }
    /* RANGE offsets: one order key, a number or a date */
    char range_key = 0;
    if (peer_mode && sp->no == 1) {
        const char *name = schema->children[sp->ord[0].column]->name;
        range_key = strcmp(name, "o_i") == 0 ? 'i' : strcmp(name, "o_f") == 0 ? 'f'
                  : strcmp(name, "o_d") == 0 ? 'd' : 0;
    }
    if (!peer_mode) {
        sp->ord[sp->no].column = find_col(schema, "id");
        ol += (size_t)snprintf(over + ol, sizeof over - ol, "%sid", sp->no ? ", " : (sp->np ? " ORDER BY " : "ORDER BY "));
        sp->no++;
    }
    sp->nc = 1 + (int)bt_rng_below(rng, 4);
    size_t sl = (size_t)snprintf(sp->sql, sizeof sp->sql, "SELECT CAST(id AS VARCHAR)");
    sp->kinds[0] = 'S';
    for (int i = 0; i < sp->nc; i++) {
        const struct fdesc *f;
        do
            f = &fns[bt_rng_below(rng, sizeof fns / sizeof fns[0])];
        while (peer_mode && !f->ranks && !f->frame);
        if (peer_mode && f->frame && f->fn >= BASALT_QPLAN_WIN_FIRST_VALUE &&
            f->fn <= BASALT_QPLAN_WIN_NTH_VALUE)
            f = &fns[BASALT_QPLAN_WIN_COUNT]; /* which peer is first depends on ties */
        char cols[128], *pick[16], *save = NULL;
        int n = 0;
        snprintf(cols, sizeof cols, "%s", f->args);
        for (char *t = strtok_r(cols, " ", &save); t; t = strtok_r(NULL, " ", &save))
            pick[n++] = t;
        const char *arg = n ? pick[bt_rng_below(rng, (uint64_t)n)] : NULL;
        struct basalt_qplan_window_call *c = &sp->calls[i];
        c->fn = f->fn;
        c->arg = arg ? find_col(schema, arg) : -1;
        c->default_arg = -1;
        c->offset = 1;
        c->rows = true;
        char dflt[64] = "";
        if (f->fn == BASALT_QPLAN_WIN_NTILE)
            c->offset = 1 + (int64_t)bt_rng_below(rng, 7);
        if (f->fn == BASALT_QPLAN_WIN_NTH_VALUE)
            c->offset = 1 + (int64_t)bt_rng_below(rng, 3);
        if (f->fn == BASALT_QPLAN_WIN_LAG || f->fn == BASALT_QPLAN_WIN_LEAD) {
            c->offset = (int64_t)bt_rng_below(rng, 5) - 1;
            if (bt_rng_below(rng, 2)) {
                /* a default of the argument's type: itself, or the other INTEGER */
                const char *d = strcmp(arg, "v_i") == 0 ? "o_i" : strcmp(arg, "o_i") == 0 ? "v_i" : arg;
                c->default_arg = find_col(schema, d);
                snprintf(dflt, sizeof dflt, ", %s", d);
            }
        }
        if (f->frame)
            random_frame(rng, peer_mode, range_key, c);
        /* DuckDB counts a frame that ends before it starts as end - start
         * (COUNT(*) of 3 FOLLOWING .. 1 FOLLOWING is -1): not asked. */
        if (f->fn == BASALT_QPLAN_WIN_COUNT_STAR && c->has_frame &&
            c->start == BASALT_QPLAN_FOLLOWING && c->end == BASALT_QPLAN_FOLLOWING &&
            c->start_offset > c->end_offset)
            c->end = BASALT_QPLAN_UNBOUNDED_FOLLOWING;
        if (f->fn == BASALT_QPLAN_WIN_COUNT_STAR && c->has_frame &&
            c->start == BASALT_QPLAN_PRECEDING && c->end == BASALT_QPLAN_PRECEDING &&
            c->start_offset < c->end_offset)
            c->start = BASALT_QPLAN_UNBOUNDED_PRECEDING;
        char call[256], frame[256] = "";
        if (c->has_frame) {
            char a[96], b[96];
            static const char *const excl[] = {"", " EXCLUDE CURRENT ROW", " EXCLUDE GROUP",
                                               " EXCLUDE TIES"};
            snprintf(frame, sizeof frame, " %s BETWEEN %s AND %s%s",
                     c->rows ? "ROWS" : c->groups ? "GROUPS" : "RANGE",
                     bound_sql(c->start, c->start_offset, &c->start_value, a, sizeof a),
                     bound_sql(c->end, c->end_offset, &c->end_value, b, sizeof b),
                     excl[c->exclude]);
        }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
        snprintf(call, sizeof call, f->sql, arg ? arg : "", (long long)c->offset, dflt);
#pragma GCC diagnostic pop
        /* The result kind: DOUBLE results compare as numbers. */
        bool dbl = f->fn == BASALT_QPLAN_WIN_PERCENT_RANK || f->fn == BASALT_QPLAN_WIN_CUME_DIST ||
                   f->fn == BASALT_QPLAN_WIN_AVG ||
                   (arg && strcmp(arg, "v_f") == 0 && f->fn != BASALT_QPLAN_WIN_COUNT);
        sp->kinds[1 + i] = dbl ? 'D' : 'S';
        if (dbl)
            sl += (size_t)snprintf(sp->sql + sl, sizeof sp->sql - sl, ", %s OVER (%s%s)", call,
                                   over, frame);
        else
            sl += (size_t)snprintf(sp->sql + sl, sizeof sp->sql - sl,
                                   ", CAST(%s OVER (%s%s) AS VARCHAR)", call, over, frame);
    }
    snprintf(sp->sql + sl, sizeof sp->sql - sl, " FROM f");
    (void)err;
    return BASALT_OK;
}

/* Runs the spec as a plan with `workers` workers; the rows as text lines
 * (id, then the calls), in output order. */
static basalt_status run_spec(const struct wspec *sp, const char *path, struct basalt_pool *pool,
                              int workers, char ***lines, int64_t *n_lines,
                              struct basalt_error *err)
{
    *lines = NULL;
    *n_lines = 0;
    struct basalt_qctx_options o;
    basalt_qctx_options_init(&o);
    o.pool = pool;
    o.num_workers = workers;
    struct basalt_qctx *ctx;
    basalt_status st = basalt_qctx_new(&o, &ctx, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_qplan *scan, *node = NULL;
    st = basalt_qplan_scan_parquet(ctx, &path, 1, &scan, err);
    if (st == BASALT_OK)
        st = basalt_qplan_window(ctx, scan, sp->part, sp->np, sp->ord, sp->no, sp->calls, sp->nc,
                                 &node, err);
    struct basalt_arrow_batches out;
    basalt_arrow_batches_init(&out);
    if (st == BASALT_OK)
        st = basalt_qplan_execute(ctx, node, &out, err);
    if (st == BASALT_OK) {
        int64_t total = 0, r = 0;
        for (int64_t b = 0; b < out.n; b++)
            total += out.arrays[b].length;
        char **ls = calloc((size_t)total + 1, sizeof *ls);
        int nin = (int)out.schema.n_children - sp->nc;
        int id = find_col(&out.schema, "id");
        for (int64_t b = 0; b < out.n; b++)
            for (int64_t i = 0; i < out.arrays[b].length; i++, r++) {
                char line[4096] = "", cell[1024];
                size_t len = 0;
                for (int c = -1; c < sp->nc; c++) {
                    int col = c < 0 ? id : nin + c;
                    struct basalt_query_type t;
                    basalt_query_type_from_format(out.schema.children[col]->format, &t, NULL);
                    qt_cell(out.arrays[b].children[col], t, i, cell, sizeof cell);
                    len += (size_t)snprintf(line + len, sizeof line - len, "%s%s",
                                            c >= 0 ? "\x1f" : "", cell);
                }
                ls[r] = strdup(line);
            }
        *lines = ls;
        *n_lines = total;
    }
    basalt_arrow_batches_reset(&out);
    basalt_qctx_free(ctx);
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

TEST(query_window_duckdb_differential)
{
    const char *on = getenv("BASALT_QUERY_WINDOW_DIFFERENTIAL");
    if (!on || strcmp(on, "1") != 0) {
        printf("SKIP query_window_duckdb_differential: run by ctest's differential.query_window\n");
        return;
    }
    if (!have_node()) {
        const char *req = getenv("BASALT_REQUIRE_PEERS");
        CHECK_MSG(!req || strcmp(req, "1") != 0, "node or node_modules/@duckdb/node-api missing");
        printf("SKIP query_window_duckdb_differential: node or @duckdb/node-api missing\n");
        return;
    }
    const char *se = getenv("BASALT_RANDOM_SEED"), *ne = getenv("BASALT_WINDOW_SPECS"),
               *re = getenv("BASALT_WINDOW_ROWS");
    uint64_t seed = se ? strtoull(se, NULL, 10) : 1;
    int total = ne ? atoi(ne) : 80;
    long rows = re ? atol(re) : 20000;
    char dir[] = "/tmp/basalt-windiff-XXXXXX";
    CHECK(mkdtemp(dir));
    char cmd[4096], pq[512], qf[512], out[512];
    snprintf(pq, sizeof pq, "%s/t.parquet", dir);
    snprintf(qf, sizeof qf, "%s/queries.txt", dir);
    snprintf(out, sizeof out, "%s/duckdb.txt", dir);
    snprintf(cmd, sizeof cmd, "node '%s/tests/query/duckdb_window.mjs' table %llu %ld '%s'",
             BASALT_TEST_SOURCE_DIR, (unsigned long long)seed, rows, pq);
    CHECK_MSG(system(cmd) == 0, "%s failed", cmd);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_pool *pool;
    CHECK_OK(basalt_pool_new(3, &pool, &err), &err);
    /* The schema, from a scan node. */
    struct basalt_qctx *sctx;
    CHECK_OK(basalt_qctx_new(NULL, &sctx, &err), &err);
    struct basalt_qplan *scan;
    const char *path = pq;
    CHECK_OK(basalt_qplan_scan_parquet(sctx, &path, 1, &scan, &err), &err);
    const struct ArrowSchema *schema = basalt_qplan_schema(scan);

    struct bt_rng rng;
    bt_rng_seed(&rng, seed);
    struct wspec *specs = calloc((size_t)total, sizeof *specs);
    FILE *f = fopen(qf, "w");
    CHECK(f);
    int n_groups = 0, n_ranged = 0, n_excl = 0;
    for (int s = 0; s < total; s++) {
        CHECK_OK(make_spec(&rng, schema, &specs[s], &err), &err);
        fprintf(f, "%.*s\t%s\n", 1 + specs[s].nc, specs[s].kinds, specs[s].sql);
        for (int c = 0; c < specs[s].nc; c++) {
            const struct basalt_qplan_window_call *k = &specs[s].calls[c];
            bool off = k->start == BASALT_QPLAN_PRECEDING || k->start == BASALT_QPLAN_FOLLOWING ||
                       k->end == BASALT_QPLAN_PRECEDING || k->end == BASALT_QPLAN_FOLLOWING;
            n_groups += k->has_frame && !k->rows && k->groups;
            n_ranged += k->has_frame && !k->rows && !k->groups && off;
            n_excl += k->has_frame && k->exclude != BASALT_QPLAN_EXCLUDE_NO_OTHERS;
        }
    }
    fclose(f);
    snprintf(cmd, sizeof cmd, "node '%s/tests/query/duckdb_agg.mjs' run '%s' '%s' '%s'",
             BASALT_TEST_SOURCE_DIR, pq, qf, out);
    CHECK_MSG(system(cmd) == 0, "%s failed", cmd);
    FILE *in = fopen(out, "r");
    CHECK(in);
    static char line[1 << 16];
    int mismatches = 0, nondet = 0, both_err = 0;
    int64_t compared_rows = 0;
    if (!fgets(line, sizeof line, in))
        line[0] = 0;
    for (int s = 0; s < total; s++) {
        struct wspec *sp = &specs[s];
        bool derr = strstr(line, " ERR ") != NULL;
        char head[512];
        snprintf(head, sizeof head, "%.400s", line);
        char **theirs = NULL;
        int64_t nt = 0, cap = 0;
        while (fgets(line, sizeof line, in) && line[0] != '#') {
            line[strcspn(line, "\n")] = 0;
            if (nt == cap) {
                cap = cap ? cap * 2 : 1024;
                theirs = realloc(theirs, sizeof *theirs * (size_t)cap);
            }
            theirs[nt++] = strdup(line);
        }
        if (feof(in) && line[0] != '#')
            line[0] = 0;
        char **ours[3] = {NULL, NULL, NULL};
        int64_t no[3] = {0, 0, 0};
        static const int nw[3] = {1, 2, 4};
        basalt_status st = BASALT_OK;
        for (int m = 0; m < 3 && st == BASALT_OK; m++)
            st = run_spec(sp, pq, pool, nw[m], &ours[m], &no[m], &err);
        char why[2048] = "";
        if (st != BASALT_OK && derr) {
            both_err++;
        } else if (st != BASALT_OK || derr) {
            snprintf(why, sizeof why, "ours: %s; duckdb: %s", st == BASALT_OK ? "ok" : err.message,
                     derr ? head : "ok");
        } else {
            for (int m = 1; m < 3; m++) {
                bool same = no[m] == no[0];
                for (int64_t r = 0; same && r < no[0]; r++)
                    same = strcmp(ours[m][r], ours[0][r]) == 0;
                if (!same) {
                    nondet++;
                    snprintf(why, sizeof why, "output with %d workers differs from 1 worker", nw[m]);
                }
            }
            qsort(ours[0], (size_t)no[0], sizeof(char *), cmp_line);
            qsort(theirs, (size_t)nt, sizeof(char *), cmp_line);
            if (!why[0] && nt != no[0])
                snprintf(why, sizeof why, "%lld rows, duckdb %lld", (long long)no[0], (long long)nt);
            for (int64_t r = 0; r < nt && !why[0]; r++) {
                static char a[1 << 16], b[1 << 16];
                char *ca[8], *cb[8];
                snprintf(a, sizeof a, "%s", ours[0][r]);
                snprintf(b, sizeof b, "%s", theirs[r]);
                int na = split_cells(a, ca, 8), nb = split_cells(b, cb, 8);
                if (na != nb) {
                    snprintf(why, sizeof why, "row %lld: %d cells, duckdb %d", (long long)r, na, nb);
                    break;
                }
                for (int c = 0; c < na && !why[0]; c++) {
                    bool ok = sp->kinds[c] == 'D' ? same_double(ca[c], cb[c])
                                                  : strcmp(ca[c], cb[c]) == 0;
                    if (!ok)
                        snprintf(why, sizeof why, "row id %s col %d: ours '%.200s', duckdb '%.200s'",
                                 ca[0], c, ca[c], cb[c]);
                }
                compared_rows++;
            }
        }
        if (why[0]) {
            mismatches++;
            if (mismatches <= 20)
                fprintf(stderr, "  mismatch #%d: %s\n    %s\n", s, sp->sql, why);
        }
        for (int m = 0; m < 3; m++)
            free_lines(ours[m], no[m]);
        free_lines(theirs, nt);
    }
    fclose(in);
    printf("  window differential: seed %llu, %ld rows, %d specs (calls over GROUPS frames %d, "
           "RANGE frames with offsets %d, with EXCLUDE %d), %lld "
           "result rows compared, %d errors on both sides, %d mismatches, %d nondeterministic\n",
           (unsigned long long)seed, rows, total, n_groups, n_ranged, n_excl,
           (long long)compared_rows, both_err, mismatches, nondet);
    free(specs);
    basalt_qctx_free(sctx);
    basalt_pool_free(pool);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    CHECK_MSG(mismatches == 0, "%d of %d specs differ", mismatches, total);
}
