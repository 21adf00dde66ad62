/* Avro decoding of manifest-shaped container files.
 *
 * The workload of the Avro decoder's performance bar: 100,000 records of
 * record ManifestRow { long a; long b; string path; double d; union{null,long}
 * opt } (a = row number, b = a microsecond timestamp near 1.7e15, path = a
 * 63-byte object-store path, d = a random double, opt null about half the
 * time at random), written by basalt's writer with 65,536-byte blocks, once
 * with the null codec and once with deflate.
 *
 * One iteration decodes the whole file from memory, on one thread: the header
 * and schema are parsed, every block framed, sync-checked, decompressed and
 * decoded. Legs of each codec's comparison (baseline first):
 *   plan-all    basalt: every field into arrays (strings as views)
 *   plan-two    basalt: only a and path, the rest skipped      (goal: faster)
 *   values      basalt: generic value trees, for scale
 *   avro-c-all  avro-c (Debian libavro) value API: avro_file_reader_fp over
 *               fmemopen, avro_file_reader_read_value into one generic value
 *   avro-c-two  the same through avro_resolved_writer_new to a reader schema
 *               of a and path (avro-c's way of selecting fields)
 * The bar (checked by bench/avro.sh, which also times avsc): plan-all on the
 * null codec at least 30 million records/s per core (p50 at most 3.33 ms),
 * at least 10 times avro-c and 3 times avsc.
 *
 * Deflate block inflation alone, against libdeflate called directly on the
 * same compressed blocks (baseline): basalt_avro_reader_count with verify,
 * which frames, sync-checks and inflates every block through basalt's codec
 * layer without decoding records.
 *
 * Before timing, each decoding leg's output is folded into a checksum (sum of
 * a, of b as a double, of path lengths, of path[len-9], of d, count and sum
 * of opt) and compared with the one computed while generating the records;
 * the inflation legs must produce every block's uncompressed bytes.
 *
 * With BASALT_BENCH_AVRO_DIR set, the two files are also written there as
 * manifest-null.avro and manifest-deflate.avro, with the expected checksum in
 * manifest-sums.json, for the avsc leg (bench/peers/avro_avsc.mjs). */
#include <libdeflate.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef BASALT_BENCH_AVROC
#include <avro.h>
#endif

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

enum avro_leg {
    AVRO_PLAN_ALL,
    AVRO_PLAN_TWO,
    AVRO_VALUES,
    AVRO_AVROC_ALL,
    AVRO_AVROC_TWO,
    AVRO_INFLATE_LIBDEFLATE,
    AVRO_INFLATE_BASALT
};

static const char avro_two_schema[] =
    "{\"type\":\"record\",\"name\":\"ManifestRow\",\"namespace\":\"basalt.bench\",\"fields\":["
    "{\"name\":\"a\",\"type\":\"long\"},{\"name\":\"path\",\"type\":\"string\"}]}";

/* The compressed blocks of the deflate file, for libdeflate's leg. */
struct avro_blocks {
    size_t count;
    const uint8_t **data;
    size_t *size;
    size_t total_out; /* uncompressed bytes of all blocks */
    uint8_t *out;
    size_t out_cap;
    struct libdeflate_decompressor *d;
};

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
    struct avro_blocks blocks;
    size_t inflated; /* bytes inflated by the last iteration */
#ifdef BASALT_BENCH_AVROC
    uint8_t *copy; /* the file, writable for fmemopen */
    avro_schema_t wschema, rschema;
    avro_value_iface_t *iface, *resolver;
    avro_value_t value, resolved;
    bool has_value, has_resolved;
#endif
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

#ifdef BASALT_BENCH_AVROC
static basalt_status avroc_fail(struct basalt_error *err, const char *what)
{
    return basalt_error_set(err, BASALT_INTERNAL, "avro bench: avro-c %s: %s", what,
                            avro_strerror());
}

