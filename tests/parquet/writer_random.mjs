// Random settings for `basalt parquet rewrite`, for the seeded differential
// test of basalt's writer against other readers
// (tests/cli/parquet_writer_peers.sh):
//
//   node tests/parquet/writer_random.mjs BASALT SEED DIR COUNT
//
// For each DIR/t<i>.parquet (i < COUNT) prints one line
//   t<i>.parquet <TAB> rewrite options <TAB> features
// The options are a function of (SEED, i): codec (every codec basalt writes)
// and level, data page version, dictionary on or off, row group size, page
// size, worker threads, and for about half of the leaf columns an encoding
// drawn from those valid for the leaf's physical type in basalt's output
// (PLAIN, RLE_DICTIONARY, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
// DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT). The leaves and their types are taken
// from a plain rewrite of the table (written to DIR/probe.parquet), since
// basalt's output can store a column differently from its input (a decimal
// Polars stores as INT64 is written as FIXED_LEN_BYTE_ARRAY).
// The features name what each case uses, for the script's list of
// (reader, feature) pairs a reader cannot read: codec:C, pages:v1|v2,
// enc:ENCODING:PHYSICAL_TYPE, type:LOGICAL_TYPE (of any field).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parquetMetadata, parquetSchema } from 'hyparquet';

const [basalt, seedArg, dir, countArg] = process.argv.slice(2);
if (!basalt || !seedArg || !dir || !countArg) {
  console.error('usage: node writer_random.mjs BASALT SEED DIR COUNT');
  process.exit(2);
}

function rng(seed) {
  let s = (BigInt(seed) ^ 0x9e3779b97f4a7c15n) & 0xffffffffffffffffn;
  if (s === 0n) s = 1n;
  const next = () => {
    s ^= s >> 12n; s ^= (s << 25n) & 0xffffffffffffffffn; s ^= s >> 27n;
    return (s * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn;
  };
  const below = (n) => Number(next() % BigInt(n));
  const pick = (a) => a[below(a.length)];
  return { below, pick };
}

// Encodings basalt's writer takes for each physical type.
const VALID = {
  BOOLEAN: ['PLAIN'],
  INT32: ['PLAIN', 'RLE_DICTIONARY', 'DELTA_BINARY_PACKED', 'BYTE_STREAM_SPLIT'],
  INT64: ['PLAIN', 'RLE_DICTIONARY', 'DELTA_BINARY_PACKED', 'BYTE_STREAM_SPLIT'],
  FLOAT: ['PLAIN', 'RLE_DICTIONARY', 'BYTE_STREAM_SPLIT'],
  DOUBLE: ['PLAIN', 'RLE_DICTIONARY', 'BYTE_STREAM_SPLIT'],
  BYTE_ARRAY: ['PLAIN', 'RLE_DICTIONARY', 'DELTA_LENGTH_BYTE_ARRAY', 'DELTA_BYTE_ARRAY'],
  FIXED_LEN_BYTE_ARRAY: ['PLAIN', 'RLE_DICTIONARY', 'DELTA_BYTE_ARRAY', 'BYTE_STREAM_SPLIT'],
};
const LEVELS = { gzip: [1, 9], brotli: [0, 11], zstd: [1, 19] };

// The leaves (dotted path, physical type) and the logical types of a file.
function layout(file) {
  const b = readFileSync(file);
  const md = parquetMetadata(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  const leaves = [];
  (function walk(n) {
    if (!n.children.length && n.path.length) leaves.push({ path: n.path.join('.'), type: n.element.type });
    n.children.forEach(walk);
  })(parquetSchema(md));
  const logical = new Set();
  for (const el of md.schema.slice(1)) {
    const t = el.logical_type?.type ?? el.converted_type;
    if (t) logical.add(t);
  }
  return { leaves, logical };
}

const count = Number(countArg);
for (let t = 0; t < count; t++) {
  const r = rng(BigInt(seedArg) * 7919n + BigInt(t) + 17n);
  const input = `${dir}/t${t}.parquet`;
  const probe = `${dir}/probe.parquet`;
  execFileSync(basalt, ['parquet', 'rewrite', input, probe, '--codec', 'uncompressed'], { stdio: 'pipe' });
  const { leaves: cols, logical } = layout(probe);
  const codec = r.pick(['uncompressed', 'snappy', 'gzip', 'brotli', 'lz4', 'zstd', 'lz4_raw']);
  const opts = ['--codec', codec];
  if (LEVELS[codec] && r.below(2)) {
    const [lo, hi] = LEVELS[codec];
    opts.push('--level', String(lo + r.below(hi - lo + 1)));
  }
  const pv = r.pick(['1', '2']);
  opts.push('--page-version', pv);
  opts.push('--dictionary', r.pick(['on', 'off']));
  const rg = r.pick([null, 1, 3, 50, 1000]);
  if (rg) opts.push('--row-group-size', String(rg));
  const page = r.pick([null, 64, 1024, 8192]);
  if (page) opts.push('--page-size', String(page));
  if (r.below(4) === 0) opts.push('--threads', String(1 + r.below(4)));
  const features = [`codec:${codec.toUpperCase()}`, `pages:v${pv}`, ...[...logical].map((t) => `type:${t}`)];
  for (const c of cols) {
    if (r.below(2)) continue;
    const enc = r.pick(VALID[c.type]);
    opts.push('--encoding', `${c.path}=${enc}`);
    features.push(`enc:${enc}:${c.type}`);
  }
  console.log(`t${t}.parquet\t${opts.join(' ')}\t${[...new Set(features)].join(' ')}`);
}
