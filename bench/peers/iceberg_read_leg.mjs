// One peer leg of the Iceberg scan benchmark: DuckDB or Polars reading the
// data files of a table (the files basalt's scan reads, all of them, every
// column) into memory, timed per read.
//
//   node --expose-gc bench/peers/iceberg_read_leg.mjs --engine duckdb|polars \
//        --table DIR --threads N [--iters 20] [--warmup 2]
//
// Prints one line: <engine> t=<N> rows=<rows> p50=<ms> ms p90=<ms> ms  # <version, API>
//   duckdb  SELECT * FROM read_parquet([DIR/data/*.parquet]), materialised;
//           external file cache and metadata cache off; threads from the
//           instance option
//   polars  pl.concat of pl.readParquet of each file (POLARS_MAX_THREADS=N)
// Neither reads the Iceberg metadata: they get the file list for free.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const { engine, table } = args;
const threads = Number(args.threads || 1);
const iters = Number(args.iters || 20);
const warmup = Number(args.warmup || 2);
if (!['duckdb', 'polars'].includes(engine) || !table) {
  console.error('usage: node --expose-gc iceberg_read_leg.mjs --engine duckdb|polars --table DIR --threads N');
  process.exit(2);
}
const files = fs.readdirSync(path.join(table, 'data')).filter((n) => n.endsWith('.parquet')).sort()
  .map((n) => path.join(table, 'data', n));
const gc = globalThis.gc || (() => {});
const version = (name) => require(`${name}/package.json`).version;
let read, label;
if (engine === 'duckdb') {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const inst = await DuckDBInstance.create(':memory:', { threads: String(threads) });
  const conn = await inst.connect();
  await conn.run('SET enable_external_file_cache=false');
  await conn.run('SET parquet_metadata_cache=false');
  const sql = `SELECT * FROM read_parquet([${files.map((f) => `'${f}'`).join(', ')}])`;
  read = async () => Number((await conn.run(sql)).rowCount);
  label = `duckdb ${version('@duckdb/node-api')} (read_parquet of the data files, materialised)`;
} else {
  const pl = require('nodejs-polars');
  read = async () => pl.concat(files.map((f) => pl.readParquet(f))).height;
  label = `polars ${version('nodejs-polars')} (readParquet of each data file, concat)`;
}
let rows = 0;
for (let i = 0; i < warmup; i++) rows = await read();
const times = [];
for (let i = 0; i < iters; i++) {
  gc();
  const t0 = process.hrtime.bigint();
  rows = await read();
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
times.sort((a, b) => a - b);
const rank = (p) => times[Math.max(1, Math.ceil(p * times.length)) - 1];
console.log(`${engine} t=${threads} rows=${rows} p50=${rank(0.5).toFixed(3)} ms p90=${rank(0.9).toFixed(3)} ms  # ${label}`);
