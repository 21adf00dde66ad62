/* Internal pieces of the Arrow converter (arrow_types.c, arrow_out.c). */
#ifndef BASALT_AVRO_ARROW_H
#define BASALT_AVRO_ARROW_H

#include "basalt/arrow.h"

#include "avro_resolve.h"

struct avro_dict {
    struct basalt_arrow_builder *values;
    const struct basalt_avro_node *node;
};

struct basalt_avro_arrow {
    struct basalt_arena arena; /* resolution */
    const struct avro_rnode *root;
    struct basalt_arrow_builder *top; /* struct of the selected fields */
    int32_t *child_of;                /* reader field -> top child, -1 if not selected */
    struct basalt_buffer dicts;       /* struct avro_dict, refilled per batch */
    struct avro_limits lim;
    int64_t rows;
};

/* Whether reader node `n` is built as a dense union: a union with two or
 * more non-null branches. Type code i is branch i, child i its builder (the
 * null type "n" for a null branch, where the union's nulls go). */
bool basalt_avro_arrow_is_union(const struct basalt_avro_node *n);

/* Creates the builder of reader node `n`, a child of `parent` (or a root
 * when parent is NULL), with builders for its children and a dictionary for
 * enums. UNSUPPORTED for unions of more than 127 branches and recursion. */
basalt_status basalt_avro_arrow_builder(struct basalt_avro_arrow *c,
                                        struct basalt_arrow_builder *parent,
                                        const struct basalt_avro_node *n, const char *name,
                                        bool force_nullable, uint32_t depth,
                                        struct basalt_arrow_builder **out,
                                        struct basalt_error *err);

/* Appends every enum's symbols to its dictionary builder (each batch needs
 * them again after a finish). */
basalt_status basalt_avro_arrow_dictionaries(struct basalt_avro_arrow *c, struct basalt_error *err);

#endif
