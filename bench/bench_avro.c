/* Avro decoding of manifest-shaped container files.
 *
 * The workload of the Avro decoder's performance bar: 100,000 records of
 * record ManifestRow { long a; long b; string path; double d; union{null,long}
 * opt } (a = row number, b = a microsecond timestamp near 1.7e15, path = a
 * 63-byte object-store path, d = a random double, opt null about half the
 * time at random), as in shared/peers/avro, written by basalt's writer with
 * 65,536-byte blocks, once with the null codec and once with deflate.
 *
 * One iteration decodes the whole file from memory: the header and schema
 * are parsed, the plan compiled, every block framed, sync-checked,
 * decompressed and decoded, on one thread. Legs of each codec's comparison:
 *   plan-all    every field into arrays (strings as views)   (baseline)
 *   plan-two    only a and path, the rest skipped             (goal: faster)
 *   values      generic value trees, for scale
 * Before timing, each leg's output is folded into a checksum (sum of a, of b
 * as a double, of path lengths, of path[len-9], of d, count and sum of opt)
 * and compared with the one computed while generating the records. The bar:
 * at least 30 million records/s per core for plan-all on the null codec
 * (p50 at most 3.33 ms here). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "basalt/avro.h"
#include "basalt/bench.h"

basalt_status bench_avro_register(struct basalt_bench *bench, struct basalt_error *err);

#define AVRO_ROWS 100000
#define AVRO_BLOCK_BYTES 65536

static const char avro_manifest_schema[] =
    "{\"type\":\"record\",\"name\":\"ManifestRow\",\"namespace\":\"basalt.bench\",\"fields\":["
    "{\"name\":\"a\",\"type\":\"long\"},{\"name\":\"b\",\"type\":\"long\"},"
    "{\"name\":\"path\",\"type\":\"string\"},{\"name\":\"d\",\"type\":\"double\"},"
    "{\"name\":\"opt\",\"type\":[\"null\",\"long\"]}]}";

struct avro_sums {
    int64_t a;
    double b;
    int64_t path_len;
    int64_t path_char;
    double d;
    int64_t opt_count;
    int64_t opt_sum;
};

/* Both files and their expected sums, shared by every leg. */
struct avro_fixture {
    int refs;
    bool built;
    struct basalt_buffer file[2]; /* null, deflate */
    struct avro_sums want;
};

enum avro_leg { AVRO_PLAN_ALL, AVRO_PLAN_TWO, AVRO_VALUES };

struct avro_case {
    struct avro_fixture *fx;
    int codec; /* 0 null, 1 deflate */
    enum avro_leg leg;
    /* output arrays, one block at most per read */
    int64_t *a, *b, *opt;
    double *d;
    struct basalt_avro_bytes *path;
    uint8_t *opt_present;
    struct avro_sums got;
};

static uint64_t avro_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static basalt_status avro_build(struct avro_fixture *fx, struct basalt_error *err)
{
    struct basalt_avro_schema *schema;
    basalt_status st = basalt_avro_schema_parse(avro_manifest_schema, sizeof avro_manifest_schema - 1,
                                                NULL, &schema, err);
    if (st != BASALT_OK)
        return st;
    const struct basalt_avro_node *root = basalt_avro_schema_root(schema);
    struct basalt_avro_writer *w[2] = {NULL, NULL};
    for (int c = 0; c < 2 && st == BASALT_OK; c++) {
        struct basalt_avro_writer_options o;
        basalt_avro_writer_options_init(&o);
        o.codec = c ? BASALT_AVRO_CODEC_DEFLATE : BASALT_AVRO_CODEC_NULL;
        o.block_bytes = AVRO_BLOCK_BYTES;
        o.sync = (const uint8_t *)"basalt-avro-sync";
        basalt_buffer_init(&fx->file[c]);
        st = basalt_avro_writer_new(schema, &o, basalt_avro_write_to_buffer, &fx->file[c], &w[c], err);
    }
    uint64_t seed = 0x5eed5eed5eed5eedull;
    memset(&fx->want, 0, sizeof fx->want);
    for (int64_t i = 0; i < AVRO_ROWS && st == BASALT_OK; i++) {
        char path[80];
        int plen = snprintf(path, sizeof path,
                            "s3://bucket/warehouse/db/table/data/part-%05lld-%08llx.parquet",
                            (long long)(i % 100000),
                            (unsigned long long)(avro_rand(&seed) & 0xffffffffu));
        struct basalt_avro_value f[5], opt;
        memset(f, 0, sizeof f);
        memset(&opt, 0, sizeof opt);
        for (int k = 0; k < 5; k++)
            f[k].node = root->fields[k].type;
        f[0].i = i;
        f[1].i = 1700000000000000 + (int64_t)(avro_rand(&seed) % 100000000000ull);
        f[2].bytes.data = (const uint8_t *)path;
        f[2].bytes.size = (size_t)plen;
        f[3].d = (double)(avro_rand(&seed) >> 11) / 9007199254740992.0 * 1000.0;
        f[4].index = avro_rand(&seed) & 1;
        opt.node = root->fields[4].type->branches[f[4].index];
        opt.i = (int64_t)(avro_rand(&seed) % 1000000);
        f[4].branch = &opt;
        struct basalt_avro_value rec = {.node = root, .count = 5, .items = f};
        for (int c = 0; c < 2 && st == BASALT_OK; c++)
            st = basalt_avro_writer_append(w[c], &rec, err);
        fx->want.a += i;
        fx->want.b += (double)f[1].i;
        fx->want.path_len += plen;
        fx->want.path_char += (uint8_t)path[plen - 9];
        fx->want.d += f[3].d;
        if (f[4].index) {
            fx->want.opt_count++;
            fx->want.opt_sum += opt.i;
        }
    }
    for (int c = 0; c < 2; c++) {
        if (st == BASALT_OK)
            st = basalt_avro_writer_close(w[c], err);
        else
            basalt_avro_writer_free(w[c]);
    }
    basalt_avro_schema_free(schema);
    return st;
}

