// One peer leg of the Parquet write benchmark: DuckDB or Polars writing a
// table that is already in memory to a Parquet file, timed per write.
//
//   node --expose-gc bench/peers/parquet_write_leg.mjs --engine duckdb|polars \
//        --file FIXTURE --codec uncompressed|snappy|zstd --threads N [--iters 10] [--warmup 1]
//   (Polars sizes its pool from POLARS_MAX_THREADS, set before the process
//    starts: bench/parquet_write.sh does it.)
//
// The fixture is read into memory once, untimed. Prints one line, as
// `basalt parquet rewrite --repeat` prints its times:
//   <engine> t=<N> rows=<rows> bytes=<file size> p50=<ms> ms p90=<ms> ms cpu=<ms> ms  # <version>
// cpu is the p50 of the process's CPU time (user + system, all threads) per
// write: on a loaded machine it drifts less than the wall clock.
//
//   duckdb  CREATE TABLE t AS SELECT * FROM read_parquet(FIXTURE), then
//           COPY t TO OUT (FORMAT parquet, COMPRESSION codec); threads from
//           the instance option.
//   polars  df = readParquet(FIXTURE), then df.writeParquet(OUT, {compression}).
// OUT is a file in /dev/shm (memory), removed between writes outside the
// timed region; gc() runs between writes, also outside it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const { engine, file } = args;
const codec = args.codec || 'uncompressed';
const threads = Number(args.threads || 1);
const iters = Number(args.iters || 10);
const warmup = Number(args.warmup || 1);
if (!['duckdb', 'polars'].includes(engine) || !file) {
  console.error('usage: node --expose-gc parquet_write_leg.mjs --engine duckdb|polars --file FILE --codec C --threads N');
  process.exit(2);
}
const gc = globalThis.gc || (() => {});
const version = (name) => require(`${name}/package.json`).version;
const dir = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
const out = path.join(dir, `basalt-write-leg-${engine}-${process.pid}.parquet`);

let write, rows, label;
if (engine === 'duckdb') {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const inst = await DuckDBInstance.create(':memory:', { threads: String(threads) });
  const conn = await inst.connect();
  await conn.run(`CREATE TABLE t AS SELECT * FROM read_parquet('${file.replaceAll("'", "''")}')`);
  rows = Number((await conn.runAndReadAll('SELECT count(*)::BIGINT AS n FROM t')).getRowObjectsJS()[0].n);
  const sql = `COPY t TO '${out}' (FORMAT parquet, COMPRESSION ${codec})`;
  write = async () => { await conn.run(sql); };
  label = `duckdb ${version('@duckdb/node-api')} (COPY TO parquet)`;
} else {
  if (String(threads) !== process.env.POLARS_MAX_THREADS)
    console.error(`warning: POLARS_MAX_THREADS=${process.env.POLARS_MAX_THREADS} but --threads ${threads}`);
  const pl = require('nodejs-polars');
  const df = pl.readParquet(file);
  rows = df.height;
  write = async () => { df.writeParquet(out, { compression: codec }); };
  label = `polars ${version('nodejs-polars')} (writeParquet)`;
}
const times = [];
const cpus = [];
let bytes = 0;
for (let i = 0; i < warmup + iters; i++) {
  if (fs.existsSync(out)) fs.unlinkSync(out);
  gc();
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await write();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const c = process.cpuUsage(c0);
  if (i >= warmup) {
    times.push(ms);
    cpus.push((c.user + c.system) / 1e3);
  }
  bytes = fs.statSync(out).size;
}
fs.unlinkSync(out);
times.sort((a, b) => a - b);
cpus.sort((a, b) => a - b);
const rank = (v, p) => v[Math.max(1, Math.ceil(p * v.length)) - 1];
console.log(`${engine} t=${threads} rows=${rows} bytes=${bytes} p50=${rank(times, 0.5).toFixed(3)} ms p90=${rank(times, 0.9).toFixed(3)} ms cpu=${rank(cpus, 0.5).toFixed(3)} ms  # ${label}`);
process.exit(0);
