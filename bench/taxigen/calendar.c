/* When trips happen: rows per month, and within a month rows per hour.
 *
 * Months get rows in proportion to the TLC's real yellow-trip row counts
 * for 2023-2024. Within a month, an hour's weight is the weekday's weight
 * times the hour-of-day shape (weekday or weekend) times 0.65 on holidays;
 * the spring-forward 02:00 hour has no trips and the fall-back 01:00 hour
 * counts twice, as naive local timestamps show them. Rows are split over
 * the hours by exact cumulative rounding, so the split is the same on every
 * machine. */
#include <stdio.h>
#include <string.h>

#include "taxigen.h"

/* The TLC's raw monthly row counts, 2023-01..2024-12 (79,479,946 rows; the
 * reference's Iceberg table kept 79,478,796 after dropping out-of-month
 * pickups). At that scale June 2024 gets 3,539,142 rows, q7's answer. */
static const int64_t month_weights[TAXIGEN_MONTHS] = {
    3066766, 2913955, 3403766, 3288250, 3513649, 3307234, 2907108, 2824209,
    2846722, 3522285, 3339715, 3376567, 2964624, 3007526, 3582628, 3514289,
    3723833, 3539193, 3076903, 2979183, 3633030, 3833771, 3646369, 3668371};

/* Sunday..Saturday. */
static const int dow_weight[7] = {85, 92, 102, 107, 112, 108, 100};
static const int hour_weekday[24] = {26, 15, 10, 7,  6,  9,  20, 36, 45, 46, 46, 48,
                                     51, 52, 55, 58, 60, 65, 69, 66, 59, 56, 50, 38};
static const int hour_weekend[24] = {45, 36, 27, 19, 12, 8,  9,  14, 20, 28, 37, 45,
                                     50, 52, 53, 53, 53, 54, 56, 54, 50, 48, 46, 42};

/* Federal holidays with little commuting: New Year, Memorial Day, July 4th,
 * Labor Day, Thanksgiving, Christmas. As yyyymmdd. */
static const int holidays[] = {20230101, 20230529, 20230704, 20230904, 20231123, 20231225,
                               20240101, 20240527, 20240704, 20240902, 20241128, 20241225};
static const int dst_spring[] = {20230312, 20240310};
static const int dst_fall[] = {20231105, 20241103};

static bool listed(const int *dates, size_t n, int date)
{
    for (size_t i = 0; i < n; i++)
        if (dates[i] == date)
            return true;
    return false;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's algorithm). */
static int64_t days_from_civil(int y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void basalt_taxigen_month_counts(int64_t scale, int64_t counts[TAXIGEN_MONTHS])
{
    int64_t total = 0;
    for (int i = 0; i < TAXIGEN_MONTHS; i++)
        total += month_weights[i];
    int64_t rem[TAXIGEN_MONTHS], given = 0;
    for (int i = 0; i < TAXIGEN_MONTHS; i++) {
        /* weight * scale stays below 2^63 for scale <= TAXIGEN_MAX_SCALE. */
        counts[i] = month_weights[i] * scale / total;
        rem[i] = month_weights[i] * scale % total;
        given += counts[i];
    }
    for (int64_t left = scale - given; left > 0; left--) {
        int best = -1;
        for (int i = 0; i < TAXIGEN_MONTHS; i++)
            if (rem[i] >= 0 && (best < 0 || rem[i] > rem[best]))
                best = i;
        counts[best]++;
        rem[best] = -1;
    }
}

/* The share of flex rows grows over the two years, 2.5% to 3.7%. */
static int64_t flex_rows(int index, int64_t rows)
{
    double share = 0.025 + 0.012 * index / 23.0;
    return (int64_t)((double)rows * share + 0.5);
}

/* Cuts `n` rows over the hours in proportion to `w`, writing each hour's end
 * row (from `offset`) into ends[]. */
static void split(const int64_t *w, int hours, int64_t n, int64_t offset, int64_t *ends)
{
    int64_t total = 0, cum = 0;
    for (int h = 0; h < hours; h++)
        total += w[h];
    for (int h = 0; h < hours; h++) {
        cum += w[h];
        /* cum <= 7e8 and n < 5e9 (TAXIGEN_MAX_SCALE): the product fits. */
        ends[h] = offset + cum * n / total;
    }
}

void basalt_taxigen_month_init(struct basalt_taxigen_month *m, int index, int64_t rows)
{
    static const int month_days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    memset(m, 0, sizeof *m);
    m->index = index;
    m->year = TAXIGEN_FIRST_YEAR + index / 12;
    m->month = index % 12 + 1;
    snprintf(m->tag, sizeof m->tag, "%04d-%02d", m->year, m->month);
    m->rows = rows;
    m->flex_rows = flex_rows(index, rows);
    bool leap = m->year % 4 == 0 && (m->year % 100 != 0 || m->year % 400 == 0);
    m->days = month_days[m->month - 1] + (m->month == 2 && leap);
    m->hours = m->days * 24;
    int64_t day0 = days_from_civil(m->year, m->month, 1);
    m->start_us = day0 * 86400 * 1000000;
    m->first_dow = (int)((day0 % 7 + 11) % 7); /* 1970-01-01 was a Thursday */

    int64_t w[TAXIGEN_MAX_HOURS];
    for (int d = 0; d < m->days; d++) {
        int date = m->year * 10000 + m->month * 100 + d + 1;
        int dow = (m->first_dow + d) % 7;
        bool weekend = dow == 0 || dow == 6;
        int holiday = listed(holidays, sizeof holidays / sizeof *holidays, date) ? 65 : 100;
        for (int h = 0; h < 24; h++) {
            int64_t x = (int64_t)dow_weight[dow] * (weekend ? hour_weekend[h] : hour_weekday[h]) *
                        holiday;
            if (h == 2 && listed(dst_spring, 2, date))
                x = 0;
            if (h == 1 && listed(dst_fall, 2, date))
                x *= 2;
            w[d * 24 + h] = x;
        }
    }
    int64_t ordinary = rows - m->flex_rows;
    split(w, m->hours, ordinary, 0, m->seg_end);
    split(w, m->hours, m->flex_rows, ordinary, m->seg_end + m->hours);
}

int basalt_taxigen_segment_of(const struct basalt_taxigen_month *m, int64_t row)
{
    int lo = 0, hi = 2 * m->hours - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (m->seg_end[mid] > row)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}
