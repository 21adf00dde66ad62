/* Snapshot summaries as the Java library writes them: what a change added,
 * and the table's running totals carried forward from the parent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basalt/iceberg_expr.h"
#include "commit_internal.h"
#include "snapshot_internal.h"

/* A parent total, or -1 when the parent did not record it (the totals are
 * then left out, as Java does, rather than restarted from zero). */
static int64_t parent_total(const struct basalt_iceberg_snapshot *parent, const char *key)
{
    if (!parent)
        return 0;
    for (uint32_t i = 0; i < parent->n_summary; i++)
        if (strcmp(parent->summary[i].key, key) == 0)
            return strtoll(parent->summary[i].value, NULL, 10);
    return -1;
}

static bool put_count(json_t *o, const char *key, int64_t v)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)v);
    return json_object_set_new(o, key, json_string(text)) == 0;
}

/* Serialized partition tuples compared as bytes: equal tuples, equal keys. */
static size_t tuple_key(const struct basalt_iceberg_data_file *f, uint8_t *buf, size_t cap)
{
    size_t at = 0;
    for (uint32_t i = 0; i < f->n_partition; i++) {
        size_t len = 0;
        uint8_t tag = f->partition[i].is_null ? 0 : 1;
        if (at + 1 + 4 > cap)
            return at;
        buf[at++] = tag;
        if (!tag)
            continue;
        if (basalt_iceberg_value_to_bytes(&f->partition[i], buf + at + 4, cap - at - 4, &len,
                                          NULL) != BASALT_OK)
            len = 0;
        memcpy(buf + at, &len, 4);
        at += 4 + len;
    }
    return at;
}

static uint32_t count_partitions(const struct basalt_iceberg_data_file *files, uint32_t n)
{
    /* Quadratic in files but over small keys; appends name tens to
     * thousands of files, and only distinct tuples are kept. */
    uint8_t (*keys)[512] = basalt_malloc((size_t)(n ? n : 1) * 512);
    size_t *lens = basalt_malloc((size_t)(n ? n : 1) * sizeof *lens);
    uint32_t distinct = 0;
    if (!keys || !lens) {
        basalt_free(keys);
        basalt_free(lens);
        return n; /* an upper bound: the count is informational */
    }
    for (uint32_t i = 0; i < n; i++) {
        uint8_t key[512];
        size_t len = tuple_key(&files[i], key, sizeof key);
        bool seen = false;
        for (uint32_t k = 0; k < distinct && !seen; k++)
            seen = lens[k] == len && memcmp(keys[k], key, len) == 0;
        if (!seen) {
            memcpy(keys[distinct], key, len);
            lens[distinct++] = len;
        }
    }
    basalt_free(keys);
    basalt_free(lens);
    return distinct;
}

json_t *basalt_iceberg_append_summary(const struct basalt_iceberg_data_file *files, uint32_t n,
                                      const struct basalt_iceberg_snapshot *parent,
                                      const struct basalt_iceberg_kv *extra, uint32_t n_extra)
{
    int64_t records = 0, bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        records += files[i].record_count;
        bytes += files[i].file_size_in_bytes;
    }
    json_t *o = json_object();
    bool ok = o && json_object_set_new(o, "operation", json_string("append")) == 0;
    for (uint32_t i = 0; ok && i < n_extra; i++)
        ok = json_object_set_new(o, extra[i].key, json_string(extra[i].value)) == 0;
    if (n > 0)
        ok = ok && put_count(o, "added-data-files", n) && put_count(o, "added-records", records) &&
             put_count(o, "added-files-size", bytes) &&
             put_count(o, "changed-partition-count", count_partitions(files, n));
    static const struct {
        const char *key;
        int which; /* 0 unchanged, 1 records, 2 bytes, 3 files */
    } totals[] = {
        {"total-records", 1},       {"total-files-size", 2},       {"total-data-files", 3},
        {"total-delete-files", 0},  {"total-position-deletes", 0}, {"total-equality-deletes", 0},
    };
    for (size_t i = 0; ok && i < sizeof totals / sizeof totals[0]; i++) {
        int64_t before = parent_total(parent, totals[i].key);
        if (before < 0)
            continue;
        int64_t add = totals[i].which == 1 ? records
                      : totals[i].which == 2 ? bytes
                      : totals[i].which == 3 ? (int64_t)n
                                             : 0;
        ok = put_count(o, totals[i].key, before + add);
    }
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

void basalt_iceberg_delete_counts_add(struct basalt_iceberg_delete_counts *c,
                                      const struct basalt_iceberg_data_file *f)
{
    c->files++;
    if (f->content == BASALT_ICEBERG_CONTENT_EQUALITY_DELETES) {
        c->equality_files++;
        c->equality_records += f->record_count;
    } else {
        c->position_records += f->record_count;
        if (f->file_format == BASALT_ICEBERG_FORMAT_PUFFIN)
            c->dvs++;
        else
            c->position_files++;
    }
    /* A DV counts its blob, not the Puffin file holding several. */
    c->bytes += f->has_content_offset ? f->content_size_in_bytes : f->file_size_in_bytes;
}

/* Adds v to the count under `key` (written when the result is not zero,
 * or `always`). */
static bool bump(json_t *o, const char *key, int64_t v, bool always)
{
    const char *old = json_string_value(json_object_get(o, key));
    int64_t now = (old ? strtoll(old, NULL, 10) : 0) + v;
    if (!always && now == 0)
        return true;
    return put_count(o, key, now);
}

bool basalt_iceberg_summary_deletes(json_t *o, const struct basalt_iceberg_delete_counts *a,
                                    const struct basalt_iceberg_delete_counts *r,
                                    const struct basalt_iceberg_snapshot *parent)
{
    bool ok = bump(o, "added-delete-files", a->files, false) &&
              bump(o, "added-position-delete-files", a->position_files, false) &&
              bump(o, "added-dvs", a->dvs, false) &&
              bump(o, "added-equality-delete-files", a->equality_files, false) &&
              bump(o, "added-position-deletes", a->position_records, false) &&
              bump(o, "added-equality-deletes", a->equality_records, false) &&
              bump(o, "added-files-size", a->bytes, false) &&
              bump(o, "removed-delete-files", r->files, false) &&
              bump(o, "removed-position-delete-files", r->position_files, false) &&
              bump(o, "removed-dvs", r->dvs, false) &&
              bump(o, "removed-equality-delete-files", r->equality_files, false) &&
              bump(o, "removed-position-deletes", r->position_records, false) &&
              bump(o, "removed-equality-deletes", r->equality_records, false) &&
              bump(o, "removed-files-size", r->bytes, false);
    static const char *const totals[] = {"total-delete-files", "total-position-deletes",
                                         "total-equality-deletes", "total-files-size"};
    const int64_t change[] = {a->files - r->files, a->position_records - r->position_records,
                              a->equality_records - r->equality_records, a->bytes - r->bytes};
    for (int k = 0; ok && k < 4; k++)
        if (json_object_get(o, totals[k]) || parent_total(parent, totals[k]) >= 0)
            ok = bump(o, totals[k], change[k], true);
    return ok;
}
