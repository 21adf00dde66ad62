/* Opening a Parquet file: the trailer, the footer, the schema, and the
 * checks that let the rest of the reader trust the footer's shape. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet_reader.h"

void basalt_parquet_reader_options_init(struct basalt_parquet_reader_options *options)
{
    if (!options)
        return;
    memset(options, 0, sizeof *options);
    options->max_footer_size = BASALT_PARQUET_DEFAULT_MAX_FOOTER_SIZE;
    options->max_metadata_memory = (size_t)1 << 30;
    options->max_schema_depth = BASALT_PARQUET_SCHEMA_DEFAULT_MAX_DEPTH;
    options->max_page_size = BASALT_PARQUET_DEFAULT_MAX_PAGE_SIZE;
    options->use_mmap = false;
    options->verify_crc = true;
}

/* ------------------------------------------------------------------ writer version */

static bool parse_number(const char **p, int *out)
{
    const char *s = *p;
    if (*s < '0' || *s > '9')
        return false;
    long v = 0;
    while (*s >= '0' && *s <= '9') {
        if (v < 1000000)
            v = v * 10 + (*s - '0');
        s++;
    }
    *out = (int)v;
    *p = s;
    return true;
}

void basalt_parquet_writer_version_parse(const char *created_by,
                                         struct basalt_parquet_writer_version *out)
{
    memset(out, 0, sizeof *out);
    if (!created_by)
        return;
    /* "<app> version <major>.<minor>.<patch>[-suffix] [(build ...)]"; the
     * application is named even when the version is missing or malformed,
     * and then counts as version 0.0.0 (as Arrow C++ reads it). */
    const char *sp = strchr(created_by, ' ');
    size_t app_len = sp ? (size_t)(sp - created_by) : strlen(created_by);
    out->parquet_mr = app_len == 10 && strncmp(created_by, "parquet-mr", 10) == 0;
    out->parquet_cpp = app_len == 11 && strncmp(created_by, "parquet-cpp", 11) == 0;
    if (!sp)
        return;
    const char *v = sp + 1;
    if (strncmp(v, "version ", 8) != 0)
        return;
    v += 8;
    if (*v == 'v')
        v++;
    int major = 0, minor = 0, patch = 0;
    if (!parse_number(&v, &major))
        return;
    if (*v == '.') {
        v++;
        if (!parse_number(&v, &minor))
            return;
        if (*v == '.') {
            v++;
            if (!parse_number(&v, &patch))
                return;
        }
    }
    out->known = true;
    out->major = major;
    out->minor = minor;
    out->patch = patch;
}

bool basalt_parquet_writer_version_lt(const struct basalt_parquet_writer_version *v, int major,
                                      int minor, int patch)
{
    if (v->major != major)
        return v->major < major;
    if (v->minor != minor)
        return v->minor < minor;
    return v->patch < patch;
}

bool basalt_parquet_writer_short_chunks(const struct basalt_parquet_writer_version *v)
{
    return v->parquet_mr && basalt_parquet_writer_version_lt(v, 1, 2, 9);
}

bool basalt_parquet_writer_v2_always_compressed(const struct basalt_parquet_writer_version *v)
{
    return v->parquet_cpp && basalt_parquet_writer_version_lt(v, 2, 0, 0);
}

/* ------------------------------------------------------------------ context */

basalt_status basalt_parquet_reader_context(const struct basalt_parquet_reader *reader,
                                            int32_t row_group, int32_t leaf, basalt_status st,
                                            struct basalt_error *err)
{
    if (leaf >= 0 && reader->schema && leaf < reader->schema->n_leaves)
        basalt_error_context(err, st, "column '%s'", reader->schema->leaves[leaf].path);
    if (row_group >= 0)
        basalt_error_context(err, st, "row group %d", (int)row_group);
    return basalt_error_context(err, st, "%s", reader->name);
}

/* ------------------------------------------------------------------ open */

