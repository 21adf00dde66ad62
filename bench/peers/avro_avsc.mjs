// avsc leg of the Avro manifest benchmark (bench/avro.sh): decodes a
// container file written by basalt-bench (BASALT_BENCH_AVRO_DIR) from memory
// on the main thread, and prints p50 and p90 of one whole-file decode.
//
//   node avro_avsc.mjs --file manifest-null.avro --sums manifest-sums.json
//                      [--api decode|stream] [--fields all|two]
//                      [--repeat 20] [--warmup 3]
//
// One iteration does what basalt's does: parse the header and the schema,
// build the decoder, frame every block, check its sync marker, inflate it
// (deflate), decode every record and fold it into the checksum.
//   --api decode  avsc's synchronous Type#decode(buf, pos, resolver) per
//                 record; framing and inflation (zlib.inflateRawSync) here.
//   --api stream  avsc's own container reader: avro.streams.BlockDecoder, fed
//                 the whole file at once.
//   --fields two  a reader schema of a and path only, through avsc's resolver
//                 (Type#createResolver), which skips the other fields.
// Every iteration's checksum must equal manifest-sums.json (written by the C
// bench while generating the records), or the leg fails.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import zlib from 'node:zlib';

const require = createRequire(import.meta.url);
const avro = require('avsc');
const avscVersion = require('avsc/package.json').version;

const args = { api: 'decode', fields: 'all', repeat: 20, warmup: 3 };
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i].replace(/^--/, '');
  if (!(k in args) && k !== 'file' && k !== 'sums') {
    console.error(`avro_avsc.mjs: unknown option ${process.argv[i]}`);
    process.exit(2);
  }
  args[k] = process.argv[i + 1];
}
if (!args.file || !args.sums) {
  console.error('usage: node avro_avsc.mjs --file F.avro --sums SUMS.json [--api decode|stream] [--fields all|two] [--repeat N] [--warmup N]');
  process.exit(2);
}
const file = readFileSync(args.file);
const want = JSON.parse(readFileSync(args.sums, 'utf8'));
const all = args.fields === 'all';

const TWO_SCHEMA = {
  type: 'record', name: 'ManifestRow', namespace: 'basalt.bench',
  fields: [{ name: 'a', type: 'long' }, { name: 'path', type: 'string' }],
};
// The container header, from the Avro specification.
const headerType = avro.Type.forSchema({
  type: 'record', name: 'Header',
  fields: [
    { name: 'magic', type: { type: 'fixed', name: 'Magic', size: 4 } },
    { name: 'meta', type: { type: 'map', values: 'bytes' } },
    { name: 'sync', type: { type: 'fixed', name: 'Sync', size: 16 } },
  ],
});
const longType = avro.Type.forSchema('long');

function newSums() {
  return { rows: 0, a: 0, b: 0, path_len: 0, path_char: 0, d: 0, opt_count: 0, opt_sum: 0 };
}

function fold(s, r) {
  s.rows++;
  s.a += r.a;
  s.path_len += r.path.length;
  s.path_char += r.path.charCodeAt(r.path.length - 9);
  if (!all) return;
  s.b += r.b;
  s.d += r.d;
  if (r.opt !== null) {
    s.opt_count++;
    s.opt_sum += r.opt;
  }
}

function decodeSync(buf) {
  const s = newSums();
  const h = headerType.decode(buf, 0);
  if (h.offset < 0 || h.value.magic.toString('latin1') !== 'Obj\x01') throw new Error('not an Avro container file');
  const writer = avro.Type.forSchema(JSON.parse(h.value.meta['avro.schema'].toString()));
  const codec = h.value.meta['avro.codec'] ? h.value.meta['avro.codec'].toString() : 'null';
  if (codec !== 'null' && codec !== 'deflate') throw new Error(`codec ${codec}`);
  const sync = h.value.sync;
  let reader = writer, resolver;
  if (!all) {
    reader = avro.Type.forSchema(TWO_SCHEMA);
    resolver = reader.createResolver(writer);
  }
  let pos = h.offset;
  while (pos < buf.length) {
    const c = longType.decode(buf, pos);
    const z = longType.decode(buf, c.offset);
    if (c.offset < 0 || z.offset < 0) throw new Error('truncated block');
    const start = z.offset, end = start + z.value;
    if (end + 16 > buf.length || buf.compare(sync, 0, 16, end, end + 16) !== 0) throw new Error('bad sync marker');
    const data = codec === 'deflate' ? zlib.inflateRawSync(buf.subarray(start, end)) : buf.subarray(start, end);
    let p = 0;
    for (let i = 0; i < c.value; i++) {
      const r = reader.decode(data, p, resolver);
      if (r.offset < 0) throw new Error('truncated record');
      fold(s, r.value);
      p = r.offset;
    }
    if (p !== data.length) throw new Error('block not filled exactly');
    pos = end + 16;
  }
  return s;
}

function decodeStream(buf) {
  return new Promise((resolve, reject) => {
    const s = newSums();
    const dec = new avro.streams.BlockDecoder(all ? {} : { readerSchema: TWO_SCHEMA });
    dec.on('data', (r) => fold(s, r));
    dec.on('end', () => resolve(s));
    dec.on('error', reject);
    dec.end(buf);
  });
}

function check(s) {
  for (const k of ['rows', 'a', 'path_len', 'path_char', ...(all ? ['b', 'd', 'opt_count', 'opt_sum'] : [])]) {
    if (s[k] !== want[k]) throw new Error(`checksum mismatch on ${k}: ${s[k]} != ${want[k]}`);
  }
}

const decode = args.api === 'stream' ? decodeStream : decodeSync;
const times = [];
const total = Number(args.warmup) + Number(args.repeat);
for (let i = 0; i < total; i++) {
  const t0 = performance.now();
  const s = await decode(file);
  const t1 = performance.now();
  check(s);
  if (i >= Number(args.warmup)) times.push(t1 - t0);
}
// p50 and p90 by the harness's rule (linear between order statistics).
times.sort((x, y) => x - y);
const pct = (p) => {
  const h = (times.length - 1) * p, lo = Math.floor(h);
  return lo + 1 < times.length ? times[lo] + (h - lo) * (times[lo + 1] - times[lo]) : times[lo];
};
const codec = /deflate/.test(args.file) ? 'deflate' : 'null';
console.log(`avsc codec=${codec} api=${args.api} fields=${args.fields} rows=${want.rows} ` +
  `p50=${pct(0.5).toFixed(3)} ms p90=${pct(0.9).toFixed(3)} ms  # avsc ${avscVersion}, node ${process.version}, 1 thread`);
