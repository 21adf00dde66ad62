// The Iceberg scan benchmark tables: data files written by DuckDB with field
// ids, the Iceberg metadata around them (with column metrics from DuckDB,
// scripts/iceberg_stats.mjs) by scripts/iceberg_table.py.
//
//   node bench/peers/gen_iceberg.mjs OUTDIR
//
// OUTDIR/scan1m: 1,000,000 rows in four ZSTD files of 250,000 rows, one
// append each; OUTDIR/scan2m: 2,000,000 rows in eight such files. Columns
// (field ids 1-6): id BIGINT (the row number, required), region VARCHAR
// (required, one of 8 values), amount DOUBLE, ts TIMESTAMP, ok BOOLEAN, cnt
// INTEGER; amount and ok are NULL on every 7th row, ts and cnt on every
// 11th. OUTDIR/planning: 500 appends of 4 entries each (2,000 data files that
// need not exist: only planning reads it). The layout is checked before the
// script succeeds.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { fileStats } from '../../scripts/iceberg_stats.mjs';

const out = process.argv[2];
if (!out) {
  console.error('usage: node gen_iceberg.mjs OUTDIR');
  process.exit(2);
}
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tool = path.join(root, 'scripts/iceberg_table.py');
const dir = path.resolve(out);
const schema = {
  type: 'struct', 'schema-id': 0, fields: [
    { id: 1, name: 'id', required: true, type: 'long' },
    { id: 2, name: 'region', required: true, type: 'string' },
    { id: 3, name: 'amount', required: false, type: 'double' },
    { id: 4, name: 'ts', required: false, type: 'timestamp' },
    { id: 5, name: 'ok', required: false, type: 'boolean' },
    { id: 6, name: 'cnt', required: false, type: 'int' },
  ],
};
const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const c = await inst.connect();
const q = async (sql) => (await c.runAndReadAll(sql)).getRowObjectsJS();

async function table(name, files) {
  const tdir = path.join(dir, name);
  fs.rmSync(tdir, { recursive: true, force: true });
  fs.mkdirSync(path.join(tdir, 'data'), { recursive: true });
  const appends = [];
  const stats = {};
  for (let k = 0; k < files; k++) {
    const rel = `data/part-${String(k).padStart(5, '0')}.parquet`;
    const f = path.join(tdir, rel);
    const lo = k * 250000, hi = lo + 250000;
    await c.run(`COPY (
      SELECT i::BIGINT AS id,
             ['eu','us','apac','latam','emea','anz','mena','nordics'][(i * 7919) % 8 + 1] AS region,
             CASE WHEN i % 7 = 0 THEN NULL ELSE ((i % 100000) * 0.25)::DOUBLE END AS amount,
             CASE WHEN i % 11 = 0 THEN NULL ELSE TIMESTAMP '2026-01-01' + INTERVAL (i) SECOND END AS ts,
             CASE WHEN i % 7 = 0 THEN NULL ELSE i % 3 = 0 END AS ok,
             CASE WHEN i % 11 = 0 THEN NULL ELSE (i % 1000)::INTEGER END AS cnt
      FROM range(${lo}, ${hi}) t(i))
      TO '${f}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 250000,
                 FIELD_IDS {id: 1, region: 2, amount: 3, ts: 4, ok: 5, cnt: 6})`);
    const [n] = await q(`SELECT count(*)::BIGINT AS n FROM read_parquet('${f}')`);
    if (Number(n.n) !== 250000) throw new Error(`${f}: ${n.n} rows`);
    const ids = await q(`SELECT name, field_id FROM parquet_schema('${f}') WHERE field_id IS NOT NULL`);
    if (ids.length !== 6) throw new Error(`${f}: ${ids.length} field ids, want 6`);
    appends.push('--append', `${rel}:250000`);
    stats[rel] = await fileStats(c, f, schema);
  }
  fs.writeFileSync(path.join(tdir, 'schema.json'), JSON.stringify(schema));
  fs.writeFileSync(path.join(tdir, 'stats.json'), JSON.stringify(stats));
  execFileSync('/usr/bin/python3', [tool, '--dir', tdir, '--schema', path.join(tdir, 'schema.json'),
    '--stats', path.join(tdir, 'stats.json'), ...appends]);
  console.log(`${tdir}: ${files} files x 250000 rows`);
}

await table('scan1m', 4);
await table('scan2m', 8);
{
  const tdir = path.join(dir, 'planning');
  fs.rmSync(tdir, { recursive: true, force: true });
  fs.mkdirSync(tdir, { recursive: true });
  fs.writeFileSync(path.join(tdir, 'schema.json'), JSON.stringify(schema));
  const appends = [];
  for (let k = 0; k < 500; k++)
    appends.push('--append', [0, 1, 2, 3].map((j) => `data/f-${k}-${j}.parquet:4`).join(','));
  execFileSync('/usr/bin/python3', [tool, '--dir', tdir, '--schema', path.join(tdir, 'schema.json'),
    '--fake-files', '--final-only', ...appends]);
  const lists = fs.readdirSync(path.join(tdir, 'metadata')).filter((n) => /-m\d+\.avro$/.test(n));
  if (lists.length !== 500) throw new Error(`${tdir}: ${lists.length} manifests, want 500`);
  console.log(`${tdir}: 500 manifests x 4 entries`);
}
c.closeSync();
inst.closeSync();