static basalt_status read_footer(struct basalt_parquet_reader *r, struct basalt_error *err)
{
    uint64_t size = r->input->size;
    uint8_t tail[BASALT_PARQUET_TRAILER_SIZE];
    if (size < 12)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "file too small to be Parquet (%llu bytes)",
                                (unsigned long long)size);
    basalt_status st = basalt_input_read_at(r->input, size - 8, 8, tail, err);
    if (st != BASALT_OK)
        return st;
    /* The leading magic costs a round trip of its own on a remote input
     * (the footer came with the open): there only the trailing magic is
     * checked, as most readers do everywhere. */
    bool remote = !basalt_input_view(r->input) && r->input->ops->prefetch != NULL;
    uint8_t head[4];
    st = remote ? BASALT_OK : basalt_input_read_at(r->input, 0, 4, head, err);
    if (st != BASALT_OK)
        return st;
    uint32_t footer_len = 0;
    struct basalt_error trailer_err;
    basalt_error_init(&trailer_err);
    st = basalt_thrift_decode_trailer(tail, size, &footer_len, &trailer_err);
    /* "PARE": an encrypted footer, its length decoded all the same. */
    bool encrypted = st == BASALT_UNSUPPORTED && memcmp(tail + 4, "PARE", 4) == 0;
    if (st != BASALT_OK && !encrypted) {
        if (err)
            *err = trailer_err;
        return st;
    }
    if (!remote && memcmp(head, encrypted ? "PARE" : "PAR1", 4) != 0)
        return basalt_error_set(err, BASALT_CORRUPT, "bad magic: the file does not start with %s",
                                encrypted ? "PARE" : "PAR1");
    if (footer_len > r->options.max_footer_size)
        return basalt_error_set(err, BASALT_LIMIT,
                                "footer of %u bytes exceeds the limit of %llu bytes", footer_len,
                                (unsigned long long)r->options.max_footer_size);
    uint64_t footer_off = size - 8 - footer_len;
    r->data_end = footer_off;
    const uint8_t *bytes = r->view ? r->view + footer_off : NULL;
    uint8_t *buf = NULL;
    if (!bytes) {
        buf = basalt_malloc(footer_len ? footer_len : 1);
        if (!buf)
            return basalt_error_set(err, BASALT_NOMEM, "out of memory for a %u-byte footer",
                                    footer_len);
        st = basalt_input_read_at(r->input, footer_off, footer_len, buf, err);
        if (st != BASALT_OK) {
            basalt_free(buf);
            return st;
        }
        bytes = buf;
    }
    const uint8_t *md_bytes = bytes;
    size_t md_len = footer_len;
    uint8_t *plain = NULL;
    if (encrypted) {
        st = basalt_parquet_crypto_open_encrypted_footer(r, bytes, footer_len, &plain, &md_len,
                                                         err);
        if (st != BASALT_OK) {
            basalt_free(buf);
            return st;
        }
        md_bytes = plain;
    }
    struct basalt_thrift_limits limits;
    basalt_thrift_limits_init(&limits);
    limits.max_memory = r->options.max_metadata_memory;
    st = basalt_thrift_decode_file_metadata(md_bytes, md_len, &r->arena, &limits, &r->md, err);
    basalt_free(plain);
    if (st != BASALT_OK) {
        basalt_free(buf);
        return basalt_error_context(err, st, "footer");
    }
    /* A plaintext footer of an encrypted file: signed, checked when the
     * footer key is known. */
    if (!encrypted && r->md.has_encryption_algorithm)
        st = basalt_parquet_crypto_open_plaintext_footer(r, bytes, footer_len, err);
    basalt_free(buf);
    return st;
}

