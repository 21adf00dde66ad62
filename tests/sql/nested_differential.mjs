// Struct columns in SQL against DuckDB: a Parquet file DuckDB writes with
// struct columns NULL at every level (the struct, a struct inside it, a
// leaf), several row groups, and a list beside them; basalt reads the
// structs as their leaves (`s.a`, `s.b.c`: src/query/plan/struct_flatten.c)
// and each query below must give DuckDB's rows, at 1 and 2 threads alike,
// and again over an Iceberg table holding the file.
// The list passes through filters, sorts, windows and joins. Also: a
// pushed filter on a leaf prunes row groups by its statistics, `SELECT *`
// names the leaves by their paths, the list is a value in expressions (len,
// l[i], list_contains), and the list as a key or an aggregate's argument is
// an error that names it.
//
// With TESTDATA_DIR, an Arrow IPC file's struct column too (its NULL
// structs over children holding values).
//
//   node nested_differential.mjs BASALT_BINARY WORK_DIR [TESTDATA_DIR]
import { DuckDBInstance } from '@duckdb/node-api';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { canon, compareRows } from './result_compare.mjs';

const [bin, dir, testdata] = process.argv.slice(2);
if (!bin || !dir) {
  console.error('usage: node nested_differential.mjs BASALT_BINARY WORK_DIR [TESTDATA_DIR]');
  process.exit(2);
}
fs.mkdirSync(dir, { recursive: true });
const F = path.join(dir, 'nested.parquet'), G = path.join(dir, 'other.parquet');
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const conn = await inst.connect();
// 3000 rows in row groups of 500, ordered by id: s NULL on every 7th row,
// s.b NULL on every 5th, s.a NULL on every 3rd; s.b.e two levels down.
await conn.run(`COPY (SELECT range AS id,
    CASE WHEN range % 7 = 0 THEN NULL ELSE {
      'a': CASE WHEN range % 3 = 0 THEN NULL ELSE range % 100 END,
      'b': CASE WHEN range % 5 = 0 THEN NULL ELSE {'c': 'x' || (range % 4), 'd': range * 0.5,
                                                    'e': {'f': range % 11}} END,
      'n': 'name' || range} END AS s,
    {'k': range % 13, 'w': CASE WHEN range % 2 = 0 THEN NULL ELSE range END} AS t2,
    [range, range + 1] AS l
  FROM range(3000)) TO '${F}' (FORMAT parquet, ROW_GROUP_SIZE 500)`);
await conn.run(`COPY (SELECT range AS k, 'k' || range AS label FROM range(13)) TO '${G}' (FORMAT parquet)`);

// "-- ordered": the rows come in the query's order.
const queries = [
  'SELECT id, s.a, s.b.c, s.b.d, s.n, t2.k, t2.w FROM $F',
  'SELECT id, s.b.e.f FROM $F WHERE id < 100',
  'SELECT id, f.s.a, f.t2.w FROM $F f WHERE f.s.a > 90',
  "SELECT id FROM $F WHERE s.b.c = 'x1' AND s.a IS NULL",
  'SELECT id, s.a FROM $F WHERE s.a IS NULL AND id < 40',
  'SELECT s.b.c, count(*), sum(s.a), avg(s.b.d), min(s.n), count(s.b.e.f) FROM $F GROUP BY s.b.c',
  'SELECT t2.k, count(t2.w), max(s.b.d) FROM $F GROUP BY 1',
  'SELECT id, s.b.d FROM $F ORDER BY s.b.d DESC NULLS LAST, id LIMIT 7 -- ordered',
  'SELECT id, s.a FROM $F ORDER BY s.a NULLS FIRST, id LIMIT 12 -- ordered',
  'SELECT g.label, count(*), sum(s.b.d) FROM $F JOIN $G g ON t2.k = g.k WHERE s.a < 50 GROUP BY g.label',
  'SELECT id, s.a + t2.k, upper(s.b.c), coalesce(s.a, -1) FROM $F WHERE id % 17 = 0',
  'SELECT count(*) FROM $F WHERE s.a = 42',
  'SELECT DISTINCT s.b.c FROM $F',
  'SELECT id, row_number() OVER (PARTITION BY s.b.c ORDER BY id) FROM $F WHERE id < 200',
  // the list passes through a filter, a sort, a window and a join
  'SELECT id, l FROM $F WHERE id % 97 = 0',
  'SELECT id, l, s.a FROM $F WHERE s.a > 95 ORDER BY s.b.d DESC, id LIMIT 20 -- ordered',
  'SELECT id, l, rank() OVER (PARTITION BY t2.k ORDER BY s.a DESC NULLS LAST) FROM $F WHERE id < 300',
  'SELECT g.label, f.l FROM $F f JOIN $G g ON f.t2.k = g.k WHERE f.id < 60',
  // and is a value in expressions
  'SELECT id, l IS NULL, len(l), l[1], l[-1], list_contains(l, s.a) FROM $F WHERE id % 13 = 0',
];
const sub = q => q.replaceAll('$F', `'${F}'`).replaceAll('$G', `'${G}'`);

function ours(q, threads, format = 'json', more = []) {
  return spawnSync(bin, ['sql', q, '--format', format, '--threads', String(threads), ...more],
    { encoding: 'utf8', maxBuffer: 1 << 28 });
}

// The same file appended to an Iceberg table (SQLite catalog): the queries
// over it alone run there too (the Iceberg scan's structs flattened alike).
const catalog = `sqlite:${path.join(dir, 'catalog.db')}`;
fs.rmSync(path.join(dir, 'catalog.db'), { force: true });
fs.rmSync(path.join(dir, 'db'), { recursive: true, force: true });
for (const args of [['create', 'db.n', '--like', F], ['append', 'db.n', F]]) {
  const p = spawnSync(bin, ['iceberg', ...args, '--catalog', catalog], { encoding: 'utf8' });
  if (p.status !== 0) {
    console.log(`FAIL: basalt iceberg ${args.join(' ')}: ${p.stderr.trim()}`);
    process.exit(1);
  }
}

