/* Partition spec evolution: a new default spec from the current one, with
 * fields dropped (in v1 replaced by void, as Java does) and added, each kept
 * field keeping its id. */
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_metadata.h"
#include "commit_internal.h"
#include "iceberg_internal.h"

static bool dropped(const char *name, const char *const *drop, uint32_t n, bool *used)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(name, drop[i]) == 0) {
            used[i] = true;
            return true;
        }
    return false;
}

basalt_status basalt_iceberg_spec_changes(const struct basalt_iceberg_metadata *m,
                                          const char *add_text, const char *const *drop,
                                          uint32_t n_drop, char **requirements, char **updates,
                                          struct basalt_error *err)
{
    *requirements = *updates = NULL;
    const struct basalt_iceberg_schema *schema = basalt_iceberg_metadata_current_schema(m);
    const struct basalt_iceberg_partition_spec *cur =
        basalt_iceberg_metadata_spec(m, m->default_spec_id);
    bool *used = basalt_calloc(n_drop ? n_drop : 1, sizeof *used);
    json_t *added = NULL, *fields = json_array();
    basalt_status st = used && fields ? BASALT_OK
                                      : basalt_error_set(err, BASALT_NOMEM, "out of memory");
    for (uint32_t i = 0; st == BASALT_OK && cur && i < cur->n_fields; i++) {
        const struct basalt_iceberg_partition_field *f = &cur->fields[i];
        bool gone = dropped(f->name, drop, n_drop, used);
        /* v1 specs cannot lose a field: it stays, as void (the Java rule). */
        if (gone && m->format_version >= 2)
            continue;
        json_t *o = json_pack("{s:s,s:s,s:i,s:i}", "name", f->name, "transform",
                              gone ? "void" : f->transform.text, "source-id", (int)f->source_id,
                              "field-id", (int)f->field_id);
        if (!o || json_array_append_new(fields, o) != 0)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; st == BASALT_OK && i < n_drop; i++)
        if (!used[i])
            st = basalt_error_set(err, BASALT_INVALID_ARG, "no partition field '%.200s'", drop[i]);
    if (st == BASALT_OK && add_text && *add_text)
        st = basalt_iceberg_spec_from_text(schema, add_text, &added, err);
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(added, "fields"), i, f)
    {
        if (st != BASALT_OK)
            break;
        const char *name = json_string_value(json_object_get(f, "name"));
        size_t k;
        json_t *g;
        json_array_foreach(fields, k, g)
        {
            if (st == BASALT_OK && strcmp(json_string_value(json_object_get(g, "name")), name) == 0)
                st = basalt_error_set(err, BASALT_INVALID_ARG,
                                      "partition field '%.200s' already exists", name);
        }
        if (st == BASALT_OK && json_array_append(fields, f) != 0)
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
    }
    json_t *reqs = NULL, *ups = NULL;
    if (st == BASALT_OK) {
        reqs = json_pack("[{s:s,s:i},{s:s,s:i}]", "type", "assert-default-spec-id",
                         "default-spec-id", (int)m->default_spec_id, "type",
                         "assert-last-assigned-partition-id", "last-assigned-partition-id",
                         (int)m->last_partition_id);
        ups = json_pack("[{s:s,s:{s:O}},{s:s,s:i}]", "action", "add-spec", "spec", "fields",
                        fields, "action", "set-default-spec", "spec-id", -1);
        char *a = reqs ? json_dumps(reqs, JSON_COMPACT) : NULL;
        char *b = ups ? json_dumps(ups, JSON_COMPACT) : NULL;
        *requirements = a ? basalt_strdup(a) : NULL;
        *updates = b ? basalt_strdup(b) : NULL;
        free(a);
        free(b);
        if (!*requirements || !*updates) {
            basalt_free(*requirements);
            basalt_free(*updates);
            *requirements = *updates = NULL;
            st = basalt_error_set(err, BASALT_NOMEM, "out of memory");
        }
    }
    json_decref(reqs);
    json_decref(ups);
    json_decref(added);
    json_decref(fields);
    basalt_free(used);
    return st;
}
