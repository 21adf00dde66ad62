/* Keys for encrypted Parquet files: the --key-file text format and
 * --aad-prefix, turned into the reader's decryption options.
 *
 * A key file has one key per line, NAME then KEY, separated by spaces, tabs
 * or '='; '#' starts a comment. KEY is hex (32, 48 or 64 digits) or base64
 * of a 16, 24 or 32-byte key ("hex:" / "base64:" in front say which). NAME
 * is one of
 *   footer          the footer key
 *   id:NAME         the key whose key metadata (as stored in the file) is NAME
 *   column:PATH     the key of the leaf column PATH (dotted)
 *   master:ID       a master key of parquet-java's key tools (PKMT1 key
 *                   material, unwrapped as its InMemoryKMS does; external
 *                   key material is read from _KEY_MATERIAL_FOR_<file>.json
 *                   beside the file)
 *   NAME            both id:NAME and column:NAME */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_LINE 4096

static void wipe(void *p, size_t n)
{
    volatile uint8_t *v = p;
    while (n--)
        *v++ = 0;
}

void cli_keys_init(struct cli_keys *k)
{
    memset(k, 0, sizeof *k);
}

void cli_keys_free(struct cli_keys *k)
{
    for (size_t i = 0; i < k->n; i++) {
        free(k->entries[i].name);
        wipe(k->entries[i].key, sizeof k->entries[i].key);
    }
    free(k->entries);
    free(k->columns);
    free(k->masters);
    wipe(k, sizeof *k);
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

int cli_keys_load(const char *path, struct cli_keys *k)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return cli_fail("%s: cannot open the key file", path);
    char line[MAX_LINE];
    int lineno = 0;
    int rc = CLI_OK;
    while (rc == CLI_OK && fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(line);
        if (!*s)
            continue;
        size_t name_len = strcspn(s, " \t=");
        char *rest = s + name_len;
        if (!*rest) {
            rc = cli_usage_error("%s:%d: expected NAME KEY", path, lineno);
            break;
        }
        *rest++ = '\0';
        rest = trim(rest);
        if (*rest == '=')
            rest = trim(rest + 1);
        if (!*rest || strpbrk(rest, " \t")) {
            rc = cli_usage_error("%s:%d: expected NAME KEY", path, lineno);
            break;
        }
        struct cli_key_entry e;
        memset(&e, 0, sizeof e);
        struct basalt_error err;
        if (basalt_parquet_key_parse(rest, e.key, &e.len, &err) != BASALT_OK) {
            rc = cli_usage_error("%s:%d: key '%s': %s", path, lineno, s, err.message);
            break;
        }
        e.kind = CLI_KEY_ANY;
        const char *name = s;
        if (strcmp(s, "footer") == 0) {
            e.kind = CLI_KEY_FOOTER;
        } else if (strncmp(s, "id:", 3) == 0) {
            e.kind = CLI_KEY_ID;
            name = s + 3;
        } else if (strncmp(s, "column:", 7) == 0) {
            e.kind = CLI_KEY_COLUMN;
            name = s + 7;
        } else if (strncmp(s, "master:", 7) == 0) {
            e.kind = CLI_KEY_MASTER;
            name = s + 7;
        }
        if (!*name) {
            rc = cli_usage_error("%s:%d: empty key name", path, lineno);
            break;
        }
        struct cli_key_entry *grown = realloc(k->entries, (k->n + 1) * sizeof *grown);
        e.name = strdup(name);
        if (!grown || !e.name) {
            free(e.name);
            if (grown)
                k->entries = grown;
            rc = cli_fail("out of memory");
            break;
        }
        k->entries = grown;
        k->entries[k->n++] = e;
    }
    fclose(f);
    return rc;
}

const struct cli_key_entry *cli_keys_find(const struct cli_keys *k, const char *name)
{
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->entries[i].name, name) == 0)
            return &k->entries[i];
    return NULL;
}

/* The reader's retriever: an id (or plain) entry whose name is the key
 * metadata, else parquet-java key material through the master keys. */
static basalt_status retrieve(void *ctx, const uint8_t *md, size_t len, uint8_t *key,
                              size_t *key_len, struct basalt_error *err)
{
    struct cli_keys *k = ctx;
    for (size_t i = 0; i < k->n; i++) {
        const struct cli_key_entry *e = &k->entries[i];
        if ((e->kind == CLI_KEY_ID || e->kind == CLI_KEY_ANY) && strlen(e->name) == len &&
            memcmp(e->name, md, len) == 0) {
            memcpy(key, e->key, e->len);
            *key_len = e->len;
            return BASALT_OK;
        }
    }
    if (k->tools.num_master_keys)
        return basalt_parquet_key_tools_retrieve(&k->tools, md, len, key, key_len, err);
    return basalt_error_set(err, BASALT_NOT_FOUND, "no key for this key metadata");
}

int cli_keys_decryption(struct cli_keys *k, const char *parquet_path,
                        const struct basalt_parquet_decryption **out)
{
    *out = NULL;
    if (!k->loaded && !k->aad_prefix)
        return CLI_OK;
    memset(&k->dec, 0, sizeof k->dec);
    free(k->columns);
    free(k->masters);
    k->columns = calloc(k->n + 1, sizeof *k->columns);
    k->masters = calloc(k->n + 1, sizeof *k->masters);
    if (!k->columns || !k->masters)
        return cli_fail("out of memory");
    size_t nc = 0, nm = 0;
    for (size_t i = 0; i < k->n; i++) {
        const struct cli_key_entry *e = &k->entries[i];
        switch (e->kind) {
        case CLI_KEY_FOOTER:
            k->dec.footer_key = e->key;
            k->dec.footer_key_len = e->len;
            break;
        case CLI_KEY_COLUMN:
        case CLI_KEY_ANY:
            k->columns[nc++] = (struct basalt_parquet_column_key){e->name, e->key, e->len};
            break;
        case CLI_KEY_MASTER:
            k->masters[nm++] = (struct basalt_parquet_master_key){e->name, e->key, e->len};
            break;
        default:
            break;
        }
    }
    k->dec.column_keys = k->columns;
    k->dec.num_column_keys = nc;
    k->dec.retrieve_key = retrieve;
    k->dec.retrieve_ctx = k;
    k->tools.master_keys = k->masters;
    k->tools.num_master_keys = nm;
    k->tools.key_material_path = NULL;
    struct basalt_error err;
    if (nm && basalt_parquet_key_tools_material_path(parquet_path, k->material_path,
                                                    sizeof k->material_path,
                                                    &err) == BASALT_OK)
        k->tools.key_material_path = k->material_path;
    if (k->aad_prefix) {
        k->dec.aad_prefix = (const uint8_t *)k->aad_prefix;
        k->dec.aad_prefix_len = strlen(k->aad_prefix);
    }
    *out = &k->dec;
    return CLI_OK;
}

int cli_keys_option(struct cli_keys *k, const char *arg, const char *val, bool *taken)
{
    *taken = true;
    if (strcmp(arg, "--key-file") == 0) {
        if (k->loaded)
            return cli_usage_error("--key-file given twice");
        k->loaded = true;
        return cli_keys_load(val, k);
    }
    if (strcmp(arg, "--aad-prefix") == 0) {
        k->aad_prefix = val;
        return CLI_OK;
    }
    *taken = false;
    return CLI_OK;
}
