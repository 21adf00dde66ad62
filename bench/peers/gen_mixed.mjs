// The other read-benchmark fixtures, generated with DuckDB like gen_flat.mjs
// (same hash macros, threads=1, so the files are a function of this script):
//
//   mixed.parquet    100,000 rows of i64 BIGINT, f64 DOUBLE, s VARCHAR (mostly
//                    distinct, 8-24 bytes), b BOOLEAN and l INTEGER[] (0-6
//                    elements); about 1% NULLs in every column (and in list
//                    elements); SNAPPY; one row group
//   mixed8.parquet   the same rows in 8 row groups of 12,500
//   flat8.parquet    flat.parquet's rows (gen_flat.mjs) in 8 row groups of
//                    125,000; UNCOMPRESSED
//
//   node bench/peers/gen_mixed.mjs OUTDIR
//
// Every file's layout is checked before the script succeeds (row groups, codec,
// null fraction, same rows in the 1- and 8-group variants).
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const out = process.argv[2];
if (!out) {
  console.error('usage: node gen_mixed.mjs OUTDIR');
  process.exit(2);
}
fs.mkdirSync(out, { recursive: true });
const dir = path.resolve(out);
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const c = await inst.connect();
const q = async (sql) => (await c.runAndReadAll(sql)).getRowObjectsJS();

await c.run(`CREATE MACRO _x16(h) AS xor(h, h >> 16)`);
await c.run(`CREATE MACRO _x13(h) AS xor(h, h >> 13)`);
await c.run(`CREATE MACRO _mul(h, k) AS ((h::UBIGINT * k::UBIGINT) & 4294967295::UBIGINT)::BIGINT`);
await c.run(`CREATE MACRO h32(x) AS _x16(_mul(_x13(_mul(_x16(x), 2246822507)), 3266489909))`);
await c.run(`CREATE MACRO rnd(i, s) AS h32(xor(h32(i % 4294967296), (s * 2654435769 + 20240601) % 4294967296))`);
// NULL in about 1 row of 100, independently per column (salt k).
await c.run(`CREATE MACRO nul(i, k, v) AS CASE WHEN rnd(i, k) % 100 = 0 THEN NULL ELSE v END`);
await c.run(`CREATE MACRO mixed_rows(lo, hi) AS TABLE
  SELECT
    nul(i, 11, ((rnd(i, 1)::HUGEINT * 2147483648 + rnd(i, 2)) - 4611686018427387904)::BIGINT) AS i64,
    nul(i, 12, (rnd(i, 3) / 4294967296.0) * 1000000.0)                                        AS f64,
    nul(i, 13, 'str_' || (rnd(i, 4) % 1000000)::VARCHAR
                 || repeat('z', (rnd(i, 5) % 14)::INTEGER))                                    AS s,
    nul(i, 14, rnd(i, 6) % 2 = 0)                                                              AS b,
    nul(i, 15, list_transform(range((rnd(i, 7) % 7)::BIGINT),
                 j -> nul(i * 8 + j, 16, (rnd(i * 8 + j, 8) % 2000000 - 1000000)::INTEGER)))  AS l
  FROM range(lo, hi) t(i)`);
await c.run(`CREATE MACRO flat_rows(lo, hi) AS TABLE
  SELECT
    ((rnd(i, 1)::HUGEINT * 2147483648 + rnd(i, 2)) - 4611686018427387904)::BIGINT      AS i64,
    (rnd(i, 3) / 4294967296.0) * 1000000.0                                              AS f64,
    'cat_' || lpad((rnd(i, 4) % 100)::VARCHAR, 2, '0')
      || repeat('x', (rnd(i, 4) % 100 % 7)::INTEGER)                                     AS s100,
    'user_' || lpad((rnd(i, 5) % 10000)::VARCHAR, 4, '0') || '_'
      || repeat('y', (rnd(i, 5) % 10000 % 13)::INTEGER)                                  AS s10k
  FROM range(lo, hi) t(i)`);

// DuckDB cuts row groups at vector boundaries; a UNION ALL of one SELECT per
// group ends each part on its own, which gives groups of exactly the size asked.
const parts = (macro, n, k) =>
  Array.from({ length: k }, (_, j) => `SELECT * FROM ${macro}(${(j * n) / k}, ${((j + 1) * n) / k})`).join(' UNION ALL ');
const layouts = [
  ['mixed.parquet', parts('mixed_rows', 100000, 1), 'snappy', 'SNAPPY', 100000, 1],
  ['mixed8.parquet', parts('mixed_rows', 100000, 8), 'snappy', 'SNAPPY', 12500, 8],
  ['flat8.parquet', parts('flat_rows', 1000000, 8), 'uncompressed', 'UNCOMPRESSED', 125000, 8],
];
for (const [name, src, codec, want, groupRows, groups] of layouts) {
  const f = path.join(dir, name);
  await c.run(`COPY (${src}) TO '${f}' (FORMAT parquet, COMPRESSION ${codec}, ROW_GROUP_SIZE ${groupRows})`);
  const md = await q(`SELECT row_group_id, row_group_num_rows, path_in_schema, compression
                      FROM parquet_metadata('${f}') ORDER BY row_group_id, column_id`);
  const ids = [...new Set(md.map((r) => Number(r.row_group_id)))];
  if (ids.length !== groups) throw new Error(`${f}: ${ids.length} row groups, want ${groups}`);
  for (const r of md) {
    if (Number(r.row_group_num_rows) !== groupRows)
      throw new Error(`${f}: row group ${r.row_group_id}: ${r.row_group_num_rows} rows, want ${groupRows}`);
    if (r.compression !== want) throw new Error(`${f}: ${r.path_in_schema}: ${r.compression}, want ${want}`);
  }
  console.log(`${f}: ${fs.statSync(f).size} bytes, ${groups} x ${groupRows} rows, ${want}`);
}
const mixed = path.join(dir, 'mixed.parquet');
const [nulls] = await q(`SELECT count(*) FILTER (i64 IS NULL)::BIGINT a, count(*) FILTER (s IS NULL)::BIGINT b,
                                count(*) FILTER (l IS NULL)::BIGINT c FROM read_parquet('${mixed}')`);
for (const [k, v] of Object.entries(nulls))
  if (Number(v) < 700 || Number(v) > 1300) throw new Error(`${mixed}: ${v} NULLs in column ${k}, want about 1%`);
for (const [a, b] of [['mixed.parquet', 'mixed8.parquet'], ['flat8.parquet', null]]) {
  const other = b ? `read_parquet('${path.join(dir, b)}')` : `flat_rows(0, 1000000)`;
  const [diff] = await q(`SELECT count(*)::BIGINT AS n FROM (SELECT * FROM read_parquet('${path.join(dir, a)}')
                          EXCEPT ALL SELECT * FROM ${other})`);
  if (Number(diff.n) !== 0) throw new Error(`${a}: ${diff.n} rows differ from ${b ?? 'flat_rows'}`);
}
c.closeSync();
inst.closeSync();
