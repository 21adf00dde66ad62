// Runs one query over a Parquet file in DuckDB and prints its rows, one line
// each, values separated by spaces; on a DuckDB error prints `error: ...`
// and exits 1:
//
//   node tests/parquet/duckdb_query.mjs FILE 'SELECT count(*) FROM f WHERE ...'
//
// `f` in the query names read_parquet(FILE); FILE `-` runs the query alone
// (to write a file with COPY). `--version` prints DuckDB's version instead.
import { DuckDBInstance, version } from '@duckdb/node-api';

const [file, sql] = process.argv.slice(2);
if (file === '--version') {
  console.log(version());
  process.exit(0);
}
if (!file || !sql) {
  console.error("usage: node duckdb_query.mjs FILE 'SELECT ... FROM f ...'");
  process.exit(2);
}
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const lit = `'${file.replaceAll("'", "''")}'`;
try {
  if (file !== '-') await conn.run(`CREATE VIEW f AS SELECT * FROM read_parquet(${lit})`);
  const reader = await conn.runAndReadAll(sql);
  for (const row of reader.getRows()) console.log(row.map(v => String(v)).join(' '));
} catch (e) {
  console.log(`error: ${String(e.message ?? e).split('\n')[0]}`);
  process.exit(1);
}
