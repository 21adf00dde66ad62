/* basalt parquet rewrite IN OUT: reads a Parquet file and writes its rows
 * again with the writer's options (codec, row groups, pages, encodings).
 * With --repeat it is the write benchmark: the rows are read into memory
 * once, then written K times into memory and timed. */
#include <math.h>
#include <stdlib.h>
#if defined(__GLIBC__) || defined(__linux__)
#include <malloc.h>
#endif
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "basalt/parquet.h"
#include "basalt/parquet_writer.h"
#include "cli.h"


#define MAX_ENCODINGS 64

static void usage(FILE *f)
{
    fprintf(f,
            "usage: basalt parquet rewrite IN OUT [--codec C] [--level L]\n"
            "         [--row-group-size ROWS] [--page-size BYTES] [--dictionary on|off]\n"
            "         [--encoding COL=ENC]... [--page-version 1|2] [--bloom COL]...\n"
            "         [--page-index on|off] [--page-statistics on|off]\n"
            "         [--threads N] [--repeat K [--warmup W] [--keep-memory on|off]]\n"
            "         [--simple-paths on|off]\n"
            "  --repeat K  read IN into memory once, then write it K times into memory\n"
            "              (after W untimed writes, default 1) and print the rows, the\n"
            "              size of the file and the p50 and p90 time of one write\n"
            "              (open, encode, compress, footer) and the p50 of the CPU time\n"
            "              it took (all threads); OUT is written once after.\n"
            "  --keep-memory off  give freed memory back to the system between the\n"
            "              timed writes (default on: kept for the next write, as\n"
            "              allocators such as jemalloc keep it)\n"
            "  IN and OUT are local paths or URIs (s3://, gs://, az://; IN also http(s)://);\n"
            "  the object-store options are in 'basalt --help'.\n"
            "  --simple-paths on  the writer's reference paths, value by value (the same\n"
            "              file, slower: for checking the fast paths)\n"
            "  --page-index off  no ColumnIndex and OffsetIndex (default on)\n"
            "  --page-statistics off  no statistics in the data page headers (default on)\n"
            "  A progress bar goes to stderr when it is a terminal.\n"
            "  codecs: uncompressed snappy gzip brotli lz4 zstd lz4_raw\n"
            "  encodings: PLAIN RLE_DICTIONARY DELTA_BINARY_PACKED DELTA_LENGTH_BYTE_ARRAY\n"
            "             DELTA_BYTE_ARRAY BYTE_STREAM_SPLIT\n"
            "encryption (Parquet modular encryption):\n"
            "  --key-file PATH, --aad-prefix TEXT  keys to read an encrypted IN (the format\n"
            "              is in 'basalt parquet cat --help')\n"
            "  --encrypt KEY  encrypt OUT with this footer key; every column with it unless\n"
            "              --encrypt-column names some. KEY is hex or base64, or @NAME for\n"
            "              the key NAME of --key-file, stored as the key metadata too\n"
            "  --encrypt-column COL[=KEY]  encrypt leaf column COL, with its own KEY (same\n"
            "              forms) or the footer key; the other columns stay plaintext\n"
            "  --footer-key-metadata TEXT  key metadata stored for the footer key\n"
            "  --plaintext-footer  leave the footer readable (signed with the footer key)\n"
            "  --algorithm gcm|ctr  AES_GCM_V1 (default) or AES_GCM_CTR_V1 (pages in CTR)\n"
            "  --encrypt-aad-prefix TEXT  AAD prefix, stored in OUT unless\n"
            "  --skip-aad-prefix-storage  (then readers must be given it)\n");
}

