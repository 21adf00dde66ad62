/* Struct columns of a Parquet, JSON or IPC file or an Iceberg table as
 * their leaf fields: `s STRUCT(a INT, b STRUCT(c VARCHAR))` is read as the
 * columns "s.a" and "s.b.c", which SQL names as `s.a` and `s.b.c`
 * (sql/bind/bind.c). The engine's expressions take flat types only; a leaf
 * is a column like any other, and the Parquet and Iceberg scans read only
 * the leaves a query uses (run_source.c).
 *
 * A leaf is NULL where it or any struct above it is NULL. Arrow keeps those
 * apart (a struct's validity and each child's; the Parquet reader nulls the
 * children itself, an IPC file need not), so a leaf under a struct with
 * NULLs gets a validity of both; a leaf whose ancestors have none is moved
 * out as it is. Lists and maps are leaves too (their elements are not
 * flattened): they pass through, and the expressions refuse them
 * (basalt_qexpr_opaque). Time leaves in units other than microseconds are
 * converted on the way (time_conform.c). */
#include <stdio.h>
#include <string.h>

#include "plan/plan_internal.h"

static bool is_struct(const struct ArrowSchema *f)
{
    return strcmp(f->format, "+s") == 0 && f->n_children > 0;
}

static int32_t count_leaves(const struct ArrowSchema *f)
{
    if (!is_struct(f))
        return 1;
    int32_t n = 0;
    for (int64_t i = 0; i < f->n_children; i++)
        n += count_leaves(f->children[i]);
    return n;
}

int32_t basalt_qflat_leaves(const struct ArrowSchema *schema)
{
    int32_t n = 0;
    for (int64_t i = 0; i < schema->n_children; i++)
        n += count_leaves(schema->children[i]);
    return n;
}

static bool needs_flatten(const struct ArrowSchema *f)
{
    return is_struct(f) || basalt_qtime_needs_conform(f->format);
}

bool basalt_qflat_has_structs(const struct ArrowSchema *schema)
{
    for (int64_t i = 0; i < schema->n_children; i++)
        if (needs_flatten(schema->children[i]))
            return true;
    return false;
}

/* Copies f's leaves into out->children from *k on, named prefix.name... */
static basalt_status add_leaves(const struct ArrowSchema *f, const char *prefix, bool nullable_above,
                                struct ArrowSchema *out, bool *nested, int32_t *k,
                                struct basalt_error *err)
{
    char name[1024];
    int w = prefix != NULL ? snprintf(name, sizeof name, "%s.%s", prefix, f->name ? f->name : "")
                           : snprintf(name, sizeof name, "%s", f->name ? f->name : "");
    if (w < 0 || (size_t)w >= sizeof name)
        return basalt_error_set(err, BASALT_LIMIT, "a nested field's path is longer than %zu bytes",
                                sizeof name - 1);
    bool nullable = nullable_above || (f->flags & ARROW_FLAG_NULLABLE) != 0;
    if (!is_struct(f)) {
        struct ArrowSchema *dst = out->children[*k];
        basalt_status st = basalt_qtime_needs_conform(f->format)
                               ? basalt_qtime_conform_schema(f, name, dst, err)
                               : basalt_arrow_schema_copy_renamed(f, name, dst, err);
        if (st == BASALT_OK && nullable)
            dst->flags |= ARROW_FLAG_NULLABLE;
        nested[(*k)++] = prefix != NULL;
        return st;
    }
    basalt_status st = BASALT_OK;
    for (int64_t i = 0; i < f->n_children && st == BASALT_OK; i++)
        st = add_leaves(f->children[i], name, nullable, out, nested, k, err);
    return st;
}

basalt_status basalt_qflat_schema(const struct ArrowSchema *in, struct ArrowSchema *out,
                                  bool **nested, struct basalt_error *err)
{
    *nested = NULL;
    int32_t n = basalt_qflat_leaves(in);
    basalt_status st = basalt_arrow_schema_init(out, "+s", in->name, in->flags, n, err);
    if (st != BASALT_OK)
        return st;
    *nested = basalt_calloc((size_t)n + 1, sizeof **nested);
    if (*nested == NULL) {
        basalt_arrow_schema_release(out);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    int32_t k = 0;
    for (int64_t i = 0; i < in->n_children && st == BASALT_OK; i++)
        st = add_leaves(in->children[i], NULL, false, out, *nested, &k, err);
    if (st != BASALT_OK) {
        basalt_arrow_schema_release(out);
        basalt_free(*nested);
        *nested = NULL;
    }
    return st;
}

/* bits[at + i] = own[own_at + i] AND valid[i] for the n rows (NULL own or
 * valid: all valid); returns how many are NULL. */
static int64_t and_bits(uint8_t *bits, int64_t at, const uint8_t *own, int64_t own_at,
                        const uint8_t *valid, int64_t n)
{
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; i++) {
        bool v = (own == NULL || basalt_bitmap_get(own, own_at + i)) &&
                 (valid == NULL || basalt_bitmap_get(valid, i));
        basalt_bitmap_set(bits, at + i, v);
        nulls += !v;
    }
    return nulls;
}

