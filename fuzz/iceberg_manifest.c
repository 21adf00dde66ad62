/* Fuzz target for Iceberg manifest lists and manifests: the whole input is
 * parsed as a manifest list (with the table format version taken from its
 * length), then as a manifest three ways (no spec; a spec with an identity
 * string and a day field over a small schema; without metrics through a plan
 * cache), and the bounds of any list are decoded. Garbage may only give
 * CORRUPT, UNSUPPORTED, LIMIT or NOMEM; nothing may leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_status(basalt_status st)
{
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_LIMIT && st != BASALT_NOMEM &&
        st != BASALT_UNSUPPORTED)
        abort();
}

static struct basalt_iceberg_field fields[2] = {
    {.id = 1, .name = "s", .type = {.id = BASALT_ICEBERG_TYPE_STRING}},
    {.id = 2, .name = "ts", .type = {.id = BASALT_ICEBERG_TYPE_TIMESTAMP}},
};
static struct basalt_iceberg_partition_field pfields[2] = {
    {.source_id = 1, .field_id = 1000, .name = "s",
     .transform = {BASALT_ICEBERG_TRANSFORM_IDENTITY, 0, "identity"}},
    {.source_id = 2, .field_id = 1001, .name = "ts_day",
     .transform = {BASALT_ICEBERG_TRANSFORM_DAY, 0, "day"}},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t live = basalt_alloc_live();
    struct basalt_iceberg_schema schema = {
        .root = {.id = BASALT_ICEBERG_TYPE_STRUCT, .fields = fields, .n_fields = 2}};
    struct basalt_iceberg_partition_spec spec = {.spec_id = 0, .fields = pfields, .n_fields = 2};

    struct basalt_iceberg_manifest_list *list = NULL;
    basalt_status st = basalt_iceberg_manifest_list_parse(data, size, "l", (int32_t)(size % 4),
                                                          &list, NULL);
    check_status(st);
    if (st == BASALT_OK) {
        check_status(basalt_iceberg_manifest_list_decode_bounds(list, &spec, 1, &schema, NULL));
        for (uint32_t i = 0; i < list->n_files; i++)
            if (!list->files[i].manifest_path)
                abort();
    }
    const struct basalt_iceberg_manifest_file *from = list && list->n_files ? &list->files[0] : NULL;

    struct basalt_iceberg_manifest *m = NULL;
    st = basalt_iceberg_manifest_parse(data, size, "m", from, NULL, NULL, NULL, &m, NULL);
    check_status(st);
    if (st == BASALT_OK) {
        for (uint32_t i = 0; i < m->n_entries; i++)
            if (!m->entries[i].data_file.file_path ||
                m->entries[i].status == BASALT_ICEBERG_ENTRY_DELETED)
                abort();
    }
    basalt_iceberg_manifest_free(m);
    m = NULL;
    st = basalt_iceberg_manifest_parse(data, size, "m", NULL, &spec, &schema, NULL, &m, NULL);
    check_status(st);
    if (st == BASALT_OK)
        for (uint32_t i = 0; i < m->n_entries; i++)
            if (m->entries[i].data_file.n_partition != 2)
                abort();
    basalt_iceberg_manifest_free(m);
    m = NULL;

    struct basalt_iceberg_manifest_cache *cache = NULL;
    if (basalt_iceberg_manifest_cache_new(&cache, NULL) == BASALT_OK) {
        struct basalt_iceberg_manifest_read_options o;
        basalt_iceberg_manifest_read_options_init(&o);
        o.with_metrics = false;
        o.with_deleted = true;
        o.plan_cache = basalt_iceberg_manifest_cache_plans(cache);
        st = basalt_iceberg_manifest_parse(data, size, "m", from, NULL, NULL, &o, &m, NULL);
        check_status(st);
        if (st == BASALT_OK) {
            const struct basalt_iceberg_manifest *got = NULL;
            check_status(basalt_iceberg_manifest_cache_add(cache, "m", m, &got, NULL));
        }
        basalt_iceberg_manifest_cache_free(cache);
    }
    basalt_iceberg_manifest_list_free(list);
    if (basalt_alloc_live() != live)
        abort();
    return 0;
}
