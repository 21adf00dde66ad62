/* The Parquet struct tables (src/thrift/pf_tables.c) against the invariants
 * the generic decoder and encoder rely on, so that a table added or edited by
 * hand cannot quietly write outside its struct, drop a required check or
 * refuse valid lists; and the error paths the generic codecs build. */
#include <stdio.h>

#include "pf_desc.h"
#include "test.h"

static size_t kind_size(uint8_t kind)
{
    switch (kind) {
    case PF_I8:
        return sizeof(int8_t);
    case PF_I16:
        return sizeof(int16_t);
    case PF_I32:
    case PF_ENUM:
        return sizeof(int32_t);
    case PF_I64:
        return sizeof(int64_t);
    case PF_DOUBLE:
        return sizeof(double);
    case PF_BOOL:
        return sizeof(bool);
    case PF_BYTES:
        return sizeof(struct basalt_parquet_binary);
    case PF_STRUCT_PTR:
    case PF_LIST:
        return sizeof(void *);
    default:
        return 0;
    }
}

/* The field-header type codes a kind is read from. */
static uint16_t kind_wires(uint8_t kind)
{
    static const uint8_t wire[] = {
        [PF_I8] = BASALT_THRIFT_TYPE_I8,         [PF_I16] = BASALT_THRIFT_TYPE_I16,
        [PF_I32] = BASALT_THRIFT_TYPE_I32,       [PF_ENUM] = BASALT_THRIFT_TYPE_I32,
        [PF_I64] = BASALT_THRIFT_TYPE_I64,       [PF_DOUBLE] = BASALT_THRIFT_TYPE_DOUBLE,
        [PF_BOOL] = BASALT_THRIFT_TYPE_BOOL,     [PF_BYTES] = BASALT_THRIFT_TYPE_BINARY,
        [PF_STRUCT] = BASALT_THRIFT_TYPE_STRUCT, [PF_STRUCT_PTR] = BASALT_THRIFT_TYPE_STRUCT,
        [PF_LIST] = BASALT_THRIFT_TYPE_LIST,
    };
    if (kind == PF_BOOL)
        return 1u << BASALT_THRIFT_TYPE_BOOL | 1u << BASALT_THRIFT_TYPE_BOOL_FALSE;
    return kind != PF_NONE && kind < sizeof wire ? (uint16_t)(1u << wire[kind]) : 0;
}

/* The fewest bytes a struct takes on the wire: a stop byte, and for each
 * required field a one-byte header and its smallest value. */
static unsigned min_wire(const struct pf_struct *s)
{
    if (s->flags & PF_S_UNION)
        return 1; /* no member */
    unsigned n = 1;
    for (unsigned id = 0; id < s->nfields; id++) {
        const struct pf_field *fd = &s->fields[id];
        if (!(s->required >> id & 1))
            continue;
        n += 1;
        switch (fd->kind) {
        case PF_BOOL:
            break; /* the value is in the header */
        case PF_DOUBLE:
            n += 8;
            break;
        case PF_STRUCT:
        case PF_STRUCT_PTR:
            n += min_wire(fd->sub);
            break;
        default:
            n += 1; /* a varint, a length, a list header */
            break;
        }
    }
    return n;
}

static bool has_defaults(const struct pf_struct *s)
{
    for (unsigned id = 0; id < s->nfields; id++) {
        const struct pf_field *fd = &s->fields[id];
        if ((fd->flags & PF_F_DEFAULT_TRUE) ||
            (fd->kind == PF_STRUCT && (fd->sub->flags & PF_S_DEFAULTS)))
            return true;
    }
    return false;
}

