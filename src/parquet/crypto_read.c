/* The reader's side of Parquet modular encryption at open: the AAD prefix,
 * the footer key, decrypting an encrypted footer or verifying a plaintext
 * one, and each encrypted column chunk's key and column metadata. Keys are
 * resolved once here, so scans only look them up. */
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>

#include "parquet_reader.h"

/* ------------------------------------------------------------------ keys */

static basalt_status add_key(struct basalt_parquet_file_crypto *c, const uint8_t *key,
                             size_t key_len, int32_t *index, struct basalt_error *err)
{
    if (c->n_keys == c->cap_keys) {
        size_t cap = c->cap_keys ? c->cap_keys * 2 : 4;
        struct basalt_parquet_cipher *k = basalt_malloc(cap * sizeof *k);
        if (!k)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for keys");
        if (c->n_keys)
            memcpy(k, c->keys, c->n_keys * sizeof *k);
        if (c->keys) {
            OPENSSL_cleanse(c->keys, c->n_keys * sizeof *c->keys);
            basalt_free(c->keys);
        }
        c->keys = k;
        c->cap_keys = cap;
    }
    struct basalt_parquet_cipher *k = &c->keys[c->n_keys];
    memset(k, 0, sizeof *k);
    k->algorithm = c->algorithm;
    memcpy(k->key, key, key_len);
    k->key_len = key_len;
    k->aad = c->aad;
    k->aad_len = c->aad_len;
    k->bare = c->bare;
    c->n_keys++;
    *index = (int32_t)c->n_keys;
    return BASALT_OK;
}

void basalt_parquet_crypto_free(struct basalt_parquet_file_crypto *c)
{
    if (!c)
        return;
    if (c->keys) {
        OPENSSL_cleanse(c->keys, c->cap_keys * sizeof *c->keys);
        basalt_free(c->keys);
    }
    c->keys = NULL;
    c->n_keys = c->cap_keys = 0;
}

/* Key metadata as messages show it: the text when it is short and
 * printable, else its length and first bytes in hex. */
static void describe_metadata(const struct basalt_parquet_binary *md, char *out, size_t size)
{
    if (!md || !md->data) {
        snprintf(out, size, "none");
        return;
    }
    bool text = md->len <= 64;
    for (size_t i = 0; text && i < md->len; i++)
        text = md->data[i] >= 0x20 && md->data[i] < 0x7f && md->data[i] != '"';
    if (text) {
        snprintf(out, size, "\"%.*s\"", (int)md->len, (const char *)md->data);
        return;
    }
    int n = snprintf(out, size, "%zu bytes ", md->len);
    for (size_t i = 0; i < md->len && i < 12 && n > 0 && (size_t)n + 3 < size; i++)
        n += snprintf(out + n, size - (size_t)n, "%02x", md->data[i]);
}

/* The retriever's key for `md` into *index (0 when it has none). Statuses
 * other than NOT_FOUND and AUTH from the retriever are passed on. */
static basalt_status retrieve(struct basalt_parquet_file_crypto *c,
                              const struct basalt_parquet_decryption *d,
                              const struct basalt_parquet_binary *md, int32_t *index,
                              struct basalt_error *err)
{
    *index = 0;
    if (!d->retrieve_key || !md || !md->data)
        return BASALT_OK;
    uint8_t key[BASALT_PARQUET_MAX_KEY_SIZE];
    size_t key_len = 0;
    struct basalt_error e;
    basalt_error_init(&e);
    basalt_status st = d->retrieve_key(d->retrieve_ctx, md->data, md->len, key, &key_len, &e);
    if (st == BASALT_NOT_FOUND || st == BASALT_AUTH)
        return BASALT_OK;
    if (st != BASALT_OK) {
        OPENSSL_cleanse(key, sizeof key);
        if (err)
            *err = e;
        char what[128];
        describe_metadata(md, what, sizeof what);
        return basalt_error_context(err, st, "key retriever (key metadata %s)", what);
    }
    if (!basalt_parquet_crypto_key_len_ok(key_len)) {
        OPENSSL_cleanse(key, sizeof key);
        char what[128];
        describe_metadata(md, what, sizeof what);
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "key retriever: a key of %zu bytes for key metadata %s (16, 24 "
                                "or 32)",
                                key_len, what);
    }
    st = add_key(c, key, key_len, index, err);
    OPENSSL_cleanse(key, sizeof key);
    return st;
}

/* The decryption options' algorithm and AAD: prefix (the caller's, else the
 * file's) and aad_file_unique. */
