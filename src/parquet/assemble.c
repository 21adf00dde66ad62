/* Record assembly: the Arrow array of a top-level field from the levels and
 * values of its leaves (see "Levels of a field" in parquet_schema.h).
 *
 * Every field takes its slots from one leaf below it, walking that leaf's
 * (def, rep) pairs once to count slots and once to fill validity (and, for
 * lists and maps, offsets). A leaf's present values, decoded densely, are
 * spread over its slots in place. Leaves without repetition were decoded
 * one slot per row and are taken as they are. */
#include <inttypes.h>

#include "parquet_column.h"
#include "variant_internal.h"

struct assembler {
    const struct basalt_parquet_schema *schema;
    struct basalt_parquet_leaf_values *leaves;
    bool large_lists;
    bool branchless; /* walk_branchless may be used (tests turn it off to compare) */
    int64_t branchless_walks;
    struct basalt_error *err;
};

/* The levels of one leaf, with absent arrays read as constants. */
struct levels {
    const int16_t *def;
    const int16_t *rep;
    int16_t max_def;
    int64_t n;
};

static inline int16_t def_at(const struct levels *lv, int64_t i)
{
    return lv->def ? lv->def[i] : lv->max_def;
}

static inline int16_t rep_at(const struct levels *lv, int64_t i)
{
    return lv->rep ? lv->rep[i] : 0;
}

static basalt_status corrupt(struct assembler *a, const struct basalt_parquet_schema_field *f,
                             const char *what, int64_t at)
{
    return basalt_error_set(a->err, BASALT_CORRUPT, "field '%s': %s at level %" PRId64, f->name,
                            what, at);
}

static void levels_of(const struct assembler *a, const struct basalt_parquet_schema_field *f,
                      struct levels *lv)
{
    const struct basalt_parquet_leaf_values *leaf = &a->leaves[f->leaf_begin];
    lv->def = leaf->def;
    lv->rep = leaf->rep;
    lv->max_def = a->schema->leaves[f->leaf_begin].max_def;
    lv->n = leaf->n_levels;
}

/* walk() without a branch per level, for leaves that have both level
 * arrays (every leaf under a list). The rules are walk()'s, folded into
 * arithmetic: a level starts a slot when r <= R and d >= A, carries an
 * element when r <= R + 1 and d >= D + 1, and continues the open slot when
 * r > R, which is corrupt unless that slot is a non-empty list (`open`) and,
 * for r == R + 1, the element is defined, or the level defines nothing at
 * this field (padding, see walk()). Offsets are stored at every level
 * (a continuation's store is overwritten by the next slot's start) and
 * validity bits are OR-ed into the zeroed bitmap, so the loop has no
 * data-dependent branch. Returns false when the levels are corrupt; walk()
 * then finds and names the first bad level. */
static bool walk_branchless(const struct basalt_parquet_schema_field *f, const struct levels *lv,
                            uint8_t *bits, void *offsets, bool wide, int64_t *n_slots,
                            int64_t *nulls, int64_t *n_elements)
{
    const int16_t D = f->def_level, R = f->rep_level, A = f->repeated_ancestor_def_level;
    const int16_t *def = lv->def, *rep = lv->rep;
    int64_t slots = 0, null = 0, elements = 0;
    unsigned open = 0, bad = 0;
    int32_t *off32 = offsets && !wide ? offsets : NULL;
    int64_t *off64 = offsets && wide ? offsets : NULL;
    for (int64_t i = 0; i < lv->n; i++) {
        const int16_t d = def[i], r = rep[i];
        const unsigned starts = (r <= R) & (d >= A);
        const unsigned continues = r > R;
        const unsigned element = (r <= R + 1) & (d >= D + 1);
        const unsigned fits = (open & ((r != R + 1) | (d >= D + 1))) | ((open ^ 1u) & (d < D));
        bad |= continues & (fits ^ 1u);
        open = continues ? open : (starts & (d >= D + 1));
        if (off32)
            off32[slots] = (int32_t)elements;
        else if (off64)
            off64[slots] = elements;
        if (bits)
            bits[slots >> 3] |= (uint8_t)((starts & (d >= D)) << (slots & 7));
        null += starts & (d < D);
        slots += starts;
        elements += element;
    }
    if (bad || elements > (wide ? INT64_MAX : INT32_MAX))
        return false;
    if (off32)
        off32[slots] = (int32_t)elements;
    else if (off64)
        off64[slots] = elements;
    *n_slots = slots;
    *nulls = null;
    if (n_elements)
        *n_elements = elements;
    return true;
}

