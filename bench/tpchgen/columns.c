/* Column buffers of a generated batch, and their Arrow schema and arrays.
 * Buffers are sized once for the batch (strings by their longest value), so
 * appends are plain stores, and move into the Arrow arrays without a copy. */
#include "tpchgen.h"

static const char *format_of(enum basalt_tpchgen_kind kind)
{
    switch (kind) {
    case TPCHGEN_I32: return "i";
    case TPCHGEN_I64: return "l";
    /* decimal64: written as INT64 DECIMAL(15,2), as DuckDB writes it. */
    case TPCHGEN_MONEY: return "d:15,2,64";
    case TPCHGEN_DATE: return "tdD";
    default: return "u";
    }
}

static size_t width_of(enum basalt_tpchgen_kind kind)
{
    return kind == TPCHGEN_I64 || kind == TPCHGEN_MONEY ? 8 : 4;
}

static void *alloc64(size_t size)
{
    /* Rounded up to the alignment, never zero bytes. */
    return basalt_aligned_alloc(64, (size + 64) & ~(size_t)63);
}

basalt_status basalt_tpchgen_batch_init(struct basalt_tpchgen_batch *b,
                                        const struct basalt_tpchgen_table_spec *spec,
                                        int64_t capacity, struct basalt_error *err)
{
    memset(b, 0, sizeof *b);
    b->spec = spec;
    for (int i = 0; i < spec->num_columns; i++) {
        const struct basalt_tpchgen_column_spec *cs = &spec->columns[i];
        struct basalt_tpchgen_column *c = &b->cols[i];
        c->kind = cs->kind;
        if (cs->kind == TPCHGEN_STR) {
            c->values = alloc64((size_t)(capacity + 1) * 4);
            c->data = alloc64((size_t)capacity * (size_t)cs->max_len);
            if (c->values != NULL)
                ((int32_t *)c->values)[0] = 0;
        } else {
            c->values = alloc64((size_t)capacity * width_of(cs->kind));
        }
        if (c->values == NULL || (cs->kind == TPCHGEN_STR && c->data == NULL)) {
            basalt_tpchgen_batch_reset(b);
            return basalt_error_set(err, BASALT_NOMEM, "%s: out of memory for %lld rows",
                                    spec->name, (long long)capacity);
        }
    }
    return BASALT_OK;
}

void basalt_tpchgen_batch_reset(struct basalt_tpchgen_batch *b)
{
    if (b->spec == NULL)
        return;
    for (int i = 0; i < b->spec->num_columns; i++) {
        basalt_free(b->cols[i].values);
        basalt_free(b->cols[i].data);
    }
    memset(b, 0, sizeof *b);
}

basalt_status basalt_tpchgen_batch_finish(struct basalt_tpchgen_batch *b, struct ArrowArray *out,
                                          struct basalt_error *err)
{
    const struct basalt_tpchgen_table_spec *spec = b->spec;
    int64_t rows = b->cols[0].n;
    basalt_status st = basalt_arrow_array_init(out, 1, spec->num_columns, err);
    if (st != BASALT_OK) {
        basalt_tpchgen_batch_reset(b);
        return st;
    }
    out->length = rows;
    for (int i = 0; i < spec->num_columns && st == BASALT_OK; i++) {
        struct basalt_tpchgen_column *c = &b->cols[i];
        struct ArrowArray *child = out->children[i];
        bool str = c->kind == TPCHGEN_STR;
        st = basalt_arrow_array_init(child, str ? 3 : 2, 0, err);
        if (st != BASALT_OK)
            break;
        child->length = rows;
        /* set_buffer takes the buffer in every case, so ours are cleared
         * before the status is looked at. */
        st = basalt_arrow_array_set_buffer(child, 1, c->values, err);
        c->values = NULL;
        if (str) {
            basalt_status s2 = basalt_arrow_array_set_buffer(child, 2, c->data, err);
            c->data = NULL;
            if (st == BASALT_OK)
                st = s2;
        }
    }
    basalt_tpchgen_batch_reset(b);
    if (st != BASALT_OK)
        basalt_arrow_array_release(out);
    return st;
}

basalt_status basalt_tpchgen_schema(const struct basalt_tpchgen_table_spec *spec,
                                    struct ArrowSchema *out, struct basalt_error *err)
{
    basalt_status st = basalt_arrow_schema_init(out, "+s", NULL, 0, spec->num_columns, err);
    for (int i = 0; i < spec->num_columns && st == BASALT_OK; i++)
        st = basalt_arrow_schema_init(out->children[i], format_of(spec->columns[i].kind),
                                      spec->columns[i].name, 0, 0, err);
    if (st != BASALT_OK)
        basalt_arrow_schema_release(out);
    return st;
}

