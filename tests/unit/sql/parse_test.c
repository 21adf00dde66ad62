/* The SQL parser against hand-written expectations: each valid statement's
 * canonical text (written here, not produced by the parser), which must
 * also parse back to itself; each bad statement's status and exact
 * message; the tree itself for the fields the binder reads. */
#include <stdlib.h>
#include <string.h>

#include "sql_internal.h"
#include "test.h"

struct ok_case {
    const char *sql;
    const char *canonical;
};

static const struct ok_case ok_cases[] = {
    /* literals */
    {"SELECT 1", "SELECT 1"},
    {"select 1.5, .5, 1e10, 1.5E-3, 2.", "SELECT 1.5, .5, 1e10, 1.5E-3, 2."},
    {"SELECT 'it''s', ''", "SELECT 'it''s', ''"},
    {"SELECT TRUE, false, NULL", "SELECT TRUE, FALSE, NULL"},
    {"SELECT 99999999999999999999999", "SELECT 99999999999999999999999"},
    {"SELECT DATE '2024-01-01', timestamp '2024-01-01 10:00:00'",
     "SELECT DATE '2024-01-01', TIMESTAMP '2024-01-01 10:00:00'"},
    {"SELECT TIMESTAMPTZ '2024-01-01', TIMESTAMP WITH TIME ZONE '2024-01-01 00:00:00+00'",
     "SELECT TIMESTAMP WITH TIME ZONE '2024-01-01', TIMESTAMP WITH TIME ZONE '2024-01-01 00:00:00+00'"},
    {"SELECT INTERVAL '1 day', INTERVAL 3 DAY, interval '3' month, INTERVAL (x + 1) days",
     "SELECT INTERVAL '1 day', INTERVAL 3 DAY, INTERVAL '3' MONTH, INTERVAL ((x + 1)) DAY"},
    {"SELECT date '1998-12-01' - interval '90' day",
     "SELECT (DATE '1998-12-01' - INTERVAL '90' DAY)"},
    /* names */
    {"SELECT x, t.x, db.t.x, \"MixedCase\", \"a\"\"b\" FROM t",
     "SELECT x, t.x, db.t.x, \"MixedCase\", \"a\"\"b\" FROM t"},
    {"SELECT ABC, Abc.DEF FROM T", "SELECT abc, abc.def FROM t"},
    {"SELECT \"select\", \"from\" FROM \"where\"", "SELECT \"select\", \"from\" FROM \"where\""},
    {"SELECT *, t.*, * EXCLUDE (a, b), * exclude c FROM t",
     "SELECT *, t.*, * EXCLUDE (a, b), * EXCLUDE (c) FROM t"},
    /* precedence */
    {"SELECT 1 + 2 * 3", "SELECT (1 + (2 * 3))"},
    {"SELECT (1 + 2) * 3", "SELECT ((1 + 2) * 3)"},
    {"SELECT 1 - 2 - 3", "SELECT ((1 - 2) - 3)"},
    {"SELECT 7 // 2 % 3 / 4", "SELECT (((7 // 2) % 3) / 4)"},
    {"SELECT NOT a = b", "SELECT (NOT (a = b))"},
    {"SELECT NOT a AND b", "SELECT ((NOT a) AND b)"},
    {"SELECT a OR b AND c", "SELECT (a OR (b AND c))"},
    {"SELECT a AND b OR c", "SELECT ((a AND b) OR c)"},
    {"SELECT -x::int", "SELECT (-CAST(x AS INTEGER))"},
    {"SELECT - - 1, +x", "SELECT (-(-1)), (+x)"},
    {"SELECT a BETWEEN 1 AND 2 AND c", "SELECT ((a BETWEEN 1 AND 2) AND c)"},
    {"SELECT a NOT BETWEEN b + 1 AND c * 2", "SELECT (a NOT BETWEEN (b + 1) AND (c * 2))"},
    {"SELECT 'a' || 'b' || 1 + 2", "SELECT (('a' || 'b') || (1 + 2))"},
    {"SELECT a || b LIKE c", "SELECT ((a || b) LIKE c)"},
    {"SELECT a = b IS NULL", "SELECT ((a = b) IS NULL)"},
    {"SELECT a == b, a != b, a <> b, a < b, a <= b, a > b, a >= b",
     "SELECT (a = b), (a <> b), (a <> b), (a < b), (a <= b), (a > b), (a >= b)"},
    {"SELECT a + 1 < b * 2 AND NOT c OR d", "SELECT ((((a + 1) < (b * 2)) AND (NOT c)) OR d)"},
    {"SELECT NOT NOT a", "SELECT (NOT (NOT a))"},
    {"SELECT x = NOT y", "SELECT (x = (NOT y))"},
    /* found by the DuckDB differential: == binds like ||, IN and IS NULL end
     * their expression (chain, take a cast), BETWEEN's lower bound takes
     * comparisons, unary minus takes NOT */
    {"SELECT a == b LIKE c, a == b || c", "SELECT ((a = b) LIKE c), ((a = b) || c)"},
    {"SELECT a IN (b) IN (c), a IN (b) LIKE c", "SELECT ((a IN (b)) IN (c)), ((a IN (b)) LIKE c)"},
    {"SELECT a IN (b)::int, a IS NULL::int, a ISNULL IS NULL",
     "SELECT CAST((a IN (b)) AS INTEGER), CAST((a IS NULL) AS INTEGER), ((a IS NULL) IS NULL)"},
    {"SELECT a BETWEEN b = c AND d, a BETWEEN b AND c = d",
     "SELECT (a BETWEEN (b = c) AND d), ((a BETWEEN b AND c) = d)"},
    {"SELECT - NOT a = b, a + NOT b", "SELECT (-(NOT (a = b))), (a + (NOT b))"},
    {"SELECT a IS DISTINCT FROM b = c", "SELECT (a IS DISTINCT FROM (b = c))"},
    /* IS, IN, LIKE */
    {"SELECT a IS NULL, a IS NOT NULL, a ISNULL, a NOTNULL",
     "SELECT (a IS NULL), (a IS NOT NULL), (a IS NULL), (a IS NOT NULL)"},
    {"SELECT a IS TRUE, a IS NOT FALSE", "SELECT (a IS TRUE), (a IS NOT FALSE)"},
    {"SELECT a IS DISTINCT FROM b, a IS NOT DISTINCT FROM b + 1",
     "SELECT (a IS DISTINCT FROM b), (a IS NOT DISTINCT FROM (b + 1))"},
    {"SELECT a IN (1, 2, 3), a NOT IN ('x')", "SELECT (a IN (1, 2, 3)), (a NOT IN ('x'))"},
    {"SELECT a IN (SELECT b FROM t), a NOT IN (SELECT 1)",
     "SELECT (a IN (SELECT b FROM t)), (a NOT IN (SELECT 1))"},
    {"SELECT * FROM t, LATERAL (SELECT b FROM u WHERE u.a = t.a) AS l(x) LEFT JOIN lateral (SELECT 1) ON true",
     "SELECT * FROM t CROSS JOIN (LATERAL (SELECT b FROM u WHERE (u.a = t.a)) AS l(x) LEFT JOIN LATERAL (SELECT 1) ON "
     "TRUE)"},
    /* ANY, SOME and ALL print as DuckDB prints them (ALL as NOT over the
     * negated ANY) */
    {"SELECT a > ANY (SELECT b FROM t), a = some(SELECT 1), a <> ALL (SELECT b FROM t), x <= all (SELECT 1)",
     "SELECT (a > ANY(SELECT b FROM t)), (a = ANY(SELECT 1)), (NOT (a = ANY(SELECT b FROM t))), "
     "(NOT (x > ANY(SELECT 1)))"},
    {"SELECT a IN ((SELECT 1) UNION (SELECT 2))", "SELECT (a IN ((SELECT 1) UNION (SELECT 2)))"},
    {"SELECT a LIKE 'x%', a NOT LIKE 'y', a ILIKE 'z' ESCAPE '!', a NOT ILIKE b",
     "SELECT (a LIKE 'x%'), (a NOT LIKE 'y'), (a ILIKE 'z' ESCAPE '!'), (a NOT ILIKE b)"},
    /* CASE, CAST, EXTRACT */
    {"SELECT CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END",
     "SELECT CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END"},
    {"SELECT case x when 1 then 'one' end", "SELECT CASE x WHEN 1 THEN 'one' END"},
    {"SELECT CAST(x AS int), TRY_CAST(y AS DECIMAL(12, 2)), z::varchar, w::double precision",
     "SELECT CAST(x AS INTEGER), TRY_CAST(y AS DECIMAL(12,2)), CAST(z AS VARCHAR), CAST(w AS DOUBLE)"},
    {"SELECT x::INT4, x::INT8, x::long, x::smallint, x::tinyint, x::utinyint, x::hugeint",
     "SELECT CAST(x AS INTEGER), CAST(x AS BIGINT), CAST(x AS BIGINT), CAST(x AS SMALLINT), "
     "CAST(x AS TINYINT), CAST(x AS UTINYINT), CAST(x AS HUGEINT)"},
    {"SELECT x::real, x::float4, x::float, x::float8, x::numeric, x::text, x::string, x::char(3)",
     "SELECT CAST(x AS FLOAT), CAST(x AS FLOAT), CAST(x AS FLOAT), CAST(x AS DOUBLE), "
     "CAST(x AS DECIMAL), CAST(x AS VARCHAR), CAST(x AS VARCHAR), CAST(x AS VARCHAR(3))"},
    {"SELECT x::varchar(10), x::bytea, x::blob, x::bool, x::boolean, x::date, x::datetime",
     "SELECT CAST(x AS VARCHAR(10)), CAST(x AS BLOB), CAST(x AS BLOB), CAST(x AS BOOLEAN), "
     "CAST(x AS BOOLEAN), CAST(x AS DATE), CAST(x AS TIMESTAMP)"},
    {"SELECT x::timestamp_ns, x::timestamptz, x::timestamp with time zone, x::interval, x::time",
     "SELECT CAST(x AS TIMESTAMP_NS), CAST(x AS TIMESTAMP WITH TIME ZONE), "
     "CAST(x AS TIMESTAMP WITH TIME ZONE), CAST(x AS INTERVAL), CAST(x AS TIME)"},
    {"SELECT x::mytype", "SELECT CAST(x AS mytype)"},
    {"SELECT x::int::bigint", "SELECT CAST(CAST(x AS INTEGER) AS BIGINT)"},
    {"SELECT extract(year from l_shipdate), EXTRACT('month' FROM d)",
     "SELECT EXTRACT(year FROM l_shipdate), EXTRACT(month FROM d)"},
    {"SELECT substring(c_phone from 1 for 2), substring(s FROM 3), substring(s, 1, 2)",
     "SELECT substring(c_phone, 1, 2), substring(s, 3), substring(s, 1, 2)"},
    /* calls */
    {"SELECT count(*), count(DISTINCT x), sum(ALL y), now()",
     "SELECT count(*), count(DISTINCT x), sum(y), now()"},
    {"SELECT string_agg(x, ',' ORDER BY y DESC, z)", "SELECT string_agg(x, ',' ORDER BY y DESC, z)"},
    {"SELECT count(*) FILTER (WHERE x > 1)", "SELECT count(*) FILTER (WHERE (x > 1))"},
    {"SELECT count(*) FILTER (x > 1)", "SELECT count(*) FILTER (WHERE (x > 1))"},
    {"SELECT position('b' IN s || 'x'), position(s, 'b')",
     "SELECT position('b' IN (s || 'x')), position('b' IN s)"},
    {"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r",
     "WITH RECURSIVE r(n) AS ((SELECT 1) UNION ALL (SELECT (n + 1) FROM r WHERE (n < 3))) SELECT n FROM r"},
    {"SELECT * FROM a NATURAL JOIN b NATURAL FULL OUTER JOIN c",
     "SELECT * FROM a NATURAL JOIN b NATURAL FULL JOIN c"},
    {"SELECT DISTINCT ON (a, b % 2) a, c FROM t ORDER BY a, c DESC",
     "SELECT DISTINCT ON (a, (b % 2)) a, c FROM t ORDER BY a, c DESC"},
    {"SELECT left(s, 2), right(s, 3), \"count\"(x)", "SELECT left(s, 2), right(s, 3), \"count\"(x)"},
    {"SELECT f(a => 1, b := 'x', 3)", "SELECT f(a => 1, b => 'x', 3)"},
    {"SELECT row_number() OVER (PARTITION BY a, b ORDER BY c DESC NULLS FIRST)",
     "SELECT row_number() OVER (PARTITION BY a, b ORDER BY c DESC NULLS FIRST)"},
    {"SELECT sum(x) OVER (ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
     "SELECT sum(x) OVER (ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"},
    {"SELECT sum(x) OVER (RANGE BETWEEN 3 PRECEDING AND 2 FOLLOWING), "
     "avg(x) OVER (ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), min(x) OVER (ROWS 2 PRECEDING)",
     "SELECT sum(x) OVER (RANGE BETWEEN 3 PRECEDING AND 2 FOLLOWING), "
     "avg(x) OVER (ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), "
     "min(x) OVER (ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)"},
    {"SELECT sum(x) OVER w, rank() OVER (w ORDER BY y) FROM t WINDOW w AS (PARTITION BY z)",
     "SELECT sum(x) OVER w, rank() OVER (w ORDER BY y) FROM t WINDOW w AS (PARTITION BY z)"},
    {"SELECT count(*) FILTER (WHERE a) OVER ()", "SELECT count(*) FILTER (WHERE a) OVER ()"},
    /* GROUPS frames, RANGE offsets of any constant, EXCLUDE (NO OTHERS is the default) */
    {"SELECT sum(x) OVER (ORDER BY t GROUPS BETWEEN 2 PRECEDING AND 1 FOLLOWING exclude ties), "
     "max(x) OVER (ORDER BY d RANGE INTERVAL 7 DAY PRECEDING EXCLUDE CURRENT ROW), "
     "min(x) OVER (ORDER BY t ROWS 1 PRECEDING EXCLUDE GROUP), "
     "avg(x) OVER (ORDER BY t RANGE BETWEEN 1.5 PRECEDING AND '2' FOLLOWING EXCLUDE NO OTHERS)",
     "SELECT sum(x) OVER (ORDER BY t GROUPS BETWEEN 2 PRECEDING AND 1 FOLLOWING EXCLUDE TIES), "
     "max(x) OVER (ORDER BY d RANGE BETWEEN INTERVAL 7 DAY PRECEDING AND CURRENT ROW EXCLUDE "
     "CURRENT ROW), "
     "min(x) OVER (ORDER BY t ROWS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE GROUP), "
     "avg(x) OVER (ORDER BY t RANGE BETWEEN 1.5 PRECEDING AND '2' FOLLOWING)"},
    /* subqueries, lists */
    {"SELECT (SELECT max(x) FROM t), EXISTS (SELECT 1), NOT EXISTS (SELECT 2)",
     "SELECT (SELECT max(x) FROM t), EXISTS (SELECT 1), (NOT EXISTS (SELECT 2))"},
    {"SELECT (SELECT 1) + 1, ((SELECT 2))", "SELECT ((SELECT 1) + 1), (SELECT 2)"},
    {"SELECT ((SELECT 1) UNION ALL (SELECT 2))", "SELECT ((SELECT 1) UNION ALL (SELECT 2))"},
    {"SELECT f([1, 2, 3]), []", "SELECT f([1, 2, 3]), []"},
    /* aliases */
    {"SELECT a AS x, b y, c AS \"Z\", d AS from", "SELECT a AS x, b AS y, c AS \"Z\", d AS from"},
    {"SELECT 1 AS count", "SELECT 1 AS count"},
    /* clauses */
    {"SELECT DISTINCT a FROM t WHERE b > 1 GROUP BY a HAVING count(*) > 2 ORDER BY a LIMIT 10 OFFSET 5",
     "SELECT DISTINCT a FROM t WHERE (b > 1) GROUP BY a HAVING (count(*) > 2) ORDER BY a LIMIT 10 OFFSET 5"},
    {"SELECT ALL a FROM t OFFSET 3", "SELECT a FROM t OFFSET 3"},
    {"SELECT a FROM t OFFSET 3 LIMIT 2", "SELECT a FROM t LIMIT 2 OFFSET 3"},
    {"SELECT a, sum(b) FROM t GROUP BY ALL ORDER BY ALL", "SELECT a, sum(b) FROM t GROUP BY ALL ORDER BY ALL"},
    {"SELECT a FROM t ORDER BY ALL DESC", "SELECT a FROM t ORDER BY ALL DESC"},
    {"SELECT a FROM t GROUP BY 1 ORDER BY 1 ASC NULLS LAST, b DESC LIMIT 1 + 1",
     "SELECT a FROM t GROUP BY 1 ORDER BY 1 ASC NULLS LAST, b DESC LIMIT (1 + 1)"},
    {"SELECT a, row_number() OVER (ORDER BY b) AS r FROM t QUALIFY r = 1",
     "SELECT a, row_number() OVER (ORDER BY b) AS r FROM t QUALIFY (r = 1)"},
    /* WITH */
    {"WITH a AS (SELECT 1 AS x), b(y) AS (SELECT x FROM a) SELECT * FROM b",
     "WITH a AS (SELECT 1 AS x), b(y) AS (SELECT x FROM a) SELECT * FROM b"},
    {"WITH a AS materialized (SELECT 1), b AS Not Materialized (SELECT 2) SELECT * FROM a, b",
     "WITH a AS MATERIALIZED (SELECT 1), b AS NOT MATERIALIZED (SELECT 2) SELECT * FROM a CROSS JOIN b"},
    /* set operations */
    {"SELECT 1 UNION SELECT 2", "(SELECT 1) UNION (SELECT 2)"},
    {"SELECT 1 UNION ALL SELECT 2 UNION DISTINCT SELECT 3",
     "((SELECT 1) UNION ALL (SELECT 2)) UNION (SELECT 3)"},
    {"SELECT 1 UNION SELECT 2 INTERSECT SELECT 3",
     "(SELECT 1) UNION ((SELECT 2) INTERSECT (SELECT 3))"},
    {"SELECT 1 INTERSECT ALL SELECT 2 EXCEPT ALL SELECT 3",
     "((SELECT 1) INTERSECT ALL (SELECT 2)) EXCEPT ALL (SELECT 3)"},
    {"(SELECT 1 UNION SELECT 2) INTERSECT SELECT 3",
     "((SELECT 1) UNION (SELECT 2)) INTERSECT (SELECT 3)"},
    {"SELECT a FROM t UNION SELECT b FROM u ORDER BY 1 LIMIT 5",
     "(SELECT a FROM t) UNION (SELECT b FROM u) ORDER BY 1 LIMIT 5"},
    {"(SELECT a FROM t ORDER BY a LIMIT 1) UNION ALL (SELECT b FROM u)",
     "(SELECT a FROM t ORDER BY a LIMIT 1) UNION ALL (SELECT b FROM u)"},
    {"((SELECT 1))", "SELECT 1"},
    {"WITH c AS (SELECT 1) SELECT * FROM c UNION SELECT 2",
     "WITH c AS (SELECT 1) (SELECT * FROM c) UNION (SELECT 2)"},
    /* VALUES */
    {"VALUES (1, 'a'), (2, 'b')", "VALUES (1, 'a'), (2, 'b')"},
    {"SELECT * FROM (VALUES (1,'a'),(2,'b')) AS t(x, y)",
     "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS t(x, y)"},
    /* FROM */
    {"SELECT * FROM trips, db.trips, cat.db.trips", "SELECT * FROM trips CROSS JOIN db.trips CROSS JOIN cat.db.trips"},
    {"SELECT * FROM t FOR VERSION AS OF 3 AS v, u FOR TIMESTAMP AS OF '2024-01-01' w",
     "SELECT * FROM t FOR VERSION AS OF 3 AS v CROSS JOIN u FOR TIMESTAMP AS OF '2024-01-01' AS w"},
    {"SELECT * FROM t FOR TIMESTAMP AS OF TIMESTAMP '2024-01-01 00:00:00'",
     "SELECT * FROM t FOR TIMESTAMP AS OF TIMESTAMP '2024-01-01 00:00:00'"},
    {"SELECT * FROM 'trips/*.parquet' t", "SELECT * FROM 'trips/*.parquet' AS t"},
    {"SELECT * FROM read_parquet(['a.parquet', 'b.parquet'], hive_partitioning => true)",
     "SELECT * FROM read_parquet(['a.parquet', 'b.parquet'], hive_partitioning => TRUE)"},
    /* a table function's `name = value` is a named argument, as in DuckDB */
    {"SELECT * FROM read_csv('f.csv', delim => ';', header = true) AS c(a, b)",
     "SELECT * FROM read_csv('f.csv', delim => ';', header => TRUE) AS c(a, b)"},
    {"SELECT f(a, x = 1) FROM t", "SELECT f(a, (x = 1)) FROM t"},
    {"SELECT * FROM iceberg_scan('p', version => 3)", "SELECT * FROM iceberg_scan('p', version => 3)"},
    {"SELECT * FROM (SELECT 1) s, (SELECT 2) AS u(x)",
     "SELECT * FROM (SELECT 1) AS s CROSS JOIN (SELECT 2) AS u(x)"},
    {"SELECT * FROM ((SELECT 1) UNION (SELECT 2)) s", "SELECT * FROM ((SELECT 1) UNION (SELECT 2)) AS s"},
    {"SELECT * FROM a JOIN b ON a.x = b.x LEFT OUTER JOIN c USING (y, z)",
     "SELECT * FROM a JOIN b ON (a.x = b.x) LEFT JOIN c USING (y, z)"},
    {"SELECT * FROM a INNER JOIN b ON true RIGHT JOIN c ON 1 = 1 FULL OUTER JOIN d ON x CROSS JOIN e",
     "SELECT * FROM a JOIN b ON TRUE RIGHT JOIN c ON (1 = 1) FULL JOIN d ON x CROSS JOIN e"},
    {"SELECT * FROM a SEMI JOIN b USING (k) ANTI JOIN c ON a.k = c.k",
     "SELECT * FROM a SEMI JOIN b USING (k) ANTI JOIN c ON (a.k = c.k)"},
    {"SELECT * FROM a, b JOIN c ON b.x = c.x", "SELECT * FROM a CROSS JOIN (b JOIN c ON (b.x = c.x))"},
    {"SELECT * FROM a JOIN (b JOIN c ON b.x = c.x) ON a.y = b.y",
     "SELECT * FROM a JOIN (b JOIN c ON (b.x = c.x)) ON (a.y = b.y)"},
    {"SELECT * FROM (a JOIN b USING (k))", "SELECT * FROM a JOIN b USING (k)"},
    {"SELECT * FROM ((SELECT 1 AS k) s JOIN t USING (k))",
     "SELECT * FROM (SELECT 1 AS k) AS s JOIN t USING (k)"},
    /* grouping sets: a parenthesised single key is the key, (a, b) a list */
    {"SELECT a, count(*) FROM t GROUP BY rollup(a, b)",
     "SELECT a, count(*) FROM t GROUP BY ROLLUP (a, b)"},
    {"select a from t group by grouping sets ((a, b), (a), ()), cube (c, (d, e))",
     "SELECT a FROM t GROUP BY GROUPING SETS ((a, b), a, ()), CUBE (c, (d, e))"},
    {"SELECT 1 FROM t GROUP BY a, ROLLUP ((a + 1) * 2, (b)), (c, d)",
     "SELECT 1 FROM t GROUP BY a, ROLLUP (((a + 1) * 2), b), (c, d)"},
    {"SELECT 1 FROM t GROUP BY GROUPING SETS (ROLLUP (a), CUBE (b), GROUPING SETS ((c)), (a, b))",
     "SELECT 1 FROM t GROUP BY GROUPING SETS (ROLLUP (a), CUBE (b), GROUPING SETS (c), (a, b))"},
    {"SELECT 1 FROM t GROUP BY ()", "SELECT 1 FROM t GROUP BY ()"},
    {"SELECT 1 FROM t GROUP BY (a), ((a) + 1), (SELECT 1)",
     "SELECT 1 FROM t GROUP BY a, (a + 1), (SELECT 1)"},
    {"SELECT rollup(x), cube FROM t GROUP BY rollup, cube, grouping",
     "SELECT rollup(x), cube FROM t GROUP BY rollup, cube, grouping"},
    {"SELECT grouping(a, b), Grouping_Id(a) FROM t GROUP BY CUBE (a, b) HAVING grouping(a) = 0",
     "SELECT GROUPING(a, b), GROUPING(a) FROM t GROUP BY CUBE (a, b) HAVING (GROUPING(a) = 0)"},
    /* statements */
    {"EXPLAIN SELECT 1", "EXPLAIN SELECT 1"},
    {"explain analyze select 1", "EXPLAIN ANALYZE SELECT 1"},
    {"COPY (SELECT * FROM t) TO 'out.parquet' (FORMAT parquet, HEADER, DELIMITER ',', COMPRESSION 'zstd')",
     "COPY (SELECT * FROM t) TO 'out.parquet' (format 'parquet', header, delimiter ',', compression 'zstd')"},
    {"COPY t TO 'out.csv'", "COPY t TO 'out.csv'"},
    {"CREATE TABLE t AS SELECT 1 AS x", "CREATE TABLE t AS SELECT 1 AS x"},
    {"create or replace table if not exists db.t as (select 1)",
     "CREATE OR REPLACE TABLE IF NOT EXISTS db.t AS SELECT 1"},
    {"CREATE TABLE t (a INTEGER NOT NULL, b VARCHAR, c DECIMAL(10,2) NULL, \"D\" TIMESTAMP WITH TIME ZONE)",
     "CREATE TABLE t (a INTEGER NOT NULL, b VARCHAR, c DECIMAL(10,2), \"D\" TIMESTAMP WITH TIME ZONE)"},
    {"INSERT INTO t VALUES (1), (2)", "INSERT INTO t VALUES (1), (2)"},
    {"INSERT INTO t (a, b) SELECT x, y FROM u", "INSERT INTO t (a, b) SELECT x, y FROM u"},
    {"INSERT INTO t (SELECT 1)", "INSERT INTO t SELECT 1"},
    {"DESCRIBE t", "DESCRIBE t"},
    {"DESCRIBE SELECT 1 AS x", "DESCRIBE SELECT 1 AS x"},
    {"SHOW TABLES", "SHOW TABLES"},
    {"SHOW db.t", "DESCRIBE db.t"},
    {"SET threads = 2", "SET threads = 2"},
    {"SET memory_limit = '2GB'", "SET memory_limit = '2GB'"},
    {"SET default_order TO desc_x", "SET default_order = 'desc_x'"},
    {"DROP TABLE t", "DROP TABLE t"},
    {"DROP TABLE IF EXISTS db.t", "DROP TABLE IF EXISTS db.t"},
    /* DuckDB's operators: ** ^ above * /, the generic ones (& | << >> ^@ ~ !~
     * ~~ !~~ ~~* !~~*) one level with ||, prefix ~ over what binds tighter */
    {"SELECT 2 + 3 * 2 ** 2, 2 ** 3 ** 2, 2 ^ 3 ^ 2, -2 ^ 2, 2**-1, a<-1, b>=-1",
     "SELECT (2 + (3 * (2 ** 2))), ((2 ** 3) ** 2), ((2 ^ 3) ^ 2), ((-2) ^ 2), (2 ** (-1)), (a < (-1)), "
     "(b >= (-1))"},
    {"SELECT 1 | 2 & 3, 1 << 2 + 1, a >> b || c, 1 = 1 & 1, a ^@ b, 'x' ~ p, s !~ p",
     "SELECT ((1 | 2) & 3), (1 << (2 + 1)), ((a >> b) || c), (1 = (1 & 1)), (a ^@ b), ('x' ~ p), (s !~ p)"},
    {"SELECT a ~~ b, a !~~ b, a ~~* b, a!~~*b, a ~~ b || c, NOT a ~~ b",
     "SELECT (a ~~ b), (a !~~ b), (a ~~* b), (a !~~* b), ((a ~~ b) || c), (NOT (a ~~ b))"},
    {"SELECT ~5, ~ 1 + 1, ~1 || 'a', 2 * ~1 + 3, ~ -1, - ~1",
     "SELECT (~ 5), (~ (1 + 1)), ((~ 1) || 'a'), (2 * (~ (1 + 3))), (~ (-1)), (-(~ 1))"},
    {"SELECT a SIMILAR TO 'x.*', a NOT SIMILAR TO b ESCAPE '#', a similar to b = c",
     "SELECT (a SIMILAR TO 'x.*'), (a NOT SIMILAR TO b ESCAPE '#'), ((a SIMILAR TO b) = c)"},
    /* DuckDB's select-list forms */
    {"SELECT * REPLACE (a + 1 AS a), t.* EXCLUDE (b) REPLACE (upper(c) AS c, 2 AS \"D\") FROM t",
     "SELECT * REPLACE ((a + 1) AS a), t.* EXCLUDE (b) REPLACE (upper(c) AS c, 2 AS \"D\") FROM t"},
    {"SELECT COLUMNS('^x'), max(COLUMNS(*)), COLUMNS(['a', 'b']) + 1 FROM t",
     "SELECT columns('^x'), max(columns(*)), (columns(['a', 'b']) + 1) FROM t"},
    {"FROM t", "SELECT * FROM t"},
    {"FROM t SELECT DISTINCT a WHERE b GROUP BY a", "SELECT DISTINCT a FROM t WHERE b GROUP BY a"},
    {"SELECT * FROM (FROM t) AS s WHERE x IN (FROM u)", "SELECT * FROM (SELECT * FROM t) AS s WHERE (x IN (SELECT * FROM u))"},
    /* comments, white space, case */
    {"-- leading\nSELECT /* inline /* nested */ */ 1 -- trailing", "SELECT 1"},
    {"sElEcT a FrOm T wHeRe A iS nOt NuLl", "SELECT a FROM t WHERE (a IS NOT NULL)"},
    {"SELECT 1;", "SELECT 1"},
};

