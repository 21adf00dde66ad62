// Differential test of basalt's Parquet footer decoder and encoder against
// DuckDB (@duckdb/node-api), over the parquet-testing corpus.
//
//   node thrift_differential.mjs THRIFT_DUMP CORPUS_DIR [MORE_DIR...] [--verbose]
//
// THRIFT_DUMP is tests/tools/thrift_dump; CORPUS_DIR holds data/ and
// bad_data/ of apache/parquet-testing; each MORE_DIR is searched for more
// valid .parquet files (directories named "fuzzing" are taken as bad data).
//
// 1. Decoder: for every file DuckDB can read, basalt's view of the footer
//    (thrift_dump FILE) must equal DuckDB's parquet_file_metadata,
//    parquet_kv_metadata, parquet_schema and parquet_metadata, field by field.
//    Compared: num_rows, row group count, format version, created_by,
//    encryption algorithm presence, column orders, file key/value metadata;
//    every schema element's name, type, type_length, repetition, num_children,
//    converted type, scale, precision, field_id and logical type; every column
//    chunk's row group id/rows/column count/bytes/compressed bytes, column id,
//    file_offset, num_values, path, physical type, codec, encodings, page
//    offsets (data, dictionary, index), compressed and uncompressed sizes,
//    bloom filter offset and length, key/value metadata, statistics null and
//    distinct counts, exactness flags, and min/max/min_value/max_value for
//    the types whose rendering is reproduced here (see statRender).
//    Not compared (no DuckDB view exposes them, or DuckDB renders them through
//    type conversions not reproduced here): statistics bounds of FLOAT,
//    DOUBLE, INT96, decimals, dates, times and timestamps; nan_count;
//    size_statistics; encoding_stats; sorting_columns; page index offsets;
//    geospatial statistics; RowGroup.ordinal and file_offset (DuckDB prints
//    ColumnChunk.file_offset only when RowGroup.file_offset is set, and so
//    does this comparison).
// 2. Encoder: `thrift_dump --rewrite` replaces each file's footer by basalt's
//    re-encoding of its decode; DuckDB's four metadata views and its full
//    read of the data must be identical for the original and the rewrite.
// 3. Statuses: "PARE" files give UNSUPPORTED, plaintext-footer encrypted
//    files decode and are flagged, bad data (bad_data/, fuzzing/) gives OK,
//    CORRUPT, LIMIT or UNSUPPORTED and never crashes thrift_dump.
import { DuckDBInstance } from '@duckdb/node-api';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const [dumpBin, corpus, ...moreDirs] = args.filter((a) => a !== '--verbose');
if (!dumpBin || !corpus) {
  console.error('usage: node thrift_differential.mjs THRIFT_DUMP CORPUS_DIR [MORE_DIR...] [--verbose]');
  process.exit(2);
}

// Files whose data DuckDB should not read in full (2 GiB of strings).
const SKIP_DATA = new Set(['large_string_map.brotli.parquet']);

function walk(dir, skipDir = null) {
  let out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== skipDir) out = out.concat(walk(p, skipDir));
    } else if (/\.parquet(\.encrypted)?$/.test(e.name)) out.push(p);
  }
  return out.sort();
}

function walkAll(dir) {
  let out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out = out.concat(walkAll(p));
    else out.push(p);
  }
  return out.sort();
}

const failures = [];
const notes = [];
let compared = 0;
let fieldsCompared = 0;
let boundsCompared = 0;

function fail(file, what) {
  failures.push(`${file}: ${what}`);
}

// The path to and values of the first difference between two JSON values, or null.
function firstDiff(a, b, at = '') {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const d = firstDiff(a[k] ?? null, b[k] ?? null, `${at}[${JSON.stringify(k)}]`);
      if (d) return d;
    }
    return null;
  }
  return JSON.stringify(a) === JSON.stringify(b) ? null
    : `${at}: ${JSON.stringify(a)?.slice(0, 300)} vs ${JSON.stringify(b)?.slice(0, 300)}`;
}

