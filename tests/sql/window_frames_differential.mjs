// Window frames through `basalt sql` against DuckDB: RANGE frames with
// offsets over every ORDER BY key type (TINYINT, SMALLINT, INTEGER, BIGINT,
// UINTEGER, DECIMAL, DOUBLE with NaN, infinities and -0.0, FLOAT, DATE with
// days and INTERVALs, TIMESTAMP and TIMESTAMPTZ with INTERVALs), ASC and
// DESC, NULLs first and last, each with every kind of bound pair (offsets
// on both ends, UNBOUNDED or CURRENT ROW on one, both ends on one side of
// the row, frames that are empty past the partition's last values);
// GROUPS frames; EXCLUDE CURRENT ROW, GROUP and TIES over RANGE, GROUPS and
// ROWS frames; and the errors both must raise.
//
//   node window_frames_differential.mjs BASALT_BINARY WORKDIR [SEED]
//
// DuckDB writes one seeded table (2500 rows, row groups of 512, ties and
// NULLs in every key, four partitions and a NULL one). DuckDB orders ties
// arbitrarily, so every call here gives the same answer whatever the order
// among peers: RANGE and GROUPS frames start and end at peer boundaries
// (and EXCLUDE takes out the row itself or its peers), their aggregates may
// read any column, and FIRST/LAST/NTH_VALUE read the ORDER BY key, equal
// among peers. ROWS frames, whose edges cut peer groups, read only the key
// and leave the row id out: the rows then compare as multisets. Numbers to
// 1e-9 relative. Exits 1 listing every mismatch.
import { DuckDBInstance } from '@duckdb/node-api';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { canon, compareRows } from './result_compare.mjs';

const [bin, dir, seedArg] = process.argv.slice(2);
const seed = Number(seedArg ?? 1);
fs.mkdirSync(dir, { recursive: true });
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await inst.connect();
await conn.run("SET TimeZone = 'UTC'");
const W = path.join(dir, 'w.parquet');
await conn.run(`SELECT setseed(${(seed % 1000) / 1000})`);
const nul = (p, e) => `CASE WHEN random() < ${p} THEN NULL ELSE ${e} END`;
const r = n => `floor(random() * ${n})`;
await conn.run(`COPY (SELECT range::BIGINT AS id,
    ${nul(0.03, `${r(4)}::INTEGER`)} AS p,
    ${nul(0.08, `(${r(120)} - 60)::TINYINT`)} AS k8,
    ${nul(0.08, `(${r(300)} * 7 - 1000)::SMALLINT`)} AS k16,
    ${nul(0.08, `(${r(500)} - 250)::INTEGER`)} AS k32,
    ${nul(0.08, `(${r(400)} * 1000003 - 200000000)::BIGINT`)} AS k64,
    ${nul(0.08, `(${r(300)} + 20)::UINTEGER`)} AS ku,
    ${nul(0.08, `(${r(800)} * 0.25 - 100)::DECIMAL(9,2)`)} AS kd,
    ${nul(0.08, `CASE WHEN random() < 0.06 THEN ['nan', 'inf', '-inf', '-0.0', '0.0'][${r(5)}::INT + 1]::DOUBLE ELSE ${r(600)} * 0.25 - 75 END`)} AS kf,
    ${nul(0.08, `(${r(400)} * 0.25 - 50)::FLOAT`)} AS kr,
    ${nul(0.08, `DATE '2023-12-01' + ${r(150)}::INTEGER`)} AS kdt,
    ${nul(0.08, `TIMESTAMP '2024-01-30 00:00:00' + to_minutes((${r(2000)} * 37)::BIGINT)`)} AS kts,
    ${nul(0.08, `TIMESTAMPTZ '2024-03-01 00:00:00+00' + to_minutes((${r(1500)} * 41)::BIGINT)`)} AS ktz,
    ${nul(0.15, `(${r(2001)} - 1000)::INTEGER`)} AS v,
    ${nul(0.15, `round((random() - 0.5) * 1000, 3)`)} AS f,
    ${nul(0.15, `((random() - 0.5) * 1e6)::DECIMAL(12,2)`)} AS dd,
    ${nul(0.15, `['x', 'yy', '', 'zzz', 'q' || ${r(50)}::INT::VARCHAR][${r(5)}::INT + 1]`)} AS s
  FROM range(2500)) TO '${W}' (FORMAT parquet, ROW_GROUP_SIZE 512)`);

