/* A map from expression nodes (by address) to a value, for passes that
 * meet a node the tree holds twice: the compiler's slot of a node already
 * computed, the remap's copy of a node already copied. Open addressing,
 * kept at most half full, so a large IN list stays linear. */
#include <stdint.h>

#include "query_internal.h"

static size_t slot_of(const struct qnode_map *m, const void *key)
{
    size_t h = (size_t)(((uintptr_t)key >> 4) * UINT64_C(0x9E3779B97F4A7C15)) & (m->cap - 1);
    while (m->keys[h] != NULL && m->keys[h] != key)
        h = (h + 1) & (m->cap - 1);
    return h;
}

bool basalt_qnode_map_find(const struct qnode_map *m, const void *key, uintptr_t *value)
{
    if (m->cap == 0)
        return false;
    size_t h = slot_of(m, key);
    if (m->keys[h] == NULL)
        return false;
    *value = m->values[h];
    return true;
}

bool basalt_qnode_map_put(struct qnode_map *m, const void *key, uintptr_t value)
{
    if (2 * (m->n + 1) > m->cap) {
        struct qnode_map g = {0};
        g.cap = m->cap ? 2 * m->cap : 64;
        g.keys = basalt_calloc(g.cap, sizeof *g.keys);
        g.values = basalt_calloc(g.cap, sizeof *g.values);
        if (g.keys == NULL || g.values == NULL) {
            basalt_free(g.keys);
            basalt_free(g.values);
            return false;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i] != NULL) {
                size_t h = slot_of(&g, m->keys[i]);
                g.keys[h] = m->keys[i];
                g.values[h] = m->values[i];
            }
        g.n = m->n;
        basalt_qnode_map_free(m);
        *m = g;
    }
    size_t h = slot_of(m, key);
    if (m->keys[h] == NULL)
        m->n++;
    m->keys[h] = key;
    m->values[h] = value;
    return true;
}

void basalt_qnode_map_free(struct qnode_map *m)
{
    basalt_free(m->keys);
    basalt_free(m->values);
    m->keys = NULL;
    m->values = NULL;
    m->cap = m->n = 0;
}