static bool parse_int(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static bool parse_encoding(const char *name, int32_t *out)
{
    for (int32_t e = 0; e <= 16; e++) {
        const char *n = basalt_thrift_parquet_encoding_name(e);
        if (n && strcasecmp(n, name) == 0) {
            *out = e;
            return true;
        }
    }
    return false;
}

struct rewrite_args {
    const char *in, *out;
    struct basalt_parquet_writer_options wo;
    struct basalt_parquet_writer_column_encoding enc[MAX_ENCODINGS];
    char *enc_names[MAX_ENCODINGS];
    size_t nenc;
    const char *bloom[MAX_ENCODINGS];
    size_t nbloom;
    int threads;
    int repeat;
    int warmup;
    bool release_memory;
    /* encryption: IN's keys, OUT's options (keys resolved after parsing) */
    struct cli_keys keys;
    const char *encrypt;                 /* --encrypt KEY */
    const char *footer_meta;             /* --footer-key-metadata */
    const char *col_spec[MAX_ENCODINGS]; /* --encrypt-column COL[=KEY] */
    size_t ncol;
    struct basalt_parquet_encryption enc_opts;
    uint8_t footer_key[BASALT_PARQUET_MAX_KEY_SIZE];
    struct basalt_parquet_column_encryption cenc[MAX_ENCODINGS];
    char *cenc_names[MAX_ENCODINGS];
    uint8_t ckeys[MAX_ENCODINGS][BASALT_PARQUET_MAX_KEY_SIZE];
};

/* A key on the command line: hex or base64, or @NAME from the key file
 * (*meta then NAME, the key metadata stored for it). */
static int resolve_key(struct rewrite_args *a, const char *text, uint8_t *key, size_t *len,
                       const char **meta)
{
    *meta = NULL;
    if (text[0] == '@') {
        const struct cli_key_entry *e = cli_keys_find(&a->keys, text + 1);
        if (!e)
            return cli_usage_error("parquet rewrite: no key '%s' in the key file", text + 1);
        memcpy(key, e->key, e->len);
        *len = e->len;
        *meta = text + 1;
        return CLI_OK;
    }
    struct basalt_error err;
    if (basalt_parquet_key_parse(text, key, len, &err) != BASALT_OK)
        return cli_usage_error("parquet rewrite: %s", err.message);
    return CLI_OK;
}

/* The writer's encryption options from --encrypt and friends. */
static int encryption_options(struct rewrite_args *a)
{
    if (!a->encrypt) {
        if (a->ncol || a->footer_meta || a->enc_opts.plaintext_footer ||
            a->enc_opts.aad_prefix || a->enc_opts.algorithm)
            return cli_usage_error("parquet rewrite: encryption options without --encrypt");
        return CLI_OK;
    }
    struct basalt_parquet_encryption *e = &a->enc_opts;
    const char *meta = NULL;
    int rc = resolve_key(a, a->encrypt, a->footer_key, &e->footer_key_len, &meta);
    if (rc != CLI_OK)
        return rc;
    e->footer_key = a->footer_key;
    if (a->footer_meta)
        meta = a->footer_meta;
    if (meta) {
        e->footer_key_metadata = (const uint8_t *)meta;
        e->footer_key_metadata_len = strlen(meta);
    }
    for (size_t i = 0; i < a->ncol; i++) {
        const char *spec = a->col_spec[i];
        const char *eq = strchr(spec, '=');
        size_t n = eq ? (size_t)(eq - spec) : strlen(spec);
        if (n == 0)
            return cli_usage_error("parquet rewrite: --encrypt-column wants COL[=KEY]");
        a->cenc_names[i] = strndup(spec, n);
        if (!a->cenc_names[i])
            return cli_fail("out of memory");
        struct basalt_parquet_column_encryption *c = &a->cenc[i];
        c->column = a->cenc_names[i];
        if (eq) {
            rc = resolve_key(a, eq + 1, a->ckeys[i], &c->key_len, &meta);
            if (rc != CLI_OK)
                return rc;
            c->key = a->ckeys[i];
            if (meta) {
                c->key_metadata = (const uint8_t *)meta;
                c->key_metadata_len = strlen(meta);
            }
        }
    }
    e->columns = a->cenc;
    e->num_columns = a->ncol;
    a->wo.encryption = e;
    return CLI_OK;
}

static int parse(int argc, char **argv, struct rewrite_args *a)
{
    basalt_parquet_writer_options_init(&a->wo);
    a->warmup = 1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (cli_is_help(arg)) {
            usage(stdout);
            return -1;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            if (!a->in)
                a->in = arg;
            else if (!a->out)
                a->out = arg;
            else
                return cli_usage_error("parquet rewrite: unexpected argument '%s'", arg);
            continue;
        }
        if (strcmp(arg, "--plaintext-footer") == 0) {
            a->enc_opts.plaintext_footer = true;
            continue;
        }
        if (strcmp(arg, "--skip-aad-prefix-storage") == 0) {
            a->enc_opts.skip_aad_prefix_storage = true;
            continue;
        }
        if (i + 1 >= argc)
            return cli_usage_error("parquet rewrite: %s wants a value", arg);
        const char *val = argv[++i];
        long long n;
        bool taken = false;
        int krc = cli_keys_option(&a->keys, arg, val, &taken);
        if (krc != CLI_OK)
            return krc;
        if (taken)
            continue;
        if (strcmp(arg, "--encrypt") == 0) {
            a->encrypt = val;
        } else if (strcmp(arg, "--encrypt-column") == 0) {
            if (a->ncol == MAX_ENCODINGS)
                return cli_usage_error("parquet rewrite: too many --encrypt-column options");
            a->col_spec[a->ncol++] = val;
        } else if (strcmp(arg, "--footer-key-metadata") == 0) {
            a->footer_meta = val;
        } else if (strcmp(arg, "--encrypt-aad-prefix") == 0) {
            a->enc_opts.aad_prefix = (const uint8_t *)val;
            a->enc_opts.aad_prefix_len = strlen(val);
        } else if (strcmp(arg, "--algorithm") == 0) {
            if (strcmp(val, "gcm") == 0)
                a->enc_opts.algorithm = BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_V1;
            else if (strcmp(val, "ctr") == 0)
                a->enc_opts.algorithm = BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1;
            else
                return cli_usage_error("parquet rewrite: --algorithm wants gcm or ctr");
        } else if (strcmp(arg, "--codec") == 0) {
            enum basalt_codec_kind k;
            if (basalt_codec_parse_name(val, &k, NULL) != BASALT_OK || k == BASALT_CODEC_ZLIB ||
                k == BASALT_CODEC_DEFLATE || k == BASALT_CODEC_BZIP2 || k == BASALT_CODEC_XZ)
                return cli_usage_error("parquet rewrite: unknown Parquet codec '%s'", val);
            a->wo.codec = k;
        } else if (strcmp(arg, "--level") == 0) {
            if (!parse_int(val, -131072, 22, &n))
                return cli_usage_error("parquet rewrite: bad --level '%s'", val);
            a->wo.codec_level = (int)n;
        } else if (strcmp(arg, "--row-group-size") == 0) {
            if (!parse_int(val, 1, INT64_MAX, &n))
                return cli_usage_error("parquet rewrite: bad --row-group-size '%s'", val);
            a->wo.row_group_rows = n;
        } else if (strcmp(arg, "--page-size") == 0) {
            if (!parse_int(val, 1, INT32_MAX, &n))
                return cli_usage_error("parquet rewrite: bad --page-size '%s'", val);
            a->wo.page_bytes = n;
        } else if (strcmp(arg, "--dictionary") == 0) {
            if (strcmp(val, "on") != 0 && strcmp(val, "off") != 0)
                return cli_usage_error("parquet rewrite: --dictionary wants on or off");
            a->wo.dictionary = strcmp(val, "on") == 0;
        } else if (strcmp(arg, "--page-index") == 0 || strcmp(arg, "--page-statistics") == 0) {
            if (strcmp(val, "on") != 0 && strcmp(val, "off") != 0)
                return cli_usage_error("parquet rewrite: %s wants on or off", arg);
            if (arg[7] == 'i')
                a->wo.page_index = strcmp(val, "on") == 0;
            else
                a->wo.skip_page_statistics = strcmp(val, "off") == 0;
        } else if (strcmp(arg, "--page-version") == 0) {
            if (!parse_int(val, 1, 2, &n))
                return cli_usage_error("parquet rewrite: --page-version wants 1 or 2");
            a->wo.page_version = (int)n;
        } else if (strcmp(arg, "--threads") == 0) {
            if (!parse_int(val, 1, 1024, &n))
                return cli_usage_error("parquet rewrite: --threads wants 1..1024, got '%s'", val);
            a->threads = (int)n;
        } else if (strcmp(arg, "--repeat") == 0) {
            if (!parse_int(val, 1, 1000000, &n))
                return cli_usage_error("parquet rewrite: --repeat wants a positive count, got '%s'",
                                       val);
            a->repeat = (int)n;
        } else if (strcmp(arg, "--warmup") == 0) {
            if (!parse_int(val, 0, 1000, &n))
                return cli_usage_error("parquet rewrite: --warmup wants 0..1000, got '%s'", val);
            a->warmup = (int)n;
        } else if (strcmp(arg, "--keep-memory") == 0) {
            if (strcmp(val, "on") != 0 && strcmp(val, "off") != 0)
                return cli_usage_error("parquet rewrite: --keep-memory wants on or off");
            a->release_memory = strcmp(val, "off") == 0;
        } else if (strcmp(arg, "--simple-paths") == 0) {
            if (strcmp(val, "on") != 0 && strcmp(val, "off") != 0)
                return cli_usage_error("parquet rewrite: --simple-paths wants on or off");
            a->wo.simple_paths = strcmp(val, "on") == 0;
        } else if (strcmp(arg, "--encoding") == 0) {
            const char *eq = strchr(val, '=');
            int32_t e;
            if (!eq || eq == val || !parse_encoding(eq + 1, &e))
                return cli_usage_error("parquet rewrite: --encoding wants COL=ENC, got '%s'", val);
            if (a->nenc == MAX_ENCODINGS)
                return cli_usage_error("parquet rewrite: too many --encoding options");
            char *col = malloc((size_t)(eq - val) + 1);
            if (!col)
                return cli_fail("out of memory");
            memcpy(col, val, (size_t)(eq - val));
            col[eq - val] = '\0';
            a->enc_names[a->nenc] = col;
            a->enc[a->nenc].column = col;
            a->enc[a->nenc].encoding = e;
            a->nenc++;
        } else if (strcmp(arg, "--bloom") == 0) {
            if (a->nbloom == MAX_ENCODINGS)
                return cli_usage_error("parquet rewrite: too many --bloom options");
            a->bloom[a->nbloom++] = val;
        } else {
            return cli_usage_error("parquet rewrite: unknown option '%s'", arg);
        }
    }
    if (!a->in || !a->out)
        return cli_usage_error("parquet rewrite: wants IN and OUT (see --help)");
    a->wo.column_encodings = a->enc;
    a->wo.num_column_encodings = a->nenc;
    a->wo.bloom_columns = a->bloom;
    a->wo.num_bloom_columns = a->nbloom;
    if (a->enc_opts.skip_aad_prefix_storage && !a->enc_opts.aad_prefix)
        return cli_usage_error("parquet rewrite: --skip-aad-prefix-storage without "
                               "--encrypt-aad-prefix");
    return encryption_options(a);
}

