// Compares the rows `basalt sql --format json` printed (one object per row,
// in the file BASALT_JSON) with DuckDB's answer.
//   node spill_duckdb.mjs BASALT_JSON rows "SQL"
//     DuckDB's rows of SQL, by the rules of result_compare.mjs, as multisets
//   node spill_duckdb.mjs BASALT_JSON digest "SQL"
//     in order, for big sorted results: SQL returns one md5 of the rows as
//     lines `v1|v2|...` (NULL as \N) joined by newlines, which must equal the
//     md5 of basalt's rows written the same way
// Prints OK or MISMATCH with the first difference; exits 1 on a mismatch.
import { DuckDBInstance } from '@duckdb/node-api';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { canon, same } from './result_compare.mjs';

const [file, mode, sql] = process.argv.slice(2);
if (!file || !sql || (mode !== 'rows' && mode !== 'digest')) {
  console.error('usage: node spill_duckdb.mjs BASALT_JSON rows|digest "SQL"');
  process.exit(2);
}
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await inst.connect();
const reader = await conn.runAndReadAll(sql);
const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
let diff = null;
if (mode === 'digest') {
  const want = String(reader.getRowsJson()[0][0]);
  const text = lines.map(line => Object.values(JSON.parse(line))
    .map(v => (v === null ? '\\N' : String(v))).join('|')).join('\n');
  const got = crypto.createHash('md5').update(text).digest('hex');
  if (got !== want) diff = `md5 of ${lines.length} rows: duckdb ${want}, basalt ${got}`;
} else {
  // As multisets: both sides sorted by a key made once per row (numbers
  // to 9 digits, as result_compare.mjs does), then compared cell by cell.
  const keyed = rows => rows
    .map(row => [JSON.stringify(row.map(v => (typeof v === 'number' ? Number(v.toPrecision(9)) : v))), row])
    .sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
    .map(x => x[1]);
  const expected = keyed(reader.getRowsJson().map(row => row.map(canon)));
  const actual = keyed(lines.map(line => Object.values(JSON.parse(line)).map(canon)));
  if (expected.length !== actual.length) diff = `${expected.length} rows in duckdb, ${actual.length} in basalt`;
  for (let k = 0; !diff && k < expected.length; k++)
    for (let c = 0; !diff && c < expected[k].length; c++)
      if (expected[k].length !== actual[k].length || !same(expected[k][c], actual[k][c]))
        diff = `row ${k} col ${c}: duckdb ${JSON.stringify(expected[k][c])} basalt ${JSON.stringify(actual[k][c])}`;
}
if (diff) {
  console.log(`MISMATCH: ${diff}`);
  process.exit(1);
}
console.log(`OK: ${lines.length} rows`);
