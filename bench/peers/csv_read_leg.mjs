// One peer leg of the CSV read benchmark: DuckDB or Polars reading a whole
// CSV file into memory, sniffing included, timed per read.
//
//   node --expose-gc bench/peers/csv_read_leg.mjs --engine duckdb|polars \
//        --file FILE --threads N [--iters 20] [--warmup 2]
//   (Polars sizes its pool from POLARS_MAX_THREADS, which must be set before
//    the process starts: bench/csv_read.sh does it.)
//
// Prints one line, the same as `basalt csv scan` prints its times:
//   <engine> t=<N> rows=<rows> p50=<ms> ms p90=<ms> ms  # <what>
// p50 and p90 are nearest-rank over the timed reads.
//
// What is timed (../shared/peers/README.md, "csv"):
//   duckdb  conn.run("SELECT * FROM read_csv(FILE)"): a materialised result
//           with DuckDB's auto-detection (its sniffer) included; threads from
//           the instance option.
//   polars  pl.readCSV(FILE, { numThreads }): an eager DataFrame with Polars'
//           default schema inference.
// gc() runs between reads, outside the timed region.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const engine = args.engine;
const file = args.file;
const threads = Number(args.threads || 1);
const iters = Number(args.iters || 20);
const warmup = Number(args.warmup || 2);
if (!['duckdb', 'polars'].includes(engine) || !file) {
  console.error('usage: node --expose-gc csv_read_leg.mjs --engine duckdb|polars --file FILE --threads N');
  process.exit(2);
}
const gc = globalThis.gc || (() => {});
const version = (name) => require(`${name}/package.json`).version;

let read;
let label;
if (engine === 'duckdb') {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const inst = await DuckDBInstance.create(':memory:', { threads: String(threads) });
  const conn = await inst.connect();
  const sql = `SELECT * FROM read_csv('${file.replaceAll("'", "''")}')`;
  read = async () => Number((await conn.run(sql)).rowCount);
  label = `duckdb ${version('@duckdb/node-api')} (read_csv, materialized result)`;
} else {
  if (String(threads) !== process.env.POLARS_MAX_THREADS)
    console.error(`warning: POLARS_MAX_THREADS=${process.env.POLARS_MAX_THREADS} but --threads ${threads}`);
  const pl = require('nodejs-polars');
  read = async () => pl.readCSV(file, { numThreads: threads }).height;
  label = `polars ${version('nodejs-polars')} (readCSV)`;
}

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
const rank = (p) => times[Math.max(1, Math.ceil(p * times.length)) - 1];
console.log(`${engine} t=${threads} rows=${rows} p50=${rank(0.5).toFixed(3)} ms p90=${rank(0.9).toFixed(3)} ms  # ${label}`);
