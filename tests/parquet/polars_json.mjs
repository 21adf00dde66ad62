// Prints the rows of a Parquet file as Polars reads them, one JSON object per
// line, in the form `basalt parquet cat --format json` writes (see
// tools/basalt/format.h), so the two can be compared as text:
//
//   node tests/parquet/polars_json.mjs FILE
//   node tests/parquet/polars_json.mjs --each FILE...   (FILE.polars.json or
//                                                        FILE.polars.err each)
//
// The values come from Polars (pl.readParquet); they are handed over as an
// Arrow IPC file (DataFrame.writeIPC) and read here from the raw Arrow
// buffers with apache-arrow, so nothing passes through a JavaScript number
// that could round it. Only their presentation follows basalt's rules:
// integers exact; floats in the shortest decimal text that reads back to the
// same value (of a float32 for Float32 columns), chosen among equally short
// texts as C's printf("%.*e") rounds (half to even), laid out as
// ECMAScript's Number::toString; NaN/Infinity/-Infinity as strings; binary
// as base64; dates YYYY-MM-DD (expanded years outside 0000-9999); times and
// timestamps at the digits of their unit (ms 3, us 6, ns 9) with "Z" when
// the timestamp has a time zone (Polars writes a zoned Datetime as
// isAdjustedToUTC and its values are UTC instants, so "Europe/Paris" prints
// like "UTC"); durations as integers; decimals as exact strings; lists and
// arrays as arrays, structs as objects, categoricals as their strings.
//
// The rendering helpers are exported for hyparquet_json.mjs.
import { pathToFileURL } from 'node:url';
import * as Arrow from 'apache-arrow';

// ------------------------------------------------------------------ text

// The float64 x as m * 2^q (m an integer).
function exactParts(x) {
  const b = new DataView(new ArrayBuffer(8));
  b.setFloat64(0, x);
  const hi = b.getUint32(0), lo = b.getUint32(4);
  const e = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (e) m |= 1n << 52n;
  return { m, q: (e || 1) - 1075 };
}

// Whether digits D x 10^e10 is exactly the (positive, finite) x.
function exactlyEqual(x, D, e10) {
  const { m, q } = exactParts(x);
  let L = D, R = m;
  if (e10 >= 0) L *= 10n ** BigInt(e10); else R *= 10n ** BigInt(-e10);
  if (q >= 0) R *= 2n ** BigInt(q); else L *= 2n ** BigInt(-q);
  return L === R;
}

// printf("%.*e", f, x) for positive finite x: { digits, exp } with the
// exact value rounded half to even (toExponential rounds ties up).
function printfExp(x, f) {
  const parse = (s) => {
    const [mant, ex] = s.split('e');
    return { digits: mant.replace('.', ''), exp: Number(ex) };
  };
  const up = parse(x.toExponential(f));
  if (f + 1 > 100) return up;
  const longer = parse(x.toExponential(f + 1));
  if (!longer.digits.endsWith('5')) return up;
  const D = BigInt(longer.digits);
  if (!exactlyEqual(x, D, longer.exp - (f + 1))) return up;
  const down = longer.digits.slice(0, -1);
  return BigInt(down) % 2n === 0n ? { digits: down, exp: longer.exp } : up;
}

// ECMAScript Number::toString layout of digits d1..dk x 10^(n-k).
function layout(neg, digits, n) {
  digits = digits.replace(/0+$/, '') || '0';
  const k = digits.length;
  let s;
  if (k <= n && n <= 21) s = digits + '0'.repeat(n - k);
  else if (0 < n && n <= 21) s = `${digits.slice(0, n)}.${digits.slice(n)}`;
  else if (-6 < n && n <= 0) s = `0.${'0'.repeat(-n)}${digits}`;
  else s = `${digits[0]}${k > 1 ? `.${digits.slice(1)}` : ''}e${n - 1 >= 0 ? '+' : '-'}${Math.abs(n - 1)}`;
  return (neg ? '-' : '') + s;
}

export function floatText(x, single) {
  if (Number.isNaN(x)) return '"NaN"';
  if (x === Infinity) return '"Infinity"';
  if (x === -Infinity) return '"-Infinity"';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const a = Math.abs(x);
  let best = null;
  for (let p = 1; p <= 17; p++) {
    best = printfExp(a, p - 1);
    const back = Number(`${best.digits}e${best.exp - (p - 1)}`);
    if (single ? Math.fround(back) === a : back === a) break;
  }
  return layout(x < 0, best.digits, best.exp + 1);
}

