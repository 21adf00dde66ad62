// The rows of the table-writing tests' schema (id, ts, name, amount, d,
// score) in one canonical text, read by DuckDB, sorted by id, one line a
// row: id|ts|name|amount|d|score with timestamps and dates as epoch
// microseconds, amount with two decimals, score as JavaScript number text,
// null as "null"
// (the form tests/iceberg/icebird_read.mjs prints):
//
//   node canonical_rows.mjs parquet FILE...   input files (a missing score
//                                            column reads as null)
//   node canonical_rows.mjs csv FILE          `basalt iceberg scan --format csv`
//   node canonical_rows.mjs glob 'DIR/**/*.parquet'  the data files a table wrote
//   node canonical_rows.mjs --where 'SQL' MODE ...   only the rows where SQL holds
//   node canonical_rows.mjs --select 'LIST' MODE ... the canonical columns
//                           computed again by LIST (an update's expected rows)
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

let args = process.argv.slice(2);
let where = 'true';
let list = '*';
while (args[0] === '--where' || args[0] === '--select') {
  if (args[0] === '--where') where = args[1];
  else list = args[1];
  args = args.slice(2);
}
const [mode, ...files] = args;
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const c = await db.connect();
const select = (from) => `SELECT id::BIGINT AS id, epoch_us(ts) AS ts, name, amount::DECIMAL(10,2)::VARCHAR AS amount,
                                 epoch_us(d::TIMESTAMP) AS d, score FROM ${from}`;
let sql;
if (mode === 'parquet') {
  const parts = [];
  for (const f of files) {
    const cols = (await (await c.run(`DESCRIBE SELECT * FROM read_parquet(${q(f)})`)).getRowObjects())
      .map((r) => r.column_name);
    const score = cols.includes('score') ? 'score' : 'NULL::DOUBLE AS score';
    parts.push(select(`(SELECT id, ts, name, amount, d, ${score} FROM read_parquet(${q(f)}))`));
  }
  sql = parts.join(' UNION ALL ');
} else if (mode === 'csv') {
  sql = select(`read_csv(${q(files[0])}, header = true, columns = {'id': 'BIGINT', 'ts': 'TIMESTAMP',
        'name': 'VARCHAR', 'amount': 'DECIMAL(10,2)', 'd': 'DATE', 'score': 'DOUBLE'})`);
} else if (mode === 'glob') {
  sql = select(`read_parquet(${q(files[0])}, union_by_name = true)`);
} else {
  console.error('usage: node canonical_rows.mjs parquet FILE... | csv FILE | glob PATTERN');
  process.exit(2);
}
const rows = await (await c.run(`SELECT ${list} FROM (${sql}) WHERE ${where} ORDER BY id`)).getRows();
const text = (v) => {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' && Number.isNaN(v)) return 'NaN';
  return String(v);
};
const out = rows.map((r) => r.map(text).join('|'));
process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