let failures = 0;
const fail = msg => { failures++; console.log(`FAIL: ${msg}`); };
for (const q0 of queries) {
  const q = sub(q0);
  let d;
  try {
    d = (await conn.runAndReadAll(q)).getRowsJson().map(row => row.map(canon));
  } catch (e) {
    fail(`${q0}\n  duckdb: ${String(e.message).split('\n')[0]}`);
    continue;
  }
  const b1 = ours(q, 1), b2 = ours(q, 2);
  if (b1.status !== 0) {
    fail(`${q0}\n  basalt: ${b1.stderr.trim()}`);
    continue;
  }
  if (b2.stdout !== b1.stdout) fail(`${q0}\n  2 threads differ from 1 thread`);
  const rowsOf = p => p.stdout.split('\n').filter(Boolean).map(line => Object.values(JSON.parse(line)).map(canon));
  const bad = compareRows(d, rowsOf(b1), q0.includes('-- ordered'));
  if (bad) fail(`${q0}\n  ${bad}`);
  else console.log(`ok: ${d.length} rows: ${q0}`);
  if (q0.includes('$G')) continue;
  const ice = ours(q0.replaceAll('$F', 'db.n'), 2, 'json', ['--catalog', catalog]);
  const iceBad = ice.status !== 0 ? ice.stderr.trim() : compareRows(d, rowsOf(ice), q0.includes('-- ordered'));
  if (iceBad) fail(`${q0} over the Iceberg table\n  ${iceBad}`);
  else console.log(`ok: ${d.length} rows over the Iceberg table: ${q0}`);
}

// A filter on a leaf is pushed into the scan and prunes row groups by the
// leaf's statistics: t2.w (id on odd rows) > 2900 prunes the row groups that
// id > 2900 prunes, at least one.
const prunedBy = where => {
  const p = spawnSync(bin, ['sql', sub(`EXPLAIN ANALYZE SELECT id FROM $F WHERE ${where}`), '--format', 'csv'],
    { encoding: 'utf8' });
  const m = /pushed=1 .*pruned=(\d+)/.exec(p.stdout);
  return m ? Number(m[1]) : `nothing pruned: ${p.stdout}${p.stderr}`;
};
const [leafPruned, idPruned] = [prunedBy('t2.w > 2900'), prunedBy('id > 2900')];
if (typeof leafPruned !== 'number' || leafPruned < 1 || leafPruned !== idPruned)
  fail(`a filter on t2.w prunes ${leafPruned} row groups, one on id ${idPruned}`);
else console.log(`ok: t2.w > 2900 pushed, ${leafPruned} row groups pruned as by id > 2900`);

// SELECT * names the leaves by their paths (and the list, which passes
// through); a list as an aggregate's argument, a key or an operand of +
// is an error naming it (lists compare: tests/sql/functions/lists2.txt).
const star = ours(sub('SELECT * FROM $F LIMIT 1'), 1, 'csv');
const header = star.stdout.split('\n')[0];
if (header !== 'id,s.a,s.b.c,s.b.d,s.b.e.f,s.n,t2.k,t2.w,l') fail(`SELECT * header: ${header} ${star.stderr}`);
else console.log(`ok: SELECT *: ${header}`);
for (const [q, want] of [['SELECT count(l) FROM $F', /a list \(.*\[\]\) cannot be an aggregate's argument yet \(at position 13\)/],
  ['SELECT id FROM $F ORDER BY l', /ORDER BY: .*'\+l'.* passed through/],
  ['SELECT l + l FROM $F', /'\+' does not take lists \(.*\[\]\) yet/]]) {
  const p = ours(sub(q), 1);
  if (p.status === 0 || !want.test(p.stderr)) fail(`${q}: ${p.stderr || 'no error'}`);
  else console.log(`ok: ${q}: ${p.stderr.trim()}`);
}

// An Arrow IPC file's struct (the Arrow integration suite's
// generated_nested, whose JSON gives every value): its leaves read through
// SQL are NULL where the struct is, though the file's children hold values
// there.
if (testdata) {
  const base = path.join(testdata, 'arrow-ipc', 'integration', 'cpp-21.0.0', 'generated_nested');
  const json = JSON.parse(zlib.gunzipSync(fs.readFileSync(`${base}.json.gz`)).toString('utf8'));
  const want = [];
  for (const batch of json.batches) {
    const st = batch.columns.find(c => c.name === 'struct_nullable');
    const [f1, f2] = st.children;
    for (let i = 0; i < batch.count; i++) {
      const on = st.VALIDITY[i] === 1;
      want.push([on && f1.VALIDITY[i] ? f1.DATA[i] : null, on && f2.VALIDITY[i] ? f2.DATA[i] : null]);
    }
  }
  const p = ours(`SELECT struct_nullable.f1, struct_nullable.f2 FROM read_ipc('${base}.arrow_file')`, 1);
  const got = p.status === 0 ? p.stdout.split('\n').filter(Boolean).map(line => Object.values(JSON.parse(line))) : null;
  const bad = got === null ? p.stderr.trim() : compareRows(want, got.map(r => r.map(canon)), true);
  if (bad) fail(`generated_nested's struct through read_ipc: ${bad}`);
  else console.log(`ok: generated_nested's struct through read_ipc, ${want.length} rows, ${want.filter(r => r[1] === null).length} NULL f2`);
}

console.log(`${failures} failures`);
process.exit(failures ? 1 : 0);
