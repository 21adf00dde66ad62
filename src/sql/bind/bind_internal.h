/* The binder: syntax trees into query plans.
 *
 * Every column a query can name gets a global id (gid) when its relation is
 * bound: a base table's columns, a subquery's outputs, a group key, an
 * aggregate. A scope maps names to gids; a relation is a plan node with the
 * gid of each output column. Expressions resolve names through the scope
 * and are lowered onto whichever node they end up on by looking their gids
 * up in its relation, which lets the planner place WHERE conjuncts and join
 * conditions where they belong before it builds them. */
#ifndef BASALT_SQL_BIND_INTERNAL_H
#define BASALT_SQL_BIND_INTERNAL_H

#include "basalt/catalog.h"
#include "basalt/iceberg_catalog.h"
#include "basalt/query_plan.h"
#include "basalt/sql.h"
#include "sql_ast.h"

/* A column visible to expressions. */
struct bcol {
    const char *table; /* the relation's alias or name (lower-cased), or NULL */
    const char *name;
    int32_t gid;
    int32_t rel;       /* the FROM relation it belongs to */
    bool hidden;       /* the right side of USING: only qualified names reach it */
    bool internal;     /* a key a rewrite joins on (LATERAL): no `*` reaches it */
};

struct bscope {
    struct bcol *cols;
    int n, cap;
    /* Names not found here are looked up there (a correlated subquery's
     * outer query). NULL: none. */
    const struct bscope *outer;
};

/* A plan node and the gid of each of its output columns. */
/* A column of a decorrelated aggregate and its value over no rows
 * (bind_empty_value.c). */
struct bempty {
    int32_t gid;
    struct basalt_query_value value;
};

struct brel {
    struct basalt_qplan *node;
    int32_t *gids;
    int n;
    double rows; /* estimated */
    /* rows come from a table's row count (and its filters' estimates), not
     * from the guesses for joins, aggregates and subqueries */
    bool table_rows;
    /* The FROM item a relation of the FROM list was bound from, when it is
     * one table (a name, a file or a table function; NULL for joins,
     * subqueries and anything derived). */
    const struct basalt_sql_from *leaf;
    /* A LATERAL over an aggregate without GROUP BY (bind_lateral.c): LEFT
     * joined on its correlation equalities (left_on) after the other
     * relations of its FROM list, so that every outer row has its row; its
     * columns `empty` read their value over no rows where the join found
     * no row (its first key, key_gid, NULL). */
    const struct basalt_sql_expr **left_on;
    int n_left_on;
    const struct bempty *empty;
    int n_empty;
    int32_t key_gid;
};

/* What a correlated subquery may read of its outer query's FROM to narrow
 * its own input (bind_narrow.c): the FROM item of each relation of the FROM
 * list (brel.leaf, taken before IN conditions are joined onto them) and
 * every conjunct of the WHERE, as written. */
struct bouter {
    const struct basalt_sql_from *const *leaves;
    int n;
    const struct basalt_sql_expr *const *conj;
    int nc;
    /* the whole FROM, bound again for the outer values a subquery
     * correlated by other than equalities is computed for
     * (bind_subquery_nonequal.c) */
    const struct basalt_sql_from *whole;
};

/* An expression replaced by a column after aggregation: its canonical text
 * (group keys, aggregate calls) and the gid holding its value. */
struct brepl {
    const char *text;
    int32_t gid;
    bool zero_if_null; /* a correlated EXISTS: a key with no rows is FALSE */
    /* a correlated aggregate: its value over no rows (NULL: the join's
     * NULL stands), read where the key column key_gid is NULL */
    const struct basalt_query_value *empty;
    int32_t key_gid;
    /* an item that reads the outer query as well (bind_subquery_nonequal.c):
     * its value over no rows is this expression over the outer columns,
     * read where key_gid is NULL (NULL: none) */
    const struct basalt_sql_expr *empty_expr;
};

/* A table registered in a session (in-memory batches, read by views). */
struct bmem_table {
    char *name;
    struct basalt_arrow_batches batches;
};

struct basalt_sql_session {
    struct basalt_sql_options o;
    char *catalog_uri;
    char *spill_dir; /* owned copy of o.spill_dir */
    struct basalt_catalog *catalog;
    struct basalt_io_store *own_store; /* when the options gave none */
    struct bmem_table *tables;
    int n_tables, cap_tables;
    int64_t next_frame; /* names of registered frames */
    struct basalt_sql_stats last; /* of the last statement that read tables */
};

