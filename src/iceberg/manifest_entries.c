/* Manifests: Avro records "manifest_entry" read by field id (0-4 for the
 * entry, 100-145 for data_file), with inheritance from the manifest list. */
#include <stddef.h>
#include <strings.h>

#include "manifest_internal.h"

enum {
    E_STATUS, E_SNAP, E_SEQ, E_FSEQ, E_CONTENT, E_PATH, E_FORMAT, E_PART, E_RECORDS, E_SIZE,
    E_KEY, E_SPLITS, E_EQ_IDS, E_SORT, E_FIRST_ROW, E_REF_FILE, E_OFFSET, E_CSIZE,
    /* the metric maps come last so that with_metrics=false simply leaves them out */
    E_COL_SIZES, E_VALUE_COUNTS, E_NULL_COUNTS, E_NAN_COUNTS, E_LOWER, E_UPPER, E_COUNT
};
#define E_NO_METRICS E_COL_SIZES

struct entry_row {
    int64_t status, snap, seq, fseq, content;
    struct basalt_avro_bytes path, format, part;
    int64_t records, size;
    struct basalt_avro_bytes key, splits, eq_ids;
    int64_t sort, first_row;
    struct basalt_avro_bytes ref_file;
    int64_t offset, csize;
    struct basalt_avro_bytes metrics[6];
    uint8_t present[E_COUNT];
};

#define TOP(id, slot, member) {{id, 0}, 1, BASALT_AVRO_SLOT_##slot, offsetof(struct entry_row, member)}
#define DF(id, slot, member) {{2, id}, 2, BASALT_AVRO_SLOT_##slot, offsetof(struct entry_row, member)}
static const struct basalt_iceberg_mf_col entry_cols[E_COUNT] = {
    [E_STATUS] = TOP(0, INT64, status),
    [E_SNAP] = TOP(1, INT64, snap),
    [E_SEQ] = TOP(3, INT64, seq),
    [E_FSEQ] = TOP(4, INT64, fseq),
    [E_CONTENT] = DF(134, INT64, content),
    [E_PATH] = DF(100, BYTES, path),
    [E_FORMAT] = DF(101, BYTES, format),
    [E_PART] = DF(102, RAW, part),
    [E_RECORDS] = DF(103, INT64, records),
    [E_SIZE] = DF(104, INT64, size),
    [E_KEY] = DF(131, BYTES, key),
    [E_SPLITS] = DF(132, RAW, splits),
    [E_EQ_IDS] = DF(135, RAW, eq_ids),
    [E_SORT] = DF(140, INT64, sort),
    [E_FIRST_ROW] = DF(142, INT64, first_row),
    [E_REF_FILE] = DF(143, BYTES, ref_file),
    [E_OFFSET] = DF(144, INT64, offset),
    [E_CSIZE] = DF(145, INT64, csize),
    [E_COL_SIZES] = DF(108, RAW, metrics[0]),
    [E_VALUE_COUNTS] = DF(109, RAW, metrics[1]),
    [E_NULL_COUNTS] = DF(110, RAW, metrics[2]),
    [E_NAN_COUNTS] = DF(137, RAW, metrics[3]),
    [E_LOWER] = DF(125, RAW, metrics[4]),
    [E_UPPER] = DF(128, RAW, metrics[5]),
};
#undef TOP
#undef DF

#define CHUNK 16

static basalt_status nomem(struct basalt_error *err)
{
    return basalt_error_set(err, BASALT_NOMEM, "out of memory");
}

void basalt_iceberg_manifest_read_options_init(struct basalt_iceberg_manifest_read_options *options)
{
    memset(options, 0, sizeof *options);
    options->with_metrics = true;
}

/* What stays the same for every entry of one manifest. */
struct ctx {
    const struct basalt_iceberg_mf_file *f;
    const struct basalt_iceberg_manifest_file *from_list;
    const struct basalt_iceberg_partition_spec *spec;
    struct basalt_iceberg_type *part_types; /* per spec field, or per Avro field */
    int32_t *part_index;                    /* Avro field index per partition value */
    uint32_t n_part;
    struct basalt_arena *arena;
    struct basalt_arena *scratch;
    struct basalt_avro_limits lim;
    int64_t next_row_id;                    /* v3 first_row_id inheritance */
    bool assign_row_ids;
};

