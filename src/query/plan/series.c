/* Series (DuckDB's range and generate_series): a source whose morsels are
 * made as the plan runs, SERIES_MORSEL rows each, so a series of billions
 * of rows holds only the morsels being worked on. A fixed step (integers,
 * or an interval without months) gives value k as start + k * step, so
 * every morsel is made on its own; a step with months is added one row at
 * a time, as TIMESTAMP + INTERVAL adds it (the day clamped to each month's
 * last), so opening the source walks the series once to find where each
 * morsel starts. */
#include <string.h>

#include "plan/run_internal.h"
#include "query_internal.h"

enum { SERIES_MORSEL = 1 << 17 };

/* The step of a fixed series in the values' unit (TIMESTAMP: microseconds);
 * false when it has months or overflows. */
static bool fixed_step(const struct basalt_qplan_series *s, int64_t *step)
{
    if (s->type.id == BASALT_QUERY_TYPE_INT64) {
        *step = s->step;
        return true;
    }
    int64_t day_us;
    if (s->interval.months != 0 ||
        __builtin_mul_overflow((int64_t)s->interval.days, INT64_C(86400000000), &day_us))
        return false;
    return !__builtin_add_overflow(day_us, s->interval.nanos / 1000, step);
}

/* Rows of a fixed series: the steps from start that stay before stop (or
 * reach it, inclusive), counted in unsigned arithmetic so that a series
 * across the whole int64 range does not overflow. */
static int64_t fixed_rows(const struct basalt_qplan_series *s, int64_t step)
{
    bool up = step > 0;
    if (up ? s->start > s->stop : s->start < s->stop)
        return 0;
    if (s->start == s->stop)
        return s->inclusive ? 1 : 0;
    uint64_t span = up ? (uint64_t)s->stop - (uint64_t)s->start
                       : (uint64_t)s->start - (uint64_t)s->stop;
    uint64_t by = up ? (uint64_t)step : 0 - (uint64_t)step;
    uint64_t n = span / by;
    if (s->inclusive || span % by != 0)
        n++;
    return n > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)n;
}

/* Whether v is still in a series going up (or down) to stop. */
static bool before_stop(const struct basalt_qplan_series *s, bool up, int64_t v)
{
    if (v == s->stop)
        return s->inclusive;
    return up ? v < s->stop : v > s->stop;
}

static bool month_step_up(const struct basalt_qplan_series *s)
{
    return s->interval.months > 0 || s->interval.days > 0 || s->interval.nanos > 0;
}

static bool add_step(const struct basalt_qplan_series *s, int64_t v, int64_t *out)
{
    return basalt_qts_add_interval(v, s->interval.months, s->interval.days, s->interval.nanos,
                                   false, out);
}

basalt_status basalt_qplan_series(struct basalt_qctx *ctx, const struct basalt_qplan_series *series,
                                  const char *name, struct basalt_qplan **out,
                                  struct basalt_error *err)
{
    *out = NULL;
    if (ctx == NULL || series == NULL || name == NULL)
        return basalt_error_set(err, BASALT_INVALID_ARG, "series: NULL argument");
    const struct basalt_qplan_series *s = series;
    if (s->type.id != BASALT_QUERY_TYPE_INT64 &&
        (s->type.id != BASALT_QUERY_TYPE_TIMESTAMP || s->type.nanos))
        return basalt_error_set(err, BASALT_INVALID_ARG,
                                "a series is of BIGINT or TIMESTAMP");
    int64_t step;
    if (!s->empty) {
        bool up = month_step_up(s);
        bool down = s->interval.months < 0 || s->interval.days < 0 || s->interval.nanos < 0;
        /* as DuckDB: a step such as '1 month -1 day' goes neither way */
        if (s->type.id == BASALT_QUERY_TYPE_TIMESTAMP && up && down)
            return basalt_error_set(err, BASALT_INVALID_ARG,
                                    "an interval step must not mix signs");
        bool months = s->type.id == BASALT_QUERY_TYPE_TIMESTAMP && s->interval.months != 0;
        if (!months && !fixed_step(s, &step))
            return basalt_error_set(err, BASALT_INVALID_ARG, "the step overflows");
        if (!months && step == 0)
            return basalt_error_set(err, BASALT_INVALID_ARG, "the step cannot be 0");
    }
    struct basalt_qplan *node;
    basalt_status st = basalt_qplan_node_new(ctx, QPLAN_SERIES, &node, err);
    struct ArrowSchema field;
    memset(&field, 0, sizeof field);
    if (st == BASALT_OK)
        st = basalt_qplan_type_field(s->type, name, false, &field, err);
    const struct ArrowSchema *fields[1] = {&field};
    if (st == BASALT_OK)
        st = basalt_qplan_struct_schema(fields, NULL, 1, &node->schema, err);
    basalt_arrow_schema_release(&field);
    if (st != BASALT_OK)
        return st;
    node->scan.series = *s;
    *out = node;
    return BASALT_OK;
}

