// One peer leg of the JSON-lines read benchmark: DuckDB reading a whole
// newline-delimited JSON file into memory, type detection included, timed
// per read.
//
//   node --expose-gc bench/peers/json_read_leg.mjs --file FILE --threads N [--iters 10] [--warmup 2]
//
// Prints one line, as `basalt json scan` prints its times:
//   duckdb t=<N> rows=<rows> p50=<ms> ms p90=<ms> ms  # <what>
// What is timed: conn.run("SELECT * FROM read_json_auto(FILE)"), a
// materialised result; threads from the instance option. gc() runs between
// reads, outside the timed region.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const file = args.file;
const threads = Number(args.threads || 1);
const iters = Number(args.iters || 10);
const warmup = Number(args.warmup || 2);
if (!file) {
  console.error('usage: node --expose-gc json_read_leg.mjs --file FILE --threads N');
  process.exit(2);
}
const gc = globalThis.gc || (() => {});
const { DuckDBInstance } = await import('@duckdb/node-api');
const inst = await DuckDBInstance.create(':memory:', { threads: String(threads) });
const conn = await inst.connect();
const sql = `SELECT * FROM read_json_auto('${file.replaceAll("'", "''")}')`;
const read = async () => Number((await conn.run(sql)).rowCount);
let rows = 0;
for (let i = 0; i < warmup; i++) {
  rows = await read();
  gc();
}
const times = [];
for (let i = 0; i < iters; i++) {
  const t0 = process.hrtime.bigint();
  rows = await read();
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  gc();
}
times.sort((a, b) => a - b);
const rank = (p) => times[Math.max(0, Math.ceil((p / 100) * times.length) - 1)];
const version = require('@duckdb/node-api/package.json').version;
console.log(`duckdb t=${threads} rows=${rows} p50=${rank(50).toFixed(3)} ms p90=${rank(90).toFixed(3)} ms  # duckdb ${version} (read_json_auto, materialized result)`);
