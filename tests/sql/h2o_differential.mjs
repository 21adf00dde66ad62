// H2O db-benchmark answers of `basalt sql` against DuckDB and Polars over the
// same Parquet files.
//
//   node h2o_differential.mjs BASALT_BINARY GROUPBY_DIR JOIN_DIR WORK_DIR [name ...]
//
// GROUPBY_DIR holds x.parquet, JOIN_DIR x, small, medium and big (from
// basalt-h2ogen). Each query of tests/sql/queries/h2o (its tables turned into
// the files' paths by tpch_queries.mjs' substitution) runs in DuckDB and
// through `basalt sql -f` at 1 and 2 threads, whose outputs must be
// byte-identical; rows compare by tests/sql/result_compare.mjs, unordered.
// Polars (tests/sql/h2o_polars.mjs: every query, as lazy frames) answers too:
// its rows must equal DuckDB's (else PEER: the two references disagree) and
// basalt's. groupby_q9's r^2 of nearly uncorrelated columns is rounding noise
// near 0 whose digits differ between any two engines: values within 1e-12 of
// each other are equal there.
// Prints one line per query: OK, MISMATCH, ERROR (basalt failed), EMPTY or
// PEER. Queries named in BASALT_H2O_KNOWN_FAIL are engine gaps: their failure
// prints KNOWN and does not count, but one that passes fails the run (take it
// off the list). Exits 1 on any failure. Each basalt run is capped at
// BASALT_H2O_MEMORY_KB of address space (default 3000000; none for a
// sanitizer build) and BASALT_H2O_TIMEOUT seconds (default 120).
import { DuckDBInstance, version as duckVersion } from '@duckdb/node-api';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { h2oPolarsNames, polarsH2O } from './h2o_polars.mjs';
import { canon, compareRows } from './result_compare.mjs';
import { substituteTables } from './tpch_queries.mjs';

const [bin, groupbyDir, joinDir, workDir, ...only] = process.argv.slice(2);
if (!bin || !groupbyDir || !joinDir || !workDir) {
  console.error('usage: node h2o_differential.mjs BASALT_BINARY GROUPBY_DIR JOIN_DIR WORK_DIR [name ...]');
  process.exit(2);
}
const queryDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'queries', 'h2o');
const h2oTables = ['x', 'small', 'medium', 'big'];
const known = new Set((process.env.BASALT_H2O_KNOWN_FAIL ?? '').split(/[\s,]+/).filter(Boolean));
fs.mkdirSync(workDir, { recursive: true });
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await inst.connect();
let pl = null;
try {
  pl = (await import('nodejs-polars')).default;
} catch (e) {
  if (process.env.BASALT_REQUIRE_PEERS === '1') {
    console.log(`polars: cannot load nodejs-polars: ${String(e.message).split('\n')[0]}`);
    process.exit(1);
  }
}

async function duck(q) {
  try {
    const reader = await conn.runAndReadAll(q);
    return { rows: reader.getRowsJson().map(row => row.map(canon)) };
  } catch (e) {
    return { error: String(e.message).split('\n')[0] };
  }
}

function polars(name, dir) {
  if (pl === null || !h2oPolarsNames.includes(name)) return null;
  try {
    return { rows: polarsH2O(pl, name, dir).map(row => row.map(canon)) };
  } catch (e) {
    return { error: String(e.message).split('\n')[0] };
  }
}

const sanitized = fs.readFileSync(bin).includes('__asan_init');
const memoryKb = sanitized ? 0 : Number(process.env.BASALT_H2O_MEMORY_KB ?? 3000000);
const timeoutS = Number(process.env.BASALT_H2O_TIMEOUT ?? 120);

function ours(file, threads) {
  const args = ['sql', '-f', file, '--format', 'json', '--threads', String(threads)];
  const p = memoryKb > 0
    ? spawnSync('bash', ['-c', `ulimit -v ${memoryKb} && exec "$0" "$@"`, bin, ...args],
      { encoding: 'utf8', maxBuffer: 1 << 29, timeout: timeoutS * 1000 })
    : spawnSync(bin, args, { encoding: 'utf8', maxBuffer: 1 << 29, timeout: timeoutS * 1000 });
  if (p.signal === 'SIGTERM') return { error: `timed out after ${timeoutS} s` };
  if (p.status !== 0) return { error: (p.stderr || `exit ${p.status} ${p.signal ?? ''}`).trim().split('\n')[0] };
  const rows = p.stdout.split('\n').filter(Boolean).map(line => Object.values(JSON.parse(line)).map(canon));
  return { rows, raw: p.stdout };
}

const names = only.length ? only : fs.readdirSync(queryDir).filter(f => f.endsWith('.sql')).map(f => f.slice(0, -4))
  .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
let failures = 0, passed = 0, knownFailed = 0;
console.log(`duckdb ${duckVersion()} (node-api), polars ${pl ? 'nodejs-polars' : 'not installed: skipped'}, data ${groupbyDir} ${joinDir}`);
for (const name of names) {
  const dir = path.resolve(name.startsWith('join') ? joinDir : groupbyDir);
  const text = substituteTables(fs.readFileSync(path.join(queryDir, `${name}.sql`), 'utf8'), dir, h2oTables);
  const file = path.join(workDir, `${name}.sql`);
  fs.writeFileSync(file, text);
  const absTol = name === 'groupby_q9' ? 1e-12 : 0;
  const d = await duck(text);
  const p = polars(name, dir);
  let verdict, detail = '';
  if (d.error) {
    verdict = 'ERROR';
    detail = `duckdb: ${d.error}`;
  } else if (d.rows.length === 0 || d.rows.every(r => r.every(v => v === null))) {
    verdict = 'EMPTY';
    detail = 'duckdb returns nothing: the data is too thin for this query';
  } else if (p && (p.error || compareRows(d.rows, p.rows, false, absTol))) {
    verdict = 'PEER';
    detail = `polars and duckdb disagree: ${p.error ?? compareRows(d.rows, p.rows, false, absTol).replace('basalt', 'polars')}`;
  } else {
    const b1 = ours(file, 1);
    if (b1.error) {
      verdict = 'ERROR';
      detail = b1.error;
    } else {
      const b2 = ours(file, 2);
      const bad = compareRows(d.rows, b1.rows, false, absTol);
      const badPolars = p ? compareRows(p.rows, b1.rows, false, absTol) : null;
      if (bad || badPolars) {
        verdict = 'MISMATCH';
        detail = bad ?? `against polars: ${badPolars.replace('duckdb', 'polars')}`;
      } else if (b2.error || b2.raw !== b1.raw) {
        verdict = 'MISMATCH';
        detail = `2 threads differ from 1 thread${b2.error ? ': ' + b2.error : ''}`;
      } else {
        verdict = 'OK';
        detail = `${d.rows.length} rows${p ? ', duckdb and polars' : ', duckdb'}`;
      }
    }
  }
  if (known.has(name)) {
    if (verdict === 'OK') {
      failures++;
      console.log(`${name} FIXED: passes now (${detail}); take it off BASALT_H2O_KNOWN_FAIL`);
    } else {
      knownFailed++;
      console.log(`${name} KNOWN ${verdict}: ${detail}`);
    }
    continue;
  }
  if (verdict === 'OK') passed++;
  else failures++;
  console.log(`${name} ${verdict}${detail ? ': ' + detail : ''}`);
}
console.log(`${names.length} queries: ${passed} OK, ${knownFailed} known failures, ${failures} failures`);
process.exit(failures ? 1 : 0);
