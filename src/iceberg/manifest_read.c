/* Opening a manifest or manifest list: the Avro container, the columns we
 * need found by Iceberg field id in the writer's schema, and a compiled plan
 * that decodes only those into rows of slots. */
#include "manifest_internal.h"

void basalt_iceberg_mf_file_close(struct basalt_iceberg_mf_file *f)
{
    basalt_avro_plan_free(f->plan);
    basalt_avro_reader_free(f->reader);
    memset(f, 0, sizeof *f);
}

const uint8_t *basalt_iceberg_mf_meta(const struct basalt_iceberg_mf_file *f, const char *key,
                                      size_t *len)
{
    return basalt_avro_reader_meta(f->reader, key, len);
}

bool basalt_iceberg_mf_meta_i64(const struct basalt_iceberg_mf_file *f, const char *key,
                                int64_t *out)
{
    size_t n;
    const uint8_t *v = basalt_avro_reader_meta(f->reader, key, &n);
    return v && basalt_iceberg_mf_parse_i64((const char *)v, n, out);
}

bool basalt_iceberg_mf_meta_snapshot_id(const struct basalt_iceberg_mf_file *f, const char *key,
                                        int64_t *out)
{
    size_t n;
    const uint8_t *v = basalt_avro_reader_meta(f->reader, key, &n);
    return v && basalt_iceberg_mf_parse_snapshot_id((const char *)v, n, out);
}

/* Field ids of one record, parsed once per file rather than once per lookup. */
struct id_table {
    const struct basalt_avro_node *rec;
    uint32_t n;
    int64_t ids[128];
};

static int32_t lookup_id(struct id_table *t, const struct basalt_avro_node *rec, int64_t id)
{
    if (rec->count > 128)
        return basalt_iceberg_mf_find_id(rec, id);
    if (t->rec != rec) {
        for (uint32_t i = 0; i < rec->count; i++)
            t->ids[i] = basalt_iceberg_mf_field_id(&rec->fields[i]);
        t->n = rec->count;
        t->rec = rec;
    }
    for (uint32_t i = 0; i < t->n; i++)
        if (t->ids[i] == id)
            return (int32_t)i;
    return -1;
}

basalt_status basalt_iceberg_mf_file_open(const void *data, size_t len,
                                          struct basalt_avro_plan_cache *cache,
                                          const struct basalt_iceberg_mf_col *cols, size_t n_cols,
                                          struct basalt_iceberg_mf_file *f,
                                          struct basalt_error *err)
{
    memset(f, 0, sizeof *f);
    if (n_cols > BASALT_ICEBERG_MF_MAX_COLS)
        return basalt_error_set(err, BASALT_INTERNAL, "too many manifest columns");
    if (len >= 4 && memcmp(data, "AGS1", 4) == 0)
        return basalt_error_set(err, BASALT_UNSUPPORTED, "encrypted file (AGS1 stream)");
    struct basalt_avro_reader_options ro;
    basalt_avro_reader_options_init(&ro);
    basalt_iceberg_mf_limits(&ro.limits);
    ro.cache = cache;
    basalt_status st = basalt_avro_reader_new(data, len, &ro, &f->reader, err);
    if (st != BASALT_OK) {
        basalt_iceberg_mf_file_close(f);
        return st == BASALT_INVALID_ARG ? BASALT_CORRUPT : st;
    }
    const struct basalt_avro_node *root = basalt_avro_schema_root(basalt_avro_reader_schema(f->reader));
    if (root->type != BASALT_AVRO_RECORD) {
        basalt_iceberg_mf_file_close(f);
        return basalt_error_set(err, BASALT_CORRUPT, "the Avro schema is not a record");
    }
    /* Paths are the writer's names of the fields with our ids. */
    char paths[BASALT_ICEBERG_MF_MAX_COLS][BASALT_ICEBERG_MF_MAX_PATH];
    struct basalt_avro_column acols[BASALT_ICEBERG_MF_MAX_COLS];
    size_t n = 0;
    struct id_table tables[2];
    tables[0].rec = tables[1].rec = NULL;
    for (size_t i = 0; i < n_cols; i++) {
        f->plan_col[i] = -1;
        const struct basalt_avro_node *rec = root;
        size_t plen = 0;
        bool found = true;
        for (uint8_t d = 0; d < cols[i].depth && found; d++) {
            int32_t idx = lookup_id(&tables[d ? 1 : 0], rec, cols[i].ids[d]);
            if (idx < 0) {
                found = false;
                break;
            }
            const struct basalt_avro_field *fld = &rec->fields[idx];
            size_t nl = strlen(fld->name);
            if (plen + nl + 2 > BASALT_ICEBERG_MF_MAX_PATH || memchr(fld->name, '.', nl)) {
                found = false;
                break;
            }
            if (d > 0)
                paths[n][plen++] = '.';
            memcpy(paths[n] + plen, fld->name, nl);
            plen += nl;
            if (d + 1 < cols[i].depth) {
                rec = basalt_iceberg_mf_record(fld->type);
                if (!rec)
                    found = false;
            }
        }
        if (!found)
            continue;
        paths[n][plen] = 0;
        acols[n].path = paths[n];
        acols[n].type = cols[i].type;
        f->plan_col[i] = (int32_t)n;
        n++;
    }
    f->n_cols = n_cols;
    if (cache)
        st = basalt_avro_plan_cache_plan(cache, basalt_avro_reader_schema(f->reader), NULL, acols, n,
                                         &f->plan, err);
    else
        st = basalt_avro_plan_new(basalt_avro_reader_schema(f->reader), NULL, acols, n, &f->plan,
                                  err);
    if (st != BASALT_OK) {
        basalt_iceberg_mf_file_close(f);
        /* A field with one of our ids whose type the slot cannot hold. */
        return st == BASALT_INVALID_ARG ? basalt_error_context(err, BASALT_CORRUPT, "schema") : st;
    }
    return BASALT_OK;
}

const struct basalt_avro_node *basalt_iceberg_mf_col_node(const struct basalt_iceberg_mf_file *f,
                                                          size_t col)
{
    if (f->plan_col[col] < 0)
        return NULL;
    return basalt_avro_plan_column_node(f->plan, (size_t)f->plan_col[col]);
}

basalt_status basalt_iceberg_mf_file_read(struct basalt_iceberg_mf_file *f,
                                          const struct basalt_iceberg_mf_col *cols, void *rows,
                                          size_t row_size, size_t present_offset, int64_t max,
                                          int64_t *count, struct basalt_error *err)
{
    struct basalt_avro_dest dests[BASALT_ICEBERG_MF_MAX_COLS];
    for (size_t i = 0; i < f->n_cols; i++) {
        int32_t pc = f->plan_col[i];
        if (pc < 0)
            continue;
        dests[pc].values = (char *)rows + cols[i].offset;
        dests[pc].stride = row_size;
        dests[pc].present = (uint8_t *)rows + present_offset + i;
        dests[pc].present_stride = row_size;
    }
    return basalt_avro_reader_read(f->reader, f->plan, dests, max, count, err);
}
