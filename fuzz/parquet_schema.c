/* Fuzz target for the Parquet schema -> Arrow mapping, fed through the footer
 * decoder: the input is a Thrift compact FileMetaData (a footer without its
 * trailer). When it decodes, the schema is built (with its ARROW:schema, if
 * any), mapped to Arrow, projected leaf by leaf and by every top-level name.
 * Only OK, CORRUPT, UNSUPPORTED, LIMIT and NOMEM may come back, and every
 * Arrow schema produced must validate. */
#include <stdint.h>
#include <stdlib.h>

#include "basalt/parquet_format.h"
#include "../src/parquet/parquet_schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_status(basalt_status st)
{
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_UNSUPPORTED &&
        st != BASALT_LIMIT && st != BASALT_NOMEM)
        abort();
}

static void check_output(const struct basalt_parquet_schema *s,
                         const struct basalt_parquet_projection *p)
{
    struct ArrowSchema out;
    basalt_status st = basalt_parquet_schema_to_arrow(s, p, NULL, &out, NULL);
    if (st != BASALT_OK && st != BASALT_NOMEM)
        abort();
    if (st == BASALT_OK) {
        if (basalt_arrow_schema_validate(&out, NULL) != BASALT_OK)
            abort();
        basalt_arrow_schema_release(&out);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_thrift_limits limits;
    basalt_thrift_limits_init(&limits);
    limits.max_memory = 64u << 20;
    struct basalt_parquet_file_metadata md;
    basalt_status st = basalt_thrift_decode_file_metadata(data, size, &arena, &limits, &md, NULL);
    check_status(st);
    if (st != BASALT_OK) {
        basalt_arena_reset(&arena);
        return 0;
    }
    struct basalt_parquet_schema *s;
    st = basalt_parquet_schema_new(&md, NULL, &s, NULL);
    check_status(st);
    if (st == BASALT_OK) {
        check_output(s, NULL);
        struct basalt_parquet_projection p;
        if (basalt_parquet_projection_init(&p, s, NULL) == BASALT_OK) {
            for (int32_t i = 0; i < s->n_leaves && i < 64; i++) {
                basalt_parquet_projection_reset(&p);
                if (basalt_parquet_projection_init(&p, s, NULL) != BASALT_OK)
                    break;
                if (basalt_parquet_projection_select_leaf(&p, i, NULL) != BASALT_OK)
                    abort();
                if (p.n_selected_leaves < 1)
                    abort();
                check_output(s, &p);
            }
            for (int32_t i = 0; i < s->n_roots && p.fields; i++) {
                st = basalt_parquet_projection_select_name(&p, s->fields[s->roots[i]].name, NULL);
                if (st != BASALT_OK)
                    abort();
            }
            if (p.fields)
                check_output(s, &p);
            basalt_parquet_projection_reset(&p);
        }
        basalt_parquet_schema_free(s);
    }
    basalt_arena_reset(&arena);
    return 0;
}
