/* Parquet schema -> Arrow: the schema tree, the leaf column descriptors, the
 * Arrow fields with the levels the record assembler needs, projection, and
 * restoration of the original Arrow types from the ARROW:schema key.
 *
 * Internal to the parquet module (the reader builds on it).
 *
 * ======================================================================
 * Three views of one schema
 * ======================================================================
 *
 * nodes   The Parquet tree, one node per SchemaElement in the file's
 *         depth-first order (node 0 is the root). Each node knows its
 *         repetition, field id, annotation and the definition / repetition
 *         levels reached at it (max_def / max_rep).
 * leaves  One per column chunk, in column order: path, levels, physical
 *         type, annotation, the Arrow type the values decode into and the
 *         conversion the value decoder applies.
 * fields  The Arrow tree the reader outputs, in pre-order. A LIST or MAP
 *         collapses the annotated group and its repeated child into one list
 *         field; an unannotated repeated node becomes a list of itself.
 *         Every field carries the levels that decide, for each (def, rep)
 *         pair of the leaves below it, whether the pair opens a slot in the
 *         field, and whether that slot is null, an empty list or a list with
 *         an element.
 *
 * ======================================================================
 * Levels of a field (read this before writing the assembler)
 * ======================================================================
 *
 * Every leaf value comes with (d, r): its definition and repetition levels.
 * For a field F with levels (F.def_level, F.rep_level,
 * F.repeated_ancestor_def_level), a leaf value below F means, in order:
 *
 *   1. d <  F.repeated_ancestor_def_level: the nearest list above F is null
 *      or empty there; the value has no slot in F at all.
 *   2. r <= F.rep_level: the value starts a new slot in F (for a field under
 *      no list, r is 0 and every value starts one: one slot per record).
 *      r >  F.rep_level: it continues the current slot (it belongs to a list
 *      further down).
 *   3. d <  F.def_level: the slot is null (F itself is null, or a struct
 *      between F and its nearest list is; either way F's validity bit is
 *      cleared, even for a non-nullable F under a null struct).
 *      d >= F.def_level: the slot is present (non-null).
 *   4. For a LIST, LARGE_LIST or MAP field that is present:
 *        d == F.def_level        the list is empty;
 *        d >= F.def_level + 1    the value carries an element. The element
 *                                field (child 0) takes it as a new slot.
 *      Later values with r == F.rep_level + 1 add elements to the same list;
 *      r <= F.rep_level closes it.
 *      The element field E of F always has
 *        E.rep_level = F.rep_level + 1 and
 *        E.repeated_ancestor_def_level = F.def_level + 1.
 *
 * A struct's validity comes from any of its leaves (they agree); a list's
 * offsets and validity from the leftmost leaf below it (every leaf below a
 * list carries the same (d, r) structure down to that list's level). For
 * a non-nullable F, def_level equals that of its parent (a required node adds
 * no definition level), so step 3 can only fire through a null ancestor.
 *
 * Worked examples (levels are "def/rep/anc" = def_level / rep_level /
 * repeated_ancestor_def_level; max_def/max_rep of the leaf on the right):
 *
 * (a) Struct:
 *       optional group s {            s  STRUCT  nullable   1/0/0
 *         optional int32 a;           a  int32   nullable   2/0/0  leaf 2/0
 *         required int32 b;           b  int32   non-null   1/0/0  leaf 1/0
 *       }
 *     leaf b: d=0 -> s null, b's slot null; d=1 -> s and b present.
 *     leaf a: d=0 -> s null; d=1 -> s present, a null; d=2 -> a present.
 *
 * (b) Three-level LIST (the standard form):
 *       optional group a (LIST) {     a  LIST    nullable   1/0/0
 *         repeated group list {         (the repeated level of a: no field)
 *           optional int32 element;   element int32 nullable 3/1/2  leaf 3/1
 *         }
 *       }
 *     a = null      -> (d=0, r=0)
 *     a = []        -> (1, 0)                   empty: d == a.def_level
 *     a = [null]    -> (2, 0)                   element slot, null (d < 3)
 *     a = [1, 2]    -> (3, 0) (3, 1)            r = 1 = a.rep_level + 1: next element
 *     two records [1], [2] -> (3, 0) (3, 0)     r = 0 <= a.rep_level: new list
 *     The element field is named as in the file ("element", "item", ...).
 *
 * (c) Nested lists: optional group outer (LIST) { repeated group list {
 *       optional group element (LIST) { repeated group list {
 *       optional int32 element; } } } }
 *       outer  LIST 1/0/0, inner LIST 3/1/2, element int32 5/2/4, leaf 5/2.
 *     [[1, 2], [], null] -> (5,0) (5,2) (3,1) (2,1)
 *
 * (d) Legacy two-level lists (LogicalTypes.md backward-compatibility rules);
 *     in each the repeated node itself is the element, which is non-null:
 *       optional group a (LIST) { repeated int32 array; }
 *         a LIST nullable 1/0/0; element "array" int32 non-null 2/1/2
 *       optional group a (LIST) { repeated group element {
 *           required binary str (STRING); required int32 num; } }
 *         element "element" STRUCT non-null 2/1/2 (more than one field)
 *       optional group a (LIST) { repeated group array { required binary s; } }
 *       optional group a (LIST) { repeated group a_tuple { required binary s; } }
 *         element STRUCT non-null 2/1/2 (named "array" / "<list>_tuple")
 *       required group a (LIST) { repeated group array (LIST) {
 *           repeated int32 array; } }
 *         a repeated group whose only field is itself repeated: the element is
 *         that field, an unannotated repeated field as in (f):
 *         a LIST non-null 0/0/0; element "array" LIST non-null 1/1/1;
 *         its element "array" int32 non-null 2/2/2
 *     Any other repeated group with one field is the three-level form: the
 *     element is that field, with its own repetition.
 *
 * (e) MAP (and MAP_KEY_VALUE, also as the annotation of the map group when
 *     not inside a MAP-annotated group):
 *       optional group m (MAP) {      m MAP nullable 1/0/0
 *         repeated group key_value {    entries "key_value" STRUCT non-null 2/1/2
 *           required binary key;        key   non-null 2/1/2   leaf 2/1
 *           optional int32 value;       value nullable 3/1/2   leaf 3/1
 *         }
 *       }
 *     m = null -> (0,0); {} -> (1,0); {"x": null} -> key (2,0), value (2,0);
 *     {"x": 1, "y": 2} -> value (3,0) (3,1). Arrow map keys are never null:
 *     the key field is non-nullable even when the file marks it optional
 *     (then its def_level is one more than the entries'; a key value with
 *     d < key.def_level in a present entry is a null key and the data is
 *     corrupt). A key_value group with a single field (a set) reads as a
 *     list of that field, as Arrow C++ does.
 *
 * (f) Unannotated repeated fields (outside LIST/MAP): a list of non-null
 *     elements that is itself non-null (an empty list when absent):
 *       repeated int32 x;             x LIST non-null 0/0/0; element "x" 1/1/1
 *       repeated group g { required int32 a; }
 *                                     g LIST non-null 0/0/0; element "g"
 *                                     STRUCT non-null 1/1/1; a 1/1/1
 *     x = [] -> (0, 0); x = [7, 8] -> (1, 0) (1, 1).
 *
 * ======================================================================
 * Types
 * ======================================================================
 *
 * Physical BOOLEAN b, INT32 i, INT64 l, INT96 timestamp[ns] "tsn:", FLOAT f,
 * DOUBLE g, BYTE_ARRAY binary z, FIXED_LEN_BYTE_ARRAY(n) w:n. Annotations
 * (the LogicalType, else the legacy ConvertedType):
 *   STRING, ENUM, JSON -> utf8 u; BSON -> binary; UUID -> w:16 with field
 *   metadata ARROW:extension:name=arrow.uuid, ARROW:extension:metadata="";
 *   FLOAT16 -> e; INTEGER(8/16/32/64, signed) -> c s i l / C S I L;
 *   DECIMAL(p, s) on INT32, INT64, FLBA, BYTE_ARRAY -> d:p,s (decimal128), or
 *   d:p,s,256 when p > 38; DATE -> tdD; TIME(ms) -> ttm, (us) ttu, (ns) ttn;
 *   TIMESTAMP(unit) -> ts{m,u,n}: with time zone "UTC" when isAdjustedToUTC
 *   (a TIMESTAMP_MILLIS/MICROS ConvertedType without LogicalType has no zone,
 *   as Arrow C++ reads it); UNKNOWN (always null) -> null n; INTERVAL -> w:12;
 *   GEOMETRY, GEOGRAPHY -> binary with field metadata
 *   ARROW:extension:name=geoarrow.wkb and ARROW:extension:metadata the
 *   GeoArrow JSON of the crs (an absent crs is {"crs":"OGC:CRS84",
 *   "crs_type":"authority_code"}, "srid:N" is {"crs":"N","crs_type":"srid"},
 *   "projjson:KEY" the PROJJSON of file metadata key KEY with crs_type
 *   "projjson", anything else the crs as JSON when it is JSON, else as a
 *   string) and, for GEOGRAPHY, "edges" (the algorithm in lower case);
 *   VARIANT groups -> the parquet.variant extension (see the `variant` field
 *   flag). A LogicalType this library does not know
 *   reads as its physical type. An annotation that does not fit its physical
 *   type (STRING on INT32, DECIMAL precision beyond the type's digits) is
 *   CORRUPT.
 *
 * ARROW:schema (the Arrow schema a writer stored; see basalt/arrow.h) is
 * applied when its top-level field count matches, field by field and
 * recursively through structs, lists (list -> large_list or
 * fixed_size_list(n)) and maps, and only where the stored type fits the
 * Parquet-derived one: utf8/binary -> large_utf8/large_binary or a
 * dictionary of them (index type and ordering from the stored field);
 * timestamp with zone "UTC" -> the stored zone; int64 -> the stored
 * duration; decimal128 -> decimal256, or decimal32 / decimal64 of the same
 * precision and scale (precision up to 9 / 18). A fixed-size list reads
 * as one only when its lists hold n elements each: a present list of any
 * other length is CORRUPT (the file contradicts its own schema; read with
 * ignore_arrow_schema for plain lists), a null list gets n empty child
 * slots. Writers that store no ARROW:schema (DuckDB's ARRAY) give plain
 * lists, as their own readers read them back.
 * Field metadata is restored too (PARQUET:field_id from the file wins;
 * ARROW:extension:* keys only when the resulting type equals the stored
 * one). Timestamp units, date64, views and names are not restored. A
 * malformed ARROW:schema is ignored (arrow_schema_state says so).
 *
 * Thread safety: a schema is immutable once built and may be read from any
 * number of threads; a projection is used by one thread at a time. */
