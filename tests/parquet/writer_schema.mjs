// The schema of files written by `basalt parquet rewrite`, as DuckDB sees it
// (tests/cli/parquet_rewrite.sh):
//
//   node tests/parquet/writer_schema.mjs fieldids OUT
//     writes, with DuckDB's own writer, a small table of nested and flat
//     types with a field id on every element DuckDB can give one to;
//   node tests/parquet/writer_schema.mjs check LIST
//     LIST has one line per rewritten file, tab-separated:
//       IN  OUT  ARROW  REF
//     IN the file rewritten, OUT basalt's output, ARROW the `arrow schema:`
//     part of `basalt parquet schema IN` (the Arrow schema the rewrite read
//     and wrote), REF a file DuckDB wrote with the same schema, or "-".
//     Prints one "FAIL: ..." line per difference, one "KNOWN BUG (...)"
//     line per difference a listed writer bug explains, and a last line
//       checked F files: T column types, E elements, R reference elements, I field ids
//     and exits 1 when anything fails.
//
// What is checked for each file:
//  1. DuckDB's column types (DESCRIBE) are the same for OUT as for IN, but
//     for the mappings in TYPE_MAPPINGS below.
//  2. parquet_schema(OUT), element by element, is what the Parquet format
//     (LogicalTypes.md, parquet.thrift) prescribes for the Arrow type
//     written: expectedLeaf() and expectedTree() state that table.
//  3. Field ids: every element's field_id in OUT equals IN's where both
//     schemas have the same shape; otherwise every leaf's does.
//  4. With REF: parquet_schema(OUT) equals parquet_schema(REF), DuckDB's
//     own writer, element by element, but for the differences in
//     compareWithDuckDB(), each one a place where the two writers make
//     different choices the format allows or where DuckDB's writer departs
//     from the format.
// Writer bugs these checks found are in KNOWN_WRITER_BUGS: reported on
// every run, and failing once they no longer occur.
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const [mode, arg] = process.argv.slice(2);
if (!mode || !arg || (mode !== 'fieldids' && mode !== 'check')) {
  console.error('usage: node writer_schema.mjs fieldids OUT | check LIST');
  process.exit(2);
}
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();

if (mode === 'fieldids') {
  // Every column nullable (DuckDB writes nothing else); map keys required.
  // The repeated `list` / `key_value` groups get no id: DuckDB's FIELD_IDS
  // cannot name them, and the Arrow fields basalt writes from have no field
  // for them either.
  const h = (k) => `hash(i * 31 + ${k})`;
  const nul = (k, e) => `CASE WHEN ${h(k)} % 7 = 0 THEN NULL ELSE ${e} END`;
  const cols = [
    `i::INTEGER AS id`,
    `${nul(1, `'v' || (${h(2)} % 100)::VARCHAR`)} AS s`,
    `${nul(3, `((${h(4)} % 100000000)::DECIMAL(18,0) / 100)::DECIMAL(9,2)`)} AS dec9`,
    `${nul(5, `make_timestamp((${h(6)} % 4000000000000000)::BIGINT)::TIMESTAMP_NS`)} AS tns`,
    `${nul(7, `make_timestamp((${h(8)} % 4000000000000000)::BIGINT)::TIMESTAMP_MS`)} AS tms`,
    `${nul(9, `make_timestamp((${h(10)} % 4000000000000000)::BIGINT)::TIMESTAMPTZ`)} AS tz`,
    `${nul(11, `${h(23)} % 2 = 0`)} AS flag`,
    `${nul(12, `(lpad(to_hex(${h(13)}), 16, '0') || lpad(to_hex(${h(14)}), 16, '0'))::UUID`)} AS u`,
    `${nul(15, `[${h(16)} % 100, NULL, ${h(17)} % 7]::INTEGER[]`)} AS l`,
    `${nul(18, `[['a', NULL], [], NULL, ['b' || i::VARCHAR]]::VARCHAR[][]`)} AS ll`,
    `${nul(19, `[{'a': i::INTEGER, 'b': ['x', NULL]}, NULL]::STRUCT(a INTEGER, b VARCHAR[])[]`)} AS ls`,
    `${nul(20, `MAP {'k' || (i % 5)::VARCHAR: i::INTEGER, 'z': NULL}`)} AS m`,
    `${nul(21, `MAP {i::INTEGER: [1.5, NULL]::DOUBLE[]}`)} AS mm`,
    `${nul(22, `{'x': i::BIGINT, 'y': {'z': DATE '2000-01-01' + i::INTEGER, 'w': MAP {'p': 'q'}}}`)} AS st`,
  ];
  const ids = `{id: 1, s: 2, dec9: 3, tns: 4, tms: 5, tz: 6, flag: 7, u: 8,
    l: {__duckdb_field_id: 9, element: 10},
    ll: {__duckdb_field_id: 11, element: {__duckdb_field_id: 12, element: 13}},
    ls: {__duckdb_field_id: 14, element: {__duckdb_field_id: 15, a: 16, b: {__duckdb_field_id: 17, element: 18}}},
    m: {__duckdb_field_id: 19, key: 20, value: 21},
    mm: {__duckdb_field_id: 22, key: 23, value: {__duckdb_field_id: 24, element: 25}},
    st: {__duckdb_field_id: 26, x: 27, y: {__duckdb_field_id: 28, z: 29, w: {__duckdb_field_id: 30, key: 31, value: 32}}}}`;
  await conn.run(`COPY (SELECT ${cols.join(',\n    ')} FROM range(200) t(i) ORDER BY i)
    TO ${q(arg)} (FORMAT PARQUET, FIELD_IDS ${ids})`);
  process.exit(0);
}

