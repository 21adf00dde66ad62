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
//
//   node tests/parquet/duckdb_geo.mjs --same ORIGINAL COPY
//
// checks a copy basalt wrote as DuckDB reads it: the same WKB values, the
// same logical type (a "projjson:KEY" crs resolved to the PROJJSON of KEY),
// the union of its row groups' types and, for GEOMETRY, of their bounding
// boxes equal to the original's (basalt writes no box for GEOGRAPHY, whose
// edges are not straight).
import { execFileSync } from 'node:child_process';
import { DuckDBInstance } from '@duckdb/node-api';

const args = process.argv.slice(2);
const same = args[0] === '--same';
const [basalt, ...files] = same ? [null, ...args.slice(1)] : args;
if ((!same && (!basalt || !files.length)) || (same && files.length !== 2)) {
  console.error('usage: node duckdb_geo.mjs BASALT FILE... | --same ORIGINAL COPY');
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
const lit = (file) => `'${file.replaceAll("'", "''")}'`;

async function geoColumn(file) {
  const [[name, logical]] = await q(`SELECT name, logical_type FROM parquet_schema(${lit(file)})
                                     WHERE logical_type LIKE 'Geo%'`);
  let lt = String(logical);
  const m = /crs=projjson:([^,)]*)/.exec(lt);
  if (m) {
    const [[v]] = await q(`SELECT decode(value) FROM parquet_kv_metadata(${lit(file)})
                           WHERE decode(key) = '${m[1]}'`);
    lt = lt.replace(`projjson:${m[1]}`, v);
  }
  const values = (await q(`SELECT ST_AsWKB("${name}") FROM read_parquet(${lit(file)})`))
    .map(([v]) => (v === null ? null : Buffer.from(v.bytes).toString('base64')));
  const stats = (await q(`SELECT geo_bbox, geo_types FROM parquet_metadata(${lit(file)})
                          WHERE path_in_schema = '${name}' ORDER BY row_group_id`))
    .map(([b, t]) => ({ bbox: b && b.entries, types: t ? t.items : [] }));
  return { name, lt, values, stats };
}

if (same) {
  const [a, b] = [await geoColumn(files[0]), await geoColumn(files[1])];
  const problems = [];
  // crs=<JSON> compared as JSON; an absent algorithm is SPHERICAL (Geospatial.md)
  const norm = (lt) => {
    lt = lt.replace('algorithm=<null>', 'algorithm=SPHERICAL');
    const i = lt.indexOf('crs={');
    if (i < 0) return lt;
    let depth = 0, j = i + 4;
    for (; j < lt.length; j++) {
      if (lt[j] === '{') depth++;
      if (lt[j] === '}' && --depth === 0) break;
    }
    return lt.slice(0, i + 4) + JSON.stringify(JSON.parse(lt.slice(i + 4, j + 1))) + lt.slice(j + 1);
  };
  if (norm(a.lt) !== norm(b.lt))
    problems.push(`logical type ${b.lt.slice(0, 80)}, not ${a.lt.slice(0, 80)}`);
  if (JSON.stringify(a.values) !== JSON.stringify(b.values)) problems.push('values differ');
  // an original without statistics has nothing to compare them with
  const unknown = a.stats.every((x) => !x.bbox && !x.types.length);
  const types = (s) => [...new Set(s.flatMap((x) => x.types))].sort().join(',');
  if (!unknown && types(a.stats) !== types(b.stats))
    problems.push(`types ${types(b.stats)}, not ${types(a.stats)}`);
  const boxes = a.stats.map((x) => x.bbox).filter((x) => x);
  const geography = a.lt.startsWith('Geography');
  const copies = b.stats.map((x) => x.bbox).filter((x) => x);
  if (!unknown && geography && copies.length) problems.push('a box for GEOGRAPHY');
  for (const ax of unknown || geography ? [] : ['x', 'y', 'z', 'm']) {
    // the union of the row groups' boxes, as text ('' for none)
    const union = (bs) => {
      const lo = bs.map((x) => x[ax + 'min']).filter((v) => v !== null);
      const hi = bs.map((x) => x[ax + 'max']).filter((v) => v !== null);
      return lo.length ? `${Math.min(...lo)}..${Math.max(...hi)}` : '';
    };
    if (union(boxes) !== union(copies))
      problems.push(`${ax} ${union(copies)}, not ${union(boxes)}`);
  }
  console.log(`${problems.length ? 'FAIL' : 'ok'} ${files[1]}: ${b.values.length} values, ` +
              `${b.stats.length} row groups${problems.length ? ': ' + problems.join('; ') : ''}`);
  process.exit(problems.length ? 1 : 0);
}

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
