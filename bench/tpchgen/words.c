/* The word lists of TPC-H clause 4.2.2.13 and 4.2.3, and the text pool
 * built from them with the grammar of clause 4.2.2.14. */
#include "tpchgen.h"

const char *const basalt_tpchgen_colors[TPCHGEN_NUM_COLORS] = {
    "almond",    "antique",   "aquamarine", "azure",     "beige",     "bisque",    "black",
    "blanched",  "blue",      "blush",      "brown",     "burlywood", "burnished", "chartreuse",
    "chiffon",   "chocolate", "coral",      "cornflower", "cornsilk", "cream",     "cyan",
    "dark",      "deep",      "dim",        "dodger",    "drab",      "firebrick", "floral",
    "forest",    "frosted",   "gainsboro",  "ghost",     "goldenrod", "green",     "grey",
    "honeydew",  "hot",       "indian",     "ivory",     "khaki",     "lace",      "lavender",
    "lawn",      "lemon",     "light",      "lime",      "linen",     "magenta",   "maroon",
    "medium",    "metallic",  "midnight",   "mint",      "misty",     "moccasin",  "navajo",
    "navy",      "olive",     "orange",     "orchid",    "pale",      "papaya",    "peach",
    "peru",      "pink",      "plum",       "powder",    "puff",      "purple",    "red",
    "rose",      "rosy",      "royal",      "saddle",    "salmon",    "sandy",     "seashell",
    "sienna",    "sky",       "slate",      "smoke",     "snow",      "spring",    "steel",
    "tan",       "thistle",   "tomato",     "turquoise", "violet",    "wheat",     "white",
    "yellow"};

const char *const basalt_tpchgen_type_s1[6] = {"STANDARD", "SMALL", "MEDIUM",
                                               "LARGE",    "ECONOMY", "PROMO"};
const char *const basalt_tpchgen_type_s2[5] = {"ANODIZED", "BURNISHED", "PLATED", "POLISHED",
                                               "BRUSHED"};
const char *const basalt_tpchgen_type_s3[5] = {"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"};
const char *const basalt_tpchgen_container_s1[5] = {"SM", "LG", "MED", "JUMBO", "WRAP"};
const char *const basalt_tpchgen_container_s2[8] = {"CASE", "BOX", "BAG",  "JAR",
                                                    "PKG",  "PACK", "CAN", "DRUM"};
const char *const basalt_tpchgen_segments[5] = {"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY",
                                                "HOUSEHOLD"};
const char *const basalt_tpchgen_priorities[5] = {"1-URGENT", "2-HIGH", "3-MEDIUM",
                                                  "4-NOT SPECIFIED", "5-LOW"};
const char *const basalt_tpchgen_instructions[4] = {"DELIVER IN PERSON", "COLLECT COD", "NONE",
                                                    "TAKE BACK RETURN"};
const char *const basalt_tpchgen_modes[7] = {"REG AIR", "AIR", "RAIL", "SHIP",
                                             "TRUCK",   "MAIL", "FOB"};
const char *const basalt_tpchgen_regions[5] = {"AFRICA", "AMERICA", "ASIA", "EUROPE",
                                               "MIDDLE EAST"};
const char *const basalt_tpchgen_nations[25] = {
    "ALGERIA", "ARGENTINA", "BRAZIL",  "CANADA",       "EGYPT",   "ETHIOPIA",       "FRANCE",
    "GERMANY", "INDIA",     "INDONESIA", "IRAN",       "IRAQ",    "JAPAN",          "JORDAN",
    "KENYA",   "MOROCCO",   "MOZAMBIQUE", "PERU",      "CHINA",   "ROMANIA",        "SAUDI ARABIA",
    "VIETNAM", "RUSSIA",    "UNITED KINGDOM", "UNITED STATES"};
const int basalt_tpchgen_nation_region[25] = {0, 1, 1, 1, 4, 0, 3, 3, 2, 2, 4, 4, 2,
                                              4, 0, 0, 0, 1, 2, 3, 4, 2, 3, 3, 1};

/* The grammar's word classes with their weights (the common words weigh
 * most, as in the spec's distributions). */
