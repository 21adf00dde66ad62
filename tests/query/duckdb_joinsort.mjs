// DuckDB's side of the join and sort differentials
// (tests/unit/query/joinsort_differential_test.c).
//
//   node duckdb_joinsort.mjs tables SEED NP NB DIR
//     writes DIR/p.parquet (NP rows) and DIR/b.parquet (NB rows), seeded, with
//     the same columns: k1 BIGINT (small range), k2 VARCHAR (shared long
//     prefixes, ''), k3 DOUBLE (NaN, -0.0, 0.0, inf), k4 BIGINT (wide range),
//     k5 DATE, k6 INTEGER, v DOUBLE, s VARCHAR, rid BIGINT (unique); 10% NULLs
//     in every column but rid.
//   node duckdb_joinsort.mjs run DIR QUERIES.txt OUT.txt
//     runs each line of QUERIES.txt over views p and b; OUT.txt gets `#k OK`
//     and one `c1|c2|...` line per row (NULL for nulls), or `#k ERR msg`.
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

if (mode === 'tables') {
  const [seed, np, nb, dir] = rest;
  const r = rng(Number(seed));
  const pick = a => a[Math.floor(r() * a.length)];
  const int = (lo, hi) => lo + Math.floor(r() * (hi - lo + 1));
  const strs = ['', 'a', 'b', 'abc', 'shared-prefix-one', 'shared-prefix-two', 'shared-prefix-', 'shared-p',
    'zz', 'Zz', 'longer string value 1', 'longer string value 2', 'x', 'y'];
  const cols = {
    k1: ['BIGINT', () => String(int(-20, 60))],
    k2: ['VARCHAR', () => `'${r() < 0.2 ? 'a value longer than thirty-two bytes, ' : ''}${pick(strs)}${r() < 0.3 ? '' : int(0, 9)}'`],
    k3: ['DOUBLE', () => (r() < 0.4 ? pick(["'nan'", "'-0.0'", '0.0', "'inf'", "'-inf'", '1e300']) : String(int(-80, 80) / 4))],
    k4: ['BIGINT', () => String(BigInt(int(-6, 6)) * 1000000000000n + BigInt(int(0, 3)))],
    k5: ['DATE', () => `DATE '${2020 + int(0, 3)}-0${int(1, 9)}-1${int(0, 9)}'`],
    k6: ['INTEGER', () => String(int(-1000, 1000))],
    v: ['DOUBLE', () => String((r() - 0.5) * 100)],
    s: ['VARCHAR', () => `'${pick(strs)}${int(0, 99)}'`],
  };
  const names = Object.keys(cols);
  for (const [t, n] of [['p', Number(np)], ['b', Number(nb)]]) {
    const lines = [];
    for (let i = 0; i < n; i++)
      lines.push('(' + names.map(c => (r() < 0.1 ? 'NULL' : `CAST(${cols[c][1]()} AS ${cols[c][0]})`)).concat([String(i)]).join(', ') + ')');
    await conn.run(`CREATE TABLE ${t} (${names.map(c => `${c} ${cols[c][0]}`).join(', ')}, rid BIGINT)`);
    for (let i = 0; i < lines.length; i += 1000)
      await conn.run(`INSERT INTO ${t} VALUES ${lines.slice(i, i + 1000).join(',\n')}`);
    await conn.run(`COPY ${t} TO '${dir}/${t}.parquet' (FORMAT parquet)`);
  }
  process.exit(0);
}

if (mode === 'run') {
  const [dir, queries, out] = rest;
  await conn.run(`CREATE VIEW p AS SELECT * FROM read_parquet('${dir}/p.parquet')`);
  await conn.run(`CREATE VIEW b AS SELECT * FROM read_parquet('${dir}/b.parquet')`);
  const lines = fs.readFileSync(queries, 'utf8').split('\n').filter(l => l.length);
  const fd = fs.openSync(out, 'w');
  for (let k = 0; k < lines.length; k++) {
    const res = [];
    try {
      const rows = (await conn.runAndReadAll(lines[k])).getRows();
      res.push(`#${k} OK`);
      for (const row of rows) res.push(row.map(v => (v === null ? 'NULL' : String(v))).join('|'));
    } catch (e) {
      res.push(`#${k} ERR ${String(e.message ?? e).split('\n')[0]}`);
    }
    fs.writeSync(fd, res.join('\n') + '\n');
  }
  fs.closeSync(fd);
  process.exit(0);
}
console.error('usage: duckdb_joinsort.mjs tables SEED NP NB DIR | run DIR QUERIES OUT');
process.exit(2);
