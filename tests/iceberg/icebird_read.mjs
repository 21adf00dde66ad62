// Reads a whole Iceberg table with icebird (an independent JavaScript
// reader) over HTTP and prints one line per row, in id order, as
//   id|ts|name|amount|d|score
// (null as "null"; timestamps and dates as epoch microseconds, decimals
// with two places, NaN as "NaN"), the form tests/iceberg/canonical_rows.mjs
// prints:
//
//   node tests/iceberg/icebird_read.mjs TABLE_URL METADATA_FILE_NAME
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The repository's node_modules, wherever the test runs from.
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { icebergRead } = await import(pathToFileURL(path.join(root, 'node_modules/icebird/src/index.js')).href);

const [tableUrl, metadataFileName] = process.argv.slice(2);
const rows = await icebergRead({ tableUrl, metadataFileName });
const text = (v) => {
  if (v === null || v === undefined) return 'null';
  if (v instanceof Date) return String(BigInt(v.getTime()) * 1000n);
  if (typeof v === 'number' && Number.isNaN(v)) return 'NaN';
  return String(v);
};
rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
for (const r of rows)
  console.log([r.id, r.ts, r.name, r.amount === null ? null : Number(r.amount).toFixed(2), r.d, r.score].map(text).join('|'));
