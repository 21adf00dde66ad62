// DuckDB's side of the expression differential (tests/unit/query/differential_test.c).
//
//   node duckdb_expr.mjs table SEED ROWS OUT.parquet
//     writes a random table (seeded): every column type the generator uses,
//     10-30% NULLs per column, edge values (INT64_MIN/MAX, NaN, -0.0, '', ...)
//   node duckdb_expr.mjs eval FILE.parquet EXPRS.txt OUT.txt
//     EXPRS.txt has one `D<TAB>sql` (a float result, printed as a number) or
//     `S<TAB>sql` (anything else, printed as CAST(... AS VARCHAR)) per line;
//     OUT.txt gets `#k OK` and one line per row (NULL for nulls) or `#k ERR msg`.
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';

const [mode, ...rest] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await inst.connect();

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6D2B79F5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

if (mode === 'table') {
  const [seed, rows, out] = rest;
  const r = rng(Number(seed));
  const pick = a => a[Math.floor(r() * a.length)];
  const int = (lo, hi) => lo + Math.floor(r() * (hi - lo + 1));
  const cols = {
    b: ['BOOLEAN', () => pick(['true', 'false'])],
    i8: ['TINYINT', () => String(pick([int(-128, 127), int(-10, 10), 127, -128, 0]))],
    i16: ['SMALLINT', () => String(pick([int(-32768, 32767), int(-100, 100), 0]))],
    i32: ['INTEGER', () => String(pick([int(-2147483648, 2147483647), int(-1000, 1000), 2147483647, -2147483648, 0, 1, -1]))],
    i64: ['BIGINT', () => pick(['9223372036854775807', '-9223372036854775808', String(int(-1e6, 1e6)), String(int(-100, 100)), '0', '1', '-1', String(int(-1e9, 1e9) * 1000003)])],
    f32: ['FLOAT', () => pick([String((r() - 0.5) * 1000), "'nan'", "'-0.0'", '0', '1.5', String(int(-100, 100))])],
    f64: ['DOUBLE', () => pick([String((r() - 0.5) * 1e6), String((r() - 0.5) * 10), "'nan'", "'-0.0'", "'inf'", '0', '1e300', '-2.5', String(int(-100, 100))])],
    d9: ['DECIMAL(9,2)', () => pick([((r() - 0.5) * 2e6).toFixed(2), ((r() - 0.5) * 200).toFixed(2), '0.00', '9999999.99', '-9999999.99'])],
    d18: ['DECIMAL(18,4)', () => pick([((r() - 0.5) * 2e10).toFixed(4), ((r() - 0.5) * 20).toFixed(4), '0'])],
    dt: ['DATE', () => `DATE '${new Date(Date.UTC(int(1900, 2100), int(0, 11), int(1, 28))).toISOString().slice(0, 10)}'`],
    ts: ['TIMESTAMP', () => `TIMESTAMP '${new Date(Date.UTC(int(1950, 2050), int(0, 11), int(1, 28), int(0, 23), int(0, 59), int(0, 59))).toISOString().slice(0, 19).replace('T', ' ')}.${String(int(0, 999999)).padStart(6, '0')}'`],
    s: ['VARCHAR', () => `'${pick(['', 'abc', 'ABC', 'a_c', 'a%c', 'hello world', ' padded ', 'xyz', 'Ab', 'b', '12', '-7', '3.25', '2024-01-02', 'aaa', 'banana'])}'`],
  };
  const names = Object.keys(cols);
  const nullp = names.map(() => 0.1 + r() * 0.2);
  const lines = [];
  for (let i = 0; i < Number(rows); i++) {
    lines.push('(' + names.map((n, k) => (r() < nullp[k] ? 'NULL' : `CAST(${cols[n][1]()} AS ${cols[n][0]})`)).join(', ') + ')');
  }
  await conn.run(`CREATE TABLE t (${names.map(n => `${n} ${cols[n][0]}`).join(', ')})`);
  await conn.run(`INSERT INTO t VALUES ${lines.join(',\n')}`);
  await conn.run(`COPY t TO '${out}' (FORMAT parquet)`);
  process.exit(0);
}

if (mode === 'eval') {
  const [file, exprs, out] = rest;
  await conn.run(`CREATE VIEW f AS SELECT * FROM read_parquet('${file}')`);
  const lines = fs.readFileSync(exprs, 'utf8').split('\n').filter(l => l.length);
  const res = [];
  for (let k = 0; k < lines.length; k++) {
    const tab = lines[k].indexOf('\t');
    const kind = lines[k].slice(0, tab), sql = lines[k].slice(tab + 1);
    const q = kind === 'D' ? `SELECT (${sql})::DOUBLE FROM f` : `SELECT CAST((${sql}) AS VARCHAR) FROM f`;
    try {
      const rows = (await conn.runAndReadAll(q)).getRows();
      res.push(`#${k} OK`);
      for (const [v] of rows) {
        if (v === null) res.push('NULL');
        else if (typeof v === 'number') res.push(Number.isNaN(v) ? 'nan' : v === Infinity ? 'inf' : v === -Infinity ? '-inf' : String(v));
        else res.push(String(v));
      }
    } catch (e) {
      res.push(`#${k} ERR ${String(e.message ?? e).split('\n')[0]}`);
    }
  }
  fs.writeFileSync(out, res.join('\n') + '\n');
  process.exit(0);
}
console.error('usage: duckdb_expr.mjs table SEED ROWS OUT | eval FILE EXPRS OUT');
process.exit(2);
