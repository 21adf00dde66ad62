/* One trip: its values from its month, its row and its hour.
 *
 * The shapes are those of the TLC's trip records (docs/QUERY.md): a
 * distance mixture that depends on the zones (airport trips long and
 * tight, Manhattan trips short), a duration from distance and the hour's
 * speed, the meter's fare formula with JFK's flat fare, Newark's surcharge
 * and negotiated fares, tips on card trips only, tolls on airport and long
 * trips, and reversals (disputes and refunds) with every amount negated.
 * Money is summed in cents: total_amount is exactly its parts. */
#include <math.h>

#include "taxigen.h"

#define US_PER_S 1000000LL

/* A categorical draw: value i when u is below cumulative[i] (the last value
 * takes the rest). */
static int32_t pick(double u, const double *cumulative, const int32_t *values, int n)
{
    for (int i = 0; i < n - 1; i++)
        if (u < cumulative[i])
            return values[i];
    return values[n - 1];
}

/* Whole cents of a dollar amount, halves away from zero as SQL's round. */
static int64_t cents(double dollars)
{
    return llround(dollars * 100);
}

static int64_t whole_dollars(double dollars)
{
    return llround(dollars) * 100;
}

static bool is_airport(int c)
{
    return c == TAXIGEN_JFK || c == TAXIGEN_LGA;
}

enum kind { ZERO, ABSURD, LONG_OUTLIER, NORMAL };

/* A distance in miles before rounding: the component of the mixture is
 * chosen by `um` by the zones' classes, and `um` rescaled gives positions
 * inside uniform components. */
static double distance_draw(enum kind kind, int pu_class, int do_class, bool same_zone, double um,
                            double z)
{
    switch (kind) {
    case ZERO: return 0;
    case ABSURD: return exp(log(100.0) + um * (log(200000.0) - log(100.0)));
    case LONG_OUTLIER: return 20 + 40 * um;
    case NORMAL: break;
    }
    if (pu_class == TAXIGEN_JFK) {
        if (um < 0.70)
            return fmax(9.0, 17.4 + 2.0 * z);
        if (um < 0.92)
            return exp(log(10.0) + 0.35 * z);
        return 20 + 25 * ((um - 0.92) / 0.08);
    }
    if (pu_class == TAXIGEN_LGA) {
        if (um < 0.62)
            return fmax(4.0, 9.8 + 1.7 * z);
        if (um < 0.95)
            return exp(log(6.0) + 0.45 * z);
        return 14 + 20 * ((um - 0.95) / 0.05);
    }
    if (pu_class == TAXIGEN_EWR)
        return fmax(5.0, 17.0 + 3.0 * z);
    if (do_class == TAXIGEN_JFK)
        return um < 0.75 ? fmax(9.0, 17.6 + 2.1 * z) : exp(log(11.0) + 0.35 * z);
    if (do_class == TAXIGEN_LGA)
        return um < 0.70 ? fmax(4.0, 9.6 + 1.8 * z) : exp(log(6.0) + 0.45 * z);
    if (do_class == TAXIGEN_EWR)
        return fmax(5.0, 18.0 + 3.0 * z);
    if (same_zone)
        return exp(log(0.7) + 0.6 * z);
    if (pu_class != TAXIGEN_MANHATTAN || do_class != TAXIGEN_MANHATTAN)
        return exp(log(2.8) + 0.7 * z);
    return exp(log(1.6) + 0.72 * z);
}

/* Average speed (mph) by hour of day, and the share of the trip's time spent
 * slow enough for the meter to charge by the minute. */
static double speed_of(int hod)
{
    if (hod < 6)
        return 15.0;
    if (hod == 6)
        return 12.0;
    if (hod < 16)
        return 8.5;
    if (hod < 20)
        return 7.8;
    return 11.0;
}

static double slow_share(int hod)
{
    if (hod < 6)
        return 0.15;
    if ((hod >= 7 && hod <= 9) || (hod >= 16 && hod <= 19))
        return 0.40;
    if (hod >= 10 && hod <= 15)
        return 0.35;
    return 0.25;
}

static int32_t rate_code(const struct basalt_taxigen_draws *d, enum kind kind, int pu_class,
                         int do_class, double distance)
{
    /* 1 98.55%, 5 0.65%, 99 0.65%, 4 0.12%, 3 0.03%, 6 0.002%: the
     * weights add up to 1.00002, so the draw is scaled to them. */
    static const double cum[] = {0.9855, 0.992, 0.9985, 0.9997, 1.0};
    static const int32_t val[] = {1, 5, 99, 4, 3, 6};
    double u = taxigen_unit(d->h[TAXIGEN_RATE]);
    /* The JFK flat fare for most long trips to or from JFK, Newark's rate
     * for most trips there, negotiated fares for some very long trips. */
    if ((pu_class == TAXIGEN_JFK || do_class == TAXIGEN_JFK) && distance >= 12 && kind == NORMAL &&
        u < 0.55)
        return 2;
    if (do_class == TAXIGEN_EWR && u < 0.8)
        return 3;
    if (kind == LONG_OUTLIER && u < 0.35)
        return 4;
    return pick(taxigen_unit(d->h[TAXIGEN_RATE2]) * 1.00002, cum, val, 6);
}

