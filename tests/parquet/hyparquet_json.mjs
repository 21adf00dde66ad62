// Prints the rows of a Parquet file as hyparquet (with hyparquet-compressors
// for every codec) reads them, one JSON object per line, in the form
// `basalt parquet cat --format json` writes (tools/basalt/format.h), so that
// two files, or hyparquet and basalt, can be compared as text:
//
//   node tests/parquet/hyparquet_json.mjs FILE
//   node tests/parquet/hyparquet_json.mjs --each FILE...   (FILE.hyparquet.json
//                                                  or FILE.hyparquet.err each)
//
// hyparquet decodes the pages and assembles lists and structs; its
// conversions that would round a value are turned off so that the raw
// values arrive here: timestamps, times and dates come through parsers that
// return their ticks unchanged, DECIMAL and FLOAT16 annotations are removed
// from the schema handed to it (the integer or bytes come through and are
// printed here with the scale of the footer), UUIDs and JSON stay bytes, and
// byte arrays that are not strings stay bytes (utf8: false). The text of
// each value then follows the rules of polars_json.mjs (shared helpers).
// Maps print as [{"key":..,"value":..}], as basalt prints them only when
// their keys are strings (hyparquet assembles a map into a JavaScript
// object; see render).
import { readFileSync, writeFileSync } from 'node:fs';
import { parquetMetadata, parquetReadObjects, parquetSchema } from 'hyparquet';
import { compressors as given } from 'hyparquet-compressors';
import {
  base64Text, bigEndianSigned, dateText, decimalText, floatText, halfText, timeText, timestampText,
} from './polars_json.mjs';

// What each leaf needs for its text, taken before the annotations that
// hyparquet would use to round are removed.
const DIGITS = { MILLIS: 3, MICROS: 6, NANOS: 9 };
function leafInfo(el) {
  const lt = el.logical_type;
  const ct = el.converted_type;
  const info = { type: el.type };
  if (ct === 'DECIMAL' || lt?.type === 'DECIMAL') info.scale = el.scale ?? lt?.scale ?? 0;
  else if (lt?.type === 'FLOAT16') info.half = true;
  else if (lt?.type === 'TIMESTAMP') info.ts = { digits: DIGITS[lt.unit], utc: !!lt.isAdjustedToUTC };
  else if (ct === 'TIMESTAMP_MILLIS') info.ts = { digits: 3, utc: true };
  else if (ct === 'TIMESTAMP_MICROS') info.ts = { digits: 6, utc: true };
  else if (lt?.type === 'TIME') info.time = DIGITS[lt.unit];
  else if (ct === 'TIME_MILLIS') info.time = 3;
  else if (ct === 'TIME_MICROS') info.time = 6;
  else if (ct === 'DATE' || lt?.type === 'DATE') info.date = true;
  else if (ct === 'UTF8' || ct === 'JSON' || ct === 'ENUM' || ['STRING', 'JSON', 'ENUM'].includes(lt?.type)) info.text = true;
  if (el.type === 'INT96') info.ts = { digits: 9, utc: false };
  return info;
}

// hyparquet-compressors 1.1.2 rejects the LZ4 block of an empty page (the
// single token 0x00: no literals, no match) with "lz4 offset out of range
// 0". An empty page is valid (an all-null chunk's dictionary page, the
// values of a v2 page of nulls), and its only decoding is no bytes, so an
// empty output is given here without calling it.
const emptyOk = (f) => (input, length) => (length === 0 ? new Uint8Array(0) : f(input, length));
const compressors = { ...given, LZ4: emptyOk(given.LZ4), LZ4_RAW: emptyOk(given.LZ4_RAW) };

const ident = (v) => v;
const decoder = new TextDecoder();
const parsers = {
  timestampFromMilliseconds: ident,
  timestampFromMicroseconds: ident,
  timestampFromNanoseconds: ident,
  dateFromDays: ident,
  stringFromBytes: (b) => b && decoder.decode(b),
  jsonFromBytes: ident,
  uuidFromBytes: ident,
};

