// Prints what DuckDB's parquet_metadata() says of each column chunk of a
// Parquet file, one line per chunk, fields separated by " | ":
//
//   node tests/parquet/writer_meta.mjs FILE [stats|layout]
//
// stats:  path | min | max | null_count   (DuckDB's decoded statistics)
// layout: row_group | path | physical type | codec | encodings
// With `bloom COL VALUE` it prints, per row group, whether DuckDB's
// parquet_bloom_probe() says the bloom filter excludes VALUE (a SQL literal).
// And with `copy OUT`, writes FILE's rows again with DuckDB's own writer in
// one row group (the reference for the statistics of the same values):
//
//   node tests/parquet/writer_meta.mjs FILE copy OUT
import { DuckDBInstance } from '@duckdb/node-api';

const [file, mode = 'stats', out] = process.argv.slice(2);
if (!file) {
  console.error('usage: node writer_meta.mjs FILE [stats|layout|copy OUT]');
  process.exit(2);
}
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
if (mode === 'copy') {
  await conn.run(`COPY (SELECT * FROM read_parquet(${q(file)})) TO ${q(out)}
    (FORMAT PARQUET, ROW_GROUP_SIZE 1000000000)`);
  process.exit(0);
}
if (mode === 'bloom') {
  const [col, value] = process.argv.slice(4);
  const b = await conn.runAndReadAll(
    `SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(${q(file)}, ${q(col)}, ${value})
     ORDER BY row_group_id`);
  for (const row of b.getRows()) console.log(row.map(String).join(' | '));
  process.exit(0);
}
const cols = mode === 'layout'
  ? 'row_group_id, path_in_schema, type, compression, encodings'
  : 'path_in_schema, stats_min_value, stats_max_value, stats_null_count';
const r = await conn.runAndReadAll(
  `SELECT ${cols} FROM parquet_metadata(${q(file)}) ORDER BY row_group_id, column_id`);
for (const row of r.getRows()) console.log(row.map(String).join(' | '));
