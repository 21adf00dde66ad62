/* Checks of plan output against generic values, shared by the plan
 * and resolution tests. */
#ifndef BASALT_AVRO_PLAN_CHECK_H
#define BASALT_AVRO_PLAN_CHECK_H

#include "basalt/avro.h"

#define MAX_COLS 256

struct leaf {
    char path[256];
};

/* Every path a plan can select under `rec`: fields, and the fields of records
 * and optional records below (up to MAX_COLS). */
void pc_collect_leaves(const struct basalt_avro_node *rec, const char *prefix, struct leaf *leaves,
                       size_t *n, int depth);

/* The generic value at a dotted path, or NULL when a null union is on the way. */
const struct basalt_avro_value *pc_value_at(const struct basalt_avro_value *v, const char *path);

/* Whether the slot of column k holds value v (NULL: absent); `why` says what
 * differs. */
bool pc_slot_matches(const struct basalt_avro_plan *plan, size_t k,
                     const struct basalt_avro_value *v, const uint8_t *slot, uint8_t present,
                     char *why, size_t whycap);

#endif
