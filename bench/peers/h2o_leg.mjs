// H2O db-benchmark side by side: each query of tests/sql/queries/h2o over the
// same Parquet files through `basalt sql -f` (its --timer: parse, plan, run,
// results collected; not process start or printing), DuckDB (node-api,
// in-process, `conn.run`: a materialised result, nothing converted to JS)
// and Polars (nodejs-polars lazy frames of tests/sql/h2o_polars.mjs,
// `collectSync`: a materialised DataFrame; one worker process per thread
// count, POLARS_MAX_THREADS set before it loads), at each thread count: one
// warm-up run then REPS timed runs, the three engines alternating query by
// query so all see the same machine. Prints p50 / p90 in ms, basalt's peak
// RSS (/usr/bin/time %M, the largest over its runs), the ratios of basalt's
// p50 to each peer's, and per suite (group-by, join) the geometric mean of
// each engine's p50 over the queries every engine ran, and basalt's over the
// fastest peer's.
//   node --expose-gc bench/peers/h2o_leg.mjs BASALT GROUPBY_DIR JOIN_DIR [REPS] [THREADS,...] [name ...]
// A basalt run is capped at BASALT_H2O_TIMEOUT seconds (default 600) and
// BASALT_H2O_MEMORY_KB of address space (default 8000000; 0: none); a query
// over either, or failing, prints its error instead of times.
// BASALT_H2O_BASALT_ARGS adds options to every basalt run (e.g.
// "--memory-limit 2GB"); BASALT_H2O_PEERS=0 runs basalt alone.
import { DuckDBInstance, version as duckVersion } from '@duckdb/node-api';
import { fork, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { polarsH2OFrame } from '../../tests/sql/h2o_polars.mjs';
import { substituteTables } from '../../tests/sql/tpch_queries.mjs';

const self = fileURLToPath(import.meta.url);
const queryDir = path.join(path.dirname(self), '..', '..', 'tests', 'sql', 'queries', 'h2o');

// Worker mode: Polars at the thread count it was started with.
if (process.argv[2] === '--polars-worker') {
  const pl = (await import('nodejs-polars')).default;
  process.on('message', ({ name, dir, reps }) => {
    try {
      const times = [];
      for (let i = 0; i <= reps; i++) {
        const t0 = process.hrtime.bigint();
        let df = polarsH2OFrame(pl, name, dir).collectSync();
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (i > 0) times.push(ms);
        if (i === 0 && df.height === 0) throw new Error('no rows');
        df = null;
        globalThis.gc?.();
      }
      process.send({ times });
    } catch (e) {
      process.send({ error: String(e.message).split('\n')[0] });
    }
  });
} else {
  await main();
}

function stats(ts) {
  ts = [...ts].sort((a, b) => a - b);
  const q = p => { const h = (ts.length - 1) * p, f = Math.floor(h); return ts[f] + (h - f) * ((ts[f + 1] ?? ts[f]) - ts[f]); };
  return { p50: q(0.5), p90: q(0.9) };
}

async function main() {
  const [bin, groupbyDir, joinDir, repsArg, threadsArg, ...only] = process.argv.slice(2);
  if (!bin || !groupbyDir || !joinDir) {
    console.error('usage: node bench/peers/h2o_leg.mjs BASALT GROUPBY_DIR JOIN_DIR [REPS] [THREADS,...] [name ...]');
    process.exit(2);
  }
  const reps = Number(repsArg ?? 3);
  const threadList = (threadsArg ?? '1,2').split(',').map(Number);
  const timeoutS = Number(process.env.BASALT_H2O_TIMEOUT ?? 600);
  const memoryKb = Number(process.env.BASALT_H2O_MEMORY_KB ?? 8000000);
  const extra = (process.env.BASALT_H2O_BASALT_ARGS ?? '').split(/\s+/).filter(Boolean);
  const peers = process.env.BASALT_H2O_PEERS !== '0';
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'h2o-leg-'));
  const inst = peers ? await DuckDBInstance.create(':memory:') : null;
  const conn = peers ? await inst.connect() : null;
  const workers = {};
  if (peers) {
    for (const t of threadList)
      workers[t] = fork(self, ['--polars-worker'], { env: { ...process.env, POLARS_MAX_THREADS: String(t) },
        execArgv: ['--expose-gc'] });
  }
  const polarsRun = (t, name, dir) => new Promise(resolve => {
    workers[t].once('message', resolve);
    workers[t].send({ name, dir, reps });
  });

  // One basalt run: its own timer in ms and its peak RSS in KiB, or an error.
  function basaltRun(file, threads) {
    // Parquet to /dev/null: the rows are written without being formatted as
    // text (a join's 9M rows took 30 s to print); the timer stops before.
    const args = ['sql', '-f', file, '--threads', String(threads), '--timer', '--format', 'parquet', '--output', '/dev/null', ...extra];
    const cap = memoryKb > 0 ? `ulimit -v ${memoryKb} && ` : '';
    const p = spawnSync('bash', ['-c', `${cap}exec /usr/bin/time -f "peak-rss-kb %M" "$0" "$@"`, bin, ...args],
      { encoding: 'utf8', timeout: timeoutS * 1000 });
    if (p.signal === 'SIGTERM') return { error: `timeout ${timeoutS} s` };
    const m = /Run Time: ([0-9.]+) s/.exec(p.stderr ?? '');
    const rss = /peak-rss-kb (\d+)/.exec(p.stderr ?? '');
    if (p.status !== 0 || !m) {
      // The status word only ("NOMEM"), to keep the table aligned.
      const st = /^basalt: ([A-Z_]+)/m.exec(p.stderr ?? '');
      return { error: `${st ? st[1] : `exit ${p.status}`}`, rss: rss ? Number(rss[1]) : 0 };
    }
    return { ms: Number(m[1]) * 1000, rss: Number(rss[1]) };
  }

  // Results are dropped and collected outside the timed part: the join
  // results are about a GB each, which the JS heap does not see.
  async function duckRun(text) {
    const t0 = process.hrtime.bigint();
    let r = await conn.run(text);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    r = null;
    globalThis.gc?.();
    return ms;
  }

  const names = only.length ? only : fs.readdirSync(queryDir).filter(f => f.endsWith('.sql')).map(f => f.slice(0, -4))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const cell = s => (s.error ? s.error.slice(0, 19).padEnd(19) : `${s.p50.toFixed(0).padStart(8)} ${s.p90.toFixed(0).padStart(8)}  `);
  const ratio = (b, p) => (b.error || p.error ? '    -' : (b.p50 / p.p50).toFixed(2).padStart(5));
  console.log(`basalt sql (--timer${extra.length ? ' ' + extra.join(' ') : ''}) vs duckdb ${duckVersion()} (node-api, conn.run) vs polars `
    + `(nodejs-polars, collectSync), ${groupbyDir} ${joinDir}, warm-up + ${reps} runs, p50 / p90 ms, basalt peak RSS MiB`);
  const results = {}; // results[t][name] = { basalt, duck, polars }
  for (const t of threadList) {
    results[t] = {};
    console.log(`\n${t} thread${t > 1 ? 's' : ''}`);
    console.log('query        | basalt p50      p90 | RSS MiB | duckdb p50      p90 | polars p50      p90 | b/duck | b/polars');
    if (peers) await conn.run(`SET threads = ${t}`);
    for (const name of names) {
      const dir = path.resolve(name.startsWith('join') ? joinDir : groupbyDir);
      const text = substituteTables(fs.readFileSync(path.join(queryDir, `${name}.sql`), 'utf8'), dir, ['x', 'small', 'medium', 'big']);
      const file = path.join(work, `${name}.sql`);
      fs.writeFileSync(file, text);
      let b = basaltRun(file, t), rss = b.rss ?? 0;
      // REPS 0: the one run is the measurement (the 1e8 leg).
      const bt = reps === 0 && !b.error ? [b.ms] : [];
      for (let i = 0; i < reps && !b.error; i++) {
        b = basaltRun(file, t);
        rss = Math.max(rss, b.rss ?? 0);
        if (!b.error) bt.push(b.ms);
      }
      const bs = b.error ? { error: b.error } : stats(bt);
      let ds = { error: 'skipped' }, ps = { error: 'skipped' };
      if (peers) {
        try {
          await duckRun(text);
          const dt = [];
          for (let i = 0; i < reps; i++) dt.push(await duckRun(text));
          ds = stats(dt);
        } catch (e) {
          ds = { error: String(e.message).split('\n')[0] };
        }
        const pr = await polarsRun(t, name, dir);
        ps = pr.error ? { error: pr.error } : stats(pr.times);
      }
      results[t][name] = { basalt: bs, duck: ds, polars: ps };
      console.log(`${name.padEnd(12)} | ${cell(bs)} | ${String(Math.round(rss / 1024)).padStart(7)} | ${cell(ds)} | ${cell(ps)} | `
        + `${ratio(bs, ds)}  | ${ratio(bs, ps)}`);
    }
  }
  console.log('\ngeometric means of the p50s (ms) over the queries all three engines ran:');
  const geo = xs => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
  for (const t of threadList) {
    for (const suite of ['groupby', 'join']) {
      const rows = Object.entries(results[t]).filter(([n, r]) => n.startsWith(suite)
        && !r.basalt.error && !r.duck.error && !r.polars.error);
      const all = Object.keys(results[t]).filter(n => n.startsWith(suite)).length;
      if (!rows.length) {
        console.log(`${t}t ${suite}: no query ran on all three engines (of ${all})`);
        continue;
      }
      const g = k => geo(rows.map(([, r]) => r[k].p50));
      const gb = g('basalt'), gd = g('duck'), gp = g('polars');
      const fastest = gd <= gp ? ['duckdb', gd] : ['polars', gp];
      console.log(`${t}t ${suite} (${rows.length} of ${all} queries): basalt ${gb.toFixed(0)}, duckdb ${gd.toFixed(0)}, polars ${gp.toFixed(0)}; `
        + `basalt / fastest peer (${fastest[0]}) ${(gb / fastest[1]).toFixed(2)}`);
    }
  }
  for (const w of Object.values(workers)) w.kill();
  fs.rmSync(work, { recursive: true, force: true });
}
