// The taxi table of basalt-taxigen checked by DuckDB: the schema (types,
// OPTIONAL columns, Parquet field ids 1..19), the rows per month against
// manifest.json and against the largest-remainder split of the TLC's monthly
// counts (computed here, not by the generator), pickups inside their file's
// month, the row order (by pickup hour, the flex block last), the flex rows'
// NULLs, money in whole cents with total_amount the sum of its parts, and
// the marginals measured on the reference generator's 10M table within a
// tolerance that several standard errors at ~200k rows allow. Each check is
// a query whose answer must equal the value written here from the README's
// rules, or lie within `tol` of the README's share.
//   node taxigen_check.mjs DIR SCALE
// Prints one line per failed check, then the measured shares, and exits 1 if
// any check failed.
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import path from 'node:path';

const [dir, scaleArg] = process.argv.slice(2);
if (!dir || !scaleArg) {
  console.error('usage: node taxigen_check.mjs DIR SCALE');
  process.exit(2);
}
const scale = Number(scaleArg);

// The TLC's raw yellow-trip row counts, 2023-01..2024-12 (README section 2).
const MONTH_WEIGHTS = [
  3066766, 2913955, 3403766, 3288250, 3513649, 3307234, 2907108, 2824209, 2846722, 3522285, 3339715, 3376567,
  2964624, 3007526, 3582628, 3514289, 3723833, 3539193, 3076903, 2979183, 3633030, 3833771, 3646369, 3668371,
];
function monthCounts(n) {
  const total = BigInt(MONTH_WEIGHTS.reduce((a, b) => a + b, 0));
  const exact = MONTH_WEIGHTS.map((w) => BigInt(w) * BigInt(n));
  const out = exact.map((e) => Number(e / total));
  const order = exact.map((e, i) => [e % total, i]).sort((a, b) => (a[0] === b[0] ? a[1] - b[1] : a[0] > b[0] ? -1 : 1));
  const left = n - out.reduce((a, b) => a + b, 0);
  for (let k = 0; k < left; k++) out[order[k][1]]++;
  return out;
}
const tags = MONTH_WEIGHTS.map((_, i) => `${2023 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`);
// The split must give the README's numbers (q7's real answer at full scale).
for (const [n, i, rows] of [[79478796, 17, 3539142], [1e6, 0, 38585], [1e7, 23, 461547]])
  if (monthCounts(n)[i] !== rows) throw new Error(`monthCounts(${n})[${i}] is not ${rows}`);

const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await inst.connect();
await conn.run(`CREATE VIEW t AS SELECT *, regexp_extract(filename, 'yellow_tripdata_(\\d{4}-\\d{2})\\.parquet$', 1) AS tag
  FROM read_parquet('${path.join(dir, 'yellow_tripdata_*.parquet')}', filename = true, file_row_number = true)`);
const one = path.join(dir, 'yellow_tripdata_2024-06.parquet');

const COLUMNS = [
  ['VendorID', 'INTEGER'], ['tpep_pickup_datetime', 'TIMESTAMP'], ['tpep_dropoff_datetime', 'TIMESTAMP'],
  ['passenger_count', 'INTEGER'], ['trip_distance', 'DOUBLE'], ['RatecodeID', 'INTEGER'],
  ['store_and_fwd_flag', 'VARCHAR'], ['PULocationID', 'INTEGER'], ['DOLocationID', 'INTEGER'],
  ['payment_type', 'INTEGER'], ['fare_amount', 'DOUBLE'], ['extra', 'DOUBLE'], ['mta_tax', 'DOUBLE'],
  ['tip_amount', 'DOUBLE'], ['tolls_amount', 'DOUBLE'], ['improvement_surcharge', 'DOUBLE'],
  ['total_amount', 'DOUBLE'], ['congestion_surcharge', 'DOUBLE'], ['airport_fee', 'DOUBLE'],
];
const FLEX_NULL = ['passenger_count', 'RatecodeID', 'store_and_fwd_flag', 'congestion_surcharge', 'airport_fee'];
const MONEY = COLUMNS.slice(10).map(([c]) => c);
const q = (c) => `"${c}"`;
const share = (cond) => `100.0 * count(*) FILTER (${cond}) / count(*)`;