/* walk_branchless for the commonest shape, a top-level field over a leaf
 * with one repetition level (a list of primitives, a struct holding one):
 * r is 0 (a new slot) or 1 (the next element). The sums need no state
 * carried from level to level, so the counting pass vectorises, and a
 * continuation is consistent exactly when it and the level before it carry
 * an element, or both are null padding (see walk()). */
static bool walk_top_level(const struct basalt_parquet_schema_field *f, const struct levels *lv,
                           uint8_t *bits, void *offsets, bool wide, int64_t *n_slots,
                           int64_t *nulls, int64_t *n_elements)
{
    const int16_t D = f->def_level, E = (int16_t)(D + 1);
    const int16_t *def = lv->def, *rep = lv->rep;
    const int64_t n = lv->n;
    int64_t slots = 0, null = 0, elements = 0;
    unsigned bad = n > 0 && rep[0] != 0;
    for (int64_t i = 0; i < n; i++) {
        const unsigned starts = rep[i] == 0;
        slots += starts;
        null += starts & (def[i] < D);
        elements += def[i] >= E;
    }
    for (int64_t i = 1; i < n; i++) {
        const unsigned fits =
            ((def[i - 1] >= E) & (def[i] >= E)) | ((def[i - 1] < E) & (def[i] < D));
        bad |= (rep[i] != 0) & (fits ^ 1u);
    }
    if (bad || elements > (wide ? INT64_MAX : INT32_MAX))
        return false;
    if (offsets) {
        int64_t slot = 0, e = 0;
        if (wide) {
            int64_t *off = offsets;
            for (int64_t i = 0; i < n; i++) {
                off[slot] = e;
                slot += rep[i] == 0;
                e += def[i] >= E;
            }
            off[slot] = e;
        } else {
            int32_t *off = offsets;
            for (int64_t i = 0; i < n; i++) {
                off[slot] = (int32_t)e;
                slot += rep[i] == 0;
                e += def[i] >= E;
            }
            off[slot] = (int32_t)e;
        }
    }
    if (bits) {
        int64_t slot = 0;
        for (int64_t i = 0; i < n; i++) {
            const unsigned starts = rep[i] == 0;
            bits[slot >> 3] |= (uint8_t)((starts & (def[i] >= D)) << (slot & 7));
            slot += starts;
        }
    }
    *n_slots = slots;
    *nulls = null;
    if (n_elements)
        *n_elements = elements;
    return true;
}

/* Slots of a struct or list field F over its leaf's levels; with `bits` /
 * `offsets` non-NULL, also fills them (`bits` zeroed). For lists, elements
 * are counted too. Returns the slot count in *n_slots and the null count in
 * *nulls. */
static basalt_status walk(struct assembler *a, const struct basalt_parquet_schema_field *f,
                          const struct levels *lv, bool is_list, uint8_t *bits, void *offsets,
                          bool wide, int64_t *n_slots, int64_t *nulls, int64_t *n_elements)
{
    const bool top_level = f->rep_level == 0 && f->repeated_ancestor_def_level == 0 &&
                           a->schema->leaves[f->leaf_begin].max_rep == 1;
    if (lv->def && lv->rep && a->branchless &&
        (top_level ? walk_top_level(f, lv, bits, offsets, wide, n_slots, nulls, n_elements)
                   : walk_branchless(f, lv, bits, offsets, wide, n_slots, nulls, n_elements))) {
        a->branchless_walks++;
        return BASALT_OK;
    }
    const int16_t D = f->def_level, R = f->rep_level, A = f->repeated_ancestor_def_level;
    int64_t slots = 0, null = 0, elements = 0;
    bool open = false, present = false, nonempty = false;
    for (int64_t i = 0; i < lv->n; i++) {
        const int16_t d = def_at(lv, i), r = rep_at(lv, i);
        if (r > R) {
            /* Continues the current slot: a list further down, or (r == R + 1)
             * the next element of this list. */
            if (!open || !present || (is_list && !nonempty)) {
                /* DuckDB writes a null fixed-size ARRAY of N elements (or
                 * one under a null parent) as N levels, the first a null
                 * and the others continuing it while defining nothing at
                 * this field. Polars and Arrow read those as one null; so
                 * does this. A continuation that defines something is
                 * corrupt. */
                if (d < D)
                    continue;
                return corrupt(a, f, "a repeated value continues no open list", i);
            }
            if (is_list && r == R + 1) {
                if (d < D + 1)
                    return corrupt(a, f, "a repeated element is not defined", i);
                elements++;
            }
            continue;
        }
        if (d < A) {
            open = false;
            continue;
        }
        const bool valid = d >= D;
        if (offsets) {
            if (wide)
                ((int64_t *)offsets)[slots] = elements;
            else
                ((int32_t *)offsets)[slots] = (int32_t)elements;
        }
        if (bits)
            basalt_bitmap_set(bits, slots, valid);
        slots++;
        null += !valid;
        open = true;
        present = valid;
        nonempty = d >= D + 1;
        if (is_list && nonempty)
            elements++;
        if (is_list && !wide && elements > INT32_MAX)
            return basalt_error_set(a->err, BASALT_LIMIT,
                                    "field '%s': more than %d list elements; read as large lists",
                                    f->name, INT32_MAX);
    }
    if (offsets) {
        if (wide)
            ((int64_t *)offsets)[slots] = elements;
        else
            ((int32_t *)offsets)[slots] = (int32_t)elements;
    }
    *n_slots = slots;
    *nulls = null;
    if (n_elements)
        *n_elements = elements;
    return BASALT_OK;
}

