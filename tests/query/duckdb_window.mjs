// DuckDB's side of the window differential (tests/unit/query/window_differential_test.c).
//
//   node duckdb_window.mjs table SEED ROWS OUT.parquet
//     writes a seeded random table: a unique row id, partition keys from 3 to
//     about 1000 values (NULLs, strings), order keys with ties, NULLs, NaN and
//     -0.0, and value columns of every kind the window functions take
// The queries run with `node duckdb_agg.mjs run` (same output format).
import { DuckDBInstance } from '@duckdb/node-api';

const [mode, seed, rows, out] = process.argv.slice(2);
if (mode !== 'table') {
  console.error('usage: duckdb_window.mjs table SEED ROWS OUT');
  process.exit(2);
}
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const conn = await inst.connect();
await conn.run(`SELECT setseed(${Number(seed) % 1000 / 1000})`);
const nul = p => `CASE WHEN random() < ${p} THEN NULL ELSE`;
await conn.run(`CREATE TABLE t AS SELECT
    range::BIGINT AS id,
    ${nul(0.05)} floor(random() * 3)::INTEGER END AS pk_s,
    ${nul(0.02)} floor(random() * 40)::BIGINT END AS pk_m,
    ${nul(0.1)} ['a', 'bb', '', 'a long partition key past twelve'][floor(random() * 4)::INT + 1] END AS pk_str,
    floor(random() * ${Math.max(2, Math.floor(Number(rows) / 20))})::INTEGER AS pk_big,
    ${nul(0.1)} floor(random() * 12)::INTEGER END AS o_i,
    ${nul(0.05)} [0.0::DOUBLE, -0.0::DOUBLE, 'nan'::DOUBLE, 1.5, -2.25, floor(random() * 8) / 2][floor(random() * 6)::INT + 1] END AS o_f,
    ${nul(0.05)} (DATE '2021-03-01' + floor(random() * 30)::INT) END AS o_d,
    ${nul(0.05)} ['x', 'y', 'zz', '', 'q' || floor(random() * 5)::INT::VARCHAR][floor(random() * 5)::INT + 1] END AS o_s,
    ${nul(0.15)} (floor(random() * 2001) - 1000)::INTEGER END AS v_i,
    ${nul(0.15)} (floor(random() * 2e15) - 1e15)::BIGINT END AS v_l,
    ${nul(0.15)} (CASE WHEN random() < 0.003 THEN 'nan'::DOUBLE WHEN random() < 0.003 THEN 'inf'::DOUBLE ELSE round((random() - 0.5) * 2000, 3) END) END AS v_f,
    ${nul(0.15)} ((random() - 0.5) * 1e9)::DECIMAL(18,3) END AS v_d,
    ${nul(0.15)} ((random() - 0.5) * 1e22)::DECIMAL(38,2) END AS v_dd,
    ${nul(0.15)} ['x', 'yy', '', 'zzz', 'a longer value string here', 'q' || floor(random() * 100)::INT::VARCHAR][floor(random() * 6)::INT + 1] END AS v_s,
    ${nul(0.15)} (random() < 0.6) END AS v_b,
    ${nul(0.15)} (DATE '1990-01-01' + floor(random() * 20000)::INT) END AS v_dt,
    ${nul(0.15)} (TIMESTAMP '2024-01-01' + to_seconds((floor(random() * 2e7) - 1e7)::BIGINT)) END AS v_ts,
    ${nul(0.15)} floor(random() * 250)::UTINYINT END AS v_u
  FROM range(${Number(rows)})`);
await conn.run(`COPY t TO '${out}' (FORMAT parquet, ROW_GROUP_SIZE 2048)`);
process.exit(0);