/* One whole-file decode with avro-c, folding every record into c->got. */
static basalt_status avro_decode_avroc(struct avro_case *c, struct basalt_error *err)
{
    const struct basalt_buffer *file = &c->fx->file[c->codec];
    FILE *fp = fmemopen(c->copy, file->size, "rb");
    if (!fp)
        return basalt_error_set(err, BASALT_IO, "avro bench: fmemopen failed");
    avro_file_reader_t r;
    if (avro_file_reader_fp(fp, "manifest.avro", 1, &r) != 0) {
        fclose(fp);
        return avroc_fail(err, "avro_file_reader_fp");
    }
    bool all = c->leg == AVRO_AVROC_ALL;
    avro_value_t *into = all ? &c->value : &c->resolved;
    struct avro_sums *s = &c->got;
    int rc, bad = 0;
    while ((rc = avro_file_reader_read_value(r, into)) == 0) {
        /* avro-c's accessors are macros that return EINVAL without storing
         * when a value lacks the method: everything starts initialised. */
        avro_value_t f, br;
        int64_t v = 0;
        const char *str = NULL;
        size_t size = 0;
        bad |= avro_value_get_by_index(&c->value, 0, &f, NULL);
        bad |= avro_value_get_long(&f, &v);
        s->a += v;
        bad |= avro_value_get_by_index(&c->value, all ? 2 : 1, &f, NULL);
        bad |= avro_value_get_string(&f, &str, &size);
        if (bad || !str || size < 10)
            break;
        size--; /* avro-c counts the terminating NUL */
        s->path_len += (int64_t)size;
        s->path_char += (uint8_t)str[size - 9];
        if (!all)
            continue;
        double dv = 0;
        int disc = 0;
        bad |= avro_value_get_by_index(&c->value, 1, &f, NULL);
        bad |= avro_value_get_long(&f, &v);
        s->b += (double)v;
        bad |= avro_value_get_by_index(&c->value, 3, &f, NULL);
        bad |= avro_value_get_double(&f, &dv);
        s->d += dv;
        bad |= avro_value_get_by_index(&c->value, 4, &f, NULL);
        bad |= avro_value_get_discriminant(&f, &disc);
        if (disc == 1) {
            v = 0;
            bad |= avro_value_get_current_branch(&f, &br);
            bad |= avro_value_get_long(&br, &v);
            s->opt_count++;
            s->opt_sum += v;
        }
        if (bad)
            break;
    }
    avro_file_reader_close(r);
    if (bad)
        return basalt_error_set(err, BASALT_INTERNAL, "avro bench: avro-c record not as written");
    if (rc != EOF)
        return avroc_fail(err, "avro_file_reader_read_value");
    return BASALT_OK;
}

static basalt_status avroc_setup(struct avro_case *c, struct basalt_error *err)
{
    const struct basalt_buffer *file = &c->fx->file[c->codec];
    c->copy = basalt_malloc(file->size);
    if (!c->copy)
        return basalt_error_set(err, BASALT_NOMEM, "avro bench: out of memory");
    memcpy(c->copy, file->data, file->size);
    if (avro_schema_from_json_length(avro_manifest_schema, sizeof avro_manifest_schema - 1,
                                     &c->wschema) != 0)
        return avroc_fail(err, "writer schema");
    if (c->leg == AVRO_AVROC_ALL) {
        if (!(c->iface = avro_generic_class_from_schema(c->wschema)))
            return avroc_fail(err, "avro_generic_class_from_schema");
        if (avro_generic_value_new(c->iface, &c->value) != 0)
            return avroc_fail(err, "avro_generic_value_new");
        c->has_value = true;
        return BASALT_OK;
    }
    if (avro_schema_from_json_length(avro_two_schema, sizeof avro_two_schema - 1, &c->rschema) != 0)
        return avroc_fail(err, "reader schema");
    if (!(c->iface = avro_generic_class_from_schema(c->rschema)))
        return avroc_fail(err, "avro_generic_class_from_schema");
    if (avro_generic_value_new(c->iface, &c->value) != 0)
        return avroc_fail(err, "avro_generic_value_new");
    c->has_value = true;
    if (!(c->resolver = avro_resolved_writer_new(c->wschema, c->rschema)))
        return avroc_fail(err, "avro_resolved_writer_new");
    if (avro_resolved_writer_new_value(c->resolver, &c->resolved) != 0)
        return avroc_fail(err, "avro_resolved_writer_new_value");
    c->has_resolved = true;
    avro_resolved_writer_set_dest(&c->resolved, &c->value);
    return BASALT_OK;
}

static void avroc_teardown(struct avro_case *c)
{
    if (c->has_resolved)
        avro_value_decref(&c->resolved);
    if (c->has_value)
        avro_value_decref(&c->value);
    if (c->resolver)
        avro_value_iface_decref(c->resolver);
    if (c->iface)
        avro_value_iface_decref(c->iface);
    if (c->rschema)
        avro_schema_decref(c->rschema);
    if (c->wschema)
        avro_schema_decref(c->wschema);
    basalt_free(c->copy);
    c->copy = NULL;
    c->wschema = c->rschema = NULL;
    c->iface = c->resolver = NULL;
    c->has_value = c->has_resolved = false;
}
#endif

