// Peer leg of bench_agg.c: DuckDB on the same shapes at 10M rows (its own
// random data: v in 1..5; low: 100 keys; high: 1M keys; zipf: 1000 keys with
// P(k) ~ 1/k; h2o q1: id1 'id001'..'id100'), timed in-process, result
// materialised. Prints p50 and p90 in ms per workload.
//   node bench/peers/query_agg_leg.mjs [THREADS] [REPS]
import { DuckDBInstance, version as duckVersion } from '@duckdb/node-api';

const threads = Number(process.argv[2] ?? 1), reps = Number(process.argv[3] ?? 10);
const inst = await DuckDBInstance.create(':memory:', { threads: String(threads) });
const conn = await inst.connect();
await conn.run(`SELECT setseed(0.42)`);
await conn.run(`CREATE TABLE t AS SELECT
    (floor(random() * 5) + 1)::BIGINT AS v,
    floor(random() * 100)::BIGINT AS k_low,
    (floor(random() * 1000000) * 7919)::BIGINT AS k_high,
    (floor(pow(1000.0, random())) * 1000003)::BIGINT AS k_zipf,
    printf('id%03d', floor(random() * 100)::INT + 1) AS id1
  FROM range(10000000)`);
function stats(ts) {
  ts.sort((a, b) => a - b);
  const q = p => { const h = (ts.length - 1) * p, f = Math.floor(h); return ts[f] + (h - f) * ((ts[f + 1] ?? ts[f]) - ts[f]); };
  return `p50 ${q(0.5).toFixed(2)} ms  p90 ${q(0.9).toFixed(2)} ms`;
}
const qs = {
  global_sum_count: 'SELECT sum(v), count(*) FROM t',
  low_100: 'SELECT k_low, sum(v), count(*) FROM t GROUP BY k_low',
  high_1m: 'SELECT k_high, sum(v), count(*) FROM t GROUP BY k_high',
  zipf_1000: 'SELECT k_zipf, sum(v), count(*) FROM t GROUP BY k_zipf',
  h2o_q1: 'SELECT id1, sum(v), count(*) FROM t GROUP BY id1',
};
for (const [w, sql] of Object.entries(qs)) {
  await conn.runAndReadAll(sql);
  const ts = [];
  for (let i = 0; i < reps; i++) {
    const t0 = process.hrtime.bigint();
    await conn.runAndReadAll(sql);
    ts.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  console.log(`duckdb ${duckVersion()} (node-api, ${threads} thread${threads > 1 ? 's' : ''}) ${w}: ${stats(ts)}`);
}
