// DuckDB's side of the aggregation differential (tests/unit/query/agg_differential_test.c).
//
//   node duckdb_agg.mjs table SEED ROWS OUT.parquet
//     writes a seeded random table: key columns of every kind at cardinalities
//     from 2 to 100000 (NULLs, NaN, -0.0, long strings) and value columns
//     (v_g/v_h and v_m/v_n: correlated pairs for corr and regr_*, the second
//     pair around 1e9)
//   node duckdb_agg.mjs run FILE.parquet QUERIES.txt OUT.txt
//     QUERIES.txt has one `KINDS<TAB>sql` per line, KINDS one letter per output
//     column (D: a double, printed as a number; S: CAST(... AS VARCHAR));
//     OUT.txt gets `#k OK` then one line per row, cells joined by \x1f (NULL
//     for nulls), or `#k ERR msg`.
import { DuckDBInstance } from '@duckdb/node-api';
import fs from 'node:fs';

const [mode, ...rest] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await inst.connect();

if (mode === 'table') {
  const [seed, rows, out] = rest;
  const s = Number(seed) % 1000 / 1000;
  await conn.run(`SELECT setseed(${s})`);
  const nul = p => `CASE WHEN random() < ${p} THEN NULL ELSE`;
  // The pair columns (last) come from hashes of the row number, not
  // random(), so the other columns keep the values they had before these
  // were added: v_g and v_h (correlated, mean 0), v_m and v_n (correlated,
  // around 1e9 with a spread of 1000), 10% NULL each.
  const u = k => `((hash(range, ${seed}, ${k}) % 1000001)::DOUBLE / 1000000)`;
  const hnul = k => `CASE WHEN hash(range, ${seed}, ${k}) % 10 = 0 THEN NULL ELSE`;
  await conn.run(`CREATE TABLE t AS SELECT
      ${nul(0.05)} (random() < 0.5) END AS k_b,
      ${nul(0.1)} (floor(random() * 7) - 3)::TINYINT END AS k_i8,
      ${nul(0.02)} floor(random() * 1000)::INTEGER END AS k_i32,
      ${nul(0.01)} (floor(random() * 100000) * 1000003 - 50000000000)::BIGINT END AS k_i64,
      ${nul(0.1)} floor(random() * 300)::USMALLINT END AS k_u16,
      ${nul(0.1)} ['a', 'b', '', 'long key number one, past twelve', 'long key number two, past twelve', 'id' || floor(random() * 40)::INT::VARCHAR][floor(random() * 6)::INT + 1] END AS k_s,
      ${nul(0.05)} (DATE '2020-01-01' + floor(random() * 60)::INT) END AS k_dt,
      ${nul(0.05)} [0.0::DOUBLE, -0.0::DOUBLE, 'nan'::DOUBLE, 1.25, -7.5, 1e10, floor(random() * 20) / 4][floor(random() * 7)::INT + 1] END AS k_f,
      ${nul(0.05)} (floor(random() * 30) / 4)::DECIMAL(9,2) END AS k_d,
      ${nul(0.02)} (TIMESTAMP '2024-01-01' + to_seconds((floor(random() * 20000) - 10000)::BIGINT)) END AS k_ts,
      ${nul(0.15)} (floor(random() * 2000001) - 1000000)::INTEGER END AS v_i,
      ${nul(0.15)} (CASE WHEN random() < 0.01 THEN 9223372036854775807 - floor(random() * 10)::BIGINT ELSE (floor(random() * 2e12) - 1e12)::BIGINT END) END AS v_l,
      ${nul(0.15)} (CASE WHEN random() < 0.005 THEN 'nan'::DOUBLE ELSE (random() - 0.5) * 1e6 END) END AS v_f,
      ${nul(0.15)} ((random() - 0.5) * 1e9)::DECIMAL(18,3) END AS v_d,
      ${nul(0.15)} ['x', 'yy', '', 'zzz', 'a longer value string here', 'q' || floor(random() * 100)::INT::VARCHAR][floor(random() * 6)::INT + 1] END AS v_s,
      ${nul(0.15)} (random() < 0.7) END AS v_b,
      ${nul(0.15)} (DATE '1990-01-01' + floor(random() * 20000)::INT) END AS v_dt,
      ${hnul(11)} ${u(12)} * 1000 - 500 END AS v_g,
      ${hnul(13)} 0.5 * (${u(12)} * 1000 - 500) + ${u(14)} * 100 - 50 END AS v_h,
      ${hnul(15)} 1e9 + ${u(16)} * 1000 END AS v_m,
      ${hnul(17)} 1e9 + 2 * (${u(16)} * 1000) + ${u(18)} * 100 END AS v_n
    FROM range(${Number(rows)})`);
  await conn.run(`COPY t TO '${out}' (FORMAT parquet)`);
  process.exit(0);
}

if (mode === 'run') {
  const [file, queries, out] = rest;
  await conn.run(`CREATE VIEW f AS SELECT * FROM read_parquet('${file}')`);
  const lines = fs.readFileSync(queries, 'utf8').split('\n').filter(l => l.length);
  const res = [];
  for (let k = 0; k < lines.length; k++) {
    const tab = lines[k].indexOf('\t');
    const kinds = lines[k].slice(0, tab), sql = lines[k].slice(tab + 1);
    try {
      const rows = (await conn.runAndReadAll(sql)).getRows();
      res.push(`#${k} OK`);
      for (const row of rows) {
        res.push(row.map((v, i) => {
          if (v === null) return 'NULL';
          if (kinds[i] === 'D') {
            const x = Number(v);
            return Number.isNaN(x) ? 'nan' : x === Infinity ? 'inf' : x === -Infinity ? '-inf' : String(x);
          }
          return String(v);
        }).join('\x1f'));
      }
    } catch (e) {
      res.push(`#${k} ERR ${String(e.message ?? e).split('\n')[0]}`);
    }
  }
  fs.writeFileSync(out, res.join('\n') + '\n');
  process.exit(0);
}
console.error('usage: duckdb_agg.mjs table SEED ROWS OUT | run FILE QUERIES OUT');
process.exit(2);