/* Every block of the deflate file inflated by libdeflate, from blocks framed
 * before timing. */
static basalt_status avro_inflate_libdeflate(struct avro_case *c, struct basalt_error *err)
{
    struct avro_blocks *b = &c->blocks;
    size_t total = 0;
    for (size_t i = 0; i < b->count; i++) {
        size_t got;
        if (libdeflate_deflate_decompress(b->d, b->data[i], b->size[i], b->out, b->out_cap, &got) !=
            LIBDEFLATE_SUCCESS)
            return basalt_error_set(err, BASALT_CORRUPT, "avro bench: libdeflate failed on block %zu",
                                    i);
        total += got;
    }
    c->inflated = total;
    return BASALT_OK;
}

/* Every block of the deflate file framed, sync-checked and inflated by basalt. */
static basalt_status avro_inflate_basalt(struct avro_case *c, struct basalt_error *err)
{
    const struct basalt_buffer *file = &c->fx->file[c->codec];
    struct basalt_avro_reader *r;
    basalt_status st = basalt_avro_reader_new(file->data, file->size, NULL, &r, err);
    if (st != BASALT_OK)
        return st;
    int64_t n = 0;
    st = basalt_avro_reader_count(r, true, &n, err);
    basalt_avro_reader_free(r);
    if (st == BASALT_OK && n != AVRO_ROWS)
        return basalt_error_set(err, BASALT_INTERNAL, "avro bench: counted %lld records",
                                (long long)n);
    return st;
}

static int64_t avro_varint(const uint8_t **p, const uint8_t *end)
{
    uint64_t v = 0;
    for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80)
            break;
    }
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Frames the deflate file's blocks (count, size, data) at the offsets the
 * reader reports, and sizes libdeflate's output buffer. */
static basalt_status avro_blocks_setup(struct avro_case *c, struct basalt_error *err)
{
    const struct basalt_buffer *file = &c->fx->file[c->codec];
    struct avro_blocks *b = &c->blocks;
    struct basalt_avro_reader *r;
    basalt_status st = basalt_avro_reader_new(file->data, file->size, NULL, &r, err);
    if (st != BASALT_OK)
        return st;
    size_t cap = 0;
    while (st == BASALT_OK) {
        struct basalt_avro_block blk;
        bool has;
        st = basalt_avro_reader_next_block(r, &blk, &has, err);
        if (st != BASALT_OK || !has)
            break;
        if (b->count == cap) {
            size_t ncap = cap ? cap * 2 : 256;
            const uint8_t **nd = basalt_realloc(b->data, ncap * sizeof *nd);
            if (nd)
                b->data = nd;
            size_t *ns = basalt_realloc(b->size, ncap * sizeof *ns);
            if (ns)
                b->size = ns;
            if (!nd || !ns) {
                st = basalt_error_set(err, BASALT_NOMEM, "avro bench: out of memory");
                break;
            }
            cap = ncap;
        }
        const uint8_t *p = file->data + blk.offset, *end = file->data + file->size;
        (void)avro_varint(&p, end);
        int64_t size = avro_varint(&p, end);
        if (size < 0 || (uint64_t)size > (uint64_t)(end - p)) {
            st = basalt_error_set(err, BASALT_INTERNAL, "avro bench: bad block size");
            break;
        }
        b->data[b->count] = p;
        b->size[b->count] = (size_t)size;
        b->count++;
        b->total_out += blk.size;
        if (blk.size > b->out_cap)
            b->out_cap = blk.size;
    }
    basalt_avro_reader_free(r);
    if (st != BASALT_OK)
        return st;
    b->out = basalt_malloc(b->out_cap ? b->out_cap : 1);
    b->d = libdeflate_alloc_decompressor();
    if (!b->out || !b->d)
        return basalt_error_set(err, BASALT_NOMEM, "avro bench: out of memory");
    if ((st = avro_inflate_libdeflate(c, err)) != BASALT_OK)
        return st;
    if (c->inflated != b->total_out)
        return basalt_error_set(err, BASALT_INTERNAL,
                                "avro bench: libdeflate inflated %zu bytes, basalt %zu",
                                c->inflated, b->total_out);
    return BASALT_OK;
}

static void avro_blocks_teardown(struct avro_blocks *b)
{
    if (b->d)
        libdeflate_free_decompressor(b->d);
    basalt_free(b->out);
    basalt_free(b->data);
    basalt_free(b->size);
    memset(b, 0, sizeof *b);
}