#ifndef BASALT_PARQUET_SCHEMA_H
#define BASALT_PARQUET_SCHEMA_H

#include "basalt/arrow.h"
#include "basalt/core.h"
#include "basalt/parquet_format.h"

/* ------------------------------------------------------------------ options */

#define BASALT_PARQUET_SCHEMA_DEFAULT_MAX_DEPTH 64

struct basalt_parquet_schema_options {
    int32_t max_depth;        /* group nesting below the root; deeper is LIMIT */
    bool ignore_arrow_schema; /* keep the Parquet-derived types only */
};

/* Defaults: max_depth 64, ARROW:schema applied. */
void basalt_parquet_schema_options_init(struct basalt_parquet_schema_options *options);

/* ------------------------------------------------------------------ annotation */

/* What the LogicalType (or the ConvertedType) says a node holds. */
enum basalt_parquet_schema_logical {
    BASALT_PARQUET_SCHEMA_LOGICAL_NONE = 0, /* the physical type as it is */
    BASALT_PARQUET_SCHEMA_LOGICAL_STRING,
    BASALT_PARQUET_SCHEMA_LOGICAL_ENUM,
    BASALT_PARQUET_SCHEMA_LOGICAL_JSON,
    BASALT_PARQUET_SCHEMA_LOGICAL_BSON,
    BASALT_PARQUET_SCHEMA_LOGICAL_UUID,
    BASALT_PARQUET_SCHEMA_LOGICAL_FLOAT16,
    BASALT_PARQUET_SCHEMA_LOGICAL_DECIMAL,
    BASALT_PARQUET_SCHEMA_LOGICAL_DATE,
    BASALT_PARQUET_SCHEMA_LOGICAL_TIME,
    BASALT_PARQUET_SCHEMA_LOGICAL_TIMESTAMP,
    BASALT_PARQUET_SCHEMA_LOGICAL_INTEGER,
    BASALT_PARQUET_SCHEMA_LOGICAL_NULL, /* LogicalType UNKNOWN: every value is null */
    BASALT_PARQUET_SCHEMA_LOGICAL_INTERVAL,
    BASALT_PARQUET_SCHEMA_LOGICAL_GEOMETRY,
    BASALT_PARQUET_SCHEMA_LOGICAL_GEOGRAPHY,
    BASALT_PARQUET_SCHEMA_LOGICAL_VARIANT,       /* groups */
    BASALT_PARQUET_SCHEMA_LOGICAL_LIST,          /* groups */
    BASALT_PARQUET_SCHEMA_LOGICAL_MAP,           /* groups */
    BASALT_PARQUET_SCHEMA_LOGICAL_MAP_KEY_VALUE, /* groups, legacy ConvertedType */
    BASALT_PARQUET_SCHEMA_LOGICAL_UNKNOWN        /* a LogicalType this library does not know */
};