const checks = [];
const eq = (name, sql, want) => checks.push({ name, sql, want });
// `sql` gives a percentage; README's value `target`, allowed off by `tol` points.
const near = (name, sql, target, tol) => checks.push({ name, sql, target, tol });

eq('24 monthly files', `SELECT count(DISTINCT filename) FROM t`, 24);
eq('column names and types', `SELECT string_agg(column_name || ' ' || column_type, ', ') FROM (DESCRIBE SELECT * EXCLUDE (filename, file_row_number, tag) FROM t)`,
  COLUMNS.map(([c, ty]) => `${c} ${ty}`).join(', '));
eq('field ids 1..19 in order, every column OPTIONAL', `SELECT string_agg(name || ':' || field_id || ':' || repetition_type, ',')
  FROM parquet_schema('${one}') WHERE name <> 'schema'`, COLUMNS.map(([c], i) => `${c}:${i + 1}:OPTIONAL`).join(','));
eq('field ids the same in every file', `SELECT count(DISTINCT s) FROM (SELECT file_name, string_agg(name || field_id, ',') s
  FROM parquet_schema('${path.join(dir, '*.parquet')}') GROUP BY 1)`, 1);
eq('timestamps naive microseconds', `SELECT count(*) FROM parquet_schema('${one}') WHERE name LIKE 'tpep%'
  AND logical_type LIKE '%isAdjustedToUTC=0%' AND logical_type LIKE '%MICROS=MicroSeconds()%'`, 2);
eq('zstd everywhere', `SELECT string_agg(DISTINCT compression, ',') FROM parquet_metadata('${path.join(dir, '*.parquet')}')`, 'ZSTD');

// Rows per month: the manifest, the files and the split all agree.
const want = monthCounts(scale);
// Checked here, not by DuckDB: what the manifest says of the run.
checks.push({ name: 'manifest: scale, months, files and rows', value: JSON.stringify([manifest.scale, manifest.total_rows,
  manifest.months.map((m) => [m.month, m.file, m.rows])]), want: JSON.stringify([scale, scale,
  tags.map((tag, i) => [tag, `yellow_tripdata_${tag}.parquet`, want[i]])]) });
eq('rows per month = manifest', `SELECT string_agg(tag || '=' || n, ',' ORDER BY tag) FROM (SELECT tag, count(*) n FROM t GROUP BY 1)`,
  manifest.months.map((m) => `${m.month}=${m.rows}`).join(','));
eq('rows per month = the split of the TLC counts', `SELECT string_agg(n::VARCHAR, ',' ORDER BY tag) FROM (SELECT tag, count(*) n FROM t GROUP BY 1)`,
  want.join(','));
eq('total rows', `SELECT count(*) FROM t`, scale);
eq('flex rows per month = manifest', `SELECT string_agg(n::VARCHAR, ',' ORDER BY tag) FROM (SELECT tag, count(*) FILTER (payment_type = 0) n FROM t GROUP BY 1)`,
  manifest.months.map((m) => m.flex_rows).join(','));

// Times.
eq('pickups inside their file\'s month', `SELECT count(*) FROM t WHERE strftime(tpep_pickup_datetime, '%Y-%m') <> tag`, 0);
eq('dropoff >= pickup', `SELECT count(*) FROM t WHERE NOT tpep_dropoff_datetime >= tpep_pickup_datetime`, 0);
eq('whole seconds', `SELECT count(*) FROM t WHERE microsecond(tpep_pickup_datetime) % 1000000 <> 0 OR microsecond(tpep_dropoff_datetime) % 1000000 <> 0`, 0);
eq('no pickup in the spring-forward hour', `SELECT count(*) FROM t WHERE date_trunc('hour', tpep_pickup_datetime)
  IN (TIMESTAMP '2023-03-12 02:00:00', TIMESTAMP '2024-03-10 02:00:00')`, 0);
