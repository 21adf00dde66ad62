/* ORDERS rows and their 1..7 LINEITEM rows each (clause 4.2.3). */
#include "tpchgen.h"

static void put_const(struct basalt_tpchgen_column *c, const char *s)
{
    tpchgen_str(c, s, strlen(s));
}

void basalt_tpchgen_orders(const struct basalt_tpchgen_scale *s, int64_t begin, int64_t end,
                           struct basalt_tpchgen_batch *orders,
                           struct basalt_tpchgen_batch *lineitem)
{
    const int32_t start = basalt_tpchgen_days(1992, 1, 1);
    const int32_t current = basalt_tpchgen_days(1995, 6, 17);
    const int32_t last_order = basalt_tpchgen_days(1998, 12, 31) - 151;
    /* Customers whose key is a multiple of 3 place no orders: order i picks
     * among the others, numbered 0, 1, 2, ... -> keys 1, 2, 4, 5, 7, ... */
    const int64_t buyers = s->customers - s->customers / 3;
    struct basalt_tpchgen_column *o = orders->cols, *l = lineitem->cols;
    for (int64_t i = begin; i < end; i++) {
        struct basalt_tpchgen_rng r;
        tpchgen_seed(&r, TPCHGEN_ORDERS, i);
        /* Sparse keys: of every 32 keys only the first 8 are used. */
        int64_t seq = i + 1;
        int64_t key = ((seq >> 3) << 5) | (seq & 7);
        int64_t buyer = tpchgen_uniform(&r, 0, buyers - 1);
        int64_t custkey = buyer / 2 * 3 + buyer % 2 + 1;
        int32_t odate = (int32_t)tpchgen_uniform(&r, start, last_order);
        int lines = (int)tpchgen_uniform(&r, 1, 7);
        /* O_TOTALPRICE in 1/10000 cents, rounded to cents once at the end. */
        int64_t total = 0;
        int shipped = 0;
        for (int k = 0; k < lines; k++) {
            int64_t partkey = tpchgen_uniform(&r, 1, s->parts);
            int64_t supp = tpchgen_part_supplier(partkey, tpchgen_uniform(&r, 0, 3), s->suppliers);
            int64_t qty = tpchgen_uniform(&r, 1, 50);
            int64_t disc = tpchgen_uniform(&r, 0, 10);
            int64_t tax = tpchgen_uniform(&r, 0, 8);
            int64_t price = qty * tpchgen_retail_cents(partkey);
            int32_t ship = odate + (int32_t)tpchgen_uniform(&r, 1, 121);
            int32_t commit = odate + (int32_t)tpchgen_uniform(&r, 30, 90);
            int32_t receipt = ship + (int32_t)tpchgen_uniform(&r, 1, 30);
            int64_t flag_draw = tpchgen_uniform(&r, 0, 1);
            total += price * (100 - disc) * (100 + tax);
            tpchgen_i64(&l[0], key);
            tpchgen_i64(&l[1], partkey);
            tpchgen_i64(&l[2], supp);
            tpchgen_i64(&l[3], k + 1);
            tpchgen_i64(&l[4], qty * 100);
            tpchgen_i64(&l[5], price);
            tpchgen_i64(&l[6], disc);
            tpchgen_i64(&l[7], tax);
            tpchgen_str(&l[8], receipt <= current ? (flag_draw ? "R" : "A") : "N", 1);
            bool open = ship > current;
            shipped += !open;
            tpchgen_str(&l[9], open ? "O" : "F", 1);
            tpchgen_i32(&l[10], ship);
            tpchgen_i32(&l[11], commit);
            tpchgen_i32(&l[12], receipt);
            put_const(&l[13], basalt_tpchgen_instructions[tpchgen_uniform(&r, 0, 3)]);
            put_const(&l[14], basalt_tpchgen_modes[tpchgen_uniform(&r, 0, 6)]);
            basalt_tpchgen_text(s, &r, 10, 43, &l[15]);
        }
        tpchgen_i64(&o[0], key);
        tpchgen_i64(&o[1], custkey);
        tpchgen_str(&o[2], shipped == lines ? "F" : shipped == 0 ? "O" : "P", 1);
        tpchgen_i64(&o[3], (total + 5000) / 10000);
        tpchgen_i32(&o[4], odate);
        put_const(&o[5], basalt_tpchgen_priorities[tpchgen_uniform(&r, 0, 4)]);
        basalt_tpchgen_keyed_name("Clerk#", tpchgen_uniform(&r, 1, s->clerks), 9, &o[6]);
        tpchgen_i32(&o[7], 0);
        basalt_tpchgen_text(s, &r, 19, 78, &o[8]);
    }
}
