/* Window internals shared by the window files: flat views of columns over
 * all sorted rows, the per-row boundary marks, and the per-call outputs. */
#ifndef BASALT_QUERY_WINDOW_IMPL_H
#define BASALT_QUERY_WINDOW_IMPL_H

#include <stdatomic.h>

#include "query_internal.h"
#include "window/window.h"

/* A column flattened over every sorted row, so the functions index rows
 * 0..n-1 without knowing the batches. Strings are views into the batches. */
enum qw_vkind { QWV_I64, QWV_U64, QWV_F64, QWV_DEC, QWV_STR };

/* What a view is for: how floats are turned into comparable words. */
enum qw_purpose {
    QWP_KEY,   /* equality: floats as bits with -0.0 = 0.0 and one NaN */
    QWP_ORDER, /* MIN/MAX: floats as ordered bits, -0.0 below 0.0, NaN above all */
    QWP_NUM,   /* SUM/AVG: floats as doubles */
    QWP_VALID  /* COUNT: the validity only (data NULL), any type */
};

struct qw_view {
    enum qw_vkind kind;
    void *data;     /* n values: int64_t, uint64_t, double, qi128 or struct qstr */
    uint8_t *valid; /* n bytes, 1 = not NULL; NULL when no row is NULL */
    int scale;      /* DECIMAL */
};

/* The sorted input. */
struct qw_input {
    const struct ArrowSchema *schema;
    struct ArrowArray *batches;
    int64_t n_batches;
    int64_t *start; /* n_batches + 1 row offsets */
    int64_t n;      /* rows */
};

/* Boundary marks per row. */
#define QW_PART 2 /* the row starts a partition */
#define QW_PEER 1 /* the row starts a peer group (order keys differ from the row before) */

enum qw_okind {
    QWO_I64, /* BIGINT values */
    QWO_F64, /* DOUBLE values */
    QWO_DEC, /* DECIMAL(38,s) values (qi128) */
    QWO_SRC  /* a source row per output row, gathered from the argument */
};

/* A source row of QWO_SRC: >= 0 the argument's row, QW_SRC_NULL NULL,
 * QW_SRC_DEFAULT(i) the default column's row i, QW_SRC_CARRY the value a
 * stretch's earlier rows left (a running MIN/MAX, struct qw_carry_call). */
#define QW_SRC_NULL (-1)
#define QW_SRC_DEFAULT(i) (-2 - (i))
#define QW_SRC_CARRY INT64_MIN

/* A running sum: integers and DECIMAL exact in 128 bits (wide DECIMAL keeps
 * the low and high halves apart), DOUBLE in double-double with NaN and the
 * infinities counted apart. */
struct qw_acc {
    qi128 sum;     /* integers and DECIMAL; wide DECIMAL: sum of the low halves */
    qi128 hi;      /* wide DECIMAL: sum of the high halves */
    double dh, dl; /* DOUBLE: double-double sum of the finite values */
    int64_t cnt, nan, pinf, ninf;
};

/* What the rows of a partition before the held ones leave to one call
 * (window_stretch.c): the sum over them of a running COUNT/SUM/AVG; one row
 * of the input (`row`): the best of a running MIN/MAX (with `row_view`
 * over its argument, to compare with), the first (n-th) of a FIRST_VALUE
 * (NTH_VALUE) from the partition's start. */
struct qw_carry_call {
    struct qw_acc prefix;
    bool has_row;
    struct ArrowArray row;
    struct qw_view row_view;
    /* Frames to the partition's end, once the partition was read to its
     * end (basalt_qwin_carry_whole_add): the sum over all its rows of a
     * COUNT/SUM/AVG; its best row of a MIN/MAX over the whole partition,
     * its last row of a LAST_VALUE, its n-th of an NTH_VALUE over the whole
     * partition (none: has_end_row false). */
    struct qw_acc whole;
    bool has_end_row;
    struct ArrowArray end_row;
    struct qw_view end_view;
};

