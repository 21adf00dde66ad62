// How many rows of each Parquet file are out of an order, read by DuckDB:
// a row is out of order when its position in the file differs from its
// position when the file is sorted by the ORDER BY list (ties broken by
// file position, so equal keys in any order count as sorted). Prints one
// line "FILE COUNT" per file:
//
//   node tests/iceberg/sorted_check.mjs 'name NULLS LAST, id DESC' FILE...
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const [order, ...files] = process.argv.slice(2);
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const c = await db.connect();
for (const f of files) {
  const rows = await (await c.run(`
    SELECT count(*) FROM (
      SELECT file_row_number AS pos,
             row_number() OVER (ORDER BY ${order}, file_row_number) - 1 AS want
      FROM read_parquet(${q(f)}, file_row_number = true))
    WHERE pos <> want`)).getRows();
  console.log(`${f} ${rows[0][0]}`);
}