static basalt_status setup(struct basalt_parquet_reader *r,
                           const struct basalt_parquet_encryption_algorithm *a,
                           struct basalt_error *err)
{
    const struct basalt_parquet_decryption *d = r->options.decryption;
    struct basalt_parquet_file_crypto *c = r->crypto;
    if (a->kind != BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_V1 &&
        a->kind != BASALT_PARQUET_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "encryption algorithm %d (AES_GCM_V1 and AES_GCM_CTR_V1 are "
                                "known)",
                                (int)a->kind);
    c->algorithm = a->kind;
    if (!d)
        return BASALT_OK;
    const uint8_t *prefix = NULL;
    size_t prefix_len = 0;
    if (d->aad_prefix) {
        if (a->has_aad_prefix && (a->aad_prefix.len != d->aad_prefix_len ||
                                  memcmp(a->aad_prefix.data, d->aad_prefix, d->aad_prefix_len)))
            return basalt_error_set(err, BASALT_AUTH,
                                    "the AAD prefix given differs from the one the file stores");
        prefix = d->aad_prefix;
        prefix_len = d->aad_prefix_len;
    } else if (a->has_aad_prefix) {
        prefix = a->aad_prefix.data;
        prefix_len = a->aad_prefix.len;
    } else if (a->has_supply_aad_prefix && a->supply_aad_prefix) {
        return basalt_error_set(err, BASALT_AUTH,
                                "the file was encrypted with an AAD prefix it does not store: "
                                "the reader must be given it");
    }
    size_t unique_len = a->has_aad_file_unique ? a->aad_file_unique.len : 0;
    if (prefix_len > SIZE_MAX / 2 || unique_len > SIZE_MAX / 2)
        return basalt_error_set(err, BASALT_LIMIT, "AAD too long");
    c->aad_len = prefix_len + unique_len;
    c->aad = basalt_arena_alloc(&r->arena, c->aad_len + 1, 1);
    if (!c->aad)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for the AAD");
    if (prefix_len)
        memcpy(c->aad, prefix, prefix_len);
    if (unique_len)
        memcpy(c->aad + prefix_len, a->aad_file_unique.data, unique_len);
    return BASALT_OK;
}

/* The footer key: the explicit one, else the retriever's for `md`. */
static basalt_status footer_key(struct basalt_parquet_reader *r,
                                const struct basalt_parquet_binary *md, struct basalt_error *err)
{
    const struct basalt_parquet_decryption *d = r->options.decryption;
    struct basalt_parquet_file_crypto *c = r->crypto;
    if (d->footer_key) {
        if (!basalt_parquet_crypto_key_len_ok(d->footer_key_len))
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "footer key of %zu bytes (16, 24 or 32)", d->footer_key_len);
        return add_key(c, d->footer_key, d->footer_key_len, &c->footer_key, err);
    }
    return retrieve(c, d, md, &c->footer_key, err);
}

static basalt_status new_crypto(struct basalt_parquet_reader *r, struct basalt_error *err)
{
    if (r->crypto)
        return BASALT_OK;
    r->crypto = basalt_arena_alloc(&r->arena, sizeof *r->crypto, 8);
    if (!r->crypto)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memset(r->crypto, 0, sizeof *r->crypto);
    r->crypto->have_options = r->options.decryption != NULL;
    return BASALT_OK;
}

/* ------------------------------------------------------------------ footer */