// half-precision bits to a double
export function halfValue(h) {
  const sign = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, f = h & 0x3ff;
  if (e === 31) return f ? NaN : sign * Infinity;
  return sign * (e === 0 ? f * 2 ** -24 : (f + 1024) * 2 ** (e - 25));
}

function halfBits(d) {
  const neg = d < 0 || Object.is(d, -0);
  const a = Math.abs(d);
  if (Number.isNaN(d)) return 0x7e00;
  if (a >= 65520) return (neg ? 0x8000 : 0) | 0x7c00;
  // nearest half, ties to even, by search over the positive halves
  let lo = 0, hi = 0x7bff;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (halfValue(mid) <= a) lo = mid; else hi = mid - 1;
  }
  let r = lo;
  if (lo < 0x7bff) {
    const dl = a - halfValue(lo), dh = halfValue(lo + 1) - a;
    if (dh < dl || (dh === dl && (lo & 1))) r = lo + 1;
  }
  return (neg ? 0x8000 : 0) | r;
}

// The shortest text that reads back to the same half.
export function halfText(h) {
  const x = halfValue(h);
  if (!Number.isFinite(x) || x === 0) return floatText(x, false);
  const a = Math.abs(x);
  for (let p = 1; p <= 17; p++) {
    const c = printfExp(a, p - 1);
    const back = Number(`${c.digits}e${c.exp - (p - 1)}`);
    if ((halfBits(back) & 0x7fff) === (h & 0x7fff)) return floatText(x < 0 ? -back : back, false);
  }
  return floatText(x, false);
}

const pad = (n, w) => String(n).padStart(w, '0');

export function dateText(days) {
  const d = new Date(Number(days) * 86400000);
  const y = d.getUTCFullYear();
  const yy = y >= 0 && y <= 9999 ? pad(y, 4) : (y < 0 ? '-' : '+') + pad(Math.abs(y), 6);
  return `${yy}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
}

// ticks of 10^-digits seconds (a BigInt) since the epoch or midnight
function clock(ticks, digits) {
  const per = 10n ** BigInt(digits);
  let secs = ticks / per;
  let frac = ticks % per;
  if (frac < 0n) { frac += per; secs -= 1n; }
  let days = secs / 86400n;
  let sod = secs % 86400n;
  if (sod < 0n) { sod += 86400n; days -= 1n; }
  const hms = `${pad(sod / 3600n, 2)}:${pad((sod / 60n) % 60n, 2)}:${pad(sod % 60n, 2)}`;
  return { days, secs, text: digits ? `${hms}.${pad(frac, digits)}` : hms };
}

export function timestampText(ticks, digits, utc) {
  const c = clock(BigInt(ticks), digits);
  return JSON.stringify(`${dateText(c.days)}T${c.text}${utc ? 'Z' : ''}`);
}

export function timeText(ticks, digits) {
  const c = clock(BigInt(ticks), digits);
  if (BigInt(ticks) < 0n) return JSON.stringify(String(ticks));
  return JSON.stringify(c.text);
}

export function decimalText(value, scale) {
  const neg = value < 0n;
  let s = (neg ? -value : value).toString();
  if (scale > 0) {
    s = s.padStart(scale + 1, '0');
    s = `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
  } else if (scale < 0 && value !== 0n) {
    s += '0'.repeat(-scale);
  }
  return `"${neg ? '-' : ''}${s}"`;
}

