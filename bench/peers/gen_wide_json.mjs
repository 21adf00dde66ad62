// Writes wide.json for the JSON-lines read benchmark (bench/json_read.sh):
// 1,000,000 records of 8 keys (id BIGINT, qty BIGINT, price DOUBLE, disc
// DOUBLE, code VARCHAR(5), city VARCHAR, flag BOOLEAN, day DATE), written by
// DuckDB's COPY ... TO (FORMAT json), deterministic (hashes of the row
// number, no random()).
//
//   node bench/peers/gen_wide_json.mjs DIR
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node gen_wide_json.mjs DIR');
  process.exit(2);
}
fs.mkdirSync(dir, { recursive: true });
const file = path.join(dir, 'wide.json');
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await inst.connect();
await con.run(`COPY (
  SELECT i AS id,
         (hash(i) % 1000)::BIGINT - 500 AS qty,
         round((hash(i * 3) % 1000000) / 100.0, 2)::DOUBLE AS price,
         ((hash(i * 5) % 10000) / 10000.0)::DOUBLE AS disc,
         chr(65 + (hash(i * 7) % 26)::INT) || lpad(((hash(i * 11) % 10000))::VARCHAR, 4, '0') AS code,
         ['Paris', 'Zürich', 'New York', 'São Paulo', 'Tokyo', 'Lagos'][(i % 6) + 1] AS city,
         hash(i * 13) % 2 = 0 AS flag,
         DATE '2000-01-01' + (hash(i * 17) % 9000)::INT AS day
  FROM range(1000000) t(i) ORDER BY i) TO '${file}' (FORMAT json)`);
console.log(`${file}: ${fs.statSync(file).size} bytes`);
