// Checks a Parquet file's page index, page header statistics and size
// statistics against the pages' contents, with readers independent of
// basalt: hyparquet reads the ColumnIndex, OffsetIndex, page headers and
// footer; DuckDB reads the values of each page's rows (by file_row_number).
//
//   node tests/parquet/page_index_check.mjs FILE [--no-header-stats]
//
// For every row group and flat leaf column (INT32, INT64, BYTE_ARRAY):
//   - the pages tile the chunk: the first at data_page_offset (no
//     dictionary page: write without one), each next page where the last
//     ends, their sizes summing to total_compressed_size; first_row_index 0
//     and ascending; each location holds a data page header of its size
//     whose num_values is the page's row count;
//   - null_pages, null_counts, min_values and max_values are those of the
//     page's rows as DuckDB reads them;
//   - each data page header's statistics (unless --no-header-stats: then
//     there must be none) hold the same null_count and min/max bytes as the
//     ColumnIndex entry, both flagged exact;
//   - definition_level_histograms are [nulls, values] per page for an
//     OPTIONAL column (absent for a REQUIRED one), repetition histograms are
//     absent, and ColumnMetaData.size_statistics holds their sums;
//     BYTE_ARRAY columns have unencoded_byte_array_data_bytes per page
//     (OffsetIndex) and per chunk equal to DuckDB's sum of octet_length.
// Prints `N pages checked` and exits 0, or prints each mismatch and exits 1.
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetMetadata, readColumnIndex, readOffsetIndex } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { deserializeTCompactProtocol } from 'hyparquet/src/thrift.js';

const [file, flag] = process.argv.slice(2);
if (!file) {
  console.error('usage: node page_index_check.mjs FILE [--no-header-stats]');
  process.exit(2);
}
const headerStats = flag !== '--no-header-stats';
const bytes = new Uint8Array(readFileSync(file));
const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
const meta = parquetMetadata(buf);
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const lit = `'${file.replaceAll("'", "''")}'`;

let failures = 0, pages = 0;
function fail(msg) {
  failures++;
  if (failures <= 20) console.log(`FAIL: ${msg}`);
}
function same(what, got, want) {
  const g = String(got), w = String(want);
  if (g !== w) fail(`${what}: ${g}, expected ${w}`);
}
const reader = (off, len) => ({ view: new DataView(buf, Number(off), len), offset: 0 });
// A statistics bound's raw bytes as the value DuckDB prints.
function decode(type, raw) {
  if (!raw) return 'none';
  const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  if (type === 'INT64') return dv.getBigInt64(0, true);
  if (type === 'INT32') return dv.getInt32(0, true);
  return new TextDecoder().decode(raw);
}
const hex = raw => (raw ? Buffer.from(raw).toString('hex') : 'none');