static basalt_status build(struct assembler *a, int32_t fi, struct ArrowArray *out);

/* The validity buffer of `arr` from `bits`, or none when nothing is null. */
static basalt_status set_validity(struct assembler *a, struct ArrowArray *arr, uint8_t *bits,
                                  int64_t nulls)
{
    if (nulls == 0) {
        basalt_free(bits);
        return basalt_arrow_array_set_buffer(arr, 0, NULL, a->err);
    }
    return basalt_arrow_array_set_buffer(arr, 0, bits, a->err);
}

static uint8_t *bitmap_new(int64_t n)
{
    size_t bytes = (size_t)basalt_bitmap_bytes(n) + 1;
    uint8_t *bits = basalt_aligned_alloc(64, bytes);
    if (bits)
        memset(bits, 0, bytes);
    return bits;
}

/* ------------------------------------------------------------------ leaves */

static basalt_status build_leaf(struct assembler *a, const struct basalt_parquet_schema_field *f,
                                struct ArrowArray *out)
{
    struct basalt_parquet_leaf_values *leaf = &a->leaves[f->leaf];
    if (!leaf->dense) {
        /* One slot per row already, validity included. */
        basalt_arrow_array_move(&leaf->values, out);
        return BASALT_OK;
    }
    struct levels lv;
    levels_of(a, f, &lv);
    const int16_t A = f->repeated_ancestor_def_level;
    const int16_t max_def = lv.max_def;
    int64_t slots = 0, present = 0;
    for (int64_t i = 0; i < lv.n; i++) {
        const int16_t d = def_at(&lv, i);
        slots += d >= A;
        present += d == max_def;
    }
    struct ArrowArray *v = &leaf->values;
    if (present != v->length)
        return basalt_error_set(a->err, BASALT_INTERNAL,
                                "field '%s': %" PRId64 " values for %" PRId64 " present levels",
                                f->name, v->length, present);
    uint8_t *bits = bitmap_new(slots);
    if (!bits)
        return basalt_error_set(a->err, BASALT_NOMEM, "out of memory for a validity bitmap");
    int64_t k = 0, nulls = 0;
    if (lv.def) {
        /* Branch-free, as in walk_branchless: bits is zeroed, a level that
         * is no slot (d < A) stores nothing and does not advance. The
         * field's def level is at most max_def, so d == max_def is the
         * whole validity test. */
        for (int64_t i = 0; i < lv.n; i++) {
            const int16_t d = lv.def[i];
            const unsigned slot = d >= A, valid = d == max_def;
            bits[k >> 3] |= (uint8_t)((slot & valid) << (k & 7));
            nulls += slot & (valid ^ 1u);
            k += slot;
        }
    } else {
        for (int64_t i = 0; i < lv.n; i++)
            basalt_bitmap_set(bits, k++, true);
    }
    if (nulls && v->n_buffers > 1) {
        uint8_t *buf = (uint8_t *)(uintptr_t)v->buffers[1];
        switch (leaf->kind) {
        case BASALT_PARQUET_OUT_BOOL:
            basalt_parquet_spaced_expand_bits(buf, 0, (uint64_t)slots, bits, 0);
            break;
        case BASALT_PARQUET_OUT_FIXED:
        case BASALT_PARQUET_OUT_INDICES:
            basalt_parquet_spaced_expand_fixed(buf, (size_t)leaf->width, (uint64_t)slots, bits,
                                               0);
            break;
        case BASALT_PARQUET_OUT_BINARY:
            if (leaf->width == 8)
                basalt_parquet_spaced_expand_offsets64((int64_t *)(void *)buf, (uint64_t)slots,
                                                       bits, 0);
            else
                basalt_parquet_spaced_expand_offsets32((int32_t *)(void *)buf, (uint64_t)slots,
                                                       bits, 0);
            break;
        default:
            break;
        }
    }
    if (leaf->kind == BASALT_PARQUET_OUT_NULL) {
        basalt_free(bits);
        v->length = slots;
        v->null_count = slots;
    } else {
        basalt_status s = set_validity(a, v, bits, nulls);
        if (s != BASALT_OK)
            return s;
        v->length = slots;
        v->null_count = nulls;
    }
    basalt_arrow_array_move(v, out);
    return BASALT_OK;
}

