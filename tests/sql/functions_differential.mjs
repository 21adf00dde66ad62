// Scalar functions of `basalt sql` against DuckDB's: every query of the
// lists in tests/sql/functions/*.txt (one per line; `--` starts a comment,
// `$T` is the table below) runs through both over the same Parquet file,
// and the rows must agree by result_compare.mjs's rules (numbers to 1e-9
// relative, timestamps as text without zone or trailing zeros); a query
// that fails in DuckDB must fail in basalt too. A line ending in
// `-- ordered` compares rows in order.
//
//   node functions_differential.mjs BASALT_BINARY WORKDIR
//
// The table f (2000 rows): i BIGINT and n INTEGER (negative, zero, NULLs),
// x DOUBLE (NaN, infinities, -0.0, NULLs), d DECIMAL(12,3), s VARCHAR (ASCII,
// multibyte UTF-8, empty, NULL, separators), dt DATE (leap days, month
// ends, before 1970), ts TIMESTAMP (fractions of a second, NULLs), p VARCHAR
// patterns.
import { DuckDBInstance } from '@duckdb/node-api';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { canon, compareRows } from './result_compare.mjs';

const [bin, dir] = process.argv.slice(2);
fs.mkdirSync(dir, { recursive: true });
const here = path.dirname(fileURLToPath(import.meta.url));
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await inst.connect();
const T = path.join(dir, 'f.parquet');
const nul = (k, e) => `CASE WHEN range % ${k} = 3 THEN NULL ELSE ${e} END`;
await conn.run(`COPY (SELECT range::BIGINT AS id,
    ${nul(11, '(range * 7919 % 2001) - 1000')}::BIGINT AS i,
    ${nul(13, '(range * 31 % 41) - 20')}::INTEGER AS n,
    ${nul(17, `CASE range % 97 WHEN 0 THEN 'NaN'::DOUBLE WHEN 1 THEN 'Infinity'::DOUBLE WHEN 2 THEN '-Infinity'::DOUBLE WHEN 4 THEN -0.0 ELSE ((range * 7919) % 100003) / 37.0 - 1300 END`)} AS x,
    ${nul(19, '((range * 104729) % 2000001 - 1000000) / 1000.0')}::DECIMAL(12,3) AS d,
    ${nul(7, `['abc', 'Hello, World', '', 'a,b,,c', 'ÅÄÖ åäö', '日本語テキスト', '  padded  ', 'x-y_z', 'MiXeD Case', '12345', 'tab\there', 'emoji 😀 end'][range % 12 + 1] || CASE WHEN range % 5 = 0 THEN '' ELSE (range % 100)::VARCHAR END`)} AS s,
    ${nul(23, `DATE '1960-02-29' + ((range * 7919) % 36500)::INTEGER`)} AS dt,
    ${nul(29, `TIMESTAMP '1969-12-31 23:00:00' + to_microseconds(((range * 104729) % 3000000000)::BIGINT * 1000 + range % 1000)`)} AS ts,
    ['a%', '%b%', '_e%', '[0-9]+', 'o', ','][range % 6 + 1] AS p
  FROM range(2000)) TO '${T}' (FORMAT parquet, ROW_GROUP_SIZE 500)`);

const queries = [];
const only = process.env.BASALT_FUNCTIONS_ONLY; // one list's file name, to run it alone
for (const f of fs.readdirSync(path.join(here, 'functions')).filter(f => f.endsWith('.txt') && (!only || f === only)).sort()) {
  const lines = fs.readFileSync(path.join(here, 'functions', f), 'utf8').split('\n');
  lines.forEach((line, k) => {
    const ordered = /--\s*ordered\s*$/.test(line);
    const sql = line.replace(/--.*$/, '').trim();
    if (sql) queries.push({ sql, ordered, where: `${f}:${k + 1}` });
  });
}

let failures = 0, compared = 0;
for (const q of queries) {
  const text = q.sql.replaceAll('$T', `'${T}'`);
  let d;
  try {
    const r = await conn.runAndReadAll(text);
    d = { rows: r.getRowsJson().map(row => row.map(canon)) };
  } catch (e) {
    d = { error: String(e.message).split('\n')[0] };
  }
  const p = spawnSync(bin, ['sql', text, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const b = p.status === 0
    ? { rows: p.stdout.split('\n').filter(Boolean).map(l => Object.values(JSON.parse(l)).map(canon)) }
    : { error: (p.stderr || `exit ${p.status}`).trim() };
  let bad = null;
  if (d.error || b.error) {
    if (!(d.error && b.error)) bad = `duckdb: ${d.error ?? 'ok'}; basalt: ${b.error ?? 'ok'}`;
  } else {
    bad = compareRows(d.rows, b.rows, q.ordered);
    compared += d.rows.length;
  }
  if (bad) {
    failures++;
    console.log(`MISMATCH ${q.where}: ${q.sql}\n  ${bad}`);
  } else {
    console.log(`ok ${q.where}`);
  }
}
console.log(`functions: ${queries.length} queries, ${compared} rows compared, ${failures} mismatches`);
process.exit(failures ? 1 : 0);
