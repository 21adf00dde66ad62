// Peer legs of bench/ipc_read.sh: read an Arrow IPC file and sum its double
// column x, timed in-process over ROUNDS runs (p50 and p90, nearest rank).
//   node ipc_read_leg.mjs gen FILE ROWS     write the fixture with Polars (writeIPC)
//   node ipc_read_leg.mjs arrow FILE ROUNDS apache-arrow tableFromIPC(readFileSync)
//   node ipc_read_leg.mjs polars FILE ROUNDS nodejs-polars readIPC(path), sum
import { readFileSync, writeFileSync } from 'node:fs';
import { tableFromIPC } from 'apache-arrow';
import pl from 'nodejs-polars';

const [mode, file, n] = process.argv.slice(2);
if (mode === 'gen') {
  const rows = Number(n);
  const x = new Float64Array(rows);
  for (let i = 0; i < rows; i++) x[i] = (i % 1000) * 0.25;
  pl.DataFrame({ x: pl.Series('x', x, pl.Float64) }).writeIPC(file);
  process.exit(0);
}
const rounds = Number(n);
const times = [];
let sum = 0;
for (let r = 0; r < rounds + 1; r++) {
  const t0 = process.hrtime.bigint();
  sum = 0;
  if (mode === 'arrow') {
    const t = tableFromIPC(readFileSync(file));
    for (const b of t.batches) {
      const v = b.getChild('x').data[0].values;
      for (let i = 0; i < v.length; i++) sum += v[i];
    }
  } else {
    sum = pl.readIPC(readFileSync(file)).getColumn('x').sum();
  }
  const dt = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r > 0) times.push(dt); // the first run warms the page cache and the JIT
}
times.sort((a, b) => a - b);
const q = (p) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)];
const version = mode === 'arrow'
  ? 'apache-arrow ' + JSON.parse(readFileSync(new URL('../../node_modules/apache-arrow/package.json', import.meta.url))).version + ' tableFromIPC'
  : 'nodejs-polars ' + JSON.parse(readFileSync(new URL('../../node_modules/nodejs-polars/package.json', import.meta.url))).version + ' readIPC+sum';
console.log(JSON.stringify({ leg: version, p50_ms: q(0.5), p90_ms: q(0.9), sum, threads: mode === 'arrow' ? 1 : 'polars pool' }));
