/* Views of arrays: new ArrowArray structs over another array's buffers, for
 * handing the same data to several consumers (a table registered once and
 * scanned by many queries). A view owns only its structs; the viewed array
 * must outlive it. */
#include <string.h>

#include "arrow_internal.h"

struct view_priv {
    struct ArrowArray **children; /* the child views' storage */
    struct ArrowArray *dictionary;
    int64_t n_children;
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
        basalt_free(p);
    }
    a->release = NULL;
    a->private_data = NULL;
}

static basalt_status view(const struct ArrowArray *src, struct ArrowArray *dst, int depth,
                          struct basalt_error *err)
{
    dst->release = NULL;
    if (depth > BASALT_ARROW_MAX_DEPTH)
        return basalt_error_set(err, BASALT_LIMIT, "array nested deeper than %d levels",
                                BASALT_ARROW_MAX_DEPTH);
    struct view_priv *p = basalt_calloc(1, sizeof *p);
    if (p == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
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
                st = view(src->children[i], p->children[i], depth + 1, err);
        }
    }
    if (st == BASALT_OK && src->dictionary != NULL) {
        p->dictionary = basalt_calloc(1, sizeof *p->dictionary);
        if (p->dictionary == NULL)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        else
            st = view(src->dictionary, p->dictionary, depth + 1, err);
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
    return view(src, dst, 0, err);
}
