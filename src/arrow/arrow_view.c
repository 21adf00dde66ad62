/* Views of arrays: new ArrowArray structs over another array's buffers, for
 * handing the same data to several consumers (a table registered once and
 * scanned by many queries). A plain view owns only its structs; the viewed
 * array must outlive it. A shared array (basalt_arrow_shared) is owned by
 * its views instead: every struct of every view holds a reference, so the
 * data lives as long as any part of any view, whichever thread releases it
 * and whichever child a consumer moves out. */
#include <stdatomic.h>
#include <string.h>

#include "arrow_internal.h"

struct basalt_arrow_shared {
    atomic_long refs; /* the creator's hold and one per view struct */
    struct ArrowArray array;
};

static void shared_drop(struct basalt_arrow_shared *s)
{
    if (s != NULL && atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1) {
        basalt_arrow_array_release(&s->array);
        basalt_free(s);
    }
}

struct view_priv {
    struct ArrowArray **children; /* the child views' storage */
    struct ArrowArray *dictionary;
    int64_t n_children;
    struct basalt_arrow_shared *owner; /* NULL for a plain view */
};

static void view_release(struct ArrowArray *a)
{
    struct view_priv *p = a->private_data;
    if (p != NULL) {
        for (int64_t i = 0; i < p->n_children; i++) {
            if (p->children[i] != NULL && p->children[i]->release != NULL)
                p->children[i]->release(p->children[i]);
            basalt_free(p->children[i]);
        }
        if (p->dictionary != NULL) {
            if (p->dictionary->release != NULL)
                p->dictionary->release(p->dictionary);
            basalt_free(p->dictionary);
        }
        basalt_free(p->children);
        shared_drop(p->owner);
        basalt_free(p);
    }
    a->release = NULL;
    a->private_data = NULL;
}

static basalt_status view(const struct ArrowArray *src, struct ArrowArray *dst,
                          struct basalt_arrow_shared *owner, int depth, struct basalt_error *err)
{
    dst->release = NULL;
    if (depth > BASALT_ARROW_MAX_DEPTH)
        return basalt_error_set(err, BASALT_LIMIT, "array nested deeper than %d levels",
                                BASALT_ARROW_MAX_DEPTH);
    struct view_priv *p = basalt_calloc(1, sizeof *p);
    if (p == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    if (owner != NULL) {
        atomic_fetch_add_explicit(&owner->refs, 1, memory_order_relaxed);
        p->owner = owner;
    }
    *dst = *src;
    dst->private_data = p;
    dst->release = view_release;
    dst->children = NULL;
    dst->dictionary = NULL;
    basalt_status st = BASALT_OK;
    if (src->n_children > 0) {
        p->children = basalt_calloc((size_t)src->n_children, sizeof *p->children);
        if (p->children == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        else
            p->n_children = src->n_children;
        dst->children = p->children;
        for (int64_t i = 0; st == BASALT_OK && i < src->n_children; i++) {
            p->children[i] = basalt_calloc(1, sizeof *p->children[i]);
            if (p->children[i] == NULL)
                st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
            else
                st = view(src->children[i], p->children[i], owner, depth + 1, err);
        }
    }
    if (st == BASALT_OK && src->dictionary != NULL) {
        p->dictionary = basalt_calloc(1, sizeof *p->dictionary);
        if (p->dictionary == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        else
            st = view(src->dictionary, p->dictionary, owner, depth + 1, err);
        dst->dictionary = p->dictionary;
    }
    if (st != BASALT_OK)
        view_release(dst);
    return st;
}

basalt_status basalt_arrow_array_view(const struct ArrowArray *src, struct ArrowArray *dst,
                                      struct basalt_error *err)
{
    if (src == NULL || dst == NULL || src->release == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "array_view: NULL or released array");
    return view(src, dst, NULL, 0, err);
}

basalt_status basalt_arrow_shared_new(struct ArrowArray *src, struct basalt_arrow_shared **out,
                                      struct basalt_error *err)
{
    *out = NULL;
    if (src == NULL || src->release == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "shared array: NULL or released array");
    struct basalt_arrow_shared *s = basalt_calloc(1, sizeof *s);
    if (s == NULL) {
        basalt_arrow_array_release(src);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    atomic_init(&s->refs, 1);
    basalt_arrow_array_move(src, &s->array);
    *out = s;
    return BASALT_OK;
}

basalt_status basalt_arrow_shared_view(struct basalt_arrow_shared *s, struct ArrowArray *dst,
                                       struct basalt_error *err)
{
    if (s == NULL || dst == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "shared array: NULL");
    return view(&s->array, dst, s, 0, err);
}

void basalt_arrow_shared_release(struct basalt_arrow_shared *s)
{
    shared_drop(s);
}
