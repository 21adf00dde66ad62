// Writes seeded random Parquet tables with Polars (nodejs-polars), for
// differential tests of basalt's reader and as input to its writer:
//
//   node tests/parquet/random_tables_polars.mjs SEED COUNT DIR
//
// Table i goes to DIR/t<i>.parquet and is a function of (SEED, i) alone, so
// one failing table can be rebuilt on its own. Each table has 1-8 columns of
// random types: every scalar type Polars writes to Parquet (signed and
// unsigned integers of every width, Float32/Float64 with NaN, infinities and
// -0, Boolean, String, Binary, Date, Time, Datetime in ms/us/ns with and
// without a time zone, Duration in ms/us/ns, Decimal(p, s), Categorical, Null)
// and List, Array (fixed size) and Struct nested up to depth 3, with nulls at
// every level. Columns draw their values from a small pool or from the whole
// range, so Polars writes some dictionary-encoded and some plain (it picks by
// cardinality; nodejs-polars has no switch for it). The writer settings are
// random too: codec (uncompressed, snappy, gzip, lz4, zstd, brotli) and level,
// row group size, data page size limit and statistics on or off.
//
// Not generated: Enum and Int128 (nodejs-polars has no such dtype), Object
// (not writable).
//
// The values reach Polars as an Arrow IPC file built here from raw buffers
// (exact 64-bit integers, nanosecond times, 128-bit decimals), then Polars
// casts the Categorical columns and writes with LazyFrame.sinkParquet. One
// line per table goes to stdout: the file name, the writer options and the
// column types.
import pl from 'nodejs-polars';
import * as A from 'apache-arrow';

const [seedArg, countArg, dir] = process.argv.slice(2);
if (!seedArg || !countArg || !dir) {
  console.error('usage: node random_tables_polars.mjs SEED COUNT DIR');
  process.exit(2);
}