static basalt_status decode_raw(struct ctx *c, int col, const struct basalt_avro_bytes *raw,
                                const struct basalt_avro_value **out, struct basalt_error *err)
{
    struct basalt_avro_value *val = basalt_arena_alloc(c->scratch, sizeof *val, 8);
    if (!val)
        return nomem(err);
    basalt_status st = basalt_avro_value_decode(basalt_iceberg_mf_col_node(c->f, (size_t)col),
                                                raw->data, raw->size, &c->lim, c->scratch, val,
                                                NULL, err);
    if (st != BASALT_OK)
        return st;
    *out = basalt_iceberg_mf_unwrap(val);
    return BASALT_OK;
}

/* A metric map: array<record{key: int, value: long | bytes}>. */
static basalt_status read_metric(struct ctx *c, int col, const struct basalt_avro_bytes *raw,
                                 bool bytes, void **out_arr, uint32_t *out_n,
                                 struct basalt_error *err)
{
    const struct basalt_avro_value *a = NULL;
    basalt_status st = decode_raw(c, col, raw, &a, err);
    if (st != BASALT_OK || !a)
        return st;
    if (a->node->type != BASALT_AVRO_ARRAY)
        return basalt_error_set(err, BASALT_CORRUPT, "not an array of key/value records");
    const struct basalt_avro_node *rec = basalt_iceberg_mf_record(a->node->items);
    int32_t ik = rec ? basalt_avro_node_field_index(rec, "key") : -1;
    int32_t iv = rec ? basalt_avro_node_field_index(rec, "value") : -1;
    if (ik < 0 || iv < 0)
        return basalt_error_set(err, BASALT_CORRUPT, "not an array of key/value records");
    if (a->count > UINT32_MAX / 32)
        return basalt_error_set(err, BASALT_LIMIT, "metric map too large");
    size_t esize = bytes ? sizeof(struct basalt_iceberg_metric_bytes)
                         : sizeof(struct basalt_iceberg_metric_long);
    void *arr = basalt_arena_alloc(c->arena, esize * (a->count ? a->count : 1), 8);
    if (!arr)
        return nomem(err);
    uint32_t n = 0;
    bool sorted = true;
    int32_t last = INT32_MIN;
    for (size_t i = 0; i < a->count; i++) {
        const struct basalt_avro_value *item = basalt_iceberg_mf_unwrap(&a->items[i]);
        if (!item)
            return basalt_error_set(err, BASALT_CORRUPT, "null map entry");
        const struct basalt_avro_value *k = basalt_iceberg_mf_unwrap(&item->items[ik]);
        const struct basalt_avro_value *v = basalt_iceberg_mf_unwrap(&item->items[iv]);
        if (!k || (k->node->type != BASALT_AVRO_INT && k->node->type != BASALT_AVRO_LONG) ||
            k->i < INT32_MIN || k->i > INT32_MAX)
            return basalt_error_set(err, BASALT_CORRUPT, "map key is not an int");
        int32_t key = (int32_t)k->i;
        if (!v)
            continue; /* a null value says nothing */
        if (bytes) {
            if (v->node->type != BASALT_AVRO_BYTES && v->node->type != BASALT_AVRO_FIXED &&
                v->node->type != BASALT_AVRO_STRING)
                return basalt_error_set(err, BASALT_CORRUPT, "map value is not bytes");
            struct basalt_iceberg_metric_bytes *m = &((struct basalt_iceberg_metric_bytes *)arr)[n];
            m->field_id = key;
            m->len = v->bytes.size;
            if (!(m->data = basalt_iceberg_mf_copy(c->arena, v->bytes.data, v->bytes.size)))
                return nomem(err);
        } else {
            if (v->node->type != BASALT_AVRO_LONG && v->node->type != BASALT_AVRO_INT)
                return basalt_error_set(err, BASALT_CORRUPT, "map value is not a long");
            struct basalt_iceberg_metric_long *m = &((struct basalt_iceberg_metric_long *)arr)[n];
            m->field_id = key;
            m->value = v->i;
        }
        if (key < last)
            sorted = false;
        last = key;
        n++;
    }
    if (!sorted) {
        /* Insertion sort: maps are small and nearly always written in order. */
        for (uint32_t i = 1; i < n; i++) {
            if (bytes) {
                struct basalt_iceberg_metric_bytes *m = arr, t = m[i];
                uint32_t j = i;
                for (; j > 0 && m[j - 1].field_id > t.field_id; j--)
                    m[j] = m[j - 1];
                m[j] = t;
            } else {
                struct basalt_iceberg_metric_long *m = arr, t = m[i];
                uint32_t j = i;
                for (; j > 0 && m[j - 1].field_id > t.field_id; j--)
                    m[j] = m[j - 1];
                m[j] = t;
            }
        }
    }
    *out_arr = arr;
    *out_n = n;
    return BASALT_OK;
}