// key: its offsets (small, large) in SQL, as RANGE takes them
const keys = {
  k8: ['2', '10'], k16: ['7', '100'], k32: ['3', '40'], k64: ['1000003', '50000000'],
  ku: ['3', '10'], kd: ['0.5', '12.25'], kf: ['0.75', '10'], kr: ['0.5', '4.25'],
  kdt: ['3', 'INTERVAL 1 MONTH'], kts: ["INTERVAL '90 minutes'", 'INTERVAL 1 DAY'],
  ktz: ['INTERVAL 1 HOUR', "INTERVAL '2 days 3 hours'"],
};
// DATE keys also by hours (the bound is a TIMESTAMP) and weeks
const extra = { kdt: ["INTERVAL '36 hours'", 'INTERVAL 7 DAY'] };
// DuckDB counts a frame whose start lies after its end as end - start
// (COUNT(*) of 3 FOLLOWING .. 1 FOLLOWING is -1 there, 0 here): such
// frames take another function.
const INVERTED = 8; // pairs()[8]: b FOLLOWING AND a FOLLOWING, b > a
const pick = (f, j) => (f === 'count(*)' && j === INVERTED ? 'count(v)' : f);
const fns = k => ['count(*)', 'count(v)', 'sum(v)', 'avg(f)', 'min(dd)', 'max(s)', 'sum(dd)',
  'min(f)', 'max(v)', `first_value(${k})`, `last_value(${k})`, `nth_value(${k}, 2)`];
// bound pairs over offsets a (small) and b (large)
const pairs = (a, b) => [
  `${a} PRECEDING AND ${b} FOLLOWING`, `${b} PRECEDING AND ${a} FOLLOWING`,
  `UNBOUNDED PRECEDING AND ${a} FOLLOWING`, `${a} PRECEDING AND UNBOUNDED FOLLOWING`,
  `${b} PRECEDING AND CURRENT ROW`, `CURRENT ROW AND ${a} FOLLOWING`,
  `${a} FOLLOWING AND ${b} FOLLOWING`, `${b} PRECEDING AND ${a} PRECEDING`,
  `${b} FOLLOWING AND ${a} FOLLOWING`, `${a} PRECEDING AND ${a} PRECEDING`,
  `${b} PRECEDING AND UNBOUNDED FOLLOWING`, `UNBOUNDED PRECEDING AND ${b} PRECEDING`,
];

const queries = [];
let rot = 0;
for (const [k, [a, b]] of Object.entries(keys))
  for (const dir of ['ASC', 'DESC'])
    for (const nulls of ['FIRST', 'LAST']) {
      const ps = [...pairs(a, b), ...(extra[k] ? pairs(extra[k][0], extra[k][1]).slice(0, 4) : [])];
      const calls = ps.map((pr, j) => {
        const f = pick(fns(k)[rot++ % 12], j);
        const part = j % 2 ? 'PARTITION BY p ' : '';
        return `${f} OVER (${part}ORDER BY ${k} ${dir} NULLS ${nulls} RANGE BETWEEN ${pr}) AS c${j}`;
      });
      queries.push(`SELECT id, ${calls.join(', ')} FROM $W`);
    }

// GROUPS: one key or two (peers equal on both), offsets in groups
for (const k of ['k32', 'kf', 'kdt', 'kd'])
  for (const dir of ['ASC', 'DESC'])
    for (const nulls of ['FIRST', 'LAST']) {
      const order = k === 'kdt' ? `${k} ${dir} NULLS ${nulls}, p` : `${k} ${dir} NULLS ${nulls}`;
      const calls = pairs(1, 3).concat(pairs(0, 2).slice(0, 6)).map((pr, j) => {
        const f = pick(fns(k)[rot++ % 12], j);
        const part = j % 3 === 1 ? 'PARTITION BY p ' : '';
        return `${f} OVER (${part}ORDER BY ${order} GROUPS BETWEEN ${pr}) AS c${j}`;
      });
      queries.push(`SELECT id, ${calls.join(', ')} FROM $W`);
    }

// EXCLUDE over RANGE and GROUPS frames
for (const [k, a, b] of [['k32', '3', '20'], ['kd', '0.5', '7.5'], ['kts', "INTERVAL '90 minutes'", 'INTERVAL 1 DAY'], ['kf', '0.75', '10']])
  for (const dir of ['ASC', 'DESC']) {
    const calls = [];
    for (const ex of ['CURRENT ROW', 'GROUP', 'TIES'])
      for (const [mode, pr] of [['RANGE', `${a} PRECEDING AND ${b} FOLLOWING`],
        ['RANGE', `UNBOUNDED PRECEDING AND ${a} FOLLOWING`], ['RANGE', `CURRENT ROW AND UNBOUNDED FOLLOWING`],
        ['GROUPS', '1 PRECEDING AND 2 FOLLOWING'], ['GROUPS', 'UNBOUNDED PRECEDING AND CURRENT ROW'],
        ['RANGE', `${a} FOLLOWING AND ${b} FOLLOWING`]]) {
        const f = fns(k)[rot++ % 12];
        const part = calls.length % 2 ? 'PARTITION BY p ' : '';
        calls.push(`${f} OVER (${part}ORDER BY ${k} ${dir} ${mode} BETWEEN ${pr} EXCLUDE ${ex}) AS c${calls.length}`);
      }
    queries.push(`SELECT id, ${calls.join(', ')} FROM $W`);
  }