basalt_status basalt_parquet_crypto_open_encrypted_footer(struct basalt_parquet_reader *r,
                                                          const uint8_t *footer, size_t len,
                                                          uint8_t **plain, size_t *plain_len,
                                                          struct basalt_error *err)
{
    *plain = NULL;
    if (!r->options.decryption)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "encrypted footer (PARE): the file is encrypted and no "
                                "decryption keys were given");
    basalt_status st = new_crypto(r, err);
    if (st != BASALT_OK)
        return st;
    r->crypto->encrypted_footer = true;
    struct basalt_thrift_limits limits;
    basalt_thrift_limits_init(&limits);
    limits.max_memory = r->options.max_metadata_memory;
    struct basalt_parquet_file_crypto_metadata fcm;
    size_t consumed = 0;
    st = basalt_thrift_decode_file_crypto_metadata(footer, len, &r->arena, &limits, &fcm,
                                                   &consumed, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "footer");
    st = setup(r, &fcm.encryption_algorithm, err);
    if (st == BASALT_OK)
        st = footer_key(r, fcm.has_key_metadata ? &fcm.key_metadata : NULL, err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "footer");
    if (!r->crypto->footer_key) {
        char what[128];
        describe_metadata(fcm.has_key_metadata ? &fcm.key_metadata : NULL, what, sizeof what);
        return basalt_error_set(err, BASALT_AUTH, "footer: no footer key (key metadata %s)",
                                what);
    }
    struct basalt_parquet_module_id id = {BASALT_PARQUET_MODULE_FOOTER, 0, 0, 0};
    struct basalt_parquet_cipher *key = &r->crypto->keys[r->crypto->footer_key - 1];
    st = basalt_parquet_crypto_decrypt_alloc(key, &id, footer + consumed, len - consumed, plain,
                                             plain_len, NULL, err);
    /* DuckDB 1.x encrypts with no AAD at all and stores no aad_file_unique:
     * a file without one (and without a prefix) whose footer does not
     * authenticate is tried so. Only a file encrypted that way passes, so
     * nothing is downgraded; such files lack the format's protection
     * against swapped modules, as written. */
    if (st == BASALT_AUTH && r->crypto->aad_len == 0) {
        key->bare = true;
        if (basalt_parquet_crypto_decrypt_alloc(key, &id, footer + consumed, len - consumed,
                                                plain, plain_len, NULL, NULL) == BASALT_OK) {
            r->crypto->bare = true;
            return BASALT_OK;
        }
        key->bare = false;
    }
    return st;
}

basalt_status basalt_parquet_crypto_open_plaintext_footer(struct basalt_parquet_reader *r,
                                                          const uint8_t *footer, size_t len,
                                                          struct basalt_error *err)
{
    basalt_status st = new_crypto(r, err);
    if (st == BASALT_OK)
        st = setup(r, &r->md.encryption_algorithm, err);
    if (st == BASALT_OK && r->options.decryption)
        st = footer_key(r,
                        r->md.has_footer_signing_key_metadata ? &r->md.footer_signing_key_metadata
                                                              : NULL,
                        err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "footer");
    struct basalt_parquet_file_crypto *c = r->crypto;
    if (!c->footer_key || r->options.decryption->skip_footer_signature)
        return BASALT_OK;
    if (len < BASALT_PARQUET_CRYPTO_SIGNATURE)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "footer: %zu bytes cannot hold a footer and its signature", len);
    size_t n = len - BASALT_PARQUET_CRYPTO_SIGNATURE;
    st = basalt_parquet_crypto_verify_footer(&c->keys[c->footer_key - 1], footer, n, footer + n,
                                             err);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "footer");
    c->footer_verified = true;
    return BASALT_OK;
}

/* ------------------------------------------------------------------ columns */

int32_t basalt_parquet_reader_rg_ordinal(const struct basalt_parquet_reader *r, int32_t row_group)
{
    const struct basalt_parquet_row_group *g = &r->md.row_groups[row_group];
    return g->has_ordinal ? g->ordinal : row_group;
}

/* Key metadata already asked of the retriever, and what it answered. */
struct asked {
    const struct basalt_parquet_binary *md;
    int32_t key;
};

struct column_keys {
    struct asked *asked;
    size_t n_asked, cap_asked;
    int32_t *explicit_key; /* per leaf: 1 + key index of an explicit key, 0 none */
};

static basalt_status column_key(struct basalt_parquet_reader *r, struct column_keys *ck,
                                const struct basalt_parquet_column_crypto_metadata *cm,
                                int32_t leaf, int32_t *key, struct basalt_error *err)
{
    struct basalt_parquet_file_crypto *c = r->crypto;
    *key = 0;
    if (cm->kind == BASALT_PARQUET_COLUMN_CRYPTO_ENCRYPTION_WITH_FOOTER_KEY) {
        *key = c->footer_key;
        return BASALT_OK;
    }
    if (cm->kind != BASALT_PARQUET_COLUMN_CRYPTO_ENCRYPTION_WITH_COLUMN_KEY)
        return BASALT_OK;
    if (ck->explicit_key[leaf]) {
        *key = ck->explicit_key[leaf];
        return BASALT_OK;
    }
    if (!cm->has_key_metadata)
        return BASALT_OK;
    for (size_t i = 0; i < ck->n_asked; i++) {
        const struct basalt_parquet_binary *m = ck->asked[i].md;
        if (m->len == cm->key_metadata.len &&
            (m->len == 0 || memcmp(m->data, cm->key_metadata.data, m->len) == 0)) {
            *key = ck->asked[i].key;
            return BASALT_OK;
        }
    }
    basalt_status st = retrieve(c, r->options.decryption, &cm->key_metadata, key, err);
    if (st != BASALT_OK)
        return st;
    if (ck->n_asked == ck->cap_asked) {
        size_t cap = ck->cap_asked ? ck->cap_asked * 2 : 8;
        struct asked *a = basalt_realloc(ck->asked, cap * sizeof *a);
        if (!a)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        ck->asked = a;
        ck->cap_asked = cap;
    }
    ck->asked[ck->n_asked++] = (struct asked){&cm->key_metadata, *key};
    return BASALT_OK;
}

