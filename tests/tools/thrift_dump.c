/* Dumps what basalt's footer decoder sees in Parquet files, as JSON, for the
 * differential test against DuckDB (thrift_differential.mjs).
 *
 *   thrift_dump FILE...              one JSON object per line per file
 *   thrift_dump --rewrite IN OUT     copies IN with its footer decoded and
 *                                    re-encoded by basalt
 *
 * Binary values are printed as lower-case hex. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/parquet_format.h"

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    uint8_t *buf = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)size, f) != (size_t)size) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)size;
    return buf;
}

static void json_str(const char *s, size_t len)
{
    putchar('"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void json_cstr(const char *s)
{
    if (s)
        json_str(s, strlen(s));
    else
        printf("null");
}

static void json_string(const struct basalt_parquet_string *s, bool has)
{
    if (has)
        json_str(s->data, s->len);
    else
        printf("null");
}

static void json_hex(const struct basalt_parquet_binary *b, bool has)
{
    if (!has) {
        printf("null");
        return;
    }
    putchar('"');
    for (size_t i = 0; i < b->len; i++)
        printf("%02x", b->data[i]);
    putchar('"');
}

/* Integers are printed as strings so no JSON reader rounds them. */
static void json_i64(int64_t v, bool has)
{
    if (has)
        printf("\"%" PRId64 "\"", v);
    else
        printf("null");
}

static void json_bool(bool v, bool has)
{
    printf("%s", has ? (v ? "true" : "false") : "null");
}

static void json_enum(const char *name, int32_t v, bool has)
{
    if (!has)
        printf("null");
    else if (name)
        printf("\"%s\"", name);
    else
        printf("\"%" PRId32 "\"", v);
}

/* Keys and values as hex: they are often not text. */
static void key_values(const struct basalt_parquet_key_value *kv, size_t n)
{
    putchar('[');
    for (size_t i = 0; i < n; i++) {
        struct basalt_parquet_binary k = {(const uint8_t *)kv[i].key.data, kv[i].key.len};
        struct basalt_parquet_binary v = {(const uint8_t *)kv[i].value.data, kv[i].value.len};
        printf(i ? ",[" : "[");
        json_hex(&k, true);
        putchar(',');
        json_hex(&v, kv[i].has_value);
        putchar(']');
    }
    putchar(']');
}

static void logical_type(const struct basalt_parquet_schema_element *se)
{
    const struct basalt_parquet_logical_type *lt = &se->logical_type;
    if (!se->has_logical_type) {
        printf("null");
        return;
    }
    printf("{\"kind\":");
    json_enum(basalt_thrift_parquet_logical_type_name(lt->kind), lt->kind, true);
    switch (lt->kind) {
    case BASALT_PARQUET_LOGICAL_TYPE_DECIMAL:
        printf(",\"scale\":\"%" PRId32 "\",\"precision\":\"%" PRId32 "\"", lt->decimal.scale,
               lt->decimal.precision);
        break;
    case BASALT_PARQUET_LOGICAL_TYPE_TIME:
    case BASALT_PARQUET_LOGICAL_TYPE_TIMESTAMP:
        printf(",\"is_adjusted_to_utc\":%s,\"unit\":\"%" PRId32 "\"",
               lt->time.is_adjusted_to_utc ? "true" : "false", lt->time.unit);
        break;
    case BASALT_PARQUET_LOGICAL_TYPE_INTEGER:
        printf(",\"bit_width\":\"%d\",\"is_signed\":%s", lt->integer.bit_width,
               lt->integer.is_signed ? "true" : "false");
        break;
    case BASALT_PARQUET_LOGICAL_TYPE_GEOMETRY:
    case BASALT_PARQUET_LOGICAL_TYPE_GEOGRAPHY:
        printf(",\"crs\":");
        json_string(&lt->geo.crs, lt->geo.has_crs);
        printf(",\"algorithm\":");
        json_i64(lt->geo.algorithm, lt->geo.has_algorithm);
        break;
    default:
        break;
    }
    putchar('}');
}

static void statistics(const struct basalt_parquet_column_metadata *m)
{
    const struct basalt_parquet_statistics *s = &m->statistics;
    if (!m->has_statistics) {
        printf("null");
        return;
    }
    printf("{\"null_count\":");
    json_i64(s->null_count, s->has_null_count);
    printf(",\"distinct_count\":");
    json_i64(s->distinct_count, s->has_distinct_count);
    printf(",\"min\":");
    json_hex(&s->min, s->has_min);
    printf(",\"max\":");
    json_hex(&s->max, s->has_max);
    printf(",\"min_value\":");
    json_hex(&s->min_value, s->has_min_value);
    printf(",\"max_value\":");
    json_hex(&s->max_value, s->has_max_value);
    printf(",\"is_min_value_exact\":");
    json_bool(s->is_min_value_exact, s->has_is_min_value_exact);
    printf(",\"is_max_value_exact\":");
    json_bool(s->is_max_value_exact, s->has_is_max_value_exact);
    printf(",\"nan_count\":");
    json_i64(s->nan_count, s->has_nan_count);
    putchar('}');
}