/* Checks one struct's table; on a violation writes it to `why`. */
static bool check_struct(const struct pf_struct *s, char *why, size_t why_size)
{
#define FAIL(...)                                                                   \
    do {                                                                            \
        snprintf(why, why_size, __VA_ARGS__);                                       \
        return false;                                                               \
    } while (0)
    bool is_union = (s->flags & PF_S_UNION) != 0;
    if (!s->name)
        FAIL("a struct without a name");
    if (s->nfields > 64 || (s->nfields && !s->fields) || (!s->nfields && s->fields))
        FAIL("%s: nfields %u", s->name, s->nfields);
    if (s->min_wire != min_wire(s))
        FAIL("%s: min_wire %u, the fields imply %u", s->name, s->min_wire, min_wire(s));
    if (has_defaults(s) != ((s->flags & PF_S_DEFAULTS) != 0))
        FAIL("%s: PF_S_DEFAULTS does not match its fields", s->name);
    if (is_union && (s->required || (size_t)s->kind_off + sizeof(int32_t) > s->size))
        FAIL("%s: union with required fields or a kind outside it", s->name);
    uint64_t required = 0;
    for (unsigned id = 0; id < s->nfields; id++) {
        const struct pf_field *fd = &s->fields[id];
        if (fd->wires == 0) {
            if (fd->kind != PF_NONE || fd->name)
                FAIL("%s: field %u has no wire type", s->name, id);
            continue;
        }
        if (!fd->name)
            FAIL("%s: field %u has no name", s->name, id);
        if (id == 0)
            FAIL("%s.%s: id 0", s->name, fd->name);
        if (fd->wires != kind_wires(fd->kind))
            FAIL("%s.%s: wire types %#x for kind %u", s->name, fd->name, fd->wires, fd->kind);
        if (is_union) {
            if (fd->kind != PF_STRUCT || !fd->sub || fd->has != PF_NO_HAS ||
                (size_t)fd->off + fd->sub->size > s->size)
                FAIL("%s.%s: not a member stored in the union", s->name, fd->name);
            continue;
        }
        size_t size = fd->kind == PF_STRUCT ? fd->sub->size : kind_size(fd->kind);
        if ((size_t)fd->off + size > s->size)
            FAIL("%s.%s: value outside the struct", s->name, fd->name);
        if (fd->has == PF_NO_HAS)
            required |= (uint64_t)1 << id;
        else if ((size_t)fd->has + sizeof(bool) > s->size)
            FAIL("%s.%s: has_ flag outside the struct", s->name, fd->name);
        if ((fd->kind == PF_STRUCT || fd->kind == PF_STRUCT_PTR) && !fd->sub)
            FAIL("%s.%s: a struct field without its table", s->name, fd->name);
        if (fd->kind == PF_ENUM && !fd->enum_name)
            FAIL("%s.%s: an enum without its name", s->name, fd->name);
        if ((fd->flags & PF_F_DEFAULT_TRUE) && (fd->kind != PF_BOOL || fd->has == PF_NO_HAS))
            FAIL("%s.%s: a default on a field that is not an optional bool", s->name,
                 fd->name);
        if (fd->kind == PF_LIST) {
            if ((size_t)fd->count + sizeof(size_t) > s->size)
                FAIL("%s.%s: list count outside the struct", s->name, fd->name);
            switch (fd->elem) {
            case PF_I32:
            case PF_I64:
            case PF_BOOL:
            case PF_BYTES:
                break;
            case PF_ENUM:
                if (!fd->enum_name)
                    FAIL("%s.%s: an enum list without its name", s->name, fd->name);
                break;
            case PF_STRUCT:
                if (!fd->sub)
                    FAIL("%s.%s: a struct list without its table", s->name, fd->name);
                break;
            default:
                FAIL("%s.%s: list elements of kind %u", s->name, fd->name, fd->elem);
            }
        }
    }
    /* Required is exactly "no has_ flag": such a field is always written. */
    if (!is_union && required != s->required)
        FAIL("%s: required mask %#llx, the fields say %#llx", s->name,
             (unsigned long long)s->required, (unsigned long long)required);
    return true;
#undef FAIL
}

TEST(tables_keep_their_invariants)
{
    CHECK(basalt_thrift_pf_num_structs >= 40);
    for (size_t i = 0; i < basalt_thrift_pf_num_structs; i++) {
        char why[256] = "";
        bool ok = check_struct(basalt_thrift_pf_all_structs[i], why, sizeof why);
        CHECK_MSG(ok, "%s", why);
    }
}

/* Every struct reachable from an entry point is in the list the test above
 * walks, so none escapes it. */