/* Decrypts and decodes the chunk's encrypted_column_metadata into its
 * meta_data. *rejected when the key does not authenticate it. */
static basalt_status column_metadata(struct basalt_parquet_reader *r, int32_t g, int32_t leaf,
                                     const struct basalt_parquet_cipher *key, bool *rejected,
                                     struct basalt_error *err)
{
    /* The footer is the reader's own (its arena), written here once before
     * anything reads it. */
    struct basalt_parquet_column_chunk *cc =
        (struct basalt_parquet_column_chunk *)(uintptr_t)&r->md.row_groups[g].columns[leaf];
    struct basalt_parquet_module_id id = {BASALT_PARQUET_MODULE_COLUMN_METADATA,
                                          basalt_parquet_reader_rg_ordinal(r, g), leaf, 0};
    uint8_t *plain = NULL;
    size_t n = 0;
    *rejected = false;
    basalt_status st = basalt_parquet_crypto_decrypt_alloc(key, &id,
                                                           cc->encrypted_column_metadata.data,
                                                           cc->encrypted_column_metadata.len,
                                                           &plain, &n, NULL, err);
    if (st == BASALT_AUTH) {
        *rejected = true;
        return BASALT_OK;
    }
    if (st != BASALT_OK)
        return st;
    struct basalt_thrift_limits limits;
    basalt_thrift_limits_init(&limits);
    limits.max_memory = r->options.max_metadata_memory;
    struct basalt_parquet_column_metadata m;
    st = basalt_thrift_decode_column_metadata(plain, n, &r->arena, &limits, &m, err);
    OPENSSL_cleanse(plain, n);
    basalt_free(plain);
    if (st != BASALT_OK)
        return basalt_error_context(err, st, "column metadata");
    cc->meta_data = m;
    cc->has_meta_data = true;
    return BASALT_OK;
}

basalt_status basalt_parquet_crypto_open_columns(struct basalt_parquet_reader *r,
                                                 struct basalt_error *err)
{
    if (!r->crypto && !r->md.has_encrypted_columns)
        return BASALT_OK;
    basalt_status st = new_crypto(r, err);
    if (st != BASALT_OK)
        return st;
    struct basalt_parquet_file_crypto *c = r->crypto;
    const struct basalt_parquet_schema *s = r->schema;
    size_t groups = r->md.num_row_groups;
    c->n_leaves = s->n_leaves;
    if (groups > SIZE_MAX / sizeof *c->chunks / ((size_t)s->n_leaves + 1))
        return basalt_error_set(err, BASALT_LIMIT, "too many column chunks");
    size_t n = groups * (size_t)s->n_leaves;
    c->chunks = basalt_arena_alloc(&r->arena, (n + 1) * sizeof *c->chunks, 8);
    if (!c->chunks)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    memset(c->chunks, 0, (n + 1) * sizeof *c->chunks);
    const struct basalt_parquet_decryption *d = r->options.decryption;
    struct column_keys ck;
    memset(&ck, 0, sizeof ck);
    if (d) {
        ck.explicit_key = basalt_calloc((size_t)s->n_leaves + 1, sizeof *ck.explicit_key);
        if (!ck.explicit_key)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        for (size_t k = 0; k < d->num_column_keys && st == BASALT_OK; k++) {
            const struct basalt_parquet_column_key *e = &d->column_keys[k];
            if (!e->column || !e->key || !basalt_parquet_crypto_key_len_ok(e->key_len)) {
                st = basalt_error_set(err, BASALT_INVALID_ARG,
                                      "column key %zu: %s", k,
                                      !e->column ? "no column"
                                                 : "a key of 16, 24 or 32 bytes is needed");
                break;
            }
            for (int32_t i = 0; i < s->n_leaves && st == BASALT_OK; i++)
                if (strcmp(s->leaves[i].path, e->column) == 0 && !ck.explicit_key[i])
                    st = add_key(c, e->key, e->key_len, &ck.explicit_key[i], err);
        }
    }
    for (size_t g = 0; st == BASALT_OK && g < groups; g++) {
        const struct basalt_parquet_row_group *rg = &r->md.row_groups[g];
        for (int32_t i = 0; st == BASALT_OK && i < s->n_leaves && (size_t)i < rg->num_columns;
             i++) {
            const struct basalt_parquet_column_chunk *cc = &rg->columns[i];
            struct basalt_parquet_chunk_crypto *x = &c->chunks[g * (size_t)s->n_leaves + (size_t)i];
            if (!cc->has_crypto_metadata && !cc->has_encrypted_column_metadata) {
                /* DuckDB's files mark no column: every one is under the
                 * footer key. */
                if (c->bare) {
                    x->encrypted = true;
                    x->key = c->footer_key;
                }
                continue;
            }
            x->encrypted = true;
            if (!d || !cc->has_crypto_metadata)
                continue;
            int32_t key = 0;
            st = column_key(r, &ck, cc->crypto_metadata, i, &key, err);
            if (st != BASALT_OK || !key)
                continue;
            if (cc->has_encrypted_column_metadata) {
                bool rejected = false;
                st = column_metadata(r, (int32_t)g, i, &c->keys[key - 1], &rejected, err);
                if (st != BASALT_OK) {
                    basalt_parquet_reader_context(r, (int32_t)g, i, st, err);
                    continue;
                }
                if (rejected) {
                    x->rejected = true;
                    continue;
                }
            } else if (!cc->has_meta_data) {
                st = basalt_error_set(err, BASALT_CORRUPT,
                                      "row group %zu: column '%s': encrypted column chunk "
                                      "without column metadata",
                                      g, s->leaves[i].path);
                continue;
            }
            x->key = key;
        }
    }
    basalt_free(ck.asked);
    basalt_free(ck.explicit_key);
    return st;
}