/* Writes both files and their checksum under BASALT_BENCH_AVRO_DIR, if set. */
static basalt_status avro_export(const struct avro_fixture *fx, struct basalt_error *err)
{
    const char *dir = getenv("BASALT_BENCH_AVRO_DIR");
    if (!dir || !*dir)
        return BASALT_OK;
    static const char *const names[3] = {"manifest-null.avro", "manifest-deflate.avro",
                                         "manifest-sums.json"};
    for (int k = 0; k < 3; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[k]);
        FILE *f = fopen(path, "wb");
        if (!f)
            return basalt_error_set(err, BASALT_IO, "avro bench: cannot write %s", path);
        bool ok;
        if (k < 2) {
            ok = fwrite(fx->file[k].data, 1, fx->file[k].size, f) == fx->file[k].size;
        } else {
            const struct avro_sums *w = &fx->want;
            ok = fprintf(f,
                         "{\"rows\": %d, \"a\": %lld, \"b\": %.17g, \"path_len\": %lld, "
                         "\"path_char\": %lld, \"d\": %.17g, \"opt_count\": %lld, "
                         "\"opt_sum\": %lld}\n",
                         AVRO_ROWS, (long long)w->a, w->b, (long long)w->path_len,
                         (long long)w->path_char, w->d, (long long)w->opt_count,
                         (long long)w->opt_sum) > 0;
        }
        if (fclose(f) != 0 || !ok)
            return basalt_error_set(err, BASALT_IO, "avro bench: cannot write %s", path);
    }
    return BASALT_OK;
}