static bool listed(const struct pf_struct *s)
{
    for (size_t i = 0; i < basalt_thrift_pf_num_structs; i++)
        if (basalt_thrift_pf_all_structs[i] == s)
            return true;
    return false;
}

static bool all_listed(const struct pf_struct *s, const char **missing_name)
{
    if (!listed(s)) {
        *missing_name = s->name;
        return false;
    }
    for (unsigned id = 0; id < s->nfields; id++) {
        const struct pf_field *fd = &s->fields[id];
        bool has_sub = fd->kind == PF_STRUCT || fd->kind == PF_STRUCT_PTR ||
                       (fd->kind == PF_LIST && fd->elem == PF_STRUCT);
        if (fd->wires && has_sub && !all_listed(fd->sub, missing_name))
            return false;
    }
    return true;
}

TEST(every_reachable_table_is_checked)
{
    const struct pf_struct *roots[] = {
        &basalt_thrift_pf_file_metadata, &basalt_thrift_pf_file_crypto_metadata,
        &basalt_thrift_pf_page_header,   &basalt_thrift_pf_column_index,
        &basalt_thrift_pf_offset_index,  &basalt_thrift_pf_bloom_filter_header,
    };
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        const char *missing_name = "";
        bool ok = all_listed(roots[i], &missing_name);
        CHECK_MSG(ok, "%s is not in basalt_thrift_pf_all_structs", missing_name);
    }
}

/* ------------------------------------------------------------------ error paths */

TEST(list_element_errors_name_the_index)
{
    /* ColumnIndex with a null_pages element that is not a bool byte. */
    static const uint8_t bytes[] = {
        0x19, 0x21, 0x01, 0x07, /* 1: null_pages, list<bool> of 2: true, then 7 */
    };
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_parquet_column_index ci;
    struct basalt_error err;
    basalt_status st =
        basalt_thrift_decode_column_index(bytes, sizeof bytes, &arena, NULL, &ci, &err);
    basalt_arena_reset(&arena);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
    CHECK_MSG(strstr(err.message, "ColumnIndex: null_pages[1]: bool element byte 7"), "%s",
              err.message);
}

TEST(value_errors_name_the_field)
{
    /* PageHeader whose type is a negative enum value. */
    static const uint8_t bytes[] = {0x15, 0x05, 0x00};
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_parquet_page_header ph;
    struct basalt_error err;
    basalt_status st =
        basalt_thrift_decode_page_header(bytes, sizeof bytes, &arena, NULL, &ph, NULL, &err);
    basalt_arena_reset(&arena);
    CHECK_STATUS(st, BASALT_CORRUPT, &err);
    CHECK_MSG(strstr(err.message, "PageHeader: type: PageType -3 is not a valid enum value"),
              "%s", err.message);
}

TEST(encoder_errors_name_the_path)
{
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    struct basalt_error err;
    struct basalt_parquet_schema_element se[2] = {{.name = {"root", 4}},
                                                  {.name = {"x", 1}, .has_logical_type = true}};
    se[1].logical_type.kind = 40000;
    struct basalt_parquet_file_metadata md = {.schema = se, .num_schema = 2};
    CHECK_STATUS(basalt_thrift_encode_file_metadata(&md, &buf, &err), BASALT_INVALID_ARG, &err);
    CHECK_MSG(strstr(err.message, "encoding FileMetaData: schema[1]: logicalType: "), "%s",
              err.message);

    /* A has_ flag on an out-of-line member without its pointer. */
    struct basalt_parquet_column_chunk cc = {.has_meta_data = true};
    cc.meta_data.has_geospatial_statistics = true;
    struct basalt_parquet_row_group rg = {.columns = &cc, .num_columns = 1};
    se[1].logical_type.kind = BASALT_PARQUET_LOGICAL_TYPE_STRING;
    md.row_groups = &rg;
    md.num_row_groups = 1;
    buf.size = 0;
    CHECK_STATUS(basalt_thrift_encode_file_metadata(&md, &buf, &err), BASALT_INVALID_ARG, &err);
    CHECK_MSG(strstr(err.message, "row_groups[0]: columns[0]: meta_data: geospatial_statistics: "),
              "%s", err.message);
    basalt_buffer_reset(&buf);
}
