// wide.csv for the CSV read benchmark, generated with DuckDB exactly as
// ../shared/peers/gen_fixtures.mjs generates it (same SQL, same hash,
// threads=1): 1,000,000 rows and a header of id BIGINT, qty INTEGER, price
// DOUBLE (2 decimals), ratio DOUBLE (5 decimals), code VARCHAR (10k
// distinct, 5 chars), city VARCHAR (8 distinct), note VARCHAR ("a12, b1":
// quoted, holds a comma), flag BOOLEAN. Uses the @duckdb/node-api of this
// checkout's node_modules.
//
//   node bench/peers/gen_wide_csv.mjs OUTDIR   writes OUTDIR/wide.csv and
//                                              OUTDIR/wide.fingerprint
//
// wide.fingerprint holds the row count and sums DuckDB reads back (rows, sum
// of id, sum of qty, summed note lengths, true flags), for the benchmark to
// check what it parses.
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const out = process.argv[2];
if (!out) {
  console.error('usage: node gen_wide_csv.mjs OUTDIR');
  process.exit(2);
}
fs.mkdirSync(out, { recursive: true });
const file = path.join(path.resolve(out), 'wide.csv');
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
const src = `
  SELECT
    i + 1                                                        AS id,
    (rnd(i, 21) % 20001)::INTEGER - 10000                        AS qty,
    round((rnd(i, 22) % 1000000) / 100.0, 2)                     AS price,
    round(rnd(i, 23) / 4294967296.0, 5)                          AS ratio,
    'k' || lpad((rnd(i, 24) % 10000)::VARCHAR, 4, '0')           AS code,
    ['Oslo','Lima','Pune','Kyiv','Doha','Graz','Turku','Bergen']
      [(rnd(i, 25) % 8 + 1)::INTEGER]                            AS city,
    'a' || (rnd(i, 26) % 100)::VARCHAR || ', b' || (rnd(i, 27) % 10)::VARCHAR
                                                                 AS note,
    rnd(i, 28) % 2 = 0                                           AS flag
  FROM range(0, 1000000) t(i)`;
await c.run(`COPY (${src}) TO '${file}' (FORMAT csv, HEADER true, DELIMITER ',', QUOTE '"')`);
const head = fs.readFileSync(file, 'utf8').slice(0, 400).split('\n');
if (head[0] !== 'id,qty,price,ratio,code,city,note,flag') throw new Error(`header: ${head[0]}`);
if (!/"a\d+, b\d+"/.test(head[1])) throw new Error(`note column not quoted: ${head[1]}`);
const [fp] = await q(`SELECT count(*) AS n, sum(id) AS sum_id, sum(qty) AS sum_qty,
                             sum(length(note)) AS len_note, sum(flag::INT) AS true_flag
                      FROM read_csv('${file}', header = true)`);
fs.writeFileSync(path.join(path.resolve(out), 'wide.fingerprint'),
  `rows ${fp.n} sum_id ${fp.sum_id} sum_qty ${fp.sum_qty} len_note ${fp.len_note} true_flag ${fp.true_flag}\n`);
console.log(`${file}: ${fs.statSync(file).size} bytes; ${JSON.stringify(fp, (k, v) => typeof v === 'bigint' ? v.toString() : v)}`);
c.closeSync();
inst.closeSync();
