/* basalt-taxigen: synthetic NYC yellow-taxi trips, 2023-01..2024-12, one
 * Parquet file per month, with the distributions of the TLC's 2023-2024
 * trip records (docs/QUERY.md, "NYC taxi: data generator").
 *
 * Every value is a pure function of (month, row index within the month):
 * each decision of a row (vendor, second, zones, distance mixture, ...) has
 * its own hash stream, murmur3's fmix64 over the row key and the stream, so
 * a row can be made anywhere, in any order, by any thread. What is per
 * month (how many rows, which hour each row falls in) is computed once,
 * before rows are made, by exact integer arithmetic. Months are generated
 * in fixed chunks of rows on the pool and written in chunk order: the files
 * are byte-identical for any thread count. */
#ifndef BASALT_TAXIGEN_H
#define BASALT_TAXIGEN_H

#include <stdbool.h>
#include <stdint.h>

#include "basalt/basalt.h"

/* ------------------------------------------------------------------ hashing */

static inline uint64_t taxigen_fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    return k ^ (k >> 33);
}

/* One stream per decision: no two decisions of a row share bits, so their
 * draws are independent (a decision that reuses a draw is correlated with
 * the first one, which the reference avoids too). */
enum basalt_taxigen_stream {
    TAXIGEN_VENDOR,
    TAXIGEN_SECOND,     /* second within the pickup hour */
    TAXIGEN_PICKUP,     /* pickup zone (alias column and threshold) */
    TAXIGEN_DROPOFF,    /* drop-off zone */
    TAXIGEN_SAME_ZONE,  /* a trip that stays in its zone */
    TAXIGEN_KIND,       /* zero distance, absurd, long outlier, normal */
    TAXIGEN_NORMAL1,    /* Box-Muller pair */
    TAXIGEN_NORMAL2,
    TAXIGEN_MIX,        /* distance mixture component and position */
    TAXIGEN_PASSENGERS,
    TAXIGEN_RATE,       /* the special rates (JFK, Newark, negotiated) */
    TAXIGEN_RATE2,      /* the ordinary rate codes */
    TAXIGEN_FLAG,       /* store_and_fwd_flag */
    TAXIGEN_PAYMENT,
    TAXIGEN_REVERSAL,   /* refunds and disputes, and no-charge zero fares */
    TAXIGEN_TIP,
    TAXIGEN_TOLL,       /* charged or not */
    TAXIGEN_TOLL_KIND,  /* one or two crossings */
    TAXIGEN_MTA,
    TAXIGEN_SURCHARGE,  /* improvement surcharge */
    TAXIGEN_CONGESTION,
    TAXIGEN_FLEX_FARE,  /* the upfront price's spread */
    TAXIGEN_LONG,       /* a meter left running: up to a day added */
    TAXIGEN_LONG_SPAN,
    TAXIGEN_NUM_STREAMS
};

/* The draws of one row: fmix64 places the row, then one fmix64 per stream
 * (a splitmix64 sequence at the row's seed, read at the stream's place). */
struct basalt_taxigen_draws {
    uint64_t h[TAXIGEN_NUM_STREAMS];
};

static inline void taxigen_draws(struct basalt_taxigen_draws *d, int month, int64_t row)
{
    /* Months 0..23 in the top bits, rows below 2^40: every key distinct. */
    uint64_t seed = taxigen_fmix64(((uint64_t)month << 40 | (uint64_t)row) ^ 0x7461786967656e31ull);
    for (int s = 0; s < TAXIGEN_NUM_STREAMS; s++)
        d->h[s] = taxigen_fmix64(seed + (uint64_t)(s + 1) * 0x9E3779B97F4A7C15ull);
}

/* A draw as a uniform double in (0, 1): never 0, so log() is safe. */
static inline double taxigen_unit(uint64_t h)
{
    return ((double)(h >> 11) + 0.5) * 0x1p-53;
}

/* ------------------------------------------------------------------ calendar */

#define TAXIGEN_MONTHS 24
#define TAXIGEN_FIRST_YEAR 2023
#define TAXIGEN_MAX_HOURS (31 * 24)
/* Rows per month below 2^40 (the row key) and products of weights and row
 * counts below 2^63 (the integer splits): 1e11 rows keep both. */
#define TAXIGEN_MAX_SCALE 100000000000LL

/* Splits `scale` rows over the 24 months in proportion to the TLC's real
 * monthly row counts, by largest remainder (ties to the earlier month). */
void basalt_taxigen_month_counts(int64_t scale, int64_t counts[TAXIGEN_MONTHS]);

/* One month's file: which rows fall in which hour. Rows are in pickup-hour
 * order, the flex rows (the app-dispatched trips with NULL columns) in a
 * block of their own at the end, in hour order too. */
struct basalt_taxigen_month {
    int index;            /* 0 = 2023-01 */
    int year, month;
    char tag[24];         /* "2023-01" (room for any int, as printf sees it) */
    int64_t rows, flex_rows;
    int64_t start_us;     /* the month's first microsecond (naive, as TLC) */
    int days, hours, first_dow; /* first_dow: 0 = Sunday */
    /* Segment k < hours: the ordinary rows of hour k; k >= hours: the flex
     * rows of hour k - hours. seg_end[k] is one past its last row. */
    int64_t seg_end[2 * TAXIGEN_MAX_HOURS];
};