struct bad_case {
    const char *sql;
    basalt_status status;
    const char *message;
};

static const struct bad_case bad_cases[] = {
    {"SELECT a, FROM t", BASALT_INVALID_ARG, "syntax error at or near \"FROM\" (at position 10)"},
    {"SELECT * FROM t WHERE FROM", BASALT_INVALID_ARG, "syntax error at or near \"FROM\" (at position 22)"},
    {"SELECT 'abc", BASALT_INVALID_ARG, "unterminated quoted string (at position 7)"},
    {"SELECT \"abc", BASALT_INVALID_ARG, "unterminated quoted identifier (at position 7)"},
    {"SELECT \"\"", BASALT_INVALID_ARG, "zero-length delimited identifier (at position 7)"},
    {"SELECT 1 /* open", BASALT_INVALID_ARG, "unterminated /* comment (at position 9)"},
    {"SELECT a FROM t WHERE", BASALT_INVALID_ARG, "unexpected end of query (at position 21)"},
    {"SELECT (1 + 2", BASALT_INVALID_ARG, "unexpected end of query (at position 13)"},
    {"SELECT 1 = 1 = 1", BASALT_INVALID_ARG, "syntax error at or near \"=\" (at position 13)"},
    {"SELECT a LIKE b LIKE c", BASALT_INVALID_ARG, "syntax error at or near \"LIKE\" (at position 16)"},
    {"SELECT a || NOT b", BASALT_INVALID_ARG, "syntax error at or near \"b\" (at position 16)"},
    {"SELECT a IS DISTINCT FROM b IS NULL", BASALT_INVALID_ARG, "syntax error at or near \"IS\" (at position 28)"},
    {"SELECT a BETWEEN b AND c IN (d)", BASALT_INVALID_ARG, "syntax error at or near \"IN\" (at position 25)"},
    {"SELECT a BETWEEN b IS NULL AND c", BASALT_INVALID_ARG, "syntax error at or near \"IS\" (at position 19)"},
    {"SELECT select", BASALT_INVALID_ARG, "syntax error at or near \"select\" (at position 7)"},
    {"SELECT from FROM t", BASALT_INVALID_ARG, "syntax error at or near \"from\" (at position 7)"},
    {"SELECT 1 2", BASALT_INVALID_ARG, "syntax error at or near \"2\" (at position 9)"},
    {"SELECT a b c", BASALT_INVALID_ARG, "syntax error at or near \"c\" (at position 11)"},
    {"SELECT 12abc", BASALT_INVALID_ARG, "syntax error at or near \"12a\" (at position 7)"},
    {"SELECT 1 ? 2", BASALT_INVALID_ARG, "operator ? does not exist (at position 9)"},
    /* PostgreSQL's operator lexing: a run of operator characters is one
     * operator unless it ends in + or - with none of ~!@#^&|`?% in it */
    {"SELECT 1|-1", BASALT_INVALID_ARG, "operator |- does not exist (at position 8)"},
    {"SELECT 2 ^-1", BASALT_INVALID_ARG, "operator ^- does not exist (at position 9)"},
    {"SELECT a !=-1", BASALT_INVALID_ARG, "operator !=- does not exist (at position 9)"},
    {"SELECT a ~~ b ~~", BASALT_INVALID_ARG, "unexpected end of query (at position 16)"},
    {"SELECT a SIMILAR TO b SIMILAR TO c", BASALT_INVALID_ARG,
     "syntax error at or near \"SIMILAR\" (at position 22)"},
    {"SELECT a & NOT b", BASALT_INVALID_ARG, "syntax error at or near \"b\" (at position 15)"},
    {"SELECT * EXCLUDE (a, A) FROM t", BASALT_INVALID_ARG,
     "Duplicate entry \"a\" in EXCLUDE list (at position 21)"},
    {"SELECT * REPLACE (1 AS a, 2 AS a) FROM t", BASALT_INVALID_ARG,
     "Duplicate entry \"a\" in REPLACE list (at position 31)"},
    {"SELECT * REPLACE (1 a) FROM t", BASALT_INVALID_ARG, "syntax error at or near \"a\" (at position 20)"},
    {"SELECT ~~1", BASALT_INVALID_ARG, "syntax error at or near \"~~\" (at position 7)"},
    {"FROM t SELECT", BASALT_INVALID_ARG, "unexpected end of query (at position 13)"},
    {"SELECT a.b.c.d.e.f.g", BASALT_INVALID_ARG, "name has more than 6 parts (at position 19)"},
    {"SELECT 1 FROM a.b.c.d", BASALT_INVALID_ARG, "name has more than 3 parts (at position 20)"},
    {"SELECT CAST(x AS)", BASALT_INVALID_ARG, "syntax error at or near \")\" (at position 16)"},
    {"SELECT CASE END", BASALT_INVALID_ARG, "syntax error at or near \"END\" (at position 12)"},
    {"SELECT INTERVAL 3", BASALT_INVALID_ARG, "INTERVAL needs a unit (DAY, MONTH, ...) (at position 17)"},
    {"SELECT sum(x) OVER (ORDER BY t ROWS 1 PRECEDING EXCLUDE OTHERS)", BASALT_INVALID_ARG,
     "EXCLUDE takes CURRENT ROW, GROUP, TIES or NO OTHERS (at position 56)"},
    {"SELECT sum(x) OVER (ORDER BY t ROWS 1 PRECEDING EXCLUDE NO ROWS)", BASALT_INVALID_ARG,
     "syntax error at or near \"ROWS\" (at position 59)"},
    {"SELECT * FROM a JOIN b", BASALT_INVALID_ARG, "unexpected end of query (at position 22)"},
    {"SELECT * FROM a AS x ASOF JOIN b ON x.t >= b.t", BASALT_UNSUPPORTED, "ASOF JOIN is not supported (at position 21)"},
    {"SELECT * FROM t, LATERAL read_parquet('x')", BASALT_UNSUPPORTED, "LATERAL takes a subquery here (at position 17)"},
    {"VALUES (1, 2), (3)", BASALT_INVALID_ARG, "VALUES lists must all be the same length (at position 15)"},
    {"SELECT 1 ORDER BY 1 LIMIT 1 LIMIT 2", BASALT_INVALID_ARG, "multiple LIMIT clauses not allowed (at position 28)"},
    {"(SELECT 1 LIMIT 1) LIMIT 2", BASALT_INVALID_ARG, "multiple LIMIT clauses not allowed (at position 19)"},
    {"SELECT 1; SELEC 2", BASALT_INVALID_ARG, "syntax error at or near \"SELEC\" (at position 10)"},
    {"SELECT x FROM t FOR SYSTEM_TIME AS OF 1", BASALT_INVALID_ARG,
     "syntax error at or near \"FOR\" (at position 16)"},
    {"SELECT f(values = 2)", BASALT_INVALID_ARG, "syntax error at or near \"values\" (at position 9)"},
    {"CREATE VIEW v AS SELECT 1", BASALT_UNSUPPORTED, "only CREATE TABLE is supported (at position 7)"},
    {"SELECT x::decimal(1,2,3)", BASALT_INVALID_ARG, "syntax error at or near \"3\" (at position 22)"},
    {"SELECT 1 \x01", BASALT_INVALID_ARG, "syntax error at or near byte 0x01 (at position 9)"},
    {"SELECT 1 FROM t GROUP BY ROLLUP ()", BASALT_INVALID_ARG,
     "syntax error at or near \")\" (at position 33)"},
    {"SELECT 1 FROM t GROUP BY GROUPING SETS (a", BASALT_INVALID_ARG,
     "unexpected end of query (at position 41)"},
    {"SELECT 1 FROM t GROUP BY GROUPING SETS a", BASALT_INVALID_ARG,
     "syntax error at or near \"a\" (at position 39)"},
    {"SELECT 1 FROM t GROUP BY CUBE (a, b) + 1", BASALT_INVALID_ARG,
     "syntax error at or near \"+\" (at position 37)"},
    {"SELECT 1 FROM t GROUP BY (a, b) + 1", BASALT_INVALID_ARG,
     "syntax error at or near \"+\" (at position 32)"},
};

