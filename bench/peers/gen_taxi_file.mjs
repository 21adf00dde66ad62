// A taxi-shaped Parquet file for the object-store benchmark, written by
// DuckDB: the nineteen columns and types of the NYC yellow-taxi files, one
// month of pickups in time order, values drawn from seeded hashes (so the
// file is the same on every run), ZSTD, row groups of 1,048,576 rows.
//
//   node gen_taxi_file.mjs OUT.parquet [ROWS]   (default 3,450,000 rows, about 60 MiB)
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const out = process.argv[2];
const rows = Number(process.argv[3] || 3_450_000);
if (!out) {
  console.error('usage: node gen_taxi_file.mjs OUT.parquet [ROWS]');
  process.exit(2);
}
const db = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await db.connect();
// u(i, k): a uniform number in [0, 1) for row i and stream k.
await con.run(`CREATE MACRO u(i, k) AS (hash(i * 31 + k) % 1000003) / 1000003.0`);
await con.run(`COPY (
  SELECT
    (1 + (u(i, 1) < 0.27)::INT)::INTEGER AS VendorID,
    TIMESTAMP '2024-05-01' + to_microseconds((i * (2678400000000 // ${rows})) + (u(i, 2) * 600000000)::BIGINT) AS tpep_pickup_datetime,
    TIMESTAMP '2024-05-01' + to_microseconds((i * (2678400000000 // ${rows})) + 60000000 + (u(i, 3) * 2400000000)::BIGINT) AS tpep_dropoff_datetime,
    CASE WHEN u(i, 4) < 0.05 THEN NULL ELSE (1 + floor(u(i, 5) ^ 3 * 5))::BIGINT END AS passenger_count,
    round(-ln(1 - u(i, 6)) * 3.2, 2) AS trip_distance,
    CASE WHEN u(i, 4) < 0.05 THEN NULL ELSE (CASE WHEN u(i, 7) < 0.94 THEN 1 ELSE 2 + floor(u(i, 8) * 4) END)::BIGINT END AS RatecodeID,
    CASE WHEN u(i, 4) < 0.05 THEN NULL WHEN u(i, 9) < 0.995 THEN 'N' ELSE 'Y' END AS store_and_fwd_flag,
    (1 + floor(u(i, 10) ^ 2 * 265))::INTEGER AS PULocationID,
    (1 + floor(u(i, 11) ^ 2 * 265))::INTEGER AS DOLocationID,
    (CASE WHEN u(i, 4) < 0.05 THEN 0 WHEN u(i, 12) < 0.78 THEN 1 ELSE 2 + floor(u(i, 13) * 3) END)::BIGINT AS payment_type,
    round(3 + -ln(1 - u(i, 6)) * 3.2 * 2.8 + u(i, 14) * 4, 2) AS fare_amount,
    (CASE WHEN u(i, 15) < 0.5 THEN 0.0 WHEN u(i, 15) < 0.8 THEN 1.0 ELSE 2.5 END)::DOUBLE AS extra,
    0.5::DOUBLE AS mta_tax,
    round(CASE WHEN u(i, 12) < 0.78 THEN u(i, 16) * 8 ELSE 0 END, 2) AS tip_amount,
    (CASE WHEN u(i, 17) < 0.93 THEN 0.0 ELSE 6.94 END)::DOUBLE AS tolls_amount,
    1.0::DOUBLE AS improvement_surcharge,
    round(5 + -ln(1 - u(i, 6)) * 9 + u(i, 16) * 8, 2) AS total_amount,
    (CASE WHEN u(i, 4) < 0.05 THEN NULL WHEN u(i, 18) < 0.9 THEN 2.5 ELSE 0.0 END)::DOUBLE AS congestion_surcharge,
    (CASE WHEN u(i, 4) < 0.05 THEN NULL WHEN u(i, 19) < 0.92 THEN 0.0 ELSE 1.75 END)::DOUBLE AS Airport_fee
  FROM range(${rows}) t(i)
) TO '${out.replace(/'/g, "''")}' (FORMAT PARQUET, COMPRESSION ZSTD, ROW_GROUP_SIZE 1048576)`);
console.log(`${out}: ${rows} rows`);