function eq(file, where, ours, theirs) {
  fieldsCompared++;
  const d = firstDiff(ours === undefined ? null : ours, theirs === undefined ? null : theirs);
  if (d) fail(file, `${where}${d.startsWith(':') ? ' (basalt vs duckdb)' : ' at '}${d}`);
}

function ourDump(file) {
  const out = execFileSync(dumpBin, [file], { maxBuffer: 1 << 28 }).toString('utf8');
  return JSON.parse(out);
}

function hexBytes(hex) {
  return Buffer.from(hex ?? '', 'hex');
}

// DuckDB's text form of a BLOB: printable ASCII except \ ' " as is, the rest \xHH.
function blobRender(buf) {
  let s = '';
  for (const c of buf) {
    if (c >= 32 && c <= 126 && c !== 0x5c && c !== 0x27 && c !== 0x22) s += String.fromCharCode(c);
    else s += '\\x' + c.toString(16).toUpperCase().padStart(2, '0');
  }
  return s;
}

// The rendering of a statistics bound, for the types reproduced here; undefined otherwise.
function statRender(leaf, hex) {
  if (hex === null || hex === undefined) return null;
  const b = hexBytes(hex);
  const lt = leaf.logical_type;
  const ct = leaf.converted_type;
  const annotated = lt !== null || ct !== null;
  switch (leaf.type) {
    case 'BOOLEAN':
      return b.length === 1 ? (b[0] ? 'true' : 'false') : undefined;
    case 'INT32': {
      if (b.length !== 4) return undefined;
      const signed = ['INT_8', 'INT_16', 'INT_32'].includes(ct) ||
        (lt && lt.kind === 'INTEGER' && lt.is_signed);
      const unsigned = ['UINT_8', 'UINT_16', 'UINT_32'].includes(ct) ||
        (lt && lt.kind === 'INTEGER' && !lt.is_signed);
      if (!annotated || (signed && (!lt || lt.kind === 'INTEGER')))
        return String(b.readInt32LE(0));
      if (unsigned && (!lt || lt.kind === 'INTEGER')) return String(b.readUInt32LE(0));
      return undefined;
    }
    case 'INT64': {
      if (b.length !== 8) return undefined;
      const signed = ct === 'INT_64' || (lt && lt.kind === 'INTEGER' && lt.is_signed);
      const unsigned = ct === 'UINT_64' || (lt && lt.kind === 'INTEGER' && !lt.is_signed);
      if (!annotated || (signed && (!lt || lt.kind === 'INTEGER')))
        return String(b.readBigInt64LE(0));
      if (unsigned && (!lt || lt.kind === 'INTEGER')) return String(b.readBigUInt64LE(0));
      return undefined;
    }
    case 'BYTE_ARRAY': {
      const isString = ct === 'UTF8' || (lt && lt.kind === 'STRING');
      if (isString && (!lt || lt.kind === 'STRING')) {
        const s = b.toString('utf8');
        return Buffer.from(s, 'utf8').equals(b) ? s : undefined;
      }
      if (!annotated) return blobRender(b);
      return undefined;
    }
    default:
      return undefined;
  }
}

