// What a projected read of a Parquet file needs, computed from DuckDB's
// parquet_metadata (not from basalt): the bytes of the chosen columns'
// chunks plus the footer (its length from the file's last 8 bytes), and the
// number of runs those chunks make when neighbours closer than GAP bytes
// share one request.
//
//   node projected_bytes.mjs FILE COL,COL,... [GAP]   ->  "BYTES RUNS"
import { openSync, readSync, fstatSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const [file, colList, gapArg] = process.argv.slice(2);
const gap = Number(gapArg || 1 << 20);
const cols = new Set(colList.split(','));
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const reader = await con.runAndReadAll(
  `SELECT path_in_schema, dictionary_page_offset, data_page_offset, total_compressed_size
   FROM parquet_metadata('${file.replace(/'/g, "''")}')`);
const ranges = [];
for (const [name, dict, data, size] of reader.getRows()) {
  if (!cols.has(String(name))) continue;
  const start = Number(dict != null && Number(dict) > 0 ? dict : data);
  ranges.push([start, start + Number(size)]);
}
ranges.sort((a, b) => a[0] - b[0]);
let bytes = 0, runs = 0, end = -Infinity;
for (const [s, e] of ranges) {
  bytes += e - s;
  if (s > end + gap) runs++;
  end = Math.max(end, e);
}
const fd = openSync(file, 'r');
const tail = Buffer.alloc(8);
readSync(fd, tail, 0, 8, fstatSync(fd).size - 8);
bytes += tail.readUInt32LE(0) + 8;
if (process.env.SHOW_RUNS) { let e2 = -Infinity, cur = null; for (const [s, e] of ranges) { if (s > e2 + gap) { if (cur) console.error(cur[0], cur[1] - cur[0]); cur = [s, e]; } else cur[1] = Math.max(cur[1], e); e2 = Math.max(e2, e); } if (cur) console.error(cur[0], cur[1] - cur[0]); }
console.log(`${bytes} ${runs}`);