static void dump_metadata(const struct basalt_parquet_file_metadata *md)
{
    printf(",\"version\":\"%" PRId32 "\",\"num_rows\":\"%" PRId64 "\",\"num_row_groups\":\"%zu\"",
           md->version, md->num_rows, md->num_row_groups);
    printf(",\"created_by\":");
    json_string(&md->created_by, md->has_created_by);
    printf(",\"has_encryption_algorithm\":%s,\"has_encrypted_columns\":%s",
           md->has_encryption_algorithm ? "true" : "false",
           md->has_encrypted_columns ? "true" : "false");
    printf(",\"key_value_metadata\":");
    key_values(md->key_value_metadata, md->num_key_value_metadata);
    printf(",\"column_orders\":");
    if (md->has_column_orders) {
        putchar('[');
        for (size_t i = 0; i < md->num_column_orders; i++)
            printf("%s\"%" PRId32 "\"", i ? "," : "", md->column_orders[i]);
        putchar(']');
    } else {
        printf("null");
    }
    printf(",\"schema\":[");
    for (size_t i = 0; i < md->num_schema; i++) {
        const struct basalt_parquet_schema_element *se = &md->schema[i];
        printf("%s{\"name\":", i ? "," : "");
        json_string(&se->name, true);
        printf(",\"type\":");
        json_enum(basalt_thrift_parquet_type_name(se->type), se->type, se->has_type);
        printf(",\"type_length\":");
        json_i64(se->type_length, se->has_type_length);
        printf(",\"repetition_type\":");
        json_enum(basalt_thrift_parquet_repetition_name(se->repetition_type),
                  se->repetition_type, se->has_repetition_type);
        printf(",\"num_children\":");
        json_i64(se->num_children, se->has_num_children);
        printf(",\"converted_type\":");
        json_enum(basalt_thrift_parquet_converted_type_name(se->converted_type),
                  se->converted_type, se->has_converted_type);
        printf(",\"scale\":");
        json_i64(se->scale, se->has_scale);
        printf(",\"precision\":");
        json_i64(se->precision, se->has_precision);
        printf(",\"field_id\":");
        json_i64(se->field_id, se->has_field_id);
        printf(",\"logical_type\":");
        logical_type(se);
        putchar('}');
    }
    printf("],\"columns\":[");
    bool first = true;
    for (size_t g = 0; g < md->num_row_groups; g++) {
        const struct basalt_parquet_row_group *rg = &md->row_groups[g];
        for (size_t c = 0; c < rg->num_columns; c++) {
            const struct basalt_parquet_column_chunk *cc = &rg->columns[c];
            const struct basalt_parquet_column_metadata *m = &cc->meta_data;
            printf("%s{\"row_group_id\":\"%zu\",\"row_group_num_rows\":\"%" PRId64
                   "\",\"row_group_num_columns\":\"%zu\",\"row_group_bytes\":\"%" PRId64 "\"",
                   first ? "" : ",", g, rg->num_rows, rg->num_columns, rg->total_byte_size);
            first = false;
            printf(",\"row_group_compressed_bytes\":");
            json_i64(rg->total_compressed_size, rg->has_total_compressed_size);
            printf(",\"column_id\":\"%zu\",\"file_offset\":\"%" PRId64 "\"", c, cc->file_offset);
            printf(",\"row_group_file_offset\":");
            json_i64(rg->file_offset, rg->has_file_offset);
            printf(",\"file_path\":");
            json_string(&cc->file_path, cc->has_file_path);
            printf(",\"has_meta_data\":%s", cc->has_meta_data ? "true" : "false");
            printf(",\"encrypted\":%s", cc->has_crypto_metadata ||
                                                cc->has_encrypted_column_metadata
                                            ? "true"
                                            : "false");
            printf(",\"offset_index_offset\":");
            json_i64(cc->offset_index_offset, cc->has_offset_index_offset);
            printf(",\"offset_index_length\":");
            json_i64(cc->offset_index_length, cc->has_offset_index_length);
            printf(",\"column_index_offset\":");
            json_i64(cc->column_index_offset, cc->has_column_index_offset);
            printf(",\"column_index_length\":");
            json_i64(cc->column_index_length, cc->has_column_index_length);
            if (cc->has_meta_data) {
                printf(",\"type\":");
                json_enum(basalt_thrift_parquet_type_name(m->type), m->type, true);
                printf(",\"path_in_schema\":[");
                for (size_t i = 0; i < m->num_path_in_schema; i++) {
                    printf(i ? "," : "");
                    json_string(&m->path_in_schema[i], true);
                }
                printf("],\"codec\":");
                json_enum(basalt_thrift_parquet_codec_name(m->codec), m->codec, true);
                printf(",\"encodings\":[");
                for (size_t i = 0; i < m->num_encodings; i++) {
                    printf(i ? "," : "");
                    json_enum(basalt_thrift_parquet_encoding_name(m->encodings[i]),
                              m->encodings[i], true);
                }
                printf("],\"num_values\":\"%" PRId64 "\",\"total_uncompressed_size\":\"%" PRId64
                       "\",\"total_compressed_size\":\"%" PRId64 "\",\"data_page_offset\":\"%" PRId64 "\"",
                       m->num_values, m->total_uncompressed_size, m->total_compressed_size,
                       m->data_page_offset);
                printf(",\"index_page_offset\":");
                json_i64(m->index_page_offset, m->has_index_page_offset);
                printf(",\"dictionary_page_offset\":");
                json_i64(m->dictionary_page_offset, m->has_dictionary_page_offset);
                printf(",\"bloom_filter_offset\":");
                json_i64(m->bloom_filter_offset, m->has_bloom_filter_offset);
                printf(",\"bloom_filter_length\":");
                json_i64(m->bloom_filter_length, m->has_bloom_filter_length);
                printf(",\"key_value_metadata\":");
                key_values(m->key_value_metadata, m->num_key_value_metadata);
                printf(",\"statistics\":");
                statistics(m);
            }
            putchar('}');
        }
    }
    printf("]");
}