struct qw_call {
    const struct basalt_qplan_window_call *c;
    enum qw_okind okind;
    void *vals;        /* n values (int64_t, double, qi128 or int64_t sources) */
    uint8_t *valid;    /* n bytes; NULL: never NULL */
    struct qw_view arg;      /* MIN/MAX (ORDER), SUM/AVG (NUM), COUNT (validity only) */
    bool wide;               /* SUM/AVG of DECIMAL beyond 18 digits: split sums */
    qi128 limit;             /* 10^38: SUM results must stay below it */
    double scale;            /* AVG of DECIMAL: 10^scale */
    atomic_llong overflow;   /* first row whose SUM left DECIMAL(38), or -1 */
    /* RANGE with offsets (window_range.c): the order key and each row's
     * bounds (key -/+ offset), all of one type, viewed as keys */
    bool ranged;
    bool desc;               /* the key descends: the bounds were moved the other way */
    struct qw_view rkey, rlo, rhi;
};

struct qw_run {
    const struct basalt_qwin_spec *spec;
    /* NULL, or the held rows are a stretch of one partition whose earlier
     * rows this sums up (basalt_qwin_compute_stretch) */
    struct basalt_qwin_carry *carry;
    struct qw_input in;
    uint8_t *bnd;
    int64_t *parts; /* partition starts, then n */
    int64_t n_parts;
    struct qw_call *calls;
    int64_t **deque;      /* per worker scratch for MIN/MAX: two deques of the longest partition */
    int64_t deque_cap;    /* entries of one deque */
    int workers;
    atomic_llong whole, running, sliding, pushes, range_compares;
};

/* window_view.c */
basalt_status basalt_qw_view(const struct qw_input *in, int col, enum qw_purpose p,
                             struct basalt_pool *pool, int workers, struct qw_view *out,
                             struct basalt_error *err);
void basalt_qw_view_free(struct qw_view *v);
/* A view of n rows of type t for purpose p, its data (and, with `nulls`,
 * its validity) allocated and unset; basalt_qw_view_fill sets rows [base,
 * base + a->length) from array a of that type. */
basalt_status basalt_qw_view_new(struct basalt_query_type t, enum qw_purpose p, int64_t n,
                                 bool nulls, struct qw_view *out, struct basalt_error *err);
void basalt_qw_view_fill(struct qw_view *v, struct basalt_query_type t, enum qw_purpose p,
                         const struct ArrowArray *a, int64_t base);
/* Marks bnd[i] |= QW_PEER (or `mark`) where row i's value differs from row
 * i-1's, for rows [lo, hi) (lo >= 1). */
void basalt_qw_mark(const struct qw_view *v, uint8_t mark, int64_t lo, int64_t hi, uint8_t *bnd);

/* window_frame.c: a row's frame, the rows [fs, fe) of its partition less
 * the rows [xs, xe) EXCLUDE takes out (xs == xe: none; fs <= xs <= xe <=
 * fe), plus the current row `self` when EXCLUDE TIES puts it back (-1
 * otherwise). So the frame is [fs, xs), self, [xe, fe) in that order. From
 * one row to the next fs, fe, xs and xe never decrease. */
struct qw_frame {
    int64_t fs, fe, xs, xe, self;
};

/* A frame's bound counted in peer groups (GROUPS offsets): the first row of
 * the group `d` groups from the current row's, clipped to the partition. */
struct qw_gcur {
    int64_t pos;  /* that row */
    int64_t wait; /* groups the current row still has to move before pos moves */
};

/* The frames of one call along one partition, row after row. */
struct qw_fcur {
    const struct basalt_qplan_window_call *c;
    const struct qw_call *k;
    const uint8_t *bnd;
    bool has_order;
    int64_t s, e;
    int64_t plo, phi; /* the current row's peer group */
    int64_t vs, ve;   /* RANGE offsets: the rows whose key is not NULL */
    int64_t ra, rb;   /* RANGE offsets: the last start and end found */
    int64_t compares; /* RANGE offsets: keys compared finding them */
    struct qw_gcur ga, gb; /* GROUPS offsets: the start and the end */
    atomic_llong *total;   /* where basalt_qw_fcur_done adds `compares` */
};

/* Starts the frames of call k over partition [s, e). */
void basalt_qw_fcur_init(struct qw_fcur *f, struct qw_run *r, const struct qw_call *k,
                         int64_t s, int64_t e);
