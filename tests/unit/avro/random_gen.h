/* Seeded random Avro schemas and values for the differential tests. */
#ifndef BASALT_AVRO_RANDOM_GEN_H
#define BASALT_AVRO_RANDOM_GEN_H

#include "basalt/avro.h"
#include "test.h"

/* Appends the JSON of a random schema whose root is a record (names are
 * unique per call; `max_depth` bounds nesting). */
void rg_schema_json(struct bt_rng *rng, int max_depth, struct basalt_buffer *out);

/* When set, values avoid what avro-c's avrocat cannot print: NUL bytes in
 * strings, bytes and fixed (it cuts them there) and NaN or infinities. */
extern bool rg_avrocat_safe;

/* A random value of `node`, allocated in `arena` (strings included). */
void rg_value(struct bt_rng *rng, const struct basalt_avro_node *node, struct basalt_arena *arena,
              int depth, struct basalt_avro_value *out);

#endif
