// Differential tests of basalt's CSV reader and writer against DuckDB.
//
//   node csv_differential.mjs BASALT SEED COUNT TMPDIR
//
// Reader: COUNT seeded random CSV files (1-8 columns of int64, double, bool,
// date, timestamp, timestamptz and string; nulls; quoted fields holding the
// delimiter, quotes, LF and CRLF; random delimiter, line ending and final
// newline; sizes from empty to ~2,500 rows) are read by DuckDB
// (read_csv(..., header = true, allow_quoted_nulls = false): quoted "" is
// the empty string, as in basalt) and by `basalt csv cat --format json` at 1,
// 2 and 4 threads with small chunks (so chunk boundaries fall inside quoted
// fields). The sniffed types and every value must agree, in a canonical text.
//
// Writer: COUNT / 4 seeded random tables are written by DuckDB as Parquet,
// converted by `basalt csv convert T.parquet T.csv` (basalt's CSV writer), and
// read back by DuckDB with the table's column types: the rows must be the
// same as the Parquet file's (EXCEPT ALL both ways).
//
// Prints one line per failure and a summary; exits 1 on any failure.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const [basalt, seedArg, countArg, tmp] = process.argv.slice(2);
if (!tmp) {
  console.error('usage: node csv_differential.mjs BASALT SEED COUNT TMPDIR');
  process.exit(2);
}
const seed = Number(seedArg);
const count = Number(countArg);

