// SQL differential: the same queries through `basalt sql` and DuckDB over the
// same Parquet files, results compared.
//
//   node sql_differential.mjs BASALT_BINARY WORKDIR [SEED] [N_RANDOM]
//
// DuckDB writes three seeded tables (NULLs in every nullable column, small row
// groups so scans have many morsels): t (20000 rows), u (3000), v (500). Then
// a fixed list of queries (every clause the binder knows) and N_RANDOM
// generated ones (filters, group-bys with random aggregates, joins, orders)
// run on both sides; basalt runs each with 1, 2 and 4 threads and the three
// answers must be identical. Rows compare order-insensitively unless the query
// orders them completely; numbers to 1e-9 relative; an error must be an error
// on both sides. Exits 1 listing every mismatch.
import { DuckDBInstance } from '@duckdb/node-api';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { canon, compareRows } from './result_compare.mjs';

const [bin, dir, seedArg, nArg] = process.argv.slice(2);
const seed = Number(seedArg ?? 1);
const nRandom = Number(nArg ?? 150);
fs.mkdirSync(dir, { recursive: true });
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await inst.connect();

const T = path.join(dir, 't.parquet'), U = path.join(dir, 'u.parquet'), V = path.join(dir, 'v.parquet');
await conn.run(`SELECT setseed(${(seed % 1000) / 1000})`);
const nul = (p, e) => `CASE WHEN random() < ${p} THEN NULL ELSE ${e} END`;
// m and n (last, from hashes of the row number so that random() draws the
// other columns as before): a correlated pair near 1e9, spread 1000, for
// corr and regr_* with a large mean, over groups of ~1000 rows and more
// only: DuckDB's Welford updates in doubles are ~1e-9 off on a few pairs
// (regr_r2 of two such points is 0.9999999989 there, 1 here).
const hu = k => `((hash(range, ${seed}, ${k}) % 1000001)::DOUBLE / 1000000)`;
const hnul = (k, e) => `CASE WHEN hash(range, ${seed}, ${k}) % 10 = 0 THEN NULL ELSE ${e} END`;
await conn.run(`COPY (SELECT range::BIGINT AS id,
    ${nul(0.05, 'floor(random() * 20)::INTEGER')} AS g,
    ${nul(0.05, "['red','green','blue','','amber'][floor(random() * 5)::INT + 1]")} AS s,
    ${nul(0.1, '(random() - 0.5) * 1000')} AS x,
    ${nul(0.1, '(floor(random() * 100000) / 100)::DECIMAL(12,2)')} AS d,
    ${nul(0.05, "DATE '2023-01-01' + floor(random() * 730)::INT")} AS dt,
    ${nul(0.1, 'random() < 0.4')} AS b,
    floor(random() * 3000)::BIGINT AS uid,
    ${hnul(1, `1e9 + ${hu(2)} * 1000`)} AS m,
    ${hnul(3, `1e9 + 2 * (${hu(2)} * 1000) + ${hu(4)} * 100`)} AS n
  FROM range(20000)) TO '${T}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
await conn.run(`COPY (SELECT range::BIGINT AS uid,
    ${nul(0.05, 'floor(random() * 20)::INTEGER')} AS g,
    'name' || (range % 97)::VARCHAR AS name,
    ${nul(0.1, 'random() * 100')} AS w,
    floor(random() * 500)::BIGINT AS vid
  FROM range(3000)) TO '${U}' (FORMAT parquet, ROW_GROUP_SIZE 512)`);
await conn.run(`COPY (SELECT range::BIGINT AS vid, ['north','south','east','west'][range % 4 + 1] AS region,
    (range * 7 % 13)::INTEGER AS rank FROM range(500)) TO '${V}' (FORMAT parquet)`);
const sub = q => q.replaceAll('$T', `'${T}'`).replaceAll('$U', `'${U}'`).replaceAll('$V', `'${V}'`);

// Queries whose rows come out in a defined order say so with "-- ordered".
const fixed = [
  'SELECT count(*) FROM $T',
  // string keys read as dictionary indices (with NULLs; 97 names)
  'SELECT s, count(*), sum(x), min(id) FROM $T GROUP BY s',
  'SELECT name, count(*), avg(w), max(vid) FROM $U GROUP BY name',
  'SELECT s, count(*), min(s), max(s) FROM $T GROUP BY s',
  // SEMI and ANTI joins with a much larger right side, built on the left
  // (see below)
  'SELECT vid, region FROM $V v WHERE EXISTS (SELECT 1 FROM $T t WHERE t.uid = v.vid)',
  'SELECT vid, rank FROM $V v WHERE NOT EXISTS (SELECT 1 FROM $T t WHERE t.uid = v.vid AND t.g = 3)',
  'SELECT uid, name FROM $U WHERE uid IN (SELECT uid FROM $T)',
  'SELECT vid FROM $V WHERE vid NOT IN (SELECT uid FROM $T WHERE g = 4)',
  'SELECT uid FROM $U WHERE uid IN (SELECT uid FROM $T GROUP BY uid HAVING count(*) > 8)',
  // three tables, the smallest filtered: joined from it (see below)
  "SELECT t.id, u.name, v.rank FROM $T t, $U u, $V v WHERE t.uid = u.uid AND u.vid = v.vid AND v.region = 'north'",
  'SELECT s, count(*), sum(x * 2), avg(d) FROM $T WHERE x > 0 AND g < 15 GROUP BY s',
  "SELECT s, count(*) FROM $T WHERE s <> 'red' GROUP BY s",
  'SELECT count(*), count(g), sum(g), avg(x), min(s), max(s), sum(d), min(dt), max(dt) FROM $T',
  'SELECT * FROM $T WHERE id < 5 ORDER BY id -- ordered',
  'SELECT id, g * 2 + 1 AS y, s || \'!\' AS t FROM $T WHERE g BETWEEN 3 AND 5 AND s IS NOT NULL',
  'SELECT g, count(*) AS n, sum(x) AS sx FROM $T GROUP BY g',
  'SELECT g, s, count(*), avg(d) FROM $T GROUP BY ALL',
  'SELECT s, count(DISTINCT g) FROM $T GROUP BY s',
  'SELECT g, max(x) - min(x) AS spread FROM $T GROUP BY 1 HAVING count(*) > 900',
  'SELECT g % 3 AS k, sum(d) FROM $T WHERE b GROUP BY k ORDER BY k NULLS FIRST -- ordered',
  'SELECT id, x FROM $T WHERE x IS NOT NULL ORDER BY x DESC LIMIT 10 -- ordered',
  'SELECT id, dt FROM $T ORDER BY dt NULLS FIRST, id LIMIT 25 OFFSET 10 -- ordered',
  'SELECT DISTINCT s FROM $T',
  'SELECT DISTINCT g, b FROM $T WHERE g < 4',
  'SELECT t.id, u.name FROM $T t JOIN $U u ON t.uid = u.uid WHERE t.id < 300',
  'SELECT u.name, count(*) AS n, sum(t.x) FROM $T t JOIN $U u ON t.uid = u.uid GROUP BY u.name',
  'SELECT v.region, count(*), avg(u.w) FROM $T t, $U u, $V v WHERE t.uid = u.uid AND u.vid = v.vid AND t.g = 3 GROUP BY v.region',
  'SELECT u.uid, t.id FROM $U u LEFT JOIN $T t ON u.uid = t.uid AND t.g = 7 WHERE u.uid < 200',
  'SELECT u.uid FROM $U u SEMI JOIN $T t ON u.uid = t.uid WHERE u.uid < 500',
  'SELECT t.id, u.uid, u.name FROM $T t RIGHT JOIN $U u ON t.uid = u.uid AND t.id < 100 WHERE u.uid < 300',
  'SELECT t.id, u.uid FROM (SELECT * FROM $T WHERE id < 2000) t FULL JOIN (SELECT * FROM $U WHERE uid > 2900) u ON t.uid = u.uid',
  'SELECT v.region, count(*) FROM $U u JOIN $V v ON u.vid = v.vid LEFT JOIN $T t ON t.uid = u.uid AND t.g = 1 GROUP BY v.region',
  // an outer join's ON condition on the side it keeps must not filter that
  // side; one on the other side filters it before the join
  'SELECT u.uid, t.id FROM $U u LEFT JOIN $T t ON u.uid = t.uid AND u.g = 2 AND t.x > 0 WHERE u.uid < 300',
  'SELECT t.id, u.uid FROM $T t RIGHT JOIN $U u ON t.uid = u.uid AND u.w > 50 AND t.g < 5 WHERE u.uid < 300',
  'SELECT t.id, u.uid FROM (SELECT * FROM $T WHERE id < 2000) t FULL JOIN $U u ON t.uid = u.uid AND t.g = 3 AND u.g = 4',
  'SELECT u.uid FROM $U u SEMI JOIN $T t ON u.uid = t.uid AND t.g = 5 AND t.s LIKE \'%a%b%\' WHERE u.uid < 800',
  'SELECT u.uid FROM $U u ANTI JOIN $T t ON u.uid = t.uid AND t.g = 5 WHERE u.uid < 800',
  'SELECT count(*) FROM $T t JOIN $U u USING (uid) WHERE t.g = u.g',
  'SELECT id FROM $T t WHERE EXISTS (SELECT 1 FROM $U u WHERE u.uid = t.uid AND u.w > 95) AND id < 3000',
  'SELECT id FROM $T t WHERE NOT EXISTS (SELECT 1 FROM $U u WHERE u.uid = t.uid AND u.g = t.g) AND id < 500',
  'SELECT uid, w FROM $U u WHERE w > (SELECT avg(x) FROM $T t WHERE t.uid = u.uid) AND uid < 1000',
  'SELECT u.uid FROM $U u ANTI JOIN $T t ON u.uid = t.uid',
  'SELECT count(*) FROM $T t JOIN $U u ON t.uid = u.uid AND t.g = u.g',
  'SELECT t.id, u.w FROM $T t JOIN $U u ON t.uid = u.uid AND t.x < u.w WHERE t.id < 2000',
  'SELECT g FROM $T WHERE id < 10 UNION SELECT g FROM $U WHERE uid < 10',
  'SELECT g FROM $T WHERE id < 10 UNION ALL SELECT g FROM $U WHERE uid < 10',
  'SELECT uid % 50 FROM $T WHERE id < 100 INTERSECT SELECT uid % 50 FROM $U WHERE uid < 30',
  'SELECT uid % 50 FROM $T WHERE id < 100 EXCEPT SELECT uid % 50 FROM $U WHERE uid < 30',
  // set operations compare rows as IS NOT DISTINCT FROM: NULL meets NULL
  'SELECT s, g FROM $T WHERE id < 400 INTERSECT SELECT s, g FROM $T WHERE id >= 200',
  'SELECT s, g FROM $T WHERE id < 400 EXCEPT SELECT s, g FROM $T WHERE id >= 300 AND id < 700',
  'SELECT CASE WHEN x > 0 THEN NULL ELSE g END AS k FROM $T WHERE id < 50 EXCEPT SELECT g FROM $T WHERE id > 900',
  // INTERSECT ALL / EXCEPT ALL keep duplicates: min(cl, cr) and cl - cr copies
  'SELECT uid % 50 FROM $T WHERE id < 300 INTERSECT ALL SELECT uid % 50 FROM $U WHERE uid < 90',
  'SELECT uid % 50 FROM $T WHERE id < 300 EXCEPT ALL SELECT uid % 50 FROM $U WHERE uid < 90',
  'SELECT s, g FROM $T WHERE id < 3000 INTERSECT ALL SELECT s, g FROM $T WHERE id >= 2000 AND id < 2600',
  'SELECT s, g FROM $T WHERE id < 3000 EXCEPT ALL SELECT s, g FROM $T WHERE id >= 2500 AND id < 9000',
  'SELECT g, x > 0 AS p FROM $T EXCEPT ALL SELECT g, w > 50 FROM $U',
  'SELECT g FROM $U INTERSECT ALL SELECT g FROM $T WHERE id < 5000 EXCEPT ALL SELECT rank FROM $V',
  'WITH big AS (SELECT uid, count(*) AS n FROM $T GROUP BY uid) SELECT n, count(*) FROM big GROUP BY n',
  // select-list aliases in WHERE, HAVING and QUALIFY; a column of the same
  // name wins over an alias
  'SELECT id % 7 AS k, count(*) FROM $T WHERE k < 3 AND k IS NOT NULL GROUP BY k',
  'SELECT g, sum(x) AS sx, count(*) AS n FROM $T GROUP BY g HAVING sx > 0 AND n > 900',
  'SELECT uid, row_number() OVER (PARTITION BY g ORDER BY uid) AS rn FROM $U QUALIFY rn <= 2',
  'SELECT x + 1 AS x, id FROM $T WHERE x > 0 AND id < 50',
  // an integer literal beside a UBIGINT takes its type (hash(x) % 1000)
  'SELECT uid::UBIGINT % 7 AS mod7, count(*) FROM $T GROUP BY mod7',
  'SELECT count(*) FROM $T WHERE uid::UBIGINT = 5 OR uid::UBIGINT IN (7, 9) OR 11 = uid::UBIGINT',
  'SELECT sum(uid::UBIGINT * 3 + 1), max(uid::UBIGINT // 2), min(CASE WHEN g > 2 THEN uid::UBIGINT ELSE 0 END) FROM $T',
  // lateral aliases: an item reads the aliases of the items before it (in
  // turn), a column of the same name wins, an aggregate's alias works in a
  // later item, and WHERE sees through the chain
  'SELECT id AS a, a + 1 AS b, b * 2 AS c FROM $T WHERE c > 10 AND id < 40',
  'SELECT x * 2 AS id, id + 1 AS y FROM $T WHERE id < 30',
  'SELECT g, count(*) AS n, sum(x) AS sx, sx / n AS mean, n * 2 AS n2 FROM $T GROUP BY g',
  'SELECT uid, row_number() OVER (PARTITION BY g ORDER BY uid) AS rn, rn * 10 AS r10 FROM $U',
  // HAVING: an alias wins over an ungrouped column, an aggregate's argument is the column
  'SELECT g, count(*) AS x FROM $T GROUP BY g HAVING x > 1000',
  'SELECT g AS x, count(*) AS c FROM $T GROUP BY g HAVING max(x) > 499',
  // a FROM and WHERE that a scalar subquery repeats, computed once
  'SELECT t.g, sum(x) AS sx FROM $T t JOIN $U u ON t.uid = u.uid WHERE u.w > 10 GROUP BY t.g HAVING sum(x) > (SELECT sum(x) * 0.05 FROM $T t JOIN $U u ON t.uid = u.uid WHERE u.w > 10) ORDER BY sx',
  'SELECT count(*), (SELECT count(*) FROM $T WHERE g = 3) AS again FROM $T WHERE g = 3',
  'SELECT t.g AS grp, count(*) AS n FROM $T t, $V v WHERE t.uid % 500 = v.vid AND v.rank < 5 GROUP BY grp HAVING count(*) > (SELECT count(*) / 40 FROM $T t, $V v WHERE t.uid % 500 = v.vid AND v.rank < 5) ORDER BY n DESC, grp',
  // (x is a column of T and the alias of t.g: HAVING and ORDER BY mean the alias)
  'SELECT t.g AS x, count(*) AS n FROM $T t, $V v WHERE t.uid % 500 = v.vid AND v.rank < 5 GROUP BY t.g HAVING n > (SELECT count(*) / 40 FROM $T t, $V v WHERE t.uid % 500 = v.vid AND v.rank < 5) ORDER BY x',
  // DISTINCT aggregates without GROUP BY: grouped by their argument first
  'SELECT count(DISTINCT g), count(*), count(s), sum(x), min(id), max(s), sum(d) FROM $T WHERE id > 100',
  'SELECT count(DISTINCT uid) * 2 + 1 AS k, avg(DISTINCT uid), sum(DISTINCT uid), min(DISTINCT uid) FROM $T',
  'SELECT count(DISTINCT s), count(*), sum(x), max(d) FROM $T WHERE id < 0',
  'SELECT count(DISTINCT g) AS n FROM $T HAVING count(*) > 5 ORDER BY n',
  'SELECT count(DISTINCT g), count(DISTINCT uid) FROM $T',
  // || turns numbers into text, never a text literal into a number
  "SELECT 'id-' || id, g || '', 'x' || x FROM $T WHERE id < 20",
  // correlated scalar subqueries narrowed to the keys of a filtered outer
  // table (a SEMI join under their aggregate); COUNT's 0 over no rows kept
  'SELECT uid, w FROM $U u WHERE g = 3 AND w > (SELECT avg(x) FROM $T t WHERE t.uid = u.uid)',
  'SELECT uid, (SELECT count(*) FROM $T t WHERE t.uid = u.uid AND t.g > 2) AS n FROM $U u WHERE u.w < 20',
  'SELECT uid FROM $U u WHERE uid IN (SELECT uid FROM $T WHERE g = 1) AND w < (SELECT sum(x) FROM $T t WHERE t.uid = u.uid AND t.g = u.g)',
  'SELECT v.vid, u.uid FROM $V v, $U u WHERE v.vid = u.vid AND v.rank = 3 AND u.w > (SELECT avg(w) FROM $U x WHERE x.vid = v.vid)',
  // CTEs read twice: computed once when they aggregate or say MATERIALIZED
  'WITH r AS (SELECT uid, sum(x) AS sx FROM $T GROUP BY uid) SELECT uid, sx FROM r WHERE sx = (SELECT max(sx) FROM r)',
  'WITH r AS (SELECT g, count(*) AS n FROM $T GROUP BY g), q AS (SELECT max(n) AS m FROM r) SELECT r.g FROM r, q WHERE r.n * 2 > q.m',
  'WITH r AS MATERIALIZED (SELECT uid, s FROM $T WHERE id < 300) SELECT a.uid, b.s FROM r a JOIN r b ON a.uid = b.uid',
  'WITH r AS NOT MATERIALIZED (SELECT g, min(x) AS lo FROM $T GROUP BY g) SELECT * FROM r UNION ALL SELECT * FROM r',
  'WITH r AS (SELECT DISTINCT g FROM $T) SELECT count(*) FROM r a, r b WHERE a.g < b.g',
  // the inner r hides the outer one inside the subquery
  'WITH r AS (SELECT g, count(*) AS n FROM $T GROUP BY g) SELECT * FROM r WHERE n > (WITH r AS (SELECT 1 AS n) SELECT n FROM r)',
  'SELECT * FROM (SELECT g, sum(x) AS sx FROM $T GROUP BY g) q WHERE sx > 0',
  'SELECT id FROM $T WHERE x > (SELECT avg(x) FROM $T) AND id < 100',
  // correlated scalar subqueries in the SELECT list
  'SELECT uid, (SELECT count(*) FROM $T t WHERE t.uid = u.uid) AS n FROM $U u WHERE vid < 30',
  'SELECT uid, w - (SELECT avg(x) FROM $T t WHERE t.uid = u.uid AND t.g > 5) AS dx FROM $U u WHERE vid < 30',
  // a correlated COUNT over no rows is 0, not NULL
  'SELECT uid, w FROM $U u WHERE (SELECT count(*) FROM $T t WHERE t.uid = u.uid AND t.g = 3) = 0 AND vid < 40',
  'SELECT count(*) FROM $U u WHERE (SELECT count(x) FROM $T t WHERE t.uid = u.uid) < 3',
  'SELECT count(*) FROM $T WHERE uid IN (SELECT uid FROM $U WHERE w > 90)',
  'SELECT count(*) FROM $T WHERE uid NOT IN (SELECT uid FROM $U WHERE w > 50)',
  // IN (subquery) as a semi join: onto one relation before the joins, onto the join
  // after them, with NULLs and duplicates in the subquery and another column type
  'SELECT t.id, u.w FROM $T t JOIN $U u ON t.uid = u.uid WHERE t.g IN (SELECT g FROM $T WHERE x > 50) AND t.id < 500',
  'SELECT count(*) FROM $T t JOIN $U u ON t.uid = u.uid WHERE t.uid + u.uid IN (SELECT uid * 2 FROM $U)',
  'SELECT count(*), sum(id) FROM $T WHERE uid IN (SELECT CASE WHEN w > 50 THEN NULL ELSE uid END FROM $U)',
  'SELECT id FROM $T WHERE CAST(uid AS BIGINT) IN (SELECT uid FROM $U UNION ALL SELECT uid FROM $U) AND id < 300',
  'SELECT CASE WHEN x > 0 THEN \'pos\' WHEN x < 0 THEN \'neg\' ELSE \'zero\' END AS sign, count(*) FROM $T GROUP BY 1',
  'SELECT extract(year FROM dt) AS y, extract(month FROM dt) AS m, count(*) FROM $T GROUP BY ALL',
  'SELECT date_trunc(\'month\', dt) AS mo, sum(d) FROM $T WHERE dt >= DATE \'2024-01-01\' GROUP BY 1',
  'SELECT id, dt + 30 AS a, dt - g AS b, 7 + dt AS c, (dt + g) - dt AS n FROM $T WHERE id < 300',
  'SELECT id FROM $T WHERE dt < \'2023-01-10\' AND s LIKE \'%r%\'',
  'SELECT coalesce(s, \'none\') AS s2, count(*) FROM $T GROUP BY s2',
  'SELECT g, stddev(x), variance(x), median(x) FROM $T GROUP BY g',
  'SELECT g, string_agg(DISTINCT s, \',\' ORDER BY s) FROM $T WHERE g < 3 GROUP BY g',
  'SELECT bool_and(b), bool_or(b) FROM $T',
  'SELECT g, count(*) FILTER (WHERE b) FROM $T GROUP BY g',
  'SELECT g, corr(x, d), covar_pop(x, d), covar_samp(x, d), regr_slope(x, d), regr_intercept(x, d), regr_r2(x, d) FROM $T GROUP BY g',
  'SELECT s, regr_count(x, g), regr_avgx(x, g), regr_avgy(x, g), regr_sxx(x, g), regr_syy(x, g), regr_sxy(x, g) FROM $T GROUP BY s',
  'SELECT corr(n, m), covar_samp(n, m), regr_slope(n, m), regr_intercept(n, m), regr_r2(n, m), regr_avgx(n, m), regr_sxx(n, m), regr_syy(n, m), regr_count(n, m) FROM $T',
  'SELECT g, corr(n, m), covar_pop(m, n), regr_slope(n, m), regr_sxy(n, m), regr_avgy(n, m) FROM $T GROUP BY g',
  'SELECT g, corr(x, d) FILTER (WHERE b), regr_count(x, d) FILTER (WHERE s = \'red\'), regr_sxy(x, d) FILTER (WHERE dt < DATE \'2024-01-01\') FROM $T GROUP BY g',
  'SELECT b, corr(x, g), regr_r2(d, g), regr_slope(x, g), regr_intercept(x, g), regr_r2(g, x) FROM $T WHERE g = 3 GROUP BY b',
  'SELECT g % 4 AS k, regr_slope(x * 2 + 1, d - 5), pow(corr(x, d + x), 2) AS r2 FROM $T GROUP BY k HAVING regr_count(x, d) > 100',
  'SELECT id % 1000 AS k, corr(x, d), covar_samp(x, d), regr_intercept(d, x) FROM $T GROUP BY k',
  'SELECT corr(x, d), regr_count(x, d) FROM $T WHERE id < 0',
  'SELECT corr(s, x) FROM $T',
  'SELECT * FROM (VALUES (1, \'a\'), (2, \'b\')) v(k, name)',
  'SELECT 1 + 2, 7 // 2, 7 % 3, 2.5 * 4, \'x\' || \'y\'',
  'SELECT id, x FROM $T WHERE id IN (1, 2, 3, 99999)',
  'SELECT name, w FROM $U ORDER BY name, uid LIMIT 5 -- ordered',
  'SELECT count(*) FROM read_parquet([$T, $T])',
  'SELECT count(*) FROM $T WHERE s = \'red\' AND g = 4 AND x IS NULL',
  'SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY id) AS rn FROM $T WHERE id < 500',
  'SELECT id, sum(x) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) FROM $T WHERE id < 300',
  'SELECT id, min(d) OVER w, max(d) OVER w, count(d) OVER w FROM $T WHERE id < 400 WINDOW w AS (PARTITION BY s ORDER BY id ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)',
  'SELECT g, s, count(*) AS n, rank() OVER (PARTITION BY g ORDER BY count(*) DESC) AS r, dense_rank() OVER (PARTITION BY g ORDER BY count(*) DESC) AS dr FROM $T GROUP BY g, s',
  'SELECT id, lag(x) OVER (ORDER BY id) AS p, lead(x, 2) OVER (ORDER BY id) AS n2, first_value(x) OVER (ORDER BY id) AS f FROM $T WHERE id < 100',
  'SELECT uid, g, avg(w) OVER (PARTITION BY g) AS a, sum(w) OVER (PARTITION BY g ORDER BY uid) AS run FROM $U',
  'SELECT id, g FROM $T WHERE id < 2000 QUALIFY row_number() OVER (PARTITION BY g ORDER BY x DESC NULLS LAST, id) <= 2',
  'SELECT id, ntile(4) OVER (ORDER BY id) AS q, percent_rank() OVER (ORDER BY id) AS pr, cume_dist() OVER (ORDER BY id) AS cd FROM $T WHERE id < 50',
  'SELECT nosuchcolumn FROM $T',
  'SELECT * FROM $T WHERE',
  'SELECT sum(s) FROM $T',
];

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6D2B79F5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const r = rng(seed * 7919);
const pick = a => a[Math.floor(r() * a.length)];
const preds = ['g < 5', 'g >= 10', 'x > 100', 'x < -250', "s = 'red'", "s <> 'blue'", 's IS NULL', 'b',
  'NOT b', 'd > 500', "dt >= DATE '2024-03-01'", 'id % 7 = 3', 'g IS NOT NULL AND x > 0', 'g IN (1, 3, 5)',
  "s LIKE '%e%'", 'x BETWEEN -100 AND 100', 'uid < 1000'];
const keys = ['g', 's', 'b', 'g % 4', 'dt', 'uid % 10'];
const aggs = ['count(*)', 'count(x)', 'sum(x)', 'avg(x)', 'min(d)', 'max(d)', 'sum(d)', 'min(s)', 'max(dt)',
  'count(DISTINCT s)', 'avg(g)', 'sum(g)', 'corr(x, d)', 'regr_slope(d, g)', 'covar_samp(x, g)',
  'regr_r2(x, d)'];
const random = [];
for (let i = 0; i < nRandom; i++) {
  const where = r() < 0.8 ? ` WHERE ${pick(preds)}${r() < 0.4 ? ' AND ' + pick(preds) : ''}` : '';
  const kind = r();
  if (kind < 0.45) {
    const k = [...new Set([pick(keys), ...(r() < 0.3 ? [pick(keys)] : [])])];
    const a = [...new Set([pick(aggs), pick(aggs)])];
    random.push(`SELECT ${k.join(', ')}, ${a.join(', ')} FROM $T${where} GROUP BY ${k.map((_, j) => j + 1).join(', ')}`);
  } else if (kind < 0.7) {
    random.push(`SELECT ${[...new Set([pick(aggs), pick(aggs)])].join(', ')} FROM $T${where}`);
  } else if (kind < 0.85) {
    const jt = pick(['JOIN', 'LEFT JOIN']);
    random.push(`SELECT t.id, t.g, u.name, u.w FROM $T t ${jt} $U u ON t.uid = u.uid${where.replace(/\b(g|x|s|b|d|dt|id|uid)\b/g, 't.$1')}`);
  } else {
    const n = 1 + Math.floor(r() * 30);
    random.push(`SELECT id, g, x FROM $T${where} ORDER BY ${pick(['x', 'g', 'dt'])} ${pick(['ASC', 'DESC'])} NULLS LAST, id LIMIT ${n} -- ordered`);
  }
}

async function duck(q) {
  try {
    const reader = await conn.runAndReadAll(q);
    return { rows: reader.getRowsJson().map(row => row.map(canon)) };
  } catch (e) {
    return { error: String(e.message).split('\n')[0] };
  }
}
function ours(q, threads) {
  const p = spawnSync(bin, ['sql', q, '--format', 'json', '--threads', String(threads)], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (p.status !== 0) return { error: p.stderr.trim() };
  const rows = p.stdout.split('\n').filter(Boolean).map(line => Object.values(JSON.parse(line)).map(canon));
  return { rows, raw: p.stdout };
}

let failures = 0, compared = 0;
const all = [...fixed, ...random];
for (let i = 0; i < all.length; i++) {
  const q = sub(all[i]);
  const ordered = all[i].includes('-- ordered');
  const d = await duck(q);
  const b1 = ours(q, 1);
  const fail = msg => { failures++; console.log(`MISMATCH #${i}: ${all[i]}\n  ${msg}`); };
  if (d.error || b1.error) {
    if (!(d.error && b1.error)) fail(`duckdb: ${d.error ?? 'ok'}; basalt: ${b1.error ?? 'ok'}`);
    continue;
  }
  for (const threads of [2, 4]) {
    const bn = ours(q, threads);
    if (bn.error || bn.raw !== b1.raw) fail(`${threads} threads differ from 1 thread${bn.error ? ': ' + bn.error : ''}`);
  }
  const bad = compareRows(d.rows, b1.rows, ordered);
  if (bad) fail(bad);
  else compared += d.rows.length;
}
// Plan shape: a LEFT join's ON condition on its right side filters that
// input under the join (the FILTER indented right below HASH_JOIN); one on
// the left side stays in the join.
{
  const plan = q => {
    const p = spawnSync(bin, ['sql', sub(`EXPLAIN ${q}`), '--format', 'csv'], { encoding: 'utf8' });
    return p.status === 0 ? p.stdout : `error: ${p.stderr}`;
  };
  const depth = line => line.search(/\S/);
  const pushed = plan('SELECT u.uid, t.id FROM $U u LEFT JOIN $T t ON u.uid = t.uid AND t.g = 7').split('\n');
  // (LEFT, or RIGHT when the join builds the users and probes the bigger table)
  const j = pushed.findIndex(l => /HASH_JOIN (LEFT|RIGHT)/.test(l));
  const f = pushed.findIndex(l => l.includes('FILTER'));
  if (j < 0 || f <= j || depth(pushed[f]) !== depth(pushed[j]) + 2) {
    failures++;
    console.log(`PLAN: the right side's ON condition is not a filter under the join:\n${pushed.join('\n')}`);
  }
  // A FROM list whose smallest table is filtered joins from it (u with the
  // northern v first), and the largest (t) probes that join's result: the
  // top join's probe input is t's scan, its build input the other join.
  const star = plan("SELECT t.id, u.name FROM $T t, $U u, $V v WHERE t.uid = u.uid AND u.vid = v.vid AND v.region = 'north'").split('\n');
  const top = star.findIndex(l => l.includes('HASH_JOIN'));
  const below = star.slice(top + 1).filter(l => depth(l.replace(/^"/, '')) === depth(star[top]) + 2);
  if (top < 0 || below.length !== 2 || !/PARQUET_SCAN 1 file \[id, uid\]/.test(below[0]) || !/HASH_JOIN/.test(below[1])) {
    failures++;
    console.log(`PLAN: the three-table join does not start from the filtered small table:\n${star.join('\n')}`);
  }
  // EXISTS over a table much larger than the outer one builds the outer
  // side; not when the subquery aggregates (its size is a guess).
  const semi = plan('SELECT vid, region FROM $V v WHERE EXISTS (SELECT 1 FROM $T t WHERE t.uid = v.vid)');
  if (!/HASH_JOIN SEMI keys=1 build=left/.test(semi)) {
    failures++;
    console.log(`PLAN: the EXISTS join does not build its small left side:\n${semi}`);
  }
  const grouped = plan('SELECT uid FROM $U WHERE uid IN (SELECT uid FROM $T GROUP BY uid HAVING count(*) > 8)');
  if (/build=left/.test(grouped) || !/HASH_JOIN SEMI/.test(grouped)) {
    failures++;
    console.log(`PLAN: an IN over an aggregate was turned around:\n${grouped}`);
  }
  // A correlated subquery over a table four times its filtered outer one
  // groups only the keys that table keeps; not when the outer table is the
  // larger or nothing filters it.
  const narrowed = plan('SELECT uid, w FROM $U u WHERE g = 3 AND w > (SELECT avg(x) FROM $T t WHERE t.uid = u.uid)').split('\n');
  const agg = narrowed.findIndex(l => /HASH_GROUP_BY keys=1/.test(l));
  if (agg < 0 || !/HASH_JOIN SEMI/.test(narrowed[agg + 1] || '')) {
    failures++;
    console.log(`PLAN: the correlated subquery's input is not narrowed:\n${narrowed.join('\n')}`);
  }
  for (const q of ['SELECT id FROM $T t WHERE g = 3 AND x > (SELECT avg(w) FROM $U u WHERE u.uid = t.uid)',
    'SELECT uid, w FROM $U u WHERE w > (SELECT avg(x) FROM $T t WHERE t.uid = u.uid)']) {
    const whole = plan(q);
    if (/SEMI/.test(whole) || !/HASH_GROUP_BY/.test(whole)) {
      failures++;
      console.log(`PLAN: a correlated subquery was narrowed where it should not be:\n${whole}`);
    }
  }
  // The FROM and WHERE a scalar subquery repeats are computed once; not
  // when its WHERE differs.
  const shared = plan('SELECT t.g, sum(x) AS sx FROM $T t JOIN $U u ON t.uid = u.uid WHERE u.w > 10 GROUP BY t.g HAVING sum(x) > (SELECT sum(x) * 0.05 FROM $T t JOIN $U u ON t.uid = u.uid WHERE u.w > 10)');
  if (!/VALUES \(CTE __shared\)/.test(shared) || /HASH_JOIN/.test(shared)) {
    failures++;
    console.log(`PLAN: the repeated FROM and WHERE are not computed once:\n${shared}`);
  }
  if (/__shared/.test(plan('SELECT g, sum(x) FROM $T WHERE id > 5 GROUP BY g HAVING sum(x) > (SELECT sum(x) * 0.05 FROM $T WHERE id > 6)'))) {
    failures++;
    console.log('PLAN: a subquery with another WHERE was shared');
  }
  // A DISTINCT aggregate without GROUP BY is grouped by its argument
  // first; not when two DISTINCT aggregates read different arguments.
  const split = plan('SELECT count(DISTINCT g), count(*), sum(x) FROM $T').split('\n');
  const outerAgg = split.findIndex(l => /HASH_GROUP_BY keys=0/.test(l));
  if (outerAgg < 0 || !split.slice(outerAgg + 1).some(l => /HASH_GROUP_BY keys=1/.test(l))) {
    failures++;
    console.log(`PLAN: the DISTINCT aggregate is not grouped first:\n${split.join('\n')}`);
  }
  if (/keys=1/.test(plan('SELECT count(DISTINCT g), count(DISTINCT uid) FROM $T'))) {
    failures++;
    console.log('PLAN: DISTINCT aggregates of two arguments were split');
  }
  // A CTE read twice that aggregates is computed once; read once, or said
  // NOT MATERIALIZED, it is planned at its reference.
  const twice = plan('WITH r AS (SELECT uid, sum(x) AS sx FROM $T GROUP BY uid) SELECT uid FROM r WHERE sx = (SELECT max(sx) FROM r)');
  if (!/VALUES \(CTE r\)/.test(twice) || /HASH_GROUP_BY/.test(twice)) {
    failures++;
    console.log(`PLAN: a CTE read twice is not computed once:\n${twice}`);
  }
  for (const q of ['WITH r AS (SELECT uid, sum(x) AS sx FROM $T GROUP BY uid) SELECT uid FROM r WHERE sx > 0',
    'WITH r AS NOT MATERIALIZED (SELECT uid, sum(x) AS sx FROM $T GROUP BY uid) SELECT a.uid FROM r a JOIN r b USING (uid)',
    'WITH r AS (SELECT uid, x FROM $T) SELECT a.uid FROM r a JOIN r b USING (uid)']) {
    const inline = plan(q);
    if (/VALUES/.test(inline) || !/PARQUET_SCAN/.test(inline)) {
      failures++;
      console.log(`PLAN: a CTE was computed once where it should be planned again:\n${inline}`);
    }
  }
  const kept = plan('SELECT u.uid, t.id FROM $U u LEFT JOIN $T t ON u.uid = t.uid AND u.g = 7');
  if (/FILTER/.test(kept)) {
    failures++;
    console.log(`PLAN: the kept side's ON condition filters it:\n${kept}`);
  }
}
// A GROUP BY on string columns straight over Parquet groups them by their
// dictionary indices (EXPLAIN ANALYZE counts the batches); not when an
// argument reads the key column too.
{
  const analyze = q => {
    const p = spawnSync(bin, ['sql', sub(`EXPLAIN ANALYZE ${q}`), '--format', 'csv'], { encoding: 'utf8' });
    return p.status === 0 ? p.stdout : `error: ${p.stderr}`;
  };
  const by = analyze('SELECT name, count(*) FROM $U GROUP BY name');
  if (!/HASH_GROUP_BY[^\n]* dictionary_map_batches=[1-9]/.test(by)) {
    failures++;
    console.log(`PLAN: the string key is not grouped by its dictionary indices:\n${by}`);
  }
  const filtered = analyze('SELECT s, count(*), sum(x * 2) FROM $T WHERE x > 0 GROUP BY s');
  if (!/HASH_GROUP_BY[^\n]* dictionary_map_batches=[1-9]/.test(filtered) || !/FILTER/.test(filtered)) {
    failures++;
    console.log(`PLAN: the string key under a filter is not grouped by its indices:\n${filtered}`);
  }
  for (const q of ['SELECT s, min(s) FROM $T GROUP BY s', "SELECT s, count(*) FROM $T WHERE s <> 'red' GROUP BY s"]) {
    const read = analyze(q);
    if (/dictionary_batches/.test(read) || !/HASH_GROUP_BY/.test(read)) {
      failures++;
      console.log(`PLAN: a key something else reads was read as a dictionary:\n${read}`);
    }
  }
}
console.log(`${all.length} queries, ${compared} rows compared, ${failures} mismatches`);
process.exit(failures ? 1 : 0);