// ---- the Arrow schema as `basalt parquet schema` prints it ----------------
// Each line `  name: type[ not null]`; a type is an identifier with optional
// (params) or [params] and, for list/map/struct, <child, child>.
function parseArrow(text) {
  const fields = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('  ')) continue;
    const p = { s: line.slice(2), i: 0 };
    fields.push(parseField(p));
    if (p.i !== p.s.length) throw new Error(`cannot parse Arrow field: ${line}`);
  }
  return fields;
}
function parseField(p) {
  const colon = p.s.indexOf(': ', p.i);
  if (colon < 0) throw new Error(`no ': ' in ${p.s}`);
  const name = p.s.slice(p.i, colon);
  p.i = colon + 2;
  const type = parseType(p);
  let nullable = true;
  if (p.s.startsWith(' not null', p.i)) {
    nullable = false;
    p.i += 9;
  }
  return { name, type, nullable };
}
function parseType(p) {
  const m = /^[a-z_0-9]+/.exec(p.s.slice(p.i));
  if (!m) throw new Error(`no type at ${p.s.slice(p.i)}`);
  const t = { id: m[0], params: [], children: [] };
  p.i += m[0].length;
  for (const [open, close] of [['(', ')'], ['[', ']']]) {
    if (p.s[p.i] !== open) continue;
    const end = p.s.indexOf(close, p.i);
    t.params = p.s.slice(p.i + 1, end).split(', ');
    p.i = end + 1;
  }
  if (t.id === 'extension') {
    // extension<NAME, STORAGE>: compared as its storage type (a UUID leaf is
    // known from the input's logical type, see expectedLeaf)
    const comma = p.s.indexOf(', ', p.i);
    const ext = p.s.slice(p.i + 1, comma);
    p.i = comma + 2;
    const storage = parseType(p);
    if (p.s[p.i] !== '>') throw new Error(`bad extension type in ${p.s}`);
    p.i++;
    storage.extension = ext;
    return storage;
  }
  if (t.id === 'dictionary') {
    // dictionary<values=TYPE, indices=INT[, ordered]>: written as its values
    p.i += '<values='.length;
    const v = parseType(p);
    p.i = p.s.indexOf('>', p.i) + 1;
    return v;
  }
  if (p.s[p.i] === '<') {
    p.i++;
    for (;;) {
      t.children.push(parseField(p));
      if (p.s[p.i] === '>') break;
      if (!p.s.startsWith(', ', p.i)) throw new Error(`bad child list in ${p.s}`);
      p.i += 2;
    }
    p.i++;
  }
  return t;
}