static void avro_sums_add(struct avro_sums *s, const struct avro_case *c, int64_t n, bool all)
{
    for (int64_t i = 0; i < n; i++) {
        s->a += c->a[i];
        s->path_len += (int64_t)c->path[i].size;
        s->path_char += c->path[i].data[c->path[i].size - 9];
        if (!all)
            continue;
        s->b += (double)c->b[i];
        s->d += c->d[i];
        if (c->opt_present[i]) {
            s->opt_count++;
            s->opt_sum += c->opt[i];
        }
    }
}

static const struct basalt_avro_column avro_all_columns[] = {
    {"a", BASALT_AVRO_SLOT_INT64},  {"b", BASALT_AVRO_SLOT_INT64},
    {"path", BASALT_AVRO_SLOT_BYTES}, {"d", BASALT_AVRO_SLOT_DOUBLE},
    {"opt", BASALT_AVRO_SLOT_INT64}};
static const struct basalt_avro_column avro_two_columns[] = {{"a", BASALT_AVRO_SLOT_INT64},
                                                             {"path", BASALT_AVRO_SLOT_BYTES}};

/* One whole-file decode through a plan, folding the output into c->got. */
static basalt_status avro_decode_plan(struct avro_case *c, struct basalt_error *err)
{
    const struct basalt_buffer *file = &c->fx->file[c->codec];
    bool all = c->leg == AVRO_PLAN_ALL;
    struct basalt_avro_reader *r;
    basalt_status st = basalt_avro_reader_new(file->data, file->size, NULL, &r, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_avro_plan *plan;
    st = basalt_avro_plan_new(basalt_avro_reader_schema(r), NULL,
                              all ? avro_all_columns : avro_two_columns, all ? 5 : 2, &plan, err);
    if (st != BASALT_OK) {
        basalt_avro_reader_free(r);
        return st;
    }
    struct basalt_avro_dest all_dests[5] = {
        {c->a, 0, NULL, 0}, {c->b, 0, NULL, 0}, {c->path, 0, NULL, 0},
        {c->d, 0, NULL, 0}, {c->opt, 0, c->opt_present, 0}};
    struct basalt_avro_dest two_dests[2] = {{c->a, 0, NULL, 0}, {c->path, 0, NULL, 0}};
    for (;;) {
        int64_t n;
        st = basalt_avro_reader_read(r, plan, all ? all_dests : two_dests, AVRO_ROWS, &n, err);
        if (st != BASALT_OK || n == 0)
            break;
        avro_sums_add(&c->got, c, n, all);
    }
    basalt_avro_plan_free(plan);
    basalt_avro_reader_free(r);
    return st;
}

static basalt_status avro_decode_values(struct avro_case *c, struct basalt_error *err)
{
    const struct basalt_buffer *file = &c->fx->file[c->codec];
    struct basalt_avro_reader *r;
    basalt_status st = basalt_avro_reader_new(file->data, file->size, NULL, &r, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 1 << 16);
    for (;;) {
        struct basalt_avro_value v;
        bool has;
        st = basalt_avro_reader_next_value(r, NULL, &arena, &v, &has, err);
        if (st != BASALT_OK || !has)
            break;
        struct avro_sums *s = &c->got;
        s->a += v.items[0].i;
        s->b += (double)v.items[1].i;
        s->path_len += (int64_t)v.items[2].bytes.size;
        s->path_char += v.items[2].bytes.data[v.items[2].bytes.size - 9];
        s->d += v.items[3].d;
        if (v.items[4].index) {
            s->opt_count++;
            s->opt_sum += v.items[4].branch->i;
        }
        basalt_arena_reset(&arena);
    }
    basalt_arena_reset(&arena);
    basalt_avro_reader_free(r);
    return st;
}

static basalt_status avro_once(struct avro_case *c, struct basalt_error *err)
{
    return c->leg == AVRO_VALUES ? avro_decode_values(c, err) : avro_decode_plan(c, err);
}

static basalt_status avro_run(void *ctx, uint64_t iters, struct basalt_error *err)
{
    struct avro_case *c = ctx;
    for (uint64_t i = 0; i < iters; i++) {
        basalt_status st = avro_once(c, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

static basalt_status avro_setup(void *ctx, struct basalt_error *err)
{
    struct avro_case *c = ctx;
    if (!c->fx->built) {
        basalt_status st = avro_build(c->fx, err);
        if (st != BASALT_OK)
            return st;
        c->fx->built = true;
    }
    c->a = basalt_calloc(AVRO_ROWS, sizeof *c->a);
    c->b = basalt_calloc(AVRO_ROWS, sizeof *c->b);
    c->opt = basalt_calloc(AVRO_ROWS, sizeof *c->opt);
    c->d = basalt_calloc(AVRO_ROWS, sizeof *c->d);
    c->path = basalt_calloc(AVRO_ROWS, sizeof *c->path);
    c->opt_present = basalt_calloc(AVRO_ROWS, 1);
    if (!c->a || !c->b || !c->opt || !c->d || !c->path || !c->opt_present)
        return basalt_error_set(err, BASALT_NOMEM, "avro bench: out of memory");
    /* The fixture's layout, then the leg's checksum, before timing. */
    struct basalt_avro_reader *r;
    const struct basalt_buffer *file = &c->fx->file[c->codec];
    basalt_status st = basalt_avro_reader_new(file->data, file->size, NULL, &r, err);
    int64_t blocks = 0, records = 0;
    while (st == BASALT_OK) {
        struct basalt_avro_block b;
        bool has;
        st = basalt_avro_reader_next_block(r, &b, &has, err);
        if (st != BASALT_OK || !has)
            break;
        blocks++;
        records += b.count;
    }
    basalt_avro_reader_free(r);
    if (st != BASALT_OK)
        return st;
    if (records != AVRO_ROWS || blocks < 100 || blocks > 200)
        return basalt_error_set(err, BASALT_INTERNAL,
                                "avro bench: fixture has %lld records in %lld blocks",
                                (long long)records, (long long)blocks);
    memset(&c->got, 0, sizeof c->got);
    if ((st = avro_once(c, err)) != BASALT_OK)
        return st;
    const struct avro_sums *w = &c->fx->want, *g = &c->got;
    bool all = c->leg != AVRO_PLAN_TWO;
    if (g->a != w->a || g->path_len != w->path_len || g->path_char != w->path_char ||
        (all && (memcmp(&g->b, &w->b, sizeof g->b) != 0 || memcmp(&g->d, &w->d, sizeof g->d) != 0 ||
                 g->opt_count != w->opt_count || g->opt_sum != w->opt_sum)))
        return basalt_error_set(err, BASALT_INTERNAL, "avro bench: checksum mismatch");
    return BASALT_OK;
}

static void avro_teardown(void *ctx)
{
    struct avro_case *c = ctx;
    basalt_free(c->a);
    basalt_free(c->b);
    basalt_free(c->opt);
    basalt_free(c->d);
    basalt_free(c->path);
    basalt_free(c->opt_present);
    c->a = c->b = c->opt = NULL;
    c->d = NULL;
    c->path = NULL;
    c->opt_present = NULL;
}

static void avro_release(void *ctx)
{
    struct avro_case *c = ctx;
    struct avro_fixture *fx = c->fx;
    basalt_free(c);
    if (--fx->refs == 0) {
        basalt_buffer_reset(&fx->file[0]);
        basalt_buffer_reset(&fx->file[1]);
        basalt_free(fx);
    }
}

basalt_status bench_avro_register(struct basalt_bench *bench, struct basalt_error *err)
{
    struct avro_fixture *fx = basalt_calloc(1, sizeof *fx);
    if (!fx)
        return basalt_error_set(err, BASALT_NOMEM, "avro bench: out of memory");
    fx->refs = 1; /* held until the last case is registered */
    static const char *const codecs[2] = {"null", "deflate"};
    static const char *const legs[3] = {"plan-all", "plan-two", "values"};
    basalt_status st = BASALT_OK;
    for (int codec = 0; codec < 2 && st == BASALT_OK; codec++) {
        for (int leg = 0; leg < 3 && st == BASALT_OK; leg++) {
            struct avro_case *c = basalt_calloc(1, sizeof *c);
            if (!c) {
                st = basalt_error_set(err, BASALT_NOMEM, "avro bench: out of memory");
                break;
            }
            c->fx = fx;
            c->codec = codec;
            c->leg = (enum avro_leg)leg;
            fx->refs++;
            char name[64], group[64];
            snprintf(name, sizeof name, "avro/manifest/%s/%s", codecs[codec], legs[leg]);
            snprintf(group, sizeof group, "avro manifest %s", codecs[codec]);
            struct basalt_bench_case bc = {
                .name = name,
                .group = group,
                .peer = "basalt",
                .run = avro_run,
                .setup = avro_setup,
                .teardown = avro_teardown,
                .release = avro_release,
                .ctx = c,
                .items_per_iter = AVRO_ROWS,
                .threads = 1,
                .ratio_max = leg == AVRO_PLAN_TWO ? 1.0 : 0,
            };
            st = basalt_bench_add(bench, &bc, err);
        }
    }
    if (--fx->refs == 0)
        basalt_free(fx);
    return st;
}