struct basalt_parquet_schema_annotation {
    enum basalt_parquet_schema_logical kind;
    bool from_converted_type; /* the file had a ConvertedType and no LogicalType */
    int32_t precision, scale; /* DECIMAL */
    int32_t bit_width;        /* INTEGER */
    bool is_signed;
    int32_t unit;             /* TIME, TIMESTAMP: enum basalt_parquet_time_unit */
    bool adjusted_to_utc;     /* TIME, TIMESTAMP */
    /* GEOMETRY, GEOGRAPHY: the crs parameter (in the schema's arena; NULL
     * when absent, which means OGC:CRS84) and GEOGRAPHY's edge algorithm
     * (enum basalt_parquet_edge_interpolation_algorithm; SPHERICAL when
     * absent). */
    const char *crs;
    int32_t algorithm;
};

/* ------------------------------------------------------------------ nodes */

struct basalt_parquet_schema_node {
    const char *name;
    const char *path;        /* dotted path from below the root ("a.list.element"); "" for the root */
    int32_t parent;          /* node index; -1 for the root */
    int32_t n_children;
    int32_t *children;       /* node indices */
    int32_t depth;           /* root 0 */
    int32_t repetition;      /* enum basalt_parquet_field_repetition_type; the root counts as REQUIRED */
    bool is_leaf;
    int32_t physical_type;   /* leaves: enum basalt_parquet_type */
    int32_t type_length;     /* FIXED_LEN_BYTE_ARRAY leaves; 0 otherwise */
    bool has_field_id;
    int32_t field_id;
    bool has_converted_type;
    int32_t converted_type;
    struct basalt_parquet_schema_annotation annotation;
    int16_t max_def;         /* definition level of a value present at this node */
    int16_t max_rep;         /* repetition level of this node (repeated ancestors and itself) */
    int32_t leaf_begin;      /* leaves below: [leaf_begin, leaf_end) */
    int32_t leaf_end;
    int32_t leaf;            /* leaf index, or -1 for a group */
    int32_t field;           /* the field standing for this node's subtree: the one made
                              * from it, or for the repeated group of a three-level list or
                              * map, the list or map field; -1 for the root */
};

