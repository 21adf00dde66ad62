// Reads pairs of Arrow IPC files with apache-arrow (JS) and nodejs-polars and
// checks that each pair holds the same values: the first file of a pair is
// an Arrow C++ gold file, the second basalt's rewrite of it. Also writes each
// gold table back with apache-arrow's writer (argument 'jswrite DIR') so that
// basalt can read files that JS produced.
// usage: node ipc_peers.mjs compare ORIG OURS [ORIG OURS ...]
//        node ipc_peers.mjs compare-polars ORIG OURS ... (Polars only)
//        node ipc_peers.mjs jswrite OUTDIR FILE...
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { tableFromIPC, tableToIPC } from 'apache-arrow';
import pl from 'nodejs-polars';

const canon = (v) => JSON.stringify(v, (k, x) => {
  if (typeof x === 'bigint') return x.toString() + 'n';
  if (x instanceof Uint8Array) return Buffer.from(x).toString('hex');
  if (ArrayBuffer.isView(x)) return Array.from(x, (y) => typeof y === 'bigint' ? y.toString() : y);
  if (x && typeof x === 'object' && typeof x.toJSON === 'function') return x.toJSON();
  if (typeof x === 'number' && Number.isNaN(x)) return 'NaN';
  return x;
});

function jsRows(path) {
  const t = tableFromIPC(readFileSync(path));
  return { n: t.numRows, rows: canon(t.toArray().map((r) => (r ? r.toJSON() : r))), schema: t.schema.fields.map((f) => `${f.name}:${f.type}`).join(',') };
}

function plRows(path) {
  const bytes = readFileSync(path);
  const df = bytes.subarray(0, 6).toString() === 'ARROW1' ? pl.readIPC(bytes) : pl.readIPCStream(bytes);
  return { n: df.height, rows: canon(df.toRecords()) };
}

const [mode, ...args] = process.argv.slice(2);
let fails = 0, js = 0, polars = 0, jsSkip = 0, plSkip = 0;
if (mode === 'compare' || mode === 'compare-polars') {
  for (let i = 0; i < args.length; i += 2) {
    const [orig, ours] = [args[i], args[i + 1]];
    let a = null;
    if (mode === 'compare') { try { a = jsRows(orig); } catch (e) { jsSkip++; } }
    if (a) {
      try {
        const b = jsRows(ours);
        if (a.n !== b.n || a.rows !== b.rows || a.schema !== b.schema) {
          fails++;
          console.log(`apache-arrow: ${ours} differs from ${orig}`);
        } else js++;
      } catch (e) { fails++; console.log(`apache-arrow cannot read ${ours}: ${e.message}`); }
    }
    let p = null;
    try { p = plRows(orig); } catch (e) { plSkip++; }
    if (p) {
      try {
        const q = plRows(ours);
        if (p.n !== q.n || p.rows !== q.rows) {
          fails++;
          console.log(`polars: ${ours} differs from ${orig}`);
        } else polars++;
      } catch (e) { fails++; console.log(`polars cannot read ${ours}: ${e.message}`); }
    }
  }
  console.log(`apache-arrow ${js} equal (${jsSkip} originals it cannot read), polars ${polars} equal (${plSkip} originals it cannot read), ${fails} failures`);
  process.exit(fails ? 1 : 0);
} else if (mode === 'jswrite') {
  const [dir, ...files] = args;
  let n = 0;
  for (const f of files) {
    try {
      const t = tableFromIPC(readFileSync(f));
      writeFileSync(`${dir}/${basename(f)}.js_stream`, tableToIPC(t, 'stream'));
      writeFileSync(`${dir}/${basename(f)}.js_file`, tableToIPC(t, 'file'));
      n++;
    } catch (e) { /* a type apache-arrow cannot read or write */ }
  }
  console.log(`apache-arrow wrote ${n} tables`);
}
