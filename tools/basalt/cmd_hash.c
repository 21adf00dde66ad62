/* basalt hash: checksums and digests of files, printed like sha256sum
 * ("<hex>  <file>", "-" for stdin). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum hash_kind { HASH_CRC32, HASH_MURMUR3, HASH_XXH64, HASH_SHA256, HASH_HMAC_SHA256 };

struct hash_options {
    enum hash_kind kind;
    const char *verb;
    uint64_t seed;
    const unsigned char *key; /* hmac-sha256 */
    size_t key_len;
    unsigned char *key_owned; /* from --key-hex */
};

static void hash_usage(FILE *out, const char *verb)
{
    if (strcmp(verb, "hmac-sha256") == 0) {
        fprintf(out, "usage: basalt hash hmac-sha256 (--key KEY | --key-hex HEX) FILE...\n\n"
                     "Prints the HMAC-SHA256 of each FILE (\"-\" or no FILE is stdin) as\n"
                     "\"<hex>  <file>\". --key takes the key's bytes as given, --key-hex\n"
                     "as hex digits.\n");
        return;
    }
    fprintf(out, "usage: basalt hash %s [--seed N] FILE...\n\n"
                 "Prints the %s of each FILE (\"-\" or no FILE is stdin) as\n"
                 "\"<hex>  <file>\", like sha256sum.\n",
            verb, verb);
    if (strcmp(verb, "crc32") == 0)
        fprintf(out, "--seed N continues from a previous CRC (default 0).\n");
    else if (strcmp(verb, "murmur3") == 0)
        fprintf(out, "MurmurHash3 x86 32-bit; --seed N is a 32-bit seed (default 0,\n"
                     "as in Iceberg's bucket transform).\n");
    else if (strcmp(verb, "xxh64") == 0)
        fprintf(out, "--seed N is a 64-bit seed (default 0, as in Parquet bloom filters).\n");
    fprintf(out, "\nexit status: 0 ok, 1 a file could not be read, 2 usage error\n");
}

/* Decimal or 0x-prefixed hex, at most `max`. */
static bool hash_parse_seed(const char *text, uint64_t max, uint64_t *out)
{
    if (text[0] < '0' || text[0] > '9') /* strtoull would take signs and spaces */
        return false;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno != 0 || *end != '\0' || v > max)
        return false;
    *out = (uint64_t)v;
    return true;
}

static int hash_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static bool hash_parse_hex_key(struct hash_options *o, const char *hex)
{
    size_t len = strlen(hex);
    if (len % 2 != 0)
        return false;
    unsigned char *key = basalt_malloc(len / 2);
    if (!key)
        return false;
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hash_hex_digit(hex[2 * i]), lo = hash_hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            basalt_free(key);
            return false;
        }
        key[i] = (unsigned char)(hi << 4 | lo);
    }
    basalt_free(o->key_owned);
    o->key_owned = key;
    o->key = key;
    o->key_len = len / 2;
    return true;
}

/* Hex of the digest of `data` into `out` (at least 65 bytes). */
static basalt_status hash_compute(const struct hash_options *o, const unsigned char *data, size_t len,
                         char *out)
{
    switch (o->kind) {
    case HASH_CRC32:
        snprintf(out, 65, "%08" PRIx32, basalt_hash_crc32((uint32_t)o->seed, data, len));
        break;
    case HASH_MURMUR3:
        snprintf(out, 65, "%08" PRIx32, basalt_hash_murmur3_32(data, len, (uint32_t)o->seed));
        break;
    case HASH_XXH64:
        snprintf(out, 65, "%016" PRIx64, basalt_hash_xxh64(data, len, o->seed));
        break;
    case HASH_SHA256:
    case HASH_HMAC_SHA256: {
        uint8_t digest[BASALT_HASH_SHA256_SIZE];
        basalt_status st = o->kind == HASH_SHA256
                               ? basalt_hash_sha256(data, len, digest)
                               : basalt_hash_hmac_sha256(o->key, o->key_len, data, len, digest);
        if (st != BASALT_OK)
            return st;
        basalt_hash_hex(digest, sizeof digest, out);
        break;
    }
    }
    return BASALT_OK;
}