/* The footer's shape, checked once so that scans can index without fear. */
static basalt_status check_metadata(struct basalt_parquet_reader *r, struct basalt_error *err)
{
    const struct basalt_parquet_schema *s = r->schema;
    const struct basalt_parquet_file_metadata *md = &r->md;
    int64_t rows = 0;
    for (size_t g = 0; g < md->num_row_groups; g++) {
        const struct basalt_parquet_row_group *rg = &md->row_groups[g];
        if (rg->num_columns != (size_t)s->n_leaves)
            return basalt_error_set(err, BASALT_CORRUPT,
                                    "row group %zu: %zu column chunks for %d columns", g,
                                    rg->num_columns, (int)s->n_leaves);
        if (rg->num_rows < 0)
            return basalt_error_set(err, BASALT_CORRUPT, "row group %zu: negative num_rows %lld",
                                    g, (long long)rg->num_rows);
        if (rg->num_rows > INT64_MAX - rows)
            return basalt_error_set(err, BASALT_CORRUPT, "row group %zu: row count overflows", g);
        rows += rg->num_rows;
        for (size_t c = 0; c < rg->num_columns; c++) {
            const struct basalt_parquet_column_chunk *cc = &rg->columns[c];
            /* Encrypted chunks without their key: nothing here to check. */
            if ((cc->has_crypto_metadata || cc->has_encrypted_column_metadata) &&
                !basalt_parquet_reader_chunk_cipher(r, (int32_t)g, (int32_t)c))
                continue;
            if (!cc->has_meta_data)
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "row group %zu: column '%s': no ColumnMetaData", g,
                                        s->leaves[c].path);
            if (cc->meta_data.type != s->leaves[c].physical_type)
                return basalt_error_set(
                    err, BASALT_CORRUPT,
                    "row group %zu: column '%s': chunk of type %d in a column of type %d", g,
                    s->leaves[c].path, (int)cc->meta_data.type, (int)s->leaves[c].physical_type);
            if (cc->meta_data.num_values < 0 || cc->meta_data.total_compressed_size < 0 ||
                cc->meta_data.total_uncompressed_size < 0)
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "row group %zu: column '%s': negative sizes", g,
                                        s->leaves[c].path);
        }
    }
    r->num_rows = rows;
    r->column_orders = basalt_arena_alloc(&r->arena, sizeof(int32_t) * ((size_t)s->n_leaves + 1),
                                          _Alignof(int32_t));
    if (!r->column_orders)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for column orders");
    for (int32_t i = 0; i < s->n_leaves; i++)
        r->column_orders[i] = BASALT_PARQUET_COLUMN_ORDER_NONE;
    if (md->has_column_orders) {
        if (md->num_column_orders != (size_t)s->n_leaves)
            return basalt_error_set(err, BASALT_CORRUPT, "%zu column orders for %d columns",
                                    md->num_column_orders, (int)s->n_leaves);
        for (int32_t i = 0; i < s->n_leaves; i++)
            r->column_orders[i] = md->column_orders[i];
    }
    return BASALT_OK;
}

basalt_status basalt_parquet_reader_open(struct basalt_input *input, bool take_input,
                                         const struct basalt_parquet_reader_options *options,
                                         struct basalt_parquet_reader **out,
                                         struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (!input || !out) {
        if (take_input)
            basalt_input_close(input);
        return basalt_error_set(err, BASALT_INVALID_ARG, "parquet_reader_open: NULL argument");
    }
    struct basalt_parquet_reader *r = basalt_calloc(1, sizeof *r);
    if (!r) {
        if (take_input)
            basalt_input_close(input);
        return basalt_error_set(err, BASALT_NOMEM, "out of memory for a reader");
    }
    r->input = input;
    r->owns_input = take_input;
    r->name = input->name ? input->name : "<input>";
    if (options)
        r->options = *options;
    else
        basalt_parquet_reader_options_init(&r->options);
    r->view = basalt_input_view(input);
    basalt_arena_init(&r->arena, 64 * 1024);
    basalt_status st = read_footer(r, err);
    if (st == BASALT_OK) {
        struct basalt_parquet_schema_options so;
        basalt_parquet_schema_options_init(&so);
        so.max_depth = r->options.max_schema_depth;
        so.ignore_arrow_schema = r->options.ignore_arrow_schema;
        st = basalt_parquet_schema_new(&r->md, &so, &r->schema, err);
    }
    if (st == BASALT_OK)
        st = basalt_parquet_crypto_open_columns(r, err);
    if (st == BASALT_OK)
        st = check_metadata(r, err);
    if (st == BASALT_OK)
        basalt_parquet_writer_version_parse(r->md.has_created_by ? r->md.created_by.data : NULL,
                                            &r->writer);
    if (st != BASALT_OK) {
        basalt_error_context(err, st, "%s", r->name);
        basalt_parquet_reader_close(r);
        return st;
    }
    /* The decryption options are the caller's, read during open only. */
    r->options.decryption = NULL;
    *out = r;
    return BASALT_OK;
}