// ---- the format's table: Arrow type -> Parquet schema element -------------
// One element: { name, rep, type, len, children, conv, logical, scale, prec }
// with logical in the normal form of normLogical() below.
const el = (name, rep, o = {}) => ({
  name, rep, type: null, len: null, children: null, conv: null, logical: null,
  scale: null, prec: null, ...o,
});
// LogicalTypes.md, DECIMAL: a fixed_len_byte_array(n) holds at most
// floor(log10(2^(8n-1) - 1)) digits; the fewest bytes that hold p digits.
function decimalBytes(p) {
  let n = 1;
  while (10n ** BigInt(p) > 2n ** BigInt(8 * n - 1) - 1n) n++;
  return n;
}
const INTS = {
  int8: [8, true], uint8: [8, false], int16: [16, true], uint16: [16, false],
  int32: [32, true], uint32: [32, false], int64: [64, true], uint64: [64, false],
};
const UNITS = { s: 'MILLIS', ms: 'MILLIS', us: 'MICROS', ns: 'NANOS' };
// `uuid`: the input's leaf at this position is a UUID (the reader carries
// that as the arrow.uuid extension around its fixed_size_binary[16]).
function expectedLeaf(name, rep, t, uuid) {
  const o = {};
  if (INTS[t.id]) {
    // INT(bitWidth, isSigned) annotates int32 for widths up to 32 and int64
    // for 64; the legacy INT_n / UINT_n are written beside it.
    const [bits, signed] = INTS[t.id];
    o.type = bits <= 32 ? 'INT32' : 'INT64';
    o.conv = `${signed ? '' : 'U'}INT_${bits}`;
    o.logical = `INTEGER(${bits},${signed})`;
  } else if (t.id === 'bool') {
    o.type = 'BOOLEAN';
  } else if (t.id === 'half_float') {
    o.type = 'FIXED_LEN_BYTE_ARRAY'; o.len = 2; o.logical = 'FLOAT16';
  } else if (t.id === 'float') {
    o.type = 'FLOAT';
  } else if (t.id === 'double') {
    o.type = 'DOUBLE';
  } else if (t.id.startsWith('decimal')) {
    // The format lets precision <= 9 be int32 and <= 18 be int64, or any
    // width be fixed_len_byte_array; decimal32/64 are written as the
    // integers of their width, decimal128/256 as fixed_len_byte_array of
    // the fewest bytes (what Arrow C++ writes unless told to store
    // decimals as integers).
    const [p, s] = t.params.map(Number);
    o.conv = 'DECIMAL'; o.logical = `DECIMAL(${p},${s})`; o.prec = p; o.scale = s;
    if (t.id === 'decimal32') o.type = 'INT32';
    else if (t.id === 'decimal64') o.type = 'INT64';
    else { o.type = 'FIXED_LEN_BYTE_ARRAY'; o.len = decimalBytes(p); }
  } else if (t.id === 'date32' || t.id === 'date64') {
    o.type = 'INT32'; o.conv = 'DATE'; o.logical = 'DATE';
  } else if (t.id === 'time32' || t.id === 'time64') {
    // An Arrow time has no zone: a local time, isAdjustedToUTC=false.
    // LogicalTypes.md, "Deprecated time ConvertedType", forward
    // compatibility: writers must annotate local times too with
    // TIME_MILLIS / TIME_MICROS; NANOS has no legacy annotation.
    const unit = UNITS[t.params[0]];
    o.type = t.id === 'time32' ? 'INT32' : 'INT64';
    o.logical = `TIME(false,${unit})`;
    if (unit !== 'NANOS') o.conv = `TIME_${unit}`;
  } else if (t.id === 'timestamp') {
    // With a zone the instant is UTC-adjusted; without, a local date-time.
    // Seconds are written as millis. LogicalTypes.md, "Deprecated timestamp
    // ConvertedType", forward compatibility: TIMESTAMP_MILLIS /
    // TIMESTAMP_MICROS for both UTC-adjusted and local timestamps, none
    // for NANOS.
    const unit = UNITS[t.params[0]];
    const utc = t.params.length > 1;
    o.type = 'INT64';
    o.logical = `TIMESTAMP(${utc},${unit})`;
    if (unit !== 'NANOS') o.conv = `TIMESTAMP_${unit}`;
  } else if (t.id === 'duration') {
    o.type = 'INT64';
  } else if (t.id === 'string' || t.id === 'large_string') {
    o.type = 'BYTE_ARRAY'; o.conv = 'UTF8'; o.logical = 'STRING';
  } else if (t.id === 'binary' || t.id === 'large_binary') {
    o.type = 'BYTE_ARRAY';
  } else if (t.id === 'fixed_size_binary') {
    o.type = 'FIXED_LEN_BYTE_ARRAY'; o.len = Number(t.params[0]);
    if (uuid && o.len === 16) o.logical = 'UUID';
  } else {
    throw new Error(`no expectation for Arrow type ${t.id}`);
  }
  return el(name, rep, o);
}
// Appends the elements of field `f` (named `name` in Parquet) in schema
// order. `leaves` yields, per leaf, whether the input's leaf was a UUID.
function expectedTree(out, name, f, leaves) {
  const rep = f.nullable ? 'OPTIONAL' : 'REQUIRED';
  const t = f.type;
  if (t.id === 'struct') {
    out.push(el(name, rep, { children: t.children.length }));
    for (const c of t.children) expectedTree(out, c.name, c, leaves);
  } else if (t.id === 'list' || t.id === 'large_list') {
    // LogicalTypes.md, Lists: a group annotated LIST holding one repeated
    // group named `list` holding one field named `element`.
    out.push(el(name, rep, { children: 1, conv: 'LIST', logical: 'LIST' }));
    out.push(el('list', 'REPEATED', { children: 1 }));
    expectedTree(out, 'element', t.children[0], leaves);
  } else if (t.id === 'map') {
    // LogicalTypes.md, Maps: a group annotated MAP holding one repeated
    // group `key_value` of a required `key` and a `value`.
    out.push(el(name, rep, { children: 1, conv: 'MAP', logical: 'MAP' }));
    out.push(el('key_value', 'REPEATED', { children: 2 }));
    expectedTree(out, 'key', { ...t.children[0], nullable: false }, leaves);
    expectedTree(out, 'value', t.children[1], leaves);
  } else {
    out.push(expectedLeaf(name, rep, t, leaves.next().value));
  }
}