/* split_offsets (longs) or equality_ids (ints). */
static basalt_status read_list(struct ctx *c, int col, const struct basalt_avro_bytes *raw,
                               bool ints, void **out_arr, uint32_t *out_n,
                               struct basalt_error *err)
{
    const struct basalt_avro_value *a = NULL;
    basalt_status st = decode_raw(c, col, raw, &a, err);
    if (st != BASALT_OK || !a)
        return st;
    if (a->node->type != BASALT_AVRO_ARRAY)
        return basalt_error_set(err, BASALT_CORRUPT, "not an array");
    if (a->count > UINT32_MAX / 16)
        return basalt_error_set(err, BASALT_LIMIT, "array too large");
    void *arr = basalt_arena_alloc(c->arena, (ints ? 4 : 8) * (a->count ? a->count : 1), 8);
    if (!arr)
        return nomem(err);
    for (size_t i = 0; i < a->count; i++) {
        const struct basalt_avro_value *x = basalt_iceberg_mf_unwrap(&a->items[i]);
        if (!x || (x->node->type != BASALT_AVRO_INT && x->node->type != BASALT_AVRO_LONG))
            return basalt_error_set(err, BASALT_CORRUPT, "array item is not a number");
        if (ints) {
            if (x->i < INT32_MIN || x->i > INT32_MAX)
                return basalt_error_set(err, BASALT_CORRUPT, "field id out of range");
            ((int32_t *)arr)[i] = (int32_t)x->i;
        } else {
            ((int64_t *)arr)[i] = x->i;
        }
    }
    *out_arr = arr;
    *out_n = (uint32_t)a->count;
    return BASALT_OK;
}

static basalt_status read_partition(struct ctx *c, const struct basalt_avro_bytes *raw,
                                    struct basalt_iceberg_data_file *df, struct basalt_error *err)
{
    if (c->n_part == 0)
        return BASALT_OK;
    const struct basalt_avro_value *rec = NULL;
    basalt_status st = decode_raw(c, E_PART, raw, &rec, err);
    if (st != BASALT_OK)
        return st;
    if (!rec || rec->node->type != BASALT_AVRO_RECORD)
        return basalt_error_set(err, BASALT_CORRUPT, "partition is not a record");
    df->partition = basalt_arena_alloc(c->arena, sizeof *df->partition * c->n_part, 8);
    if (!df->partition)
        return nomem(err);
    df->n_partition = c->n_part;
    for (uint32_t i = 0; i < c->n_part; i++) {
        int32_t idx = c->part_index[i];
        st = basalt_iceberg_mf_to_value(&rec->items[idx], &c->part_types[i], c->arena,
                                        &df->partition[i], err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "partition field '%s'",
                                        rec->node->fields[idx].name);
    }
    return BASALT_OK;
}

static enum basalt_iceberg_file_format parse_format(const struct basalt_avro_bytes *b)
{
    static const struct {
        const char *name;
        enum basalt_iceberg_file_format f;
    } names[] = {{"PARQUET", BASALT_ICEBERG_FORMAT_PARQUET},
                 {"AVRO", BASALT_ICEBERG_FORMAT_AVRO},
                 {"ORC", BASALT_ICEBERG_FORMAT_ORC},
                 {"PUFFIN", BASALT_ICEBERG_FORMAT_PUFFIN}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == b->size &&
            strncasecmp(names[i].name, (const char *)b->data, b->size) == 0)
            return names[i].f;
    return BASALT_ICEBERG_FORMAT_OTHER;
}

