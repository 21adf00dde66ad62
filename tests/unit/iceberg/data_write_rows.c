/* The data writer tests' rows (data_write_rows.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "basalt/iceberg_scan.h"
#include "data_write_rows.h"

const char *const dwr_schema_json =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"name\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"price\",\"required\":false,\"type\":\"double\"},"
    "{\"id\":4,\"name\":\"qty\",\"required\":false,\"type\":\"int\"},"
    "{\"id\":5,\"name\":\"ts\",\"required\":false,\"type\":\"timestamptz\"},"
    "{\"id\":6,\"name\":\"tags\",\"required\":false,\"type\":{\"type\":\"list\","
    "\"element-id\":10,\"element\":\"string\",\"element-required\":false}},"
    "{\"id\":7,\"name\":\"addr\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":11,\"name\":\"city\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":12,\"name\":\"zip\",\"required\":true,\"type\":\"int\"}]}},"
    "{\"id\":8,\"name\":\"flag\",\"required\":false,\"type\":\"boolean\"},"
    "{\"id\":9,\"name\":\"amount\",\"required\":false,\"type\":\"decimal(10,2)\"},"
    "{\"id\":13,\"name\":\"day\",\"required\":false,\"type\":\"date\"},"
    "{\"id\":14,\"name\":\"m\",\"required\":false,\"type\":{\"type\":\"map\",\"key-id\":15,"
    "\"key\":\"string\",\"value-id\":16,\"value\":\"long\",\"value-required\":false}},"
    "{\"id\":17,\"name\":\"score\",\"required\":false,\"type\":\"float\"}]}";

void dwr_make_row(int64_t r, struct dwr_row *o)
{
    memset(o, 0, sizeof *o);
    o->id = r * 7 - 300;
    if (r % 10 != 3) {
        snprintf(o->buf[0], sizeof o->buf[0], "n%03d", (int)((r * 37) % 1000));
        o->name = o->buf[0];
    }
    o->price_null = r % 11 == 5;
    o->price = r % 13 == 4 ? NAN : (double)(r % 97) * 1.25 - 20.0;
    o->qty_null = r % 5 == 0;
    o->qty = (int32_t)(r % 50);
    o->ts = DWR_TS0 + r * INT64_C(3600000000);
    o->tags_null = r % 6 == 1;
    o->ntags = o->tags_null ? 0 : (int)(r % 3);
    for (int j = 0; j < o->ntags; j++) {
        o->tag_null[j] = j == 1 && r % 4 == 0;
        snprintf(o->tags[j], sizeof o->tags[j], "t%c", (char)('0' + j));
    }
    o->addr_null = r % 8 == 5;
    if (r % 3 != 0) {
        snprintf(o->buf[1], sizeof o->buf[1], "c%02d", (int)(r % 20));
        o->city = o->buf[1];
    }
    o->zip = (int32_t)(10000 + r);
    o->flag = r % 2 == 0;
    o->amount_null = r % 9 == 1;
    o->amount = r * 101 - 5000;
    o->day = DWR_DAY0 + (int32_t)(r % 40);
    o->nm = (int)(r % 3);
    for (int j = 0; j < o->nm; j++) {
        snprintf(o->keys[j], sizeof o->keys[j], "k%c", (char)('0' + j));
        o->value_null[j] = j == 2;
        o->values[j] = j * r;
    }
    o->score_null = r % 5 == 2;
    o->score = r % 7 == 0 ? NAN : (float)(r % 23) - 5.5f;
}

/* A builder of the same shape as an Arrow schema node. */
static basalt_status builder_like(struct basalt_arrow_builder *parent, const struct ArrowSchema *s,
                                  struct basalt_arrow_builder **out)
{
    basalt_status st = parent ? basalt_arrow_builder_add_child(parent, s->format, s->name,
                                                               s->flags, out, NULL)
                              : basalt_arrow_builder_new(s->format, s->name, s->flags, out, NULL);
    if (st != BASALT_OK)
        return st;
    if (strcmp(s->format, "+m") == 0) {
        const struct ArrowSchema *entries = s->children[0];
        for (int64_t i = 0; st == BASALT_OK && i < entries->n_children; i++) {
            struct basalt_arrow_builder *c;
            st = builder_like(*out, entries->children[i], &c);
        }
        return st;
    }
    for (int64_t i = 0; st == BASALT_OK && i < s->n_children; i++) {
        struct basalt_arrow_builder *c;
        st = builder_like(*out, s->children[i], &c);
    }
    return st;
}