/* The spec's columns (clause 1.4.1) with DuckDB's types: keys of the big
 * tables BIGINT, nation and region keys INTEGER, money DECIMAL(15,2). */
#define COL(n, k, len) {n, TPCHGEN_##k, len}
static const struct basalt_tpchgen_column_spec region_cols[] = {
    COL("r_regionkey", I32, 0), COL("r_name", STR, 25), COL("r_comment", STR, 152)};
static const struct basalt_tpchgen_column_spec nation_cols[] = {
    COL("n_nationkey", I32, 0), COL("n_name", STR, 25), COL("n_regionkey", I32, 0),
    COL("n_comment", STR, 152)};
static const struct basalt_tpchgen_column_spec supplier_cols[] = {
    COL("s_suppkey", I64, 0), COL("s_name", STR, 25),   COL("s_address", STR, 40),
    COL("s_nationkey", I32, 0), COL("s_phone", STR, 15), COL("s_acctbal", MONEY, 0),
    COL("s_comment", STR, 101)};
static const struct basalt_tpchgen_column_spec customer_cols[] = {
    COL("c_custkey", I64, 0),   COL("c_name", STR, 25),        COL("c_address", STR, 40),
    COL("c_nationkey", I32, 0), COL("c_phone", STR, 15),       COL("c_acctbal", MONEY, 0),
    COL("c_mktsegment", STR, 10), COL("c_comment", STR, 117)};
static const struct basalt_tpchgen_column_spec part_cols[] = {
    COL("p_partkey", I64, 0), COL("p_name", STR, 55),        COL("p_mfgr", STR, 25),
    COL("p_brand", STR, 10),  COL("p_type", STR, 25),        COL("p_size", I32, 0),
    COL("p_container", STR, 10), COL("p_retailprice", MONEY, 0), COL("p_comment", STR, 23)};
static const struct basalt_tpchgen_column_spec partsupp_cols[] = {
    COL("ps_partkey", I64, 0), COL("ps_suppkey", I64, 0), COL("ps_availqty", I64, 0),
    COL("ps_supplycost", MONEY, 0), COL("ps_comment", STR, 199)};
static const struct basalt_tpchgen_column_spec orders_cols[] = {
    COL("o_orderkey", I64, 0),     COL("o_custkey", I64, 0),      COL("o_orderstatus", STR, 1),
    COL("o_totalprice", MONEY, 0), COL("o_orderdate", DATE, 0),   COL("o_orderpriority", STR, 15),
    COL("o_clerk", STR, 15),       COL("o_shippriority", I32, 0), COL("o_comment", STR, 79)};
static const struct basalt_tpchgen_column_spec lineitem_cols[] = {
    COL("l_orderkey", I64, 0),      COL("l_partkey", I64, 0),       COL("l_suppkey", I64, 0),
    COL("l_linenumber", I64, 0),    COL("l_quantity", MONEY, 0),    COL("l_extendedprice", MONEY, 0),
    COL("l_discount", MONEY, 0),    COL("l_tax", MONEY, 0),         COL("l_returnflag", STR, 1),
    COL("l_linestatus", STR, 1),    COL("l_shipdate", DATE, 0),     COL("l_commitdate", DATE, 0),
    COL("l_receiptdate", DATE, 0),  COL("l_shipinstruct", STR, 25), COL("l_shipmode", STR, 10),
    COL("l_comment", STR, 44)};
#undef COL

#define SPEC(var, name, cols) \
    const struct basalt_tpchgen_table_spec var = {name, cols, (int)(sizeof cols / sizeof cols[0])}
SPEC(basalt_tpchgen_region_spec, "region", region_cols);
SPEC(basalt_tpchgen_nation_spec, "nation", nation_cols);
SPEC(basalt_tpchgen_supplier_spec, "supplier", supplier_cols);
SPEC(basalt_tpchgen_customer_spec, "customer", customer_cols);
SPEC(basalt_tpchgen_part_spec, "part", part_cols);
SPEC(basalt_tpchgen_partsupp_spec, "partsupp", partsupp_cols);
SPEC(basalt_tpchgen_orders_spec, "orders", orders_cols);
SPEC(basalt_tpchgen_lineitem_spec, "lineitem", lineitem_cols);
