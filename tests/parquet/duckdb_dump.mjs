// Prints `SELECT * FROM read_parquet(file)` for each file argument in the
// canonical form the column tests compare against (tests/unit/parquet/
// column_read_test.c writes basalt's arrays in the same form):
//
//   "# <file>" then one line per row: a JSON array of the row's values, no spaces;
//   "# error: <message>" when DuckDB cannot read the file.
//
// Values: null; true/false; integers as decimal strings ("-7"); floats as
// strings of JavaScript's toExponential() (the shortest digits that round-trip
// the double: "1.5e+0", "-0e+0"), "NaN", "Infinity", "-Infinity"; decimals as
// exact decimal strings ("-12.50"); text as JSON strings; binary, UUIDs and
// intervals as "hex:<bytes>" (intervals as Parquet's 12 bytes: months, days,
// milliseconds, little-endian); dates as day counts ("19000"); times and
// timestamps as integer microseconds, floored ("1704141296123456"); lists as
// arrays; structs as objects in field order; maps as arrays of [key, value];
// geometries as the hex of their WKB.
//
// With `--write DIR` first, it writes DuckDB's own Parquet files into DIR
// instead (duckdb_*.parquet: every scalar type with nulls, lists of lists,
// structs of lists of structs, maps; v1 and v2 pages; several codecs and row
// group sizes), deterministic, for the same comparison.
import { DuckDBInstance } from '@duckdb/node-api';
import * as V from '@duckdb/node-api';

function hex(bytes) {
  let s = 'hex:';
  for (const b of bytes) s += b.toString(16).padStart(2, '0');
  return s;
}

function floorDiv(a, b) {
  let q = a / b;
  if (a % b !== 0n && (a < 0n) !== (b < 0n)) q -= 1n;
  return q;
}

function float(x) {
  if (Number.isNaN(x)) return '"NaN"';
  if (x === Infinity) return '"Infinity"';
  if (x === -Infinity) return '"-Infinity"';
  if (Object.is(x, -0)) return '"-0e+0"';
  return JSON.stringify(x.toExponential());
}

function decimal(value, scale) {
  const neg = value < 0n;
  let digits = (neg ? -value : value).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    digits = digits.slice(0, digits.length - scale) + '.' + digits.slice(digits.length - scale);
  }
  return JSON.stringify((neg ? '-' : '') + digits);
}

function u32le(v) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, v >>> 0, true);
  return b;
}

function canon(v, t) {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return JSON.stringify(v.toString());
  if (typeof v === 'number') {
    const isFloat = t && (t.typeId === V.DuckDBTypeId.FLOAT || t.typeId === V.DuckDBTypeId.DOUBLE);
    return isFloat ? float(v) : JSON.stringify(String(v));
  }
  if (typeof v === 'string') return JSON.stringify(v);
  if (v instanceof V.DuckDBListValue || v instanceof V.DuckDBArrayValue)
    return '[' + v.items.map((x) => canon(x, t.valueType)).join(',') + ']';
  if (v instanceof V.DuckDBStructValue)
    return '{' + t.entryNames.map((k, i) => JSON.stringify(k) + ':' + canon(v.entries[k], t.entryTypes[i])).join(',') + '}';
  if (v instanceof V.DuckDBMapValue)
    return '[' + v.entries.map((e) => '[' + canon(e.key, t.keyType) + ',' + canon(e.value, t.valueType) + ']').join(',') + ']';
  if (v instanceof V.DuckDBBlobValue || v instanceof V.DuckDBGeometryValue)
    return JSON.stringify(hex(v.bytes));
  if (v instanceof V.DuckDBUUIDValue) return JSON.stringify('hex:' + v.toString().replace(/-/g, ''));
  if (v instanceof V.DuckDBDecimalValue) return decimal(v.value, v.scale);
  if (v instanceof V.DuckDBDateValue) return JSON.stringify(String(v.days));
  if (v instanceof V.DuckDBTimeValue) return JSON.stringify(v.micros.toString());
  if (v instanceof V.DuckDBTimeNSValue) return JSON.stringify(floorDiv(v.nanos, 1000n).toString());
  if (v instanceof V.DuckDBTimeTZValue) return JSON.stringify(v.micros.toString());
  if (v instanceof V.DuckDBTimestampValue || v instanceof V.DuckDBTimestampTZValue)
    return JSON.stringify(v.micros.toString());
  if (v instanceof V.DuckDBTimestampNanosecondsValue)
    return JSON.stringify(floorDiv(v.nanos, 1000n).toString());
  if (v instanceof V.DuckDBTimestampMillisecondsValue) return JSON.stringify((v.millis * 1000n).toString());
  if (v instanceof V.DuckDBTimestampSecondsValue) return JSON.stringify((v.seconds * 1000000n).toString());
  if (v instanceof V.DuckDBIntervalValue) {
    const b = new Uint8Array(12);
    b.set(u32le(v.months), 0);
    b.set(u32le(v.days), 4);
    b.set(u32le(Number(v.micros / 1000n)), 8);
    return JSON.stringify(hex(b));
  }
  return JSON.stringify('unsupported:' + String(v));
}