/* The tip on a card trip: none, a suggested percentage of the fare and
 * surcharges, or a whole-dollar amount typed in. */
static int64_t card_tip(double u, int64_t base)
{
    if (u < 0.17)
        return 0;
    if (u < 0.60)
        return llround((double)base * 0.20);
    if (u < 0.78)
        return llround((double)base * 0.25);
    if (u < 0.86)
        return llround((double)base * 0.30);
    return whole_dollars((double)base / 100 * (0.05 + 0.3 * ((u - 0.86) / 0.14)));
}

void basalt_taxigen_trip(const struct basalt_taxigen_zones *z, const struct basalt_taxigen_month *m,
                         int64_t row, int seg, struct basalt_taxigen_trip *t)
{
    struct basalt_taxigen_draws d;
    taxigen_draws(&d, m->index, row);
    int hour = seg % m->hours;
    int hod = hour % 24, dow = (m->first_dow + hour / 24) % 7;
    bool weekday_peak = dow >= 1 && dow <= 5 && hod >= 16 && hod <= 19;
    bool flex = seg >= m->hours;
    t->flex = flex;

    double u = taxigen_unit(d.h[TAXIGEN_VENDOR]);
    if (m->year == 2024)
        t->vendor = u < 0.235 ? 1 : u < 0.2365 ? 6 : 2;
    else
        t->vendor = u < 0.265 ? 1 : 2;
    t->pickup_us = m->start_us + (int64_t)hour * 3600 * US_PER_S +
                   (int64_t)(((d.h[TAXIGEN_SECOND] >> 32) * 3600) >> 32) * US_PER_S;

    int pu = taxigen_zone(&z->pickup, d.h[TAXIGEN_PICKUP]);
    int pu_class = z->zone_class[pu];
    bool same_zone = (pu_class == TAXIGEN_OUTER || pu_class == TAXIGEN_MANHATTAN ||
                      pu_class == TAXIGEN_UNKNOWN) &&
                     taxigen_unit(d.h[TAXIGEN_SAME_ZONE]) < 0.07;
    int dz = same_zone ? pu : taxigen_zone(&z->dropoff, d.h[TAXIGEN_DROPOFF]);
    int do_class = z->zone_class[dz];
    t->pickup_zone = pu;
    t->dropoff_zone = dz;

    static const double pay_cum[] = {0.81, 0.965, 0.989, 0.9999};
    static const int32_t pay_val[] = {1, 2, 4, 3, 5};
    t->payment = flex ? 0 : pick(taxigen_unit(d.h[TAXIGEN_PAYMENT]), pay_cum, pay_val, 5);

    /* Distance: 1.95% zero, 0.003% absurd (100-200,000 mi), 0.2% long
     * outliers (20-60 mi), the rest from the zones' mixture. */
    u = taxigen_unit(d.h[TAXIGEN_KIND]);
    enum kind kind = u < 0.0195 ? ZERO : u < 0.01953 ? ABSURD : u < 0.02153 ? LONG_OUTLIER : NORMAL;
    double r = sqrt(-2 * log(taxigen_unit(d.h[TAXIGEN_NORMAL1])));
    double angle = 2 * M_PI * taxigen_unit(d.h[TAXIGEN_NORMAL2]);
    double z1 = r * cos(angle), z2 = r * sin(angle);
    double um = taxigen_unit(d.h[TAXIGEN_MIX]);
    double draw = distance_draw(kind, pu_class, do_class, dz == pu, um, z1);
    /* Vendor 1's meters report tenths of a mile. */
    if (kind == ZERO)
        t->distance = 0;
    else if (t->vendor == 1)
        t->distance = (double)(llround(draw * 10) > 1 ? llround(draw * 10) : 1) / 10;
    else
        t->distance = (double)(llround(draw * 100) > 1 ? llround(draw * 100) : 1) / 100;
    /* The absurd distances are odometer glitches, not trips: priced as a
     * short ride. */
    double miles = kind == ABSURD ? 2.5 : fmin(t->distance, 80.0);

    double seconds;
    if (kind == ZERO)
        seconds = fmin(10800.0, exp(log(90.0) + 1.3 * z2));
    else
        seconds = 45 + miles / (speed_of(hod) * (miles > 8 ? 1.7 : 1.0) * exp(0.3 * z2)) * 3600;
    if (taxigen_unit(d.h[TAXIGEN_LONG]) < 0.0002)
        seconds += taxigen_unit(d.h[TAXIGEN_LONG_SPAN]) * 86400;
    int64_t duration = llround(seconds);
    t->dropoff_us = t->pickup_us + duration * US_PER_S;

    static const double pass_cum[] = {0.016, 0.771, 0.919, 0.956, 0.977, 0.990};
    static const int32_t pass_val[] = {0, 1, 2, 3, 4, 5, 6};
    t->passengers = flex ? 0 : pick(taxigen_unit(d.h[TAXIGEN_PASSENGERS]), pass_cum, pass_val, 7);
    t->rate = flex ? 0 : rate_code(&d, kind, pu_class, do_class, t->distance);
    t->store_and_fwd = !flex && t->vendor == 1 && taxigen_unit(d.h[TAXIGEN_FLAG]) < 0.02;

    /* Disputes (payment 4) and refunds are reversals; some no-charge trips
     * have no fare at all. */
    u = taxigen_unit(d.h[TAXIGEN_REVERSAL]);
    bool reversed = (t->payment == 4 && u < 0.6) || (t->payment == 3 && u < 0.45) ||
                    (t->payment == 2 && u < 0.0015);
    bool no_fare = t->payment == 3 && u >= 0.45 && u < 0.65;

    int64_t fare;
    double slow = miles > 8 ? 0.1 : slow_share(hod);
    if (no_fare)
        fare = 0;
    else if (flex) /* priced upfront */
        fare = cents((5.0 + 2.45 * miles + 0.32 * (double)duration / 60) *
                     (0.9 + 0.2 * taxigen_unit(d.h[TAXIGEN_FLEX_FARE])));
    else if (t->rate == 2)
        fare = 7000;
    else if (t->rate == 5)
        fare = whole_dollars(10.0 + 3.8 * miles);
    else {
        /* 70 cents per fifth of a mile and per slow minute, on 3.00. */
        double units = floor(miles * 5) + floor(fmin((double)duration, 7200) * slow / 60);
        fare = cents((3.0 + 0.7 * units) * (t->rate == 4 ? 1.5 : 1.0) + (t->rate == 3 ? 20 : 0));
    }

    int64_t extra = 0;
    if (!flex && t->rate == 2)
        extra = weekday_peak ? 500 : 0;
    else if (!flex)
        extra = (hod >= 20 || hod < 6 ? 100 : 0) + (weekday_peak ? 250 : 0);

    double um2 = taxigen_unit(d.h[TAXIGEN_MTA]);
    int64_t mta = 50;
    if (!flex && (((t->rate == 3 || t->rate == 5) && um2 < 0.5) || um2 < 0.008))
        mta = 0;
    u = taxigen_unit(d.h[TAXIGEN_SURCHARGE]);
    int64_t improvement = u < 0.002 ? 30 : u < 0.005 ? 0 : 100;
    bool manhattan = pu_class == TAXIGEN_MANHATTAN || do_class == TAXIGEN_MANHATTAN;
    int64_t congestion =
        !flex && manhattan && taxigen_unit(d.h[TAXIGEN_CONGESTION]) >= 8.0 / 256 ? 250 : 0;
    int64_t airport_fee = !flex && is_airport(pu_class) ? 175 : 0;

    bool newark = pu_class == TAXIGEN_EWR || do_class == TAXIGEN_EWR;
    double toll_share = newark                                     ? 0.9
                        : is_airport(pu_class) || is_airport(do_class) ? 0.35
                        : miles > 8                                ? 0.3
                        : pu_class == TAXIGEN_OUTER || do_class == TAXIGEN_OUTER ? 0.08
                                                                   : 0.01;
    int64_t tolls = 0;
    if (!no_fare && taxigen_unit(d.h[TAXIGEN_TOLL]) < toll_share)
        tolls = newark ? 1706 : taxigen_unit(d.h[TAXIGEN_TOLL_KIND]) < 13.0 / 256 ? 1388 : 694;

    int64_t tip = 0;
    u = taxigen_unit(d.h[TAXIGEN_TIP]);
    if (reversed || no_fare || fare <= 0)
        tip = 0;
    else if (flex)
        tip = u < 0.4 ? llround((double)fare * (0.1 + 0.2 * (u / 0.4))) : 0;
    else if (t->payment == 1)
        tip = card_tip(u, fare + extra + mta + improvement + congestion + airport_fee);

    int64_t sign = reversed ? -1 : 1;
    t->fare = sign * fare;
    t->extra = sign * extra;
    t->mta_tax = sign * mta;
    t->tip = tip;
    t->tolls = sign * tolls;
    t->improvement = sign * improvement;
    t->congestion = sign * congestion;
    t->airport_fee = sign * airport_fee;
    t->total = t->fare + t->extra + t->mta_tax + t->tip + t->tolls + t->improvement +
               t->congestion + t->airport_fee;
}
