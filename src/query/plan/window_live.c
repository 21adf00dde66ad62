/* The first K rows of every partition so far, for a limited window
 * (plan/run_window_limit.c) whose partition and order keys are fixed-width
 * numbers or times and whose K is small. Every row offered is compared with
 * its partition's K entries: it enters only if it comes before the last of
 * them, which it then pushes out. The worker holds the rows that entered;
 * those pushed out since are dropped by probing the table again
 * (basalt_qwin_live_holding), with no sort. Where a sort would hold every row
 * since the last pruning and then copy it twice, this holds the table (one
 * block of K entries per partition) and the rows that entered.
 *
 * An entry is the row's order key images (direction applied), a mask of
 * its NULL order keys and its input position (seq, row); entries compare as
 * the sort orders rows: per key NULLs first or last, then the images, then
 * the position. So the table's K rows per partition are exactly the first
 * K that the sort would give for the rows offered. */
#include <math.h>
#include <string.h>

#include "plan/window_cut.h"
#include "plan/window_live.h"

/* Blocks are kept in pages so the table grows without moving them. */
#define PAGE_BLOCKS 1024

struct basalt_qwin_live {
    struct basalt_qwin_keycol part[64], order[64];
    int n_part, n_order;
    int64_t limit;
    int entry_words; /* order images, NULL mask, seq, row */
    int block_words; /* hash with count, partition key and mask, limit entries */
    uint64_t **pages;
    int64_t n_pages, n_blocks;
    uint64_t *index; /* open addressing: hash tag << 32 | (block + 1); 0 empty */
    int64_t cap;
    int64_t rows;
    /* per row of the batch at hand: its partition tuple and hash */
    uint64_t *keys, *hashes;
    int64_t scratch_rows;
};

/* Rows whose index slots, then whose blocks, are asked of memory together
 * before they are placed: the table is far larger than the caches when
 * partitions are many, and each row needs a slot and a block, so the
 * misses of a group overlap instead of following one another. */
#define GROUP 64

/* A block's first word: its partition's hash above the low byte, its
 * entry count in the low byte. */
#define COUNT_MASK UINT64_C(0xff)

static uint64_t *block_at(const struct basalt_qwin_live *l, int64_t b)
{
    return l->pages[b / PAGE_BLOCKS] + (size_t)(b % PAGE_BLOCKS) * (size_t)l->block_words;
}

static uint64_t *entries_of(const struct basalt_qwin_live *l, uint64_t *block)
{
    return block + 1 + l->n_part + 1;
}

bool basalt_qwin_live_applies(const struct ArrowSchema *schema, const int *part_cols, int n_part,
                              const struct basalt_qsort_key *order, int n_order, int64_t limit)
{
    return limit > 0 && limit <= BASALT_QWIN_LIVE_MAX_K &&
           basalt_qwin_cut_applies(schema, part_cols, n_part, order, n_order);
}