/* The input's key-value pairs but ARROW:schema (the writer makes its own),
 * as Arrow metadata into `buf`. */
static basalt_status copy_kv(const struct basalt_parquet_file_metadata *md,
                             struct basalt_buffer *buf, struct basalt_error *err)
{
    for (size_t i = 0; md->has_key_value_metadata && i < md->num_key_value_metadata; i++) {
        const struct basalt_parquet_key_value *kv = &md->key_value_metadata[i];
        if (strcmp(kv->key.data, "ARROW:schema") == 0)
            continue;
        basalt_status st = basalt_arrow_metadata_append(
            buf, kv->key.data, kv->key.len, kv->has_value ? kv->value.data : "",
            kv->has_value ? kv->value.len : 0, err);
        if (st != BASALT_OK)
            return st;
    }
    return BASALT_OK;
}

/* The writer of OUT: a local file, or a remote object through the store
 * (uploaded in parts as the writer goes; committed by finish). */
static basalt_status open_writer(const char *out, const struct ArrowSchema *schema,
                                 const struct basalt_parquet_writer_options *wo,
                                 struct basalt_parquet_writer **w, struct basalt_error *err)
{
    if (!cli_is_remote(out))
        return basalt_parquet_writer_open_file(out, schema, wo, w, err);
    struct basalt_output *o = NULL;
    basalt_status st = cli_open_output(out, 0, &o, err);
    if (st != BASALT_OK)
        return st;
    return basalt_parquet_writer_open(o, true /* owns */, schema, wo, w, err);
}