/* ------------------------------------------------------------------ groups */

static basalt_status build_struct(struct assembler *a, const struct basalt_parquet_schema_field *f,
                                  struct ArrowArray *out)
{
    struct levels lv;
    levels_of(a, f, &lv);
    int64_t slots, nulls;
    basalt_status s = walk(a, f, &lv, false, NULL, NULL, false, &slots, &nulls, NULL);
    if (s != BASALT_OK)
        return s;
    s = basalt_arrow_array_init(out, 1, f->n_children, a->err);
    if (s != BASALT_OK)
        return s;
    out->length = slots;
    out->null_count = nulls;
    if (nulls) {
        uint8_t *bits = bitmap_new(slots);
        if (!bits)
            return basalt_error_set(a->err, BASALT_NOMEM, "out of memory for a validity bitmap");
        s = basalt_arrow_array_set_buffer(out, 0, bits, a->err);
        if (s == BASALT_OK)
            s = walk(a, f, &lv, false, bits, NULL, false, &slots, &nulls, NULL);
        if (s != BASALT_OK)
            return s;
    }
    for (int32_t c = 0; c < f->n_children; c++) {
        s = build(a, f->children[c], out->children[c]);
        if (s != BASALT_OK)
            return s;
        if (out->children[c]->length != slots)
            return basalt_error_set(a->err, BASALT_CORRUPT,
                                    "field '%s': child '%s' has %" PRId64
                                    " entries, its siblings %" PRId64,
                                    f->name, a->schema->fields[f->children[c]].name,
                                    out->children[c]->length, slots);
    }
    return BASALT_OK;
}

static basalt_status build_list(struct assembler *a, const struct basalt_parquet_schema_field *f,
                                struct ArrowArray *out)
{
    if (f->n_children != 1)
        return basalt_error_set(a->err, BASALT_INVALID_ARG, "field '%s': a list with %" PRId32
                                " children", f->name, f->n_children);
    const bool wide = f->kind == BASALT_PARQUET_FIELD_LARGE_LIST ||
                      (f->kind == BASALT_PARQUET_FIELD_LIST && a->large_lists);
    struct levels lv;
    levels_of(a, f, &lv);
    int64_t slots, nulls, elements;
    basalt_status s = walk(a, f, &lv, true, NULL, NULL, wide, &slots, &nulls, &elements);
    if (s != BASALT_OK)
        return s;
    s = basalt_arrow_array_init(out, 2, 1, a->err);
    if (s != BASALT_OK)
        return s;
    void *offsets;
    s = basalt_arrow_array_allocate_buffer(out, 1, ((size_t)slots + 1) * (wide ? 8 : 4), &offsets,
                                           a->err);
    uint8_t *bits = NULL;
    if (s == BASALT_OK && nulls) {
        bits = bitmap_new(slots);
        s = bits ? basalt_arrow_array_set_buffer(out, 0, bits, a->err)
                 : basalt_error_set(a->err, BASALT_NOMEM, "out of memory for a validity bitmap");
    }
    if (s == BASALT_OK)
        s = walk(a, f, &lv, true, bits, offsets, wide, &slots, &nulls, &elements);
    if (s != BASALT_OK)
        return s;
    out->length = slots;
    out->null_count = nulls;
    s = build(a, f->children[0], out->children[0]);
    if (s != BASALT_OK)
        return s;
    if (out->children[0]->length != elements)
        return basalt_error_set(a->err, BASALT_CORRUPT,
                                "field '%s': %" PRId64 " list elements, its values have %" PRId64,
                                f->name, elements, out->children[0]->length);
    if (f->kind == BASALT_PARQUET_FIELD_MAP) {
        const struct ArrowArray *entries = out->children[0];
        if (entries->n_children > 0 && entries->children[0]->null_count != 0)
            return basalt_error_set(a->err, BASALT_CORRUPT, "field '%s': a map key is null",
                                    f->name);
    }
    return BASALT_OK;
}

