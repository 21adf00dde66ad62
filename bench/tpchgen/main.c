/* basalt-tpchgen --scale SF --out DIR [--threads N]: the eight TPC-H tables
 * as DIR/<table>.parquet (tpchgen.h says how rows are made). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tpchgen.h"
#include "gen_common.h"

/* The text pool: comments are slices of it (dbgen keeps 300 MB; 8 MiB of
 * sentences gives as many distinct slices as SF 1 has comments). */
#define TEXT_POOL_BYTES (8u << 20)

static void usage(FILE *out)
{
    fprintf(out, "usage: basalt-tpchgen --scale SF --out DIR [--threads N]\n\n"
                 "Writes the eight TPC-H tables (region, nation, supplier, customer, part,\n"
                 "partsupp, orders, lineitem) as DIR/<table>.parquet at scale factor SF\n"
                 "(0.001..1000). The files are the same for any thread count.\n");
}

static void gen_region(const struct basalt_tpchgen_scale *s, int64_t b, int64_t e,
                       struct basalt_tpchgen_batch *p, struct basalt_tpchgen_batch *c)
{
    (void)c;
    basalt_tpchgen_region(s, b, e, p);
}

static void gen_nation(const struct basalt_tpchgen_scale *s, int64_t b, int64_t e,
                       struct basalt_tpchgen_batch *p, struct basalt_tpchgen_batch *c)
{
    (void)c;
    basalt_tpchgen_nation(s, b, e, p);
}

static void gen_supplier(const struct basalt_tpchgen_scale *s, int64_t b, int64_t e,
                         struct basalt_tpchgen_batch *p, struct basalt_tpchgen_batch *c)
{
    (void)c;
    basalt_tpchgen_supplier(s, b, e, p);
}

static void gen_customer(const struct basalt_tpchgen_scale *s, int64_t b, int64_t e,
                         struct basalt_tpchgen_batch *p, struct basalt_tpchgen_batch *c)
{
    (void)c;
    basalt_tpchgen_customer(s, b, e, p);
}

int main(int argc, char **argv)
{
    const char *scale_arg = NULL, *dir = NULL;
    int threads = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--scale") == 0 && i + 1 < argc)
            scale_arg = argv[++i];
        else if (strcmp(a, "--out") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(a, "--threads") == 0 && i + 1 < argc) {
            threads = atoi(argv[++i]);
            if (threads < 1 || threads > 1024) {
                fprintf(stderr, "basalt-tpchgen: --threads takes 1..1024\n");
                return 2;
            }
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (scale_arg == NULL || dir == NULL) {
        usage(stderr);
        return 2;
    }
    char *end;
    double sf = strtod(scale_arg, &end);
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_tpchgen_scale scale;
    if (end == scale_arg || *end != '\0' ||
        basalt_tpchgen_scale_init(&scale, sf, &err) != BASALT_OK) {
        fprintf(stderr, "basalt-tpchgen: bad --scale '%s'%s%s\n", scale_arg,
                err.message[0] ? ": " : "", err.message);
        return 2;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "basalt-tpchgen: %s: cannot create the directory\n", dir);
        return 1;
    }
    if (threads == 0)
        threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    struct basalt_pool *pool = NULL;
    char *text = NULL;
    basalt_status st = BASALT_OK;
    if (threads > 1)
        st = basalt_pool_new(threads - 1, &pool, &err);
    if (st == BASALT_OK)
        st = basalt_tpchgen_text_pool(TEXT_POOL_BYTES, &text, &err);
    scale.pool = text;
    scale.pool_len = TEXT_POOL_BYTES;
    const struct basalt_tpchgen_job jobs[] = {
        {{&basalt_tpchgen_region_spec, NULL}, 5, 5, 0, gen_region},
        {{&basalt_tpchgen_nation_spec, NULL}, 25, 25, 0, gen_nation},
        {{&basalt_tpchgen_supplier_spec, NULL}, scale.suppliers, 122880, 0, gen_supplier},
        {{&basalt_tpchgen_customer_spec, NULL}, scale.customers, 122880, 0, gen_customer},
        /* 30720 parents give about 122880 children per chunk. */
        {{&basalt_tpchgen_part_spec, &basalt_tpchgen_partsupp_spec}, scale.parts, 30720, 4,
         basalt_tpchgen_part},
        {{&basalt_tpchgen_orders_spec, &basalt_tpchgen_lineitem_spec}, scale.orders, 30720, 7,
         basalt_tpchgen_orders},
    };
    double t0 = gen_now();
    for (size_t j = 0; st == BASALT_OK && j < sizeof jobs / sizeof jobs[0]; j++) {
        double t = gen_now();
        st = basalt_tpchgen_run(&jobs[j], &scale, dir, pool, &err);
        if (st == BASALT_OK)
            fprintf(stderr, "%s%s%s: %.2f s\n", jobs[j].specs[0]->name, jobs[j].specs[1] ? "+" : "",
                    jobs[j].specs[1] ? jobs[j].specs[1]->name : "", gen_now() - t);
    }
    if (st == BASALT_OK)
        fprintf(stderr, "SF %g in %s: %.2f s, %d thread%s\n", sf, dir, gen_now() - t0, threads,
                threads > 1 ? "s" : "");
    else
        fprintf(stderr, "basalt-tpchgen: %s\n", err.message);
    basalt_free(text);
    basalt_pool_free(pool);
    return st == BASALT_OK ? 0 : 1;
}