/* ------------------------------------------------------------------ leaves */

/* What the value decoder does between the page's physical values and the
 * Arrow values buffer. */
enum basalt_parquet_conversion {
    BASALT_PARQUET_CONVERT_NONE = 0,  /* same bits: copy (bool bits, int32/64, float, double, byte
                                       * arrays, FLBA, float16 and INT32 uint32/date32/time32 ...) */
    BASALT_PARQUET_CONVERT_NULL,      /* no values: every slot is null */
    BASALT_PARQUET_CONVERT_INT32_TO_INT8,   /* keep the low 8 bits (int8 and uint8) */
    BASALT_PARQUET_CONVERT_INT32_TO_INT16,  /* keep the low 16 bits (int16 and uint16) */
    BASALT_PARQUET_CONVERT_INT32_TO_DECIMAL, /* sign-extend to value_width bytes, little-endian */
    BASALT_PARQUET_CONVERT_INT64_TO_DECIMAL,
    /* FLBA / BYTE_ARRAY holding a big-endian two's complement integer:
     * byte-reverse and sign-extend to value_width bytes. A value longer than
     * value_width must hold only sign bytes beyond it, else it is CORRUPT;
     * an empty BYTE_ARRAY is 0. */
    BASALT_PARQUET_CONVERT_BYTES_TO_DECIMAL,
    /* INT96: 8 bytes little-endian nanoseconds of the day then 4 bytes
     * little-endian Julian day; value = (day - 2440588) * 86400 s + nanos,
     * in the unit of the format (nanoseconds: "tsn:"). */
    BASALT_PARQUET_CONVERT_INT96_TO_TIMESTAMP
};