/* "rewrite: [#####     ] 1200000 / 2400000 rows" on stderr, redrawn in place. */
static void progress(int64_t done, int64_t total)
{
    enum { WIDTH = 30 };
    int filled = total > 0 ? (int)(done * WIDTH / total) : WIDTH;
    char bar[WIDTH + 1];
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < filled ? '#' : ' ';
    bar[WIDTH] = '\0';
    fprintf(stderr, "\rrewrite: [%s] %lld / %lld rows", bar, (long long)done, (long long)total);
    fflush(stderr);
}

/* The timed writes' sink: the file in one block grown by doubling through
 * basalt_realloc, which moves a large block without copying it, so the
 * bytes are copied once, as a write into a file in memory (the peers' tmpfs)
 * copies them once. Each write gets a new block. */
struct sink {
    struct basalt_output base;
    uint8_t *data;
    size_t size, cap;
};

static basalt_status sink_write(struct basalt_output *out, const void *data, size_t len,
                                struct basalt_error *err)
{
    struct sink *k = (struct sink *)out;
    if (len > k->cap - k->size) {
        size_t cap = k->cap ? k->cap : (size_t)1 << 16;
        while (cap - k->size < len) {
            if (cap > SIZE_MAX / 2)
                return basalt_error_set(err, BASALT_LIMIT, "%s: too large", out->name);
            cap *= 2;
        }
        uint8_t *p = basalt_realloc(k->data, cap);
        if (!p)
            return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory", out->name);
        k->data = p;
        k->cap = cap;
    }
    memcpy(k->data + k->size, data, len);
    k->size += len;
    return BASALT_OK;
}

