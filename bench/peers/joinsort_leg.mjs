// DuckDB's side of bench/bench_joinsort.c: the same tables from the same
// formulas (generated in SQL), the same joins and sorts, timed in-process so
// that only the query counts. Join results go into an aggregate over every
// output column (so every column is produced); a full sort is materialised
// into a temporary table; top-10 returns its 10 rows. Prints one line per
// workload: p50 and p90 in ms.
//   node bench/peers/joinsort_leg.mjs [THREADS] [REPS] [H2O_ROWS] [ONLY]
import { DuckDBInstance, version as duckVersion } from '@duckdb/node-api';

const threads = Number(process.argv[2] ?? 1), reps = Number(process.argv[3] ?? 10);
const N = Number(process.argv[4] ?? process.env.BASALT_BENCH_H2O_ROWS ?? 10000000);
const only = process.argv[5] ?? '';

function stats(ts) {
  ts.sort((a, b) => a - b);
  const q = p => { const h = (ts.length - 1) * p, f = Math.floor(h); return ts[f] + (h - f) * ((ts[f + 1] ?? ts[f]) - ts[f]); };
  return `p50 ${q(0.5).toFixed(2)} ms  p90 ${q(0.9).toFixed(2)} ms`;
}
async function time(fn) {
  await fn();
  const ts = [];
  for (let i = 0; i < reps; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    ts.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return stats(ts);
}

const inst = await DuckDBInstance.create(':memory:', { threads: String(threads) });
const conn = await inst.connect();
const label = `duckdb ${duckVersion()} (node-api, ${threads} thread${threads > 1 ? 's' : ''})`;
const want = name => !only || name === only;
const block = prefix => !only || only.startsWith(prefix);

if (block('1m_x_500k')) {
  await conn.run(`CREATE TABLE p AS SELECT (i * 2654435761) % 1000000 AS k, i AS p1, ((i % 1000) // 2)::DOUBLE AS p2 FROM range(1000000) t(i)`);
  await conn.run(`CREATE TABLE b AS SELECT (i * 2654435761 + 12345) % 1000000 AS k, i AS b1, (i // 4)::DOUBLE AS b2 FROM range(500000) t(i)`);
  await conn.run(`CREATE TABLE pw AS SELECT k * 1000000007 AS k, p1, p2 FROM p`);
  await conn.run(`CREATE TABLE bw AS SELECT k * 1000000007 AS k, b1, b2 FROM b`);
  const q = (p, b) => `SELECT count(*), sum(p.k), sum(p1), sum(p2), sum(b.k), sum(b1), sum(b2) FROM ${p} p JOIN ${b} b ON p.k = b.k`;
  if (want('1m_x_500k')) console.log(`${label} join 1m_x_500k: ${await time(() => conn.run(q('p', 'b')))}`);
  if (want('1m_x_500k_wide')) console.log(`${label} join 1m_x_500k_wide: ${await time(() => conn.run(q('pw', 'bw')))}`);
}
if (block('h2o')) {
  await conn.run(`CREATE TABLE x AS SELECT i * 7 % 11 + 1 AS id1, (i * 2654435761) % 11000 + 1 AS id2,
    (i * 2654435761) % ${N + Math.floor(N / 10)} + 1 AS id3, 'id' || ((i * 2654435761) % 11000 + 1) AS id5,
    (i % 100)::DOUBLE AS v1 FROM range(${N}) t(i)`);
  await conn.run(`CREATE TABLE small AS SELECT i + 1 AS id1, i::DOUBLE AS v2 FROM range(10) t(i)`);
  await conn.run(`CREATE TABLE medium AS SELECT i + 1 AS id2, 'id' || (i + 1) AS id5, i::DOUBLE AS v2 FROM range(${Math.floor(N / 1000)}) t(i)`);
  await conn.run(`CREATE TABLE big AS SELECT i + 1 AS id3, i::DOUBLE AS v2 FROM range(${N}) t(i)`);
  const xs = 'count(*), sum(x.id1), sum(x.id2), sum(x.id3), sum(length(x.id5)), sum(x.v1)';
  const qs = {
    h2o_q1_small: `SELECT ${xs}, sum(s.id1), sum(s.v2) FROM x JOIN small s ON x.id1 = s.id1`,
    h2o_q2_medium: `SELECT ${xs}, sum(m.id2), sum(length(m.id5)), sum(m.v2) FROM x JOIN medium m ON x.id2 = m.id2`,
    h2o_q3_medium_left: `SELECT ${xs}, sum(m.id2), sum(length(m.id5)), sum(m.v2) FROM x LEFT JOIN medium m ON x.id2 = m.id2`,
    h2o_q4_medium_string: `SELECT ${xs}, sum(m.id2), sum(length(m.id5)), sum(m.v2) FROM x JOIN medium m ON x.id5 = m.id5`,
    h2o_q5_big: `SELECT ${xs}, sum(b.id3), sum(b.v2) FROM x JOIN big b ON x.id3 = b.id3`,
  };
  for (const [name, sql] of Object.entries(qs))
    if (want(name)) console.log(`${label} join ${name} (x ${N} rows): ${await time(() => conn.run(sql))}`);
}
if (block('1m_int_string')) {
  await conn.run(`CREATE TABLE st AS SELECT ((i * 2654435761) % 1000)::INTEGER AS a, 'str' || ((i * 40503) % 100000) AS s, i::DOUBLE AS v FROM range(1000000) t(i)`);
  console.log(`${label} sort 1m_int_string (CREATE TEMP TABLE AS ... ORDER BY a, s): ${await time(() => conn.run('CREATE OR REPLACE TEMP TABLE r AS SELECT * FROM st ORDER BY a, s'))}`);
}
if (block('top10')) {
  await conn.run(`CREATE TABLE tk AS SELECT (i * 2654435761) % 1000000007 AS k, i::DOUBLE AS v FROM range(10000000) t(i)`);
  console.log(`${label} sort top10_of_10m (ORDER BY k LIMIT 10): ${await time(() => conn.runAndReadAll('SELECT * FROM tk ORDER BY k LIMIT 10'))}`);
}