struct binder {
    struct basalt_sql_session *session;
    struct basalt_qctx *ctx;
    const char *text; /* the query, for messages */
    struct basalt_arena arena;
    int32_t next_gid;
    /* CTEs in scope, innermost last, and whether each is computed once
     * (bind_cte.c) */
    struct bcte_scope {
        const struct basalt_sql_cte *cte;
        bool once;
        /* A recursive CTE's rows of the step being computed
         * (bind_recursive.c): the name reads these, named `names`. */
        const struct basalt_arrow_batches *rows;
        const char **names;
    } *ctes;
    int n_ctes, cap_ctes;
    struct bcte_rows *cte_rows; /* the ones computed so far */
    int n_cte_rows, cap_cte_rows;
    /* tables loaded for this query (freed with it) */
    struct basalt_iceberg_table **tables;
    int n_tables, cap_tables;
    /* Correlated subqueries turned into joins: their text and the column
     * that holds their value (consulted by every lowering). */
    struct brepl *repl;
    int n_repl, cap_repl;
    /* Those of them that are one value a row (no aggregate): the column
     * counting the rows of its key, which must be at most 1 where read. */
    struct bmany {
        int32_t value_gid, rows_gid;
    } *many;
    int n_many, cap_many;
    int n_unnamed; /* subqueries in FROM given a name (bind_from.c) */
    /* Distinct-value bounds of base columns by gid (-1 unknown), for join
     * ordering. */
    int64_t *ndv;
    int32_t cap_ndv;
};

/* What lowering an expression needs. */
struct blower {
    struct binder *B;
    const struct bscope *scope;
    const struct brel *target;
    struct basalt_qexpr_builder *b;
    const struct brepl *repl;
    int n_repl;
    const char *clause; /* "WHERE", "SELECT"... for messages */
};

/* bind.c */
basalt_status basalt_sql_err(struct binder *B, basalt_status st, int32_t pos,
                             struct basalt_error *err, const char *fmt, ...) BASALT_PRINTF(5, 6);
int32_t basalt_sql_gid(struct binder *B);
basalt_status basalt_sql_scope_add(struct bscope *s, const char *table, const char *name,
                                   int32_t gid, int32_t rel, struct basalt_error *err);
void basalt_sql_scope_reset(struct bscope *s);
/* The gid a column name resolves to; NOT_FOUND / ambiguity as errors. */
basalt_status basalt_sql_resolve(struct binder *B, const struct bscope *s,
                                 const struct basalt_sql_name *name, int32_t pos,
                                 const struct bcol **out, struct basalt_error *err);
/* A relation over `node` with fresh gids. */
basalt_status basalt_sql_rel_new(struct binder *B, struct basalt_qplan *node, struct brel *out,
                                 struct basalt_error *err);
/* Records the distinct-value bound of every column of a new base relation. */
void basalt_sql_note_ndv(struct binder *B, const struct brel *rel);
int64_t basalt_sql_ndv(const struct binder *B, int32_t gid);
/* The canonical text of an expression in B's arena. */
const char *basalt_sql_text(struct binder *B, const struct basalt_sql_expr *e);
/* Whether e calls an aggregate (not as a window function). */
bool basalt_sql_has_aggregate(struct binder *B, const struct basalt_sql_expr *e);

/* bind_alias.c: e with the select list's aliases that name no column (in
 * HAVING: no GROUP BY column) replaced by their expressions (WHERE, HAVING,
 * QUALIFY); e itself when none. */
basalt_status basalt_sql_with_aliases(struct binder *B, const struct bscope *scope,
                                      const struct basalt_sql_select *s, bool having,
                                      const struct basalt_sql_expr *e,
                                      const struct basalt_sql_expr **out, struct basalt_error *err);
/* e with the aliases replaced inside its window calls only (ORDER BY). */
basalt_status basalt_sql_with_window_aliases(struct binder *B, const struct bscope *scope,
                                             const struct basalt_sql_select *s,
                                             const struct basalt_sql_expr *e,
                                             const struct basalt_sql_expr **out,
                                             struct basalt_error *err);
