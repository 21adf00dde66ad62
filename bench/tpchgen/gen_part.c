/* PART rows and their four PARTSUPP rows each (clause 4.2.3). */
#include "tpchgen.h"

static char *put_word(char *p, const char *w)
{
    size_t n = strlen(w);
    memcpy(p, w, n);
    return p + n;
}

/* Words joined by single spaces into one value. */
static void put_words(struct basalt_tpchgen_column *c, const char *const *words, int n)
{
    char *p = tpchgen_str_begin(c), *q = p;
    for (int i = 0; i < n; i++) {
        if (i > 0)
            *q++ = ' ';
        q = put_word(q, words[i]);
    }
    tpchgen_str_end(c, (size_t)(q - p));
}

void basalt_tpchgen_part(const struct basalt_tpchgen_scale *s, int64_t begin, int64_t end,
                         struct basalt_tpchgen_batch *part, struct basalt_tpchgen_batch *partsupp)
{
    struct basalt_tpchgen_column *c = part->cols, *ps = partsupp->cols;
    for (int64_t i = begin; i < end; i++) {
        struct basalt_tpchgen_rng r;
        tpchgen_seed(&r, TPCHGEN_PART, i);
        int64_t key = i + 1;
        tpchgen_i64(&c[0], key);
        /* P_NAME: five distinct color words. */
        int pick[5];
        const char *name[5];
        for (int k = 0; k < 5; k++) {
            int w, dup;
            do {
                w = (int)tpchgen_uniform(&r, 0, TPCHGEN_NUM_COLORS - 1);
                dup = 0;
                for (int j = 0; j < k; j++)
                    dup |= pick[j] == w;
            } while (dup);
            pick[k] = w;
            name[k] = basalt_tpchgen_colors[w];
        }
        put_words(&c[1], name, 5);
        int m = (int)tpchgen_uniform(&r, 1, 5), n = (int)tpchgen_uniform(&r, 1, 5);
        char buf[32];
        memcpy(buf, "Manufacturer#", 13);
        buf[13] = (char)('0' + m);
        tpchgen_str(&c[2], buf, 14);
        memcpy(buf, "Brand#", 6);
        buf[6] = (char)('0' + m);
        buf[7] = (char)('0' + n);
        tpchgen_str(&c[3], buf, 8);
        const char *type[3] = {basalt_tpchgen_type_s1[tpchgen_uniform(&r, 0, 5)],
                               basalt_tpchgen_type_s2[tpchgen_uniform(&r, 0, 4)],
                               basalt_tpchgen_type_s3[tpchgen_uniform(&r, 0, 4)]};
        put_words(&c[4], type, 3);
        tpchgen_i32(&c[5], (int32_t)tpchgen_uniform(&r, 1, 50));
        const char *container[2] = {basalt_tpchgen_container_s1[tpchgen_uniform(&r, 0, 4)],
                                    basalt_tpchgen_container_s2[tpchgen_uniform(&r, 0, 7)]};
        put_words(&c[6], container, 2);
        tpchgen_i64(&c[7], tpchgen_retail_cents(key));
        basalt_tpchgen_text(s, &r, 5, 22, &c[8]);
        for (int64_t k = 0; k < 4; k++) {
            tpchgen_i64(&ps[0], key);
            tpchgen_i64(&ps[1], tpchgen_part_supplier(key, k, s->suppliers));
            tpchgen_i64(&ps[2], tpchgen_uniform(&r, 1, 9999));
            tpchgen_i64(&ps[3], tpchgen_uniform(&r, 100, 100000));
            basalt_tpchgen_text(s, &r, 49, 198, &ps[4]);
        }
    }
}