const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await instance.connect();

async function writeFiles(dir) {
  const src = `SELECT
    i::INTEGER AS id,
    CASE WHEN i % 7 = 0 THEN NULL ELSE (i % 256 - 128)::TINYINT END AS i8,
    CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 37 % 65536)::USMALLINT END AS u16,
    (i * 2654435761 % 4294967296)::UINTEGER AS u32,
    CASE WHEN i % 3 = 0 THEN NULL ELSE ((i::HUGEINT * 6364136223846793005) % 18446744073709551616 - 9223372036854775808)::BIGINT END AS i64,
    ((i::HUGEINT * 6364136223846793005) % 18446744073709551616)::UBIGINT AS u64,
    CASE WHEN i % 11 = 0 THEN NULL ELSE (i / 7.0)::FLOAT END AS f32,
    CASE WHEN i % 13 = 0 THEN 'nan'::DOUBLE WHEN i % 17 = 0 THEN NULL ELSE i * 1.0e-3 - 1.5 END AS f64,
    ((i * 31 % 9999 - 5000) / 100.0)::DECIMAL(4,2) AS d4,
    ((i * 1234567 - 99999) / 7.0)::DECIMAL(18,3) AS d18,
    ((i::HUGEINT * 17014118346046923173168730371588) % 99999999999999999999999999999999999 - 2)::DECIMAL(38,2) AS d38,
    DATE '2000-01-01' + (i * 37 % 20000 - 10000)::INTEGER AS dt,
    TIME '00:00:00' + INTERVAL (i * 1234567 % 86400000000) MICROSECONDS AS tm,
    TIMESTAMP '1990-01-01' + INTERVAL (i * 987654321 % 1000000000000) MICROSECONDS AS ts,
    (TIMESTAMP '1990-01-01' + INTERVAL (i * 987654 % 1000000000000) MICROSECONDS)::TIMESTAMP_NS AS tsn,
    (TIMESTAMP '1990-01-01' + INTERVAL (i * 987654 % 1000000000) SECONDS)::TIMESTAMP_MS AS tsm,
    (TIMESTAMPTZ '2020-01-01 00:00:00+00' + INTERVAL (i * 3 % 100000) SECONDS) AS tstz,
    CASE WHEN i % 4 = 0 THEN NULL ELSE 'v' || (i % 50) END AS sdict,
    'unique_' || i || repeat('z', i % 9) AS splain,
    CASE WHEN i % 6 = 0 THEN NULL ELSE encode('b' || i) END AS bl,
    CASE WHEN i % 9 = 0 THEN NULL ELSE i % 3 = 0 END AS b,
    CASE WHEN i % 10 = 0 THEN NULL ELSE ('00000000-0000-0000-0000-' || lpad(i::VARCHAR, 12, '0'))::UUID END AS u,
    CASE WHEN i % 8 = 0 THEN NULL WHEN i % 8 = 1 THEN [] ELSE [i, NULL, i * 2][1:(i % 4)] END AS li,
    CASE WHEN i % 5 = 0 THEN NULL ELSE [['a' || i, NULL], [], NULL, ['c']][1:(i % 5)] END AS lli,
    CASE WHEN i % 7 = 0 THEN NULL ELSE {'a': CASE WHEN i % 3 = 0 THEN NULL ELSE i END,
         'b': CASE WHEN i % 4 = 0 THEN NULL ELSE [{'c': 'x' || i}, NULL, {'c': NULL}][1:(i % 4)] END} END AS st,
    CASE WHEN i % 6 = 0 THEN NULL ELSE MAP(['k' || i, 'j'], [i, CASE WHEN i % 2 = 0 THEN NULL ELSE -i END]) END AS mp
  FROM range(0, 5000) t(i)`;
  for (const [name, opts] of [
    ['v1_snappy', 'COMPRESSION snappy'],
    ['v2_zstd', 'COMPRESSION zstd, PARQUET_VERSION V2'],
    ['v1_gzip_rg', 'COMPRESSION gzip, ROW_GROUP_SIZE 2048'],
    ['v2_none', 'COMPRESSION uncompressed, PARQUET_VERSION V2, ROW_GROUP_SIZE 1024'],
  ])
    await con.run(`COPY (${src}) TO '${dir}/duckdb_${name}.parquet' (FORMAT parquet, ${opts})`);
}

if (process.argv[2] === '--write') {
  await writeFiles(process.argv[3]);
  process.exit(0);
}

for (const file of process.argv.slice(2)) {
  process.stdout.write('# ' + file + '\n');
  try {
    const reader = await con.runAndReadAll(
      "SELECT * FROM read_parquet('" + file.replace(/'/g, "''") + "')");
    const types = reader.columnTypes();
    const lines = [];
    for (const row of reader.getRows())
      lines.push('[' + row.map((v, i) => canon(v, types[i])).join(',') + ']');
    if (lines.length) process.stdout.write(lines.join('\n') + '\n');
  } catch (e) {
    process.stdout.write('# error: ' + String(e.message || e).split('\n')[0] + '\n');
  }
}