/* Select item `item` with the aliases of the items before it bound in
 * place of the names that are no column (DuckDB's lateral aliases). */
basalt_status basalt_sql_with_lateral_aliases(struct binder *B, const struct bscope *scope,
                                              const struct basalt_sql_select *s, int item,
                                              const struct basalt_sql_expr **out,
                                              struct basalt_error *err);

/* bind_grouping.c: GROUPING SETS, ROLLUP, CUBE and GROUPING() calls. */
struct bgrouping {
    bool active;        /* grouping sets, or GROUPING() calls: the aggregation is the one below */
    int n_sets;
    uint64_t *sets;     /* a bit per distinct key */
    int n_calls;        /* the GROUPING() calls, one per text */
    const struct basalt_sql_expr **calls;
    const char **texts;
    int64_t *values;    /* values[set * n_calls + call] */
};
bool basalt_sql_is_grouping_call(const struct basalt_sql_expr *e);
/* The sets of s's GROUP BY over its keys keys[0, *nk) (the select's group
 * as the binder resolved them; those of grouping sets made distinct in
 * place, *nk lowered) and the GROUPING() calls in uses[0, n_uses) (select
 * list, HAVING, ORDER BY), with their values. */
basalt_status basalt_sql_grouping_prepare(struct binder *B, const struct basalt_sql_select *s,
                                          const struct bscope *scope,
                                          const struct basalt_sql_expr **keys, int *nk,
                                          const struct basalt_sql_expr *const *uses, int n_uses,
                                          struct bgrouping *G, struct basalt_error *err);
/* The aggregation of `in` by G's sets: the keys (NULL in a set without
 * them), the aggregates, then each GROUPING() call's value. */
basalt_status basalt_sql_grouping_aggregate(struct binder *B, const struct bgrouping *G,
                                            struct basalt_qplan *in,
                                            struct basalt_qexpr *const *keys,
                                            const char *const *knames, int nk,
                                            const struct basalt_qplan_agg_call *calls, int nc,
                                            struct basalt_qplan **out, struct basalt_error *err);
void basalt_sql_grouping_reset(struct bgrouping *G);

/* bind_distinct.c: q with its DISTINCT aggregates (no GROUP BY) over a
 * query grouped by their argument; NULL when q is not one to split. */
const struct basalt_sql_query *basalt_sql_split_distinct(struct binder *B,
                                                         const struct basalt_sql_query *q);
/* The output name of a select item: its alias, column name or text. */
const char *basalt_sql_item_name(struct binder *B, const struct basalt_sql_select_item *it);

/* bind_share.c: q over a CTE of its FROM and WHERE when an uncorrelated
 * scalar subquery of its select list or HAVING repeats them; NULL when
 * not. */
const struct basalt_sql_query *basalt_sql_share_from(struct binder *B,
                                                     const struct basalt_sql_query *q);

/* bind_cte.c */
/* Puts q's CTEs in scope (the caller restores n_ctes after q). */
basalt_status basalt_sql_ctes_push(struct binder *B, const struct basalt_sql_query *q,
                                   struct basalt_error *err);
/* The CTE in scope that a one-part table name names, innermost first; -1. */
int basalt_sql_cte_find(const struct binder *B, const struct basalt_sql_name *n);
/* The relation and column names of a reference to the CTE in scope at k:
 * planned again, or read from its rows computed once. */
basalt_status basalt_sql_cte_bind(struct binder *B, int k, struct brel *rel, const char ***names,
                                  struct basalt_error *err);
/* Frees the scope and the computed rows (views of them may live on). */
void basalt_sql_ctes_reset(struct binder *B);

/* bind_expr.c */
basalt_status basalt_sql_lower(struct blower *L, const struct basalt_sql_expr *e,
                               struct basalt_qexpr **out, struct basalt_error *err);
basalt_status basalt_sql_type_of(struct binder *B, const struct basalt_sql_type *t,
                                 struct basalt_query_type *out, struct basalt_error *err);

/* bind_values.c: row k of an Arrow column of type t into *v (strings are
 * views into the column); `x [NOT] IN (rows of a one-column result)`. */
basalt_status basalt_sql_value_at(const struct ArrowArray *col, struct basalt_query_type t,
                                  int64_t k, struct basalt_query_value *v,
                                  struct basalt_error *err);
