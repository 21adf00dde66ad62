/* Fuzz target for table metadata parsing. Metadata that parses must
 * serialise, the serialised text must parse, and serialising that again
 * must give the same text (a fixed point). The schema of every snapshot and
 * every field lookup by id and by name are exercised too. Statuses other
 * than OK, CORRUPT, UNSUPPORTED, LIMIT and NOMEM abort, as do leaks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_metadata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_status(basalt_status st)
{
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_UNSUPPORTED &&
        st != BASALT_LIMIT && st != BASALT_NOMEM)
        abort();
}

static void walk(const struct basalt_iceberg_metadata *m)
{
    char buf[256];
    for (uint32_t i = 0; i < m->n_schemas; i++) {
        const struct basalt_iceberg_schema *s = &m->schemas[i];
        basalt_iceberg_type_to_string(&s->root, buf, sizeof(buf));
        for (uint32_t j = 0; j < s->root.n_fields; j++) {
            const struct basalt_iceberg_field *f = &s->root.fields[j];
            if (basalt_iceberg_schema_field(s, f->id) == NULL)
                abort();
            if (basalt_iceberg_schema_field_by_name(s, f->name, false) == NULL)
                abort();
            basalt_iceberg_schema_field_name(s, f->id, buf, sizeof(buf));
        }
    }
    for (uint32_t i = 0; i < m->n_snapshots; i++) {
        if (basalt_iceberg_metadata_snapshot_schema(m, &m->snapshots[i]) == NULL)
            abort();
        const struct basalt_iceberg_snapshot *s = NULL;
        basalt_status st = basalt_iceberg_metadata_snapshot_as_of(m, m->snapshots[i].timestamp_ms,
                                                                  &s, NULL);
        if (st != BASALT_OK && st != BASALT_NOT_FOUND)
            abort();
    }
    if (basalt_iceberg_metadata_current_schema(m) == NULL)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t live = basalt_alloc_live();
    struct basalt_iceberg_metadata *m = NULL;
    struct basalt_error err;
    /* a small inflate limit keeps decompression bombs cheap */
    basalt_status st = basalt_iceberg_metadata_parse_limit(data, size, "fuzz", (size_t)1 << 22,
                                                           &m, &err);
    check_status(st);
    if (st == BASALT_OK) {
        walk(m);
        char *j1 = NULL, *j2 = NULL;
        size_t l1 = 0, l2 = 0;
        struct basalt_iceberg_metadata *again = NULL;
        if (basalt_iceberg_metadata_to_json(m, &j1, &l1, NULL) != BASALT_OK)
            abort();
        if (basalt_iceberg_metadata_parse(j1, l1, "again", &again, &err) != BASALT_OK)
            abort();
        if (basalt_iceberg_metadata_to_json(again, &j2, &l2, NULL) != BASALT_OK)
            abort();
        if (l1 != l2 || memcmp(j1, j2, l1) != 0)
            abort();
        basalt_free(j1);
        basalt_free(j2);
        basalt_iceberg_metadata_free(again);
    }
    basalt_iceberg_metadata_free(m);
    if (basalt_alloc_live() != live)
        abort();
    return 0;
}