const leaves = meta.schema.filter(e => e.num_children === undefined);
let rgStart = 0;
for (const [g, rg] of meta.row_groups.entries()) {
  const rows = Number(rg.num_rows);
  for (const [c, chunk] of rg.columns.entries()) {
    const md = chunk.meta_data;
    const name = md.path_in_schema.join('.');
    const el = leaves[c];
    const where = `row group ${g}, column ${name}`;
    if (!['INT32', 'INT64', 'BYTE_ARRAY'].includes(md.type)) continue;
    const optional = el.repetition_type === 'OPTIONAL';
    const q = `"${name.replaceAll('"', '""')}"`;
    if (chunk.offset_index_offset === undefined || chunk.column_index_offset === undefined) {
      fail(`${where}: no page index`);
      continue;
    }
    const oi = readOffsetIndex(reader(chunk.offset_index_offset, chunk.offset_index_length));
    const ci = readColumnIndex(reader(chunk.column_index_offset, chunk.column_index_length), el);
    const ciRaw = deserializeTCompactProtocol(
      reader(chunk.column_index_offset, chunk.column_index_length));
    const locs = oi.page_locations;
    if (md.dictionary_page_offset !== undefined) fail(`${where}: has a dictionary page`);
    same(`${where}: first page offset`, locs[0].offset, md.data_page_offset);
    same(`${where}: first row`, locs[0].first_row_index, 0);
    let sizes = 0;
    const defHist = [0n, 0n];
    let unencodedSum = 0n;
    for (const [i, loc] of locs.entries()) {
      pages++;
      const at = `${where}, page ${i}`;
      sizes += loc.compressed_page_size;
      const first = Number(loc.first_row_index);
      const last = i + 1 < locs.length ? Number(locs[i + 1].first_row_index) - 1 : rows - 1;
      if (i + 1 < locs.length) {
        same(`${at}: next page offset`, locs[i + 1].offset,
          BigInt(loc.offset) + BigInt(loc.compressed_page_size));
        if (last < first) fail(`${at}: first_row_index does not ascend`);
      }
      const hr = { view: new DataView(buf, Number(loc.offset)), offset: 0 };
      const h = parquetHeader(hr);
      same(`${at}: header + body size`, hr.offset + h.compressed_page_size, loc.compressed_page_size);
      const dph = h.data_page_header ?? h.data_page_header_v2;
      if (!dph) {
        fail(`${at}: not a data page`);
        continue;
      }
      same(`${at}: num_values`, dph.num_values, last - first + 1);
      const octetsOf = md.type === 'BYTE_ARRAY' ? `coalesce(sum(octet_length(${q}::BLOB)), 0)` : '0';
      const r = (await conn.runAndReadAll(
        `SELECT count(*) - count(${q}), count(${q}), min(${q}), max(${q}), ${octetsOf}
         FROM read_parquet(${lit}, file_row_number = true)
         WHERE file_row_number BETWEEN ${rgStart + first} AND ${rgStart + last}`)).getRows()[0];
      const [nulls, values, mn, mx, octets] = r;
      same(`${at}: null_pages`, ci.null_pages[i], values === 0n);
      same(`${at}: null_counts`, ci.null_counts[i], nulls);
      if (values > 0n) {
        same(`${at}: min`, decode(md.type, ciRaw.field_2[i]), mn);
        same(`${at}: max`, decode(md.type, ciRaw.field_3[i]), mx);
      }
      const st = dph.statistics;
      if (!headerStats) {
        if (st) fail(`${at}: header statistics present`);
      } else if (!st) {
        fail(`${at}: no header statistics`);
      } else {
        same(`${at}: header null_count`, st.null_count, nulls);
        const nullPage = values === 0n;
        same(`${at}: header min_value`, hex(st.min_value), nullPage ? 'none' : hex(ciRaw.field_2[i]));
        same(`${at}: header max_value`, hex(st.max_value), nullPage ? 'none' : hex(ciRaw.field_3[i]));
        if (!nullPage) {
          same(`${at}: header is_min_value_exact`, st.is_min_value_exact, true);
          same(`${at}: header is_max_value_exact`, st.is_max_value_exact, true);
        }
      }
      if (optional) {
        const hist = ci.definition_level_histograms?.slice(2 * i, 2 * i + 2);
        same(`${at}: definition_level_histograms`, hist, [nulls, values]);
        defHist[0] += nulls;
        defHist[1] += values;
      }
      if (md.type === 'BYTE_ARRAY') {
        same(`${at}: unencoded_byte_array_data_bytes`, oi.unencoded_byte_array_data_bytes?.[i],
          octets);
        unencodedSum += BigInt(octets);
      }
    }
    same(`${where}: page sizes`, sizes, md.total_compressed_size);
    if (!optional && ci.definition_level_histograms) fail(`${where}: definition histograms`);
    if (ci.repetition_level_histograms) fail(`${where}: repetition histograms`);
    const ss = md.size_statistics;
    if (optional || md.type === 'BYTE_ARRAY') {
      if (!ss) {
        fail(`${where}: no size_statistics`);
      } else {
        if (optional) same(`${where}: definition_level_histogram`, ss.definition_level_histogram, defHist);
        else if (ss.definition_level_histogram) fail(`${where}: definition_level_histogram`);
        if (ss.repetition_level_histogram) fail(`${where}: repetition_level_histogram`);
        if (md.type === 'BYTE_ARRAY') {
          same(`${where}: unencoded_byte_array_data_bytes`, ss.unencoded_byte_array_data_bytes,
            unencodedSum);
        }
      }
    } else if (ss) {
      fail(`${where}: size_statistics on a REQUIRED fixed-width column`);
    }
  }
  rgStart += rows;
}
if (failures) {
  console.log(`${failures} mismatches`);
  process.exit(1);
}
console.log(`${pages} pages checked`);
