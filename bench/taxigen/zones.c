/* Where trips start and end: the 265 TLC taxi zones, their classes, and the
 * pickup and drop-off distributions.
 *
 * The busiest zones get their shares as in TLC 2023-24 (132 JFK 5%, 161
 * Midtown Center 4.7%, ...); the other zones share a tail with a Zipf-like
 * decay in a fixed pseudo-random order, so every zone appears. Drop-offs
 * are flatter, with more outer-borough zones and the airports as
 * destinations. Each distribution becomes a Walker alias table: one draw
 * picks a zone in constant time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "taxigen.h"

struct share {
    int zone;
    double percent;
};

static const int manhattan[] = {
    4,   12,  13,  24,  41,  42,  43,  45,  48,  50,  68,  74,  75,  79,  87,  88,  90,  100,
    103, 104, 105, 107, 113, 114, 116, 120, 125, 127, 128, 137, 140, 141, 142, 143, 144, 148,
    151, 152, 153, 158, 161, 162, 163, 164, 166, 170, 186, 194, 202, 209, 211, 224, 229, 230,
    231, 232, 233, 234, 236, 237, 238, 239, 243, 244, 246, 249, 261, 262, 263};

static const struct share pickup_top[] = {
    {132, 5.0},  {161, 4.7},  {237, 4.5},  {236, 4.1},  {162, 3.5},  {186, 3.3},  {230, 3.25},
    {142, 3.2},  {138, 3.15}, {170, 2.9},  {163, 2.8},  {239, 2.7},  {68, 2.5},   {141, 2.4},
    {48, 2.3},   {234, 2.25}, {79, 2.1},   {249, 2.0},  {107, 1.95}, {140, 1.9},  {238, 1.7},
    {43, 1.6},   {164, 1.55}, {229, 1.5},  {263, 1.45}, {100, 1.4},  {113, 1.3},  {90, 1.28},
    {262, 1.26}, {246, 1.24}, {114, 1.2},  {137, 1.15}, {233, 1.1},  {231, 1.05}, {50, 1.0},
    {151, 0.9},  {75, 0.88},  {143, 0.86}, {148, 0.84}, {158, 0.8},  {87, 0.78},  {125, 0.7},
    {13, 0.68},  {144, 0.66}, {166, 0.6},  {211, 0.58}, {88, 0.5},   {41, 0.48},  {74, 0.46},
    {209, 0.4},  {45, 0.38},  {261, 0.36}, {264, 0.5},  {42, 0.3},   {4, 0.28},   {232, 0.2},
    {70, 0.25},  {7, 0.15},   {24, 0.14},  {244, 0.12}, {152, 0.1},  {116, 0.1},  {65, 0.1},
    {1, 0.02},   {265, 0.05}};

static const struct share dropoff_top[] = {
    {236, 4.3}, {237, 4.0}, {161, 3.9}, {170, 3.0}, {141, 2.9}, {239, 2.8}, {142, 2.7},
    {68, 2.5},  {263, 2.4}, {162, 2.3}, {238, 2.2}, {140, 2.2}, {230, 2.0}, {163, 2.0},
    {138, 2.0}, {229, 1.9}, {262, 1.9}, {48, 1.9},  {107, 1.9}, {186, 1.8}, {234, 1.8},
    {79, 1.8},  {249, 1.6}, {164, 1.6}, {143, 1.5}, {246, 1.5}, {151, 1.4}, {132, 1.3},
    {75, 1.3},  {100, 1.3}, {137, 1.3}, {231, 1.3}, {74, 1.2},  {113, 1.2}, {90, 1.2},
    {233, 1.2}, {43, 1.1},  {50, 1.1},  {148, 1.0}, {114, 1.0}, {87, 0.9},  {166, 0.9},
    {41, 0.9},  {158, 0.8}, {13, 0.8},  {144, 0.8}, {211, 0.8}, {42, 0.8},  {125, 0.7},
    {244, 0.6}, {116, 0.6}, {88, 0.5},  {24, 0.5},  {4, 0.5},   {264, 0.5}, {7, 0.5},
    {261, 0.5}, {265, 0.4}, {152, 0.4}, {209, 0.4}, {45, 0.4},  {232, 0.3}, {65, 0.3},
    {70, 0.3},  {181, 0.3}, {255, 0.3}, {145, 0.3}, {1, 0.25},  {61, 0.25}, {256, 0.25},
    {112, 0.25}, {97, 0.25}, {17, 0.2}, {66, 0.2},  {33, 0.2},  {25, 0.2},  {40, 0.2},
    {146, 0.2}, {226, 0.2}, {129, 0.2}, {260, 0.2}, {223, 0.2}, {179, 0.2}, {80, 0.2},
    {193, 0.15}, {82, 0.15}};

/* murmur3's 32-bit finaliser: the tail's fixed order. */
static uint32_t fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    return h ^ (h >> 16);
}