/* Fills `m` for month `index` holding `rows` rows. */
void basalt_taxigen_month_init(struct basalt_taxigen_month *m, int index, int64_t rows);

/* The segment of row `row` (the first whose end is past it). */
int basalt_taxigen_segment_of(const struct basalt_taxigen_month *m, int64_t row);

/* ------------------------------------------------------------------ zones */

#define TAXIGEN_ZONES 265

/* Zone classes: how a zone shapes distances, fees and surcharges. */
enum basalt_taxigen_zone_class {
    TAXIGEN_OUTER,     /* Bronx, Brooklyn, Queens, Staten Island */
    TAXIGEN_MANHATTAN,
    TAXIGEN_JFK,       /* 132 */
    TAXIGEN_LGA,       /* 138 */
    TAXIGEN_EWR,       /* 1, Newark */
    TAXIGEN_UNKNOWN    /* 264 NV, 265 outside NYC */
};

/* A Walker alias table over zones 1..265 with 32-bit thresholds. */
struct basalt_taxigen_alias {
    uint64_t threshold[TAXIGEN_ZONES]; /* keep column j when the low 32 bits are below */
    int16_t alias[TAXIGEN_ZONES];      /* else this zone */
};

/* The tables every row reads; built once, then shared read-only. */
struct basalt_taxigen_zones {
    uint8_t zone_class[TAXIGEN_ZONES + 1]; /* by zone id; [0] unused */
    struct basalt_taxigen_alias pickup, dropoff;
};

void basalt_taxigen_zones_init(struct basalt_taxigen_zones *z);

/* A zone drawn from one 64-bit draw: the high half picks the column, the low
 * half decides between it and its alias. */
static inline int taxigen_zone(const struct basalt_taxigen_alias *a, uint64_t h)
{
    int j = (int)(((h >> 32) * TAXIGEN_ZONES) >> 32);
    return (h & 0xffffffffu) < a->threshold[j] ? j + 1 : a->alias[j];
}

/* ------------------------------------------------------------------ trips */

/* One trip. Money is in whole cents so that the total is exactly the sum of
 * its parts; NULL columns of flex rows are flagged by `flex`. */
struct basalt_taxigen_trip {
    bool flex;              /* passenger_count, RatecodeID, store_and_fwd_flag,
                             * congestion_surcharge, airport_fee NULL */
    bool store_and_fwd;
    int32_t vendor, passengers, rate, pickup_zone, dropoff_zone, payment;
    int64_t pickup_us, dropoff_us;
    double distance;
    int64_t fare, extra, mta_tax, tip, tolls, improvement, total, congestion, airport_fee;
};

/* Row `row` of month `m`, which falls in segment `seg`. */
void basalt_taxigen_trip(const struct basalt_taxigen_zones *z, const struct basalt_taxigen_month *m,
                         int64_t row, int seg, struct basalt_taxigen_trip *out);

/* ------------------------------------------------------------------ files */

#define TAXIGEN_COLUMNS 19

/* The Arrow schema of the files: 19 nullable columns, each with its Iceberg
 * field id (1..19) as PARQUET:field_id. Caller storage, owned on OK.
 * Returns OK or NOMEM. */
basalt_status basalt_taxigen_schema(struct ArrowSchema *out, struct basalt_error *err);

/* Rows [begin, end) of month `m` as a struct array of the schema's columns
 * (caller storage, owned on OK). Returns OK or NOMEM. */
basalt_status basalt_taxigen_batch(const struct basalt_taxigen_zones *z,
                                   const struct basalt_taxigen_month *m, int64_t begin,
                                   int64_t end, struct ArrowArray *out, struct basalt_error *err);

struct basalt_taxigen_options {
    int64_t row_group_rows;
    int zstd_level;           /* BASALT_CODEC_LEVEL_DEFAULT: the codec's default */
    struct basalt_pool *pool; /* borrowed; NULL: the calling thread */
};

/* Writes month `m` to `path`. *bytes receives the file's size. Returns OK;
 * IO; NOMEM; the writer's statuses (the error names the path). */
basalt_status basalt_taxigen_write_month(const struct basalt_taxigen_zones *z,
                                         const struct basalt_taxigen_month *m, const char *path,
                                         const struct basalt_taxigen_options *o, int64_t *bytes,
                                         struct basalt_error *err);

/* What manifest.json records of one month's file. */
struct basalt_taxigen_file {
    char month[24]; /* "2023-01" */
    int64_t rows, flex_rows, bytes;
};

/* Writes DIR/manifest.json: the parameters and each file written (under a
 * temporary name, then renamed). Returns OK or IO. */
basalt_status basalt_taxigen_manifest(const char *dir, int64_t scale, int64_t row_group_rows,
                                      int zstd_level, const struct basalt_taxigen_file *files,
                                      int num_files, struct basalt_error *err);

#endif
