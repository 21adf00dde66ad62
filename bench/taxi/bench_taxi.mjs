#!/usr/bin/env node
// The taxi benchmark: the eight queries on basalt (basalt-taxibench, over the
// Iceberg table through its catalog) and on DuckDB and Polars (over the same
// data files), each (engine, threads, query) leg in its own process,
// interleaved so that the machine's drift falls on every engine alike.
// Answers are diffed against DuckDB's (counts exact, sums to 1e-9 relative),
// and basalt's `files` and `rows_scanned` must equal DuckDB's; any
// disagreement fails the run (exit 1).
//
//   node bench/taxi/bench_taxi.mjs --catalog URI [--table taxi.trips]
//        [--engines basalt,duckdb,polars] [--threads 1,2] [--queries q1,...,q8]
//        [--passes 1] [--repeat 5] [--pin1 CPU|none] [--peer-files DIR]
//        [--build DIR] [--out FILE.json] [--show-answers 1]
//
// --peer-files: a folder of Parquet files for the peers instead of the
// table's data files (the table after deletes, as a copy of the surviving rows).
// One-thread legs are pinned to one CPU (default 0), as the peers' figures were.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QUERIES, disagreement } from './fold.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const opt = {
  catalog: 'sqlite:./warehouse/catalog.db', table: 'taxi.trips', engines: 'basalt,duckdb,polars',
  threads: '1,2', queries: QUERIES.join(','), passes: '1', repeat: '5', pin1: '0', build: path.join(root, 'build'),
};
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i].replace(/^--/, '');
  if (!(k in opt) && !['peer-files', 'out', 'show-answers'].includes(k)) {
    console.error(`bench_taxi: unknown option --${k}`);
    process.exit(2);
  }
  opt[k] = process.argv[i + 1];
}
const engines = opt.engines.split(','), threads = opt.threads.split(',').map(Number), queries = opt.queries.split(',');
const basalt = path.join(opt.build, 'tools/basalt/basalt');
const taxibench = path.join(opt.build, 'bench/taxi/basalt-taxibench');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'taxibench-'));
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));

// The files the peers read: the table's live data files, or a given folder.
function peerFiles() {
  if (opt['peer-files']) {
    const dir = path.resolve(opt['peer-files']);
    return fs.readdirSync(dir).filter((f) => f.endsWith('.parquet')).sort().map((f) => path.join(dir, f));
  }
  const out = execFileSync(basalt, ['iceberg', 'files', opt.table, '--catalog', opt.catalog], { encoding: 'utf8' });
  const lines = out.split('\n').filter((l) => l && !l.startsWith('#'));
  if (lines.some((l) => l.split('\t')[2] !== '0'))
    throw new Error('the table has delete files: give the peers the surviving rows with --peer-files');
  return lines.map((l) => l.split('\t')[0]);
}
const files = peerFiles();
fs.writeFileSync(path.join(work, 'files.json'), JSON.stringify(files));
const list = `read_parquet([${files.map((f) => `'${f.replace(/'/g, "''")}'`).join(', ')}])`;

function leg(engine, q, t) {
  const pin = t === 1 && opt.pin1 !== 'none' ? ['taskset', '-c', opt.pin1] : [];
  let cmd;
  if (engine === 'basalt') {
    cmd = [taxibench, '--query', q, '--threads', String(t), '--repeat', opt.repeat, '--catalog', opt.catalog,
      '--table', opt.table];
  } else {
    const sql = path.join(work, `${q}.sql`);
    if (!fs.existsSync(sql))
      fs.writeFileSync(sql, execFileSync(taxibench, ['--print-sql', q, '--table', list], { encoding: 'utf8' }));
    cmd = ['node', path.join(here, 'peer_leg.mjs'), '--engine', engine, '--query', q, '--threads', String(t),
      '--files', path.join(work, 'files.json'), '--sql', sql, '--repeat', opt.repeat];
  }
  const argv = [...pin, ...cmd];
  const out = execFileSync(argv[0], argv.slice(1), {
    encoding: 'utf8', env: { ...process.env, POLARS_MAX_THREADS: String(t) }, maxBuffer: 1 << 26,
  });
  return JSON.parse(out.trim().split('\n').pop());
}

const records = [];
for (let pass = 0; pass < Number(opt.passes); pass++)
  for (const q of queries)
    for (const t of threads) {
      // rotate the engines' order each pass: none always runs first
      const order = engines.map((_, i) => engines[(i + pass) % engines.length]);
      for (const e of order) {
        const r = { pass, ...leg(e, q, t) };
        records.push(r);
        process.stderr.write(`pass ${pass + 1} ${q} ${t}t ${e.padEnd(6)} ${r.total_ms.toFixed(1)} ms\n`);
      }
    }