/* A VARIANT group: its Parquet children assembled as a struct, then
 * unshredded into the parquet.variant struct of metadata and value, with
 * 64-bit offsets when any byte-array leaf below it has them (as
 * basalt_parquet_schema_to_arrow decides from the same options). */
static basalt_status build_variant(struct assembler *a, int32_t fi, struct ArrowArray *out)
{
    const struct basalt_parquet_schema_field *f = &a->schema->fields[fi];
    struct ArrowArray internal;
    memset(&internal, 0, sizeof internal);
    basalt_status s = build_struct(a, f, &internal);
    if (s != BASALT_OK) {
        basalt_arrow_array_release(&internal);
        return s;
    }
    bool large = false;
    for (int32_t k = f->leaf_begin; k < f->leaf_end; k++)
        large |= a->leaves[k].kind == BASALT_PARQUET_OUT_BINARY && a->leaves[k].width == 8;
    return basalt_parquet_variant_unshred(a->schema, fi, a->leaves, a->large_lists, large,
                                          &internal, out, a->err);
}

/* ------------------------------------------------------------------ fixed-size lists */

/* Where the values of a fixed-size list's child go once its null lists
 * get their slots: `valid` (one bit per list, NULL when none is null) says
 * which of `lists` lists hold `group` values each of the dense child;
 * a null list's `group` slots are filled with empty values. */
struct spread {
    const uint8_t *valid;
    int64_t lists;
    int64_t group;
};

static basalt_status spread_array(struct assembler *a, const struct basalt_parquet_schema_field *f,
                                  const struct spread *sp, struct ArrowArray *in,
                                  struct ArrowArray *out);

/* Null lists take slots no value in the file stands for, so the fixed size
 * (from ARROW:schema) could make a few levels ask for any amount of memory:
 * the slots below one fixed-size list are bounded as a page's values are
 * (an int32 count). */
#define FIXED_LIST_SLOTS ((int64_t)INT32_MAX)

static basalt_status too_many_slots(struct assembler *a,
                                    const struct basalt_parquet_schema_field *f)
{
    return basalt_error_set(a->err, BASALT_LIMIT,
                            "field '%s': fixed-size lists of %" PRId32
                            " take more than %" PRId64 " child slots",
                            f->name, f->list_size, FIXED_LIST_SLOTS);
}

/* Copies a bitmap run by run; the gaps get `gap`. */
static void spread_bits(const struct spread *sp, const uint8_t *src, int64_t src_offset,
                        uint8_t *dst, bool gap)
{
    int64_t k = src_offset;
    for (int64_t i = 0, o = 0; i < sp->lists; i++, o += sp->group) {
        if (basalt_bitmap_get(sp->valid, i)) {
            for (int64_t j = 0; j < sp->group; j++)
                basalt_bitmap_set(dst, o + j, basalt_bitmap_get(src, k + j));
            k += sp->group;
        } else {
            for (int64_t j = 0; j < sp->group; j++)
                basalt_bitmap_set(dst, o + j, gap);
        }
    }
}

static void spread_bytes(const struct spread *sp, const uint8_t *src, size_t width, uint8_t *dst)
{
    size_t run = (size_t)sp->group * width;
    for (int64_t i = 0; i < sp->lists; i++, dst += run) {
        if (basalt_bitmap_get(sp->valid, i)) {
            memcpy(dst, src, run);
            src += run;
        } else {
            memset(dst, 0, run);
        }
    }
}

/* The offset at k, 0 for an array of no values without an offsets buffer. */
static inline int64_t offset_at(const void *src, bool wide, int64_t k)
{
    if (!src)
        return 0;
    return wide ? ((const int64_t *)src)[k] : ((const int32_t *)src)[k];
}

/* Offsets (32- or 64-bit): a gap repeats the offset before it (an empty
 * string or list). The values they point into stay as they are. */
static void spread_offsets(const struct spread *sp, const void *src, int64_t src_offset, bool wide,
                           void *dst)
{
    int64_t k = src_offset, o = 0;
    int64_t at = offset_at(src, wide, k);
    for (int64_t i = 0; i < sp->lists; i++) {
        bool valid = basalt_bitmap_get(sp->valid, i);
        for (int64_t j = 0; j < sp->group; j++, o++) {
            if (wide)
                ((int64_t *)dst)[o] = at;
            else
                ((int32_t *)dst)[o] = (int32_t)at;
            if (valid)
                at = offset_at(src, wide, ++k);
        }
    }
    if (wide)
        ((int64_t *)dst)[o] = at;
    else
        ((int32_t *)dst)[o] = (int32_t)at;
}

