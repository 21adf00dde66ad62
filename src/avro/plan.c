/* The plan object: references and column information. */
#include "avro_plan.h"

size_t basalt_avro_slot_size(enum basalt_avro_slot_type type)
{
    switch (type) {
    case BASALT_AVRO_SLOT_BOOL:
        return 1;
    case BASALT_AVRO_SLOT_INT32:
    case BASALT_AVRO_SLOT_FLOAT:
        return 4;
    case BASALT_AVRO_SLOT_INT64:
    case BASALT_AVRO_SLOT_DOUBLE:
        return 8;
    case BASALT_AVRO_SLOT_BYTES:
    case BASALT_AVRO_SLOT_RAW:
        return sizeof(struct basalt_avro_bytes);
    default:
        return 0;
    }
}

struct basalt_avro_plan *basalt_avro_plan_ref(struct basalt_avro_plan *plan)
{
    if (plan)
        __atomic_fetch_add(&plan->refs, 1, __ATOMIC_RELAXED);
    return plan;
}

void basalt_avro_plan_free(struct basalt_avro_plan *plan)
{
    if (!plan || __atomic_fetch_sub(&plan->refs, 1, __ATOMIC_ACQ_REL) != 1)
        return;
    basalt_arena_reset(&plan->arena);
    basalt_free(plan);
}

size_t basalt_avro_plan_column_count(const struct basalt_avro_plan *plan)
{
    return plan->col_count;
}

enum basalt_avro_slot_type basalt_avro_plan_column_type(const struct basalt_avro_plan *plan,
                                                        size_t i)
{
    return i < plan->col_count ? plan->cols[i].type : BASALT_AVRO_SLOT_AUTO;
}

const struct basalt_avro_node *basalt_avro_plan_column_node(const struct basalt_avro_plan *plan,
                                                            size_t i)
{
    return i < plan->col_count ? plan->cols[i].node : NULL;
}
