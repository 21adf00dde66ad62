/* String copies and lists of strings on the library's allocator. */
#include <stdlib.h>
#include <string.h>

#include "basalt/core.h"

char *basalt_strndup(const char *s, size_t len)
{
    if (!s)
        return NULL;
    char *copy = basalt_malloc(len + 1);
    if (copy) {
        memcpy(copy, s, len);
        copy[len] = '\0';
    }
    return copy;
}

char *basalt_strdup(const char *s)
{
    return s ? basalt_strndup(s, strlen(s)) : NULL;
}

basalt_status basalt_string_list_add(struct basalt_string_list *list, const char *s, size_t len,
                                     struct basalt_error *err)
{
    if (list->n == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 8;
        char **items = basalt_realloc(list->items, cap * sizeof *items);
        if (!items)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory");
        list->items = items;
        list->cap = cap;
    }
    char *copy = basalt_strndup(s, len);
    if (!copy)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    list->items[list->n++] = copy;
    return BASALT_OK;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void basalt_string_list_sort_unique(struct basalt_string_list *list)
{
    if (list->n < 2)
        return;
    qsort(list->items, list->n, sizeof *list->items, compare_strings);
    size_t w = 1;
    for (size_t r = 1; r < list->n; r++) {
        if (strcmp(list->items[r], list->items[w - 1]) == 0)
            basalt_free(list->items[r]);
        else
            list->items[w++] = list->items[r];
    }
    list->n = w;
}

void basalt_string_list_reset(struct basalt_string_list *list)
{
    basalt_string_list_free(list->items, list->n);
    memset(list, 0, sizeof *list);
}

void basalt_string_list_free(char **items, size_t n)
{
    if (!items)
        return;
    for (size_t i = 0; i < n; i++)
        basalt_free(items[i]);
    basalt_free(items);
}
