// Writes seeded random Parquet tables with DuckDB, for differential tests of
// basalt's reader:
//
//   node tests/parquet/random_tables.mjs SEED COUNT DIR
//
// Table i goes to DIR/t<i>.parquet and is a function of (SEED, i) alone, so
// one failing table can be rebuilt on its own. Each table has 1-8 columns of
// random types (every scalar type DuckDB writes to Parquet, lists, structs
// and maps nested up to depth 3) with nulls, 0-400 rows (some repeated to
// 9600 rows to span row groups), and random writer settings: codec, row
// group size, Parquet version (V2 writes v2 data pages) and the dictionary
// size limit (0 turns dictionary encoding off). One line per table goes to
// stdout: the file name, its COPY options and its column types.
import { DuckDBInstance } from '@duckdb/node-api';

const [seedArg, countArg, dir] = process.argv.slice(2);
if (!seedArg || !countArg || !dir) {
  console.error('usage: node random_tables.mjs SEED COUNT DIR');
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

const pad = (n, w) => String(n).padStart(w, '0');
const q = (s) => `'${s.replaceAll("'", "''")}'`;

// Scalar types: SQL type and a generator of one SQL literal of that type.
function intType(name, lo, hi) {
  return { sql: name, gen: (r) => {
    const k = r.below(10);
    const v = k === 0 ? lo : k === 1 ? hi : k === 2 ? 0n : r.big(lo, hi);
    return `'${v}'::${name}`;
  } };
}
function floatLit(r, single) {
  const k = r.below(12);
  const t = single ? 'FLOAT' : 'DOUBLE';
  if (k === 0) return `'nan'::${t}`;
  if (k === 1) return `'inf'::${t}`;
  if (k === 2) return `'-inf'::${t}`;
  if (k === 3) return `'-0.0'::${t}`;
  const m = Number(r.next() >> 11n) / 2 ** 53;
  let x = (m - 0.5) * 10 ** (r.below(20) - 8);
  if (single) {
    x = Math.fround(x);
    // Excluded: floats whose shortest text is a decimal tie (2104682.25 at 8
    // digits). duckdb_json.mjs rounds such a tie up (toPrecision picks the
    // larger) and basalt to even; both read back to the same float, so it is
    // a presentation choice of the two printers, not a value difference.
    for (let p = 1; p <= 9; p++) {
      if (Math.fround(Number(x.toPrecision(p))) !== x) continue;
      const longer = x.toPrecision(p + 1);
      if (Number(longer) === x && /5(e|$)/.test(longer)) return floatLit(r, single);
      break;
    }
  }
  return `'${x}'::${t}`;
}
function dateParts(r, loYear, hiYear) {
  const y = loYear + r.below(hiYear - loYear + 1);
  return `${pad(y, 4)}-${pad(1 + r.below(12), 2)}-${pad(1 + r.below(28), 2)}`;
}
function timeParts(r, digits) {
  const f = digits ? `.${pad(r.below(10 ** Math.min(digits, 6)), Math.min(digits, 6))}${digits > 6 ? pad(r.below(1000), 3) : ''}` : '';
  return `${pad(r.below(24), 2)}:${pad(r.below(60), 2)}:${pad(r.below(60), 2)}${f}`;
}
const scalars = [
  intType('TINYINT', -128n, 127n),
  intType('SMALLINT', -32768n, 32767n),
  intType('INTEGER', -2147483648n, 2147483647n),
  intType('BIGINT', -(2n ** 63n), 2n ** 63n - 1n),
  intType('UTINYINT', 0n, 255n),
  intType('USMALLINT', 0n, 65535n),
  intType('UINTEGER', 0n, 4294967295n),
  intType('UBIGINT', 0n, 2n ** 64n - 1n),
  // DuckDB writes HUGEINT as a DOUBLE column; the comparison is of what is in the file.
  intType('HUGEINT', -(2n ** 127n), 2n ** 127n - 1n),
  { sql: 'FLOAT', gen: (r) => floatLit(r, true) },
  { sql: 'DOUBLE', gen: (r) => floatLit(r, false) },
  { sql: 'DECIMAL', decimal: true },
  { sql: 'DATE', gen: (r) => `DATE '${dateParts(r, 1, 9999)}'` },
  { sql: 'TIME', gen: (r) => `TIME '${timeParts(r, 6)}'` },
  { sql: 'TIMESTAMP_S', gen: (r) => `TIMESTAMP_S '${dateParts(r, 1, 9999)} ${timeParts(r, 0)}'` },
  { sql: 'TIMESTAMP_MS', unitDependent: true, gen: (r) => `TIMESTAMP_MS '${dateParts(r, 1, 9999)} ${timeParts(r, 3)}'` },
  { sql: 'TIMESTAMP', gen: (r) => `TIMESTAMP '${dateParts(r, 1, 9999)} ${timeParts(r, 6)}'` },
  { sql: 'TIMESTAMP_NS', gen: (r) => `TIMESTAMP_NS '${dateParts(r, 1700, 2200)} ${timeParts(r, 9)}'` },
  { sql: 'TIMESTAMPTZ', unitDependent: true, gen: (r) => `TIMESTAMPTZ '${dateParts(r, 1, 9999)} ${timeParts(r, 6)}+00'` },
  { sql: 'VARCHAR', gen: (r) => {
    const alphabet = ['a', 'b', 'z', ' ', "'", '"', '\\', 'é', 'ß', '€', '日', '😀', '\t', '\n'];
    const n = r.pick([0, 1, 3, 10, 40]);
    let s = '';
    for (let i = 0; i < n; i++) s += r.pick(alphabet);
    return `${q(s)}::VARCHAR`;
  } },
  { sql: 'BLOB', gen: (r) => {
    const n = r.pick([0, 1, 5, 20]);
    let h = '';
    for (let i = 0; i < n; i++) h += pad(r.below(256).toString(16), 2);
    return `from_hex('${h}')`;
  } },
  { sql: 'TIMETZ', noKey: true, gen: (r) => `TIMETZ '${timeParts(r, 6)}${r.pick(['+00', '+02', '-05:30'])}'` },
  // DuckDB writes UHUGEINT as a DOUBLE column, BIGNUM and BIT as binary it reads back as itself.
  intType('UHUGEINT', 0n, 2n ** 128n - 1n),
  { sql: 'BIGNUM', noKey: true, gen: (r) => `'${r.big(-(10n ** 40n), 10n ** 40n)}'::BIGNUM` },
  { sql: 'BIT', noKey: true, gen: (r) => `'${[...Array(1 + r.below(20))].map(() => r.below(2)).join('')}'::BIT` },
  { sql: "ENUM('red', 'green', 'blue')", noKey: true, gen: (r) => `'${r.pick(['red', 'green', 'blue'])}'::ENUM('red', 'green', 'blue')` },
  // Not generated: INTERVAL (duckdb_json.mjs has no rendering for it).
  { sql: 'BOOLEAN', gen: (r) => (r.below(2) ? 'true' : 'false') },
  { sql: 'UUID', gen: (r) => {
    let h = '';
    for (let i = 0; i < 32; i++) h += r.below(16).toString(16);
    return `'${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}'::UUID`;
  } },
];

// Excluded under lists and maps: types whose text depends on the Parquet
// schema (TIMESTAMP_MS is read back by DuckDB as microseconds but printed at
// the file's millisecond unit; TIMESTAMPTZ gets its "Z" from isAdjustedToUTC).
// duckdb_json.mjs finds the unit of a leaf by its field name, and the items
// of a list or map are looked up under the list's or map's own name, which
// has none, so there it prints DuckDB's unit and no "Z". For the same reason
// every struct field of a table gets its own name (fieldName below).
const repeatedScalars = scalars.filter((s) => !s.unitDependent);
let fieldCounter = 0;
const fieldName = () => `f${fieldCounter++}`;

// A random type: { sql, gen(r) -> SQL literal }.
function randomType(r, depth, repeated = false, inStruct = false) {
  const k = depth < 3 ? r.below(10) : 0;
  if (k <= 6) {
    const s = r.pick(repeated ? repeatedScalars : scalars);
    if (!s.decimal) return s;
    const p = 4 + r.below(35);
    const sc = r.below(p + 1);
    const sql = `DECIMAL(${p},${sc})`;
    return { sql, gen: (rr) => {
      const lim = 10n ** BigInt(p) - 1n;
      const v = rr.below(8) === 0 ? (rr.below(2) ? lim : -lim) : rr.big(-lim, lim);
      const neg = v < 0n;
      let digits = (neg ? -v : v).toString().padStart(sc + 1, '0');
      if (sc) digits = `${digits.slice(0, digits.length - sc)}.${digits.slice(digits.length - sc)}`;
      return `'${neg ? '-' : ''}${digits}'::${sql}`;
    } };
  }
  if (k <= 7 && r.below(3) === 0) {
    // Fixed-size ARRAY: DuckDB writes a null ARRAY of size N (or one under a
    // null struct) as N level entries, the first a null and the others
    // continuing it while defining nothing; basalt reads that as one null.
    const e = randomType(r, depth + 1, true, inStruct);
    const n = 1 + r.below(4);
    const sql = `${e.sql}[${n}]`;
    return { sql, gen: (rr) => {
      const items = [];
      for (let i = 0; i < n; i++) items.push(value(rr, e));
      return `[${items.join(', ')}]::${sql}`;
    } };
  }
  if (k <= 7) {
    const e = randomType(r, depth + 1, true, inStruct);
    const sql = `${e.sql}[]`;
    return { sql, gen: (rr) => {
      const n = rr.pick([0, 1, 2, 5]);
      const items = [];
      for (let i = 0; i < n; i++) items.push(value(rr, e));
      return `[${items.join(', ')}]::${sql}`;
    } };
  }
  if (k <= 8) {
    const n = 1 + r.below(3);
    const fields = [];
    for (let i = 0; i < n; i++) fields.push({ name: fieldName(), type: randomType(r, depth + 1, repeated, true) });
    const sql = `STRUCT(${fields.map((f) => `${f.name} ${f.type.sql}`).join(', ')})`;
    return { sql, gen: (rr) => `{${fields.map((f) => `'${f.name}': ${value(rr, f.type)}`).join(', ')}}::${sql}` };
  }
  // Map keys: non-null scalars, distinct per map.
  const kt = r.pick(repeatedScalars.filter((s) => !s.decimal && !s.noKey && !/FLOAT|DOUBLE|HUGEINT|BOOLEAN/.test(s.sql)));
  const vt = randomType(r, depth + 1, true, inStruct);
  const sql = `MAP(${kt.sql}, ${vt.sql})`;
  return { sql, gen: (rr) => {
    const n = rr.pick([0, 1, 3]);
    const seen = new Set();
    const entries = [];
    for (let i = 0; i < n; i++) {
      const key = kt.gen(rr);
      if (seen.has(key)) continue;
      seen.add(key);
      entries.push(`${key}: ${value(rr, vt)}`);
    }
    return `MAP {${entries.join(', ')}}::${sql}`;
  } };
}

function value(r, t) {
  return !t.notNull && r.below(6) === 0 ? `NULL::${t.sql}` : t.gen(r);
}

const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await instance.connect();
await conn.run("SET TimeZone = 'UTC'");

const count = Number(countArg);
for (let t = 0; t < count; t++) {
  const r = rng(BigInt(seedArg) * 1000003n + BigInt(t));
  fieldCounter = 0;
  const ncols = 1 + r.below(8);
  const cols = [];
  for (let c = 0; c < ncols; c++) cols.push(randomType(r, 1));
  const nrows = r.pick([0, 1, 7, 50, 200, 400]);
  const rows = [];
  for (let i = 0; i < nrows; i++) rows.push(`(${cols.map((c) => value(r, c)).join(', ')})`);
  // DuckDB cuts row groups at multiples of 2048 rows whatever ROW_GROUP_SIZE
  // says, so some tables repeat their rows to span several row groups.
  const repeat = nrows >= 200 && r.below(2) ? 24 : 1;
  const select = nrows
    ? `SELECT v.* FROM (VALUES ${rows.join(', ')}) v(${cols.map((_, i) => `c${i}`).join(', ')}), range(${repeat})`
    : `SELECT ${cols.map((c, i) => `NULL::${c.sql} AS c${i}`).join(', ')} LIMIT 0`;
  const codec = r.pick(['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4_raw', 'brotli']);
  const options = [
    'FORMAT parquet',
    `COMPRESSION ${codec}`,
    `ROW_GROUP_SIZE ${r.pick([1, 100, 2048, 122880])}`,
    `PARQUET_VERSION ${r.pick(['V1', 'V2'])}`,
    // 0 keeps every column off the dictionary; the default lets DuckDB choose.
    r.below(2) ? 'DICTIONARY_SIZE_LIMIT 0' : 'DICTIONARY_SIZE_LIMIT 1000000',
  ];
  const file = `${dir}/t${t}.parquet`;
  await conn.run(`COPY (${select}) TO ${q(file)} (${options.join(', ')})`);
  console.log(`t${t}.parquet ${options.slice(1).join(' ')} ${cols.map((c) => c.sql).join(' | ')}`);
}
