#!/usr/bin/env bash
# Parquet read: basalt against DuckDB and Polars on flat.parquet (1,000,000
# rows, int64 + double + two dictionary strings, uncompressed, 4 row groups),
# at 1 and 2 threads, interleaved: each round runs every leg once, so drift
# of the machine falls on all of them alike.
#
#   bench/parquet_read.sh [BASALT] [ROUNDS]
#     BASALT  the basalt CLI of an optimised build (default build/tools/basalt/basalt)
#     ROUNDS  rounds of legs (default 3)
#   BASALT_BENCH_DATA  where flat.parquet is (default $HOME/.cache/basalt-peers/data);
#                      it is generated there (bench/peers/gen_flat.mjs) when missing.
#
# Each leg reads the file 20 times after 2 warm-up reads and reports the p50
# and p90 (nearest rank) of one read: basalt with `basalt parquet scan`
# (open, footer, every column of every row group into Arrow memory, strings
# materialised), the peers with bench/peers/parquet_read_leg.mjs (DuckDB: a
# materialised SELECT *; Polars: readParquet). The table gives the median
# over the rounds of each leg's p50 and p90, and basalt's p50 over the peer's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
basalt=${1:-$root/build/tools/basalt/basalt}
rounds=${2:-3}
data=${BASALT_BENCH_DATA:-$HOME/.cache/basalt-peers/data}
file=$data/flat.parquet
if [ ! -x "$basalt" ]; then
  echo "parquet_read.sh: no basalt CLI at $basalt (build first, Release)" >&2
  exit 2
fi
if [ ! -f "$file" ]; then
  echo "generating $file" >&2
  node "$root/bench/peers/gen_flat.mjs" "$data" >&2
fi
results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "file: $file ($(stat -c %s "$file") bytes); $(nproc) cpus; load $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$rounds"); do
  for t in 1 2; do
    "$basalt" parquet scan "$file" --threads "$t" --repeat 20 --warmup 2 |
      awk -v t="$t" '/^rows:/ {rows=$2} /^p50:/ {p50=$2} /^p90:/ {p90=$2}
        END {printf "basalt t=%s rows=%s p50=%s ms p90=%s ms  # basalt parquet scan\n", t, rows, p50, p90}' |
      tee -a "$results"
    (cd "$root/bench/peers" &&
      node --expose-gc parquet_read_leg.mjs --engine duckdb --file "$file" --threads "$t") | tee -a "$results"
    (cd "$root/bench/peers" && POLARS_MAX_THREADS=$t \
      node --expose-gc parquet_read_leg.mjs --engine polars --file "$file" --threads "$t") | tee -a "$results"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
node - "$results" <<'JS'
const fs = require('fs');
const legs = {};
for (const line of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
  const m = /^(\w+) t=(\d+) rows=(\d+) p50=([\d.]+) ms p90=([\d.]+) ms/.exec(line);
  if (!m) continue;
  const key = `${m[1]} ${m[2]}`;
  (legs[key] ??= { engine: m[1], t: m[2], rows: m[3], p50: [], p90: [] });
  legs[key].p50.push(Number(m[4]));
  legs[key].p90.push(Number(m[5]));
}
const median = (v) => { const s = [...v].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
console.log('\nengine   threads      rows   p50 ms   p90 ms   basalt p50 / engine p50');
for (const t of ['1', '2']) {
  const ours = legs[`basalt ${t}`];
  for (const e of ['basalt', 'duckdb', 'polars']) {
    const l = legs[`${e} ${t}`];
    if (!l) continue;
    const ratio = ours ? (median(ours.p50) / median(l.p50)).toFixed(3) : '-';
    console.log(`${e.padEnd(8)} ${t.padStart(7)} ${l.rows.padStart(9)} ${median(l.p50).toFixed(2).padStart(8)} ${median(l.p90).toFixed(2).padStart(8)}   ${e === 'basalt' ? '' : ratio}`);
  }
}
JS
