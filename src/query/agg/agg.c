/* The aggregation's description, the locals, and consume: key columns go
 * through the dense map or the hash table chunk by chunk, then each call's
 * states are updated column-at-a-time over the chunk's group ids. */
#include <string.h>

#include "agg/agg_internal.h"

_Static_assert(QAGG_PARTS == BASALT_QAGG_SPILL_PARTS, "spill partitions are the merge's");

void basalt_qagg_free(struct basalt_qagg *agg)
{
    if (!agg)
        return;
    for (int c = 0; c < agg->n_calls; c++)
        basalt_free(agg->calls[c].separator);
    basalt_free(agg->calls);
    basalt_free(agg->keys);
    basalt_free(agg->ptr_word);
    basalt_free(agg);
}

static basalt_status layout_keys(struct basalt_qagg *a, struct basalt_error *err)
{
    int32_t off = ((a->n_keys + 63) / 64) * 8;
    a->null_words = off / 8;
    for (int k = 0; k < a->n_keys; k++) {
        struct qagg_keyinfo *ki = &a->keys[k];
        if (ki->type.id <= BASALT_QUERY_TYPE_NULL || ki->type.id >= BASALT_QUERY_TYPE_COUNT)
            return basalt_error_set(err, BASALT_UNSUPPORTED, "aggregate: key %d has no type", k);
        basalt_status st = basalt_query_type_format(ki->type, ki->format, sizeof ki->format, err);
        if (st != BASALT_OK)
            return st;
        ki->phys = basalt_qagg_phys(ki->type);
        ki->width = basalt_qagg_phys_width(ki->phys);
        int32_t al = ki->width < 8 ? ki->width : 8;
        off = (off + al - 1) / al * al;
        ki->offset = off;
        off += ki->width;
        if (ki->phys == QP_STR)
            a->has_strings = true;
    }
    a->row_width = off ? (off + 7) / 8 * 8 : 8;
    a->row_words = a->row_width / 8;
    a->ptr_word = basalt_calloc((size_t)a->row_words, sizeof(bool));
    if (!a->ptr_word)
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    for (int k = 0; k < a->n_keys; k++)
        if (a->keys[k].phys == QP_STR)
            a->ptr_word[(a->keys[k].offset + 8) / 8] = true;
    a->word_key = !a->has_strings && a->row_words == 2;
    a->str_keys = a->n_keys >= 1 && a->n_keys <= QAGG_STR_KEYS_MAX;
    for (int k = 0; k < a->n_keys; k++)
        a->str_keys &= a->keys[k].phys == QP_STR;
    a->word_seed = basalt_qagg_hash_step(0x9e3779b97f4a7c15ull, 0);
    enum qagg_phys p = a->n_keys == 1 ? a->keys[0].phys : QP_STR;
    a->dense_ok = a->n_keys == 1 && p != QP_STR && p != QP_F32 && p != QP_F64 && p != QP_DEC &&
                  p != QP_IV;
    return BASALT_OK;
}

