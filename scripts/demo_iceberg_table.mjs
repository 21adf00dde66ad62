// The sample Iceberg table of `make demo`: the flat columns of
// scripts/demo-data/trips.parquet, written again by DuckDB with field ids in
// two data files, one append each (so the table has two snapshots), and the
// Iceberg metadata around them, with column metrics from DuckDB, written by
// scripts/iceberg_table.py.
//
//   node scripts/demo_iceberg_table.mjs TABLE_DIR
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { fileStats } from './iceberg_stats.mjs';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node scripts/demo_iceberg_table.mjs TABLE_DIR');
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const trips = path.join(here, 'demo-data', 'trips.parquet');
const table = path.resolve(dir);
fs.mkdirSync(path.join(table, 'data'), { recursive: true });
const schema = {
  type: 'struct', 'schema-id': 0, fields: [
    { id: 1, name: 'trip_id', required: false, type: 'long' },
    { id: 2, name: 'vendor_id', required: false, type: 'long' },
    { id: 3, name: 'pickup_at', required: false, type: 'timestamp' },
    { id: 4, name: 'distance_km', required: false, type: 'double' },
    { id: 5, name: 'fare', required: false, type: 'decimal(9, 2)' },
    { id: 6, name: 'payment', required: false, type: 'string' },
  ],
};
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const c = await inst.connect();
const appends = [];
const stats = {};
for (const [k, where] of [[0, 'trip_id <= 1000'], [1, 'trip_id > 1000']]) {
  const rel = `data/trips-${k}.parquet`;
  await c.run(`COPY (SELECT trip_id, vendor_id, pickup_at, distance_km, fare, payment
                     FROM read_parquet('${trips}') WHERE ${where} ORDER BY trip_id)
               TO '${path.join(table, rel)}' (FORMAT parquet, COMPRESSION zstd,
               FIELD_IDS {trip_id: 1, vendor_id: 2, pickup_at: 3, distance_km: 4, fare: 5, payment: 6})`);
  const [n] = (await c.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM read_parquet('${path.join(table, rel)}')`)).getRowObjectsJS();
  appends.push('--append', `${rel}:${n.n}`);
  stats[rel] = await fileStats(c, path.join(table, rel), schema);
}
c.closeSync();
inst.closeSync();
fs.writeFileSync(path.join(table, 'schema.json'), JSON.stringify(schema));
fs.writeFileSync(path.join(table, 'stats.json'), JSON.stringify(stats));
execFileSync('/usr/bin/python3', [path.join(here, 'iceberg_table.py'), '--dir', table,
  '--schema', path.join(table, 'schema.json'), '--stats', path.join(table, 'stats.json'), ...appends]);
