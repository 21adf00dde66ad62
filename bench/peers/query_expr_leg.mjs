// Peer legs of bench_query.c: the seed's expression workloads at 1M rows, 10%
// nulls (inventory-dataframe.md 3.1 LCG), timed in-process so only the
// evaluation counts. Prints one line per (peer, workload): p50 and p90 in ms.
//   POLARS_MAX_THREADS=1 node bench/peers/query_expr_leg.mjs [THREADS] [REPS]
import { DuckDBInstance, version as duckVersion } from '@duckdb/node-api';
import pl from 'nodejs-polars';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const threads = Number(process.argv[2] ?? 1), reps = Number(process.argv[3] ?? 30);
const ROWS = 1000000;
const x = new Array(ROWS), y = new Float64Array(ROWS), n = new Array(ROWS);
let state = BigInt(20260918 + ROWS);
const M = (1n << 64n) - 1n;
for (let i = 0; i < ROWS; i++) {
  state = (state * 6364136223846793005n + 1442695040888963407n) & M;
  const r = Number(state >> 33n);
  const nul = i % 10 === 0;
  x[i] = nul ? null : (r % 10000) / 100 - 50;
  y[i] = Math.floor(r / 256) % 1000 / 10;
  n[i] = nul ? null : (r % 1000) - 500;
}
const df = pl.DataFrame({ x: pl.Series('x', x, pl.Float64), y: pl.Series('y', Array.from(y), pl.Float64), n: pl.Series('n', n, pl.Int64) });
const file = path.join(os.tmpdir(), `query_expr_${process.pid}.parquet`);
df.writeParquet(file);

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
await conn.run(`CREATE TABLE t AS SELECT * FROM read_parquet('${file}')`);
const duck = {
  arithmetic_chain: 'SELECT count(((x + 3.0) * (y - 2.0)) / 4.0) FROM t',
  nullable_compare: 'SELECT count(x > y) FROM t',
  filter: 'SELECT count(n) FROM t WHERE x > 0',
};
const polars = {
  arithmetic_chain: () => df.select(pl.col('x').add(3.0).mul(pl.col('y').sub(2.0)).div(4.0)),
  nullable_compare: () => df.select(pl.col('x').gt(pl.col('y'))),
  filter: () => df.filter(pl.col('x').gt(0)).select('n'),
};
for (const w of Object.keys(duck)) {
  console.log(`duckdb ${duckVersion()} (node-api, ${threads} thread${threads > 1 ? 's' : ''}, count() sink) ${w}: ${await time(() => conn.run(duck[w]))}`);
  console.log(`polars nodejs-polars (POLARS_MAX_THREADS=${process.env.POLARS_MAX_THREADS ?? 'all'}) ${w}: ${await time(polars[w])}`);
}
fs.unlinkSync(file);