/* The footer's bytes and length, or a status for the trailer. */
static basalt_status locate_footer(const uint8_t *file, size_t len, const uint8_t **footer,
                                   uint32_t *footer_len, struct basalt_error *err)
{
    if (len < BASALT_PARQUET_TRAILER_SIZE)
        return basalt_error_set(err, BASALT_CORRUPT, "file shorter than its trailer");
    basalt_status st = basalt_thrift_decode_trailer(file + len - 8, len, footer_len, err);
    if (st == BASALT_OK)
        *footer = file + len - 8 - *footer_len;
    return st;
}

static int dump(const char *path)
{
    size_t len;
    uint8_t *file = read_file(path, &len);
    printf("{\"file\":");
    json_cstr(path);
    if (!file) {
        printf(",\"status\":\"IO\"}\n");
        return 1;
    }
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    const uint8_t *footer = NULL;
    uint32_t footer_len = 0;
    struct basalt_parquet_file_metadata md;
    basalt_status st = locate_footer(file, len, &footer, &footer_len, &err);
    if (st == BASALT_OK)
        st = basalt_thrift_decode_file_metadata(footer, footer_len, &arena, NULL, &md, &err);
    printf(",\"status\":\"%s\",\"message\":", basalt_status_name(st));
    json_cstr(st == BASALT_OK ? "" : err.message);
    if (st == BASALT_OK)
        dump_metadata(&md);
    printf("}\n");
    basalt_arena_reset(&arena);
    free(file);
    return 0;
}

static int rewrite(const char *in, const char *out)
{
    size_t len;
    uint8_t *file = read_file(in, &len);
    if (!file) {
        fprintf(stderr, "cannot read %s\n", in);
        return 1;
    }
    struct basalt_error err;
    basalt_error_init(&err);
    struct basalt_arena arena;
    basalt_arena_init(&arena, 0);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    const uint8_t *footer = NULL;
    uint32_t footer_len = 0;
    struct basalt_parquet_file_metadata md;
    basalt_status st = locate_footer(file, len, &footer, &footer_len, &err);
    if (st == BASALT_OK)
        st = basalt_thrift_decode_file_metadata(footer, footer_len, &arena, NULL, &md, &err);
    size_t body = (size_t)(footer - file);
    if (st == BASALT_OK)
        st = basalt_buffer_append(&buf, file, body, &err);
    if (st == BASALT_OK)
        st = basalt_thrift_encode_file_metadata(&md, &buf, &err);
    if (st == BASALT_OK) {
        uint32_t n = (uint32_t)(buf.size - body);
        uint8_t tail[8] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24),
                           'P', 'A', 'R', '1'};
        st = basalt_buffer_append(&buf, tail, sizeof tail, &err);
    }
    int rc = 0;
    if (st != BASALT_OK) {
        fprintf(stderr, "%s: %s: %s\n", in, basalt_status_name(st), err.message);
        rc = 1;
    } else {
        FILE *f = fopen(out, "wb");
        if (!f || fwrite(buf.data, 1, buf.size, f) != buf.size) {
            fprintf(stderr, "cannot write %s\n", out);
            rc = 1;
        }
        if (f && fclose(f) != 0)
            rc = 1;
    }
    basalt_buffer_reset(&buf);
    basalt_arena_reset(&arena);
    free(file);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--rewrite") == 0)
        return rewrite(argv[2], argv[3]);
    if (argc < 2) {
        fprintf(stderr, "usage: thrift_dump FILE... | thrift_dump --rewrite IN OUT\n");
        return 2;
    }
    int rc = 0;
    for (int i = 1; i < argc; i++)
        rc |= dump(argv[i]);
    return rc;
}