/* The leaf layout of a primitive field's array: from its decoded leaf. */
static basalt_status spread_leaf(struct assembler *a, const struct basalt_parquet_schema_field *f,
                                 const struct spread *sp, const struct ArrowArray *in,
                                 struct ArrowArray *out, int64_t n)
{
    const struct basalt_parquet_leaf_values *leaf = &a->leaves[f->leaf];
    basalt_status st = BASALT_OK;
    void *buf;
    switch (leaf->kind) {
    case BASALT_PARQUET_OUT_BOOL:
        st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)basalt_bitmap_bytes(n), &buf,
                                                a->err);
        if (st == BASALT_OK)
            spread_bits(sp, in->buffers[1], in->offset, buf, false);
        return st;
    case BASALT_PARQUET_OUT_FIXED:
    case BASALT_PARQUET_OUT_INDICES:
        st = basalt_arrow_array_allocate_buffer(out, 1, (size_t)n * (size_t)leaf->width, &buf,
                                                a->err);
        if (st == BASALT_OK) {
            /* no values buffer only when no list is present */
            const uint8_t *src = in->buffers[1];
            if (src)
                src += (size_t)in->offset * (size_t)leaf->width;
            spread_bytes(sp, src, (size_t)leaf->width, buf);
        }
        return st;
    case BASALT_PARQUET_OUT_BINARY: {
        bool wide = leaf->width == 8;
        st = basalt_arrow_array_allocate_buffer(out, 1, ((size_t)n + 1) * (wide ? 8 : 4), &buf,
                                                a->err);
        if (st != BASALT_OK)
            return st;
        spread_offsets(sp, in->buffers[1], in->offset, wide, buf);
        /* The data is copied whole: the offsets still point into it. */
        int64_t end = offset_at(in->buffers[1], wide, in->offset + in->length);
        void *data;
        st = basalt_arrow_array_allocate_buffer(out, 2, (size_t)end, &data, a->err);
        if (st == BASALT_OK && end > 0 && in->buffers[2])
            memcpy(data, in->buffers[2], (size_t)end);
        return st;
    }
    default:
        return BASALT_OK;
    }
}

static basalt_status spread_array(struct assembler *a, const struct basalt_parquet_schema_field *f,
                                  const struct spread *sp, struct ArrowArray *in,
                                  struct ArrowArray *out)
{
    const int64_t n = sp->lists * sp->group;
    const bool is_null_type = in->n_buffers == 0;
    /* Gaps are null where no empty value exists: the null type, and
     * dictionary indices (the dictionary may be empty). */
    const bool null_gaps = is_null_type || in->dictionary != NULL;
    basalt_status st = basalt_arrow_array_init(out, in->n_buffers, in->n_children, a->err);
    if (st != BASALT_OK)
        return st;
    out->length = n;
    if (is_null_type) {
        out->null_count = n;
        return BASALT_OK;
    }
    int64_t gaps = n - in->length;
    if (in->buffers[0] || (null_gaps && gaps > 0)) {
        void *bits;
        st = basalt_arrow_array_allocate_buffer(out, 0, (size_t)basalt_bitmap_bytes(n), &bits,
                                                a->err);
        if (st != BASALT_OK)
            return st;
        if (in->buffers[0]) {
            spread_bits(sp, in->buffers[0], in->offset, bits, !null_gaps);
        } else {
            /* all of `in` valid: the gaps alone are null */
            for (int64_t i = 0, o = 0; i < sp->lists; i++, o += sp->group)
                for (int64_t j = 0; j < sp->group; j++)
                    basalt_bitmap_set(bits, o + j, basalt_bitmap_get(sp->valid, i));
        }
        out->null_count = in->null_count + (null_gaps ? gaps : 0);
    }
    if (in->dictionary) {
        struct ArrowArray d;
        basalt_arrow_array_move(in->dictionary, &d);
        st = basalt_arrow_array_set_dictionary(out, &d, a->err);
        if (st != BASALT_OK)
            return st;
    }
    switch (f->kind) {
    case BASALT_PARQUET_FIELD_PRIMITIVE:
        return spread_leaf(a, f, sp, in, out, n);
    case BASALT_PARQUET_FIELD_STRUCT:
        for (int32_t c = 0; c < f->n_children && c < in->n_children && st == BASALT_OK; c++)
            st = spread_array(a, &a->schema->fields[f->children[c]], sp, in->children[c],
                              out->children[c]);
        return st;
    case BASALT_PARQUET_FIELD_FIXED_LIST: {
        if (f->list_size > 0 && sp->lists * sp->group > FIXED_LIST_SLOTS / f->list_size)
            return too_many_slots(a, f);
        struct spread inner = {sp->valid, sp->lists, sp->group * f->list_size};
        return spread_array(a, &a->schema->fields[f->children[0]], &inner, in->children[0],
                            out->children[0]);
    }
    case BASALT_PARQUET_FIELD_LIST:
    case BASALT_PARQUET_FIELD_LARGE_LIST:
    case BASALT_PARQUET_FIELD_MAP: {
        const bool wide = f->kind == BASALT_PARQUET_FIELD_LARGE_LIST ||
                          (f->kind == BASALT_PARQUET_FIELD_LIST && a->large_lists);
        void *buf;
        st = basalt_arrow_array_allocate_buffer(out, 1, ((size_t)n + 1) * (wide ? 8 : 4), &buf,
                                                a->err);
        if (st != BASALT_OK)
            return st;
        spread_offsets(sp, in->buffers[1], in->offset, wide, buf);
        /* The elements stay where they are: moved over. */
        basalt_arrow_array_move(in->children[0], out->children[0]);
        return BASALT_OK;
    }
    }
    return basalt_error_set(a->err, BASALT_INVALID_ARG, "field '%s' of unknown kind", f->name);
}