basalt_status basalt_sql_in_rows(struct blower *L, const struct basalt_sql_expr *e,
                                 const struct basalt_arrow_batches *rows,
                                 struct basalt_qexpr **out, struct basalt_error *err);

/* bind_distinct_on.c: q (a SELECT with DISTINCT ON) as the query with a
 * QUALIFY row_number() = 1 over the ON keys in its ORDER BY's order. */
basalt_status basalt_sql_distinct_on(struct binder *B, const struct basalt_sql_query *q,
                                     const struct basalt_sql_query **out, struct basalt_error *err);
/* bind_cte.c: how many times q reads the table `name`. */
int basalt_sql_query_uses(const struct basalt_sql_query *q, const char *name);
/* bind_recursive.c: the rows of a recursive CTE (anchor UNION [ALL] step,
 * the step run on the rows the last step gave until it gives none) into
 * *rows, its column names into *names. */
basalt_status basalt_sql_recursive_rows(struct binder *B, const struct basalt_sql_cte *cte,
                                        struct basalt_arrow_batches *rows, const char ***names,
                                        struct basalt_error *err);
/* bind_constant.c: the value of an expression without columns, cast to
 * `to` (NULL: its own type; a NULL stays NULL); `what` names it in errors
 * ("LIMIT"). INVALID_ARG when it is not constant or does not cast. */
basalt_status basalt_sql_constant(struct binder *B, const struct basalt_sql_expr *e,
                                  const struct basalt_query_type *to, const char *what,
                                  struct basalt_query_value *out, struct basalt_error *err);
/* bind_series.c: range(...) and generate_series(...) in FROM. */
bool basalt_sql_is_series(const char *function);
basalt_status basalt_sql_bind_series(struct binder *B, const struct basalt_sql_call *c,
                                     int32_t pos, struct basalt_qplan **out,
                                     struct basalt_error *err);

/* bind_query.c */
/* Binds a query into a relation; names[i] (arena) are its output names. */
/* q with its GROUP BY and ORDER BY numbers read as DuckDB reads them
 * (bind_ordinal.c): a minus folded into the ordinal, ORDER BY a literal
 * that is not an integer refused. *out is q when nothing changes. */
/* Whether e is a literal DuckDB refuses as an ORDER BY key: a number that
 * is no integer (under minus signs too), a string or NULL. */
bool basalt_sql_non_integer_literal(const struct basalt_sql_expr *e);
basalt_status basalt_sql_fold_ordinals(struct binder *B, const struct basalt_sql_query *q,
                                       const struct basalt_sql_query **out, struct basalt_error *err);
basalt_status basalt_sql_bind_query(struct binder *B, const struct basalt_sql_query *q,
                                    struct brel *out, const char ***names,
                                    struct basalt_error *err);
/* Runs a plan now (uncorrelated subqueries) into batches. */
basalt_status basalt_sql_run_now(struct binder *B, const struct basalt_sql_query *q,
                                 struct basalt_arrow_batches *out, struct basalt_error *err);

/* bind_join.c */
/* The FROM relations a conjunct reads (bit per relation index). */
uint64_t basalt_sql_refs(struct binder *B, const struct bscope *s, const struct basalt_sql_expr *e);
/* Filters rel by the AND of conj[0, n). */
basalt_status basalt_sql_filter(struct binder *B, const struct bscope *scope, struct brel *rel,
                                const struct basalt_sql_expr *const *conj, int n,
                                const char *clause, struct basalt_error *err);
bool basalt_sql_wider(struct basalt_query_type a, struct basalt_query_type b);
/* Joins left (relations lmask) and right (rmask) on the conjuncts not yet
 * used that they cover (marking them used). */
basalt_status basalt_sql_join_pair(struct binder *B, const struct bscope *scope,
                                   enum basalt_qplan_join_type type, struct brel *left,
                                   uint64_t lmask, struct brel *right, uint64_t rmask,
                                   const struct basalt_sql_expr *const *conj, int n, bool *used,
                                   struct brel *out, struct basalt_error *err);
/* Filters and joins every relation into one. */
basalt_status basalt_sql_plan_joins(struct binder *B, const struct bscope *scope,
                                    struct brel *rels, int n_rels,
                                    const struct basalt_sql_expr *const *conj, int n_conj,
                                    struct brel *out, struct basalt_error *err);