// Thrift's printTo form that DuckDB shows for a logical type, or null where
// DuckDB shows none (absent, or a member its Thrift code does not print).
function logicalRender(lt) {
  if (!lt) return null;
  const bool = (v) => (v ? '1' : '0');
  const unit = (u) => {
    const n = Number(u);
    return `TimeUnit(MILLIS=${n === 1 ? 'MilliSeconds()' : '<null>'}, MICROS=${
      n === 2 ? 'MicroSeconds()' : '<null>'}, NANOS=${n === 3 ? 'NanoSeconds()' : '<null>'})`;
  };
  const crs = (g) => (g.crs === null ? '<null>' : g.crs);
  switch (lt.kind) {
    case 'STRING': return 'StringType()';
    case 'MAP': return 'MapType()';
    case 'LIST': return 'ListType()';
    case 'ENUM': return 'EnumType()';
    case 'DECIMAL': return `DecimalType(scale=${lt.scale}, precision=${lt.precision})`;
    case 'DATE': return 'DateType()';
    case 'TIME': return `TimeType(isAdjustedToUTC=${bool(lt.is_adjusted_to_utc)}, unit=${unit(lt.unit)})`;
    case 'TIMESTAMP':
      return `TimestampType(isAdjustedToUTC=${bool(lt.is_adjusted_to_utc)}, unit=${unit(lt.unit)})`;
    // Thrift prints the i8 bitWidth as a character.
    case 'INTEGER':
      return `IntType(bitWidth=${String.fromCharCode(Number(lt.bit_width) & 0xff)}, isSigned=${bool(lt.is_signed)})`;
    case 'UNKNOWN': return 'NullType()';
    case 'JSON': return 'JsonType()';
    case 'BSON': return 'BsonType()';
    case 'UUID': return 'UUIDType()';
    case 'FLOAT16': return 'Float16Type()';
    case 'GEOMETRY': return `GeometryType(crs=${crs(lt)})`;
    case 'GEOGRAPHY': {
      const algos = ['SPHERICAL', 'VINCENTY', 'THOMAS', 'ANDOYER', 'KARNEY'];
      const a = lt.algorithm === null ? '<null>' : (algos[Number(lt.algorithm)] ?? lt.algorithm);
      return `GeographyType(crs=${crs(lt)}, algorithm=${a})`;
    }
    default: return null;
  }
}

async function query(con, sql) {
  const r = await con.runAndReadAll(sql);
  return r.getRowObjectsJson();
}

const lit = (f) => `'${f.replaceAll("'", "''")}'`;

async function duckViews(con, file) {
  const views = {};
  for (const [name, sql] of [
    ['file', `select * exclude (file_name, file_size_bytes, footer_size) from parquet_file_metadata(${lit(file)})`],
    ['kv', `select * exclude (file_name) from parquet_kv_metadata(${lit(file)})`],
    ['schema', `select * exclude (file_name) from parquet_schema(${lit(file)})`],
    ['meta', `select * exclude (file_name) from parquet_metadata(${lit(file)})`],
  ]) {
    try {
      views[name] = await query(con, sql);
    } catch (e) {
      views[name] = { error: e.message.split('\n')[0] };
    }
  }
  return views;
}

