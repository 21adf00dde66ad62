/* basalt codec: compress and decompress files with any basalt codec. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Output ceiling when the decompressed size is not given. */
#define CODEC_DEFAULT_LIMIT ((size_t)1 << 30)

struct codec_args {
    const char *codec;
    const char *in;
    const char *out;
    bool has_level, has_size;
    int level;
    size_t size;
    size_t limit;
};

static bool parse_int(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* Positional CODEC IN OUT plus --level (compress) or --size and --limit
 * (decompress). Returns CLI_OK or the usage status. */
static int parse_args(int argc, char **argv, const char *verb, bool compressing,
                      struct codec_args *a)
{
    memset(a, 0, sizeof *a);
    a->limit = CODEC_DEFAULT_LIMIT;
    const char *pos[3];
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] == '-' && arg[1] == '-') {
            const char *name = arg + 2;
            bool known = compressing ? strcmp(name, "level") == 0
                                     : strcmp(name, "size") == 0 || strcmp(name, "limit") == 0;
            if (!known)
                return cli_usage_error("codec %s: unknown option '%s'", verb, arg);
            if (i + 1 >= argc)
                return cli_usage_error("codec %s: %s needs a value", verb, arg);
            const char *val = argv[++i];
            long long v;
            if (strcmp(name, "level") == 0) {
                if (!parse_int(val, INT32_MIN + 1LL, INT32_MAX, &v))
                    return cli_usage_error("codec %s: bad level '%s'", verb, val);
                a->has_level = true;
                a->level = (int)v;
            } else if (strcmp(name, "size") == 0 || strcmp(name, "limit") == 0) {
                if (!parse_int(val, 0, (long long)(SIZE_MAX >> 1), &v))
                    return cli_usage_error("codec %s: bad %s '%s'", verb, name, val);
                if (strcmp(name, "size") == 0) {
                    a->has_size = true;
                    a->size = (size_t)v;
                } else {
                    a->limit = (size_t)v;
                }
            } else {
                return cli_usage_error("codec %s: unknown option '%s'", verb, arg);
            }
            continue;
        }
        if (npos == 3)
            return cli_usage_error("codec %s: unexpected argument '%s'", verb, arg);
        pos[npos++] = arg;
    }
    if (npos < 3)
        return cli_usage_error("codec %s: expected CODEC IN OUT", verb);
    a->codec = pos[0];
    a->in = pos[1];
    a->out = pos[2];
    return CLI_OK;
}

/* Makes the codec object; a bad name or level is a usage error. */
static int open_codec(const struct codec_args *a, struct basalt_codec **codec)
{
    struct basalt_error err;
    basalt_error_init(&err);
    enum basalt_codec_kind kind;
    if (basalt_codec_parse_name(a->codec, &kind, &err) != BASALT_OK)
        return cli_usage_error("%s", err.message);
    basalt_status st = basalt_codec_new(kind, a->has_level ? a->level : BASALT_CODEC_LEVEL_DEFAULT,
                                        codec, &err);
    if (st == BASALT_INVALID_ARG)
        return cli_usage_error("%s", err.message);
    if (st != BASALT_OK)
        return cli_fail_error(&err);
    return CLI_OK;
}

static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i]))
            return true;
    return false;
}

static int cmd_compress(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt codec compress CODEC IN OUT [--level L]\n\n"
               "Compresses IN into OUT ('-' for stdin/stdout). See 'basalt codec list'\n"
               "for codec names and levels.\n");
        return CLI_OK;
    }
    struct codec_args a;
    int rc = parse_args(argc, argv, "compress", true, &a);
    if (rc != CLI_OK)
        return rc;
    struct basalt_codec *codec = NULL;
    rc = open_codec(&a, &codec);
    if (rc != CLI_OK)
        return rc;
    struct basalt_error err;
    basalt_error_init(&err);
    unsigned char *in = NULL, *out = NULL;
    size_t in_len = 0, out_len = 0;
    basalt_status st = cli_read_file(a.in, &in, &in_len, &err);
    if (st == BASALT_OK) {
        size_t cap = basalt_codec_max_compressed_size(codec, in_len);
        out = cap == SIZE_MAX ? NULL : basalt_malloc(cap);
        if (cap == SIZE_MAX)
            st = basalt_error_set(&err, BASALT_LIMIT, "%s: input of %zu bytes is too large",
                                  a.codec, in_len);
        else if (!out)
            st = basalt_error_set(&err, BASALT_NOMEM, "out of memory (%zu bytes)", cap);
        else
            st = basalt_codec_compress(codec, in, in_len, out, cap, &out_len, &err);
    }
    if (st == BASALT_OK)
        st = cli_write_file(a.out, out, out_len, &err);
    basalt_free(in);
    basalt_free(out);
    basalt_codec_free(codec);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