static basalt_status convert(struct ctx *c, const struct entry_row *r,
                             struct basalt_iceberg_manifest_entry *e, struct basalt_error *err)
{
    memset(e, 0, sizeof *e);
    struct basalt_iceberg_data_file *df = &e->data_file;
    if (!r->present[E_STATUS] || r->status < 0 || r->status > 2)
        return basalt_error_set(err, BASALT_CORRUPT, "status (field 0) missing or invalid");
    e->status = (enum basalt_iceberg_entry_status)r->status;
    const struct basalt_iceberg_manifest_file *ml = c->from_list;
    e->snapshot_id = r->present[E_SNAP] ? r->snap : ml ? ml->added_snapshot_id : 0;
    bool inherit = ml && e->status == BASALT_ICEBERG_ENTRY_ADDED;
    e->sequence_number = r->present[E_SEQ] ? r->seq : inherit ? ml->sequence_number : 0;
    e->file_sequence_number = r->present[E_FSEQ] ? r->fseq : inherit ? ml->sequence_number : 0;
    if (r->present[E_CONTENT]) {
        if (r->content < 0 || r->content > 2)
            return basalt_error_set(err, BASALT_CORRUPT, "content %lld invalid",
                                    (long long)r->content);
        df->content = (enum basalt_iceberg_file_content)r->content;
    }
    if (!r->present[E_PATH])
        return basalt_error_set(err, BASALT_CORRUPT, "file_path (field 100) missing");
    if (!(df->file_path = (const char *)basalt_iceberg_mf_copy(c->arena, r->path.data, r->path.size)))
        return nomem(err);
    df->file_format = parse_format(&r->format);
    if (!r->present[E_RECORDS] || !r->present[E_SIZE])
        return basalt_error_set(err, BASALT_CORRUPT,
                                "record_count / file_size_in_bytes (fields 103, 104) missing");
    df->record_count = r->records;
    df->file_size_in_bytes = r->size;
    basalt_status st = BASALT_OK;
    if (r->present[E_PART] && (st = read_partition(c, &r->part, df, err)) != BASALT_OK)
        return st;
    if (r->present[E_KEY]) {
        if (!(df->key_metadata = basalt_iceberg_mf_copy(c->arena, r->key.data, r->key.size)))
            return nomem(err);
        df->key_metadata_len = r->key.size;
    }
    if (r->present[E_SPLITS] &&
        (st = read_list(c, E_SPLITS, &r->splits, false, (void **)&df->split_offsets,
                        &df->n_split_offsets, err)) != BASALT_OK)
        return basalt_error_context(err, st, "split_offsets");
    if (r->present[E_EQ_IDS] &&
        (st = read_list(c, E_EQ_IDS, &r->eq_ids, true, (void **)&df->equality_ids,
                        &df->n_equality_ids, err)) != BASALT_OK)
        return basalt_error_context(err, st, "equality_ids");
    if (r->present[E_SORT]) {
        if (r->sort < INT32_MIN || r->sort > INT32_MAX)
            return basalt_error_set(err, BASALT_CORRUPT, "sort_order_id out of range");
        df->has_sort_order_id = true;
        df->sort_order_id = (int32_t)r->sort;
    }
    if (r->present[E_FIRST_ROW]) {
        df->has_first_row_id = true;
        df->first_row_id = r->first_row;
    } else if (c->assign_row_ids && df->content == BASALT_ICEBERG_CONTENT_DATA &&
               e->status != BASALT_ICEBERG_ENTRY_DELETED) {
        df->has_first_row_id = true;
        df->first_row_id = c->next_row_id;
        if (df->record_count > 0)
            c->next_row_id += df->record_count;
    }
    if (r->present[E_REF_FILE] &&
        !(df->referenced_data_file = (const char *)basalt_iceberg_mf_copy(
              c->arena, r->ref_file.data, r->ref_file.size)))
        return nomem(err);
    if (r->present[E_OFFSET]) {
        df->has_content_offset = true;
        df->content_offset = r->offset;
        df->content_size_in_bytes = r->csize;
    }
    static const char *const metric_names[6] = {"column_sizes", "value_counts", "null_value_counts",
                                                "nan_value_counts", "lower_bounds", "upper_bounds"};
    void **arrs[6] = {(void **)&df->column_sizes,      (void **)&df->value_counts,
                      (void **)&df->null_value_counts, (void **)&df->nan_value_counts,
                      (void **)&df->lower_bounds,      (void **)&df->upper_bounds};
    uint32_t *ns[6] = {&df->n_column_sizes,      &df->n_value_counts, &df->n_null_value_counts,
                       &df->n_nan_value_counts, &df->n_lower_bounds, &df->n_upper_bounds};
    for (int m = 0; m < 6; m++) {
        if (!r->present[E_COL_SIZES + m])
            continue;
        st = read_metric(c, E_COL_SIZES + m, &r->metrics[m], m >= 4, arrs[m], ns[m], err);
        if (st != BASALT_OK)
            return basalt_error_context(err, st, "%s", metric_names[m]);
    }
    return BASALT_OK;
}