struct basalt_parquet_schema_leaf {
    int32_t index;           /* column chunk position */
    int32_t node;
    int32_t field;           /* the PRIMITIVE field its values fill */
    const char *path;        /* dotted path, as in ColumnMetaData.path_in_schema */
    const char *const *path_parts;
    int32_t n_path_parts;
    int16_t max_def;
    int16_t max_rep;
    int32_t physical_type;   /* enum basalt_parquet_type */
    int32_t type_length;     /* FIXED_LEN_BYTE_ARRAY; 0 otherwise */
    struct basalt_parquet_schema_annotation annotation;
    /* Arrow format of the decoded values after ARROW:schema restoration and
     * before the output options (large and dictionary types come from
     * basalt_parquet_schema_to_arrow's options): for a dictionary-encoded
     * field this is the value type. */
    const char *format;
    enum basalt_parquet_conversion conversion;
    int32_t value_width;     /* bytes per Arrow value of fixed-width outputs; 0 for bool,
                              * null and variable-width types */
};

/* ------------------------------------------------------------------ fields */

enum basalt_parquet_field_kind {
    BASALT_PARQUET_FIELD_PRIMITIVE = 0,
    BASALT_PARQUET_FIELD_STRUCT,
    BASALT_PARQUET_FIELD_LIST,
    BASALT_PARQUET_FIELD_LARGE_LIST, /* restored from ARROW:schema */
    BASALT_PARQUET_FIELD_MAP,        /* child 0: the entries struct of key and value */
    /* A list restored from ARROW:schema as fixed_size_list(list_size): every
     * present list must hold exactly list_size elements (else CORRUPT); a
     * null list takes list_size child slots of empty values, as Arrow C++'s
     * builder appends them (zeroes, empty strings and lists, structs of
     * those; null where the child is of the null type or a dictionary). */
    BASALT_PARQUET_FIELD_FIXED_LIST
};