// EXCLUDE over ROWS frames: the key alone, the row id left out
const rowFns = ['count(*)', 'sum(k32)', 'min(k32)', 'max(k32)', 'first_value(k32)',
  'last_value(k32)', 'nth_value(k32, 3)', 'avg(k32)', 'count(k32)'];
for (const dir of ['ASC', 'DESC']) {
  const calls = [];
  for (const ex of ['CURRENT ROW', 'GROUP', 'TIES', 'NO OTHERS'])
    for (const pr of ['2 PRECEDING AND 3 FOLLOWING', 'UNBOUNDED PRECEDING AND CURRENT ROW',
      'CURRENT ROW AND UNBOUNDED FOLLOWING', '1 FOLLOWING AND 4 FOLLOWING'])
      for (const f of rowFns.slice((rot % 3) * 3, (rot++ % 3) * 3 + 3))
        calls.push(`${f} OVER (PARTITION BY p ORDER BY k32 ${dir} ROWS BETWEEN ${pr} EXCLUDE ${ex}) AS c${calls.length}`);
  queries.push(`SELECT p, k32, ${calls.join(', ')} FROM $W`);
}

// errors on both sides
queries.push(
  'SELECT count(*) OVER (ORDER BY k32 RANGE BETWEEN -1 PRECEDING AND CURRENT ROW) FROM $W',
  'SELECT count(*) OVER (ORDER BY k32 RANGE BETWEEN NULL PRECEDING AND CURRENT ROW) FROM $W',
  'SELECT count(*) OVER (ORDER BY k32, kd RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM $W',
  'SELECT count(*) OVER (ORDER BY s RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM $W',
  'SELECT count(*) OVER (ORDER BY k32 RANGE BETWEEN INTERVAL 1 DAY PRECEDING AND CURRENT ROW) FROM $W',
  "SELECT count(*) OVER (ORDER BY kts RANGE BETWEEN INTERVAL '-1 hour' PRECEDING AND CURRENT ROW) FROM $W",
  'SELECT count(*) OVER (ORDER BY k32 GROUPS BETWEEN -1 PRECEDING AND CURRENT ROW) FROM $W',
);

// TIMESTAMPTZ: DuckDB writes '+00', basalt 'Z' and six zero digits.
const canonTz = v => {
  const c = canon(v);
  return typeof c === 'string' ? c.replace(/(\d\d:\d\d:\d\d)(\.0+)?(Z|\+00)?$/, '$1') : c;
};
async function duck(q) {
  try {
    const reader = await conn.runAndReadAll(q);
    return { rows: reader.getRowsJson().map(row => row.map(canonTz)) };
  } catch (e) {
    return { error: String(e.message).split('\n')[0] };
  }
}
function ours(q) {
  const p = spawnSync(bin, ['sql', q, '--format', 'json', '--threads', '1'],
    { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (p.status !== 0) return { error: p.stderr.trim() };
  return { rows: p.stdout.split('\n').filter(Boolean).map(line => Object.values(JSON.parse(line)).map(canonTz)) };
}

let failures = 0, compared = 0, calls = 0;
for (let i = 0; i < queries.length; i++) {
  const q = queries[i].replaceAll('$W', `'${W}'`);
  const d = await duck(q);
  const b = ours(q);
  const fail = msg => { failures++; console.log(`MISMATCH #${i}: ${queries[i].slice(0, 400)}\n  ${msg}`); };
  calls += (queries[i].match(/ OVER /g) || []).length;
  if (d.error || b.error) {
    if (!(d.error && b.error)) fail(`duckdb: ${d.error ?? 'ok'}; basalt: ${b.error ?? 'ok'}`);
    continue;
  }
  const bad = compareRows(d.rows, b.rows, false);
  if (bad) fail(bad);
  else compared += d.rows.length;
}
console.log(`window frames: ${queries.length} queries, ${calls} window calls, ${compared} rows compared, ${failures} mismatches`);
process.exit(failures ? 1 : 0);