/* Partition value types and the Avro field of each value. */
static basalt_status setup_partition(struct ctx *c, const struct basalt_iceberg_schema *schema,
                                     struct basalt_error *err)
{
    const struct basalt_avro_node *pnode = basalt_iceberg_mf_col_node(c->f, E_PART);
    const struct basalt_avro_node *rec = basalt_iceberg_mf_record(pnode);
    if (pnode && !rec)
        return basalt_error_set(err, BASALT_CORRUPT, "partition (field 102) is not a record");
    uint32_t n = c->spec ? c->spec->n_fields : rec ? rec->count : 0;
    c->n_part = n;
    if (n == 0)
        return BASALT_OK;
    if (!rec)
        return basalt_error_set(err, BASALT_CORRUPT, "partition (field 102) missing");
    c->part_types = basalt_arena_alloc(c->scratch, sizeof *c->part_types * n, 8);
    c->part_index = basalt_arena_alloc(c->scratch, sizeof *c->part_index * n, 8);
    if (!c->part_types || !c->part_index)
        return nomem(err);
    if (c->spec) {
        basalt_iceberg_mf_spec_types(c->spec, schema, c->part_types);
        for (uint32_t i = 0; i < n; i++) {
            const struct basalt_iceberg_partition_field *pf = &c->spec->fields[i];
            int32_t idx = basalt_iceberg_mf_find_id(rec, pf->field_id);
            if (idx < 0 && rec->count == n)
                idx = (int32_t)i; /* writers that leave out partition field ids */
            if (idx < 0)
                return basalt_error_set(err, BASALT_CORRUPT,
                                        "partition field %d ('%s') missing from the manifest",
                                        (int)pf->field_id, pf->name ? pf->name : "");
            c->part_index[i] = idx;
            if (!schema)
                c->part_types[i].id = BASALT_ICEBERG_TYPE_NONE;
        }
    } else {
        for (uint32_t i = 0; i < n; i++) {
            c->part_index[i] = (int32_t)i;
            c->part_types[i].id = BASALT_ICEBERG_TYPE_NONE;
        }
    }
    return BASALT_OK;
}

static basalt_status parse(const void *data, size_t len,
                           const struct basalt_iceberg_manifest_file *from_list,
                           const struct basalt_iceberg_partition_spec *spec,
                           const struct basalt_iceberg_schema *schema,
                           const struct basalt_iceberg_manifest_read_options *o,
                           struct basalt_iceberg_manifest *m, struct basalt_error *err)
{
    struct basalt_iceberg_mf_file f;
    size_t n_cols = o->with_metrics ? E_COUNT : E_NO_METRICS;
    basalt_status st = basalt_iceberg_mf_file_open(data, len, o->plan_cache, entry_cols, n_cols, &f,
                                                   err);
    if (st != BASALT_OK)
        return st;
    struct basalt_arena scratch, row_scratch;
    basalt_arena_init(&scratch, 1024);
    basalt_arena_init(&row_scratch, 4096);
    struct ctx c;
    memset(&c, 0, sizeof c);
    c.f = &f;
    c.from_list = from_list;
    c.spec = spec;
    c.arena = &m->priv->arena;
    c.scratch = &scratch;
    basalt_iceberg_mf_limits(&c.lim);