function leafText(v, info) {
  if (!info) throw new Error('a leaf without schema information');
  if (info.scale !== undefined) {
    if (v instanceof Uint8Array) return decimalText(bigEndianSigned(v), info.scale);
    return decimalText(BigInt(v), info.scale);
  }
  if (info.half) return halfText(v[0] | (v[1] << 8));
  if (info.ts) return timestampText(BigInt(v), info.ts.digits, info.ts.utc);
  if (info.time !== undefined) return timeText(BigInt(v), info.time);
  if (info.date) return JSON.stringify(dateText(v));
  switch (info.type) {
    case 'BOOLEAN': return v ? 'true' : 'false';
    case 'INT32': case 'INT64': return String(v);
    case 'FLOAT': return floatText(v, true);
    case 'DOUBLE': return floatText(v, false);
    default:
      if (typeof v === 'string') return JSON.stringify(v);
      if (info.text) return JSON.stringify(decoder.decode(v));
      return base64Text(v);
  }
}

function render(v, node, infos) {
  if (v === null || v === undefined) return 'null';
  const el = node.element;
  if (!node.children.length) return leafText(v, infos.get(node.path.join('.')));
  if (el.converted_type === 'LIST' && node.children.length === 1 && node.children[0].element.repetition_type === 'REPEATED' &&
      node.children[0].children.length <= 1) {
    const rep = node.children[0];
    const item = rep.children.length === 1 ? rep.children[0] : rep;
    return `[${v.map((x) => render(x, item, infos)).join(',')}]`;
  }
  if (el.converted_type === 'MAP' || el.converted_type === 'MAP_KEY_VALUE') {
    // hyparquet makes a map a JavaScript object: its keys become strings
    // (and integer-like keys come first, ascending), so only a map with
    // string keys prints as basalt prints it. Other keys print as the
    // strings hyparquet made of them, in its order: the same file still
    // prints the same, which is what comparing two files needs.
    const value = node.children[0].children[1];
    return `[${Object.entries(v).map(([k, x]) => `{"key":${JSON.stringify(k)},"value":${render(x, value, infos)}}`).join(',')}]`;
  }
  return `{${node.children.map((c) => `${JSON.stringify(c.element.name)}:${render(v[c.element.name], c, infos)}`).join(',')}}`;
}

async function text(file) {
  const buf = readFileSync(file);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const metadata = parquetMetadata(ab);
  const tree = parquetSchema(metadata);
  const infos = new Map();
  (function collect(node) {
    if (!node.children.length) infos.set(node.path.join('.'), leafInfo(node.element));
    node.children.forEach(collect);
  })(tree);
  for (const el of metadata.schema) {
    const lt = el.logical_type?.type;
    if (el.converted_type === 'DECIMAL' || el.converted_type === 'JSON' || ['DECIMAL', 'FLOAT16', 'UUID', 'JSON'].includes(lt)) {
      delete el.converted_type;
      delete el.logical_type;
    }
  }
  const rows = await parquetReadObjects({ file: ab, metadata, compressors, parsers, utf8: false });
  const lines = rows.map((row) =>
    `{${tree.children.map((c) => `${JSON.stringify(c.element.name)}:${render(row[c.element.name], c, infos)}`).join(',')}}`);
  return lines.length ? `${lines.join('\n')}\n` : '';
}

const args = process.argv.slice(2);
if (!args.length || (args[0] === '--each' && args.length < 2)) {
  console.error('usage: node hyparquet_json.mjs FILE | --each FILE...');
  process.exit(2);
}
if (args[0] !== '--each') {
  process.stdout.write(await text(args[0]));
} else {
  for (const file of args.slice(1)) {
    try {
      writeFileSync(`${file}.hyparquet.json`, await text(file));
    } catch (e) {
      writeFileSync(`${file}.hyparquet.err`, `${String(e.message ?? e).split('\n')[0]}\n`);
    }
  }
}