basalt_status basalt_parquet_reader_open_file(const char *path,
                                              const struct basalt_parquet_reader_options *options,
                                              struct basalt_parquet_reader **out,
                                              struct basalt_error *err)
{
    if (out)
        *out = NULL;
    if (!path || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "parquet_reader_open_file: NULL argument");
    struct basalt_parquet_reader_options defaults;
    if (!options) {
        basalt_parquet_reader_options_init(&defaults);
        options = &defaults;
    }
    struct basalt_input *in = NULL;
    basalt_status st = basalt_input_open_file(path, options->use_mmap, &in, err);
    if (st != BASALT_OK)
        return st;
    return basalt_parquet_reader_open(in, true, options, out, err);
}

void basalt_parquet_reader_close(struct basalt_parquet_reader *reader)
{
    if (!reader)
        return;
    basalt_parquet_schema_free(reader->schema);
    basalt_parquet_crypto_free(reader->crypto);
    basalt_arena_reset(&reader->arena);
    if (reader->owns_input)
        basalt_input_close(reader->input);
    basalt_free(reader);
}

/* ------------------------------------------------------------------ accessors */

const struct basalt_parquet_file_metadata *basalt_parquet_reader_metadata(
    const struct basalt_parquet_reader *reader)
{
    return reader ? &reader->md : NULL;
}

const char *basalt_parquet_reader_name(const struct basalt_parquet_reader *reader)
{
    return reader ? reader->name : NULL;
}

int64_t basalt_parquet_reader_num_rows(const struct basalt_parquet_reader *reader)
{
    return reader ? reader->num_rows : 0;
}

int32_t basalt_parquet_reader_num_row_groups(const struct basalt_parquet_reader *reader)
{
    return reader ? (int32_t)reader->md.num_row_groups : 0;
}

int32_t basalt_parquet_reader_num_columns(const struct basalt_parquet_reader *reader)
{
    return reader ? reader->schema->n_leaves : 0;
}

basalt_status basalt_parquet_reader_column(const struct basalt_parquet_reader *reader,
                                           int32_t column, struct basalt_parquet_column_info *out,
                                           struct basalt_error *err)
{
    if (!reader || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "reader_column: NULL argument");
    if (column < 0 || column >= reader->schema->n_leaves)
        return basalt_error_set(err, BASALT_NOT_FOUND, "column %d not found (%d columns)",
                                (int)column, (int)reader->schema->n_leaves);
    const struct basalt_parquet_schema_leaf *leaf = &reader->schema->leaves[column];
    memset(out, 0, sizeof *out);
    out->path = leaf->path;
    /* Nodes are numbered as the file's SchemaElements. */
    out->element = &reader->md.schema[leaf->node];
    out->max_definition_level = leaf->max_def;
    out->max_repetition_level = leaf->max_rep;
    out->physical_type = leaf->physical_type;
    out->arrow_format = leaf->format;
    out->column_order = reader->column_orders[column];
    return BASALT_OK;
}

basalt_status basalt_parquet_reader_find_column(const struct basalt_parquet_reader *reader,
                                                const char *path, int32_t *column,
                                                struct basalt_error *err)
{
    if (!reader || !path || !column)
        return basalt_error_set(err, BASALT_INVALID_ARG, "reader_find_column: NULL argument");
    for (int32_t i = 0; i < reader->schema->n_leaves; i++) {
        if (strcmp(reader->schema->leaves[i].path, path) == 0) {
            *column = i;
            return BASALT_OK;
        }
    }
    return basalt_error_set(err, BASALT_NOT_FOUND, "column '%s' not found", path);
}