/* bind_window.c: whether e calls a window function (outside subqueries). */
bool basalt_sql_has_window(struct binder *B, const struct basalt_sql_expr *e);
/* w with the named window it builds on (OVER w, OVER (w ORDER BY x))
 * merged in: *out has no ref. NOT_FOUND for a name the WINDOW clause lacks. */
basalt_status basalt_sql_resolve_window(struct binder *B, const struct basalt_sql_select *s,
                                        const struct basalt_sql_window *w,
                                        struct basalt_sql_window *out, struct basalt_error *err);
/* bind_window.c: the window calls of exprs (select list, ORDER BY,
 * QUALIFY), each window as a projection and a window node on rel; the calls'
 * text mapped to their columns in *repl. */
struct basalt_sql_select;
basalt_status basalt_sql_bind_windows(struct binder *B, const struct bscope *scope,
                                      const struct basalt_sql_select *s,
                                      const struct basalt_sql_expr *const *exprs, int n,
                                      struct brel *rel, struct brepl **repl, int *n_repl,
                                      struct basalt_error *err);

/* bind_unnest.c: the unnest calls of the select list's exprs, as an UNNEST
 * node on rel (after the projection that computes their lists); each
 * call's text mapped to its element column in *repl. */
basalt_status basalt_sql_bind_unnests(struct binder *B, const struct bscope *scope,
                                      const struct basalt_sql_expr *const *exprs, int n,
                                      struct brel *rel, struct brepl **repl, int *n_repl,
                                      struct basalt_error *err);

/* bind_or.c: adds the conditions each OR of F's conjuncts implies (a
 * conjunct common to every branch; per table, the OR of the branches' parts
 * over that table alone). */
struct bfrom;
basalt_status basalt_sql_factor_ors(struct binder *B, const struct bscope *scope, struct bfrom *F,
                                    struct basalt_error *err);

/* bind_star.c: * EXCLUDE names checked, * REPLACE and COLUMNS(...) in the
 * select list (and COLUMNS in WHERE) expanded over the FROM's columns;
 * *s becomes the rewritten select when there was anything to expand. */
/* q with each ORDER BY key holding COLUMNS(...) expanded into one key per
 * column (bind_star.c); *q unchanged when none does. */
basalt_status basalt_sql_expand_order_columns(struct binder *B, const struct bscope *scope,
                                              const struct basalt_sql_query **q,
                                              struct basalt_error *err);
/* Whether the star `star` (STAR node) excludes scope column c: its
 * EXCLUDE names c, by name or as `t.name` of c's table (bind_star.c). */
bool basalt_sql_star_excludes(const struct basalt_sql_expr *star, const struct bcol *c);
basalt_status basalt_sql_expand_stars(struct binder *B, const struct bscope *scope,
                                      const struct basalt_sql_select **s, struct basalt_error *err);
/* s with each x [NOT] IN (subquery) of its items, WHERE and HAVING whose
 * subquery reads `scope` rewritten as a correlated scalar subquery
 * (bind_in_correlated.c); s unchanged when there is none. */
basalt_status basalt_sql_correlated_in(struct binder *B, const struct bscope *scope,
                                       const struct basalt_sql_select **s,
                                       struct basalt_error *err);

/* ast_build.c: trees the binder writes (in B's arena, NULL when out of
 * memory or given a NULL operand); shared() views a script node as the
 * non-const pointer the tree types hold. */
struct basalt_sql_expr *basalt_sql_ast_shared(const struct basalt_sql_expr *e);
/* e with nodes replaced: fn sees each node from the top and says whether
 * to replace it (*out), keep it whole or look at its children; nodes
 * above a replaced one are copied, the rest shared. Subqueries are not
 * entered; an aggregate's FILTER and a window's clauses neither. */
enum basalt_sql_replace { BASALT_SQL_DESCEND, BASALT_SQL_REPLACE, BASALT_SQL_KEEP };
typedef enum basalt_sql_replace (*basalt_sql_replace_fn)(void *ctx, const struct basalt_sql_expr *e,
                                                        struct basalt_sql_expr **out);