function mulberry32(a) {
  return () => {
    a |= 0; a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
let rnd = mulberry32(seed);
const pick = (a) => a[Math.floor(rnd() * a.length)];
const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const pad = (n, w) => String(n).padStart(w, '0');

const TYPES = ['int', 'double', 'bool', 'date', 'ts', 'tstz', 'string'];
const DUCK = { int: 'BIGINT', double: 'DOUBLE', bool: 'BOOLEAN', date: 'DATE', ts: 'TIMESTAMP',
  tstz: 'TIMESTAMP WITH TIME ZONE', string: 'VARCHAR' };
const OURS = { int: 'int64', double: 'double', bool: 'bool', date: 'date', ts: 'timestamp',
  tstz: 'timestamptz', string: 'string' };

function dateText() {
  const y = int(1901, 2099), m = int(1, 12), d = int(1, 28);
  return `${y}-${pad(m, 2)}-${pad(d, 2)}`;
}
function clockText() {
  let s = `${pad(int(0, 23), 2)}:${pad(int(0, 59), 2)}:${pad(int(0, 59), 2)}`;
  if (rnd() < 0.5) s += '.' + String(int(0, 999999)).padStart(6, '0').slice(0, int(1, 6));
  return s;
}
const PIECES = ['a', 'bc', 'Zed', ',', ';', '|', '\t', '"', '""', '\n', '\r\n', ' ', 'é', '日本', '0', '42',
  'x y', "'", 'NULL'];
function value(type, first) {
  switch (type) {
    case 'int': return String(rnd() < 0.5 ? int(-1000, 1000) : Math.floor((rnd() - 0.5) * 2 ** 53));
    case 'double': {
      let v;
      if (first || rnd() < 0.6) {
        v = ((rnd() - 0.5) * 10 ** int(0, 8)).toFixed(int(1, 6));
        if (Number(v) === 0) v = '0.5';
      } else if (rnd() < 0.5) {
        v = `${int(1, 999)}e${int(-30, 30)}`;
      } else {
        v = String(int(-99999, 99999));
      }
      return v;
    }
    case 'bool': return pick(['true', 'false', 'TRUE', 'False']);
    case 'date': return dateText();
    case 'ts': return `${dateText()}${pick([' ', 'T'])}${clockText()}`;
    case 'tstz': return `${dateText()}${pick([' ', 'T'])}${clockText()}${pick(['Z', '+00:00', '+05:30', '-08:00', '+01'])}`;
    default: {
      let s = first ? 'x' : '';
      const n = int(0, 5);
      for (let i = 0; i < n; i++) s += pick(PIECES);
      return s;
    }
  }
}
function field(text, isString, delim) {
  const needs = /[,;|\t"\r\n]/.test(text) || /^ | $/.test(text) || (isString && text === '');
  if (needs || rnd() < 0.1) return '"' + text.replaceAll('"', '""') + '"';
  return text;
}

function makeCsv(file) {
  const ncols = int(1, 8);
  const types = Array.from({ length: ncols }, () => pick(TYPES));
  const rows = pick([0, 1, 3, 40, 400, 2500]);
  const nullRate = pick([0, 0.1, 0.3]);
  const delim = ncols === 1 ? ',' : pick([',', ';', '\t', '|']);
  const eol = pick(['\n', '\r\n']);
  const lines = [types.map((_, i) => `c${i}`).join(delim)];
  const truth = [];
  for (let r = 0; r < rows; r++) {
    const cells = [], vals = [];
    for (let c = 0; c < ncols; c++) {
      if (r > 0 && rnd() < nullRate) { cells.push(''); vals.push(null); continue; }
      const t = value(types[c], r === 0);
      cells.push(field(t, types[c] === 'string', delim));
      vals.push(t);
    }
    lines.push(cells.join(delim));
    truth.push(vals);
  }
  let text = lines.join(eol);
  if (rows === 0 || rnd() < 0.7) text += eol;
  fs.writeFileSync(file, text);
  return { types, rows, delim, eol };
}

const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await inst.connect();
await con.run(`SET TimeZone = 'UTC'`);
const q = async (sql) => (await con.runAndReadAll(sql));

function canon(type, v) {
  if (v === null || v === undefined) return null;
  if (type === 'double') return String(Number(v));
  return String(v);
}

async function duckRows(file) {
  const src = `read_csv('${file}', header = true, allow_quoted_nulls = false)`;
  const desc = (await q(`DESCRIBE SELECT * FROM ${src}`)).getRowObjectsJS();
  const types = desc.map((d) => d.column_type);
  const exprs = desc.map((d) => {
    const c = `"${d.column_name}"`;
    switch (d.column_type) {
      case 'DATE': return `strftime(${c}, '%Y-%m-%d')`;
      case 'TIMESTAMP': return `strftime(${c}, '%Y-%m-%dT%H:%M:%S.%f')`;
      case 'TIMESTAMP WITH TIME ZONE': return `strftime(${c}, '%Y-%m-%dT%H:%M:%S.%f') || 'Z'`;
      case 'DOUBLE': return c;
      default: return `${c}::VARCHAR`;
    }
  });
  const rows = exprs.length ? (await q(`SELECT ${exprs.join(', ')} FROM ${src}`)).getRowsJS() : [];
  return { names: desc.map((d) => d.column_name), types, rows };
}

function run(args) {
  const r = spawnSync(basalt, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`basalt ${args.join(' ')}: ${r.stderr.trim()}`);
  return r.stdout;
}

let failures = 0, checks = 0;
const fail = (what) => { failures++; console.log(`FAIL: seed ${seed}: ${what}`); };

for (let i = 0; i < count; i++) {
  const file = path.join(tmp, `r${i}.csv`);
  const shape = makeCsv(file);
  const what = `r${i}.csv (${shape.types.join(',')}; ${shape.rows} rows; delimiter ${JSON.stringify(shape.delim)}; eol ${JSON.stringify(shape.eol)})`;
  checks++;
  let duck;
  try { duck = await duckRows(file); } catch (e) { fail(`${what}: DuckDB: ${e.message.split('\n')[0]}`); continue; }
  let schema;
  try { schema = JSON.parse(run(['csv', 'schema', file, '--format', 'json'])); } catch (e) { fail(`${what}: ${e.message}`); continue; }
  const ourTypes = schema.columns.map((c) => c.type);
  const duckTypes = duck.types.map((t) => Object.keys(DUCK).find((k) => DUCK[k] === t) || t).map((k) => OURS[k] || k);
  if (JSON.stringify(ourTypes) !== JSON.stringify(duckTypes) ||
      JSON.stringify(schema.columns.map((c) => c.name)) !== JSON.stringify(duck.names)) {
    fail(`${what}: columns ${JSON.stringify(schema.columns)} but DuckDB ${JSON.stringify(duck.names)} ${JSON.stringify(duck.types)}`);
    continue;
  }
  const want = duck.rows.map((row) => row.map((v, c) => canon(ourTypes[c], v)));
  for (const [threads, chunk] of [[1, 2097152], [2, 61], [4, 257]]) {
    checks++;
    let out;
    try { out = run(['csv', 'cat', file, '--format', 'json', '--threads', String(threads), '--chunk-size', String(chunk), '--batch-size', '100']); } catch (e) { fail(`${what}: ${e.message}`); continue; }
    const got = out.split('\n').filter((l) => l).map((l) => {
      const o = JSON.parse(l);
      return schema.columns.map((c, k) => canon(ourTypes[k], o[c.name]));
    });
    if (got.length !== want.length) { fail(`${what} threads ${threads} chunk ${chunk}: ${got.length} rows, DuckDB ${want.length}`); continue; }
    for (let r = 0; r < got.length; r++) {
      if (JSON.stringify(got[r]) !== JSON.stringify(want[r])) {
        fail(`${what} threads ${threads} chunk ${chunk}: row ${r}: ${JSON.stringify(got[r])} but DuckDB ${JSON.stringify(want[r])}`);
        break;
      }
    }
  }
}

// ---- writer: DuckDB table -> Parquet -> basalt CSV -> DuckDB
const WTYPES = ['BIGINT', 'INTEGER', 'DOUBLE', 'BOOLEAN', 'DATE', 'TIMESTAMP', 'TIMESTAMPTZ', 'DECIMAL(18,3)', 'VARCHAR'];
function sqlValue(type) {
  switch (type) {
    case 'BIGINT': return String(rnd() < 0.2 ? pick(['9223372036854775807', '-9223372036854775808']) : int(-1e9, 1e9));
    case 'INTEGER': return String(int(-2147483648, 2147483647));
    case 'DOUBLE': return rnd() < 0.1 ? pick(["'nan'::DOUBLE", "'inf'::DOUBLE", "'-inf'::DOUBLE", '1e300', '5e-324', '0.1', '3.0'])
      : `${((rnd() - 0.5) * 10 ** int(-5, 12))}::DOUBLE`;
    case 'BOOLEAN': return pick(['true', 'false']);
    case 'DATE': return `DATE '${dateText()}'`;
    case 'TIMESTAMP': return `TIMESTAMP '${dateText()} ${clockText()}'`;
    case 'TIMESTAMPTZ': return `TIMESTAMPTZ '${dateText()} ${clockText()}+00'`;
    case 'DECIMAL(18,3)': return `${(int(-1e9, 1e9) / 1000).toFixed(3)}::DECIMAL(18,3)`;
    default: {
      let s = '';
      const n = int(0, 5);
      for (let k = 0; k < n; k++) s += pick(PIECES);
      return `'${s.replaceAll("'", "''")}'`;
    }
  }
}
const wcount = Math.max(1, Math.floor(count / 4));
for (let i = 0; i < wcount; i++) {
  const ncols = int(1, 8);
  const types = Array.from({ length: ncols }, () => pick(WTYPES));
  const rows = pick([0, 1, 10, 300]);
  const values = [];
  for (let r = 0; r < rows; r++)
    values.push('(' + types.map((t) => (rnd() < 0.15 ? `NULL::${t}` : `(${sqlValue(t)})::${t}`)).join(', ') + ')');
  const cols = types.map((t, c) => `c${c} ${t}`).join(', ');
  const pq = path.join(tmp, `w${i}.parquet`), csv = path.join(tmp, `w${i}.csv`);
  const what = `w${i} (${types.join(',')}; ${rows} rows)`;
  checks++;
  try {
    await con.run(`CREATE OR REPLACE TABLE w (${cols})`);
    if (rows) await con.run(`INSERT INTO w VALUES ${values.join(', ')}`);
    await con.run(`COPY w TO '${pq}' (FORMAT parquet)`);
    run(['csv', 'convert', pq, csv]);
    const spec = '{' + types.map((t, c) => `'c${c}': '${t}'`).join(', ') + '}';
    const back = `read_csv('${csv}', header = true, columns = ${spec}, allow_quoted_nulls = false, auto_detect = false, delim = ',', quote = '"', escape = '"')`;
    const [d] = (await q(`SELECT (SELECT count(*) FROM (SELECT * FROM w EXCEPT ALL SELECT * FROM ${back})) AS a,
                                 (SELECT count(*) FROM (SELECT * FROM ${back} EXCEPT ALL SELECT * FROM w)) AS b,
                                 (SELECT count(*) FROM ${back}) AS n`)).getRowObjectsJS();
    if (Number(d.a) || Number(d.b) || Number(d.n) !== rows)
      fail(`${what}: DuckDB reads ${d.n} rows back; ${d.a} of the table's rows missing, ${d.b} extra`);
  } catch (e) {
    fail(`${what}: ${e.message.split('\n')[0]}`);
  }
}
console.log(`${checks - failures} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