// xorshift64* over BigInt: the same numbers on every platform.
function rng(seed) {
  let s = (BigInt(seed) ^ 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
  if (s === 0n) s = 1n;
  const next = () => {
    s ^= s >> 12n; s ^= (s << 25n) & 0xffffffffffffffffn; s ^= s >> 27n;
    return (s * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn;
  };
  const below = (n) => Number(next() % BigInt(n));
  const big = (lo, hi) => lo + (((next() << 64n) | next()) % (hi - lo + 1n));
  const pick = (a) => a[below(a.length)];
  return { next, below, big, pick };
}

// ------------------------------------------------------------------ leaves
// A leaf: { name, arrow: A.DataType, store: how its raw values are laid out,
// gen(r) -> raw value (number, bigint, boolean, string, Uint8Array) }.

function intLeaf(name, arrow, lo, hi, store) {
  return { name, arrow, store, gen: (r) => {
    const k = r.below(10);
    const v = k === 0 ? lo : k === 1 ? hi : k === 2 ? 0n : r.big(lo, hi);
    return store === 'big64' || store === 'ubig64' ? v : Number(v);
  } };
}

// Edge values: decimal ties at the shortest length (2104682.25 as a float32
// is 2104682.2 or 2104682.3 at 8 digits: printf and polars_json.mjs round
// half to even), the ends of the ranges and subnormals, and the switches of
// Number::toString between fixed and exponent notation (1e21, 1e-7).
const floatEdges = [2104682.25, -2104682.25, 1e21, 1e-7, 123456789012345680000, 9.999999999999999e20,
  1.5e-7, 0.1, 1 / 3, 2 ** 24 + 2, 2 ** 53 + 2, Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE,
  1.401298464324817e-45, 1.1754942106924411e-38, 3.4028234663852886e38, 65504, 5e-324, 2.2250738585072014e-308];
function floatGen(single) {
  return (r) => {
    const k = r.below(14);
    if (k === 0) return NaN;
    if (k === 1) return Infinity;
    if (k === 2) return -Infinity;
    if (k === 3) return -0;
    if (k === 4) return 0;
    if (k === 5) {
      const x = r.pick(floatEdges);
      return single ? Math.fround(x) : x;
    }
    const m = Number(r.next() >> 11n) / 2 ** 53;
    const x = (m - 0.5) * 10 ** (r.below(24) - 10);
    return single ? Math.fround(x) : x;
  };
}

const alphabet = ['a', 'b', 'z', ' ', "'", '"', '\\', 'é', 'ß', '€', '日', '😀', '\t', '\n', '\u0001'];
function textGen(r) {
  const n = r.pick([0, 1, 3, 10, 40]);
  let s = '';
  for (let i = 0; i < n; i++) s += r.pick(alphabet);
  return s;
}
function bytesGen(r) {
  const n = r.pick([0, 1, 5, 20, 60]);
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = r.below(256);
  return b;
}

const DAY_MIN = -719162n; // 0001-01-01
const DAY_MAX = 2932896n; // 9999-12-31
const NS_DAY = 86400n * 10n ** 9n;
const unitTicks = { ms: 1000n, us: 1000000n, ns: 1000000000n };
const arrowUnit = { ms: A.TimeUnit.MILLISECOND, us: A.TimeUnit.MICROSECOND, ns: A.TimeUnit.NANOSECOND };
const zones = [null, 'UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata'];

function datetimeLeaf(unit, tz) {
  const per = unitTicks[unit] * 86400n;
  // nanoseconds since the epoch fit in an int64 from 1677 to 2262 only
  const lo = unit === 'ns' ? -106751n * per : DAY_MIN * per;
  const hi = unit === 'ns' ? 106750n * per : (DAY_MAX + 1n) * per - 1n;
  return { name: `Datetime(${unit}${tz ? `, ${tz}` : ''})`, arrow: new A.Timestamp(arrowUnit[unit], tz),
    store: 'big64', gen: (r) => (r.below(12) === 0 ? r.pick([lo, hi, 0n, -1n]) : r.big(lo, hi)) };
}

function durationLeaf(unit) {
  const lim = 2n ** 63n - 1n;
  return { name: `Duration(${unit})`, arrow: new A.Duration(arrowUnit[unit]), store: 'big64',
    gen: (r) => (r.below(8) === 0 ? r.pick([-lim, lim, 0n]) : r.big(-(10n ** 15n), 10n ** 15n)) };
}

function decimalLeaf(p, s) {
  const lim = 10n ** BigInt(p) - 1n;
  return { name: `Decimal(${p},${s})`, arrow: new A.Decimal(s, p, 128), store: 'dec128',
    gen: (r) => (r.below(8) === 0 ? r.pick([lim, -lim, 0n]) : r.big(-lim, lim)) };
}

function leaves(r) {
  return [
    intLeaf('Int8', new A.Int8(), -128n, 127n, 'i8'),
    intLeaf('Int16', new A.Int16(), -32768n, 32767n, 'i16'),
    intLeaf('Int32', new A.Int32(), -(2n ** 31n), 2n ** 31n - 1n, 'i32'),
    intLeaf('Int64', new A.Int64(), -(2n ** 63n), 2n ** 63n - 1n, 'big64'),
    intLeaf('UInt8', new A.Uint8(), 0n, 255n, 'u8'),
    intLeaf('UInt16', new A.Uint16(), 0n, 65535n, 'u16'),
    intLeaf('UInt32', new A.Uint32(), 0n, 2n ** 32n - 1n, 'u32'),
    intLeaf('UInt64', new A.Uint64(), 0n, 2n ** 64n - 1n, 'ubig64'),
    { name: 'Float32', arrow: new A.Float32(), store: 'f32', gen: floatGen(true) },
    { name: 'Float64', arrow: new A.Float64(), store: 'f64', gen: floatGen(false) },
    { name: 'Boolean', arrow: new A.Bool(), store: 'bool', gen: (rr) => rr.below(2) === 1 },
    { name: 'String', arrow: new A.Utf8(), store: 'utf8', gen: textGen },
    { name: 'Categorical', arrow: new A.Utf8(), store: 'utf8', categorical: true, gen: textGen },
    { name: 'Binary', arrow: new A.Binary(), store: 'binary', gen: bytesGen },
    { name: 'Date', arrow: new A.DateDay(), store: 'i32',
      gen: (rr) => Number(rr.below(10) === 0 ? rr.pick([DAY_MIN, DAY_MAX, 0n]) : rr.big(DAY_MIN, DAY_MAX)) },
    { name: 'Time', arrow: new A.TimeNanosecond(), store: 'big64',
      gen: (rr) => (rr.below(10) === 0 ? rr.pick([0n, NS_DAY - 1n]) : rr.big(0n, NS_DAY - 1n)) },
    datetimeLeaf(r.pick(['ms', 'us', 'ns']), r.pick(zones)),
    durationLeaf(r.pick(['ms', 'us', 'ns'])),
    (() => { const p = 1 + r.below(38); return decimalLeaf(p, r.below(p + 1)); })(),
    { name: 'Null', arrow: new A.Null(), store: 'null', gen: () => null },
  ];
}

// ------------------------------------------------------------------ types
// A type: a leaf, { kind: 'list', item }, { kind: 'array', item, size } or
// { kind: 'struct', fields: [{ name, type }] }; `pool` (an array of values)
// when the column repeats a few values.

let fieldCounter = 0;
function randomType(r, depth, inNested) {
  const k = depth < 3 ? r.below(10) : 0;
  if (k <= 5) {
    // Categorical only at the top (the cast is per column).
    const choices = leaves(r).filter((l) => !(inNested && l.categorical));
    return { kind: 'leaf', ...r.pick(choices) };
  }
  if (k <= 7) return { kind: 'list', item: randomType(r, depth + 1, true) };
  if (k === 8) return { kind: 'array', size: 1 + r.below(3), item: randomType(r, depth + 1, true) };
  const n = 1 + r.below(3);
  const fields = [];
  for (let i = 0; i < n; i++) fields.push({ name: `f${fieldCounter++}`, type: randomType(r, depth + 1, true) });
  return { kind: 'struct', fields };
}

function typeName(t) {
  if (t.kind === 'leaf') return t.name;
  if (t.kind === 'list') return `List(${typeName(t.item)})`;
  if (t.kind === 'array') return `Array(${typeName(t.item)}, ${t.size})`;
  return `Struct(${t.fields.map((f) => `${f.name}: ${typeName(f.type)}`).join(', ')})`;
}

function arrowType(t) {
  if (t.kind === 'leaf') return t.arrow;
  if (t.kind === 'list') return new A.List(new A.Field('item', arrowType(t.item), true));
  if (t.kind === 'array') return new A.FixedSizeList(t.size, new A.Field('item', arrowType(t.item), true));
  return new A.Struct(t.fields.map((f) => new A.Field(f.name, arrowType(f.type), true)));
}

// One value of type t, null one time in six (values of an Array column's
// items may be null, the Array itself too).
function value(r, t) {
  if (r.below(6) === 0) return null;
  if (t.pool) return r.pick(t.pool);
  if (t.kind === 'leaf') return t.gen(r);
  if (t.kind === 'list') {
    const n = r.pick([0, 1, 2, 5]);
    return Array.from({ length: n }, () => value(r, t.item));
  }
  if (t.kind === 'array') return Array.from({ length: t.size }, () => value(r, t.item));
  const o = {};
  for (const f of t.fields) o[f.name] = value(r, f.type);
  return o;
}

// Gives some leaves (at any depth) a pool of a few values.
function addPools(r, t) {
  if (t.kind === 'leaf') {
    if (r.below(2) === 0) {
      const n = 1 + r.below(6);
      t.pool = Array.from({ length: n }, () => t.gen(r));
    }
  } else if (t.kind === 'struct') {
    t.fields.forEach((f) => addPools(r, f.type));
  } else {
    addPools(r, t.item);
  }
}

// ------------------------------------------------------------------ Arrow data

function bitmap(values) {
  const b = new Uint8Array(Math.ceil(values.length / 8) || 1);
  let nulls = 0;
  values.forEach((v, i) => {
    if (v === null) nulls++;
    else b[i >> 3] |= 1 << (i & 7);
  });
  return { nullBitmap: b, nullCount: nulls };
}

const encoder = new TextEncoder();
const typed = { i8: Int8Array, i16: Int16Array, i32: Int32Array, u8: Uint8Array, u16: Uint16Array,
  u32: Uint32Array, f32: Float32Array, f64: Float64Array, big64: BigInt64Array, ubig64: BigUint64Array };

function build(t, values) {
  const type = arrowType(t);
  const length = values.length;
  const { nullBitmap, nullCount } = bitmap(values);
  if (t.kind === 'list') {
    const offsets = new Int32Array(length + 1);
    const items = [];
    values.forEach((v, i) => {
      if (v) items.push(...v);
      offsets[i + 1] = items.length;
    });
    return A.makeData({ type, length, nullCount, nullBitmap, valueOffsets: offsets, child: build(t.item, items) });
  }
  if (t.kind === 'array') {
    const items = [];
    for (const v of values) items.push(...(v ?? Array(t.size).fill(null)));
    return A.makeData({ type, length, nullCount, nullBitmap, child: build(t.item, items) });
  }
  if (t.kind === 'struct') {
    const children = t.fields.map((f) => build(f.type, values.map((v) => (v ? v[f.name] : null))));
    return A.makeData({ type, length, nullCount, nullBitmap, children });
  }
  if (t.store === 'null') return A.makeData({ type, length, nullCount: length });
  if (t.store === 'bool') {
    const data = new Uint8Array(Math.ceil(length / 8) || 1);
    values.forEach((v, i) => { if (v) data[i >> 3] |= 1 << (i & 7); });
    return A.makeData({ type, length, nullCount, nullBitmap, data });
  }
  if (t.store === 'utf8' || t.store === 'binary') {
    const parts = values.map((v) => (v === null ? new Uint8Array(0) : t.store === 'utf8' ? encoder.encode(v) : v));
    const offsets = new Int32Array(length + 1);
    parts.forEach((p, i) => { offsets[i + 1] = offsets[i] + p.length; });
    const data = new Uint8Array(offsets[length]);
    parts.forEach((p, i) => data.set(p, offsets[i]));
    return A.makeData({ type, length, nullCount, nullBitmap, valueOffsets: offsets, data });
  }
  if (t.store === 'dec128') {
    const data = new Uint32Array(4 * length);
    values.forEach((v, i) => {
      let x = BigInt.asUintN(128, v ?? 0n);
      for (let w = 0; w < 4; w++, x >>= 32n) data[4 * i + w] = Number(x & 0xffffffffn);
    });
    return A.makeData({ type, length, nullCount, nullBitmap, data });
  }
  const T = typed[t.store];
  const data = new T(length);
  const zero = T === BigInt64Array || T === BigUint64Array ? 0n : 0;
  values.forEach((v, i) => { data[i] = v ?? zero; });
  return A.makeData({ type, length, nullCount, nullBitmap, data });
}

// ------------------------------------------------------------------ tables

const count = Number(countArg);
for (let t = 0; t < count; t++) {
  const r = rng(BigInt(seedArg) * 1000003n + BigInt(t));
  fieldCounter = 0;
  const ncols = 1 + r.below(8);
  const cols = [];
  for (let c = 0; c < ncols; c++) {
    const type = randomType(r, 1, false);
    if (r.below(3) === 0) addPools(r, type);
    cols.push(type);
  }
  const nrows = r.pick([0, 1, 7, 50, 200, 400, 3000]);
  const vectors = {};
  cols.forEach((type, c) => {
    const values = Array.from({ length: nrows }, () => value(r, type));
    vectors[`c${c}`] = A.makeVector(build(type, values));
  });
  const ipc = A.tableToIPC(new A.Table(vectors), 'file');
  let df = pl.readIPC(Buffer.from(ipc));
  const casts = cols.map((type, c) => (type.categorical
    ? pl.col(`c${c}`).cast(pl.Categorical) : pl.col(`c${c}`)));
  df = df.select(...casts);

  const codec = r.pick(['uncompressed', 'snappy', 'gzip', 'lz4', 'zstd', 'brotli']);
  const options = { compression: codec };
  const levels = { gzip: [0, 9], zstd: [1, 22], brotli: [0, 11] };
  if (levels[codec] && r.below(2)) {
    const [lo, hi] = levels[codec];
    options.compressionLevel = lo + r.below(hi - lo + 1);
  }
  const rg = r.pick([null, 1, 7, 100, 1000]);
  if (rg) options.rowGroupSize = rg;
  const page = r.pick([null, 64, 1024, 8192, 1 << 20]);
  if (page) options.dataPagesizeLimit = page;
  options.statistics = r.pick([true, false, 'full']);
  const file = `${dir}/t${t}.parquet`;
  const desc = Object.entries(options).map(([k, v]) => `${k}=${v}`).join(' ');
  await df.lazy().sinkParquet(file, options).collect();
  console.log(`t${t}.parquet rows=${nrows} ${desc} ${cols.map(typeName).join(' | ')}`);
}
