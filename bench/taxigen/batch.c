/* The files' Arrow schema and the batches of trips: the arrays are made
 * first and their buffers filled in place, row by row, so nothing is copied
 * on the way to the writer. */
#include <stdio.h>
#include <string.h>

#include "taxigen.h"

enum kind { I32, TS, F64, STR };

static const struct {
    const char *name;
    enum kind kind;
} columns[TAXIGEN_COLUMNS] = {
    {"VendorID", I32},
    {"tpep_pickup_datetime", TS},
    {"tpep_dropoff_datetime", TS},
    {"passenger_count", I32},
    {"trip_distance", F64},
    {"RatecodeID", I32},
    {"store_and_fwd_flag", STR},
    {"PULocationID", I32},
    {"DOLocationID", I32},
    {"payment_type", I32},
    {"fare_amount", F64},
    {"extra", F64},
    {"mta_tax", F64},
    {"tip_amount", F64},
    {"tolls_amount", F64},
    {"improvement_surcharge", F64},
    {"total_amount", F64},
    {"congestion_surcharge", F64},
    {"airport_fee", F64},
};

/* Column positions, in schema order. */
enum {
    C_VENDOR, C_PICKUP, C_DROPOFF, C_PASSENGERS, C_DISTANCE, C_RATE, C_FLAG, C_PU, C_DO,
    C_PAYMENT, C_FARE, C_EXTRA, C_MTA, C_TIP, C_TOLLS, C_IMPROVEMENT, C_TOTAL, C_CONGESTION,
    C_AIRPORT
};

/* The columns that are NULL on flex rows. */
static bool flex_null(int c)
{
    return c == C_PASSENGERS || c == C_RATE || c == C_FLAG || c == C_CONGESTION || c == C_AIRPORT;
}

static basalt_status set_field_id(struct ArrowSchema *s, int id, struct basalt_error *err)
{
    static const char key[] = "PARQUET:field_id";
    char text[16];
    int n = snprintf(text, sizeof text, "%d", id);
    struct basalt_buffer buf;
    basalt_buffer_init(&buf);
    basalt_status st = basalt_arrow_metadata_append(&buf, key, sizeof key - 1, text, (size_t)n, err);
    if (st == BASALT_OK)
        st = basalt_arrow_schema_set_metadata(s, (const char *)buf.data, err);
    basalt_buffer_reset(&buf);
    return st;
}

basalt_status basalt_taxigen_schema(struct ArrowSchema *out, struct basalt_error *err)
{
    /* Naive microsecond timestamps (no zone), as the TLC's files hold them. */
    static const char *const formats[] = {"i", "tsu:", "g", "u"};
    basalt_status st = basalt_arrow_schema_init(out, "+s", NULL, 0, TAXIGEN_COLUMNS, err);
    for (int c = 0; c < TAXIGEN_COLUMNS && st == BASALT_OK; c++) {
        st = basalt_arrow_schema_init(out->children[c], formats[columns[c].kind], columns[c].name,
                                      ARROW_FLAG_NULLABLE, 0, err);
        if (st == BASALT_OK)
            st = set_field_id(out->children[c], c + 1, err);
    }
    if (st != BASALT_OK && out->release != NULL)
        basalt_arrow_schema_release(out);
    return st;
}

/* The buffers being filled. */
struct columns {
    int32_t *i32[TAXIGEN_COLUMNS];
    int64_t *i64[TAXIGEN_COLUMNS];
    double *f64[TAXIGEN_COLUMNS];
    uint8_t *validity[TAXIGEN_COLUMNS];
    int32_t *offsets;
    char *text;
};