basalt_status basalt_qagg_new(const struct basalt_query_type *key_types, int n_keys,
                              const struct basalt_qagg_call *calls, int n_calls,
                              const struct basalt_qagg_options *opts, struct basalt_qagg **out,
                              struct basalt_error *err)
{
    if (!out || n_keys < 0 || n_calls < 0 || (n_keys && !key_types) || (n_calls && !calls))
        return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate: bad arguments");
    *out = NULL;
    struct basalt_qagg *a = basalt_calloc(1, sizeof *a);
    if (!a)
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    a->n_keys = n_keys;
    if (opts)
        a->opts = *opts;
    a->keys = basalt_calloc(n_keys ? (size_t)n_keys : 1, sizeof *a->keys);
    a->calls = basalt_calloc(n_calls ? (size_t)n_calls : 1, sizeof *a->calls);
    if (!a->keys || !a->calls) {
        basalt_qagg_free(a);
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    }
    for (int k = 0; k < n_keys; k++)
        a->keys[k].type = key_types[k];
    basalt_status st = layout_keys(a, err);
    for (int c = 0; c < n_calls && st == BASALT_OK; c++) {
        struct qagg_callinfo *ci = &a->calls[c];
        ci->call = calls[c];
        ci->call.separator = NULL;
        st = basalt_qagg_result_type(&calls[c], &ci->out, err);
        if (st != BASALT_OK)
            break;
        a->n_calls = c + 1;
        basalt_qagg_call_setup(ci);
        if (calls[c].kind == BASALT_QAGG_STRING_AGG) {
            const char *sep = calls[c].separator ? calls[c].separator : ",";
            ci->sep_len = strlen(sep);
            ci->separator = basalt_malloc(ci->sep_len + 1);
            if (!ci->separator)
                st = basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
            else
                memcpy(ci->separator, sep, ci->sep_len + 1);
        }
    }
    if (st != BASALT_OK) {
        basalt_qagg_free(a);
        return st;
    }
    a->n_calls = n_calls;
    *out = a;
    return BASALT_OK;
}

void basalt_qagg_stats(const struct basalt_qagg *agg, struct basalt_qagg_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    if (!agg)
        return;
    stats->dense_batches = atomic_load(&agg->dense_batches);
    stats->hashed_batches = atomic_load(&agg->hashed_batches);
    stats->global_batches = atomic_load(&agg->global_batches);
    stats->word_batches = atomic_load(&agg->word_batches);
    stats->dict_batches = atomic_load(&agg->dict_batches);
    stats->dict_map_batches = atomic_load(&agg->dict_map_batches);
    stats->groups = agg->groups;
    stats->direct_finish = agg->direct_finish;
    stats->splits = agg->splits;
    stats->partitions = agg->partitions;
}

/* A global aggregate's locals hold their one group from the start. */
static basalt_status local_start(struct basalt_qagg *agg, struct basalt_qagg_local *l,
                                 struct basalt_error *err)
{
    basalt_status st = basalt_qagg_local_init(agg, l, true, err);
    if (st != BASALT_OK || agg->n_keys > 0)
        return st;
    uint8_t zero[8] = {0};
    uint32_t g;
    st = basalt_qagg_find_or_add(l, basalt_qagg_hash_row(agg, zero), zero, &g, err);
    if (st != BASALT_OK)
        basalt_qagg_local_clear(l);
    return st;
}

basalt_status basalt_qagg_local_new(struct basalt_qagg *agg, struct basalt_qagg_local **out,
                                    struct basalt_error *err)
{
    if (!agg || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate: bad arguments");
    *out = NULL;
    struct basalt_qagg_local *l = basalt_malloc(sizeof *l);
    if (!l)
        return basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    basalt_status st = local_start(agg, l, err);
    if (st != BASALT_OK) {
        basalt_free(l);
        return st;
    }
    *out = l;
    return BASALT_OK;
}

void basalt_qagg_local_free(struct basalt_qagg_local *local)
{
    if (!local)
        return;
    basalt_qagg_local_clear(local);
    basalt_free(local);
}

/* Empties a local after finish: ready to consume again, or to be freed. */
void basalt_qagg_local_reset(struct basalt_qagg_local *l)
{
    struct basalt_qagg *agg = l->agg;
    basalt_qagg_local_clear(l);
    if (agg && local_start(agg, l, NULL) != BASALT_OK)
        l->agg = NULL;
}

/* Key k's column over array x: a dictionary array's indices read in place
 * when every key is a string (agg_strkey.c and agg_dict.c read them), else
 * its values decoded into `plain` (released by the caller). */
static basalt_status key_col_init(const struct basalt_qagg *a, int k, const struct ArrowArray *x,
                                  int64_t n, struct ArrowArray *plain, struct qagg_col *c,
                                  struct basalt_error *err)
{
    const struct qagg_keyinfo *ki = &a->keys[k];
    if (!x || !x->dictionary)
        return basalt_qagg_col_init(x, ki->phys, ki->type.large, n, c, err);
    if (ki->phys != QP_STR || k >= QAGG_STR_KEYS_MAX)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "aggregate: key %d is a dictionary array; only string keys "
                                "among the first %d may be",
                                k, QAGG_STR_KEYS_MAX);
    basalt_status st = basalt_qagg_dict_col_init(x, ki->type.large, n, c, err);
    if (st != BASALT_OK || a->str_keys)
        return st;
    st = basalt_qagg_key_decode(a, k, x, plain, err);
    return st == BASALT_OK ? basalt_qagg_col_init(plain, ki->phys, ki->type.large, n, c, err) : st;
}