// ---- DuckDB's parquet_schema() ----------------------------------------------
// DuckDB prints the thrift LogicalType; this gives it one normal form.
function normLogical(s) {
  if (s === null) return null;
  let m = /^IntType\(bitWidth=(\d+|[^]), isSigned=(\d)\)$/.exec(s);
  if (m) {
    // DuckDB 1.5 prints the int8 bit width as a character.
    const bits = /^\d+$/.test(m[1]) ? Number(m[1]) : m[1].charCodeAt(0);
    return `INTEGER(${bits},${m[2] === '1'})`;
  }
  if ((m = /^DecimalType\(scale=(\d+), precision=(\d+)\)$/.exec(s)))
    return `DECIMAL(${m[2]},${m[1]})`;
  if ((m = /^(Time|Timestamp)Type\(isAdjustedToUTC=(\d), unit=TimeUnit\((.*)\)\)$/.exec(s))) {
    const unit = /MILLIS=MilliSeconds/.test(m[3]) ? 'MILLIS'
      : /MICROS=MicroSeconds/.test(m[3]) ? 'MICROS'
        : /NANOS=NanoSeconds/.test(m[3]) ? 'NANOS' : `?${m[3]}`;
    return `${m[1].toUpperCase()}(${m[2] === '1'},${unit})`;
  }
  if ((m = /^(\w+)Type\(\)$/.exec(s))) return m[1].toUpperCase();
  return s;
}
async function parquetSchema(file) {
  const r = await conn.runAndReadAll(
    `SELECT name, repetition_type, type, type_length, num_children, converted_type,
            logical_type, scale, precision, field_id
     FROM parquet_schema(${q(file)})`);
  const num = (v) => (v === null ? null : Number(v));
  return r.getRows().map(([name, rep, type, len, children, conv, logical, scale, prec, id]) => ({
    name, rep, type, len: num(len), children: num(children), conv,
    logical: normLogical(logical), scale: num(scale), prec: num(prec), id: num(id),
  }));
}
async function describe(file) {
  const r = await conn.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${q(file)})`);
  return r.getRows().map((row) => [row[0], row[1]]);
}

// Documented mappings where DuckDB reads OUT's column as another type than
// IN's: [why, test(inType, outType, inLeaves under the column)].
const TYPE_MAPPINGS = [
  // INT96 is deprecated (parquet.thrift); basalt reads it as Arrow
  // timestamp[ns] and writes that as INT64 TIMESTAMP(NANOS), losing
  // nothing. DuckDB reads INT96 as TIMESTAMP (micros), INT64 nanos as
  // TIMESTAMP_NS.
  ['INT96 timestamps are written as INT64 TIMESTAMP(NANOS)',
    (a, b, leaves) => leaves.some((e) => e.type === 'INT96') &&
      b.replaceAll('TIMESTAMP_NS', 'TIMESTAMP') === a],
];

// Writer bugs found by these checks and not fixed yet: [what, test(field,
// got, want, wanted element)]. A difference one of them explains prints
// "KNOWN BUG" instead of failing; an entry nothing matches in a whole run
// fails, so each goes once the writer is fixed.
const KNOWN_WRITER_BUGS = [
  // [description, (field, got, want, w) => true for a difference it explains]
];
const bugsSeen = new Set();
function knownBug(field, got, want, w) {
  const bug = KNOWN_WRITER_BUGS.find(([, test]) => test(field, got, want, w));
  if (bug) bugsSeen.add(bug[0]);
  return bug?.[0];
}

// Top-level column -> its leaf elements, from a parquet_schema() list.
function leavesByColumn(schema) {
  const out = new Map();
  let i = 1;
  const walk = (top) => {
    const e = schema[i++];
    if (e.children) for (let k = 0; k < e.children; k++) walk(top);
    else out.get(top).push(e);
  };
  while (i < schema.length) {
    const name = schema[i].name;
    out.set(name, []);
    walk(name);
  }
  return out;
}

const fields = ['name', 'rep', 'type', 'len', 'children', 'conv', 'logical', 'scale', 'prec'];
const show = (e) => fields.map((k) => `${k}=${e[k]}`).join(' ');
const sameShape = (a, b) => a.length === b.length &&
  a.every((e, k) => k === 0 || (e.name === b[k].name && e.children === b[k].children));

// parquet_schema(OUT) against DuckDB's writer for the same schema. Returns
// the differences left once these, each intended, are set aside:
//  - the root: DuckDB names it duckdb_schema and marks it REQUIRED, where
//    parquet.thrift says the root has no repetition_type;
//  - DuckDB writes only the legacy converted_type for integers, strings,
//    enums, dates, lists and maps; basalt writes the LogicalType too, as
//    LogicalTypes.md requires ("Parquet writers must always write
//    LogicalType annotations where applicable, but must also write the
//    corresponding ConvertedType annotations"). Where REF has no logical
//    type it is taken to be the one its converted type stands for
//    (LogicalTypes.md, backward compatibility tables);
//  - decimals of precision <= 18: DuckDB writes INT32 / INT64, basalt a
//    fixed_len_byte_array of the fewest bytes (both allowed; the type and
//    its length are pinned by the format table above).
const LEGACY = {
  INT_8: 'INTEGER(8,true)', INT_16: 'INTEGER(16,true)', INT_32: 'INTEGER(32,true)',
  INT_64: 'INTEGER(64,true)', UINT_8: 'INTEGER(8,false)', UINT_16: 'INTEGER(16,false)',
  UINT_32: 'INTEGER(32,false)', UINT_64: 'INTEGER(64,false)', UTF8: 'STRING',
  ENUM: 'ENUM', DATE: 'DATE', LIST: 'LIST', MAP: 'MAP', JSON: 'JSON', BSON: 'BSON',
};
function compareWithDuckDB(label, out, ref) {
  const diffs = [];
  if (out.length !== ref.length) return [`${out.length} elements, DuckDB's writer ${ref.length}`];
  for (let k = 0; k < out.length; k++) {
    const o = { ...out[k] };
    const r = { ...ref[k] };
    if (k === 0) {
      o.name = r.name;
      if (r.rep === 'REQUIRED') r.rep = null;
    }
    if (r.logical === null && LEGACY[r.conv]) r.logical = LEGACY[r.conv];
    if (o.conv === 'DECIMAL' && (r.type === 'INT32' || r.type === 'INT64') &&
        o.type === 'FIXED_LEN_BYTE_ARRAY') {
      o.type = r.type; o.len = r.len;
    }
    for (const f of [...fields, 'id']) {
      if (o[f] === r[f]) continue;
      const msg = `element ${k} (${out[k].name}): ${f} is ${o[f]}, DuckDB's writer ${r[f]}`;
      const bug = knownBug(f, o[f], r[f], r);
      if (bug) known(`${label}: ${msg}`, bug);
      else diffs.push(msg);
    }
  }
  return diffs;
}

