// GEOMETRY and GEOGRAPHY columns as DuckDB reads them, against basalt:
//
//   node tests/parquet/duckdb_geo.mjs BASALT FILE...
//
// For each file, every value of its geospatial column (DuckDB's ST_AsWKB,
// base64) must equal `basalt parquet cat --format json` (binary as base64),
// and every row group's GeospatialStatistics as DuckDB's parquet_metadata()
// gives them (geo_bbox, geo_types) must equal the geo column of
// `basalt parquet meta --format json`, written in its form: "x A..B y C..D
// [z ..] [m ..]; types 1,1001" (ISO WKB codes), numbers as JavaScript
// prints them. Prints one line per file; exits 1 when any differs.
import { execFileSync } from 'node:child_process';
import { DuckDBInstance } from '@duckdb/node-api';

const [basalt, ...files] = process.argv.slice(2);
if (!basalt || !files.length) {
  console.error('usage: node duckdb_geo.mjs BASALT FILE...');
  process.exit(2);
}
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const kinds = ['point', 'linestring', 'polygon', 'multipoint', 'multilinestring', 'multipolygon',
               'geometrycollection'];
const dims = { '': 0, z: 1000, m: 2000, zm: 3000 };
function code(name) {
  const [kind, dim = ''] = name.split('_');
  const k = kinds.indexOf(kind);
  if (k < 0 || !(dim in dims)) throw new Error(`unknown geometry type ${name}`);
  return k + 1 + dims[dim];
}
function geoText(bbox, types) {
  const parts = [];
  if (bbox) {
    for (const a of ['x', 'y', 'z', 'm']) {
      const lo = bbox[a + 'min'], hi = bbox[a + 'max'];
      if (lo !== null && lo !== undefined) parts.push(`${a} ${String(lo)}..${String(hi)}`);
    }
  }
  let s = parts.join(' ');
  if (types) s += (s ? '; ' : '') + 'types ' + types.map(code).sort((p, q) => p - q).join(',');
  return s;
}
const q = (sql) => conn.runAndReadAll(sql).then((r) => r.getRows());
let bad = 0;
for (const file of files) {
  const lit = `'${file.replaceAll("'", "''")}'`;
  const [[col]] = await q(`SELECT name FROM parquet_schema(${lit}) WHERE logical_type LIKE 'Geo%'`);
  const duck = (await q(`SELECT ST_AsWKB("${col}") FROM read_parquet(${lit})`))
    .map(([v]) => (v === null ? null : Buffer.from(v.bytes).toString('base64')));
  const mine = execFileSync(basalt, ['parquet', 'cat', '--format', 'json', '--columns', col, file],
                            { maxBuffer: 1 << 28 })
    .toString().split('\n').filter((l) => l).map((l) => JSON.parse(l)[col]);
  let diff = duck.length === mine.length ? 0 : 1;
  for (let i = 0; i < duck.length && !diff; i++) if (duck[i] !== mine[i]) diff = i + 1;
  const stats = await q(`SELECT row_group_id, geo_bbox, geo_types FROM parquet_metadata(${lit})
                         WHERE path_in_schema = '${col}' ORDER BY row_group_id`);
  const meta = execFileSync(basalt, ['parquet', 'meta', '--format', 'json', file])
    .toString().split('\n').filter((l) => l).map((l) => JSON.parse(l)).filter((r) => r.column === col);
  let sdiff = stats.length === meta.length ? 0 : 1;
  for (let g = 0; g < stats.length && !sdiff; g++) {
    const [, bbox, types] = stats[g];
    const want = bbox === null && types === null ? null
      : geoText(bbox && bbox.entries, types && types.items);
    if (want !== (meta[g].geo ?? null)) {
      sdiff = g + 1;
      console.log(`  row group ${g}: duckdb ${JSON.stringify(want)}, basalt ${JSON.stringify(meta[g].geo)}`);
    }
  }
  if (diff || sdiff) bad++;
  console.log(`${diff || sdiff ? 'FAIL' : 'ok'} ${file}: ${duck.length} values${diff ? ` (first difference at row ${diff - 1})` : ''}, ` +
              `${stats.length} row groups${sdiff ? ` (statistics differ at ${sdiff - 1})` : ''}`);
}
process.exit(bad ? 1 : 0);
