/* Fuzz target for view metadata parsing. Metadata that parses must
 * serialise, the text must parse again and serialise to the same text (a
 * fixed point), and its current version and schema must be found. Statuses
 * other than OK, CORRUPT, UNSUPPORTED, LIMIT and NOMEM abort, as do leaks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_status(basalt_status st)
{
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_UNSUPPORTED &&
        st != BASALT_LIMIT && st != BASALT_NOMEM)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t live = basalt_alloc_live();
    struct basalt_iceberg_view_metadata *v = NULL, *again = NULL;
    basalt_status st = basalt_iceberg_view_metadata_parse(data, size, "fuzz", &v, NULL);
    check_status(st);
    if (st == BASALT_OK) {
        if (!basalt_iceberg_view_metadata_current_version(v) ||
            !basalt_iceberg_view_metadata_current_schema(v))
            abort();
        char *j1 = NULL, *j2 = NULL;
        size_t n1 = 0, n2 = 0;
        st = basalt_iceberg_view_metadata_to_json(v, &j1, &n1, NULL);
        check_status(st);
        if (st == BASALT_OK) {
            st = basalt_iceberg_view_metadata_parse(j1, n1, "again", &again, NULL);
            if (st == BASALT_NOMEM) {
                basalt_free(j1);
                basalt_iceberg_view_metadata_free(v);
                return 0;
            }
            if (st != BASALT_OK)
                abort(); /* what we wrote must read back */
            st = basalt_iceberg_view_metadata_to_json(again, &j2, &n2, NULL);
            check_status(st);
            if (st == BASALT_OK && (n1 != n2 || memcmp(j1, j2, n1) != 0))
                abort();
        }
        basalt_free(j1);
        basalt_free(j2);
        basalt_iceberg_view_metadata_free(again);
        basalt_iceberg_view_metadata_free(v);
    }
    if (basalt_alloc_live() != live)
        abort();
    return 0;
}