const counts = { files: 0, types: 0, elements: 0, ref: 0, ids: 0 };
let failed = 0;
const fail = (file, msg) => { failed++; console.log(`FAIL: ${file}: ${msg}`); };
const known = (msg, bug) => console.log(`KNOWN BUG (${bug}): ${msg}`);
for (const line of readFileSync(arg, 'utf8').split('\n')) {
  if (!line) continue;
  const [inFile, outFile, arrowFile, refFile] = line.split('\t');
  const label = inFile.replace(/.*\//, '');
  counts.files++;
  const inSchema = await parquetSchema(inFile);
  const outSchema = await parquetSchema(outFile);

  // 1. DuckDB's column types
  const inTypes = await describe(inFile);
  const outTypes = await describe(outFile);
  const inLeaves = leavesByColumn(inSchema);
  if (inTypes.length !== outTypes.length) fail(label, `${outTypes.length} columns, input ${inTypes.length}`);
  for (let k = 0; k < Math.min(inTypes.length, outTypes.length); k++) {
    const [n, a] = inTypes[k];
    const [n2, b] = outTypes[k];
    counts.types++;
    if (n !== n2) { fail(label, `column ${k} is ${n2}, input ${n}`); continue; }
    if (a === b) continue;
    if (TYPE_MAPPINGS.some(([, ok]) => ok(a, b, inLeaves.get(n) ?? []))) continue;
    fail(label, `column ${n}: DuckDB reads ${b}, input ${a}`);
  }

  // 2. the format's table for the Arrow type written
  let want;
  try {
    const arrow = parseArrow(readFileSync(arrowFile, 'utf8'));
    const uuids = inSchema.filter((e, k) => k > 0 && !e.children)
      .map((e) => e.logical === 'UUID').values();
    want = [el(null, null, { children: arrow.length })];
    for (const f of arrow) expectedTree(want, f.name, f, uuids);
  } catch (e) {
    fail(label, e.message);
    continue;
  }
  if (want.length !== outSchema.length) {
    fail(label, `${outSchema.length} schema elements, expected ${want.length}`);
  } else {
    for (let k = 0; k < want.length; k++) {
      const w = want[k];
      const o = k === 0 ? { ...outSchema[k], name: null } : outSchema[k];
      counts.elements++;
      const bad = fields.filter((f) => w[f] !== o[f]);
      const bugs = bad.map((f) => knownBug(f, o[f], w[f], w));
      if (bad.length && bugs.every(Boolean)) known(`${label}: element ${k} (${o.name}): ${show(o)}`, bugs[0]);
      else if (bad.length) fail(label, `element ${k}: ${show(o)}\n  expected ${show(w)}`);
    }
  }

  // 3. field ids, element by element where the shapes agree, else leaf by leaf
  const id = (e) => (e.id !== null && e.id >= 0 ? e.id : null);
  const pairs = sameShape(inSchema, outSchema)
    ? inSchema.map((e, k) => [e, outSchema[k]])
    : (() => {
      const a = inSchema.filter((e, k) => k > 0 && !e.children);
      const b = outSchema.filter((e, k) => k > 0 && !e.children);
      if (a.length !== b.length) { fail(label, `${b.length} leaves, input ${a.length}`); return []; }
      return a.map((e, k) => [e, b[k]]);
    })();
  for (const [a, b] of pairs) {
    if (id(a) !== null) counts.ids++;
    if (id(a) !== b.id) fail(label, `${b.name}: field_id ${b.id}, input ${id(a)}`);
  }

  // 4. DuckDB's own writer
  if (refFile && refFile !== '-') {
    const diffs = compareWithDuckDB(label, outSchema, await parquetSchema(refFile));
    counts.ref += outSchema.length;
    for (const d of diffs) fail(label, d);
  }
}
for (const [what] of KNOWN_WRITER_BUGS) {
  if (!bugsSeen.has(what)) fail('KNOWN_WRITER_BUGS', `"${what}" no longer seen: remove the entry`);
}
console.log(`checked ${counts.files} files: ${counts.types} column types, ${counts.elements} elements, ` +
  `${counts.ref} reference elements, ${counts.ids} field ids`);
process.exit(failed ? 1 : 0);