/* The validity of struct `a`'s rows (row i at a->offset + offset + i) ANDed
 * with `valid`, the rows' validity above it (NULL: all valid), into *out:
 * a fresh bitmap of n bits when a has NULLs, else `valid` itself. */
static basalt_status and_validity(const struct ArrowArray *a, int64_t offset, int64_t n,
                                  const uint8_t *valid, uint8_t **out, struct basalt_error *err)
{
    *out = (uint8_t *)(uintptr_t)valid;
    if (a->null_count == 0 || a->buffers[0] == NULL)
        return BASALT_OK;
    uint8_t *bits = basalt_aligned_alloc(64, (size_t)basalt_bitmap_bytes(n) + 64);
    if (bits == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    and_bits(bits, 0, a->buffers[0], a->offset + offset, valid, n);
    *out = bits;
    return BASALT_OK;
}

/* An array standing for `inner` with another validity bitmap: the other
 * buffers, children and dictionary are inner's, which it keeps alive (a
 * reader's arrays may be views of a mapped file, whose buffers cannot be
 * replaced). */
struct revalid {
    struct ArrowArray inner;
    uint8_t *bits;
    const void **buffers;
};

static void revalid_release(struct ArrowArray *a)
{
    struct revalid *r = a->private_data;
    basalt_arrow_array_release(&r->inner);
    basalt_free(r->bits);
    basalt_free(r->buffers);
    basalt_free(r);
    a->release = NULL;
}

/* Gives `leaf` (moved out of its struct, offset already shifted to the
 * struct's rows) the validity `valid` of the n logical rows above it ANDed
 * with its own. */
static basalt_status apply_validity(struct ArrowArray *leaf, int64_t n, const uint8_t *valid,
                                    struct basalt_error *err)
{
    if (valid == NULL)
        return BASALT_OK;
    if (leaf->n_buffers < 1)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "a nested field without a validity buffer under a NULL struct");
    int64_t bits_n = leaf->offset + n;
    struct revalid *r = basalt_calloc(1, sizeof *r);
    uint8_t *bits = basalt_aligned_alloc(64, (size_t)basalt_bitmap_bytes(bits_n) + 64);
    const void **buffers = basalt_calloc((size_t)leaf->n_buffers, sizeof *buffers);
    if (r == NULL || bits == NULL || buffers == NULL) {
        basalt_free(r);
        basalt_free(bits);
        basalt_free(buffers);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    const uint8_t *own = leaf->null_count != 0 ? leaf->buffers[0] : NULL;
    int64_t nulls = and_bits(bits, leaf->offset, own, leaf->offset, valid, n);
    for (int64_t i = 1; i < leaf->n_buffers; i++)
        buffers[i] = leaf->buffers[i];
    buffers[0] = bits;
    struct ArrowArray out = *leaf;
    out.null_count = nulls;
    out.buffers = buffers;
    out.release = revalid_release;
    out.private_data = r;
    basalt_arrow_array_move(leaf, &r->inner);
    r->bits = bits;
    r->buffers = buffers;
    *leaf = out;
    return BASALT_OK;
}

/* Moves the leaves of field f (array a, whose elements offset.. are the
 * batch's rows) into out's children from *k on. */
static basalt_status move_leaves(const struct ArrowSchema *f, struct ArrowArray *a, int64_t offset,
                                 int64_t n, const uint8_t *valid, struct ArrowArray *out,
                                 int32_t *k, struct basalt_error *err)
{
    if (!is_struct(f)) {
        struct ArrowArray *dst = out->children[(*k)++];
        basalt_arrow_array_move(a, dst);
        dst->offset += offset;
        dst->length = n;
        basalt_status st = apply_validity(dst, n, valid, err);
        if (st == BASALT_OK && basalt_qtime_needs_conform(f->format))
            st = basalt_qtime_conform_array(f->format, dst, err);
        return st;
    }
    /* Row i is the struct's element offset + i, its children's element
     * a->offset + offset + i. */
    uint8_t *here;
    basalt_status st = and_validity(a, offset, n, valid, &here, err);
    for (int64_t i = 0; i < f->n_children && st == BASALT_OK; i++)
        st = move_leaves(f->children[i], a->children[i], a->offset + offset, n, here, out, k, err);
    if (here != valid)
        basalt_free(here);
    basalt_arrow_array_release(a);
    return st;
}

basalt_status basalt_qflat_batch(const struct ArrowSchema *schema, struct ArrowArray *batch,
                                 int32_t n_leaves, struct basalt_error *err)
{
    struct ArrowArray out;
    basalt_status st = basalt_arrow_array_init(&out, 1, n_leaves, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(batch);
        return st;
    }
    out.length = batch->length;
    int32_t k = 0;
    for (int64_t i = 0; i < schema->n_children && st == BASALT_OK; i++)
        st = move_leaves(schema->children[i], batch->children[i], batch->offset, batch->length,
                         NULL, &out, &k, err);
    basalt_arrow_array_release(batch);
    if (st == BASALT_OK && k != n_leaves)
        st = basalt_error_set(err, BASALT_INTERNAL, "a batch of %d leaves where %d were expected",
                              (int)k, (int)n_leaves);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(&out);
        return st;
    }
    basalt_arrow_array_move(&out, batch);
    return BASALT_OK;
}