    int64_t v;
    size_t n;
    const uint8_t *meta;
    m->spec_id = basalt_iceberg_mf_meta_i64(&f, "partition-spec-id", &v) && v >= INT32_MIN &&
                         v <= INT32_MAX
                     ? (int32_t)v
                 : from_list ? from_list->partition_spec_id
                 : spec      ? spec->spec_id
                             : 0;
    if ((meta = basalt_iceberg_mf_meta(&f, "content", &n)))
        m->content = n == 7 && memcmp(meta, "deletes", 7) == 0 ? BASALT_ICEBERG_MANIFEST_DELETES
                                                                : BASALT_ICEBERG_MANIFEST_DATA;
    else
        m->content = from_list ? from_list->content : BASALT_ICEBERG_MANIFEST_DATA;
    if (basalt_iceberg_mf_meta_i64(&f, "format-version", &v) && v >= 1 &&
        v <= BASALT_ICEBERG_MAX_FORMAT_VERSION)
        m->format_version = (int32_t)v;
    else
        m->format_version = f.plan_col[E_SEQ] >= 0 ? 2 : 1;
    if (from_list && from_list->has_first_row_id && m->content == BASALT_ICEBERG_MANIFEST_DATA) {
        c.assign_row_ids = true;
        c.next_row_id = from_list->first_row_id;
    }

    st = setup_partition(&c, schema, err);
    c.scratch = &row_scratch;
    struct entry_row rows[CHUNK];
    memset(rows, 0, sizeof rows);
    uint32_t cap = 0;
    while (st == BASALT_OK) {
        int64_t got = 0;
        st = basalt_iceberg_mf_file_read(&f, entry_cols, rows, sizeof rows[0],
                                         offsetof(struct entry_row, present), CHUNK, &got, err);
        if (st != BASALT_OK || got == 0)
            break;
        if (m->n_entries + (uint64_t)got > UINT32_MAX / sizeof *m->entries) {
            st = basalt_error_set(err, BASALT_LIMIT, "too many entries");
            break;
        }
        if (m->n_entries + (uint32_t)got > cap) {
            uint32_t ncap = cap ? cap * 2 : 8;
            while (ncap < m->n_entries + (uint32_t)got)
                ncap *= 2;
            struct basalt_iceberg_manifest_entry *ne = basalt_realloc(m->entries, sizeof *ne * ncap);
            if (!ne) {
                st = nomem(err);
                break;
            }
            m->entries = ne;
            cap = ncap;
        }
        for (int64_t i = 0; i < got && st == BASALT_OK; i++) {
            struct basalt_iceberg_manifest_entry *e = &m->entries[m->n_entries];
            st = convert(&c, &rows[i], e, err);
            basalt_arena_reset(&row_scratch);
            if (st != BASALT_OK) {
                st = basalt_error_context(err, st, "entry %u", m->n_entries);
                break;
            }
            if (e->status == BASALT_ICEBERG_ENTRY_DELETED && !o->with_deleted)
                continue;
            m->n_entries++;
        }
    }
    basalt_arena_reset(&row_scratch);
    basalt_arena_reset(&scratch);
    basalt_iceberg_mf_file_close(&f);
    return st;
}

basalt_status basalt_iceberg_manifest_parse(const void *data, size_t len, const char *name,
                                            const struct basalt_iceberg_manifest_file *from_list,
                                            const struct basalt_iceberg_partition_spec *spec,
                                            const struct basalt_iceberg_schema *schema,
                                            const struct basalt_iceberg_manifest_read_options *options,
                                            struct basalt_iceberg_manifest **out,
                                            struct basalt_error *err)
{
    *out = NULL;
    struct basalt_iceberg_manifest_read_options defaults;
    if (!options) {
        basalt_iceberg_manifest_read_options_init(&defaults);
        options = &defaults;
    }
    struct basalt_iceberg_manifest *m = basalt_calloc(1, sizeof *m);
    if (!m)
        return nomem(err);
    m->priv = basalt_calloc(1, sizeof *m->priv);
    if (!m->priv) {
        basalt_free(m);
        return nomem(err);
    }
    basalt_arena_init(&m->priv->arena, 8192);
    basalt_status st = parse(data, len, from_list, spec, schema, options, m, err);
    if (st != BASALT_OK) {
        basalt_iceberg_manifest_free(m);
        return name ? basalt_error_context(err, st, "%s", name) : st;
    }
    *out = m;
    return BASALT_OK;
}

void basalt_iceberg_manifest_free(struct basalt_iceberg_manifest *manifest)
{
    if (!manifest)
        return;
    if (manifest->priv) {
        basalt_arena_reset(&manifest->priv->arena);
        basalt_free(manifest->priv);
    }
    basalt_free(manifest->entries);
    basalt_free(manifest);
}