basalt_status basalt_sql_ast_replace(struct binder *B, const struct basalt_sql_expr *e,
                                     basalt_sql_replace_fn fn, void *ctx,
                                     const struct basalt_sql_expr **out, struct basalt_error *err);
/* table.name, or name alone when table is NULL. */
struct basalt_sql_expr *basalt_sql_ast_column(struct binder *B, const char *table,
                                              const char *name, int32_t pos);
struct basalt_sql_expr *basalt_sql_ast_integer(struct binder *B, int64_t value, int32_t pos);
/* name(arg), or count(*) when arg is NULL. */
struct basalt_sql_expr *basalt_sql_ast_call(struct binder *B, const char *name,
                                            const struct basalt_sql_expr *arg);
struct basalt_sql_expr *basalt_sql_ast_bool(struct binder *B, bool value, int32_t pos);
struct basalt_sql_expr *basalt_sql_ast_binary(struct binder *B, enum basalt_sql_binary_op op,
                                              struct basalt_sql_expr *l, struct basalt_sql_expr *r);
/* row_number() OVER (PARTITION BY partition ORDER BY order): the rank a
 * QUALIFY keeps rows by (DISTINCT ON, a correlated subquery's LIMIT 1, a
 * LATERAL's LIMIT per key). */
struct basalt_sql_expr *basalt_sql_ast_row_number(struct binder *B, struct basalt_sql_expr **partition,
                                                  int n_partition,
                                                  struct basalt_sql_order_item *order, int n_order,
                                                  int32_t pos);
/* q's ORDER BY as a window over q's FROM reads it: an ordinal or a select
 * item's alias is that item's expression. */
struct basalt_sql_order_item *basalt_sql_ast_item_order(struct binder *B,
                                                        const struct basalt_sql_query *q);

/* bind_subquery.c: correlated subqueries in WHERE conjuncts become joins.
 * Whether conjunct e holds a subquery (outside nested ones): such conditions
 * wait for the joins, where correlated ones become joins themselves. */
bool basalt_sql_has_subquery(const struct basalt_sql_expr *e);
/* bind_expr.c: coalesce(x, the zero of x's type: 0, '', false, epoch). */
basalt_status basalt_sql_zero_if_null(struct basalt_qexpr_builder *b, struct basalt_qexpr *x,
                                      struct basalt_qexpr **out, struct basalt_error *err);
/* x IN (uncorrelated subquery) as a SEMI join onto rel, whose columns are
 * those of `scope` in the relations of rel_mask. */
basalt_status basalt_sql_in_join(struct binder *B, const struct bscope *scope, struct brel *rel,
                                 uint64_t rel_mask, const struct basalt_sql_expr *e,
                                 struct basalt_error *err);
/* bind_narrow.c: `inner IN (SELECT outer FROM its table WHERE its own
 * conditions)` for the first correlated equality whose outer side is a
 * column of a filtered table of the outer FROM at most a quarter of the
 * grouped subquery's largest input; NULL when there is none. */
struct basalt_sql_expr *basalt_sql_narrowing(struct binder *B, const struct bscope *outer,
                                             const struct bouter *from,
                                             const struct basalt_sql_expr *const *outer_side,
                                             struct basalt_sql_expr *const *inner_side, int n,
                                             const struct brel *grouped);
/* Joins what e's correlated subqueries need onto rel: when e is a WHERE
 * condition (done not NULL), EXISTS / NOT EXISTS as the whole condition is a
 * semi / anti join (*done: nothing is left to filter); scalar subqueries,
 * and EXISTS elsewhere, are a LEFT join with their aggregate (TRUE for
 * EXISTS) grouped by the correlation keys, their value recorded in B->repl
 * for the expression that reads them. After grouping (keys not NULL: the
 * group keys' texts, n_keys of them) not those inside aggregate calls nor
 * those that are group keys: both were joined in before grouping. */
basalt_status basalt_sql_decorrelate(struct binder *B, const struct bscope *outer,
                                     const struct bouter *from,
                                     struct brel *rel, const struct basalt_sql_expr *e,
                                     const struct brepl *keys, int n_keys, bool *done,
                                     struct basalt_error *err);

/* bind_from.c: the relations of a FROM and the conjuncts of its ON
 * clauses (and of WHERE, added by the caller). */