/* All statements' canonical texts joined with "; ". */
static char *canonical(const char *sql, size_t len, basalt_status *st, struct basalt_error *err)
{
    struct basalt_sql_script *s = NULL;
    *st = basalt_sql_parse(sql, len, &s, err);
    if (*st != BASALT_OK)
        return NULL;
    size_t cap = 1 << 16;
    char *out = malloc(cap), *at = out;
    *at = '\0';
    for (size_t i = 0; i < basalt_sql_script_count(s); i++) {
        if (i)
            at += snprintf(at, cap - (size_t)(at - out), "; ");
        size_t n = basalt_sql_statement_format(s, i, at, cap - (size_t)(at - out));
        at += n;
    }
    basalt_sql_script_free(s);
    return out;
}

TEST(sql_parse_canonical)
{
    for (size_t i = 0; i < sizeof(ok_cases) / sizeof(ok_cases[0]); i++) {
        const struct ok_case *c = &ok_cases[i];
        struct basalt_error err;
        basalt_status st;
        char *got = canonical(c->sql, strlen(c->sql), &st, &err);
        if (!got) {
            bt_fail(__FILE__, __LINE__, "%s: %s", c->sql, err.message);
            continue;
        }
        int same = strcmp(got, c->canonical) == 0;
        if (!same) {
            bt_fail(__FILE__, __LINE__, "%s\n    got:      %s\n    expected: %s", c->sql, got, c->canonical);
            free(got);
            continue;
        }
        /* Round trip: the canonical text is its own canonical text. */
        char *again = canonical(got, strlen(got), &st, &err);
        if (!again || strcmp(again, got) != 0)
            bt_fail(__FILE__, __LINE__, "round trip of %s gave %s (%s)", got, again ? again : "error",
                    again ? "" : err.message);
        free(again);
        free(got);
    }
}

TEST(sql_parse_errors)
{
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        const struct bad_case *c = &bad_cases[i];
        struct basalt_sql_script *s = NULL;
        struct basalt_error err;
        basalt_error_init(&err);
        basalt_status st = basalt_sql_parse(c->sql, strlen(c->sql), &s, &err);
        if (st != c->status || strcmp(err.message, c->message) != 0)
            bt_fail(__FILE__, __LINE__, "%s\n    got:      %s %s\n    expected: %s %s", c->sql,
                    basalt_status_name(st), err.message, basalt_status_name(c->status), c->message);
        CHECK(s == NULL);
    }
}