/* A fixed-size list: the list's walk gives its validity and each list's
 * length, which must be the fixed size for every present list; the child,
 * built from the present lists' elements, then gets the null lists' slots. */
static basalt_status build_fixed_list(struct assembler *a,
                                      const struct basalt_parquet_schema_field *f,
                                      struct ArrowArray *out)
{
    if (f->n_children != 1)
        return basalt_error_set(a->err, BASALT_INVALID_ARG, "field '%s': a list with %" PRId32
                                " children", f->name, f->n_children);
    struct levels lv;
    levels_of(a, f, &lv);
    int64_t slots, nulls, elements;
    basalt_status s = walk(a, f, &lv, true, NULL, NULL, true, &slots, &nulls, &elements);
    if (s != BASALT_OK)
        return s;
    int64_t *offsets = basalt_malloc(((size_t)slots + 1) * sizeof *offsets);
    uint8_t *bits = bitmap_new(slots);
    if (!offsets || !bits) {
        basalt_free(offsets);
        basalt_free(bits);
        return basalt_error_set(a->err, BASALT_NOMEM, "out of memory for a fixed-size list");
    }
    s = walk(a, f, &lv, true, bits, offsets, true, &slots, &nulls, &elements);
    const int64_t size = f->list_size;
    if (s == BASALT_OK && size > 0 && slots > FIXED_LIST_SLOTS / size)
        s = too_many_slots(a, f);
    for (int64_t i = 0; i < slots && s == BASALT_OK; i++) {
        int64_t len = offsets[i + 1] - offsets[i];
        /* A null list defines no element (walk() refuses any that would). */
        if (basalt_bitmap_get(bits, i) && len != size)
            s = basalt_error_set(a->err, BASALT_CORRUPT,
                                 "field '%s': list %" PRId64 " holds %" PRId64
                                 " elements, but ARROW:schema makes it a fixed-size list of %" PRId64,
                                 f->name, i, len, size);
    }
    basalt_free(offsets);
    if (s == BASALT_OK)
        s = basalt_arrow_array_init(out, 1, 1, a->err);
    if (s != BASALT_OK) {
        basalt_free(bits);
        return s;
    }
    out->length = slots;
    out->null_count = nulls;
    struct ArrowArray dense;
    memset(&dense, 0, sizeof dense);
    s = build(a, f->children[0], nulls && size > 0 ? &dense : out->children[0]);
    if (s == BASALT_OK && nulls && size > 0) {
        const struct spread sp = {bits, slots, size};
        if (dense.length != elements)
            s = basalt_error_set(a->err, BASALT_CORRUPT,
                                 "field '%s': %" PRId64 " list elements, its values have %" PRId64,
                                 f->name, elements, dense.length);
        else
            s = spread_array(a, &a->schema->fields[f->children[0]], &sp, &dense,
                             out->children[0]);
    }
    basalt_arrow_array_release(&dense);
    if (s == BASALT_OK)
        s = set_validity(a, out, bits, nulls);
    else
        basalt_free(bits);
    if (s != BASALT_OK)
        return s;
    if (out->children[0]->length != slots * size)
        return basalt_error_set(a->err, BASALT_CORRUPT,
                                "field '%s': %" PRId64 " list elements, its values have %" PRId64,
                                f->name, slots * size, out->children[0]->length);
    return BASALT_OK;
}