static basalt_status make_columns(struct ArrowArray *out, int64_t rows, int64_t nulls,
                                  struct columns *cols, struct basalt_error *err)
{
    memset(cols, 0, sizeof *cols);
    basalt_status st = basalt_arrow_array_init(out, 1, TAXIGEN_COLUMNS, err);
    if (st != BASALT_OK)
        return st;
    out->length = rows;
    for (int c = 0; c < TAXIGEN_COLUMNS && st == BASALT_OK; c++) {
        struct ArrowArray *child = out->children[c];
        enum kind kind = columns[c].kind;
        st = basalt_arrow_array_init(child, kind == STR ? 3 : 2, 0, err);
        if (st != BASALT_OK)
            break;
        child->length = rows;
        void *p = NULL;
        /* Only a chunk that reaches the flex block has NULLs. */
        if (nulls > 0 && flex_null(c)) {
            child->null_count = nulls;
            st = basalt_arrow_array_allocate_buffer(child, 0, (size_t)basalt_bitmap_bytes(rows),
                                                    &p, err);
            cols->validity[c] = p;
        }
        size_t width = kind == I32 || kind == STR ? 4 : 8;
        if (st == BASALT_OK)
            st = basalt_arrow_array_allocate_buffer(child, 1, (size_t)(rows + (kind == STR)) * width,
                                                    &p, err);
        if (st != BASALT_OK)
            break;
        if (kind == I32)
            cols->i32[c] = p;
        else if (kind == TS)
            cols->i64[c] = p;
        else if (kind == F64)
            cols->f64[c] = p;
        else {
            cols->offsets = p;
            st = basalt_arrow_array_allocate_buffer(child, 2, (size_t)rows, &p, err);
            cols->text = p;
        }
    }
    if (st != BASALT_OK)
        basalt_arrow_array_release(out);
    return st;
}

/* Cents as the nearest double to the dollar amount (k / 100 rounds once). */
static double dollars(int64_t cents)
{
    return (double)cents / 100;
}

basalt_status basalt_taxigen_batch(const struct basalt_taxigen_zones *z,
                                   const struct basalt_taxigen_month *m, int64_t begin,
                                   int64_t end, struct ArrowArray *out, struct basalt_error *err)
{
    int64_t first_flex = m->rows - m->flex_rows;
    int64_t nulls = end > first_flex ? end - (begin > first_flex ? begin : first_flex) : 0;
    struct columns cols;
    basalt_status st = make_columns(out, end - begin, nulls, &cols, err);
    if (st != BASALT_OK)
        return st;
    int seg = basalt_taxigen_segment_of(m, begin);
    int32_t text_len = 0;
    cols.offsets[0] = 0;
    for (int64_t i = 0; i < end - begin; i++) {
        int64_t row = begin + i;
        while (m->seg_end[seg] <= row)
            seg++;
        struct basalt_taxigen_trip t;
        basalt_taxigen_trip(z, m, row, seg, &t);
        cols.i32[C_VENDOR][i] = t.vendor;
        cols.i64[C_PICKUP][i] = t.pickup_us;
        cols.i64[C_DROPOFF][i] = t.dropoff_us;
        cols.i32[C_PASSENGERS][i] = t.passengers;
        cols.f64[C_DISTANCE][i] = t.distance;
        cols.i32[C_RATE][i] = t.rate;
        if (!t.flex)
            cols.text[text_len++] = t.store_and_fwd ? 'Y' : 'N';
        cols.offsets[i + 1] = text_len;
        cols.i32[C_PU][i] = t.pickup_zone;
        cols.i32[C_DO][i] = t.dropoff_zone;
        cols.i32[C_PAYMENT][i] = t.payment;
        cols.f64[C_FARE][i] = dollars(t.fare);
        cols.f64[C_EXTRA][i] = dollars(t.extra);
        cols.f64[C_MTA][i] = dollars(t.mta_tax);
        cols.f64[C_TIP][i] = dollars(t.tip);
        cols.f64[C_TOLLS][i] = dollars(t.tolls);
        cols.f64[C_IMPROVEMENT][i] = dollars(t.improvement);
        cols.f64[C_TOTAL][i] = dollars(t.total);
        cols.f64[C_CONGESTION][i] = dollars(t.congestion);
        cols.f64[C_AIRPORT][i] = dollars(t.airport_fee);
    }
    /* Flex rows are the chunk's last `nulls` rows. */
    for (int c = 0; c < TAXIGEN_COLUMNS && nulls > 0; c++)
        if (cols.validity[c] != NULL) {
            basalt_bitmap_fill(cols.validity[c], 0, end - begin - nulls, true);
            basalt_bitmap_fill(cols.validity[c], end - begin - nulls, nulls, false);
        }
    return BASALT_OK;
}
