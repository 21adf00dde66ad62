/* Read access to parsed schemas: the root, named types, names of types,
 * fields and extra attributes. */
#include "avro_internal.h"

const struct basalt_avro_node *basalt_avro_schema_root(const struct basalt_avro_schema *schema)
{
    return schema->root;
}

const struct basalt_avro_node *basalt_avro_schema_find(const struct basalt_avro_schema *schema,
                                                       const char *full_name)
{
    return basalt_avro_names_get(schema, full_name);
}

uint32_t basalt_avro_schema_node_count(const struct basalt_avro_schema *schema)
{
    return schema->node_count;
}

const char *basalt_avro_type_name(enum basalt_avro_type type)
{
    static const char *const names[] = {"null",   "boolean", "int",    "long",   "float",
                                        "double", "bytes",   "string", "record", "enum",
                                        "array",  "map",     "union",  "fixed"};
    return (unsigned)type < sizeof names / sizeof names[0] ? names[type] : "unknown";
}

const char *basalt_avro_logical_name(enum basalt_avro_logical logical)
{
    static const char *const names[] = {"",
                                        "decimal",
                                        "uuid",
                                        "date",
                                        "time-millis",
                                        "time-micros",
                                        "timestamp-millis",
                                        "timestamp-micros",
                                        "timestamp-nanos",
                                        "local-timestamp-millis",
                                        "local-timestamp-micros",
                                        "local-timestamp-nanos",
                                        "duration"};
    return (unsigned)logical < sizeof names / sizeof names[0] ? names[logical] : "";
}

int32_t basalt_avro_node_field_index(const struct basalt_avro_node *node, const char *name)
{
    if (!node || node->type != BASALT_AVRO_RECORD)
        return -1;
    for (uint32_t i = 0; i < node->count; i++)
        if (strcmp(node->fields[i].name, name) == 0)
            return (int32_t)i;
    return -1;
}

static const char *find_prop(const struct basalt_avro_prop *props, uint32_t n, const char *key)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(props[i].key, key) == 0)
            return props[i].json;
    return NULL;
}

const char *basalt_avro_node_prop(const struct basalt_avro_node *node, const char *key)
{
    return find_prop(node->props, node->prop_count, key);
}

const char *basalt_avro_field_prop(const struct basalt_avro_field *field, const char *key)
{
    return find_prop(field->props, field->prop_count, key);
}
