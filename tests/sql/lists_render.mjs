// List columns read from Parquet, printed by `basalt sql` as DuckDB prints
// them: DuckDB writes a file with lists of every element type the
// expressions take (NULL lists, empty lists, NULL elements, strings that
// need quotes), and
//   - `--format csv` must be byte for byte DuckDB's own CSV of the query
//     (lists as their VARCHAR text: [1, 2, NULL], ['', 'x,y'], 2.0, ...),
//   - `--format table` must hold the same cells,
//   - `--format json` must hold DuckDB's values (lists as JSON arrays),
//   - typeof() must name DuckDB's types (INTEGER[], DECIMAL(9,2)[], ...).
//
//   node lists_render.mjs BASALT_BINARY WORK_DIR
import { DuckDBInstance } from '@duckdb/node-api';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { canon, compareRows } from './result_compare.mjs';

const [bin, dir] = process.argv.slice(2);
fs.mkdirSync(dir, { recursive: true });
const F = path.join(dir, 'lists.parquet');
const conn = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
const nul = (k, e) => `CASE WHEN range % ${k} = 3 THEN NULL WHEN range % ${k} = 4 THEN [] ELSE ${e} END`;
await conn.run(`COPY (SELECT range AS id,
    ${nul(7, '[range::INTEGER, NULL, -range::INTEGER]')} AS li,
    ${nul(5, '[range * 1000000000000]')} AS lb,
    ${nul(6, `['a' || range, NULL, '', 'x,y', 'it''s', 'null', ' pad', 'b c']`)} AS ls,
    ${nul(8, '[range / 4, 1e20, 1e-7, 2.0]::DOUBLE[]')} AS ld,
    ${nul(9, '[range * 1.25]::FLOAT[]')} AS lf,
    ${nul(10, '[(range * 1.5)::DECIMAL(9,2), NULL]')} AS ldec,
    ${nul(11, `[DATE '2020-02-29' + range::INTEGER]`)} AS ldt,
    ${nul(12, `[TIMESTAMP '2020-01-01 10:00:00' + to_microseconds(range * 250000), NULL]`)} AS lts,
    ${nul(13, '[range % 2 = 0, NULL]')} AS lbool
  FROM range(40)) TO '${F}' (FORMAT parquet, ROW_GROUP_SIZE 16)`);

let failures = 0;
const fail = m => { failures++; console.log(`FAIL: ${m}`); };
const ours = (q, format) => spawnSync(bin, ['sql', q, '--format', format], { encoding: 'utf8', maxBuffer: 1 << 26 });
const q = `SELECT * FROM '${F}' ORDER BY id`;

// CSV: DuckDB's writer over the same query
const csv = path.join(dir, 'duckdb.csv');
await conn.run(`COPY (${q}) TO '${csv}' (HEADER, DELIMITER ',')`);
const want = fs.readFileSync(csv, 'utf8').replace(/\r\n/g, '\n');
const got = ours(q, 'csv');
if (got.status !== 0) fail(`csv: ${got.stderr}`);
else if (got.stdout !== want) {
  const a = want.split('\n'), b = got.stdout.split('\n');
  const k = a.findIndex((l, i) => l !== b[i]);
  fail(`csv line ${k + 1}:\n  duckdb ${a[k]}\n  basalt ${b[k]}`);
} else console.log(`ok: csv, ${a_lines(want)} lines as DuckDB writes them`);
function a_lines(t) { return t.split('\n').filter(Boolean).length; }

// table: every list cell's text is DuckDB's VARCHAR cast of it
const cells = (await conn.runAndReadAll(`SELECT li::VARCHAR, ls::VARCHAR, ld::VARCHAR, lts::VARCHAR FROM (${q}) WHERE li IS NOT NULL AND ls IS NOT NULL AND ld IS NOT NULL AND lts IS NOT NULL`)).getRowsJson();
const table = ours(q, 'table');
if (table.status !== 0) fail(`table: ${table.stderr}`);
else {
  const missing = cells.flat().filter(c => !table.stdout.includes(c));
  if (cells.length === 0 || missing.length) fail(`table lacks ${missing[0] ?? 'rows'}`);
  else console.log(`ok: table, ${cells.length * 4} list cells as DuckDB's text`);
}

// JSON: the values, lists element by element
const d = (await conn.runAndReadAll(q)).getRowsJson().map(r => r.map(canon));
const j = ours(q, 'json');
if (j.status !== 0) fail(`json: ${j.stderr}`);
else {
  const b = j.stdout.split('\n').filter(Boolean).map(l => Object.values(JSON.parse(l)).map(canon));
  const bad = compareRows(d, b, true);
  if (bad) fail(`json: ${bad}`);
  else console.log(`ok: json, ${d.length} rows`);
}

// typeof names DuckDB's types
const tq = `SELECT ${['li', 'lb', 'ls', 'ld', 'lf', 'ldec', 'ldt', 'lts', 'lbool'].map(c => `typeof(${c})`).join(', ')} FROM '${F}' LIMIT 1`;
const tw = JSON.stringify((await conn.runAndReadAll(tq)).getRowsJson()[0]);
const tg = ours(tq, 'json');
const tb = tg.status === 0 ? JSON.stringify(Object.values(JSON.parse(tg.stdout))) : tg.stderr;
if (tw !== tb) fail(`typeof: duckdb ${tw} basalt ${tb}`);
else console.log(`ok: typeof ${tw}`);
console.log(`${failures} failures`);
process.exit(failures ? 1 : 0);
