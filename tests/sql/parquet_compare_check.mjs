// tests/sql/parquet_compare.mjs checked on files DuckDB writes here: each
// pair below must compare as its comment says, so that a comparison that
// passes everything (or nothing) fails this script.
//
//   node parquet_compare_check.mjs WORK_DIR
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';
import path from 'node:path';
import { compareParquet, parquetRows } from './parquet_compare.mjs';

const [dir] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node parquet_compare_check.mjs WORK_DIR');
  process.exit(2);
}
fs.mkdirSync(dir, { recursive: true });
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await inst.connect();
let n = 0;
async function file(select) {
  const f = path.join(dir, `f${n++}.parquet`);
  await conn.run(`COPY (${select}) TO '${f}' (FORMAT parquet)`);
  return f;
}
// 50,000 rows: an integer key with duplicates, text with NULLs, a DECIMAL
// sum and a DOUBLE.
const rows = (extra = '') => `SELECT range % 40000 AS k, CASE WHEN range % 7 = 0 THEN NULL ELSE 'v' || (range % 13) END AS s,
  (range / 100)::DECIMAL(18,2) AS d, range * 1.5 + 0.1 AS x FROM range(50000) ${extra}`;
const base = await file(rows());
const cases = [
  // [description, file, options, whether it must agree]
  ['the same rows shuffled', await file(`${rows()} ORDER BY hash(range)`), {}, true],
  ['the DECIMAL as a DOUBLE, the DOUBLE off by 1e-12 relative',
    await file(`SELECT k, s, d::DOUBLE, x * (1 + 1e-12) FROM (${rows()})`), {}, true],
  ['a DOUBLE off by 1e-7 relative in one row',
    await file(`SELECT k, s, d, CASE WHEN k = 777 THEN x * (1 + 1e-7) ELSE x END FROM (${rows()})`), {}, false],
  // (0.1 + 1e-7: 1e-6 relative)
  ['0.1 off by 1e-7, 1e-6 absolute allowed', await file(`SELECT k, s, d, CASE WHEN x < 1 THEN x + 1e-7 ELSE x END FROM (${rows()})`), { absTol: 1e-6 }, true],
  ['0.1 off by 1e-7, 1e-8 absolute allowed', await file(`SELECT k, s, d, CASE WHEN x < 1 THEN x + 1e-7 ELSE x END FROM (${rows()})`), { absTol: 1e-8 }, false],
  ['a NULL where the text was', await file(`SELECT k, CASE WHEN k = 5 THEN NULL ELSE s END, d, x FROM (${rows()})`), {}, false],
  ['one row less', await file(`${rows('WHERE range <> 49999')}`), {}, false],
  ['one row twice, another not', await file(`${rows('WHERE range <> 1')} UNION ALL SELECT * FROM (${rows('WHERE range = 2')})`), {}, false],
  ['a column less', await file(`SELECT k, s, d FROM (${rows()})`), {}, false],
  ['text where a number was', await file(`SELECT k, s, d::VARCHAR, x FROM (${rows()})`), {}, false],
  ['the same rows in order', await file(rows()), { ordered: true, exact: true }, true],
  ['the same rows in another order, ordered', await file(`${rows()} ORDER BY hash(range)`), { ordered: true }, false],
  ['a DOUBLE off by 1e-12 relative, exact', await file(`SELECT k, s, d, x * (1 + 1e-12) FROM (${rows()})`), { ordered: true, exact: true }, false],
];
let failures = 0;
for (const [what, f, options, agree] of cases) {
  const bad = await compareParquet(conn, base, f, options);
  const ok = (bad === null) === agree;
  if (!ok) failures++;
  console.log(`${ok ? 'ok' : 'FAIL'}: ${what}: ${bad ?? 'agree'}`);
}
const shape = await parquetRows(conn, base);
const nulls = await parquetRows(conn, await file('SELECT NULL::INT AS a, NULL::VARCHAR AS b FROM range(3)'));
if (shape.rows !== 50000 || shape.allNull || nulls.rows !== 3 || !nulls.allNull) {
  failures++;
  console.log(`FAIL: parquetRows: ${JSON.stringify(shape)} ${JSON.stringify(nulls)}`);
}
console.log(`${cases.length + 1} checks, ${failures} failures`);
process.exit(failures ? 1 : 0);
