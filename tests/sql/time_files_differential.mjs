// TIME and millisecond timestamps in files against DuckDB: DuckDB writes a
// Parquet file (TIME as TIME(MICROS), TIMESTAMP_MS as TIMESTAMP(MILLIS),
// NULLs, 24:00:00, times before 1970), a CSV and a JSON file of times;
// basalt and
// DuckDB run the same queries over both and the rows must agree by
// result_compare.mjs's rules. Values go through CAST(... AS VARCHAR) where
// the text itself is the point.
//
//   node time_files_differential.mjs BASALT_BINARY WORKDIR
import { DuckDBInstance } from '@duckdb/node-api';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { canon, compareRows } from './result_compare.mjs';

const [bin, dir] = process.argv.slice(2);
fs.mkdirSync(dir, { recursive: true });
const conn = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
const P = path.join(dir, 'times.parquet');
const C = path.join(dir, 'times.csv');
const J = path.join(dir, 'times.json');
await conn.run(`COPY (SELECT range AS id,
    CASE WHEN range % 7 = 3 THEN NULL WHEN range % 11 = 5 THEN TIME '24:00:00'
         ELSE TIME '00:00:00' + INTERVAL (range * 7919) SECOND + INTERVAL (range * 13) MILLISECOND + INTERVAL (range % 5) MICROSECOND END AS t,
    CASE WHEN range % 5 = 2 THEN NULL
         ELSE CAST(TIMESTAMP '1969-12-30 23:00:00' + INTERVAL (range * 36007) SECOND + INTERVAL (range * 7) MILLISECOND AS TIMESTAMP_MS) END AS tms
  FROM range(600)) TO '${P}' (FORMAT parquet, ROW_GROUP_SIZE 100)`);
await conn.run(`COPY (SELECT id, t, strftime(tms, '%H:%M') AS hm FROM '${P}') TO '${C}' (FORMAT csv, HEADER)`);
await conn.run(`COPY (SELECT id, t, CAST(tms AS TIME) AS tt FROM '${P}') TO '${J}' (FORMAT json)`);

const queries = [
  `SELECT id, t, CAST(t AS VARCHAR), tms, CAST(tms AS VARCHAR) FROM $P`,
  `SELECT id, t + INTERVAL 90 MINUTE, t - INTERVAL '25 hours', hour(t), extract(microsecond FROM t), date_part('epoch', t) FROM $P`,
  `SELECT id, CAST(tms AS TIME), CAST(tms AS DATE) + t, tms + INTERVAL 1 DAY, date_trunc('hour', tms), epoch_ms(tms), year(tms) FROM $P`,
  `SELECT id FROM $P WHERE t > TIME '12:00:00' AND tms < TIMESTAMP '1970-02-01'`,
  `SELECT id FROM $P WHERE tms = TIMESTAMP '1970-01-01 11:00:21.007' OR tms >= TIMESTAMP_MS '1970-07-01'`,
  `SELECT min(t), max(t), count(t), min(tms), max(tms), count(tms) FROM $P`,
  `SELECT hour(t) AS h, count(*), min(tms) FROM $P GROUP BY h`,
  `SELECT DISTINCT t FROM $P WHERE id < 100`,
  `SELECT id, t, tms FROM $P ORDER BY t DESC NULLS LAST, tms, id LIMIT 100 -- ordered`,
  `SELECT a.id AS x, b.id AS y FROM $P a JOIN $P b ON a.t = b.t WHERE a.id < b.id`,
  `SELECT a.id AS x, b.id AS y FROM $P a JOIN $P b ON date_trunc('day', a.tms) = date_trunc('day', b.tms) WHERE a.id < b.id`,
  `SELECT id, t, CAST(t AS VARCHAR), hm, CAST(hm AS VARCHAR) FROM $C`,
  `SELECT c.id, c.t = p.t, c.hm = CAST(date_trunc('minute', p.tms) AS TIME) FROM $C c JOIN $P p ON c.id = p.id`,
  `SELECT max(t), min(hm), count(hm) FROM $C`,
  `SELECT id, t, CAST(t AS VARCHAR), tt, tt - INTERVAL 1 SECOND FROM $J`,
  `SELECT j.id, j.t = p.t, j.tt < p.t FROM $J j JOIN $P p ON j.id = p.id`,
];

let failures = 0;
for (const raw of queries) {
  const ordered = /--\s*ordered\s*$/.test(raw);
  const sql = raw.replace(/--.*$/, '').replaceAll('$P', `'${P}'`).replaceAll('$C', `'${C}'`)
    .replaceAll('$J', `'${J}'`);
  let d;
  try {
    d = { rows: (await conn.runAndReadAll(sql)).getRowsJson().map(r => r.map(canon)) };
  } catch (e) {
    d = { error: String(e.message).split('\n')[0] };
  }
  const p = spawnSync(bin, ['sql', sql, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const b = p.status === 0
    ? { rows: p.stdout.split('\n').filter(Boolean).map(l => Object.values(JSON.parse(l)).map(canon)) }
    : { error: (p.stderr || `exit ${p.status}`).trim() };
  let bad = null;
  if (d.error || b.error) {
    if (!(d.error && b.error)) bad = `duckdb: ${d.error ?? 'ok'}; basalt: ${b.error ?? 'ok'}`;
  } else {
    bad = compareRows(d.rows, b.rows, ordered);
  }
  if (bad) {
    failures++;
    console.log(`MISMATCH ${raw}\n  ${bad}`);
  }
}
console.log(`time files: ${queries.length} queries, ${failures} mismatches`);
process.exit(failures ? 1 : 0);