function compareDecode(file, ours, views) {
  const rel = path.relative(corpus, file);
  let any = false;
  if (!views.file.error) {
    any = true;
    const f = views.file[0];
    eq(file, 'num_rows', ours.num_rows, f.num_rows);
    eq(file, 'num_row_groups', ours.num_row_groups, f.num_row_groups);
    eq(file, 'format_version', ours.version, f.format_version);
    eq(file, 'created_by', ours.created_by, f.created_by);
    eq(file, 'encryption_algorithm set', ours.has_encryption_algorithm, f.encryption_algorithm !== null);
    if ('column_orders' in f) {
      const mine = ours.column_orders === null ? null : ours.column_orders.map((k) =>
        `ColumnOrder(TYPE_ORDER=${k === '1' ? 'TypeDefinedOrder()' : '<null>'})`);
      eq(file, 'column_orders', mine, f.column_orders);
    }
  } else notes.push(`${rel}: DuckDB parquet_file_metadata failed (${views.file.error}); not compared`);

  if (!views.kv.error) {
    any = true;
    eq(file, 'key_value_metadata count', ours.key_value_metadata.length, views.kv.length);
    ours.key_value_metadata.forEach(([k, v], i) => {
      if (!views.kv[i]) return;
      eq(file, `key_value_metadata[${i}].key`, blobRender(hexBytes(k)), views.kv[i].key);
      eq(file, `key_value_metadata[${i}].value`, blobRender(hexBytes(v)), views.kv[i].value);
    });
  } else notes.push(`${rel}: DuckDB parquet_kv_metadata failed (${views.kv.error}); not compared`);

  if (!views.schema.error) {
    any = true;
    eq(file, 'schema count', ours.schema.length, views.schema.length);
    ours.schema.forEach((se, i) => {
      const d = views.schema[i];
      if (!d) return;
      const w = `schema[${i}]`;
      eq(file, `${w}.name`, se.name, d.name);
      eq(file, `${w}.type`, se.type, d.type);
      eq(file, `${w}.type_length`, se.type_length, d.type_length);
      eq(file, `${w}.repetition_type`, se.repetition_type, d.repetition_type);
      eq(file, `${w}.num_children`, se.num_children, d.num_children);
      eq(file, `${w}.converted_type`, se.converted_type, d.converted_type);
      eq(file, `${w}.scale`, se.scale, d.scale);
      eq(file, `${w}.precision`, se.precision, d.precision);
      eq(file, `${w}.field_id`, se.field_id, d.field_id);
      eq(file, `${w}.logical_type`, logicalRender(se.logical_type), d.logical_type);
    });
  } else notes.push(`${rel}: DuckDB parquet_schema failed (${views.schema.error}); not compared`);

  if (!views.meta.error) {
    any = true;
    const leaves = ours.schema.filter((se) => !(se.num_children !== null && Number(se.num_children) > 0));
    eq(file, 'column chunk count', ours.columns.length, views.meta.length);
    ours.columns.forEach((c, i) => {
      const d = views.meta[i];
      if (!d) return;
      const w = `row_groups[${c.row_group_id}].columns[${c.column_id}]`;
      const leaf = leaves[Number(c.column_id)];
      eq(file, `${w}.row_group_id`, c.row_group_id, d.row_group_id);
      eq(file, `${w}.row_group_num_rows`, c.row_group_num_rows, d.row_group_num_rows);
      eq(file, `${w}.row_group_num_columns`, c.row_group_num_columns, d.row_group_num_columns);
      eq(file, `${w}.row_group_bytes`, c.row_group_bytes, d.row_group_bytes);
      eq(file, `${w}.row_group_compressed_bytes`, c.row_group_compressed_bytes, d.row_group_compressed_bytes);
      eq(file, `${w}.column_id`, c.column_id, d.column_id);
      eq(file, `${w}.file_offset`, c.row_group_file_offset === null ? null : c.file_offset, d.file_offset);
      eq(file, `${w}.num_values`, c.num_values, d.num_values);
      eq(file, `${w}.path_in_schema`, c.path_in_schema.join(', '), d.path_in_schema);
      eq(file, `${w}.type`, c.type, d.type);
      eq(file, `${w}.compression`, c.codec, d.compression);
      eq(file, `${w}.encodings`, c.encodings.join(', '), d.encodings);
      eq(file, `${w}.index_page_offset`, c.index_page_offset, d.index_page_offset);
      eq(file, `${w}.dictionary_page_offset`, c.dictionary_page_offset, d.dictionary_page_offset);
      eq(file, `${w}.data_page_offset`, c.data_page_offset, d.data_page_offset);
      eq(file, `${w}.total_compressed_size`, c.total_compressed_size, d.total_compressed_size);
      eq(file, `${w}.total_uncompressed_size`, c.total_uncompressed_size, d.total_uncompressed_size);
      eq(file, `${w}.bloom_filter_offset`, c.bloom_filter_offset, d.bloom_filter_offset);
      eq(file, `${w}.bloom_filter_length`, c.bloom_filter_length, d.bloom_filter_length);
      eq(file, `${w}.key_value_metadata`,
        c.key_value_metadata.map(([k, v]) => ({ key: blobRender(hexBytes(k)), value: blobRender(hexBytes(v)) })),
        d.key_value_metadata);
      const s = c.statistics ?? {};
      eq(file, `${w}.stats_null_count`, s.null_count ?? null, d.stats_null_count);
      eq(file, `${w}.stats_distinct_count`, s.distinct_count ?? null, d.stats_distinct_count);
      eq(file, `${w}.min_is_exact`, s.is_min_value_exact ?? null, d.min_is_exact);
      eq(file, `${w}.max_is_exact`, s.is_max_value_exact ?? null, d.max_is_exact);
      for (const [mine, theirs] of [['min', 'stats_min'], ['max', 'stats_max'],
        ['min_value', 'stats_min_value'], ['max_value', 'stats_max_value']]) {
        const r = leaf ? statRender(leaf, s[mine] ?? null) : undefined;
        if (r === undefined) continue;
        eq(file, `${w}.${theirs}`, r, d[theirs]);
        if (r !== null) boundsCompared++;
      }
    });
  } else notes.push(`${rel}: DuckDB parquet_metadata failed (${views.meta.error}); not compared`);
  return any;
}

