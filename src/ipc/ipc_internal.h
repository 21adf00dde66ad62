/* Internals of the ipc module: reference-counted owners of the memory that
 * arrays point into, the array nodes the reader builds, and the decoding of
 * one record batch body. Visible to src/ipc and its tests only. */
#ifndef BASALT_IPC_INTERNAL_H
#define BASALT_IPC_INTERNAL_H

#include <string.h>

#include "basalt/arrow_fb.h"
#include "basalt/ipc.h"

/* Message header union tags of Message.fbs. */
enum {
    IPC_HEADER_SCHEMA = 1,
    IPC_HEADER_DICTIONARY_BATCH = 2,
    IPC_HEADER_RECORD_BATCH = 3,
    IPC_HEADER_TENSOR = 4,
    IPC_HEADER_SPARSE_TENSOR = 5
};

/* MetadataVersion: V4 is Arrow 0.8 to 0.17, V5 Arrow 1.0 on. */
enum { IPC_METADATA_V4 = 3, IPC_METADATA_V5 = 4 };

/* Memory that arrays point into (a mapped input, a body read into memory, a
 * dictionary), freed when the last reference goes. Atomic: arrays may be
 * released on any thread. */
struct ipc_owner {
    int64_t refs;
    void (*destroy)(struct ipc_owner *owner);
};

void basalt_ipc_owner_ref(struct ipc_owner *owner);
void basalt_ipc_owner_unref(struct ipc_owner *owner);

/* An owner of one aligned allocation of `size` bytes (`*data`). NULL: NOMEM. */
struct ipc_owner *basalt_ipc_blob_new(size_t size, uint8_t **data);
/* An owner that closes `in` (taken) when the last reference goes. */
struct ipc_owner *basalt_ipc_input_owner_new(struct basalt_input *in);
/* An owner holding `array` (moved in) as a decoded dictionary. */
struct ipc_owner *basalt_ipc_dict_owner_new(struct ArrowArray *array);
const struct ArrowArray *basalt_ipc_dict_owner_array(const struct ipc_owner *owner);

/* Array nodes made by the reader: buffers either borrowed from an owner or
 * owned (freed on release). */
basalt_status basalt_ipc_node_init(struct ArrowArray *array, int64_t n_buffers,
                                   int64_t n_children, struct ipc_owner *owner,
                                   struct basalt_error *err);
/* Buffer i of a node from basalt_ipc_node_init; `owned` frees it on release. */
void basalt_ipc_node_set_buffer(struct ArrowArray *array, int64_t i, const void *data,
                                bool owned);
/* Gives the node a dictionary struct (allocated, release NULL) to fill. */
basalt_status basalt_ipc_node_new_dictionary(struct ArrowArray *array, struct basalt_error *err);
/* A view of `src` (and its children and dictionary) in `dst`, sharing every
 * buffer, holding a reference on `owner`, which keeps them alive. */
basalt_status basalt_ipc_array_share(const struct ArrowArray *src, struct ipc_owner *owner,
                                     struct ArrowArray *dst, struct basalt_error *err);
/* `a` followed by `b` (both of `schema`, offsets honoured) as a new owned
 * array: fixed-width, bool and binary/string types; UNSUPPORTED otherwise. */
basalt_status basalt_ipc_array_concat(const struct ArrowSchema *schema, const struct ArrowArray *a,
                                      const struct ArrowArray *b, struct ArrowArray *out,
                                      struct basalt_error *err);

/* ------------------------------------------------------------ body loading */

struct ipc_dict_slot {
    const struct ArrowSchema *node; /* the dictionary-encoded field in the reader's schema */
    int64_t id;
    struct ipc_owner *current;      /* NULL until a DictionaryBatch arrived */
};

struct ipc_dicts {
    struct ipc_dict_slot *slots;
    int64_t n;
};

struct ipc_load_ctx {
    const struct basalt_ipc_read_options *options;
    struct basalt_ipc_read_stats *stats;
    struct ipc_dicts *dicts;
    struct basalt_arrow_fb_vector nodes;    /* FieldNode structs, 16 bytes */
    struct basalt_arrow_fb_vector buffers;  /* Buffer structs, 16 bytes */
    struct basalt_arrow_fb_vector variadic; /* int64 counts */
    uint32_t node_i, buffer_i, variadic_i;
    const uint8_t *body;
    uint64_t body_len;
    /* The owner of the body; buffers may point into it when `in_place`. */
    struct ipc_owner *owner;
    bool zero_copy_counts; /* in-place buffers are zero-copy from the input */
    struct basalt_codec *codec; /* NULL: uncompressed body */
    bool swap;                  /* big-endian body */
    int16_t version;
};

/* Decodes a RecordBatch table `rb` into a struct array of `schema` (the
 * fields). Every bound is checked; dictionaries are attached from
 * ctx->dicts. */
basalt_status basalt_ipc_load_record_batch(struct ipc_load_ctx *ctx,
                                           const struct basalt_arrow_fb_table *rb,
                                           const struct ArrowSchema *schema,
                                           struct ArrowArray *out, struct basalt_error *err);
/* Decodes the single column of a DictionaryBatch's RecordBatch `rb` as an
 * array of `value_schema`. */
basalt_status basalt_ipc_load_dictionary(struct ipc_load_ctx *ctx,
                                         const struct basalt_arrow_fb_table *rb,
                                         const struct ArrowSchema *value_schema,
                                         struct ArrowArray *out, struct basalt_error *err);

/* Dictionary ids of a Schema table's fields, in the depth-first order in
 * which the schema decoder creates dictionaries, paired with the nodes of
 * `schema` (decoded from the same table). */
basalt_status basalt_ipc_dicts_from_schema(const struct basalt_arrow_fb_table *schema_table,
                                           const struct ArrowSchema *schema,
                                           struct ipc_dicts *dicts, struct basalt_error *err);
void basalt_ipc_dicts_reset(struct ipc_dicts *dicts);

#endif
