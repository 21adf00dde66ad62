/* basalt-taxigen: synthetic NYC yellow-taxi trips as monthly Parquet files
 * (taxigen.h says how rows are made).
 *   basalt-taxigen [--scale N] [--out DIR] [--months 2024-05,2024-06] [--threads N]
 *                  [--row-group ROWS] [--zstd-level L] */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "taxigen.h"
#include "gen_common.h"

#define DEFAULT_SCALE 10000000LL

static void usage(FILE *out)
{
    fprintf(out,
            "usage: basalt-taxigen [--scale N] [--out DIR] [--months 2024-05,2024-06] [--threads N]\n"
            "                      [--row-group ROWS] [--zstd-level L]\n\n"
            "Synthetic NYC yellow-taxi trips, 2023-01..2024-12, with the shapes of the TLC's\n"
            "files: DIR/yellow_tripdata_YYYY-MM.parquet, one file per\n"
            "month, 19 columns with Iceberg field ids 1..19, and DIR/manifest.json.\n\n"
            "  --scale N        total rows over the 24 months (default 10M), split in proportion\n"
            "                   to the TLC's monthly counts; 10M, 1e6, 79_478_796 and 2.5k work\n"
            "  --out DIR        output directory (default ./yellow-<scale>), created if missing\n"
            "  --months LIST    only these months (YYYY-MM, comma-separated); each keeps its\n"
            "                   share of --scale, and the manifest lists the months written\n"
            "  --threads N      threads generating and encoding (default: the CPUs online);\n"
            "                   the files are byte-identical for any N\n"
            "  --row-group ROWS rows per row group (default 1048576)\n"
            "  --zstd-level L   zstd level, -7..22 (default: the codec's, 3)\n");
}

/* A usage error: one line on stderr, exit status 2. */
static int bad_arg(const char *fmt, ...) BASALT_PRINTF(1, 2);
static int bad_arg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "basalt-taxigen: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (--help for usage)\n");
    va_end(ap);
    return 2;
}

static bool parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

/* Marks the months named in "2024-05,2024-06". */
static bool parse_months(const char *s, bool selected[TAXIGEN_MONTHS])
{
    const char *p = s;
    for (;;) {
        int year, month, used = 0;
        if (sscanf(p, "%4d-%2d%n", &year, &month, &used) != 2 || used != 7 || month < 1 ||
            month > 12 || year < TAXIGEN_FIRST_YEAR || year > TAXIGEN_FIRST_YEAR + 1)
            return false;
        selected[(year - TAXIGEN_FIRST_YEAR) * 12 + month - 1] = true;
        p += used;
        if (*p == '\0')
            return true;
        if (*p++ != ',')
            return false;
    }
}

/* 1234567 as "1,234,567". */
static const char *grouped(int64_t v, char buf[32])
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%lld", (long long)v), k = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[k++] = ',';
        buf[k++] = digits[i];
    }
    buf[k] = '\0';
    return buf;
}

