// Parquet files for the scan tests, written by DuckDB:
//
//   node tests/iceberg/make_parquet.mjs noids IN.parquet OUT.parquet
//       IN's rows and column names without field ids (as engines other than
//       Iceberg's write them), for the name-mapping tests;
//   node tests/iceberg/make_parquet.mjs nested OUT.parquet
//       five rows of id BIGINT, s STRUCT(a BIGINT, b VARCHAR), l BIGINT[],
//       m MAP(VARCHAR, BIGINT) with field ids 1..9 and nulls at every level:
//         id s              l      m
//         0  {a:0,b:'x0'}  [0,1]  {k0:0}
//         1  {a:1,b:'x1'}  [1,2]  NULL
//         2  NULL          [2,3]  {k2:2}
//         3  {a:3,b:'x3'}  NULL   {k3:3}
//         4  {a:4,b:'x4'}  [4,5]  {k4:4}
//   node tests/iceberg/make_parquet.mjs plain OUT.parquet
//       three rows of a BIGINT, b VARCHAR, s STRUCT(x BIGINT, y VARCHAR)
//       without field ids: (10, 'p', {x:1, y:'q'}), (20, 'r', {x:2, y:'s'}),
//       (30, NULL, NULL);
//   node tests/iceberg/make_parquet.mjs rowgroups OUT.parquet
//       20480 rows (id BIGINT = 0..20479 in order, v VARCHAR = 'v' || id) in
//       ten row groups of 2048, field ids 1 and 2.
//   node tests/iceberg/make_parquet.mjs uuid OUT.parquet
//       six rows of id BIGINT = 0..5 and u UUID (FIXED_LEN_BYTE_ARRAY(16)
//       UUID), null for id 3, field ids 1 and 2.
import { DuckDBInstance } from '@duckdb/node-api';

const [mode, a, b] = process.argv.slice(2);
const q = (s) => `'${s.replaceAll("'", "''")}'`;
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
if (mode === 'noids' && a && b) {
  await c.run(`COPY (SELECT * FROM read_parquet(${q(a)})) TO ${q(b)} (FORMAT parquet)`);
} else if (mode === 'nested' && a) {
  await c.run(`COPY (SELECT i::BIGINT AS id,
      CASE WHEN i = 2 THEN NULL ELSE {'a': i::BIGINT, 'b': 'x' || i} END AS s,
      CASE WHEN i = 3 THEN NULL ELSE [i::BIGINT, (i + 1)::BIGINT] END AS l,
      CASE WHEN i = 1 THEN NULL ELSE MAP {'k' || i: i::BIGINT} END AS m
    FROM range(5) t(i)) TO ${q(a)} (FORMAT parquet,
    FIELD_IDS {id: 1, s: {__duckdb_field_id: 2, a: 3, b: 4}, l: {__duckdb_field_id: 5, element: 6},
               m: {__duckdb_field_id: 7, key: 8, value: 9}})`);
} else if (mode === 'plain' && a) {
  await c.run(`COPY (SELECT * FROM (VALUES (10::BIGINT, 'p', {'x': 1::BIGINT, 'y': 'q'}),
      (20::BIGINT, 'r', {'x': 2::BIGINT, 'y': 's'}), (30::BIGINT, NULL, NULL)) t(a, b, s))
    TO ${q(a)} (FORMAT parquet)`);
} else if (mode === 'rowgroups' && a) {
  await c.run(`COPY (SELECT i::BIGINT AS id, 'v' || i AS v FROM range(20480) t(i) ORDER BY i)
    TO ${q(a)} (FORMAT parquet, ROW_GROUP_SIZE 2048, FIELD_IDS {id: 1, v: 2})`);
} else if (mode === 'uuid' && a) {
  await c.run(`COPY (SELECT i::BIGINT AS id,
      CASE WHEN i = 3 THEN NULL ELSE ['00000000-0000-0000-0000-000000000000',
        'ffffffff-ffff-ffff-ffff-ffffffffffff', '6f1b8f2e-9a4c-4f57-8d2a-3c1e5b7a9d10', NULL,
        '0123abcd-0000-7fff-8000-fedcba987654', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'][i + 1]::UUID
      END AS u
    FROM range(6) t(i)) TO ${q(a)} (FORMAT parquet, FIELD_IDS {id: 1, u: 2})`);
} else {
  console.error('usage: node make_parquet.mjs noids IN OUT | nested OUT | plain OUT | rowgroups OUT | uuid OUT');
  process.exit(2);
}
c.closeSync();
inst.closeSync();