static basalt_status avro_once(struct avro_case *c, struct basalt_error *err)
{
    switch (c->leg) {
    case AVRO_PLAN_ALL:
    case AVRO_PLAN_TWO:
        return avro_decode_plan(c, err);
    case AVRO_VALUES:
        return avro_decode_values(c, err);
#ifdef BASALT_BENCH_AVROC
    case AVRO_AVROC_ALL:
    case AVRO_AVROC_TWO:
        return avro_decode_avroc(c, err);
#endif
    case AVRO_INFLATE_LIBDEFLATE:
        return avro_inflate_libdeflate(c, err);
    case AVRO_INFLATE_BASALT:
        return avro_inflate_basalt(c, err);
    default:
        return basalt_error_set(err, BASALT_INTERNAL, "avro bench: leg not built");
    }
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

static void avro_teardown(void *ctx);

static basalt_status avro_setup_case(void *ctx, struct basalt_error *err)
{
    struct avro_case *c = ctx;
    if (!c->fx->built) {
        basalt_status st = avro_build(c->fx, err);
        if (st == BASALT_OK)
            st = avro_export(c->fx, err);
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
    if (c->leg == AVRO_INFLATE_LIBDEFLATE || c->leg == AVRO_INFLATE_BASALT)
        return c->leg == AVRO_INFLATE_LIBDEFLATE ? avro_blocks_setup(c, err)
                                                 : avro_inflate_basalt(c, err);
#ifdef BASALT_BENCH_AVROC
    if ((c->leg == AVRO_AVROC_ALL || c->leg == AVRO_AVROC_TWO) &&
        (st = avroc_setup(c, err)) != BASALT_OK)
        return st;
#endif
    memset(&c->got, 0, sizeof c->got);
    if ((st = avro_once(c, err)) != BASALT_OK)
        return st;
    const struct avro_sums *w = &c->fx->want, *g = &c->got;
    bool all = c->leg != AVRO_PLAN_TWO && c->leg != AVRO_AVROC_TWO;
    if (g->a != w->a || g->path_len != w->path_len || g->path_char != w->path_char ||
        (all && (memcmp(&g->b, &w->b, sizeof g->b) != 0 || memcmp(&g->d, &w->d, sizeof g->d) != 0 ||
                 g->opt_count != w->opt_count || g->opt_sum != w->opt_sum)))
        return basalt_error_set(err, BASALT_INTERNAL, "avro bench: checksum mismatch");
    return BASALT_OK;
}

/* The harness calls teardown only after a successful setup: a failed one
 * cleans up after itself. */
static basalt_status avro_setup(void *ctx, struct basalt_error *err)
{
    basalt_status st = avro_setup_case(ctx, err);
    if (st != BASALT_OK)
        avro_teardown(ctx);
    return st;
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
    avro_blocks_teardown(&c->blocks);
#ifdef BASALT_BENCH_AVROC
    avroc_teardown(c);
#endif
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

struct avro_leg_def {
    int codec;
    enum avro_leg leg;
    const char *name;
    const char *group;
    const char *peer;
    double items;
    double ratio_max;
};

#ifndef BASALT_BENCH_AVROC_VERSION
#define BASALT_BENCH_AVROC_VERSION "(unknown version)"
#endif
#define AVROC_PEER(api) "avro-c " BASALT_BENCH_AVROC_VERSION " " api

/* Registration order is the order of each comparison: its first member is
 * the baseline. With deflate, inflation is about four fifths of plan-all's
 * time, so plan-two's saving there is within the noise of these machines and
 * carries no goal. Inflating through the Avro reader may cost at most 10%
 * over libdeflate alone (framing, sync check, buffer sizing). */
static const struct avro_leg_def avro_legs[] = {
    {0, AVRO_PLAN_ALL, "null/plan-all", "avro manifest null", "basalt", AVRO_ROWS, 0},
    {0, AVRO_PLAN_TWO, "null/plan-two", "avro manifest null", "basalt", AVRO_ROWS, 1.0},
    {0, AVRO_VALUES, "null/values", "avro manifest null", "basalt", AVRO_ROWS, 0},
#ifdef BASALT_BENCH_AVROC
    {0, AVRO_AVROC_ALL, "null/avro-c-all", "avro manifest null",
     AVROC_PEER("avro_file_reader_read_value"), AVRO_ROWS, 0},
    {0, AVRO_AVROC_TWO, "null/avro-c-two", "avro manifest null",
     AVROC_PEER("avro_resolved_writer_new"), AVRO_ROWS, 0},
#endif
    {1, AVRO_PLAN_ALL, "deflate/plan-all", "avro manifest deflate", "basalt", AVRO_ROWS, 0},
    {1, AVRO_PLAN_TWO, "deflate/plan-two", "avro manifest deflate", "basalt", AVRO_ROWS, 0},
    {1, AVRO_VALUES, "deflate/values", "avro manifest deflate", "basalt", AVRO_ROWS, 0},
#ifdef BASALT_BENCH_AVROC
    {1, AVRO_AVROC_ALL, "deflate/avro-c-all", "avro manifest deflate",
     AVROC_PEER("avro_file_reader_read_value"), AVRO_ROWS, 0},
    {1, AVRO_AVROC_TWO, "deflate/avro-c-two", "avro manifest deflate",
     AVROC_PEER("avro_resolved_writer_new"), AVRO_ROWS, 0},
#endif
    {1, AVRO_INFLATE_LIBDEFLATE, "deflate/inflate-libdeflate", "avro deflate inflation",
     "libdeflate " LIBDEFLATE_VERSION_STRING " libdeflate_deflate_decompress", AVRO_ROWS, 0},
    {1, AVRO_INFLATE_BASALT, "deflate/inflate-basalt", "avro deflate inflation",
     "basalt basalt_avro_reader_count(verify)", AVRO_ROWS, 1.10},
};

basalt_status bench_avro_register(struct basalt_bench *bench, struct basalt_error *err)
{
    struct avro_fixture *fx = basalt_calloc(1, sizeof *fx);
    if (!fx)
        return basalt_error_set(err, BASALT_NOMEM, "avro bench: out of memory");
    fx->refs = 1; /* held until the last case is registered */
    basalt_status st = BASALT_OK;
    for (size_t k = 0; k < sizeof avro_legs / sizeof avro_legs[0] && st == BASALT_OK; k++) {
        const struct avro_leg_def *def = &avro_legs[k];
        struct avro_case *c = basalt_calloc(1, sizeof *c);
        if (!c) {
            st = basalt_error_set(err, BASALT_NOMEM, "avro bench: out of memory");
            break;
        }
        c->fx = fx;
        c->codec = def->codec;
        c->leg = def->leg;
        fx->refs++;
        char name[64];
        snprintf(name, sizeof name, "avro/manifest/%s", def->name);
        struct basalt_bench_case bc = {
            .name = name,
            .group = def->group,
            .peer = def->peer,
            .run = avro_run,
            .setup = avro_setup,
            .teardown = avro_teardown,
            .release = avro_release,
            .ctx = c,
            .items_per_iter = def->items,
            .threads = 1,
            .ratio_max = def->ratio_max,
        };
        st = basalt_bench_add(bench, &bc, err);
    }
    if (--fx->refs == 0)
        basalt_free(fx);
    return st;
}