static basalt_status build(struct assembler *a, int32_t fi, struct ArrowArray *out)
{
    const struct basalt_parquet_schema *schema = a->schema;
    if (fi < 0 || fi >= schema->n_fields)
        return basalt_error_set(a->err, BASALT_INVALID_ARG, "no field %" PRId32, fi);
    const struct basalt_parquet_schema_field *f = &schema->fields[fi];
    if (f->leaf_begin < 0 || f->leaf_begin >= f->leaf_end || f->leaf_end > schema->n_leaves)
        return basalt_error_set(a->err, BASALT_INVALID_ARG, "field '%s' has no leaves", f->name);
    switch (f->kind) {
    case BASALT_PARQUET_FIELD_PRIMITIVE:
        if (f->leaf < 0 || f->leaf >= schema->n_leaves || !a->leaves[f->leaf].values.release)
            return basalt_error_set(a->err, BASALT_INVALID_ARG, "field '%s': leaf not decoded",
                                    f->name);
        return build_leaf(a, f, out);
    case BASALT_PARQUET_FIELD_STRUCT:
        return f->variant ? build_variant(a, fi, out) : build_struct(a, f, out);
    case BASALT_PARQUET_FIELD_LIST:
    case BASALT_PARQUET_FIELD_LARGE_LIST:
    case BASALT_PARQUET_FIELD_MAP:
        return build_list(a, f, out);
    case BASALT_PARQUET_FIELD_FIXED_LIST:
        return build_fixed_list(a, f, out);
    }
    return basalt_error_set(a->err, BASALT_INVALID_ARG, "field '%s' of unknown kind", f->name);
}

basalt_status basalt_parquet_assemble_field_with(const struct basalt_parquet_schema *schema,
                                                 int32_t field,
                                                 struct basalt_parquet_leaf_values *leaves,
                                                 const struct basalt_parquet_assemble_options *options,
                                                 struct ArrowArray *out, struct basalt_error *err)
{
    if (!out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "assemble: NULL output");
    memset(out, 0, sizeof *out);
    if (!schema || !leaves)
        return basalt_error_set(err, BASALT_INVALID_ARG, "assemble: NULL argument");
    if (field < 0 || field >= schema->n_fields)
        return basalt_error_set(err, BASALT_INVALID_ARG, "assemble: no field %" PRId32, field);
    const struct basalt_parquet_schema_field *f = &schema->fields[field];
    if (f->leaf_begin < 0 || f->leaf_begin >= f->leaf_end || f->leaf_end > schema->n_leaves)
        return basalt_error_set(err, BASALT_INVALID_ARG, "field '%s' has no leaves", f->name);
    struct assembler a = {schema, leaves, options && options->large_lists,
                          !(options && options->no_branchless_walk), 0, err};
    basalt_status s = BASALT_OK;
    for (int32_t k = f->leaf_begin; k < f->leaf_end; k++) {
        if (!leaves[k].values.release) {
            s = basalt_error_set(err, BASALT_INVALID_ARG, "field '%s': leaf %" PRId32
                                 " not decoded", f->name, k);
            break;
        }
        if (leaves[k].n_rows != leaves[f->leaf_begin].n_rows) {
            s = basalt_error_set(err, BASALT_CORRUPT,
                                 "field '%s': leaf '%s' holds %" PRId64 " rows, leaf '%s' %" PRId64,
                                 f->name, schema->leaves[k].path, leaves[k].n_rows,
                                 schema->leaves[f->leaf_begin].path, leaves[f->leaf_begin].n_rows);
            break;
        }
    }
    if (s == BASALT_OK)
        s = build(&a, field, out);
    if (s == BASALT_OK && out->length != leaves[f->leaf_begin].n_rows)
        s = basalt_error_set(err, BASALT_CORRUPT,
                             "field '%s': %" PRId64 " slots for %" PRId64 " rows", f->name,
                             out->length, leaves[f->leaf_begin].n_rows);
    if (options && options->branchless_walks)
        *options->branchless_walks += a.branchless_walks;
    for (int32_t k = f->leaf_begin; k < f->leaf_end; k++)
        basalt_arrow_array_release(&leaves[k].values);
    if (s != BASALT_OK) {
        basalt_arrow_array_release(out);
        memset(out, 0, sizeof *out);
    }
    return s;
}

basalt_status basalt_parquet_assemble_field(const struct basalt_parquet_schema *schema,
                                            int32_t field,
                                            struct basalt_parquet_leaf_values *leaves,
                                            struct ArrowArray *out, struct basalt_error *err)
{
    return basalt_parquet_assemble_field_with(schema, field, leaves, NULL, out, err);
}