int main(int argc, char **argv)
{
    int64_t scale = DEFAULT_SCALE, row_group = 1048576;
    const char *dir = NULL;
    int threads = 0, zstd_level = BASALT_CODEC_LEVEL_DEFAULT;
    bool selected[TAXIGEN_MONTHS] = {false}, only = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        /* --key value or --key=value. */
        char key[32];
        const char *eq = strchr(a, '=');
        size_t klen = eq != NULL ? (size_t)(eq - a) : strlen(a);
        if (klen >= sizeof key)
            return bad_arg("unknown option %s", a);
        memcpy(key, a, klen);
        key[klen] = '\0';
        if (eq != NULL)
            v = eq + 1;
        else if (i + 1 < argc)
            v = argv[++i];
        else if (strncmp(a, "--", 2) == 0)
            return bad_arg("%s needs a value", a);
        else
            return bad_arg("unexpected argument %s", a);
        if (strcmp(key, "--scale") == 0) {
            if (!gen_parse_count(v, 24, (double)TAXIGEN_MAX_SCALE, &scale))
                return bad_arg("--scale takes a whole number of rows from 24 to 1e11, not '%s'", v);
        } else if (strcmp(key, "--out") == 0) {
            if (*v == '\0')
                return bad_arg("--out takes a directory");
            dir = v;
        } else if (strcmp(key, "--months") == 0) {
            if (!parse_months(v, selected))
                return bad_arg("--months takes months 2023-01..2024-12 as YYYY-MM,YYYY-MM, not '%s'",
                               v);
            only = true;
        } else if (strcmp(key, "--threads") == 0) {
            if (!parse_int(v, 1, 1024, &threads))
                return bad_arg("--threads takes 1..1024, not '%s'", v);
        } else if (strcmp(key, "--row-group") == 0) {
            if (!gen_parse_count(v, 1, 2147483647.0, &row_group))
                return bad_arg("--row-group takes a whole number of rows from 1, not '%s'", v);
        } else if (strcmp(key, "--zstd-level") == 0) {
            if (!parse_int(v, -7, 22, &zstd_level))
                return bad_arg("--zstd-level takes -7..22, not '%s'", v);
        } else {
            return bad_arg("unknown option %s", a);
        }
    }
    char default_dir[64];
    if (dir == NULL) {
        snprintf(default_dir, sizeof default_dir, "yellow-%lld", (long long)scale);
        dir = default_dir;
    }
    if (!gen_make_dirs(dir)) {
        fprintf(stderr, "basalt-taxigen: %s: cannot create the directory: %s\n", dir,
                strerror(errno));
        return 1;
    }
    if (threads == 0)
        threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (threads < 1)
        threads = 1;

    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_pool *pool = NULL;
    basalt_status st = BASALT_OK;
    if (threads > 1)
        st = basalt_pool_new(threads - 1, &pool, &err);
    struct basalt_taxigen_zones zones;
    basalt_taxigen_zones_init(&zones);
    int64_t counts[TAXIGEN_MONTHS];
    basalt_taxigen_month_counts(scale, counts);
    struct basalt_taxigen_options o = {row_group, zstd_level, pool};
    /* A month's hour table is 12 KB: one lives on the heap, reused. */
    struct basalt_taxigen_month *m = basalt_malloc(sizeof *m);
    if (st == BASALT_OK && m == NULL)
        st = basalt_error_set(&err, BASALT_NOMEM, "out of memory");
    struct basalt_taxigen_file files[TAXIGEN_MONTHS];
    int num_files = 0;
    int64_t rows = 0, bytes = 0;
    double t0 = gen_now();
    for (int i = 0; i < TAXIGEN_MONTHS && st == BASALT_OK; i++) {
        if (only && !selected[i])
            continue;
        basalt_taxigen_month_init(m, i, counts[i]);
        char path[4096], a[32];
        if ((size_t)snprintf(path, sizeof path, "%s/yellow_tripdata_%s.parquet", dir, m->tag) >=
            sizeof path) {
            st = basalt_error_set(&err, BASALT_INVALID_ARG, "%s: output path too long", dir);
            break;
        }
        double tm = gen_now();
        int64_t size = 0;
        st = basalt_taxigen_write_month(&zones, m, path, &o, &size, &err);
        if (st != BASALT_OK)
            break;
        struct basalt_taxigen_file *f = &files[num_files++];
        memcpy(f->month, m->tag, sizeof f->month);
        f->rows = m->rows;
        f->flex_rows = m->flex_rows;
        f->bytes = size;
        rows += m->rows;
        bytes += size;
        printf("%s: %11s rows  %7.2f MiB  %5.2f B/row  %5.2f s\n", path, grouped(m->rows, a),
               (double)size / 1048576, (double)size / (double)m->rows, gen_now() - tm);
        fflush(stdout);
    }
    if (st == BASALT_OK)
        st = basalt_taxigen_manifest(dir, scale, row_group, zstd_level, files, num_files, &err);
    if (st == BASALT_OK) {
        char a[32];
        printf("done: %s rows, %.1f MiB, %.2f B/row, %.1f s, %d thread%s\n", grouped(rows, a),
               (double)bytes / 1048576, rows > 0 ? (double)bytes / (double)rows : 0.0, gen_now() - t0,
               threads, threads > 1 ? "s" : "");
    } else {
        fprintf(stderr, "basalt-taxigen: %s\n", err.message);
    }
    basalt_free(m);
    basalt_pool_free(pool);
    return st == BASALT_OK ? 0 : 1;
}