#define TRY(expr)                                                                                 \
    do {                                                                                          \
        if ((st = (expr)) != BASALT_OK)                                                           \
            goto done;                                                                            \
    } while (0)

static basalt_status str_or_null(struct basalt_arrow_builder *b, const char *s)
{
    return s ? basalt_arrow_builder_append_string(b, s, NULL)
             : basalt_arrow_builder_append_null(b, NULL);
}

basalt_status dwr_batch(const struct basalt_iceberg_schema *schema, const int64_t *rows,
                        int64_t first, int64_t n, struct ArrowArray *out)
{
    struct ArrowSchema arrow;
    struct ArrowSchema built;
    struct basalt_arrow_builder *root = NULL;
    basalt_status st = basalt_iceberg_schema_to_arrow(schema, &arrow, NULL);
    if (st != BASALT_OK)
        return st;
    TRY(builder_like(NULL, &arrow, &root));
    struct basalt_arrow_builder *c[12];
    for (int i = 0; i < 12; i++)
        c[i] = basalt_arrow_builder_child(root, i);
    struct basalt_arrow_builder *tag = basalt_arrow_builder_child(c[5], 0);
    struct basalt_arrow_builder *city = basalt_arrow_builder_child(c[6], 0);
    struct basalt_arrow_builder *zip = basalt_arrow_builder_child(c[6], 1);
    struct basalt_arrow_builder *entries = basalt_arrow_builder_child(c[10], 0);
    struct basalt_arrow_builder *key = basalt_arrow_builder_child(entries, 0);
    struct basalt_arrow_builder *val = basalt_arrow_builder_child(entries, 1);
    for (int64_t k = 0; k < n; k++) {
        struct dwr_row r;
        dwr_make_row(rows ? rows[k] : first + k, &r);
        TRY(basalt_arrow_builder_append_int(c[0], r.id, NULL));
        TRY(str_or_null(c[1], r.name));
        TRY(r.price_null ? basalt_arrow_builder_append_null(c[2], NULL)
                         : basalt_arrow_builder_append_double(c[2], r.price, NULL));
        TRY(r.qty_null ? basalt_arrow_builder_append_null(c[3], NULL)
                       : basalt_arrow_builder_append_int(c[3], r.qty, NULL));
        TRY(basalt_arrow_builder_append_int(c[4], r.ts, NULL));
        if (r.tags_null) {
            TRY(basalt_arrow_builder_append_null(c[5], NULL));
        } else {
            for (int j = 0; j < r.ntags; j++)
                TRY(str_or_null(tag, r.tag_null[j] ? NULL : r.tags[j]));
            TRY(basalt_arrow_builder_end_element(c[5], NULL));
        }
        if (r.addr_null) {
            TRY(basalt_arrow_builder_append_null(c[6], NULL));
        } else {
            TRY(str_or_null(city, r.city));
            TRY(basalt_arrow_builder_append_int(zip, r.zip, NULL));
            TRY(basalt_arrow_builder_end_element(c[6], NULL));
        }
        TRY(basalt_arrow_builder_append_bool(c[7], r.flag, NULL));
        TRY(r.amount_null ? basalt_arrow_builder_append_null(c[8], NULL)
                          : basalt_arrow_builder_append_int(c[8], r.amount, NULL));
        TRY(basalt_arrow_builder_append_int(c[9], r.day, NULL));
        for (int j = 0; j < r.nm; j++) {
            TRY(basalt_arrow_builder_append_string(key, r.keys[j], NULL));
            TRY(r.value_null[j] ? basalt_arrow_builder_append_null(val, NULL)
                                : basalt_arrow_builder_append_int(val, r.values[j], NULL));
        }
        TRY(basalt_arrow_builder_end_element(c[10], NULL));
        TRY(r.score_null ? basalt_arrow_builder_append_null(c[11], NULL)
                         : basalt_arrow_builder_append_double(c[11], r.score, NULL));
        TRY(basalt_arrow_builder_end_element(root, NULL));
    }
    TRY(basalt_arrow_builder_finish(root, &built, out, NULL));
    basalt_arrow_schema_release(&built);
done:
    basalt_arrow_builder_free(root);
    basalt_arrow_schema_release(&arrow);
    return st;
}
