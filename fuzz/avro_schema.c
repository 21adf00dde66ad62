/* Fuzz target for Avro schema parsing. A schema that parses must reparse
 * from its full JSON form to the same canonical form (and its canonical form
 * from that form's canonical form), resolve against itself and compile into
 * a plan; the input's bytes are then decoded as a datum of it. Statuses
 * other than OK, CORRUPT, LIMIT and NOMEM abort, as do leaks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/avro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_status(basalt_status st)
{
    if (st != BASALT_OK && st != BASALT_CORRUPT && st != BASALT_LIMIT && st != BASALT_NOMEM)
        abort();
}

/* The full JSON form must reparse to the same schema. */
static void reparse_same(const struct basalt_avro_schema *s, const char *json, size_t len)
{
    struct basalt_avro_schema_options opt;
    basalt_avro_schema_options_init(&opt);
    opt.lenient_names = true;
    opt.max_depth = 1024;
    struct basalt_avro_schema *again = NULL;
    if (basalt_avro_schema_parse(json, len, &opt, &again, NULL) != BASALT_OK)
        abort();
    if (strcmp(basalt_avro_schema_canonical(again, NULL), basalt_avro_schema_canonical(s, NULL)) != 0)
        abort();
    basalt_avro_schema_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t live = basalt_alloc_live();
    struct basalt_avro_schema_options opt;
    basalt_avro_schema_options_init(&opt);
    opt.lenient_names = size > 0 && (data[0] & 1);
    struct basalt_avro_schema *s = NULL;
    struct basalt_error err;
    basalt_status st = basalt_avro_schema_parse((const char *)data, size, &opt, &s, &err);
    check_status(st);
    if (st == BASALT_OK) {
        /* The canonical form cannot always be reparsed as the same schema
         * (a type in the null namespace nested in a named namespace has no
         * full name that says so), but its own canonical form is itself. */
        size_t clen;
        const char *canon = basalt_avro_schema_canonical(s, &clen);
        struct basalt_avro_schema_options copt = opt;
        copt.max_depth = 1024;
        struct basalt_avro_schema *c1 = NULL, *c2 = NULL;
        if (basalt_avro_schema_parse(canon, clen, &copt, &c1, NULL) == BASALT_OK) {
            size_t len1;
            const char *canon1 = basalt_avro_schema_canonical(c1, &len1);
            if (basalt_avro_schema_parse(canon1, len1, &copt, &c2, NULL) != BASALT_OK ||
                strcmp(basalt_avro_schema_canonical(c2, NULL), canon1) != 0)
                abort();
        }
        basalt_avro_schema_free(c1);
        basalt_avro_schema_free(c2);
        struct basalt_buffer json;
        basalt_buffer_init(&json);
        if (basalt_avro_schema_to_json(s, size & 2, &json, NULL) != BASALT_OK)
            abort();
        reparse_same(s, (const char *)json.data, json.size);
        basalt_buffer_reset(&json);
        struct basalt_avro_resolution *res = NULL;
        st = basalt_avro_resolution_new(s, s, &res, NULL);
        /* a default that does not fit its type is only found here */
        if (st != BASALT_OK && st != BASALT_INVALID_ARG && st != BASALT_LIMIT && st != BASALT_NOMEM)
            abort();
        struct basalt_avro_plan *plan = NULL;
        st = basalt_avro_plan_new(s, NULL, NULL, 0, &plan, NULL);
        if (st != BASALT_OK && st != BASALT_NOMEM)
            abort();
        /* The input's bytes as a datum of the schema. */
        struct basalt_arena arena;
        basalt_arena_init(&arena, 4096);
        struct basalt_avro_value v;
        struct basalt_avro_limits lim = {.max_items = 10000};
        st = basalt_avro_value_decode(basalt_avro_schema_root(s), data, size, &lim, &arena, &v, NULL,
                                      NULL);
        check_status(st);
        if (st == BASALT_OK) {
            struct basalt_buffer out;
            basalt_buffer_init(&out);
            if (basalt_avro_value_to_json(&v, BASALT_AVRO_JSON_UNION_WRAP, &out, NULL) != BASALT_OK)
                abort();
            basalt_buffer_reset(&out);
        }
        if (plan) {
            size_t used;
            check_status(basalt_avro_plan_decode(plan, data, size, 1, NULL, NULL, &used, NULL));
        }
        if (res) {
            st = basalt_avro_value_decode_resolved(res, data, size, &lim, &arena, &v, NULL, NULL);
            check_status(st);
        }
        basalt_arena_reset(&arena);
        basalt_avro_plan_free(plan);
        basalt_avro_resolution_free(res);
    }
    basalt_avro_schema_free(s);
    if (basalt_alloc_live() != live)
        abort();
    return 0;
}