/* Call c's second argument among the consume's columns, or NULL. */
static const struct qagg_col *arg2_of(const struct basalt_qagg *a, const struct qagg_col *acols,
                                      int c)
{
    return basalt_qagg_call_two_args(&a->calls[c].call) ? &acols[a->n_calls + c] : NULL;
}

basalt_status basalt_qagg_consume(struct basalt_qagg_local *l,
                                  const struct ArrowArray *const *keys,
                                  const struct ArrowArray *const *args,
                                  const struct ArrowArray *const *args2, int64_t n_rows,
                                  struct basalt_error *err)
{
    if (!l || !l->agg || !l->rowbuf)
        return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate: local not ready");
    struct basalt_qagg *a = l->agg;
    bool binary = false;
    for (int c = 0; c < a->n_calls; c++)
        binary |= basalt_qagg_call_two_args(&a->calls[c].call);
    if (n_rows < 0 || (a->n_keys && !keys) || (a->n_calls && !args) || (binary && !args2))
        return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate: bad arguments");
    if (n_rows == 0)
        return BASALT_OK;
    /* acols: the calls' arguments, then their second arguments. */
    struct qagg_col kc[8], ac[16];
    struct qagg_col *kcols = a->n_keys <= 8 ? kc : basalt_malloc(sizeof *kcols * (size_t)a->n_keys);
    struct qagg_col *acols = a->n_calls <= 8 ? ac
                                             : basalt_malloc(sizeof *acols * 2 * (size_t)a->n_calls);
    basalt_status st = BASALT_OK;
    struct qagg_dict_codes dc = {0};
    struct ArrowArray plain[QAGG_STR_KEYS_MAX] = {0};
    if (!kcols || !acols)
        st = basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    for (int k = 0; k < a->n_keys && st == BASALT_OK; k++)
        st = key_col_init(a, k, keys[k], n_rows, &plain[k], &kcols[k], err);
    if (st == BASALT_OK && a->n_keys > 0)
        st = basalt_qagg_dict_codes(l, kcols, n_rows, &dc, err);
    for (int c = 0; c < a->n_calls && st == BASALT_OK; c++) {
        const struct qagg_callinfo *ci = &a->calls[c];
        memset(&acols[a->n_calls + c], 0, sizeof acols[c]);
        if (ci->call.kind == BASALT_QAGG_COUNT_STAR)
            memset(&acols[c], 0, sizeof acols[c]);
        else
            st = basalt_qagg_col_init(args[c], ci->in_phys, ci->call.input.large, n_rows,
                                      &acols[c], err);
        if (st == BASALT_OK && basalt_qagg_call_two_args(&ci->call))
            st = basalt_qagg_col_init(args2[c], ci->in2_phys, ci->call.input2.large, n_rows,
                                      &acols[a->n_calls + c], err);
    }
    if (st == BASALT_OK && dc.use)
        atomic_fetch_add_explicit(&a->dict_map_batches, 1, memory_order_relaxed);
    for (int k = 0; k < a->n_keys && st == BASALT_OK; k++)
        if (keys[k]->dictionary != NULL) {
            atomic_fetch_add_explicit(&a->dict_batches, 1, memory_order_relaxed);
            break;
        }
    if (st == BASALT_OK && a->n_keys == 0) {
        atomic_fetch_add_explicit(&a->global_batches, 1, memory_order_relaxed);
        for (int c = 0; c < a->n_calls && st == BASALT_OK; c++)
            st = basalt_qagg_update(l, c, &acols[c], arg2_of(a, acols, c), NULL, n_rows, true,
                                    err);
    }
    for (int64_t b = 0; a->n_keys > 0 && b < n_rows && st == BASALT_OK; b += QAGG_CHUNK) {
        int64_t e = n_rows - b < QAGG_CHUNK ? n_rows - b : QAGG_CHUNK;
        if (b > 0) {
            for (int k = 0; k < a->n_keys; k++)
                basalt_qagg_col_advance(&kcols[k], QAGG_CHUNK);
            for (int c = 0; c < 2 * a->n_calls; c++)
                acols[c].off += QAGG_CHUNK;
        }
        st = dc.use ? basalt_qagg_dict_rows(l, kcols, &dc, e, err)
                    : basalt_qagg_group_rows(l, kcols, e, err);
        for (int c = 0; c < a->n_calls && st == BASALT_OK; c++)
            st = basalt_qagg_update(l, c, &acols[c], arg2_of(a, acols, c), l->gids, e, false,
                                    err);
    }
    for (int k = 0; k < QAGG_STR_KEYS_MAX; k++)
        basalt_arrow_array_release(&plain[k]);
    if (kcols != kc)
        basalt_free(kcols);
    if (acols != ac)
        basalt_free(acols);
    return st;
}

