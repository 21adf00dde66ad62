/* basalt-h2ogen: the H2O db-benchmark tables as Parquet (h2ogen.h says how
 * rows are made).
 *   basalt-h2ogen --rows N [--k K] [--nas PCT] [--sort 0|1] --out DIR [--threads N]
 *   basalt-h2ogen --join --rows N --out DIR [--threads N] */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "h2ogen.h"
#include "gen_common.h"

/* Rows are capped so every domain fits the 32-bit draws and INTEGER keys
 * (1.1 * rows). */
#define MAX_ROWS 1900000000.0

static void usage(FILE *out)
{
    fprintf(out,
            "usage: basalt-h2ogen --rows N [--k K] [--nas PCT] [--sort 0|1] --out DIR [--threads N]\n"
            "       basalt-h2ogen --join --rows N --out DIR [--threads N]\n\n"
            "Group-by (groupby-datagen.R's G1_N_K_NAS_SORT): DIR/x.parquet, N rows, id1..id6 from\n"
            "K groups (id3, id6 from N/K), PCT%% NAs per column (default K 100, NAS 0, SORT 0).\n"
            "--join (join-datagen.R): DIR/x.parquet (N rows), small (N/1e6), medium (N/1e3) and\n"
            "big (N), at least 10 rows each. N and K take 1e7 notation. The files are the same\n"
            "for any thread count.\n");
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *rows_arg = NULL, *k_arg = "100", *nas_arg = "0", *sort_arg = "0";
    bool join = false;
    int threads = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--join") == 0)
            join = true;
        else if (strcmp(a, "--rows") == 0 && i + 1 < argc)
            rows_arg = argv[++i];
        else if (strcmp(a, "--k") == 0 && i + 1 < argc)
            k_arg = argv[++i];
        else if (strcmp(a, "--nas") == 0 && i + 1 < argc)
            nas_arg = argv[++i];
        else if (strcmp(a, "--sort") == 0 && i + 1 < argc)
            sort_arg = argv[++i];
        else if (strcmp(a, "--out") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(a, "--threads") == 0 && i + 1 < argc) {
            threads = atoi(argv[++i]);
            if (threads < 1 || threads > 1024) {
                fprintf(stderr, "basalt-h2ogen: --threads takes 1..1024\n");
                return 2;
            }
        } else {
            usage(stderr);
            return 2;
        }
    }
    int64_t rows, k, nas, sort;
    if (rows_arg == NULL || dir == NULL) {
        usage(stderr);
        return 2;
    }
    if (!gen_parse_count(rows_arg, join ? 10 : 1, MAX_ROWS, &rows)) {
        fprintf(stderr, "basalt-h2ogen: --rows takes a whole number in [%d, 1.9e9]\n",
                join ? 10 : 1);
        return 2;
    }
    if (!gen_parse_count(k_arg, 1, (double)rows, &k) || !gen_parse_count(nas_arg, 0, 100, &nas) ||
        !gen_parse_count(sort_arg, 0, 1, &sort)) {
        fprintf(stderr, "basalt-h2ogen: --k takes 1..rows, --nas 0..100, --sort 0 or 1\n");
        return 2;
    }
    if (join && (nas != 0 || sort != 0)) {
        /* The join benchmark runs its tables without NAs, unsorted. */
        fprintf(stderr, "basalt-h2ogen: --join takes neither --nas nor --sort\n");
        return 2;
    }
    if (!gen_make_dirs(dir)) {
        fprintf(stderr, "basalt-h2ogen: %s: cannot create the directory\n", dir);
        return 1;
    }
    if (threads == 0)
        threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_pool *pool = NULL;
    basalt_status st = BASALT_OK;
    if (threads > 1)
        st = basalt_pool_new(threads - 1, &pool, &err);
    double t0 = gen_now();
    if (st == BASALT_OK && join) {
        struct basalt_h2ogen_join j;
        st = basalt_h2ogen_join_init(&j, rows, &err);
        if (st == BASALT_OK) {
            st = basalt_h2ogen_join_write(&j, dir, pool, &err);
            basalt_h2ogen_join_reset(&j);
        }
    } else if (st == BASALT_OK) {
        struct basalt_h2ogen_groupby g;
        st = basalt_h2ogen_groupby_init(&g, rows, k, (int)nas, sort != 0, &err);
        if (st == BASALT_OK) {
            struct basalt_h2ogen_table t;
            basalt_h2ogen_groupby_table(&g, &t);
            st = basalt_h2ogen_write(&t, dir, pool, &err);
            basalt_h2ogen_groupby_reset(&g);
        }
    }
    if (st == BASALT_OK)
        fprintf(stderr, "%s %lld rows in %s: %.2f s, %d thread%s\n", join ? "join" : "groupby",
                (long long)rows, dir, gen_now() - t0, threads, threads > 1 ? "s" : "");
    else
        fprintf(stderr, "basalt-h2ogen: %s\n", err.message);
    basalt_pool_free(pool);
    return st == BASALT_OK ? 0 : 1;
}
