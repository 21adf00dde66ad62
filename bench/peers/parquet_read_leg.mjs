// One peer leg of the Parquet read benchmark: DuckDB or Polars reading a
// whole Parquet file into memory, timed per read.
//
//   node --expose-gc bench/peers/parquet_read_leg.mjs --engine duckdb|polars \
//        --file FILE --threads N [--iters 20] [--warmup 2]
//   (Polars sizes its pool from POLARS_MAX_THREADS, which must be set before
//    the process starts: bench/parquet_read.sh does it.)
//
// Prints one line, the same as `basalt parquet scan` prints its times:
//   <engine> <version> t=<N> rows=<rows> p50=<ms> ms p90=<ms> ms
// p50 and p90 are nearest-rank over the timed reads.
//
// What is timed, as ../shared/peers/README.md describes the fair legs:
//   duckdb  conn.run("SELECT * FROM read_parquet(FILE)"): a fully materialised
//           result (every value decoded and copied, strings included), with
//           the external file cache and the metadata cache off so every read
//           reads and parses the file; threads from the instance option.
//   polars  pl.readParquet(FILE): an eager DataFrame.
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
  console.error('usage: node --expose-gc parquet_read_leg.mjs --engine duckdb|polars --file FILE --threads N');
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
  await conn.run('SET enable_external_file_cache=false');
  await conn.run('SET parquet_metadata_cache=false');
  const sql = `SELECT * FROM read_parquet('${file.replaceAll("'", "''")}')`;
  read = async () => {
    const r = await conn.run(sql);
    return Number(r.rowCount);
  };
  label = `duckdb ${version('@duckdb/node-api')} (DuckDB materialized result)`;
} else {
  if (String(threads) !== process.env.POLARS_MAX_THREADS)
    console.error(`warning: POLARS_MAX_THREADS=${process.env.POLARS_MAX_THREADS} but --threads ${threads}`);
  const pl = require('nodejs-polars');
  read = async () => pl.readParquet(file).height;
  label = `polars ${version('nodejs-polars')} (readParquet)`;
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
