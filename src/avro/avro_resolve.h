/* Schema resolution as a graph of actions over the writer's data. Shared by
 * the resolved value decoder and the plan compiler. */
#ifndef BASALT_AVRO_RESOLVE_H
#define BASALT_AVRO_RESOLVE_H

#include "avro_internal.h"

enum avro_rkind {
    AVRO_R_SAME,    /* primitive or fixed read as itself */
    AVRO_R_PROMOTE, /* int/long/float -> wider number, string <-> bytes */
    AVRO_R_ENUM,    /* symbols mapped by name */
    AVRO_R_ARRAY,   /* child: the items */
    AVRO_R_MAP,     /* child: the values */
    AVRO_R_RECORD,
    AVRO_R_WUNION,  /* the writer wrote a union: one action per writer branch */
    AVRO_R_RUNION   /* the writer did not, the reader has a union: branch + child */
};

struct avro_rnode;

/* One writer field: read into reader field `reader_index`, or skipped (-1). */
struct avro_rfield {
    int32_t reader_index;
    const struct basalt_avro_node *writer_type;
    struct avro_rnode *child; /* NULL when skipped */
};

/* A reader field the writer lacks, filled from its default. */
struct avro_rdefault {
    uint32_t reader_index;
    struct basalt_avro_value value;
};

struct avro_rnode {
    enum avro_rkind kind;
    const struct basalt_avro_node *w;
    const struct basalt_avro_node *r;
    /* ARRAY, MAP, RUNION */
    struct avro_rnode *child;
    uint32_t branch; /* RUNION: reader branch */
    /* WUNION: per writer branch, NULL where that branch cannot be read */
    struct avro_rnode **branches;
    /* ENUM: writer symbol -> reader symbol, -1 where unknown (the reader's
     * default, if any, is already substituted) */
    int32_t *enum_map;
    /* RECORD */
    struct avro_rfield *fields; /* w->count */
    struct avro_rdefault *defaults;
    uint32_t default_count;
    /* Whether reading through this node gives exactly the writer's bytes'
     * meaning under the reader's schema with no conversion (set for trees of
     * SAME, identity enums and records, identity unions). */
    bool identity;
};

struct basalt_avro_resolution {
    struct basalt_arena arena;
    const struct basalt_avro_schema *writer;
    const struct basalt_avro_schema *reader;
    struct avro_rnode *root;
};

/* Builds the action graph for (writer, reader) into `arena`. */
basalt_status basalt_avro_resolve_nodes(struct basalt_arena *arena,
                                        const struct basalt_avro_node *writer,
                                        const struct basalt_avro_node *reader,
                                        struct avro_rnode **out, struct basalt_error *err);

#endif
