/* Named types of a schema: an open-addressing table on full names, and the
 * specification's rules for names. */
#include "avro_internal.h"

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

struct basalt_avro_node *basalt_avro_names_get(const struct basalt_avro_schema *schema,
                                               const char *full_name)
{
    if (schema->name_cap == 0)
        return NULL;
    uint32_t mask = schema->name_cap - 1;
    for (uint32_t i = name_hash(full_name) & mask;; i = (i + 1) & mask) {
        const struct avro_name_slot *slot = &schema->names[i];
        if (!slot->name)
            return NULL;
        if (strcmp(slot->name, full_name) == 0)
            return slot->node;
    }
}

static basalt_status names_grow(struct basalt_avro_schema *schema, struct basalt_error *err)
{
    uint32_t cap = schema->name_cap ? schema->name_cap * 2 : 16;
    struct avro_name_slot *slots = basalt_arena_alloc(&schema->arena, sizeof *slots * cap,
                                                      _Alignof(struct avro_name_slot));
    if (!slots)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for named types");
    memset(slots, 0, sizeof *slots * cap);
    for (uint32_t i = 0; i < schema->name_cap; i++) {
        struct avro_name_slot *old = &schema->names[i];
        if (!old->name)
            continue;
        uint32_t j = name_hash(old->name) & (cap - 1);
        while (slots[j].name)
            j = (j + 1) & (cap - 1);
        slots[j] = *old;
    }
    schema->names = slots;
    schema->name_cap = cap;
    return BASALT_OK;
}

basalt_status basalt_avro_names_put(struct basalt_avro_schema *schema,
                                    struct basalt_avro_node *node, struct basalt_error *err)
{
    if (basalt_avro_names_get(schema, node->name))
        return basalt_error_set(err, BASALT_CORRUPT, "type '%s' is defined twice", node->name);
    if ((schema->name_count + 1) * 2 > schema->name_cap) {
        basalt_status st = names_grow(schema, err);
        if (st != BASALT_OK)
            return st;
    }
    uint32_t mask = schema->name_cap - 1;
    uint32_t i = name_hash(node->name) & mask;
    while (schema->names[i].name)
        i = (i + 1) & mask;
    schema->names[i].name = node->name;
    schema->names[i].node = node;
    schema->name_count++;
    return BASALT_OK;
}

static bool name_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

bool basalt_avro_name_valid(const char *name, bool lenient)
{
    if (!name || !*name)
        return false;
    if (lenient) {
        /* Anything printable without dots, as Java reflection produces. */
        for (const char *p = name; *p; p++)
            if (*p == '.' || (unsigned char)*p < 0x20 || *p == '"' || *p == '\\')
                return false;
        return true;
    }
    if (!name_start(name[0]))
        return false;
    for (const char *p = name + 1; *p; p++)
        if (!name_char(*p))
            return false;
    return true;
}

bool basalt_avro_fullname_valid(const char *full, bool lenient)
{
    if (!full || !*full)
        return false;
    char part[256];
    const char *p = full;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (n == 0 || n >= sizeof part) {
            if (n == 0)
                return false;
            /* Long parts: check in place without copying. */
            for (size_t i = 0; i < n; i++) {
                char c = p[i];
                bool ok = lenient ? ((unsigned char)c >= 0x20 && c != '"' && c != '\\')
                                  : (i == 0 ? name_start(c) : name_char(c));
                if (!ok)
                    return false;
            }
        } else {
            memcpy(part, p, n);
            part[n] = '\0';
            if (!basalt_avro_name_valid(part, lenient))
                return false;
        }
        if (!dot)
            return true;
        p = dot + 1;
    }
}
