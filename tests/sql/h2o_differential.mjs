// H2O db-benchmark answers of `basalt sql` against DuckDB and Polars over the
// same Parquet files.
//
//   node h2o_differential.mjs BASALT_BINARY GROUPBY_DIR JOIN_DIR WORK_DIR [name ...]
//
// GROUPBY_DIR holds x.parquet, JOIN_DIR x, small, medium and big (from
// basalt-h2ogen). Each query of tests/sql/queries/h2o (its tables turned into
// the files' paths by tpch_queries.mjs' substitution) runs in DuckDB and
// through `basalt sql -f` at 1 and 2 threads, whose Parquet outputs must be
// the same bytes (or, failing that, the same values in the same order).
// Polars (tests/sql/h2o_polars.mjs: every query, as lazy frames) answers too:
// its rows must equal DuckDB's (else PEER: the two references disagree) and
// basalt's. Every engine writes its rows to a Parquet file in WORK_DIR and
// tests/sql/parquet_compare.mjs compares the files inside DuckDB, unordered,
// by tests/sql/result_compare.mjs' rules: node never holds the rows, so the
// 1e7-row tables' results (up to 1e7 rows) compare as the small ones do. groupby_q9's r^2 of nearly uncorrelated columns is rounding noise
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
import { h2oPolarsNames, polarsH2OFrame } from './h2o_polars.mjs';
import { compareParquet, parquetRows } from './parquet_compare.mjs';
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

const quote = s => `'${s.replaceAll("'", "''")}'`;
const firstLine = e => String(e.message).split('\n')[0];

async function duck(q, out) {
  try {
    await conn.run(`COPY (${q.trim().replace(/;\s*$/, '')}) TO ${quote(out)} (FORMAT parquet)`);
    return { file: out };
  } catch (e) {
    return { error: firstLine(e) };
  }
}

function polars(name, dir, out) {
  if (pl === null || !h2oPolarsNames.includes(name)) return null;
  try {
    polarsH2OFrame(pl, name, dir).collectSync().writeParquet(out);
    return { file: out };
  } catch (e) {
    return { error: firstLine(e) };
  }
}

const sanitized = fs.readFileSync(bin).includes('__asan_init');
const memoryKb = sanitized ? 0 : Number(process.env.BASALT_H2O_MEMORY_KB ?? 3000000);
const timeoutS = Number(process.env.BASALT_H2O_TIMEOUT ?? 120);

function ours(file, threads, out) {
  const args = ['sql', '-f', file, '--format', 'parquet', '--output', out, '--threads', String(threads)];
  const p = memoryKb > 0
    ? spawnSync('bash', ['-c', `ulimit -v ${memoryKb} && exec "$0" "$@"`, bin, ...args],
      { encoding: 'utf8', timeout: timeoutS * 1000 })
    : spawnSync(bin, args, { encoding: 'utf8', timeout: timeoutS * 1000 });
  if (p.signal === 'SIGTERM') return { error: `timed out after ${timeoutS} s` };
  if (p.status !== 0) return { error: (p.stderr || `exit ${p.status} ${p.signal ?? ''}`).trim().split('\n')[0] };
  return { file: out };
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
  const out = who => path.join(workDir, `${name}.${who}.parquet`);
  const d = await duck(text, out('duckdb'));
  const p = polars(name, dir, out('polars'));
  const shape = d.error ? null : await parquetRows(conn, d.file);
  let verdict, detail = '';
  const peerBad = p && (p.error ?? await compareParquet(conn, d.file, p.file, { absTol, names: ['duckdb', 'polars'] }));
  if (d.error) {
    verdict = 'ERROR';
    detail = `duckdb: ${d.error}`;
  } else if (shape.rows === 0 || shape.allNull) {
    verdict = 'EMPTY';
    detail = 'duckdb returns nothing: the data is too thin for this query';
  } else if (peerBad) {
    verdict = 'PEER';
    detail = `polars and duckdb disagree: ${peerBad}`;
  } else {
    const b1 = ours(file, 1, out('basalt1'));
    if (b1.error) {
      verdict = 'ERROR';
      detail = b1.error;
    } else {
      const b2 = ours(file, 2, out('basalt2'));
      const bad = await compareParquet(conn, d.file, b1.file, { absTol });
      const badPolars = p && !bad ? await compareParquet(conn, p.file, b1.file, { absTol, names: ['polars', 'basalt'] }) : null;
      // The two threads' files are the same bytes, or failing that the same
      // rows in the same order, value for value.
      const threadsDiffer = b2.error ?? (spawnSync('cmp', ['-s', b1.file, b2.file]).status === 0 ? null
        : await compareParquet(conn, b1.file, b2.file, { ordered: true, exact: true, names: ['1 thread', '2 threads'] }));
      if (bad || badPolars) {
        verdict = 'MISMATCH';
        detail = bad ?? `against polars: ${badPolars}`;
      } else if (threadsDiffer) {
        verdict = 'MISMATCH';
        detail = `2 threads differ from 1 thread: ${threadsDiffer}`;
      } else {
        verdict = 'OK';
        detail = `${shape.rows} rows${p ? ', duckdb and polars' : ', duckdb'}`;
      }
    }
  }
  for (const who of ['duckdb', 'polars', 'basalt1', 'basalt2']) fs.rmSync(out(who), { force: true });
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