static const char *const nouns[] = {
    "packages",  "requests",  "accounts",     "deposits",   "foxes",     "ideas",
    "theodolites", "pinto beans", "instructions", "dependencies", "excuses", "platelets",
    "asymptotes", "courts",   "dolphins",     "multipliers", "sauternes", "warthogs",
    "frets",     "dinos",     "attainments",  "somas",      "Tiresias",  "patterns",
    "forges",    "braids",    "hockey players", "frays",    "warhorses", "dugouts",
    "notornis",  "epitaphs",  "pearls",       "tithes",     "waters",    "orbits",
    "gifts",     "sheaves",   "depths",       "sentiments", "decoys",    "realms",
    "pains",     "grouches",  "escapades"};
static const int noun_w[] = {40, 40, 40, 40, 20, 20, 20, 20, 20, 10, 10, 10, 10, 5, 5,
                             2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2, 2,
                             2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2, 2};
static const char *const verbs[] = {
    "sleep", "wake",   "are",     "cajole",  "haggle",   "nag",    "use",   "boost",
    "affix", "detect", "integrate", "maintain", "nod",   "was",    "lose",  "sublate",
    "solve", "thrash", "promise", "engage",  "hinder",   "print",  "x-ray", "breach",
    "eat",   "grow",   "impress", "mold",    "poach",    "serve",  "run",   "dazzle",
    "snooze", "doze",  "unwind",  "kindle",  "play",     "hang",   "believe", "doubt"};