static int hash_run(enum hash_kind kind, int argc, char **argv)
{
    struct hash_options o = {.kind = kind, .verb = argv[0]};
    const char **files = basalt_calloc((size_t)argc, sizeof *files);
    if (!files)
        return cli_fail("out of memory");
    int nfiles = 0, status = CLI_OK;
    bool options_done = false;
    for (int i = 1; i < argc && status == CLI_OK; i++) {
        const char *a = argv[i];
        if (options_done || a[0] != '-' || strcmp(a, "-") == 0) {
            files[nfiles++] = a;
        } else if (strcmp(a, "--") == 0) {
            options_done = true;
        } else if (cli_is_help(a)) {
            hash_usage(stdout, o.verb);
            basalt_free(files);
            basalt_free(o.key_owned);
            return CLI_OK;
        } else if (strcmp(a, "--seed") == 0 && kind != HASH_SHA256 &&
                   kind != HASH_HMAC_SHA256) {
            uint64_t max = kind == HASH_XXH64 ? UINT64_MAX : UINT32_MAX;
            if (i + 1 == argc)
                status = cli_usage_error("--seed needs a value");
            else if (!hash_parse_seed(argv[++i], max, &o.seed))
                status = cli_usage_error("--seed '%s' is not an integer in [0, %" PRIu64 "]",
                                         argv[i], max);
        } else if (strcmp(a, "--key") == 0 && kind == HASH_HMAC_SHA256) {
            if (i + 1 == argc) {
                status = cli_usage_error("--key needs a value");
            } else {
                basalt_free(o.key_owned);
                o.key_owned = NULL;
                o.key = (const unsigned char *)argv[++i];
                o.key_len = strlen(argv[i]);
            }
        } else if (strcmp(a, "--key-hex") == 0 && kind == HASH_HMAC_SHA256) {
            if (i + 1 == argc)
                status = cli_usage_error("--key-hex needs a value");
            else if (!hash_parse_hex_key(&o, argv[++i]))
                status = cli_usage_error("--key-hex '%s' is not an even number of hex digits",
                                         argv[i]);
        } else {
            status = cli_usage_error("unknown option '%s' for 'hash %s'", a, o.verb);
        }
    }
    if (status == CLI_OK && kind == HASH_HMAC_SHA256 && !o.key)
        status = cli_usage_error("hash hmac-sha256 needs --key KEY or --key-hex HEX");
    if (status == CLI_OK && nfiles == 0)
        files[nfiles++] = "-";
    for (int f = 0; f < nfiles && status != CLI_USAGE; f++) {
        unsigned char *data = NULL;
        size_t len = 0;
        struct basalt_error err;
        basalt_error_init(&err);
        if (cli_read_file(files[f], &data, &len, &err) != BASALT_OK) {
            /* Like sha256sum: report, keep going, fail at the end. */
            cli_fail("%s", err.message);
            status = CLI_FAILURE;
            continue;
        }
        char hex[65];
        basalt_status st = hash_compute(&o, data, len, hex);
        basalt_free(data);
        if (st != BASALT_OK) {
            cli_fail("%s: %s failed: %s", files[f], o.verb, basalt_status_name(st));
            status = CLI_FAILURE;
            continue;
        }
        printf("%s  %s\n", hex, files[f]);
    }
    if (fflush(stdout) != 0 && status == CLI_OK)
        status = cli_fail("writing to stdout failed");
    basalt_free(files);
    basalt_free(o.key_owned);
    return status;
}

static int hash_crc32_main(int argc, char **argv) { return hash_run(HASH_CRC32, argc, argv); }
static int hash_murmur3_main(int argc, char **argv) { return hash_run(HASH_MURMUR3, argc, argv); }
static int hash_xxh64_main(int argc, char **argv) { return hash_run(HASH_XXH64, argc, argv); }
static int hash_sha256_main(int argc, char **argv) { return hash_run(HASH_SHA256, argc, argv); }
static int hash_hmac_main(int argc, char **argv)
{
    return hash_run(HASH_HMAC_SHA256, argc, argv);
}

int cli_hash_main(int argc, char **argv)
{
    static const struct cli_verb verbs[] = {
        {"crc32", "CRC-32 (IEEE), as in gzip and Parquet page checksums", hash_crc32_main},
        {"murmur3", "MurmurHash3 x86 32-bit, as in Iceberg's bucket transform",
         hash_murmur3_main},
        {"xxh64", "XXH64, as in Parquet bloom filters", hash_xxh64_main},
        {"sha256", "SHA-256 digest, like sha256sum", hash_sha256_main},
        {"hmac-sha256", "HMAC-SHA256 with --key KEY or --key-hex HEX", hash_hmac_main},
        {NULL, NULL, NULL}};
    return cli_dispatch_verbs("hash", verbs, argc, argv);
}
