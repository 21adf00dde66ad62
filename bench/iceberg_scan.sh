#!/usr/bin/env bash
# Iceberg scan: basalt against DuckDB and Polars over the tables of
# bench/peers/gen_iceberg.mjs (scan1m: 1,000,000 rows in four ZSTD files;
# scan2m: 2,000,000 rows in eight), at 1 and 2 threads, interleaved: each
# round runs every leg once. basalt's leg (basalt-bench, iceberg/scan/...)
# loads the metadata, plans and reads every column into Arrow batches; the
# peers read the same data files, with the file list given to them
# (bench/peers/iceberg_read_leg.mjs). Then the planning benchmark
# (iceberg/plan/500x4: 500 manifests of 4 entries; bar: p50 under 10 ms).
#
#   bench/iceberg_scan.sh [BASALT_BENCH] [ROUNDS]
#   BASALT_BENCH_ICEBERG  where the tables are (default $HOME/.cache/basalt-peers/iceberg);
#                         generated there when missing.
# One-thread legs are pinned to one CPU (taskset -c 1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
harness=${1:-$root/build/bench/basalt-bench}
rounds=${2:-3}
data=${BASALT_BENCH_ICEBERG:-$HOME/.cache/basalt-peers/iceberg}
[ -x "$harness" ] || { echo "iceberg_scan.sh: no basalt-bench at $harness (build first, Release)" >&2; exit 2; }
if [ ! -d "$data/scan2m" ] || [ ! -d "$data/planning" ]; then
  echo "generating the tables in $data" >&2
  node "$root/bench/peers/gen_iceberg.mjs" "$data" >&2
fi
export BASALT_BENCH_ICEBERG=$data
pin() { if [ "$1" = 1 ]; then shift; taskset -c 1 "$@"; else shift; "$@"; fi; }
results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "$(nproc) cpus; load $(cut -d' ' -f1-3 /proc/loadavg); node $(node --version)"
for round in $(seq 1 "$rounds"); do
  for t in scan1m scan2m; do
    for n in 1 2; do
      pin "$n" "$harness" --only "=iceberg/scan/$t/${n}t" --json 2>/dev/null |
        node -e 'const r = JSON.parse(require("fs").readFileSync(0, "utf8")).benchmarks[0];
          if (r.status !== "OK") { console.error(r.error); process.exit(1); }
          console.log(`basalt t=${r.threads} rows=${r.items_per_iter} p50=${(r.p50_ns / 1e6).toFixed(3)} ms p90=${(r.p90_ns / 1e6).toFixed(3)} ms  # basalt-bench iceberg/scan`)' |
        sed "s/^/$t /" | tee -a "$results"
      for e in duckdb polars; do
        (cd "$root/bench/peers" && POLARS_MAX_THREADS=$n \
          pin "$n" node --expose-gc iceberg_read_leg.mjs --engine "$e" --table "$data/$t" --threads "$n") |
          sed "s/^/$t /" | tee -a "$results"
      done
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
node - "$results" <<'JS'
const fs = require('fs');
const legs = {};
for (const line of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
  const m = /^(\S+) (\w+) t=(\d+) rows=(\d+) p50=([\d.]+) ms p90=([\d.]+) ms/.exec(line);
  if (!m) continue;
  const key = `${m[1]} ${m[2]} ${m[3]}`;
  (legs[key] ??= { table: m[1], engine: m[2], t: m[3], rows: m[4], p50: [], p90: [] });
  legs[key].p50.push(Number(m[5]));
  legs[key].p90.push(Number(m[6]));
}
const median = (v) => { const s = [...v].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
console.log('\ntable    engine  threads      rows   p50 ms   p90 ms   basalt p50 / engine p50');
const verdicts = [];
for (const tb of ['scan1m', 'scan2m']) {
  for (const t of ['1', '2']) {
    const ours = legs[`${tb} basalt ${t}`];
    let fastest = null;
    for (const e of ['basalt', 'duckdb', 'polars']) {
      const l = legs[`${tb} ${e} ${t}`];
      if (!l) continue;
      if (e !== 'basalt' && (!fastest || median(l.p50) < median(fastest.p50))) fastest = l;
      const ratio = ours && e !== 'basalt' ? (median(ours.p50) / median(l.p50)).toFixed(3) : '';
      console.log(`${tb.padEnd(8)} ${e.padEnd(7)} ${t.padStart(7)} ${l.rows.padStart(9)} ${median(l.p50).toFixed(2).padStart(8)} ${median(l.p90).toFixed(2).padStart(8)}   ${ratio}`);
    }
    if (ours && fastest)
      verdicts.push(`${tb} t=${t}: basalt ${median(ours.p50) < median(fastest.p50) ? 'ahead of' : 'NOT ahead of'} both peers (fastest ${fastest.engine}, ${(median(fastest.p50) / median(ours.p50)).toFixed(2)}x)`);
  }
}
console.log('');
for (const v of verdicts) console.log(v);
JS
echo
echo "planning (500 manifests x 4 entries), one thread:"
taskset -c 1 "$harness" --only "=iceberg/plan/500x4"