struct bfrom {
    struct brel *rels;
    int n, cap;
    const struct basalt_sql_expr **conj;
    int nc, capc;
};
basalt_status basalt_sql_bind_from(struct binder *B, const struct basalt_sql_from *f,
                                   struct bscope *scope, struct bfrom *F, struct basalt_error *err);
/* Adds the AND-separated parts of e to F's conjuncts. */
basalt_status basalt_sql_conjuncts(struct bfrom *F, const struct basalt_sql_expr *e,
                                   struct basalt_error *err);

void basalt_sql_from_reset(struct bfrom *F);
basalt_status basalt_sql_from_add(struct bfrom *F, struct brel *rel, struct basalt_error *err);

/* bind_subquery.c, for bind_lateral.c too */
/* A subquery's FROM bound on its own, and its WHERE split into the
 * conjuncts over its own tables and those reading the outer query. */
struct bsplit {
    struct bscope in;
    struct bfrom F;
    struct bfrom where;
    const struct basalt_sql_expr **inner, **corr;
    int n_inner, n_corr;
};
/* Splits q (a SELECT with a FROM and no WITH; otherwise s is left empty). */
basalt_status basalt_sql_split_subquery(struct binder *B, const struct bscope *outer,
                                        const struct basalt_sql_query *q, struct bsplit *s,
                                        struct basalt_error *err);
void basalt_sql_split_reset(struct bsplit *s);
/* Whether e is `a = b` with one side (*o) over the outer query's columns
 * only and the other (*i) over the subquery's (`in`) only. */
bool basalt_sql_correlation_key(struct binder *B, const struct bscope *in,
                                const struct bscope *outer, const struct basalt_sql_expr *e,
                                const struct basalt_sql_expr **o, const struct basalt_sql_expr **i);
/* NOT_FOUND, the resolver's error, for the first column of e that neither
 * `in` nor `outer` has; OK when there is none. */
basalt_status basalt_sql_known_columns(struct binder *B, const struct bscope *in,
                                       const struct bscope *outer, const struct basalt_sql_expr *e,
                                       struct basalt_error *err);
/* Whether e names a column of `outer` that `in` does not have (not
 * looking into e's own subqueries). */
bool basalt_sql_reads_outer(struct binder *B, const struct bscope *in, const struct bscope *outer,
                            const struct basalt_sql_expr *e);
/* Whether q's SELECT list aggregates without GROUP BY: one row always. */
bool basalt_sql_aggregates_once(struct binder *B, const struct basalt_sql_query *q);
/* Whether e is an EXISTS that is TRUE whatever it reads: over an aggregate
 * without GROUP BY (one row), no HAVING, QUALIFY, OFFSET or LIMIT 0. */
bool basalt_sql_exists_always(struct binder *B, const struct basalt_sql_expr *e);
/* Whether e is an integer literal >= 0 (into *out). */
bool basalt_sql_literal_int(const struct basalt_sql_expr *e, int64_t *out);
/* Whether column c is an unqualified name of one of sel's select items
 * (ORDER BY, GROUP BY and HAVING read those before outer columns). */
bool basalt_sql_names_item(const struct basalt_sql_select *sel, const struct basalt_sql_expr *c);
/* Whether q reads the outer query's columns outside its WHERE: in its
 * select list, ORDER BY, GROUP BY or HAVING (bind_subquery.c). */
bool basalt_sql_reads_outer_beyond_where(struct binder *B, const struct bscope *in,
                                         const struct bscope *outer, const struct basalt_sql_query *q);
/* bind_subquery_nonequal.c: q (split into s) read over D, the distinct
 * values of the outer columns it reads, instead of the outer query:
 * `query` is q FROM D CROSS JOIN its FROM, its WHERE (`where`: its own
 * conditions and the correlated ones), select list and ORDER BY reading
 * D's columns where they read the outer query; outer_side[i] is the i-th
 * outer column (as first written), inner_side[i] D's column for it
 * (__dN.__ki), n of them. UNSUPPORTED when the correlation reads a query
 * further out. */
struct bnonequal {
    int n;
    const struct basalt_sql_expr **outer_side;
    struct basalt_sql_expr **inner_side;
    struct basalt_sql_query *query;
    struct basalt_sql_expr *where;
};
basalt_status basalt_sql_nonequal(struct binder *B, const struct bscope *outer,
                                  const struct bouter *from, const struct basalt_sql_query *q,
                                  const struct bsplit *s, struct bnonequal *out,
                                  struct basalt_error *err);