struct ranked {
    uint32_t key;
    int zone;
};

static int by_key(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->zone - y->zone;
}

/* Percent shares by zone (w[z - 1]): the listed zones scaled to 100 - tail,
 * the others 1/(rank + 8)^1.3 of the tail in an order fixed by `salt`. */
static void weights(const struct share *top, size_t n, double tail, uint32_t salt,
                    double w[TAXIGEN_ZONES])
{
    double top_sum = 0;
    memset(w, 0, TAXIGEN_ZONES * sizeof *w);
    for (size_t i = 0; i < n; i++)
        top_sum += top[i].percent;
    for (size_t i = 0; i < n; i++)
        w[top[i].zone - 1] = top[i].percent / top_sum * (100 - tail);
    struct ranked rest[TAXIGEN_ZONES];
    int k = 0;
    for (int z = 1; z <= TAXIGEN_ZONES; z++)
        if (w[z - 1] == 0)
            rest[k++] = (struct ranked){fmix32((uint32_t)z ^ salt), z};
    qsort(rest, (size_t)k, sizeof *rest, by_key);
    double zipf_sum = 0;
    for (int r = 0; r < k; r++)
        zipf_sum += pow(r + 8, -1.3);
    for (int r = 0; r < k; r++)
        w[rest[r].zone - 1] = pow(r + 8, -1.3) / zipf_sum * tail;
}

/* Vose's construction: columns of height 1 (in units of the mean weight),
 * each split between its own zone and one alias. */
static void alias_table(const double w[TAXIGEN_ZONES], struct basalt_taxigen_alias *a)
{
    double p[TAXIGEN_ZONES], sum = 0;
    int small[TAXIGEN_ZONES], large[TAXIGEN_ZONES], ns = 0, nl = 0;
    for (int i = 0; i < TAXIGEN_ZONES; i++)
        sum += w[i];
    for (int i = 0; i < TAXIGEN_ZONES; i++) {
        p[i] = w[i] * TAXIGEN_ZONES / sum;
        a->threshold[i] = 1ull << 32;
        a->alias[i] = (int16_t)(i + 1);
        if (p[i] < 1)
            small[ns++] = i;
        else
            large[nl++] = i;
    }
    while (ns > 0 && nl > 0) {
        int s = small[--ns], l = large[--nl];
        a->threshold[s] = (uint64_t)llround(p[s] * 0x1p32);
        a->alias[s] = (int16_t)(l + 1);
        p[l] += p[s] - 1;
        if (p[l] < 1)
            small[ns++] = l;
        else
            large[nl++] = l;
    }
}

void basalt_taxigen_zones_init(struct basalt_taxigen_zones *z)
{
    memset(z, 0, sizeof *z);
    for (int id = 1; id <= TAXIGEN_ZONES; id++)
        z->zone_class[id] = TAXIGEN_OUTER;
    for (size_t i = 0; i < sizeof manhattan / sizeof *manhattan; i++)
        z->zone_class[manhattan[i]] = TAXIGEN_MANHATTAN;
    z->zone_class[132] = TAXIGEN_JFK;
    z->zone_class[138] = TAXIGEN_LGA;
    z->zone_class[1] = TAXIGEN_EWR;
    z->zone_class[264] = TAXIGEN_UNKNOWN;
    z->zone_class[265] = TAXIGEN_UNKNOWN;
    double w[TAXIGEN_ZONES];
    weights(pickup_top, sizeof pickup_top / sizeof *pickup_top, 5.5, 0x5a17, w);
    alias_table(w, &z->pickup);
    weights(dropoff_top, sizeof dropoff_top / sizeof *dropoff_top, 7.0, 0x0d0e, w);
    alias_table(w, &z->dropoff);
}
