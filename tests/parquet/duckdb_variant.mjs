// VARIANT columns basalt rewrote, as DuckDB reads them:
//
//   node tests/parquet/duckdb_variant.mjs ORIGINAL COPY [ORIGINAL COPY]...
//
// DuckDB reads each original (shredded or not) and basalt's copy (written
// unshredded from the values basalt's reader reassembled); every row's
// variant, cast to text by DuckDB, must be the same in both. Prints one line
// per pair ("ok", "FAIL", or "skipped" when DuckDB cannot read the
// original); exits 1 when any pair differs.
import { DuckDBInstance } from '@duckdb/node-api';

const args = process.argv.slice(2);
if (!args.length || args.length % 2) {
  console.error('usage: node duckdb_variant.mjs ORIGINAL COPY [ORIGINAL COPY]...');
  process.exit(2);
}
// A fresh database after an error: DuckDB's INTERNAL errors (a VARIANT
// group without 'value' first, case 41) invalidate the one they hit.
let conn = await (await DuckDBInstance.create(':memory:')).connect();
const renew = async () => { conn = await (await DuckDBInstance.create(':memory:')).connect(); };
const lit = (f) => `'${f.replaceAll("'", "''")}'`;
async function rows(file) {
  const r = await conn.runAndReadAll(`SELECT var::VARCHAR, typeof(var) FROM read_parquet(${lit(file)})`);
  return r.getRows().map(([v, t]) => JSON.stringify([v, t]));
}
let bad = 0;
for (let i = 0; i < args.length; i += 2) {
  const [orig, copy] = [args[i], args[i + 1]];
  let want;
  try {
    want = await rows(orig);
  } catch (e) {
    console.log(`skipped ${orig}: DuckDB: ${e.message.split('\n')[0]}`);
    await renew();
    continue;
  }
  let got;
  try {
    got = await rows(copy);
  } catch (e) {
    got = [`error: ${e.message.split('\n')[0]}`];
    await renew();
  }
  const first = want.findIndex((w, k) => w !== got[k]);
  if (want.length !== got.length || first >= 0) {
    bad++;
    const k = first >= 0 ? first : Math.min(want.length, got.length);
    console.log(`FAIL ${copy}: row ${k}: DuckDB reads ${got[k]} in the copy, ${want[k]} in the original`);
  } else {
    console.log(`ok ${copy}: ${want.length} rows`);
  }
}
process.exit(bad ? 1 : 0);