struct basalt_parquet_schema_field {
    enum basalt_parquet_field_kind kind;
    const char *name;
    bool nullable;
    int32_t parent;          /* field index; -1 at the top level */
    int32_t n_children;
    int32_t *children;       /* field indices */
    int32_t depth;           /* 0 at the top level */
    int32_t node;            /* the node it was made from: the annotated group of a LIST or
                              * MAP, the repeated node of an unannotated list, the repeated
                              * node or its child for a list element */
    int32_t leaf;            /* PRIMITIVE: leaf index; -1 otherwise */
    int32_t leaf_begin;      /* leaves below: [leaf_begin, leaf_end) */
    int32_t leaf_end;
    int32_t list_size;       /* FIXED_LIST: elements per list; 0 otherwise */
    bool has_field_id;
    int32_t field_id;
    /* A VARIANT group (kind STRUCT): its children are the Parquet ones
     * (metadata, value, typed_value) for the assembler, but it is output as
     * the parquet.variant extension, a struct of binary `metadata` and
     * `value` holding the unshredded Variant (VariantShredding.md). It is
     * projected whole. */
    bool variant;
    int16_t def_level;       /* see "Levels of a field" above */
    int16_t rep_level;
    int16_t repeated_ancestor_def_level;
    /* The Arrow type: format string (for a dictionary-encoded field, the
     * index type, with the value type in dictionary_format); ordering of the
     * dictionary; field metadata (encoded, NULL when none). */
    const char *format;
    const char *dictionary_format;
    bool dictionary_ordered;
    const char *metadata;
};

/* ------------------------------------------------------------------ schema */

enum basalt_parquet_arrow_schema_state {
    BASALT_PARQUET_ARROW_SCHEMA_ABSENT = 0, /* no ARROW:schema key (or ignored by option) */
    BASALT_PARQUET_ARROW_SCHEMA_APPLIED,
    BASALT_PARQUET_ARROW_SCHEMA_MISMATCH,   /* decoded, top-level field count differs: unused */
    BASALT_PARQUET_ARROW_SCHEMA_MALFORMED   /* could not be decoded: unused */
};

/* Everything lives in the schema's arena; read the members, do not change
 * them. Node 0 is the root; fields are in pre-order. */
struct basalt_parquet_schema {
    struct basalt_arena arena;
    int32_t n_nodes;
    struct basalt_parquet_schema_node *nodes;
    int32_t n_leaves;
    struct basalt_parquet_schema_leaf *leaves;
    int32_t n_fields;
    struct basalt_parquet_schema_field *fields;
    int32_t n_roots;
    int32_t *roots;          /* top-level field indices */
    /* Schema-level Arrow metadata (encoded, NULL when none): the stored Arrow
     * schema's when ARROW:schema was applied, else the file's key-value
     * metadata without ARROW:schema. */
    const char *metadata;
    enum basalt_parquet_arrow_schema_state arrow_schema_state;
};

/* Builds the schema of a decoded footer: md->schema, with md's key-value
 * metadata (ARROW:schema). `options` NULL means the defaults. The schema
 * copies what it keeps; `md` may be released afterwards.
 * Returns OK; INVALID_ARG (NULL md/out); CORRUPT, with a message naming the
 * element or column path ("schema: column 'a.b': FIXED_LEN_BYTE_ARRAY without
 * a type_length"), for: no root, a primitive or repeated root, num_children
 * that do not add up to the element count, a negative num_children, a
 * non-root group without children, an element with neither a type nor
 * children, an unknown physical type or repetition, an FLBA without a
 * positive type_length, a missing name or one holding a NUL, an annotation
 * that does not fit
 * its node, a LIST or MAP group of the wrong shape; LIMIT (nesting deeper
 * than options->max_depth, over 2^30 elements); NOMEM. *out is NULL on
 * failure. */
basalt_status basalt_parquet_schema_new(const struct basalt_parquet_file_metadata *md,
                                        const struct basalt_parquet_schema_options *options,
                                        struct basalt_parquet_schema **out,
                                        struct basalt_error *err);

/* The same from a SchemaElement list and key-value pairs (n_key_value may be
 * 0 with key_value NULL). */