/* bind_subquery_grouped.c: a correlated subquery q with GROUP BY or HAVING
 * as one row per inner key: the keys (`keys`, n items named __k0...) in
 * front of its own GROUP BY over its FROM and `where` (its own conditions),
 * then grouped by the keys alone into __v (any_value of its one value, or
 * TRUE for an EXISTS) and __rows (the groups a key has; not for EXISTS);
 * nth > 0: its `ORDER BY ... LIMIT 1 OFFSET nth - 1` keeps that group of a
 * key in its order, as __v (no __rows); *n_items the columns. NULL when out
 * of memory. */
struct basalt_sql_query *basalt_sql_grouped_per_key(struct binder *B, const struct basalt_sql_query *q,
                                                    const struct basalt_sql_select_item *keys, int n,
                                                    struct basalt_sql_expr *where, bool exists,
                                                    int64_t nth, int *n_items);
/* bind_lateral.c: LATERAL (query) f named `alias`, correlated with the
 * columns in scope: its relation (keys hidden) and the join equalities put
 * into F, *done set; *done false when it reads no outer column (bind it as
 * a subquery). */
/* q (a subquery in FROM) keyed by its correlation equalities with the
 * columns of `scope`, as LATERAL plans it: *g the query with the inner
 * sides in front as __lateral0..., *outer_sides their outer sides, *n_keys
 * how many (0, *g NULL: q reads no column of scope). UNSUPPORTED for what
 * LATERAL refuses. */
basalt_status basalt_sql_lateral_keyed(struct binder *B, const struct basalt_sql_query *q,
                                       const struct bscope *scope, struct basalt_sql_query **g,
                                       const struct basalt_sql_expr ***outer_sides, int *n_keys,
                                       struct basalt_error *err);
/* bind_subquery_from.c: q with each subquery of its FROM (in inner and
 * cross joins) that reads `outer` by equalities keyed by them as LATERAL
 * plans it, and those equalities, on its key columns, added to q's WHERE:
 * a correlated subquery of q's own (*out = q when there is none). */
basalt_status basalt_sql_lift_from_correlation(struct binder *B, const struct bscope *outer,
                                               const struct basalt_sql_query *q,
                                               const struct basalt_sql_query **out,
                                               struct basalt_error *err);
/* rel with its columns `empty` read as their value over no rows where
 * the column key_gid is NULL (a LEFT join found no row), under the same
 * gids. */
basalt_status basalt_sql_empty_rows(struct binder *B, struct brel *rel, int32_t key_gid,
                                    const struct bempty *empty, int n_empty,
                                    struct basalt_error *err);
/* bind_empty_value.c: the value of e, an item of an aggregate query without
 * GROUP BY, over no rows, as a constant of `type` (false: NULL, or it does
 * not fold); CASE WHEN key IS NULL THEN *empty ELSE value END. */
bool basalt_sql_empty_value(struct binder *B, const struct basalt_sql_expr *e,
                            struct basalt_query_type type, struct basalt_query_value *out);
/* e with its aggregate calls replaced by their values over no rows (COUNT
 * 0, the others NULL), not folded: for an item that reads the outer query
 * too. NULL when e has no aggregate or out of memory. */
const struct basalt_sql_expr *basalt_sql_empty_expr(struct binder *B, const struct basalt_sql_expr *e);
basalt_status basalt_sql_empty_or(struct basalt_qexpr_builder *b, struct basalt_qexpr *key,
                                  const struct basalt_query_value *empty,
                                  struct basalt_qexpr *value, struct basalt_qexpr **out,
                                  struct basalt_error *err);
basalt_status basalt_sql_bind_lateral(struct binder *B, const struct basalt_sql_from *f,
                                      const char *alias, struct bscope *scope, struct bfrom *F,
                                      bool *done, struct basalt_error *err);
/* A relation of one row and no columns (SELECT without FROM, VALUES). */
basalt_status basalt_sql_one_row(struct binder *B, struct basalt_qplan **out,
                                 struct basalt_error *err);
bool basalt_sql_parse_timestamp_us(const char *text, int64_t *us);

#endif
