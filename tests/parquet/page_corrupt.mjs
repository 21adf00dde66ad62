// Copies a Parquet file with one data page made unreadable, to prove which
// pages a reader skips:
//
//   node tests/parquet/page_corrupt.mjs IN OUT COLUMN ROW_GROUP PAGE [--strip-stats]
//
// The body of data page PAGE (its place from the OffsetIndex, read with
// hyparquet's readOffsetIndex) of leaf column COLUMN in row group ROW_GROUP
// is overwritten with 0xff bytes, so a reader that decompresses it fails. PAGE
// -1 corrupts nothing. With --strip-stats, the statistics of every data page
// header of that chunk are hidden: their field id becomes one that no
// reader knows (the header keeps its length, so no offset moves), which
// leaves the pages without header statistics. Prints one line per page of the
// chunk: `page first_row last_row` (last_row inclusive).
import { readFileSync, writeFileSync } from 'node:fs';
import { parquetMetadata, readOffsetIndex } from 'hyparquet';

const [inPath, outPath, column, rgArg, pageArg, flag] = process.argv.slice(2);
if (!inPath || !outPath || !column || rgArg === undefined || pageArg === undefined) {
  console.error('usage: node page_corrupt.mjs IN OUT COLUMN ROW_GROUP PAGE [--strip-stats]');
  process.exit(2);
}
const bytes = new Uint8Array(readFileSync(inPath));
const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
const meta = parquetMetadata(buf);
const rg = meta.row_groups[Number(rgArg)];
if (!rg) throw new Error(`no row group ${rgArg}`);
const chunk = rg.columns.find(c => c.meta_data.path_in_schema.join('.') === column);
if (!chunk) throw new Error(`no column ${column}`);
if (chunk.offset_index_offset === undefined) throw new Error('the chunk has no OffsetIndex');
const oi = readOffsetIndex({
  view: new DataView(buf, Number(chunk.offset_index_offset), chunk.offset_index_length),
  offset: 0,
});
const locs = oi.page_locations;

// A minimal walk of the Thrift compact protocol: enough to find where a
// PageHeader ends and where its data page header's statistics field is.
function varint(r) {
  let v = 0n, shift = 0n;
  for (;;) {
    const b = bytes[r.pos++];
    v |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
    shift += 7n;
  }
}
function skip(r, type) {
  switch (type) {
    case 1: case 2: return;
    case 3: r.pos++; return;
    case 4: case 5: case 6: varint(r); return;
    case 7: r.pos += 8; return;
    case 8: { const n = Number(varint(r)); r.pos += n; return; }
    case 9: case 10: {
      const h = bytes[r.pos++];
      let n = h >> 4;
      if (n === 15) n = Number(varint(r));
      for (let i = 0; i < n; i++) skip(r, h & 15);
      return;
    }
    case 11: {
      const n = Number(varint(r));
      if (n) {
        const kv = bytes[r.pos++];
        for (let i = 0; i < n; i++) { skip(r, kv >> 4); skip(r, kv & 15); }
      }
      return;
    }
    case 12: struct(r, () => {}); return;
    default: throw new Error(`thrift type ${type} at ${r.pos}`);
  }
}
// Calls visit(id, type, headerPos, prevId, r) for each field; visit may read
// the value itself (returning true) or leave it to be skipped.
function struct(r, visit) {
  let id = 0;
  for (;;) {
    const at = r.pos;
    const h = bytes[r.pos++];
    if (h === 0) return;
    const prev = id;
    const delta = h >> 4;
    if (!delta) throw new Error('long-form field header not expected');
    id += delta;
    if (!visit(id, h & 15, at, prev, r)) skip(r, h & 15);
  }
}

const out = [];
locs.forEach((loc, i) => {
  const r = { pos: Number(loc.offset) };
  let statsAt = -1, statsPrev = 0;
  struct(r, (id, type, _at, _prev, rr) => {
    if ((id === 5 || id === 8) && type === 12) {
      const want = id === 5 ? 5 : 8;
      struct(rr, (fid, ftype, fat, fprev, r2) => {
        if (fid === want && ftype === 12) {
          statsAt = fat;
          statsPrev = fprev;
          skip(r2, 12);
          if (bytes[r2.pos] !== 0) throw new Error('statistics is not the last field');
          return true;
        }
        return false;
      });
      return true;
    }
    return false;
  });
  const headerLen = r.pos - Number(loc.offset);
  if (flag === '--strip-stats' && statsAt >= 0) {
    const delta = 15; // the field id becomes statsPrev + 15: unknown to readers
    if (statsPrev + delta <= 8) throw new Error('no unknown id within reach');
    bytes[statsAt] = (delta << 4) | 12;
  }
  if (i === Number(pageArg)) {
    bytes.fill(0xff, Number(loc.offset) + headerLen, Number(loc.offset) + loc.compressed_page_size);
  }
  const last = i + 1 < locs.length ? Number(locs[i + 1].first_row_index) - 1 : Number(rg.num_rows) - 1;
  out.push(`${i} ${loc.first_row_index} ${last}`);
});
writeFileSync(outPath, bytes);
console.log(out.join('\n'));
