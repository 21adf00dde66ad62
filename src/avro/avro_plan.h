/* The compiled decode program behind struct basalt_avro_plan. */
#ifndef BASALT_AVRO_PLAN_H
#define BASALT_AVRO_PLAN_H

#include "avro_resolve.h"

enum avro_opcode {
    AVRO_OP_END = 0,
    AVRO_OP_JUMP,       /* arg: target op */
    AVRO_OP_UNION,      /* arg: branch count; the next `arg` ops are AVRO_OP_TARGET */
    AVRO_OP_TARGET,     /* arg: where branch i starts */
    AVRO_OP_ERROR,      /* imm.p: message (a writer branch the reader cannot read) */
    AVRO_OP_SKIP_VARINT,
    AVRO_OP_SKIP_N,     /* arg: bytes */
    AVRO_OP_SKIP_BYTES,
    AVRO_OP_SKIP_NODE,  /* imm.p: writer node, skipped generically */
    AVRO_OP_BOOL,
    AVRO_OP_INT_I32,
    AVRO_OP_INT_I64,
    AVRO_OP_LONG_I64,
    AVRO_OP_INT_F64,
    AVRO_OP_LONG_F64,
    AVRO_OP_INT_F32,    /* int -> float */
    AVRO_OP_LONG_F32,
    AVRO_OP_INT_F32D,   /* int -> float -> double slot */
    AVRO_OP_LONG_F32D,
    AVRO_OP_FLOAT_F32,
    AVRO_OP_FLOAT_F64,
    AVRO_OP_DOUBLE_F64,
    AVRO_OP_BYTES,      /* string or bytes -> view */
    AVRO_OP_FIXED,      /* arg: size -> view */
    AVRO_OP_ENUM_I32,   /* arg: writer symbols; imm.p: int32 map or NULL */
    AVRO_OP_ENUM_I64,
    AVRO_OP_RAW,        /* imm.p: writer node; view of its encoding */
    AVRO_OP_OPT_LONG_I64, /* writer union {null, long} (arg: null branch 0 or 1) -> int64 */
    AVRO_OP_ABSENT,     /* present 0, value zeroed */
    AVRO_OP_CONST,      /* imm: the value (imm.p -> struct basalt_avro_bytes for views) */
    AVRO_OP_SKIP_OPT_VARINT /* writer union {null, int or long} (arg: null branch 0 or 1) */
};

struct avro_op {
    uint8_t code;
    uint16_t col;
    uint32_t arg;
    union {
        int64_t i;
        double d;
        float f;
        const void *p;
    } imm;
};

struct avro_plan_col {
    const char *path;
    enum basalt_avro_slot_type type;
    uint8_t size; /* bytes of one slot value */
    const struct basalt_avro_node *node; /* reader node */
};

struct basalt_avro_plan {
    int refs;
    struct basalt_arena arena;
    const struct basalt_avro_schema *writer;
    const struct basalt_avro_schema *reader;
    struct avro_op *ops;
    uint32_t op_count;
    size_t col_count;
    struct avro_plan_col *cols;
};

size_t basalt_avro_slot_size(enum basalt_avro_slot_type type);

/* The selected part of the reader's schema: a leaf is a column, an interior
 * node a record with some fields selected (plan_select.c). */
struct avro_sel {
    int32_t col;
    const struct basalt_avro_node *record;
    struct avro_sel **fields;
};

/* Adds column `col` (spec) to the selection tree under `root`, filling
 * plan->cols[col]. INVALID_ARG for paths and slot types that do not fit. */
basalt_status basalt_avro_select_column(struct basalt_avro_plan *plan, struct avro_sel **root,
                                        const struct basalt_avro_node *root_node, size_t col,
                                        const struct basalt_avro_column *spec,
                                        struct basalt_error *err);

#endif