export function base64Text(bytes) {
  return JSON.stringify(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'));
}

// Big-endian two's complement bytes to a BigInt.
export function bigEndianSigned(bytes) {
  if (!bytes.length) return 0n;
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return BigInt.asIntN(bytes.length * 8, v);
}

// ------------------------------------------------------------------ Arrow

const TU_DIGITS = [0, 3, 6, 9];

function isValid(data, i) {
  if (data.typeId === Arrow.Type.Null) return false;
  const bm = data.nullBitmap;
  if (!bm || bm.length === 0) return true;
  return (bm[i >> 3] >> (i & 7)) & 1;
}

function viewBytes(data, i) {
  const v = data.values.subarray(16 * i, 16 * i + 16);
  const dv = new DataView(v.buffer, v.byteOffset, 16);
  const len = dv.getInt32(0, true);
  if (len <= 12) return v.subarray(4, 4 + len);
  const buf = dv.getInt32(8, true), off = dv.getInt32(12, true);
  return data.variadicBuffers[buf].subarray(off, off + len);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function renderArrow(data, i) {
  if (data.offset) throw new Error('sliced Arrow data is not expected here');
  if (!isValid(data, i)) return 'null';
  const type = data.type;
  const T = Arrow.Type;
  switch (type.typeId) {
    case T.Int:
      return String(data.values[i]);
    case T.Float:
      if (type.precision === 0) return halfText(data.values[i]);
      return floatText(data.values[i], type.precision === 1);
    case T.Bool:
      return (data.values[i >> 3] >> (i & 7)) & 1 ? 'true' : 'false';
    case T.Utf8: case T.LargeUtf8: {
      const b = Number(data.valueOffsets[i]), e = Number(data.valueOffsets[i + 1]);
      return JSON.stringify(utf8.decode(data.values.subarray(b, e)));
    }
    case T.Binary: case T.LargeBinary: {
      const b = Number(data.valueOffsets[i]), e = Number(data.valueOffsets[i + 1]);
      return base64Text(data.values.subarray(b, e));
    }
    case T.Utf8View: return JSON.stringify(utf8.decode(viewBytes(data, i)));
    case T.BinaryView: return base64Text(viewBytes(data, i));
    case T.FixedSizeBinary:
      return base64Text(data.values.subarray(type.byteWidth * i, type.byteWidth * (i + 1)));
    case T.Decimal: {
      const words = type.bitWidth / 32;
      let v = 0n;
      for (let w = words - 1; w >= 0; w--) v = (v << 32n) | BigInt(data.values[words * i + w]);
      return decimalText(BigInt.asIntN(type.bitWidth, v), type.scale);
    }
    case T.Date:
      if (type.unit === Arrow.DateUnit.DAY) return JSON.stringify(dateText(data.values[i]));
      return JSON.stringify(dateText(Math.floor(Number(data.values[i]) / 86400000)));
    case T.Time:
      return timeText(data.values[i], TU_DIGITS[type.unit]);
    case T.Timestamp:
      return timestampText(data.values[i], TU_DIGITS[type.unit], !!type.timezone);
    case T.Duration:
      return String(data.values[i]);
    case T.Dictionary: {
      const dict = data.dictionary.data;
      if (dict.length !== 1) throw new Error('dictionary in several chunks');
      return renderArrow(dict[0], Number(data.values[i]));
    }
    case T.List: case T.LargeList: case T.Map: {
      const b = Number(data.valueOffsets[i]), e = Number(data.valueOffsets[i + 1]);
      const child = data.children[0];
      const items = [];
      for (let k = b; k < e; k++) {
        if (type.typeId === T.Map)
          items.push(`{"key":${renderArrow(child.children[0], k)},"value":${renderArrow(child.children[1], k)}}`);
        else
          items.push(renderArrow(child, k));
      }
      return `[${items.join(',')}]`;
    }
    case T.FixedSizeList: {
      const n = type.listSize;
      const items = [];
      for (let k = n * i; k < n * (i + 1); k++) items.push(renderArrow(data.children[0], k));
      return `[${items.join(',')}]`;
    }
    case T.Struct:
      return `{${type.children.map((f, c) => `${JSON.stringify(f.name)}:${renderArrow(data.children[c], i)}`).join(',')}}`;
    default:
      throw new Error(`no rendering for Arrow type ${String(type)}`);
  }
}

async function main() {
  const args = process.argv.slice(2);
  if (!args.length || (args[0] === '--each' && args.length < 2)) {
    console.error('usage: node polars_json.mjs FILE | --each FILE...');
    process.exit(2);
  }
  const { default: pl } = await import('nodejs-polars');
  const text = (file) => {
    // One chunk per column, so that a Categorical has one dictionary.
    const df = pl.readParquet(file).rechunk();
    const table = Arrow.tableFromIPC(df.writeIPC({ compression: 'uncompressed' }));
    const names = table.schema.fields.map((f) => JSON.stringify(f.name));
    const lines = [];
    for (const batch of table.batches) {
      const cols = batch.data.children;
      for (let r = 0; r < batch.numRows; r++)
        lines.push(`{${cols.map((c, k) => `${names[k]}:${renderArrow(c, r)}`).join(',')}}`);
    }
    return lines.length ? `${lines.join('\n')}\n` : '';
  };
  if (args[0] !== '--each') {
    process.stdout.write(text(args[0]));
    return;
  }
  // --each: FILE.polars.json for each FILE, or FILE.polars.err with the error.
  const { writeFileSync } = await import('node:fs');
  for (const file of args.slice(1)) {
    try {
      writeFileSync(`${file}.polars.json`, text(file));
    } catch (e) {
      writeFileSync(`${file}.polars.err`, `${String(e.message ?? e).split('\n')[0]}\n`);
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