eq('rows by pickup hour, the flex block last', `SELECT count(*) FROM (SELECT payment_type = 0 AS flex,
    lag(payment_type = 0) OVER w AS prev_flex, date_trunc('hour', tpep_pickup_datetime) h, lag(date_trunc('hour', tpep_pickup_datetime)) OVER w ph
  FROM t WINDOW w AS (PARTITION BY filename ORDER BY file_row_number))
  WHERE (prev_flex AND NOT flex) OR (prev_flex = flex AND h < ph)`, 0);

// NULLs: the five flex columns on the flex rows, nowhere else.
eq('NULLs exactly on the flex rows', `SELECT count(*) FROM t WHERE ${FLEX_NULL.map((c) => `(${q(c)} IS NULL) <> (payment_type = 0)`).join(' OR ')}
  OR ${COLUMNS.map(([c]) => c).filter((c) => !FLEX_NULL.includes(c)).map((c) => `${q(c)} IS NULL`).join(' OR ')}`, 0);
near('NULL share of the flex columns (README 3.12%)', `SELECT ${share(`passenger_count IS NULL`)} FROM t`, 3.12, 0.1);

// Money.
eq('money in whole cents', `SELECT count(*) FROM t WHERE ${MONEY.map((c) => `abs(${q(c)} * 100 - round(${q(c)} * 100)) > 1e-6`).join(' OR ')}`, 0);
eq('total_amount = sum of its parts (NULL as 0) within 1e-9', `SELECT count(*) FROM t WHERE abs(total_amount - (fare_amount + extra + mta_tax
  + tip_amount + tolls_amount + improvement_surcharge + coalesce(congestion_surcharge, 0) + coalesce(airport_fee, 0))) > 1e-9`, 0);
eq('negative totals only on reversals (payment 2, 3, 4)', `SELECT count(*) FROM t WHERE total_amount < 0 AND payment_type NOT IN (2, 3, 4)`, 0);
eq('no tip on cash trips', `SELECT count(*) FROM t WHERE payment_type = 2 AND tip_amount <> 0`, 0);
eq('airport fee only on JFK and LaGuardia pickups', `SELECT count(*) FROM t WHERE airport_fee <> 0 AND "PULocationID" NOT IN (132, 138)`, 0);
eq('distance: vendor 1 tenths, others hundredths', `SELECT count(*) FROM t WHERE trip_distance < 0
  OR abs(trip_distance * (CASE WHEN "VendorID" = 1 THEN 10 ELSE 100 END) - round(trip_distance * (CASE WHEN "VendorID" = 1 THEN 10 ELSE 100 END))) > 1e-6`, 0);
eq('vendor 6 only in 2024', `SELECT count(*) FROM t WHERE "VendorID" = 6 AND year(tpep_pickup_datetime) = 2023`, 0);
eq('zones 1..265', `SELECT count(*) FROM t WHERE "PULocationID" NOT BETWEEN 1 AND 265 OR "DOLocationID" NOT BETWEEN 1 AND 265`, 0);

