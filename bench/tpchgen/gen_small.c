/* REGION, NATION, SUPPLIER and CUSTOMER rows (clause 4.2.3). */
#include "tpchgen.h"

void basalt_tpchgen_region(const struct basalt_tpchgen_scale *s, int64_t begin, int64_t end,
                           struct basalt_tpchgen_batch *out)
{
    struct basalt_tpchgen_column *c = out->cols;
    for (int64_t i = begin; i < end; i++) {
        struct basalt_tpchgen_rng r;
        tpchgen_seed(&r, TPCHGEN_REGION, i);
        tpchgen_i32(&c[0], (int32_t)i);
        tpchgen_str(&c[1], basalt_tpchgen_regions[i], strlen(basalt_tpchgen_regions[i]));
        basalt_tpchgen_text(s, &r, 31, 115, &c[2]);
    }
}

void basalt_tpchgen_nation(const struct basalt_tpchgen_scale *s, int64_t begin, int64_t end,
                           struct basalt_tpchgen_batch *out)
{
    struct basalt_tpchgen_column *c = out->cols;
    for (int64_t i = begin; i < end; i++) {
        struct basalt_tpchgen_rng r;
        tpchgen_seed(&r, TPCHGEN_NATION, i);
        tpchgen_i32(&c[0], (int32_t)i);
        tpchgen_str(&c[1], basalt_tpchgen_nations[i], strlen(basalt_tpchgen_nations[i]));
        tpchgen_i32(&c[2], basalt_tpchgen_nation_region[i]);
        basalt_tpchgen_text(s, &r, 31, 114, &c[3]);
    }
}

/* Writes "Customer " and `tail` ("Complaints" or "Recommends") into a
 * comment of its generated length, at a random place with random text
 * between them (clause 4.2.3: SF * 5 suppliers each). */
static void better_business_bureau(struct basalt_tpchgen_rng *r, struct basalt_tpchgen_column *c,
                                   const char *tail)
{
    int32_t *off = c->values;
    char *p = c->data + off[c->n - 1];
    int64_t len = off[c->n] - off[c->n - 1];
    int64_t tail_len = (int64_t)strlen(tail);
    int64_t noise = tpchgen_uniform(r, 0, len - 9 - tail_len);
    int64_t pos = tpchgen_uniform(r, 0, len - 9 - tail_len - noise);
    memcpy(p + pos, "Customer ", 9);
    memcpy(p + pos + 9 + noise, tail, (size_t)tail_len);
}

void basalt_tpchgen_supplier(const struct basalt_tpchgen_scale *s, int64_t begin, int64_t end,
                             struct basalt_tpchgen_batch *out)
{
    struct basalt_tpchgen_column *c = out->cols;
    /* The complaining and recommending suppliers: one of each per stride,
     * in the first and third quarter of it, `complaints` strides in all. */
    int64_t stride = s->suppliers / s->complaints;
    for (int64_t i = begin; i < end; i++) {
        struct basalt_tpchgen_rng r;
        tpchgen_seed(&r, TPCHGEN_SUPPLIER, i);
        int64_t key = i + 1;
        tpchgen_i64(&c[0], key);
        basalt_tpchgen_keyed_name("Supplier#", key, 9, &c[1]);
        basalt_tpchgen_vstring(&r, 10, 40, &c[2]);
        int32_t nation = (int32_t)tpchgen_uniform(&r, 0, 24);
        tpchgen_i32(&c[3], nation);
        basalt_tpchgen_phone(&r, nation, &c[4]);
        tpchgen_i64(&c[5], tpchgen_uniform(&r, -99999, 999999));
        basalt_tpchgen_text(s, &r, 25, 100, &c[6]);
        if (stride >= 4 && i / stride < s->complaints) {
            if (i % stride == stride / 4)
                better_business_bureau(&r, &c[6], "Complaints");
            else if (i % stride == 3 * stride / 4)
                better_business_bureau(&r, &c[6], "Recommends");
        }
    }
}

void basalt_tpchgen_customer(const struct basalt_tpchgen_scale *s, int64_t begin, int64_t end,
                             struct basalt_tpchgen_batch *out)
{
    struct basalt_tpchgen_column *c = out->cols;
    for (int64_t i = begin; i < end; i++) {
        struct basalt_tpchgen_rng r;
        tpchgen_seed(&r, TPCHGEN_CUSTOMER, i);
        int64_t key = i + 1;
        tpchgen_i64(&c[0], key);
        basalt_tpchgen_keyed_name("Customer#", key, 9, &c[1]);
        basalt_tpchgen_vstring(&r, 10, 40, &c[2]);
        int32_t nation = (int32_t)tpchgen_uniform(&r, 0, 24);
        tpchgen_i32(&c[3], nation);
        basalt_tpchgen_phone(&r, nation, &c[4]);
        tpchgen_i64(&c[5], tpchgen_uniform(&r, -99999, 999999));
        const char *seg = basalt_tpchgen_segments[tpchgen_uniform(&r, 0, 4)];
        tpchgen_str(&c[6], seg, strlen(seg));
        basalt_tpchgen_text(s, &r, 29, 116, &c[7]);
    }
}
