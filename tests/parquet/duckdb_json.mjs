// Prints the rows of a Parquet file as DuckDB reads them, one JSON object per
// line, in the form `basalt parquet cat --format json` writes (see
// tools/basalt/format.h), so the two can be compared as text:
//
//   node tests/parquet/duckdb_json.mjs FILE
//   node tests/parquet/duckdb_json.mjs --each FILE...   (FILE.duckdb.json
//                                               or FILE.duckdb.err each)
//   node tests/parquet/duckdb_json.mjs --footer-key KEY [--units-from PLAIN]
//                                      [--columns a,b] FILE
//
// --footer-key reads an encrypted FILE with DuckDB's encryption_config (KEY as
// PRAGMA add_parquet_key takes it: 16, 24 or 32 characters, else base64).
// DuckDB's parquet_schema() cannot open an encrypted file, so the time units
// come from PLAIN, a plaintext file of the same schema (none without it).
// --columns selects columns (DuckDB 1.5 fails on some encrypted columns).
//
// The values come from DuckDB (SELECT * FROM read_parquet(FILE)); only their
// presentation follows basalt's rules: integers exact, floats in the shortest
// round-trip form (of a float32 for FLOAT columns), NaN/Infinity as strings,
// binary as base64, dates YYYY-MM-DD, times and timestamps ISO-8601 at the
// precision of the column's Parquet unit (INT96: nanoseconds) with "Z" when
// the Parquet LogicalType says isAdjustedToUTC, decimals as exact strings,
// UUIDs in their canonical lowercase 8-4-4-4-12 text (basalt prints the
// arrow.uuid extension type so), maps as [{"key":..,"value":..}].
import { writeFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import * as V from '@duckdb/node-api';

const args = process.argv.slice(2);
let footerKey = null, unitsFrom = null, columns = null;
while (args.length > 1 && ['--footer-key', '--units-from', '--columns'].includes(args[0])) {
  const [opt, val] = args.splice(0, 2);
  if (opt === '--footer-key') footerKey = val;
  else if (opt === '--units-from') unitsFrom = val;
  else columns = val.split(',');
}
if (!args.length || (args[0] === '--each' && args.length < 2)) {
  console.error('usage: node duckdb_json.mjs [--footer-key KEY [--units-from PLAIN]] ' +
                '[--columns a,b] FILE | --each FILE...');
  process.exit(2);
}

const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();

// Per leaf name of the file being read: the digits of its time unit and
// whether it is UTC-adjusted.
const units = new Map();
async function readUnits(lit) {
units.clear();
const schema = await conn.runAndReadAll(
  `SELECT name, type, converted_type, logical_type FROM parquet_schema(${lit})`);
for (const [name, type, converted, logical] of schema.getRows()) {
  let digits = null;
  let utc = false;
  const lt = logical ? String(logical) : '';
  if (type === 'INT96') digits = 9;
  if (/MILLIS=MilliSeconds/.test(lt) || converted === 'TIMESTAMP_MILLIS' || converted === 'TIME_MILLIS') digits = 3;
  if (/MICROS=MicroSeconds/.test(lt) || converted === 'TIMESTAMP_MICROS' || converted === 'TIME_MICROS') digits = 6;
  if (/NANOS=NanoSeconds/.test(lt)) digits = 9;
  if (/^TimestampType\(isAdjustedToUTC=(1|true)/.test(lt)) utc = true;
  const half = /^Float16Type/.test(lt);
  if (!units.has(name)) units.set(name, { digits, utc, half });
}
}

function shortest(x, single) {
  if (Number.isNaN(x)) return '"NaN"';
  if (x === Infinity) return '"Infinity"';
  if (x === -Infinity) return '"-Infinity"';
  if (Object.is(x, -0)) return '-0';
  if (!single) return String(x);
  for (let p = 1; p <= 9; p++) {
    const s = x.toPrecision(p);
    if (Math.fround(Number(s)) === x) return String(Number(s));
  }
  return String(x);
}

// Every finite positive half-precision value, by bits, to round a double
// to the nearest half (ties to even) without a Math.f16round.
const halves = new Float64Array(0x7c00);
for (let b = 0; b < 0x7c00; b++) {
  const e = b >> 10, f = b & 0x3ff;
  halves[b] = e === 0 ? f * 2 ** -24 : (f + 1024) * 2 ** (e - 25);
}
function halfBits(d) {
  const neg = d < 0 || Object.is(d, -0);
  const a = Math.abs(d);
  if (Number.isNaN(d)) return 0x7e00;
  if (a >= 65520) return (neg ? 0x8000 : 0) | 0x7c00;
  let lo = 0, hi = 0x7bff;
  while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (halves[mid] <= a) lo = mid; else hi = mid - 1; }
  let b = lo;
  if (lo < 0x7bff) {
    const dl = a - halves[lo], dh = halves[lo + 1] - a;
    if (dh < dl || (dh === dl && (lo & 1))) b = lo + 1;
  } else if (a - halves[lo] >= 2 ** (15 - 11)) {
    b = 0x7c00;
  }
  return (neg ? 0x8000 : 0) | b;
}
function shortestHalf(x) {
  if (!Number.isFinite(x) || x === 0) return shortest(x, false);
  const h = halfBits(x);
  for (let p = 1; p <= 17; p++) {
    const s = x.toPrecision(p);
    if (halfBits(Number(s)) === h) return String(Number(s));
  }
  return String(x);
}

function pad(n, w) {
  return String(n).padStart(w, '0');
}

function dateText(days) {
  const d = new Date(Number(days) * 86400000);
  const y = d.getUTCFullYear();
  const yy = y >= 0 && y <= 9999 ? pad(y, 4) : (y < 0 ? '-' : '+') + pad(Math.abs(y), 6);
  return `${yy}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
}

// ticks of 10^-digits seconds since the epoch (or midnight, for times)
function clockText(ticks, digits) {
  const per = 10n ** BigInt(digits);
  let secs = ticks / per;
  let frac = ticks % per;
  if (frac < 0n) { frac += per; secs -= 1n; }
  let days = secs / 86400n;
  let sod = secs % 86400n;
  if (sod < 0n) { sod += 86400n; days -= 1n; }
  const hms = `${pad(sod / 3600n, 2)}:${pad((sod / 60n) % 60n, 2)}:${pad(sod % 60n, 2)}`;
  return { days, text: digits ? `${hms}.${pad(frac, digits)}` : hms };
}

function scaleTicks(value, fromDigits, toDigits) {
  if (toDigits >= fromDigits) return value * 10n ** BigInt(toDigits - fromDigits);
  const d = 10n ** BigInt(fromDigits - toDigits);
  let q = value / d;
  if (value % d < 0n) q -= 1n;
  return q;
}

function decimalText(value, scale) {
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

function render(v, col, type) {
  const floatSingle = type instanceof V.DuckDBFloatType;
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number')
    return (units.get(col) || {}).half ? shortestHalf(v) : shortest(v, floatSingle);
  if (typeof v === 'string') return JSON.stringify(v);
  const unit = units.get(col) || { digits: null, utc: false };
  if (v instanceof V.DuckDBBlobValue || v instanceof V.DuckDBGeometryValue)
    return JSON.stringify(Buffer.from(v.bytes).toString('base64'));
  if (v instanceof V.DuckDBUUIDValue) return JSON.stringify(v.toString().toLowerCase());
  if (v instanceof V.DuckDBDecimalValue) return decimalText(v.value, v.scale);
  if (v instanceof V.DuckDBDateValue) return JSON.stringify(dateText(v.days));
  const ts = (ticks, from) => {
    const digits = unit.digits ?? from;
    const c = clockText(scaleTicks(ticks, from, digits), digits);
    return JSON.stringify(`${dateText(c.days)}T${c.text}${unit.utc ? 'Z' : ''}`);
  };
  if (v instanceof V.DuckDBTimestampMillisecondsValue) return ts(v.millis, 3);
  if (v instanceof V.DuckDBTimestampNanosecondsValue) return ts(v.nanos, 9);
  if (v instanceof V.DuckDBTimestampSecondsValue) return ts(v.seconds, 0);
  if (v instanceof V.DuckDBTimestampTZValue || v instanceof V.DuckDBTimestampValue) return ts(v.micros, 6);
  const time = (ticks, from) => {
    const digits = unit.digits ?? from;
    return JSON.stringify(clockText(scaleTicks(ticks, from, digits), digits).text);
  };
  if (v instanceof V.DuckDBTimeNSValue) return time(v.nanos, 9);
  if (v instanceof V.DuckDBTimeValue || v instanceof V.DuckDBTimeTZValue) return time(v.micros, 6);
  if (v instanceof V.DuckDBListValue || v instanceof V.DuckDBArrayValue)
    return `[${v.items.map((x) => render(x, col, type.valueType)).join(',')}]`;
  if (v instanceof V.DuckDBStructValue)
    return `{${type.entryNames.map((k, i) => `${JSON.stringify(k)}:${render(v.entries[k], k, type.entryTypes[i])}`).join(',')}}`;
  if (v instanceof V.DuckDBMapValue)
    return `[${v.entries.map((e) => `{"key":${render(e.key, col, type.keyType)},"value":${render(e.value, col, type.valueType)}}`).join(',')}]`;
  throw new Error(`no rendering for ${v.constructor.name}`);
}

const quote = (x) => `'${x.replaceAll("'", "''")}'`;
if (footerKey !== null)
  await conn.run(`PRAGMA add_parquet_key('basalt_footer', ${quote(footerKey)})`);

async function text(file) {
  const lit = quote(file);
  if (footerKey === null) await readUnits(lit);
  else if (unitsFrom !== null) await readUnits(quote(unitsFrom));
  else units.clear();
  const options = footerKey === null ? '' : ", encryption_config = {footer_key: 'basalt_footer'}";
  const select = columns ? columns.map((c) => `"${c.replaceAll('"', '""')}"`).join(', ') : '*';
  const result = await conn.runAndReadAll(`SELECT ${select} FROM read_parquet(${lit}${options})`);
  const names = result.columnNames();
  const types = result.columnTypes();
  const lines = [];
  for (const row of result.getRows()) {
    const parts = row.map((v, i) => `${JSON.stringify(names[i])}:${render(v, names[i], types[i])}`);
    lines.push(`{${parts.join(',')}}`);
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

if (args[0] !== '--each') {
  process.stdout.write(await text(args[0]));
} else {
  for (const file of args.slice(1)) {
    try {
      writeFileSync(`${file}.duckdb.json`, await text(file));
    } catch (e) {
      writeFileSync(`${file}.duckdb.err`, `${String(e.message ?? e).split('\n')[0]}\n`);
    }
  }
}