/* ------------------------------------------------------------------ chunks */

basalt_status basalt_parquet_reader_chunk_meta(const struct basalt_parquet_reader *reader,
                                               int32_t row_group, int32_t leaf,
                                               const struct basalt_parquet_column_metadata **out,
                                               struct basalt_error *err)
{
    if (row_group < 0 || (size_t)row_group >= reader->md.num_row_groups || leaf < 0 ||
        leaf >= reader->schema->n_leaves)
        return basalt_error_set(err, BASALT_NOT_FOUND, "no column chunk (%d, %d)",
                                (int)row_group, (int)leaf);
    const struct basalt_parquet_column_chunk *cc = &reader->md.row_groups[row_group].columns[leaf];
    if ((cc->has_crypto_metadata || cc->has_encrypted_column_metadata) &&
        !basalt_parquet_reader_chunk_cipher(reader, row_group, leaf))
        return basalt_parquet_crypto_chunk_refusal(reader, row_group, leaf, err);
    if (cc->has_file_path)
        return basalt_error_set(err, BASALT_UNSUPPORTED,
                                "column chunk stored in another file ('%s')", cc->file_path.data);
    *out = &cc->meta_data;
    return BASALT_OK;
}

basalt_status basalt_parquet_reader_chunk_range(const struct basalt_parquet_reader *reader,
                                                int32_t row_group, int32_t leaf,
                                                uint64_t *offset, uint64_t *length,
                                                struct basalt_error *err)
{
    const struct basalt_parquet_column_metadata *m = NULL;
    basalt_status st = basalt_parquet_reader_chunk_meta(reader, row_group, leaf, &m, err);
    if (st != BASALT_OK)
        return st;
    int64_t start = m->data_page_offset;
    /* Writers set dictionary_page_offset to 0 when there is no dictionary. */
    if (m->has_dictionary_page_offset && m->dictionary_page_offset > 0 &&
        m->dictionary_page_offset < start)
        start = m->dictionary_page_offset;
    int64_t len = m->total_compressed_size;
    if (start < 4 || (uint64_t)start > reader->data_end)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "column chunk starts at %lld, outside the data [4, %llu)",
                                (long long)start, (unsigned long long)reader->data_end);
    uint64_t room = reader->data_end - (uint64_t)start;
    /* parquet-mr up to 1.2.8 left the dictionary page header out of
     * total_compressed_size (PARQUET-816): read up to 100 bytes more. */
    if (basalt_parquet_writer_short_chunks(&reader->writer) && (uint64_t)len <= room) {
        uint64_t spare = room - (uint64_t)len;
        len += (int64_t)(spare < 100 ? spare : 100);
    }
    if ((uint64_t)len > room)
        return basalt_error_set(err, BASALT_CORRUPT,
                                "column chunk [%lld, +%lld) runs past the data, which ends at %llu",
                                (long long)start, (long long)len,
                                (unsigned long long)reader->data_end);
    *offset = (uint64_t)start;
    *length = (uint64_t)len;
    return BASALT_OK;
}

basalt_status basalt_parquet_reader_column_stats(const struct basalt_parquet_reader *reader,
                                                 int32_t row_group, int32_t column,
                                                 struct basalt_parquet_column_stats *out,
                                                 struct basalt_error *err)
{
    if (!reader || !out)
        return basalt_error_set(err, BASALT_INVALID_ARG, "reader_column_stats: NULL argument");
    const struct basalt_parquet_column_metadata *m = NULL;
    basalt_status st = basalt_parquet_reader_chunk_meta(reader, row_group, column, &m, err);
    if (st != BASALT_OK)
        return st;
    basalt_parquet_stats_of(reader, column, m, out);
    return BASALT_OK;
}