static int cmd_decompress(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        printf("usage: basalt codec decompress CODEC IN OUT [--size N] [--limit N]\n\n"
               "Decompresses IN into OUT ('-' for stdin/stdout). --size gives the exact\n"
               "decompressed size (as Parquet pages state it); without it the output may\n"
               "grow up to --limit bytes (default 1 GiB).\n");
        return CLI_OK;
    }
    struct codec_args a;
    int rc = parse_args(argc, argv, "decompress", false, &a);
    if (rc != CLI_OK)
        return rc;
    struct basalt_codec *codec = NULL;
    rc = open_codec(&a, &codec);
    if (rc != CLI_OK)
        return rc;
    struct basalt_error err;
    basalt_error_init(&err);
    unsigned char *in = NULL;
    size_t in_len = 0;
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    basalt_status st = cli_read_file(a.in, &in, &in_len, &err);
    if (st == BASALT_OK && a.has_size) {
        st = basalt_buffer_reserve(&out, a.size ? a.size : 1, &err);
        size_t got = 0;
        if (st == BASALT_OK)
            st = basalt_codec_decompress(codec, in, in_len, out.data, a.size, &got, &err);
        if (st == BASALT_OK && got != a.size)
            st = basalt_error_set(&err, BASALT_CORRUPT, "%s: decompressed to %zu bytes, expected %zu",
                                  a.codec, got, a.size);
        out.size = got;
    } else if (st == BASALT_OK) {
        st = basalt_codec_decompress_grow(codec, in, in_len, &out, a.limit, &err);
    }
    if (st == BASALT_OK)
        st = cli_write_file(a.out, out.data, out.size, &err);
    basalt_free(in);
    basalt_buffer_reset(&out);
    basalt_codec_free(codec);
    return st == BASALT_OK ? CLI_OK : cli_fail_error(&err);
}

static int cmd_list(int argc, char **argv)
{
    if (argc > 1 && cli_is_help(argv[1])) {
        printf("usage: basalt codec list\n\nLists the codecs, their aliases and levels.\n");
        return CLI_OK;
    }
    if (argc > 1)
        return cli_usage_error("codec list takes no arguments, got '%s'", argv[1]);
    static const char *const notes[BASALT_CODEC_COUNT] = {
        [BASALT_CODEC_UNCOMPRESSED] = "alias none",
        [BASALT_CODEC_SNAPPY] = "raw snappy block",
        [BASALT_CODEC_GZIP] = "levels 0..12 (default 6), alias gz",
        [BASALT_CODEC_ZLIB] = "levels 0..12 (default 6)",
        [BASALT_CODEC_DEFLATE] = "raw deflate, levels 0..12 (default 6)",
        [BASALT_CODEC_ZSTD] = "levels -131072..22 (default 3), alias zstandard",
        [BASALT_CODEC_LZ4_RAW] = "bare LZ4 block",
        [BASALT_CODEC_LZ4_HADOOP] = "Hadoop-framed LZ4, alias lz4",
        [BASALT_CODEC_BROTLI] = "levels 0..11 (default 8)",
        [BASALT_CODEC_BZIP2] = "levels 1..9 (default 9)",
        [BASALT_CODEC_XZ] = "levels 0..9 (default 6)",
        [BASALT_CODEC_LZ4_FRAME] = "LZ4 frame format (Arrow IPC)",
    };
    for (int k = 0; k < BASALT_CODEC_COUNT; k++)
        printf("%-14s %s\n", basalt_codec_name((enum basalt_codec_kind)k), notes[k]);
    return CLI_OK;
}

int cli_codec_main(int argc, char **argv)
{
    static const struct cli_verb verbs[] = {
        {"compress", "compress a file: CODEC IN OUT [--level L]", cmd_compress},
        {"decompress", "decompress a file: CODEC IN OUT [--size N] [--limit N]", cmd_decompress},
        {"list", "list the codecs and their levels", cmd_list},
        {NULL, NULL, NULL},
    };
    return cli_dispatch_verbs("codec", verbs, argc, argv);
}
