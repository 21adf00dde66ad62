// TPC-H answers of `basalt sql` against DuckDB over the same Parquet files.
//
//   node tpch_differential.mjs BASALT_BINARY DATA_DIR WORK_DIR [qNN ...]
//
// DATA_DIR holds the eight tables (basalt-tpchgen). Each query of
// tests/sql/queries/tpch (tpch_queries.mjs puts the file paths in) runs in
// DuckDB and through `basalt sql -f` at 1 and 2 threads, whose outputs must
// be byte-identical; rows compare by tests/sql/result_compare.mjs (in order
// when the outer query has ORDER BY). DuckDB's answer must be non-trivial
// (some row with a non-NULL value), or the data is too thin to test anything.
// Prints one line per query: OK, MISMATCH, ERROR (basalt failed) or EMPTY.
// Queries named in BASALT_TPCH_KNOWN_FAIL ("q07 q09") are engine gaps: their
// failure prints KNOWN and does not count, but one that passes fails the run
// (take it off the list), so the list only shrinks. Exits 1 on any failure.
// Each basalt run is capped (the machines are shared and a plan gone wrong,
// such as a cross join, would take all the memory): BASALT_TPCH_MEMORY_KB of
// address space (default 3000000; 0: none, and none for a sanitizer build,
// whose shadow memory needs more) and BASALT_TPCH_TIMEOUT seconds (default
// 120).
import { DuckDBInstance, version as duckVersion } from '@duckdb/node-api';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { canon, compareRows } from './result_compare.mjs';
import { isOrdered, tpchQuery, tpchQueryNames } from './tpch_queries.mjs';

const [bin, dataDir, workDir, ...only] = process.argv.slice(2);
if (!bin || !dataDir || !workDir) {
  console.error('usage: node tpch_differential.mjs BASALT_BINARY DATA_DIR WORK_DIR [qNN ...]');
  process.exit(2);
}
const known = new Set((process.env.BASALT_TPCH_KNOWN_FAIL ?? '').split(/[\s,]+/).filter(Boolean));
fs.mkdirSync(workDir, { recursive: true });
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await inst.connect();

async function duck(q) {
  try {
    const reader = await conn.runAndReadAll(q);
    return { rows: reader.getRowsJson().map(row => row.map(canon)) };
  } catch (e) {
    return { error: String(e.message).split('\n')[0] };
  }
}

const sanitized = fs.readFileSync(bin).includes('__asan_init');
const memoryKb = sanitized ? 0 : Number(process.env.BASALT_TPCH_MEMORY_KB ?? 3000000);
const timeoutS = Number(process.env.BASALT_TPCH_TIMEOUT ?? 120);

function ours(file, threads) {
  const args = ['sql', '-f', file, '--format', 'json', '--threads', String(threads)];
  const p = memoryKb > 0
    ? spawnSync('bash', ['-c', `ulimit -v ${memoryKb} && exec "$0" "$@"`, bin, ...args],
      { encoding: 'utf8', maxBuffer: 1 << 28, timeout: timeoutS * 1000 })
    : spawnSync(bin, args, { encoding: 'utf8', maxBuffer: 1 << 28, timeout: timeoutS * 1000 });
  if (p.signal === 'SIGTERM') return { error: `timed out after ${timeoutS} s` };
  if (p.status !== 0) return { error: (p.stderr || `exit ${p.status} ${p.signal ?? ''}`).trim().split('\n')[0] };
  const rows = p.stdout.split('\n').filter(Boolean).map(line => Object.values(JSON.parse(line)).map(canon));
  return { rows, raw: p.stdout };
}

let failures = 0, passed = 0, knownFailed = 0;
const names = only.length ? only : tpchQueryNames();
console.log(`duckdb ${duckVersion()} (node-api), data ${dataDir}`);
for (const name of names) {
  const text = tpchQuery(name, path.resolve(dataDir));
  const file = path.join(workDir, `${name}.sql`);
  fs.writeFileSync(file, text);
  const d = await duck(text);
  let verdict, detail = '';
  if (d.error) {
    verdict = 'ERROR';
    detail = `duckdb: ${d.error}`;
  } else if (d.rows.length === 0 || d.rows.every(r => r.every(v => v === null))) {
    verdict = 'EMPTY';
    detail = 'duckdb returns nothing: the data is too thin for this query';
  } else {
    const b1 = ours(file, 1);
    if (b1.error) {
      verdict = 'ERROR';
      detail = b1.error;
    } else {
      const b2 = ours(file, 2);
      const bad = compareRows(d.rows, b1.rows, isOrdered(text));
      if (bad) {
        verdict = 'MISMATCH';
        detail = bad;
      } else if (b2.error || b2.raw !== b1.raw) {
        verdict = 'MISMATCH';
        detail = `2 threads differ from 1 thread${b2.error ? ': ' + b2.error : ''}`;
      } else {
        verdict = 'OK';
        detail = `${d.rows.length} rows`;
      }
    }
  }
  if (known.has(name)) {
    if (verdict === 'OK') {
      failures++;
      console.log(`${name} FIXED: passes now (${detail}); take it off BASALT_TPCH_KNOWN_FAIL`);
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
