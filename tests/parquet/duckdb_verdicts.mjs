// DuckDB's verdict on each file of a directory: whether it reads every row
// (SELECT * materialised) or fails, with the first line of its error. One
// line per file, tab-separated: name, ok|error, rows or message.
//
//   node tests/parquet/duckdb_verdicts.mjs DIR
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const dir = process.argv[2];
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await inst.connect();
for (const name of fs.readdirSync(dir).sort()) {
  if (name === 'README.md' || name.startsWith('.')) continue;
  const f = path.join(dir, name).replaceAll("'", "''");
  try {
    const r = await conn.runAndReadAll(`SELECT * FROM read_parquet('${f}')`);
    console.log(`${name}\tok\t${r.currentRowCount}`);
  } catch (e) {
    console.log(`${name}\terror\t${String(e.message).split('\n')[0].replaceAll('\t', ' ').slice(0, 120)}`);
  }
}