/* Row i's frame; rows are asked in order, s first. */
void basalt_qw_fcur_next(struct qw_fcur *f, int64_t i, struct qw_frame *out);
/* Counts the partition's key comparisons into the run's statistics. */
void basalt_qw_fcur_done(struct qw_fcur *f);
/* Whether the call's frame is the whole partition for every row, or starts
 * at the partition for every row (EXCLUDE aside: the rows it takes out are
 * not counted). */
bool basalt_qw_frame_whole(const struct basalt_qplan_window_call *c, bool has_order);
bool basalt_qw_frame_running(const struct basalt_qplan_window_call *c, bool has_order);
/* Whether a frame ends at the partition's end (the whole partition too). */
bool basalt_qw_frame_to_end(const struct basalt_qplan_window_call *c, bool has_order);
/* The row a call's QW_SRC_CARRY names in a stretch: its value over the
 * partition's end when the carry knows it, else the running one; NULL for
 * none. */
const struct ArrowArray *basalt_qw_carried_row(const struct qw_run *r, int call);
/* Whether a call in a stretch takes its value over the partition's end
 * from the carry (basalt_qwin_carry_whole_add was given the partition). */
bool basalt_qw_reads_end(const struct qw_run *r, const struct qw_call *k);
/* Whether the call's frame is RANGE with a PRECEDING or FOLLOWING offset. */
bool basalt_qw_frame_ranged(const struct basalt_qplan_window_call *c);

/* window_range.c: checks a RANGE frame's offsets against the order keys
 * (basalt_qwin_check_call), and makes call k's key and bound views over
 * the sorted rows (key column order_col, descending or not). */
basalt_status basalt_qw_range_check(const struct ArrowSchema *schema,
                                    const struct basalt_qplan_sort_key *order, int n_order,
                                    const struct basalt_qplan_window_call *c,
                                    struct basalt_error *err);
basalt_status basalt_qw_range_views(struct qw_run *r, struct qw_call *k, int order_col, bool desc,
                                    struct basalt_pool *pool, struct basalt_error *err);

/* The end of the peer group starting at lo in partition [lo, e). */
static inline int64_t basalt_qw_peer_end(const uint8_t *bnd, int64_t lo, int64_t e)
{
    int64_t hi = lo + 1;
    while (hi < e && bnd[hi] == 0)
        hi++;
    return hi;
}

/* The carry of a stretch: what the partition's rows before the held ones
 * leave (window_stretch.c). */
struct basalt_qwin_carry {
    int64_t first; /* the partition's rows before the held ones */
    int64_t rows;  /* the partition's rows, 0 when not known */
    int64_t dense; /* DENSE_RANK of the first held row, less one */
    bool whole;    /* the calls' values over the partition's end are known */
    int64_t whole_seen; /* rows basalt_qwin_carry_whole_add has taken in */
    int n_calls;
    struct qw_carry_call *calls;
};

/* window_stretch.c: after a stretch is computed, the carry takes in the
 * first `advance` held rows (the next stretch holds the rows after them). */
basalt_status basalt_qw_carry_advance(struct qw_run *r, int64_t advance, struct basalt_error *err);

/* window_agg.c: whether a SUM/AVG over `arg` (a view of column `field`)
 * keeps a DECIMAL's 64-bit halves apart (beyond 18 digits). */
bool basalt_qw_sum_wide(const struct ArrowSchema *field, const struct qw_view *arg);
/* window_agg.c: adds row i's argument to a running sum. */
void basalt_qw_acc_add(struct qw_acc *a, const struct qw_call *k, int64_t i);
/* < 0 when row a of view va orders before row b of view vb (MIN/MAX). */
int basalt_qw_cmp_rows(const struct qw_view *va, int64_t a, const struct qw_view *vb, int64_t b);

/* window_rank.c, window_agg.c, window_value.c: one call over partition
 * [s, e). basalt_qw_agg uses worker's deque, counts deque pushes in *pushes
 * and returns how it ran: 0 once for the whole partition, 1 a running frame,
 * 2 a frame whose both ends move. */
void basalt_qw_rank(struct qw_run *r, struct qw_call *k, int64_t s, int64_t e);
int basalt_qw_agg(struct qw_run *r, struct qw_call *k, int64_t s, int64_t e, int worker,
                  int64_t *pushes);
void basalt_qw_value(struct qw_run *r, struct qw_call *k, int64_t s, int64_t e);

#endif
