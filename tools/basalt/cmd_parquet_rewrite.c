/* basalt parquet rewrite IN OUT: reads a Parquet file and writes its rows
 * again with the writer's options (codec, row groups, pages, encodings). */
#include <stdlib.h>
#include <string.h>

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
            "         [--threads N]\n"
            "  codecs: uncompressed snappy gzip brotli lz4 zstd lz4_raw\n"
            "  encodings: PLAIN RLE_DICTIONARY DELTA_BINARY_PACKED DELTA_LENGTH_BYTE_ARRAY\n"
            "             DELTA_BYTE_ARRAY BYTE_STREAM_SPLIT\n");
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
};

static int parse(int argc, char **argv, struct rewrite_args *a)
{
    basalt_parquet_writer_options_init(&a->wo);
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
        if (i + 1 >= argc)
            return cli_usage_error("parquet rewrite: %s wants a value", arg);
        const char *val = argv[++i];
        long long n;
        if (strcmp(arg, "--codec") == 0) {
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
        } else if (strcmp(arg, "--page-version") == 0) {
            if (!parse_int(val, 1, 2, &n))
                return cli_usage_error("parquet rewrite: --page-version wants 1 or 2");
            a->wo.page_version = (int)n;
        } else if (strcmp(arg, "--threads") == 0) {
            if (!parse_int(val, 1, 1024, &n))
                return cli_usage_error("parquet rewrite: --threads wants 1..1024, got '%s'", val);
            a->threads = (int)n;
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
    return 0;
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
    basalt_status st = basalt_parquet_reader_open_file(a->in, NULL, &r, err);
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
        st = basalt_parquet_writer_open_file(a->out, &schema, &a->wo, &w, err);
    }
    while (st == BASALT_OK) {
        struct ArrowArray batch;
        st = basalt_parquet_scan_next(scan, &batch, err);
        if (st != BASALT_OK || !batch.release)
            break;
        st = basalt_parquet_writer_write(w, &batch, err);
        basalt_arrow_array_release(&batch);
    }
    if (st == BASALT_OK)
        st = basalt_parquet_writer_finish(w, err);
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
    return rc;
}
