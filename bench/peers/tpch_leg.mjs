// TPC-H side by side: each query of tests/sql/queries/tpch over the same
// Parquet files through `basalt sql -f` (its --timer: parse, plan, run,
// results collected; not process start or printing) and DuckDB (node-api,
// in-process, result materialised), at each thread count, one warm-up run
// then REPS timed runs, the two engines alternating query by query so both
// see the same machine. Prints p50 / p90 in ms and basalt/DuckDB ratios of
// the p50s.
//   node bench/peers/tpch_leg.mjs BASALT DATA_DIR [REPS] [THREADS,...] [qNN ...]
// A basalt run is capped at BASALT_TPCH_TIMEOUT seconds (default 300) and
// BASALT_TPCH_MEMORY_KB of address space (default 4000000): a query over
// either prints its error instead of times.
import { DuckDBInstance, version as duckVersion } from '@duckdb/node-api';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tpchQuery, tpchQueryNames } from '../../tests/sql/tpch_queries.mjs';

const [bin, dataDir, repsArg, threadsArg, ...only] = process.argv.slice(2);
if (!bin || !dataDir) {
  console.error('usage: node bench/peers/tpch_leg.mjs BASALT DATA_DIR [REPS] [THREADS,...] [qNN ...]');
  process.exit(2);
}
const reps = Number(repsArg ?? 5);
const threadList = (threadsArg ?? '1,2').split(',').map(Number);
const timeoutS = Number(process.env.BASALT_TPCH_TIMEOUT ?? 300);
const memoryKb = Number(process.env.BASALT_TPCH_MEMORY_KB ?? 4000000);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tpch-leg-'));
const inst = await DuckDBInstance.create(':memory:');
const conn = await inst.connect();

function stats(ts) {
  ts = [...ts].sort((a, b) => a - b);
  const q = p => { const h = (ts.length - 1) * p, f = Math.floor(h); return ts[f] + (h - f) * ((ts[f + 1] ?? ts[f]) - ts[f]); };
  return { p50: q(0.5), p90: q(0.9) };
}

// One basalt run: its own timer in ms, or an error.
function basaltRun(file, threads) {
  const args = ['sql', '-f', file, '--threads', String(threads), '--timer', '--output', '/dev/null'];
  const p = spawnSync('bash', ['-c', `ulimit -v ${memoryKb} && exec "$0" "$@"`, bin, ...args],
    { encoding: 'utf8', timeout: timeoutS * 1000 });
  if (p.signal === 'SIGTERM') return { error: `timeout ${timeoutS} s` };
  const m = /Run Time: ([0-9.]+) s/.exec(p.stderr ?? '');
  if (p.status !== 0 || !m) {
    // The status word only ("NOMEM"), to keep the table aligned.
    const st = /^basalt: ([A-Z_]+)/m.exec(p.stderr ?? '');
    return { error: `error ${st ? st[1] : `exit ${p.status}`}` };
  }
  return { ms: Number(m[1]) * 1000 };
}

async function duckRun(text) {
  const t0 = process.hrtime.bigint();
  await conn.runAndReadAll(text);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const fmt = s => (s.error ? s.error.padEnd(23) : `${s.p50.toFixed(1).padStart(9)} ${s.p90.toFixed(1).padStart(9)}    `);
console.log(`basalt sql (--timer) vs duckdb ${duckVersion()} (node-api), ${dataDir}, warm-up + ${reps} runs, p50 / p90 ms`);
let header = 'query';
for (const t of threadList) header += ` | basalt ${t}t p50 / p90`.padEnd(26) + ` | duckdb ${t}t p50 / p90`.padEnd(26) + ' | ratio';
console.log(header);
const ratios = Object.fromEntries(threadList.map(t => [t, []]));
for (const name of only.length ? only : tpchQueryNames()) {
  const text = tpchQuery(name, path.resolve(dataDir));
  const file = path.join(work, `${name}.sql`);
  fs.writeFileSync(file, text);
  let line = name.padEnd(5);
  for (const t of threadList) {
    let b = basaltRun(file, t);
    const bt = [];
    for (let i = 0; i < reps && !b.error; i++) {
      b = basaltRun(file, t);
      if (!b.error) bt.push(b.ms);
    }
    const bs = b.error ? { error: b.error } : stats(bt);
    await conn.run(`SET threads = ${t}`);
    await duckRun(text);
    const dt = [];
    for (let i = 0; i < reps; i++) dt.push(await duckRun(text));
    const ds = stats(dt);
    const ratio = bs.error ? NaN : bs.p50 / ds.p50;
    if (!bs.error) ratios[t].push(ratio);
    line += ` | ${fmt(bs)} | ${fmt(ds)} | ${Number.isNaN(ratio) ? '   -' : ratio.toFixed(2).padStart(5)}`;
  }
  console.log(line);
}
for (const t of threadList) {
  const r = ratios[t];
  if (r.length) {
    const geo = Math.exp(r.reduce((a, x) => a + Math.log(x), 0) / r.length);
    console.log(`${t} thread${t > 1 ? 's' : ''}: geometric mean of basalt/duckdb p50 over ${r.length} queries: ${geo.toFixed(2)}`);
  }
}
fs.rmSync(work, { recursive: true, force: true });