// Answers: every engine against DuckDB (or against basalt without DuckDB).
const problems = [];
const ref = engines.includes('duckdb') ? 'duckdb' : engines[0];
for (const r of records) {
  const base = records.find((x) => x.engine === ref && x.query === r.query && x.threads === r.threads && x.pass === r.pass);
  if (r === base) continue;
  const d = disagreement(r.result, base.result);
  if (d) problems.push(`${r.query} ${r.threads}t ${r.engine} vs ${ref}: ${d}`);
  if (r.engine === 'basalt' && ref === 'duckdb')
    for (const k of ['files', 'rows_scanned'])
      if (r[k] !== base[k]) problems.push(`${r.query} ${r.threads}t: ${k} ${r[k]} (basalt) vs ${base[k]} (duckdb)`);
}

// Each cell: the median over passes of the legs' p50s.
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };
const cell = (e, q, t) => median(records.filter((r) => r.engine === e && r.query === q && r.threads === t).map((r) => r.total_ms));
const cols = threads.flatMap((t) => engines.map((e) => [e, t]));
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const line = (cells) => console.log(`| ${cells.join(' | ')} |`);
console.log(`\n${files.length} data files; p50 ms per leg (median of ${opt.passes} pass(es), ${opt.repeat} runs each);` +
  ' ratio = peer / basalt (above 1: basalt faster)\n');
const peers = engines.filter((e) => e !== 'basalt');
line(['query', 'files', 'rows', ...cols.map(([e, t]) => `${e} ${t}t`),
  ...threads.flatMap((t) => (engines.includes('basalt') ? peers : []).map((p) => `${p}/basalt ${t}t`))]);
line(Array(3 + cols.length + (engines.includes('basalt') ? peers.length * threads.length : 0)).fill('---'));
const totals = Object.fromEntries(cols.map(([e, t]) => [`${e} ${t}`, 0]));
for (const q of queries) {
  const b = records.find((r) => r.query === q && r.engine === 'basalt') ?? records.find((r) => r.query === q);
  const cells = cols.map(([e, t]) => { const v = cell(e, q, t); totals[`${e} ${t}`] += v; return fmt(v); });
  const ratios = engines.includes('basalt')
    ? threads.flatMap((t) => peers.map((p) => (cell(p, q, t) / cell('basalt', q, t)).toFixed(2))) : [];
  line([q, b.files ?? '', b.rows_scanned ?? b.result.count, ...cells, ...ratios]);
}
const totalRatios = engines.includes('basalt')
  ? threads.flatMap((t) => peers.map((p) => (totals[`${p} ${t}`] / totals[`basalt ${t}`]).toFixed(2))) : [];
line(['**total**', '', '', ...cols.map(([e, t]) => `**${fmt(totals[`${e} ${t}`])}**`), ...totalRatios.map((x) => `**${x}**`)]);

// The warm-up runs: first reads of the files (cold caches; over object
// storage, the fetches that later runs are spared).
const cold = cols.map(([e, t]) => {
  const ms = queries.map((q) => median(records.filter((r) => r.engine === e && r.query === q && r.threads === t)
    .map((r) => r.cold_ms ?? NaN)));
  return `${e} ${t}t ${fmt(ms.reduce((a, b) => a + b, 0))}`;
});
console.log(`first runs (warm-up, not in the table), total ms: ${cold.join(', ')}`);
if (engines.includes('basalt'))
  for (const p of peers)
    for (const t of threads) {
      const slower = queries.filter((q) => cell('basalt', q, t) > cell(p, q, t));
      console.log(`${t}t: basalt total ${fmt(totals[`basalt ${t}`])} ms vs ${p} ${fmt(totals[`${p} ${t}`])} ms` +
        (slower.length ? `; slower than ${p} on ${slower.join(', ')}` : `; no query slower than ${p}`));
    }
if (opt['show-answers']) {
  console.log('\nanswers (basalt; DuckDB agrees unless listed below):');
  for (const q of queries) {
    const r = records.find((x) => x.query === q && x.engine === 'basalt') ?? records.find((x) => x.query === q);
    console.log(`  ${q} ${r.title ?? ''}: ${JSON.stringify(r.result)}`);
  }
}
if (opt.out) fs.writeFileSync(opt.out, JSON.stringify({ options: opt, files: files.length, records }, null, 1));
if (problems.length) {
  console.error(`answers disagree:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('all answers agree');