const struct basalt_parquet_cipher *basalt_parquet_reader_chunk_cipher(
    const struct basalt_parquet_reader *r, int32_t row_group, int32_t leaf)
{
    const struct basalt_parquet_file_crypto *c = r->crypto;
    if (!c || !c->chunks)
        return NULL;
    const struct basalt_parquet_chunk_crypto *x =
        &c->chunks[(size_t)row_group * (size_t)c->n_leaves + (size_t)leaf];
    return x->key ? &c->keys[x->key - 1] : NULL;
}

basalt_status basalt_parquet_crypto_chunk_refusal(const struct basalt_parquet_reader *r,
                                                  int32_t row_group, int32_t leaf,
                                                  struct basalt_error *err)
{
    const struct basalt_parquet_file_crypto *c = r->crypto;
    if (!c || !c->have_options)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "encrypted column chunk: no decryption keys were given");
    const struct basalt_parquet_chunk_crypto *x =
        c->chunks ? &c->chunks[(size_t)row_group * (size_t)c->n_leaves + (size_t)leaf] : NULL;
    if (x && x->rejected)
        return basalt_error_set(err, BASALT_AUTH,
                                "encrypted column chunk: column metadata: AES-GCM "
                                "authentication failed with the key found for it: a wrong key "
                                "or AAD prefix, or modified bytes");
    const struct basalt_parquet_column_chunk *cc = &r->md.row_groups[row_group].columns[leaf];
    const struct basalt_parquet_column_crypto_metadata *cm =
        cc->has_crypto_metadata ? cc->crypto_metadata : NULL;
    if (cm && cm->kind == BASALT_PARQUET_COLUMN_CRYPTO_ENCRYPTION_WITH_FOOTER_KEY)
        return basalt_error_set(err, BASALT_AUTH,
                                "encrypted column chunk: encrypted with the footer key, which "
                                "is not available");
    char what[128];
    describe_metadata(cm && cm->has_key_metadata ? &cm->key_metadata : NULL, what, sizeof what);
    return basalt_error_set(err, BASALT_AUTH,
                            "encrypted column chunk: no key for it (key metadata %s)", what);
}

basalt_status basalt_parquet_reader_decrypt_module(const struct basalt_parquet_reader *r,
                                                   int32_t row_group, int32_t leaf, int type,
                                                   const uint8_t *data, size_t avail,
                                                   uint8_t **out, size_t *out_len,
                                                   size_t *module_len, struct basalt_error *err)
{
    const struct basalt_parquet_cipher *key = basalt_parquet_reader_chunk_cipher(r, row_group, leaf);
    if (!key)
        return basalt_error_set(err, BASALT_INTERNAL, "no key for an encrypted module");
    struct basalt_parquet_module_id id = {type, basalt_parquet_reader_rg_ordinal(r, row_group),
                                          leaf, 0};
    return basalt_parquet_crypto_decrypt_alloc(key, &id, data, avail, out, out_len, module_len,
                                               err);
}