basalt_status basalt_qwin_live_new(const struct ArrowSchema *schema, const int *part_cols,
                                   int n_part, const struct basalt_qsort_key *order, int n_order,
                                   int64_t limit, struct basalt_qwin_live **out,
                                   struct basalt_error *err)
{
    *out = NULL;
    if (!basalt_qwin_live_applies(schema, part_cols, n_part, order, n_order, limit))
        return basalt_error_set(err, BASALT_INVALID_ARG, "window: no live table for these keys");
    struct basalt_qwin_live *l = basalt_calloc(1, sizeof *l);
    if (l == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    l->n_part = n_part;
    l->n_order = n_order;
    l->limit = limit;
    basalt_qwin_keycols_init(schema, part_cols, n_part, order, n_order, l->part, l->order);
    l->entry_words = n_order + 3;
    l->block_words = 1 + n_part + 1 + (int)limit * l->entry_words;
    *out = l;
    return BASALT_OK;
}

void basalt_qwin_live_free(struct basalt_qwin_live *l)
{
    if (l == NULL)
        return;
    for (int64_t p = 0; p < l->n_pages; p++)
        basalt_free(l->pages[p]);
    basalt_free(l->pages);
    basalt_free(l->index);
    basalt_free(l->keys);
    basalt_free(l->hashes);
    basalt_free(l);
}

int64_t basalt_qwin_live_rows(const struct basalt_qwin_live *l) { return l ? l->rows : 0; }

/* Entry order: the sort's (NULL placement, image per key, then seq, row). */
static int entry_cmp(const struct basalt_qwin_live *l, const uint64_t *a, const uint64_t *b)
{
    int n = l->n_order;
    uint64_t an = a[n], bn = b[n];
    for (int k = 0; k < n; k++) {
        bool a_null = (an >> k) & 1, b_null = (bn >> k) & 1;
        if (a_null || b_null) {
            if (a_null && b_null)
                continue;
            bool first = l->order[k].nulls_first;
            return a_null == first ? -1 : 1;
        }
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
    }
    for (int k = n + 1; k < n + 3; k++)
        if (a[k] != b[k])
            return (int64_t)a[k] < (int64_t)b[k] ? -1 : 1;
    return 0;
}

static int64_t slot_of(const struct basalt_qwin_live *l, uint64_t h)
{
    return (int64_t)((h >> 8) & (uint64_t)(l->cap - 1));
}

static uint64_t tag_of(uint64_t h) { return (h >> 32) << 32; }

static basalt_status grow_index(struct basalt_qwin_live *l, struct basalt_error *err)
{
    int64_t cap = l->cap ? l->cap * 2 : 1024;
    uint64_t *index = basalt_calloc((size_t)cap, sizeof *index);
    if (index == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    basalt_free(l->index);
    l->index = index;
    l->cap = cap;
    for (int64_t b = 0; b < l->n_blocks; b++) {
        uint64_t h = block_at(l, b)[0];
        int64_t s = slot_of(l, h);
        while (index[s])
            s = (s + 1) & (cap - 1);
        index[s] = tag_of(h) | (uint64_t)(b + 1);
    }
    return BASALT_OK;
}

static bool same_key(const uint64_t *a, const uint64_t *b, int words)
{
    for (int k = 0; k < words; k++)
        if (a[k] != b[k])
            return false;
    return true;
}

/* The block of a partition tuple, NULL when it has none (*slot: the empty
 * slot it would take). */
static uint64_t *find_block(const struct basalt_qwin_live *l, const uint64_t *key, uint64_t h,
                            int64_t *slot)
{
    uint64_t tag = tag_of(h);
    int64_t s = l->cap ? slot_of(l, h) : 0;
    while (l->cap && l->index[s]) {
        if ((l->index[s] & ~UINT64_C(0xffffffff)) == tag) {
            uint64_t *b = block_at(l, (int64_t)(l->index[s] & 0xffffffffu) - 1);
            if (same_key(b + 1, key, l->n_part + 1))
                return b;
        }
        s = (s + 1) & (l->cap - 1);
    }
    *slot = s;
    return NULL;
}

/* Asks for the cache line at p. gcc drops a loop of __builtin_prefetch
 * whose results nothing reads, so on x86 the instruction is written out. */
static inline void touch(const void *p)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __asm__ volatile("prefetcht0 %0" : : "m"(*(const char *)p));
#else
    __builtin_prefetch(p);
#endif
}

/* Fetches into the cache the index slot of hash h, or the block it names. */
static void prefetch_slot(const struct basalt_qwin_live *l, uint64_t h)
{
    touch(&l->index[slot_of(l, h)]);
}

static void prefetch_block(const struct basalt_qwin_live *l, uint64_t h)
{
    uint64_t x = l->index[slot_of(l, h)];
    if (x != 0 && (x & ~UINT64_C(0xffffffff)) == tag_of(h)) {
        const uint64_t *b = block_at(l, (int64_t)(x & 0xffffffffu) - 1);
        touch(b);
        touch(b + 8);
    }
}

/* The block of a partition tuple (key: n_part values and the mask; h its
 * hash), made empty when new. LIMIT; NOMEM. */
static basalt_status block_for(struct basalt_qwin_live *l, const uint64_t *key, uint64_t h,
                               uint64_t **out, struct basalt_error *err)
{
    int64_t s = 0;
    if ((*out = find_block(l, key, h, &s)) != NULL)
        return BASALT_OK;
    if (l->n_blocks >= UINT32_MAX - 1)
        return basalt_error_set(err, BASALT_LIMIT, "window: more than 2^32 partitions");
    if (2 * (l->n_blocks + 1) > l->cap) {
        basalt_status st = grow_index(l, err);
        if (st != BASALT_OK)
            return st;
        s = slot_of(l, h);
        while (l->index[s])
            s = (s + 1) & (l->cap - 1);
    }
    if (l->n_blocks == l->n_pages * PAGE_BLOCKS) {
        uint64_t **pages = basalt_realloc(l->pages, (size_t)(l->n_pages + 1) * sizeof *pages);
        if (pages == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        l->pages = pages;
        pages[l->n_pages] = basalt_malloc((size_t)PAGE_BLOCKS * (size_t)l->block_words * 8);
        if (pages[l->n_pages] == NULL)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        l->n_pages++;
    }
    int64_t id = l->n_blocks++;
    l->index[s] = tag_of(h) | (uint64_t)(id + 1);
    uint64_t *b = block_at(l, id);
    b[0] = h & ~COUNT_MASK; /* count 0 */
    memcpy(b + 1, key, (size_t)(l->n_part + 1) * 8);
    *out = b;
    return BASALT_OK;
}

/* Places entry e among the block's (sorted) entries if it comes before
 * the last of a full block. */
static bool place(struct basalt_qwin_live *l, uint64_t *block, const uint64_t *e)
{
    int E = l->entry_words;
    uint64_t *ents = entries_of(l, block);
    int64_t n = (int64_t)(block[0] & COUNT_MASK);
    if (n == l->limit && entry_cmp(l, e, ents + (size_t)(n - 1) * (size_t)E) >= 0)
        return false;
    if (n < l->limit) {
        block[0]++;
        l->rows++;
        n++;
    }
    /* n - 1 is now the free slot (or the last entry, pushed out). */
    int64_t at = n - 1;
    while (at > 0 && entry_cmp(l, e, ents + (size_t)(at - 1) * (size_t)E) < 0) {
        memcpy(ents + (size_t)at * (size_t)E, ents + (size_t)(at - 1) * (size_t)E, (size_t)E * 8);
        at--;
    }
    memcpy(ents + (size_t)at * (size_t)E, e, (size_t)E * 8);
    return true;
}

/* The partition tuple and hash of every row of `batch` into the scratch. */
static basalt_status hash_rows(struct basalt_qwin_live *l, const struct ArrowArray *batch,
                               struct basalt_error *err)
{
    int64_t n = batch->length, w = l->n_part + 1;
    if (n > l->scratch_rows) {
        basalt_free(l->keys);
        basalt_free(l->hashes);
        l->keys = basalt_malloc((size_t)(n * w) * 8);
        l->hashes = basalt_malloc((size_t)n * 8);
        l->scratch_rows = l->keys && l->hashes ? n : 0;
        if (l->scratch_rows == 0)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (int64_t i = 0; i < n; i++)
        l->hashes[i] = basalt_qwin_part_key(l->part, l->n_part, batch, batch->offset + i,
                                            l->keys + (size_t)(i * w));
    return BASALT_OK;
}

/* Asks memory for the index slots, then the blocks, rows [i, i + GROUP)
 * will need, when i starts a group. */
static void fetch_group(const struct basalt_qwin_live *l, int64_t i, int64_t n)
{
    if (l->cap == 0 || i % GROUP != 0)
        return;
    int64_t end = i + GROUP < n ? i + GROUP : n;
    for (int64_t j = i; j < end; j++)
        prefetch_slot(l, l->hashes[j]);
    for (int64_t j = i; j < end; j++)
        prefetch_block(l, l->hashes[j]);
}

basalt_status basalt_qwin_live_offer(struct basalt_qwin_live *l, const struct ArrowArray *batch,
                                     int64_t seq, int64_t *keep, int64_t *n_keep,
                                     struct basalt_error *err)
{
    *n_keep = 0;
    basalt_status st = hash_rows(l, batch, err);
    int64_t n = batch->length, w = l->n_part + 1, k = 0;
    uint64_t e[64 + 3];
    for (int64_t i = 0; st == BASALT_OK && i < n; i++) {
        fetch_group(l, i, n);
        int64_t at = batch->offset + i;
        uint64_t nulls = 0;
        for (int c = 0; c < l->n_order; c++) {
            bool nan;
            uint64_t v = 0;
            if (!basalt_qwin_key_value(&l->order[c], batch->children[l->order[c].column], at,
                                       true, &v, &nan)) {
                if (nan)
                    v = basalt_qs_float_image(NAN, false); /* above every number */
                else
                    nulls |= UINT64_C(1) << c;
            }
            e[c] = l->order[c].desc ? ~v : v;
        }
        e[l->n_order] = nulls;
        e[l->n_order + 1] = (uint64_t)seq;
        e[l->n_order + 2] = (uint64_t)i;
        uint64_t *block = NULL;
        st = block_for(l, l->keys + (size_t)(i * w), l->hashes[i], &block, err);
        if (st == BASALT_OK && place(l, block, e))
            keep[k++] = i;
    }
    *n_keep = k;
    return st;
}

static int64_t int64_at(const struct ArrowArray *c, int64_t i)
{
    return ((const int64_t *)c->buffers[1])[c->offset + i];
}

basalt_status basalt_qwin_live_holding(struct basalt_qwin_live *l,
                                       const struct ArrowArray *batch, int seq_col, int row_col,
                                       int64_t *keep, int64_t *n_keep, struct basalt_error *err)
{
    *n_keep = 0;
    basalt_status st = hash_rows(l, batch, err);
    int64_t n = batch->length, w = l->n_part + 1, k = 0;
    for (int64_t i = 0; st == BASALT_OK && i < n; i++) {
        fetch_group(l, i, n);
        int64_t slot;
        const uint64_t *b = find_block(l, l->keys + (size_t)(i * w), l->hashes[i], &slot);
        if (b == NULL)
            continue;
        int64_t at = batch->offset + i;
        uint64_t seq = (uint64_t)int64_at(batch->children[seq_col], at);
        uint64_t row = (uint64_t)int64_at(batch->children[row_col], at);
        const uint64_t *ents = entries_of(l, (uint64_t *)(uintptr_t)b);
        int64_t count = (int64_t)(b[0] & COUNT_MASK);
        for (int64_t j = 0; j < count; j++) {
            const uint64_t *e = ents + (size_t)j * (size_t)l->entry_words;
            if (e[l->n_order + 1] == seq && e[l->n_order + 2] == row) {
                keep[k++] = i;
                break;
            }
        }
    }
    *n_keep = k;
    return st;
}

basalt_status basalt_qwin_live_merge(struct basalt_qwin_live *into,
                                     const struct basalt_qwin_live *from,
                                     struct basalt_error *err)
{
    for (int64_t b = 0; b < from->n_blocks; b++) {
        uint64_t *src = block_at(from, b);
        uint64_t *dst = NULL;
        basalt_status st = block_for(into, src + 1, src[0], &dst, err);
        if (st != BASALT_OK)
            return st;
        const uint64_t *ents = entries_of(from, src);
        int64_t n = (int64_t)(src[0] & COUNT_MASK);
        for (int64_t k = 0; k < n; k++)
            place(into, dst, ents + (size_t)k * (size_t)from->entry_words);
    }
    return BASALT_OK;
}