async function compareRewrite(con, file, tmp, origViews) {
  const out = path.join(tmp, path.basename(file));
  try {
    execFileSync(dumpBin, ['--rewrite', file, out], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    fail(file, `rewrite failed: ${e.stderr}`);
    return;
  }
  const views = await duckViews(con, out);
  for (const name of Object.keys(views))
    eq(file, `rewritten footer: DuckDB ${name} view`, views[name], origViews[name]);
  if (SKIP_DATA.has(path.basename(file))) return;
  const data = async (f) => {
    try {
      return JSON.stringify((await con.runAndReadAll(`select * from read_parquet(${lit(f)})`)).getRowsJson());
    } catch (e) {
      return 'error: ' + e.message.split('\n')[0].replaceAll(f, 'FILE');
    }
  };
  eq(file, 'rewritten footer: DuckDB data', await data(out), await data(file));
  fs.unlinkSync(out);
}

function magic(file) {
  const fd = fs.openSync(file, 'r');
  const size = fs.fstatSync(fd).size;
  const b = Buffer.alloc(4);
  if (size >= 4) fs.readSync(fd, b, 0, 4, size - 4);
  fs.closeSync(fd);
  return b.toString('latin1');
}

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-thrift-'));
let rewritten = 0;
try {
  const valid = walk(path.join(corpus, 'data'));
  const bad = walk(path.join(corpus, 'bad_data'));
  for (const dir of moreDirs) {
    valid.push(...walk(dir, 'fuzzing'));
    if (fs.existsSync(path.join(dir, 'fuzzing'))) bad.push(...walkAll(path.join(dir, 'fuzzing')));
  }
  for (const file of valid) {
    const ours = ourDump(file);
    const encrypted = file.endsWith('.encrypted');
    if (magic(file) === 'PARE') {
      eq(file, 'status of an encrypted footer', ours.status, 'UNSUPPORTED');
      continue;
    }
    if (ours.status !== 'OK') {
      fail(file, `decode failed: ${ours.status}: ${ours.message}`);
      continue;
    }
    if (encrypted) {
      // Plaintext footer: columns stay encrypted, which must be flagged.
      eq(file, 'has_encryption_algorithm', ours.has_encryption_algorithm, true);
      eq(file, 'has_encrypted_columns', ours.has_encrypted_columns, true);
      continue;
    }
    const views = await duckViews(con, file);
    if (compareDecode(file, ours, views)) compared++;
    else notes.push(`${path.relative(corpus, file)}: DuckDB reads none of its metadata; only decoded`);
    await compareRewrite(con, file, tmp, views);
    rewritten++;
  }
  for (const file of bad) {
    let ours;
    try {
      ours = ourDump(file);
    } catch (e) {
      fail(file, `thrift_dump failed: ${e.message.split('\n')[0]}`);
      continue;
    }
    if (!['OK', 'CORRUPT', 'LIMIT', 'UNSUPPORTED'].includes(ours.status))
      fail(file, `bad file gave ${ours.status}: ${ours.message}`);
    else if (verbose) notes.push(`${path.relative(corpus, file)}: ${ours.status} ${ours.message}`);
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}

for (const n of notes) console.log('note: ' + n);
console.log(`compared ${compared} files against DuckDB (${fieldsCompared} fields, ` +
  `${boundsCompared} statistics bounds), ` +
  `${rewritten} re-encoded footers read back by DuckDB`);
if (failures.length) {
  for (const f of failures.slice(0, 200)) console.log('FAIL: ' + f);
  console.log(`${failures.length} differences`);
  process.exit(1);
}
console.log('ok: no differences');
