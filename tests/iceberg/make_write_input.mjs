// Input files for the table-writing tests, written by DuckDB:
//
//   node tests/iceberg/make_write_input.mjs DIR
//
// writes DIR/a.parquet (rows 0..2999) and DIR/b.parquet (rows 3000..4999):
//   id BIGINT NOT NULL, ts TIMESTAMP (three months of 2024, by id),
//   name VARCHAR (NULL every 7th row), amount DECIMAL(10,2), d DATE,
//   score DOUBLE (NaN every 11th row);
// DIR/c.parquet (rows 5000..5499) with the columns in another order, id as
// INTEGER (a cast up to the table's long) and no `score` (an optional
// column the table fills with nulls); DIR/extra.parquet: a.parquet's first
// ten rows plus a column `bogus` the table does not have.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node make_write_input.mjs DIR');
  process.exit(2);
}
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const c = await db.connect();
const rows = (lo, hi) => `
  SELECT i::BIGINT AS id,
         TIMESTAMP '2024-01-01' + to_minutes(i * 26) AS ts,
         CASE WHEN i % 7 = 0 THEN NULL ELSE 'name-' || (i % 97) END AS name,
         ((i * 37) % 100000 / 100.0)::DECIMAL(10,2) AS amount,
         (DATE '2024-01-01' + (i % 90)::INTEGER) AS d,
         CASE WHEN i % 11 = 0 THEN 'NaN'::DOUBLE ELSE i / 8.0 END AS score
  FROM range(${lo}, ${hi}) t(i)`;
await c.run(`COPY (${rows(0, 3000)}) TO ${q(path.join(dir, 'a.parquet'))} (FORMAT parquet)`);
await c.run(`COPY (${rows(3000, 5000)}) TO ${q(path.join(dir, 'b.parquet'))} (FORMAT parquet)`);
await c.run(`COPY (SELECT d, name, amount, ts, id::INTEGER AS id FROM (${rows(5000, 5500)}))
             TO ${q(path.join(dir, 'c.parquet'))} (FORMAT parquet)`);
await c.run(`COPY (SELECT *, 1 AS bogus FROM (${rows(0, 10)}))
             TO ${q(path.join(dir, 'extra.parquet'))} (FORMAT parquet)`);
