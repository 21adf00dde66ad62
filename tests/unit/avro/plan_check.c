/* Checking plan output against generic values (see plan_check.h). */
#include <stdio.h>

#include "avro_plan.h"
#include "plan_check.h"

/* Every path a plan can select: leaves, through records and optional records. */
void pc_collect_leaves(const struct basalt_avro_node *rec, const char *prefix,
                           struct leaf *leaves, size_t *n, int depth)
{
    for (uint32_t i = 0; i < rec->count && *n < MAX_COLS; i++) {
        const struct basalt_avro_field *f = &rec->fields[i];
        char path[256];
        snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", f->name);
        const struct basalt_avro_node *t = f->type, *inner = NULL;
        if (t->type == BASALT_AVRO_RECORD)
            inner = t;
        else if (t->type == BASALT_AVRO_UNION) {
            int records = 0, others = 0;
            for (uint32_t b = 0; b < t->count; b++) {
                if (t->branches[b]->type == BASALT_AVRO_RECORD) {
                    records++;
                    inner = t->branches[b];
                } else if (t->branches[b]->type != BASALT_AVRO_NULL) {
                    others++;
                }
            }
            if (records != 1 || others)
                inner = NULL;
        }
        /* the record itself as RAW, then its fields */
        snprintf(leaves[(*n)++].path, sizeof leaves[0].path, "%s", path);
        if (inner && depth < 6)
            pc_collect_leaves(inner, path, leaves, n, depth + 1);
    }
}

/* The generic value at `path`, or NULL when a null union is on the way. */
const struct basalt_avro_value *pc_value_at(const struct basalt_avro_value *v, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *tok = strtok(buf, "."); tok; tok = strtok(NULL, ".")) {
        while (v->node->type == BASALT_AVRO_UNION)
            v = v->branch;
        if (v->node->type == BASALT_AVRO_NULL)
            return NULL;
        int32_t k = basalt_avro_node_field_index(v->node, tok);
        if (k < 0)
            return NULL;
        v = &v->items[k];
    }
    return v;
}

/* Compares the slot of record i in column k with the generic value. */
bool pc_slot_matches(const struct basalt_avro_plan *plan, size_t k,
                         const struct basalt_avro_value *v, const uint8_t *slot, uint8_t present,
                         char *why, size_t whycap)
{
    enum basalt_avro_slot_type t = basalt_avro_plan_column_type(plan, k);
    if (t == BASALT_AVRO_SLOT_RAW) {
        if (!v) {
            snprintf(why, whycap, "raw slot for an absent value (present %d)", present);
            return !present;
        }
        struct basalt_avro_bytes b;
        memcpy(&b, slot, sizeof b);
        struct basalt_buffer enc;
        basalt_buffer_init(&enc);
        basalt_avro_value_encode(v, &enc, NULL);
        bool same = present && enc.size == b.size && (b.size == 0 || memcmp(enc.data, b.data, b.size) == 0);
        basalt_buffer_reset(&enc);
        snprintf(why, whycap, "raw bytes differ");
        return same;
    }
    if (v && v->node->type == BASALT_AVRO_UNION) {
        if (v->branch->node->type == BASALT_AVRO_NULL)
            v = NULL;
        else
            v = v->branch;
    }
    if (v && v->node->type == BASALT_AVRO_NULL)
        v = NULL;
    if (!v) {
        static const uint8_t zero[16];
        snprintf(why, whycap, "absent value: present %d", present);
        return !present && memcmp(slot, zero, basalt_avro_slot_size(t)) == 0;
    }
    if (!present) {
        snprintf(why, whycap, "present value not marked present");
        return false;
    }
    snprintf(why, whycap, "value differs");
    enum basalt_avro_type vt = v->node->type;
    int64_t iv = vt == BASALT_AVRO_ENUM ? (int64_t)v->index : v->i;
    switch (t) {
    case BASALT_AVRO_SLOT_BOOL:
        return *slot == v->boolean;
    case BASALT_AVRO_SLOT_INT32: {
        int32_t x;
        memcpy(&x, slot, 4);
        return x == iv;
    }
    case BASALT_AVRO_SLOT_INT64: {
        int64_t x;
        memcpy(&x, slot, 8);
        return x == iv;
    }
    case BASALT_AVRO_SLOT_FLOAT:
        return memcmp(slot, &v->f, 4) == 0;
    case BASALT_AVRO_SLOT_DOUBLE: {
        double want = vt == BASALT_AVRO_FLOAT ? (double)v->f : vt == BASALT_AVRO_DOUBLE ? v->d : (double)iv;
        return memcmp(slot, &want, 8) == 0;
    }
    case BASALT_AVRO_SLOT_BYTES: {
        struct basalt_avro_bytes b;
        memcpy(&b, slot, sizeof b);
        return b.size == v->bytes.size && (b.size == 0 || memcmp(b.data, v->bytes.data, b.size) == 0);
    }
    default:
        return false;
    }
}

