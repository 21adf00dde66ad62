/* String lists and identifiers shared by the catalogs. */
#include <stdlib.h>
#include <string.h>

#include "catalog_internal.h"

basalt_status basalt_iceberg_strings_add(struct basalt_iceberg_strings *list, const char *s,
                                         size_t len, struct basalt_error *err)
{
    if (list->n == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 8;
        char **items = basalt_realloc(list->items, cap * sizeof *items);
        if (!items)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory listing a catalog");
        list->items = items;
        list->cap = cap;
    }
    char *copy = basalt_iceberg_strndup(s, len);
    if (!copy)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory listing a catalog");
    list->items[list->n++] = copy;
    return BASALT_OK;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void basalt_iceberg_strings_sort_unique(struct basalt_iceberg_strings *list)
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

void basalt_iceberg_strings_reset(struct basalt_iceberg_strings *list)
{
    basalt_iceberg_string_list_free(list->items, list->n);
    memset(list, 0, sizeof *list);
}

void basalt_iceberg_string_list_free(char **list, size_t n)
{
    if (!list)
        return;
    for (size_t i = 0; i < n; i++)
        basalt_free(list[i]);
    basalt_free(list);
}

basalt_status basalt_iceberg_identifier_split(const char *identifier, char **ns, char **name,
                                              struct basalt_error *err)
{
    *ns = *name = NULL;
    const char *dot = identifier ? strrchr(identifier, '.') : NULL;
    if (!dot || dot == identifier || !dot[1])
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "table identifier '%.200s' is not <namespace>.<table>",
                                identifier ? identifier : "");
    *ns = basalt_iceberg_strndup(identifier, (size_t)(dot - identifier));
    *name = basalt_iceberg_strdup(dot + 1);
    if (!*ns || !*name) {
        basalt_free(*ns);
        basalt_free(*name);
        *ns = *name = NULL;
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    return BASALT_OK;
}