basalt_status basalt_qagg_partition(const struct basalt_qagg *agg,
                                    const struct ArrowArray *const *keys, int64_t n_rows,
                                    int bits, uint8_t *part, struct basalt_error *err)
{
    if (!agg || agg->n_keys == 0 || !keys || !part || n_rows < 0 || bits < 0 || bits > 58)
        return basalt_error_set(err, BASALT_INVALID_ARG, "aggregate: bad arguments");
    struct qagg_col kc[8];
    struct qagg_col *kcols = agg->n_keys <= 8 ? kc
                                              : basalt_malloc(sizeof *kcols * (size_t)agg->n_keys);
    size_t w = (size_t)agg->row_width;
    uint8_t *rows = basalt_malloc(w * QAGG_CHUNK);
    uint64_t *hashes = basalt_malloc(sizeof *hashes * QAGG_CHUNK);
    basalt_status st = kcols && rows && hashes
                           ? BASALT_OK
                           : basalt_error_set(err, BASALT_NOMEM, "aggregate: out of memory");
    struct ArrowArray plain[QAGG_STR_KEYS_MAX] = {0};
    for (int k = 0; k < agg->n_keys && st == BASALT_OK; k++)
        st = key_col_init(agg, k, keys[k], n_rows, &plain[k], &kcols[k], err);
    for (int64_t b = 0; st == BASALT_OK && b < n_rows; b += QAGG_CHUNK) {
        int64_t e = n_rows - b < QAGG_CHUNK ? n_rows - b : QAGG_CHUNK;
        if (b > 0)
            for (int k = 0; k < agg->n_keys; k++)
                basalt_qagg_col_advance(&kcols[k], QAGG_CHUNK);
        if (agg->str_keys) {
            basalt_qagg_str_encode(agg, kcols, e, rows, hashes);
        } else {
            basalt_qagg_encode_rows(agg, kcols, e, rows);
            for (int64_t i = 0; i < e; i++)
                hashes[i] = basalt_qagg_hash_row(agg, rows + (size_t)i * w);
        }
        for (int64_t i = 0; i < e; i++)
            part[b + i] = (uint8_t)(hashes[i] >> (64 - QAGG_PART_BITS - bits) & (QAGG_PARTS - 1));
    }
    for (int k = 0; k < QAGG_STR_KEYS_MAX; k++)
        basalt_arrow_array_release(&plain[k]);
    basalt_free(rows);
    basalt_free(hashes);
    if (kcols != kc)
        basalt_free(kcols);
    return st;
}
