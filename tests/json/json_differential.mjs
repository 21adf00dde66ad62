// Differential tests of basalt's JSON-lines reader and writer against DuckDB.
//
//   node json_differential.mjs BASALT SEED COUNT TMPDIR
//
// Reader: COUNT seeded random tables (1-8 columns of BIGINT, DOUBLE, BOOLEAN,
// VARCHAR with escapes and non-ASCII text, DATE, TIMESTAMP, STRUCT, lists;
// nulls; 0 to 3000 rows) are written by DuckDB (COPY ... TO (FORMAT json)).
// Each file is read by DuckDB's read_json_auto and by basalt: the inferred
// types (`basalt json schema`) must equal DESCRIBE's, and the rows that
// `basalt json convert F.json F.parquet` writes at 1, 2 and 4 threads with
// small chunks must equal DuckDB's (EXCEPT ALL both ways, in DuckDB).
//
// Writer: COUNT / 4 random tables written by DuckDB as Parquet are converted
// by `basalt json convert T.parquet T.json` (basalt's writer) and read back
// by DuckDB's read_json with the table's column types: the same rows. The
// writer's text must also be byte for byte what `basalt parquet cat --format
// json` prints for the same file (the CLI and the library render alike).
//
// Prints one line per failure and a summary; exits 1 on any failure.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const [basalt, seedArg, countArg, tmp] = process.argv.slice(2);
if (!tmp) {
  console.error('usage: node json_differential.mjs BASALT SEED COUNT TMPDIR');
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
const rnd = mulberry32(seed);
const pick = (a) => a[Math.floor(rnd() * a.length)];
const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const pad = (n, w) => String(n).padStart(w, '0');

const PIECES = ['a', 'bc', 'Zed', ',', '"', '\\', '\n', '\t', '\u0001', ' ', 'é', '日本', '😀', '{', '[1]', "''", 'null'];
function str() {
  let s = '';
  const n = int(0, 5);
  for (let i = 0; i < n; i++) s += pick(PIECES);
  return `'${s.replaceAll("'", "''")}'`;
}
const dateText = () => `${int(1901, 2099)}-${pad(int(1, 12), 2)}-${pad(int(1, 28), 2)}`;
// DuckDB writes a fraction only when there is one; read_json_auto wants one
// form per column, so every timestamp here has microseconds.
const tsText = () => `${dateText()} ${pad(int(0, 23), 2)}:${pad(int(0, 59), 2)}:${pad(int(0, 59), 2)}.${pad(int(1, 999999), 6)}`;

const RTYPES = ['BIGINT', 'DOUBLE', 'BOOLEAN', 'VARCHAR', 'DATE', 'TIMESTAMP',
  'STRUCT(a BIGINT, b VARCHAR)', 'BIGINT[]', 'VARCHAR[]', 'STRUCT(x DOUBLE, y BIGINT[])[]'];
function sqlValue(type) {
  switch (type) {
    case 'BIGINT': return String(rnd() < 0.1 ? pick(['9223372036854775807', '-9223372036854775808', '0']) : int(-1e9, 1e9));
    case 'DOUBLE': return rnd() < 0.1 ? pick(['1e300', '5e-324', '0.1', '-2.5', '1e21', '123456789.125'])
      : `${((rnd() - 0.5) * 10 ** int(-5, 12))}`;
    case 'BOOLEAN': return pick(['true', 'false']);
    case 'VARCHAR': return str();
    case 'DATE': return `DATE '${dateText()}'`;
    case 'TIMESTAMP': return `TIMESTAMP '${tsText()}'`;
    case 'STRUCT(a BIGINT, b VARCHAR)': return `{'a': ${rnd() < 0.2 ? 'NULL' : int(-99, 99)}, 'b': ${rnd() < 0.2 ? 'NULL' : str()}}`;
    case 'BIGINT[]': return `[${Array.from({ length: int(0, 4) }, () => (rnd() < 0.2 ? 'NULL' : int(-5, 5))).join(', ')}]`;
    case 'VARCHAR[]': return `[${Array.from({ length: int(0, 3) }, () => (rnd() < 0.2 ? 'NULL' : str())).join(', ')}]`;
    default: return `[${Array.from({ length: int(0, 3) }, () => `{'x': ${(rnd() * 100).toFixed(2)}, 'y': [${int(0, 9)}]}`).join(', ')}]`;
  }
}

const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await inst.connect();
await con.run(`SET TimeZone = 'UTC'`);
const q = async (sql) => (await con.runAndReadAll(sql));

function run(args) {
  const r = spawnSync(basalt, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`basalt ${args.join(' ')}: ${r.stderr.trim()}`);
  return r.stdout;
}

let failures = 0, checks = 0;
const fail = (what) => { failures++; console.log(`FAIL: seed ${seed}: ${what}`); };

async function makeTable(types, rows, nullRate) {
  const cols = types.map((t, c) => `c${c} ${t}`).join(', ');
  await con.run(`CREATE OR REPLACE TABLE t (${cols})`);
  for (let r0 = 0; r0 < rows; r0 += 500) {
    const values = [];
    for (let r = r0; r < Math.min(rows, r0 + 500); r++)
      values.push('(' + types.map((t) => (r > 0 && rnd() < nullRate ? 'NULL' : `(${sqlValue(t)})::${t}`)).join(', ') + ')');
    await con.run(`INSERT INTO t VALUES ${values.join(', ')}`);
  }
}

async function sameRows(a, b) {
  const [d] = (await q(`SELECT (SELECT count(*) FROM (SELECT * FROM ${a} EXCEPT ALL SELECT * FROM ${b})) AS x,
                               (SELECT count(*) FROM (SELECT * FROM ${b} EXCEPT ALL SELECT * FROM ${a})) AS y,
                               (SELECT count(*) FROM ${a}) AS n, (SELECT count(*) FROM ${b}) AS m`)).getRowObjectsJS();
  return Number(d.x) || Number(d.y) || Number(d.n) !== Number(d.m)
    ? `${d.n} rows vs ${d.m}; ${d.x} missing, ${d.y} extra` : null;
}

// ---- reader: DuckDB writes JSON lines, both read them
for (let i = 0; i < count; i++) {
  const ncols = int(1, 8);
  const types = Array.from({ length: ncols }, () => pick(RTYPES));
  const rows = pick([1, 3, 40, 400, 3000]);
  const file = path.join(tmp, `r${i}.json`);
  const what = `r${i}.json (${types.join(',')}; ${rows} rows)`;
  checks++;
  let duckTypes;
  try {
    await makeTable(types, rows, pick([0, 0.1, 0.3]));
    await con.run(`COPY t TO '${file}' (FORMAT json)`);
    // DuckDB types a column mixing positive and negative integers HUGEINT (the
    // parser reads them as unsigned and signed); basalt keeps BIGINT when
    // every value fits, and calls DuckDB's JSON type (null-only or mixed
    // columns) VARCHAR.
    duckTypes = (await q(`DESCRIBE SELECT * FROM read_json_auto('${file}')`)).getRowObjectsJS()
      .map((d) => d.column_type.replaceAll('HUGEINT', 'BIGINT').replace(/\bJSON\b/g, 'VARCHAR'));
  } catch (e) { fail(`${what}: DuckDB: ${e.message.split('\n')[0]}`); continue; }
  let schema;
  try { schema = JSON.parse(run(['json', 'schema', file, '--format', 'json'])); } catch (e) { fail(`${what}: ${e.message}`); continue; }
  const ours = schema.columns.map((c) => c.type);
  if (JSON.stringify(ours) !== JSON.stringify(duckTypes)) {
    fail(`${what}: types ${JSON.stringify(ours)} but DuckDB ${JSON.stringify(duckTypes)}`);
    continue;
  }
  for (const [threads, chunk] of [[1, 2097152], [2, 61], [4, 1000]]) {
    checks++;
    const pq = path.join(tmp, `r${i}_${threads}.parquet`);
    try {
      run(['json', 'convert', file, pq, '--threads', String(threads), '--chunk-size', String(chunk), '--batch-size', '100']);
      const diff = await sameRows(`read_json_auto('${file}')`, `read_parquet('${pq}')`);
      if (diff) fail(`${what} threads ${threads} chunk ${chunk}: ${diff}`);
    } catch (e) { fail(`${what} threads ${threads} chunk ${chunk}: ${e.message.split('\n')[0]}`); }
  }
}

// ---- writer: basalt writes JSON lines, DuckDB reads them back
const WTYPES = ['BIGINT', 'INTEGER', 'SMALLINT', 'DOUBLE', 'BOOLEAN', 'DATE', 'TIMESTAMP', 'DECIMAL(18,3)', 'VARCHAR',
  'STRUCT(a BIGINT, b VARCHAR)', 'BIGINT[]', 'VARCHAR[]'];
const wcount = Math.max(1, Math.floor(count / 4));
for (let i = 0; i < wcount; i++) {
  const ncols = int(1, 8);
  const types = Array.from({ length: ncols }, () => pick(WTYPES));
  const rows = pick([0, 1, 10, 300]);
  const pq = path.join(tmp, `w${i}.parquet`), js = path.join(tmp, `w${i}.json`);
  const what = `w${i} (${types.join(',')}; ${rows} rows)`;
  checks++;
  try {
    await con.run(`CREATE OR REPLACE TABLE t (${types.map((t, c) => `c${c} ${t}`).join(', ')})`);
    const values = [];
    for (let r = 0; r < rows; r++)
      values.push('(' + types.map((t) => (rnd() < 0.15 ? 'NULL' : `(${t === 'INTEGER' ? int(-2147483648, 2147483647) : t === 'SMALLINT' ? int(-32768, 32767) : t === 'DECIMAL(18,3)' ? (int(-1e9, 1e9) / 1000).toFixed(3) : sqlValue(t)})::${t}`)).join(', ') + ')');
    if (rows) await con.run(`INSERT INTO t VALUES ${values.join(', ')}`);
    await con.run(`COPY t TO '${pq}' (FORMAT parquet)`);
    run(['json', 'convert', pq, js]);
    const spec = '{' + types.map((t, c) => `'c${c}': '${t}'`).join(', ') + '}';
    const diff = await sameRows('t', `read_json('${js}', columns = ${spec}, format = 'newline_delimited')`);
    if (diff) fail(`${what}: DuckDB reads back ${diff}`);
    checks++;
    const cli = run(['parquet', 'cat', pq, '--format', 'json']);
    const lib = fs.readFileSync(js, 'utf8');
    if (cli !== lib) fail(`${what}: the writer and \`parquet cat --format json\` differ`);
  } catch (e) {
    fail(`${what}: ${e.message.split('\n')[0]}`);
  }
}
console.log(`${checks - failures} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