int64_t basalt_qseries_rows(const struct basalt_qplan *node)
{
    const struct basalt_qplan_series *s = &node->scan.series;
    int64_t step;
    if (s->empty)
        return 0;
    if (fixed_step(s, &step))
        return fixed_rows(s, step);
    /* months: about 30 days each */
    double per = ((double)s->interval.months * 30 + s->interval.days) * 86400e6 +
                 (double)s->interval.nanos / 1000;
    double rows = ((double)s->stop - (double)s->start) / per;
    return rows < 0 ? 0 : rows > 9e18 ? INT64_MAX : (int64_t)rows + 1;
}

/* ------------------------------------------------------------------ running */

struct series_run {
    struct basalt_qplan *node;
    const struct basalt_qplan_series *s;
    int64_t rows;
    int64_t step;    /* fixed series */
    int64_t *starts; /* month steps: morsel m's first value */
};

static void series_run_free(void *p)
{
    struct series_run *r = p;
    if (r != NULL)
        basalt_free(r->starts);
    basalt_free(r);
}

/* A series with month steps, walked once: its rows and each morsel's first
 * value. */
static basalt_status walk_months(struct series_run *r, struct basalt_error *err)
{
    const struct basalt_qplan_series *s = r->s;
    bool up = month_step_up(s);
    int64_t cap = 16, n = 0, v = s->start;
    r->starts = basalt_malloc((size_t)cap * sizeof *r->starts);
    if (r->starts == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    while (before_stop(s, up, v)) {
        if (n % SERIES_MORSEL == 0) {
            int64_t m = n / SERIES_MORSEL;
            if (m == cap) {
                int64_t *grown = basalt_realloc(r->starts, (size_t)cap * 2 * sizeof *grown);
                if (grown == NULL)
                    return basalt_error_set(err, BASALT_NOMEM, "out of memory");
                r->starts = grown;
                cap *= 2;
            }
            r->starts[m] = v;
        }
        n++;
        if (!add_step(s, v, &v))
            break; /* past the last timestamp there is: the series ends */
    }
    r->rows = n;
    return BASALT_OK;
}

static basalt_status series_morsel(void *ctx, int64_t m, int worker, qemit_fn emit, void *emit_ctx,
                                   struct basalt_error *err)
{
    struct series_run *r = ctx;
    const struct basalt_qplan_series *s = r->s;
    int64_t first = m * SERIES_MORSEL;
    int64_t n = r->rows - first < SERIES_MORSEL ? r->rows - first : SERIES_MORSEL;
    struct ArrowArray batch, *col;
    basalt_status st = basalt_arrow_array_init(&batch, 1, 1, err);
    if (st != BASALT_OK)
        return st;
    col = batch.children[0];
    st = basalt_arrow_array_init(col, 2, 0, err);
    int64_t *v = NULL;
    if (st == BASALT_OK)
        st = basalt_arrow_array_allocate_buffer(col, 1, (size_t)n * sizeof *v, (void **)&v, err);
    if (st != BASALT_OK) {
        basalt_arrow_array_release(&batch);
        return st;
    }
    if (r->starts == NULL) {
        /* wrapping unsigned arithmetic: every value is in range */
        uint64_t x = (uint64_t)s->start + (uint64_t)first * (uint64_t)r->step;
        for (int64_t i = 0; i < n; i++, x += (uint64_t)r->step)
            v[i] = (int64_t)x;
    } else {
        v[0] = r->starts[m];
        for (int64_t i = 1; i < n; i++)
            (void)add_step(s, v[i - 1], &v[i]); /* walk_months saw these fit */
    }
    col->length = batch.length = n;
    atomic_fetch_add(&r->node->rows_out, n);
    return emit(emit_ctx, worker, m, &batch, err);
}

basalt_status basalt_qseries_open(struct basalt_qplan *node, struct qsource *src,
                                  struct basalt_error *err)
{
    struct series_run *r = basalt_calloc(1, sizeof *r);
    if (r == NULL)
        return basalt_error_set(err, BASALT_NOMEM, "out of memory");
    r->node = node;
    r->s = &node->scan.series;
    src->kind = QSRC_FN;
    src->node = node;
    src->fn = series_morsel;
    src->fn_ctx = r;
    src->fn_free = series_run_free;
    basalt_status st = BASALT_OK;
    if (r->s->empty)
        r->rows = 0;
    else if (fixed_step(r->s, &r->step))
        r->rows = fixed_rows(r->s, r->step);
    else
        st = walk_months(r, err);
    src->n_morsels = r->rows / SERIES_MORSEL + (r->rows % SERIES_MORSEL != 0);
    return st;
}
