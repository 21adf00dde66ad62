#!/usr/bin/env node
// One peer leg of the taxi benchmark: one engine (DuckDB or Polars), one
// thread count, one query, in its own process; one warm-up run and --repeat
// timed runs, each the query call plus the fold into the result shape.
// Prints one JSON line shaped like basalt-taxibench's.
//
//   node peer_leg.mjs --engine duckdb|polars --query q1 --threads N --files FILES.json
//                     [--sql FILE] [--repeat 5]
//
// FILES.json: the data files (a JSON array of paths), the ones basalt's
// table reads. --sql: the query with the table as read_parquet(...) (from
// basalt-taxibench --print-sql; DuckDB). Polars runs the same query as a
// lazy scan over the same files; POLARS_MAX_THREADS must equal --threads.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fold, percentile } from './fold.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(root, 'package.json'));

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
const { engine, query } = args;
const threads = Number(args.threads), repeat = Number(args.repeat ?? 5);
if (!['duckdb', 'polars'].includes(engine) || !query || !(threads > 0) || !args.files) {
  console.error('usage: peer_leg.mjs --engine duckdb|polars --query qN --threads N --files FILES.json [--sql FILE] [--repeat 5]');
  process.exit(2);
}
const files = JSON.parse(fs.readFileSync(args.files, 'utf8'));
const now = () => Number(process.hrtime.bigint()) / 1e6;

let runOnce, version, scanned = {};
if (engine === 'duckdb') {
  const { DuckDBInstance } = require('@duckdb/node-api');
  const db = await DuckDBInstance.create(':memory:', { threads: String(threads) });
  const con = await db.connect();
  version = (await con.runAndReadAll('SELECT version()')).getRows()[0][0];
  const sql = fs.readFileSync(args.sql, 'utf8');
  runOnce = async () => fold(query, (await con.runAndReadAll(sql)).getRows());
  // Untimed: the rows that pass the filter and the files that hold them.
  const where = /\bWHERE\b([\s\S]*?)(\bGROUP BY\b|;|$)/i.exec(sql)?.[1] ?? 'true';
  const list = `[${files.map((f) => `'${f.replace(/'/g, "''")}'`).join(', ')}]`;
  const [rows, nfiles] = (await con.runAndReadAll(
    `SELECT count(*), count(DISTINCT filename) FROM read_parquet(${list}, filename = true) WHERE ${where}`)).getRows()[0];
  scanned = { files: Number(nfiles), rows_scanned: Number(rows) };
} else {
  if (process.env.POLARS_MAX_THREADS !== String(threads)) {
    console.error(`POLARS_MAX_THREADS=${process.env.POLARS_MAX_THREADS} but --threads ${threads}`);
    process.exit(2);
  }
  const pl = require('nodejs-polars');
  version = `nodejs-polars ${require('nodejs-polars/package.json').version}`;
  runOnce = async () => fold(query, polarsRows(pl, query, files));
}

function polarsRows(pl, q, files) {
  const src = pl.concat(files.map((f) => pl.scanParquet(f)));
  const c = (n) => pl.col(n);
  // naive timestamps: a UTC Date stands for the wall-clock time
  const range = (a, b) => c('tpep_pickup_datetime').gtEq(pl.lit(new Date(`${a}T00:00:00Z`)))
    .and(c('tpep_pickup_datetime').lt(pl.lit(new Date(`${b}T00:00:00Z`))));
  const n = pl.len().alias('n'), sum = (k) => c(k).sum().alias(k);
  const one = (lf) => [lf.collectSync().row(0)];
  const all = (lf) => lf.collectSync().rows();
  switch (q) {
    case 'q1': return one(src.filter(c('trip_distance').gt(0)).select(n));
    case 'q2': return one(src.filter(range('2024-03-01', '2024-06-01')).select(n, sum('total_amount')));
    case 'q3': return one(src.filter(c('payment_type').eq(2)).select(n, sum('total_amount')));
    case 'q4': return one(src.filter(c('trip_distance').gt(10).and(c('fare_amount').gt(0)))
      .select(n, sum('tip_amount'), sum('fare_amount')));
    case 'q5': return all(src.filter(c('trip_distance').gt(0)).groupBy('PULocationID').agg(n).select('PULocationID', 'n'));
    case 'q6': return all(src.filter(range('2024-01-01', '2025-01-01')).groupBy('PULocationID')
      .agg(n, sum('total_amount')).select('PULocationID', 'n', 'total_amount'));
    case 'q7': return one(src.filter(range('2024-06-01', '2024-07-01')).select(n));
    case 'q8': return one(src.filter(c('PULocationID').eq(132).and(c('payment_type').eq(1)).and(c('trip_distance').gt(20)))
      .select(n, sum('total_amount')));
    default: throw new Error(`unknown query ${q}`);
  }
}

const t_cold = now();
let result = await runOnce();
const cold_ms = now() - t_cold;
const ms = [];
for (let i = 0; i < repeat; i++) {
  const t0 = now();
  result = await runOnce();
  ms.push(now() - t0);
}
const sorted = [...ms].sort((a, b) => a - b);
const r3 = (x) => Math.round(x * 1000) / 1000;
console.log(JSON.stringify({
  query, engine, version, threads, ...scanned,
  total_ms: r3(percentile(sorted, 0.5)), p90_ms: r3(percentile(sorted, 0.9)), min_ms: r3(sorted[0]),
  runs: ms.map(r3), repeat, cold_ms: r3(cold_ms), peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 102.4) / 10, result,
}));
