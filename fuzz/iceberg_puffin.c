/* Fuzz target for Puffin files and deletion vectors: the input is parsed as
 * a Puffin file (every blob read, and parsed as a deletion vector), as a
 * deletion-vector blob and as a raw 64-bit Roaring map. A set that parses is
 * serialised and must parse back to the same positions. Garbage may only
 * give CORRUPT, UNSUPPORTED, LIMIT or NOMEM; nothing may leak. */
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

/* Serialises `set` and checks the blob reads back to the same positions. */
static void round_trip(const struct basalt_iceberg_posset *set)
{
    uint8_t *blob = NULL;
    size_t len = 0;
    basalt_status st = basalt_iceberg_dv_serialize(set, &blob, &len, NULL);
    check_status(st);
    if (st != BASALT_OK)
        return;
    struct basalt_iceberg_posset *back = NULL;
    st = basalt_iceberg_dv_parse(blob, len, &back, NULL);
    if (st != BASALT_OK && st != BASALT_NOMEM)
        abort();
    if (st == BASALT_OK) {
        uint64_t n = basalt_iceberg_posset_cardinality(set);
        if (basalt_iceberg_posset_cardinality(back) != n)
            abort();
        uint64_t a[64], b[64];
        uint64_t k = n < 64 ? n : 64;
        basalt_iceberg_posset_to_array(set, a, k);
        basalt_iceberg_posset_to_array(back, b, k);
        if (memcmp(a, b, k * sizeof a[0]) != 0)
            abort();
        uint8_t bits[8] = {0};
        basalt_iceberg_posset_mark(back, k ? a[0] : 0, 64, bits);
        if (k && !(bits[0] & 1))
            abort();
    }
    basalt_iceberg_posset_free(back);
    basalt_free(blob);
}

static void dv(const uint8_t *data, size_t size, bool raw)
{
    struct basalt_iceberg_posset *set = NULL;
    basalt_status st = raw ? basalt_iceberg_roaring64_parse(data, size, &set, NULL)
                           : basalt_iceberg_dv_parse(data, size, &set, NULL);
    check_status(st);
    if (st == BASALT_OK)
        round_trip(set);
    basalt_iceberg_posset_free(set);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t live = basalt_alloc_live();
    struct basalt_iceberg_puffin *p = NULL;
    basalt_status st = basalt_iceberg_puffin_parse(data, size, "p", &p, NULL);
    check_status(st);
    for (uint32_t i = 0; st == BASALT_OK && i < p->n_blobs; i++) {
        uint8_t *blob = NULL;
        size_t n = 0;
        basalt_status bs = basalt_iceberg_puffin_blob_read(p, data, size, i, &blob, &n, NULL);
        check_status(bs);
        if (bs == BASALT_OK)
            dv(blob, n, false);
        basalt_free(blob);
    }
    basalt_iceberg_puffin_free(p);
    dv(data, size, false);
    dv(data, size, true);
    if (basalt_alloc_live() != live)
        abort();
    return 0;
}
