/* Fuzz target for Avro Object Container Files: opening, framing and
 * decompressing blocks, decoding every record as a generic value and again
 * through a plan of every top-level field. Garbage may only give CORRUPT,
 * UNSUPPORTED, LIMIT or NOMEM; both decodings must agree on the record count
 * when both succeed; nothing may leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/avro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_status(basalt_status st)
{
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_LIMIT && st != BASALT_NOMEM &&
        st != BASALT_UNSUPPORTED)
        abort();
}

static void options(struct basalt_avro_reader_options *o)
{
    basalt_avro_reader_options_init(o);
    o->limits.max_block_bytes = 1 << 22;
    o->limits.max_block_records = 1 << 16;
    o->limits.max_items = 1 << 16;
}

static basalt_status read_values(const uint8_t *data, size_t size, int64_t *count)
{
    struct basalt_avro_reader_options o;
    options(&o);
    struct basalt_avro_reader *r;
    basalt_status st = basalt_avro_reader_new(data, size, &o, &r, NULL);
    if (st != BASALT_OK)
        return st;
    struct basalt_arena arena;
    basalt_arena_init(&arena, 4096);
    struct basalt_buffer out;
    basalt_buffer_init(&out);
    *count = 0;
    for (;;) {
        struct basalt_avro_value v;
        bool has;
        st = basalt_avro_reader_next_value(r, NULL, &arena, &v, &has, NULL);
        if (st != BASALT_OK || !has)
            break;
        (*count)++;
        out.size = 0;
        if (basalt_avro_value_to_json(&v, 0, &out, NULL) != BASALT_OK)
            abort();
        basalt_arena_reset(&arena);
    }
    basalt_buffer_reset(&out);
    basalt_arena_reset(&arena);
    basalt_avro_reader_free(r);
    return st;
}

#define MAX_FIELDS 64
#define BATCH 64

static basalt_status read_plan(const uint8_t *data, size_t size, int64_t *count)
{
    struct basalt_avro_reader_options o;
    options(&o);
    struct basalt_avro_reader *r;
    basalt_status st = basalt_avro_reader_new(data, size, &o, &r, NULL);
    if (st != BASALT_OK)
        return st;
    const struct basalt_avro_node *root = basalt_avro_schema_root(basalt_avro_reader_schema(r));
    struct basalt_avro_column cols[MAX_FIELDS];
    size_t n = 0;
    if (root->type == BASALT_AVRO_RECORD)
        for (uint32_t i = 0; i < root->count && n < MAX_FIELDS; i++)
            cols[n++] = (struct basalt_avro_column){root->fields[i].name, BASALT_AVRO_SLOT_AUTO};
    else
        cols[n++] = (struct basalt_avro_column){"", BASALT_AVRO_SLOT_AUTO};
    struct basalt_avro_plan *plan = NULL;
    st = basalt_avro_plan_new(basalt_avro_reader_schema(r), NULL, cols, n, &plan, NULL);
    if (st != BASALT_OK) {
        basalt_avro_reader_free(r);
        if (st != BASALT_NOMEM)
            abort();
        return st;
    }
    static uint8_t slots[MAX_FIELDS][BATCH * 16], present[MAX_FIELDS][BATCH];
    struct basalt_avro_dest dests[MAX_FIELDS];
    for (size_t k = 0; k < n; k++)
        dests[k] = (struct basalt_avro_dest){.values = slots[k], .present = present[k]};
    *count = 0;
    for (;;) {
        int64_t got;
        st = basalt_avro_reader_read(r, plan, dests, BATCH, &got, NULL);
        if (st != BASALT_OK || got == 0)
            break;
        *count += got;
    }
    basalt_avro_plan_free(plan);
    basalt_avro_reader_free(r);
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t live = basalt_alloc_live();
    int64_t values = -1, rows = -1;
    basalt_status a = read_values(data, size, &values);
    basalt_status b = read_plan(data, size, &rows);
    check_status(a);
    check_status(b);
    /* The plan checks less than the value decoder (it skips unselected
     * parts of unions without building them), never more. */
    if (a == BASALT_OK && b != BASALT_OK && b != BASALT_NOMEM)
        abort();
    if (a == BASALT_OK && b == BASALT_OK && values != rows)
        abort();
    if (basalt_alloc_live() != live)
        abort();
    return 0;
}