static const int verb_w[] = {20, 20, 20, 20, 20, 10, 10, 10, 5, 5, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                             1,  1,  1,  1,  1,  1,  1,  1,  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
static const char *const adjectives[] = {
    "special", "pending", "unusual", "express", "furious", "sly",      "careful",  "blithe",
    "quick",   "fluffy",  "slow",    "quiet",   "ruthless", "thin",    "close",    "dogged",
    "daring",  "brave",   "stealthy", "permanent", "enticing", "idle", "busy",     "regular",
    "final",   "ironic",  "even",    "bold",    "silent"};
static const int adjective_w[] = {20, 20, 20, 20, 1, 1, 1, 1, 1, 1, 1, 1, 1,  1, 1,
                                  1,  1,  1,  1,  1, 1, 1, 1, 50, 40, 40, 30, 20, 10};
static const char *const adverbs[] = {
    "sometimes", "always",   "never",     "furiously",  "slyly",      "carefully", "blithely",
    "quickly",   "fluffily", "slowly",    "quietly",    "ruthlessly", "thinly",    "closely",
    "doggedly",  "daringly", "bravely",   "stealthily", "permanently", "enticingly", "idly",
    "busily",    "regularly", "finally",  "ironically", "evenly",     "boldly",    "silently"};
static const int adverb_w[] = {1, 1, 1, 50, 50, 50, 40, 30, 20, 1, 1, 1, 1, 1,
                               1, 1, 1, 1,  1,  1,  1,  1,  1,  1, 1, 1, 1, 1};
static const char *const prepositions[] = {
    "about",   "above",   "according to", "across",  "after",   "against", "along",
    "alongside of", "among", "around",    "at",      "atop",    "before",  "behind",
    "beneath", "beside",  "besides",      "between", "beyond",  "by",      "despite",
    "during",  "except",  "for",          "from",    "in place of", "inside", "instead of",
    "into",    "near",    "of",           "on",      "outside", "over",    "past",
    "since",   "through", "throughout",   "to",      "toward",  "under",   "until",
    "up",      "upon",    "without",      "with",    "within"};
static const int preposition_w[] = {50, 50, 50, 50, 50, 40, 40, 30, 30, 20, 10, 1, 1, 1, 1, 1,
                                    1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1, 1, 1, 1, 1,
                                    1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1, 1, 1, 1};
static const char *const auxiliaries[] = {
    "do",     "may",   "might",     "shall",  "will",  "would", "can",  "could",   "should",
    "ought to", "must", "will have to", "shall have to", "could have to", "should have to",
    "must have to", "need to", "try to"};
static const int auxiliary_w[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
static const char *const terminators[] = {".", ";", ":", "?", "!", "--"};
static const int terminator_w[] = {50, 1, 1, 1, 1, 1};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

const char *basalt_tpchgen_pick(const struct basalt_tpchgen_dist *d, struct basalt_tpchgen_rng *r)
{
    int64_t x = tpchgen_uniform(r, 0, d->cumulative[d->n - 1] - 1);
    int i = 0;
    while (d->cumulative[i] <= x)
        i++;
    return d->items[i];
}

struct pool_builder {
    char *buf;
    size_t len, cap;
};

static void put(struct pool_builder *p, const char *s)
{
    size_t n = strlen(s);
    if (p->len + n > p->cap)
        n = p->cap - p->len;
    memcpy(p->buf + p->len, s, n);
    p->len += n;
}

static void word(struct pool_builder *p, const struct basalt_tpchgen_dist *d,
                 struct basalt_tpchgen_rng *r)
{
    put(p, basalt_tpchgen_pick(d, r));
    put(p, " ");
}

basalt_status basalt_tpchgen_text_pool(size_t size, char **out, struct basalt_error *err)
{
    /* Cumulative weights, built on the stack: the lists are small. */
    int cn[COUNT(nouns)], cv[COUNT(verbs)], cj[COUNT(adjectives)], ca[COUNT(adverbs)],
        cp[COUNT(prepositions)], cx[COUNT(auxiliaries)], ct[COUNT(terminators)];
    struct {
        const int *w;
        int *c;
        int n;
    } acc[] = {{noun_w, cn, COUNT(nouns)},          {verb_w, cv, COUNT(verbs)},
               {adjective_w, cj, COUNT(adjectives)}, {adverb_w, ca, COUNT(adverbs)},
               {preposition_w, cp, COUNT(prepositions)}, {auxiliary_w, cx, COUNT(auxiliaries)},
               {terminator_w, ct, COUNT(terminators)}};
    for (size_t k = 0; k < sizeof acc / sizeof acc[0]; k++)
        for (int i = 0, sum = 0; i < acc[k].n; i++)
            acc[k].c[i] = sum += acc[k].w[i];
    const struct basalt_tpchgen_dist noun = {nouns, cn, COUNT(nouns)},
                                     verb = {verbs, cv, COUNT(verbs)},
                                     adj = {adjectives, cj, COUNT(adjectives)},
                                     adv = {adverbs, ca, COUNT(adverbs)},
                                     prep = {prepositions, cp, COUNT(prepositions)},
                                     aux = {auxiliaries, cx, COUNT(auxiliaries)},
                                     term = {terminators, ct, COUNT(terminators)};
    if (size < (1u << 20))
        size = 1u << 20;
    struct pool_builder p = {basalt_malloc(size), 0, size};
    if (p.buf == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "text pool: out of memory");
    struct basalt_tpchgen_rng r;
    tpchgen_seed(&r, TPCHGEN_TEXT_POOL, 0);
    while (p.len < p.cap) {
        /* noun phrase: noun | adjective noun | adjective, adjective noun |
         * adverb adjective noun */
        switch (tpchgen_uniform(&r, 0, 3)) {
        case 0: break;
        case 1: word(&p, &adj, &r); break;
        case 2:
            put(&p, basalt_tpchgen_pick(&adj, &r));
            put(&p, ", ");
            word(&p, &adj, &r);
            break;
        default:
            word(&p, &adv, &r);
            word(&p, &adj, &r);
            break;
        }
        word(&p, &noun, &r);
        /* verb phrase: verb | auxiliary verb | verb adverb | auxiliary verb adverb */
        int vp = (int)tpchgen_uniform(&r, 0, 3);
        if (vp & 1)
            word(&p, &aux, &r);
        word(&p, &verb, &r);
        if (vp & 2)
            word(&p, &adv, &r);
        /* sentence: NP VP T | NP VP PP T | NP VP NP T | NP PP VP T | NP PP VP PP T */
        int shape = (int)tpchgen_uniform(&r, 0, 2);
        if (shape == 1) {
            word(&p, &prep, &r);
            put(&p, "the ");
            word(&p, &noun, &r);
        } else if (shape == 2) {
            word(&p, &adj, &r);
            word(&p, &noun, &r);
        }
        /* The terminator replaces the last space. */
        if (p.len > 0 && p.len < p.cap && p.buf[p.len - 1] == ' ')
            p.len--;
        put(&p, basalt_tpchgen_pick(&term, &r));
        put(&p, " ");
    }
    *out = p.buf;
    return BASALT_OK;
}