static basalt_status sink_commit(struct basalt_output *out, struct basalt_error *err)
{
    (void)out;
    (void)err;
    return BASALT_OK;
}

static void sink_close(struct basalt_output *out)
{
    struct sink *k = (struct sink *)out;
    basalt_free(k->data);
    basalt_free(k);
}

static const struct basalt_output_ops sink_ops = {sink_write, sink_commit, sink_close};

/* Writes every batch of `batches` into a new sink; *size gets the file's
 * length. */
static basalt_status write_memory(struct rewrite_args *a, const struct basalt_arrow_batches *batches,
                                  size_t *size, struct basalt_error *err)
{
    struct basalt_parquet_writer *w = NULL;
    struct sink *k = basalt_calloc(1, sizeof *k);
    if (!k)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    k->base.ops = &sink_ops;
    k->base.name = "rewrite";
    /* The writer owns the sink and closes it; its size is read before. */
    basalt_status st = basalt_parquet_writer_open(&k->base, true, &batches->schema, &a->wo, &w,
                                                  err);
    for (int64_t i = 0; st == BASALT_OK && i < batches->n; i++)
        st = basalt_parquet_writer_write(w, &batches->arrays[i], err);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_finish(w, err);
    if (st == BASALT_OK)
        *size = k->size;
    basalt_parquet_writer_close(w);
    return st;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double percentile(const double *v, int n, double p)
{
    int k = (int)ceil(p * n);
    return v[(k < 1 ? 1 : k) - 1];
}

/* The write benchmark (--repeat): times whole writes of rows already in memory. */
static basalt_status time_writes(struct rewrite_args *a, struct basalt_parquet_scan *scan,
                                 struct basalt_error *err)
{
    struct basalt_arrow_batches batches;
    basalt_arrow_batches_init(&batches);
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
    /* Memory freed by one write stays in the process for the next, as
     * allocators such as jemalloc keep it: glibc would otherwise unmap large
     * blocks and fault them in again on every write. */
    if (!a->release_memory) {
        mallopt(M_MMAP_THRESHOLD, 1 << 30);
        mallopt(M_TRIM_THRESHOLD, 1 << 30);
    }
#endif
    basalt_status st = basalt_parquet_scan_read_all(scan, &batches, err);
    int total = a->repeat + a->warmup;
    double *times = st == BASALT_OK ? basalt_calloc((size_t)total * 2, sizeof *times) : NULL;
    double *cpu = times ? times + total : NULL;
    if (st == BASALT_OK && !times)
        st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    size_t size = 0;
    for (int k = 0; st == BASALT_OK && k < total; k++) {
        double t0 = now_ms(), c0 = cpu_ms();
        st = write_memory(a, &batches, &size, err);
        times[k] = now_ms() - t0;
        cpu[k] = cpu_ms() - c0;
    }
    if (st == BASALT_OK) {
        int64_t rows = 0;
        for (int64_t i = 0; i < batches.n; i++)
            rows += batches.arrays[i].length;
        qsort(times + a->warmup, (size_t)a->repeat, sizeof *times, cmp_double);
        qsort(cpu + a->warmup, (size_t)a->repeat, sizeof *cpu, cmp_double);
        printf("rows: %lld\n", (long long)rows);
        printf("bytes: %zu\n", size);
        printf("threads: %d\n", a->threads > 1 ? a->threads : 1);
        printf("writes: %d\n", a->repeat);
        printf("p50: %.3f ms\n", percentile(times + a->warmup, a->repeat, 0.5));
        printf("p90: %.3f ms\n", percentile(times + a->warmup, a->repeat, 0.9));
        /* CPU time of the process (all threads) per write: on a loaded
         * machine it drifts less than the wall clock. */
        printf("cpu p50: %.3f ms\n", percentile(cpu + a->warmup, a->repeat, 0.5));
        fflush(stdout);
    }
    /* OUT too, so the file can be inspected and read back. */
    struct basalt_parquet_writer *w = NULL;
    if (st == BASALT_OK)
        st = open_writer(a->out, &batches.schema, &a->wo, &w, err);
    for (int64_t i = 0; st == BASALT_OK && i < batches.n; i++)
        st = basalt_parquet_writer_write(w, &batches.arrays[i], err);
    if (st == BASALT_OK)
        st = basalt_parquet_writer_finish(w, err);
    basalt_parquet_writer_close(w);
    basalt_free(times);
    basalt_arrow_batches_reset(&batches);
    return st;
}

static basalt_status rewrite(struct rewrite_args *a, struct basalt_error *err)
{
    struct basalt_parquet_reader *r = NULL;
    struct basalt_parquet_scan *scan = NULL;
    struct basalt_parquet_writer *w = NULL;
    struct basalt_pool *pool = NULL;
    struct ArrowSchema schema;
    memset(&schema, 0, sizeof schema);
    struct basalt_buffer kv;
    basalt_buffer_init(&kv);
    const struct basalt_parquet_decryption *dec = NULL;
    if (cli_keys_decryption(&a->keys, a->in, &dec) != CLI_OK)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    struct basalt_parquet_reader_options opts;
    basalt_parquet_reader_options_init(&opts);
    opts.decryption = dec;
    struct basalt_input *in = NULL;
    basalt_status st = cli_open_input(a->in, &in, err);
    if (st == BASALT_OK)
        st = basalt_parquet_reader_open(in, true /* owns */, &opts, &r, err);
    if (st == BASALT_OK && a->threads > 1)
        st = basalt_pool_new(a->threads - 1, &pool, err);
    struct basalt_parquet_read_options ro;
    basalt_parquet_read_options_init(&ro);
    ro.pool = pool;
    if (st == BASALT_OK)
        st = basalt_parquet_scan_new(r, &ro, &scan, err);
    if (st == BASALT_OK) {
        basalt_parquet_scan_select_all(scan);
        st = basalt_parquet_scan_schema(scan, &schema, err);
    }
    if (st == BASALT_OK)
        st = copy_kv(basalt_parquet_reader_metadata(r), &kv, err);
    if (st == BASALT_OK) {
        a->wo.key_value_metadata = kv.size ? (const char *)kv.data : NULL;
        a->wo.pool = pool;
        if (a->repeat > 0)
            st = time_writes(a, scan, err);
        else
            st = open_writer(a->out, &schema, &a->wo, &w, err);
    }
    const bool bar = a->repeat == 0 && isatty(STDERR_FILENO);
    const int64_t total = r ? basalt_parquet_reader_num_rows(r) : 0;
    int64_t done = 0;
    while (st == BASALT_OK && a->repeat == 0) {
        struct ArrowArray batch;
        st = basalt_parquet_scan_next(scan, &batch, err);
        if (st != BASALT_OK || !batch.release)
            break;
        st = basalt_parquet_writer_write(w, &batch, err);
        done += batch.length;
        basalt_arrow_array_release(&batch);
        if (bar)
            progress(done, total);
    }
    if (st == BASALT_OK && a->repeat == 0)
        st = basalt_parquet_writer_finish(w, err);
    if (bar)
        fputc('\n', stderr);
    basalt_parquet_writer_close(w);
    basalt_arrow_schema_release(&schema);
    basalt_buffer_reset(&kv);
    basalt_parquet_scan_free(scan);
    basalt_parquet_reader_close(r);
    basalt_pool_free(pool);
    return st;
}

int cli_parquet_rewrite_main(int argc, char **argv)
{
    struct rewrite_args a;
    memset(&a, 0, sizeof a);
    cli_keys_init(&a.keys);
    int rc = parse(argc, argv, &a);
    if (rc == 0) {
        struct basalt_error err;
        basalt_error_init(&err);
        rc = rewrite(&a, &err) == BASALT_OK ? CLI_OK : cli_fail_error(&err);
    } else if (rc < 0) {
        rc = CLI_OK;
    }
    for (size_t i = 0; i < a.nenc; i++)
        free(a.enc_names[i]);
    for (size_t i = 0; i < a.ncol; i++)
        free(a.cenc_names[i]);
    cli_keys_free(&a.keys);
    volatile uint8_t *wipe = (volatile uint8_t *)&a;
    for (size_t i = 0; i < sizeof a; i++)
        wipe[i] = 0;
    return rc;
}