// Marginals (README section 3, measured at 10M rows).
near('payment_type 1 (78.50%)', `SELECT ${share('payment_type = 1')} FROM t`, 78.50, 0.6);
near('payment_type 2 (14.99%)', `SELECT ${share('payment_type = 2')} FROM t`, 14.99, 0.5);
near('payment_type 0 (3.12%)', `SELECT ${share('payment_type = 0')} FROM t`, 3.12, 0.1);
near('payment_type 4 (2.33%)', `SELECT ${share('payment_type = 4')} FROM t`, 2.33, 0.25);
near('payment_type 3 (1.05%)', `SELECT ${share('payment_type = 3')} FROM t`, 1.05, 0.2);
eq('PULocationID 132 is the top zone', `SELECT "PULocationID" FROM t GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`, 132);
near('PULocationID 132 (5.06%)', `SELECT ${share('"PULocationID" = 132')} FROM t`, 5.06, 0.3);
near('PULocationID 161 (4.76%)', `SELECT ${share('"PULocationID" = 161')} FROM t`, 4.76, 0.3);
eq('265 distinct pickup zones', `SELECT count(DISTINCT "PULocationID") FROM t`, 265);
near('same pickup and drop-off zone (8.20%)', `SELECT ${share('"PULocationID" = "DOLocationID"')} FROM t`, 8.20, 0.4);
near('trip_distance > 0 (98.06%, q1)', `SELECT ${share('trip_distance > 0')} FROM t`, 98.06, 0.2);
near('trip_distance > 10 (8.32%)', `SELECT ${share('trip_distance > 10')} FROM t`, 8.32, 0.4);
near('trip_distance > 10 and fare > 0 (8.15%, q4)', `SELECT ${share('trip_distance > 10 AND fare_amount > 0')} FROM t`, 8.15, 0.4);
near('JFK card trips over 20 mi (0.60%, q8)', `SELECT ${share('"PULocationID" = 132 AND payment_type = 1 AND trip_distance > 20')} FROM t`, 0.60, 0.1);
near('VendorID 1 (24.96%)', `SELECT ${share('"VendorID" = 1')} FROM t`, 24.96, 0.6);
near('passenger_count 1 (73.12%)', `SELECT ${share('passenger_count = 1')} FROM t`, 73.12, 0.6);
near('RatecodeID 2, JFK flat fare (2.71%)', `SELECT ${share('"RatecodeID" = 2')} FROM t`, 2.71, 0.25);
near('store_and_fwd_flag Y (0.48%)', `SELECT ${share(`store_and_fwd_flag = 'Y'`)} FROM t`, 0.48, 0.1);
near('congestion_surcharge 2.5 (89.53%)', `SELECT ${share('congestion_surcharge = 2.5')} FROM t`, 89.53, 0.5);
near('airport_fee 1.75 (7.83%)', `SELECT ${share('airport_fee = 1.75')} FROM t`, 7.83, 0.4);
near('tolls 6.94 (5.84%)', `SELECT ${share('tolls_amount = 6.94')} FROM t`, 5.84, 0.4);
near('card trips tipped (82.98%)', `SELECT 100.0 * count(*) FILTER (tip_amount > 0) / count(*) FROM t WHERE payment_type = 1`, 82.98, 0.7);
near('total_amount < 0 (1.89%)', `SELECT ${share('total_amount < 0')} FROM t`, 1.89, 0.2);
near('pickups 17:00-18:00 (6.4%)', `SELECT ${share('hour(tpep_pickup_datetime) = 17')} FROM t`, 6.4, 0.3);
near('pickups 04:00-05:00 (0.8%)', `SELECT ${share('hour(tpep_pickup_datetime) = 4')} FROM t`, 0.8, 0.15);
near('pickups on Sundays (11.4%)', `SELECT ${share('dayofweek(tpep_pickup_datetime) = 0')} FROM t`, 11.4, 0.4);

let failed = 0;
const measured = [];
for (const c of checks) {
  let got = c.value;
  if (c.sql !== undefined) {
    try {
      const r = await conn.runAndReadAll(c.sql);
      got = r.getRowsJson()[0][0];
    } catch (e) {
      got = `error: ${String(e.message).split('\n')[0]}`;
    }
  }
  if (c.target !== undefined) {
    const v = Number(got);
    measured.push(`${c.name.replace(/ \(.*/, '')} ${Number.isFinite(v) ? v.toFixed(2) : got}%`);
    if (!(Math.abs(v - c.target) <= c.tol)) {
      failed++;
      console.log(`SHAPE ${c.name}: got ${got}, want ${c.target} +- ${c.tol}`);
    }
  } else if (String(got) !== String(c.want)) {
    failed++;
    console.log(`SHAPE ${c.name}: got ${got}, want ${c.want}`);
  }
}
console.log(`measured: ${measured.join('; ')}`);
console.log(`${checks.length} taxi generator checks, ${failed} failed`);
process.exit(failed ? 1 : 0);
