/* The Parquet Thrift structures as data: one static table per struct
 * (pf_tables.c), read by one generic decoder (pf_decode.c) and one generic
 * encoder (pf_encode.c).
 *
 * Tables rather than generated code: the C structs of parquet_format.h are
 * not what a Thrift compiler would emit (unions flattened into their parent,
 * has_ flags, lists as pointer and count, enums as int32_t), so a generator
 * would need as much description as the tables hold, plus a build step. A
 * table is checked by the compiler (offsetof, designated initializers), and
 * adding a struct is adding a table.
 *
 * A struct's fields are an array indexed by field id, so the decoder finds a
 * field's descriptor with one bounds check and checks its wire type with one
 * bit test; ids without a field accept no wire type. */
#ifndef BASALT_THRIFT_PF_DESC_H
#define BASALT_THRIFT_PF_DESC_H

#include <stddef.h>

#include "thrift_internal.h"

struct pf_dec;

/* How a value is stored in the C struct. The wire type follows from it
 * (enum and i32 are both I32 on the wire, bytes are BINARY). */
enum pf_kind {
    PF_NONE = 0,
    PF_I8,         /* int8_t */
    PF_I16,        /* int16_t */
    PF_I32,        /* int32_t */
    PF_ENUM,       /* int32_t, never negative; enum_name names it in errors */
    PF_I64,        /* int64_t */
    PF_DOUBLE,     /* double */
    PF_BOOL,       /* bool */
    PF_BYTES,      /* basalt_parquet_string or _binary: copied to the arena, NUL after */
    PF_STRUCT,     /* a struct or union (sub) stored inline */
    PF_STRUCT_PTR, /* a struct or union (sub) in zeroed arena storage, by pointer */
    PF_LIST        /* pointer at off, size_t count at count; elements of kind elem */
};

/* pf_field.has for a field without a presence flag (required ones). */
#define PF_NO_HAS 0xffffu

/* pf_field.flags */
#define PF_F_DEFAULT_TRUE 1u /* a bool whose IDL default is true */

struct pf_field {
    /* Bit t set: a field header of compact type code t is this field (a
     * bool accepts 1 and 2, its value being in the code). 0 for an id
     * without a field. */
    uint16_t wires;
    uint8_t kind;  /* enum pf_kind */
    uint8_t elem;  /* PF_LIST: the elements' pf_kind (I32, ENUM, I64, BOOL, BYTES, STRUCT) */
    uint16_t off;  /* offsetof the value */
    uint16_t has;  /* offsetof its bool has_ flag, or PF_NO_HAS */
    uint16_t count; /* PF_LIST: offsetof its size_t count */
    uint8_t flags; /* PF_F_* */
    const char *name; /* as in parquet.thrift: error paths */
    union {
        const struct pf_struct *sub; /* PF_STRUCT, PF_STRUCT_PTR, lists of PF_STRUCT */
        const char *enum_name;       /* PF_ENUM and lists of PF_ENUM: "Encoding" */
    };
};

/* pf_struct.flags */
#define PF_S_UNION 1u    /* a union: see below */
#define PF_S_DEFAULTS 2u /* a field here, or in an inline PF_STRUCT field, is PF_F_DEFAULT_TRUE */

/* A struct. A union (PF_S_UNION) is an int32_t `kind` at kind_off holding
 * the id of the member read (0: none) and the members' fields flattened
 * into the same C struct: fields[id] is the member with that id, a PF_STRUCT
 * whose sub describes the member with offsets from the union's own storage
 * (members may share storage, as TimeType and TimestampType do). A member
 * without a table entry has no fields kept: its id is recorded and its
 * contents skipped, so a member a later format version adds reads as
 * "unknown" rather than "absent". */
struct pf_struct {
    const char *name;              /* as in parquet.thrift: "ColumnMetaData" */
    const struct pf_field *fields; /* indexed by field id */
    uint64_t required;             /* bit i: field i is required */
    uint16_t size;                 /* sizeof the C struct */
    uint16_t kind_off;             /* PF_S_UNION: offsetof the int32_t kind */
    uint8_t nfields;               /* entries in fields: the largest id + 1 (at most 64) */
    uint8_t flags;                 /* PF_S_* */
    /* The fewest bytes one of these can take on the wire with its required
     * fields: a list header announcing more than the input can hold is
     * refused before anything is allocated for it. */
    uint8_t min_wire;
    /* Called after the struct is read (its required fields checked); NULL
     * for most. Derives what the wire does not say directly. */
    basalt_status (*after)(struct pf_dec *d, void *obj);
};

/* The structures the public entry points start from (pf_tables.c). */
extern const struct pf_struct basalt_thrift_pf_file_metadata;
extern const struct pf_struct basalt_thrift_pf_file_crypto_metadata;
/* A ColumnMetaData on its own: the plaintext of an encrypted column chunk's
 * encrypted_column_metadata (Parquet modular encryption). */
extern const struct pf_struct basalt_thrift_pf_column_metadata;
extern const struct pf_struct basalt_thrift_pf_page_header;
extern const struct pf_struct basalt_thrift_pf_column_index;
extern const struct pf_struct basalt_thrift_pf_offset_index;
extern const struct pf_struct basalt_thrift_pf_bloom_filter_header;

/* Every table, for the tests that check them against their invariants. */
extern const struct pf_struct *const basalt_thrift_pf_all_structs[];
extern const size_t basalt_thrift_pf_num_structs;

/* The generic codecs. `obj` points at the C struct `s` describes. */
basalt_status basalt_thrift_pf_decode(struct pf_dec *d, const struct pf_struct *s, void *obj);
/* Appends the struct to the writer: for an encoder kept in another file, as
 * the entry points of pf_encode.c do. Failures are sticky in the writer, and
 * its error gets the path of field names to where it happened. */
void basalt_thrift_pf_encode(struct basalt_thrift_writer *w, const struct pf_struct *s,
                             const void *obj);

#endif