basalt_status basalt_parquet_schema_from_elements(
    const struct basalt_parquet_schema_element *elements, size_t n_elements,
    const struct basalt_parquet_key_value *key_value, size_t n_key_value,
    const struct basalt_parquet_schema_options *options, struct basalt_parquet_schema **out,
    struct basalt_error *err);

/* Frees the schema; NULL is a no-op. */
void basalt_parquet_schema_free(struct basalt_parquet_schema *schema);

/* ------------------------------------------------------------------ projection */

/* Which fields and leaves a read produces. Caller storage; starts empty.
 * Selecting a field selects everything below it and keeps its ancestors as
 * wrappers holding only the selected children. A selected map always keeps
 * all of its key and at least the first leaf of its value (an Arrow map has
 * both). The output keeps the file's order whatever the selection order,
 * and selecting twice is selecting once. */
struct basalt_parquet_projection {
    const struct basalt_parquet_schema *schema; /* borrowed */
    uint8_t *fields;           /* n_fields flags */
    uint8_t *leaves;           /* n_leaves flags: the column chunks to read */
    int32_t n_selected_leaves;
};

/* Starts an empty selection over `schema` (borrowed; it must outlive the
 * projection). Returns OK, INVALID_ARG or NOMEM. */
basalt_status basalt_parquet_projection_init(struct basalt_parquet_projection *projection,
                                             const struct basalt_parquet_schema *schema,
                                             struct basalt_error *err);
/* Frees the flags; the projection is empty and must be initialised again. */
void basalt_parquet_projection_reset(struct basalt_parquet_projection *projection);

void basalt_parquet_projection_select_all(struct basalt_parquet_projection *projection);

/* A top-level field by its exact name (which may hold dots). Every top-level
 * field of that name is selected. NOT_FOUND ("column 'x' not found"). */
basalt_status basalt_parquet_projection_select_name(struct basalt_parquet_projection *projection,
                                                    const char *name, struct basalt_error *err);

/* A nested field by a path of names, matched first against the Parquet tree
 * (every group counts: "a.list.element", "m.key_value.value") and otherwise
 * against the Arrow fields (list elements and map entries by their field
 * names: "a.element", "m.key_value.value"). Selects the field standing for
 * the node reached. select_path splits `dotted` at every '.'; select_parts
 * takes the names as they are. NOT_FOUND naming the path. */
basalt_status basalt_parquet_projection_select_path(struct basalt_parquet_projection *projection,
                                                    const char *dotted, struct basalt_error *err);
basalt_status basalt_parquet_projection_select_parts(struct basalt_parquet_projection *projection,
                                                     const char *const *parts, int32_t n_parts,
                                                     struct basalt_error *err);

/* The field a path of names reaches, resolved as select_parts resolves it
 * (the Parquet tree first, then the Arrow fields); -1 when none. */
int32_t basalt_parquet_schema_find_parts(const struct basalt_parquet_schema *schema,
                                         const char *const *parts, int32_t n_parts);
/* The same for a dotted path split at every '.', into *field. NOT_FOUND
 * naming the path (*field -1); NOMEM. */
basalt_status basalt_parquet_schema_find_path(const struct basalt_parquet_schema *schema,
                                              const char *dotted, int32_t *field,
                                              struct basalt_error *err);

/* Every field, at any depth, with PARQUET field id `field_id`. NOT_FOUND. */
basalt_status basalt_parquet_projection_select_field_id(
    struct basalt_parquet_projection *projection, int32_t field_id, struct basalt_error *err);

/* The field a leaf fills (by column index). NOT_FOUND when out of range. */
basalt_status basalt_parquet_projection_select_leaf(struct basalt_parquet_projection *projection,
                                                    int32_t leaf, struct basalt_error *err);

/* ------------------------------------------------------------------ Arrow output */

