/* Which delete files apply to which data files (spec "Scan Planning"). */
#include <string.h>

#include "basalt/iceberg_expr.h"
#include "scan_internal.h"

bool basalt_iceberg_spec_unpartitioned(const struct basalt_iceberg_partition_spec *spec)
{
    if (spec == NULL)
        return true;
    for (uint32_t i = 0; i < spec->n_fields; i++)
        if (spec->fields[i].transform.kind != BASALT_ICEBERG_TRANSFORM_VOID)
            return false;
    return true;
}

static bool same_partition(const struct basalt_iceberg_data_file *a,
                           const struct basalt_iceberg_data_file *b)
{
    if (a->n_partition != b->n_partition)
        return false;
    for (uint32_t i = 0; i < a->n_partition; i++) {
        const struct basalt_iceberg_value *x = &a->partition[i], *y = &b->partition[i];
        if (x->is_null || y->is_null) {
            if (x->is_null != y->is_null)
                return false;
            continue;
        }
        if (x->type != y->type || basalt_iceberg_value_compare(x, y) != 0)
            return false;
    }
    return true;
}

static bool is_dv(const struct basalt_iceberg_data_file *f)
{
    return f->content == BASALT_ICEBERG_CONTENT_POSITION_DELETES &&
           f->file_format == BASALT_ICEBERG_FORMAT_PUFFIN;
}

bool basalt_iceberg_delete_applies(const struct basalt_iceberg_data_file *data, int32_t data_spec_id,
                                   int64_t data_seq, const struct basalt_iceberg_data_file *del,
                                   const struct basalt_iceberg_partition_spec *del_spec,
                                   int64_t del_seq)
{
    bool global = basalt_iceberg_spec_unpartitioned(del_spec);
    int32_t del_spec_id = del_spec ? del_spec->spec_id : 0;
    bool partition_ok = global || (del_spec_id == data_spec_id && same_partition(data, del));
    switch (del->content) {
    case BASALT_ICEBERG_CONTENT_POSITION_DELETES:
        if (del->referenced_data_file != NULL && strcmp(del->referenced_data_file, data->file_path) != 0)
            return false;
        if (is_dv(del))
            return data_seq <= del_seq;
        return data_seq <= del_seq && partition_ok;
    case BASALT_ICEBERG_CONTENT_EQUALITY_DELETES:
        return data_seq < del_seq && partition_ok;
    default:
        return false;
    }
}

basalt_status basalt_iceberg_deletes_for(const struct basalt_iceberg_delete_entry *deletes,
                                         uint32_t n_deletes,
                                         const struct basalt_iceberg_data_file *data,
                                         int32_t data_spec_id, int64_t data_seq,
                                         struct basalt_arena *arena,
                                         const struct basalt_iceberg_data_file ***out,
                                         uint32_t *n_out, struct basalt_error *err)
{
    *out = NULL;
    *n_out = 0;
    uint32_t n_dv = 0, n_pos = 0, n_eq = 0;
    for (uint32_t i = 0; i < n_deletes; i++) {
        const struct basalt_iceberg_delete_entry *d = &deletes[i];
        if (!basalt_iceberg_delete_applies(data, data_spec_id, data_seq, d->file, d->spec, d->seq))
            continue;
        if (is_dv(d->file))
            n_dv++;
        else if (d->file->content == BASALT_ICEBERG_CONTENT_POSITION_DELETES)
            n_pos++;
        else
            n_eq++;
    }
    /* a deletion vector replaces the position delete files of its data file */
    if (n_dv > 0)
        n_pos = 0;
    uint32_t n = n_dv + n_pos + n_eq;
    if (n == 0)
        return BASALT_OK;
    const struct basalt_iceberg_data_file **list =
        basalt_arena_alloc(arena, n * sizeof *list, _Alignof(void *));
    if (list == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    uint32_t k = 0;
    for (int pass = 0; pass < 3; pass++) {
        for (uint32_t i = 0; i < n_deletes; i++) {
            const struct basalt_iceberg_delete_entry *d = &deletes[i];
            bool dv = is_dv(d->file);
            bool pos = !dv && d->file->content == BASALT_ICEBERG_CONTENT_POSITION_DELETES;
            bool eq = d->file->content == BASALT_ICEBERG_CONTENT_EQUALITY_DELETES;
            if ((pass == 0 && !dv) || (pass == 1 && (!pos || n_dv > 0)) || (pass == 2 && !eq))
                continue;
            if (basalt_iceberg_delete_applies(data, data_spec_id, data_seq, d->file, d->spec, d->seq))
                list[k++] = d->file;
        }
    }
    *out = list;
    *n_out = k;
    return BASALT_OK;
}
