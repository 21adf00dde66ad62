// Peer leg of bench_window.c: DuckDB on the same shapes at 10M rows in 1000
// partitions (its own random data: p in 0..999, t in 0..1e9, v in 1..5),
// every row materialised into a temporary table (p, t, v and the function),
// timed in-process. Prints p50 and p90 in ms per workload.
//   node bench/peers/query_window_leg.mjs [THREADS] [REPS]
import { DuckDBInstance, version as duckVersion } from '@duckdb/node-api';

const threads = Number(process.argv[2] ?? 1), reps = Number(process.argv[3] ?? 10);
const inst = await DuckDBInstance.create(':memory:', { threads: String(threads) });
const conn = await inst.connect();
await conn.run(`SELECT setseed(0.42)`);
await conn.run(`CREATE TABLE t AS SELECT
    floor(random() * 1000)::BIGINT AS p,
    floor(random() * 1e9)::BIGINT AS t,
    (floor(random() * 5) + 1)::BIGINT AS v
  FROM range(10000000)`);
function stats(ts) {
  ts.sort((a, b) => a - b);
  const q = p => { const h = (ts.length - 1) * p, f = Math.floor(h); return ts[f] + (h - f) * ((ts[f + 1] ?? ts[f]) - ts[f]); };
  return `p50 ${q(0.5).toFixed(2)} ms  p90 ${q(0.9).toFixed(2)} ms`;
}
const qs = {
  row_number: 'SELECT *, row_number() OVER (PARTITION BY p ORDER BY t) AS w FROM t',
  running_sum: 'SELECT *, sum(v) OVER (PARTITION BY p ORDER BY t) AS w FROM t',
};
for (const [w, sql] of Object.entries(qs)) {
  const run = () => conn.run(`CREATE OR REPLACE TEMP TABLE r AS ${sql}`);
  await run();
  const ts = [];
  for (let i = 0; i < reps; i++) {
    const t0 = process.hrtime.bigint();
    await run();
    ts.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  console.log(`duckdb ${duckVersion()} (node-api, ${threads} thread${threads > 1 ? 's' : ''}) ${w}: ${stats(ts)}`);
}