struct basalt_parquet_arrow_options {
    /* Per leaf (n_leaves entries), NULL for none: a nonzero entry makes a
     * utf8 / binary leaf large_utf8 / large_binary (the reader sets it for
     * columns whose data would overflow 32-bit offsets). */
    const uint8_t *large_binary;
    /* Per leaf, NULL for none: a nonzero entry makes a utf8 / binary leaf
     * dictionary-encoded with int32 indices (when ARROW:schema did not
     * already). */
    const uint8_t *dictionary;
    bool large_lists; /* every list as large_list (maps stay maps) */
};

/* The Arrow schema of the projected output (projection NULL: everything),
 * format "+s", name "", flags 0, the schema's metadata, one child per
 * selected top-level field, in file order. Per field: name, format (after
 * options), ARROW_FLAG_NULLABLE, ARROW_FLAG_DICTIONARY_ORDERED, field
 * metadata (PARQUET:field_id for fields with an id), dictionary. The
 * assembler pairs the output's children with the selected fields in order.
 * `out` is caller storage and owned on OK. options NULL means none.
 * Returns OK; INVALID_ARG (NULL schema/out, a projection of another schema);
 * NOMEM. On failure out->release is NULL. */
basalt_status basalt_parquet_schema_to_arrow(const struct basalt_parquet_schema *schema,
                                             const struct basalt_parquet_projection *projection,
                                             const struct basalt_parquet_arrow_options *options,
                                             struct ArrowSchema *out, struct basalt_error *err);

/* ------------------------------------------------------------------ internal */

/* Between the schema_*.c files; not for other callers. */

/* Copies `len` bytes of `s` into the schema's arena, NUL-terminated. */
char *basalt_parquet_schema_strdup(struct basalt_parquet_schema *schema, const char *s,
                                   size_t len, struct basalt_error *err);
/* Copies encoded Arrow metadata (NULL stays NULL) into the arena. */
basalt_status basalt_parquet_schema_metadata_dup(struct basalt_parquet_schema *schema,
                                                 const struct basalt_buffer *md,
                                                 const char **out, struct basalt_error *err);
/* Resolves node->annotation from the element's LogicalType / ConvertedType
 * and checks it fits the node (schema_types.c). */
basalt_status basalt_parquet_schema_annotate(struct basalt_parquet_schema *schema, int32_t node,
                                             const struct basalt_parquet_schema_element *element,
                                             struct basalt_error *err);
/* Fills leaf->format, conversion and value_width from its node (schema_types.c). */
basalt_status basalt_parquet_schema_leaf_type(struct basalt_parquet_schema *schema,
                                              struct basalt_parquet_schema_leaf *leaf,
                                              struct basalt_error *err);
/* Value width in bytes of a fixed-width Arrow format; 0 for others. */
int32_t basalt_parquet_schema_format_width(const char *format);
/* Builds schema->fields and roots from the nodes (schema_fields.c); `kv`
 * (n_kv pairs, the file's key-value metadata) resolves "projjson:KEY" CRSs. */
basalt_status basalt_parquet_schema_build_fields(struct basalt_parquet_schema *schema,
                                                 const struct basalt_parquet_key_value *kv,
                                                 size_t n_kv, struct basalt_error *err);
/* Appends the geoarrow.wkb extension name and metadata of a GEOMETRY or
 * GEOGRAPHY leaf (annotation `a`) to `md` (geo.c); a GEOGRAPHY edge
 * algorithm this version does not know adds nothing. NOMEM. */
basalt_status basalt_parquet_geoarrow_metadata(const struct basalt_parquet_schema_annotation *a,
                                               const struct basalt_parquet_key_value *kv,
                                               size_t n_kv, struct basalt_buffer *md,
                                               struct basalt_error *err);
/* Applies a stored Arrow schema to the fields (schema_hint.c); returns OK
 * without changes when its shape does not match. */
basalt_status basalt_parquet_schema_apply_arrow(struct basalt_parquet_schema *schema,
                                                const struct ArrowSchema *stored,
                                                struct basalt_error *err);

#endif
