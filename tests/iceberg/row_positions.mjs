// The row positions where an SQL condition holds in Parquet files, read by
// DuckDB (file_row_number), one line per row: "FILE POSITION", sorted:
//
//   node tests/iceberg/row_positions.mjs 'SQL' FILE...
//
// What deletion vectors of those rows must hold.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const [where, ...files] = process.argv.slice(2);
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const c = await db.connect();
const out = [];
for (const f of files) {
  const rows = await (await c.run(`SELECT file_row_number FROM read_parquet(${q(f)}, file_row_number = true)
                                   WHERE ${where} ORDER BY 1`)).getRows();
  for (const [pos] of rows) out.push(`${f} ${pos}`);
}
out.sort();
process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
