// flat.parquet and flat_zstd.parquet for the Parquet read benchmarks,
// generated with DuckDB exactly as ../shared/peers/gen_fixtures.mjs generates
// them (same SQL, same hash, threads=1): 1,000,000 rows of i64 BIGINT, f64
// DOUBLE, s100 VARCHAR (100 distinct), s10k VARCHAR (10,000 distinct); 4 row
// groups of 250,000 rows; strings dictionary-encoded (PLAIN_DICTIONARY);
// UNCOMPRESSED, and ZSTD at DuckDB's default level. Uses the @duckdb/node-api
// of this checkout's node_modules, so it needs no separate peer install.
//
//   node bench/peers/gen_flat.mjs OUTDIR      writes OUTDIR/flat.parquet,
//                                             OUTDIR/flat_zstd.parquet and
//                                             OUTDIR/flat.fingerprint
//
// The layout of both files is checked before the script succeeds (row groups,
// codec, dictionary encodings, same rows in both); flat.fingerprint holds the
// row count and the summed string lengths, for the benchmark to check what it
// decodes.
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const out = process.argv[2];
if (!out) {
  console.error('usage: node gen_flat.mjs OUTDIR');
  process.exit(2);
}
fs.mkdirSync(out, { recursive: true });
const file = path.join(path.resolve(out), 'flat.parquet');
const zfile = path.join(path.resolve(out), 'flat_zstd.parquet');
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const c = await inst.connect();
const q = async (sql) => (await c.runAndReadAll(sql)).getRowObjectsJS();

await c.run(`CREATE MACRO _x16(h) AS xor(h, h >> 16)`);
await c.run(`CREATE MACRO _x13(h) AS xor(h, h >> 13)`);
await c.run(`CREATE MACRO _mul(h, k) AS ((h::UBIGINT * k::UBIGINT) & 4294967295::UBIGINT)::BIGINT`);
await c.run(`CREATE MACRO h32(x) AS _x16(_mul(_x13(_mul(_x16(x), 2246822507)), 3266489909))`);
await c.run(`CREATE MACRO rnd(i, s) AS h32(xor(h32(i % 4294967296), (s * 2654435769 + 20240601) % 4294967296))`);
{
  const fmix = (h) => { h >>>= 0; h ^= h >>> 16; h = Math.imul(h, 0x85ebca6b) >>> 0; h ^= h >>> 13; h = Math.imul(h, 0xc2b2ae35) >>> 0; h ^= h >>> 16; return h >>> 0; };
  const [row] = await q(`SELECT h32(1) a, h32(123456789) b`);
  if (Number(row.a) !== fmix(1) || Number(row.b) !== fmix(123456789)) throw new Error('h32 macro != fmix32');
}
await c.run(`CREATE MACRO flat_rows(lo, hi) AS TABLE
  SELECT
    ((rnd(i, 1)::HUGEINT * 2147483648 + rnd(i, 2)) - 4611686018427387904)::BIGINT      AS i64,
    (rnd(i, 3) / 4294967296.0) * 1000000.0                                              AS f64,
    'cat_' || lpad((rnd(i, 4) % 100)::VARCHAR, 2, '0')
      || repeat('x', (rnd(i, 4) % 100 % 7)::INTEGER)                                     AS s100,
    'user_' || lpad((rnd(i, 5) % 10000)::VARCHAR, 4, '0') || '_'
      || repeat('y', (rnd(i, 5) % 10000 % 13)::INTEGER)                                  AS s10k
  FROM range(lo, hi) t(i)`);
const src = [0, 1, 2, 3].map((k) => `SELECT * FROM flat_rows(${k * 250000}, ${(k + 1) * 250000})`).join('\nUNION ALL\n');
const layouts = [[file, 'uncompressed', 'UNCOMPRESSED'], [zfile, 'zstd', 'ZSTD']];
for (const [f, codec, want] of layouts) {
  await c.run(`COPY (${src}) TO '${f}' (FORMAT parquet, COMPRESSION ${codec}, ROW_GROUP_SIZE 250000)`);
  const md = await q(`SELECT row_group_id, row_group_num_rows, path_in_schema, compression, encodings
                      FROM parquet_metadata('${f}') ORDER BY row_group_id, column_id`);
  const groups = [...new Set(md.map((r) => Number(r.row_group_id)))];
  for (const g of groups) {
    const rows = Number(md.find((r) => Number(r.row_group_id) === g).row_group_num_rows);
    if (rows !== 250000) throw new Error(`${f}: row group ${g}: ${rows} rows, want 250000`);
  }
  if (groups.length !== 4) throw new Error(`${f}: ${groups.length} row groups, want 4`);
  for (const r of md) {
    if (r.compression !== want) throw new Error(`${f}: ${r.path_in_schema}: ${r.compression}, want ${want}`);
    const dict = r.path_in_schema === 's100' || r.path_in_schema === 's10k';
    if (dict && !/PLAIN_DICTIONARY/.test(r.encodings))
      throw new Error(`${f}: ${r.path_in_schema} not PLAIN_DICTIONARY: ${r.encodings}`);
    if (!dict && r.encodings !== 'PLAIN') throw new Error(`${f}: ${r.path_in_schema} not PLAIN: ${r.encodings}`);
  }
}
const [diff] = await q(`SELECT count(*)::BIGINT AS n FROM (SELECT * FROM read_parquet('${file}')
                        EXCEPT ALL SELECT * FROM read_parquet('${zfile}'))`);
if (Number(diff.n) !== 0) throw new Error(`${zfile}: ${diff.n} rows differ from ${file}`);
const [fp] = await q(`SELECT count(*)::BIGINT AS n, sum(length(s100))::BIGINT AS len_s100,
                             sum(length(s10k))::BIGINT AS len_s10k FROM read_parquet('${file}')`);
fs.writeFileSync(path.join(out, 'flat.fingerprint'),
  `rows ${fp.n}\nlen_s100 ${fp.len_s100}\nlen_s10k ${fp.len_s10k}\n`);
console.log(`${file}: ${fs.statSync(file).size} bytes, ${zfile}: ${fs.statSync(zfile).size} bytes, 4 x 250000 rows each; fingerprint ${JSON.stringify(fp, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
c.closeSync();
inst.closeSync();
